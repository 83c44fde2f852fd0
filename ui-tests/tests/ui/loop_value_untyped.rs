use autograd::differentiable;

// A `loop` whose value is an integer, with no type written: the macro keeps
// the value in a local set by each `break`, whose type it must be told.
#[differentiable]
fn at_descent(x: &[f64]) -> f64 {
    let mut k = 0;
    let at = loop {
        if k + 1 >= x.len() || x[k] > x[k + 1] {
            break k;
        }
        k += 1;
    };
    x[at]
}

fn main() {}
