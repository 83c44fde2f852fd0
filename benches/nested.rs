//! Nested workloads (issue 16, item 2): objectives with loop nests and
//! per-iteration buffers, each written as a user would write it under
//! `#[differentiable]` (plain loops over slices, local buffers overwritten
//! every iteration), with a gradient written by hand next to it.
//!
//! - [`gmm_objective`]: the Gaussian-mixture log-likelihood of ADBench
//!   (N points × K components × d dimensions; per point and component a
//!   lower-triangular matrix–vector product with the inverse-Cholesky factor
//!   `Q_k` in a log-diagonal parametrisation, into a buffer every iteration
//!   overwrites; a log-sum-exp over the components with a running max; the
//!   Wishart prior).
//! - [`lstm_objective`]: an LSTM cell unrolled over a sequence, predicting
//!   the next element; its state and gate buffers are overwritten each step.
//! - [`heat_objective`]: an explicit time-stepping stencil (1-D heat
//!   equation with a logistic reaction term) that overwrites its state array
//!   every step.
//! - [`trisolve_objective`]: forward substitution `L y = b`, then `½‖y‖²`.
//! - [`product_objective`]: a dense product through `tanh` (`C = tanh(A B)`,
//!   then `‖C‖²`), written as the three-deep loop nest people write.
//! - [`pairs_objective`]: a pair energy (Lennard-Jones-like, points on a
//!   line), a double sum over `i < j`.
//! - [`kmeans_objective`]: the k-means objective, per point a running
//!   minimum over the centres of a squared distance (a sum over
//!   dimensions).
//! - [`softmax_objective`]: softmax regression, per sample each class's
//!   score a dot product into a buffer, a running maximum, a log-sum-exp.
//! - [`chebyshev_objective`]: a Chebyshev series fit, per point the
//!   three-term recurrence carrying two values beside the series.
//! - [`cutoff_objective`]: a Lennard-Jones energy with a cutoff over the
//!   pairs of points in space: most pairs are beyond it and add nothing.
//! - [`gauss_seidel_objective`]: Gauss–Seidel sweeps for `−u'' = f` in
//!   place, with `if`s at the boundary, then a least-squares misfit.
//! - [`adbench_lstm_objective`]: ADBench's LSTM as a user ports it, with
//!   `sigmoid` and `logsumexp(&ypred, b)` helper calls in its nest.
//! - [`colsolve_objective`]: forward substitution by columns, in place.
//!
//! Each `_by_hand` function adds the gradient into its output slices (like
//! an `_adjoint` with `d_out = 1`) and returns the value. `benches/tests/
//! nested.rs` checks them against the generated adjoints; the bench suite
//! (`benches/common/suite.rs`) times both.

// Written as a user would write them for the macro: indexed loops, and a
// copy loop where `copy_from_slice` is not in the supported subset.
#![allow(
    clippy::needless_range_loop,
    clippy::too_many_arguments,
    clippy::manual_memcpy
)]

use autograd::differentiable;

/// A small deterministic generator (xorshift), so that every run sees the
/// same data.
pub struct Rng(pub u64);

impl Rng {
    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `[lo, hi)`.
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    pub fn vec(&mut self, n: usize, lo: f64, hi: f64) -> Vec<f64> {
        (0..n).map(|_| self.uniform(lo, hi)).collect()
    }
}

// ----- (a) Gaussian mixture ----------------------------------------------------

/// Length of one component's `icf` block: `d` log-diagonal entries, then
/// the `d(d-1)/2` entries below the diagonal, column by column (ADBench's
/// layout).
pub fn icf_len(d: usize) -> usize {
    d * (d + 1) / 2
}

/// The mixture's data and parameters at one size.
pub struct Gmm {
    pub n: usize,
    pub k: usize,
    pub d: usize,
    pub alphas: Vec<f64>,
    pub means: Vec<f64>,
    pub icf: Vec<f64>,
    pub x: Vec<f64>,
}

impl Gmm {
    pub fn new(n: usize, k: usize, d: usize, seed: u64) -> Gmm {
        let mut rng = Rng(seed | 1);
        Gmm {
            n,
            k,
            d,
            alphas: rng.vec(k, -1.0, 1.0),
            means: rng.vec(k * d, -1.0, 1.0),
            // small entries: Q_k near exp(diag), well conditioned
            icf: rng.vec(k * icf_len(d), -0.3, 0.3),
            x: rng.vec(n * d, -1.0, 1.0),
        }
    }

    /// Number of parameters (the gradient's length): alphas, means, icf.
    pub fn inputs(&self) -> usize {
        self.k + self.k * self.d + self.k * icf_len(self.d)
    }
}

/// Wishart prior parameters (ADBench's defaults: γ = 1, m = 0).
pub const WISHART_GAMMA: f64 = 1.0;
pub const WISHART_M: f64 = 0.0;

/// ADBench's GMM objective (the log-likelihood and the prior), up to its
/// constant: `Σ_i lse_k(α_k + Σ_j q_kj − ½‖Q_k (x_i − μ_k)‖²) −
/// N lse(α) + Σ_k (½γ²(‖exp(q_k)‖² + ‖l_k‖²) − m Σ_j q_kj)`.
#[differentiable(wrt(alphas, means, icf))]
pub fn gmm_objective(
    alphas: &[f64],
    means: &[f64],
    icf: &[f64],
    x: &[f64],
    n: usize,
    k: usize,
    d: usize,
) -> f64 {
    let icf_sz = d * (d + 1) / 2;
    // per component, as ADBench's `preprocess_qs`: Σ_j q_kj and the
    // diagonal of Q_k, exp(q_k), once per call
    let mut sum_qs = vec![0.0; k];
    let mut qdiags = vec![0.0; k * d];
    for c in 0..k {
        let mut s = 0.0;
        for j in 0..d {
            s += icf[c * icf_sz + j];
            qdiags[c * d + j] = icf[c * icf_sz + j].exp();
        }
        sum_qs[c] = s;
    }
    let mut xcentered = vec![0.0; d];
    let mut qxcentered = vec![0.0; d];
    let mut main_term = vec![0.0; k];
    let mut slse = 0.0;
    for i in 0..n {
        for c in 0..k {
            for j in 0..d {
                xcentered[j] = x[i * d + j] - means[c * d + j];
            }
            // Q_k (x_i − μ_k): the diagonal, then the strictly lower part
            for j in 0..d {
                qxcentered[j] = qdiags[c * d + j] * xcentered[j];
            }
            let mut l = d;
            for col in 0..d {
                for row in col + 1..d {
                    qxcentered[row] += icf[c * icf_sz + l] * xcentered[col];
                    l += 1;
                }
            }
            let mut sq = 0.0;
            for j in 0..d {
                sq += qxcentered[j] * qxcentered[j];
            }
            main_term[c] = alphas[c] + sum_qs[c] - 0.5 * sq;
        }
        // log-sum-exp over the components, with a running max
        let mut mx = main_term[0];
        for c in 1..k {
            if main_term[c] > mx {
                mx = main_term[c];
            }
        }
        let mut se = 0.0;
        for c in 0..k {
            se += (main_term[c] - mx).exp();
        }
        slse += se.ln() + mx;
    }
    let mut amx = alphas[0];
    for c in 1..k {
        if alphas[c] > amx {
            amx = alphas[c];
        }
    }
    let mut ase = 0.0;
    for c in 0..k {
        ase += (alphas[c] - amx).exp();
    }
    let lse_alphas = ase.ln() + amx;
    let mut prior = 0.0;
    for c in 0..k {
        let mut frob = 0.0;
        for j in 0..d {
            let q = qdiags[c * d + j];
            frob += q * q;
        }
        for j in d..icf_sz {
            frob += icf[c * icf_sz + j] * icf[c * icf_sz + j];
        }
        prior += 0.5 * WISHART_GAMMA * WISHART_GAMMA * frob - WISHART_M * sum_qs[c];
    }
    slse - n as f64 * lse_alphas + prior
}

