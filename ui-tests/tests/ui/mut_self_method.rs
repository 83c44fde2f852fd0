use autograd::differentiable;

struct Model {
    _scale: f64,
}

impl Model {
    #[differentiable]
    fn f(&mut self, x: f64) -> f64 {
        x * 2.0
    }
}

fn main() {}
