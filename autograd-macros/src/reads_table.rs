// What each partial of a rule reads, for the rules whose partials read
// some of their inputs but not all (`prim::Reads::All` otherwise): per
// argument, in order, the arguments its partial reads (bit `i` for
// argument `i`) and whether it reads the result. The reverse sweep keeps,
// records or recomputes only what the partials of its active arguments
// read (`prim::partial_reads`), and passes `0.0` for the rest.
//
// Included by `prim.rs`, and by `tests/rules_reads.rs`, which checks every
// entry against the rules themselves: a partial gives the same bits
// whatever the inputs it is said not to read.
#[allow(dead_code)]
pub const PARTIAL_READS: &[(&str, &[(u8, bool)])] = &[
    // unary: `(x, y) -> dy/dx`
    ("abs", &[(0b1, false)]),
    ("sqrt", &[(0, true)]),
    ("cbrt", &[(0, true)]),
    ("exp", &[(0, true)]),
    ("exp2", &[(0, true)]),
    ("exp_m1", &[(0, true)]),
    ("ln", &[(0b1, false)]),
    ("log2", &[(0b1, false)]),
    ("log10", &[(0b1, false)]),
    ("ln_1p", &[(0b1, false)]),
    ("sin", &[(0b1, false)]),
    ("cos", &[(0b1, false)]),
    ("tan", &[(0, true)]),
    ("asin", &[(0b1, false)]),
    ("acos", &[(0b1, false)]),
    ("atan", &[(0b1, false)]),
    ("sinh", &[(0b1, false)]),
    ("cosh", &[(0b1, false)]),
    ("tanh", &[(0, true)]),
    ("asinh", &[(0b1, false)]),
    ("acosh", &[(0b1, false)]),
    ("atanh", &[(0b1, false)]),
    ("recip", &[(0, true)]),
    // `x.powi(n)`: `x` and the exponent `n` (no partial for `n`)
    ("powi", &[(0b11, false), (0, false)]),
    // binary: `(a, b, y) -> (∂y/∂a, ∂y/∂b)`
    ("div", &[(0b10, false), (0b10, true)]),
    ("powf", &[(0b11, false), (0b01, true)]),
    ("log", &[(0b11, false), (0b10, true)]),
    ("hypot", &[(0b01, true), (0b10, true)]),
    ("rem", &[(0, false), (0b11, true)]),
    ("rem_euclid", &[(0, false), (0b11, true)]),
    // ternary: `(a, b, c, y) -> (∂y/∂a, ∂y/∂b, ∂y/∂c)`
    ("clamp", &[(0b111, false), (0b111, false), (0b111, false)]),
    ("mul_add", &[(0b010, false), (0b001, false), (0, false)]),
];
