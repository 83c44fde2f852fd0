//! Arrays declared inside recorded loop nests (`autograd-macros/src/
//! record.rs`, `Shaped`): a stage state `let mut ys = [0.0; 4];` or a
//! helper's returned array `let k1 = rhs(&y, p);` in the body of a time
//! step, a `vec![0.0; n]` buffer per step. The nest's reverse runs after
//! the whole nest, where such an array is out of scope: the forward sweep
//! records its shape, the reverse makes its adjoint (and the twin a call's
//! adjoint is given) from it. Until 2026-11-28 a nest declaring an array
//! was replayed, and one given a call's returned array did not compile
//! (E0425: the reverse named the array to size its adjoint).
//!
//! Each function is written twice from one body, as is (recorded) and
//! inside an `if` (replayed), checked against central finite differences
//! and against each other (`common::recorded_and_replayed!`).

#![allow(
    clippy::needless_range_loop,
    clippy::useless_vec,
    clippy::manual_memcpy
)]

#[macro_use]
mod common;

use autograd::differentiable;
use common::check_gradient_and_adjoint;

const POINTS: [[f64; 6]; 3] = [
    [0.7, -1.3, 0.4, 1.9, -0.6, 1.1],
    [1.2, 0.3, -0.8, 0.5, 2.1, -0.2],
    [-0.4, 0.9, 1.6, -1.1, 0.2, 0.8],
];

/// A predator–prey right-hand side, vector-valued.
#[differentiable]
fn rhs(y: &[f64; 2], p: &[f64]) -> [f64; 2] {
    [
        p[0] * y[0] - p[1] * y[0] * y[1],
        -p[2] * y[1] + p[3] * y[0] * y[1],
    ]
}

/// The same, returning a `Vec`.
#[differentiable]
fn rhs_vec(y: &[f64], p: &[f64]) -> Vec<f64> {
    vec![
        p[0] * y[0] - p[1] * y[0] * y[1],
        -p[2] * y[1] + p[3] * y[0] * y[1],
    ]
}

// Heun's method through a helper: the returned arrays and a stage state
// declared every step (the 2026-11-28 E0425).
recorded_and_replayed!(heun_through_a_helper: heun, heun_grad, heun_adjoint;
    heun_replayed, heun_replayed_grad, heun_replayed_adjoint; |x| {
    let mut y = [x[4], x[5]];
    let mut loss = 0.0;
    for s in 0..6 {
        let k1 = rhs(&y, x);
        let mut ys = [0.0; 2];
        for i in 0..2 {
            ys[i] = y[i] + 0.1 * k1[i];
        }
        let k2 = rhs(&ys, x);
        for i in 0..2 {
            y[i] += 0.05 * (k1[i] + k2[i]);
        }
        let e = y[0] - 0.1 * s as f64;
        loss += e * e;
    }
    loss
});

// The stage state as an array literal that nothing stores into: pushed
// whole at the end of its step and taken back for the step's reverse
// (`Keep::Restored`), where the call's adjoint is given it as it is.
recorded_and_replayed!(a_literal_stage_state: literal_stage, literal_stage_grad,
    literal_stage_adjoint; literal_stage_replayed, literal_stage_replayed_grad,
    literal_stage_replayed_adjoint; |x| {
    let mut y = [x[4], x[5]];
    let mut loss = 0.0;
    for _ in 0..5 {
        let k1 = rhs(&y, x);
        let y2 = [y[0] + 0.1 * k1[0], y[1] + 0.1 * k1[1]];
        let k2 = rhs(&y2, x);
        for i in 0..2 {
            y[i] += 0.05 * (k1[i] + k2[i]);
        }
        loss += y[0] * y[1];
    }
    loss
});

// Values the reverse reads from arrays nothing stores into: a returned
// array and a literal, taken back whole for the step's reverse and loaded
// again there (`Keep::Restored`; until 2026-11-28 their loads were
// recorded; before the first fix, the reverse loaded them again from
// arrays out of its scope: E0425, found by `tests/hygiene.rs`).
recorded_and_replayed!(values_read_from_unstored_arrays: unstored, unstored_grad,
    unstored_adjoint; unstored_replayed, unstored_replayed_grad, unstored_replayed_adjoint; |x| {
    let mut y = [x[4], x[5]];
    let mut total = 0.0;
    for t in 0..4 {
        let k = rhs(&y, x);
        let w = [k[0] * x[t], k[1]];
        for i in 0..2 {
            y[i] = (y[i] + 0.1 * k[i] * w[1 - i]).sin();
        }
        total += k[0] * k[1] + w[0].cos();
    }
    total
});

