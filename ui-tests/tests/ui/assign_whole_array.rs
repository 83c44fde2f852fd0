use autograd::differentiable;

// A planar arm's cumulative rotation, the new matrix assigned whole.
#[differentiable]
fn arm(angles: &[f64]) -> f64 {
    let mut rot = [1.0, 0.0, 0.0, 1.0];
    let mut x = 0.0;
    for &a in angles {
        let (s, c) = a.sin_cos();
        let next = [rot[0] * c + rot[1] * s, rot[1] * c - rot[0] * s, rot[2] * c + rot[3] * s, rot[3] * c - rot[2] * s];
        rot = next;
        x += rot[0];
    }
    x
}

fn main() {}
