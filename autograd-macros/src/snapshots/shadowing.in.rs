#[differentiable(wrt(x))]
fn g(x: f64, c: f64, n: usize) -> f64 {
    let mut y = x * c;
    y = y * y;
    y += (n as f64) * std::f64::consts::PI;
    let y = y.powi(3).max(0.0);
    assert!(y >= 0.0, "y = {y}");
    f64::atan2(y, x) / 2.0
}
