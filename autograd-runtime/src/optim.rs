//! Optimizers over flat parameters: [`Sgd`] (with momentum and weight
//! decay), [`Adam`] (with bias correction and decoupled weight decay), and a
//! learning-rate schedule, [`LinearDecay`].
//!
//! Parameters are one `&mut [f64]` and gradients one `&[f64]` of the same
//! length — the layout of a `#[differentiable]` function of a slice and its
//! `_adjoint` buffer.
//!
//! # Gradients accumulate: zero them explicitly
//!
//! A generated `f_adjoint` **adds** `d_out · ∂f/∂p` into its gradient
//! buffer, so gradients of several calls (several examples, several loss
//! terms) accumulate in one buffer. `step` only reads the gradients and
//! never clears them: call [`zero_grad`] before accumulating the next
//! step's gradient (or use `f_grad`, which returns a fresh one).
//!
//! ```
//! # extern crate autograd_runtime as autograd;
//! use autograd_macros::differentiable; // `autograd::differentiable` in the facade
//! use autograd::optim::{self, LinearDecay, Sgd};
//!
//! /// Squared distance to (3, −1).
//! #[differentiable]
//! fn loss(p: &[f64]) -> f64 {
//!     (p[0] - 3.0) * (p[0] - 3.0) + (p[1] + 1.0) * (p[1] + 1.0)
//! }
//!
//! let mut params = vec![0.0, 0.0];
//! let mut grads = vec![0.0; 2];
//! let mut sgd = Sgd::new(0.1).with_momentum(0.5);
//! let schedule = LinearDecay { start: 0.1, end: 0.01, steps: 100 };
//! for step in 0..200 {
//!     optim::zero_grad(&mut grads); // the adjoint adds: start from zero
//!     loss_adjoint(&params, 1.0, &mut grads);
//!     sgd.set_learning_rate(schedule.rate(step));
//!     sgd.step(&mut params, &grads);
//! }
//! assert!((params[0] - 3.0).abs() < 1e-9 && (params[1] + 1.0).abs() < 1e-9);
//! ```
//!
//! # Lengths and non-finite values
//!
//! `step` panics, naming both lengths, if `params` and `grads` differ in
//! length, or if an optimizer with state (momentum, Adam's moments) is
//! stepped with a different number of parameters than before (call
//! `reset` to reuse it for another model).
//!
//! Non-finite values are not detected: they propagate by IEEE arithmetic,
//! coordinate by coordinate. A `NaN` gradient makes its parameter `NaN`
//! (and, with momentum or Adam, that coordinate's state, until `reset`);
//! the other coordinates are unaffected. Check `params` or the loss if your
//! computation can produce them.

/// Sets every gradient to `0.0`: call it before accumulating a new gradient
/// with a generated `_adjoint`, which adds into the buffer.
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use autograd::optim;
///
/// let mut grads = vec![1.5, -2.0, f64::NAN];
/// optim::zero_grad(&mut grads);
/// assert_eq!(grads, vec![0.0; 3]);
/// ```
pub fn zero_grad(grads: &mut [f64]) {
    grads.fill(0.0);
}

#[track_caller]
fn check_lengths(who: &str, params: usize, grads: usize) {
    if params != grads {
        panic!(
            "{who}: params has length {params} but grads has length {grads}; they must be equal"
        );
    }
}

/// Lazily sizes an optimizer's state buffer to the parameters, or panics if
/// it was sized for a different number of parameters.
#[track_caller]
fn state<'a>(who: &str, buffer: &'a mut Vec<f64>, params: usize) -> &'a mut [f64] {
    if buffer.is_empty() {
        buffer.resize(params, 0.0);
    } else if buffer.len() != params {
        panic!(
            "{who}: params has length {params} but the optimizer's state has length {} \
             (it was stepped with {} parameters before; call reset() to reuse it)",
            buffer.len(),
            buffer.len()
        );
    }
    buffer
}

