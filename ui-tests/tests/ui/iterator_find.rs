use autograd::differentiable;

// `find` (like `last`, `nth`, `scan`, ..) is refused, with the loop to
// write; `max_by` / `min_by` / `reduce` unwrapped at once are supported.
#[differentiable]
fn f(x: &[f64]) -> f64 {
    let m = x.iter().copied().map(|v| v * v).fold(0.0, f64::max);
    let n = x.iter().map(|v| v * v).max_by(|a, b| a.total_cmp(b)).unwrap();
    let first = x.iter().copied().find(|v| *v > 1.0).unwrap_or(0.0);
    m + n + first
}

fn main() {}
