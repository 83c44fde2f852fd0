//! The nested workloads' generated gradients (`_adjoint`, `_grad`) against
//! their hand-written gradients (`benches/nested.rs`), at small sizes: the
//! value to 1e-12 and every partial to 1e-9, relative. The benches check the
//! same at every size they time, before timing.

use autograd_benches::nested::*;

/// `|a - b|` relative to `max(|b|, 1)`.
fn close(what: &str, got: &[f64], want: &[f64], tolerance: f64) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (&a, &b)) in got.iter().zip(want).enumerate() {
        let error = (a - b).abs() / b.abs().max(1.0);
        assert!(
            error <= tolerance,
            "{what}[{i}]: generated {a}, hand-written {b} (relative error {error:e})"
        );
    }
}

#[test]
fn gmm_gradients_agree() {
    for (n, k, d) in [(3, 1, 1), (4, 2, 2), (5, 3, 4), (6, 5, 7)] {
        let g = Gmm::new(n, k, d, 7 + (n * k * d) as u64);
        let (ka, km, ki) = (k, k * d, k * icf_len(d));
        let (mut ha, mut hm, mut hi) = (vec![0.0; ka], vec![0.0; km], vec![0.0; ki]);
        let hand = gmm_by_hand(
            &g.alphas, &g.means, &g.icf, &g.x, n, k, d, &mut ha, &mut hm, &mut hi,
        );
        // accumulates into pre-filled buffers, with d_out
        let (mut ga, mut gm, mut gi) = (vec![1.0; ka], vec![1.0; km], vec![1.0; ki]);
        let value = gmm_objective_adjoint(
            &g.alphas, &g.means, &g.icf, &g.x, n, k, d, 2.0, &mut ga, &mut gm, &mut gi,
        );
        close("gmm value", &[value], &[hand], 1e-12);
        let twice = |v: &[f64]| v.iter().map(|x| 1.0 + 2.0 * x).collect::<Vec<_>>();
        close("gmm d_alphas", &ga, &twice(&ha), 1e-9);
        close("gmm d_means", &gm, &twice(&hm), 1e-9);
        close("gmm d_icf", &gi, &twice(&hi), 1e-9);
        let (value, (ga, gm, gi)) = gmm_objective_grad(&g.alphas, &g.means, &g.icf, &g.x, n, k, d);
        assert_eq!(
            value,
            gmm_objective(&g.alphas, &g.means, &g.icf, &g.x, n, k, d)
        );
        close(
            "gmm_grad",
            &[ga, gm, gi].concat(),
            &[ha, hm, hi].concat(),
            1e-9,
        );
    }
}

#[test]
fn lstm_gradients_agree() {
    for (b, t) in [(1, 2), (2, 5), (4, 9)] {
        let (w, bias, seq) = lstm_data(b, t, 11 + b as u64);
        let (mut hw, mut hb) = (vec![0.0; w.len()], vec![0.0; bias.len()]);
        let hand = lstm_by_hand(&w, &bias, &seq, b, t, &mut hw, &mut hb);
        let (value, (gw, gb)) = lstm_objective_grad(&w, &bias, &seq, b, t);
        close("lstm value", &[value], &[hand], 1e-12);
        close("lstm d_weight", &gw, &hw, 1e-9);
        close("lstm d_bias", &gb, &hb, 1e-9);
    }
}

#[test]
fn heat_gradients_agree() {
    for (n, steps) in [(3, 1), (5, 4), (12, 30)] {
        let (u0, target) = heat_data(n, 5 + n as u64);
        let mut hand_grad = vec![0.0; n];
        let hand = heat_by_hand(&u0, &target, steps, &mut hand_grad);
        let (value, grad) = heat_objective_grad(&u0, &target, steps);
        close("heat value", &[value], &[hand], 1e-12);
        close("heat d_u0", &grad, &hand_grad, 1e-9);
    }
}

#[test]
fn trisolve_gradients_agree() {
    for n in [1, 2, 5, 17] {
        let (l, b) = trisolve_data(n, 3 + n as u64);
        let (mut hl, mut hb) = (vec![0.0; l.len()], vec![0.0; n]);
        let hand = trisolve_by_hand(&l, &b, &mut hl, &mut hb);
        let (value, (gl, gb)) = trisolve_objective_grad(&l, &b);
        close("trisolve value", &[value], &[hand], 1e-12);
        close("trisolve d_l", &gl, &hl, 1e-9);
        close("trisolve d_b", &gb, &hb, 1e-9);
    }
}

