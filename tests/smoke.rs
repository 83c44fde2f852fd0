use autograd::differentiable;

#[differentiable]
fn f(x: f64, y: f64) -> f64 {
    x * y + x.sin()
}

#[test]
fn smoke() {
    let (v, (dx, dy)) = f_grad(2.0, 3.0);
    assert_eq!(v, 6.0 + 2f64.sin());
    assert_eq!(dx, 3.0 + 2f64.cos());
    assert_eq!(dy, 2.0);
}
