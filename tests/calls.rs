//! Calls between differentiable functions, and hand-written adjoints as
//! custom derivatives.

// (`vec![..]` locals on purpose: their scratch is a `Vec`.)
#![allow(clippy::needless_range_loop, clippy::useless_vec)]

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

/// A log-sum-exp over a slice whose hand-written adjoint counts its calls
/// (and its primal counts its own): how often a caller evaluates it.
fn counted_lse(v: &[f64]) -> f64 {
    LSE_CALLS.with(|c| c.set(c.get() + 1));
    let m = v.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
    m + v.iter().map(|x| (x - m).exp()).sum::<f64>().ln()
}

fn counted_lse_adjoint(v: &[f64], d_out: f64, d_v: &mut [f64]) -> f64 {
    LSE_ADJOINT_CALLS.with(|c| c.set(c.get() + 1));
    let m = v.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
    let s: f64 = v.iter().map(|x| (x - m).exp()).sum();
    for (d, x) in d_v.iter_mut().zip(v) {
        *d += d_out * (x - m).exp() / s;
    }
    m + s.ln()
}

thread_local! {
    static LSE_CALLS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    static LSE_ADJOINT_CALLS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// A helper of a fixed-size array and a scalar.
#[differentiable]
fn weighted_pair(p: &[f64; 2], k: f64) -> f64 {
    (p[0] * k).sin() + p[1] * p[0] * k
}

/// A helper taking a fixed-size array by value.
#[differentiable]
fn pair_cosine_energy(p: [f64; 2]) -> f64 {
    p[0] * p[0] - (p[1] * 0.5).cos()
}

/// Calls given arrays that vary, where their reverse follows them with no
/// replay (the function body, a fused loop's body): a logits buffer per
/// sample, a subslice, a fixed-size local, parameters `&[f64; 2]` and
/// `[f64; 2]`, an array beside a varied scalar. The forward code calls the
/// callee, the reverse its adjoint; but a call in a fused loop's body
/// whose result's adjoint is known before it (the sum's seed, through a
/// `-`: `emit/reverse.rs`, `early_calls`) calls the adjoint alone, with
/// that adjoint, and the callee runs once. (Calling the adjoint alone, in the
/// forward code, for a buffer of partials per array that the reverse
/// multiplies, was measured and not kept: a log-sum-exp of logits runs
/// once instead of twice, 8–12% off a softmax regression, but a callee as
/// cheap as its array is long — a dot product per sample — costs less to
/// evaluate again than its buffer costs to zero and multiply, +13–26% on a
/// logistic regression.)
#[differentiable(wrt(w, pair, pair_by_value))]
fn arrays_given_to_calls(w: &[f64], pair: &[f64; 2], pair_by_value: [f64; 2], xs: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..xs.len() {
        let mut logits = vec![0.0; 3];
        for k in 0..3 {
            logits[k] = w[k] * xs[i] + w[3 + k];
        }
        total += counted_lse(&logits) - logits[i % 3];
    }
    let local = [w[0] * w[1], w[2].exp()];
    total += counted_lse(&w[1..4]) * weighted_pair(&local, w[5]);
    total + weighted_pair(pair, w[4]) * pair_cosine_energy(pair_by_value)
}

#[test]
fn calls_given_arrays_outside_nests() {
    let w = [0.3, -0.7, 0.5, 0.2, -0.4, 0.9];
    let (pair, by_value) = ([0.6, -1.1], [0.25, 1.5]);
    let xs = [0.5, -1.0, 1.5, 0.25];
    let (value, d) = arrays_given_to_calls_grad(&w, &pair, by_value, &xs);
    assert_eq!(value, arrays_given_to_calls(&w, &pair, by_value, &xs));
    assert_gradient(|w| arrays_given_to_calls(w, &pair, by_value, &xs), &w, &d.0);
    assert_gradient(
        |p| arrays_given_to_calls(&w, &[p[0], p[1]], by_value, &xs),
        &pair,
        &d.1,
    );
    assert_gradient(
        |p| arrays_given_to_calls(&w, &pair, [p[0], p[1]], &xs),
        &by_value,
        &d.2,
    );
    // the samples' calls run the helper's adjoint alone, one a sample;
    // the subslice's evaluates the helper, then its adjoint
    LSE_CALLS.with(|c| c.set(0));
    LSE_ADJOINT_CALLS.with(|c| c.set(0));
    let _ = arrays_given_to_calls_grad(&w, &pair, by_value, &xs);
    assert_eq!(LSE_CALLS.with(|c| c.get()), 1);
    assert_eq!(LSE_ADJOINT_CALLS.with(|c| c.get()), xs.len() + 1);
}

/// Calls given arrays in a recorded nest (a time loop holding loops): the
/// forward sweep calls the callee, copies the `Vec` the next step
/// overwrites (`record::copied_args`), and the reverse calls the callee's
/// adjoint on the copy. (Taking the arrays' partials in the forward sweep
/// instead, pushed on the nest's record, was measured and not kept: for a
/// callee as cheap as its array is long, a dot product or Horner's rule,
/// pushing a partial per element costs more than evaluating it again.)
/// The same body in a branch is replayed: both give one gradient. (Each
/// step reads the last step's `ypred`: a buffer every step overwrites
/// before reading is the step's own, below.)
#[differentiable]
fn arrays_in_a_recorded_nest(w: &[f64]) -> f64 {
    let mut ypred = vec![0.0; 3];
    let mut total = 0.0;
    for t in 0..4 {
        for i in 0..3 {
            ypred[i] = (w[i] * (t as f64 + 1.0) + w[3 + i] + 0.1 * ypred[i]).tanh();
        }
        let pair = [ypred[0] * w[0], ypred[2] - w[1]];
        let lse = counted_lse(&ypred);
        total += lse * weighted_pair(&pair, ypred[1]) - counted_lse(&ypred[1..3]);
    }
    total
}

#[differentiable]
fn arrays_replayed_in_a_branch(w: &[f64]) -> f64 {
    let always = w.len() < 1000;
    if always {
        let mut ypred = vec![0.0; 3];
        let mut total = 0.0;
        for t in 0..4 {
            for i in 0..3 {
                ypred[i] = (w[i] * (t as f64 + 1.0) + w[3 + i] + 0.1 * ypred[i]).tanh();
            }
            let pair = [ypred[0] * w[0], ypred[2] - w[1]];
            let lse = counted_lse(&ypred);
            total += lse * weighted_pair(&pair, ypred[1]) - counted_lse(&ypred[1..3]);
        }
        total
    } else {
        0.0
    }
}

/// A buffer declared before the loop that every step fills before reading
/// it is the step's own (`lower/buffers.rs`): the loop is fused, and the
/// call whose adjoint is known where it runs (`- counted_lse(..)`, a term
/// of the sum) runs its adjoint alone.
#[differentiable]
fn a_buffer_each_step_fills(w: &[f64]) -> f64 {
    let mut ypred = vec![0.0; 3];
    let mut total = 0.0;
    for t in 0..4 {
        for i in 0..3 {
            ypred[i] = (w[i] * (t as f64 + 1.0) + w[3 + i]).tanh();
        }
        let pair = [ypred[0] * w[0], ypred[2] - w[1]];
        let lse = counted_lse(&ypred);
        total += lse * weighted_pair(&pair, ypred[1]) - counted_lse(&ypred[1..3]);
    }
    total
}

#[test]
fn a_buffer_each_step_fills_is_the_steps_own() {
    let w = [0.3, -0.7, 0.5, 0.2, -0.4, 0.9];
    let (value, d) = a_buffer_each_step_fills_grad(&w);
    assert_eq!(value, a_buffer_each_step_fills(&w));
    assert_gradient(a_buffer_each_step_fills, &w, &d);
    LSE_CALLS.with(|c| c.set(0));
    LSE_ADJOINT_CALLS.with(|c| c.set(0));
    let _ = a_buffer_each_step_fills_grad(&w);
    // a step's first call is evaluated, then differentiated; its second
    // is differentiated only
    assert_eq!(LSE_CALLS.with(|c| c.get()), 4);
    assert_eq!(LSE_ADJOINT_CALLS.with(|c| c.get()), 8);
}

#[test]
fn calls_in_a_recorded_nest_given_arrays_call_the_adjoint_in_the_reverse() {
    let w = [0.3, -0.7, 0.5, 0.2, -0.4, 0.9];
    let (value, d) = arrays_in_a_recorded_nest_grad(&w);
    assert_eq!(value, arrays_in_a_recorded_nest(&w));
    assert_gradient(arrays_in_a_recorded_nest, &w, &d);
    let (replayed_value, replayed) = arrays_replayed_in_a_branch_grad(&w);
    assert_eq!(value, replayed_value);
    for (a, b) in d.iter().zip(&replayed) {
        assert!(
            (a - b).abs() <= 1e-13 * a.abs().max(1.0),
            "{d:?} against {replayed:?}"
        );
    }
    // two calls a step, each evaluated by the forward sweep and again by
    // its adjoint in the reverse
    LSE_CALLS.with(|c| c.set(0));
    LSE_ADJOINT_CALLS.with(|c| c.set(0));
    let _ = arrays_in_a_recorded_nest_grad(&w);
    assert_eq!(LSE_CALLS.with(|c| c.get()), 8);
    assert_eq!(LSE_ADJOINT_CALLS.with(|c| c.get()), 8);
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

// ----- several constant arrays that could take one slot ----------------------------

/// The same body under several `wrt(..)` lists: the callers below cannot
/// see which, so they cannot tell from the adjoint's signature alone which
/// of their constant arrays (or scalars) the callee has slots for.
macro_rules! variants {
    ($(#[wrt($($w:ident),*)] fn $name:ident)*; $params:tt -> $body:block) => {
        $(variants!(@one $name, ($($w),*), $params, $body);)*
    };
    (@one $name:ident, ($($w:ident),*), ($($p:ident: $t:ty),*), $body:block) => {
        #[differentiable(wrt($($w),*))]
        fn $name($($p: $t),*) -> f64 $body
    };
}

// The example: `h_mp` differentiates `m` and `p`, `h_vp` `value`
// and `p`; both adjoints take two array slots after `d_out`.
variants! {
    #[wrt(m, p)] fn h_mp
    #[wrt(value, p)] fn h_vp
    #[wrt(value, m, p)] fn h_vmp;
    (value: [f64; 2], m: &[f64], p: &[f64]) -> {
        value[0] * m[0] * p[0] + value[1] * m[1].sin() * p[0] * p[0]
    }
}

#[differentiable]
fn two_constant_arrays(q: &[f64]) -> f64 {
    let e = vec![0.5; 3];
    h_mp([0.5, 0.75], &e[1..], &q[1..2])
        + h_vp([0.5, 0.75], &e[1..], &q[..1])
        + h_vmp([1.5, -0.5], &e[..2], &q[1..])
}

#[test]
fn constant_arrays_competing_for_one_slot() {
    for q in [[0.3, 0.7], [-1.2, 0.4]] {
        let (value, d) = two_constant_arrays_grad(&q);
        assert_eq!(value, two_constant_arrays(&q));
        assert_gradient(two_constant_arrays, &q, &d);
        let mut buffer = [0.5, -1.0];
        assert_eq!(two_constant_arrays_adjoint(&q, 2.0, &mut buffer), value);
        assert!((buffer[0] - (0.5 + 2.0 * d[0])).abs() < 1e-12 * (1.0 + d[0].abs()));
        assert!((buffer[1] - (-1.0 + 2.0 * d[1])).abs() < 1e-12 * (1.0 + d[1].abs()));
    }
}

// Literal arrays, local arrays and subslices of local `Vec`s, of three
// different lengths, to slice parameters, each callee differentiating
// another of them (or two).
variants! {
    #[wrt(a, x)] fn lengths_a
    #[wrt(b, x)] fn lengths_b
    #[wrt(c, x)] fn lengths_c
    #[wrt(a, c, x)] fn lengths_ac
    #[wrt(b, c, x)] fn lengths_bc
    #[wrt(x)] fn lengths_x;
    (a: &[f64], b: &[f64], c: &[f64], x: &[f64]) -> {
        let mut s = 0.0;
        for i in 0..a.len() {
            s += a[i] * x[i % x.len()];
        }
        for i in 0..b.len() {
            s += b[i] * b[i] * x[0] * (i + 1) as f64;
        }
        for i in 0..c.len() {
            s += (c[i] * x[1]).sin();
        }
        s * x[0]
    }
}

#[differentiable]
fn arrays_of_three_lengths(x: &[f64]) -> f64 {
    let buf = [0.25, -0.5, 1.0, 2.0];
    let v = vec![1.5, -1.0, 0.5];
    let mut s = lengths_a(&[1.0, 2.0, 3.0], &buf, &v[1..], x);
    s += lengths_b(&[1.0, 2.0, 3.0], &buf, &v[1..], x);
    s += lengths_c(&[1.0, 2.0, 3.0], &buf, &v[1..], x);
    s += lengths_ac(&[1.0, 2.0, 3.0], &buf, &v[1..], x);
    s += lengths_bc(&[1.0, 2.0, 3.0], &buf, &v[1..], x);
    s += lengths_x(&[1.0, 2.0, 3.0], &buf, &v[1..], x);
    // (a local `Vec` whole, and a subslice of the local array)
    s += lengths_a(&v, &buf[1..], &[0.5, 0.5], &x[1..]);
    s + lengths_c(&v, &buf[1..], &[0.5, 0.5], &x[1..])
}

#[test]
fn literal_arrays_buffers_and_subslices_of_different_lengths() {
    for x in [[0.3, 0.7, -0.4], [-1.2, 0.4, 0.9]] {
        let (value, d) = arrays_of_three_lengths_grad(&x);
        assert_eq!(value, arrays_of_three_lengths(&x));
        assert_gradient(arrays_of_three_lengths, &x, &d);
    }
}

// `&[f64; N]` parameters and `&[f64]` parameters competing: the array
// slot of one callee is the slice slot of the other.
variants! {
    #[wrt(a, x)] fn fixed_or_slice_a
    #[wrt(b, x)] fn fixed_or_slice_b;
    (a: &[f64; 3], b: &[f64], x: f64) -> {
        (a[0] + a[1] * x).sin() * b[0] + a[2] * b[b.len() - 1] * x * x
    }
}

/// Local constants (a literal, a `Vec` and its subslice) and parameter
/// data outside `wrt` (an array, a slice and a subslice of it).
#[differentiable(wrt(x, y))]
fn fixed_size_and_slices(x: f64, y: f64, pair: [f64; 3], data: &[f64]) -> f64 {
    let buf = vec![0.5, 1.5, -2.0, 1.0];
    fixed_or_slice_a(&[0.5, 1.0, 1.5], &buf, x * y)
        + fixed_or_slice_b(&[0.5, 1.0, 1.5], &buf[..2], y)
        + fixed_or_slice_a(&pair, data, x)
        + fixed_or_slice_b(&pair, &data[1..], x + y)
}

#[test]
fn array_parameters_against_slice_parameters() {
    let (pair, data) = ([0.25, -1.0, 2.0], [1.5, -0.5, 0.75]);
    let f = |p: &[f64]| fixed_size_and_slices(p[0], p[1], pair, &data);
    for p in [[0.3, 0.7], [-1.2, 0.4]] {
        let (value, (dx, dy)) = fixed_size_and_slices_grad(p[0], p[1], pair, &data);
        assert_eq!(value, f(&p));
        assert_gradient(f, &p, &[dx, dy]);
    }
}

// Scalar and array constants on both sides of the varied argument, both
// competing: `mixed_akx` keeps the first array, the first scalar and `x`,
// `mixed_bxt` the second array, `x` and the last scalar: the same slot
// kinds (array, scalar, scalar), every slot filled by a different argument.
variants! {
    #[wrt(a, k, x)] fn mixed_akx
    #[wrt(b, x, t)] fn mixed_bxt
    #[wrt(a, x, t)] fn mixed_axt
    #[wrt(k, b, x)] fn mixed_kbx;
    (a: &[f64], k: f64, b: &[f64], x: f64, t: f64) -> {
        a[0] * k * x + b[b.len() - 1] * (x * t).cos() + a[a.len() - 1] * b[0] * t * k
    }
}

#[differentiable]
fn scalar_and_array_constants(x: f64, y: f64) -> f64 {
    let buf = vec![0.5, 1.5, -2.0];
    let mut s = mixed_akx(&[0.5, 1.0], 2.0, &buf[1..], x * y, 0.75);
    s += mixed_bxt(&[0.5, 1.0], 2.0, &buf[1..], x * y, 0.75);
    s += mixed_axt(&[0.5, 1.0], 2.0, &buf, y, 0.75);
    s + mixed_kbx(&[0.5, 1.0, -1.0], SCALE, &buf, x, 1.25)
}

#[test]
fn scalar_and_array_constants_competing() {
    let f = |p: &[f64]| scalar_and_array_constants(p[0], p[1]);
    for p in [[0.3, 0.7], [-1.2, 0.4]] {
        let (value, (dx, dy)) = scalar_and_array_constants_grad(p[0], p[1]);
        assert_eq!(value, f(&p));
        assert_gradient(f, &p, &[dx, dy]);
    }
}

// A varied array between two constant arrays: its slot is the first for
// `around_ax`, the second for `around_xb`.
variants! {
    #[wrt(a, x)] fn around_ax
    #[wrt(x, b)] fn around_xb;
    (a: &[f64], x: &[f64], b: &[f64]) -> {
        a[0] * x[0] * x[1] + b[b.len() - 1] * x[x.len() - 1].sin()
    }
}

#[differentiable]
fn varied_array_between_constant_arrays(q: &[f64]) -> f64 {
    let buf = [1.0, -0.5, 2.0];
    around_ax(&[0.5, 1.5], q, &buf) + around_xb(&[0.5, 1.5], &q[1..], &buf[1..])
}

#[test]
fn varied_array_between_constant_arrays_of_another_length() {
    for q in [[0.3, 0.7, -0.4], [-1.2, 0.4, 0.9]] {
        let (value, d) = varied_array_between_constant_arrays_grad(&q);
        assert_eq!(value, varied_array_between_constant_arrays(&q));
        assert_gradient(varied_array_between_constant_arrays, &q, &d);
    }
}

// Forward mode (`f_grad` of a function of one `f64`) calls the same way.
variants! {
    #[wrt(m, p)] fn hs_mp
    #[wrt(value, p)] fn hs_vp;
    (value: [f64; 2], m: &[f64], p: f64) -> {
        value[0] * m[0] * p + value[1] * m[1].sin() * p * p
    }
}

#[differentiable]
fn forward_mode_caller(t: f64) -> f64 {
    let e = vec![0.5, 1.5, 2.5];
    let mut s = hs_mp([0.5, 0.75], &e[1..], t * t) + hs_vp([0.5, 0.75], &e[1..], t.sin());
    for i in 0..2 {
        s += hs_mp([0.5, i as f64], &e[i..i + 2], t) * hs_vp([1.0, 2.0], &e[..2], t);
    }
    s
}

#[test]
fn forward_mode_with_competing_constant_arrays() {
    let f = |p: &[f64]| forward_mode_caller(p[0]);
    for t in [0.3, -1.2] {
        let (value, d) = forward_mode_caller_grad(t);
        assert_eq!(value, f(&[t]));
        assert_gradient(f, &[t], &[d]);
        let mut d_t = 0.5;
        assert_eq!(forward_mode_caller_adjoint(t, 2.0, &mut d_t), value);
        assert!((d_t - (0.5 + 2.0 * d)).abs() < 1e-12 * (1.0 + d.abs()));
    }
}

// Methods called on `self` go through the same trait.
struct Weights {
    scale: f64,
}

impl Weights {
    #[differentiable(wrt(m, p))]
    fn m_mp(&self, value: [f64; 2], m: &[f64], p: f64) -> f64 {
        self.scale * (value[0] * m[0] * p + value[1] * m[1] * p * p)
    }

    #[differentiable(wrt(value, p))]
    fn m_vp(&self, value: [f64; 2], m: &[f64], p: f64) -> f64 {
        self.scale * (value[0] * m[0] * p + value[1] * m[1] * p * p)
    }

    #[differentiable]
    fn both(&self, x: f64, y: f64) -> f64 {
        let e = vec![0.5, 1.5, 2.5];
        self.m_mp([0.5, 0.75], &e[1..], x * y) + self.m_vp([0.5, 0.75], &e[..2], y)
    }
}

#[test]
fn methods_with_competing_constant_arrays() {
    let w = Weights { scale: 1.5 };
    let f = |p: &[f64]| w.both(p[0], p[1]);
    let (value, (dx, dy)) = w.both_grad(0.3, -0.7);
    assert_eq!(value, f(&[0.3, -0.7]));
    assert_gradient(f, &[0.3, -0.7], &[dx, dy]);
}

// A `hessian` caller: its gradient and adjoint call the same way, and its
// second-order code passes the constants as they are.
#[differentiable(hessian, wrt(m, p))]
fn hh_mp(value: [f64; 2], m: &[f64], p: &[f64]) -> f64 {
    value[0] * m[0] * p[0] + value[1] * m[1].sin() * p[0] * p[0]
}

#[differentiable(hessian, wrt(value, p))]
fn hh_vp(value: [f64; 2], m: &[f64], p: &[f64]) -> f64 {
    value[0] * m[0] * p[0] + value[1] * m[1].sin() * p[0] * p[0]
}

#[differentiable(hessian)]
fn hessian_caller(q: &[f64]) -> f64 {
    let e = vec![0.5; 3];
    hh_mp([0.5, 0.75], &e[1..], &q[1..2]) * hh_vp([0.5, 0.75], &e[1..], &q[..1])
}

#[test]
fn hessian_caller_with_competing_constant_arrays() {
    for q in [[0.3, 0.7], [-1.2, 0.4]] {
        let (value, d) = hessian_caller_grad(&q);
        assert_eq!(value, hessian_caller(&q));
        assert_gradient(hessian_caller, &q, &d);
        let (value2, d2, h) = hessian_caller_hessian(&q);
        assert_eq!(value2, value);
        for (a, b) in d.iter().zip(&d2) {
            assert!((a - b).abs() < 1e-12 * (1.0 + a.abs()));
        }
        autograd::check::hessian(|p| hessian_caller_grad(p).1, &q, &h).assert_ok(1e-6);
    }
}

// A hand-written adjoint called with competing constant arrays: the call
// needs `__g_active`, which the author defines beside it (one `bool` per
// parameter, in order: whether the adjoint has a slot for it).
fn by_hand(value: [f64; 2], m: &[f64], p: &[f64]) -> f64 {
    value[0] * m[0] * p[0] + m[1] * p[0] * p[0]
}

fn by_hand_adjoint(
    value: [f64; 2],
    m: &[f64],
    p: &[f64],
    d_out: f64,
    d_m: &mut [f64],
    d_p: &mut [f64],
) -> f64 {
    d_m[0] += d_out * value[0] * p[0];
    d_m[1] += d_out * p[0] * p[0];
    d_p[0] += d_out * (value[0] * m[0] + 2.0 * m[1] * p[0]);
    by_hand(value, m, p)
}

#[allow(non_upper_case_globals)]
const __by_hand_active: &[bool] = &[false, true, true];

#[differentiable]
fn calls_by_hand(q: &[f64]) -> f64 {
    let e = vec![0.5, 1.5, 2.5];
    by_hand([0.5, 0.75], &e[1..], &q[1..2]) * by_hand([2.0, 1.0], &[0.25, 4.0], q)
}

#[test]
fn hand_written_adjoint_with_its_active_flags() {
    for q in [[0.3, 0.7], [-1.2, 0.4]] {
        let (value, d) = calls_by_hand_grad(&q);
        assert_eq!(value, calls_by_hand(&q));
        assert_gradient(calls_by_hand, &q, &d);
    }
}

// ----- constant arrays of integers beside float constants ---------------------

const FIRST: usize = 1;
const SECOND: usize = 0;

#[differentiable(wrt(b, x))]
fn gather(a: &[f64], idx: &[usize], b: &[f64], x: f64) -> f64 {
    a[idx[0]] * b[idx[1]] * x + b[0] * a[0]
}

#[differentiable(wrt(x))]
fn pick_two(x: &[f64], idx: &[usize], s: f64) -> f64 {
    x[idx[0]] * x[idx[1]] * s
}

/// `&[FIRST, SECOND]` (whose element type the macro cannot see) and
/// `&[0, 1]` go to `&[usize]` parameters of callees with a partial `wrt`,
/// in calls that also pass float constants that may take slots (they
/// failed to compile: the call's coercions and scratch buffers were for
/// `f64` arrays only).
#[differentiable]
fn integer_arrays_beside_constants(y: f64, z: f64) -> f64 {
    let buf = [0.5, 1.5, 2.5];
    gather(&[1.0, 2.0], &[FIRST, SECOND], &buf, y * z)
        + gather(&buf[1..], &[0, 1], &[3.0, 4.0], y)
        + pick_two(&[y, z, 2.0], &[FIRST, 2], 0.5)
}

#[test]
fn integer_arrays_beside_float_constants() {
    for (y, z) in [(0.3, 0.7), (-1.1, 0.4)] {
        let (value, (dy, dz)) = integer_arrays_beside_constants_grad(y, z);
        assert_eq!(value, integer_arrays_beside_constants(y, z));
        let f = |v: &[f64]| integer_arrays_beside_constants(v[0], v[1]);
        common::assert_gradient(f, &[y, z], &[dy, dz]);
    }
}

// ----- a method's data given to a differentiated parameter --------------------

#[differentiable]
fn weighted_square(a: f64, b: f64) -> f64 {
    a * b * b
}

#[differentiable(wrt(x))]
fn scaled(x: f64, n: usize, s: f64) -> f64 {
    x * s * n as f64
}

struct Springs {
    rest: Vec<f64>,
    stiffness: f64,
    count: usize,
}

impl Springs {
    /// `self.rest[i]` and `self.stiffness` (of types the macro cannot see)
    /// go to parameters the callee differentiates: each gets a scratch slot
    /// (they did not: E0061, the adjoint called with too few slots);
    /// `self.count` goes to a `usize`.
    #[differentiable]
    fn energy(&self, x: f64) -> f64 {
        let mut e = 0.0;
        for i in 0..self.rest.len() {
            e += weighted_square(x - self.rest[i], self.stiffness);
        }
        e + scaled(x, self.count, self.stiffness)
    }
}

#[test]
fn a_methods_data_given_to_differentiated_parameters() {
    let springs = Springs {
        rest: vec![0.5, -1.0, 2.0],
        stiffness: 1.5,
        count: 3,
    };
    for x in [0.3, -1.2] {
        let (value, dx) = springs.energy_grad(x);
        assert_eq!(value, springs.energy(x));
        common::assert_gradient(|v| springs.energy(v[0]), &[x], &[dx]);
    }
}

// What the refusal of a buffer given by `&mut` (ui-tests
// `changed_by_a_call`) tells the user to write for a double buffer: the
// swap as copies. Its gradient against finite differences.
#[differentiable]
#[allow(clippy::assign_op_pattern)]
fn smoothed_with_a_swap(u0: &[f64]) -> f64 {
    let n = u0.len();
    let mut u = u0.to_vec();
    let mut next = vec![0.0; n];
    for _ in 0..3 {
        next[0] = u[0];
        next[n - 1] = u[n - 1];
        for i in 1..n - 1 {
            next[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]);
        }
        let old = u.to_vec();
        u = next.clone();
        next = old;
    }
    let mut total = 0.0;
    for i in 0..n {
        total += u[i] * u[i] * (i + 1) as f64 + next[i];
    }
    total
}

#[test]
fn a_double_buffer_swapped_by_copies() {
    let x = [1.0, 2.0, 3.0, 4.0, 0.5];
    let (value, gradient) = smoothed_with_a_swap_grad(&x);
    assert_eq!(value, smoothed_with_a_swap(&x));
    common::assert_gradient(smoothed_with_a_swap, &x, &gradient);
}

fn fill_grid(xs: &mut [f64], h: f64) {
    for (k, x) in xs.iter_mut().enumerate() {
        *x = k as f64 * h;
    }
}

// A buffer of constants a helper fills by `&mut` before anything
// differentiated is stored into it is still passed.
#[differentiable]
fn on_a_grid(w: &[f64]) -> f64 {
    let mut xs = vec![0.0; 4];
    fill_grid(&mut xs, 0.5);
    let mut total = 0.0;
    for k in 0..4 {
        total += (w[0] * xs[k] + w[1]).sin();
    }
    total
}

#[test]
fn a_constant_buffer_filled_by_a_helper() {
    let w = [0.7, -0.2];
    let (value, gradient) = on_a_grid_grad(&w);
    assert_eq!(value, on_a_grid(&w));
    common::assert_gradient(on_a_grid, &w, &gradient);
}

#[differentiable]
fn log_sum_exp(v: &[f64]) -> f64 {
    let mut m = f64::NEG_INFINITY;
    for &x in v {
        m = m.max(x);
    }
    let mut s = 0.0;
    for &x in v {
        s += (x - m).exp();
    }
    m + s.ln()
}

#[differentiable]
fn pair_energy(p: &[f64; 3]) -> f64 {
    p[0] * p[1] + (p[2] * p[0]).sin()
}

// Calls given arrays that vary: a log-sum-exp helper per sample in a sum
// over samples (a fused loop's body) and in the function body, and a
// helper given a fixed-size array; against a twin whose calls sit in a
// branch (replayed) and finite differences. (Taking such a call's
// partials as it runs, into a buffer, was tried on 2026-11-28 and not
// kept: softmax regression through `lse(&logits)` 4–6% fewer
// instructions at 650 samples, 5% more at 40, an allocation a call.)
#[differentiable(wrt(w))]
fn softmax_nll(w: &[f64], xs: &[f64], labels: &[usize]) -> f64 {
    let classes = 3;
    let mut total = 0.0;
    for (i, &label) in labels.iter().enumerate() {
        let mut logits = vec![0.0; classes];
        for c in 0..classes {
            logits[c] = w[c] * xs[i] + w[c + 3];
        }
        total += log_sum_exp(&logits) - logits[label];
    }
    let spread = log_sum_exp(&w[0..3]);
    let p = [w[0], w[1] * w[2], w[3]];
    total + 0.1 * spread + pair_energy(&p)
}

#[differentiable(wrt(w))]
fn softmax_nll_replayed(w: &[f64], xs: &[f64], labels: &[usize]) -> f64 {
    let classes = 3;
    let mut total = 0.0;
    let always = w.len() < 1000;
    for (i, &label) in labels.iter().enumerate() {
        let mut logits = vec![0.0; classes];
        for c in 0..classes {
            logits[c] = w[c] * xs[i] + w[c + 3];
        }
        if always {
            total += log_sum_exp(&logits) - logits[label];
        }
    }
    let mut spread = 0.0;
    let mut energy = 0.0;
    if always {
        spread = log_sum_exp(&w[0..3]);
        let p = [w[0], w[1] * w[2], w[3]];
        energy = pair_energy(&p);
    }
    total + 0.1 * spread + energy
}

#[test]
fn calls_given_arrays_take_their_partials_as_they_run() {
    let (xs, labels) = ([0.5, -1.0, 2.0, 0.3], [0usize, 2, 1, 2]);
    for w in [
        [0.1, -0.4, 0.3, 0.2, 0.0, -0.1],
        [1.2, 0.5, -0.7, -0.3, 0.4, 0.9],
    ] {
        let (value, gradient) = softmax_nll_grad(&w, &xs, &labels);
        let (replayed_value, replayed) = softmax_nll_replayed_grad(&w, &xs, &labels);
        assert_eq!(value, softmax_nll(&w, &xs, &labels));
        assert_eq!(value, replayed_value);
        for (a, b) in gradient.iter().zip(&replayed) {
            assert!((a - b).abs() <= 1e-13 * (1.0 + a.abs()), "{a} against {b}");
        }
        assert_gradient(|w| softmax_nll(w, &xs, &labels), &w, &gradient);
    }
}

/// A plain function that takes a buffer by value.
fn total_of(v: Vec<f64>) -> f64 {
    v.iter().sum()
}

/// A buffer given by value to a helper that does not differentiate it,
/// after the gradient needs it (`scale[k]` is `∂logits[k]/∂w[k]`): the
/// expansion moved it into the call and read it after (E0382, on valid
/// code, until 2026-11-28); the call is now given a copy.
#[allow(clippy::needless_range_loop)]
#[differentiable(wrt(w))]
fn given_by_value(w: &[f64], n: usize) -> f64 {
    let mut total = 0.0;
    for i in 0..n {
        let mut scale = vec![1.0; 3];
        scale[1] = i as f64;
        let mut logits = vec![0.0; 3];
        for k in 0..3 {
            logits[k] = w[k] * scale[k];
        }
        total += logits[0] * logits[1] + total_of(scale);
    }
    total
}

#[test]
fn a_buffer_given_by_value_is_given_a_copy() {
    let w = [0.5, -1.0, 2.0];
    let (value, gradient) = given_by_value_grad(&w, 4);
    assert_eq!(value, given_by_value(&w, 4));
    assert_eq!(gradient, vec![-6.0, 3.0, 0.0]);
    assert_gradient(|w| given_by_value(w, 4), &w, &gradient);
}

// ----- early calls (`emit/reverse.rs`, `early_calls`) -----------------------
//
// A call in a fused loop's body whose result reaches the loop's sum
// through `+`, `-` and unary `-` alone has the sum's seed (or its
// negation) as its adjoint before it runs: the forward code calls the
// callee's adjoint with it, and the callee runs once. Each function here
// counts its calls, and is checked against central finite differences and
// against the same body in a branch (not fused: the callee, then its
// adjoint in the reverse).

#[differentiable]
fn cubic_sum(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * v[i] * v[i] - v[i];
    }
    s
}

/// Every way the result can reach the sum, and what keeps a call from
/// being early: a store into its array after it, its result read twice.
#[differentiable]
fn early_shapes(x: &[f64]) -> f64 {
    let outer = [x[0] * x[1], x[2]];
    let mut total = 0.0;
    let mut other = 0.0;
    for i in 0..3 {
        let mut buf = vec![0.0; 3];
        for k in 0..3 {
            buf[k] = x[(i + k) % 6] * (i as f64 + 1.0);
        }
        let fixed = [x[i + 3], buf[1] * x[i]];
        // `+`, then `-` as the second operand (negated), unary `-`
        total += counted_lse(&buf) - 0.5 * x[i];
        total += x[i + 1] - counted_lse(&buf[1..]);
        total -= -counted_lse(&fixed);
        // a parameter's subslice and an array declared before the loop,
        // into another sum
        other += cubic_sum(&x[i..i + 3]) + cubic_sum(&outer);
        // not early: its array stored into after it, its result read twice
        let mut late = [buf[0], x[i + 2]];
        let stored = counted_lse(&late);
        late[0] = 2.0 * late[1];
        let twice = counted_lse(&fixed[..1]);
        total += stored + twice * twice + late[0];
    }
    total + 2.0 * other
}

#[differentiable]
fn early_shapes_in_a_branch(x: &[f64]) -> f64 {
    let outer = [x[0] * x[1], x[2]];
    let mut total = 0.0;
    let mut other = 0.0;
    // (in an `if`: the loop is not fused)
    if x.len() < 1000 {
        for i in 0..3 {
            let mut buf = vec![0.0; 3];
            for k in 0..3 {
                buf[k] = x[(i + k) % 6] * (i as f64 + 1.0);
            }
            let fixed = [x[i + 3], buf[1] * x[i]];
            total += counted_lse(&buf) - 0.5 * x[i];
            total += x[i + 1] - counted_lse(&buf[1..]);
            total -= -counted_lse(&fixed);
            other += cubic_sum(&x[i..i + 3]) + cubic_sum(&outer);
            let mut late = [buf[0], x[i + 2]];
            let stored = counted_lse(&late);
            late[0] = 2.0 * late[1];
            let twice = counted_lse(&fixed[..1]);
            total += stored + twice * twice + late[0];
        }
    }
    total + 2.0 * other
}

#[test]
fn early_calls_agree_with_calls_reversed_later() {
    let points = [
        [0.7, -1.3, 0.4, 1.9, -0.6, 1.1],
        [1.2, 0.3, -0.8, 0.5, 2.1, -0.2],
        [-0.4, 0.9, 1.6, -1.1, 0.2, 0.8],
    ];
    common::check_gradient_and_adjoint(
        early_shapes,
        early_shapes_grad,
        early_shapes_adjoint,
        &points,
    );
    for x in points {
        let (value, gradient) = early_shapes_grad(&x);
        let (later_value, later) = early_shapes_in_a_branch_grad(&x);
        assert_eq!(value, later_value, "at {x:?}");
        common::assert_close(&gradient, &later, &x);
    }
    // three early calls a sample run the adjoint alone; the two that are
    // not, the helper and then its adjoint
    let x = points[0];
    LSE_CALLS.with(|c| c.set(0));
    LSE_ADJOINT_CALLS.with(|c| c.set(0));
    let _ = early_shapes_grad(&x);
    assert_eq!(LSE_CALLS.with(|c| c.get()), 3 * 2);
    assert_eq!(LSE_ADJOINT_CALLS.with(|c| c.get()), 3 * 5);
}

/// Early calls in the function body (their adjoint `d_out`, through a
/// `-` and a product by a constant), and in a fused loop through a product
/// by a value known at the call; not early: a product by a value defined
/// after the call, a call in the body whose array is stored into after it.
#[differentiable]
fn early_factors(x: &[f64]) -> f64 {
    let mut v = vec![x[4], x[5] * x[0]];
    let mut total = 0.0;
    for i in 0..3 {
        let buf = [x[i], x[i + 1] * x[i + 2], 0.5];
        let weight = x[i + 3].cos();
        total += weight * counted_lse(&buf);
        let later = counted_lse(&buf[1..]);
        let s = x[i].sin();
        total += later * s;
    }
    let kept = counted_lse(&v);
    v[0] = 2.0 * v[1];
    let head = counted_lse(&x[0..3]);
    total + 2.0 * (x[3] - head) + kept * v[0]
}

#[differentiable]
fn early_factors_in_a_branch(x: &[f64]) -> f64 {
    let mut v = vec![x[4], x[5] * x[0]];
    let mut total = 0.0;
    // (in an `if`: nothing fused, nothing at the body's top)
    if x.len() < 1000 {
        for i in 0..3 {
            let buf = [x[i], x[i + 1] * x[i + 2], 0.5];
            let weight = x[i + 3].cos();
            total += weight * counted_lse(&buf);
            let later = counted_lse(&buf[1..]);
            let s = x[i].sin();
            total += later * s;
        }
        let kept = counted_lse(&v);
        v[0] = 2.0 * v[1];
        let head = counted_lse(&x[0..3]);
        total + 2.0 * (x[3] - head) + kept * v[0]
    } else {
        0.0
    }
}

#[test]
fn early_calls_through_products_and_in_the_body() {
    let points = [
        [0.7, -1.3, 0.4, 1.9, -0.6, 1.1],
        [1.2, 0.3, -0.8, 0.5, 2.1, -0.2],
        [-0.4, 0.9, 1.6, -1.1, 0.2, 0.8],
    ];
    common::check_gradient_and_adjoint(
        early_factors,
        early_factors_grad,
        early_factors_adjoint,
        &points,
    );
    for x in points {
        let (value, gradient) = early_factors_grad(&x);
        let (later_value, later) = early_factors_in_a_branch_grad(&x);
        assert_eq!(value, later_value, "at {x:?}");
        common::assert_close(&gradient, &later, &x);
    }
    // early: the weighted call a sample and `head`; not: `later` a sample
    // and `kept`
    LSE_CALLS.with(|c| c.set(0));
    LSE_ADJOINT_CALLS.with(|c| c.set(0));
    let _ = early_factors_grad(&points[1]);
    assert_eq!(LSE_CALLS.with(|c| c.get()), 3 + 1);
    assert_eq!(LSE_ADJOINT_CALLS.with(|c| c.get()), 2 * 3 + 2);
}

#[differentiable]
fn horner(c: &[f64], x: f64) -> f64 {
    let mut acc = 0.0;
    for &ci in c.iter().rev() {
        acc = acc * x + ci;
    }
    acc
}

/// Early calls given a scalar that varies too: one the loop's body
/// defines before the call gets its adjoint declared at the call (the
/// callee adds into it, its definition's reverse reads it); a parameter
/// keeps the call for the reverse.
#[differentiable]
fn early_scalars(coef: &[f64], xs: &[f64], x0: f64) -> f64 {
    let mut total = 0.0;
    for i in 0..xs.len() {
        let t = (xs[i] * coef[0]).tanh();
        total += horner(coef, t);
        total += 0.5 * horner(&coef[1..], x0);
        total -= horner(&coef[..2], t * x0);
    }
    total
}

#[differentiable]
fn early_scalars_in_a_branch(coef: &[f64], xs: &[f64], x0: f64) -> f64 {
    let mut total = 0.0;
    // (in an `if`: not fused)
    if xs.len() < 1000 {
        for i in 0..xs.len() {
            let t = (xs[i] * coef[0]).tanh();
            total += horner(coef, t);
            total += 0.5 * horner(&coef[1..], x0);
            total -= horner(&coef[..2], t * x0);
        }
    }
    total
}

#[test]
fn early_calls_given_scalars() {
    let coef = [0.3, -0.7, 0.5, 0.2];
    let xs = [0.5, -1.0, 1.5];
    let x0 = 0.8;
    let (value, (d_coef, d_xs, d_x0)) = early_scalars_grad(&coef, &xs, x0);
    assert_eq!(value, early_scalars(&coef, &xs, x0));
    assert_gradient(|c| early_scalars(c, &xs, x0), &coef, &d_coef);
    assert_gradient(|x| early_scalars(&coef, x, x0), &xs, &d_xs);
    assert_gradient(|x| early_scalars(&coef, &xs, x[0]), &[x0], &[d_x0]);
    let (later_value, (l_coef, l_xs, l_x0)) = early_scalars_in_a_branch_grad(&coef, &xs, x0);
    assert_eq!(value, later_value);
    common::assert_close(&d_coef, &l_coef, &coef);
    common::assert_close(&d_xs, &l_xs, &xs);
    common::assert_close(&[d_x0], &[l_x0], &[x0]);
}

/// A `map` before a `filter`: the mapped value is taken once an element
/// (the filter's test and the sum read it), as `Iterator` evaluates it, in
/// the loop a person writes (`mapped_then_filtered_loop`). The test and the
/// element each evaluated it until 2026-11-29.
#[differentiable]
fn mapped_then_filtered(x: &[f64]) -> f64 {
    x.chunks(2)
        .map(counted_lse)
        .filter(|v| *v > 0.5)
        .map(|v| v * v)
        .sum()
}

#[differentiable]
fn mapped_then_filtered_loop(x: &[f64]) -> f64 {
    let mut total = 0.0;
    for pair in x.chunks(2) {
        let v = counted_lse(pair);
        if v <= 0.5 {
            continue;
        }
        total += v * v;
    }
    total
}

/// The helper's calls (primal, adjoint) while `f` runs.
fn lse_calls(f: impl FnOnce()) -> (usize, usize) {
    LSE_CALLS.with(|c| c.set(0));
    LSE_ADJOINT_CALLS.with(|c| c.set(0));
    f();
    (
        LSE_CALLS.with(|c| c.get()),
        LSE_ADJOINT_CALLS.with(|c| c.get()),
    )
}

#[test]
fn a_map_before_a_filter_runs_once_an_element() {
    let x = [0.3, -1.2, -2.0, -1.5, 0.9, 1.4, -3.0, -0.4];
    let (v, g) = mapped_then_filtered_grad(&x);
    let (v_loop, g_loop) = mapped_then_filtered_loop_grad(&x);
    assert_eq!(v.to_bits(), v_loop.to_bits());
    assert_eq!(v, mapped_then_filtered(&x));
    assert_eq!(g, g_loop);
    assert_gradient(mapped_then_filtered, &x, &g);
    // four elements (two pass): the primal evaluates each once, as the
    // loop does; the gradient makes the loop's calls
    assert_eq!(
        lse_calls(|| {
            mapped_then_filtered(&x);
        }),
        (4, 0)
    );
    let calls = lse_calls(|| {
        mapped_then_filtered_grad(&x);
    });
    assert_eq!(
        calls,
        lse_calls(|| drop(mapped_then_filtered_loop_grad(&x)))
    );
    assert_eq!(calls.0, 4);
}
