//! Generated functions as [argmin](https://argmin-rs.org) problems (the
//! optional `argmin` feature).
//!
//! argmin's solvers ask a problem for a cost, a gradient, a Hessian, or
//! residuals and their Jacobian, through its traits ([`CostFunction`],
//! [`Gradient`], [`Hessian`], [`Operator`], [`Jacobian`]), on a parameter
//! vector `Vec<f64>`. The adapters here implement them with the functions
//! `#[differentiable]` generates, given as closures over `&[f64]` (so data
//! and other constant arguments are captured):
//!
//! | adapter | from | argmin traits | solvers |
//! | --- | --- | --- | --- |
//! | [`Objective`] | `f`, `f_grad` | `CostFunction`, `Gradient` | L-BFGS, BFGS, gradient descent, nonlinear CG |
//! | [`Objective::with_hessian`] | + `f_hessian` | + `Hessian` (a dense [`Matrix`]) | Newton, Newton-CG, trust region |
//! | [`Objective::with_hvp`] | + `f_hvp` | + `Hessian` (a [`HessianAt`], matrix-free: each product is one `f_hvp`) | Newton-CG, trust region (Steihaug, Cauchy point) |
//! | [`LeastSquares`] | residuals `r`, `r_jacobian` | `Operator`, `Jacobian` (a [`Matrix`]); `CostFunction` (½‖r‖²), `Gradient` (Jᵀr) | Gauss-Newton; any gradient solver |
//!
//! The parameter vector is the active floats of the function flattened in
//! parameter order, which is the order of `f_grad`'s gradient and of
//! `f_hessian`'s and `f_jacobian`'s columns: a function of one slice,
//! `fn f(x: &[f64]) -> f64`, fits as it is.
//!
//! ```
//! # extern crate autograd_runtime as autograd;
//! use argmin::core::{CostFunction, Executor, Gradient};
//! use argmin::solver::linesearch::MoreThuenteLineSearch;
//! use argmin::solver::quasinewton::LBFGS;
//! use autograd::argmin::Objective;
//!
//! // f(x) = Σ (x_i − i)², with the gradient written out here; with
//! // `#[differentiable]` these are `f` and `f_grad`.
//! let f = |x: &[f64]| x.iter().enumerate().map(|(i, v)| (v - i as f64).powi(2)).sum::<f64>();
//! let f_grad = |x: &[f64]| {
//!     let g = x.iter().enumerate().map(|(i, v)| 2.0 * (v - i as f64)).collect();
//!     (f(x), g)
//! };
//! let problem = Objective::new(f, f_grad);
//! assert_eq!(problem.cost(&vec![0.0, 1.0]).unwrap(), 0.0);
//! assert_eq!(problem.gradient(&vec![1.0, 1.0]).unwrap(), vec![2.0, 0.0]);
//!
//! let solver = LBFGS::new(MoreThuenteLineSearch::new(), 5);
//! let result = Executor::new(problem, solver)
//!     .configure(|state| state.param(vec![5.0; 3]).max_iters(50))
//!     .run()
//!     .unwrap();
//! let best = result.state().best_param.clone().unwrap();
//! assert!(best.iter().enumerate().all(|(i, v)| (v - i as f64).abs() < 1e-6));
//! ```

use ::argmin::core::{CostFunction, Error, Gradient, Hessian, Jacobian, Operator};
use ::argmin_math::{ArgminDot, ArgminInv, ArgminTranspose};
use std::sync::Arc;

/// A scalar objective from `f` and `f_grad`: argmin's [`CostFunction`] and
/// [`Gradient`] on `Vec<f64>`. [`with_hessian`](Objective::with_hessian)
/// and [`with_hvp`](Objective::with_hvp) add second order.
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use argmin::core::{CostFunction, Gradient};
/// use autograd::argmin::Objective;
///
/// let problem = Objective::new(|x: &[f64]| x[0] * x[1], |x: &[f64]| (x[0] * x[1], vec![x[1], x[0]]));
/// assert_eq!(problem.cost(&vec![2.0, 3.0]).unwrap(), 6.0);
/// assert_eq!(problem.gradient(&vec![2.0, 3.0]).unwrap(), vec![3.0, 2.0]);
/// ```
#[derive(Clone)]
pub struct Objective<F, G> {
    cost: F,
    gradient: G,
}

