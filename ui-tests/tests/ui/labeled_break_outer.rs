use autograd::differentiable;

// Labeled jumps out of nested loops are supported, but not out of a `loop`
// used as a value (here, to it with a value).
#[differentiable]
fn f(x: f64) -> f64 {
    let mut y = x;
    let r = 'outer: loop {
        for _ in 0..3 {
            y = y * x;
            if y > 10.0 {
                break 'outer y;
            }
        }
    };
    r
}

fn main() {}
