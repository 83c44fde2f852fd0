//! Prints a [`Program`] as Rust, in two renderings of the same body:
//!
//! * **plain**: `f64` Rust carrying `#[differentiable]`, what a user writes;
//! * **tape**: the oracle, the same statements on `autograd::tape::Var`s:
//!   float locals and buffer elements are `Var`s, literals stay `f64` where
//!   `Var op f64` works and become `oracle_tape.var(..)` where a `Var` is
//!   needed, comparisons read `.value()`, helpers call their tape versions
//!   (that of a vector-valued helper returns `[Var; N]` or `Vec<Var>`: local
//!   buffers are arrays and `Vec`s of `Var`s there).
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
        Expr::MatElem(..) | Expr::MatRowSum(..) => true,
        Expr::Bin(_, a, b) => is_var(a) || is_var(b),
        Expr::Neg(a) | Expr::Powi(a, ..) => is_var(a),
        Expr::Method { recv, args, .. } => is_var(recv) || args.iter().any(is_var),
        Expr::If(arms, els) => arms.iter().any(|(_, b)| block_is_var(b)) || block_is_var(els),
        Expr::Block(b) => block_is_var(b),
        Expr::Chain(..) | Expr::Field(..) | Expr::CallClosure(..) | Expr::GetOr(..) => true,
        Expr::FlatSum { .. } => true,
        Expr::Count(_) => false,
        Expr::Match(_, arms) => arms.iter().any(|(_, _, b)| block_is_var(b)),
        Expr::List(..) => true,
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
        | Expr::MatElem(..)
        | Expr::MatRowSum(..)
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
        Expr::Chain(..)
        | Expr::Count(_)
        | Expr::FlatSum { .. }
        | Expr::Field(..)
        | Expr::CallClosure(..)
        | Expr::GetOr(..) => true,
        Expr::Match(_, arms) => arms
            .iter()
            .any(|(_, _, b)| b.tail.as_deref().is_some_and(is_typed)),
        Expr::List(..) => true,
    }
}

fn prec(e: &Expr) -> u8 {
    match e {
        Expr::Bin(BinOp::Add | BinOp::Sub, ..) => P_ADD,
        Expr::Bin(BinOp::Mul | BinOp::Div, ..) => P_MUL,
        Expr::Neg(_) => P_UNARY,
        Expr::Cast(_) => P_CAST,
        Expr::If(..) | Expr::Block(_) | Expr::Match(..) => P_LOWEST,
        Expr::Deref(_) => P_UNARY,
        Expr::Count(_) => P_CAST,
        _ => P_POSTFIX,
    }
}

fn int_prec(e: &IntExpr) -> u8 {
    match e {
        IntExpr::Add(..) | IntExpr::Sub(..) => P_ADD,
        IntExpr::Mul(..) | IntExpr::Rem(..) => P_MUL,
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
        IntExpr::Field(n, _) => format!("LIMITS.{n}"),
        IntExpr::Add(a, b) => format!("{} + {}", int_at(a, P_ADD), int_at(b, P_ADD + 1)),
        IntExpr::Sub(a, b) => format!("{} - {}", int_at(a, P_ADD), int_at(b, P_ADD + 1)),
        IntExpr::Mul(a, b) => format!("{} * {}", int_at(a, P_MUL), int_at(b, P_MUL + 1)),
        IntExpr::Rem(a, b) => format!("{} % {}", int_at(a, P_MUL), int_at(b, P_MUL + 1)),
    };
    if int_prec(e) < min {
        format!("({s})")
    } else {
        s
    }
}

impl Printer {
    /// `let rows = |k: usize| &xs[k * s..k * s + len];`
    fn rows(&mut self, rows: &Rows) {
        let Rows {
            name,
            param,
            buf,
            stride,
            len,
        } = rows;
        self.line(&format!(
            "let {name} = |{param}: usize| &{buf}[{param} * {stride}..{param} * {stride} + {len}];"
        ));
    }

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

    /// The type `f` returns: `f64`, or the vector its tail lists.
    fn ret(&self, f: &Func) -> String {
        let float = if self.tape() { "Var<'t>" } else { "f64" };
        match f.body.tail.as_deref() {
            Some(Expr::List(items, false, _)) => format!("[{float}; {}]", items.len()),
            Some(Expr::List(_, true, _)) => format!("Vec<{float}>"),
            _ => float.to_string(),
        }
    }

