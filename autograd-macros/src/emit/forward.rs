//! Forward mode: the body of `f_grad` and `f_adjoint` for a function with
//! exactly one active parameter, an `f64`.
//!
//! With one scalar input, the derivative of every value with respect to it
//! can be carried along with the value (its *tangent*, `__ad_dot_<v>`) in
//! a single pass, as one would write it by hand: no tape, no replay, no
//! allocation beyond what the function itself allocates. The reverse sweep
//! (`emit/reverse.rs`) has to save loop-carried values on a tape and replay every
//! loop and branch backwards instead.
//!
//! It is the reverse emitter's sibling over the same IR and the same
//! analyses: only values that need an adjoint there (varied — they depend
//! on the input — and useful — the result depends on them) get a tangent;
//! every other value's tangent is zero and costs nothing. Local partials
//! come from the same `::autograd::__private::rules` calls
//! ([`emit::rule_partials`]): `let v = prim(a, b)` gets
//! `__ad_dot_v = ∂v/∂a * __ad_dot_a + ∂v/∂b * __ad_dot_b` over its varied
//! operands. The input's own tangent is the constant 1, so its terms are
//! the bare partials. A call of another differentiable function calls the
//! callee's `_adjoint` once, with `d_out = 1` and a fresh slot per varied
//! argument, which returns the value and the callee's partials.
//!
//! When is it chosen? Whenever it applies (see [`emit`]): it never records
//! or replays, so it does no more work than the reverse sweep for a
//! one-input function. On loops that carry a value it removes the tape and
//! the replay (Newton's iteration: 1 376 → 421 instructions per call, the
//! hand-written forward-mode gradient 383); on straight-line code the two
//! are the same operations in another order (`smooth_abs(x)` in the springs
//! bench: 53 563 instructions either way). It does not apply — and the
//! reverse sweep is used — when a call passes a varied local array (its
//! tangent would need a gradient buffer per call), or for an array bound
//! other than by `[..]`, `vec![..]` or `to_vec()` (never produced by
//! lowering today).
//!
//! Values are bit-for-bit the function's own. Derivatives equal the
//! reverse sweep's up to rounding: both multiply the same partials along
//! every path from the input to the result, grouped differently (forward:
//! from the input, reverse: from `d_out`), so they differ in the last bits
//! and, in degenerate cases, where one grouping overflows or meets 0 · inf
//! and the other does not (then one gives NaN or inf where the other gives
//! a finite number).

use super::primal::{adjoint_call, let_type, operand, primal_rhs, rule_partials};
use crate::activity::Activity;
use crate::ir::{
    ArrayInit, Block, CallArg, Callee, Func, Header, Jump, Kind, Operand, Origin, Rhs, Stmt, VarId,
};
use crate::names::{Names, Role};
use crate::signature::{ParamClass, Signature};
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned, ToTokens};
use std::collections::HashMap;
use syn::Ident;

/// The forward-mode body of `f_adjoint` and `f_grad` (reads `d_out`, adds
/// into `*d_<p>`), or `None` when forward mode does not apply: not exactly
/// one active parameter, not a scalar, or a construct it does not handle.
pub fn emit(
    sig: &Signature,
    func: &Func,
    activity: &Activity,
    names: &Names,
    keep: Option<&super::Keep>,
) -> Option<TokenStream> {
    let mut active = sig.active();
    let param = active.next()?;
    if active.next().is_some() || !matches!(param.class, ParamClass::Scalar) {
        return None;
    }
    let d_param = param.adjoint_ident()?;
    let input = single_input(func)?;
    let emitter = Tangents {
        sig,
        func,
        activity,
        names,
        input: Some(input),
        directions: HashMap::new(),
        jvp: None,
        scratch: HashMap::new(),
        aliases: HashMap::new(),
        second: false,
        keep,
    };
    emitter.emit(Some(&d_param))
}

