//! Small loop nests with literal trip counts, which the macro writes out
//! before differentiating (`autograd-macros/src/lower/unroll.rs`): a
//! helper on 3×3 and 4×4 arrays becomes straight-line code, whose adjoint
//! reads every value where the forward sweep bound it (no records, no undo
//! tapes). Each body is differentiated twice: as written (its nests written
//! out) and inside a loop that runs once (nests in a loop stay loops), and
//! both are checked against central finite differences and against each
//! other. The 3×3 Kalman filter of the outside objectives, whose helpers
//! are such nests, went from 2.58 to 1.63 times its hand-written gradient.

#![allow(clippy::needless_range_loop, clippy::identity_op, clippy::erasing_op)]

#[macro_use]
mod common;

use autograd::differentiable;
use common::{assert_close, check_gradient_and_adjoint};

const POINTS: [[f64; 9]; 3] = [
    [2.1, 0.3, -0.4, 0.3, 1.7, 0.2, -0.4, 0.2, 1.9],
    [1.4, -0.2, 0.5, -0.2, 2.3, -0.3, 0.5, -0.3, 1.6],
    [3.0, 0.7, 0.1, 0.7, 1.2, 0.4, 0.1, 0.4, 2.2],
];

/// How many times the twin's wrapping loop runs: 1, from the input, so
/// that the macro cannot see it.
fn once(x: &[f64]) -> usize {
    x.len() / x.len()
}

/// `$out` is the body as written; `$looped` is the body as the one
/// iteration of a loop over `0..once(x)`, in which its nests stay loops.
macro_rules! written_out_and_looped {
    ($test:ident: $out:ident, $out_grad:ident, $out_adjoint:ident;
     $looped:ident, $looped_grad:ident, $looped_adjoint:ident; |$x:ident| $body:block) => {
        #[differentiable]
        fn $out($x: &[f64]) -> f64 $body

        #[differentiable]
        fn $looped($x: &[f64]) -> f64 {
            let mut value = 0.0;
            for _ in 0..once($x) {
                value += $body;
            }
            value
        }

        #[test]
        fn $test() {
            check_gradient_and_adjoint($out, $out_grad, $out_adjoint, &POINTS);
            check_gradient_and_adjoint($looped, $looped_grad, $looped_adjoint, &POINTS);
            for x in POINTS {
                let (a, b) = ($out_grad(&x), $looped_grad(&x));
                assert_eq!(a.0, b.0, "values at {x:?}");
                assert_close(&a.1, &b.1, &x);
            }
        }
    };
}

// A Cholesky factor then a solve with it: triangular ranges read the
// enclosing index (`0..=i`, `0..j`, `(i + 1)..3`), one runs backwards, a
// branch on the indices, square roots and divisions.
written_out_and_looped!(cholesky_and_solve: solve, solve_grad, solve_adjoint;
    solve_looped, solve_looped_grad, solve_looped_adjoint; |x| {
    let mut l = [0.0; 9];
    for i in 0..3 {
        for j in 0..=i {
            let mut sum = x[i * 3 + j];
            for k in 0..j {
                sum -= l[i * 3 + k] * l[j * 3 + k];
            }
            if i == j {
                l[i * 3 + i] = sum.sqrt();
            } else {
                l[i * 3 + j] = sum / l[j * 3 + j];
            }
        }
    }
    let mut y = [0.0; 3];
    for i in 0..3 {
        let mut v = x[i] - 0.5;
        for k in 0..i {
            v -= l[i * 3 + k] * y[k];
        }
        y[i] = v / l[i * 3 + i];
    }
    let mut z = [0.0; 3];
    for i in (0..3).rev() {
        let mut v = y[i];
        for k in (i + 1)..3 {
            v -= l[k * 3 + i] * z[k];
        }
        z[i] = v / l[i * 3 + i];
    }
    z[0] * z[1] + z[2].sin() + l[4].ln()
});

// A product accumulated in place, then read twice; indices as floats, a
// suffixed range, an iteration without an index carrying a value.
written_out_and_looped!(products_and_iterations: product, product_grad, product_adjoint;
    product_looped, product_looped_grad, product_looped_adjoint; |x| {
    let mut c = [0.0; 9];
    for i in 0..3usize {
        for j in 0..3usize {
            for k in 0..3usize {
                c[i * 3 + j] += x[i * 3 + k] * x[j * 3 + k] * (1.0 + k as f64 * 0.1);
            }
        }
    }
    let mut t = c[0];
    for _ in 0..4 {
        t = 0.5 * (t + c[4] / t);
    }
    let mut s = 0.0;
    for i in 0..3 {
        s += c[i * 4] * c[8 - i * 4] - (i as f64) * c[i];
    }
    s + t
});

// A nest in a branch, a rebound index (its loops after it are written out
// only where they do not read it), and a nest whose range reads a rebound
// name (kept as a loop).
written_out_and_looped!(branches_and_rebound_indices: rebound, rebound_grad, rebound_adjoint;
    rebound_looped, rebound_looped_grad, rebound_looped_adjoint; |x| {
    let mut s = 0.0;
    if x[0] > 1.0 {
        for i in 0..2 {
            let i = i * 2;
            for k in 0..2 {
                s += x[i + k] * x[8 - k];
            }
            for k in 0..i {
                s += 0.1 * x[k].exp();
            }
        }
    } else {
        for i in 0..3 {
            s -= x[i].cos() * x[i + 3];
        }
    }
    s
});

