// An integer a loop nest steps (`l += 1`, counters.rs) is counted back by
// the reverse sweep, not recorded: the lower-triangular product of the
// mixture objective, `Q (x − μ)` with `Q`'s strict lower part stored
// column by column after its diagonal.
#[differentiable(wrt(q))]
fn triangular(q: &[f64], x: &[f64], d: usize) -> f64 {
    let mut y = vec![0.0; d];
    let mut out = 0.0;
    for i in 0..x.len() / d {
        for j in 0..d {
            y[j] = q[j].exp() * x[i * d + j];
        }
        let mut l = d;
        for col in 0..d {
            for row in col + 1..d {
                y[row] += q[l] * x[i * d + col];
                l += 1;
            }
        }
        for j in 0..d {
            out += y[j] * y[j];
        }
    }
    out
}
