//! Loads of an element the function has just stored, or loaded, read the
//! value it knows instead (`autograd-macros/src/lower/share.rs`), also
//! inside a loop or an `if` that cannot store into that element: a
//! column-oriented solve's `y[j]` in `for i in j + 1..n { y[i] -= l[i * n +
//! j] * y[j]; }` is the value stored just before the loop. Each function
//! here has a twin whose indices go through `at`, an opaque identity, so
//! that nothing is forwarded in it; both are checked against central finite
//! differences and against each other (to rounding: the reverse adds the
//! forwarded value's adjoints in another order). The loops whose stores may
//! reach the element (`for i in j..n`, a store in a branch) keep their loads.

#![allow(clippy::needless_range_loop)]

mod common;

use autograd::differentiable;
use common::{assert_close, check_gradient_and_adjoint};

/// The identity, out of the pass's sight: an index through it is no known
/// element.
#[inline(never)]
fn at(k: usize) -> usize {
    std::hint::black_box(k)
}

/// A 3 × 3 matrix (row-major, diagonal away from 0), then a vector of 3.
const POINTS: [[f64; 12]; 3] = [
    [
        1.7, -0.3, 0.4, 0.9, 2.1, -0.6, 1.1, 0.3, 1.4, 0.5, -1.2, 0.8,
    ],
    [
        2.2, 0.3, -0.8, 0.5, 1.6, -0.2, -1.4, 0.6, 1.9, -0.7, 0.4, 1.3,
    ],
    [
        1.4, 0.9, 1.6, -1.1, 2.4, 0.8, 1.3, -0.5, 1.2, 0.2, 0.6, -0.9,
    ],
];

/// A test `$test` of `$known` against its twin `$plain`, both `fn(&[f64])`.
macro_rules! twins {
    ($test:ident: $known:ident, $known_grad:ident, $known_adjoint:ident;
     $plain:ident, $plain_grad:ident, $plain_adjoint:ident) => {
        #[test]
        fn $test() {
            check_gradient_and_adjoint($known, |x| $known_grad(x), $known_adjoint, &POINTS);
            check_gradient_and_adjoint($plain, |x| $plain_grad(x), $plain_adjoint, &POINTS);
            for x in POINTS {
                let (value, gradient) = $known_grad(&x);
                let (plain_value, plain_gradient) = $plain_grad(&x);
                assert_eq!(value, plain_value, "at {x:?}");
                assert_close(&gradient, &plain_gradient, &x);
            }
        }
    };
}

// Forward substitution by columns, in place: `y[j]` is stored, then read in
// the loop over the rows below it, which stores only there.
#[differentiable]
fn columns(x: &[f64]) -> f64 {
    let n = 3;
    let mut y = x[9..12].to_vec();
    for j in 0..n {
        y[j] /= x[j * n + j];
        for i in j + 1..n {
            y[i] -= x[i * n + j] * y[j];
        }
    }
    let mut loss = 0.0;
    for i in 0..n {
        loss += y[i] * y[i];
    }
    0.5 * loss
}

#[differentiable]
fn columns_plain(x: &[f64]) -> f64 {
    let n = 3;
    let mut y = x[9..12].to_vec();
    for j in 0..n {
        y[at(j)] /= x[j * n + j];
        for i in j + 1..n {
            y[at(i)] -= x[i * n + j] * y[at(j)];
        }
    }
    let mut loss = 0.0;
    for i in 0..n {
        loss += y[i] * y[i];
    }
    0.5 * loss
}

twins!(column_solve_reads_the_stored_value:
    columns, columns_grad, columns_adjoint;
    columns_plain, columns_plain_grad, columns_plain_adjoint);

