//! The workloads recorded on `autograd::tape`, the dynamic fallback: each
//! is the `#[differentiable]` source with `f64` replaced by `Var`, in the
//! same evaluation order, so values match the primal.
//!
//! [`gradient`] records the whole graph on every call (inputs included), as
//! a training step would: the tape is cleared, not reallocated, and the
//! input `Var`s go into a reused `Vec`. [`gradient_fresh`] makes a new tape
//! per gradient instead, as a first use of the tape would.

use super::workloads::{REST, SOFTNESS};
use autograd::tape::{Tape, Var};

/// Records `f` at `x` on `tape` (after clearing it), runs `backward()` and
/// writes the gradient into `grad`; returns the value.
pub fn gradient<'t>(
    tape: &'t Tape,
    vars: &mut Vec<Var<'t>>,
    x: &[f64],
    grad: &mut [f64],
    f: impl FnOnce(&[Var<'t>]) -> Var<'t>,
) -> f64 {
    tape.clear();
    vars.clear();
    vars.extend(x.iter().map(|&v| tape.var(v)));
    let y = f(vars);
    let g = y.backward();
    for (d, &v) in grad.iter_mut().zip(vars.iter()) {
        *d = g[v];
    }
    y.value()
}

/// The way users first use the tape: a fresh [`Tape::new`] and a fresh
/// `Vec` of input `Var`s per gradient, both dropped at the end; otherwise
/// as [`gradient`].
pub fn gradient_fresh(
    x: &[f64],
    grad: &mut [f64],
    f: impl for<'t> FnOnce(&[Var<'t>]) -> Var<'t>,
) -> f64 {
    let tape = Tape::new();
    let vars: Vec<Var> = x.iter().map(|&v| tape.var(v)).collect();
    let y = f(&vars);
    let g = y.backward();
    for (d, &v) in grad.iter_mut().zip(vars.iter()) {
        *d = g[v];
    }
    y.value()
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
                (w[32 + j] + w[j * 2] * xs[2 * s] + w[j * 2 + 1] * xs[2 * s + 1]).max(0.0)
            });
            let h2: [Var; 16] = std::array::from_fn(|j| {
                let mut a = w[304 + j];
                for k in 0..16 {
                    a += w[48 + j * 16 + k] * h1[k];
                }
                a.max(0.0)
            });
            let mut out = w[336];
            for k in 0..16 {
                out += w[320 + k] * h2[k];
            }
            (1.0 - ys[s] * out).max(0.0)
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
