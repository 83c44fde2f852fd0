use autograd::differentiable;

fn rotate(rot: &[f64; 4], a: f64) -> [f64; 4] {
    let (s, c) = a.sin_cos();
    [rot[0] * c + rot[1] * s, rot[1] * c - rot[0] * s, rot[2] * c + rot[3] * s, rot[3] * c - rot[2] * s]
}

// A whole array assigned from what a function returns (an array literal or
// another float array is supported, element by element).
#[differentiable]
fn arm(angles: &[f64]) -> f64 {
    let mut rot = [1.0, 0.0, 0.0, 1.0];
    let mut x = 0.0;
    for &a in angles {
        rot = rotate(&rot, a);
        x += rot[0];
    }
    x
}

fn main() {}
