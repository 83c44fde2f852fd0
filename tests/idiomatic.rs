//! Idiomatic Rust (API.md §1b): each construct is lowered to the indexed
//! loop it stands for, so its gradient is that loop's (bit for bit), agrees
//! with finite differences, and `_adjoint` adds into its buffers.

// The functions below are written the way the constructs under test look.
#![allow(
    clippy::needless_range_loop,
    clippy::manual_memcpy,
    clippy::redundant_closure,
    clippy::match_overlapping_arm,
    clippy::explicit_counter_loop,
    clippy::manual_slice_fill,
    clippy::iter_count,
    clippy::manual_div_ceil
)]

mod common;

use autograd::differentiable;
use common::assert_gradient;

type Grad = fn(&[f64]) -> (f64, Vec<f64>);

/// `idiom` and `manual` (the same function written with indexed loops)
/// give the same value and gradient, bit for bit; the gradient agrees with
/// finite differences of `f`; `adjoint` adds `d_out` times it.
#[track_caller]
fn same_as_loop(
    f: fn(&[f64]) -> f64,
    idiom: Grad,
    adjoint: fn(&[f64], f64, &mut [f64]) -> f64,
    manual: Grad,
    points: &[&[f64]],
) {
    for x in points {
        let (v, g) = idiom(x);
        let (v_loop, g_loop) = manual(x);
        assert_eq!(v, f(x), "value at {x:?}");
        assert_eq!(v.to_bits(), v_loop.to_bits(), "value vs loop at {x:?}");
        assert_eq!(g, g_loop, "gradient vs loop at {x:?}");
        assert_gradient(f, x, &g);
        let mut buffer = vec![0.5; x.len()];
        assert_eq!(adjoint(x, -2.0, &mut buffer).to_bits(), v.to_bits());
        for (b, g) in buffer.iter().zip(&g) {
            assert!((b - (0.5 - 2.0 * g)).abs() <= 1e-12 * (1.0 + g.abs()));
        }
    }
}

const P3: [&[f64]; 3] = [&[0.3, -1.2, 0.7], &[1.5, 0.25, -0.4], &[-0.8, 2.0, 1.1]];
const P4: [&[f64]; 2] = [&[0.3, -1.2, 0.7, 0.9], &[1.5, 0.25, -0.4, -1.3]];
const P6: [&[f64]; 2] = [
    &[0.3, -1.2, 0.7, 0.9, -0.2, 1.4],
    &[1.5, 0.25, -0.4, -1.3, 0.6, 0.8],
];

// ----- destructuring ---------------------------------------------------------

#[differentiable]
fn tuples(x: &[f64]) -> f64 {
    let (a, b) = (x[0] * x[1], x[1].sin());
    let (mut c, d) = (a, 2.0);
    c += b;
    let ((e, _), f) = ((x[2], 1.0), c * d);
    f + a * e
}

#[differentiable]
fn tuples_loop(x: &[f64]) -> f64 {
    let a = x[0] * x[1];
    let b = x[1].sin();
    let mut c = a;
    let d = 2.0;
    c += b;
    let e = x[2];
    let f = c * d;
    f + a * e
}

#[test]
fn tuple_destructuring() {
    same_as_loop(tuples, tuples_grad, tuples_adjoint, tuples_loop_grad, &P3);
}

#[differentiable]
fn sin_cos(x: &[f64]) -> f64 {
    let (s, c) = (x[0] * x[1]).sin_cos();
    let p = x[2].sin_cos();
    s * c + x[1] * s + p.0 * p.1 + f64::sin_cos(x[1]).1
}

#[differentiable]
fn sin_cos_loop(x: &[f64]) -> f64 {
    let t = x[0] * x[1];
    let s = t.sin();
    let c = t.cos();
    let p0 = x[2].sin();
    let p1 = x[2].cos();
    s * c + x[1] * s + p0 * p1 + x[1].cos()
}

#[test]
fn sin_cos_is_two_primitives() {
    same_as_loop(
        sin_cos,
        sin_cos_grad,
        sin_cos_adjoint,
        sin_cos_loop_grad,
        &P3,
    );
}

#[differentiable]
fn tuple_local(x: &[f64]) -> f64 {
    let p = (x[0] + x[1], x[0] * x[2]);
    let q = (p.1, 3.0);
    let (u, v) = p;
    p.0 * q.0 + u * v * q.1
}

#[differentiable]
fn tuple_local_loop(x: &[f64]) -> f64 {
    let p0 = x[0] + x[1];
    let p1 = x[0] * x[2];
    p0 * p1 + p0 * p1 * 3.0
}

#[test]
fn tuple_locals_and_fields() {
    same_as_loop(
        tuple_local,
        tuple_local_grad,
        tuple_local_adjoint,
        tuple_local_loop_grad,
        &P3,
    );
}

#[differentiable]
fn tuple_assign(x: &[f64]) -> f64 {
    let (mut a, mut b) = (x[0], x[1]);
    for _ in 0..4 {
        (a, b) = (b, 0.5 * a * b + x[2]);
    }
    a + b
}

#[differentiable]
fn tuple_assign_loop(x: &[f64]) -> f64 {
    let mut a = x[0];
    let mut b = x[1];
    for _ in 0..4 {
        let t = b;
        b = 0.5 * a * b + x[2];
        a = t;
    }
    a + b
}

#[test]
fn tuple_assignment_in_a_loop() {
    same_as_loop(
        tuple_assign,
        tuple_assign_grad,
        tuple_assign_adjoint,
        tuple_assign_loop_grad,
        &P3,
    );
}

/// A mutable tuple local: its parts assigned (`p.0 += ..`), the whole
/// reassigned (`r = (.., ..)`), a `sin_cos` pair changed in a branch, and a
/// block's own `p` shadowing it.
#[differentiable]
fn tuple_parts_assigned(x: &[f64]) -> f64 {
    let mut r: (f64, f64) = (-1.75, 2.0);
    for a in x.iter() {
        r = (r.1, *a * r.0);
    }
    let mut p = (1.0, 2.0);
    for a in x.iter() {
        p.0 += *a;
        p.1 *= a;
    }
    let mut sc = x[0].sin_cos();
    if sc.0 > 0.0 {
        sc.1 = sc.0 * 2.0;
    }
    {
        let p = 3.0;
        r.0 += p;
    }
    r.0 + r.1 * x[0] + p.0 * p.1 + sc.1
}

#[differentiable]
fn tuple_parts_assigned_loop(x: &[f64]) -> f64 {
    let mut r0 = -1.75;
    let mut r1 = 2.0;
    for i in 0..x.len() {
        let t = r1;
        r1 = x[i] * r0;
        r0 = t;
    }
    let mut p0 = 1.0;
    let mut p1 = 2.0;
    for i in 0..x.len() {
        p0 += x[i];
        p1 *= x[i];
    }
    let s = x[0].sin();
    let mut c = x[0].cos();
    if s > 0.0 {
        c = s * 2.0;
    }
    r0 += 3.0;
    r0 + r1 * x[0] + p0 * p1 + c
}

#[test]
fn tuple_parts_assigned_like_locals() {
    same_as_loop(
        tuple_parts_assigned,
        tuple_parts_assigned_grad,
        tuple_parts_assigned_adjoint,
        tuple_parts_assigned_loop_grad,
        &P3,
    );
}

#[differentiable]
fn array_param(x: [f64; 3], y: &[f64; 2]) -> f64 {
    let [x1, x2, x3] = x;
    let [y1, y2] = *y;
    let [a, b] = [x1 * y2, x3];
    a * x2 + b.exp() * y1
}

#[test]
fn array_destructuring() {
    let (x, y) = ([0.3, -0.4, 1.2], [0.7, 1.9]);
    let (v, (gx, gy)) = array_param_grad(x, &y);
    assert_eq!(v, array_param(x, &y));
    let (a, b) = (x[0] * y[1], x[2]);
    assert_eq!(v, a * x[1] + b.exp() * y[0]);
    assert_eq!(
        gx,
        [y[1] * x[1], a / y[1] * 0.0 + x[0] * y[1], b.exp() * y[0]]
    );
    assert_eq!(gy, [b.exp(), x[0] * x[1]]);
}

// ----- closures --------------------------------------------------------------

#[differentiable]
fn closures(x: &[f64]) -> f64 {
    let sq = |t: f64| t * t;
    let k = 3.0 * x[2];
    let lin = |t: f64| k * t + x[0];
    // Captures are the versions in scope where the closure is written.
    let k = 100.0;
    sq(x[1]) + lin(x[2]) + sq(sq(x[0])) + k
}

#[differentiable]
fn closures_loop(x: &[f64]) -> f64 {
    let k = 3.0 * x[2];
    let a = x[1] * x[1];
    let b = k * x[2] + x[0];
    let c = x[0] * x[0];
    a + b + c * c + 100.0
}

#[test]
fn closures_bound_to_locals_are_inlined() {
    same_as_loop(
        closures,
        closures_grad,
        closures_adjoint,
        closures_loop_grad,
        &P3,
    );
}

/// A closure returning an array: `#[differentiable]` keeps its result as
/// separate values, read at literal indices or destructured, and made an
/// array where it is used whole (given to a function, iterated over,
/// indexed by a variable).
#[differentiable]
fn closure_returns_array(x: &[f64]) -> f64 {
    let polar = |r: f64, t: f64| [r * t.cos(), r * t.sin(), r];
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        let p = polar(x[i], x[i + 1]);
        s += p[0] * p[1] + p[2].exp();
    }
    let [u, v, _] = polar(x[0], x[2]);
    s + u * v
}

#[differentiable]
fn norm_of(v: &[f64]) -> f64 {
    v.iter().map(|a| a * a).sum::<f64>().sqrt()
}

#[differentiable]
fn closure_array_used_whole(x: &[f64]) -> f64 {
    let polar = |r: f64, t: f64| [r * t.cos(), r * t.sin()];
    let p = polar(x[0], x[1]);
    let q = polar(x[1], x[2]);
    let squares: f64 = p.iter().map(|a| a * a).sum();
    let mut t = 0.0;
    for (k, b) in q.iter().enumerate() {
        t += b.exp() * p[k % 2];
    }
    let trio = |a: f64| [a, 2.0 * a, a * a];
    let r = trio(x[2]);
    let n = r.len() as f64;
    let pairs: f64 = r.windows(2).map(|w| w[0] * w[1]).sum();
    let mut u = 0.0;
    for v in r {
        u += v;
    }
    norm_of(&p) + squares + t + n * pairs + u + norm_of(&r[1..])
}

/// A closure returning an array of indices, read in indices and
/// conditions.
#[differentiable]
fn closure_array_of_indices(x: &[f64]) -> f64 {
    let ends = |i: usize| [i, i + 1];
    let mut s = 0.0;
    for k in 0..x.len() - 1 {
        let e = ends(k);
        s += x[e[0]] * x[e[1]];
        if x[e[k % 2]] > 0.0 {
            s += x[e[1]].sin();
        }
    }
    s
}

#[test]
fn a_closure_array_used_whole_is_made_an_array() {
    for x in P3 {
        let (v, g) = closure_array_used_whole_grad(x);
        assert_eq!(v, closure_array_used_whole(x));
        assert_gradient(closure_array_used_whole, x, &g);
        let (v, g) = closure_array_of_indices_grad(x);
        assert_eq!(v, closure_array_of_indices(x));
        assert_gradient(closure_array_of_indices, x, &g);
    }
}

#[differentiable]
fn closure_returns_array_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        let (r, t) = (x[i], x[i + 1]);
        let p0 = r * t.cos();
        let p1 = r * t.sin();
        s += p0 * p1 + r.exp();
    }
    let (r, t) = (x[0], x[2]);
    let u = r * t.cos();
    let v = r * t.sin();
    s + u * v
}

#[test]
fn a_closure_returning_an_array_is_read_by_its_parts() {
    same_as_loop(
        closure_returns_array,
        closure_returns_array_grad,
        closure_returns_array_adjoint,
        closure_returns_array_loop_grad,
        &P3,
    );
}

#[differentiable]
fn closure_in_loop(x: &[f64]) -> f64 {
    let cube = |t: f64| {
        let s = t * t;
        s * t
    };
    let mut total = 0.0;
    for i in 0..x.len() {
        if x[i] > 0.0 {
            total += cube(x[i]);
        } else {
            total -= cube(x[i] - 1.0);
        }
    }
    total
}

#[differentiable]
fn closure_in_loop_loop(x: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..x.len() {
        if x[i] > 0.0 {
            let s = x[i] * x[i];
            total += s * x[i];
        } else {
            let t = x[i] - 1.0;
            let s = t * t;
            total -= s * t;
        }
    }
    total
}

#[test]
fn closures_in_loops_and_branches() {
    same_as_loop(
        closure_in_loop,
        closure_in_loop_grad,
        closure_in_loop_adjoint,
        closure_in_loop_loop_grad,
        &P4,
    );
}

// ----- consumers -------------------------------------------------------------

#[differentiable]
fn consumers(x: &[f64], w: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let q = x.iter().map(|v| v * v).sum::<f64>();
    let p: f64 = x.iter().copied().product();
    let d: f64 = w.iter().zip(x).map(|(a, b)| a * b).sum();
    let f = x.iter().fold(1.0, |acc, &v| acc * 0.5 + v);
    let n = x.iter().filter(|&&v| v > 0.0).count();
    s + q * p + d + f * n as f64 + x.iter().count() as f64
}

#[differentiable]
fn consumers_loop(x: &[f64], w: &[f64]) -> f64 {
    let mut s = -0.0;
    for i in 0..x.len() {
        s += x[i];
    }
    let mut q = -0.0;
    for i in 0..x.len() {
        q += x[i] * x[i];
    }
    let mut p = 1.0;
    for i in 0..x.len() {
        p *= x[i];
    }
    let mut d = -0.0;
    for i in 0..w.len().min(x.len()) {
        d += w[i] * x[i];
    }
    let mut f = 1.0;
    for i in 0..x.len() {
        f = f * 0.5 + x[i];
    }
    let mut n = 0;
    for i in 0..x.len() {
        if x[i] > 0.0 {
            n += 1;
        }
    }
    s + q * p + d + f * n as f64 + x.len() as f64
}

fn consumers_x(x: &[f64]) -> f64 {
    consumers(x, &[0.5, -1.0, 2.0, 0.25])
}
fn consumers_x_grad(x: &[f64]) -> (f64, Vec<f64>) {
    let (v, g) = consumers_grad(x, &[0.5, -1.0, 2.0, 0.25]);
    (v, g.0)
}
fn consumers_x_adjoint(x: &[f64], d: f64, b: &mut [f64]) -> f64 {
    let mut dw = [0.0; 4];
    consumers_adjoint(x, &[0.5, -1.0, 2.0, 0.25], d, b, &mut dw)
}
fn consumers_x_loop_grad(x: &[f64]) -> (f64, Vec<f64>) {
    let (v, g) = consumers_loop_grad(x, &[0.5, -1.0, 2.0, 0.25]);
    (v, g.0)
}

#[test]
fn sum_product_fold_count() {
    same_as_loop(
        consumers_x,
        consumers_x_grad,
        consumers_x_adjoint,
        consumers_x_loop_grad,
        &P4,
    );
    let (x, w) = ([0.3, -1.2, 0.7], [2.0, 0.5, -1.0]);
    let (_, (_, gw)) = consumers_grad(&x, &w);
    let (_, (_, gw_loop)) = consumers_loop_grad(&x, &w);
    assert_eq!(gw, gw_loop);
}

#[differentiable]
fn ranges(x: &[f64], m: usize) -> f64 {
    let a: f64 = (1..=m).map(|i| i as f64 * x[i - 1]).sum();
    let b: f64 = x.iter().zip(1..).map(|(v, j)| v.powi(j)).sum();
    let c = (0..x.len()).step_by(2).map(|i| x[i].exp()).sum::<f64>();
    a + b + c
}

#[differentiable]
fn ranges_loop(x: &[f64], m: usize) -> f64 {
    let mut a = -0.0;
    for i in 1..=m {
        a += i as f64 * x[i - 1];
    }
    let mut b = -0.0;
    for k in 0..x.len() {
        b += x[k].powi(k as i32 + 1);
    }
    let mut c = -0.0;
    for k in 0..(x.len() + 1) / 2 {
        c += x[2 * k].exp();
    }
    a + b + c
}

#[test]
fn ranges_as_iterators() {
    for x in P4 {
        let (v, (g,)) = {
            let (v, g) = ranges_grad(x, 3);
            (v, (g,))
        };
        let (v2, g2) = ranges_loop_grad(x, 3);
        assert_eq!(v, ranges(x, 3));
        assert_eq!(v.to_bits(), v2.to_bits());
        assert_eq!(g, g2);
        assert_gradient(|x| ranges(x, 3), x, &g);
    }
}

// ----- for loops over chains ------------------------------------------------------

/// Elements of a slice of indices dereferenced where they are bound, as
/// iterating the slice gives them (`&usize`): in a closure, in a `for` over
/// a chain, in a tuple of `enumerate` and of `zip` (their expansion did not
/// compile until 2026-11-28), beside `|&k|` and `for &k`.
#[differentiable(wrt(x))]
fn gathers(x: &[f64], idx: &[usize]) -> f64 {
    let mut s = idx.iter().map(|k| x[*k]).sum::<f64>();
    s += idx.iter().map(|&k| x[k] * 2.0).sum::<f64>();
    for (i, k) in idx.iter().enumerate() {
        s += x[*k] * i as f64;
    }
    for (k, w) in idx.iter().zip(x) {
        s += x[*k] * w;
    }
    for &k in idx.iter().rev() {
        s = s * 0.5 + x[k];
    }
    s + idx
        .iter()
        .filter(|k| **k > 0)
        .map(|k| x[*k - 1])
        .sum::<f64>()
}

#[differentiable(wrt(x))]
fn gathers_loop(x: &[f64], idx: &[usize]) -> f64 {
    let mut s = -0.0;
    for j in 0..idx.len() {
        s += x[idx[j]];
    }
    let mut t = -0.0;
    for j in 0..idx.len() {
        t += x[idx[j]] * 2.0;
    }
    s += t;
    for j in 0..idx.len() {
        s += x[idx[j]] * j as f64;
    }
    for j in 0..idx.len().min(x.len()) {
        s += x[idx[j]] * x[j];
    }
    for j in (0..idx.len()).rev() {
        s = s * 0.5 + x[idx[j]];
    }
    let mut u = -0.0;
    for j in 0..idx.len() {
        if idx[j] > 0 {
            u += x[idx[j] - 1];
        }
    }
    s + u
}

#[test]
fn indices_dereferenced_where_they_are_bound() {
    let idx = [2, 0, 3, 1];
    for x in [[0.3, -0.7, 1.1, 0.4], [1.5, 0.2, -0.9, 0.8]] {
        let (value, gradient) = gathers_grad(&x, &idx);
        assert_eq!(value, gathers(&x, &idx));
        assert_eq!((value, gradient.clone()), gathers_loop_grad(&x, &idx));
        assert_gradient(|x| gathers(x, &idx), &x, &gradient);
    }
}

/// `for` over an array literal of integers, by value and by reference, and
/// in a chain (refused until 2026-11-28; bound to a local first, it was
/// taken), beside one of floats.
#[differentiable]
fn over_literals(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for dim in [1, 2] {
        s += x[dim] * dim as f64;
    }
    for &k in &[0usize, 2] {
        s += x[k] * x[k];
    }
    for (i, step) in [3usize, 1].iter().enumerate() {
        s += x[*step] * (i + 1) as f64;
    }
    for w in [x[0], 0.5] {
        s *= w;
    }
    s
}

#[differentiable]
fn over_literals_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    s += x[1];
    s += x[2] * 2.0;
    s += x[0] * x[0];
    s += x[2] * x[2];
    s += x[3];
    s += x[1] * 2.0;
    s *= x[0];
    s *= 0.5;
    s
}

#[test]
fn for_over_array_literals_of_integers() {
    for x in [[0.3, -0.7, 1.1, 0.4], [1.5, 0.2, -0.9, 0.8]] {
        let (value, gradient) = over_literals_grad(&x);
        assert_eq!(value, over_literals(&x));
        // (the same value; the gradient's terms added in another order)
        let (loop_value, loop_gradient) = over_literals_loop_grad(&x);
        assert_eq!(value, loop_value);
        for (g, l) in gradient.iter().zip(&loop_gradient) {
            assert!((g - l).abs() <= 1e-15 * l.abs().max(1.0), "{g} against {l}");
        }
        assert_gradient(over_literals, &x, &gradient);
    }
}

#[differentiable]
fn for_chains(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (a, b) in x.iter().zip(&x[1..]) {
        s += a * b;
    }
    for (i, &v) in x.iter().enumerate().skip(1) {
        s += i as f64 * v.sin();
    }
    for v in x.iter().rev().take(2) {
        s = s * 0.5 + v;
    }
    for w in x.windows(3) {
        s += w[0] * w[2] - w[1];
    }
    for c in x.chunks(4) {
        s += c[0] * c.len() as f64;
    }
    for v in &x[..x.len() - 1] {
        s += v * v;
    }
    s
}