// Arrays nothing changes after their `let`, taken back whole for their
// block's reverse (`Keep::Restored`): a helper's returned array given to
// two calls and read non-linearly in a nested loop, a literal built from
// it given to a call, and one measured (`k.len()`): the reverse reads each
// where the forward sweep did, not a copy per call and a record per load.
recorded_and_replayed!(arrays_taken_back_whole: taken_back, taken_back_grad,
    taken_back_adjoint; taken_back_replayed, taken_back_replayed_grad,
    taken_back_replayed_adjoint; |x| {
    let mut y = [x[4], x[5]];
    let mut loss = 0.0;
    for s in 0..5 {
        let k = rhs(&y, x);
        let e = [k[0] * k[1], k[1].sin()];
        let k2 = rhs(&e, x);
        let k3 = rhs(&k, x);
        for j in 0..2 {
            let t = k[j] * e[j] + k2[j].cos() - 0.1 * k3[1 - j];
            y[j] += 0.05 * t;
        }
        let d = y[0] - 0.1 * s as f64;
        loss += d * d + k.len() as f64 * 0.01 * k2[0] * k2[1];
    }
    loss
});

// The same with `Vec`s, a loop over one's length, and an array declared in
// an inner loop's body (taken back for each of its iterations).
recorded_and_replayed!(vecs_taken_back_whole: vecs_back, vecs_back_grad, vecs_back_adjoint;
    vecs_back_replayed, vecs_back_replayed_grad, vecs_back_replayed_adjoint; |x| {
    let mut y = vec![x[4], x[5]];
    let mut loss = 0.0;
    for _ in 0..4 {
        let v = rhs_vec(&y, x);
        let w = rhs_vec(&v, x);
        for i in 0..v.len() {
            let u = [v[i] * w[i], y[i]];
            let z = rhs(&u, x);
            y[i] += 0.1 * (z[0] * u[0]).tanh();
        }
        loss += y[0] * w[1] - y[1] * y[1];
    }
    loss
});

// Arrays a step declares, fills, then only reads (a covariance built in
// one loop and used in the next): taken back whole for their block's
// reverse, and loaded again there, once nothing changes them any more
// (`record::settled_loads`); the loads made before their last change stay
// recorded. One is measured before it is filled (`a.len()`), one is
// changed in a second pass that reads itself, then given to a call, one is
// declared in a branch. (Until 2026-11-28 every load of them was recorded:
// a 3×3 Kalman filter's gradient, 3.10 → 2.58 times the hand-written one.)
recorded_and_replayed!(arrays_settled_after_filling: settled, settled_grad, settled_adjoint;
    settled_replayed, settled_replayed_grad, settled_replayed_adjoint; |x| {
    let mut y = [x[4], x[5]];
    let mut loss = 0.0;
    for s in 0..4 {
        let mut a = [0.0; 4];
        for i in 0..a.len() {
            for j in 0..2 {
                a[i] += x[(i + j) % 4] * y[j];
            }
        }
        let mut b = [0.0; 2];
        for i in 0..2 {
            b[i] = a[2 * i].sin() * a[i + 1];
        }
        for i in 0..2 {
            b[i] += b[1 - i] * b[i];
        }
        let k = rhs(&b, x);
        for j in 0..2 {
            y[j] = 0.5 * y[j] + 0.1 * (a[j + 2] * b[j] + k[j]).tanh();
        }
        if s % 2 == 0 {
            let mut c = [0.0; 2];
            for i in 0..2 {
                c[i] = y[i] * x[i];
            }
            loss += c[0].exp() * c[1];
        }
        loss += y[0] * y[1] + 0.01 * s as f64 * a[3];
    }
    loss
});

/// Two slices, one a part of the other.
#[differentiable]
fn head_and_tail(z: &[f64], tail: &[f64]) -> [f64; 2] {
    [z[0] * tail[1] + z[2], tail[0].tanh() * z[1]]
}

