//! The intermediate representation the body is lowered to: structured
//! statements (blocks, `if`, loops) over three-address operations on
//! variables in SSA form.
//!
//! Every value lives in a variable ([`VarId`]) defined exactly once by a
//! `Let`. The only variables written more than once are *cells*: one per
//! local assigned inside an `if` or a loop, updated (`Update`) where control
//! leaves the construct and read (`Let v = Use(cell)`) at each loop
//! iteration's entry and after the construct. Integer and boolean code
//! (loop counters, indices, conditions) stays as Rust tokens ([`Const`]),
//! with the names of the locals it reads rewritten to their emitted names.

use crate::prim::Prim;
use proc_macro2::{Span, TokenStream};
use syn::Ident;

/// Index into [`Func::vars`].
pub type VarId = usize;

/// A lowered function body.
pub struct Func {
    /// Every variable: parameters, user locals (one per binding or version),
    /// cells and temporaries.
    pub vars: Vec<Var>,
    pub body: Block,
    /// The loops that swap two float arrays element by element (`(a, b) =
    /// (b, a)`, `std::mem::swap(&mut a, &mut b)`, lowered by
    /// `Lowerer::swapped_arrays`), by loop id, with the two arrays. Every
    /// analysis sees the loop of loads and stores it is; the emitter may run
    /// it as an exchange of the two buffers instead (`emit/reverse.rs`,
    /// `Emitter::swapped_buffers`), which every access by name sees alike.
    pub swaps: std::collections::HashMap<usize, (VarId, VarId)>,
    /// The tables of costly values `lower/tabulate.rs` fills before a
    /// loop: each element stored once, by the nest that fills it, and only
    /// loaded after (so the reverse of that nest reads its values back
    /// there, `record::stored_values`).
    pub tables: std::collections::HashMap<VarId, Table>,
    /// The values the nests that fill those tables compute (copies of the
    /// loop's): their reverse adds nothing through a partial where the
    /// adjoint is 0 (`__private::adjoint_term`), as the reverse of the loop
    /// they were taken from adds nothing where it is skipped (an element
    /// no iteration's adjoint reaches, whose `exp` overflowed: `0 · ∞`).
    pub tabulated: std::collections::HashSet<VarId>,
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
    /// A `let` binding, or a new version of one after an assignment.
    Local,
    /// A temporary introduced by lowering.
    Temp,
    /// A cell: the one mutable home of a local assigned inside a construct.
    Cell,
    /// The index of a `for` loop.
    LoopIndex,
}

/// One variable.
pub struct Var {
    /// The name it has in the generated code.
    pub ident: Ident,
    pub kind: Kind,
    pub origin: Origin,
    /// Certainly of a primitive integer type: a parameter declared so (of
    /// other variables only `record.rs` works it out, where it needs to).
    pub integer: bool,
    /// A local of a type the macro does not differentiate that the function
    /// changes in place (`idx.push(i);`, `order[k] = j;`): emitted `let mut`.
    pub in_place: bool,
    /// A local `Vec<f64>` used through a slice of it (`views.rs`): emitted
    /// as the `Vec` under its owner's name ([`crate::names::Role::Owner`])
    /// and `let q = &mut owner[..];`.
    pub view: bool,
}

/// A table of [`Func::tables`].
pub struct Table {
    /// Its length: the product of its loops' trip counts where the loops
    /// run (`__ad_tab_runs`), else 0.
    pub len: TokenStream,
    /// In a function that declares no `Vec` of its own: in first-order
    /// code the table is the storage of a `__private::Scratch` (a spare
    /// buffer of the thread, given back when the adjoint returns), and so
    /// is its adjoint, so that a function that allocated nothing still does
    /// not. (In a function that allocates anyway a table is a `Vec`: a
    /// fresh allocation is one LLVM knows aliases nothing, which cost the
    /// outside mixture 2–3% less.)
    pub spare: bool,
}

