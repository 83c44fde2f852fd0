//! Neurons, layers and multi-layer perceptrons whose forward passes are
//! `#[differentiable]` functions and whose backward passes chain the
//! generated `_adjoint`s, layer by layer, the way backpropagation does.
//!
//! # Layout
//!
//! An [`Mlp`] keeps **all** its parameters in one flat `Vec<f64>`
//! ([`Mlp::parameters`]): layer after layer, and inside a layer neuron after
//! neuron, each neuron as its weights followed by its bias
//! (`[w_0, .., w_{n-1}, b]`, see [`neuron`]). A layer of `n` inputs and `m`
//! outputs therefore owns `m·(n + 1)` consecutive parameters
//! ([`Layer::num_parameters`], [`Mlp::layer_parameters`]).
//!
//! # Gradients: the caller owns the buffer
//!
//! The gradient is a flat `&mut [f64]` of the same length as the parameters,
//! owned by the caller ([`Mlp::gradient_buffer`] makes a zeroed one), so it
//! can be handed to an optimiser next to [`Mlp::parameters_mut`] without
//! fighting the borrow checker. Every backward method **adds** into it, like
//! the generated `_adjoint`s do: zero it yourself before each step
//! (`grad.fill(0.0)`), or let it accumulate over several batches.
//!
//! # Batches
//!
//! A batch of `n` inputs is one flat row-major slice of `n · inputs` numbers
//! (`[x0_0, x0_1, x1_0, x1_1, ..]`); its outputs come back the same way,
//! `n · outputs` numbers. A `Vec<Vec<f64>>` becomes one with `.concat()`.
//!
//! ```
//! # extern crate autograd_runtime as autograd;
//! use autograd::nn::{Activation, Mlp};
//!
//! // 2 inputs → 8 ReLU → 1 linear output, initialised from seed 7.
//! let mut mlp = Mlp::new(2, &[8, 1], Activation::Relu, 7);
//! assert_eq!(mlp.num_parameters(), 8 * 3 + 9);
//!
//! // XOR, by plain gradient descent on the mean squared error.
//! let xs = [0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0];
//! let ys = [0.0, 1.0, 1.0, 0.0];
//! let mut grad = mlp.gradient_buffer();
//! for _ in 0..500 {
//!     grad.fill(0.0);
//!     mlp.loss_grad(&xs, |out, d_out| {
//!         let mut loss = 0.0;
//!         for i in 0..ys.len() {
//!             loss += (out[i] - ys[i]).powi(2) / 4.0;
//!             d_out[i] += 2.0 * (out[i] - ys[i]) / 4.0;
//!         }
//!         loss
//!     }, &mut grad);
//!     for (p, g) in mlp.parameters_mut().iter_mut().zip(&grad) {
//!         *p -= 0.1 * g;
//!     }
//! }
//! let out = mlp.forward_batch(&xs);
//! let loss: f64 = out.iter().zip(&ys).map(|(o, y)| (o - y).powi(2)).sum::<f64>() / 4.0;
//! assert!(loss < 0.05, "loss {loss}");
//! ```

use autograd_macros::differentiable;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::ops::Range;

/// The pre-activation of one neuron: `w[0]·x[0] + .. + w[n-1]·x[n-1] + w[n]`,
/// where `n = x.len()` and `w[n]` is the bias (`w.len()` must be `n + 1`).
///
/// `#[differentiable]` in both `w` and `x`, so it comes with `neuron_grad`
/// and `neuron_adjoint(w, x, d_out, d_w, d_x)`; the input adjoint `d_x` is
/// what a layer passes down to the layer before it.
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use autograd::nn::{neuron, neuron_adjoint};
///
/// let (w, x) = ([2.0, -1.0, 0.5], [3.0, 4.0]);
/// assert_eq!(neuron(&w, &x), 2.0 * 3.0 - 4.0 + 0.5);
///
/// let (mut d_w, mut d_x) = ([0.0; 3], [0.0; 2]);
/// neuron_adjoint(&w, &x, 2.0, &mut d_w, &mut d_x);
/// assert_eq!(d_w, [6.0, 8.0, 2.0]); // 2·x, and 2 for the bias
/// assert_eq!(d_x, [4.0, -2.0]); // 2·w
/// ```
#[differentiable]
pub fn neuron(w: &[f64], x: &[f64]) -> f64 {
    let n = x.len();
    assert!(
        w.len() == n + 1,
        "autograd::nn::neuron: {} weights for {} inputs (need inputs + 1, the last one the bias)",
        w.len(),
        n
    );
    let mut s = w[n];
    for i in 0..n {
        s += w[i] * x[i];
    }
    s
}

/// The rectifier `max(z, 0)`, with derivative 0 at the kink `z = 0`.
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use autograd::nn::{relu, relu_grad};
/// assert_eq!((relu(-2.0), relu(3.0)), (0.0, 3.0));
/// assert_eq!((relu_grad(-2.0).1, relu_grad(0.0).1, relu_grad(3.0).1), (0.0, 0.0, 1.0));
/// ```
#[differentiable]
pub fn relu(z: f64) -> f64 {
    if z > 0.0 {
        z
    } else {
        0.0
    }
}

