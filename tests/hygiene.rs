//! No name a user may choose changes what `#[differentiable]` generates:
//! locals named like every family of generated names (temporaries, adjoints,
//! tangents, tapes, counters, the `_adjoint`'s own arguments), in
//! straight-line code, loops, branches and calls; and expressions keep their
//! meaning whatever is substituted into them (casts, unary minus, method
//! calls on casts and literals). Each function is checked against central
//! finite differences and a hand-written gradient, and `_adjoint` against
//! `_grad` with pre-filled buffers.

// The functions are written as users write them, names and all.
#![allow(non_snake_case, clippy::let_and_return, clippy::needless_range_loop)]

mod common;

use autograd::differentiable;
use common::check_gradient_and_adjoint;

// ----- the reports --------------------------------------------------

#[differentiable]
fn t0_local(x: f64, y: f64) -> f64 {
    let t0 = x.sin() * y;
    t0
}

#[test]
fn a_local_named_like_a_temporary_keeps_its_own_adjoint() {
    let (value, (dx, dy)) = t0_local_grad(0.7, 2.0);
    assert_eq!(value, 0.7_f64.sin() * 2.0);
    assert_eq!(dy, 0.7_f64.sin());
    assert_eq!(dx, 0.7_f64.cos() * 2.0);
}

#[differentiable]
fn adjoint_named_locals(x: f64, w: &[f64]) -> f64 {
    let d_x = x * 2.0;
    let d_w = w[0] * d_x;
    d_w + x
}

#[test]
fn locals_named_like_the_adjoint_arguments() {
    let (value, (dx, dw)) = adjoint_named_locals_grad(1.5, &[3.0, 4.0]);
    assert_eq!(value, 3.0 * 3.0 + 1.5);
    assert_eq!(dx, 2.0 * 3.0 + 1.0);
    assert_eq!(dw, vec![3.0, 0.0]);
    let (mut d_x, mut d_w) = (0.5, [1.0, 1.0]);
    adjoint_named_locals_adjoint(1.5, &[3.0, 4.0], 2.0, &mut d_x, &mut d_w);
    assert_eq!((d_x, d_w), (0.5 + 2.0 * 7.0, [1.0 + 2.0 * 3.0, 1.0]));
}

#[differentiable]
fn cast_precedence(x: f64, n: usize) -> f64 {
    -(n as f64) * x + (n as f64).mul_add(1.5, x)
}

#[test]
fn casts_keep_their_parentheses() {
    let (value, dx) = cast_precedence_grad(0.25, 3);
    assert_eq!(value, cast_precedence(0.25, 3));
    assert_eq!(dx, -3.0 + 1.0);
}

#[differentiable]
fn square(x: f64) -> f64 {
    x * x
}

#[differentiable]
fn vec_of_literals(a0: [f64; 1], x1: f64) -> f64 {
    let mut b4: Vec<f64> = vec![0.0; a0.len()];
    for i in 0..1 {
        b4[i] += square(b4[i].cos()) * x1;
    }
    b4[0]
}

#[test]
fn a_filled_vec_keeps_its_element_type() {
    let (value, (da, dx)) = vec_of_literals_grad([0.3], 2.0);
    assert_eq!(value, 2.0);
    assert_eq!((da, dx), ([0.0], 1.0));
}

#[differentiable]
fn if_in_bare_block(x: f64, w: f64) -> f64 {
    let mut t = x;
    {
        #[allow(clippy::all)]
        if 1.0 > 2.0 {
            t = w;
        } else {
            t += 1.0;
        }
    }
    t
}

#[test]
fn an_if_inside_a_bare_block_keeps_its_assignments() {
    assert_eq!(if_in_bare_block(1.0, 5.0), 2.0);
    assert_eq!(if_in_bare_block_grad(1.0, 5.0), (2.0, (1.0, 0.0)));
}

#[differentiable]
fn break_in_bare_block(x: f64, n: usize) -> f64 {
    let mut s = 0.0;
    let mut i = 0;
    loop {
        {
            if i >= n {
                break;
            }
        }
        s += x * i as f64;
        i += 1;
    }
    s
}

#[test]
fn a_jump_inside_a_bare_block() {
    let (value, dx) = break_in_bare_block_grad(2.0, 4);
    assert_eq!(value, break_in_bare_block(2.0, 4));
    assert_eq!(value, 12.0);
    assert_eq!(dx, 6.0);
}

// ----- every family of generated names, as user locals ----------------------

#[differentiable]
fn generated_looking_names(x: f64, y: f64) -> f64 {
    let __ad_t0 = x * y;
    let __ad_d___ad_t0 = __ad_t0.sin();
    let __ad_d_t0 = __ad_d___ad_t0 * x;
    let t1 = __ad_d_t0 + y;
    let __ad_p_t1 = t1 * t1;
    let __ad_dot_t1 = __ad_p_t1 - x;
    let __ad_value = __ad_dot_t1 / (1.0 + y * y);
    let d_out = __ad_value * 2.0;
    let tmp = d_out + __ad_value;
    let value = tmp * x;
    value
}

fn generated_looking_names_by_hand(x: f64, y: f64) -> f64 {
    let a = x * y;
    let b = a.sin();
    let c = b * x;
    let t1 = c + y;
    let p = t1 * t1;
    let q = p - x;
    let v = q / (1.0 + y * y);
    let tmp = 3.0 * v;
    tmp * x
}

