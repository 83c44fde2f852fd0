//! `autograd::nn` through the public API: shapes, exact forward values,
//! gradients (parameters and inputs) against central finite differences for
//! every activation, seeding, and a small training loop.

use autograd::nn::{neuron, neuron_adjoint, Activation, Init, Layer, Mlp, Neuron};

const ALL: [Activation; 4] = [
    Activation::Relu,
    Activation::Tanh,
    Activation::Sigmoid,
    Activation::Linear,
];

/// Largest `|analytic - numeric| / (1 + |numeric|)`.
/// (`autograd::check`'s central differences; `f` may keep scratch state.)
fn worst_error(analytic: &[f64], f: impl FnMut(&[f64]) -> f64, at: &[f64]) -> f64 {
    assert_eq!(analytic.len(), at.len());
    let f = std::cell::RefCell::new(f);
    let numeric = autograd::check::numeric_gradient(|p| (f.borrow_mut())(p), at);
    let mut worst: f64 = 0.0;
    for (a, n) in analytic.iter().zip(numeric) {
        worst = worst.max((a - n).abs() / (1.0 + n.abs()));
    }
    worst
}

fn sum_of_squares(out: &[f64]) -> f64 {
    out.iter().map(|o| o * o).sum()
}

/// A batch of 5 inputs of 3, fixed.
const XS: [f64; 15] = [
    0.3, -1.2, 0.8, 1.5, 0.1, -0.7, -0.4, 0.9, 0.2, 0.05, -0.6, 1.1, -1.3, 0.4, 0.6,
];

#[test]
fn parameter_counts_follow_the_formula() {
    assert_eq!(
        Mlp::new(3, &[4, 4, 1], Activation::Tanh, 0).num_parameters(),
        41
    );
    assert_eq!(
        Mlp::new(2, &[16, 16, 1], Activation::Relu, 0).num_parameters(),
        337
    );
    assert_eq!(
        Mlp::new(2, &[8, 1], Activation::Relu, 0).num_parameters(),
        33
    );
    assert_eq!(
        Mlp::new(1, &[10, 10, 1], Activation::Tanh, 0).num_parameters(),
        141
    );
    let mlp = Mlp::new(3, &[4, 4, 1], Activation::Tanh, 0);
    assert_eq!(mlp.parameters().len(), 41);
    assert_eq!(mlp.gradient_buffer().len(), 41);
    assert_eq!(mlp.layer_parameters(0), 0..16);
    assert_eq!(mlp.layer_parameters(1), 16..36);
    assert_eq!(mlp.layer_parameters(2), 36..41);
    assert_eq!((mlp.inputs(), mlp.outputs()), (3, 1));
    assert_eq!(Neuron::new(3, Activation::Relu).num_parameters(), 4);
    assert_eq!(Layer::new(3, 4, Activation::Relu).num_parameters(), 16);
}

#[test]
fn new_makes_hidden_layers_nonlinear_and_the_last_linear() {
    let mlp = Mlp::new(2, &[16, 16, 1], Activation::Relu, 0);
    let acts: Vec<_> = mlp.layers().iter().map(|l| l.activation).collect();
    assert_eq!(
        acts,
        [Activation::Relu, Activation::Relu, Activation::Linear]
    );
    let shapes: Vec<_> = mlp.layers().iter().map(|l| (l.inputs, l.outputs)).collect();
    assert_eq!(shapes, [(2, 16), (16, 16), (16, 1)]);

    let custom = Mlp::with_activations(2, &[(3, Activation::Tanh), (1, Activation::Sigmoid)], 0);
    let acts: Vec<_> = custom.layers().iter().map(|l| l.activation).collect();
    assert_eq!(acts, [Activation::Tanh, Activation::Sigmoid]);
}

