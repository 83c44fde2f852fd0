#[differentiable(hessian, wrt(a, b))]
fn spring(a: f64, b: f64) -> f64 {
    let stretch = smooth_abs(b - a) - REST;
    stretch * stretch
}
