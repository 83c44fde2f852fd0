use autograd::differentiable;

// A method that may change its receiver, in an expression: the reverse
// sweep would call it again.
#[differentiable]
fn popped(x: &[f64]) -> f64 {
    let mut stack = vec![0usize, 2];
    let top = stack.pop().unwrap_or(0);
    x[top] * x[1]
}

// A differentiated value pushed into a vector of a type the macro does
// not see: its derivative could not be followed.
#[differentiable]
fn pushed_float(x: &[f64]) -> f64 {
    let mut v: Vec<f64> = Vec::new();
    v.push(x[0] * 2.0);
    x[1]
}

// Changed in place and also assigned anew.
#[differentiable]
fn reassigned(x: &[f64]) -> f64 {
    let mut idx = Vec::new();
    idx.push(1usize);
    idx = Vec::new();
    x[idx.len()]
}

fn main() {}
