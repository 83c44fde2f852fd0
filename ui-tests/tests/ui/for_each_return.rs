use autograd::differentiable;

// `for_each` whose closure returns early: its `return` is the loop's
// `continue`; refused, with the loop to write.
#[differentiable]
fn skips(x: &[f64]) -> f64 {
    let mut total = 0.0;
    x.iter().for_each(|v| {
        if *v > 10.0 {
            return;
        }
        total += v;
    });
    total
}

fn main() {}
