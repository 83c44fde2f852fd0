use autograd::differentiable;

// `first()` kept as an `Option` in a local: only unwrapped at once
// (`.unwrap()`, `.copied().unwrap_or(v)`) is it an element.
#[differentiable]
fn head(x: &[f64]) -> f64 {
    let first = x.first();
    2.0 * first.copied().unwrap_or(0.0)
}

fn main() {}
