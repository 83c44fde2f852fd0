//! Increments of an array element (`a[i] += e`, `a[i] = e + a[i]`,
//! `a[i] -= e`): their reverse keeps the element's adjoint and gives it to
//! `e` instead of taking it out and adding it back
//! (`emit/reverse.rs`, `find_increments`). Each function is on one side of
//! that rule or at its edge; every gradient is checked against central
//! finite differences, and the value against the function.

#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]

mod common;

use autograd::differentiable;
use common::assert_gradient;

const X: [f64; 6] = [0.7, -1.3, 0.4, 1.9, -0.6, 1.1];

fn check(f: impl Fn(&[f64]) -> f64, adjoint: impl Fn(&[f64], &mut [f64]) -> f64) {
    let mut gradient = vec![0.0; X.len()];
    let value = adjoint(&X, &mut gradient);
    assert_eq!(value, f(&X));
    assert_gradient(&f, &X, &gradient);
}

/// The lower-triangular product of the mixture objective: `y[row] += ..`.
#[differentiable]
fn triangular(x: &[f64]) -> f64 {
    let mut y = [0.0; 3];
    for j in 0..3 {
        y[j] = x[j].exp() * x[5 - j];
    }
    let mut l = 3;
    for col in 0..3 {
        for row in col + 1..3 {
            y[row] += x[l] * y[col];
            l += 1;
        }
    }
    y[0] * y[1] + y[2] * y[2]
}

/// Every spelling of an increment, and a decrement.
#[differentiable]
fn spellings(x: &[f64]) -> f64 {
    let mut a = [0.0; 3];
    for j in 0..3 {
        a[j] = x[j] * x[j + 3];
    }
    for j in 0..3 {
        a[j] += x[j].sin();
        a[j] = x[j + 1] * 2.0 + a[j];
        a[j] = a[j] + a[j] * x[2];
        a[j] -= x[5 - j].cos();
    }
    a[0] * a[1] * a[2]
}

/// Not increments: the element twice (`a[i] += a[i]`), a different
/// element (`a[i] = a[i - 1] + ..`), the element on the right of `-`,
/// another store between the load and the store.
#[differentiable]
fn near_misses(x: &[f64]) -> f64 {
    let mut a = [0.0; 4];
    for j in 0..4 {
        a[j] = x[j] + x[j + 2];
    }
    for j in 0..4 {
        a[j] += a[j];
    }
    for j in 1..4 {
        a[j] = a[j - 1] * x[j] + a[j];
    }
    for j in 0..4 {
        a[j] = x[j].sin() - a[j];
    }
    let t = a[1];
    a[1] = a[2] * x[0];
    a[1] = t + a[1];
    let u = a[3];
    a[2] = u * x[1];
    a[3] = u + x[2];
    a[0] * a[1] + a[2] * a[3]
}

/// An increment whose element is read again before it is stored
/// (`a[j] += a[j] * w`), and one whose index is a counter.
#[differentiable]
fn reads_itself(x: &[f64]) -> f64 {
    let mut a = [0.0; 3];
    let mut k = 0;
    for j in 0..3 {
        a[j] = x[j] * x[j];
        a[j] += a[j] * x[j + 3];
        a[k] += x[5 - j];
        k = (k + 2) % 3;
    }
    a[0] + a[1] * a[2]
}

/// Increments inside a loop that is replayed: a running histogram of
/// weights (`h[bin] += w`), the bin chosen by the data.
#[differentiable]
fn histogram(x: &[f64]) -> f64 {
    let mut h = [0.0; 3];
    for i in 0..6 {
        let bin = if x[i] > 0.5 {
            2
        } else if x[i] > -0.5 {
            1
        } else {
            0
        };
        h[bin] += x[i] * x[i];
    }
    h[0] * h[1] + h[1] * h[2] + h[2] * h[0]
}

#[test]
fn increments_give_the_gradient() {
    check(triangular, |x, d| triangular_adjoint(x, 1.0, d));
    check(spellings, |x, d| spellings_adjoint(x, 1.0, d));
    check(near_misses, |x, d| near_misses_adjoint(x, 1.0, d));
    check(reads_itself, |x, d| reads_itself_adjoint(x, 1.0, d));
    check(histogram, |x, d| histogram_adjoint(x, 1.0, d));
}

/// `d_out` scales, and the adjoints are added into what the caller passed.
#[test]
fn increments_add_into_the_callers_buffer() {
    let mut once = vec![0.0; 6];
    triangular_adjoint(&X, 1.0, &mut once);
    let mut twice = vec![1.0; 6];
    triangular_adjoint(&X, 2.0, &mut twice);
    for (a, b) in once.iter().zip(&twice) {
        assert!((2.0 * a + 1.0 - b).abs() <= 1e-12 * b.abs().max(1.0));
    }
}
