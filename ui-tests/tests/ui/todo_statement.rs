#![allow(unreachable_code, unused_variables)]

use autograd::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    todo!();
    x
}

fn main() {}
