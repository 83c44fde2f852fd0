//! The macro saves and recomputes only the values a rule reads
//! (`autograd-macros/src/prim.rs`, `Reads`). This checks those facts against
//! the rules themselves: the rules it treats as reading nothing return the
//! same partials whatever their arguments, and `mul`'s partial for one
//! argument is the other argument, whatever the first and the result are.

use autograd::rules;

const GARBAGE: [f64; 6] = [0.0, -1.5, 3.25, 1e300, -1e-300, f64::NAN];

#[test]
fn linear_rules_read_nothing() {
    for &a in &GARBAGE {
        for &b in &GARBAGE {
            for &y in &GARBAGE {
                assert_eq!(rules::add(a, b, y), (1.0, 1.0));
                assert_eq!(rules::sub(a, b, y), (1.0, -1.0));
                assert_eq!(rules::neg(a, y), -1.0);
                assert_eq!(rules::to_degrees(a, y), rules::to_degrees(0.0, 0.0));
                assert_eq!(rules::to_radians(a, y), rules::to_radians(0.0, 0.0));
            }
        }
    }
}

#[test]
fn mul_reads_only_the_other_argument() {
    for &a in &GARBAGE[..5] {
        for &b in &GARBAGE[..5] {
            for &y in &GARBAGE {
                assert_eq!(rules::mul(a, b, y), (b, a));
            }
        }
    }
}

/// The primitives `autograd-macros/src/prim.rs` marks `singular`: a partial
/// may be infinite or NaN where the value is finite. Forward mode guards
/// their tangent terms (a zero tangent stays zero); every other rule must
/// give finite partials wherever its value is finite, or that guard would
/// be missing somewhere.
const SINGULAR: [&str; 7] = ["sqrt", "cbrt", "asin", "acos", "acosh", "powf", "log"];

/// Arguments at the edges of the rules' domains (0, ±1, signs of zero) and
/// ordinary ones (not overflow: `recip` at 1e-300 has a finite value and an
/// infinite partial, a degenerate case of another kind).
const EDGES: [f64; 11] = [
    0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -3.0, 1e-3, 10.0, -10.0,
];

#[test]
fn only_singular_rules_have_infinite_partials_at_finite_values() {
    for rule in rules::UNARY {
        if SINGULAR.contains(&rule.name) {
            continue;
        }
        for &x in &EDGES {
            let y = (rule.value)(x);
            if y.is_finite() {
                let p = (rule.partial)(x, y);
                assert!(
                    p.is_finite(),
                    "{}'({x}) = {p} where the value {y} is finite",
                    rule.name
                );
            }
        }
    }
    for rule in rules::BINARY {
        if SINGULAR.contains(&rule.name) {
            continue;
        }
        for &a in &EDGES {
            for &b in &EDGES {
                let y = (rule.value)(a, b);
                if y.is_finite() {
                    let (pa, pb) = (rule.partial)(a, b, y);
                    assert!(
                        pa.is_finite() && pb.is_finite(),
                        "{}({a}, {b}): partials ({pa}, {pb}) where the value {y} is finite",
                        rule.name
                    );
                }
            }
        }
    }
    // The singular ones are: the guard is needed.
    assert!(rules::sqrt(0.0, 0.0).is_infinite());
    assert!(rules::cbrt(0.0, 0.0).is_infinite());
    assert!(rules::asin(1.0, 1.0f64.asin()).is_infinite());
    assert!(rules::acos(1.0, 0.0).is_infinite());
    assert!(rules::acosh(1.0, 0.0).is_infinite());
    assert!(rules::powf(0.0, 0.5, 0.0).0.is_infinite());
    assert!(rules::log(1.0, 0.0, 1.0f64.log(0.0)).1.is_nan());
}
