//! Branches, loops, jumps and overwrites, through the public API: each
//! construct against finite differences at several points (both sides of
//! every branch), and exact gradients where they are known.

// The functions are written the way the constructs under test look.
#![allow(
    clippy::needless_return,
    clippy::assign_op_pattern,
    clippy::needless_range_loop,
    clippy::collapsible_else_if,
    clippy::manual_clamp
)]

mod common;

use autograd::differentiable;
use common::assert_gradient;

// ----- branches ------------------------------------------------------------

#[differentiable]
fn piecewise(x: f64, y: f64) -> f64 {
    let mut z = x * y;
    if x > 1.0 {
        z = z * x;
    } else if x < -1.0 && y > 0.0 {
        z = z.sin() + y;
    } else {
        z = z - y * y;
    }
    z * 2.0
}

#[differentiable]
fn if_as_value(x: f64) -> f64 {
    let y = if x >= 0.0 { x.sqrt() } else { -(-x).sqrt() };
    let k = if x.abs() > 2.0 { 3.0 } else { 1.0 };
    y * k + if y > 0.5 { y } else { x }
}

#[differentiable]
fn branch_without_else(x: f64) -> f64 {
    let mut y = x;
    if y < 0.0 {
        y = -y;
    }
    y * x
}

#[test]
fn branches_on_every_side() {
    for &(x, y) in &[
        (2.0, 0.5),
        (0.3, -0.7),
        (-2.0, 1.5),
        (-2.0, -1.5),
        (1.5, 3.0),
    ] {
        let (value, (dx, dy)) = piecewise_grad(x, y);
        assert_eq!(value, piecewise(x, y));
        assert_gradient(|v| piecewise(v[0], v[1]), &[x, y], &[dx, dy]);
    }
    for &x in &[3.0, 1.0, 0.1, -0.3, -4.0] {
        let (value, dx) = if_as_value_grad(x);
        assert_eq!(value, if_as_value(x));
        assert_gradient(|v| if_as_value(v[0]), &[x], &[dx]);
        let (value, dx) = branch_without_else_grad(x);
        assert_eq!(value, branch_without_else(x));
        assert_gradient(|v| branch_without_else(v[0]), &[x], &[dx]);
    }
}

#[differentiable]
fn relu_by_branch(x: f64) -> f64 {
    if x > 0.0 {
        x
    } else {
        0.0
    }
}

#[test]
fn relu_written_with_if() {
    assert_eq!(relu_by_branch_grad(3.0), (3.0, 1.0));
    assert_eq!(relu_by_branch_grad(-3.0), (0.0, 0.0));
    assert_eq!(relu_by_branch_grad(0.0), (0.0, 0.0));
}

// ----- early return --------------------------------------------------------

#[differentiable]
fn early_return(x: f64) -> f64 {
    if x < 0.0 {
        return x * x;
    }
    let y = x.exp();
    if y > 10.0 {
        return y.ln() * 3.0;
    }
    y + x
}

#[differentiable]
fn return_from_loop(x: f64, n: usize) -> f64 {
    let mut y = x;
    for i in 0..n {
        y = y * 1.5 + (i as f64);
        if y > 20.0 {
            return y.sqrt();
        }
    }
    y * y
}

#[test]
fn early_returns() {
    for &x in &[-2.0, -0.5, 0.5, 1.5, 2.5, 3.0] {
        let (value, dx) = early_return_grad(x);
        assert_eq!(value, early_return(x));
        assert_gradient(|v| early_return(v[0]), &[x], &[dx]);
    }
    for &(x, n) in &[(0.5, 3), (0.5, 10), (4.0, 10), (30.0, 5), (1.0, 0)] {
        let (value, dx) = return_from_loop_grad(x, n);
        assert_eq!(value, return_from_loop(x, n));
        assert_gradient(|v| return_from_loop(v[0], n), &[x], &[dx]);
    }
}

// ----- loops -------------------------------------------------------------