impl Func {
    /// Whether a loop of [`Func::swaps`] swaps `array` (its slice view is
    /// then `let mut`, for the exchange).
    pub fn swapped(&self, array: VarId) -> bool {
        self.swaps.values().any(|&(a, b)| a == array || b == array)
    }
}

impl Var {
    /// A variable of `kind` from `origin`, named `ident`: not known to be
    /// an integer, not changed in place, not a view (passes set those).
    pub fn new(ident: Ident, kind: Kind, origin: Origin) -> Var {
        Var {
            ident,
            kind,
            origin,
            integer: false,
            in_place: false,
            view: false,
        }
    }

    pub fn is_cell(&self) -> bool {
        self.origin == Origin::Cell
    }
}

/// A sequence of statements.
#[derive(Default)]
pub struct Block {
    pub stmts: Vec<Stmt>,
}

/// One statement.
pub enum Stmt {
    /// `let var [: ty] [= init];` — defines `var` (a cell is `let mut`).
    Let {
        var: VarId,
        ty: Option<TokenStream>,
        init: Option<Rhs>,
    },
    /// `cell = value;` where control leaves a construct.
    Update {
        cell: VarId,
        value: Operand,
    },
    /// `array[index] = value;` into a local float array. The only writes
    /// that are not SSA: each one is undone in the reverse sweep.
    Store {
        array: VarId,
        index: Const,
        value: Operand,
    },
    /// Rust tokens run in the forward sweep: items, statement macros,
    /// expression statements. `replay: false` ones (macros, effects) are not
    /// run again when the reverse sweep replays a block.
    Opaque {
        tokens: TokenStream,
        replay: bool,
    },
    /// `if cond { then_ } else { else_ }`; `decision` names the recorded
    /// outcome, which the reverse sweep branches on.
    If {
        decision: Ident,
        cond: Const,
        then_: Block,
        else_: Block,
    },
    Loop(Loop),
    /// `break` or `continue` of the innermost loop, as the last statement
    /// of a block (lowering nests what follows a jump into the other branch).
    Jump(Jump),
    /// The function's value: the last statement of the body.
    Return {
        value: Operand,
        span: Span,
    },
}

/// `break` or `continue`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Jump {
    Break,
    Continue,
}

/// A loop: `for index in range { body }` or `loop { body }` (`while` is a
/// `loop` whose body starts with `if !cond { break }`).
pub struct Loop {
    /// Unique per function: names the loop's counter and tapes.
    pub id: usize,
    pub header: Header,
    pub body: Block,
    /// The cells of locals the body assigns, with the version the body reads
    /// at each iteration's entry.
    pub carried: Vec<Carried>,
    /// Contains a `break`: the trip count is recorded.
    pub breaks: bool,
}

/// How a loop iterates.
pub enum Header {
    /// `for index in range`: `range` is a double-ended iterator expression.
    Range { index: VarId, range: Const },
    /// `loop`: iterates until a `break`.
    Infinite,
}

/// A local the loop body assigns.
#[derive(Clone, Copy)]
pub struct Carried {
    pub cell: VarId,
    /// `let entry = cell;` at the top of the body.
    pub entry: VarId,
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
    Load { array: VarId, index: Const },
    /// A new local float array (`let mut a = ..`).
    Array(ArrayInit),
    /// A call of another differentiable function; its reverse calls the
    /// callee's `_adjoint`.
    Call { callee: Callee, args: Vec<CallArg> },
}

/// Who is called.
pub enum Callee {
    /// `g(..)`, `path::to::g(..)`, `Self::g(..)`; `adjoint` is the same
    /// path ending in `g_adjoint`, spanned on the call.
    Path {
        path: TokenStream,
        adjoint: TokenStream,
    },
    /// `receiver.g(..)` with a constant receiver (`self.g(x)`).
    Method { receiver: Const, method: Ident },
}

