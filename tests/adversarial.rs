//! Adversarial combinations of the supported constructs: every function is
//! checked for a bit-exact value, a gradient matching central finite
//! differences at several points, and an adjoint that adds `d_out` times the
//! gradient onto pre-filled buffers.

// The functions are deliberately written in odd ways.
#![allow(
    clippy::needless_return,
    clippy::assign_op_pattern,
    clippy::needless_range_loop,
    clippy::collapsible_else_if,
    clippy::collapsible_if,
    clippy::manual_clamp,
    clippy::mut_range_bound,
    clippy::useless_vec,
    clippy::eq_op,
    clippy::float_cmp,
    clippy::let_and_return,
    clippy::type_complexity,
    clippy::ptr_arg,
    clippy::neg_multiply,
    clippy::blocks_in_conditions,
    clippy::self_assignment,
    clippy::unused_unit,
    clippy::needless_late_init,
    unused_assignments
)]

mod common;

use autograd::differentiable;

// ----- the checker -----------------------------------------------------------

/// `|a - b| <= tolerance * (1 + |a|)`, false for NaN.
fn close(a: f64, b: f64, tolerance: f64) -> bool {
    (a - b).abs() <= tolerance * (1.0 + a.abs())
}

/// Checks `f`'s generated `_grad` and `_adjoint` (flattened to one input
/// vector) at every point: value bit for bit, gradient against central
/// differences, adjoint with `d_out = 2` onto pre-filled buffers.
fn check(
    name: &str,
    f: &dyn Fn(&[f64]) -> f64,
    grad: &dyn Fn(&[f64]) -> (f64, Vec<f64>),
    adjoint: &dyn Fn(&[f64], &mut [f64]) -> f64,
    points: &[&[f64]],
) {
    let mut errors = Vec::new();
    for &p in points {
        let want = f(p);
        let (value, g) = grad(p);
        if value.to_bits() != want.to_bits() {
            errors.push(format!(
                "{name} at {p:?}: _grad value {value:e}, f gives {want:e}"
            ));
        }
        if g.len() != p.len() {
            errors.push(format!("{name} at {p:?}: gradient has {} entries", g.len()));
            continue;
        }
        for i in 0..p.len() {
            let h = 1e-6 * p[i].abs().max(1.0);
            let at = |delta: f64| {
                let mut q = p.to_vec();
                q[i] += delta;
                f(&q)
            };
            let (plus, minus) = (at(h), at(-h));
            let numeric = (plus - minus) / (2.0 * h);
            if !close(numeric, g[i], 1e-6) {
                errors.push(format!(
                    "{name} at {p:?}: d/dp{i}: macro {:e}, finite differences {numeric:e} \
                     (one-sided {:e} / {:e})",
                    g[i],
                    (plus - want) / h,
                    (want - minus) / h
                ));
            }
        }
        let prefill: Vec<f64> = (0..p.len()).map(|i| 0.75 - 0.5 * i as f64).collect();
        let mut d = prefill.clone();
        let value = adjoint(p, &mut d);
        if value.to_bits() != want.to_bits() {
            errors.push(format!(
                "{name} at {p:?}: _adjoint value {value:e}, f gives {want:e}"
            ));
        }
        for i in 0..p.len() {
            let expected = prefill[i] + 2.0 * g[i];
            if !close(d[i], expected, 1e-12) {
                errors.push(format!(
                    "{name} at {p:?}: _adjoint d_p{i}: {:e}, expected prefill {} + 2 * {:e}",
                    d[i], prefill[i], g[i]
                ));
            }
        }
    }
    assert!(errors.is_empty(), "\n{}", errors.join("\n"));
}

/// One scalar parameter, then constants.
macro_rules! check_s1 {
    ($f:ident, $g:ident, $a:ident $(, $c:expr)*; $($p:expr),+ $(,)?) => {
        check(
            stringify!($f),
            &|p: &[f64]| $f(p[0] $(, $c)*),
            &|p: &[f64]| {
                let (v, d0) = $g(p[0] $(, $c)*);
                (v, vec![d0])
            },
            &|p: &[f64], d: &mut [f64]| $a(p[0] $(, $c)*, 2.0, &mut d[0]),
            &[$(&$p[..]),+],
        )
    };
}

/// Two scalar parameters, then constants.
macro_rules! check_s2 {
    ($f:ident, $g:ident, $a:ident $(, $c:expr)*; $($p:expr),+ $(,)?) => {
        check(
            stringify!($f),
            &|p: &[f64]| $f(p[0], p[1] $(, $c)*),
            &|p: &[f64]| {
                let (v, (d0, d1)) = $g(p[0], p[1] $(, $c)*);
                (v, vec![d0, d1])
            },
            &|p: &[f64], d: &mut [f64]| match d {
                [d0, d1] => $a(p[0], p[1] $(, $c)*, 2.0, d0, d1),
                _ => unreachable!(),
            },
            &[$(&$p[..]),+],
        )
    };
}

/// One slice parameter, then constants.
macro_rules! check_v {
    ($f:ident, $g:ident, $a:ident $(, $c:expr)*; $($p:expr),+ $(,)?) => {
        check(
            stringify!($f),
            &|p: &[f64]| $f(p $(, $c)*),
            &|p: &[f64]| $g(p $(, $c)*),
            &|p: &[f64], d: &mut [f64]| $a(p $(, $c)*, 2.0, d),
            &[$(&$p[..]),+],
        )
    };
}

// ----- branches, shadowing, blocks -------------------------------------------

#[differentiable]
fn shadow_in_branch(x: f64, y: f64) -> f64 {
    let a = x * y;
    let mut r = a;
    if x > 0.0 {
        let a = a.sin() + x;
        r = a * a;
    } else {
        let a = y - a;
        r += a;
    }
    r + a
}

#[test]
fn t01_shadow_in_branch() {
    check_s2!(shadow_in_branch, shadow_in_branch_grad, shadow_in_branch_adjoint;
        [0.7, 1.3], [-0.4, 2.1], [1.5, -0.8], [-1.2, -0.3]);
}

#[differentiable]
fn assign_one_branch(x: f64, y: f64) -> f64 {
    let mut t = x;
    let mut u = y;
    if x > y {
        t = x * y;
    } else {
        u = u * x;
    }
    t * u + t
}

#[test]
fn t02_assign_one_branch() {
    check_s2!(assign_one_branch, assign_one_branch_grad, assign_one_branch_adjoint;
        [2.0, 1.0], [1.0, 2.0], [-1.0, -3.0], [0.5, 0.6]);
}

#[differentiable]
fn else_if_chain(x: f64, y: f64) -> f64 {
    let mut a = 1.0;
    let mut b = 2.0;
    let mut c = x;
    if x < -1.0 {
        a = x * x;
    } else if x < 0.0 {
        b = y * x;
        c = a + b;
    } else if x < 1.0 {
        c = y.exp();
    } else {
        a = x;
        b = y;
        c = a * b * c;
    }
    a * b + c
}

#[test]
fn t03_else_if_chain() {
    check_s2!(else_if_chain, else_if_chain_grad, else_if_chain_adjoint;
        [-2.0, 0.3], [-0.5, 1.7], [0.5, -0.4], [2.0, 1.1]);
}

#[differentiable]
fn nested_if_value(x: f64, y: f64) -> f64 {
    let v = if x > 0.0 {
        if y > 0.0 {
            x * y
        } else {
            x - y
        }
    } else if y > 0.0 {
        let t = x + y;
        t * t
    } else {
        -x * y
    };
    v * x
}

#[test]
fn t04_nested_if_value() {
    check_s2!(nested_if_value, nested_if_value_grad, nested_if_value_adjoint;
        [0.7, 1.3], [0.7, -1.3], [-0.7, 1.3], [-0.7, -1.3]);
}

