// A Gaussian mixture's log-likelihood as users write it: the scale
// `(-ls).exp()` of each component and dimension, which the loop over points
// does not change, is computed once per element before it, into a table
// the loop reads (`lower/tabulate.rs`); the reverse sends the table's
// adjoint through `exp` once per element.
#[differentiable(wrt(alpha, mu, log_sigma))]
pub fn mixture(alpha: &[f64], mu: &[f64], log_sigma: &[f64], x: &[f64]) -> f64 {
    let k = alpha.len();
    let d = mu.len() / k;
    let n = x.len() / d;
    let log_norm = logsumexp(alpha);
    let half_log_2pi = 0.5 * (2.0 * std::f64::consts::PI).ln();
    let mut comp = vec![0.0; k];
    let mut nll = 0.0;
    for p in 0..n {
        let xp = &x[p * d..(p + 1) * d];
        for c in 0..k {
            let mut q = 0.0;
            let mut log_det = 0.0;
            for j in 0..d {
                let ls = log_sigma[c * d + j];
                let z = (xp[j] - mu[c * d + j]) * (-ls).exp();
                q += z * z;
                log_det += ls;
            }
            comp[c] = alpha[c] - log_norm - 0.5 * q - log_det - d as f64 * half_log_2pi;
        }
        nll -= logsumexp(&comp);
    }
    nll / n as f64
}
