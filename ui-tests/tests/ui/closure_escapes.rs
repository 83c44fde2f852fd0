use autograd::differentiable;

fn apply(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    f(x)
}

#[differentiable]
fn f(x: f64) -> f64 {
    apply(|t: f64| 2.0 * t, x)
}

fn main() {}
