#![deny(deprecated)]
use autograd::differentiable;

// A `&Vec<f64>` or `f32` parameter is constant data (API.md): without
// `wrt(..)`, a warning says so at the parameter (made an error here).
#[differentiable]
fn f(w: &Vec<f64>, x: f32, b: f64) -> f64 {
    w.iter().map(|v| v * v).sum::<f64>() + b * x as f64
}

fn main() {}
