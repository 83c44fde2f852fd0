//! Vector-valued functions (API.md §4): `f_jacobian` and the
//! vector-Jacobian `f_adjoint` of functions returning `[f64; M]` or
//! `Vec<f64>`, against central finite differences of the function itself,
//! and the adjoint against the Jacobian (`d_outᵀ J`, added into pre-filled
//! buffers).

#![allow(clippy::needless_range_loop)]

use autograd::differentiable;

/// Central differences of every output with respect to every input: the
/// Jacobian, row-major.
fn numeric_jacobian(f: impl Fn(&[f64]) -> Vec<f64>, x: &[f64]) -> Vec<f64> {
    let m = f(x).len();
    let n = x.len();
    let mut jacobian = vec![0.0; m * n];
    for j in 0..n {
        let h = 1e-6 * x[j].abs().max(1.0);
        let (mut plus, mut minus) = (x.to_vec(), x.to_vec());
        plus[j] += h;
        minus[j] -= h;
        let (fp, fm) = (f(&plus), f(&minus));
        for i in 0..m {
            jacobian[i * n + j] = (fp[i] - fm[i]) / (2.0 * h);
        }
    }
    jacobian
}

#[track_caller]
fn assert_close(a: &[f64], b: &[f64], tol: f64) {
    assert_eq!(a.len(), b.len(), "{a:?} vs {b:?}");
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() <= tol * (1.0 + y.abs()), "{a:?} vs {b:?}");
    }
}

/// Residuals of the model `y = a·exp(b·t)` at data points (a `Vec`, a loop
/// into a local buffer), with respect to the parameters only.
#[differentiable(wrt(p))]
fn residuals(p: &[f64], t: &[f64], y: &[f64]) -> Vec<f64> {
    let mut r = vec![0.0; t.len()];
    for i in 0..t.len() {
        r[i] = p[0] * (p[1] * t[i]).exp() - y[i];
    }
    r
}

#[test]
fn a_vec_of_residuals() {
    let (t, y) = ([0.0, 0.5, 1.0, 2.0], [2.1, 1.6, 1.1, 0.7]);
    for p in [[2.0, -0.5], [1.0, 0.3]] {
        let (value, jacobian) = residuals_jacobian(&p, &t, &y);
        assert_eq!(value, residuals(&p, &t, &y));
        let numeric = numeric_jacobian(|q| residuals(q, &t, &y), &p);
        assert_close(&jacobian, &numeric, 1e-7);
        // exact: ∂r_i/∂a = e^{b t_i}, ∂r_i/∂b = a t_i e^{b t_i}
        for i in 0..4 {
            let e = (p[1] * t[i]).exp();
            assert_eq!(jacobian[2 * i], e);
            assert!((jacobian[2 * i + 1] - p[0] * t[i] * e).abs() < 1e-15);
        }
        // r_adjoint adds d_outᵀ J into a pre-filled buffer.
        let d_out = [1.0, -2.0, 0.5, 3.0];
        let mut d_p = vec![0.25, -1.0];
        let v = residuals_adjoint(&p, &t, &y, &d_out, &mut d_p);
        assert_eq!(v, value);
        for j in 0..2 {
            let want: f64 = (0..4).map(|i| d_out[i] * jacobian[2 * i + j]).sum();
            let pre = [0.25, -1.0][j];
            assert!((d_p[j] - (pre + want)).abs() < 1e-12);
        }
    }
}

/// A vector field of a scalar and an array, with an early return and
/// branches: `[f64; 3]`, all parameters active.
#[differentiable]
fn field(x: f64, y: [f64; 2]) -> [f64; 3] {
    if x > 10.0 {
        return [x, y[0], y[1]];
    }
    let s = if y[0] > 0.0 { y[1].sin() } else { y[1].cos() };
    [x * y[0], s + x, x * x]
}

#[test]
fn an_array_valued_field_with_branches_and_an_early_return() {
    let flat = |q: &[f64]| field(q[0], [q[1], q[2]]).to_vec();
    for q in [[1.5, 0.5, 2.0], [-0.7, -1.0, 0.3], [12.0, 0.5, -2.0]] {
        let (value, jacobian) = field_jacobian(q[0], [q[1], q[2]]);
        assert_eq!(value, field(q[0], [q[1], q[2]]));
        assert_close(&jacobian, &numeric_jacobian(flat, &q), 1e-7);
        let d_out = [0.5, -1.0, 2.0];
        let (mut dx, mut dy) = (1.0, [0.0, -0.5]);
        let v = field_adjoint(q[0], [q[1], q[2]], &d_out, &mut dx, &mut dy);
        assert_eq!(v, value);
        let vjp = |j: usize| (0..3).map(|i| d_out[i] * jacobian[i * 3 + j]).sum::<f64>();
        assert!((dx - (1.0 + vjp(0))).abs() < 1e-12);
        assert!((dy[0] - vjp(1)).abs() < 1e-12);
        assert!((dy[1] - (-0.5 + vjp(2))).abs() < 1e-12);
    }
}

