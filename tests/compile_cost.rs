//! The function `benches/compile_cost.sh` measures the compile-time cost of
//! (`benches/compile_cost/big.rs`): it must keep compiling, and its gradient
//! must match central finite differences.

#[path = "../benches/compile_cost/big.rs"]
mod big;

use autograd::check;
use big::{landing_cost, landing_cost_grad};

const N_PARAMS: usize = 9;
const N_STEPS: usize = 40;
const DT: f64 = 0.1;
const WIND: [f64; 3] = [1.5, -0.5, 2.0];

/// Splits one flat vector into `landing_cost`'s active arguments.
fn split(z: &[f64]) -> (&[f64], &[f64], [f64; 4]) {
    let (params, rest) = z.split_at(N_PARAMS);
    let (controls, target) = rest.split_at(2 * N_STEPS);
    (
        params,
        controls,
        [target[0], target[1], target[2], target[3]],
    )
}

/// A point away from every kink: the vehicle stays airborne with fuel left,
/// no table lookup sits on a breakpoint.
fn point() -> Vec<f64> {
    let mut z = vec![0.3, 0.8, -0.2, 0.5, 0.1, 0.4, -0.3, 0.2, 0.7];
    for k in 0..N_STEPS {
        z.push(0.2 + 0.3 * (0.37 * k as f64).sin());
        z.push(0.1 * (0.23 * k as f64).cos());
    }
    z.extend([28.0, 95.0, -4.0, -14.0]);
    z
}

#[test]
fn value_is_the_primal_and_finite() {
    let z = point();
    let (params, controls, target) = split(&z);
    let value = landing_cost(params, controls, &WIND, target, DT);
    assert!(value.is_finite() && value > 1.0, "{value}");
    let (graded, _) = landing_cost_grad(params, controls, &WIND, target, DT);
    assert_eq!(graded.to_bits(), value.to_bits());
}

#[test]
fn gradient_matches_finite_differences() {
    let report = check::gradient_of(
        |z| {
            let (params, controls, target) = split(z);
            let (value, (d_params, d_controls, d_target)) =
                landing_cost_grad(params, controls, &WIND, target, DT);
            let mut gradient = d_params;
            gradient.extend(d_controls);
            gradient.extend(d_target);
            (value, gradient)
        },
        &point(),
    );
    println!("{report}");
    report.assert_ok(1e-6);
}
