use autograd::differentiable;

struct Model {
    scale: f64,
}

impl Model {
    // A method returning a vector: not supported yet.
    #[differentiable]
    fn residuals(&self, x: &[f64]) -> Vec<f64> {
        vec![x[0] * self.scale, x[1]]
    }
}

fn main() {}
