use autograd::differentiable;

#[differentiable]
fn f(x: &[f64]) -> f64 {
    let it = x.iter().map(|v| v * v);
    x[0]
}

fn main() {}
