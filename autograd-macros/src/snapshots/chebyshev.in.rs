// A Chebyshev series fit: the recurrence carries two values that do not
// vary beside the accumulated series. The loop's reverse runs forwards from
// the cells' starting values (`Plan::restarts`); nothing is saved.
#[differentiable(wrt(c))]
fn chebyshev(c: &[f64], xs: &[f64], ys: &[f64]) -> f64 {
    let mut loss = 0.0;
    for i in 0..xs.len() {
        let x = xs[i];
        let mut t0 = 1.0;
        let mut t1 = x;
        let mut p = c[0] + c[1] * x;
        for k in 2..c.len() {
            let t2 = 2.0 * x * t1 - t0;
            p += c[k] * t2;
            t0 = t1;
            t1 = t2;
        }
        let e = p - ys[i];
        loss += e * e;
    }
    loss
}
