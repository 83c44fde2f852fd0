//! Forward mode: functions with one active `f64` parameter are differentiated
//! by carrying a tangent along with each value (`autograd-macros/src/tangent.rs`).
//!
//! Each case is a module holding the function twice: `f(x)`, which gets
//! forward mode, and `reverse(x, _twin)`, the same body with a second
//! (unused) active parameter, which gets the reverse sweep. Its test checks
//! at several points that
//! - `f_grad` and `f_adjoint` return `f`'s value bit for bit;
//! - the derivative matches central finite differences;
//! - it matches the reverse sweep's to rounding;
//! - `f_adjoint(x, d_out, d_x)` adds exactly `d_out ×` the derivative.
//!
//! `autograd-macros/src/pipeline_tests.rs` checks that each of these bodies
//! is in fact emitted in forward mode.

#![allow(
    clippy::needless_return,
    clippy::assign_op_pattern,
    clippy::needless_range_loop,
    clippy::manual_clamp,
    clippy::eq_op,
    clippy::identity_op,
    clippy::erasing_op,
    clippy::useless_vec
)]

mod common;

use autograd::differentiable;
use common::assert_gradient;

type Grad = fn(f64) -> (f64, f64);
type Adjoint = fn(f64, f64, &mut f64) -> f64;
type ReverseGrad = fn(f64, f64) -> (f64, (f64, f64));

#[track_caller]
fn check(f: fn(f64) -> f64, grad: Grad, adjoint: Adjoint, reverse: ReverseGrad, points: &[f64]) {
    for &x in points {
        let value = f(x);
        let (v, d) = grad(x);
        assert_eq!(v.to_bits(), value.to_bits(), "value at {x}");
        assert!(d.is_finite(), "derivative at {x}: {d}");
        assert_gradient(|v| f(v[0]), &[x], &[d]);

        let (rv, (rd, twin)) = reverse(x, 0.25);
        assert_eq!(rv.to_bits(), value.to_bits(), "reverse value at {x}");
        assert_eq!(twin, 0.0);
        assert!(
            (d - rd).abs() <= 1e-12 * (1.0 + rd.abs()),
            "at {x}: forward {d}, reverse {rd}"
        );

        let mut acc = 0.75;
        let v = adjoint(x, 2.5, &mut acc);
        assert_eq!(v.to_bits(), value.to_bits());
        assert_eq!(acc, 0.75 + 2.5 * d, "adjoint at {x}");
    }
}

/// `case!(name, |x| { body }, [points])`: the module `name` with `f`, its
/// reverse twin, and a test.
macro_rules! case {
    ($name:ident, |$x:ident| $body:block, $points:expr) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            #[differentiable]
            pub fn f($x: f64) -> f64 $body

            #[differentiable]
            pub fn reverse($x: f64, _twin: f64) -> f64 $body

            test!($points);
        }
    };
}

/// The test of a case module that defines `f` and `reverse` itself.
macro_rules! test {
    ($points:expr) => {
        #[test]
        fn forward_matches_finite_differences_and_reverse() {
            check(f, f_grad, f_adjoint, reverse_grad, &$points);
        }
    };
}

// ----- primitives with one varied operand, and with several -----------------
// (Every unary rule goes through forward mode in tests/rules_through_macro.rs.)

