use autograd::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let y = f64::foo(x);
    y
}

fn main() {}
