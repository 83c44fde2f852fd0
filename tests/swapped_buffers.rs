//! Buffers swapped whole, `std::mem::swap(&mut cur, &mut next)` or
//! `(cur, next) = (next, cur)`: a time step's two grids. Where nothing
//! saves either buffer by position (no undo tape: the reverse sweep needs
//! none of their old values), the generated code exchanges the buffers
//! themselves, and their adjoints in the reverse sweep, instead of swapping
//! every element (`Body::swapped_buffers` in `emit/reverse.rs`); elsewhere
//! it swaps the elements. Each function is checked against central finite
//! differences (`_adjoint` against `_grad`), against the tape running the
//! same body on `Var`s (which swaps its `Vec<Var>`s as Rust does), and,
//! for the time stepping, against the same steps written without a swap,
//! alternating the buffers' roles, whose gradient is the same to rounding.

#![allow(clippy::needless_range_loop, clippy::useless_vec)]

mod common;

use autograd::check;
use autograd::differentiable;
use autograd::tape::{Tape, Var};
use common::{assert_close, check_gradient_and_adjoint, on_tape};

const POINTS: [[f64; 7]; 3] = [
    [0.3, -0.2, 0.5, 1.1, 0.05, -0.4, 0.7],
    [-0.6, 0.1, 0.0, 0.9, 0.2, -0.3, 1.4],
    [1.2, 0.4, -0.1, 0.3, -0.8, 0.2, 0.5],
];

/// Explicit heat steps on a rod whose ends are held: linear, so the reverse
/// sweep reads no grid value and the grids are exchanged.
#[differentiable]
fn heat(x: &[f64]) -> f64 {
    let n = x.len();
    let mut cur = x.to_vec();
    let mut next = vec![0.0; n];
    for _ in 0..5 {
        next[0] = cur[0];
        next[n - 1] = cur[n - 1];
        for i in 1..n - 1 {
            next[i] = cur[i] + 0.2 * (cur[i - 1] + cur[i + 1] - 2.0 * cur[i]);
        }
        std::mem::swap(&mut cur, &mut next);
    }
    let mut s = 0.0;
    for i in 0..n {
        let e = cur[i] - 0.1 * i as f64;
        s += e * e + 0.5 * next[i];
    }
    s
}

/// `heat` without a swap: the steps alternate which buffer they write.
#[differentiable]
fn heat_alternating(x: &[f64]) -> f64 {
    let n = x.len();
    let mut a = x.to_vec();
    let mut b = vec![0.0; n];
    for step in 0..5 {
        if step % 2 == 0 {
            b[0] = a[0];
            b[n - 1] = a[n - 1];
            for i in 1..n - 1 {
                b[i] = a[i] + 0.2 * (a[i - 1] + a[i + 1] - 2.0 * a[i]);
            }
        } else {
            a[0] = b[0];
            a[n - 1] = b[n - 1];
            for i in 1..n - 1 {
                a[i] = b[i] + 0.2 * (b[i - 1] + b[i + 1] - 2.0 * b[i]);
            }
        }
    }
    // five steps: the last wrote `b`
    let mut s = 0.0;
    for i in 0..n {
        let e = b[i] - 0.1 * i as f64;
        s += e * e + 0.5 * a[i];
    }
    s
}

