//! The generated adjoints of straight-line code and of loops that only read
//! their inputs and accumulate allocate nothing on the heap. Checked with a
//! counting global allocator (counting only this thread's allocations, so the
//! test harness's own threads do not disturb the count).

use autograd::differentiable;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        System.alloc(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Heap allocations made by `f` on this thread.
fn allocations(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

#[differentiable]
fn extended_rosenbrock(x: &[f64]) -> f64 {
    let mut sum = 0.0;
    for i in 0..x.len() - 1 {
        let t = x[i + 1] - x[i] * x[i];
        let u = 1.0 - x[i];
        sum += 100.0 * t * t + u * u;
    }
    sum
}

#[differentiable]
fn straight_line(x: f64, y: f64, w: [f64; 3]) -> f64 {
    let a = (x * y).sin() + w[0] * x.exp();
    let b = a.max(w[1]) / (1.0 + y * y).sqrt();
    b.powi(3) - w[2].tanh() * a
}

#[differentiable(wrt(w))]
fn linear_model_loss(w: &[f64], xs: &[f64], ys: &[f64]) -> f64 {
    let mut loss = 0.0;
    for i in 0..ys.len() {
        let mut prediction = w[0];
        for j in 0..2 {
            prediction += w[j + 1] * xs[2 * i + j];
        }
        let error = prediction - ys[i];
        loss += error * error;
    }
    loss / ys.len() as f64
}

#[test]
fn adjoints_of_reductions_allocate_nothing() {
    let x: Vec<f64> = (0..1000).map(|i| (i as f64 * 0.01).sin()).collect();
    let mut d_x = vec![0.0; x.len()];
    let n = allocations(|| {
        extended_rosenbrock_adjoint(&x, 1.0, &mut d_x);
    });
    assert_eq!(n, 0, "extended Rosenbrock's adjoint allocated {n} times");
    assert!(d_x.iter().any(|&d| d != 0.0));

    let (mut dx, mut dy, mut dw) = (0.0, 0.0, [0.0; 3]);
    let n = allocations(|| {
        straight_line_adjoint(0.3, -1.2, [0.5, 0.1, 2.0], 1.0, &mut dx, &mut dy, &mut dw);
    });
    assert_eq!(n, 0, "a straight-line adjoint allocated {n} times");

    let xs = [0.5, 1.0, -0.3, 2.0, 1.5, -1.0];
    let ys = [1.0, 0.5, -0.2];
    let mut d_w = [0.0; 3];
    let n = allocations(|| {
        linear_model_loss_adjoint(&[0.1, 0.2, 0.3], &xs, &ys, 1.0, &mut d_w);
    });
    assert_eq!(n, 0, "a nested accumulation loop allocated {n} times");
}

#[differentiable]
fn softplus(x: f64) -> f64 {
    (1.0 + x.exp()).ln()
}

// A nest that only sums, with a helper call inside: its reverse needs the
// call's partials, which recording would keep on a record (an allocation),
// so in a function that allocates nothing it is replayed.
#[differentiable(wrt(w))]
#[allow(clippy::needless_range_loop)]
fn calls_in_a_summing_nest(w: &[f64], xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..xs.len() {
        for j in 0..w.len() {
            s += softplus(w[j] * xs[i]);
        }
    }
    s.sin()
}

#[test]
fn a_nest_calling_a_helper_allocates_nothing() {
    let (w, xs) = ([0.3, -0.7, 1.1], [0.5, -1.5]);
    let mut d_w = [0.0; 3];
    let n = allocations(|| {
        calls_in_a_summing_nest_adjoint(&w, &xs, 1.0, &mut d_w);
    });
    assert_eq!(n, 0, "a nest calling a helper allocated {n} times");
    let h = 1e-6;
    for k in 0..3 {
        let (mut up, mut down) = (w, w);
        up[k] += h;
        down[k] -= h;
        let fd =
            (calls_in_a_summing_nest(&up, &xs) - calls_in_a_summing_nest(&down, &xs)) / (2.0 * h);
        assert!(
            (d_w[k] - fd).abs() < 1e-7,
            "d_w[{k}] = {}, not {fd}",
            d_w[k]
        );
    }
}

#[differentiable]
fn newton_sqrt(a: f64) -> f64 {
    let mut x = a;
    for _ in 0..30 {
        x = 0.5 * (x + a / x);
    }
    x
}

#[differentiable(wrt(x))]
fn damped_chain(x: f64, rates: &[f64]) -> f64 {
    let mut buffer = [0.0; 8];
    let mut y = x;
    let mut i = 0;
    while i < rates.len() {
        y = y * rates[i] + (y * 0.5).sin();
        buffer[i % 8] = y;
        i += 1;
    }
    buffer[0] + buffer[7] * y
}

/// One active scalar input: forward mode, which records nothing, even
/// where the reverse sweep would push a loop-carried value on a tape at
/// every iteration (Newton) or save what each store overwrites.
#[test]
fn forward_mode_loops_allocate_nothing() {
    let mut d_a = 0.0;
    let n = allocations(|| {
        newton_sqrt_adjoint(2.0, 1.0, &mut d_a);
    });
    assert_eq!(n, 0, "Newton's adjoint allocated {n} times");
    assert!((d_a - 0.5 / 2.0_f64.sqrt()).abs() < 1e-15);
    let n = allocations(|| {
        let _ = newton_sqrt_grad(3.0);
    });
    assert_eq!(n, 0, "Newton's gradient allocated {n} times");

    let rates = [0.9, 1.1, 0.8, 1.2, 0.7, 1.3, 0.95, 1.05, 0.5];
    let mut d_x = 0.0;
    let n = allocations(|| {
        damped_chain_adjoint(0.3, &rates, 1.0, &mut d_x);
    });
    assert_eq!(
        n, 0,
        "a while loop storing into a local array allocated {n} times"
    );
    assert!(d_x != 0.0);
}

#[test]
fn the_counter_sees_allocations() {
    assert!(allocations(|| drop(vec![1.0_f64; 8])) >= 1);
}

// ----- second order: only the returned buffers -------------------------------------

#[differentiable(hessian)]
fn rosenbrock_hessian_case(x: &[f64]) -> f64 {
    let mut sum = 0.0;
    for i in 0..x.len() - 1 {
        let t = x[i + 1] - x[i] * x[i];
        let u = 1.0 - x[i];
        sum += 100.0 * t * t + u * u;
    }
    sum
}

#[differentiable(hessian)]
fn straight_line_second(x: f64, y: f64, w: [f64; 3]) -> f64 {
    let a = (x * y).sin() + w[0] * x.exp();
    let b = a.max(w[1]) / (1.0 + y * y).sqrt();
    b.powi(3) - w[2].tanh() * a
}

/// `f_hvp` allocates its two returned `Vec`s (gradient and H·v of a slice)
/// and `f_hessian` its gradient and its Hessian (whose spare capacity holds
/// the unit directions): nothing else, whatever `n`.
#[test]
fn hvp_and_hessian_allocate_only_what_they_return() {
    for n in [2, 10, 100] {
        let x: Vec<f64> = (0..n).map(|i| 0.5 + 0.1 * i as f64).collect();
        let v: Vec<f64> = (0..n).map(|i| 1.0 - 0.05 * i as f64).collect();
        assert_eq!(
            allocations(|| {
                std::hint::black_box(rosenbrock_hessian_case_hvp(&x, &v));
            }),
            2,
            "f_hvp, n = {n}"
        );
        assert_eq!(
            allocations(|| {
                std::hint::black_box(rosenbrock_hessian_case_hessian(&x));
            }),
            2,
            "f_hessian, n = {n}"
        );
    }
    // Scalars and arrays: the Hessian only.
    assert_eq!(
        allocations(|| {
            std::hint::black_box(straight_line_second_hvp(
                0.3,
                0.7,
                [1.0, 0.2, -0.5],
                1.0,
                0.5,
                [0.1, 0.2, 0.3],
            ));
        }),
        0
    );
    assert_eq!(
        allocations(|| {
            std::hint::black_box(straight_line_second_hessian(0.3, 0.7, [1.0, 0.2, -0.5]));
        }),
        1
    );
}

// ----- calls whose constant arrays compete for one slot ----------------------------

#[differentiable(wrt(m, x))]
fn slots_mx(value: [f64; 2], m: &[f64], x: f64) -> f64 {
    value[0] * m[0] * x + m[1] * x * x * value[1]
}

#[differentiable(wrt(value, x))]
fn slots_vx(value: [f64; 2], m: &[f64], x: f64) -> f64 {
    value[0] * m[0] * x + m[1] * x * x * value[1]
}

/// Fixed-size constants only (literals, a local array and its subslices,
/// parameter arrays outside `wrt`): the call picks the callee's slots at
/// run time and makes each scratch buffer on the stack.
#[differentiable(wrt(x, y))]
fn competing_fixed_size_constants(x: f64, y: f64, pair: [f64; 2], triple: &[f64; 3]) -> f64 {
    let buf = [0.5, 1.5, 2.5];
    slots_mx([0.5, 0.75], &buf[1..], x * y)
        + slots_vx([0.5, 0.75], &buf, y)
        + slots_mx(pair, triple, x)
        + slots_vx(pair, &buf[..2], x)
}

#[test]
fn competing_fixed_size_constants_allocate_nothing() {
    let (pair, triple) = ([1.5, -0.5], [0.25, 2.0, -1.0]);
    let (mut d_x, mut d_y) = (0.0, 0.0);
    let n = allocations(|| {
        competing_fixed_size_constants_adjoint(0.3, -0.7, pair, &triple, 1.0, &mut d_x, &mut d_y);
    });
    assert_eq!(
        n, 0,
        "a call with competing constant arrays allocated {n} times"
    );
    assert!(d_x != 0.0 && d_y != 0.0);
}

/// Vector-valued, with fixed shapes: 2 active floats, 4 outputs (by
/// columns, decided at compile time) ...
#[differentiable]
fn tall_field(x: f64, y: f64) -> [f64; 4] {
    [x * y, x.sin(), y.exp() * x, x - y]
}

/// ... and 4 active floats, 2 outputs (by rows).
#[differentiable]
fn wide_field(w: [f64; 3], s: f64) -> [f64; 2] {
    [w[0] * w[1] + s, (w[2] * s).cos()]
}

/// `f_jacobian` of a function that allocates nothing itself allocates its
/// Jacobian only (the directions or unit rows live in its spare capacity),
/// by rows and by columns; `f_adjoint` nothing.
#[test]
fn jacobians_allocate_only_what_they_return() {
    assert_eq!(
        allocations(|| {
            std::hint::black_box(tall_field_jacobian(0.3, 0.7));
        }),
        1
    );
    assert_eq!(
        allocations(|| {
            std::hint::black_box(wide_field_jacobian([0.3, 0.7, -1.0], 2.0));
        }),
        1
    );
    assert_eq!(
        allocations(|| {
            let (mut dx, mut dy) = (0.0, 0.0);
            std::hint::black_box(tall_field_adjoint(0.3, 0.7, &[1.0; 4], &mut dx, &mut dy));
        }),
        0
    );
}

// ----- records reused from call to call ----------------------------------------

/// A recorded loop nest (its values, its decisions, an undo tape kept so
/// that the reverse re-reads `y`) and a replayed loop with a cell tape.
#[allow(clippy::needless_range_loop)]
#[differentiable]
fn records(x: &[f64]) -> f64 {
    let n = x.len();
    let mut y = vec![0.0; n];
    let mut best = 0.0;
    for i in 0..n {
        let mut s = x[i].sin();
        for j in 0..i {
            s -= 0.1 * x[j] * y[j];
            if s > best {
                best = s * s;
            }
        }
        y[i] = s.tanh();
    }
    let mut p = 1.0;
    for i in 0..n {
        p *= 1.0 + 0.1 * y[i];
    }
    p + best
}

/// The records of a generated adjoint (`__private::Record`) take this
/// thread's spare storage and leave it to the next call: after the first
/// call, an adjoint with records allocates only what its own body does
/// (here the local `y` and its adjoint).
#[test]
fn records_are_reused_from_call_to_call() {
    let x: Vec<f64> = (0..40).map(|i| (i as f64 * 0.3).cos()).collect();
    let mut d_x = vec![0.0; x.len()];
    let first = allocations(|| {
        records_adjoint(&x, 1.0, &mut d_x);
    });
    let again = allocations(|| {
        records_adjoint(&x, 1.0, &mut d_x);
    });
    assert!(first > again, "first call {first}, second {again}");
    assert_eq!(again, 2, "the second call allocated {again} times");
}

/// A running minimum over centres, each a sum over dimensions, per point:
/// the loop over centres is recorded inside the fused loop over points
/// (its decisions on a record, taken back within the point's iteration).
#[differentiable(wrt(mu))]
fn nearest_centre(mu: &[f64], x: &[f64], k: usize) -> f64 {
    let d = mu.len() / k;
    let mut loss = 0.0;
    for i in 0..x.len() / d {
        let mut best = 1.0e300;
        for c in 0..k {
            let mut s = 0.0;
            for t in 0..d {
                let e = x[i * d + t] - mu[c * d + t];
                s += e * e;
            }
            if s < best {
                best = s;
            }
        }
        loss += best;
    }
    loss
}

/// Its records are reused like the others: from the second call on,
/// nothing is allocated.
#[test]
fn records_inside_a_fused_loop_are_reused_from_call_to_call() {
    let mu: Vec<f64> = (0..12).map(|i| (i as f64 * 0.7).sin()).collect();
    let x: Vec<f64> = (0..60).map(|i| (i as f64 * 0.3).cos()).collect();
    let mut d_mu = vec![0.0; mu.len()];
    nearest_centre_adjoint(&mu, &x, 4, 1.0, &mut d_mu);
    let again = allocations(|| {
        nearest_centre_adjoint(&mu, &x, 4, 1.0, &mut d_mu);
    });
    assert_eq!(again, 0, "the second call allocated {again} times");
}

/// A recorded nest with a tape of its own (`l` where the row loops start,
/// an integer of the user's type: `__private::OwnTape`), besides its `Vec`
/// local.
#[allow(clippy::needless_range_loop)]
#[differentiable(wrt(q))]
fn triangular(q: &[f64], x: &[f64], d: usize) -> f64 {
    let mut y = vec![0.0; d];
    let mut out = 0.0;
    for i in 0..x.len() / d {
        for j in 0..d {
            y[j] = q[j].exp() * x[i * d + j];
        }
        let mut l = d;
        for col in 0..d {
            for row in col + 1..d {
                y[row] += q[l] * x[i * d + col];
                l += 1;
            }
        }
        for j in 0..d {
            out += y[j] * y[j];
        }
    }
    out
}

/// Tapes of the user's types are reused too: from the second call on, the
/// adjoint allocates only its `Vec` local, the table of `q[j].exp()` (which
/// does not change with `i`: `lower/tabulate.rs`; a `Vec`, the function
/// allocating anyway) and their adjoints.
#[test]
fn own_tapes_are_reused_from_call_to_call() {
    let d = 4;
    let q: Vec<f64> = (0..d * (d + 1) / 2).map(|i| 0.1 * i as f64).collect();
    let x: Vec<f64> = (0..50 * d).map(|i| (i as f64 * 0.3).sin()).collect();
    let mut d_q = vec![0.0; q.len()];
    triangular_adjoint(&q, &x, d, 1.0, &mut d_q);
    let again = allocations(|| {
        triangular_adjoint(&q, &x, d, 1.0, &mut d_q);
    });
    assert_eq!(again, 4, "the second call allocated {again} times");
}

/// The same nest without the `Vec` local: its table of `q[j].exp()` and
/// the table's adjoint are spare buffers of the thread, so from the second
/// call on it allocates nothing, as before it had tables.
#[allow(clippy::needless_range_loop)]
#[differentiable(wrt(q))]
fn tabulated(q: &[f64], x: &[f64], d: usize) -> f64 {
    let mut out = 0.0;
    for i in 0..x.len() / d {
        for j in 0..d {
            let y = q[j].exp() * x[i * d + j];
            out += y * y;
        }
    }
    out
}

#[test]
fn tables_of_a_function_without_a_vec_allocate_nothing() {
    let d = 4;
    let q: Vec<f64> = (0..d).map(|i| 0.1 * i as f64).collect();
    let x: Vec<f64> = (0..50 * d).map(|i| (i as f64 * 0.3).sin()).collect();
    let mut d_q = vec![0.0; q.len()];
    tabulated_adjoint(&q, &x, d, 1.0, &mut d_q);
    let again = allocations(|| {
        tabulated_adjoint(&q, &x, d, 1.0, &mut d_q);
    });
    assert_eq!(again, 0, "the second call allocated {again} times");
}

/// A product nest whose replay would save nothing (its sums only
/// accumulate, `c` is written before it is read) but would run the inner
/// sums again: with a `Vec` local it is recorded (`record.rs`), in a
/// function that allocates nothing it keeps its replay, and allocates
/// nothing.
#[allow(clippy::needless_range_loop)]
#[differentiable]
fn product_on_the_stack(a: &[f64; 4], b: &[f64; 4]) -> f64 {
    let mut c = [0.0; 4];
    for i in 0..2 {
        for j in 0..2 {
            let mut s = 0.0;
            for k in 0..2 {
                s += a[i * 2 + k] * b[k * 2 + j];
            }
            c[i * 2 + j] = s.tanh();
        }
    }
    c[0] * c[3] - c[1] * c[2]
}

#[test]
fn a_product_nest_on_the_stack_allocates_nothing() {
    let (a, b) = ([0.5, -0.2, 0.3, 0.9], [1.1, 0.4, -0.7, 0.2]);
    let (mut d_a, mut d_b) = ([0.0; 4], [0.0; 4]);
    for _ in 0..2 {
        let n = allocations(|| {
            product_on_the_stack_adjoint(&a, &b, 1.0, &mut d_a, &mut d_b);
        });
        assert_eq!(n, 0, "the product nest's adjoint allocated {n} times");
    }
    assert!(d_a.iter().chain(&d_b).all(|d| d.is_finite() && *d != 0.0));
}

/// An Elman step whose new state is a `vec!` declared every step, and a
/// Runge–Kutta-like step whose stage state is a `[f64; 2]` declared every
/// step: the recorded nest refills one buffer a call for the new state
/// and its adjoint (`record::Pool`) rather than allocating two a step, and
/// records the fixed-size array's shape on a tape of zero-sized values,
/// which never allocates.
#[allow(clippy::needless_range_loop, clippy::manual_memcpy)]
#[differentiable(wrt(w))]
fn elman_buffers_per_step(w: &[f64], xs: &[f64], steps: usize) -> f64 {
    let n = 3;
    let mut h = vec![0.0; n];
    let mut loss = 0.0;
    for t in 0..steps {
        let mut hnew = vec![0.0; n];
        for i in 0..n {
            let mut s = xs[(t + i) % xs.len()];
            for k in 0..n {
                s += w[i * n + k] * h[k];
            }
            hnew[i] = s.tanh();
        }
        let mut stage = [0.0; 2];
        for i in 0..2 {
            stage[i] = hnew[i] * hnew[i + 1];
        }
        for i in 0..n {
            h[i] = hnew[i];
        }
        loss += stage[0] - stage[1];
    }
    loss
}

#[test]
fn buffers_declared_every_step_do_not_allocate_every_step() {
    let w: Vec<f64> = (0..9).map(|k| 0.3 * (k as f64 * 0.7).sin()).collect();
    let xs = [0.4, -0.9, 0.2, 0.7, -0.1];
    let count = |steps: usize| {
        let mut d_w = vec![0.0; 9];
        elman_buffers_per_step_adjoint(&w, &xs, steps, 1.0, &mut d_w);
        allocations(|| {
            elman_buffers_per_step_adjoint(&w, &xs, steps, 1.0, &mut d_w);
        })
    };
    let (few, many) = (count(8), count(512));
    // (the pools, and the `Vec` of the buffer's shapes, which doubles
    // its storage: 6 times more from 8 steps to 512)
    assert!(
        many <= few + 8,
        "{few} allocations at 8 steps, {many} at 512: the nest allocates per step"
    );
    assert!(few <= 8, "{few} allocations at 8 steps");
    let x: Vec<f64> = w.clone();
    let (_, gradient) = elman_buffers_per_step_grad(&x, &xs, 6);
    let report = autograd::check::gradient(|w| elman_buffers_per_step(w, &xs, 6), &x, &gradient);
    assert!(report.is_ok(1e-6), "{report}");
}

#[differentiable]
fn norm2(v: &[f64]) -> f64 {
    (v[0] * v[0] + v[1] * v[1]).sqrt()
}

#[differentiable]
fn triple(p: &[f64; 3]) -> f64 {
    p[0] * p[1] + (p[2] * p[0]).sin()
}

/// Calls given arrays that vary (a fixed-size array, a subslice), in a
/// function that allocates nothing: their reverse calls the helpers'
/// adjoints, and allocates nothing either.
#[differentiable]
fn calls_on_the_stack(x: &[f64]) -> f64 {
    let p = [x[0], x[1] * x[2], x[2]];
    triple(&p) + norm2(&x[1..3])
}

#[test]
fn calls_given_arrays_allocate_nothing() {
    let x = [0.4, -1.1, 0.7];
    let mut d_x = [0.0; 3];
    let n = allocations(|| {
        calls_on_the_stack_adjoint(&x, 1.0, &mut d_x);
    });
    assert_eq!(n, 0, "allocated {n} times");
    let (_, gradient) = calls_on_the_stack_grad(&x);
    let report = autograd::check::gradient(calls_on_the_stack, &x, &gradient);
    assert!(report.is_ok(1e-6), "{report}");
}

/// A recursive function whose body records a nest (and an undo tape): the
/// call inside takes records of its own while the outer call's are in use
/// (`__private::Records`, its home busy), and both find their storage
/// again on the next call.
#[allow(clippy::needless_range_loop)]
#[differentiable]
fn layered(x: &[f64], depth: usize) -> f64 {
    let n = x.len();
    let mut y = vec![0.0; n];
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..i {
            s = (s + x[j] * y[j]).sin();
        }
        y[i] = (s + x[i]).tanh();
    }
    let inner = if depth > 0 {
        layered(&y, depth - 1)
    } else {
        0.0
    };
    s + 0.5 * inner + y[n - 1]
}

#[test]
fn recursive_adjoints_use_records_of_their_own() {
    let x: Vec<f64> = (0..9).map(|i| (i as f64 * 0.7).cos()).collect();
    for depth in 0..3 {
        let (value, gradient) = layered_grad(&x, depth);
        assert_eq!(value, layered(&x, depth));
        let report = autograd::check::gradient(|x| layered(x, depth), &x, &gradient);
        assert!(report.is_ok(1e-6), "depth {depth}: {report}");
    }
    let mut d_x = vec![0.0; x.len()];
    layered_adjoint(&x, 2, 1.0, &mut d_x);
    let again = allocations(|| {
        layered_adjoint(&x, 2, 1.0, &mut d_x);
    });
    // only the buffers the levels' bodies allocate (each level's `y` and
    // its adjoint, and the inner levels' `y` as the forward sweep calls
    // them): each level's records are those it used on the first call
    // (12 while the reverse of the `if` ran the inner call again, before
    // `Plan::branch_saves`)
    assert_eq!(again, 9, "the second call allocated {again} times");
}

/// Each thread keeps its own records: adjoints run at once on several
/// threads give what they give on one.
#[test]
fn records_are_per_thread() {
    let points: Vec<Vec<f64>> = (0..4)
        .map(|t| (0..30).map(|i| ((i + 7 * t) as f64 * 0.3).cos()).collect())
        .collect();
    let alone: Vec<Vec<f64>> = points.iter().map(|x| records_grad(x).1).collect();
    let together: Vec<Vec<f64>> = std::thread::scope(|scope| {
        let handles: Vec<_> = points
            .iter()
            .map(|x| {
                scope.spawn(move || {
                    let mut gradient = records_grad(x).1;
                    for _ in 0..50 {
                        gradient = records_grad(x).1;
                    }
                    gradient
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(alone, together);
}

/// A vector-valued function returning its local buffer by name.
#[allow(clippy::needless_range_loop)]
#[differentiable]
fn spread(v: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; v.len()];
    for i in 0..v.len() {
        out[i] = v[i] * v[(i + 1) % v.len()];
    }
    out
}

/// Its vector-Jacobian product allocates the buffer the body does, that
/// buffer's adjoint and the returned copy of it: the weighted sum reads the
/// buffer where it is (no copy of it, no adjoint of a copy), and the value
/// comes from the same forward sweep (no second run of the body).
#[test]
fn a_vector_adjoint_allocates_the_buffer_its_adjoint_and_the_value() {
    let v = [0.3, -1.2, 0.8, 2.0];
    let d_out = [1.0, -0.5, 0.25, 2.0];
    let mut d_v = [0.0; 4];
    spread_adjoint(&v, &d_out, &mut d_v);
    let mut value = Vec::new();
    let n = allocations(|| value = spread_adjoint(&v, &d_out, &mut d_v));
    assert_eq!(n, 3, "allocated {n} times");
    assert_eq!(value, spread(&v));
}

#[differentiable]
fn log_sum_exp(v: &[f64]) -> f64 {
    let m = v.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
    let s: f64 = v.iter().map(|&x| (x - m).exp()).sum();
    m + s.ln()
}

/// Softmax regression with a buffer of logits declared for every sample in
/// the loop over samples (a fused loop: each sample's forward, then its
/// reverse).
#[allow(clippy::needless_range_loop)]
#[differentiable(wrt(w))]
fn softmax_loss(w: &[f64], xs: &[f64], labels: &[usize], d: usize, c: usize) -> f64 {
    let n = labels.len();
    let mut total = 0.0;
    for i in 0..n {
        let mut logits = vec![0.0; c];
        for k in 0..c {
            let mut s = w[k * (d + 1) + d];
            for j in 0..d {
                s += w[k * (d + 1) + j] * xs[i * d + j];
            }
            logits[k] = s;
        }
        total += log_sum_exp(&logits) - logits[labels[i]];
    }
    total / n as f64
}

/// The buffer and its adjoint are refilled in two pools declared before the
/// loop: two allocations a call (after the first, whose records grow), where
/// the function body allocates one a sample and the adjoint another.
#[test]
fn buffers_a_fused_loop_declares_are_pooled() {
    let (d, c, n) = (3, 4, 20);
    let w: Vec<f64> = (0..c * (d + 1)).map(|i| (i as f64 * 0.37).sin()).collect();
    let xs: Vec<f64> = (0..n * d).map(|i| (i as f64 * 0.71).cos()).collect();
    let labels: Vec<usize> = (0..n).map(|i| (i * 7) % c).collect();
    let mut d_w = vec![0.0; w.len()];
    softmax_loss_adjoint(&w, &xs, &labels, d, c, 1.0, &mut d_w);
    let count = allocations(|| {
        softmax_loss_adjoint(&w, &xs, &labels, d, c, 1.0, &mut d_w);
    });
    assert_eq!(count, 2, "allocated {count} times");
    let (value, gradient) = softmax_loss_grad(&w, &xs, &labels, d, c);
    assert_eq!(value, softmax_loss(&w, &xs, &labels, d, c));
    let report = autograd::check::gradient(|w| softmax_loss(w, &xs, &labels, d, c), &w, &gradient);
    assert!(report.is_ok(1e-6), "{report}");
}

#[allow(clippy::needless_range_loop)]
#[differentiable]
fn inner(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

/// A recurrent cell whose per-step buffer is given whole to a helper
/// (`inner(&w[..], &next)`: not used through slices, `views.rs`).
#[allow(clippy::needless_range_loop, clippy::manual_memcpy)]
#[differentiable(wrt(w))]
fn rnn_whole_buffers(w: &[f64], xs: &[f64], h: usize) -> f64 {
    let mut state = vec![0.0; h];
    let mut loss = 0.0;
    for t in 0..xs.len() {
        let mut next = vec![0.0; h];
        for i in 0..h {
            next[i] = (inner(&w[i * h..(i + 1) * h], &state) + xs[t]).tanh();
        }
        let y = inner(&w[h * h..h * h + h], &next);
        loss += (y - 0.5) * (y - 0.5);
        for i in 0..h {
            state[i] = next[i];
        }
    }
    loss
}

/// The recorded time loop takes the buffer out of a pool and moves it back
/// at the end of each step (`record::owned_buffers`), and zeroes its adjoint
/// in another (`Shaped::adjoint_pool`): as many allocations at 64 steps as
/// at 8.
#[test]
fn buffers_given_whole_are_pooled_in_recorded_nests() {
    let h = 3;
    let w: Vec<f64> = (0..h * h + h)
        .map(|i| (i as f64 * 0.41).sin() * 0.5)
        .collect();
    let mut counts = Vec::new();
    for steps in [8, 64] {
        let xs: Vec<f64> = (0..steps).map(|t| (t as f64 * 0.3).cos()).collect();
        let mut d_w = vec![0.0; w.len()];
        rnn_whole_buffers_adjoint(&w, &xs, h, 1.0, &mut d_w);
        counts.push(allocations(|| {
            rnn_whole_buffers_adjoint(&w, &xs, h, 1.0, &mut d_w);
        }));
        let (value, gradient) = rnn_whole_buffers_grad(&w, &xs, h);
        assert_eq!(value, rnn_whole_buffers(&w, &xs, h));
        let report = autograd::check::gradient(|w| rnn_whole_buffers(w, &xs, h), &w, &gradient);
        assert!(report.is_ok(1e-6), "{report}");
    }
    assert_eq!(
        counts[0], counts[1],
        "allocations at 8 and 64 steps: {counts:?}"
    );
}

#[differentiable]
fn dot_product(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

/// Logistic regression through a helper that differentiates both its
/// arguments, given a row of constant data per sample: the helper's
/// adjoint needs a slot for the row, a zeroed buffer it adds into and the
/// caller throws away, made in the function's slot pool
/// (`__private::SlotPool`): one buffer for every sample, taken from the
/// thread's spare buffers once a call. It was allocated and freed per
/// sample (a third of the gradient's instructions), then taken from the
/// spare buffers and given back per sample (a fifth).
#[differentiable(wrt(w))]
fn logistic_through_dot(w: &[f64], xs: &[f64], ys: &[f64]) -> f64 {
    let d = w.len();
    let mut total = 0.0;
    for i in 0..ys.len() {
        let z = dot_product(w, &xs[i * d..(i + 1) * d]);
        total += (1.0 + (-ys[i] * z).exp()).ln();
    }
    total
}

#[test]
fn constant_data_given_to_a_helper_per_sample_allocates_nothing_per_sample() {
    let d = 5;
    let w: Vec<f64> = (0..d).map(|i| (i as f64 * 0.3).sin()).collect();
    let count = |n: usize| {
        let xs: Vec<f64> = (0..n * d).map(|i| (i as f64 * 0.7).cos()).collect();
        let ys: Vec<f64> = (0..n)
            .map(|i| if i % 2 == 0 { 1.0 } else { -1.0 })
            .collect();
        let mut d_w = vec![0.0; d];
        allocations(|| {
            logistic_through_dot_adjoint(&w, &xs, &ys, 1.0, &mut d_w);
        })
    };
    // (the first call on a thread allocates the buffer, and its spare)
    let first = count(4);
    assert!(first <= 2, "{first} allocations at the first call");
    let many = count(400);
    assert_eq!(many, 0, "{many} allocations at 400 samples");
    let xs: Vec<f64> = (0..3 * d).map(|i| (i as f64 * 0.7).cos()).collect();
    let ys = [1.0, -1.0, 1.0];
    let (_, gradient) = logistic_through_dot_grad(&w, &xs, &ys);
    let report = autograd::check::gradient(|w| logistic_through_dot(w, &xs, &ys), &w, &gradient);
    assert!(report.is_ok(1e-6), "{report}");
}

/// A scalar function of a vector-valued helper's result.
#[differentiable]
fn spread_total(v: &[f64]) -> f64 {
    let s = spread(v);
    s[0] * s[1] + s[2] - s[3]
}

/// What a caller's reverse sweep does not use of what a callee's adjoint
/// returns — here the vector `spread_adjoint` returns — goes to the
/// thread's spare buffers (`__private::spare_back`), where the callee's
/// next call takes its copy of the value from (`spare_copy`): once warm, a
/// call allocates the forward sweep's result of `spread`, the adjoint of
/// that result, and, inside `spread_adjoint`, the buffer its body declares
/// and that buffer's adjoint — not the copy.
#[test]
fn a_callee_value_the_caller_discards_is_reused() {
    let v = [0.3, -1.2, 0.8, 2.0];
    let (value, gradient) = spread_total_grad(&v);
    assert_eq!(value, spread_total(&v));
    let report = autograd::check::gradient(spread_total, &v, &gradient);
    assert!(report.is_ok(1e-6), "{report}");
    let mut d_v = [0.0; 4];
    spread_total_adjoint(&v, 1.0, &mut d_v);
    let again = allocations(|| {
        spread_total_adjoint(&v, 1.0, &mut d_v);
    });
    assert_eq!(again, 4, "the second call allocated {again} times");
}
