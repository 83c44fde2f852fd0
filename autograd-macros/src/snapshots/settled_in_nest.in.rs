// A matrix a time step builds in one loop and only reads after (a Kalman
// filter's predicted covariance): taken back whole for the step's reverse
// once nothing changes it (`record::settled_loads`), and loaded again
// there; the loads the building loop makes of the matrix it is changing
// stay recorded. (Its loops run over `m`: loops of a literal count would
// be written out and the matrices, read at literal indices only, split
// into values: `unroll.rs`.)
#[differentiable(wrt(f))]
fn settled(f: &[f64; 4], steps: usize) -> f64 {
    let m = 2;
    let mut p = [1.0, 0.0, 0.0, 1.0];
    let mut total = 0.0;
    for _ in 0..steps {
        let mut pp = [0.0; 4];
        for i in 0..m {
            for j in 0..m {
                for k in 0..m {
                    pp[i * 2 + j] += f[i * 2 + k] * p[k * 2 + j] * pp[i * 2 + j].cos();
                }
            }
        }
        for i in 0..m {
            for j in 0..m {
                p[i * 2 + j] = 0.5 * pp[i * 2 + j] * pp[j * 2 + i];
            }
        }
        total += pp[0] * pp[3];
    }
    total
}