/// [`gmm_objective`] and its gradient, by hand: per point, the forward pass
/// keeps each component's `x − μ` and `Q (x − μ)` (K × d each), the
/// log-sum-exp gives the components' weights, and the backward pass of the
/// triangular product runs once per component.
pub fn gmm_by_hand(
    alphas: &[f64],
    means: &[f64],
    icf: &[f64],
    x: &[f64],
    n: usize,
    k: usize,
    d: usize,
    d_alphas: &mut [f64],
    d_means: &mut [f64],
    d_icf: &mut [f64],
) -> f64 {
    let icf_sz = icf_len(d);
    let mut sum_qs = vec![0.0; k];
    let mut diag_exp = vec![0.0; k * d];
    for c in 0..k {
        for j in 0..d {
            sum_qs[c] += icf[c * icf_sz + j];
            diag_exp[c * d + j] = icf[c * icf_sz + j].exp();
        }
    }
    let mut xc = vec![0.0; k * d];
    let mut qxc = vec![0.0; k * d];
    let mut main_term = vec![0.0; k];
    let mut dq = vec![0.0; d];
    let mut slse = 0.0;
    for i in 0..n {
        let xi = &x[i * d..(i + 1) * d];
        for c in 0..k {
            let (xc, qxc) = (&mut xc[c * d..(c + 1) * d], &mut qxc[c * d..(c + 1) * d]);
            let q = &icf[c * icf_sz..(c + 1) * icf_sz];
            for j in 0..d {
                xc[j] = xi[j] - means[c * d + j];
                qxc[j] = diag_exp[c * d + j] * xc[j];
            }
            let mut l = d;
            for col in 0..d {
                for row in col + 1..d {
                    qxc[row] += q[l] * xc[col];
                    l += 1;
                }
            }
            let sq: f64 = qxc.iter().map(|v| v * v).sum();
            main_term[c] = alphas[c] + sum_qs[c] - 0.5 * sq;
        }
        let mx = main_term.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let se: f64 = main_term.iter().map(|&t| (t - mx).exp()).sum();
        let lse = se.ln() + mx;
        slse += lse;
        for c in 0..k {
            // d slse / d main_term[c]: the component's weight
            let w = (main_term[c] - lse).exp();
            d_alphas[c] += w;
            let (xc, qxc) = (&xc[c * d..(c + 1) * d], &qxc[c * d..(c + 1) * d]);
            let q = &icf[c * icf_sz..(c + 1) * icf_sz];
            let dqc = &mut d_icf[c * icf_sz..(c + 1) * icf_sz];
            for j in 0..d {
                dq[j] = -w * qxc[j];
                // sum_qs, and the diagonal of Q
                dqc[j] += w + dq[j] * diag_exp[c * d + j] * xc[j];
            }
            // d xc[j] = Qᵀ dq: the diagonal, then the lower part by column
            let dm = &mut d_means[c * d..(c + 1) * d];
            let mut l = d;
            for col in 0..d {
                let mut dx = dq[col] * diag_exp[c * d + col];
                for row in col + 1..d {
                    dqc[l] += dq[row] * xc[col];
                    dx += dq[row] * q[l];
                    l += 1;
                }
                dm[col] -= dx;
            }
        }
    }
    let amx = alphas.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let ase: f64 = alphas.iter().map(|&a| (a - amx).exp()).sum();
    let lse_alphas = ase.ln() + amx;
    let mut prior = 0.0;
    let g2 = WISHART_GAMMA * WISHART_GAMMA;
    for c in 0..k {
        d_alphas[c] -= n as f64 * (alphas[c] - lse_alphas).exp();
        let mut frob = 0.0;
        for j in 0..d {
            let q = diag_exp[c * d + j];
            frob += q * q;
            d_icf[c * icf_sz + j] += g2 * q * q - WISHART_M;
        }
        for j in d..icf_sz {
            let l = icf[c * icf_sz + j];
            frob += l * l;
            d_icf[c * icf_sz + j] += g2 * l;
        }
        prior += 0.5 * g2 * frob - WISHART_M * sum_qs[c];
    }
    slse - n as f64 * lse_alphas + prior
}

// ----- (b) LSTM over a sequence --------------------------------------------------

/// An LSTM cell of width `b` (input = hidden = `b`) run over `seq`
/// (`t × b`, row-major), predicting each next element from the hidden
/// state: returns `Σ_t ‖h_t − seq_{t+1}‖²`. Parameters: `weight`, `4b × 2b`
/// row-major (the gates' rows in the order input, forget, output, cell;
/// columns: the input, then the hidden state), and `bias`, `4b`.
#[differentiable(wrt(weight, bias))]
pub fn lstm_objective(weight: &[f64], bias: &[f64], seq: &[f64], b: usize, t: usize) -> f64 {
    let mut h = vec![0.0; b];
    let mut c = vec![0.0; b];
    let mut z = vec![0.0; 4 * b];
    let mut loss = 0.0;
    for s in 0..t - 1 {
        for r in 0..4 * b {
            let mut a = bias[r];
            for j in 0..b {
                a += weight[r * 2 * b + j] * seq[s * b + j];
            }
            for j in 0..b {
                a += weight[r * 2 * b + b + j] * h[j];
            }
            z[r] = a;
        }
        for j in 0..b {
            let ig = 1.0 / (1.0 + (-z[j]).exp());
            let fg = 1.0 / (1.0 + (-z[b + j]).exp());
            let og = 1.0 / (1.0 + (-z[2 * b + j]).exp());
            let g = z[3 * b + j].tanh();
            c[j] = fg * c[j] + ig * g;
            h[j] = og * c[j].tanh();
        }
        for j in 0..b {
            let e = h[j] - seq[(s + 1) * b + j];
            loss += e * e;
        }
    }
    loss
}