#[test]
fn straight_line_code_with_generated_looking_names() {
    let f = |p: &[f64]| generated_looking_names(p[0], p[1]);
    check_gradient_and_adjoint(
        f,
        |p| {
            let (v, (dx, dy)) = generated_looking_names_grad(p[0], p[1]);
            (v, vec![dx, dy])
        },
        |p, d_out, d| {
            let (mut dx, mut dy) = (d[0], d[1]);
            let v = generated_looking_names_adjoint(p[0], p[1], d_out, &mut dx, &mut dy);
            d.copy_from_slice(&[dx, dy]);
            v
        },
        &[[0.3, 0.7], [-1.2, 0.4], [2.0, -0.5]],
    );
    for p in [[0.3, 0.7], [-1.2, 0.4]] {
        assert_eq!(
            generated_looking_names(p[0], p[1]),
            generated_looking_names_by_hand(p[0], p[1])
        );
    }
}

#[differentiable]
fn names_in_loops(x: &[f64], n: usize) -> f64 {
    let mut __ad_cell_s_0 = 0.0;
    let mut __ad_n0 = 1.0;
    let mut __ad_tape_s = 0.0_f64;
    let mut i = 0;
    while i < n {
        let __ad_i = x[i % x.len()];
        let __ad_old1 = __ad_i * __ad_n0;
        __ad_cell_s_0 += __ad_old1.sin();
        __ad_n0 *= 1.0 + 0.1 * __ad_i;
        __ad_tape_s = __ad_tape_s.max(__ad_i);
        if __ad_cell_s_0 > 5.0 {
            break;
        }
        i += 1;
    }
    let mut __ad_undo_b = [0.0; 3];
    for __ad_k in 0..3 {
        __ad_undo_b[__ad_k] = x[__ad_k] * __ad_cell_s_0;
        __ad_undo_b[__ad_k] *= __ad_tape_s;
    }
    __ad_undo_b[0] + __ad_undo_b[1] * __ad_undo_b[2] + __ad_n0
}

#[test]
fn loops_with_generated_looking_names() {
    let f = |p: &[f64]| names_in_loops(p, 5);
    check_gradient_and_adjoint(
        f,
        |p| names_in_loops_grad(p, 5),
        |p, d_out, d| names_in_loops_adjoint(p, 5, d_out, d),
        &[[0.3, 0.7, -0.2], [1.1, -0.4, 0.6]],
    );
}

#[differentiable]
fn callee_with_odd_names(d_out: f64, __ad_t0: f64) -> f64 {
    let d_d_out = d_out * __ad_t0;
    d_d_out.tanh() + d_out
}

#[differentiable]
fn caller_with_odd_names(out: f64, x: f64) -> f64 {
    let __ad_dp___ad_t0_0 = callee_with_odd_names(out, x);
    let __ad_slot = callee_with_odd_names(__ad_dp___ad_t0_0, out);
    __ad_slot * x + __ad_dp___ad_t0_0
}

#[test]
fn parameters_named_like_the_adjoint_arguments() {
    // `d_out` as a parameter; `out`, whose adjoint argument would be `d_out`.
    let f = |p: &[f64]| caller_with_odd_names(p[0], p[1]);
    check_gradient_and_adjoint(
        f,
        |p| {
            let (v, (a, b)) = caller_with_odd_names_grad(p[0], p[1]);
            (v, vec![a, b])
        },
        |p, d_out, d| {
            let (mut a, mut b) = (d[0], d[1]);
            let v = caller_with_odd_names_adjoint(p[0], p[1], d_out, &mut a, &mut b);
            d.copy_from_slice(&[a, b]);
            v
        },
        &[[0.3, 0.7], [-0.8, 0.5]],
    );
}

#[differentiable]
fn branch_names(x: f64, y: f64) -> f64 {
    let mut __ad_c0 = x;
    let __ad_cell_result_0 = y * 2.0;
    let r = if __ad_c0 > 0.0 {
        __ad_c0 *= __ad_cell_result_0;
        __ad_c0.exp()
    } else {
        let __ad_ret = __ad_c0 - y;
        __ad_ret * __ad_ret
    };
    r + __ad_c0
}

#[test]
fn branches_with_generated_looking_names() {
    let f = |p: &[f64]| branch_names(p[0], p[1]);
    check_gradient_and_adjoint(
        f,
        |p| {
            let (v, (a, b)) = branch_names_grad(p[0], p[1]);
            (v, vec![a, b])
        },
        |p, d_out, d| {
            let (mut a, mut b) = (d[0], d[1]);
            let v = branch_names_adjoint(p[0], p[1], d_out, &mut a, &mut b);
            d.copy_from_slice(&[a, b]);
            v
        },
        &[[0.3, 0.2], [-0.8, 0.5]],
    );
}

#[differentiable]
fn returns_from_loop_named(x: f64, n: usize) -> f64 {
    let mut __ad_ret = x;
    let mut __ad_returned = 0.0;
    for i in 0..n {
        __ad_returned += __ad_ret;
        if i == 2 {
            return __ad_returned * x;
        }
        __ad_ret *= 1.5;
    }
    __ad_ret
}

#[test]
fn early_return_from_a_loop_with_generated_looking_names() {
    for n in [1, 5] {
        let f = |p: &[f64]| returns_from_loop_named(p[0], n);
        check_gradient_and_adjoint(
            f,
            |p| {
                let (v, d) = returns_from_loop_named_grad(p[0], n);
                (v, vec![d])
            },
            |p, d_out, d| {
                let mut dx = d[0];
                let v = returns_from_loop_named_adjoint(p[0], n, d_out, &mut dx);
                d[0] = dx;
                v
            },
            &[[0.3], [-1.7]],
        );
    }
}

// ----- precedence of substituted expressions ------------------------------

const K: f64 = 0.5;

#[differentiable]
fn substituted(x: f64, n: usize, m: i32) -> f64 {
    let a = -(n as f64).sqrt() * x;
    let b = (-(m as f64)).abs() * x;
    let c = 2.0_f64.powf(x) - (n as f64 - 1.0) * -x;
    let d = -K * x + (K - 1.0).mul_add(x, K) + f64::max(x, -(m as f64));
    let e = std::f64::consts::PI.sin() * x + (1 + n) as f64 / x;
    a + b + c + d + e
}