case!(
    arithmetic,
    |x| { 2.0 - x + (x + 3.0) - (1.5 - x) * x + -x * 4.0 },
    [-2.0, -0.3, 0.0, 0.7, 3.5]
);
case!(
    division,
    |x| { (x + 1.0) / (x * x + 2.0) + 3.0 / x - x / 4.0 + x / x },
    [-2.0, -0.3, 0.7, 3.5]
);
case!(
    powf,
    |x| { x.powf(1.7) + 1.3_f64.powf(x) + x.powf(0.5 * x) + f64::powf(x, -0.5) },
    [0.3, 1.0, 2.5]
);
case!(
    log,
    |x| { x.log(3.0) + 2.5_f64.log(x + 1.5) + x.log(x + 2.0) },
    [0.3, 1.7, 4.0]
);
case!(
    atan2,
    |x| { x.atan2(0.7) + f64::atan2(0.7, x) + (x * x).atan2(x + 0.1) },
    [-2.0, -0.3, 0.4, 3.0]
);
case!(
    hypot,
    |x| { x.hypot(0.7) + f64::hypot(1.2, x) + x.hypot(x * x) },
    [-2.0, -0.3, 0.4, 3.0]
);
case!(
    max_min,
    |x| { x.max(0.3) + f64::min(0.3, x * 2.0) + x.max(x * x) + (x - 1.0).min(x * 0.5) },
    [-2.0, -0.3, 0.4, 3.0]
);
case!(
    clamp,
    |x| { x.clamp(-0.5, 0.5) + 0.1_f64.clamp(x, x + 1.0) + f64::clamp(x * x, x - 5.0, 2.0) },
    [-2.0, -0.3, 0.4, 3.0]
);
case!(
    mul_add,
    |x| { x.mul_add(2.0, 0.5) + 1.5_f64.mul_add(x, x * x) + x.mul_add(x, x) },
    [-2.0, -0.3, 0.4, 3.0]
);
case!(
    powi,
    |x| { x.powi(3) - 2.0 * x.powi(-2) + (x + 1.0).powi(0) + f64::powi(x, 1) },
    [-2.0, -0.3, 0.4, 3.0]
);
case!(
    unary_chain,
    |x| { (x.sin() * x.exp()).ln_1p() + x.tanh().cosh() * x.to_degrees().to_radians() },
    [-0.3, 0.4, 1.2]
);
case!(
    steps_and_kinks,
    |x| { x.floor() * x + x.signum() * x.abs() + x.round() + (x * 3.0).trunc() * x },
    [-2.4, -0.3, 0.4, 3.2]
);

// ----- control flow ----------------------------------------------------------
// Some cases below are written out rather than passed through `case!`: they
// were written when a body from a `macro_rules!` expansion could not read a
// variable assigned in a loop or a branch (fixed; `tests/macro_generated.rs`).

case!(
    newton,
    |x| {
        let mut y = x;
        for _ in 0..30 {
            y = 0.5 * (y + x / y);
        }
        y
    },
    [0.5, 2.0, 9.0]
);
case!(
    loop_with_overwrites,
    |x| {
        let mut y = x;
        let mut z = 1.0;
        for i in 0..5 {
            let old = y;
            y = y * (x + i as f64).sin() + 0.1 * y * y;
            z *= old + 2.0;
        }
        y + z
    },
    [-1.3, 0.2, 0.9]
);
mod while_loop {
    use super::*;

    #[differentiable]
    pub fn f(x: f64) -> f64 {
        let mut y = x;
        let mut n = 0;
        while y < 50.0 && n < 100 {
            y = y * 1.3 + x;
            n += 1;
        }
        y * 2.0
    }

    #[differentiable]
    pub fn reverse(x: f64, _twin: f64) -> f64 {
        let mut y = x;
        let mut n = 0;
        while y < 50.0 && n < 100 {
            y = y * 1.3 + x;
            n += 1;
        }
        y * 2.0
    }

    test!([0.55, 1.7, 3.1]);
}
case!(
    loop_with_break,
    |x| {
        let mut y = x;
        let mut k = 0;
        loop {
            k += 1;
            y = y * 0.9 + x.cos();
            if k >= 10 || y > 3.0 {
                break;
            }
            y += 0.05 * x * k as f64;
        }
        y * y
    },
    [-1.1, 0.3, 2.0]
);
mod branches {
    use super::*;

    #[differentiable]
    pub fn f(x: f64) -> f64 {
        let mut z = x * x;
        if x > 1.0 {
            z = z * x;
        } else if x < -1.0 {
            z = z.sin() + x;
        } else {
            z = z - x;
        }
        let w = if z > 0.5 { z.sqrt() } else { z * 3.0 };
        w + z
    }

    #[differentiable]
    pub fn reverse(x: f64, _twin: f64) -> f64 {
        let mut z = x * x;
        if x > 1.0 {
            z = z * x;
        } else if x < -1.0 {
            z = z.sin() + x;
        } else {
            z = z - x;
        }
        let w = if z > 0.5 { z.sqrt() } else { z * 3.0 };
        w + z
    }

