// Two grids swapped every time step (`std::mem::swap`), a linear step: its
// reverse reads no grid value, so neither grid has an undo tape, and the
// swap runs as an exchange of the two buffers (`Body::swapped_buffers`),
// its reverse as an exchange of their adjoints, where an element loop and
// its reverse made a pass over both grids a step.
#[differentiable(wrt(u0))]
fn diffuse(u0: &[f64], target: &[f64], steps: usize) -> f64 {
    let n = u0.len();
    let mut u = u0.to_vec();
    let mut next = vec![0.0; n];
    for _ in 0..steps {
        for i in 1..n - 1 {
            next[i] = u[i] + 0.25 * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        }
        std::mem::swap(&mut u, &mut next);
    }
    let mut loss = 0.0;
    for i in 0..n {
        let e = u[i] - target[i];
        loss += 0.5 * e * e;
    }
    loss
}
