//! Every example's own `run` — the whole computation `main` prints — run
//! here, asserting the result the example states.

#[allow(dead_code)]
#[path = "../examples/xor.rs"]
mod xor;

#[allow(dead_code)]
#[path = "../examples/micrograd.rs"]
mod micrograd;

#[allow(dead_code)]
#[path = "../examples/curve_fit.rs"]
mod curve_fit;

#[allow(dead_code)]
#[path = "../examples/rosenbrock.rs"]
mod rosenbrock;

#[allow(dead_code)]
#[path = "../examples/dynamic.rs"]
mod dynamic;

#[test]
fn xor_predictions_are_within_a_tenth_of_their_targets() {
    let r = xor::run(false);
    assert_eq!(r.predictions.len(), 4);
    for (i, (p, t)) in r.predictions.iter().zip(xor::TARGETS).enumerate() {
        assert!(
            (p - t).abs() < 0.1,
            "input {i}: predicted {p}, target {t} (after {} steps)",
            r.steps
        );
    }
    assert!(r.max_error < 0.1);
}

#[test]
fn micrograd_loss_falls_below_a_hundredth() {
    let r = micrograd::run(false);
    assert!(
        r.loss < 0.01,
        "sum of squared errors {} after {} steps (from {})",
        r.loss,
        r.steps,
        r.initial_loss
    );
    // And every prediction has the sign of its target.
    for (p, t) in r.predictions.iter().zip(micrograd::TARGETS) {
        assert!(p * t > 0.0, "predicted {p} for target {t}");
    }
}

#[test]
fn curve_fit_loss_falls_at_least_a_hundredfold() {
    let r = curve_fit::run(false);
    assert!(
        r.initial_loss >= 100.0 * r.loss,
        "mse {} → {} is only {}× lower",
        r.initial_loss,
        r.loss,
        r.reduction
    );
}

#[test]
fn rosenbrock_reaches_within_1e_6_of_the_minimum() {
    let r = rosenbrock::run(false);
    assert_eq!(r.x.len(), 10);
    for (i, x) in r.x.iter().enumerate() {
        assert!((x - 1.0).abs() <= 1e-6, "x[{i}] = {x}, f = {}", r.value);
    }
    assert!(r.max_error <= 1e-6);
    assert!(r.first_within.is_some());
}

#[test]
fn dynamic_default_expression_matches_finite_differences() {
    let r = dynamic::run(false);
    assert!(r.passed(), "{}", r.report);
    assert_eq!(r.expression, dynamic::DEFAULT_EXPRESSION);
    // sin(x·y) + x²/y − e^(−x) at (0.5, 1.5), by hand.
    let (x, y) = (0.5_f64, 1.5_f64);
    let dx = y * (x * y).cos() + 2.0 * x / y + (-x).exp();
    let dy = x * (x * y).cos() - x * x / (y * y);
    assert_eq!(
        r.variables,
        vec![("x".to_string(), x), ("y".to_string(), y)]
    );
    assert!((r.value - ((x * y).sin() + x * x / y - (-x).exp())).abs() < 1e-15);
    assert!((r.gradient[0] - dx).abs() < 1e-14 && (r.gradient[1] - dy).abs() < 1e-14);
}

#[test]
fn dynamic_other_expressions_match_finite_differences() {
    let point = |pairs: &[(&str, f64)]| -> Vec<(String, f64)> {
        pairs.iter().map(|(n, v)| (n.to_string(), *v)).collect()
    };
    let cases = [
        (
            "x^3 * atan2(y, x) + hypot(x, y)",
            point(&[("x", 0.3), ("y", -2.0)]),
        ),
        ("2^x + pow(x, y) + log(8, x) - -x^2", point(&[])),
        (
            "tanh(a*b - c) / (1 + a^2) + sqrt(b) * ln(c)",
            point(&[("c", 3.0)]),
        ),
        (
            "exp(sin(x)) * cos(x)^-2 + 1e-3 * x^10",
            point(&[("x", 1.1)]),
        ),
    ];
    for (expression, values) in &cases {
        let r = dynamic::differentiate(expression, values, false, false)
            .unwrap_or_else(|e| panic!("{expression}: {e}"));
        assert!(r.passed(), "{expression}: {}", r.report);
        assert!(r.gradient.iter().all(|g| g.is_finite()), "{expression}");
    }
    for seed in 0..50 {
        let expression = dynamic::random_expression(seed);
        let r = dynamic::differentiate(&expression, &[], false, false)
            .unwrap_or_else(|e| panic!("seed {seed}: {expression}: {e}"));
        assert!(r.passed(), "seed {seed}: {expression}: {}", r.report);
    }
}

#[test]
fn dynamic_reports_parse_errors_and_draws_the_graph() {
    for (bad, message) in [
        ("sin(x", "expected `)`"),
        ("foo(x)", "unknown function `foo`"),
        ("x +", "expected a number"),
        ("x y", "unexpected input"),
        ("atan2(x)", "takes 2 argument"),
    ] {
        match dynamic::differentiate(bad, &[], false, false) {
            Ok(_) => panic!("`{bad}` parsed"),
            Err(e) => assert!(e.contains(message), "`{bad}`: {e}"),
        }
    }
    let r = dynamic::differentiate("x * y + sin(x)", &[], true, false).unwrap();
    let dot = r.dot.unwrap();
    assert!(dot.starts_with("digraph") && dot.contains("sin"), "{dot}");
}