#[test]
fn casts_negations_and_literal_receivers_keep_their_meaning() {
    let (n, m) = (4, -3);
    let f = |p: &[f64]| substituted(p[0], n, m);
    check_gradient_and_adjoint(
        f,
        |p| {
            let (v, d) = substituted_grad(p[0], n, m);
            (v, vec![d])
        },
        |p, d_out, d| {
            let mut dx = d[0];
            let v = substituted_adjoint(p[0], n, m, d_out, &mut dx);
            d[0] = dx;
            v
        },
        &[[0.3], [1.7], [-2.5]],
    );
}

// ----- idiomatic constructs with generated-looking names --------------------

#[differentiable]
fn chains_with_odd_names(x: &[f64], w: &[f64]) -> f64 {
    let __ad_i0 = 0.5;
    let acc = x
        .iter()
        .zip(w)
        .map(|(t0, __ad_t1)| t0 * __ad_t1)
        .sum::<f64>();
    let sq = |d_x: f64| d_x * d_x + __ad_i0;
    let (__ad_arg0, d_w) = (sq(acc), x[0].sin_cos());
    let tmp = x.iter().fold(0.0, |__ad_acc, i| __ad_acc + i * d_w.1);
    let m = match x.len() {
        0 => 0.0,
        1 | 2 => __ad_arg0,
        _ => d_w.0 * tmp,
    };
    m + __ad_arg0 * tmp
}

fn chains_with_odd_names_by_hand(x: &[f64], w: &[f64]) -> f64 {
    let mut acc = 0.0;
    for i in 0..x.len() {
        acc += x[i] * w[i];
    }
    let a = acc * acc + 0.5;
    let (s, c) = x[0].sin_cos();
    let mut tmp = 0.0;
    for v in x {
        tmp += v * c;
    }
    let m = if x.len() <= 2 { a } else { s * tmp };
    m + a * tmp
}

#[test]
fn idiomatic_constructs_with_generated_looking_names() {
    let w = [0.3, -0.2, 0.9];
    let f = |p: &[f64]| chains_with_odd_names(p, &w);
    for p in [[0.3, 0.7, -0.4], [1.1, -0.5, 0.2]] {
        assert_eq!(f(&p), chains_with_odd_names_by_hand(&p, &w));
    }
    check_gradient_and_adjoint(
        f,
        |p| {
            let (value, (d_x, _)) = chains_with_odd_names_grad(p, &w);
            (value, d_x)
        },
        |p, d_out, d| {
            let mut d_w = [0.0; 3];
            chains_with_odd_names_adjoint(p, &w, d_out, d, &mut d_w)
        },
        &[[0.3, 0.7, -0.4], [1.1, -0.5, 0.2]],
    );
}

// ----- blocks inside conditions and indices ----------------------------------

#[differentiable]
fn block_in_condition(x: f64, w: &[f64]) -> f64 {
    let t = x * 2.0;
    let s = if {
        let t = 1.75;
        t * 0.5
    } < x
        || w[{
            let mut k = 0;
            k += 1;
            k
        }] > {
            let u = t;
            u
        } {
        t.sin()
    } else {
        x * w[0]
    };
    s + t
}

#[test]
fn blocks_with_lets_inside_conditions_and_indices() {
    let w = [0.3, 0.4];
    let f = |p: &[f64]| block_in_condition(p[0], &w);
    for x in [0.5_f64, 1.0, -2.0] {
        let t = x * 2.0;
        let expected = if 0.875 < x || 0.4 > t {
            t.sin()
        } else {
            x * 0.3
        } + t;
        assert_eq!(f(&[x]), expected);
    }
    check_gradient_and_adjoint(
        f,
        |p| {
            let (v, (dx, _)) = block_in_condition_grad(p[0], &w);
            (v, vec![dx])
        },
        |p, d_out, d| {
            let (mut dx, mut dw) = (d[0], [0.0; 2]);
            let v = block_in_condition_adjoint(p[0], &w, d_out, &mut dx, &mut dw);
            d[0] = dx;
            v
        },
        &[[0.5], [1.0], [-2.0]],
    );
}

// Random tester, seed 342128111 #262: a parameter named `d_out` read by a
// loop that only accumulates (fused: its seed was written `d_out`, the
// parameter, not the `_adjoint`'s own).
#[differentiable]
fn d_out_parameter_in_a_fused_loop(d_out: &[f64], scale: f64) -> f64 {
    let s = d_out[1..3].iter().rev().sum::<f64>();
    scale * s + d_out.iter().map(|v| v * v).sum::<f64>()
}

#[test]
fn a_parameter_named_d_out_read_by_an_accumulating_loop() {
    let x = [0.5, -1.0, 2.0];
    let (value, (dx, ds)) = d_out_parameter_in_a_fused_loop_grad(&x, 3.0);
    assert_eq!(value, 3.0 * 1.0 + 5.25);
    assert_eq!(dx, vec![1.0, 1.0, 7.0]);
    assert_eq!(ds, 1.0);
    let (mut dx, mut ds) = (vec![1.0; 3], 0.5);
    let v = d_out_parameter_in_a_fused_loop_adjoint(&x, 3.0, 2.0, &mut dx, &mut ds);
    assert_eq!(v, value);
    assert_eq!(dx, vec![3.0, 3.0, 15.0]);
    assert_eq!(ds, 2.5);
}

/// This session's constructs under names the generated code also uses:
/// a list of indices changed in place (`t0`), a collected vector (`d_x`),
/// a tuple-valued `if` binding `__ad_t1` and `d_out`.
#[differentiable]
fn new_constructs_with_generated_names(x: &[f64]) -> f64 {
    let mut t0 = Vec::new();
    for i in 0..x.len() {
        t0.push(i);
    }
    let d_x: Vec<f64> = t0.iter().map(|&i| x[i] * 2.0).collect();
    let (__ad_t1, d_out) = if d_x[0] < d_x[1] {
        (d_x[0], d_x[1])
    } else {
        (d_x[1], d_x[0])
    };
    __ad_t1 * d_out
        + match t0.len() {
            0 => 0.0,
            _ => d_x[2],
        }
}

