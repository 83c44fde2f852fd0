//! Stage-by-stage tests: lowering (as an IR listing), activity, and the
//! guarantee that the macro never panics, whatever it is given.

use crate::attr::Args;
use crate::ctxt::Ctxt;
use crate::{activity, expand, lower, signature};

/// Lowers `src` (a function) and returns its IR listing, or the errors.
///
/// Small nests stay loops (`lower::lower_as_written`): these tests are of
/// the lowering and analyses of loops, written with literal trip counts
/// for brevity, which `#[differentiable]` writes out (`lower/unroll.rs`;
/// [`lowered_as_expanded`] lowers as it does).
pub(crate) fn lowered(src: &str, args: &str) -> Result<crate::ir::Func, String> {
    lowered_with(src, args, lower::lower_as_written)
}

/// `src` lowered as `#[differentiable]` lowers it, its small nests written
/// out.
pub(crate) fn lowered_as_expanded(src: &str, args: &str) -> Result<crate::ir::Func, String> {
    lowered_with(src, args, lower::lower)
}

type Lower =
    fn(&Ctxt, &crate::signature::Signature, &syn::ItemFn, &crate::names::Names) -> crate::ir::Func;

fn lowered_with(src: &str, args: &str, lower: Lower) -> Result<crate::ir::Func, String> {
    let item: syn::ItemFn = syn::parse_str(src).unwrap();
    let args: Args = syn::parse_str(args).unwrap();
    let cx = Ctxt::new();
    let names = crate::names::Names::new(&item);
    let sig = signature::analyze(&cx, &item.sig, &args, &names);
    let func = lower(&cx, &sig, &item, &names);
    cx.check().map(|()| func).map_err(|e| {
        e.into_iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    })
}

#[track_caller]
fn check(src: &str, expect: &str) {
    let func = lowered(src, "").unwrap_or_else(|e| panic!("errors: {e}"));
    let actual = func.dump();
    // Remove the common indentation of the expected listing.
    let lines: Vec<&str> = expect.lines().filter(|l| !l.trim().is_empty()).collect();
    let indent = lines
        .iter()
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let expect: String = lines
        .iter()
        .map(|l| format!("{}\n", &l[indent..]))
        .collect();
    assert_eq!(actual, expect, "\nactual IR:\n{actual}");
}

#[test]
fn three_address_code_names_user_values() {
    check(
        "fn f(x: f64, y: f64) -> f64 { let z = x * y + x.sin(); z }",
        "
        let __ad_t0 = mul(x, y)
        let __ad_t1 = sin(x)
        let z = add(__ad_t0, __ad_t1)
        return z
        ",
    );
}

#[test]
fn assignments_create_versions() {
    check(
        "fn f(x: f64) -> f64 { let mut y = x; y = y * y; y += 1.0; y }",
        "
        let y = x
        let y__1 = mul(y, y)
        let y__2 = add(y__1, const(1.0))
        return y__2
        ",
    );
}

#[test]
fn constants_are_folded_into_rust_tokens() {
    check(
        "fn f(x: f64, n: usize) -> f64 { x * (n as f64 * 0.5) + std::f64::consts::PI }",
        "
        let __ad_t0 = mul(x, const(((n as f64) * 0.5)))
        let __ad_t1 = add(__ad_t0, const(std :: f64 :: consts :: PI))
        return __ad_t1
        ",
    );
}

#[test]
fn repeated_loads_are_read_once() {
    check(
        "fn f(w: &[f64]) -> f64 { w[0] * w[0] + w[1] }",
        "
        let __ad_t0 = load(w, 0)
        let __ad_t1 = mul(__ad_t0, __ad_t0)
        let __ad_t2 = load(w, 1)
        let __ad_t3 = add(__ad_t1, __ad_t2)
        return __ad_t3
        ",
    );
}

#[test]
fn integer_locals_are_versioned_too() {
    // Each read of `w[k]` names the version of `k` it read, so the reverse
    // sweep indexes the same element.
    check(
        "fn f(w: &[f64]) -> f64 { let mut k = 0; let a = w[k]; k += 1; a * w[k] }",
        "
        let k = const(0)
        let a = load(w, k)
        let k__1 = const(k + 1)
        let __ad_t1 = load(w, k__1)
        let __ad_t2 = mul(a, __ad_t1)
        return __ad_t2
        ",
    );
}

#[test]
fn branches_merge_through_cells() {
    check(
        "fn f(x: f64) -> f64 { let mut y = x; if x > 0.0 { y = y * 2.0; } y }",
        "
        let y = x
        let mut __ad_cell_y_1 = y
        if x > 0.0 {
            let y__1 = mul(y, const(2.0))
            __ad_cell_y_1 <- y__1
        } else {
            __ad_cell_y_1 <- y
        }
        let y__2 = __ad_cell_y_1
        return y__2
        ",
    );
}