/// More inputs than outputs, and a constant.
#[differentiable(wrt(x))]
fn pair_products_loop(x: &[f64], scale: f64) -> Vec<f64> {
    let mut out = vec![0.0; x.len() / 2];
    for k in 0..x.len() / 2 {
        out[k] = x[2 * k] * x[2 * k + 1] * scale;
    }
    out
}

#[test]
fn more_inputs_than_outputs() {
    let x = [0.5, 2.0, -1.0, 3.0, 1.5, 0.25];
    let (value, jacobian) = pair_products_loop_jacobian(&x, 2.0);
    assert_eq!(value, vec![2.0, -6.0, 0.75]);
    assert_eq!(jacobian.len(), 3 * 6);
    assert_close(
        &jacobian,
        &numeric_jacobian(|q| pair_products_loop(q, 2.0), &x),
        1e-8,
    );
}

/// Outputs named like generated things, a parameter named `d_out`.
#[differentiable]
fn hygiene(d_out: &[f64], __ad_d: f64) -> [f64; 2] {
    let __ad_out = d_out[0] * __ad_d;
    [__ad_out, d_out[1] + __ad_d]
}

#[test]
fn names_like_the_generated_ones() {
    let (value, jacobian) = hygiene_jacobian(&[2.0, 3.0], 0.5);
    assert_eq!(value, [1.0, 3.5]);
    assert_eq!(jacobian, vec![0.5, 0.0, 2.0, 0.0, 1.0, 1.0]);
    let (mut d, mut s) = (vec![0.0; 2], 0.0);
    hygiene_adjoint(&[2.0, 3.0], 0.5, &[1.0, 1.0], &mut d, &mut s);
    assert_eq!((d, s), (vec![0.5, 1.0], 3.0));
}

#[test]
#[should_panic(expected = "d_out")]
fn a_d_out_of_the_wrong_length_panics() {
    let mut d = [0.0; 2];
    field_adjoint(1.0, [1.0, 2.0], &[1.0, 1.0], &mut 0.0, &mut d);
}

// ----- a scalar function calling a vector-valued one -------------------------

/// ½‖r‖², from the residuals above: its gradient is Jᵀr.
#[differentiable(wrt(p))]
fn half_squared_norm(p: &[f64], t: &[f64], y: &[f64]) -> f64 {
    let r = residuals(p, t, y);
    let mut s = 0.0;
    for i in 0..r.len() {
        s += 0.5 * r[i] * r[i];
    }
    s
}

#[test]
fn a_scalar_function_indexes_the_result_of_a_vector_valued_one() {
    let (t, y) = ([0.0, 0.5, 1.0, 2.0], [2.1, 1.6, 1.1, 0.7]);
    for p in [[2.0, -0.5], [1.0, 0.3]] {
        let (value, gradient) = half_squared_norm_grad(&p, &t, &y);
        let (r, jacobian) = residuals_jacobian(&p, &t, &y);
        assert_eq!(value, half_squared_norm(&p, &t, &y));
        let jtr: Vec<f64> = (0..2)
            .map(|k| (0..4).map(|i| r[i] * jacobian[2 * i + k]).sum())
            .collect();
        assert_close(&gradient, &jtr, 1e-14);
    }
}

/// Typed, mutable, with a constant array argument (the callee
/// differentiates it: a scratch slot), and iterated.
#[differentiable]
fn uses_a_field(x: f64, z: f64) -> f64 {
    let v: [f64; 3] = field(x, [z, 2.0]);
    let mut w = field(z, [x, x]);
    w[0] += 1.0;
    let c = field(x, [0.5, 1.5]);
    let mut total = 0.0;
    for &e in c.iter() {
        total += e * z;
    }
    v[0] * v[2] + w[1] - 3.0 * w[0] + total
}

#[test]
fn vector_results_typed_copied_and_with_constant_arguments() {
    let f = |q: &[f64]| uses_a_field(q[0], q[1]);
    for q in [[0.7, -1.2], [-0.3, 0.4]] {
        let (value, (dx, dz)) = uses_a_field_grad(q[0], q[1]);
        assert_eq!(value, f(&q));
        let numeric = numeric_jacobian(|p| vec![f(p)], &q);
        assert_close(&[dx, dz], &numeric, 1e-7);
    }
}
