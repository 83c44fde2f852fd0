use autograd::differentiable;

// Sorting is supported on a whole local buffer (`v.sort_by(..)`), not on a
// subslice of one: the message says what to write.
#[differentiable]
fn sort_tail(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let tail = &mut v[1..];
    tail.sort_by(|a, b| a.total_cmp(b));
    v[1] * v[2]
}

fn main() {}