/// The hyperbolic tangent, `tanh z`.
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use autograd::nn::tanh_grad;
/// let (value, d) = tanh_grad(0.5);
/// assert_eq!(value, 0.5_f64.tanh());
/// assert!((d - (1.0 - value * value)).abs() < 1e-15);
/// ```
#[differentiable]
pub fn tanh(z: f64) -> f64 {
    z.tanh()
}

/// The logistic function `1 / (1 + e^-z)`, computed without overflow for
/// large `|z|` (and so is its derivative).
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use autograd::nn::{sigmoid, sigmoid_grad};
/// assert_eq!(sigmoid(0.0), 0.5);
/// assert_eq!(sigmoid_grad(0.0).1, 0.25);
/// assert_eq!(sigmoid_grad(-1000.0), (0.0, 0.0)); // no NaN far out
/// ```
#[differentiable]
pub fn sigmoid(z: f64) -> f64 {
    if z >= 0.0 {
        1.0 / (1.0 + (-z).exp())
    } else {
        let e = z.exp();
        e / (1.0 + e)
    }
}

/// The identity, `z`: the activation of a linear (output) layer.
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use autograd::nn::linear_grad;
/// assert_eq!(linear_grad(-3.5), (-3.5, 1.0));
/// ```
#[differentiable]
pub fn linear(z: f64) -> f64 {
    z
}

/// The nonlinearity applied to each neuron's pre-activation.
///
/// Each variant dispatches to the `#[differentiable]` function of the same
/// name ([`relu`], [`tanh`], [`sigmoid`], [`linear`]) and its generated
/// adjoint.
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use autograd::nn::Activation;
/// assert_eq!(Activation::Relu.apply(-1.0), 0.0);
/// assert_eq!(Activation::Sigmoid.apply(0.0), 0.5);
/// // d_out · f'(z): tanh'(0) = 1.
/// assert_eq!(Activation::Tanh.adjoint(0.0, 3.0), 3.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Activation {
    /// `max(z, 0)`, see [`relu`].
    Relu,
    /// `tanh z`, see [`tanh`].
    Tanh,
    /// `1 / (1 + e^-z)`, see [`sigmoid`].
    Sigmoid,
    /// `z`, see [`linear`].
    Linear,
}

impl Activation {
    /// The activation of pre-activation `z`.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::nn::Activation;
    /// assert_eq!(Activation::Linear.apply(-2.0), -2.0);
    /// ```
    #[inline]
    pub fn apply(self, z: f64) -> f64 {
        match self {
            Activation::Relu => relu(z),
            Activation::Tanh => tanh(z),
            Activation::Sigmoid => sigmoid(z),
            Activation::Linear => linear(z),
        }
    }

    /// `d_out · f'(z)`: the adjoint of the pre-activation `z` given the
    /// adjoint `d_out` of the activation, computed by the generated
    /// `_adjoint` of the activation function.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::nn::Activation;
    /// assert_eq!(Activation::Relu.adjoint(2.0, 5.0), 5.0);
    /// assert_eq!(Activation::Relu.adjoint(-2.0, 5.0), 0.0);
    /// ```
    #[inline]
    pub fn adjoint(self, z: f64, d_out: f64) -> f64 {
        let mut d_z = 0.0;
        match self {
            Activation::Relu => relu_adjoint(z, d_out, &mut d_z),
            Activation::Tanh => tanh_adjoint(z, d_out, &mut d_z),
            Activation::Sigmoid => sigmoid_adjoint(z, d_out, &mut d_z),
            Activation::Linear => linear_adjoint(z, d_out, &mut d_z),
        };
        d_z
    }
}

/// One neuron: `activation(neuron(w, x))`, with `inputs + 1` parameters
/// `[w_0, .., w_{inputs-1}, bias]` held by the caller.
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use autograd::nn::{Activation, Neuron};
///
/// let n = Neuron::new(2, Activation::Relu);
/// let w = [1.0, -1.0, 0.5];
/// assert_eq!(n.num_parameters(), 3);
/// assert_eq!(n.forward(&w, &[3.0, 1.0]), 2.5);
///
/// let (mut d_w, mut d_x) = ([0.0; 3], [0.0; 2]);
/// n.backward(&w, &[3.0, 1.0], 1.0, &mut d_w, &mut d_x);
/// assert_eq!((d_w, d_x), ([3.0, 1.0, 1.0], [1.0, -1.0]));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Neuron {
    /// Number of inputs.
    pub inputs: usize,
    /// Its nonlinearity.
    pub activation: Activation,
}

impl Neuron {
    /// A neuron of `inputs` inputs.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::nn::{Activation, Neuron};
    /// assert_eq!(Neuron::new(4, Activation::Tanh).inputs, 4);
    /// ```
    pub fn new(inputs: usize, activation: Activation) -> Neuron {
        Neuron { inputs, activation }
    }

