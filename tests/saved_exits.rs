//! A loop nested directly in the body of a loop with a constant trip count
//! (`for j in 0..16 { for k in .. { a += .. } .. }`) saves its exit values
//! in a stack array during the recording forward sweep, and the outer
//! loop's replays read them instead of running it again
//! (`autograd-macros/src/emit.rs`, `plan_exits`). Every gradient here is
//! checked against central finite differences at several points.

#![allow(clippy::needless_range_loop)]

mod common;

use autograd::differentiable;
use common::assert_gradient;

const POINTS: [[f64; 6]; 3] = [
    [0.7, -1.3, 0.4, 1.9, -0.6, 1.1],
    [1.2, 0.3, -0.8, 0.5, 2.1, -0.2],
    [-0.4, 0.9, 1.6, -1.1, 0.2, 0.8],
];

#[track_caller]
fn check(f: impl Fn(&[f64]) -> f64, grad: impl Fn(&[f64]) -> (f64, Vec<f64>)) {
    for x in POINTS {
        let (value, gradient) = grad(&x);
        assert_eq!(value, f(&x));
        assert_gradient(&f, &x, &gradient);
    }
}

/// A layer: dot products read by a kink, in a loop of constant length.
#[differentiable]
fn layer(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for j in 0..4 {
        let mut a = x[j];
        for k in 0..x.len() {
            a += x[k] * x[(j + k) % 6];
        }
        s += a.max(0.5) * a;
    }
    s
}

/// The range does not start at zero, and the nested loop carries two
/// values, one of them read non-linearly after it.
#[differentiable]
fn offset_range_two_cells(x: &[f64]) -> f64 {
    let mut p = 1.0;
    for j in 2..5 {
        let mut a = 0.0;
        let mut b = 1.0;
        for k in 0..j {
            a += x[k].sin();
            b *= 1.0 + 0.1 * x[k + 1];
        }
        p *= a.tanh() + b;
    }
    p
}

/// The outer loop sits in a loop that is itself replayed (its product is
/// not an accumulator), and runs a branch after the nested loop.
#[differentiable]
fn replayed_twice(x: &[f64]) -> f64 {
    let mut p = 1.0;
    for i in 0..2 {
        let mut t = 0.0;
        for j in 0..3 {
            let mut a = x[i];
            for k in 0..3 {
                a += x[j + k] * x[k + i];
            }
            if a > 0.0 {
                t += a.sqrt();
            } else {
                t -= a * a;
            }
        }
        p *= 1.0 + t.sin();
    }
    p
}

/// Not eligible: the trip count is not a constant, or the nested loop
/// stores: still right.
#[differentiable]
fn not_eligible(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for j in 0..x.len() / 2 {
        let mut a = 0.0;
        for k in 0..3 {
            a += x[j + k] * x[k];
        }
        s += a.cos();
    }
    let mut h = [0.0; 3];
    for j in 0..3 {
        let mut a = 0.0;
        for k in 0..3 {
            h[k] = x[j + k] * a;
            a += x[k + 1];
        }
        s += (a * h[2]).exp();
    }
    s * s
}

#[test]
fn nested_loops_with_saved_exits_give_the_gradient() {
    check(layer, layer_grad);
    check(offset_range_two_cells, offset_range_two_cells_grad);
    check(replayed_twice, replayed_twice_grad);
    check(not_eligible, not_eligible_grad);
}