#[test]
fn new_constructs_keep_user_names_apart() {
    let x = [1.0, 2.0, 3.0];
    let mut d = [0.0; 3];
    let value = new_constructs_with_generated_names_adjoint(&x, 1.0, &mut d);
    assert_eq!(value, new_constructs_with_generated_names(&x));
    // 2x0 · 2x1 + 2x2
    assert_eq!(d, [8.0, 4.0, 2.0]);
}

/// The seventh session's constructs under the names their expansion uses:
/// a buffer seen through a slice (`__ad_own_q` is a user local), a `loop`
/// value (`__ad_brk`), a labeled jump (`__ad_broke_outer`,
/// `__ad_continued_outer`), `any` in a condition (`__ad_test`, `g`),
/// `first`/`last`.
#[differentiable]
#[allow(non_snake_case, unused_assignments)]
fn seventh_session_constructs(x: &[f64]) -> f64 {
    let mut q = x.to_vec();
    let __ad_own_q = 0.5;
    let mut __ad_broke_outer = 1.0;
    let __ad_continued_outer = 2.0;
    'outer: for i in 0..q.len() {
        for j in 0..q.len() {
            if q[i] * q[j] > 8.0 {
                break 'outer;
            }
        }
        q[i] *= __ad_own_q;
        __ad_broke_outer += q[i];
    }
    let mut i = 0;
    let __ad_brk = loop {
        if q[i] > 0.6 || i + 1 == q.len() {
            break q[i] * __ad_continued_outer;
        }
        i += 1;
    };
    let g = 3.0;
    let __ad_test = if q.iter().any(|&v| v > 1.0) { g } else { 1.0 };
    __ad_brk * __ad_test + __ad_broke_outer * q.first().copied().unwrap_or(0.0) * *q.last().unwrap()
}

#[test]
fn seventh_session_constructs_keep_user_names_apart() {
    for x in [[1.0, 2.0, 3.0], [0.5, 1.5, 4.0]] {
        let (value, dx) = seventh_session_constructs_grad(&x);
        assert_eq!(value, seventh_session_constructs(&x));
        common::assert_gradient(seventh_session_constructs, &x, &dx);
    }
}

/// This session's constructs under the names their expansion uses: a
/// counted `while` (`__ad_count` is the user's counter, read after the
/// loop), a recurrence restarted forwards (`t0`, `t1`), dot products in a
/// recorded nest with a running maximum, a closure and a `match`.
#[differentiable(wrt(w))]
#[allow(non_snake_case)]
fn eighth_session_constructs(w: &[f64], xs: &[f64]) -> f64 {
    let degree = w.len();
    let model = |x: f64| -> f64 {
        let mut t0 = 1.0;
        let mut t1 = x;
        let mut acc = w[0] + w[1] * x;
        let mut __ad_count = 2;
        while __ad_count < degree {
            let t2 = 2.0 * x * t1 - t0;
            acc += w[__ad_count] * t2;
            t0 = t1;
            t1 = t2;
            __ad_count += 1;
        }
        acc * __ad_count as f64
    };
    let mut d_x = 0.0;
    let mut m = f64::NEG_INFINITY;
    for (i, x) in xs.iter().enumerate() {
        let mut s = 0.0;
        for k in 0..degree {
            s += w[k] * x * (i + k) as f64;
        }
        if s > m {
            m = s;
        }
        d_x += match model(*x) > 1.0 {
            true => 2.0 * model(*x) - 1.0,
            false => model(*x) * model(*x),
        };
    }
    d_x + m
}

#[test]
fn eighth_session_constructs_keep_user_names_apart() {
    let xs = [0.3, -0.6, 0.8, 0.1];
    for w in [[0.5, -0.2, 0.3, 0.1], [-0.4, 0.6, 0.2, -0.3]] {
        let (value, dw) = eighth_session_constructs_grad(&w, &xs);
        assert_eq!(value, eighth_session_constructs(&w, &xs));
        common::assert_gradient(|w| eighth_session_constructs(w, &xs), &w, &dw);
    }
}

/// This session's constructs — an array literal split into values, a
/// `while` stepped by doubling, whole arrays assigned, a branch that alone
/// reads a value — under the names their expansions use: `d_0` (a split
/// array's element), `__ad_trips` (a stepped `while`'s count), `__ad_new`
/// and `__ad_k` (a whole assignment's values and index).
#[differentiable(wrt(x))]
fn ninth_session_constructs(x: &[f64]) -> f64 {
    let d_0 = x[0] * 2.0;
    let d = [x[1], x[2] * d_0];
    let mut __ad_trips = 0.5;
    let mut len = 1;
    while len < 8 {
        __ad_trips += d[0] * d_0 + d[1] / len as f64;
        len *= 2;
    }
    let mut s = [x[0], x[1]];
    let __ad_new = 3.0;
    let __ad_k = [x[2], x[3]];
    s = [s[1] * __ad_new, s[0] - __ad_k[1]];
    let mut t = [x[3], 0.5];
    let before = t[0] * t[1];
    t = __ad_k;
    let r2 = s[0] * s[0] + t[1] + before;
    let near = if r2 < 4.0 { r2.sqrt() } else { 0.5 };
    s[0] + s[1] + __ad_trips + d.len() as f64 + t[0] + near
}

