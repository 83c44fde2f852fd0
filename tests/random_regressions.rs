//! Minimized regression tests for what the randomized differential tester
//! (`tests/random_programs.rs`) found. Each function is checked against the
//! tape (the same body on `Var`s, written out below) and central finite
//! differences, and `_adjoint` against `_grad` with pre-filled buffers.

#![allow(
    clippy::all,
    unused_braces,
    unused_mut,
    unused_variables,
    unused_assignments
)]

mod common;

use autograd::differentiable;
use autograd::tape::{Tape, Var};
use common::{check_gradient_and_adjoint, on_tape};

#[track_caller]
fn assert_close(a: &[f64], b: &[f64]) {
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() <= 1e-12 * (1.0 + y.abs()), "{a:?} vs {b:?}");
    }
}

const SCALE: f64 = 0.75;

// seed 855949305 #91: constants whose type the macro cannot see (`-(-SCALE)`,
// a block) went to differentiated parameters without a slot.
#[differentiable]
fn three(b: f64, xs: f64, value: f64) -> f64 {
    b * xs - value * xs
}

#[differentiable]
fn unseen_constants(q: f64) -> f64 {
    three(q, { std::f64::consts::E }, -(-SCALE)) + three(1.5, q, SCALE)
}

#[test]
fn constants_of_unseen_type_to_differentiated_parameters() {
    let x = [0.7];
    let tape = on_tape(
        |_, v| {
            let q = v[0];
            (q * std::f64::consts::E - SCALE * std::f64::consts::E) + (q * 1.5 - q * SCALE)
        },
        &x,
    );
    let (value, d) = unseen_constants_grad(x[0]);
    assert_eq!(value, tape.0);
    assert_close(&[d], &tape.1);
}

// seed 855949305 #1399: a float set to a literal in a loop (`d = 0.75;`)
// was emitted without its type, and `(d * d).ln_1p()` did not compile.
#[differentiable]
fn float_set_to_a_literal(w: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in w {
        let mut d = core::f64::consts::LN_2;
        d = 0.75;
        d = (d * d).ln_1p().max(0.5_f64) * v;
        s += d;
    }
    s
}

#[test]
fn a_float_set_to_a_literal_keeps_its_type() {
    check_gradient_and_adjoint(
        float_set_to_a_literal,
        float_set_to_a_literal_grad,
        float_set_to_a_literal_adjoint,
        &[[0.3, -0.4], [1.1, 0.2]],
    );
}

// seed 855949305 #868: a wrt callee with float constants on both sides of a
// varied array: the slots of different kinds tell the callee's shape.
#[differentiable(wrt(p, t0))]
fn wrt_array_and_last(q: f64, p: &[f64], t0: f64) -> f64 {
    q * p[0] * t0
}

#[differentiable]
fn constants_around_a_varied_array(x: f64) -> f64 {
    let e = x * x + 1.75;
    wrt_array_and_last(1.75, &[e], 1.5) + x
}

#[test]
fn constants_around_a_varied_array_to_a_wrt_callee() {
    check_gradient_and_adjoint(
        |p| constants_around_a_varied_array(p[0]),
        |p| {
            let (v, d) = constants_around_a_varied_array_grad(p[0]);
            (v, vec![d])
        },
        |p, d_out, d| {
            let mut dx = d[0];
            let v = constants_around_a_varied_array_adjoint(p[0], d_out, &mut dx);
            d[0] = dx;
            v
        },
        &[[0.3], [-1.2]],
    );
}

// seed 855949305 #1828: a literal array holding a parameter that is not
// differentiated went to a parameter the callee differentiates.
#[differentiable]
fn mixed(y: &[f64; 1], w: [f64; 3], value: f64) -> f64 {
    y[0] * w[1] + value * w[0]
}

#[differentiable(wrt(xs))]
fn literal_array_with_data(xs: &[f64], p: f64) -> f64 {
    mixed(
        &[2.0_f64.max(1.0)],
        [SCALE / ((p - 0.5).abs() + 0.5), p, 0.0],
        xs[0] * xs[1],
    )
}

#[test]
fn a_literal_array_of_data_to_a_differentiated_parameter() {
    let p = 0.3;
    check_gradient_and_adjoint(
        |x| literal_array_with_data(x, p),
        |x| literal_array_with_data_grad(x, p),
        |x, d_out, d| literal_array_with_data_adjoint(x, p, d_out, d),
        &[[0.4, 0.9], [-1.3, 0.2]],
    );
}

// seed 855949305 #806: the index of `for (t0, v) in t0.iter().enumerate()`
// shadowed the collection it reads.
#[differentiable]
fn enumerate_shadows(m: f64, t0: [f64; 2]) -> f64 {
    let mut s = 0.0;
    for (t0, x) in t0.iter().enumerate() {
        s += x * m * (t0 + 1) as f64;
    }
    s
}

#[test]
fn an_enumerate_index_named_like_the_collection() {
    check_gradient_and_adjoint(
        |p| enumerate_shadows(p[0], [p[1], p[2]]),
        |p| {
            let (v, (dm, dt)) = enumerate_shadows_grad(p[0], [p[1], p[2]]);
            (v, vec![dm, dt[0], dt[1]])
        },
        |p, d_out, d| {
            let (mut dm, mut dt) = (d[0], [d[1], d[2]]);
            let v = enumerate_shadows_adjoint(p[0], [p[1], p[2]], d_out, &mut dm, &mut dt);
            d.copy_from_slice(&[dm, dt[0], dt[1]]);
            v
        },
        &[[0.3, 0.5, -0.7]],
    );
}

// seed 855949305 #1044: what follows an `if` that may return was moved into
// its branch, after a `let` that shadowed a name it reads.
#[differentiable(wrt(t, w))]
fn shadow_before_return(t: f64, w: [f64; 2], xs: &[f64]) -> f64 {
    if t * w[0] > xs[0] {
        let mut w = (t - t).tanh();
        if t > 1.5 {
            return w * t;
        }
    }
    w[1] * t.sin()
}

#[test]
fn a_shadowing_let_before_a_return_does_not_capture_the_rest() {
    let xs = [0.1];
    for p in [[0.3_f64, 0.5, -0.7], [2.0, 0.5, 0.3], [-1.0, 0.4, 0.2]] {
        let w = [p[1], p[2]];
        let t = p[0];
        let expected = if t * w[0] > xs[0] && t > 1.5 {
            0.0
        } else {
            w[1] * t.sin()
        };
        assert_eq!(shadow_before_return(t, w, &xs), expected);
    }
    check_gradient_and_adjoint(
        |p| shadow_before_return(p[0], [p[1], p[2]], &xs),
        |p| {
            let (v, (dt, dw)) = shadow_before_return_grad(p[0], [p[1], p[2]], &xs);
            (v, vec![dt, dw[0], dw[1]])
        },
        |p, d_out, d| {
            let (mut dt, mut dw) = (d[0], [d[1], d[2]]);
            let v = shadow_before_return_adjoint(p[0], [p[1], p[2]], &xs, d_out, &mut dt, &mut dw);
            d.copy_from_slice(&[dt, dw[0], dw[1]]);
            v
        },
        &[[0.3, 0.5, -0.7], [2.0, 0.5, 0.3], [-1.0, 0.4, 0.2]],
    );
}

// seed 855949305 #797: the same through a bare block that may return (a
// loop's `if` returns), whose `let t1 = 0` captured the `t1` after it.
#[differentiable(wrt(m))]
fn shadow_in_a_block_before_return(m: f64, xs: &[f64]) -> f64 {
    let t1 = -m;
    if m > 0.0 {
        {
            let mut t1 = 0;
            while t1 < 3 {
                t1 += 1;
                if xs[0] > 2.0 {
                    return m * m;
                }
            }
        }
    }
    (0.5 - t1) * m.cos()
}

#[test]
fn a_shadowing_let_in_a_block_that_may_return() {
    for xs in [[0.5], [3.0]] {
        check_gradient_and_adjoint(
            |p| shadow_in_a_block_before_return(p[0], &xs),
            |p| {
                let (v, d) = shadow_in_a_block_before_return_grad(p[0], &xs);
                (v, vec![d])
            },
            |p, d_out, d| {
                let mut dm = d[0];
                let v = shadow_in_a_block_before_return_adjoint(p[0], &xs, d_out, &mut dm);
                d[0] = dm;
                v
            },
            &[[0.3], [-1.2]],
        );
    }
}

// From the tester's first report (tests/random_programs/FINDINGS.md, B.6,
// B.7, B.9): a `return` inside a bare block; a `let` in an `else` when the
// other arm returns; one array passed to two array parameters.
#[differentiable]
#[allow(unreachable_code)]
fn return_in_a_bare_block(q: f64) -> f64 {
    {
        return q / 2.0;
    }
    1.0
}

#[differentiable]
fn let_in_else_when_then_returns(x: f64, e: f64) -> f64 {
    if x > 100.0 {
        return 0.5;
    } else {
        let e = 1.0;
    }
    e * x
}

#[differentiable]
fn two_array_parameters(q: &[f64; 3], p: &[f64]) -> f64 {
    q[0] * p[1] + q[2]
}

#[differentiable]
fn one_array_twice(a: [f64; 3], w: &[f64]) -> f64 {
    two_array_parameters(&a, &a) + two_array_parameters(&a, w) * w[0]
}

#[test]
fn returns_in_blocks_lets_in_else_and_arrays_passed_twice() {
    assert_eq!(return_in_a_bare_block_grad(0.5), (0.25, 0.5));
    assert_eq!(
        let_in_else_when_then_returns_grad(0.5, 0.25),
        (0.125, (0.25, 0.5))
    );
    assert_eq!(
        let_in_else_when_then_returns_grad(200.0, 0.25),
        (0.5, (0.0, 0.0))
    );
    let w = [0.5, -1.5, 2.0];
    check_gradient_and_adjoint(
        |p| one_array_twice([p[0], p[1], p[2]], &w),
        |p| {
            let (v, (da, _)) = one_array_twice_grad([p[0], p[1], p[2]], &w);
            (v, da.to_vec())
        },
        |p, d_out, d| {
            let (mut da, mut dw) = ([d[0], d[1], d[2]], [0.0; 3]);
            let v = one_array_twice_adjoint([p[0], p[1], p[2]], &w, d_out, &mut da, &mut dw);
            d.copy_from_slice(&da);
            v
        },
        &[[0.3, 0.5, -0.7], [1.1, -0.2, 0.4]],
    );
}

// seed 948039181 #778: a local first set by a call with constant arguments
// (of a type the macro cannot see), then accumulated in a loop, kept its
// first value's "constant" kind: the loop's derivatives through it were lost.
#[differentiable]
fn helper(n: usize, q: f64) -> f64 {
    let u = (-q).floor();
    -(u * u).ln_1p() * u.cos() - q * n as f64
}

fn count(n: usize) -> usize {
    n + 1
}

#[differentiable(wrt(xs))]
fn accumulate_from_a_constant_call(n: usize, xs: &[f64]) -> f64 {
    let mut r = helper(n, 2.0);
    // An integer set by a call and assigned later stays an integer.
    let mut k = count(n);
    for &x in xs {
        r += (xs[1] + 4.0 + helper(n, r)).ln() * x;
        k += 1;
    }
    r * k as f64
}

#[test]
fn a_local_first_set_by_a_constant_call() {
    check_gradient_and_adjoint(
        |p| accumulate_from_a_constant_call(1, p),
        |p| accumulate_from_a_constant_call_grad(1, p),
        |p, d_out, d| accumulate_from_a_constant_call_adjoint(1, p, d_out, d),
        &[[0.36, 0.09, 1.01], [0.5, 1.2, -0.3]],
    );
}

// seed 948039181 #220, #823, #1129: constants the macro could not type went
// to differentiated parameters: an array literal of a constant item
// (`[SCALE]`), an `if` whose branches are float literals; and a local
// `[f64; 1]` array of a call with constant arguments was taken for a tuple.
#[differentiable]
fn three_kinds(value: [f64; 1], z: f64, a: &[f64; 3]) -> f64 {
    value[0] * z + a[0] * a[2]
}

#[differentiable(wrt(d_x))]
fn half(d_x: f64) -> f64 {
    d_x / 2.0
}

#[differentiable]
fn untyped_constants(m: &[f64]) -> f64 {
    let s: [f64; 1] = [half(std::f64::consts::FRAC_1_SQRT_2)];
    let a = three_kinds(
        [SCALE],
        if m.len() > 3 { 1.25 } else { 2.0 },
        &[m[0], 0.5, m[1]],
    );
    a * s[0] + three_kinds([m[1]], s.len() as f64, &[SCALE, m[0], 1.0])
}

#[test]
fn constants_the_macro_cannot_type() {
    let h = std::f64::consts::FRAC_1_SQRT_2 / 2.0;
    for m in [[0.3_f64, -0.8], [1.5, 0.25]] {
        let expected = (SCALE * 2.0 + m[0] * m[1]) * h + (m[1] + SCALE);
        assert_eq!(untyped_constants(&m), expected);
    }
    check_gradient_and_adjoint(
        untyped_constants,
        untyped_constants_grad,
        untyped_constants_adjoint,
        &[[0.3, -0.8], [1.5, 0.25]],
    );
}

