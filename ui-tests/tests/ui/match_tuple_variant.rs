use autograd::differentiable;

#[differentiable]
fn f(x: f64, k: Option<usize>) -> f64 {
    match k {
        Some(n) => x * n as f64,
        None => x,
    }
}

fn main() {}
