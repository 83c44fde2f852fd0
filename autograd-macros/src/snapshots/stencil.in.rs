// An explicit time-stepping stencil (record.rs): `next` and `u` are
// overwritten every step. The copy `u[i] = next[i]` is undone as a span
// (one copy of `u[1..n - 1]` a step, `record::spans`), which costs less
// than recording `u[i]` once per cell and step (`keeps_undo`), so the
// reverse reads `u[i]` again; `0.01 * u[i]` and `1.0 - u[i]`, one
// operation of it and constants, are recomputed from it.
#[differentiable(wrt(u0))]
fn heat(u0: &[f64], target: &[f64], steps: usize) -> f64 {
    let n = u0.len();
    let mut u = u0.to_vec();
    let mut next = u0.to_vec();
    for _ in 0..steps {
        for i in 1..n - 1 {
            next[i] = u[i] + 0.25 * (u[i - 1] - 2.0 * u[i] + u[i + 1]) + 0.01 * u[i] * (1.0 - u[i]);
        }
        for i in 1..n - 1 {
            u[i] = next[i];
        }
    }
    let mut loss = 0.0;
    for i in 0..n {
        let e = u[i] - target[i];
        loss += 0.5 * e * e;
    }
    loss
}