// FINDINGS.md B.15: `let mut c = [OFFSET];` (a constant the macro cannot
// type) is a local array, typed by its elements: a float one here, an
// integer one (indices) below.
const OFFSET: f64 = 0.5;
const FIRST: usize = 1;

#[differentiable]
fn array_of_an_untyped_constant(x: f64, w: &[f64]) -> f64 {
    let mut c = [OFFSET];
    c[0] += x;
    let at = [FIRST, 0];
    c[0] * x + w[at[0]] * w[at[1]]
}

#[test]
fn arrays_of_constants_of_unseen_type() {
    let w = [0.25, -1.5];
    check_gradient_and_adjoint(
        |p| array_of_an_untyped_constant(p[0], &[p[1], p[2]]),
        |p| {
            let (v, (dx, dw)) = array_of_an_untyped_constant_grad(p[0], &[p[1], p[2]]);
            (v, vec![dx, dw[0], dw[1]])
        },
        |p, d_out, d| {
            let (mut dx, mut dw) = (d[0], [d[1], d[2]]);
            let v =
                array_of_an_untyped_constant_adjoint(p[0], &[p[1], p[2]], d_out, &mut dx, &mut dw);
            d.copy_from_slice(&[dx, dw[0], dw[1]]);
            v
        },
        &[[2.0, w[0], w[1]], [-0.3, 0.7, 0.1]],
    );
}

// seed 665854637 #1046: a parameter's element read before a loop and again
// in it (one value: parameters do not change) was stored inside the loop;
// the store's adjoint went to a local declared inside the loop's reverse,
// out of scope where the first read's reverse needed it.
#[differentiable]
fn element_stored_in_a_nested_loop(m: f64, q: &[f64; 3]) -> f64 {
    let mut r: [f64; 2] = [q[q.len() - 1], q[2] / 2.0];
    let mut i = 0;
    while i < 2 {
        i += 1;
        for _ in 0..i {
            r[0] = q[q.len() - 1];
            if m > 5.0 {
                return q[0];
            }
        }
    }
    r[0] * r[1] * m.cos()
}

#[test]
fn an_element_stored_in_a_nested_loop() {
    check_gradient_and_adjoint(
        |p| element_stored_in_a_nested_loop(p[0], &[p[1], p[2], p[3]]),
        |p| {
            let (v, (dm, dq)) = element_stored_in_a_nested_loop_grad(p[0], &[p[1], p[2], p[3]]);
            (v, vec![dm, dq[0], dq[1], dq[2]])
        },
        |p, d_out, d| {
            let (mut dm, mut dq) = (d[0], [d[1], d[2], d[3]]);
            let v = element_stored_in_a_nested_loop_adjoint(
                p[0],
                &[p[1], p[2], p[3]],
                d_out,
                &mut dm,
                &mut dq,
            );
            d.copy_from_slice(&[dm, dq[0], dq[1], dq[2]]);
            v
        },
        &[[0.3, 0.5, -0.7, 1.2], [6.0, 0.4, 0.2, -0.3]],
    );
}

// ----- issue 15: idiomatic Rust (found by the extended generator) -----------

// seed 14 #147 (and nine more of the fixed batch): a `filter` closure that
// reads a tuple local's field; seed 14 #178: `w.len()` (and `w[i]`) of a
// window inside a `filter` closure; seed 14 #84: `.take(..)` before
// `.zip(2..)` (a length of ambiguous integer type in the expansion).
#[differentiable]
fn filter_reads_tuple_field(x: f64, xs: &[f64]) -> f64 {
    let p = (x, 2.0 * x);
    xs.iter().filter(|&v| p.0 < *v).sum::<f64>() * p.1
}

#[differentiable]
fn filter_reads_windows(a: &[f64]) -> f64 {
    let none = a.windows(1).filter(|w| 1 > w.len()).count() as f64;
    let rising = a.windows(2).filter(|w| w[0] < w[1]).count() as f64;
    none * a[0] + rising * a[1]
}

#[differentiable]
fn take_then_zip_range_from(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for (x, k) in xs[..2].iter().skip(0).take(1).zip(2..) {
        s += x * k as f64;
    }
    s + xs[2]
}

#[test]
fn idiomatic_chains_found_by_the_generator() {
    let xs = [0.2, 0.7, 1.5];
    check_gradient_and_adjoint(
        |p| filter_reads_tuple_field(p[0], &xs),
        |p| {
            let (v, (dx, _)) = filter_reads_tuple_field_grad(p[0], &xs);
            (v, vec![dx])
        },
        |p, d_out, d| {
            let (mut dx, mut dxs) = (d[0], [0.0; 3]);
            let v = filter_reads_tuple_field_adjoint(p[0], &xs, d_out, &mut dx, &mut dxs);
            d[0] = dx;
            v
        },
        &[[0.5], [-0.3]],
    );
    assert_eq!(
        filter_reads_tuple_field_grad(0.5, &xs).1 .1,
        vec![0.0, 1.0, 1.0]
    );
    check_gradient_and_adjoint(
        filter_reads_windows,
        filter_reads_windows_grad,
        filter_reads_windows_adjoint,
        &[[0.1, 0.3, 0.2], [0.5, 0.4, 0.9]],
    );
    check_gradient_and_adjoint(
        take_then_zip_range_from,
        take_then_zip_range_from_grad,
        take_then_zip_range_from_adjoint,
        &[[0.5, 2.0, 3.0]],
    );
}

// seed 823623007 #400 (and 13 more): an adaptor's index expression was
// substituted into another's without parentheses (`rev().skip(2)` read
// element `n - 1 - k + 2`): a panic, index out of bounds.
#[differentiable]
fn rev_then_skip(v: &[f64; 3]) -> f64 {
    let a: f64 = v.iter().rev().skip(2).map(|x| *x * 2.0).sum();
    let b: f64 = v
        .iter()
        .rev()
        .step_by(2)
        .zip(1..)
        .map(|(x, k)| x * k as f64)
        .sum();
    let w = &v[1 + 0..v.len()];
    a + b + w.iter().product::<f64>() * w.len() as f64
}

#[test]
fn adaptor_indices_keep_their_parentheses() {
    let v = [1.0, 2.0, 3.0];
    assert_eq!(rev_then_skip(&v), 2.0 + (3.0 + 2.0) + 6.0 * 2.0);
    check_gradient_and_adjoint(
        |p| rev_then_skip(&[p[0], p[1], p[2]]),
        |p| {
            let (value, d) = rev_then_skip_grad(&[p[0], p[1], p[2]]);
            (value, d.to_vec())
        },
        |p, d_out, d| {
            let mut dv = [d[0], d[1], d[2]];
            let value = rev_then_skip_adjoint(&[p[0], p[1], p[2]], d_out, &mut dv);
            d.copy_from_slice(&dv);
            value
        },
        &[[1.0, 2.0, 3.0], [-0.5, 0.3, 1.2]],
    );
}

// seed 823623007 #381 (and 9 more): `f64::sin_cos` of a constant became
// `(1.5 * 0.75).sin()`, an ambiguous `{float}`.
#[differentiable]
fn sin_cos_of_a_constant(x: f64) -> f64 {
    let (s, c) = f64::sin_cos(1.5 * 0.75);
    let (t, u) = x.sin_cos();
    s * t + c * u
}

#[test]
fn sin_cos_of_a_constant_is_typed() {
    let (value, d) = sin_cos_of_a_constant_grad(0.4);
    assert_eq!(value, sin_cos_of_a_constant(0.4));
    let (s, c) = (1.125_f64).sin_cos();
    assert!((d - (s * 0.4_f64.cos() - c * 0.4_f64.sin())).abs() < 1e-15);
}

// seed 823623007 #559: a method of a constant part of a typed tuple local
// (`let i: (f64, f64) = (2.25, 1.5); i.0.sin()`) became `2.25.sin()`.
#[differentiable]
fn method_of_a_tuple_constant(m: f64) -> f64 {
    let i: (f64, f64) = (2.25, 1.5);
    i.0.sin() * m + i.1.powi(2) * m.cos()
}

#[test]
fn methods_of_constant_tuple_parts_are_typed() {
    let (value, d) = method_of_a_tuple_constant_grad(0.3);
    assert_eq!(value, method_of_a_tuple_constant(0.3));
    assert!((d - (2.25_f64.sin() - 2.25 * 0.3_f64.sin())).abs() < 1e-15);
}

// seed 823623007 #205 (and #434, #993): a `chunks_exact` element (a view)
// passed to a function was refused; so was a subslice bound to a local.
#[differentiable]
fn sum_of(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() * v[0]
}

#[differentiable]
fn views_as_arguments(x: &[f64]) -> f64 {
    let tail = &x[1..];
    let chunks: f64 = x.chunks_exact(2).rev().map(|c| sum_of(c)).sum();
    chunks + sum_of(tail) + x.windows(3).map(sum_of).sum::<f64>()
}

#[test]
fn views_passed_to_functions() {
    check_gradient_and_adjoint(
        views_as_arguments,
        views_as_arguments_grad,
        views_as_arguments_adjoint,
        &[[0.3, -0.7, 1.1, 0.4], [1.5, 0.2, -0.3, 0.9]],
    );
}

// seed 823623007 #543 (and #56): `*r` of an `iter_mut` element read inside
// an `if` condition (E0425 in the expansion).
#[differentiable]
fn iter_mut_element_in_a_condition(ys: &[f64], q: f64) -> f64 {
    let mut acc: [f64; 3] = [0.0; 3];
    for (i, r) in acc.iter_mut().skip(1).enumerate() {
        *r = 1.75 + i as f64 + (if ys[0] > q && *r < 1.75 { q } else { 0.75 });
    }
    acc[1] + acc[2] * q
}

#[test]
fn an_iter_mut_element_read_in_a_condition() {
    let ys = [1.0];
    assert_eq!(iter_mut_element_in_a_condition(&ys, 0.5), 2.25 + 3.25 * 0.5);
    check_gradient_and_adjoint(
        |p| iter_mut_element_in_a_condition(&ys, p[0]),
        |p| {
            let (v, (_, dq)) = iter_mut_element_in_a_condition_grad(&ys, p[0]);
            (v, vec![dq])
        },
        |p, d_out, d| {
            let (mut dys, mut dq) = ([0.0], d[0]);
            let v = iter_mut_element_in_a_condition_adjoint(&ys, p[0], d_out, &mut dys, &mut dq);
            d[0] = dq;
            v
        },
        &[[0.5], [2.0]],
    );
}

// seed 943645330 #1476: a constant call of unseen type (`h0(1.0, 2.25, q)`,
// an `f64`) passed to a differentiated parameter got no slot (E0061).
#[differentiable]
fn h_three(g: f64, q: f64, e: usize) -> f64 {
    g * q + e as f64
}

#[differentiable]
fn constant_call_argument(q: usize, g: f64) -> f64 {
    h_three(g, h_three(1.0, 2.25, q), q)
}

#[test]
fn a_constant_call_as_an_argument() {
    let (q, g) = (2, 0.5);
    assert_eq!(constant_call_argument(q, g), 0.5 * 4.25 + 2.0);
    check_gradient_and_adjoint(
        |p| constant_call_argument(q, p[0]),
        |p| {
            let (v, dg) = constant_call_argument_grad(q, p[0]);
            (v, vec![dg])
        },
        |p, d_out, d| {
            let mut dg = d[0];
            let v = constant_call_argument_adjoint(q, p[0], d_out, &mut dg);
            d[0] = dg;
            v
        },
        &[[0.5], [-1.5]],
    );
    assert_eq!(constant_call_argument_grad(q, g).1, 4.25);
}

// seed 943645330 #753, #1468: a local (`r`, `n0`) shadowed by a `let mut`
// in a block inside a loop, which the block assigns, was taken for the
// outer local changed by the loop (E0425; a closure local lost).
#[differentiable]
fn shadowed_in_a_loop(q: &[f64; 3]) -> f64 {
    let r: (f64, f64) = (-1.75, 2.0);
    let sq = |t: f64| t * q[1];
    let mut s = 0.0;
    for a in q.iter() {
        {
            let mut r = 0;
            let mut sq = 0;
            while r < 2 {
                r += 1;
                sq += r;
            }
        }
        s += sq(sq(*a));
    }
    r.1 * q[0] + s
}

#[test]
fn a_shadowing_local_assigned_in_a_loop() {
    let q = [0.5, 1.5, -2.0];
    let tape = on_tape(
        |_, v| {
            let mut s = v[0] * v[1] * v[1];
            s = s + v[1] * v[1] * v[1];
            s = s + v[2] * v[1] * v[1];
            v[0] * 2.0 + s
        },
        &q,
    );
    let (value, d) = shadowed_in_a_loop_grad(&q);
    assert_eq!(value, shadowed_in_a_loop(&q));
    assert!((value - tape.0).abs() < 1e-12);
    assert_close(&d, &tape.1);
}

