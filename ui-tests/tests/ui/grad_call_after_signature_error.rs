use autograd::differentiable;

#[differentiable]
fn f(x: f64, _y: &mut f64) -> f64 {
    x * 2.0
}

fn main() {
    let mut y = 0.0;
    let _ = f_grad(1.0, &mut y);
}