#[test]
fn forward_of_a_hand_set_network_is_exact() {
    // 2 → 2 ReLU → 1 linear.
    let mut mlp = Mlp::new(2, &[2, 1], Activation::Relu, 0);
    mlp.parameters_mut()
        .copy_from_slice(&[1.0, 2.0, 0.5, -1.0, 1.0, 0.0, 2.0, -3.0, 0.25]);
    // z1 = 1 + 1 + 0.5 = 2.5, z2 = -1 + 0.5 = -0.5 → (2.5, 0); 2·2.5 + 0.25.
    assert_eq!(mlp.forward(&[1.0, 0.5]), vec![5.25]);
    // z1 = -3 + 0.5 < 0, z2 = 3 → (0, 3); -9 + 0.25.
    assert_eq!(mlp.forward(&[-3.0, 0.0]), vec![-8.75]);
    assert_eq!(mlp.forward_batch(&[1.0, 0.5, -3.0, 0.0]), vec![5.25, -8.75]);

    // 2 → 2 tanh → 1 sigmoid, against the same arithmetic written out
    // (bias first, then weights in order: the neuron's summation order).
    let p = [0.5, -0.25, 0.125, 1.5, 0.75, -0.5, 2.0, -1.0, 0.3];
    let mut mlp = Mlp::with_activations(2, &[(2, Activation::Tanh), (1, Activation::Sigmoid)], 0);
    mlp.parameters_mut().copy_from_slice(&p);
    let x = [0.7, -1.1];
    let h0 = (p[2] + p[0] * x[0] + p[1] * x[1]).tanh();
    let h1 = (p[5] + p[3] * x[0] + p[4] * x[1]).tanh();
    let z = p[8] + p[6] * h0 + p[7] * h1;
    let expected = if z >= 0.0 {
        1.0 / (1.0 + (-z).exp())
    } else {
        z.exp() / (1.0 + z.exp())
    };
    assert_eq!(mlp.forward(&x), vec![expected]);
}

#[test]
fn activations_are_the_usual_functions() {
    for z in [-30.0, -2.0, -0.5, 0.0, 0.5, 2.0, 30.0] {
        assert_eq!(Activation::Relu.apply(z), f64::max(z, 0.0));
        assert_eq!(Activation::Tanh.apply(z), f64::tanh(z));
        assert!((Activation::Sigmoid.apply(z) - 1.0 / (1.0 + (-z).exp())).abs() < 1e-15);
        assert_eq!(Activation::Linear.apply(z), z);
        for act in ALL {
            // The adjoint is d_out · f'(z).
            let numeric = autograd::check::numeric_gradient(|v| act.apply(v[0]), &[z])[0];
            if !(act == Activation::Relu && z == 0.0) {
                assert!(
                    (act.adjoint(z, 2.0) - 2.0 * numeric).abs() < 1e-8,
                    "{act:?} at {z}"
                );
            }
        }
    }
    // The kink convention: ReLU'(0) = 0.
    assert_eq!(Activation::Relu.adjoint(0.0, 1.0), 0.0);
    // No overflow far out.
    assert_eq!(Activation::Sigmoid.adjoint(-1e4, 1.0), 0.0);
    assert_eq!(Activation::Sigmoid.adjoint(1e4, 1.0), 0.0);
}

#[test]
fn neuron_adjoint_matches_finite_differences() {
    let w = [0.3, -0.8, 1.2, 0.1];
    let x = [1.0, 2.0, -0.5];
    let (mut d_w, mut d_x) = ([0.0; 4], [0.0; 3]);
    let value = neuron_adjoint(&w, &x, 1.0, &mut d_w, &mut d_x);
    assert_eq!(value, neuron(&w, &x));
    assert_eq!(d_w, [1.0, 2.0, -0.5, 1.0]);
    assert_eq!(d_x, [0.3, -0.8, 1.2]);
}

#[test]
fn parameter_gradient_matches_finite_differences_for_every_activation() {
    for act in ALL {
        // Every layer `act`, so the output activation is exercised too,
        // and once more with the usual linear head.
        for mlp in [
            Mlp::with_activations(3, &[(5, act), (4, act), (2, act)], 11),
            Mlp::new(3, &[5, 4, 2], act, 12),
        ] {
            let mut grad = mlp.gradient_buffer();
            let loss = mlp.loss_grad(
                &XS,
                |out, d_out| {
                    for (d, o) in d_out.iter_mut().zip(out) {
                        *d += 2.0 * o;
                    }
                    sum_of_squares(out)
                },
                &mut grad,
            );
            assert_eq!(loss, sum_of_squares(&mlp.forward_batch(&XS)));
            assert!(grad.iter().any(|&g| g != 0.0));
            let mut probe = mlp.clone();
            let worst = worst_error(
                &grad,
                |p| {
                    probe.parameters_mut().copy_from_slice(p);
                    sum_of_squares(&probe.forward_batch(&XS))
                },
                mlp.parameters(),
            );
            assert!(worst < 1e-6, "{act:?}: worst error {worst}");
        }
    }
}

