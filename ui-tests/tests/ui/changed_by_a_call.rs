// A helper given a buffer that depends on a differentiated input by
// `&mut` may change it where the reverse sweep cannot follow: refused at
// the argument (the gradient silently missed the change until 2026-11-28).
use autograd::differentiable;

fn scale_in_place(v: &mut [f64], s: f64) {
    for e in v.iter_mut() {
        *e *= s;
    }
}

#[differentiable]
fn scaled_sum(x: &[f64]) -> f64 {
    let mut u = x.to_vec();
    scale_in_place(&mut u, 3.0);
    u[0] + u[1]
}

#[differentiable]
fn double_buffer(x: &[f64]) -> f64 {
    let mut u = x.to_vec();
    let mut next = vec![0.0; 2];
    next[0] = 3.0 * u[0];
    next[1] = 5.0 * u[1];
    std::mem::swap(&mut u, &mut next);
    u[0] + u[1]
}

fn main() {}
