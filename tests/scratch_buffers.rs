//! Scratch buffers that every iteration of a loop fills before reading
//! (`autograd-macros/src/lower/buffers.rs`): a `vec!` declared inside the
//! loop is lowered as declared before it, a fixed-size array or a buffer
//! given to a call declared before the loop as declared inside it. Each
//! function is checked against central finite differences, `_adjoint`
//! against `_grad`, and, where the same function is written both ways,
//! the two gradients bit for bit. Buffers that carry values from one
//! iteration to the next stay where they are, and keep their values.
//! Helpers given two parts of one array get zeroed scratch slots (on the
//! stack up to 16 elements, `SlotScratch`): both lengths are tested.
//! Constant data given to a helper per sample gets its scratch slot in the
//! function's slot pool (`__private::SlotPool`, a buffer per slot position
//! of a call): several at once, more than the pool has, and arrays.

#![allow(clippy::needless_range_loop, clippy::useless_vec)]

mod common;

use autograd::differentiable;
use common::check_gradient_and_adjoint;

const POINTS: [[f64; 9]; 3] = [
    [0.0, 0.1, -0.2, 1.1, 0.05, 0.1, 0.3, 1.2, -0.1],
    [0.2, -0.1, 0.0, 0.9, 0.2, -0.3, -0.4, 1.0, 0.6],
    [-0.3, 0.4, 0.1, 1.0, -0.2, 0.2, 0.5, -0.9, 0.3],
];

#[differentiable]
fn pair(r2: f64) -> f64 {
    let s6 = 1.0 / (r2 * r2 * r2);
    4.0 * (s6 * s6 - s6)
}

/// A Lennard-Jones energy with a cutoff, its displacement in an array
/// declared before the pair loop (was replayed with an undo tape).
#[differentiable]
fn energy_scratch_before(pos: &[f64]) -> f64 {
    let n = pos.len() / 3;
    let mut d = [0.0; 3];
    let mut energy = 0.0;
    for i in 0..n {
        for j in (i + 1)..n {
            for k in 0..3 {
                d[k] = pos[3 * i + k] - pos[3 * j + k];
            }
            let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            if r2 > 1.5 {
                continue;
            }
            energy += pair(r2) - pair(1.5);
        }
    }
    energy
}

/// The same, the array declared where it is used.
#[differentiable]
fn energy_scratch_inside(pos: &[f64]) -> f64 {
    let n = pos.len() / 3;
    let mut energy = 0.0;
    for i in 0..n {
        for j in (i + 1)..n {
            let mut d = [0.0; 3];
            for k in 0..3 {
                d[k] = pos[3 * i + k] - pos[3 * j + k];
            }
            let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            if r2 > 1.5 {
                continue;
            }
            energy += pair(r2) - pair(1.5);
        }
    }
    energy
}

#[test]
fn a_scratch_array_before_a_pair_loop_is_the_pairs_own() {
    check_gradient_and_adjoint(
        energy_scratch_before,
        energy_scratch_before_grad,
        energy_scratch_before_adjoint,
        &POINTS,
    );
    for x in &POINTS {
        assert_eq!(energy_scratch_before_grad(x), energy_scratch_inside_grad(x));
    }
}

/// Squared distances to two centres through per-centre buffers declared
/// inside the loops, a per-point buffer of scores, a log-sum-exp.
#[differentiable(wrt(c))]
fn soft_min_inside(c: &[f64], x: &[f64]) -> f64 {
    let d = 3;
    let k = c.len() / d;
    let mut total = 0.0;
    for i in 0..x.len() / d {
        let mut score = vec![0.0; k];
        for m in 0..k {
            let mut diff = vec![0.0; d];
            for j in 0..d {
                diff[j] = x[i * d + j] - c[m * d + j];
            }
            let mut sq = 0.0;
            for j in 0..d {
                sq += diff[j] * diff[j];
            }
            score[m] = -sq;
        }
        let mut mx = score[0];
        for m in 1..k {
            mx = mx.max(score[m]);
        }
        let mut s = 0.0;
        for m in 0..k {
            s += (score[m] - mx).exp();
        }
        total += s.ln() + mx;
    }
    total
}

