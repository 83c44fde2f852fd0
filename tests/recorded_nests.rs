//! Loop nests in the function body are *recorded* (`autograd-macros/src/
//! record.rs`): the forward sweep keeps what their reverse reads, and the
//! reverse takes it back instead of running the nest again. Each function
//! here is written twice from one body: as is (recorded), and inside an
//! `if` (a nest that is not in the function body is replayed, the older
//! strategy, which shares nothing with recording but the rules). Both are
//! checked against central finite differences at several points, their
//! adjoints against pre-filled buffers, and against each other to 1e-12.

#![allow(
    clippy::assign_op_pattern,
    clippy::needless_range_loop,
    clippy::useless_vec,
    clippy::manual_memcpy
)]

#[macro_use]
mod common;

use autograd::differentiable;

const POINTS: [[f64; 6]; 3] = [
    [0.7, -1.3, 0.4, 1.9, -0.6, 1.1],
    [1.2, 0.3, -0.8, 0.5, 2.1, -0.2],
    [-0.4, 0.9, 1.6, -1.1, 0.2, 0.8],
];

// A mixture-like objective: buffers every iteration overwrites, a
// triangular product indexed by an integer the inner loop carries, a
// running max (decisions), a log-sum-exp.
recorded_and_replayed!(mixture_agrees: mixture, mixture_grad, mixture_adjoint;
       mixture_r, mixture_r_grad, mixture_r_adjoint; |x| {
    let d = 3;
    let mut centered = vec![0.0; d];
    let mut q = vec![0.0; d];
    let mut terms = [0.0; 2];
    let mut total = 0.0;
    for i in 0..2 {
        for c in 0..2 {
            for j in 0..d {
                centered[j] = x[(i + j) % 6] - x[c + j];
            }
            for j in 0..d {
                q[j] = x[j].exp() * centered[j];
            }
            let mut l = d;
            for col in 0..d {
                for row in col + 1..d {
                    q[row] += x[l % 6] * centered[col];
                    l += 1;
                }
            }
            let mut sq = 0.0;
            for j in 0..d {
                sq += q[j] * q[j];
            }
            terms[c] = x[c] - 0.5 * sq;
        }
        let mut mx = terms[0];
        for c in 1..2 {
            if terms[c] > mx {
                mx = terms[c];
            }
        }
        let mut se = 0.0;
        for c in 0..2 {
            se += (terms[c] - mx).exp();
        }
        total += se.ln() + mx;
    }
    total
});

// Loops of a recorded nest reversed counting up (`reverse_recorded_loop`):
// an inner loop that only increments an array from outside it, its
// counter stepped by a stride the loop does not change (counted all the
// way back first, then forwards), some of its ranges empty; and beside it
// loops that must stay reversed: one that also reads the array it
// increments at another element, one that increments the same element
// every iteration and reads it too, one whose increment is nested in an `if`.
recorded_and_replayed!(increments_reversed_in_order_agree: increments, increments_grad, increments_adjoint;
       increments_r, increments_r_grad, increments_r_adjoint; |x| {
    let n = x.len();
    let stride = 2;
    let mut y = vec![0.0; n];
    let mut z = vec![0.0; n];
    let mut total = 0.0;
    for pass in 0..2 {
        for j in 0..n {
            y[j] = x[j] * x[(j + pass) % n];
            z[j] = y[j].sin();
        }
        let mut l = 1;
        for col in 0..n {
            for row in col + 2..n {
                y[row] += x[l % n] * z[col];
                l += stride;
            }
        }
        for j in 1..n {
            y[j] += x[j] * y[0];
        }
        for j in 0..n {
            y[0] += y[0] * x[j] * 0.25;
        }
        for j in 0..n {
            if x[j] > 0.0 {
                y[j] += x[j] * x[j];
            }
        }
        for j in 0..n {
            total += y[j] * y[j];
        }
    }
    total
});

