//! Prints a [`Program`] as Rust, in two renderings of the same body:
//!
//! * **plain**: `f64` Rust carrying `#[differentiable]`, what a user writes;
//! * **tape**: the oracle, the same statements on `autograd::tape::Var`s:
//!   float locals and buffer elements are `Var`s, literals stay `f64` where
//!   `Var op f64` works and become `oracle_tape.var(..)` where a `Var` is
//!   needed, comparisons read `.value()`, helpers call their tape versions.
//!
//! Both go through one precedence-aware printer, so `-(n as f64)`,
//! `(n as f64).sqrt()` and `(a + b).ln()` are parenthesised exactly where
//! Rust needs it, and the two renderings evaluate the same operations in the
//! same order (the tape's value must equal `f`'s bit for bit).

use super::ast::*;
use std::fmt::Write;

/// The tape parameter of every oracle function. Not in the generator's
/// name pool, so no local can shadow it.
pub const TAPE: &str = "oracle_tape";

#[derive(Clone, Copy, PartialEq)]
pub enum Mode {
    Plain,
    Tape,
}

// Precedence levels, loosest to tightest (the Reference's table).
const P_LOWEST: u8 = 0;
const P_ADD: u8 = 11;
const P_MUL: u8 = 12;
const P_CAST: u8 = 13;
const P_UNARY: u8 = 14;
const P_POSTFIX: u8 = 16;

pub struct Printer {
    mode: Mode,
    out: String,
    indent: usize,
}

/// Whether the tape rendering of `e` is a `Var` (it reads a local, a
/// parameter, a buffer or a call) rather than a plain `f64` constant.
pub fn is_var(e: &Expr) -> bool {
    match e {
        Expr::Lit(..) | Expr::Cast(_) | Expr::Const(_) => false,
        Expr::Local(_) | Expr::Deref(_) | Expr::Elem(..) | Expr::Call(..) => true,
        Expr::Bin(_, a, b) => is_var(a) || is_var(b),
        Expr::Neg(a) | Expr::Powi(a, ..) => is_var(a),
        Expr::Method { recv, args, .. } => is_var(recv) || args.iter().any(is_var),
        Expr::If(arms, els) => arms.iter().any(|(_, b)| block_is_var(b)) || block_is_var(els),
        Expr::Block(b) => block_is_var(b),
    }
}

fn block_is_var(b: &Block) -> bool {
    b.tail.as_deref().is_some_and(is_var)
}

/// Whether plain Rust knows `e` is an `f64` (rather than an ambiguous
/// `{float}` literal expression, on which a method call does not compile).
pub fn is_typed(e: &Expr) -> bool {
    match e {
        Expr::Lit(_, typed) => *typed,
        Expr::Local(_)
        | Expr::Deref(_)
        | Expr::Elem(..)
        | Expr::Call(..)
        | Expr::Cast(_)
        | Expr::Const(_)
        | Expr::Method { .. }
        | Expr::Powi(..) => true,
        Expr::Bin(_, a, b) => is_typed(a) || is_typed(b),
        Expr::Neg(a) => is_typed(a),
        Expr::If(arms, els) => {
            arms.iter()
                .any(|(_, b)| b.tail.as_deref().is_some_and(is_typed))
                || els.tail.as_deref().is_some_and(is_typed)
        }
        Expr::Block(b) => b.tail.as_deref().is_some_and(is_typed),
    }
}

fn prec(e: &Expr) -> u8 {
    match e {
        Expr::Bin(BinOp::Add | BinOp::Sub, ..) => P_ADD,
        Expr::Bin(BinOp::Mul | BinOp::Div, ..) => P_MUL,
        Expr::Neg(_) => P_UNARY,
        Expr::Cast(_) => P_CAST,
        Expr::If(..) | Expr::Block(_) => P_LOWEST,
        Expr::Deref(_) => P_UNARY,
        _ => P_POSTFIX,
    }
}