impl<F, G> Objective<F, G>
where
    F: Fn(&[f64]) -> f64,
    G: Fn(&[f64]) -> (f64, Vec<f64>),
{
    /// The objective `cost` (`f`) with its gradient `gradient` (`f_grad`:
    /// the value and the gradient, whose value argmin does not need).
    pub fn new(cost: F, gradient: G) -> Self {
        Objective { cost, gradient }
    }

    /// Adds the dense Hessian from `f_hessian` (value, gradient, Hessian
    /// row-major `n × n`): argmin's [`Hessian`] as a [`Matrix`], for Newton's
    /// method, Newton-CG and trust-region methods.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use argmin::core::Hessian;
    /// use autograd::argmin::Objective;
    ///
    /// let f = |x: &[f64]| x[0] * x[0] * x[1];
    /// let grad = |x: &[f64]| (f(x), vec![2.0 * x[0] * x[1], x[0] * x[0]]);
    /// let hessian = |x: &[f64]| (f(x), grad(x).1, vec![2.0 * x[1], 2.0 * x[0], 2.0 * x[0], 0.0]);
    /// let problem = Objective::new(f, grad).with_hessian(hessian);
    /// let h = problem.hessian(&vec![1.0, 3.0]).unwrap();
    /// assert_eq!(h.row(0), &[6.0, 2.0]);
    /// ```
    pub fn with_hessian<H>(self, hessian: H) -> WithHessian<F, G, H>
    where
        H: Fn(&[f64]) -> (f64, Vec<f64>, Vec<f64>),
    {
        WithHessian {
            objective: self,
            hessian,
        }
    }

    /// Adds Hessian-vector products from `f_hvp` (point, direction → value,
    /// gradient, `H·v`): argmin's [`Hessian`] as a [`HessianAt`], which
    /// computes `H·v` with one `f_hvp` call wherever a solver multiplies
    /// the Hessian by a vector, never forming it. For Newton-CG and
    /// trust-region methods (Steihaug), on problems too large for a dense
    /// Hessian.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use argmin::core::Hessian;
    /// use argmin_math::ArgminDot;
    /// use autograd::argmin::Objective;
    ///
    /// let f = |x: &[f64]| x[0] * x[0] * x[1];
    /// let grad = move |x: &[f64]| (f(x), vec![2.0 * x[0] * x[1], x[0] * x[0]]);
    /// let hvp = move |x: &[f64], v: &[f64]| {
    ///     let hv = vec![2.0 * x[1] * v[0] + 2.0 * x[0] * v[1], 2.0 * x[0] * v[0]];
    ///     (f(x), grad(x).1, hv)
    /// };
    /// let problem = Objective::new(f, grad).with_hvp(hvp);
    /// let h = problem.hessian(&vec![1.0, 3.0]).unwrap();
    /// let hv: Vec<f64> = h.dot(&vec![1.0, 0.0]);
    /// assert_eq!(hv, vec![6.0, 2.0]);
    /// ```
    pub fn with_hvp<V>(self, hvp: V) -> WithHvp<F, G, V>
    where
        V: Fn(&[f64], &[f64]) -> (f64, Vec<f64>, Vec<f64>) + Send + Sync + 'static,
    {
        WithHvp {
            objective: self,
            hvp: Arc::new(hvp),
        }
    }
}

impl<F, G> CostFunction for Objective<F, G>
where
    F: Fn(&[f64]) -> f64,
{
    type Param = Vec<f64>;
    type Output = f64;

    fn cost(&self, param: &Vec<f64>) -> Result<f64, Error> {
        Ok((self.cost)(param))
    }
}

impl<F, G> Gradient for Objective<F, G>
where
    G: Fn(&[f64]) -> (f64, Vec<f64>),
{
    type Param = Vec<f64>;
    type Gradient = Vec<f64>;

    fn gradient(&self, param: &Vec<f64>) -> Result<Vec<f64>, Error> {
        Ok((self.gradient)(param).1)
    }
}

