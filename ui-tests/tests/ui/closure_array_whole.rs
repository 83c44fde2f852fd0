use autograd::differentiable;

#[differentiable]
fn g(v: &[f64]) -> f64 {
    v[0] * v[1]
}

// A closure's array result is kept as separate values: it cannot be given
// whole to a function.
#[differentiable]
fn f(x: &[f64]) -> f64 {
    let pair = |t: f64| [t, 2.0 * t];
    let p = pair(x[0]);
    g(&p)
}

fn main() {}
