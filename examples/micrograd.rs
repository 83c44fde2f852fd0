//! The demo from Karpathy's micrograd: a 3 → [4, 4] → 1 MLP with tanh on
//! every layer (the output too, as in micrograd) fitted to four points with
//! targets ±1 by 300 steps of plain gradient descent (rate 0.05) on the sum
//! of squared errors, which ends below 0.01.
//!
//! ```text
//! cargo run --release --example micrograd
//! ```

use autograd::differentiable;
use autograd::nn::{Activation, Mlp};
use autograd::optim::{self, Sgd};

/// The four inputs, row after row, and their targets.
pub const INPUTS: [f64; 12] = [
    2.0, 3.0, -1.0, //
    3.0, -1.0, 0.5, //
    0.5, 1.0, 1.0, //
    1.0, 1.0, -1.0,
];
pub const TARGETS: [f64; 4] = [1.0, -1.0, -1.0, 1.0];

/// Sum of squared errors, micrograd's loss: `Σ (predᵢ − targetᵢ)²`.
#[differentiable(wrt(pred))]
fn sum_of_squares(pred: &[f64], target: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..pred.len() {
        let error = pred[i] - target[i];
        total += error * error;
    }
    total
}

/// What training ended with.
pub struct MicrogradResult {
    /// Gradient-descent steps taken.
    pub steps: usize,
    /// The sum of squared errors at the start.
    pub initial_loss: f64,
    /// The sum of squared errors at the end.
    pub loss: f64,
    /// The network's output for each of the four inputs.
    pub predictions: Vec<f64>,
}

/// Trains the network; prints progress if `verbose`.
pub fn run(verbose: bool) -> MicrogradResult {
    let tanh = Activation::Tanh;
    let mut mlp = Mlp::with_activations(3, &[(4, tanh), (4, tanh), (1, tanh)], 1);
    assert_eq!(mlp.num_parameters(), 41);
    let mut grad = mlp.gradient_buffer();
    let mut sgd = Sgd::new(0.05);
    let initial_loss = sum_of_squares(&mlp.forward_batch(&INPUTS), &TARGETS);
    let steps = 300;
    for step in 0..steps {
        optim::zero_grad(&mut grad);
        let loss = mlp.loss_grad(
            &INPUTS,
            |out, d_out| sum_of_squares_adjoint(out, &TARGETS, 1.0, d_out),
            &mut grad,
        );
        if verbose && step % 50 == 0 {
            println!("step {step:4}  loss {loss:.6}");
        }
        sgd.step(mlp.parameters_mut(), &grad);
    }
    let predictions = mlp.forward_batch(&INPUTS);
    MicrogradResult {
        steps,
        initial_loss,
        loss: sum_of_squares(&predictions, &TARGETS),
        predictions,
    }
}

fn main() {
    let r = run(true);
    for (i, p) in r.predictions.iter().enumerate() {
        println!(
            "  {:?} → {:+.0}  predicted {p:+.4}",
            &INPUTS[3 * i..3 * i + 3],
            TARGETS[i]
        );
    }
    println!(
        "micrograd: {} steps, sum of squared errors {:.4} → {:.5} (must be < 0.01)",
        r.steps, r.initial_loss, r.loss
    );
}