#[test]
fn product_gradients_agree() {
    for n in [1, 2, 5, 9] {
        let (a, b) = product_data(n, 5 + n as u64);
        let (mut ha, mut hb) = (vec![0.0; n * n], vec![0.0; n * n]);
        let hand = product_by_hand(&a, &b, n, &mut ha, &mut hb);
        let (value, (ga, gb)) = product_objective_grad(&a, &b, n);
        close("product value", &[value], &[hand], 1e-12);
        close("product d_a", &ga, &ha, 1e-9);
        close("product d_b", &gb, &hb, 1e-9);
    }
}

#[test]
fn pairs_gradients_agree() {
    for n in [1, 2, 7, 30] {
        let x = pairs_data(n, 11 + n as u64);
        let mut hand_gradient = vec![0.0; n];
        let hand = pairs_by_hand(&x, &mut hand_gradient);
        let (value, gradient) = pairs_objective_grad(&x);
        close("pairs value", &[value], &[hand], 1e-12);
        close("pairs d_x", &gradient, &hand_gradient, 1e-9);
    }
}

#[test]
fn kmeans_gradients_agree() {
    for (n, k, d) in [(1, 1, 1), (5, 2, 3), (40, 6, 4)] {
        let (mu, x) = kmeans_data(n, k, d, 7 + n as u64);
        let mut hand_gradient = vec![0.0; k * d];
        let hand = kmeans_by_hand(&mu, &x, k, d, &mut hand_gradient);
        let (value, gradient) = kmeans_objective_grad(&mu, &x, k, d);
        close("kmeans value", &[value], &[hand], 1e-12);
        close("kmeans d_mu", &gradient, &hand_gradient, 1e-9);
    }
}

#[test]
fn softmax_gradients_agree() {
    for (n, p, c) in [(1, 1, 1), (3, 2, 4), (30, 8, 5)] {
        let (w, x, labels) = softmax_data(n, p, c, 3 + n as u64);
        let mut hand_gradient = vec![0.0; c * p];
        let hand = softmax_by_hand(&w, &x, &labels, p, &mut hand_gradient);
        let (value, gradient) = softmax_objective_grad(&w, &x, &labels, p);
        close("softmax value", &[value], &[hand], 1e-12);
        close("softmax d_w", &gradient, &hand_gradient, 1e-9);
    }
}

#[test]
fn chebyshev_gradients_agree() {
    for (n, m) in [(1, 2), (4, 3), (50, 12)] {
        let (c, xs, ys) = chebyshev_data(n, m, 13 + n as u64);
        let mut hand_gradient = vec![0.0; m];
        let hand = chebyshev_by_hand(&c, &xs, &ys, &mut hand_gradient);
        let (value, gradient) = chebyshev_objective_grad(&c, &xs, &ys);
        close("chebyshev value", &[value], &[hand], 1e-12);
        close("chebyshev d_c", &gradient, &hand_gradient, 1e-9);
    }
}

#[test]
fn cutoff_gradients_agree() {
    for n in [2, 9, 64] {
        let pos = cutoff_data(n, 17 + n as u64);
        let mut hand_gradient = vec![0.0; 3 * n];
        let hand = cutoff_by_hand(&pos, 2.5, &mut hand_gradient);
        let (value, gradient) = cutoff_objective_grad(&pos, 2.5);
        close("cutoff value", &[value], &[hand], 1e-12);
        close("cutoff d_pos", &gradient, &hand_gradient, 1e-9);
    }
}

#[test]
fn gauss_seidel_gradients_agree() {
    for (n, sweeps) in [(1, 1), (5, 3), (60, 20)] {
        let (f, target) = gauss_seidel_data(n, 19 + n as u64);
        let mut hand_gradient = vec![0.0; n];
        let hand = gauss_seidel_by_hand(&f, &target, sweeps, &mut hand_gradient);
        let (value, gradient) = gauss_seidel_objective_grad(&f, &target, sweeps);
        close("gauss_seidel value", &[value], &[hand], 1e-12);
        close("gauss_seidel d_f", &gradient, &hand_gradient, 1e-9);
    }
}

