//! The workloads the benches time: each as a `#[differentiable]` function
//! and as a gradient written by hand.

#![allow(dead_code, clippy::needless_range_loop)]

#[path = "../../tests/common/mlp.rs"]
pub mod model;

use autograd::differentiable;

// ----- extended Rosenbrock -------------------------------------------------

#[differentiable]
pub fn rosenbrock(x: &[f64]) -> f64 {
    let mut sum = 0.0;
    for i in 0..x.len() - 1 {
        let t = x[i + 1] - x[i] * x[i];
        let u = 1.0 - x[i];
        sum += 100.0 * t * t + u * u;
    }
    sum
}

pub fn rosenbrock_by_hand(x: &[f64], grad: &mut [f64]) -> f64 {
    let mut f = 0.0;
    for i in 0..x.len() - 1 {
        let t = x[i + 1] - x[i] * x[i];
        let u = 1.0 - x[i];
        f += 100.0 * t * t + u * u;
        grad[i] += -400.0 * t * x[i] - 2.0 * u;
        grad[i + 1] += 200.0 * t;
    }
    f
}

// ----- a dot product, idiomatic and indexed ------------------------------------

/// `w · x` as people write it in Rust: lowered to the indexed loop below.
#[differentiable]
pub fn dot_zip(w: &[f64], x: &[f64]) -> f64 {
    w.iter().zip(x).map(|(a, b)| a * b).sum()
}

/// `w · x` as an indexed loop.
#[differentiable]
pub fn dot_loop(w: &[f64], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        s += w[i] * x[i];
    }
    s
}

/// The gradient of `w · x` with respect to both, into `grad = [d_w, d_x]`.
pub fn dot_by_hand(w: &[f64], x: &[f64], grad: &mut [f64]) -> f64 {
    let (d_w, d_x) = grad.split_at_mut(w.len());
    let mut s = 0.0;
    for i in 0..w.len() {
        s += w[i] * x[i];
        d_w[i] += x[i];
        d_x[i] += w[i];
    }
    s
}

// ----- the MLP -------------------------------------------------------------

/// Backpropagation through `model::mlp_loss`, written by hand: the forward
/// pass keeps the pre-activations, the backward pass uses them.
pub fn mlp_by_hand(w: &[f64], xs: &[f64], ys: &[f64], grad: &mut [f64]) -> f64 {
    let n = ys.len();
    let mut total = 0.0;
    for s in 0..n {
        let (mut a1, mut h1, mut a2, mut h2) = ([0.0; 16], [0.0; 16], [0.0; 16], [0.0; 16]);
        for j in 0..16 {
            a1[j] = w[32 + j] + w[j * 2] * xs[2 * s] + w[j * 2 + 1] * xs[2 * s + 1];
            h1[j] = a1[j].max(0.0);
        }
        for j in 0..16 {
            let mut a = w[304 + j];
            for k in 0..16 {
                a += w[48 + j * 16 + k] * h1[k];
            }
            a2[j] = a;
            h2[j] = a.max(0.0);
        }
        let mut out = w[336];
        for k in 0..16 {
            out += w[320 + k] * h2[k];
        }
        let margin = 1.0 - ys[s] * out;
        if margin <= 0.0 {
            continue;
        }
        total += margin;
        let d_out = -ys[s] / n as f64;
        grad[336] += d_out;
        let mut d_h1 = [0.0; 16];
        for k in 0..16 {
            grad[320 + k] += d_out * h2[k];
            let d_a2 = if a2[k] > 0.0 { d_out * w[320 + k] } else { 0.0 };
            grad[304 + k] += d_a2;
            for m in 0..16 {
                grad[48 + k * 16 + m] += d_a2 * h1[m];
                d_h1[m] += d_a2 * w[48 + k * 16 + m];
            }
        }
        for j in 0..16 {
            let d_a1 = if a1[j] > 0.0 { d_h1[j] } else { 0.0 };
            grad[32 + j] += d_a1;
            grad[j * 2] += d_a1 * xs[2 * s];
            grad[j * 2 + 1] += d_a1 * xs[2 * s + 1];
        }
    }
    let mut reg = 0.0;
    for (g, &p) in grad.iter_mut().zip(w) {
        reg += p * p;
        *g += 2e-4 * p;
    }
    total / n as f64 + 1e-4 * reg
}

// ----- Newton's iterations ---------------------------------------------------

#[differentiable]
pub fn newton_sqrt(a: f64) -> f64 {
    let mut x = a;
    for _ in 0..30 {
        x = 0.5 * (x + a / x);
    }
    x
}

/// The derivative carried along by hand (forward mode: one pass).
pub fn newton_by_hand(a: f64) -> (f64, f64) {
    let (mut x, mut dx) = (a, 1.0);
    for _ in 0..30 {
        let q = a / x;
        dx = 0.5 * (dx + (1.0 - q * dx) / x);
        x = 0.5 * (x + q);
    }
    (x, dx)
}

// ----- a helper called in a loop ---------------------------------------------

/// Rest length of each spring in [`springs`].
pub const REST: f64 = 1.0;

/// ε² in the smooth absolute value `√(x² + ε²)`, which keeps the energy
/// differentiable where two neighbours meet.
pub const SOFTNESS: f64 = 1e-2;

/// `|x|`, smoothed near 0.
#[differentiable]
pub fn smooth_abs(x: f64) -> f64 {
    (x * x + SOFTNESS).sqrt()
}

/// The energy of one spring between positions `a` and `b`: a call to another
/// differentiable function, so its adjoint calls `smooth_abs_adjoint`.
#[differentiable]
pub fn spring(a: f64, b: f64) -> f64 {
    let stretch = smooth_abs(b - a) - REST;
    stretch * stretch
}

/// A chain of springs between neighbouring positions: the call-heavy
/// workload, one `spring` (and so one `smooth_abs`) call per neighbour pair.
#[differentiable]
pub fn springs(x: &[f64]) -> f64 {
    let mut energy = 0.0;
    for i in 0..x.len() - 1 {
        energy += spring(x[i], x[i + 1]);
    }
    energy
}

pub fn springs_by_hand(x: &[f64], grad: &mut [f64]) -> f64 {
    let mut energy = 0.0;
    for i in 0..x.len() - 1 {
        let d = x[i + 1] - x[i];
        let length = (d * d + SOFTNESS).sqrt();
        let stretch = length - REST;
        energy += stretch * stretch;
        let force = 2.0 * stretch * d / length;
        grad[i] -= force;
        grad[i + 1] += force;
    }
    energy
}
