use autograd::differentiable;

// A `match` on a tuple written out binds names to whole parts only.
#[differentiable]
fn f(x: &[f64], k: Option<usize>, flag: bool) -> f64 {
    match (k, flag) {
        (Some(i), true) => x[i],
        _ => 0.0,
    }
}

fn main() {}
