use autograd::differentiable;

// After `filter` the vector's length is not known before the loop.
#[differentiable]
fn filtered(x: &[f64]) -> f64 {
    let v: Vec<f64> = x.iter().filter(|v| **v > 0.0).map(|v| v * 2.0).collect();
    v[0]
}

// A vector of integers.
#[differentiable]
fn integers(x: &[f64]) -> f64 {
    let idx: Vec<usize> = (0..x.len()).map(|i| i * 2).collect();
    x[idx[1]]
}

fn main() {}