    pub fn func(&mut self, f: &Func) {
        let ret = self.ret(f);
        // (`hessian` is for functions returning one `f64`: a vector-valued
        // helper is called by `hessian` functions without it)
        let hessian = hessian_mode() && !matches!(f.body.tail.as_deref(), Some(Expr::List(..)));
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
                "pub fn {}<'t>({TAPE}: &'t Tape, {}) -> {ret} {{",
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
                let hessian = if hessian { "hessian, " } else { "" };
                self.line(&format!(
                    "#[differentiable({hessian}wrt({}))]",
                    active.join(", ")
                ));
            } else if hessian {
                self.line("#[differentiable(hessian)]");
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
                "pub fn {}({}) -> {ret} {{",
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
            Stmt::LetMat {
                name,
                rows,
                cols,
                items,
                vec,
                mutable,
            } => {
                let m = if *mutable { "mut " } else { "" };
                let zero = if self.tape() {
                    format!("{TAPE}.var(0.0)")
                } else {
                    "0.0_f64".to_string()
                };
                let value = match items {
                    Some(items) => {
                        let rows: Vec<String> = items
                            .iter()
                            .map(|row| {
                                let row: Vec<String> = row
                                    .iter()
                                    .map(|e| match self.tape() {
                                        true => self.var_expr(e),
                                        false => format!("{} as f64", self.expr(e, P_CAST)),
                                    })
                                    .collect();
                                format!("[{}]", row.join(", "))
                            })
                            .collect();
                        format!("[{}]", rows.join(", "))
                    }
                    None if *vec => format!("vec![vec![{zero}; {cols}]; {rows}]"),
                    None => format!("[[{zero}; {cols}]; {rows}]"),
                };
                self.line(&format!("let {m}{name} = {value};"));
            }
            Stmt::LetBuf {
                name,
                init,
                annotate,
                mutable,
            } => {
                let m = if *mutable { "mut " } else { "" };
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
                    BufInit::Fill { value, len, vec } => {
                        let value = if self.tape() {
                            self.var_expr(value)
                        } else if !*annotate && !is_typed(value) {
                            format!("{} as f64", self.expr(value, P_CAST))
                        } else {
                            self.expr(value, P_LOWEST)
                        };
                        match vec {
                            true => (format!("Vec<{float}>"), format!("vec![{value}; {len}]")),
                            false => (format!("[{float}; {len}]"), format!("[{value}; {len}]")),
                        }
                    }
                    BufInit::Pushed(items) if !self.tape() => {
                        let n = items.len();
                        let mut chain = String::new();
                        for (k, item) in items.iter().enumerate() {
                            let item = self.expr(item, P_LOWEST);
                            if k + 1 == n {
                                write!(chain, "{{ {item} }}").unwrap();
                            } else {
                                write!(chain, "if pushed_k == {k} {{ {item} }} else ").unwrap();
                            }
                        }
                        // (filled under a name of its own: the items may
                        // read a local the buffer's name shadows)
                        self.line("let mut pushed_v: Vec<f64> = Vec::new();");
                        self.line(&format!(
                            "for pushed_k in 0..{n} {{ pushed_v.push({chain}); }}"
                        ));
                        self.line(&format!("let {m}{name} = pushed_v;"));
                        return;
                    }
                    BufInit::Pushed(items) => {
                        let items: Vec<String> = items.iter().map(|e| self.var_expr(e)).collect();
                        (
                            format!("Vec<{float}>"),
                            format!("vec![{}]", items.join(", ")),
                        )
                    }
                    BufInit::Call {
                        func,
                        args,
                        len,
                        vec,
                    } => {
                        let ty = if *vec {
                            format!("Vec<{float}>")
                        } else {
                            format!("[{float}; {len}]")
                        };
                        let call = Expr::Call(func.clone(), args.clone());
                        (ty, self.expr(&call, P_LOWEST))
                    }
                };
                if *annotate {
                    self.line(&format!("let {m}{name}: {ty} = {value};"));
                } else {
                    self.line(&format!("let {m}{name} = {value};"));
                }
            }
            Stmt::LetCounter { name } => self.line(&format!("let mut {name} = 0;")),
            Stmt::LetInt { name, value } => self.line(&format!("let {name} = {};", int(value))),
            Stmt::Incr { name } => self.line(&format!("{name} += 1;")),
            Stmt::Step {
                name,
                by,
                spelled_out: false,
            } => self.line(&format!("{name} += {};", int(by))),
            Stmt::Step {
                name,
                by,
                spelled_out: true,
            } => self.line(&format!("{name} = {name} + {};", int_at(by, P_ADD + 1))),
            Stmt::AssignWhole { name, items } => {
                let items: Vec<String> = items
                    .iter()
                    .map(|e| match self.tape() {
                        true => self.var_expr(e),
                        false => self.expr(e, P_LOWEST),
                    })
                    .collect();
                self.line(&format!("{name} = [{}];", items.join(", ")))
            }
            Stmt::Assign { place, op, value } => {
                let place = match place {
                    Place::Local(n) => n.clone(),
                    Place::Elem(n, i) => format!("{n}[{}]", int(i)),
                    Place::Part(n, k) => format!("{n}.{k}"),
                    Place::MatElem(n, i, j) => format!("{n}[{}][{}]", int(i), int(j)),
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
            // (the same on the tape: a `Var` is `Copy`)
            Stmt::Swap { a, b, mem: true } => {
                self.line(&format!("std::mem::swap(&mut {a}, &mut {b});"))
            }
            Stmt::Swap { a, b, mem: false } => self.line(&format!("({a}, {b}) = ({b}, {a});")),
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
                stepped_last,
            } => {
                let mut c = format!("{counter} < {limit}");
                if let Some(e) = extra {
                    c = format!("{c} && {}", self.cond_at(e, 2));
                }
                match stepped_last {
                    None => self.braced(&format!("while {c} "), body, false),
                    Some(spelled_out) => {
                        // the body in a block of its own, so that its
                        // `let`s do not shadow the counter the step reads
                        let body = Block {
                            stmts: vec![
                                Stmt::Block(body.clone()),
                                Stmt::Step {
                                    name: counter.clone(),
                                    by: IntExpr::Add(
                                        Box::new(IntExpr::Var(counter.clone())),
                                        Box::new(IntExpr::Lit(1)),
                                    ),
                                    spelled_out: *spelled_out,
                                },
                            ],
                            tail: None,
                        };
                        self.braced(&format!("while {c} "), &body, false)
                    }
                }
            }
            Stmt::Loop { body } => self.braced("loop ", body, false),
            Stmt::ForChain {
                pat,
                chain,
                body,
                for_each,
            } => self.for_chain(pat, chain, body, *for_each),
            Stmt::SplitAt { buf, at, lo, hi } => {
                self.line(&format!("let ({lo}, {hi}) = {buf}.split_at({at});"))
            }
            Stmt::Search {
                name,
                buf,
                len,
                bound,
            } => {
                let bound = lit(*bound);
                let last = len - 1;
                if self.tape() {
                    // (the same search, on the values)
                    self.line(&format!(
                        "let {name} = {{ let oracle_vals: Vec<f64> = {buf}.iter().map(|a| a.value()).collect(); oracle_vals.partition_point(|a| *a < {bound}) }}.min({last});"
                    ));
                } else {
                    self.line(&format!(
                        "let {name} = {buf}.partition_point(|a| *a < {bound}).min({last});"
                    ));
                }
            }
            Stmt::Sort { buf, descending } => {
                let (a, b) = match descending {
                    true => ("b", "a"),
                    false => ("a", "b"),
                };
                if self.tape() {
                    self.line(&format!(
                        "{buf}.sort_by(|a, b| {a}.value().total_cmp(&{b}.value()));"
                    ));
                } else {
                    self.line(&format!("{buf}.sort_by(|a, b| {a}.total_cmp({b}));"));
                }
            }
            Stmt::IterMut {
                buf,
                len,
                pos,
                index,
                var,
                op,
                value,
            } => self.iter_mut(buf, *len, pos, index.as_deref(), var, *op, value),
            Stmt::Destructure {
                names,
                init,
                annotate,
            } => self.destructure(names, init, *annotate),
            Stmt::LetTuple {
                name,
                items,
                annotate,
                mutable,
            } => {
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
                let ann = if *annotate && !self.tape() {
                    format!(": ({})", vec!["f64"; items.len()].join(", "))
                } else {
                    String::new()
                };
                let mutable = if *mutable { "mut " } else { "" };
                self.line(&format!(
                    "let {mutable}{name}{ann} = ({});",
                    items.join(", ")
                ));
            }
            Stmt::LetClosure {
                name,
                param,
                body,
                by_ref,
                rows,
            } => {
                if self.tape() {
                    let b = self.var_expr(body);
                    let by = if *by_ref { "&" } else { "" };
                    self.line(&format!(
                        "let {name} = |{param}: {by}Var<'t>| -> Var<'t> {{ {b} }};"
                    ));
                } else {
                    let b = self.expr(body, P_LOWEST);
                    let ty = if *by_ref { "&f64" } else { "f64" };
                    self.line(&format!("let {name} = |{param}: {ty}| {b};"));
                }
                if let Some(rows) = rows {
                    self.rows(rows);
                }
            }
            Stmt::LetRows(rows) => self.rows(rows),
            Stmt::LetArrClosure {
                closure,
                param,
                items,
                name,
                arg,
            } => {
                let n = items.len();
                if self.tape() {
                    let items: Vec<String> = items.iter().map(|e| self.var_expr(e)).collect();
                    self.line(&format!(
                        "let {closure} = |{param}: Var<'t>| -> [Var<'t>; {n}] {{ [{}] }};",
                        items.join(", ")
                    ));
                    let a = self.var_expr(arg);
                    self.line(&format!("let {name} = {closure}({a});"));
                } else {
                    let items: Vec<String> = items.iter().map(|e| self.expr(e, P_LOWEST)).collect();
                    self.line(&format!(
                        "let {closure} = |{param}: f64| -> [f64; {n}] {{ [{}] }};",
                        items.join(", ")
                    ));
                    let a = self.expr(arg, P_LOWEST);
                    self.line(&format!("let {name} = {closure}({a});"));
                }
            }
            Stmt::Match { scrut, arms } => {
                if self.tape() {
                    let (chain_arms, otherwise) = match_as_if(scrut, arms);
                    let chain = Stmt::If {
                        arms: chain_arms,
                        otherwise,
                    };
                    if let Scrut::Float(e, name) = scrut {
                        // (the name the arms bind, bound first, in a block of
                        // its own: it may shadow a name the code after reads)
                        let e = self.var_expr(e);
                        self.line("{");
                        self.indent += 1;
                        self.line(&format!("let {name} = {e};"));
                        self.stmt(&chain);
                        self.indent -= 1;
                        self.line("}");
                    } else {
                        self.stmt(&chain);
                    }
                } else {
                    self.line(&format!("match {} {{", self.scrut(scrut)));
                    self.indent += 1;
                    for (pat, guard, b) in arms {
                        let g = guard
                            .as_ref()
                            .map_or(String::new(), |g| format!(" if {}", self.cond(g)));
                        self.braced(&format!("{}{g} => ", mpat(pat)), b, false);
                    }
                    self.indent -= 1;
                    self.line("}");
                }
            }
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
            Cond::Any { all, buf, op, rhs } => {
                let method = if *all { "all" } else { "any" };
                let (op, rhs) = (cmp_str(*op), self.value_of(rhs));
                let test = if self.tape() {
                    format!("{buf}.iter().{method}(|q__| q__.value() {op} {rhs})")
                } else {
                    format!("{buf}.iter().{method}(|&q__| q__ {op} {rhs})")
                };
                (test, 4)
            }
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
            Expr::MatElem(n, i, j) => format!("{n}[{}][{}]", int(i), int(j)),
            Expr::MatRowSum(n, i) => match self.tape() {
                true => format!(
                    "{n}[{}].iter().fold({TAPE}.var(-0.0), |a, &b| a + b)",
                    int(i)
                ),
                false => format!("{n}[{}].iter().sum::<f64>()", int(i)),
            },
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
            Expr::Chain(c, cons) => self.chain_expr(c, Some(cons)),
            Expr::Count(c) => self.chain_expr(c, None),
            Expr::FlatSum { i, j, a, b, body } => match self.tape() {
                false => format!(
                    "({a}..{b}).flat_map(|{i}| ({i}..{b}).map(move |{j}| {})).sum::<f64>()",
                    self.expr(body, P_LOWEST)
                ),
                // (the nested loops, the same additions in the same order)
                true => format!(
                    "({{ let mut oracle_acc = {TAPE}.var(-0.0); for {i} in {a}usize..{b} {{ for {j} in {i}..{b} {{ oracle_acc = oracle_acc + ({}); }} }} oracle_acc }})",
                    self.var_expr(body)
                ),
            },
            Expr::Field(n, k) => format!("{n}.{k}"),
            Expr::CallClosure(n, a, by_ref) => {
                if *by_ref {
                    // (`&(i as f64)`: `&` binds tighter than `as`)
                    let arg = if self.tape() && !is_var(a) {
                        self.var_expr(a)
                    } else {
                        self.expr(a, P_UNARY)
                    };
                    format!("{n}(&{arg})")
                } else {
                    format!("{n}({})", self.var_expr(a))
                }
            }
            Expr::GetOr(buf, i, v, form) => {
                if self.tape() {
                    // (`allow`: a literal index past the end is a
                    // compile error in dead code otherwise)
                    format!(
                        "({{ let oracle_g: usize = {}; #[allow(unconditional_panic)] let oracle_v = if oracle_g < {buf}.len() {{ {buf}[oracle_g] }} else {{ {} }}; oracle_v }})",
                        int(i),
                        self.var_expr(v)
                    )
                } else {
                    let (i, v) = (int(i), self.expr(v, P_LOWEST));
                    match form {
                        GetForm::IfLet => format!(
                            "(if let Some(&oracle_g) = {buf}.get({i}) {{ oracle_g }} else {{ {v} }})"
                        ),
                        GetForm::Map => {
                            format!("{buf}.get({i}).map(|oracle_g| *oracle_g).unwrap_or({v})")
                        }
                        GetForm::Cloned => format!("{buf}.get({i}).cloned().unwrap_or({v})"),
                        GetForm::Copied => format!("{buf}.get({i}).copied().unwrap_or({v})"),
                    }
                }
            }
            Expr::List(items, vec, form) => {
                let items: Vec<String> = items.iter().map(|e| self.var_expr(e)).collect();
                let bang = if *vec { "vec!" } else { "" };
                let n = items.len();
                match form {
                    ListForm::Literal => format!("{bang}[{}]", items.join(", ")),
                    ListForm::Collect => {
                        let mut chain = String::new();
                        for (k, item) in items.iter().enumerate() {
                            if k + 1 == n {
                                write!(chain, "{{ {item} }}").unwrap();
                            } else {
                                write!(chain, "if listed_k == {k} {{ {item} }} else ").unwrap();
                            }
                        }
                        format!("(0..{n}).map(|listed_k| {chain}).collect()")
                    }
                    ListForm::Stored => {
                        let zero = if self.tape() {
                            format!("{TAPE}.var(0.0)")
                        } else {
                            "0.0".to_string()
                        };
                        let stores: String = items
                            .iter()
                            .enumerate()
                            .map(|(k, item)| format!(" listed[{k}] = {item};"))
                            .collect();
                        format!("{{ let mut listed = {bang}[{zero}; {n}];{stores} listed }}")
                    }
                }
            }
            Expr::Match(scrut, arms) => {
                if self.tape() {
                    let (arms, otherwise) = match_as_if(scrut, arms);
                    let els = otherwise.expect("a value match is exhaustive");
                    let chain = self.expr(&Expr::If(arms, els), P_LOWEST);
                    match &**scrut {
                        // (the name the arms bind, bound first)
                        Scrut::Float(e, name) => {
                            format!("{{ let {name} = {}; {chain} }}", self.var_expr(e))
                        }
                        _ => chain,
                    }
                } else {
                    let mut s = format!("match {} {{ ", self.scrut(scrut));
                    for (pat, guard, b) in arms {
                        let g = guard
                            .as_ref()
                            .map_or(String::new(), |g| format!(" if {}", self.cond(g)));
                        write!(s, "{}{g} => {}, ", mpat(pat), self.inline_block(b, false)).unwrap();
                    }
                    s.push('}');
                    s
                }
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
            CallArg::Row(name, k) => format!("{name}({})", int(k)),
        }
    }
}

