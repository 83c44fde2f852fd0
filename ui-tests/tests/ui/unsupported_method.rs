use autograd::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let y = x.fract();
    y
}

fn main() {}