#[differentiable]
fn return_both_branches(x: f64, y: f64) -> f64 {
    if x > y {
        return x * x - y;
    } else {
        return y.sin() * x;
    }
}

#[test]
fn t05_return_both_branches() {
    check_s2!(return_both_branches, return_both_branches_grad, return_both_branches_adjoint;
        [2.0, 1.0], [1.0, 2.0], [-0.5, -2.5]);
}

#[differentiable]
fn tail_if_with_early_return(x: f64, y: f64) -> f64 {
    let a = x * y;
    if a > 1.0 {
        return a.ln();
    } else if a < -1.0 {
        a.exp()
    } else {
        let b = a * x;
        b + y
    }
}

#[test]
fn t06_tail_if_with_early_return() {
    check_s2!(tail_if_with_early_return, tail_if_with_early_return_grad,
        tail_if_with_early_return_adjoint;
        [2.0, 1.0], [-2.0, 1.0], [0.5, 0.5]);
}

#[differentiable]
fn block_values(x: f64, y: f64) -> f64 {
    let z = {
        let a = x * 2.0;
        let b = {
            let a = a + y;
            a * a
        };
        a + b
    };
    let w = {
        let t = z - x;
        t * y
    };
    z * w + {
        let z = w;
        z.cos()
    }
}

#[test]
fn t07_block_values() {
    check_s2!(block_values, block_values_grad, block_values_adjoint;
        [0.3, 0.4], [-0.6, 0.2], [0.9, -0.5]);
}

#[differentiable]
fn shadow_params(x: f64, y: f64) -> f64 {
    let x = x * y;
    let y = x + y;
    let x = {
        let x = y * x;
        x - 1.0
    };
    x * y
}

#[test]
fn t08_shadow_params() {
    check_s2!(shadow_params, shadow_params_grad, shadow_params_adjoint;
        [0.3, 0.4], [-1.6, 0.2], [0.9, -1.5]);
}

#[differentiable]
fn mut_param(mut x: f64, y: f64) -> f64 {
    x *= y;
    x += x;
    if x > 0.0 {
        x = x.sqrt();
    }
    x * y
}

#[test]
fn t09_mut_param() {
    check_s2!(mut_param, mut_param_grad, mut_param_adjoint;
        [1.0, 2.0], [-1.0, 2.0], [0.5, 3.0]);
}

#[differentiable]
fn compound_self(x: f64, y: f64) -> f64 {
    let mut a = x;
    a *= a;
    a /= a + y;
    a -= a * a;
    a += a;
    a
}

#[test]
fn t11_compound_self() {
    check_s2!(compound_self, compound_self_grad, compound_self_adjoint;
        [1.0, 2.0], [-1.5, 0.5], [0.5, 3.0]);
}

#[differentiable]
fn late_init_branches(x: f64, y: f64) -> f64 {
    let r;
    let q: f64;
    if x > 0.0 {
        r = x * y;
        q = r + 1.0;
    } else if y > 0.0 {
        r = y;
        q = x * r;
    } else {
        q = x - y;
        r = q * q;
    }
    r * q
}

#[test]

fn t12_late_init_branches() {
    check_s2!(late_init_branches, late_init_branches_grad, late_init_branches_adjoint;
        [1.0, 2.0], [-1.0, 2.0], [-0.5, -3.0]);
}

// ----- loops -------------------------------------------------------------------

#[differentiable]
fn trip_counts(x: f64, n: usize) -> f64 {
    let mut s = x;
    for i in 0..n {
        s = s * x + i as f64;
    }
    for _k in n..n {
        s = 0.0;
    }
    for i in (0..n).rev() {
        s += x * i as f64;
    }
    for i in 1..=n {
        s -= s * 0.1 * i as f64;
    }
    s
}

#[test]
fn t13_trip_counts() {
    for n in [0, 1, 3] {
        check_s1!(trip_counts, trip_counts_grad, trip_counts_adjoint, n;
            [0.9], [-1.3], [2.0]);
    }
}

#[differentiable]
fn underscore_loops(x: f64, n: usize) -> f64 {
    let mut s = 1.0;
    for _ in 0..n {
        s = s * x + 1.0;
    }
    let mut k = 0;
    while k < n {
        k += 1;
        s *= 0.5 + x;
    }
    s
}

#[test]
fn t14_underscore_loops() {
    for n in [0, 1, 4] {
        check_s1!(underscore_loops, underscore_loops_grad, underscore_loops_adjoint, n;
            [0.9], [-1.3], [2.0]);
    }
}

#[differentiable]
fn empty_inclusive(x: f64, lo: usize, hi: usize) -> f64 {
    let mut s = x;
    for i in lo..=hi {
        s = s * x + i as f64;
    }
    for i in (lo..hi).rev() {
        s = s * 0.5 + x * i as f64;
    }
    s * x
}

#[test]
fn t15_empty_inclusive() {
    for (lo, hi) in [(3, 2), (2, 2), (1, 3), (5, 0)] {
        check_s1!(empty_inclusive, empty_inclusive_grad, empty_inclusive_adjoint, lo, hi;
            [0.9], [-1.3], [2.0]);
    }
}

#[differentiable]
fn continue_before_after(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut p = 1.0;
    for i in 0..xs.len() {
        if i % 3 == 0 {
            continue;
        }
        s += xs[i] * p;
        if xs[i] < 0.0 {
            continue;
        }
        p *= xs[i];
    }
    s + p
}

#[test]
fn t16_continue_before_after() {
    check_v!(continue_before_after, continue_before_after_grad, continue_before_after_adjoint;
        [0.5, -1.2, 0.8, 1.5, -0.3, 2.0, 0.7],
        [1.1],
        [0.3, 0.4],
        [-0.5, 0.9, -1.1, 0.2]);
}

#[differentiable]
fn break_nested_if(xs: &[f64]) -> f64 {
    let mut acc = 0.0;
    for &v in xs {
        if v > 0.0 {
            if acc > 2.0 {
                break;
            }
            acc += v * v;
        } else {
            acc -= v * acc;
        }
    }
    acc
}

#[test]
fn t17_break_nested_if() {
    check_v!(break_nested_if, break_nested_if_grad, break_nested_if_adjoint;
        [0.5, -1.2, 0.8, 1.5, -0.3, 2.0, 0.7],
        [1.5, 1.0, -0.5, 0.3],
        [0.3, 0.4],
        [-0.5, 0.9, -1.1, 0.2]);
}

#[differentiable]
fn while_value_cond(x: f64) -> f64 {
    let mut y = x;
    let mut k = 0;
    while y < 10.0 {
        y = y * 1.5 + x;
        k += 1;
    }
    y + k as f64
}

#[test]
fn t18_while_value_cond() {
    check_s1!(while_value_cond, while_value_cond_grad, while_value_cond_adjoint;
        [1.0], [2.0], [0.3], [12.0]);
}

#[differentiable]
fn while_counter_continue(x: f64, y: f64) -> f64 {
    let mut i = 0;
    let mut s = x;
    while i < 6 {
        i += 1;
        if i % 2 == 0 {
            continue;
        }
        s = s * x + y;
    }
    s
}

#[test]
fn t19_while_counter_continue() {
    check_s2!(while_counter_continue, while_counter_continue_grad,
        while_counter_continue_adjoint;
        [0.5, 1.0], [-1.1, 0.3], [1.3, -0.7]);
}

#[differentiable]
fn loop_break_nested(x: f64, y: f64) -> f64 {
    let mut s = x;
    let mut n = 0;
    loop {
        n += 1;
        if n > 2 {
            if s > y {
                break;
            }
        }
        s = s * 1.1 + y * 0.1;
        if n > 50 {
            break;
        }
    }
    s
}

#[test]
fn t20_loop_break_nested() {
    check_s2!(loop_break_nested, loop_break_nested_grad, loop_break_nested_adjoint;
        [0.5, 1.0], [3.0, 0.3], [1.3, 2.05], [0.2, 0.1]);
}

