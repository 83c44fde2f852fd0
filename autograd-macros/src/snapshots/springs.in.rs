#[differentiable]
fn springs(x: &[f64]) -> f64 {
    let mut energy = 0.0;
    for i in 0..x.len() - 1 {
        energy += spring(x[i], x[i + 1]);
    }
    energy
}
