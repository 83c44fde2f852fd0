use autograd::differentiable;

#[differentiable]
fn f(x: f64, n: usize) -> f64 {
    let double = |t: f64| 2.0 * t;
    let y = x.foo();
    let z = match n {
        0 => x,
        _ => y,
    };
    z
}

fn main() {}