#[differentiable]
fn return_nested_loops(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..xs.len() {
        for j in 0..xs.len() {
            s += xs[i] * xs[j];
            if s > 5.0 {
                return s * xs[j];
            }
        }
    }
    s.sqrt()
}

#[test]
fn t21_return_nested_loops() {
    check_v!(return_nested_loops, return_nested_loops_grad, return_nested_loops_adjoint;
        [1.0, 2.0, 0.5], [0.3, 0.4, 0.2], [1.5, -0.5, 1.2], [3.0]);
}

#[differentiable]
fn return_in_while(x: f64, y: f64) -> f64 {
    let mut s = x;
    while s < 100.0 {
        s *= x;
        if s > y {
            return s - y;
        }
    }
    s
}

#[test]
fn t22_return_in_while() {
    check_s2!(return_in_while, return_in_while_grad, return_in_while_adjoint;
        [1.5, 4.0], [2.0, 1000.0], [3.0, 10.0], [150.0, 1e9]);
}

#[differentiable]
fn enumerate_return(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, v) in xs.iter().enumerate() {
        // `*v > 1.0` is refused in the generated code (`v` is an `f64` there).
        if v.max(0.0) > 1.0 {
            return s + v * i as f64 + v.powi(2);
        }
        s += v * s + v;
    }
    s
}

#[test]
fn t23_enumerate_return() {
    check_v!(enumerate_return, enumerate_return_grad, enumerate_return_adjoint;
        [0.5, -0.3, 1.5, 0.2], [0.1, 0.2, 0.3], [2.0, 0.5]);
}

#[differentiable]
fn int_counter_index(xs: &[f64]) -> f64 {
    let n = xs.len();
    let mut j = 0usize;
    let mut s = 0.0;
    for i in 0..n {
        if xs[i] > 0.0 {
            j += 1;
        } else {
            j = i;
        }
        s += xs[j % n] * xs[i];
        j += 1;
    }
    s + xs[j % n]
}

#[test]
fn t24_int_counter_index() {
    check_v!(int_counter_index, int_counter_index_grad, int_counter_index_adjoint;
        [0.5, -1.2, 0.8, 1.5, -0.3], [1.0, 2.0, 3.0], [-0.4, -0.6]);
}

#[differentiable]
fn while_int_index(xs: &[f64]) -> f64 {
    let n = xs.len();
    let mut i = 0;
    let mut s = 0.0;
    while i < n {
        if xs[i] > 0.0 {
            s += xs[i] * s + xs[i];
            i += 2;
        } else {
            s *= xs[i];
            i += 1;
        }
    }
    s
}

#[test]
fn t25_while_int_index() {
    check_v!(while_int_index, while_int_index_grad, while_int_index_adjoint;
        [0.5, -1.2, 0.8, 1.5, -0.3, 0.9], [-1.0, 2.0, -3.0], [-0.4, -0.6, 0.7]);
}

#[differentiable]
fn rev_break(xs: &[f64]) -> f64 {
    let mut s = 1.0;
    for i in (1..xs.len()).rev() {
        if xs[i] < xs[i - 1] {
            break;
        }
        s += xs[i] - xs[i - 1] * s;
    }
    s
}

#[test]
fn t26_rev_break() {
    check_v!(rev_break, rev_break_grad, rev_break_adjoint;
        [0.1, 0.5, 0.4, 0.8, 1.5], [0.1, 0.2, 0.3, 0.4], [2.0], [3.0, 1.0]);
}

#[differentiable]
fn shadow_in_loop(xs: &[f64]) -> f64 {
    let mut s = 1.0;
    let mut t = 0.0;
    let mut u = 0.0;
    for &v in xs {
        s += v;
        let s = s * v;
        t += s;
        let v = v * t;
        if v > 1.0 {
            continue;
        }
        let t = t * 0.5 + v;
        u += t;
    }
    s * t + u
}

#[test]

fn t27_shadow_in_loop() {
    check_v!(shadow_in_loop, shadow_in_loop_grad, shadow_in_loop_adjoint;
        [0.5, -0.2, 0.8, 1.5, -0.3], [0.1, 0.2, 0.3], [-0.4, -0.6, 0.7]);
}

#[differentiable]
fn reset_accumulator(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut best = 0.0;
    for i in 0..xs.len() {
        s = s * xs[i] + xs[i];
        if i == 2 {
            best = s;
            s = 0.0;
        }
    }
    s + best * 2.0
}

#[test]
fn t28_reset_accumulator() {
    check_v!(reset_accumulator, reset_accumulator_grad, reset_accumulator_adjoint;
        [0.5, -0.2, 0.8, 1.5, -0.3], [0.1, 0.2, 0.3], [-0.4, 0.6]);
}

#[differentiable]
fn if_value_in_loop(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..xs.len() {
        let v = if xs[i] > s {
            xs[i] - s
        } else if i > 0 {
            xs[i - 1] * xs[i]
        } else {
            xs[0]
        };
        s += v;
    }
    s
}

#[test]
fn t29_if_value_in_loop() {
    check_v!(if_value_in_loop, if_value_in_loop_grad, if_value_in_loop_adjoint;
        [0.5, -0.2, 0.8, 1.5, -0.3], [-0.1, 0.2, 0.3], [-0.4, -0.6, 0.7]);
}

#[differentiable]
fn deep_nest(xs: &[f64]) -> f64 {
    let n = xs.len();
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..n {
            if i == j {
                continue;
            }
            for k in 0..n {
                if k == i {
                    s += xs[k] * 0.1;
                } else if k == j {
                    let t = xs[i] * xs[j];
                    s += t * xs[k];
                } else {
                    for l in 0..k {
                        if l % 2 == 0 {
                            s -= xs[l] * 0.01 * xs[k];
                        } else if s > 1.0 {
                            break;
                        }
                    }
                }
            }
        }
    }
    s
}

#[test]
fn t30_deep_nest() {
    check_v!(deep_nest, deep_nest_grad, deep_nest_adjoint;
        [0.5, -0.2, 0.8, 1.5], [0.1, 0.2, 0.3], [-0.4, -0.6, 0.7, 0.3, 0.9]);
}

#[differentiable]
fn macros_in_loop(x: f64, y: f64) -> f64 {
    let mut s = y;
    for i in 0..3 {
        let x = x * (i as f64 + 1.0);
        assert!(x.is_finite(), "x = {x}");
        let s_before = s;
        s = s * 0.5 + x;
        debug_assert!(s.is_finite());
        println!("iteration {i}: x = {x}, s = {s}, before = {s_before}");
        assert_eq!(s, s_before * 0.5 + x);
    }
    let s = s * x;
    assert!(s == s, "{s}");
    s
}

#[test]
fn t32_macros_in_loop() {
    check_s2!(macros_in_loop, macros_in_loop_grad, macros_in_loop_adjoint;
        [0.5, 1.0], [-1.1, 0.3], [1.3, -0.7]);
}

#[differentiable]
fn sq(x: f64) -> f64 {
    x * x
}

#[differentiable]
fn while_cond_call(x: f64) -> f64 {
    let mut s = x;
    while sq(s) < 10.0 {
        s = s * 1.3 + x;
    }
    s
}

#[test]
fn t33_while_cond_call() {
    check_s1!(while_cond_call, while_cond_call_grad, while_cond_call_adjoint;
        [0.5], [1.2], [0.9], [4.0]);
}

#[differentiable]
fn for_local_array(x: f64, y: f64) -> f64 {
    let a = [x, y, x * y];
    let mut s = 0.0;
    for v in a {
        s += v * s + v;
    }
    let b = vec![s, x];
    for (i, v) in b.iter().enumerate() {
        s += v * (i as f64 + 1.0);
    }
    s
}