#[test]
fn loops_carry_assigned_locals_in_cells() {
    check(
        "fn f(x: f64, n: usize) -> f64 { let mut s = 0.0; for i in 0..n { s += x; } s }",
        "
        let s = const(0.0)
        let mut __ad_cell_s_0 = s
        for i in 0 .. n {
            let s__1 = __ad_cell_s_0
            let s__2 = add(s__1, x)
            __ad_cell_s_0 <- s__2
        }
        let s__3 = __ad_cell_s_0
        return s__3
        ",
    );
}

#[test]
fn what_follows_a_jump_moves_into_the_other_branch() {
    check(
        "fn f(x: f64) -> f64 { let mut y = x; loop { if y > 10.0 { break; } y = y * y; } y }",
        "
        let y = x
        let mut __ad_cell_y_0 = y
        loop {
            let y__1 = __ad_cell_y_0
            if y__1 > 10.0 {
                __ad_cell_y_0 <- y__1
                break
            } else {
                let y__2 = mul(y__1, y__1)
                __ad_cell_y_0 <- y__2
            }
        }
        let y__3 = __ad_cell_y_0
        return y__3
        ",
    );
}

#[test]
fn blocks_are_flattened_with_scoped_names() {
    check(
        "fn f(x: f64) -> f64 { let y = { let y = x * 2.0; y + 1.0 }; y * y }",
        "
        let y = mul(x, const(2.0))
        let y__1 = add(y, const(1.0))
        let __ad_t2 = mul(y__1, y__1)
        return __ad_t2
        ",
    );
}

fn needs_adjoint(src: &str, args: &str) -> Vec<String> {
    let func = lowered(src, args).unwrap();
    let activity = activity::analyze(&func);
    (0..func.vars.len())
        .filter(|&v| activity.needs_adjoint(v))
        .map(|v| func.vars[v].ident.to_string())
        .collect()
}

#[test]
fn activity_skips_constant_and_unused_values() {
    // `c` is not differentiated (wrt), `unused` does not reach the result,
    // `floor` has derivative zero.
    let names = needs_adjoint(
        "fn f(x: f64, c: f64) -> f64 { let k = c * c; let unused = x.exp(); let s = x.floor(); x * k + s }",
        "wrt(x)",
    );
    assert_eq!(names, ["x", "__ad_t3", "__ad_t4"]);
}

/// The macro must answer every input with tokens (code or errors), never a
/// panic: a proc-macro panic is an unreadable compiler error.
#[test]
fn never_panics() {
    let cases = [
        ("", "fn f() -> f64 { 0.0 }"),
        ("", "fn f(x: f64) -> f64 {}"),
        ("", "fn f(x: f64) -> f64 { return; }"),
        ("", "fn f(x: f64) -> f64 { f64::sin() }"),
        ("", "fn f(x: f64) -> f64 { x.powi() }"),
        ("", "fn f(x: f64) -> f64 { x.clamp(1.0) }"),
        ("", "fn f(x: f64) -> f64 { f64::max(x) }"),
        ("", "fn f(x: f64) -> f64 { x[0] }"),
        ("", "fn f(x: &[f64]) -> f64 { x }"),
        ("", "fn f(x: &[f64]) -> f64 { -x }"),
        ("", "fn f(x: &[f64]) -> f64 { x.iter().sum() }"),
        ("", "fn f(x: f64) -> f64 { x.0 }"),
        ("", "fn f(x: f64) -> f64 { let (a, b) = (x, x); a }"),
        // Found by `fuzz_tests`: `sin_cos` with an argument recursed
        // between the method and the pattern lowering until the stack overflowed.
        (
            "",
            "fn f(x: f64) -> f64 { let (s, c) = x.sin_cos(usize); s + c }",
        ),
        ("", "fn f(x: f64) -> f64 { x.sin_cos(1.0).0 }"),
        (
            "",
            "fn f(x: f64) -> f64 { let Some(y) = Some(x) else { return 0.0 }; y }",
        ),
        ("", "fn f(x: f64) -> f64 { y = x; x }"),
        ("", "fn f(x: f64) -> f64 { x = x += 1.0; x }"),
        ("", "fn f(x: f64) -> f64 { { } }"),
        ("", "fn f(x: f64) -> f64 { 'a: { 1.0 } }"),
        ("", "fn f(x: f64) -> f64 { struct S; x }"),
        ("", "fn f(_: f64) -> f64 { 1.0 }"),
        ("", "fn f((a, b): (f64, f64)) -> f64 { a }"),
        ("", "fn f(r#x: f64) -> f64 { r#x }"),
        ("", "fn f(x: f64) -> f64 { unknown!() }"),
        ("", "fn f(x: f64) -> f64 { assert!(x > 0.0); x; }"),
        ("", "fn f(self) -> f64 { 1.0 }"),
        ("", "fn f(&mut self, x: f64) -> f64 { x }"),
        ("wrt", "fn f(x: f64) -> f64 { x }"),
        ("wrt(x), y", "fn f(x: f64) -> f64 { x }"),
        ("wrt(1)", "fn f(x: f64) -> f64 { x }"),
        ("= 3", "fn f(x: f64) -> f64 { x }"),
        ("", "struct S;"),
        ("", "fn f(x: f64) -> f64 { x as f32 as f64 }"),
        ("", "fn f(x: f64) -> f64 { (x as usize) as f64 * x }"),
        (
            "",
            "fn f(x: f64, n: i32) -> f64 { x.powi(n) * f64::powi(2.0, n) }",
        ),
        (
            "",
            "fn f(x: f64) -> f64 { 2.0_f64.powf(x) + 3.0_f64.sqrt() }",
        ),
        (
            "",
            "fn f(x: f64) -> f64 { let y; y = x; let y: usize = 3; y as f64 }",
        ),
    ];
    for (args, src) in cases {
        let attr: proc_macro2::TokenStream = args.parse().unwrap();
        let item: proc_macro2::TokenStream = src.parse().unwrap();
        let result = std::panic::catch_unwind(|| expand::differentiable(attr, item).to_string());
        assert!(
            result.is_ok(),
            "the macro panicked on #[differentiable({args})] {src}"
        );
    }
}

