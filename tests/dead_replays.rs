//! Replays that would compute only what nothing reads are left out
//! (`autograd-macros/src/emit/reverse.rs`, `replay_is_dead`): a score
//! summed over a nest inside a loop the reverse runs level by level (a
//! function that allocates nothing replays rather than records) replayed
//! the whole sub-nest at every level, for values nothing read. Each
//! function here has a twin with a branch in its innermost loop, which
//! keeps every replay; both are checked against central finite differences
//! and against each other.

#![allow(clippy::needless_range_loop)]

mod common;

use autograd::differentiable;
use common::{assert_close, check_gradient_and_adjoint};

const POINTS: [[f64; 8]; 3] = [
    [0.7, -1.3, 0.4, 1.9, -0.6, 1.1, 0.3, -0.9],
    [1.2, 0.3, -0.8, 0.5, 2.1, -0.2, -1.4, 0.6],
    [-0.4, 0.9, 1.6, -1.1, 0.2, 0.8, 1.3, -0.5],
];

const IMAGE: [f64; 16] = [
    0.1, -0.4, 0.7, 0.2, -0.3, 0.9, -0.8, 0.5, 0.6, -0.1, 0.3, -0.7, 0.4, 0.8, -0.2, -0.6,
];

// A two-channel 2 × 2 convolution over a 4 × 4 image, `tanh`, a weighted
// readout, squared error, over two labels: the score is summed over
// channels, rows and columns.
#[differentiable]
fn convolution(w: &[f64]) -> f64 {
    let n = 4;
    let mut loss = 0.0;
    for label in [0.5, -0.25] {
        let mut score = 0.0;
        for c in 0..2 {
            for y in 0..n - 1 {
                for x in 0..n - 1 {
                    let mut s = w[6 + c];
                    for ky in 0..2 {
                        for kx in 0..2 {
                            s += w[c * 3 + ky + kx] * IMAGE[(y + ky) * n + x + kx];
                        }
                    }
                    score += (0.5 + 0.1 * (x + y) as f64) * s.tanh();
                }
            }
        }
        let e = score - label;
        loss += e * e;
    }
    loss
}

#[differentiable]
fn convolution_twin(w: &[f64]) -> f64 {
    let n = 4;
    let mut loss = 0.0;
    for label in [0.5, -0.25] {
        let mut score = 0.0;
        for c in 0..2 {
            for y in 0..n - 1 {
                for x in 0..n - 1 {
                    let mut s = w[6 + c];
                    for ky in 0..2 {
                        for kx in 0..2 {
                            s += w[c * 3 + ky + kx] * IMAGE[(y + ky) * n + x + kx];
                            if label > 1e9 {
                                s += 1.0;
                            }
                        }
                    }
                    score += (0.5 + 0.1 * (x + y) as f64) * s.tanh();
                }
            }
        }
        let e = score - label;
        loss += e * e;
    }
    loss
}

#[test]
fn a_score_summed_over_a_nest_agrees_with_its_replayed_twin() {
    check_gradient_and_adjoint(convolution, convolution_grad, convolution_adjoint, &POINTS);
    check_gradient_and_adjoint(
        convolution_twin,
        convolution_twin_grad,
        convolution_twin_adjoint,
        &POINTS,
    );
    for x in POINTS {
        let (value, gradient) = convolution_grad(&x);
        let (twin_value, twin_gradient) = convolution_twin_grad(&x);
        assert_eq!(value, twin_value, "at {x:?}");
        assert_close(&gradient, &twin_gradient, &x);
    }
}

// A product of sums: the inner sums' cells are needed (the product reads
// them), so their replay stays; the outer sum's is dead.
#[differentiable]
fn sums(x: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..4 {
        let mut outer = 0.0;
        for j in 0..4 {
            let mut a = 0.0;
            for k in 0..2 {
                a += x[(i + j + k) % 8] * x[(j + 2 * k) % 8];
            }
            outer += a * a.sin();
        }
        total += outer * outer;
    }
    total
}

#[test]
fn needed_sums_are_replayed() {
    check_gradient_and_adjoint(sums, sums_grad, sums_adjoint, &POINTS);
}

// Random programs, seed 1128050501 #1430 (minimized): the sum read after
// its loop (`e.sin()`), in the branch an early `return` leaves, was left
// out of the branch's replay — its cell kept the value the replay starts
// it with, and the gradient was `cos(0)`. Only a loop's replay that feeds
// nothing but the sums of the loop being reversed is left out.
#[differentiable]
fn sum_after_a_return(g: &[f64], o: &[f64], w: &[f64]) -> f64 {
    if g.iter().all(|&q| q < 0.5) && w.iter().any(|&q| q > 1.0) {
        return 1.0;
    }
    let mut e: f64 = 0.0;
    for c in 0..g.len() {
        for _l in 0..=c {
            let mut h: f64 = 0.0;
            for t in 0..o.len() {
                h += w[t + c * o.len()];
            }
            e += h;
        }
    }
    e.sin()
}

#[test]
fn a_sum_read_after_its_loop_is_replayed() {
    let (g, o) = ([0.9, 0.4, -0.4], [0.4, 0.8]);
    let w = [0.5, -1.4, 0.6, 0.7, -0.7, 0.3];
    let (value, (_, _, d_w)) = sum_after_a_return_grad(&g, &o, &w);
    let e: f64 = (0..3)
        .map(|c| (c + 1) as f64 * (w[2 * c] + w[2 * c + 1]))
        .sum();
    assert_eq!(value, sum_after_a_return(&g, &o, &w));
    for (k, d) in d_w.iter().enumerate() {
        let expected = (k / 2 + 1) as f64 * e.cos();
        assert!(
            (d - expected).abs() < 1e-12,
            "d_w[{k}] = {d}, not {expected}"
        );
    }
}
