use autograd::differentiable;

// A closure's array result is kept as separate values: a variable index
// cannot pick one.
#[differentiable]
fn f(x: &[f64]) -> f64 {
    let pair = |t: f64| [t, 2.0 * t];
    let mut s = 0.0;
    for i in 0..x.len() {
        let p = pair(x[i]);
        s += p[i % 2];
    }
    s
}

fn main() {}
