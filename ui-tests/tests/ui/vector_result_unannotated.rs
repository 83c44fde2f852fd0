use autograd::differentiable;

#[differentiable]
fn g(x: &[f64]) -> [f64; 2] {
    [x[0] * x[1], x[1].sin()]
}

#[differentiable]
fn h(v: [f64; 2]) -> f64 {
    v[0] * v[1]
}

// Nothing in `f` says that `y` is an array: the macro takes it for a
// number, and says so where `y` is bound.
#[differentiable]
fn f(x: &[f64]) -> f64 {
    let y = g(x);
    h(y)
}

fn main() {}
