// A call given an array that nothing stores into within the loop around
// it (record.rs, hoisted_copies): the forward sweep copies `hidden` onto
// `__ad_args` once after the rows' loop, not at every row; the reverse
// fills its twin once before the rows' reverse.
#[differentiable(wrt(w))]
pub fn rnn(w: &[f64], xs: &[f64], h: usize) -> f64 {
    let steps = xs.len();
    let mut hidden = vec![0.0; h];
    let mut loss = 0.0;
    for t in 0..steps {
        let mut next = vec![0.0; h];
        for i in 0..h {
            next[i] = (dot(&w[i * h..(i + 1) * h], &hidden) + xs[t]).tanh();
        }
        for i in 0..h {
            hidden[i] = next[i];
        }
        loss += hidden[0];
    }
    loss
}