    /// `inputs + 1`: its weights and its bias.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::nn::{Activation, Neuron};
    /// assert_eq!(Neuron::new(4, Activation::Tanh).num_parameters(), 5);
    /// ```
    pub fn num_parameters(&self) -> usize {
        self.inputs + 1
    }

    /// Its output for input `x`, with parameters `w`.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::nn::{Activation, Neuron};
    /// let n = Neuron::new(1, Activation::Linear);
    /// assert_eq!(n.forward(&[2.0, 1.0], &[3.0]), 7.0);
    /// ```
    pub fn forward(&self, w: &[f64], x: &[f64]) -> f64 {
        self.activation.apply(neuron(w, x))
    }

    /// Adds `d_out · ∂out/∂w` into `d_w` and `d_out · ∂out/∂x` into `d_x`;
    /// returns the output.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::nn::{Activation, Neuron};
    /// let n = Neuron::new(1, Activation::Linear);
    /// let (mut d_w, mut d_x) = ([0.0; 2], [0.0]);
    /// assert_eq!(n.backward(&[2.0, 1.0], &[3.0], 1.0, &mut d_w, &mut d_x), 7.0);
    /// assert_eq!((d_w, d_x), ([3.0, 1.0], [2.0]));
    /// ```
    pub fn backward(
        &self,
        w: &[f64],
        x: &[f64],
        d_out: f64,
        d_w: &mut [f64],
        d_x: &mut [f64],
    ) -> f64 {
        let z = neuron(w, x);
        let d_z = self.activation.adjoint(z, d_out);
        neuron_adjoint(w, x, d_z, d_w, d_x);
        self.activation.apply(z)
    }
}

/// A fully connected layer: `outputs` neurons, each over all `inputs`, with
/// the same activation. Its `outputs · (inputs + 1)` parameters are held by
/// the caller (inside an [`Mlp`], a range of the MLP's flat vector), neuron
/// after neuron, each `[w_0, .., w_{inputs-1}, bias]`.
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use autograd::nn::{Activation, Layer};
///
/// let layer = Layer::new(2, 2, Activation::Relu);
/// let w = [1.0, 1.0, 0.0, /* second neuron */ 1.0, -1.0, -5.0];
/// let mut out = [0.0; 2];
/// layer.forward(&w, &[2.0, 1.0], &mut out);
/// assert_eq!(out, [3.0, 0.0]);
///
/// let (mut d_w, mut d_x) = ([0.0; 6], [0.0; 2]);
/// layer.backward(&w, &[2.0, 1.0], &[1.0, 1.0], &mut d_w, &mut d_x);
/// assert_eq!(d_w, [2.0, 1.0, 1.0, 0.0, 0.0, 0.0]); // the second neuron is off
/// assert_eq!(d_x, [1.0, 1.0]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Layer {
    /// Number of inputs of each neuron.
    pub inputs: usize,
    /// Number of neurons, i.e. of outputs.
    pub outputs: usize,
    /// The nonlinearity of every neuron.
    pub activation: Activation,
}

impl Layer {
    /// A layer of `outputs` neurons over `inputs` inputs.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::nn::{Activation, Layer};
    /// assert_eq!(Layer::new(3, 4, Activation::Tanh).outputs, 4);
    /// ```
    pub fn new(inputs: usize, outputs: usize, activation: Activation) -> Layer {
        Layer {
            inputs,
            outputs,
            activation,
        }
    }

    /// `outputs · (inputs + 1)`.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::nn::{Activation, Layer};
    /// assert_eq!(Layer::new(3, 4, Activation::Tanh).num_parameters(), 16);
    /// ```
    pub fn num_parameters(&self) -> usize {
        self.outputs * (self.inputs + 1)
    }

    /// Its `j`-th neuron.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::nn::{Activation, Layer, Neuron};
    /// assert_eq!(Layer::new(3, 4, Activation::Tanh).neuron(0), Neuron::new(3, Activation::Tanh));
    /// ```
    pub fn neuron(&self, j: usize) -> Neuron {
        assert!(
            j < self.outputs,
            "autograd::nn::Layer: neuron {j} of {}",
            self.outputs
        );
        Neuron::new(self.inputs, self.activation)
    }

    fn check(&self, w: usize, x: usize) {
        assert!(
            w == self.num_parameters(),
            "autograd::nn::Layer: {w} parameters for a layer of {}",
            self.num_parameters()
        );
        assert!(
            x == self.inputs,
            "autograd::nn::Layer: input of length {x} for a layer of {} inputs",
            self.inputs
        );
    }

