//! A second reader's review of `lower/tabulate.rs` (costly values tabulated
//! before their loop; `tests/tabulated.rs` has the first tests): functions
//! written the way users write numeric Rust, each checked (value bit for
//! bit against `f`, gradient against central differences, adjoint, and
//! against a twin the pass does not touch: the same body inside `loop { ..
//! break v; }`, and for some a twin on the tape). It found: ranges
//! evaluated where `f` never gets (`0..w.len() - 1` of an empty `w` with no
//! sample: a panic, t05b, t05c, t06, t52), differences taken in the loop's
//! own type (`-100..100` of an `i8`, t30), a field renamed like the loop's
//! index (`s.d` with `for d in ..`, `field_names`), and the first-order
//! zero-adjoint guard written into second-order and vector-valued code
//! (E0308, `h_*`, `v_*`); all fixed, each kept here.

#![allow(
    clippy::needless_range_loop,
    clippy::too_many_arguments,
    clippy::manual_memcpy,
    clippy::let_and_return,
    clippy::ptr_arg,
    unused_mut,
    unused_variables,
    unused_assignments,
    clippy::useless_vec,
    clippy::type_complexity,
    clippy::never_loop
)]

mod common;

use autograd::differentiable;
use autograd::tape::Var;
use common::on_tape;

// ----- the checker ----------------------------------------------------------

/// Same as `f`'s twin without tables: both finite and within 1e-13, or the
/// same non-finite class.
fn same(a: f64, b: f64) -> bool {
    if a.is_finite() && b.is_finite() {
        (a - b).abs() <= 1e-13 * a.abs().max(b.abs()).max(1.0)
    } else {
        (a.is_nan() && b.is_nan()) || a == b
    }
}

/// Checks `grad` (with tables) at every point: value bit for bit against
/// `f`, gradient against `reference` (the twin without tables), and, where
/// everything is finite and `fd` says so, against central differences.
#[track_caller]
fn check(
    name: &str,
    f: &dyn Fn(&[f64]) -> f64,
    grad: &dyn Fn(&[f64]) -> (f64, Vec<f64>),
    reference: &dyn Fn(&[f64]) -> (f64, Vec<f64>),
    points: &[&[f64]],
    fd: bool,
) {
    let mut errors = Vec::new();
    for &p in points {
        let want = f(p);
        let (value, g) = grad(p);
        if value.to_bits() != want.to_bits() && !(value.is_nan() && want.is_nan()) {
            errors.push(format!(
                "{name} at {p:?}: _grad value {value:e}, f gives {want:e}"
            ));
        }
        let (rv, rg) = reference(p);
        if rv.to_bits() != want.to_bits() && !(rv.is_nan() && want.is_nan()) {
            errors.push(format!(
                "{name} at {p:?}: reference value {rv:e}, f gives {want:e}"
            ));
        }
        if g.len() != rg.len() {
            errors.push(format!(
                "{name} at {p:?}: lengths {} vs {}",
                g.len(),
                rg.len()
            ));
            continue;
        }
        for (i, (a, b)) in g.iter().zip(&rg).enumerate() {
            if !same(*a, *b) {
                errors.push(format!(
                    "{name} at {p:?}: d/dx{i} = {a:e} with tables, {b:e} without"
                ));
            }
        }
        if fd && want.is_finite() && g.iter().all(|v| v.is_finite()) {
            let report = autograd::check::gradient(f, p, &g);
            if !report.is_ok(1e-6) {
                errors.push(format!("{name} at {p:?}: finite differences: {report}"));
            }
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

/// Against the tape: value and gradient to rounding.
#[track_caller]
fn check_tape(
    name: &str,
    grad: &dyn Fn(&[f64]) -> (f64, Vec<f64>),
    tape: &dyn Fn(&[f64]) -> (f64, Vec<f64>),
    points: &[&[f64]],
) {
    let mut errors = Vec::new();
    for &p in points {
        let (v, g) = grad(p);
        let (tv, tg) = tape(p);
        if !same(v, tv) {
            errors.push(format!("{name} at {p:?}: value {v:e}, tape {tv:e}"));
        }
        for (i, (a, b)) in g.iter().zip(&tg).enumerate() {
            let close = (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0);
            if !(close || (a.is_nan() && b.is_nan())) {
                errors.push(format!("{name} at {p:?}: d/dx{i} = {a:e}, tape {b:e}"));
            }
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

/// `f` as written, and a twin the pass leaves alone (its loops inside a
/// `loop` that runs once).
macro_rules! twin {
    ([$($attr:tt)*] $f:ident, $fr:ident; ($($params:tt)*) $body:block) => {
        #[differentiable($($attr)*)]
        fn $f($($params)*) -> f64 $body
        #[differentiable($($attr)*)]
        fn $fr($($params)*) -> f64 {
            let once: f64 = loop {
                let v: f64 = $body;
                break v;
            };
            once
        }
    };
    ($f:ident, $fr:ident; ($($params:tt)*) $body:block) => {
        #[differentiable]
        fn $f($($params)*) -> f64 $body
        #[differentiable]
        fn $fr($($params)*) -> f64 {
            let once: f64 = loop {
                let v: f64 = $body;
                break v;
            };
            once
        }
    };
}

const X6: [f64; 6] = [0.5, -0.2, 1.3, 0.8, -1.1, 0.4];

// ----- 1. depth, subsets of the loops between ---------------------------------

twin!([wrt(w)] depth1, depth1_ref; (w: &[f64], x: &[f64], d: usize) {
    let mut out = 0.0;
    for p in 0..x.len() / d {
        for j in 0..d {
            out += x[p * d + j] * w[j].exp();
        }
    }
    out
});

fn depth1_tape<'t>(w: &[Var<'t>], x: &[f64], d: usize) -> Var<'t> {
    let mut out = w[0] * 0.0;
    for p in 0..x.len() / d {
        for j in 0..d {
            out += x[p * d + j] * w[j].exp();
        }
    }
    out
}

#[test]
fn t01_depth1() {
    for d in [1, 2, 3] {
        check(
            "depth1",
            &|w| depth1(w, &X6, d),
            &|w| depth1_grad(w, &X6, d),
            &|w| depth1_ref_grad(w, &X6, d),
            &[&[0.3, -0.4, 0.5], &[1.2, 0.7, -0.2]],
            true,
        );
        check_tape(
            "depth1",
            &|w| depth1_grad(w, &X6, d),
            &|w| on_tape(|_, v| depth1_tape(v, &X6, d), w),
            &[&[0.3, -0.4, 0.5], &[1.2, 0.7, -0.2]],
        );
    }
}

// value in the innermost loop depending on the middle loop only, on the
// inner only, on both; and a value in the middle loop's block
twin!([wrt(w)] subsets, subsets_ref; (w: &[f64], x: &[f64], k: usize, d: usize) {
    let mut out = 0.0;
    for p in 0..x.len() {
        for c in 0..k {
            let lc = w[c].ln();
            let mut acc = 0.0;
            for j in 0..d {
                let a = w[c].sqrt();
                let b = (w[j] * 0.5).tanh();
                let e = (w[c * d + j] / w[j]).sin();
                acc += x[p] * a * b + e * lc;
            }
            out += acc * acc;
        }
    }
    out
});

fn subsets_tape<'t>(w: &[Var<'t>], x: &[f64], k: usize, d: usize) -> Var<'t> {
    let mut out = w[0] * 0.0;
    for p in 0..x.len() {
        for c in 0..k {
            let lc = w[c].ln();
            let mut acc = w[0] * 0.0;
            for j in 0..d {
                let a = w[c].sqrt();
                let b = (w[j] * 0.5).tanh();
                let e = (w[c * d + j] / w[j]).sin();
                acc += x[p] * a * b + e * lc;
            }
            out += acc * acc;
        }
    }
    out
}

#[test]
fn t02_subsets() {
    let pts: [&[f64]; 2] = [
        &[0.3, 0.7, 1.2, 0.4, 0.9, 1.6],
        &[1.1, 0.2, 0.8, 2.0, 0.3, 0.5],
    ];
    for (k, d) in [(2, 2), (1, 3), (3, 2), (0, 2), (2, 0)] {
        check(
            "subsets",
            &|w| subsets(w, &X6[..3], k, d),
            &|w| subsets_grad(w, &X6[..3], k, d),
            &|w| subsets_ref_grad(w, &X6[..3], k, d),
            &pts,
            true,
        );
        check_tape(
            "subsets",
            &|w| subsets_grad(w, &X6[..3], k, d),
            &|w| on_tape(|_, v| subsets_tape(v, &X6[..3], k, d), w),
            &pts,
        );
    }
}

// four levels deep, value depending on the outermost and innermost loops
// between only
twin!([wrt(w)] deep4, deep4_ref; (w: &[f64], x: &[f64]) {
    let mut out = 0.0;
    for p in 0..x.len() {
        for a in 0..2 {
            for b in 0..3 {
                for c in 0..2 {
                    let e = (w[a * 2 + c] * 0.3).exp();
                    out += x[p] * e * (b as f64 + 1.0);
                }
            }
        }
    }
    out
});

#[test]
fn t03_deep4() {
    check(
        "deep4",
        &|w| deep4(w, &X6),
        &|w| deep4_grad(w, &X6),
        &|w| deep4_ref_grad(w, &X6),
        &[&[0.3, 0.7, 1.2, 0.4], &[-1.0, 0.2, 0.5, 2.0]],
        true,
    );
}