/// [`lstm_objective`] and its gradient, by hand: the forward pass keeps
/// every step's gates, cell state and hidden state; backpropagation through
/// time walks the steps backwards.
pub fn lstm_by_hand(
    weight: &[f64],
    bias: &[f64],
    seq: &[f64],
    b: usize,
    t: usize,
    d_weight: &mut [f64],
    d_bias: &mut [f64],
) -> f64 {
    let steps = t - 1;
    let sigmoid = |v: f64| 1.0 / (1.0 + (-v).exp());
    // per step: gates (i, f, o, g), then c and h after the step
    let mut gates = vec![0.0; steps * 4 * b];
    let mut cs = vec![0.0; (steps + 1) * b];
    let mut hs = vec![0.0; (steps + 1) * b];
    let mut loss = 0.0;
    for s in 0..steps {
        let (xs, hprev) = (&seq[s * b..(s + 1) * b], &hs[s * b..(s + 1) * b]);
        let mut z = vec![0.0; 4 * b];
        for r in 0..4 * b {
            let row = &weight[r * 2 * b..(r + 1) * 2 * b];
            let mut a = bias[r];
            for j in 0..b {
                a += row[j] * xs[j];
            }
            for j in 0..b {
                a += row[b + j] * hprev[j];
            }
            z[r] = a;
        }
        for j in 0..b {
            let (ig, fg, og, g) = (
                sigmoid(z[j]),
                sigmoid(z[b + j]),
                sigmoid(z[2 * b + j]),
                z[3 * b + j].tanh(),
            );
            let gate = &mut gates[s * 4 * b..(s + 1) * 4 * b];
            gate[j] = ig;
            gate[b + j] = fg;
            gate[2 * b + j] = og;
            gate[3 * b + j] = g;
            let c = fg * cs[s * b + j] + ig * g;
            cs[(s + 1) * b + j] = c;
            hs[(s + 1) * b + j] = og * c.tanh();
            let e = hs[(s + 1) * b + j] - seq[(s + 1) * b + j];
            loss += e * e;
        }
    }
    let mut dh = vec![0.0; b];
    let mut dc = vec![0.0; b];
    let mut dz = vec![0.0; 4 * b];
    for s in (0..steps).rev() {
        let gate = &gates[s * 4 * b..(s + 1) * 4 * b];
        for j in 0..b {
            let h = hs[(s + 1) * b + j];
            dh[j] += 2.0 * (h - seq[(s + 1) * b + j]);
            let (ig, fg, og, g) = (gate[j], gate[b + j], gate[2 * b + j], gate[3 * b + j]);
            let tc = cs[(s + 1) * b + j].tanh();
            let dcj = dc[j] + dh[j] * og * (1.0 - tc * tc);
            dz[j] = dcj * g * ig * (1.0 - ig);
            dz[b + j] = dcj * cs[s * b + j] * fg * (1.0 - fg);
            dz[2 * b + j] = dh[j] * tc * og * (1.0 - og);
            dz[3 * b + j] = dcj * ig * (1.0 - g * g);
            dc[j] = dcj * fg;
        }
        let (xs, hprev) = (&seq[s * b..(s + 1) * b], &hs[s * b..(s + 1) * b]);
        dh.iter_mut().for_each(|v| *v = 0.0);
        for r in 0..4 * b {
            let dr = dz[r];
            d_bias[r] += dr;
            let row = &weight[r * 2 * b..(r + 1) * 2 * b];
            let drow = &mut d_weight[r * 2 * b..(r + 1) * 2 * b];
            for j in 0..b {
                drow[j] += dr * xs[j];
                drow[b + j] += dr * hprev[j];
                dh[j] += dr * row[b + j];
            }
        }
    }
    loss
}

/// Parameters and data of an LSTM row: `(weight, bias, seq)`.
pub fn lstm_data(b: usize, t: usize, seed: u64) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let mut rng = Rng(seed | 1);
    let scale = 1.0 / (2.0 * b as f64).sqrt();
    (
        rng.vec(4 * b * 2 * b, -scale, scale),
        rng.vec(4 * b, -0.1, 0.1),
        rng.vec(t * b, -1.0, 1.0),
    )
}

// ----- (c) explicit time-stepping stencil ---------------------------------------

/// Diffusion number of the heat stencil (stable below ½).
pub const HEAT_NU: f64 = 0.25;
/// Time step of the logistic reaction term.
pub const HEAT_DT: f64 = 0.01;

/// `steps` explicit steps of `u_t = u_xx + u(1 − u)` on `u0` (the ends held
/// fixed), each computing the next state into `next` and copying it back
/// into `u`; returns `½‖u_end − target‖²`.
#[differentiable(wrt(u0))]
pub fn heat_objective(u0: &[f64], target: &[f64], steps: usize) -> f64 {
    let n = u0.len();
    let mut u = u0.to_vec();
    let mut next = u0.to_vec();
    for _ in 0..steps {
        for i in 1..n - 1 {
            next[i] =
                u[i] + HEAT_NU * (u[i - 1] - 2.0 * u[i] + u[i + 1]) + HEAT_DT * u[i] * (1.0 - u[i]);
        }
        for i in 1..n - 1 {
            u[i] = next[i];
        }
    }
    let mut loss = 0.0;
    for i in 0..n {
        let e = u[i] - target[i];
        loss += 0.5 * e * e;
    }
    loss
}

