use autograd::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let (a, b) = (x, 2.0);
    a * b
}

fn main() {}
