//! Rows (`autograd-macros/src/emit/rows.rs`): a loop's accesses
//! `a[base + j]` read from a row of `a` checked once before the loop, in
//! the forward and the reverse sweep. Each function here has a twin whose
//! indices go through `at`, an opaque identity, which keeps it from having
//! any row: the two are checked against central finite differences and
//! against each other (the same operations in the same order: equal to the
//! bit). What runs past an array's end panics as the function does.

#![allow(
    clippy::needless_range_loop,
    clippy::useless_vec,
    clippy::manual_memcpy
)]

mod common;

use autograd::differentiable;
use common::check_gradient_and_adjoint;

/// The identity, out of the pass's sight: an index through it is no row.
#[inline(never)]
fn at(k: usize) -> usize {
    std::hint::black_box(k)
}

const POINTS: [[f64; 8]; 3] = [
    [0.7, -1.3, 0.4, 1.9, -0.6, 1.1, 0.3, -0.9],
    [1.2, 0.3, -0.8, 0.5, 2.1, -0.2, -1.4, 0.6],
    [-0.4, 0.9, 1.6, -1.1, 0.2, 0.8, 1.3, -0.5],
];

/// A test `$test` of `$rows` against its twin `$plain`, both `fn(&[f64])`.
macro_rules! twins {
    ($test:ident: $rows:ident, $rows_grad:ident, $rows_adjoint:ident;
     $plain:ident, $plain_grad:ident, $plain_adjoint:ident) => {
        #[test]
        fn $test() {
            check_gradient_and_adjoint($rows, |x| $rows_grad(x), $rows_adjoint, &POINTS);
            check_gradient_and_adjoint($plain, |x| $plain_grad(x), $plain_adjoint, &POINTS);
            for x in POINTS {
                assert_eq!($rows_grad(&x), $plain_grad(&x), "at {x:?}");
            }
        }
    };
}

// A hidden layer per sample: rows of the weights and of the data in the
// forward dot product, of the weights' adjoint in its reverse; the hidden
// buffer written at `i` and read at `i` (a mutable row, then a shared one).
#[differentiable(wrt(w))]
fn layer(w: &[f64]) -> f64 {
    let (d, hidden) = (2, 3);
    let data = [0.5, -1.0, 1.5, 0.25, -0.75, 2.0];
    let mut h = vec![0.0; hidden];
    let mut loss = 0.0;
    for s in 0..3 {
        for i in 0..hidden {
            let mut a = 0.0;
            for j in 0..d {
                a += w[i * d + j] * data[s * d + j];
            }
            h[i] = a.tanh();
        }
        for i in 0..hidden {
            loss += w[6 + i % 2] * h[i] * h[i];
        }
    }
    loss
}

#[differentiable(wrt(w))]
fn layer_plain(w: &[f64]) -> f64 {
    let (d, hidden) = (2, 3);
    let data = [0.5, -1.0, 1.5, 0.25, -0.75, 2.0];
    let mut h = vec![0.0; hidden];
    let mut loss = 0.0;
    for s in 0..3 {
        for i in 0..hidden {
            let mut a = 0.0;
            for j in 0..d {
                a += w[at(i * d + j)] * data[at(s * d + j)];
            }
            h[at(i)] = a.tanh();
        }
        for i in 0..hidden {
            loss += w[6 + i % 2] * h[at(i)] * h[at(i)];
        }
    }
    loss
}

twins!(a_layer_reads_rows_both_ways: layer, layer_grad, layer_adjoint;
       layer_plain, layer_plain_grad, layer_plain_adjoint);

// A stencil: `u[i - 1]`, `u[i]` and `u[i + 1]` from three rows over
// `1..n - 1`, `next[i]` written through a mutable one; in the reverse, the
// adjoint of `u` at three indices (no row) and of `next` at one (a row).
#[differentiable]
fn stencil(u0: &[f64]) -> f64 {
    let n = u0.len();
    let mut u = u0.to_vec();
    let mut next = u0.to_vec();
    for _ in 0..3 {
        for i in 1..n - 1 {
            next[i] = u[i] + 0.2 * (u[i - 1] - 2.0 * u[i] + u[i + 1]) + 0.1 * u[i] * u[i];
        }
        for i in 1..n - 1 {
            u[i] = next[i];
        }
    }
    let mut s = 0.0;
    for i in 0..n {
        s += u[i] * u[i] * (i as f64 + 1.0);
    }
    s
}