/// [`heat_objective`] and its gradient, by hand: the forward pass keeps
/// every state (`steps + 1` × n); the adjoint state walks back through the
/// transposed stencil.
pub fn heat_by_hand(u0: &[f64], target: &[f64], steps: usize, d_u0: &mut [f64]) -> f64 {
    let n = u0.len();
    let mut states = vec![0.0; (steps + 1) * n];
    states[..n].copy_from_slice(u0);
    for s in 0..steps {
        let (done, rest) = states.split_at_mut((s + 1) * n);
        let (u, next) = (&done[s * n..], &mut rest[..n]);
        next[0] = u[0];
        next[n - 1] = u[n - 1];
        for i in 1..n - 1 {
            next[i] =
                u[i] + HEAT_NU * (u[i - 1] - 2.0 * u[i] + u[i + 1]) + HEAT_DT * u[i] * (1.0 - u[i]);
        }
    }
    let last = &states[steps * n..];
    let mut lam: Vec<f64> = (0..n).map(|i| last[i] - target[i]).collect();
    let loss = lam.iter().map(|e| 0.5 * e * e).sum();
    let mut prev = vec![0.0; n];
    for s in (0..steps).rev() {
        let u = &states[s * n..(s + 1) * n];
        prev[0] = lam[0];
        prev[n - 1] = lam[n - 1];
        for i in 1..n - 1 {
            prev[i] = 0.0;
        }
        for i in 1..n - 1 {
            let l = lam[i];
            prev[i] += l * (1.0 - 2.0 * HEAT_NU + HEAT_DT * (1.0 - 2.0 * u[i]));
            prev[i - 1] += l * HEAT_NU;
            prev[i + 1] += l * HEAT_NU;
        }
        std::mem::swap(&mut lam, &mut prev);
    }
    for i in 0..n {
        d_u0[i] += lam[i];
    }
    loss
}

/// Initial state and target of a heat row.
pub fn heat_data(n: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
    let mut rng = Rng(seed | 1);
    (rng.vec(n, 0.0, 1.0), rng.vec(n, 0.0, 1.0))
}

// ----- (d) triangular solve --------------------------------------------------------

/// Solves `L y = b` by forward substitution (`l` is `n × n` row-major, only
/// its lower triangle read) and returns `½‖y‖²`.
#[differentiable]
pub fn trisolve_objective(l: &[f64], b: &[f64]) -> f64 {
    let n = b.len();
    let mut y = vec![0.0; n];
    for i in 0..n {
        let mut s = b[i];
        for j in 0..i {
            s -= l[i * n + j] * y[j];
        }
        y[i] = s / l[i * n + i];
    }
    let mut out = 0.0;
    for i in 0..n {
        out += 0.5 * y[i] * y[i];
    }
    out
}

/// [`trisolve_objective`] and its gradient, by hand: `λ = L⁻ᵀ y` by back
/// substitution, then `∂/∂b = λ` and `∂/∂L = −λ yᵀ` on the lower triangle.
pub fn trisolve_by_hand(l: &[f64], b: &[f64], d_l: &mut [f64], d_b: &mut [f64]) -> f64 {
    let n = b.len();
    let mut y = vec![0.0; n];
    for i in 0..n {
        let mut s = b[i];
        for j in 0..i {
            s -= l[i * n + j] * y[j];
        }
        y[i] = s / l[i * n + i];
    }
    let out = y.iter().map(|v| 0.5 * v * v).sum();
    // Lᵀ λ = y, from the last row up
    let mut lam = y.clone();
    for i in (0..n).rev() {
        lam[i] /= l[i * n + i];
        let li = lam[i];
        for j in 0..i {
            lam[j] -= l[i * n + j] * li;
        }
    }
    for i in 0..n {
        d_b[i] += lam[i];
        for j in 0..=i {
            d_l[i * n + j] -= lam[i] * y[j];
        }
    }
    out
}

/// A well-conditioned lower-triangular `L` (diagonal in [1, 2], small
/// entries below it; zeros above) and a right-hand side.
pub fn trisolve_data(n: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
    let mut rng = Rng(seed | 1);
    let mut l = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..i {
            l[i * n + j] = rng.uniform(-1.0, 1.0) / n as f64;
        }
        l[i * n + i] = rng.uniform(1.0, 2.0);
    }
    (l, rng.vec(n, -1.0, 1.0))
}

// ----- (e) dense product through tanh -------------------------------------------

/// `‖tanh(A B)‖²` for `n × n` matrices `a` and `b` (row-major), written as
/// the triple loop people write: each entry's sum, then its `tanh`, into a
/// buffer written before it is read.
#[differentiable(wrt(a, b))]
pub fn product_objective(a: &[f64], b: &[f64], n: usize) -> f64 {
    let mut c = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            let mut s = 0.0;
            for k in 0..n {
                s += a[i * n + k] * b[k * n + j];
            }
            c[i * n + j] = s.tanh();
        }
    }
    let mut out = 0.0;
    for i in 0..n * n {
        out += c[i] * c[i];
    }
    out
}

/// [`product_objective`] and its gradient, by hand: the forward pass keeps
/// `C`; each entry's `d/ds = 2 c (1 − c²)` is spread over its row of `A`
/// and column of `B`.
pub fn product_by_hand(a: &[f64], b: &[f64], n: usize, d_a: &mut [f64], d_b: &mut [f64]) -> f64 {
    let mut c = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            let mut s = 0.0;
            for k in 0..n {
                s += a[i * n + k] * b[k * n + j];
            }
            c[i * n + j] = s.tanh();
        }
    }
    let out = c.iter().map(|v| v * v).sum();
    for i in 0..n {
        for j in 0..n {
            let t = c[i * n + j];
            let ds = 2.0 * t * (1.0 - t * t);
            for k in 0..n {
                d_a[i * n + k] += ds * b[k * n + j];
                d_b[k * n + j] += ds * a[i * n + k];
            }
        }
    }
    out
}

/// Two `n × n` matrices with entries small enough that `tanh` is not flat.
pub fn product_data(n: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
    let mut rng = Rng(seed | 1);
    let scale = 1.0 / (n as f64).sqrt();
    (rng.vec(n * n, -scale, scale), rng.vec(n * n, -scale, scale))
}

// ----- (f) pair energy --------------------------------------------------------------

/// `Σ_{i<j} (r⁻¹² − r⁻⁶)` with `r² = (x_i − x_j)² + ½` (points on a line,
/// softened): a double sum, as people write it.
#[differentiable]
pub fn pairs_objective(x: &[f64]) -> f64 {
    let n = x.len();
    let mut e = 0.0;
    for i in 0..n {
        for j in i + 1..n {
            let d = x[i] - x[j];
            let r2 = d * d + 0.5;
            let inv = 1.0 / (r2 * r2 * r2);
            e += inv * inv - inv;
        }
    }
    e
}