#[differentiable]
fn horner(coefficients: &[f64], x: f64) -> f64 {
    let mut p = 0.0;
    for i in (0..coefficients.len()).rev() {
        p = p * x + coefficients[i];
    }
    p
}

#[test]
fn horner_polynomial_is_exact() {
    // p(x) = 1 + 2x + 3x² + 4x³ at x = 2: 49; p'(2) = 2 + 12 + 48 = 62.
    let (value, (dc, dx)) = horner_grad(&[1.0, 2.0, 3.0, 4.0], 2.0);
    assert_eq!(value, 49.0);
    assert_eq!(dx, 62.0);
    assert_eq!(dc, vec![1.0, 2.0, 4.0, 8.0]);
}

#[differentiable]
fn repeated_squaring(x: f64, k: usize) -> f64 {
    let mut y = x;
    for _ in 0..k {
        y = y * y;
    }
    y
}

#[test]
fn repeated_squaring_is_exact() {
    for k in 0..6u32 {
        let x: f64 = 1.1;
        let (value, dx) = repeated_squaring_grad(x, k as usize);
        let power = 2_i32.pow(k);
        assert_eq!(value, repeated_squaring(x, k as usize));
        let exact = f64::from(power) * x.powi(power - 1);
        assert!(
            (dx - exact).abs() <= 1e-12 * exact.abs(),
            "k = {k}: {dx} vs {exact}"
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

#[test]
fn newton_iterations_for_the_square_root() {
    for &a in &[0.25, 2.0, 9.0, 100.0] {
        let (value, da) = newton_sqrt_grad(a);
        assert!((value - a.sqrt()).abs() <= 1e-12 * a.sqrt());
        let exact = 0.5 / a.sqrt();
        assert!(
            (da - exact).abs() <= 1e-12 * exact,
            "a = {a}: {da} vs {exact}"
        );
    }
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

fn rosenbrock_gradient_by_hand(x: &[f64]) -> Vec<f64> {
    let mut g = vec![0.0; x.len()];
    for i in 0..x.len() - 1 {
        let t = x[i + 1] - x[i] * x[i];
        g[i] += -400.0 * t * x[i] - 2.0 * (1.0 - x[i]);
        g[i + 1] += 200.0 * t;
    }
    g
}

#[test]
fn extended_rosenbrock_matches_the_analytic_gradient() {
    for n in [2, 3, 10, 101] {
        let x: Vec<f64> = (0..n)
            .map(|i| {
                if i % 2 == 0 {
                    -1.2
                } else {
                    1.0 + 0.01 * i as f64
                }
            })
            .collect();
        let (value, g) = extended_rosenbrock_grad(&x);
        assert_eq!(value, extended_rosenbrock(&x));
        let expected = rosenbrock_gradient_by_hand(&x);
        for (a, b) in g.iter().zip(&expected) {
            assert!(
                (a - b).abs() <= 1e-12 * b.abs().max(1.0),
                "n = {n}: {a} vs {b}"
            );
        }
    }
}

#[differentiable]
fn loop_forms(xs: &[f64], w: [f64; 3], n: usize) -> f64 {
    let mut s = 0.0;
    for v in xs {
        s += v * v;
    }
    for &v in xs {
        s += v.sin();
    }
    for v in xs.iter() {
        s += *v * 0.5;
    }
    for (i, v) in xs.iter().enumerate() {
        s += v * w[i % 3];
    }
    for i in 1..=n {
        s += w[i % 3] * (i as f64);
    }
    for i in (0..3).rev() {
        s = s * 0.9 + w[i];
    }
    let mut k = 0;
    while k < xs.len() {
        s += xs[k] * w[0];
        k += 2;
    }
    s
}

#[test]
fn every_loop_form() {
    let xs = [0.3, -1.2, 2.0, 0.7];
    let w = [0.5, -0.25, 1.5];
    let (value, (dxs, dw)) = loop_forms_grad(&xs, w, 4);
    assert_eq!(value, loop_forms(&xs, w, 4));
    let mut all = xs.to_vec();
    all.extend_from_slice(&w);
    let f = |v: &[f64]| loop_forms(&v[..4], [v[4], v[5], v[6]], 4);
    let mut g = dxs.clone();
    g.extend_from_slice(&dw);
    assert_gradient(f, &all, &g);
}

#[differentiable]
fn break_and_continue(x: &[f64], limit: f64) -> f64 {
    let mut s = 0.0;
    let mut product = 1.0;
    for i in 0..x.len() {
        if x[i] < 0.0 {
            continue;
        }
        s += x[i] * product;
        product *= x[i];
        if s > limit {
            break;
        }
    }
    let mut y = s;
    let mut steps = 0;
    loop {
        y = y.sin() + 0.5 * y;
        steps += 1;
        if steps >= 4 {
            break;
        }
    }
    y
}

#[test]
fn break_and_continue_take_the_path_the_forward_sweep_took() {
    let xs = [0.5, -1.0, 1.5, 2.0, -0.5, 3.0];
    for &limit in &[0.1, 1.0, 2.5, 100.0] {
        let (value, (dx, dl)) = break_and_continue_grad(&xs, limit);
        assert_eq!(value, break_and_continue(&xs, limit));
        assert_gradient(|v| break_and_continue(v, limit), &xs, &dx);
        assert_eq!(dl, 0.0);
    }
}

#[differentiable]
fn nested_loops(a: &[f64], n: usize) -> f64 {
    // A row-major n×n matrix: Σᵢ (Σⱼ a[i n + j] · (j + 1))².
    let mut total = 0.0;
    for i in 0..n {
        let mut row = 0.0;
        for j in 0..n {
            let w = (j + 1) as f64;
            row += a[i * n + j] * w;
            if row > 5.0 {
                row = row.sqrt() + 1.0;
            }
        }
        total += row * row;
    }
    total
}

#[test]
fn nested_loops_with_branches() {
    let a: Vec<f64> = (0..9).map(|k| 0.3 * k as f64 - 0.8).collect();
    let (value, da) = nested_loops_grad(&a, 3);
    assert_eq!(value, nested_loops(&a, 3));
    assert_gradient(|v| nested_loops(v, 3), &a, &da);
}

#[differentiable]
fn while_with_overwrites(x: f64) -> f64 {
    let mut y = x;
    let mut count = 0;
    while y < 100.0 && count < 50 {
        y = y * y + 1.0;
        count += 1;
    }
    y.ln()
}

#[test]
fn while_loops() {
    for &x in &[0.5, 1.5, 3.0, 20.0, 200.0] {
        let (value, dx) = while_with_overwrites_grad(x);
        assert_eq!(value, while_with_overwrites(x));
        assert_gradient(|v| while_with_overwrites(v[0]), &[x], &[dx]);
    }
}

#[differentiable]
fn accumulate_only(x: &[f64], y: &[f64]) -> f64 {
    let mut dot = 0.0;
    for i in 0..x.len() {
        dot += x[i] * y[i];
    }
    dot
}

#[test]
fn accumulation_loops() {
    let (value, (dx, dy)) = accumulate_only_grad(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]);
    assert_eq!(value, 32.0);
    assert_eq!(dx, vec![4.0, 5.0, 6.0]);
    assert_eq!(dy, vec![1.0, 2.0, 3.0]);
}

/// Assignments that end a block with no `;` (as rustfmt leaves `if c {
/// best = x }`), in an `if`, a `match` arm (`true => best = s,`) and a
/// bare block: each is the statement it stands for (they were refused as
/// "assignment is only supported as a statement").
#[differentiable]
fn assignments_ending_blocks(x: &[f64]) -> f64 {
    let mut best = 10.0;
    let mut misses = 0;
    let mut total = 0.0;
    for i in 0..x.len() {
        if x[i] < best {
            best = x[i]
        }
        match x[i] * x[i] > 0.5 {
            true => total += x[i].sin(),
            false => misses += 1,
        }
        {
            total *= 0.9
        }
    }
    best * total + misses as f64
}

#[test]
fn assignments_may_end_blocks() {
    for x in [[0.3, -1.2, 0.8, 0.1], [1.5, 0.2, -0.4, 2.0]] {
        let (value, gradient) = assignments_ending_blocks_grad(&x);
        assert_eq!(value, assignments_ending_blocks(&x));
        assert_gradient(assignments_ending_blocks, &x, &gradient);
    }
}

/// `break 'outer` and `continue 'outer` from nested loops, three deep.
#[differentiable]
fn labeled_jumps(x: &[f64]) -> f64 {
    let mut s = 0.0;
    'a: for i in 0..x.len() {
        'b: for j in 0..x.len() {
            for k in 0..x.len() {
                if x[k] > 1.5 {
                    break 'a;
                }
                if x[k] * x[j] > 0.8 {
                    continue 'b;
                }
                if x[k] < -0.5 {
                    continue 'a;
                }
                s += x[i] * x[j] * x[k];
            }
            s += 0.1 * x[j];
        }
        s -= 0.01 * x[i];
    }
    s
}

/// The same with the flags written out.
#[differentiable]
fn labeled_jumps_by_flags(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let mut stop = false;
        let mut next_i = false;
        for j in 0..x.len() {
            let mut next_j = false;
            for k in 0..x.len() {
                if x[k] > 1.5 {
                    stop = true;
                    break;
                }
                if x[k] * x[j] > 0.8 {
                    next_j = true;
                    break;
                }
                if x[k] < -0.5 {
                    next_i = true;
                    break;
                }
                s += x[i] * x[j] * x[k];
            }
            if stop || next_i {
                break;
            }
            if next_j {
                continue;
            }
            s += 0.1 * x[j];
        }
        if stop {
            break;
        }
        if next_i {
            continue;
        }
        s -= 0.01 * x[i];
    }
    s
}

