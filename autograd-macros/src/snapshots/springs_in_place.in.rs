fn springs(x: &[f64], n: usize) -> f64 {
    let mut e = 0.0;
    for j in 0..n {
        if j + 1 < n {
            let d = x[j + 1] - x[j];
            e += 0.5 * (d * d - 1.0).powi(2);
        }
        e += 0.1 * x[j];
    }
    e
}