    /// Writes the layer's outputs for input `x` and parameters `w` into
    /// `out` (of length `outputs`).
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::nn::{Activation, Layer};
    /// let mut out = [0.0];
    /// Layer::new(2, 1, Activation::Linear).forward(&[1.0, 2.0, 3.0], &[1.0, 1.0], &mut out);
    /// assert_eq!(out, [6.0]);
    /// ```
    pub fn forward(&self, w: &[f64], x: &[f64], out: &mut [f64]) {
        self.check(w.len(), x.len());
        assert!(
            out.len() == self.outputs,
            "autograd::nn::Layer: output buffer of {} for {} outputs",
            out.len(),
            self.outputs
        );
        for (o, wj) in out.iter_mut().zip(w.chunks_exact(self.inputs + 1)) {
            *o = self.activation.apply(neuron(wj, x));
        }
    }

    /// Forward pass that also keeps the pre-activations `z`.
    fn forward_traced(&self, w: &[f64], x: &[f64], z: &mut [f64], out: &mut [f64]) {
        for ((o, zj), wj) in out
            .iter_mut()
            .zip(z.iter_mut())
            .zip(w.chunks_exact(self.inputs + 1))
        {
            *zj = neuron(wj, x);
            *o = self.activation.apply(*zj);
        }
    }

    /// Backpropagates `d_out` (the adjoint of the layer's outputs) through
    /// the layer at input `x`: **adds** `Σ_j d_out[j] · ∂out_j/∂w` into
    /// `d_w` (length [`num_parameters`](Layer::num_parameters)) and
    /// `Σ_j d_out[j] · ∂out_j/∂x` into `d_x` (length `inputs`), by the
    /// generated adjoints of the activation and of [`neuron`].
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::nn::{Activation, Layer};
    /// let layer = Layer::new(1, 2, Activation::Linear);
    /// let (mut d_w, mut d_x) = ([0.0; 4], [0.0]);
    /// layer.backward(&[2.0, 0.0, 3.0, 0.0], &[5.0], &[1.0, 10.0], &mut d_w, &mut d_x);
    /// assert_eq!((d_w, d_x), ([5.0, 1.0, 50.0, 10.0], [32.0]));
    /// ```
    pub fn backward(&self, w: &[f64], x: &[f64], d_out: &[f64], d_w: &mut [f64], d_x: &mut [f64]) {
        self.check(w.len(), x.len());
        self.check(d_w.len(), d_x.len());
        assert!(
            d_out.len() == self.outputs,
            "autograd::nn::Layer: output adjoint of {} for {} outputs",
            d_out.len(),
            self.outputs
        );
        let n = self.inputs + 1;
        for (j, &d) in d_out.iter().enumerate() {
            let wj = &w[j * n..(j + 1) * n];
            let z = neuron(wj, x);
            self.backward_neuron(wj, x, z, d, &mut d_w[j * n..(j + 1) * n], d_x);
        }
    }

    /// Backward pass from kept pre-activations `z`.
    fn backward_traced(
        &self,
        w: &[f64],
        x: &[f64],
        z: &[f64],
        d_out: &[f64],
        d_w: &mut [f64],
        d_x: &mut [f64],
    ) {
        let n = self.inputs + 1;
        for (j, (&zj, &d)) in z.iter().zip(d_out).enumerate() {
            self.backward_neuron(
                &w[j * n..(j + 1) * n],
                x,
                zj,
                d,
                &mut d_w[j * n..(j + 1) * n],
                d_x,
            );
        }
    }

    #[inline]
    fn backward_neuron(
        &self,
        w: &[f64],
        x: &[f64],
        z: f64,
        d_out: f64,
        d_w: &mut [f64],
        d_x: &mut [f64],
    ) {
        let d_z = self.activation.adjoint(z, d_out);
        // A neuron with no adjoint (a ReLU that is off) adds nothing.
        if d_z != 0.0 {
            neuron_adjoint(w, x, d_z, d_w, d_x);
        }
    }
}

/// How [`Mlp::initialize`] draws the parameters.
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use autograd::nn::{Activation, Init, Mlp};
/// let mut mlp = Mlp::new(3, &[4, 1], Activation::Tanh, 0);
/// mlp.initialize(Init::Uniform(1.0), 0);
/// assert!(mlp.parameters().iter().all(|p| p.abs() <= 1.0));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Init {
    /// Weights uniform in `±√(6 / fan_in)` (He) for ReLU layers and in
    /// `±√(6 / (fan_in + fan_out))` (Xavier/Glorot) for the others; biases 0.
    /// What the constructors use.
    Scaled,
    /// Every parameter, biases included, uniform in `±a` (as in micrograd,
    /// with `a = 1`).
    Uniform(f64),
}

