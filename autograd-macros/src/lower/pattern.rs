//! Values that are not one scalar or one array, and the patterns that take
//! them apart: tuples (`let (a, b) = (e1, e2);`, `t.sin_cos()`, `p.0`),
//! arrays destructured (`let [x1, x2] = *x;`), closures bound to a local
//! (inlined at each call), subslice views (`&x[a..b]`, a `windows`
//! element) and element places (`iter_mut`).
//!
//! None of them reaches the IR: a tuple is its parts, each an ordinary
//! value; a closure is lowered again at every call, as the block it stands
//! for; a view is an array and an offset, read through `Load`s.

use super::expr::{parenthesize, Value};
use super::syntax::strip_parens;
use super::Lowerer;
use crate::ir::{self, Kind, Operand, Origin, Rhs, Stmt, VarId};
use crate::prim::{self};
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use std::collections::HashMap;
use std::rc::Rc;
use syn::{Expr, Ident, Pat};

/// What an expression lowers to when it may be more than one value.
#[derive(Clone)]
pub(super) enum Bound {
    Value(Value),
    /// A tuple: its parts.
    Tuple(Vec<Bound>),
    /// An array kept as its parts (a closure's `[i, j]` of integers, which
    /// no float array can hold): read at literal indices, destructured,
    /// and, where non-differentiated code reads it whole, the array
    /// literal of its parts (a tuple there is the tuple of its parts).
    Parts(Vec<Bound>),
    /// A closure bound to a local: inlined where it is called.
    Closure(Rc<ClosureDef>),
    /// `&a[lo..hi]`: `len` elements of `array` from `start`.
    View(View),
    /// `&mut a[i]` of a local float array (an element of `iter_mut`).
    Place {
        array: VarId,
        index: ir::Const,
    },
}

#[derive(Clone)]
pub(super) struct View {
    pub array: VarId,
    pub start: ir::Const,
    pub len: ir::Const,
}

/// A closure and the bindings in scope where it was written (its captures
/// read those versions, whatever is bound later under the same names).
pub(super) struct ClosureDef {
    pub closure: syn::ExprClosure,
    pub env: HashMap<String, VarId>,
}

