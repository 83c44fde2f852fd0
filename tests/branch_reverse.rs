//! The reverse of values that only one branch of an `if` reads runs inside
//! that branch's reverse (`autograd-macros/src/emit/reverse.rs`,
//! `sunk_before`): a cutoff's squared distance, computed for the test and
//! for the branch that uses it, adds nothing to the gradient when the other
//! branch ran, so its reverse runs only where the branch did.
//!
//! Every gradient here is checked against central finite differences at
//! several points (and its adjoint against a pre-filled buffer), the
//! Hessians against central differences of the generated gradient, and
//! the values at a kink against the tape, which visits no node whose
//! adjoint is `0` either.

#![allow(clippy::needless_range_loop)]

mod common;

use autograd::tape::Tape;
use autograd::{check, differentiable};
use common::check_gradient_and_adjoint;

const POINTS: [[f64; 6]; 3] = [
    [0.7, -1.3, 0.4, 1.9, -0.6, 1.1],
    [1.2, 0.3, -0.8, 0.5, 2.1, -0.2],
    [-0.4, 0.9, 1.6, -1.1, 0.2, 0.8],
];

/// A Lennard-Jones energy with a cutoff over the pairs of three particles
/// in the plane: the pairs beyond the cutoff add nothing, and their squared
/// distance's reverse does not run.
#[differentiable(hessian)]
fn cutoff_energy(x: &[f64]) -> f64 {
    let n = x.len() / 2;
    let mut e = 0.0;
    for i in 0..n {
        for j in i + 1..n {
            let dx = x[2 * i] - x[2 * j];
            let dy = x[2 * i + 1] - x[2 * j + 1];
            let r2 = dx * dx + dy * dy + 0.5;
            if r2 < 6.0 {
                let s6 = (1.0 / r2).powi(3);
                e += 4.0 * (s6 * s6 - s6);
            }
        }
    }
    e
}

#[test]
fn a_cutoff_in_a_nest() {
    // the pairs of each point on both sides of the cutoff
    for x in POINTS {
        let mut inside = 0;
        for (i, j) in [(0, 1), (0, 2), (1, 2)] {
            let (dx, dy) = (x[2 * i] - x[2 * j], x[2 * i + 1] - x[2 * j + 1]);
            inside += usize::from(dx * dx + dy * dy + 0.5 < 6.0);
        }
        assert!(inside > 0 && inside < 3, "{x:?}: {inside} pairs inside");
    }
    check_gradient_and_adjoint(
        cutoff_energy,
        cutoff_energy_grad,
        cutoff_energy_adjoint,
        &POINTS,
    );
    for x in POINTS {
        let (_, _, hessian) = cutoff_energy_hessian(&x);
        let report = check::hessian(|p| cutoff_energy_grad(p).1, &x, &hessian);
        assert!(report.is_ok(1e-5), "{report}");
    }
}

/// The values only the `else` branch reads; a value both read (`a`) and
/// one read after the `if` (`z`), which stay where they were, `z` reading
/// `a` too, whose adjoint the sunk reverse adds to from inside the branch.
#[differentiable(hessian)]
fn into_else(x: &[f64]) -> f64 {
    let mut s = x[5];
    for k in 0..3 {
        let a = x[k] * x[k + 1];
        let z = a * 2.0 + x[k + 2];
        let d = a - x[k + 3];
        let q = d * d;
        let b = a.exp();
        if x[k] > 0.5 {
            s += x[k + 2] * s;
        } else {
            s += q.sin() + b;
        }
        s += z * 0.25;
    }
    s
}

#[test]
fn values_only_the_else_branch_reads() {
    check_gradient_and_adjoint(into_else, into_else_grad, into_else_adjoint, &POINTS);
    for x in POINTS {
        let (_, _, hessian) = into_else_hessian(&x);
        let report = check::hessian(|p| into_else_grad(p).1, &x, &hessian);
        assert!(report.is_ok(1e-5), "{report}");
    }
}

