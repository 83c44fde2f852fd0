#[differentiable(wrt(w))]
fn loss(w: &[f64], data: &[f64]) -> f64 {
    // `scale` may or may not differentiate its second parameter: the call
    // finds out from `scale_adjoint`'s signature.
    scale(w[0], 2.0) + dot(w, data)
}
