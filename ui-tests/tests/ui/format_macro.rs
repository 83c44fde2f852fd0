use autograd::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let _label = format!("x = {}", x);
    x * 2.0
}

fn main() {}