#[test]
fn ninth_session_constructs_keep_user_names_apart() {
    check_gradient_and_adjoint(
        ninth_session_constructs,
        ninth_session_constructs_grad,
        ninth_session_constructs_adjoint,
        &[
            [0.3, -0.6, 0.8, 0.1],
            [0.5, 0.2, -0.3, 0.7],
            [0.1, 0.9, 0.4, 0.2],
        ],
    );
}

/// A user's function mixing this session's paths with the names people
/// write (`t0`, `d_x`): a closure with a `match`, rows of data from
/// `chunks` zipped with labels, a value only a branch reads, a `while`
/// stepped by doubling, an array split into values, one assigned whole.
#[differentiable(wrt(w))]
fn user_fit(w: &[f64], data: &[f64], labels: &[usize], p: usize) -> f64 {
    let t0 = 0.5;
    let act = |z: f64| match z > 0.0 {
        true => z,
        false => t0 * z,
    };
    let mut d_x = 0.0;
    for (row, &label) in data.chunks(p).zip(labels) {
        let z: f64 = row.iter().zip(w).map(|(a, b)| a * b).sum();
        let r2 = z * z + row[0];
        if r2 < 1.5 {
            d_x += act(z).powi(2) * (label as f64 + 1.0);
        }
    }
    let mut scale = 1.0;
    let mut len = 1;
    while len < p {
        scale *= 1.0 + w[len] * w[len];
        len *= 2;
    }
    let s = [d_x, scale];
    let mut out = [w[0], 0.0];
    let first = out[0];
    out = [s[1], s[0] * t0];
    out[0] + out[1] + first
}

#[test]
fn a_users_fit_keeps_its_names() {
    let data = [
        0.3, -0.6, 0.8, 0.1, 0.9, 0.4, -0.7, 0.2, 0.5, -0.1, 0.6, -0.8,
    ];
    let labels = [0, 2, 1];
    for w in [
        [0.5, -0.2, 0.3, 0.1],
        [-0.4, 0.6, 0.2, -0.3],
        [1.1, 0.7, -0.9, 0.4],
    ] {
        let (value, gradient) = user_fit_grad(&w, &data, &labels, 4);
        assert_eq!(value, user_fit(&w, &data, &labels, 4));
        common::assert_gradient(|w| user_fit(w, &data, &labels, 4), &w, &gradient);
    }
}

/// The tenth session's constructs — a triangular product whose reverse
/// counts its integer forwards (`__ad_first`, `__ad_back_<cell>`), the
/// adjoint of a buffer through a slice (`__ad_own_d_<buffer>`), adjacent
/// loops over one range fused — under the names their expansions use.
#[differentiable(wrt(x))]
fn tenth_session_constructs(x: &[f64]) -> f64 {
    let d = 3;
    let __ad_first = x[0] * 0.5;
    let mut q = vec![0.0; d];
    let mut __ad_own_d_q = vec![0.0; d];
    let mut __ad_back_cell_l = 0.0;
    for i in 0..2 {
        for j in 0..d {
            q[j] = x[j] * __ad_first;
        }
        for j in 0..d {
            __ad_own_d_q[j] = q[j] + x[j + 1];
        }
        let mut l = d;
        for col in 0..d {
            for row in col + 1..d {
                q[row] += x[l % 4] * __ad_own_d_q[col];
                l += 1;
            }
        }
        for j in 0..d {
            __ad_back_cell_l += q[j] * q[j] * (i as f64 + 1.0);
        }
    }
    __ad_back_cell_l + __ad_own_d_q[2]
}

#[test]
fn tenth_session_constructs_keep_user_names_apart() {
    check_gradient_and_adjoint(
        tenth_session_constructs,
        tenth_session_constructs_grad,
        tenth_session_constructs_adjoint,
        &[
            [0.3, -0.6, 0.8, 0.1],
            [0.5, 0.2, -0.3, 0.7],
            [0.1, 0.9, 0.4, 0.2],
        ],
    );
}

/// The eleventh session's constructs — a buffer undone as a span
/// (`__ad_undo_<buffer>`, `save_span`), a value read back from the element
/// it was stored into (`t`, `h[i]`) — under the names their expansions
/// use, and a local named like the runtime's methods. (`h` is a `Vec` on
/// purpose: a local buffer used through a slice, as users write it.)
#[allow(clippy::useless_vec)]
#[differentiable(wrt(x))]
fn eleventh_session_constructs(x: &[f64]) -> f64 {
    let __ad_undo_h = 0.5;
    let save_span = x[3] * 0.25;
    let mut h = vec![0.0; 3];
    let mut total = 0.0;
    for s in 0..2 {
        for i in 0..3 {
            let t = (x[i] * x[(i + s) % 3] + __ad_undo_h).tanh();
            h[i] = t;
        }
        for i in 0..3 {
            for k in 0..2 {
                total += h[i] * x[k] * h[(i + k) % 3] + save_span * h[i];
            }
        }
    }
    total
}

#[test]
fn eleventh_session_constructs_keep_user_names_apart() {
    check_gradient_and_adjoint(
        eleventh_session_constructs,
        eleventh_session_constructs_grad,
        eleventh_session_constructs_adjoint,
        &[
            [0.3, -0.6, 0.8, 0.1],
            [0.5, 0.2, -0.3, 0.7],
            [0.1, 0.9, 0.4, 0.2],
        ],
    );
}

