//! Every construct of the straight-line subset, through the public API.

// The functions below are written the way the constructs under test look,
// not the way clippy would prefer them.
#![allow(
    clippy::needless_late_init,
    clippy::needless_return,
    clippy::assign_op_pattern
)]

mod common;

use autograd::differentiable;
use common::assert_gradient;

// ----- bindings ------------------------------------------------------------

#[differentiable]
fn shadowing(x: f64) -> f64 {
    let y = x * 2.0;
    let y = y * y;
    y + 1.0
}

#[differentiable]
fn reassignment(x: f64) -> f64 {
    let mut y = x;
    y = y * y;
    y = y * y;
    y
}

#[differentiable]
fn compound_assignment(x: f64, y: f64) -> f64 {
    let mut s = x;
    s += y;
    s -= 2.0 * x;
    s *= y;
    s /= x;
    s
}

#[differentiable]
fn blocks(x: f64) -> f64 {
    let t = {
        let u = x.sin();
        u * u
    };
    t + { x * 3.0 }
}

#[differentiable]
fn late_initialisation(x: f64) -> f64 {
    let y: f64;
    y = x * x;
    y
}

#[differentiable]
fn mutable_parameter(mut x: f64) -> f64 {
    x *= 3.0;
    x = x * x;
    x
}

#[differentiable]
fn explicit_return(x: f64) -> f64 {
    let y = x * x;
    return y * x;
}

#[differentiable]
fn constant_local_then_varied(x: f64) -> f64 {
    let mut acc = 1.0;
    acc = acc * x;
    let c: f64 = 2.5;
    acc * c - c
}

#[test]
fn bindings_and_assignments() {
    assert_eq!(shadowing_grad(3.0), (37.0, 24.0));
    assert_eq!(reassignment_grad(2.0), (16.0, 32.0));
    // (x + y - 2x) * y / x = (y - x) y / x
    let (x, y) = (2.0, 5.0);
    let (value, (dx, dy)) = compound_assignment_grad(x, y);
    assert_eq!(value, compound_assignment(x, y));
    assert_eq!(value, 7.5);
    assert_gradient(|v| compound_assignment(v[0], v[1]), &[x, y], &[dx, dy]);
    let (value, d) = blocks_grad(0.7);
    assert_eq!(value, blocks(0.7));
    assert_eq!(d, 2.0 * 0.7_f64.sin() * 0.7_f64.cos() + 3.0);
    assert_eq!(late_initialisation_grad(3.0), (9.0, 6.0));
    assert_eq!(mutable_parameter_grad(2.0), (36.0, 36.0));
    assert_eq!(explicit_return_grad(2.0), (8.0, 12.0));
    assert_eq!(constant_local_then_varied_grad(2.0), (2.5, 2.5));
}

// ----- constants -------------------------------------------------------------

const SCALE: f64 = 4.0;

mod physics {
    pub const G: f64 = 9.81;
}

#[differentiable]
fn constants(x: f64, n: usize, k: i32) -> f64 {
    let m = n as f64;
    x * std::f64::consts::PI + SCALE * x * x + physics::G * m + f64::EPSILON - (k as f64) * x
        + core::f64::consts::E
}

#[test]
fn constant_paths_and_casts() {
    let (value, dx) = constants_grad(2.0, 3, 5);
    assert_eq!(value, constants(2.0, 3, 5));
    assert_eq!(dx, std::f64::consts::PI + 2.0 * SCALE * 2.0 - 5.0);
}

#[differentiable]
fn integer_expressions(x: &[f64], n: usize) -> f64 {
    let last = x.len() - 1;
    let half = (n / 2) as f64;
    x[last] * x[n % x.len()] * half + (x.len() as f64)
}

#[test]
fn casts_of_integer_expressions() {
    let x = [1.0, 2.0, 3.0];
    let (value, d) = integer_expressions_grad(&x, 4);
    assert_eq!(value, integer_expressions(&x, 4));
    // x[2] * x[1] * 2 + 3
    assert_eq!(value, 15.0);
    assert_eq!(d, vec![0.0, 6.0, 4.0]);
}