#[differentiable]
fn stencil_plain(u0: &[f64]) -> f64 {
    let n = u0.len();
    let mut u = u0.to_vec();
    let mut next = u0.to_vec();
    for _ in 0..3 {
        for i in 1..n - 1 {
            next[at(i)] = u[at(i)]
                + 0.2 * (u[at(i - 1)] - 2.0 * u[at(i)] + u[at(i + 1)])
                + 0.1 * u[at(i)] * u[at(i)];
        }
        for i in 1..n - 1 {
            u[at(i)] = next[at(i)];
        }
    }
    let mut s = 0.0;
    for i in 0..n {
        s += u[at(i)] * u[at(i)] * (i as f64 + 1.0);
    }
    s
}

twins!(a_stencil_reads_rows_at_offsets: stencil, stencil_grad, stencil_adjoint;
       stencil_plain, stencil_plain_grad, stencil_plain_adjoint);

// A 2-D stencil on a 7×7 grid, each cell through `let k = i * n + j;`:
// its reverse adds into the adjoint of `u` at `k - n`, `k - 1`, `k`,
// `k + 1` and `k + n`, three groups of indices more than a constant
// apart, through rows of cells (`__private::cell_rows`) in a loop counted
// down; the twin reads and writes every element through `at`.
#[differentiable]
fn stencil_2d(x: &[f64]) -> f64 {
    let n = 7;
    let mut u = vec![0.0; n * n];
    for c in 0..4 {
        u[(1 + c / 2) * n + 1 + c % 2] = x[c];
        u[(3 + c / 2) * n + 3 + c % 2] += 0.5 * x[c + 4];
    }
    let mut next = vec![0.0; n * n];
    for _ in 0..3 {
        for i in 1..n - 1 {
            for j in 1..n - 1 {
                let k = i * n + j;
                next[k] = u[k] + 0.15 * (u[k - n] + u[k + n] + u[k - 1] + u[k + 1] - 4.0 * u[k]);
            }
        }
        std::mem::swap(&mut u, &mut next);
    }
    let mut s = 0.0;
    for k in 0..n * n {
        s += u[k] * u[k] * (1.0 + 0.1 * k as f64);
    }
    s
}

#[differentiable]
fn stencil_2d_plain(x: &[f64]) -> f64 {
    let n = 7;
    let mut u = vec![0.0; n * n];
    for c in 0..4 {
        u[at((1 + c / 2) * n + 1 + c % 2)] = x[c];
        u[at((3 + c / 2) * n + 3 + c % 2)] += 0.5 * x[c + 4];
    }
    let mut next = vec![0.0; n * n];
    for _ in 0..3 {
        for i in 1..n - 1 {
            for j in 1..n - 1 {
                let k = i * n + j;
                next[at(k)] = u[at(k)]
                    + 0.15
                        * (u[at(k - n)] + u[at(k + n)] + u[at(k - 1)] + u[at(k + 1)]
                            - 4.0 * u[at(k)]);
            }
        }
        std::mem::swap(&mut u, &mut next);
    }
    let mut s = 0.0;
    for k in 0..n * n {
        s += u[at(k)] * u[at(k)] * (1.0 + 0.1 * k as f64);
    }
    s
}

twins!(a_2d_stencil_adds_into_rows_of_cells: stencil_2d, stencil_2d_grad, stencil_2d_adjoint;
       stencil_2d_plain, stencil_2d_plain_grad, stencil_2d_plain_adjoint);

/// A stencil reading its diagonal neighbours `u[k - n - 1]` and
/// `u[k + n + 1]` on a grid one cell short: the last cell's `k + n + 1` is
/// past the end. Its reverse adds into rows of cells; the function panics
/// there first, and so does its gradient. On a whole grid, the gradient.
#[differentiable]
fn diagonal_stencil(x: &[f64], n: usize) -> f64 {
    let mut u = x.to_vec();
    let mut d = vec![0.0; x.len()];
    for i in 1..n - 1 {
        for j in 1..n - 1 {
            let k = i * n + j;
            d[k] = u[k] * (u[k - n - 1] + u[k + n + 1]) - u[k - 1] * u[k + 1];
        }
    }
    u[0] = d[n + 1];
    let mut s = u[0] * u[1];
    for k in 0..x.len() {
        s += d[k] * (1.0 + 0.01 * k as f64);
    }
    s
}

