use autograd::differentiable;

macro_rules! square {
    ($e:expr) => {
        $e * $e
    };
}

#[differentiable]
fn f(x: f64) -> f64 {
    let y = square!(x);
    y
}

fn main() {}
