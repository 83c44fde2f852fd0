use autograd::differentiable;

#[differentiable]
fn f(x: f64) -> (f64, f64) {
    (x, x)
}

fn main() {}
