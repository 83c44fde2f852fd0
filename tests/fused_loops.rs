//! Loops in the function body that only accumulate, and whose accumulators
//! the rest of the function uses linearly, are reversed as they run: each
//! iteration is differentiated right after it computes
//! (`autograd-macros/src/fuse.rs`). Each function here is on one side of
//! that rule or the other, or at its edge; every gradient is checked against
//! central finite differences at several points, and `_adjoint` is checked
//! to add `d_out` times the gradient into what its buffers already hold.

#![allow(clippy::needless_range_loop)]

mod common;

use autograd::differentiable;

const POINTS: [[f64; 5]; 3] = [
    [0.7, -1.3, 0.4, 1.9, -0.6],
    [1.2, 0.3, -0.8, 0.5, 2.1],
    [-0.4, 0.9, 1.6, -1.1, 0.2],
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

// ----- fused ------------------------------------------------------------------

/// A sum returned as it is.
#[differentiable]
fn sum_of_terms(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        s += (x[i] * x[i + 1]).sin() + x[i].exp();
    }
    s
}

/// A mean: divided by a length known before the loop, through a local
/// defined after it.
#[differentiable]
fn mean_of_squares(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        s += x[i] * x[i];
    }
    let count = n as f64;
    s / count
}

/// Two accumulators, one subtracting, combined linearly with factors
/// computed before the loop (one of them from the input).
#[differentiable]
fn two_accumulators(x: &[f64]) -> f64 {
    let scale = x[0].cos();
    let mut a = 0.0;
    let mut b = 1.0;
    for i in 1..x.len() {
        a += x[i] * scale;
        b -= x[i].powi(3);
    }
    -(2.0 * a - b / 3.0) * scale + 1.0
}

/// An accumulator that starts from a value of the input.
#[differentiable]
fn starts_from_the_input(x: &[f64]) -> f64 {
    let mut s = x[0].sin();
    for i in 1..x.len() {
        s += x[i] * x[i - 1];
    }
    0.5 * s
}

/// Accumulation through `if`s, a `continue` and a nested loop.
#[differentiable]
fn through_branches_and_nested_loops(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        if x[i] < -1.0 {
            continue;
        }
        for j in 0..i {
            s += (x[i] - x[j]).powi(2);
        }
        if x[i] > 1.0 {
            s -= x[i].sqrt();
        } else {
            s += x[i].exp();
        }
    }
    s
}

/// The body reads a local array filled before the loop, and fills and
/// reads its own per-iteration buffer.
#[differentiable]
fn reads_outer_and_inner_arrays(x: &[f64]) -> f64 {
    let mut h = [0.0; 4];
    for j in 0..4 {
        h[j] = (x[j] * x[j + 1]).tanh();
    }
    let mut s = 0.0;
    for i in 0..3 {
        let mut buf = [0.0; 2];
        for k in 0..2 {
            buf[k] = h[i + k] * x[k + 2];
        }
        s += buf[0] * buf[1] + h[i];
    }
    s
}

/// A helper called in the loop (the call-heavy pattern of a chain of springs).
#[differentiable]
fn spring(a: f64, b: f64) -> f64 {
    let d = ((b - a) * (b - a) + 0.01).sqrt() - 1.0;
    d * d
}

#[differentiable]
fn chain(x: &[f64]) -> f64 {
    let mut energy = 0.0;
    for i in 0..x.len() - 1 {
        energy += spring(x[i], x[i + 1]);
    }
    energy
}

/// A batch loss and an L2 term, like an MLP's: two fused loops.
#[differentiable]
fn loss_and_penalty(x: &[f64]) -> f64 {
    let n = x.len();
    let mut total = 0.0;
    for s in 0..n {
        let mut h = [0.0; 3];
        for j in 0..3 {
            h[j] = (x[s] * (j as f64 + 1.0) - x[(s + j) % n]).max(0.0);
        }
        let mut out = 0.1;
        for j in 0..3 {
            out += h[j] * x[j];
        }
        total += (1.0 - out).max(0.0);
    }
    let mut reg = 0.0;
    for i in 0..n {
        reg += x[i] * x[i];
    }
    total / n as f64 + 1e-2 * reg
}

/// Read by a later loop, which fuses; this one does not.
#[differentiable]
fn read_by_a_later_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i].sin();
    }
    let mut t = 0.0;
    for i in 0..x.len() {
        t += s * x[i] * x[i];
    }
    t
}

// ----- not fused: still right -------------------------------------------------

/// The accumulator is read by its own update.
#[differentiable]
fn compounding(x: &[f64]) -> f64 {
    let mut s = 1.0;
    for i in 0..x.len() {
        s += s * x[i] * 0.1;
    }
    s
}

