use autograd::differentiable;

struct Grid;

impl Grid {
    fn points(&self) -> std::vec::IntoIter<f64> {
        vec![1.0, 2.0].into_iter()
    }
}

#[differentiable]
fn f(x: f64, g: &Grid) -> f64 {
    let mut s = 0.0;
    for p in g.points().map(|p| p * 2.0) {
        s += p * x;
    }
    s
}

fn main() {}