// Adjacent loops over one range (`lower/fusion.rs`): the first three touch
// `c` and `q` only at their index and are one loop in the generated code;
// the fourth reads `q` at another element and the fifth changes `s`, which
// the sixth reads whole, so each stays a loop of its own.
recorded_and_replayed!(adjacent_loops_agree: adjacent, adjacent_grad, adjacent_adjoint;
       adjacent_r, adjacent_r_grad, adjacent_r_adjoint; |x| {
    let n = x.len();
    let mut c = vec![0.0; n];
    let mut q = vec![0.0; n];
    let mut total = 0.0;
    for i in 0..3 {
        for j in 0..n {
            c[j] = x[j] - x[(i + j) % n];
        }
        for j in 0..n {
            q[j] = x[j].exp() * c[j];
        }
        for j in 0..n {
            q[j] += c[j] * c[j] / (q.len() as f64);
        }
        for j in 0..n {
            c[j] = q[n - 1 - j] * x[j];
        }
        let mut s = 0.0;
        for j in 0..n {
            s += c[j] * q[j];
        }
        for j in 0..n {
            total += q[j] * s;
        }
    }
    total
});

// Loops that store each element of a buffer once, at their own index, and
// read it only there afterwards are undone as a span (`record::spans`):
// saved in one copy before the loop, restored after its reverse. Here a
// part of the buffer (`1..n - 1`, its ends set before the nest), a range
// that is empty at the last iteration (`i..2`), a loop with a loop inside
// it reading the element, and a buffer that carries no derivative, whose
// reverse has nothing to do but the restore. The last three loops are not
// spans: one reads its element before storing it, one reads a neighbour,
// and one reads, in an `if` before its store, the element the next
// iteration overwrites (which its reverse reads again).
recorded_and_replayed!(span_undone_stores_agree: spans, spans_grad, spans_adjoint;
       spans_r, spans_r_grad, spans_r_adjoint; |x| {
    let n = x.len();
    let mut y = vec![0.0; n];
    let mut w = vec![0.0; n];
    let mut z = vec![0.0; n];
    y[0] = x[0];
    y[n - 1] = x[n - 1] * x[1];
    let mut total = 0.0;
    for i in 0..3 {
        for j in 1..n - 1 {
            y[j] = x[j] * x[(i + j) % n];
        }
        for j in 0..n {
            w[j] = (i + j) as f64 * 0.5;
        }
        for j in i..2 {
            z[j] = y[j + 1].sin();
            for k in 0..2 {
                total += z[j] * x[k + j];
            }
        }
        for col in 0..n {
            for row in col..n {
                total += y[row] * y[col] * w[row] + z[col];
            }
        }
        for j in 0..n {
            z[j] = z[j] * x[j];
        }
        for j in 1..n {
            y[j] = y[j - 1] + x[j];
        }
        for j in 0..n {
            if j + 1 < n {
                total += y[j + 1] * x[j];
            }
            y[j] = x[j] * x[(i + j) % n];
        }
        for j in 0..n {
            total += y[j] * z[j];
        }
    }
    total
});

// Stores whose loop first loads the element it overwrites: a span when
// the reverse does not load that value again (`s[j] = (s[j] - m).exp()`,
// a softmax's scores: only the difference is needed, and it is recorded),
// and when the value is recorded (`s[j] * s[j]`); the element's adjoint
// flows through the load and the store alike.
recorded_and_replayed!(span_after_loading_its_element_agrees: softmax_spans, softmax_spans_grad,
       softmax_spans_adjoint; softmax_spans_r, softmax_spans_r_grad,
       softmax_spans_r_adjoint; |x| {
    let n = x.len();
    let mut s = vec![0.0; n];
    let mut total = 0.0;
    for i in 0..3 {
        let mut m = f64::NEG_INFINITY;
        for j in 0..n {
            s[j] = x[j] * x[(i + j) % n];
            m = m.max(s[j]);
        }
        let mut z = 0.0;
        for j in 0..n {
            s[j] = (s[j] - m).exp();
            z += s[j];
        }
        for c in 0..2 {
            let mut o = 0.0;
            for j in 0..n {
                o += s[j] * x[(j + c) % n];
            }
            total += o * o / z;
        }
        for j in 0..n {
            s[j] = s[j] * s[j] + x[j];
        }
        for c in 0..2 {
            for j in 0..n {
                total += s[j] * x[(j + i + c) % n];
            }
        }
    }
    total
});