#[test]
fn t34_for_local_array() {
    check_s2!(for_local_array, for_local_array_grad, for_local_array_adjoint;
        [0.5, 1.0], [-1.1, 0.3], [1.3, -0.7]);
}

#[differentiable]
fn assign_in_loop_branch(xs: &[f64]) -> f64 {
    let mut last_pos = 0.0;
    let mut total = 0.0;
    for &v in xs {
        if v > 0.0 {
            last_pos = v * total + v;
        }
        total += last_pos * v;
    }
    total + last_pos
}

#[test]
fn t35_assign_in_loop_branch() {
    check_v!(assign_in_loop_branch, assign_in_loop_branch_grad, assign_in_loop_branch_adjoint;
        [0.5, -0.2, 0.8, 1.5, -0.3], [-0.1, -0.2], [0.4, -0.6, 0.7]);
}

#[differentiable]
fn triangular(xs: &[f64]) -> f64 {
    let n = xs.len();
    let mut k = 0;
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..=i {
            if (i + j) % 2 == 1 {
                k += 1;
                continue;
            }
            s += xs[(k + j) % n] * xs[i] / (1.0 + k as f64);
        }
    }
    s
}

#[test]
fn t36_triangular() {
    check_v!(triangular, triangular_grad, triangular_adjoint;
        [0.5, -0.2, 0.8, 1.5, -0.3], [-0.1, -0.2], [0.4, -0.6, 0.7]);
}

// ----- local buffers -----------------------------------------------------------

#[differentiable]
fn arrays_two_loops(xs: &[f64]) -> f64 {
    let mut buf = [0.0; 4];
    for i in 0..4 {
        buf[i] = xs[i] * xs[(i + 1) % 4];
    }
    let mut s = 0.0;
    let mut k = 4;
    while k > 0 {
        k -= 1;
        s = s * 0.5 + buf[k] * buf[3 - k];
    }
    for i in 0..4 {
        buf[i] = s * buf[i];
    }
    buf[0] + buf[3] * s
}

#[test]
fn t37_arrays_two_loops() {
    check_v!(arrays_two_loops, arrays_two_loops_grad, arrays_two_loops_adjoint;
        [0.5, -0.2, 0.8, 1.5], [0.1, 0.2, 0.3, 0.4], [-0.4, -0.6, 0.7, 1.1]);
}

#[differentiable]
fn conditional_write(xs: &[f64]) -> f64 {
    let mut a = xs.to_vec();
    for i in 0..a.len() {
        if a[i] > 0.0 {
            a[i] = a[i].sqrt();
        } else if i > 0 {
            a[i] = a[i - 1] * a[i];
        }
    }
    let mut s = 0.0;
    for v in a.iter() {
        s += v * xs[0];
    }
    s
}

#[test]
fn t38_conditional_write() {
    check_v!(conditional_write, conditional_write_grad, conditional_write_adjoint;
        [0.5, -0.2, 0.8, 1.5], [-0.1, 0.2, -0.3, 0.4], [0.4, -0.6, -0.7]);
}

#[differentiable]
fn aliasing(xs: &[f64], i: usize, j: usize) -> f64 {
    let mut a = xs.to_vec();
    a[i] += a[j];
    a[j] *= a[i];
    a[i] = a[i] * a[i];
    a[j] -= a[i] * a[j];
    a[0] * a[1] + a[i] + a[j]
}

#[test]
fn t39_aliasing() {
    for (i, j) in [(1, 1), (0, 2), (2, 2), (2, 0), (0, 1)] {
        check_v!(aliasing, aliasing_grad, aliasing_adjoint, i, j;
            [0.5, -0.2, 0.8], [-0.1, 0.2, -0.3], [0.4, 0.6, 0.7]);
    }
}

#[differentiable]
fn self_square(xs: &[f64]) -> f64 {
    let mut a = [xs[0], xs[1], 0.5];
    for k in 0..3 {
        a[k] = a[k] * a[k];
    }
    a[0] = a[0] * a[1];
    a[2] += a[2] * a[0];
    a[0] + a[1] + a[2]
}

#[test]
fn t40_self_square() {
    check_v!(self_square, self_square_grad, self_square_adjoint;
        [0.5, -0.2], [-0.1, 0.2], [1.4, 0.6]);
}

#[differentiable]
fn copy_array(x: f64, y: f64) -> f64 {
    let mut a = [x, y];
    let mut b = a;
    a[0] *= y;
    b[1] += a[0];
    b[0] = b[1] * x;
    a[0] + a[1] * b[0] * b[1]
}

#[test]
fn t41_copy_array() {
    check_s2!(copy_array, copy_array_grad, copy_array_adjoint;
        [0.5, 1.0], [-1.1, 0.3], [1.3, -0.7]);
}

#[differentiable]
fn to_vec_modified(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v[0] = v[1] * v[2];
    v[2] -= v[0];
    let w = v[0] + xs[0];
    let mut u = v.to_vec();
    u[1] *= w;
    w * v[2] + v[1] + u[1] * u[0]
}

#[test]
fn t42_to_vec_modified() {
    check_v!(to_vec_modified, to_vec_modified_grad, to_vec_modified_adjoint;
        [0.5, -0.2, 0.8], [-0.1, 0.2, -0.3], [0.4, 0.6, 0.7]);
}

#[differentiable]
fn vec_n_reverse(xs: &[f64]) -> f64 {
    let n = xs.len();
    let mut v = vec![0.0; n];
    for i in (0..n).rev() {
        v[i] = if i + 1 < n {
            v[i + 1] * xs[i] + xs[i]
        } else {
            xs[i]
        };
    }
    v[0] + v[n / 2]
}

#[test]
fn t43_vec_n_reverse() {
    check_v!(vec_n_reverse, vec_n_reverse_grad, vec_n_reverse_adjoint;
        [0.5, -0.2, 0.8], [-0.1], [0.4, 0.6, 0.7, -1.2]);
}

#[differentiable]
fn overwrite_in_loop(x: f64, y: f64) -> f64 {
    let mut a = [x, y];
    for _k in 0..4 {
        a[0] = a[0] * x + a[1];
        a[1] = a[0] - a[1] * y;
    }
    a[0] + a[1]
}

#[test]
fn t45_overwrite_in_loop() {
    check_s2!(overwrite_in_loop, overwrite_in_loop_grad, overwrite_in_loop_adjoint;
        [0.5, 1.0], [-1.1, 0.3], [1.3, -0.7]);
}

#[differentiable]
fn stale_index(xs: &[f64]) -> f64 {
    let mut j = 0;
    let mut s = 0.0;
    for i in 0..xs.len() {
        s += xs[j] * xs[i];
        if xs[i] > 0.0 {
            j = i;
        }
    }
    s * xs[j]
}

#[test]
fn t46_stale_index() {
    check_v!(stale_index, stale_index_grad, stale_index_adjoint;
        [0.5, -0.2, 0.8, 1.5, -0.3], [-0.1, -0.2], [0.4, -0.6, 0.7]);
}

#[differentiable]
fn array_ref_param(a: &[f64; 3], y: f64) -> f64 {
    let mut s = 0.0;
    for v in a {
        s += v * y;
    }
    for (i, v) in a.iter().enumerate() {
        s *= 1.0 + v * i as f64;
    }
    s
}

#[test]
fn t47_array_ref_param() {
    check(
        "array_ref_param",
        &|p| array_ref_param(&[p[0], p[1], p[2]], p[3]),
        &|p| {
            let (v, (da, dy)) = array_ref_param_grad(&[p[0], p[1], p[2]], p[3]);
            (v, vec![da[0], da[1], da[2], dy])
        },
        &|p, d| {
            let mut da = [d[0], d[1], d[2]];
            let mut dy = d[3];
            let v = array_ref_param_adjoint(&[p[0], p[1], p[2]], p[3], 2.0, &mut da, &mut dy);
            d[..3].copy_from_slice(&da);
            d[3] = dy;
            v
        },
        &[&[0.5, -0.2, 0.8, 0.3], &[1.5, 0.2, -0.8, -1.3]],
    );
}

