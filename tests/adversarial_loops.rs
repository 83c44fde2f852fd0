//! Adversarial tests of the loop optimisations of `emit.rs`/`fuse.rs`:
//! fused loops, accumulating loops reversed forwards, saved exit values and
//! call partials computed in the forward code. Each function sits at the
//! edge of a condition one of them relies on. Every gradient is checked
//! against central finite differences at three points, `_adjoint` is checked
//! to add `d_out` times the gradient into a pre-filled buffer, and, where a
//! twin written so that the optimisation cannot apply exists, the two
//! gradients must agree to rounding.

#![allow(
    clippy::needless_range_loop,
    clippy::assign_op_pattern,
    unused_assignments,
    unused_variables
)]

mod common;

use autograd::differentiable;
use common::assert_gradient;

const POINTS: [[f64; 6]; 3] = [
    [0.7, -1.3, 0.4, 1.9, -0.6, 1.1],
    [1.2, 0.3, -0.8, 0.5, 2.1, -0.2],
    [-0.4, 0.9, 1.6, -1.1, 0.2, 0.8],
];

/// `common::check_gradient_and_adjoint` at this file's points.
#[track_caller]
fn check(
    f: impl Fn(&[f64]) -> f64,
    grad: impl Fn(&[f64]) -> (f64, Vec<f64>),
    adjoint: impl Fn(&[f64], f64, &mut [f64]) -> f64,
) {
    common::check_gradient_and_adjoint(f, grad, adjoint, &POINTS);
}

/// The gradients of two ways of writing one function agree to rounding.
type Grad = fn(&[f64]) -> (f64, Vec<f64>);

fn same(a: Grad, b: Grad) {
    run("same", move || same_gradients(a, b));
}

#[track_caller]
fn same_gradients(a: Grad, b: Grad) {
    for x in POINTS {
        let ((va, ga), (vb, gb)) = (a(&x), b(&x));
        assert!((va - vb).abs() <= 1e-12 * (1.0 + va.abs()), "{va} vs {vb}");
        for (i, (p, q)) in ga.iter().zip(&gb).enumerate() {
            assert!(
                (p - q).abs() <= 1e-12 * (1.0 + p.abs()),
                "d/dx{i} at {x:?}: {p} vs twin {q}"
            );
        }
    }
}

thread_local! {
    static FAILED: std::cell::RefCell<Vec<&'static str>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs one check, recording its name if it fails, so that one test
/// reports every failing function of its group (`finish`).
fn run(name: &'static str, body: impl FnOnce() + std::panic::UnwindSafe) {
    if std::panic::catch_unwind(body).is_err() {
        FAILED.with(|f| f.borrow_mut().push(name));
    }
}

fn finish() {
    let failed = FAILED.with(|f| std::mem::take(&mut *f.borrow_mut()));
    assert!(failed.is_empty(), "failing: {failed:?}");
}

macro_rules! check {
    ($f:ident, $g:ident, $a:ident) => {
        run(stringify!($f), || check($f, $g, $a))
    };
}

// ----- accumulators through branches ----------------------------------------

#[differentiable]
fn branch_different_updates(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut t = 1.0;
    for i in 0..x.len() {
        if x[i] > 0.0 {
            s += x[i].sin();
            t -= x[i] * x[i];
        } else if x[i] < -1.0 {
            s -= x[i].exp();
        } else {
            t += x[i].cos();
        }
    }
    2.0 * s - t / 3.0
}

#[differentiable]
fn branch_different_updates_twin(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut t = 1.0;
    for i in 0..x.len() {
        if x[i] > 0.0 {
            s += x[i].sin();
            t -= x[i] * x[i];
        } else if x[i] < -1.0 {
            s -= x[i].exp();
        } else {
            t += x[i].cos();
        }
        s += 0.0 * s * t;
    }
    2.0 * s - t / 3.0
}

#[differentiable]
fn continue_then_accumulate(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let v = x[i] * x[(i + 1) % 6];
        if v < 0.0 {
            s += v;
            continue;
        }
        s += v.sqrt();
        if i > 3 {
            continue;
        }
        s -= (v * 0.5).exp();
    }
    s
}

#[differentiable]
fn continue_then_accumulate_twin(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let v = x[i] * x[(i + 1) % 6];
        if v < 0.0 {
            s += v;
            s += 0.0 * s * s;
            continue;
        }
        s += v.sqrt();
        if i > 3 {
            s += 0.0 * s * s;
            continue;
        }
        s -= (v * 0.5).exp();
        s += 0.0 * s * s;
    }
    s
}

/// Copies of the accumulator through a local before updating it.
#[differentiable]
fn copied_accumulator(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let t = s;
        let u = t;
        s = u + x[i] * x[i];
    }
    s
}

/// Two accumulators, one updated from a value computed by the other's
/// branch only.
#[differentiable]
fn swap_roles(x: &[f64]) -> f64 {
    let mut a = 0.0;
    let mut b = 0.0;
    for i in 0..x.len() {
        let w = x[i].tanh();
        if i % 2 == 0 {
            a += w;
        } else {
            b += w * w;
        }
    }
    a * 3.0 - b
}

/// An accumulator assigned in both branches from the same entry.
#[differentiable]
fn both_branches_from_entry(x: &[f64]) -> f64 {
    let mut s = x[0];
    for i in 1..x.len() {
        if x[i] > x[i - 1] {
            s = s + x[i];
        } else {
            s = s - x[i] * x[i - 1];
        }
    }
    s * 0.5
}

/// An accumulator reset in one branch: not accumulating.
#[differentiable]
fn reset_in_branch(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        if x[i] > 1.5 {
            s = x[i];
        } else {
            s += x[i] * x[i];
        }
    }
    s
}

/// `s = x - s`: negated each iteration.
#[differentiable]
fn subtracted_from(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s = x[i] - s;
    }
    s
}

/// Accumulator read in a condition.
#[differentiable]
fn read_in_condition(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        if s > 1.0 {
            s += x[i];
        } else {
            s += x[i] * x[i];
        }
    }
    s
}

/// The accumulated value also goes to a second cell that is read after.
#[differentiable]
fn last_increment(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut last = 0.0;
    for i in 0..x.len() {
        let t = s + x[i] * x[i];
        last = t;
        s = t;
    }
    s + 2.0 * last
}

/// The entry value copied to a cell in one branch, the other branch accumulates.
#[differentiable]
fn fan_out_in_branches(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut r = 0.0;
    for i in 0..x.len() {
        let t = s;
        if x[i] > 0.0 {
            s = t + x[i];
        } else {
            r = t;
            s = t + x[i] * x[i];
        }
    }
    s + 3.0 * r
}

/// Fan-out through a nested loop: the entry flows into `s` and `r`.
#[differentiable]
fn fan_out_through_nested_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut r = 0.0;
    for i in 0..3 {
        let t = s;
        for _k in 0..2 {
            r += t;
        }
        s = t + x[i] * x[i + 3];
    }
    s + r
}