/// Stochastic gradient descent with optional momentum and weight decay.
///
/// One [`step`](Sgd::step), for each coordinate, with learning rate `η`,
/// momentum `μ` and weight decay `λ` (the convention of PyTorch's `SGD`,
/// without dampening or Nesterov):
///
/// ```text
/// g ← grad + λ · p          (only if λ ≠ 0)
/// v ← μ · v + g             (only if μ ≠ 0; v starts at 0)
/// p ← p − η · v             (p ← p − η · g without momentum)
/// ```
///
/// Without momentum and weight decay a step is exactly `p − η · grad`.
/// The hyperparameters are public fields; they may be changed between steps.
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use autograd::optim::Sgd;
///
/// let mut sgd = Sgd::new(0.1);
/// let mut params = [1.0, 2.0];
/// sgd.step(&mut params, &[10.0, -10.0]);
/// assert_eq!(params, [0.0, 3.0]);
///
/// let mut sgd = Sgd::new(0.1).with_momentum(0.9).with_weight_decay(0.01);
/// assert_eq!((sgd.learning_rate, sgd.momentum, sgd.weight_decay), (0.1, 0.9, 0.01));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Sgd {
    /// The step size `η`.
    pub learning_rate: f64,
    /// The momentum coefficient `μ`, usually in `[0, 1)`; `0` disables it.
    pub momentum: f64,
    /// The L2 weight decay `λ`, added to the gradient as `λ · p`; `0`
    /// disables it.
    pub weight_decay: f64,
    velocity: Vec<f64>,
}

impl Sgd {
    /// Plain SGD with learning rate `learning_rate`: no momentum, no weight
    /// decay.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::optim::Sgd;
    ///
    /// let sgd = Sgd::new(0.05);
    /// assert_eq!((sgd.learning_rate, sgd.momentum, sgd.weight_decay), (0.05, 0.0, 0.0));
    /// ```
    pub fn new(learning_rate: f64) -> Self {
        Sgd {
            learning_rate,
            momentum: 0.0,
            weight_decay: 0.0,
            velocity: Vec::new(),
        }
    }

    /// Sets the momentum coefficient `μ`.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::optim::Sgd;
    ///
    /// assert_eq!(Sgd::new(0.1).with_momentum(0.9).momentum, 0.9);
    /// ```
    pub fn with_momentum(mut self, momentum: f64) -> Self {
        self.momentum = momentum;
        self
    }

    /// Sets the weight decay `λ`.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::optim::Sgd;
    ///
    /// assert_eq!(Sgd::new(0.1).with_weight_decay(1e-4).weight_decay, 1e-4);
    /// ```
    pub fn with_weight_decay(mut self, weight_decay: f64) -> Self {
        self.weight_decay = weight_decay;
        self
    }

    /// Sets the learning rate for the following steps (for a schedule such
    /// as [`LinearDecay`]).
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::optim::Sgd;
    ///
    /// let mut sgd = Sgd::new(1.0);
    /// sgd.set_learning_rate(0.5);
    /// let mut params = [1.0];
    /// sgd.step(&mut params, &[1.0]);
    /// assert_eq!(params, [0.5]);
    /// ```
    pub fn set_learning_rate(&mut self, learning_rate: f64) {
        self.learning_rate = learning_rate;
    }

    /// Updates `params` in place from `grads` (see [`Sgd`] for the formula).
    /// Does not modify `grads`.
    ///
    /// # Panics
    ///
    /// If `params` and `grads` have different lengths, or (with momentum)
    /// if the number of parameters changed since the previous step.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::optim::Sgd;
    ///
    /// let mut sgd = Sgd::new(0.5).with_momentum(0.5);
    /// let mut params = [0.0];
    /// sgd.step(&mut params, &[1.0]); // v = 1,   p = −0.5
    /// sgd.step(&mut params, &[1.0]); // v = 1.5, p = −1.25
    /// assert_eq!(params, [-1.25]);
    /// ```
    #[track_caller]
    pub fn step(&mut self, params: &mut [f64], grads: &[f64]) {
        check_lengths("optim::Sgd::step", params.len(), grads.len());
        let (rate, momentum, decay) = (self.learning_rate, self.momentum, self.weight_decay);
        if momentum == 0.0 {
            for (p, &g) in params.iter_mut().zip(grads) {
                let g = if decay == 0.0 { g } else { g + decay * *p };
                *p -= rate * g;
            }
        } else {
            let velocity = state("optim::Sgd::step", &mut self.velocity, params.len());
            for ((p, &g), v) in params.iter_mut().zip(grads).zip(velocity) {
                let g = if decay == 0.0 { g } else { g + decay * *p };
                *v = momentum * *v + g;
                *p -= rate * *v;
            }
        }
    }

    /// Forgets the momentum (the velocity returns to zero, and the optimizer
    /// may be used for a different number of parameters). Hyperparameters
    /// are kept.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::optim::Sgd;
    ///
    /// let mut sgd = Sgd::new(0.1).with_momentum(0.9);
    /// sgd.step(&mut [0.0, 0.0], &[1.0, 1.0]);
    /// sgd.reset();
    /// sgd.step(&mut [0.0; 3], &[1.0; 3]); // a different model: fine after reset
    /// ```
    pub fn reset(&mut self) {
        self.velocity.clear();
    }
}

