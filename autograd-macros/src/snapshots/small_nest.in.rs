// A forward substitution on a 3×3 factor: a nest with literal trip counts,
// written out before it is differentiated (`lower/unroll.rs`). Its adjoint
// is straight-line code: each iteration's index a `let`, every value read
// where the forward sweep bound it, `y`'s stores plain (a load at the top
// level of the body is not read again: `undo.rs`), no record, no undo tape.
#[differentiable]
fn forward_substitution(l: &[f64; 9], b: &[f64; 3]) -> f64 {
    let mut y = [0.0; 3];
    for i in 0..3 {
        let mut v = b[i];
        for k in 0..i {
            v -= l[i * 3 + k] * y[k];
        }
        y[i] = v / l[i * 3 + i];
    }
    y[0] * y[1] + y[2]
}
