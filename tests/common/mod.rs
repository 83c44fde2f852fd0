//! Helpers shared by the integration tests.
#![allow(dead_code)]

use autograd::check;
use autograd::tape::{Tape, Var};

/// Central finite difference of `f` along coordinate `i` of `x`
/// (`autograd::check`'s estimate).
pub fn central_difference(f: impl Fn(&[f64]) -> f64, x: &[f64], i: usize) -> f64 {
    check::numeric_gradient(f, x)[i]
}

/// Asserts `gradient` matches central differences of `f` at `x`: every
/// coordinate within `1e-6` relative (`autograd::check::Report`), with the
/// report's table when it does not.
#[track_caller]
pub fn assert_gradient(f: impl Fn(&[f64]) -> f64, x: &[f64], gradient: &[f64]) {
    let report = check::gradient(f, x, gradient);
    assert!(report.is_ok(1e-6), "at {x:?}: {report}");
}

/// Checks, at every point, `grad` against `f`'s value and central finite
/// differences, and that `adjoint` *adds* `d_out` times the same gradient
/// into a buffer that is not zero.
#[track_caller]
pub fn check_gradient_and_adjoint<const N: usize>(
    f: impl Fn(&[f64]) -> f64,
    grad: impl Fn(&[f64]) -> (f64, Vec<f64>),
    adjoint: impl Fn(&[f64], f64, &mut [f64]) -> f64,
    points: &[[f64; N]],
) {
    for x in points {
        let (value, gradient) = grad(x);
        assert_eq!(value, f(x), "value at {x:?}");
        assert_gradient(&f, x, &gradient);
        let mut buffer = vec![0.5; x.len()];
        assert_eq!(adjoint(x, -2.0, &mut buffer), value);
        for (i, (b, g)) in buffer.iter().zip(&gradient).enumerate() {
            assert!(
                (b - (0.5 - 2.0 * g)).abs() <= 1e-12 * (1.0 + g.abs()),
                "adjoint d/dx{i} at {x:?}: buffer {b}, gradient {g}"
            );
        }
    }
}

/// Asserts that two gradients agree to rounding: every entry within
/// `1e-13` relative (absolute below 1), with the point `at` in the message.
/// For twins whose reverse adds the same terms in another order.
pub fn assert_close(a: &[f64], b: &[f64], at: &[f64]) {
    assert_eq!(a.len(), b.len(), "lengths at {at:?}");
    for (k, (p, q)) in a.iter().zip(b).enumerate() {
        assert!(
            (p - q).abs() <= 1e-13 * p.abs().max(q.abs()).max(1.0),
            "entry {k}: {p} against {q} at {at:?}"
        );
    }
}

/// A test `$test` of two functions from one body (`x: &[f64]`): `$rec`
/// as written (its nests recorded), `$rep` with the body inside an `if`
/// (a nest that is not in the function body is replayed). Both are checked
/// against central finite differences at the test file's `POINTS`, their
/// adjoints against pre-filled buffers, and against each other to 1e-12.
#[allow(unused_macros)]
macro_rules! recorded_and_replayed {
    ($test:ident: $rec:ident, $rec_grad:ident, $rec_adjoint:ident;
     $rep:ident, $rep_grad:ident, $rep_adjoint:ident; |$x:ident| $body:block) => {
        #[autograd::differentiable]
        fn $rec($x: &[f64]) -> f64 $body

        #[autograd::differentiable]
        fn $rep($x: &[f64]) -> f64 {
            let always = $x.len() < 1000;
            if always $body else { 0.0 }
        }

        #[test]
        fn $test() {
            $crate::common::check_gradient_and_adjoint($rec, |x| $rec_grad(x), $rec_adjoint, &$crate::POINTS);
            $crate::common::check_gradient_and_adjoint($rep, |x| $rep_grad(x), $rep_adjoint, &$crate::POINTS);
            for x in $crate::POINTS {
                let (a, b) = ($rec_grad(&x), $rep_grad(&x));
                assert_eq!(a.0, b.0, "values at {x:?}");
                for (i, (p, q)) in a.1.iter().zip(&b.1).enumerate() {
                    assert!(
                        (p - q).abs() <= 1e-12 * (1.0 + p.abs()),
                        "d/dx{i} at {x:?}: recorded {p}, replayed {q}"
                    );
                }
            }
        }
    };
}

/// The value and gradient of `f` on a fresh tape, where `f` is the body of
/// a `#[differentiable]` function written on `Var`s: the independent
/// oracle the generated gradients are compared with.
pub fn on_tape(f: impl for<'t> Fn(&'t Tape, &[Var<'t>]) -> Var<'t>, x: &[f64]) -> (f64, Vec<f64>) {
    let tape = Tape::new();
    let vars: Vec<Var> = x.iter().map(|&v| tape.var(v)).collect();
    let y = f(&tape, &vars);
    (y.value(), y.backward().wrt_all(&vars))
}