// ----- 2. ranges ----------------------------------------------------------------

// non-zero lower bounds, and reading j - 1
twin!([wrt(w)] lower, lower_ref; (w: &[f64], x: &[f64]) {
    let mut out = 0.0;
    for p in 0..x.len() {
        for j in 1..w.len() {
            let e = (w[j] - w[j - 1]).exp();
            out += x[p] * e;
        }
        for j in 2..w.len() - 1 {
            out += (w[j + 1] * w[j - 2]).cos() * x[p];
        }
    }
    out
});

fn lower_tape<'t>(w: &[Var<'t>], x: &[f64]) -> Var<'t> {
    let mut out = w[0] * 0.0;
    for p in 0..x.len() {
        for j in 1..w.len() {
            let e = (w[j] - w[j - 1]).exp();
            out += x[p] * e;
        }
        for j in 2..w.len() - 1 {
            out += (w[j + 1] * w[j - 2]).cos() * x[p];
        }
    }
    out
}

#[test]
fn t04_lower_bounds() {
    let pts: [&[f64]; 3] = [
        &[0.3, 0.7, 1.2, 0.4, 0.9],
        &[1.1, 0.2, 0.8, 2.0],
        &[0.4, 0.1, -0.3],
    ];
    check(
        "lower",
        &|w| lower(w, &X6),
        &|w| lower_grad(w, &X6),
        &|w| lower_ref_grad(w, &X6),
        &pts,
        true,
    );
    check_tape(
        "lower",
        &|w| lower_grad(w, &X6),
        &|w| on_tape(|_, v| lower_tape(v, &X6), w),
        &pts,
    );
}

// `0..w.len() - 1` with `w` empty: `f` never evaluates the inner range when
// there is no sample; the tables must not either
twin!([wrt(w)] len_minus_one, len_minus_one_ref; (w: &[f64], x: &[f64]) {
    let mut out = 0.0;
    for p in 0..x.len() {
        for j in 0..w.len() - 1 {
            out += x[p] * (w[j + 1] - w[j]).exp();
        }
    }
    out
});

#[test]
fn t05_len_minus_one() {
    let pts: [&[f64]; 2] = [&[0.3, 0.7, 1.2], &[0.5, -0.5]];
    check(
        "len_minus_one",
        &|w| len_minus_one(w, &X6),
        &|w| len_minus_one_grad(w, &X6),
        &|w| len_minus_one_ref_grad(w, &X6),
        &pts,
        true,
    );
}

#[test]
fn t05b_len_minus_one_no_sample_empty_w() {
    // f: no sample, the inner range never evaluated: 0
    assert_eq!(len_minus_one(&[], &[]), 0.0);
    assert_eq!(len_minus_one_ref_grad(&[], &[]).0, 0.0);
    let r = std::panic::catch_unwind(|| len_minus_one_grad(&[], &[]));
    assert!(r.is_ok(), "len_minus_one_grad panics where f does not");
}

// the same with the loop between the sample loop and the value
twin!([wrt(w)] len_minus_one_mid, len_minus_one_mid_ref; (w: &[f64], x: &[f64], k: usize) {
    let mut out = 0.0;
    for p in 0..x.len() {
        for c in 0..k {
            for j in 0..w.len() - 1 {
                out += x[p] * (w[j + 1] * w[j]).exp() * c as f64;
            }
        }
    }
    out
});

#[test]
fn t05c_len_minus_one_mid_no_component() {
    assert_eq!(len_minus_one_mid(&[], &X6, 0), 0.0);
    assert_eq!(len_minus_one_mid_ref_grad(&[], &X6, 0).0, 0.0);
    let r = std::panic::catch_unwind(|| len_minus_one_mid_grad(&[], &X6, 0));
    assert!(r.is_ok(), "len_minus_one_mid_grad panics where f does not");
    let pts: [&[f64]; 2] = [&[0.3, 0.7, 1.2], &[0.5, -0.5]];
    for k in [0, 1, 3] {
        check(
            "len_minus_one_mid",
            &|w| len_minus_one_mid(w, &X6, k),
            &|w| len_minus_one_mid_grad(w, &X6, k),
            &|w| len_minus_one_mid_ref_grad(w, &X6, k),
            &pts,
            true,
        );
    }
}

// a division by an integer in a range: `d = 0` only matters where f gets there
twin!([wrt(w)] div_range, div_range_ref; (w: &[f64], x: &[f64], m: usize, d: usize) {
    let mut out = 0.0;
    for p in 0..x.len() {
        for c in 0..m {
            for j in 0..w.len() / d {
                out += x[p] * (w[j * d] * 0.25).exp();
            }
        }
    }
    out
});

#[test]
fn t06_div_range() {
    assert_eq!(div_range(&[1.0, 2.0], &X6, 0, 0), 0.0);
    let r = std::panic::catch_unwind(|| div_range_grad(&[1.0, 2.0], &X6, 0, 0));
    assert!(
        r.is_ok(),
        "div_range_grad panics (d = 0) where f does not (m = 0)"
    );
    let pts: [&[f64]; 2] = [&[0.3, 0.7, 1.2, 0.4], &[0.5, -0.5, 0.1, 0.2]];
    for (m, d) in [(1, 1), (2, 2), (0, 1)] {
        check(
            "div_range",
            &|w| div_range(w, &X6, m, d),
            &|w| div_range_grad(w, &X6, m, d),
            &|w| div_range_ref_grad(w, &X6, m, d),
            &pts,
            true,
        );
    }
}

// integer types: i32, u32, u8 counts; a negative lower bound
twin!([wrt(w)] int_types, int_types_ref; (w: &[f64], x: &[f64], m: i32, q: u32, r: u8, lo: i64) {
    let mut out = 0.0;
    for p in 0..x.len() {
        for j in 0..m {
            out += x[p] * w[j as usize].exp();
        }
        for j in 1..q {
            out += (w[j as usize] * 0.5).sin() * x[p];
        }
        for c in 0..r {
            for j in lo..2 {
                out += (w[(j + 2) as usize] + w[c as usize]).sqrt() * x[p];
            }
        }
    }
    out
});

#[test]
fn t07_int_types() {
    let pts: [&[f64]; 2] = [&[0.3, 0.7, 1.2, 0.4, 0.9], &[1.1, 0.2, 0.8, 2.0, 0.6]];
    for (m, q, r, lo) in [
        (3, 4, 2, -2),
        (0, 0, 0, 0),
        (-1, 1, 1, 1),
        (2, 3, 3, -1),
        (5, 5, 1, 3),
    ] {
        check(
            "int_types",
            &|w| int_types(w, &X6, m, q, r, lo),
            &|w| int_types_grad(w, &X6, m, q, r, lo),
            &|w| int_types_ref_grad(w, &X6, m, q, r, lo),
            &pts,
            true,
        );
    }
}

// bounds from integer parameters, lo > hi, lo == hi
twin!([wrt(w)] param_bounds, param_bounds_ref; (w: &[f64], x: &[f64], lo: usize, hi: usize) {
    let mut out = 0.0;
    for p in 0..x.len() {
        for j in lo..hi {
            out += x[p] * (w[j] * w[j]).ln();
        }
    }
    out
});

#[test]
fn t08_param_bounds() {
    let pts: [&[f64]; 2] = [&[0.3, 0.7, 1.2, 0.4, 0.9], &[1.1, 0.2, 0.8, 2.0, 0.6]];
    for (lo, hi) in [(0, 5), (1, 4), (3, 3), (4, 2), (2, 3)] {
        check(
            "param_bounds",
            &|w| param_bounds(w, &X6, lo, hi),
            &|w| param_bounds_grad(w, &X6, lo, hi),
            &|w| param_bounds_ref_grad(w, &X6, lo, hi),
            &pts,
            true,
        );
    }
}

// ----- 3. several values, chains, cheap readers ---------------------------------

twin!([wrt(w)] chains, chains_ref; (w: &[f64], x: &[f64]) {
    let mut out = 0.0;
    for p in 0..x.len() {
        for j in 0..3 {
            let a = (w[j] * 0.5).exp().sqrt();
            let e = w[j + 3].exp();
            let f = 2.0 * e;
            let g = f.ln() + a;
            let h = 1.0 / (1.0 + (-w[j]).exp());
            let m = h.max(a).min(3.0);
            let t = w[j].atan2(w[j + 3]) + w[j].hypot(w[j + 3]) + w[j].powi(3) + w[j].powf(w[j + 3]);
            out += x[p] * (g + m * f) + t * x[p] * x[p] + e;
        }
    }
    out
});

fn chains_tape<'t>(w: &[Var<'t>], x: &[f64]) -> Var<'t> {
    let mut out = w[0] * 0.0;
    for p in 0..x.len() {
        for j in 0..3 {
            let a = (w[j] * 0.5).exp().sqrt();
            let e = w[j + 3].exp();
            let f = 2.0 * e;
            let g = f.ln() + a;
            let h = 1.0 / (1.0 + (-w[j]).exp());
            let m = h.max(a).min(3.0);
            let t =
                w[j].atan2(w[j + 3]) + w[j].hypot(w[j + 3]) + w[j].powi(3) + w[j].powf(w[j + 3]);
            out += x[p] * (g + m * f) + t * x[p] * x[p] + e;
        }
    }
    out
}

