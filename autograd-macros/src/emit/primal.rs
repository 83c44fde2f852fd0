//! The primal code both strategies share: each IR value written as the user
//! wrote it (so values are bit for bit `f`'s), the calls of a callee's
//! adjoint, and the local partials of a primitive from the rules table.

use crate::ir::{ArrayInit, CallArg, Callee, Func, Operand, Origin, Rhs, Syntax, VarId};
use crate::names::{self, Names, Role};
use crate::prim::{self, Arity, Reads};
use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use syn::Ident;

/// The value of `rhs`, written as the user would (the primal code of both
/// strategies).
pub fn primal_rhs(func: &Func, rhs: &Rhs) -> TokenStream {
    match rhs {
        Rhs::Use(op) => operand(func, op),
        Rhs::Array(ArrayInit::Fill { value, len, vec }) => {
            let value = &value.tokens;
            if *vec {
                quote!(::std::vec![#value; #len])
            } else {
                quote!([#value; #len])
            }
        }
        Rhs::Array(ArrayInit::List { items, vec }) => {
            let items = items.iter().map(|i| operand(func, i));
            if *vec {
                quote!(::std::vec![#(#items),*])
            } else {
                quote!([#(#items),*])
            }
        }
        Rhs::Array(ArrayInit::Copy { source, vec }) => {
            let source = &func.vars[*source].ident;
            if *vec {
                quote!(#source.to_vec())
            } else {
                quote!(#source.clone())
            }
        }
        Rhs::Call { callee, args } => {
            let args = args.iter().map(|a| call_arg(func, a));
            match callee {
                Callee::Path { path, .. } => quote!(#path(#(#args),*)),
                Callee::Method { receiver, method } => {
                    let receiver = &receiver.tokens;
                    quote!(#receiver.#method(#(#args),*))
                }
            }
        }
        Rhs::Load { array, index } => {
            let (array, index) = (&func.vars[*array].ident, &index.tokens);
            quote!(#array[#index])
        }
        Rhs::Prim { prim, args, syntax } => {
            let args: Vec<TokenStream> = args.iter().map(|a| operand(func, a)).collect();
            match syntax {
                Syntax::Operator => {
                    let op = if std::ptr::eq(*prim, &prim::ADD) {
                        quote!(+)
                    } else if std::ptr::eq(*prim, &prim::SUB) {
                        quote!(-)
                    } else if std::ptr::eq(*prim, &prim::MUL) {
                        quote!(*)
                    } else if std::ptr::eq(*prim, &prim::DIV) {
                        quote!(/)
                    } else {
                        let a = &args[0];
                        return quote!(-#a);
                    };
                    let (a, b) = (&args[0], &args[1]);
                    quote!(#a #op #b)
                }
                Syntax::Method => {
                    let name = Ident::new(prim.name, Span::call_site());
                    let (recv, rest) = args.split_first().expect("arity >= 1");
                    quote!(#recv.#name(#(#rest),*))
                }
                Syntax::Path => {
                    let name = Ident::new(prim.name, Span::call_site());
                    quote!(f64::#name(#(#args),*))
                }
            }
        }
    }
}

/// The type annotation of `let var = init;` (`: T`, or nothing): the user's,
/// else, for a new float array, its type, so that no element is an
/// ambiguous `{float}` (`vec![0.0; n]` read as `b[i].cos()`). (Lowering
/// types a float set to a literal, `d = 0.75;`.)
pub fn let_type(ty: Option<&TokenStream>, init: Option<&Rhs>) -> Option<TokenStream> {
    if let Some(ty) = ty {
        return Some(quote!(: #ty));
    }
    match init? {
        Rhs::Array(ArrayInit::Fill { vec: true, .. } | ArrayInit::List { vec: true, .. }) => {
            Some(quote!(: ::std::vec::Vec<f64>))
        }
        Rhs::Array(ArrayInit::Fill { len, .. }) => Some(quote!(: [f64; #len])),
        Rhs::Array(ArrayInit::List { items, .. }) => {
            let len = proc_macro2::Literal::usize_unsuffixed(items.len());
            Some(quote!(: [f64; #len]))
        }
        _ => None,
    }
}

/// An operand as Rust tokens.
pub fn operand(func: &Func, op: &Operand) -> TokenStream {
    match op {
        Operand::Var(v) => func.vars[*v].ident.to_token_stream(),
        Operand::Const(c) => c.tokens.clone(),
    }
}

/// What a call passes for an argument that does not vary: a scratch slot
/// (the candidate is the slot itself), or, for a parameter array that is
/// not differentiated (constant data, `xs` or `&xs[1..]`), the data itself,
/// from which the impl that gives it a slot makes a zeroed buffer of its
/// length (`Candidate::lazy`), so the usual case, data going to a parameter
/// the callee does not differentiate, allocates nothing. `None` for an
/// argument that is not a float. A scalar's scratch is a temporary; a local
/// array's a zeroed twin (on the heap for a `Vec`).
fn scratch_slot(func: &Func, arg: &CallArg) -> Option<(TokenStream, bool)> {
    match arg {
        CallArg::Float(_) => Some((quote!(&mut 0.0_f64), false)),
        // The argument as written (`pair`, `data`, `&data[1..]`).
        CallArg::Array { array, tokens, .. }
            if matches!(func.vars[*array].origin, Origin::Param { .. }) =>
        {
            Some((tokens.clone(), true))
        }
        CallArg::Array { array, range, .. } => {
            let array = &func.vars[*array].ident;
            let zeros = quote!(::autograd::__private::zeros_like(&#array));
            Some(match range {
                Some(range) => {
                    let range = &range.tokens;
                    (quote!(&mut #zeros[#range]), false)
                }
                None => (quote!(&mut #zeros), false),
            })
        }
        CallArg::Const(_) => None,
    }
}

/// `callee_adjoint(args.., d_out, slots..)`: the call of a callee's adjoint
/// (`g_adjoint` by path, or `receiver.g_adjoint` for a method), shared by the
/// reverse sweep (`d_out` the result's adjoint), `call_with_partials` and
/// forward mode (`d_out = 1`). `slots` has one entry per argument: the slot
/// of each argument that varies.
///
/// API.md gives the callee's adjoint a slot per parameter it differentiates
/// (every float parameter, or those of its `wrt(..)`), which the caller
/// cannot see. An argument that varies must go to such a parameter; a
/// parameter array that is not differentiated to one that is not; any
/// other float that does not vary (`2.0`, `labels[i]`, a literal array, a
/// local buffer) may go to either. When a call has such constants, the
/// adjoint is called through a small local trait with one impl per way the
/// callee may take its slots (`slot_choices`): rustc picks the one impl
/// whose `FnOnce` signature the callee's adjoint has, and the constants it
/// gives a slot get a scratch one. Arguments and slots pass through `__private::Coerce`, which
/// does the coercions a direct call would (`&[f64; N]` to `&[f64]`). A
/// method (`self.g(x)`) is called directly, with the varied slots only.
pub fn adjoint_call(
    func: &Func,
    names: &Names,
    callee: &Callee,
    args: &[CallArg],
    d_out: TokenStream,
    slots: &[Option<TokenStream>],
) -> TokenStream {
    let mut arg_tokens: Vec<TokenStream> = args.iter().map(|a| call_arg(func, a)).collect();
    // Every argument that may take a slot, in order: its slot (its
    // adjoint's if it varies, else a scratch one) and what it is.
    let mut positions: Vec<usize> = Vec::new();
    let candidates: Vec<(TokenStream, Candidate)> = args
        .iter()
        .zip(slots)
        .enumerate()
        .filter_map(|(position, (arg, slot))| {
            let array = matches!(arg, CallArg::Array { .. });
            let (slot, varied, lazy) = match slot {
                Some(slot) => (slot.clone(), true, false),
                None => {
                    let (slot, lazy) = scratch_slot(func, arg)?;
                    (slot, false, lazy)
                }
            };
            positions.push(position);
            Some((
                slot,
                Candidate {
                    array,
                    varied,
                    lazy,
                },
            ))
        })
        .collect();
    let varied: Vec<&TokenStream> = slots.iter().flatten().collect();
    let constants = candidates.len() > varied.len();
    // The callee's `__g_active` (only named when a call needs it: a
    // hand-written adjoint may not have one).
    let active_const = match callee {
        Callee::Path { path, .. } => syn::parse2::<syn::Path>(path.clone()).ok().map(|mut p| {
            if let Some(last) = p.segments.last_mut() {
                last.ident = names::active_const(&last.ident);
            }
            p.to_token_stream()
        }),
        Callee::Method { method, .. } => {
            let name = names::active_const(method);
            Some(quote!(Self::#name))
        }
    };
    let adjoint = match callee {
        Callee::Path { adjoint, .. } if constants => adjoint.clone(),
        Callee::Path { adjoint, .. } => {
            return quote!(#adjoint(#(#arg_tokens,)* #d_out, #(#varied),*));
        }
        // `self.g(x, 2.0)`: `Self::g_adjoint(self, ..)` can be named, so it
        // can be called through the trait too (another receiver's type is
        // unknown: its adjoint gets the varied slots only).
        Callee::Method { receiver, method }
            if constants && receiver.tokens.to_string() == "self" =>
        {
            let adjoint = names::adjoint_fn(method);
            arg_tokens.insert(0, quote!(self));
            quote!(Self::#adjoint)
        }
        Callee::Method { receiver, method } => {
            let receiver = &receiver.tokens;
            let adjoint = names::adjoint_fn(method);
            return quote!(#receiver.#adjoint(#(#arg_tokens,)* #d_out, #(#varied),*));
        }
    };
    let call_trait = names.fresh("__AdCall");
    let method = names.fresh("__ad_call");
    let n = arg_tokens.len();
    let m = candidates.len();
    let ty = |prefix: &str, i: usize| names::scoped(&format!("{prefix}{i}"));
    let (bs, as_): (Vec<Ident>, Vec<Ident>) = (0..n).map(|i| (ty("B", i), ty("A", i))).unzip();
    let cs: Vec<Ident> = (0..m).map(|j| ty("C", j)).collect();
    let (a_vals, c_vals): (Vec<Ident>, Vec<Ident>) = (
        (0..n).map(|i| ty("a", i)).collect(),
        (0..m).map(|j| ty("c", j)).collect(),
    );
    let coerce = quote!(::autograd::__private::Coerce);
    let d = names::scoped("d_out");
    // (the type of `d_out` and of the value: `f64` and `f64`, or `&[f64]`
    // and the vector of a vector-valued callee)
    let (dt, rt) = (names::scoped("D"), names::scoped("R"));
    let kinds: Vec<Candidate> = candidates.iter().map(|(_, c)| *c).collect();
    let mut impls = Vec::new();
    // Each impl's marker names its choice: coherence does not look at
    // where-clauses, so two choices with as many slots need two markers.
    // Lazy data kept gets its buffer's own type, or, for an array passed to
    // a slice parameter, a slice of it (`Lazy::Elem` or `[f64]`: one impl
    // each, of which the callee's signature keeps one).
    let mut marker = 0;
    let (choices, switches) = slot_choices(&kinds);
    let has_switch = !switches.is_empty() && active_const.is_some();
    let active_param = has_switch.then(|| quote!(, __ad_active: &[bool]));
    let active_arg = if has_switch {
        quote!(, __ad_active)
    } else {
        quote!()
    };
    for group in switches.iter().filter(|_| has_switch) {
        // One impl for choices that give the same kinds of slots to
        // different constants: the callee's `__g_active` says which.
        let choice = proc_macro2::Literal::usize_unsuffixed(marker);
        marker += 1;
        let k = group[0].len();
        let slot_types: Vec<Ident> = (0..k).map(|i| ty("S", i)).collect();
        let mut bounds = Vec::new();
        let mut branches = Vec::new();
        let union: Vec<usize> = {
            let mut u: Vec<usize> = group.iter().flatten().copied().collect();
            u.sort_unstable();
            u.dedup();
            u
        };
        for kept in group {
            let mut passed = Vec::new();
            for (i, &j) in kept.iter().enumerate() {
                let (c, v, s) = (&cs[j], &c_vals[j], &slot_types[i]);
                bounds.push(quote!(#c: #coerce<#s>));
                passed.push(quote!(#coerce::<#s>::coerce(#v)));
            }
            let tests = union.iter().map(|&j| {
                let p = proc_macro2::Literal::usize_unsuffixed(positions[j]);
                let want = kept.contains(&j);
                quote!(__ad_active.get(#p).copied() == ::core::option::Option::Some(#want))
            });
            branches.push(quote! {
                if #(#tests)&&* {
                    return self(#(#coerce::<#bs>::coerce(#a_vals),)* #d, #(#passed,)*);
                }
            });
        }
        let unused: Vec<TokenStream> = (0..m)
            .filter(|j| !union.contains(j))
            .map(|j| {
                let v = &c_vals[j];
                quote!(let _ = #v;)
            })
            .collect();
        impls.push(quote! {
            impl<F, #dt, #rt, #(#bs,)* #(#slot_types,)* #(#as_,)* #(#cs,)*>
                #call_trait<(fn(#(#bs,)* #(#slot_types,)*), [(); #choice]), (#(#as_,)*), (#(#cs,)*), #dt, #rt> for F
            where
                F: FnOnce(#(#bs,)* #dt, #(#slot_types,)*) -> #rt,
                #(#as_: #coerce<#bs>,)*
                #(#bounds,)*
            {
                #[inline(always)]
                fn #method(self, (#(#a_vals,)*): (#(#as_,)*), #d: #dt, (#(#c_vals,)*): (#(#cs,)*) #active_param) -> #rt {
                    #(#unused)*
                    #(#branches)*
                    ::core::panic!("autograd: the callee's `__*_active` matches none of the ways this call can give it slots (a bug in autograd)")
                }
            }
        });
    }
    for kept in choices {
        let lazy: Vec<usize> = kept
            .iter()
            .copied()
            .filter(|&j| candidates[j].1.lazy)
            .collect();
        for as_slice in 0..1u32 << lazy.len() {
            let choice = proc_macro2::Literal::usize_unsuffixed(marker);
            marker += 1;
            // A kept slot is generic (`S_j`, coerced from the candidate), or,
            // for lazy data, a reference of any lifetime to a buffer the
            // method makes.
            let (mut generics, mut slot_types, mut bounds, mut buffers, mut passed) =
                (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
            // (The marker names the slot types without the lifetimes.)
            let mut marker_types = Vec::new();
            let mut lifetimes = Vec::new();
            for &j in &kept {
                let (c, v) = (&cs[j], &c_vals[j]);
                let Some(k) = lazy.iter().position(|&l| l == j) else {
                    let s = ty("S", j);
                    slot_types.push(quote!(#s));
                    marker_types.push(quote!(#s));
                    bounds.push(quote!(#c: #coerce<#s>));
                    passed.push(quote!(#coerce::<#s>::coerce(#v)));
                    generics.push(s);
                    continue;
                };
                let lifetime =
                    syn::Lifetime::new(&format!("'l{j}"), proc_macro2::Span::mixed_site());
                let buffer = ty("z", j);
                let private = quote!(::autograd::__private);
                buffers.push(quote! {
                    let mut #buffer = <#c as #private::Lazy>::zeroed(&#v);
                });
                if as_slice & (1 << k) != 0 {
                    slot_types.push(quote!(&#lifetime mut [f64]));
                    marker_types.push(quote!(&mut [f64]));
                    bounds.push(quote!(#c: #private::LazyArray));
                    passed.push(quote!(<#c as #private::LazyArray>::slice(&mut #buffer)));
                } else {
                    slot_types.push(quote!(&#lifetime mut <#c as #private::Lazy>::Elem));
                    marker_types.push(quote!(&mut <#c as #private::Lazy>::Elem));
                    bounds.push(quote!(#c: #private::Lazy));
                    passed.push(quote!(&mut *#buffer));
                }
                lifetimes.push(lifetime);
            }
            let higher = (!lifetimes.is_empty()).then(|| quote!(for<#(#lifetimes),*>));
            impls.push(quote! {
                impl<F, #dt, #rt, #(#bs,)* #(#generics,)* #(#as_,)* #(#cs,)*>
                    #call_trait<(fn(#(#bs,)* #(#marker_types,)*), [(); #choice]), (#(#as_,)*), (#(#cs,)*), #dt, #rt> for F
                where
                    F: #higher FnOnce(#(#bs,)* #dt, #(#slot_types,)*) -> #rt,
                    #(#as_: #coerce<#bs>,)*
                    #(#bounds,)*
                {
                    #[inline(always)]
                    fn #method(self, (#(#a_vals,)*): (#(#as_,)*), #d: #dt, (#(#c_vals,)*): (#(#cs,)*) #active_param) -> #rt {
                        #(#buffers)*
                        self(#(#coerce::<#bs>::coerce(#a_vals),)* #d, #(#passed,)*)
                    }
                }
            });
        }
    }
    let slot_tokens = candidates.iter().map(|(s, _)| s);
    let active_arg_call = match (&active_const, has_switch) {
        (Some(path), true) => quote!(, #path),
        _ => quote!(),
    };
    let _ = active_arg;
    let callee_name = adjoint.to_string().replace(' ', "");
    let message = format!("`{callee_name}` does not take the `d_` slots this call can give it");
    let note = "`#[differentiable]` passes a `d_` slot for each argument that depends on a \
                differentiated input, and a scratch slot for float constants where the \
                callee's adjoint has room for one; it cannot tell which constants the callee \
                differentiates when they lie on both sides of a differentiated argument, or \
                which of several constant arrays it does, and the callee differentiates only \
                some of its parameters";
    let help = "pass each differentiated value to a parameter the callee differentiates; bind \
                the constants it does not differentiate to parameters of the caller outside \
                `wrt(..)`, or differentiate the callee with respect to all its float parameters";
    quote! {
        {
            #[diagnostic::on_unimplemented(message = #message, note = #note, help = #help)]
            trait #call_trait<M, A, C, D, R> {
                fn #method(self, args: A, d_out: D, slots: C #active_param) -> R;
            }
            #(#impls)*
            #call_trait::#method(#adjoint, (#(#arg_tokens,)*), #d_out, (#(#slot_tokens,)*) #active_arg_call)
        }
    }
}

/// An argument that may take a slot in a callee's adjoint.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Candidate {
    /// An array (its slot is a buffer), not a scalar.
    array: bool,
    /// Constant data passed as itself (`xs`, `&xs[1..]`): an impl that
    /// gives it a slot makes a zeroed buffer of its shape
    /// (`__private::Lazy`).
    lazy: bool,
    /// It varies: it must take its slot (its adjoint's); a constant's is a
    /// scratch one, taken if the callee has a slot for it.
    varied: bool,
}

/// The ways a callee may take its slots (and, second, groups of ways that
/// give the same kinds of slots to different scalar constants, which the
/// call tells apart with the callee's `__g_active`), each the candidates kept (by
/// index, in order): every varied one and some of the constants. Scalar
/// scratch slots are interchangeable, but a varied slot must land at its
/// own place among the callee's slots, and an array's scratch must have
/// its argument's length (the callee checks it); the callee's signature
/// only tells the kinds of its slots: two choices with the same sequence of
/// kinds are one impl, kept only if they put the varied slots at the same
/// places and the same array constants at the same places (otherwise that
/// callee is a compile error at the call, never a gradient in the wrong
/// slot or a scratch of the wrong length). Beyond `MAX_CONSTANTS`
/// constants, only "none of the constants" and "all of them" are offered.
fn slot_choices(candidates: &[Candidate]) -> (Vec<Vec<usize>>, Vec<Vec<Vec<usize>>>) {
    const MAX_CONSTANTS: usize = 6;
    let constants: Vec<usize> = (0..candidates.len())
        .filter(|&j| !candidates[j].varied)
        .collect();
    let masks: Vec<u32> = if constants.len() > MAX_CONSTANTS {
        vec![0, (1 << constants.len()) - 1]
    } else {
        (0..1 << constants.len()).collect()
    };
    // Kinds of the kept slots → every choice with them.
    let mut by_kinds: Vec<(Vec<bool>, Vec<Vec<usize>>)> = Vec::new();
    for mask in masks {
        let kept: Vec<usize> = (0..candidates.len())
            .filter(|&j| {
                candidates[j].varied
                    || constants
                        .iter()
                        .position(|&c| c == j)
                        .is_some_and(|k| mask & (1 << k) != 0)
            })
            .collect();
        let kinds: Vec<bool> = kept.iter().map(|&j| candidates[j].array).collect();
        match by_kinds.iter_mut().find(|(k, _)| *k == kinds) {
            None => by_kinds.push((kinds, vec![kept])),
            Some((_, choices)) => choices.push(kept),
        }
    }
    let places = |kept: &[usize]| -> Vec<usize> {
        (0..kept.len())
            .filter(|&i| candidates[kept[i]].varied)
            .collect()
    };
    // (same kinds: an array at the same places in both)
    let same_arrays = |a: &[usize], b: &[usize]| {
        a.iter()
            .zip(b)
            .all(|(&x, &y)| x == y || !candidates[x].array)
    };
    let (mut single, mut switches) = (Vec::new(), Vec::new());
    for (_, choices) in by_kinds {
        let first = &choices[0];
        let equivalent = choices
            .iter()
            .all(|c| places(c) == places(first) && same_arrays(c, first));
        if equivalent {
            single.push(first.clone());
        } else if choices.iter().all(|c| same_arrays(c, first))
            && choices.iter().flatten().all(|&j| !candidates[j].lazy)
        {
            // Only which scalar constants get a slot differs: the callee's
            // `__g_active` tells at the call.
            switches.push(choices);
        }
    }
    (single, switches)
}

/// An argument of a call, as the user wrote it.
pub fn call_arg(func: &Func, arg: &CallArg) -> TokenStream {
    match arg {
        CallArg::Float(op) => operand(func, op),
        CallArg::Array { tokens, .. } => tokens.clone(),
        CallArg::Const(c) => c.tokens.clone(),
    }
}

/// The local partial derivatives of `var = prim(args)` with respect to the
/// operands for which `active` holds, each as an expression calling
/// `::autograd::__private::rules::<name>(args.., var)`, paired with the
/// operand it belongs to (an operand read twice, `x * x`, comes twice). When
/// more than one is needed, the rule's tuple is bound first to
/// `__ad_p_<var>` (pushed on `out`). `powi`'s exponent is never a target.
/// Shared by the reverse sweep (`d_arg += d_var * partial`) and forward
/// mode (`dot_var = Σ partial * dot_arg`). Arguments the partials do not
/// read (`prim::Reads`; `record::read_operands`) are passed as `0.0`, so
/// the reverse sweep of a recorded nest need not keep them.
pub fn rule_partials(
    func: &Func,
    names: &Names,
    out: &mut Vec<TokenStream>,
    var: VarId,
    prim: &prim::Prim,
    args: &[Operand],
    active: &dyn Fn(VarId) -> bool,
) -> Vec<(VarId, TokenStream)> {
    let read = crate::record::read_operands(prim, args, active);
    let operands: Vec<TokenStream> = args
        .iter()
        .enumerate()
        .map(|(i, a)| match read.contains(&i) {
            true => operand(func, a),
            false => quote!(0.0),
        })
        .collect();
    let result = match prim.reads {
        Reads::All => func.vars[var].ident.to_token_stream(),
        _ => quote!(0.0),
    };
    partials_of_call(
        func,
        names,
        out,
        var,
        prim,
        args,
        active,
        quote!(::autograd::__private::rules),
        operands,
        result,
    )
}

/// [`rule_partials`] from the rules module at `rules` (the second-order
/// body reads `__private::dual::rules`, the same names on `Dual`s).
#[allow(clippy::too_many_arguments)]
pub fn rule_partials_from(
    func: &Func,
    names: &Names,
    out: &mut Vec<TokenStream>,
    var: VarId,
    prim: &prim::Prim,
    args: &[Operand],
    active: &dyn Fn(VarId) -> bool,
    rules: TokenStream,
) -> Vec<(VarId, TokenStream)> {
    let operands: Vec<TokenStream> = args.iter().map(|a| operand(func, a)).collect();
    let result = func.vars[var].ident.to_token_stream();
    partials_of_call(
        func, names, out, var, prim, args, active, rules, operands, result,
    )
}

/// [`rule_partials_from`] with the rule's arguments given (`operands`, then
/// `result`).
#[allow(clippy::too_many_arguments)]
fn partials_of_call(
    func: &Func,
    names: &Names,
    out: &mut Vec<TokenStream>,
    var: VarId,
    prim: &prim::Prim,
    args: &[Operand],
    active: &dyn Fn(VarId) -> bool,
    rules: TokenStream,
    operands: Vec<TokenStream>,
    result: TokenStream,
) -> Vec<(VarId, TokenStream)> {
    let rule = Ident::new(prim.name, Span::call_site());
    let call = quote!(#rules::#rule(#(#operands,)* #result));
    let targets: Vec<(usize, VarId)> = args
        .iter()
        .enumerate()
        .filter_map(|(i, op)| match op {
            Operand::Var(v) if active(*v) => Some((i, *v)),
            _ => None,
        })
        .filter(|(i, _)| !(prim.arity == Arity::PowI && *i == 1))
        .collect();
    let single_partial = matches!(prim.arity, Arity::Unary | Arity::PowI);
    match targets.as_slice() {
        [] => Vec::new(),
        [(_, target)] if single_partial => vec![(*target, call)],
        [(i, target)] => {
            let field = syn::Index::from(*i);
            vec![(*target, quote!(#call.#field))]
        }
        many => {
            let partials = names.derived(Role::Partials, var, &func.vars[var].ident);
            out.push(quote!(let #partials = #call;));
            many.iter()
                .map(|&(i, target)| {
                    let field = syn::Index::from(i);
                    (target, quote!(#partials.#field))
                })
                .collect()
        }
    }
}

/// `tokens`, which read `uses`, with every `Dual` among them (`is_dual`)
/// rebound to its value first (`{ let x: f64 = x.v; tokens }`): a value of a
/// second-order body that does not depend on an active parameter though it
/// reads one (a step function, a condition, `(x * 4.0) as usize`) is
/// computed on `f64`s as in `f`. Shared by forward and reverse mode.
pub fn values_of_duals(
    func: &Func,
    uses: Vec<VarId>,
    tokens: TokenStream,
    is_dual: &dyn Fn(VarId) -> bool,
) -> TokenStream {
    let (mut duals, mut arrays): (Vec<&Ident>, Vec<&Ident>) = (Vec::new(), Vec::new());
    for var in uses {
        let info = &func.vars[var];
        if !is_dual(var) || duals.contains(&&info.ident) || arrays.contains(&&info.ident) {
            continue;
        }
        match (info.kind, info.origin) {
            (crate::ir::Kind::Float, _) => duals.push(&info.ident),
            // (a parameter array holds `f64`s)
            (crate::ir::Kind::FloatArray, Origin::Param { .. }) => {}
            (crate::ir::Kind::FloatArray, _) => arrays.push(&info.ident),
            _ => {}
        }
    }
    if duals.is_empty() && arrays.is_empty() {
        return tokens;
    }
    let values = quote!(::autograd::__private::dual::ValuesOf::values_of);
    quote!({
        #(let #duals: f64 = #duals.v;)*
        #(let #arrays = #values(&#arrays);)*
        (#tokens)
    })
}