impl Lowerer<'_> {
    /// The compound value (tuple, closure, view, place) a path names, if any.
    pub(super) fn compound_of(&self, expr: &Expr) -> Option<Bound> {
        let Expr::Path(path) = strip_parens(expr) else {
            return None;
        };
        let ident = path.path.get_ident()?;
        let id = self.lookup(&ident.to_string())?;
        self.compound.get(&id).cloned()
    }

    /// Lowers `expr`, keeping tuples, closures, views and places whole.
    pub(super) fn lower_bound(&mut self, expr: &Expr) -> Bound {
        match strip_parens(expr) {
            Expr::Tuple(t) => Bound::Tuple(t.elems.iter().map(|e| self.lower_bound(e)).collect()),
            // an array of floats (a closure's `[a, b]`): a local array, read
            // and used whole as any other; of integers, its parts
            Expr::Array(a) => match self.array_constructor(strip_parens(expr), false) {
                Some(init) => Bound::Value(Value::Array(self.new_array_temp(init, None))),
                None => Bound::Parts(a.elems.iter().map(|e| self.lower_bound(e)).collect()),
            },
            Expr::Closure(c) => {
                let env = self.snapshot();
                Bound::Closure(Rc::new(ClosureDef {
                    closure: c.clone(),
                    env,
                }))
            }
            Expr::Path(_) => match self.compound_of(expr) {
                Some(b) => b,
                None => Bound::Value(self.lower_expr(expr)),
            },
            Expr::Field(f) => {
                let base = self.lower_bound(&f.base);
                match (base, &f.member) {
                    (Bound::Tuple(parts), syn::Member::Unnamed(i)) => {
                        match parts.get(i.index as usize) {
                            Some(part) => part.clone(),
                            None => {
                                self.cx.error_spanned_by(f, "this tuple has no such field");
                                Bound::Value(Value::Const(super::expr::placeholder()))
                            }
                        }
                    }
                    (Bound::Value(v), _) => Bound::Value(self.field_of(v, f)),
                    (_, _) => {
                        self.cx.error_spanned_by(f, "this value has no fields");
                        Bound::Value(Value::Const(super::expr::placeholder()))
                    }
                }
            }
            Expr::MethodCall(m) if m.method == "sin_cos" && m.args.is_empty() => {
                let x = self.lower_expr(&m.receiver);
                self.sin_cos(x, m)
            }
            // `chain.max_by(..).unwrap()` of tuples: the tuple of the parts
            Expr::MethodCall(m) if super::iter::is_reduce_unwrapped(m) => {
                match self.reduce_unwrapped(m) {
                    Some(bound) => bound,
                    None => Bound::Value(self.lower_expr(expr)),
                }
            }
            Expr::Call(call) if is_sin_cos_path(&call.func) && call.args.len() == 1 => {
                let x = self.lower_expr(&call.args[0]);
                self.sin_cos(x, call)
            }
            Expr::Call(call) => {
                if let Some(Bound::Closure(def)) = self.compound_of(&call.func) {
                    let args: Vec<Expr> = call.args.iter().cloned().collect();
                    return self.call_closure(&def, &args, call);
                }
                Bound::Value(self.lower_expr(expr))
            }
            Expr::Reference(r) => {
                let inner = strip_parens(&r.expr);
                if let Expr::Index(index) = inner {
                    if let Expr::Range(_) = strip_parens(&index.index) {
                        if let Some(view) = self.view_of_index(index) {
                            return Bound::View(view);
                        }
                    } else if r.mutability.is_some() {
                        if let Some(place) = self.place_of_index(index) {
                            return place;
                        }
                    }
                }
                if self.compound_of(inner).is_some() || r.mutability.is_none() {
                    // `&x`, `&x[0]`, `&(a * b)`, `&2.0` of a float: the float
                    // itself (what reads it through the reference reads it
                    // the same); of any other constant, the reference
                    return match self.lower_bound(inner) {
                        Bound::Value(Value::Const(c)) if !c.is_float => {
                            let tokens = parenthesize(c.tokens);
                            Bound::Value(Value::Const(super::expr::ConstValue {
                                tokens: quote!(&#tokens),
                                is_float: false,
                                uses: c.uses,
                            }))
                        }
                        other => other,
                    };
                }
                Bound::Value(self.lower_expr(expr))
            }
            Expr::Index(index) if matches!(strip_parens(&index.index), Expr::Range(_)) => {
                match self.view_of_index(index) {
                    Some(view) => Bound::View(view),
                    None => Bound::Value(self.lower_expr(expr)),
                }
            }
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                match self.compound_of(&u.expr) {
                    Some(Bound::Place { array, index }) => {
                        Bound::Value(self.load_element(array, index.tokens, index.uses))
                    }
                    Some(other) => other,
                    None => Bound::Value(self.lower_expr(expr)),
                }
            }
            Expr::Block(b) if b.label.is_none() => self.lower_block_bound(&b.block, expr),
            _ => Bound::Value(self.lower_expr(expr)),
        }
    }

    /// A bound that must be one value (or one array) here.
    pub(super) fn value_of(&mut self, bound: Bound, at: &dyn ToTokens) -> Value {
        match bound {
            Bound::Value(v) => v,
            Bound::Place { array, index } => self.load_element(array, index.tokens, index.uses),
            Bound::Tuple(_) | Bound::Parts(_) => {
                self.cx.error_spanned_by(
                    at,
                    "a tuple, or an array a closure returns (kept as separate values), \
                     cannot be used as one value here; take its parts (`p.0`, `p[0]`, or \
                     `let (a, b) = p;`), or build an array in a `let` where it is used \
                     (`let p = [a, b];`)",
                );
                Value::Const(super::expr::placeholder())
            }
            Bound::Closure(_) => {
                self.cx.error_spanned_by(
                    at,
                    "a closure can only be called here (`f(x)`) by `#[differentiable]`: it \
                     cannot be stored, returned or passed to a function; write a \
                     `#[differentiable]` function instead",
                );
                Value::Const(super::expr::placeholder())
            }
            Bound::View(v) => {
                // A subslice as a whole: only its length and elements are read.
                let _ = v;
                self.cx.error_spanned_by(
                    at,
                    "a subslice cannot be used as a number here; index it (`w[0]`), take \
                     its `len()`, iterate over it, or pass it to a `#[differentiable]` \
                     function",
                );
                Value::Const(super::expr::placeholder())
            }
        }
    }

    fn sin_cos(&mut self, x: Value, whole: &dyn ToTokens) -> Bound {
        let none = syn::punctuated::Punctuated::new();
        let (Some(sin), Some(cos)) = (prim::method("sin"), prim::method("cos")) else {
            return Bound::Value(Value::Const(super::expr::placeholder()));
        };
        // `f64::sin(x)`, not `x.sin()`: a constant `x` would be an
        // ambiguous `{float}` (`f64::sin_cos(1.5)`); the values are
        // `sin_cos`'s, which is `(x.sin(), x.cos())`.
        let s = self.lower_prim(sin, vec![x.clone()], &none, whole, ir::Syntax::Path);
        let c = self.lower_prim(cos, vec![x], &none, whole, ir::Syntax::Path);
        Bound::Tuple(vec![Bound::Value(s), Bound::Value(c)])
    }

    /// Every binding in scope, innermost winning: a closure's environment.
    fn snapshot(&self) -> HashMap<String, VarId> {
        let mut env = HashMap::new();
        for scope in &self.scopes {
            for (name, id) in scope {
                env.insert(name.clone(), *id);
            }
        }
        env
    }

    /// `f(args)` of a closure bound to a local: its body, lowered as a block
    /// in which its parameters are bound to the arguments.
    pub(super) fn call_closure(
        &mut self,
        def: &ClosureDef,
        args: &[Expr],
        call: &dyn ToTokens,
    ) -> Bound {
        let closure = &def.closure;
        if closure.inputs.len() != args.len() {
            self.cx.error_spanned_by(
                call,
                format!(
                    "this closure takes {} argument(s), not {}",
                    closure.inputs.len(),
                    args.len()
                ),
            );
            return Bound::Value(Value::Const(super::expr::placeholder()));
        }
        if !self.closure_is_inlinable(closure) {
            return Bound::Value(Value::Const(super::expr::placeholder()));
        }
        // Arguments are evaluated where the call is.
        let values: Vec<Bound> = args.iter().map(|a| self.lower_bound(a)).collect();
        self.push_scope(def.env.clone());
        self.push_scope(HashMap::new());
        for (pat, value) in closure.inputs.iter().zip(values) {
            self.bind_pattern(pat, value, None);
        }
        // `|z| -> [f64; 2] { [h(1.0), 2.0] }`: an array of floats by its
        // type, though no element is known to be one (calls and constants
        // only; refused where used whole, as its parts, until 2026-11-29)
        let typed_floats = match float_array_tail(closure) {
            Some(Expr::Array(array)) if !array.elems.iter().any(|e| self.reads_floats(e)) => {
                self.array_constructor(&Expr::Array(array.clone()), true)
            }
            _ => None,
        };
        let result = match typed_floats {
            Some(init) => Bound::Value(Value::Array(self.new_array_temp(init, None))),
            None => self.lower_bound(&closure.body),
        };
        self.pop_scope();
        self.pop_scope();
        result
    }

    /// A closure can be inlined when it does not jump out of its body and
    /// assigns none of the locals it captures. Reports why not.
    pub(super) fn closure_is_inlinable(&mut self, closure: &syn::ExprClosure) -> bool {
        if closure.asyncness.is_some() {
            self.cx
                .error_spanned_by(closure, "async closures are not supported");
            return false;
        }
        if let Some(jump) = super::syntax::first_jump(&closure.body) {
            self.cx.error_spanned_by(
                jump,
                "`return` inside a closure is not supported by `#[differentiable]`; make \
                 the closure's value an `if`/`else` expression",
            );
            return false;
        }
        let mut own: Vec<String> = Vec::new();
        for input in &closure.inputs {
            own.extend(super::syntax::pattern_names(input));
        }
        collect_let_names(&closure.body, &mut own);
        for name in super::syntax::assigned_names(&closure.body) {
            if !own.contains(&name) {
                self.cx.error_spanned_by(
                    closure,
                    format!(
                        "this closure assigns `{name}`, a local it captures, which \
                         `#[differentiable]` does not support; write the loop out: \
                         `for .. {{ {name} = ..; }}`"
                    ),
                );
                return false;
            }
        }
        true
    }

    /// Binds the names of `pat` to the parts of `value`, one `let` each.
    pub(super) fn bind_pattern(&mut self, pat: &Pat, value: Bound, ty: Option<&syn::Type>) {
        match pat {
            Pat::Type(pt) => self.bind_pattern(&pt.pat, value, Some(&pt.ty)),
            Pat::Paren(p) => self.bind_pattern(&p.pat, value, ty),
            // `|&v: &f64|`: `v` is what the reference points to (a float
            // is already the float itself; a constant that is a reference
            // written out, `&t[2]` of a constant vector in `if let Some(&g)
            // = t.get(2)`, is what follows its `&`)
            Pat::Reference(r) => {
                let ty = ty.map(|ty| match ty {
                    syn::Type::Reference(inner) => &*inner.elem,
                    other => other,
                });
                let value = match value {
                    Bound::Value(Value::Const(c)) if !c.is_float && r.mutability.is_none() => {
                        let mut trees = c.tokens.clone().into_iter();
                        match trees.next() {
                            Some(proc_macro2::TokenTree::Punct(amp)) if amp.as_char() == '&' => {
                                Bound::Value(Value::Const(super::expr::ConstValue {
                                    tokens: trees.collect(),
                                    ..c
                                }))
                            }
                            _ => Bound::Value(Value::Const(c)),
                        }
                    }
                    other => other,
                };
                self.bind_pattern(&r.pat, value, ty)
            }
            Pat::Wild(_) => {
                if let Bound::Value(Value::Const(c)) = value {
                    let tokens = c.tokens;
                    self.stmts.push(Stmt::Opaque {
                        tokens: quote!(let _ = #tokens;),
                        replay: false,
                    });
                }
            }
            Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => match value {
                Bound::Value(v) => self.bind_value(&p.ident, v, ty, p.mutability.is_some()),
                other => {
                    let other = self.typed_float_parts(other, ty);
                    let ident = self.fresh_name(&p.ident);
                    let id = self.push_var(ident, Kind::Other, Origin::Local);
                    self.compound.insert(id, other);
                    self.bind(&p.ident, id);
                }
            },
            Pat::Tuple(t) => {
                let n = t.elems.len();
                if t.elems.iter().any(|e| matches!(e, Pat::Rest(_))) {
                    self.cx.error_spanned_by(
                        t,
                        "`..` in a tuple pattern is not supported; name every part",
                    );
                    return;
                }
                let value_tokens = match &value {
                    Bound::Value(Value::Const(c)) => Some(c.tokens.clone()),
                    _ => None,
                };
                let parts = match value {
                    Bound::Tuple(parts) if parts.len() == n => parts,
                    Bound::Value(Value::Const(c)) => (0..n)
                        .map(|i| {
                            let index = syn::Index::from(i);
                            let tokens = parenthesize(c.tokens.clone());
                            Bound::Value(Value::Const(super::expr::ConstValue {
                                tokens: quote!(#tokens.#index),
                                is_float: false,
                                uses: c.uses.clone(),
                            }))
                        })
                        .collect(),
                    Bound::Tuple(parts) => {
                        self.cx.error_spanned_by(
                            t,
                            format!("this pattern has {n} parts, the value {}", parts.len()),
                        );
                        return;
                    }
                    _ => {
                        self.cx.error_spanned_by(
                            t,
                            "`#[differentiable]` destructures tuples written out (`(a, b)`), \
                             tuple locals and `t.sin_cos()`; bind each value with its own `let`",
                        );
                        return;
                    }
                };
                // (of a reference, `&pairs[k]`, Rust's default binding mode
                // binds the parts by reference: `for (t, i) in pairs {
                // x[*i] }`; bound by value here, as floats must be, their
                // `*`s are dropped: `by_value_refs`)
                let of_reference = matches!(&value_tokens,
                    Some(tokens) if matches!(tokens.clone().into_iter().next(),
                        Some(proc_macro2::TokenTree::Punct(amp)) if amp.as_char() == '&'));
                for (pat, part) in t.elems.iter().zip(parts) {
                    self.bind_pattern(pat, part, None);
                    if let (true, Pat::Ident(p)) = (of_reference, pat) {
                        if let Some(id) = self.lookup(&p.ident.to_string()) {
                            self.by_value_refs.insert(id);
                        }
                    }
                }
            }
            Pat::Slice(s) => {
                if s.elems.iter().any(|e| matches!(e, Pat::Rest(_))) {
                    self.cx.error_spanned_by(
                        s,
                        "`..` in an array pattern is not supported by `#[differentiable]`; \
                         name every element, or index the array (`x[0]`)",
                    );
                    return;
                }
                let n = s.elems.len();
                let parts: Vec<Bound> = match value {
                    Bound::Tuple(parts) | Bound::Parts(parts) if parts.len() == n => parts,
                    Bound::Value(Value::Array(array)) => (0..n)
                        .map(|i| {
                            let i = proc_macro2::Literal::usize_unsuffixed(i);
                            Bound::Value(self.load_element(array, quote!(#i), Vec::new()))
                        })
                        .collect(),
                    Bound::View(view) => (0..n)
                        .map(|i| {
                            let i = proc_macro2::Literal::usize_unsuffixed(i);
                            let start = parenthesize(view.start.tokens.clone());
                            Bound::Value(self.load_element(
                                view.array,
                                quote!(#start + #i),
                                view.start.uses.clone(),
                            ))
                        })
                        .collect(),
                    Bound::Value(Value::Const(c)) => (0..n)
                        .map(|i| {
                            let i = proc_macro2::Literal::usize_unsuffixed(i);
                            let tokens = parenthesize(c.tokens.clone());
                            Bound::Value(Value::Const(super::expr::ConstValue {
                                tokens: quote!(#tokens[#i]),
                                is_float: c.is_float,
                                uses: c.uses.clone(),
                            }))
                        })
                        .collect(),
                    _ => {
                        self.cx.error_spanned_by(
                            s,
                            "`#[differentiable]` destructures arrays (`let [a, b] = x;`, \
                             `[a, b] = *x`) and array literals; bind each element with its \
                             own `let`",
                        );
                        return;
                    }
                };
                for (pat, part) in s.elems.iter().zip(parts) {
                    self.bind_pattern(pat, part, None);
                }
            }
            other => {
                self.cx.error_spanned_by(
                    other,
                    "this pattern is not supported by `#[differentiable]`; bind names, tuples \
                     `(a, b)` and arrays `[a, b]`",
                );
            }
        }
    }

    /// Binds `name` to `value` (the work of `let name [: ty] = value;`).
    /// A tuple local's parts, with each float constant part (`1.5` in `let
    /// p: (f64, f64) = (x, 1.5);`) bound to a local of type `f64` first: a
    /// read `p.1.atan()` substitutes the part, and a bare literal there
    /// would be an ambiguous `{float}`.
    fn typed_float_parts(&mut self, value: Bound, ty: Option<&syn::Type>) -> Bound {
        let Bound::Tuple(parts) = value else {
            return value;
        };
        let elem_types: Vec<Option<&syn::Type>> = match ty {
            Some(syn::Type::Tuple(t)) if t.elems.len() == parts.len() => {
                t.elems.iter().map(Some).collect()
            }
            _ => vec![None; parts.len()],
        };
        let parts = parts
            .into_iter()
            .zip(elem_types)
            .map(|(part, ty)| match part {
                Bound::Value(Value::Const(c))
                    if c.is_float || ty.is_some_and(crate::signature::is_f64) =>
                {
                    let name = self.fresh_ident("part");
                    let f64_type: syn::Type = syn::parse_quote!(f64);
                    self.bind_value(&name, Value::Const(c), Some(&f64_type), false);
                    match self.lookup(&name.to_string()) {
                        Some(id) => Bound::Value(Value::Var(id)),
                        None => Bound::Tuple(Vec::new()),
                    }
                }
                Bound::Tuple(_) => self.typed_float_parts(part, ty),
                other => other,
            })
            .collect();
        Bound::Tuple(parts)
    }

    pub(super) fn bind_value(
        &mut self,
        name: &Ident,
        value: Value,
        ty: Option<&syn::Type>,
        mutable: bool,
    ) {
        // `|v: &f64| ..` called with `&x` (or given a slice's elements): the
        // generated code holds the float itself, as it does for `&x`
        // (a reference to a float is taken through where it is made)
        let (ty, value) = match (ty, value) {
            (Some(ty), Value::Var(v)) if float_reference(ty) => {
                (Some(without_references(ty)), Value::Var(v))
            }
            // (a constant the macro cannot tell is a float: a reference
            // (`&SCALE` kept its `&`) or, an element of data the macro
            // reads by value, the float itself; `float_value` takes both)
            (Some(ty), Value::Const(c)) if float_reference(ty) => {
                let c = match c.is_float {
                    true => c,
                    false => {
                        let tokens = c.tokens;
                        super::expr::ConstValue {
                            tokens: quote!(::autograd::__private::float_value(#tokens)),
                            is_float: true,
                            uses: c.uses,
                        }
                    }
                };
                (Some(without_references(ty)), Value::Const(c))
            }
            (ty, value) => (ty, value),
        };
        let declared_kind = ty.map(|ty| {
            if crate::signature::is_f64(ty) {
                Kind::Float
            } else {
                Kind::Other
            }
        });
        let ty_tokens = ty.map(ToTokens::to_token_stream);
        if declared_kind == Some(Kind::Other) {
            self.typed_not_f64.insert(name.to_string());
        } else {
            self.typed_not_f64.remove(&name.to_string());
        }
        match value {
            Value::Array(array) if self.vars[array].origin == Origin::Local || mutable => {
                // `let b = a;` of a local array, or `let mut b = a;` of a
                // parameter: a copy (one of them may change later).
                let id = self.new_local(name, Kind::FloatArray);
                self.stmts.push(Stmt::Let {
                    var: id,
                    ty: None,
                    init: Some(Rhs::Array(ir::ArrayInit::Copy {
                        source: array,
                        vec: false,
                    })),
                });
                self.bind(name, id);
            }
            Value::Array(array) => {
                // `let v = w;` of a parameter: another name for the same array.
                self.bind(name, array);
            }
            Value::Var(source) if declared_kind != Some(Kind::Other) => {
                let id = self.define(name, source);
                self.bind(name, id);
            }
            Value::Var(source) => {
                let id = self.new_local(name, Kind::Other);
                self.stmts.push(Stmt::Let {
                    var: id,
                    ty: ty_tokens,
                    init: Some(Rhs::Use(Operand::Var(source))),
                });
                self.bind(name, id);
            }
            Value::Const(c) => {
                // A constant of a type the macro cannot see (`h(n, 2.0)`,
                // `SCALE`) that the function later assigns a float-looking
                // value (`syntax::float_assigned_after`) may become a
                // differentiated float (`r += x * w[i]` makes it an `f64` in
                // Rust too): it is a float variable, with no annotation
                // (were it an integer, nothing differentiates it).
                let may_be_float = !c.is_float
                    && (self.assigned_later.contains(&name.to_string())
                        || self.force_float.contains(&name.to_string()))
                    && !super::expr::is_int_or_bool(&c.tokens);
                let kind = declared_kind.unwrap_or(if c.is_float || may_be_float {
                    Kind::Float
                } else {
                    Kind::Other
                });
                if kind == Kind::Other && ty.is_none() {
                    if let Some(span) = self.loop_values.get(&name.to_string()) {
                        self.cx.error_spanned_by(
                            quote::quote_spanned!(*span=> loop),
                            "a `loop` used as a value that is not an `f64` needs its type: \
                             `let k: usize = loop { .. };` (`#[differentiable]` keeps the \
                             value in a local that each `break` sets)",
                        );
                    }
                }
                let id = self.new_local(name, kind);
                if mutable && kind == Kind::Other {
                    self.in_place.declare(id, name);
                }
                // `let i = SCALE;`, `let r = h(n);`: a constant local that may
                // be a float, which a call may pass to a parameter its callee
                // differentiates (`expr::call_args`).
                if kind == Kind::Other
                    && ty.is_none()
                    && !super::expr::is_int_or_bool(&c.tokens)
                    && (c.uses.is_empty() || super::expr::is_call_of_unknown_type(&c.tokens))
                {
                    self.maybe_float.insert(id);
                }
                let ty = if kind == Kind::Float && !may_be_float {
                    Some(quote!(f64))
                } else {
                    ty_tokens
                };
                // the first value of a float standing for a `loop`'s value
                // (never read): `Default::default()` typed, which `Dual`'s
                // `From` cannot infer
                let (ty, c) = if kind == Kind::Float
                    && ty.is_none()
                    && self.loop_values.contains_key(&name.to_string())
                {
                    let c = super::expr::ConstValue {
                        tokens: quote!(0.0_f64),
                        is_float: true,
                        uses: Vec::new(),
                    };
                    (Some(quote!(f64)), c)
                } else {
                    (ty, c)
                };
                self.stmts.push(Stmt::Let {
                    var: id,
                    ty,
                    init: Some(Rhs::Use(Operand::Const(c.into_ir()))),
                });
                self.bind(name, id);
            }
        }
    }

    /// `a[lo..hi]` of a float array (or of a view): a view.
    pub(super) fn view_of_index(&mut self, index: &syn::ExprIndex) -> Option<View> {
        let Expr::Range(range) = strip_parens(&index.index) else {
            return None;
        };
        let (array, base_start, base_len) = match self.compound_of(&index.expr) {
            Some(Bound::View(v)) => (v.array, Some(v.start), Some(v.len)),
            Some(_) => return None,
            None => {
                let Value::Array(array) = self.lower_expr(&index.expr) else {
                    return None;
                };
                (array, None, None)
            }
        };
        Some(self.subview(array, base_start, base_len, range))
    }

    /// `row(i)[lo..hi]` of a closure, inlined once: that part of the
    /// subslice or float array it returns (`Ok`), or of the constant data
    /// it returns (`Err`: the part's tokens, and the variables they read).
    pub(super) fn view_of_closure_index(
        &mut self,
        index: &syn::ExprIndex,
        range: &syn::ExprRange,
    ) -> Result<View, ir::Const> {
        match self.lower_bound(&index.expr) {
            Bound::View(v) => Ok(self.subview(v.array, Some(v.start), Some(v.len), range)),
            Bound::Value(Value::Array(array)) => Ok(self.subview(array, None, None, range)),
            other => {
                let data = self.value_of(other, &index.expr);
                let (range, mut uses) = self.non_differentiated_tokens(&Expr::Range(range.clone()));
                let tokens = match data {
                    Value::Const(c) => {
                        uses.extend(c.uses);
                        let data = parenthesize(c.tokens);
                        quote!(&#data[#range])
                    }
                    // (a float: reported as indexed by rustc, on `f`)
                    _ => super::expr::placeholder().tokens,
                };
                Err(ir::Const { tokens, uses })
            }
        }
    }

    /// The part `range` (of the user's tokens) of the subslice of `array`
    /// that starts at `base_start` and is `base_len` long (the whole array
    /// where they are `None`).
    fn subview(
        &mut self,
        array: VarId,
        base_start: Option<ir::Const>,
        base_len: Option<ir::Const>,
        range: &syn::ExprRange,
    ) -> View {
        let mut uses = Vec::new();
        let mut tokens_of = |this: &mut Self, e: &Expr| {
            let (t, u) = this.non_differentiated_tokens(e);
            uses.extend(u);
            parenthesize(t)
        };
        let lo = range.start.as_ref().map(|e| tokens_of(self, e));
        let hi = range.end.as_ref().map(|e| tokens_of(self, e));
        let inclusive = matches!(range.limits, syn::RangeLimits::Closed(_));
        let ident = self.vars[array].ident.clone();
        let whole_len = match &base_len {
            Some(len) => {
                uses.extend(len.uses.iter().copied());
                parenthesize(len.tokens.clone())
            }
            None => {
                uses.push(array);
                quote!(#ident.len())
            }
        };
        let lo_t = lo.clone().unwrap_or_else(|| quote!(0));
        let hi_t = match (hi, inclusive) {
            (Some(h), true) => quote!(((#h) + 1)),
            (Some(h), false) => h,
            (None, _) => whole_len,
        };
        let start = match &base_start {
            Some(s) => {
                uses.extend(s.uses.iter().copied());
                let s = parenthesize(s.tokens.clone());
                quote!((#s + (#lo_t)))
            }
            None => lo_t.clone(),
        };
        uses.sort_unstable();
        uses.dedup();
        View {
            array,
            start: ir::Const {
                tokens: start,
                uses: uses.clone(),
            },
            len: ir::Const {
                tokens: quote!(((#hi_t) - (#lo_t))),
                uses,
            },
        }
    }

    /// `&mut a[i]` of a local float array: a place.
    fn place_of_index(&mut self, index: &syn::ExprIndex) -> Option<Bound> {
        let Value::Array(array) = self.lower_expr(&index.expr) else {
            return None;
        };
        if self.vars[array].origin != Origin::Local {
            let name = self.vars[array].ident.clone();
            self.cx.error_spanned_by(
                &index.expr,
                format!(
                    "`{name}` is a parameter, which `#[differentiable]` treats as read-only; \
                     copy it into a local first (`let mut {name} = {name}.to_vec();`)"
                ),
            );
            return Some(Bound::Value(Value::Const(super::expr::placeholder())));
        }
        let (tokens, uses) = self.non_differentiated_tokens(&index.index);
        Some(Bound::Place {
            array,
            index: ir::Const { tokens, uses },
        })
    }

    /// A constant local holding `tokens` under a fresh name, which is
    /// returned (bound in the current scope).
    pub(super) fn const_local(&mut self, tokens: TokenStream, uses: Vec<VarId>) -> Ident {
        let name = self.fresh_ident("v");
        let id = self.new_local(&name, Kind::Other);
        self.stmts.push(Stmt::Let {
            var: id,
            ty: None,
            init: Some(Rhs::Use(Operand::Const(ir::Const { tokens, uses }))),
        });
        self.bind(&name, id);
        name
    }

    /// A constant local holding the value of the (non-differentiated)
    /// expression `expr`, under a fresh name.
    pub(super) fn const_local_of(&mut self, expr: &Expr) -> Ident {
        let (tokens, uses) = self.non_differentiated_tokens(expr);
        self.const_local(tokens, uses)
    }

    /// A fresh name bound to `id` (to name it in generated syntax).
    pub(super) fn alias(&mut self, id: VarId) -> Ident {
        // (with the span of the variable it stands for: a read through the
        // alias is emitted as that variable's name with the alias's span,
        // which in a `macro_rules!` body must be the binding's hygiene, or
        // `r.len()` of `r.iter().zip(&h)` named a `r` out of reach: E0425)
        let mut name = self.fresh_ident("a");
        name.set_span(self.vars[id].ident.span());
        self.bind(&name, id);
        name
    }
}

fn is_sin_cos_path(func: &Expr) -> bool {
    let Expr::Path(p) = strip_parens(func) else {
        return false;
    };
    let segments: Vec<String> = p
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    matches!(segments.as_slice(), [ty, m] if ty == "f64" && m == "sin_cos")
}

/// The identifiers a pattern binds.
pub(super) fn pattern_idents(pat: &Pat) -> Vec<Ident> {
    struct Idents(Vec<Ident>);
    impl<'a> syn::visit::Visit<'a> for Idents {
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            self.0.push(p.ident.clone());
            syn::visit::visit_pat_ident(self, p);
        }
    }
    let mut idents = Idents(Vec::new());
    syn::visit::Visit::visit_pat(&mut idents, pat);
    idents.0
}

/// The names `let`s inside `expr` bind (closures' own parameters included).
fn collect_let_names(expr: &Expr, out: &mut Vec<String>) {
    struct Lets<'o>(&'o mut Vec<String>);
    impl<'a> syn::visit::Visit<'a> for Lets<'_> {
        fn visit_local(&mut self, l: &'a syn::Local) {
            self.0.extend(super::syntax::pattern_names(&l.pat));
            syn::visit::visit_local(self, l);
        }
        fn visit_expr_closure(&mut self, c: &'a syn::ExprClosure) {
            for input in &c.inputs {
                self.0.extend(super::syntax::pattern_names(input));
            }
            syn::visit::visit_expr_closure(self, c);
        }
    }
    syn::visit::Visit::visit_expr(&mut Lets(out), expr);
}

/// `ty` without the references around it (`&&f64` is `f64`).
fn without_references(mut ty: &syn::Type) -> &syn::Type {
    while let syn::Type::Reference(r) = ty {
        ty = &r.elem;
    }
    ty
}

/// Is `ty` a reference to an `f64` (`&f64`, `&&f64`)?
fn float_reference(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Reference(_)) && crate::signature::is_f64(without_references(ty))
}

/// The array literal a closure typed `-> [f64; N]` returns, when its body
/// is that literal (`{ [a, b] }` or `[a, b]`).
fn float_array_tail(closure: &syn::ExprClosure) -> Option<&Expr> {
    let syn::ReturnType::Type(_, ty) = &closure.output else {
        return None;
    };
    let syn::Type::Array(array) = &**ty else {
        return None;
    };
    let syn::Type::Path(elem) = &*array.elem else {
        return None;
    };
    if !elem.path.is_ident("f64") {
        return None;
    }
    let body = match strip_parens(&closure.body) {
        Expr::Block(block) if block.block.stmts.len() == 1 => match &block.block.stmts[0] {
            syn::Stmt::Expr(tail, None) => strip_parens(tail),
            _ => return None,
        },
        other => other,
    };
    matches!(body, Expr::Array(_)).then_some(body)
}
