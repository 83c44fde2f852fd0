//! Calls between differentiable functions, and hand-written adjoints as
//! custom derivatives.

#![allow(clippy::needless_range_loop)]

mod common;

use autograd::differentiable;
use common::assert_gradient;

#[differentiable]
fn square(x: f64) -> f64 {
    x * x
}

#[differentiable]
fn sum_of_squares(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for &v in xs {
        s += square(v);
    }
    s
}

#[test]
fn helper_called_in_a_loop() {
    let (value, d) = sum_of_squares_grad(&[1.0, -2.0, 3.0]);
    assert_eq!(value, 14.0);
    assert_eq!(d, vec![2.0, -4.0, 6.0]);
}

mod geometry {
    use autograd::differentiable;

    #[differentiable]
    pub fn norm(v: &[f64]) -> f64 {
        let mut s = 0.0;
        for x in v {
            s += x * x;
        }
        s.sqrt()
    }
}

#[differentiable]
fn distance_ratio(p: &[f64]) -> f64 {
    // Subslices of an active slice: their adjoints are subslices of d_p.
    geometry::norm(&p[0..2]) / geometry::norm(&p[2..4])
}

#[test]
fn calls_across_modules_with_subslices() {
    let p = [3.0, 4.0, 1.0, 1.0];
    let (value, d) = distance_ratio_grad(&p);
    assert_eq!(value, distance_ratio(&p));
    assert_gradient(distance_ratio, &p, &d);
}

#[differentiable]
fn power(x: f64, n: u32) -> f64 {
    if n == 0 {
        1.0
    } else {
        x * power(x, n - 1)
    }
}

#[test]
fn recursion() {
    let (value, d) = power_grad(1.5, 5);
    assert_eq!(value, 1.5_f64.powi(5));
    assert!((d - 5.0 * 1.5_f64.powi(4)).abs() < 1e-12);
}

/// A function the macro cannot see into, with a hand-written adjoint: the
/// custom-derivative mechanism. Here a numerically stable softplus.
fn softplus(x: f64) -> f64 {
    if x > 30.0 {
        x
    } else {
        x.exp().ln_1p()
    }
}

fn softplus_adjoint(x: f64, d_out: f64, d_x: &mut f64) -> f64 {
    *d_x += d_out / (1.0 + (-x).exp());
    softplus(x)
}

#[differentiable]
fn smooth_loss(w: &[f64], target: f64) -> f64 {
    let mut loss = 0.0;
    for i in 0..w.len() {
        loss += softplus(w[i] - target);
    }
    loss
}

#[test]
fn custom_adjoints() {
    let w = [0.5, -1.0, 40.0];
    let (value, d) = smooth_loss_grad(&w, 0.25);
    assert_eq!(value, smooth_loss(&w, 0.25));
    for (i, &wi) in w.iter().enumerate() {
        let expected = 1.0 / (1.0 + (-(wi - 0.25_f64)).exp());
        assert!((d.0[i] - expected).abs() < 1e-15);
    }
    assert!((d.1 + d.0.iter().sum::<f64>()).abs() < 1e-12);
}

#[differentiable(wrt(w))]
fn neuron(w: &[f64], x: &[f64]) -> f64 {
    let mut s = w[0];
    for i in 0..x.len() {
        s += w[i + 1] * x[i];
    }
    s.tanh()
}

#[differentiable(wrt(w))]
fn two_neurons(w: &[f64], x: &[f64]) -> f64 {
    // The data `x` is constant here, and `neuron` does not differentiate it.
    let a = neuron(&w[0..3], x);
    let b = neuron(&w[3..6], x);
    a * b
}

#[test]
fn constant_data_goes_to_wrt_callees() {
    let w = [0.1, 0.5, -0.3, 0.2, -0.4, 0.6];
    let x = [1.0, 2.0];
    let (value, d) = two_neurons_grad(&w, &x);
    assert_eq!(value, two_neurons(&w, &x));
    assert_gradient(|v| two_neurons(v, &x), &w, &d);
}

struct Model {
    scale: f64,
}

