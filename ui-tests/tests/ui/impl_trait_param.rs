use autograd::differentiable;

#[differentiable]
fn f(x: f64, _scale: impl Into<f64>) -> f64 {
    x * 2.0
}

fn main() {}