/// The arrays of `src` whose stores skip the undo tape, by name.
fn plain_arrays(src: &str) -> Vec<String> {
    let func = lowered(src, "").unwrap_or_else(|e| panic!("errors: {e}"));
    let mut names: Vec<String> = crate::undo::write_before_read(&func)
        .into_iter()
        .map(|v| func.vars[v].ident.to_string())
        .collect();
    names.sort();
    names
}

#[test]
fn written_then_read_arrays_skip_the_undo_tape() {
    // Filled in one loop, read in the next; declared per iteration.
    let mlp_layer = "fn f(x: &[f64]) -> f64 {
        let mut t = 0.0;
        for s in 0..3 {
            let mut h = [0.0; 2];
            for j in 0..2 { h[j] = x[j] * x[s]; }
            for k in 0..2 { t += h[k]; }
        }
        t
    }";
    assert_eq!(plain_arrays(mlp_layer), ["h"]);
    // Read and written in one loop.
    let recurrence = "fn f(x: &[f64]) -> f64 {
        let mut p = x.to_vec();
        for i in 1..p.len() { p[i] *= p[i - 1]; }
        p[0]
    }";
    assert!(plain_arrays(recurrence).is_empty());
    // Read by a loop (whose reverse replays the read) before a later store.
    let read_first = "fn f(x: f64) -> f64 {
        let mut h = [1.0, x];
        let mut y = 0.0;
        for k in 0..2 { y += h[k] * x; }
        h[1] = y;
        h[1]
    }";
    assert!(plain_arrays(read_first).is_empty());
    // Read at the top level of the body before a later store: the reverse
    // reads the value the load bound (`y`'s operand), not `h` again. (Read
    // whole at the end, `h` stays an array: one read and written at literal
    // indices only is one local per element, `syntax::split_array_locals`.)
    let read_once_first = "fn f(x: f64) -> f64 {
        let mut h = [1.0, x];
        let y = h[0] * x;
        h[1] = y;
        h[1] + h.iter().sum::<f64>()
    }";
    assert_eq!(plain_arrays(read_once_first), ["h"]);
    // Declared outside a loop that both writes and reads it.
    let shared_loop = "fn f(x: &[f64]) -> f64 {
        let mut h = [0.0; 2];
        let mut s = 0.0;
        for i in 0..2 { h[i] = x[i]; s += h[0]; }
        s
    }";
    assert!(plain_arrays(shared_loop).is_empty());
    // The length is a read too.
    let length_first = "fn f(x: &[f64]) -> f64 {
        let mut h = vec![0.0; 2];
        let n = h.len();
        h[0] = x[0];
        h[0] * n as f64
    }";
    assert!(plain_arrays(length_first).is_empty());
}

#[test]
fn a_small_nest_is_lowered_written_out_and_its_arrays_skip_the_undo_tape() {
    // a forward substitution: each `y[i]` written after the loads of the
    // ones before it, in one nest
    let solve = "fn f(l: &[f64; 9], b: &[f64; 3]) -> f64 {
        let mut y = [0.0; 3];
        for i in 0..3 {
            let mut v = b[i];
            for k in 0..i { v -= l[i * 3 + k] * y[k]; }
            y[i] = v / l[i * 3 + i];
        }
        y[0] + y[1] * y[2] + y.iter().sum::<f64>()
    }";
    // as written: one nest (and the sum's loop), whose loads and stores of
    // `y` need its tape
    let func = lowered(solve, "").unwrap();
    assert_eq!(func.loops().len(), 3);
    assert!(crate::undo::write_before_read(&func).is_empty());
    // as expanded: straight-line code, whose loads at the top level of the
    // body are read again from the values they bound, not from `y` (read
    // whole at the end, `y` stays an array)
    let func = lowered_as_expanded(solve, "").unwrap();
    assert_eq!(func.loops().len(), 1, "the sum's loop alone");
    let plain: Vec<String> = crate::undo::write_before_read(&func)
        .into_iter()
        .map(|v| func.vars[v].ident.to_string())
        .collect();
    assert_eq!(plain, ["y"]);
    // a nest that does not lower written out lowers as written (its error
    // reported once, on the user's code)
    let refused = "fn f(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..2 { s += (x[i] as f32) as f64; }
        s
    }";
    let error = lowered_as_expanded(refused, "").err().unwrap();
    assert_eq!(error.lines().count(), 1, "{error}");
    assert_eq!(Err(error), lowered(refused, "").map(|_| ()));
}