#[test]
fn t09_chains() {
    let pts: [&[f64]; 2] = [
        &[0.3, 0.7, 1.2, 0.4, 0.9, 0.1],
        &[1.1, 0.2, 0.8, 0.2, 0.3, -0.4],
    ];
    check(
        "chains",
        &|w| chains(w, &X6),
        &|w| chains_grad(w, &X6),
        &|w| chains_ref_grad(w, &X6),
        &pts,
        true,
    );
    check_tape(
        "chains",
        &|w| chains_grad(w, &X6),
        &|w| on_tape(|_, v| chains_tape(v, &X6), w),
        &pts,
    );
}

// powi with an exponent from the loop index; rem; recip; paths; mul_add; clamp
twin!([wrt(w)] prims, prims_ref; (w: &[f64], x: &[f64]) {
    let mut out = 0.0;
    for p in 0..x.len() {
        for j in 0..w.len() {
            let a = w[j].powi(j as i32 + 1);
            let b = f64::exp(w[j]) % 1.5;
            let c = w[j].recip();
            let d = w[j].mul_add(2.0, 0.5).cbrt();
            let e = (w[j] * 3.0).clamp(-1.0, 1.0);
            let g = w[j].exp_m1() + w[j].ln_1p() + w[j].log10() + w[j].log2() + w[j].cosh() + w[j].asinh();
            out += x[p] * (a + b + c + d * e) + g;
        }
    }
    out
});

#[test]
fn t10_prims() {
    let pts: [&[f64]; 2] = [&[0.3, 0.7, 1.2], &[1.1, 0.2, 0.8, 0.45]];
    check(
        "prims",
        &|w| prims(w, &X6),
        &|w| prims_grad(w, &X6),
        &|w| prims_ref_grad(w, &X6),
        &pts,
        true,
    );
}

// ----- 4. reads inside ifs, closures, iterator chains ---------------------------

twin!([wrt(w)] in_ifs, in_ifs_ref; (w: &[f64], x: &[f64]) {
    let mut out = 0.0;
    for p in 0..x.len() {
        for j in 0..w.len() {
            let e = w[j].exp();
            if x[p] > 0.0 {
                out += e * x[p];
            } else if x[p] < -1.0 {
                out -= e.ln() * w[j].sqrt();
            } else {
                let s = (w[j] * 0.5).sin();
                out += s;
            }
        }
    }
    out
});

#[test]
fn t11_in_ifs() {
    let pts: [&[f64]; 2] = [&[0.3, 0.7, 1.2], &[1.1, 0.2, 0.8, 0.45]];
    check(
        "in_ifs",
        &|w| in_ifs(w, &X6),
        &|w| in_ifs_grad(w, &X6),
        &|w| in_ifs_ref_grad(w, &X6),
        &pts,
        true,
    );
}

twin!([wrt(w)] closures, closures_ref; (w: &[f64], x: &[f64]) {
    let sc = |v: f64| (v * 0.5).exp();
    let mut out = 0.0;
    for p in 0..x.len() {
        for j in 0..w.len() {
            out += x[p] * sc(w[j]);
        }
        let s: f64 = w.iter().map(|v| v.exp()).sum();
        let t: f64 = w.iter().zip(x).map(|(a, b)| (a * 0.5).tanh() * b).sum();
        let u = w.iter().map(|v| v.sqrt()).fold(0.0, |acc, v| acc + v * x[p]);
        out += s * x[p] + t + u;
    }
    out
});

fn closures_tape<'t>(w: &[Var<'t>], x: &[f64]) -> Var<'t> {
    let sc = |v: Var<'t>| (v * 0.5).exp();
    let zero = w[0] * 0.0;
    let mut out = zero;
    for p in 0..x.len() {
        for j in 0..w.len() {
            out += x[p] * sc(w[j]);
        }
        let s = w.iter().map(|v| v.exp()).fold(zero, |a, b| a + b);
        let t = w
            .iter()
            .zip(x)
            .map(|(a, b)| (*a * 0.5).tanh() * *b)
            .fold(zero, |a, b| a + b);
        let u = w
            .iter()
            .map(|v| v.sqrt())
            .fold(zero, |acc, v| acc + v * x[p]);
        out += s * x[p] + t + u;
    }
    out
}

#[test]
fn t12_closures() {
    let pts: [&[f64]; 2] = [&[0.3, 0.7, 1.2], &[1.1, 0.2, 0.8, 0.45]];
    check(
        "closures",
        &|w| closures(w, &X6),
        &|w| closures_grad(w, &X6),
        &|w| closures_ref_grad(w, &X6),
        &pts,
        true,
    );
    check_tape(
        "closures",
        &|w| closures_grad(w, &X6),
        &|w| on_tape(|_, v| closures_tape(v, &X6), w),
        &pts,
    );
}

// enumerate, chunks_exact over samples
twin!([wrt(w)] chunks, chunks_ref; (w: &[f64], x: &[f64]) {
    let d = w.len() / 2;
    let mut out = 0.0;
    for row in x.chunks_exact(d) {
        for (j, &v) in row.iter().enumerate() {
            let z = (v - w[j]) * (-w[d + j]).exp();
            out += z * z;
        }
    }
    out
});

#[test]
fn t13_chunks() {
    let pts: [&[f64]; 2] = [&[0.3, 0.7, 1.2, 0.4], &[1.1, 0.2, 0.8, 0.45, -0.3, 0.2]];
    check(
        "chunks",
        &|w| chunks(w, &X6),
        &|w| chunks_grad(w, &X6),
        &|w| chunks_ref_grad(w, &X6),
        &pts,
        true,
    );
}

// ----- 5. break / continue / return ---------------------------------------------

twin!([wrt(w)] jumps, jumps_ref; (w: &[f64], x: &[f64]) {
    let mut out = 0.0;
    for p in 0..x.len() {
        if x[p] > 1.0 {
            break;
        }
        for j in 0..w.len() {
            out += x[p] * w[j].ln();
        }
    }
    for p in 0..x.len() {
        if x[p] < 0.0 {
            continue;
        }
        for j in 0..w.len() {
            out += x[p] * w[j].sqrt();
        }
    }
    for p in 0..x.len() {
        for j in 0..w.len() {
            if x[p] < -1.0 {
                break;
            }
            out += x[p] * (w[j] * 0.5).exp();
        }
        for j in 0..w.len() {
            out += (w[j] * 0.25).exp();
        }
    }
    out
});

#[test]
fn t14_jumps() {
    let pts: [&[f64]; 2] = [&[0.3, 0.7, 1.2], &[1.1, 0.2, 0.8, 0.45]];
    for x in [&X6[..], &[0.5, 2.0, 0.3], &[-0.5, -1.5, 0.3], &[]] {
        check(
            "jumps",
            &|w| jumps(w, x),
            &|w| jumps_grad(w, x),
            &|w| jumps_ref_grad(w, x),
            &pts,
            true,
        );
    }
    // where no iteration reaches ln(0)
    let (_, g) = jumps_grad(&[0.0, 1.0], &[2.0]);
    let (_, r) = jumps_ref_grad(&[0.0, 1.0], &[2.0]);
    assert_eq!(format!("{g:?}"), format!("{r:?}"));
}

#[differentiable(wrt(w))]
fn early_return(w: &[f64], x: &[f64]) -> f64 {
    let mut out = 0.0;
    for p in 0..x.len() {
        for j in 0..w.len() {
            out += x[p] * w[j].exp();
        }
        if out > 10.0 {
            return out;
        }
    }
    out
}

#[differentiable(wrt(w))]
fn early_return_inner(w: &[f64], x: &[f64]) -> f64 {
    let mut out = 0.0;
    for p in 0..x.len() {
        for j in 0..w.len() {
            if x[p] > 1.2 {
                return out;
            }
            out += x[p] * w[j].exp();
        }
    }
    out
}

#[differentiable(wrt(w))]
fn labeled(w: &[f64], x: &[f64]) -> f64 {
    let mut out = 0.0;
    'samples: for p in 0..x.len() {
        for j in 0..w.len() {
            if x[p] * w[j] > 2.0 {
                continue 'samples;
            }
            out += x[p] * (w[j] * 0.5).exp();
        }
    }
    out
}

#[test]
fn t15_returns() {
    let pts: [&[f64]; 3] = [&[0.3, 0.7, 1.2], &[1.1, 0.2, 0.8, 0.45], &[3.0, 2.0]];
    for &w in &pts {
        for x in [&X6[..], &[5.0, 2.0]] {
            let (v, g) = early_return_grad(w, x);
            assert_eq!(v, early_return(w, x));
            common::assert_gradient(|w| early_return(w, x), w, &g);
            let (v, g) = early_return_inner_grad(w, x);
            assert_eq!(v, early_return_inner(w, x));
            common::assert_gradient(|w| early_return_inner(w, x), w, &g);
            let (v, g) = labeled_grad(w, x);
            assert_eq!(v, labeled(w, x));
            common::assert_gradient(|w| labeled(w, x), w, &g);
        }
    }
}

// ----- 6. zero-trip loops and overflow -----------------------------------------

twin!([wrt(w)] overflow, overflow_ref; (w: &[f64], x: &[f64], k: usize) {
    let mut out = 0.0;
    for p in 0..x.len() {
        for c in 0..k {
            for j in 0..w.len() {
                out += x[p] * (w[j] * 100.0).exp() * 0.0 + (w[j] - 1.0).sqrt() * x[p];
            }
        }
    }
    out
});

