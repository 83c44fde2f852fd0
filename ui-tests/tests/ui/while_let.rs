use autograd::differentiable;

#[differentiable]
fn f(x: f64, steps: Option<usize>) -> f64 {
    let mut y = x;
    while let Some(_) = steps {
        y = y * 2.0;
        break;
    }
    y
}

fn main() {}
