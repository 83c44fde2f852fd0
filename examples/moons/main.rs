//! The main demo: a 2→16→16→1 ReLU MLP learns the two-moons data set.
//!
//! ```text
//! cargo run --release --example moons
//! ```
//!
//! 100 points in two interleaving half circles (noise 0.1, fixed seed),
//! hinge loss plus 1e-4·L2, plain SGD with the learning rate decaying
//! linearly from 1.0 to 0.1 over 100 steps. Every gradient comes from
//! adjoints generated at compile time: the network's neurons and activations
//! (`autograd::nn`) and the losses (`autograd::loss`) are `#[differentiable]`
//! functions. Prints its progress, ends with `accuracy: NN.N%`, and writes the
//! decision boundary to `moons.svg` in the current directory.

mod svg;

use autograd::loss;
use autograd::nn::{Activation, Mlp};
use autograd::optim::{self, LinearDecay, Sgd};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// The trained model and how well it does.
pub struct Outcome {
    pub model: Mlp,
    /// Points, row-major `[x0, y0, x1, y1, ..]`, and their labels ±1.
    pub xs: Vec<f64>,
    pub labels: Vec<f64>,
    /// Loss (hinge + L2) and accuracy after each step.
    pub losses: Vec<f64>,
    pub accuracy: f64,
}

/// Two interleaving half circles, `n` points in all, labels −1 and +1, with
/// Gaussian noise of standard deviation `noise`.
pub fn two_moons(n: usize, noise: f64, seed: u64) -> (Vec<f64>, Vec<f64>) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut normal = move || {
        // Box–Muller: two uniforms make one standard normal.
        let (u, v): (f64, f64) = (rng.gen::<f64>().max(f64::MIN_POSITIVE), rng.gen());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    };
    let half = n / 2;
    let (mut xs, mut labels) = (Vec::with_capacity(2 * n), Vec::with_capacity(n));
    for i in 0..n {
        let outer = i < half;
        let k = if outer { i } else { i - half };
        let count = if outer { half } else { n - half };
        let t = std::f64::consts::PI * k as f64 / (count - 1).max(1) as f64;
        let (x, y) = if outer {
            (t.cos(), t.sin())
        } else {
            (1.0 - t.cos(), 0.5 - t.sin())
        };
        xs.push(x + noise * normal());
        xs.push(y + noise * normal());
        labels.push(if outer { -1.0 } else { 1.0 });
    }
    (xs, labels)
}

/// The fraction of points whose score has the sign of their label.
pub fn accuracy(model: &Mlp, xs: &[f64], labels: &[f64]) -> f64 {
    let scores = model.forward_batch(xs);
    let right = scores
        .iter()
        .zip(labels)
        .filter(|(score, label)| *score * *label > 0.0)
        .count();
    right as f64 / labels.len() as f64
}

/// Trains the model; with `verbose`, prints a line every 10 steps.
pub fn train(verbose: bool) -> Outcome {
    let (xs, labels) = two_moons(100, 0.1, 7);
    let mut model = Mlp::new(2, &[16, 16, 1], Activation::Relu, 1337);
    let mut grad = model.gradient_buffer();
    let mut sgd = Sgd::new(1.0);
    let schedule = LinearDecay {
        start: 1.0,
        end: 0.1,
        steps: 100,
    };
    let mut losses = Vec::with_capacity(100);
    if verbose {
        println!(
            "two moons: {} points, MLP 2→16→16→1 ({} parameters), hinge loss + 1e-4·L2, SGD",
            labels.len(),
            model.num_parameters()
        );
    }
    for step in 0..100 {
        optim::zero_grad(&mut grad);
        // The network's gradient, chained from the hinge loss's generated adjoint...
        let data_loss = model.loss_grad(
            &xs,
            |scores, d_scores| loss::hinge_mean_adjoint(scores, &labels, 1.0, d_scores),
            &mut grad,
        );
        // ... plus the L2 penalty's, added into the same buffer.
        let penalty = loss::l2_adjoint(model.parameters(), 1e-4, &mut grad);
        let total = data_loss + 1e-4 * penalty;
        losses.push(total);
        let rate = schedule.rate(step);
        sgd.set_learning_rate(rate);
        sgd.step(model.parameters_mut(), &grad);
        if verbose && (step % 10 == 0 || step == 99) {
            println!(
                "step {step:3}  loss {total:.4}  accuracy {:5.1}%  learning rate {rate:.2}",
                100.0 * accuracy(&model, &xs, &labels)
            );
        }
    }
    let accuracy = accuracy(&model, &xs, &labels);
    Outcome {
        model,
        xs,
        labels,
        losses,
        accuracy,
    }
}

/// Draws `model`'s decision boundary (used by the test).
pub fn svg_for_test(path: &str, points: &[(f64, f64)], labels: &[f64], model: &Mlp) {
    svg::decision_boundary(path, points, labels, "test", |x, y| {
        model.forward(&[x, y])[0]
    })
    .expect("the picture is written");
}

fn main() {
    let outcome = train(true);
    let points: Vec<(f64, f64)> = outcome.xs.chunks(2).map(|p| (p[0], p[1])).collect();
    let model = &outcome.model;
    let caption = format!(
        "two moons: MLP 2-16-16-1, {:.1}% accuracy (red +1, blue -1)",
        100.0 * outcome.accuracy
    );
    match svg::decision_boundary("moons.svg", &points, &outcome.labels, &caption, |x, y| {
        model.forward(&[x, y])[0]
    }) {
        Ok(()) => println!("decision boundary written to moons.svg"),
        Err(error) => eprintln!("could not write moons.svg: {error}"),
    }
    println!("accuracy: {:.1}%", 100.0 * outcome.accuracy);
}