/// Forward mode along a direction given for every active parameter: the
/// body of a Jacobian-vector product of a vector-valued function
/// (`vector.rs`'s columns of the Jacobian), run on the scalar function
/// `dᵀ f` that `vector.rs` makes of it.
pub struct Jvp<'a> {
    /// The direction of each active parameter, by its index in the
    /// signature: an `f64` for a scalar, an array of the parameter's type
    /// for an array.
    pub directions: HashMap<usize, Ident>,
    /// The locals each returned vector is bound to before `dᵀ f` reads it
    /// (`vector::Dot`'s `__ad_out`).
    pub outputs: &'a [Ident],
    /// The statement handing the tangent of a returned vector (a `&[f64]`
    /// expression) to the caller; the body returns right after it, before
    /// `dᵀ f` is computed.
    pub sink: &'a dyn Fn(TokenStream) -> TokenStream,
    /// A `&mut [f64]` with room for every active parameter array (their
    /// lengths added up): the gradient slots of a call that passes one, of
    /// which the tangent is the dot product with the direction.
    pub scratch: Ident,
}

/// The body of a Jacobian-vector product (see [`Jvp`]): every value that
/// depends on an active parameter carries its tangent along the
/// directions; at a returned vector the body hands its tangent to
/// `jvp.sink` and returns. `None` where forward mode does not apply (as
/// [`emit`]: a call passing a varied array, a vector-valued callee, an
/// array bound other than by `[..]`, `vec![..]` or a copy), or when the
/// body writes into a parameter array.
pub fn emit_jvp(
    sig: &Signature,
    func: &Func,
    activity: &Activity,
    names: &Names,
    jvp: &Jvp,
) -> Option<TokenStream> {
    let mut directions = HashMap::new();
    for (id, var) in func.vars.iter().enumerate() {
        if let Origin::Param {
            index,
            active: true,
        } = var.origin
        {
            directions.insert(id, jvp.directions.get(&index)?.clone());
        }
    }
    // Every returned vector is bound where the emitter sees it.
    let mut bound = Vec::new();
    func.body.walk(0, &mut |stmt, _| {
        if let Stmt::Let { var, .. } = stmt {
            bound.push(func.vars[*var].ident.to_string());
        }
    });
    if !jvp.outputs.iter().all(|o| bound.contains(&o.to_string())) {
        return None;
    }
    // Each parameter array passed to a call gets its part of the scratch,
    // shaped like it.
    let mut passed = Vec::new();
    func.body.walk(0, &mut |stmt, _| {
        if let Stmt::Let {
            init: Some(Rhs::Call { args, .. }),
            ..
        } = stmt
        {
            for arg in args {
                if let CallArg::Array { array, .. } = arg {
                    passed.push(*array);
                }
            }
        }
    });
    let mut prologue = Vec::new();
    let mut scratch = HashMap::new();
    let whole = &jvp.scratch;
    for (id, var) in func.vars.iter().enumerate() {
        let Origin::Param {
            index,
            active: true,
        } = var.origin
        else {
            continue;
        };
        if !passed.contains(&id) {
            continue;
        }
        let (Some(param), Kind::FloatArray) = (sig.params.get(index), var.kind) else {
            continue;
        };
        let part = names.fresh_for("__ad_scratch_", &var.ident);
        let ident = &var.ident;
        prologue.push(match &param.class {
            ParamClass::Array { len, .. } => quote! {
                let (#part, #whole) = #whole.split_at_mut(#len);
                let #part: &mut [f64; #len] = ::autograd::__private::dual::as_array_mut(#part);
            },
            _ => quote! {
                let (#part, #whole) = #whole.split_at_mut(#ident.len());
            },
        });
        scratch.insert(id, part);
    }
    let emitter = Tangents {
        sig,
        func,
        activity,
        names,
        input: None,
        directions,
        jvp: Some(jvp),
        scratch,
        aliases: HashMap::new(),
        second: false,
        keep: None,
    };
    let body = emitter.emit(None)?;
    Some(quote! {
        #(#prologue)*
        #body
    })
}

/// The same body on `Dual`s, for `f_hvp` of a function of one `f64`
/// (`second.rs`): forward over forward. Values that depend on the input
/// and tangents are `Dual`s (their tangents along the direction `v`), so
/// `*d_<p>` receives the derivative and its derivative along `v`, `f''·v`.
/// `None` where [`emit`] gives `None`.
pub fn emit_second(
    sig: &Signature,
    func: &Func,
    activity: &Activity,
    names: &Names,
) -> Option<TokenStream> {
    let mut active = sig.active();
    let param = active.next()?;
    if active.next().is_some() || !matches!(param.class, ParamClass::Scalar) {
        return None;
    }
    let d_param = param.adjoint_ident()?;
    let input = single_input(func)?;
    let emitter = Tangents {
        sig,
        func,
        activity,
        names,
        input: Some(input),
        directions: HashMap::new(),
        jvp: None,
        scratch: HashMap::new(),
        aliases: HashMap::new(),
        second: true,
        keep: None,
    };
    emitter.emit(Some(&d_param))
}

/// The IR variable of the one active parameter, if it is a float.
fn single_input(func: &Func) -> Option<VarId> {
    let mut inputs = func
        .vars
        .iter()
        .enumerate()
        .filter(|(_, v)| matches!(v.origin, Origin::Param { active: true, .. }));
    let (id, var) = inputs.next()?;
    (inputs.next().is_none() && var.kind == Kind::Float).then_some(id)
}

/// The tangent of a value.
#[derive(Clone)]
enum Tangent {
    /// The input's: d input / d input.
    One,
    /// A local holding it.
    Local(Ident),
}

impl ToTokens for Tangent {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        match self {
            Tangent::One => quote!(1.0_f64).to_tokens(tokens),
            Tangent::Local(ident) => ident.to_tokens(tokens),
        }
    }
}

struct Tangents<'a> {
    sig: &'a Signature,
    func: &'a Func,
    activity: &'a Activity,
    names: &'a Names,
    /// The active parameter (its tangent is 1), when there is one input.
    input: Option<VarId>,
    /// Under [`Jvp`]: the direction of each active parameter (its
    /// tangent; for an array, the array of tangents).
    directions: HashMap<VarId, Ident>,
    jvp: Option<&'a Jvp<'a>>,
    /// Under [`Jvp`]: each active parameter array's gradient slot for calls.
    scratch: HashMap<VarId, Ident>,
    /// Copies (`let y = x;` of a variable that is not a cell) share the
    /// tangent of what they copy rather than getting a local.
    aliases: HashMap<VarId, Tangent>,
    /// Forward over forward (`emit_second`): varied values and tangents
    /// are `Dual`s.
    second: bool,
    /// Under a vector-valued function's `f_adjoint`: where its returned
    /// vector goes as it is bound (`super::Keep`).
    keep: Option<&'a super::Keep<'a>>,
}

