// A `vec!` buffer a recorded nest declares every step (record.rs, Pool):
// the forward sweep refills one `Vec` a call (`__private::refill`), the
// reverse zeroes another for the adjoint from the recorded length
// (`zeros_in`), where the user's code allocates one a step. (Given to a
// call, `hnew` stays the step's own: see lower/buffers.rs.)
#[differentiable(wrt(w))]
fn elman(w: &[f64], xs: &[f64], n: usize, steps: usize) -> f64 {
    let mut h = vec![0.0; n];
    let mut loss = 0.0;
    for t in 0..steps {
        let mut hnew = vec![0.0; n];
        for i in 0..n {
            let mut s = xs[t * n + i];
            for k in 0..n {
                s += w[i * n + k] * h[k];
            }
            hnew[i] = s.tanh();
        }
        for i in 0..n {
            h[i] = hnew[i];
        }
        loss += h[0] * softplus_sum(&hnew);
    }
    loss
}