/// The plain rendering of one function (what a failure report shows).
pub fn plain_func(f: &Func) -> String {
    let mut p = Printer::new(Mode::Plain);
    p.func(f);
    p.finish()
}

/// The constants every body may read: `const SCALE: f64 = ..;` and
/// friends, and `LIMITS`, a struct of `usize` fields, if the program has
/// fields.
pub fn preamble(prog: &Program) -> String {
    let mut s = String::new();
    for (name, v) in &prog.consts {
        writeln!(s, "const {name}: f64 = {};", lit(*v)).unwrap();
    }
    if !prog.limits.is_empty() {
        let fields: Vec<String> = prog
            .limits
            .iter()
            .map(|(n, _)| format!("{n}: usize"))
            .collect();
        let values: Vec<String> = prog
            .limits
            .iter()
            .map(|(n, v)| format!("{n}: {v}"))
            .collect();
        writeln!(
            s,
            "#[allow(non_snake_case)]\nstruct Limits {{ {} }}",
            fields.join(", ")
        )
        .unwrap();
        writeln!(
            s,
            "const LIMITS: Limits = Limits {{ {} }};",
            values.join(", ")
        )
        .unwrap();
    }
    s
}

/// The whole program in plain Rust: consts, helpers, `f`.
pub fn plain_program(prog: &Program) -> String {
    let mut s = preamble(prog);
    for f in prog.helpers.iter().chain(std::iter::once(&prog.main)) {
        s.push('\n');
        s.push_str(&plain_func(f));
    }
    s
}

