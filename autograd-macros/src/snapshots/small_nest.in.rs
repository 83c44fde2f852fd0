// A forward substitution on a 3×3 factor: a nest with literal trip counts,
// written out before it is differentiated (`lower/unroll.rs`). Its adjoint
// is straight-line code: each iteration's index a `let` (an element indexed
// by it alone read at the literal, `y[0]`), so `y`, read and written at
// literal indices only, is one local per element (`split_array_locals`):
// every value read where the forward sweep bound it, no record, no undo
// tape.
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