/// Fan-out of an accumulated value that goes into itself twice inside a nested loop.
#[differentiable]
fn nested_loop_assigns_outer_value(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        let t = s + x[i];
        let mut u = 0.0;
        for k in 0..2 {
            u = t + x[k + 3];
        }
        s = u;
    }
    s
}

// ----- nested loops ------------------------------------------------------------

/// Accumulating at several depths.
#[differentiable]
fn several_depths(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i];
        for j in 0..i {
            s += x[i] * x[j];
            for k in 0..j {
                s -= (x[k] * x[j] * x[i]).sin();
            }
        }
    }
    s / 4.0
}

/// An inner loop reading the outer accumulator's value (not accumulating).
#[differentiable]
fn inner_reads_outer_accumulator(x: &[f64]) -> f64 {
    let mut s = 0.1;
    for i in 0..x.len() {
        let mut t = 0.0;
        for j in 0..2 {
            t += s * x[(i + j) % 6];
        }
        s += t * 0.1;
    }
    s
}

/// An accumulator initialised from another loop's result.
#[differentiable]
fn initialised_from_another_loop(x: &[f64]) -> f64 {
    let mut a = 0.0;
    for i in 0..x.len() {
        a += x[i].sin();
    }
    let mut b = a;
    for i in 0..x.len() {
        b += x[i] * x[i] * a;
    }
    b * 2.0
}

/// Inner accumulator initialised from the outer accumulator, added back.
#[differentiable]
fn inner_from_outer(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        let mut a = s;
        for k in 0..x.len() {
            a += x[k] * x[i];
        }
        s = a;
    }
    s
}

/// The same, outer not fused (read non-linearly), inner with saved exits.
#[differentiable]
fn inner_from_outer_squared(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        let mut a = s;
        for k in 0..x.len() {
            a += x[k] * x[i];
        }
        s = a;
    }
    s * s
}

/// Inner loop accumulating, outer reading it non-linearly, and an outer
/// accumulator.
#[differentiable]
fn layer_sum(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for j in 0..4 {
        let mut a = x[j];
        for k in 0..x.len() {
            a += x[k] * x[(j + k) % 6];
        }
        s += a.tanh() * a;
    }
    s
}

// ----- linear tails ------------------------------------------------------------

#[differentiable]
fn tail_negated(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i].exp();
    }
    -s
}

#[differentiable]
fn tail_subtracted_from(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i].exp();
    }
    1.0 - s
}

#[differentiable]
fn tail_times_value_before(x: &[f64]) -> f64 {
    let k = x[0] * x[1];
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i].sin();
    }
    s * k
}

/// Multiplied by a value computed after the loop (not fused).
#[differentiable]
fn tail_times_value_after(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i].sin();
    }
    let k = x[0] * x[1];
    s * k
}

#[differentiable]
fn tail_over_value_before(x: &[f64]) -> f64 {
    let k = x[0].exp() + 1.0;
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * x[i];
    }
    s / k
}

/// Divided by the accumulator (not linear).
#[differentiable]
fn tail_over_accumulator(x: &[f64]) -> f64 {
    let mut s = 1.0;
    for i in 0..x.len() {
        s += x[i] * x[i];
    }
    2.0 / s
}

#[differentiable]
fn tail_integer_cast(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        s += x[i].cos();
    }
    s / n as f64 * (n - 1) as f64
}

#[differentiable]
fn tail_constant_after(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        s += x[i].cos();
    }
    let m = n * 2;
    let c = m as f64 + 0.5;
    s * c
}

#[differentiable]
fn tail_two_loops(x: &[f64]) -> f64 {
    let mut a = 0.0;
    for i in 0..x.len() {
        a += x[i].sin();
    }
    let mut b = 0.0;
    for i in 0..x.len() {
        b += x[i] * x[i];
    }
    0.5 * a - 2.0 * b + (a + b) * 3.0
}

#[differentiable]
fn tail_two_loops_product(x: &[f64]) -> f64 {
    let mut a = 0.0;
    for i in 0..x.len() {
        a += x[i].sin();
    }
    let mut b = 0.0;
    for i in 0..x.len() {
        b += x[i] * x[i];
    }
    a * b
}

#[differentiable]
fn tail_through_if(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i].sin();
    }
    if x[0] > 0.0 {
        s * 2.0
    } else {
        -s
    }
}

#[differentiable]
fn tail_return_in_if(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i].sin();
    }
    if x[1] > 0.0 {
        return s * 2.0;
    }
    s - 1.0
}

/// The accumulator's adjoint comes from two places in the tail.
#[differentiable]
fn tail_used_twice(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i].sin();
    }
    let y = s * 3.0;
    let z = y - s / 2.0;
    z + y + s
}

/// The loop's result stored in an array read afterwards.
#[differentiable]
fn tail_through_array(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i].sin();
    }
    let h = [s, 2.0 * s];
    h[0] + h[1]
}

/// An integer counter carried along.
#[differentiable]
fn with_counter(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut n = 0;
    for i in 0..x.len() {
        if x[i] > 0.0 {
            s += x[i] * x[i];
            n += 1;
        }
    }
    s + n as f64
}

#[differentiable]
fn with_counter_scaled(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut n = 0usize;
    for i in 0..x.len() {
        n += i;
        s += x[i] * x[i] * n as f64;
    }
    let k = 2.0;
    s * k - n as f64
}

/// The accumulator scaled by a float counter computed in the loop.
#[differentiable]
fn float_counter(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut c = 0.0;
    for i in 0..x.len() {
        s += x[i].exp();
        c += 1.0;
    }
    s * c
}

/// The tail multiplies by a value that the loop's accumulator is also.
#[differentiable]
fn tail_times_param_scalar(x: &[f64], k: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += (x[i] * k).sin();
    }
    s * k - s / k
}

// ----- more accumulating loops reversed in the forward order ---------------

/// An accumulating inner loop (reversed forwards) in an outer loop that is
/// not fused, with a `continue`, a call, and a multiplicative loop inside.
#[differentiable]
fn accumulating_inner_with_everything(x: &[f64]) -> f64 {
    let mut p = 1.0;
    for j in 0..x.len() {
        let mut a = 0.0;
        for k in 0..x.len() {
            if x[k] < -1.0 {
                continue;
            }
            let mut m = 1.0;
            for q in 0..2 {
                m *= 1.0 + 0.1 * x[(k + q) % 6];
            }
            a += three_args(x[k], x[j], m) * 0.1;
        }
        p *= a.tanh() + 1.5;
    }
    p
}

/// Two accumulators in a loop reversed forwards; one's adjoint is zero.
#[differentiable]
fn accumulating_unused(x: &[f64]) -> f64 {
    let mut p = 0.0;
    for j in 0..2 {
        let mut a = 0.0;
        let mut b = 0.0;
        for k in 0..x.len() {
            a += x[k] * x[j];
            b += x[k].exp();
        }
        p = p * p + a.sin();
    }
    p
}

