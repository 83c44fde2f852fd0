use autograd::differentiable;

// `find` is supported unwrapped at once (`.find(p).unwrap_or(v)`), mapped,
// tested or matched, not as an `Option` kept: the message says what to
// write. `find_map` likewise, with a closure `filter_map` takes; any other
// closure is refused at the closure.
#[differentiable]
fn f(x: &[f64]) -> f64 {
    let first = x.iter().copied().find(|v| *v > 1.0).unwrap_or(0.0);
    let kept = x.iter().copied().find(|v| *v < 0.0);
    let mapped = x.iter().find_map(|v| v.is_finite().then_some(v * 2.0)).unwrap_or(0.0);
    let other = x.iter().find_map(|v| v.partial_cmp(&0.0).map(|_| v * 2.0)).unwrap_or(0.0);
    first + kept.unwrap_or(1.0) + mapped + other
}

fn main() {}
