fn newton_sqrt(a: f64) -> f64 {
    let mut x = a;
    for _ in 0..30 {
        x = 0.5 * (x + a / x);
    }
    x
}
