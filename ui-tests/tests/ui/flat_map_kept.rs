// A `flat_map` is lowered as nested loops where it is consumed (`sum`,
// `product`, `fold`, `count`, `any`, `all`, a `for` loop) after `map`,
// `filter` or `filter_map` stages; anything else after it (here an
// `enumerate`) is refused at the `flat_map`, with the loops to write.
use autograd::differentiable;

#[differentiable]
fn f(x: &[f64]) -> f64 {
    let n = x.len();
    (0..n)
        .flat_map(|i| (0..i).map(move |j| x[i] * x[j]))
        .enumerate()
        .map(|(k, v)| v * k as f64)
        .sum::<f64>()
}

fn main() {}
