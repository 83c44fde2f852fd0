//! Every derivative rule of `autograd::rules`, exercised *through*
//! `#[differentiable]`: each supported `f64` method (in both spellings,
//! `x.m(..)` and `f64::m(x, ..)`) and each operator gets its own
//! differentiable function with every float argument active, and
//!
//! * the gradient of `f_grad` is checked against central finite differences of
//!   the plain function at several points (negative values where the domain
//!   allows, and points near — not at — each domain edge);
//! * the values returned by `f_grad` and `f_adjoint` are bit-for-bit the plain
//!   function's;
//! * `f_adjoint(.., d_out = 2.5, ..)` adds exactly `2.5 ×` the gradient onto
//!   pre-filled `d_` buffers, and `f_adjoint(.., d_out = 1, ..)` into zeroed
//!   buffers reproduces the gradient exactly.
//!
//! Further tests pin the documented conventions at kinks (`abs`, relu via
//! `max(0.0)`, ties of `max`/`min`, `clamp` at and beyond its bounds, step
//! functions, `powi(x, 0)`, `atan2`/`hypot` at the origin) and gradients with
//! some arguments given as literals or constant paths.

mod common;

use approx::relative_eq;
use autograd::differentiable;
use common::central_difference;

// ===========================================================================
// Harness
// ===========================================================================

/// One `#[differentiable]` function (plain, `_grad`, `_adjoint`), erased to
/// slices so that every arity goes through the same checks.
pub struct Case {
    name: String,
    f: ErasedFn,
    grad: ErasedGrad,
    adjoint: ErasedAdjoint,
}

type ErasedFn = Box<dyn Fn(&[f64]) -> f64>;
type ErasedGrad = Box<dyn Fn(&[f64]) -> (f64, Vec<f64>)>;
type ErasedAdjoint = Box<dyn Fn(&[f64], f64, &mut [f64]) -> f64>;

type Adjoint1 = fn(f64, f64, &mut f64) -> f64;
type Grad2 = fn(f64, f64) -> (f64, (f64, f64));
type Adjoint2 = fn(f64, f64, f64, &mut f64, &mut f64) -> f64;
type Grad3 = fn(f64, f64, f64) -> (f64, (f64, f64, f64));
type Adjoint3 = fn(f64, f64, f64, f64, &mut f64, &mut f64, &mut f64) -> f64;

impl Case {
    pub fn unary(
        name: &str,
        f: fn(f64) -> f64,
        grad: fn(f64) -> (f64, f64),
        adjoint: Adjoint1,
    ) -> Case {
        Case {
            name: name.to_owned(),
            f: Box::new(move |x| f(x[0])),
            grad: Box::new(move |x| {
                let (v, g) = grad(x[0]);
                (v, vec![g])
            }),
            adjoint: Box::new(move |x, d_out, d| adjoint(x[0], d_out, &mut d[0])),
        }
    }

    pub fn binary(name: &str, f: fn(f64, f64) -> f64, grad: Grad2, adjoint: Adjoint2) -> Case {
        Case {
            name: name.to_owned(),
            f: Box::new(move |x| f(x[0], x[1])),
            grad: Box::new(move |x| {
                let (v, (g0, g1)) = grad(x[0], x[1]);
                (v, vec![g0, g1])
            }),
            adjoint: Box::new(move |x, d_out, d| {
                let [d0, d1] = d else {
                    panic!("binary adjoint needs 2 buffers")
                };
                adjoint(x[0], x[1], d_out, d0, d1)
            }),
        }
    }

    pub fn ternary(
        name: &str,
        f: fn(f64, f64, f64) -> f64,
        grad: Grad3,
        adjoint: Adjoint3,
    ) -> Case {
        Case {
            name: name.to_owned(),
            f: Box::new(move |x| f(x[0], x[1], x[2])),
            grad: Box::new(move |x| {
                let (v, (g0, g1, g2)) = grad(x[0], x[1], x[2]);
                (v, vec![g0, g1, g2])
            }),
            adjoint: Box::new(move |x, d_out, d| {
                let [d0, d1, d2] = d else {
                    panic!("ternary adjoint needs 3 buffers")
                };
                adjoint(x[0], x[1], x[2], d_out, d0, d1, d2)
            }),
        }
    }

    /// The gradient at `x`, after asserting that `_grad` and `_adjoint`
    /// return exactly the plain function's value and that `_adjoint`
    /// accumulates `d_out ×` that gradient exactly.
    #[track_caller]
    pub fn gradient(&self, x: &[f64]) -> Vec<f64> {
        let name = &self.name;
        let value = (self.f)(x);
        let (grad_value, g) = (self.grad)(x);
        assert_eq!(g.len(), x.len(), "{name}: gradient shape");
        assert_eq!(
            grad_value.to_bits(),
            value.to_bits(),
            "{name} at {x:?}: _grad value {grad_value} differs from the function's {value}"
        );

        // d_out = 1 into zeroed buffers reproduces the gradient.
        let mut d = vec![0.0; x.len()];
        let adjoint_value = (self.adjoint)(x, 1.0, &mut d);
        assert_eq!(
            adjoint_value.to_bits(),
            value.to_bits(),
            "{name} at {x:?}: _adjoint value {adjoint_value} differs from the function's {value}"
        );
        for (i, (&di, &gi)) in d.iter().zip(&g).enumerate() {
            assert_eq!(
                di, gi,
                "{name} at {x:?}: _adjoint(d_out = 1) partial {i} is {di}, _grad gives {gi}"
            );
        }

        // d_out = 2.5 adds exactly 2.5 × the gradient onto pre-filled buffers.
        let pre = [1.0, -2.0, 0.25];
        let mut d = pre[..x.len()].to_vec();
        let adjoint_value = (self.adjoint)(x, 2.5, &mut d);
        assert_eq!(
            adjoint_value.to_bits(),
            value.to_bits(),
            "{name} at {x:?}: _adjoint value {adjoint_value} differs from the function's {value}"
        );
        for (i, ((&di, &gi), &p)) in d.iter().zip(&g).zip(&pre).enumerate() {
            let expected = p + 2.5 * gi;
            assert_eq!(
                di, expected,
                "{name} at {x:?}: _adjoint(d_out = 2.5) onto d_{i} = {p} gave {di}, \
                 expected {p} + 2.5 * {gi} = {expected}"
            );
        }
        g
    }

