//! Vector-valued functions (API.md §4): `f_jacobian` and the
//! vector-Jacobian `f_adjoint`, against central differences of `f`
//! (`autograd::check::jacobian`) and exact Jacobians.

#![allow(clippy::needless_range_loop)]

use autograd::{check, differentiable};

/// Residuals of a model `a·exp(b·t)` at fixed data (curve fitting).
#[differentiable(wrt(p))]
fn residuals(p: &[f64], t: &[f64], y: &[f64]) -> Vec<f64> {
    let mut r = vec![0.0; t.len()];
    for i in 0..t.len() {
        r[i] = p[0] * (p[1] * t[i]).exp() - y[i];
    }
    r
}

/// A fixed-size vector field of two scalars.
#[differentiable]
fn field(x: f64, y: f64) -> [f64; 3] {
    let s = x * y;
    [s.sin(), x - y * y, s * x]
}

/// An array parameter and a loop carrying a value.
#[differentiable]
fn chain(v: [f64; 2], k: usize) -> Vec<f64> {
    let mut out = vec![0.0; 3];
    let mut c = v[0];
    for i in 0..3 {
        c = c * v[1] + (i as f64) * c.cos();
        out[i] = c * (k as f64);
    }
    out
}

#[test]
fn jacobian_of_residuals() {
    let (t, y) = ([0.0, 0.5, 1.0, 1.5], [1.0, 1.7, 2.6, 4.4]);
    for p in [[1.0, 0.9], [0.5, -0.3]] {
        let (value, jac) = residuals_jacobian(&p, &t, &y);
        assert_eq!(value, residuals(&p, &t, &y));
        assert_eq!(jac.len(), 8);
        check::jacobian(|q| residuals(q, &t, &y), &p, &jac).assert_ok(1e-6);
        // Exact: ∂r/∂a = exp(b t), ∂r/∂b = a t exp(b t).
        for i in 0..4 {
            let e = (p[1] * t[i]).exp();
            assert!((jac[2 * i] - e).abs() < 1e-14);
            assert!((jac[2 * i + 1] - p[0] * t[i] * e).abs() < 1e-14);
        }
        // The vector-Jacobian product adds d_outᵀ J into the buffer.
        let d_out = [0.5, -1.0, 2.0, 0.25];
        let mut d_p = vec![1.0, -1.0];
        let v = residuals_adjoint(&p, &t, &y, &d_out, &mut d_p);
        assert_eq!(v, value);
        for j in 0..2 {
            let want: f64 = (0..4).map(|i| d_out[i] * jac[2 * i + j]).sum::<f64>() + [1.0, -1.0][j];
            assert!((d_p[j] - want).abs() < 1e-12, "{j}: {} vs {want}", d_p[j]);
        }
    }
}

#[test]
fn jacobian_of_a_field_and_of_a_loop() {
    for (x, y) in [(0.4, 1.3), (-1.1, 0.7)] {
        let (value, jac) = field_jacobian(x, y);
        assert_eq!(value, field(x, y));
        check::jacobian(|p| field(p[0], p[1]).to_vec(), &[x, y], &jac).assert_ok(1e-6);
        let (mut dx, mut dy) = (0.0, 0.0);
        field_adjoint(x, y, &[1.0, 0.0, 2.0], &mut dx, &mut dy);
        assert!((dx - (jac[0] + 2.0 * jac[4])).abs() < 1e-12);
        assert!((dy - (jac[1] + 2.0 * jac[5])).abs() < 1e-12);
    }
    for v in [[0.3, 0.9], [1.2, -0.4]] {
        let (value, jac) = chain_jacobian(v, 2);
        assert_eq!(value, chain(v, 2));
        check::jacobian(|p| chain([p[0], p[1]], 2), &v, &jac).assert_ok(1e-6);
    }
}

#[test]
#[should_panic(expected = "`d_out` has length 2, but the function has 3 outputs")]
fn d_out_of_the_wrong_length_panics() {
    let (mut dx, mut dy) = (0.0, 0.0);
    field_adjoint(0.1, 0.2, &[1.0, 2.0], &mut dx, &mut dy);
}

#[differentiable]
fn twice(v: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; v.len()];
    for i in 0..v.len() {
        out[i] = 2.0 * v[i] + v[(i + 1) % v.len()].sin();
    }
    out
}

#[differentiable]
fn pair(x: f64) -> [f64; 2] {
    [x * x, 3.0 * x]
}

