//! `autograd::check`: the report passes right gradients, catches wrong ones,
//! points at the worst coordinate, handles NaN, and prints readably.

use autograd::check::{self, Report};
use autograd::differentiable;

#[differentiable]
fn model(w: &[f64]) -> f64 {
    let mut total = 0.0;
    for (i, &v) in w.iter().enumerate() {
        total += (v * (i as f64 + 1.0)).sin() * v.exp();
    }
    total + w[0] * w[w.len() - 1]
}

#[test]
fn passes_a_right_gradient() {
    let x = [0.3, -1.2, 2.5, 3.0, -0.001];
    let (_, g) = model_grad(&x);
    let report = check::gradient(model, &x, &g);
    assert!(report.is_ok(1e-7), "{report}");
    report.assert_ok(1e-7);
    assert!(report.max_abs_error < 1e-4 && report.max_rel_error < 1e-7);
    assert_eq!(report.analytic, g);
    assert_eq!(report.numeric.len(), 5);
    // The same through the `_grad` convenience.
    let via = check::gradient_of(model_grad, &x);
    assert_eq!(via, report);
}

#[test]
fn detects_a_wrong_gradient_and_names_the_worst_index() {
    let x = [0.3, -1.2, 2.5, 3.0, -0.001];
    let (_, mut g) = model_grad(&x);
    g[2] *= 1.01; // a 1 % error in one coordinate
    let report = check::gradient(model, &x, &g);
    assert!(!report.is_ok(1e-6), "{report}");
    assert_eq!(report.worst_index, Some(2));
    assert!(
        (report.max_rel_error - 0.01 / 1.01).abs() < 1e-6,
        "{report}"
    );
    assert!(report.is_ok(0.05)); // a loose enough tolerance accepts it
}

#[test]
fn detects_a_sign_error_in_a_generated_like_closure() {
    let wrong = |x: &[f64]| (x[0] * x[0], vec![-2.0 * x[0]]);
    let report = check::gradient_of(wrong, &[1.5]);
    assert!(!report.is_ok(1e-6));
    assert!((report.max_abs_error - 6.0).abs() < 1e-6);
    assert!((report.max_rel_error - 2.0).abs() < 1e-6);
}

#[test]
fn numeric_gradient_is_accurate_for_smooth_functions() {
    let f = |x: &[f64]| x[0].exp() * x[1].cos();
    let g = check::numeric_gradient(f, &[1.0, 0.5]);
    assert!((g[0] - 1f64.exp() * 0.5f64.cos()).abs() < 1e-8);
    assert!((g[1] + 1f64.exp() * 0.5f64.sin()).abs() < 1e-8);
    // The step scales with |x|: a large coordinate is still resolved.
    let g = check::numeric_gradient(|x| x[0] * x[0], &[1e8]);
    assert!((g[0] - 2e8).abs() < 1e-6 * 2e8, "{g:?}");
}

#[test]
fn relative_error_is_absolute_below_one_and_relative_above() {
    let report = Report::new(vec![1e-9, 1000.0], vec![2e-9, 1001.0]);
    assert_eq!(report.max_abs_error, 1.0);
    assert_eq!(report.worst_index, Some(1));
    assert_eq!(report.max_rel_error, 1.0 / 1001.0);
    let tiny = Report::new(vec![1e-9], vec![2e-9]);
    assert_eq!(tiny.max_rel_error, 1e-9);
    assert!(tiny.is_ok(1e-8));
}

#[test]
fn nan_and_infinity_fail_every_tolerance() {
    let report = check::gradient(|x| x[0] * x[1], &[1.0, 2.0], &[2.0, f64::NAN]);
    assert!(report.max_rel_error.is_nan() && report.max_abs_error.is_nan());
    assert_eq!(report.worst_index, Some(1));
    assert!(!report.is_ok(f64::INFINITY));
    let report = Report::new(vec![f64::NAN, 1.0, 5.0], vec![0.0, 1.0, 0.0]);
    assert_eq!(report.worst_index, Some(0));
    assert!(report.max_rel_error.is_nan());
    let report = Report::new(vec![1.0, f64::INFINITY], vec![1.0, 1.0]);
    assert_eq!(report.worst_index, Some(1));
    assert!(!report.is_ok(1e300));
    // A NaN in the function shows up in the numeric side.
    let report = check::gradient(|x| x[0].sqrt(), &[-1.0], &[0.0]);
    assert!(!report.is_ok(1.0));
}

#[test]
fn empty_input_is_trivially_ok() {
    let report = check::gradient(|_| 1.0, &[], &[]);
    assert_eq!(report.worst_index, None);
    assert_eq!((report.max_abs_error, report.max_rel_error), (0.0, 0.0));
    assert!(report.is_ok(0.0));
    assert_eq!(
        report.to_string(),
        "gradient check of 0 coordinates: max abs error 0.000e0, max rel error 0.000e0"
    );
}

#[test]
fn display_is_readable() {
    let report = Report::new(vec![1.0, 2.5, -3.0], vec![1.0, 2.0, -3.0]);
    let text = report.to_string();
    println!("{text}");
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some(
            "gradient check of 3 coordinates: max abs error 5.000e-1, max rel error 2.000e-1, \
             worst at index 1 (analytic 2.5e0, numeric 2e0)"
        )
    );
    assert!(lines.next().unwrap().contains("analytic"));
    // Rows worst first.
    assert!(lines.next().unwrap().trim_start().starts_with("1 "));
    assert_eq!(text.lines().count(), 5);

    let many = Report::new(vec![0.0; 25], vec![0.0; 25]);
    let text = many.to_string();
    assert!(text.ends_with("... (15 more)"), "{text}");
    assert_eq!(text.lines().count(), 1 + 1 + 10 + 1);
}

#[test]
#[should_panic(expected = "gradient check failed (tolerance 1e-6): gradient check of 1 coordinate")]
fn assert_ok_panics_with_the_report() {
    check::gradient(|x| x[0] * x[0], &[3.0], &[5.0]).assert_ok(1e-6);
}

#[test]
#[should_panic(expected = "check::gradient: x has length 2 but grad has length 3")]
fn gradient_length_mismatch_panics() {
    check::gradient(|x| x[0], &[1.0, 2.0], &[1.0, 0.0, 0.0]);
}

#[test]
#[should_panic(
    expected = "check::gradient_of: x has length 2 but the returned gradient has length 1"
)]
fn gradient_of_length_mismatch_panics() {
    check::gradient_of(|x| (x[0], vec![1.0]), &[1.0, 2.0]);
}

#[test]
#[should_panic(expected = "analytic has length 1 but numeric has length 2")]
fn report_length_mismatch_panics() {
    Report::new(vec![1.0], vec![1.0, 2.0]);
}
