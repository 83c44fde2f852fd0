//! A user's MLP, written as a user would: flat parameters, stack buffers,
//! three nested loops. Its generated gradient is checked against finite
//! differences, then trained.

mod common;
#[path = "common/mlp.rs"]
mod model;

use model::{init, mlp_loss, mlp_loss_adjoint, mlp_loss_grad, moons, Rng, PARAMS};

#[test]
fn gradient_matches_finite_differences() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (xs, ys) = moons(20, 0.1, &mut rng);
    let w = init(&mut rng);
    let (value, g) = mlp_loss_grad(&w, &xs, &ys);
    assert_eq!(value, mlp_loss(&w, &xs, &ys));
    assert_eq!(g.len(), PARAMS);
    let mut worst: f64 = 0.0;
    for (i, &analytic) in g.iter().enumerate() {
        let numeric = common::central_difference(|v| mlp_loss(v, &xs, &ys), &w, i);
        worst = worst.max((numeric - analytic).abs() / (1.0 + numeric.abs()));
    }
    // ReLU and hinge kinks can sit within a finite-difference step: allow a
    // little, but a wrong adjoint is off by far more.
    assert!(worst < 1e-5, "worst relative error {worst}");
}

#[test]
fn sixty_sgd_steps_halve_the_loss() {
    let mut rng = Rng(42);
    let (xs, ys) = moons(100, 0.1, &mut rng);
    let mut w = init(&mut rng);
    let start = mlp_loss(&w, &xs, &ys);
    let mut gradient = vec![0.0; PARAMS];
    for step in 0..60 {
        gradient.iter_mut().for_each(|g| *g = 0.0);
        mlp_loss_adjoint(&w, &xs, &ys, 1.0, &mut gradient);
        let rate = 0.1 * (1.0 - 0.9 * step as f64 / 60.0);
        for (p, g) in w.iter_mut().zip(&gradient) {
            *p -= rate * g;
        }
    }
    let end = mlp_loss(&w, &xs, &ys);
    eprintln!("MLP hinge loss: {start:.4} -> {end:.4} after 60 SGD steps");
    assert!(end < 0.5 * start, "loss went from {start} to {end}");
}
