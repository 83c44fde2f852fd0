//! Lowering: the function body (syn) becomes the IR of [`crate::ir`].
//!
//! Name resolution happens here: every `let` binding gets its own variable
//! with a unique emitted name, and every assignment to a float local creates a
//! new version of it, so straight-line code is in SSA form and the reverse
//! sweep can read any value the forward sweep computed. Sub-expressions that
//! carry no derivative (literals, `n as f64`, constant parameters, integer
//! arithmetic, comparisons) are kept whole as Rust tokens. Everything outside
//! the supported subset is reported to the [`Ctxt`] at its span; lowering
//! then carries on with a placeholder, so all errors are reported at once.

use crate::ctxt::Ctxt;
use crate::ir::{Block, Func, Kind, Operand, Origin, Rhs, Stmt, Syntax, Var, VarId};
use crate::prim::{self, Arity, Prim};
use crate::signature::{is_f64, ParamClass, Signature};
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use std::collections::{HashMap, HashSet};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{BinOp, Expr, Ident, Pat, UnOp};

/// Statement macros that run unchanged in the forward sweep.
const STATEMENT_MACROS: &[&str] = &[
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "print",
    "println",
    "eprint",
    "eprintln",
];

/// Lowers the body of `item`, whose signature has been analysed into `sig`.
pub fn lower(cx: &Ctxt, sig: &Signature, item: &syn::ItemFn) -> Func {
    let mut lowerer = Lowerer::new(cx, item);
    lowerer.declare_params(sig);
    lowerer.lower_body(&item.block);
    Func {
        vars: lowerer.vars,
        body: Block {
            stmts: lowerer.stmts,
        },
    }
}

/// The result of lowering an expression.
#[derive(Clone)]
enum Value {
    /// A float variable (possibly carrying a derivative).
    Var(VarId),
    /// A whole float array or slice variable.
    Array(VarId),
    /// A Rust expression that carries no derivative.
    Const(Const),
}

#[derive(Clone)]
struct Const {
    tokens: TokenStream,
    /// Statically an `f64` (`2.0`, `n as f64`, `PI`); otherwise an integer,
    /// boolean, user type, or a constant the macro cannot see the type of.
    is_float: bool,
    /// Mentions no local that is reassigned in place, so it evaluates to the
    /// same value wherever it is re-evaluated (the reverse sweep does).
    stable: bool,
    /// Does the expression read a float variable (a non-differentiated use).
    reads_float: bool,
}

impl Const {
    fn new(tokens: TokenStream, is_float: bool) -> Const {
        Const {
            tokens,
            is_float,
            stable: true,
            reads_float: false,
        }
    }
}

struct Lowerer<'a> {
    cx: &'a Ctxt,
    vars: Vec<Var>,
    /// Innermost scope last: user name → variable.
    scopes: Vec<HashMap<String, VarId>>,
    /// Per scope, like `scopes`: element reads already lowered, by array and
    /// index, so `x[0]` read twice is one value (and one adjoint update).
    loads: Vec<HashMap<(VarId, String), VarId>>,
    /// Every identifier the user wrote, so emitted names never collide.
    user_idents: HashSet<String>,
    /// Emitted names given out so far.
    allocated: HashSet<String>,
    temps: usize,
    /// Statements of the function, in order (blocks are flattened: every
    /// variable has a unique name, so scopes are resolved already).
    stmts: Vec<Stmt>,
    /// A `return` was lowered: what follows is unreachable.
    returned: bool,
}

impl<'a> Lowerer<'a> {
    fn new(cx: &'a Ctxt, item: &syn::ItemFn) -> Self {
        let mut user_idents = HashSet::new();
        collect_idents(item.to_token_stream(), &mut user_idents);
        Lowerer {
            cx,
            vars: Vec::new(),
            scopes: vec![HashMap::new()],
            loads: vec![HashMap::new()],
            user_idents,
            allocated: HashSet::new(),
            temps: 0,
            stmts: Vec::new(),
            returned: false,
        }
    }

    // ----- variables and names -------------------------------------------

    fn declare_params(&mut self, sig: &Signature) {
        for (index, param) in sig.params.iter().enumerate() {
            let Some(name) = &param.name else { continue };
            let kind = match param.class {
                ParamClass::Scalar => Kind::Float,
                ParamClass::Slice | ParamClass::Array { .. } => Kind::FloatArray,
                ParamClass::Constant => Kind::Other,
            };
            self.allocated.insert(name.to_string());
            let id = self.push_var(Var {
                ident: name.clone(),
                kind,
                origin: Origin::Param {
                    index,
                    active: param.active,
                },
                mutable: param.mutable && kind == Kind::Other,
            });
            self.bind(name, id);
        }
    }

    fn push_var(&mut self, var: Var) -> VarId {
        self.vars.push(var);
        self.vars.len() - 1
    }

    /// A fresh name for a binding of `name`: the name itself the first time,
    /// then `name__1`, `name__2`, ... (skipping anything the user wrote).
    fn fresh_name(&mut self, name: &Ident) -> Ident {
        let base = name.to_string();
        let plain = base.trim_start_matches("r#");
        let mut candidate = base.clone();
        let mut n = 0;
        while self.allocated.contains(&candidate)
            || (n > 0 && self.user_idents.contains(&candidate))
        {
            n += 1;
            candidate = format!("{plain}__{n}");
        }
        self.allocated.insert(candidate.clone());
        if n == 0 {
            name.clone()
        } else {
            Ident::new(&candidate, name.span())
        }
    }