// seed 943645330 #1050, #1250: a float constant part of a tuple local
// (`seed.1`) read in a condition was a bare `{float}` literal (E0689).
#[differentiable]
fn tuple_constant_part_in_a_condition(xs: f64) -> f64 {
    let seed: (f64, f64) = (0.5, 1.5);
    let mut e = 0.0;
    if seed.1.atan() > xs {
        e = xs * seed.0;
    }
    e
}

#[test]
fn a_tuple_constant_part_in_a_condition() {
    assert_eq!(tuple_constant_part_in_a_condition_grad(0.25), (0.125, 0.5));
    assert_eq!(tuple_constant_part_in_a_condition_grad(1.25), (0.0, 0.0));
}

// seed 943645330 #947: a closure parameter (an integer range element)
// named like a float local assigned later in the function (`j`) was taken
// for a float (E0600 on `-((j + 1) as f64)`).
#[differentiable]
fn range_element_named_like_a_float(p: usize, y: f64) -> f64 {
    let (mut j, k) = (1.0, (0..p).map(|j| -((j + 1) as f64) * y).sum::<f64>());
    j = y.tanh();
    j + k
}

#[test]
fn a_range_element_named_like_a_float_local() {
    let y = 0.3;
    let (value, d) = range_element_named_like_a_float_grad(3, y);
    assert_eq!(value, range_element_named_like_a_float(3, y));
    let exact = (1.0 - y.tanh() * y.tanh()) - 6.0;
    assert!((d - exact).abs() < 1e-12, "{d} vs {exact}");
}

// seed 943645330 #1162: a `fold` whose accumulator is named like a local
// the `map` before it reads (`tmp`): the map's closure read the accumulator
// ("an `f64` cannot be indexed").
#[differentiable]
fn fold_accumulator_shadows_a_capture(q: &[f64], a: usize) -> f64 {
    let mut tmp: [f64; 4] = [0.5; 4];
    tmp[1] += q
        .iter()
        .map(|k| k + tmp[a])
        .fold(0.0_f64, |tmp, c| tmp - c * c);
    tmp[1]
}

#[test]
fn a_fold_accumulator_named_like_a_capture() {
    let q = [0.3, 0.7];
    let (value, d) = fold_accumulator_shadows_a_capture_grad(&q, 1);
    assert_eq!(value, fold_accumulator_shadows_a_capture(&q, 1));
    assert_close(&d, &[-2.0 * 0.8, -2.0 * 1.2]);
}

// seed 943645330 #1266: a subslice view used whole in a condition
// (`value.get(1)` of a `chunks` element) was not renamed (E0425).
#[differentiable]
fn view_used_whole_in_a_condition(y: [f64; 3], w: f64) -> f64 {
    let mut s = 0.0;
    for value in y.chunks(2) {
        for &grad in value {
            if value.get(1).cloned().unwrap_or(w) > 2.0 {
                s += grad * w;
            }
        }
    }
    let v = &y[1..];
    if v.get(1).cloned().unwrap_or(w) > 2.0 {
        s += w;
    }
    s * w
}

#[test]
fn a_view_used_whole_in_a_condition() {
    let (value, (dy, dw)) = view_used_whole_in_a_condition_grad([1.0, 3.0, 4.0], 1.5);
    assert_eq!(value, 11.25);
    assert_eq!((dy, dw), ([2.25, 2.25, 0.0], 15.0));
}

// seed 823623007 #434: a subslice of a view (`&d_x[0..1]` of a `windows`
// element) passed to a function was refused.
#[differentiable]
fn square_first(e: &[f64]) -> f64 {
    e[0] * e[0]
}

#[differentiable]
fn subslice_of_a_view_to_a_function(v0: &[f64], w: f64) -> f64 {
    let a = v0
        .windows(2)
        .map(|d_x| w * square_first(&d_x[0..1]))
        .sum::<f64>();
    let b = v0
        .windows(2)
        .filter(|&k| w < 2.0)
        .map(|d_x| w * square_first(&d_x[1..]))
        .product::<f64>();
    a + b
}

#[test]
fn a_subslice_of_a_view_passed_to_a_function() {
    let v0 = [1.0, 2.0, 3.0];
    let (w0, w) = (1.5, 1.5_f64);
    let (value, (dv, dw)) = subslice_of_a_view_to_a_function_grad(&v0, w0);
    // a = w (v0² + v1²), b = w² v1² v2²
    assert_eq!(value, w * 5.0 + w * w * 36.0);
    assert_close(
        &dv,
        &[
            2.0 * w,
            2.0 * w * 2.0 + w * w * 2.0 * 2.0 * 9.0,
            w * w * 4.0 * 6.0,
        ],
    );
    assert!((dw - (5.0 + 2.0 * w * 36.0)).abs() < 1e-12);
}

// seed 342128111 #1795: forward mode (one `f64` input) multiplied the
// infinite partial of `acosh` at 1 by the zero tangent of a sum over an
// empty range: NaN, where the reverse sweep, the tape and finite
// differences give 0. A singular rule's tangent terms keep a zero tangent
// zero (`__private::tangent_term`).
#[differentiable]
fn singular_partial_of_a_constant(ys: f64) -> f64 {
    let e: f64 = ((0..0).map(|_| ys).sum::<f64>() + 0.5 + 0.5).acosh();
    let r: f64 = ((1..1).map(|_| ys * 2.0).sum::<f64>()).sqrt();
    e + r + ys
}

#[test]
fn a_singular_partial_of_a_value_that_does_not_depend_on_the_input() {
    assert_eq!(singular_partial_of_a_constant_grad(1.5), (1.5, 1.0));
    let mut d = 0.25;
    assert_eq!(
        singular_partial_of_a_constant_adjoint(1.5, 2.0, &mut d),
        1.5
    );
    assert_eq!(d, 2.25);
}

// seed 342128111 #1718 (and #1445, #1825): `v.to_vec()` of a `windows`
// element, `x[1..3].to_vec()`, `(&x[..2]).to_vec()` and the copy of a local
// `&x[1..]` were refused ("a subslice cannot be used as a number here").
#[differentiable]
fn subslice_copies(tmp: &[f64; 4], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (v, result) in tmp.windows(3).zip(tmp.iter().copied().skip(1)) {
        let mut n0 = v.to_vec();
        n0[0] *= result;
        s += n0[0] + n0[2];
    }
    let b = x[1..3].to_vec();
    let c = (&x[..2]).to_vec();
    let w = &x[1..];
    let d = w.to_vec();
    s * b[1] + c[0] * d[0]
}

#[test]
fn copies_of_subslices() {
    let t = [0.5, 1.5, -0.7, 2.0];
    let x = [0.3, 1.2, -0.4];
    let (value, (dt, dx)) = subslice_copies_grad(&t, &x);
    assert_eq!(value, subslice_copies(&t, &x));
    // s = t0 t1 + t2 + t1 t2 + t3, f = s x2 + x0 x1
    let s = t[0] * t[1] + t[2] + t[1] * t[2] + t[3];
    assert_close(
        &dt,
        &[t[1] * x[2], (t[0] + t[2]) * x[2], (1.0 + t[1]) * x[2], x[2]],
    );
    assert_close(&dx, &[x[1], x[0], s]);
}

// seed 95835372 #1629: a local first set by a call with constant arguments
// (`h0(1.0)`, type unseen) and accumulated in a loop with values that do
// not look like floats (`e += y[i]`): the loop's first read of it was a
// constant, so the accumulation kept only the last iteration (dy = 1, not
// 4). The function is lowered again with it a float from its `let`.
#[differentiable]
fn one_of(p: f64) -> f64 {
    p / p
}

#[differentiable]
fn accumulated_from_a_constant_call(h: &[f64], l: usize, y: &[f64]) -> f64 {
    let mut e = one_of(1.0);
    for &g in h {
        e += y[4 - 1 - l];
    }
    e
}

#[test]
fn a_constant_call_accumulated_with_plain_loads() {
    let (h, y) = ([0.1, 0.2, 0.3, 0.4], [1.0, 2.0, 3.0, 4.0]);
    let (value, (dh, dy)) = accumulated_from_a_constant_call_grad(&h, 1, &y);
    assert_eq!(value, 13.0);
    assert_eq!(dh, vec![0.0; 4]);
    assert_eq!(dy, vec![0.0, 0.0, 4.0, 0.0]);
}

// seed 95835372 #2419: an `if` used as a value whose branch reads a
// loop-carried local (`h / (if c { 1.5 } else { u })`): the value given to
// the `if`'s cell was not marked as read by the reverse sweep, so the loop
// saved no entry values of `u` and replayed each iteration from its last
// value (a silent wrong gradient).
#[differentiable]
fn value_if_reads_a_carried_local(h: f64, a: &[f64]) -> f64 {
    let mut u: f64 = 1.0;
    for &e in a {
        u -= h / (if 1.0 > e { 1.5 } else { u });
    }
    u
}

#[test]
fn a_value_if_reading_a_loop_carried_local() {
    let a = [0.0, 2.0, 0.5, 1.5];
    check_gradient_and_adjoint(
        |p| value_if_reads_a_carried_local(p[0], &a),
        |p| {
            let (v, (dh, _)) = value_if_reads_a_carried_local_grad(p[0], &a);
            (v, vec![dh])
        },
        |p, d_out, d| {
            let (mut dh, mut da) = (d[0], [0.0; 4]);
            let v = value_if_reads_a_carried_local_adjoint(p[0], &a, d_out, &mut dh, &mut da);
            d[0] = dh;
            v
        },
        &[[0.3], [-0.45], [0.1]],
    );
    // u1 = 1 − h/1.5, u2 = u1 − h/u1: with h = 0.3, du2/dh = −2.2291666…
    let (_, (dh, _)) = value_if_reads_a_carried_local_grad(0.3, &a[..2]);
    assert!((dh + 2.2291666666666665).abs() < 1e-15);
}

// seed 502221499 #1236: a subslice of a view inside a condition
// (`h0(&cell[1..])` in a `filter` over `chunks`) was offset as an element
// (`array[start + (1..)]`, E0277); also #661 (a constant `h(n).sin()`
// passed to a differentiated parameter got no slot, E0061) and #2371 (a
// call result read by `sin_cos` taken for a vector).
#[differentiable]
fn tail_sum(b: &[f64]) -> f64 {
    b.iter().sum::<f64>()
}

#[differentiable]
fn subslices_of_views_in_conditions(b: &[f64], x: [f64; 2]) -> f64 {
    let d_x: [f64; 6] = [0.5, 1.5, 0.2, 0.9, 3.0, 0.1];
    let kept = d_x
        .chunks(3)
        .filter(|&cell| tail_sum(&cell[1..]) < b[0] && tail_sum(&cell[..=1]) > 0.3)
        .count() as f64;
    let (s, c) = tail_sum(&[0.25, 0.5]).sin_cos();
    kept * x[0] + three(x[1], 2.0, tail_sum(&[1.0]).sin()) * s * c
}

#[test]
fn subslices_of_views_in_conditions_and_constant_methods() {
    // kept: [0.5, 1.5, 0.2] (1.7 < 2, 2.0 > 0.3); not [0.9, 3.0, 0.1]
    let (s, c) = 0.75_f64.sin_cos();
    let k = 1.0_f64.sin();
    let (value, (db, dx)) = subslices_of_views_in_conditions_grad(&[2.0], [2.0, 0.5]);
    assert_eq!(value, 2.0 + (0.5 * 2.0 - k * 2.0) * s * c);
    assert_eq!(db, vec![0.0]);
    assert_eq!(dx, [1.0, 2.0 * s * c]);
}

// seed 59005831 #138: a call result (`h0(..)`, an f64) whose name a
// block-local array inside a later loop shadows (`let mut result = [0.0;
// 2]; result[i] /= ..`) was taken for a vector-valued call's result.
#[differentiable]
fn product3(e: &[f64; 3]) -> f64 {
    e[0] * e[1] * e[2]
}

#[differentiable]
fn shadowed_by_a_local_array(v0: f64, tmp: f64) -> f64 {
    let result = product3(&[2.0, v0, tmp]);
    for k in 0..2 {
        let mut result: [f64; 2] = [1.0; 2];
        result[k] /= tmp;
    }
    result
}

#[test]
fn a_scalar_call_result_shadowed_by_an_array_later() {
    assert_eq!(shadowed_by_a_local_array_grad(1.5, 3.0), (9.0, (6.0, 3.0)));
}

// seed 747317450 #2421: a local bound to a constant path of unseen type
// (`let i = SCALE;`, an f64) passed to a differentiated parameter got no
// slot (E0061); a constant call in a block (`{ h(..) }`) likewise.
#[differentiable]
fn scale_then_add(m: f64, e: f64, w: &[f64; 1]) -> f64 {
    m * e + w[0]
}

#[differentiable]
fn constant_local_of_unseen_type(e: f64, g: f64) -> f64 {
    let i = SCALE;
    scale_then_add(e, i, &[g]) + scale_then_add({ three(1.0, 2.0, 0.5) }, e, &[g])
}

