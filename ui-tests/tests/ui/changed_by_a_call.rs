// A helper given a buffer that depends on a differentiated input by
// `&mut` may change it where the reverse sweep cannot follow: refused at
// the argument (the gradient silently missed the change until 2026-11-28).
// (`std::mem::swap(&mut u, &mut next)`, refused so until 2026-11-29, is the
// tuple assignment `(u, next) = (next, u)` now: `idiomatic.rs`,
// `mem_swap_is_a_tuple_assignment`.)
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

fn main() {}
