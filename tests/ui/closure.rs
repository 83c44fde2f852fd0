use autograd::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let double = |t: f64| 2.0 * t;
    double(x)
}

fn main() {}