/// [`pairs_objective`] and its gradient, by hand: each pair's term and its
/// derivative in one pass.
pub fn pairs_by_hand(x: &[f64], d_x: &mut [f64]) -> f64 {
    let n = x.len();
    let mut e = 0.0;
    for i in 0..n {
        for j in i + 1..n {
            let d = x[i] - x[j];
            let r2 = d * d + 0.5;
            let inv = 1.0 / (r2 * r2 * r2);
            e += inv * inv - inv;
            // de/dinv = 2 inv − 1, dinv/dr2 = −3 inv / r2, dr2/dd = 2 d
            let dd = (2.0 * inv - 1.0) * (-3.0 * inv / r2) * 2.0 * d;
            d_x[i] += dd;
            d_x[j] -= dd;
        }
    }
    e
}

/// `n` points spread over `[−n/4, n/4]`.
pub fn pairs_data(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = Rng(seed | 1);
    let half = n as f64 / 4.0;
    rng.vec(n, -half, half)
}

// ----- (g) k-means ---------------------------------------------------------------

/// The k-means objective `Σ_i min_c ‖x_i − μ_c‖²` (`x`: `n × d` points,
/// `mu`: `k × d` centres, row-major): per point, a running minimum over the
/// centres, as people write it.
#[differentiable(wrt(mu))]
pub fn kmeans_objective(mu: &[f64], x: &[f64], k: usize, d: usize) -> f64 {
    let n = x.len() / d;
    let mut loss = 0.0;
    for i in 0..n {
        let mut best = f64::INFINITY;
        for c in 0..k {
            let mut s = 0.0;
            for t in 0..d {
                let e = x[i * d + t] - mu[c * d + t];
                s += e * e;
            }
            if s < best {
                best = s;
            }
        }
        loss += best;
    }
    loss
}

/// [`kmeans_objective`] and its gradient, by hand: per point, the nearest
/// centre (the first of equals, as the objective's `<` keeps it), then
/// `−2 (x_i − μ_c)` into that centre's gradient. The distances are computed
/// as the objective computes them (indexed loops), so that the comparison
/// measures what the gradient adds: with iterator chains over slices
/// instead (no bounds checks, vectorised), this gradient takes 0.5–0.9×
/// the objective's own instructions, and the generated one 1.9–2.3× it.
pub fn kmeans_by_hand(mu: &[f64], x: &[f64], k: usize, d: usize, d_mu: &mut [f64]) -> f64 {
    let n = x.len() / d;
    let mut loss = 0.0;
    for i in 0..n {
        let (mut best, mut arg) = (f64::INFINITY, 0);
        for c in 0..k {
            let mut s = 0.0;
            for t in 0..d {
                let e = x[i * d + t] - mu[c * d + t];
                s += e * e;
            }
            if s < best {
                best = s;
                arg = c;
            }
        }
        loss += best;
        for t in 0..d {
            d_mu[arg * d + t] -= 2.0 * (x[i * d + t] - mu[arg * d + t]);
        }
    }
    loss
}

/// `n` points and `k` centres in `d` dimensions, uniform in `[−1, 1)`.
pub fn kmeans_data(n: usize, k: usize, d: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
    let mut rng = Rng(seed | 1);
    (rng.vec(k * d, -1.0, 1.0), rng.vec(n * d, -1.0, 1.0))
}

// ----- (h) softmax regression -------------------------------------------------

/// The mean cross-entropy of a linear softmax classifier (`w`: `c × p`
/// weights, `x`: `n × p` features, row-major): per sample, each class's
/// score a dot product into a buffer, with a running maximum for a stable
/// log-sum-exp, as people write it.
#[differentiable(wrt(w))]
pub fn softmax_objective(w: &[f64], x: &[f64], labels: &[usize], p: usize) -> f64 {
    let c = w.len() / p;
    let n = labels.len();
    let mut logits = vec![0.0; c];
    let mut loss = 0.0;
    for i in 0..n {
        let mut m = f64::NEG_INFINITY;
        for k in 0..c {
            let mut s = 0.0;
            for j in 0..p {
                s += w[k * p + j] * x[i * p + j];
            }
            logits[k] = s;
            if s > m {
                m = s;
            }
        }
        let mut z = 0.0;
        for k in 0..c {
            z += (logits[k] - m).exp();
        }
        loss += m + z.ln() - logits[labels[i]];
    }
    loss / n as f64
}

/// [`softmax_objective`] and its gradient, by hand: per sample, the
/// probabilities `softmax(scores)` minus the label's indicator, times the
/// features, into each class's row.
pub fn softmax_by_hand(w: &[f64], x: &[f64], labels: &[usize], p: usize, d_w: &mut [f64]) -> f64 {
    let c = w.len() / p;
    let n = labels.len();
    let mut logits = vec![0.0; c];
    let mut loss = 0.0;
    let scale = 1.0 / n as f64;
    for i in 0..n {
        let mut m = f64::NEG_INFINITY;
        for k in 0..c {
            let mut s = 0.0;
            for j in 0..p {
                s += w[k * p + j] * x[i * p + j];
            }
            logits[k] = s;
            if s > m {
                m = s;
            }
        }
        let label = logits[labels[i]];
        let mut z = 0.0;
        for k in 0..c {
            logits[k] = (logits[k] - m).exp();
            z += logits[k];
        }
        loss += m + z.ln() - label;
        for k in 0..c {
            let mut g = logits[k] / z;
            if k == labels[i] {
                g -= 1.0;
            }
            let g = g * scale;
            for j in 0..p {
                d_w[k * p + j] += g * x[i * p + j];
            }
        }
    }
    loss / n as f64
}

/// `n` samples of `p` features in `[−1, 1)`, labels in `0..c`, and `c × p`
/// weights in `[−1, 1)`.
pub fn softmax_data(n: usize, p: usize, c: usize, seed: u64) -> (Vec<f64>, Vec<f64>, Vec<usize>) {
    let mut rng = Rng(seed | 1);
    let w = rng.vec(c * p, -1.0, 1.0);
    let x = rng.vec(n * p, -1.0, 1.0);
    let labels = (0..n)
        .map(|_| (rng.unit() * c as f64) as usize % c)
        .collect();
    (w, x, labels)
}

// ----- (i) Chebyshev series fit -----------------------------------------------

