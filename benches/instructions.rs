//! Runs one variant of one row of the suite (`common/suite.rs`) many times,
//! for counting its instructions under callgrind — repeatable where wall
//! time on a shared machine is not. `benches/instructions.sh` builds this,
//! runs it under valgrind for each row and variant, and prints the table.
//!
//! Usage: `instructions <workload> <param> <variant>`, for example
//! `instructions rosenbrock 10000 tape`. Only that row is set up and
//! checked. Exit status 2 if the row has no such variant (`num_dual` at
//! n = 10 000).

mod common;

use common::suite::{self, Row, Run, Runner, Variant};
use std::hint::black_box;

/// Calls measured per run unless `INSTRUCTIONS_REPEATS` says otherwise; the
/// script divides by the same number.
const REPEATS: usize = 10;

fn repeats() -> usize {
    std::env::var("INSTRUCTIONS_REPEATS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(REPEATS)
}

/// The measured region: callgrind counts this function's instructions
/// (`--toggle-collect=instructions::measured`).
#[inline(never)]
fn measured(run: &mut Run<'_>, grad: &mut [f64], repeats: usize) -> f64 {
    let mut sum = 0.0;
    for _ in 0..repeats {
        sum += black_box(run(black_box(&mut *grad)));
    }
    sum
}

struct Counted {
    workload: String,
    param: usize,
    variant: String,
    found: bool,
}

impl Runner for Counted {
    fn wants(&self, workload: &str, param: usize) -> bool {
        workload == self.workload && param == self.param
    }

    fn run(&mut self, row: Row, variants: &mut [Variant<'_>]) {
        let Some(v) = variants.iter_mut().find(|v| v.name == self.variant) else {
            return;
        };
        self.found = true;
        let mut grad = vec![0.0; row.inputs];
        println!("{}", measured(&mut *v.run, &mut grad, repeats()));
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [workload, param, variant] = &args[..] else {
        // `cargo bench` runs every bench target (passing `--bench`): nothing
        // to do without the three arguments.
        return;
    };
    let mut counted = Counted {
        workload: workload.clone(),
        param: param.parse().expect("the parameter is a number"),
        variant: variant.clone(),
        found: false,
    };
    suite::run_all(&mut counted);
    if !counted.found {
        eprintln!("no variant {variant} of {workload}/{param}");
        std::process::exit(2);
    }
}
