//! Fits the model `y = a·exp(b·t)` to 20 noisy points with argmin's
//! Gauss-Newton method: the residuals are a `#[differentiable]` function
//! returning a `Vec<f64>`, and [`autograd::argmin::LeastSquares`] hands
//! argmin the residuals and their generated Jacobian (`residuals_jacobian`).
//!
//! ```text
//! cargo run --release --features argmin --example argmin_gauss_newton
//! ```

use argmin::core::Executor;
use argmin::solver::gaussnewton::GaussNewton;
use autograd::argmin::LeastSquares;
use autograd::differentiable;

/// `a·exp(b·tᵢ) − yᵢ` for each data point, with respect to `p = (a, b)`.
#[differentiable(wrt(p))]
pub fn residuals(p: &[f64], t: &[f64], y: &[f64]) -> Vec<f64> {
    let mut r = vec![0.0; t.len()];
    for i in 0..t.len() {
        r[i] = p[0] * (p[1] * t[i]).exp() - y[i];
    }
    r
}

/// The data: `y = 2.5·exp(−1.3·t)` at `t = 0, 0.1, ..., 1.9`, plus a small
/// deterministic perturbation (±0.01).
pub fn data() -> (Vec<f64>, Vec<f64>) {
    let t: Vec<f64> = (0..20).map(|i| i as f64 * 0.1).collect();
    let y = t
        .iter()
        .enumerate()
        .map(|(i, &t)| 2.5 * (-1.3 * t).exp() + 0.01 * ((i * 7 % 5) as f64 - 2.0) / 2.0)
        .collect();
    (t, y)
}

/// What the fit ended with.
pub struct FitResult {
    /// The fitted `(a, b)`.
    pub params: Vec<f64>,
    /// `‖r‖` at the start and at the end.
    pub initial_norm: f64,
    pub final_norm: f64,
    /// Gauss-Newton iterations.
    pub iterations: u64,
}

/// Runs Gauss-Newton from `(a, b) = (1, 0)`.
pub fn run(verbose: bool) -> FitResult {
    let (t, y) = data();
    let norm = |p: &[f64]| {
        residuals(p, &t, &y)
            .iter()
            .map(|r| r * r)
            .sum::<f64>()
            .sqrt()
    };
    let start = vec![1.0, 0.0];
    let initial_norm = norm(&start);
    let problem = LeastSquares::new(
        |p: &[f64]| residuals(p, &t, &y),
        |p: &[f64]| residuals_jacobian(p, &t, &y),
    );
    let result = Executor::new(problem, GaussNewton::new())
        .configure(|state| state.param(start).max_iters(50))
        .run()
        .expect("Gauss-Newton runs");
    let state = result.state();
    let params = state.best_param.clone().expect("a best point");
    let final_norm = norm(&params);
    if verbose {
        println!(
            "a = {:.4}, b = {:.4} after {} Gauss-Newton iterations; ‖r‖ = {initial_norm:.3} → {final_norm:.2e} ({:?})",
            params[0], params[1], state.iter, state.termination_status
        );
    }
    FitResult {
        params,
        initial_norm,
        final_norm,
        iterations: state.iter,
    }
}

fn main() {
    run(true);
}
