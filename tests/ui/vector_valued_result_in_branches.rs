use autograd::differentiable;

#[differentiable]
fn f(x: f64) -> [f64; 2] {
    if x > 0.0 {
        [x, 1.0]
    } else {
        [0.0, x]
    }
}

fn main() {
    // no secondary errors at the uses of the generated items
    let _ = f_jacobian(1.0);
}
