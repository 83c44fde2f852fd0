use autograd::differentiable;

// `h_adjoint` is written by hand: it differentiates `m` and `p`, but nothing
// beside it says so (`#[differentiable]` puts the hidden `__h_active` there;
// a hand-written adjoint may define it). From its signature alone (two slice
// slots), the call cannot tell which of the two constant arrays before `q`
// has the first slot: it needs `__h_active`, and names it.
fn h(value: [f64; 2], m: &[f64], p: &[f64]) -> f64 {
    value[0] * m[0] * p[0]
}

fn h_adjoint(
    value: [f64; 2],
    m: &[f64],
    p: &[f64],
    d_out: f64,
    d_m: &mut [f64],
    d_p: &mut [f64],
) -> f64 {
    d_m[0] += d_out * value[0] * p[0];
    d_p[0] += d_out * value[0] * m[0];
    h(value, m, p)
}

#[differentiable]
fn f(q: &[f64]) -> f64 {
    let e = vec![0.5; 3];
    h([0.5, 0.75], &e[1..], &q[1..2])
}

fn main() {}
