// A `vec!` buffer declared every step that the step fills before reading
// it (lower/buffers.rs): lowered as declared once before the loop, an array
// the nest overwrites (its values kept on an undo tape), not a pooled
// buffer a step.
#[differentiable(wrt(w))]
fn elman(w: &[f64], xs: &[f64], n: usize, steps: usize) -> f64 {
    let mut h = vec![0.0; n];
    let mut loss = 0.0;
    for t in 0..steps {
        let mut hnew = vec![0.0; n];
        for i in 0..n {
            let mut s = xs[t * n + i];
            for k in 0..n {
                s += w[i * n + k] * h[k];
            }
            hnew[i] = s.tanh();
        }
        for i in 0..n {
            h[i] = hnew[i];
        }
        loss += h[0];
    }
    loss
}
