//! Local buffers: construction, element reads and writes (also inside
//! loops and branches), against finite differences and exact values.

#![allow(clippy::needless_range_loop, clippy::useless_vec)]

mod common;

use autograd::differentiable;
use common::assert_gradient;

#[differentiable]
fn literal_arrays(x: f64, y: f64) -> f64 {
    let a = [x, y * 2.0, 3.0];
    let v = vec![x * y, 1.0];
    a[0] * a[1] + a[2] * v[0] - v[1] * (a.len() as f64)
}

#[test]
fn array_and_vec_literals() {
    let (value, (dx, dy)) = literal_arrays_grad(2.0, 3.0);
    assert_eq!(value, literal_arrays(2.0, 3.0));
    // 2x y + 3 x y - 3
    assert_eq!((value, dx, dy), (27.0, 15.0, 10.0));
}

#[differentiable]
fn filled_buffers(x: &[f64], n: usize) -> f64 {
    let mut squares = [0.0; 4];
    let mut sums = vec![0.0; n];
    for i in 0..4 {
        squares[i] = x[i] * x[i];
    }
    for i in 0..n {
        sums[i] = squares[i % 4] + x[(i + 1) % 4];
        sums[i] *= 0.5;
    }
    let mut total = 0.0;
    for i in 0..n {
        total += sums[i] * sums[i];
    }
    total
}

#[test]
fn fill_then_write_then_read() {
    let x = [0.5, -1.5, 2.0, 0.25];
    let (value, dx) = filled_buffers_grad(&x, 6);
    assert_eq!(value, filled_buffers(&x, 6));
    assert_gradient(|v| filled_buffers(v, 6), &x, &dx);
}

#[differentiable]
fn cumulative(x: &[f64]) -> f64 {
    let mut a = x.to_vec();
    for i in 1..a.len() {
        a[i] += a[i - 1] * a[i];
    }
    a[a.len() - 1]
}

#[test]
fn cumulative_recurrence_overwrites_in_place() {
    for x in [
        vec![0.5, 1.5, -0.5, 2.0],
        vec![1.1, 0.9, 1.2, 0.7, 1.3, -0.4],
    ] {
        let (value, dx) = cumulative_grad(&x);
        assert_eq!(value, cumulative(&x));
        assert_gradient(cumulative, &x, &dx);
    }
}

#[differentiable]
fn writes_in_branches(x: &[f64]) -> f64 {
    let mut b = [0.0; 3];
    for i in 0..3 {
        if x[i] > 0.0 {
            b[i] = x[i].sqrt();
        } else {
            b[i] = -x[i] * x[i];
        }
        if i > 0 {
            b[i] += b[i - 1] * 0.5;
        }
    }
    b[0] * b[1] + b[2]
}

#[test]
fn element_writes_under_branches() {
    for x in [[0.5, 2.0, 1.5], [-1.0, 0.3, -2.0], [1.2, -0.7, 0.9]] {
        let (value, dx) = writes_in_branches_grad(&x);
        assert_eq!(value, writes_in_branches(&x));
        assert_gradient(writes_in_branches, &x, &dx);
    }
}

#[differentiable(wrt(w))]
fn buffer_per_iteration(w: &[f64], data: &[f64]) -> f64 {
    // A tiny two-layer net per sample: hidden buffer declared in the loop.
    let mut loss = 0.0;
    for n in 0..data.len() {
        let mut h = [0.0; 3];
        for j in 0..3 {
            let s = w[j] * data[n] + w[3 + j];
            h[j] = s.max(0.0);
        }
        let mut out = w[9];
        for j in 0..3 {
            out += w[6 + j] * h[j];
        }
        loss += (out - 1.0) * (out - 1.0);
    }
    loss
}

