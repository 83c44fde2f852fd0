use autograd::differentiable;

// Beyond six float constants in one call, the call offers the callee slots
// for none of them or for all of them: `g` differentiates one of seven.
#[differentiable(wrt(c1, x))]
fn g(c1: f64, c2: f64, c3: f64, c4: f64, c5: f64, c6: f64, c7: f64, x: f64) -> f64 {
    c1 * c2 * c3 * c4 * c5 * c6 * c7 * x
}

#[differentiable]
fn f(x: f64) -> f64 {
    g(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, x)
}

fn main() {}
