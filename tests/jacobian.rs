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

// ----- columns by forward mode, rows by reverse mode ------------------------
//
// `f_jacobian` computes a tall Jacobian (no more active floats than
// outputs) by columns in forward mode, a wide one by rows in reverse mode
// (decided at compile time when both counts are in the types, else at run
// time). `f_adjoint` is always one reverse sweep, so the rows `e_iᵀ J` it
// gives are a second oracle for columns computed forwards, besides central
// differences (`autograd::check::jacobian`).

/// The Jacobian assembled row by row from the vector-Jacobian product
/// `adjoint(e_i, slots)` (reverse mode), `n` floats per row.
fn rows_by_adjoint(m: usize, n: usize, mut adjoint: impl FnMut(&[f64], &mut [f64])) -> Vec<f64> {
    let mut jacobian = vec![0.0; m * n];
    let mut unit = vec![0.0; m];
    for i in 0..m {
        unit[i] = 1.0;
        adjoint(&unit, &mut jacobian[i * n..(i + 1) * n]);
        unit[i] = 0.0;
    }
    jacobian
}

/// A Gaussian peak `a·exp(-(t-μ)²/(2σ²)) + c` at many data points, in
/// three parameters of an array and a scalar: 3 + 1 columns, `t.len()` rows.
#[differentiable(wrt(p, c))]
fn peak_residuals(p: [f64; 3], c: f64, t: &[f64], y: &[f64]) -> Vec<f64> {
    let [a, mu, sigma] = p;
    let mut r = vec![0.0; t.len()];
    for i in 0..t.len() {
        let z = (t[i] - mu) / sigma;
        r[i] = a * (-0.5 * z * z).exp() + c - y[i];
    }
    r
}

fn peak_data(m: usize) -> (Vec<f64>, Vec<f64>) {
    let t: Vec<f64> = (0..m)
        .map(|i| -3.0 + 6.0 * i as f64 / (m - 1) as f64)
        .collect();
    let y = t
        .iter()
        .map(|&t| 2.0 * (-t * t / 2.0).exp() + 0.1 * t.sin())
        .collect();
    (t, y)
}

#[test]
fn a_tall_jacobian_by_columns_agrees_with_rows_and_differences() {
    let (t, y) = peak_data(200);
    for (p, c) in [([2.0, 0.3, 1.1], 0.05), ([1.5, -0.4, 0.7], -0.2)] {
        let (value, jacobian) = peak_residuals_jacobian(p, c, &t, &y);
        assert_eq!(value, peak_residuals(p, c, &t, &y));
        assert_eq!(jacobian.len(), 200 * 4);
        let flat = |q: &[f64]| peak_residuals([q[0], q[1], q[2]], q[3], &t, &y);
        autograd::check::jacobian(flat, &[p[0], p[1], p[2], c], &jacobian).assert_ok(1e-6);
        let rows = rows_by_adjoint(200, 4, |d_out, row| {
            let (mut dp, mut dc) = ([0.0; 3], 0.0);
            peak_residuals_adjoint(p, c, &t, &y, d_out, &mut dp, &mut dc);
            row[..3].copy_from_slice(&dp);
            row[3] = dc;
        });
        assert_close(&jacobian, &rows, 1e-13);
        // exact: ∂r/∂c = 1, ∂r/∂a = exp(-z²/2)
        for i in 0..200 {
            let z = (t[i] - p[1]) / p[2];
            assert_eq!(jacobian[4 * i + 3], 1.0);
            assert!((jacobian[4 * i] - (-0.5 * z * z).exp()).abs() < 1e-15);
        }
    }
}

#[differentiable]
fn smooth_step(x: f64, width: f64) -> f64 {
    0.5 * (1.0 + (x / width).tanh())
}

/// Scalars, a slice and an array, a call with varying scalars, branches,
/// a loop carrying a value, an early return from inside a loop, and a
/// constant early return (a zero Jacobian on that path).
#[differentiable(wrt(a, w, b))]
fn mixed(a: f64, w: &[f64], b: &[f64; 2], k: usize) -> Vec<f64> {
    if k == 0 {
        return vec![0.0; 3];
    }
    let mut out = vec![0.0; w.len() + 2];
    let mut carry = a;
    for i in 0..w.len() {
        carry = carry * b[0] + smooth_step(w[i], b[1]) * a;
        if carry > 100.0 {
            return vec![carry, carry * a, b[0] * carry, b[1], w[i], carry.sqrt()];
        }
        out[i] = if w[i] > 0.0 {
            carry.sin()
        } else {
            carry * w[i]
        };
    }
    out[w.len()] = a * a + b[0];
    out[w.len() + 1] = (k as f64) * b[1].exp();
    out
}