/// A user's function with this session's paths and the names people
/// write: rows from `chunks` zipped with labels, a closure with a `match`
/// reading `t0`, a buffer named `d_x`, two steps over it (fused), a
/// triangular product (reversed counting up), an iterator sum. First and
/// second order, against finite differences.
#[differentiable(wrt(w), hessian)]
fn user_steps(w: &[f64], data: &[f64], labels: &[usize]) -> f64 {
    let d = w.len();
    let t0 = 0.25;
    let act = |z: f64| match z > 0.0 {
        true => z,
        false => t0 * z,
    };
    let mut d_x = vec![0.0; d];
    let mut q = vec![0.0; d];
    let mut loss = 0.0;
    for (row, &label) in data.chunks(d).zip(labels) {
        for j in 0..d {
            d_x[j] = row[j] - w[j];
        }
        for j in 0..d {
            q[j] = act(d_x[j]) * w[j];
        }
        let mut l = 0;
        for col in 0..d {
            for r in col + 1..d {
                q[r] += w[l % d] * d_x[col];
                l += 1;
            }
        }
        let s: f64 = q.iter().map(|v| v * v).sum();
        loss += match label {
            0 => s,
            _ => s.sqrt(),
        };
    }
    loss
}

#[test]
fn a_users_steps_keep_their_names() {
    let data: Vec<f64> = (0..24).map(|i| ((i * 7 % 11) as f64 - 5.0) * 0.3).collect();
    let labels = [0, 1, 0, 2, 1, 0];
    // (no w[j] on the grid of the data, multiples of 0.3: the kink of `act`)
    for w in [[0.37, -0.71, 0.53, 1.13], [-0.41, 0.62, 0.23, -0.29]] {
        let (value, gradient) = user_steps_grad(&w, &data, &labels);
        assert_eq!(value, user_steps(&w, &data, &labels));
        common::assert_gradient(|w| user_steps(w, &data, &labels), &w, &gradient);
        let (_, second_gradient, hessian) = user_steps_hessian(&w, &data, &labels);
        assert_eq!(second_gradient, gradient);
        for k in 0..4 {
            let h = 1e-5;
            let (mut a, mut b) = (w, w);
            a[k] += h;
            b[k] -= h;
            let (ga, gb) = (
                user_steps_grad(&a, &data, &labels).1,
                user_steps_grad(&b, &data, &labels).1,
            );
            for j in 0..4 {
                let fd = (ga[j] - gb[j]) / (2.0 * h);
                let exact = hessian[k * 4 + j];
                assert!(
                    (fd - exact).abs() <= 1e-5 * (1.0 + fd.abs()),
                    "H[{k}][{j}]: {exact} vs {fd}"
                );
            }
        }
    }
}

/// A user's function with the eleventh session's paths and the names people
/// write: rows from `chunks` zipped with labels, a closure with a `match`
/// reading `t0`, a buffer named `d_x` overwritten a step at a time (a span),
/// parameter rows `w[d + j]` checked once before their loops, an iterator
/// sum, a `match` on the label. First and second order, against finite
/// differences.
#[differentiable(wrt(w), hessian)]
fn user_rows(w: &[f64], data: &[f64], labels: &[usize]) -> f64 {
    let d = 3;
    let t0 = 0.1;
    let act = |z: f64| match z > 0.0 {
        true => z,
        false => t0 * z,
    };
    let mut d_x = vec![0.0; d];
    let mut loss = 0.0;
    for (row, &label) in data.chunks(d).zip(labels) {
        for j in 0..d {
            d_x[j] = act(w[j] * row[j] + w[d + j]);
        }
        let mut s = 0.0;
        for j in 0..d {
            s += d_x[j] * w[2 * d + j] + w[j] * w[d + j];
        }
        let target = match label {
            0 => -1.0,
            _ => 1.0,
        };
        loss += (s - target).powi(2) + d_x.iter().map(|v| v * v).sum::<f64>() * t0;
    }
    loss
}

#[test]
fn a_users_rows_keep_their_names() {
    let data: Vec<f64> = (0..18).map(|i| ((i * 5 % 7) as f64 - 3.0) * 0.35).collect();
    let labels = [0, 1, 2, 0, 1, 1];
    for w in [
        [0.37, -0.71, 0.53, 0.41, 0.29, -0.33, 0.62, -0.48, 0.19],
        [-0.41, 0.62, 0.23, -0.27, 0.51, 0.36, -0.14, 0.58, 0.77],
    ] {
        let (value, gradient) = user_rows_grad(&w, &data, &labels);
        assert_eq!(value, user_rows(&w, &data, &labels));
        common::assert_gradient(|w| user_rows(w, &data, &labels), &w, &gradient);
        let (_, second_gradient, hessian) = user_rows_hessian(&w, &data, &labels);
        for (a, b) in second_gradient.iter().zip(&gradient) {
            assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "{a} vs {b}");
        }
        for k in 0..9 {
            let h = 1e-5;
            let (mut a, mut b) = (w, w);
            a[k] += h;
            b[k] -= h;
            let (ga, gb) = (
                user_rows_grad(&a, &data, &labels).1,
                user_rows_grad(&b, &data, &labels).1,
            );
            for j in 0..9 {
                let fd = (ga[j] - gb[j]) / (2.0 * h);
                let exact = hessian[k * 9 + j];
                assert!(
                    (fd - exact).abs() <= 1e-5 * (1.0 + fd.abs()),
                    "H[{k}][{j}]: {exact} vs {fd}"
                );
            }
        }
    }
}

/// The twelfth session's rows (`emit/rows.rs`) under the names their
/// expansions use: locals named `__ad_row_w`, `__ad_row_d_w`, `row`,
/// `row_mut`, `index` and `given`, a parameter named `d_x` (whose adjoint
/// argument is `d_d_x`, written through a row of its own, `__ad_row_d_d_x`,
/// while the user's names keep theirs: the rows of `w` are `__ad_row_w_1`),
/// and a loop whose index is named like the row's arithmetic (`add`).
/// First and second order, against finite differences.
#[differentiable(wrt(w, d_x), hessian)]
fn twelfth_session_rows(w: &[f64], d_x: &[f64]) -> f64 {
    let (__ad_row_w, __ad_row_d_w, row) = (0.5, 0.25, 2);
    let row_mut = w.len() / 2;
    let mut total = 0.0;
    for index in 0..row {
        let mut given = 0.0;
        for add in 0..row_mut {
            given += w[index * row_mut + add] * d_x[add] * __ad_row_w + __ad_row_d_w;
        }
        total += given.sin();
    }
    total
}

