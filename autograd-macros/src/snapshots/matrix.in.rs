// A local array of arrays: one flat array, `m[i][j]` its element
// `i * 2 + j`, a row read whole a copy of its elements.
#[differentiable]
fn rotated(theta: f64, p: [f64; 2]) -> f64 {
    let (s, c) = theta.sin_cos();
    let r = [[c, -s], [s, c]];
    let mut q = [0.0; 2];
    for i in 0..2 {
        for j in 0..2 {
            q[i] += r[i][j] * p[j];
        }
    }
    let top = r[0];
    q[0] * q[1] + top[1]
}