#[test]
fn t16_overflow_zero_trips() {
    let pts: [&[f64]; 2] = [&[8.0, 9.0, 0.5], &[800.0, -5.0]];
    for (x, k) in [(&X6[..], 0), (&[][..], 2), (&[][..], 0)] {
        check(
            "overflow",
            &|w| overflow(w, x, k),
            &|w| overflow_grad(w, x, k),
            &|w| overflow_ref_grad(w, x, k),
            &pts,
            false,
        );
        for &w in &pts {
            let (v, g) = overflow_grad(w, x, k);
            assert_eq!(v, 0.0);
            assert!(g.iter().all(|v| *v == 0.0), "{g:?} at k = {k}, x = {x:?}");
        }
    }
    // inner loop runs none: w empty
    let (v, g) = overflow_grad(&[], &X6, 2);
    assert_eq!((v, g.len()), (0.0, 0));
}

// a value f computes, whose table element has an infinite partial and whose
// adjoint is zero (a sample of 0.0)
twin!([wrt(w)] zero_adjoint, zero_adjoint_ref; (w: &[f64], x: &[f64]) {
    let mut out = 0.0;
    for p in 0..x.len() {
        for j in 0..w.len() {
            out += x[p] * (w[j] * 1000.0).exp();
        }
    }
    out
});

#[test]
fn t17_zero_adjoint() {
    let pts: [&[f64]; 2] = [&[1.0, 0.5], &[-0.5, 0.1]];
    check(
        "zero_adjoint",
        &|w| zero_adjoint(w, &[0.0, 0.0]),
        &|w| zero_adjoint_grad(w, &[0.0, 0.0]),
        &|w| on_tape(|_, q| zero_adjoint_tape(q, &[0.0, 0.0]), w),
        &pts,
        false,
    );
    // Samples whose adjoints cancel (+a - a) at an element whose `exp`
    // overflows: `f`'s value is NaN there. The table's adjoint, their sum,
    // is exactly 0, which adds nothing through the infinite partial; the
    // loop reversed as written (and the tape) add each sample's `a * inf`
    // and give NaN. Left so (`lower/tabulate.rs`, "Why it is exact").
    let (value, gradient) = zero_adjoint_grad(&[1.0, 0.5], &[0.5, -0.5]);
    assert!(value.is_nan());
    assert_eq!(gradient[0], 0.0);
}

// ----- 7. parameter kinds, wrt subsets, Vec locals ------------------------------

twin!([wrt(w)] fixed_array, fixed_array_ref; (w: &[f64; 4], mu: &[f64; 4], x: &[f64]) {
    let mut out = 0.0;
    for p in 0..x.len() {
        for j in 0..4 {
            let z = (x[p] - mu[j]) * (-w[j]).exp();
            out += z * z + mu[j].exp() * x[p];
        }
    }
    out
});

#[test]
fn t18_fixed_array() {
    let mu = [0.2, -0.3, 0.5, 1.0];
    let a = |w: &[f64]| -> [f64; 4] { [w[0], w[1], w[2], w[3]] };
    check(
        "fixed_array",
        &|w| fixed_array(&a(w), &mu, &X6),
        &|w| {
            let (v, g) = fixed_array_grad(&a(w), &mu, &X6);
            (v, g.to_vec())
        },
        &|w| {
            let (v, g) = fixed_array_ref_grad(&a(w), &mu, &X6);
            (v, g.to_vec())
        },
        &[&[0.3, 0.7, 1.2, 0.4], &[-1.0, 0.2, 0.5, 2.0]],
        true,
    );
}

// the tabulated parameter is constant data; wrt the other one
twin!([wrt(w)] const_data, const_data_ref; (w: &[f64], s: &[f64], x: &[f64]) {
    let mut out = 0.0;
    for p in 0..x.len() {
        for j in 0..s.len() {
            let e = s[j].exp();
            let g = (w[j] * 0.5).exp();
            out += x[p] * e * w[j] + g * e;
        }
    }
    out
});

#[test]
fn t19_const_data() {
    let s = [0.3, -0.1, 0.8];
    check(
        "const_data",
        &|w| const_data(w, &s, &X6),
        &|w| const_data_grad(w, &s, &X6),
        &|w| const_data_ref_grad(w, &s, &X6),
        &[&[0.3, 0.7, 1.2], &[-1.0, 0.2, 0.5]],
        true,
    );
}

// with a Vec of its own
twin!([wrt(w)] with_vec, with_vec_ref; (w: &[f64], x: &[f64]) {
    let mut h = vec![0.0; w.len()];
    for i in 0..w.len() {
        h[i] = w[i] * 2.0;
    }
    let mut out = 0.0;
    for p in 0..x.len() {
        for j in 0..w.len() {
            out += x[p] * w[j].exp() * h[j];
        }
    }
    out
});

#[test]
fn t20_with_vec() {
    check(
        "with_vec",
        &|w| with_vec(w, &X6),
        &|w| with_vec_grad(w, &X6),
        &|w| with_vec_ref_grad(w, &X6),
        &[&[0.3, 0.7, 1.2], &[-1.0, 0.2, 0.5, 0.1]],
        true,
    );
}

// ----- 8. helpers, methods, names ------------------------------------------------

#[differentiable]
fn helper(a: f64, b: f64) -> f64 {
    a * b.tanh()
}

#[differentiable(wrt(w))]
fn helper_table(w: &[f64], x: &[f64]) -> f64 {
    let mut out = 0.0;
    for p in 0..x.len() {
        for j in 0..w.len() {
            let e = (w[j] * 0.5).exp();
            out += helper(e, x[p]) + helper(x[p], w[j].sqrt());
        }
    }
    out
}

twin!([wrt(w)] helper_ref_twin, helper_ref_twin_ref; (w: &[f64], x: &[f64]) {
    let mut out = 0.0;
    for p in 0..x.len() {
        for j in 0..w.len() {
            let e = (w[j] * 0.5).exp();
            out += helper(e, x[p]) + helper(x[p], w[j].sqrt());
        }
    }
    out
});

#[test]
fn t21_helpers() {
    let pts: [&[f64]; 2] = [&[0.3, 0.7, 1.2], &[1.1, 0.2, 0.8, 0.45]];
    check(
        "helper",
        &|w| helper_table(w, &X6),
        &|w| helper_table_grad(w, &X6),
        &|w| helper_ref_twin_ref_grad(w, &X6),
        &pts,
        true,
    );
    check(
        "helper2",
        &|w| helper_ref_twin(w, &X6),
        &|w| helper_ref_twin_grad(w, &X6),
        &|w| helper_ref_twin_ref_grad(w, &X6),
        &pts,
        true,
    );
}

struct Mix {
    k: usize,
}

impl Mix {
    #[differentiable(wrt(w))]
    fn nll(&self, w: &[f64], x: &[f64]) -> f64 {
        let d = w.len() / (2 * self.k);
        let mut out = 0.0;
        for p in 0..x.len() {
            for c in 0..self.k {
                for j in 0..d {
                    let z = (x[p] - w[c * d + j]) * (-w[self.k * d + c * d + j]).exp();
                    out += z * z;
                }
            }
        }
        out
    }

    #[differentiable(wrt(w))]
    fn nll_ref(&self, w: &[f64], x: &[f64]) -> f64 {
        let r: f64 = loop {
            let d = w.len() / (2 * self.k);
            let mut out = 0.0;
            for p in 0..x.len() {
                for c in 0..self.k {
                    for j in 0..d {
                        let z = (x[p] - w[c * d + j]) * (-w[self.k * d + c * d + j]).exp();
                        out += z * z;
                    }
                }
            }
            break out;
        };
        r
    }
}

#[test]
fn t22_method() {
    let m = Mix { k: 2 };
    check(
        "method",
        &|w| m.nll(w, &X6),
        &|w| m.nll_grad(w, &X6),
        &|w| m.nll_ref_grad(w, &X6),
        &[
            &[0.3, 0.7, 1.2, 0.4],
            &[1.1, 0.2, 0.8, 0.45, 0.1, 0.2, 0.3, 0.4],
        ],
        true,
    );
}

// locals named like the generated ones
twin!([wrt(w)] names, names_ref; (w: &[f64], x: &[f64]) {
    let tab = 0.5;
    let trip = w.len();
    let mut out = 0.0;
    for p in 0..x.len() {
        for at in 0..trip {
            let tab = (w[at] * tab).exp();
            let v = tab.ln() * tab;
            out += x[p] * v;
        }
        let at = x[p];
        out += at;
    }
    let tab = out * 2.0;
    tab
});

#[test]
fn t23_names() {
    check(
        "names",
        &|w| names(w, &X6),
        &|w| names_grad(w, &X6),
        &|w| names_ref_grad(w, &X6),
        &[&[0.3, 0.7, 1.2], &[1.1, 0.2, 0.8, 0.45]],
        true,
    );
}

// ----- 9. top-level if, two loops, shadowing, cells --------------------------------

twin!([wrt(w)] in_if, in_if_ref; (w: &[f64], x: &[f64], flag: bool) {
    let mut out = 0.0;
    if flag {
        for p in 0..x.len() {
            for j in 0..w.len() {
                out += x[p] * w[j].exp();
            }
        }
    } else if x.len() > 2 {
        for p in 0..x.len() {
            for j in 0..w.len() {
                out += x[p] * w[j].exp();
            }
        }
        for p in 0..x.len() {
            for j in 0..w.len() {
                out -= x[p] * (w[j] * 0.5).exp();
            }
        }
    }
    out
});

