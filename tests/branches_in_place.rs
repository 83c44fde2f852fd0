//! Branches reversed where they run. In a loop that only accumulates,
//! whose reverse runs inside it (a fused loop, `autograd-macros/src/fuse.rs`),
//! an `if` whose outputs only add into the accumulators gets its reverse at
//! the end of each branch, in the forward sweep: the adjoint of what the
//! branch adds is the accumulator's seed, known there
//! (`fuse::branches_in_place`, `Body::if_in_place` in `emit/reverse.rs`).
//! The branch is not replayed after the rest of the iteration.
//!
//! Every function here is checked against central finite differences at
//! several points (and its adjoint against a pre-filled buffer), the ones
//! with a twin on `Var`s against the tape, to rounding, and the Hessians
//! (whose bodies replay the branches as before) against central
//! differences of the generated gradient.

#![allow(clippy::needless_range_loop, clippy::useless_vec)]

mod common;

use autograd::check;
use autograd::differentiable;
use autograd::tape::{Tape, Var};
use common::{assert_close, check_gradient_and_adjoint, on_tape};

/// A 3×3 cloth of points in the plane: springs to the right, below, and
/// two to the right, each under its own `if`, and a linear term.
#[differentiable(hessian)]
fn cloth(x: &[f64]) -> f64 {
    let n = 3;
    let mut d = [0.0; 2];
    let mut energy = 0.0;
    for i in 0..n {
        for j in 0..n {
            let p = 2 * (i * n + j);
            if j + 1 < n {
                for c in 0..2 {
                    d[c] = x[p + 2 + c] - x[p + c];
                }
                let len = (d[0] * d[0] + d[1] * d[1]).sqrt();
                energy += 0.5 * 3.0 * (len - 1.0).powi(2);
            }
            if i + 1 < n {
                for c in 0..2 {
                    d[c] = x[p + 2 * n + c] - x[p + c];
                }
                let len = (d[0] * d[0] + d[1] * d[1]).sqrt();
                energy += 0.5 * 3.0 * (len - 1.0).powi(2);
            }
            if j + 2 < n {
                for c in 0..2 {
                    d[c] = x[p + 4 + c] - x[p + c];
                }
                let len = (d[0] * d[0] + d[1] * d[1]).sqrt();
                energy += 0.5 * 0.4 * (len - 2.0).powi(2);
            }
            energy += 0.1 * x[p + 1];
        }
    }
    energy
}

