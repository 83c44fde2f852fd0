//! Loss functions, each a `#[differentiable]` function: next to every loss
//! `f` there is a generated `f_grad` (value and gradient) and `f_adjoint`
//! (value, and **adds** `d_out · ∂f/∂p` into a caller-owned buffer — the
//! building block of backpropagation).
//!
//! Only the prediction side is differentiated (`wrt(..)`): targets, labels
//! and class indices are constants and get no gradient slot.
//!
//! | loss | per example | batch mean | labels |
//! | --- | --- | --- | --- |
//! | squared error | — | [`mse`] | real targets |
//! | hinge (max-margin) | [`hinge`] | [`hinge_mean`] | `±1` |
//! | logistic | [`logistic`] | [`logistic_mean`] | `±1` |
//! | binary cross-entropy from logits | [`binary_cross_entropy`] | [`binary_cross_entropy_mean`] | `0 ..= 1` |
//! | softmax cross-entropy from logits | [`softmax_cross_entropy`] | [`softmax_cross_entropy_mean`] | class index |
//!
//! and a regulariser, [`l2`] (`Σ wᵢ²`).
//!
//! ```
//! # extern crate autograd_runtime as autograd;
//! use autograd::loss;
//!
//! // Value and gradient of the mean squared error with respect to `pred`:
//! let (value, d_pred) = loss::mse_grad(&[1.0, 2.0], &[0.0, 4.0]);
//! assert_eq!(value, 2.5); // ((1 − 0)² + (2 − 4)²) / 2
//! assert_eq!(d_pred, vec![1.0, -2.0]); // 2 (pred − target) / n
//!
//! // The adjoint accumulates: a second call adds to the same buffer.
//! let mut d_score = 0.0;
//! loss::hinge_adjoint(0.25, 1.0, 1.0, &mut d_score);
//! loss::hinge_adjoint(0.25, 1.0, 1.0, &mut d_score);
//! assert_eq!(d_score, -2.0);
//! ```
//!
//! The logistic and cross-entropy losses are computed stably from logits
//! (no `exp` of a large positive number, no `ln` of 0), so they are finite
//! and have exact gradients for logits of any magnitude:
//!
//! ```
//! # extern crate autograd_runtime as autograd;
//! use autograd::loss;
//!
//! let (value, d) = loss::binary_cross_entropy_grad(-1000.0, 1.0);
//! assert_eq!((value, d), (1000.0, -1.0));
//! let (value, d) = loss::softmax_cross_entropy_grad(&[1000.0, 0.0], 0);
//! assert_eq!((value, d), (0.0, vec![0.0, 0.0]));
//! ```

use autograd_macros::differentiable;

/// `ln(1 + eˣ)` without overflow or cancellation.
///
/// For `x > 0` it is `x + ln(1 + e⁻ˣ)`, otherwise `ln(1 + eˣ)`; both
/// branches differentiate to `sigmoid(x)` (at `x = 0`: `0.5`).
#[differentiable]
fn softplus(x: f64) -> f64 {
    if x > 0.0 {
        x + (-x).exp().ln_1p()
    } else {
        x.exp().ln_1p()
    }
}

/// Mean squared error: `(1/n) Σᵢ (predᵢ − targetᵢ)²`, differentiated with
/// respect to `pred` (`∂/∂predᵢ = 2 (predᵢ − targetᵢ) / n`).
///
/// Generates `mse_grad(pred, target) -> (f64, Vec<f64>)` and
/// `mse_adjoint(pred, target, d_out, d_pred: &mut [f64]) -> f64`.
///
/// # Panics
///
/// If `pred` and `target` have different lengths, or are empty.
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use autograd::loss;
///
/// assert_eq!(loss::mse(&[1.0, 2.0], &[0.0, 4.0]), 2.5);
///
/// let mut d_pred = vec![0.0; 2];
/// let value = loss::mse_adjoint(&[1.0, 2.0], &[0.0, 4.0], 0.5, &mut d_pred);
/// assert_eq!(value, 2.5);
/// assert_eq!(d_pred, vec![0.5, -1.0]); // d_out · 2 (pred − target) / n
/// ```
#[differentiable(wrt(pred))]
pub fn mse(pred: &[f64], target: &[f64]) -> f64 {
    assert!(
        pred.len() == target.len(),
        "loss::mse: pred has length {} but target has length {}",
        pred.len(),
        target.len()
    );
    assert!(!pred.is_empty(), "loss::mse: pred and target are empty");
    let mut total = 0.0;
    for i in 0..pred.len() {
        let error = pred[i] - target[i];
        total += error * error;
    }
    total / pred.len() as f64
}