fn check_mixed(a: f64, w: &[f64], b: [f64; 2], k: usize) {
    let n = 1 + w.len() + 2;
    let (value, jacobian) = mixed_jacobian(a, w, &b, k);
    assert_eq!(value, mixed(a, w, &b, k));
    let m = value.len();
    assert_eq!(jacobian.len(), m * n);
    let flat = |q: &[f64]| mixed(q[0], &q[1..n - 2], &[q[n - 2], q[n - 1]], k);
    let mut x = vec![a];
    x.extend_from_slice(w);
    x.extend_from_slice(&b);
    autograd::check::jacobian(flat, &x, &jacobian).assert_ok(1e-6);
    let rows = rows_by_adjoint(m, n, |d_out, row| {
        let (mut da, mut dw, mut db) = (0.0, vec![0.0; w.len()], [0.0; 2]);
        mixed_adjoint(a, w, &b, k, d_out, &mut da, &mut dw, &mut db);
        row[0] = da;
        row[1..n - 2].copy_from_slice(&dw);
        row[n - 2..].copy_from_slice(&db);
    });
    assert_close(&jacobian, &rows, 1e-12);
}

#[test]
fn columns_and_rows_agree_through_calls_branches_and_early_returns() {
    // tall: n = 1 + 2 + 2 = 5 ≤ m = 4 + 2 = 6 → columns
    check_mixed(0.7, &[0.5, -1.2, 0.3, 0.9], [0.8, 1.3], 2);
    // wide: n = 1 + 8 + 2 = 11 > m = 10 → rows
    let w: Vec<f64> = (0..8).map(|i| (i as f64 * 0.7 + 0.3).sin()).collect();
    check_mixed(-0.4, &w, [0.6, 0.9], 3);
    // the constant early return: a zero Jacobian
    let (value, jacobian) = mixed_jacobian(0.7, &[0.5, 1.0], &[0.8, 1.3], 0);
    assert_eq!(value, vec![0.0; 3]);
    assert_eq!(jacobian, vec![0.0; 3 * 5]);
    // the early return from inside the loop: six outputs, by rows (n = 9)
    // and by columns (n = 6)
    check_mixed(3.0, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [4.0, 1.0], 1);
    assert_eq!(mixed(3.0, &[1.0; 6], &[4.0, 1.0], 1).len(), 6);
    check_mixed(3.0, &[1.0, 2.0, 3.0], [4.0, 1.0], 1);
}

/// An array result as a list, in two scalars: 2 columns ≤ 4 rows, decided
/// at compile time.
#[differentiable]
fn polar_features(r: f64, theta: f64) -> [f64; 4] {
    let (s, c) = theta.sin_cos();
    [r * c, r * s, r * r, 2.0]
}

/// A copy of a parameter slice, modified: square (n = m), by columns.
#[differentiable]
fn scaled_copy(x: &[f64], s: f64) -> Vec<f64> {
    let mut v = x.to_vec();
    for i in 0..v.len() {
        v[i] *= s * x[i];
    }
    v
}

#[test]
fn array_results_copies_and_constant_outputs_by_columns() {
    for (r, theta) in [(1.5, 0.3), (0.2, -2.0)] {
        let (value, jacobian) = polar_features_jacobian(r, theta);
        assert_eq!(value, polar_features(r, theta));
        let (s, c) = theta.sin_cos();
        assert_eq!(jacobian, vec![c, -r * s, s, r * c, 2.0 * r, 0.0, 0.0, 0.0]);
    }
    let x = [0.5, -1.5, 2.0];
    let (value, jacobian) = scaled_copy_jacobian(&x, 0.8);
    assert_eq!(value, scaled_copy(&x, 0.8));
    let flat = |q: &[f64]| scaled_copy(&q[..3], q[3]);
    autograd::check::jacobian(flat, &[0.5, -1.5, 2.0, 0.8], &jacobian).assert_ok(1e-6);
    let rows = rows_by_adjoint(3, 4, |d_out, row| {
        let (mut dx, mut ds) = (vec![0.0; 3], 0.0);
        scaled_copy_adjoint(&x, 0.8, d_out, &mut dx, &mut ds);
        row[..3].copy_from_slice(&dx);
        row[3] = ds;
    });
    assert_close(&jacobian, &rows, 1e-14);
}