// A hidden layer per sample (`h[i] = a.tanh()`): `h` keeps its undo tape
// as a span, which costs less than recording its loads
// (`record::keeps_undo`), and the reverse reads `t` again from `h[i]`
// rather than recording it (`Keep::Reload`). `g`, read in the inner loop,
// keeps its undo tape too, but `u`, stored into `g[i]`, is recorded: the
// block stores into `g` again after it (`g[(3 * i) % 4]`, the same element
// when `i` is 0 or 2), so the element may no longer hold it at the start
// of the block's reverse.
recorded_and_replayed!(stored_values_read_again_agree: stored, stored_grad, stored_adjoint;
       stored_r, stored_r_grad, stored_r_adjoint; |x| {
    let n = x.len();
    let mut h = vec![0.0; 4];
    let mut g = vec![0.0; 4];
    let mut total = 0.0;
    for s in 0..3 {
        for i in 0..4 {
            let mut a = x[(s + i) % n];
            for j in 0..2 {
                a += x[j] * x[(i + j) % n];
            }
            let t = a.tanh();
            h[i] = t;
            let u = (a * x[i]).exp();
            g[i] = u;
            g[(3 * i) % 4] += u * 0.5 + t;
        }
        let mut o = 0.0;
        for i in 0..4 {
            o += x[i] * h[i];
            for k in 0..2 {
                o += g[i] * x[k + 1] * h[(i + k) % 4];
            }
        }
        total += o * o;
    }
    total
});

// Loads of a parameter at `base + j` in an innermost loop of a nest are read
// from a row checked once before the loop (`__private::row`): rows at
// `i + j`, at `j + 2 * i` from a range that does not start at 0, at `j`
// alone, and a range empty at the last iteration (`i..2`).
recorded_and_replayed!(parameter_rows_agree: rows, rows_grad, rows_adjoint;
       rows_r, rows_r_grad, rows_r_adjoint; |x| {
    let mut total = 0.0;
    for i in 0..3 {
        let mut s = 0.0;
        for j in 0..3 {
            s += x[i + j] * x[j];
        }
        for j in 1..3 {
            s += (x[j + 2 * (i % 2)] * s).sin();
        }
        for j in i..2 {
            s -= x[j] * x[j + 1];
        }
        total += s * s;
    }
    total
});

/// A nest whose row runs past the parameter's end: the gradient panics as
/// the function does, from the loop as written.
#[differentiable]
fn rows_past_the_end(x: &[f64]) -> f64 {
    let mut y = vec![0.0; 3];
    let mut total = 0.0;
    for i in 0..3 {
        for j in 0..3 {
            y[j] = (x[2 * i + j] * x[j]).tanh();
        }
        for j in 0..3 {
            total += y[j] * y[(j + 1) % 3];
        }
    }
    total
}

#[test]
#[should_panic(expected = "index out of bounds")]
fn a_row_past_the_end_panics_as_the_function_does() {
    // 2·2 + 2 = 6 is past a slice of six
    let x = [0.5, 1.0, -0.5, 0.25, 2.0, 1.5];
    let _ = rows_past_the_end_grad(&x);
}

#[test]
#[should_panic(expected = "index out of bounds")]
fn the_function_itself_panics_there_too() {
    let x = [0.5, 1.0, -0.5, 0.25, 2.0, 1.5];
    let _ = rows_past_the_end(&x);
}

// Nests beside steps (`lower/fusion.rs`): `y[i] = y[i].tanh()` stays apart
// from the nest after it that reads `y[i]` in its inner loop; the
// convolution's nest and the two steps after it are one loop.
recorded_and_replayed!(nests_beside_steps_agree: nests_steps, nests_steps_grad, nests_steps_adjoint;
       nests_steps_r, nests_steps_r_grad, nests_steps_r_adjoint; |x| {
    let n = 3;
    let mut y = vec![0.0; n];
    let mut z = vec![0.0; n];
    for i in 0..n {
        for j in 0..n {
            y[i] += x[(2 * i + j) % 6] * x[j];
        }
    }
    for i in 0..n {
        y[i] = y[i].tanh();
    }
    for i in 0..n {
        for j in 0..n {
            z[j] += x[(i + j) % 6] * y[i];
        }
    }
    let mut conv = vec![0.0; 4];
    let mut act = vec![0.0; 4];
    for i in 0..4 {
        for t in 0..3 {
            conv[i] += x[t] * x[(i + t + 1) % 6];
        }
    }
    for i in 0..4 {
        act[i] = conv[i].max(0.0);
    }
    for i in 0..4 {
        act[i] = act[i] * act[i] + conv[i];
    }
    let mut s = 0.0;
    for j in 0..n {
        s += z[j] * z[j];
    }
    for i in 0..4 {
        s += act[i];
    }
    s
});