#[test]
fn hidden_buffers_inside_loops() {
    let w = [0.5, -0.3, 0.8, 0.1, 0.2, -0.1, 1.0, -0.5, 0.7, 0.05];
    let data = [0.3, -1.0, 2.0, 0.7];
    let (value, dw) = buffer_per_iteration_grad(&w, &data);
    assert_eq!(value, buffer_per_iteration(&w, &data));
    assert_gradient(|v| buffer_per_iteration(v, &data), &w, &dw);
}

#[differentiable]
fn local_copy(x: [f64; 3]) -> f64 {
    let mut a = [x[0], x[1], x[2]];
    let b = a;
    a[0] = a[1] * a[2];
    b[0] * a[0] + b[1]
}

#[test]
fn a_copy_does_not_see_later_writes() {
    let (value, dx) = local_copy_grad([2.0, 3.0, 4.0]);
    // b = (2, 3, 4); a[0] = 12: value 2·12 + 3 = 27
    assert_eq!(value, 27.0);
    assert_eq!(dx, [12.0, 1.0 + 8.0, 6.0]);
}

// ----- arrays of integers and booleans: constants the function indexes -----

/// A permutation as a literal, read into a local and used as an index.
#[differentiable]
fn permuted_products(x: &[f64]) -> f64 {
    let order = [2usize, 0, 1];
    let mut s = 0.0;
    for j in 0..order.len() {
        let at = order[j];
        s += x[at] * x[j];
    }
    s
}

/// The same permutation typed, and as a `vec!` iterated with `enumerate`.
#[differentiable]
fn permuted_products_vec(x: &[f64]) -> f64 {
    let typed: [usize; 3] = [2, 0, 1];
    let order = vec![2usize, 0, 1];
    let mut s = 0.0;
    for (j, &at) in order.iter().enumerate() {
        s += x[at] * x[j] + 0.5 * x[typed[j]].sin();
    }
    s
}

/// A mask of booleans, a filled one, and an array of integer locals.
#[differentiable]
fn masked(x: &[f64], n: usize) -> f64 {
    let mask = [true, false, true];
    let every = vec![true; n];
    let (i, j) = (2usize, 0usize);
    let pair = [i, j];
    let mut s = x[pair[0]] * x[pair[1]];
    for k in 0..3 {
        if mask[k] && every[k] {
            s += x[k] * x[k];
        }
    }
    s
}

#[test]
fn arrays_of_integers_and_booleans_are_constants() {
    let x = [0.7, -1.3, 0.4];
    let mut dx = [0.0; 3];
    let value = permuted_products_adjoint(&x, 1.0, &mut dx);
    // Σ_j x[order[j]] x[j] = x2 x0 + x0 x1 + x1 x2
    assert_eq!(value, permuted_products(&x));
    assert_eq!(dx, [x[1] + x[2], x[0] + x[2], x[0] + x[1]]);
    assert_gradient(permuted_products, &x, &dx);
    let mut dx = [0.0; 3];
    assert_eq!(
        permuted_products_vec_adjoint(&x, 1.0, &mut dx),
        permuted_products_vec(&x)
    );
    assert_gradient(permuted_products_vec, &x, &dx);
    let mut dx = [0.0; 3];
    assert_eq!(masked_adjoint(&x, 3, 1.0, &mut dx), masked(&x, 3));
    assert_eq!(dx, [x[2] + 2.0 * x[0], 0.0, x[0] + 2.0 * x[2]]);
}

// ----- locals changed in place before they are read (`lower/in_place.rs`) -----

/// A list of indices built with `push`, then read by a later loop.
#[differentiable]
fn pushed_indices(x: &[f64]) -> f64 {
    let mut idx = Vec::new();
    for i in 0..x.len() {
        if i % 2 == 0 {
            idx.push(i);
        }
    }
    let mut s = 0.0;
    for &i in idx.iter() {
        s += x[i] * x[i];
    }
    s
}