fn int_prec(e: &IntExpr) -> u8 {
    match e {
        IntExpr::Add(..) | IntExpr::Sub(..) => P_ADD,
        IntExpr::Mul(..) => P_MUL,
        _ => P_POSTFIX,
    }
}

pub fn lit(v: f64) -> String {
    let s = format!("{v:?}");
    if s.contains('.') || s.contains('e') || s.contains("inf") || s.contains("NaN") {
        s
    } else {
        format!("{s}.0")
    }
}

fn bin_str(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
    }
}

fn cmp_str(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Lt => "<",
        CmpOp::Le => "<=",
        CmpOp::Gt => ">",
        CmpOp::Ge => ">=",
        CmpOp::Eq => "==",
        CmpOp::Ne => "!=",
    }
}

pub fn int(e: &IntExpr) -> String {
    int_at(e, P_LOWEST)
}

fn int_at(e: &IntExpr, min: u8) -> String {
    let s = match e {
        IntExpr::Lit(v) => v.to_string(),
        IntExpr::Var(n) => n.clone(),
        IntExpr::Len(n) => format!("{n}.len()"),
        IntExpr::Add(a, b) => format!("{} + {}", int_at(a, P_ADD), int_at(b, P_ADD + 1)),
        IntExpr::Sub(a, b) => format!("{} - {}", int_at(a, P_ADD), int_at(b, P_ADD + 1)),
        IntExpr::Mul(a, b) => format!("{} * {}", int_at(a, P_MUL), int_at(b, P_MUL + 1)),
    };
    if int_prec(e) < min {
        format!("({s})")
    } else {
        s
    }
}

impl Printer {
    pub fn new(mode: Mode) -> Self {
        Printer {
            mode,
            out: String::new(),
            indent: 0,
        }
    }

    pub fn finish(self) -> String {
        self.out
    }

