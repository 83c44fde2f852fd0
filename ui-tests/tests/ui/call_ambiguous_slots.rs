use autograd::differentiable;

// `g` differentiates `b` and `c`: from its adjoint's signature alone, the
// call cannot tell whether the constant before `x` or the one after it has
// the second slot.
#[differentiable(wrt(b, c))]
fn g(a: f64, b: f64, c: f64) -> f64 {
    a * b * c
}

#[differentiable]
fn f(x: f64) -> f64 {
    g(1.0, x, 2.0)
}

fn main() {}