#[test]
fn t24_in_if() {
    for flag in [true, false] {
        check(
            "in_if",
            &|w| in_if(w, &X6, flag),
            &|w| in_if_grad(w, &X6, flag),
            &|w| in_if_ref_grad(w, &X6, flag),
            &[&[0.3, 0.7, 1.2], &[1.1, 0.2, 0.8, 0.45]],
            true,
        );
    }
}

// a float carried by the sample loop (a cell): not invariant
twin!([wrt(w)] carried, carried_ref; (w: &[f64], x: &[f64]) {
    let mut s = w[0];
    let mut out = 0.0;
    for p in 0..x.len() {
        for j in 0..w.len() {
            out += x[p] * (s * w[j]).exp();
        }
        s = s * 0.5 + x[p];
    }
    let s2 = s * 2.0;
    for p in 0..x.len() {
        for j in 0..w.len() {
            out += (s2 * w[j]).sin();
        }
    }
    out
});

#[test]
fn t25_carried() {
    check(
        "carried",
        &|w| carried(w, &X6),
        &|w| carried_grad(w, &X6),
        &|w| carried_ref_grad(w, &X6),
        &[&[0.3, 0.7, 0.2], &[0.1, 0.2, -0.8, 0.45]],
        true,
    );
}

// a float from before the loop, from a branch
twin!([wrt(w)] before, before_ref; (w: &[f64], x: &[f64]) {
    let s = if w[0] > 0.5 { w[0] * 2.0 } else { w[1].exp() };
    let mut out = 0.0;
    for p in 0..x.len() {
        for j in 0..w.len() {
            out += x[p] * (s * w[j]).exp();
        }
    }
    out
});

#[test]
fn t26_before() {
    check(
        "before",
        &|w| before(w, &X6),
        &|w| before_grad(w, &X6),
        &|w| before_ref_grad(w, &X6),
        &[&[0.3, 0.7, 0.2], &[0.9, 0.2, -0.8, 0.45]],
        true,
    );
}

// triangular nest, while loops, rev
twin!([wrt(w)] shapes, shapes_ref; (w: &[f64], x: &[f64]) {
    let mut out = 0.0;
    for p in 0..x.len() {
        for c in 0..w.len() {
            let e = w[c].exp();
            for j in 0..c {
                out += x[p] * e * w[j].sin();
            }
        }
        let mut j = 0;
        while j < w.len() {
            out += (w[j] * 0.5).cos() * x[p];
            j += 1;
        }
        for j in (0..w.len()).rev() {
            out += (w[j] * 0.3).sin() * x[p];
        }
    }
    let mut p = 0;
    while p < x.len() {
        for j in 0..w.len() {
            out += (w[j] * 0.7).exp() * x[p];
        }
        p += 1;
    }
    out
});

#[test]
fn t27_shapes() {
    check(
        "shapes",
        &|w| shapes(w, &X6),
        &|w| shapes_grad(w, &X6),
        &|w| shapes_ref_grad(w, &X6),
        &[&[0.3, 0.7, 0.2], &[0.9, 0.2, -0.8, 0.45]],
        true,
    );
}

// ----- 10. second order, vector-valued ----------------------------------------------

#[differentiable(hessian)]
fn hess(w: &[f64]) -> f64 {
    let mut out = 0.0;
    for p in 0..3 {
        for c in 0..2 {
            for j in 0..2 {
                let e = (w[c * 2 + j] * w[j]).exp();
                let l = (w[j] * w[j]).ln();
                out += e * (p as f64 - w[c]).powi(2) + l * e;
            }
        }
    }
    out
}

#[differentiable(hessian)]
fn hess_empty(w: &[f64], n: usize) -> f64 {
    let mut out = w[0] * w[1];
    for p in 0..n {
        for j in 0..w.len() {
            out += (w[j] * w[0]).exp() * p as f64;
        }
    }
    out
}

#[test]
fn t28_hessian() {
    for w in [[0.3, -0.2, 0.5, 1.1], [-0.4, 0.6, 0.2, -0.3]] {
        let (value, gradient) = hess_grad(&w);
        assert_eq!(value, hess(&w));
        common::assert_gradient(hess, &w, &gradient);
        let (h_value, h_gradient, h) = hess_hessian(&w);
        assert_eq!(h_value, value);
        common::assert_close(&h_gradient, &gradient, &w);
        let report = autograd::check::hessian(|p| hess_grad(p).1, &w, &h);
        assert!(report.is_ok(1e-5), "at {w:?}: {report}");
    }
    let (v, g, h) = hess_empty_hessian(&[1.0, 2.0], 0);
    assert_eq!(v, 2.0);
    assert_eq!(g, vec![2.0, 1.0]);
    assert_eq!(h, vec![0.0, 1.0, 1.0, 0.0]);
}

#[differentiable(wrt(w))]
fn vec_valued(w: &[f64], x: &[f64]) -> Vec<f64> {
    let mut r = vec![0.0; x.len()];
    for p in 0..x.len() {
        for j in 0..w.len() {
            r[p] += x[p] * w[j].exp();
        }
    }
    r
}

#[differentiable(wrt(w))]
fn arr_valued(w: &[f64], x: &[f64]) -> [f64; 2] {
    let mut a = 0.0;
    let mut b = 0.0;
    for p in 0..x.len() {
        for j in 0..w.len() {
            a += x[p] * w[j].exp();
            b += (w[j] * x[p]).sin() + w[j].sqrt();
        }
    }
    [a, b]
}

#[test]
fn t29_vector_valued() {
    for w in [[0.3, 0.2, 0.5], [1.4, 0.6, 0.2]] {
        let (v, j) = vec_valued_jacobian(&w, &X6);
        assert_eq!(v, vec_valued(&w, &X6));
        let report = autograd::check::jacobian(|q| vec_valued(q, &X6), &w, &j);
        assert!(report.is_ok(1e-6), "vec_valued at {w:?}: {report}");
        let (v, j) = arr_valued_jacobian(&w, &X6);
        assert_eq!(v, arr_valued(&w, &X6));
        let report = autograd::check::jacobian(|q| arr_valued(q, &X6).to_vec(), &w, &j);
        assert!(report.is_ok(1e-6), "arr_valued at {w:?}: {report}");
        for x in [&[][..], &[0.5][..]] {
            let (v, j) = arr_valued_jacobian(&w, x);
            assert_eq!(v, arr_valued(&w, x));
            let report = autograd::check::jacobian(|q| arr_valued(q, x).to_vec(), &w, &j);
            assert!(report.is_ok(1e-6), "arr_valued at {w:?}: {report}");
        }
    }
}

// ----- 11. batch 2 -------------------------------------------------------------------

// i8 bounds: `hi - lo` overflows i8 though the loop itself is fine
twin!([wrt(w)] narrow, narrow_ref; (w: &[f64], x: &[f64], lo: i8, hi: i8) {
    let mut out = 0.0;
    for p in 0..x.len() {
        for j in lo..hi {
            let k = (j as i32 - lo as i32) as usize % w.len();
            out += x[p] * (w[k] * 0.5).exp() * (j as f64);
        }
    }
    out
});

#[test]
fn t30_narrow_ints() {
    let pts: [&[f64]; 2] = [&[0.3, 0.7, 1.2], &[1.1, 0.2, 0.8, 0.45]];
    for (lo, hi) in [(-3, 4), (0, 0), (-100, 100), (-128, 127)] {
        check(
            "narrow",
            &|w| narrow(w, &X6[..2], lo, hi),
            &|w| narrow_grad(w, &X6[..2], lo, hi),
            &|w| narrow_ref_grad(w, &X6[..2], lo, hi),
            &pts,
            true,
        );
    }
}

// forward mode: one active float, the table depends on it
twin!([wrt(s)] fwd_active, fwd_active_ref; (s: f64, w: &[f64], x: &[f64]) {
    let mut out = 0.0;
    for p in 0..x.len() {
        for j in 0..w.len() {
            out += x[p] * (s * w[j]).exp() + (s / w[j]).sin();
        }
    }
    out
});

#[test]
fn t31_forward_active() {
    let w = [0.2, -0.5, 0.9];
    for x in [&X6[..], &[][..]] {
        check(
            "fwd_active",
            &|p| fwd_active(p[0], &w, x),
            &|p| {
                let (v, d) = fwd_active_grad(p[0], &w, x);
                (v, vec![d])
            },
            &|p| {
                let (v, d) = fwd_active_ref_grad(p[0], &w, x);
                (v, vec![d])
            },
            &[&[0.3], &[-1.2], &[2.0]],
            true,
        );
    }
}

// a scalar parameter and a slice, both active, and hessian
#[differentiable(hessian)]
fn hess_mix(s: f64, w: &[f64]) -> f64 {
    let mut out = 0.0;
    for p in 0..3 {
        for j in 0..w.len() {
            let e = (s * w[j]).exp();
            let q = (w[j] * w[j]).sqrt();
            out += e * (p as f64) + q * e * s;
        }
    }
    out
}