/// An accumulator with a loop-local array declared inside the loop that
/// is reversed forwards.
#[differentiable]
fn accumulating_with_inner_array(x: &[f64]) -> f64 {
    let mut p = 1.0;
    for j in 0..3 {
        let mut a = 0.0;
        for k in 0..4 {
            let mut b = [0.0; 2];
            b[0] = x[k] * x[j];
            b[1] = b[0] * x[k + 1];
            a += b[0] - b[1];
        }
        p *= a.cos();
    }
    p
}

/// The accumulating loop's result flows into the outer accumulator and
/// an outer non-linear value.
#[differentiable]
fn accumulating_both_ways(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut p = 1.0;
    for j in 0..3 {
        let mut a = 0.0;
        for k in 0..x.len() {
            a += x[k] * x[j];
        }
        s += a;
        p *= a;
    }
    s * s + p
}

// ----- constants and items after the loop, scalars and wrt ------------------

#[differentiable]
fn const_item_after(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i].sin();
    }
    const K: f64 = 3.0;
    s * K - s / K
}

#[differentiable]
fn shadowed_factor(x: &[f64]) -> f64 {
    let k = x[0] * 2.0;
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * x[i];
    }
    let k = k + 1.0;
    s * k
}

#[differentiable]
fn shadowed_count(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        s += x[i] * x[i];
    }
    let n = 2;
    s * n as f64
}

/// Factor is an integer defined before the loop and modified in it.
#[differentiable]
fn factor_modified_in_loop(x: &[f64]) -> f64 {
    let mut n = 1;
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * x[i];
        n += i;
    }
    s * n as f64
}

/// Factor is a local read after the loop that shadows a loop variable name.
#[differentiable]
fn factor_named_like_loop_value(x: &[f64]) -> f64 {
    let t = 0.5;
    let mut s = 0.0;
    for i in 0..x.len() {
        let t = x[i] * 3.0;
        s += t.sin();
    }
    s * t
}

/// An active slice and an active scalar, the scalar in the loop and the tail.
#[differentiable]
fn slice_and_scalar(x: &[f64], k: f64) -> f64 {
    let mut s = k;
    for i in 0..x.len() {
        s += (x[i] * k).tanh();
    }
    let mut t = 0.0;
    for i in 0..x.len() {
        t += x[i] * s;
    }
    s * k + t
}

/// `wrt` picks the slice; the scalar and a data slice are constants.
#[differentiable(wrt(x))]
fn wrt_slice_only(x: &[f64], k: f64, data: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut c = 0.0;
    for i in 0..x.len() {
        s += x[i] * data[i] * k;
        c += data[i];
    }
    s * c + s / k
}

/// `wrt` picks the scalar and the slice, not the data.
#[differentiable(wrt(x, k))]
fn wrt_two_of_three(x: &[f64], k: f64, data: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += scaled_by(x[i], data[i]) * k;
    }
    let top = three_args(k, x[0], k);
    s / 2.0 + top
}

// ----- forward mode ------------------------------------------------------------

#[differentiable]
fn forward_loops(t: f64) -> f64 {
    let mut s = 0.0;
    let mut h = [0.0; 4];
    for i in 0..4 {
        h[i] = (t * i as f64).sin();
        s += h[i] * t;
    }
    let mut p = 1.0;
    for j in 0..3 {
        let mut a = 0.0;
        for k in 0..4 {
            a += h[k] * (j as f64 + t);
        }
        p *= a.tanh() + 1.5;
    }
    let c = three_args(t, t, s);
    s * p + c
}

#[differentiable]
fn forward_loops_reverse(t: f64, _unused: f64) -> f64 {
    let mut s = 0.0;
    let mut h = [0.0; 4];
    for i in 0..4 {
        h[i] = (t * i as f64).sin();
        s += h[i] * t;
    }
    let mut p = 1.0;
    for j in 0..3 {
        let mut a = 0.0;
        for k in 0..4 {
            a += h[k] * (j as f64 + t);
        }
        p *= a.tanh() + 1.5;
    }
    let c = three_args(t, t, s);
    s * p + c
}

// ----- odd shapes ---------------------------------------------------------------

/// The nested loop continues a value the outer loop carries, read
/// non-linearly after it (saved exits of a cell the outer loop also carries).
#[differentiable]
fn exits_continue_outer_value(x: &[f64]) -> f64 {
    let mut a = 0.1;
    let mut p = 1.0;
    for j in 0..4 {
        for k in 0..3 {
            a += x[k + j] * x[k];
        }
        p *= a.sin() + 1.5;
    }
    p + a
}

/// The same, the outer loop breaking.
#[differentiable]
fn exits_continue_outer_value_break(x: &[f64]) -> f64 {
    let mut a = 0.1;
    let mut p = 1.0;
    for j in 0..4 {
        for k in 0..3 {
            a += x[k + j] * x[k];
        }
        p *= a.sin() + 1.5;
        if a > 2.0 {
            break;
        }
    }
    p + a
}

/// A `while` loop nested in a constant-range loop, and in a fused one.
#[differentiable]
fn while_inside(x: &[f64]) -> f64 {
    let mut p = 1.0;
    for j in 0..3 {
        let mut a = 0.0;
        let mut k = 0;
        while k < 4 {
            a += x[k] * x[j + 1];
            k += 1;
        }
        p *= a.cos() + 1.5;
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        let mut k = 0;
        while k < i {
            s += x[k] * x[i];
            k += 1;
        }
    }
    p + s
}

/// Reversed and inclusive ranges and slices, fused and reversed forwards.
#[differentiable]
fn odd_ranges(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in (0..x.len()).rev() {
        s += x[i] * (i as f64 + 1.0);
    }
    let mut t = 0.0;
    for v in x.iter() {
        t += v.sin();
    }
    let mut u = 0.0;
    for (i, v) in x.iter().enumerate() {
        u += v * (i as f64);
    }
    let mut w = 0.0;
    for v in x {
        w += v * v;
    }
    let mut p = 1.0;
    for j in (1..4).rev() {
        let mut a = 0.0;
        for k in 0..=j {
            a += x[k] * x[j];
        }
        for v in x {
            a += v * 0.1;
        }
        p *= a.tanh() + 1.5;
    }
    s - t * 0.5 + p + u / 3.0 - w
}

/// An accumulating loop inside a top-level branch.
#[differentiable]
fn accumulating_in_branch(x: &[f64]) -> f64 {
    let mut s = 0.0;
    if x[0] > 0.0 {
        for i in 0..x.len() {
            s += x[i] * x[0];
        }
    } else {
        for i in 0..x.len() {
            s -= x[i].exp();
        }
    }
    s
}

/// An early return before the loop moves the loop into a branch.
#[differentiable]
fn early_return_before(x: &[f64]) -> f64 {
    if x[1] > 1.0 {
        return x[1] * 2.0;
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i].sin();
    }
    s * 3.0
}

/// A `return` inside the loop.
#[differentiable]
fn return_inside(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        if x[i] > 2.0 {
            return s;
        }
        s += x[i] * x[i];
    }
    s / 2.0
}

