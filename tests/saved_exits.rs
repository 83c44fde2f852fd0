//! A loop nested directly in the body of a replayed loop (`for j in 0..16
//! { for k in .. { a += .. } .. }`) saves its exit values during the
//! recording forward sweep, and the outer loop's replays read them instead
//! of running it again (`autograd-macros/src/emit/plan.rs`, `plan_exits`):
//! in a stack array when the outer loop has a constant trip count of at
//! most 256, in a record indexed by the outer iteration when its range is
//! `start..end` known only at run time. Every gradient here is checked
//! against central finite differences at several points.

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

/// The first outer loop's trip count is known at run time (its exits go
/// in a record); the second's nested loop stores (not eligible): still
/// right.
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

/// k-means: per point, a running minimum over the centres of a sum over
/// dimensions (ranges known at run time). The point loop is fused and the
/// loop over centres is recorded in its body (`record.rs`), so nothing is
/// replayed: here as a check of the neighbour strategy.
#[differentiable]
fn kmeans(x: &[f64]) -> f64 {
    let (k, d) = (x.len() / 3, 2);
    let mut loss = 0.0;
    for i in 0..x.len() - d {
        let mut best = 1.0e300;
        for c in 0..k {
            let mut s = 0.0;
            for t in 0..d {
                let e = x[(i + t) % x.len()] - 0.5 * x[(c * d + t) % x.len()];
                s += e * e;
            }
            if s < best {
                best = s;
            }
        }
        loss += best;
    }
    loss
}

/// Run-time ranges that do not start at zero, one of them at an outer
/// loop's index (the slots start again at every outer iteration), with
/// two cells and a branch after the nested loop; the loop over `j` only
/// accumulates (its replays run in the forward order).
#[differentiable]
fn run_time_offsets(x: &[f64]) -> f64 {
    let n = x.len();
    let mut total = 0.0;
    for i in 0..2 {
        let mut t = 0.0;
        for j in i + 1..n - 1 {
            let mut a = x[i];
            let mut b = 1.0;
            for k in j..n {
                a += x[k] * x[k - j];
                b += 0.1 * x[k] * x[k];
            }
            if a > 0.5 {
                t += a.sqrt() * b;
            } else {
                t -= a * a;
            }
        }
        total += (1.0 + t).sin();
    }
    total
}

/// The loop over `j` sits in a loop with a `break` (replayed: each replay
/// of an iteration saves the exit values again before the loop over `j`
/// replays its own iterations backwards).
#[differentiable]
fn replayed_with_break(x: &[f64]) -> f64 {
    let n = x.len();
    let mut p = 1.0;
    for i in 0..3 {
        if x[i] > 5.0 {
            break;
        }
        let mut best = 1.0e300;
        for j in i..n {
            let mut s = 0.0;
            for k in 0..j - i + 1 {
                s += (x[k] - x[j]) * (x[k] - x[j]) + 0.1 * x[k];
            }
            if s < best {
                best = s;
            }
        }
        p *= 1.0 + best.sin();
    }
    p
}

/// A constant trip count over the stack's limit (300 > 256): a record.
#[differentiable]
fn long_constant(x: &[f64]) -> f64 {
    let mut p = 0.0;
    for j in 0..300 {
        let mut a = 0.0;
        for k in 0..3 {
            a += x[(j + k) % 6] * x[k];
        }
        p = 0.99 * p + a.max(0.1) * (j as f64 * 0.01);
    }
    p
}

#[test]
fn nested_loops_with_saved_exits_give_the_gradient() {
    check(layer, layer_grad);
    check(offset_range_two_cells, offset_range_two_cells_grad);
    check(replayed_twice, replayed_twice_grad);
    check(not_eligible, not_eligible_grad);
    check(kmeans, kmeans_grad);
    check(run_time_offsets, run_time_offsets_grad);
    check(replayed_with_break, replayed_with_break_grad);
    check(long_constant, long_constant_grad);
}

/// Called again, the records of exit values are reused (and cleared): the
/// same gradient at the same point, and the right one after a call with
/// longer ranges.
#[test]
fn records_of_exit_values_are_reused_from_call_to_call() {
    let x = POINTS[1];
    let first = replayed_with_break_grad(&x);
    let longer: Vec<f64> = (0..18)
        .map(|i| x[i % 6] * (1.0 + 0.05 * i as f64) + 0.01 * i as f64)
        .collect();
    let (value, gradient) = replayed_with_break_grad(&longer);
    assert_eq!(value, replayed_with_break(&longer));
    assert_gradient(replayed_with_break, &longer, &gradient);
    assert_eq!(replayed_with_break_grad(&x), first);
}