/// The fused loops of `src`: for each, in order, the seeds of its
/// accumulators as `cell = tokens`.
fn fused(src: &str) -> Vec<Vec<String>> {
    let func = lowered(src, "").unwrap_or_else(|e| panic!("errors: {e}"));
    let activity = activity::analyze(&func);
    let d_out = quote::format_ident!("d_out");
    let item: syn::ItemFn = syn::parse_str(src).unwrap();
    let names = crate::names::Names::new(&item);
    let fused = crate::fuse::fused_loops(&func, &activity, &names, &d_out, false);
    let mut ids: Vec<&usize> = fused.keys().collect();
    ids.sort();
    ids.into_iter()
        .map(|id| {
            fused[id]
                .seeds
                .iter()
                .map(|(cell, seed)| format!("{} = {seed}", func.vars[*cell].ident))
                .collect()
        })
        .collect()
}

/// The `if`s reversed where they run (`Fused::in_place`) in the fused
/// loops of `src`: for each, in the loops' order and then the `if`s',
/// its cells that need adjoints as `cell -> [-]accumulator[ * factor]..`.
fn in_place(src: &str) -> Vec<Vec<String>> {
    let func = lowered(src, "").unwrap_or_else(|e| panic!("errors: {e}"));
    let activity = activity::analyze(&func);
    let d_out = quote::format_ident!("d_out");
    let item: syn::ItemFn = syn::parse_str(src).unwrap();
    let names = crate::names::Names::new(&item);
    let fused = crate::fuse::fused_loops(&func, &activity, &names, &d_out, false);
    let mut ids: Vec<&usize> = fused.keys().collect();
    ids.sort();
    let mut out = Vec::new();
    for id in ids {
        let mut decisions: Vec<&String> = fused[id].in_place.keys().collect();
        decisions.sort_by_key(|d| (d.len(), d.to_string()));
        for decision in decisions {
            out.push(
                fused[id].in_place[decision]
                    .iter()
                    .map(|(c, exit)| {
                        let sign = if exit.negated { "-" } else { "" };
                        let factors: String = (exit.factors.iter())
                            .map(|f| match f {
                                crate::ir::Operand::Var(v) => format!(" * {}", func.vars[*v].ident),
                                crate::ir::Operand::Const(k) => format!(" * {}", k.tokens),
                            })
                            .collect();
                        let owner = &func.vars[exit.owner].ident;
                        format!("{} -> {sign}{owner}{factors}", func.vars[*c].ident)
                    })
                    .collect(),
            );
        }
    }
    out
}