// Back substitution by columns, from the last: the loop over the rows above
// `j` (`0..j`) stores only there.
#[differentiable]
fn back_columns(x: &[f64]) -> f64 {
    let n = 3;
    let mut y = x[9..12].to_vec();
    for j in (0..n).rev() {
        y[j] /= x[j * n + j];
        for i in 0..j {
            y[i] -= x[i * n + j] * y[j];
        }
    }
    y[0] * y[1] + y[2].sin()
}

#[differentiable]
fn back_columns_plain(x: &[f64]) -> f64 {
    let n = 3;
    let mut y = x[9..12].to_vec();
    for j in (0..n).rev() {
        y[at(j)] /= x[j * n + j];
        for i in 0..j {
            y[at(i)] -= x[i * n + j] * y[at(j)];
        }
    }
    y[0] * y[1] + y[2].sin()
}

twins!(back_substitution_reads_the_stored_value:
    back_columns, back_columns_grad, back_columns_adjoint;
    back_columns_plain, back_columns_plain_grad, back_columns_plain_adjoint);

// A loop from `j` itself stores into `y[j]` at its first iteration: the
// load after that store must read the new value, so nothing is forwarded;
// nor across a branch that may store into the element, nor past a store at
// an index that may be the same one.
#[differentiable]
fn overlapping(x: &[f64]) -> f64 {
    let n = 3;
    let mut y = x[9..12].to_vec();
    for j in 0..n {
        y[j] *= x[j * n + j];
        for i in j..n {
            y[i] -= 0.5 * x[i * n + j] * y[j];
        }
        if x[j] > 1.5 {
            y[j] = y[j] * y[j];
        }
        let k = (j + 1) % n;
        y[k] += y[j];
        y[j] += y[k] * x[j + 1];
    }
    y[0] * y[1] * y[2]
}

#[differentiable]
fn overlapping_plain(x: &[f64]) -> f64 {
    let n = 3;
    let mut y = x[9..12].to_vec();
    for j in 0..n {
        y[at(j)] *= x[j * n + j];
        for i in j..n {
            y[at(i)] -= 0.5 * x[i * n + j] * y[at(j)];
        }
        if x[j] > 1.5 {
            y[at(j)] = y[at(j)] * y[at(j)];
        }
        let k = (j + 1) % n;
        y[at(k)] += y[at(j)];
        y[at(j)] += y[at(k)] * x[j + 1];
    }
    y[0] * y[1] * y[2]
}

twins!(stores_that_may_reach_the_element_keep_its_loads:
    overlapping, overlapping_grad, overlapping_adjoint;
    overlapping_plain, overlapping_plain_grad, overlapping_plain_adjoint);

// Literal indices: `y[0]` and `y[1]` are different elements, so the store
// into `y[1]` leaves `y[0]` known; a loop from `j + 2` stores past `j + 1`.
#[differentiable]
fn literals(x: &[f64]) -> f64 {
    let mut y = [0.0; 4];
    y[0] = x[0] * x[1];
    y[1] = x[2].exp();
    let a = y[0] * y[1];
    y[0] = a - x[3];
    for j in 0..2 {
        y[j + 1] = y[j] * x[4 + j];
        for i in j + 2..4 {
            y[i] += y[j + 1] * x[i];
        }
    }
    y[0] + y[1] * y[2] - y[3] * y[0]
}

#[differentiable]
fn literals_plain(x: &[f64]) -> f64 {
    let mut y = [0.0; 4];
    y[at(0)] = x[0] * x[1];
    y[at(1)] = x[2].exp();
    let a = y[at(0)] * y[at(1)];
    y[at(0)] = a - x[3];
    for j in 0..2 {
        y[at(j + 1)] = y[at(j)] * x[4 + j];
        for i in j + 2..4 {
            y[at(i)] += y[at(j + 1)] * x[i];
        }
    }
    y[0] + y[1] * y[2] - y[3] * y[0]
}

twins!(literal_indices_and_offsets:
    literals, literals_grad, literals_adjoint;
    literals_plain, literals_plain_grad, literals_plain_adjoint);
