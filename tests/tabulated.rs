//! Costly values that do not change with a loop, tabulated before it
//! (`autograd-macros/src/lower/tabulate.rs`): a Gaussian mixture's
//! `(-log_sigma[c * d + j]).exp()` inside the loop over points is computed
//! once per element, into a table the loop reads, and the table's adjoint
//! goes through `exp` into `d_log_sigma` once per element.
//!
//! Every function is checked against central finite differences at several
//! points, its adjoint against a pre-filled buffer, its value against `f`'s
//! bit for bit (the table holds the values `f` computes), and, where it has
//! a twin on `Var`s, against the tape to rounding. The cases the pass must
//! leave alone or guard — loops that run no iteration, loops that may stop
//! early, values `f` would never compute — are checked the same way, with
//! exact zeros where `f` computes nothing.

#![allow(clippy::needless_range_loop, clippy::useless_vec)]

mod common;

use autograd::differentiable;
use autograd::tape::Var;
use common::{assert_close, assert_gradient, check_gradient_and_adjoint, on_tape};

/// A diagonal Gaussian mixture's negative log-likelihood as users write
/// it: K = 2 components in d = 2 dimensions over the points of `data`,
/// `theta` = 2 logits, 4 means, 4 log standard deviations.
#[differentiable(wrt(theta))]
fn mixture(theta: &[f64], data: &[f64]) -> f64 {
    let (k, d) = (2, theta.len() / 5);
    let n = data.len() / d;
    let mut nll = 0.0;
    for p in 0..n {
        let mut comp = [0.0; 2];
        for c in 0..k {
            let mut q = 0.0;
            let mut log_det = 0.0;
            for j in 0..d {
                let ls = theta[k + k * d + c * d + j];
                let z = (data[p * d + j] - theta[k + c * d + j]) * (-ls).exp();
                q += z * z;
                log_det += ls;
            }
            comp[c] = theta[c] - 0.5 * q - log_det;
        }
        let m = comp[0].max(comp[1]);
        nll -= m + ((comp[0] - m).exp() + (comp[1] - m).exp()).ln();
    }
    nll / n as f64
}

fn mixture_on_tape<'t>(theta: &[Var<'t>], data: &[f64]) -> Var<'t> {
    let (k, d) = (2, theta.len() / 5);
    let n = data.len() / d;
    let tape_zero = theta[0] * 0.0;
    let mut nll = tape_zero;
    for p in 0..n {
        let mut comp = [tape_zero; 2];
        for c in 0..k {
            let mut q = tape_zero;
            let mut log_det = tape_zero;
            for j in 0..d {
                let ls = theta[k + k * d + c * d + j];
                let z = (data[p * d + j] - theta[k + c * d + j]) * (-ls).exp();
                q += z * z;
                log_det += ls;
            }
            comp[c] = theta[c] - 0.5 * q - log_det;
        }
        let m = comp[0].max(comp[1]);
        nll -= m + ((comp[0] - m).exp() + (comp[1] - m).exp()).ln();
    }
    nll / n as f64
}

const DATA: [f64; 10] = [0.3, -1.2, 1.4, 0.5, -0.7, 0.9, 2.1, -0.4, 0.0, 1.1];

const THETAS: [[f64; 10]; 3] = [
    [0.2, -0.3, 0.5, -0.4, -1.0, 0.8, 0.1, -0.2, 0.3, 0.05],
    [-0.6, 0.4, -0.2, 1.1, 0.7, -0.5, -0.4, 0.6, -0.1, 0.2],
    [1.0, 0.1, 0.9, 0.3, 0.0, -1.3, 0.5, 0.25, -0.3, -0.6],
];

#[test]
fn a_mixture_reads_its_scales_from_a_table() {
    check_gradient_and_adjoint(
        |t| mixture(t, &DATA),
        |t| mixture_grad(t, &DATA),
        |t, d_out, d_t| mixture_adjoint(t, &DATA, d_out, d_t),
        &THETAS,
    );
    for theta in &THETAS {
        let (value, gradient) = mixture_grad(theta, &DATA);
        let (tape_value, tape_gradient) = on_tape(|_, t| mixture_on_tape(t, &DATA), theta);
        assert!((value - tape_value).abs() <= 1e-13 * value.abs().max(1.0));
        assert_close(&gradient, &tape_gradient, theta);
    }
}