/// `CostFunction` and `Gradient` of an objective with second order: those
/// of the [`Objective`] it holds.
macro_rules! delegate_first_order {
    ($wrapper:ident<F, G, $extra:ident>) => {
        impl<F, G, $extra> CostFunction for $wrapper<F, G, $extra>
        where
            F: Fn(&[f64]) -> f64,
        {
            type Param = Vec<f64>;
            type Output = f64;

            fn cost(&self, param: &Vec<f64>) -> Result<f64, Error> {
                self.objective.cost(param)
            }
        }

        impl<F, G, $extra> Gradient for $wrapper<F, G, $extra>
        where
            G: Fn(&[f64]) -> (f64, Vec<f64>),
        {
            type Param = Vec<f64>;
            type Gradient = Vec<f64>;

            fn gradient(&self, param: &Vec<f64>) -> Result<Vec<f64>, Error> {
                self.objective.gradient(param)
            }
        }
    };
}

delegate_first_order!(WithHessian<F, G, H>);
delegate_first_order!(WithHvp<F, G, V>);

/// An [`Objective`] with a dense Hessian ([`Objective::with_hessian`]).
#[derive(Clone)]
pub struct WithHessian<F, G, H> {
    objective: Objective<F, G>,
    hessian: H,
}

impl<F, G, H> Hessian for WithHessian<F, G, H>
where
    H: Fn(&[f64]) -> (f64, Vec<f64>, Vec<f64>),
{
    type Param = Vec<f64>;
    type Hessian = Matrix;

    fn hessian(&self, param: &Vec<f64>) -> Result<Matrix, Error> {
        let n = param.len();
        Matrix::new(n, n, (self.hessian)(param).2)
    }
}

/// An [`Objective`] with Hessian-vector products ([`Objective::with_hvp`]).
#[derive(Clone)]
pub struct WithHvp<F, G, V> {
    objective: Objective<F, G>,
    hvp: Arc<V>,
}

impl<F, G, V> Hessian for WithHvp<F, G, V>
where
    V: Fn(&[f64], &[f64]) -> (f64, Vec<f64>, Vec<f64>) + Send + Sync + 'static,
{
    type Param = Vec<f64>;
    type Hessian = HessianAt;

    fn hessian(&self, param: &Vec<f64>) -> Result<HessianAt, Error> {
        let hvp = Arc::clone(&self.hvp);
        Ok(HessianAt {
            point: Arc::new(param.clone()),
            product: Arc::new(move |x: &[f64], v: &[f64]| hvp(x, v).2),
        })
    }
}

/// The product `H·v` of a Hessian with a vector.
type Product = dyn Fn(&[f64], &[f64]) -> Vec<f64> + Send + Sync;

/// The Hessian at a point, as an operator: `h.dot(&v)` is `H·v`, computed
/// by `f_hvp` (forward over reverse, a few times the cost of a gradient),
/// and nothing else is ever computed; cloning it is cheap. What
/// [`Objective::with_hvp`] gives argmin as its `Hessian`.
#[derive(Clone)]
pub struct HessianAt {
    point: Arc<Vec<f64>>,
    product: Arc<Product>,
}

impl HessianAt {
    /// The point the Hessian is taken at.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use argmin::core::Hessian;
    /// use autograd::argmin::Objective;
    ///
    /// let f = |x: &[f64]| x[0] * x[0];
    /// let grad = |x: &[f64]| (f(x), vec![2.0 * x[0]]);
    /// let problem = Objective::new(f, grad).with_hvp(|x: &[f64], v: &[f64]| (x[0] * x[0], vec![2.0 * x[0]], vec![2.0 * v[0]]));
    /// assert_eq!(problem.hessian(&vec![3.0]).unwrap().point(), &[3.0]);
    /// ```
    pub fn point(&self) -> &[f64] {
        &self.point
    }
}

