use autograd::differentiable;

#[differentiable]
fn f(x: &[f64]) -> f64 {
    x[0] = x[1] * 2.0;
    x[0]
}

fn main() {}