/// Accumulation where the if-cell's initial value is not what a branch
/// writes (`if` in the middle of the body).
#[differentiable]
fn if_in_the_middle(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        if x[i] > 0.0 {
            s += x[i];
        }
        s += x[i] * x[i];
        if x[i] < 0.45 {
            s -= x[i].sin();
        } else {
            s += 1.0;
        }
    }
    s * 2.0
}

/// An accumulator that is only copied in a nested loop (no update).
#[differentiable]
fn copied_through_nested_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        for _k in 0..2 {
            s = s + 0.0;
        }
        s += x[i] * x[i + 1];
    }
    s
}

/// A nested loop of a fused loop whose trip count is zero for some
/// iterations, and an accumulator reading a per-iteration array.
#[differentiable]
fn empty_nested(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let mut b = [0.0; 2];
        b[0] = x[i];
        b[1] = x[i];
        for k in 0..i % 3 {
            b[k % 2] = b[k % 2] * x[k];
        }
        for k in 0..i % 2 {
            s += b[k] * b[1 - k];
        }
        s += b[0];
    }
    s
}

// ----- `if`s in the middle of a body (their cells start from the entry) ----

#[differentiable]
fn middle_ifs(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut t = 0.5;
    for i in 0..x.len() {
        if x[i] > 0.0 {
            s += x[i];
        }
        t -= x[i] * s.min(0.0).abs() * 0.0;
        if x[i] < 1.0 {
            for k in 0..i {
                t += x[k] * x[i];
            }
        }
        let y = if x[i] > -0.5 { x[i].sin() } else { x[i].cos() };
        s += y;
    }
    s * 2.0 - t
}

#[differentiable]
fn middle_ifs_fused(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut t = 0.5;
    for i in 0..x.len() {
        if x[i] > 0.0 {
            s += x[i];
        }
        if x[i] < 1.0 {
            for k in 0..i {
                t += x[k] * x[i];
            }
        }
        let y = if x[i] > -0.5 { x[i].sin() } else { x[i].cos() };
        s += y;
        if x[i] > 0.35 {
            s -= y * y;
        }
    }
    s * 2.0 - t
}

#[differentiable]
fn middle_ifs_twin(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut t = 0.5;
    for i in 0..x.len() {
        if x[i] > 0.0 {
            s += x[i];
        }
        if x[i] < 1.0 {
            for k in 0..i {
                t += x[k] * x[i];
            }
        }
        let y = if x[i] > -0.5 { x[i].sin() } else { x[i].cos() };
        s += y;
        if x[i] > 0.35 {
            s -= y * y;
        }
        t += s * s * 0.0;
    }
    s * 2.0 - t
}

/// A middle `if` whose branch holds a nested `if` that leaves the iteration.
#[differentiable]
fn middle_if_with_continue(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let v = x[i] * x[(i + 2) % 6];
        if v > -0.5 {
            s += v;
            if v > 1.2 {
                continue;
            }
            s -= v.exp() * 0.1;
        }
        if v < 0.0 {
            s += v.sin();
        }
        s += 0.25 * v * v;
    }
    s * 3.0
}

#[differentiable]
fn middle_if_with_continue_twin(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let v = x[i] * x[(i + 2) % 6];
        if v > -0.5 {
            s += v;
            if v > 1.2 {
                s += 0.0 * s * s;
                continue;
            }
            s -= v.exp() * 0.1;
        }
        if v < 0.0 {
            s += v.sin();
        }
        s += 0.25 * v * v;
        s += 0.0 * s * s;
    }
    s * 3.0
}

/// The value before a middle `if` goes to a second accumulator in one
/// branch and on to the first after the `if`: not only accumulating.
#[differentiable]
fn middle_if_fan_out(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut r = 0.0;
    for i in 0..x.len() {
        let t = s;
        if x[i] > 0.0 {
            r = t;
        }
        s = t + x[i] * x[i];
    }
    s + 3.0 * r
}

/// The same through an `if` expression.
#[differentiable]
fn middle_if_expression_fan_out(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut r = 0.0;
    for i in 0..x.len() {
        let t = s;
        let y = if x[i] > 0.0 {
            r = t;
            t
        } else {
            t + x[i]
        };
        s = y + x[i] * x[i];
    }
    s + 3.0 * r
}

/// Middle `if`s nested in each other, in a loop that is not fused.
#[differentiable]
fn middle_ifs_nested(x: &[f64]) -> f64 {
    let mut p = 1.0;
    for j in 0..3 {
        let mut a = 0.0;
        for k in 0..x.len() {
            if x[k] > -1.0 {
                if x[k] < x[j] {
                    a += x[k];
                }
                a -= 0.1 * x[k] * x[j];
            }
            a += 0.01;
        }
        p *= a.tanh() + 1.5;
    }
    p
}

// ----- factors and values from before the loop -----------------------------

/// A call's result (partials from the forward code) read by a fused loop,
/// factors from a block, a branch and a mutated parameter.
#[differentiable]
fn factors_from_everywhere(x: &[f64], mut k: f64) -> f64 {
    let c = three_args(x[0], k, x[1]);
    let b = {
        let t = x[2] * 2.0;
        t + 1.0
    };
    let mut m = 0.5;
    if x[3] > 0.0 {
        m = x[3] * x[3] + 0.5;
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        s += c * x[i] + (x[i] * k).sin();
    }
    k = 2.5;
    s * b / m * k - s
}

// ----- labels and conditions on carried values -------------------------------

/// A nested loop that breaks, then skips the rest of the fused iteration.
#[differentiable]
fn inner_break_flag(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let mut skip = false;
        for k in 0..x.len() {
            if x[k] * x[i] > 1.0 {
                skip = true;
                break;
            }
            s += x[k] * x[i] * 0.5;
        }
        if skip {
            continue;
        }
        s += x[i].sin();
    }
    s * 2.0
}

/// A flag that stops an outer loop from a nested loop.
#[differentiable]
fn outer_break_flag(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let mut stop = false;
        for k in 0..i {
            if x[k] * x[i] > 1.5 {
                stop = true;
                break;
            }
            s += x[k] * x[i];
        }
        if stop {
            break;
        }
        s += x[i].exp();
    }
    s
}

/// A constant float counter drives a condition in an accumulating loop.
#[differentiable]
fn counter_condition(x: &[f64]) -> f64 {
    let mut p = 1.0;
    for j in 0..3 {
        let mut a = 0.0;
        let mut c = 0.0;
        for k in 0..x.len() {
            if c < 2.5 {
                a += x[k] * x[j];
            }
            c += 1.0;
        }
        p *= a.sin() + 2.0 + c * 0.01;
    }
    p
}

/// A constant float carried by the nested loop, read by the outer body only.
#[differentiable]
fn counter_read_after(x: &[f64]) -> f64 {
    let mut p = 1.0;
    for j in 0..3 {
        let mut a = 0.0;
        let mut c = 0.0;
        for k in 0..x.len() {
            a += x[k] * x[j];
            c += k as f64;
        }
        if c > 10.0 {
            p *= a.sin() + 2.0;
        } else {
            p *= a.cos() + 2.0;
        }
    }
    p
}

// ----- the checks ----------------------------------------------------------------

