//! `autograd::optim`: update formulas against hand computation, convergence
//! on a quadratic and on Rosenbrock, the schedule, and the panics.

use autograd::differentiable;
use autograd::optim::{self, Adam, LinearDecay, Sgd};

/// 2-D Rosenbrock: minimum 0 at (1, 1).
#[differentiable]
fn rosenbrock(p: &[f64]) -> f64 {
    let a = 1.0 - p[0];
    let b = p[1] - p[0] * p[0];
    a * a + 100.0 * b * b
}

/// An ill-conditioned quadratic with minimum at (1, −2, 3).
#[differentiable]
fn quadratic(p: &[f64]) -> f64 {
    let a = p[0] - 1.0;
    let b = p[1] + 2.0;
    let c = p[2] - 3.0;
    0.5 * a * a + 10.0 * b * b + 0.01 * c * c + 0.5 * a * b
}

// ---- zero_grad ----

#[test]
fn zero_grad_clears_and_adjoints_accumulate_until_then() {
    let p = [0.5, 2.0];
    let mut grads = vec![0.0; 2];
    rosenbrock_adjoint(&p, 1.0, &mut grads);
    let once = grads.clone();
    rosenbrock_adjoint(&p, 1.0, &mut grads);
    assert_eq!(grads, vec![2.0 * once[0], 2.0 * once[1]]);
    optim::zero_grad(&mut grads);
    assert_eq!(grads, vec![0.0, 0.0]);
    rosenbrock_adjoint(&p, 1.0, &mut grads);
    assert_eq!(grads, once);
}

#[test]
fn step_does_not_touch_the_gradients() {
    let grads = vec![1.0, -2.0];
    let mut params = vec![0.0, 0.0];
    Sgd::new(0.1).with_momentum(0.9).step(&mut params, &grads);
    Adam::new(0.1).step(&mut params, &grads);
    assert_eq!(grads, vec![1.0, -2.0]);
}

// ---- SGD ----

#[test]
fn plain_sgd_is_exactly_the_hand_update() {
    let lr = 0.037;
    let mut sgd = Sgd::new(lr);
    let mut params = vec![1.5, -0.3, 7.0, 0.0];
    let mut hand = params.clone();
    for k in 0..5 {
        let grads: Vec<f64> = (0..4).map(|i| ((i + k) as f64).sin() * 3.1).collect();
        sgd.step(&mut params, &grads);
        for (p, g) in hand.iter_mut().zip(&grads) {
            *p -= lr * g;
        }
        assert_eq!(params, hand, "step {k}");
    }
}

#[test]
fn sgd_momentum_formula() {
    let (lr, mu) = (0.1, 0.9);
    let mut sgd = Sgd::new(lr).with_momentum(mu);
    let mut params = vec![1.0, -1.0];
    let mut hand = params.clone();
    let mut velocity = [0.0; 2];
    let grads = [[1.0, 2.0], [0.5, -1.0], [-2.0, 0.25]];
    for g in &grads {
        sgd.step(&mut params, g);
        for i in 0..2 {
            velocity[i] = mu * velocity[i] + g[i];
            hand[i] -= lr * velocity[i];
        }
        assert_eq!(params, hand);
    }
    // The first two steps, written out: v₁ = g₁, v₂ = μ g₁ + g₂.
    let mut sgd = Sgd::new(0.5).with_momentum(0.5);
    let mut p = [0.0];
    sgd.step(&mut p, &[2.0]);
    assert_eq!(p, [-1.0]);
    sgd.step(&mut p, &[2.0]);
    assert_eq!(p, [-2.5]);
}

#[test]
fn sgd_weight_decay_formula() {
    let (lr, wd) = (0.1, 0.01);
    let mut sgd = Sgd::new(lr).with_weight_decay(wd);
    let mut params = vec![2.0, -4.0];
    sgd.step(&mut params, &[1.0, 0.0]);
    assert_eq!(
        params,
        vec![2.0 - lr * (1.0 + wd * 2.0), -4.0 - lr * (wd * -4.0)]
    );

    // With momentum too: g = grad + λp, v = μv + g, p -= ηv.
    let (mu, mut v) = (0.8, 0.0);
    let mut sgd = Sgd::new(lr).with_momentum(mu).with_weight_decay(wd);
    let (mut p, mut hand) = ([3.0], 3.0);
    for g in [0.5, -0.25, 1.0] {
        sgd.step(&mut p, &[g]);
        v = mu * v + (g + wd * hand);
        hand -= lr * v;
        assert_eq!(p, [hand]);
    }
    // Weight decay alone shrinks parameters geometrically.
    let mut sgd = Sgd::new(0.5).with_weight_decay(0.1);
    let mut p = [1.0];
    for _ in 0..3 {
        sgd.step(&mut p, &[0.0]);
    }
    assert!((p[0] - 0.95f64.powi(3)).abs() < 1e-15);
}