#[test]
fn branches_that_only_accumulate_are_reversed_in_place() {
    // Springs under conditions, each adding to the energy: both `if`s.
    let springs = "fn f(x: &[f64], n: usize) -> f64 {
        let mut e = 0.0;
        for j in 0..n {
            if j + 1 < n { let d = x[j + 1] - x[j]; e += d * d; }
            if j + 2 < n { e += (x[j + 2] - x[j]).abs().sqrt(); } else { e -= x[j]; }
            e += x[j];
        }
        e
    }";
    assert_eq!(
        in_place(springs),
        [
            ["__ad_cell_e_2 -> __ad_cell_e_0"],
            ["__ad_cell_e_8 -> __ad_cell_e_0"]
        ]
    );
    // In the inner loop of a double sum (fused in the outer one's body),
    // where the `if`'s cell is the loop's own.
    let pairs = "fn f(x: &[f64]) -> f64 {
        let mut e = 0.0;
        for i in 0..x.len() {
            for j in i + 1..x.len() {
                let r = x[i] - x[j];
                if r * r < 1.0 { e += (1.0 - r * r).powi(2); }
            }
        }
        e
    }";
    assert_eq!(in_place(pairs), [["__ad_cell_e_1 -> __ad_cell_e_1"]]);
    // An `else if`: the `if` in the `else` is reversed in place inside its
    // reverse; both assign both accumulators on every path.
    let chain = "fn f(x: &[f64]) -> f64 {
        let mut a = 0.0;
        let mut b = 0.0;
        for i in 0..x.len() {
            if x[i] > 0.2 { a += x[i].exp(); } else if x[i] < -0.5 { b -= x[i]; } else { a += 1.0; }
        }
        2.0 * a - b
    }";
    assert_eq!(
        in_place(chain),
        [
            [
                "__ad_cell_a_0 -> __ad_cell_a_0",
                "__ad_cell_b_1 -> __ad_cell_b_1"
            ],
            [
                "__ad_cell_a_0 -> __ad_cell_a_0",
                "__ad_cell_b_1 -> __ad_cell_b_1"
            ],
        ]
    );
    // A `continue`: the rest of the body is the other branch.
    let skip = "fn f(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() { let r = x[i] * x[i]; if r > 1.0 { continue; } s += r.sqrt(); }
        s
    }";
    assert_eq!(in_place(skip), [["__ad_cell_s_0 -> __ad_cell_s_0"]]);
    // A value `if` whose value is added, subtracted and scaled by a value
    // known before it.
    let value = "fn f(x: &[f64], k: f64) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            let c = k * x[0];
            let v = if x[i] > 0.0 { x[i].ln_1p() } else { x[i].exp() };
            let w = 2.0 - v * c;
            s += w;
        }
        s
    }";
    assert_eq!(
        in_place(value),
        [["__ad_cell_value_3 -> -__ad_cell_s_0 * c"]]
    );
    let not_in_place = [
        // a loop in the branch
        "fn f(x: &[f64]) -> f64 { let mut s = 0.0; for i in 0..2 { if x[i] < 0.0 { for j in 0..2 { s += x[j]; } } } s }",
        // a store in the branch, into an array of the body
        "fn f(x: &[f64]) -> f64 { let mut s = 0.0; for i in 0..2 { let mut h = vec![0.0; 2]; if x[i] < 0.0 { h[i] = x[i]; } s += h[1] * h[0]; } s }",
        // reads an array the body declares (and stores into after the `if`)
        "fn f(x: &[f64]) -> f64 { let mut s = 0.0; for i in 0..2 { let mut h = vec![x[0], x[1]]; if x[i] < 0.0 { s += h[i].sin(); } h[i] = x[2]; s += h[i]; } s }",
        // a value `if` whose value is read twice, or scaled by a value
        // computed after it
        "fn f(x: &[f64]) -> f64 { let mut s = 0.0; for i in 0..2 { let v = if x[i] > 0.0 { x[i].sin() } else { x[i] }; s += v * v; } s }",
        "fn f(x: &[f64]) -> f64 { let mut s = 0.0; for i in 0..2 { let v = if x[i] > 0.0 { x[i].sin() } else { x[i] }; let c = x[i].cos(); s += v * c; } s }",
        // nothing that needs an adjoint leaves the branch
        "fn f(x: &[f64]) -> f64 { let mut s = 0.0; let mut c = 0; for i in 0..2 { if x[i] < 0.0 { c += 1; } s += x[i]; } s + c as f64 }",
    ];
    for src in not_in_place {
        assert!(in_place(src).is_empty(), "{src}: {:?}", in_place(src));
    }
}

#[test]
fn accumulating_loops_are_reversed_as_they_run() {
    // A sum returned as it is: its adjoint is d_out.
    let sum = "fn f(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() { s += x[i] * x[i]; }
        s
    }";
    assert_eq!(fused(sum), [["__ad_cell_s_0 = d_out"]]);
    // A mean: `.len()` and casts may be evaluated before the loop.
    let mean = "fn f(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() { s += x[i]; }
        s / x.len() as f64
    }";
    assert_eq!(
        fused(mean),
        [["__ad_cell_s_0 = d_out * (1.0 / (((x . len ()) as f64)))"]]
    );
    // Used linearly afterwards, with factors known before the loop, in
    // the order the reverse sweep multiplies them.
    let linear = "fn f(x: &[f64], k: f64) -> f64 {
        let n = x.len();
        let mut s = 0.0;
        let mut q = 0.0;
        for i in 0..n { s += x[i]; q -= x[i].sin(); }
        let m = n as f64;
        let r = 2.0 * (s / m) * k;
        -(r - q) + 1.0
    }";
    assert_eq!(
        fused(linear),
        [[
            "__ad_cell_s_0 = (- (d_out * (k) * (2.0) * (1.0 / (n as f64))))",
            "__ad_cell_q_1 = d_out",
        ]]
    );
    // Accumulation through an `if`, a `continue` and a nested loop.
    let nested = "fn f(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            if x[i] < 0.0 { continue; }
            for j in 0..i { s += x[i] * x[j]; }
            if x[i] > 1.0 { s -= x[i]; } else { s += 1.0; }
        }
        s
    }";
    assert_eq!(fused(nested), [["__ad_cell_s_0 = d_out"]]);
    // An `if` in the middle of the body: its cell starts from the entry,
    // which every branch overwrites (that first read is not a second use).
    let middle = "fn f(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            if x[i] > 0.0 { s += x[i]; }
            s += x[i] * x[i];
        }
        s
    }";
    assert_eq!(fused(middle), [["__ad_cell_s_0 = d_out"]]);
    // Two top-level loops, both accumulating (a batch loss and its L2 term).
    let two = "fn f(w: &[f64]) -> f64 {
        let mut t = 0.0;
        for i in 0..w.len() { t += w[i].exp(); }
        let mut r = 0.0;
        for i in 0..w.len() { r += w[i] * w[i]; }
        t / 3.0 + 1e-4 * r
    }";
    assert_eq!(
        fused(two),
        [
            ["__ad_cell_t_0 = d_out * (1.0 / (3.0))"],
            ["__ad_cell_r_3 = d_out * (1e-4)"],
        ]
    );
}