    fn line(&mut self, text: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn tape(&self) -> bool {
        self.mode == Mode::Tape
    }

    /// The name of `name`'s tape version (helpers and `f`).
    pub fn fn_name(&self, name: &str) -> String {
        if self.tape() {
            format!("{name}_tape")
        } else {
            name.to_string()
        }
    }

    fn ty(&self, ty: Ty) -> String {
        let float = if self.tape() { "Var<'t>" } else { "f64" };
        match ty {
            Ty::F64 => float.to_string(),
            Ty::Slice(_) => format!("&[{float}]"),
            Ty::Array(n) => format!("[{float}; {n}]"),
            Ty::ArrayRef(n) => format!("&[{float}; {n}]"),
            Ty::Usize(_) => "usize".to_string(),
        }
    }

    pub fn func(&mut self, f: &Func) {
        if self.tape() {
            let params: Vec<String> = f
                .params
                .iter()
                .map(|p| {
                    let m = if p.mutable { "mut " } else { "" };
                    format!("{m}{}: {}", p.name, self.ty(p.ty))
                })
                .collect();
            self.line(&format!(
                "pub fn {}<'t>({TAPE}: &'t Tape, {}) -> Var<'t> {{",
                self.fn_name(&f.name),
                params.join(", ")
            ));
        } else {
            if f.explicit_wrt {
                let active: Vec<&str> = f
                    .params
                    .iter()
                    .filter(|p| p.active)
                    .map(|p| p.name.as_str())
                    .collect();
                self.line(&format!("#[differentiable(wrt({}))]", active.join(", ")));
            } else {
                self.line("#[differentiable]");
            }
            let params: Vec<String> = f
                .params
                .iter()
                .map(|p| {
                    let m = if p.mutable { "mut " } else { "" };
                    format!("{m}{}: {}", p.name, self.ty(p.ty))
                })
                .collect();
            self.line(&format!(
                "pub fn {}({}) -> f64 {{",
                f.name,
                params.join(", ")
            ));
        }
        self.indent += 1;
        self.block_body(&f.body, true);
        self.indent -= 1;
        self.line("}");
    }

    /// The statements and the tail of a block (without the braces).
    fn block_body(&mut self, b: &Block, var_tail: bool) {
        for s in &b.stmts {
            self.stmt(s);
        }
        if let Some(t) = &b.tail {
            let text = if var_tail {
                self.var_expr(t)
            } else {
                self.expr(t, P_LOWEST)
            };
            self.line(&text);
        }
    }

    fn braced(&mut self, head: &str, b: &Block, var_tail: bool) {
        self.line(&format!("{head}{{"));
        self.indent += 1;
        self.block_body(b, var_tail);
        self.indent -= 1;
        self.line("}");
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Let {
                name,
                mutable,
                annotate,
                init,
            } => {
                let m = if *mutable { "mut " } else { "" };
                let ann = match (*annotate, self.tape()) {
                    (false, _) => "",
                    (true, false) => ": f64",
                    (true, true) => ": Var<'t>",
                };
                let init = self.var_expr(init);
                self.line(&format!("let {m}{name}{ann} = {init};"));
            }
            Stmt::LetBuf {
                name,
                init,
                annotate,
            } => {
                let float = if self.tape() { "Var<'t>" } else { "f64" };
                let zero = if self.tape() {
                    format!("{TAPE}.var(0.0)")
                } else if *annotate {
                    "0.0".to_string()
                } else {
                    "0.0_f64".to_string()
                };
                let (ty, value) = match init {
                    BufInit::Zeros(n) => (format!("[{float}; {n}]"), format!("[{zero}; {n}]")),
                    BufInit::List(items) => {
                        let items: Vec<String> = items
                            .iter()
                            .enumerate()
                            .map(|(i, e)| {
                                if self.tape() {
                                    self.var_expr(e)
                                } else if i == 0 && !*annotate && !is_typed(e) {
                                    // The first element types the array.
                                    format!("{} as f64", self.expr(e, P_CAST))
                                } else {
                                    self.expr(e, P_LOWEST)
                                }
                            })
                            .collect();
                        (
                            format!("[{float}; {}]", items.len()),
                            format!("[{}]", items.join(", ")),
                        )
                    }
                    BufInit::VecZeros(n) => {
                        (format!("Vec<{float}>"), format!("vec![{zero}; {}]", int(n)))
                    }
                    BufInit::ToVec(src) => (format!("Vec<{float}>"), format!("{src}.to_vec()")),
                };
                if *annotate {
                    self.line(&format!("let mut {name}: {ty} = {value};"));
                } else {
                    self.line(&format!("let mut {name} = {value};"));
                }
            }
            Stmt::LetCounter { name } => self.line(&format!("let mut {name} = 0;")),
            Stmt::Incr { name } => self.line(&format!("{name} += 1;")),
            Stmt::Assign { place, op, value } => {
                let place = match place {
                    Place::Local(n) => n.clone(),
                    Place::Elem(n, i) => format!("{n}[{}]", int(i)),
                };
                if self.tape() && *op != AssignOp::Set {
                    // `Var`'s `AddAssign` borrows the place before the
                    // right side is evaluated (for `f64` it is the other
                    // way round), so `b[i] += b.len() as f64` would not
                    // borrow-check: evaluate the right side first.
                    let op = match op {
                        AssignOp::Add => "+=",
                        AssignOp::Sub => "-=",
                        AssignOp::Mul => "*=",
                        _ => "/=",
                    };
                    let value = self.expr(value, P_LOWEST);
                    self.line(&format!(
                        "{{ let oracle_rhs = {value}; {place} {op} oracle_rhs; }}"
                    ));
                    return;
                }
                let (op, value) = match op {
                    AssignOp::Set => ("=", self.var_expr(value)),
                    AssignOp::Add => ("+=", self.expr(value, P_LOWEST)),
                    AssignOp::Sub => ("-=", self.expr(value, P_LOWEST)),
                    AssignOp::Mul => ("*=", self.expr(value, P_LOWEST)),
                    AssignOp::Div => ("/=", self.expr(value, P_LOWEST)),
                };
                self.line(&format!("{place} {op} {value};"));
            }
            Stmt::Block(b) => self.braced("", b, false),
            Stmt::If { arms, otherwise } => {
                for (k, (c, b)) in arms.iter().enumerate() {
                    let head = if k == 0 { "if" } else { "} else if" };
                    self.line(&format!("{head} {} {{", self.cond(c)));
                    self.indent += 1;
                    self.block_body(b, false);
                    self.indent -= 1;
                }
                if let Some(b) = otherwise {
                    self.line("} else {");
                    self.indent += 1;
                    self.block_body(b, false);
                    self.indent -= 1;
                }
                self.line("}");
            }
            Stmt::For { pat, iter, body } => {
                let pat = match pat {
                    ForPat::Index(n) => n.clone(),
                    ForPat::Value(name) => name.clone(),
                    ForPat::AmpValue(n) => format!("&{n}"),
                    ForPat::Enumerate(i, v) => format!("({i}, {v})"),
                };
                let enumerate = pat.starts_with('(');
                let iter = match iter {
                    ForIter::Range {
                        lo,
                        hi,
                        inclusive,
                        rev,
                    } => {
                        let dots = if *inclusive { "..=" } else { ".." };
                        let r = format!("{}{dots}{}", int_at(lo, P_ADD + 1), int_at(hi, P_ADD + 1));
                        if *rev {
                            format!("({r}).rev()")
                        } else {
                            r
                        }
                    }
                    ForIter::Plain(n) => n.clone(),
                    ForIter::Iter(n) if enumerate => format!("{n}.iter().enumerate()"),
                    ForIter::Iter(n) => format!("{n}.iter()"),
                };
                self.braced(&format!("for {pat} in {iter} "), body, false);
            }
            Stmt::While {
                counter,
                limit,
                extra,
                body,
            } => {
                let mut c = format!("{counter} < {limit}");
                if let Some(e) = extra {
                    c = format!("{c} && {}", self.cond_at(e, 2));
                }
                self.braced(&format!("while {c} "), body, false);
            }
            Stmt::Loop { body } => self.braced("loop ", body, false),
            Stmt::Break => self.line("break;"),
            Stmt::Continue => self.line("continue;"),
            Stmt::Return(e) => {
                let e = self.var_expr(e);
                self.line(&format!("return {e};"));
            }
        }
    }