// ----- calls -------------------------------------------------------------------

#[differentiable]
fn mix(a: f64, b: f64) -> f64 {
    a * b.sin() + b
}

#[differentiable]
fn sum_sq(a: &[f64]) -> f64 {
    let mut s = 0.0;
    for &v in a {
        s += v * v;
    }
    s
}

#[differentiable]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

#[differentiable]
fn calls_in_loop_branch(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..xs.len() {
        if i % 2 == 0 {
            s += sq(xs[i]);
        } else if xs[i] > 0.0 {
            s = mix(s, xs[i]);
        } else {
            s = mix(xs[i], s) * 0.5;
        }
    }
    s
}

#[test]
fn t48_calls_in_loop_branch() {
    check_v!(calls_in_loop_branch, calls_in_loop_branch_grad, calls_in_loop_branch_adjoint;
        [0.5, -0.2, 0.8, 1.5, -0.3], [-0.1, -0.2], [0.4, 0.6, 0.7]);
}

#[differentiable]
fn rec_tail(xs: &[f64]) -> f64 {
    if xs.len() == 1 {
        return xs[0];
    }
    let rest = rec_tail(&xs[1..xs.len()]);
    xs[0] * rest + xs[0].sin()
}

#[test]
fn t49_rec_tail() {
    check_v!(rec_tail, rec_tail_grad, rec_tail_adjoint;
        [0.5, -0.2, 0.8, 1.5, -0.3], [-0.1], [0.4, 0.6, 0.7]);
}

#[differentiable]
fn rec_loop(x: f64, n: u32) -> f64 {
    if n == 0 {
        return x;
    }
    let mut s = 0.0;
    for k in 0..n {
        s += rec_loop(x * 0.5, k) * x;
        if s > 10.0 {
            return s;
        }
    }
    s * x
}

#[test]
fn t50_rec_loop() {
    for n in [0, 1, 3] {
        check_s1!(rec_loop, rec_loop_grad, rec_loop_adjoint, n; [0.5], [1.3], [-0.7], [7.0]);
    }
}

#[differentiable]
fn subslice_windows(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..xs.len() - 1 {
        s += sum_sq(&xs[i..i + 2]) * xs[i];
    }
    s
}

#[test]
fn t51_subslice_windows() {
    check_v!(subslice_windows, subslice_windows_grad, subslice_windows_adjoint;
        [0.5, -0.2, 0.8, 1.5, -0.3], [-0.1, 0.3], [0.4, 0.6, 0.7]);
}

#[differentiable]
fn nested_calls(x: f64, y: f64) -> f64 {
    sq(sq(x) + mix(x, y)) - mix(sq(y), x)
}

#[test]
fn t52_nested_calls() {
    check_s2!(nested_calls, nested_calls_grad, nested_calls_adjoint;
        [0.5, 1.0], [-1.1, 0.3], [1.3, -0.7]);
}

fn cube(x: f64) -> f64 {
    x * x * x
}

fn cube_adjoint(x: f64, d_out: f64, d_x: &mut f64) -> f64 {
    *d_x += d_out * 3.0 * x * x;
    cube(x)
}

fn scaled(x: f64, k: f64) -> f64 {
    x * k
}

fn scaled_adjoint(x: f64, k: f64, d_out: f64, d_x: &mut f64) -> f64 {
    *d_x += d_out * k;
    scaled(x, k)
}

#[differentiable]
fn custom_in_loop(x: f64, y: f64, n: usize) -> f64 {
    let mut s = y;
    for i in 0..n {
        if i % 2 == 0 {
            s += cube(s * x);
        } else {
            s = scaled(s, i as f64 * 0.5);
        }
    }
    s
}

#[test]
fn t53_custom_in_loop() {
    for n in [0, 1, 4] {
        check_s2!(custom_in_loop, custom_in_loop_grad, custom_in_loop_adjoint, n;
            [0.5, 0.8], [-0.6, 0.3], [0.9, -0.7]);
    }
}

struct Poly {
    c: [f64; 3],
}

impl Poly {
    #[differentiable]
    fn eval(&self, x: f64) -> f64 {
        self.c[0] + x * (self.c[1] + x * self.c[2])
    }

    #[differentiable]
    fn iterate(&self, x: f64, n: usize) -> f64 {
        let mut s = x;
        for _k in 0..n {
            s = self.eval(s) * 0.5 + Self::eval(self, x) * 0.1;
        }
        s
    }
}

#[test]
fn t54_methods_in_loop() {
    let poly = Poly {
        c: [0.3, -0.5, 0.2],
    };
    for n in [0, 1, 3] {
        check(
            "Poly::iterate",
            &|p| poly.iterate(p[0], n),
            &|p| {
                let (v, d) = poly.iterate_grad(p[0], n);
                (v, vec![d])
            },
            &|p, d| poly.iterate_adjoint(p[0], n, 2.0, &mut d[0]),
            &[&[0.5], &[-1.2], &[2.0]],
        );
    }
}

#[differentiable]
fn buffer_modified_after_call(x: f64, y: f64) -> f64 {
    let mut a = [x, y];
    let s = sum_sq(&a);
    a[0] = s * 3.0;
    a[1] *= a[0];
    s + a[0] * a[1]
}

#[test]
fn t55_buffer_modified_after_call() {
    check_s2!(buffer_modified_after_call, buffer_modified_after_call_grad,
        buffer_modified_after_call_adjoint;
        [0.5, 1.0], [-1.1, 0.3], [1.3, -0.7]);
}

#[differentiable]
fn buffer_call_in_loop(xs: &[f64]) -> f64 {
    let mut buf = [0.0; 2];
    let mut s = 0.0;
    for i in 0..xs.len() {
        buf[i % 2] = xs[i] + s;
        s += sum_sq(&buf) * 0.1;
    }
    s
}

#[test]

fn t56_buffer_call_in_loop() {
    check_v!(buffer_call_in_loop, buffer_call_in_loop_grad, buffer_call_in_loop_adjoint;
        [0.5, -0.2, 0.8, 1.5, -0.3], [-0.1, 0.3], [0.4]);
}

#[differentiable]
fn vec_buffer_call_then_overwrite(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    let first = dot(&v[0..2], &xs[1..3]);
    for i in 0..v.len() {
        v[i] = v[i] * first;
    }
    first + sum_sq(&v[1..3])
}

#[test]
fn t57_vec_buffer_call_then_overwrite() {
    check_v!(vec_buffer_call_then_overwrite, vec_buffer_call_then_overwrite_grad,
        vec_buffer_call_then_overwrite_adjoint;
        [0.5, -0.2, 0.8], [-0.1, 0.3, 1.1, 0.2], [0.4, 0.6, 0.7]);
}

// ----- loop-carried values, undo logs, reduced repros ----------------------------

#[differentiable]
fn loop_carried_condition(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut t = 1.0;
    for i in 0..xs.len() {
        if s > 1.0 {
            t = t * xs[i];
        } else {
            t = t + xs[i] * 2.0;
        }
        s += xs[i];
    }
    t
}

#[test]
fn t65_loop_carried_condition() {
    check_v!(loop_carried_condition, loop_carried_condition_grad, loop_carried_condition_adjoint;
        [0.6, 0.7, 0.5, 0.9, -0.3], [1.5, -0.2], [0.1, 0.2, 0.3]);
}

#[differentiable]
fn range_bound_modified(xs: &[f64]) -> f64 {
    let mut n = 2;
    let mut s = 0.0;
    for i in 0..n {
        n += 1;
        s = s * xs[i] + xs[i + 1];
    }
    s * n as f64
}

