//! `autograd::loss`: exact values at simple points, and every generated
//! gradient against finite differences (with `autograd::check`).

use autograd::{check, loss};

const TOL: f64 = 1e-7;

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

// ---- mse ----

#[test]
fn mse_values_and_gradient() {
    let (value, d) = loss::mse_grad(&[1.0, 2.0, 3.0], &[1.0, 0.0, 5.0]);
    assert_eq!(value, 8.0 / 3.0);
    assert_eq!(d, vec![0.0, 4.0 / 3.0, -4.0 / 3.0]);
    assert_eq!(loss::mse(&[2.0], &[2.0]), 0.0);
}

#[test]
fn mse_matches_finite_differences() {
    let target = [0.5, -1.0, 2.0, 0.0];
    for pred in [[0.1, 0.2, 0.3, 0.4], [-3.0, 10.0, 2.0, 1e-3]] {
        check::gradient_of(|p| loss::mse_grad(p, &target), &pred).assert_ok(TOL);
    }
}

#[test]
fn mse_adjoint_accumulates() {
    let mut d = vec![1.0, 1.0];
    let value = loss::mse_adjoint(&[1.0, 2.0], &[0.0, 4.0], 2.0, &mut d);
    assert_eq!(value, 2.5);
    assert_eq!(d, vec![1.0 + 2.0, 1.0 - 4.0]);
}

#[test]
#[should_panic(expected = "pred has length 2 but target has length 3")]
fn mse_length_mismatch_panics() {
    loss::mse(&[1.0, 2.0], &[1.0, 2.0, 3.0]);
}

#[test]
#[should_panic(expected = "empty")]
fn mse_empty_panics() {
    loss::mse(&[], &[]);
}

// ---- hinge ----

#[test]
fn hinge_values_and_kink_convention() {
    assert_eq!(loss::hinge_grad(0.25, 1.0), (0.75, -1.0));
    assert_eq!(loss::hinge_grad(0.25, -1.0), (1.25, 1.0));
    assert_eq!(loss::hinge_grad(3.0, 1.0), (0.0, 0.0));
    assert_eq!(loss::hinge_grad(-3.0, 1.0), (4.0, -1.0));
    // Exactly on the margin: value 0, derivative 0 (documented convention).
    assert_eq!(loss::hinge_grad(1.0, 1.0), (0.0, 0.0));
    assert_eq!(loss::hinge_grad(-1.0, -1.0), (0.0, 0.0));
}

#[test]
fn hinge_matches_finite_differences_away_from_the_kink() {
    for &(score, label) in &[
        (0.3, 1.0),
        (-2.0, 1.0),
        (0.5, -1.0),
        (2.5, 1.0),
        (-4.0, -1.0),
    ] {
        let (_, d) = loss::hinge_grad(score, label);
        check::gradient(|s| loss::hinge(s[0], label), &[score], &[d]).assert_ok(TOL);
    }
}

#[test]
fn hinge_mean_values_and_finite_differences() {
    let labels = [1.0, -1.0, 1.0, -1.0];
    let scores = [0.5, 2.0, 3.0, -0.2];
    let (value, d) = loss::hinge_mean_grad(&scores, &labels);
    assert_eq!(value, (0.5 + 3.0 + 0.0 + 0.8) / 4.0);
    assert_eq!(d, vec![-0.25, 0.25, 0.0, 0.25]);
    check::gradient_of(|s| loss::hinge_mean_grad(s, &labels), &scores).assert_ok(TOL);
}

#[test]
#[should_panic(expected = "scores has length 1 but labels has length 2")]
fn hinge_mean_length_mismatch_panics() {
    loss::hinge_mean(&[1.0], &[1.0, -1.0]);
}

// ---- logistic ----