/// No point: the loop runs no iteration, so `f` computes no `exp` and its
/// gradient with respect to the log standard deviations is exactly zero,
/// also where `exp(-ls)` overflows to infinity (a table filled anyway
/// would send `0 × ∞ = NaN` into them).
#[test]
fn no_point_no_table() {
    let mut theta = THETAS[0];
    theta[6] = -800.0;
    let (value, gradient) = mixture_grad(&theta, &[]);
    assert!(value.is_nan(), "0 / 0: {value}");
    assert_eq!(gradient, vec![0.0; 10]);
}

/// Values that depend on some of the loops between only (`w[j]`'s in a
/// loop over `c` and `j`: a table over `j`), on none (`s.exp()` of a float
/// from before the loops: left where it is), and on all (`w[c * 2 + j]`),
/// with a loop between that may run no iteration (`m` components): then
/// `f` computes none of them, and neither does the adjoint.
#[differentiable(wrt(w))]
fn levels(w: &[f64], data: &[f64], m: usize) -> f64 {
    let s = w[6] * 0.5;
    let mut out = 0.0;
    for p in 0..data.len() {
        for c in 0..m {
            for j in 0..2 {
                let a = w[j].exp();
                let b = s.exp();
                let e = (w[c * 2 + j + 2] * w[j]).sqrt();
                out += data[p] * (a * b + e) - (w[j] / 3.0).tanh();
            }
        }
    }
    out
}

fn levels_on_tape<'t>(w: &[Var<'t>], data: &[f64], m: usize) -> Var<'t> {
    let s = w[6] * 0.5;
    let mut out = w[0] * 0.0;
    for p in 0..data.len() {
        for c in 0..m {
            for j in 0..2 {
                let a = w[j].exp();
                let b = s.exp();
                let e = (w[c * 2 + j + 2] * w[j]).sqrt();
                out += data[p] * (a * b + e) - (w[j] / 3.0).tanh();
            }
        }
    }
    out
}

const WS: [[f64; 7]; 3] = [
    [0.3, 0.7, 1.2, 0.4, 0.9, 1.6, -0.5],
    [1.1, 0.2, 0.8, 2.0, 0.3, 0.5, 0.6],
    [0.5, 1.4, 0.6, 0.9, 1.3, 0.2, 0.1],
];

#[test]
fn tables_over_the_loops_a_value_depends_on() {
    let data = [0.5, -1.5, 2.0];
    for m in [1, 2] {
        check_gradient_and_adjoint(
            |w| levels(w, &data, m),
            |w| levels_grad(w, &data, m),
            |w, d_out, d_w| levels_adjoint(w, &data, m, d_out, d_w),
            &WS,
        );
        for w in &WS {
            let (value, gradient) = levels_grad(w, &data, m);
            let (tape_value, tape_gradient) = on_tape(|_, v| levels_on_tape(v, &data, m), w);
            assert!((value - tape_value).abs() <= 1e-13 * value.abs().max(1.0));
            assert_close(&gradient, &tape_gradient, w);
        }
    }
    // no component: nothing computed, exact zeros, even at `sqrt` of a
    // negative product (`w[2] * w[0] < 0`: NaN, and an infinite partial)
    let mut w = WS[0];
    w[2] = -1.0;
    w[6] = 2000.0;
    let (value, gradient) = levels_grad(&w, &data, 0);
    assert_eq!(value, 0.0);
    assert_eq!(gradient, vec![0.0; 7]);
}

/// A loop that may stop early, and one whose iterations may skip the
/// value: `f` may compute it for some indices only, so nothing is
/// tabulated there; and a value that changes with the loop (it reads the
/// loop's index), which stays where it is. All exact.
#[differentiable(wrt(w))]
fn left_alone(w: &[f64], data: &[f64]) -> f64 {
    let mut out = 0.0;
    for p in 0..data.len() {
        if data[p] > 1.0 {
            break;
        }
        for j in 0..3 {
            out += data[p] * w[j].ln();
        }
    }
    for p in 0..data.len() {
        for j in 0..3 {
            if data[p] < 0.0 {
                continue;
            }
            out += (w[j] * 0.5).exp() * data[p];
        }
        for j in 0..3 {
            out += (w[j] + data[p]).sqrt();
        }
    }
    out
}