    /// `c` as a boolean expression. Levels: 0 = anything, 1 = operand of
    /// `||`, 2 = operand of `&&`, 3 = operand of `!`.
    fn cond(&self, c: &Cond) -> String {
        self.cond_at(c, 0)
    }

    fn cond_at(&self, c: &Cond, min: u8) -> String {
        let (s, level) = match c {
            Cond::Cmp(op, a, b) => (
                format!("{} {} {}", self.value_of(a), cmp_str(*op), self.value_of(b)),
                3,
            ),
            Cond::IntCmp(op, a, b) => (
                format!("{} {} {}", int_at(a, P_ADD), cmp_str(*op), int_at(b, P_ADD)),
                3,
            ),
            Cond::Or(a, b) => (
                format!("{} || {}", self.cond_at(a, 1), self.cond_at(b, 2)),
                1,
            ),
            Cond::And(a, b) => (
                format!("{} && {}", self.cond_at(a, 2), self.cond_at(b, 3)),
                2,
            ),
            Cond::Not(a) => (format!("!{}", self.cond_paren(a)), 4),
        };
        if level < min {
            format!("({s})")
        } else {
            s
        }
    }

    fn cond_paren(&self, c: &Cond) -> String {
        format!("({})", self.cond(c))
    }

    /// An operand of a comparison: on the tape, its `f64` value.
    fn value_of(&self, e: &Expr) -> String {
        let s = if self.tape() && is_var(e) {
            format!("{}.value()", self.expr(e, P_POSTFIX))
        } else {
            self.expr(e, P_ADD)
        };
        // `n as f64 < x` parses `f64<` as the start of generic arguments.
        if s.contains(" as f64") {
            format!("({s})")
        } else {
            s
        }
    }