/// A table of integers filled element by element, a count kept with
/// `+=`, and a sort: each before the statements that read them.
#[differentiable]
fn filled_tables(x: &[f64], n: usize) -> f64 {
    let mut order = [0usize; 3];
    for i in 0..3 {
        order[i] = 2 - i;
    }
    let mut counts = vec![0usize; 3];
    for i in 0..n {
        counts[i % 3] += 1;
    }
    let mut ranks = vec![2usize, 0, 1];
    ranks.sort();
    let mut s = 0.0;
    for (k, &o) in order.iter().enumerate() {
        s += x[o] * counts[k] as f64 + x[ranks[k]].sin();
    }
    s
}

#[test]
fn locals_changed_before_they_are_read() {
    let x = [0.7, -1.3, 0.4];
    let mut dx = [0.0; 3];
    assert_eq!(pushed_indices_adjoint(&x, 1.0, &mut dx), pushed_indices(&x));
    assert_eq!(dx, [2.0 * x[0], 0.0, 2.0 * x[2]]);
    let mut dx = [0.0; 3];
    // order = [2, 1, 0], counts = [3, 2, 2] (n = 7), ranks = [0, 1, 2]
    assert_eq!(
        filled_tables_adjoint(&x, 7, 1.0, &mut dx),
        filled_tables(&x, 7)
    );
    let expected = [2.0 + x[0].cos(), 2.0 + x[1].cos(), 3.0 + x[2].cos()];
    assert_eq!(dx, expected);
    assert_gradient(|v| filled_tables(v, 7), &x, &dx);
}

// ----- whole arrays assigned ----------------------------------------------------

/// A planar arm: the cumulative rotation assigned whole, from a new array
/// computed from the old one (`rot = next;`).
#[differentiable(hessian)]
fn arm(angles: &[f64]) -> f64 {
    let mut rot = [1.0, 0.0, 0.0, 1.0];
    let mut reach = 0.0;
    for &a in angles {
        let (s, c) = a.sin_cos();
        let next = [
            rot[0] * c + rot[1] * s,
            rot[1] * c - rot[0] * s,
            rot[2] * c + rot[3] * s,
            rot[3] * c - rot[2] * s,
        ];
        rot = next;
        reach += rot[0] * a + rot[2];
    }
    reach
}

/// An oscillator stepped with an array literal that reads the state it
/// replaces, and double buffering of `Vec`s (`u = next.clone();`,
/// `u = next.to_vec();`).
#[differentiable]
fn stepped_states(x: &[f64]) -> f64 {
    let mut state = [x[0], x[1]];
    for _ in 0..5 {
        state = [state[0] + 0.1 * state[1], state[1] - 0.1 * x[2] * state[0]];
    }
    let mut u = vec![x[3], x[4], x[5]];
    let mut next = vec![0.0; 3];
    for step in 0..4 {
        for i in 0..3 {
            next[i] = u[i] + 0.2 * (u[(i + 1) % 3] - u[i]).sin();
        }
        if step % 2 == 0 {
            u = next.clone();
        } else {
            u = next.to_vec();
        }
    }
    state[0] * state[1] + u[0] * u[2]
}

#[test]
fn whole_arrays_assigned_element_by_element() {
    for angles in [[0.3, -0.7, 1.1, 0.4], [1.2, 0.5, -0.2, -1.4]] {
        let (value, gradient) = arm_grad(&angles);
        assert_eq!(value, arm(&angles));
        assert_gradient(arm, &angles, &gradient);
        let (_, _, hessian) = arm_hessian(&angles);
        let report = autograd::check::hessian(|a| arm_grad(a).1, &angles, &hessian);
        assert!(report.is_ok(1e-5), "{report}");
    }
    for x in [
        [0.7, -1.3, 0.4, 1.9, -0.6, 1.1],
        [1.2, 0.3, -0.8, 0.5, 2.1, -0.2],
    ] {
        let (value, gradient) = stepped_states_grad(&x);
        assert_eq!(value, stepped_states(&x));
        assert_gradient(stepped_states, &x, &gradient);
    }
}

/// A `Vec` given one of another length: valid Rust, which copying the
/// elements does not stand for; the gradient panics saying so.
#[differentiable]
fn longer_vec(x: f64) -> f64 {
    let mut u = vec![x, 2.0 * x];
    let w = vec![x, x * x, 3.0];
    u = w;
    u[2] * x
}

