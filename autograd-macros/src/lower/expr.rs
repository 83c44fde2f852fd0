//! Lowering of expressions: differentiable arithmetic and `f64` methods
//! become three-address operations; everything that carries no derivative
//! is kept as Rust tokens with local names rewritten.

use super::pattern::Bound;
use super::syntax::strip_parens;
use super::{Lowerer, Sink};
use crate::ir::{self, CallArg, Callee, Kind, Operand, Origin, Rhs, Stmt, Syntax, VarId};
use crate::prim::{self, Arity, Prim};
use crate::signature::is_f64;
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned, ToTokens};
use std::collections::HashSet;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{BinOp, Expr, Ident, UnOp};

/// The result of lowering an expression.
#[derive(Clone)]
pub(super) enum Value {
    /// A float variable (possibly carrying a derivative).
    Var(VarId),
    /// A whole float array or slice variable.
    Array(VarId),
    /// A Rust expression that carries no derivative.
    Const(ConstValue),
}

#[derive(Clone)]
pub(super) struct ConstValue {
    pub tokens: TokenStream,
    /// Statically an `f64` (`2.0`, `n as f64`, `PI`); otherwise an integer,
    /// boolean, user type, or a constant the macro cannot see the type of.
    pub is_float: bool,
    /// The variables the expression reads.
    pub uses: Vec<VarId>,
}

/// Slice methods that write their receiver: their refusal says how to
/// write a buffer instead.
const WRITING_METHODS: &[&str] = &[
    "fill",
    "fill_with",
    "swap",
    "copy_from_slice",
    "clone_from",
    "clone_from_slice",
    "reverse",
    "rotate_left",
    "rotate_right",
    "sort_by",
    "sort_unstable_by",
    "iter_mut",
    "split_at_mut",
];

/// `f64` methods that test a value (a `bool`, no derivative).
const F64_TESTS: &[&str] = &[
    "is_nan",
    "is_finite",
    "is_infinite",
    "is_normal",
    "is_subnormal",
    "is_sign_positive",
    "is_sign_negative",
];

/// Slice methods that search a float array (a `bool`, a position or a
/// `Result` of one, never a float): kept as they are, closures included.
const SEARCHES: &[&str] = &[
    "is_empty",
    "contains",
    "starts_with",
    "ends_with",
    "binary_search_by",
    "binary_search_by_key",
    "partition_point",
];

/// `f64` methods that compare a value with another, given by reference
/// (an `Ordering` or a `bool`, no derivative).
pub(super) const F64_COMPARISONS: &[&str] = &[
    "partial_cmp",
    "total_cmp",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
];

impl ConstValue {
    fn new(tokens: TokenStream, is_float: bool) -> Self {
        ConstValue {
            tokens,
            is_float,
            uses: Vec::new(),
        }
    }

    pub fn into_ir(self) -> ir::Const {
        ir::Const {
            tokens: self.tokens,
            uses: self.uses,
        }
    }

    fn map(self, f: impl FnOnce(TokenStream) -> TokenStream) -> Self {
        ConstValue {
            tokens: f(parenthesize(self.tokens)),
            ..self
        }
    }
}

fn join_uses(values: &[&ConstValue]) -> Vec<VarId> {
    let mut uses = Vec::new();
    for v in values {
        for u in &v.uses {
            if !uses.contains(u) {
                uses.push(*u);
            }
        }
    }
    uses
}