#[differentiable]
fn for_chains_loop(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n - 1 {
        s += x[i] * x[i + 1];
    }
    for i in 1..n {
        s += i as f64 * x[i].sin();
    }
    for i in 0..2 {
        s = s * 0.5 + x[n - 1 - i];
    }
    for i in 0..n - 2 {
        s += x[i] * x[i + 2] - x[i + 1];
    }
    for c in 0..(n + 3) / 4 {
        s += x[4 * c] * (4.min(n - 4 * c)) as f64;
    }
    for i in 0..n - 1 {
        s += x[i] * x[i];
    }
    s
}

#[test]
fn for_over_adapted_iterators() {
    same_as_loop(
        for_chains,
        for_chains_grad,
        for_chains_adjoint,
        for_chains_loop_grad,
        &P6,
    );
}

#[differentiable]
fn buffers(x: &[f64]) -> f64 {
    let mut b = vec![0.0; x.len()];
    for (v, &xi) in b.iter_mut().zip(x) {
        *v = xi * xi;
    }
    for v in b.iter_mut() {
        *v += 1.0;
    }
    b.iter().zip(x).map(|(p, q)| p * q).sum::<f64>()
}

#[differentiable]
fn buffers_loop(x: &[f64]) -> f64 {
    let mut b = vec![0.0; x.len()];
    for i in 0..x.len() {
        b[i] = x[i] * x[i];
    }
    for i in 0..x.len() {
        b[i] += 1.0;
    }
    let mut s = -0.0;
    for i in 0..x.len() {
        s += b[i] * x[i];
    }
    s
}

#[test]
fn iter_mut_on_local_buffers() {
    same_as_loop(
        buffers,
        buffers_grad,
        buffers_adjoint,
        buffers_loop_grad,
        &P4,
    );
}

// ----- match, get, filter -----------------------------------------------------------

#[differentiable]
fn piecewise(x: &[f64], k: usize) -> f64 {
    let scale = match k {
        0 => x[0],
        1 | 2 => x[0] * x[1],
        j @ 3..=5 if j != 4 => x[1].exp(),
        _ => 2.0,
    };
    let mut s = 0.0;
    for i in 0..x.len() {
        match i % 3 {
            0 => s += x[i] * scale,
            1 => continue,
            _ => {
                s -= x[i];
            }
        }
        s *= 1.5;
    }
    s
}

#[differentiable]
fn piecewise_loop(x: &[f64], k: usize) -> f64 {
    let scale = if k == 0 {
        x[0]
    } else if k == 1 || k == 2 {
        x[0] * x[1]
    } else if (3..=5).contains(&k) && k != 4 {
        x[1].exp()
    } else {
        2.0
    };
    let mut s = 0.0;
    for i in 0..x.len() {
        if i % 3 == 0 {
            s += x[i] * scale;
        } else if i % 3 == 1 {
            continue;
        } else {
            s -= x[i];
        }
        s *= 1.5;
    }
    s
}

#[test]
fn match_statements_and_values() {
    for k in 0..7 {
        for x in P6 {
            let (v, g) = piecewise_grad(x, k);
            let (v2, g2) = piecewise_loop_grad(x, k);
            assert_eq!(v, piecewise(x, k));
            assert_eq!(v.to_bits(), v2.to_bits());
            assert_eq!(g, g2, "k = {k}");
            assert_gradient(|x| piecewise(x, k), x, &g);
        }
    }
}

#[derive(Clone, Copy)]
enum Mode {
    Square,
    Sine,
    Off,
}

#[differentiable]
fn by_mode(x: f64, mode: Mode) -> f64 {
    match mode {
        Mode::Square => x * x,
        Mode::Sine => x.sin(),
        Mode::Off => 0.0,
    }
}

#[test]
fn match_on_unit_variants() {
    assert_eq!(by_mode_grad(0.5, Mode::Square), (0.25, 1.0));
    assert_eq!(by_mode_grad(0.5, Mode::Sine), (0.5f64.sin(), 0.5f64.cos()));
    assert_eq!(by_mode_grad(0.5, Mode::Off), (0.0, 0.0));
}

#[differentiable]
fn neighbours(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let left = if i > 0 {
            x.get(i - 1).copied().unwrap_or(0.0)
        } else {
            0.0
        };
        let right = x.get(i + 1).copied().unwrap_or(1.0);
        s += x[i] * (right - left);
    }
    s
}

#[differentiable]
fn neighbours_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let left = if i > 0 { x[i - 1] } else { 0.0 };
        let right = if i + 1 < x.len() { x[i + 1] } else { 1.0 };
        s += x[i] * (right - left);
    }
    s
}

#[test]
fn get_copied_unwrap_or_is_a_branch() {
    same_as_loop(
        neighbours,
        neighbours_grad,
        neighbours_adjoint,
        neighbours_loop_grad,
        &P4,
    );
}

// `.sum()` with no `::<f64>` over elements whose type only their context
// tells: `get(..).copied().unwrap_or(..)` of a float slice, the value of a
// helper with integer arguments (a constant). The function's `f64` value,
// `return`, and `let s: f64` / `let n: usize` say which sum it is.
fn weight(i: usize) -> f64 {
    1.0 / (1.0 + i as f64)
}

#[differentiable]
fn untyped_sums(x: &[f64]) -> f64 {
    let norm: f64 = (0..x.len()).map(|i| weight(i)).sum();
    let odd: usize = (0..x.len()).map(|i| i % 2).sum();
    if x[0] > 10.0 {
        return (0..x.len()).map(|i| weight(i)).sum();
    }
    let fit = x
        .iter()
        .enumerate()
        .map(|(i, v)| v * weight(i))
        .sum::<f64>()
        / norm;
    // assigned to a float local and to a float buffer's element
    let mut again = x[1];
    if x[1] > -5.0 {
        again = (0..x.len()).map(|i| weight(i)).sum();
    }
    let mut buf = [0.0; 2];
    buf[1] = (0..x.len()).map(|i| weight(i)).product();
    fit * odd as f64 * again / norm * buf[1]
        + (0..x.len())
            .map(|i| x.get(i).copied().unwrap_or(0.5) * x.get(i + 1).copied().unwrap_or(-1.0))
            .sum::<f64>()
}

#[differentiable]
fn untyped_sum_of_defaults(x: &[f64]) -> f64 {
    (0..x.len())
        .map(|i| x.get(i).copied().unwrap_or(0.5) * x.get(i + 1).copied().unwrap_or(-1.0))
        .sum()
}

#[differentiable]
fn untyped_sums_loop(x: &[f64]) -> f64 {
    let n = x.len();
    let mut norm = -0.0;
    for i in 0..n {
        norm += weight(i);
    }
    let odd = n / 2;
    if x[0] > 10.0 {
        return norm;
    }
    let mut fit = -0.0;
    for i in 0..n {
        fit += x[i] * weight(i);
    }
    let mut again = x[1];
    if x[1] > -5.0 {
        again = norm;
    }
    let mut product = 1.0;
    for i in 0..n {
        product *= weight(i);
    }
    let mut pairs = -0.0;
    for i in 0..n {
        let next = if i + 1 < n { x[i + 1] } else { -1.0 };
        pairs += x[i] * next;
    }
    fit / norm * odd as f64 * again / norm * product + pairs
}

#[differentiable]
fn untyped_sum_of_defaults_loop(x: &[f64]) -> f64 {
    let n = x.len();
    let mut pairs = -0.0;
    for i in 0..n {
        let next = if i + 1 < n { x[i + 1] } else { -1.0 };
        pairs += x[i] * next;
    }
    pairs
}

#[test]
fn sums_take_their_type_from_the_code_around() {
    same_as_loop(
        untyped_sums,
        untyped_sums_grad,
        untyped_sums_adjoint,
        untyped_sums_loop_grad,
        &P4,
    );
    same_as_loop(
        untyped_sum_of_defaults,
        untyped_sum_of_defaults_grad,
        untyped_sum_of_defaults_adjoint,
        untyped_sum_of_defaults_loop_grad,
        &P4,
    );
    let x = [11.0, 1.0, 2.0];
    assert_eq!(untyped_sums_grad(&x), (1.0 + 0.5 + 1.0 / 3.0, vec![0.0; 3]));
}

#[differentiable]
fn ends(x: &[f64], i: usize) -> f64 {
    let buf = x.to_vec();
    let pair = [x[0], 2.0 * x[1]];
    let head = x.first().copied().unwrap_or(1.0);
    let tail = *x.last().unwrap();
    let picked = x.get(i).copied().expect("i in range") + x.get(i).unwrap().sin();
    head * tail + picked * buf.last().unwrap() + pair.last().cloned().unwrap_or_default()
        - x[1..].first().copied().unwrap_or(0.5)
}

#[differentiable]
fn ends_loop(x: &[f64], i: usize) -> f64 {
    let n = x.len();
    let head = if n > 0 { x[0] } else { 1.0 };
    let tail = x[n - 1];
    let picked = x[i] + x[i].sin();
    let rest = if n > 1 { x[1] } else { 0.5 };
    head * tail + picked * x[n - 1] + 2.0 * x[1] - rest
}

#[test]
fn first_last_and_unwrapped_elements_are_indexing() {
    let x = [0.7, -1.3, 2.1, 0.4];
    let (value, dx) = ends_grad(&x, 2);
    assert_eq!(value, ends(&x, 2));
    assert_eq!((value, dx.clone()), ends_loop_grad(&x, 2));
    assert_gradient(|v| ends(v, 2), &x, &dx);
}

#[differentiable]
fn first_or(x: &[f64]) -> f64 {
    x.first().copied().unwrap_or(1.5) * x.last().copied().unwrap_or(2.0)
}

#[test]
fn first_and_last_of_an_empty_slice_take_the_default() {
    assert_eq!(first_or_grad(&[]), (3.0, vec![]));
    assert_eq!(first_or_grad(&[3.0]), (9.0, vec![6.0]));
    assert_eq!(first_or_grad(&[3.0, 5.0]), (15.0, vec![5.0, 3.0]));
}

/// A `loop` as a value: the first element above a threshold, found by
/// walking the slice, times the sum of those before it (an inner `for`
/// whose own `break` stays its own).
#[differentiable(wrt(x))]
fn first_above(x: &[f64], limit: f64) -> f64 {
    let mut i = 0;
    let found = loop {
        if x[i] > limit || i + 1 == x.len() {
            break x[i] * 2.0;
        }
        i += 1;
    };
    let mut before = 0.0;
    for j in 0..x.len() {
        if j == i {
            break;
        }
        before += x[j];
    }
    found * before
}

#[differentiable(wrt(x))]
fn first_above_loop(x: &[f64], limit: f64) -> f64 {
    let mut i = 0;
    while !(x[i] > limit || i + 1 == x.len()) {
        i += 1;
    }
    let found = x[i] * 2.0;
    let mut before = 0.0;
    for j in 0..i {
        before += x[j];
    }
    found * before
}

/// The index of the first descent, a `usize` from a `loop` (typed), and
/// Newton's iteration for `√2` as the function's tail `loop`.
#[differentiable]
fn descent_at(x: &[f64]) -> f64 {
    let mut k = 0;
    let at: usize = loop {
        if k + 1 >= x.len() || x[k] > x[k + 1] {
            break k;
        }
        k += 1;
    };
    x[at] * 3.0
}

#[differentiable]
fn root_two_times(x: f64) -> f64 {
    let mut y: f64 = 1.0;
    loop {
        y = 0.5 * (y + 2.0 / y);
        if (y * y - 2.0).abs() < 1e-12 {
            break y * x;
        }
    }
}

#[test]
fn loops_as_values() {
    for x in [
        [0.2, 0.7, -1.3, 0.9],
        [0.1, 0.2, 0.3, 0.4],
        [0.9, 0.2, 3.0, 0.4],
    ] {
        let (value, dx) = first_above_grad(&x, 0.5);
        assert_eq!(value, first_above(&x, 0.5));
        assert_eq!((value, dx.clone()), first_above_loop_grad(&x, 0.5));
        assert_gradient(|v| first_above(v, 0.5), &x, &dx);
        let (value, dx) = descent_at_grad(&x);
        assert_eq!(value, descent_at(&x));
        assert_gradient(descent_at, &x, &dx);
    }
    let (value, dx) = root_two_times_grad(1.5);
    assert_eq!(value, root_two_times(1.5));
    // d(y x)/dx = y, the converged root
    assert_eq!(dx * 1.5, value);
    assert!((dx - 2f64.sqrt()).abs() < 1e-15);
}

/// `any` and `all`, in conditions and bound to locals; they stop at the
/// first element that decides (`(0..=n)` reads past the end only when no
/// element is above 0.5, as `Iterator::any` does).
#[differentiable]
fn guarded(x: &[f64]) -> f64 {
    let n = x.len();
    let any_big = (0..=n).any(|i| x[i] > 0.5);
    let s = if x.iter().any(|&v| v > 1.0) {
        x[0] * 2.0
    } else if !x.iter().all(|v| *v < 0.5) {
        x[0] * 3.0
    } else {
        x[0]
    };
    if any_big && x.iter().all(|v| *v > 0.0) {
        s + x.iter().map(|v| v.ln()).sum::<f64>()
    } else {
        s
    }
}

#[differentiable]
fn guarded_loop(x: &[f64]) -> f64 {
    let mut big = false;
    let mut over_one = false;
    let mut all_small = true;
    let mut all_positive = true;
    for i in 0..x.len() {
        big = big || x[i] > 0.5;
        over_one = over_one || x[i] > 1.0;
        all_small = all_small && x[i] < 0.5;
        all_positive = all_positive && x[i] > 0.0;
    }
    let s = if over_one {
        x[0] * 2.0
    } else if !all_small {
        x[0] * 3.0
    } else {
        x[0]
    };
    if big && all_positive {
        let mut logs = 0.0;
        for i in 0..x.len() {
            logs += x[i].ln();
        }
        s + logs
    } else {
        s
    }
}

#[test]
fn any_and_all_are_loops_that_stop() {
    for x in [
        [0.2, 0.7, 1.3, 0.9],
        [0.9, -0.2, 3.0, 0.4],
        [0.6, 0.2, 0.3, 0.4],
    ] {
        let (value, dx) = guarded_grad(&x);
        assert_eq!(value, guarded(&x));
        assert_eq!((value, dx.clone()), guarded_loop_grad(&x));
        assert_gradient(guarded, &x, &dx);
    }
    // no element above 0.5: `(0..=n).any(..)` reads `x[n]`, in `guarded`
    // and in its adjoint alike
    let small = [0.1, 0.2];
    assert!(std::panic::catch_unwind(|| guarded(&small)).is_err());
    assert!(std::panic::catch_unwind(|| guarded_grad(&small)).is_err());
}

/// `position`: the index of the first element that passes, an
/// `Option<usize>` read by integer code (`unwrap_or`, `is_some`, `unwrap`).
#[differentiable]
fn positions(x: &[f64]) -> f64 {
    let k = x.iter().position(|&v| v > 0.5).unwrap_or(0);
    let j = x.len() - 1 - x.iter().rev().position(|v| *v < 0.0).unwrap_or(0);
    let first_big = if x.iter().position(|&v| v > 1.0).is_some() {
        x[0]
    } else {
        0.0
    };
    x[k] * 2.0 + x[j] + first_big + x[(0..x.len()).position(|i| i * 2 >= x.len()).unwrap()]
}

#[differentiable]
fn positions_loop(x: &[f64]) -> f64 {
    let n = x.len();
    let mut k = 0;
    for i in 0..n {
        if x[i] > 0.5 {
            k = i;
            break;
        }
    }
    let mut j = n - 1;
    for i in 0..n {
        if x[n - 1 - i] < 0.0 {
            j = n - 1 - i;
            break;
        }
    }
    let mut first_big = 0.0;
    for i in 0..n {
        if x[i] > 1.0 {
            first_big = x[0];
            break;
        }
    }
    x[k] * 2.0 + x[j] + first_big + x[(n + 1) / 2]
}

#[test]
fn position_is_a_loop_that_stops() {
    for x in [
        [0.2, 0.7, 1.3, 0.9],
        [0.9, -0.2, 3.0, 0.4],
        [0.1, 0.2, 0.3, -0.4],
    ] {
        let (value, dx) = positions_grad(&x);
        assert_eq!(value, positions(&x));
        assert_eq!((value, dx.clone()), positions_loop_grad(&x));
        assert_gradient(positions, &x, &dx);
    }
}

/// A user's function mixing this section's idioms, with `f64` tests
/// (`is_nan`, `is_finite`) in the closures of `any` and `filter`.
#[differentiable(wrt(x))]
fn fit(x: &[f64], ys: &[f64], mode: u8) -> f64 {
    let t0 = x.first().copied().unwrap_or(1.0);
    let d_x: Vec<f64> = ys.iter().map(|&y| (t0 * y - x[1]).powi(2)).collect();
    let k = d_x.iter().position(|&v| v > 1.0).unwrap_or(0);
    let scale = match mode {
        0 => 1.0,
        _ => 0.5,
    };
    let mut i = 0;
    let first_small = loop {
        if d_x[i] < 0.25 || i + 1 == d_x.len() {
            break d_x[i];
        }
        i += 1;
    };
    if d_x.iter().any(|v| v.is_nan()) {
        return f64::NAN;
    }
    let finite: f64 = x.iter().filter(|v| v.is_finite()).map(|v| v * v).sum();
    scale * d_x[k] + first_small * *x.last().unwrap() + 0.1 * finite
}

#[test]
fn a_users_fit_with_float_tests() {
    let ys = [0.5, 1.5, 2.5];
    for x in [[0.8, 0.3, -0.4], [1.2, 0.9, 0.7]] {
        for mode in [0, 1] {
            let (value, dx) = fit_grad(&x, &ys, mode);
            assert_eq!(value, fit(&x, &ys, mode));
            assert_gradient(|v| fit(v, &ys, mode), &x, &dx);
        }
    }
    assert!(fit_grad(&[f64::NAN, 0.3, 0.4], &ys, 0).0.is_nan());
}

#[differentiable]
fn filtered(x: &[f64]) -> f64 {
    let pos: f64 = x.iter().filter(|v| **v > 0.0).map(|v| v.ln()).sum();
    let mut s = pos;
    for (i, v) in x.iter().enumerate().filter(|(i, _)| i % 2 == 0) {
        s += v * i as f64;
    }
    s
}

#[differentiable]
fn filtered_loop(x: &[f64]) -> f64 {
    let mut pos = -0.0;
    for i in 0..x.len() {
        if x[i] > 0.0 {
            pos += x[i].ln();
        }
    }
    let mut s = pos;
    for i in 0..x.len() {
        if i % 2 == 0 {
            s += x[i] * i as f64;
        }
    }
    s
}

#[test]
fn filter_is_an_if() {
    same_as_loop(
        filtered,
        filtered_grad,
        filtered_adjoint,
        filtered_loop_grad,
        &P4,
    );
}

/// `enumerate` after `filter` counts the elements that passed (the loop
/// index, which counts them all, until 2026-11-29: a wrong value, silent);
/// a `map` before a `filter` is taken once an element.
#[differentiable]
fn filtered_positions(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (j, v) in x.iter().filter(|v| **v > 0.0).enumerate() {
        s += (j as f64 + 1.0) * v;
    }
    let ranked: f64 = x
        .iter()
        .map(|v| v * v)
        .filter(|q| *q > 0.2)
        .enumerate()
        .map(|(j, q)| j as f64 * q)
        .sum();
    let best = x
        .iter()
        .copied()
        .filter(|v| *v < 1.0)
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap_or((0, 0.0));
    let late = x
        .iter()
        .map(|v| v.exp())
        .filter(|e| *e > 0.5)
        .enumerate()
        .filter(|(j, _)| j % 2 == 1)
        .count();
    s + ranked + best.0 as f64 * best.1 + late as f64
}

#[differentiable]
fn filtered_positions_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut j = 0;
    for i in 0..x.len() {
        if x[i] > 0.0 {
            s += (j as f64 + 1.0) * x[i];
            j += 1;
        }
    }
    let mut ranked = -0.0;
    let mut j = 0;
    for i in 0..x.len() {
        let q = x[i] * x[i];
        if q > 0.2 {
            ranked += j as f64 * q;
            j += 1;
        }
    }
    let mut best = (0, 0.0);
    let mut found = false;
    let mut j = 0;
    for i in 0..x.len() {
        if x[i] < 1.0 {
            if !found || x[i].total_cmp(&best.1) != std::cmp::Ordering::Less {
                best = (j, x[i]);
                found = true;
            }
            j += 1;
        }
    }
    let mut late = 0;
    let mut j = 0;
    for i in 0..x.len() {
        if x[i].exp() > 0.5 {
            if j % 2 == 1 {
                late += 1;
            }
            j += 1;
        }
    }
    s + ranked + best.0 as f64 * best.1 + late as f64
}

/// `position` after a `filter`: the position among the elements that
/// passed (refused until 2026-11-29).
#[differentiable]
fn filtered_position(x: &[f64]) -> f64 {
    let k = x
        .iter()
        .filter(|v| **v > 0.0)
        .position(|&v| v > 1.0)
        .unwrap_or(0);
    let j = x
        .iter()
        .map(|v| v * v)
        .filter(|q| *q < 4.0)
        .position(|q| q > 0.3)
        .unwrap_or(1);
    x[k] * x[j] + k as f64
}

