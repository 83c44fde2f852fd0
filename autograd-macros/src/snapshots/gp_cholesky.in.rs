// A Gaussian process's negative log marginal likelihood (record.rs,
// keeps_undo): the kernel matrix `k`, built with its diagonal's noise in
// an `if`, then factorised in place, keeps its undo tape, so the reverse
// of the Cholesky factorisation reads `k` again instead of recording
// every operand of its inner products (an `if` is no loop level in the
// weighing: the noise is one store a row).
#[differentiable(wrt(log_l, log_sf2, log_noise))]
pub fn gp_nll(log_l: f64, log_sf2: f64, log_noise: f64, x: &[f64], y: &[f64]) -> f64 {
    let n = x.len();
    let l = log_l.exp();
    let sf2 = log_sf2.exp();
    let noise = log_noise.exp();
    let mut k = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            let r = x[i] - x[j];
            k[i * n + j] = sf2 * (-0.5 * r * r / (l * l)).exp();
            if i == j {
                k[i * n + j] += noise;
            }
        }
    }
    // Cholesky, in place, lower triangle
    for j in 0..n {
        let mut d = k[j * n + j];
        for p in 0..j {
            d -= k[j * n + p] * k[j * n + p];
        }
        let ljj = d.sqrt();
        k[j * n + j] = ljj;
        for i in j + 1..n {
            let mut s = k[i * n + j];
            for p in 0..j {
                s -= k[i * n + p] * k[j * n + p];
            }
            k[i * n + j] = s / ljj;
        }
    }
    // forward solve L a = y
    let mut a = vec![0.0; n];
    for i in 0..n {
        let mut s = y[i];
        for p in 0..i {
            s -= k[i * n + p] * a[p];
        }
        a[i] = s / k[i * n + i];
    }
    let mut nll = 0.0;
    for i in 0..n {
        nll += 0.5 * a[i] * a[i] + k[i * n + i].ln();
    }
    nll + 0.5 * n as f64 * (2.0 * std::f64::consts::PI).ln()
}