#[test]
fn labeled_break_and_continue_from_nested_loops() {
    for x in [
        [0.2, 0.7, 1.3, 0.9],
        [0.9, -0.2, 3.0, 0.4],
        [0.6, 0.2, 0.3, 0.4],
        [0.3, -0.7, 0.5, 0.1],
    ] {
        let (value, dx) = labeled_jumps_grad(&x);
        assert_eq!(value, labeled_jumps(&x));
        assert_eq!((value, dx.clone()), labeled_jumps_by_flags_grad(&x));
        assert_gradient(labeled_jumps, &x, &dx);
    }
}

// ----- counted `while` loops -------------------------------------------------
//
// `while i < n { body; i += 1; }` is differentiated as the `for` loop it
// stands for (`lower/syntax.rs`, `counted_whiles`): the counter keeps its
// value after the loop, `<=` counts to `n` inclusive, and a loop whose body
// jumps out or changes the counter or the bound stays a `while`.

/// A layer iterated to a fixed point with a `while` and a counter read
/// after the loop (the copy loop as users write it for the macro).
#[allow(clippy::manual_memcpy)]
#[differentiable(wrt(w))]
fn iterated_while(w: &[f64], iters: usize) -> f64 {
    let n = 3;
    let mut x = vec![0.5; n];
    let mut y = vec![0.0; n];
    let mut it = 1;
    while it < iters {
        for i in 0..n {
            let mut s = 0.1 * it as f64;
            for j in 0..n {
                s += w[i * n + j] * x[j];
            }
            y[i] = s.tanh();
        }
        for i in 0..n {
            x[i] = y[i];
        }
        it += 1;
    }
    x[0] * x[1] + x[2] * it as f64
}

