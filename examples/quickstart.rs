//! The first thing to run: a function and its gradient, generated at compile
//! time; the same on the run-time tape; then gradient descent.
//!
//! ```text
//! cargo run --release --example quickstart
//! ```

use autograd::differentiable;
use autograd::tape::Tape;

/// An ordinary `f64` function; `#[differentiable]` adds `f_grad` and `f_adjoint`.
#[differentiable]
fn f(x: f64, y: f64) -> f64 {
    x * y + x.sin()
}

/// Extended Rosenbrock in two dimensions, over a slice.
#[differentiable]
fn rosenbrock(p: &[f64]) -> f64 {
    let a = 1.0 - p[0];
    let b = p[1] - p[0] * p[0];
    a * a + 100.0 * b * b
}

fn main() {
    let (value, (dx, dy)) = f_grad(2.0, 3.0);
    println!("f(x, y) = x·y + sin x at (2, 3)");
    println!(
        "  value  {value:.6}   (6 + sin 2 = {:.6})",
        6.0 + 2.0_f64.sin()
    );
    println!(
        "  ∂f/∂x  {dx:.6}   (3 + cos 2 = {:.6})",
        3.0 + 2.0_f64.cos()
    );
    println!("  ∂f/∂y  {dy:.6}   (2)");

    // The same function recorded on the tape at run time: same rules, same numbers.
    let tape = Tape::new();
    let (x, y) = (tape.var_named("x", 2.0), tape.var_named("y", 3.0));
    let z = x * y + x.sin();
    let g = z.backward();
    println!(
        "on the tape: value {:.6}, ∂x {:.6}, ∂y {:.6}",
        z.value(),
        g[x],
        g[y]
    );
    assert_eq!((z.value(), g[x], g[y]), (value, dx, dy));

    // Gradient descent on Rosenbrock with the generated adjoint: it adds the
    // gradient into a buffer we own, so the loop allocates nothing.
    let mut p = [-1.2, 1.0];
    let mut gradient = [0.0; 2];
    let start = rosenbrock(&p);
    for _ in 0..20_000 {
        gradient = [0.0; 2];
        rosenbrock_adjoint(&p, 1.0, &mut gradient);
        p[0] -= 1e-3 * gradient[0];
        p[1] -= 1e-3 * gradient[1];
    }
    println!(
        "\nRosenbrock from (-1.2, 1): {start:.3} → {:.2e} at ({:.4}, {:.4}), |∇| = {:.1e}",
        rosenbrock(&p),
        p[0],
        p[1],
        gradient[0].hypot(gradient[1])
    );
}
