use autograd::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let mut y = x;
    loop {
        let step = if y > 10.0 { break } else { y * 0.5 };
        y = y + step;
    }
    y
}

fn main() {}