/// One argument of a [`Rhs::Call`].
#[derive(Clone)]
pub enum CallArg {
    /// A float value.
    Float(Operand),
    /// A float array or a subslice of one: `w`, `&w`, `&w[a..b]`.
    Array {
        array: VarId,
        /// The argument as written (names rewritten).
        tokens: TokenStream,
        /// `a..b` of a subslice.
        range: Option<Const>,
    },
    /// Anything else (integers, your own types).
    Const(Const),
}

impl CallArg {
    /// A variable or an array, which may carry a derivative: a call with
    /// one is differentiated (if the activity analysis finds it varied).
    pub fn may_vary(&self) -> bool {
        matches!(
            self,
            CallArg::Float(Operand::Var(_)) | CallArg::Array { .. }
        )
    }
}

/// How a local float array starts.
pub enum ArrayInit {
    /// `[value; len]` or `vec![value; len]`, with a constant `value`.
    Fill {
        value: Const,
        len: TokenStream,
        vec: bool,
    },
    /// `[a, b, c]` or `vec![a, b, c]`.
    List { items: Vec<Operand>, vec: bool },
    /// `x.to_vec()` or `a.clone()` of another float array.
    Copy { source: VarId, vec: bool },
}

impl ArrayInit {
    /// Whether it makes a `Vec` (`vec![..]`, `to_vec()`) rather than an
    /// array.
    pub fn is_vec(&self) -> bool {
        match self {
            ArrayInit::Fill { vec, .. }
            | ArrayInit::List { vec, .. }
            | ArrayInit::Copy { vec, .. } => *vec,
        }
    }
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

/// A Rust expression that carries no derivative, and the variables it reads.
#[derive(Clone)]
pub struct Const {
    pub tokens: TokenStream,
    pub uses: Vec<VarId>,
}

/// What an operation reads.
#[derive(Clone)]
pub enum Operand {
    Var(VarId),
    /// A literal, `n as f64`, `std::f64::consts::PI`, a constant parameter's
    /// field: re-evaluated wherever it is needed.
    Const(Const),
}

impl Rhs {
    /// The scalar operands an adjoint may flow into.
    pub fn operands(&self) -> Vec<&Operand> {
        match self {
            Rhs::Use(op) => vec![op],
            Rhs::Prim { args, .. } => args.iter().collect(),
            Rhs::Array(ArrayInit::List { items, .. }) => items.iter().collect(),
            Rhs::Call { args, .. } => args
                .iter()
                .filter_map(|a| match a {
                    CallArg::Float(op) => Some(op),
                    _ => None,
                })
                .collect(),
            Rhs::Load { .. } | Rhs::Array(_) => Vec::new(),
        }
    }

