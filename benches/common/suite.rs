//! The benchmark suite: every workload row with every variant that computes
//! it, checked against the hand-written gradient, then handed to a
//! [`Runner`] — criterion in `benches/gradients.rs`, callgrind in
//! `benches/instructions.rs` — so that both time exactly the same code.
//!
//! A variant is a closure that returns the value and writes the gradient
//! into the slice it is given, overwriting it (`primal` leaves it alone).
//! Whatever a variant needs to do per gradient is inside the closure and
//! so inside the timed region: zeroing an accumulating gradient, recording
//! the graph, running backward, copying the gradient out. What a caller
//! would keep across steps (a cleared tape, a buffer of input variables) is
//! set up once, outside.

use super::workloads::{self, model};
use super::{closure_graph, on_tape, with_num_dual, with_reverse};
use autograd::tape::Tape;
use autograd_benches::nested;
use std::hint::black_box;

/// Forward-mode peers make one pass per input: only up to this many inputs.
pub const FORWARD_MODE_MAX_INPUTS: usize = 1_000;

/// The variants, in the order of the table's columns.
pub const VARIANTS: [&str; 8] = [
    "primal",
    "hand_written",
    "macro_adjoint",
    "tape",
    "tape_fresh",
    "closure_graph",
    "reverse",
    "num_dual",
];

/// One row of the table: a workload at one size.
#[derive(Clone, Copy, Debug)]
pub struct Row {
    /// The criterion group.
    pub workload: &'static str,
    /// The criterion parameter: problem size, sample count or step count.
    pub param: usize,
    /// Length of the gradient.
    pub inputs: usize,
}

/// The rows, in the order they run.
pub const ROWS: [(&str, usize); 50] = [
    ("rosenbrock", 2),
    ("rosenbrock", 10),
    ("rosenbrock", 100),
    ("rosenbrock", 1_000),
    ("rosenbrock", 10_000),
    ("dot_zip", 1_000),
    ("dot_loop", 1_000),
    ("mlp", 100),
    ("newton", 30),
    ("springs", 1_000),
    // The nested workloads (`benches/nested.rs`, issue 16). Gaussian
    // mixtures: `gmm_d<d>_k<K>` with N points as the parameter, N chosen so
    // that N·K·d(d+1)/2 stays near 10^6 or below (N = 10 at d = 64, K = 200:
    // 4·10^6).
    ("gmm_d2_k5", 1_000),
    ("gmm_d2_k50", 1_000),
    ("gmm_d2_k200", 1_000),
    ("gmm_d10_k5", 1_000),
    ("gmm_d10_k50", 100),
    ("gmm_d10_k200", 100),
    ("gmm_d20_k5", 1_000),
    ("gmm_d20_k50", 100),
    ("gmm_d20_k200", 10),
    ("gmm_d64_k5", 100),
    ("gmm_d64_k50", 10),
    ("gmm_d64_k200", 10),
    // LSTM of width b over a sequence of the parameter's length
    ("lstm_b8", 16),
    ("lstm_b32", 64),
    // heat stencil on n points, the parameter's number of steps
    ("heat_n100", 100),
    ("heat_n1000", 100),
    // forward substitution, n × n
    ("trisolve", 10),
    ("trisolve", 100),
    ("trisolve", 500),
    // dense product through tanh, n × n
    ("product", 10),
    ("product", 30),
    ("product", 100),
    // pair energy of n points
    ("pairs", 100),
    ("pairs", 1000),
    // k-means: N points, `kmeans_d<d>_k<K>`
    ("kmeans_d4_k8", 1000),
    ("kmeans_d16_k32", 1000),
    // softmax regression: N samples, `softmax_p<p>_c<C>`
    ("softmax_p8_c10", 1000),
    ("softmax_p64_c10", 100),
    // Chebyshev series fit: N points, `chebyshev_m<m>` coefficients
    ("chebyshev_m12", 1000),
    ("chebyshev_m40", 1000),
    // Lennard-Jones energy with a cutoff: N points
    ("cutoff", 125),
    ("cutoff", 512),
    // Gauss–Seidel, 20 sweeps: N points
    ("gauss_seidel", 100),
    ("gauss_seidel", 1000),
    // ADBench's LSTM: `adbench_lstm_l<layers>_b<width>` over a sequence of
    // the parameter's length
    ("adbench_lstm_l2_b14", 64),
    ("adbench_lstm_l4_b14", 256),
    ("adbench_lstm_l2_b128", 64),
    // forward substitution by columns, in place, n × n
    ("colsolve", 10),
    ("colsolve", 100),
    ("colsolve", 500),
];

