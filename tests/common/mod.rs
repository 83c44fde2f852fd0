//! Helpers shared by the integration tests.
#![allow(dead_code)]

/// Central finite difference of `f` along coordinate `i` of `x`.
pub fn central_difference(f: impl Fn(&[f64]) -> f64, x: &[f64], i: usize) -> f64 {
    let h = 1e-6 * x[i].abs().max(1.0);
    let mut plus = x.to_vec();
    let mut minus = x.to_vec();
    plus[i] += h;
    minus[i] -= h;
    (f(&plus) - f(&minus)) / (2.0 * h)
}

/// Asserts `gradient` matches central differences of `f` at `x`.
#[track_caller]
pub fn assert_gradient(f: impl Fn(&[f64]) -> f64, x: &[f64], gradient: &[f64]) {
    assert_eq!(x.len(), gradient.len());
    for (i, &analytic) in gradient.iter().enumerate() {
        let numeric = central_difference(&f, x, i);
        let tolerance = 1e-6 * (1.0 + numeric.abs());
        assert!(
            (numeric - analytic).abs() <= tolerance,
            "d/dx{i} at {x:?}: macro gives {analytic}, finite differences give {numeric}"
        );
    }
}

/// Checks, at every point, `grad` against `f`'s value and central finite
/// differences, and that `adjoint` *adds* `d_out` times the same gradient
/// into a buffer that is not zero.
#[track_caller]
pub fn check_gradient_and_adjoint<const N: usize>(
    f: impl Fn(&[f64]) -> f64,
    grad: impl Fn(&[f64]) -> (f64, Vec<f64>),
    adjoint: impl Fn(&[f64], f64, &mut [f64]) -> f64,
    points: &[[f64; N]],
) {
    for x in points {
        let (value, gradient) = grad(x);
        assert_eq!(value, f(x), "value at {x:?}");
        assert_gradient(&f, x, &gradient);
        let mut buffer = vec![0.5; x.len()];
        assert_eq!(adjoint(x, -2.0, &mut buffer), value);
        for (i, (b, g)) in buffer.iter().zip(&gradient).enumerate() {
            assert!(
                (b - (0.5 - 2.0 * g)).abs() <= 1e-12 * (1.0 + g.abs()),
                "adjoint d/dx{i} at {x:?}: buffer {b}, gradient {g}"
            );
        }
    }
}