#[test]
fn loops_that_do_more_than_accumulate_are_not_fused() {
    let not_fused = [
        // the accumulator is read by something else than its own `+`
        "fn f(x: &[f64]) -> f64 { let mut s = 1.0; for i in 0..2 { s += s * x[i]; } s }",
        "fn f(x: &[f64]) -> f64 { let mut s = 1.0; for i in 0..2 { s = x[i] - s; } s }",
        "fn f(x: &[f64]) -> f64 { let mut s = 1.0; for i in 0..2 { s += x[i]; if s > 0.5 { s += 1.0; } } s }",
        // a factor that calls a function (it would run early, and twice)
        "fn f(x: &[f64]) -> f64 { let mut s = 0.0; for i in 0..2 { s += x[i]; } let c = f64::from(x.len() as u32); s * c }",
        // two accumulators trade values
        "fn f(x: &[f64]) -> f64 { let mut s = 0.0; let mut r = 0.0; for i in 0..2 { let t = s; s = r + x[i]; r = t; } s }",
        // one accumulated value flows into two accumulators
        "fn f(x: &[f64]) -> f64 { let mut s = 0.0; let mut r = 0.0; for i in 0..2 { let t = s + x[i]; s = t; r = t; } s + 3.0 * r }",
        "fn f(x: &[f64]) -> f64 { let mut s = 0.0; let mut r = 0.0; for i in 0..2 { let t = s; if x[i] > 0.0 { r = t; } s = t + x[i]; } s + 3.0 * r }",
        "fn f(x: &[f64]) -> f64 { let mut s = 0.0; let mut r = 0.0; for i in 0..2 { let t = s; let y = if x[i] > 0.0 { r = t; t } else { t + 1.0 }; s = y + x[i]; } s + r }",
        // another carried value needs an adjoint
        "fn f(x: &[f64]) -> f64 { let mut s = 0.0; let mut p = 0.0; for i in 0..2 { s += (x[i] - p).powi(2); p = x[i]; } s }",
        // a break
        "fn f(x: &[f64]) -> f64 { let mut s = 0.0; for i in 0..2 { if x[i] > 1.0 { break; } s += x[i]; } s }",
        // a store into an array that outlives the loop
        "fn f(x: &[f64]) -> f64 { let mut h = [0.0; 2]; let mut s = 0.0; for i in 0..2 { h[i] = x[i]; s += x[i]; } s + h[0] }",
        // reads an array that the code after it stores into
        "fn f(x: &[f64]) -> f64 { let mut h = [x[0], x[1]]; let mut s = 0.0; for i in 0..2 { s += h[i] * x[2]; } h[0] = x[3]; s + h[0] }",
        "fn f(x: &[f64]) -> f64 { let mut h = [x[0], x[1]]; let mut s = 0.0; for i in 0..2 { s += h[i]; } for j in 0..1 { if x[j] > 0.0 { h[j] = x[3]; } } s + h[0] }",
        // used non-linearly afterwards
        "fn f(x: &[f64]) -> f64 { let mut s = 0.0; for i in 0..2 { s += x[i]; } s * s }",
        "fn f(x: &[f64]) -> f64 { let mut s = 0.0; for i in 0..2 { s += x[i]; } s.sin() }",
        "fn f(x: &[f64]) -> f64 { let mut s = 0.0; for i in 0..2 { s += x[i]; } 1.0 / s }",
        // scaled by something computed after the loop
        "fn f(x: &[f64]) -> f64 { let mut s = 0.0; for i in 0..2 { s += x[i]; } let k = x[0].exp(); s * k }",
        // divided by another output of the loop
        "fn f(x: &[f64]) -> f64 { let mut s = 0.0; let mut c = 0; for i in 0..2 { s += x[i]; c += 1; } s / c as f64 }",
    ];
    for src in not_fused {
        assert!(fused(src).is_empty(), "{src} fused {:?}", fused(src));
    }
    // Read by a later loop: that one fuses (`s` is known before it), the
    // first does not (its adjoint comes from the second).
    let read_later = "fn f(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..2 { s += x[i]; }
        let mut t = 0.0;
        for i in 0..2 { t += s * x[i]; }
        t
    }";
    assert_eq!(fused(read_later), [["__ad_cell_t_2 = d_out"]]);
    // Only loops in the function body: here the outer one, not `s`'s.
    let nested = "fn f(x: &[f64]) -> f64 {
        let mut t = 0.0;
        for j in 0..2 {
            let mut s = 0.0;
            for i in 0..2 { s += x[i] * x[j]; }
            t += s.sin();
        }
        t
    }";
    assert_eq!(fused(nested), [["__ad_cell_t_0 = d_out"]]);
    // ... unless the inner loop only accumulates into the outer one's
    // accumulator: a double sum is fused at both levels, the inner loop's
    // seed being the outer's.
    let pairs = "fn f(x: &[f64]) -> f64 {
        let mut e = 0.0;
        for i in 0..x.len() {
            for j in i + 1..x.len() { e += x[i] * x[j]; }
        }
        e
    }";
    assert_eq!(
        fused(pairs),
        [
            vec!["__ad_cell_e_0 = d_out"],
            vec!["__ad_cell_e_1 = __ad_seed_cell_e_0"]
        ]
    );
}

