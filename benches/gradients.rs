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

use common::workloads::{
    mlp_by_hand, model, newton_by_hand, newton_sqrt, newton_sqrt_adjoint, rosenbrock,
    rosenbrock_adjoint, rosenbrock_by_hand,
};
use criterion::{BenchmarkId, Criterion};
use std::hint::black_box;
use std::time::Duration;

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