#[differentiable]
fn filtered_position_loop(x: &[f64]) -> f64 {
    let mut k = 0;
    let mut passed = 0;
    for i in 0..x.len() {
        if x[i] > 0.0 {
            if x[i] > 1.0 {
                k = passed;
                break;
            }
            passed += 1;
        }
    }
    let mut j = 1;
    let mut passed = 0;
    for i in 0..x.len() {
        let q = x[i] * x[i];
        if q < 4.0 {
            if q > 0.3 {
                j = passed;
                break;
            }
            passed += 1;
        }
    }
    x[k] * x[j] + k as f64
}

#[test]
fn position_after_filter_counts_what_passed() {
    same_as_loop(
        filtered_position,
        filtered_position_grad,
        filtered_position_adjoint,
        filtered_position_loop_grad,
        &[
            &[0.3, -1.2, 0.7, 1.9, -0.2, 1.4],
            &[-1.5, 0.25, 2.4, -1.3, 0.6, 0.8],
        ],
    );
}

#[test]
fn enumerate_after_filter_counts_what_passed() {
    same_as_loop(
        filtered_positions,
        filtered_positions_grad,
        filtered_positions_adjoint,
        filtered_positions_loop_grad,
        &[
            &[0.3, -1.2, 0.7, 0.9, -0.2, 1.4],
            &[1.5, 0.25, -0.4, -1.3, 0.6, 0.8],
            &[-0.5, 2.0, 0.1, -0.05, 0.95, 3.0],
        ],
    );
}

// ----- nesting -------------------------------------------------------------------------

#[differentiable]
fn nested(x: &[f64], w: &[f64]) -> f64 {
    let mut total = 0.0;
    for row in w.chunks_exact(x.len()) {
        let z: f64 = row.iter().zip(x).map(|(a, b)| a * b).sum();
        total += if z > 0.0 { z } else { 0.1 * z };
    }
    total
        + x.iter()
            .map(|a| x.iter().map(|b| a * b).sum::<f64>())
            .sum::<f64>()
}

#[differentiable]
fn nested_loop(x: &[f64], w: &[f64]) -> f64 {
    let n = x.len();
    let mut total = 0.0;
    for r in 0..w.len() / n {
        let mut z = -0.0;
        for j in 0..n {
            z += w[r * n + j] * x[j];
        }
        total += if z > 0.0 { z } else { 0.1 * z };
    }
    let mut outer = -0.0;
    for i in 0..n {
        let mut inner = -0.0;
        for j in 0..n {
            inner += x[i] * x[j];
        }
        outer += inner;
    }
    total + outer
}

#[test]
fn chains_nested_in_loops_branches_and_chains() {
    let w = [0.5, -1.0, 2.0, 0.3, -0.7, 1.1, 0.2, 0.9, -0.4];
    for x in P3 {
        let (v, (gx, gw)) = nested_grad(x, &w);
        let (v2, (gx2, gw2)) = nested_loop_grad(x, &w);
        assert_eq!(v, nested(x, &w));
        assert_eq!(v.to_bits(), v2.to_bits());
        // The same sums, reversed in an order that differs by rounding.
        for (a, b) in gx.iter().zip(&gx2).chain(gw.iter().zip(&gw2)) {
            assert!((a - b).abs() <= 1e-14 * (1.0 + b.abs()), "{a} vs {b}");
        }
        assert_gradient(|x| nested(x, &w), x, &gx);
        assert_gradient(|w| nested(x, w), &w, &gw);
    }
}

// ----- textbook problems, written idiomatically --------------------------------------

/// Extended Rosenbrock: pairs `(x[2i], x[2i+1])`.
#[differentiable]
fn ext_rosenbrock(x: &[f64]) -> f64 {
    x.chunks_exact(2)
        .map(|p| {
            let [a, b] = [p[0], p[1]];
            100.0 * (b - a * a).powi(2) + (1.0 - a).powi(2)
        })
        .sum()
}

#[differentiable]
fn ext_rosenbrock_loop(x: &[f64]) -> f64 {
    let mut s = -0.0;
    for i in 0..x.len() / 2 {
        let a = x[2 * i];
        let b = x[2 * i + 1];
        s += 100.0 * (b - a * a).powi(2) + (1.0 - a).powi(2);
    }
    s
}

/// Generalized Rosenbrock: consecutive windows.
#[differentiable]
fn gen_rosenbrock(x: &[f64]) -> f64 {
    let mut f = 0.0;
    for w in x.windows(2) {
        let (a, b) = (w[0], w[1]);
        f += 100.0 * (b - a * a).powi(2) + (1.0 - a).powi(2);
    }
    f
}

#[differentiable]
fn gen_rosenbrock_loop(x: &[f64]) -> f64 {
    let mut f = 0.0;
    for i in 0..x.len() - 1 {
        f += 100.0 * (x[i + 1] - x[i] * x[i]).powi(2) + (1.0 - x[i]).powi(2);
    }
    f
}

/// Powell singular, blocks of four.
#[differentiable]
fn powell(x: &[f64]) -> f64 {
    let mut f = 0.0;
    for q in x.chunks_exact(4) {
        let [a, b, c, d] = [q[0], q[1], q[2], q[3]];
        f += (a + 10.0 * b).powi(2)
            + 5.0 * (c - d).powi(2)
            + (b - 2.0 * c).powi(4)
            + 10.0 * (a - d).powi(4);
    }
    f
}

#[differentiable]
fn powell_loop(x: &[f64]) -> f64 {
    let mut f = 0.0;
    for j in 0..x.len() / 4 {
        let a = x[4 * j];
        let b = x[4 * j + 1];
        let c = x[4 * j + 2];
        let d = x[4 * j + 3];
        f += (a + 10.0 * b).powi(2)
            + 5.0 * (c - d).powi(2)
            + (b - 2.0 * c).powi(4)
            + 10.0 * (a - d).powi(4);
    }
    f
}

/// Trigonometric function (Moré, Garbow, Hillstrom #26).
#[differentiable]
fn trigonometric(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    let s: f64 = x.iter().map(|v| v.cos()).sum();
    x.iter()
        .enumerate()
        .map(|(i, &v)| {
            let (sv, cv) = v.sin_cos();
            let r = n - s + (i + 1) as f64 * (1.0 - cv) - sv;
            r * r
        })
        .sum()
}

#[differentiable]
fn trigonometric_loop(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    let mut s = -0.0;
    for i in 0..x.len() {
        s += x[i].cos();
    }
    let mut f = -0.0;
    for i in 0..x.len() {
        let sv = x[i].sin();
        let cv = x[i].cos();
        let r = n - s + (i + 1) as f64 * (1.0 - cv) - sv;
        f += r * r;
    }
    f
}

/// Brown badly scaled, destructured.
#[differentiable]
fn brown_badly_scaled(x: &[f64; 2]) -> f64 {
    let [x1, x2] = *x;
    let (r1, r2, r3) = (x1 - 1e6, x2 - 2e-6, x1 * x2 - 2.0);
    r1 * r1 + r2 * r2 + r3 * r3
}

/// A piecewise function chosen by `match` on a region index.
#[differentiable]
fn piecewise_regions(x: &[f64]) -> f64 {
    let mut f = 0.0;
    for &v in x {
        let region = if v < -1.0 {
            0
        } else if v < 1.0 {
            1
        } else {
            2
        };
        f += match region {
            0 => -2.0 * v - 1.0,
            1 => v * v,
            _ => 2.0 * v - 1.0,
        };
    }
    f
}

#[differentiable]
fn piecewise_regions_loop(x: &[f64]) -> f64 {
    let mut f = 0.0;
    for i in 0..x.len() {
        let v = x[i];
        f += if v < -1.0 {
            -2.0 * v - 1.0
        } else if v < 1.0 {
            v * v
        } else {
            2.0 * v - 1.0
        };
    }
    f
}

const Q8: [&[f64]; 2] = [
    &[-1.2, 1.0, -1.2, 1.0, 0.5, -0.3, 2.0, 0.1],
    &[3.0, -1.0, 0.0, 1.0, 0.2, 0.4, -0.6, 0.8],
];

#[test]
fn textbook_problems_idiomatic() {
    same_as_loop(
        ext_rosenbrock,
        ext_rosenbrock_grad,
        ext_rosenbrock_adjoint,
        ext_rosenbrock_loop_grad,
        &Q8,
    );
    same_as_loop(
        gen_rosenbrock,
        gen_rosenbrock_grad,
        gen_rosenbrock_adjoint,
        gen_rosenbrock_loop_grad,
        &Q8,
    );
    same_as_loop(powell, powell_grad, powell_adjoint, powell_loop_grad, &Q8);
    same_as_loop(
        trigonometric,
        trigonometric_grad,
        trigonometric_adjoint,
        trigonometric_loop_grad,
        &Q8,
    );
    same_as_loop(
        piecewise_regions,
        piecewise_regions_grad,
        piecewise_regions_adjoint,
        piecewise_regions_loop_grad,
        &[&[-2.0, -0.5, 0.3, 1.5, 3.0], &[0.9, -1.1, 0.0, 2.2, -3.0]],
    );
    let x = [1e6 + 0.5, 2e-6 - 0.25];
    let (v, g) = brown_badly_scaled_grad(&x);
    assert_eq!(v, brown_badly_scaled(&x));
    let (r1, r2, r3) = (x[0] - 1e6, x[1] - 2e-6, x[0] * x[1] - 2.0);
    assert_eq!(g, [2.0 * r1 + 2.0 * r3 * x[1], 2.0 * r2 + 2.0 * r3 * x[0]]);
}

/// k-means as an iterator chain: per point (`chunks`), the smallest of the
/// centres' squared distances (`fold(f64::INFINITY, f64::min)`), summed by
/// an untyped `sum()` — a float sum, which the `fold`'s start says (its
/// expansion summed from the integer `0` and did not compile).
#[differentiable]
fn nearest_by_fold(x: &[f64]) -> f64 {
    let mu = &x[..4];
    x[4..]
        .chunks(2)
        .map(|p| {
            (0..2)
                .map(|c| {
                    p.iter()
                        .zip(&mu[2 * c..2 * c + 2])
                        .map(|(a, b)| (a - b) * (a - b))
                        .sum::<f64>()
                })
                .fold(f64::INFINITY, f64::min)
        })
        .sum()
}

#[test]
fn a_sum_of_float_folds_is_a_float_sum() {
    for x in [
        [0.1, 0.2, 0.9, -0.4, 0.3, 0.1, -0.2, 0.8, 1.1, -0.6],
        [-0.5, 0.7, 0.4, 0.4, 0.2, -0.9, 0.6, 0.3, -1.2, 0.5],
    ] {
        let (value, gradient) = nearest_by_fold_grad(&x);
        assert_eq!(value, nearest_by_fold(&x));
        assert_gradient(nearest_by_fold, &x, &gradient);
    }
}

// ----- a tuple-valued `if` bound by a pattern (`syntax::tuple_valued_ifs`) -----

/// `let (lo, hi) = if .. { (a, b) } else { (b, a) };`, an `else if` chain
/// with statements in its branches, a `_` part and a `mut` part.
#[differentiable]
fn tuple_if(x: &[f64]) -> f64 {
    let (a, b, c) = (x[0], x[1], x[2]);
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    let (mut s, _, t) = if c > 1.0 {
        let w = c * c;
        (w + lo, 0.0, hi)
    } else if c > 0.0 {
        (c.sin(), 1.0, hi * lo)
    } else {
        let w = c.exp();
        (w, 2.0, -hi)
    };
    s += t * 0.5;
    s * hi - lo
}

#[differentiable]
fn tuple_if_loop(x: &[f64]) -> f64 {
    let (a, b, c) = (x[0], x[1], x[2]);
    let lo;
    let hi;
    if a < b {
        lo = a;
        hi = b;
    } else {
        lo = b;
        hi = a;
    }
    let mut s;
    let t;
    if c > 1.0 {
        let w = c * c;
        s = w + lo;
        t = hi;
    } else if c > 0.0 {
        s = c.sin();
        t = hi * lo;
    } else {
        let w = c.exp();
        s = w;
        t = -hi;
    }
    s += t * 0.5;
    s * hi - lo
}

#[test]
fn tuple_valued_ifs_are_one_local_per_part() {
    let points: [&[f64]; 4] = [
        &[0.3, -1.2, 0.7],
        &[1.5, 0.25, -0.4],
        &[-0.8, 2.0, 1.1],
        &[0.1, 0.9, 2.5],
    ];
    same_as_loop(
        tuple_if,
        tuple_if_grad,
        tuple_if_adjoint,
        tuple_if_loop_grad,
        &points,
    );
}

// ----- a fold with a tuple accumulator (`syntax::tuple_folds`) -----

/// The least and greatest element in one pass, destructured; a running
/// mean and sum of squares bound whole (`stats.0`), with a block as the
/// closure's value; an `if` as its value (their expansion named the
/// accumulator after splitting it, E0425, until 2026-11-28).
#[differentiable]
fn tuple_folds(x: &[f64]) -> f64 {
    let (lo, hi) = x
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
    let stats = x.iter().fold((0.0, 0.0), |(s, q), v| {
        let w = v * 0.5;
        (s + w, q + w * w)
    });
    let (up, down) = x.iter().fold((1.0, 0.0), |(u, d): (f64, f64), &v| {
        if v > 0.0 {
            (u * (1.0 + v), d)
        } else {
            (u, d - v)
        }
    });
    // the accumulator bound whole in the closure, over a range
    let (a, b) = (0..x.len()).fold((0.0, 1.0), |acc, k| (acc.0 + x[k], acc.1 * 0.5 + x[k]));
    (hi - lo) * stats.0 + stats.1 + up * down + a * b
}

#[differentiable]
fn tuple_folds_loop(x: &[f64]) -> f64 {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for i in 0..x.len() {
        lo = lo.min(x[i]);
        hi = hi.max(x[i]);
    }
    let mut s = 0.0;
    let mut q = 0.0;
    for i in 0..x.len() {
        let w = x[i] * 0.5;
        s += w;
        q += w * w;
    }
    let mut up = 1.0;
    let mut down = 0.0;
    for i in 0..x.len() {
        if x[i] > 0.0 {
            up *= 1.0 + x[i];
        } else {
            down -= x[i];
        }
    }
    let mut a = 0.0;
    let mut b = 1.0;
    for k in 0..x.len() {
        let next = (a + x[k], b * 0.5 + x[k]);
        a = next.0;
        b = next.1;
    }
    (hi - lo) * s + q + up * down + a * b
}

#[test]
fn folds_with_tuple_accumulators() {
    for x in [[0.3, -0.7, 1.1, 0.4], [1.5, 0.2, -0.9, 0.8]] {
        let (value, gradient) = tuple_folds_grad(&x);
        assert_eq!(value, tuple_folds(&x));
        assert_eq!((value, gradient.clone()), tuple_folds_loop_grad(&x));
        assert_gradient(tuple_folds, &x, &gradient);
    }
}

// ----- a tuple local bound to a tuple-valued `if` or `match` (`syntax::tuple_if_locals`) -----

/// `let t = if .. { (a, b) } else { (c, d) };` read by its parts, a typed
/// one, a `mut` one changed part by part and whole, and `let t = match ..`
/// with tuple arms (a block arm, a guard); each was refused as "a tuple
/// used as one value" until 2026-11-28.
#[differentiable]
fn tuple_if_local(x: &[f64], k: usize) -> f64 {
    let (a, b) = (x[0], x[1]);
    let p = if a < b { (a, b * 2.0) } else { (b, a) };
    let q: (f64, f64) = if p.0 > 0.5 {
        (p.1, 1.0)
    } else if p.1 > 0.0 {
        (p.0 * p.1, p.1)
    } else {
        (a.exp(), b)
    };
    let mut r = if b > 0.0 { (b, a) } else { (a, -b) };
    r.0 += q.1 * 0.5;
    for _ in 0..2 {
        r = (r.1 * 0.5, r.0 + p.0);
    }
    let m = match k {
        0 => (x[2], a),
        n if n > 5 => {
            let w = a * b;
            (w, w.sin())
        }
        _ => (b, x[2] * x[2]),
    };
    p.0 * q.0 + r.0 * r.1 - q.1 * p.1 + m.0 * m.1
}

#[differentiable]
fn tuple_if_local_loop(x: &[f64], k: usize) -> f64 {
    let (a, b) = (x[0], x[1]);
    let (p0, p1) = if a < b { (a, b * 2.0) } else { (b, a) };
    let (q0, q1) = if p0 > 0.5 {
        (p1, 1.0)
    } else if p1 > 0.0 {
        (p0 * p1, p1)
    } else {
        (a.exp(), b)
    };
    let (mut r0, mut r1) = if b > 0.0 { (b, a) } else { (a, -b) };
    r0 += q1 * 0.5;
    for _ in 0..2 {
        let next = r1 * 0.5;
        r1 = r0 + p0;
        r0 = next;
    }
    let (m0, m1) = if k == 0 {
        (x[2], a)
    } else if k > 5 {
        let w = a * b;
        (w, w.sin())
    } else {
        (b, x[2] * x[2])
    };
    p0 * q0 + r0 * r1 - q1 * p1 + m0 * m1
}

#[test]
fn tuple_locals_bound_to_ifs_and_matches() {
    let points: [&[f64]; 4] = [
        &[0.3, -1.2, 0.7],
        &[1.5, 0.25, -0.4],
        &[-0.8, 2.0, 1.1],
        &[0.1, 0.9, 2.5],
    ];
    for k in [0, 3, 7] {
        for x in points {
            let (value, gradient) = tuple_if_local_grad(x, k);
            assert_eq!(value, tuple_if_local(x, k));
            let (loop_value, loop_gradient) = tuple_if_local_loop_grad(x, k);
            assert_eq!(value, loop_value);
            assert_eq!(gradient, loop_gradient);
            assert_gradient(|x| tuple_if_local(x, k), x, &gradient);
        }
    }
}

// ----- `collect` into a vector of floats (`lower/iter.rs::lower_collect`) -----

#[differentiable]
fn collected(x: &[f64]) -> f64 {
    let h: Vec<f64> = x.iter().map(|v| v * 3.0).collect();
    let g = x.iter().zip(&h).map(|(a, b)| a * b).collect::<Vec<f64>>();
    let e: Vec<_> = (0..x.len()).map(|i| (x[i] - 0.5).exp()).collect();
    let w: Vec<f64> = x.windows(2).map(|w| w[1] - w[0]).collect();
    h[0] * 2.0 + h[1] + g[2] * e[1] + w.iter().map(|d| d * d).sum::<f64>()
}

#[differentiable]
fn collected_loop(x: &[f64]) -> f64 {
    let n = x.len();
    let mut h = vec![0.0; n];
    for i in 0..n {
        h[i] = x[i] * 3.0;
    }
    let mut g = vec![0.0; n];
    for i in 0..n {
        g[i] = x[i] * h[i];
    }
    let mut e = vec![0.0; n];
    for i in 0..n {
        e[i] = (x[i] - 0.5).exp();
    }
    let mut w = vec![0.0; n - 1];
    for i in 0..n - 1 {
        w[i] = x[i + 1] - x[i];
    }
    let mut s = -0.0;
    for i in 0..n - 1 {
        s += w[i] * w[i];
    }
    h[0] * 2.0 + h[1] + g[2] * e[1] + s
}

#[test]
fn collected_vectors_are_local_buffers() {
    same_as_loop(
        collected,
        collected_grad,
        collected_adjoint,
        collected_loop_grad,
        &P3,
    );
}

/// This section's idioms under `hessian` (a `loop` value, `first`, `last`):
/// the Hessian against central differences of the gradient.
#[differentiable(hessian)]
fn idioms_second_order(x: &[f64]) -> f64 {
    let mut i = 0;
    let found = loop {
        if x[i] > 0.5 || i + 1 == x.len() {
            break x[i] * x[0];
        }
        i += 1;
    };
    found * x[1] + x.first().copied().unwrap_or(0.0) * x.last().unwrap()
}

#[test]
fn idioms_have_second_derivatives() {
    let x = [0.2, 0.7, -1.3, 0.9];
    let (value, gradient, hessian) = idioms_second_order_hessian(&x);
    assert_eq!((value, gradient.clone()), idioms_second_order_grad(&x));
    let n = x.len();
    for i in 0..n {
        let at = |h: f64| {
            let mut y = x;
            y[i] += h;
            idioms_second_order_grad(&y).1
        };
        let (up, down) = (at(1e-6), at(-1e-6));
        for j in 0..n {
            let fd = (up[j] - down[j]) / 2e-6;
            assert!((hessian[j * n + i] - fd).abs() < 1e-6, "H[{j}][{i}]");
        }
    }
}

// ----- tables of tuples -----------------------------------------------------------------

/// Data as tuples: a local table (`vec![(t, y), ..]`, `[(w, i), ..]`, not
/// differentiated, kept as written; refused as "a tuple used as one value"
/// until 2026-11-29) and a parameter `&[(f64, usize)]`, read by `for &(t,
/// y) in ..`, by `for (t, i) in pairs` whose `*i` reads the index through
/// the reference Rust binds (E0614 until 2026-11-29), and by closures.
#[differentiable(wrt(x))]
fn tabled(x: &[f64], pairs: &[(f64, usize)]) -> f64 {
    let pts: Vec<(f64, f64)> = vec![(0.0, 1.0), (1.0, 2.0), (2.0, 2.5)];
    let weights = [(0.5, 1usize), (1.5, 2)];
    let mut s: f64 = weights.iter().map(|&(w, i)| w * x[i]).sum();
    for &(t, y) in pts.iter() {
        let pred = x[0] + x[1] * t;
        s += (pred - y).powi(2);
    }
    for (t, y) in &pts {
        s += (x[2] * t - y).powi(2);
    }
    for (t, i) in pairs {
        s += t * x[*i];
    }
    s + pairs.iter().map(|(w, i)| w * x[*i] * x[*i]).sum::<f64>()
}

