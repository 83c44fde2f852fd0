use autograd::differentiable;

#[differentiable]
fn f<T: Into<f64>>(x: f64, _scale: T) -> f64 {
    x * 2.0
}

fn main() {}
