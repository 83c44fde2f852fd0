use autograd::differentiable;

#[differentiable]
fn f(x: f64, n: usize) -> f64 {
    let (a, b) = x;
    let y = x.foo();
    let z = unsafe { y };
    z + a * b + n as f64
}

fn main() {}