// Gauss–Seidel sweeps: the boundary `if`s read only the loop index and a
// length, so the reverse evaluates them again instead of recording them
// (`record.rs`, `recomputable`); the branch on a float, and the one on an
// integer the nest assigns, stay recorded.
recorded_and_replayed!(gauss_seidel_agrees: gauss_seidel, gauss_seidel_grad, gauss_seidel_adjoint;
       gauss_seidel_r, gauss_seidel_r_grad, gauss_seidel_r_adjoint; |x| {
    let n = x.len();
    let mut u = vec![0.0; n];
    let mut total = 0.0;
    let mut flips = 0;
    for sweep in 0..3 {
        for i in 0..n {
            let left = if i > 0 { u[i - 1] } else { x[0] };
            let right = if i + 1 < n && sweep + i != 4 { u[i + 1] } else { 0.0 };
            let mut v = 0.5 * (left + right) + x[i] * x[(i + sweep) % n];
            if v > 0.5 && sweep % 2 == 1 {
                v = v.sin();
                flips += 1;
            }
            if flips % 2 == 1 {
                v *= 1.5;
            }
            u[i] = v;
        }
        total += u[n / 2] * u[n / 2];
    }
    total + u[n - 1]
});

// A single loop of the function body whose replay would save its carried
// values anyway and compute `sin_cos` and `exp` again: recorded
// (`record.rs`, `kept`), its stores into a local array plain.
recorded_and_replayed!(single_loop_agrees: single_loop, single_loop_grad, single_loop_adjoint;
       single_loop_r, single_loop_r_grad, single_loop_r_adjoint; |x| {
    let mut rot = [1.0, 0.0];
    let mut reach = 0.0;
    let mut scale = x[5];
    for k in 0..5 {
        let (s, c) = (x[k] * scale).sin_cos();
        rot = [rot[0] * c - rot[1] * s, rot[0] * s + rot[1] * c];
        reach += rot[0] * (0.1 * x[k]).exp();
        scale = 0.5 * scale + rot[1];
    }
    reach + scale
});

// Nests inside a fused loop's body (a sum over points whose reverse runs
// point by point): recorded too, their records taken back within the
// point's iteration.

// k-means: per point, a running minimum over centres of a sum over
// dimensions; the reverse of each centre's sum is skipped when its seed
// is 0 (it takes nothing back).
// Runge–Kutta steps of a Lotka–Volterra system whose parameters are the
// input: per stage, products of a parameter and a recorded state value
// (`x[1] * tmp[0]`), recomputed from them rather than recorded, and the
// step sizes `0.5 * h`, `h / 6.0` of a local that varies with nothing,
// recomputed too (`record.rs`, `keep_of`, `cheap_of_one`).
recorded_and_replayed!(runge_kutta_agrees: runge_kutta, runge_kutta_grad, runge_kutta_adjoint;
       runge_kutta_r, runge_kutta_r_grad, runge_kutta_r_adjoint; |x| {
    let h = 0.05;
    let mut state = [1.0, 0.5];
    let mut k1 = [0.0; 2];
    let mut k2 = [0.0; 2];
    let mut tmp = [0.0; 2];
    for _ in 0..6 {
        k1[0] = x[0] * state[0] - x[1] * state[0] * state[1];
        k1[1] = x[3] * state[0] * state[1] - x[2] * state[1];
        for i in 0..2 {
            tmp[i] = state[i] + 0.5 * h * k1[i];
        }
        k2[0] = x[0] * tmp[0] - x[1] * tmp[0] * tmp[1];
        k2[1] = x[3] * tmp[0] * tmp[1] - x[2] * tmp[1];
        for i in 0..2 {
            state[i] += h / 2.0 * (k1[i] + k2[i]) + x[4] * x[5] * h;
        }
    }
    state[0] * state[0] + state[1].sin()
});

