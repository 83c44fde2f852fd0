//! The worked examples of the reference material, with exact values.

use autograd::differentiable;

#[differentiable]
fn xy_plus_sin(x: f64, y: f64) -> f64 {
    x * y + x.sin()
}

#[differentiable]
fn xy_plus_z(x: f64, y: f64, z: f64) -> f64 {
    x * y + z
}

#[differentiable]
fn product_of_sums(a: f64, b: f64, c: f64, d: f64) -> f64 {
    ((a * b) + c) * (a + d)
}

#[differentiable]
fn square(a: f64) -> f64 {
    a * a
}

#[differentiable]
fn double(a: f64) -> f64 {
    a + a
}

#[differentiable]
fn square_plus(a: f64) -> f64 {
    a * a + a
}

#[differentiable]
fn squared_sum(a: f64, b: f64) -> f64 {
    ((a * b) + a).powi(2)
}

#[differentiable]
fn squared_sum_by_hand(a: f64, b: f64) -> f64 {
    let t = (a * b) + a;
    t * t
}

#[differentiable]
fn relu(x: f64) -> f64 {
    x.max(0.0)
}

#[test]
fn x_times_y_plus_sin_x() {
    let (value, (dx, dy)) = xy_plus_sin_grad(2.0, 3.0);
    assert_eq!(value, 6.0 + 2.0_f64.sin());
    assert_eq!(dx, 3.0 + 2.0_f64.cos());
    assert_eq!(dy, 2.0);
}

#[test]
fn x_times_y_plus_z() {
    assert_eq!(xy_plus_z_grad(2.0, -3.0, 10.0), (4.0, (-3.0, 2.0, 1.0)));
}

#[test]
fn product_of_two_sums() {
    assert_eq!(
        product_of_sums_grad(2.0, 3.0, 4.0, 5.0),
        (70.0, (31.0, 14.0, 7.0, 10.0))
    );
}

#[test]
fn fan_out_accumulates() {
    assert_eq!(square_grad(3.0), (9.0, 6.0));
    assert_eq!(double_grad(3.0), (6.0, 2.0));
    assert_eq!(square_plus_grad(3.0), (12.0, 7.0));
}

#[test]
fn square_of_a_sum() {
    assert_eq!(squared_sum_grad(2.0, 3.0), (64.0, (64.0, 32.0)));
    assert_eq!(squared_sum_by_hand_grad(2.0, 3.0), (64.0, (64.0, 32.0)));
}

#[test]
fn relu_on_both_sides() {
    assert_eq!(relu_grad(3.0), (3.0, 1.0));
    assert_eq!(relu_grad(-3.0), (0.0, 0.0));
}
