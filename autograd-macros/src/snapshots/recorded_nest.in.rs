// A loop nest in the function body is recorded (record.rs): forward
// substitution `L y = b`, then ½‖y‖². `y` keeps its undo tape so that the
// reverse reads `y[j]` again; `s`'s entries are not needed.
#[differentiable]
fn trisolve(l: &[f64], b: &[f64]) -> f64 {
    let n = b.len();
    let mut y = vec![0.0; n];
    for i in 0..n {
        let mut s = b[i];
        for j in 0..i {
            s -= l[i * n + j] * y[j];
        }
        y[i] = s / l[i * n + i];
    }
    let mut out = 0.0;
    for i in 0..n {
        out += 0.5 * y[i] * y[i];
    }
    out
}
