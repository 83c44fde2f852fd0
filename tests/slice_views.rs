//! Local `Vec<f64>` buffers used through a slice of them (the macro's
//! `views.rs`): every use a slice has too keeps working, and a buffer used
//! in a way only a `Vec` allows keeps its `Vec` (these functions would not
//! compile otherwise). Gradients against finite differences, values
//! against `f` itself.

#![allow(clippy::needless_range_loop, clippy::ptr_arg, clippy::useless_vec)]

mod common;

use autograd::differentiable;
use common::assert_gradient;

#[differentiable]
fn weighted_sum(v: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..v.len() {
        total += (i as f64 + 1.0) * v[i];
    }
    total
}

/// Every use the macro accepts, which a slice has too: indexing, `len`,
/// `is_empty`, `iter` in integer code, `to_vec`, `&r[1..]` passed to a
/// differentiable callee, stores under a branch, a typed `let` (`q`, given
/// whole to a callee, stays a `Vec`).
#[differentiable]
fn every_slice_use(x: &[f64]) -> f64 {
    let n = x.len();
    let mut q: Vec<f64> = vec![0.0; n];
    let mut r = x.to_vec();
    for i in 0..q.len() {
        q[i] = x[i] * x[(i + 1) % n];
        if q[i] > 0.5 {
            r[i] = q[i].sin();
        }
    }
    let copy = r.to_vec();
    let positive = q.iter().filter(|v| **v > 0.0).count();
    let head = if q.is_empty() { 0.0 } else { q[0] };
    weighted_sum(&q) + weighted_sum(&r[1..]) * copy[n - 1] + head * r[0] + positive as f64
}

#[test]
fn slice_views_keep_every_slice_use() {
    let x = [0.9, -0.4, 1.3, 0.7, 1.1];
    let (value, dx) = every_slice_use_grad(&x);
    assert_eq!(value, every_slice_use(&x));
    assert_gradient(every_slice_use, &x, &dx);
}

fn longer_than(v: &Vec<f64>, n: usize) -> bool {
    v.len() > n
}

/// A buffer handed to a function the macro does not differentiate, whose
/// parameter is a `&Vec<f64>`, and one printed: they stay `Vec`s.
#[differentiable]
fn vec_only_uses(x: &[f64]) -> f64 {
    let mut q = vec![0.0; x.len()];
    for i in 0..x.len() {
        q[i] = x[i] * x[i];
    }
    let mut shown = vec![0.0; 2];
    shown[0] = x[0];
    if longer_than(&q, 3) {
        debug_assert!(!format!("{shown:?}").is_empty());
        q[0] * shown[0]
    } else {
        q[1]
    }
}

#[test]
fn buffers_used_as_vecs_stay_vecs() {
    for x in [[0.5, 1.5, -2.0, 0.25], [0.5, 1.5, -2.0, 0.0]] {
        let (value, dx) = vec_only_uses_grad(&x);
        assert_eq!(value, vec_only_uses(&x));
        assert_gradient(vec_only_uses, &x, &dx);
    }
    let (value, dx) = vec_only_uses_grad(&[0.5, 1.5, -2.0]);
    assert_eq!((value, dx), (2.25, vec![0.0, 3.0, 0.0]));
}

/// The owner's name is generated: a user local spelled like it is another
/// variable.
#[differentiable]
#[allow(non_snake_case)]
fn owner_names_are_hygienic(x: &[f64]) -> f64 {
    let mut q = x.to_vec();
    let __ad_own_q = 2.0 * x[0];
    for i in 1..q.len() {
        q[i] = q[i - 1] * q[i] + __ad_own_q;
    }
    q[q.len() - 1]
}

#[test]
fn owner_names_do_not_capture_user_names() {
    let x = [0.5, 1.25, -0.75];
    let (value, dx) = owner_names_are_hygienic_grad(&x);
    assert_eq!(value, owner_names_are_hygienic(&x));
    assert_gradient(owner_names_are_hygienic, &x, &dx);
}

fn set_second(v: &mut Vec<f64>) {
    v[1] = 1.0;
}

fn set_third(v: &mut [f64]) {
    v[2] = 2.0;
}

/// A buffer given whole to functions the macro does not differentiate (its
/// elements do not vary yet), one taking a `&mut Vec<f64>`: a slice would
/// not do, so it stays a `Vec`.
#[differentiable]
fn filled_by_helpers(x: f64) -> f64 {
    let mut buf = vec![0.0; 3];
    set_second(&mut buf);
    set_third(&mut buf);
    buf[0] = x * x;
    buf[0] * buf[1] + buf[2] * x
}

#[test]
fn buffers_given_whole_to_helpers_stay_vecs() {
    assert_eq!(filled_by_helpers_grad(3.0), (15.0, 8.0));
}

/// A mutable subslice of a local buffer, written through (`row[0] = ..`,
/// `row[0] += ..`, `swap`, `fill`, `copy_from_slice`, `iter_mut`) and read: the buffer's
/// elements at the subslice's start plus the index.
#[differentiable]
fn rows_written_through_views(x: &[f64]) -> f64 {
    let mut q = vec![0.0; 6];
    for k in 0..3 {
        let row = &mut q[2 * k..2 * k + 2];
        row[0] = x[k] * 2.0;
        row[1] = x[k].sin();
        row[0] += row[1] * x[(k + 1) % 3];
    }
    for k in 0..2 {
        let pair = &mut q[3 * k..3 * k + 2];
        pair.swap(0, 1);
        for v in pair.iter_mut() {
            *v = v.sin() + 0.5 * *v;
        }
    }
    let tail = &mut q[4..];
    tail.fill(x[2] * x[0]);
    let copied = [x[1].exp(), x[0] * x[2]];
    let head = &mut q[..2];
    head.copy_from_slice(&copied);
    let middle = &mut q[2..4];
    middle.copy_from_slice(&x[1..3]);
    q.iter()
        .enumerate()
        .map(|(i, v)| (i as f64 + 1.0) * v * v)
        .sum()
}

#[test]
fn a_mutable_subslice_writes_its_buffer() {
    for x in [[0.3, -0.7, 1.2], [1.5, 0.25, -0.4]] {
        let (value, dx) = rows_written_through_views_grad(&x);
        assert_eq!(value, rows_written_through_views(&x));
        assert_gradient(rows_written_through_views, &x, &dx);
    }
}