// A buffer assigned a helper's vector whole (`a = twice(&a);`, `a =
// pair(..)` in a loop), and a copy of a helper's result (`a = b.clone();`,
// `b` known as an array from the `clone`): refused until 2026-11-28.
#[differentiable]
#[allow(clippy::redundant_clone)]
fn assigned_from_helpers(x: &[f64]) -> f64 {
    let mut a = twice(x);
    for _ in 0..3 {
        a = twice(&a);
    }
    let b = twice(x);
    let mut c = vec![0.0; x.len()];
    c = b.clone();
    let mut p = [1.0; 2];
    for i in 0..x.len() {
        p = pair(x[i] * p[1]);
    }
    a[0] * c[1] + p[0] * p[1]
}

#[test]
fn buffers_assigned_a_helpers_vector() {
    for x in [[0.7, -0.3], [0.2, 0.5]] {
        let (value, gradient) = assigned_from_helpers_grad(&x);
        assert_eq!(value, assigned_from_helpers(&x));
        let report = autograd::check::gradient(assigned_from_helpers, &x, &gradient);
        assert!(report.is_ok(1e-6), "{report}");
    }
}

#[differentiable]
fn polar(r: f64, t: f64) -> [f64; 2] {
    [r * t.cos(), r * t.sin()]
}

// `let [x, y] = polar(r, t);`: a helper's vector destructured (refused
// until 2026-11-28; `let p = polar(..); p[0]` was supported).
#[differentiable]
fn destructured(r: f64, t: f64) -> f64 {
    let [x, y] = polar(r, t);
    let [u, v] = polar(x + 1.0, y);
    x * y + u.sin() * v
}

#[test]
fn a_helpers_vector_destructured() {
    let (value, (d_r, d_t)) = destructured_grad(1.3, 0.4);
    assert_eq!(value, destructured(1.3, 0.4));
    let h = 1e-6;
    let fd_r = (destructured(1.3 + h, 0.4) - destructured(1.3 - h, 0.4)) / (2.0 * h);
    let fd_t = (destructured(1.3, 0.4 + h) - destructured(1.3, 0.4 - h)) / (2.0 * h);
    assert!(
        (d_r - fd_r).abs() < 1e-6 * (1.0 + fd_r.abs()),
        "{d_r} against {fd_r}"
    );
    assert!(
        (d_t - fd_t).abs() < 1e-6 * (1.0 + fd_t.abs()),
        "{d_t} against {fd_t}"
    );
}

// `let (a, b) = (twice(x), twice(y));` then `a[j]`: each part typed as a
// `let` of its own is (a took `a` for a float until 2026-11-28), and a
// tuple whose parts read the names it binds kept whole (`(s, t) = (t, s)`).
// `polar(r, t)[0]`: a helper's vector indexed where it is called, a free
// function's, a `&self` method's and a constant call's (taken for a float,
// "an `f64` cannot be indexed", until 2026-11-28).
struct Lens {
    gain: f64,
}

impl Lens {
    #[differentiable]
    fn bend(&self, v: &[f64]) -> [f64; 2] {
        [self.gain * v[0] * v[1], v[1].sin()]
    }

    #[differentiable]
    fn through(&self, r: f64, t: f64) -> f64 {
        let x = polar(r, t)[0] * polar(r * 2.0, t)[1];
        let row = [x, t, r];
        x + self.bend(&row)[0] - self.bend(&row[1..])[1] * polar(2.0, 0.5)[1]
    }
}

#[test]
fn a_helpers_vector_indexed_where_it_is_called() {
    let lens = Lens { gain: 0.7 };
    for (r, t) in [(1.3, 0.4), (0.6, -1.1)] {
        let (value, (d_r, d_t)) = lens.through_grad(r, t);
        assert_eq!(value, lens.through(r, t));
        let x = [r, t];
        check::gradient(|x: &[f64]| lens.through(x[0], x[1]), &x, &[d_r, d_t]).assert_ok(1e-6);
    }
}

// `twice(x).iter()`: a helper's vector iterated where it is called, in a
// chain and in `for` (refused until 2026-11-28).
#[differentiable]
fn iterated_where_called(x: &[f64]) -> f64 {
    let mut s: f64 = twice(x).iter().map(|v| v.sin()).sum();
    for (i, v) in twice(&x[1..]).iter().enumerate() {
        s += v * i as f64;
    }
    for v in polar(x[0], x[1]).iter() {
        s *= 1.0 + v * 0.1;
    }
    s
}

#[test]
fn a_helpers_vector_iterated_where_it_is_called() {
    for x in [[0.3, -1.2, 0.7], [1.5, 0.25, -0.4]] {
        let (value, gradient) = iterated_where_called_grad(&x);
        assert_eq!(value, iterated_where_called(&x));
        check::gradient(iterated_where_called, &x, &gradient).assert_ok(1e-6);
    }
}

