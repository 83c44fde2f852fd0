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
