use autograd::differentiable;

#[differentiable]
fn f(x: f64, n: usize) -> f64 {
    let _ = n;
    let y = x.sinc();
    y
}

fn main() {
    let (_value, _gradient): (f64, f64) = f_grad(1.0, 2);
    let mut d_x = 0.0;
    let _ = f_adjoint(1.0, 2, 1.0, &mut d_x);
}