#[test]
fn set_learning_rate_applies_to_the_next_step() {
    let mut sgd = Sgd::new(1.0);
    let mut p = [0.0];
    sgd.step(&mut p, &[1.0]);
    sgd.set_learning_rate(0.25);
    assert_eq!(sgd.learning_rate, 0.25);
    sgd.step(&mut p, &[1.0]);
    assert_eq!(p, [-1.25]);
}

#[test]
fn sgd_with_momentum_minimises_the_quadratic() {
    let mut params = vec![0.0; 3];
    let mut grads = vec![0.0; 3];
    let mut sgd = Sgd::new(0.04).with_momentum(0.9);
    for _ in 0..3000 {
        optim::zero_grad(&mut grads);
        quadratic_adjoint(&params, 1.0, &mut grads);
        sgd.step(&mut params, &grads);
    }
    let (a, b) = (params[0], params[1]);
    assert!(
        (a - 1.0).abs() < 1e-6 && (b + 2.0).abs() < 1e-6,
        "{params:?}"
    );
}

// ---- Adam ----

#[test]
fn adam_first_steps_match_hand_computation() {
    let (lr, b1, b2, eps) = (0.1, 0.9, 0.999, 1e-8);
    let mut adam = Adam::new(lr);
    let mut p = [1.0, -2.0];

    // Step 1, g = (4, −0.5): m = 0.1 g, v = 0.001 g², m̂ = g, v̂ = g²,
    // update = g / (|g| + ε).
    adam.step(&mut p, &[4.0, -0.5]);
    let e1 = [
        1.0 - lr * 4.0 / (4.0 + eps),
        -2.0 - lr * (-0.5) / (0.5 + eps),
    ];
    assert!(
        (p[0] - e1[0]).abs() < 1e-15 && (p[1] - e1[1]).abs() < 1e-15,
        "{p:?}"
    );
    assert!((p[0] - 0.9).abs() < 1e-8 && (p[1] + 1.9).abs() < 1e-8); // ≈ η per coordinate

    // Step 2, g = (2, 1), written out.
    adam.step(&mut p, &[2.0, 1.0]);
    let g1 = [4.0, -0.5];
    let g2 = [2.0, 1.0];
    for i in 0..2 {
        let m = b1 * ((1.0 - b1) * g1[i]) + (1.0 - b1) * g2[i];
        let v = b2 * ((1.0 - b2) * g1[i] * g1[i]) + (1.0 - b2) * g2[i] * g2[i];
        let m_hat = m / (1.0 - b1 * b1);
        let v_hat = v / (1.0 - b2 * b2);
        let expected = e1[i] - lr * m_hat / (v_hat.sqrt() + eps);
        assert!(
            (p[i] - expected).abs() < 1e-15,
            "{i}: {} vs {expected}",
            p[i]
        );
    }
    // Coordinate 0 by numbers: m̂ = (0.36 + 0.2)/0.19, v̂ = (0.015984 + 0.004)/0.001999.
    let m_hat = (0.9 * 0.4 + 0.2) / 0.19;
    let v_hat: f64 = (0.999 * 0.016 + 0.004) / 0.001999;
    assert!((p[0] - (0.9 - 0.1 * m_hat / v_hat.sqrt())).abs() < 1e-8);
    assert_eq!(adam.steps(), 2);
}

#[test]
fn adam_decoupled_weight_decay() {
    let mut adam = Adam::new(0.1).with_weight_decay(0.5);
    let mut p = [2.0];
    adam.step(&mut p, &[0.0]); // m̂ = 0: only the decay acts
    assert_eq!(p, [2.0 - 0.1 * 0.5 * 2.0]);
    let mut adam = Adam::new(0.1).with_weight_decay(0.5);
    let mut p = [2.0];
    adam.step(&mut p, &[3.0]);
    assert!((p[0] - (2.0 - 0.1 * (3.0 / (3.0 + 1e-8) + 0.5 * 2.0))).abs() < 1e-15);
}

#[test]
fn adam_custom_hyperparameters() {
    let (b1, b2, eps) = (0.5, 0.75, 1e-3);
    let mut adam = Adam::new(1.0).with_betas(b1, b2).with_epsilon(eps);
    let mut p = [0.0];
    adam.step(&mut p, &[2.0]);
    assert!((p[0] + 2.0 / (2.0 + eps)).abs() < 1e-15);
    adam.step(&mut p, &[-2.0]);
    let m_hat = (b1 * (1.0 - b1) * 2.0 - (1.0 - b1) * 2.0) / (1.0 - b1 * b1);
    let v_hat = 4.0 * (b2 * (1.0 - b2) + (1.0 - b2)) / (1.0 - b2 * b2);
    assert!((p[0] - (-2.0 / (2.0 + eps) - m_hat / (v_hat.sqrt() + eps))).abs() < 1e-15);
}

#[test]
fn adam_minimises_a_quadratic() {
    let mut params = vec![0.0; 3];
    let mut grads = vec![0.0; 3];
    let mut adam = Adam::new(0.1);
    let schedule = LinearDecay {
        start: 0.1,
        end: 1e-4,
        steps: 5000,
    };
    for step in 0..6000 {
        optim::zero_grad(&mut grads);
        quadratic_adjoint(&params, 1.0, &mut grads);
        adam.set_learning_rate(schedule.rate(step));
        adam.step(&mut params, &grads);
    }
    let expected = [1.0, -2.0, 3.0];
    for i in 0..3 {
        assert!((params[i] - expected[i]).abs() < 1e-6, "{params:?}");
    }
}

