// A nest whose replay would save nothing (the sums only accumulate, `c` is
// written before it is read) is recorded all the same when the function
// allocates anyway (record.rs): replaying it would run each inner sum
// twice more; recorded, the reverse takes back two floats per entry of `c`.
#[differentiable(wrt(a, b))]
fn product(a: &[f64], b: &[f64], n: usize) -> f64 {
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
