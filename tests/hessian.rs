//! `#[differentiable(hessian)]`: `f_hvp` and `f_hessian` (API.md §4) against
//! independent oracles — central finite differences of the generated
//! `f_grad` (`autograd::check::hessian`), exact Hessians where they are
//! known in closed form — plus symmetry, `hvp = H·v`, and agreement of the
//! value and gradient with `f` and `f_grad`.

#![allow(
    clippy::type_complexity,
    clippy::assign_op_pattern,
    clippy::needless_range_loop
)]

use autograd::{check, differentiable};

/// A function of a flat point through its generated items:
/// `f_grad`, `f_hessian` and `f_hvp`, each adapted to `&[f64]`.
struct Case<'a> {
    name: &'a str,
    value: &'a dyn Fn(&[f64]) -> f64,
    grad: &'a dyn Fn(&[f64]) -> (f64, Vec<f64>),
    hessian: &'a dyn Fn(&[f64]) -> (f64, Vec<f64>, Vec<f64>),
    hvp: &'a dyn Fn(&[f64], &[f64]) -> (f64, Vec<f64>, Vec<f64>),
}

/// A deterministic direction with no zero entry.
fn direction(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| 0.3 + ((i * 37 + 11) % 17) as f64 / 9.0 * if i % 2 == 0 { 1.0 } else { -1.0 })
        .collect()
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * 1f64.max(a.abs()).max(b.abs())
}

#[track_caller]
fn check_case(case: &Case, points: &[Vec<f64>]) {
    for x in points {
        let n = x.len();
        let name = case.name;
        let (value, gradient) = (case.grad)(x);
        assert_eq!(value, (case.value)(x), "{name}: f_grad's value at {x:?}");
        let (h_value, h_gradient, h) = (case.hessian)(x);
        assert_eq!(h.len(), n * n, "{name}: Hessian length");
        assert_eq!(h_value, value, "{name}: f_hessian's value at {x:?}");
        for (a, b) in h_gradient.iter().zip(&gradient) {
            assert!(
                close(*a, *b, 1e-13),
                "{name}: f_hessian's gradient {h_gradient:?} vs f_grad's {gradient:?}"
            );
        }
        // The oracle: central differences of the generated gradient.
        let report = check::hessian(|p| (case.grad)(p).1, x, &h);
        assert!(report.is_ok(1e-5), "{name} at {x:?}: {report}");
        // Symmetry.
        for i in 0..n {
            for j in 0..i {
                assert!(
                    close(h[i * n + j], h[j * n + i], 1e-12),
                    "{name}: H[{i}][{j}] = {} but H[{j}][{i}] = {}",
                    h[i * n + j],
                    h[j * n + i]
                );
            }
        }
        // hvp = H·v, with the same value and gradient.
        let v = direction(n);
        let (p_value, p_gradient, hv) = (case.hvp)(x, &v);
        assert_eq!(p_value, value, "{name}: f_hvp's value");
        for (a, b) in p_gradient.iter().zip(&gradient) {
            assert!(close(*a, *b, 1e-13), "{name}: f_hvp's gradient");
        }
        for i in 0..n {
            let want: f64 = (0..n).map(|j| h[i * n + j] * v[j]).sum();
            assert!(
                close(hv[i], want, 1e-10),
                "{name} at {x:?}: (H·v)[{i}] = {} but H·v from f_hessian gives {want}",
                hv[i]
            );
        }
    }
}

/// `f(x, y)` with its items.
macro_rules! case2 {
    ($f:ident, $grad:ident, $hess:ident, $hvp:ident, $points:expr) => {{
        let value = |x: &[f64]| $f(x[0], x[1]);
        let grad = |x: &[f64]| {
            let (v, (a, b)) = $grad(x[0], x[1]);
            (v, vec![a, b])
        };
        let hessian = |x: &[f64]| {
            let (v, (a, b), h) = $hess(x[0], x[1]);
            (v, vec![a, b], h)
        };
        let hvp = |x: &[f64], d: &[f64]| {
            let (v, (a, b), (ha, hb)) = $hvp(x[0], x[1], d[0], d[1]);
            (v, vec![a, b], vec![ha, hb])
        };
        let case = Case {
            name: stringify!($f),
            value: &value,
            grad: &grad,
            hessian: &hessian,
            hvp: &hvp,
        };
        let points: Vec<Vec<f64>> = $points.iter().map(|p: &[f64; 2]| p.to_vec()).collect();
        check_case(&case, &points);
    }};
}

/// `f(x)` of one `f64` (forward mode for `f_grad`).
macro_rules! case1 {
    ($f:ident, $grad:ident, $hess:ident, $hvp:ident, $points:expr) => {{
        let value = |x: &[f64]| $f(x[0]);
        let grad = |x: &[f64]| {
            let (v, a) = $grad(x[0]);
            (v, vec![a])
        };
        let hessian = |x: &[f64]| {
            let (v, a, h) = $hess(x[0]);
            (v, vec![a], h)
        };
        let hvp = |x: &[f64], d: &[f64]| {
            let (v, a, ha) = $hvp(x[0], d[0]);
            (v, vec![a], vec![ha])
        };
        let case = Case {
            name: stringify!($f),
            value: &value,
            grad: &grad,
            hessian: &hessian,
            hvp: &hvp,
        };
        let points: Vec<Vec<f64>> = $points.iter().map(|p: &f64| vec![*p]).collect();
        check_case(&case, &points);
    }};
}

/// `f(x: &[f64])`.
macro_rules! case_slice {
    ($f:ident, $grad:ident, $hess:ident, $hvp:ident, $points:expr) => {{
        let value = |x: &[f64]| $f(x);
        let grad = |x: &[f64]| $grad(x);
        let hessian = |x: &[f64]| $hess(x);
        let hvp = |x: &[f64], d: &[f64]| $hvp(x, d);
        let case = Case {
            name: stringify!($f),
            value: &value,
            grad: &grad,
            hessian: &hessian,
            hvp: &hvp,
        };
        check_case(&case, $points);
    }};
}

// ----- polynomials -----------------------------------------------------------

#[differentiable(hessian)]
fn poly(x: f64, y: f64) -> f64 {
    x * x * x * y - 3.0 * x * y * y + 2.0 * y * y * y * y - x + 7.0
}

#[test]
fn polynomial_exact_hessian() {
    case2!(
        poly,
        poly_grad,
        poly_hessian,
        poly_hvp,
        [[1.0, 2.0], [-0.5, 0.25], [3.0, -1.5]]
    );
    // H = [[6xy, 3x² - 6y], [3x² - 6y, -6x + 24y²]], exact at these points.
    for (x, y) in [(1.0, 2.0), (-2.0, 0.5), (3.0, -1.0)] {
        let (_, _, h) = poly_hessian(x, y);
        let want = [
            6.0 * x * y,
            3.0 * x * x - 6.0 * y,
            3.0 * x * x - 6.0 * y,
            -6.0 * x + 24.0 * y * y,
        ];
        assert_eq!(h, want, "at ({x}, {y})");
    }
}