/// The same, the buffers declared once before the loops.
#[differentiable(wrt(c))]
fn soft_min_before(c: &[f64], x: &[f64]) -> f64 {
    let d = 3;
    let k = c.len() / d;
    let mut total = 0.0;
    let mut score = vec![0.0; k];
    let mut diff = vec![0.0; d];
    for i in 0..x.len() / d {
        for m in 0..k {
            for j in 0..d {
                diff[j] = x[i * d + j] - c[m * d + j];
            }
            let mut sq = 0.0;
            for j in 0..d {
                sq += diff[j] * diff[j];
            }
            score[m] = -sq;
        }
        let mut mx = score[0];
        for m in 1..k {
            mx = mx.max(score[m]);
        }
        let mut s = 0.0;
        for m in 0..k {
            s += (score[m] - mx).exp();
        }
        total += s.ln() + mx;
    }
    total
}

const DATA: [f64; 12] = [0.1, 0.2, 0.3, -0.5, 0.4, 1.0, 0.9, -0.7, 0.2, 0.0, 0.0, 0.5];

#[test]
fn vec_buffers_inside_loops_are_one_buffer_before_them() {
    let grad = |c: &[f64]| soft_min_inside_grad(c, &DATA);
    let adjoint =
        |c: &[f64], d_out: f64, d_c: &mut [f64]| soft_min_inside_adjoint(c, &DATA, d_out, d_c);
    check_gradient_and_adjoint(|c| soft_min_inside(c, &DATA), grad, adjoint, &POINTS);
    for c in &POINTS {
        assert_eq!(
            soft_min_inside_grad(c, &DATA),
            soft_min_before_grad(c, &DATA)
        );
    }
}

#[differentiable]
fn lse(z: &[f64]) -> f64 {
    let mut m = z[0];
    for &v in z {
        m = m.max(v);
    }
    let s: f64 = z.iter().map(|&v| (v - m).exp()).sum();
    m + s.ln()
}

/// A buffer declared before a per-sample loop and given to a helper: the
/// loop is fused once it is the sample's own.
#[differentiable(wrt(w))]
fn softmax_loss(w: &[f64], xs: &[f64]) -> f64 {
    let classes = 3;
    let mut logits = vec![0.0; classes];
    let mut total = 0.0;
    for s in 0..xs.len() {
        for c in 0..classes {
            logits[c] = w[c] * xs[s] + w[classes + c];
        }
        total += lse(&logits) - logits[s % classes];
    }
    total / xs.len() as f64
}

#[test]
fn a_buffer_given_to_a_helper_is_the_samples_own() {
    let grad = |w: &[f64]| softmax_loss_grad(&w[..6], &DATA);
    let adjoint = |w: &[f64], d_out: f64, d_w: &mut [f64]| {
        softmax_loss_adjoint(&w[..6], &DATA, d_out, &mut d_w[..6])
    };
    let points: Vec<[f64; 6]> = POINTS.iter().map(|p| p[..6].try_into().unwrap()).collect();
    check_gradient_and_adjoint(|w| softmax_loss(&w[..6], &DATA), grad, adjoint, &points);
}

/// Buffers that carry values from one iteration to the next stay before
/// their loop: read before the fill, filled in part, filled by a loop that
/// may stop early, read after the loop.
#[differentiable]
fn carried_buffers(x: &[f64]) -> f64 {
    let n = 3;
    let mut h = vec![0.0; n];
    let mut part = vec![0.0; n];
    let mut early = [0.0; 3];
    let mut s = 0.0;
    for t in 0..x.len() {
        s += h[0] * x[t];
        for j in 0..n {
            h[j] = (x[t] * x[j] + h[j]).tanh();
        }
        for j in 1..n {
            part[j] = x[t] * x[j];
        }
        s += part[0] + part[2];
        for j in 0..3 {
            if x[j] > 1.05 {
                break;
            }
            early[j] = x[t] + x[j];
        }
        s += early[0] * early[1];
    }
    s + h[1] + part[1]
}

#[test]
fn buffers_that_carry_values_keep_them() {
    check_gradient_and_adjoint(
        carried_buffers,
        carried_buffers_grad,
        carried_buffers_adjoint,
        &POINTS,
    );
}