impl ArgminDot<Vec<f64>, Vec<f64>> for HessianAt {
    fn dot(&self, v: &Vec<f64>) -> Vec<f64> {
        (self.product)(&self.point, v)
    }
}

/// A dense matrix, row-major: the Hessians and Jacobians the adapters give
/// argmin, with the linear algebra its Newton and Gauss-Newton steps need
/// (product, transpose, inverse by Gauss-Jordan elimination with partial
/// pivoting, which fails on a singular matrix).
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use argmin_math::{ArgminDot, ArgminInv};
/// use autograd::argmin::Matrix;
///
/// let a = Matrix::new(2, 2, vec![2.0, 1.0, 1.0, 3.0]).unwrap();
/// let inv: Matrix = a.inv().unwrap();
/// let x: Vec<f64> = inv.dot(&vec![3.0, 4.0]);
/// assert!((x[0] - 1.0).abs() < 1e-15 && (x[1] - 1.0).abs() < 1e-15);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Matrix {
    rows: usize,
    cols: usize,
    data: Vec<f64>,
}

impl Matrix {
    /// A `rows × cols` matrix from its entries, row-major (as `f_hessian`
    /// and `f_jacobian` give them); an error if their number is not
    /// `rows · cols`.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::argmin::Matrix;
    ///
    /// assert!(Matrix::new(2, 3, vec![0.0; 6]).is_ok());
    /// assert!(Matrix::new(2, 3, vec![0.0; 5]).is_err());
    /// ```
    pub fn new(rows: usize, cols: usize, data: Vec<f64>) -> Result<Matrix, Error> {
        if data.len() != rows * cols {
            return Err(Error::msg(format!(
                "a {rows} × {cols} matrix needs {} entries, got {}",
                rows * cols,
                data.len()
            )));
        }
        Ok(Matrix { rows, cols, data })
    }

    /// The number of rows.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// let m = autograd::argmin::Matrix::new(2, 3, vec![0.0; 6]).unwrap();
    /// assert_eq!((m.rows(), m.cols()), (2, 3));
    /// ```
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The number of columns.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// let m = autograd::argmin::Matrix::new(2, 3, vec![0.0; 6]).unwrap();
    /// assert_eq!(m.cols(), 3);
    /// ```
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Row `i`.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// let m = autograd::argmin::Matrix::new(2, 2, vec![1.0, 2.0, 3.0, 4.0]).unwrap();
    /// assert_eq!(m.row(1), &[3.0, 4.0]);
    /// ```
    pub fn row(&self, i: usize) -> &[f64] {
        &self.data[i * self.cols..(i + 1) * self.cols]
    }

    /// The entries, row-major.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// let m = autograd::argmin::Matrix::new(1, 2, vec![1.0, 2.0]).unwrap();
    /// assert_eq!(m.as_slice(), &[1.0, 2.0]);
    /// ```
    pub fn as_slice(&self) -> &[f64] {
        &self.data
    }
}

impl ArgminTranspose<Matrix> for Matrix {
    fn t(self) -> Matrix {
        let mut data = vec![0.0; self.data.len()];
        for i in 0..self.rows {
            for j in 0..self.cols {
                data[j * self.rows + i] = self.data[i * self.cols + j];
            }
        }
        Matrix {
            rows: self.cols,
            cols: self.rows,
            data,
        }
    }
}

/// The matrix product (panics if the shapes do not match, as argmin's own
/// `Vec<Vec<f64>>` product does).
impl ArgminDot<Matrix, Matrix> for Matrix {
    fn dot(&self, other: &Matrix) -> Matrix {
        assert_eq!(
            self.cols, other.rows,
            "autograd::argmin::Matrix: a {}×{} matrix times a {}×{} one",
            self.rows, self.cols, other.rows, other.cols
        );
        let mut data = vec![0.0; self.rows * other.cols];
        for i in 0..self.rows {
            for k in 0..self.cols {
                let a = self.data[i * self.cols + k];
                for j in 0..other.cols {
                    data[i * other.cols + j] += a * other.data[k * other.cols + j];
                }
            }
        }
        Matrix {
            rows: self.rows,
            cols: other.cols,
            data,
        }
    }
}

