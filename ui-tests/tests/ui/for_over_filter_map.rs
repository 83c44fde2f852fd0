use autograd::differentiable;

#[differentiable]
fn f(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in x.iter().zip(y).filter_map(|(a, b)| if *a > 0.0 { Some(a * b) } else { None }) {
        s += v;
    }
    s
}

fn main() {}
