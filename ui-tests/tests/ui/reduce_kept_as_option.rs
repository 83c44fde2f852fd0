use autograd::differentiable;

// `reduce` whose `Option` is kept in a local: supported only unwrapped at
// once.
#[differentiable]
fn largest(x: &[f64]) -> f64 {
    let m = x.iter().copied().reduce(f64::max);
    m.unwrap_or(0.0) * 2.0
}

fn main() {}