#[test]
fn a_constant_local_of_unseen_type_as_an_argument() {
    let (value, (de, dg)) = constant_local_of_unseen_type_grad(2.0, 3.0);
    assert_eq!(value, 2.0 * SCALE + 3.0 + 1.0 * 2.0 + 3.0);
    assert_eq!((de, dg), (SCALE + 1.0, 2.0));
}

// seed 622450539 #198: a `let` inside an `if` branch inside a condition
// (`{ let mut e: f64 = 1.0; e }`) shadowing a local `e`: the branch's `e`
// was renamed to the outer integer (E0308).
#[differentiable]
fn let_in_a_branch_of_a_condition(h: &[f64]) -> f64 {
    let mut e = 0;
    while e < 2
        && (if h[0] <= 2.0 {
            h[0]
        } else {
            let e: f64 = 1.0;
            e
        }) < 1.0
    {
        e += 1;
    }
    h[0] * e as f64
}

#[test]
fn a_let_in_a_branch_of_a_condition_keeps_its_own_name() {
    assert_eq!(
        let_in_a_branch_of_a_condition_grad(&[0.5]),
        (1.0, vec![2.0])
    );
    assert_eq!(
        let_in_a_branch_of_a_condition_grad(&[3.0]),
        (0.0, vec![0.0])
    );
}

// seed 252204941 #1255 (on a build of the merged loads of `reverse.rs`
// that added their sum at the end of the block's reverse): `w[0]` is
// loaded twice (`let [t0, ..] = w` and `w[0] * t2`), so its adjoints are
// summed first; the sum must reach `d_w[0]` right after the reverse of the
// first load, not after statements reversed later that read it (here the
// gradient of `w[0]` came out 0).
#[differentiable]
fn h_atan(w: f64) -> f64 {
    (1.25 - 1.25 - w) * w.atan()
}

#[differentiable]
#[allow(unused_mut)]
fn one_element_loaded_twice(mut w: [f64; 2]) -> f64 {
    let [t0, mut t2] = w;
    h_atan(w[0] * t2) + t2 + t0
}

#[test]
fn one_element_loaded_twice_gets_both_adjoints() {
    let w = [-0.06950766507239292, 1.417428874412571];
    let (_, gradient) = one_element_loaded_twice_grad(w);
    let e = 1e-6;
    let fd = (one_element_loaded_twice([w[0] + e, w[1]])
        - one_element_loaded_twice([w[0] - e, w[1]]))
        / (2.0 * e);
    assert!((gradient[0] - fd).abs() < 1e-6, "{} vs {fd}", gradient[0]);
    assert!((gradient[0] - 1.2775046368919254).abs() < 1e-12);
}

// seed 780806134 #2112: a `fold` whose initial value is a call with
// constant arguments (`fold(h(1.25), |a, v| a + q[n - 1])`): the desugared
// accumulator enters its loop a constant of a type the macro cannot see and
// leaves it a float, so the function is lowered again with it a float from
// its `let` — but every lowering named the accumulator afresh (`__ad_acc5`,
// `__ad_acc5_1`, ...), so the second never recognised it, and after 64
// lowerings the accumulator stayed a constant: d/dq[2] 1 for 2. Lowering
// again now hands out the same names (`Names::rollback`).
#[differentiable]
fn twice(x: f64) -> f64 {
    x + x
}

#[differentiable]
fn fold_from_a_call(q: &[f64]) -> f64 {
    q.iter()
        .skip(1)
        .fold(twice(1.25), |a, _v| a + q[q.len() - 1])
}

#[test]
fn a_fold_from_a_constant_call_is_differentiated() {
    let q = [1.0, -0.75, -1.25];
    let (value, gradient) = fold_from_a_call_grad(&q);
    assert_eq!(value, 2.5 - 2.5);
    assert_eq!(gradient, vec![0.0, 0.0, 2.0]);
}

// seed 725732448 #1464: a closure bound to a local (named like a generated
// name, `__ad_d_x`) called inside an array literal given to a call
// (`h(&[-__ad_d_x(1.5)])`), with a constant body: the literal's elements
// were copied as written, calling a closure the expansion inlines
// everywhere and does not define (E0425).
#[differentiable(wrt(b))]
fn first_times_second(w: usize, b: &[f64], z: &[f64; 2]) -> f64 {
    b[0] * z[1] + w as f64
}

#[differentiable]
fn closure_in_an_array_argument(v0: f64, p: f64, t0: usize) -> f64 {
    let __ad_d_x = |_r: f64| SCALE;
    let g = |r: f64| 0.5 * r;
    first_times_second(t0, &[-__ad_d_x(1.5)], &[t0 as f64, 2.0])
        + first_times_second(t0, &[__ad_d_x(v0) + g(2.0)], &[0.5, 0.75]) * p
}

#[test]
fn a_closure_called_in_an_array_argument_is_inlined() {
    let (value, (dv0, dp)) = closure_in_an_array_argument_grad(0.3, 0.7, 2);
    assert_eq!(value, closure_in_an_array_argument(0.3, 0.7, 2));
    assert_eq!((dv0, dp), (0.0, (SCALE + 1.0) * 0.75 + 2.0));
}

// seed 142804577 #2438: a load from a local buffer (`sum[m.len() - 1]`) in a
// replayed loop was hoisted out of the loop (as recorded loops do), but a
// replayed body's reverse is emitted where the buffer's adjoint, declared
// inside the loop, is out of scope (E0425 `__ad_d_sum`). Replayed loops do
// not hoist loads.
#[differentiable]
fn early_return_after_a_local_buffer(m: &[f64]) -> f64 {
    for c in m.iter() {
        let sum = m.to_vec();
        let u = sum[m.len() - 1] * 2.0;
        if sum.len() == 1 {
            return u * *c;
        }
    }
    1.0
}

#[test]
fn a_replayed_loop_keeps_its_buffer_loads_in_scope() {
    let (value, gradient) = early_return_after_a_local_buffer_grad(&[0.5]);
    assert_eq!((value, gradient), (0.5, vec![2.0]));
    let (value, gradient) = early_return_after_a_local_buffer_grad(&[0.5, -1.0, 3.0]);
    assert_eq!((value, gradient), (1.0, vec![0.0; 3]));
    common::check_gradient_and_adjoint(
        early_return_after_a_local_buffer,
        early_return_after_a_local_buffer_grad,
        early_return_after_a_local_buffer_adjoint,
        &[[0.5], [-1.25]],
    );
}

// seed 56421 #126: `0 · acosh(count · m[2] + 1)` with `count = 0`: the
// adjoint reaching `acosh` is 0 and its partial at 1 is infinite; the
// reverse sweep multiplied them (NaN for d/dm2) where the tape, whose sweep
// skips a node with adjoint 0, and finite differences give 0. A rule with
// singular partials now contributes nothing for a zero adjoint
// (`__private::adjoint_term`).
#[differentiable]
pub fn zero_adjoint_into_acosh_at_one(m: &[f64], tmp: [f64; 3]) -> f64 {
    let mut tmp = m[1..2]
        .iter()
        .step_by(2)
        .skip(1)
        .zip((0..tmp.len()).take(1).skip(0))
        .filter(|&(&prev, k)| (f64::min(2.0, (k + 1) as f64)) > 0.75)
        .filter(|&(&__ad_t3, u)| __ad_t3.max(m[u]) <= m[3 - 1 - u].clamp(-0.75, 1.75))
        .count() as f64
        * m.get(m.len() - 1).copied().unwrap_or(2.0);
    f64::acosh(1.0) * (tmp + 0.5 + 0.5).acosh()
}

#[test]
fn a_zero_adjoint_times_an_infinite_partial_adds_nothing() {
    let m = [0.29, 0.95, 0.91];
    let (value, (d_m, d_tmp)) = zero_adjoint_into_acosh_at_one_grad(&m, [0.84, 1.33, 1.27]);
    assert_eq!(value, 0.0);
    assert_eq!(d_m, vec![0.0; 3]);
    assert_eq!(d_tmp, [0.0; 3]);
    let tape = on_tape(
        |t, v| {
            let tmp = v[2] * 0.0;
            t.var(f64::acosh(1.0)) * (tmp + 0.5 + 0.5).acosh()
        },
        &m,
    );
    assert_eq!(tape, (0.0, vec![0.0; 3]));
}

// seed 218355724 #1065: a local bound to `h0(..).signum()` (a method that
// integers have too, on a call whose type the macro cannot see) was taken
// for an integer, so a later call passing it to `h0`, whose first
// parameter is differentiated, gave it no `d_` slot: E0061 in the
// generated code. The receiver's type decides now: it may be a float, and
// the call offers it a scratch slot.
#[differentiable]
pub fn h_of_three(w: f64, m: usize, e: f64) -> f64 {
    w * e + m as f64
}

#[differentiable]
pub fn signum_of_a_call_passed_on(value: &[f64], tmp: [f64; 1]) -> f64 {
    let cell = h_of_three(1.0, value.len(), 1.0).signum();
    let (_, value, cell) = (
        (0.75 * f64::tanh(value[tmp.len() + 1])).atanh(),
        value[tmp.len()],
        h_of_three(cell, value.len(), value[2 * tmp.len()]) * cell,
    );
    cell * value
}

#[test]
fn a_signum_of_a_call_may_be_a_float() {
    let x = [0.3, -0.7, 0.4];
    let f = |x: &[f64]| signum_of_a_call_passed_on(x, [1.0]);
    let (value, (d_value, _)) = signum_of_a_call_passed_on_grad(&x, [1.0]);
    assert_eq!(value, f(&x));
    // cell = h(1, 3, 1).signum() = 1; cell' = h(1, 3, x2) · 1 = x2 + 3;
    // the value is cell' · x1
    assert_eq!(d_value, vec![0.0, 0.4 + 3.0, -0.7]);
}

// seed 825758754 #2166: `d - d`, arithmetic of a local bound to a constant
// of a type the macro cannot see (`OFFSET_2166`), passed where the callee
// differentiates a float: it was taken for an integer and offered no `d_`
// slot (E0277 in the generated code). Arithmetic of such locals may be a
// float now, like the locals themselves.
const OFFSET_2166: f64 = 0.5;

#[differentiable]
pub fn h_of_array(p: f64, w: [f64; 1], e: f64) -> f64 {
    p * w[0] + e * e + e
}

#[differentiable]
pub fn arithmetic_of_unknown_constants(v0: f64) -> f64 {
    let (d, s) = (OFFSET_2166, v0.cbrt());
    let e = h_of_array(v0, [1.0], d - d) + h_of_array(v0, [2.0], -d * 2.0);
    e * s
}

#[test]
fn arithmetic_of_constants_of_unknown_type_may_be_a_float() {
    check_gradient_and_adjoint(
        |x: &[f64]| arithmetic_of_unknown_constants(x[0]),
        |x: &[f64]| {
            let (value, d) = arithmetic_of_unknown_constants_grad(x[0]);
            (value, vec![d])
        },
        |x: &[f64], d_out, d_x: &mut [f64]| {
            arithmetic_of_unknown_constants_adjoint(x[0], d_out, &mut d_x[0])
        },
        &[[0.5], [2.25]],
    );
}

// seed 718837382 #323 (`RANDOM_PROGRAMS_HESSIAN=1`): a constant array passed
// where the callee differentiates it (`&[1.0, 2.5]`) reaches the callee's
// `_hvp_adjoint` with an empty direction and empty slots, and the callee
// passed a part of it on (`&g[1..2]`): `v_g[1..2]` of an empty direction
// panicked (range out of bounds). A part of an empty direction or slot is
// empty now (`__private::dual::part`).
#[differentiable(hessian)]
pub fn part_inner(x: &[f64], z: &[f64]) -> f64 {
    x[0] * z[0] * z[0] + x[1] * x[0]
}

#[differentiable(hessian)]
pub fn part_middle(g: &[f64], l: &[f64]) -> f64 {
    part_inner(l, &g[1..2]) * g[0] + part_inner(&g[..2], &l[1..])
}

#[differentiable(hessian)]
pub fn part_outer(w: &[f64]) -> f64 {
    part_middle(&[1.0, 2.5], &[w[0], w[1] * w[0]]) + w[1] * part_middle(w, &[2.0, w[0]])
}

#[test]
fn parts_of_a_constant_array_passed_on_in_hessian_code() {
    for w in [[0.3, -0.7], [1.2, 0.4]] {
        let (value, gradient, hessian) = part_outer_hessian(&w);
        assert_eq!(value, part_outer(&w));
        let report = autograd::check::gradient(part_outer, &w, &gradient);
        assert!(report.is_ok(1e-6), "{report}");
        let report = autograd::check::hessian(|p| part_outer_grad(p).1, &w, &hessian);
        assert!(report.is_ok(1e-6), "{report}");
    }
}

// seed 341155411 #588: `g.clamp(0.5, 1.5)` of a local bound to a call of
// constants (`let g = h(1.0, 0.5)`, a type the macro cannot see), passed
// where the callee differentiates a float: it was taken for an integer and
// offered no `d_` slot (E0061 in the generated code). A method integers
// have too (`abs`, `max`, `min`, `signum`, `clamp`) of such a local may be
// a float now, as the local itself may.
#[differentiable]
pub fn second_of_two(x: f64, y: f64) -> f64 {
    x * y + y
}

