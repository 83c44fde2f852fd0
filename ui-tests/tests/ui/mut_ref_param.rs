use autograd::differentiable;

#[differentiable]
fn f(_x: &mut f64) -> f64 {
    2.0
}

fn main() {}