recorded_and_replayed!(nearest_in_fused_agrees: nearest_in_fused, nearest_in_fused_grad, nearest_in_fused_adjoint;
       nearest_in_fused_r, nearest_in_fused_r_grad, nearest_in_fused_r_adjoint; |x| {
    let mut loss = 0.0;
    for i in 0..4 {
        let mut best = 1.0e300;
        for c in 0..3 {
            let mut s = 0.0;
            for t in 0..2 {
                // (the points are constants: `e` is recomputed, and a
                // centre's sum takes nothing back)
                let e = x[(2 * c + t + 1) % 6] - 0.3 * (i + t) as f64;
                s += e * e;
            }
            if s < best {
                best = s;
            }
        }
        loss += best;
    }
    loss
});

// The same with a sum that records (an `exp`): its reverse takes records
// back, so it runs whatever its seed.
recorded_and_replayed!(recording_sums_in_fused_agree: recording_sums_in_fused, recording_sums_in_fused_grad,
       recording_sums_in_fused_adjoint;
       recording_sums_in_fused_r, recording_sums_in_fused_r_grad,
       recording_sums_in_fused_r_adjoint; |x| {
    let mut loss = 0.0;
    for i in 0..3 {
        let mut best = 1.0e300;
        for c in 0..3 {
            let mut s = 0.0;
            for t in 0..2 {
                s += (x[(i + t) % 6] * x[(c + t + 2) % 6]).exp();
            }
            if s < best {
                best = s;
            }
        }
        loss += best.ln();
    }
    loss
});

// Per point, buffers declared in the fused loop's body, a product indexed
// by an integer counted back, and a log-sum-exp.
recorded_and_replayed!(mixture_in_fused_agrees: mixture_in_fused, mixture_in_fused_grad, mixture_in_fused_adjoint;
       mixture_in_fused_r, mixture_in_fused_r_grad, mixture_in_fused_r_adjoint; |x| {
    let d = 3;
    let mut total = 0.0;
    for i in 0..2 {
        let mut centered = vec![0.0; d];
        let mut q = vec![0.0; d];
        let mut terms = [0.0; 2];
        for c in 0..2 {
            for j in 0..d {
                centered[j] = x[(i + j) % 6] - x[c + j];
            }
            for j in 0..d {
                q[j] = x[j].exp() * centered[j];
            }
            let mut l = d;
            for col in 0..d {
                for row in col + 1..d {
                    q[row] += x[l % 6] * centered[col];
                    l += 1;
                }
            }
            let mut sq = 0.0;
            for j in 0..d {
                sq += q[j] * q[j];
            }
            terms[c] = x[c] - 0.5 * sq;
        }
        let mx = terms[0].max(terms[1]);
        let mut se = 0.0;
        for c in 0..2 {
            se += (terms[c] - mx).exp();
        }
        total += se.ln() + mx;
    }
    total
});

// A softmax cross-entropy per sample: a single loop of `exp`s in the fused
// loop's body is recorded (not replayed: each `exp` is taken once).
recorded_and_replayed!(softmax_in_fused_agrees: softmax_in_fused, softmax_in_fused_grad, softmax_in_fused_adjoint;
       softmax_in_fused_r, softmax_in_fused_r_grad, softmax_in_fused_r_adjoint; |x| {
    let mut loss = 0.0;
    for b in 0..3 {
        let mut z = [0.0; 3];
        for c in 0..3 {
            z[c] = x[(b + c) % 6] * x[(2 * c + 1) % 6];
        }
        let mut se = 0.0;
        for c in 0..3 {
            se += (z[c] - z[b]).exp();
        }
        loss += se.ln();
    }
    loss
});

// A forward substitution: each `y[i]` is written once, then read by every
// later row (the undo tape is kept so that the reverse reads `y` again).
recorded_and_replayed!(substitution_agrees: substitution, substitution_grad, substitution_adjoint;
       substitution_r, substitution_r_grad, substitution_r_adjoint; |x| {
    let n = 3;
    let mut y = vec![0.0; n];
    for i in 0..n {
        let mut s = x[i].sin();
        for j in 0..i {
            s -= x[3 + j] * y[j];
        }
        y[i] = s / (2.0 + x[i] * x[i]);
    }
    let mut out = 0.0;
    for i in 0..n {
        out += y[i] * y[i];
    }
    out
});