impl<'a> Tangents<'a> {
    /// Holds a `Dual` (second order only).
    fn is_dual(&self, var: VarId) -> bool {
        self.second && self.activity.varied(var)
    }

    /// The type of tangents.
    fn scalar(&self) -> TokenStream {
        if self.second {
            quote!(::autograd::__private::Dual)
        } else {
            quote!(f64)
        }
    }

    /// A zero tangent.
    fn zero(&self) -> TokenStream {
        if self.second {
            quote!(::autograd::__private::Dual::constant(0.0))
        } else {
            quote!(0.0_f64)
        }
    }

    /// A tangent where a `Dual` may be needed (the input's is `1.0_f64`).
    fn lift(&self, tokens: TokenStream) -> TokenStream {
        if self.second {
            super::second::lift(&tokens)
        } else {
            tokens
        }
    }

    /// An operand's primal value, a `Dual` where `dual` says so.
    fn primal_operand(&self, op: &Operand, dual: bool) -> TokenStream {
        match op {
            Operand::Var(v) if self.is_dual(*v) => self.ident(*v).to_token_stream(),
            _ if dual => super::second::lift(&operand(self.func, op)),
            _ => operand(self.func, op),
        }
    }

    /// `tokens` reading `uses`, on values (`reverse::Body::values_of_duals`).
    fn values_of_duals(&self, uses: Vec<VarId>, tokens: TokenStream) -> TokenStream {
        if !self.second {
            return tokens;
        }
        super::primal::values_of_duals(self.func, uses, tokens, &|v| self.is_dual(v))
    }

