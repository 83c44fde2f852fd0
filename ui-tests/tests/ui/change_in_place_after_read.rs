use autograd::differentiable;

// A local of integers changed after a statement that reads it: the reverse
// sweep would read it as it is at the end.
#[differentiable]
fn read_then_changed(x: &[f64]) -> f64 {
    let mut at = vec![0usize];
    let a = x[at[0]] * x[1];
    at[0] = 2;
    a + x[at[0]]
}

// Read and changed in the same statement (a loop; over `x.len()`: a loop
// of a literal count is written out, and `seen`, then read and changed at
// literal indices only, is three `bool` locals, which is fine).
#[differentiable]
fn changed_where_read(x: &[f64]) -> f64 {
    let mut seen = [false; 3];
    let mut s = 0.0;
    for i in 0..x.len() {
        if !seen[i % 3] {
            s += x[i % 3] * x[i % 3];
        }
        seen[i % 3] = true;
    }
    s
}

fn main() {}