    /// `e` where a `Var` is required on the tape (a local's value, a
    /// call's argument, a return value); plain `e` otherwise.
    pub fn var_expr(&self, e: &Expr) -> String {
        if self.tape() && !is_var(e) {
            format!("{TAPE}.var({})", self.expr(e, P_LOWEST))
        } else {
            self.expr(e, P_LOWEST)
        }
    }

    /// `e` printed so that it binds at least as tightly as `min`.
    pub fn expr(&self, e: &Expr, min: u8) -> String {
        let s = match e {
            Expr::Lit(v, typed) => {
                if *typed && !self.tape() {
                    format!("{}_f64", lit(*v))
                } else {
                    lit(*v)
                }
            }
            Expr::Local(n) => n.clone(),
            Expr::Deref(n) => format!("*{n}"),
            Expr::Elem(n, i) => format!("{n}[{}]", int(i)),
            Expr::Bin(op, a, b) => {
                let p = prec(e);
                format!(
                    "{} {} {}",
                    self.expr(a, p),
                    bin_str(*op),
                    self.expr(b, p + 1)
                )
            }
            Expr::Neg(a) => {
                // `- -x` would print as `--x`: parenthesise nested negation.
                let inner = if matches!(**a, Expr::Neg(_)) {
                    format!("({})", self.expr(a, P_LOWEST))
                } else {
                    self.expr(a, P_UNARY)
                };
                format!("-{inner}")
            }
            Expr::Method {
                name,
                form,
                recv,
                args,
            } => self.method(name, *form, recv, args),
            Expr::Powi(recv, k, form) => {
                let k = k.to_string();
                self.method_text("powi", *form, recv, vec![k], false)
            }
            Expr::Cast(i) => format!("{} as f64", int_at(i, P_UNARY)),
            Expr::Const(path) => path.clone(),
            Expr::Call(name, args) => {
                let mut parts = Vec::new();
                if self.tape() {
                    parts.push(TAPE.to_string());
                }
                parts.extend(args.iter().map(|a| self.call_arg(a)));
                format!("{}({})", self.fn_name(name), parts.join(", "))
            }
            Expr::If(arms, els) => {
                let var = self.tape() && is_var(e);
                let mut s = String::new();
                for (k, (c, b)) in arms.iter().enumerate() {
                    if k > 0 {
                        s.push_str(" else ");
                    }
                    write!(s, "if {} {}", self.cond(c), self.inline_block(b, var)).unwrap();
                }
                write!(s, " else {}", self.inline_block(els, var)).unwrap();
                s
            }
            Expr::Block(b) => {
                let var = self.tape() && is_var(e);
                self.inline_block(b, var)
            }
        };
        if prec(e) < min {
            format!("({s})")
        } else {
            s
        }
    }

    /// A block on one line (inside expressions): `{ let a = ..; a * 2.0 }`.
    fn inline_block(&self, b: &Block, var_tail: bool) -> String {
        let mut p = Printer::new(self.mode);
        for s in &b.stmts {
            p.stmt(s);
        }
        let mut s = String::from("{ ");
        for line in p.out.lines() {
            s.push_str(line.trim());
            s.push(' ');
        }
        if let Some(t) = &b.tail {
            let t = if var_tail {
                self.var_expr(t)
            } else {
                self.expr(t, P_LOWEST)
            };
            s.push_str(&t);
            s.push(' ');
        }
        s.push('}');
        s
    }

