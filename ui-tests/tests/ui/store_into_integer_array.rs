use autograd::differentiable;

// An array of integers changes only when it is a local declared `let mut`
// (`in_place.rs`); a parameter's elements are not changed.
#[differentiable]
fn f(x: &[f64], mut order: [usize; 3]) -> f64 {
    order[0] = 2;
    x[order[0]] * x[order[1]]
}

fn main() {}