#[test]
fn loops_that_stop_or_skip_are_left_alone() {
    for data in [[0.5, -0.3, 2.0, 0.1], [0.2, 0.4, -0.6, 0.9]] {
        check_gradient_and_adjoint(
            |w| left_alone(w, &data),
            |w| left_alone_grad(w, &data),
            |w, d_out, d_w| left_alone_adjoint(w, &data, d_out, d_w),
            &[[1.5, 1.2, 0.8], [2.0, 0.9, 1.1]],
        );
    }
    // a zero element where no iteration reaches `ln`: exact zeros
    let data = [2.0, 0.5];
    let (_, gradient) = left_alone_grad(&[0.0, 0.0, 0.0], &data);
    assert!(gradient.iter().all(|g| g.is_finite()), "{gradient:?}");
}

/// The tables of a function that declares no `Vec` of its own are spare
/// buffers of the thread (`__private::Scratch`), so that its adjoint still
/// allocates nothing from the second call on (`tests/allocation.rs`
/// counts it); here, against finite differences, with the same table read
/// at two places and a value that is both tabulated and read by a cheap
/// value after it.
#[differentiable(wrt(q))]
fn no_vec(q: &[f64], x: &[f64], d: usize) -> f64 {
    let mut out = 0.0;
    for i in 0..x.len() / d {
        for j in 0..d {
            let e = q[j].exp();
            let f = 2.0 * e;
            out += e * x[i * d + j] + f * f;
        }
    }
    out
}

#[test]
fn tables_without_a_vec_of_the_function() {
    let x = [0.5, -0.2, 1.3, 0.8, -1.1, 0.4];
    check_gradient_and_adjoint(
        |q| no_vec(q, &x, 2),
        |q| no_vec_grad(q, &x, 2),
        |q, d_out, d_q| no_vec_adjoint(q, &x, 2, d_out, d_q),
        &[[0.3, -0.4], [1.2, 0.7], [-0.9, 0.1]],
    );
    check_gradient_and_adjoint(
        |q| no_vec(q, &x, 3),
        |q| no_vec_grad(q, &x, 3),
        |q, d_out, d_q| no_vec_adjoint(q, &x, 3, d_out, d_q),
        &[[0.3, -0.4, 0.5], [1.2, 0.7, -0.2]],
    );
}

/// Second order: the tables are arrays of dual numbers, and the Hessian
/// matches central differences of the gradient.
#[differentiable(hessian)]
fn second(w: &[f64]) -> f64 {
    let mut out = 0.0;
    for p in 0..3 {
        for j in 0..2 {
            out += (w[j] * w[2]).exp() * (p as f64 - w[j + 2]).powi(2);
        }
    }
    out
}

#[test]
fn hessians_through_tables() {
    for w in [[0.3, -0.2, 0.5, 1.1], [-0.4, 0.6, 0.2, -0.3]] {
        let (value, gradient) = second_grad(&w);
        assert_eq!(value, second(&w));
        assert_gradient(second, &w, &gradient);
        let (h_value, h_gradient, h) = second_hessian(&w);
        assert_eq!(h_value, value);
        assert_close(&h_gradient, &gradient, &w);
        let report = autograd::check::hessian(|p| second_grad(p).1, &w, &h);
        assert!(report.is_ok(1e-5), "at {w:?}: {report}");
    }
}

/// Forward mode (one active float) beside a costly function of constant
/// data (`w`'s elements are constants here, kept as tokens: no table).
#[differentiable(wrt(t))]
fn forward(t: f64, w: &[f64]) -> f64 {
    let mut out = 0.0;
    for p in 0..4 {
        for j in 0..w.len() {
            out += (t * p as f64).sin() * w[j].exp();
        }
    }
    out
}

#[test]
fn forward_mode_through_tables() {
    let w = [0.2, -0.5, 0.9];
    for t in [0.3, -1.2, 2.0] {
        let (value, d) = forward_grad(t, &w);
        assert_eq!(value, forward(t, &w));
        assert_gradient(|p| forward(p[0], &w), &[t], &[d]);
    }
}

/// Loops that count `i32`s, and loops from 1: the table's element index
/// is cast as the loop's (`((j - 1) as usize)`) where the loop's index
/// is not known to be a `usize`, and plain (`j - 1`, read as a row) where
/// a parameter is indexed by it as it is.
#[differentiable(wrt(w))]
fn counted(w: &[f64], data: &[f64], m: i32) -> f64 {
    let mut out = 0.0;
    for p in 0..data.len() {
        for j in 1..m {
            out += data[p] * (w[j as usize] * 0.5).exp();
        }
        for j in 1..w.len() - 1 {
            out -= (w[j] + w[j + 1]).tanh() * data[p];
        }
    }
    out
}