// A loop *before* the nest reads the buffer the nest overwrites, and is
// itself replayed (a product): the nest must restore the buffer.
recorded_and_replayed!(read_before_agrees: read_before, read_before_grad, read_before_adjoint;
       read_before_r, read_before_r_grad, read_before_r_adjoint; |x| {
    let mut buf = vec![0.0; 3];
    for k in 0..3 {
        buf[k] = x[k] * x[k + 1];
    }
    let mut p = 1.0;
    for k in 0..3 {
        p *= 1.0 + 0.1 * buf[k];
    }
    for step in 0..2 {
        for k in 0..3 {
            buf[k] = (buf[k] + x[k + step]).tanh();
        }
    }
    let mut s = 0.0;
    for k in 0..3 {
        s += buf[k] * p;
    }
    s
});

// Two nests store into one buffer, with a replayed loop between them that
// reads it.
recorded_and_replayed!(two_nests_agrees: two_nests, two_nests_grad, two_nests_adjoint;
       two_nests_r, two_nests_r_grad, two_nests_r_adjoint; |x| {
    let mut h = vec![0.0; 2];
    for t in 0..2 {
        for k in 0..2 {
            h[k] = (h[k] * x[k] + x[t + 2]).sin();
        }
    }
    let mut m = 1.0;
    for k in 0..2 {
        m *= 1.0 + h[k] * h[k];
    }
    for t in 0..2 {
        for k in 0..2 {
            h[k] = h[k] * m + x[t + k + 3];
        }
    }
    h[0] * h[1]
});

// Branches in the nest, one holding a loop; a value the nest defines
// bounds a nested range; an `i64` carried by a loop.
recorded_and_replayed!(branches_agrees: branches, branches_grad, branches_adjoint;
       branches_r, branches_r_grad, branches_r_adjoint; |x| {
    let mut acc = 0.0;
    let mut z = 1.0;
    for i in 0..3 {
        let m = i + 2;
        let mut count: i64 = 0;
        for j in 0..m {
            let v = x[j] * z;
            if v > 0.1 {
                let mut w = v;
                for k in 0..2 {
                    w = w * x[k + 3] + 0.5;
                }
                acc += (w * w + 0.1).sqrt().max(0.4) * (count as f64);
            } else {
                acc -= v * v;
                count += 2;
            }
            count += 1;
        }
        z = (z + acc * 0.1).cos();
    }
    acc * z
});

// Loop integers the reverse counts back instead of recording
// (`autograd-macros/src/counters.rs`): one stepped down by a stride, one by
// the inner loop's index, one carried by the top loop across an inner loop.
recorded_and_replayed!(counters_agree: counted, counted_grad, counted_adjoint;
       counted_r, counted_r_grad, counted_r_adjoint; |x| {
    let stride = x.len() / 3;
    let mut down = 9 * stride + 3;
    let mut up: usize = 0;
    let mut all = 1;
    let mut s = 0.0;
    for i in 0..3 {
        for j in 0..i + 2 {
            s += x[down % 6] * x[(up + j) % 6].sin() + x[all % 6] * s * 0.1;
            down -= stride;
            up += j;
        }
        for j in 0..2 {
            s = s * x[(all + j) % 6] + 0.25;
            all = all + 2;
        }
    }
    s
});

// What the reverse cannot count back stays recorded: an integer stepped in
// a branch, one read again after the inner loop that steps it, one whose
// step comes from a float (`as usize`), and an `f32` (whose steps do not
// undo exactly).
recorded_and_replayed!(uncountable_agree: uncountable, uncountable_grad, uncountable_adjoint;
       uncountable_r, uncountable_r_grad, uncountable_r_adjoint; |x| {
    let mut branchy: i32 = 1;
    let mut l = 0;
    let mut w: f32 = 0.1;
    let mut s = 0.0;
    for i in 0..3 {
        let first = l;
        for j in 0..2 {
            w += 0.7;
            s += x[(l + j) % 6] * x[branchy.rem_euclid(6) as usize] * (w as f64);
            if x[j] > 0.0 {
                branchy += 3;
            } else {
                branchy -= 1;
            }
            l += (x[i].abs() * 2.0) as usize + 1;
        }
        s = s * 0.5 + x[first % 6] * x[l % 6];
    }
    s
});