/// The same as a `for` loop.
#[allow(clippy::manual_memcpy)]
#[differentiable(wrt(w))]
fn iterated_for(w: &[f64], iters: usize) -> f64 {
    let n = 3;
    let mut x = vec![0.5; n];
    let mut y = vec![0.0; n];
    let mut it = 1;
    for k in 1..iters {
        for i in 0..n {
            let mut s = 0.1 * k as f64;
            for j in 0..n {
                s += w[i * n + j] * x[j];
            }
            y[i] = s.tanh();
        }
        for i in 0..n {
            x[i] = y[i];
        }
        it = k + 1;
    }
    x[0] * x[1] + x[2] * it as f64
}

/// `<=`, a bound that is a constant, and a counter that starts past it.
const LAST: i64 = 4;

#[differentiable]
fn inclusive_while(x: f64, start: i64) -> f64 {
    let mut k = start;
    let mut acc = x;
    while k <= LAST {
        acc = (acc * 0.5 + k as f64).sin();
        k += 1;
    }
    acc * k as f64
}

/// Not rewritten: a `break` inside, the counter stepped twice, the bound
/// changed in the body.
#[differentiable]
fn whiles_left_as_they_are(x: f64) -> f64 {
    let mut acc = x;
    let mut i = 0;
    while i < 10 {
        if acc > 3.0 {
            break;
        }
        acc = acc * 1.5 + 0.1;
        i += 1;
    }
    let mut j = 0;
    while j < 6 {
        acc = (acc + j as f64).sqrt();
        j += 1;
        j += 1;
    }
    let mut n = 3;
    let mut m = 0;
    while m < n {
        acc = acc.sin() + 1.0;
        if m == 0 {
            n += 1;
        }
        m += 1;
    }
    acc * (i + j + m) as f64
}