#[test]
fn t66_range_bound_modified() {
    check_v!(range_bound_modified, range_bound_modified_grad, range_bound_modified_adjoint;
        [0.6, 0.7, 0.5, 0.9, -0.3], [1.5, -0.2, 0.3]);
}

#[differentiable]
fn loop_carried_max(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut m: f64 = -10.0;
    for &v in xs {
        m = m.max(s);
        s += v;
    }
    m * s
}

#[test]
fn t67_loop_carried_max() {
    check_v!(loop_carried_max, loop_carried_max_grad, loop_carried_max_adjoint;
        [0.6, -0.7, 0.5, 0.9, -0.3], [1.5, -0.2], [-0.1, 0.2, -0.3]);
}

#[differentiable]
fn loop_carried_return(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut buf = [0.0; 2];
    for i in 0..xs.len() {
        s += xs[i];
        buf[i % 2] = s + 0.5;
        if s > 1.0 {
            return buf[0] * buf[1] * xs[0];
        }
    }
    buf[0] * buf[1] + s
}

#[test]
fn t68_loop_carried_return() {
    check_v!(loop_carried_return, loop_carried_return_grad, loop_carried_return_adjoint;
        [0.6, -0.7, 0.5, 0.9, -0.3], [0.3, 0.4, 0.5], [-0.1, 0.2, -0.3]);
}

#[differentiable]
fn undo_with_return(xs: &[f64]) -> f64 {
    let mut buf = vec![0.0; xs.len()];
    for i in 0..xs.len() {
        buf[i] = xs[i] * xs[i];
        if i > 0 {
            buf[i - 1] = buf[i - 1] * buf[i];
        }
        if buf[i] > 1.0 {
            return buf[0] + buf[i];
        }
    }
    buf[0] * 2.0
}

#[test]
fn t69_undo_with_return() {
    check_v!(undo_with_return, undo_with_return_grad, undo_with_return_adjoint;
        [0.6, -0.7, 0.5, 1.9, -0.3], [0.3, 0.4, 0.5], [2.0]);
}

#[differentiable]
fn undo_with_continue_break(xs: &[f64]) -> f64 {
    let mut buf = [0.0; 3];
    for i in 0..xs.len() {
        buf[i % 3] += xs[i];
        if xs[i] < 0.0 {
            continue;
        }
        buf[(i + 1) % 3] *= xs[i];
        for j in 0..3 {
            if buf[j] > 2.0 {
                break;
            }
            buf[j] = buf[j] * 1.1 + xs[i];
        }
    }
    buf[0] * buf[1] + buf[2]
}

#[test]
fn t70_undo_with_continue_break() {
    check_v!(undo_with_continue_break, undo_with_continue_break_grad,
        undo_with_continue_break_adjoint;
        [0.6, -0.7, 0.5, 1.3, -0.3], [0.3, 0.4, 0.5], [2.5]);
}

/// Reduced from `shadow_in_loop`: a `let` shadowing a loop-carried variable
/// inside the loop body.
#[differentiable]
fn shadow_loop_carried(x: f64) -> f64 {
    let mut s = x;
    for _k in 0..2 {
        s += x;
        let s = s * 10.0;
        assert!(s.is_finite());
    }
    s
}

#[test]

fn t71_shadow_loop_carried() {
    check_s1!(shadow_loop_carried, shadow_loop_carried_grad, shadow_loop_carried_adjoint;
        [0.5], [-1.5], [2.0]);
}

#[differentiable]
fn shadow_in_while(x: f64) -> f64 {
    let mut s = x;
    let mut k = 0;
    while k < 3 {
        k += 1;
        s = s * x + 1.0;
        let s = s * 100.0;
        assert!(s.is_finite());
    }
    s
}

#[test]

fn t72_shadow_in_while() {
    check_s1!(shadow_in_while, shadow_in_while_grad, shadow_in_while_adjoint;
        [0.5], [-1.5], [2.0]);
}

#[differentiable]
fn shadow_outer_in_inner_loop(x: f64) -> f64 {
    let mut s = x;
    let mut t = 0.0;
    for i in 0..2 {
        for _j in 0..2 {
            s = s * x + i as f64;
        }
        let s = s - 1.0;
        t += s * x;
    }
    s + t
}

#[test]

fn t73_shadow_outer_in_inner_loop() {
    check_s1!(shadow_outer_in_inner_loop, shadow_outer_in_inner_loop_grad,
        shadow_outer_in_inner_loop_adjoint;
        [0.5], [-1.5], [1.2]);
}

/// Shadowing inside a block nested in the loop body: the block's scope ends
/// before the loop's back edge.
#[differentiable]
fn shadow_in_block_in_loop(x: f64) -> f64 {
    let mut s = x;
    for _k in 0..3 {
        s = s * x + 0.5;
        {
            let s = s * 100.0;
            assert!(s.is_finite());
        }
    }
    s
}

#[test]
fn t74_shadow_in_block_in_loop() {
    check_s1!(shadow_in_block_in_loop, shadow_in_block_in_loop_grad,
        shadow_in_block_in_loop_adjoint;
        [0.5], [-1.5], [1.2]);
}

/// Reduced from `late_init_branches`: `let r;` without a type.
#[differentiable]
fn late_init_untyped(x: f64, y: f64) -> f64 {
    let r;
    if x > 0.0 {
        r = x * y;
    } else {
        r = y;
    }
    r * x
}

#[test]

fn t75_late_init_untyped() {
    check_s2!(late_init_untyped, late_init_untyped_grad, late_init_untyped_adjoint;
        [1.0, 2.0], [-1.0, 2.0], [0.5, -3.0]);
}

/// The same with `let r: f64;`.
#[differentiable]
fn late_init_typed(x: f64, y: f64) -> f64 {
    let r: f64;
    if x > 0.0 {
        r = x * y;
    } else {
        r = y;
    }
    r * x
}

#[test]
fn t76_late_init_typed() {
    check_s2!(late_init_typed, late_init_typed_grad, late_init_typed_adjoint;
        [1.0, 2.0], [-1.0, 2.0], [0.5, -3.0]);
}

#[differentiable]
fn late_init_in_loop(xs: &[f64]) -> f64 {
    let mut s = 1.0;
    for &v in xs {
        let r;
        if v > 0.0 {
            r = v * s;
        } else {
            r = v + s;
        }
        s = r * 0.5 + s;
    }
    s
}

#[test]

fn t77_late_init_in_loop() {
    check_v!(late_init_in_loop, late_init_in_loop_grad, late_init_in_loop_adjoint;
        [0.6, -0.7, 0.5, 1.3, -0.3], [0.3, 0.4, 0.5], [-2.5]);
}

/// Reduced from `buffer_call_in_loop`, without a call: a loop-carried value
/// that reaches an array element only through `+` (whose partials do not
/// need it), and the element is later read by a `*`.
#[differentiable]
fn buffer_read_in_loop(xs: &[f64]) -> f64 {
    let mut buf = [0.0; 2];
    let mut s = 0.0;
    for i in 0..xs.len() {
        buf[i % 2] = xs[i] + s;
        s += buf[0] * buf[1] * 0.1;
    }
    s
}

#[test]

fn t78_buffer_read_in_loop() {
    check_v!(buffer_read_in_loop, buffer_read_in_loop_grad, buffer_read_in_loop_adjoint;
        [0.5, -0.2, 0.8], [0.6, -0.7, 0.5, 1.3, -0.3], [0.3, 0.4]);
}

#[differentiable]
fn buffer_read_in_while(xs: &[f64]) -> f64 {
    let mut buf = [0.0; 2];
    let mut s = 0.0;
    let mut i = 0;
    while i < xs.len() {
        buf[i % 2] = xs[i] - s;
        s = s + buf[0] * buf[1];
        i += 1;
    }
    s
}

#[test]

