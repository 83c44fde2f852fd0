//! Randomized differential testing of `#[differentiable]` (issue 14).
//!
//! Generates random functions over API.md §1's supported subset, compiles
//! them with the macro in a temporary crate, and compares each function's
//! `_grad` and `_adjoint` with two independent oracles: the tape (the same
//! body on `Var`s) and central finite differences, plus the value bit for
//! bit and adjoint accumulation into pre-filled buffers. A vector-valued
//! helper's `_jacobian` (by columns in forward mode or by rows, as its
//! shape decides) is checked against the tape's rows too.
//!
//! ```sh
//! # the fixed-seed batch that `cargo test` runs (200 functions):
//! cargo test --test random_programs -- --nocapture
//! # thousands, with a random seed (printed; failures print seed and index):
//! RANDOM_PROGRAMS_COUNT=5000 cargo test --release --test random_programs -- --nocapture
//! # repeat one run:
//! RANDOM_PROGRAMS_SEED=<seed> RANDOM_PROGRAMS_COUNT=5000 cargo test --test random_programs -- --nocapture
//! # print one program (and its tape rendering) without running anything
//! # (with RANDOM_PROGRAMS_NESTS=1 too for a program of a run with it):
//! RANDOM_PROGRAMS_SHOW=<seed>:<index> cargo test --test random_programs show -- --nocapture
//! # shrink one example of each cause of failure (slower):
//! RANDOM_PROGRAMS_MINIMIZE=1 cargo test --test random_programs -- --nocapture
//! # every function `#[differentiable(hessian)]`, and f_hessian checked
//! # against finite differences of f_grad too:
//! RANDOM_PROGRAMS_HESSIAN=1 RANDOM_PROGRAMS_COUNT=1000 cargo test --release --test random_programs -- --nocapture
//! # every function a nest over buffers (`nests.rs`: slices of 8 to 40
//! # floats, sizes as `usize` parameters, loops two or three deep indexing
//! # `a[i * m + j]`, `u[j - 1]`, per-iteration buffers, arrays declared in
//! # a nest's body and a vector-valued helper `hv` returning one; one in
//! # five functions otherwise):
//! RANDOM_PROGRAMS_NESTS=1 RANDOM_PROGRAMS_COUNT=1000 cargo test --release --test random_programs -- --nocapture
//! # leave out constructs (see `gen::avoid` for the list), e.g. a known bug:
//! RANDOM_PROGRAMS_AVOID=literal-args,generated-names cargo test --test random_programs -- --nocapture
//! # re-check (and with the above, shrink) only some programs of a batch:
//! RANDOM_PROGRAMS_SEED=<seed> RANDOM_PROGRAMS_COUNT=<n> RANDOM_PROGRAMS_ONLY=3,17 cargo test --test random_programs -- --nocapture
//! ```
//!
//! The fixed batch takes about 45 s on 2 cores the first time (the
//! generated crate's copy of `autograd` and its dependencies is compiled
//! once, into `target/random-programs/target`) and about 20 s after that;
//! 1000 functions take about 90 s more. Minimizing takes 20 to 60 s per
//! cause. The generated projects live in `target/random-programs/` (safe to
//! delete).
//!
//! A failing run prints one group per cause of failure, with the programs
//! in it and the smallest one's full source (minimized with
//! `RANDOM_PROGRAMS_MINIMIZE=1`); `RANDOM_PROGRAMS_SHOW=<seed>:<index>`
//! prints any program. `tests/random_programs/FINDINGS.md` lists what it
//! found so far.
//!
//! The modules, one concern each: `ast.rs` is the syntax tree, `gen.rs`
//! writes random programs (`nests.rs`, a child module, the nests over
//! buffers), `render.rs` prints them (plain and on the tape),
//! `harness.rs` builds and runs them and attributes errors, `oracle.rs` is
//! the checker compiled into the generated crate, `minimize.rs` shrinks a
//! failing program.

#[path = "random_programs/ast.rs"]
mod ast;
#[path = "random_programs/gen.rs"]
mod gen;
#[path = "random_programs/harness.rs"]
mod harness;
#[path = "random_programs/minimize.rs"]
mod minimize;
#[path = "random_programs/render.rs"]
mod render;

// Compiled here only so that it stays warning-free and formatted: the
// harness copies it into every generated crate, where it is used.
#[allow(dead_code)]
#[path = "random_programs/oracle.rs"]
mod oracle;