#[test]
fn input_gradient_matches_finite_differences_for_every_activation() {
    for act in ALL {
        let mut mlp = Mlp::with_activations(3, &[(6, act), (5, act), (2, act)], 5);
        // Nonzero biases: with zero ones, an all-off ReLU layer puts the next
        // layer exactly on its kink, where one-sided slopes differ.
        mlp.initialize(Init::Uniform(0.8), 5);
        for x in XS.chunks(3) {
            // y = 1.5·out_0 - 0.5·out_1
            let d_output = [1.5, -0.5];
            let mut grad = mlp.gradient_buffer();
            let mut d_x = [0.0; 3];
            mlp.backward_input(x, &d_output, &mut grad, &mut d_x);
            let y = |v: &[f64]| {
                let out = mlp.forward(v);
                1.5 * out[0] - 0.5 * out[1]
            };
            let worst = worst_error(&d_x, y, x);
            assert!(worst < 1e-7, "{act:?}: worst input error {worst}");

            // ∂y/∂θ for this single input too.
            let mut probe = mlp.clone();
            let worst = worst_error(
                &grad,
                |p| {
                    probe.parameters_mut().copy_from_slice(p);
                    let out = probe.forward(x);
                    1.5 * out[0] - 0.5 * out[1]
                },
                mlp.parameters(),
            );
            assert!(worst < 1e-7, "{act:?}: worst parameter error {worst}");
        }
    }
}

#[test]
fn backward_variants_agree_and_accumulate() {
    let mlp = Mlp::new(3, &[4, 4, 2], Activation::Tanh, 9);
    let d_outputs: Vec<f64> = (0..10).map(|i| (i as f64 - 4.5) / 3.0).collect();

    let mut one_by_one = mlp.gradient_buffer();
    for (x, d) in XS.chunks(3).zip(d_outputs.chunks(2)) {
        mlp.backward(x, d, &mut one_by_one);
    }
    let mut batch = mlp.gradient_buffer();
    mlp.backward_batch(&XS, &d_outputs, &mut batch);
    let mut fused = mlp.gradient_buffer();
    mlp.loss_grad(
        &XS,
        |out, d_out| {
            d_out.copy_from_slice(&d_outputs);
            out.iter().zip(&d_outputs).map(|(o, d)| o * d).sum()
        },
        &mut fused,
    );
    for ((a, b), c) in one_by_one.iter().zip(&batch).zip(&fused) {
        assert!((a - b).abs() < 1e-14 && (a - c).abs() < 1e-14);
    }

    // Backward adds: a second call doubles the gradient.
    mlp.backward_batch(&XS, &d_outputs, &mut batch);
    for (a, b) in one_by_one.iter().zip(&batch) {
        assert!((2.0 * a - b).abs() < 1e-13);
    }
}

#[test]
fn layer_and_neuron_backward_match_the_mlp() {
    // A one-layer MLP is its layer; the layer's neurons are its neurons.
    let mlp = Mlp::with_activations(3, &[(4, Activation::Sigmoid)], 2);
    let layer = mlp.layers()[0];
    let x = [0.2, -0.4, 1.0];
    let d_out = [1.0, -2.0, 0.5, 3.0];
    let mut out = [0.0; 4];
    layer.forward(mlp.parameters(), &x, &mut out);
    assert_eq!(out.to_vec(), mlp.forward(&x));

    let (mut d_w, mut d_x) = (mlp.gradient_buffer(), [0.0; 3]);
    layer.backward(mlp.parameters(), &x, &d_out, &mut d_w, &mut d_x);
    let (mut grad, mut d_input) = (mlp.gradient_buffer(), [0.0; 3]);
    mlp.backward_input(&x, &d_out, &mut grad, &mut d_input);
    assert_eq!(d_w, grad);
    assert_eq!(d_x, d_input);

    let (mut n_w, mut n_x) = (mlp.gradient_buffer(), [0.0; 3]);
    for (j, &d) in d_out.iter().enumerate() {
        let r = j * 4..(j + 1) * 4;
        let y =
            layer
                .neuron(j)
                .backward(&mlp.parameters()[r.clone()], &x, d, &mut n_w[r], &mut n_x);
        assert_eq!(y, out[j]);
    }
    assert_eq!(n_w, grad);
    for (a, b) in n_x.iter().zip(&d_input) {
        assert!((a - b).abs() < 1e-15);
    }
}

