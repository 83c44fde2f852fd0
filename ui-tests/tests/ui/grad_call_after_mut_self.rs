use autograd::differentiable;

struct Model {
    scale: f64,
}

impl Model {
    #[differentiable]
    fn f(&mut self, x: f64) -> f64 {
        x * 2.0
    }
}

fn main() {
    let mut model = Model { scale: 1.0 };
    let _ = model.scale;
    let _ = model.f(1.0);
    let _ = model.f_grad(1.0);
}