#[test]
fn counted_whiles_differentiate_as_their_for_loops() {
    for w in [
        [0.3, -0.2, 0.5, 0.1, 0.4, -0.3, 0.2, 0.6, -0.1],
        [-0.5, 0.2, 0.1, 0.3, -0.4, 0.2, 0.1, -0.2, 0.5],
    ] {
        for iters in [0, 1, 4] {
            let (v_while, g_while) = iterated_while_grad(&w, iters);
            let (v_for, g_for) = iterated_for_grad(&w, iters);
            assert_eq!(v_while, iterated_while(&w, iters));
            assert_eq!(v_while, v_for);
            assert_eq!(g_while, g_for);
            common::assert_gradient(|w| iterated_while(w, iters), &w, &g_while);
        }
    }
    for (x, start) in [(0.7, 0), (1.3, 3), (0.4, 4), (2.0, 9), (-0.6, -2)] {
        let (value, d) = inclusive_while_grad(x, start);
        assert_eq!(value, inclusive_while(x, start));
        let h = 1e-6;
        let fd = (inclusive_while(x + h, start) - inclusive_while(x - h, start)) / (2.0 * h);
        assert!(
            (d - fd).abs() < 1e-6 * (1.0 + fd.abs()),
            "{x} {start}: {d} {fd}"
        );
    }
    for x in [0.5, 1.1, 2.5] {
        let (value, d) = whiles_left_as_they_are_grad(x);
        assert_eq!(value, whiles_left_as_they_are(x));
        let h = 1e-6;
        let fd = (whiles_left_as_they_are(x + h) - whiles_left_as_they_are(x - h)) / (2.0 * h);
        assert!((d - fd).abs() < 1e-6 * (1.0 + fd.abs()), "{x}: {d} {fd}");
    }
}

/// The counter stepped first: the body sees it one further.
#[differentiable]
fn stepped_first(x: f64, n: usize) -> f64 {
    let mut c = 0;
    let mut acc = x;
    while c < n {
        c += 1;
        acc = (acc * c as f64).sin() + 0.5 * acc;
    }
    acc + c as f64
}

#[test]
fn a_counter_stepped_first() {
    for (x, n) in [(0.3, 0), (0.7, 1), (-1.2, 5)] {
        let (value, d) = stepped_first_grad(x, n);
        assert_eq!(value, stepped_first(x, n));
        let h = 1e-6;
        let fd = (stepped_first(x + h, n) - stepped_first(x - h, n)) / (2.0 * h);
        assert!(
            (d - fd).abs() < 1e-6 * (1.0 + fd.abs()),
            "{x} {n}: {d} {fd}"
        );
    }
}