    test!([-2.0, -0.5, 0.3, 0.9, 1.5]);
}
case!(
    continue_in_loop,
    |x| {
        let mut s = 0.0;
        let mut y = x;
        for i in 0..10 {
            y = y * 0.8 + 0.1 * x;
            if i % 3 == 0 {
                continue;
            }
            s += y * (i as f64);
        }
        s + y
    },
    [-1.0, 0.5, 2.0]
);
mod early_returns {
    use super::*;

    #[differentiable]
    pub fn f(x: f64) -> f64 {
        if x < 0.0 {
            return x * x;
        }
        let mut y = x;
        for _ in 0..10 {
            if y > 5.0 {
                return y * 2.0;
            }
            y = y * 1.5 + x;
        }
        y
    }

    #[differentiable]
    pub fn reverse(x: f64, _twin: f64) -> f64 {
        if x < 0.0 {
            return x * x;
        }
        let mut y = x;
        for _ in 0..10 {
            if y > 5.0 {
                return y * 2.0;
            }
            y = y * 1.5 + x;
        }
        y
    }

    test!([-1.0, 0.001, 0.3, 1.3]);
}
case!(
    nested_loops,
    |x| {
        let mut s = 0.0;
        for i in 0..4 {
            let mut y = x;
            for j in 0..3 {
                y = y * x + (i * j) as f64;
            }
            s += y;
        }
        s
    },
    [-1.0, 0.5, 1.2]
);

// ----- local arrays ----------------------------------------------------------

case!(
    array_fill_and_stores,
    |x| {
        let mut a = [0.0; 4];
        for i in 0..4 {
            a[i] = x * (i as f64 + 1.0);
        }
        // A store of a constant into a varied array.
        a[2] = 1.0;
        a[3] += a[0] * a[1];
        let mut s = 0.0;
        for i in 0..4 {
            s += a[i] * a[i];
        }
        s
    },
    [-1.0, 0.5, 1.2]
);
case!(
    array_list_and_copies,
    |x| {
        let a = [x, x * x, 2.0];
        let mut b = a.to_vec();
        b[0] = b[1] + b[2];
        let c = b.to_vec();
        a[0] * b[0] + c[1] * c[2] + a[2]
    },
    [-1.0, 0.5, 1.2]
);
case!(
    vectors,
    |x| {
        let mut v = vec![0.0; 5];
        v[0] = x;
        for i in 1..5 {
            v[i] = v[i - 1] * x + 1.0;
        }
        let w = vec![x, v[4], 3.0];
        let mut u = w.to_vec();
        u[2] *= x;
        v[4] + w[0] * w[1] + u[2]
    },
    [-1.0, 0.5, 1.2]
);
case!(
    array_in_branch,
    |x| {
        let mut a = [1.0, 2.0];
        if x > 0.0 {
            a[0] = x.exp();
        } else {
            a[1] = x * x;
        }
        a[0] * a[1]
    },
    [-1.0, 0.5, 1.2]
);

// ----- calls -----------------------------------------------------------------

/// Two active parameters: its adjoint is a reverse sweep.
#[differentiable]
pub fn cube_plus(a: f64, b: f64) -> f64 {
    a * a * a + a * b
}

/// One active parameter: its adjoint is itself forward mode.
#[differentiable(wrt(a))]
pub fn scaled(a: f64, c: f64) -> f64 {
    (a * c).sin()
}

/// A constant slice parameter.
#[differentiable(wrt(a))]
pub fn weighted(a: f64, w: &[f64]) -> f64 {
    a * w[0] + a * a * w[1]
}

#[differentiable]
pub fn norm2(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * v[i];
    }
    s.sqrt()
}

/// `x^n` by recursion: forward mode calling its own adjoint.
#[differentiable]
pub fn power(x: f64, n: u32) -> f64 {
    if n == 0 {
        1.0
    } else {
        x * power(x, n - 1)
    }
}

