//! The intermediate representation the body is lowered to: structured
//! statements over three-address operations on named variables.
//!
//! Float values live in variables ([`VarId`]); an operation reads
//! [`Operand`]s (a variable, or a constant Rust expression that carries no
//! derivative) and defines exactly one new variable. Integer and boolean code
//! (loop counters, indices, conditions) stays as opaque Rust tokens, with the
//! names of the locals it mentions already rewritten to their emitted names.

use crate::prim::Prim;
use proc_macro2::{Span, TokenStream};
use syn::Ident;

/// Index into [`Func::vars`].
pub type VarId = usize;

/// A lowered function body.
pub struct Func {
    /// Every variable: parameters, user locals (one per binding or version)
    /// and temporaries.
    pub vars: Vec<Var>,
    pub body: Block,
}

/// What a variable holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An `f64`: may carry a derivative.
    Float,
    /// An `f64` slice or array.
    FloatArray,
    /// Anything else (integers, booleans, user types), or a constant whose
    /// type the macro cannot see (`let s = SCALE;`): never differentiated.
    Other,
}

/// Where a variable comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The `index`-th parameter of the signature; `active` if differentiated.
    Param { index: usize, active: bool },
    /// A `let` binding (or a new version of one after an assignment).
    Local,
    /// A temporary introduced by lowering.
    Temp,
}

/// One variable.
pub struct Var {
    /// The name it has in the generated code.
    pub ident: Ident,
    pub kind: Kind,
    pub origin: Origin,
    /// Reassigned in place somewhere (integer locals like `k += 1`); float
    /// locals never are, because lowering gives each assignment a new version.
    pub mutable: bool,
}

/// A sequence of statements.
#[derive(Default)]
pub struct Block {
    pub stmts: Vec<Stmt>,
}

/// One statement.
pub enum Stmt {
    /// `let var [: ty] [= init];` — defines `var`.
    Let {
        var: VarId,
        /// The type annotation to emit, if any.
        ty: Option<TokenStream>,
        init: Option<Rhs>,
    },
    /// Rust tokens executed in the forward sweep only: statement macros
    /// (`assert!`, `println!`) and integer updates (`k += 1;`).
    Opaque(TokenStream),
    /// `return value` (explicit, or the body's tail expression).
    Return { value: Operand, span: Span },
}

/// The right-hand side of a definition.
pub enum Rhs {
    /// A copy of an operand.
    Use(Operand),
    /// A primitive applied to its operands (the receiver first). For `powi`
    /// the second operand is the integer exponent.
    Prim {
        prim: &'static Prim,
        args: Vec<Operand>,
        syntax: Syntax,
    },
    /// `array[index]` of a float array variable.
    Load { array: VarId, index: TokenStream },
}

/// How the user spelled a primitive, kept so the forward sweep is the
/// user's own code (`2.0_f64.sqrt()` and `f64::sqrt(2.0)` differ in what
/// rustc can infer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// `a + b`, `-a`.
    Operator,
    /// `a.m(b)`.
    Method,
    /// `f64::m(a, b)`.
    Path,
}

/// What an operation reads.
#[derive(Clone)]
pub enum Operand {
    Var(VarId),
    /// A Rust expression with no derivative (a literal, `n as f64`,
    /// `std::f64::consts::PI`, a constant parameter's field); safe to
    /// evaluate again in the reverse sweep.
    Const(TokenStream),
}

impl Rhs {
    /// The operands an adjoint may flow into.
    pub fn operands(&self) -> &[Operand] {
        match self {
            Rhs::Use(op) => std::slice::from_ref(op),
            Rhs::Prim { args, .. } => args,
            Rhs::Load { .. } => &[],
        }
    }
}

#[cfg(test)]
impl Func {
    /// A readable listing of the IR, one statement per line, for tests and
    /// debugging: `let t = mul(x, y)`.
    pub fn dump(&self) -> String {
        let operand = |op: &Operand| match op {
            Operand::Var(v) => self.vars[*v].ident.to_string(),
            Operand::Const(tokens) => format!("const({tokens})"),
        };
        let mut out = String::new();
        for stmt in &self.body.stmts {
            let line = match stmt {
                Stmt::Let { var, init, .. } => {
                    let name = &self.vars[*var].ident;
                    match init {
                        None => format!("let {name}"),
                        Some(Rhs::Use(op)) => format!("let {name} = {}", operand(op)),
                        Some(Rhs::Prim { prim, args, .. }) => {
                            let args: Vec<String> = args.iter().map(operand).collect();
                            format!("let {name} = {}({})", prim.name, args.join(", "))
                        }
                        Some(Rhs::Load { array, index }) => {
                            format!("let {name} = load({}, {index})", self.vars[*array].ident)
                        }
                    }
                }
                Stmt::Opaque(tokens) => format!("opaque {tokens}"),
                Stmt::Return { value, .. } => format!("return {}", operand(value)),
            };
            out.push_str(&line);
            out.push('\n');
        }
        out
    }
}