/// Adam (Kingma & Ba, 2015) with bias correction, and optional decoupled
/// weight decay (AdamW, Loshchilov & Hutter).
///
/// Step `t = 1, 2, ...`, for each coordinate, with learning rate `η`:
///
/// ```text
/// m ← β₁ · m + (1 − β₁) · g            (m, v start at 0)
/// v ← β₂ · v + (1 − β₂) · g²
/// m̂ = m / (1 − β₁ᵗ),   v̂ = v / (1 − β₂ᵗ)
/// p ← p − η · (m̂ / (√v̂ + ε) + λ · p)   (λ = weight_decay, 0 by default)
/// ```
///
/// The weight decay is decoupled: it shrinks the parameters directly and is
/// not part of `g`, so it is not rescaled by `√v̂`.
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use autograd::optim::Adam;
///
/// let mut adam = Adam::new(0.1);
/// assert_eq!((adam.beta1, adam.beta2, adam.epsilon, adam.weight_decay), (0.9, 0.999, 1e-8, 0.0));
/// let mut params = [1.0];
/// adam.step(&mut params, &[4.0]);
/// // The first step moves by about η whatever the gradient's scale.
/// assert!((params[0] - 0.9).abs() < 1e-8);
/// assert_eq!(adam.steps(), 1);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Adam {
    /// The step size `η`.
    pub learning_rate: f64,
    /// Decay rate `β₁` of the first-moment (mean) estimate; default `0.9`.
    pub beta1: f64,
    /// Decay rate `β₂` of the second-moment estimate; default `0.999`.
    pub beta2: f64,
    /// Added to `√v̂` to avoid division by zero; default `1e-8`.
    pub epsilon: f64,
    /// Decoupled weight decay `λ`; default `0` (plain Adam).
    pub weight_decay: f64,
    m: Vec<f64>,
    v: Vec<f64>,
    t: u64,
}

impl Adam {
    /// Adam with learning rate `learning_rate` and the usual defaults
    /// `β₁ = 0.9`, `β₂ = 0.999`, `ε = 1e-8`, no weight decay.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::optim::Adam;
    ///
    /// let adam = Adam::new(1e-3);
    /// assert_eq!(adam.learning_rate, 1e-3);
    /// ```
    pub fn new(learning_rate: f64) -> Self {
        Adam {
            learning_rate,
            beta1: 0.9,
            beta2: 0.999,
            epsilon: 1e-8,
            weight_decay: 0.0,
            m: Vec::new(),
            v: Vec::new(),
            t: 0,
        }
    }

    /// Sets `β₁` and `β₂`.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::optim::Adam;
    ///
    /// let adam = Adam::new(1e-3).with_betas(0.8, 0.99);
    /// assert_eq!((adam.beta1, adam.beta2), (0.8, 0.99));
    /// ```
    pub fn with_betas(mut self, beta1: f64, beta2: f64) -> Self {
        self.beta1 = beta1;
        self.beta2 = beta2;
        self
    }

    /// Sets `ε`.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::optim::Adam;
    ///
    /// assert_eq!(Adam::new(1e-3).with_epsilon(1e-12).epsilon, 1e-12);
    /// ```
    pub fn with_epsilon(mut self, epsilon: f64) -> Self {
        self.epsilon = epsilon;
        self
    }

    /// Sets the decoupled weight decay `λ`.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::optim::Adam;
    ///
    /// assert_eq!(Adam::new(1e-3).with_weight_decay(0.01).weight_decay, 0.01);
    /// ```
    pub fn with_weight_decay(mut self, weight_decay: f64) -> Self {
        self.weight_decay = weight_decay;
        self
    }

    /// Sets the learning rate for the following steps (for a schedule such
    /// as [`LinearDecay`]).
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::optim::Adam;
    ///
    /// let mut adam = Adam::new(0.1);
    /// adam.set_learning_rate(0.01);
    /// assert_eq!(adam.learning_rate, 0.01);
    /// ```
    pub fn set_learning_rate(&mut self, learning_rate: f64) {
        self.learning_rate = learning_rate;
    }

    /// How many steps have been taken since creation or the last
    /// [`reset`](Adam::reset) (the `t` of the bias correction).
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::optim::Adam;
    ///
    /// let mut adam = Adam::new(0.1);
    /// adam.step(&mut [1.0], &[1.0]);
    /// adam.step(&mut [1.0], &[1.0]);
    /// assert_eq!(adam.steps(), 2);
    /// ```
    pub fn steps(&self) -> u64 {
        self.t
    }

