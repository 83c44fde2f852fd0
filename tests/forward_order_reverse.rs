//! Loops whose reverse runs its iterations in the forward order, and the
//! recorded loops that make room for their pushes before they run
//! (`autograd-macros/src/emit/plan.rs`, `Plan::reversed_in_order` and
//! `Plan::restarts`; `Record::slots` in `autograd-runtime`).
//!
//! A loop that only accumulates (`p += c[k] * t`) gets the same adjoints at
//! every iteration, so its reverse may visit the iterations in any order;
//! counted up it vectorises like the primal. When its replay needs values
//! the loop carries (a recurrence that does not vary, `t2 = 2x·t1 − t0`),
//! the reverse sets them back to where they started and the replay
//! recomputes them one iteration after another, with nothing saved. Every
//! gradient here is checked against central finite differences at several
//! points, and where second order applies, the Hessian against central
//! differences of the generated gradient.

#![allow(clippy::needless_range_loop)]

mod common;

use autograd::{check, differentiable};
use common::{assert_gradient, check_gradient_and_adjoint};

const XS: [f64; 5] = [-0.9, -0.35, 0.1, 0.45, 0.8];
const YS: [f64; 5] = [0.3, -0.2, 0.5, 0.1, -0.4];

const POINTS: [[f64; 6]; 3] = [
    [0.7, -1.3, 0.4, 1.9, -0.6, 1.1],
    [1.2, 0.3, -0.8, 0.5, 2.1, -0.2],
    [-0.4, 0.9, 1.6, -1.1, 0.2, 0.8],
];

/// A Chebyshev series fitted to points: the three-term recurrence carries
/// two values that do not vary (they depend on the data alone) beside the
/// accumulated series.
#[differentiable(hessian)]
fn chebyshev(c: &[f64]) -> f64 {
    let mut loss = 0.0;
    for i in 0..XS.len() {
        let x = XS[i];
        let mut t0 = 1.0;
        let mut t1 = x;
        let mut p = c[0] + c[1] * x;
        for k in 2..c.len() {
            let t2 = 2.0 * x * t1 - t0;
            p += c[k] * t2;
            t0 = t1;
            t1 = t2;
        }
        let e = p - YS[i];
        loss += e * e;
    }
    loss
}

/// The same series by hand: the gradient of the loss is `2 e T_k(x)`.
fn chebyshev_by_hand(c: &[f64]) -> Vec<f64> {
    let mut gradient = vec![0.0; c.len()];
    for i in 0..XS.len() {
        let x = XS[i];
        let mut t = vec![1.0, x];
        for k in 2..c.len() {
            t.push(2.0 * x * t[k - 1] - t[k - 2]);
        }
        let p: f64 = c.iter().zip(&t).map(|(a, b)| a * b).sum();
        let e = p - YS[i];
        for k in 0..c.len() {
            gradient[k] += 2.0 * e * t[k];
        }
    }
    gradient
}

#[test]
fn a_recurrence_that_does_not_vary_is_recomputed_forwards() {
    check_gradient_and_adjoint(chebyshev, chebyshev_grad, chebyshev_adjoint, &POINTS);
    for c in POINTS {
        let (_, gradient) = chebyshev_grad(&c);
        for (a, b) in gradient.iter().zip(chebyshev_by_hand(&c)) {
            assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "{a} vs {b}");
        }
        let (_, _, hessian) = chebyshev_hessian(&c);
        let report = check::hessian(|p| chebyshev_grad(p).1, &c, &hessian);
        assert!(report.is_ok(1e-5), "{report}");
    }
}

/// The recurrence starts from a constant and from a value of the
/// parameters computed before the loop; the accumulated terms go through
/// `sin`, whose partial reads the recomputed value.
#[differentiable(hessian)]
fn restarted_from_values(w: &[f64]) -> f64 {
    let scale = w[0] * w[0];
    let mut total = 0.0;
    for i in 0..XS.len() {
        let mut t = 0.5;
        let mut u = XS[i] * 3.0;
        let mut s = scale;
        for k in 1..w.len() {
            s += (w[k] * t).sin() + u * w[k];
            t = 0.5 * t + XS[i];
            u = u * 0.9 - t;
        }
        total += s * s;
    }
    total
}

#[test]
fn a_recurrence_restarts_from_constants_and_earlier_values() {
    check_gradient_and_adjoint(
        restarted_from_values,
        restarted_from_values_grad,
        restarted_from_values_adjoint,
        &POINTS,
    );
    for w in POINTS {
        let (_, _, hessian) = restarted_from_values_hessian(&w);
        let report = check::hessian(|p| restarted_from_values_grad(p).1, &w, &hessian);
        assert!(report.is_ok(1e-5), "{report}");
    }
}