/// Whether `item`, with `#[differentiable(args)]`, is emitted in forward mode.
fn forward_mode(item: &syn::ItemFn, args: proc_macro2::TokenStream) -> bool {
    let args: Args = syn::parse2(args).unwrap();
    let cx = Ctxt::new();
    let names = crate::names::Names::new(item);
    let sig = signature::analyze(&cx, &item.sig, &args, &names);
    let func = lower::lower(&cx, &sig, item, &names);
    cx.check()
        .unwrap_or_else(|e| panic!("`{}` does not lower: {e}", item.sig.ident));
    let activity = activity::analyze(&func);
    crate::emit::forward::emit(&sig, &func, &activity, &names, None).is_some()
}

/// The arguments of an item's `#[differentiable(..)]`, if it has one.
fn differentiable_args(attrs: &[syn::Attribute]) -> Option<proc_macro2::TokenStream> {
    attrs
        .iter()
        .find(|a| a.path().is_ident("differentiable"))
        .map(|a| match &a.meta {
            syn::Meta::List(list) => list.tokens.clone(),
            _ => proc_macro2::TokenStream::new(),
        })
}

/// Every function of `tests/forward_mode.rs` meant for forward mode gets
/// it, so that its tests test forward mode; the reverse twins (and the
/// functions with several active inputs) do not.
#[test]
fn forward_mode_is_chosen_for_the_forward_mode_tests() {
    use syn::{punctuated::Punctuated, Expr, Item, Token};
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/forward_mode.rs");
    let source = std::fs::read_to_string(path).unwrap();
    let file = syn::parse_file(&source).unwrap();
    let expect_reverse = |name: &str| {
        name.ends_with("reverse")
            || [
                "cube_plus",
                "norm2",
                "call_with_a_varied_array_uses_the_reverse_sweep",
            ]
            .contains(&name)
    };
    let mut checked = 0;
    let mut check_fn = |f: &syn::ItemFn, context: &str| {
        let Some(args) = differentiable_args(&f.attrs) else {
            return;
        };
        let name = f.sig.ident.to_string();
        let reverse = expect_reverse(&name) || expect_reverse(context);
        assert_eq!(
            forward_mode(f, args),
            !reverse,
            "{context}::{name} in forward mode"
        );
        checked += 1;
    };
    for item in &file.items {
        match item {
            Item::Macro(m) if m.mac.path.is_ident("case") => {
                let args = m
                    .mac
                    .parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated)
                    .unwrap();
                let name = quote::ToTokens::to_token_stream(&args[0]).to_string();
                let Expr::Closure(closure) = &args[1] else {
                    panic!("case {name}: not a closure");
                };
                let (param, body) = (&closure.inputs[0], &closure.body);
                for f in [
                    syn::parse_quote!(#[differentiable] fn f(#param: f64) -> f64 #body),
                    syn::parse_quote!(
                        #[differentiable] fn reverse(#param: f64, _twin: f64) -> f64 #body
                    ),
                ] {
                    check_fn(&f, &name);
                }
            }
            Item::Mod(m) => {
                for item in m.content.iter().flat_map(|(_, items)| items) {
                    if let Item::Fn(f) = item {
                        check_fn(f, &m.ident.to_string());
                    }
                }
            }
            Item::Fn(f) => check_fn(f, ""),
            Item::Impl(i) => {
                for item in &i.items {
                    if let syn::ImplItem::Fn(m) = item {
                        let f = syn::ItemFn {
                            attrs: m.attrs.clone(),
                            vis: m.vis.clone(),
                            sig: m.sig.clone(),
                            block: Box::new(m.block.clone()),
                        };
                        check_fn(&f, "impl");
                    }
                }
            }
            _ => {}
        }
    }
    assert!(checked >= 60, "only {checked} functions found");
}

#[test]
fn forward_mode_needs_one_active_scalar() {
    let not = [
        ("fn f(x: f64, y: f64) -> f64 { x * y }", ""),
        ("fn f(x: &[f64]) -> f64 { x[0] * x[1] }", ""),
        ("fn f(x: [f64; 2]) -> f64 { x[0] * x[1] }", ""),
        ("fn f(x: f64, w: &[f64]) -> f64 { x * w[0] }", "wrt(w)"),
        // A varied local array passed to a call.
        ("fn f(x: f64) -> f64 { let a = [x, 1.0]; g(&a) }", ""),
    ];
    for (src, args) in not {
        let item: syn::ItemFn = syn::parse_str(src).unwrap();
        assert!(!forward_mode(&item, args.parse().unwrap()), "{src}");
    }
    let yes = [
        ("fn f(x: f64, y: f64) -> f64 { x * y }", "wrt(y)"),
        ("fn f(x: f64, w: &[f64]) -> f64 { x * w[0] }", "wrt(x)"),
        // A constant array passed to a call, a varied scalar.
        ("fn f(x: f64, w: &[f64]) -> f64 { g(x, w) }", "wrt(x)"),
        ("fn f(x: f64) -> f64 { 1.0 }", ""),
    ];
    for (src, args) in yes {
        let item: syn::ItemFn = syn::parse_str(src).unwrap();
        assert!(forward_mode(&item, args.parse().unwrap()), "{src}");
    }
}