    fn new_local(&mut self, name: &Ident, kind: Kind, mutable: bool) -> VarId {
        let ident = self.fresh_name(name);
        self.push_var(Var {
            ident,
            kind,
            origin: Origin::Local,
            mutable,
        })
    }

    fn new_temp(&mut self, kind: Kind) -> VarId {
        let ident = format_ident!("__ad_t{}", self.temps);
        self.temps += 1;
        self.push_var(Var {
            ident,
            kind,
            origin: Origin::Temp,
            mutable: false,
        })
    }

    fn bind(&mut self, name: &Ident, id: VarId) {
        let scope = self.scopes.last_mut().expect("scope stack is never empty");
        scope.insert(name.to_string(), id);
    }

    /// Points an existing binding of `name` (in whichever scope holds it) at
    /// a new version.
    fn rebind(&mut self, name: &Ident, id: VarId) {
        let key = name.to_string();
        for scope in self.scopes.iter_mut().rev() {
            if let Some(slot) = scope.get_mut(&key) {
                *slot = id;
                return;
            }
        }
    }

    fn lookup(&self, name: &str) -> Option<VarId> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    fn ident(&self, id: VarId) -> &Ident {
        &self.vars[id].ident
    }

    // ----- statements ----------------------------------------------------

    fn lower_body(&mut self, block: &syn::Block) {
        if let Some(tail) = self.lower_stmts(&block.stmts) {
            let span = tail.span();
            let value = self.lower_expr(&tail);
            let value = self.operand(value, span);
            self.stmts.push(Stmt::Return { value, span });
        }
    }

    /// Lowers statements into `self.stmts`; returns the tail expression, if
    /// the block ends in one and no `return` came first.
    fn lower_stmts(&mut self, stmts: &[syn::Stmt]) -> Option<Expr> {
        for (i, stmt) in stmts.iter().enumerate() {
            if self.returned {
                // Unreachable; rustc warns about it in the original function.
                return None;
            }
            let last = i + 1 == stmts.len();
            match stmt {
                syn::Stmt::Local(local) => self.lower_let(local),
                syn::Stmt::Item(item) => self.lower_item(item),
                syn::Stmt::Expr(expr, None) if last && !matches!(expr, Expr::Return(_)) => {
                    return Some(expr.clone());
                }
                syn::Stmt::Expr(expr, _) => self.lower_expr_stmt(expr),
                syn::Stmt::Macro(mac) => {
                    self.lower_statement_macro(&mac.mac, mac.to_token_stream())
                }
            }
        }
        None
    }

    /// Items inside a body (`const K: f64 = 2.0;`, `use`, helper `fn`s) are
    /// constants: emitted as they are.
    fn lower_item(&mut self, item: &syn::Item) {
        match item {
            syn::Item::Const(_) | syn::Item::Use(_) | syn::Item::Fn(_) | syn::Item::Static(_) => {
                self.stmts.push(Stmt::Opaque(item.to_token_stream()));
            }
            other => self.cx.error_spanned_by(
                other,
                "this item is not supported inside a `#[differentiable]` body; move it \
                 out of the function",
            ),
        }
    }

