fn prefix_products(x: &[f64]) -> f64 {
    let mut p = x.to_vec();
    for i in 1..p.len() {
        p[i] *= p[i - 1];
    }
    p[p.len() - 1]
}
