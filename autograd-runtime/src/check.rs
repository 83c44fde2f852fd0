//! Finite-difference checking of gradients (and of Hessians and Jacobians:
//! [`hessian`], [`hessian_of`], [`jacobian`]): compare a gradient (from
//! `#[differentiable]`, the tape, or your own hand-written adjoint) with
//! central differences of the function, and get a [`Report`] to assert on
//! or print.
//!
//! ```
//! # extern crate autograd_runtime as autograd;
//! use autograd::check;
//!
//! let f = |x: &[f64]| x[0] * x[1] + x[0].sin();
//! let x = [2.0, 3.0];
//! let right = [3.0 + 2.0_f64.cos(), 2.0];
//! let report = check::gradient(f, &x, &right);
//! report.assert_ok(1e-6);
//! println!("{report}");
//!
//! let wrong = [3.0, 2.0]; // forgot the cos
//! let report = check::gradient(f, &x, &wrong);
//! assert!(!report.is_ok(1e-6));
//! assert_eq!(report.worst_index, Some(0));
//! ```
//!
//! With a generated `_grad` function, [`gradient_of`] does both halves:
//!
//! ```
//! # extern crate autograd_runtime as autograd;
//! use autograd::{check, loss};
//!
//! let target = [1.0, -2.0, 0.5];
//! let report = check::gradient_of(|p| loss::mse_grad(p, &target), &[0.3, 0.1, 2.0]);
//! report.assert_ok(1e-6);
//! ```
//!
//! # Method
//!
//! Coordinate `i` is perturbed by `h = 1e-6 · max(1, |xᵢ|)` in both
//! directions and the derivative estimated as
//! `(f(x + h·eᵢ) − f(x − h·eᵢ)) / (x₊ − x₋)`, where `x₊ − x₋` is the
//! actually representable distance between the two points. The truncation
//! error is `O(h²)` and the rounding error about `1e-16 · |f| / h`, so for
//! smooth, well-scaled functions the estimate agrees with the true
//! derivative to roughly `1e-8`–`1e-10` relative; a tolerance of `1e-6` is a
//! good default. A kink (ReLU, `abs`, hinge) within `h` of the point makes
//! the estimate meaningless for that coordinate: check at points away from
//! kinks.
//!
//! The function is evaluated `2n` times for `n` coordinates.

use std::fmt;

/// The result of comparing an analytic gradient with finite differences.
///
/// The **error** of coordinate `i` is `|analyticᵢ − numericᵢ|`, its
/// **relative error** that divided by `max(1, |analyticᵢ|, |numericᵢ|)`
/// (relative for large derivatives, absolute for derivatives below 1, so
/// tiny derivatives do not produce huge ratios). A `NaN` in either (or an
/// infinity) makes that coordinate's relative error `NaN`, which counts as
/// the worst possible and fails every tolerance.
///
/// Printing it (`{}`) gives a one-line verdict with the worst coordinate,
/// followed by a table of up to 10 coordinates (the worst ones):
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use autograd::check;
///
/// let report = check::gradient(|x| x[0] * x[0], &[3.0], &[5.0]);
/// let text = report.to_string();
/// assert!(text.starts_with("gradient check of 1 coordinate: max abs error 1.0"));
/// assert!(text.contains("worst at index 0"));
/// assert_eq!(report.worst_index, Some(0));
/// assert!((report.max_abs_error - 1.0).abs() < 1e-6);
/// assert!((report.max_rel_error - 1.0 / 6.0).abs() < 1e-6);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// The largest `|analyticᵢ − numericᵢ|` (`NaN` if any is `NaN`; `0` if
    /// there are no coordinates).
    pub max_abs_error: f64,
    /// The largest relative error (see [`Report`]); what
    /// [`is_ok`](Report::is_ok) compares with the tolerance.
    pub max_rel_error: f64,
    /// The coordinate with the largest relative error (the first one if
    /// several tie, the first `NaN` if any); `None` if there are no
    /// coordinates.
    pub worst_index: Option<usize>,
    /// The gradient that was checked.
    pub analytic: Vec<f64>,
    /// The central-difference estimate, one entry per coordinate.
    pub numeric: Vec<f64>,
}

