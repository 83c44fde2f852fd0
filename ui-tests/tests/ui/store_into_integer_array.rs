use autograd::differentiable;

// An array of integers is read as a constant: changing its elements is refused.
#[differentiable]
fn f(x: &[f64]) -> f64 {
    let mut order = [0usize; 3];
    for i in 0..3 {
        order[i] = 2 - i;
    }
    x[order[0]] * x[order[1]]
}

fn main() {}
