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

// The per-partial table the macro reads (`autograd-macros/src/prim.rs`
// includes the same file).
include!("../autograd-macros/src/reads_table.rs");

/// A rule's partials from its inputs and result.
type Partials = Box<dyn Fn(&[f64], f64) -> Vec<f64>>;

/// Inputs at which to evaluate the rules, ordinary and at the edges.
const INPUTS: [f64; 7] = [0.5, -0.75, 1.5, 2.0, -3.0, 0.0, 10.0];

/// The bits of `x`, with every NaN the same.
fn bits(x: f64) -> u64 {
    if x.is_nan() {
        u64::MAX
    } else {
        x.to_bits()
    }
}

/// Each entry's partial `i` gives the same bits whatever the inputs it is
/// said not to read (`GARBAGE` in their place): the macro passes `0.0` for
/// them, and keeps, records and recomputes only the others.
#[test]
fn partials_read_only_what_the_table_says() {
    let unary = |name: &str| rules::UNARY.iter().find(|r| r.name == name);
    let binary = |name: &str| rules::BINARY.iter().find(|r| r.name == name);
    let ternary = |name: &str| rules::TERNARY.iter().find(|r| r.name == name);
    let mut checked = 0;
    for &(name, partials) in PARTIAL_READS {
        // `(inputs, result) -> partials`, over the real inputs
        let eval: Partials = if let Some(r) = unary(name) {
            Box::new(move |x: &[f64], y| vec![(r.partial)(x[0], y)])
        } else if let Some(r) = binary(name) {
            Box::new(move |x: &[f64], y| {
                let (p, q) = (r.partial)(x[0], x[1], y);
                vec![p, q]
            })
        } else if let Some(r) = ternary(name) {
            Box::new(move |x: &[f64], y| {
                let (p, q, s) = (r.partial)(x[0], x[1], x[2], y);
                vec![p, q, s]
            })
        } else if name == "powi" {
            // the exponent is an integer: its bit is read, never garbage
            Box::new(|x: &[f64], y| vec![rules::powi(x[0], x[1] as i32, y), 0.0])
        } else {
            panic!("PARTIAL_READS names `{name}`, which is no rule");
        };
        let value = |x: &[f64]| -> f64 {
            if let Some(r) = unary(name) {
                (r.value)(x[0])
            } else if let Some(r) = binary(name) {
                (r.value)(x[0], x[1])
            } else if let Some(r) = ternary(name) {
                (r.value)(x[0], x[1], x[2])
            } else {
                x[0].powi(x[1] as i32)
            }
        };
        let arity = partials.len();
        assert!(
            unary(name).map_or(true, |_| arity == 1)
                && binary(name).map_or(true, |_| arity == 2)
                && ternary(name).map_or(true, |_| arity == 3),
            "`{name}`: one entry per argument"
        );
        let mut points: Vec<Vec<f64>> = vec![Vec::new()];
        for _ in 0..arity {
            points = points
                .into_iter()
                .flat_map(|p| {
                    INPUTS.iter().map(move |&v| {
                        let mut q = p.clone();
                        q.push(if name == "powi" && q.len() == 1 {
                            3.0
                        } else {
                            v
                        });
                        q
                    })
                })
                .collect();
        }
        for x in &points {
            // (`clamp` panics on a range that is not one)
            if name == "clamp" && x[1] > x[2] {
                continue;
            }
            let y = value(x);
            let truth = eval(x, y);
            for (i, &(reads, reads_result)) in partials.iter().enumerate() {
                for &g in &GARBAGE {
                    let mut fake = x.clone();
                    for (k, v) in fake.iter_mut().enumerate() {
                        if reads & (1 << k) == 0 && !(name == "powi" && k == 1) {
                            *v = g;
                        }
                    }
                    let fake_y = if reads_result { y } else { g };
                    let got = eval(&fake, fake_y)[i];
                    assert_eq!(
                        bits(got),
                        bits(truth[i]),
                        "`{name}`'s partial {i} at {x:?} (y = {y}) changed with {g} \
                         for what it is said not to read: {got} against {}",
                        truth[i]
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 1000, "{checked}");
}