#[differentiable(wrt(x))]
fn tabled_loop(x: &[f64], pairs: &[(f64, usize)]) -> f64 {
    let ts = [0.0, 1.0, 2.0];
    let ys = [1.0, 2.0, 2.5];
    let mut s = -0.0;
    s += 0.5 * x[1];
    s += 1.5 * x[2];
    for k in 0..3 {
        let pred = x[0] + x[1] * ts[k];
        s += (pred - ys[k]).powi(2);
    }
    for k in 0..3 {
        s += (x[2] * ts[k] - ys[k]).powi(2);
    }
    for k in 0..pairs.len() {
        s += pairs[k].0 * x[pairs[k].1];
    }
    let mut t = -0.0;
    for k in 0..pairs.len() {
        t += pairs[k].0 * x[pairs[k].1] * x[pairs[k].1];
    }
    s + t
}

const PAIRS: [(f64, usize); 3] = [(0.5, 1), (2.0, 3), (-1.0, 0)];

fn tabled_fixed(x: &[f64]) -> f64 {
    tabled(x, &PAIRS)
}

fn tabled_fixed_grad(x: &[f64]) -> (f64, Vec<f64>) {
    tabled_grad(x, &PAIRS)
}

fn tabled_fixed_adjoint(x: &[f64], d_out: f64, d_x: &mut [f64]) -> f64 {
    tabled_adjoint(x, &PAIRS, d_out, d_x)
}

fn tabled_fixed_loop_grad(x: &[f64]) -> (f64, Vec<f64>) {
    tabled_loop_grad(x, &PAIRS)
}

#[test]
fn tables_of_tuples_are_data() {
    same_as_loop(
        tabled_fixed,
        tabled_fixed_grad,
        tabled_fixed_adjoint,
        tabled_fixed_loop_grad,
        &[&[0.3, -1.3, 0.2, 1.7], &[2.45, 0.15, -0.6, 0.9]],
    );
}

// ----- rows of data ---------------------------------------------------------------------

const FEATURES: [f64; 12] = [
    0.5, -1.2, 0.3, 0.8, 0.1, -0.4, -0.9, 0.6, 1.1, 0.2, -0.3, 0.7,
];

#[differentiable]
fn squared(v: f64) -> f64 {
    v * v
}

/// A logistic regression over the rows of data (`FEATURES.chunks(p)`, not
/// differentiated): each row is read through its subslice, as `row[k]`
/// is, and a row's element is an `f64` (given to a differentiated
/// function as one).
#[differentiable(wrt(w))]
fn logistic(w: &[f64], data: &[f64], labels: &[f64]) -> f64 {
    let p = w.len();
    let mut loss = 0.0;
    for (row, &label) in data.chunks(p).zip(labels) {
        let z: f64 = row.iter().zip(w).map(|(a, b)| a * b).sum();
        loss += (1.0 + (-label * z).exp()).ln() + 0.01 * squared(row[0]) * z;
    }
    loss
}

#[differentiable(wrt(w))]
fn logistic_loop(w: &[f64], data: &[f64], labels: &[f64]) -> f64 {
    let p = w.len();
    let mut loss = 0.0;
    for r in 0..labels.len().min(data.len().div_ceil(p)) {
        let mut z = -0.0;
        for k in 0..p.min(data.len() - r * p) {
            z += data[r * p + k] * w[k];
        }
        let label = labels[r];
        loss += (1.0 + (-label * z).exp()).ln() + 0.01 * squared(data[r * p]) * z;
    }
    loss
}

#[test]
fn rows_of_data_read_through_their_subslices() {
    let labels = [1.0, -1.0, 1.0, -1.0];
    // 12 features in rows of 3 (four rows) and of 5 (a short last row)
    for w in [&[0.3, -0.2, 0.5][..], &[0.1, 0.4, -0.3, 0.2, 0.6][..]] {
        let (v, g) = logistic_grad(w, &FEATURES, &labels);
        let (v_loop, g_loop) = logistic_loop_grad(w, &FEATURES, &labels);
        assert_eq!(v, logistic(w, &FEATURES, &labels));
        assert_eq!(v.to_bits(), v_loop.to_bits());
        assert_eq!(g, g_loop);
        assert_gradient(|w| logistic(w, &FEATURES, &labels), w, &g);
    }
}

/// Data held by a struct: chains over `self.xs` and `&self.ys` (a field by
/// reference given to `zip`: refused as a reference until 2026-11-28).
struct Samples {
    xs: Vec<f64>,
    ys: Vec<f64>,
}

impl Samples {
    #[differentiable]
    fn positive_fit(&self, w: &[f64]) -> f64 {
        self.xs
            .iter()
            .zip(&self.ys)
            .filter(|(_, &y)| y > 0.0)
            .map(|(x, y)| (w[0] * x + w[1] - y).powi(2))
            .sum::<f64>()
            + self
                .xs
                .iter()
                .zip(&self.ys)
                .map(|(x, y)| x * y * w[1])
                .sum::<f64>()
    }

    #[differentiable]
    fn positive_fit_loop(&self, w: &[f64]) -> f64 {
        let n = self.xs.len().min(self.ys.len());
        let mut total = -0.0;
        for k in 0..n {
            if self.ys[k] > 0.0 {
                total += (w[0] * self.xs[k] + w[1] - self.ys[k]).powi(2);
            }
        }
        let mut cross = -0.0;
        for k in 0..n {
            cross += self.xs[k] * self.ys[k] * w[1];
        }
        total + cross
    }
}

#[test]
fn fields_given_to_zip_by_reference() {
    let samples = Samples {
        xs: vec![0.3, -1.2, 0.8, 2.0],
        ys: vec![1.0, -0.5, 0.7, 2.2],
    };
    let w = [0.4, -0.3];
    let (value, gradient) = samples.positive_fit_grad(&w);
    assert_eq!(value, samples.positive_fit(&w));
    assert_eq!(
        (value, gradient.clone()),
        samples.positive_fit_loop_grad(&w)
    );
    assert_gradient(|w| samples.positive_fit(w), &w, &gradient);
}

/// Past a row's end `row[k]` panics, in the gradient as in the function
/// (reading the array at the row's start + `k` would not).
#[differentiable(wrt(w))]
fn past_the_row(w: &[f64], data: &[f64]) -> f64 {
    let mut total = 0.0;
    for row in data.chunks(3) {
        total += w[0] * row[3];
    }
    total
}

#[test]
#[should_panic(expected = "the len is 3 but the index is 3")]
fn an_element_past_a_row_panics() {
    past_the_row_grad(&[1.0], &FEATURES);
}

/// An observation: data of a type that is not `Copy`.
pub struct Observation {
    pub at: usize,
    pub target: f64,
}

// Constant slices whose elements are not `Copy` (`&[Vec<f64>]` rows,
// `&[Observation]`), iterated by `for` and by a chain: each element is
// taken by reference, as iterating the slice gives it (the element was
// moved out of the slice until 2026-11-28: E0508 in the expansion); `Copy`
// elements by value as before (a tuple's floats).
#[differentiable(wrt(w))]
fn rows_through_tanh(w: &[f64], rows: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    for row in rows {
        let z: f64 = row.iter().zip(w).map(|(a, b)| a * b).sum();
        s += z.tanh();
    }
    s
}

#[differentiable(wrt(x))]
fn observed(x: &[f64], obs: &[Observation], pairs: &[(f64, f64)]) -> f64 {
    let by_chain: f64 = obs.iter().map(|o| (x[o.at] - o.target).powi(2)).sum();
    let mut by_loop = 0.0;
    for o in obs {
        by_loop += (x[o.at] * o.target).sin();
    }
    for (a, b) in pairs {
        by_loop += a * x[0] * x[1] + b;
    }
    by_chain + by_loop
}

// Indices in a constant slice, read by value and through the reference
// iterating gives (`w[*i]`: E0614 in the expansion until 2026-11-28).
#[differentiable(wrt(w))]
fn gathered(w: &[f64], idx: &[usize]) -> f64 {
    let mut s = 0.0;
    for &i in idx {
        s += w[i] * w[i];
    }
    for i in idx {
        s += w[*i].sin();
    }
    s
}

#[test]
fn indices_by_value_and_by_reference() {
    let (w, idx) = ([0.3, -1.2, 0.8], [2usize, 0, 2]);
    let (value, gradient) = gathered_grad(&w, &idx);
    assert_eq!(value, gathered(&w, &idx));
    common::assert_gradient(|w| gathered(w, &idx), &w, &gradient);
}

#[test]
fn constant_slices_of_elements_that_are_not_copy() {
    let rows = vec![vec![1.0, 2.0], vec![-0.5, 0.25], vec![0.3, -1.2]];
    let w = [0.4, -0.3];
    let (value, gradient) = rows_through_tanh_grad(&w, &rows);
    assert_eq!(value, rows_through_tanh(&w, &rows));
    common::assert_gradient(|w| rows_through_tanh(w, &rows), &w, &gradient);

    let obs = [
        Observation { at: 0, target: 1.0 },
        Observation {
            at: 2,
            target: -0.5,
        },
        Observation {
            at: 1,
            target: 0.25,
        },
    ];
    let pairs = [(0.5, 1.0), (-1.5, 2.0)];
    let x = [0.3, -0.7, 1.1];
    let (value, gradient) = observed_grad(&x, &obs, &pairs);
    assert_eq!(value, observed(&x, &obs, &pairs));
    common::assert_gradient(|x| observed(x, &obs, &pairs), &x, &gradient);
}

// Slice methods that write a local buffer, as statements: `fill`, `swap`
// and `copy_from_slice` (whole, and from a subslice) are the stores they
// stand for (they were refused, with a message that said only how to
// read, until 2026-11-28).
#[differentiable]
#[allow(clippy::redundant_slicing, clippy::useless_vec)] // (forms users write)
fn buffer_methods(x: &[f64]) -> f64 {
    let n = x.len();
    let mut u = x.to_vec();
    let mut next = vec![0.0; n];
    let mut total = 0.0;
    for step in 0..3 {
        next.fill(x[step] * 0.5);
        for i in 1..n - 1 {
            next[i] += 0.25 * (u[i - 1] + u[i + 1]) * u[i];
        }
        next.swap(0, n - 1);
        u.copy_from_slice(&next);
        total += u[0] * u[1];
    }
    let mut tail = [0.0; 2];
    tail.copy_from_slice(&u[1..3]);
    // every range form (`..b`, `a..`, `a..=b`, `..`; refused but `a..b`
    // until 2026-11-28)
    let mut head = [0.0; 3];
    head.copy_from_slice(&x[..3]);
    let mut rest = vec![0.0; n - 1];
    rest.copy_from_slice(&u[1..]);
    let mut pair = [0.0; 2];
    pair.copy_from_slice(&x[1..=2]);
    let mut all = vec![0.0; n];
    all.copy_from_slice(&x[..]);
    // and from an array literal, into an array and into a `Vec`
    pair.copy_from_slice(&[head[1] * x[0], rest[0]]);
    let mut three = vec![0.0; 3];
    three.copy_from_slice(&[x[2], total, x[0] * x[1]]);
    total + tail[0] * tail[1].sin() + head[0] * head[2] + rest[n - 2] * pair[1] + all[3].cos()
        - pair[0] * three[2]
        + three[1] * three[0]
}

#[test]
fn slice_methods_that_write_a_buffer() {
    for x in [[0.3, -0.7, 1.1, 0.4], [1.5, 0.2, -0.9, 0.8]] {
        let (value, gradient) = buffer_methods_grad(&x);
        assert_eq!(value, buffer_methods(&x));
        assert_gradient(buffer_methods, &x, &gradient);
    }
}

// `[e; n]` and `vec![e; n]` of a value that varies: the stores they stand
// for (refused as "fill a new array with a constant" until 2026-11-28),
// in the body and in a loop that declares the buffer every iteration.
#[differentiable]
fn filled_with_values(x: &[f64], n: usize) -> f64 {
    let a = [x[0]; 3];
    let mut h = vec![x[1] * x[2]; n];
    let mut total = a[0] * a[2];
    for step in 0..3 {
        let mut row = vec![h[step % n].tanh(); n];
        row[0] += x[0];
        for i in 0..n {
            h[i] = row[i] * 0.5 + h[i] * x[1];
        }
        total += row[n - 1] * h[0];
    }
    let constant = [0.5; 2];
    total + a.len() as f64 * constant[1] + h[n - 1]
}

#[test]
fn fills_of_a_value_that_varies() {
    for x in [[0.3, -0.7, 1.1], [1.5, 0.2, -0.9]] {
        for n in [1, 4] {
            let (value, gradient) = filled_with_values_grad(&x, n);
            assert_eq!(value, filled_with_values(&x, n));
            assert_gradient(|x| filled_with_values(x, n), &x, &gradient);
        }
    }
}

// `copy_from_slice` panics on lengths that differ, as the slice method does.
#[differentiable]
fn copies_a_tail(x: &[f64]) -> f64 {
    let mut head = [0.0; 2];
    head.copy_from_slice(&x[1..]);
    head[0] * head[1]
}

#[test]
#[should_panic(expected = "`head.copy_from_slice(..)`: the lengths must be equal")]
fn copy_from_slice_of_another_length_panics() {
    let _ = copies_a_tail_grad(&[1.0, 2.0, 3.0, 4.0]);
}

#[differentiable]
fn copies_a_literal(x: f64, y: f64, n: usize) -> f64 {
    let mut v = vec![0.0; n];
    v.copy_from_slice(&[y, x * y]);
    v[1] * v[0]
}

#[test]
#[should_panic(expected = "`v.copy_from_slice(..)`: the lengths must be equal: 3 against 2")]
fn copy_from_slice_of_a_literal_of_another_length_panics() {
    assert_eq!(copies_a_literal_grad(0.5, 2.0, 2), (2.0, (4.0, 2.0)));
    let _ = copies_a_literal_grad(0.5, 2.0, 3);
}

#[test]
fn copy_from_slice_of_the_same_length() {
    let x = [0.5, 2.0, 3.0];
    let (value, gradient) = copies_a_tail_grad(&x);
    assert_eq!(value, 6.0);
    assert_eq!(gradient, vec![0.0, 3.0, 2.0]);
}

// `let b = a.clone();` of a float array: a copy, by value for a local
// array of a known length, as a `Vec` otherwise (refused until
// 2026-11-28; `a = b.clone();` was supported).
#[differentiable]
#[allow(clippy::clone_on_copy, noop_method_call)]
fn clones(x: &[f64]) -> f64 {
    let u = x.to_vec();
    let mut next = u.clone();
    next[0] *= next[1];
    let a = [x[0].sin(), x[1]];
    let mut b = a.clone();
    b[1] += a[0] * x[2];
    let p = x.clone();
    next[0] + b[1] * u[1] + p[2].exp()
}

#[test]
fn clones_of_float_arrays() {
    for x in [[0.3, -0.7, 1.1], [1.5, 0.2, -0.9]] {
        let (value, gradient) = clones_grad(&x);
        assert_eq!(value, clones(&x));
        assert_gradient(clones, &x, &gradient);
    }
}

// Closures whose parameters are typed references, `|v: &f64|`, called with
// `&x`, `&x[0]`, `&2.0` or given a slice's elements; `|&v: &f64|`; a
// constant by reference (the expansion did not compile until 2026-11-28:
// `let v: &f64 = x;`, and `&x[0]` as an argument was refused).
const SCALE: f64 = 1.5;

#[differentiable]
fn reference_parameters(x: &[f64]) -> f64 {
    let sq = |v: &f64| v * v;
    let twice = |v: &f64| *v * 2.0;
    let scaled = |v: &f64, w: f64| v * w;
    let y = x[0] * x[1];
    let by_map: f64 = x.iter().map(sq).sum::<f64>() + x.iter().map(|&v: &f64| v * y).sum::<f64>();
    by_map + sq(&x[2]) + twice(&y) + twice(&2.0) * x[1] + scaled(&SCALE, x[2]) + scaled(&y, x[0])
}

#[differentiable]
fn reference_parameters_loop(x: &[f64]) -> f64 {
    let y = x[0] * x[1];
    let mut squares = 0.0;
    for i in 0..x.len() {
        squares += x[i] * x[i];
    }
    let mut products = 0.0;
    for i in 0..x.len() {
        products += x[i] * y;
    }
    let by_map = squares + products;
    by_map + x[2] * x[2] + y * 2.0 + 2.0 * 2.0 * x[1] + SCALE * x[2] + y * x[0]
}

#[test]
fn closures_with_reference_parameters() {
    for x in [[0.3, -0.7, 1.1], [1.5, 0.2, -0.9]] {
        let (value, gradient) = reference_parameters_grad(&x);
        let (value_loop, gradient_loop) = reference_parameters_loop_grad(&x);
        assert_eq!(value, reference_parameters(&x));
        assert_eq!(value.to_bits(), value_loop.to_bits());
        assert_eq!(gradient, gradient_loop);
        assert_gradient(reference_parameters, &x, &gradient);
    }
}

// Comparisons of floats by `partial_cmp` / `total_cmp` (an `Ordering`, no
// derivative), with an argument held by reference, and integers by
// reference (`|i: &usize|`, `let r = &n;`).
#[differentiable]
fn compares_by_ordering(x: &[f64], n: usize) -> f64 {
    use std::cmp::Ordering;
    let cmp = |a: &f64, b: &f64| a.total_cmp(b);
    let next = |i: &usize| *i + 1;
    let r = &n;
    let mut best = x[0];
    for v in x.iter() {
        if cmp(&best, v) == Ordering::Less {
            best = *v;
        }
    }
    let mut low = x[0];
    for &v in x {
        if v.partial_cmp(&low) == Some(Ordering::Less) {
            low = v;
        }
    }
    best * 2.0 - low + x[next(r) - n]
}

#[test]
fn comparisons_by_ordering() {
    let x = [0.3, -0.7, 1.1, 0.2];
    let (value, gradient) = compares_by_ordering_grad(&x, 3);
    assert_eq!(value, compares_by_ordering(&x, 3));
    assert_eq!(value, 1.1 * 2.0 + 0.7 - 0.7);
    assert_eq!(gradient, vec![0.0, 0.0, 2.0, 0.0]);
    assert_gradient(|x| compares_by_ordering(x, 3), &x, &gradient);
}

// `chain.for_each(|v| ..);` is the loop `for v in chain { .. }`, also
// writing a buffer through `iter_mut` and summing into a local.
#[differentiable]
fn for_each(x: &[f64]) -> f64 {
    let mut y = x.to_vec();
    y.iter_mut().for_each(|v| *v *= 2.0);
    let mut total = 0.0;
    y.iter().zip(x).for_each(|(a, b)| total += a * b.sin());
    (0..x.len()).step_by(2).for_each(|i: usize| {
        let t = x[i] * y[i];
        total += t.exp();
    });
    total
}

#[differentiable]
fn for_each_loop(x: &[f64]) -> f64 {
    let mut y = x.to_vec();
    for v in y.iter_mut() {
        *v *= 2.0;
    }
    let mut total = 0.0;
    for (a, b) in y.iter().zip(x) {
        total += a * b.sin();
    }
    for i in (0..x.len()).step_by(2) {
        let t = x[i] * y[i];
        total += t.exp();
    }
    total
}

#[test]
fn for_each_is_its_loop() {
    same_as_loop(
        for_each,
        for_each_grad,
        for_each_adjoint,
        for_each_loop_grad,
        &[&[0.3, -0.7, 1.1], &[1.5, 0.2, -0.9, 0.4], &[]],
    );
}

// `reduce`, `max_by`, `min_by` unwrapped at once (refused until
// 2026-11-28): the loop `Iterator` runs, the first element starting the
// accumulator; with comparisons by `partial_cmp` and `total_cmp`, a
// function path as the comparison, through `copied()`, after `filter`.
#[differentiable]
fn reduces(x: &[f64]) -> f64 {
    let m = x.iter().copied().reduce(f64::max).unwrap();
    let lo = x.iter().cloned().reduce(|a, b| a.min(b)).unwrap_or(0.0);
    let best = *x.iter().max_by(|a, b| a.partial_cmp(b).unwrap()).unwrap();
    let worst = x.iter().copied().min_by(|a, b| a.total_cmp(b)).unwrap();
    let big = x
        .iter()
        .map(|v| v * v)
        .max_by(f64::total_cmp)
        .expect("not empty");
    let positive = x
        .iter()
        .copied()
        .filter(|v| *v > 0.0)
        .reduce(|a, b| a * b)
        .unwrap_or(1.0);
    let s = x
        .iter()
        .map(|v| v.exp())
        .reduce(|a, b| a + b)
        .unwrap_or_default();
    m * 2.0 + lo * 3.0 + best * worst + big + positive + s.ln()
}