#[test]
fn branches() {
    check!(
        branch_different_updates,
        branch_different_updates_grad,
        branch_different_updates_adjoint
    );
    same(
        branch_different_updates_grad,
        branch_different_updates_twin_grad,
    );
    check!(
        continue_then_accumulate,
        continue_then_accumulate_grad,
        continue_then_accumulate_adjoint
    );
    same(
        continue_then_accumulate_grad,
        continue_then_accumulate_twin_grad,
    );
    check!(
        copied_accumulator,
        copied_accumulator_grad,
        copied_accumulator_adjoint
    );
    check!(swap_roles, swap_roles_grad, swap_roles_adjoint);
    check!(
        both_branches_from_entry,
        both_branches_from_entry_grad,
        both_branches_from_entry_adjoint
    );
    check!(
        reset_in_branch,
        reset_in_branch_grad,
        reset_in_branch_adjoint
    );
    check!(
        subtracted_from,
        subtracted_from_grad,
        subtracted_from_adjoint
    );
    check!(
        read_in_condition,
        read_in_condition_grad,
        read_in_condition_adjoint
    );
    check!(last_increment, last_increment_grad, last_increment_adjoint);
    check!(
        fan_out_in_branches,
        fan_out_in_branches_grad,
        fan_out_in_branches_adjoint
    );
    check!(
        fan_out_through_nested_loop,
        fan_out_through_nested_loop_grad,
        fan_out_through_nested_loop_adjoint
    );
    check!(
        nested_loop_assigns_outer_value,
        nested_loop_assigns_outer_value_grad,
        nested_loop_assigns_outer_value_adjoint
    );
    finish();
}

#[test]
fn nested() {
    check!(several_depths, several_depths_grad, several_depths_adjoint);
    check!(
        inner_reads_outer_accumulator,
        inner_reads_outer_accumulator_grad,
        inner_reads_outer_accumulator_adjoint
    );
    check!(
        initialised_from_another_loop,
        initialised_from_another_loop_grad,
        initialised_from_another_loop_adjoint
    );
    check!(
        inner_from_outer,
        inner_from_outer_grad,
        inner_from_outer_adjoint
    );
    check!(
        inner_from_outer_squared,
        inner_from_outer_squared_grad,
        inner_from_outer_squared_adjoint
    );
    check!(layer_sum, layer_sum_grad, layer_sum_adjoint);
    finish();
}

#[test]
fn tails() {
    check!(tail_negated, tail_negated_grad, tail_negated_adjoint);
    check!(
        tail_subtracted_from,
        tail_subtracted_from_grad,
        tail_subtracted_from_adjoint
    );
    check!(
        tail_times_value_before,
        tail_times_value_before_grad,
        tail_times_value_before_adjoint
    );
    check!(
        tail_times_value_after,
        tail_times_value_after_grad,
        tail_times_value_after_adjoint
    );
    same(tail_times_value_before_grad, tail_times_value_after_grad);
    check!(
        tail_over_value_before,
        tail_over_value_before_grad,
        tail_over_value_before_adjoint
    );
    check!(
        tail_over_accumulator,
        tail_over_accumulator_grad,
        tail_over_accumulator_adjoint
    );
    check!(
        tail_integer_cast,
        tail_integer_cast_grad,
        tail_integer_cast_adjoint
    );
    check!(
        tail_constant_after,
        tail_constant_after_grad,
        tail_constant_after_adjoint
    );
    check!(tail_two_loops, tail_two_loops_grad, tail_two_loops_adjoint);
    check!(
        tail_two_loops_product,
        tail_two_loops_product_grad,
        tail_two_loops_product_adjoint
    );
    check!(
        tail_through_if,
        tail_through_if_grad,
        tail_through_if_adjoint
    );
    check!(
        tail_return_in_if,
        tail_return_in_if_grad,
        tail_return_in_if_adjoint
    );
    check!(
        tail_used_twice,
        tail_used_twice_grad,
        tail_used_twice_adjoint
    );
    check!(
        tail_through_array,
        tail_through_array_grad,
        tail_through_array_adjoint
    );
    check!(with_counter, with_counter_grad, with_counter_adjoint);
    check!(
        with_counter_scaled,
        with_counter_scaled_grad,
        with_counter_scaled_adjoint
    );
    check!(float_counter, float_counter_grad, float_counter_adjoint);
    for k in [0.7, -1.3] {
        check(
            |x| tail_times_param_scalar(x, k),
            |x| {
                let (v, (g, _)) = tail_times_param_scalar_grad(x, k);
                (v, g)
            },
            |x, d, b| {
                let mut dk = 0.0;
                tail_times_param_scalar_adjoint(x, k, d, b, &mut dk)
            },
        );
        let (_, (_, dk)) = tail_times_param_scalar_grad(&POINTS[0], k);
        let h = 1e-6;
        let fd = (tail_times_param_scalar(&POINTS[0], k + h)
            - tail_times_param_scalar(&POINTS[0], k - h))
            / (2.0 * h);
        assert!((dk - fd).abs() < 1e-6 * (1.0 + fd.abs()), "{dk} vs {fd}");
    }
    finish();
}

// ----- arrays ------------------------------------------------------------------

/// A fused loop reads a local array that is stored into after it.
#[differentiable]
fn store_after_fused_read(x: &[f64]) -> f64 {
    let mut h = [0.0; 3];
    for j in 0..3 {
        h[j] = x[j].sin();
    }
    let mut s = 0.0;
    for i in 0..3 {
        s += h[i] * x[i + 3];
    }
    h[1] = x[0] * 2.0;
    s + h[1]
}

/// The same, with the array's first stores in straight-line code.
#[differentiable]
fn store_after_fused_read_straight(x: &[f64]) -> f64 {
    let mut h = [x[0].sin(), x[1] * x[2], x[3].cos()];
    let mut s = 0.0;
    for i in 0..3 {
        s += h[i] * x[i + 3];
    }
    h[1] = x[4] * 2.0;
    s - h[1] * h[0]
}

/// The same, with the later store in a loop.
#[differentiable]
fn store_after_fused_read_loop(x: &[f64]) -> f64 {
    let mut h = [x[0].sin(), x[1] * x[2], x[3].cos()];
    let mut s = 0.0;
    for i in 0..3 {
        s += h[i] * x[i + 3];
    }
    for j in 0..2 {
        h[j] = x[j + 4] * h[j + 1];
    }
    s * 2.0 + h[0] + h[1]
}

/// A loop that only accumulates and overwrites elements of an array
/// declared outside it (each written twice, read after).
#[differentiable]
fn overwrites_in_accumulating_loop(x: &[f64]) -> f64 {
    let mut h = [0.0; 2];
    let mut s = 0.0;
    for i in 0..6 {
        h[i % 2] = x[i].sin();
        s += x[i] * x[i];
    }
    (h[0] + 2.0 * h[1]) * s.sin()
}

