use autograd::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let a = [x; 3];
    a[0] + a[1] + a[2]
}

fn main() {}