    /// Checks the gradient at `x` against central finite differences of the
    /// plain function, plus everything [`Case::gradient`] checks.
    #[track_caller]
    pub fn check_at(&self, x: &[f64]) {
        let name = &self.name;
        let g = self.gradient(x);
        for (i, &gi) in g.iter().enumerate() {
            let fd = central_difference(&self.f, x, i);
            assert!(
                gi.is_finite() && fd.is_finite(),
                "{name} at {x:?}: partial {i}: macro gives {gi}, finite differences give {fd}"
            );
            assert!(
                relative_eq!(gi, fd, epsilon = 1e-6, max_relative = 1e-6),
                "{name} at {x:?}: partial {i}: macro gives {gi}, finite differences give {fd}"
            );
        }
    }

    #[track_caller]
    pub fn check_all(&self, points: &[&[f64]]) {
        assert!(points.len() >= 3, "{}: fewer than 3 points", self.name);
        for x in points {
            self.check_at(x);
        }
    }
}

// ===========================================================================
// Generators: one module per method, both spellings, with an FD test
// ===========================================================================

/// `unary!(m: [x0, x1, ..])`: `method(x) = x.m()`, `path(x) = f64::m(x)`.
macro_rules! unary {
    ($($(#[$attr:meta])* $m:ident: [$($p:expr),+ $(,)?];)+) => {$(
        mod $m {
            use autograd::differentiable;

            #[differentiable]
            pub fn method(x: f64) -> f64 {
                x.$m()
            }

            #[differentiable]
            pub fn path(x: f64) -> f64 {
                f64::$m(x)
            }

            pub fn cases() -> [crate::Case; 2] {
                [
                    crate::Case::unary(
                        concat!("x.", stringify!($m), "()"),
                        method,
                        method_grad,
                        method_adjoint,
                    ),
                    crate::Case::unary(
                        concat!("f64::", stringify!($m), "(x)"),
                        path,
                        path_grad,
                        path_adjoint,
                    ),
                ]
            }

            #[test]
            $(#[$attr])*
            fn matches_finite_differences() {
                for case in cases() {
                    case.check_all(&[$(&[$p]),+]);
                }
            }
        }
    )+};
}

/// `binary!(m: [(a0, b0), ..])`: `method(a, b) = a.m(b)`,
/// `path(a, b) = f64::m(a, b)`.
macro_rules! binary {
    ($($(#[$attr:meta])* $m:ident: [$(($a:expr, $b:expr)),+ $(,)?];)+) => {$(
        mod $m {
            use autograd::differentiable;

            #[differentiable]
            pub fn method(a: f64, b: f64) -> f64 {
                a.$m(b)
            }

            #[differentiable]
            pub fn path(a: f64, b: f64) -> f64 {
                f64::$m(a, b)
            }

            pub fn cases() -> [crate::Case; 2] {
                [
                    crate::Case::binary(
                        concat!("a.", stringify!($m), "(b)"),
                        method,
                        method_grad,
                        method_adjoint,
                    ),
                    crate::Case::binary(
                        concat!("f64::", stringify!($m), "(a, b)"),
                        path,
                        path_grad,
                        path_adjoint,
                    ),
                ]
            }

            #[test]
            $(#[$attr])*
            fn matches_finite_differences() {
                for case in cases() {
                    case.check_all(&[$(&[$a, $b]),+]);
                }
            }
        }
    )+};
}

/// `ternary!(m: [(a0, b0, c0), ..])`: `method(a, b, c) = a.m(b, c)`,
/// `path(a, b, c) = f64::m(a, b, c)`.
macro_rules! ternary {
    ($($(#[$attr:meta])* $m:ident: [$(($a:expr, $b:expr, $c:expr)),+ $(,)?];)+) => {$(
        mod $m {
            use autograd::differentiable;

            #[differentiable]
            pub fn method(a: f64, b: f64, c: f64) -> f64 {
                a.$m(b, c)
            }

            #[differentiable]
            pub fn path(a: f64, b: f64, c: f64) -> f64 {
                f64::$m(a, b, c)
            }

            pub fn cases() -> [crate::Case; 2] {
                [
                    crate::Case::ternary(
                        concat!("a.", stringify!($m), "(b, c)"),
                        method,
                        method_grad,
                        method_adjoint,
                    ),
                    crate::Case::ternary(
                        concat!("f64::", stringify!($m), "(a, b, c)"),
                        path,
                        path_grad,
                        path_adjoint,
                    ),
                ]
            }

            #[test]
            $(#[$attr])*
            fn matches_finite_differences() {
                for case in cases() {
                    case.check_all(&[$(&[$a, $b, $c]),+]);
                }
            }
        }
    )+};
}

/// `powi!(name, [n]: [x0, ..])`: `x.powi(n)` and `f64::powi(x, n)` with a
/// literal exponent (tokens in brackets so negative exponents pass through
/// unchanged).
macro_rules! powi {
    ($($(#[$attr:meta])* $name:ident, [$($n:tt)+]: [$($p:expr),+ $(,)?];)+) => {$(
        mod $name {
            use autograd::differentiable;

            #[differentiable]
            pub fn method(x: f64) -> f64 {
                x.powi($($n)+)
            }

            #[differentiable]
            pub fn path(x: f64) -> f64 {
                f64::powi(x, $($n)+)
            }

            pub fn cases() -> [crate::Case; 2] {
                [
                    crate::Case::unary(
                        concat!("x.powi(", stringify!($($n)+), ")"),
                        method,
                        method_grad,
                        method_adjoint,
                    ),
                    crate::Case::unary(
                        concat!("f64::powi(x, ", stringify!($($n)+), ")"),
                        path,
                        path_grad,
                        path_adjoint,
                    ),
                ]
            }

            #[test]
            $(#[$attr])*
            fn matches_finite_differences() {
                for case in cases() {
                    case.check_all(&[$(&[$p]),+]);
                }
            }
        }
    )+};
}

// ===========================================================================
// 1–2. Every method and operator against finite differences
// ===========================================================================

unary! {
    abs: [-2.3, -0.7, -1e-3, 1e-3, 0.4, 3.1];
    signum: [-2.3, -0.5, 0.4, 3.1];
    sqrt: [1e-3, 0.3, 2.0, 150.0];
    cbrt: [-8.5, -0.3, -1e-2, 0.2, 5.0];
    exp: [-3.0, -0.5, 0.7, 5.0];
    exp2: [-3.0, -0.5, 0.7, 6.5];
    exp_m1: [-3.0, -0.5, 1e-5, 0.7, 5.0];
    ln: [1e-3, 0.5, 2.0, 150.0];
    log2: [1e-3, 0.3, 7.0, 1000.0];
    log10: [1e-3, 0.3, 7.0, 1000.0];
    ln_1p: [-0.999, -0.5, 0.3, 20.0];
    sin: [-5.3, -0.7, 0.2, 2.9, 40.0];
    cos: [-5.3, -0.7, 0.2, 2.9, 40.0];
    tan: [-1.5, -0.4, 0.3, 1.5];
    asin: [-0.99, -0.3, 0.5, 0.99];
    acos: [-0.99, -0.3, 0.5, 0.99];
    atan: [-30.0, -0.7, 0.4, 8.0];
    sinh: [-4.0, -0.5, 0.3, 3.0];
    cosh: [-4.0, -0.5, 0.3, 3.0];
    tanh: [-4.0, -0.5, 0.3, 3.0];
    asinh: [-50.0, -0.5, 0.3, 7.0];
    acosh: [1.01, 1.5, 4.0, 100.0];
    atanh: [-0.99, -0.3, 0.5, 0.99];
    recip: [-4.0, -0.01, 0.05, 2.5];
    to_degrees: [-3.0, 0.5, 100.0];
    to_radians: [-300.0, 0.5, 100.0];
    floor: [-2.3, -0.7, 0.4, 3.1];
    ceil: [-2.3, -0.7, 0.4, 3.1];
    round: [-2.3, -0.7, 0.4, 3.1];
    trunc: [-2.3, -0.7, 0.4, 3.1];
}

binary! {
    powf: [(2.0, 3.0), (0.5, -1.5), (3.7, 0.3), (1e-3, 2.5), (10.0, -0.7)];
    log: [(8.0, 2.0), (0.3, 5.0), (1e-3, 3.0), (100.0, 10.0), (2.0, 0.5), (5.0, 1.01)];
    atan2: [(1.0, 2.0), (-0.5, 3.0), (2.0, -1.0), (-1.5, -2.5), (1e-3, -1.0)];
    hypot: [(3.0, 4.0), (-1.0, 0.5), (-2.0, -7.0), (1e-3, 2.0), (0.3, -1e-3)];
    max: [(1.0, 2.0), (3.0, -1.0), (-2.0, -2.5), (-0.5, 0.5)];
    min: [(1.0, 2.0), (3.0, -1.0), (-2.0, -2.5), (-0.5, 0.5)];
}

ternary! {
    // (x, lo, hi): inside, below, above, all-negative inside, above.
    clamp: [
        (0.5, 0.0, 1.0),
        (-2.0, -1.0, 3.0),
        (5.0, -1.0, 3.0),
        (-0.3, -0.8, -0.1),
        (1.7, 0.5, 1.2),
    ];
    mul_add: [(2.0, 3.0, 4.0), (-1.5, 0.3, -7.0), (0.1, -8.0, 2.2)];
}

powi! {
    powi_3, [3]: [-2.3, -0.7, 0.4, 1.9];
    powi_2, [2]: [-2.3, -0.7, 0.4, 1.9];
    powi_1, [1]: [-2.3, -0.7, 0.4, 1.9];
    powi_0, [0]: [-2.3, -0.7, 0.4, 1.9];
    powi_m1, [-1]: [-2.3, -0.7, 0.4, 1.9];
    powi_m2, [-2]: [-2.3, -0.7, 0.4, 1.9];
    powi_m3, [-3]: [-2.3, -0.7, 0.4, 1.9];
    powi_7, [7]: [-1.3, -0.7, 0.4, 1.9];
}

/// `x.powi(n)` with the exponent a constant (`i32`) parameter.
#[differentiable]
fn powi_n(x: f64, n: i32) -> f64 {
    x.powi(n)
}

#[differentiable]
fn powi_n_path(x: f64, n: i32) -> f64 {
    f64::powi(x, n)
}

#[test]
fn powi_with_a_constant_exponent_parameter() {
    for n in [-3, -2, -1, 0, 1, 2, 3, 5] {
        let plain = move |x: &[f64]| powi_n(x[0], n);
        for x in [-2.3, -0.7, 0.4, 1.9] {
            let (v, g) = powi_n_grad(x, n);
            assert_eq!(
                v.to_bits(),
                powi_n(x, n).to_bits(),
                "value at x = {x}, n = {n}"
            );
            let (v2, g2) = powi_n_path_grad(x, n);
            assert_eq!(v2.to_bits(), powi_n_path(x, n).to_bits());
            assert_eq!(g, g2, "spellings differ at x = {x}, n = {n}");
            let fd = central_difference(plain, &[x], 0);
            assert!(
                relative_eq!(g, fd, epsilon = 1e-6, max_relative = 1e-6),
                "powi(x = {x}, n = {n}): macro gives {g}, finite differences give {fd}"
            );
            let mut d = 1.0;
            let v3 = powi_n_adjoint(x, n, 2.5, &mut d);
            assert_eq!(v3.to_bits(), v.to_bits());
            assert_eq!(d, 1.0 + 2.5 * g, "adjoint at x = {x}, n = {n}");
        }
    }
}

// ----- operators -------------------------------------------------------------

mod ops {
    use autograd::differentiable;

    #[differentiable]
    pub fn add(a: f64, b: f64) -> f64 {
        a + b
    }

    #[differentiable]
    pub fn sub(a: f64, b: f64) -> f64 {
        a - b
    }

    #[differentiable]
    pub fn mul(a: f64, b: f64) -> f64 {
        a * b
    }

    #[differentiable]
    pub fn div(a: f64, b: f64) -> f64 {
        a / b
    }

    #[differentiable]
    pub fn neg(x: f64) -> f64 {
        -x
    }
}

const BINARY_POINTS: &[&[f64]] = &[
    &[1.5, 2.0],
    &[-0.7, 3.1],
    &[4.2, -0.3],
    &[-2.5, -8.0],
    &[1e-3, 1e-2],
];

#[test]
fn add_matches_finite_differences() {
    Case::binary("a + b", ops::add, ops::add_grad, ops::add_adjoint).check_all(BINARY_POINTS);
}

#[test]
fn sub_matches_finite_differences() {
    Case::binary("a - b", ops::sub, ops::sub_grad, ops::sub_adjoint).check_all(BINARY_POINTS);
}

#[test]
fn mul_matches_finite_differences() {
    Case::binary("a * b", ops::mul, ops::mul_grad, ops::mul_adjoint).check_all(BINARY_POINTS);
}

#[test]
fn div_matches_finite_differences() {
    Case::binary("a / b", ops::div, ops::div_grad, ops::div_adjoint).check_all(BINARY_POINTS);
}

#[test]
fn neg_matches_finite_differences() {
    Case::unary("-x", ops::neg, ops::neg_grad, ops::neg_adjoint).check_all(&[
        &[-3.5],
        &[-1e-3],
        &[0.7],
        &[12.0],
    ]);
}

#[test]
fn operator_gradients_are_exact() {
    assert_eq!(ops::add_grad(1.5, -2.0), (-0.5, (1.0, 1.0)));
    assert_eq!(ops::sub_grad(1.5, -2.0), (3.5, (1.0, -1.0)));
    assert_eq!(ops::mul_grad(1.5, -2.0), (-3.0, (-2.0, 1.5)));
    assert_eq!(ops::div_grad(3.0, 2.0), (1.5, (0.5, -0.75)));
    assert_eq!(ops::neg_grad(3.0), (-3.0, -1.0));
}

// ===========================================================================
// 3. Exact conventions through the macro
// ===========================================================================

fn both<const N: usize>(cases: [Case; N], x: &[f64]) -> Vec<Vec<f64>> {
    cases.iter().map(|c| c.gradient(x)).collect()
}

/// Asserts every spelling in `cases` has exactly gradient `expected` at `x`.
#[track_caller]
fn assert_exact<const N: usize>(cases: [Case; N], x: &[f64], expected: &[f64]) {
    for c in &cases {
        let g = c.gradient(x);
        assert_eq!(g, expected, "{} at {x:?}", c.name);
    }
}

#[test]
fn abs_kink_is_zero() {
    assert_exact(abs::cases(), &[0.0], &[0.0]);
    assert_exact(abs::cases(), &[-0.0], &[0.0]);
    assert_exact(abs::cases(), &[-2.0], &[-1.0]);
    assert_exact(abs::cases(), &[2.0], &[1.0]);
}

mod relu {
    use autograd::differentiable;

    #[differentiable]
    pub fn method(x: f64) -> f64 {
        x.max(0.0)
    }

    #[differentiable]
    pub fn path(x: f64) -> f64 {
        f64::max(x, 0.0)
    }

    #[differentiable]
    pub fn flipped(x: f64) -> f64 {
        0.0_f64.max(x)
    }

    pub fn cases() -> [crate::Case; 3] {
        [
            crate::Case::unary("x.max(0.0)", method, method_grad, method_adjoint),
            crate::Case::unary("f64::max(x, 0.0)", path, path_grad, path_adjoint),
            crate::Case::unary("0.0.max(x)", flipped, flipped_grad, flipped_adjoint),
        ]
    }
}

#[test]
fn relu_via_max_with_zero() {
    assert_exact(relu::cases(), &[3.0], &[1.0]);
    assert_exact(relu::cases(), &[-3.0], &[0.0]);
    assert_exact(relu::cases(), &[1e-300], &[1.0]);
    assert_exact(relu::cases(), &[-1e-300], &[0.0]);
    // x = 0 ties with the constant 0.0: max's documented tie rule gives the
    // active operand half the derivative.
    assert_exact(relu::cases(), &[0.0], &[0.5]);
    assert_exact(relu::cases(), &[-0.0], &[0.5]);
}

#[test]
fn max_min_tie_splits_equally() {
    for x in [[2.0, 2.0], [-1.5, -1.5], [0.0, -0.0], [-0.0, 0.0]] {
        assert_exact(max::cases(), &x, &[0.5, 0.5]);
        assert_exact(min::cases(), &x, &[0.5, 0.5]);
    }
    assert_exact(max::cases(), &[1.0, 2.0], &[0.0, 1.0]);
    assert_exact(max::cases(), &[3.0, 2.0], &[1.0, 0.0]);
    assert_exact(min::cases(), &[1.0, 2.0], &[1.0, 0.0]);
    assert_exact(min::cases(), &[3.0, 2.0], &[0.0, 1.0]);
}

#[test]
fn clamp_routes_the_derivative() {
    // inside
    assert_exact(clamp::cases(), &[0.5, 0.0, 1.0], &[1.0, 0.0, 0.0]);
    // below: lo gets it
    assert_exact(clamp::cases(), &[-2.0, 0.0, 1.0], &[0.0, 1.0, 0.0]);
    // above: hi gets it
    assert_exact(clamp::cases(), &[2.0, 0.0, 1.0], &[0.0, 0.0, 1.0]);
    // exactly at either bound (closed range): x gets it
    assert_exact(clamp::cases(), &[0.0, 0.0, 1.0], &[1.0, 0.0, 0.0]);
    assert_exact(clamp::cases(), &[1.0, 0.0, 1.0], &[1.0, 0.0, 0.0]);
    assert_exact(clamp::cases(), &[1.0, 1.0, 1.0], &[1.0, 0.0, 0.0]);
}

#[test]
fn step_functions_have_zero_gradient_even_at_jumps() {
    let points = [-2.0, -1.5, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 2.5, 3.7];
    for x in points {
        assert_exact(signum::cases(), &[x], &[0.0]);
        assert_exact(floor::cases(), &[x], &[0.0]);
        assert_exact(ceil::cases(), &[x], &[0.0]);
        assert_exact(round::cases(), &[x], &[0.0]);
        assert_exact(trunc::cases(), &[x], &[0.0]);
    }
}

#[test]
fn powi_zero_exponent_is_flat_even_at_zero() {
    for x in [0.0, -0.0, 2.0, -3.5] {
        assert_exact(powi_0::cases(), &[x], &[0.0]);
    }
    for n in [0, 1, 2] {
        assert_eq!(powi_n_grad(0.0, n).1, [0.0, 1.0, 0.0][n as usize]);
    }
    assert_eq!(powi_n_grad(0.0, 0), (1.0, 0.0));
}

#[test]
fn atan2_and_hypot_are_flat_at_the_origin() {
    for x in [[0.0, 0.0], [-0.0, 0.0], [0.0, -0.0], [-0.0, -0.0]] {
        assert_exact(atan2::cases(), &x, &[0.0, 0.0]);
        assert_exact(hypot::cases(), &x, &[0.0, 0.0]);
    }
}

#[test]
fn powf_conventions() {
    // a = 0, b > 0: ∂b = 0 (limit), ∂a = b·0^(b-1)
    assert_exact(powf::cases(), &[0.0, 2.0], &[0.0, 0.0]);
    assert_exact(powf::cases(), &[0.0, 1.0], &[1.0, 0.0]);
    // b = 0: ∂a = 0 for every a
    for g in both(powf::cases(), &[5.0, 0.0]) {
        assert_eq!(g[0], 0.0);
        assert_eq!(g[1], 5f64.ln());
    }
}

#[test]
fn exact_values_of_smooth_rules() {
    assert_exact(sqrt::cases(), &[4.0], &[0.25]);
    assert_exact(cbrt::cases(), &[-8.0], &[1.0 / 12.0]);
    assert_exact(exp_m1::cases(), &[0.0], &[1.0]);
    assert_exact(ln::cases(), &[4.0], &[0.25]);
    assert_exact(tan::cases(), &[0.0], &[1.0]);
    assert_exact(asin::cases(), &[0.0], &[1.0]);
    assert_exact(acos::cases(), &[0.0], &[-1.0]);
    assert_exact(atan::cases(), &[1.0], &[0.5]);
    assert_exact(atanh::cases(), &[0.5], &[1.0 / 0.75]);
    assert_exact(recip::cases(), &[2.0], &[-0.25]);
    assert_exact(to_degrees::cases(), &[0.3], &[1f64.to_degrees()]);
    assert_exact(
        to_radians::cases(),
        &[30.0],
        &[std::f64::consts::PI / 180.0],
    );
    assert_exact(hypot::cases(), &[3.0, 4.0], &[0.6, 0.8]);
    assert_exact(atan2::cases(), &[0.0, 2.0], &[0.5, 0.0]);
    assert_exact(mul_add::cases(), &[2.0, 3.0, 4.0], &[3.0, 2.0, 1.0]);
    assert_exact(powf::cases(), &[2.0, 3.0], &[12.0, 8.0 * 2f64.ln()]);
}

#[test]
fn domain_edges_follow_ieee() {
    assert_exact(sqrt::cases(), &[0.0], &[f64::INFINITY]);
    assert_exact(ln::cases(), &[0.0], &[f64::INFINITY]);
    assert_exact(asin::cases(), &[1.0], &[f64::INFINITY]);
    assert_exact(acosh::cases(), &[1.0], &[f64::INFINITY]);
    for c in sqrt::cases() {
        let (v, g) = (c.grad)(&[-1.0]);
        assert!(v.is_nan() && g[0].is_nan(), "{}", c.name);
    }
}

// ===========================================================================
// 4. Some arguments are literals or constant paths
// ===========================================================================

mod mixed {
    use autograd::differentiable;
    use std::f64::consts::PI;

    const OFFSET: f64 = 0.25;

    #[differentiable]
    pub fn powf_const_exp(x: f64) -> f64 {
        x.powf(2.5)
    }
    #[differentiable]
    pub fn powf_const_int_exp(x: f64) -> f64 {
        f64::powf(x, 3.0)
    }
    #[differentiable]
    pub fn powf_const_base(x: f64) -> f64 {
        2.0_f64.powf(x)
    }
    #[differentiable]
    pub fn powf_const_base_path(x: f64) -> f64 {
        f64::powf(0.5, x)
    }
    #[differentiable]
    pub fn log_const_base(x: f64) -> f64 {
        x.log(10.0)
    }
    #[differentiable]
    pub fn log_const_arg(x: f64) -> f64 {
        f64::log(10.0, x)
    }
    #[differentiable]
    pub fn atan2_const_b(x: f64) -> f64 {
        x.atan2(1.0)
    }
    #[differentiable]
    pub fn atan2_const_a(x: f64) -> f64 {
        f64::atan2(-1.5, x)
    }
    #[differentiable]
    pub fn atan2_const_path(x: f64) -> f64 {
        x.atan2(PI)
    }
    #[differentiable]
    pub fn hypot_const_a(x: f64) -> f64 {
        f64::hypot(3.0, x)
    }
    #[differentiable]
    pub fn hypot_const_b(x: f64) -> f64 {
        x.hypot(-2.0)
    }
    #[differentiable]
    pub fn mul_add_const_bc(x: f64) -> f64 {
        x.mul_add(2.0, 1.0)
    }
    #[differentiable]
    pub fn mul_add_const_ac(x: f64) -> f64 {
        f64::mul_add(2.0, x, 3.0)
    }
    #[differentiable]
    pub fn mul_add_const_ab(x: f64) -> f64 {
        1.5_f64.mul_add(-0.5, x)
    }
    #[differentiable]
    pub fn clamp_const_bounds(x: f64) -> f64 {
        x.clamp(-1.0, 1.0)
    }
    #[differentiable]
    pub fn clamp_const_bounds_path(x: f64) -> f64 {
        f64::clamp(x, -1.0, 1.0)
    }
    #[differentiable]
    pub fn max_const(x: f64) -> f64 {
        x.max(0.5)
    }
    #[differentiable]
    pub fn min_const_first(x: f64) -> f64 {
        f64::min(2.0, x)
    }
    #[differentiable]
    pub fn add_const(x: f64) -> f64 {
        x + 3.0
    }
    #[differentiable]
    pub fn sub_from_const(x: f64) -> f64 {
        2.0 - x
    }
    #[differentiable]
    pub fn mul_const(x: f64) -> f64 {
        3.0 * x
    }
    #[differentiable]
    pub fn div_by_const(x: f64) -> f64 {
        x / 4.0
    }
    #[differentiable]
    pub fn const_over_x(x: f64) -> f64 {
        1.0 / x
    }
    #[differentiable]
    pub fn sub_const_item(x: f64) -> f64 {
        x - OFFSET
    }

    // two active arguments, one constant
    #[differentiable]
    pub fn clamp_const_lo(x: f64, hi: f64) -> f64 {
        x.clamp(-1.0, hi)
    }
    #[differentiable]
    pub fn clamp_const_hi(x: f64, lo: f64) -> f64 {
        f64::clamp(x, lo, 2.0)
    }
    #[differentiable]
    pub fn clamp_const_x(lo: f64, hi: f64) -> f64 {
        0.5_f64.clamp(lo, hi)
    }
    #[differentiable]
    pub fn mul_add_const_b(a: f64, c: f64) -> f64 {
        a.mul_add(3.0, c)
    }
    #[differentiable]
    pub fn mul_add_const_c(a: f64, b: f64) -> f64 {
        f64::mul_add(a, b, -4.0)
    }
}

#[test]
fn mixed_constant_operands_unary() {
    use mixed::*;
    macro_rules! case {
        ($f:ident, $g:ident, $a:ident) => {
            Case::unary(stringify!($f), $f, $g, $a)
        };
    }
    let table: Vec<(Case, &[&[f64]])> = vec![
        (
            case!(powf_const_exp, powf_const_exp_grad, powf_const_exp_adjoint),
            &[&[1e-3], &[0.3], &[1.7], &[4.0]],
        ),
        (
            case!(
                powf_const_int_exp,
                powf_const_int_exp_grad,
                powf_const_int_exp_adjoint
            ),
            &[&[-2.1], &[-0.4], &[0.7], &[3.0]],
        ),
        (
            case!(
                powf_const_base,
                powf_const_base_grad,
                powf_const_base_adjoint
            ),
            &[&[-3.0], &[0.5], &[4.0]],
        ),
        (
            case!(
                powf_const_base_path,
                powf_const_base_path_grad,
                powf_const_base_path_adjoint
            ),
            &[&[-3.0], &[0.5], &[4.0]],
        ),
        (
            case!(log_const_base, log_const_base_grad, log_const_base_adjoint),
            &[&[1e-3], &[0.5], &[40.0]],
        ),
        (
            case!(log_const_arg, log_const_arg_grad, log_const_arg_adjoint),
            &[&[0.3], &[1.01], &[5.0]],
        ),
        (
            case!(atan2_const_b, atan2_const_b_grad, atan2_const_b_adjoint),
            &[&[-2.0], &[0.3], &[5.0]],
        ),
        (
            case!(atan2_const_a, atan2_const_a_grad, atan2_const_a_adjoint),
            &[&[-2.0], &[0.3], &[5.0]],
        ),
        (
            case!(
                atan2_const_path,
                atan2_const_path_grad,
                atan2_const_path_adjoint
            ),
            &[&[-2.0], &[0.3], &[5.0]],
        ),
        (
            case!(hypot_const_a, hypot_const_a_grad, hypot_const_a_adjoint),
            &[&[-4.0], &[0.5], &[10.0]],
        ),
        (
            case!(hypot_const_b, hypot_const_b_grad, hypot_const_b_adjoint),
            &[&[-4.0], &[0.5], &[10.0]],
        ),
        (
            case!(
                mul_add_const_bc,
                mul_add_const_bc_grad,
                mul_add_const_bc_adjoint
            ),
            &[&[-4.0], &[0.5], &[10.0]],
        ),
        (
            case!(
                mul_add_const_ac,
                mul_add_const_ac_grad,
                mul_add_const_ac_adjoint
            ),
            &[&[-4.0], &[0.5], &[10.0]],
        ),
        (
            case!(
                mul_add_const_ab,
                mul_add_const_ab_grad,
                mul_add_const_ab_adjoint
            ),
            &[&[-4.0], &[0.5], &[10.0]],
        ),
        (
            case!(
                clamp_const_bounds,
                clamp_const_bounds_grad,
                clamp_const_bounds_adjoint
            ),
            &[&[-3.0], &[-0.4], &[0.6], &[2.0]],
        ),
        (
            case!(
                clamp_const_bounds_path,
                clamp_const_bounds_path_grad,
                clamp_const_bounds_path_adjoint
            ),
            &[&[-3.0], &[-0.4], &[0.6], &[2.0]],
        ),
        (
            case!(max_const, max_const_grad, max_const_adjoint),
            &[&[-3.0], &[0.2], &[0.7], &[4.0]],
        ),
        (
            case!(
                min_const_first,
                min_const_first_grad,
                min_const_first_adjoint
            ),
            &[&[-3.0], &[1.5], &[2.5], &[40.0]],
        ),
        (
            case!(add_const, add_const_grad, add_const_adjoint),
            &[&[-3.0], &[0.5], &[7.0]],
        ),
        (
            case!(sub_from_const, sub_from_const_grad, sub_from_const_adjoint),
            &[&[-3.0], &[0.5], &[7.0]],
        ),
        (
            case!(mul_const, mul_const_grad, mul_const_adjoint),
            &[&[-3.0], &[0.5], &[7.0]],
        ),
        (
            case!(div_by_const, div_by_const_grad, div_by_const_adjoint),
            &[&[-3.0], &[0.5], &[7.0]],
        ),
        (
            case!(const_over_x, const_over_x_grad, const_over_x_adjoint),
            &[&[-3.0], &[0.05], &[7.0]],
        ),
        (
            case!(sub_const_item, sub_const_item_grad, sub_const_item_adjoint),
            &[&[-3.0], &[0.5], &[7.0]],
        ),
    ];
    for (case, points) in &table {
        case.check_all(points);
    }
}

#[test]
fn mixed_constant_operands_binary() {
    use mixed::*;
    Case::binary(
        "x.clamp(-1.0, hi)",
        clamp_const_lo,
        clamp_const_lo_grad,
        clamp_const_lo_adjoint,
    )
    .check_all(&[&[-3.0, 2.0], &[0.5, 2.0], &[3.0, 2.0], &[-0.5, 0.0]]);
    Case::binary(
        "f64::clamp(x, lo, 2.0)",
        clamp_const_hi,
        clamp_const_hi_grad,
        clamp_const_hi_adjoint,
    )
    .check_all(&[&[-3.0, -1.0], &[0.5, -1.0], &[3.0, -1.0], &[-0.5, -0.7]]);
    Case::binary(
        "0.5.clamp(lo, hi)",
        clamp_const_x,
        clamp_const_x_grad,
        clamp_const_x_adjoint,
    )
    .check_all(&[&[0.0, 1.0], &[0.7, 1.0], &[-1.0, 0.2], &[-3.0, -2.0]]);
    Case::binary(
        "a.mul_add(3.0, c)",
        mul_add_const_b,
        mul_add_const_b_grad,
        mul_add_const_b_adjoint,
    )
    .check_all(&[&[-3.0, 2.0], &[0.5, -1.0], &[7.0, 0.1]]);
    Case::binary(
        "f64::mul_add(a, b, -4.0)",
        mul_add_const_c,
        mul_add_const_c_grad,
        mul_add_const_c_adjoint,
    )
    .check_all(&[&[-3.0, 2.0], &[0.5, -1.0], &[7.0, 0.1]]);
}

#[test]
fn mixed_constant_operands_exact() {
    use mixed::*;
    let ln2 = std::f64::consts::LN_2;
    assert_eq!(powf_const_exp_grad(4.0), (32.0, 2.5 * 8.0));
    assert_eq!(powf_const_int_exp_grad(-2.0), (-8.0, 12.0));
    assert_eq!(powf_const_base_grad(3.0), (8.0, 8.0 * ln2));
    assert_eq!(atan2_const_b_grad(0.0), (0.0, 1.0));
    // at (1, 1) the rule's (b / h) / h rounds to 0.49999999999999994: the
    // macro must pass exactly what the rule gives
    let quarter_pi = std::f64::consts::FRAC_PI_4;
    assert_eq!(
        atan2_const_b_grad(1.0),
        (quarter_pi, autograd::rules::atan2(1.0, 1.0, quarter_pi).0)
    );
    assert_eq!(hypot_const_a_grad(4.0), (5.0, 0.8));
    assert_eq!(mul_add_const_bc_grad(0.5), (2.0, 2.0));
    assert_eq!(mul_add_const_ac_grad(0.5), (4.0, 2.0));
    assert_eq!(mul_add_const_ab_grad(0.5).1, 1.0);
    assert_eq!(clamp_const_bounds_grad(0.3), (0.3, 1.0));
    assert_eq!(clamp_const_bounds_grad(2.0), (1.0, 0.0));
    assert_eq!(clamp_const_bounds_grad(-2.0), (-1.0, 0.0));
    assert_eq!(clamp_const_bounds_grad(1.0), (1.0, 1.0));
    assert_eq!(clamp_const_bounds_path_grad(-1.0), (-1.0, 1.0));
    assert_eq!(max_const_grad(0.5), (0.5, 0.5));
    assert_eq!(min_const_first_grad(2.0), (2.0, 0.5));
    assert_eq!(sub_from_const_grad(0.5), (1.5, -1.0));
    assert_eq!(mul_const_grad(0.5), (1.5, 3.0));
    assert_eq!(div_by_const_grad(1.0), (0.25, 0.25));
    assert_eq!(const_over_x_grad(2.0), (0.5, -0.25));
    // clamp with constant x: the derivative goes to the violated bound
    assert_eq!(clamp_const_x_grad(0.0, 1.0), (0.5, (0.0, 0.0)));
    assert_eq!(clamp_const_x_grad(0.7, 1.0), (0.7, (1.0, 0.0)));
    assert_eq!(clamp_const_x_grad(-1.0, 0.2), (0.2, (0.0, 1.0)));
    assert_eq!(clamp_const_lo_grad(3.0, 2.0), (2.0, (0.0, 1.0)));
    assert_eq!(clamp_const_lo_grad(-3.0, 2.0), (-1.0, (0.0, 0.0)));
    assert_eq!(clamp_const_hi_grad(-3.0, -1.0), (-1.0, (0.0, 1.0)));
    assert_eq!(mul_add_const_b_grad(2.0, 1.0), (7.0, (3.0, 1.0)));
    assert_eq!(mul_add_const_c_grad(2.0, 5.0), (6.0, (5.0, 2.0)));
}

// ===========================================================================
// 5. The adjoint adds d_out × gradient onto what is already there
// ===========================================================================

#[test]
fn adjoint_accumulates_scaled_gradient() {
    // Every generated case above already checks `pre + 2.5 * g` at every
    // point; here the accumulation is spelled out on a few functions.
    let x = 0.3_f64;
    let mut d_x = 1.0;
    let v = sin::method_adjoint(x, 2.5, &mut d_x);
    assert_eq!(v.to_bits(), x.sin().to_bits());
    assert_eq!(d_x, 1.0 + 2.5 * x.cos());

    let (mut d_a, mut d_b) = (1.0, 1.0);
    let v = ops::mul_adjoint(3.0, -2.0, 2.5, &mut d_a, &mut d_b);
    assert_eq!((v, d_a, d_b), (-6.0, 1.0 + 2.5 * -2.0, 1.0 + 2.5 * 3.0));

    let (mut d_x, mut d_lo, mut d_hi) = (1.0, 1.0, 1.0);
    let v = clamp::path_adjoint(5.0, -1.0, 3.0, 2.5, &mut d_x, &mut d_lo, &mut d_hi);
    assert_eq!((v, d_x, d_lo, d_hi), (3.0, 1.0, 1.0, 3.5));

    let (mut d_x, mut d_lo, mut d_hi) = (1.0, 1.0, 1.0);
    let v = clamp::method_adjoint(1.0, 1.0, 3.0, 2.5, &mut d_x, &mut d_lo, &mut d_hi);
    assert_eq!((v, d_x, d_lo, d_hi), (1.0, 3.5, 1.0, 1.0));

    let (mut d_a, mut d_b) = (1.0, 1.0);
    let v = max::method_adjoint(2.0, 2.0, 2.5, &mut d_a, &mut d_b);
    assert_eq!((v, d_a, d_b), (2.0, 2.25, 2.25));

    let mut d_x = 1.0;
    let v = relu::method_adjoint(-3.0, 2.5, &mut d_x);
    assert_eq!((v, d_x), (0.0, 1.0));

    let mut d_x = 1.0;
    let v = floor::path_adjoint(2.7, 2.5, &mut d_x);
    assert_eq!((v, d_x), (2.0, 1.0));

    // d_out = 0 leaves the buffers untouched
    let (mut d_a, mut d_b) = (1.0, -2.0);
    atan2::method_adjoint(1.0, 2.0, 0.0, &mut d_a, &mut d_b);
    assert_eq!((d_a, d_b), (1.0, -2.0));
}