#[differentiable]
pub fn clamp_of_a_constant_call(h: [f64; 3], l: usize) -> f64 {
    let e = second_of_two(h[2 * l], {
        let g = second_of_two(1.0, 0.5);
        g.clamp(0.5, 1.5)
    });
    e * h[0]
}

#[test]
fn a_clamp_of_a_local_of_unknown_type_may_be_a_float() {
    let h = [0.3, -0.7, 0.4];
    let mut d_h = [0.0; 3];
    let value = clamp_of_a_constant_call_adjoint(h, 1, 1.0, &mut d_h);
    assert_eq!(value, clamp_of_a_constant_call(h, 1));
    // g = 1 · 0.5 + 0.5 = 1, clamped 1; e = x2 · 1 + 1; value = e · x0
    assert_eq!(d_h, [0.4 + 1.0, 0.0, 0.3]);
}

// seed 431914475 #712: `let mut d_x = h0(..);` (a call of constants, of a
// type the macro cannot see, declared `mut`) then `d_x.hypot(..)` in an
// expression was refused as a change in place of `d_x` (`lower/in_place.rs`);
// an `f64` method changes nothing.
#[differentiable]
pub fn doubled(x: f64) -> f64 {
    2.0 * x
}

#[differentiable]
#[allow(unused_mut)]
pub fn method_of_a_mut_constant(y: f64) -> f64 {
    let mut d_x = doubled(0.5);
    d_x.hypot(f64::EPSILON) * y.sin() + d_x.cos()
}

#[test]
fn an_f64_method_of_a_mut_local_is_no_change_in_place() {
    let (value, d_y) = method_of_a_mut_constant_grad(0.3);
    assert_eq!(value, method_of_a_mut_constant(0.3));
    assert_eq!(d_y, 1.0f64.hypot(f64::EPSILON) * 0.3f64.cos());
}

// seed 14 (the fixed batch, on the generator's first `any`/`all`) #131:
// `all` in the condition of an `if` used as a value inside arithmetic
// inside a condition was refused (the closure stayed in a condition's
// tokens); the `any`/`all` a condition always evaluates, however deep in
// its operands, are lowered before it (`Lowerer::hoist_tests`).
#[differentiable]
pub fn all_inside_an_if_value_in_a_condition(b: [f64; 2], k: f64) -> f64 {
    if !((k
        / ((if b.iter().all(|&q__| q__ > k) || k * 0.75 < f64::EPSILON {
            k
        } else {
            0.5
        })
        .abs()
            + 0.5))
        < k)
    {
        b[0] * k
    } else {
        b[1]
    }
}

// and in a `filter`'s predicate, on the right of `&&`
#[differentiable]
pub fn any_in_a_filter(x: &[f64]) -> f64 {
    x.iter()
        .filter(|&&v| v > 0.0 && x.iter().any(|&w| w > 2.0 * v))
        .map(|v| v * v)
        .sum()
}

#[test]
fn any_and_all_deep_in_conditions() {
    for (b, k) in [([0.5, 2.0], 0.25), ([0.5, 2.0], 1.0), ([-0.5, 0.1], 3.0)] {
        let (value, (d_b, d_k)) = all_inside_an_if_value_in_a_condition_grad(b, k);
        assert_eq!(value, all_inside_an_if_value_in_a_condition(b, k));
        let fd = (all_inside_an_if_value_in_a_condition(b, k + 1e-6)
            - all_inside_an_if_value_in_a_condition(b, k - 1e-6))
            / 2e-6;
        assert!((d_k - fd).abs() < 1e-6, "{d_k} {fd}");
        assert_eq!(d_b, if value == b[1] { [0.0, 1.0] } else { [k, 0.0] });
    }
    let x = [0.5, 2.0, -1.0, 0.75];
    let (value, dx) = any_in_a_filter_grad(&x);
    assert_eq!(value, any_in_a_filter(&x));
    // 0.5 (2.0 > 1.0) and 0.75 (2.0 > 1.5) pass; 2.0 does not
    assert_eq!(value, 0.25 + 0.5625);
    assert_eq!(dx, vec![1.0, 0.0, 0.0, 1.5]);
}

// seed 976996826 #337 (and 8 more): `any` in the `else if` condition of an
// `if` value inside a `match` scrutinee was refused: that condition runs
// only when the first is false, so it was not hoisted; an `if`, `match` or
// block that holds an `any`/`all` anywhere is now computed first, whole.
#[differentiable]
pub fn any_in_an_else_if_inside_a_condition(p: f64, w: [f64; 2]) -> f64 {
    match p + 1.25
        < (if 3.0 < p {
            1.0
        } else if !(w.iter().any(|&q| q > w[1])) {
            p
        } else {
            2.0 * p
        }) {
        true => w[0] * p,
        false => w[1] - p,
    }
}

#[test]
fn any_in_a_conditional_part_of_a_condition() {
    for (p, w) in [
        (4.0, [0.5, 2.0]),
        (2.0, [0.5, 2.0]),
        (2.0, [3.0, 2.0]),
        (-2.0, [3.0, 2.0]),
    ] {
        let (value, (d_p, d_w)) = any_in_an_else_if_inside_a_condition_grad(p, w);
        assert_eq!(value, any_in_an_else_if_inside_a_condition(p, w));
        let fd = (any_in_an_else_if_inside_a_condition(p + 1e-6, w)
            - any_in_an_else_if_inside_a_condition(p - 1e-6, w))
            / 2e-6;
        assert!((d_p - fd).abs() < 1e-6, "{p}: {d_p} {fd}");
        assert_eq!(
            d_w,
            if value == w[0] * p {
                [p, 0.0]
            } else {
                [0.0, 1.0]
            }
        );
    }
}

// Seed 249846352 #1661 (minimized): `SCALE.min(n as f64)` — a constant of
// a type the macro cannot see, whose `min` takes an `f64` — given to a
// parameter the callee differentiates was passed no slot: E0061 in the
// generated call of `weighted_adjoint`. An `f64` operand makes the
// constant an `f64`.
const CAP: f64 = 1.0;

#[differentiable]
pub fn weighted(a: &[f64], v: f64) -> f64 {
    a[0] * a[1] + v
}

#[differentiable]
pub fn calls_with_a_float_method_of_a_constant(p: f64, n: usize) -> f64 {
    let t = weighted(&[p, 2.0], CAP.min((n - 1) as f64));
    t * p
}

#[test]
fn a_float_method_of_a_constant_as_an_argument() {
    for (p, n) in [(1.5, 3), (-0.5, 1), (2.0, 5)] {
        let (value, d_p) = calls_with_a_float_method_of_a_constant_grad(p, n);
        let v = CAP.min((n - 1) as f64);
        assert_eq!(value, (2.0 * p + v) * p);
        assert_eq!(d_p, 4.0 * p + v);
    }
}

// Seed 192272522 #1381 (minimized): an `if` (or `match`) used as a value
// whose branches are constants of a type the macro cannot see (`CAP`,
// `OFFSET_2166`), given to a parameter the callee differentiates, was passed
// no slot: E0061 in the generated call of `weighted_adjoint`. Such an `if`
// may be a float now, unless a branch is an integer or a `bool`.
#[differentiable]
pub fn calls_with_an_if_of_constants(p: f64) -> f64 {
    let t = weighted(&[p, 2.0], if p >= 1.0 { CAP } else { OFFSET_2166 });
    let u = weighted(
        &[t, 1.0],
        match p < 0.0 {
            true => CAP,
            _ => OFFSET_2166,
        },
    );
    u * p
}

#[test]
fn an_if_of_constants_as_an_argument() {
    for p in [1.5, 0.5, -0.5] {
        let (value, d_p) = calls_with_an_if_of_constants_grad(p);
        let v = if p >= 1.0 { CAP } else { OFFSET_2166 };
        let w = if p < 0.0 { CAP } else { OFFSET_2166 };
        let t = 2.0 * p + v;
        assert_eq!(value, (t + w) * p);
        assert_eq!(d_p, t + w + 2.0 * p);
    }
}

// Seed 120419564 #145 (second order, minimized): an array literal of
// constants of a type the macro cannot see (`[{ let a = h(m); SCALE }]`)
// was lowered twice, once element by element and then as written for the
// array the call is given: the block's statements ran twice in `f_grad`,
// and in `f_hvp` the copy as written called `h` with a `Dual` (E0308). The
// elements lowered once are now what the array holds.
#[differentiable(hessian)]
fn scaled_by(m: f64, w: f64) -> f64 {
    m * w
}

#[differentiable(hessian)]
fn first_product(x: &[f64; 1], p: &[f64; 1]) -> f64 {
    x[0] * p[0]
}