impl Lowerer<'_> {
    /// Turns a lowered value into an operand of a differentiable operation.
    pub(super) fn operand(&mut self, value: Value, span: Span) -> Operand {
        match value {
            Value::Var(id) => Operand::Var(id),
            Value::Const(c) => Operand::Const(ir::Const {
                tokens: parenthesize(c.tokens),
                uses: c.uses,
            }),
            Value::Array(id) => {
                let name = &self.vars[id].ident;
                self.cx.error_at(
                    span,
                    format!(
                        "a whole slice or array (`{name}`) cannot be used as a number here; \
                         index it: `{name}[i]`"
                    ),
                );
                Operand::Const(placeholder().into_ir())
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

    pub(super) fn lower_expr(&mut self, expr: &Expr) -> Value {
        match expr {
            Expr::Paren(inner) => match self.lower_expr(&inner.expr) {
                Value::Const(c) => Value::Const(c.map(|t| t)),
                other => other,
            },
            Expr::Group(inner) => self.lower_expr(&inner.expr),
            Expr::Lit(lit) => {
                let is_float = matches!(lit.lit, syn::Lit::Float(_));
                Value::Const(ConstValue::new(lit.to_token_stream(), is_float))
            }
            Expr::Path(path) => self.lower_path(path),
            Expr::Binary(binary) => self.lower_binary(binary, expr),
            Expr::Unary(unary) => self.lower_unary(unary, expr),
            Expr::Cast(cast) => self.lower_cast(cast),
            Expr::MethodCall(call) => self.lower_method_call(call),
            Expr::Call(call) => self.lower_call(call),
            Expr::Index(index) => self.lower_index(index),
            Expr::Field(_) | Expr::Tuple(_) | Expr::Closure(_) => {
                let bound = self.lower_bound(expr);
                self.value_of(bound, expr)
            }
            Expr::Block(block) if block.label.is_none() => {
                self.lower_block_expr(&block.block, expr)
            }
            Expr::If(ifx) => self.lower_if_value(ifx, expr),
            Expr::Match(m) => self.lower_match_value(m, expr),
            Expr::Range(_) => self.non_differentiated(expr),
            // An element of a constant slice a loop or a chain iterates
            // over (`lower/iter.rs`, `slice_seq`): a constant, by value if
            // its type is `Copy`, else by reference (autoref specialization
            // on `__private::Elem`).
            // (`__autograd_element_ref!`: one the loop's body dereferences,
            // `w[*i]`, the reference itself)
            // the names a `match` arm binds (see the `Renamer`)
            Expr::Macro(m) if m.mac.path.is_ident("__autograd_unpack") => {
                self.non_differentiated(expr)
            }
            Expr::Macro(m)
                if m.mac.path.is_ident("__autograd_element")
                    || m.mac.path.is_ident("__autograd_element_ref") =>
            {
                let Ok(place) = m.mac.parse_body::<Expr>() else {
                    return self.unsupported(expr);
                };
                let (tokens, uses) = self.non_differentiated_tokens(&place);
                let tokens = match m.mac.path.is_ident("__autograd_element_ref") {
                    true => quote!(&#tokens),
                    false => quote! {
                        {
                            #[allow(unused_imports)]
                            use ::autograd::__private::{ElementByRef as _, ElementByValue as _};
                            (&::autograd::__private::Elem(&#tokens)).element()
                        }
                    },
                };
                Value::Const(ConstValue {
                    tokens,
                    is_float: false,
                    uses,
                })
            }
            _ => self.unsupported(expr),
        }
    }

    fn lower_path(&mut self, path: &syn::ExprPath) -> Value {
        if path.qself.is_none() {
            if let Some(ident) = path.path.get_ident() {
                if let Some(id) = self.lookup(&ident.to_string()) {
                    if let Some(bound) = self.compound.get(&id).cloned() {
                        return self.value_of(bound, path);
                    }
                    let var = &self.vars[id];
                    let renamed = respan(&var.ident, ident.span());
                    return match var.kind {
                        Kind::Float => Value::Var(id),
                        Kind::FloatArray => Value::Array(id),
                        Kind::Other => Value::Const(ConstValue {
                            tokens: renamed.to_token_stream(),
                            is_float: false,
                            uses: vec![id],
                        }),
                    };
                }
            }
        }
        // A constant item, a `self`, an enum variant, ...
        let is_float = is_float_const_path(&path.path);
        Value::Const(ConstValue::new(path.to_token_stream(), is_float))
    }

    fn lower_binary(&mut self, binary: &syn::ExprBinary, whole: &Expr) -> Value {
        let prim = match binary.op {
            BinOp::Add(_) => &prim::ADD,
            BinOp::Sub(_) => &prim::SUB,
            BinOp::Mul(_) => &prim::MUL,
            BinOp::Div(_) => &prim::DIV,
            op if super::syntax::is_compound(&op) => {
                self.cx.error_spanned_by(
                    whole,
                    "compound assignment is only supported as a statement: `x += y;`",
                );
                return Value::Const(placeholder());
            }
            BinOp::Rem(_) => return self.lower_remainder(binary, whole),
            // Comparisons, `&&`, `||`, bit operations: no derivative.
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
            return Value::Const(ConstValue {
                tokens: quote!(#lt #op #rt),
                is_float: l.is_float || r.is_float,
                uses: join_uses(&[l, r]),
            });
        }
        let args = vec![
            self.operand(left, binary.left.span()),
            self.operand(right, binary.right.span()),
        ];
        self.apply(prim, args, Syntax::Operator)
    }

    /// `a % b`: of constants (indices) kept as written; of floats that vary,
    /// the primitive `rem` (partials `(1, -q)`, `q` the truncated quotient).
    fn lower_remainder(&mut self, binary: &syn::ExprBinary, whole: &Expr) -> Value {
        let left = self.lower_expr(&binary.left);
        let right = self.lower_expr(&binary.right);
        match (&left, &right) {
            (Value::Const(_), Value::Const(_)) => self.non_differentiated(whole),
            _ => {
                // a float's remainder (`rules::rem`)
                let args = vec![
                    self.operand(left, binary.left.span()),
                    self.operand(right, binary.right.span()),
                ];
                self.apply(&prim::REM, args, Syntax::Operator)
            }
        }
    }

    fn lower_unary(&mut self, unary: &syn::ExprUnary, whole: &Expr) -> Value {
        match unary.op {
            UnOp::Neg(_) => match self.lower_expr(&unary.expr) {
                Value::Const(c) => Value::Const(c.map(|t| quote!(-#t))),
                value => {
                    let arg = self.operand(value, unary.expr.span());
                    self.apply(&prim::NEG, vec![arg], Syntax::Operator)
                }
            },
            UnOp::Deref(_) if self.compound_of(&unary.expr).is_some() => {
                let bound = self.lower_bound(whole);
                self.value_of(bound, whole)
            }
            // (`*i` of a part bound by value where Rust binds a reference:
            // `i` itself)
            UnOp::Deref(_) if self.is_by_value_ref(&unary.expr) => self.lower_expr(&unary.expr),
            UnOp::Deref(_) => match self.lower_expr(&unary.expr) {
                Value::Const(c) => Value::Const(c.map(|t| quote!(*#t))),
                // `*w` of an array reference is the array itself; `*v` of a
                // loop element is the element.
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
                let ident = &self.vars[id].ident;
                Value::Const(ConstValue {
                    tokens: quote!((#ident as #ty)),
                    is_float: false,
                    uses: vec![id],
                })
            }
            Value::Const(c) => {
                let ty = &cast.ty;
                Value::Const(ConstValue {
                    is_float: target_is_f64,
                    ..c.map(|t| quote!(#t as #ty))
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
        let statement = std::mem::take(&mut self.in_place.call_is_statement);
        if let Some(local) = self.local_of(&call.receiver) {
            // (an `f64` method changes nothing: the local may be a float of
            // a type the macro cannot see, `let mut d = h(1.0);`; random
            // programs, seed 431914475 #712)
            if !statement
                && self.in_place.may_change(local)
                && !super::in_place::InPlace::reads_only(&call.method)
                && prim::method(&call.method.to_string()).is_none()
            {
                let name = &self.vars[local].ident;
                self.cx.error_spanned_by(
                    call,
                    format!(
                        "`{name}.{}(..)` may change `{name}`: `#[differentiable]` supports \
                         changing a local it does not differentiate only in a statement of its \
                         own (`{name}.push(i);`), as the reverse sweep replays expressions",
                        call.method
                    ),
                );
                return Value::Const(placeholder());
            }
        }
        let name = call.method.to_string();
        if let Some(value) = self.lower_iterator_method(call) {
            return value;
        }
        if name == "sin_cos" {
            if !call.args.is_empty() {
                self.cx
                    .error_spanned_by(&call.args, "`sin_cos` takes no argument: `t.sin_cos()`");
                return Value::Const(placeholder());
            }
            let bound = self.lower_bound(&Expr::MethodCall(call.clone()));
            return self.value_of(bound, call);
        }
        match self.compound_of(&call.receiver) {
            Some(super::pattern::Bound::View(view)) if name == "len" && call.args.is_empty() => {
                return Value::Const(ConstValue {
                    tokens: view.len.tokens,
                    is_float: false,
                    uses: view.len.uses,
                });
            }
            // a search of a subslice (`let (lo, hi) = x.split_at(k);` then
            // `lo.partition_point(|a| *a < t)`): of the subslice it stands
            // for, kept as it is (seed 1128709 #268: refused as a number)
            Some(super::pattern::Bound::View(view)) if SEARCHES.contains(&name.as_str()) => {
                let ident = self.vars[view.array].ident.clone();
                let (start, len) = (
                    parenthesize(view.start.tokens),
                    parenthesize(view.len.tokens),
                );
                let mut searched = call.clone();
                searched.receiver = Box::new(syn::parse_quote!(__autograd_view));
                let (tokens, mut uses) = self.renamed_tokens(&Expr::MethodCall(searched), true);
                uses.extend(view.start.uses);
                uses.extend(view.len.uses);
                uses.push(view.array);
                // (`__autograd_view` is replaced after renaming: it names
                // no local, and the subslice's tokens are renamed already)
                let tokens = replace_ident(
                    tokens,
                    "__autograd_view",
                    &quote!((#ident[#start..#start + #len])),
                );
                return Value::Const(ConstValue {
                    tokens,
                    is_float: false,
                    uses,
                });
            }
            // an array a closure returned, kept as its parts
            Some(super::pattern::Bound::Parts(parts)) if name == "len" && call.args.is_empty() => {
                let len = proc_macro2::Literal::usize_suffixed(parts.len());
                return Value::Const(ConstValue {
                    tokens: quote!(#len),
                    is_float: false,
                    uses: Vec::new(),
                });
            }
            _ => {}
        }
        let receiver = self.lower_expr(&call.receiver);
        if let Value::Array(array) = receiver {
            return self.array_method(array, call);
        }
        if let Some(prim) = prim::method(&name) {
            let mut values = vec![receiver];
            values.extend(call.args.iter().map(|arg| self.lower_expr(arg)));
            return self.lower_prim(prim, values, &call.args, call, Syntax::Method);
        }
        if let Value::Const(recv) = &receiver {
            // `k.and_then(|j| j.checked_sub(1))`: a method of a constant
            // given closures that read no float, kept as it is
            let closure_args = call
                .args
                .iter()
                .any(|a| matches!(strip_parens(a), Expr::Closure(_)));
            if closure_args && !call.args.iter().any(|a| self.reads_floats(a)) {
                let mut uses = recv.uses.clone();
                let mut args = Vec::new();
                for arg in &call.args {
                    let (tokens, arg_uses) = self.renamed_tokens(arg, true);
                    uses.extend(arg_uses);
                    args.push(tokens);
                }
                let (recv_tokens, method, turbofish) = (
                    parenthesize(recv.tokens.clone()),
                    &call.method,
                    &call.turbofish,
                );
                return Value::Const(ConstValue {
                    tokens: quote!(#recv_tokens.#method #turbofish(#(#args),*)),
                    is_float: false,
                    uses,
                });
            }
            // `self.g(x)`: a differentiable method, if an argument is varied.
            let args = self.call_args(&call.args);
            if args.iter().any(CallArg::may_vary) && call.turbofish.is_none() {
                let callee = Callee::Method {
                    receiver: ir::Const {
                        tokens: parenthesize(recv.tokens.clone()),
                        uses: recv.uses.clone(),
                    },
                    method: call.method.clone(),
                };
                return self.apply_call(callee, args);
            }
        }
        match receiver {
            Value::Const(recv) => {
                let args = self.const_args(&call.args, call);
                let (method, turbofish) = (&call.method, &call.turbofish);
                let arg_tokens = args.iter().map(|a| &a.tokens);
                let mut all = vec![&recv];
                all.extend(args.iter());
                let uses = join_uses(&all);
                Value::Const(ConstValue {
                    uses,
                    is_float: false,
                    ..recv
                        .clone()
                        .map(|r| quote!(#r.#method #turbofish (#(#arg_tokens),*)))
                })
            }
            // a test of a float (`v.is_nan()`, in a closure `any` or
            // `filter` applies): a `bool`, never differentiated
            Value::Var(id) if F64_TESTS.contains(&name.as_str()) && call.args.is_empty() => {
                let (ident, method) = (&self.vars[id].ident, &call.method);
                Value::Const(ConstValue {
                    tokens: quote!(#ident.#method()),
                    is_float: false,
                    uses: vec![id],
                })
            }
            // `a.total_cmp(b)`, `a.partial_cmp(&b)`: an `Ordering`, never
            // differentiated
            Value::Var(_) if F64_COMPARISONS.contains(&name.as_str()) && call.args.len() == 1 => {
                self.non_differentiated(&Expr::MethodCall(call.clone()))
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

    /// Methods on a whole float array: only `len()`. (The slice methods
    /// that write a local buffer are lowered as statements,
    /// `Lowerer::buffer_method`.)
    fn array_method(&mut self, array: VarId, call: &syn::ExprMethodCall) -> Value {
        let ident = self.vars[array].ident.clone();
        if call.method == "len" && call.args.is_empty() {
            return Value::Const(ConstValue {
                tokens: quote!(#ident.len()),
                is_float: false,
                uses: vec![array],
            });
        }
        let method = call.method.to_string();
        if method == "__autograd_sort_order" && call.args.len() == 1 {
            // (`Lowerer::buffer_method`'s `sort_by`: the comparison kept as
            // written, closures included)
            let (compare, mut uses) = self.renamed_tokens(&call.args[0], true);
            uses.push(array);
            return Value::Const(ConstValue {
                tokens: quote!(::autograd::__private::sort_order(&#ident[..], #compare)),
                is_float: false,
                uses,
            });
        }
        if SEARCHES.contains(&method.as_str()) {
            // (a `bool`, a position or a `Result` of one: never a float)
            let (tokens, uses) = self.renamed_tokens(&Expr::MethodCall(call.clone()), true);
            return Value::Const(ConstValue {
                tokens,
                is_float: false,
                uses,
            });
        }
        let option = if ["first", "last", "get"].contains(&method.as_str()) {
            // (unwrapped at once, they are lowered in `iter.rs`)
            format!(
                "; `{ident}.{method}(..)` is supported unwrapped at once: `.unwrap()`, \
                 `.copied().unwrap_or(v)`"
            )
        } else if WRITING_METHODS.contains(&method.as_str()) {
            format!(
                "; write elements with `{ident}[i] = ..` and a whole local buffer with \
                 `{ident} = other.clone();` (as statements on a local buffer, \
                 `{ident}.fill(v)`, `{ident}.swap(i, j)`, `{ident}.reverse()`, \
                 `{ident}.sort_by(..)` and `{ident}.copy_from_slice(&w)`, `(&w[a..b])` of a \
                 float array `w` or `(&[a, b])` are supported)"
            )
        } else {
            String::new()
        };
        self.cx.error_spanned_by(
            &call.method,
            format!(
                "`{ident}.{method}(..)` is not supported by `#[differentiable]`: read elements \
                 with `{ident}[i]` and its length with `{ident}.len()`{option}"
            ),
        );
        Value::Const(placeholder())
    }

    /// Lowers a call of a differentiable primitive whose argument values
    /// (receiver first) are `values`.
    pub(super) fn lower_prim(
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
        if all_const || (prim.arity == Arity::PowI && matches!(values[0], Value::Const(_))) {
            let consts: Vec<ConstValue> = values
                .into_iter()
                .map(|v| match v {
                    Value::Const(c) => c,
                    _ => placeholder(),
                })
                .collect();
            let name = Ident::new(prim.name, Span::call_site());
            let tokens: Vec<TokenStream> = consts
                .iter()
                .map(|c| parenthesize(c.tokens.clone()))
                .collect();
            // A float receiver is written `f64::m(recv, ..)`: a literal one
            // (`2.25` from a tuple local) would be an ambiguous `{float}`.
            let tokens = match syntax {
                Syntax::Path => quote!(f64::#name(#(#tokens),*)),
                _ if consts[0].is_float => quote!(f64::#name(#(#tokens),*)),
                _ => {
                    let (recv, rest) = tokens.split_first().expect("arity >= 1");
                    quote!(#recv.#name(#(#rest),*))
                }
            };
            let refs: Vec<&ConstValue> = consts.iter().collect();
            // An `f64` operand makes it `f64`'s method (an integer's `min`
            // takes an integer): `SCALE.min(n as f64)` may go to a
            // parameter a callee differentiates (random programs, seed
            // 249846352 #1661: E0061, no slot offered for it).
            return Value::Const(ConstValue {
                tokens,
                is_float: consts.iter().any(|c| c.is_float) || syntax == Syntax::Path,
                uses: join_uses(&refs),
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
                        Value::Const(c) => Value::Const(ConstValue {
                            is_float: true,
                            ..c.map(|t| quote!(f64::from(#t)))
                        }),
                        other => other,
                    };
                }
                if let Some(prim) = prim::method(&method) {
                    let values = call.args.iter().map(|arg| self.lower_expr(arg)).collect();
                    return self.lower_prim(prim, values, &call.args, call, Syntax::Path);
                }
                // `f64::total_cmp(a, b)` (a `max_by`'s comparison): an
                // `Ordering`, never differentiated
                if F64_COMPARISONS.contains(&method.as_str()) && call.args.len() == 2 {
                    return self.non_differentiated(&Expr::Call(call.clone()));
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
        if let Some(super::pattern::Bound::Closure(def)) = self.compound_of(&call.func) {
            let args: Vec<Expr> = call.args.iter().cloned().collect();
            let bound = self.call_closure(&def, &args, call);
            return self.value_of(bound, call);
        }
        if let Expr::Path(func) = strip_parens(&call.func) {
            if self.untyped_array_from_fn(call) {
                return Value::Const(placeholder());
            }
            if let Some(local) = self.lookup_call_target(&func.path) {
                if self.poisoned.contains(&local) {
                    return Value::Const(placeholder());
                }
            }
            if func.qself.is_none() && self.lookup_call_target(&func.path).is_none() {
                let args = self.call_args(&call.args);
                if args.iter().any(CallArg::may_vary) {
                    let inner = func.path.get_ident().map(|i| i.to_string());
                    if let Some(name) = inner.filter(|n| self.inner_fns_kept.contains(n)) {
                        self.cx.error_spanned_by(
                            call,
                            format!(
                                "`{name}` is a `fn` declared inside this function that is \
                                 generic, recursive, unsafe or returns early, and this call needs its \
                                 derivative: `#[differentiable]` inlines only a plain one; \
                                 move `{name}` out of the function and put `#[differentiable]` \
                                 on it"
                            ),
                        );
                        return Value::Const(placeholder());
                    }
                    let adjoint = adjoint_path(&func.path);
                    let callee = Callee::Path {
                        path: func.path.to_token_stream(),
                        adjoint,
                    };
                    return self.apply_call(callee, args);
                }
                return self.const_call(call.func.to_token_stream(), args);
            }
        }
        let args = self.const_args(&call.args, call);
        let func = &call.func;
        let refs: Vec<&ConstValue> = args.iter().collect();
        let uses = join_uses(&refs);
        let args = args.iter().map(|a| &a.tokens);
        Value::Const(ConstValue {
            tokens: quote!(#func(#(#args),*)),
            is_float: false,
            uses,
        })
    }

    /// A local variable (a closure, say) being called is not a function
    /// with an adjoint.
    fn lookup_call_target(&self, path: &syn::Path) -> Option<VarId> {
        path.get_ident().and_then(|i| self.lookup(&i.to_string()))
    }

    /// The arguments of a call that may be differentiated.
    fn call_args(
        &mut self,
        args: &syn::punctuated::Punctuated<Expr, syn::Token![,]>,
    ) -> Vec<CallArg> {
        let mut out = Vec::new();
        for arg in args {
            // `[a, b]`, `&[a, b]`, `&[0.0; 3]`: a new local array, passed
            // like one the user bound first (`let t = [a, b]; g(&t)`).
            let (literal, by_ref) = match strip_parens(arg) {
                Expr::Reference(r) if r.mutability.is_none() => (strip_parens(&r.expr), true),
                other => (other, false),
            };
            if matches!(literal, Expr::Array(_) | Expr::Repeat(_)) {
                out.push(match self.array_constructor(literal, false) {
                    Some(init) => {
                        let array = self.new_array_temp(init, None);
                        self.whole_array_arg(array, by_ref)
                    }
                    // `[SCALE, 1.0]`-like, of a type the macro cannot see:
                    // a local array typed by its elements (`[_; N]`),
                    // which the callee may differentiate.
                    None => match self.untyped_array(literal) {
                        Some((init, ty)) => {
                            let array = self.new_array_temp(init, Some(ty));
                            self.whole_array_arg(array, by_ref)
                        }
                        // An array of integers (or other constants).
                        _ => {
                            let (tokens, uses) = match self.declined_literal() {
                                Some((literal, uses)) if by_ref => (quote!(&#literal), uses),
                                Some(literal) => literal,
                                None => self.non_differentiated_tokens(arg),
                            };
                            CallArg::Const(ir::Const { tokens, uses })
                        }
                    },
                });
                continue;
            }
            // `w` (or `&w`) bound to a subslice view (`let w = &x[1..];`, a
            // `windows`/`chunks` element), or `&w[a..b]` of one: that
            // subslice of its array.
            let view = match self.compound_of(literal) {
                Some(super::pattern::Bound::View(view)) => Some(view),
                _ => match strip_parens(literal) {
                    // (of an array a closure returned too: `view_of_index`
                    // makes it a local array of its parts)
                    Expr::Index(index)
                        if matches!(
                            self.compound_of(&index.expr),
                            Some(super::pattern::Bound::View(_) | super::pattern::Bound::Parts(_))
                        ) && matches!(strip_parens(&index.index), Expr::Range(_)) =>
                    {
                        self.view_of_index(index)
                    }
                    _ => None,
                },
            };
            if let Some(view) = view {
                out.push(self.view_arg(view));
                continue;
            }
            // `&row(i)[a..b]`, a part of what a closure returns: inlined once
            if let Expr::Index(index) = literal {
                if let (Expr::Call(call), Expr::Range(range)) =
                    (strip_parens(&index.expr), strip_parens(&index.index))
                {
                    if matches!(
                        self.compound_of(&call.func),
                        Some(super::pattern::Bound::Closure(_))
                    ) {
                        let arg_out = match self.view_of_closure_index(index, range) {
                            Ok(view) => self.view_arg(view),
                            // (of constant data: the part as tokens)
                            Err(data) => CallArg::Const(data),
                        };
                        out.push(arg_out);
                        continue;
                    }
                }
            }
            // `row(i)` of a closure, whatever it returns (a subslice,
            // `|k| &xs[k * d..(k + 1) * d]`, or a value): inlined once.
            if let Expr::Call(call) = literal {
                if matches!(
                    self.compound_of(&call.func),
                    Some(super::pattern::Bound::Closure(_))
                ) {
                    let arg_out = match self.lower_bound(literal) {
                        super::pattern::Bound::View(view) => self.view_arg(view),
                        other => match self.value_of(other, arg) {
                            // (an array it returns: the local array it is)
                            Value::Array(array) => self.whole_array_arg(array, by_ref),
                            value => self.value_arg(value, arg),
                        },
                    };
                    out.push(arg_out);
                    continue;
                }
            }
            // `&w[a..b]`: a subslice of a float array.
            if let Expr::Reference(r) = strip_parens(arg) {
                if let Expr::Index(index) = strip_parens(&r.expr) {
                    if let Expr::Range(_) = strip_parens(&index.index) {
                        if let Value::Array(array) = self.lower_expr(&index.expr) {
                            let (range, uses) = self.non_differentiated_tokens(&index.index);
                            let (tokens, _) = self.non_differentiated_tokens(arg);
                            out.push(CallArg::Array {
                                array,
                                tokens,
                                range: Some(ir::Const {
                                    tokens: range,
                                    uses,
                                }),
                            });
                            continue;
                        }
                    }
                }
                if let Value::Array(array) = self.lower_expr(&r.expr) {
                    let (tokens, _) = self.non_differentiated_tokens(arg);
                    out.push(CallArg::Array {
                        array,
                        tokens,
                        range: None,
                    });
                    continue;
                }
            }
            let value = self.lower_expr(arg);
            out.push(self.value_arg(value, arg));
        }
        out
    }

    /// A call's argument that is the subslice `view` of its array.
    fn view_arg(&mut self, view: super::pattern::View) -> CallArg {
        let array = self.vars[view.array].ident.clone();
        let (start, len) = (
            parenthesize(view.start.tokens),
            parenthesize(view.len.tokens),
        );
        let mut uses = view.start.uses;
        uses.extend(view.len.uses);
        let range = quote!(#start..#start + #len);
        CallArg::Array {
            array: view.array,
            tokens: quote!(&#array[#range]),
            range: Some(ir::Const {
                tokens: range,
                uses,
            }),
        }
    }

    /// A call's argument `arg`, lowered to `value`.
    fn value_arg(&mut self, value: Value, arg: &Expr) -> CallArg {
        match value {
            Value::Array(array) => {
                let (tokens, _) = self.non_differentiated_tokens(arg);
                CallArg::Array {
                    array,
                    tokens,
                    range: None,
                }
            }
            Value::Var(v) => CallArg::Float(Operand::Var(v)),
            // A float constant (`2.0`, `n as f64`), or a constant whose
            // type the macro cannot see (`SCALE`, `-SCALE`, `h(n)`), may
            // go to a parameter the callee differentiates: it is offered
            // a scratch slot (`emit::primal::adjoint_call`; an impl
            // giving a slot to an integer never matches).
            Value::Const(c) if c.is_float || self.may_be_float(&c) => {
                CallArg::Float(Operand::Const(ir::Const {
                    tokens: parenthesize(c.tokens),
                    uses: c.uses,
                }))
            }
            Value::Const(c) => CallArg::Const(c.into_ir()),
        }
    }

    /// `let r = g(args);` of a function returning a vector (API.md §4; the
    /// caller knows it from `r`'s type or its uses as an array): a new
    /// local float array holding the call's value, whose reverse calls
    /// `g_adjoint` with the array's adjoint as `d_out`. `None` when `init`
    /// is not a call of a function path; a constant when no argument
    /// varies.
    /// Reports `std::array::from_fn(..)` (`core::`, `array::`) anywhere
    /// but as the value of a `let` typed `[f64; N]`, which
    /// `syntax::array_from_fn_lets` has made the loop filling the array.
    fn untyped_array_from_fn(&mut self, call: &syn::ExprCall) -> bool {
        let whole = Expr::Call(call.clone());
        let from_fn =
            super::syntax::std_fn_call(&whole, "array", "from_fn", call.args.len()).is_some();
        if from_fn {
            self.cx.error_spanned_by(
                call,
                "`#[differentiable]` supports `std::array::from_fn` as the value of a `let` \
                 with its type written out, `let y: [f64; N] = std::array::from_fn(|i| ..);` \
                 (a closure with one name as parameter, that does not `return`)",
            );
        }
        from_fn
    }

    pub(super) fn vector_call(&mut self, init: &Expr) -> Option<Value> {
        // (`let v = &twice(x);`: a reference to the vector is the vector)
        if let Expr::Reference(r) = strip_parens(init) {
            if r.mutability.is_none() {
                return self.vector_call(&r.expr);
            }
        }
        if let Expr::MethodCall(call) = strip_parens(init) {
            return self.vector_method_call(call);
        }
        let Expr::Call(call) = strip_parens(init) else {
            return None;
        };
        let Expr::Path(func) = strip_parens(&call.func) else {
            return None;
        };
        if self.untyped_array_from_fn(call) {
            return Some(Value::Const(placeholder()));
        }
        if func.qself.is_some()
            || f64_associated_fn(&func.path).is_some()
            || self.lookup_call_target(&func.path).is_some()
        {
            return None;
        }
        let args = self.call_args(&call.args);
        if !args.iter().any(CallArg::may_vary) {
            return Some(self.const_call(call.func.to_token_stream(), args));
        }
        let callee = Callee::Path {
            path: func.path.to_token_stream(),
            adjoint: adjoint_path(&func.path),
        };
        let temp = self.new_temp(Kind::FloatArray);
        // a local array (its adjoint buffer is declared up front)
        self.vars[temp].origin = Origin::Local;
        self.stmts.push(Stmt::Let {
            var: temp,
            ty: None,
            init: Some(Rhs::Call { callee, args }),
        });
        Some(Value::Array(temp))
    }

    /// `let r = recv.g(args);` of a method returning a vector (`self.g(..)`,
    /// a constant receiver): as [`Self::vector_call`], calling
    /// `recv.g_adjoint`. `None` for a receiver that varies or a method of
    /// floats and arrays (`x.to_vec()`, ..).
    fn vector_method_call(&mut self, call: &syn::ExprMethodCall) -> Option<Value> {
        let name = call.method.to_string();
        let plain_receiver = matches!(strip_parens(&call.receiver), Expr::Path(_) | Expr::Field(_));
        if call.turbofish.is_some() || prim::method(&name).is_some() || !plain_receiver {
            return None;
        }
        let Value::Const(recv) = self.lower_expr(&call.receiver) else {
            return None;
        };
        if recv.is_float {
            return None;
        }
        let args = self.call_args(&call.args);
        if !args.iter().any(CallArg::may_vary) {
            return None;
        }
        let callee = Callee::Method {
            receiver: ir::Const {
                tokens: parenthesize(recv.tokens.clone()),
                uses: recv.uses.clone(),
            },
            method: call.method.clone(),
        };
        let temp = self.new_temp(Kind::FloatArray);
        self.vars[temp].origin = Origin::Local;
        self.stmts.push(Stmt::Let {
            var: temp,
            ty: None,
            init: Some(Rhs::Call { callee, args }),
        });
        Some(Value::Array(temp))
    }

    /// `c` is a read of constant locals that may be floats
    /// (`Lowerer::maybe_float`), or arithmetic of them with float literals
    /// and constants whose type the macro cannot see (`d - d`, `-d`, `d *
    /// SCALE`; random programs, seed 825758754 #2166: E0277, no slot
    /// offered for `d - d`). An integer literal makes it an integer.
    fn is_maybe_float_local(&self, c: &ConstValue) -> bool {
        if c.uses.is_empty() || !c.uses.iter().all(|v| self.maybe_float.contains(v)) {
            return false;
        }
        let locals: HashSet<String> = c
            .uses
            .iter()
            .map(|v| self.vars[*v].ident.to_string())
            .collect();
        match syn::parse2::<Expr>(c.tokens.clone()) {
            Ok(expr) => maybe_float_arithmetic(&expr, &locals),
            Err(_) => false,
        }
    }

    /// `temp = callee(args)`.
    fn apply_call(&mut self, callee: Callee, args: Vec<CallArg>) -> Value {
        let temp = self.new_temp(Kind::Float);
        self.stmts.push(Stmt::Let {
            var: temp,
            ty: None,
            init: Some(Rhs::Call { callee, args }),
        });
        Value::Var(temp)
    }

    /// A call with only constant arguments: a constant.
    fn const_call(&mut self, func: TokenStream, args: Vec<CallArg>) -> Value {
        let mut uses = Vec::new();
        let tokens: Vec<TokenStream> = args
            .into_iter()
            .map(|a| match a {
                CallArg::Const(c) | CallArg::Float(Operand::Const(c)) => {
                    uses.extend(c.uses);
                    c.tokens
                }
                // (not called with these: see `CallArg::may_vary`)
                CallArg::Float(Operand::Var(_)) | CallArg::Array { .. } => quote!(0.0),
            })
            .collect();
        Value::Const(ConstValue {
            tokens: quote!(#func(#(#tokens),*)),
            is_float: false,
            uses,
        })
    }

    /// Arguments of a call that is not differentiated: all must be constants.
    /// Does `expr` read a float or a float array of the function (a name
    /// bound to one where it is written, not its own closure parameters or
    /// `let`s), or a tuple, closure or view?
    pub(super) fn reads_floats(&self, expr: &Expr) -> bool {
        let mut names = std::collections::HashSet::new();
        crate::names::collect_idents(expr.to_token_stream(), &mut names);
        names.iter().any(|name| {
            self.lookup(name).is_some_and(|id| {
                self.vars[id].kind != ir::Kind::Other || self.compound.contains_key(&id)
            })
        })
    }

    fn const_args(
        &mut self,
        args: &syn::punctuated::Punctuated<Expr, syn::Token![,]>,
        call: &dyn ToTokens,
    ) -> Vec<ConstValue> {
        let mut out = Vec::new();
        for arg in args {
            match self.lower_expr(arg) {
                Value::Const(c) => out.push(c),
                _ => {
                    self.cx.error_spanned_by(
                        arg,
                        format!(
                            "`{}` is called with a differentiated argument, but it is not a \
                             function `#[differentiable]` can differentiate: call a function \
                             `g(..)` (or `self.g(..)`) that is `#[differentiable]` or has a \
                             hand-written `g_adjoint`",
                            callee_name(call)
                        ),
                    );
                    out.push(placeholder());
                }
            }
        }
        out
    }

    /// A new local array given whole to a call: `&a` (`by_ref`) or `a`.
    fn whole_array_arg(&self, array: VarId, by_ref: bool) -> CallArg {
        let ident = &self.vars[array].ident;
        CallArg::Array {
            array,
            tokens: if by_ref {
                quote!(&#ident)
            } else {
                quote!(#ident)
            },
            range: None,
        }
    }

    fn lower_index(&mut self, index: &syn::ExprIndex) -> Value {
        if let Some(super::pattern::Bound::View(view)) = self.compound_of(&index.expr) {
            let (idx, mut uses) = self.non_differentiated_tokens(&index.index);
            let start = parenthesize(view.start.tokens);
            let idx = parenthesize(idx);
            uses.extend(view.start.uses);
            if !self.is_active_array(view.array) {
                // Data (`for row in x.chunks(p)`): read through the subslice
                // the view stands for, as `row[k]` does. Its one bounds check
                // per row lets LLVM drop those of the elements (an index
                // below the row's length), where `x[start + k]` keeps one
                // per element (a logistic regression's dot products: 1.4×
                // the hand-written gradient's instructions).
                let ident = self.vars[view.array].ident.clone();
                let len = parenthesize(view.len.tokens);
                uses.extend(view.len.uses);
                uses.push(view.array);
                return Value::Const(ConstValue {
                    tokens: quote!(#ident[#start..#start + #len][#idx]),
                    is_float: true,
                    uses,
                });
            }
            return self.load_element(view.array, quote!(#start + #idx), uses);
        }
        // An array of separate values (what a closure's `[a, b]` gives,
        // kept as its parts): read at a literal index, the part itself.
        if let Some(super::pattern::Bound::Parts(parts)) = self.compound_of(&index.expr) {
            let literal = match strip_parens(&index.index) {
                Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(i),
                    ..
                }) => i.base10_parse::<usize>().ok(),
                _ => None,
            };
            match literal.and_then(|k| parts.get(k)) {
                Some(part) => return self.value_of(part.clone(), index),
                None if literal.is_none() => {
                    self.cx.error_spanned_by(
                        index,
                        "this array of integers a closure returns is read here only at a \
                         literal index (`p[0]`); to index it otherwise, build it in a `let` \
                         where it is used",
                    );
                    return Value::Const(placeholder());
                }
                None => {
                    self.cx.error_spanned_by(
                        index,
                        format!(
                            "index out of bounds: this array a closure returns has {} \
                             elements",
                            parts.len()
                        ),
                    );
                    return Value::Const(placeholder());
                }
            }
        }
        // `g(x)[0]`: an indexed call returns an array, whatever the macro
        // can see of `g` (refused as "an `f64` cannot be indexed" until
        // 2026-11-28); as `let r = g(x);` then `r[0]`
        let base = match strip_parens(&index.expr) {
            Expr::Call(_) | Expr::MethodCall(_) => self.vector_call(&index.expr),
            _ => None,
        };
        let base = base.unwrap_or_else(|| self.lower_expr(&index.expr));
        let (idx, idx_uses) = self.non_differentiated_tokens(&index.index);
        match base {
            Value::Array(array) => self.load_element(array, idx, idx_uses),
            Value::Const(c) => {
                let mut uses = c.uses.clone();
                uses.extend(idx_uses);
                // an element of a subslice of data (`x[a..b][k]`) is a
                // float; of anything else, not known to be
                let of_subslice = matches!(
                    strip_parens(&index.expr),
                    Expr::Index(inner) if matches!(strip_parens(&inner.index), Expr::Range(_))
                );
                Value::Const(ConstValue {
                    is_float: c.is_float && of_subslice,
                    uses,
                    ..c.map(|t| quote!(#t[#idx]))
                })
            }
            Value::Var(_) => {
                self.cx
                    .error_spanned_by(&index.expr, "an `f64` cannot be indexed");
                Value::Const(placeholder())
            }
        }
    }

    /// Whether the float array `array` carries derivatives: an active
    /// parameter or a local (whose elements may be computed from one).
    pub(super) fn is_active_array(&self, array: VarId) -> bool {
        matches!(
            self.vars[array].origin,
            Origin::Param { active: true, .. } | Origin::Local
        )
    }

    /// `array[idx]` of a float array variable.
    pub(super) fn load_element(
        &mut self,
        array: VarId,
        idx: TokenStream,
        idx_uses: Vec<VarId>,
    ) -> Value {
        let ident = self.vars[array].ident.clone();
        let mut uses = idx_uses;
        let origin = self.vars[array].origin;
        if !self.is_active_array(array) {
            uses.push(array);
            return Value::Const(ConstValue {
                tokens: quote!(#ident[#idx]),
                is_float: true,
                uses,
            });
        }
        // Parameters never change: a second read is the first one.
        let key = (array, idx.to_string());
        let cacheable = origin != Origin::Local;
        if cacheable {
            if let Some(id) = self.loads.iter().rev().find_map(|l| l.get(&key)) {
                return Value::Var(*id);
            }
        }
        let temp = self.new_temp(Kind::Float);
        self.stmts.push(Stmt::Let {
            var: temp,
            ty: None,
            init: Some(Rhs::Load {
                array,
                index: ir::Const { tokens: idx, uses },
            }),
        });
        if cacheable {
            self.loads
                .last_mut()
                .expect("never empty")
                .insert(key, temp);
        }
        Value::Var(temp)
    }

    /// `value.member` of a value that is not a tuple the macro sees.
    pub(super) fn field_of(&mut self, value: Value, field: &syn::ExprField) -> Value {
        match value {
            Value::Const(c) => {
                let member = &field.member;
                Value::Const(ConstValue {
                    is_float: false,
                    ..c.map(|t| quote!(#t.#member))
                })
            }
            _ => {
                self.cx.error_spanned_by(field, "a float has no fields");
                Value::Const(placeholder())
            }
        }
    }

    fn lower_block_expr(&mut self, block: &syn::Block, whole: &Expr) -> Value {
        let bound = self.lower_block_bound(block, whole);
        self.value_of(bound, whole)
    }

    /// A block used as a value: its statements, then its tail (kept whole
    /// when it is a tuple, a view, ...).
    pub(super) fn lower_block_bound(&mut self, block: &syn::Block, whole: &Expr) -> Bound {
        if block
            .stmts
            .iter()
            .any(|s| matches!(s, syn::Stmt::Expr(e, _) if super::syntax::may_jump(e)))
        {
            self.cx.error_spanned_by(
                whole,
                "`break`, `continue` and `return` inside a block used as a value are not \
                 supported by `#[differentiable]`; use them in statements",
            );
            return Bound::Value(Value::Const(placeholder()));
        }
        self.push_scope(Default::default());
        let stmts = super::syntax::nest_jumps(&block.stmts, self.names);
        let (body, tail) = match stmts.split_last() {
            Some((syn::Stmt::Expr(tail, None), body)) => (body, Some(tail.clone())),
            _ => (&stmts[..], None),
        };
        // (the body's locals are typed by their uses in the value too:
        // `let r = scale2(a, s); r[0] * r[1]` in a closure)
        self.block_tail = tail.clone();
        self.lower_stmts(body, None, &[]);
        self.block_tail = None;
        let value = match tail {
            Some(tail) => self.lower_bound(&tail),
            None => {
                self.cx.error_spanned_by(
                    whole,
                    "this block has no value: end it with an expression (no `;`)",
                );
                Bound::Value(Value::Const(placeholder()))
            }
        };
        self.pop_scope();
        value
    }

    /// `if c { a } else { b }` used as a value.
    fn lower_if_value(&mut self, ifx: &syn::ExprIf, whole: &Expr) -> Value {
        if super::syntax::may_jump(whole) {
            self.cx.error_spanned_by(
                whole,
                "`break`, `continue` and `return` inside an `if` used as a value are not \
                 supported by `#[differentiable]`; use an `if` statement",
            );
            return Value::Const(placeholder());
        }
        if ifx.else_branch.is_none() {
            self.cx
                .error_spanned_by(whole, "an `if` used as a value needs an `else`");
            return Value::Const(placeholder());
        }
        let cell = self.new_cell("value", Kind::Other);
        let at = self.stmts.len();
        self.stmts.push(Stmt::Let {
            var: cell,
            ty: None,
            init: None,
        });
        self.lower_if(ifx, Some(Sink::Cell(cell)), &[], true);
        let kind = self.vars[cell].kind;
        if kind == Kind::Float {
            if let Some(Stmt::Let { ty, .. }) = self.stmts.get_mut(at) {
                *ty = Some(quote!(f64));
            }
        }
        // Where every branch is a constant, the whole `if` is one.
        let value = self.new_temp(kind);
        self.stmts.push(Stmt::Let {
            var: value,
            ty: None,
            init: Some(Rhs::Use(Operand::Var(cell))),
        });
        // `if c { SCALE } else { OFFSET }`: constants of a type the macro
        // cannot see, none an integer or a `bool`, may make a float that a
        // call passes to a parameter its callee differentiates (random
        // programs, seed 192272522 #1381: E0061, no slot offered for it).
        if self.maybe_float_cells.contains(&cell) && !self.not_float_cells.contains(&cell) {
            self.maybe_float.insert(value);
        }
        match kind {
            Kind::Float => Value::Var(value),
            _ => Value::Const(ConstValue {
                tokens: self.vars[value].ident.to_token_stream(),
                is_float: false,
                uses: vec![value],
            }),
        }
    }

    /// `expr` names a local bound by value where Rust binds a reference
    /// (`Lowerer::by_value_refs`).
    fn is_by_value_ref(&self, expr: &Expr) -> bool {
        let Expr::Path(p) = strip_parens(expr) else {
            return false;
        };
        p.path
            .get_ident()
            .and_then(|i| self.lookup(&i.to_string()))
            .is_some_and(|id| self.by_value_refs.contains(&id))
    }

    /// Whether constant `c`, of a type the macro cannot see, may be a
    /// float: not an integer or `bool` literal, and a path, a call of a
    /// function whose type it cannot see, or arithmetic of such locals.
    pub(super) fn may_be_float(&self, c: &ConstValue) -> bool {
        !is_int_or_bool(&c.tokens) && (c.uses.is_empty() || is_call_of_unknown_type(&c.tokens))
            || self.is_maybe_float_local(c)
    }

    /// An expression whose value carries no derivative (a comparison, boolean
    /// logic, integer arithmetic): kept whole, with local names rewritten.
    fn non_differentiated(&mut self, expr: &Expr) -> Value {
        let (tokens, uses) = self.non_differentiated_tokens(expr);
        Value::Const(ConstValue {
            tokens,
            is_float: false,
            uses,
        })
    }

    pub(super) fn non_differentiated_tokens(&mut self, expr: &Expr) -> (TokenStream, Vec<VarId>) {
        self.renamed_tokens(expr, false)
    }

    /// `non_differentiated_tokens`, with closures kept (their parameters
    /// their own): for a call whose value cannot be a float (a search of a
    /// slice, `partition_point(|v| ..)`), so that what a closure reads of the
    /// function's floats never reaches a derivative.
    fn renamed_tokens(&mut self, expr: &Expr, closures: bool) -> (TokenStream, Vec<VarId>) {
        let mut expr = expr.clone();
        // `any`/`all` of a chain in integer or boolean code: loops, lowered
        // first (`hoist_tests`); a closure cannot stay in these tokens
        if super::has_test(&expr) {
            self.hoist_tests(&mut expr);
        }
        let mut renamer = Renamer {
            lowerer: self,
            uses: Vec::new(),
            block_locals: Vec::new(),
            closures,
        };
        renamer.visit_expr_mut(&mut expr);
        let uses = renamer.uses;
        (expr.to_token_stream(), uses)
    }

    /// Reports an expression outside the supported subset.
    fn unsupported(&mut self, expr: &Expr) -> Value {
        let what = unsupported_message(expr);
        self.cx.error_spanned_by(expr, what);
        Value::Const(placeholder())
    }
}

/// `o.map(|p| e).unwrap_or(v)` / `o.map_or(v, |p| e)` of an element's
/// option `o` (`x.get(i)`, `x.first()`, `x.last()`, through `.copied()`),
/// without side effects, so read twice: `if o.is_some() { let p =
/// o.unwrap(); e } else { v }` (`None` for anything else).
fn option_map_as_match(expr: &Expr) -> Option<Expr> {
    let Expr::MethodCall(call) = expr else {
        return None;
    };
    let (option, f, default) = match (call.method.to_string().as_str(), call.args.len()) {
        ("map_or", 2) => (&call.receiver, &call.args[1], &call.args[0]),
        ("unwrap_or", 1) => {
            let Expr::MethodCall(map) = strip_parens(&call.receiver) else {
                return None;
            };
            if map.method != "map" || map.args.len() != 1 {
                return None;
            }
            (&map.receiver, &map.args[0], &call.args[0])
        }
        _ => return None,
    };
    let Expr::Closure(closure) = strip_parens(f) else {
        return None;
    };
    if closure.inputs.len() != 1 {
        return None;
    }
    let element = match strip_parens(option) {
        Expr::MethodCall(m)
            if (m.method == "copied" || m.method == "cloned") && m.args.is_empty() =>
        {
            &m.receiver
        }
        other => other,
    };
    let Expr::MethodCall(m) = strip_parens(element) else {
        return None;
    };
    let pure = super::syntax::simple;
    let element_option = match (m.method.to_string().as_str(), m.args.len()) {
        ("get", 1) => pure(&m.args[0]),
        ("first" | "last", 0) => true,
        _ => false,
    };
    if !element_option || !pure(&m.receiver) {
        return None;
    }
    let pat = &closure.inputs[0];
    let body = &closure.body;
    Some(syn::parse_quote!(
        (if (#option).is_some() { let #pat = (#option).unwrap(); #body } else { #default })
    ))
}

/// Rewrites the names of locals inside a non-differentiated expression to
/// their emitted names, records which variables it reads, and refuses
/// constructs unsupported everywhere.
struct Renamer<'l, 'a> {
    lowerer: &'l mut Lowerer<'a>,
    uses: Vec<VarId>,
    /// The names `let` binds in the blocks being visited, innermost last:
    /// they are the block's own, not the function's locals.
    block_locals: Vec<std::collections::HashSet<String>>,
    /// Whether closures may stay (see `Lowerer::renamed_tokens`).
    closures: bool,
}

impl Renamer<'_, '_> {
    /// `p.0` of a tuple local, `w.len()` of a view: the part (a variable or
    /// constant tokens), recording what it reads; `None` for anything else.
    fn compound_part(&mut self, expr: &Expr) -> Option<Expr> {
        use super::pattern::Bound;
        let (tokens, uses) = match expr {
            Expr::Field(field) => {
                let syn::Member::Unnamed(index) = &field.member else {
                    return None;
                };
                if self.is_block_local(&field.base.to_token_stream().to_string()) {
                    return None;
                }
                let Some(Bound::Tuple(parts)) = self.lowerer.compound_of(&field.base) else {
                    return None;
                };
                match parts.get(index.index as usize)? {
                    Bound::Value(Value::Var(v)) => {
                        (self.lowerer.vars[*v].ident.to_token_stream(), vec![*v])
                    }
                    Bound::Value(Value::Const(c)) => {
                        (parenthesize(c.tokens.clone()), c.uses.clone())
                    }
                    _ => return None,
                }
            }
            // `*r` of an `iter_mut` element: the array's element it stands for.
            Expr::Unary(unary) if matches!(unary.op, UnOp::Deref(_)) => {
                if self.is_block_local(&unary.expr.to_token_stream().to_string()) {
                    return None;
                }
                let Some(Bound::Place { array, index }) = self.lowerer.compound_of(&unary.expr)
                else {
                    return None;
                };
                let ident = self.lowerer.vars[array].ident.clone();
                let i = &index.tokens;
                let mut uses = index.uses;
                uses.push(array);
                (quote!(#ident[#i]), uses)
            }
            // `w[i]` of a view: the array's element at the view's start + i.
            Expr::Index(index) => {
                if self.is_block_local(&index.expr.to_token_stream().to_string()) {
                    return None;
                }
                let view = match self.lowerer.compound_of(&index.expr) {
                    Some(Bound::View(view)) => view,
                    // `p[k]` of an array a closure returned, kept as its
                    // parts (an index `x[p[0]]`, a condition): the part, or
                    // the array of the parts indexed
                    Some(Bound::Parts(parts)) => {
                        let (items, uses) = self.part_tokens(parts)?;
                        let literal = match strip_parens(&index.index) {
                            Expr::Lit(syn::ExprLit {
                                lit: syn::Lit::Int(i),
                                ..
                            }) => i.base10_parse::<usize>().ok(),
                            _ => None,
                        };
                        let tokens = match literal.and_then(|k| items.get(k)) {
                            Some(item) => item.clone(),
                            None => {
                                let mut i = (*index.index).clone();
                                self.visit_expr_mut(&mut i);
                                quote!([#(#items),*][#i])
                            }
                        };
                        for u in uses {
                            if !self.uses.contains(&u) {
                                self.uses.push(u);
                            }
                        }
                        return syn::parse2(tokens).ok();
                    }
                    _ => return None,
                };
                let mut i = (*index.index).clone();
                self.visit_expr_mut(&mut i);
                let array = self.lowerer.vars[view.array].ident.clone();
                let start = parenthesize(view.start.tokens);
                let mut uses = view.start.uses;
                uses.push(view.array);
                if let Expr::Range(range) = strip_parens(&i) {
                    // `w[a..b]` of a view: the subslice of its array.
                    let len = parenthesize(view.len.tokens);
                    uses.extend(view.len.uses);
                    let lo = match &range.start {
                        Some(a) => quote!(#start + (#a)),
                        None => quote!(#start),
                    };
                    let hi = match (&range.end, &range.limits) {
                        (Some(b), syn::RangeLimits::HalfOpen(_)) => quote!(#start + (#b)),
                        (Some(b), syn::RangeLimits::Closed(_)) => quote!(#start + (#b) + 1),
                        (None, _) => quote!(#start + #len),
                    };
                    (quote!(#array[#lo..#hi]), uses)
                } else {
                    // through the subslice (see `lower_index`)
                    let len = parenthesize(view.len.tokens);
                    uses.extend(view.len.uses);
                    (quote!(#array[#start..#start + #len][#i]), uses)
                }
            }
            Expr::MethodCall(call) if call.method == "len" && call.args.is_empty() => {
                if self.is_block_local(&call.receiver.to_token_stream().to_string()) {
                    return None;
                }
                match self.lowerer.compound_of(&call.receiver) {
                    Some(Bound::View(view)) => (parenthesize(view.len.tokens), view.len.uses),
                    // an array a closure returned, kept as its parts
                    Some(Bound::Parts(parts)) => {
                        let len = proc_macro2::Literal::usize_suffixed(parts.len());
                        (quote!(#len), Vec::new())
                    }
                    _ => return None,
                }
            }
            // Any other use of a view (`w.get(i)`, `w.iter().sum::<f64>()`
            // in a condition): the subslice it stands for.
            Expr::Path(path) if path.qself.is_none() && path.path.get_ident().is_some() => {
                if self.is_block_local(&path.to_token_stream().to_string()) {
                    return None;
                }
                let view = match self.lowerer.compound_of(expr) {
                    Some(Bound::View(view)) => view,
                    // an array a closure returned, kept as its parts (given
                    // to a call in a condition): the array of them; a
                    // tuple (an element of `enumerate` or `zip` given to a
                    // comparator): the tuple of them
                    Some(bound @ (Bound::Parts(_) | Bound::Tuple(_))) => {
                        let (tuple, parts) = match bound {
                            Bound::Tuple(parts) => (true, parts),
                            Bound::Parts(parts) => (false, parts),
                            _ => return None,
                        };
                        let (items, uses) = self.part_tokens(parts)?;
                        for u in uses {
                            if !self.uses.contains(&u) {
                                self.uses.push(u);
                            }
                        }
                        return syn::parse2(match tuple {
                            true => quote!((#(#items,)*)),
                            false => quote!([#(#items),*]),
                        })
                        .ok();
                    }
                    _ => return None,
                };
                let array = self.lowerer.vars[view.array].ident.clone();
                let start = parenthesize(view.start.tokens);
                let len = parenthesize(view.len.tokens);
                let mut uses = view.start.uses;
                uses.extend(view.len.uses);
                uses.push(view.array);
                (quote!((&#array[#start..#start + #len])), uses)
            }
            _ => return None,
        };
        for u in uses {
            if !self.uses.contains(&u) {
                self.uses.push(u);
            }
        }
        syn::parse2(tokens).ok()
    }

    /// The tokens of the parts of an array a closure returned (variables
    /// and constants), and what they read; `None` if a part is neither.
    fn part_tokens(
        &self,
        parts: Vec<super::pattern::Bound>,
    ) -> Option<(Vec<TokenStream>, Vec<VarId>)> {
        use super::pattern::Bound;
        let mut items = Vec::new();
        let mut uses = Vec::new();
        for part in parts {
            match part {
                Bound::Value(Value::Var(v)) => {
                    items.push(self.lowerer.vars[v].ident.to_token_stream());
                    uses.push(v);
                }
                Bound::Value(Value::Const(c)) => {
                    items.push(parenthesize(c.tokens));
                    uses.extend(c.uses);
                }
                _ => return None,
            }
        }
        Some((items, uses))
    }

    /// Is `expr` the name of one of the function's float locals?
    fn is_float_local(&self, expr: &Expr) -> bool {
        let Expr::Path(path) = expr else { return false };
        path.path.get_ident().is_some_and(|ident| {
            let name = ident.to_string();
            !self.is_block_local(&name)
                && self
                    .lowerer
                    .lookup(&name)
                    .is_some_and(|id| self.lowerer.vars[id].kind == Kind::Float)
        })
    }

    fn is_block_local(&self, name: &str) -> bool {
        self.block_locals.iter().any(|scope| scope.contains(name))
    }

    /// `{ let t = ..; t.abs() }` inside a condition or an index: its `let`s
    /// bind names of its own, which stay as written; what it reads of the
    /// function's locals is renamed. Items, macros and `let .. else` inside
    /// it are refused.
    fn visit_block(&mut self, block: &mut syn::Block) {
        self.block_locals.push(Default::default());
        for stmt in &mut block.stmts {
            match stmt {
                syn::Stmt::Local(local) => {
                    if let Some(init) = &mut local.init {
                        if let Some((else_token, _)) = &init.diverge {
                            self.lowerer.cx.error_spanned_by(
                                else_token,
                                "`let ... else` is not supported by `#[differentiable]`",
                            );
                        }
                        self.visit_expr_mut(&mut init.expr);
                    }
                    let names = super::pattern::pattern_idents(&local.pat);
                    let scope = self.block_locals.last_mut().expect("pushed above");
                    scope.extend(names.iter().map(|n| n.to_string()));
                }
                syn::Stmt::Expr(expr, _) => self.visit_expr_mut(expr),
                syn::Stmt::Item(_) | syn::Stmt::Macro(_) => {
                    self.lowerer.cx.error_spanned_by(
                        &*stmt,
                        "items and macros are not supported in a block inside a condition \
                         or an index; compute the value in a `let` first",
                    );
                }
            }
        }
        self.block_locals.pop();
    }
}

impl VisitMut for Renamer<'_, '_> {
    // Every block (an `if`'s branches too) has lets of its own.
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        self.visit_block(block);
    }

    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        // `x.get(i).map(|p| e).unwrap_or(v)` and `.map_or(v, |p| e)` in a
        // condition or an index: `if o.is_some() { let p = o.unwrap(); e }
        // else { v }`, the same value with no closure left in the tokens
        if let Some(matched) = option_map_as_match(expr) {
            *expr = matched;
        }
        // `*v` of a loop element: in `f` `v` is `&f64`, in the generated code
        // it is the `f64` itself.
        // (`**v` of a `filter` closure's `&&f64` too.)
        while let Expr::Unary(unary) = expr {
            let UnOp::Deref(_) = unary.op else { break };
            let mut inner = &*unary.expr;
            while let Expr::Unary(u) = inner {
                let UnOp::Deref(_) = u.op else { break };
                inner = &u.expr;
            }
            let Expr::Path(path) = inner else { break };
            // (not a name a block or a closure here binds, which shadows
            // the function's: `|a| *a < t` beside a float parameter `a`)
            // (or a part bound by value where Rust binds a reference,
            // `by_value_refs`)
            let float = path
                .path
                .get_ident()
                .filter(|i| !self.is_block_local(&i.to_string()))
                .and_then(|i| self.lowerer.lookup(&i.to_string()))
                .is_some_and(|id| {
                    self.lowerer.vars[id].kind == Kind::Float
                        || self.lowerer.by_value_refs.contains(&id)
                });
            if !float {
                break;
            }
            *expr = (*unary.expr).clone();
        }
        // `p.0` of a tuple local and `w.len()` of a subslice view (inside a
        // `filter` closure, a condition): what they stand for.
        if let Some(replacement) = self.compound_part(expr) {
            *expr = replacement;
            return;
        }
        // A call of a closure bound to a local (`g(1.5)` in `&[-g(1.5)]`, an
        // array of constants given to a call): the closure is inlined as
        // everywhere else, and the call stands for its value (the closure
        // itself is not in the generated code).
        if let Expr::Call(call) = expr {
            let local_closure = match strip_parens(&call.func) {
                Expr::Path(path) => path
                    .path
                    .get_ident()
                    .is_some_and(|i| !self.is_block_local(&i.to_string())),
                _ => false,
            };
            if local_closure {
                if let Some(super::pattern::Bound::Closure(def)) =
                    self.lowerer.compound_of(&call.func)
                {
                    let args: Vec<Expr> = call.args.iter().cloned().collect();
                    let call_tokens = call.to_token_stream();
                    let bound = self.lowerer.call_closure(&def, &args, &call_tokens);
                    let (tokens, uses) = match bound {
                        super::pattern::Bound::Value(Value::Const(c)) => {
                            (parenthesize(c.tokens), c.uses)
                        }
                        super::pattern::Bound::Value(Value::Var(v)) => {
                            (self.lowerer.vars[v].ident.to_token_stream(), vec![v])
                        }
                        _ => return,
                    };
                    for u in uses {
                        if !self.uses.contains(&u) {
                            self.uses.push(u);
                        }
                    }
                    *expr = syn::parse_quote!(#tokens);
                    return;
                }
            }
        }
        // `a.total_cmp(b)` where the function holds `b` by reference (a
        // closure's `&f64` parameter, a slice's element): in the generated
        // code `b` is the float itself, so the argument is `&b`
        let compared = match expr {
            Expr::MethodCall(call)
                if F64_COMPARISONS.contains(&call.method.to_string().as_str()) =>
            {
                Some(&mut call.args)
            }
            Expr::Call(call) => match strip_parens(&call.func) {
                Expr::Path(f)
                    if f64_associated_fn(&f.path)
                        .is_some_and(|m| F64_COMPARISONS.contains(&m.as_str())) =>
                {
                    Some(&mut call.args)
                }
                _ => None,
            },
            _ => None,
        };
        for arg in compared.into_iter().flatten() {
            if self.is_float_local(arg) {
                *arg = syn::parse_quote!(&#arg);
            }
        }
        match expr {
            Expr::Path(path) if path.qself.is_none() => {
                if let Some(ident) = path.path.get_ident() {
                    if self.is_block_local(&ident.to_string()) {
                        return;
                    }
                    if let Some(id) = self.lowerer.lookup(&ident.to_string()) {
                        let renamed = respan(&self.lowerer.vars[id].ident, ident.span());
                        if !self.uses.contains(&id) {
                            self.uses.push(id);
                        }
                        *expr = syn::parse_quote!(#renamed);
                    }
                }
            }
            // `__autograd_unpack!(m, pat => names)` (`lower/matches.rs`): the
            // names a `match` arm's pattern binds, `match m { pat => names,
            // _ => unreachable!() }`; only `m` is the function's
            Expr::Macro(mac) if mac.mac.path.is_ident("__autograd_unpack") => {
                let parsed = mac.mac.parse_body_with(|input: syn::parse::ParseStream| {
                    let e: Expr = input.parse()?;
                    input.parse::<syn::Token![,]>()?;
                    let pat = syn::Pat::parse_multi_with_leading_vert(input)?;
                    input.parse::<syn::Token![=>]>()?;
                    let names: Expr = input.parse()?;
                    Ok((e, pat, names))
                });
                match parsed {
                    Ok((mut e, pat, names)) => {
                        self.visit_expr_mut(&mut e);
                        *expr = syn::parse_quote!(match #e {
                            #pat => #names,
                            #[allow(unreachable_patterns)]
                            _ => ::core::unreachable!(),
                        });
                    }
                    Err(err) => self.lowerer.cx.syn_error(err),
                }
            }
            Expr::Macro(mac) if mac.mac.path.is_ident("matches") => {
                // `matches!(e, pat)`: the expression's names are renamed.
                let parsed = mac.mac.parse_body_with(|input: syn::parse::ParseStream| {
                    let e: Expr = input.parse()?;
                    input.parse::<syn::Token![,]>()?;
                    let pat = syn::Pat::parse_multi_with_leading_vert(input)?;
                    let guard = if input.peek(syn::Token![if]) {
                        input.parse::<syn::Token![if]>()?;
                        Some(input.parse::<Expr>()?)
                    } else {
                        None
                    };
                    let _: Option<syn::Token![,]> = input.parse()?;
                    Ok((e, pat, guard))
                });
                match parsed {
                    Ok((mut e, pat, guard)) => {
                        self.visit_expr_mut(&mut e);
                        // (the names the pattern binds are the guard's own)
                        self.block_locals.push(
                            super::pattern::pattern_idents(&pat)
                                .iter()
                                .map(|n| n.to_string())
                                .collect(),
                        );
                        let guard = guard.map(|mut g| {
                            self.visit_expr_mut(&mut g);
                            quote!(if #g)
                        });
                        self.block_locals.pop();
                        mac.mac.tokens = quote!(#e, #pat #guard);
                    }
                    Err(err) => self.lowerer.cx.syn_error(err),
                }
            }
            Expr::Block(b) if b.label.is_none() => self.visit_block(&mut b.block),
            Expr::Closure(c) if self.closures => {
                self.block_locals.push(
                    c.inputs
                        .iter()
                        .flat_map(super::pattern::pattern_idents)
                        .map(|n| n.to_string())
                        .collect(),
                );
                self.visit_expr_mut(&mut c.body);
                self.block_locals.pop();
            }
            Expr::Assign(assign)
                if matches!(
                    super::syntax::strip_parens(&assign.left),
                    Expr::Path(p) if p.path.get_ident().is_some_and(|i| self.is_block_local(&i.to_string()))
                ) =>
            {
                self.visit_expr_mut(&mut assign.right);
            }
            // `t += 1.0` on a block's own `t` (an assignment to one of the
            // function's locals here would change it behind the IR's back).
            Expr::Binary(binary) if super::syntax::is_compound(&binary.op) => {
                let own = matches!(
                    super::syntax::strip_parens(&binary.left),
                    Expr::Path(p) if p.path.get_ident().is_some_and(|i| self.is_block_local(&i.to_string()))
                );
                if !own {
                    self.lowerer.cx.error_spanned_by(
                        &*expr,
                        "assignments are not supported inside a condition or an index; \
                         compute the value in a `let` first",
                    );
                    return;
                }
                syn::visit_mut::visit_expr_mut(self, expr);
            }
            Expr::Closure(_)
            | Expr::Macro(_)
            | Expr::Unsafe(_)
            | Expr::Async(_)
            | Expr::Await(_)
            | Expr::Match(_)
            | Expr::Loop(_)
            | Expr::While(_)
            | Expr::ForLoop(_)
            | Expr::Assign(_)
            | Expr::Break(_)
            | Expr::Continue(_)
            | Expr::Return(_) => {
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
    let by = "by `#[differentiable]`";
    match expr {
        Expr::Closure(_) => format!(
            "this closure is not supported {by}: a closure may be bound to a local (`let f = \
             |t: f64| t * t;`, then `f(x)`) or passed to an iterator adaptor (`.map(|v| ..)`), \
             but not stored, returned or passed to a function; write a `#[differentiable]` \
             function instead"
        ),
        Expr::Macro(mac) => {
            let name = mac
                .mac
                .path
                .segments
                .last()
                .map(|s| s.ident.to_string())
                .unwrap_or_default();
            format!(
                "macro `{name}!` is not supported in an expression {by}, which cannot see \
                 what it expands to; compute the value with ordinary expressions (`vec!` \
                 works in `let v = vec![..];`)"
            )
        }
        Expr::Unsafe(_) => format!(
            "`unsafe` blocks are not supported {by}; move the unsafe code into a function \
             of its own (with a hand-written `_adjoint` if it needs a derivative)"
        ),
        Expr::Async(_) | Expr::Await(_) => format!("`async` and `.await` are not supported {by}"),
        Expr::Match(_) => {
            format!("`match` is not supported {by}; write the cases with `if` / `else if` / `else`")
        }
        Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => {
            format!("loops are only supported as statements {by}")
        }
        Expr::Try(_) => format!("the `?` operator is not supported {by}"),
        Expr::Reference(_) => format!(
            "references are not supported here {by}; use the value itself (`&w[a..b]` is \
             supported as an argument of a call)"
        ),
        Expr::Tuple(_) => format!("tuples are not supported {by}; use separate `let` bindings"),
        Expr::Array(_) | Expr::Repeat(_) => format!(
            "an array literal is only supported {by} as the value of a `let`: \
             `let a = [x, y];`"
        ),
        Expr::Range(_) => format!("ranges are only supported {by} in `for` loops and subslices"),
        Expr::Struct(_) => format!("struct literals are not supported {by}"),
        Expr::Assign(_) => "assignment is only supported as a statement: `x = y;`".to_string(),
        Expr::Return(_) | Expr::Break(_) | Expr::Continue(_) => {
            "`return`, `break` and `continue` are only supported as statements".to_string()
        }
        Expr::Let(_) => format!("`let` in an expression is not supported {by}"),
        Expr::Block(_) => format!("labelled blocks are not supported {by}"),
        _ => format!("this expression is not supported {by}"),
    }
}

/// A stand-in value after an error, so lowering can go on.
pub(super) fn placeholder() -> ConstValue {
    ConstValue::new(quote!(0.0), true)
}

/// `x op= y` → the primitive applied, for the five differentiable ones.
pub(super) fn compound_prim(op: &BinOp) -> Option<&'static Prim> {
    match op {
        BinOp::AddAssign(_) => Some(&prim::ADD),
        BinOp::SubAssign(_) => Some(&prim::SUB),
        BinOp::MulAssign(_) => Some(&prim::MUL),
        BinOp::DivAssign(_) => Some(&prim::DIV),
        BinOp::RemAssign(_) => Some(&prim::REM),
        _ => None,
    }
}

/// `path::to::g` → `path::to::g_adjoint`, spanned on `g` so that a missing
/// adjoint is reported at the call.
fn adjoint_path(path: &syn::Path) -> TokenStream {
    let mut path = path.clone();
    if let Some(last) = path.segments.last_mut() {
        last.ident = crate::names::adjoint_fn(&last.ident);
    }
    path.to_token_stream()
}

/// `f64::name`, `std::f64::name`, `core::primitive::f64::name`.
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

/// `tokens` with the variable `name` (inside groups too) replaced by
/// `with`.
fn replace_ident(tokens: TokenStream, name: &str, with: &TokenStream) -> TokenStream {
    crate::tokens::substitute(&tokens, &mut |ident| (ident == name).then(|| with.clone()))
}

/// Wraps `tokens` in parentheses unless it is a single token (a name or a
/// literal) or a path, so emitted expressions keep the user's precedence.
pub(super) fn parenthesize(tokens: TokenStream) -> TokenStream {
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

/// An integer or boolean literal, perhaps negated or parenthesized: a
/// constant that is certainly not a float.
/// Whether `expr` is `+ - * / %` and negation of the `locals` (constant
/// locals that may be floats), float literals and paths of no local (a
/// constant of unknown type).
fn maybe_float_arithmetic(expr: &Expr, locals: &HashSet<String>) -> bool {
    use syn::BinOp;
    match strip_parens(expr) {
        Expr::Path(path) => match path.path.get_ident() {
            Some(ident) => {
                locals.contains(&ident.to_string())
                    || ident.to_string().chars().all(|c| !c.is_lowercase())
            }
            None => path.path.segments.len() > 1,
        },
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Float(_),
            ..
        }) => true,
        Expr::Unary(u) => {
            matches!(u.op, syn::UnOp::Neg(_)) && maybe_float_arithmetic(&u.expr, locals)
        }
        Expr::Binary(b) => {
            matches!(
                b.op,
                BinOp::Add(_) | BinOp::Sub(_) | BinOp::Mul(_) | BinOp::Div(_) | BinOp::Rem(_)
            ) && maybe_float_arithmetic(&b.left, locals)
                && maybe_float_arithmetic(&b.right, locals)
        }
        // `g.clamp(0.5, 1.5)`: the receiver's type decides (random
        // programs, seed 341155411 #588: E0061, no slot offered for it)
        Expr::MethodCall(call) if SHARED_METHODS.contains(&call.method.to_string().as_str()) => {
            maybe_float_arithmetic(&call.receiver, locals)
        }
        _ => false,
    }
}

/// Methods integers have too, whose receiver's type decides their result's.
const SHARED_METHODS: [&str; 5] = ["abs", "max", "min", "signum", "clamp"];

pub(super) fn is_int_or_bool(tokens: &TokenStream) -> bool {
    match syn::parse2::<Expr>(tokens.clone()) {
        Ok(expr) => {
            let mut expr = strip_parens(&expr);
            while let Expr::Unary(u) = expr {
                expr = strip_parens(&u.expr);
            }
            matches!(
                expr,
                Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(_) | syn::Lit::Bool(_),
                    ..
                })
            )
        }
        Err(_) => false,
    }
}

/// A call of a function whose return type the macro cannot see (`h(n)`,
/// `m::h(2.0, n)`), not one of an integer type's associated functions
/// (`usize::min(a, b)`), or an `f64`-only method of a constant
/// (`h(n).sin()`); or a place in the receiver (`self.t[i]`), whose type
/// it cannot see either.
pub(super) fn is_call_of_unknown_type(tokens: &TokenStream) -> bool {
    use crate::signature::INTEGER_TYPES as INTEGERS;
    match syn::parse2::<Expr>(tokens.clone()) {
        Ok(expr) => match strip_parens(&expr) {
            // `{ h(n) }`: what the block gives.
            Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
                syn::Stmt::Expr(inner, None) => is_call_of_unknown_type(&inner.to_token_stream()),
                _ => false,
            },
            // `h(n).sin()`: only floats have it; `h(n).signum()`: the
            // receiver's type decides (random programs, seed 218355724
            // #1065: E0061, no slot offered for it).
            Expr::MethodCall(call) => {
                let name = call.method.to_string();
                match SHARED_METHODS.contains(&name.as_str()) {
                    true => is_call_of_unknown_type(&call.receiver.to_token_stream()),
                    false => prim::method(&name).is_some(),
                }
            }
            Expr::Call(call) => match strip_parens(&call.func) {
                Expr::Path(path) => !path
                    .path
                    .segments
                    .first()
                    .is_some_and(|s| INTEGERS.iter().any(|t| s.ident == t)),
                _ => false,
            },
            // `self.t[i]`, `self.scale`: a field of the receiver (a method's
            // data, never differentiated), whose type the macro cannot see.
            Expr::Index(_) | Expr::Field(_) => is_self_place(strip_parens(&expr)),
            _ => false,
        },
        Err(_) => false,
    }
}

/// `self.f`, `self.f[i]`, `self.f.g[i][j]`: a place inside the receiver.
fn is_self_place(expr: &Expr) -> bool {
    match strip_parens(expr) {
        Expr::Index(index) => is_self_place(&index.expr),
        Expr::Field(field) => match strip_parens(&field.base) {
            Expr::Path(path) => path.path.is_ident("self"),
            base => is_self_place(base),
        },
        _ => false,
    }
}

/// `ident` with another span (for raw identifiers too, unlike `Ident::new`).
fn respan(ident: &Ident, span: Span) -> Ident {
    let mut ident = ident.clone();
    ident.set_span(span);
    ident
}

/// `a::b::C`, `::a::B`: identifiers joined by `::` (not `n as f64`, whose
/// identifiers are not joined).
fn is_path(tokens: &TokenStream) -> bool {
    let mut expect_ident = true;
    let mut colons = 0;
    for tree in tokens.clone() {
        match tree {
            TokenTree::Ident(_) if expect_ident => {
                expect_ident = false;
                colons = 0;
            }
            TokenTree::Punct(p) if p.as_char() == ':' && colons < 2 => {
                colons += 1;
                expect_ident = colons == 2;
            }
            _ => return false,
        }
    }
    !expect_ident && colons == 0
}
