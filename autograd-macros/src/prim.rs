//! The differentiable primitives the macro knows: arithmetic operators and
//! the `f64` methods of API.md. Each has a rule function of the same name in
//! `autograd_runtime::rules`, which the generated reverse sweep calls; this
//! table only says how each primitive is spelled and how many arguments it
//! takes, never what its derivative is.

/// How many float arguments a primitive takes (the receiver counts as one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arity {
    Unary,
    Binary,
    Ternary,
    /// `x.powi(n)`: one float and one `i32` that is never differentiated.
    PowI,
}

impl Arity {
    /// Number of arguments including the receiver.
    pub fn args(self) -> usize {
        match self {
            Arity::Unary => 1,
            Arity::Binary | Arity::PowI => 2,
            Arity::Ternary => 3,
        }
    }
}

/// Which values a rule reads to produce its partials, so that the reverse
/// sweep only keeps (or recomputes) what it needs. This is the one fact
/// about derivatives the macro knows; `tests/rules_reads.rs` checks it
/// against the rules themselves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reads {
    /// Constant partials (`add`, `sub`, `neg`): reads nothing.
    Nothing,
    /// `mul`: the partial for one argument is the other argument.
    Others,
    /// Anything else: the arguments and the result.
    All,
}

include!("reads_table.rs");

/// What the partials of `prim` read when the arguments for which `active`
/// holds (by position) get one: the arguments, by position, and whether
/// the result. Nothing when none is active; per partial from
/// [`PARTIAL_READS`] for the rules listed there (`exp` reads its result,
/// `sin` its argument, `x / c` only `c`); every argument and the result
/// for the other rules of [`Reads::All`].
pub fn partial_reads(
    prim: &Prim,
    arity: usize,
    active: &dyn Fn(usize) -> bool,
) -> (Vec<usize>, bool) {
    if !(0..arity).any(active) {
        return (Vec::new(), false);
    }
    match prim.reads {
        Reads::Nothing => (Vec::new(), false),
        Reads::Others => (
            (0..arity)
                .filter(|&i| (0..arity).any(|j| j != i && active(j)))
                .collect(),
            false,
        ),
        Reads::All => match PARTIAL_READS.iter().find(|(name, _)| *name == prim.name) {
            Some((_, partials)) => {
                let (mut args, mut result) = (0u8, false);
                for (i, &(reads, reads_result)) in partials.iter().enumerate() {
                    if i < arity && active(i) {
                        args |= reads;
                        result |= reads_result;
                    }
                }
                (
                    (0..arity).filter(|&i| args & (1 << i) != 0).collect(),
                    result,
                )
            }
            None => ((0..arity).collect(), true),
        },
    }
}

/// One primitive: its name (also the name of its rule) and arity.
#[derive(Debug, PartialEq, Eq)]
pub struct Prim {
    pub name: &'static str,
    pub arity: Arity,
    pub reads: Reads,
    /// The derivative is zero wherever it exists (`floor`, `signum`, ...): the
    /// result does not depend on the inputs to first order, so activity
    /// analysis treats it as a constant and no rule is called.
    pub zero_derivative: bool,
    /// A partial is infinite or NaN at some arguments where the value is
    /// finite (`sqrt` at 0, `acosh` at 1, `powf` at 0): forward mode
    /// multiplies its partials by a tangent with `tangent_term`, so a
    /// tangent that is 0 (the operand does not depend on the input after
    /// all: a sum over an empty range) stays 0 instead of becoming NaN.
    /// `tests/rules_reads.rs` checks the others give finite partials.
    pub singular: bool,
}

const fn prim(name: &'static str, arity: Arity) -> Prim {
    Prim {
        name,
        arity,
        reads: Reads::All,
        zero_derivative: false,
        singular: false,
    }
}

/// A primitive whose partials are infinite or NaN somewhere its value is
/// finite ([`Prim::singular`]).
const fn singular(name: &'static str, arity: Arity) -> Prim {
    Prim {
        name,
        arity,
        reads: Reads::All,
        zero_derivative: false,
        singular: true,
    }
}

const fn linear(name: &'static str, arity: Arity) -> Prim {
    Prim {
        name,
        arity,
        reads: Reads::Nothing,
        zero_derivative: false,
        singular: false,
    }
}

const fn step(name: &'static str) -> Prim {
    Prim {
        name,
        arity: Arity::Unary,
        reads: Reads::Nothing,
        zero_derivative: true,
        singular: false,
    }
}

