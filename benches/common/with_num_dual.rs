//! The workloads on the `num-dual` crate: forward mode with dual numbers.
//!
//! A gradient in forward mode takes one pass per input, each seeding that
//! input's derivative part with 1 — O(n) passes of an O(n) function, so the
//! benches run this peer only up to n = 1 000. That is what
//! `num_dual::Gradients::gradient` does itself for inputs of dynamic length;
//! here it is written out over a reused `Vec<Dual64>`, which lets the crate
//! be used without its `nalgebra` feature (a large dependency every
//! `cargo test` would otherwise compile) and saves that function's
//! allocation of the inputs on every pass.
//!
//! `Dual64` has no arithmetic with an `f64` on the left, so `1 - x` is
//! written `-x + 1.0` and `c * x` as `x * c` (the same values, bit for bit).

use super::workloads::{REST, SOFTNESS};
use num_dual::{Dual64, DualNum};

/// The value of `f` at `x` and, one pass per input, its gradient written
/// into `grad`.
pub fn gradient(
    duals: &mut Vec<Dual64>,
    x: &[f64],
    grad: &mut [f64],
    f: impl Fn(&[Dual64]) -> Dual64,
) -> f64 {
    duals.clear();
    duals.extend(x.iter().map(|&v| Dual64::from_re(v)));
    let mut value = f64::NAN;
    for i in 0..x.len() {
        duals[i] = duals[i].derivative();
        let y = f(duals);
        duals[i].eps = 0.0;
        grad[i] = y.eps;
        value = y.re;
    }
    value
}

/// `max(a, 0)`, derivative 0 at 0 (`DualNum` has no `max`).
fn relu(a: Dual64) -> Dual64 {
    if a.re > 0.0 {
        a
    } else {
        Dual64::from_re(0.0)
    }
}

pub fn rosenbrock(x: &[Dual64]) -> Dual64 {
    let mut sum = Dual64::from_re(0.0);
    for i in 0..x.len() - 1 {
        let t = x[i + 1] - x[i] * x[i];
        let u = -x[i] + 1.0;
        sum += t * 100.0 * t + u * u;
    }
    sum
}

pub fn mlp_loss(w: &[Dual64], xs: &[f64], ys: &[f64]) -> Dual64 {
    let n = ys.len();
    let mut total = Dual64::from_re(0.0);
    for s in 0..n {
        let h1: [Dual64; 16] = std::array::from_fn(|j| {
            relu(w[32 + j] + w[j * 2] * xs[2 * s] + w[j * 2 + 1] * xs[2 * s + 1])
        });
        let h2: [Dual64; 16] = std::array::from_fn(|j| {
            let mut a = w[304 + j];
            for (k, &h) in h1.iter().enumerate() {
                a += w[48 + j * 16 + k] * h;
            }
            relu(a)
        });
        let mut out = w[336];
        for (k, &h) in h2.iter().enumerate() {
            out += w[320 + k] * h;
        }
        total += relu(-(out * ys[s]) + 1.0);
    }
    let mut reg = Dual64::from_re(0.0);
    for &p in w {
        reg += p * p;
    }
    total / n as f64 + reg * 1e-4
}

pub fn newton_sqrt(a: &[Dual64]) -> Dual64 {
    let a = a[0];
    let mut x = a;
    for _ in 0..30 {
        x = (x + a / x) * 0.5;
    }
    x
}

pub fn springs(x: &[Dual64]) -> Dual64 {
    let mut energy = Dual64::from_re(0.0);
    for i in 0..x.len() - 1 {
        let d = x[i + 1] - x[i];
        let stretch = (d * d + SOFTNESS).sqrt() - REST;
        energy += stretch * stretch;
    }
    energy
}