/// A multi-layer perceptron: [`Layer`]s applied in turn, with all its
/// parameters in one flat `Vec<f64>` (see the [module docs](self) for the
/// layout, and for the caller-owned gradient buffer).
///
/// ```
/// # extern crate autograd_runtime as autograd;
/// use autograd::nn::{Activation, Mlp};
///
/// let mlp = Mlp::new(3, &[4, 4, 1], Activation::Tanh, 42);
/// assert_eq!(mlp.num_parameters(), 41);
/// let y = mlp.forward(&[2.0, 3.0, -1.0]);
/// assert_eq!(y.len(), 1);
///
/// // ∂y/∂parameters and ∂y/∂x, by chaining the layers' adjoints.
/// let mut grad = mlp.gradient_buffer();
/// let mut d_x = [0.0; 3];
/// mlp.backward_input(&[2.0, 3.0, -1.0], &[1.0], &mut grad, &mut d_x);
/// assert!(grad.iter().any(|&g| g != 0.0));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Mlp {
    inputs: usize,
    layers: Vec<Layer>,
    ranges: Vec<Range<usize>>,
    params: Vec<f64>,
    /// Length of a forward trace: inputs plus every layer's outputs.
    trace_len: usize,
}

impl Mlp {
    /// An MLP of `inputs` inputs and one layer per entry of `sizes`: every
    /// layer but the last uses `hidden`, **the last one is
    /// [`Linear`](Activation::Linear)** (the usual regression/score head; use
    /// [`with_activations`](Mlp::with_activations) to choose every layer).
    /// Parameters are drawn by [`Init::Scaled`] from `seed`, so the same
    /// arguments give the same network.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::nn::{Activation, Mlp};
    /// let mlp = Mlp::new(2, &[16, 16, 1], Activation::Relu, 1);
    /// assert_eq!(mlp.num_parameters(), 337);
    /// assert_eq!(mlp.layers()[1].activation, Activation::Relu);
    /// assert_eq!(mlp.layers()[2].activation, Activation::Linear);
    /// assert_eq!(mlp, Mlp::new(2, &[16, 16, 1], Activation::Relu, 1));
    /// ```
    pub fn new(inputs: usize, sizes: &[usize], hidden: Activation, seed: u64) -> Mlp {
        let layers: Vec<(usize, Activation)> = sizes
            .iter()
            .enumerate()
            .map(|(i, &size)| {
                (
                    size,
                    if i + 1 == sizes.len() {
                        Activation::Linear
                    } else {
                        hidden
                    },
                )
            })
            .collect();
        Mlp::with_activations(inputs, &layers, seed)
    }

    /// An MLP of `inputs` inputs and one layer per `(size, activation)`,
    /// drawn by [`Init::Scaled`] from `seed`.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::nn::{Activation, Mlp};
    /// // A classifier with a sigmoid output.
    /// let mlp = Mlp::with_activations(2, &[(8, Activation::Tanh), (1, Activation::Sigmoid)], 3);
    /// let p = mlp.forward(&[0.5, -0.5])[0];
    /// assert!(0.0 < p && p < 1.0);
    /// ```
    pub fn with_activations(inputs: usize, layers: &[(usize, Activation)], seed: u64) -> Mlp {
        assert!(
            !layers.is_empty(),
            "autograd::nn::Mlp: needs at least one layer"
        );
        let mut fan_in = inputs;
        let mut start = 0;
        let mut built = Vec::with_capacity(layers.len());
        let mut ranges = Vec::with_capacity(layers.len());
        for &(size, activation) in layers {
            assert!(size > 0, "autograd::nn::Mlp: a layer of 0 neurons");
            let layer = Layer::new(fan_in, size, activation);
            ranges.push(start..start + layer.num_parameters());
            start += layer.num_parameters();
            built.push(layer);
            fan_in = size;
        }
        let trace_len = inputs + layers.iter().map(|l| l.0).sum::<usize>();
        let mut mlp = Mlp {
            inputs,
            layers: built,
            ranges,
            params: vec![0.0; start],
            trace_len,
        };
        mlp.initialize(Init::Scaled, seed);
        mlp
    }

    /// Redraws every parameter by `init` from `seed`.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::nn::{Activation, Init, Mlp};
    /// let mut a = Mlp::new(2, &[4, 1], Activation::Relu, 0);
    /// let b = a.clone();
    /// a.initialize(Init::Scaled, 0);
    /// assert_eq!(a, b);
    /// ```
    pub fn initialize(&mut self, init: Init, seed: u64) {
        let mut rng = StdRng::seed_from_u64(seed);
        for (layer, range) in self.layers.iter().zip(&self.ranges) {
            let n = layer.inputs + 1;
            let (bound, bias) = match init {
                Init::Scaled => {
                    let bound = match layer.activation {
                        Activation::Relu => (6.0 / layer.inputs.max(1) as f64).sqrt(),
                        _ => (6.0 / (layer.inputs + layer.outputs) as f64).sqrt(),
                    };
                    (bound, 0.0)
                }
                Init::Uniform(a) => {
                    assert!(
                        a >= 0.0,
                        "autograd::nn::Init::Uniform({a}): the bound must be non-negative"
                    );
                    (a, a)
                }
            };
            for (k, p) in self.params[range.clone()].iter_mut().enumerate() {
                let b = if k % n == n - 1 { bias } else { bound };
                *p = if b > 0.0 { rng.gen_range(-b..=b) } else { 0.0 };
            }
        }
    }

