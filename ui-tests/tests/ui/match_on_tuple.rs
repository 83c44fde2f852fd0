use autograd::differentiable;

#[differentiable]
fn helical(a: f64, b: f64) -> f64 {
    match (a > 0.0, b > 0.0) {
        (true, _) => a * b,
        _ => a + b,
    }
}

fn main() {}
