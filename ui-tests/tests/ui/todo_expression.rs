use autograd::differentiable;

#[differentiable]
fn f(_x: f64) -> f64 {
    todo!()
}

fn main() {}
