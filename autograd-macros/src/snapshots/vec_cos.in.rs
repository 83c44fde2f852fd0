fn k(a0: [f64; 1], x1: f64) -> f64 {
    let mut b4: Vec<f64> = vec![0.0; a0.len()];
    for i in 0..1 { b4[i] += f0(b4[i].cos()) * x1; }
    b4[0]
}
