fn layer(w: &[f64], xs: &[f64], n: usize) -> f64 {
    let mut loss = 0.0;
    for s in 0..xs.len() / n {
        let mut h = vec![0.0; n];
        for j in 0..n {
            let mut a = 0.0;
            for k in 0..n {
                a += w[j * n + k] * xs[s * n + k];
            }
            h[j] = a.tanh();
        }
        let mut o = 0.0;
        for j in 0..n {
            o += w[j] * h[j];
        }
        loss += o * o;
    }
    loss
}