#[differentiable]
fn model(p: &[f64], t: f64) -> f64 {
    p[0] * (p[1] * t).exp()
}

#[differentiable]
fn line(q: &[f64; 2], t: f64) -> f64 {
    q[0] + q[1] * t
}

/// A varying slice passed to a call (the curve-fitting case): by columns,
/// the callee's gradient goes into a scratch slot and the tangent is its
/// dot product with the direction.
#[differentiable(wrt(p))]
fn residuals_through_a_call(p: &[f64], t: &[f64], y: &[f64]) -> Vec<f64> {
    let mut r = vec![0.0; t.len()];
    for i in 0..t.len() {
        r[i] = model(p, t[i]) - y[i];
    }
    r
}

/// Subslices of a varying slice, an array parameter, and one array passed
/// twice to the same call (that call is differentiated by rows).
#[differentiable(wrt(p, q))]
fn two_models(p: &[f64], q: &[f64; 2], t: &[f64]) -> Vec<f64> {
    let mut r = vec![0.0; 2 * t.len()];
    for i in 0..t.len() {
        r[2 * i] = model(&p[1..3], t[i]) * line(q, t[i]);
        r[2 * i + 1] = model(&p[..2], t[i] * p[3]);
    }
    r
}

#[differentiable]
fn pair_product(a: &[f64], b: &[f64]) -> f64 {
    a[0] * b[1]
}

#[differentiable]
fn passed_twice(x: &[f64]) -> Vec<f64> {
    let mut r = vec![0.0; 4];
    for i in 0..4 {
        r[i] = pair_product(x, x) * (i as f64);
    }
    r
}

#[test]
fn a_tall_jacobian_through_calls_with_varying_arrays() {
    let (t, y) = peak_data(50);
    let p = [1.2, -0.3];
    let (value, jacobian) = residuals_through_a_call_jacobian(&p, &t, &y);
    assert_eq!(value, residuals_through_a_call(&p, &t, &y));
    let (_, direct) = residuals_jacobian(&p, &t, &y);
    assert_close(&jacobian, &direct, 1e-14);

    let (p, q) = ([9.0, 1.2, -0.3, 0.8], [0.5, -0.25]);
    let t = &t[..10];
    let (value, jacobian) = two_models_jacobian(&p, &q, t);
    assert_eq!(value, two_models(&p, &q, t));
    let flat = |z: &[f64]| two_models(&z[..4], &[z[4], z[5]], t);
    let z = [p[0], p[1], p[2], p[3], q[0], q[1]];
    autograd::check::jacobian(flat, &z, &jacobian).assert_ok(1e-6);
    let rows = rows_by_adjoint(20, 6, |d_out, row| {
        let (mut dp, mut dq) = (vec![0.0; 4], [0.0; 2]);
        two_models_adjoint(&p, &q, t, d_out, &mut dp, &mut dq);
        row[..4].copy_from_slice(&dp);
        row[4..].copy_from_slice(&dq);
    });
    assert_close(&jacobian, &rows, 1e-13);
    // the even outputs do not read p[0] nor p[3], the odd ones not q
    for i in 0..10 {
        assert_eq!((jacobian[12 * i], jacobian[12 * i + 3]), (0.0, 0.0));
        assert_eq!(&jacobian[12 * i + 10..12 * i + 12], &[0.0, 0.0]);
    }

    let (value, jacobian) = passed_twice_jacobian(&[2.0, 3.0]);
    assert_eq!(value, vec![0.0, 6.0, 12.0, 18.0]);
    assert_eq!(jacobian, vec![0.0, 0.0, 3.0, 2.0, 6.0, 4.0, 9.0, 6.0]);
}

// ----- methods returning vectors --------------------------------------------

struct Decay {
    times: Vec<f64>,
    scale: f64,
}

