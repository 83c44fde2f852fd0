use autograd::differentiable;

#[differentiable]
fn pair(x: f64) -> [f64; 2] {
    [x * x, 3.0 * x]
}

// A whole array assigned from a local the macro cannot tell is an array
// (a helper's vector used only whole): the error says how to make it known
// (`a = pair(..)` itself, an array literal, another float array and
// `a = b.clone()` are supported, element by element).
#[differentiable]
fn swing(x: &[f64]) -> f64 {
    let mut a = [1.0; 2];
    for &v in x {
        let b = pair(v * a[1]);
        a = b;
    }
    a[0] * a[1]
}

fn main() {}
