use autograd::differentiable;

#[differentiable(hessian)]
fn residuals(x: f64, y: f64) -> [f64; 2] {
    [x - 1.0, y * x]
}

fn main() {}
