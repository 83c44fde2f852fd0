//! The workloads on the `reverse` crate, a published reverse-mode tape (a
//! Wengert list of two-operand nodes, like `autograd::tape`).
//!
//! Written as a user of that crate would, with two adjustments to what it
//! offers:
//! - it has no `max`, so ReLU and the hinge are a branch on the value
//!   ([`relu`]);
//! - in 0.2.2, `f64 / Var` has a wrong derivative (it records `-1/x` where
//!   `d(c/x)/dx = -c/x²`: `3.0 / x` at 2 gives -0.5, not -0.75), and so does
//!   `Powf::powf(f64, Var)` (`x·c^(x-1)` for `c^x·ln c`). No workload needs
//!   either: Newton divides a `Var` by a `Var`, which is right. The benches'
//!   check before timing would catch a wrong gradient.
//!
//! The tape is cleared and reused like `autograd::tape`'s; `Var::grad()`
//! allocates its result (one `f64` per node) on every call, as the crate
//! offers no other way.

use super::workloads::{REST, SOFTNESS};
use reverse::{Gradient, Tape, Var};

/// Records `f` at `x` on `tape` (after clearing it), computes the
/// gradient and writes it into `grad`; returns the value.
pub fn gradient<'t>(
    tape: &'t Tape,
    vars: &mut Vec<Var<'t>>,
    x: &[f64],
    grad: &mut [f64],
    f: impl FnOnce(&[Var<'t>]) -> Var<'t>,
) -> f64 {
    tape.clear();
    vars.clear();
    vars.extend(x.iter().map(|&v| tape.add_var(v)));
    let y = f(vars);
    let g = y.grad();
    for (d, v) in grad.iter_mut().zip(vars.iter()) {
        *d = g.wrt(v);
    }
    y.val()
}

/// `max(a, 0)`: the crate has no `max`; multiplying by zero keeps the
/// result on the tape with a zero derivative.
fn relu(a: Var<'_>) -> Var<'_> {
    if a.val() > 0.0 {
        a
    } else {
        a * 0.0
    }
}

pub fn rosenbrock<'t>(x: &[Var<'t>]) -> Var<'t> {
    (0..x.len() - 1)
        .map(|i| {
            let t = x[i + 1] - x[i] * x[i];
            let u = 1.0 - x[i];
            100.0 * t * t + u * u
        })
        .sum()
}

pub fn mlp_loss<'t>(w: &[Var<'t>], xs: &[f64], ys: &[f64]) -> Var<'t> {
    let n = ys.len();
    let total: Var = (0..n)
        .map(|s| {
            let h1: [Var; 16] = std::array::from_fn(|j| {
                relu(w[32 + j] + w[j * 2] * xs[2 * s] + w[j * 2 + 1] * xs[2 * s + 1])
            });
            let h2: [Var; 16] = std::array::from_fn(|j| {
                let mut a = w[304 + j];
                for (k, &h) in h1.iter().enumerate() {
                    a = a + w[48 + j * 16 + k] * h;
                }
                relu(a)
            });
            let mut out = w[336];
            for (k, &h) in h2.iter().enumerate() {
                out = out + w[320 + k] * h;
            }
            relu(1.0 - ys[s] * out)
        })
        .sum();
    let reg: Var = w.iter().map(|&p| p * p).sum();
    total / n as f64 + 1e-4 * reg
}

pub fn newton_sqrt<'t>(a: &[Var<'t>]) -> Var<'t> {
    let a = a[0];
    let mut x = a;
    for _ in 0..30 {
        x = 0.5 * (x + a / x);
    }
    x
}

pub fn springs<'t>(x: &[Var<'t>]) -> Var<'t> {
    (0..x.len() - 1)
        .map(|i| {
            let d = x[i + 1] - x[i];
            let stretch = (d * d + SOFTNESS).sqrt() - REST;
            stretch * stretch
        })
        .sum()
}