    /// Number of inputs.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::nn::{Activation, Mlp};
    /// assert_eq!(Mlp::new(3, &[4, 2], Activation::Relu, 0).inputs(), 3);
    /// ```
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// Number of outputs (the size of the last layer).
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::nn::{Activation, Mlp};
    /// assert_eq!(Mlp::new(3, &[4, 2], Activation::Relu, 0).outputs(), 2);
    /// ```
    pub fn outputs(&self) -> usize {
        self.layers[self.layers.len() - 1].outputs
    }

    /// Its layers, first to last.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::nn::{Activation, Layer, Mlp};
    /// let mlp = Mlp::new(3, &[4, 2], Activation::Relu, 0);
    /// assert_eq!(mlp.layers()[1], Layer::new(4, 2, Activation::Linear));
    /// ```
    pub fn layers(&self) -> &[Layer] {
        &self.layers
    }

    /// Where layer `i`'s parameters sit in [`parameters`](Mlp::parameters).
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::nn::{Activation, Mlp};
    /// let mlp = Mlp::new(3, &[4, 2], Activation::Relu, 0);
    /// assert_eq!(mlp.layer_parameters(0), 0..16);
    /// assert_eq!(mlp.layer_parameters(1), 16..26);
    /// ```
    pub fn layer_parameters(&self, i: usize) -> Range<usize> {
        self.ranges[i].clone()
    }

    /// Total number of parameters: `Σ outputs · (inputs + 1)` over layers.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::nn::{Activation, Mlp};
    /// assert_eq!(Mlp::new(3, &[4, 4, 1], Activation::Tanh, 0).num_parameters(), 41);
    /// ```
    pub fn num_parameters(&self) -> usize {
        self.params.len()
    }

    /// All parameters, flat (layout in the [module docs](self)).
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::nn::{Activation, Mlp};
    /// let mlp = Mlp::new(1, &[1], Activation::Relu, 0);
    /// assert_eq!(mlp.parameters().len(), 2); // one weight, one bias
    /// ```
    pub fn parameters(&self) -> &[f64] {
        &self.params
    }

    /// All parameters, flat and writable: what an optimiser updates.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::nn::{Activation, Mlp};
    /// let mut mlp = Mlp::new(1, &[1], Activation::Relu, 0);
    /// mlp.parameters_mut().copy_from_slice(&[2.0, 1.0]);
    /// assert_eq!(mlp.forward(&[3.0]), vec![7.0]);
    /// ```
    pub fn parameters_mut(&mut self) -> &mut [f64] {
        &mut self.params
    }

    /// A zeroed gradient buffer: `vec![0.0; num_parameters()]`.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::nn::{Activation, Mlp};
    /// let mlp = Mlp::new(2, &[3, 1], Activation::Relu, 0);
    /// assert_eq!(mlp.gradient_buffer(), vec![0.0; 13]);
    /// ```
    pub fn gradient_buffer(&self) -> Vec<f64> {
        vec![0.0; self.params.len()]
    }

    fn check_input(&self, len: usize) {
        assert!(
            len == self.inputs,
            "autograd::nn::Mlp: input of length {len} for an MLP of {} inputs",
            self.inputs
        );
    }

    fn check_grad(&self, len: usize) {
        assert!(
            len == self.params.len(),
            "autograd::nn::Mlp: gradient buffer of length {len} for {} parameters",
            self.params.len()
        );
    }

    /// Runs the forward pass keeping every layer's input and pre-activation:
    /// `acts` = `[x, a_1, .., a_L]`, `zs` = `[z_1, .., z_L]`.
    fn trace(&self, x: &[f64], acts: &mut [f64], zs: &mut [f64]) {
        acts[..self.inputs].copy_from_slice(x);
        let (mut a, mut z) = (0, 0);
        for (layer, range) in self.layers.iter().zip(&self.ranges) {
            let (before, after) = acts.split_at_mut(a + layer.inputs);
            layer.forward_traced(
                &self.params[range.clone()],
                &before[a..],
                &mut zs[z..z + layer.outputs],
                &mut after[..layer.outputs],
            );
            a += layer.inputs;
            z += layer.outputs;
        }
    }

    /// Backward pass over a trace: adds into `grad`, and leaves the input
    /// adjoint in `d_acts[..inputs]` (`d_acts` is scratch, overwritten).
    fn backtrace(
        &self,
        acts: &[f64],
        zs: &[f64],
        d_output: &[f64],
        grad: &mut [f64],
        d_acts: &mut [f64],
    ) {
        d_acts.fill(0.0);
        let outputs = self.outputs();
        d_acts[self.trace_len - outputs..].copy_from_slice(d_output);
        let (mut a, mut z) = (self.trace_len - outputs, zs.len());
        for (layer, range) in self.layers.iter().zip(&self.ranges).rev() {
            z -= layer.outputs;
            a -= layer.inputs;
            let (before, after) = d_acts.split_at_mut(a + layer.inputs);
            layer.backward_traced(
                &self.params[range.clone()],
                &acts[a..a + layer.inputs],
                &zs[z..z + layer.outputs],
                &after[..layer.outputs],
                &mut grad[range.clone()],
                &mut before[a..],
            );
        }
    }

