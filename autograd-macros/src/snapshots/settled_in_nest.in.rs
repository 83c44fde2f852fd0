// A matrix a time step builds in one loop and only reads after (a Kalman
// filter's predicted covariance): taken back whole for the step's reverse
// once nothing changes it (`record::settled_loads`), and loaded again
// there; the loads the building loop makes of the matrix it is changing
// stay recorded.
#[differentiable(wrt(f))]
fn settled(f: &[f64; 4], steps: usize) -> f64 {
    let mut p = [1.0, 0.0, 0.0, 1.0];
    let mut total = 0.0;
    for _ in 0..steps {
        let mut pp = [0.0; 4];
        for i in 0..2 {
            for j in 0..2 {
                for k in 0..2 {
                    pp[i * 2 + j] += f[i * 2 + k] * p[k * 2 + j] * pp[i * 2 + j].cos();
                }
            }
        }
        for i in 0..2 {
            for j in 0..2 {
                p[i * 2 + j] = 0.5 * pp[i * 2 + j] * pp[j * 2 + i];
            }
        }
        total += pp[0] * pp[3];
    }
    total
}
