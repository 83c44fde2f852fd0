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
//! Usage: `hvp_instructions <workload> <n> <adjoint|hvp|hessian>`; each run
//! calls the variant `REPEATS` times inside `measured`.

use autograd::differentiable;
use std::hint::black_box;

/// `f_hvp` / `f_hessian` of a function of one slice.
type Hvp = fn(&[f64], &[f64]) -> (f64, Vec<f64>, Vec<f64>);
type Hessian = fn(&[f64]) -> (f64, Vec<f64>, Vec<f64>);

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
    let slice =
        |f: fn(&[f64], f64, &mut [f64]) -> f64, hvp: Hvp, hessian: Hessian, d: &mut Vec<f64>| {
            let total = match variant.as_str() {
                "adjoint" => measured(&mut || f(black_box(&x), 1.0, &mut *d)),
                "hvp" => measured(&mut || hvp(black_box(&x), black_box(&v)).2[0]),
                "hessian" => measured(&mut || hessian(black_box(&x)).2[0]),
                other => panic!("unknown variant {other}"),
            };
            println!("{total}");
        };
    match workload.as_str() {
        "rosenbrock" => slice(
            extended_rosenbrock_adjoint,
            extended_rosenbrock_hvp,
            extended_rosenbrock_hessian,
            &mut d,
        ),
        "springs" => slice(springs_adjoint, springs_hvp, springs_hessian, &mut d),
        "newton" => {
            let mut da = 0.0;
            let total = match variant.as_str() {
                "adjoint" => measured(&mut || newton_sqrt_adjoint(black_box(2.0), 1.0, &mut da)),
                "hvp" => measured(&mut || newton_sqrt_hvp(black_box(2.0), black_box(1.0)).2),
                "hessian" => measured(&mut || newton_sqrt_hessian(black_box(2.0)).2[0]),
                other => panic!("unknown variant {other}"),
            };
            println!("{total}");
        }
        other => panic!("unknown workload {other}"),
    }
}