#[test]
fn twelfth_session_rows_keep_user_names_apart() {
    // `w` is 2 × 5 (`row` × `row_mut`), `d_x` 5 long
    let points = [
        [
            0.3, -0.6, 0.8, 0.1, 0.5, 0.2, -0.3, 0.7, 0.9, -0.4, 1.1, 0.6, -0.2, 0.4, 0.8,
        ],
        [
            0.5, 0.2, -0.3, 0.7, 0.1, 0.9, 0.4, 0.2, -0.8, 0.3, 0.6, -0.1, 0.7, 0.3, -0.5,
        ],
    ];
    for p in points {
        let (w, d_x) = p.split_at(10);
        let f = |v: &[f64]| twelfth_session_rows(&v[..10], &v[10..]);
        let (value, gradient) = twelfth_session_rows_grad(w, d_x);
        assert_eq!(value, twelfth_session_rows(w, d_x));
        let flat: Vec<f64> = gradient.0.iter().chain(&gradient.1).copied().collect();
        let report = autograd::check::gradient(f, &p, &flat);
        assert!(report.is_ok(1e-6), "{report}");
        let (_, _, hessian) = twelfth_session_rows_hessian(w, d_x);
        let grad = |v: &[f64]| {
            let (_, (gw, gx)) = twelfth_session_rows_grad(&v[..10], &v[10..]);
            gw.iter().chain(&gx).copied().collect::<Vec<f64>>()
        };
        let report = autograd::check::hessian(grad, &p, &hessian);
        assert!(report.is_ok(1e-6), "{report}");
    }
}

/// The thirteenth session's additions under the names their expansions
/// use: a column (`__private::strided`, `__ad_row_v`), a row counting down
/// (`c[n - 1 - k]`), a span restored over its buffer's own length
/// (`__ad_elements`), a cell whose adjoint is set after its zeroing, and a
/// sum without `::<f64>`; the user's locals named `strided`, `offset`,
/// `__ad_row_v`, `__ad_elements`, `__ad_from`, `t0` and a parameter `d_v`
/// (adjoint `d_d_v`). First and second order, against finite differences.
#[differentiable(wrt(v, d_v), hessian)]
fn thirteenth_session(v: &[f64], d_v: &[f64]) -> f64 {
    let (strided, offset) = (2, v.len() / 2);
    let (__ad_row_v, __ad_from) = (0.5, 0.25);
    let mut __ad_elements = d_v.to_vec();
    let mut t0 = 0.0;
    for c in 0..strided {
        let mut o = 0.0;
        for j in 0..offset {
            o += v[j * strided + c] * __ad_row_v;
        }
        for k in 0..__ad_elements.len() {
            __ad_elements[k] = (__ad_elements[k] * o).sin();
        }
        t0 += o * o;
    }
    let n = d_v.len();
    let mut p = __ad_from;
    for k in 0..n {
        p = p * 0.5 + d_v[n - 1 - k] * __ad_elements[k];
    }
    let tail: f64 = (0..n).map(|k| __ad_elements[k] * v[k]).sum();
    t0 + p + tail
}

#[test]
fn thirteenth_session_keeps_user_names_apart() {
    // `v` is 6 long (3 rows of 2), `d_v` 5 long
    let points = [
        [0.3, -0.6, 0.8, 0.1, 0.5, 0.2, -0.3, 0.7, 0.9, -0.4, 1.1],
        [0.5, 0.2, -0.3, 0.7, 0.1, 0.9, 0.4, 0.2, -0.8, 0.3, 0.6],
    ];
    for p in points {
        let (v, d_v) = p.split_at(6);
        let f = |q: &[f64]| thirteenth_session(&q[..6], &q[6..]);
        let (value, gradient) = thirteenth_session_grad(v, d_v);
        assert_eq!(value, thirteenth_session(v, d_v));
        let flat: Vec<f64> = gradient.0.iter().chain(&gradient.1).copied().collect();
        let report = autograd::check::gradient(f, &p, &flat);
        assert!(report.is_ok(1e-6), "{report}");
        let (_, _, hessian) = thirteenth_session_hessian(v, d_v);
        let grad = |q: &[f64]| {
            let (_, (gv, gd)) = thirteenth_session_grad(&q[..6], &q[6..]);
            gv.iter().chain(&gd).copied().collect::<Vec<f64>>()
        };
        let report = autograd::check::hessian(grad, &p, &hessian);
        assert!(report.is_ok(1e-6), "{report}");
    }
}

// The fourteenth session's constructs under names a user may choose: a
// value forwarded into an inner loop (`y[j]` in `for i in j + 1..n`), a
// buffer given to a helper in a recorded nest, a scalar helper's partials,
// and a replay left out of a summing nest, with locals named `t0`, `d_x`,
// `d_y`, `__ad_sum`, `__ad_at` and `twin`.
#[differentiable]
fn fourteenth_session_helper(v: &[f64], t0: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += (v[i] * t0).exp();
    }
    s.ln()
}

#[differentiable]
fn fourteenth_session_squash(d_x: f64) -> f64 {
    d_x / (1.0 + d_x.abs())
}

