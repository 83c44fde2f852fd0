use autograd::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let y = x.copysign(-1.0);
    y
}

fn main() {}
