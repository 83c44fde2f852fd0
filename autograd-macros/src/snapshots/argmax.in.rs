// The argmax over `enumerate`: an accumulator per part of the pair, the
// comparison given the pair with its float by reference, as `iter()` gives
// it.
#[differentiable]
fn argmax(x: &[f64]) -> f64 {
    let (i, m) = x
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .unwrap();
    m * x[(i + 1) % x.len()]
}