#[differentiable]
fn reduces_loop(x: &[f64]) -> f64 {
    let mut m = x[0];
    for i in 1..x.len() {
        m = m.max(x[i]);
    }
    let mut lo = x[0];
    for i in 1..x.len() {
        lo = lo.min(x[i]);
    }
    let (mut best, mut worst, mut big) = (x[0], x[0], x[0] * x[0]);
    for i in 1..x.len() {
        if x[i] >= best {
            best = x[i];
        }
        if x[i] < worst {
            worst = x[i];
        }
        if x[i] * x[i] >= big {
            big = x[i] * x[i];
        }
    }
    let mut positive = 1.0;
    let mut found = false;
    for i in 0..x.len() {
        if x[i] > 0.0 {
            if found {
                positive *= x[i];
            } else {
                positive = x[i];
                found = true;
            }
        }
    }
    let mut s = x[0].exp();
    for i in 1..x.len() {
        s += x[i].exp();
    }
    m * 2.0 + lo * 3.0 + best * worst + big + positive + s.ln()
}

#[test]
fn reduce_max_by_min_by_are_their_loops() {
    let points: [&[f64]; 3] = [&[0.5, -1.5, 2.0, 0.25, 1.0], &[-0.3, -0.7, -1.1], &[1.5]];
    for x in points {
        let (value, gradient) = reduces_grad(x);
        let (value_loop, gradient_loop) = reduces_loop_grad(x);
        assert_eq!(value, reduces(x));
        assert_eq!(value.to_bits(), value_loop.to_bits(), "at {x:?}");
        assert_eq!(gradient, gradient_loop, "at {x:?}");
        assert_gradient(reduces, x, &gradient);
    }
}

// Of equal maxima `max_by` keeps the last, of equal minima `min_by` the
// first, as `Iterator`'s do; an empty chain gives `unwrap_or`'s value, or
// panics as `unwrap` does.
#[differentiable]
fn reduces_ties(x: &[f64]) -> f64 {
    let hi = x
        .iter()
        .copied()
        .max_by(|a, b| a.abs().total_cmp(&b.abs()))
        .unwrap();
    let lo = x
        .iter()
        .copied()
        .min_by(|a, b| a.abs().total_cmp(&b.abs()))
        .unwrap();
    hi * 10.0 + lo
}

#[differentiable]
fn reduces_empty(x: &[f64]) -> f64 {
    let over = x
        .iter()
        .copied()
        .filter(|v| *v > 5.0)
        .reduce(f64::max)
        .unwrap_or(0.5);
    x.iter().copied().reduce(f64::max).unwrap_or(-1.0) + over
}

#[test]
fn reduce_ties_and_empty_chains() {
    assert_eq!(
        reduces_ties_grad(&[1.0, -2.0, 2.0, -1.0]),
        (21.0, vec![1.0, 0.0, 10.0, 0.0])
    );
    assert_eq!(reduces_empty_grad(&[]), (-0.5, vec![]));
    assert_eq!(
        reduces_empty_grad(&[1.0, 6.0, 7.0]),
        (14.0, vec![0.0, 0.0, 2.0])
    );
}

#[test]
#[should_panic(expected = "called `Option::unwrap()` on a `None` value")]
fn reduce_of_nothing_unwrapped_panics() {
    let _ = reduces_ties_grad(&[]);
}

// The argmax and its kin: `max_by` / `min_by` over `enumerate` and `zip`,
// whose elements are tuples, unwrapped (also through `.map(|(i, _)| i)`,
// and after `filter`) or with a tuple for none. Their expansions did not
// compile until 2026-11-29 (the tuple given to the comparison was built as
// an array, and the result read a name that did not exist).
#[differentiable]
fn argmaxes(x: &[f64]) -> f64 {
    let (i, _) = x
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.partial_cmp(b.1).unwrap())
        .unwrap();
    let (j, low) = x
        .iter()
        .enumerate()
        .min_by(|(_, a), (_, b)| a.total_cmp(b))
        .unwrap();
    let k = x
        .iter()
        .copied()
        .enumerate()
        .max_by(|a, b| a.1.abs().total_cmp(&b.1.abs()))
        .map(|(k, _)| k)
        .unwrap();
    let odd = x
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .min_by(|a, b| a.1.total_cmp(b.1))
        .unwrap()
        .0;
    let (p, q) = x
        .iter()
        .zip(x.iter().skip(1))
        .max_by(|a, b| (a.0 * a.1).total_cmp(&(b.0 * b.1)))
        .unwrap();
    let (n, big) = x
        .iter()
        .copied()
        .enumerate()
        .filter(|&(_, v)| v > 10.0)
        .max_by(|&(_, a), &(_, b)| a.total_cmp(&b))
        .unwrap_or((0, 0.5));
    x[i] * 2.0 + low * x[j] + x[k].sin() + x[odd] + p * q + big * x[n]
}

#[differentiable]
fn argmaxes_loop(x: &[f64]) -> f64 {
    let (mut i, mut j, mut k, mut pq) = (0, 0, 0, 0);
    for m in 1..x.len() {
        if x[m] >= x[i] {
            i = m;
        }
        if x[m] < x[j] {
            j = m;
        }
        if x[m].abs() >= x[k].abs() {
            k = m;
        }
    }
    let mut odd = 1;
    for m in (3..x.len()).step_by(2) {
        if x[m] < x[odd] {
            odd = m;
        }
    }
    for m in 1..x.len() - 1 {
        if x[m] * x[m + 1] >= x[pq] * x[pq + 1] {
            pq = m;
        }
    }
    let low = x[j];
    let (p, q) = (x[pq], x[pq + 1]);
    x[i] * 2.0 + low * x[j] + x[k].sin() + x[odd] + p * q + 0.5 * x[0]
}

#[test]
fn argmax_over_enumerate_and_zip_is_its_loop() {
    let points: [&[f64]; 3] = [
        &[0.5, -1.5, 2.0, 0.25, 1.0],
        &[-0.3, -0.7, -1.1, 0.4],
        &[1.5, 1.5, -2.5, 0.1, -0.6, 0.9],
    ];
    for x in points {
        let (v, g) = argmaxes_grad(x);
        let (v_loop, g_loop) = argmaxes_loop_grad(x);
        assert_eq!(v, argmaxes(x), "value at {x:?}");
        assert_eq!(v.to_bits(), v_loop.to_bits(), "value vs loop at {x:?}");
        // (the same selections, adjoints added in another order)
        for (a, b) in g.iter().zip(&g_loop) {
            assert!(
                (a - b).abs() <= 1e-15 * (1.0 + b.abs()),
                "{g:?} vs {g_loop:?}"
            );
        }
        if x[0] != x[1] {
            // (not at the tie, where the function has no derivative)
            assert_gradient(argmaxes, x, &g);
        }
    }
}

/// `max_by`/`min_by` of the tuples a `map` closure returns (`.map(|(a, b)|
/// (a * b, a + b))`), with and without a `filter` before them: the element
/// destructured into an accumulator per part. Their expansion did not
/// compile until 2026-11-29 (E0425: the accumulator of the whole tuple).
#[differentiable]
fn mapped_tuple_extremes(x: &[f64]) -> f64 {
    let ys = [1.0, 2.0, 3.0, 4.0, 5.0];
    let (a, b) = x
        .iter()
        .zip(ys.iter())
        .map(|(a, b)| (a * b, a + b))
        .filter(|(p, _)| *p > -1.0)
        .min_by(|l, r| l.0.total_cmp(&r.0))
        .unwrap_or((0.0, 0.0));
    let (c, d) = x
        .iter()
        .map(|&v| (v.sin(), v * v))
        .max_by(|l, r| l.1.total_cmp(&r.1))
        .unwrap();
    let (e, f) = x
        .iter()
        .map(|&v| {
            let w = v * 0.5;
            (w.exp(), w - 1.0)
        })
        .max_by(|l, r| l.0.total_cmp(&r.0))
        .unwrap_or((1.0, 1.0));
    a + b * b + c * d + e * f
}

#[differentiable]
fn mapped_tuple_extremes_loop(x: &[f64]) -> f64 {
    let ys = [1.0, 2.0, 3.0, 4.0, 5.0];
    let (mut a, mut b): (f64, f64) = (0.0, 0.0);
    let mut found = false;
    for i in 0..x.len().min(ys.len()) {
        let (p, q) = (x[i] * ys[i], x[i] + ys[i]);
        if p > -1.0 && (!found || a.total_cmp(&p) == std::cmp::Ordering::Greater) {
            a = p;
            b = q;
            found = true;
        }
    }
    let (mut c, mut d) = (x[0].sin(), x[0] * x[0]);
    for i in 1..x.len() {
        let (p, q) = (x[i].sin(), x[i] * x[i]);
        if d.total_cmp(&q) != std::cmp::Ordering::Greater {
            c = p;
            d = q;
        }
    }
    let (mut e, mut f) = ((x[0] * 0.5).exp(), x[0] * 0.5 - 1.0);
    for i in 1..x.len() {
        let w = x[i] * 0.5;
        let (p, q) = (w.exp(), w - 1.0);
        if e.total_cmp(&p) != std::cmp::Ordering::Greater {
            e = p;
            f = q;
        }
    }
    a + b * b + c * d + e * f
}

#[test]
fn extremes_of_tuples_a_map_returns() {
    same_as_loop(
        mapped_tuple_extremes,
        mapped_tuple_extremes_grad,
        mapped_tuple_extremes_adjoint,
        mapped_tuple_extremes_loop_grad,
        &[
            &[0.8, -1.3, 0.2, 1.7],
            &[-0.5, 0.25, 1.5, -2.0, 0.75],
            &[1.2, -0.1, -0.9],
        ],
    );
}

// `if let Some(v) = x.get(i)` (`.copied()`, `first()`, `last()`, `Some(&w)`,
// `else if let`, as a value, on a local buffer) is the branch on the
// element being there (refused until 2026-11-28).
#[differentiable]
#[allow(clippy::useless_vec)]
fn if_let_element(x: &[f64], i: usize) -> f64 {
    let mut s = 0.0;
    if let Some(v) = x.get(i) {
        s += v * v;
    } else if let Some(&w) = x.last() {
        s += w.sin();
    }
    let t = if let Some(u) = x.get(i + 1).copied() {
        u * 3.0
    } else {
        1.0
    };
    let buf = vec![x[0] * 2.0; 3];
    if let Some(b) = buf.first() {
        s += b * t;
    }
    s
}

#[differentiable]
#[allow(clippy::useless_vec)]
fn if_let_element_loop(x: &[f64], i: usize) -> f64 {
    let mut s = 0.0;
    if i < x.len() {
        s += x[i] * x[i];
    } else if !x.is_empty() {
        s += x[x.len() - 1].sin();
    }
    let t = if i + 1 < x.len() { x[i + 1] * 3.0 } else { 1.0 };
    let buf = vec![x[0] * 2.0; 3];
    s += buf[0] * t;
    s
}

#[test]
fn if_let_of_an_element_is_a_branch() {
    let x = [0.5, 1.5, -0.25];
    for i in 0..4 {
        let (value, gradient) = if_let_element_grad(&x, i);
        let (value_loop, gradient_loop) = if_let_element_loop_grad(&x, i);
        assert_eq!(value, if_let_element(&x, i));
        assert_eq!(value.to_bits(), value_loop.to_bits(), "at {i}");
        assert_eq!(gradient, gradient_loop, "at {i}");
        assert_gradient(|x| if_let_element(x, i), &x, &gradient);
    }
}

// This session's idioms under `hessian`: the Hessian is the finite
// differences of the gradient.
#[differentiable(hessian)]
fn new_idioms_second_order(x: &[f64]) -> f64 {
    let mut y = x.to_vec();
    y.iter_mut().for_each(|v| *v *= v.sin());
    let m = y.iter().copied().reduce(f64::max).unwrap();
    let sq = |v: &f64| v * v;
    let last = if let Some(l) = y.last() {
        l * x[0]
    } else {
        0.0
    };
    m + y.iter().map(sq).sum::<f64>() + last
}

#[test]
fn new_idioms_under_hessian() {
    let x = [0.5, 1.5, -0.25];
    let (value, gradient, hessian) = new_idioms_second_order_hessian(&x);
    assert_eq!(value, new_idioms_second_order(&x));
    assert_eq!(gradient, new_idioms_second_order_grad(&x).1);
    for (row, _) in x.iter().enumerate() {
        assert_gradient(
            |x| new_idioms_second_order_grad(x).1[row],
            &x,
            &hessian[row * 3..row * 3 + 3],
        );
    }
}

// A `fn` declared inside the body (before or after its calls, in a nested
// block, passed to `map` by name, with integer arguments) is inlined at
// each call like a closure (its differentiated calls did not compile until
// 2026-11-28: `sq_adjoint` was missing).
const SOFTNESS: f64 = 1.5;

#[differentiable]
fn inner_fns(x: &[f64]) -> f64 {
    let early = sq(x[0]);
    fn sq(t: f64) -> f64 {
        t * t
    }
    fn soft(t: f64, k: f64) -> f64 {
        let e = (k * t).exp();
        (1.0 + e).ln() / k + SOFTNESS
    }
    fn next(i: usize) -> usize {
        i + 1
    }
    let mut s = early + x.iter().map(|&v| sq(v)).sum::<f64>();
    for i in 0..x.len() - 1 {
        s += soft(x[next(i)], 2.0) * sq(x[i]);
    }
    {
        fn cube(t: f64) -> f64 {
            t * t * t
        }
        s += cube(x[1]);
    }
    s + x.iter().copied().map(sq).sum::<f64>()
}

#[differentiable]
fn inner_fns_loop(x: &[f64]) -> f64 {
    let early = x[0] * x[0];
    let mut squares = 0.0;
    for i in 0..x.len() {
        squares += x[i] * x[i];
    }
    let mut s = early + squares;
    for i in 0..x.len() - 1 {
        let e = (2.0 * x[i + 1]).exp();
        s += ((1.0 + e).ln() / 2.0 + SOFTNESS) * (x[i] * x[i]);
    }
    s += x[1] * x[1] * x[1];
    s + squares
}

#[test]
fn fns_declared_in_the_body_are_inlined() {
    same_as_loop(
        inner_fns,
        inner_fns_grad,
        inner_fns_adjoint,
        inner_fns_loop_grad,
        &[&[0.5, 1.5, -0.25], &[-1.0, 0.3]],
    );
}

// `let Some(v) = x.get(i) else { .. };` (also `first()`, `last()`,
// `.copied()`, in a loop with `continue`) is the test and the `let` it
// stands for (refused until 2026-11-28).
#[differentiable]
fn let_else_element(x: &[f64], i: usize) -> f64 {
    let Some(v) = x.get(i) else {
        return x[0] * 2.0;
    };
    let mut s = v * v;
    for k in 0..4 {
        let Some(&w) = x.get(i + k) else {
            continue;
        };
        s += w.sin();
    }
    let Some(last) = x.last().copied() else {
        return 0.0;
    };
    s * last
}

#[differentiable]
fn let_else_element_loop(x: &[f64], i: usize) -> f64 {
    if i >= x.len() {
        return x[0] * 2.0;
    }
    let mut s = x[i] * x[i];
    for k in 0..4 {
        if i + k >= x.len() {
            continue;
        }
        s += x[i + k].sin();
    }
    s * x[x.len() - 1]
}

#[test]
fn let_else_of_an_element() {
    let x = [0.5, 1.5, -0.25, 0.75];
    for i in 0..5 {
        let (value, gradient) = let_else_element_grad(&x, i);
        let (value_loop, gradient_loop) = let_else_element_loop_grad(&x, i);
        assert_eq!(value, let_else_element(&x, i));
        assert_eq!(value.to_bits(), value_loop.to_bits(), "at {i}");
        assert_eq!(gradient, gradient_loop, "at {i}");
        assert_gradient(|x| let_else_element(x, i), &x, &gradient);
    }
}

// A closure's `&f64` parameter given elements of data the macro cannot type
// (`self.xs`, read by value), with this session's other idioms, in a
// method (the expansion did not compile until 2026-11-28: `*x` of an
// `f64`).
struct Fit {
    xs: Vec<f64>,
    ys: Vec<f64>,
    lambda: f64,
}

impl Fit {
    #[differentiable(wrt(w))]
    fn loss(&self, w: &[f64]) -> f64 {
        let pred = |x: &f64| w[0] + w[1] * x;
        let mut total = 0.0;
        self.xs
            .iter()
            .zip(&self.ys)
            .for_each(|(x, y)| total += (pred(x) - y).powi(2));
        let reg = w.iter().map(|v| v * v).reduce(|a, b| a + b).unwrap_or(0.0);
        total / self.xs.len() as f64 + self.lambda * reg
    }

    #[differentiable(wrt(w))]
    fn loss_loop(&self, w: &[f64]) -> f64 {
        let mut total = 0.0;
        for i in 0..self.xs.len().min(self.ys.len()) {
            total += (w[0] + w[1] * self.xs[i] - self.ys[i]).powi(2);
        }
        let mut reg = w[0] * w[0];
        for i in 1..w.len() {
            reg += w[i] * w[i];
        }
        total / self.xs.len() as f64 + self.lambda * reg
    }
}

#[test]
fn reference_parameters_over_data_in_a_method() {
    let fit = Fit {
        xs: vec![0.1, 0.5, 1.2, 2.0],
        ys: vec![1.0, 1.4, 2.2, 3.9],
        lambda: 0.3,
    };
    for w in [[0.7, -0.4], [-1.5, 2.0]] {
        let (value, gradient) = fit.loss_grad(&w);
        let (value_loop, gradient_loop) = fit.loss_loop_grad(&w);
        assert_eq!(value, fit.loss(&w));
        assert_eq!(value.to_bits(), value_loop.to_bits());
        assert_eq!(gradient, gradient_loop);
        assert_gradient(|w| fit.loss(w), &w, &gradient);
    }
}

// `let (w, b) = params.split_at(n);` is two subslice views (refused until
// 2026-11-28), also of a local buffer and inside a loop.
#[differentiable]
fn split_parameters(params: &[f64], xs: &[f64]) -> f64 {
    let (w, b) = params.split_at(xs.len());
    let mut total = 0.0;
    for (wi, xi) in w.iter().zip(xs) {
        total += (wi * xi + b[0]).tanh();
    }
    let scaled: Vec<f64> = params.iter().map(|p| p * 2.0).collect();
    for k in 1..3 {
        let (head, tail) = scaled.split_at(k);
        total += head[k - 1] * tail[0];
    }
    total
}

#[differentiable]
fn split_parameters_loop(params: &[f64], xs: &[f64]) -> f64 {
    let n = xs.len();
    let mut total = 0.0;
    for i in 0..n {
        total += (params[i] * xs[i] + params[n]).tanh();
    }
    let mut scaled = vec![0.0; params.len()];
    for i in 0..params.len() {
        scaled[i] = params[i] * 2.0;
    }
    for k in 1..3 {
        total += scaled[k - 1] * scaled[k];
    }
    total
}

#[test]
fn split_at_is_two_views() {
    let xs = [0.5, -1.0, 2.0];
    for params in [[0.3, -0.7, 1.1, 0.2], [1.5, 0.2, -0.9, 0.4]] {
        let (value, (gradient, _)) = split_parameters_grad(&params, &xs);
        let (value_loop, (gradient_loop, _)) = split_parameters_loop_grad(&params, &xs);
        assert_eq!(value, split_parameters(&params, &xs));
        assert_eq!(value.to_bits(), value_loop.to_bits());
        assert_eq!(gradient, gradient_loop);
        assert_gradient(|p| split_parameters(p, &xs), &params, &gradient);
    }
}

// `match` on a tuple of integers and `bool`s, with `_` parts, names bound
// by parts (in the body and a guard), alternatives, as a value and as a
// statement (refused until 2026-11-28): the parts tested one by one.
#[differentiable]
fn tuple_match(x: f64, y: f64, i: usize, j: usize) -> f64 {
    let v = match (i, j % 3, x > y) {
        (0, 0, _) => x * y,
        (k, 1, true) if k > 2 => x * k as f64,
        (1, _, false) | (2, 2, _) => x + y,
        (k, r, b) => {
            let t = if b { x } else { y };
            t * (k + r) as f64
        }
    };
    let mut w = v;
    match (i, j) {
        (0, 0) => w *= 2.0,
        _ => w += y,
    }
    w
}

#[differentiable]
fn tuple_match_loop(x: f64, y: f64, i: usize, j: usize) -> f64 {
    let r = j % 3;
    let b = x > y;
    let v = if i == 0 && r == 0 {
        x * y
    } else if r == 1 && b && i > 2 {
        x * i as f64
    } else if (i == 1 && !b) || (i == 2 && r == 2) {
        x + y
    } else {
        let t = if b { x } else { y };
        t * (i + r) as f64
    };
    let mut w = v;
    if i == 0 && j == 0 {
        w *= 2.0;
    } else {
        w += y;
    }
    w
}

#[test]
fn match_on_a_tuple() {
    for (i, j) in [(0, 0), (3, 1), (1, 5), (2, 2), (4, 0), (5, 1), (0, 3)] {
        for (x, y) in [(0.5, 0.25), (0.25, 0.5)] {
            let (value, gradient) = tuple_match_grad(x, y, i, j);
            assert_eq!(value, tuple_match(x, y, i, j));
            assert_eq!((value, gradient), tuple_match_loop_grad(x, y, i, j));
            let (dx, dy) = gradient;
            assert_gradient(|z| tuple_match(z[0], z[1], i, j), &[x, y], &[dx, dy]);
        }
    }
}

