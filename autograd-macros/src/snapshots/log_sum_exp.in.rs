// A single loop of the body recording its `exp`s: a running maximum
// already takes storage (its cell tape), so the sum records each element's
// `exp` for its reverse instead of taking it again (`record::plan`).
#[differentiable]
pub fn lse(v: &[f64]) -> f64 {
    let m = v.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
    let s: f64 = v.iter().map(|&x| (x - m).exp()).sum();
    m + s.ln()
}