/// The hand-written gradients are right, not only equal to the generated
/// ones: central differences on a few partials of each.
#[test]
fn hand_written_gradients_match_finite_differences() {
    let fd = |f: &dyn Fn(&[f64]) -> f64, x: &[f64], i: usize| {
        let h = 1e-6 * x[i].abs().max(1.0);
        let (mut p, mut m) = (x.to_vec(), x.to_vec());
        p[i] += h;
        m[i] -= h;
        (f(&p) - f(&m)) / (2.0 * h)
    };
    let g = Gmm::new(4, 3, 3, 99);
    let (mut ha, mut hm, mut hi) = (vec![0.0; 3], vec![0.0; 9], vec![0.0; 18]);
    gmm_by_hand(
        &g.alphas, &g.means, &g.icf, &g.x, 4, 3, 3, &mut ha, &mut hm, &mut hi,
    );
    for i in [0, 5, 17] {
        let f = |icf: &[f64]| gmm_objective(&g.alphas, &g.means, icf, &g.x, 4, 3, 3);
        assert!((fd(&f, &g.icf, i) - hi[i]).abs() < 1e-6, "gmm d_icf[{i}]");
    }
    let (w, bias, seq) = lstm_data(3, 6, 4);
    let (mut hw, mut hb) = (vec![0.0; w.len()], vec![0.0; bias.len()]);
    lstm_by_hand(&w, &bias, &seq, 3, 6, &mut hw, &mut hb);
    for i in [0, 7, w.len() - 1] {
        let f = |w: &[f64]| lstm_objective(w, &bias, &seq, 3, 6);
        assert!((fd(&f, &w, i) - hw[i]).abs() < 1e-6, "lstm d_weight[{i}]");
    }
    let (u0, target) = heat_data(9, 2);
    let mut hu = vec![0.0; 9];
    heat_by_hand(&u0, &target, 7, &mut hu);
    for i in [0, 4, 8] {
        let f = |u: &[f64]| heat_objective(u, &target, 7);
        assert!((fd(&f, &u0, i) - hu[i]).abs() < 1e-6, "heat d_u0[{i}]");
    }
    let (l, b) = trisolve_data(6, 8);
    let (mut hl, mut hb) = (vec![0.0; 36], vec![0.0; 6]);
    trisolve_by_hand(&l, &b, &mut hl, &mut hb);
    for i in [0, 13, 35] {
        let f = |l: &[f64]| trisolve_objective(l, &b);
        assert!((fd(&f, &l, i) - hl[i]).abs() < 1e-6, "trisolve d_l[{i}]");
    }
    let (a, b) = product_data(4, 8);
    let (mut ha, mut hb) = (vec![0.0; 16], vec![0.0; 16]);
    product_by_hand(&a, &b, 4, &mut ha, &mut hb);
    for i in [0, 6, 15] {
        let f = |a: &[f64]| product_objective(a, &b, 4);
        assert!((fd(&f, &a, i) - ha[i]).abs() < 1e-6, "product d_a[{i}]");
        let g = |b: &[f64]| product_objective(&a, b, 4);
        assert!((fd(&g, &b, i) - hb[i]).abs() < 1e-6, "product d_b[{i}]");
    }
    let (mu, x) = kmeans_data(9, 3, 2, 5);
    let mut hmu = vec![0.0; 6];
    kmeans_by_hand(&mu, &x, 3, 2, &mut hmu);
    for (i, h) in hmu.iter().enumerate() {
        let f = |mu: &[f64]| kmeans_objective(mu, &x, 3, 2);
        assert!((fd(&f, &mu, i) - h).abs() < 1e-6, "kmeans d_mu[{i}]");
    }
    let (w, x, labels) = softmax_data(7, 3, 4, 6);
    let mut hw = vec![0.0; 12];
    softmax_by_hand(&w, &x, &labels, 3, &mut hw);
    for (i, h) in hw.iter().enumerate() {
        let f = |w: &[f64]| softmax_objective(w, &x, &labels, 3);
        assert!((fd(&f, &w, i) - h).abs() < 1e-6, "softmax d_w[{i}]");
    }
    let (c, xs, ys) = chebyshev_data(6, 7, 2);
    let mut hc = vec![0.0; 7];
    chebyshev_by_hand(&c, &xs, &ys, &mut hc);
    for (i, h) in hc.iter().enumerate() {
        let f = |c: &[f64]| chebyshev_objective(c, &xs, &ys);
        let scale = 1.0 + h.abs();
        assert!(
            (fd(&f, &c, i) - h).abs() < 1e-6 * scale,
            "chebyshev d_c[{i}]"
        );
    }
    let pos = cutoff_data(8, 5);
    let mut hp = vec![0.0; 24];
    cutoff_by_hand(&pos, 2.5, &mut hp);
    for i in [0, 7, 13, 23] {
        let f = |p: &[f64]| cutoff_objective(p, 2.5);
        let scale = 1.0 + hp[i].abs();
        assert!(
            (fd(&f, &pos, i) - hp[i]).abs() < 1e-6 * scale,
            "cutoff d_pos[{i}]"
        );
    }
    let [main, extra, state, seq] = adbench_lstm_data(2, 5, 3, 9);
    let (mut hm, mut he) = (vec![0.0; main.len()], vec![0.0; extra.len()]);
    adbench_lstm_by_hand(2, 5, 3, &main, &extra, &state, &seq, &mut hm, &mut he);
    for i in [0, 11, main.len() - 1] {
        let f = |m: &[f64]| adbench_lstm_objective(2, 5, 3, m, &extra, &state, &seq);
        assert!(
            (fd(&f, &main, i) - hm[i]).abs() < 1e-8,
            "adbench_lstm d_main[{i}]"
        );
    }
    for (i, h) in he.iter().enumerate() {
        let f = |e: &[f64]| adbench_lstm_objective(2, 5, 3, &main, e, &state, &seq);
        assert!(
            (fd(&f, &extra, i) - h).abs() < 1e-8,
            "adbench_lstm d_extra[{i}]"
        );
    }
    let (l, b) = trisolve_data(6, 8);
    let (mut hl, mut hb) = (vec![0.0; 36], vec![0.0; 6]);
    colsolve_by_hand(&l, &b, 6, &mut hl, &mut hb);
    for i in [0, 13, 35] {
        let f = |l: &[f64]| colsolve_objective(l, &b, 6);
        assert!((fd(&f, &l, i) - hl[i]).abs() < 1e-6, "colsolve d_l[{i}]");
    }
    let (f0, target) = gauss_seidel_data(7, 6);
    let mut hf = vec![0.0; 7];
    gauss_seidel_by_hand(&f0, &target, 4, &mut hf);
    for (i, h) in hf.iter().enumerate() {
        let f = |f: &[f64]| gauss_seidel_objective(f, &target, 4);
        assert!((fd(&f, &f0, i) - h).abs() < 1e-8, "gauss_seidel d_f[{i}]");
    }
    let x = pairs_data(6, 4);
    let mut hx = vec![0.0; 6];
    pairs_by_hand(&x, &mut hx);
    for i in [0, 3, 5] {
        let f = |x: &[f64]| pairs_objective(x);
        let scale = 1.0 + hx[i].abs();
        assert!(
            (fd(&f, &x, i) - hx[i]).abs() < 1e-6 * scale,
            "pairs d_x[{i}]"
        );
    }
}