/// The squared error of a Chebyshev series `Σ_k c_k T_k(x)` at `n` points,
/// each series evaluated by the three-term recurrence `T_{k+1} = 2x T_k −
/// T_{k−1}`: a loop carrying two values that do not depend on the
/// coefficients beside the sum that does.
#[differentiable(wrt(c))]
pub fn chebyshev_objective(c: &[f64], xs: &[f64], ys: &[f64]) -> f64 {
    let mut loss = 0.0;
    for i in 0..xs.len() {
        let x = xs[i];
        let mut t0 = 1.0;
        let mut t1 = x;
        let mut p = c[0] + c[1] * x;
        for k in 2..c.len() {
            let t2 = 2.0 * x * t1 - t0;
            p += c[k] * t2;
            t0 = t1;
            t1 = t2;
        }
        let e = p - ys[i];
        loss += e * e;
    }
    loss
}

/// [`chebyshev_objective`] and its gradient, by hand: `2 e T_k(x)` into
/// each coefficient, the recurrence run again after the value.
pub fn chebyshev_by_hand(c: &[f64], xs: &[f64], ys: &[f64], d_c: &mut [f64]) -> f64 {
    let mut loss = 0.0;
    for i in 0..xs.len() {
        let x = xs[i];
        let mut t0 = 1.0;
        let mut t1 = x;
        let mut p = c[0] + c[1] * x;
        for k in 2..c.len() {
            let t2 = 2.0 * x * t1 - t0;
            p += c[k] * t2;
            t0 = t1;
            t1 = t2;
        }
        let e = p - ys[i];
        loss += e * e;
        let g = 2.0 * e;
        d_c[0] += g;
        d_c[1] += g * x;
        let (mut t0, mut t1) = (1.0, x);
        for k in 2..c.len() {
            let t2 = 2.0 * x * t1 - t0;
            d_c[k] += g * t2;
            t0 = t1;
            t1 = t2;
        }
    }
    loss
}

/// `m` coefficients and `n` points in `[−1, 1)` with values there.
pub fn chebyshev_data(n: usize, m: usize, seed: u64) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let mut rng = Rng(seed | 1);
    (
        rng.vec(m, -1.0, 1.0),
        rng.vec(n, -1.0, 1.0),
        rng.vec(n, -1.0, 1.0),
    )
}

// ----- (k) a pair energy with a cutoff --------------------------------------------

/// A Lennard-Jones energy over the pairs of `pos.len() / 3` points in
/// space, pairs farther apart than `cutoff` left out: `Σ_{i<j, r² < rc²}
/// 4 (s⁶ − s³)` with `s = 1 / r²`.
#[differentiable(wrt(pos))]
pub fn cutoff_objective(pos: &[f64], cutoff: f64) -> f64 {
    let n = pos.len() / 3;
    let rc2 = cutoff * cutoff;
    let mut e = 0.0;
    for i in 0..n {
        for j in i + 1..n {
            let dx = pos[3 * i] - pos[3 * j];
            let dy = pos[3 * i + 1] - pos[3 * j + 1];
            let dz = pos[3 * i + 2] - pos[3 * j + 2];
            let r2 = dx * dx + dy * dy + dz * dz;
            if r2 < rc2 {
                let s6 = (1.0 / r2).powi(3);
                e += 4.0 * (s6 * s6 - s6);
            }
        }
    }
    e
}

/// [`cutoff_objective`] and its gradient, by hand: per pair inside the
/// cutoff, `dE/dr² = 4 (3 s³ − 6 s⁶) / r²` along the separation.
pub fn cutoff_by_hand(pos: &[f64], cutoff: f64, d_pos: &mut [f64]) -> f64 {
    let n = pos.len() / 3;
    let rc2 = cutoff * cutoff;
    let mut e = 0.0;
    for i in 0..n {
        for j in i + 1..n {
            let dx = pos[3 * i] - pos[3 * j];
            let dy = pos[3 * i + 1] - pos[3 * j + 1];
            let dz = pos[3 * i + 2] - pos[3 * j + 2];
            let r2 = dx * dx + dy * dy + dz * dz;
            if r2 < rc2 {
                let inv = 1.0 / r2;
                let s6 = inv * inv * inv;
                e += 4.0 * (s6 * s6 - s6);
                let de = 4.0 * (3.0 * s6 - 6.0 * s6 * s6) * inv;
                let (gx, gy, gz) = (2.0 * de * dx, 2.0 * de * dy, 2.0 * de * dz);
                d_pos[3 * i] += gx;
                d_pos[3 * i + 1] += gy;
                d_pos[3 * i + 2] += gz;
                d_pos[3 * j] -= gx;
                d_pos[3 * j + 1] -= gy;
                d_pos[3 * j + 2] -= gz;
            }
        }
    }
    e
}

/// `n` points on a jittered cubic lattice of spacing 1.1 (about a fifth of
/// the pairs within the cutoff 2.5 at n = 125).
pub fn cutoff_data(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = Rng(seed | 1);
    let side = (1..).find(|s| s * s * s >= n).unwrap_or(1);
    let mut pos = Vec::with_capacity(3 * n);
    for i in 0..n {
        for coordinate in [i % side, (i / side) % side, i / side / side] {
            pos.push(coordinate as f64 * 1.1 + rng.uniform(-0.05, 0.05));
        }
    }
    pos
}

// ----- (l) Gauss–Seidel sweeps -----------------------------------------------------

/// `sweeps` Gauss–Seidel sweeps for `−u'' = f` on `f.len()` interior points
/// of the unit interval (zero at both ends), in place, then `‖u − target‖²`.
#[differentiable(wrt(f))]
pub fn gauss_seidel_objective(f: &[f64], target: &[f64], sweeps: usize) -> f64 {
    let n = f.len();
    let h2 = 1.0 / ((n + 1) * (n + 1)) as f64;
    let mut u = vec![0.0; n];
    for _ in 0..sweeps {
        for i in 0..n {
            let left = if i > 0 { u[i - 1] } else { 0.0 };
            let right = if i + 1 < n { u[i + 1] } else { 0.0 };
            u[i] = 0.5 * (left + right + h2 * f[i]);
        }
    }
    let mut loss = 0.0;
    for i in 0..n {
        let d = u[i] - target[i];
        loss += d * d;
    }
    loss
}