/// The same overwrites in a nested loop of a fused loop.
#[differentiable]
fn overwrites_in_nested_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for j in 0..3 {
        let mut h = [0.0; 2];
        let mut a = 0.0;
        for i in 0..6 {
            h[i % 2] = x[i] * x[j];
            a += x[i];
        }
        s += (h[0] - h[1]) * a;
    }
    s
}

/// Local arrays inside and outside a fused loop, read after, copied.
#[differentiable]
fn arrays_around_fused(x: &[f64]) -> f64 {
    let v = x.to_vec();
    let mut h = [0.0; 6];
    for i in 0..6 {
        h[i] = v[i] * v[(i + 1) % 6];
    }
    let mut s = 0.0;
    for i in 0..5 {
        let mut b = [0.0; 3];
        for k in 0..3 {
            b[k] = h[(i + k) % 6] * v[k];
        }
        let c = b.to_vec();
        s += c[0] * c[2] - b[1];
    }
    s + h[2] * v[0]
}

/// A copy of an array taken inside the fused loop, a copy of an outer one.
#[differentiable]
fn copies_in_fused(x: &[f64]) -> f64 {
    let h = [x[0] * x[1], x[2].exp(), x[3]];
    let mut s = 0.0;
    for i in 0..3 {
        let mut c = h.to_vec();
        c[i] = c[i] * x[i + 3];
        s += c[0] + c[1] * c[2];
    }
    s + h[0]
}

/// Stores in nested loops inside a fused loop, into an array of the fused body.
#[differentiable]
fn nested_stores_in_fused(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let mut b = [0.0; 3];
        for j in 0..3 {
            for k in 0..2 {
                b[j] = b[j] + x[(i + j + k) % 6] * x[i];
            }
        }
        s += b[0] * b[1] + b[2].sin();
    }
    s
}

/// An array written in an earlier top-level loop, read after the fused
/// loop reads it, and a second fused loop reading it too.
#[differentiable]
fn array_read_by_two_fused(x: &[f64]) -> f64 {
    let mut h = [0.0; 6];
    for i in 0..6 {
        h[i] = x[i].tanh();
    }
    let mut a = 0.0;
    for i in 0..6 {
        a += h[i] * h[(i + 2) % 6];
    }
    let mut b = 0.0;
    for i in 0..6 {
        b += h[i] * x[i];
    }
    a - b + h[3]
}

/// Reduced: a fused loop reads `h[0]`, which a later store overwrites; the
/// store's reverse took the adjoint the loop had added to `d_h[0]` (fused
/// loops now read no array stored into after them).
#[differentiable]
fn reduced_store_after_fused(x: &[f64]) -> f64 {
    let mut h = [x[0], x[1]];
    let mut s = 0.0;
    for i in 0..2 {
        s += h[i] * x[2];
    }
    h[0] = x[3];
    s + h[0]
}

/// Reduced: a loop that only accumulates, reversed in the forward order,
/// writes `h[0]` twice; the first write took the adjoint of the last
/// (such loops now store only into arrays they declare).
#[differentiable]
fn reduced_overwrite_in_order(x: &[f64]) -> f64 {
    let mut h = [0.0; 1];
    let mut s = 0.0;
    for i in 0..2 {
        h[0] = x[i];
        s += x[i];
    }
    h[0] * s
}

// ----- calls -------------------------------------------------------------------

#[differentiable]
fn three_args(a: f64, b: f64, c: f64) -> f64 {
    (a * b).sin() + c * c * a
}

#[differentiable(wrt(a))]
fn scaled_by(a: f64, k: f64) -> f64 {
    (a * k).exp()
}

#[differentiable]
fn slice_norm(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * v[i];
    }
    s.sqrt()
}

#[differentiable(wrt(w))]
fn dot_with(w: &[f64], d: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..d.len() {
        s += w[i] * d[i];
    }
    s
}

#[differentiable]
fn calls_in_fused(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 2 {
        s += three_args(x[i], x[i + 1], x[i + 2]);
        s += three_args(x[i], x[i], x[i + 1]);
        let k = i as f64 * 0.3;
        s -= scaled_by(x[i], k);
    }
    s * 0.5
}

#[differentiable]
fn calls_in_fused_twin(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 2 {
        s += three_args(x[i], x[i + 1], x[i + 2]);
        s += three_args(x[i], x[i], x[i + 1]);
        let k = i as f64 * 0.3;
        s -= scaled_by(x[i], k);
        s += 0.0 * s * s;
    }
    s * 0.5
}

/// Calls at top level: same variable twice, result of one into another.
#[differentiable]
fn calls_at_top(x: &[f64]) -> f64 {
    let a = three_args(x[0], x[0], x[0]);
    let b = three_args(a.sin(), x[1], a * 0.1);
    let c = scaled_by(b, x.len() as f64 * 0.1);
    let d = three_args(c, 2.0 * c, x[2]);
    d + a
}

/// The same, with the calls in a branch (called, then their adjoint).
#[differentiable]
fn calls_at_top_twin(x: &[f64]) -> f64 {
    let mut d = 0.0;
    let mut a = 0.0;
    if x.len() > 1 {
        a = three_args(x[0], x[0], x[0]);
        let b = three_args(a.sin(), x[1], a * 0.1);
        let c = scaled_by(b, x.len() as f64 * 0.1);
        d = three_args(c, 2.0 * c, x[2]);
    }
    d + a
}

/// A call taking a slice of a local array, inside a fused loop and at top level.
#[differentiable]
fn call_with_local_slice(x: &[f64]) -> f64 {
    let h = [x[0] * x[1], x[2].sin(), x[3], x[4] * x[5]];
    let top = slice_norm(&h[1..3]);
    let mut s = 0.0;
    for i in 0..3 {
        let b = [x[i], h[i], x[i + 3]];
        s += slice_norm(&b) + slice_norm(&h[i..i + 2]);
    }
    s + top
}

/// A callee differentiated only with respect to its first argument, given
/// constant data.
#[differentiable(wrt(w))]
fn call_wrt_with_data(w: &[f64], data: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        s += dot_with(&w[i..i + 3], &data[i..i + 3]).tanh();
    }
    let top = dot_with(w, data);
    s + top * top
}

struct Model {
    scale: f64,
}

impl Model {
    #[differentiable]
    fn unit(&self, a: f64, b: f64) -> f64 {
        self.scale * (a - b).sin() * a
    }

    #[differentiable]
    fn total(&self, x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() - 1 {
            s += self.unit(x[i], x[i + 1]);
        }
        let top = self.unit(x[0], x[0]);
        s / self.scale + top
    }
}

// ----- saved exits -------------------------------------------------------------

#[differentiable]
fn exits_one_float(x: &[f64]) -> f64 {
    let mut p = 1.0;
    for j in 0..4 {
        let mut a = 0.0;
        for k in 0..x.len() {
            a += x[k] * x[(j + k) % 6];
        }
        p *= a.sin() + 1.5;
    }
    p
}

#[differentiable]
fn exits_two_floats_offset(x: &[f64]) -> f64 {
    let mut p = 0.0;
    for j in 3..7 {
        let mut a = x[j - 3];
        let mut b = 0.0;
        for k in 0..j - 2 {
            a += x[k] * x[k + 1];
            b -= x[k + 2] * a;
        }
        p = p * 0.5 + (a * b).cos();
    }
    p
}