    /// The arrays an adjoint may flow into (besides `Load`'s).
    pub fn arrays(&self) -> Vec<VarId> {
        match self {
            Rhs::Array(ArrayInit::Copy { source, .. }) => vec![*source],
            Rhs::Call { args, .. } => args
                .iter()
                .filter_map(|a| match a {
                    CallArg::Array { array, .. } => Some(*array),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }
}

impl Stmt {
    /// The variables this statement reads itself (not in its nested blocks):
    /// operands, the variables of its constant expressions, arrays.
    pub fn reads(&self) -> Vec<VarId> {
        let mut reads = Vec::new();
        let operand = |op: &Operand, reads: &mut Vec<VarId>| match op {
            Operand::Var(v) => reads.push(*v),
            Operand::Const(c) => reads.extend(&c.uses),
        };
        match self {
            Stmt::Let {
                init: Some(rhs), ..
            } => match rhs {
                Rhs::Use(op) => operand(op, &mut reads),
                Rhs::Prim { args, .. } => args.iter().for_each(|a| operand(a, &mut reads)),
                Rhs::Load { array, index } => {
                    reads.push(*array);
                    reads.extend(&index.uses);
                }
                Rhs::Array(ArrayInit::Fill { value, .. }) => reads.extend(&value.uses),
                Rhs::Array(ArrayInit::List { items, .. }) => {
                    items.iter().for_each(|i| operand(i, &mut reads))
                }
                Rhs::Array(ArrayInit::Copy { source, .. }) => reads.push(*source),
                Rhs::Call { callee, args } => {
                    if let Callee::Method { receiver, .. } = callee {
                        reads.extend(&receiver.uses);
                    }
                    for arg in args {
                        match arg {
                            CallArg::Float(op) => operand(op, &mut reads),
                            CallArg::Array { array, range, .. } => {
                                reads.push(*array);
                                if let Some(range) = range {
                                    reads.extend(&range.uses);
                                }
                            }
                            CallArg::Const(c) => reads.extend(&c.uses),
                        }
                    }
                }
            },
            Stmt::Let { init: None, .. } | Stmt::Opaque { .. } | Stmt::Jump(_) => {}
            Stmt::Update { value, .. } => operand(value, &mut reads),
            Stmt::Store { index, value, .. } => {
                reads.extend(&index.uses);
                operand(value, &mut reads);
            }
            Stmt::If { cond, .. } => reads.extend(&cond.uses),
            Stmt::Loop(l) => {
                if let Header::Range { range, .. } = &l.header {
                    reads.extend(&range.uses);
                }
            }
            Stmt::Return { value, .. } => operand(value, &mut reads),
        }
        reads
    }
}

impl Func {
    /// Every loop of the body, outermost first.
    pub fn loops(&self) -> Vec<&Loop> {
        let mut loops = Vec::new();
        self.body.walk(0, &mut |stmt, _| {
            if let Stmt::Loop(l) = stmt {
                loops.push(l);
            }
        });
        loops
    }
}

impl Block {
    /// The arrays this block and the blocks nested in it declare
    /// (`let a = [..];`, `vec![..]`, `x.to_vec()`).
    pub fn declared_arrays(&self) -> std::collections::HashSet<VarId> {
        let mut declared = std::collections::HashSet::new();
        self.walk(0, &mut |stmt, _| {
            if let Stmt::Let {
                var,
                init: Some(Rhs::Array(_)),
                ..
            } = stmt
            {
                declared.insert(*var);
            }
        });
        declared
    }

    /// Calls `f` on every statement of this block and of the blocks nested
    /// in it, outermost first, with the nesting depth (0 for this block's own).
    pub fn walk<'a>(&'a self, depth: usize, f: &mut dyn FnMut(&'a Stmt, usize)) {
        for stmt in &self.stmts {
            f(stmt, depth);
            match stmt {
                Stmt::If { then_, else_, .. } => {
                    then_.walk(depth + 1, f);
                    else_.walk(depth + 1, f);
                }
                Stmt::Loop(l) => l.body.walk(depth + 1, f),
                _ => {}
            }
        }
    }
}

#[cfg(test)]
impl Func {
    /// A readable listing of the IR, one statement per line, nested blocks
    /// indented, for tests and debugging: `let t = mul(x, y)`.
    pub fn dump(&self) -> String {
        let mut out = String::new();
        self.dump_block(&self.body, 0, &mut out);
        out
    }

    fn dump_block(&self, block: &Block, indent: usize, out: &mut String) {
        let pad = "    ".repeat(indent);
        let name = |v: VarId| self.vars[v].ident.to_string();
        let operand = |op: &Operand| match op {
            Operand::Var(v) => name(*v),
            Operand::Const(c) => format!("const({})", c.tokens),
        };
        for stmt in &block.stmts {
            match stmt {
                Stmt::Let { var, init, .. } => {
                    let keyword = if self.vars[*var].is_cell() {
                        "let mut"
                    } else {
                        "let"
                    };
                    let rhs = match init {
                        None => String::new(),
                        Some(Rhs::Use(op)) => format!(" = {}", operand(op)),
                        Some(Rhs::Prim { prim, args, .. }) => {
                            let args: Vec<String> = args.iter().map(operand).collect();
                            format!(" = {}({})", prim.name, args.join(", "))
                        }
                        Some(Rhs::Load { array, index }) => {
                            format!(" = load({}, {})", name(*array), index.tokens)
                        }
                        Some(Rhs::Array(ArrayInit::Fill { value, len, .. })) => {
                            format!(" = [{}; {len}]", value.tokens)
                        }
                        Some(Rhs::Array(ArrayInit::List { items, .. })) => {
                            let items: Vec<String> = items.iter().map(operand).collect();
                            format!(" = [{}]", items.join(", "))
                        }
                        Some(Rhs::Array(ArrayInit::Copy { source, .. })) => {
                            format!(" = copy({})", name(*source))
                        }
                        Some(Rhs::Call { callee, args }) => {
                            let callee = match callee {
                                Callee::Path { path, .. } => path.to_string(),
                                Callee::Method { receiver, method } => {
                                    format!("{}.{method}", receiver.tokens)
                                }
                            };
                            let args: Vec<String> = args
                                .iter()
                                .map(|a| match a {
                                    CallArg::Float(op) => operand(op),
                                    CallArg::Array { tokens, .. } => format!("array({tokens})"),
                                    CallArg::Const(c) => format!("const({})", c.tokens),
                                })
                                .collect();
                            format!(" = call {callee}({})", args.join(", "))
                        }
                    };
                    out.push_str(&format!("{pad}{keyword} {}{rhs}\n", name(*var)));
                }
                Stmt::Update { cell, value } => {
                    out.push_str(&format!("{pad}{} <- {}\n", name(*cell), operand(value)));
                }
                Stmt::Store {
                    array,
                    index,
                    value,
                } => {
                    out.push_str(&format!(
                        "{pad}{}[{}] = {}\n",
                        name(*array),
                        index.tokens,
                        operand(value)
                    ));
                }
                Stmt::Opaque { tokens, .. } => out.push_str(&format!("{pad}opaque {tokens}\n")),
                Stmt::If {
                    cond, then_, else_, ..
                } => {
                    out.push_str(&format!("{pad}if {} {{\n", cond.tokens));
                    self.dump_block(then_, indent + 1, out);
                    out.push_str(&format!("{pad}}} else {{\n"));
                    self.dump_block(else_, indent + 1, out);
                    out.push_str(&format!("{pad}}}\n"));
                }
                Stmt::Loop(l) => {
                    match &l.header {
                        Header::Range { index, range } => out.push_str(&format!(
                            "{pad}for {} in {} {{\n",
                            name(*index),
                            range.tokens
                        )),
                        Header::Infinite => out.push_str(&format!("{pad}loop {{\n")),
                    }
                    self.dump_block(&l.body, indent + 1, out);
                    out.push_str(&format!("{pad}}}\n"));
                }
                Stmt::Jump(Jump::Break) => out.push_str(&format!("{pad}break\n")),
                Stmt::Jump(Jump::Continue) => out.push_str(&format!("{pad}continue\n")),
                Stmt::Return { value, .. } => {
                    out.push_str(&format!("{pad}return {}\n", operand(value)))
                }
            }
        }
    }
}

/// Whether a call argument is written `&..` (`&v`, `&mut v`, `&v[a..b]`):
/// the callee borrows the array rather than taking it.
pub fn by_reference(tokens: &TokenStream) -> bool {
    matches!(
        tokens.clone().into_iter().next(),
        Some(proc_macro2::TokenTree::Punct(p)) if p.as_char() == '&'
    )
}

/// Whether `tokens` (a statement the macro keeps as written) name the
/// identifier `name` anywhere.
pub fn mentions(tokens: &TokenStream, name: &str) -> bool {
    tokens
        .to_string()
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|word| word == name)
}
