use autograd::differentiable;

// An ordinary function: no `#[differentiable]`, no hand-written `g_adjoint`.
fn g(x: f64) -> f64 {
    x.exp()
}

#[differentiable]
fn f(x: f64) -> f64 {
    2.0 * g(x)
}

fn main() {}
