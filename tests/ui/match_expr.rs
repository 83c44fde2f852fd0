use autograd::differentiable;

#[differentiable]
fn f(x: f64, n: usize) -> f64 {
    let y = match n {
        0 => x,
        _ => x * x,
    };
    y
}

fn main() {}