#[test]
fn logistic_values() {
    assert_eq!(loss::logistic_grad(0.0, 1.0), (2f64.ln(), -0.5));
    assert_eq!(loss::logistic_grad(0.0, -1.0), (2f64.ln(), 0.5));
    let (value, d) = loss::logistic_grad(2.0, 1.0);
    assert!((value - (1.0 + (-2f64).exp()).ln()).abs() < 1e-15);
    assert!((d + sigmoid(-2.0)).abs() < 1e-15);
    // Stable at extreme scores: no overflow, exact limits.
    assert_eq!(loss::logistic_grad(1000.0, 1.0), (0.0, -0.0));
    assert_eq!(loss::logistic_grad(1000.0, -1.0), (1000.0, 1.0));
    assert_eq!(loss::logistic_grad(-1000.0, 1.0), (1000.0, -1.0));
}

#[test]
fn logistic_matches_finite_differences() {
    for &(score, label) in &[
        (0.0, 1.0),
        (0.7, -1.0),
        (-3.0, 1.0),
        (25.0, 1.0),
        (-40.0, -1.0),
    ] {
        let (_, d) = loss::logistic_grad(score, label);
        check::gradient(|s| loss::logistic(s[0], label), &[score], &[d]).assert_ok(TOL);
    }
    let labels = [1.0, -1.0, -1.0];
    check::gradient_of(|s| loss::logistic_mean_grad(s, &labels), &[0.3, -2.0, 5.0]).assert_ok(TOL);
}

#[test]
fn logistic_equals_binary_cross_entropy_with_mapped_labels() {
    for &score in &[-5.0, -0.5, 0.0, 0.25, 3.0] {
        for &label in &[-1.0, 1.0] {
            let a = loss::logistic_grad(score, label);
            let b = loss::binary_cross_entropy_grad(score, (label + 1.0) / 2.0);
            assert!(
                (a.0 - b.0).abs() < 1e-14 && (a.1 - b.1).abs() < 1e-15,
                "{a:?} {b:?}"
            );
        }
    }
}

// ---- binary cross-entropy ----

#[test]
fn binary_cross_entropy_values() {
    assert_eq!(loss::binary_cross_entropy_grad(0.0, 1.0), (2f64.ln(), -0.5));
    assert_eq!(loss::binary_cross_entropy_grad(0.0, 0.0), (2f64.ln(), 0.5));
    let (value, d) = loss::binary_cross_entropy_grad(1.5, 0.25);
    let p = sigmoid(1.5);
    let expected = -(0.25 * p.ln() + 0.75 * (1.0 - p).ln());
    assert!((value - expected).abs() < 1e-14, "{value} vs {expected}");
    assert!((d - (p - 0.25)).abs() < 1e-15);
    // Stable from logits: finite values and gradients at any magnitude.
    assert_eq!(
        loss::binary_cross_entropy_grad(-1000.0, 1.0),
        (1000.0, -1.0)
    );
    assert_eq!(loss::binary_cross_entropy_grad(1000.0, 0.0), (1000.0, 1.0));
    assert_eq!(loss::binary_cross_entropy_grad(1000.0, 1.0), (0.0, 0.0));
}

#[test]
fn binary_cross_entropy_matches_finite_differences() {
    for &(z, y) in &[
        (0.0, 1.0),
        (0.0, 0.0),
        (2.0, 0.3),
        (-7.0, 1.0),
        (30.0, 0.0),
        (-0.01, 0.5),
    ] {
        let (_, d) = loss::binary_cross_entropy_grad(z, y);
        check::gradient(|s| loss::binary_cross_entropy(s[0], y), &[z], &[d]).assert_ok(TOL);
    }
    let targets = [1.0, 0.0, 0.5, 1.0];
    let (value, _) = loss::binary_cross_entropy_mean_grad(&[0.0; 4], &targets);
    assert!((value - 2f64.ln()).abs() < 1e-15);
    check::gradient_of(
        |z| loss::binary_cross_entropy_mean_grad(z, &targets),
        &[0.1, -3.0, 2.0, 8.0],
    )
    .assert_ok(TOL);
}

#[test]
#[should_panic(expected = "logits has length 2 but targets has length 1")]
fn binary_cross_entropy_mean_length_mismatch_panics() {
    loss::binary_cross_entropy_mean(&[1.0, 2.0], &[1.0]);
}