// ----- arrays and slices ---------------------------------------------------

#[differentiable]
fn slice_reads(w: &[f64]) -> f64 {
    w[0] * w[1] + w[w.len() - 1].exp()
}

#[differentiable]
fn array_by_value(a: [f64; 3]) -> f64 {
    a[0] * a[1] * a[2]
}

#[differentiable]
fn array_by_reference(a: &[f64; 2], b: f64) -> f64 {
    (a[0] - b).powi(2) + (*a)[1]
}

#[differentiable]
fn integer_local_indices(x: &[f64]) -> f64 {
    let mut k = 0;
    let first = x[k];
    k += 1;
    let second = x[k];
    first * second * second
}

#[test]
fn element_reads() {
    let w = [2.0, 3.0, 0.5];
    let (value, d) = slice_reads_grad(&w);
    assert_eq!(value, slice_reads(&w));
    assert_eq!(d, vec![3.0, 2.0, 0.5_f64.exp()]);

    assert_eq!(
        array_by_value_grad([2.0, 3.0, 4.0]),
        (24.0, [12.0, 8.0, 6.0])
    );
    assert_eq!(
        array_by_reference_grad(&[3.0, 7.0], 1.0),
        (11.0, ([4.0, 1.0], -4.0))
    );
    // The index is captured when it is read, not when the adjoint runs.
    assert_eq!(
        integer_local_indices_grad(&[2.0, 3.0]),
        (18.0, vec![9.0, 12.0])
    );
}

// ----- parameters --------------------------------------------------------------

#[differentiable(wrt(w))]
fn weighted(w: &[f64], x: f64, data: &[f64], scale: f64) -> f64 {
    (w[0] * x + w[1] * data[0]) * scale
}

#[differentiable]
fn with_constants(x: f64, n: usize, flags: &[bool], label: &str) -> f64 {
    let bonus = (flags[0] as u8) as f64;
    x * (n as f64) + bonus + (label.len() as f64)
}

#[differentiable]
fn no_active_parameter(n: usize) -> f64 {
    (n as f64) * 0.5
}

#[differentiable]
fn constant_result(x: f64) -> f64 {
    let _unused = x * 2.0;
    1.5
}

#[test]
fn wrt_selects_parameters() {
    let (value, d) = weighted_grad(&[2.0, 3.0], 5.0, &[7.0], 0.5);
    assert_eq!(value, 15.5);
    assert_eq!(d, vec![2.5, 3.5]);
}

#[test]
fn constant_parameters_get_no_gradient() {
    let (value, dx): (f64, f64) = with_constants_grad(2.0, 3, &[true], "ab");
    assert_eq!((value, dx), (9.0, 3.0));
    let (value, ()) = no_active_parameter_grad(3);
    assert_eq!(value, 1.5);
    assert_eq!(constant_result_grad(3.0), (1.5, 0.0));
}

// ----- methods and associated functions --------------------------------------

struct Spring {
    stiffness: f64,
    rest: [f64; 2],
}

impl Spring {
    #[differentiable]
    fn energy(&self, x: f64) -> f64 {
        let stretch = x - self.rest[0];
        0.5 * self.stiffness * stretch * stretch
    }

    #[differentiable]
    fn ratio(x: f64, y: f64) -> f64 {
        x / y
    }
}

#[test]
fn methods_and_associated_functions() {
    let spring = Spring {
        stiffness: 4.0,
        rest: [1.0, 0.0],
    };
    assert_eq!(spring.energy_grad(3.0), (8.0, 8.0));
    let mut d_x = 0.0;
    assert_eq!(spring.energy_adjoint(3.0, 1.0, &mut d_x), 8.0);
    assert_eq!(d_x, 8.0);
    assert_eq!(Spring::ratio_grad(1.0, 2.0), (0.5, (0.5, -0.25)));
}

mod model {
    use autograd::differentiable;

    #[differentiable]
    pub fn loss(w: &[f64], target: f64) -> f64 {
        let e = w[0] + 2.0 * w[1] - target;
        e * e
    }
}

