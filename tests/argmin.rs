//! The argmin examples (feature `argmin`), each run to convergence:
//! `cargo test --all-features --test argmin`.

#![cfg(feature = "argmin")]

#[allow(dead_code)]
#[path = "../examples/argmin_lbfgs.rs"]
mod lbfgs;

#[test]
fn lbfgs_minimises_the_extended_rosenbrock_function_in_1000_dimensions() {
    let r = lbfgs::run(1_000, false);
    assert!(r.initial_value > 1e4);
    assert!(
        r.converged,
        "L-BFGS stopped after {} iterations without converging",
        r.iterations
    );
    assert!(r.value < 1e-20, "f = {}", r.value);
    assert!(r.max_error < 1e-9, "max |x_i - 1| = {}", r.max_error);
}

#[allow(dead_code)]
#[path = "../examples/argmin_gauss_newton.rs"]
mod gauss_newton;

#[test]
fn gauss_newton_fits_an_exponential_with_the_generated_jacobian() {
    let r = gauss_newton::run(false);
    assert!(r.iterations < 20, "{} iterations", r.iterations);
    assert!((r.params[0] - 2.5).abs() < 0.01 && (r.params[1] + 1.3).abs() < 0.01);
    assert!(r.final_norm < 0.05 && r.initial_norm > 1.0);
    // The least-squares optimum: the gradient Jᵀr vanishes there.
    let (t, y) = gauss_newton::data();
    let (res, jacobian) = gauss_newton::residuals_jacobian(&r.params, &t, &y);
    for j in 0..2 {
        let g: f64 = (0..res.len()).map(|i| res[i] * jacobian[2 * i + j]).sum();
        assert!(g.abs() < 1e-9, "gradient component {j} = {g}");
    }
}

#[allow(dead_code)]
#[path = "../examples/argmin_trust_region.rs"]
mod trust_region;

#[test]
fn a_trust_region_method_with_generated_hessian_vector_products() {
    let r = trust_region::run(1_000, false);
    assert!(r.converged, "stopped after {} iterations", r.iterations);
    assert!(r.iterations < 100, "{} iterations", r.iterations);
    assert!(r.value < 1e-18, "f = {}", r.value);
    assert!(r.max_error < 1e-8, "max |x_i - 1| = {}", r.max_error);
}