/// Used non-linearly after the loop.
#[differentiable]
fn squared_sum(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i];
    }
    s * s
}

/// Divided by a count the loop computes.
#[differentiable]
fn mean_of_positives(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut count = 0;
    for i in 0..x.len() {
        if x[i] > 0.0 {
            s += x[i] * x[i];
            count += 1;
        }
    }
    s / count as f64
}

/// A second carried value with an adjoint.
#[differentiable]
fn differences(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut previous = 0.0;
    for i in 0..x.len() {
        s += (x[i] - previous).powi(2);
        previous = x[i];
    }
    s
}

/// A `break`.
#[differentiable]
fn until_large(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        if x[i] > 1.8 {
            break;
        }
        s += x[i].exp();
    }
    s
}

/// A store into an array read after the loop.
#[differentiable]
fn stores_outside(x: &[f64]) -> f64 {
    let mut h = [0.0; 5];
    let mut s = 0.0;
    for i in 0..5 {
        h[i] = x[i] * s;
        s += x[i];
    }
    s + h[4] * h[3]
}

// ----- the checks ---------------------------------------------------------------

#[test]
fn fused_loops_give_the_gradient() {
    check(sum_of_terms, sum_of_terms_grad, sum_of_terms_adjoint);
    check(
        mean_of_squares,
        mean_of_squares_grad,
        mean_of_squares_adjoint,
    );
    check(
        two_accumulators,
        two_accumulators_grad,
        two_accumulators_adjoint,
    );
    check(
        starts_from_the_input,
        starts_from_the_input_grad,
        starts_from_the_input_adjoint,
    );
    check(
        through_branches_and_nested_loops,
        through_branches_and_nested_loops_grad,
        through_branches_and_nested_loops_adjoint,
    );
    check(
        reads_outer_and_inner_arrays,
        reads_outer_and_inner_arrays_grad,
        reads_outer_and_inner_arrays_adjoint,
    );
    check(chain, chain_grad, chain_adjoint);
    check(
        loss_and_penalty,
        loss_and_penalty_grad,
        loss_and_penalty_adjoint,
    );
    check(
        read_by_a_later_loop,
        read_by_a_later_loop_grad,
        read_by_a_later_loop_adjoint,
    );
}

#[test]
fn loops_that_are_not_fused_still_give_the_gradient() {
    check(compounding, compounding_grad, compounding_adjoint);
    check(squared_sum, squared_sum_grad, squared_sum_adjoint);
    check(
        mean_of_positives,
        mean_of_positives_grad,
        mean_of_positives_adjoint,
    );
    check(differences, differences_grad, differences_adjoint);
    check(until_large, until_large_grad, until_large_adjoint);
    check(stores_outside, stores_outside_grad, stores_outside_adjoint);
}

/// One accumulated value flows into two accumulators: the adjoint of the
/// entry is the sum of theirs and changes every iteration, so this is not a
/// loop that only accumulates.
#[differentiable]
fn fan_out(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut s2 = 0.0;
    for i in 0..x.len() {
        let t = s;
        s = t + x[i] * x[i];
        s2 = t;
    }
    s + 3.0 * s2
}

/// The same, inside an outer loop (reversed, not fused).
#[differentiable]
fn fan_out_nested(x: &[f64]) -> f64 {
    let mut p = 1.0;
    for j in 0..2 {
        let mut s = 0.0;
        let mut s2 = 0.0;
        for i in 0..x.len() {
            let t = s;
            s = t + x[i] * x[j];
            s2 = t;
        }
        p *= (s + 3.0 * s2).sin();
    }
    p
}

#[test]
fn one_value_into_two_accumulators() {
    check(fan_out, fan_out_grad, fan_out_adjoint);
    check(fan_out_nested, fan_out_nested_grad, fan_out_nested_adjoint);
}

/// Two accumulators trade values every iteration (found in review): the
/// adjoints move between them, so the loop does not only accumulate — fused
/// (returned as it is), reversed in the forward order (read non-linearly),
/// or in a nested loop.
#[differentiable]
fn swap_fused(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut r = 0.0;
    for i in 0..x.len() {
        let t = s;
        s = r + x[i] * x[i];
        r = t;
    }
    s
}

#[differentiable]
fn swap_squared(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut r = 0.0;
    for i in 0..x.len() {
        let t = s;
        s = r + x[i] * x[i];
        r = t;
    }
    s * s
}

#[differentiable]
fn swap_inner(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut r = 0.0;
    for i in 0..x.len() {
        let mut a = s;
        let mut b = r;
        for _ in 0..1 {
            let t = a;
            a = b + x[i];
            b = t;
        }
        s = a;
        r = b;
    }
    s + 3.0 * r
}

