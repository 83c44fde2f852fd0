use autograd::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let y = match x {
        0.0 => x,
        _ => x * x,
    };
    y
}

fn main() {}
