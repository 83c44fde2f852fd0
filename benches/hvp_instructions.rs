//! Instructions per call of `f_hvp` against `f_adjoint` (issue 17: at most
//! 4×), and of `f_hessian` against `n` Hessian-vector products, counted by
//! callgrind on the measured functions only. Self-contained (its own
//! workloads, the suite's definitions, each marked `hessian`).
//!
//! ```sh
//! benches/hvp_instructions.sh          # the table (valgrind required)
//! # one count by hand:
//! cargo bench --bench hvp_instructions --no-run
//! valgrind --tool=callgrind --toggle-collect='hvp_instructions::measured' \
//!     target/release/deps/hvp_instructions-<hash> rosenbrock 100 hvp
//! ```
//!
//! Usage: `hvp_instructions <workload> <n> <adjoint|hvp|kernel|hessian|wall>`
//! (`wall`: the fastest wall time of `f_hvp` and of `f_hessian` for a slice
//! workload, and their ratio, instead of a count);
//! each run calls the variant `REPEATS` times inside `measured`. `kernel`
//! is the hidden `f_hvp_adjoint` that `f_hvp` wraps, writing into the
//! caller's buffers like `f_adjoint` (no returned `Vec`s to allocate).
//!
//! Also the Jacobians of vector-valued functions (`benches/jacobian_instructions.sh`):
//! `hvp_instructions <peak|exp_model> <m> <jacobian|rows|adjoint>`, residuals
//! at `m` data points in 4 (`peak`) or 2 (`exp_model`, through a call)
//! parameters: `f_jacobian` (by columns in forward mode: `n ≤ m`), the
//! Jacobian by rows from `m` vector-Jacobian products `f_adjoint(e_i)`
//! (reverse mode), and one `f_adjoint`.

use autograd::differentiable;
use std::hint::black_box;

/// `f_hvp` / `f_hessian` / `f_hvp_adjoint` of a function of one slice.
type Hvp = fn(&[f64], &[f64]) -> (f64, Vec<f64>, Vec<f64>);
type Hessian = fn(&[f64]) -> (f64, Vec<f64>, Vec<f64>);
type Kernel = fn(&[f64], &[f64], &mut [f64], &mut [f64]) -> f64;

/// Calls measured per run; the script divides by this.
const REPEATS: usize = 10;

#[differentiable(hessian)]
pub fn extended_rosenbrock(x: &[f64]) -> f64 {
    let mut sum = 0.0;
    for i in 0..x.len() - 1 {
        let t = x[i + 1] - x[i] * x[i];
        let u = 1.0 - x[i];
        sum += 100.0 * t * t + u * u;
    }
    sum
}

/// Newton's iteration for `√a` (a loop whose carried value the reverse
/// sweep saves and replays).
#[differentiable(hessian)]
pub fn newton_sqrt(a: f64) -> f64 {
    let mut x = a;
    for _ in 0..30 {
        x = 0.5 * (x + a / x);
    }
    x
}

#[differentiable(hessian)]
pub fn smooth_abs(x: f64) -> f64 {
    (x * x + 1e-2).sqrt()
}

#[differentiable(hessian)]
pub fn spring(a: f64, b: f64) -> f64 {
    let stretch = smooth_abs(b - a) - 1.0;
    stretch * stretch
}

/// A chain of springs: one call per neighbour pair.
#[differentiable(hessian)]
pub fn springs(x: &[f64]) -> f64 {
    let mut energy = 0.0;
    for i in 0..x.len() - 1 {
        energy += spring(x[i], x[i + 1]);
    }
    energy
}

/// A Gaussian peak at `t.len()` data points, in 4 parameters.
#[differentiable(wrt(p, c))]
pub fn peak_residuals(p: [f64; 3], c: f64, t: &[f64], y: &[f64]) -> Vec<f64> {
    let [a, mu, sigma] = p;
    let mut r = vec![0.0; t.len()];
    for i in 0..t.len() {
        let z = (t[i] - mu) / sigma;
        r[i] = a * (-0.5 * z * z).exp() + c - y[i];
    }
    r
}

#[differentiable]
pub fn exp_model(p: &[f64], t: f64) -> f64 {
    p[0] * (p[1] * t).exp()
}

/// Residuals of `exp_model` (a call per data point with the parameter
/// slice), in 2 parameters.
#[differentiable(wrt(p))]
pub fn exp_residuals(p: &[f64], t: &[f64], y: &[f64]) -> Vec<f64> {
    let mut r = vec![0.0; t.len()];
    for i in 0..t.len() {
        r[i] = exp_model(p, t[i]) - y[i];
    }
    r
}

