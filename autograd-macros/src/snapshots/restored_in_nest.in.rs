// Arrays a recorded nest declares and nothing changes after (record.rs,
// Keep::Restored): the helper's returned `k`, given to two calls and read
// non-linearly, and the literal `e`. The forward sweep pushes each whole
// onto the nest's `__ad_args` record at the end of its step; the reverse
// of the step takes them back first (`__private::restore`, from their
// recorded shapes), then reads them as the forward sweep did: the calls'
// adjoints are given `&k` and `&e`, the loads are loaded again. Only `y`,
// which later steps overwrite, is copied for the calls. (Its loop runs
// over `y.len()`: a loop of a literal count would be written out and `y`,
// read at literal indices only, split into values: `unroll.rs`.)
#[differentiable(wrt(p, y0))]
fn solve_fit(p: &[f64], y0: &[f64; 2], obs: &[f64], steps: usize) -> f64 {
    let mut y = [y0[0], y0[1]];
    let mut loss = 0.0;
    for s in 0..steps {
        let k = rhs(&y, p);
        let e = [k[0] * k[1], y[1]];
        let k2 = rhs(&e, p);
        let k3 = rhs(&k, p);
        for i in 0..y.len() {
            y[i] += 0.05 * k[i] * k2[i] + 0.01 * k3[i];
        }
        let d = y[0] - obs[s];
        loss += d * d;
    }
    loss
}