// A `Vec` a step declares, given to a call whole and as a subslice: the
// callee's adjoint fills a zeroed stand-in for each part of the `Vec`'s
// adjoint, which is a slice of its pool (`zeros_pooled`). E0277 until
// 2026-11-28 (no stand-in for a `&mut [f64]`): seed 1128001 #207 of the
// nests generator, pre-existing since the pools.
recorded_and_replayed!(a_pooled_adjoint_in_parts: pooled_parts, pooled_parts_grad,
    pooled_parts_adjoint; pooled_parts_replayed, pooled_parts_replayed_grad,
    pooled_parts_replayed_adjoint; |x| {
    let mut loss = 0.0;
    for r in 0..3 {
        let mut kn = vec![0.0; 3];
        for q in 0..3 {
            kn[q] = x[q] * x[(q + r) % 6];
        }
        let v = head_and_tail(&kn, &kn[1..]);
        loss -= v[0] * v[1];
    }
    loss
});

// Buffers a step declares and changes, read after by iterator chains
// (`r.iter().zip(&h)`, lowered to a loop over `0..r.len()`): the reverse
// reads only their lengths, from their recorded shapes (`Keep::Length`),
// so the time loop is recorded (it was replayed, its buffers allocated in
// both sweeps: a GRU written inline, 2.0–2.5× its hand-written gradient).
recorded_and_replayed!(lengths_of_changed_buffers: lengths_read, lengths_read_grad,
    lengths_read_adjoint; lengths_read_replayed, lengths_read_replayed_grad,
    lengths_read_replayed_adjoint; |x| {
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

// A helper returning a `Vec`: its shape is its length.
recorded_and_replayed!(a_returned_vec: returned_vec, returned_vec_grad, returned_vec_adjoint;
    returned_vec_replayed, returned_vec_replayed_grad, returned_vec_replayed_adjoint; |x| {
    let mut y = vec![x[4], x[5]];
    let mut loss = 0.0;
    for _ in 0..4 {
        let k = rhs_vec(&y, x);
        for i in 0..2 {
            y[i] += 0.1 * k[i];
        }
        loss += y[0] - y[1] * y[1];
    }
    loss
});

// An Elman step with its new state and outputs in buffers declared inside
// the step loop.
recorded_and_replayed!(buffers_declared_per_step: elman, elman_grad, elman_adjoint;
    elman_replayed, elman_replayed_grad, elman_replayed_adjoint; |x| {
    let mut h = vec![0.0; 3];
    let mut loss = 0.0;
    for t in 0..4 {
        let mut hnew = vec![0.0; 3];
        let mut out = [0.0; 2];
        for i in 0..3 {
            let mut s = x[i + 3] + 0.2 * t as f64;
            for k in 0..3 {
                s += x[(i + k) % 6] * h[k];
            }
            hnew[i] = s.tanh();
        }
        for i in 0..3 {
            h[i] = hnew[i];
        }
        for i in 0..2 {
            out[i] = h[i] * x[i + 1] + h[2];
        }
        loss += out[0] * out[0] + out[1];
    }
    loss
});

// A buffer whose length changes from one iteration to the next: the shape
// recorded is each iteration's own.
recorded_and_replayed!(a_buffer_growing_per_step: growing, growing_grad, growing_adjoint;
    growing_replayed, growing_replayed_grad, growing_replayed_adjoint; |x| {
    let mut total = 0.0;
    for t in 0..5 {
        let mut b = vec![0.0; t + 1];
        for i in 0..t + 1 {
            b[i] = x[i] * x[t];
        }
        for i in 0..t + 1 {
            total += b[i].sin() * (i + 1) as f64;
        }
    }
    total
});

// An array declared in a branch of the nest, and a copy of a carried
// state declared every step.
recorded_and_replayed!(declared_in_a_branch_and_copied: branchy, branchy_grad, branchy_adjoint;
    branchy_replayed, branchy_replayed_grad, branchy_replayed_adjoint; |x| {
    let mut state = [x[0], x[1], x[2]];
    let mut acc = 0.0;
    for t in 0..4 {
        if x[t] > 0.0 {
            let mut b = [0.0; 3];
            for i in 0..3 {
                b[i] = state[i] * x[t + 1];
            }
            for i in 0..3 {
                acc += b[i].sin();
            }
        } else {
            acc += x[t] * state[0];
        }
        let previous = state.to_vec();
        for i in 0..3 {
            state[i] = previous[(i + 1) % 3] * 0.9 + 0.1 * x[i + 3];
        }
    }
    acc + state[0] * state[2]
});

// A buffer of data the gradient does not flow through, declared per step
// (no adjoint, so no shape), and one read through its length (the reverse
// would read the array itself: the nest stays replayed).
recorded_and_replayed!(inactive_and_measured_buffers: inactive, inactive_grad, inactive_adjoint;
    inactive_replayed, inactive_replayed_grad, inactive_replayed_adjoint; |x| {
    let mut acc = 0.0;
    for t in 0..3 {
        let mut w = [0.0; 3];
        for i in 0..3 {
            w[i] = (i + t) as f64 * 0.5;
        }
        let mut v = vec![0.0; 2 + t];
        for i in 0..v.len() {
            v[i] = x[i] * w[i % 3];
        }
        for i in 0..v.len() {
            acc += v[i] * v[i];
        }
    }
    acc
});

// A nest in the body of a loop whose iterations each run forward, then
// reverse (a sum over samples, `fuse.rs`): its arrays are declared, and
// their shapes taken back, within one sample.
recorded_and_replayed!(declared_in_a_nest_of_a_sum_over_samples: per_sample, per_sample_grad,
    per_sample_adjoint; per_sample_replayed, per_sample_replayed_grad,
    per_sample_replayed_adjoint; |x| {
    let mut loss = 0.0;
    for s in 0..3 {
        let mut acc = x[s];
        for t in 0..3 {
            let mut b = [0.0; 2];
            for i in 0..2 {
                b[i] = (x[i + t] * acc).tanh();
            }
            let k = rhs(&b, x);
            let mut h = vec![0.0; 2];
            for i in 0..2 {
                h[i] = k[i] * b[1 - i];
            }
            acc += h[0] * h[1];
        }
        loss += acc.sin();
    }
    loss
});

// A buffer declared before the nest, overwritten every step and given to a
// helper (`copied_args`), in a body a `macro_rules!` writes: the twin the
// helper's adjoint is given is named in the expansion's hygiene context,
// not the body's (E0425 until 2026-11-28).
recorded_and_replayed!(a_copied_buffer_in_a_macro_body: copied_in_macro, copied_in_macro_grad,
    copied_in_macro_adjoint; copied_in_macro_replayed, copied_in_macro_replayed_grad,
    copied_in_macro_replayed_adjoint; |x| {
    let mut y = [x[4], x[5]];
    let mut total = 0.0;
    for t in 0..4 {
        for i in 0..2 {
            y[i] = (y[i] * x[i + t]).sin();
        }
        let k = rhs(&y, x);
        for i in 0..2 {
            total += k[i] * x[i];
        }
    }
    total
});

/// The Heun fit written with its arrays declared before the loop: the same
/// gradient bit for bit, which the recorded nest now computes without
/// replaying (`heun_through_a_helper` checks both against finite
/// differences and the replay).
#[differentiable]
fn heun_hoisted(x: &[f64]) -> f64 {
    let mut y = [x[4], x[5]];
    let mut loss = 0.0;
    let mut ys = [0.0; 2];
    for s in 0..6 {
        let k1 = rhs(&y, x);
        for i in 0..2 {
            ys[i] = y[i] + 0.1 * k1[i];
        }
        let k2 = rhs(&ys, x);
        for i in 0..2 {
            y[i] += 0.05 * (k1[i] + k2[i]);
        }
        let e = y[0] - 0.1 * s as f64;
        loss += e * e;
    }
    loss
}

#[test]
fn declaring_the_stage_state_inside_or_before_the_loop_gives_one_gradient() {
    check_gradient_and_adjoint(
        heun_hoisted,
        heun_hoisted_grad,
        heun_hoisted_adjoint,
        &POINTS,
    );
    for x in POINTS {
        assert_eq!(heun_grad(&x), heun_hoisted_grad(&x), "at {x:?}");
    }
}