// ----- every primitive -------------------------------------------------------

macro_rules! unary_fns {
    ($($name:ident, $grad:ident, $hess:ident, $hvp:ident => |$x:ident| $body:expr;)*) => {
        $(
            #[differentiable(hessian)]
            fn $name($x: f64, y: f64) -> f64 {
                let u = $body;
                u * y + u * u
            }
        )*
        /// `(rule name, f, f_grad, f_hessian, f_hvp)` of each, as `&[f64]` closures.
        fn unary_cases() -> Vec<(&'static str, Adapted)> {
            vec![$(
                (
                    stringify!($name),
                    Adapted {
                        value: Box::new(|x: &[f64]| $name(x[0], x[1])),
                        grad: Box::new(|x: &[f64]| {
                            let (v, (a, b)) = $grad(x[0], x[1]);
                            (v, vec![a, b])
                        }),
                        hessian: Box::new(|x: &[f64]| {
                            let (v, (a, b), h) = $hess(x[0], x[1]);
                            (v, vec![a, b], h)
                        }),
                        hvp: Box::new(|x: &[f64], d: &[f64]| {
                            let (v, (a, b), (ha, hb)) = $hvp(x[0], x[1], d[0], d[1]);
                            (v, vec![a, b], vec![ha, hb])
                        }),
                    },
                ),
            )*]
        }
    };
}

type Value = Box<dyn Fn(&[f64]) -> f64>;
type Grad = Box<dyn Fn(&[f64]) -> (f64, Vec<f64>)>;
type Hess = Box<dyn Fn(&[f64]) -> (f64, Vec<f64>, Vec<f64>)>;
type Hvp = Box<dyn Fn(&[f64], &[f64]) -> (f64, Vec<f64>, Vec<f64>)>;

struct Adapted {
    value: Value,
    grad: Grad,
    hessian: Hess,
    hvp: Hvp,
}

impl Adapted {
    fn check(&self, name: &str, points: &[Vec<f64>]) {
        let case = Case {
            name,
            value: &*self.value,
            grad: &*self.grad,
            hessian: &*self.hessian,
            hvp: &*self.hvp,
        };
        check_case(&case, points);
    }
}

unary_fns! {
    neg, neg_grad, neg_hessian, neg_hvp => |x| -x;
    abs, abs_grad, abs_hessian, abs_hvp => |x| x.abs();
    signum, signum_grad, signum_hessian, signum_hvp => |x| x.signum() + x;
    sqrt, sqrt_grad, sqrt_hessian, sqrt_hvp => |x| x.sqrt();
    cbrt, cbrt_grad, cbrt_hessian, cbrt_hvp => |x| x.cbrt();
    exp, exp_grad, exp_hessian, exp_hvp => |x| x.exp();
    exp2, exp2_grad, exp2_hessian, exp2_hvp => |x| x.exp2();
    exp_m1, exp_m1_grad, exp_m1_hessian, exp_m1_hvp => |x| x.exp_m1();
    ln, ln_grad, ln_hessian, ln_hvp => |x| x.ln();
    log2, log2_grad, log2_hessian, log2_hvp => |x| x.log2();
    log10, log10_grad, log10_hessian, log10_hvp => |x| x.log10();
    ln_1p, ln_1p_grad, ln_1p_hessian, ln_1p_hvp => |x| x.ln_1p();
    sin, sin_grad, sin_hessian, sin_hvp => |x| x.sin();
    cos, cos_grad, cos_hessian, cos_hvp => |x| x.cos();
    tan, tan_grad, tan_hessian, tan_hvp => |x| x.tan();
    asin, asin_grad, asin_hessian, asin_hvp => |x| x.asin();
    acos, acos_grad, acos_hessian, acos_hvp => |x| x.acos();
    atan, atan_grad, atan_hessian, atan_hvp => |x| x.atan();
    sinh, sinh_grad, sinh_hessian, sinh_hvp => |x| x.sinh();
    cosh, cosh_grad, cosh_hessian, cosh_hvp => |x| x.cosh();
    tanh, tanh_grad, tanh_hessian, tanh_hvp => |x| x.tanh();
    asinh, asinh_grad, asinh_hessian, asinh_hvp => |x| x.asinh();
    acosh, acosh_grad, acosh_hessian, acosh_hvp => |x| x.acosh();
    atanh, atanh_grad, atanh_hessian, atanh_hvp => |x| x.atanh();
    recip, recip_grad, recip_hessian, recip_hvp => |x| x.recip();
    to_degrees, to_degrees_grad, to_degrees_hessian, to_degrees_hvp => |x| x.to_degrees();
    to_radians, to_radians_grad, to_radians_hessian, to_radians_hvp => |x| x.to_radians();
    floor, floor_grad, floor_hessian, floor_hvp => |x| x.floor() + x;
    ceil, ceil_grad, ceil_hessian, ceil_hvp => |x| x.ceil() + x;
    round, round_grad, round_hessian, round_hvp => |x| x.round() + x;
    trunc, trunc_grad, trunc_hessian, trunc_hvp => |x| x.trunc() + x;
    fract, fract_grad, fract_hessian, fract_hvp => |x| x.fract() * x;
}

/// Points inside a rule's smooth domain, away from kinks and jumps.
fn points_in(domain: (f64, f64)) -> Vec<f64> {
    [
        -2.7, -1.3, -0.62, -0.31, 0.29, 0.61, 0.93, 1.3, 1.7, 2.6, 3.4,
    ]
    .into_iter()
    .filter(|&x| x > domain.0 && x < domain.1)
    .collect()
}

#[test]
fn every_unary_rule() {
    let cases = unary_cases();
    for rule in autograd::rules::UNARY {
        // `relu` and `sigmoid` are not `f64` methods, so not in the subset.
        if matches!(rule.name, "relu" | "sigmoid") {
            continue;
        }
        let (name, adapted) = cases
            .iter()
            .find(|(name, _)| *name == rule.name)
            .unwrap_or_else(|| panic!("no hessian test for the rule `{}`", rule.name));
        let points: Vec<Vec<f64>> = points_in(rule.domain)
            .into_iter()
            .map(|x| vec![x, 0.7])
            .collect();
        assert!(points.len() >= 3, "{name}");
        adapted.check(name, &points);
    }
}

#[differentiable(hessian)]
fn powi3(x: f64, y: f64) -> f64 {
    x.powi(3) * y + y.powi(-2) + x.powi(1) * y.powi(0)
}

#[test]
fn powi() {
    case2!(
        powi3,
        powi3_grad,
        powi3_hessian,
        powi3_hvp,
        [[1.5, 0.7], [-0.4, 2.0], [2.2, -1.1]]
    );
}

