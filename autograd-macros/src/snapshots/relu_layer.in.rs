// A layer of ReLU units on a batch: each unit's dot product is read by a
// kink only, so its reverse may be skipped; where it runs it is counted up,
// the enclosing indices passed through `black_box` inside the skip test.
#[differentiable(wrt(w))]
fn relu_layer(w: &[f64], x: &[f64], p: usize) -> f64 {
    let units = w.len() / p;
    let samples = x.len() / p;
    let mut hidden = vec![0.0; units];
    let mut loss = 0.0;
    for i in 0..samples {
        for j in 0..units {
            let mut s = 0.0;
            for k in 0..p {
                s += w[j * p + k] * x[i * p + k];
            }
            hidden[j] = s.max(0.0);
        }
        let mut out = 0.0;
        for j in 0..units {
            out += hidden[j];
        }
        loss += (out - 0.5) * (out - 0.5);
    }
    loss
}