fn t79_buffer_read_in_while() {
    check_v!(buffer_read_in_while, buffer_read_in_while_grad, buffer_read_in_while_adjoint;
        [0.5, -0.2, 0.8], [0.6, -0.7, 0.5, 1.3, -0.3], [0.3, 0.4]);
}

/// An assignment to `s`, then a `let s` in the same branch.
#[differentiable]
fn assign_then_shadow_in_branch(x: f64, y: f64) -> f64 {
    let mut s = x;
    if x > 0.0 {
        s = s * y;
        let s = s + 100.0;
        assert!(s.is_finite());
    } else {
        s = s - y;
    }
    s * x
}

#[test]

fn t80_assign_then_shadow_in_branch() {
    check_s2!(assign_then_shadow_in_branch, assign_then_shadow_in_branch_grad,
        assign_then_shadow_in_branch_adjoint;
        [1.0, 2.0], [-1.0, 2.0], [0.5, -3.0]);
}

/// An assignment to `s`, then a `let s` in the same plain block.
#[differentiable]
fn assign_then_shadow_in_block(x: f64, y: f64) -> f64 {
    let mut s = x;
    {
        s = s * y;
        let s = s + 100.0;
        assert!(s.is_finite());
    }
    s * x
}

#[test]
fn t81_assign_then_shadow_in_block() {
    check_s2!(assign_then_shadow_in_block, assign_then_shadow_in_block_grad,
        assign_then_shadow_in_block_adjoint;
        [1.0, 2.0], [-1.0, 2.0], [0.5, -3.0]);
}

#[differentiable]
fn loop_var_shadows_outer(xs: &[f64], x: f64) -> f64 {
    let v = x * 2.0;
    let k = 1;
    let mut s = 0.0;
    for &v in xs {
        let k = k + 1;
        s += v * x * k as f64;
    }
    for k in 0..xs.len() {
        s += xs[k] * v;
    }
    s * v + xs[k]
}

#[test]
fn t82_loop_var_shadows_outer() {
    check(
        "loop_var_shadows_outer",
        &|p| loop_var_shadows_outer(&p[..p.len() - 1], p[p.len() - 1]),
        &|p| {
            let (v, (mut d, dx)) = loop_var_shadows_outer_grad(&p[..p.len() - 1], p[p.len() - 1]);
            d.push(dx);
            (v, d)
        },
        &|p, d| {
            let n = p.len() - 1;
            let (dxs, dx) = d.split_at_mut(n);
            loop_var_shadows_outer_adjoint(&p[..n], p[n], 2.0, dxs, &mut dx[0])
        },
        &[&[0.5, -0.2, 0.8, 0.3], &[1.5, 0.2, -1.3]],
    );
}

#[differentiable]
fn rec_open_range(xs: &[f64]) -> f64 {
    if xs.len() == 1 {
        return xs[0].sin();
    }
    xs[0] * rec_open_range(&xs[1..]) + rec_open_range(&xs[..1])
}

#[test]
fn t83_rec_open_range() {
    check_v!(rec_open_range, rec_open_range_grad, rec_open_range_adjoint;
        [0.5, -0.2, 0.8, 1.5, -0.3], [-0.1], [0.4, 0.6, 0.7]);
}

#[differentiable]
fn cached_read_then_branch_write(x: f64, y: f64) -> f64 {
    let mut a = [x, y];
    let p = a[0] * 2.0;
    if x > 0.0 {
        a[0] = y * y;
    }
    p + a[0] * a[0]
}

#[test]
fn t84_cached_read_then_branch_write() {
    check_s2!(cached_read_then_branch_write, cached_read_then_branch_write_grad,
        cached_read_then_branch_write_adjoint;
        [1.0, 2.0], [-1.0, 2.0], [0.5, -3.0]);
}

#[differentiable]
fn cached_read_across_loop(x: f64, y: f64) -> f64 {
    let mut a = [x, y];
    let first = a[1];
    for _i in 0..3 {
        let r = a[0];
        a[0] = r * a[1] + first;
        a[1] = a[1] + r;
    }
    a[0] + a[1] + first * a[1]
}

#[test]
fn t85_cached_read_across_loop() {
    check_s2!(cached_read_across_loop, cached_read_across_loop_grad,
        cached_read_across_loop_adjoint;
        [0.5, 0.2], [-0.4, 0.3], [0.5, -0.3]);
}

#[differentiable]
fn index_var_changes(xs: &[f64]) -> f64 {
    let mut k = 0;
    let u = xs[k];
    k = 2;
    let w = xs[k];
    k += 1;
    let mut a = xs.to_vec();
    let b0 = a[k];
    a[k] = u * w;
    k -= 1;
    u * w + xs[k] + a[k + 1] * b0
}

#[test]
fn t86_index_var_changes() {
    check_v!(index_var_changes, index_var_changes_grad, index_var_changes_adjoint;
        [0.5, -0.2, 0.8, 1.5], [0.1, 0.2, 0.3, 0.4]);
}

/// `t` becomes varied only from the second iteration, through the back edge.
#[differentiable]
fn varied_through_back_edge(x: f64) -> f64 {
    let mut s = 1.0;
    let mut t = 1.0;
    let mut a = [1.0, 1.0];
    for _i in 0..3 {
        t = t * s;
        s = s * x;
        a[0] = a[1] * 2.0;
        a[1] = t * a[0];
    }
    t + a[0]
}

#[test]
fn t87_varied_through_back_edge() {
    check_s1!(varied_through_back_edge, varied_through_back_edge_grad,
        varied_through_back_edge_adjoint; [0.5], [-1.5], [1.2]);
}

/// A constant float local carried by the loop and changed by `+`, read by
/// the partial of a `*`.
#[differentiable]
fn constant_float_carried(x: f64, data: &[usize]) -> f64 {
    let mut c = 1.0;
    let mut s = x;
    for i in 0..3 {
        s = s * c + x;
        c = c + 1.0;
        c = c / (data[i] as f64);
    }
    s * c
}

#[test]
fn t88_constant_float_carried() {
    let data = [1_usize, 2, 3];
    check_s1!(constant_float_carried, constant_float_carried_grad,
        constant_float_carried_adjoint, &data; [0.5], [-1.5], [1.2]);
}

/// A loop whose exit depends on a value computed in the body (do-while).
#[differentiable]
fn do_while(x: f64, y: f64) -> f64 {
    let mut s = y;
    let mut steps = 0;
    loop {
        s = s * x + y;
        steps += 1;
        if !(s < 5.0 && steps < 20) {
            break;
        }
    }
    s / steps as f64
}

#[test]
fn t89_do_while() {
    check_s2!(do_while, do_while_grad, do_while_adjoint;
        [1.3, 0.5], [0.5, 0.3], [2.0, 7.0]);
}

// ----- kinks: conventions, exactly ----------------------------------------------

#[differentiable]
fn running_max_min(xs: &[f64]) -> f64 {
    let mut hi = xs[0];
    let mut lo = xs[0];
    for i in 1..xs.len() {
        hi = hi.max(xs[i]);
        lo = f64::min(lo, xs[i]);
    }
    hi + 10.0 * lo
}

#[differentiable]
fn abs_in_loop(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut t = 0.0;
    for &v in xs {
        s += v;
        t += (v - xs[0]).abs();
    }
    s.abs() + t
}

#[differentiable]
fn clamp_in_loop(xs: &[f64], lo: f64, hi: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..xs.len() {
        s += xs[i].clamp(lo, hi) * (i as f64 + 1.0);
    }
    s
}

fn assert_exact(name: &str, got: &[f64], want: &[f64]) {
    assert_eq!(got, want, "{name}");
}

