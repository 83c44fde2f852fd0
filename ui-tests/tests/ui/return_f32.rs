use autograd::differentiable;

#[differentiable]
fn f(_x: f64) -> f32 {
    1.0
}

fn main() {}