#[test]
fn tables_of_loops_counting_other_integers() {
    let data = [0.5, -1.5, 2.0];
    for m in [0, 1, 3] {
        check_gradient_and_adjoint(
            |w| counted(w, &data, m),
            |w| counted_grad(w, &data, m),
            |w, d_out, d_w| counted_adjoint(w, &data, m, d_out, d_w),
            &[[0.3, -0.4, 0.5, 1.0], [1.2, 0.7, -0.2, 0.4]],
        );
    }
}

/// Second order through a table whose filling nest has constant partials
/// (`-xs[k]`, `0.5 * ..`) in a function with a `Vec` of its own (found by
/// the random programs, seed 1128882: the first-order guard against `0 ·
/// ∞` was written into the second-order reverse, where such a partial is
/// an `f64` and the adjoint a `Dual`: E0308).
#[differentiable(hessian)]
fn second_constant_partials(xs: &[f64]) -> f64 {
    let mut buf = vec![0.0; 2];
    for j in 0..2 {
        let mut tri = 0.0;
        for k in 0..xs.len() - 2 {
            tri += (xs[j + k] + 1.0) * (-xs[k]).cos() * (0.5 * xs[k + 1]).exp();
        }
        buf[j] += tri;
    }
    buf[0] * buf[1]
}

#[test]
fn hessians_through_tables_with_constant_partials() {
    for x in [[0.3, -0.2, 0.5, 1.1], [-0.4, 0.6, 0.2, -0.3]] {
        let (value, gradient) = second_constant_partials_grad(&x);
        assert_eq!(value, second_constant_partials(&x));
        assert_gradient(second_constant_partials, &x, &gradient);
        let (_, _, h) = second_constant_partials_hessian(&x);
        let report = autograd::check::hessian(|p| second_constant_partials_grad(p).1, &x, &h);
        assert!(report.is_ok(1e-5), "at {x:?}: {report}");
    }
}

/// The mixture as users often write it, with offsets bound in the loops
/// around (`let row = c * d;`, then `theta[.. + row + j]`) and a scale of
/// the component's (`let s = theta[c].exp();`) read in the loop over `j`:
/// the filling nest computes them again for every element.
#[differentiable(wrt(theta))]
fn offsets(theta: &[f64], data: &[f64]) -> f64 {
    let d = 2;
    let k = theta.len() / (2 * d + 1);
    let n = data.len() / d;
    let mut nll = 0.0;
    for p in 0..n {
        for c in 0..k {
            let row = c * d;
            let s = theta[c].exp();
            let mut q = 0.0;
            for j in 0..d {
                let ls = theta[k + k * d + row + j];
                let z = (data[p * d + j] - theta[k + row + j]) * (-ls).exp() * s;
                q += z * z + (s * ls).tanh();
            }
            nll += 0.5 * q;
        }
    }
    nll / n as f64
}

fn offsets_on_tape<'t>(theta: &[Var<'t>], data: &[f64]) -> Var<'t> {
    let d = 2;
    let k = theta.len() / (2 * d + 1);
    let n = data.len() / d;
    let mut nll = theta[0] * 0.0;
    for p in 0..n {
        for c in 0..k {
            let row = c * d;
            let s = theta[c].exp();
            let mut q = theta[0] * 0.0;
            for j in 0..d {
                let ls = theta[k + k * d + row + j];
                let z = (data[p * d + j] - theta[k + row + j]) * (-ls).exp() * s;
                q += z * z + (s * ls).tanh();
            }
            nll += 0.5 * q;
        }
    }
    nll / n as f64
}

#[test]
fn tables_of_values_read_through_lets_of_the_loops_around() {
    check_gradient_and_adjoint(
        |t| offsets(t, &DATA),
        |t| offsets_grad(t, &DATA),
        |t, d_out, d_t| offsets_adjoint(t, &DATA, d_out, d_t),
        &THETAS,
    );
    for theta in &THETAS {
        let (value, gradient) = offsets_grad(theta, &DATA);
        let (tape_value, tape_gradient) = on_tape(|_, t| offsets_on_tape(t, &DATA), theta);
        assert!((value - tape_value).abs() <= 1e-13 * value.abs().max(1.0));
        assert_close(&gradient, &tape_gradient, theta);
    }
}

