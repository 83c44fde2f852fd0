use autograd::differentiable;

// A `hessian` function calls the callee's second-order adjoint,
// `g_hvp_adjoint`: mark `g` with `#[differentiable(hessian)]` (or write
// `g_hvp_adjoint` by hand, see README "Second order").
#[differentiable]
fn g(t: f64) -> f64 {
    t.sin() * t
}

#[differentiable(hessian)]
fn f(x: f64) -> f64 {
    g(x) * x
}

fn main() {}