/// Costly values a top-level loop does not change are computed before it
/// into a table it reads (`lower/tabulate.rs`): `w[j].exp()` in the loop
/// over samples, over the loop between (`j`), the outermost of the filling
/// nest running no iteration when the loop over samples runs none.
#[test]
fn costly_values_a_loop_does_not_change_are_tabulated() {
    let src = "fn f(w: &[f64], x: &[f64], d: usize) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() / d {
            for j in 0..d {
                s += x[i * d + j] * w[j].exp();
            }
        }
        s
    }";
    check(
        src,
        "
        let s = const(0.0)
        let mut __ad_cell_s_0 = s
        let __ad_tab_runs = const((0) < (x . len () / d) && (0) < (d))
        let __ad_tab = [0.0; if __ad_tab_runs { 1usize * (d) } else { 0 }]
        for __ad_tab_at in 0 .. (if __ad_tab_runs { d } else { 0 }) {
            let __ad_tab_v = load(w, __ad_tab_at)
            let __ad_tab_v_1 = exp(__ad_tab_v)
            __ad_tab[__ad_tab_at] = __ad_tab_v_1
        }
        for i in 0 .. x . len () / d {
            let s__1 = __ad_cell_s_0
            let mut __ad_cell_s_1 = s__1
            for j in 0 .. d {
                let s__2 = __ad_cell_s_1
                let __ad_t2 = load(x, i * d + j)
                let __ad_t3 = load(w, j)
                let __ad_t4 = load(__ad_tab, j)
                let __ad_t5 = mul(__ad_t2, __ad_t4)
                let s__3 = add(s__2, __ad_t5)
                __ad_cell_s_1 <- s__3
            }
            let s__4 = __ad_cell_s_1
            __ad_cell_s_0 <- s__4
        }
        let s__5 = __ad_cell_s_0
        return s__5
        ",
    );
    // A costly value only a cheap one reads (`2.0 * e`), which stays in
    // the loop and reads the table.
    let func = lowered(
        "fn f(w: &[f64], x: &[f64]) -> f64 { let mut s = 0.0;
            for i in 0..x.len() { for j in 0..2 { let e = w[j].sqrt(); s += x[i] * (2.0 * e); } } s }",
        "",
    )
    .unwrap();
    assert!(func.dump().contains("= load(__ad_tab, "), "{}", func.dump());
    // What stays in the loop: a value that reads the loop's index, or a
    // cell; a value in a loop that may stop early or skip it, or under an
    // `if`; a value of literals alone (LLVM's); a loop inside another
    // (its table would be filled, and allocated, every iteration).
    for src in [
        "fn f(w: &[f64], x: &[f64]) -> f64 { let mut s = 0.0;
            for i in 0..x.len() { for j in 0..2 { s += (w[j] * x[i]).exp(); } } s }",
        "fn f(w: &[f64], x: &[f64]) -> f64 { let mut s = 0.0;
            for i in 0..x.len() { let mut t = w[0]; for j in 0..2 { t = t.exp(); } s += t; } s }",
        "fn f(w: &[f64], x: &[f64]) -> f64 { let mut s = 0.0;
            for i in 0..x.len() { if x[i] > 0.0 { break; } for j in 0..2 { s += w[j].exp(); } } s }",
        "fn f(w: &[f64], x: &[f64]) -> f64 { let mut s = 0.0;
            for i in 0..x.len() { for j in 0..2 { if x[i] > 0.0 { continue; } s += w[j].exp(); } } s }",
        "fn f(w: &[f64], x: &[f64]) -> f64 { let mut s = 0.0;
            for i in 0..x.len() { for j in 0..2 { if x[i] > 0.0 { s += w[j].exp(); } } } s }",
        "fn f(w: &[f64], x: &[f64]) -> f64 { let mut s = 0.0;
            for i in 0..x.len() { for j in 0..2 { s += x[i] * 2.0_f64.sqrt(); } } s }",
        "fn f(w: &[f64], x: &[f64]) -> f64 { let mut s = 0.0;
            for k in 0..3 { for i in 0..x.len() { for j in 0..2 { s += w[j + k].exp() * x[i]; } } } s }",
    ] {
        let func = lowered(src, "").unwrap_or_else(|e| panic!("errors: {e}"));
        let dump = func.dump();
        assert!(!dump.contains("__ad_tab"), "{src}\n{dump}");
    }
}
