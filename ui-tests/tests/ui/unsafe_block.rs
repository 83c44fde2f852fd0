#![allow(unused_unsafe)]

use autograd::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let y = unsafe { x * 2.0 };
    y
}

fn main() {}
