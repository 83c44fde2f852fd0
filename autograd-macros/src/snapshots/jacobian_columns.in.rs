#[differentiable]
fn polar(r: f64, theta: [f64; 1]) -> [f64; 3] {
    let (s, c) = theta[0].sin_cos();
    [r * c, r * s, r * r]
}
