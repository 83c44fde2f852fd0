use autograd::differentiable;

#[differentiable]
fn f(x: f64, y: f64) -> f64 {
    x.powi(y)
}

fn main() {}
