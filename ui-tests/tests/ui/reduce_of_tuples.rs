use autograd::differentiable;

// `reduce` over `enumerate`'s tuples: `max_by` / `min_by` or the loop.
#[differentiable]
fn heaviest(x: &[f64]) -> f64 {
    let (i, v) = x
        .iter()
        .enumerate()
        .reduce(|a, b| if a.1 > b.1 { a } else { b })
        .unwrap();
    v * x[i]
}

fn main() {}
