// `filter_map` is lowered when its closure ends in `if cond { Some(v) }
// else { None }` or `cond.then(|| v)` (a filter and a map); any other
// closure returning an `Option` is refused at the closure, with what to
// write instead.
use autograd::differentiable;

#[differentiable]
fn f(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in x.iter().zip(y).filter_map(|(a, b)| a.partial_cmp(b).map(|_| a * b)) {
        s += v;
    }
    s
}

fn main() {}
