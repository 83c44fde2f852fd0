// Gauss–Seidel sweeps: the boundary `if`s read only the loop index and the
// length, so the reverse evaluates them again (`let __ad_c2: bool = i > 0;`)
// instead of recording them.
#[differentiable(wrt(f))]
fn gauss_seidel(f: &[f64], target: &[f64], sweeps: usize) -> f64 {
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
