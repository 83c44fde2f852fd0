fn piecewise(x: f64, y: f64) -> f64 {
    let mut z = x * y;
    if x > 1.0 {
        z = z * x;
    } else {
        z = z.sin();
    }
    z + y
}
