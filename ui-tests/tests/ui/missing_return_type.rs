use autograd::differentiable;

#[differentiable]
fn f(x: f64) {
    let _y = x * 2.0;
}

fn main() {}