use gen::Gen;
use std::collections::BTreeMap;
use std::time::Instant;

/// The seed of the fixed batch `cargo test` runs.
const FIXED_SEED: u64 = 14;
/// Functions in the fixed batch.
const FIXED_COUNT: usize = 200;
/// Programs per generated crate (one `cargo build` each).
const CHUNK: usize = 250;

fn env_number(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}

#[test]
fn random_programs() {
    let count = env_number("RANDOM_PROGRAMS_COUNT").map_or(FIXED_COUNT, |c| c as usize);
    let seed = env_number("RANDOM_PROGRAMS_SEED").unwrap_or_else(|| {
        if std::env::var("RANDOM_PROGRAMS_COUNT").is_ok() {
            // A random seed for long runs; printed so it can be repeated.
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                % 1_000_000_007
        } else {
            FIXED_SEED
        }
    });
    let nests = if gen::nests_only() {
        "RANDOM_PROGRAMS_NESTS=1 "
    } else {
        ""
    };
    println!("random_programs: seed {seed}, {count} functions ({nests}RANDOM_PROGRAMS_SEED={seed} RANDOM_PROGRAMS_COUNT={count} to repeat)");
    let start = Instant::now();
    // `RANDOM_PROGRAMS_ONLY=3,17` re-checks just those programs of the batch.
    let only: Option<Vec<usize>> = std::env::var("RANDOM_PROGRAMS_ONLY")
        .ok()
        .map(|v| v.split(',').filter_map(|i| i.trim().parse().ok()).collect());
    let programs: Vec<ast::Program> = (0..count)
        .filter(|i| only.as_ref().map_or(true, |o| o.contains(i)))
        .map(|i| Gen::program(seed, i))
        .collect();
    let mut outcome = harness::Outcome::default();
    for chunk in programs.chunks(CHUNK) {
        let o = harness::check_programs(&format!("seed-{seed}"), seed, chunk);
        outcome.failures.extend(o.failures);
        outcome.generator_errors.extend(o.generator_errors);
        outcome.passed += o.passed;
        outcome.points += o.points;
        outcome.fd_skipped += o.fd_skipped;
        outcome.nonfinite += o.nonfinite;
        println!(
            "  {} of {count} programs done ({:.0?})",
            chunk.last().map_or(0, |p| p.index + 1),
            start.elapsed()
        );
    }
    let report = report(&programs, &outcome);
    println!("{report}");
    println!("random_programs: {:.1?} in all", start.elapsed());
    assert!(
        outcome.failures.is_empty() && outcome.generator_errors.is_empty(),
        "random_programs (seed {seed}): {} of {} programs failed; the report above groups them by cause \
         (tests/random_programs/FINDINGS.md describes the bugs found so far)",
        programs.len() - outcome.passed,
        programs.len()
    );
}

/// Runtime findings, most telling first: a program that fails several
/// checks is grouped (and minimized) by the first of these it fails.
const RUNTIME_ORDER: &[&str] = &[
    "panic",
    "crash or hang",
    "grad_value",
    "adjoint_value",
    "grad_shape",
    "grad_vs_tape",
    "adjoint_accumulate",
    "grad_vs_fd",
    "hessian_value",
    "hessian_shape",
    "hessian_gradient",
    "hessian_vs_fd",
    "jacobian_value",
    "jacobian_shape",
    "jacobian_vs_tape",
    "tape_value_differs",
];

/// One failing program: its failures, and the one it is grouped by.
struct Failed<'a> {
    principal: &'a harness::Failure,
    /// `category: cause` of the group (runtime failures: every check it
    /// fails, as they tell bugs apart).
    key: String,
}

fn failed_programs(outcome: &harness::Outcome) -> Vec<Failed<'_>> {
    let mut by_program: BTreeMap<usize, Vec<&harness::Failure>> = BTreeMap::new();
    for f in outcome.failures.iter().chain(&outcome.generator_errors) {
        by_program.entry(f.index).or_default().push(f);
    }
    by_program
        .into_values()
        .map(|fails| {
            let rank = |f: &&harness::Failure| {
                RUNTIME_ORDER
                    .iter()
                    .position(|k| *k == f.category)
                    .map_or(0, |p| p + 1)
            };
            let principal = *fails.iter().min_by_key(|f| rank(f)).unwrap();
            let key = if rank(&principal) == 0 {
                principal.key()
            } else {
                let mut kinds: Vec<&str> = fails.iter().map(|f| f.category.as_str()).collect();
                kinds.sort_by_key(|k| RUNTIME_ORDER.iter().position(|o| o == k));
                kinds.dedup();
                let cause = if principal.cause.is_empty() {
                    String::new()
                } else {
                    format!(": {}", principal.cause)
                };
                format!("wrong result: {}{cause}", kinds.join(" + "))
            };
            Failed { principal, key }
        })
        .collect()
}

