//! Minimises the extended Rosenbrock function in n = 1 000 dimensions with
//! argmin's trust-region method and Steihaug's conjugate-gradient
//! subproblem, matrix-free: every product of the Hessian with a vector that
//! the subproblem asks for is one call of the generated `rosenbrock_hvp`
//! (forward over reverse), and the 1 000 × 1 000 Hessian is never formed.
//! [`autograd::argmin::Objective::with_hvp`] does the wiring. (argmin's
//! Newton-CG with a line search takes the same `Hessian`; from this start it
//! is still at f ≈ 7e-3 after 200 iterations.)
//!
//! ```text
//! cargo run --release --features argmin --example argmin_trust_region
//! ```

use argmin::core::{Executor, TerminationReason, TerminationStatus};
use argmin::solver::trustregion::{Steihaug, TrustRegion};
use autograd::argmin::Objective;
use autograd::differentiable;

/// The extended Rosenbrock function (Moré, Garbow and Hillstrom, problem 21),
/// minimum 0 at all ones.
#[differentiable(hessian)]
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
pub struct TrustRegionResult {
    /// `f` at the start.
    pub initial_value: f64,
    /// `f` at the best point.
    pub value: f64,
    /// `max |xᵢ − 1|` at the best point.
    pub max_error: f64,
    /// Trust-region iterations.
    pub iterations: u64,
    /// Whether argmin stopped because it converged (or reached f < 1e-18).
    pub converged: bool,
}

/// Runs the trust-region method (Steihaug, at most 50 CG steps a
/// subproblem) on n = `n`, from (−1.2, 1, ...), until f < 1e-18.
pub fn run(n: usize, verbose: bool) -> TrustRegionResult {
    let start: Vec<f64> = (0..n)
        .map(|i| if i % 2 == 0 { -1.2 } else { 1.0 })
        .collect();
    let initial_value = rosenbrock(&start);
    let problem = Objective::new(rosenbrock, rosenbrock_grad)
        .with_hvp(|x: &[f64], v: &[f64]| rosenbrock_hvp(x, v));
    let solver = TrustRegion::new(Steihaug::new().with_max_iters(50));
    let result = Executor::new(problem, solver)
        .configure(|state| state.param(start).max_iters(200).target_cost(1e-18))
        .run()
        .expect("the trust-region method runs");
    let state = result.state();
    let best = state.best_param.clone().expect("a best point");
    let max_error = best.iter().map(|v| (v - 1.0).abs()).fold(0.0, f64::max);
    let converged = matches!(
        state.termination_status,
        TerminationStatus::Terminated(
            TerminationReason::SolverConverged | TerminationReason::TargetCostReached
        )
    );
    if verbose {
        println!(
            "n = {n}: f = {initial_value:.3e} at the start, {:.3e} after {} trust-region iterations ({:?}); max |x_i - 1| = {max_error:.2e}",
            state.best_cost, state.iter, state.termination_status
        );
    }
    TrustRegionResult {
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
