use autograd::differentiable;

#[differentiable]
fn f(out: f64) -> f64 {
    out * 2.0
}

fn main() {}
