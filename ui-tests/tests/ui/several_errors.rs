use autograd::differentiable;

#[differentiable]
fn f(x: f64, n: usize) -> f64 {
    let (a, b) = x;
    let y = x.foo();
    let z = match x {
        0.0 => x,
        _ => y,
    };
    z + a * b + n as f64
}

fn main() {}
