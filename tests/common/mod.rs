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
