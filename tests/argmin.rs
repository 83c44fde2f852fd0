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