// `match` on a float, binding it whole with guards, with literal and range
// patterns; on an `Option` or a `Result` of an index (`position`,
// `checked_sub`, `binary_search_by`, a parameter), binding inside `Some(..)`
// / `Ok(..) | Err(..)` with guards; on an element's option (`x.get(i)`,
// `last()`) as the `if let` it stands for; `partition_point` and the other
// searches of a float slice (all refused until 2026-11-29).
#[differentiable(wrt(x))]
fn matches_more(x: &[f64], k: Option<usize>, t: f64) -> f64 {
    let a = match x[0] * 2.0 {
        v if v < -1.0 => -v,
        v if v < 1.0 => v * v,
        v => 2.0 * v - 1.0,
    };
    let b = match x[1] {
        0.0 => 1.0,
        0.0..=1.0 => x[1].sin(),
        _ => x[1],
    };
    let c = match x.iter().position(|&v| v > 1.0) {
        Some(i) if i > 0 => x[i] * x[i - 1],
        Some(i) => x[i] * 2.0,
        None => 0.5,
    };
    let d = match k.and_then(|j| j.checked_sub(1)) {
        Some(j) if j < x.len() => x[j].exp(),
        _ => 1.0,
    };
    let lo = match x.binary_search_by(|v| v.total_cmp(&t)) {
        Ok(i) | Err(i) => i.min(x.len() - 1),
    };
    let e = match x.get(lo) {
        Some(v) => v * t,
        None => 0.0,
    };
    let mut f = a + b + c + d + e;
    match x.last() {
        Some(&w) => f += w * w,
        _ => f -= 1.0,
    }
    let p = x.partition_point(|&v| v < t);
    if x.contains(&t) || x.is_empty() {
        f += 1.0;
    }
    f + x[p.min(x.len() - 1)]
}

#[differentiable(wrt(x))]
fn matches_more_loop(x: &[f64], k: Option<usize>, t: f64) -> f64 {
    let v = x[0] * 2.0;
    let a = if v < -1.0 {
        -v
    } else if v < 1.0 {
        v * v
    } else {
        2.0 * v - 1.0
    };
    let b = if x[1] == 0.0 {
        1.0
    } else if 0.0 <= x[1] && x[1] <= 1.0 {
        x[1].sin()
    } else {
        x[1]
    };
    let mut found = x.len();
    for i in 0..x.len() {
        if x[i] > 1.0 {
            found = i;
            break;
        }
    }
    let c = if found < x.len() && found > 0 {
        x[found] * x[found - 1]
    } else if found < x.len() {
        x[found] * 2.0
    } else {
        0.5
    };
    let j = k.unwrap_or(0);
    let d = if k.is_some() && j >= 1 && j - 1 < x.len() {
        x[j - 1].exp()
    } else {
        1.0
    };
    let mut lo = 0;
    while lo < x.len() && x[lo] < t {
        lo += 1;
    }
    let lo = lo.min(x.len() - 1);
    let e = x[lo] * t;
    let mut f = a + b + c + d + e;
    let w = x[x.len() - 1];
    f += w * w;
    let mut p = 0;
    while p < x.len() && x[p] < t {
        p += 1;
    }
    let mut hit = false;
    for i in 0..x.len() {
        if x[i] == t {
            hit = true;
        }
    }
    if hit {
        f += 1.0;
    }
    f + x[p.min(x.len() - 1)]
}

#[test]
fn matches_on_floats_options_and_results() {
    let points: [&[f64]; 4] = [
        &[-0.8, 0.5, 1.5, 2.5],
        &[0.25, 1.5, 1.75, 3.0],
        &[-0.5, 0.0, 0.25, 0.5],
        &[0.1, 0.2, 0.3, 0.4],
    ];
    for x in points {
        for k in [None, Some(0), Some(2), Some(9)] {
            for t in [0.35, 1.6, 2.5] {
                let (value, gradient) = matches_more_grad(x, k, t);
                let (value_loop, gradient_loop) = matches_more_loop_grad(x, k, t);
                assert_eq!(value, matches_more(x, k, t));
                assert_eq!(value.to_bits(), value_loop.to_bits(), "{x:?} {k:?} {t}");
                assert_eq!(gradient, gradient_loop, "{x:?} {k:?} {t}");
                if x[1] != 0.0 {
                    // (not on the literal pattern's point)
                    assert_gradient(|x| matches_more(x, k, t), x, &gradient);
                }
            }
        }
    }
}

#[differentiable(hessian)]
fn matches_second_order(x: &[f64]) -> f64 {
    let a = match x[0] * x[1] {
        v if v < 0.0 => v * v,
        v => v.sin(),
    };
    let b = match x.iter().position(|&v| v > 1.0) {
        Some(i) => x[i] * x[0],
        None => 1.0,
    };
    a * b
}

#[test]
fn matches_under_hessian() {
    for x in [[0.5, 1.5, -0.25], [-0.5, 0.75, 0.25]] {
        let (value, gradient, hessian) = matches_second_order_hessian(&x);
        assert_eq!(value, matches_second_order(&x));
        assert_eq!(gradient, matches_second_order_grad(&x).1);
        for row in 0..3 {
            assert_gradient(
                |x| matches_second_order_grad(x).1[row],
                &x,
                &hessian[row * 3..row * 3 + 3],
            );
        }
    }
}

// `std::iter::zip(a, b)` (the chain `a.into_iter().zip(b)`), `while let
// Some(v) = x.get(i)` (the `while` on `i < x.len()`), a local bound to an
// `if` whose branches end in array literals, and `let a: [f64; N] =
// std::array::from_fn(|k| ..)` (the loop filling it; refused until
// 2026-11-29).
#[differentiable]
fn zip_while_let_array_if(x: &[f64]) -> f64 {
    let (a, b) = x.split_at(x.len() / 2);
    let dot: f64 = std::iter::zip(a, b).map(|(p, q)| p * q).sum();
    let mut i = 1;
    let mut s = 0.0;
    while let Some(v) = x.get(i) {
        s += v.sin();
        i += 2;
    }
    let sines: [f64; 3] = std::array::from_fn(|k| x[k].sin() * k as f64);
    let w = if x[0] > 0.0 {
        [1.5, x[1], 0.5]
    } else if x[0] > -1.0 {
        [x[2] * x[2], 2.0, 1.0]
    } else {
        [0.0; 3]
    };
    let mut t = 0.0;
    for k in 0..3 {
        t += w[k] * x[k];
    }
    dot + s + t + sines[2]
}

#[differentiable]
fn zip_while_let_array_if_loop(x: &[f64]) -> f64 {
    let half = x.len() / 2;
    let mut dot = 0.0;
    for k in 0..half.min(x.len() - half) {
        dot += x[k] * x[half + k];
    }
    let mut s = 0.0;
    let mut i = 1;
    while i < x.len() {
        s += x[i].sin();
        i += 2;
    }
    let mut w = [0.0; 3];
    if x[0] > 0.0 {
        w[0] = 1.5;
        w[1] = x[1];
        w[2] = 0.5;
    } else if x[0] > -1.0 {
        w[0] = x[2] * x[2];
        w[1] = 2.0;
        w[2] = 1.0;
    }
    let mut t = 0.0;
    for k in 0..3 {
        t += w[k] * x[k];
    }
    dot + s + t + x[2].sin() * 2.0
}

#[test]
fn free_zip_while_let_and_array_valued_if() {
    let points: [&[f64]; 3] = [
        &[0.3, -1.2, 0.7, 0.9, 1.4],
        &[-0.5, 0.25, -0.4, -1.3, 0.6, 0.8],
        &[-1.5, 0.5, 0.25, 2.0],
    ];
    same_as_loop(
        zip_while_let_array_if,
        zip_while_let_array_if_grad,
        zip_while_let_array_if_adjoint,
        zip_while_let_array_if_loop_grad,
        &points,
    );
}

// Local arrays of arrays and vectors of rows (refused until 2026-11-29):
// one flat array, row after row, `m[i][j]` its element `i * C + j`; a row
// read whole is a copy (changing `m` after it leaves it as it was), a row
// assigned whole takes a copy of its value first; rows iterated as
// subslices.
#[differentiable]
fn matrices(x: &[f64], n: usize) -> f64 {
    let (s, c) = x[0].sin_cos();
    let r = [[c, -s], [s, c]];
    let mut m: [[f64; 3]; 3] = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            m[i][j] = x[(i + j) % x.len()] * (i + 1) as f64;
        }
    }
    let first = m[0];
    m[0][1] += r[1][0] * first[2];
    m[2] = [first[1], m[1][2] * 2.0, 0.5];
    m[1] = [m[1][2], m[1][0], m[1][1]];
    let mut t = 0.0;
    for row in m.iter() {
        t += row[0] * row[2];
    }
    for row in &r {
        t += row.iter().map(|v| v * v).sum::<f64>();
    }
    let mut g = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..n {
            g[i][j] = (x[i] - x[j]).powi(2);
        }
    }
    let mut pts = vec![[0.0; 2]; x.len() / 2];
    for i in 0..pts.len() {
        pts[i][0] = x[2 * i];
        pts[i][1] = x[2 * i + 1];
    }
    let rows: f64 = g[n - 1].iter().sum();
    t + first[0] + rows + m.len() as f64 + pts[pts.len() - 1][1] * g[0][1]
}

#[differentiable]
fn matrices_loop(x: &[f64], n: usize) -> f64 {
    let (s, c) = x[0].sin_cos();
    let r = [c, -s, s, c];
    let mut m = [0.0; 9];
    for i in 0..3 {
        for j in 0..3 {
            m[i * 3 + j] = x[(i + j) % x.len()] * (i + 1) as f64;
        }
    }
    let first = [m[0], m[1], m[2]];
    m[1] += r[2] * first[2];
    let row2 = [first[1], m[5] * 2.0, 0.5];
    m[6] = row2[0];
    m[7] = row2[1];
    m[8] = row2[2];
    let row1 = [m[5], m[3], m[4]];
    m[3] = row1[0];
    m[4] = row1[1];
    m[5] = row1[2];
    let mut t = 0.0;
    for i in 0..3 {
        t += m[i * 3] * m[i * 3 + 2];
    }
    for i in 0..2 {
        let mut q = 0.0;
        for j in 0..2 {
            q += r[i * 2 + j] * r[i * 2 + j];
        }
        t += q;
    }
    let mut g = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            g[i * n + j] = (x[i] - x[j]).powi(2);
        }
    }
    let half = x.len() / 2;
    let mut pts = vec![0.0; half * 2];
    for i in 0..half {
        pts[2 * i] = x[2 * i];
        pts[2 * i + 1] = x[2 * i + 1];
    }
    let mut rows = 0.0;
    for j in 0..n {
        rows += g[(n - 1) * n + j];
    }
    t + first[0] + rows + 3.0 + pts[2 * (half - 1) + 1] * g[1]
}

#[test]
fn arrays_of_arrays_are_flat_arrays() {
    let points: [&[f64]; 3] = [
        &[0.3, -1.2, 0.7, 0.9, 1.4],
        &[-0.5, 0.25, -0.4, -1.3, 0.6, 0.8],
        &[1.5, 0.5, 0.25, 2.0],
    ];
    for x in points {
        for n in [2, 3] {
            let (v, g) = matrices_grad(x, n);
            let (v_loop, g_loop) = matrices_loop_grad(x, n);
            assert_eq!(v, matrices(x, n));
            assert_eq!(v.to_bits(), v_loop.to_bits(), "{x:?} {n}");
            for (a, b) in g.iter().zip(&g_loop) {
                // (the same operations; adjoints of the sums added in
                // another order)
                assert!(
                    (a - b).abs() <= 1e-14 * (1.0 + b.abs()),
                    "{g:?} vs {g_loop:?}"
                );
            }
            assert_gradient(|x| matrices(x, n), x, &g);
        }
    }
}

// A matrix assigned whole from another of its shape (`u = next;` of a
// time step's new grid, declared in the loop; `a = b.clone();`): flat
// arrays assigned whole (refused until 2026-11-29).
#[differentiable(wrt(u0))]
#[allow(clippy::clone_on_copy)]
fn heat_grid(u0: &[f64], kappa: f64) -> f64 {
    let n = 4;
    let mut u = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..n {
            u[i][j] = u0[i * n + j];
        }
    }
    for _ in 0..3 {
        let mut next = vec![vec![0.0; n]; n];
        for i in 0..n {
            for j in 0..n {
                let up = u[(i + n - 1) % n][j];
                let down = u[(i + 1) % n][j];
                let left = u[i][(j + n - 1) % n];
                let right = u[i][(j + 1) % n];
                next[i][j] = u[i][j] + kappa * (up + down + left + right - 4.0 * u[i][j]);
            }
        }
        u = next;
    }
    let mut a = [[u[0][0], u[0][1]], [u[1][0], u[1][1]]];
    let mut b = [[0.0; 2]; 2];
    for _ in 0..2 {
        for i in 0..2 {
            for j in 0..2 {
                b[i][j] = a[j][i] * 0.9 + a[i][j].sin() * 0.1;
            }
        }
        a = b.clone();
    }
    u.iter()
        .map(|row| row.iter().map(|v| v * v).sum::<f64>())
        .sum::<f64>()
        + a[0][1] * a[1][0]
}

#[differentiable(wrt(u0))]
fn heat_grid_loop(u0: &[f64], kappa: f64) -> f64 {
    let n = 4;
    let mut u = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            u[i * n + j] = u0[i * n + j];
        }
    }
    for _ in 0..3 {
        let mut next = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                let up = u[((i + n - 1) % n) * n + j];
                let down = u[((i + 1) % n) * n + j];
                let left = u[i * n + (j + n - 1) % n];
                let right = u[i * n + (j + 1) % n];
                next[i * n + j] =
                    u[i * n + j] + kappa * (up + down + left + right - 4.0 * u[i * n + j]);
            }
        }
        u = next;
    }
    let mut a = [u[0], u[1], u[n], u[n + 1]];
    let mut b = [0.0; 4];
    for _ in 0..2 {
        for i in 0..2 {
            for j in 0..2 {
                b[i * 2 + j] = a[j * 2 + i] * 0.9 + a[i * 2 + j].sin() * 0.1;
            }
        }
        a = b;
    }
    let mut s = 0.0;
    for i in 0..n {
        let mut row = 0.0;
        for j in 0..n {
            row += u[i * n + j] * u[i * n + j];
        }
        s += row;
    }
    s + a[1] * a[2]
}

#[test]
fn matrices_assigned_whole() {
    let u0: Vec<f64> = (0..16).map(|i| ((i * 7) % 5) as f64 * 0.2 - 0.3).collect();
    let (v, g) = heat_grid_grad(&u0, 0.1);
    let (v_loop, g_loop) = heat_grid_loop_grad(&u0, 0.1);
    assert_eq!(v, heat_grid(&u0, 0.1));
    assert_eq!(v.to_bits(), v_loop.to_bits());
    for (a, b) in g.iter().zip(&g_loop) {
        assert!(
            (a - b).abs() <= 1e-14 * (1.0 + b.abs()),
            "{g:?} vs {g_loop:?}"
        );
    }
    assert_gradient(|u| heat_grid(u, 0.1), &u0, &g);
}

#[differentiable(hessian)]
fn matrix_second_order(x: &[f64]) -> f64 {
    let mut m = [[0.0; 2]; 2];
    for i in 0..2 {
        for j in 0..2 {
            m[i][j] = x[i] * x[j + 1];
        }
    }
    m[0][0] * m[1][1] - m[0][1] * m[1][0].sin()
}

#[test]
fn arrays_of_arrays_under_hessian() {
    let x = [0.5, 1.5, -0.25];
    let (value, gradient, hessian) = matrix_second_order_hessian(&x);
    assert_eq!(value, matrix_second_order(&x));
    assert_eq!(gradient, matrix_second_order_grad(&x).1);
    for row in 0..3 {
        assert_gradient(
            |x| matrix_second_order_grad(x).1[row],
            &x,
            &hessian[row * 3..row * 3 + 3],
        );
    }
}

// `%`, `%=` (on a local and an element), `rem_euclid` and `fract` of
// differentiated values (refused until 2026-11-29): partials `(1, -q)`,
// `q` the integer quotient; against the same function written with
// `trunc`/`floor` (the advice the refusal gave), whose partials are the
// same numbers.
#[differentiable]
fn remainders(x: &[f64]) -> f64 {
    let wrapped = (x[0] - x[1] + std::f64::consts::PI).rem_euclid(2.0 * std::f64::consts::PI);
    let mut s = x[2] * 3.0;
    s %= x[1];
    let mut buf = [x[0], x[2]];
    buf[1] %= 0.75;
    let mut t = 0.0;
    for v in x {
        t += (v * 10.0) % 1.5;
    }
    wrapped * wrapped + s + buf[1] + t + (x[0] * 4.0).fract() * x[2]
}

#[differentiable]
fn remainders_by_quotients(x: &[f64]) -> f64 {
    let two_pi = 2.0 * std::f64::consts::PI;
    let a = x[0] - x[1] + std::f64::consts::PI;
    let wrapped = a - two_pi * (a / two_pi).floor();
    let s = x[2] * 3.0 - x[1] * (x[2] * 3.0 / x[1]).trunc();
    let b = x[2] - 0.75 * (x[2] / 0.75).trunc();
    let mut t = 0.0;
    for v in x {
        t += v * 10.0 - 1.5 * (v * 10.0 / 1.5).trunc();
    }
    let f = x[0] * 4.0 - (x[0] * 4.0).trunc();
    wrapped * wrapped + s + b + t + f * x[2]
}

#[test]
fn remainders_and_fract_of_differentiated_values() {
    // (away from the jumps: no `a / b` near an integer)
    let points: [&[f64]; 3] = [&[0.31, -1.17, 0.7], &[2.9, 0.47, -1.3], &[-3.7, 1.1, 2.35]];
    for x in points {
        let (v, g) = remainders_grad(x);
        let (v_q, g_q) = remainders_by_quotients_grad(x);
        assert_eq!(v, remainders(x));
        assert!((v - v_q).abs() < 1e-12, "{v} vs {v_q} at {x:?}");
        for (a, b) in g.iter().zip(&g_q) {
            assert!(
                (a - b).abs() <= 1e-12 * (1.0 + b.abs()),
                "{g:?} vs {g_q:?} at {x:?}"
            );
        }
        assert_gradient(remainders, x, &g);
    }
}

// `let mut v = Vec::new();` and a loop right after it pushing a float once
// an iteration, last (refused until 2026-11-28): the vector the loop's
// chain collects. A vector of integers pushed the same way stays a change
// in place.
#[differentiable]
fn pushes(x: &[f64]) -> f64 {
    let mut doubled = Vec::new();
    for t in x {
        doubled.push(t * 2.0);
    }
    let mut weighted: Vec<f64> = Vec::with_capacity(x.len());
    for (i, &t) in x.iter().enumerate() {
        let s = t.sin();
        weighted.push(s * i as f64);
    }
    let mut products = vec![];
    for k in 0..3 {
        products.push(x[k] * x[k + 1]);
    }
    let mut idx = Vec::new();
    for i in 0..x.len() {
        idx.push(i);
    }
    doubled.iter().sum::<f64>() + weighted[1] * products[2] + x[idx[1]]
}

#[differentiable]
fn pushes_loop(x: &[f64]) -> f64 {
    let mut doubled = vec![0.0; x.len()];
    for i in 0..x.len() {
        doubled[i] = x[i] * 2.0;
    }
    let mut weighted = vec![0.0; x.len()];
    for i in 0..x.len() {
        let s = x[i].sin();
        weighted[i] = s * i as f64;
    }
    let mut products = [0.0; 3];
    for k in 0..3 {
        products[k] = x[k] * x[k + 1];
    }
    let mut sum = -0.0;
    for i in 0..x.len() {
        sum += doubled[i];
    }
    sum + weighted[1] * products[2] + x[1]
}

#[test]
fn pushes_into_a_new_vector_are_a_collect() {
    for x in [[0.3, -0.7, 1.1, 0.4], [1.5, 0.2, -0.9, 0.8]] {
        let (value, gradient) = pushes_grad(&x);
        let (value_loop, gradient_loop) = pushes_loop_grad(&x);
        assert_eq!(value, pushes(&x));
        assert_eq!(value.to_bits(), value_loop.to_bits());
        assert_eq!(gradient, gradient_loop);
        assert_gradient(pushes, &x, &gradient);
    }
}

// `x.first().map(|v| ..).unwrap_or(v)`, `x.get(i).copied().map(f64::sin)
// .unwrap_or(..)`, `x.last().map_or(v, |&t| ..)`, `.map(..).unwrap()` of an
// element (refused until 2026-11-28): the branch on the element being
// there, the function applied to it.
#[differentiable]
fn mapped_elements(x: &[f64], i: usize) -> f64 {
    let f = x.first().map(|v| v * 2.0).unwrap_or(0.0);
    let g = x.get(i).copied().map(f64::sin).unwrap_or(1.0);
    let l = x.last().map_or(0.5, |&v| v * v);
    let u = x.get(1).map(|v| v.exp()).unwrap();
    // (in a condition too)
    let w = if x.get(i).map(|v| *v > 0.0).unwrap_or(false) {
        f
    } else {
        g
    };
    let z = if x.get(x.len() - 2).map_or(true, |v| *v < 0.0) {
        l
    } else {
        u
    };
    f + g + l * u + w + z
}