thread_local! {
    static TICKS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

fn tick() -> usize {
    TICKS.with(|t| t.set(t.get() + 1));
    1
}

#[differentiable(hessian)]
fn block_in_a_literal_argument(m: f64, q: &[f64]) -> f64 {
    let y: f64 = first_product(
        &[{
            let unused: f64 = scaled_by(m, m);
            let once = tick();
            SCALE
        }],
        &[q[0] * q[0]],
    );
    y + m
}

#[test]
fn a_block_in_an_array_literal_argument_runs_once() {
    for (m, q) in [(0.7, 1.3), (-0.4, 2.0)] {
        TICKS.with(|t| t.set(0));
        let (value, (d_m, d_q)) = block_in_a_literal_argument_grad(m, &[q]);
        assert_eq!(
            TICKS.with(|t| t.get()),
            1,
            "the block's statements ran once"
        );
        assert_eq!(value, SCALE * q * q + m);
        assert_eq!((d_m, d_q[0]), (1.0, 2.0 * SCALE * q));
        let (_, _, hessian) = block_in_a_literal_argument_hessian(m, &[q]);
        assert_eq!(hessian, vec![0.0, 0.0, 0.0, 2.0 * SCALE]);
    }
}

// Seed 53322865 #791 (nests over buffers, minimized): a loop of a recorded
// nest that overwrites a local buffer over `0..u.len()` has its stores
// undone as a span, restored after its reverse by
// `restore_span(&mut u[..], 0..u.len())`, whose range could not read the
// length of the array the first argument had borrowed (E0502, 51 programs
// of 1 500). The range is now evaluated first.
#[differentiable]
fn span_over_its_own_length(x: &[f64]) -> f64 {
    let mut u = x.to_vec();
    let mut s = 0.0;
    for t in 0..2 {
        for j in 0..3 {
            s += u[j].cos();
        }
        for j in 0..u.len() {
            u[j] = 0.0;
        }
    }
    s
}

#[differentiable]
fn span_over_an_arrays_length(x: &[f64]) -> f64 {
    let mut b = [0.0; 2];
    for j in 0..2 {
        for k in 0..b.len() {
            b[k] = x[k].sin();
        }
    }
    b[0] = 0.0;
    b[1]
}

#[test]
fn a_span_over_the_buffers_own_length_compiles() {
    check_gradient_and_adjoint(
        span_over_its_own_length,
        span_over_its_own_length_grad,
        span_over_its_own_length_adjoint,
        &[[0.3, -0.4, 1.2], [1.1, 0.2, -0.7]],
    );
    let x = [0.3, -0.4, 1.2];
    let (value, gradient) = span_over_its_own_length_grad(&x);
    let s: f64 = x.iter().map(|v| v.cos()).sum::<f64>() + 3.0;
    assert!((value - s).abs() < 1e-15);
    assert_close(&gradient, &x.map(|v| -v.sin()));
    check_gradient_and_adjoint(
        span_over_an_arrays_length,
        span_over_an_arrays_length_grad,
        span_over_an_arrays_length_adjoint,
        &[[0.3, -0.4], [1.1, 0.2]],
    );
    assert_eq!(
        span_over_an_arrays_length_grad(&[0.3, -0.4]).1,
        vec![0.0, (-0.4f64).cos()]
    );
}

// Seed 1128040712 #733 (nests over buffers, minimized): the reverse of a
// loop that sums (`e += z[k]`) was skipped when its accumulator's adjoint
// was 0 (`e - e`), though the loop also stores into `z`, whose `z[0]`
// read after it carries an adjoint into `p`: the gradient was 0, not 1.
// A loop that stores into an array with an adjoint is never skipped.
#[differentiable]
fn skipped_with_stores(g: usize, p: &[f64]) -> f64 {
    let mut e: f64 = 1.0;
    let mut z: [f64; 4] = [0.0; 4];
    for _t in 0..5 {
        for k in 0..4 {
            z[k] = p[k];
        }
        for k in 0..g {
            e += z[k];
        }
    }
    if 1.0 <= f64::powi(1.0 + 0.75, -2) {
        return 1.0;
    }
    e - e + z[0]
}

// The same, replayed: a nest inside an `if` is not recorded.
#[differentiable]
fn skipped_with_stores_replayed(g: usize, p: &[f64]) -> f64 {
    let mut e: f64 = 1.0;
    let mut z: [f64; 4] = [0.0; 4];
    if p.len() < 1000 {
        for _t in 0..5 {
            for k in 0..4 {
                z[k] = p[k];
            }
            for k in 0..g {
                e += z[k];
            }
        }
    }
    if 1.0 <= f64::powi(1.0 + 0.75, -2) {
        return 1.0;
    }
    e - e + z[0]
}

// A single loop that stores and sums.
#[differentiable]
fn skipped_with_stores_single(p: &[f64]) -> f64 {
    let mut e: f64 = 1.0;
    let mut z: [f64; 4] = [0.0; 4];
    for k in 0..4 {
        z[k] = p[k] * p[k];
        e += z[k];
    }
    if e > 1e9 {
        return 1.0;
    }
    e - e + z[0]
}

#[test]
fn a_summing_loop_that_stores_is_reversed_when_its_sum_has_no_adjoint() {
    let p = [-0.74, 1.37, 0.28, -0.96];
    assert_eq!(
        skipped_with_stores_single_grad(&p).1,
        vec![2.0 * p[0], 0.0, 0.0, 0.0]
    );
    for g in [0, 2, 4] {
        let (value, gradient) = skipped_with_stores_replayed_grad(g, &p);
        assert_eq!(value, p[0]);
        assert_eq!(gradient, vec![1.0, 0.0, 0.0, 0.0], "g = {g}");
    }
    for g in [0, 2, 4] {
        let p = [-0.74, 1.37, 0.28, -0.96];
        let (value, gradient) = skipped_with_stores_grad(g, &p);
        assert_eq!(value, p[0]);
        assert_eq!(gradient, vec![1.0, 0.0, 0.0, 0.0], "g = {g}");
    }
}

// seed 14 #113 (the default batch, on the first version of arrays declared
// in recorded nests): a helper given array literals inside a recorded nest
// — `[LN_2, n as f64]` by value, `&[.., lse, s[row]]` by reference, arrays
// the nest declares, so copied for the helper's adjoint — got a scratch
// slot for the constant one made from the array itself, out of scope in
// the nest's reverse (E0425); it is made from the array's twin.
#[differentiable]
fn weighted_literal(tmp: f64, w: [f64; 2], z: &[f64]) -> f64 {
    1.25 * tmp.sin() + w[0] * z[2] + z[3] * z[2]
}

#[differentiable]
fn literals_to_a_helper_in_a_nest(s: &[f64], x: &[f64], m: usize) -> f64 {
    // (a `Vec` local: the nest is recorded even where its replay would
    // save nothing)
    let s = s.to_vec();
    let mut conv = 0.0;
    for ii in 0..m {
        for row in 0..m {
            let mut lse = 0.0;
            for k in 0..2 {
                lse += x[k + ii] * x[row + k];
            }
            conv += lse
                + weighted_literal(
                    std::f64::consts::E,
                    [std::f64::consts::LN_2, (2 * s.len()) as f64],
                    &[(2 * s.len()) as f64, (s.len() + 1) as f64, lse, s[row]],
                );
        }
    }
    // (read other than linearly: the nest is recorded, not fused)
    conv.cos() * x[0] + conv
}

#[test]
fn array_literals_given_to_a_helper_in_a_recorded_nest() {
    let (s, x) = ([0.3, -0.8, 1.1], [0.5, 1.5, -0.25, 0.75]);
    let (value, (d_s, d_x)) = literals_to_a_helper_in_a_nest_grad(&s, &x, 2);
    assert_eq!(value, literals_to_a_helper_in_a_nest(&s, &x, 2));
    let report = autograd::check::gradient(|s| literals_to_a_helper_in_a_nest(s, &x, 2), &s, &d_s);
    assert!(report.is_ok(1e-6), "{report}");
    let report = autograd::check::gradient(|x| literals_to_a_helper_in_a_nest(&s, x, 2), &x, &d_x);
    assert!(report.is_ok(1e-6), "{report}");
}

// seed 1128150302 #334 (nests; failing on 221df71 too): a summing loop in
// a recorded nest calling a helper whose partials the forward sweep takes
// (a `Vec` local: the nest needs storage anyway) was reversed counting up,
// as loops that only accumulate are, and took its partials back from
// their record last first: each iteration got another's (the gradient
// went to z[1] instead of z[3]). Such a loop, and one taking back copied
// arguments, is reversed counting down.
#[differentiable]
fn pick(g: f64, w: f64, l: f64) -> f64 {
    let h = if !(1.0 > g) { g } else { w + 0.0 * l };
    h
}

#[differentiable]
fn partials_of_a_summing_loop(m: &[f64], z: &[f64]) -> f64 {
    let mut g = vec![0.0_f64; 19];
    for l in 0..(z.len() - m.len() + 1) {
        let mut e: f64 = 0.0;
        for h in 0..m.len() {
            e += pick(z[h + 1], 1.0, 1.0);
        }
        g[l] = e;
    }
    g[14]
}

#[test]
fn a_summing_loop_takes_its_calls_partials_back_in_order() {
    let m = [0.3, -0.2, 0.5];
    let z: Vec<f64> = (0..20)
        .map(|k| {
            if k % 3 == 0 {
                1.5
            } else {
                0.2 * k as f64 - 1.0
            }
        })
        .collect();
    let (value, (_, d_z)) = partials_of_a_summing_loop_grad(&m, &z);
    assert_eq!(value, partials_of_a_summing_loop(&m, &z));
    let mut expected = vec![0.0; 20];
    expected[3] = 1.0;
    assert_eq!(d_z, expected);
}

// Nests generator (the generator's arrays-in-nests extension), seed 1128
// #451, on 1d7f894: an array a recorded nest declares, measured in an
// integer argument of a call (`h(e.len() - 1, ..)`): the nest was recorded
// and its reverse evaluated `e.len()` where `e` is out of scope (E0425).
// Such a nest reads the array in its reverse, so it is replayed.
#[differentiable]
fn scaled_first(g: usize, e: &[f64]) -> f64 {
    e[0] * g as f64
}

#[differentiable]
fn measured_declared_array(h: &[f64]) -> f64 {
    let mut g = [h[0], 1.0, 1.0];
    let mut l: f64 = 0.0;
    for _ts in 0..3 {
        let mut e = [0.0_f64; 2];
        for o in 0..2 {
            e[o] = scaled_first(e.len() - 1, &h[3..4]) * g[o];
        }
        for o in 0..2 {
            l += e[o];
        }
        for q in 0..3 {
            g[q] = g[q] * h[1] + l;
        }
    }
    l + g[0]
}

#[test]
fn a_declared_array_measured_in_a_calls_argument() {
    let h = [0.3, 0.5, -0.2, 0.7, 1.1];
    let (value, gradient) = measured_declared_array_grad(&h);
    assert_eq!(value, measured_declared_array(&h));
    let report = autograd::check::gradient(measured_declared_array, &h, &gradient);
    assert!(report.is_ok(1e-6), "{report}");
}

// Nests generator, seed 1128 #442 (wrong since 0ce1ee6, fixed with #334 by
// 8631ae3): `ym[l] += sq(e)` after an inner sum, in a recorded nest whose
// calls' partials come back from a record — the loop's reverse ran
// counting up and swapped the first and last iterations' partials.
#[differentiable]
fn squared(y: f64) -> f64 {
    y * y
}

#[differentiable]
fn incremented_by_a_helper(q: &[f64]) -> f64 {
    let mut ym = [0.0; 3];
    for l in 0..3 {
        let mut e = 0.0;
        for o in 0..2 {
            e += q[o * 3 + l];
        }
        ym[l] += squared(e);
    }
    ym[0] + 10.0 * ym[1] + 100.0 * ym[2]
}

#[test]
fn increments_by_a_helper_in_a_recorded_nest() {
    let q = [0.3, 0.5, 0.7, 0.9, 1.1, 1.3];
    let (_, gradient) = incremented_by_a_helper_grad(&q);
    assert_close(&gradient, &[2.4, 32.0, 400.0, 2.4, 32.0, 400.0]);
}

// Seed 1128205 #53, #511 (found the session closures returning arrays were
// added to the generator): an array a closure returns, kept as its parts,
// copied (`to_vec`, `clone`) and given to a helper inside a condition — both
// refused or expanded to code naming a local that did not exist (E0425).
#[differentiable]
fn tail_minus(a: f64, ys: f64, v0: &[f64; 2]) -> f64 {
    (v0[v0.len() - 1] - a) * f64::cos(ys)
}

#[differentiable]
fn closure_array_copied(m: f64, ys: f64) -> f64 {
    let value = |t0: f64| -> [f64; 2] { [m.asinh() + t0, -t0] };
    let acc = value(ys);
    let mut n0: Vec<f64> = acc.to_vec();
    n0[1] += 1.0;
    let c2 = acc.clone();
    let mut s = 0.0;
    if !(tail_minus(1.0, ys, &acc) < ys) {
        s += 1.0;
    }
    s + n0[1] * c2[0] + tail_minus(m, ys, &acc) + acc[1]
}

fn closure_array_copied_tape<'t>(tape: &'t Tape, x: &[Var<'t>]) -> Var<'t> {
    let (m, ys) = (x[0], x[1]);
    let acc = [m.asinh() + ys, -ys];
    let n0 = [acc[0], acc[1] + 1.0];
    let tail = |a: Var<'t>, v0: [Var<'t>; 2]| (v0[1] - a) * ys.cos();
    let mut s = tape.var(0.0);
    if !(tail(tape.var(1.0), acc).value() < ys.value()) {
        s = s + 1.0;
    }
    s + n0[1] * acc[0] + tail(m, acc) + acc[1]
}

#[test]
fn a_closure_array_copied_and_given_in_a_condition() {
    for x in [[0.3, 0.5], [-0.8, 1.7], [1.4, -0.6]] {
        let (value, (dm, dys)) = closure_array_copied_grad(x[0], x[1]);
        let (tape_value, tape_gradient) = on_tape(closure_array_copied_tape, &x);
        assert_eq!(value, closure_array_copied(x[0], x[1]));
        assert!((value - tape_value).abs() <= 1e-12 * (1.0 + value.abs()));
        assert_close(&[dm, dys], &tape_gradient);
    }
}

// Seed 1128411 #196 (found the session fills of a value that varies were
// added to the generator): `[v; 4]` of a value read through a closure that
// reads a parameter — the macro looked for float names in the value's
// tokens, found none (`k` is a closure), and refused it as a constant fill.
#[differentiable]
fn fill_through_a_closure(x: f64, y: f64) -> f64 {
    let k = |value: f64| value * x + y;
    let mut d = [(k(0.5) * k(0.5) + 1.25).cbrt(); 4];
    d[1] *= y;
    d[0] + d[1] - d[3] * x
}

fn fill_through_a_closure_tape<'t>(_tape: &'t Tape, v: &[Var<'t>]) -> Var<'t> {
    let (x, y) = (v[0], v[1]);
    let k = |value: f64| x * value + y;
    let c = (k(0.5) * k(0.5) + 1.25).cbrt();
    let d1 = c * y;
    c + d1 - c * x
}

#[test]
fn a_fill_of_a_value_read_through_a_closure() {
    for x in [[0.3, 0.5], [-0.8, 1.7], [1.4, -0.6]] {
        let (value, (dx, dy)) = fill_through_a_closure_grad(x[0], x[1]);
        let (tape_value, tape_gradient) = on_tape(fill_through_a_closure_tape, &x);
        assert_eq!(value, fill_through_a_closure(x[0], x[1]));
        assert!((value - tape_value).abs() <= 1e-12 * (1.0 + value.abs()));
        assert_close(&[dx, dy], &tape_gradient);
    }
}

// Seed 1128413 #168 and #362 (the same session): a fill of a value a chain
// computes, `[(1..4).map(|k| ..).sum::<f64>(); 1]` — its value lowered to a
// float the macro had not seen in the tokens, refused as a constant fill —
// and a fill of a constant of a type the macro cannot see, `[FILL; 2]`,
// changed in place through `iter_mut` — taken for an array of constants,
// which `iter_mut` refused.
const FILL: f64 = 1.25;

#[differentiable]
fn fills_of_chains_and_constants(m: f64, ys: f64) -> f64 {
    let mut d = [(1..4).map(|k| k as f64 * m).sum::<f64>(); 1];
    let mut e = [FILL; 2];
    for (i, s) in e.iter_mut().take(1).enumerate() {
        *s *= ys + i as f64;
    }
    let n = 3;
    let w = vec![(0..n).map(|k| m * k as f64).sum::<f64>(); n];
    d[0] *= ys;
    d[0] + e[0] * e[1] + w[2] * m
}

fn fills_of_chains_and_constants_tape<'t>(_tape: &'t Tape, x: &[Var<'t>]) -> Var<'t> {
    let (m, ys) = (x[0], x[1]);
    let sum = m * 1.0 + m * 2.0 + m * 3.0;
    let d0 = sum * ys;
    let e0 = ys * FILL;
    let w = m * 0.0 + m * 1.0 + m * 2.0;
    d0 + e0 * FILL + w * m
}

#[test]
fn fills_of_a_chain_and_of_a_constant_changed_in_place() {
    for x in [[0.3, 0.5], [-0.8, 1.7], [1.4, -0.6]] {
        let (value, (dm, dys)) = fills_of_chains_and_constants_grad(x[0], x[1]);
        let (tape_value, tape_gradient) = on_tape(fills_of_chains_and_constants_tape, &x);
        assert_eq!(value, fills_of_chains_and_constants(x[0], x[1]));
        assert!((value - tape_value).abs() <= 1e-12 * (1.0 + value.abs()));
        assert_close(&[dm, dys], &tape_gradient);
    }
}

// Seed 14 #129 (the fixed batch, once the generator wrote closures with a
// `&f64` parameter, 2026-11-28): a helper's value given by reference to a
// closure, `prev(&sum)`, was taken for a use as an array (as `h(&b)` of a
// helper's vector), and the float's compound assignment was then refused
// as assigning a whole array.
#[differentiable]
fn helper_value(t: f64) -> f64 {
    t * t + 1.0
}

#[differentiable]
fn float_by_reference_to_a_closure(p: f64, xs: f64) -> f64 {
    let prev = |d: &f64| *d * p + xs;
    let mut sum = helper_value(prev(&p) - prev(&xs));
    sum -= prev(&sum).sin();
    let twice = |d: &f64| 2.0 * d;
    let mut last = helper_value(p);
    last += twice(&last);
    sum * last
}

fn float_by_reference_to_a_closure_tape<'t>(_tape: &'t Tape, x: &[Var<'t>]) -> Var<'t> {
    let (p, xs) = (x[0], x[1]);
    let prev = |d: Var<'t>| d * p + xs;
    let t = prev(p) - prev(xs);
    let mut sum = t * t + 1.0;
    sum = sum - prev(sum).sin();
    let mut last = p * p + 1.0;
    last = last + 2.0 * last;
    sum * last
}

#[test]
fn a_float_by_reference_to_a_closure_is_no_array() {
    for x in [[0.3, 0.5], [-0.8, 1.7], [1.4, -0.6]] {
        let (value, (dp, dxs)) = float_by_reference_to_a_closure_grad(x[0], x[1]);
        let (tape_value, tape_gradient) = on_tape(float_by_reference_to_a_closure_tape, &x);
        assert_eq!(value, float_by_reference_to_a_closure(x[0], x[1]));
        assert!((value - tape_value).abs() <= 1e-12 * (1.0 + value.abs()));
        assert_close(&[dp, dxs], &tape_gradient);
    }
}

// Seed 1128512 #143 (nests, 2026-11-28, the generator's `min_by` the
// session it was supported): `min_by` after `filter` over a helper's values,
// which the macro cannot tell are floats, was refused; with `unwrap_or`
// the accumulator starts from that value, of its type.
#[differentiable]
fn filtered_minimum(m: f64) -> f64 {
    let t: f64 = (2..9)
        .filter(|&k| k % 2 == 0)
        .map(|k| helper_value(m * k as f64))
        .min_by(|a, b| a.total_cmp(b))
        .unwrap_or(-0.5);
    t * m
}

fn filtered_minimum_tape<'t>(_tape: &'t Tape, x: &[Var<'t>]) -> Var<'t> {
    let m = x[0];
    let mut best: Option<Var<'t>> = None;
    for k in [2.0, 4.0, 6.0, 8.0] {
        let t = m * k;
        let e = t * t + 1.0;
        best = Some(match best {
            Some(b) if b.value().total_cmp(&e.value()) != std::cmp::Ordering::Greater => b,
            _ => e,
        });
    }
    best.unwrap() * m
}

#[test]
fn min_by_after_filter_of_a_helpers_values() {
    for x in [[0.3], [-0.8], [1.4]] {
        let (value, dm) = filtered_minimum_grad(x[0]);
        let (tape_value, tape_gradient) = on_tape(filtered_minimum_tape, &x);
        assert_eq!(value, filtered_minimum(x[0]));
        assert!((value - tape_value).abs() <= 1e-12 * (1.0 + value.abs()));
        assert_close(&[dm], &tape_gradient);
    }
}

// Seed 1128522 #108 (2026-11-28, the generator's `if let` of an element the
// session it was supported): an `if let` inside `vec![..; n]`, whose
// contents the syntax passes did not visit, was refused.
#[differentiable]
#[allow(clippy::useless_vec)]
fn if_let_in_a_fill(z: &[f64], w: usize) -> f64 {
    let cell: Vec<f64> = vec![if let Some(&g) = z.get(w) { g } else { z[0] }; 2];
    let listed = vec![
        if let Some(&g) = z.get(1) {
            g * 2.0
        } else {
            0.5
        },
        z[0],
    ];
    cell[1] * z[1] + listed[0] * listed[1]
}

fn if_let_in_a_fill_tape<'t>(_tape: &'t Tape, x: &[Var<'t>]) -> Var<'t> {
    let g = x[2];
    g * x[1] + x[1] * 2.0 * x[0]
}

#[test]
fn an_if_let_inside_a_vec_macro() {
    for x in [[0.3, 0.5, -0.4], [-0.8, 1.7, 0.6], [1.4, -0.6, 1.1]] {
        let (value, gradient) = if_let_in_a_fill_grad(&x, 2);
        let (tape_value, tape_gradient) = on_tape(if_let_in_a_fill_tape, &x);
        assert_eq!(value, if_let_in_a_fill(&x, 2));
        assert!((value - tape_value).abs() <= 1e-12 * (1.0 + value.abs()));
        assert_close(&gradient, &tape_gradient);
    }
}

// Seed 1128608 #291 (2026-11-29): `if let Some(&g) = t.get(i)` of a
// constant vector (filled by pushes of constants, so not differentiated)
// expanded to `let g = &t[i];`, the pattern's `&` lost (E0308: expected
// `&f64`, found `f64`). Minimized by hand.
#[differentiable]
fn if_let_ref_of_a_constant_vector(z: f64) -> f64 {
    let mut pushed: Vec<f64> = Vec::new();
    for _ in 0..2 {
        pushed.push(0.5);
    }
    let t = pushed;
    let first = if let Some(&g) = t.get(1) { g } else { t[0] };
    let beyond = if let Some(&g) = t.get(5) { g } else { 2.0 };
    (first + z) * z + beyond * z
}

fn if_let_ref_of_a_constant_vector_tape<'t>(_tape: &'t Tape, x: &[Var<'t>]) -> Var<'t> {
    let z = x[0];
    (z + 0.5) * z + z * 2.0
}

#[test]
fn if_let_of_a_reference_into_a_constant_vector() {
    for x in [[0.3], [-0.8], [1.4]] {
        let (value, dz) = if_let_ref_of_a_constant_vector_grad(x[0]);
        let (tape_value, tape_gradient) = on_tape(if_let_ref_of_a_constant_vector_tape, &x);
        assert_eq!(value, if_let_ref_of_a_constant_vector(x[0]));
        assert!((value - tape_value).abs() <= 1e-12 * (1.0 + value.abs()));
        assert_close(&[dz], &tape_gradient);
    }
}

// Seed 1128622 #54 (2026-11-29): a local array of arrays read inside
// `vec![..]` (`vec![t0[a].iter().sum::<f64>(); 4]`) was refused as a use in
// a macro's tokens; the matrix pass now reads and rewrites `vec!`'s
// expressions as lowering parses them. Minimized by hand.
#[differentiable]
#[allow(clippy::useless_vec)]
fn matrix_read_in_a_vec_macro(z: &[f64], a: usize) -> f64 {
    let t0 = [[1.0, z[0] * 2.0], [z[1], z[0] * z[1]]];
    let seed: Vec<f64> = vec![t0[a].iter().sum::<f64>(); 3];
    let listed = vec![t0[0][1], t0[1][1] * 2.0];
    seed[2] * listed[1] + listed[0]
}

fn matrix_read_in_a_vec_macro_tape<'t>(_tape: &'t Tape, x: &[Var<'t>]) -> Var<'t> {
    // (at a = 1: the row [z1, z0 z1])
    let (z0, z1) = (x[0], x[1]);
    let row = z1 + z0 * z1;
    row * (z0 * z1 * 2.0) + z0 * 2.0
}

#[test]
fn a_matrix_read_inside_a_vec_macro() {
    for x in [[0.3, -1.2], [-0.8, 0.6], [1.4, 1.1]] {
        let (value, gradient) = matrix_read_in_a_vec_macro_grad(&x, 1);
        let (tape_value, tape_gradient) = on_tape(matrix_read_in_a_vec_macro_tape, &x);
        assert_eq!(value, matrix_read_in_a_vec_macro(&x, 1));
        assert!((value - tape_value).abs() <= 1e-12 * (1.0 + value.abs()));
        assert_close(&gradient, &tape_gradient);
    }
}

// Seed 1128705 #336 (2026-11-29): `t0.partition_point(|a| *a < -0.25)`
// beside a float parameter `a`: the closure's `*a` was read as the
// parameter's (a float's `*` is the float in the generated code), so the
// expansion compared a reference with a float (E0308). A name a closure or
// block binds shadows the function's there now. Minimized by hand.
#[differentiable]
fn search_closure_shadowing_a_parameter(t0: [f64; 2], a: f64) -> f64 {
    let j = t0.partition_point(|a| *a < -0.25).min(1);
    t0[j] * a + t0[1 - j]
}

fn search_closure_shadowing_a_parameter_tape<'t>(_tape: &'t Tape, x: &[Var<'t>]) -> Var<'t> {
    let vals = [x[0].value(), x[1].value()];
    let j = vals.partition_point(|v| *v < -0.25).min(1);
    x[j] * x[2] + x[1 - j]
}

#[test]
fn a_search_closure_shadowing_a_parameter() {
    for x in [[-0.5, 0.3, 1.2], [0.4, 0.9, -0.7], [-1.0, -0.6, 0.2]] {
        let (value, (dt, da)) = search_closure_shadowing_a_parameter_grad([x[0], x[1]], x[2]);
        let (tape_value, tape_gradient) = on_tape(search_closure_shadowing_a_parameter_tape, &x);
        assert_eq!(
            value,
            search_closure_shadowing_a_parameter([x[0], x[1]], x[2])
        );
        assert!((value - tape_value).abs() <= 1e-12 * (1.0 + value.abs()));
        assert_close(&[dt[0], dt[1], da], &tape_gradient);
    }
}

// Seed 1128709 #268 (2026-11-29): a search of a subslice view
// (`let (lo, hi) = p.split_at(1);` then `lo.partition_point(..)`) was
// refused ("a subslice cannot be used as a number here"); it is the search
// of the subslice it stands for now. Minimized by hand, with a view of a
// differentiated buffer and one of data.
#[differentiable(wrt(p))]
fn search_of_a_subslice(p: [f64; 3], data: &[f64]) -> f64 {
    let (lo, hi) = p.split_at(1);
    let out = hi.partition_point(|a| *a < 0.5).min(1);
    let row = &data[1..3];
    let k = row.partition_point(|d| *d < 0.0);
    hi[out] * lo[0] + p[k] * 2.0
}

fn search_of_a_subslice_tape<'t>(_tape: &'t Tape, x: &[Var<'t>]) -> Var<'t> {
    let hi = [x[1].value(), x[2].value()];
    let out = hi.partition_point(|a| *a < 0.5).min(1);
    let row = [0.3, -0.4];
    let k = row.partition_point(|d| *d < 0.0);
    x[1 + out] * x[0] + x[k] * 2.0
}

#[test]
fn a_search_of_a_subslice_view() {
    let data = [9.0, 0.3, -0.4];
    for x in [[-0.5, 0.3, 1.2], [0.4, 0.9, -0.7], [-1.0, -0.6, 0.7]] {
        let (value, gradient) = search_of_a_subslice_grad(x, &data);
        let (tape_value, tape_gradient) = on_tape(search_of_a_subslice_tape, &x);
        assert_eq!(value, search_of_a_subslice(x, &data));
        assert!((value - tape_value).abs() <= 1e-12 * (1.0 + value.abs()));
        assert_close(&gradient, &tape_gradient);
    }
}

// Seed 1128803 #11, #30, #420 (2026-11-29): `.last()` (new this session)
// of `enumerate`'s tuples over a range, after a `filter`, then
// `.map_or(v, g)`, was refused ("on elements it can tell are floats or
// indices"): the accumulator of the range's element had no start of its
// type. It starts from the range's start now. Minimized by hand.
#[differentiable]
fn last_of_a_range_filtered(x: &[f64], t: f64) -> f64 {
    let n = x.len();
    let v = (1..n)
        .rev()
        .enumerate()
        .filter(|&(i, _)| i <= 1)
        .last()
        .map_or(1.25 * t, |(i, k)| x[k] * t * (i as f64 + 2.0));
    let w = (2..=n)
        .filter(|k| k % 2 == 0)
        .last()
        .map_or(0.5, |k| x[k - 1] * t);
    v + w
}

fn last_of_a_range_filtered_tape<'t>(tape: &'t Tape, x: &[Var<'t>]) -> Var<'t> {
    let (xs, t) = (&x[..x.len() - 1], x[x.len() - 1]);
    let n = xs.len();
    // (the pairs are (0, n - 1), (1, n - 2), ..; the last with i <= 1 is
    // (1, n - 2))
    let v = if n >= 3 {
        xs[n - 2] * t * 3.0
    } else if n == 2 {
        xs[1] * t * 2.0
    } else {
        tape.var(1.25) * t
    };
    let last_even = (2..=n).filter(|k| k % 2 == 0).last();
    let w = match last_even {
        Some(k) => xs[k - 1] * t,
        None => tape.var(0.5),
    };
    v + w
}

#[test]
fn the_last_of_a_filtered_range() {
    for x in [
        vec![0.3, -1.2, 0.7, 0.4],
        vec![1.5, 0.25, -0.4, 0.9, 2.0, -0.8],
        vec![0.6, 0.2],
    ] {
        let (xs, t) = (&x[..x.len() - 1], x[x.len() - 1]);
        let (value, (gradient, dt)) = last_of_a_range_filtered_grad(xs, t);
        let (tape_value, tape_gradient) = on_tape(last_of_a_range_filtered_tape, &x);
        assert_eq!(value, last_of_a_range_filtered(xs, t));
        assert!((value - tape_value).abs() <= 1e-12 * (1.0 + value.abs()));
        let mut all = gradient.clone();
        all.push(dt);
        assert_close(&all, &tape_gradient);
    }
}

// Seed 1128804 #429, #729 (2026-11-29): `.filter(..).last().map(g)` of
// `zip`'s pairs of an index and a `chunks` subslice was refused ("a local
// subslice cannot be assigned another one"): the accumulator of the
// subslice was a local assigned each element. It holds the element's index
// now, and the subslice is rebuilt from it (also for `max_by`/`min_by`
// comparing subslices, and `if let Some((i, w)) = ..find(..)`). Minimized
// by the minimizer, then widened by hand.
#[differentiable]
fn reduced_subslices(y: &[f64]) -> f64 {
    let a: f64 = (0..3)
        .zip(y.chunks(2).skip(1))
        .filter(|&(c, _)| c < 2)
        .last()
        .map(|(d, j)| j[0] * (d as f64 + 1.0))
        .unwrap_or(y[0]);
    let b = y
        .windows(2)
        .enumerate()
        .max_by(|p, q| (p.1[0] * p.1[1]).total_cmp(&(q.1[0] * q.1[1])))
        .map(|(i, w)| w[1] + i as f64)
        .unwrap();
    let c = y
        .chunks(2)
        .filter(|c| c[0] > 0.0)
        .last()
        .map_or(0.0, |c| c.iter().sum::<f64>());
    let d = if let Some((i, w)) = y.windows(3).enumerate().find(|(_, w)| w[1] < 0.0) {
        w[0] * w[2] * i as f64
    } else {
        0.25
    };
    a + b + c + d
}

fn reduced_subslices_tape<'t>(tape: &'t Tape, y: &[Var<'t>]) -> Var<'t> {
    let n = y.len();
    let chunks: Vec<&[Var<'t>]> = y.chunks(2).collect();
    // (pairs (0, chunk 1), (1, chunk 2), (2, chunk 3); the last with c < 2)
    let a = match chunks.len() {
        0 | 1 => y[0],
        2 => chunks[1][0] * 1.0,
        _ => chunks[2][0] * 2.0,
    };
    let mut best = 0;
    for i in 1..n - 1 {
        let (p, q) = (
            y[best].value() * y[best + 1].value(),
            y[i].value() * y[i + 1].value(),
        );
        if p.total_cmp(&q) != std::cmp::Ordering::Greater {
            best = i;
        }
    }
    let b = y[best + 1] + best as f64;
    let mut c = tape.var(0.0);
    for chunk in &chunks {
        if chunk[0].value() > 0.0 {
            c = chunk.iter().fold(tape.var(-0.0), |s, v| s + *v);
        }
    }
    let mut d = tape.var(0.25);
    for i in 0..n.saturating_sub(2) {
        if y[i + 1].value() < 0.0 {
            d = y[i] * y[i + 2] * i as f64;
            break;
        }
    }
    a + b + c + d
}

#[test]
fn reducers_of_subslices() {
    for x in [
        vec![0.55, 1.5, -2.2, 0.3, 0.9, 1.1, -0.4],
        vec![0.55, 1.5, 2.2],
        vec![-0.3, 0.8, 0.2, -0.9, 0.4],
    ] {
        let (value, gradient) = reduced_subslices_grad(&x);
        let (tape_value, tape_gradient) = on_tape(reduced_subslices_tape, &x);
        assert_eq!(value, reduced_subslices(&x));
        assert!((value - tape_value).abs() <= 1e-12 * (1.0 + value.abs()));
        assert_close(&gradient, &tape_gradient);
    }
}

// Seed 1128809 #100 (2026-11-29): `if let Some(g) = chain.map(|v| SCALE)
// .filter(..).next()` was refused ("on elements it can tell are floats or
// indices"): the mapped value, a constant whose type the macro cannot see,
// needed an accumulator started before the first element that passes. Its
// index is kept now and the `map` evaluated again there. Also
// `chain.last().unwrap()` outside a destructuring `let`, which was taken
// for a slice's `last()` ("an iterator consumed in the same expression").
// Minimized by the minimizer, then by hand.
const SCALE_OF_100: f64 = 1.5;

#[allow(clippy::double_ended_iterator_last, clippy::filter_next)]
#[differentiable]
fn mapped_constants_found(a: &[f64], t: &[f64]) -> f64 {
    let mut s = 0.0;
    if let Some(g) = a
        .iter()
        .copied()
        .rev()
        .skip(1)
        .map(|_| SCALE_OF_100)
        .filter(|&w| w < 2.0)
        .next()
    {
        s += t[0] * g;
    } else {
        s += t[1];
    }
    let b = a
        .iter()
        .map(|_| SCALE_OF_100 * 2.0)
        .filter(|w| *w > 1.0)
        .last()
        .unwrap()
        * a[1];
    s + b
}

fn mapped_constants_found_tape<'t>(_tape: &'t Tape, x: &[Var<'t>]) -> Var<'t> {
    let (a, t) = (&x[..x.len() - 2], &x[x.len() - 2..]);
    let s = if a.len() >= 2 {
        t[0] * SCALE_OF_100
    } else {
        t[1] * 1.0
    };
    s + a[1] * (SCALE_OF_100 * 2.0)
}

#[test]
fn constants_a_map_returns_are_found_again() {
    for x in [vec![0.55, 1.5, -2.2, 0.3, 0.9], vec![0.7, -0.4, 1.1, 2.0]] {
        let (a, t) = (&x[..x.len() - 2], &x[x.len() - 2..]);
        let (value, (da, dt)) = mapped_constants_found_grad(a, t);
        let (tape_value, tape_gradient) = on_tape(mapped_constants_found_tape, &x);
        assert_eq!(value, mapped_constants_found(a, t));
        assert!((value - tape_value).abs() <= 1e-12 * (1.0 + value.abs()));
        let mut all = da.clone();
        all.extend_from_slice(&dt);
        assert_close(&all, &tape_gradient);
    }
}

/// Seed 1128847 #369, minimized: a closure typed `-> [f64; 2]` returning
/// helper values of constants (no element known to be a float) is an array
/// of floats by its type, usable whole (`t.to_vec()`); it was refused as
/// "kept as separate values".
#[differentiable]
fn plus_two(x: f64) -> f64 {
    2.0 + x
}

#[differentiable]
fn closure_array_of_constants(b: f64) -> f64 {
    let j = |_z: f64| -> [f64; 2] { [plus_two(-1.25), plus_two(3.0)] };
    let t = j(b);
    let k: Vec<f64> = t.to_vec();
    let mut u = t;
    u[0] *= b;
    k[1] * b + t[0] + u[0]
}

#[test]
fn a_closure_typed_to_return_floats_returns_an_array() {
    for b in [0.5, -1.5, 2.0] {
        let (value, d) = closure_array_of_constants_grad(b);
        assert_eq!(value, 5.0 * b + 0.75 + 0.75 * b);
        assert_eq!(d, 5.0 + 0.75);
    }
}

/// Seed 14 #26 (the in-suite batch once the generator wrote ping-pong
/// buffers), minimized: a `find` after a `filter_map` after a `map`, the
/// found value rebuilt after the loop from the index kept. The
/// `filter_map`'s value reads the `map`'s, a local of the loop's body,
/// which the rebuilt value named: E0425. Both are now replaced by what
/// they stand for.
#[differentiable]
fn found_after_two_maps(a: [f64; 3]) -> f64 {
    let v: f64 = a[0] * a[1];
    let found = if let Some(t) = a
        .iter()
        .rev()
        .map(|v| *v + a[2])
        .filter_map(|t3| if t3 > 0.25 { Some(t3) } else { None })
        .find(|&d| d >= -0.25)
    {
        std::f64::consts::E.hypot(t)
    } else {
        a[2]
    };
    found * v.cos()
}

fn found_after_two_maps_tape<'t>(_tape: &'t Tape, a: &[Var<'t>]) -> Var<'t> {
    let v = a[0] * a[1];
    let found = match a.iter().rev().map(|v| *v + a[2]).find(|t| t.value() > 0.25) {
        Some(t) => t.hypot(std::f64::consts::E),
        None => a[2],
    };
    found * v.cos()
}

#[test]
fn a_value_found_after_two_maps_is_rebuilt_from_its_index() {
    for x in [[0.3, -0.7, 1.2], [0.9, 0.1, -0.5], [-2.0, -1.0, -0.5]] {
        let (value, gradient) = found_after_two_maps_grad(x);
        let (tape_value, tape_gradient) = on_tape(found_after_two_maps_tape, &x);
        assert_eq!(value, found_after_two_maps(x));
        assert!((value - tape_value).abs() <= 1e-12 * (1.0 + value.abs()));
        assert_close(&gradient, &tape_gradient);
    }
}

/// Seed 1128899, program 325 (second order), minimized: `if let` of a
/// `find` over a `map` whose closure is an `if` with a constant the macro
/// cannot type in its first branch (`OFFSET_RR`) and the element in
/// another, after a `filter` and an `enumerate`. The found value's
/// accumulator needs a start before the loop, of the element's type,
/// which the macro took from the first branch alone: it could not tell,
/// and refused the function. Every branch of an `if` (every arm of a
/// `match`) has the type of the whole, so one that is a float says so.
const OFFSET_RR: f64 = 0.75;

#[differentiable]
fn found_through_an_if_of_a_constant(x: &[f64]) -> f64 {
    let found = if let Some(v) = x
        .iter()
        .filter(|&&e| e != 0.5)
        .enumerate()
        .map(|(c, &e)| e * x[0] + c as f64 * 0.25)
        .map(|e| if e > 1.0 { OFFSET_RR } else { e })
        .find(|&e| e < 0.5)
    {
        v
    } else {
        x[1]
    };
    let arms = if let Some(v) = x
        .iter()
        .filter(|&&e| e != 0.5)
        .enumerate()
        .map(|(c, &e)| e.sin() - c as f64)
        .map(|e| match e > 0.0 {
            true => OFFSET_RR,
            false => e,
        })
        .find(|&e| e < 0.75)
    {
        v
    } else {
        x[2]
    };
    found * x[2] + arms
}

fn found_through_an_if_of_a_constant_tape<'t>(tape: &'t Tape, x: &[Var<'t>]) -> Var<'t> {
    // (the constant as a variable of its own, whose gradient is not read)
    let found = x
        .iter()
        .filter(|e| e.value() != 0.5)
        .enumerate()
        .map(|(c, &e)| e * x[0] + c as f64 * 0.25)
        .map(|e| {
            if e.value() > 1.0 {
                tape.var(OFFSET_RR)
            } else {
                e
            }
        })
        .find(|e| e.value() < 0.5)
        .unwrap_or(x[1]);
    let arms = x
        .iter()
        .filter(|e| e.value() != 0.5)
        .enumerate()
        .map(|(c, &e)| e.sin() - c as f64)
        .map(|e| {
            if e.value() > 0.0 {
                tape.var(OFFSET_RR)
            } else {
                e
            }
        })
        .find(|e| e.value() < 0.75)
        .unwrap_or(x[2]);
    found * x[2] + arms
}

#[test]
fn an_if_with_a_constant_first_is_a_float_if_another_branch_is() {
    for x in [
        [0.3, -0.7, 1.2],
        [2.0, 0.6, -0.5],
        [1.5, 3.0, 0.25],
        [-0.4, 0.1, -2.0],
    ] {
        let (value, gradient) = found_through_an_if_of_a_constant_grad(&x);
        let (tape_value, tape_gradient) = on_tape(found_through_an_if_of_a_constant_tape, &x);
        assert_eq!(value, found_through_an_if_of_a_constant(&x));
        assert!((value - tape_value).abs() <= 1e-12 * (1.0 + value.abs()));
        assert_close(&gradient, &tape_gradient);
    }
}