#[test]
fn accumulators_that_trade_values() {
    check(swap_fused, swap_fused_grad, swap_fused_adjoint);
    check(swap_squared, swap_squared_grad, swap_squared_adjoint);
    check(swap_inner, swap_inner_grad, swap_inner_adjoint);
}

// ----- fused inside fused --------------------------------------------------------

/// A double sum over pairs: the inner loop only accumulates into the outer
/// loop's accumulator, so it is fused too and runs once.
#[differentiable]
fn pair_energy(x: &[f64]) -> f64 {
    let n = x.len();
    let mut e = 0.0;
    for i in 0..n {
        for j in i + 1..n {
            let d = x[i] - x[j];
            let r2 = d * d + 0.5;
            let inv = 1.0 / (r2 * r2 * r2);
            e += inv * inv - inv;
        }
    }
    e
}

/// A value of the outer body read by the inner loop and after it (its
/// adjoint gets the inner loop's share first), two inner loops into two
/// accumulators, and a third level.
#[differentiable]
fn shared_and_deep(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut t = 0.0;
    for i in 0..x.len() {
        let a = x[i].sin();
        for j in 0..i {
            s += a * x[j];
        }
        for j in 0..3 {
            for k in 0..j {
                t -= (a * x[k] + x[j]).tanh();
            }
        }
        s += a * a;
    }
    s * 2.0 - t
}

/// Inner loops that are not fused inside a fused one: one whose carried
/// product is not an accumulator, one whose sum is squared before it
/// reaches the outer accumulator.
#[differentiable]
fn inner_not_fused(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let mut p = 1.0;
        for j in 0..i {
            p *= 0.5 + x[j] * x[i];
        }
        let mut q = 0.0;
        for j in 0..3 {
            q += x[j] * x[i];
        }
        s += p + q * q;
    }
    s
}

#[test]
fn inner_loops_fused_inside_fused_ones() {
    check(pair_energy, pair_energy_grad, pair_energy_adjoint);
    check(
        shared_and_deep,
        shared_and_deep_grad,
        shared_and_deep_adjoint,
    );
    check(
        inner_not_fused,
        inner_not_fused_grad,
        inner_not_fused_adjoint,
    );
}

/// An inner sum the output uses only on a branch not taken: its reverse,
/// with a zero adjoint, is skipped (`reverse_loop`) and adds nothing — not
/// `0 · ∞ = NaN` from `sqrt` at 0 (`x[0] = 1`; `adjoint_term` guards that
/// too), as the tape's sweep skips a node whose adjoint is 0.
#[differentiable]
fn unused_sum_with_singular_terms(x: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..2 {
        let mut s = 0.0;
        for j in 0..x.len() {
            s += (x[j] - 1.0).abs().sqrt();
        }
        if s > 100.0 {
            total += s;
        } else {
            total += x[i] * x[i];
        }
    }
    total
}

#[test]
fn a_sum_with_a_zero_adjoint_adds_nothing() {
    let x = [1.0, 2.0, 0.5];
    let (value, gradient) = unused_sum_with_singular_terms_grad(&x);
    assert_eq!(value, 5.0);
    assert_eq!(gradient, vec![2.0, 4.0, 0.0]);
    check(
        unused_sum_with_singular_terms,
        unused_sum_with_singular_terms_grad,
        unused_sum_with_singular_terms_adjoint,
    );
}

/// A convolution through a ReLU: the inner sums of the units at rest are
/// reversed with a zero seed, and skipped.
#[differentiable]
fn convolution_relu(x: &[f64]) -> f64 {
    let w = [0.5, -0.25, 0.75];
    let mut loss = 0.0;
    for i in 0..x.len() - 2 {
        let mut s = 0.0;
        for t in 0..3 {
            s += w[t] * x[i + t];
        }
        let a = s.max(0.0);
        loss += (a - 0.1) * (a - 0.1);
    }
    loss
}

/// k-means: each point's squared distance to its nearest center (a running
/// minimum in the fused loop over points; the losers' distance sums are
/// reversed with a zero seed).
#[differentiable]
fn nearest_center(x: &[f64]) -> f64 {
    let points = [0.3, -1.1, 0.8, 2.0, -0.4, 1.5];
    let mut loss = 0.0;
    for i in 0..points.len() {
        let mut best = 1.0e300;
        for c in 0..x.len() {
            let mut s = 0.0;
            for t in 0..2 {
                let e = points[(i + t) % 6] - x[c] * (t as f64 + 1.0);
                s += e * e;
            }
            if s < best {
                best = s;
            }
        }
        loss += best;
    }
    loss
}

#[test]
fn zero_seeds_where_units_rest_and_centers_lose() {
    check(
        convolution_relu,
        convolution_relu_grad,
        convolution_relu_adjoint,
    );
    check(nearest_center, nearest_center_grad, nearest_center_adjoint);
}
