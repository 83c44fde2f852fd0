// A pair energy with a cutoff: the squared distance is read by the test
// and by the branch alone, so its reverse (the loads' adjoints included)
// runs inside the branch's, after it: nothing of it runs for the pairs
// beyond the cutoff.
#[differentiable(wrt(pos))]
fn lennard_jones(pos: &[f64], cutoff: f64) -> f64 {
    let n = pos.len() / 3;
    let rc2 = cutoff * cutoff;
    let mut e = 0.0;
    for i in 0..n {
        for j in i + 1..n {
            let dx = pos[3 * i] - pos[3 * j];
            let dy = pos[3 * i + 1] - pos[3 * j + 1];
            let dz = pos[3 * i + 2] - pos[3 * j + 2];
            let r2 = dx * dx + dy * dy + dz * dz;
            if r2 < rc2 {
                let s6 = (1.0 / r2).powi(3);
                e += 4.0 * (s6 * s6 - s6);
            }
        }
    }
    e
}