impl Decay {
    /// Residuals against data, the times and scale from `self`.
    #[differentiable(wrt(p))]
    fn residuals(&self, p: &[f64], y: &[f64]) -> Vec<f64> {
        let mut r = vec![0.0; self.times.len()];
        for i in 0..self.times.len() {
            r[i] = self.scale * p[0] * (p[1] * self.times[i]).exp() - y[i];
        }
        r
    }

    /// A second vector-valued method in the same impl (its helpers are
    /// named after it), wide: by rows.
    #[differentiable]
    fn mix(&self, w: [f64; 3]) -> [f64; 2] {
        [w[0] * w[1] * self.scale, w[2].sin() + w[0]]
    }

    /// A scalar method calling the vector-valued one as a method.
    #[differentiable(wrt(p), hessian)]
    fn weighted_cost(&self, p: &[f64], y: &[f64], weights: &[f64]) -> f64 {
        let r = self.residuals(p, y);
        let mut s = 0.0;
        for i in 0..r.len() {
            s += weights[i] * r[i] * r[i];
        }
        s
    }

    /// A scalar method calling the vector-valued one by path, with second
    /// order.
    #[differentiable(wrt(p), hessian)]
    fn cost(&self, p: &[f64], y: &[f64]) -> f64 {
        let r = Self::residuals(self, p, y);
        let mut s = 0.0;
        for i in 0..r.len() {
            s += 0.5 * r[i] * r[i];
        }
        s
    }
}

#[test]
fn methods_returning_vectors() {
    let model = Decay {
        times: vec![0.0, 0.4, 0.9, 1.3, 2.0],
        scale: 1.5,
    };
    let y = [1.0, 1.2, 1.9, 2.4, 3.1];
    let p = [0.8, 0.6];
    let (value, jacobian) = model.residuals_jacobian(&p, &y);
    assert_eq!(value, model.residuals(&p, &y));
    autograd::check::jacobian(|q| model.residuals(q, &y), &p, &jacobian).assert_ok(1e-6);
    let rows = rows_by_adjoint(5, 2, |d_out, row| {
        model.residuals_adjoint(&p, &y, d_out, row);
    });
    assert_close(&jacobian, &rows, 1e-14);

    let w = [0.3, -1.2, 0.7];
    let (value, jacobian) = model.mix_jacobian(w);
    assert_eq!(value, model.mix(w));
    autograd::check::jacobian(|q| model.mix([q[0], q[1], q[2]]).to_vec(), &w, &jacobian)
        .assert_ok(1e-6);

    let (c, gradient, hessian) = model.cost_hessian(&p, &y);
    assert_eq!(c, model.cost(&p, &y));
    let jtr: Vec<f64> = (0..2)
        .map(|k| {
            (0..5)
                .map(|i| value_at(&model, &p, &y, i) * jacobian_at(&model, &p, &y, i, k))
                .sum()
        })
        .collect();
    assert_close(&gradient, &jtr, 1e-13);
    autograd::check::hessian(|q| model.cost_grad(q, &y).1, &p, &hessian).assert_ok(1e-5);

    let weights = [1.0, 0.5, 2.0, 0.25, 1.5];
    let (c, gradient) = model.weighted_cost_grad(&p, &y, &weights);
    assert_eq!(c, model.weighted_cost(&p, &y, &weights));
    let r = model.residuals(&p, &y);
    let (_, jacobian) = model.residuals_jacobian(&p, &y);
    let want: Vec<f64> = (0..2)
        .map(|k| {
            (0..5)
                .map(|i| 2.0 * weights[i] * r[i] * jacobian[2 * i + k])
                .sum()
        })
        .collect();
    assert_close(&gradient, &want, 1e-13);
    let (_, _, hessian) = model.weighted_cost_hessian(&p, &y, &weights);
    autograd::check::hessian(
        |q| model.weighted_cost_grad(q, &y, &weights).1,
        &p,
        &hessian,
    )
    .assert_ok(1e-5);
}

fn value_at(model: &Decay, p: &[f64], y: &[f64], i: usize) -> f64 {
    model.residuals(p, y)[i]
}

fn jacobian_at(model: &Decay, p: &[f64], y: &[f64], i: usize, k: usize) -> f64 {
    model.residuals_jacobian(p, y).1[2 * i + k]
}