macro_rules! binary_fns {
    ($($name:ident, $grad:ident, $hess:ident, $hvp:ident => |$a:ident, $b:ident| $body:expr;)*) => {
        $(
            #[differentiable(hessian)]
            fn $name($a: f64, $b: f64) -> f64 {
                let u = $body;
                u * $a + u * u
            }
        )*
        fn binary_cases() -> Vec<(&'static str, Adapted)> {
            vec![$(
                (
                    stringify!($name),
                    Adapted {
                        value: Box::new(|x: &[f64]| $name(x[0], x[1])),
                        grad: Box::new(|x: &[f64]| {
                            let (v, (a, b)) = $grad(x[0], x[1]);
                            (v, vec![a, b])
                        }),
                        hessian: Box::new(|x: &[f64]| {
                            let (v, (a, b), h) = $hess(x[0], x[1]);
                            (v, vec![a, b], h)
                        }),
                        hvp: Box::new(|x: &[f64], d: &[f64]| {
                            let (v, (a, b), (ha, hb)) = $hvp(x[0], x[1], d[0], d[1]);
                            (v, vec![a, b], vec![ha, hb])
                        }),
                    },
                ),
            )*]
        }
    };
}

binary_fns! {
    add, add_grad, add_hessian, add_hvp => |a, b| a + b;
    sub, sub_grad, sub_hessian, sub_hvp => |a, b| a - b;
    mul, mul_grad, mul_hessian, mul_hvp => |a, b| a * b;
    div, div_grad, div_hessian, div_hvp => |a, b| a / b;
    powf, powf_grad, powf_hessian, powf_hvp => |a, b| a.powf(b);
    log, log_grad, log_hessian, log_hvp => |a, b| a.log(b);
    atan2, atan2_grad, atan2_hessian, atan2_hvp => |a, b| a.atan2(b);
    hypot, hypot_grad, hypot_hessian, hypot_hvp => |a, b| a.hypot(b);
    max, max_grad, max_hessian, max_hvp => |a, b| a.max(b) * b;
    min, min_grad, min_hessian, min_hvp => |a, b| a.min(b) * a;
    rem, rem_grad, rem_hessian, rem_hvp => |a, b| a % b;
    rem_euclid, rem_euclid_grad, rem_euclid_hessian, rem_euclid_hvp => |a, b| a.rem_euclid(b);
}

#[test]
fn every_binary_rule() {
    let cases = binary_cases();
    for rule in autograd::rules::BINARY {
        let (name, adapted) = cases
            .iter()
            .find(|(name, _)| *name == rule.name)
            .unwrap_or_else(|| panic!("no hessian test for the rule `{}`", rule.name));
        let pts = points_in(rule.domain);
        let mut points = Vec::new();
        for (i, &a) in pts.iter().enumerate() {
            let b = pts[(i + 2) % pts.len()];
            // (not at the remainders' jumps, where `a / b` is an integer)
            let q = a / b;
            let jump = rule.name.starts_with("rem") && (q - q.round()).abs() < 0.05;
            if (a - b).abs() > 0.1 && (rule.name != "log" || (b - 1.0).abs() > 0.2) && !jump {
                points.push(vec![a, b]);
            }
        }
        assert!(points.len() >= 3, "{name}");
        adapted.check(name, &points);
    }
}

#[differentiable(hessian)]
fn clamp3(x: f64, lo: f64, hi: f64) -> f64 {
    let c = x.clamp(lo, hi);
    c * c * x + lo * hi
}

#[differentiable(hessian)]
fn mul_add3(a: f64, b: f64, c: f64) -> f64 {
    let m = a.mul_add(b, c);
    m * m * a
}

macro_rules! case3 {
    ($f:ident, $grad:ident, $hess:ident, $hvp:ident, $points:expr) => {{
        let value = |x: &[f64]| $f(x[0], x[1], x[2]);
        let grad = |x: &[f64]| {
            let (v, (a, b, c)) = $grad(x[0], x[1], x[2]);
            (v, vec![a, b, c])
        };
        let hessian = |x: &[f64]| {
            let (v, (a, b, c), h) = $hess(x[0], x[1], x[2]);
            (v, vec![a, b, c], h)
        };
        let hvp = |x: &[f64], d: &[f64]| {
            let (v, (a, b, c), (ha, hb, hc)) = $hvp(x[0], x[1], x[2], d[0], d[1], d[2]);
            (v, vec![a, b, c], vec![ha, hb, hc])
        };
        let case = Case {
            name: stringify!($f),
            value: &value,
            grad: &grad,
            hessian: &hessian,
            hvp: &hvp,
        };
        let points: Vec<Vec<f64>> = $points.iter().map(|p: &[f64; 3]| p.to_vec()).collect();
        check_case(&case, &points);
    }};
}

#[test]
fn every_ternary_rule() {
    for rule in autograd::rules::TERNARY {
        match rule.name {
            "clamp" => case3!(
                clamp3,
                clamp3_grad,
                clamp3_hessian,
                clamp3_hvp,
                [[0.3, -1.0, 1.0], [-2.0, -1.0, 1.0], [2.5, -1.0, 1.0]]
            ),
            "mul_add" => case3!(
                mul_add3,
                mul_add3_grad,
                mul_add3_hessian,
                mul_add3_hvp,
                [[0.3, -1.2, 1.0], [-2.0, 0.7, 1.5], [1.1, 2.0, -0.4]]
            ),
            other => panic!("no hessian test for the rule `{other}`"),
        }
    }
}

// ----- extended Rosenbrock -----------------------------------------------------

#[differentiable(hessian)]
pub fn extended_rosenbrock(x: &[f64]) -> f64 {
    let mut sum = 0.0;
    for i in 0..x.len() - 1 {
        let t = x[i + 1] - x[i] * x[i];
        let u = 1.0 - x[i];
        sum += 100.0 * t * t + u * u;
    }
    sum
}

/// The analytic Hessian of the extended Rosenbrock function.
fn rosenbrock_hessian_exact(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let mut h = vec![0.0; n * n];
    for i in 0..n - 1 {
        h[i * n + i] += 1200.0 * x[i] * x[i] - 400.0 * x[i + 1] + 2.0;
        h[i * n + i + 1] += -400.0 * x[i];
        h[(i + 1) * n + i] += -400.0 * x[i];
        h[(i + 1) * n + i + 1] += 200.0;
    }
    h
}

