//! Turns generated programs into a temporary Cargo project, builds it, runs
//! the checks, and collects failures.
//!
//! `#[differentiable]` runs at compile time, so the only way to test what it
//! generates is to compile it: every program of a batch becomes modules of
//! one crate under `target/random-programs/`, depending on this repository
//! by path, with a shared `CARGO_TARGET_DIR` so `autograd` and its
//! dependencies are compiled once. Per program `i`:
//!
//! * `src/p{i}_plain.rs`: the functions without the attribute. Built first,
//!   alone: an error there is the generator's fault, not the macro's.
//! * `src/p{i}.rs`: the functions with `#[differentiable]`, and glue that
//!   flattens their parameters for the checker (`oracle.rs`).
//! * `src/p{i}_tape.rs`: the tape rendering, the oracle.
//!
//! A compile error is attributed to the program whose file it points at
//! (and to the function whose lines it points at); that program is reported
//! and dropped, and the rest rebuilt, so one bad function does not hide the
//! others. A panic, crash or hang while checking is attributed the same way.

use super::ast::*;
use super::render::{self, Mode, Printer};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// One thing wrong with one program.
#[derive(Clone, Debug)]
pub struct Failure {
    pub seed: u64,
    pub index: usize,
    /// Which check failed: "compile error in generated code",
    /// "refused by the macro", "grad_vs_fd", ...
    pub category: String,
    /// What the failures of one cause have in common (the rustc error code
    /// and message, with names elided); failures are grouped by it.
    pub cause: String,
    /// The full message: error line and location, or the checker's detail.
    pub detail: String,
    /// The function the error points at (`f`, `h0`, ...), if known.
    pub function: Option<String>,
}

impl Failure {
    /// `category: cause`, the grouping key of the report.
    pub fn key(&self) -> String {
        format!("{}: {}", self.category, self.cause)
    }
}

#[derive(Default, Debug)]
pub struct Outcome {
    pub failures: Vec<Failure>,
    /// Programs whose every check passed.
    pub passed: usize,
    /// Points checked (finite value) over all passing programs, and
    /// coordinates where finite differences were unreliable and skipped.
    pub points: usize,
    pub fd_skipped: usize,
    pub nonfinite: usize,
    /// Programs dropped because the generator wrote invalid Rust (its bug,
    /// not the macro's; reported separately).
    pub generator_errors: Vec<Failure>,
}

/// Where the temporary projects and their shared target directory live.
pub fn work_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join("random-programs")
}

/// The lines of `p{i}.rs` each function occupies, to attribute errors.
struct Layout {
    spans: Vec<(usize, usize, String)>,
}

impl Layout {
    fn function_at(&self, line: usize) -> Option<String> {
        self.spans
            .iter()
            .find(|(a, b, _)| (*a..=*b).contains(&line))
            .map(|(_, _, n)| n.clone())
    }
}

/// `p{i}.rs`: consts, the `#[differentiable]` functions, and glue.
fn macro_module(prog: &Program) -> (String, Layout) {
    let mut s = String::from("use autograd::differentiable;\n");
    s.push_str(&render::preamble(prog));
    let mut spans = Vec::new();
    for f in prog.helpers.iter().chain(std::iter::once(&prog.main)) {
        s.push('\n');
        let start = s.lines().count() + 1;
        s.push_str(&render::plain_func(f));
        let end = s.lines().count();
        spans.push((start, end, f.name.clone()));
    }
    let start = s.lines().count() + 1;
    s.push_str(&glue(prog));
    spans.push((start, s.lines().count(), "glue".to_string()));
    (s, Layout { spans })
}

/// Per parameter of `f`: its offset in the flat vector of all floats.
fn offsets(f: &Func) -> Vec<usize> {
    let mut o = 0;
    f.params
        .iter()
        .map(|p| {
            let here = o;
            o += p.ty.floats();
            here
        })
        .collect()
}