/// A chain of values between the `if` and a statement that reads one of
/// them after it: only the part of the chain after that value moves.
#[differentiable]
fn chain_read_after(x: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..x.len() - 1 {
        let u = x[i] - x[i + 1];
        let v = u * u;
        let w = v.ln_1p();
        if w > 0.3 {
            total += w.sqrt();
        }
        total += v * 0.1;
    }
    total
}

#[test]
fn a_chain_partly_read_after_the_if() {
    check_gradient_and_adjoint(
        chain_read_after,
        chain_read_after_grad,
        chain_read_after_adjoint,
        &POINTS,
    );
}

/// At `x = 0` the branch that reads `sqrt(x)` does not run: its partial,
/// `∞`, meets an adjoint of `0` and is skipped, as the tape skips it.
#[differentiable]
fn kink_behind_a_branch(x: f64, y: f64) -> f64 {
    let r = x.sqrt();
    let t = r * y;
    if x > 0.0 {
        t
    } else {
        y * 2.0
    }
}

#[test]
fn an_infinite_partial_behind_the_other_branch() {
    let (value, (dx, dy)) = kink_behind_a_branch_grad(0.0, 3.0);
    assert_eq!((value, dx, dy), (6.0, 0.0, 2.0));
    let tape = Tape::new();
    let (x, y) = (tape.var(0.0), tape.var(3.0));
    let r = x.sqrt();
    let t = r * y;
    let z = if x.value() > 0.0 { t } else { y * 2.0 };
    let g = z.backward();
    assert_eq!((z.value(), g[x], g[y]), (value, dx, dy));
    // and where the branch runs
    let (value, (dx, dy)) = kink_behind_a_branch_grad(4.0, 3.0);
    assert_eq!((value, dx, dy), (6.0, 0.75, 2.0));
}

// ----- a branch's costly values, kept for its reverse ---------------------

thread_local! {
    static WARP_RUNS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// A helper the macro cannot see into, counting the runs of its value.
fn warp(x: f64) -> f64 {
    WARP_RUNS.with(|c| c.set(c.get() + 1));
    x.exp() - 1.0
}

fn warp_adjoint(x: f64, d_out: f64, d_x: &mut f64) -> f64 {
    *d_x += d_out * x.exp();
    x.exp() - 1.0
}

fn warp_runs(f: impl FnOnce()) -> usize {
    let before = WARP_RUNS.with(|c| c.get());
    f();
    WARP_RUNS.with(|c| c.get()) - before
}

/// Costly values in branches (a call's, `sin_cos`, `sqrt`, a division),
/// in `if`s of the function body (one inside another) and of a fused
/// loop's body: the reverse of each `if` reads what the branch computed
/// from slots the forward sweep filled (`Plan::branch_saves`), where it
/// replayed the branch and computed them again.
#[differentiable]
fn branchy(x: &[f64]) -> f64 {
    let r2 = x[0] * x[0] + x[1] * x[1];
    let mut out = x[2] * x[2];
    if r2 > 1e-8 {
        let r = r2.sqrt();
        let (s, c) = r.sin_cos();
        let w = warp(x[2] * s);
        out = w * c / r;
        if x[3] > 0.0 {
            let v = warp(x[3] * w);
            out += v.ln_1p();
        }
    }
    let mut total = 0.0;
    for i in 0..3 {
        let t = x[i] * x[i + 3];
        if t > 0.1 {
            let e = warp(t);
            total += e * e / (1.0 + t);
        } else {
            total += t;
        }
    }
    out + total
}

#[test]
fn branch_values_are_kept_for_the_reverse() {
    for x in POINTS {
        let (value, gradient) = branchy_grad(&x);
        assert_eq!(value, branchy(&x));
        let report = check::gradient(branchy, &x, &gradient);
        assert!(report.is_ok(1e-6), "at {x:?}: {report}");
        let primal = warp_runs(|| {
            branchy(&x);
        });
        let mut d_x = [0.0; 6];
        let adjoint = warp_runs(|| {
            branchy_adjoint(&x, 1.0, &mut d_x);
        });
        // once as the function runs it, none in the replays
        assert_eq!(adjoint, primal, "at {x:?}");
    }
    check_gradient_and_adjoint(branchy, branchy_grad, branchy_adjoint, &POINTS);
}