#[test]
fn extended_rosenbrock_2_10_100() {
    for n in [2, 10, 100] {
        let points: Vec<Vec<f64>> = vec![
            (0..n).map(|i| 0.3 + 0.1 * (i % 7) as f64).collect(),
            (0..n).map(|i| -1.2 + 0.37 * (i % 5) as f64).collect(),
        ];
        case_slice!(
            extended_rosenbrock,
            extended_rosenbrock_grad,
            extended_rosenbrock_hessian,
            extended_rosenbrock_hvp,
            &points
        );
        // Exact at integer points (every operation is exact there), and to
        // rounding elsewhere.
        let integer: Vec<f64> = (0..n).map(|i| (i % 4) as f64 - 1.0).collect();
        let (_, _, h) = extended_rosenbrock_hessian(&integer);
        assert_eq!(h, rosenbrock_hessian_exact(&integer), "n = {n}");
        for x in &points {
            let (_, _, h) = extended_rosenbrock_hessian(x);
            for (a, b) in h.iter().zip(rosenbrock_hessian_exact(x)) {
                assert!(close(*a, b, 1e-13), "n = {n}: {a} vs {b}");
            }
        }
    }
}

// ----- loops, branches, buffers ------------------------------------------------

/// A loop that carries and overwrites values (they are saved on tapes).
#[differentiable(hessian)]
fn carried(x: f64, y: f64) -> f64 {
    let mut p = 1.0;
    let mut s = 0.0;
    for _ in 0..5 {
        p = p * x + y;
        s += p.sin() * p;
    }
    s
}

/// Newton's iteration for √a in a `while` loop.
#[differentiable(hessian)]
fn newton_sqrt(a: f64, y: f64) -> f64 {
    let mut t = a;
    let mut k = 0;
    while k < 6 {
        t = 0.5 * (t + a / t);
        k += 1;
    }
    t * y * y
}

/// Branches on values, as statements and as expressions, and an early return.
#[differentiable(hessian)]
fn branches(x: f64, y: f64) -> f64 {
    let mut z = x * y;
    if x > 1.0 {
        z = z * x;
    } else if y < 0.0 {
        z = z.sin() * y;
    } else {
        z = z.exp();
    }
    let w = if z > 2.0 { z * z } else { z + y * y * y };
    if w > 100.0 {
        return w.sqrt();
    }
    w + z * x
}

#[test]
fn loops_and_branches() {
    case2!(
        carried,
        carried_grad,
        carried_hessian,
        carried_hvp,
        [[0.7, 0.2], [-0.4, 0.9], [1.1, -0.3]]
    );
    case2!(
        newton_sqrt,
        newton_sqrt_grad,
        newton_sqrt_hessian,
        newton_sqrt_hvp,
        [[2.0, 0.5], [5.0, -1.5], [0.7, 2.0]]
    );
    case2!(
        branches,
        branches_grad,
        branches_hessian,
        branches_hvp,
        [
            [1.5, 0.8],
            [0.5, -0.7],
            [0.3, 0.4],
            [0.2, 2.0],
            [3.0, 4.0],
            [1.2, 0.3]
        ]
    );
}

/// Local buffers: a `Vec` written then read, an array overwritten in a loop
/// (its stores are undone in the reverse sweep), and `to_vec` of a parameter.
#[differentiable(hessian)]
fn buffers(x: &[f64]) -> f64 {
    let n = x.len();
    let mut b = vec![0.0; n];
    for i in 0..n {
        b[i] = x[i] * x[i] + 1.0;
    }
    let mut acc = [0.0; 2];
    for i in 0..n {
        acc[i % 2] = acc[i % 2] * 0.5 + b[i] * x[i];
    }
    let c = x.to_vec();
    let mut s = 0.0;
    for i in 1..n {
        s += b[i] * b[i - 1] + c[i].sin() * c[i - 1];
    }
    s + acc[0] * acc[1]
}

#[test]
fn local_buffers() {
    let points = vec![vec![0.3, -0.7, 1.1, 0.5], vec![1.2, 0.4, -0.9, 0.8, 0.1]];
    case_slice!(buffers, buffers_grad, buffers_hessian, buffers_hvp, &points);
}

// ----- arrays, several parameters, constants, wrt --------------------------------

#[differentiable(hessian)]
fn arrays(p: [f64; 3], q: &[f64; 2], k: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        s += p[i] * p[(i + 1) % 3] * q[i % 2];
    }
    let local = [p[0] * q[1], p[2] + q[0]];
    s + local[0] * local[1] * (k as f64)
}

#[test]
fn array_parameters() {
    for (p, q) in [
        ([0.5, -1.0, 2.0], [0.3, 1.5]),
        ([1.1, 0.2, -0.7], [-2.0, 0.4]),
    ] {
        let (value, (gp, gq), h) = arrays_hessian(p, &q, 3);
        assert_eq!(value, arrays(p, &q, 3));
        let flat = |x: &[f64]| {
            let (p, q) = ([x[0], x[1], x[2]], [x[3], x[4]]);
            let (_, (gp, gq)) = arrays_grad(p, &q, 3);
            gp.iter().chain(&gq).copied().collect::<Vec<f64>>()
        };
        let x: Vec<f64> = p.iter().chain(&q).copied().collect();
        check::hessian(flat, &x, &h).assert_ok(1e-6);
        let (_, (gp2, gq2)) = arrays_grad(p, &q, 3);
        assert_eq!((gp, gq), (gp2, gq2));
        let (vp, vq) = ([0.2, -0.5, 1.0], [0.7, -0.1]);
        let (_, _, (hp, hq)) = arrays_hvp(p, &q, 3, vp, &vq);
        let v: Vec<f64> = vp.iter().chain(&vq).copied().collect();
        let hv: Vec<f64> = hp.iter().chain(&hq).copied().collect();
        for i in 0..5 {
            let want: f64 = (0..5).map(|j| h[i * 5 + j] * v[j]).sum();
            assert!(close(hv[i], want, 1e-12), "{i}: {} vs {want}", hv[i]);
        }
    }
}

/// Several active parameters of each shape and constants of several kinds.
#[differentiable(hessian, wrt(a, w))]
fn mixed(a: f64, w: &[f64], n: usize, c: f64, data: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        let r = w[i] * data[i] - a * c;
        s += r * r * w[i];
    }
    s + a.exp() * w[0]
}

/// `wrt` after `hessian` and before it.
#[differentiable(wrt(x), hessian)]
fn wrt_first(x: f64, y: f64) -> f64 {
    x * x * x * y.sin()
}