fn heat_on_tape<'t>(tape: &'t Tape, x: &[Var<'t>]) -> Var<'t> {
    let n = x.len();
    let mut cur = x.to_vec();
    let mut next = vec![tape.var(0.0); n];
    for _ in 0..5 {
        next[0] = cur[0];
        next[n - 1] = cur[n - 1];
        for i in 1..n - 1 {
            next[i] = cur[i] + 0.2 * (cur[i - 1] + cur[i + 1] - 2.0 * cur[i]);
        }
        std::mem::swap(&mut cur, &mut next);
    }
    let mut s = tape.var(0.0);
    for i in 0..n {
        let e = cur[i] - 0.1 * i as f64;
        s += e * e + 0.5 * next[i];
    }
    s
}

#[test]
fn exchanged_grids_give_the_gradient() {
    check_gradient_and_adjoint(heat, heat_grad, heat_adjoint, &POINTS);
    for x in &POINTS {
        let (value, gradient) = heat_grad(x);
        let (alt_value, alt_gradient) = heat_alternating_grad(x);
        assert_eq!(value.to_bits(), alt_value.to_bits(), "value at {x:?}");
        assert_close(&gradient, &alt_gradient, x);
        let (tape_value, tape_gradient) = on_tape(heat_on_tape, x);
        assert_eq!(value.to_bits(), tape_value.to_bits(), "value at {x:?}");
        assert_close(&gradient, &tape_gradient, x);
    }
}

/// The same steps swapped as a tuple, `(cur, next) = (next, cur)`, inside
/// an outer loop that also changes the grid: the exchange runs in a nest.
#[differentiable]
fn nested_steps(x: &[f64]) -> f64 {
    let n = x.len();
    let mut cur = x.to_vec();
    let mut next = vec![0.0; n];
    for round in 0..3 {
        for _ in 0..2 {
            next[0] = 0.0;
            next[n - 1] = 0.0;
            for i in 1..n - 1 {
                next[i] = 0.6 * cur[i] + 0.2 * (cur[i - 1] + cur[i + 1]);
            }
            (cur, next) = (next, cur);
        }
        cur[round] += 0.5 * x[round + 1];
    }
    let mut s = 0.0;
    for i in 0..n {
        s += (i as f64 + 1.0) * cur[i] * cur[i] - next[i];
    }
    s
}

fn nested_steps_on_tape<'t>(tape: &'t Tape, x: &[Var<'t>]) -> Var<'t> {
    let n = x.len();
    let mut cur = x.to_vec();
    let mut next = vec![tape.var(0.0); n];
    for round in 0..3 {
        for _ in 0..2 {
            next[0] = tape.var(0.0);
            next[n - 1] = tape.var(0.0);
            for i in 1..n - 1 {
                next[i] = 0.6 * cur[i] + 0.2 * (cur[i - 1] + cur[i + 1]);
            }
            (cur, next) = (next, cur);
        }
        cur[round] += 0.5 * x[round + 1];
    }
    let mut s = tape.var(0.0);
    for i in 0..n {
        s += (i as f64 + 1.0) * cur[i] * cur[i] - next[i];
    }
    s
}

#[test]
fn grids_exchanged_in_a_nest_give_the_gradient() {
    check_gradient_and_adjoint(
        nested_steps,
        nested_steps_grad,
        nested_steps_adjoint,
        &POINTS,
    );
    for x in &POINTS {
        let (value, gradient) = nested_steps_grad(x);
        let (tape_value, tape_gradient) = on_tape(nested_steps_on_tape, x);
        assert_eq!(value.to_bits(), tape_value.to_bits(), "value at {x:?}");
        assert_close(&gradient, &tape_gradient, x);
    }
}

/// One swap in the body, one under a branch, one in a loop that may stop
/// early: each a place the exchange, or the element loop, must keep.
#[differentiable]
fn swaps_here_and_there(x: &[f64], steps: usize) -> f64 {
    let n = x.len();
    let mut a = x.to_vec();
    let mut b = vec![0.0; n];
    for i in 0..n {
        b[i] = 2.0 * x[(i + 1) % n] - x[i];
    }
    std::mem::swap(&mut a, &mut b);
    if x[0] > 0.0 {
        std::mem::swap(&mut a, &mut b);
    }
    for s in 0..10 {
        if s >= steps {
            break;
        }
        for i in 0..n {
            b[i] = a[i] + 0.3 * a[(i + 1) % n];
        }
        std::mem::swap(&mut a, &mut b);
    }
    let mut total = 0.0;
    for i in 0..n {
        total += a[i] * (i as f64 + 0.5) + b[i] * b[i];
    }
    total
}

fn swaps_here_and_there_on_tape<'t>(tape: &'t Tape, x: &[Var<'t>], steps: usize) -> Var<'t> {
    let n = x.len();
    let mut a = x.to_vec();
    let mut b = vec![tape.var(0.0); n];
    for i in 0..n {
        b[i] = 2.0 * x[(i + 1) % n] - x[i];
    }
    std::mem::swap(&mut a, &mut b);
    if x[0].value() > 0.0 {
        std::mem::swap(&mut a, &mut b);
    }
    for s in 0..10 {
        if s >= steps {
            break;
        }
        for i in 0..n {
            b[i] = a[i] + 0.3 * a[(i + 1) % n];
        }
        std::mem::swap(&mut a, &mut b);
    }
    let mut total = tape.var(0.0);
    for i in 0..n {
        total += a[i] * (i as f64 + 0.5) + b[i] * b[i];
    }
    total
}

#[test]
fn swaps_at_the_top_under_a_branch_and_before_a_break() {
    for steps in [0, 1, 2, 3, 11] {
        let f = |x: &[f64]| swaps_here_and_there(x, steps);
        let grad = |x: &[f64]| swaps_here_and_there_grad(x, steps);
        let adjoint =
            |x: &[f64], d: f64, g: &mut [f64]| swaps_here_and_there_adjoint(x, steps, d, g);
        check_gradient_and_adjoint(f, grad, adjoint, &POINTS);
        for x in &POINTS {
            let (value, gradient) = grad(x);
            let (tape_value, tape_gradient) =
                on_tape(|t, v| swaps_here_and_there_on_tape(t, v, steps), x);
            assert_eq!(value.to_bits(), tape_value.to_bits(), "value at {x:?}");
            assert_close(&gradient, &tape_gradient, x);
        }
    }
}

/// Steps in a loop that may stop early, the grids exchanged, then one
/// more swap in the function's body.
#[differentiable]
fn steps_until(x: &[f64], steps: usize) -> f64 {
    let n = x.len();
    let mut a = x.to_vec();
    let mut b = vec![0.0; n];
    for s in 0..10 {
        if s >= steps {
            break;
        }
        for i in 0..n {
            b[i] = a[i] + 0.3 * a[(i + 1) % n];
        }
        std::mem::swap(&mut a, &mut b);
    }
    std::mem::swap(&mut a, &mut b);
    let mut total = 0.0;
    for i in 0..n {
        total += b[i] * (i as f64 + 0.5) + a[i] * a[i];
    }
    total
}

fn steps_until_on_tape<'t>(tape: &'t Tape, x: &[Var<'t>], steps: usize) -> Var<'t> {
    let n = x.len();
    let mut a = x.to_vec();
    let mut b = vec![tape.var(0.0); n];
    for s in 0..10 {
        if s >= steps {
            break;
        }
        for i in 0..n {
            b[i] = a[i] + 0.3 * a[(i + 1) % n];
        }
        std::mem::swap(&mut a, &mut b);
    }
    std::mem::swap(&mut a, &mut b);
    let mut total = tape.var(0.0);
    for i in 0..n {
        total += b[i] * (i as f64 + 0.5) + a[i] * a[i];
    }
    total
}

#[test]
fn grids_exchanged_in_a_loop_that_stops_early() {
    for steps in [0, 1, 2, 3, 11] {
        let f = |x: &[f64]| steps_until(x, steps);
        let grad = |x: &[f64]| steps_until_grad(x, steps);
        let adjoint = |x: &[f64], d: f64, g: &mut [f64]| steps_until_adjoint(x, steps, d, g);
        check_gradient_and_adjoint(f, grad, adjoint, &POINTS);
        for x in &POINTS {
            let (value, gradient) = grad(x);
            let (tape_value, tape_gradient) = on_tape(|t, v| steps_until_on_tape(t, v, steps), x);
            assert_eq!(value.to_bits(), tape_value.to_bits(), "value at {x:?}");
            assert_close(&gradient, &tape_gradient, x);
        }
    }
}

/// Constant buffers swapped (weights that alternate), beside a varied sum:
/// neither has an adjoint.
#[differentiable]
fn alternating_weights(x: &[f64]) -> f64 {
    let n = x.len();
    let mut w = vec![1.0; n];
    let mut v = vec![0.0; n];
    for i in 0..n {
        v[i] = 0.5 + 0.25 * i as f64;
    }
    let mut s = 0.0;
    for _ in 0..3 {
        for i in 0..n {
            s += w[i] * x[i] * x[i];
        }
        std::mem::swap(&mut w, &mut v);
    }
    s
}

#[test]
fn constant_buffers_swapped_beside_a_varied_sum() {
    check_gradient_and_adjoint(
        alternating_weights,
        alternating_weights_grad,
        alternating_weights_adjoint,
        &POINTS,
    );
    for x in &POINTS {
        // weights 1, 0.5 + i/4, 1: the sum is exact to rounding
        let expected: Vec<f64> = (0..x.len())
            .map(|i| 2.0 * x[i] * (2.0 + 0.5 + 0.25 * i as f64))
            .collect();
        assert_close(&alternating_weights_grad(x).1, &expected, x);
    }
}

/// Second order through exchanged grids: the Hessian of `heat2` against
/// central differences of its gradient, and `f_hvp` against the Hessian.
#[differentiable(hessian)]
fn heat2(x: &[f64]) -> f64 {
    let n = x.len();
    let mut cur = x.to_vec();
    let mut next = vec![0.0; n];
    for _ in 0..4 {
        next[0] = cur[0];
        next[n - 1] = cur[n - 1];
        for i in 1..n - 1 {
            next[i] = cur[i] + 0.2 * (cur[i - 1] + cur[i + 1] - 2.0 * cur[i]);
        }
        std::mem::swap(&mut cur, &mut next);
    }
    let mut s = 0.0;
    for i in 0..n {
        s += cur[i] * cur[i] * next[i];
    }
    s
}

#[test]
fn hessians_through_exchanged_grids() {
    for x in &POINTS {
        check::hessian_of(heat2_hessian, x).assert_ok(1e-6);
        let (_, _, h) = heat2_hessian(x);
        let v: Vec<f64> = (0..x.len()).map(|i| 0.5 - 0.1 * i as f64).collect();
        let (_, _, hv) = heat2_hvp(x, &v);
        let n = x.len();
        let expected: Vec<f64> = (0..n)
            .map(|i| (0..n).map(|j| h[i * n + j] * v[j]).sum())
            .collect();
        assert_close(&hv, &expected, x);
    }
}

/// Buffers named like generated ones (`t0`, and `d_x`, which the
/// adjoint's parameter takes, so the buffer is renamed) swapped in a loop:
/// the lengths were checked by `assert!`, whose tokens name the buffer by
/// its user name, brought in by value (`let d_x = d_x__1;`), moving the
/// `Vec` the loop swaps (E0382, found by a probe written as users write).
#[differentiable]
fn user_names(x: &[f64]) -> f64 {
    let mut t0 = x.to_vec();
    let mut d_x = vec![0.0; x.len()];
    for _ in 0..3 {
        for (i, v) in d_x.iter_mut().enumerate() {
            *v = 0.5 * t0[i] + 0.25 * t0[(i + 1) % x.len()];
        }
        std::mem::swap(&mut t0, &mut d_x);
    }
    let f = |a: f64| a.exp() / (1.0 + a.exp());
    t0.iter()
        .map(|&a| match a > 0.0 {
            true => f(a),
            false => a.tanh(),
        })
        .sum::<f64>()
        + d_x[0] / 3.0
}

#[test]
fn buffers_named_like_generated_ones_are_swapped() {
    check_gradient_and_adjoint(user_names, user_names_grad, user_names_adjoint, &POINTS);
}
