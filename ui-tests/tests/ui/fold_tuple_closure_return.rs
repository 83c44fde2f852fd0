use autograd::differentiable;

// A `fold` with a tuple accumulator whose closure returns early: the
// `return` is the closure's, not the function's; refused at the `return`.
#[differentiable]
fn capped(x: &[f64]) -> f64 {
    let (s, n) = x.iter().fold((0.0, 0.0), |(s, n), &v| {
        if v > 10.0 {
            return (s, n);
        }
        (s + v, n + 1.0)
    });
    s / n
}

fn main() {}
