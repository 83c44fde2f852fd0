//! Generated adjoints against gradients written by hand, in one run.
//!
//! Workloads: extended Rosenbrock (n = 10 000, a loop that reads its input
//! and accumulates), the full-batch hinge loss of a 2-16-16-1 ReLU MLP on 100
//! points (three nested loops, local buffers), and 30 Newton iterations for
//! √a (a loop that overwrites its state). For each: the primal alone, the
//! hand-written gradient and the macro's `_adjoint`, checked equal before
//! timing. Run with `cargo bench --bench gradients`; the ratios are printed
//! at the end.

mod common;
#[path = "../tests/common/mlp.rs"]
mod model;

use autograd::differentiable;
use criterion::{BenchmarkId, Criterion};
use std::hint::black_box;
use std::time::Duration;

// ----- extended Rosenbrock -------------------------------------------------

#[differentiable]
fn rosenbrock(x: &[f64]) -> f64 {
    let mut sum = 0.0;
    for i in 0..x.len() - 1 {
        let t = x[i + 1] - x[i] * x[i];
        let u = 1.0 - x[i];
        sum += 100.0 * t * t + u * u;
    }
    sum
}

fn rosenbrock_by_hand(x: &[f64], grad: &mut [f64]) -> f64 {
    let mut f = 0.0;
    for i in 0..x.len() - 1 {
        let t = x[i + 1] - x[i] * x[i];
        let u = 1.0 - x[i];
        f += 100.0 * t * t + u * u;
        grad[i] += -400.0 * t * x[i] - 2.0 * u;
        grad[i + 1] += 200.0 * t;
    }
    f
}

// ----- the MLP -------------------------------------------------------------

/// Backpropagation through `model::mlp_loss`, written by hand: the forward
/// pass keeps the pre-activations, the backward pass uses them.
fn mlp_by_hand(w: &[f64], xs: &[f64], ys: &[f64], grad: &mut [f64]) -> f64 {
    let n = ys.len();
    let mut total = 0.0;
    for s in 0..n {
        let (mut a1, mut h1, mut a2, mut h2) = ([0.0; 16], [0.0; 16], [0.0; 16], [0.0; 16]);
        for j in 0..16 {
            a1[j] = w[32 + j] + w[j * 2] * xs[2 * s] + w[j * 2 + 1] * xs[2 * s + 1];
            h1[j] = a1[j].max(0.0);
        }
        for j in 0..16 {
            let mut a = w[304 + j];
            for k in 0..16 {
                a += w[48 + j * 16 + k] * h1[k];
            }
            a2[j] = a;
            h2[j] = a.max(0.0);
        }
        let mut out = w[336];
        for k in 0..16 {
            out += w[320 + k] * h2[k];
        }
        let margin = 1.0 - ys[s] * out;
        if margin <= 0.0 {
            continue;
        }
        total += margin;
        let d_out = -ys[s] / n as f64;
        grad[336] += d_out;
        let mut d_h1 = [0.0; 16];
        for k in 0..16 {
            grad[320 + k] += d_out * h2[k];
            let d_a2 = if a2[k] > 0.0 { d_out * w[320 + k] } else { 0.0 };
            grad[304 + k] += d_a2;
            for m in 0..16 {
                grad[48 + k * 16 + m] += d_a2 * h1[m];
                d_h1[m] += d_a2 * w[48 + k * 16 + m];
            }
        }
        for j in 0..16 {
            let d_a1 = if a1[j] > 0.0 { d_h1[j] } else { 0.0 };
            grad[32 + j] += d_a1;
            grad[j * 2] += d_a1 * xs[2 * s];
            grad[j * 2 + 1] += d_a1 * xs[2 * s + 1];
        }
    }
    let mut reg = 0.0;
    for (g, &p) in grad.iter_mut().zip(w) {
        reg += p * p;
        *g += 2e-4 * p;
    }
    total / n as f64 + 1e-4 * reg
}

// ----- Newton's iterations ---------------------------------------------------

#[differentiable]
fn newton_sqrt(a: f64) -> f64 {
    let mut x = a;
    for _ in 0..30 {
        x = 0.5 * (x + a / x);
    }
    x
}

/// The derivative carried along by hand (forward mode: one pass).
fn newton_by_hand(a: f64) -> (f64, f64) {
    let (mut x, mut dx) = (a, 1.0);
    for _ in 0..30 {
        let q = a / x;
        dx = 0.5 * (dx + (1.0 - q * dx) / x);
        x = 0.5 * (x + q);
    }
    (x, dx)
}