#[test]
fn several_parameters_constants_and_wrt() {
    let (data, c) = ([0.5, -1.5, 2.0], 0.75);
    for (a, w) in [(0.3, [1.0, -0.5, 0.25]), (-0.8, [0.2, 0.9, -1.1])] {
        let (value, (ga, gw), h) = mixed_hessian(a, &w, 3, c, &data);
        assert_eq!(value, mixed(a, &w, 3, c, &data));
        let (_, (ga2, gw2)) = mixed_grad(a, &w, 3, c, &data);
        assert!(close(ga, ga2, 1e-13));
        assert_eq!(gw.len(), 3);
        for (x, y) in gw.iter().zip(&gw2) {
            assert!(close(*x, *y, 1e-13));
        }
        assert_eq!(h.len(), 16);
        let flat = |x: &[f64]| {
            let (_, (ga, gw)) = mixed_grad(x[0], &x[1..], 3, c, &data);
            std::iter::once(ga).chain(gw).collect::<Vec<f64>>()
        };
        let x = [a, w[0], w[1], w[2]];
        check::hessian(flat, &x, &h).assert_ok(1e-6);
        let (va, vw) = (0.4, [1.0, -2.0, 0.5]);
        let (_, _, (ha, hw)) = mixed_hvp(a, &w, 3, c, &data, va, &vw);
        let v = [va, vw[0], vw[1], vw[2]];
        let hv: Vec<f64> = std::iter::once(ha).chain(hw).collect();
        for i in 0..4 {
            let want: f64 = (0..4).map(|j| h[i * 4 + j] * v[j]).sum();
            assert!(close(hv[i], want, 1e-12));
        }
    }
    let (value, g, h) = wrt_first_hessian(1.5, 0.5);
    assert_eq!(value, wrt_first(1.5, 0.5));
    assert_eq!(g, wrt_first_grad(1.5, 0.5).1);
    assert!(close(h[0], 6.0 * 1.5 * 0.5_f64.sin(), 1e-14));
    let (_, _, hv) = wrt_first_hvp(1.5, 0.5, 2.0);
    assert!(close(hv, 2.0 * h[0], 1e-14));
}

#[test]
#[should_panic(expected = "the direction `v_w` has length 2")]
fn a_direction_of_the_wrong_length_panics() {
    mixed_hvp(
        0.1,
        &[1.0, 2.0, 3.0],
        3,
        1.0,
        &[1.0, 1.0, 1.0],
        1.0,
        &[1.0, 2.0],
    );
}

// ----- calls -----------------------------------------------------------------------

#[differentiable(hessian)]
fn inner(x: f64, y: f64) -> f64 {
    x.sin() * y * y + x * y
}

#[differentiable(hessian)]
fn inner_slice(w: &[f64], s: f64) -> f64 {
    w[0] * w[1] * s + w[1].exp()
}

/// Calls at the top level (value and partials at once), in a loop (the
/// callee's second-order adjoint in the reverse sweep), with a constant
/// argument, and with a subslice of a parameter.
#[differentiable(hessian)]
fn outer(x: f64, w: &[f64]) -> f64 {
    let a = inner(x, w[0]);
    let mut s = a * a;
    for i in 0..w.len() {
        s += inner(w[i], x) * 0.5 + inner(2.0, w[i]);
    }
    s + inner_slice(&w[1..], x) + inner_slice(w, 1.5)
}

#[test]
fn calls_between_hessian_functions() {
    case2!(
        inner,
        inner_grad,
        inner_hessian,
        inner_hvp,
        [[0.4, 1.2], [-1.0, 0.3]]
    );
    for (x, w) in [
        (0.4, vec![0.3, -0.8, 1.1]),
        (-1.2, vec![0.9, 0.2, -0.4, 0.6]),
    ] {
        let n = w.len() + 1;
        let (value, (gx, gw), h) = outer_hessian(x, &w);
        assert_eq!(value, outer(x, &w));
        let (_, (gx2, gw2)) = outer_grad(x, &w);
        assert!(close(gx, gx2, 1e-12));
        for (a, b) in gw.iter().zip(&gw2) {
            assert!(close(*a, *b, 1e-12));
        }
        let flat = |p: &[f64]| {
            let (_, (gx, gw)) = outer_grad(p[0], &p[1..]);
            std::iter::once(gx).chain(gw).collect::<Vec<f64>>()
        };
        let point: Vec<f64> = std::iter::once(x).chain(w.iter().copied()).collect();
        check::hessian(flat, &point, &h).assert_ok(1e-6);
        for i in 0..n {
            for j in 0..i {
                assert!(close(h[i * n + j], h[j * n + i], 1e-12));
            }
        }
    }
}

// ----- methods ---------------------------------------------------------------------

struct Spring {
    k: f64,
    rest: f64,
}

impl Spring {
    #[differentiable(hessian)]
    fn energy(&self, x: f64, y: f64) -> f64 {
        let d = (x * x + y * y).sqrt() - self.rest;
        0.5 * self.k * d * d
    }

    #[differentiable(hessian)]
    fn two(&self, x: f64, y: f64) -> f64 {
        self.energy(x, y) + self.energy(y, 2.0 * x)
    }
}

#[test]
fn methods() {
    let s = Spring { k: 3.0, rest: 1.5 };
    let energy = |x: f64, y: f64| s.energy(x, y);
    let energy_grad = |x: f64, y: f64| s.energy_grad(x, y);
    let energy_hessian = |x: f64, y: f64| s.energy_hessian(x, y);
    let energy_hvp = |x: f64, y: f64, a: f64, b: f64| s.energy_hvp(x, y, a, b);
    case2!(
        energy,
        energy_grad,
        energy_hessian,
        energy_hvp,
        [[1.0, 2.0], [-0.5, 0.3], [2.0, -1.0]]
    );
    let two = |x: f64, y: f64| s.two(x, y);
    let two_grad = |x: f64, y: f64| s.two_grad(x, y);
    let two_hessian = |x: f64, y: f64| s.two_hessian(x, y);
    let two_hvp = |x: f64, y: f64, a: f64, b: f64| s.two_hvp(x, y, a, b);
    case2!(
        two,
        two_grad,
        two_hessian,
        two_hvp,
        [[1.0, 2.0], [-0.5, 0.3]]
    );
}

// ----- forward mode (one f64 parameter) --------------------------------------------

#[differentiable(hessian)]
fn one(x: f64) -> f64 {
    let mut t = x;
    for _ in 0..3 {
        t = t.sin() + x * t;
    }
    t * x.exp()
}

/// Forward mode with a local array, a cell that starts from a constant, a
/// branch and a call.
#[differentiable(hessian)]
fn one_more(x: f64) -> f64 {
    let mut buf = [0.0; 3];
    for i in 0..3 {
        buf[i] = x * (i as f64 + 1.0);
    }
    let mut s = 0.0;
    for i in 0..3 {
        if buf[i] > 1.0 {
            s += buf[i].ln() * x;
        } else {
            s += inner(buf[i], x);
        }
    }
    let copy = buf.to_vec();
    s * x + copy[2] * copy[1]
}

#[test]
fn forward_mode_functions() {
    case1!(one, one_grad, one_hessian, one_hvp, [0.3, -0.8, 1.4]);
    case1!(
        one_more,
        one_more_grad,
        one_more_hessian,
        one_more_hvp,
        [0.3, 0.45, 0.8, 1.4, -0.6]
    );
}

