use autograd::differentiable;

// `h` differentiates `m` and `p`, not `value`: from its adjoint's signature
// alone (two slice slots), the call cannot tell which of the two constant
// arrays before `q` has the first slot, and a scratch buffer of the wrong
// length would fail the callee's length check.
#[differentiable(wrt(m, p))]
fn h(value: [f64; 2], m: &[f64], p: &[f64]) -> f64 {
    value[0] * m[0] * p[0]
}

#[differentiable]
fn f(q: &[f64]) -> f64 {
    let e = vec![0.5; 3];
    h([0.5, 0.75], &e[1..], &q[1..2])
}

fn main() {}
