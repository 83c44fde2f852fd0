use autograd::differentiable;

#[differentiable(wrt(b))]
fn scaled(b: f64, m: &[f64]) -> f64 {
    b * m[0]
}

// A differentiated array given to a parameter the callee leaves out of its
// `wrt(..)`: the callee's adjoint has no slot for it. (With a constant
// argument beside it, the adjoint is called through `__private::Coerce`,
// whose message says so.)
#[differentiable(wrt(x))]
fn f(x: &[f64], mut w: [f64; 2]) -> f64 {
    w[0] *= x[0];
    scaled(2.0, &w)
}

fn main() {}