#[test]
#[should_panic(expected = "index out of bounds")]
fn a_row_of_cells_past_the_end_panics_as_the_function_does() {
    let _ = diagonal_stencil_grad(&[1.0; 35], 6);
}

#[test]
#[should_panic(expected = "index out of bounds")]
fn the_function_panics_past_the_end_too() {
    let _ = diagonal_stencil(&[1.0; 35], 6);
}

#[test]
fn a_stencil_whose_rows_fit_gives_its_gradient() {
    for n in [3, 6, 7] {
        let f = |x: &[f64]| diagonal_stencil(x, n);
        let x: Vec<f64> = (0..n * n).map(|k| 0.3 + 0.1 * (k % 5) as f64).collect();
        let (value, gradient) = diagonal_stencil_grad(&x, n);
        assert_eq!(value, f(&x));
        common::assert_gradient(f, &x, &gradient);
    }
}

// A local accumulated at `j` in an inner loop (`z[j] +=`, a mutable row;
// its adjoint read at `j` in the reverse), rows that start past 0
// (`i..n`, `j - i`) and that are empty at the last iteration.
#[differentiable]
fn accumulate(x: &[f64]) -> f64 {
    let n = 4;
    let mut z = vec![0.0; n];
    for i in 0..n {
        for j in i..n {
            z[j] += x[j - i] * x[i + 4] + x[2 * i + j % 2];
        }
    }
    let mut s = 0.0;
    for j in 0..n {
        s += z[j].sin() * z[j];
    }
    s
}

#[differentiable]
fn accumulate_plain(x: &[f64]) -> f64 {
    let n = 4;
    let mut z = vec![0.0; n];
    for i in 0..n {
        for j in i..n {
            z[at(j)] += x[at(j - i)] * x[at(i + 4)] + x[at(2 * i + j % 2)];
        }
    }
    let mut s = 0.0;
    for j in 0..n {
        s += z[at(j)].sin() * z[at(j)];
    }
    s
}

twins!(an_accumulated_local_has_rows: accumulate, accumulate_grad, accumulate_adjoint;
       accumulate_plain, accumulate_plain_grad, accumulate_plain_adjoint);

// A pair loop over points of 3 coordinates read through subslices zipped
// together: the coordinates' loop, a few elements known from the
// subslices' lengths, gets no rows (a row check at every pair cost more
// than it saved); windows of 5 elements get rows.
#[differentiable]
fn pairs(x: &[f64]) -> f64 {
    let mut e = 0.0;
    let n = x.len() / 3;
    for i in 0..n {
        let pi = &x[3 * i..3 * i + 3];
        for j in (i + 1)..n {
            let pj = &x[3 * j..3 * j + 3];
            let r2: f64 = pi.iter().zip(pj).map(|(a, b)| (a - b) * (a - b)).sum();
            if r2 < 4.0 {
                e += (1.0 + r2).ln() * pi[0];
            }
        }
    }
    let m = x.len() - 4;
    for i in 0..m {
        let pi = &x[i..i + 5];
        for j in (i + 1)..m {
            let pj = &x[j..j + 5];
            let r2: f64 = pi.iter().zip(pj).map(|(a, b)| (a - b) * (a - b)).sum();
            e += r2.sqrt() * pj[1];
        }
    }
    e
}

#[differentiable]
fn pairs_plain(x: &[f64]) -> f64 {
    let mut e = 0.0;
    let n = x.len() / 3;
    for i in 0..n {
        for j in (i + 1)..n {
            let mut r2 = -0.0;
            for k in 0..3 {
                let (a, b) = (x[at(3 * i + k)], x[at(3 * j + k)]);
                r2 += (a - b) * (a - b);
            }
            if r2 < 4.0 {
                e += (1.0 + r2).ln() * x[at(3 * i)];
            }
        }
    }
    let m = x.len() - 4;
    for i in 0..m {
        for j in (i + 1)..m {
            let mut r2 = -0.0;
            for k in 0..5 {
                let (a, b) = (x[at(i + k)], x[at(j + k)]);
                r2 += (a - b) * (a - b);
            }
            e += r2.sqrt() * x[at(j + 1)];
        }
    }
    e
}

