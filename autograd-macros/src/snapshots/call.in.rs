fn distance(p: &[f64]) -> f64 {
    norm(&p[0..2]) + square(p[2])
}