    /// Updates `params` in place from `grads` (see [`Adam`] for the
    /// formula). Does not modify `grads`.
    ///
    /// # Panics
    ///
    /// If `params` and `grads` have different lengths, or if the number of
    /// parameters changed since the previous step.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::optim::Adam;
    ///
    /// let mut adam = Adam::new(0.01);
    /// let mut params = [0.0, 0.0];
    /// adam.step(&mut params, &[1.0, -100.0]);
    /// // Adam's first step has size ≈ η in each coordinate, against the gradient.
    /// assert!((params[0] + 0.01).abs() < 1e-9 && (params[1] - 0.01).abs() < 1e-9);
    /// ```
    #[track_caller]
    pub fn step(&mut self, params: &mut [f64], grads: &[f64]) {
        const WHO: &str = "optim::Adam::step";
        check_lengths(WHO, params.len(), grads.len());
        let m = state(WHO, &mut self.m, params.len());
        let v = state(WHO, &mut self.v, params.len());
        self.t += 1;
        let t = i32::try_from(self.t).unwrap_or(i32::MAX);
        let (b1, b2) = (self.beta1, self.beta2);
        let correction1 = 1.0 - b1.powi(t);
        let correction2 = 1.0 - b2.powi(t);
        let (rate, eps, decay) = (self.learning_rate, self.epsilon, self.weight_decay);
        for (((p, &g), m), v) in params.iter_mut().zip(grads).zip(m).zip(v) {
            *m = b1 * *m + (1.0 - b1) * g;
            *v = b2 * *v + (1.0 - b2) * g * g;
            let m_hat = *m / correction1;
            let v_hat = *v / correction2;
            let mut update = m_hat / (v_hat.sqrt() + eps);
            if decay != 0.0 {
                update += decay * *p;
            }
            *p -= rate * update;
        }
    }

    /// Forgets the moments and the step count (the optimizer may then be
    /// used for a different number of parameters). Hyperparameters are kept.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::optim::Adam;
    ///
    /// let mut adam = Adam::new(0.1);
    /// adam.step(&mut [1.0], &[1.0]);
    /// adam.reset();
    /// assert_eq!(adam.steps(), 0);
    /// adam.step(&mut [1.0, 2.0], &[1.0, 1.0]); // a different model: fine after reset
    /// ```
    pub fn reset(&mut self) {
        self.m.clear();
        self.v.clear();
        self.t = 0;
    }
}

/// A learning rate falling linearly from `start` (at step 0) to `end` (at
/// step `steps`), and staying at `end` afterwards:
///
/// ```text
/// rate(s) = start + (end − start) · min(s, steps) / steps
/// ```
///
/// `rate(0)` is exactly `start` and `rate(s)` for `s >= steps` exactly
/// `end` (with `steps == 0`, always `end`). Feed it to an optimizer with
/// `set_learning_rate` before each step.
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use autograd::optim::{LinearDecay, Sgd};
///
/// let schedule = LinearDecay { start: 1.0, end: 0.1, steps: 100 };
/// assert_eq!(schedule.rate(0), 1.0);
/// assert!((schedule.rate(50) - 0.55).abs() < 1e-15);
/// assert_eq!(schedule.rate(100), 0.1);
/// assert_eq!(schedule.rate(1_000), 0.1);
///
/// let mut sgd = Sgd::new(schedule.start);
/// for step in 0..3 {
///     sgd.set_learning_rate(schedule.rate(step));
///     // ... accumulate gradients, sgd.step(&mut params, &grads) ...
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinearDecay {
    /// The rate at step 0.
    pub start: f64,
    /// The rate from step `steps` on.
    pub end: f64,
    /// How many steps the decay takes.
    pub steps: usize,
}

impl LinearDecay {
    /// The learning rate for step `step` (counted from 0).
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::optim::LinearDecay;
    ///
    /// let schedule = LinearDecay { start: 0.1, end: 0.0, steps: 10 };
    /// assert_eq!(schedule.rate(0), 0.1);
    /// assert!((schedule.rate(5) - 0.05).abs() < 1e-15);
    /// assert_eq!(schedule.rate(10), 0.0);
    /// ```
    pub fn rate(&self, step: usize) -> f64 {
        if step >= self.steps {
            self.end
        } else {
            let fraction = step as f64 / self.steps as f64;
            self.start + (self.end - self.start) * fraction
        }
    }
}