/// Computes the value, and writes the gradient into the slice.
pub type Run<'a> = dyn FnMut(&mut [f64]) -> f64 + 'a;

/// One way of computing a row's value (and gradient).
pub struct Variant<'a> {
    pub name: &'static str,
    pub run: Box<Run<'a>>,
}

fn variant<'a>(name: &'static str, run: impl FnMut(&mut [f64]) -> f64 + 'a) -> Variant<'a> {
    Variant {
        name,
        run: Box::new(run),
    }
}

/// What to do with the checked variants of a row.
pub trait Runner {
    /// Whether to set up this row at all.
    fn wants(&self, _workload: &str, _param: usize) -> bool {
        true
    }

    fn run(&mut self, row: Row, variants: &mut [Variant<'_>]);
}

/// Sets up, checks and runs every row the runner wants.
pub fn run_all(runner: &mut dyn Runner) {
    for (workload, param) in ROWS {
        if !runner.wants(workload, param) {
            continue;
        }
        match workload {
            "rosenbrock" => rosenbrock(runner, param),
            "dot_zip" | "dot_loop" => dot(runner, workload, param),
            "mlp" => mlp(runner, param),
            "newton" => newton(runner, param),
            "springs" => springs(runner, param),
            "trisolve" => trisolve(runner, param),
            "product" => product(runner, param),
            "pairs" => pairs(runner, param),
            _ if workload.starts_with("kmeans_") => kmeans(runner, workload, param),
            _ if workload.starts_with("softmax_") => softmax(runner, workload, param),
            _ if workload.starts_with("chebyshev_") => chebyshev(runner, workload, param),
            "cutoff" => cutoff(runner, param),
            "gauss_seidel" => gauss_seidel(runner, param),
            "colsolve" => colsolve(runner, param),
            _ if workload.starts_with("adbench_lstm_") => adbench_lstm(runner, workload, param),
            _ if workload.starts_with("gmm_") => gmm(runner, workload, param),
            _ if workload.starts_with("lstm_b") => lstm(runner, workload, param),
            _ if workload.starts_with("heat_n") => heat(runner, workload, param),
            _ => unreachable!("no workload {workload}"),
        }
    }
}

// ----- the rows ----------------------------------------------------------------

/// The usual start of the extended Rosenbrock problem, varied a little so no
/// two terms are alike.
pub fn rosenbrock_start(n: usize) -> Vec<f64> {
    (0..n).map(|i| -1.2 + 0.01 * (i % 7) as f64).collect()
}

fn rosenbrock(runner: &mut dyn Runner, n: usize) {
    let x = rosenbrock_start(n);
    let tape = Tape::new();
    let mut vars = Vec::new();
    let reverse_tape = reverse::Tape::new();
    let mut reverse_vars = Vec::new();
    let mut duals = Vec::new();
    let mut variants = vec![
        variant("primal", |_| workloads::rosenbrock(black_box(&x))),
        variant("hand_written", |g| {
            g.fill(0.0);
            workloads::rosenbrock_by_hand(black_box(&x), g)
        }),
        variant("macro_adjoint", |g| {
            g.fill(0.0);
            workloads::rosenbrock_adjoint(black_box(&x), 1.0, g)
        }),
        variant("tape", |g| {
            on_tape::gradient(&tape, &mut vars, black_box(&x), g, on_tape::rosenbrock)
        }),
        variant("tape_fresh", |g| {
            on_tape::gradient_fresh(black_box(&x), g, on_tape::rosenbrock)
        }),
        variant("closure_graph", |g| {
            closure_graph::gradient(black_box(&x), g, closure_graph::rosenbrock)
        }),
        variant("reverse", |g| {
            let (tape, vars) = (&reverse_tape, &mut reverse_vars);
            with_reverse::gradient(tape, vars, black_box(&x), g, with_reverse::rosenbrock)
        }),
    ];
    if n <= FORWARD_MODE_MAX_INPUTS {
        variants.push(variant("num_dual", |g| {
            with_num_dual::gradient(&mut duals, black_box(&x), g, with_num_dual::rosenbrock)
        }));
    }
    check_and_run(runner, "rosenbrock", n, n, &mut variants);
}

/// `w · x` with respect to both, `w.iter().zip(x).map(..).sum()` in the
/// `dot_zip` row and an indexed loop in `dot_loop`: their `macro_adjoint`s
/// should do the same work (issue 15: within 5% of the instructions).
fn dot(runner: &mut dyn Runner, workload: &'static str, n: usize) {
    let w: Vec<f64> = (0..n).map(|i| 0.5 + 0.01 * (i % 11) as f64).collect();
    let x: Vec<f64> = (0..n).map(|i| -1.0 + 0.02 * (i % 13) as f64).collect();
    let zip = workload == "dot_zip";
    let mut variants = vec![
        variant("primal", |_| {
            if zip {
                workloads::dot_zip(black_box(&w), black_box(&x))
            } else {
                workloads::dot_loop(black_box(&w), black_box(&x))
            }
        }),
        variant("hand_written", |g| {
            g.fill(0.0);
            workloads::dot_by_hand(black_box(&w), black_box(&x), g)
        }),
        variant("macro_adjoint", |g| {
            g.fill(0.0);
            let (d_w, d_x) = g.split_at_mut(n);
            if zip {
                workloads::dot_zip_adjoint(black_box(&w), black_box(&x), 1.0, d_w, d_x)
            } else {
                workloads::dot_loop_adjoint(black_box(&w), black_box(&x), 1.0, d_w, d_x)
            }
        }),
    ];
    check_and_run(runner, workload, n, 2 * n, &mut variants);
}

fn mlp(runner: &mut dyn Runner, points: usize) {
    let mut rng = model::Rng(42);
    let (xs, ys) = model::moons(points, 0.1, &mut rng);
    let w = model::init(&mut rng);
    let tape = Tape::new();
    let mut vars = Vec::new();
    let reverse_tape = reverse::Tape::new();
    let mut reverse_vars = Vec::new();
    let mut duals = Vec::new();
    let (xs, ys) = (&xs[..], &ys[..]);
    let mut variants = vec![
        variant("primal", |_| model::mlp_loss(black_box(&w), xs, ys)),
        variant("hand_written", |g| {
            g.fill(0.0);
            workloads::mlp_by_hand(black_box(&w), xs, ys, g)
        }),
        variant("macro_adjoint", |g| {
            g.fill(0.0);
            model::mlp_loss_adjoint(black_box(&w), xs, ys, 1.0, g)
        }),
        variant("tape", |g| {
            on_tape::gradient(&tape, &mut vars, black_box(&w), g, |w| {
                on_tape::mlp_loss(w, xs, ys)
            })
        }),
        variant("tape_fresh", |g| {
            on_tape::gradient_fresh(black_box(&w), g, |w| on_tape::mlp_loss(w, xs, ys))
        }),
        variant("closure_graph", |g| {
            closure_graph::gradient(black_box(&w), g, |w| closure_graph::mlp_loss(w, xs, ys))
        }),
        variant("reverse", |g| {
            let (tape, vars) = (&reverse_tape, &mut reverse_vars);
            with_reverse::gradient(tape, vars, black_box(&w), g, |w| {
                with_reverse::mlp_loss(w, xs, ys)
            })
        }),
        // 337 forward passes: tens of milliseconds, well within reach.
        variant("num_dual", |g| {
            with_num_dual::gradient(&mut duals, black_box(&w), g, |w| {
                with_num_dual::mlp_loss(w, xs, ys)
            })
        }),
    ];
    check_and_run(runner, "mlp", points, model::PARAMS, &mut variants);
}

fn newton(runner: &mut dyn Runner, steps: usize) {
    assert_eq!(steps, 30, "the Newton workload is written for 30 steps");
    let a = [2.0];
    let tape = Tape::new();
    let mut vars = Vec::new();
    let reverse_tape = reverse::Tape::new();
    let mut reverse_vars = Vec::new();
    let mut duals = Vec::new();
    let mut variants = vec![
        variant("primal", |_| workloads::newton_sqrt(black_box(a[0]))),
        variant("hand_written", |g| {
            let (value, d) = workloads::newton_by_hand(black_box(a[0]));
            g[0] = d;
            value
        }),
        variant("macro_adjoint", |g| {
            g[0] = 0.0;
            workloads::newton_sqrt_adjoint(black_box(a[0]), 1.0, &mut g[0])
        }),
        variant("tape", |g| {
            on_tape::gradient(&tape, &mut vars, black_box(&a), g, on_tape::newton_sqrt)
        }),
        variant("tape_fresh", |g| {
            on_tape::gradient_fresh(black_box(&a), g, on_tape::newton_sqrt)
        }),
        variant("closure_graph", |g| {
            closure_graph::gradient(black_box(&a), g, closure_graph::newton_sqrt)
        }),
        variant("reverse", |g| {
            let (tape, vars) = (&reverse_tape, &mut reverse_vars);
            with_reverse::gradient(tape, vars, black_box(&a), g, with_reverse::newton_sqrt)
        }),
        variant("num_dual", |g| {
            with_num_dual::gradient(&mut duals, black_box(&a), g, with_num_dual::newton_sqrt)
        }),
    ];
    check_and_run(runner, "newton", steps, 1, &mut variants);
}

/// Positions of a chain whose springs are all a little stretched or
/// compressed.
pub fn springs_start(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| 0.9 * i as f64 + 0.05 * (i % 5) as f64)
        .collect()
}

fn springs(runner: &mut dyn Runner, n: usize) {
    let x = springs_start(n);
    let tape = Tape::new();
    let mut vars = Vec::new();
    let reverse_tape = reverse::Tape::new();
    let mut reverse_vars = Vec::new();
    let mut duals = Vec::new();
    let mut variants = vec![
        variant("primal", |_| workloads::springs(black_box(&x))),
        variant("hand_written", |g| {
            g.fill(0.0);
            workloads::springs_by_hand(black_box(&x), g)
        }),
        variant("macro_adjoint", |g| {
            g.fill(0.0);
            workloads::springs_adjoint(black_box(&x), 1.0, g)
        }),
        variant("tape", |g| {
            on_tape::gradient(&tape, &mut vars, black_box(&x), g, on_tape::springs)
        }),
        variant("tape_fresh", |g| {
            on_tape::gradient_fresh(black_box(&x), g, on_tape::springs)
        }),
        variant("closure_graph", |g| {
            closure_graph::gradient(black_box(&x), g, closure_graph::springs)
        }),
        variant("reverse", |g| {
            let (tape, vars) = (&reverse_tape, &mut reverse_vars);
            with_reverse::gradient(tape, vars, black_box(&x), g, with_reverse::springs)
        }),
    ];
    if n <= FORWARD_MODE_MAX_INPUTS {
        variants.push(variant("num_dual", |g| {
            with_num_dual::gradient(&mut duals, black_box(&x), g, with_num_dual::springs)
        }));
    }
    check_and_run(runner, "springs", n, n, &mut variants);
}

// ----- the nested workloads (benches/nested.rs) ----------------------------------

/// The number after `prefix` in a row name (`gmm_d10_k50`: `d` → 10).
fn size_in(workload: &str, prefix: char) -> usize {
    workload
        .split('_')
        .find_map(|part| part.strip_prefix(prefix)?.parse().ok())
        .unwrap_or_else(|| panic!("no {prefix}<number> in {workload}"))
}

fn gmm(runner: &mut dyn Runner, workload: &'static str, n: usize) {
    let (d, k) = (size_in(workload, 'd'), size_in(workload, 'k'));
    let g = nested::Gmm::new(n, k, d, 42);
    let (ka, km) = (k, k * d);
    let mut variants = vec![
        variant("primal", |_| {
            nested::gmm_objective(black_box(&g.alphas), &g.means, &g.icf, &g.x, n, k, d)
        }),
        variant("hand_written", |grad| {
            grad.fill(0.0);
            let (da, rest) = grad.split_at_mut(ka);
            let (dm, di) = rest.split_at_mut(km);
            nested::gmm_by_hand(
                black_box(&g.alphas),
                &g.means,
                &g.icf,
                &g.x,
                n,
                k,
                d,
                da,
                dm,
                di,
            )
        }),
        variant("macro_adjoint", |grad| {
            grad.fill(0.0);
            let (da, rest) = grad.split_at_mut(ka);
            let (dm, di) = rest.split_at_mut(km);
            nested::gmm_objective_adjoint(
                black_box(&g.alphas),
                &g.means,
                &g.icf,
                &g.x,
                n,
                k,
                d,
                1.0,
                da,
                dm,
                di,
            )
        }),
    ];
    check_and_run(runner, workload, n, g.inputs(), &mut variants);
}

fn lstm(runner: &mut dyn Runner, workload: &'static str, t: usize) {
    let b = size_in(workload, 'b');
    let (w, bias, seq) = nested::lstm_data(b, t, 42);
    let nw = w.len();
    let mut variants = vec![
        variant("primal", |_| {
            nested::lstm_objective(black_box(&w), &bias, &seq, b, t)
        }),
        variant("hand_written", |grad| {
            grad.fill(0.0);
            let (dw, db) = grad.split_at_mut(nw);
            nested::lstm_by_hand(black_box(&w), &bias, &seq, b, t, dw, db)
        }),
        variant("macro_adjoint", |grad| {
            grad.fill(0.0);
            let (dw, db) = grad.split_at_mut(nw);
            nested::lstm_objective_adjoint(black_box(&w), &bias, &seq, b, t, 1.0, dw, db)
        }),
    ];
    check_and_run(runner, workload, t, nw + bias.len(), &mut variants);
}

fn heat(runner: &mut dyn Runner, workload: &'static str, steps: usize) {
    let n = size_in(workload, 'n');
    let (u0, target) = nested::heat_data(n, 42);
    let mut variants = vec![
        variant("primal", |_| {
            nested::heat_objective(black_box(&u0), &target, steps)
        }),
        variant("hand_written", |grad| {
            grad.fill(0.0);
            nested::heat_by_hand(black_box(&u0), &target, steps, grad)
        }),
        variant("macro_adjoint", |grad| {
            grad.fill(0.0);
            nested::heat_objective_adjoint(black_box(&u0), &target, steps, 1.0, grad)
        }),
    ];
    check_and_run(runner, workload, steps, n, &mut variants);
}

fn trisolve(runner: &mut dyn Runner, n: usize) {
    let (l, b) = nested::trisolve_data(n, 42);
    let mut variants = vec![
        variant("primal", |_| nested::trisolve_objective(black_box(&l), &b)),
        variant("hand_written", |grad| {
            grad.fill(0.0);
            let (dl, db) = grad.split_at_mut(n * n);
            nested::trisolve_by_hand(black_box(&l), &b, dl, db)
        }),
        variant("macro_adjoint", |grad| {
            grad.fill(0.0);
            let (dl, db) = grad.split_at_mut(n * n);
            nested::trisolve_objective_adjoint(black_box(&l), &b, 1.0, dl, db)
        }),
    ];
    check_and_run(runner, "trisolve", n, n * n + n, &mut variants);
}

fn colsolve(runner: &mut dyn Runner, n: usize) {
    let (l, b) = nested::trisolve_data(n, 42);
    let mut variants = vec![
        variant("primal", |_| {
            nested::colsolve_objective(black_box(&l), &b, n)
        }),
        variant("hand_written", |grad| {
            grad.fill(0.0);
            let (dl, db) = grad.split_at_mut(n * n);
            nested::colsolve_by_hand(black_box(&l), &b, n, dl, db)
        }),
        variant("macro_adjoint", |grad| {
            grad.fill(0.0);
            let (dl, db) = grad.split_at_mut(n * n);
            nested::colsolve_objective_adjoint(black_box(&l), &b, n, 1.0, dl, db)
        }),
    ];
    check_and_run(runner, "colsolve", n, n * n + n, &mut variants);
}

fn adbench_lstm(runner: &mut dyn Runner, workload: &'static str, c: usize) {
    let (l, b) = (size_in(workload, 'l'), size_in(workload, 'b'));
    let [main, extra, state, sequence] = nested::adbench_lstm_data(l, c, b, 42);
    let nm = main.len();
    let mut variants = vec![
        variant("primal", |_| {
            nested::adbench_lstm_objective(l, c, b, black_box(&main), &extra, &state, &sequence)
        }),
        variant("hand_written", |grad| {
            grad.fill(0.0);
            let (dm, de) = grad.split_at_mut(nm);
            nested::adbench_lstm_by_hand(
                l,
                c,
                b,
                black_box(&main),
                &extra,
                &state,
                &sequence,
                dm,
                de,
            )
        }),
        variant("macro_adjoint", |grad| {
            grad.fill(0.0);
            let (dm, de) = grad.split_at_mut(nm);
            nested::adbench_lstm_objective_adjoint(
                l,
                c,
                b,
                black_box(&main),
                &extra,
                &state,
                &sequence,
                1.0,
                dm,
                de,
            )
        }),
    ];
    check_and_run(runner, workload, c, nm + extra.len(), &mut variants);
}

fn product(runner: &mut dyn Runner, n: usize) {
    let (a, b) = nested::product_data(n, 42);
    let mut variants = vec![
        variant("primal", |_| {
            nested::product_objective(black_box(&a), &b, n)
        }),
        variant("hand_written", |grad| {
            grad.fill(0.0);
            let (da, db) = grad.split_at_mut(n * n);
            nested::product_by_hand(black_box(&a), &b, n, da, db)
        }),
        variant("macro_adjoint", |grad| {
            grad.fill(0.0);
            let (da, db) = grad.split_at_mut(n * n);
            nested::product_objective_adjoint(black_box(&a), &b, n, 1.0, da, db)
        }),
    ];
    check_and_run(runner, "product", n, 2 * n * n, &mut variants);
}

fn kmeans(runner: &mut dyn Runner, workload: &'static str, n: usize) {
    let (d, k) = (size_in(workload, 'd'), size_in(workload, 'k'));
    let (mu, x) = nested::kmeans_data(n, k, d, 42);
    let mut variants = vec![
        variant("primal", |_| {
            nested::kmeans_objective(black_box(&mu), &x, k, d)
        }),
        variant("hand_written", |grad| {
            grad.fill(0.0);
            nested::kmeans_by_hand(black_box(&mu), &x, k, d, grad)
        }),
        variant("macro_adjoint", |grad| {
            grad.fill(0.0);
            nested::kmeans_objective_adjoint(black_box(&mu), &x, k, d, 1.0, grad)
        }),
    ];
    check_and_run(runner, workload, n, k * d, &mut variants);
}

fn softmax(runner: &mut dyn Runner, workload: &'static str, n: usize) {
    let (p, c) = (size_in(workload, 'p'), size_in(workload, 'c'));
    let (w, x, labels) = nested::softmax_data(n, p, c, 42);
    let mut variants = vec![
        variant("primal", |_| {
            nested::softmax_objective(black_box(&w), &x, &labels, p)
        }),
        variant("hand_written", |grad| {
            grad.fill(0.0);
            nested::softmax_by_hand(black_box(&w), &x, &labels, p, grad)
        }),
        variant("macro_adjoint", |grad| {
            grad.fill(0.0);
            nested::softmax_objective_adjoint(black_box(&w), &x, &labels, p, 1.0, grad)
        }),
    ];
    check_and_run(runner, workload, n, c * p, &mut variants);
}

fn chebyshev(runner: &mut dyn Runner, workload: &'static str, n: usize) {
    let m = size_in(workload, 'm');
    let (c, xs, ys) = nested::chebyshev_data(n, m, 42);
    let mut variants = vec![
        variant("primal", |_| {
            nested::chebyshev_objective(black_box(&c), &xs, &ys)
        }),
        variant("hand_written", |grad| {
            grad.fill(0.0);
            nested::chebyshev_by_hand(black_box(&c), &xs, &ys, grad)
        }),
        variant("macro_adjoint", |grad| {
            grad.fill(0.0);
            nested::chebyshev_objective_adjoint(black_box(&c), &xs, &ys, 1.0, grad)
        }),
    ];
    check_and_run(runner, workload, n, m, &mut variants);
}

fn cutoff(runner: &mut dyn Runner, n: usize) {
    let pos = nested::cutoff_data(n, 42);
    let mut variants = vec![
        variant("primal", |_| nested::cutoff_objective(black_box(&pos), 2.5)),
        variant("hand_written", |grad| {
            grad.fill(0.0);
            nested::cutoff_by_hand(black_box(&pos), 2.5, grad)
        }),
        variant("macro_adjoint", |grad| {
            grad.fill(0.0);
            nested::cutoff_objective_adjoint(black_box(&pos), 2.5, 1.0, grad)
        }),
    ];
    check_and_run(runner, "cutoff", n, 3 * n, &mut variants);
}

fn gauss_seidel(runner: &mut dyn Runner, n: usize) {
    let (f, target) = nested::gauss_seidel_data(n, 42);
    let mut variants = vec![
        variant("primal", |_| {
            nested::gauss_seidel_objective(black_box(&f), &target, 20)
        }),
        variant("hand_written", |grad| {
            grad.fill(0.0);
            nested::gauss_seidel_by_hand(black_box(&f), &target, 20, grad)
        }),
        variant("macro_adjoint", |grad| {
            grad.fill(0.0);
            nested::gauss_seidel_objective_adjoint(black_box(&f), &target, 20, 1.0, grad)
        }),
    ];
    check_and_run(runner, "gauss_seidel", n, n, &mut variants);
}

fn pairs(runner: &mut dyn Runner, n: usize) {
    let x = nested::pairs_data(n, 42);
    let mut variants = vec![
        variant("primal", |_| nested::pairs_objective(black_box(&x))),
        variant("hand_written", |grad| {
            grad.fill(0.0);
            nested::pairs_by_hand(black_box(&x), grad)
        }),
        variant("macro_adjoint", |grad| {
            grad.fill(0.0);
            nested::pairs_objective_adjoint(black_box(&x), 1.0, grad)
        }),
    ];
    check_and_run(runner, "pairs", n, n, &mut variants);
}

// ----- the check ---------------------------------------------------------------

/// Runs every variant once and asserts it agrees with `hand_written`: the
/// same value to 1e-12 and the same gradient to 1e-9, relative (different
/// summation orders differ in the last bits, a wrong derivative by far
/// more). Prints the largest differences, then hands the row to the runner.
fn check_and_run(
    runner: &mut dyn Runner,
    workload: &'static str,
    param: usize,
    inputs: usize,
    variants: &mut [Variant<'_>],
) {
    let row = Row {
        workload,
        param,
        inputs,
    };
    let hand = variants
        .iter_mut()
        .find(|v| v.name == "hand_written")
        .expect("every row has a hand-written gradient");
    let mut reference = vec![0.0; inputs];
    let value = (hand.run)(&mut reference);
    let mut report = Vec::new();
    for v in variants.iter_mut() {
        let mut grad = vec![f64::NAN; inputs];
        let got = (v.run)(&mut grad);
        let value_error = relative(got, value);
        assert!(
            value_error <= 1e-12,
            "{workload}/{}/{param}: value {got}, hand-written {value}",
            v.name
        );
        if v.name == "primal" || v.name == "hand_written" {
            continue;
        }
        let mut grad_error: f64 = 0.0;
        for (i, (&a, &b)) in grad.iter().zip(&reference).enumerate() {
            let error = relative(a, b);
            assert!(
                error <= 1e-9,
                "{workload}/{}/{param}: d/dx{i} is {a}, hand-written {b}",
                v.name
            );
            grad_error = grad_error.max(error);
        }
        report.push(format!("{} {value_error:.0e} / {grad_error:.0e}", v.name));
    }
    eprintln!(
        "check {workload}/{param}: agrees with hand_written; largest relative difference (value / gradient): {}",
        report.join(", ")
    );
    runner.run(row, variants);
}

/// `|a - b|`, relative to `|b|` where that is above 1; NaN counts as
/// infinitely far.
fn relative(a: f64, b: f64) -> f64 {
    let error = (a - b).abs() / b.abs().max(1.0);
    if error.is_nan() {
        f64::INFINITY
    } else {
        error
    }
}