/// The whole program on the tape (its own constants, as the plain one's).
pub fn tape_program(prog: &Program) -> String {
    let mut s = preamble(prog);
    for f in prog.helpers.iter().chain(std::iter::once(&prog.main)) {
        let mut p = Printer::new(Mode::Tape);
        p.func(f);
        s.push('\n');
        s.push_str(&p.finish());
    }
    s
}

// ----- idiomatic Rust (API.md §1b) ------------------------------------------

/// The positions a source yields, in order: `(i, i)` for element `i`,
/// `(v, v)` for range value `v`, `(start, end)` for a window or chunk.
fn src_positions(src: &Src) -> Vec<(usize, usize)> {
    match src {
        Src::Elems { lo, hi, .. } => (*lo..*hi).map(|i| (i, i)).collect(),
        Src::Range { start, end, .. } => (*start..*end).map(|v| (v, v)).collect(),
        Src::Slices { len, k, kind, .. } => match kind {
            SliceKind::Windows => (0..=len.saturating_sub(*k))
                .filter(|s| s + k <= *len)
                .map(|s| (s, s + k))
                .collect(),
            SliceKind::Chunks => (0..*len)
                .step_by(*k)
                .map(|s| (s, (s + k).min(*len)))
                .collect(),
            SliceKind::ChunksExact => (0..len / k).map(|c| (c * k, c * k + k)).collect(),
        },
    }
}

/// `rev`, `skip`, `take`, `step_by` applied to a list of positions.
pub fn apply_pos<T: Clone>(mut v: Vec<T>, ops: &[PosOp]) -> Vec<T> {
    for op in ops {
        v = match *op {
            PosOp::Rev => v.into_iter().rev().collect(),
            PosOp::Skip(k) => v.into_iter().skip(k).collect(),
            PosOp::Take(k) => v.into_iter().take(k).collect(),
            PosOp::StepBy(k) => v.into_iter().step_by(k).collect(),
        };
    }
    v
}

/// The items of a chain before its `map`/`filter` stages, as
/// `(p, q, r, s)`: the first component's position `(p, q)` and the
/// second's `(r, s)` (`enumerate`'s count and `zip(k..)`'s value in `r`).
pub fn chain_positions(c: &Chain) -> Vec<(usize, usize, usize, usize)> {
    let first = apply_pos(src_positions(&c.src), &c.pos);
    let pairs = match &c.pair {
        Pair::None => first.into_iter().map(|(p, q)| (p, q, 0, 0)).collect(),
        Pair::Enumerate => first
            .into_iter()
            .enumerate()
            .map(|(j, (p, q))| (p, q, j, j))
            .collect(),
        Pair::ZipFrom(k) => first
            .into_iter()
            .enumerate()
            .map(|(j, (p, q))| (p, q, k + j, k + j))
            .collect(),
        Pair::Zip(src, pos) => {
            let second = apply_pos(src_positions(src), pos);
            first
                .into_iter()
                .zip(second)
                .map(|((p, q), (r, s))| (p, q, r, s))
                .collect()
        }
    };
    apply_pos(pairs, &c.after)
}

/// A tape item: a temporary holding a leaf value (`by_ref`: a `&Var`), or a
/// pair of them.
#[derive(Clone)]
enum Item {
    Leaf(String, bool),
    Pair(Box<Item>, Box<Item>),
}

fn mpat(p: &MPat) -> String {
    match p {
        MPat::Int(v) => v.to_string(),
        MPat::Range(a, b) => format!("{a}..={b}"),
        MPat::Or(ps) => ps.iter().map(mpat).collect::<Vec<_>>().join(" | "),
        MPat::Bool(b) => b.to_string(),
        MPat::Wild => "_".to_string(),
        MPat::Tuple(ps) => format!("({})", ps.iter().map(mpat).collect::<Vec<_>>().join(", ")),
        MPat::Bind(name) => name.clone(),
    }
}

fn pat_str(p: &Pat) -> String {
    match p {
        Pat::Name(n) => n.clone(),
        Pat::Amp(p) => format!("&{}", pat_str(p)),
        Pat::Pair(a, b) => format!("({}, {})", pat_str(a), pat_str(b)),
        Pat::RefMatch(p) => pat_str(p),
    }
}

/// The names `p` binds.
fn pat_names(p: &Pat, out: &mut Vec<String>) {
    match p {
        Pat::Name(n) => out.push(n.clone()),
        Pat::Amp(p) | Pat::RefMatch(p) => pat_names(p, out),
        Pat::Pair(a, b) => {
            pat_names(a, out);
            pat_names(b, out);
        }
    }
}

/// `|p| body` of a closure given a reference to the item; for a
/// [`Pat::RefMatch`], each name taken by value first.
fn test_closure(p: &Pat, body: &str) -> String {
    match p {
        Pat::RefMatch(inner) => {
            let mut names = Vec::new();
            pat_names(inner, &mut names);
            let lets: String = names.iter().map(|n| format!("let {n} = *{n}; ")).collect();
            format!("|{}| {{ {lets}{body} }}", pat_str(inner))
        }
        _ => format!("|{}| {body}", pat_str(p)),
    }
}

/// The pattern a test closure's `&p` (or [`Pat::RefMatch`]) matches the
/// item itself with.
fn matched(p: &Pat) -> &Pat {
    match p {
        Pat::Amp(p) | Pat::RefMatch(p) => p,
        _ => unreachable!("a test closure's pattern is `&..` or a tuple matched by reference"),
    }
}

