use autograd::differentiable;

fn helper(t: f64) -> f64 {
    t * t
}

#[differentiable]
fn f(x: f64) -> f64 {
    let y = helper(x);
    y * 2.0
}

fn main() {}