/// The matrix-vector product (panics if the lengths do not match).
impl ArgminDot<Vec<f64>, Vec<f64>> for Matrix {
    fn dot(&self, v: &Vec<f64>) -> Vec<f64> {
        assert_eq!(
            self.cols,
            v.len(),
            "autograd::argmin::Matrix: a {}×{} matrix times a vector of {}",
            self.rows,
            self.cols,
            v.len()
        );
        (0..self.rows)
            .map(|i| self.row(i).iter().zip(v).map(|(a, b)| a * b).sum())
            .collect()
    }
}

impl ArgminInv<Matrix> for Matrix {
    fn inv(&self) -> Result<Matrix, Error> {
        let n = self.rows;
        if self.cols != n {
            return Err(Error::msg(format!(
                "only a square matrix has an inverse, not a {n} × {} one",
                self.cols
            )));
        }
        let mut a = self.data.clone();
        let mut inv = vec![0.0; n * n];
        for i in 0..n {
            inv[i * n + i] = 1.0;
        }
        let scale = a.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
        for col in 0..n {
            let pivot = (col..n)
                .max_by(|&r, &s| a[r * n + col].abs().total_cmp(&a[s * n + col].abs()))
                .unwrap_or(col);
            let p = a[pivot * n + col];
            // (a NaN pivot is singular too)
            if p.is_nan() || p.abs() <= scale * n as f64 * f64::EPSILON {
                return Err(Error::msg(
                    "the matrix is singular (to working precision): no inverse",
                ));
            }
            if pivot != col {
                for j in 0..n {
                    a.swap(pivot * n + j, col * n + j);
                    inv.swap(pivot * n + j, col * n + j);
                }
            }
            for j in 0..n {
                a[col * n + j] /= p;
                inv[col * n + j] /= p;
            }
            for r in 0..n {
                if r == col {
                    continue;
                }
                let factor = a[r * n + col];
                if factor != 0.0 {
                    for j in 0..n {
                        a[r * n + j] -= factor * a[col * n + j];
                        inv[r * n + j] -= factor * inv[col * n + j];
                    }
                }
            }
        }
        Ok(Matrix {
            rows: n,
            cols: n,
            data: inv,
        })
    }
}

/// A least-squares problem from residuals `r(x)` (a function returning
/// `[f64; M]` or `Vec<f64>`) and their Jacobian (`r_jacobian`: the
/// residuals and `∂r/∂x` row-major `m × n`): argmin's [`Operator`] (the
/// residuals) and [`Jacobian`] (a [`Matrix`]) for Gauss-Newton, and
/// [`CostFunction`] `½‖r‖²` with [`Gradient`] `Jᵀr` for any gradient solver.
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use argmin::core::{CostFunction, Gradient, Jacobian, Operator};
/// use autograd::argmin::LeastSquares;
///
/// // r(x) = (x0 − 1, 2 (x1 + 1))
/// let r = |x: &[f64]| [x[0] - 1.0, 2.0 * (x[1] + 1.0)];
/// let r_jacobian = |x: &[f64]| (r(x), vec![1.0, 0.0, 0.0, 2.0]);
/// let problem = LeastSquares::new(r, r_jacobian);
/// assert_eq!(problem.apply(&vec![3.0, 0.0]).unwrap(), vec![2.0, 2.0]);
/// assert_eq!(problem.jacobian(&vec![3.0, 0.0]).unwrap().row(1), &[0.0, 2.0]);
/// assert_eq!(problem.cost(&vec![3.0, 0.0]).unwrap(), 4.0);
/// assert_eq!(problem.gradient(&vec![3.0, 0.0]).unwrap(), vec![2.0, 4.0]);
/// ```
#[derive(Clone)]
pub struct LeastSquares<R, J> {
    residuals: R,
    jacobian: J,
}

