//! Costly values read back where they were stored. A replayed loop whose
//! body computes a value at a cost and stores it at the loop's index into
//! a local array that nothing else stores into (`h[j] = a.tanh()`, a
//! layer's loop over its units) has the replay of each iteration, in the
//! loop's reverse, read the element instead of computing the value again
//! (`Plan::reloads`, `stored_reloads` in `autograd-macros/src/emit/plan.rs`).
//!
//! Every function here is checked against central finite differences at
//! several points (and its adjoint against a pre-filled buffer), and those
//! with a twin on `Var`s against the tape, to rounding; the cases where the
//! element does not hold the value any more (stored twice, at another
//! index, from another replay) must compute it again and are checked the
//! same way.

#![allow(clippy::needless_range_loop, clippy::useless_vec)]

mod common;

use autograd::differentiable;
use autograd::tape::{Tape, Var};
use common::{assert_close, check_gradient_and_adjoint, on_tape};

const POINTS: [[f64; 8]; 3] = [
    [0.7, -1.3, 0.4, 1.9, -0.6, 1.1, 0.3, -0.2],
    [1.2, 0.3, -0.8, 0.5, 2.1, -0.2, -0.9, 0.6],
    [-0.4, 0.9, 1.6, -1.1, 0.2, 0.8, 0.5, 1.4],
];

/// Two `tanh` layers of four units (`x.len() / 2`, a count the macro does
/// not write out) over two samples, the weights and the samples' inputs
/// from `x`: a loop over samples that only accumulates (fused), each layer
/// a loop over units storing `tanh` at the unit.
#[differentiable]
fn layers(x: &[f64]) -> f64 {
    let u = x.len() / 2;
    let mut loss = 0.0;
    for s in 0..2 {
        let mut h1 = vec![0.0; u];
        for j in 0..u {
            let a = x[j] * x[4 + s] + 0.1 * j as f64;
            h1[j] = a.tanh();
        }
        let mut h2 = vec![0.0; u];
        for j in 0..u {
            let mut a = x[(j + 1) % 4];
            for k in 0..u {
                a += x[(j + k) % 8] * h1[k];
            }
            h2[j] = (0.5 * a).tanh();
        }
        let mut out = x[6];
        for k in 0..u {
            out += x[k + 2] * h2[k];
        }
        let r = out - x[7] * s as f64;
        loss += r * r;
    }
    loss
}