#[test]
fn adam_minimises_rosenbrock_from_the_standard_start() {
    let mut params = vec![-1.2, 1.0];
    let mut grads = vec![0.0; 2];
    let mut adam = Adam::new(0.01);
    let steps = 20_000;
    let schedule = LinearDecay {
        start: 0.01,
        end: 1e-4,
        steps,
    };
    for step in 0..steps {
        optim::zero_grad(&mut grads);
        rosenbrock_adjoint(&params, 1.0, &mut grads);
        adam.set_learning_rate(schedule.rate(step));
        adam.step(&mut params, &grads);
    }
    let distance = ((params[0] - 1.0).powi(2) + (params[1] - 1.0).powi(2)).sqrt();
    assert!(
        distance < 1e-6,
        "ended at {params:?}, {distance:e} from (1, 1)"
    );
    assert!(rosenbrock(&params) < 1e-12);
}

#[test]
fn reset_forgets_state_and_allows_a_new_length() {
    let mut adam = Adam::new(0.1);
    let mut a = [1.0];
    adam.step(&mut a, &[1.0]);
    adam.reset();
    assert_eq!(adam.steps(), 0);
    let mut fresh = Adam::new(0.1);
    let (mut p, mut q) = ([5.0, 6.0], [5.0, 6.0]);
    adam.step(&mut p, &[1.0, 2.0]);
    fresh.step(&mut q, &[1.0, 2.0]);
    assert_eq!(p, q);

    let mut sgd = Sgd::new(0.1).with_momentum(0.9);
    sgd.step(&mut [1.0], &[1.0]);
    sgd.reset();
    let mut p = [0.0, 0.0];
    sgd.step(&mut p, &[1.0, 1.0]);
    assert_eq!(p, [-0.1, -0.1]);
}

#[test]
fn nan_gradients_propagate_to_their_coordinate_only() {
    let mut p = [1.0, 2.0];
    Sgd::new(0.1).step(&mut p, &[f64::NAN, 1.0]);
    assert!(p[0].is_nan() && p[1] == 1.9);
    let mut p = [1.0, 2.0];
    let mut adam = Adam::new(0.1);
    adam.step(&mut p, &[f64::NAN, 1.0]);
    adam.step(&mut p, &[0.0, 1.0]);
    assert!(p[0].is_nan() && p[1].is_finite());
}

// ---- LinearDecay ----

#[test]
fn linear_decay_endpoints_and_midpoint() {
    let s = LinearDecay {
        start: 1.0,
        end: 0.1,
        steps: 100,
    };
    assert_eq!(s.rate(0), 1.0);
    assert_eq!(s.rate(100), 0.1);
    assert_eq!(s.rate(101), 0.1);
    assert_eq!(s.rate(usize::MAX), 0.1);
    assert!((s.rate(50) - 0.55).abs() < 1e-15);
    assert!((s.rate(99) - (1.0 - 0.9 * 0.99)).abs() < 1e-15);
    let mut previous = f64::INFINITY;
    for step in 0..=100 {
        assert!(s.rate(step) < previous);
        previous = s.rate(step);
    }
    // Increasing (warm-up) and degenerate schedules.
    let up = LinearDecay {
        start: 0.0,
        end: 2.0,
        steps: 4,
    };
    assert_eq!((up.rate(0), up.rate(1), up.rate(4)), (0.0, 0.5, 2.0));
    let none = LinearDecay {
        start: 1.0,
        end: 0.5,
        steps: 0,
    };
    assert_eq!((none.rate(0), none.rate(7)), (0.5, 0.5));
}

// ---- panics ----

#[test]
#[should_panic(expected = "optim::Sgd::step: params has length 3 but grads has length 2")]
fn sgd_length_mismatch_panics() {
    Sgd::new(0.1).step(&mut [0.0; 3], &[0.0; 2]);
}

#[test]
#[should_panic(expected = "optim::Adam::step: params has length 1 but grads has length 4")]
fn adam_length_mismatch_panics() {
    Adam::new(0.1).step(&mut [0.0; 1], &[0.0; 4]);
}

#[test]
#[should_panic(expected = "params has length 3 but the optimizer's state has length 2")]
fn adam_changed_parameter_count_panics() {
    let mut adam = Adam::new(0.1);
    adam.step(&mut [0.0; 2], &[1.0; 2]);
    adam.step(&mut [0.0; 3], &[1.0; 3]);
}

#[test]
#[should_panic(expected = "params has length 1 but the optimizer's state has length 2")]
fn sgd_momentum_changed_parameter_count_panics() {
    let mut sgd = Sgd::new(0.1).with_momentum(0.5);
    sgd.step(&mut [0.0; 2], &[1.0; 2]);
    sgd.step(&mut [0.0; 1], &[1.0; 1]);
}