    /// Does `var` carry a (possibly) nonzero tangent the result depends on?
    fn has(&self, var: VarId) -> bool {
        self.activity.needs_adjoint(var)
    }

    fn ident(&self, var: VarId) -> &Ident {
        &self.func.vars[var].ident
    }

    /// The tangent of a variable that has one (`None` otherwise).
    fn tangent(&self, var: VarId) -> Option<Tangent> {
        if Some(var) == self.input {
            return Some(Tangent::One);
        }
        if let Some(direction) = self.directions.get(&var) {
            return Some(Tangent::Local(direction.clone()));
        }
        if let Some(alias) = self.aliases.get(&var) {
            return Some(alias.clone());
        }
        self.local(var).map(Tangent::Local)
    }

    /// The tangent local of `var` (`__ad_dot_<name>`), if it has one; a
    /// parameter's direction under [`Jvp`].
    fn local(&self, var: VarId) -> Option<Ident> {
        if let Some(direction) = self.directions.get(&var) {
            return self.has(var).then(|| direction.clone());
        }
        (self.has(var) && Some(var) != self.input)
            .then(|| self.names.derived(Role::Tangent, var, self.ident(var)))
    }

    /// The tangent of an operand, `None` when it is zero.
    fn operand_tangent(&self, op: &Operand) -> Option<Tangent> {
        match op {
            Operand::Var(v) if self.has(*v) => self.tangent(*v),
            _ => None,
        }
    }

    /// The tangent of an operand as an expression, `0.0` when it is zero.
    fn operand_tangent_or_zero(&self, op: &Operand) -> TokenStream {
        match self.operand_tangent(op) {
            Some(t) => self.lift(t.to_token_stream()),
            None => self.zero(),
        }
    }