impl Model {
    #[differentiable]
    fn unit(&self, x: f64) -> f64 {
        self.scale * x.sin()
    }

    #[differentiable]
    fn twice(&self, x: f64) -> f64 {
        self.unit(x) + Self::helper(self.unit(x * 2.0))
    }

    #[differentiable]
    fn helper(y: f64) -> f64 {
        y * y
    }

    #[differentiable]
    fn weighted(&self, x: f64, k: f64) -> f64 {
        self.scale * x * k
    }

    /// A method and an associated function given a constant for a
    /// parameter they differentiate.
    #[differentiable]
    fn with_constants(&self, x: f64) -> f64 {
        self.weighted(x, 2.0) + Self::helper(x) * self.weighted(0.5, x)
    }
}

#[test]
fn methods_given_constants() {
    let model = Model { scale: 1.5 };
    let (value, dx) = model.with_constants_grad(0.7);
    assert_eq!(value, model.with_constants(0.7));
    assert_gradient(|p| model.with_constants(p[0]), &[0.7], &[dx]);
}

#[test]
fn methods_and_associated_functions_call_each_other() {
    let model = Model { scale: 1.5 };
    for &x in &[0.3, -1.2, 2.0] {
        let (value, d) = model.twice_grad(x);
        assert_eq!(value, model.twice(x));
        assert_gradient(|v| model.twice(v[0]), &[x], &[d]);
    }
}

#[differentiable]
fn product(a: f64, b: f64) -> f64 {
    a * b.sin()
}

/// Calls in code that runs once before its reverse (the function body, a
/// fused loop's body) take the callee's partials from its adjoint, called
/// with `d_out = 1` in the forward code; calls in a branch or a loop that is
/// replayed call the callee, then its adjoint. Both, and an argument passed
/// twice, give the gradient.
#[differentiable]
fn calls_everywhere(x: &[f64]) -> f64 {
    let top = product(x[0], x[0]) + product(x[1], x[2]);
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        s += product(x[i], x[i + 1]);
    }
    let mut p = 1.0;
    for i in 0..x.len() {
        if x[i] > 0.0 {
            p = product(p, x[i]);
        }
    }
    top * p + s
}

#[test]
fn partials_from_the_forward_code() {
    for x in [[0.3, -1.2, 0.8], [1.5, 0.4, -0.7]] {
        let (value, d) = calls_everywhere_grad(&x);
        assert_eq!(value, calls_everywhere(&x));
        assert_gradient(calls_everywhere, &x, &d);
    }
    // the partials of a custom adjoint
    let (value, d) = smooth_loss_grad(&[0.5], -0.25);
    assert_eq!(value, softplus(0.75));
    assert!((d.0[0] - 1.0 / (1.0 + (-0.75_f64).exp())).abs() < 1e-15);
}

#[differentiable]
fn dot2(v: &[f64], w: &[f64]) -> f64 {
    v[0] * w[0] + v[1] * w[1]
}

#[differentiable]
fn pair_product(v: [f64; 2]) -> f64 {
    v[0] * v[1]
}

#[differentiable]
fn pair_difference(v: &[f64; 2]) -> f64 {
    (v[0] - v[1]).sin()
}

#[differentiable(wrt(x))]
fn weighted(x: &[f64], weights: &[usize]) -> f64 {
    x[0] * weights[0] as f64 + x[1] * weights[1] as f64
}

/// The ways people pass a few values or a buffer to a helper (API.md §1):
/// array literals by value and by reference, local buffers and their
/// subslices, constants and constant arrays, in straight-line code, a loop
/// and a branch.
#[differentiable]
fn argument_forms(a: f64, b: f64) -> f64 {
    let mut buf = [a, b, a * b];
    buf[2] += 1.0;
    let v = vec![0.5, a];
    let mut s = dot2(&buf, &buf[1..]) + pair_product([a, b]) + pair_difference(&[b, a]);
    s += dot2(&[a, 2.0], &v) + dot2(&v[..], &[0.5, b]) + weighted(&[b, a], &[2, 3]);
    for i in 0..3 {
        s += pair_product([buf[i], a]) * 0.1;
    }
    if s > 0.0 {
        s += dot2(&[s, b], &buf);
    }
    // Constants go to parameters `product` and `dot2` differentiate: they
    // get scratch slots.
    s + product(a, 2.0) + product(1.5, b) + product(a, b.floor()) + dot2(&[0.5; 2], &[a, b])
}