    /// The outputs for one input `x` (of length [`inputs`](Mlp::inputs)).
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::nn::{Activation, Mlp};
    /// let mlp = Mlp::new(2, &[4, 3], Activation::Tanh, 0);
    /// assert_eq!(mlp.forward(&[1.0, 2.0]).len(), 3);
    /// ```
    pub fn forward(&self, x: &[f64]) -> Vec<f64> {
        self.check_input(x.len());
        let mut acts = vec![0.0; self.trace_len];
        let mut zs = vec![0.0; self.trace_len - self.inputs];
        self.trace(x, &mut acts, &mut zs);
        acts.split_off(self.trace_len - self.outputs())
    }

    /// The outputs for a batch: `xs` holds `n` inputs row after row
    /// (`n · inputs` numbers), the result `n` outputs row after row.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::nn::{Activation, Mlp};
    /// let mlp = Mlp::new(2, &[4, 1], Activation::Tanh, 0);
    /// let ys = mlp.forward_batch(&[1.0, 2.0, 3.0, 4.0]);
    /// assert_eq!(ys, [mlp.forward(&[1.0, 2.0]), mlp.forward(&[3.0, 4.0])].concat());
    /// ```
    pub fn forward_batch(&self, xs: &[f64]) -> Vec<f64> {
        let n = self.batch_len(xs.len());
        let outputs = self.outputs();
        let mut acts = vec![0.0; self.trace_len];
        let mut zs = vec![0.0; self.trace_len - self.inputs];
        let mut out = Vec::with_capacity(n * outputs);
        for x in xs.chunks_exact(self.inputs) {
            self.trace(x, &mut acts, &mut zs);
            out.extend_from_slice(&acts[self.trace_len - outputs..]);
        }
        out
    }

    fn batch_len(&self, len: usize) -> usize {
        assert!(
            self.inputs > 0 && len % self.inputs == 0,
            "autograd::nn::Mlp: a batch of {len} numbers is not whole inputs of {}",
            self.inputs
        );
        len / self.inputs
    }

    /// Backpropagation for one input: **adds** `Σ_k d_output[k] · ∂out_k/∂θ`
    /// into `grad` (one entry per parameter θ), running the layers in reverse
    /// and passing each layer's input adjoint to the layer before it.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::nn::{Activation, Mlp};
    /// let mut mlp = Mlp::new(1, &[1], Activation::Relu, 0);
    /// mlp.parameters_mut().copy_from_slice(&[2.0, 1.0]); // y = 2x + 1
    /// let mut grad = mlp.gradient_buffer();
    /// mlp.backward(&[3.0], &[1.0], &mut grad);
    /// mlp.backward(&[3.0], &[1.0], &mut grad); // accumulates
    /// assert_eq!(grad, vec![6.0, 2.0]);
    /// ```
    pub fn backward(&self, x: &[f64], d_output: &[f64], grad: &mut [f64]) {
        let mut d_acts = vec![0.0; self.trace_len];
        self.backward_scratch(x, d_output, grad, &mut d_acts);
    }

    /// Like [`backward`](Mlp::backward), and also **adds**
    /// `Σ_k d_output[k] · ∂out_k/∂x` into `d_input` (length `inputs`).
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::nn::{Activation, Mlp};
    /// let mut mlp = Mlp::new(1, &[1], Activation::Relu, 0);
    /// mlp.parameters_mut().copy_from_slice(&[2.0, 1.0]); // y = 2x + 1
    /// let (mut grad, mut d_x) = (mlp.gradient_buffer(), [0.0]);
    /// mlp.backward_input(&[3.0], &[0.5], &mut grad, &mut d_x);
    /// assert_eq!((grad, d_x), (vec![1.5, 0.5], [1.0]));
    /// ```
    pub fn backward_input(
        &self,
        x: &[f64],
        d_output: &[f64],
        grad: &mut [f64],
        d_input: &mut [f64],
    ) {
        let mut d_acts = vec![0.0; self.trace_len];
        self.backward_scratch(x, d_output, grad, &mut d_acts);
        assert!(
            d_input.len() == self.inputs,
            "autograd::nn::Mlp: input adjoint of length {} for {} inputs",
            d_input.len(),
            self.inputs
        );
        for (d, &a) in d_input.iter_mut().zip(&d_acts[..self.inputs]) {
            *d += a;
        }
    }

    fn backward_scratch(&self, x: &[f64], d_output: &[f64], grad: &mut [f64], d_acts: &mut [f64]) {
        self.check_input(x.len());
        self.check_grad(grad.len());
        self.check_output_adjoint(d_output.len(), 1);
        let mut acts = vec![0.0; self.trace_len];
        let mut zs = vec![0.0; self.trace_len - self.inputs];
        self.trace(x, &mut acts, &mut zs);
        self.backtrace(&acts, &zs, d_output, grad, d_acts);
    }