twins!(a_pair_loop_over_few_coordinates: pairs, pairs_grad, pairs_adjoint;
       pairs_plain, pairs_plain_grad, pairs_plain_adjoint);

// Second order: the rows of the `Dual` bodies of `f_hvp` and `f_hessian`.
#[differentiable(hessian)]
fn quadratic_form(x: &[f64]) -> f64 {
    let n = 4;
    let mut s = 0.0;
    for i in 0..n {
        let mut r = 0.0;
        for j in 0..n {
            r += x[i + j % 2] * x[j] * x[4 + j];
        }
        s += r * r;
    }
    s
}

#[test]
fn second_order_bodies_read_rows_too() {
    for x in POINTS {
        let (value, gradient, hessian) = quadratic_form_hessian(&x);
        let (v, g) = quadratic_form_grad(&x);
        assert_eq!(value, v);
        assert_eq!(gradient, g);
        let report = autograd::check::hessian(|p| quadratic_form_grad(p).1, &x, &hessian);
        assert!(report.is_ok(1e-6), "at {x:?}: {report}");
    }
}

/// `x[j - 1]` from `j = 0`: the row's first element would be at `0 - 1`,
/// which its checked arithmetic refuses, so the loop runs as written and
/// panics where the function does.
#[differentiable]
fn reads_before_the_start(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..2 {
        for j in 0..3 {
            s += x[j + i] * x[j - 1 + i];
        }
    }
    s
}

#[test]
#[should_panic(expected = "attempt to subtract with overflow")]
fn a_row_before_the_start_panics_as_the_function_does() {
    let _ = reads_before_the_start_grad(&[1.0, 2.0, 3.0, 4.0]);
}

#[test]
#[should_panic(expected = "attempt to subtract with overflow")]
fn the_function_panics_there_too() {
    let _ = reads_before_the_start(&[1.0, 2.0, 3.0, 4.0]);
}

/// A row whose bounds overflow `usize`: refused by its checked arithmetic;
/// the loop as written never reaches the index (it is past a branch).
#[differentiable]
fn overflowing_base(x: &[f64], far: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..2 {
        for j in 0..2 {
            if i > 5 {
                s += x[far * 2 + j];
            }
            s += x[i + j] * x[j];
        }
    }
    s
}

#[test]
fn a_row_that_would_overflow_is_not_taken() {
    let x = [1.0, 2.0, 3.0];
    let (value, gradient) = overflowing_base_grad(&x, usize::MAX);
    assert_eq!(value, overflowing_base(&x, usize::MAX));
    assert_eq!(gradient, overflowing_base_grad(&x, 0).1);
}

// A recorded inner loop, whose forward copy reads rows (`w` at `i * 2 + j`,
// `h` at `j`) and whose reverse counts down (`(0..n).rev()`, which gets no
// rows: on the bench suite they cost more than they saved, BENCHMARKS.md).
#[differentiable]
fn counted_down(w: &[f64]) -> f64 {
    let n = 2 + w.len() % 2;
    let mut h = vec![0.0; n];
    let mut s = 0.0;
    for i in 0..3 {
        for j in 0..n {
            h[j] = (w[i * 2 + j] * s + w[j]).tanh();
            s += h[j] * h[j];
        }
    }
    s
}

#[differentiable]
fn counted_down_plain(w: &[f64]) -> f64 {
    let n = 2 + w.len() % 2;
    let mut h = vec![0.0; n];
    let mut s = 0.0;
    for i in 0..3 {
        for j in 0..n {
            h[at(j)] = (w[at(i * 2 + j)] * s + w[at(j)]).tanh();
            s += h[at(j)] * h[at(j)];
        }
    }
    s
}

twins!(a_recorded_loop_reversed_counting_down_agrees: counted_down, counted_down_grad,
       counted_down_adjoint; counted_down_plain, counted_down_plain_grad,
       counted_down_plain_adjoint);