/// [`gauss_seidel_objective`] and its gradient, by hand: the sweeps are
/// linear in `u` and `f`, so the reverse is the transposed sweeps, last
/// point first, with nothing of the forward sweep kept.
pub fn gauss_seidel_by_hand(f: &[f64], target: &[f64], sweeps: usize, d_f: &mut [f64]) -> f64 {
    let n = f.len();
    let h2 = 1.0 / ((n + 1) * (n + 1)) as f64;
    let mut u = vec![0.0; n];
    for _ in 0..sweeps {
        for i in 0..n {
            let left = if i > 0 { u[i - 1] } else { 0.0 };
            let right = if i + 1 < n { u[i + 1] } else { 0.0 };
            u[i] = 0.5 * (left + right + h2 * f[i]);
        }
    }
    let mut loss = 0.0;
    let mut du = vec![0.0; n];
    for i in 0..n {
        let d = u[i] - target[i];
        loss += d * d;
        du[i] = 2.0 * d;
    }
    for _ in 0..sweeps {
        for i in (0..n).rev() {
            let a = 0.5 * du[i];
            du[i] = 0.0;
            if i > 0 {
                du[i - 1] += a;
            }
            if i + 1 < n {
                du[i + 1] += a;
            }
            d_f[i] += h2 * a;
        }
    }
    loss
}

/// A right-hand side and a target for [`gauss_seidel_objective`].
pub fn gauss_seidel_data(n: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
    let mut rng = Rng(seed | 1);
    (rng.vec(n, -1.0, 1.0), rng.vec(n, -0.01, 0.01))
}

// ----- (l) ADBench's LSTM, as a user ports it -----------------------------------

/// The logistic function, a helper the LSTM's gates call.
#[differentiable]
pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// ADBench's `logsumexp`: `ln(Σ exp(v_i) + 2)` over the first `b` entries.
#[differentiable]
pub fn logsumexp(v: &[f64], b: usize) -> f64 {
    let mut sum = 0.0;
    for i in 0..b {
        sum += v[i].exp();
    }
    sum += 2.0;
    sum.ln()
}

/// ADBench's LSTM objective (`lstm_objective` of its C++ reference),
/// ported as a user would: `l` layers of a diagonal LSTM of width `b`
/// (`main_params`: per layer 4b weights, then 4b biases; `extra_params`:
/// the input scale, the output scale and the output bias, b each) run over
/// a sequence of `c` entries of `b` values, predicting each next entry;
/// `lstm_model` and `lstm_predict` inlined (a `#[differentiable]` function
/// takes no `&mut` state), the gates into a buffer every step overwrites,
/// `sigmoid` and `logsumexp(&ypred, b)` as helper calls. Its nest calls a
/// helper with a buffer it overwrites every step (`record::copied_args`)
/// and one with a scalar (`partials_in_forward`).
#[differentiable(wrt(main_params, extra_params))]
pub fn adbench_lstm_objective(
    l: usize,
    c: usize,
    b: usize,
    main_params: &[f64],
    extra_params: &[f64],
    state: &[f64],
    sequence: &[f64],
) -> f64 {
    let mut s = state.to_vec();
    let mut total = 0.0;
    let mut count = 0;
    let mut input = 0;
    let mut ypred = vec![0.0; b];
    let mut ynorm = vec![0.0; b];
    let mut gates = vec![0.0; 4 * b];
    let mut xp = vec![0.0; b];
    for t in 0..c - 1 {
        // lstm_predict
        for i in 0..b {
            ypred[i] = sequence[input + i] * extra_params[i];
        }
        for i in 0..b {
            xp[i] = ypred[i];
        }
        for layer in 0..l {
            let w = layer * 8 * b;
            let bias = w + 4 * b;
            let h = layer * 2 * b;
            let cl = h + b;
            // lstm_model
            for i in 0..b {
                gates[i] = sigmoid(xp[i] * main_params[w + i] + main_params[bias + i]);
                gates[b + i] =
                    sigmoid(s[h + i] * main_params[w + b + i] + main_params[bias + b + i]);
                gates[2 * b + i] =
                    sigmoid(xp[i] * main_params[w + 2 * b + i] + main_params[bias + 2 * b + i]);
                gates[3 * b + i] =
                    (s[h + i] * main_params[w + 3 * b + i] + main_params[bias + 3 * b + i]).tanh();
            }
            for i in 0..b {
                s[cl + i] = s[cl + i] * gates[i] + gates[b + i] * gates[3 * b + i];
            }
            for i in 0..b {
                s[h + i] = gates[2 * b + i] * s[cl + i].tanh();
            }
            for i in 0..b {
                xp[i] = s[h + i];
            }
        }
        for i in 0..b {
            ypred[i] = xp[i] * extra_params[b + i] + extra_params[2 * b + i];
        }
        let lse = logsumexp(&ypred, b);
        for i in 0..b {
            ynorm[i] = ypred[i] - lse;
        }
        let target = &sequence[(t + 1) * b..(t + 2) * b];
        for i in 0..b {
            total += target[i] * ynorm[i];
        }
        count += b;
        input = (t + 1) * b;
    }
    -total / count as f64
}

/// Parameters, state and sequence of [`adbench_lstm_objective`]: `l`
/// layers of width `b`, a sequence of `c` entries.
pub fn adbench_lstm_data(l: usize, c: usize, b: usize, seed: u64) -> [Vec<f64>; 4] {
    let mut rng = Rng(seed | 1);
    [
        rng.vec(8 * l * b, -0.5, 0.5),
        rng.vec(3 * b, -0.5, 0.5),
        rng.vec(2 * l * b, -0.5, 0.5),
        rng.vec(c * b, -1.0, 1.0),
    ]
}

