use autograd::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let mut total = 0.0;
    let mut add = |t: f64| total += t;
    add(x);
    total
}

fn main() {}
