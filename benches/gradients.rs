//! Every way this project (and two published crates) can compute a gradient,
//! timed side by side in one run, with a table of ratios at the end.
//!
//! Workloads (`common/suite.rs` lists the rows): extended Rosenbrock at
//! n = 2, 100, 10 000 (a loop that reads its input and accumulates); the
//! full-batch hinge loss + L2 of a 2-16-16-1 ReLU MLP on 100 points (nested
//! loops, local buffers); 30 Newton iterations for √a (a loop that
//! overwrites its state); a chain of 1 000 springs (a differentiable helper
//! called in a loop, which calls another).
//!
//! Variants: `primal` (the function alone), `hand_written` (an analytic
//! gradient), `macro_adjoint` (the generated `_adjoint`), `tape`
//! (`autograd::tape`, graph recorded inside the timed region on a cleared
//! tape), `closure_graph` (the seeds' `Rc<RefCell>` graph with boxed
//! closures, `common/closure_graph.rs`), `reverse` (the `reverse` crate's
//! tape) and `num_dual` (the `num-dual` crate's forward mode, one pass per
//! input, up to 1 000 inputs). Every variant is checked against
//! `hand_written` before anything is timed.
//!
//! Benchmark ids are `<workload>/<variant>/<param>`, so
//! `cargo bench --bench gradients -- rosenbrock/` or `-- /tape/` selects.
//! Run with `cargo bench --bench gradients`.

mod common;

use common::suite::{self, Row, Runner, Variant, VARIANTS};
use criterion::{BenchmarkId, Criterion};
use std::hint::black_box;
use std::time::{Duration, SystemTime};

/// Times each variant of a row with criterion, one group per workload.
struct Timed {
    criterion: Criterion,
    /// The rows run, in order.
    rows: Vec<Row>,
}

impl Runner for Timed {
    fn run(&mut self, row: Row, variants: &mut [Variant<'_>]) {
        let mut group = self.criterion.benchmark_group(row.workload);
        let mut grad = vec![0.0; row.inputs];
        for v in variants.iter_mut() {
            group.bench_function(BenchmarkId::new(v.name, row.param), |b| {
                b.iter(|| (v.run)(black_box(&mut grad)))
            });
        }
        group.finish();
        self.rows.push(row);
    }
}

/// The table of ratios from this run's estimates: each variant against
/// `hand_written`, then the gradient against the primal. A cell is `—` if
/// the variant does not exist for the row or did not run this time; a row
/// none of whose variants ran is left out.
fn print_table(rows: &[Row], since: SystemTime) {
    let compared = &VARIANTS[2..];
    print!("\n| workload | n |");
    for name in compared {
        print!(" {name} / hand |");
    }
    println!(" macro_adjoint / primal | hand_written / primal |");
    println!("|{}", " --- |".repeat(compared.len() + 4));
    for row in rows {
        let param = row.param.to_string();
        let mean = |variant| common::mean_ns(row.workload, variant, &param, since);
        let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) => format!("{:.2}", a / b),
            _ => "—".to_string(),
        };
        if VARIANTS.iter().all(|&v| mean(v).is_none()) {
            continue; // filtered out
        }
        let (primal, hand) = (mean("primal"), mean("hand_written"));
        print!("| {} | {} |", row.workload, row.param);
        for name in compared {
            print!(" {} |", ratio(mean(name), hand));
        }
        println!(
            " {} | {} |",
            ratio(mean("macro_adjoint"), primal),
            ratio(hand, primal)
        );
    }
    println!("\nhand_written mean times (ns), to put the ratios on a scale:");
    for row in rows {
        let param = row.param.to_string();
        if let Some(hand) = common::mean_ns(row.workload, "hand_written", &param, since) {
            println!("  {}/{}: {hand:.0}", row.workload, row.param);
        }
    }
}

fn main() {
    // Estimates files are stamped by the file system, which may round down.
    let since = SystemTime::now() - Duration::from_secs(1);
    let criterion = Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    let mut timed = Timed {
        criterion,
        rows: Vec::new(),
    };
    suite::run_all(&mut timed);
    timed.criterion.final_summary();
    print_table(&timed.rows, since);
}