#[test]
fn t32_hessian_scalar_and_slice() {
    for (s, w) in [(0.3, [0.3, -0.2, 0.5]), (-0.7, [-0.4, 0.6, 0.2])] {
        let (value, (ds, dw)) = hess_mix_grad(s, &w);
        assert_eq!(value, hess_mix(s, &w));
        let (hv, (hs, hw), h) = hess_mix_hessian(s, &w);
        assert_eq!(hv, value);
        assert_eq!(hs, ds);
        common::assert_close(&hw, &dw, &w);
        let flat = |q: &[f64]| {
            let (_, (a, b)) = hess_mix_grad(q[0], &q[1..]);
            let mut g = vec![a];
            g.extend(b);
            g
        };
        let x: Vec<f64> = std::iter::once(s).chain(w).collect();
        let report = autograd::check::hessian(flat, &x, &h);
        assert!(report.is_ok(1e-5), "at {x:?}: {report}");
    }
}

// hessian with wrt(..): the tabulated parameter constant
#[differentiable(hessian, wrt(w))]
fn hess_wrt(w: &[f64], s: &[f64]) -> f64 {
    let mut out = 0.0;
    for p in 0..3 {
        for j in 0..s.len() {
            out += s[j].exp() * w[j] * w[j] * (p as f64) + (w[j] * s[j]).sin();
        }
    }
    out
}

#[test]
fn t33_hessian_wrt() {
    let s = [0.2, 0.5, -0.3];
    for w in [[0.3, -0.2, 0.5], [-0.4, 0.6, 0.2]] {
        let (value, g) = hess_wrt_grad(&w, &s);
        assert_eq!(value, hess_wrt(&w, &s));
        common::assert_gradient(|q| hess_wrt(q, &s), &w, &g);
        let (_, _, h) = hess_wrt_hessian(&w, &s);
        let report = autograd::check::hessian(|q| hess_wrt_grad(q, &s).1, &w, &h);
        assert!(report.is_ok(1e-5), "at {w:?}: {report}");
    }
}

// a helper that itself has a table (no Vec: spare buffers), called in the
// loop of a function that has one too; and recursion
#[differentiable(wrt(w))]
fn inner_tab(w: &[f64], t: f64) -> f64 {
    let mut out = 0.0;
    for p in 0..3 {
        for j in 0..w.len() {
            out += (w[j] * 0.5).exp() * t * p as f64;
        }
    }
    out
}

twin!([wrt(w)] outer_tab, outer_tab_ref; (w: &[f64], x: &[f64]) {
    let mut out = 0.0;
    for p in 0..x.len() {
        for j in 0..w.len() {
            out += x[p] * w[j].exp() + inner_tab(w, x[p]);
        }
    }
    out
});

#[differentiable(wrt(w))]
fn recursive_tab(w: &[f64], x: &[f64], depth: usize) -> f64 {
    let mut out = 0.0;
    for p in 0..x.len() {
        for j in 0..w.len() {
            out += x[p] * (w[j] * 0.3).sin();
        }
    }
    if depth > 0 {
        out += 0.5 * recursive_tab(w, &x[1..], depth - 1);
    }
    out
}

#[test]
fn t34_nested_spare_buffers() {
    let pts: [&[f64]; 3] = [&[0.3, 0.7, 1.2], &[1.1, 0.2, 0.8, 0.45], &[0.5]];
    check(
        "outer_tab",
        &|w| outer_tab(w, &X6),
        &|w| outer_tab_grad(w, &X6),
        &|w| outer_tab_ref_grad(w, &X6),
        &pts,
        true,
    );
    for depth in [0, 1, 3] {
        for &w in &pts {
            let (v, g) = recursive_tab_grad(w, &X6, depth);
            assert_eq!(v, recursive_tab(w, &X6, depth));
            common::assert_gradient(|q| recursive_tab(q, &X6, depth), w, &g);
        }
    }
}

// the same function called with sizes going down and up (spare buffers
// reused), and its adjoint onto pre-filled buffers
#[test]
fn t35_sizes_down_and_up() {
    for d in [3, 1, 2, 6, 1, 3] {
        let x: Vec<f64> = (0..12).map(|i| (i as f64 * 0.37).sin()).collect();
        let w: Vec<f64> = (0..d).map(|i| 0.1 * i as f64 - 0.2).collect();
        check(
            "depth1 sizes",
            &|w| depth1(w, &x, d),
            &|w| depth1_grad(w, &x, d),
            &|w| depth1_ref_grad(w, &x, d),
            &[&w],
            true,
        );
        let (v, g) = depth1_grad(&w, &x, d);
        let mut buf = vec![0.5; d];
        assert_eq!(depth1_adjoint(&w, &x, d, -2.0, &mut buf), v);
        for (b, g) in buf.iter().zip(&g) {
            assert!((b - (0.5 - 2.0 * g)).abs() <= 1e-12 * (1.0 + g.abs()));
        }
    }
}

// an integer buffer changed in place before the loops read its length
#[allow(clippy::vec_init_then_push)]
#[differentiable(wrt(w))]
fn idx_len(w: &[f64], x: &[f64]) -> f64 {
    let mut idx: Vec<usize> = Vec::new();
    idx.push(0);
    idx.push(1);
    let mut out = 0.0;
    for p in 0..x.len() {
        for k in 0..idx.len() {
            out += x[p] * (w[k] * 0.5).exp();
        }
    }
    out
}

fn idx_len_tape<'t>(w: &[Var<'t>], x: &[f64]) -> Var<'t> {
    let mut out = w[0] * 0.0;
    for p in 0..x.len() {
        for k in 0..2 {
            out += x[p] * (w[k] * 0.5).exp();
        }
    }
    out
}

#[test]
fn t37_idx_len() {
    let pts: [&[f64]; 2] = [&[0.3, -0.7, 1.2], &[-1.1, 0.2, 0.8, 0.45]];
    check(
        "idx_len",
        &|w| idx_len(w, &X6),
        &|w| idx_len_grad(w, &X6),
        &|w| on_tape(|_, v| idx_len_tape(v, &X6), w),
        &pts,
        true,
    );
}

// a return from a sibling loop before the value's nest
#[differentiable(wrt(w))]
fn sibling_return(w: &[f64], x: &[f64]) -> f64 {
    let mut out = 0.0;
    for p in 0..x.len() {
        for q in 0..x.len() {
            if x[q] * x[p] > 1.5 {
                return out;
            }
        }
        for j in 0..w.len() {
            out += x[p] * w[j].ln();
        }
    }
    out
}

fn sibling_return_tape<'t>(w: &[Var<'t>], x: &[f64]) -> Var<'t> {
    let mut out = w[0] * 0.0;
    for p in 0..x.len() {
        for q in 0..x.len() {
            if x[q] * x[p] > 1.5 {
                return out;
            }
        }
        for j in 0..w.len() {
            out += x[p] * w[j].ln();
        }
    }
    out
}

#[test]
fn t38_sibling_return() {
    let pts: [&[f64]; 2] = [&[0.3, 0.7, 1.2], &[1.1, 0.2, 0.8, 0.45]];
    for x in [&X6[..], &[0.5, 0.3][..], &[2.0, 0.1][..]] {
        check(
            "sibling_return",
            &|w| sibling_return(w, x),
            &|w| sibling_return_grad(w, x),
            &|w| on_tape(|_, v| sibling_return_tape(v, x), w),
            &pts,
            true,
        );
    }
    // ln(0) never computed: returns at the first sample
    let (_, g) = sibling_return_grad(&[0.0, 1.0], &[2.0]);
    assert!(g.iter().all(|v| v.is_finite()), "{g:?}");
}

// method with the count as a parameter (so the levels are plain)
struct Gmm;

impl Gmm {
    #[differentiable(wrt(w))]
    fn nll(&self, w: &[f64], x: &[f64], k: usize) -> f64 {
        let d = w.len() / (2 * k);
        let mut out = 0.0;
        for p in 0..x.len() / d {
            for c in 0..k {
                let mut q = 0.0;
                for j in 0..d {
                    let z = (x[p * d + j] - w[c * d + j]) * (-w[k * d + c * d + j]).exp();
                    q += z * z;
                }
                out += (-0.5 * q).exp();
            }
        }
        -out.ln()
    }

    #[differentiable(wrt(w))]
    fn nll_ref(&self, w: &[f64], x: &[f64], k: usize) -> f64 {
        let r: f64 = loop {
            let d = w.len() / (2 * k);
            let mut out = 0.0;
            for p in 0..x.len() / d {
                for c in 0..k {
                    let mut q = 0.0;
                    for j in 0..d {
                        let z = (x[p * d + j] - w[c * d + j]) * (-w[k * d + c * d + j]).exp();
                        q += z * z;
                    }
                    out += (-0.5 * q).exp();
                }
            }
            break -out.ln();
        };
        r
    }
}

#[test]
fn t39_method_k_param() {
    let g = Gmm;
    let pts: [&[f64]; 2] = [
        &[0.3, 0.7, 1.2, 0.4, 0.1, -0.2, 0.3, 0.5],
        &[1.1, 0.2, 0.8, 0.45, 0.0, 0.6, -0.4, 0.2],
    ];
    check(
        "gmm",
        &|w| g.nll(w, &X6, 2),
        &|w| g.nll_grad(w, &X6, 2),
        &|w| g.nll_ref_grad(w, &X6, 2),
        &pts,
        true,
    );
    let mut buf = vec![0.5; 8];
    let (v, gr) = g.nll_grad(pts[0], &X6, 2);
    assert_eq!(g.nll_adjoint(pts[0], &X6, 2, 3.0, &mut buf), v);
    for (b, gg) in buf.iter().zip(&gr) {
        assert!((b - (0.5 + 3.0 * gg)).abs() <= 1e-12 * (1.0 + gg.abs()));
    }
}

