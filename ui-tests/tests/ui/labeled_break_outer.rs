use autograd::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let mut y = x;
    'outer: for _ in 0..3 {
        for _ in 0..3 {
            y = y * x;
            if y > 10.0 {
                break 'outer;
            }
        }
    }
    y
}

fn main() {}
