#[differentiable]
fn offsets(&self, x: [f64; 2]) -> [f64; 2] {
    [x[0] * self.scale, x[1] - x[0]]
}