/// The same with every array bound first, and every call written out.
fn argument_forms_by_hand(a: f64, b: f64) -> f64 {
    let buf = [a, b, a * b + 1.0];
    let v = [0.5, a];
    let mut s = (buf[0] * buf[1] + buf[1] * buf[2]) + a * b + (b - a).sin();
    s += (a * v[0] + 2.0 * v[1]) + (v[0] * 0.5 + v[1] * b) + (b * 2.0 + a * 3.0);
    for x in buf {
        s += x * a * 0.1;
    }
    if s > 0.0 {
        s += s * buf[0] + b * buf[1];
    }
    s + a * 2.0_f64.sin() + 1.5 * b.sin() + a * b.floor().sin() + (0.5 * a + 0.5 * b)
}

#[test]
fn array_literals_buffers_and_subslices_as_arguments() {
    let f = |p: &[f64]| argument_forms(p[0], p[1]);
    for p in [[0.3, 0.7], [-1.2, 0.4], [2.0, -0.5]] {
        assert_eq!(f(&p), argument_forms_by_hand(p[0], p[1]));
        let (value, (da, db)) = argument_forms_grad(p[0], p[1]);
        assert_eq!(value, f(&p));
        assert_gradient(f, &p, &[da, db]);
        let (mut d_a, mut d_b) = (0.5, -1.0);
        assert_eq!(
            argument_forms_adjoint(p[0], p[1], 2.0, &mut d_a, &mut d_b),
            value
        );
        assert!((d_a - (0.5 + 2.0 * da)).abs() < 1e-12 * (1.0 + da.abs()));
        assert!((d_b - (-1.0 + 2.0 * db)).abs() < 1e-12 * (1.0 + db.abs()));
    }
}

const SCALE: f64 = 1.5;

#[differentiable(wrt(v))]
fn scaled_sine(v: f64, k: f64) -> f64 {
    (v * k).sin()
}

#[differentiable]
fn scaled_cosine(v: f64, k: f64) -> f64 {
    (v * k).cos()
}

#[differentiable(wrt(x))]
fn pick(x: &[f64], weights: &[f64; 2], n: usize) -> f64 {
    x[0] * weights[0] + x[1] * weights[1] * n as f64
}

/// A constant argument may go to a parameter the callee differentiates or
/// to one it does not: the call adapts to the callee's adjoint (a scratch
/// slot where it has one), for scalars, constants of unseen type, literal
/// arrays and local buffers, in straight-line code and in a loop.
#[differentiable]
fn constants_to_either_kind(a: f64, b: f64) -> f64 {
    let weights = [0.5, 2.0];
    let mut s = scaled_sine(a, 2.0) + scaled_cosine(b, 2.0) + scaled_cosine(0.5, a);
    s += scaled_sine(b, SCALE) + scaled_cosine(a, SCALE);
    s += pick(&[a, b], &weights, 2) + pick(&[b, 1.0], &[0.25, 0.75], 1);
    for i in 0..3 {
        s += scaled_cosine(a, i as f64) * scaled_sine(b, 0.5 * i as f64);
    }
    s
}

fn constants_to_either_kind_by_hand(a: f64, b: f64) -> f64 {
    let mut s = (a * 2.0).sin() + (b * 2.0).cos() + (0.5 * a).cos();
    s += (b * SCALE).sin() + (a * SCALE).cos();
    s += (a * 0.5 + b * 2.0 * 2.0) + (b * 0.25 + 0.75);
    for i in 0..3 {
        s += (a * i as f64).cos() * (b * (0.5 * i as f64)).sin();
    }
    s
}

