use autograd::differentiable;

#[derive(Clone, Copy)]
struct Model {
    scale: f64,
}

impl Model {
    // A method returning a vector takes `&self` (`f_jacobian` calls it once
    // per row or column).
    #[differentiable]
    fn residuals(self, x: &[f64]) -> Vec<f64> {
        vec![x[0] * self.scale, x[1]]
    }
}

fn main() {}