// Indices counting down (`c.iter().rev()` lowers to `c[n - 1 - k]`): a row
// of their own, read at `n - 1 - k`, both in the loop counting up and in its
// reverse, which counts down and then reads the row upwards. Horner's
// carried `p` is also where the reverse sets the cell's adjoint instead of
// adding it to a zero (`Body::zeroed`).
#[differentiable(wrt(c))]
fn horner(c: &[f64]) -> f64 {
    let xs = [0.5, -1.25, 0.75, 2.0, -0.4, 1.1];
    let mut sse = 0.0;
    for (k, x) in xs.iter().enumerate() {
        let mut p = 0.0;
        for coef in c.iter().rev() {
            p = p * x + coef;
        }
        let r = p - 0.1 * k as f64;
        sse += r * r;
    }
    let n = c.len();
    let mut q = 0.0;
    for k in (0..n).rev() {
        q = q * 0.5 + c[n - 1 - k] * c[k];
    }
    sse + q
}

#[differentiable(wrt(c))]
fn horner_plain(c: &[f64]) -> f64 {
    let xs = [0.5, -1.25, 0.75, 2.0, -0.4, 1.1];
    let mut sse = 0.0;
    let n = c.len();
    for (k, x) in xs.iter().enumerate() {
        let mut p = 0.0;
        for j in 0..n {
            p = p * x + c[at(n - 1 - j)];
        }
        let r = p - 0.1 * k as f64;
        sse += r * r;
    }
    let mut q = 0.0;
    for k in (0..n).rev() {
        q = q * 0.5 + c[at(n - 1 - k)] * c[at(k)];
    }
    sse + q
}

twins!(indices_counting_down_read_rows: horner, horner_grad, horner_adjoint;
       horner_plain, horner_plain_grad, horner_plain_adjoint);

/// `x[n - 2 - k]` up to `k = n - 1`: the row would start at `0 - 1`, which
/// its checked arithmetic refuses, so the loop runs as written and panics
/// where the function does.
#[differentiable]
fn counts_down_past_the_start(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for k in 0..n {
        s += x[n - 2 - k] * x[k];
    }
    s
}

#[test]
#[should_panic(expected = "attempt to subtract with overflow")]
fn a_row_counting_down_past_the_start_panics_as_the_function_does() {
    let _ = counts_down_past_the_start_grad(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
}

#[test]
#[should_panic(expected = "attempt to subtract with overflow")]
fn the_function_counting_down_panics_there_too() {
    let _ = counts_down_past_the_start(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
}

// Columns: `v[j * d + c]` steps by `d` as `j` counts up. The forward sweep
// reads a column of `v` checked once before the loop
// (`__private::strided`), the reverse writes one of `d_v`; a column from
// `lo = 1` with the stride on the left, `v[d * j + 1]`, too.
#[differentiable(wrt(v))]
fn columns(v: &[f64]) -> f64 {
    let (t, d) = (v.len() / 2, 2);
    let w = [0.5, -1.0, 1.5, 0.25];
    let mut out = 0.0;
    for c in 0..d {
        let mut o = 0.0;
        for j in 0..t {
            o += w[j] * v[j * d + c];
        }
        out += o * o;
    }
    for j in 1..t {
        out += v[d * j + 1].sin();
    }
    out
}

#[differentiable(wrt(v))]
fn columns_plain(v: &[f64]) -> f64 {
    let (t, d) = (v.len() / 2, 2);
    let w = [0.5, -1.0, 1.5, 0.25];
    let mut out = 0.0;
    for c in 0..d {
        let mut o = 0.0;
        for j in 0..t {
            o += w[at(j)] * v[at(j * d + c)];
        }
        out += o * o;
    }
    for j in 1..t {
        out += v[at(d * j + 1)].sin();
    }
    out
}

twins!(strided_indices_read_columns: columns, columns_grad, columns_adjoint;
       columns_plain, columns_plain_grad, columns_plain_adjoint);

/// `x[j * 3]` up to `j = 3` of 8 elements: the column's last element would
/// be at 9, so the loop runs as written and panics where the function does.
#[differentiable]
fn column_past_the_end(x: &[f64]) -> f64 {
    let t = x.len() / 2;
    let mut s = 0.0;
    for j in 0..t {
        s += x[j * 3] * x[j];
    }
    s
}

#[test]
#[should_panic(expected = "index out of bounds: the len is 8 but the index is 9")]
fn a_column_past_the_end_panics_as_the_function_does() {
    let _ = column_past_the_end_grad(&[1.0; 8]);
}

#[test]
#[should_panic(expected = "index out of bounds: the len is 8 but the index is 9")]
fn the_function_panics_past_the_column_too() {
    let _ = column_past_the_end(&[1.0; 8]);
}