// The mixture's integer counted back in its triangular product, with a
// second counter stepping the other way in the same loop.
recorded_and_replayed!(triangular_agrees: triangular, triangular_grad, triangular_adjoint;
       triangular_r, triangular_r_grad, triangular_r_adjoint; |x| {
    let d = 3;
    let mut q = vec![0.0; d];
    let mut s = 0.0;
    for c in 0..2 {
        for j in 0..d {
            q[j] = x[c + j].exp();
        }
        let mut l = d;
        let mut back: i64 = 10;
        for col in 0..d {
            for row in col + 1..d {
                q[row] += x[l % 6] * q[col] * (back as f64);
                l += 1;
                back -= 3;
            }
        }
        for j in 0..d {
            s += q[j] * q[j];
        }
    }
    s
});

// A stencil overwriting its state every step: values that are one
// operation of a recorded float and constants (`0.1 * u[i]`, `1.0 - u[i]`,
// `-u[i]`, `u[i] + 0.5`) are recomputed from it in the reverse.
recorded_and_replayed!(stencil_agrees: stencil, stencil_grad, stencil_adjoint;
       stencil_r, stencil_r_grad, stencil_r_adjoint; |x| {
    let mut u = x.to_vec();
    let mut next = x.to_vec();
    for step in 0..3 {
        for i in 1..5 {
            let a = 0.1 * u[i];
            let b = 1.0 - u[i];
            let c = -u[i + 1];
            let e = u[i - 1] + 0.5;
            next[i] = a * b + (c * e).sin() * x[step] + (a + c) * (b - e);
        }
        for i in 1..5 {
            u[i] = next[i];
        }
    }
    u[1] * u[2] + u[3] * u[4]
});

// A product nest whose replay would save nothing (sums that only
// accumulate, a buffer written before it is read), recorded because the
// function allocates anyway: the reverse takes back each entry's sum and
// `tanh` instead of running the sums again.
recorded_and_replayed!(product_agrees: product, product_grad, product_adjoint;
       product_r, product_r_grad, product_r_adjoint; |x| {
    let n = 2;
    let mut c = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            let mut s = 0.0;
            for k in 0..n {
                s += x[i * n + k] * x[(k * n + j + 1) % 6];
            }
            c[i * n + j] = s.tanh();
        }
    }
    let mut out = 0.0;
    for i in 0..n * n {
        out += c[i] * c[i] * x[(i + 4) % 6];
    }
    out
});

#[differentiable]
fn bump(a: f64, b: f64) -> f64 {
    (a * b).sin() + a
}

// A call of a generated function with scalar arguments inside the nest.
// (Found by these twins: the replayed one gave a wrong gradient, d/dx0
// 8.02 for 1.13, because the outer loop's cell `s`, which the replay of
// the inner loop reads to recompute `t`, was not saved: `activity.rs`
// now treats the cells of loops nested in a construct like those of an
// `if`.)
recorded_and_replayed!(calls_agrees: calls, calls_grad, calls_adjoint;
       calls_r, calls_r_grad, calls_r_adjoint; |x| {
    let mut s = 0.0;
    for i in 0..3 {
        let mut t = x[i];
        for j in 0..2 {
            t = bump(t, x[j + 3]) + 0.25 * s;
        }
        s += t * t;
    }
    s
});

// An LSTM-like step: state buffers read, then overwritten, every step.
recorded_and_replayed!(recurrent_agrees: recurrent, recurrent_grad, recurrent_adjoint;
       recurrent_r, recurrent_r_grad, recurrent_r_adjoint; |x| {
    let mut h = vec![0.0; 2];
    let mut c = vec![0.0; 2];
    let mut z = vec![0.0; 2];
    let mut loss = 0.0;
    for s in 0..3 {
        for r in 0..2 {
            let mut a = x[r];
            for j in 0..2 {
                a += x[2 + r + j] * h[j];
            }
            z[r] = a + x[(s + r) % 6];
        }
        for j in 0..2 {
            let g = 1.0 / (1.0 + (-z[j]).exp());
            c[j] = g * c[j] + (1.0 - g) * z[j].tanh();
            h[j] = c[j].tanh();
        }
        for j in 0..2 {
            let e = h[j] - 0.3;
            loss += e * e;
        }
    }
    loss
});

// A vector-valued function (its `dᵀf` goes through the same pipeline) and
// a method, each with a recorded nest.
#[differentiable]
fn smoothed(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let mut u = x.to_vec();
    let mut next = vec![0.0; n];
    for _ in 0..3 {
        for i in 1..n - 1 {
            next[i] = u[i] + 0.2 * (u[i - 1] - 2.0 * u[i] + u[i + 1]) + 0.1 * u[i] * (1.0 - u[i]);
        }
        for i in 1..n - 1 {
            u[i] = next[i];
        }
    }
    u
}