#[test]
#[should_panic(expected = "assigns `u = w` element by element: the lengths must be equal")]
fn a_vec_of_another_length_panics() {
    assert_eq!(longer_vec(2.0), 6.0);
    longer_vec_grad(2.0);
}

/// A Lorenz system stepped by explicit Euler: the derivative `d`, an array
/// literal read by literal indices, becomes three values (`syntax::
/// split_array_locals`), so the loop declares no array and is recorded;
/// `w`, indexed by the loop's index, stays an array.
#[differentiable(hessian)]
fn lorenz(p: &[f64]) -> f64 {
    let (sigma, rho, beta) = (p[0], p[1], p[2]);
    let mut s = [1.0, 1.0, 1.0];
    let w = [0.5, 1.5, 1.0];
    let mut loss = 0.0;
    for t in 0..12 {
        let d = [
            sigma * (s[1] - s[0]),
            s[0] * (rho - s[2]) - s[1],
            s[0] * s[1] - beta * s[2],
        ];
        s = [s[0] + 0.01 * d[0], s[1] + 0.01 * d[1], s[2] + 0.01 * d[2]];
        loss += w[t % 3] * (s[0] - (t as f64 * 0.1).sin()).powi(2) + 0.01 * d.len() as f64;
    }
    loss
}

#[test]
fn array_literals_read_by_literal_indices() {
    for p in [[10.0, 28.0, 2.6], [8.0, 20.0, 1.5], [12.0, 30.0, 3.0]] {
        let (value, gradient) = lorenz_grad(&p);
        assert_eq!(value, lorenz(&p));
        assert_gradient(lorenz, &p, &gradient);
        let (_, _, hessian) = lorenz_hessian(&p);
        let report = autograd::check::hessian(|p| lorenz_grad(p).1, &p, &hessian);
        assert!(report.is_ok(1e-5), "{report}");
    }
}

// Two buffers swapped by a tuple assignment, fixed-size and `Vec`: every
// part is read before anything is assigned, so `next` gets the old `cur`
// (the fixed-size version gave a value and gradient off by 4e-3 until
// 2026-11-28 — `next` got the new `cur` — and the `Vec` one did not
// compile, E0382).
#[differentiable]
fn swapped_arrays(x: &[f64]) -> f64 {
    let mut cur = [x[0], x[1], x[2]];
    let mut next = [0.0; 3];
    for _ in 0..3 {
        for i in 0..3 {
            next[i] = 0.5 * cur[i] + 0.5 * cur[(i + 1) % 3].tanh();
        }
        (cur, next) = (next, cur);
    }
    let mut s = 0.0;
    for i in 0..3 {
        s += cur[i] * cur[i] + 0.3 * next[i];
    }
    s
}

#[differentiable]
fn swapped_vecs(x: &[f64]) -> f64 {
    let n = x.len();
    let mut cur = x.to_vec();
    let mut next = vec![0.0; n];
    for _ in 0..3 {
        for i in 0..n {
            next[i] = 0.5 * cur[i] + 0.5 * cur[(i + 1) % n].tanh();
        }
        (cur, next) = (next, cur);
    }
    let mut s = 0.0;
    for i in 0..n {
        s += cur[i] * cur[i] + 0.3 * next[i];
    }
    s
}

#[test]
fn buffers_swapped_by_a_tuple_assignment() {
    for x in [[0.3, -0.4, 0.5], [1.2, 0.1, -0.9]] {
        let (value, gradient) = swapped_arrays_grad(&x);
        assert_eq!(value, swapped_arrays(&x));
        assert_gradient(swapped_arrays, &x, &gradient);
        let (value, gradient) = swapped_vecs_grad(&x);
        assert_eq!(value, swapped_vecs(&x));
        assert_gradient(swapped_vecs, &x, &gradient);
    }
}
