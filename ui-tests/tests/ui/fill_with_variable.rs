use autograd::differentiable;

// `let a = [x; 3];` is the stores it stands for; a fill of a value that
// varies anywhere else (an assignment, an argument) is refused.
#[differentiable]
fn f(x: f64) -> f64 {
    let mut a = [x; 3];
    a[1] *= 2.0;
    let b = a[1];
    a = [x * 2.0; 3];
    a[0] + b + a[2]
}

fn main() {}