#[test]
fn t63_ties_in_loops() {
    // No tie: finite differences apply.
    check_v!(running_max_min, running_max_min_grad, running_max_min_adjoint;
        [1.0, 3.0, 2.0], [2.0, -1.0, 0.5, 4.0]);
    // max(2, 2) splits 0.5/0.5; min(2, 2) too.
    let (v, d) = running_max_min_grad(&[2.0, 2.0]);
    assert_eq!(v, running_max_min(&[2.0, 2.0]));
    assert_exact("max/min tie of two", &d, &[0.5 + 5.0, 0.5 + 5.0]);
    // A three-way tie through two successive max calls: 1/4, 1/4, 1/2.
    let (_, d) = running_max_min_grad(&[2.0, 2.0, 2.0]);
    assert_exact(
        "max/min chained ties",
        &d,
        &[0.25 + 2.5, 0.25 + 2.5, 0.5 + 5.0],
    );
    let mut buffer = vec![1.0, 1.0, 1.0];
    running_max_min_adjoint(&[2.0, 2.0, 2.0], 2.0, &mut buffer);
    assert_exact(
        "max/min chained ties, adjoint",
        &buffer,
        &[1.0 + 5.5, 1.0 + 5.5, 1.0 + 11.0],
    );
    // abs at 0 has derivative 0: s = 0 and v - xs[0] = 0 for the first.
    // |x0 + x1| + |x0 - x0| + |x1 - x0| at (1, -1): d = (0 + 0 - (-1)·... )
    let (v, d) = abs_in_loop_grad(&[1.0, -1.0]);
    assert_eq!(v, abs_in_loop(&[1.0, -1.0]));
    // t = |0| + |x1 - x0| with x1 - x0 = -2: d/dx0 = +1, d/dx1 = -1.
    assert_exact("abs kinks in a loop", &d, &[1.0, -1.0]);
    // clamp on the closed range passes the derivative to x; outside, to the bound.
    let xs = [1.0, -1.0, 2.0, -3.0, 0.5];
    let (v, (dx, dlo, dhi)) = clamp_in_loop_grad(&xs, -1.0, 1.0);
    assert_eq!(v, clamp_in_loop(&xs, -1.0, 1.0));
    assert_exact("clamp x", &dx, &[1.0, 2.0, 0.0, 0.0, 5.0]);
    assert_exact("clamp bounds", &[dlo, dhi], &[4.0, 3.0]);
}

// ----- statement macros see the right (shadowed) names ---------------------------

#[differentiable]
fn format_capture_shadow(x: f64, fail: bool) -> f64 {
    let x = x * 2.0;
    let mut y = x;
    for i in 0..2 {
        let x = x + i as f64;
        y += x;
    }
    assert!(!fail, "shadowed x = {x}, y = {y}");
    x * y
}

fn panic_message(run: impl FnOnce() -> f64 + std::panic::UnwindSafe) -> String {
    let payload = std::panic::catch_unwind(run).expect_err("should have panicked");
    if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else {
        String::from("<non-string panic>")
    }
}

#[test]
fn t64_format_capture_sees_shadowed_names() {
    let want = panic_message(|| format_capture_shadow(1.5, true));
    assert_eq!(want, "shadowed x = 3, y = 10");
    assert_eq!(
        panic_message(|| format_capture_shadow_grad(1.5, true).0),
        want
    );
    let got = panic_message(|| {
        let mut d = 0.0;
        format_capture_shadow_adjoint(1.5, true, 1.0, &mut d)
    });
    assert_eq!(got, want);
    check_s1!(format_capture_shadow, format_capture_shadow_grad,
        format_capture_shadow_adjoint, false; [0.5], [-1.1], [1.3]);
}

// ----- does not compile ---------------------------------------------------------
//
// Kept for the record, compiled out: each item below fails to build (the
// macro refuses it, or the code it generates does not compile). Remove the
// `cfg` to see the errors.
#[cfg(any())]
mod does_not_compile {
    use super::{dot, mix};
    use autograd::differentiable;

    // Refused by the macro: "`break`, `continue` and `return` inside an `if` used as a
    // value are not supported".
    #[differentiable]
    fn if_value_returns(x: f64, y: f64) -> f64 {
        let v = if x > 0.0 {
            x * y
        } else {
            return y * y;
        };
        v + x
    }

    // Refused by the macro: same message as above, for `break` in an `if` value.
    #[differentiable]
    fn break_in_if_value(x: f64) -> f64 {
        let mut s = x;
        loop {
            let v = if s > 3.0 {
                break;
            } else {
                s * x
            };
            s += v;
        }
        s
    }

    // Generated code does not compile: E0061 "this function takes 5 arguments but 4
    // arguments were supplied" (`mix_adjoint` gets no `d_b` slot for the literal).
    #[differentiable]
    fn call_with_constant_float(x: f64) -> f64 {
        mix(x, 2.0) + mix(1.5, x)
    }

    // Generated code does not compile: E0061, as above, for a float local that does not
    // depend on `x`.
    #[differentiable]
    fn call_with_inactive_local(x: f64) -> f64 {
        let c = 2.0;
        let mut d = 1.0;
        d *= 3.0;
        mix(x, c) + mix(d, x)
    }
}

// ----- once generated code that did not compile, now fixed ------------------------

mod fixed_since {
    // A `use` of a differentiable function must bring its `_adjoint` too.
    use super::{dot, dot_adjoint, mix, mix_adjoint};
    use crate::common::assert_gradient;
    use autograd::differentiable;

    // A by-value `mut` array parameter, written in place.
    #[differentiable]
    fn array_param_mut(mut a: [f64; 3], y: f64) -> f64 {
        a[0] *= a[1];
        a[2] = a[0] + a[2] * y;
        for i in 0..3 {
            a[i] += y;
        }
        a[0] * a[2] + a[1]
    }

    // The same variable as two arguments of one call.
    #[differentiable]
    fn same_var_twice(x: f64, y: f64) -> f64 {
        mix(x, x) * y + mix(y, y)
    }

    // The same slice as two arguments.
    #[differentiable]
    fn same_slice_twice(xs: &[f64]) -> f64 {
        dot(xs, xs)
    }

    // Two disjoint subslices of one slice.
    #[differentiable]
    fn two_subslices(xs: &[f64]) -> f64 {
        dot(&xs[0..2], &xs[2..4])
    }

    // `*v` of a loop element inside a condition.
    #[differentiable]
    fn deref_in_condition(xs: &[f64]) -> f64 {
        let mut s = 0.0;
        for v in xs {
            if *v > 0.0 {
                s += *v;
            }
        }
        s
    }

    #[differentiable]
    fn deref_enumerate(xs: &[f64]) -> f64 {
        let mut s = 0.0;
        for (i, v) in xs.iter().enumerate() {
            if *v > 1.0 {
                s += *v * i as f64;
            }
        }
        s
    }

    #[test]
    fn formerly_failing_constructs() {
        let (value, (da, dy)) = array_param_mut_grad([0.5, -1.5, 2.0], 0.25);
        assert_eq!(value, array_param_mut([0.5, -1.5, 2.0], 0.25));
        assert_gradient(
            |v| array_param_mut([v[0], v[1], v[2]], v[3]),
            &[0.5, -1.5, 2.0, 0.25],
            &[da[0], da[1], da[2], dy],
        );
        let (value, (dx, dy)) = same_var_twice_grad(0.7, -1.3);
        assert_eq!(value, same_var_twice(0.7, -1.3));
        assert_gradient(|v| same_var_twice(v[0], v[1]), &[0.7, -1.3], &[dx, dy]);
        let xs = [0.5, -1.0, 2.0, 0.25];
        for (f, g) in [
            (
                same_slice_twice as fn(&[f64]) -> f64,
                same_slice_twice_grad as fn(&[f64]) -> (f64, Vec<f64>),
            ),
            (two_subslices, two_subslices_grad),
            (deref_in_condition, deref_in_condition_grad),
            (deref_enumerate, deref_enumerate_grad),
        ] {
            let (value, d) = g(&xs);
            assert_eq!(value, f(&xs));
            assert_gradient(f, &xs, &d);
        }
    }
}