/// The failures grouped by cause, each with its smallest example
/// (minimized with `RANDOM_PROGRAMS_MINIMIZE=1`).
fn report(programs: &[ast::Program], outcome: &harness::Outcome) -> String {
    use std::fmt::Write;
    let minimize = std::env::var("RANDOM_PROGRAMS_MINIMIZE").is_ok();
    let failed = failed_programs(outcome);
    let mut groups: BTreeMap<&str, Vec<&Failed>> = BTreeMap::new();
    for f in &failed {
        groups.entry(&f.key).or_default().push(f);
    }
    let mut s = String::new();
    writeln!(
        s,
        "\n{} programs passed every check ({} points; {} FD coordinates skipped as unreliable, {} points non-finite); {} failed, {} distinct causes",
        outcome.passed,
        outcome.points,
        outcome.fd_skipped,
        outcome.nonfinite,
        failed.len(),
        groups.len()
    )
    .unwrap();
    let mut ordered: Vec<(&str, Vec<&Failed>)> = groups.into_iter().collect();
    ordered.sort_by_key(|(_, v)| std::cmp::Reverse(v.len()));
    let program = |i: usize| programs.iter().find(|p| p.index == i);
    for (key, fails) in ordered {
        let size =
            |f: &&&Failed| program(f.principal.index).map_or(0, |p| render::plain_program(p).len());
        let smallest = fails
            .iter()
            .min_by_key(size)
            .expect("a group has a member")
            .principal;
        writeln!(s, "\n=== {} program(s): {key}", fails.len()).unwrap();
        let indices: Vec<String> = fails
            .iter()
            .take(20)
            .map(|f| f.principal.index.to_string())
            .collect();
        let more = if fails.len() > 20 { " ..." } else { "" };
        writeln!(s, "    programs: {}{more}", indices.join(" ")).unwrap();
        let function = smallest
            .function
            .as_ref()
            .map_or(String::new(), |f| format!(", in `{f}`"));
        let nests = if gen::nests_only() {
            "RANDOM_PROGRAMS_NESTS=1 "
        } else {
            ""
        };
        writeln!(
            s,
            "    smallest: seed {} index {} ({nests}RANDOM_PROGRAMS_SHOW={}:{}){function}",
            smallest.seed, smallest.index, smallest.seed, smallest.index,
        )
        .unwrap();
        writeln!(s, "    {}", smallest.detail).unwrap();
        let Some(prog) = program(smallest.index) else {
            continue;
        };
        let (shown, detail) = if minimize && smallest.index != usize::MAX {
            let (small, failure) = minimize::minimize(prog, &smallest.key());
            let detail = failure.map(|f| f.detail);
            (small, detail)
        } else {
            (prog.clone(), None)
        };
        if let Some(d) = detail {
            writeln!(s, "    minimized ({d}):").unwrap();
        }
        for line in render::plain_program(&shown).lines() {
            writeln!(s, "    | {line}").unwrap();
        }
    }
    s
}

/// `RANDOM_PROGRAMS_SHOW=<seed>:<index>` prints that program in both
/// renderings (a no-op otherwise).
#[test]
fn show() {
    let Ok(which) = std::env::var("RANDOM_PROGRAMS_SHOW") else {
        return;
    };
    let (seed, index) = which.split_once(':').expect("<seed>:<index>");
    let prog = Gen::program(seed.parse().unwrap(), index.parse().unwrap());
    println!("// seed {} index {}", prog.seed, prog.index);
    println!("{}", render::plain_program(&prog));
    println!(
        "// ----- on the tape -----\n{}",
        render::tape_program(&prog)
    );
}

/// The generator is a function of `(seed, index)` alone.
#[test]
fn generator_is_deterministic() {
    for i in 0..50 {
        let a = render::plain_program(&Gen::program(7, i));
        let b = render::plain_program(&Gen::program(7, i));
        assert_eq!(a, b);
    }
}

