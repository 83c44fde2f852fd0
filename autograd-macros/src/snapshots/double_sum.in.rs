// A double sum (fuse.rs): the outer loop only accumulates and is fused;
// its inner loop only accumulates into the outer accumulator, so it is
// fused too, seeded with the outer seed, and runs once.
#[differentiable]
fn pair_energy(x: &[f64]) -> f64 {
    let mut e = 0.0;
    for i in 0..x.len() {
        for j in i + 1..x.len() {
            let d = x[i] - x[j];
            e += 1.0 / (d * d + 0.5);
        }
    }
    e
}
