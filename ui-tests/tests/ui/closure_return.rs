use autograd::differentiable;

#[differentiable]
fn f(x: &[f64]) -> f64 {
    let g = |t: f64| -> f64 {
        if t > 0.3 {
            return t.sqrt();
        }
        -t * 0.5
    };
    x.iter().map(|&v| g(v)).sum()
}

fn main() {}