#[test]
fn visibility_and_modules() {
    let (value, (dw, dt)) = model::loss_grad(&[1.0, 1.0], 1.0);
    assert_eq!(value, 4.0);
    assert_eq!(dw, vec![4.0, 8.0]);
    assert_eq!(dt, -4.0);
}

// ----- the adjoint convention ------------------------------------------------

#[differentiable]
fn mixed(x: f64, w: &[f64], a: [f64; 2]) -> f64 {
    x * w[0] + a[1] * w[1]
}

#[test]
fn adjoint_adds_d_out_times_the_gradient() {
    let (mut d_x, mut d_w, mut d_a) = (1.0, vec![10.0, 20.0], [100.0, 200.0]);
    let value = mixed_adjoint(
        2.0,
        &[3.0, 4.0],
        [5.0, 6.0],
        2.0,
        &mut d_x,
        &mut d_w,
        &mut d_a,
    );
    assert_eq!(value, mixed(2.0, &[3.0, 4.0], [5.0, 6.0]));
    assert_eq!(d_x, 1.0 + 2.0 * 3.0);
    assert_eq!(d_w, vec![10.0 + 2.0 * 2.0, 20.0 + 2.0 * 6.0]);
    assert_eq!(d_a, [100.0, 200.0 + 2.0 * 4.0]);
}

#[test]
#[should_panic(
    expected = "the adjoint buffer `d_w` has length 1, but the parameter `w` has length 2"
)]
fn wrong_length_adjoint_buffer_panics_naming_the_parameter() {
    let (mut d_x, mut d_w, mut d_a) = (0.0, vec![0.0], [0.0; 2]);
    mixed_adjoint(
        2.0,
        &[3.0, 4.0],
        [5.0, 6.0],
        1.0,
        &mut d_x,
        &mut d_w,
        &mut d_a,
    );
}

// ----- statement macros --------------------------------------------------------

#[differentiable]
fn with_statement_macros(x: f64) -> f64 {
    let y = x * x;
    assert!(y >= 0.0, "a square is never negative: {y}");
    let y = y + 1.0;
    debug_assert!(y >= 1.0);
    assert_eq!(y, x * x + 1.0);
    eprintln!("y = {y}, x = {}", x);
    y * 2.0
}

#[test]
fn statement_macros_run_in_the_forward_sweep() {
    assert_eq!(with_statement_macros_grad(3.0), (20.0, 12.0));
}

// ----- values are the function's, bit for bit ---------------------------------

#[differentiable]
fn long_expression(x: f64, y: f64) -> f64 {
    let a = (x * y).sin() / (1.0 + x * x).sqrt();
    let b = a.mul_add(y, -x).tanh() + f64::hypot(x, y).ln();
    a * b - (x - y).abs().cbrt() + y.atan2(x) * 1e-3
}

#[test]
fn returned_value_is_bitwise_the_original() {
    for &(x, y) in &[(0.3, -1.7), (2.5, 0.01), (-4.0, 3.0)] {
        let (value, (dx, dy)) = long_expression_grad(x, y);
        assert_eq!(value.to_bits(), long_expression(x, y).to_bits());
        assert_gradient(|v| long_expression(v[0], v[1]), &[x, y], &[dx, dy]);
    }
}

// A local of another float type, assigned plain and compound values (in a
// loop too): it keeps its type (`w += 0.25` is an `f32` addition, not an
// `f64` the macro would write) and is a constant of the derivative.
#[differentiable]
fn typed_f32_local(x: f64) -> f64 {
    let mut w: f32 = 0.5;
    for _ in 0..2 {
        w += 0.25;
    }
    w = w * 2.0;
    let mut v: f32 = 1.0;
    v = v * 0.75;
    x * (w as f64) + (v as f64) * x * x
}

#[test]
fn a_typed_f32_local_keeps_its_type() {
    let (value, d) = typed_f32_local_grad(1.5);
    assert_eq!(value, typed_f32_local(1.5));
    assert_eq!(d, 2.0 + 2.0 * 0.75 * 1.5);
    assert_gradient(|x| typed_f32_local(x[0]), &[1.5], &[d]);
}
