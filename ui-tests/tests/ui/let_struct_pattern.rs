use autograd::differentiable;

struct P {
    a: f64,
}

const ORIGIN: P = P { a: 0.0 };

#[differentiable]
fn f(x: f64) -> f64 {
    let P { a } = ORIGIN;
    a * x
}

fn main() {}