impl Report {
    /// Builds a report from an analytic gradient and a numeric estimate of
    /// the same length (what [`gradient`] does after estimating).
    ///
    /// # Panics
    ///
    /// If the lengths differ.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::check::Report;
    ///
    /// let report = Report::new(vec![1.0, 200.0], vec![1.0, 202.0]);
    /// assert_eq!(report.max_abs_error, 2.0);
    /// assert_eq!(report.max_rel_error, 2.0 / 202.0);
    /// assert_eq!(report.worst_index, Some(1));
    /// ```
    #[track_caller]
    pub fn new(analytic: Vec<f64>, numeric: Vec<f64>) -> Self {
        if analytic.len() != numeric.len() {
            panic!(
                "check::Report::new: analytic has length {} but numeric has length {}",
                analytic.len(),
                numeric.len()
            );
        }
        let mut max_abs_error: f64 = 0.0;
        let mut max_rel_error: f64 = 0.0;
        let mut worst_index = None;
        for (i, (&a, &n)) in analytic.iter().zip(&numeric).enumerate() {
            let abs = (a - n).abs();
            // `NaN` (a `NaN` or infinite gradient) is the worst possible error.
            let rel = abs / 1f64.max(a.abs()).max(n.abs());
            if !max_abs_error.is_nan() && (abs.is_nan() || abs > max_abs_error) {
                max_abs_error = abs;
            }
            let worse = worst_index.is_none()
                || (!max_rel_error.is_nan() && (rel.is_nan() || rel > max_rel_error));
            if worse {
                max_rel_error = rel;
                worst_index = Some(i);
            }
        }
        Report {
            max_abs_error,
            max_rel_error,
            worst_index,
            analytic,
            numeric,
        }
    }

    /// Whether every coordinate's relative error is at most `tolerance`
    /// (false if any is `NaN`; true if there are no coordinates).
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::check;
    ///
    /// let report = check::gradient(|x| x[0].exp(), &[1.0], &[std::f64::consts::E]);
    /// assert!(report.is_ok(1e-6));
    /// assert!(!check::gradient(|x| x[0].exp(), &[1.0], &[f64::NAN]).is_ok(1e-6));
    /// ```
    pub fn is_ok(&self, tolerance: f64) -> bool {
        self.max_rel_error <= tolerance
    }

    /// Panics with the printed report unless [`is_ok`](Report::is_ok)`(tolerance)`.
    ///
    /// ```should_panic
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::check;
    ///
    /// // d/dx x² at 3 is 6, not 5: panics, printing the report.
    /// check::gradient(|x| x[0] * x[0], &[3.0], &[5.0]).assert_ok(1e-6);
    /// ```
    #[track_caller]
    pub fn assert_ok(&self, tolerance: f64) {
        if !self.is_ok(tolerance) {
            panic!("gradient check failed (tolerance {tolerance:e}): {self}");
        }
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.analytic.len();
        write!(
            f,
            "gradient check of {n} coordinate{}: max abs error {:.3e}, max rel error {:.3e}",
            if n == 1 { "" } else { "s" },
            self.max_abs_error,
            self.max_rel_error
        )?;
        let Some(worst) = self.worst_index else {
            return Ok(());
        };
        write!(
            f,
            ", worst at index {worst} (analytic {:e}, numeric {:e})",
            self.analytic[worst], self.numeric[worst]
        )?;
        // The (up to) 10 worst coordinates, worst first.
        let rel = |i: usize| {
            let (a, n) = (self.analytic[i], self.numeric[i]);
            let r = (a - n).abs() / 1f64.max(a.abs()).max(n.abs());
            if r.is_nan() {
                f64::INFINITY
            } else {
                r
            }
        };
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&i, &j| rel(j).total_cmp(&rel(i)).then(i.cmp(&j)));
        writeln!(f)?;
        write!(
            f,
            "{:>8}  {:>24}  {:>24}  {:>10}",
            "index", "analytic", "numeric", "rel error"
        )?;
        for &i in order.iter().take(10) {
            let (a, num) = (self.analytic[i], self.numeric[i]);
            let r = (a - num).abs() / 1f64.max(a.abs()).max(num.abs());
            write!(f, "\n{i:>8}  {a:>24.16e}  {num:>24.16e}  {r:>10.3e}")?;
        }
        if n > 10 {
            write!(f, "\n     ... ({} more)", n - 10)?;
        }
        Ok(())
    }
}

/// Central-difference estimate of the gradient of `f` at `x`, with the step
/// `1e-6 · max(1, |xᵢ|)` per coordinate (see the [module](self) docs).
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use autograd::check;
///
/// let g = check::numeric_gradient(|x| x[0] * x[0] + 3.0 * x[1], &[2.0, 5.0]);
/// assert!((g[0] - 4.0).abs() < 1e-8 && (g[1] - 3.0).abs() < 1e-8);
/// ```
pub fn numeric_gradient<F: Fn(&[f64]) -> f64>(f: F, x: &[f64]) -> Vec<f64> {
    let mut point = x.to_vec();
    let mut estimate = Vec::with_capacity(x.len());
    for i in 0..x.len() {
        let xi = x[i];
        let h = 1e-6 * xi.abs().max(1.0);
        let (plus, minus) = (xi + h, xi - h);
        point[i] = plus;
        let f_plus = f(&point);
        point[i] = minus;
        let f_minus = f(&point);
        point[i] = xi;
        estimate.push((f_plus - f_minus) / (plus - minus));
    }
    estimate
}

