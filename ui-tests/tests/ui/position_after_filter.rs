use autograd::differentiable;

// `position` counts the elements that pass a `filter`, which the loop the
// macro writes does not: refused, with the loop to write instead.
#[differentiable]
fn first_big_positive(x: &[f64]) -> f64 {
    let k = x.iter().filter(|v| **v > 0.0).position(|&v| v > 1.0).unwrap_or(0);
    x[k]
}

fn main() {}
