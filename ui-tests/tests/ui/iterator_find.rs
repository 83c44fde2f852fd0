use autograd::differentiable;

// `find` is supported unwrapped at once (`.find(p).unwrap_or(v)`), not as
// an `Option` kept or matched: the message says what to write. `find_map`
// (like `last`, `nth`, `scan`, ..) is refused, with the loop to write.
#[differentiable]
fn f(x: &[f64]) -> f64 {
    let first = x.iter().copied().find(|v| *v > 1.0).unwrap_or(0.0);
    let kept = x.iter().copied().find(|v| *v < 0.0);
    let mapped = x.iter().find_map(|v| if *v > 2.0 { Some(v * 2.0) } else { None });
    first + kept.unwrap_or(1.0) + mapped.unwrap_or(0.0)
}

fn main() {}
