// Forward substitution by columns, in place (lower/share.rs): the inner
// loop stores only at `i`, which its range keeps from `j`, so its `y[j]`
// is the quotient stored before it — one value for the loop, no load, no
// record and no adjoint in memory an iteration.
#[differentiable(wrt(l, b))]
fn column_solve(l: &[f64], b: &[f64], n: usize) -> f64 {
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
