// A call in a fused loop's body whose result reaches the sum through a
// `-` (emit/reverse.rs, early_calls): the forward code calls
// `lse_adjoint` with the sum's seed, and the callee runs once.
#[differentiable(wrt(w))]
pub fn softmax_loss(w: &[f64], xs: &[f64], labels: &[usize], d: usize, c: usize) -> f64 {
    let n = labels.len();
    let mut total = 0.0;
    for i in 0..n {
        let x = &xs[i * d..(i + 1) * d];
        let mut logits = vec![0.0; c];
        for k in 0..c {
            let row = &w[k * (d + 1)..(k + 1) * (d + 1)];
            let mut s = row[d];
            for j in 0..d {
                s += row[j] * x[j];
            }
            logits[k] = s;
        }
        total += lse(&logits) - logits[labels[i]];
    }
    total / n as f64
}