/// A helper given two parts of one array in one call: its slots are
/// scratch, merged after the call.
#[differentiable]
fn spring(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for k in 0..a.len() {
        let d = a[k] - b[k];
        s += d * d;
    }
    (s + 0.1).sqrt()
}

#[differentiable]
fn chain_of_points(x: &[f64], dim: usize) -> f64 {
    let n = x.len() / dim;
    let mut e = 0.0;
    for i in 0..n {
        for j in (i + 1)..n {
            e += spring(&x[dim * i..dim * (i + 1)], &x[dim * j..dim * (j + 1)]);
        }
    }
    e
}

#[test]
fn two_parts_of_one_array_in_one_call_short_and_long() {
    // three points of three coordinates: slots on the stack
    let grad = |x: &[f64]| chain_of_points_grad(x, 3);
    let adjoint =
        |x: &[f64], d_out: f64, d_x: &mut [f64]| chain_of_points_adjoint(x, 3, d_out, d_x);
    check_gradient_and_adjoint(|x| chain_of_points(x, 3), grad, adjoint, &POINTS);
    // three points of 20 coordinates: slots on the heap
    let long: Vec<[f64; 60]> = (0..2)
        .map(|p| std::array::from_fn(|i| ((i * 7 + p * 3) % 11) as f64 * 0.1 - 0.4))
        .collect();
    let grad = |x: &[f64]| chain_of_points_grad(x, 20);
    let adjoint =
        |x: &[f64], d_out: f64, d_x: &mut [f64]| chain_of_points_adjoint(x, 20, d_out, d_x);
    check_gradient_and_adjoint(|x| chain_of_points(x, 20), grad, adjoint, &long);
}

/// Flags in an array, read and changed in a loop of a literal count: the
/// loop is written out and the array, read and changed at literal indices
/// only, is three `bool` locals (it was refused, "changed after it is
/// read").
#[differentiable]
fn first_visits(x: &[f64]) -> f64 {
    let mut seen = [false; 3];
    let mut s = 0.0;
    for i in 0..6 {
        if !seen[i % 3] {
            s += x[i % 3] * x[i % 3];
        }
        seen[i % 3] = true;
        s += x[i % 3];
    }
    s
}

#[test]
fn flags_at_literal_indices_are_values() {
    check_gradient_and_adjoint(
        first_visits,
        first_visits_grad,
        first_visits_adjoint,
        &POINTS,
    );
    let x = POINTS[0];
    let (_, g) = first_visits_grad(&x);
    for k in 0..3 {
        assert_eq!(g[k], 2.0 * x[k] + 2.0);
    }
}

/// Time steps that swap their grids (`std::mem::swap`, `(cur, next) =
/// (next, cur)`): the elements swapped in one loop.
#[differentiable]
fn swapped_steps(x: &[f64]) -> f64 {
    let n = x.len();
    let mut cur = x.to_vec();
    let mut next = vec![0.0; n];
    for _ in 0..3 {
        for i in 1..n - 1 {
            next[i] = cur[i] + 0.2 * (cur[i - 1] + cur[i + 1] - 2.0 * cur[i]) * cur[i].cos();
        }
        std::mem::swap(&mut cur, &mut next);
    }
    let mut s = 0.0;
    for i in 0..n {
        s += cur[i] * cur[i] + next[i];
    }
    s
}

#[test]
fn swapped_grids_are_swapped_element_by_element() {
    check_gradient_and_adjoint(
        swapped_steps,
        swapped_steps_grad,
        swapped_steps_adjoint,
        &POINTS,
    );
}

/// Buffers of different lengths swapped: the function swaps them, its
/// derivative cannot (element by element) and says so.
#[differentiable]
fn swapped_unequal(x: &[f64]) -> f64 {
    let mut a = x.to_vec();
    let mut b = vec![0.0; 1];
    std::mem::swap(&mut a, &mut b);
    b[0] * a[0]
}

#[test]
#[should_panic(expected = "swaps `a` and `b` element by element: the lengths must be equal")]
fn buffers_of_different_lengths_are_not_swapped_silently() {
    assert_eq!(swapped_unequal(&[2.0, 3.0]), 0.0);
    let _ = swapped_unequal_grad(&[2.0, 3.0]);
}

// ----- constant data given to helpers per sample: the slot pool --------------