fn layers_on_tape<'t>(tape: &'t Tape, x: &[Var<'t>]) -> Var<'t> {
    let mut loss = tape.var(0.0);
    for s in 0..2 {
        let mut h1 = vec![tape.var(0.0); 4];
        for j in 0..4 {
            let a = x[j] * x[4 + s] + 0.1 * j as f64;
            h1[j] = a.tanh();
        }
        let mut h2 = vec![tape.var(0.0); 4];
        for j in 0..4 {
            let mut a = x[(j + 1) % 4];
            for k in 0..4 {
                a += x[(j + k) % 8] * h1[k];
            }
            h2[j] = (0.5 * a).tanh();
        }
        let mut out = x[6];
        for k in 0..4 {
            out += x[k + 2] * h2[k];
        }
        let r = out - x[7] * s as f64;
        loss += r * r;
    }
    loss
}

#[test]
fn layers_read_their_units_back() {
    check_gradient_and_adjoint(layers, layers_grad, layers_adjoint, &POINTS);
    for x in &POINTS {
        let (value, gradient) = layers_grad(x);
        let (tape_value, tape_gradient) = on_tape(layers_on_tape, x);
        assert!((value - tape_value).abs() <= 1e-13 * value.abs().max(1.0));
        assert_close(&gradient, &tape_gradient, x);
    }
}

/// A recurrence whose steps are replayed (the state is carried, not
/// accumulated): each step's loop stores `exp` at its index, and the
/// replay of the step stores it again before the inner loop's reverse
/// reads it back. Also a loop that may stop early.
#[differentiable]
fn recurrence(x: &[f64]) -> f64 {
    let u = x.len() / 2;
    let mut state = x[0];
    for t in 0..3 {
        let mut g = vec![0.0; u];
        for j in 0..u {
            g[j] = (state * x[j + 1] - 0.2 * t as f64).exp();
        }
        let mut next = 0.0;
        for j in 0..u {
            next += g[j] * x[j + 4];
        }
        state = (next / 4.0).sin();
    }
    let mut e = vec![0.0; 6];
    for i in 0..x.len() - 2 {
        if x[i] > 1.5 {
            break;
        }
        e[i] = (x[i] * x[i + 1]).sqrt().ln_1p() + (x[i] - 0.3).abs();
    }
    state + e[0] * e[1] + e[2] - e[3] * e[4]
}

fn recurrence_on_tape<'t>(tape: &'t Tape, x: &[Var<'t>]) -> Var<'t> {
    let mut state = x[0];
    for t in 0..3 {
        let mut g = vec![tape.var(0.0); 4];
        for j in 0..4 {
            g[j] = (state * x[j + 1] - 0.2 * t as f64).exp();
        }
        let mut next = tape.var(0.0);
        for j in 0..4 {
            next += g[j] * x[j + 4];
        }
        state = (next / 4.0).sin();
    }
    let mut e = vec![tape.var(0.0); 6];
    for i in 0..x.len() - 2 {
        if x[i].value() > 1.5 {
            break;
        }
        e[i] = (x[i] * x[i + 1]).sqrt().ln_1p() + (x[i] - 0.3).abs();
    }
    state + e[0] * e[1] + e[2] - e[3] * e[4]
}

/// Points where `x[i] * x[i + 1]` is positive for every `i` the loop
/// reaches (the `sqrt` of the product).
const POSITIVE: [[f64; 8]; 3] = [
    [0.7, 1.3, 0.4, 0.9, 0.6, 1.1, 0.3, 0.2],
    [1.2, 0.3, 0.8, 0.5, 2.1, 0.2, 0.9, 0.6],
    [0.4, 0.9, 1.6, 1.1, 0.2, 0.8, 0.5, 1.4],
];

#[test]
fn replayed_steps_store_again_before_reading_back() {
    check_gradient_and_adjoint(recurrence, recurrence_grad, recurrence_adjoint, &POSITIVE);
    for x in &POSITIVE {
        let (value, gradient) = recurrence_grad(x);
        let (tape_value, tape_gradient) = on_tape(recurrence_on_tape, x);
        assert!((value - tape_value).abs() <= 1e-13 * value.abs().max(1.0));
        assert_close(&gradient, &tape_gradient, x);
    }
}

/// Where the element does not hold the value when the reverse gets there:
/// stored again after the loop, stored at the next index (the last
/// iteration's store is overwritten by nothing, the others by the next
/// one), and stored twice in one iteration.
#[differentiable]
fn overwritten(x: &[f64]) -> f64 {
    let n = x.len();
    let mut h = vec![0.0; n];
    for j in 0..n / 2 {
        h[j] = (x[j] * x[j + 1]).exp();
    }
    h[1] = x[5].sin();
    let mut g = vec![0.0; n + 1];
    for j in 0..n - 1 {
        let v = x[j].cos();
        g[j + 1] = v;
        g[j] += v * x[j + 1];
    }
    let mut s = 0.0;
    for j in 0..n {
        s += h[j] * x[j] + g[j] * g[j + 1];
    }
    s
}

#[test]
fn elements_written_again_are_not_read_back() {
    check_gradient_and_adjoint(overwritten, overwritten_grad, overwritten_adjoint, &POINTS);
}

/// Arrays the loop's body declares are declared again, empty, by its
/// replay: not read back (a review of 56056c3 found both, a wrong gradient
/// and, with the array declared after the value, E0425).
#[differentiable]
fn declared_in_the_body(x: &[f64]) -> f64 {
    let mut h = vec![0.0; x.len()];
    for j in 0..x.len() {
        let mut t = vec![0.0; x.len()];
        t[j] = x[j].sin();
        h[j] = t[j] * x[j];
    }
    let mut g = vec![0.0; x.len()];
    for j in 0..x.len() {
        let a = x[j].exp();
        let mut t = vec![0.0; x.len()];
        t[j] = a;
        g[j] = t[j] * x[j];
    }
    let mut s = 0.0;
    for j in 0..x.len() {
        s += h[j] + g[j] * h[(j + 1) % x.len()];
    }
    s
}

#[test]
fn arrays_the_body_declares_are_not_read_back() {
    check_gradient_and_adjoint(
        declared_in_the_body,
        declared_in_the_body_grad,
        declared_in_the_body_adjoint,
        &POINTS,
    );
}
