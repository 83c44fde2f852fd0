use autograd::differentiable;

#[differentiable]
fn f(x: f64, scale: Option<f64>) -> f64 {
    if let Some(s) = scale {
        x * s
    } else {
        x
    }
}

fn main() {}