// ----- no allocation beyond the returned buffers -----------------------------------

#[test]
fn hessian_returns_an_n_by_n_buffer() {
    let x = [0.5, 1.5, -0.5];
    let (_, _, h) = extended_rosenbrock_hessian(&x);
    assert_eq!(h.len(), 9);
    // The unit directions lived in the buffer's spare capacity.
    assert_eq!(h.capacity(), 12);
}

// ----- values that read varied floats without depending on them --------------------

/// A step function, a cast to an integer and a condition of varied values:
/// computed on values, as in `f`.
#[differentiable(hessian)]
fn steps_and_casts(x: f64, y: f64) -> f64 {
    let k = (x * 2.0).floor() as usize;
    let f = x.floor();
    let mut s = 0.0;
    for i in 0..k {
        s += y * (i as f64) * x * x;
    }
    let g = if (y * 3.0) as i32 > 1 { y * y } else { y };
    s + f * y * y + x.signum() * x * x * g
}

/// Returns a value that does not depend on the parameters (a step).
#[differentiable(hessian)]
fn flat(x: f64) -> f64 {
    x.floor()
}

#[test]
fn steps_casts_and_flat_functions() {
    case2!(
        steps_and_casts,
        steps_and_casts_grad,
        steps_and_casts_hessian,
        steps_and_casts_hvp,
        [[1.7, 0.2], [2.3, 0.9], [-0.7, 1.3]]
    );
    assert_eq!(flat_hessian(2.5), (2.0, 0.0, vec![0.0]));
    assert_eq!(flat_hvp(2.5, 1.0), (2.0, 0.0, 0.0));
}

// ----- idiomatic Rust --------------------------------------------------------------

/// Iterator chains, a closure, `match`, destructuring and `sin_cos`.
#[differentiable(hessian)]
fn idiomatic(w: &[f64], x: f64) -> f64 {
    let sq = |t: f64| t * t;
    let dot: f64 = w.iter().zip(w.iter().skip(1)).map(|(a, b)| a * b).sum();
    let norm: f64 = w.iter().map(|&v| sq(v)).sum();
    let (s, c) = x.sin_cos();
    let scale = match w.len() {
        0 => 1.0,
        1 | 2 => 2.0,
        _ => 0.5,
    };
    let prod = w.iter().fold(1.0, |acc, &v| acc * (1.0 + v * x));
    scale * dot * s + norm * c + prod
}

#[test]
fn idiomatic_rust() {
    for (w, x) in [(vec![0.3, -0.8, 1.1], 0.4), (vec![0.9, 0.2], -1.2)] {
        let n = w.len() + 1;
        let (value, (gw, gx), h) = idiomatic_hessian(&w, x);
        assert_eq!(value, idiomatic(&w, x));
        let (_, (gw2, gx2)) = idiomatic_grad(&w, x);
        assert!(close(gx, gx2, 1e-12));
        for (a, b) in gw.iter().zip(&gw2) {
            assert!(close(*a, *b, 1e-12));
        }
        let flat = |p: &[f64]| {
            let (_, (gw, gx)) = idiomatic_grad(&p[..n - 1], p[n - 1]);
            gw.into_iter()
                .chain(std::iter::once(gx))
                .collect::<Vec<f64>>()
        };
        let point: Vec<f64> = w.iter().copied().chain(std::iter::once(x)).collect();
        check::hessian(flat, &point, &h).assert_ok(1e-6);
        let v = direction(n);
        let (_, _, (hw, hx)) = idiomatic_hvp(&w, x, &v[..n - 1], v[n - 1]);
        let hv: Vec<f64> = hw.into_iter().chain(std::iter::once(hx)).collect();
        for i in 0..n {
            let want: f64 = (0..n).map(|j| h[i * n + j] * v[j]).sum();
            assert!(close(hv[i], want, 1e-12));
        }
    }
}

// ----- calls with local arrays ----------------------------------------------------

#[differentiable(hessian)]
fn norm2(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * v[i] * v[i].cos();
    }
    s
}

#[differentiable(hessian)]
fn pair(p: [f64; 2], k: f64) -> f64 {
    p[0] * p[1] * k + p[0].exp()
}

#[differentiable(hessian)]
fn dot2(a: &[f64], b: &[f64]) -> f64 {
    a[0] * b[0] + a[1] * b[1] * a[1]
}

/// Local buffers (whole, subslices, array literals) and a parameter passed
/// twice, at the top level and in a loop.
#[differentiable(hessian)]
fn array_calls(x: f64, w: &[f64]) -> f64 {
    let mut buf = vec![0.0; w.len()];
    for i in 0..w.len() {
        buf[i] = w[i] * x;
    }
    let mut s = norm2(&buf) + norm2(&buf[1..]) + pair([x, w[0]], 0.5);
    for i in 0..w.len() - 1 {
        s += dot2(&buf[i..i + 2], &w[i..i + 2]) * 0.25 + pair([w[i], x * w[i + 1]], x);
    }
    s + dot2(w, w) + norm2(&[x, w[1] * w[1]])
}

/// One `f64` input passing a local array (the reverse sweep, not forward).
#[differentiable(hessian)]
fn one_array_call(x: f64) -> f64 {
    let a = [x, x * x, x.sin()];
    norm2(&a) * x
}

#[test]
fn calls_with_local_arrays() {
    for (x, w) in [
        (0.4, vec![0.3, -0.8, 1.1]),
        (-1.2, vec![0.9, 0.2, -0.4, 0.6]),
    ] {
        let n = w.len() + 1;
        let (value, (gx, gw), h) = array_calls_hessian(x, &w);
        assert_eq!(value, array_calls(x, &w));
        let (_, (gx2, gw2)) = array_calls_grad(x, &w);
        assert!(close(gx, gx2, 1e-12), "{gx} vs {gx2}");
        for (a, b) in gw.iter().zip(&gw2) {
            assert!(close(*a, *b, 1e-12), "{a} vs {b}");
        }
        let flat = |p: &[f64]| {
            let (_, (gx, gw)) = array_calls_grad(p[0], &p[1..]);
            std::iter::once(gx).chain(gw).collect::<Vec<f64>>()
        };
        let point: Vec<f64> = std::iter::once(x).chain(w.iter().copied()).collect();
        check::hessian(flat, &point, &h).assert_ok(1e-6);
        let v = direction(n);
        let (_, _, (hx, hw)) = array_calls_hvp(x, &w, v[0], &v[1..]);
        let hv: Vec<f64> = std::iter::once(hx).chain(hw).collect();
        for i in 0..n {
            let want: f64 = (0..n).map(|j| h[i * n + j] * v[j]).sum();
            assert!(close(hv[i], want, 1e-12));
        }
    }
    case1!(
        one_array_call,
        one_array_call_grad,
        one_array_call_hessian,
        one_array_call_hvp,
        [0.3, -0.8, 1.4]
    );
}