#[test]
fn seeding_is_reproducible() {
    let a = Mlp::new(2, &[16, 16, 1], Activation::Relu, 123);
    let b = Mlp::new(2, &[16, 16, 1], Activation::Relu, 123);
    let c = Mlp::new(2, &[16, 16, 1], Activation::Relu, 124);
    assert_eq!(a.parameters(), b.parameters());
    assert_ne!(a.parameters(), c.parameters());

    let mut d = a.clone();
    d.initialize(Init::Uniform(1.0), 5);
    let mut e = a.clone();
    e.initialize(Init::Uniform(1.0), 5);
    assert_eq!(d, e);
    assert!(d.parameters().iter().all(|p| p.abs() <= 1.0));
    d.initialize(Init::Scaled, 123);
    assert_eq!(d, a);
}

#[test]
fn scaled_init_is_bounded_with_zero_biases() {
    let mlp = Mlp::new(2, &[16, 16, 1], Activation::Relu, 77);
    for (i, layer) in mlp.layers().iter().enumerate() {
        let bound = match layer.activation {
            Activation::Relu => (6.0 / layer.inputs as f64).sqrt(),
            _ => (6.0 / (layer.inputs + layer.outputs) as f64).sqrt(),
        };
        let params = &mlp.parameters()[mlp.layer_parameters(i)];
        for neuron in params.chunks(layer.inputs + 1) {
            let (w, b) = neuron.split_at(layer.inputs);
            assert_eq!(b, [0.0]);
            assert!(w.iter().all(|v| v.abs() <= bound));
            assert!(w.iter().any(|v| v.abs() > 0.1 * bound));
        }
    }
}

#[test]
fn sgd_learns_xor() {
    let xs = [0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0];
    let ys = [0.0, 1.0, 1.0, 0.0];
    let mse = |out: &[f64], d_out: &mut [f64]| {
        let n = ys.len() as f64;
        let mut loss = 0.0;
        for i in 0..ys.len() {
            let e = out[i] - ys[i];
            loss += e * e / n;
            d_out[i] += 2.0 * e / n;
        }
        loss
    };
    let mut mlp = Mlp::new(2, &[8, 1], Activation::Relu, 1);
    let mut grad = mlp.gradient_buffer();
    let start = mlp.loss_grad(&xs, mse, &mut grad);
    let mut loss = start;
    for _ in 0..1000 {
        grad.fill(0.0);
        loss = mlp.loss_grad(&xs, mse, &mut grad);
        for (p, g) in mlp.parameters_mut().iter_mut().zip(&grad) {
            *p -= 0.05 * g;
        }
    }
    let out = mlp.forward_batch(&xs);
    eprintln!("XOR MSE: {start:.4} -> {loss:.6}, predictions {out:?}");
    assert!(loss < 0.01 && loss < start / 10.0, "loss {start} -> {loss}");
    for (o, y) in out.iter().zip(&ys) {
        assert!((o - y).abs() < 0.2, "prediction {o} for {y}");
    }
}

#[test]
#[should_panic(expected = "input of length 2 for an MLP of 3 inputs")]
fn wrong_input_length_panics() {
    Mlp::new(3, &[4, 1], Activation::Relu, 0).forward(&[1.0, 2.0]);
}

#[test]
#[should_panic(expected = "gradient buffer of length 3 for 21 parameters")]
fn wrong_gradient_length_panics() {
    let mlp = Mlp::new(3, &[4, 1], Activation::Relu, 0);
    mlp.backward(&[1.0, 2.0, 3.0], &[1.0], &mut [0.0; 3]);
}

#[test]
#[should_panic(expected = "not whole inputs of 3")]
fn ragged_batch_panics() {
    Mlp::new(3, &[4, 1], Activation::Relu, 0).forward_batch(&[1.0, 2.0, 3.0, 4.0]);
}
