// A score summed over a nest inside a loop whose reverse runs level by level
// (emit/reverse.rs, replay_is_dead): the function allocates nothing, so the
// nest is replayed, but no level replays the loops below it for values
// nothing reads — `tanh` runs twice, in the forward sweep and where the
// innermost level's reverse needs it, not once a level.
#[differentiable]
fn convolution(w: &[f64]) -> f64 {
    let n = 4;
    let mut loss = 0.0;
    for label in [0.5, -0.25] {
        let mut score = 0.0;
        for c in 0..2 {
            for y in 0..n - 1 {
                for x in 0..n - 1 {
                    let mut s = w[6 + c];
                    for ky in 0..2 {
                        for kx in 0..2 {
                            s += w[c * 3 + ky + kx] * IMAGE[(y + ky) * n + x + kx];
                        }
                    }
                    score += (0.5 + 0.1 * (x + y) as f64) * s.tanh();
                }
            }
        }
        let e = score - label;
        loss += e * e;
    }
    loss
}
