//! Minimises the extended Rosenbrock function in n = 1 000 dimensions with
//! argmin's L-BFGS, from the standard start (−1.2, 1, −1.2, 1, ...), to the
//! minimum at (1, 1, ..., 1). The objective is an ordinary loop under
//! `#[differentiable]`; [`autograd::argmin::Objective`] hands argmin the
//! function and its generated `_grad`.
//!
//! ```text
//! cargo run --release --features argmin --example argmin_lbfgs
//! ```

use argmin::core::{Executor, TerminationReason, TerminationStatus};
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::quasinewton::LBFGS;
use autograd::argmin::Objective;
use autograd::differentiable;

/// The extended Rosenbrock function (Moré, Garbow and Hillstrom, problem 21)
/// for even `x.len()`:
/// `Σ_{i < n/2} 100 (x_{2i+1} − x_{2i}²)² + (1 − x_{2i})²`, minimum 0 at all ones.
#[differentiable]
pub fn rosenbrock(x: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..x.len() / 2 {
        let a = 1.0 - x[2 * i];
        let b = x[2 * i + 1] - x[2 * i] * x[2 * i];
        total += 100.0 * b * b + a * a;
    }
    total
}

/// What the minimisation ended with.
pub struct LbfgsResult {
    /// `f` at the start.
    pub initial_value: f64,
    /// `f` at the best point.
    pub value: f64,
    /// `max |xᵢ − 1|` at the best point.
    pub max_error: f64,
    /// L-BFGS iterations.
    pub iterations: u64,
    /// Whether argmin stopped because it converged (not at the iteration
    /// limit).
    pub converged: bool,
}

/// Runs L-BFGS (memory 7, Moré–Thuente line search) on n = `n`.
pub fn run(n: usize, verbose: bool) -> LbfgsResult {
    let start: Vec<f64> = (0..n)
        .map(|i| if i % 2 == 0 { -1.2 } else { 1.0 })
        .collect();
    let initial_value = rosenbrock(&start);
    let problem = Objective::new(rosenbrock, rosenbrock_grad);
    let solver = LBFGS::new(MoreThuenteLineSearch::new(), 7)
        .with_tolerance_grad(1e-10)
        .expect("a positive tolerance");
    let result = Executor::new(problem, solver)
        .configure(|state| state.param(start).max_iters(2_000))
        .run()
        .expect("L-BFGS runs");
    let state = result.state();
    let best = state.best_param.clone().expect("a best point");
    let max_error = best.iter().map(|v| (v - 1.0).abs()).fold(0.0, f64::max);
    let converged = matches!(
        state.termination_status,
        TerminationStatus::Terminated(TerminationReason::SolverConverged)
    );
    if verbose {
        println!(
            "n = {n}: f = {initial_value:.3e} at the start, {:.3e} after {} L-BFGS iterations ({:?}); max |x_i - 1| = {max_error:.2e}",
            state.best_cost, state.iter, state.termination_status
        );
    }
    LbfgsResult {
        initial_value,
        value: state.best_cost,
        max_error,
        iterations: state.iter,
        converged,
    }
}

fn main() {
    run(1_000, true);
}