// ---- softmax cross-entropy ----

#[test]
fn softmax_cross_entropy_values() {
    let (value, d) = loss::softmax_cross_entropy_grad(&[0.0, 0.0, 0.0, 0.0], 2);
    assert!((value - 4f64.ln()).abs() < 1e-15);
    assert_eq!(d, vec![0.25, 0.25, -0.75, 0.25]);

    let logits = [1.0, 2.0, 3.0];
    let (value, d) = loss::softmax_cross_entropy_grad(&logits, 0);
    let z: f64 = logits.iter().map(|l| l.exp()).sum();
    assert!((value - (z.ln() - 1.0)).abs() < 1e-14);
    for i in 0..3 {
        let softmax = logits[i].exp() / z;
        let expected = softmax - if i == 0 { 1.0 } else { 0.0 };
        assert!(
            (d[i] - expected).abs() < 1e-15,
            "{i}: {} vs {expected}",
            d[i]
        );
    }
    // Stable: huge logits neither overflow nor lose the gradient.
    let (value, d) = loss::softmax_cross_entropy_grad(&[1000.0, 1000.0], 0);
    assert!((value - 2f64.ln()).abs() < 1e-12);
    assert_eq!(d, vec![-0.5, 0.5]);
    let (value, d) = loss::softmax_cross_entropy_grad(&[-1000.0, 0.0], 0);
    assert_eq!((value, d), (1000.0, vec![-1.0, 1.0]));
}

#[test]
fn softmax_cross_entropy_gradient_sums_to_zero_and_matches_finite_differences() {
    for (logits, class) in [
        (vec![0.5, -1.0, 2.0], 2),
        (vec![3.0, 3.0, -1.0, 0.0], 1),
        (vec![10.0, -20.0, 5.0, 0.1, 0.2], 4),
        (vec![7.0], 0),
    ] {
        let (_, d) = loss::softmax_cross_entropy_grad(&logits, class);
        assert!(d.iter().sum::<f64>().abs() < 1e-14, "{d:?}");
        check::gradient_of(|z| loss::softmax_cross_entropy_grad(z, class), &logits).assert_ok(TOL);
    }
}

#[test]
fn softmax_cross_entropy_mean_matches_rows_and_finite_differences() {
    let logits = [0.5, -1.0, 2.0, 1.0, 1.0, 0.0];
    let classes = [2, 0];
    let (value, d) = loss::softmax_cross_entropy_mean_grad(&logits, &classes);
    let (a, da) = loss::softmax_cross_entropy_grad(&logits[..3], 2);
    let (b, db) = loss::softmax_cross_entropy_grad(&logits[3..], 0);
    assert!((value - (a + b) / 2.0).abs() < 1e-15);
    for i in 0..3 {
        assert!((d[i] - da[i] / 2.0).abs() < 1e-16);
        assert!((d[3 + i] - db[i] / 2.0).abs() < 1e-16);
    }
    check::gradient_of(
        |z| loss::softmax_cross_entropy_mean_grad(z, &classes),
        &logits,
    )
    .assert_ok(TOL);
}

#[test]
#[should_panic(expected = "class 3 is out of range for 3 logits")]
fn softmax_cross_entropy_class_out_of_range_panics() {
    loss::softmax_cross_entropy(&[1.0, 2.0, 3.0], 3);
}

#[test]
#[should_panic(expected = "not a positive multiple")]
fn softmax_cross_entropy_mean_bad_shape_panics() {
    loss::softmax_cross_entropy_mean(&[1.0, 2.0, 3.0], &[0, 1]);
}

// ---- l2 ----

#[test]
fn l2_value_gradient_and_finite_differences() {
    assert_eq!(
        loss::l2_grad(&[1.0, -2.0, 0.5]),
        (5.25, vec![2.0, -4.0, 1.0])
    );
    assert_eq!(loss::l2(&[]), 0.0);
    check::gradient_of(loss::l2_grad, &[0.3, -7.0, 100.0]).assert_ok(TOL);
}
