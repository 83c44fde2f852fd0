use autograd::differentiable;

// `match` on a tuple is lowered part by part (2026-11-28), but not with a
// `..` in its patterns.
#[differentiable]
fn helical(a: f64, b: f64) -> f64 {
    match (a > 0.0, b > 0.0, a > b) {
        (true, ..) => a * b,
        _ => a + b,
    }
}

fn main() {}
