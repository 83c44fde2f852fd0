use autograd::differentiable;

#[differentiable(hessian)]
fn norm2(v: &[f64]) -> f64 {
    v[0] * v[0] + v[1] * v[1]
}

#[differentiable(hessian)]
fn f(x: f64, y: f64) -> f64 {
    let buf = [x * y, x + y];
    norm2(&buf) * x
}

fn main() {
    // no secondary errors at the uses of the generated items
    let _ = f_hvp(1.0, 2.0, 1.0, 0.0);
    let _ = f_hessian(1.0, 2.0);
}
