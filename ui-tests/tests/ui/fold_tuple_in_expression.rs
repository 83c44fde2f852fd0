use autograd::differentiable;

// A `fold` with a tuple accumulator used inside an expression: refused at
// the tuple, with the `let` that is supported.
#[differentiable]
fn spread(x: &[f64]) -> f64 {
    let lo_plus = x.iter().fold((0.0, 1.0), |(a, b), &v| (a + v, b * v)).0;
    lo_plus * 2.0
}

fn main() {}
