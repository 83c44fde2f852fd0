pub fn rosenbrock(x: &[f64], a: f64) -> f64 {
    let t = a - x[0];
    let u = x[1] - x[0] * x[0];
    t * t + 100.0 * u * u
}
