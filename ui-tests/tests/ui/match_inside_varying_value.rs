use autograd::differentiable;

// A `match` that binds a name inside a value that carries a derivative:
// the macro cannot follow the derivative into `Some(..)`.
#[differentiable]
fn f(x: f64) -> f64 {
    match Some(x * 2.0) {
        Some(v) => v.sin(),
        None => 0.0,
    }
}

fn main() {}