#[differentiable]
fn mapped_elements_loop(x: &[f64], i: usize) -> f64 {
    let f = if !x.is_empty() { x[0] * 2.0 } else { 0.0 };
    let g = if i < x.len() { x[i].sin() } else { 1.0 };
    let l = if !x.is_empty() {
        x[x.len() - 1] * x[x.len() - 1]
    } else {
        0.5
    };
    let u = x[1].exp();
    let w = if i < x.len() && x[i] > 0.0 { f } else { g };
    let z = if x[x.len() - 2] < 0.0 { l } else { u };
    f + g + l * u + w + z
}

#[test]
fn options_of_elements_mapped() {
    let x = [0.3, 0.5, -0.8];
    for i in 0..4 {
        let (value, gradient) = mapped_elements_grad(&x, i);
        let (value_loop, gradient_loop) = mapped_elements_loop_grad(&x, i);
        assert_eq!(value, mapped_elements(&x, i));
        assert_eq!(value.to_bits(), value_loop.to_bits(), "at {i}");
        assert_eq!(gradient, gradient_loop, "at {i}");
        assert_gradient(|x| mapped_elements(x, i), &x, &gradient);
    }
}

// ----- sorting a local buffer (`Lowerer::buffer_method`) ----------------------------

/// `sort_by`, `sort_unstable_by` and `reverse` of a local buffer: a
/// permutation of its elements (the order `__private::sort_order` finds,
/// then the elements gathered in it), so the derivative of a sorted slot is
/// that of the element the sort put there; a median, a trimmed mean, the
/// largest gaps. Refused until 2026-11-29.
#[differentiable]
fn sorted_statistics(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let median = v[v.len() / 2];
    let trimmed: f64 = v[1..v.len() - 1].iter().sum::<f64>() / (v.len() - 2) as f64;
    let mut gaps: Vec<f64> = v.windows(2).map(|w| (w[1] - w[0]) * w[1]).collect();
    gaps.sort_unstable_by(|a, b| b.total_cmp(a));
    gaps.reverse();
    median * trimmed + gaps[gaps.len() - 1] - gaps[0].exp()
}

/// The same, each sort written out as an insertion sort of swaps (stable,
/// as `sort_by`: the same permutation, so the same values and gradient).
#[differentiable]
fn sorted_statistics_loop(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 && v[j - 1] > v[j] {
            v.swap(j - 1, j);
            j -= 1;
        }
    }
    let median = v[v.len() / 2];
    let mut trimmed = -0.0;
    for i in 1..v.len() - 1 {
        trimmed += v[i];
    }
    trimmed /= (v.len() - 2) as f64;
    let mut gaps = vec![0.0; v.len() - 1];
    for i in 0..v.len() - 1 {
        gaps[i] = (v[i + 1] - v[i]) * v[i + 1];
    }
    // descending, then reversed: ascending
    for i in 1..gaps.len() {
        let mut j = i;
        while j > 0 && gaps[j - 1] > gaps[j] {
            gaps.swap(j - 1, j);
            j -= 1;
        }
    }
    median * trimmed + gaps[gaps.len() - 1] - gaps[0].exp()
}

#[test]
fn sorting_a_local_buffer_permutes_its_derivatives() {
    same_as_loop(
        sorted_statistics,
        sorted_statistics_grad,
        sorted_statistics_adjoint,
        sorted_statistics_loop_grad,
        &[
            &[0.7, -1.3, 0.2, 1.7, 0.45],
            &[2.5, 0.1, -0.6, 0.9, -2.2, 1.3],
            &[-0.4, 0.35, 1.1, -0.9],
        ],
    );
}

/// Sorting inside a loop nest whose reverse is recorded: the order is
/// found from the buffer as the step left it.
#[differentiable(hessian)]
fn sorted_each_step(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let mut total = 0.0;
    for step in 0..3 {
        for i in 0..v.len() {
            v[i] = (v[i] * 1.3 + step as f64 * 0.1).sin();
        }
        v.sort_by(f64::total_cmp);
        total += v[0] * (step as f64 + 1.0) + v[v.len() - 1] * v[1];
    }
    total
}

#[test]
fn sorting_inside_a_recorded_nest() {
    for x in [&[0.7, -1.3, 0.2, 1.7][..], &[1.5, 0.25, -0.4, -1.1, 0.6]] {
        let (v, g) = sorted_each_step_grad(x);
        assert_eq!(v, sorted_each_step(x));
        assert_gradient(sorted_each_step, x, &g);
        let (hv, hg, h) = sorted_each_step_hessian(x);
        assert_eq!(hv, v);
        assert_eq!(hg, g);
        autograd::check::hessian(|p| sorted_each_step_grad(p).1, x, &h).assert_ok(1e-6);
    }
}

/// `reverse` of a local buffer and of a mutable subslice of one: the swaps
/// it stands for.
#[differentiable]
fn reversed_parts(x: &[f64]) -> f64 {
    let mut v: Vec<f64> = x.iter().map(|a| a * a + a).collect();
    v.reverse();
    let tail = &mut v[1..];
    tail.reverse();
    let mut s = 0.0;
    for (k, a) in v.iter().enumerate() {
        s += (k as f64 + 0.5) * a;
    }
    s
}

#[differentiable]
fn reversed_parts_loop(x: &[f64]) -> f64 {
    let n = x.len();
    let mut v = vec![0.0; n];
    for i in 0..n {
        v[i] = x[i] * x[i] + x[i];
    }
    for k in 0..n / 2 {
        v.swap(k, n - 1 - k);
    }
    let m = n - 1;
    for k in 0..m / 2 {
        v.swap(1 + k, 1 + m - 1 - k);
    }
    let mut s = 0.0;
    for k in 0..n {
        s += (k as f64 + 0.5) * v[k];
    }
    s
}

#[test]
fn reverse_is_its_swaps() {
    same_as_loop(
        reversed_parts,
        reversed_parts_grad,
        reversed_parts_adjoint,
        reversed_parts_loop_grad,
        &[&[0.7, -1.3, 0.2, 1.7, 0.45], &[2.5, 0.1, -0.6, 0.9]],
    );
}

// ----- `find` (`Lowerer::reduce_unwrapped`) ----------------------------------------

/// `find(p)` unwrapped at once: the first element that passes `p` (the loop
/// stopping there), or `unwrap_or`'s value; its closure given a reference
/// to the item as `Iterator` gives it (`|(i, v)| *i > 0`). Refused until
/// 2026-11-29.
#[differentiable]
fn found(x: &[f64]) -> f64 {
    let first_big = x.iter().copied().find(|v| *v > 0.5).unwrap_or(0.0);
    let negative = x.iter().find(|v| **v < 0.0).copied().unwrap_or(1.0);
    let square = x.iter().map(|v| v * v).find(|q| *q > 1.0).unwrap();
    let (i, w) = x
        .iter()
        .copied()
        .enumerate()
        .find(|(i, v)| *i > 0 && *v > 0.1)
        .unwrap_or((0, 0.0));
    let late = x
        .iter()
        .copied()
        .filter(|v| v.abs() < 2.0)
        .enumerate()
        .find(|&(j, _)| j == 2)
        .map(|(_, v)| v)
        .unwrap();
    let ranged: f64 = (1..)
        .zip(x)
        .filter(|(k, v)| *k % 2 == 1 && **v > -1.0)
        .map(|(k, v)| k as f64 * v)
        .sum();
    first_big * negative + square + w * i as f64 + late + ranged
}

#[differentiable]
fn found_loop(x: &[f64]) -> f64 {
    let mut first_big = 0.0;
    for i in 0..x.len() {
        if x[i] > 0.5 {
            first_big = x[i];
            break;
        }
    }
    let mut negative = 1.0;
    for i in 0..x.len() {
        if x[i] < 0.0 {
            negative = x[i];
            break;
        }
    }
    let mut square = 0.0;
    let mut any = false;
    for i in 0..x.len() {
        let q = x[i] * x[i];
        if q > 1.0 {
            square = q;
            any = true;
            break;
        }
    }
    assert!(any);
    let (mut i, mut w) = (0, 0.0);
    for k in 0..x.len() {
        if k > 0 && x[k] > 0.1 {
            i = k;
            w = x[k];
            break;
        }
    }
    let mut late = 0.0;
    let mut j = 0;
    for k in 0..x.len() {
        if x[k].abs() < 2.0 {
            if j == 2 {
                late = x[k];
                break;
            }
            j += 1;
        }
    }
    let mut ranged = -0.0;
    for i in 0..x.len() {
        let k = i + 1;
        if k % 2 == 1 && x[i] > -1.0 {
            ranged += k as f64 * x[i];
        }
    }
    first_big * negative + square + w * i as f64 + late + ranged
}

#[test]
fn find_is_the_first_element_that_passes() {
    same_as_loop(
        found,
        found_grad,
        found_adjoint,
        found_loop_grad,
        &[
            &[0.3, -1.3, 0.2, 1.7, 0.45],
            &[2.5, 0.15, -0.6, 0.9, -2.2, 1.3],
            &[-0.4, 0.35, 1.1, -0.9, 0.05],
        ],
    );
}

/// `find(p).map(g).unwrap_or(v)` and `find(p).map_or(v, g)`: `g` of the
/// first element that passes `p`, else `v` (refused until 2026-11-29); and
/// the indices a `filter` / `find` closure reads through a reference after
/// `rev`, `skip`, `step_by` or a `map` to a tuple (`*i` did not compile).
#[differentiable]
fn found_mapped(x: &[f64]) -> f64 {
    let big = x
        .iter()
        .find(|v| **v > 1.0)
        .map(|v| v * 2.0)
        .unwrap_or(x[0] * 3.0);
    let negative = x
        .iter()
        .copied()
        .find(|v| *v < 0.0)
        .map_or(-1.0, |v| v.exp());
    let weighted = x
        .iter()
        .rev()
        .enumerate()
        .find(|(i, v)| *i >= 1 && **v > 0.0)
        .map(|(i, v)| v * i as f64)
        .unwrap_or(0.0);
    let after: f64 = x
        .iter()
        .enumerate()
        .rev()
        .filter(|(i, _)| *i != 1)
        .map(|(i, v)| v * (i as f64 + 1.0))
        .sum();
    let doubled: f64 = x
        .iter()
        .enumerate()
        .map(|(i, v)| (i, v * 2.0))
        .filter(|(i, _)| *i != 2)
        .map(|(_, v)| v * v)
        .sum();
    let j = (0..x.len())
        .find(|j| x[*j] < 0.0)
        .map(|j| j + 1)
        .unwrap_or(0);
    big + negative + weighted + after + doubled + x[j % x.len()]
}

#[differentiable]
fn found_mapped_loop(x: &[f64]) -> f64 {
    let mut big = x[0] * 3.0;
    for i in 0..x.len() {
        if x[i] > 1.0 {
            big = x[i] * 2.0;
            break;
        }
    }
    let mut negative = -1.0;
    for i in 0..x.len() {
        if x[i] < 0.0 {
            negative = x[i].exp();
            break;
        }
    }
    let mut weighted = 0.0;
    for i in 0..x.len() {
        let v = x[x.len() - 1 - i];
        if i >= 1 && v > 0.0 {
            weighted = v * i as f64;
            break;
        }
    }
    let mut after = 0.0;
    for k in 0..x.len() {
        let i = x.len() - 1 - k;
        if i != 1 {
            after += x[i] * (i as f64 + 1.0);
        }
    }
    let mut doubled = 0.0;
    for i in 0..x.len() {
        let v = x[i] * 2.0;
        if i != 2 {
            doubled += v * v;
        }
    }
    let mut j = 0;
    for k in 0..x.len() {
        if x[k] < 0.0 {
            j = k + 1;
            break;
        }
    }
    big + negative + weighted + after + doubled + x[j % x.len()]
}

#[test]
fn find_mapped_is_g_of_the_first_element_that_passes() {
    same_as_loop(
        found_mapped,
        found_mapped_grad,
        found_mapped_adjoint,
        found_mapped_loop_grad,
        &[
            &[0.3, -1.3, 0.2, 1.7, 0.45],
            &[2.5, 0.15, -0.6, 0.9, -2.2, 1.3],
            &[0.4, 0.35, 0.1, 0.9, 0.05],
            &[-0.4],
        ],
    );
}

/// `max_by` / `min_by` / `reduce` / `find` then `.map(g).unwrap_or(v)` or
/// `.map_or(v, g)`, also of tuples destructured at once, and `find(p)
/// .is_some()` / `.is_none()` (refused until 2026-11-29).
#[differentiable]
fn reduced_mapped(x: &[f64]) -> f64 {
    let top = x
        .iter()
        .copied()
        .max_by(|a, b| a.total_cmp(b))
        .map_or(0.5, |v| v * 2.0);
    let (i, w) = x
        .iter()
        .enumerate()
        .min_by(|a, b| a.1.total_cmp(b.1))
        .map(|(i, v)| (i, v * 3.0))
        .unwrap_or((0, 0.0));
    let (j, u) = x
        .iter()
        .enumerate()
        .find(|(_, v)| **v > 1.0)
        .map_or((0, 1.0), |(i, v)| (i + 1, v * 3.0));
    let big = x
        .iter()
        .filter(|v| **v > 0.32)
        .copied()
        .reduce(|a, b| a + b)
        .map(|s| s.sqrt())
        .unwrap_or(x[0]);
    let mut s = top + w * i as f64 + u * j as f64 + big;
    if x.iter().find(|v| **v < -1.0).is_some() {
        s *= x[0];
    }
    if x.iter()
        .enumerate()
        .find(|(i, v)| *i > 2 && **v < 0.0)
        .is_none()
    {
        s += x[1];
    }
    s
}

#[differentiable]
fn reduced_mapped_loop(x: &[f64]) -> f64 {
    let mut top = x[0];
    for k in 1..x.len() {
        if x[k] >= top {
            top = x[k];
        }
    }
    top *= 2.0;
    let (mut i, mut w) = (0, x[0]);
    for k in 1..x.len() {
        if x[k] < w {
            i = k;
            w = x[k];
        }
    }
    w *= 3.0;
    let (mut j, mut u) = (0, 1.0);
    for k in 0..x.len() {
        if x[k] > 1.0 {
            j = k + 1;
            u = x[k] * 3.0;
            break;
        }
    }
    let mut big = x[0];
    let mut sum = 0.0;
    let mut any = false;
    for k in 0..x.len() {
        if x[k] > 0.32 {
            if any {
                sum += x[k];
            } else {
                sum = x[k];
                any = true;
            }
        }
    }
    if any {
        big = sum.sqrt();
    }
    let mut s = top + w * i as f64 + u * j as f64 + big;
    let mut low = false;
    for k in 0..x.len() {
        if x[k] < -1.0 {
            low = true;
            break;
        }
    }
    if low {
        s *= x[0];
    }
    let mut late = false;
    for k in 0..x.len() {
        if k > 2 && x[k] < 0.0 {
            late = true;
            break;
        }
    }
    if !late {
        s += x[1];
    }
    s
}

#[test]
fn options_of_reducers_are_mapped_and_tested() {
    same_as_loop(
        reduced_mapped,
        reduced_mapped_grad,
        reduced_mapped_adjoint,
        reduced_mapped_loop_grad,
        &[
            &[0.3, -1.3, 0.2, 1.7, 0.45],
            &[2.5, 0.15, -0.6, 0.9, -2.2, 1.3],
            &[0.4, 0.35, 0.1, 0.9, 0.05],
            &[-0.4, 0.6],
        ],
    );
}

/// `next()` and `last()` of a chain unwrapped at once, as `find` and
/// `reduce` are: the first element (after a `filter`, the first that
/// passes; of an unbounded range, the loop stopping there) and the last
/// (unfiltered, the element at `len - 1`, no loop). Refused until
/// 2026-11-29. (Written as users write them, which clippy would shorten.)
#[allow(
    clippy::double_ended_iterator_last,
    clippy::filter_next,
    clippy::iter_skip_next
)]
#[differentiable]
fn first_and_last(x: &[f64]) -> f64 {
    let a = x
        .iter()
        .filter(|v| **v > 0.0)
        .last()
        .copied()
        .unwrap_or(-1.0);
    let (i, v) = x
        .iter()
        .enumerate()
        .filter(|(_, v)| **v < 1.0)
        .last()
        .unwrap();
    let b = x.iter().map(|v| v * v).next().unwrap();
    let c = (1..)
        .map(|k| x[0] / k as f64)
        .filter(|t| *t < 0.1)
        .next()
        .unwrap();
    let d = x.iter().skip(10).last().map_or(2.0, |v| v * 3.0);
    let e = x
        .iter()
        .rev()
        .skip(1)
        .next()
        .map(|v| v.exp())
        .unwrap_or(0.0);
    let (j, w) = x.iter().enumerate().last().unwrap();
    let z = x
        .iter()
        .copied()
        .filter(|v| *v > 100.0)
        .next()
        .unwrap_or(x[1]);
    a * (i as f64 + 1.0) * v + b + c + d + e + j as f64 * w + z
}

#[differentiable]
fn first_and_last_loop(x: &[f64]) -> f64 {
    let mut a = -1.0;
    for k in 0..x.len() {
        if x[k] > 0.0 {
            a = x[k];
        }
    }
    let (mut i, mut v) = (0, 0.0);
    let mut any = false;
    for k in 0..x.len() {
        if x[k] < 1.0 {
            i = k;
            v = x[k];
            any = true;
        }
    }
    assert!(any);
    let b = x[0] * x[0];
    let mut k = 1;
    let c = loop {
        let t = x[0] / k as f64;
        if t < 0.1 {
            break t;
        }
        k += 1;
    };
    let mut d = 2.0;
    if x.len() > 10 {
        d = x[x.len() - 1] * 3.0;
    }
    let mut e = 0.0;
    if x.len() > 1 {
        e = x[x.len() - 2].exp();
    }
    let (j, w) = (x.len() - 1, x[x.len() - 1]);
    let mut z = x[1];
    for k in 0..x.len() {
        if x[k] > 100.0 {
            z = x[k];
            break;
        }
    }
    a * (i as f64 + 1.0) * v + b + c + d + e + j as f64 * w + z
}

#[test]
fn next_and_last_are_the_first_and_the_last_element() {
    same_as_loop(
        first_and_last,
        first_and_last_grad,
        first_and_last_adjoint,
        first_and_last_loop_grad,
        &[
            &[0.35, -1.3, 0.2, 1.7, 0.45],
            &[2.45, 0.15, -0.6, 0.9, -2.2, 1.3],
            &[-0.4, 0.6],
        ],
    );
}

/// `if let Some(v) = ..` and `match .. { Some(v) => .., None => .. }` of
/// what a chain's `find`, `max_by`, `reduce`, `last` returns: the loop,
/// with a flag of whether it found an element, then `if found { let v =
/// ..; .. }` (refused until 2026-11-29; a branch may `continue`).
#[differentiable]
fn if_let_found(x: &[f64]) -> f64 {
    let mut s = 0.0;
    if let Some((i, v)) = x.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)) {
        s += v * (i as f64 + 1.0);
    }
    if let Some(m) = x.iter().copied().filter(|v| *v < 0.0).reduce(f64::max) {
        s += m * m;
    } else if x[0] > 0.0 {
        s -= x[0];
    } else {
        s += 1.0;
    }
    let t = match x.iter().find(|v| **v > 1.0) {
        Some(v) => v.sin(),
        None => x[1],
    };
    for k in 0..2 {
        if let Some(&l) = x.iter().skip(k).last() {
            s += l * k as f64;
            continue;
        }
        s += 100.0;
    }
    let u = if let Some(v) = x.iter().find(|v| v.abs() > 2.0) {
        v * 3.0
    } else {
        0.5
    };
    s + t + u
}

#[differentiable]
fn if_let_found_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let (mut i, mut v) = (0, x[0]);
    for k in 1..x.len() {
        if x[k] >= v {
            i = k;
            v = x[k];
        }
    }
    s += v * (i as f64 + 1.0);
    let mut m = 0.0;
    let mut any = false;
    for k in 0..x.len() {
        if x[k] < 0.0 {
            if any {
                m = f64::max(m, x[k]);
            } else {
                m = x[k];
                any = true;
            }
        }
    }
    if any {
        s += m * m;
    } else if x[0] > 0.0 {
        s -= x[0];
    } else {
        s += 1.0;
    }
    let mut t = x[1];
    for k in 0..x.len() {
        if x[k] > 1.0 {
            t = x[k].sin();
            break;
        }
    }
    for k in 0..2 {
        if k < x.len() {
            s += x[x.len() - 1] * k as f64;
            continue;
        }
        s += 100.0;
    }
    let mut u = 0.5;
    for k in 0..x.len() {
        if x[k].abs() > 2.0 {
            u = x[k] * 3.0;
            break;
        }
    }
    s + t + u
}

#[test]
fn if_let_of_a_reducer_tests_whether_it_found_one() {
    same_as_loop(
        if_let_found,
        if_let_found_grad,
        if_let_found_adjoint,
        if_let_found_loop_grad,
        &[
            &[0.55, 1.5, -2.2, 3.0, -0.25],
            &[0.55, 0.25],
            &[-0.55, 0.25, 0.4],
        ],
    );
}