// ----- constant data to callees ------------------------------------------------------

/// Differentiates both arrays.
#[differentiable(hessian)]
fn weighted(w: &[f64], data: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        s += w[i] * w[i] * data[i] + data[i] * w[i].sin();
    }
    s
}

/// Differentiates only `w`.
#[differentiable(hessian, wrt(w))]
fn weighted_wrt(w: &[f64], data: [f64; 3]) -> f64 {
    w[0] * data[0] * w[1] + w[2].exp() * data[2]
}

/// Constant data (a parameter outside `wrt`, a literal, a local constant
/// buffer) passed to parameters the callees differentiate or not.
#[differentiable(hessian, wrt(w))]
fn data_to_callees(w: &[f64], data: &[f64]) -> f64 {
    let fixed = [0.5, -1.0, 2.0];
    weighted(w, data)
        + weighted(&data[..3], w)
        + weighted_wrt(w, fixed)
        + weighted(&[1.0, 2.0, 3.0], &w[..3])
}

#[test]
fn constant_data_to_callees() {
    let data = [0.7, -0.3, 1.2, 0.4];
    for w in [[0.3, -0.8, 1.1, 0.5], [0.9, 0.2, -0.4, 0.6]] {
        let (value, g, h) = data_to_callees_hessian(&w, &data);
        assert_eq!(value, data_to_callees(&w, &data));
        let (_, g2) = data_to_callees_grad(&w, &data);
        for (a, b) in g.iter().zip(&g2) {
            assert!(close(*a, *b, 1e-12));
        }
        check::hessian(|p| data_to_callees_grad(p, &data).1, &w, &h).assert_ok(1e-6);
    }
}

// ----- parameter arrays written in the body, value-ifs in conditions ---------------

/// A `mut` parameter array outside `wrt` written with varied values, and
/// conditions holding value-`if`s over a varied local array.
#[differentiable(hessian, wrt(m))]
fn written_param(m: f64, mut w: [f64; 3]) -> f64 {
    w[0] = m * m;
    w[1] += m.sin() * w[2];
    let local = [m, m * 2.0, w[0]];
    let mut s = 0.0;
    for i in 0..3 {
        if (if local[i] > 0.5 { local[i] } else { m }) > 0.1 {
            s += w[i] * local[i];
        } else {
            s -= w[i];
        }
    }
    s * m
}

#[test]
fn written_parameter_arrays_and_value_ifs_in_conditions() {
    let w = [0.5, -1.0, 2.0];
    case1!(
        written_param_fn,
        written_param_grad_fn,
        written_param_hessian_fn,
        written_param_hvp_fn,
        [0.3, 0.8, -0.6]
    );
    fn written_param_fn(m: f64) -> f64 {
        written_param(m, [0.5, -1.0, 2.0])
    }
    fn written_param_grad_fn(m: f64) -> (f64, f64) {
        written_param_grad(m, [0.5, -1.0, 2.0])
    }
    fn written_param_hessian_fn(m: f64) -> (f64, f64, Vec<f64>) {
        written_param_hessian(m, [0.5, -1.0, 2.0])
    }
    fn written_param_hvp_fn(m: f64, v: f64) -> (f64, f64, f64) {
        written_param_hvp(m, [0.5, -1.0, 2.0], v)
    }
    let _ = w;
}

/// A differentiated `mut` parameter array written in the body.
#[differentiable(hessian)]
fn written_active(x: f64, mut w: [f64; 2]) -> f64 {
    w[0] = x * w[1];
    w[1] += w[0].sin();
    w[0] * w[1] * x
}

#[test]
fn written_differentiated_parameter_array() {
    for (x, w) in [(0.4, [1.0, 2.0]), (-0.7, [0.3, -1.1])] {
        let (value, (gx, gw), h) = written_active_hessian(x, w);
        assert_eq!(value, written_active(x, w));
        let (_, (gx2, gw2)) = written_active_grad(x, w);
        assert!(close(gx, gx2, 1e-12));
        for (a, b) in gw.iter().zip(&gw2) {
            assert!(close(*a, *b, 1e-12));
        }
        let flat = |p: &[f64]| {
            let (_, (gx, gw)) = written_active_grad(p[0], [p[1], p[2]]);
            vec![gx, gw[0], gw[1]]
        };
        check::hessian(flat, &[x, w[0], w[1]], &h).assert_ok(1e-6);
    }
}

/// No differentiated parameter: an empty Hessian.
#[differentiable(hessian)]
fn constant_only(n: usize) -> f64 {
    (n as f64).sqrt()
}

#[test]
fn no_active_parameter() {
    let (value, (), h) = constant_only_hessian(4);
    assert_eq!((value, h), (2.0, vec![]));
    assert_eq!(constant_only_hvp(9), (3.0, (), ()));
}

// ----- constants of any type to callees -----------------------------------------------

const N: usize = 3;
const SCALE: f64 = 2.0;

#[differentiable(hessian)]
fn with_count(x: f64, n: usize, s: f64) -> f64 {
    x * x * (n as f64) * s + x.sin() * s * s
}

/// An integer constant and a float constant the macro cannot tell apart,
/// and literals: the callee's parameter types decide.
#[differentiable(hessian)]
fn constants_to_callee(x: f64, y: f64) -> f64 {
    with_count(x, N, SCALE) + with_count(x * y, 2, 1.5) + with_count(2.0, N, y)
}

#[test]
fn constants_of_any_type_to_callees() {
    case2!(
        constants_to_callee,
        constants_to_callee_grad,
        constants_to_callee_hessian,
        constants_to_callee_hvp,
        [[0.4, 1.3], [-1.1, 0.7]]
    );
}

// ----- through calls to vector-valued functions ------------------------------
//
// A vector-valued function needs no attribute to be called by a `hessian`
// function (`hessian` on it stays a compile error): it always has the
// hidden second-order adjoint its callers need, the second-order adjoint
// of `dᵀ f` with `d` differentiated too.

/// Residuals of `a·exp(b·t)` at fixed data.
#[differentiable(wrt(p))]
fn exp_residuals(p: &[f64], t: &[f64], y: &[f64]) -> Vec<f64> {
    let mut r = vec![0.0; t.len()];
    for i in 0..t.len() {
        r[i] = p[0] * (p[1] * t[i]).exp() - y[i];
    }
    r
}

/// ½‖r‖² (a least-squares cost) from the residuals.
#[differentiable(wrt(p), hessian)]
fn least_squares(p: &[f64], t: &[f64], y: &[f64]) -> f64 {
    let r = exp_residuals(p, t, y);
    let mut s = 0.0;
    for i in 0..r.len() {
        s += 0.5 * r[i] * r[i];
    }
    s
}

