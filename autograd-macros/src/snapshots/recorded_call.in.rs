// A call given a buffer inside a recorded nest (record.rs, copied_args):
// the forward sweep copies `ypred` onto `__ad_args` at the call, the
// reverse takes it back into a twin and gives the twin to the callee's
// adjoint — the buffer as the call saw it, which the next step overwrote.
// (Each step reads the last one's `ypred`; a buffer every step fills before
// reading it would be the step's own: lower/buffers.rs.)
#[differentiable(wrt(w))]
fn sequence_loss(w: &[f64], xs: &[f64], n: usize, steps: usize) -> f64 {
    let mut ypred = vec![0.0; n];
    let mut total = 0.0;
    for t in 0..steps {
        for i in 0..n {
            ypred[i] = (w[i] * xs[t * n + i] + 0.1 * ypred[i]).tanh();
        }
        let lse = log_sum_exp(&ypred, n);
        for i in 0..n {
            total += xs[t * n + i] * (ypred[i] - lse);
        }
    }
    -total
}
