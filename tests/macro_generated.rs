//! `#[differentiable]` on functions whose bodies come from a `macro_rules!`
//! expansion: the lowering renames variables assigned in loops and branches
//! (`y`, `y__1`, ...), and every new name must have the hygiene of the
//! user's binding, or a condition that reads it does not resolve (E0425).

#![allow(
    clippy::needless_range_loop,
    clippy::assign_op_pattern,
    clippy::useless_vec
)]

mod common;

use autograd::differentiable;
use common::assert_gradient;

macro_rules! scalar_fn {
    ($name:ident, |$x:ident| $body:block) => {
        #[differentiable]
        fn $name($x: f64) -> f64 $body
    };
}

macro_rules! slice_fn {
    ($name:ident, |$x:ident| $body:block) => {
        #[differentiable]
        fn $name($x: &[f64]) -> f64 $body
    };
}

// A `while` whose condition reads a value the loop assigns (forward mode).
scalar_fn!(grow, |x| {
    let mut y = x;
    let mut n = 0;
    while y < 50.0 && n < 100 {
        y = y * 1.3 + x;
        n += 1;
    }
    y * 2.0
});

// A branch on a value an earlier branch assigned, and a loop carrying two
// values (reverse mode: a slice input).
slice_fn!(branchy, |x| {
    let mut s = 0.0;
    let mut p = 1.0;
    for i in 0..x.len() {
        if s > 1.0 {
            p *= x[i];
        } else {
            s += x[i] * x[i];
        }
    }
    let mut t = s;
    if p > 0.5 {
        t = t * p;
    }
    if t < 3.0 {
        t += s;
    }
    t + p
});

// Rows (`emit/rows.rs`) over indices and a buffer that come in as
// fragments (`$at:expr`, invisible groups in the tokens): a dot product
// per row of a buffer written at `$at` and read back.
macro_rules! rows_fn {
    ($name:ident, $x:ident, $buf:ident, $i:ident, $j:ident, $n:ident, $at:expr, $offset:expr) => {
        #[differentiable]
        fn $name($x: &[f64]) -> f64 {
            let $n = $x.len() / 2;
            let mut $buf = vec![0.0; $n];
            let mut total = 0.0;
            for $i in 0..2 {
                for $j in 0..$n {
                    $buf[$at] = $x[$offset + $j] * $x[$j] + $buf[$at];
                }
                for $j in 0..$n {
                    total += $buf[$j].sin() * $x[$i * $n + $j];
                }
            }
            total
        }
    };
}

rows_fn!(fragment_rows, x, h, i, j, n, j, i * n);

#[test]
fn rows_over_fragments_compile_and_differentiate() {
    for x in [
        [0.3, 0.9, 1.2, 0.8, -0.5, 0.6],
        [1.5, -0.4, 0.7, 2.0, 0.1, -0.9],
    ] {
        let (value, d) = fragment_rows_grad(&x);
        assert_eq!(value, fragment_rows(&x));
        assert_gradient(fragment_rows, &x, &d);
    }
}

#[test]
fn bodies_from_macro_rules_compile_and_differentiate() {
    for x in [0.4, 1.7, 3.0] {
        let (value, d) = grow_grad(x);
        assert_eq!(value, grow(x));
        assert_gradient(|v| grow(v[0]), &[x], &[d]);
    }
    for x in [[0.3, 0.9, 1.2, 0.8], [1.5, -0.4, 0.7, 2.0]] {
        let (value, d) = branchy_grad(&x);
        assert_eq!(value, branchy(&x));
        assert_gradient(branchy, &x, &d);
    }
}

// An iterator chain over two buffers (`r.iter().zip(&h)`), whose lowered
// loop runs to the buffers' lengths through aliases of them: the alias
// carried the span of the lowering, so `r.len()` named a `r` the macro's
// hygiene could not reach (E0425, found 2026-11-28 writing a test of
// recorded nests).
slice_fn!(zipped_buffers, |x| {
    let mut h = vec![x[4], x[5]];
    let mut loss = 0.0;
    for t in 0..4 {
        let mut r = vec![0.0; 2];
        for i in 0..2 {
            r[i] = (x[i] * h[i] + x[2 + i] * t as f64).tanh();
        }
        let rh: Vec<f64> = r.iter().zip(&h).map(|(a, b)| a * b).collect();
        let s: f64 = rh.iter().map(|v| v.exp()).sum();
        for i in 0..r.len() {
            h[i] = 0.5 * h[i] + r[i] * s.ln();
        }
        loss += h[0] * h[1];
    }
    loss
});

#[test]
fn an_iterator_chain_over_buffers_in_a_macro_body() {
    let x = [0.7, -1.3, 0.4, 1.9, -0.6, 1.1];
    let (value, gradient) = zipped_buffers_grad(&x);
    assert_eq!(value, zipped_buffers(&x));
    assert_gradient(zipped_buffers, &x, &gradient);
}
