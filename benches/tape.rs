//! The tape against a hand-written gradient, on the extended Rosenbrock
//! function `f(x) = Σ_{i<n-1} [100 (x_{i+1} - x_i²)² + (1 - x_i)²]`, for
//! n = 100 and n = 10 000, in one run.
//!
//! The tape's graph is built inside the timed region (one tape reused across
//! iterations through `Tape::clear`), then `backward()` runs and the gradient
//! is copied out, so a timed iteration is everything a training step would
//! do. Run with `cargo bench --bench tape`; the ratios tape / hand-written are
//! printed at the end.

mod common;

use std::hint::black_box;
use std::time::Duration;

use autograd::tape::{Tape, Var};
use common::workloads::rosenbrock_by_hand;
use criterion::{BenchmarkId, Criterion};

const SIZES: [usize; 2] = [100, 10_000];

/// The same function recorded on the tape (eight nodes per term), then
/// differentiated.
fn rosenbrock_on_tape<'t>(
    tape: &'t Tape,
    vars: &mut Vec<Var<'t>>,
    x: &[f64],
    grad: &mut [f64],
) -> f64 {
    tape.clear();
    vars.clear();
    vars.extend(x.iter().map(|&v| tape.var(v)));
    let term = |i: usize| {
        let t = vars[i + 1] - vars[i] * vars[i];
        let u = 1.0 - vars[i];
        100.0 * (t * t) + u * u
    };
    let mut f = term(0);
    for i in 1..x.len() - 1 {
        f += term(i);
    }
    let g = f.backward();
    for (d, &v) in grad.iter_mut().zip(vars.iter()) {
        *d = g[v];
    }
    f.value()
}

fn start(n: usize) -> Vec<f64> {
    (0..n).map(|i| -1.2 + 0.01 * (i % 7) as f64).collect()
}

fn bench_rosenbrock(c: &mut Criterion) {
    let mut group = c.benchmark_group("rosenbrock_gradient");
    for n in SIZES {
        let x = start(n);
        let tape = Tape::with_capacity(8 * n);
        let mut vars = Vec::with_capacity(n);

        // both compute the same thing
        let (mut by_hand, mut on_tape) = (vec![0.0; n], vec![0.0; n]);
        let f_hand = rosenbrock_by_hand(&x, &mut by_hand); // accumulates into zeros
        let f_tape = rosenbrock_on_tape(&tape, &mut vars, &x, &mut on_tape);
        assert!((f_hand - f_tape).abs() <= 1e-12 * f_hand.abs());
        for (a, b) in by_hand.iter().zip(&on_tape) {
            assert!((a - b).abs() <= 1e-12 * (1.0 + a.abs()), "{a} vs {b}");
        }
        if n == SIZES[0] {
            println!(
                "tape: {:.2} nodes per Rosenbrock term, {} bytes per node",
                (tape.len() - n) as f64 / (n - 1) as f64,
                Tape::BYTES_PER_NODE
            );
        }

        let mut grad = vec![0.0; n];
        group.bench_with_input(BenchmarkId::new("hand_written", n), &x, |b, x| {
            b.iter(|| {
                grad.fill(0.0);
                rosenbrock_by_hand(black_box(x), black_box(&mut grad))
            })
        });
        group.bench_with_input(BenchmarkId::new("tape", n), &x, |b, x| {
            b.iter(|| rosenbrock_on_tape(&tape, &mut vars, black_box(x), black_box(&mut grad)))
        });
    }
    group.finish();
}

fn main() {
    let mut criterion = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    bench_rosenbrock(&mut criterion);
    criterion.final_summary();

    for n in SIZES {
        let mean = |bench| common::mean_ns("rosenbrock_gradient", bench, &n.to_string());
        if let (Some(hand), Some(tape)) = (mean("hand_written"), mean("tape")) {
            println!(
                "rosenbrock n = {n}: hand-written {hand:.0} ns, tape {tape:.0} ns, \
                 tape / hand-written = {:.1}",
                tape / hand
            );
        }
    }
}
