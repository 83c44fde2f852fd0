use autograd::differentiable;

#[differentiable]
fn f(_p: (f64, f64)) -> f64 {
    2.0
}

fn main() {}