/// The generator reaches every construct of the subset within a few
/// hundred programs (a check on the generator, not on the macro).
#[test]
fn generator_covers_the_subset() {
    let text: String = (0..400)
        .map(|i| render::plain_program(&Gen::program(FIXED_SEED, i)))
        .collect();
    let constructs = [
        ("let without mut", "let t"),
        ("let mut", "let mut "),
        ("type annotation", ": f64 ="),
        ("bare block", "\n    {\n"),
        ("+=", " += "),
        ("-=", " -= "),
        ("*=", " *= "),
        ("/=", " /= "),
        ("element write", "] = "),
        ("element compound", "] += "),
        ("for over a range", " in 0.."),
        ("inclusive range", "..="),
        ("reversed range", ").rev()"),
        ("for v in xs", "for v in "),
        ("for &v in xs", "for &"),
        (".iter()", ".iter() {"),
        (".iter().enumerate()", ".iter().enumerate()"),
        ("while", "while "),
        ("loop", "loop {"),
        ("break", "break;"),
        ("continue", "continue;"),
        ("else if", "} else if "),
        ("else", "} else {"),
        ("if value", "= if "),
        ("early return", "return "),
        ("[0.0; N]", "[0.0; "),
        ("[a, b]", "= ["),
        ("vec![0.0; n]", "vec![0.0"),
        ("to_vec", ".to_vec()"),
        ("call with &[a, b]", "(&["),
        ("call with [a, b]", "(["),
        ("call with subslice", ".."),
        ("call with &buf[a..]", "..])"),
        ("cast", " as f64"),
        ("-(n as f64)", "-(("),
        ("method on a cast", " as f64).sqrt()"),
        ("PI", "std::f64::consts::PI"),
        ("EPSILON", "f64::EPSILON"),
        ("const item", "SCALE"),
        ("path form", "f64::sin("),
        ("dot form", ".sin()"),
        ("powi", ".powi("),
        ("powf", "powf("),
        ("mul_add", "mul_add("),
        ("clamp", "clamp("),
        ("max", "max("),
        ("atan2", "atan2("),
        ("hypot", "hypot("),
        ("acosh", "acosh("),
        ("ln_1p", "ln_1p("),
        ("wrt", "#[differentiable(wrt("),
        ("&[f64] param", ": &[f64]"),
        ("[f64; N] param", ": [f64; "),
        ("&[f64; N] param", ": &[f64; "),
        ("usize param", ": usize"),
        ("name t0", "t0"),
        ("name d_x", "d_x"),
        ("name d_out", "d_out"),
        ("name __ad_", "__ad_"),
        ("name x__1", "x__1"),
        ("len()", ".len()"),
        // idiomatic Rust (API.md §1b)
        (".iter() in a chain", ".iter()."),
        ("copied", ".copied()"),
        ("cloned", ".cloned()"),
        ("enumerate in a chain", ".enumerate().map("),
        ("zip", ".zip("),
        ("zip(k..)", "..)"),
        ("map", ".map(|"),
        ("filter", ".filter(|&"),
        ("rev in a chain", ".rev()."),
        ("skip", ".skip("),
        ("take", ".take("),
        ("step_by", ".step_by("),
        ("windows", ".windows("),
        ("chunks", ".chunks("),
        ("chunks_exact", ".chunks_exact("),
        ("sum", ".sum::<f64>()"),
        ("product", ".product::<f64>()"),
        ("fold", ".fold("),
        ("count", ".count() as f64"),
        ("range as iterator", "(0..="),
        ("any in a condition", ".iter().any(|&q__| q__"),
        ("all in a condition", ".iter().all(|&q__| q__"),
        ("subslice iterator", "..].iter()"),
        ("for over &x[a..]", " in &"),
        ("for over a chain", ").map(|"),
        ("iter_mut", ".iter_mut()"),
        ("iter_mut write", "    *"),
        ("get().copied().unwrap_or", ".copied().unwrap_or("),
        ("get().cloned().unwrap_or", ".cloned().unwrap_or("),
        ("let (a, b) = (..)", ") = ("),
        ("mut in a pattern", "(mut "),
        ("_ in a pattern", ", _"),
        ("let [x1, x2] = *x", "] = *"),
        ("sin_cos", "sin_cos("),
        ("tuple local field", ".0"),
        ("closure local", "= |"),
        ("match statement", "    match "),
        ("match value", "= match "),
        ("match or-pattern", " | "),
        ("match range pattern", "..=2 => "),
        ("match guard", " if "),
        ("match _", "_ => "),
        ("match on bool", "true => "),
    ];
    let missing: Vec<&str> = constructs
        .iter()
        .filter(|(_, needle)| !text.contains(needle))
        .map(|(name, _)| *name)
        .collect();
    assert!(missing.is_empty(), "never generated: {missing:?}");
    // twin loops: the same `for` line again right after the `}` that
    // closes the first loop (the first line at its indentation after it)
    let lines: Vec<&str> = text.lines().collect();
    let indent = |line: &str| line.len() - line.trim_start().len();
    let twins = (0..lines.len())
        .filter(|&i| lines[i].trim_start().starts_with("for "))
        .filter(|&i| {
            let close = (i + 1..lines.len()).find(|&k| indent(lines[k]) <= indent(lines[i]));
            close.is_some_and(|k| lines[k].trim() == "}" && lines.get(k + 1) == Some(&lines[i]))
        })
        .count();
    assert!(twins > 0, "never generated: twin loops");
}