/// The recurrence's loop inside another loop that carries a value read
/// non-linearly: a recorded nest at first order (the recurrence's values
/// recorded), replayed at second order, where each replay of the outer
/// iteration runs the inner loop's reverse forwards from the restarted
/// recurrence.
#[differentiable(hessian)]
fn inside_an_outer_loop(w: &[f64]) -> f64 {
    let mut v = 1.0;
    for r in 0..3 {
        let x = XS[r];
        let mut t0 = 1.0;
        let mut t1 = x;
        let mut p = 0.0;
        for k in 0..w.len() {
            p += w[k] * t0;
            let t2 = 2.0 * x * t1 - t0;
            t0 = t1;
            t1 = t2;
        }
        v = v * p.tanh() + 0.1;
    }
    v
}

#[test]
fn a_recurrence_inside_an_outer_loop() {
    check_gradient_and_adjoint(
        inside_an_outer_loop,
        inside_an_outer_loop_grad,
        inside_an_outer_loop_adjoint,
        &POINTS,
    );
    for w in POINTS {
        let (_, _, hessian) = inside_an_outer_loop_hessian(&w);
        let report = check::hessian(|p| inside_an_outer_loop_grad(p).1, &w, &hessian);
        assert!(report.is_ok(1e-5), "{report}");
    }
}

/// Softmax regression: per sample, dot products into a buffer, a running
/// maximum (a decision recorded per class, after each dot product), then a
/// log-sum-exp. The loop over classes makes room for its decisions before
/// it runs.
#[differentiable]
fn softmax_loss(w: &[f64]) -> f64 {
    let p = 2;
    let classes = w.len() / p;
    let mut logits = vec![0.0; classes];
    let mut loss = 0.0;
    for i in 0..XS.len() {
        let mut m = f64::NEG_INFINITY;
        for k in 0..classes {
            let mut s = 0.0;
            for j in 0..p {
                let feature = if j == 0 { XS[i] } else { YS[i] };
                s += w[k * p + j] * feature;
            }
            logits[k] = s;
            if s > m {
                m = s;
            }
        }
        let mut z = 0.0;
        for k in 0..classes {
            z += (logits[k] - m).exp();
        }
        loss += m + z.ln() - logits[i % classes];
    }
    loss
}

#[test]
fn softmax_regression_with_a_running_maximum() {
    check_gradient_and_adjoint(
        softmax_loss,
        softmax_loss_grad,
        softmax_loss_adjoint,
        &POINTS,
    );
}

/// A layer of `tanh` units on a batch: the reverse of each unit's dot
/// product runs forwards (the weights' gradient `d_w[j·p + k] += g·x_k`).
#[differentiable(wrt(w))]
fn layer_loss(w: &[f64], x: &[f64], p: usize) -> f64 {
    let units = w.len() / p;
    let samples = x.len() / p;
    let mut hidden = vec![0.0; units];
    let mut loss = 0.0;
    for i in 0..samples {
        for j in 0..units {
            let mut s = 0.0;
            for k in 0..p {
                s += w[j * p + k] * x[i * p + k];
            }
            hidden[j] = s.tanh();
        }
        let mut out = 0.0;
        for j in 0..units {
            out += hidden[j];
        }
        loss += (out - 0.5) * (out - 0.5);
    }
    loss
}

#[test]
fn a_layer_of_dot_products() {
    let x: Vec<f64> = (0..12).map(|i| ((i * 7 % 5) as f64 - 2.0) * 0.3).collect();
    for w in POINTS {
        let f = |w: &[f64]| layer_loss(w, &x, 3);
        let (value, gradient) = layer_loss_grad(&w, &x, 3);
        assert_eq!(value, f(&w));
        assert_gradient(f, &w, &gradient);
    }
}

/// A layer of ReLU units: each unit's dot product is read by a kink only,
/// so the reverse of its loop is skipped when the unit is at rest, and
/// otherwise runs counted up, the enclosing loops' indices passed through
/// `black_box` inside the skip test (`reverse_recorded_loop`).
#[differentiable(wrt(w))]
fn relu_layer_loss(w: &[f64], x: &[f64], p: usize) -> f64 {
    let units = w.len() / p;
    let samples = x.len() / p;
    let mut hidden = vec![0.0; units];
    let mut loss = 0.0;
    for i in 0..samples {
        for j in 0..units {
            let mut s = 0.0;
            for k in 0..p {
                s += w[j * p + k] * x[i * p + k];
            }
            hidden[j] = s.max(0.0);
        }
        let mut out = 0.0;
        for j in 0..units {
            out += hidden[j] * (j as f64 + 1.0);
        }
        loss += (out - 0.5) * (out - 0.5);
    }
    loss
}

#[test]
fn a_layer_of_relu_units() {
    let x: Vec<f64> = (0..12).map(|i| ((i * 7 % 5) as f64 - 2.0) * 0.3).collect();
    for w in POINTS {
        let f = |w: &[f64]| relu_layer_loss(w, &x, 3);
        let (value, gradient) = relu_layer_loss_grad(&w, &x, 3);
        assert_eq!(value, f(&w));
        assert_gradient(f, &w, &gradient);
        // units at rest for some samples, active for others
        assert!(gradient.iter().any(|g| *g != 0.0));
    }
}