/// A 3×3 solve by a helper returning an array, as a filter calls it.
#[differentiable]
fn solve3(l: &[f64; 9], b: &[f64; 3]) -> [f64; 3] {
    let mut y = [0.0; 3];
    for i in 0..3 {
        let mut v = b[i];
        for k in 0..i {
            v -= l[i * 3 + k] * y[k];
        }
        y[i] = v / l[i * 3 + i];
    }
    y
}

/// The same as written with its length from the caller: a loop.
#[differentiable]
fn solve_n(l: &[f64; 9], b: &[f64; 3], n: usize) -> [f64; 3] {
    let mut y = [0.0; 3];
    for i in 0..n {
        let mut v = b[i];
        for k in 0..i {
            v -= l[i * 3 + k] * y[k];
        }
        y[i] = v / l[i * 3 + i];
    }
    y
}

#[differentiable]
fn filter(x: &[f64]) -> f64 {
    let l = [x[0], 0.0, 0.0, x[3], x[4], 0.0, x[6], x[7], x[8]];
    let mut b = [x[1], x[2], x[5]];
    let mut total = 0.0;
    for t in 0..x.len() / 3 {
        let y = solve3(&l, &b);
        for i in 0..3 {
            b[i] = 0.5 * b[i] + 0.1 * y[i] * t as f64;
        }
        total += y[0] * y[1] - y[2];
    }
    total
}

#[differentiable]
fn filter_n(x: &[f64]) -> f64 {
    let l = [x[0], 0.0, 0.0, x[3], x[4], 0.0, x[6], x[7], x[8]];
    let mut b = [x[1], x[2], x[5]];
    let mut total = 0.0;
    for t in 0..x.len() / 3 {
        let y = solve_n(&l, &b, 3);
        for i in 0..3 {
            b[i] = 0.5 * b[i] + 0.1 * y[i] * t as f64;
        }
        total += y[0] * y[1] - y[2];
    }
    total
}

#[test]
fn a_helper_written_out_gives_the_gradient_of_its_loop() {
    check_gradient_and_adjoint(filter, filter_grad, filter_adjoint, &POINTS);
    for x in POINTS {
        let (a, b) = (filter_grad(&x), filter_n_grad(&x));
        assert_eq!(a.0, b.0, "values at {x:?}");
        assert_close(&a.1, &b.1, &x);
        // and its Jacobian, row by row
        let l: [f64; 9] = x;
        let b3 = [x[1], x[2], x[5]];
        let (value, jacobian) = solve3_jacobian(&l, &b3);
        let (value_n, jacobian_n) = solve_n_jacobian(&l, &b3, 3);
        assert_eq!(value, value_n);
        assert_close(&jacobian, &jacobian_n, &x);
    }
}

/// `x[j - 1]` at `j = 0` in a nest written out: the index is computed from
/// literals, which rustc would refuse at compile time (`arithmetic_overflow`,
/// deny by default) where the function panics at run time; the generated
/// code allows the lint, and panics where the function does.
#[differentiable]
fn before_the_start(x: &[f64; 4]) -> f64 {
    let mut s = 0.0;
    for j in 0..2 {
        s += x[j] * x[j - 1];
    }
    s
}

#[test]
#[should_panic(expected = "attempt to subtract with overflow")]
fn an_index_before_the_start_panics_as_the_function_does() {
    let _ = before_the_start_grad(&[1.0, 2.0, 3.0, 4.0]);
}

/// A nest written out the way users write code: a closure, iterator chains
/// (lowered to loops of their own inside each iteration), a `match` on the
/// index, a destructuring `let`, and locals named like the expansion's
/// (`t0`, `d_x`, `d_out`).
#[differentiable]
fn user_style(x: &[f64; 4], w: &[f64]) -> f64 {
    let sq = |v: f64| v * v;
    let mut t0 = 0.0;
    for i in 0..4 {
        let d_x = x[i] * w[i % w.len()];
        let d_out: f64 = w.iter().map(|v| v * d_x).sum();
        t0 += match i {
            0 => sq(d_out),
            1 | 2 => d_out.sin(),
            _ => d_out.exp() * 0.1,
        };
        for k in 0..i {
            let (a, b) = (x[k], x[i]);
            t0 += (a * b).tanh();
        }
    }
    let tail: f64 = x.iter().zip(w).map(|(a, b)| a * b).sum();
    t0 + tail
}

#[test]
fn user_style_code_in_a_nest_written_out() {
    for point in POINTS {
        let x = [point[0], point[1], point[2], point[3]];
        let w = [point[4], point[5], point[6]];
        let (value, (d_x, d_w)) = user_style_grad(&x, &w);
        assert_eq!(value, user_style(&x, &w));
        common::assert_gradient(|v| user_style(&[v[0], v[1], v[2], v[3]], &w), &x, &d_x);
        common::assert_gradient(|v| user_style(&x, v), &w, &d_w);
    }
}