// ----- the benchmarks --------------------------------------------------------

fn assert_close(a: &[f64], b: &[f64]) {
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() <= 1e-9 * (1.0 + x.abs()), "{x} vs {y}");
    }
}

fn benches(c: &mut Criterion) {
    let n = 10_000;
    let x: Vec<f64> = (0..n).map(|i| -1.2 + 0.01 * (i % 7) as f64).collect();
    let (mut hand, mut macro_grad) = (vec![0.0; n], vec![0.0; n]);
    let f = rosenbrock_by_hand(&x, &mut hand);
    assert_eq!(rosenbrock_adjoint(&x, 1.0, &mut macro_grad), f);
    assert_close(&hand, &macro_grad);
    let mut group = c.benchmark_group("rosenbrock");
    let param = n.to_string();
    group.bench_function(BenchmarkId::new("primal", &param), |b| {
        b.iter(|| rosenbrock(black_box(&x)))
    });
    group.bench_function(BenchmarkId::new("hand_written", &param), |b| {
        b.iter(|| {
            hand.fill(0.0);
            rosenbrock_by_hand(black_box(&x), &mut hand)
        })
    });
    group.bench_function(BenchmarkId::new("macro_adjoint", &param), |b| {
        b.iter(|| {
            macro_grad.fill(0.0);
            rosenbrock_adjoint(black_box(&x), 1.0, &mut macro_grad)
        })
    });
    group.finish();

    let mut rng = model::Rng(42);
    let (xs, ys) = model::moons(100, 0.1, &mut rng);
    let w = model::init(&mut rng);
    let (mut hand, mut macro_grad) = (vec![0.0; model::PARAMS], vec![0.0; model::PARAMS]);
    let f = mlp_by_hand(&w, &xs, &ys, &mut hand);
    let value = model::mlp_loss_adjoint(&w, &xs, &ys, 1.0, &mut macro_grad);
    assert!((value - f).abs() <= 1e-12 * f.abs());
    assert_close(&hand, &macro_grad);
    let mut group = c.benchmark_group("mlp");
    group.bench_function(BenchmarkId::new("primal", "100"), |b| {
        b.iter(|| model::mlp_loss(black_box(&w), &xs, &ys))
    });
    group.bench_function(BenchmarkId::new("hand_written", "100"), |b| {
        b.iter(|| {
            hand.fill(0.0);
            mlp_by_hand(black_box(&w), &xs, &ys, &mut hand)
        })
    });
    group.bench_function(BenchmarkId::new("macro_adjoint", "100"), |b| {
        b.iter(|| {
            macro_grad.fill(0.0);
            model::mlp_loss_adjoint(black_box(&w), &xs, &ys, 1.0, &mut macro_grad)
        })
    });
    group.finish();

    let (value, d) = newton_by_hand(2.0);
    let mut d_macro = 0.0;
    assert_eq!(newton_sqrt_adjoint(2.0, 1.0, &mut d_macro), value);
    assert!((d - d_macro).abs() <= 1e-12);
    let mut group = c.benchmark_group("newton");
    group.bench_function(BenchmarkId::new("primal", "30"), |b| {
        b.iter(|| newton_sqrt(black_box(2.0)))
    });
    group.bench_function(BenchmarkId::new("hand_written", "30"), |b| {
        b.iter(|| newton_by_hand(black_box(2.0)))
    });
    group.bench_function(BenchmarkId::new("macro_adjoint", "30"), |b| {
        b.iter(|| {
            let mut d = 0.0;
            newton_sqrt_adjoint(black_box(2.0), 1.0, &mut d) + d
        })
    });
    group.finish();
}

fn main() {
    let mut criterion = Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    benches(&mut criterion);
    criterion.final_summary();
    println!("\n| workload | adjoint / hand-written | adjoint / primal | hand-written / primal |");
    println!("| --- | --- | --- | --- |");
    for (group, param) in [("rosenbrock", "10000"), ("mlp", "100"), ("newton", "30")] {
        let mean = |bench| common::mean_ns(group, bench, param);
        if let (Some(primal), Some(hand), Some(adjoint)) =
            (mean("primal"), mean("hand_written"), mean("macro_adjoint"))
        {
            println!(
                "| {group} ({param}) | {:.2} | {:.2} | {:.2} |",
                adjoint / hand,
                adjoint / primal,
                hand / primal
            );
        }
    }
}
