//! Local arrays that are written, then read, skip the undo tape
//! (`autograd-macros/src/undo.rs`). Each function here is on one side of
//! that rule or the other, or at its edge; every gradient is checked
//! against central finite differences, so a wrong classification shows up
//! as a wrong derivative.

#![allow(clippy::needless_range_loop)]

mod common;

use autograd::differentiable;
use common::assert_gradient;

const X: [f64; 6] = [0.7, -1.3, 0.4, 1.9, -0.6, 1.1];

fn check(f: impl Fn(&[f64]) -> f64, adjoint: impl Fn(&[f64], &mut [f64]) -> f64) {
    let mut gradient = vec![0.0; X.len()];
    let value = adjoint(&X, &mut gradient);
    assert_eq!(value, f(&X));
    assert_gradient(&f, &X, &gradient);
}

/// Written in one loop, read in the next: no undo tape.
#[differentiable]
fn fill_then_read(x: &[f64]) -> f64 {
    let mut h = [0.0; 4];
    for j in 0..4 {
        h[j] = (x[j] * x[j + 1]).sin();
    }
    let mut s = 0.0;
    for j in 0..4 {
        s += h[j] * x[j + 2];
    }
    s
}

/// Read, then overwritten, then read again: the first reads must see the
/// old values in the reverse sweep, so the stores are saved.
#[differentiable]
fn read_then_overwrite(x: &[f64]) -> f64 {
    let mut h = [1.0, 2.0, 3.0];
    for j in 0..3 {
        h[j] = x[j] * x[j];
    }
    let mut s = 0.0;
    for j in 0..3 {
        s += h[j] * x[j + 3];
    }
    for j in 0..3 {
        h[j] = h[j] * s + x[j];
    }
    s + h[0] * h[1] * h[2]
}

/// The same element written twice before any read.
#[differentiable]
fn written_twice(x: &[f64]) -> f64 {
    let mut h = [0.0; 2];
    h[0] = x[0] * x[1];
    h[1] = x[2].exp();
    h[0] = x[3] * x[0] + 1.0;
    h[0] * h[1] + h[1]
}

/// A store in a branch, reads after it.
#[differentiable]
fn store_in_branch(x: &[f64]) -> f64 {
    let mut h = [0.5; 3];
    if x[0] > 0.0 {
        h[1] = x[1] * x[2];
    } else {
        h[2] = x[3];
    }
    h[0] * h[1] + h[2] * x[4]
}

/// Declared inside a loop, filled by one nested loop, read by the next
/// (an MLP layer), with the outer loop accumulating.
#[differentiable]
fn per_iteration_buffer(x: &[f64]) -> f64 {
    let mut total = 0.0;
    for s in 0..3 {
        let mut h = [0.0; 3];
        for j in 0..3 {
            let mut a = x[s];
            for k in 0..2 {
                a += x[j + k + 1] * x[s + 3];
            }
            h[j] = a.max(0.0) + a * 0.1;
        }
        let mut out = 0.0;
        for k in 0..3 {
            out += h[k] * x[k + 2];
        }
        total += out * out;
    }
    total
}

/// The index is an integer that the loop advances.
#[differentiable]
fn index_is_a_counter(x: &[f64]) -> f64 {
    let mut h = [0.0; 6];
    let mut k = 5;
    for i in 0..6 {
        h[k] = x[i] * (i as f64 + 1.0);
        k = k.saturating_sub(1);
    }
    let mut s = 0.0;
    for i in 0..6 {
        s += h[i] * h[5 - i].cos();
    }
    s
}

/// Read and written in the same loop (a recurrence): saved.
#[differentiable]
fn recurrence(x: &[f64]) -> f64 {
    let mut h = x.to_vec();
    for i in 1..h.len() {
        h[i] = h[i] * h[i - 1].tanh() + x[i];
    }
    h[h.len() - 1]
}

#[differentiable]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

/// Written, then passed to a callee and copied.
#[differentiable]
fn written_then_passed(x: &[f64]) -> f64 {
    let mut h = vec![0.0; 3];
    for i in 0..3 {
        h[i] = x[i] / (1.0 + x[i + 3] * x[i + 3]);
    }
    let copy = h.to_vec();
    dot(&h, &copy) + dot(&h[1..3], &x[4..6])
}

