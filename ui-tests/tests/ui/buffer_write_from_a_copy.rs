use autograd::differentiable;

// A slice method that writes a local buffer from something other than a
// float array, a subslice of one or an array literal: the message says
// which forms are supported and how to write the stores instead.
#[differentiable]
fn from_copy(x: &[f64]) -> f64 {
    let mut buf = [0.0; 2];
    buf.copy_from_slice(&x[..2].to_vec());
    buf[0] * buf[1]
}

fn main() {}
