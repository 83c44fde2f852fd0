use autograd::differentiable;

// `let .. else` of anything but an element of a slice is refused.
#[differentiable]
fn f(x: f64, scale: Option<f64>) -> f64 {
    let Some(s) = scale else {
        return x;
    };
    x * s
}

fn main() {}