    fn check_output_adjoint(&self, len: usize, n: usize) {
        assert!(
            len == n * self.outputs(),
            "autograd::nn::Mlp: output adjoint of length {len} for {n} outputs of {}",
            self.outputs()
        );
    }

    /// Backpropagation for a batch (`xs` and `d_outputs` row after row, as
    /// in [`forward_batch`](Mlp::forward_batch)): **adds** the sum over the
    /// batch of each input's [`backward`](Mlp::backward) into `grad`.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// use autograd::nn::{Activation, Mlp};
    /// let mut mlp = Mlp::new(1, &[1], Activation::Relu, 0);
    /// mlp.parameters_mut().copy_from_slice(&[2.0, 1.0]); // y = 2x + 1
    /// let mut grad = mlp.gradient_buffer();
    /// mlp.backward_batch(&[3.0, 5.0], &[1.0, -1.0], &mut grad);
    /// assert_eq!(grad, vec![3.0 - 5.0, 0.0]);
    /// ```
    pub fn backward_batch(&self, xs: &[f64], d_outputs: &[f64], grad: &mut [f64]) {
        let n = self.batch_len(xs.len());
        self.check_grad(grad.len());
        self.check_output_adjoint(d_outputs.len(), n);
        let mut acts = vec![0.0; self.trace_len];
        let mut zs = vec![0.0; self.trace_len - self.inputs];
        let mut d_acts = vec![0.0; self.trace_len];
        for (x, d) in xs
            .chunks_exact(self.inputs)
            .zip(d_outputs.chunks_exact(self.outputs()))
        {
            self.trace(x, &mut acts, &mut zs);
            self.backtrace(&acts, &zs, d, grad, &mut d_acts);
        }
    }

    /// A loss over a batch and its gradient in one pass: runs the batch
    /// forward (keeping what backward needs), calls
    /// `loss(outputs, d_outputs)` — which returns the loss of the
    /// row-after-row `outputs` and **adds** `∂loss/∂outputs` into the zeroed
    /// `d_outputs` — then backpropagates, **adding** `∂loss/∂θ` into `grad`.
    /// Returns the loss.
    ///
    /// A `#[differentiable]` loss fits directly: pass
    /// `|out, d_out| my_loss_adjoint(out, &targets, 1.0, d_out)`.
    ///
    /// ```
    /// # extern crate autograd_runtime as autograd;
    /// # use autograd_macros::differentiable;
    /// use autograd::nn::{Activation, Mlp};
    ///
    /// #[differentiable(wrt(outputs))]
    /// fn sum_of_squares(outputs: &[f64], targets: &[f64]) -> f64 {
    ///     let mut s = 0.0;
    ///     for i in 0..outputs.len() {
    ///         s += (outputs[i] - targets[i]) * (outputs[i] - targets[i]);
    ///     }
    ///     s
    /// }
    ///
    /// let mut mlp = Mlp::new(1, &[1], Activation::Relu, 0);
    /// mlp.parameters_mut().copy_from_slice(&[2.0, 1.0]); // y = 2x + 1
    /// let (xs, ys) = ([1.0, 2.0], [3.0, 4.0]);
    /// let mut grad = mlp.gradient_buffer();
    /// let loss = mlp.loss_grad(
    ///     &xs,
    ///     |out, d_out| sum_of_squares_adjoint(out, &ys, 1.0, d_out),
    ///     &mut grad,
    /// );
    /// // Outputs 3 and 5: loss 1, ∂/∂out = [0, 2], so ∂/∂w = 2·2, ∂/∂b = 2.
    /// assert_eq!((loss, grad), (1.0, vec![4.0, 2.0]));
    /// ```
    pub fn loss_grad<F>(&self, xs: &[f64], loss: F, grad: &mut [f64]) -> f64
    where
        F: FnOnce(&[f64], &mut [f64]) -> f64,
    {
        let n = self.batch_len(xs.len());
        self.check_grad(grad.len());
        let outputs = self.outputs();
        let z_len = self.trace_len - self.inputs;
        let mut acts = vec![0.0; n * self.trace_len];
        let mut zs = vec![0.0; n * z_len];
        let mut out = Vec::with_capacity(n * outputs);
        for ((x, a), z) in xs
            .chunks_exact(self.inputs)
            .zip(acts.chunks_exact_mut(self.trace_len))
            .zip(zs.chunks_exact_mut(z_len))
        {
            self.trace(x, a, z);
            out.extend_from_slice(&a[self.trace_len - outputs..]);
        }
        let mut d_out = vec![0.0; out.len()];
        let value = loss(&out, &mut d_out);
        let mut d_acts = vec![0.0; self.trace_len];
        for ((a, z), d) in acts
            .chunks_exact(self.trace_len)
            .zip(zs.chunks_exact(z_len))
            .zip(d_out.chunks_exact(outputs))
        {
            if d.iter().any(|&v| v != 0.0) {
                self.backtrace(a, z, d, grad, &mut d_acts);
            }
        }
        value
    }
}