/// Hinge (max-margin) loss of one score: `max(0, 1 − label · score)`, with
/// `label` `+1` or `−1`, differentiated with respect to `score`.
///
/// The derivative is `−label` while the margin `label · score` is below 1
/// and `0` above it. **At the kink** (`label · score == 1` exactly) the loss
/// is `0` and the derivative is `0`: an example exactly on the margin counts
/// as correctly classified (a valid subgradient).
///
/// Generates `hinge_grad(score, label) -> (f64, f64)` and
/// `hinge_adjoint(score, label, d_out, d_score: &mut f64) -> f64`.
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use autograd::loss;
///
/// assert_eq!(loss::hinge_grad(0.25, 1.0), (0.75, -1.0)); // inside the margin
/// assert_eq!(loss::hinge_grad(-2.0, -1.0), (0.0, 0.0)); // correct, beyond it
/// assert_eq!(loss::hinge_grad(1.0, 1.0), (0.0, 0.0)); // on the kink
/// ```
#[differentiable(wrt(score))]
pub fn hinge(score: f64, label: f64) -> f64 {
    let margin = 1.0 - label * score;
    if margin > 0.0 {
        margin
    } else {
        0.0
    }
}

/// Mean [`hinge`] loss of a batch: `(1/n) Σᵢ max(0, 1 − labelsᵢ · scoresᵢ)`,
/// differentiated with respect to `scores` (kink convention as [`hinge`]).
///
/// # Panics
///
/// If `scores` and `labels` have different lengths, or are empty.
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use autograd::loss;
///
/// let (value, d_scores) = loss::hinge_mean_grad(&[0.5, 2.0], &[1.0, -1.0]);
/// assert_eq!(value, (0.5 + 3.0) / 2.0);
/// assert_eq!(d_scores, vec![-0.5, 0.5]);
/// ```
#[differentiable(wrt(scores))]
pub fn hinge_mean(scores: &[f64], labels: &[f64]) -> f64 {
    assert!(
        scores.len() == labels.len(),
        "loss::hinge_mean: scores has length {} but labels has length {}",
        scores.len(),
        labels.len()
    );
    assert!(
        !scores.is_empty(),
        "loss::hinge_mean: scores and labels are empty"
    );
    let mut total = 0.0;
    for i in 0..scores.len() {
        total += hinge(scores[i], labels[i]);
    }
    total / scores.len() as f64
}

/// Logistic loss of one score with a `±1` label:
/// `ln(1 + e^(−label · score))`, computed stably, differentiated with
/// respect to `score` (`∂/∂score = −label · sigmoid(−label · score)`).
///
/// It equals [`binary_cross_entropy`]`(score, (label + 1) / 2)`: the smooth
/// counterpart of [`hinge`], with the same label convention.
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use autograd::loss;
///
/// let (value, d_score) = loss::logistic_grad(0.0, 1.0);
/// assert_eq!(value, 2.0_f64.ln());
/// assert_eq!(d_score, -0.5);
/// ```
#[differentiable(wrt(score))]
pub fn logistic(score: f64, label: f64) -> f64 {
    softplus(-label * score)
}

/// Mean [`logistic`] loss of a batch with `±1` labels,
/// differentiated with respect to `scores`.
///
/// # Panics
///
/// If `scores` and `labels` have different lengths, or are empty.
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use autograd::loss;
///
/// let (value, d_scores) = loss::logistic_mean_grad(&[0.0, 0.0], &[1.0, -1.0]);
/// assert_eq!(value, 2.0_f64.ln());
/// assert_eq!(d_scores, vec![-0.25, 0.25]);
/// ```
#[differentiable(wrt(scores))]
pub fn logistic_mean(scores: &[f64], labels: &[f64]) -> f64 {
    assert!(
        scores.len() == labels.len(),
        "loss::logistic_mean: scores has length {} but labels has length {}",
        scores.len(),
        labels.len()
    );
    assert!(
        !scores.is_empty(),
        "loss::logistic_mean: scores and labels are empty"
    );
    let mut total = 0.0;
    for i in 0..scores.len() {
        total += logistic(scores[i], labels[i]);
    }
    total / scores.len() as f64
}

/// Binary cross-entropy from a logit `z` and a target probability `y`
/// (usually `0` or `1`, any value in `0 ..= 1` works):
/// `−y ln σ(z) − (1 − y) ln(1 − σ(z)) = softplus(z) − y · z`, computed
/// stably, differentiated with respect to `logit` (`∂/∂z = σ(z) − y`).
///
/// Pass the raw score, not a probability: the sigmoid is part of the loss.
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use autograd::loss;
///
/// let (value, d_logit) = loss::binary_cross_entropy_grad(0.0, 1.0);
/// assert_eq!(value, 2.0_f64.ln());
/// assert_eq!(d_logit, -0.5); // σ(0) − 1
/// ```
#[differentiable(wrt(logit))]
pub fn binary_cross_entropy(logit: f64, target: f64) -> f64 {
    softplus(logit) - target * logit
}