struct Cell {
    w: Vec<f64>,
}

impl Cell {
    #[differentiable]
    fn energy(&self, x: &[f64]) -> f64 {
        let mut e = 0.0;
        let mut h = vec![0.0; 2];
        for i in 0..3 {
            for j in 0..2 {
                h[j] = (h[j] * self.w[j] + x[i + j]).tanh();
            }
            e += h[0] * h[1];
        }
        e
    }
}

#[test]
fn vector_valued_and_method_nests() {
    for x in POINTS {
        let (value, jacobian) = smoothed_jacobian(&x);
        assert_eq!(value, smoothed(&x));
        autograd::check::jacobian(smoothed, &x, &jacobian).assert_ok(1e-6);
        let cell = Cell { w: vec![0.7, -1.2] };
        let (value, gradient) = cell.energy_grad(&x);
        assert_eq!(value, cell.energy(&x));
        common::assert_gradient(|x| cell.energy(x), &x, &gradient);
    }
}

// A single loop of the function body that computes something costly (an
// `exp`) is recorded when the adjoint takes storage anyway (here the
// running maximum's cell tape): its reverse takes each `exp` back instead
// of evaluating it again.
recorded_and_replayed!(log_sum_exp_agrees: log_sum_exp, log_sum_exp_grad, log_sum_exp_adjoint;
       log_sum_exp_r, log_sum_exp_r_grad, log_sum_exp_r_adjoint; |x| {
    let m = x.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
    let s: f64 = x.iter().map(|&v| (v - m).exp()).sum();
    m + s.ln()
});

/// A recorded loop whose accumulator's adjoint is 0 (the kink after it
/// passes nothing on) is skipped, as the tape skips a node whose adjoint is
/// 0: `0 · exp(800)` would otherwise be NaN where the gradient is 0.
#[differentiable]
fn capped_exp_sum(v: &[f64]) -> f64 {
    let m = v.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
    let s: f64 = v.iter().map(|&x| x.exp()).sum();
    m + s.min(5.0)
}

#[test]
fn a_recorded_loop_with_zero_adjoints_is_skipped_as_on_the_tape() {
    let v = [1.0, 800.0, 2.0];
    let (value, gradient) = capped_exp_sum_grad(&v);
    assert_eq!(value, 805.0);
    assert_eq!(gradient, vec![0.0, 1.0, 0.0]);

    let tape = autograd::tape::Tape::new();
    let vars: Vec<_> = v.iter().map(|&x| tape.var(x)).collect();
    let m = vars[1..].iter().fold(vars[0], |a, &b| a.max(b));
    let s: autograd::tape::Var = vars.iter().map(|x| x.exp()).sum();
    let on_tape = (m + s.min(5.0)).backward();
    assert_eq!(on_tape.wrt_all(&vars), gradient);

    // below the cap, the sum's reverse runs (finite differences)
    let v = [0.1, 0.9, -0.4];
    let (_, gradient) = capped_exp_sum_grad(&v);
    common::assert_gradient(capped_exp_sum, &v, &gradient);
}

// Searches of a buffer the nest changes (`partition_point`, `contains`,
// and a `sort_by`'s order, all kept as the non-differentiated code they
// are): recorded, since the reverse finds the buffer as it left it, not
// as the search read it. They were recomputed there until 2026-11-29 (a
// wrong index, silent).
recorded_and_replayed!(searches_of_a_changing_buffer: searched, searched_grad, searched_adjoint;
       searched_r, searched_r_grad, searched_r_adjoint; |x| {
    let mut v = x.to_vec();
    let mut total = 0.0;
    for step in 0..3 {
        for i in 0..v.len() {
            v[i] = v[i] * 0.7 + step as f64 * 0.5;
        }
        let j = v.partition_point(|a| *a < 0.6).min(v.len() - 1);
        let seen = if v.contains(&v[0]) { 1.0 } else { 0.0 };
        v.sort_by(|a, b| b.total_cmp(a));
        total += v[j] * (step as f64 + 1.0) + v[0] * seen;
    }
    total
});
