use autograd::differentiable;

#[differentiable(hessian(2))]
fn f(x: f64) -> f64 {
    x * x
}

#[differentiable(hessian, wrt(x), hessian)]
fn g(x: f64) -> f64 {
    x * x
}

fn main() {}