fn cloth_on_tape<'t>(tape: &'t Tape, x: &[Var<'t>]) -> Var<'t> {
    let n = 3;
    let mut energy = tape.var(0.0);
    let spring = |p: usize, q: usize, k: f64, rest: f64| {
        let (dx, dy) = (x[q] - x[p], x[q + 1] - x[p + 1]);
        let len = (dx * dx + dy * dy).sqrt();
        0.5 * k * (len - rest).powi(2)
    };
    for i in 0..n {
        for j in 0..n {
            let p = 2 * (i * n + j);
            if j + 1 < n {
                energy += spring(p, p + 2, 3.0, 1.0);
            }
            if i + 1 < n {
                energy += spring(p, p + 2 * n, 3.0, 1.0);
            }
            if j + 2 < n {
                energy += spring(p, p + 4, 0.4, 2.0);
            }
            energy += 0.1 * x[p + 1];
        }
    }
    energy
}

/// A grid near rest, stretched and sheared a little differently each time.
fn grids() -> [[f64; 18]; 3] {
    let mut points = [[0.0; 18]; 3];
    for (k, point) in points.iter_mut().enumerate() {
        for v in 0..9 {
            let (i, j) = ((v / 3) as f64, (v % 3) as f64);
            let wobble = 0.1 * ((v * 7 + k * 3) as f64).sin();
            point[2 * v] = j * (1.0 + 0.1 * k as f64) + wobble;
            point[2 * v + 1] = i + 0.2 * k as f64 * j - wobble;
        }
    }
    points
}

#[test]
fn springs_under_conditions_give_the_gradient() {
    let points = grids();
    check_gradient_and_adjoint(cloth, cloth_grad, cloth_adjoint, &points);
    for x in &points {
        let (value, gradient) = cloth_grad(x);
        let (tape_value, tape_gradient) = on_tape(cloth_on_tape, x);
        assert!(
            (value - tape_value).abs() <= 1e-13 * value.abs(),
            "value at {x:?}"
        );
        assert_close(&gradient, &tape_gradient, x);
        let (_, _, hessian) = cloth_hessian(x);
        let report = check::hessian(|p| cloth_grad(p).1, x, &hessian);
        assert!(report.is_ok(1e-5), "{report}");
    }
}

const POINTS: [[f64; 6]; 3] = [
    [0.7, -1.3, 0.4, 1.9, -0.6, 1.1],
    [1.2, 0.3, -0.8, 0.5, 2.1, -0.2],
    [-0.4, 0.9, 1.6, -1.1, 0.2, 0.8],
];

/// Two accumulators with different seeds, each branch adding to one of
/// them, and an `else if` (an `if` inside the `else`).
#[differentiable]
fn two_sums(x: &[f64]) -> f64 {
    let mut a = 0.0;
    let mut b = 0.0;
    for i in 0..x.len() - 1 {
        let u = x[i] * x[i + 1];
        if u > 0.2 {
            a += u.exp();
        } else if u < -0.5 {
            b -= (u * u).ln_1p();
        } else {
            a += x[i];
            b += 2.0 * u;
        }
    }
    2.0 * a - b / 3.0
}

fn two_sums_on_tape<'t>(tape: &'t Tape, x: &[Var<'t>]) -> Var<'t> {
    let (mut a, mut b) = (tape.var(0.0), tape.var(0.0));
    for i in 0..x.len() - 1 {
        let u = x[i] * x[i + 1];
        if u.value() > 0.2 {
            a += u.exp();
        } else if u.value() < -0.5 {
            b -= (u * u).ln_1p();
        } else {
            a += x[i];
            b += 2.0 * u;
        }
    }
    2.0 * a - b / 3.0
}

#[test]
fn two_accumulators_and_an_else_if() {
    check_gradient_and_adjoint(two_sums, two_sums_grad, two_sums_adjoint, &POINTS);
    for x in &POINTS {
        let (value, gradient) = two_sums_grad(x);
        let (tape_value, tape_gradient) = on_tape(two_sums_on_tape, x);
        assert_eq!(value.to_bits(), tape_value.to_bits(), "value at {x:?}");
        assert_close(&gradient, &tape_gradient, x);
    }
}

/// A helper the branch calls.
#[differentiable]
fn soft(a: f64, b: f64) -> f64 {
    (a * a + b * b + 1.0).sqrt()
}

/// A value both the branch and the code after it read (`s`, whose adjoint
/// the branch's reverse adds to before the rest of the iteration's does),
/// a call in the branch, a constant array from before the loop read in
/// it, and a value carried from one iteration to the next that needs no
/// adjoint.
#[differentiable]
fn shared_and_called(x: &[f64]) -> f64 {
    let w = [x[0] * 0.5, x[1] + 1.0];
    let mut e = 0.0;
    let mut flips = 0;
    for i in 1..x.len() {
        let s = x[i] * x[i - 1];
        if s > 0.0 || flips > 2 {
            e += soft(s, w[i % 2]) * w[0];
        } else {
            flips += 1;
        }
        e += 0.5 * s;
    }
    e
}

#[test]
fn shared_values_calls_and_arrays_from_before_the_loop() {
    check_gradient_and_adjoint(
        shared_and_called,
        shared_and_called_grad,
        shared_and_called_adjoint,
        &POINTS,
    );
}

/// A branch reading a buffer of the body that the body stores into after
/// it: reversed after the iteration, as before (the store's reverse would
/// take back what the branch adds).
#[differentiable]
fn stored_after(x: &[f64]) -> f64 {
    let mut e = 0.0;
    for i in 0..x.len() - 1 {
        let mut h = vec![x[i], x[i + 1]];
        let k = i % 2;
        if h[k] > h[1 - k] {
            e += (h[k] - h[1 - k]).powi(3);
        }
        h[k] = h[1 - k] * 2.0;
        e += h[k] * h[0];
    }
    e
}

#[test]
fn arrays_stored_into_after_the_branch() {
    check_gradient_and_adjoint(
        stored_after,
        stored_after_grad,
        stored_after_adjoint,
        &POINTS,
    );
}

/// A cutoff whose squared distance is zero at the kink: `sqrt` has an
/// infinite partial there, which the branch not taken never multiplies (the
/// definitions only the branch reads are reversed in it, `sunk_before`).
#[differentiable]
fn cutoff(x: &[f64]) -> f64 {
    let mut e = 0.0;
    for i in 0..x.len() - 1 {
        let r = x[i] - x[i + 1];
        let r2 = r * r;
        if r2 > 0.0 {
            e += r2.sqrt();
        }
    }
    e
}

fn cutoff_on_tape<'t>(tape: &'t Tape, x: &[Var<'t>]) -> Var<'t> {
    let mut e = tape.var(0.0);
    for i in 0..x.len() - 1 {
        let r = x[i] - x[i + 1];
        let r2 = r * r;
        if r2.value() > 0.0 {
            e += r2.sqrt();
        }
    }
    e
}

#[test]
fn a_kink_the_branch_not_taken_does_not_multiply() {
    check_gradient_and_adjoint(cutoff, cutoff_grad, cutoff_adjoint, &POINTS);
    // x[1] = x[2]: the pair's term is 0 and its gradient exactly 0, as on
    // the tape.
    let x = [0.5, 2.0, 2.0, -1.0];
    let (value, gradient) = cutoff_grad(&x);
    let (tape_value, tape_gradient) = on_tape(cutoff_on_tape, &x);
    assert_eq!(value, tape_value);
    assert_eq!(gradient, tape_gradient);
    assert_eq!(gradient, [-1.0, 1.0, 1.0, -1.0]);
}

/// Pairs past a cutoff skipped with `continue` (the rest of the body is
/// the other branch), as a molecular energy is often written.
#[differentiable]
fn skipped_pairs(x: &[f64]) -> f64 {
    let mut d = [0.0; 2];
    let mut e = 0.0;
    for i in 0..x.len() / 2 {
        for j in i + 1..x.len() / 2 {
            for k in 0..2 {
                d[k] = x[2 * i + k] - x[2 * j + k];
            }
            let r2 = d[0] * d[0] + d[1] * d[1];
            if r2 > 4.0 {
                continue;
            }
            let s = 1.0 / r2;
            e += s * s - s;
        }
    }
    e
}

fn skipped_pairs_on_tape<'t>(tape: &'t Tape, x: &[Var<'t>]) -> Var<'t> {
    let mut e = tape.var(0.0);
    for i in 0..x.len() / 2 {
        for j in i + 1..x.len() / 2 {
            let (dx, dy) = (x[2 * i] - x[2 * j], x[2 * i + 1] - x[2 * j + 1]);
            let r2 = dx * dx + dy * dy;
            if r2.value() > 4.0 {
                continue;
            }
            let s = 1.0 / r2;
            e += s * s - s;
        }
    }
    e
}

#[test]
fn pairs_skipped_with_continue() {
    // each point has pairs on both sides of the cutoff
    for x in POINTS {
        let mut inside = 0;
        for (i, j) in [(0, 1), (0, 2), (1, 2)] {
            let (dx, dy) = (x[2 * i] - x[2 * j], x[2 * i + 1] - x[2 * j + 1]);
            inside += usize::from(dx * dx + dy * dy <= 4.0);
        }
        assert!(inside > 0 && inside < 3, "{x:?}: {inside} pairs inside");
    }
    check_gradient_and_adjoint(
        skipped_pairs,
        skipped_pairs_grad,
        skipped_pairs_adjoint,
        &POINTS,
    );
    for x in &POINTS {
        let (value, gradient) = skipped_pairs_grad(x);
        let (tape_value, tape_gradient) = on_tape(skipped_pairs_on_tape, x);
        assert!((value - tape_value).abs() <= 1e-13 * value.abs().max(1.0));
        assert_close(&gradient, &tape_gradient, x);
    }
}

/// A value `if` (a softplus that does not overflow) whose value reaches
/// the sum scaled by a value known before it and subtracted: its adjoint
/// when the `if` ends is the seed times `-c`.
#[differentiable]
fn softplus_loss(x: &[f64]) -> f64 {
    let mut loss = 0.0;
    for i in 0..x.len() {
        let m = 3.0 * x[i] - 0.3;
        let c = 0.5 + x[0] * x[0];
        let sp = if m > 0.0 {
            m + (-m).exp().ln_1p()
        } else {
            m.exp().ln_1p()
        };
        loss -= c * sp;
    }
    loss / x.len() as f64
}

fn softplus_loss_on_tape<'t>(tape: &'t Tape, x: &[Var<'t>]) -> Var<'t> {
    let mut loss = tape.var(0.0);
    for i in 0..x.len() {
        let m = 3.0 * x[i] - 0.3;
        let c = 0.5 + x[0] * x[0];
        let sp = if m.value() > 0.0 {
            m + (-m).exp().ln_1p()
        } else {
            m.exp().ln_1p()
        };
        loss -= c * sp;
    }
    loss / x.len() as f64
}

#[test]
fn a_value_if_scaled_on_its_way_to_the_sum() {
    check_gradient_and_adjoint(
        softplus_loss,
        softplus_loss_grad,
        softplus_loss_adjoint,
        &POINTS,
    );
    for x in &POINTS {
        let (value, gradient) = softplus_loss_grad(x);
        let (tape_value, tape_gradient) = on_tape(softplus_loss_on_tape, x);
        assert!((value - tape_value).abs() <= 1e-14 * value.abs().max(1.0));
        assert_close(&gradient, &tape_gradient, x);
    }
}

/// A load before the `if` from a buffer the body declares, read only by
/// one branch: its reverse would move into the branch, where the buffer's
/// adjoint is not declared yet, so the `if` is replayed as before (a review
/// of 5ee1b5d found E0425); with a store into the buffer after the `if`
/// too.
#[differentiable]
fn loaded_from_the_body(x: &[f64]) -> f64 {
    let mut e = 0.0;
    for i in 0..x.len() {
        let mut buf = vec![0.0; 2];
        buf[0] = x[i] * 2.0;
        let b = buf[i % 2];
        if x[i] > 0.0 {
            e += b.exp();
        } else {
            e += x[i];
        }
        buf[1] = x[i] * x[i];
        e += buf[1] * buf[0];
    }
    e
}

#[test]
fn loads_from_buffers_of_the_body_stay_in_the_sweep() {
    check_gradient_and_adjoint(
        loaded_from_the_body,
        loaded_from_the_body_grad,
        loaded_from_the_body_adjoint,
        &POINTS,
    );
}