    fn lower_let(&mut self, local: &syn::Local) {
        if let Some(init) = &local.init {
            if let Some((else_token, _)) = &init.diverge {
                self.cx.error_spanned_by(
                    else_token,
                    "`let ... else` is not supported by `#[differentiable]`",
                );
                return;
            }
        }
        let (pat, ty) = match &local.pat {
            Pat::Type(pat_type) => (&*pat_type.pat, Some(&*pat_type.ty)),
            pat => (pat, None),
        };
        let value = local.init.as_ref().map(|init| self.lower_expr(&init.expr));
        let (name, mutable) = match pat {
            Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                (p.ident.clone(), p.mutability.is_some())
            }
            Pat::Wild(_) => {
                // `let _ = expr;`: evaluated for its effects, if any.
                if let Some(Value::Const(c)) = value {
                    let tokens = c.tokens;
                    self.stmts.push(Stmt::Opaque(quote!(let _ = #tokens;)));
                }
                return;
            }
            other => {
                self.cx.error_spanned_by(
                    other,
                    "destructuring `let` is not supported by `#[differentiable]`; bind \
                     each value with its own `let`",
                );
                return;
            }
        };
        let declared_kind = ty.map(|ty| if is_f64(ty) { Kind::Float } else { Kind::Other });
        let ty_tokens = ty.map(ToTokens::to_token_stream);
        match value {
            None => {
                // `let y;` / `let y: f64;`: the first assignment defines it.
                let kind = declared_kind.unwrap_or(Kind::Other);
                let id = self.new_local(&name, kind, mutable || kind == Kind::Other);
                if kind == Kind::Other {
                    self.stmts.push(Stmt::Let {
                        var: id,
                        ty: ty_tokens,
                        init: None,
                    });
                }
                self.bind(&name, id);
            }
            Some(Value::Array(array)) => {
                // `let v = w;`: another name for the same array.
                self.bind(&name, array);
            }
            Some(Value::Var(source)) if declared_kind != Some(Kind::Other) => {
                let id = self.define(&name, Rhs::Use(Operand::Var(source)), source);
                self.bind(&name, id);
            }
            Some(Value::Var(source)) => {
                // `let n: usize = x as usize` style: not a float, keep it as it is.
                let tokens = self.ident(source).to_token_stream();
                let id = self.new_local(&name, Kind::Other, mutable);
                self.stmts.push(Stmt::Let {
                    var: id,
                    ty: ty_tokens,
                    init: Some(Rhs::Use(Operand::Const(tokens))),
                });
                self.bind(&name, id);
            }
            Some(Value::Const(c)) => {
                let kind =
                    declared_kind.unwrap_or(if c.is_float { Kind::Float } else { Kind::Other });
                let id = self.new_local(&name, kind, mutable && kind == Kind::Other);
                let ty = if kind == Kind::Float {
                    Some(quote!(f64))
                } else {
                    ty_tokens
                };
                self.stmts.push(Stmt::Let {
                    var: id,
                    ty,
                    init: Some(Rhs::Use(Operand::Const(c.tokens))),
                });
                self.bind(&name, id);
            }
        }
    }

    /// Defines a new float local `name` holding `rhs`. When `rhs` is a copy
    /// of the temporary the last statement just defined, that statement is
    /// renamed instead, so `let y = a * b;` emits one `let`, not two.
    fn define(&mut self, name: &Ident, rhs: Rhs, source: VarId) -> VarId {
        let just_defined = matches!(
            self.stmts.last(),
            Some(Stmt::Let { var, .. }) if *var == source
        );
        if just_defined && self.vars[source].origin == Origin::Temp {
            let ident = self.fresh_name(name);
            let var = &mut self.vars[source];
            var.ident = ident;
            var.origin = Origin::Local;
            return source;
        }
        let id = self.new_local(name, Kind::Float, false);
        self.stmts.push(Stmt::Let {
            var: id,
            ty: None,
            init: Some(rhs),
        });
        id
    }

    fn lower_expr_stmt(&mut self, expr: &Expr) {
        match expr {
            Expr::Assign(assign) => self.lower_assign(&assign.left, None, &assign.right, expr),
            Expr::Binary(binary) if compound_op(&binary.op).is_some() => {
                self.lower_assign(&binary.left, Some(&binary.op), &binary.right, expr)
            }
            Expr::Return(ret) => {
                let span = expr.span();
                let value = match &ret.expr {
                    Some(value) => self.lower_expr(value),
                    None => {
                        self.cx.error_spanned_by(
                            ret,
                            "`return` needs a value: the function returns `f64`",
                        );
                        Value::Const(placeholder())
                    }
                };
                let value = self.operand(value, span);
                self.stmts.push(Stmt::Return { value, span });
                self.returned = true;
            }
            Expr::Macro(mac) => self.lower_statement_macro(&mac.mac, expr.to_token_stream()),
            _ => {
                // Evaluated for its effects: a constant may call something.
                if let Value::Const(c) = self.lower_expr(expr) {
                    let tokens = c.tokens;
                    self.stmts.push(Stmt::Opaque(quote!(#tokens;)));
                }
            }
        }
    }

    /// `place = rhs` or `place op= rhs`.
    fn lower_assign(&mut self, place: &Expr, op: Option<&BinOp>, rhs: &Expr, whole: &Expr) {
        let name = match strip_parens(place) {
            Expr::Path(path) if path.qself.is_none() => path.path.get_ident().cloned(),
            Expr::Index(_) => {
                self.cx.error_spanned_by(
                    place,
                    "assigning to an array element is not supported by `#[differentiable]` \
                     yet; compute the value in a local",
                );
                return;
            }
            _ => None,
        };
        let Some((name, target)) = name.and_then(|n| self.lookup(&n.to_string()).map(|id| (n, id)))
        else {
            self.cx.error_spanned_by(
                place,
                "`#[differentiable]` can only assign to local variables and parameters",
            );
            return;
        };
        let value = self.lower_expr(rhs);
        match (self.vars[target].kind, &value) {
            (Kind::FloatArray, _) => self.cx.error_spanned_by(
                place,
                "assigning a whole slice or array is not supported by `#[differentiable]`",
            ),
            // An integer (or other non-float) local updated with a constant.
            (Kind::Other, Value::Const(c)) => {
                if !self.vars[target].mutable {
                    // rustc reports the missing `mut` on the original function.
                    self.vars[target].mutable = true;
                }
                let ident = self.ident(target).clone();
                let tokens = &c.tokens;
                let op = op.map_or_else(|| quote!(=), ToTokens::to_token_stream);
                self.stmts.push(Stmt::Opaque(quote!(#ident #op #tokens;)));
            }
            _ => {
                // A float: the assignment defines a new version of the variable.
                let rhs = match op {
                    None => match value {
                        Value::Var(source) => {
                            let id = self.define(&name, Rhs::Use(Operand::Var(source)), source);
                            self.rebind(&name, id);
                            return;
                        }
                        other => Rhs::Use(self.operand(other, rhs.span())),
                    },
                    Some(op) => {
                        let prim = compound_op(op).expect("checked by the caller");
                        let old = if self.vars[target].kind == Kind::Float {
                            Operand::Var(target)
                        } else {
                            Operand::Const(self.ident(target).to_token_stream())
                        };
                        let new = self.operand(value, rhs.span());
                        let _ = whole;
                        Rhs::Prim {
                            prim,
                            args: vec![old, new],
                            syntax: Syntax::Operator,
                        }
                    }
                };
                let id = self.new_local(&name, Kind::Float, false);
                self.stmts.push(Stmt::Let {
                    var: id,
                    ty: None,
                    init: Some(rhs),
                });
                self.rebind(&name, id);
            }
        }
    }

    fn lower_statement_macro(&mut self, mac: &syn::Macro, tokens: TokenStream) {
        let name = mac
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        if !STATEMENT_MACROS.contains(&name.as_str()) {
            self.cx.error_spanned_by(
                &mac.path,
                format!(
                    "macro `{name}!` is not supported by `#[differentiable]`; the statement \
                     macros `assert!`, `assert_eq!`, `debug_assert!`, `println!` and \
                     `eprintln!` (and their variants) are"
                ),
            );
            return;
        }
        // The macro's tokens name locals by their user names; where a local
        // was renamed (shadowing, reassignment), bring the current version in
        // under its user name for the macro's sake.
        let mut mentioned = HashSet::new();
        collect_idents(mac.tokens.clone(), &mut mentioned);
        let strings = string_literals(mac.tokens.clone());
        let mut aliases = Vec::new();
        for (name, id) in self.visible() {
            let ident = self.ident(id);
            let in_format = strings.iter().any(|s| s.contains(&format!("{{{name}")));
            if *ident != name && (mentioned.contains(&name) || in_format) {
                let user = match name.strip_prefix("r#") {
                    Some(raw) => Ident::new_raw(raw, ident.span()),
                    None => Ident::new(&name, ident.span()),
                };
                aliases.push(quote!(let #user = #ident;));
            }
        }
        let stmt = if aliases.is_empty() {
            quote!(#tokens)
        } else {
            quote!({ #(#aliases)* #tokens })
        };
        self.stmts.push(Stmt::Opaque(stmt));
    }

    /// Every user name in scope and the variable it currently means.
    fn visible(&self) -> Vec<(String, VarId)> {
        let mut seen: HashMap<String, VarId> = HashMap::new();
        for scope in &self.scopes {
            for (name, id) in scope {
                seen.insert(name.clone(), *id);
            }
        }
        let mut out: Vec<_> = seen.into_iter().collect();
        out.sort();
        out
    }

    // ----- expressions ---------------------------------------------------

    /// Turns a lowered value into an operand of a differentiable operation.
    /// Constants that would not survive re-evaluation in the reverse sweep
    /// (they read an integer local that changes later) are saved in a
    /// temporary first.
    fn operand(&mut self, value: Value, span: Span) -> Operand {
        match value {
            Value::Var(id) => Operand::Var(id),
            Value::Const(c) if c.stable => Operand::Const(parenthesize(c.tokens)),
            Value::Const(c) => {
                let kind = if c.is_float { Kind::Float } else { Kind::Other };
                let temp = self.new_temp(kind);
                self.stmts.push(Stmt::Let {
                    var: temp,
                    ty: None,
                    init: Some(Rhs::Use(Operand::Const(c.tokens))),
                });
                if kind == Kind::Float {
                    Operand::Var(temp)
                } else {
                    Operand::Const(self.ident(temp).to_token_stream())
                }
            }
            Value::Array(id) => {
                self.cx.error_at(
                    span,
                    format!(
                        "a whole slice or array (`{}`) cannot be used as a number here; \
                         index it: `{}[i]`",
                        self.vars[id].ident, self.vars[id].ident
                    ),
                );
                Operand::Const(placeholder().tokens)
            }
        }
    }

    /// Emits `temp = prim(args)` and returns the temporary.
    fn apply(&mut self, prim: &'static Prim, args: Vec<Operand>, syntax: Syntax) -> Value {
        let temp = self.new_temp(Kind::Float);
        self.stmts.push(Stmt::Let {
            var: temp,
            ty: None,
            init: Some(Rhs::Prim { prim, args, syntax }),
        });
        Value::Var(temp)
    }

    fn lower_expr(&mut self, expr: &Expr) -> Value {
        match expr {
            Expr::Paren(inner) => match self.lower_expr(&inner.expr) {
                Value::Const(c) => Value::Const(Const {
                    tokens: parenthesize(c.tokens),
                    ..c
                }),
                other => other,
            },
            Expr::Group(inner) => self.lower_expr(&inner.expr),
            Expr::Lit(lit) => {
                let is_float = matches!(lit.lit, syn::Lit::Float(_));
                Value::Const(Const::new(lit.to_token_stream(), is_float))
            }
            Expr::Path(path) => self.lower_path(path),
            Expr::Binary(binary) => self.lower_binary(binary, expr),
            Expr::Unary(unary) => self.lower_unary(unary, expr),
            Expr::Cast(cast) => self.lower_cast(cast),
            Expr::MethodCall(call) => self.lower_method_call(call),
            Expr::Call(call) => self.lower_call(call),
            Expr::Index(index) => self.lower_index(index),
            Expr::Field(field) => self.lower_field(field),
            Expr::Block(block) if block.label.is_none() => {
                self.lower_block_expr(&block.block, expr)
            }
            _ => self.unsupported(expr),
        }
    }

    fn lower_path(&mut self, path: &syn::ExprPath) -> Value {
        if path.qself.is_none() {
            if let Some(ident) = path.path.get_ident() {
                if let Some(id) = self.lookup(&ident.to_string()) {
                    let var = &self.vars[id];
                    let renamed = respan(&var.ident, ident.span());
                    return match var.kind {
                        Kind::Float => Value::Var(id),
                        Kind::FloatArray => Value::Array(id),
                        Kind::Other => Value::Const(Const {
                            tokens: renamed.to_token_stream(),
                            is_float: false,
                            stable: !var.mutable,
                            reads_float: false,
                        }),
                    };
                }
            }
        }
        // A constant item, a `self`, an enum variant, ...
        let is_float = is_float_const_path(&path.path);
        Value::Const(Const::new(path.to_token_stream(), is_float))
    }

    fn lower_binary(&mut self, binary: &syn::ExprBinary, whole: &Expr) -> Value {
        let prim = match binary.op {
            BinOp::Add(_) => &prim::ADD,
            BinOp::Sub(_) => &prim::SUB,
            BinOp::Mul(_) => &prim::MUL,
            BinOp::Div(_) => &prim::DIV,
            op if compound_op(&op).is_some() => {
                self.cx.error_spanned_by(
                    whole,
                    "compound assignment is only supported as a statement: `x += y;`",
                );
                return Value::Const(placeholder());
            }
            // Comparisons, `&&`, `||`, `%`, bit operations: no derivative.
            _ => return self.non_differentiated(whole),
        };
        let left = self.lower_expr(&binary.left);
        let right = self.lower_expr(&binary.right);
        if let (Value::Const(l), Value::Const(r)) = (&left, &right) {
            let (lt, rt, op) = (
                parenthesize(l.tokens.clone()),
                parenthesize(r.tokens.clone()),
                &binary.op,
            );
            return Value::Const(Const {
                tokens: quote!(#lt #op #rt),
                is_float: l.is_float || r.is_float,
                stable: l.stable && r.stable,
                reads_float: l.reads_float || r.reads_float,
            });
        }
        let args = vec![
            self.operand(left, binary.left.span()),
            self.operand(right, binary.right.span()),
        ];
        self.apply(prim, args, Syntax::Operator)
    }

    fn lower_unary(&mut self, unary: &syn::ExprUnary, whole: &Expr) -> Value {
        match unary.op {
            UnOp::Neg(_) => match self.lower_expr(&unary.expr) {
                Value::Const(c) => {
                    let tokens = parenthesize(c.tokens.clone());
                    Value::Const(Const {
                        tokens: quote!(-#tokens),
                        ..c
                    })
                }
                value => {
                    let arg = self.operand(value, unary.expr.span());
                    self.apply(&prim::NEG, vec![arg], Syntax::Operator)
                }
            },
            UnOp::Deref(_) => match self.lower_expr(&unary.expr) {
                Value::Const(c) => {
                    let tokens = parenthesize(c.tokens.clone());
                    Value::Const(Const {
                        tokens: quote!(*#tokens),
                        ..c
                    })
                }
                // `*w` of an array reference is the array itself.
                other => other,
            },
            _ => self.non_differentiated(whole),
        }
    }

    fn lower_cast(&mut self, cast: &syn::ExprCast) -> Value {
        let target_is_f64 = is_f64(&cast.ty);
        match self.lower_expr(&cast.expr) {
            // `x as f64` of a float is the float itself.
            Value::Var(id) if target_is_f64 => Value::Var(id),
            Value::Var(id) => {
                let ty = &cast.ty;
                if is_float_type(ty) {
                    self.cx.error_spanned_by(
                        cast,
                        "casting a differentiated value to `f32` is not supported: \
                         `#[differentiable]` computes in `f64` throughout",
                    );
                    return Value::Const(placeholder());
                }
                // Casting to an integer: a step function, derivative zero.
                let ident = self.ident(id);
                Value::Const(Const {
                    tokens: quote!((#ident as #ty)),
                    is_float: false,
                    stable: true,
                    reads_float: true,
                })
            }
            Value::Const(c) => {
                let (tokens, ty) = (parenthesize(c.tokens.clone()), &cast.ty);
                Value::Const(Const {
                    tokens: quote!(#tokens as #ty),
                    is_float: target_is_f64,
                    ..c
                })
            }
            Value::Array(_) => {
                self.cx
                    .error_spanned_by(cast, "a slice or array cannot be cast to a number");
                Value::Const(placeholder())
            }
        }
    }

    fn lower_method_call(&mut self, call: &syn::ExprMethodCall) -> Value {
        let name = call.method.to_string();
        let receiver = self.lower_expr(&call.receiver);
        if let Value::Array(array) = receiver {
            return self.array_method(array, call);
        }
        if let Some(prim) = prim::method(&name) {
            let mut values = vec![receiver];
            values.extend(call.args.iter().map(|arg| self.lower_expr(arg)));
            return self.lower_prim(prim, values, &call.args, call, Syntax::Method);
        }
        match receiver {
            Value::Const(recv) => {
                let args = self.const_args(&call.args, call);
                let (recv_tokens, method, turbofish) = (
                    parenthesize(recv.tokens.clone()),
                    &call.method,
                    &call.turbofish,
                );
                let stable = recv.stable && args.iter().all(|a| a.stable);
                let args = args.iter().map(|a| &a.tokens);
                Value::Const(Const {
                    tokens: quote!(#recv_tokens.#method #turbofish (#(#args),*)),
                    is_float: false,
                    stable,
                    reads_float: recv.reads_float,
                })
            }
            _ => {
                self.cx.error_spanned_by(
                    &call.method,
                    format!(
                        "`{name}` is not a differentiable `f64` method; the supported methods \
                         are {}",
                        prim::method_list()
                    ),
                );
                Value::Const(placeholder())
            }
        }
    }

    /// Methods on a whole float array: only `len()`.
    fn array_method(&mut self, array: VarId, call: &syn::ExprMethodCall) -> Value {
        let ident = self.ident(array).clone();
        if call.method == "len" && call.args.is_empty() {
            return Value::Const(Const::new(quote!(#ident.len()), false));
        }
        self.cx.error_spanned_by(
            &call.method,
            format!(
                "`{}.{}(..)` is not supported by `#[differentiable]`: read elements with \
                 `{}[i]` and its length with `{}.len()`",
                ident, call.method, ident, ident
            ),
        );
        Value::Const(placeholder())
    }

    /// Lowers a call of a differentiable primitive whose argument values
    /// (receiver first) are `values`.
    fn lower_prim(
        &mut self,
        prim: &'static Prim,
        values: Vec<Value>,
        arg_exprs: &syn::punctuated::Punctuated<Expr, syn::Token![,]>,
        whole: &dyn ToTokens,
        syntax: Syntax,
    ) -> Value {
        if values.len() != prim.arity.args() {
            let expected = prim.arity.args() - usize::from(syntax == Syntax::Method);
            self.cx.error_spanned_by(
                whole,
                format!("`{}` takes {expected} argument(s)", prim.name),
            );
            return Value::Const(placeholder());
        }
        let all_const = values.iter().all(|v| matches!(v, Value::Const(_)));
        if all_const || prim.arity == Arity::PowI && matches!(values[0], Value::Const(_)) {
            let consts: Vec<Const> = values
                .into_iter()
                .map(|v| match v {
                    Value::Const(c) => c,
                    _ => placeholder(),
                })
                .collect();
            let name = Ident::new(prim.name, Span::call_site());
            let stable = consts.iter().all(|c| c.stable);
            let tokens: Vec<TokenStream> = consts
                .iter()
                .map(|c| parenthesize(c.tokens.clone()))
                .collect();
            let tokens = match syntax {
                Syntax::Path => quote!(f64::#name(#(#tokens),*)),
                _ => {
                    let (recv, rest) = tokens.split_first().expect("arity >= 1");
                    quote!(#recv.#name(#(#rest),*))
                }
            };
            return Value::Const(Const {
                tokens,
                is_float: consts[0].is_float || syntax == Syntax::Path,
                stable,
                reads_float: consts.iter().any(|c| c.reads_float),
            });
        }
        let offset = usize::from(syntax == Syntax::Method);
        let mut args = Vec::new();
        for (i, value) in values.into_iter().enumerate() {
            let span = if i < offset {
                whole.to_token_stream().span()
            } else {
                arg_exprs
                    .iter()
                    .nth(i - offset)
                    .map_or_else(Span::call_site, Spanned::span)
            };
            if prim.arity == Arity::PowI && i == 1 {
                // The exponent of `powi` is an `i32`: never differentiated.
                if let Value::Var(_) = value {
                    self.cx.error_at(
                        span,
                        "the exponent of `powi` is an `i32` and cannot be differentiated; \
                         use `powf` for a float exponent",
                    );
                }
            }
            args.push(self.operand(value, span));
        }
        self.apply(prim, args, syntax)
    }

    fn lower_call(&mut self, call: &syn::ExprCall) -> Value {
        if let Expr::Path(func) = strip_parens(&call.func) {
            if let Some(method) = f64_associated_fn(&func.path) {
                if method == "from" && call.args.len() == 1 {
                    // `f64::from(n)`: like `n as f64`.
                    return match self.lower_expr(&call.args[0]) {
                        Value::Const(c) => {
                            let tokens = c.tokens.clone();
                            Value::Const(Const {
                                tokens: quote!(f64::from(#tokens)),
                                is_float: true,
                                ..c
                            })
                        }
                        other => other,
                    };
                }
                if let Some(prim) = prim::method(&method) {
                    let values = call.args.iter().map(|arg| self.lower_expr(arg)).collect();
                    return self.lower_prim(prim, values, &call.args, call, Syntax::Path);
                }
                self.cx.error_spanned_by(
                    &call.func,
                    format!(
                        "`f64::{method}` is not a differentiable `f64` method; the supported \
                         methods are {}",
                        prim::method_list()
                    ),
                );
                return Value::Const(placeholder());
            }
        }
        let args = self.const_args(&call.args, call);
        let func = &call.func;
        let stable = args.iter().all(|a| a.stable);
        let args = args.iter().map(|a| &a.tokens);
        Value::Const(Const {
            tokens: quote!(#func(#(#args),*)),
            is_float: false,
            stable,
            reads_float: false,
        })
    }

    /// Arguments of a call that is not differentiated: all must be constants.
    fn const_args(
        &mut self,
        args: &syn::punctuated::Punctuated<Expr, syn::Token![,]>,
        call: &dyn ToTokens,
    ) -> Vec<Const> {
        let mut out = Vec::new();
        for arg in args {
            match self.lower_expr(arg) {
                Value::Const(c) => out.push(c),
                _ => {
                    self.cx.error_spanned_by(
                        arg,
                        format!(
                            "`{}` is called with a differentiated argument, which \
                             `#[differentiable]` does not support yet; only `f64` methods \
                             and arithmetic are differentiated",
                            callee_name(call)
                        ),
                    );
                    out.push(placeholder());
                }
            }
        }
        out
    }

    fn lower_index(&mut self, index: &syn::ExprIndex) -> Value {
        let base = self.lower_expr(&index.expr);
        let (idx, stable) = self.non_differentiated_tokens(&index.index);
        match base {
            Value::Array(array) => {
                let active = matches!(self.vars[array].origin, Origin::Param { active: true, .. });
                let ident = self.ident(array).clone();
                if !active {
                    return Value::Const(Const {
                        tokens: quote!(#ident[#idx]),
                        is_float: true,
                        stable,
                        reads_float: true,
                    });
                }
                let key = (array, idx.to_string());
                if stable {
                    if let Some(id) = self.loads.iter().rev().find_map(|l| l.get(&key)) {
                        return Value::Var(*id);
                    }
                }
                let index = if stable {
                    idx
                } else {
                    // The index reads a local that changes later: save it.
                    let temp = self.new_temp(Kind::Other);
                    self.stmts.push(Stmt::Let {
                        var: temp,
                        ty: Some(quote!(usize)),
                        init: Some(Rhs::Use(Operand::Const(idx))),
                    });
                    self.ident(temp).to_token_stream()
                };
                let temp = self.new_temp(Kind::Float);
                self.stmts.push(Stmt::Let {
                    var: temp,
                    ty: None,
                    init: Some(Rhs::Load { array, index }),
                });
                if stable {
                    self.loads
                        .last_mut()
                        .expect("never empty")
                        .insert(key, temp);
                }
                Value::Var(temp)
            }
            Value::Const(c) => {
                let tokens = parenthesize(c.tokens.clone());
                Value::Const(Const {
                    tokens: quote!(#tokens[#idx]),
                    is_float: false,
                    stable: c.stable && stable,
                    reads_float: c.reads_float,
                })
            }
            Value::Var(_) => {
                self.cx
                    .error_spanned_by(&index.expr, "an `f64` cannot be indexed");
                Value::Const(placeholder())
            }
        }
    }

    fn lower_field(&mut self, field: &syn::ExprField) -> Value {
        match self.lower_expr(&field.base) {
            Value::Const(c) => {
                let (tokens, member) = (parenthesize(c.tokens.clone()), &field.member);
                Value::Const(Const {
                    tokens: quote!(#tokens.#member),
                    is_float: false,
                    ..c
                })
            }
            _ => {
                self.cx.error_spanned_by(field, "a float has no fields");
                Value::Const(placeholder())
            }
        }
    }

    fn lower_block_expr(&mut self, block: &syn::Block, whole: &Expr) -> Value {
        self.scopes.push(HashMap::new());
        self.loads.push(HashMap::new());
        let tail = self.lower_stmts(&block.stmts);
        let value = match tail {
            Some(tail) => self.lower_expr(&tail),
            None if self.returned => Value::Const(placeholder()),
            None => {
                self.cx.error_spanned_by(
                    whole,
                    "this block has no value: end it with an expression (no `;`)",
                );
                Value::Const(placeholder())
            }
        };
        self.scopes.pop();
        self.loads.pop();
        value
    }

    /// An expression whose value carries no derivative (a comparison, boolean
    /// logic, integer arithmetic): kept whole, with local names rewritten.
    fn non_differentiated(&mut self, expr: &Expr) -> Value {
        let (tokens, stable) = self.non_differentiated_tokens(expr);
        Value::Const(Const {
            tokens,
            is_float: false,
            stable,
            reads_float: true,
        })
    }

    fn non_differentiated_tokens(&mut self, expr: &Expr) -> (TokenStream, bool) {
        let mut expr = expr.clone();
        let mut renamer = Renamer {
            lowerer: self,
            stable: true,
        };
        renamer.visit_expr_mut(&mut expr);
        let stable = renamer.stable;
        (expr.to_token_stream(), stable)
    }

    /// Reports an expression outside the supported subset.
    fn unsupported(&mut self, expr: &Expr) -> Value {
        let what = unsupported_message(expr);
        self.cx.error_spanned_by(expr, what);
        Value::Const(placeholder())
    }
}

/// Rewrites the names of locals inside a non-differentiated expression to
/// their emitted names, and refuses constructs unsupported everywhere.
struct Renamer<'l, 'a> {
    lowerer: &'l mut Lowerer<'a>,
    stable: bool,
}

impl VisitMut for Renamer<'_, '_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        match expr {
            Expr::Path(path) if path.qself.is_none() => {
                if let Some(ident) = path.path.get_ident() {
                    if let Some(id) = self.lowerer.lookup(&ident.to_string()) {
                        let var = &self.lowerer.vars[id];
                        self.stable &= !var.mutable;
                        let renamed = respan(&var.ident, ident.span());
                        *expr = syn::parse_quote!(#renamed);
                    }
                }
            }
            Expr::Closure(_)
            | Expr::Macro(_)
            | Expr::Unsafe(_)
            | Expr::Async(_)
            | Expr::Await(_) => {
                let message = unsupported_message(expr);
                self.lowerer.cx.error_spanned_by(&*expr, message);
            }
            Expr::Block(_)
            | Expr::If(_)
            | Expr::Match(_)
            | Expr::Loop(_)
            | Expr::While(_)
            | Expr::ForLoop(_) => {
                let message = unsupported_message(expr);
                self.lowerer.cx.error_spanned_by(&*expr, message);
            }
            _ => syn::visit_mut::visit_expr_mut(self, expr),
        }
    }

    fn visit_field_value_mut(&mut self, field: &mut syn::FieldValue) {
        // `S { x }` must become `S { x: x__1 }` when `x` is renamed.
        if field.colon_token.is_none() {
            field.colon_token = Some(Default::default());
        }
        syn::visit_mut::visit_field_value_mut(self, field);
    }
}

/// What to tell the user about an unsupported expression.
fn unsupported_message(expr: &Expr) -> String {
    let tail = "is not supported by `#[differentiable]`";
    match expr {
        Expr::Closure(_) => "closures are not supported by `#[differentiable]`; write the computation inline".to_string(),
        Expr::Macro(mac) => {
            let name = mac
                .mac
                .path
                .segments
                .last()
                .map(|s| s.ident.to_string())
                .unwrap_or_default();
            format!(
                "macro `{name}!` in an expression {tail}: its expansion cannot be seen; \
                 write the expression out"
            )
        }
        Expr::Unsafe(_) => "`unsafe` blocks are not supported by `#[differentiable]`".to_string(),
        Expr::Async(_) | Expr::Await(_) => format!("`async`/`.await` {tail}"),
        Expr::Match(_) => format!("`match` {tail}; write the cases with `if` / `else if` / `else`"),
        Expr::If(_) => format!("`if` {tail} yet; compute both values and select with `f64::max`/`min`, or split the function"),
        Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => {
            "loops are not supported by `#[differentiable]` yet; unroll the loop".to_string()
        }
        Expr::Try(_) => format!("the `?` operator {tail}"),
        Expr::Reference(_) => format!("references {tail} here; use the value directly"),
        Expr::Tuple(_) => format!("tuples {tail}; use separate `let` bindings"),
        Expr::Array(_) | Expr::Repeat(_) => {
            format!("array literals {tail} yet; use separate `let` bindings")
        }
        Expr::Range(_) => format!("ranges {tail} here"),
        Expr::Struct(_) => format!("struct literals {tail}"),
        Expr::Assign(_) => "assignment is only supported as a statement: `x = y;`".to_string(),
        Expr::Return(_) => "`return` is only supported as a statement".to_string(),
        Expr::Break(_) | Expr::Continue(_) => format!("`break`/`continue` {tail} yet"),
        Expr::Let(_) => format!("`let` in an expression {tail}"),
        Expr::Block(_) => "labelled blocks are not supported by `#[differentiable]`".to_string(),
        _ => format!("this expression {tail}"),
    }
}

/// A stand-in value after an error, so lowering can go on.
fn placeholder() -> Const {
    Const::new(quote!(0.0), true)
}

/// `x += y` and friends → the primitive applied.
fn compound_op(op: &BinOp) -> Option<&'static Prim> {
    match op {
        BinOp::AddAssign(_) => Some(&prim::ADD),
        BinOp::SubAssign(_) => Some(&prim::SUB),
        BinOp::MulAssign(_) => Some(&prim::MUL),
        BinOp::DivAssign(_) => Some(&prim::DIV),
        BinOp::RemAssign(_)
        | BinOp::BitXorAssign(_)
        | BinOp::BitAndAssign(_)
        | BinOp::BitOrAssign(_)
        | BinOp::ShlAssign(_)
        | BinOp::ShrAssign(_) => None,
        _ => None,
    }
}

fn strip_parens(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(inner) => strip_parens(&inner.expr),
        Expr::Group(inner) => strip_parens(&inner.expr),
        other => other,
    }
}

/// `f64::name`, `std::f64::name`, `core::primitive::f64::name`, `<f64>::name`.
fn f64_associated_fn(path: &syn::Path) -> Option<String> {
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    match segments.as_slice() {
        [ty, name] if ty == "f64" => Some(name.clone()),
        [krate, ty, name] if (krate == "std" || krate == "core") && ty == "f64" => {
            Some(name.clone())
        }
        [krate, primitive, ty, name]
            if (krate == "std" || krate == "core") && primitive == "primitive" && ty == "f64" =>
        {
            Some(name.clone())
        }
        _ => None,
    }
}

/// `f64::EPSILON`, `std::f64::consts::PI`, `core::f64::consts::E`, ...
fn is_float_const_path(path: &syn::Path) -> bool {
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    segments.len() >= 2
        && segments
            .iter()
            .rev()
            .nth(1)
            .is_some_and(|s| s == "f64" || s == "consts")
        && segments.iter().any(|s| s == "f64")
}

fn is_float_type(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.path.is_ident("f32") || p.path.is_ident("f64"))
}

fn callee_name(call: &dyn ToTokens) -> String {
    let text = call.to_token_stream().to_string();
    text.split('(').next().unwrap_or("").trim().replace(' ', "")
}

/// Wraps `tokens` in parentheses unless it is a single token (a name or a
/// literal), so emitted expressions keep the user's precedence.
fn parenthesize(tokens: TokenStream) -> TokenStream {
    let mut iter = tokens.clone().into_iter();
    match (iter.next(), iter.next()) {
        (Some(TokenTree::Ident(_) | TokenTree::Literal(_)), None) => tokens,
        (Some(TokenTree::Group(g)), None)
            if g.delimiter() == proc_macro2::Delimiter::Parenthesis =>
        {
            tokens
        }
        _ if is_path(&tokens) => tokens,
        _ => {
            let span = tokens.span();
            quote_spanned!(span=> (#tokens))
        }
    }
}

/// `ident` with another span (for raw identifiers too, unlike `Ident::new`).
fn respan(ident: &Ident, span: Span) -> Ident {
    let mut ident = ident.clone();
    ident.set_span(span);
    ident
}

/// `a::b::C`: identifiers joined by `::`.
fn is_path(tokens: &TokenStream) -> bool {
    tokens.clone().into_iter().all(|tree| match tree {
        TokenTree::Ident(_) => true,
        TokenTree::Punct(p) => p.as_char() == ':',
        _ => false,
    })
}

fn collect_idents(tokens: TokenStream, out: &mut HashSet<String>) {
    for tree in tokens {
        match tree {
            TokenTree::Ident(ident) => {
                out.insert(ident.to_string());
            }
            TokenTree::Group(group) => collect_idents(group.stream(), out),
            _ => {}
        }
    }
}

fn string_literals(tokens: TokenStream) -> Vec<String> {
    let mut out = Vec::new();
    for tree in tokens {
        match tree {
            TokenTree::Literal(lit) => {
                let text = lit.to_string();
                if text.contains('"') {
                    out.push(text);
                }
            }
            TokenTree::Group(group) => out.extend(string_literals(group.stream())),
            _ => {}
        }
    }
    out
}