/// The exact Hessian of ½‖r‖²: `JᵀJ + Σ r_i ∇²r_i`.
fn least_squares_hessian_exact(p: &[f64], t: &[f64], y: &[f64]) -> Vec<f64> {
    let (a, b) = (p[0], p[1]);
    let mut h = vec![0.0; 4];
    for i in 0..t.len() {
        let e = (b * t[i]).exp();
        let r = a * e - y[i];
        let j = [e, a * t[i] * e];
        let second = [0.0, t[i] * e, t[i] * e, a * t[i] * t[i] * e];
        for k in 0..2 {
            for l in 0..2 {
                h[2 * k + l] += j[k] * j[l] + r * second[2 * k + l];
            }
        }
    }
    h
}

#[test]
fn through_a_vector_valued_callee() {
    let (t, y) = ([0.0, 0.5, 1.0, 1.5, 2.0], [1.0, 1.7, 2.6, 4.4, 7.0]);
    let value = |p: &[f64]| least_squares(p, &t, &y);
    let grad = |p: &[f64]| least_squares_grad(p, &t, &y);
    let hessian = |p: &[f64]| least_squares_hessian(p, &t, &y);
    let hvp = |p: &[f64], v: &[f64]| least_squares_hvp(p, &t, &y, v);
    let case = Case {
        name: "least_squares",
        value: &value,
        grad: &grad,
        hessian: &hessian,
        hvp: &hvp,
    };
    let points = [vec![1.0, 0.9], vec![0.5, -0.3], vec![2.0, 0.1]];
    check_case(&case, &points);
    for p in &points {
        let (_, _, h) = least_squares_hessian(p, &t, &y);
        let exact = least_squares_hessian_exact(p, &t, &y);
        for (a, b) in h.iter().zip(&exact) {
            assert!(close(*a, *b, 1e-12), "{h:?} vs {exact:?}");
        }
    }
}

/// A field of a scalar and an array, with a branch and a constant.
#[differentiable]
fn field(x: f64, w: [f64; 2], scale: f64) -> [f64; 3] {
    let s = if w[0] > 0.0 { w[1].sin() } else { w[1].cos() };
    [x * w[0] * scale, s + x, x * x]
}

/// Calls with a varying scalar, a constant, a literal array, a local buffer
/// of values that vary, and a parameter array's subslice; the results
/// indexed, iterated, typed and copied.
#[differentiable(hessian)]
fn calls_fields(x: f64, q: &[f64]) -> f64 {
    let a = field(x, [q[0], q[1]], 2.0);
    let mut buf = [0.0; 2];
    buf[0] = x * q[2];
    buf[1] = q[1].exp();
    let b: [f64; 3] = field(q[0], buf, 0.5);
    let c = field(1.5, [0.5, -1.0], 3.0);
    let r = exp_residuals(&q[1..3], &[0.0, 1.0], &[0.5, 0.5]);
    let mut total = 0.0;
    for &e in b.iter() {
        total += e * a[1];
    }
    a[0] * a[2] + total + c[0] * x + r[0] * r[1]
}

#[test]
fn through_vector_calls_of_every_kind_of_argument() {
    let value = |z: &[f64]| calls_fields(z[0], &z[1..]);
    let grad = |z: &[f64]| {
        let (v, (dx, mut dq)) = calls_fields_grad(z[0], &z[1..]);
        dq.insert(0, dx);
        (v, dq)
    };
    let hessian = |z: &[f64]| {
        let (v, (dx, mut dq), h) = calls_fields_hessian(z[0], &z[1..]);
        dq.insert(0, dx);
        (v, dq, h)
    };
    let hvp = |z: &[f64], v: &[f64]| {
        let (value, (dx, mut dq), (hx, mut hq)) = calls_fields_hvp(z[0], &z[1..], v[0], &v[1..]);
        dq.insert(0, dx);
        hq.insert(0, hx);
        (value, dq, hq)
    };
    let case = Case {
        name: "calls_fields",
        value: &value,
        grad: &grad,
        hessian: &hessian,
        hvp: &hvp,
    };
    check_case(
        &case,
        &[vec![0.7, 0.4, -0.3, 1.1], vec![-1.2, -0.5, 0.8, 0.2]],
    );
}

/// A vector-valued function of one `f64` (its own Jacobian is by columns).
#[differentiable]
fn curve(s: f64) -> [f64; 2] {
    [s.cos(), s.sin() * s]
}

/// One `f64` input: the caller's second-order body is forward over reverse
/// (a vector call is not forward over forward).
#[differentiable(hessian)]
fn curve_energy(s: f64) -> f64 {
    let p = curve(s);
    p[0] * p[0] + 3.0 * p[1] * p[1]
}

#[test]
fn a_function_of_one_float_through_a_vector_call() {
    case1!(
        curve_energy,
        curve_energy_grad,
        curve_energy_hessian,
        curve_energy_hvp,
        [0.3, -1.7, 2.5]
    );
    // exact: f = cos² s + 3 s² sin² s
    for s in [0.3_f64, -1.7, 2.5] {
        let (c, n) = (s.cos(), s.sin());
        let second =
            -2.0 * (c * c - n * n) + 6.0 * (n * n + 4.0 * s * n * c + s * s * (c * c - n * n));
        let (_, _, h) = curve_energy_hessian(s);
        assert!(close(h[0], second, 1e-12), "{} vs {second}", h[0]);
    }
}

// Random programs (`RANDOM_PROGRAMS_HESSIAN=1`, seed 289961125, 5 of 800):
// a function of one `f64` whose second-order body (forward over forward)
// calls a `hessian` function with an argument whose tangent is a constant
// partial (`tmp + 3.0`: `1.0`, an `f64`) did not compile: the call's
// guarded tangent term took a `Dual` partial and an `f64` tangent.
#[differentiable(hessian)]
fn wave(t: f64) -> f64 {
    2.25 * t.cos()
}

#[differentiable(hessian)]
#[allow(clippy::let_and_return)]
fn branch_calling(t: f64) -> f64 {
    let d = if t < 1.0 {
        t / 1.5
    } else {
        let w = wave(t + 3.0);
        w
    };
    1.0 + d - t
}

#[test]
fn a_call_with_a_constant_partial_in_forward_over_forward() {
    for t in [2.0, 0.5] {
        let (value, gradient, hessian) = branch_calling_hessian(t);
        assert_eq!(value, branch_calling(t));
        let (g, h) = if t < 1.0 {
            (1.0 / 1.5 - 1.0, 0.0)
        } else {
            (-2.25 * (t + 3.0).sin() - 1.0, -2.25 * (t + 3.0).cos())
        };
        assert!((gradient - g).abs() < 1e-12, "{gradient} vs {g}");
        assert!((hessian[0] - h).abs() < 1e-12, "{} vs {h}", hessian[0]);
    }
}