#[test]
fn adbench_lstm_gradients_agree() {
    for (l, c, b) in [(1, 2, 1), (2, 4, 3), (3, 7, 5)] {
        let [main, extra, state, seq] = adbench_lstm_data(l, c, b, 13 + (l * b) as u64);
        let (mut hm, mut he) = (vec![0.0; main.len()], vec![0.0; extra.len()]);
        let hand = adbench_lstm_by_hand(l, c, b, &main, &extra, &state, &seq, &mut hm, &mut he);
        let (value, (gm, ge)) = adbench_lstm_objective_grad(l, c, b, &main, &extra, &state, &seq);
        assert_eq!(
            value,
            adbench_lstm_objective(l, c, b, &main, &extra, &state, &seq)
        );
        close("adbench_lstm value", &[value], &[hand], 1e-12);
        close("adbench_lstm d_main", &gm, &hm, 1e-9);
        close("adbench_lstm d_extra", &ge, &he, 1e-9);
    }
}

#[test]
fn colsolve_gradients_agree() {
    for n in [1, 2, 5, 17] {
        let (l, b) = trisolve_data(n, 3 + n as u64);
        let (mut hl, mut hb) = (vec![0.0; n * n], vec![0.0; n]);
        let hand = colsolve_by_hand(&l, &b, n, &mut hl, &mut hb);
        let (value, (gl, gb)) = colsolve_objective_grad(&l, &b, n);
        close("colsolve value", &[value], &[hand], 1e-12);
        close("colsolve d_l", &gl, &hl, 1e-9);
        close("colsolve d_b", &gb, &hb, 1e-9);
    }
}