#[differentiable]
fn fourteenth_session_names(x: &[f64]) -> f64 {
    let n = 3;
    let mut d_y = x[0..n].to_vec();
    for j in 0..n {
        d_y[j] /= 2.0 + x[j] * x[j];
        for i in j + 1..n {
            d_y[i] -= x[i + 1] * d_y[j];
        }
    }
    let mut twin = vec![0.0; n];
    let mut t0 = 0.0;
    for step in 0..3 {
        for i in 0..n {
            twin[i] = fourteenth_session_squash(d_y[i] * x[(i + step) % 5]);
        }
        let __ad_at = fourteenth_session_helper(&twin, 0.5);
        t0 += __ad_at * x[step];
    }
    let mut __ad_sum = 0.0;
    for c in 0..2 {
        for r in 0..2 {
            let mut d_x = 0.0;
            for k in 0..2 {
                d_x += x[c + r + k] * x[k];
            }
            __ad_sum += (d_x + 0.1 * c as f64).tanh();
        }
    }
    t0 * __ad_sum.sin()
}

#[test]
fn fourteenth_session_names_stay_apart() {
    let points = [[0.7, -1.3, 0.4, 1.9, -0.6], [1.2, 0.3, -0.8, 0.5, 2.1]];
    common::check_gradient_and_adjoint(
        fourteenth_session_names,
        fourteenth_session_names_grad,
        fourteenth_session_names_adjoint,
        &points,
    );
}

// The fifteenth session's constructs (arrays a recorded nest declares: a
// helper's returned array, a stage state, a buffer per step, their shapes,
// twins and pools) under names a user may choose.
#[differentiable]
fn fifteenth_session_rhs(__ad_shape_k1: &[f64; 2], p: &[f64]) -> [f64; 2] {
    [
        p[0] * __ad_shape_k1[0] - p[1] * __ad_shape_k1[1],
        p[2] * __ad_shape_k1[0] * __ad_shape_k1[1],
    ]
}

#[differentiable]
#[allow(clippy::useless_vec)]
fn fifteenth_session_names(x: &[f64]) -> f64 {
    let mut __ad_shapes_k1 = [x[3], x[4]];
    let mut __ad_as_called = 0.0;
    for __ad_shape in 0..3 {
        let k1 = fifteenth_session_rhs(&__ad_shapes_k1, x);
        let mut __ad_shape_k1 = [0.0; 2];
        for i in 0..2 {
            __ad_shape_k1[i] = __ad_shapes_k1[i] + 0.1 * k1[i];
        }
        let __ad_d_k1 = fifteenth_session_rhs(&__ad_shape_k1, x);
        let mut __ad_zeros = vec![0.0; __ad_shape + 1];
        for i in 0..__ad_shape + 1 {
            __ad_zeros[i] = x[i] * __ad_d_k1[i % 2];
        }
        let __ad_pool_hh = 0.25;
        let mut hh = vec![0.0; 2];
        for i in 0..2 {
            hh[i] = __ad_pool_hh * __ad_zeros[i % (__ad_shape + 1)];
        }
        for i in 0..2 {
            __ad_shapes_k1[i] += 0.05 * (k1[i] + __ad_d_k1[i]) + 0.01 * hh[i];
        }
        __ad_as_called += __ad_shapes_k1[0] * __ad_shapes_k1[1];
    }
    __ad_as_called
}

#[test]
fn fifteenth_session_names_stay_apart() {
    let points = [[0.7, -1.3, 0.4, 1.9, -0.6], [1.2, 0.3, -0.8, 0.5, 2.1]];
    common::check_gradient_and_adjoint(
        fifteenth_session_names,
        fifteenth_session_names_grad,
        fifteenth_session_names_adjoint,
        &points,
    );
}

// ----- fields named like locals (thirtieth session) -------------------------

/// Settings a function reads through fields named like its locals.
pub struct Settings {
    pub ys: usize,
    pub x: usize,
}

#[differentiable(hessian)]
fn sum_of_squares(a: &[f64]) -> f64 {
    a.iter().map(|v| v * v).sum()
}

/// A local array given to a helper through a subslice whose start is a
/// field of the same name: the Hessian's code renames the array (its
/// values and tangents), never the field (E0609 until 2026-11-29).
#[differentiable(hessian)]
fn field_named_like_a_local_array(x: &[f64], settings: &Settings) -> f64 {
    let ys = [x[0] * 2.0, x[1], x[2]];
    sum_of_squares(&ys[settings.ys..]) * x[0]
}

/// The same in a loop nest that records the array for the reverse, and
/// a local read inside a macro next to a field of its name.
#[allow(clippy::useless_vec)]
#[differentiable(wrt(p))]
fn fields_named_like_locals_in_loops(p: &[f64], settings: &Settings) -> f64 {
    let mut total = 0.0;
    for t in 0..3 {
        let mut ys = [0.0; 4];
        for i in 0..4 {
            ys[i] = p[i] * (t as f64 + 1.0);
        }
        total += sum_of_squares(&ys[settings.ys..]);
        for i in 0..4 {
            ys[i] *= 0.5;
        }
        total += ys[settings.x];
    }
    let x = p[0] * 2.0;
    let w = vec![x * settings.x as f64; 2];
    total + w[0] + w[1]
}

#[test]
fn fields_named_like_locals_are_not_renamed() {
    let settings = Settings { ys: 1, x: 1 };
    // (x₁² + x₂²) x₀: the gradient and the Hessian are exact at integers
    let x = [3.0, 2.0, 5.0];
    let (value, gradient, hessian) = field_named_like_a_local_array_hessian(&x, &settings);
    assert_eq!(value, 29.0 * 3.0);
    assert_eq!(gradient, vec![29.0, 12.0, 30.0]);
    assert_eq!(hessian, vec![0.0, 4.0, 10.0, 4.0, 6.0, 0.0, 10.0, 0.0, 6.0]);
    let f = |p: &[f64]| fields_named_like_locals_in_loops(p, &settings);
    check_gradient_and_adjoint(
        f,
        |p| fields_named_like_locals_in_loops_grad(p, &settings),
        |p, d, g| fields_named_like_locals_in_loops_adjoint(p, &settings, d, g),
        &[[1.0, 2.0, 3.0, 4.0], [-0.5, 0.25, 1.5, -2.0]],
    );
}