/// Checks `grad`, a claimed gradient of `f` at `x`, against central
/// differences of `f`.
///
/// # Panics
///
/// If `x` and `grad` have different lengths.
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use autograd::check;
///
/// // f(x) = Σ xᵢ³, ∇f = 3xᵢ²
/// let f = |x: &[f64]| x.iter().map(|v| v * v * v).sum::<f64>();
/// let x = [1.0, -2.0, 0.5];
/// let report = check::gradient(f, &x, &[3.0, 12.0, 0.75]);
/// assert!(report.is_ok(1e-6), "{report}");
/// ```
#[track_caller]
pub fn gradient<F: Fn(&[f64]) -> f64>(f: F, x: &[f64], grad: &[f64]) -> Report {
    if x.len() != grad.len() {
        panic!(
            "check::gradient: x has length {} but grad has length {}; they must be equal",
            x.len(),
            grad.len()
        );
    }
    let numeric = numeric_gradient(f, x);
    Report::new(grad.to_vec(), numeric)
}

/// Checks a function that returns its value and gradient together — a
/// generated `_grad` function, or a closure around one — at `x`: the
/// gradient it returns at `x` against central differences of the value it
/// returns near `x`.
///
/// # Panics
///
/// If the returned gradient's length is not `x.len()`.
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use autograd::{check, loss};
///
/// let report = check::gradient_of(|z| loss::softmax_cross_entropy_grad(z, 2), &[0.5, -1.0, 2.0]);
/// assert!(report.is_ok(1e-6), "{report}");
/// ```
#[track_caller]
pub fn gradient_of<F: Fn(&[f64]) -> (f64, Vec<f64>)>(f: F, x: &[f64]) -> Report {
    let (_, grad) = f(x);
    if x.len() != grad.len() {
        panic!(
            "check::gradient_of: x has length {} but the returned gradient has length {}; \
             they must be equal",
            x.len(),
            grad.len()
        );
    }
    let numeric = numeric_gradient(|p| f(p).0, x);
    Report::new(grad, numeric)
}

/// Central-difference estimate of the Hessian at `x` from a gradient
/// `grad` (a generated `_grad` function's gradient, or any other): the
/// `n × n` matrix, row-major, whose entry `(i, j)` is
/// `(gradᵢ(x + h·eⱼ) − gradᵢ(x − h·eⱼ)) / (x₊ − x₋)`, with the step of
/// [`numeric_gradient`]. Not symmetrised: a gradient whose Jacobian is not
/// symmetric shows it.
///
/// # Panics
///
/// If `grad` returns a gradient whose length is not `x.len()`.
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use autograd::check;
///
/// // f = x₀² x₁: ∇f = (2 x₀ x₁, x₀²), H = [[2 x₁, 2 x₀], [2 x₀, 0]]
/// let grad = |x: &[f64]| vec![2.0 * x[0] * x[1], x[0] * x[0]];
/// let h = check::numeric_hessian(grad, &[1.5, 2.0]);
/// for (e, want) in h.iter().zip([4.0, 3.0, 3.0, 0.0]) {
///     assert!((e - want).abs() < 1e-8);
/// }
/// ```
#[track_caller]
pub fn numeric_hessian<G: Fn(&[f64]) -> Vec<f64>>(grad: G, x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let mut point = x.to_vec();
    let mut estimate = vec![0.0; n * n];
    for j in 0..n {
        let xj = x[j];
        let h = 1e-6 * xj.abs().max(1.0);
        let (plus, minus) = (xj + h, xj - h);
        point[j] = plus;
        let g_plus = grad(&point);
        point[j] = minus;
        let g_minus = grad(&point);
        point[j] = xj;
        if g_plus.len() != n || g_minus.len() != n {
            panic!(
                "check::numeric_hessian: x has length {n} but the gradient has length {}; \
                 they must be equal",
                g_plus.len()
            );
        }
        for i in 0..n {
            estimate[i * n + j] = (g_plus[i] - g_minus[i]) / (plus - minus);
        }
    }
    estimate
}