/// The Jacobian workloads: `m` residuals.
fn jacobians(workload: &str, m: usize, variant: &str) -> f64 {
    let t: Vec<f64> = (0..m).map(|i| -3.0 + 6.0 * i as f64 / m as f64).collect();
    let y: Vec<f64> = t.iter().map(|t| (-t * t / 2.0).exp()).collect();
    let (t, y) = (&t[..], &y[..]);
    let mut unit = vec![0.0; m];
    match (workload, variant) {
        ("peak", "jacobian") => {
            measured(&mut || peak_residuals_jacobian(black_box([1.0, 0.2, 0.9]), 0.1, t, y).1[0])
        }
        ("peak", "rows") => measured(&mut || {
            let mut jacobian = vec![0.0; 4 * m];
            for i in 0..m {
                unit[i] = 1.0;
                let (mut dp, mut dc) = ([0.0; 3], 0.0);
                peak_residuals_adjoint(
                    black_box([1.0, 0.2, 0.9]),
                    0.1,
                    t,
                    y,
                    &unit,
                    &mut dp,
                    &mut dc,
                );
                jacobian[4 * i..4 * i + 3].copy_from_slice(&dp);
                jacobian[4 * i + 3] = dc;
                unit[i] = 0.0;
            }
            jacobian[0]
        }),
        ("peak", "adjoint") => measured(&mut || {
            let (mut dp, mut dc) = ([0.0; 3], 0.0);
            peak_residuals_adjoint(black_box([1.0, 0.2, 0.9]), 0.1, t, y, y, &mut dp, &mut dc)[0]
        }),
        ("exp_model", "jacobian") => {
            measured(&mut || exp_residuals_jacobian(black_box(&[1.0, -0.3]), t, y).1[0])
        }
        ("exp_model", "rows") => measured(&mut || {
            let mut jacobian = vec![0.0; 2 * m];
            for i in 0..m {
                unit[i] = 1.0;
                exp_residuals_adjoint(
                    black_box(&[1.0, -0.3]),
                    t,
                    y,
                    &unit,
                    &mut jacobian[2 * i..2 * i + 2],
                );
                unit[i] = 0.0;
            }
            jacobian[0]
        }),
        ("exp_model", "adjoint") => measured(&mut || {
            let mut dp = [0.0; 2];
            exp_residuals_adjoint(black_box(&[1.0, -0.3]), t, y, y, &mut dp)[0]
        }),
        other => panic!("unknown workload or variant {other:?}"),
    }
}

/// The fastest of `runs` timings of `REPEATS` calls of `run`, per call, in
/// seconds (the `wall` variant).
fn fastest(runs: usize, run: &mut dyn FnMut() -> f64) -> f64 {
    (0..runs)
        .map(|_| {
            let start = std::time::Instant::now();
            measured(run);
            start.elapsed().as_secs_f64() / REPEATS as f64
        })
        .fold(f64::INFINITY, f64::min)
}

/// The measured region (`--toggle-collect=hvp_instructions::measured`).
#[inline(never)]
fn measured(run: &mut dyn FnMut() -> f64) -> f64 {
    let mut sum = 0.0;
    for _ in 0..REPEATS {
        sum += black_box(run());
    }
    sum
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [workload, n, variant] = &args[..] else {
        // `cargo bench` runs every bench target: nothing to do without arguments.
        return;
    };
    let n: usize = n.parse().expect("n is a number");
    let x: Vec<f64> = (0..n).map(|i| 0.5 + 0.01 * (i % 13) as f64).collect();
    let v: Vec<f64> = (0..n).map(|i| 1.0 - 0.02 * (i % 7) as f64).collect();
    let mut d = vec![0.0; n];
    let mut hv = vec![0.0; n];
    let slice = |f: fn(&[f64], f64, &mut [f64]) -> f64,
                 hvp: Hvp,
                 kernel: Kernel,
                 hessian: Hessian,
                 d: &mut Vec<f64>,
                 hv: &mut Vec<f64>| {
        let total = match variant.as_str() {
            "adjoint" => measured(&mut || f(black_box(&x), 1.0, &mut *d)),
            "hvp" => measured(&mut || hvp(black_box(&x), black_box(&v)).2[0]),
            "kernel" => measured(&mut || kernel(black_box(&x), black_box(&v), &mut *d, &mut *hv)),
            "hessian" => measured(&mut || hessian(black_box(&x)).2[0]),
            "wall" => {
                // wall time, not instructions: callgrind counts the zeroing
                // of the n × n result (`rep stosb`) once per byte
                let hvp_time = fastest(200, &mut || hvp(black_box(&x), black_box(&v)).2[0]);
                let hessian_time = fastest(20, &mut || hessian(black_box(&x)).2[0]);
                println!(
                    "hvp {:.3} µs, hessian {:.1} µs, hessian / (n · hvp) {:.2}",
                    hvp_time * 1e6,
                    hessian_time * 1e6,
                    hessian_time / (n as f64 * hvp_time)
                );
                return;
            }
            other => panic!("unknown variant {other}"),
        };
        println!("{total}");
    };
    let unit = autograd::dual::Dual::constant(1.0);
    match workload.as_str() {
        "rosenbrock" => slice(
            extended_rosenbrock_adjoint,
            extended_rosenbrock_hvp,
            |x, v, d, hv| {
                extended_rosenbrock_hvp_adjoint((x, v, d, hv), autograd::dual::Dual::constant(1.0))
                    .v
            },
            extended_rosenbrock_hessian,
            &mut d,
            &mut hv,
        ),
        "springs" => slice(
            springs_adjoint,
            springs_hvp,
            |x, v, d, hv| springs_hvp_adjoint((x, v, d, hv), autograd::dual::Dual::constant(1.0)).v,
            springs_hessian,
            &mut d,
            &mut hv,
        ),
        "newton" => {
            let mut da = 0.0;
            let total = match variant.as_str() {
                "adjoint" => measured(&mut || newton_sqrt_adjoint(black_box(2.0), 1.0, &mut da)),
                "hvp" => measured(&mut || newton_sqrt_hvp(black_box(2.0), black_box(1.0)).2),
                "kernel" => measured(&mut || {
                    let mut slot = autograd::dual::Dual::constant(0.0);
                    let x = autograd::dual::Dual::new(black_box(2.0), black_box(1.0));
                    newton_sqrt_hvp_adjoint((x, &mut slot), unit);
                    slot.t
                }),
                "hessian" => measured(&mut || newton_sqrt_hessian(black_box(2.0)).2[0]),
                other => panic!("unknown variant {other}"),
            };
            println!("{total}");
        }
        "peak" | "exp_model" => println!("{}", jacobians(workload, n, variant)),
        other => panic!("unknown workload {other}"),
    }
}