/// The condition an arm's pattern stands for (`None`: always).
fn mpat_cond(scrut: &Scrut, p: &MPat) -> Option<Cond> {
    let s = |op, v| match scrut {
        Scrut::Int(e) => Cond::IntCmp(op, e.clone(), IntExpr::Lit(v)),
        _ => unreachable!("integer pattern on a bool or a tuple"),
    };
    match p {
        MPat::Tuple(ps) => {
            let Scrut::Tuple(parts) = scrut else {
                unreachable!("tuple pattern on a single value")
            };
            parts
                .iter()
                .zip(ps)
                .filter_map(|(s, p)| mpat_cond(s, p))
                .reduce(|a, b| Cond::And(Box::new(a), Box::new(b)))
        }
        MPat::Wild | MPat::Bind(_) => None,
        MPat::Int(v) => Some(s(CmpOp::Eq, *v)),
        MPat::Range(a, b) => Some(Cond::And(
            Box::new(s(CmpOp::Ge, *a)),
            Box::new(s(CmpOp::Le, *b)),
        )),
        MPat::Or(ps) => ps
            .iter()
            .map(|p| mpat_cond(scrut, p).expect("no `_` in an or-pattern"))
            .reduce(|a, b| Cond::Or(Box::new(a), Box::new(b))),
        MPat::Bool(b) => {
            let Scrut::Bool(c) = scrut else {
                unreachable!("bool pattern on an integer")
            };
            Some(if *b {
                c.clone()
            } else {
                Cond::Not(Box::new(c.clone()))
            })
        }
    }
}

/// A `match` as the `if` chain it stands for: every arm but the last tests
/// its pattern (and guard); the last (a `_` or the remaining `bool`, with
/// no guard) is the `else`.
fn match_as_if(
    scrut: &Scrut,
    arms: &[(MPat, Option<Cond>, Block)],
) -> (Vec<(Cond, Block)>, Option<Block>) {
    let mut out = Vec::new();
    let (last, init) = arms.split_last().expect("a match has arms");
    for (p, guard, b) in init {
        let c = match (mpat_cond(scrut, p), guard) {
            (Some(c), Some(g)) => Cond::And(Box::new(c), Box::new(g.clone())),
            (Some(c), None) => c,
            (None, Some(g)) => g.clone(),
            (None, None) => unreachable!("only the last arm is `_` without a guard"),
        };
        out.push((c, b.clone()));
    }
    if out.is_empty() {
        // `match s { _ => b }`: `if true`-like; an always-true condition.
        out.push((
            Cond::IntCmp(CmpOp::Eq, IntExpr::Lit(0), IntExpr::Lit(0)),
            last.2.clone(),
        ));
        return (out, Some(Block::default()));
    }
    (out, Some(last.2.clone()))
}