/// `std::mem::swap(&mut a, &mut b)` of floats and of whole buffers (the
/// time-stepping loop's `cur` and `next`): the tuple assignment `(a, b) =
/// (b, a)` (refused until 2026-11-29).
#[differentiable]
fn swapped(x: &[f64]) -> f64 {
    let n = x.len();
    let mut cur = x.to_vec();
    let mut next = vec![0.0; n];
    for _ in 0..3 {
        for i in 1..n - 1 {
            next[i] = cur[i] + 0.1 * (cur[i - 1] - 2.0 * cur[i] + cur[i + 1]);
        }
        next[0] = cur[0];
        next[n - 1] = cur[n - 1];
        std::mem::swap(&mut cur, &mut next);
    }
    let (mut a, mut b) = (cur[0], cur[1]);
    if a < b {
        std::mem::swap(&mut a, &mut b);
    }
    cur.iter().map(|v| v * v).sum::<f64>() + a * 2.0 + b
}

#[differentiable]
fn swapped_loop(x: &[f64]) -> f64 {
    let n = x.len();
    let mut cur = x.to_vec();
    let mut next = vec![0.0; n];
    for _ in 0..3 {
        for i in 1..n - 1 {
            next[i] = cur[i] + 0.1 * (cur[i - 1] - 2.0 * cur[i] + cur[i + 1]);
        }
        next[0] = cur[0];
        next[n - 1] = cur[n - 1];
        for i in 0..n {
            cur[i] = next[i];
        }
    }
    let (a, b) = if cur[0] < cur[1] {
        (cur[1], cur[0])
    } else {
        (cur[0], cur[1])
    };
    let mut s = -0.0;
    for i in 0..n {
        s += cur[i] * cur[i];
    }
    s + a * 2.0 + b
}

#[test]
fn mem_swap_is_a_tuple_assignment() {
    same_as_loop(
        swapped,
        swapped_grad,
        swapped_adjoint,
        swapped_loop_grad,
        &[&[0.55, 1.5, -2.2, 3.0, -0.25], &[1.2, 0.25, 0.4]],
    );
}

/// `filter_map` whose closure ends in `if c { Some(e) } else { None }`
/// (or the other way round, `c.then(|| e)`, `c.then_some(e)`): a filter by
/// `c` and a map by `e`, both given the element by value (refused until
/// 2026-11-29). (Written as users write them, which clippy would shorten.)
#[allow(
    clippy::filter_map_bool_then,
    clippy::unnecessary_lazy_evaluations,
    clippy::double_ended_iterator_last
)]
#[differentiable]
fn filter_mapped(x: &[f64], y: &[f64]) -> f64 {
    let a = x
        .iter()
        .filter_map(|v| if *v > 0.0 { Some(v.ln()) } else { None })
        .sum::<f64>();
    let b: f64 = x
        .iter()
        .enumerate()
        .filter_map(|(i, &v)| (i % 2 == 0).then(|| v * i as f64))
        .sum();
    let c: f64 = x
        .iter()
        .copied()
        .filter_map(|v| {
            let t = v * 2.0;
            if t < 0.0 {
                None
            } else {
                Some(t.sqrt())
            }
        })
        .map(|s| s + 1.0)
        .product();
    let d = x
        .iter()
        .filter_map(|v| (v.abs() > 1.0).then_some(v * v))
        .last()
        .unwrap_or(0.0);
    let mut e = 0.0;
    for (k, w) in x
        .iter()
        .zip(y)
        .filter_map(|(a, b)| if *a < 1.0 { Some(a.exp() * b) } else { None })
        .enumerate()
    {
        e += w * k as f64;
    }
    a + b + c + d + e
}

#[differentiable]
fn filter_mapped_loop(x: &[f64], y: &[f64]) -> f64 {
    let mut a = -0.0;
    for i in 0..x.len() {
        if x[i] > 0.0 {
            a += x[i].ln();
        }
    }
    let mut b = -0.0;
    for i in 0..x.len() {
        if i % 2 == 0 {
            b += x[i] * i as f64;
        }
    }
    let mut c = 1.0;
    for i in 0..x.len() {
        let t = x[i] * 2.0;
        if t >= 0.0 {
            c *= t.sqrt() + 1.0;
        }
    }
    let mut d = 0.0;
    for i in 0..x.len() {
        if x[i].abs() > 1.0 {
            d = x[i] * x[i];
        }
    }
    let mut e = 0.0;
    let mut k = 0;
    for i in 0..x.len().min(y.len()) {
        if x[i] < 1.0 {
            e += x[i].exp() * y[i] * k as f64;
            k += 1;
        }
    }
    a + b + c + d + e
}

fn filter_mapped_x(x: &[f64]) -> f64 {
    filter_mapped(x, &Y5)
}

fn filter_mapped_x_grad(x: &[f64]) -> (f64, Vec<f64>) {
    let (value, (d_x, _)) = filter_mapped_grad(x, &Y5);
    (value, d_x)
}

fn filter_mapped_x_adjoint(x: &[f64], d_out: f64, d_x: &mut [f64]) -> f64 {
    let mut d_y = [0.0; 5];
    filter_mapped_adjoint(x, &Y5, d_out, d_x, &mut d_y)
}

fn filter_mapped_loop_x_grad(x: &[f64]) -> (f64, Vec<f64>) {
    let (value, (d_x, _)) = filter_mapped_loop_grad(x, &Y5);
    (value, d_x)
}

const Y5: [f64; 5] = [0.4, -1.1, 0.7, 2.0, -0.3];

#[test]
fn filter_map_is_a_filter_and_a_map() {
    same_as_loop(
        filter_mapped_x,
        filter_mapped_x_grad,
        filter_mapped_x_adjoint,
        filter_mapped_loop_x_grad,
        &[&[0.55, 1.5, -2.2, 0.3, 0.9], &[-0.4, 0.35, 1.1, -0.9, 0.05]],
    );
}

/// `flat_map` (then `map`, `filter`, `filter_map`) consumed by `sum`,
/// `product`, `fold`, `count`, `any`, or a `for` loop: the nested loops it
/// stands for, the elements taken in `Iterator`'s order (a `break` in the
/// `for` body ends both loops). Refused until 2026-11-29.
#[differentiable]
fn flat_mapped(x: &[f64]) -> f64 {
    let n = x.len();
    let a: f64 = (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (x[i] - x[j]).powi(2)))
        .sum();
    let b = x
        .iter()
        .enumerate()
        .flat_map(|(i, p)| x.iter().skip(i + 1).map(move |q| p * q))
        .fold(0.0, |s, v| s + v.sin());
    let c = (0..n)
        .flat_map(|i| x.iter().take(i))
        .filter(|v| **v > 0.0)
        .count() as f64;
    let d = (0..n)
        .flat_map(|i| (0..i).map(move |j| x[i] * x[j]))
        .product::<f64>();
    let mut e = 0.0;
    for v in x.chunks(2).flat_map(|c| c.iter().map(|t| t * 2.0)) {
        if v > 5.0 {
            break;
        }
        e += v * v;
    }
    let any = (0..n)
        .flat_map(|i| (0..i).map(move |j| x[i] + x[j]))
        .any(|s| s > 4.0);
    a + b + c + d + e + if any { x[0] } else { 0.0 }
}

#[differentiable]
fn flat_mapped_loop(x: &[f64]) -> f64 {
    let n = x.len();
    let mut a = -0.0;
    for i in 0..n {
        for j in i + 1..n {
            a += (x[i] - x[j]).powi(2);
        }
    }
    let mut b = 0.0;
    for i in 0..n {
        for k in i + 1..n {
            b += (x[i] * x[k]).sin();
        }
    }
    let mut c = 0;
    for i in 0..n {
        for k in 0..i {
            if x[k] > 0.0 {
                c += 1;
            }
        }
    }
    let c = c as f64;
    let mut d = 1.0;
    for i in 0..n {
        for j in 0..i {
            d *= x[i] * x[j];
        }
    }
    let mut e = 0.0;
    let mut stop = false;
    for start in (0..n).step_by(2) {
        for k in start..(start + 2).min(n) {
            let v = x[k] * 2.0;
            if v > 5.0 {
                stop = true;
                break;
            }
            e += v * v;
        }
        if stop {
            break;
        }
    }
    let mut any = false;
    for i in 0..n {
        for j in 0..i {
            if x[i] + x[j] > 4.0 {
                any = true;
            }
        }
    }
    a + b + c + d + e + if any { x[0] } else { 0.0 }
}

#[test]
fn flat_map_is_the_nested_loops() {
    same_as_loop(
        flat_mapped,
        flat_mapped_grad,
        flat_mapped_adjoint,
        flat_mapped_loop_grad,
        &[
            &[0.55, 1.5, -2.2, 3.0, 0.25],
            &[0.55, 1.5, -0.2, 0.7],
            &[2.6, -0.3, 0.9],
        ],
    );
}

/// `find_map(f)` is `filter_map(f).next()`: the first element whose
/// closure gives `Some`, unwrapped, mapped or tested (refused until
/// 2026-11-29).
#[allow(clippy::unnecessary_lazy_evaluations, clippy::unnecessary_find_map)]
#[differentiable]
fn found_by_map(x: &[f64]) -> f64 {
    let a = x
        .iter()
        .find_map(|v| if *v > 1.0 { Some(v.ln()) } else { None })
        .unwrap_or(0.0);
    let b = x
        .iter()
        .enumerate()
        .find_map(|(i, &v)| (v < 0.0).then(|| v * i as f64))
        .map_or(1.0, |t| t * 2.0);
    let c = if let Some(w) = x
        .iter()
        .copied()
        .find_map(|v| if v > 100.0 { Some(v) } else { None })
    {
        w
    } else {
        x[0]
    };
    // (statements before the `Some`)
    let d: f64 = x
        .iter()
        .filter_map(|v| {
            if *v > 0.0 {
                let t = v * 2.0;
                Some(t.sqrt())
            } else {
                None
            }
        })
        .sum();
    a + b + c + d
}

#[differentiable]
fn found_by_map_loop(x: &[f64]) -> f64 {
    let mut a = 0.0;
    for i in 0..x.len() {
        if x[i] > 1.0 {
            a = x[i].ln();
            break;
        }
    }
    let mut b = 1.0;
    for i in 0..x.len() {
        if x[i] < 0.0 {
            b = x[i] * i as f64 * 2.0;
            break;
        }
    }
    let mut c = x[0];
    for i in 0..x.len() {
        if x[i] > 100.0 {
            c = x[i];
            break;
        }
    }
    let mut d = -0.0;
    for i in 0..x.len() {
        if x[i] > 0.0 {
            d += (x[i] * 2.0).sqrt();
        }
    }
    a + b + c + d
}

#[test]
fn find_map_is_filter_map_then_next() {
    same_as_loop(
        found_by_map,
        found_by_map_grad,
        found_by_map_adjoint,
        found_by_map_loop_grad,
        &[
            &[0.55, 1.5, -2.2, 3.0, 0.25],
            &[0.55, 0.5],
            &[-0.3, 2.5, 0.7],
        ],
    );
}

// ----- `chain` --------------------------------------------------------------------

/// `a.chain(b)`: element `k` is `a`'s while `k` is below its length, else
/// `b`'s at `k - n` (refused until 2026-11-29); in `for`, consumers, after
/// `map`s, before `enumerate`, `rev`, `skip`, of ranges and of zips.
#[differentiable]
fn chained(x: &[f64], y: &[f64]) -> f64 {
    let s: f64 = x.iter().chain(y.iter()).map(|v| v * v).sum();
    let mut t = 0.0;
    for (i, v) in x.iter().chain(y).enumerate() {
        t += (i as f64 + 1.0) * v;
    }
    let u: f64 = x
        .iter()
        .map(|v| v.sin())
        .chain(y.iter().map(|v| v.cos()))
        .rev()
        .skip(1)
        .fold(0.0, |a, b| a * 0.5 + b);
    let c = (0..2)
        .chain(3..5)
        .map(|k| x[k % x.len()] * k as f64)
        .sum::<f64>();
    let z: f64 = x
        .iter()
        .zip(y)
        .chain(y.iter().zip(x))
        .map(|(a, b)| a - b * b)
        .sum();
    s + t + u + c + z
}

#[differentiable]
fn chained_loop(x: &[f64], y: &[f64]) -> f64 {
    let (n, m) = (x.len(), y.len());
    let mut s = -0.0;
    for i in 0..n + m {
        let v = if i < n { x[i] } else { y[i - n] };
        s += v * v;
    }
    let mut t = 0.0;
    for i in 0..n + m {
        let v = if i < n { x[i] } else { y[i - n] };
        t += (i as f64 + 1.0) * v;
    }
    let mut u = 0.0;
    for j in 1..n + m {
        let i = n + m - 1 - j;
        let v = if i < n { x[i].sin() } else { y[i - n].cos() };
        u = u * 0.5 + v;
    }
    let mut c = -0.0;
    for k in [0, 1, 3, 4] {
        c += x[k % n] * k as f64;
    }
    let mut z = -0.0;
    let p = n.min(m);
    for i in 0..2 * p {
        let (a, b) = if i < p {
            (x[i], y[i])
        } else {
            (y[i - p], x[i - p])
        };
        z += a - b * b;
    }
    s + t + u + c + z
}

fn chained_flat(v: &[f64]) -> f64 {
    chained(&v[..3], &v[3..])
}

fn chained_flat_grad(v: &[f64]) -> (f64, Vec<f64>) {
    let (value, (mut g, h)) = chained_grad(&v[..3], &v[3..]);
    g.extend(h);
    (value, g)
}

fn chained_flat_loop_grad(v: &[f64]) -> (f64, Vec<f64>) {
    let (value, (mut g, h)) = chained_loop_grad(&v[..3], &v[3..]);
    g.extend(h);
    (value, g)
}

#[test]
fn chain_is_one_loop_after_the_other() {
    for v in [
        &[0.8, -1.3, 0.2, 1.7, 0.4][..],
        &[-0.5, 0.25, 1.5, -2.0, 0.75, 0.3],
    ] {
        let (value, g) = chained_flat_grad(v);
        let (value_loop, g_loop) = chained_flat_loop_grad(v);
        assert_eq!(value, chained_flat(v));
        assert!((value - value_loop).abs() <= 1e-12 * (1.0 + value.abs()));
        common::assert_close(&g, &g_loop, v);
        assert_gradient(chained_flat, v, &g);
    }
}

// ----- `take_while`, `skip_while`, unbounded ranges ---------------------------------

/// `take_while` ends the loop at the first element that fails (also over an
/// unbounded range: a series summed to convergence), `skip_while` skips
/// until the first that fails; a `find` over an unbounded range stops at
/// its element. Refused until 2026-11-29.
#[differentiable]
fn while_taken(x: &[f64]) -> f64 {
    let e: f64 = (0..)
        .map(|k: i32| x[0].powi(k) / (1..=k).map(|j| j as f64).product::<f64>())
        .take_while(|t| t.abs() > 1e-15)
        .sum();
    let pre: f64 = x.iter().take_while(|v| **v < 1.0).map(|v| v * v).sum();
    let post: f64 = x.iter().skip_while(|v| **v < 0.5).map(|v| v.sin()).sum();
    let mut t = 0.0;
    for (i, v) in x.iter().copied().skip_while(|v| *v > -1.0).enumerate() {
        t += v * (i + 1) as f64;
    }
    let n = x.iter().take_while(|v| v.abs() < 1.5).count();
    let first = (1..)
        .map(|k| k as f64 * x[1])
        .find(|v| v.abs() > 3.0)
        .unwrap();
    e + pre + post + t + n as f64 + first
}

#[differentiable]
fn while_taken_loop(x: &[f64]) -> f64 {
    let mut e = -0.0;
    let mut k: i32 = 0;
    loop {
        let mut fact = 1.0;
        for j in 1..=k {
            fact *= j as f64;
        }
        let t = x[0].powi(k) / fact;
        if t.abs() <= 1e-15 {
            break;
        }
        e += t;
        k += 1;
    }
    let mut pre = -0.0;
    for i in 0..x.len() {
        if x[i] >= 1.0 {
            break;
        }
        pre += x[i] * x[i];
    }
    let mut post = -0.0;
    let mut skipping = true;
    for i in 0..x.len() {
        if skipping && x[i] < 0.5 {
            continue;
        }
        skipping = false;
        post += x[i].sin();
    }
    let mut t = 0.0;
    let mut skipping = true;
    let mut j = 0;
    for i in 0..x.len() {
        if skipping && x[i] > -1.0 {
            continue;
        }
        skipping = false;
        t += x[i] * (j + 1) as f64;
        j += 1;
    }
    let mut n = 0;
    for i in 0..x.len() {
        if x[i].abs() >= 1.5 {
            break;
        }
        n += 1;
    }
    let mut k = 1;
    let first = loop {
        let v = k as f64 * x[1];
        if v.abs() > 3.0 {
            break v;
        }
        k += 1;
    };
    e + pre + post + t + n as f64 + first
}

#[test]
fn take_while_and_skip_while_are_their_loops() {
    same_as_loop(
        while_taken,
        while_taken_grad,
        while_taken_adjoint,
        while_taken_loop_grad,
        &[
            &[0.8, -1.3, 0.2, 1.7, 0.4],
            &[-0.5, 0.7, 1.2, -1.6, 0.75, 0.3],
            &[1.1, -0.45, -2.5, 0.35],
        ],
    );
}

// ----- closures as call arguments ---------------------------------------------

/// A closure returning a subslice of data (`row`) or of a differentiated
/// parameter (`wrow`), an array (`pair`) or a float (`scale`), called as a
/// helper's argument, or a part of what it returns (`&row(i)[..2]`,
/// `&pair(1)[..2]`): inlined once, as the subslice, local array or value
/// it returns (a subslice was refused: "a subslice cannot be used as a
/// number here").
#[differentiable]
fn dot_of_rows(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[differentiable]
fn weighted_pair(p: [f64; 2], w: &[f64]) -> f64 {
    p[0] * w[0] + p[1] * w[1]
}

#[differentiable(wrt(w))]
fn closures_as_arguments(w: &[f64], xs: &[f64]) -> f64 {
    let d = w.len();
    let row = |k: usize| &xs[k * d..(k + 1) * d];
    let wrow = |k: usize| &w[k..k + 2];
    let pair = |k: usize| [w[k] * 2.0, xs[k]];
    let scale = |k: usize| w[k] * 0.5;
    let mut total = 0.0;
    for i in 0..xs.len() / d {
        total += dot_of_rows(row(i), w).sin() + dot_of_rows(wrow(0), &row(i)[..2]) * scale(1);
        total += weighted_pair(pair(i % d), w) + dot_of_rows(&pair(1)[..2], &w[1..3]);
    }
    total
}

/// The same with each closure's value written at its call.
#[differentiable(wrt(w))]
fn closures_as_arguments_written_out(w: &[f64], xs: &[f64]) -> f64 {
    let d = w.len();
    let mut total = 0.0;
    for i in 0..xs.len() / d {
        total += dot_of_rows(&xs[i * d..(i + 1) * d], w).sin()
            + dot_of_rows(&w[0..2], &xs[i * d..i * d + 2]) * (w[1] * 0.5);
        let p1 = [w[1] * 2.0, xs[1]];
        total += weighted_pair([w[i % d] * 2.0, xs[i % d]], w) + dot_of_rows(&p1[..2], &w[1..3]);
    }
    total
}

#[test]
fn closures_returning_subslices_arrays_and_floats_are_call_arguments() {
    let w = [0.3, -0.7, 1.1];
    let xs: Vec<f64> = (0..12).map(|i| (i as f64 * 0.37).sin()).collect();
    let (value, gradient) = closures_as_arguments_grad(&w, &xs);
    assert_eq!(value, closures_as_arguments(&w, &xs));
    let report = autograd::check::gradient(|w| closures_as_arguments(w, &xs), &w, &gradient);
    assert!(report.is_ok(1e-6), "{report}");
    let (written_value, written) = closures_as_arguments_written_out_grad(&w, &xs);
    assert_eq!(value.to_bits(), written_value.to_bits());
    for (a, b) in gradient.iter().zip(&written) {
        assert_eq!(a.to_bits(), b.to_bits(), "{gradient:?} against {written:?}");
    }
}

/// A closure returning a row of integer data (`idx`), given whole or in
/// part (`&idx(i)[..1]`) to a helper's `&[usize]` parameter: the part's
/// tokens, the closure inlined once.
#[differentiable(wrt(w))]
fn square_at(w: &[f64], k: &[usize]) -> f64 {
    w[k[0]] * w[k[0]]
}

#[differentiable(wrt(w))]
fn through_index_rows(w: &[f64], labels: &[usize]) -> f64 {
    let idx = |k: usize| &labels[k..k + 2];
    let mut total = 0.0;
    for i in 0..labels.len() - 1 {
        total += square_at(w, &idx(i)[..1]) + square_at(w, idx(i));
    }
    total
}

#[test]
fn closures_returning_rows_of_integers_are_call_arguments() {
    let w = [0.5, -1.0, 2.0];
    let labels = [2usize, 0, 1];
    let (value, gradient) = through_index_rows_grad(&w, &labels);
    assert_eq!(value, through_index_rows(&w, &labels));
    // rows [2, 0] and [0, 1], each given in part and whole, squaring the
    // element their first label names: 2 w₂² + 2 w₀²
    assert_eq!(value, 2.0 * 4.0 + 2.0 * 0.25);
    assert_eq!(gradient, vec![2.0, 0.0, 8.0]);
}