    /// `Σ partial · tangent`; a term whose tangent is the input's is the
    /// bare partial. `strong_zero`: the partials may be infinite where the
    /// value is finite (`Prim::singular`), so a zero tangent gives a zero
    /// term (`__private::tangent_term`), not NaN.
    fn sum(&self, terms: Vec<(TokenStream, Tangent)>, strong_zero: bool) -> TokenStream {
        let terms: Vec<TokenStream> = terms
            .into_iter()
            .map(|(partial, tangent)| match tangent {
                Tangent::One => partial,
                // (both of one type: in a second-order body a partial or
                // a tangent may be an `f64` constant, `add`'s `1.0`)
                Tangent::Local(t) if strong_zero => {
                    let (partial, t) = (self.lift(partial), self.lift(t.to_token_stream()));
                    quote!(::autograd::__private::tangent_term(#partial, #t))
                }
                Tangent::Local(t) => quote!(#partial * #t),
            })
            .collect();
        if terms.is_empty() {
            self.zero()
        } else {
            quote!(#(#terms)+*)
        }
    }

    fn emit(mut self, d_param: Option<&Ident>) -> Option<TokenStream> {
        let stmts = &self.func.body.stmts;
        let (value, span) = match stmts.last() {
            Some(Stmt::Return { value, span }) => (Some(value), *span),
            _ => (None, proc_macro2::Span::call_site()),
        };
        let mut out = Vec::new();
        self.block(&self.func.body, &mut out, true)?;
        out.insert(0, super::primal::slot_pool_declaration(self.names));
        let Some(value) = value else {
            // The body never returns a value (it diverges, or has an error
            // rustc reports on the original function).
            return Some(quote!(#(#out)*));
        };
        let value_tokens = match value {
            Operand::Var(v) if self.second && !self.is_dual(*v) => {
                super::second::lift(&self.ident(*v).to_token_stream())
            }
            Operand::Var(v) => self.ident(*v).to_token_stream(),
            Operand::Const(c) => {
                let tokens = &c.tokens;
                let value = self.names.fresh("__ad_value");
                if self.second {
                    let tokens = super::second::lift(tokens);
                    let scalar = self.scalar();
                    out.push(quote_spanned!(span=> let #value: #scalar = #tokens;));
                } else {
                    out.push(quote_spanned!(span=> let #value: f64 = #tokens;));
                }
                quote!(#value)
            }
        };
        if let (Some(tangent), Some(d_param)) = (self.operand_tangent(value), d_param) {
            let d_out = &self.sig.d_out;
            out.push(quote!(*#d_param += #d_out * #tangent;));
        }
        Some(quote! {
            #(#out)*
            #value_tokens
        })
    }

    /// A block's code: each statement followed by its tangent's. `None` if
    /// a statement is not handled.
    fn block(&mut self, block: &Block, out: &mut Vec<TokenStream>, top: bool) -> Option<()> {
        for (i, stmt) in block.stmts.iter().enumerate() {
            match stmt {
                Stmt::Let { var, ty, init } => {
                    self.let_(out, *var, ty.as_ref(), init.as_ref())?;
                    if let Some(keep) = self.keep {
                        out.extend(keep.after_let(self.func, *var, self.ident(*var)));
                    }
                }
                Stmt::Update { cell, value } => {
                    let primal = self.primal_operand(value, self.is_dual(*cell));
                    let ident = self.ident(*cell);
                    out.push(quote!(#ident = #primal;));
                    if self.has(*cell) {
                        if self.func.vars[*cell].kind != Kind::Float {
                            return None;
                        }
                        let tangent = self.local(*cell)?;
                        let value = self.operand_tangent_or_zero(value);
                        out.push(quote!(#tangent = #value;));
                    }
                }
                Stmt::Store {
                    array,
                    index,
                    value,
                } => {
                    let primal = self.primal_operand(value, self.is_dual(*array));
                    let (ident, index) = (self.ident(*array), &index.tokens);
                    if self.directions.contains_key(array) {
                        // (its tangent is the caller's direction)
                        return None;
                    }
                    if self.has(*array) {
                        let tangent = self.local(*array)?;
                        let value = self.operand_tangent_or_zero(value);
                        let i = self.names.fresh("__ad_i");
                        out.push(quote! {
                            {
                                let #i: usize = #index;
                                #ident[#i] = #primal;
                                #tangent[#i] = #value;
                            }
                        });
                    } else {
                        out.push(quote!(#ident[#index] = #primal;));
                    }
                }
                Stmt::Opaque { tokens, .. } => out.push(tokens.clone()),
                Stmt::If {
                    decision,
                    cond,
                    then_,
                    else_,
                } => {
                    let (mut then_code, mut else_code) = (Vec::new(), Vec::new());
                    self.block(then_, &mut then_code, false)?;
                    self.block(else_, &mut else_code, false)?;
                    let cond = &self.values_of_duals(cond.uses.clone(), cond.tokens.clone());
                    out.push(quote! {
                        let #decision: bool = #cond;
                        if #decision { #(#then_code)* } else { #(#else_code)* }
                    });
                }
                Stmt::Loop(l) => {
                    let mut body = Vec::new();
                    self.block(&l.body, &mut body, false)?;
                    out.push(match &l.header {
                        Header::Range { index, range } => {
                            let (index, range) = (self.ident(*index), &range.tokens);
                            quote!(for #index in #range { #(#body)* })
                        }
                        Header::Infinite => quote!(loop { #(#body)* }),
                    });
                }
                Stmt::Jump(Jump::Break) => out.push(quote!(break;)),
                Stmt::Jump(Jump::Continue) => out.push(quote!(continue;)),
                // The function's value, handled by `emit`; lowering puts it
                // last in the body, nowhere else.
                Stmt::Return { .. } if top && i + 1 == block.stmts.len() => {}
                Stmt::Return { .. } => return None,
            }
        }
        Some(())
    }

    /// `let var = init;` and its tangent.
    fn let_(
        &mut self,
        out: &mut Vec<TokenStream>,
        var: VarId,
        ty: Option<&TokenStream>,
        init: Option<&Rhs>,
    ) -> Option<()> {
        let info = &self.func.vars[var];
        let ident = info.ident.clone();
        let is_cell = info.is_cell();
        let kind = info.kind;
        let is_array = matches!(init, Some(Rhs::Array(_)));
        let mutability = (is_cell || is_array || info.in_place).then(|| quote!(mut));
        let ty = let_type(ty, init);
        let has = self.has(var);
        if kind == Kind::FloatArray && matches!(init, Some(Rhs::Call { .. })) {
            // A vector-valued callee: its tangent would take a sweep per
            // output; the reverse sweep takes one.
            return None;
        }
        if let Some(jvp) = self.jvp {
            if jvp.outputs.contains(&ident) {
                match super::summed_array(self.func, var) {
                    // a local returned by name: its tangent is its array's
                    // (the code after, its sum, is not run)
                    Some(array) => {
                        if let Some(tangent) = self.local(array) {
                            out.push((jvp.sink)(quote!(&#tangent[..])));
                        }
                        out.push(quote!(return;));
                    }
                    None => self.returned_vector(out, jvp, init)?,
                }
            }
        }
        if has {
            if let Some(Rhs::Call { callee, args }) = init {
                return self.call(out, var, ty, callee, args);
            }
        }
        let primal = init.map(|rhs| {
            let value = if self.is_dual(var) {
                super::second::dual_rhs(self.func, self.sig, self.activity, self.names, rhs)
            } else {
                self.values_of_duals(rhs_reads(rhs), primal_rhs(self.func, rhs))
            };
            quote!(= #value)
        });
        let ty = match (self.is_dual(var), kind) {
            (true, Kind::Float) => Some(quote!(: ::autograd::__private::Dual)),
            (true, _) => ty.map(super::second::f64_to_dual),
            (false, _) => ty,
        };
        let primal = match (self.is_dual(var), kind, init) {
            (true, Kind::Float, Some(Rhs::Use(op))) => {
                let value = self.primal_operand(op, true);
                Some(quote!(= #value))
            }
            _ => primal,
        };
        out.push(super::primal::let_binding(
            self.func,
            self.names,
            self.second,
            var,
            mutability,
            ty,
            primal,
        ));
        if !has {
            return Some(());
        }
        if kind == Kind::FloatArray {
            return self.array_tangent(out, var, init);
        }
        let tangent = match init {
            None if is_cell => self.zero(),
            None => return None,
            Some(Rhs::Use(Operand::Var(source))) => {
                let source_is_cell = self.func.vars[*source].is_cell();
                let Some(tangent) = self.operand_tangent(&Operand::Var(*source)) else {
                    // A cell that starts from a constant value.
                    if !is_cell {
                        return None;
                    }
                    let name = self.local(var)?;
                    let (scalar, zero) = (self.scalar(), self.zero());
                    out.push(quote!(let mut #name: #scalar = #zero;));
                    return Some(());
                };
                if !is_cell && !source_is_cell {
                    // A copy of a value that never changes: share its tangent.
                    self.aliases.insert(var, tangent);
                    return Some(());
                }
                self.lift(tangent.to_token_stream())
            }
            Some(Rhs::Use(Operand::Const(_))) => self.zero(),
            Some(Rhs::Prim { prim, args, .. }) => {
                let has = |v: VarId| self.has(v);
                let partials = if self.second {
                    super::primal::rule_partials_from(
                        self.func,
                        self.names,
                        out,
                        var,
                        prim,
                        args,
                        &has,
                        super::second::rules_path(
                            prim,
                            args.iter()
                                .filter(|a| matches!(a, Operand::Var(v) if self.is_dual(*v)))
                                .count(),
                        ),
                    )
                } else {
                    rule_partials(self.func, self.names, out, var, prim, args, &has)
                };
                let terms = partials
                    .into_iter()
                    .map(|(target, partial)| Some((partial, self.tangent(target)?)))
                    .collect::<Option<Vec<_>>>()?;
                self.sum(terms, prim.singular)
            }
            Some(Rhs::Load { array, index }) => {
                if !self.has(*array) {
                    self.zero()
                } else {
                    let (array, index) = (self.local(*array)?, &index.tokens);
                    quote!(#array[#index])
                }
            }
            Some(Rhs::Array(_) | Rhs::Call { .. }) => return None,
        };
        let name = self.local(var)?;
        if is_cell {
            let scalar = self.scalar();
            out.push(quote!(let mut #name: #scalar = #tangent;));
        } else {
            out.push(quote!(let #name = #tangent;));
        }
        Some(())
    }

    /// Under [`Jvp`], the tangent of a returned vector (the local `Dot`
    /// binds it to, defined by `init`) handed to the sink, and `return`:
    /// what follows (`dᵀ f`) is not run.
    fn returned_vector(
        &self,
        out: &mut Vec<TokenStream>,
        jvp: &Jvp,
        init: Option<&Rhs>,
    ) -> Option<()> {
        let tangent = match init {
            Some(Rhs::Array(ArrayInit::Copy { source, .. })) => {
                self.local(*source).map(|t| quote!(&#t[..]))
            }
            Some(Rhs::Array(ArrayInit::List { items, .. })) => {
                if items.iter().any(|i| self.operand_tangent(i).is_some()) {
                    let items = items.iter().map(|i| self.operand_tangent_or_zero(i));
                    Some(quote!(&[#(#items),*][..]))
                } else {
                    None
                }
            }
            // Constant elements: a zero column.
            Some(Rhs::Array(ArrayInit::Fill { .. })) => None,
            _ => return None,
        };
        if let Some(tangent) = tangent {
            out.push((jvp.sink)(tangent));
        }
        out.push(quote!(return;));
        Some(())
    }

    /// The tangent of a local float array: an array of the same shape, on
    /// the heap only if the array is (`vec!`, `to_vec`).
    fn array_tangent(
        &mut self,
        out: &mut Vec<TokenStream>,
        var: VarId,
        init: Option<&Rhs>,
    ) -> Option<()> {
        let ident = self.ident(var).clone();
        let name = self.local(var)?;
        let zeros = quote!(::autograd::__private::zeros_like(&#ident));
        let tangent = match init {
            Some(Rhs::Array(ArrayInit::Fill { .. })) => zeros,
            Some(Rhs::Array(ArrayInit::List { items, vec })) => {
                let items = items.iter().map(|i| self.operand_tangent_or_zero(i));
                if *vec {
                    quote!(::std::vec![#(#items),*])
                } else {
                    quote!([#(#items),*])
                }
            }
            Some(Rhs::Array(ArrayInit::Copy { source, vec })) => {
                if !self.has(*source) {
                    zeros
                } else {
                    let source = self.local(*source)?;
                    if *vec {
                        quote!(#source.to_vec())
                    } else {
                        quote!(#source.clone())
                    }
                }
            }
            // Arrays bound any other way (a copy of a binding, a cell):
            // not handled.
            _ => return None,
        };
        out.push(quote!(let mut #name = #tangent;));
        Some(())
    }

    /// `var = callee(args)` with a varied argument: the callee's adjoint,
    /// with `d_out = 1` and a fresh slot for each varied argument, returns
    /// the value and the callee's partials.
    fn call(
        &mut self,
        out: &mut Vec<TokenStream>,
        var: VarId,
        ty: Option<TokenStream>,
        callee: &Callee,
        args: &[CallArg],
    ) -> Option<()> {
        let (mut slots, mut terms) = (Vec::new(), Vec::new());
        for arg in args {
            slots.push(match arg {
                CallArg::Float(Operand::Var(v)) if self.has(*v) => {
                    let slot = self.names.fresh("__ad_slot");
                    // -0.0: `-0.0 + p` is `p`, so an inlined `*d_x += p`
                    // folds (as in `reverse::call_with_partials`)
                    if self.second {
                        let scalar = self.scalar();
                        out.push(quote!(let mut #slot: #scalar = #scalar::constant(-0.0);));
                    } else {
                        out.push(quote!(let mut #slot: f64 = -0.0;));
                    }
                    terms.push((slot.to_token_stream(), self.tangent(*v)?));
                    Some(quote!(&mut #slot))
                }
                // Under `Jvp`, a parameter array passed once: the callee's
                // gradient into its scratch slot, the tangent its dot product
                // with the direction.
                CallArg::Array { array, range, .. }
                    if self.has(*array)
                        && self.scratch.contains_key(array)
                        && args
                            .iter()
                            .filter(|a| matches!(a, CallArg::Array { array: b, .. } if b == array))
                            .count()
                            == 1 =>
                {
                    let (scratch, direction) = (&self.scratch[array], self.directions.get(array)?);
                    let (part, dir) = match range {
                        Some(range) => {
                            let range = &range.tokens;
                            let i = self.names.fresh("__ad_range");
                            out.push(quote!(let #i = #range;));
                            (quote!(#scratch[#i.clone()]), quote!(#direction[#i.clone()]))
                        }
                        None => (quote!((*#scratch)), quote!(#direction[..])),
                    };
                    out.push(quote!(#part.fill(0.0);));
                    terms.push((
                        quote!(::autograd::__private::dot(&#part[..], &#dir)),
                        Tangent::One,
                    ));
                    Some(quote!(&mut #part))
                }
                // Its tangent would need a buffer per call: use the reverse
                // sweep.
                CallArg::Array { array, .. } if self.has(*array) => return None,
                _ => None,
            });
        }
        let call = if self.second {
            let one = quote!(::autograd::__private::Dual::constant(1.0));
            super::second::hvp_call(
                self.func,
                self.sig,
                self.activity,
                self.names,
                callee,
                args,
                one,
                &slots,
            )
        } else {
            adjoint_call(
                self.func,
                self.names,
                callee,
                args,
                quote!(1.0_f64),
                &slots,
                &[],
            )
        };
        let ident = self.ident(var);
        let ty = match self.second {
            true => Some(quote!(: ::autograd::__private::Dual)),
            false => ty,
        };
        out.push(quote!(let #ident #ty = #call;));
        // (a callee's partials may be infinite anywhere)
        let (name, tangent) = (self.local(var)?, self.sum(terms, true));
        out.push(quote!(let #name = #tangent;));
        Some(())
    }
}

/// The variables `rhs` reads as scalars: a primitive's operands, a
/// constant expression's variables.
fn rhs_reads(rhs: &Rhs) -> Vec<VarId> {
    match rhs {
        Rhs::Prim { args, .. } => args
            .iter()
            .flat_map(|a| match a {
                Operand::Var(v) => vec![*v],
                Operand::Const(c) => c.uses.clone(),
            })
            .collect(),
        Rhs::Use(Operand::Const(c)) => c.uses.clone(),
        _ => Vec::new(),
    }
}