#[differentiable]
fn tuple_of_vectors(x: &[f64]) -> f64 {
    let (a, b) = (twice(x), twice(&x[1..]));
    let mut s = 0.0;
    for j in 0..b.len() {
        s += a[j] * b[j];
    }
    let (t, u) = (s.sin(), x[0]);
    let (t, u) = (u, t);
    s + t * u
}

#[test]
fn a_tuple_of_a_helpers_vectors() {
    let x = [0.7, -0.3, 1.2];
    let (value, gradient) = tuple_of_vectors_grad(&x);
    assert_eq!(value, tuple_of_vectors(&x));
    let report = autograd::check::gradient(tuple_of_vectors, &x, &gradient);
    assert!(report.is_ok(1e-6), "{report}");
}

#[differentiable]
fn scale2(a: &[f64], s: f64) -> [f64; 2] {
    [a[0] * s, a[1] * s.sin()]
}

// A helper's vector bound in a closure given to a chain, indexed and
// iterated in the closure's value (taken for a float until 2026-11-28:
// the value was not scanned with the closure's statements).
#[differentiable(wrt(a))]
fn closure_vectors(a: &[f64], s: &[f64], obs: &[f64]) -> f64 {
    let by_index: f64 = s
        .iter()
        .map(|&si| {
            let r = scale2(a, si);
            (r[0] - obs[0]).powi(2) + (r[1] - obs[1]).powi(2)
        })
        .sum();
    let by_chain: f64 = s
        .iter()
        .map(|&si| {
            let r = scale2(a, si);
            r.iter().zip(obs).map(|(x, y)| (x - y).powi(2)).sum::<f64>()
        })
        .sum();
    by_index + 0.5 * by_chain
}

#[test]
fn a_helpers_vector_in_a_closure() {
    let (a, s, obs) = ([1.0, 2.0], [3.0, 1.0, -0.5], [0.5, 0.5]);
    let (value, gradient) = closure_vectors_grad(&a, &s, &obs);
    assert_eq!(value, closure_vectors(&a, &s, &obs));
    let report = autograd::check::gradient(|a| closure_vectors(a, &s, &obs), &a, &gradient);
    assert!(report.is_ok(1e-6), "{report}");
}

// ----- the value of `f_adjoint` comes from its one forward sweep ----------