case!(
    calls,
    |x| {
        let w = [0.5, -1.5];
        cube_plus(x, x * x)
            + scaled(x, 3.0)
            + cube_plus(x, x)
            + scaled(2.0 * x, 0.5)
            + scaled(1.0, 2.0) * weighted(x, &w)
            + power(x, 3)
    },
    [-1.0, 0.5, 1.2]
);
case!(
    call_with_a_varied_array_uses_the_reverse_sweep,
    |x| {
        let a = [x, 2.0 * x, 1.0];
        norm2(&a) * x
    },
    [-1.0, 0.5, 1.2]
);

#[test]
fn recursion() {
    for &x in &[-1.3, 0.5, 2.0] {
        let (value, d) = power_grad(x, 5);
        assert_eq!(value, power(x, 5));
        assert!((d - 5.0 * x.powi(4)).abs() <= 1e-12 * (1.0 + d.abs()));
    }
}

struct Model {
    scale: f64,
}

impl Model {
    #[differentiable]
    fn unit(&self, x: f64) -> f64 {
        self.scale * x.sin()
    }

    #[differentiable]
    fn twice(&self, x: f64) -> f64 {
        self.unit(x) + Self::helper(self.unit(x * 2.0))
    }

    #[differentiable]
    fn helper(y: f64) -> f64 {
        y * y
    }

    #[differentiable]
    fn twice_reverse(&self, x: f64, _twin: f64) -> f64 {
        self.unit(x) + Self::helper(self.unit(x * 2.0))
    }
}

#[test]
fn method_calls_on_a_constant_receiver() {
    let model = Model { scale: 1.5 };
    for &x in &[0.3, -1.2, 2.0] {
        let (value, d) = model.twice_grad(x);
        assert_eq!(value, model.twice(x));
        assert_gradient(|v| model.twice(v[0]), &[x], &[d]);
        let (_, (rd, _)) = model.twice_reverse_grad(x, 0.0);
        assert!((d - rd).abs() <= 1e-12 * (1.0 + rd.abs()));
    }
}

// ----- one active parameter among several, constant parameters ---------------

#[differentiable(wrt(a))]
fn selected(a: f64, b: f64, w: &[f64], n: usize, flip: bool) -> f64 {
    let mut s = b;
    for i in 0..n {
        s = s * a + w[i] * b;
        if flip {
            s = -s;
        }
    }
    s * b + a
}

#[differentiable(wrt(a, b))]
fn selected_reverse(a: f64, b: f64, w: &[f64], n: usize, flip: bool) -> f64 {
    let mut s = b;
    for i in 0..n {
        s = s * a + w[i] * b;
        if flip {
            s = -s;
        }
    }
    s * b + a
}

#[test]
fn wrt_selects_one_scalar_among_several_floats() {
    let w = [0.5, -1.0, 2.0, 0.25];
    for &(a, b) in &[(0.3, 1.5), (-1.2, 0.7), (2.0, -0.4)] {
        for flip in [false, true] {
            let (value, d_a) = selected_grad(a, b, &w, 4, flip);
            assert_eq!(value, selected(a, b, &w, 4, flip));
            assert_gradient(|v| selected(v[0], b, &w, 4, flip), &[a], &[d_a]);
            let (_, (rd_a, _)) = selected_reverse_grad(a, b, &w, 4, flip);
            assert!((d_a - rd_a).abs() <= 1e-12 * (1.0 + rd_a.abs()));
            let mut acc = 1.0;
            selected_adjoint(a, b, &w, 4, flip, -2.0, &mut acc);
            assert_eq!(acc, 1.0 - 2.0 * d_a);
        }
    }
}

/// The input is not varied into the result: the derivative is 0.
#[differentiable]
fn constant_in_x(x: f64) -> f64 {
    let k = x.floor();
    k * 2.0 + 1.0
}

#[test]
fn a_result_that_does_not_depend_on_the_input() {
    assert_eq!(constant_in_x_grad(1.5), (3.0, 0.0));
    let mut d = 0.5;
    assert_eq!(constant_in_x_adjoint(1.5, 3.0, &mut d), 3.0);
    assert_eq!(d, 0.5);
}