/// Mean [`binary_cross_entropy`] of a batch of logits and target
/// probabilities, differentiated with respect to `logits`.
///
/// # Panics
///
/// If `logits` and `targets` have different lengths, or are empty.
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use autograd::loss;
///
/// let (value, d_logits) = loss::binary_cross_entropy_mean_grad(&[0.0, 0.0], &[1.0, 0.0]);
/// assert_eq!(value, 2.0_f64.ln());
/// assert_eq!(d_logits, vec![-0.25, 0.25]);
/// ```
#[differentiable(wrt(logits))]
pub fn binary_cross_entropy_mean(logits: &[f64], targets: &[f64]) -> f64 {
    assert!(
        logits.len() == targets.len(),
        "loss::binary_cross_entropy_mean: logits has length {} but targets has length {}",
        logits.len(),
        targets.len()
    );
    assert!(
        !logits.is_empty(),
        "loss::binary_cross_entropy_mean: logits and targets are empty"
    );
    let mut total = 0.0;
    for i in 0..logits.len() {
        total += binary_cross_entropy(logits[i], targets[i]);
    }
    total / logits.len() as f64
}

/// Softmax cross-entropy of one example from its logits and the index of
/// its class: `−ln softmax(logits)[class] = logsumexp(logits) − logits[class]`,
/// with the log-sum-exp computed stably (shifted by the largest logit),
/// differentiated with respect to `logits`
/// (`∂/∂logitsᵢ = softmax(logits)ᵢ − [i == class]`).
///
/// # Panics
///
/// If `logits` is empty or `class >= logits.len()`.
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use autograd::loss;
///
/// let (value, d_logits) = loss::softmax_cross_entropy_grad(&[0.0, 0.0], 1);
/// assert_eq!(value, 2.0_f64.ln());
/// assert_eq!(d_logits, vec![0.5, -0.5]);
/// ```
#[differentiable(wrt(logits))]
pub fn softmax_cross_entropy(logits: &[f64], class: usize) -> f64 {
    assert!(
        class < logits.len(),
        "loss::softmax_cross_entropy: class {} is out of range for {} logits",
        class,
        logits.len()
    );
    // The shift cancels exactly in the mathematics, so its derivative (however
    // `max` splits a tie) contributes nothing to the gradient.
    let mut largest = logits[0];
    for &logit in logits {
        largest = largest.max(logit);
    }
    let mut sum = 0.0;
    for &logit in logits {
        sum += (logit - largest).exp();
    }
    largest + sum.ln() - logits[class]
}

/// Mean [`softmax_cross_entropy`] of a batch: `logits` holds one row of
/// `k = logits.len() / classes.len()` logits per example, row-major, and
/// `classes[i]` is the class of example `i`. Differentiated with respect to
/// `logits`.
///
/// # Panics
///
/// If `classes` is empty, `logits.len()` is not a positive multiple of
/// `classes.len()`, or a class is out of range.
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use autograd::loss;
///
/// // Two examples, three classes each.
/// let logits = [0.0, 0.0, 0.0, 1.0, 1.0, 1.0];
/// let (value, d_logits) = loss::softmax_cross_entropy_mean_grad(&logits, &[0, 2]);
/// assert!((value - 3.0_f64.ln()).abs() < 1e-15);
/// assert!((d_logits[0] - (1.0 / 3.0 - 1.0) / 2.0).abs() < 1e-15);
/// assert!((d_logits[3] - (1.0 / 3.0) / 2.0).abs() < 1e-15);
/// ```
#[differentiable(wrt(logits))]
pub fn softmax_cross_entropy_mean(logits: &[f64], classes: &[usize]) -> f64 {
    assert!(
        !classes.is_empty(),
        "loss::softmax_cross_entropy_mean: classes is empty"
    );
    assert!(
        !logits.is_empty() && logits.len() % classes.len() == 0,
        "loss::softmax_cross_entropy_mean: logits has length {}, not a positive multiple of \
         classes' length {}",
        logits.len(),
        classes.len()
    );
    let k = logits.len() / classes.len();
    let mut total = 0.0;
    for i in 0..classes.len() {
        total += softmax_cross_entropy(&logits[i * k..(i + 1) * k], classes[i]);
    }
    total / classes.len() as f64
}

/// L2 penalty: `Σᵢ wᵢ²` (no factor ½; `∂/∂wᵢ = 2 wᵢ`). Add
/// `λ · l2(params)` to a loss, or use the optimizers' `weight_decay`.
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use autograd::loss;
///
/// assert_eq!(loss::l2_grad(&[1.0, -2.0]), (5.0, vec![2.0, -4.0]));
/// ```
#[differentiable]
pub fn l2(weights: &[f64]) -> f64 {
    let mut total = 0.0;
    for &w in weights {
        total += w * w;
    }
    total
}