/// Checks `hessian`, a claimed dense Hessian at `x` (`n × n`, row-major, as
/// `f_hessian` returns it), against central differences of the gradient
/// `grad` ([`numeric_hessian`]). The [`Report`]'s coordinates are the
/// entries: index `k` is row `k / n`, column `k % n`.
///
/// # Panics
///
/// If `hessian.len()` is not `x.len()²`.
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use autograd::check;
///
/// // f = Σ xᵢ³: ∇f = 3xᵢ², H = diag(6xᵢ)
/// let grad = |x: &[f64]| x.iter().map(|v| 3.0 * v * v).collect::<Vec<f64>>();
/// let x = [1.0, -2.0];
/// let report = check::hessian(grad, &x, &[6.0, 0.0, 0.0, -12.0]);
/// report.assert_ok(1e-6);
///
/// let wrong = check::hessian(grad, &x, &[6.0, 0.0, 0.0, 12.0]);
/// assert_eq!(wrong.worst_index, Some(3)); // row 1, column 1
/// ```
#[track_caller]
pub fn hessian<G: Fn(&[f64]) -> Vec<f64>>(grad: G, x: &[f64], hessian: &[f64]) -> Report {
    let n = x.len();
    if hessian.len() != n * n {
        panic!(
            "check::hessian: x has length {n} but the Hessian has length {} (not {n}² = {})",
            hessian.len(),
            n * n
        );
    }
    Report::new(hessian.to_vec(), numeric_hessian(grad, x))
}

/// Checks a function that returns its value, gradient and Hessian together
/// — a generated `_hessian` function, or a closure around one — at `x`:
/// the Hessian it returns at `x` against central differences of the
/// gradient it returns near `x`. (Check the gradient too, with
/// [`gradient_of`] on `|x| { let (v, g, _) = f(x); (v, g) }`.)
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use autograd::check;
///
/// // f = x₀² x₁ with its value, gradient and Hessian
/// let f = |x: &[f64]| {
///     let value = x[0] * x[0] * x[1];
///     let gradient = vec![2.0 * x[0] * x[1], x[0] * x[0]];
///     let hessian = vec![2.0 * x[1], 2.0 * x[0], 2.0 * x[0], 0.0];
///     (value, gradient, hessian)
/// };
/// check::hessian_of(f, &[1.5, 2.0]).assert_ok(1e-6);
/// ```
#[track_caller]
pub fn hessian_of<F: Fn(&[f64]) -> (f64, Vec<f64>, Vec<f64>)>(f: F, x: &[f64]) -> Report {
    let (_, _, claimed) = f(x);
    hessian(|p| f(p).1, x, &claimed)
}

/// Central-difference estimate of the Jacobian of a vector-valued `f` at
/// `x`: `m × n`, row-major (row `i` is output `i`), with the step of
/// [`numeric_gradient`].
///
/// # Panics
///
/// If `f` returns outputs of different lengths at two points.
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use autograd::check;
///
/// let f = |x: &[f64]| vec![x[0] * x[1], x[0] + 2.0 * x[1], x[1].sin()];
/// let j = check::numeric_jacobian(f, &[2.0, 0.5]);
/// let want = [0.5, 2.0, 1.0, 2.0, 0.0, 0.5_f64.cos()];
/// for (e, w) in j.iter().zip(want) {
///     assert!((e - w).abs() < 1e-8);
/// }
/// ```
#[track_caller]
pub fn numeric_jacobian<F: Fn(&[f64]) -> Vec<f64>>(f: F, x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let m = f(x).len();
    let mut point = x.to_vec();
    let mut estimate = vec![0.0; m * n];
    for j in 0..n {
        let xj = x[j];
        let h = 1e-6 * xj.abs().max(1.0);
        let (plus, minus) = (xj + h, xj - h);
        point[j] = plus;
        let f_plus = f(&point);
        point[j] = minus;
        let f_minus = f(&point);
        point[j] = xj;
        if f_plus.len() != m || f_minus.len() != m {
            panic!("check::numeric_jacobian: f returned outputs of different lengths");
        }
        for i in 0..m {
            estimate[i * n + j] = (f_plus[i] - f_minus[i]) / (plus - minus);
        }
    }
    estimate
}

/// Checks `jacobian`, a claimed Jacobian of the vector-valued `f` at `x`
/// (`m × n`, row-major, as `f_jacobian` returns it), against central
/// differences of `f` ([`numeric_jacobian`]). The [`Report`]'s index `k`
/// is row `k / n`, column `k % n`.
///
/// # Panics
///
/// If `jacobian.len()` is not `m · n`.
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use autograd::check;
///
/// let f = |x: &[f64]| vec![x[0] * x[1], x[0] - x[1]];
/// check::jacobian(f, &[3.0, 4.0], &[4.0, 3.0, 1.0, -1.0]).assert_ok(1e-6);
/// ```
#[track_caller]
pub fn jacobian<F: Fn(&[f64]) -> Vec<f64>>(f: F, x: &[f64], jacobian: &[f64]) -> Report {
    let numeric = numeric_jacobian(&f, x);
    if jacobian.len() != numeric.len() {
        panic!(
            "check::jacobian: the Jacobian has length {} but f has {} outputs and x {} \
             coordinates ({} entries)",
            jacobian.len(),
            numeric.len() / x.len().max(1),
            x.len(),
            numeric.len()
        );
    }
    Report::new(jacobian.to_vec(), numeric)
}
