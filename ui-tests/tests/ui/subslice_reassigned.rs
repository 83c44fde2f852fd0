use autograd::differentiable;

#[differentiable]
fn f(w: &[f64], sequence: &[f64]) -> f64 {
    let b = 2;
    let mut input = &sequence[0..b];
    let mut total = 0.0;
    for t in 0..3 {
        let target = &sequence[(t + 1) * b..(t + 2) * b];
        for i in 0..b {
            total += w[i] * input[i] * target[i];
        }
        input = target;
    }
    total
}

fn main() {}