#[test]
fn constants_go_to_differentiated_parameters_or_not() {
    let f = |p: &[f64]| constants_to_either_kind(p[0], p[1]);
    for p in [[0.3, 0.7], [-1.2, 0.4]] {
        assert_eq!(f(&p), constants_to_either_kind_by_hand(p[0], p[1]));
        let (value, (da, db)) = constants_to_either_kind_grad(p[0], p[1]);
        assert_eq!(value, f(&p));
        assert_gradient(f, &p, &[da, db]);
    }
}

#[differentiable]
fn dot_both(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[differentiable]
fn first_of_pair(a: [f64; 2], b: f64) -> f64 {
    a[0] * b
}

/// Constant data (parameters outside `wrt`) passed to parameters a helper
/// differentiates: the helper's slot for it gets a buffer made at the call
/// (nothing is made where the helper does not differentiate it).
#[differentiable(wrt(w))]
fn data_to_a_differentiating_helper(w: &[f64], data: &[f64], pair: [f64; 2]) -> f64 {
    dot_both(w, data) + dot_both(&data[1..], &w[1..]) + first_of_pair(pair, w[0]) + neuron(w, data)
}

#[test]
fn constant_data_to_parameters_a_callee_differentiates() {
    let (data, pair) = ([0.5, -1.0, 2.0], [1.5, 0.25]);
    let f = |w: &[f64]| data_to_a_differentiating_helper(w, &data, pair);
    for w in [[0.3, 0.7, -0.4, 0.2], [1.1, -0.5, 0.6, -0.1]] {
        let (value, d) = data_to_a_differentiating_helper_grad(&w, &data, pair);
        assert_eq!(value, f(&w));
        assert_gradient(f, &w, &d);
    }
}

#[differentiable]
fn sum_slice(v: &[f64], k: f64) -> f64 {
    v.iter().sum::<f64>() * k
}

/// An array outside `wrt` passed to a slice parameter the callee
/// differentiates.
#[differentiable(wrt(x))]
fn array_data_to_a_slice_parameter(x: f64, pair: [f64; 2], r: &[f64; 3]) -> f64 {
    sum_slice(&pair, x) + sum_slice(r, x * x) + first_of_pair(pair, x)
}

#[test]
fn array_data_to_slice_and_array_parameters() {
    let (pair, r) = ([1.5, 0.25], [1.0, 2.0, -0.5]);
    let f = |p: &[f64]| array_data_to_a_slice_parameter(p[0], pair, &r);
    let (value, d) = array_data_to_a_slice_parameter_grad(0.7, pair, &r);
    assert_eq!(value, f(&[0.7]));
    assert_gradient(f, &[0.7], &[d]);
}

// ----- constants on both sides of a differentiated argument --------------------

/// `g` differentiates `b` and `c`, `g2` `a` and `b`: from the adjoints'
/// signatures alone (two `&mut f64` slots each), a call `g(1.0, x, 2.0)`
/// cannot tell which constant has the other slot; the hidden `__g_active`
/// beside each adjoint tells it.
#[differentiable(wrt(b, c))]
fn slots_bc(a: f64, b: f64, c: f64) -> f64 {
    a * b * c + b * b
}

#[differentiable(wrt(a, b))]
fn slots_ab(a: f64, b: f64, c: f64) -> f64 {
    a * b * c + b * b
}

#[differentiable]
fn constants_around_a_varied_argument(x: f64, y: f64) -> f64 {
    slots_bc(1.0, x, 2.0) + 3.0 * slots_ab(1.5, x * y, 2.5)
}

#[test]
fn constants_on_both_sides_of_a_varied_argument() {
    let f = |x: f64, y: f64| (2.0 * x + x * x) + 3.0 * (3.75 * x * y + (x * y) * (x * y));
    let (value, (dx, dy)) = constants_around_a_varied_argument_grad(0.7, -1.3);
    assert!((value - f(0.7, -1.3)).abs() < 1e-12);
    let (x, y) = (0.7, -1.3);
    assert!((dx - (2.0 + 2.0 * x + 3.0 * (3.75 * y + 2.0 * x * y * y))).abs() < 1e-12);
    assert!((dy - 3.0 * (3.75 * x + 2.0 * x * x * y)).abs() < 1e-12);
}
