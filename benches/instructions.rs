//! Runs one workload variant many times, for counting its instructions under
//! callgrind (repeatable where wall time on a shared machine is not):
//! `benches/instructions.sh` builds this and prints the table.
//!
//! Usage: `instructions <workload> <variant>` with workload `rosenbrock`,
//! `mlp` or `newton` and variant `primal`, `hand_written` or `macro_adjoint`.

mod common;

use common::workloads::{
    mlp_by_hand, model, newton_by_hand, newton_sqrt, newton_sqrt_adjoint, rosenbrock,
    rosenbrock_adjoint, rosenbrock_by_hand,
};
use std::hint::black_box;

const REPEATS: usize = 20;

/// The measured region: callgrind counts this function's instructions.
#[inline(never)]
fn measured(f: &mut dyn FnMut() -> f64) -> f64 {
    let mut sum = 0.0;
    for _ in 0..REPEATS {
        sum += black_box(f());
    }
    sum
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(workload), Some(variant)) = (args.get(1), args.get(2)) else {
        // `cargo bench` runs every bench target: nothing to do without arguments.
        return;
    };
    let mut rng = model::Rng(42);
    let (xs, ys) = model::moons(100, 0.1, &mut rng);
    let w = model::init(&mut rng);
    let x: Vec<f64> = (0..10_000).map(|i| -1.2 + 0.01 * (i % 7) as f64).collect();
    let mut grad = vec![0.0; x.len().max(model::PARAMS)];
    let result = match (workload.as_str(), variant.as_str()) {
        ("rosenbrock", "primal") => measured(&mut || rosenbrock(black_box(&x))),
        ("rosenbrock", "hand_written") => measured(&mut || {
            grad.fill(0.0);
            rosenbrock_by_hand(black_box(&x), &mut grad[..x.len()])
        }),
        ("rosenbrock", "macro_adjoint") => measured(&mut || {
            grad.fill(0.0);
            rosenbrock_adjoint(black_box(&x), 1.0, &mut grad[..x.len()])
        }),
        ("mlp", "primal") => measured(&mut || model::mlp_loss(black_box(&w), &xs, &ys)),
        ("mlp", "hand_written") => measured(&mut || {
            grad.fill(0.0);
            mlp_by_hand(black_box(&w), &xs, &ys, &mut grad[..model::PARAMS])
        }),
        ("mlp", "macro_adjoint") => measured(&mut || {
            grad.fill(0.0);
            model::mlp_loss_adjoint(black_box(&w), &xs, &ys, 1.0, &mut grad[..model::PARAMS])
        }),
        ("newton", "primal") => measured(&mut || newton_sqrt(black_box(2.0))),
        ("newton", "hand_written") => measured(&mut || {
            let (x, d) = newton_by_hand(black_box(2.0));
            x + d
        }),
        ("newton", "macro_adjoint") => measured(&mut || {
            let mut d = 0.0;
            newton_sqrt_adjoint(black_box(2.0), 1.0, &mut d) + d
        }),
        _ => panic!("unknown workload/variant {workload} {variant}"),
    };
    println!("{result}");
}