/// Differentiates every argument: a caller giving it constant rows gives
/// each a scratch slot.
#[differentiable]
fn weighted(a: &[f64], b: &[f64], c: &[f64], e: &[f64], g: &[f64], w: &[f64]) -> f64 {
    let mut s = 0.0;
    for k in 0..w.len() {
        s += a[k] * w[k] + b[k] * w[k] * w[k] - c[k] * e[k] * w[k] + g[k];
    }
    s
}

/// Five constant rows per sample given to one call: four scratch slots
/// from the pool at once (`s0` .. `s3`), the fifth a scratch of its own.
#[differentiable(wrt(w))]
fn five_constant_rows(w: &[f64], xs: &[f64]) -> f64 {
    let d = w.len();
    let mut total = 0.0;
    for i in 0..xs.len() / d - 4 {
        total += weighted(
            &xs[i * d..(i + 1) * d],
            &xs[(i + 1) * d..(i + 2) * d],
            &xs[(i + 2) * d..(i + 3) * d],
            &xs[(i + 3) * d..(i + 4) * d],
            &xs[(i + 4) * d..(i + 5) * d],
            w,
        )
        .sin();
    }
    total
}

/// The same written out by hand.
fn five_constant_rows_gradient(w: &[f64], xs: &[f64]) -> Vec<f64> {
    let d = w.len();
    let mut grad = vec![0.0; d];
    for i in 0..xs.len() / d - 4 {
        let row = |k: usize| &xs[(i + k) * d..(i + k + 1) * d];
        let s = weighted(row(0), row(1), row(2), row(3), row(4), w);
        for k in 0..d {
            let ds = row(0)[k] + 2.0 * row(1)[k] * w[k] - row(2)[k] * row(3)[k];
            grad[k] += s.cos() * ds;
        }
    }
    grad
}

#[test]
fn more_constant_rows_than_the_pool_has_slots() {
    let w = [0.3, -0.7, 1.1];
    let xs: Vec<f64> = (0..27).map(|i| (i as f64 * 0.37).sin()).collect();
    let (value, gradient) = five_constant_rows_grad(&w, &xs);
    assert_eq!(value, five_constant_rows(&w, &xs));
    let expected = five_constant_rows_gradient(&w, &xs);
    for (g, e) in gradient.iter().zip(&expected) {
        assert!(
            (g - e).abs() <= 1e-12 * (1.0 + e.abs()),
            "{gradient:?} against {expected:?}"
        );
    }
    let mut d_w = [0.5; 3];
    assert_eq!(five_constant_rows_adjoint(&w, &xs, 2.0, &mut d_w), value);
    for (d, g) in d_w.iter().zip(&gradient) {
        assert!((d - (0.5 + 2.0 * g)).abs() <= 1e-12 * (1.0 + g.abs()));
    }
}

#[differentiable]
fn bond(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    let r2 = (a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2);
    (-r2).exp()
}

/// A fixed point outside `wrt` given to a helper taking arrays, in a loop
/// and out, once twice in one call: its slots are arrays on the stack
/// (`Lazy<[f64; 3]>` of the pooled candidate).
#[differentiable(wrt(x))]
fn bonds_to_a_fixed_point(x: &[f64], anchor: &[f64; 3], sites: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..x.len() / 3 {
        let p = [x[3 * i], x[3 * i + 1], x[3 * i + 2]];
        total += bond(&p, anchor);
        let site = [sites[3 * i], sites[3 * i + 1], sites[3 * i + 2]];
        total += 0.5 * bond(&site, &p);
    }
    total + bond(anchor, anchor) * x[0]
}

#[test]
fn constant_arrays_given_to_array_slots() {
    let anchor = [0.1, -0.2, 0.3];
    let sites = [0.5, 0.0, -0.5, 1.0, 0.25, 0.0];
    check_gradient_and_adjoint(
        |x| bonds_to_a_fixed_point(x, &anchor, &sites),
        |x| bonds_to_a_fixed_point_grad(x, &anchor, &sites),
        |x, d, g| bonds_to_a_fixed_point_adjoint(x, &anchor, &sites, d, g),
        &[
            [0.0, 0.1, -0.2, 1.1, 0.05, 0.1],
            [0.2, -0.1, 0.0, 0.9, 0.2, -0.3],
        ],
    );
}