/// The argument list calling `f` with its floats read from `v[..]`.
fn flat_args(f: &Func, v: &str) -> Vec<String> {
    let offs = offsets(f);
    f.params
        .iter()
        .zip(offs)
        .map(|(p, o)| {
            let items = |n: usize| {
                (o..o + n)
                    .map(|i| format!("{v}[{i}]"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            match p.ty {
                Ty::F64 => format!("{v}[{o}]"),
                Ty::Slice(n) => format!("&{v}[{o}..{}]", o + n),
                Ty::Array(n) => format!("[{}]", items(n)),
                Ty::ArrayRef(n) => format!("&[{}]", items(n)),
                Ty::Usize(k) => k.to_string(),
            }
        })
        .collect()
}

/// The checker's view of `f`: flat `call_f`, `call_grad`, `call_adjoint`.
fn glue(prog: &Program) -> String {
    let f = &prog.main;
    let args = flat_args(f, "p").join(", ");
    let mut active = Vec::new();
    for p in &f.params {
        for _ in 0..p.ty.floats() {
            active.push(p.active.to_string());
        }
    }
    let act: Vec<&Param> = f.params.iter().filter(|p| p.active).collect();
    let mut s = String::from("\n// ----- glue for the checker -----\n");
    writeln!(
        s,
        "pub const ACTIVE: [bool; {}] = [{}];",
        active.len(),
        active.join(", ")
    )
    .unwrap();
    writeln!(s, "pub fn call_f(p: &[f64]) -> f64 {{\n    f({args})\n}}").unwrap();
    // f_grad: flatten G (a single shape, or a tuple of them).
    writeln!(
        s,
        "pub fn call_grad(p: &[f64]) -> (f64, Vec<f64>) {{\n    let (value, g) = f_grad({args});\n    let mut flat: Vec<f64> = Vec::new();"
    )
    .unwrap();
    for (k, p) in act.iter().enumerate() {
        let g = if act.len() == 1 {
            "g".to_string()
        } else {
            format!("g.{k}")
        };
        match p.ty {
            Ty::F64 => writeln!(s, "    flat.push({g});").unwrap(),
            _ => writeln!(s, "    flat.extend_from_slice(&{g});").unwrap(),
        }
    }
    s.push_str("    (value, flat)\n}\n");
    // f_hessian (RANDOM_PROGRAMS_HESSIAN): the same flattening of G.
    if render::hessian_mode() {
        writeln!(
            s,
            "pub fn call_hessian(p: &[f64]) -> Option<(f64, Vec<f64>, Vec<f64>)> {{\n    let (value, g, h) = f_hessian({args});\n    let mut flat: Vec<f64> = Vec::new();"
        )
        .unwrap();
        for (k, p) in act.iter().enumerate() {
            let g = if act.len() == 1 {
                "g".to_string()
            } else {
                format!("g.{k}")
            };
            match p.ty {
                Ty::F64 => writeln!(s, "    flat.push({g});").unwrap(),
                _ => writeln!(s, "    flat.extend_from_slice(&{g});").unwrap(),
            }
        }
        s.push_str("    Some((value, flat, h))\n}\n");
    } else {
        s.push_str(
            "pub fn call_hessian(_: &[f64]) -> Option<(f64, Vec<f64>, Vec<f64>)> {\n    None\n}\n",
        );
    }
    // f_adjoint: one buffer per active parameter, copied in and out of `d`.
    s.push_str("pub fn call_adjoint(p: &[f64], d_out: f64, d: &mut [f64]) -> f64 {\n");
    let mut o = 0;
    let mut slots = Vec::new();
    let mut back = String::new();
    for (k, p) in act.iter().enumerate() {
        let n = p.ty.floats();
        match p.ty {
            Ty::F64 => {
                writeln!(s, "    let mut b{k} = d[{o}];").unwrap();
                writeln!(back, "    d[{o}] = b{k};").unwrap();
            }
            Ty::Slice(_) => {
                writeln!(s, "    let mut b{k} = d[{o}..{}].to_vec();", o + n).unwrap();
                writeln!(back, "    d[{o}..{}].copy_from_slice(&b{k});", o + n).unwrap();
            }
            _ => {
                let items: Vec<String> = (o..o + n).map(|i| format!("d[{i}]")).collect();
                writeln!(s, "    let mut b{k} = [{}];", items.join(", ")).unwrap();
                writeln!(back, "    d[{o}..{}].copy_from_slice(&b{k});", o + n).unwrap();
            }
        }
        slots.push(format!("&mut b{k}"));
        o += n;
    }
    writeln!(
        s,
        "    let value = f_adjoint({args}, d_out, {});\n{back}    value\n}}",
        slots.join(", ")
    )
    .unwrap();
    // The vector-valued helpers: `h_jacobian` (by columns in forward mode
    // or by rows in reverse mode, as `h`'s shape decides) against the tape.
    let mut vectors = Vec::new();
    for h in vector_helpers(prog) {
        let name = &h.name;
        let args = flat_args(h, "p").join(", ");
        let active: Vec<String> = h
            .params
            .iter()
            .flat_map(|p| std::iter::repeat(p.active.to_string()).take(p.ty.floats()))
            .collect();
        writeln!(
            s,
            "pub fn call_{name}(p: &[f64]) -> Vec<f64> {{\n    {name}({args}).to_vec()\n}}\n\
             pub fn call_{name}_jacobian(p: &[f64]) -> (Vec<f64>, Vec<f64>) {{\n    \
             let (value, jacobian) = {name}_jacobian({args});\n    (value.to_vec(), jacobian)\n}}"
        )
        .unwrap();
        vectors.push(format!(
            "crate::oracle::Vector {{ name: \"{name}\", active: &[{}], f: &call_{name}, \
             jacobian: &call_{name}_jacobian, tape: &super::p{}_tape::call_{name}_tape }}",
            active.join(", "),
            prog.index
        ));
    }
    writeln!(
        s,
        "pub fn run(index: usize, seed: u64) -> Vec<String> {{\n    \
         let mut lines = crate::oracle::check(index, seed, &crate::oracle::Subject {{\n        \
         active: &ACTIVE,\n        f: &call_f,\n        grad: &call_grad,\n        \
         adjoint: &call_adjoint,\n        tape: &super::p{}_tape::call_tape,\n        \
         hessian: &call_hessian,\n    }});\n    \
         let vectors = crate::oracle::check_vectors(index, seed, &[{}]);\n    \
         if !vectors.is_empty() {{\n        lines.retain(|l| !l.contains(\" OK \"));\n        \
         lines.extend(vectors);\n    }}\n    lines\n}}",
        prog.index,
        vectors.join(", ")
    )
    .unwrap();
    s
}

/// The helpers of `prog` that return a vector (their tail lists it).
fn vector_helpers(prog: &Program) -> impl Iterator<Item = &Func> {
    prog.helpers
        .iter()
        .filter(|h| matches!(h.body.tail.as_deref(), Some(Expr::List(..))))
}

/// `p{i}_tape.rs`: the tape rendering and its flat entry point.
fn tape_module(prog: &Program) -> String {
    let mut s = String::from("use autograd::tape::{Tape, Var};\n");
    s.push_str(&render::tape_program(prog));
    let p = Printer::new(Mode::Tape);
    let args = flat_args(&prog.main, "v").join(", ");
    writeln!(
        s,
        "\npub fn call_tape(p: &[f64]) -> (f64, Vec<f64>) {{\n    \
         let tape = Tape::new();\n    \
         let v: Vec<Var> = p.iter().map(|&x| tape.var(x)).collect();\n    \
         let y = {}(&tape, {args});\n    \
         (y.value(), y.backward().wrt_all(&v))\n}}",
        p.fn_name(&prog.main.name)
    )
    .unwrap();
    // a vector-valued helper's values and Jacobian, a row per output
    for h in vector_helpers(prog) {
        let args = flat_args(h, "v").join(", ");
        writeln!(
            s,
            "\npub fn call_{}_tape(p: &[f64]) -> (Vec<f64>, Vec<f64>) {{\n    \
             let tape = Tape::new();\n    \
             let v: Vec<Var> = p.iter().map(|&x| tape.var(x)).collect();\n    \
             let y = {}(&tape, {args});\n    \
             let mut rows = Vec::new();\n    \
             for output in y.iter() {{\n        rows.extend(output.backward().wrt_all(&v));\n    }}\n    \
             (y.iter().map(|output| output.value()).collect(), rows)\n}}",
            h.name,
            p.fn_name(&h.name)
        )
        .unwrap();
    }
    s
}

/// `p{i}_plain.rs`: the program without the attribute.
fn plain_module(prog: &Program) -> String {
    render::plain_program(prog)
        .lines()
        .filter(|l| !l.trim_start().starts_with("#[differentiable"))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The build of one project: its directory and the programs in it.
struct Project<'a> {
    dir: PathBuf,
    seed: u64,
    programs: Vec<&'a Program>,
}

/// A rustc error pointing into `src/<file>:<line>`.
struct Diagnostic {
    file: String,
    line: usize,
    code: Option<String>,
    message: String,
}

/// Parses `--message-format=short` output: `src/p3.rs:12:5: error[E0308]: ..`.
fn parse_errors(stderr: &str) -> (Vec<Diagnostic>, Vec<String>) {
    let mut found = Vec::new();
    let mut other = Vec::new();
    for line in stderr.lines() {
        let parts: Vec<&str> = line.splitn(4, ':').collect();
        if parts.len() == 4 && parts[0].starts_with("src/") {
            let rest = parts[3].trim_start();
            if !rest.starts_with("error") {
                continue;
            }
            let (code, message) = match rest.strip_prefix("error[") {
                Some(r) => {
                    let end = r.find(']').unwrap_or(0);
                    (
                        Some(r[..end].to_string()),
                        r[end + 1..].trim_start_matches(':').trim().to_string(),
                    )
                }
                None => (
                    None,
                    rest.trim_start_matches("error")
                        .trim_start_matches(':')
                        .trim()
                        .to_string(),
                ),
            };
            found.push(Diagnostic {
                file: parts[0].trim_start_matches("src/").to_string(),
                line: parts[1].parse().unwrap_or(0),
                code,
                message,
            });
        } else if line.starts_with("error")
            && !line.contains("could not compile")
            && !line.contains("aborting due to")
        {
            other.push(line.to_string());
        }
    }
    (found, other)
}

/// Names in backticks and numbers vary between failures of one cause.
fn normalize(message: &str) -> String {
    let mut out = String::new();
    let mut in_tick = false;
    for c in message.chars() {
        if c == '`' {
            in_tick = !in_tick;
            out.push_str(if in_tick { "`_" } else { "`" });
        } else if !in_tick {
            out.push(if c.is_ascii_digit() { 'N' } else { c });
        }
    }
    out
}

/// The checker binary's name, this process's own.
fn batch_binary_name() -> String {
    format!("random_programs_batch_{}", std::process::id())
}

/// Splits `p17_tape.rs` into (17, "_tape").
fn program_of(file: &str) -> Option<(usize, &str)> {
    let stem = file.strip_suffix(".rs")?.strip_prefix('p')?;
    let digits: String = stem.chars().take_while(|c| c.is_ascii_digit()).collect();
    let index = digits.parse().ok()?;
    Some((index, &stem[digits.len()..]))
}

impl<'a> Project<'a> {
    fn write_manifest(&self) {
        std::fs::create_dir_all(self.dir.join("src")).unwrap();
        let root = env!("CARGO_MANIFEST_DIR");
        // (the checker binary is named after this process: two runs at once
        // share the build directory, and one rebuilding it under the other
        // left that one running the wrong programs, for ever)
        let bin = batch_binary_name();
        let manifest = format!(
            "[package]\nname = \"random_programs_batch\"\nversion = \"0.0.0\"\n\
             edition = \"2021\"\npublish = false\n\n\
             [[bin]]\nname = \"{bin}\"\npath = \"src/main.rs\"\n\n[dependencies]\n\
             autograd = {{ path = {root:?} }}\n\n\
             # Not a member of the repository's workspace.\n[workspace]\n\n\
             [profile.dev]\ndebug = false\n"
        );
        std::fs::write(self.dir.join("Cargo.toml"), manifest).unwrap();
        // The repository's lock file: the same dependency versions, already
        // downloaded (the build runs `--offline`).
        let lock = Path::new(root).join("Cargo.lock");
        if !self.dir.join("Cargo.lock").exists() {
            let _ = std::fs::copy(lock, self.dir.join("Cargo.lock"));
        }
        std::fs::write(self.dir.join("src/oracle.rs"), include_str!("oracle.rs")).unwrap();
    }

    /// Writes `main.rs` declaring `modules`; with `run`, a main that checks
    /// every program in `programs`.
    fn write_main(&self, modules: &[String], programs: &[usize]) {
        let mut s = String::from(
            "#![allow(warnings)]\n//! Generated by tests/random_programs; safe to delete.\n\n",
        );
        if !programs.is_empty() {
            s.push_str("mod oracle;\n");
        }
        for m in modules {
            writeln!(s, "mod {m};").unwrap();
        }
        s.push_str("\nfn main() {\n");
        if !programs.is_empty() {
            s.push_str(
                "    let args: Vec<String> = std::env::args().collect();\n    \
                 let seed: u64 = args[1].parse().unwrap();\n    \
                 let skip: Vec<usize> = args[2..].iter().map(|a| a.parse().unwrap()).collect();\n    \
                 std::panic::set_hook(Box::new(|_| {}));\n    \
                 let table: Vec<(usize, fn(usize, u64) -> Vec<String>)> = vec![\n",
            );
            for i in programs {
                writeln!(s, "        ({i}, p{i}::run),").unwrap();
            }
            s.push_str(
                "    ];\n    for (i, run) in table {\n        \
                 if skip.contains(&i) {\n            continue;\n        }\n        \
                 println!(\"START {i}\");\n        \
                 match std::panic::catch_unwind(|| run(i, seed)) {\n            \
                 Ok(lines) => lines.iter().for_each(|l| println!(\"{l}\")),\n            \
                 Err(e) => {\n                \
                 let msg = e.downcast_ref::<String>().cloned()\n                    \
                 .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))\n                    \
                 .unwrap_or_default();\n                \
                 println!(\"RP {i} FAIL panic {}\", msg.replace('\\n', \" \"));\n            \
                 }\n        }\n    }\n    println!(\"DONE\");\n",
            );
        }
        s.push_str("}\n");
        std::fs::write(self.dir.join("src/main.rs"), s).unwrap();
    }

    fn build(&self) -> (bool, String) {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
        let out = Command::new(cargo)
            .args(["build", "--offline", "--message-format=short", "--quiet"])
            .current_dir(&self.dir)
            .env("CARGO_TARGET_DIR", work_dir().join("target"))
            .stdin(Stdio::null())
            .output()
            .expect("run cargo");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    fn binary(&self) -> PathBuf {
        work_dir().join("target").join("debug").join(format!(
            "{}{}",
            batch_binary_name(),
            std::env::consts::EXE_SUFFIX
        ))
    }

    fn failure(&self, index: usize, category: &str, cause: String, detail: String) -> Failure {
        Failure {
            seed: self.seed,
            index,
            category: category.to_string(),
            cause,
            detail,
            function: None,
        }
    }

    /// Builds `modules(i)` for every live program until the build is clean,
    /// dropping (and reporting through `blame`) the programs errors point
    /// at. Returns the programs that built.
    fn build_until_clean(
        &self,
        live: Vec<usize>,
        modules: impl Fn(usize) -> Vec<String>,
        run: bool,
        mut blame: impl FnMut(usize, &str, &Diagnostic),
        other: &mut Vec<(Option<usize>, String)>,
    ) -> Vec<usize> {
        let mut live = live;
        loop {
            let mods: Vec<String> = live.iter().flat_map(|&i| modules(i)).collect();
            self.write_main(&mods, if run { &live } else { &[] });
            let (ok, stderr) = self.build();
            if ok {
                return live;
            }
            let (diags, rest) = parse_errors(&stderr);
            let mut bad: Vec<usize> = Vec::new();
            for d in &diags {
                if let Some((i, part)) = program_of(&d.file) {
                    if live.contains(&i) {
                        blame(i, part, d);
                        if !bad.contains(&i) {
                            bad.push(i);
                        }
                    }
                }
            }
            if bad.is_empty() {
                // Nothing points into a program's file: find one program
                // that fails alone by halving, and drop it; give up
                // (loudly) if none does.
                let text = if rest.is_empty() {
                    stderr.lines().take(40).collect::<Vec<_>>().join("\n")
                } else {
                    rest.join("\n")
                };
                match self.culprit(&live, &modules, run) {
                    Some(i) => {
                        other.push((Some(i), text));
                        bad.push(i);
                    }
                    None => {
                        other.push((None, text));
                        return Vec::new();
                    }
                }
            }
            live.retain(|i| !bad.contains(i));
            if live.is_empty() {
                return live;
            }
        }
    }
}

impl Project<'_> {
    /// A program of `live` whose modules alone fail to build, by halving.
    fn culprit(
        &self,
        live: &[usize],
        modules: &impl Fn(usize) -> Vec<String>,
        run: bool,
    ) -> Option<usize> {
        if live.len() == 1 {
            return Some(live[0]);
        }
        let (a, b) = live.split_at(live.len() / 2);
        for half in [a, b] {
            let mods: Vec<String> = half.iter().flat_map(|&i| modules(i)).collect();
            self.write_main(&mods, if run { half } else { &[] });
            if !self.build().0 {
                return self.culprit(half, modules, run);
            }
        }
        None
    }
}

/// Generates nothing: builds and checks `programs` (all of one seed) in
/// the project directory `name` under [`work_dir`].
pub fn check_programs(name: &str, seed: u64, programs: &[Program]) -> Outcome {
    let project = Project {
        dir: work_dir().join(name),
        seed,
        programs: programs.iter().collect(),
    };
    project.write_manifest();
    // Modules of an earlier run in this directory would only take space.
    for entry in std::fs::read_dir(project.dir.join("src"))
        .unwrap()
        .flatten()
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('p') && name.ends_with(".rs") {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    let by_index: BTreeMap<usize, &Program> =
        project.programs.iter().map(|p| (p.index, *p)).collect();
    let mut layouts: BTreeMap<usize, Layout> = BTreeMap::new();
    for p in &project.programs {
        let dir = project.dir.join("src");
        let (text, layout) = macro_module(p);
        std::fs::write(dir.join(format!("p{}.rs", p.index)), text).unwrap();
        std::fs::write(dir.join(format!("p{}_tape.rs", p.index)), tape_module(p)).unwrap();
        std::fs::write(dir.join(format!("p{}_plain.rs", p.index)), plain_module(p)).unwrap();
        layouts.insert(p.index, layout);
    }
    let mut outcome = Outcome::default();
    let mut other = Vec::new();

    // 1. The plain functions and the tape rendering must compile: if not,
    //    the generator wrote something outside Rust, and the program says
    //    nothing about the macro.
    let all: Vec<usize> = by_index.keys().copied().collect();
    let mut gen_errors: BTreeMap<usize, Failure> = BTreeMap::new();
    let live = project.build_until_clean(
        all,
        |i| vec![format!("p{i}_plain"), format!("p{i}_tape")],
        false,
        |i, part, d| {
            gen_errors.entry(i).or_insert_with(|| {
                project.failure(
                    i,
                    if part == "_tape" {
                        "generator: invalid tape rendering"
                    } else {
                        "generator: invalid plain Rust"
                    },
                    normalize(&d.message),
                    format!("{}:{}: {}", d.file, d.line, d.message),
                )
            });
        },
        &mut other,
    );
    outcome.generator_errors.extend(gen_errors.into_values());

    // 2. With the macro. Errors here are the macro's.
    let mut compile_fails: BTreeMap<usize, Failure> = BTreeMap::new();
    let live = project.build_until_clean(
        live,
        |i| vec![format!("p{i}"), format!("p{i}_tape")],
        true,
        |i, part, d| {
            let function = if part.is_empty() {
                layouts[&i].function_at(d.line)
            } else {
                None
            };
            let category = match (&d.code, function.as_deref()) {
                (_, Some("glue")) => "generated items have unexpected signatures",
                (Some(_), _) => "compile error in generated code",
                (None, _) => "refused by the macro",
            };
            let cause = match &d.code {
                Some(c) => format!("{c} {}", normalize(&d.message)),
                None => normalize(&d.message),
            };
            let mut fail = project.failure(
                i,
                category,
                cause,
                format!("{}:{}: {}", d.file, d.line, d.message),
            );
            fail.function = function;
            compile_fails.entry(i).or_insert(fail);
        },
        &mut other,
    );
    outcome.failures.extend(compile_fails.into_values());
    for (index, text) in other {
        outcome.failures.push(Failure {
            seed,
            index: index.unwrap_or(usize::MAX),
            category: "build failure not pointing into a program".to_string(),
            cause: text.lines().next().unwrap_or("").to_string(),
            detail: text,
            function: None,
        });
    }

    // 3. Run the checks; a crash or hang is blamed on the program running.
    let mut skip: Vec<usize> = Vec::new();
    let mut remaining: Vec<usize> = live.clone();
    while !remaining.is_empty() {
        let (lines, finished) = run_binary(&project.binary(), seed, &skip);
        let before = remaining.len();
        let mut last_started = None;
        for line in &lines {
            if let Some(i) = line.strip_prefix("START ") {
                last_started = i.parse::<usize>().ok();
                continue;
            }
            let parts: Vec<&str> = line.splitn(5, ' ').collect();
            if parts.len() < 3 || parts[0] != "RP" {
                continue;
            }
            let Ok(i) = parts[1].parse::<usize>() else {
                continue;
            };
            remaining.retain(|&r| r != i);
            skip.push(i);
            if parts[2] == "OK" {
                outcome.passed += 1;
                for kv in line.split(' ').skip(3) {
                    let (k, v) = kv.split_once('=').unwrap_or(("", "0"));
                    let v: usize = v.parse().unwrap_or(0);
                    match k {
                        "checked" => outcome.points += v,
                        "fd_skipped" => outcome.fd_skipped += v,
                        "nonfinite" => outcome.nonfinite += v,
                        _ => {}
                    }
                }
            } else if parts.len() >= 4 {
                let kind = parts[3].to_string();
                let detail = parts.get(4).unwrap_or(&"").to_string();
                let cause = if kind == "panic" {
                    normalize(detail.split(':').next().unwrap_or(""))
                } else {
                    String::new()
                };
                let mut f = project.failure(i, &kind, cause, detail);
                f.function = Some(by_index[&i].main.name.clone());
                outcome.failures.push(f);
            }
        }
        if !finished {
            let i = match last_started {
                Some(i) if remaining.contains(&i) => i,
                _ => {
                    // Crashed before starting anything: blame them all.
                    for &i in &remaining {
                        outcome.failures.push(project.failure(
                            i,
                            "checker binary failed",
                            String::new(),
                            lines.join("\n"),
                        ));
                    }
                    break;
                }
            };
            outcome.failures.push(project.failure(
                i,
                "crash or hang",
                String::new(),
                "the process died or hung while checking this program".to_string(),
            ));
            remaining.retain(|&r| r != i);
            skip.push(i);
        }
        if remaining.len() == before {
            // Finished without a word about any program left (a binary
            // without them): blame them, rather than run it again for ever.
            for &i in &remaining {
                outcome.failures.push(project.failure(
                    i,
                    "checker binary failed",
                    String::new(),
                    "the checker finished without running this program".to_string(),
                ));
            }
            break;
        }
    }
    remove_batch_binary();
    outcome
}

/// Deletes this process's checker binary and cargo's copies of it (each run
/// has its own: `batch_binary_name`).
fn remove_batch_binary() {
    let debug = work_dir().join("target").join("debug");
    let name = batch_binary_name();
    for dir in [debug.clone(), debug.join("deps")] {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let file = entry.file_name();
            let file = file.to_string_lossy();
            let ours = file == name
                || file.starts_with(&format!("{name}-"))
                || file.starts_with(&format!("{name}."));
            if ours {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

/// Runs the checker binary (at most a minute); returns its output lines
/// and whether it got to the end.
fn run_binary(bin: &Path, seed: u64, skip: &[usize]) -> (Vec<String>, bool) {
    let out_path = work_dir().join(format!("run-{}.out", std::process::id()));
    let out_file = std::fs::File::create(&out_path).unwrap();
    let mut child = Command::new(bin)
        .arg(seed.to_string())
        .args(skip.iter().map(|s| s.to_string()))
        .stdout(out_file)
        .stderr(Stdio::null())
        .spawn()
        .expect("run the checker");
    let start = Instant::now();
    let finished = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.success();
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            break false;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let text = std::fs::read_to_string(&out_path).unwrap_or_default();
    let _ = std::fs::remove_file(&out_path);
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    let done = finished && lines.last().map(String::as_str) == Some("DONE");
    (lines, done)
}
