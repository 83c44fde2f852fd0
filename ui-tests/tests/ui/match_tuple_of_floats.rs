use autograd::differentiable;

// `match` on a tuple with a float part: refused at the part, as `match`
// on a float is.
#[differentiable]
fn f(x: f64, i: usize) -> f64 {
    match (x, i) {
        (_, 0) => x,
        _ => 2.0 * x,
    }
}

fn main() {}