/// Nests over buffers (`nests.rs`): about one function in five of the
/// default mix (drawn apart from the rest, so the other programs are those
/// of before), every index in bounds (`elem` asserts it while generating:
/// this generates a few hundred), and every shape written.
#[test]
fn generator_writes_nests() {
    if !gen::nests_only() {
        let nests = (0..1000).filter(|&i| gen::is_nest(FIXED_SEED, i)).count();
        assert!((150..=250).contains(&nests), "{nests} nests in 1000");
    }
    let text: String = (0..300)
        .map(|i| render::plain_program(&Gen::program_as(FIXED_SEED, i, true)))
        .collect();
    let constructs = [
        ("usize sizes", ": usize"),
        ("triangular loop", "..=i"),
        ("loop from 1", " in 1.."),
        ("loop to n - 1", " - 1) {"),
        ("left neighbour", " - 1]"),
        ("right neighbour", " + 1]"),
        ("row-major", " * m + "),
        ("a local copy", ".to_vec()"),
        ("per-iteration buffer", "vec![0.0"),
        ("running max", ".max("),
        ("log-sum-exp", ").exp()"),
        ("log-sum-exp", ".ln()"),
        ("a row's start", "let base = "),
        // arrays declared in the body of a nest's outer loop
        ("a vector-valued helper", "pub fn hv("),
        ("its returned array", " = hv("),
        ("a vec! whose length varies", " + 1];"),
        ("a time step", "for ts in 0.."),
    ];
    let missing: Vec<&str> = constructs
        .iter()
        .filter(|(_, needle)| !text.contains(needle))
        .map(|(name, _)| *name)
        .collect();
    assert!(missing.is_empty(), "never generated in nests: {missing:?}");
}

/// A `while` stepped last (`k = k + (k + 1);`) has its body in a block of
/// its own before the step, so that a `let` in the body cannot shadow the
/// counter the step reads: seed 2615726640 wrote six programs that were not
/// valid Rust (`let mut t1: f64 = ..; t1 += t1 + 1;`, E0277) before it did
/// (among its first 2 500: every stepped `while` of those).
#[test]
fn stepped_whiles_keep_their_counter_in_sight() {
    let mut steps = 0;
    for index in 0..2500 {
        let text = render::plain_program(&Gen::program(2615726640, index));
        let raw: Vec<&str> = text.lines().collect();
        let lines: Vec<&str> = raw.iter().map(|l| l.trim()).collect();
        let indent = |l: &str| l.len() - l.trim_start().len();
        for (i, line) in lines.iter().enumerate() {
            // (in a `while`: the nearest line opening a block around it)
            let around = raw[..i]
                .iter()
                .rev()
                .find(|l| indent(l) < indent(raw[i]) && l.trim_end().ends_with('{'));
            if !around.is_some_and(|l| l.trim_start().starts_with("while ")) {
                continue;
            }
            // `k += k + 1;` or `k = k + (k + 1);`
            let Some((counter, rest)) = line.split_once(" += ").or(line.split_once(" = ")) else {
                continue;
            };
            let step = [
                format!("{counter} + 1;"),
                format!("{counter} + ({counter} + 1);"),
            ];
            if counter.contains(' ') || !step.iter().any(|s| rest == s.as_str()) {
                continue;
            }
            steps += 1;
            assert_eq!(lines[i - 1], "}", "program {index}, line {i}:\n{text}");
        }
    }
    assert!(steps >= 6, "{steps} stepped whiles");
}