/// [`adbench_lstm_objective`] and its gradient, by hand: the forward pass
/// keeps, per step and layer, the layer's input, the previous hidden and
/// cell states, the four gates and `tanh` of the new cell, and per step the
/// exponentials of the predictions and their sum; the backward pass runs
/// back through time and down through the layers.
pub fn adbench_lstm_by_hand(
    l: usize,
    c: usize,
    b: usize,
    main_params: &[f64],
    extra_params: &[f64],
    state: &[f64],
    sequence: &[f64],
    d_main: &mut [f64],
    d_extra: &mut [f64],
) -> f64 {
    let logistic = |x: f64| 1.0 / (1.0 + (-x).exp());
    let steps = c - 1;
    let mut s = state.to_vec();
    let rec = 8 * b;
    let mut tape = vec![0.0; steps * l * rec];
    let mut eyp = vec![0.0; steps * b];
    let mut sums = vec![0.0; steps];
    let mut ypred = vec![0.0; b];
    let mut total = 0.0;
    let mut count = 0;
    for t in 0..steps {
        let input = &sequence[t * b..(t + 1) * b];
        for k in 0..l {
            let w = &main_params[k * 8 * b..k * 8 * b + 4 * b];
            let bias = &main_params[k * 8 * b + 4 * b..(k + 1) * 8 * b];
            let r = &mut tape[(t * l + k) * rec..(t * l + k + 1) * rec];
            if k == 0 {
                for i in 0..b {
                    r[i] = input[i] * extra_params[i];
                }
            } else {
                let hp = (k - 1) * 2 * b;
                r[..b].copy_from_slice(&s[hp..hp + b]);
            }
            let (hs, cs) = s[k * 2 * b..(k + 1) * 2 * b].split_at_mut(b);
            r[b..2 * b].copy_from_slice(hs);
            r[2 * b..3 * b].copy_from_slice(cs);
            for i in 0..b {
                let (x, h) = (r[i], hs[i]);
                let f = logistic(x * w[i] + bias[i]);
                let ig = logistic(h * w[b + i] + bias[b + i]);
                let o = logistic(x * w[2 * b + i] + bias[2 * b + i]);
                let ch = (h * w[3 * b + i] + bias[3 * b + i]).tanh();
                let cn = cs[i] * f + ig * ch;
                let tc = cn.tanh();
                cs[i] = cn;
                hs[i] = o * tc;
                r[3 * b + i] = f;
                r[4 * b + i] = ig;
                r[5 * b + i] = o;
                r[6 * b + i] = ch;
                r[7 * b + i] = tc;
            }
        }
        let hl = (l - 1) * 2 * b;
        let mut sum = 0.0;
        for i in 0..b {
            ypred[i] = s[hl + i] * extra_params[b + i] + extra_params[2 * b + i];
            let e = ypred[i].exp();
            eyp[t * b + i] = e;
            sum += e;
        }
        sum += 2.0;
        sums[t] = sum;
        let lse = sum.ln();
        let target = &sequence[(t + 1) * b..(t + 2) * b];
        for i in 0..b {
            total += target[i] * (ypred[i] - lse);
        }
        count += b;
    }
    let value = -total / count as f64;

    let d_total = -1.0 / count as f64;
    let mut dh = vec![0.0; l * b];
    let mut dc = vec![0.0; l * b];
    let mut dx = vec![0.0; b];
    for t in (0..steps).rev() {
        let input = &sequence[t * b..(t + 1) * b];
        let target = &sequence[(t + 1) * b..(t + 2) * b];
        let tsum: f64 = target.iter().sum();
        let sum = sums[t];
        let top = (l - 1) * b;
        let rt = &tape[(t * l + l - 1) * rec..(t * l + l) * rec];
        for i in 0..b {
            let dy = d_total * (target[i] - tsum * eyp[t * b + i] / sum);
            let h = rt[5 * b + i] * rt[7 * b + i];
            d_extra[b + i] += dy * h;
            d_extra[2 * b + i] += dy;
            dh[top + i] += dy * extra_params[b + i];
        }
        for k in (0..l).rev() {
            let w = &main_params[k * 8 * b..k * 8 * b + 4 * b];
            let r = &tape[(t * l + k) * rec..(t * l + k + 1) * rec];
            let (dw, db) = d_main[k * 8 * b..(k + 1) * 8 * b].split_at_mut(4 * b);
            for i in 0..b {
                let (x, hp, cp) = (r[i], r[b + i], r[2 * b + i]);
                let (f, ig, o) = (r[3 * b + i], r[4 * b + i], r[5 * b + i]);
                let (ch, tc) = (r[6 * b + i], r[7 * b + i]);
                let dhn = dh[k * b + i];
                let d_o = dhn * tc;
                let dcn = dc[k * b + i] + dhn * o * (1.0 - tc * tc);
                let dzf = dcn * cp * f * (1.0 - f);
                let dzi = dcn * ch * ig * (1.0 - ig);
                let dzo = d_o * o * (1.0 - o);
                let dzc = dcn * ig * (1.0 - ch * ch);
                dw[i] += dzf * x;
                db[i] += dzf;
                dw[b + i] += dzi * hp;
                db[b + i] += dzi;
                dw[2 * b + i] += dzo * x;
                db[2 * b + i] += dzo;
                dw[3 * b + i] += dzc * hp;
                db[3 * b + i] += dzc;
                dx[i] = dzf * w[i] + dzo * w[2 * b + i];
                dh[k * b + i] = dzi * w[b + i] + dzc * w[3 * b + i];
                dc[k * b + i] = dcn * f;
            }
            if k > 0 {
                for i in 0..b {
                    dh[(k - 1) * b + i] += dx[i];
                }
            } else {
                for i in 0..b {
                    d_extra[i] += dx[i] * input[i];
                }
            }
        }
    }
    value
}

// ----- (m) forward substitution by columns, in place -----------------------------

/// `½‖y‖²` for `L y = b` solved by columns, in place: `y[j]` divided by
/// the diagonal, then subtracted from every `y[i]` below it, so every
/// element is overwritten many times (`lower/share.rs`: the inner loop's
/// `y[j]` is the quotient stored before it).
#[differentiable(wrt(l, b))]
pub fn colsolve_objective(l: &[f64], b: &[f64], n: usize) -> f64 {
    let mut y = b.to_vec();
    for j in 0..n {
        y[j] /= l[j * n + j];
        for i in j + 1..n {
            y[i] -= l[i * n + j] * y[j];
        }
    }
    let mut loss = 0.0;
    for i in 0..n {
        loss += y[i] * y[i];
    }
    0.5 * loss
}

/// [`colsolve_objective`] and its gradient, by hand: `y[j]` is final after
/// step `j`, so the reverse needs no saved values; each column's sum in a
/// local.
pub fn colsolve_by_hand(l: &[f64], b: &[f64], n: usize, d_l: &mut [f64], d_b: &mut [f64]) -> f64 {
    let mut y = b.to_vec();
    for j in 0..n {
        y[j] /= l[j * n + j];
        let yj = y[j];
        for i in j + 1..n {
            y[i] -= l[i * n + j] * yj;
        }
    }
    let mut loss = 0.0;
    for i in 0..n {
        loss += y[i] * y[i];
    }
    let mut yb = y.clone();
    for j in (0..n).rev() {
        let yj = y[j];
        let mut acc = yb[j];
        for i in j + 1..n {
            d_l[i * n + j] -= yb[i] * yj;
            acc -= yb[i] * l[i * n + j];
        }
        let ljj = l[j * n + j];
        d_l[j * n + j] -= acc * yj / ljj;
        yb[j] = acc / ljj;
    }
    for i in 0..n {
        d_b[i] += yb[i];
    }
    0.5 * loss
}