/// The inner loop's value read non-linearly, and its cells read after.
#[differentiable]
fn exits_read_nonlinearly(x: &[f64]) -> f64 {
    let mut p = 0.0;
    for j in 0..4 {
        let mut a = 1.0;
        for k in 0..3 {
            a *= 1.0 + 0.1 * x[k + j];
        }
        let mut m = 0.0;
        for k in 0..3 {
            m += a * x[k + j];
        }
        p = (p + m * m).sqrt();
    }
    p
}

/// Inner loops inside branches of a constant-range loop.
#[differentiable]
fn exits_in_branches(x: &[f64]) -> f64 {
    let mut p = 1.0;
    for j in 0..4 {
        if x[j] > 0.0 {
            let mut a = 0.0;
            for k in 0..x.len() {
                a += x[k] * x[j];
            }
            p *= a.tanh() + 2.0;
        } else {
            let mut b = 0.0;
            for k in 0..3 {
                b += (x[k] - x[j]).powi(2);
            }
            p *= b.sqrt() + 1.0;
        }
    }
    p
}

/// Three levels of constant-range loops.
#[differentiable]
fn exits_three_levels(x: &[f64]) -> f64 {
    let mut p = 1.0;
    for i in 0..2 {
        let mut q = 0.0;
        for j in 0..3 {
            let mut a = 0.0;
            for k in 0..4 {
                a += x[k + i] * x[(j + k) % 6];
            }
            q += a.sin() * x[j];
        }
        p *= q + 2.0;
    }
    p
}

/// Three levels, the middle one carrying only accumulators.
#[differentiable]
fn exits_three_levels_acc(x: &[f64]) -> f64 {
    let mut p = 1.0;
    for i in 0..2 {
        let mut q = 0.0;
        for j in 0..3 {
            let mut a = 0.0;
            for k in 0..4 {
                a += x[k + i] * x[(j + k) % 6];
            }
            q += a;
        }
        p *= q.sin() + 2.0;
    }
    p
}

/// An outer constant-range loop that breaks.
#[differentiable]
fn exits_outer_breaks(x: &[f64]) -> f64 {
    let mut p = 1.0;
    for j in 0..5 {
        let mut a = 0.0;
        for k in 0..x.len() {
            a += x[k] * x[(j + k) % 6];
        }
        p *= a.cos() + 1.5;
        if p < 0.9 || j == 3 {
            break;
        }
    }
    p
}

/// Wild-card index on the outer loop.
#[differentiable]
fn exits_wild_outer(x: &[f64]) -> f64 {
    let mut p = 1.0;
    for _ in 0..3 {
        let mut a = 0.0;
        for k in 0..x.len() {
            a += x[k] * p;
        }
        p = (a * 0.3).sin() + 1.0;
    }
    p
}

/// The inner loop's entry depends on the outer carried value.
#[differentiable]
fn exits_entry_from_outer(x: &[f64]) -> f64 {
    let mut p = 0.5;
    for j in 0..4 {
        let mut a = p;
        for k in 0..3 {
            a += x[k + j] * x[k];
        }
        p = a.sin() * p;
    }
    p
}

/// The inner loop is inside a non-constant outer loop, itself in a
/// constant one.
#[differentiable]
fn exits_mixed_ranges(x: &[f64]) -> f64 {
    let mut p = 1.0;
    for j in 0..3 {
        for m in 0..x.len() / 3 {
            let mut a = x[m];
            for k in 0..2 {
                a += x[k + j] * x[m + 1];
            }
            p *= a.tanh() + 1.5;
        }
    }
    p
}

#[test]
fn arrays() {
    check!(
        store_after_fused_read,
        store_after_fused_read_grad,
        store_after_fused_read_adjoint
    );
    check!(
        store_after_fused_read_straight,
        store_after_fused_read_straight_grad,
        store_after_fused_read_straight_adjoint
    );
    check!(
        store_after_fused_read_loop,
        store_after_fused_read_loop_grad,
        store_after_fused_read_loop_adjoint
    );
    check!(
        overwrites_in_accumulating_loop,
        overwrites_in_accumulating_loop_grad,
        overwrites_in_accumulating_loop_adjoint
    );
    check!(
        overwrites_in_nested_loop,
        overwrites_in_nested_loop_grad,
        overwrites_in_nested_loop_adjoint
    );
    check!(
        arrays_around_fused,
        arrays_around_fused_grad,
        arrays_around_fused_adjoint
    );
    check!(
        copies_in_fused,
        copies_in_fused_grad,
        copies_in_fused_adjoint
    );
    check!(
        nested_stores_in_fused,
        nested_stores_in_fused_grad,
        nested_stores_in_fused_adjoint
    );
    check!(
        array_read_by_two_fused,
        array_read_by_two_fused_grad,
        array_read_by_two_fused_adjoint
    );
    finish();
}

#[test]
fn regressions() {
    check!(
        reduced_store_after_fused,
        reduced_store_after_fused_grad,
        reduced_store_after_fused_adjoint
    );
    check!(
        reduced_overwrite_in_order,
        reduced_overwrite_in_order_grad,
        reduced_overwrite_in_order_adjoint
    );
    finish();
}

#[test]
fn calls() {
    check!(calls_in_fused, calls_in_fused_grad, calls_in_fused_adjoint);
    same(calls_in_fused_grad, calls_in_fused_twin_grad);
    check!(calls_at_top, calls_at_top_grad, calls_at_top_adjoint);
    same(calls_at_top_grad, calls_at_top_twin_grad);
    check!(
        call_with_local_slice,
        call_with_local_slice_grad,
        call_with_local_slice_adjoint
    );
    let data = [0.3, -0.7, 1.1, 0.2, -0.5, 0.9];
    check(
        |w| call_wrt_with_data(w, &data),
        |w| call_wrt_with_data_grad(w, &data),
        |w, d, b| call_wrt_with_data_adjoint(w, &data, d, b),
    );
    for scale in [1.5, -0.4] {
        let model = Model { scale };
        check(
            |x| model.total(x),
            |x| model.total_grad(x),
            |x, d, b| model.total_adjoint(x, d, b),
        );
    }
    finish();
}

#[test]
fn saved_exits() {
    check!(
        exits_one_float,
        exits_one_float_grad,
        exits_one_float_adjoint
    );
    check!(
        exits_two_floats_offset,
        exits_two_floats_offset_grad,
        exits_two_floats_offset_adjoint
    );
    check!(
        exits_read_nonlinearly,
        exits_read_nonlinearly_grad,
        exits_read_nonlinearly_adjoint
    );
    check!(
        exits_in_branches,
        exits_in_branches_grad,
        exits_in_branches_adjoint
    );
    check!(
        exits_three_levels,
        exits_three_levels_grad,
        exits_three_levels_adjoint
    );
    check!(
        exits_three_levels_acc,
        exits_three_levels_acc_grad,
        exits_three_levels_acc_adjoint
    );
    check!(
        exits_outer_breaks,
        exits_outer_breaks_grad,
        exits_outer_breaks_adjoint
    );
    check!(
        exits_wild_outer,
        exits_wild_outer_grad,
        exits_wild_outer_adjoint
    );
    check!(
        exits_entry_from_outer,
        exits_entry_from_outer_grad,
        exits_entry_from_outer_adjoint
    );
    check!(
        exits_mixed_ranges,
        exits_mixed_ranges_grad,
        exits_mixed_ranges_adjoint
    );
    finish();
}