    fn method(&self, name: &str, form: Form, recv: &Expr, args: &[Expr]) -> String {
        // On the tape, a constant receiver with a `Var` argument has to be
        // lifted (`f64::max(c, var)` has no `Var` overload).
        let lift = self.tape() && !is_var(recv) && args.iter().any(is_var);
        let args = args.iter().map(|a| self.expr(a, P_LOWEST)).collect();
        self.method_text(name, form, recv, args, lift)
    }

    fn method_text(
        &self,
        name: &str,
        form: Form,
        recv: &Expr,
        args: Vec<String>,
        lift: bool,
    ) -> String {
        if self.tape() {
            // The tape has no `Var::m(x)` path form worth testing: always
            // `x.m(..)`; a constant receiver stays an `f64` computation.
            let r = if lift {
                format!("{TAPE}.var({})", self.expr(recv, P_LOWEST))
            } else if is_var(recv) {
                self.expr(recv, P_POSTFIX)
            } else {
                return self.plain_method(name, Form::Path, recv, &args);
            };
            return format!("{r}.{name}({})", args.join(", "));
        }
        self.plain_method(name, form, recv, &args)
    }

    fn plain_method(&self, name: &str, form: Form, recv: &Expr, args: &[String]) -> String {
        // A method on an untyped `{float}` does not compile in plain Rust;
        // the path form fixes the type (`f64::sin(1.0 + 2.0)`).
        let form = if is_typed(recv) { form } else { Form::Path };
        match form {
            Form::Dot => format!("{}.{name}({})", self.expr(recv, P_POSTFIX), args.join(", ")),
            Form::Path => {
                let mut all = vec![self.expr(recv, P_LOWEST)];
                all.extend(args.iter().cloned());
                format!("f64::{name}({})", all.join(", "))
            }
        }
    }

    fn call_arg(&self, a: &CallArg) -> String {
        let list = |items: &[Expr]| {
            let items: Vec<String> = items
                .iter()
                .map(|e| {
                    if self.tape() {
                        self.var_expr(e)
                    } else {
                        self.expr(e, P_LOWEST)
                    }
                })
                .collect();
            format!("[{}]", items.join(", "))
        };
        match a {
            CallArg::Scalar(e) => self.var_expr(e),
            CallArg::Int(i) => int(i),
            CallArg::Name(n) => n.clone(),
            CallArg::Ref(n) => format!("&{n}"),
            CallArg::Sub(n, lo, None) => format!("&{n}[{}..]", int_at(lo, P_ADD + 1)),
            CallArg::Sub(n, lo, Some(hi)) => {
                format!("&{n}[{}..{}]", int_at(lo, P_ADD + 1), int_at(hi, P_ADD + 1))
            }
            CallArg::List(items) => list(items),
            CallArg::RefList(items) => format!("&{}", list(items)),
        }
    }
}

/// The plain rendering of one function (what a failure report shows).
pub fn plain_func(f: &Func) -> String {
    let mut p = Printer::new(Mode::Plain);
    p.func(f);
    p.finish()
}

/// The whole program in plain Rust: consts, helpers, `f`.
pub fn plain_program(prog: &Program) -> String {
    let mut s = String::new();
    for (name, v) in &prog.consts {
        writeln!(s, "const {name}: f64 = {};", lit(*v)).unwrap();
    }
    for f in prog.helpers.iter().chain(std::iter::once(&prog.main)) {
        s.push('\n');
        s.push_str(&plain_func(f));
    }
    s
}

/// The whole program on the tape (consts are shared with the plain module).
pub fn tape_program(prog: &Program) -> String {
    let mut s = String::new();
    for (name, v) in &prog.consts {
        writeln!(s, "const {name}: f64 = {};", lit(*v)).unwrap();
    }
    for f in prog.helpers.iter().chain(std::iter::once(&prog.main)) {
        let mut p = Printer::new(Mode::Tape);
        p.func(f);
        s.push('\n');
        s.push_str(&p.finish());
    }
    s
}
