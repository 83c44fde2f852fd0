// Arrays a recorded nest declares (record.rs, Shaped): a helper's returned
// arrays `k1`, `k2` and a stage state `ys`, each step its own. The forward
// sweep records their shapes (`shape_of`: nothing to store for a
// `[f64; 2]`) and copies `ys` and `y` for the helper's adjoint; the
// reverse of each step takes the shapes back first and makes the adjoints
// `d_k1`, `d_k2`, `d_ys` and the twin of `ys` from them (`zeros_of`).
// (Its loops run over `y.len()`: loops of a literal count would be
// written out, `unroll.rs`.)
#[differentiable(wrt(p, y0))]
fn heun_fit(p: &[f64], y0: &[f64; 2], obs: &[f64], steps: usize) -> f64 {
    let mut y = [y0[0], y0[1]];
    let mut loss = 0.0;
    for s in 0..steps {
        let k1 = rhs(&y, p);
        let mut ys = [0.0; 2];
        for i in 0..y.len() {
            ys[i] = y[i] + 0.1 * k1[i];
        }
        let k2 = rhs(&ys, p);
        for i in 0..y.len() {
            y[i] += 0.05 * (k1[i] + k2[i]);
        }
        let e = y[0] - obs[s];
        loss += e * e;
    }
    loss
}