impl Printer {
    fn scrut(&self, s: &Scrut) -> String {
        match s {
            Scrut::Int(e) => int(e),
            Scrut::Bool(c) => self.cond(c),
            // (typed: `match 1.5 { t => t }.abs()` is an ambiguous `{float}`)
            Scrut::Float(e, _) if !is_typed(e) => format!("{} as f64", self.expr(e, P_CAST)),
            Scrut::Float(e, _) => self.expr(e, P_LOWEST),
            Scrut::Tuple(parts) => format!(
                "({})",
                parts
                    .iter()
                    .map(|p| self.scrut(p))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    /// The plain text of a source (with its positional adaptors).
    fn src_text(&self, src: &Src, pos: &[PosOp]) -> String {
        let mut s = match src {
            Src::Elems {
                buf,
                len,
                lo,
                hi,
                sliced,
                how,
            } => {
                let base = if *sliced || *lo > 0 || hi < len {
                    let a = if *lo > 0 {
                        lo.to_string()
                    } else {
                        String::new()
                    };
                    let b = if hi < len {
                        hi.to_string()
                    } else {
                        String::new()
                    };
                    if *how == How::Plain {
                        format!("&{buf}[{a}..{b}]")
                    } else {
                        format!("{buf}[{a}..{b}]")
                    }
                } else {
                    buf.clone()
                };
                match how {
                    How::Plain => base,
                    How::Ref => format!("{base}.iter()"),
                    How::Copied => format!("{base}.iter().copied()"),
                    How::Cloned => format!("{base}.iter().cloned()"),
                }
            }
            Src::Range {
                lo, hi, inclusive, ..
            } => {
                let dots = if *inclusive { "..=" } else { ".." };
                format!("({}{dots}{})", int_at(lo, P_ADD + 1), int_at(hi, P_ADD + 1))
            }
            Src::Slices { buf, k, kind, .. } => {
                let m = match kind {
                    SliceKind::Windows => "windows",
                    SliceKind::Chunks => "chunks",
                    SliceKind::ChunksExact => "chunks_exact",
                };
                format!("{buf}.{m}({k})")
            }
        };
        for op in pos {
            match op {
                PosOp::Rev => s.push_str(".rev()"),
                PosOp::Skip(k) => write!(s, ".skip({k})").unwrap(),
                PosOp::Take(k) => write!(s, ".take({k})").unwrap(),
                PosOp::StepBy(k) => write!(s, ".step_by({k})").unwrap(),
            }
        }
        s
    }

    /// The plain text of a chain without its consumer.
    fn chain_text(&self, c: &Chain) -> String {
        let mut s = self.src_text(&c.src, &c.pos);
        match &c.pair {
            Pair::None => {}
            Pair::Enumerate => s.push_str(".enumerate()"),
            Pair::ZipFrom(k) => write!(s, ".zip({k}..)").unwrap(),
            Pair::Zip(src, pos) => write!(s, ".zip({})", self.src_text(src, pos)).unwrap(),
        }
        for op in &c.after {
            match op {
                PosOp::Rev => s.push_str(".rev()"),
                PosOp::Skip(k) => write!(s, ".skip({k})").unwrap(),
                PosOp::Take(k) => write!(s, ".take({k})").unwrap(),
                PosOp::StepBy(k) => write!(s, ".step_by({k})").unwrap(),
            }
        }
        for st in &c.stages {
            match st {
                Stage::Map(p, e) => {
                    write!(s, ".map(|{}| {})", pat_str(p), self.expr(e, P_LOWEST)).unwrap()
                }
                Stage::Filter(p, cnd) => {
                    write!(s, ".filter({})", test_closure(p, &self.cond(cnd))).unwrap()
                }
                Stage::FilterMap(p, cnd, e, then) => {
                    let (c, e) = (self.cond(cnd), self.expr(e, P_LOWEST));
                    match then {
                        true => write!(s, ".filter_map(|{}| ({c}).then(|| {e}))", pat_str(p)),
                        false => write!(
                            s,
                            ".filter_map(|{}| if {c} {{ Some({e}) }} else {{ None }})",
                            pat_str(p)
                        ),
                    }
                    .unwrap()
                }
                Stage::Enumerate => s.push_str(".enumerate()"),
                Stage::TakeWhile(p, cnd) => {
                    write!(s, ".take_while({})", test_closure(p, &self.cond(cnd))).unwrap()
                }
                Stage::SkipWhile(p, cnd) => {
                    write!(s, ".skip_while({})", test_closure(p, &self.cond(cnd))).unwrap()
                }
            }
        }
        s
    }

    /// The tape value of one component at position `(p, q)`.
    fn src_leaf(&self, src: &Src, p: &str, q: &str) -> (String, bool) {
        match src {
            Src::Elems { buf, how, .. } => match how {
                How::Ref | How::Plain => (format!("&{buf}[{p}]"), true),
                How::Copied | How::Cloned => (format!("{buf}[{p}]"), false),
            },
            Src::Range { .. } => (p.to_string(), false),
            Src::Slices { buf, .. } => (format!("&{buf}[{p}..{q}]"), false),
        }
    }

    /// The tape loop header over a chain's positions, and the lines that
    /// bind its items to temporaries (the item they form is returned).
    fn chain_head(&self, c: &Chain) -> (String, Vec<String>, Item) {
        let positions = chain_positions(c);
        let list = if positions.is_empty() {
            "[(0usize, 0usize, 0usize, 0usize); 0]".to_string()
        } else {
            let items: Vec<String> = positions
                .iter()
                .enumerate()
                .map(|(k, (p, q, r, s))| {
                    if k == 0 {
                        format!("({p}usize, {q}usize, {r}usize, {s}usize)")
                    } else {
                        format!("({p}, {q}, {r}, {s})")
                    }
                })
                .collect();
            format!("[{}]", items.join(", "))
        };
        // the counters of the `enumerate`s after a `filter`, the flags of
        // the `skip_while`s
        let counters: String = (c.stages.iter().enumerate())
            .filter_map(|(k, st)| match st {
                Stage::Enumerate => Some(format!("let mut oracle_n{k} = 0usize; ")),
                Stage::SkipWhile(..) => Some(format!("let mut oracle_s{k} = true; ")),
                _ => None,
            })
            .collect();
        let head = format!("{counters}for (oracle_p, oracle_q, oracle_r, oracle_s) in {list} ");
        let mut lines = Vec::new();
        let (a, a_ref) = self.src_leaf(&c.src, "oracle_p", "oracle_q");
        lines.push(format!("let oracle_c0 = {a};"));
        let first = Item::Leaf("oracle_c0".into(), a_ref);
        let item = match &c.pair {
            Pair::None => first,
            Pair::Enumerate => {
                lines.push("let oracle_c1: usize = oracle_r;".into());
                Item::Pair(
                    Box::new(Item::Leaf("oracle_c1".into(), false)),
                    Box::new(first),
                )
            }
            Pair::ZipFrom(_) => {
                lines.push("let oracle_c1: usize = oracle_r;".into());
                Item::Pair(
                    Box::new(first),
                    Box::new(Item::Leaf("oracle_c1".into(), false)),
                )
            }
            Pair::Zip(src, _) => {
                let (b, b_ref) = self.src_leaf(src, "oracle_r", "oracle_s");
                lines.push(format!("let oracle_c1 = {b};"));
                Item::Pair(
                    Box::new(first),
                    Box::new(Item::Leaf("oracle_c1".into(), b_ref)),
                )
            }
        };
        (head, lines, item)
    }

    /// `let`s binding `pat` to `item` on the tape.
    fn bind(pat: &Pat, item: &Item, out: &mut Vec<String>) {
        match (pat, item) {
            (Pat::Name(n), Item::Leaf(t, _)) => out.push(format!("let {n} = {t};")),
            (Pat::Amp(p), Item::Leaf(t, true)) => {
                Self::bind(p, &Item::Leaf(format!("*{t}"), false), out)
            }
            (Pat::Pair(a, b), Item::Pair(x, y)) => {
                Self::bind(a, x, out);
                Self::bind(b, y, out);
            }
            (Pat::Name(n), Item::Pair(..)) => {
                unreachable!("a pair bound to a name ({n}) is not generated")
            }
            _ => unreachable!("pattern and item do not fit"),
        }
    }

    /// The `map`/`filter` stages on the tape, inside the loop: each closure
    /// is a block of its own, so its parameters do not leak.
    /// The item stage `k`'s map makes on the tape: `let oracle_m<k> = {
    /// <bindings> e };`.
    fn mapped(&self, k: usize, bindings: &[String], e: &Expr, lines: &mut Vec<String>) -> Item {
        let name = format!("oracle_m{k}");
        lines.push(format!(
            "let {name} = {{ {} {} }};",
            bindings.join(" "),
            self.var_expr(e)
        ));
        Item::Leaf(name, false)
    }

    fn stages(&self, c: &Chain, mut item: Item, lines: &mut Vec<String>) -> Item {
        for (k, st) in c.stages.iter().enumerate() {
            match st {
                Stage::Map(p, e) => {
                    let mut b = Vec::new();
                    Self::bind(p, &item, &mut b);
                    item = self.mapped(k, &b, e, lines);
                }
                // (a filter's pattern matches a reference to the item, a
                // filter_map's the item itself: the same names either way)
                Stage::Filter(p, cnd) | Stage::FilterMap(p, cnd, ..) => {
                    let p = match st {
                        Stage::Filter(..) => matched(p),
                        _ => p,
                    };
                    let mut b = Vec::new();
                    Self::bind(p, &item, &mut b);
                    lines.push(format!(
                        "let oracle_keep: bool = {{ {} {} }};",
                        b.join(" "),
                        self.cond(cnd)
                    ));
                    lines.push("if !oracle_keep { continue; }".to_string());
                    if let Stage::FilterMap(_, _, e, _) = st {
                        item = self.mapped(k, &b, e, lines);
                    }
                }
                Stage::TakeWhile(p, cnd) | Stage::SkipWhile(p, cnd) => {
                    let p = matched(p);
                    let mut b = Vec::new();
                    Self::bind(p, &item, &mut b);
                    let test = format!("{{ {} {} }}", b.join(" "), self.cond(cnd));
                    if matches!(st, Stage::TakeWhile(..)) {
                        lines.push(format!("let oracle_keep: bool = {test};"));
                        lines.push("if !oracle_keep { break; }".to_string());
                    } else {
                        lines.push(format!(
                            "if oracle_s{k} {{ let oracle_skip: bool = {test}; if oracle_skip {{ continue; }} oracle_s{k} = false; }}"
                        ));
                    }
                }
                Stage::Enumerate => {
                    let name = format!("oracle_i{k}");
                    lines.push(format!(
                        "let {name}: usize = oracle_n{k}; oracle_n{k} += 1;"
                    ));
                    item = Item::Pair(Box::new(Item::Leaf(name, false)), Box::new(item));
                }
            }
        }
        item
    }

    /// A consumed chain as a value (`None`: `count`).
    fn chain_expr(&self, c: &Chain, cons: Option<&Consumer>) -> String {
        if !self.tape() {
            let chain = self.chain_text(c);
            return match cons {
                None => format!("{chain}.count() as f64"),
                Some(Consumer::Sum) => format!("{chain}.sum::<f64>()"),
                Some(Consumer::Product) => format!("{chain}.product::<f64>()"),
                Some(Consumer::Fold(init, acc, p, body)) => format!(
                    "{chain}.fold({}, |{acc}, {}| {})",
                    self.expr(init, P_LOWEST),
                    pat_str(p),
                    self.expr(body, P_LOWEST)
                ),
                Some(Consumer::Extreme {
                    max,
                    copied,
                    default,
                    indexed: true,
                    refs,
                    ..
                }) => {
                    let amp = if *refs { "&" } else { "" };
                    let copied = if *copied { ".copied()" } else { "" };
                    let which = if *max { "max" } else { "min" };
                    format!(
                        "({{ let (best_i, best_v) = {chain}{copied}.enumerate().{which}_by(|a, b| \
                         a.1.total_cmp(&b.1)).unwrap_or((0, {amp}{})); best_v + best_i as f64 }})",
                        lit(*default)
                    )
                }
                Some(Consumer::Extreme {
                    max,
                    by,
                    copied,
                    default,
                    indexed: false,
                    ..
                }) => {
                    let copied = if *copied { ".copied()" } else { "" };
                    let which = if *max { "max" } else { "min" };
                    let consumer = match by {
                        true => format!("{which}_by(|a, b| a.total_cmp(b))"),
                        false => format!("reduce(f64::{which})"),
                    };
                    format!("{chain}{copied}.{consumer}.unwrap_or({})", lit(*default))
                }
                Some(Consumer::Find {
                    next,
                    last,
                    if_let,
                    find_map,
                    test,
                    cond,
                    pat,
                    body,
                    default,
                    map_or,
                }) => {
                    let v = self.expr(default, P_LOWEST);
                    if *find_map {
                        // (the item is `Copy`: bound by each pattern in turn)
                        let found = format!(
                            "{chain}.find_map(|oracle_it| {{ let {} = oracle_it; if {} {{ let {} = oracle_it; Some({}) }} else {{ None }} }})",
                            pat_str(matched(test)),
                            self.cond(cond),
                            pat_str(pat),
                            self.expr(body, P_LOWEST)
                        );
                        return match map_or {
                            true => format!("{found}.map_or({v}, |oracle_r| oracle_r)"),
                            false => format!("{found}.unwrap_or({v})"),
                        };
                    }
                    let method = if *next || *last { "filter" } else { "find" };
                    let then = match (next, last) {
                        (_, true) => ".last()",
                        (true, _) => ".next()",
                        _ => "",
                    };
                    let found = format!(
                        "{chain}.{method}({}){then}",
                        test_closure(test, &self.cond(cond))
                    );
                    let g = format!("|{}| {}", pat_str(pat), self.expr(body, P_LOWEST));
                    if *if_let {
                        return format!(
                            "(if let Some({}) = {found} {{ {} }} else {{ {v} }})",
                            pat_str(pat),
                            self.expr(body, P_LOWEST)
                        );
                    }
                    match map_or {
                        true => format!("{found}.map_or({v}, {g})"),
                        false => format!("{found}.map({g}).unwrap_or({v})"),
                    }
                }
            };
        }
        let (head, mut lines, item) = self.chain_head(c);
        let item = self.stages(c, item, &mut lines);
        let value = |item: &Item| match item {
            Item::Leaf(t, true) => format!("*{t}"),
            Item::Leaf(t, false) => t.clone(),
            Item::Pair(..) => unreachable!("a pair is not summed"),
        };
        let (init, update, result) = match cons {
            None => (
                "let mut oracle_acc = 0usize;".to_string(),
                "oracle_acc += 1;".to_string(),
                "oracle_acc as f64".to_string(),
            ),
            Some(Consumer::Sum) => (
                format!("let mut oracle_acc = {TAPE}.var(-0.0);"),
                format!("oracle_acc = oracle_acc + {};", value(&item)),
                "oracle_acc".to_string(),
            ),
            Some(Consumer::Product) => (
                format!("let mut oracle_acc = {TAPE}.var(1.0);"),
                format!("oracle_acc = oracle_acc * {};", value(&item)),
                "oracle_acc".to_string(),
            ),
            Some(Consumer::Extreme {
                max,
                default,
                indexed: true,
                ..
            }) => {
                // (of equals `max_by` keeps the later, `min_by` the earlier)
                let (greater, other) = match max {
                    true => ("oracle_a", "(oracle_n, oracle_e)"),
                    false => ("(oracle_n, oracle_e)", "oracle_a"),
                };
                (
                    "let mut oracle_acc: Option<(usize, Var<'t>)> = None; let mut oracle_n = 0usize;"
                        .to_string(),
                    format!(
                        "let oracle_e = {TAPE}.var(-0.0) + {}; oracle_acc = Some(match oracle_acc {{ None => (oracle_n, oracle_e), Some(oracle_a) => if oracle_a.1.value().total_cmp(&oracle_e.value()) == ::std::cmp::Ordering::Greater {{ {greater} }} else {{ {other} }} }}); oracle_n += 1;",
                        value(&item)
                    ),
                    format!(
                        "{{ let (oracle_i, oracle_v) = oracle_acc.unwrap_or((0, {TAPE}.var({}))); oracle_v + oracle_i as f64 }}",
                        lit(*default)
                    ),
                )
            }
            Some(Consumer::Extreme {
                max, by, default, ..
            }) => {
                let step = match (by, max) {
                    (false, true) => "oracle_a.max(oracle_e)".to_string(),
                    (false, false) => "oracle_a.min(oracle_e)".to_string(),
                    // (of equals `max_by` keeps the later, `min_by` the earlier)
                    (true, max) => {
                        let (greater, other) = match max {
                            true => ("oracle_a", "oracle_e"),
                            false => ("oracle_e", "oracle_a"),
                        };
                        format!(
                            "if oracle_a.value().total_cmp(&oracle_e.value()) == ::std::cmp::Ordering::Greater {{ {greater} }} else {{ {other} }}"
                        )
                    }
                };
                (
                    "let mut oracle_acc: Option<Var<'t>> = None;".to_string(),
                    format!(
                        "let oracle_e = {TAPE}.var(-0.0) + {}; oracle_acc = Some(match oracle_acc {{ None => oracle_e, Some(oracle_a) => {step} }});",
                        value(&item)
                    ),
                    format!("oracle_acc.unwrap_or({TAPE}.var({}))", lit(*default)),
                )
            }
            Some(Consumer::Find {
                last,
                test,
                cond,
                pat,
                body,
                default,
                ..
            }) => {
                // (a `last()` keeps the last that passes: no `break`)
                let stop = if *last { "" } else { " break;" };
                let test = matched(test);
                let (mut t, mut b) = (Vec::new(), Vec::new());
                Self::bind(test, &item, &mut t);
                Self::bind(pat, &item, &mut b);
                (
                    "let mut oracle_acc: Option<Var<'t>> = None;".to_string(),
                    format!(
                        "let oracle_keep: bool = {{ {} {} }}; if oracle_keep {{ oracle_acc = Some({{ {} {} }});{stop} }}",
                        t.join(" "),
                        self.cond(cond),
                        b.join(" "),
                        self.var_expr(body)
                    ),
                    format!("oracle_acc.unwrap_or({})", self.var_expr(default)),
                )
            }
            Some(Consumer::Fold(init, acc, p, body)) => {
                let mut b = Vec::new();
                Self::bind(p, &item, &mut b);
                (
                    format!("let mut oracle_acc = {};", self.var_expr(init)),
                    format!(
                        "oracle_acc = {{ let {acc} = oracle_acc; {} {} }};",
                        b.join(" "),
                        self.var_expr(body)
                    ),
                    "oracle_acc".to_string(),
                )
            }
        };
        format!(
            "({{ {init} {head}{{ {} {update} }} {result} }})",
            lines.join(" ")
        )
    }

    fn for_chain(&mut self, pat: &Pat, c: &Chain, body: &Block, for_each: bool) {
        if !self.tape() {
            let text = self.chain_text(c);
            if for_each {
                self.line(&format!("{text}.for_each(|{}| {{", pat_str(pat)));
                self.indent += 1;
                self.block_body(body, false);
                self.indent -= 1;
                self.line("});");
                return;
            }
            self.braced(&format!("for {} in {text} ", pat_str(pat)), body, false);
            return;
        }
        let (head, mut lines, item) = self.chain_head(c);
        let item = self.stages(c, item, &mut lines);
        Self::bind(pat, &item, &mut lines);
        self.line(&format!("{head}{{"));
        self.indent += 1;
        for l in &lines {
            self.line(l);
        }
        self.block_body(body, false);
        self.indent -= 1;
        self.line("}");
    }

    #[allow(clippy::too_many_arguments)]
    fn iter_mut(
        &mut self,
        buf: &str,
        len: usize,
        pos: &[PosOp],
        index: Option<&str>,
        var: &str,
        op: AssignOp,
        value: &Expr,
    ) {
        let op_s = match op {
            AssignOp::Set => "=",
            AssignOp::Add => "+=",
            AssignOp::Sub => "-=",
            AssignOp::Mul => "*=",
            AssignOp::Div => "/=",
        };
        if !self.tape() {
            let mut it = format!("{buf}.iter_mut()");
            for op in pos {
                match op {
                    PosOp::Rev => it.push_str(".rev()"),
                    PosOp::Skip(k) => write!(it, ".skip({k})").unwrap(),
                    PosOp::Take(k) => write!(it, ".take({k})").unwrap(),
                    PosOp::StepBy(k) => write!(it, ".step_by({k})").unwrap(),
                }
            }
            let pat = match index {
                Some(j) => {
                    it.push_str(".enumerate()");
                    format!("({j}, {var})")
                }
                None => var.to_string(),
            };
            let v = if op == AssignOp::Set {
                self.var_expr(value)
            } else {
                self.expr(value, P_LOWEST)
            };
            self.line(&format!("for {pat} in {it} {{"));
            self.indent += 1;
            self.line(&format!("*{var} {op_s} {v};"));
            self.indent -= 1;
            self.line("}");
            return;
        }
        let chain = Chain {
            src: Src::Elems {
                buf: buf.to_string(),
                len,
                lo: 0,
                hi: len,
                sliced: false,
                how: How::Copied,
            },
            pos: pos.to_vec(),
            pair: if index.is_some() {
                Pair::Enumerate
            } else {
                Pair::None
            },
            after: vec![],
            stages: vec![],
        };
        let (head, _, _) = self.chain_head(&chain);
        self.line(&format!("{head}{{"));
        self.indent += 1;
        self.line(&format!("let oracle_c0 = {buf}[oracle_p];"));
        self.line(&format!("let {var} = &oracle_c0;"));
        if let Some(j) = index {
            self.line(&format!("let {j}: usize = oracle_r;"));
        }
        self.line(&format!("let oracle_rhs = {};", self.var_expr(value)));
        self.line(&format!("{buf}[oracle_p] {op_s} oracle_rhs;"));
        self.indent -= 1;
        self.line("}");
    }

    fn destructure(&mut self, names: &[(Option<String>, bool)], init: &DInit, annotate: bool) {
        if !self.tape() {
            let pats: Vec<String> = names
                .iter()
                .map(|(n, m)| match n {
                    None => "_".to_string(),
                    Some(n) if *m => format!("mut {n}"),
                    Some(n) => n.clone(),
                })
                .collect();
            let (pat, ann, value) = match init {
                DInit::Tuple(items) => {
                    let items: Vec<String> = items.iter().map(|e| self.expr(e, P_LOWEST)).collect();
                    (
                        format!("({})", pats.join(", ")),
                        format!("({})", vec!["f64"; items.len()].join(", ")),
                        format!("({})", items.join(", ")),
                    )
                }
                DInit::SinCos(e, form) => {
                    let v = self.plain_method("sin_cos", *form, e, &[]);
                    (format!("({})", pats.join(", ")), "(f64, f64)".into(), v)
                }
                DInit::Array { src, deref } => (
                    format!("[{}]", pats.join(", ")),
                    format!("[f64; {}]", names.len()),
                    if *deref {
                        format!("*{src}")
                    } else {
                        src.clone()
                    },
                ),
            };
            if annotate {
                self.line(&format!("let {pat}: {ann} = {value};"));
            } else {
                self.line(&format!("let {pat} = {value};"));
            }
            return;
        }
        // On the tape: every value into a temporary first (a name of the
        // pattern may shadow what a later value reads), then the names.
        match init {
            DInit::Tuple(items) => {
                for (k, e) in items.iter().enumerate() {
                    self.line(&format!("let oracle_d{k} = {};", self.var_expr(e)));
                }
            }
            DInit::SinCos(e, _) => {
                self.line(&format!("let oracle_d = {};", self.var_expr(e)));
                self.line("let oracle_d0 = oracle_d.sin();");
                self.line("let oracle_d1 = oracle_d.cos();");
            }
            DInit::Array { src, .. } => {
                for k in 0..names.len() {
                    self.line(&format!("let oracle_d{k} = {src}[{k}];"));
                }
            }
        }
        for (k, (n, m)) in names.iter().enumerate() {
            if let Some(n) = n {
                let m = if *m { "mut " } else { "" };
                self.line(&format!("let {m}{n} = oracle_d{k};"));
            }
        }
    }
}

/// `RANDOM_PROGRAMS_HESSIAN=1`: every function is `#[differentiable(hessian)]`
/// and the checker also checks `f_hessian` (against finite differences of
/// `f_grad`) and `f_hvp` (against `f_hessian`).
pub fn hessian_mode() -> bool {
    std::env::var_os("RANDOM_PROGRAMS_HESSIAN").is_some()
}