/// Iterator chains in the loop over samples. Over a whole parameter
/// slice (`w.iter().map(|v| (0.5 * v).exp())`), the chain's loop counts to
/// a length lowering binds in the loop (`let n = w.len();`), which the
/// table's range reads through; over subslices of a component's (the
/// mixture's `zip`), the chain's length is a `min` of lengths that read
/// the component's index, and nothing is tabulated. Both exact.
#[differentiable(wrt(theta))]
fn chained(theta: &[f64], data: &[f64]) -> f64 {
    let d = 2;
    let k = theta.len() / (2 * d + 1);
    let mut nll = 0.0;
    for xp in 0..data.len() / d {
        let scale: f64 = theta.iter().map(|v| (0.5 * v).exp()).sum();
        for c in 0..k {
            let mu = &theta[k + c * d..k + (c + 1) * d];
            let ls = &theta[k + k * d + c * d..k + k * d + (c + 1) * d];
            let q: f64 = mu
                .iter()
                .zip(ls)
                .enumerate()
                .map(|(j, (m, l))| ((data[xp * d + j] - m) * (-l).exp()).powi(2))
                .sum();
            nll += theta[c] + 0.5 * q * scale;
        }
    }
    nll
}

fn chained_on_tape<'t>(theta: &[Var<'t>], data: &[f64]) -> Var<'t> {
    let d = 2;
    let k = theta.len() / (2 * d + 1);
    let mut nll = theta[0] * 0.0;
    for xp in 0..data.len() / d {
        let scale: Var = theta.iter().map(|v| (0.5 * *v).exp()).sum();
        for c in 0..k {
            let mut q = theta[0] * 0.0;
            for j in 0..d {
                let (m, l) = (theta[k + c * d + j], theta[k + k * d + c * d + j]);
                q += ((data[xp * d + j] - m) * (-l).exp()).powi(2);
            }
            nll += theta[c] + 0.5 * q * scale;
        }
    }
    nll
}

#[test]
fn tables_of_iterator_chains_in_the_loop() {
    check_gradient_and_adjoint(
        |t| chained(t, &DATA),
        |t| chained_grad(t, &DATA),
        |t, d_out, d_t| chained_adjoint(t, &DATA, d_out, d_t),
        &THETAS,
    );
    for theta in &THETAS {
        let (value, gradient) = chained_grad(theta, &DATA);
        let (tape_value, tape_gradient) = on_tape(|_, t| chained_on_tape(t, &DATA), theta);
        assert!((value - tape_value).abs() <= 1e-13 * value.abs().max(1.0));
        assert_close(&gradient, &tape_gradient, theta);
    }
    // no point: nothing computed, nothing tabulated, exact zeros
    let (_, gradient) = chained_grad(&THETAS[0], &[]);
    assert_eq!(gradient, vec![0.0; 10]);
}

/// Constant data outside `wrt` (`ls`, kept as tokens), an element bound by
/// a `let` (`let l = ls[j];`) and read through a subslice (`xs`' rows):
/// the costly values of `l` are tabulated too, and the gradient of the
/// parameters is exact. (Written inline, `(-ls[j]).exp()` is one constant
/// expression of tokens, which the pass does not see into.)
#[differentiable(wrt(w))]
fn constant_scales(w: &[f64], ls: &[f64], xs: &[f64]) -> f64 {
    let d = ls.len();
    let mut out = 0.0;
    for p in 0..xs.len() / d {
        let row = &xs[p * d..(p + 1) * d];
        for j in 0..d {
            let l = ls[j];
            let z = (row[j] - w[j]) * (-l).exp();
            out += z * z + w[j] * (0.5 * l).tanh();
        }
    }
    out
}

#[test]
fn tables_of_constant_data() {
    let ls = [0.3, -0.5, 1.1];
    let xs = [0.2, 1.0, -0.7, 0.5, 0.4, -1.2];
    check_gradient_and_adjoint(
        |w| constant_scales(w, &ls, &xs),
        |w| constant_scales_grad(w, &ls, &xs),
        |w, d_out, d_w| constant_scales_adjoint(w, &ls, &xs, d_out, d_w),
        &[[0.1, -0.2, 0.3], [1.0, 0.5, -0.4]],
    );
    let (_, gradient) = constant_scales_grad(&[0.1, -0.2, 0.3], &ls, &[]);
    assert_eq!(gradient, vec![0.0; 3]);
}
