#[differentiable(hessian)]
pub fn extended_rosenbrock(x: &[f64]) -> f64 {
    let mut sum = 0.0;
    for i in 0..x.len() - 1 {
        let t = x[i + 1] - x[i] * x[i];
        let u = 1.0 - x[i];
        sum += 100.0 * t * t + u * u;
    }
    sum
}