#[test]
fn more_accumulating() {
    check!(
        accumulating_inner_with_everything,
        accumulating_inner_with_everything_grad,
        accumulating_inner_with_everything_adjoint
    );
    check!(
        accumulating_unused,
        accumulating_unused_grad,
        accumulating_unused_adjoint
    );
    check!(
        accumulating_with_inner_array,
        accumulating_with_inner_array_grad,
        accumulating_with_inner_array_adjoint
    );
    check!(
        accumulating_both_ways,
        accumulating_both_ways_grad,
        accumulating_both_ways_adjoint
    );
    finish();
}

#[test]
fn constants_scalars_and_wrt() {
    check!(
        const_item_after,
        const_item_after_grad,
        const_item_after_adjoint
    );
    check!(
        shadowed_factor,
        shadowed_factor_grad,
        shadowed_factor_adjoint
    );
    check!(shadowed_count, shadowed_count_grad, shadowed_count_adjoint);
    check!(
        factor_modified_in_loop,
        factor_modified_in_loop_grad,
        factor_modified_in_loop_adjoint
    );
    check!(
        factor_named_like_loop_value,
        factor_named_like_loop_value_grad,
        factor_named_like_loop_value_adjoint
    );
    // the slice and the scalar, as one vector: x[..5], k = x[5]
    run("slice_and_scalar", || {
        check(
            |v| slice_and_scalar(&v[..5], v[5]),
            |v| {
                let (value, (mut g, dk)) = slice_and_scalar_grad(&v[..5], v[5]);
                g.push(dk);
                (value, g)
            },
            |v, d, b| {
                let (bx, bk) = b.split_at_mut(5);
                slice_and_scalar_adjoint(&v[..5], v[5], d, bx, &mut bk[0])
            },
        )
    });
    let data = [0.3, -0.7, 1.1, 0.2, -0.5, 0.9];
    for k in [0.8, -1.7] {
        run("wrt_slice_only", move || {
            check(
                |x| wrt_slice_only(x, k, &data),
                |x| wrt_slice_only_grad(x, k, &data),
                |x, d, b| wrt_slice_only_adjoint(x, k, &data, d, b),
            )
        });
    }
    run("wrt_two_of_three", move || {
        check(
            |v| wrt_two_of_three(&v[..5], v[5], &data),
            |v| {
                let (value, (mut g, dk)) = wrt_two_of_three_grad(&v[..5], v[5], &data);
                g.push(dk);
                (value, g)
            },
            |v, d, b| {
                let (bx, bk) = b.split_at_mut(5);
                wrt_two_of_three_adjoint(&v[..5], v[5], &data, d, bx, &mut bk[0])
            },
        )
    });
    finish();
}

#[test]
fn forward_mode() {
    run("forward_loops", || {
        for t in [0.3, -0.9, 1.4] {
            let (value, d) = forward_loops_grad(t);
            assert_eq!(value, forward_loops(t));
            assert_gradient(|v| forward_loops(v[0]), &[t], &[d]);
            let (_, (rd, _)) = forward_loops_reverse_grad(t, 0.0);
            assert!((d - rd).abs() <= 1e-12 * (1.0 + rd.abs()), "{d} vs {rd}");
            let mut acc = 0.5;
            forward_loops_adjoint(t, -2.0, &mut acc);
            assert!((acc - (0.5 - 2.0 * d)).abs() <= 1e-12 * (1.0 + d.abs()));
        }
    });
    finish();
}

#[test]
fn odd_shapes() {
    check!(
        exits_continue_outer_value,
        exits_continue_outer_value_grad,
        exits_continue_outer_value_adjoint
    );
    check!(
        exits_continue_outer_value_break,
        exits_continue_outer_value_break_grad,
        exits_continue_outer_value_break_adjoint
    );
    check!(while_inside, while_inside_grad, while_inside_adjoint);
    check!(odd_ranges, odd_ranges_grad, odd_ranges_adjoint);
    check!(
        accumulating_in_branch,
        accumulating_in_branch_grad,
        accumulating_in_branch_adjoint
    );
    check!(
        early_return_before,
        early_return_before_grad,
        early_return_before_adjoint
    );
    check!(return_inside, return_inside_grad, return_inside_adjoint);
    check!(
        if_in_the_middle,
        if_in_the_middle_grad,
        if_in_the_middle_adjoint
    );
    check!(
        copied_through_nested_loop,
        copied_through_nested_loop_grad,
        copied_through_nested_loop_adjoint
    );
    check!(empty_nested, empty_nested_grad, empty_nested_adjoint);
    finish();
}

#[test]
fn middle_ifs_check() {
    check!(middle_ifs, middle_ifs_grad, middle_ifs_adjoint);
    check!(
        middle_ifs_fused,
        middle_ifs_fused_grad,
        middle_ifs_fused_adjoint
    );
    same(middle_ifs_fused_grad, middle_ifs_twin_grad);
    check!(
        middle_if_with_continue,
        middle_if_with_continue_grad,
        middle_if_with_continue_adjoint
    );
    same(
        middle_if_with_continue_grad,
        middle_if_with_continue_twin_grad,
    );
    check!(
        middle_if_fan_out,
        middle_if_fan_out_grad,
        middle_if_fan_out_adjoint
    );
    check!(
        middle_if_expression_fan_out,
        middle_if_expression_fan_out_grad,
        middle_if_expression_fan_out_adjoint
    );
    check!(
        middle_ifs_nested,
        middle_ifs_nested_grad,
        middle_ifs_nested_adjoint
    );
    finish();
}

#[test]
fn factors() {
    run("factors_from_everywhere", || {
        check(
            |v| factors_from_everywhere(&v[..5], v[5]),
            |v| {
                let (value, (mut g, dk)) = factors_from_everywhere_grad(&v[..5], v[5]);
                g.push(dk);
                (value, g)
            },
            |v, d, b| {
                let (bx, bk) = b.split_at_mut(5);
                factors_from_everywhere_adjoint(&v[..5], v[5], d, bx, &mut bk[0])
            },
        )
    });
    finish();
}

#[test]
fn labels_and_counters() {
    check!(
        inner_break_flag,
        inner_break_flag_grad,
        inner_break_flag_adjoint
    );
    check!(
        outer_break_flag,
        outer_break_flag_grad,
        outer_break_flag_adjoint
    );
    check!(
        counter_condition,
        counter_condition_grad,
        counter_condition_adjoint
    );
    check!(
        counter_read_after,
        counter_read_after_grad,
        counter_read_after_adjoint
    );
    finish();
}