// a costly value in the middle level's block read in the inner level, and
// a cheap value of it read in both
twin!([wrt(w)] mid_read, mid_read_ref; (w: &[f64], x: &[f64], k: usize) {
    let mut out = 0.0;
    for p in 0..x.len() {
        for c in 0..k {
            let e = (w[c] * 0.5).exp();
            let f = e * 3.0 - 1.0;
            for j in 0..k {
                let g = (w[j] + f).ln();
                out += x[p] * e * f * g;
            }
            out += f;
        }
    }
    out
});

#[test]
fn t40_mid_read() {
    let pts: [&[f64]; 2] = [&[0.3, 0.7, 1.2], &[1.1, 0.2, 0.8, 0.45]];
    for k in [0, 1, 2, 3] {
        check(
            "mid_read",
            &|w| mid_read(w, &X6, k),
            &|w| mid_read_grad(w, &X6, k),
            &|w| mid_read_ref_grad(w, &X6, k),
            &pts,
            true,
        );
    }
}

// values read by a statement macro, and by an assertion that f checks
twin!([wrt(w)] macros, macros_ref; (w: &[f64], x: &[f64]) {
    let mut out = 0.0;
    for p in 0..x.len() {
        for j in 0..w.len() {
            let e = w[j].exp();
            assert!(e > 0.0, "exp of {} is {}", w[j], e);
            debug_assert!(e.is_finite());
            out += x[p] * w[j] * 2.0;
        }
    }
    out
});

#[test]
fn t41_macros() {
    let pts: [&[f64]; 2] = [&[0.3, 0.7, 1.2], &[1.1, 0.2, 0.8, 0.45]];
    check(
        "macros",
        &|w| macros(w, &X6),
        &|w| macros_grad(w, &X6),
        &|w| macros_ref_grad(w, &X6),
        &pts,
        true,
    );
}

// a tabulated value indexed by an expression with a remainder, an integer
// local of the level, and a float of the loop index
twin!([wrt(w)] index_exprs, index_exprs_ref; (w: &[f64], x: &[f64], m: usize) {
    let half = w.len() / 2;
    let mut out = 0.0;
    for p in 0..x.len() {
        for c in 0..m {
            for j in 0..half {
                let at = (c + j) % half;
                let t = j as f64 * 0.25;
                let e = (w[at + half] * t - w[j]).exp();
                out += x[p] * e;
            }
        }
    }
    out
});

#[test]
fn t42_index_exprs() {
    let pts: [&[f64]; 2] = [&[0.3, 0.7, 1.2, 0.1], &[1.1, 0.2, 0.8, 0.45, 0.6, -0.3]];
    for m in [0, 1, 3] {
        check(
            "index_exprs",
            &|w| index_exprs(w, &X6, m),
            &|w| index_exprs_grad(w, &X6, m),
            &|w| index_exprs_ref_grad(w, &X6, m),
            &pts,
            true,
        );
    }
    // half = 0: the remainder by zero is never computed (no level runs)
    assert_eq!(index_exprs(&[0.5], &X6, 2), 0.0);
    let r = std::panic::catch_unwind(|| index_exprs_grad(&[0.5], &X6, 2));
    assert!(r.is_ok(), "index_exprs_grad panics where f does not");
}

// the tape twin of the mixture with a sample loop that may be empty, and
// overflowing scales there
twin!([wrt(w)] gmm_fn, gmm_fn_ref; (w: &[f64], x: &[f64], k: usize, d: usize) {
    let mut nll = 0.0;
    for p in 0..x.len() / d {
        let mut best = f64::NEG_INFINITY;
        let mut lse = 0.0;
        for c in 0..k {
            let mut q = 0.0;
            for j in 0..d {
                let z = (x[p * d + j] - w[c * d + j]) * (-w[k * d + c * d + j]).exp();
                q += z * z;
            }
            let l = -0.5 * q;
            if l > best {
                lse = lse * (best - l).exp() + 1.0;
                best = l;
            } else {
                lse += (l - best).exp();
            }
        }
        nll -= best + lse.ln();
    }
    nll
});

#[test]
fn t43_gmm_empty() {
    let mut w = [0.3, 0.7, 1.2, 0.4, 0.1, -0.2, 0.3, 0.5];
    let pts: [&[f64]; 1] = [&w];
    check(
        "gmm_fn",
        &|w| gmm_fn(w, &X6, 2, 2),
        &|w| gmm_fn_grad(w, &X6, 2, 2),
        &|w| gmm_fn_ref_grad(w, &X6, 2, 2),
        &pts,
        true,
    );
    w[5] = -800.0;
    let (v, g) = gmm_fn_grad(&w, &[], 2, 2);
    assert_eq!(v, 0.0);
    assert_eq!(g, vec![0.0; 8]);
    let (v, g) = gmm_fn_grad(&w, &X6, 0, 2);
    assert_eq!(v, gmm_fn(&w, &X6, 0, 2));
    assert!(g.iter().all(|v| *v == 0.0), "{g:?}");
}

// ----- 12. batch 3 -------------------------------------------------------------------

#[derive(Clone, Copy)]
struct Shape {
    d: usize,
    j: usize,
}

// a struct field named like the loop index the pass renames
twin!([wrt(w)] field_names, field_names_ref; (w: &[f64], x: &[f64], s: Shape) {
    let mut out = 0.0;
    for p in 0..x.len() {
        for d in 0..s.j {
            out += x[p] * (w[d + s.d] * 0.5).exp();
        }
    }
    out
});

#[test]
fn t44_field_names() {
    let s = Shape { d: 1, j: 2 };
    let pts: [&[f64]; 2] = [&[0.3, 0.7, 1.2], &[1.1, 0.2, 0.8, 0.45]];
    check(
        "field_names",
        &|w| field_names(w, &X6, s),
        &|w| field_names_grad(w, &X6, s),
        &|w| field_names_ref_grad(w, &X6, s),
        &pts,
        true,
    );
}

const D: usize = 3;

struct Consts;
impl Consts {
    const K: usize = 2;
}

// sibling nests, `_` loops between, constants in ranges, enumerate and zip
// inside the nest, a scalar parameter that is constant
twin!([wrt(w)] siblings, siblings_ref; (w: &[f64], x: &[f64], reps: usize, beta: f64) {
    let mut out = 0.0;
    for p in 0..x.len() {
        for c in 0..Consts::K {
            for j in 0..D {
                out += x[p] * (w[c * D + j] * beta).exp();
            }
            for j in 0..D - 1 {
                out += (w[c + j] / beta).sin();
            }
        }
        for _ in 0..reps {
            for j in 0..D {
                out += (w[j] * 0.5).tanh() * x[p];
            }
        }
        for (j, v) in w.iter().enumerate() {
            out += (v * 0.1).exp() * x[p] * j as f64;
        }
        for (a, b) in w.iter().zip(&w[1..]) {
            out += (a * b).sqrt() * x[p];
        }
    }
    out
});

#[test]
fn t45_siblings() {
    let pts: [&[f64]; 2] = [
        &[0.3, 0.7, 1.2, 0.4, 0.9, 1.6],
        &[1.1, 0.2, 0.8, 0.45, 0.6, 0.3, 0.8],
    ];
    for reps in [0, 2] {
        check(
            "siblings",
            &|w| siblings(w, &X6, reps, 0.7),
            &|w| siblings_grad(w, &X6, reps, 0.7),
            &|w| siblings_ref_grad(w, &X6, reps, 0.7),
            &pts,
            true,
        );
    }
}

// a range the sample loop grows (carried integer): not invariant
twin!([wrt(w)] growing, growing_ref; (w: &[f64], x: &[f64]) {
    let mut m = 1;
    let mut out = 0.0;
    for p in 0..x.len() {
        for j in 0..m {
            out += x[p] * (w[j] * 0.5).exp();
        }
        if m < w.len() {
            m += 1;
        }
    }
    out
});

#[test]
fn t46_growing() {
    let pts: [&[f64]; 2] = [&[0.3, 0.7, 1.2], &[1.1, 0.2, 0.8, 0.45]];
    check(
        "growing",
        &|w| growing(w, &X6),
        &|w| growing_grad(w, &X6),
        &|w| growing_ref_grad(w, &X6),
        &pts,
        true,
    );
}

// an integer shadowed inside the sample loop, used as a bound
twin!([wrt(w)] shadow_bound, shadow_bound_ref; (w: &[f64], x: &[f64]) {
    let d = w.len();
    let mut out = 0.0;
    for p in 0..x.len() {
        let d = if x[p] > 0.0 { d } else { d - 1 };
        for j in 0..d {
            out += x[p] * (w[j] * 0.5).exp();
        }
        let d = 2;
        for j in 0..d {
            out += (w[j] * 0.25).exp();
        }
    }
    out
});

#[test]
fn t47_shadow_bound() {
    let pts: [&[f64]; 2] = [&[0.3, 0.7, 1.2], &[1.1, 0.2, 0.8, 0.45]];
    check(
        "shadow_bound",
        &|w| shadow_bound(w, &X6),
        &|w| shadow_bound_grad(w, &X6),
        &|w| shadow_bound_ref_grad(w, &X6),
        &pts,
        true,
    );
}

