use autograd::differentiable;

// `std::array::from_fn` needs the array's type written out, where its
// length is known.
#[differentiable]
fn f(x: &[f64]) -> f64 {
    let y = std::array::from_fn::<f64, 3, _>(|i| x[i].sin());
    y[0] + y[2]
}

fn main() {}