pub static ADD: Prim = linear("add", Arity::Binary);
pub static SUB: Prim = linear("sub", Arity::Binary);
pub static MUL: Prim = Prim {
    name: "mul",
    arity: Arity::Binary,
    reads: Reads::Others,
    zero_derivative: false,
    singular: false,
};
pub static DIV: Prim = prim("div", Arity::Binary);
/// `a % b` (`rules::rem`).
pub static REM: Prim = prim("rem", Arity::Binary);
pub static NEG: Prim = linear("neg", Arity::Unary);

/// The `f64` methods `#[differentiable]` can differentiate, as in API.md §1.
pub static METHODS: &[Prim] = &[
    prim("abs", Arity::Unary),
    step("signum"),
    singular("sqrt", Arity::Unary),
    singular("cbrt", Arity::Unary),
    prim("powi", Arity::PowI),
    singular("powf", Arity::Binary),
    prim("exp", Arity::Unary),
    prim("exp2", Arity::Unary),
    prim("exp_m1", Arity::Unary),
    prim("ln", Arity::Unary),
    singular("log", Arity::Binary),
    prim("log2", Arity::Unary),
    prim("log10", Arity::Unary),
    prim("ln_1p", Arity::Unary),
    prim("sin", Arity::Unary),
    prim("cos", Arity::Unary),
    prim("tan", Arity::Unary),
    singular("asin", Arity::Unary),
    singular("acos", Arity::Unary),
    prim("atan", Arity::Unary),
    prim("atan2", Arity::Binary),
    prim("sinh", Arity::Unary),
    prim("cosh", Arity::Unary),
    prim("tanh", Arity::Unary),
    prim("asinh", Arity::Unary),
    singular("acosh", Arity::Unary),
    prim("atanh", Arity::Unary),
    prim("hypot", Arity::Binary),
    prim("recip", Arity::Unary),
    prim("max", Arity::Binary),
    prim("min", Arity::Binary),
    prim("rem_euclid", Arity::Binary),
    prim("clamp", Arity::Ternary),
    prim("mul_add", Arity::Ternary),
    linear("to_degrees", Arity::Unary),
    linear("to_radians", Arity::Unary),
    step("floor"),
    step("ceil"),
    step("round"),
    step("trunc"),
    linear("fract", Arity::Unary),
];

/// The method `name`, if it is a differentiable `f64` method.
pub fn method(name: &str) -> Option<&'static Prim> {
    METHODS.iter().find(|p| p.name == name)
}

/// The list of supported method names, for error messages.
pub fn method_list() -> String {
    METHODS
        .iter()
        .map(|p| p.name)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reads(name: &str, arity: usize, active: &[usize]) -> (Vec<usize>, bool) {
        let prim = [&ADD, &SUB, &MUL, &DIV, &REM, &NEG]
            .into_iter()
            .chain(METHODS)
            .find(|p| p.name == name)
            .expect("a primitive");
        partial_reads(prim, arity, &|i| active.contains(&i))
    }

    #[test]
    fn partials_read_what_the_table_says() {
        // `x / c`: `1 / c`; `c / x`: `-y / x`
        assert_eq!(reads("div", 2, &[0]), (vec![1], false));
        assert_eq!(reads("div", 2, &[1]), (vec![1], true));
        assert_eq!(reads("div", 2, &[0, 1]), (vec![1], true));
        // `exp` its result, `sin` its argument, `tanh` its result
        assert_eq!(reads("exp", 1, &[0]), (vec![], true));
        assert_eq!(reads("sin", 1, &[0]), (vec![0], false));
        assert_eq!(reads("tanh", 1, &[0]), (vec![], true));
        // `x.powi(n)`: `x` and the exponent
        assert_eq!(reads("powi", 2, &[0]), (vec![0, 1], false));
        // `mul` the other operand, linear rules nothing, nothing for
        // nothing active
        assert_eq!(reads("mul", 2, &[0]), (vec![1], false));
        assert_eq!(reads("add", 2, &[0, 1]), (vec![], false));
        assert_eq!(reads("exp", 1, &[]), (vec![], false));
        // a rule not in the table: everything
        assert_eq!(reads("max", 2, &[0]), (vec![0, 1], true));
        // every entry names a primitive, with one partial per argument
        for &(name, partials) in PARTIAL_READS {
            let prim = [&ADD, &SUB, &MUL, &DIV, &REM, &NEG]
                .into_iter()
                .chain(METHODS)
                .find(|p| p.name == name)
                .unwrap_or_else(|| panic!("`{name}` is no primitive"));
            let arity = match prim.arity {
                Arity::Unary => 1,
                Arity::Binary | Arity::PowI => 2,
                Arity::Ternary => 3,
            };
            assert_eq!(partials.len(), arity, "`{name}`");
        }
    }
}