// a value that reads a float computed inside the sample loop but before the
// nest: not invariant; and one read through a cell of the inner loop
twin!([wrt(w)] loop_local, loop_local_ref; (w: &[f64], x: &[f64]) {
    let mut out = 0.0;
    for p in 0..x.len() {
        let s = w[0] * x[p];
        let mut acc = w[1];
        for j in 0..w.len() {
            out += (s * w[j]).exp();
            acc = acc * 0.5 + (w[j] * acc).sin();
        }
        out += acc;
    }
    out
});

#[test]
fn t48_loop_local() {
    let pts: [&[f64]; 2] = [&[0.3, 0.7, 1.2], &[1.1, 0.2, 0.8, 0.45]];
    check(
        "loop_local",
        &|w| loop_local(w, &X6),
        &|w| loop_local_grad(w, &X6),
        &|w| loop_local_ref_grad(w, &X6),
        &pts,
        true,
    );
}

// hvp against the Hessian
#[test]
fn t49_hvp() {
    for w in [[0.3, -0.2, 0.5, 1.1], [-0.4, 0.6, 0.2, -0.3]] {
        let (_, _, h) = hess_hessian(&w);
        let v = [0.5, -1.0, 0.25, 2.0];
        let (_, _, hv) = hess_hvp(&w, &v);
        for i in 0..4 {
            let want: f64 = (0..4).map(|j| h[i * 4 + j] * v[j]).sum();
            assert!(
                (hv[i] - want).abs() <= 1e-10 * (1.0 + want.abs()),
                "{i}: {} vs {want}",
                hv[i]
            );
        }
    }
}

// adjoints onto pre-filled buffers, several functions
#[test]
fn t50_adjoints() {
    common::check_gradient_and_adjoint(
        |w| subsets(w, &X6[..3], 2, 2),
        |w| subsets_grad(w, &X6[..3], 2, 2),
        |w, d, b| subsets_adjoint(w, &X6[..3], 2, 2, d, b),
        &[[0.3, 0.7, 1.2, 0.4, 0.9, 1.6]],
    );
    common::check_gradient_and_adjoint(
        |w| chains(w, &X6),
        |w| chains_grad(w, &X6),
        |w, d, b| chains_adjoint(w, &X6, d, b),
        &[[0.3, 0.7, 1.2, 0.4, 0.9, 0.1]],
    );
    common::check_gradient_and_adjoint(
        |w| gmm_fn(w, &X6, 2, 2),
        |w| gmm_fn_grad(w, &X6, 2, 2),
        |w, d, b| gmm_fn_adjoint(w, &X6, 2, 2, d, b),
        &[[0.3, 0.7, 1.2, 0.4, 0.1, -0.2, 0.3, 0.5]],
    );
    common::check_gradient_and_adjoint(
        |w| in_if(w, &X6, false),
        |w| in_if_grad(w, &X6, false),
        |w, d, b| in_if_adjoint(w, &X6, false, d, b),
        &[[0.3, 0.7, 1.2]],
    );
}

// a function whose only Vec is the result of a helper, tables in a loop
// over a `while` and a top-level `if let`
twin!([wrt(w)] misc, misc_ref; (w: &[f64], x: &[f64]) {
    let mut out = 0.0;
    if let Some(&first) = x.first() {
        let mut p = 0;
        while p < x.len() {
            for j in 0..w.len() {
                out += (w[j] * first).exp() * x[p];
            }
            p += 1;
        }
    }
    out
});

#[test]
fn t51_misc() {
    let pts: [&[f64]; 2] = [&[0.3, 0.7, 1.2], &[1.1, 0.2, 0.8, 0.45]];
    for x in [&X6[..], &[][..]] {
        check(
            "misc",
            &|w| misc(w, x),
            &|w| misc_grad(w, x),
            &|w| misc_ref_grad(w, x),
            &pts,
            true,
        );
    }
}

// ----- 13. batch 4 -------------------------------------------------------------------

// the value depends on the middle loop only; the inner loop's range panics
// when evaluated with `w` empty, which f never does when there is no
// component (k = 0): the guard of the filling nest evaluates it anyway
twin!([wrt(v)] guard_range, guard_range_ref; (v: &[f64], w: &[f64], x: &[f64], k: usize) {
    let mut out = 0.0;
    for p in 0..x.len() {
        for c in 0..k {
            for j in 0..w.len() - 1 {
                out += x[p] * (v[c] * 0.5).exp() * w[j];
            }
        }
    }
    out
});

#[test]
fn t52_guard_range() {
    assert_eq!(guard_range(&[0.5], &[], &X6, 0), 0.0);
    assert_eq!(guard_range_ref_grad(&[0.5], &[], &X6, 0).0, 0.0);
    let r = std::panic::catch_unwind(|| guard_range_grad(&[0.5], &[], &X6, 0));
    assert!(r.is_ok(), "guard_range_grad panics where f does not");
}

#[test]
fn t52b_guard_range_values() {
    let pts: [&[f64]; 2] = [&[0.3, 0.7], &[1.1, 0.2]];
    let w = [0.5, 1.5, -0.5];
    for k in [0, 1, 2] {
        check(
            "guard_range",
            &|v| guard_range(v, &w, &X6, k),
            &|v| guard_range_grad(v, &w, &X6, k),
            &|v| guard_range_ref_grad(v, &w, &X6, k),
            &pts,
            true,
        );
    }
}

// a finite value whose tabulated element has an infinite partial and a
// zero adjoint (min picks the other side): the tape gives NaN
#[differentiable(wrt(w))]
fn capped(w: &[f64], x: &[f64]) -> f64 {
    let mut out = 0.0;
    for p in 0..x.len() {
        for j in 0..w.len() {
            out += x[p] * (w[j] * 1000.0).exp().min(2.0);
        }
    }
    out
}

fn capped_tape<'t>(w: &[Var<'t>], x: &[f64]) -> Var<'t> {
    let mut out = w[0] * 0.0;
    for p in 0..x.len() {
        for j in 0..w.len() {
            out += x[p] * (w[j] * 1000.0).exp().min(2.0);
        }
    }
    out
}

#[test]
fn t53_capped() {
    check_tape(
        "capped",
        &|w| capped_grad(w, &X6),
        &|w| on_tape(|_, q| capped_tape(q, &X6), w),
        &[&[1.0, 0.0001], &[0.5, -0.2]],
    );
    check_tape(
        "capped zero samples",
        &|w| capped_grad(w, &[0.0, 0.0]),
        &|w| on_tape(|_, q| capped_tape(q, &[0.0, 0.0]), w),
        &[&[1.0, 0.0001], &[0.5, -0.2]],
    );
}

fn zero_adjoint_tape<'t>(w: &[Var<'t>], x: &[f64]) -> Var<'t> {
    let mut out = w[0] * 0.0;
    for p in 0..x.len() {
        for j in 0..w.len() {
            out += x[p] * (w[j] * 1000.0).exp();
        }
    }
    out
}

#[test]
fn t17b_zero_adjoint_tape() {
    let w = [1.0, 0.5];
    let (_, g) = zero_adjoint_grad(&w, &[0.0, 0.0]);
    let (_, r) = zero_adjoint_ref_grad(&w, &[0.0, 0.0]);
    let (_, t) = on_tape(|_, q| zero_adjoint_tape(q, &[0.0, 0.0]), &w);
    // the tape adds nothing through exp's infinite partial where the
    // adjoint is 0, as the tables do; the untabulated twin gives NaN
    assert_eq!(format!("{g:?}"), format!("{t:?}"));
    assert!(r[0].is_nan());
}

// ----- the review's repros that did not compile ---------------------------------

// a cheap operation with a constant in the chain, second order and
// vector-valued (their `_hvp_adjoint`): E0308 in `adjoint_term`
#[differentiable(hessian, wrt(w))]
fn h_half(w: &[f64], x: &[f64]) -> f64 {
    let mut out = 0.0;
    for p in 0..x.len() {
        for j in 0..w.len() {
            out += x[p] * (w[j] * 0.5).exp()
                + x[p] * (-w[j]).exp()
                + (w[j] + 1.0).ln() * (w[j] / 3.0).tanh();
        }
    }
    out
}

#[differentiable(wrt(w))]
fn v_neg(w: &[f64], x: &[f64]) -> Vec<f64> {
    let mut r = vec![0.0; x.len()];
    for p in 0..x.len() {
        for j in 0..w.len() {
            r[p] += x[p] * (-w[j]).exp();
        }
    }
    r
}

#[test]
fn t60_second_order_and_vectors_with_constant_partials() {
    for w in [[0.3, 0.7, 1.2], [1.1, 0.2, 0.8]] {
        let (value, gradient) = h_half_grad(&w, &X6);
        assert_eq!(value, h_half(&w, &X6));
        let (_, _, h) = h_half_hessian(&w, &X6);
        let report = autograd::check::hessian(|p| h_half_grad(p, &X6).1, &w, &h);
        assert!(report.is_ok(1e-5), "at {w:?}: {report}");
        let fd = autograd::check::gradient(|p| h_half(p, &X6), &w, &gradient);
        assert!(fd.is_ok(1e-6), "{fd}");
        let (values, jacobian) = v_neg_jacobian(&w, &X6);
        assert_eq!(values, v_neg(&w, &X6));
        let report = autograd::check::jacobian(|p| v_neg(p, &X6), &w, &jacobian);
        assert!(report.is_ok(1e-6), "at {w:?}: {report}");
    }
}