// ----- loops with nothing to reverse -----------------------------------------

const KNOTS: [f64; 9] = [-2.0, -1.5, -0.9, -0.2, 0.0, 0.4, 1.1, 1.7, 2.5];

/// A piecewise-linear interpolant whose knot values are the input, each
/// query's interval found by a binary search: the search's reverse only
/// sets `lo` and `hi` back (`Plan::resets`), nothing saved per step.
#[differentiable(wrt(values))]
fn interpolate(values: &[f64], queries: &[f64]) -> f64 {
    let mut total = 0.0;
    for &x in queries {
        let mut lo = 0;
        let mut hi = KNOTS.len() - 1;
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if KNOTS[mid] <= x {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let t = (x - KNOTS[lo]) / (KNOTS[hi] - KNOTS[lo]);
        let v = values[lo] * (1.0 - t) + values[hi] * t;
        total += v * v;
    }
    total
}

/// The search inside a loop whose reverse replays each iteration (its
/// `acc` goes through `sin`), and a float the search scales without
/// reading the input: the replay starts each search from the cells the
/// reverse set back.
#[differentiable]
fn search_in_a_replayed_loop(values: &[f64], start: usize) -> f64 {
    let mut acc = 0.0;
    let mut lo = start;
    for round in 0..3 {
        let x = 0.7 * round as f64 - 1.1;
        let mut hi = KNOTS.len() - 1;
        let mut scale = 1.0;
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            scale *= 1.5;
            if KNOTS[mid] <= x {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        acc = (acc + values[lo] * scale + values[hi]).sin();
        lo = lo / 2;
    }
    acc
}

#[test]
fn binary_searches_reversed_by_setting_their_cells_back() {
    let queries = [-1.7, -0.5, 0.1, 0.3, 1.2, 2.4];
    for values in [
        [0.3, -0.2, 0.5, 0.1, 0.4, -0.3, 0.2, 0.6, -0.1],
        [-0.5, 0.2, 0.1, 0.3, -0.4, 0.2, 0.1, -0.2, 0.5],
    ] {
        let (value, gradient) = interpolate_grad(&values, &queries);
        assert_eq!(value, interpolate(&values, &queries));
        assert_gradient(|v| interpolate(v, &queries), &values, &gradient);
        for start in [0, 2] {
            let (value, gradient) = search_in_a_replayed_loop_grad(&values, start);
            assert_eq!(value, search_in_a_replayed_loop(&values, start));
            assert_gradient(|v| search_in_a_replayed_loop(v, start), &values, &gradient);
        }
    }
}

// ----- whiles stepped by something else than one -------------------------------

/// A radix-2 FFT's power spectrum: stages `while len <= n { ..; len *= 2; }`
/// over in-place butterflies, the `for` over its trip count it stands for.
#[differentiable]
fn fft_power(signal: &[f64]) -> f64 {
    let n = signal.len();
    let mut re = vec![0.0; n];
    let mut im = vec![0.0; n];
    let bits = n.trailing_zeros();
    for i in 0..n {
        re[i.reverse_bits() >> (usize::BITS - bits)] = signal[i];
    }
    let mut len = 2;
    while len <= n {
        let ang = -2.0 * std::f64::consts::PI / len as f64;
        for start in (0..n).step_by(len) {
            for k in 0..len / 2 {
                let (s, c) = (ang * k as f64).sin_cos();
                let (a, b) = (start + k, start + k + len / 2);
                let tr = re[b] * c - im[b] * s;
                let ti = re[b] * s + im[b] * c;
                re[b] = re[a] - tr;
                im[b] = im[a] - ti;
                re[a] += tr;
                im[a] += ti;
            }
        }
        len *= 2;
    }
    let mut power = 0.0;
    for k in 0..n {
        power += (k as f64 + 1.0) * (re[k] * re[k] + im[k] * im[k]);
    }
    power + len as f64
}

/// Time stepping to a time, `while t < end { ..; t += h; }`, the step `h`
/// differentiated too: the trip count is counted with the same additions.
#[differentiable]
fn decay_to(k: f64, h: f64) -> f64 {
    let mut y = 1.0;
    let mut t: f64 = 0.0;
    let end = 1.0;
    while t < end {
        y += h * (-k * y + t.sin());
        t += h;
    }
    y + t
}

/// An insertion sort: `while j > 0 && v[j - 1] > v[j] { v.swap(j - 1, j);
/// j -= 1; }` reads in its condition the array its body changes (by a
/// method, `swap`), so it is not counted first on a copy of `j`: it was,
/// on the unsorted array, until 2026-11-29 (a wrong value, silent).
#[differentiable]
fn insertion_sorted(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 && v[j - 1] > v[j] {
            v.swap(j - 1, j);
            j -= 1;
        }
    }
    let mut s = 0.0;
    for (k, a) in v.iter().enumerate() {
        s += (k as f64 + 1.0) * a * a.abs();
    }
    s + v[v.len() / 2]
}

#[test]
fn stepped_whiles_differentiate_as_their_for_loops() {
    for signal in [
        [0.3, -0.2, 0.5, 0.1, 0.4, -0.3, 0.2, 0.6],
        [-0.5, 0.2, 0.1, 0.3, -0.4, 0.2, 0.1, -0.2],
    ] {
        let (value, gradient) = fft_power_grad(&signal);
        assert_eq!(value, fft_power(&signal));
        assert_gradient(fft_power, &signal, &gradient);
    }
    // (no ties, where the sorted order has no derivative)
    for x in [
        [0.3, -0.2, 0.5, 0.1, 0.4, -0.3, 0.25, 0.6],
        [-0.5, 0.2, 0.15, 0.3, -0.4, 0.7, 0.1, -0.2],
    ] {
        let (value, gradient) = insertion_sorted_grad(&x);
        assert_eq!(value, insertion_sorted(&x));
        assert_gradient(insertion_sorted, &x, &gradient);
    }
    // between trip-count changes of h (h = 0.1: ten or eleven steps)
    for (k, h) in [(0.7, 0.13), (1.9, 0.071), (0.2, 0.0333)] {
        let (value, (dk, dh)) = decay_to_grad(k, h);
        assert_eq!(value, decay_to(k, h));
        let e = 1e-7;
        let fd_k = (decay_to(k + e, h) - decay_to(k - e, h)) / (2.0 * e);
        let fd_h = (decay_to(k, h + e) - decay_to(k, h - e)) / (2.0 * e);
        assert!(
            (dk - fd_k).abs() < 1e-6 * (1.0 + fd_k.abs()),
            "{k} {h}: {dk} {fd_k}"
        );
        assert!(
            (dh - fd_h).abs() < 1e-5 * (1.0 + fd_h.abs()),
            "{k} {h}: {dh} {fd_h}"
        );
    }
}

/// A `for` over an unbounded range that a `break` ends, its carried value
/// recorded each iteration: the record's room was reserved from the
/// range's lower bound, `usize::MAX` (a "capacity overflow" panic, until
/// 2026-11-29); it is reserved from a bounded range's length only now
/// (`__private::bounded_len`).
#[differentiable]
fn exp_series(x: f64) -> f64 {
    let mut s = 0.0;
    let mut term: f64 = 1.0;
    for k in 1.. {
        if term.abs() < 1e-15 {
            break;
        }
        s += term;
        term *= x / k as f64;
    }
    s
}

#[test]
fn an_unbounded_range_ended_by_a_break() {
    for x in [0.8, -1.3, 2.5] {
        let (value, dx) = exp_series_grad(x);
        assert_eq!(value, exp_series(x));
        assert!((value - x.exp()).abs() < 1e-13 * x.exp().max(1.0));
        assert!((dx - x.exp()).abs() < 1e-12 * x.exp().max(1.0), "{x}: {dx}");
    }
}
