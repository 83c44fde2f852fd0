//! Idiomatic Rust (API.md §1b): each construct gives the gradient of the
//! indexed loop it stands for, and agrees with finite differences.
#![allow(clippy::needless_range_loop, clippy::manual_memcpy)]

mod common;

use autograd::differentiable;
use common::assert_gradient;

#[differentiable]
fn dot_zip(w: &[f64], x: &[f64]) -> f64 {
    w.iter().zip(x).map(|(a, b)| a * b).sum()
}

#[differentiable]
fn dot_loop(w: &[f64], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len().min(x.len()) {
        s += w[i] * x[i];
    }
    s
}

#[test]
fn zip_map_sum_is_the_dot_loop() {
    let w = [1.0, -2.0, 0.5];
    let x = [0.3, 0.7, -1.1];
    let (v1, (gw1, gx1)) = dot_zip_grad(&w, &x);
    let (v2, (gw2, gx2)) = dot_loop_grad(&w, &x);
    assert_eq!(v1, v2);
    assert_eq!(gw1, gw2);
    assert_eq!(gx1, gx2);
}