thread_local! {
    static SQUASH_CALLS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// A helper the macro cannot see into, with a hand-written adjoint; it
/// counts the runs of its forward code.
fn squash(x: f64) -> f64 {
    SQUASH_CALLS.with(|c| c.set(c.get() + 1));
    x / (1.0 + x.abs())
}

fn squash_adjoint(x: f64, d_out: f64, d_x: &mut f64) -> f64 {
    *d_x += d_out / ((1.0 + x.abs()) * (1.0 + x.abs()));
    squash(x)
}

fn squash_calls(f: impl FnOnce()) -> usize {
    let before = SQUASH_CALLS.with(|c| c.get());
    f();
    SQUASH_CALLS.with(|c| c.get()) - before
}

/// Returns a `Vec` built in a loop, or early, a literal array.
#[differentiable]
fn squashed(v: &[f64], early: bool) -> Vec<f64> {
    if early {
        return vec![squash(v[0]), 0.5 * v[1]];
    }
    let mut out = vec![0.0; v.len()];
    for i in 0..v.len() {
        out[i] = squash(v[i] * v[(i + 1) % v.len()]);
    }
    out
}

#[differentiable]
fn squashed_pair(a: f64, b: f64) -> [f64; 2] {
    let s = squash(a * b);
    [s, s * a]
}

/// Returns a collected iterator: the buffer is filled after the local the
/// returned vector is bound to, so the value is computed apart (as before).
#[differentiable]
fn squashed_collect(v: &[f64]) -> Vec<f64> {
    let out: Vec<f64> = v.iter().map(|x| squash(x * 2.0)).collect();
    out
}

/// `squashed`'s `d_outᵀ squashed(v)` written as a scalar function, as
/// `f_adjoint` differentiates it.
#[differentiable(wrt(v))]
fn squashed_weighted(v: &[f64], early: bool, d: &[f64]) -> f64 {
    if early {
        let out = [squash(v[0]), 0.5 * v[1]];
        return d[0] * out[0] + d[1] * out[1];
    }
    let mut out = vec![0.0; v.len()];
    for i in 0..v.len() {
        out[i] = squash(v[i] * v[(i + 1) % v.len()]);
    }
    let mut s = 0.0;
    for k in 0..out.len() {
        s += d[k] * out[k];
    }
    s
}

/// `f_adjoint` returns the value its own forward sweep computed: it runs
/// the body as often as the adjoint of the scalar `d_outᵀ f` does (it ran
/// it once more, for the value), whichever way it returns, and the value
/// and the vector-Jacobian product are those of `f` and `f_jacobian`.
#[test]
fn the_adjoint_runs_the_body_once() {
    let v = [0.4, -1.3, 0.7];
    for early in [false, true] {
        let d_out: Vec<f64> = (0..squashed(&v, early).len())
            .map(|k| 0.5 - k as f64)
            .collect();
        let mut d_v = [0.0; 3];
        let mut value = Vec::new();
        let runs = squash_calls(|| value = squashed_adjoint(&v, early, &d_out, &mut d_v));
        let mut d_w = [0.0; 3];
        let scalar_runs = squash_calls(|| {
            squashed_weighted_adjoint(&v, early, &d_out, 1.0, &mut d_w);
        });
        assert_eq!(runs, scalar_runs, "early = {early}");
        assert_eq!(d_v, d_w, "early = {early}");
        let (want, jac) = squashed_jacobian(&v, early);
        assert_eq!(value, want);
        for j in 0..3 {
            let vjp: f64 = (0..want.len()).map(|i| d_out[i] * jac[i * 3 + j]).sum();
            assert!((d_v[j] - vjp).abs() < 1e-14, "early = {early}, d_v[{j}]");
        }
    }
    let (mut da, mut db) = (0.0, 0.0);
    let mut value = [0.0; 2];
    let runs =
        squash_calls(|| value = squashed_pair_adjoint(0.6, -0.9, &[1.0, 2.0], &mut da, &mut db));
    // (the call takes its partials where it is made: `squash_adjoint`
    // alone gives its value and partial; computing the value apart ran
    // `squash` once more)
    assert_eq!((runs, value), (1, squashed_pair(0.6, -0.9)));
    let (_, jac) = squashed_pair_jacobian(0.6, -0.9);
    assert!((da - (jac[0] + 2.0 * jac[2])).abs() < 1e-14);
    assert!((db - (jac[1] + 2.0 * jac[3])).abs() < 1e-14);

    let mut d_v = [0.0; 3];
    let value = squashed_collect_adjoint(&v, &[1.0, -1.0, 0.5], &mut d_v);
    assert_eq!(value, squashed_collect(&v));
    let (_, jac) = squashed_collect_jacobian(&v);
    for j in 0..3 {
        let vjp = jac[j] - jac[3 + j] + 0.5 * jac[6 + j];
        assert!((d_v[j] - vjp).abs() < 1e-14);
    }
}

/// The length check of `d_out` still comes before the sweep reads it,
/// with the same message, where the value comes from the sweep.
#[test]
#[should_panic(expected = "`d_out` has length 1, but the function has 2 outputs")]
fn d_out_of_the_wrong_length_panics_before_it_is_read() {
    let (mut da, mut db) = (0.0, 0.0);
    squashed_pair_adjoint(0.6, -0.9, &[1.0], &mut da, &mut db);
}

// A vector returned as a `collect()`, or as a fill of a value that varies
// over a length the text does not give: the lowering builds it as zeros,
// then stores its elements. The Jacobian by columns (forward mode, taken
// when there are no more inputs than outputs) handed out the zeros, a zero
// Jacobian, until 2026-11-28; by rows it was right.
#[differentiable]
fn mapped(x: &[f64]) -> Vec<f64> {
    x.iter().map(|v| v.sin() * v).collect()
}

#[differentiable]
fn softmax(z: &[f64]) -> Vec<f64> {
    let m = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = z.iter().map(|v| (v - m).exp()).collect();
    let s: f64 = e.iter().sum();
    e.iter().map(|v| v / s).collect::<Vec<f64>>()
}

#[differentiable]
fn filled(x: &[f64]) -> Vec<f64> {
    if x.len() > 3 {
        return vec![x[0] * x[1]; x.len() + 1];
    }
    vec![x[0].sin(); x.len()]
}

/// A function's value and Jacobian.
type Jacobian = fn(&[f64]) -> (Vec<f64>, Vec<f64>);
/// A vector-valued function's adjoint: `d_outᵀ J` added into a buffer.
type Adjoint = fn(&[f64], &[f64], &mut [f64]) -> Vec<f64>;

/// The Jacobian agrees with finite differences, and each of its rows with
/// the vector-Jacobian product of a unit vector (reverse mode) to rounding.
fn jacobian_by_columns_and_rows(
    f: fn(&[f64]) -> Vec<f64>,
    jacobian: Jacobian,
    adjoint: Adjoint,
    x: &[f64],
) {
    let (value, jac) = jacobian(x);
    assert_eq!(value, f(x));
    check::jacobian(f, x, &jac).assert_ok(1e-6);
    let (m, n) = (value.len(), x.len());
    for i in 0..m {
        let mut unit = vec![0.0; m];
        unit[i] = 1.0;
        let mut row = vec![0.0; n];
        adjoint(x, &unit, &mut row);
        // (forward and reverse mode add the same terms in other orders)
        for (r, j) in row.iter().zip(&jac[i * n..(i + 1) * n]) {
            assert!((r - j).abs() <= 1e-14 * (1.0 + j.abs()), "row {i} at {x:?}");
        }
    }
}

#[test]
fn returned_collect_and_fills_by_columns() {
    for x in [&[0.3, -0.7, 1.1][..], &[0.5, 1.5], &[0.2, -0.4, 0.6, 0.8]] {
        jacobian_by_columns_and_rows(mapped, mapped_jacobian, mapped_adjoint, x);
        jacobian_by_columns_and_rows(softmax, softmax_jacobian, softmax_adjoint, x);
        jacobian_by_columns_and_rows(filled, filled_jacobian, filled_adjoint, x);
        let (_, jac) = mapped_jacobian(x);
        let n = x.len();
        for (i, v) in x.iter().enumerate() {
            assert_eq!(jac[i * n + i], v.sin() + v * v.cos());
        }
    }
}

// A helper's vector bound by reference, `let v = &twice(x);`, and a
// helper's or an expression's value given by reference to a closure
// (`sq(&g(x))`, `sq(&(a * b))`): 2026-11-28.
#[differentiable]
fn squared(x: f64) -> f64 {
    x * x
}

#[differentiable]
fn by_reference(x: &[f64]) -> f64 {
    let v = &twice(x);
    let sq = |t: &f64| t * t;
    v[0] * v[1] + sq(&squared(x[0])) + sq(&(x[0] * x[1]))
}

#[differentiable]
fn by_value(x: &[f64]) -> f64 {
    let v = twice(x);
    let p = x[0] * x[1];
    v[0] * v[1] + squared(x[0]) * squared(x[0]) + p * p
}

#[test]
fn vectors_and_values_by_reference() {
    let x = [0.5, 1.5];
    let (value, gradient) = by_reference_grad(&x);
    assert_eq!(value, by_reference(&x));
    assert_eq!((value, gradient.clone()), by_value_grad(&x));
    check::gradient(by_reference, &x, &gradient).assert_ok(1e-6);
}

/// Constant data a vector-valued function takes by value.
#[derive(Clone)]
struct Weights {
    k: Vec<f64>,
}

// Constant parameters taken by value (an owned `Vec<f64>`, a struct that
// is `Clone` but not `Copy`): `f_jacobian` and `f_adjoint` call the
// function and its adjoints several times, and moved them into the first
// call until 2026-11-29 (E0382); each call now gets a clone.
#[differentiable(wrt(x))]
fn scaled_by_owned(w: Vec<f64>, data: Weights, x: &[f64]) -> Vec<f64> {
    x.iter()
        .zip(&data.k)
        .map(|(a, b)| a * b * w[0] + a.sin())
        .collect()
}

#[test]
fn owned_constant_parameters_of_a_vector_function() {
    let (w, data) = (
        vec![1.5],
        Weights {
            k: vec![0.5, -2.0, 3.0],
        },
    );
    let x = [0.3, -1.2, 0.7];
    let (value, jacobian) = scaled_by_owned_jacobian(w.clone(), data.clone(), &x);
    assert_eq!(value, scaled_by_owned(w.clone(), data.clone(), &x));
    check::jacobian(
        |x| scaled_by_owned(w.clone(), data.clone(), x),
        &x,
        &jacobian,
    )
    .assert_ok(1e-6);
    let mut d_x = [0.0; 3];
    let value_adjoint = scaled_by_owned_adjoint(w, data, &x, &[1.0, 0.5, -1.0], &mut d_x);
    assert_eq!(value_adjoint, value);
    for (j, d) in d_x.iter().enumerate() {
        let expected = jacobian[j] + 0.5 * jacobian[3 + j] - jacobian[6 + j];
        assert!((d - expected).abs() < 1e-14, "{d} vs {expected}");
    }
}
