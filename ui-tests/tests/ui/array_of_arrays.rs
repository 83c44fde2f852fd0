use autograd::differentiable;

fn trace(m: [[f64; 2]; 2]) -> f64 {
    m[0][0] + m[1][1]
}

// A local array of arrays used whole (given to a function): refused once,
// at its `let`; its uses are not reported again.
#[differentiable]
fn gram(x: &[f64]) -> f64 {
    let mut a = [[0.0; 2]; 2];
    for i in 0..2 {
        for j in 0..2 {
            a[i][j] = x[i] * x[j + 1];
        }
    }
    a[0][1] + trace(a)
}

fn main() {}