impl<R, J, V, W> LeastSquares<R, J>
where
    R: Fn(&[f64]) -> V,
    J: Fn(&[f64]) -> (W, Vec<f64>),
    V: AsRef<[f64]>,
    W: AsRef<[f64]>,
{
    /// The problem of the residuals `residuals` (`r`) with their Jacobian
    /// `jacobian` (`r_jacobian`).
    pub fn new(residuals: R, jacobian: J) -> Self {
        LeastSquares {
            residuals,
            jacobian,
        }
    }
}

impl<R, J, V> Operator for LeastSquares<R, J>
where
    R: Fn(&[f64]) -> V,
    V: AsRef<[f64]>,
{
    type Param = Vec<f64>;
    type Output = Vec<f64>;

    fn apply(&self, param: &Vec<f64>) -> Result<Vec<f64>, Error> {
        Ok((self.residuals)(param).as_ref().to_vec())
    }
}

impl<R, J, W> Jacobian for LeastSquares<R, J>
where
    J: Fn(&[f64]) -> (W, Vec<f64>),
    W: AsRef<[f64]>,
{
    type Param = Vec<f64>;
    type Jacobian = Matrix;

    fn jacobian(&self, param: &Vec<f64>) -> Result<Matrix, Error> {
        let (r, jacobian) = (self.jacobian)(param);
        Matrix::new(r.as_ref().len(), param.len(), jacobian)
    }
}

impl<R, J, V> CostFunction for LeastSquares<R, J>
where
    R: Fn(&[f64]) -> V,
    V: AsRef<[f64]>,
{
    type Param = Vec<f64>;
    type Output = f64;

    fn cost(&self, param: &Vec<f64>) -> Result<f64, Error> {
        let r = (self.residuals)(param);
        Ok(0.5 * r.as_ref().iter().map(|v| v * v).sum::<f64>())
    }
}

impl<R, J, W> Gradient for LeastSquares<R, J>
where
    J: Fn(&[f64]) -> (W, Vec<f64>),
    W: AsRef<[f64]>,
{
    type Param = Vec<f64>;
    type Gradient = Vec<f64>;

    fn gradient(&self, param: &Vec<f64>) -> Result<Vec<f64>, Error> {
        let (r, jacobian) = (self.jacobian)(param);
        let (r, n) = (r.as_ref(), param.len());
        let mut g = vec![0.0; n];
        for (i, ri) in r.iter().enumerate() {
            for (gj, jij) in g.iter_mut().zip(&jacobian[i * n..(i + 1) * n]) {
                *gj += ri * jij;
            }
        }
        Ok(g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_times_matrix_is_the_identity() {
        let data = vec![
            4.0, -2.0, 1.0, 0.5, //
            -2.0, 5.0, 0.0, 1.0, //
            1.0, 0.0, 3.0, -1.0, //
            0.0, 2.0, -1.0, 6.0,
        ];
        let a = Matrix::new(4, 4, data).unwrap();
        let inv: Matrix = a.inv().unwrap();
        let product: Matrix = a.dot(&inv);
        for i in 0..4 {
            for j in 0..4 {
                let want = if i == j { 1.0 } else { 0.0 };
                assert!((product.row(i)[j] - want).abs() < 1e-14, "{product:?}");
            }
        }
    }

    #[test]
    fn a_singular_or_non_square_matrix_has_no_inverse() {
        let singular = Matrix::new(2, 2, vec![1.0, 2.0, 2.0, 4.0]).unwrap();
        assert!(singular.inv().is_err());
        let nan = Matrix::new(1, 1, vec![f64::NAN]).unwrap();
        assert!(nan.inv().is_err());
        let wide = Matrix::new(1, 2, vec![1.0, 2.0]).unwrap();
        assert!(wide.inv().is_err());
    }

    #[test]
    fn transpose_and_products() {
        let a = Matrix::new(2, 3, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
        let t = a.clone().t();
        assert_eq!((t.rows(), t.cols()), (3, 2));
        assert_eq!(t.as_slice(), &[1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
        let ata: Matrix = t.dot(&a);
        assert_eq!(ata.row(0), &[17.0, 22.0, 27.0]);
        let v: Vec<f64> = a.dot(&vec![1.0, 0.0, -1.0]);
        assert_eq!(v, vec![-2.0, -2.0]);
    }
}
