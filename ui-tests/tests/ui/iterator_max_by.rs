use autograd::differentiable;

#[differentiable]
fn f(x: &[f64]) -> f64 {
    let m = x.iter().copied().map(|v| v * v).fold(0.0, f64::max);
    let n = x.iter().map(|v| v * v).max_by(|a, b| a.total_cmp(b)).unwrap();
    m + n
}

fn main() {}
