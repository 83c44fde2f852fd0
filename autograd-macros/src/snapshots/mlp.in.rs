#[differentiable(wrt(w))]
fn mlp_loss(w: &[f64], xs: &[f64], ys: &[f64]) -> f64 {
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
