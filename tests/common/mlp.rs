//! A user's 2-16-16-1 ReLU MLP, written as a user would (flat parameters,
//! stack buffers, three nested loops), and a two-moons data set. Shared by
//! `tests/mlp.rs` and `benches/gradients.rs`.

#![allow(dead_code, clippy::needless_range_loop)]

use autograd::differentiable;

/// Parameters of a 2-16-16-1 MLP, flat: W1 (16×2), b1, W2 (16×16), b2, W3 (16), b3.
pub const PARAMS: usize = 16 * 2 + 16 + 16 * 16 + 16 + 16 + 1;

/// Hinge loss of a 2-16-16-1 ReLU MLP over a batch, plus 1e-4 · L2.
#[differentiable(wrt(w))]
pub fn mlp_loss(w: &[f64], xs: &[f64], ys: &[f64]) -> f64 {
    let n = ys.len();
    let mut total = 0.0;
    for s in 0..n {
        let mut h1 = [0.0; 16];
        for j in 0..16 {
            let mut a = w[32 + j];
            for k in 0..2 {
                a += w[j * 2 + k] * xs[2 * s + k];
            }
            h1[j] = a.max(0.0);
        }
        let mut h2 = [0.0; 16];
        for j in 0..16 {
            let mut a = w[304 + j];
            for k in 0..16 {
                a += w[48 + j * 16 + k] * h1[k];
            }
            h2[j] = a.max(0.0);
        }
        let mut out = w[336];
        for k in 0..16 {
            out += w[320 + k] * h2[k];
        }
        total += (1.0 - ys[s] * out).max(0.0);
    }
    let mut reg = 0.0;
    for i in 0..w.len() {
        reg += w[i] * w[i];
    }
    total / n as f64 + 1e-4 * reg
}

/// A small deterministic generator (xorshift), so the test needs no crate.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn normal(&mut self) -> f64 {
        let (u, v) = (self.next().max(1e-300), self.next());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

/// Two interleaving half circles, labels ±1, with Gaussian noise.
pub fn moons(n: usize, noise: f64, rng: &mut Rng) -> (Vec<f64>, Vec<f64>) {
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for i in 0..n {
        let t = std::f64::consts::PI * (i / 2) as f64 / (n / 2) as f64;
        let (x, y, label) = if i % 2 == 0 {
            (t.cos(), t.sin(), -1.0)
        } else {
            (1.0 - t.cos(), 0.5 - t.sin(), 1.0)
        };
        xs.push(x + noise * rng.normal());
        xs.push(y + noise * rng.normal());
        ys.push(label);
    }
    (xs, ys)
}

pub fn init(rng: &mut Rng) -> Vec<f64> {
    let mut w = vec![0.0; PARAMS];
    for (i, v) in w.iter_mut().enumerate() {
        let fan_in: f64 = if i < 48 { 2.0 } else { 16.0 };
        *v = rng.normal() * (2.0 / fan_in).sqrt();
    }
    // Biases start at zero.
    for i in (32..48).chain(304..320).chain(336..337) {
        w[i] = 0.0;
    }
    w
}
