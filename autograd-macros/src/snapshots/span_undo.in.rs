// A loop of a recorded nest that stores each element of a buffer once, at
// its own index, and whose body reads the buffer only there after the
// store (record::spans): the elements it overwrites are saved in one copy
// before it (`save_span`) and written back after its reverse
// (`restore_span`), rather than pushed one an element as each store
// overwrites it and popped one an iteration. The nest below it reads
// `xc[row]` and `xc[col]` again in its reverse, so `xc` keeps its undo.
#[differentiable(wrt(mu))]
fn centered_products(mu: &[f64], x: &[f64], d: usize) -> f64 {
    let mut xc = vec![0.0; d];
    let mut out = 0.0;
    for i in 0..x.len() / d {
        for c in 0..mu.len() / d {
            for j in 0..d {
                xc[j] = x[i * d + j] - mu[c * d + j];
            }
            for col in 0..d {
                for row in col..d {
                    out += xc[row] * xc[col];
                }
            }
        }
    }
    out
}