/// Written in a loop that also breaks; read in a loop that also breaks.
#[differentiable]
fn with_breaks(x: &[f64]) -> f64 {
    let mut h = [0.0; 6];
    for i in 0..6 {
        if i == 4 {
            break;
        }
        h[i] = x[i] * x[i + 1];
    }
    let mut s = 0.0;
    let mut i = 0;
    loop {
        s += h[i] * x[5];
        i += 1;
        if i >= 4 {
            break;
        }
    }
    s
}

#[test]
fn written_then_read_arrays_have_exact_gradients() {
    check(fill_then_read, |x, d| fill_then_read_adjoint(x, 1.0, d));
    check(written_twice, |x, d| written_twice_adjoint(x, 1.0, d));
    check(store_in_branch, |x, d| store_in_branch_adjoint(x, 1.0, d));
    check(per_iteration_buffer, |x, d| {
        per_iteration_buffer_adjoint(x, 1.0, d)
    });
    check(index_is_a_counter, |x, d| {
        index_is_a_counter_adjoint(x, 1.0, d)
    });
    check(written_then_passed, |x, d| {
        written_then_passed_adjoint(x, 1.0, d)
    });
    check(with_breaks, |x, d| with_breaks_adjoint(x, 1.0, d));
}

#[test]
fn arrays_read_before_a_store_keep_their_undo_tape() {
    check(read_then_overwrite, |x, d| {
        read_then_overwrite_adjoint(x, 1.0, d)
    });
    check(recurrence, |x, d| recurrence_adjoint(x, 1.0, d));
}

#[test]
fn a_negative_branch_takes_the_other_store() {
    let x = [-0.7, -1.3, 0.4, 1.9, -0.6, 1.1];
    let mut gradient = [0.0; 6];
    store_in_branch_adjoint(&x, 1.0, &mut gradient);
    assert_gradient(store_in_branch, &x, &gradient);
}

// ----- undo tapes without indices (`Plan::indexed_undo`) -----
//
// An undo tape holds only the overwritten values unless a mark undoes to
// it or the index reads the array itself: the reverse of each store then
// recomputes its index. These stores overwrite what is read again, so
// every one is undone; an index recomputed wrongly restores the wrong
// element and shows in the gradient.

/// Stored at an index a counter steps down before each store, and read
/// at other indices by the next rows (a recorded nest: its undo tape holds
/// the overwritten values alone).
#[differentiable]
fn overwritten_at_a_counter(x: &[f64]) -> f64 {
    let n = 4;
    let mut y = vec![0.0; n];
    let mut k = n;
    for i in 0..n {
        let mut s = x[i];
        for j in 0..i {
            s -= y[n - 1 - j] * x[(i + j) % n] * 0.3;
        }
        k -= 1;
        y[k] = s.sin();
    }
    y[0] * y[1] + y[2] * y[3]
}

/// Overwritten in a loop with a break (replayed, with marks: the tape
/// keeps indices).
#[differentiable]
fn overwritten_in_a_replayed_loop(x: &[f64]) -> f64 {
    let mut h = [1.0, 0.5, 2.0];
    let mut s = x[0] * x[1];
    let mut i = 0;
    loop {
        s += h[i] * h[(i + 1) % 3];
        h[(i + 2) % 3] = h[i] * x[i + 2];
        i += 1;
        if i == 3 {
            break;
        }
    }
    s + h[0] * h[1] * h[2]
}

/// The index read from a table of integers, and from the array itself.
#[differentiable]
fn overwritten_at_looked_up_indices(x: &[f64]) -> f64 {
    let order = [2usize, 0, 1, 2, 1];
    let mut h = [0.25, 3.0, 1.5];
    let mut s = 0.0;
    for (j, &at) in order.iter().enumerate() {
        s += h[at] * x[j];
        h[at] = h[at] * x[j + 1] + 1.0;
    }
    for j in 0..3 {
        let at = (h[0] < 10.0) as usize + j % 2;
        s += h[at] * x[j + 3];
        h[(h[1] > -50.0) as usize + 1] = s * x[j];
    }
    s + h[0] - h[1] * h[2]
}

#[test]
fn undone_stores_recompute_their_indices() {
    check(overwritten_at_a_counter, |x, d| {
        overwritten_at_a_counter_adjoint(x, 1.0, d)
    });
    check(overwritten_in_a_replayed_loop, |x, d| {
        overwritten_in_a_replayed_loop_adjoint(x, 1.0, d)
    });
    check(overwritten_at_looked_up_indices, |x, d| {
        overwritten_at_looked_up_indices_adjoint(x, 1.0, d)
    });
}
