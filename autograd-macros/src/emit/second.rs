//! Second order (`#[differentiable(hessian)]`): `f_hvp`, `f_hessian` and the
//! hidden `f_hvp_adjoint`, by forward mode over the reverse sweep.
//!
//! The body is the reverse sweep of `reverse.rs` emitted once more in its
//! second-order mode (`Body::second_order`): every value that depends on an
//! active parameter, and every adjoint, is a `::autograd::__private::Dual`
//! (a value and its tangent along the direction `v`), so the adjoints of the
//! parameters come out as the gradient (values) and `H·v` (tangents). The
//! partials are `__private::dual::rules::*`, which read the first-order
//! rules and their second derivatives (`rules::second`) in the runtime.
//! Values that do not depend on an active parameter (integers, constants,
//! conditions) keep their types, and branch decisions compare values only,
//! so the sweep takes `f`'s branches.
//!
//! This module holds what the second-order mode emits differently (a
//! parameter array's element read with its direction, a `Dual` array, a
//! callee's `_hvp_adjoint`) and the three items around the body.
//!
//! The hidden `f_hvp_adjoint` is what a `hessian` caller calls (it cannot
//! see whether `f` was compiled with `hessian`: without it, rustc reports
//! `cannot find function f_hvp_adjoint`). Its convention, which a
//! hand-written second-order rule follows (README, "Second order"):
//!
//! ```text
//! fn g_hvp_adjoint<'a, ..>(
//!     <g's parameters, in order: every `f64` one as `impl ScalarArg<'a>`
//!      (a constant `f64`, a `Dual`, or `(Dual, &mut Dual)`: a value with
//!      the slot its adjoint `d_out · ∂g/∂p` is added into); every float
//!      array `p: T` as `impl ArrayArg<'a, T>` (the array itself, or
//!      `(array, direction, gradient slot, H·v slot)`); anything else
//!      unchanged>,
//!     d_out: Dual,
//! ) -> Dual
//! ```
//!
//! A vector-valued `g` (returning `[f64; M]` or `Vec<f64>`) takes `d_out:
//! &[Dual]` instead — the adjoint of the array the caller bound its value
//! to, or empty where the caller wants the value only — and returns its
//! value as `[Dual; M]` / `Vec<Dual>` (tangents `J·v`); `vector.rs`
//! generates it for every vector-valued function.
//!
//! The caller passes what it has — a constant as it is (its type, not the
//! macro, decides whether it goes to an `f64` parameter: `g(x, N)` with
//! `const N: usize` works), a varied value with its slot — and the callee's
//! prologue splits each argument (`__private::dual::{ScalarArg,
//! ArrayArg}`); constant data has an empty direction (read as zero) and
//! empty slots (not written).

use super::primal::{operand, primal_rhs};
use super::reverse::Body;
use super::{active_list, allow_lints, gradient_type, inherited_attrs};
use crate::activity::Activity;
use crate::ir::{ArrayInit, CallArg, Callee, Func, Operand, Origin, Rhs, Syntax, VarId};
use crate::names::Names;
use crate::prim::Arity;
use crate::signature::{Param, ParamClass, Signature};
use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::Ident;

fn dual_ty() -> TokenStream {
    quote!(::autograd::__private::Dual)
}

/// Where a second-order body takes `prim`'s partials from: the `Dual`
/// rules, or, where the partials are constant along the direction, the
/// `f64` ones (`dual::constant_partials`), which adjoints multiply as plain
/// numbers: a rule that `reads` nothing (second derivatives identically 0),
/// or one whose partial for an operand reads only the others (`mul`) with
/// at most one operand varying (`dual_operands`).
pub fn rules_path(prim: &crate::prim::Prim, dual_operands: usize) -> TokenStream {
    use crate::prim::Reads;
    let constant = match prim.reads {
        Reads::Nothing => true,
        Reads::Others => dual_operands <= 1,
        Reads::All => false,
    };
    if constant {
        quote!(::autograd::__private::dual::constant_partials)
    } else {
        quote!(::autograd::__private::dual::rules)
    }
}

/// `Dual::from(tokens)`: a value that may be an `f64` constant, as a `Dual`
/// (the identity on a `Dual`).
pub fn lift(tokens: &TokenStream) -> TokenStream {
    quote!(::autograd::__private::Dual::from(#tokens))
}

/// A float array type with `Dual` elements: every `f64` in `ty` replaced.
pub fn f64_to_dual(ty: TokenStream) -> TokenStream {
    ty.into_iter()
        .map(|tree| match tree {
            TokenTree::Ident(ident) if ident == "f64" => {
                let mut group = Group::new(proc_macro2::Delimiter::None, dual_ty());
                group.set_span(ident.span());
                TokenTree::Group(group)
            }
            TokenTree::Group(group) => {
                let mut new = Group::new(group.delimiter(), f64_to_dual(group.stream()));
                new.set_span(group.span());
                TokenTree::Group(new)
            }
            other => other,
        })
        .collect()
}

/// `tokens` with the variable `from` renamed `to` (an argument `&x[1..]`
/// made into its direction `&v_x[1..]`; `to` keeps its own span: it is
/// bound by generated code).
fn rename(tokens: &TokenStream, from: &Ident, to: &Ident) -> TokenStream {
    crate::tokens::rename(tokens, &from.to_string(), &mut |_| to.clone())
}

/// The parameter that `var` is, if it is an active one.
fn active_param<'a>(func: &Func, sig: &'a Signature, var: VarId) -> Option<&'a Param> {
    match func.vars[var].origin {
        Origin::Param {
            index,
            active: true,
        } => sig.params.get(index).filter(|p| p.second.is_some()),
        _ => None,
    }
}

/// `(v_<p>, hv_<p>)` of an active parameter (`Signature` sets them under
/// `hessian`).
fn second_names(param: &Param) -> (Ident, Ident) {
    param
        .second
        .clone()
        .unwrap_or_else(|| (format_ident!("v_"), format_ident!("hv_")))
}

/// The H·v buffer of the active parameter array `var` (`hv_<p>`).
pub fn hv_buffer(func: &Func, sig: &Signature, var: VarId) -> Ident {
    match active_param(func, sig, var) {
        Some(param) => second_names(param).1,
        None => format_ident!("hv_"),
    }
}

/// The value of `rhs` defining a `Dual` (or an array of them).
pub fn dual_rhs(
    func: &Func,
    sig: &Signature,
    activity: &Activity,
    names: &Names,
    rhs: &Rhs,
) -> TokenStream {
    match rhs {
        Rhs::Array(ArrayInit::Fill { value, len, vec }) => {
            let value = lift(&value.tokens);
            if *vec {
                quote!(::std::vec![#value; #len])
            } else {
                quote!([#value; #len])
            }
        }
        Rhs::Array(ArrayInit::List { items, vec }) => {
            let items = items.iter().map(|i| lift(&operand(func, i)));
            if *vec {
                quote!(::std::vec![#(#items),*])
            } else {
                quote!([#(#items),*])
            }
        }
        Rhs::Array(ArrayInit::Copy { source, vec }) => match active_param(func, sig, *source) {
            Some(param) => {
                let x = &func.vars[*source].ident;
                let (v, _) = second_names(param);
                match (&param.class, vec) {
                    (_, true) | (ParamClass::Slice, _) => {
                        quote!(::autograd::__private::dual::zip_vec(&#x[..], &#v[..]))
                    }
                    (ParamClass::Array { by_value: true, .. }, false) => {
                        quote!(::autograd::__private::dual::zip_array(&#x, &#v[..]))
                    }
                    _ => quote!(::autograd::__private::dual::zip_array(#x, &#v[..])),
                }
            }
            // A copy of constant data: constant `Dual`s.
            None if !activity.varied(*source) => {
                let x = &func.vars[*source].ident;
                if *vec {
                    quote!(::autograd::__private::dual::lift_array(&#x[..].to_vec()))
                } else {
                    quote!(::autograd::__private::dual::lift_array(&#x))
                }
            }
            None => primal_rhs(func, rhs),
        },
        Rhs::Load { array, index } => match active_param(func, sig, *array) {
            Some(param) => {
                let x = &func.vars[*array].ident;
                let (v, _) = second_names(param);
                let index = &index.tokens;
                let k = names.fresh("__ad_k");
                quote! {{
                    let #k: usize = #index;
                    ::autograd::__private::Dual::new(
                        #x[#k],
                        ::autograd::__private::dual::tangent(&#v[..], #k),
                    )
                }}
            }
            None => primal_rhs(func, rhs),
        },
        Rhs::Call { callee, args } => {
            let slots: Vec<Option<TokenStream>> = args.iter().map(|_| None).collect();
            let zero = quote!(::autograd::__private::Dual::constant(0.0));
            hvp_call(func, sig, activity, names, callee, args, zero, &slots)
        }
        Rhs::Prim {
            prim,
            args,
            syntax: Syntax::Method | Syntax::Path,
        } => {
            let name = Ident::new(prim.name, Span::call_site());
            let mut args: Vec<TokenStream> = args.iter().map(|a| operand(func, a)).collect();
            if let Some(first) = args.first_mut() {
                *first = lift(first);
            }
            // (`powi`'s exponent stays an integer: only the receiver is lifted.)
            debug_assert!(prim.arity != Arity::PowI || args.len() == 2);
            quote!(::autograd::__private::Dual::#name(#(#args),*))
        }
        Rhs::Use(_) | Rhs::Prim { .. } => primal_rhs(func, rhs),
    }
}

/// The name of a callee's second-order adjoint: `path::g_hvp_adjoint`,
/// spanned like `g`.
fn hvp_path(path: &TokenStream) -> TokenStream {
    let mut trees: Vec<TokenTree> = path.clone().into_iter().collect();
    if let Some(position) = trees.iter().rposition(|t| matches!(t, TokenTree::Ident(_))) {
        if let TokenTree::Ident(ident) = &trees[position] {
            let name = format_ident!("{}_hvp_adjoint", ident, span = ident.span());
            trees[position] = TokenTree::Ident(name);
        }
    }
    trees.into_iter().collect()
}

/// `callee_hvp_adjoint(args.., d_out, slots..)` with the convention in the
/// module docs. `slots` has one entry per argument: a float's adjoint slot
/// (`&mut Dual`; `None` for a scratch one); for an array that varies,
/// `Some` in the reverse sweep (for a local array, its adjoint buffer),
/// `None` where the callee's derivatives are not wanted.
///
/// A parameter array passes itself and its direction, and its two
/// buffers (scratch ones, added in after the call, when it is passed
/// twice); a local array of `Dual`s passes its values and tangents as two
/// `f64` arrays of its shape, and scratch buffers merged into its adjoint
/// after the call (`__private::dual::DualArray`).
#[allow(clippy::too_many_arguments)]
pub fn hvp_call(
    func: &Func,
    sig: &Signature,
    activity: &Activity,
    names: &Names,
    callee: &Callee,
    args: &[CallArg],
    d_out: TokenStream,
    slots: &[Option<TokenStream>],
) -> TokenStream {
    let dual = quote!(::autograd::__private::dual);
    let mut prelude = Vec::new();
    let mut after = Vec::new();
    let mut values = Vec::new();
    let passed = |var: VarId| {
        args.iter()
            .filter(|a| matches!(a, CallArg::Array { array, .. } if *array == var))
            .count()
    };
    // The tuples an argument becomes carry the callee's span: a diagnostic
    // about the argument (a callee's bound) points at the call.
    let span = match callee {
        Callee::Path { path, .. } => path
            .clone()
            .into_iter()
            .find(|t| matches!(t, TokenTree::Ident(_)))
            .map_or_else(Span::call_site, |t| t.span()),
        Callee::Method { method, .. } => method.span(),
    };
    for (arg, slot) in args.iter().zip(slots) {
        match arg {
            // A value that varies: with its slot (or alone, where the
            // callee's derivatives are not wanted).
            CallArg::Float(op @ Operand::Var(v)) if activity.varied(*v) => {
                let value = operand(func, op);
                let value = quote_spanned!(span=> ::autograd::__private::Dual::from(#value));
                values.push(match slot {
                    Some(slot) => quote_spanned!(span=> (#value, #slot)),
                    None => value,
                });
            }
            // A constant as it is (`2.0`, `SCALE`, or an integer constant
            // the macro cannot tell from a float: the callee's parameter
            // type decides).
            CallArg::Float(op) => values.push(operand(func, op)),
            CallArg::Array {
                array,
                tokens,
                range,
            } if activity.varied(*array) => {
                let ident = &func.vars[*array].ident;
                // A parameter's direction and slots are empty where the
                // caller passed a constant for it: a part of an empty one
                // is empty, not out of bounds (random programs, hessian,
                // seed 718837382 #323).
                let part = |buffer: &Ident| match range {
                    Some(range) => {
                        let range = &range.tokens;
                        quote!((*#dual::part_mut(&mut #buffer[..], #range)))
                    }
                    None => quote!(#buffer[..]),
                };
                let direction = |v: &Ident| match range {
                    Some(range) => {
                        let range = &range.tokens;
                        quote!(#dual::part(&#v[..], #range))
                    }
                    None => quote!(&#v[..]),
                };
                if let Some(param) = active_param(func, sig, *array) {
                    let (v, hv) = second_names(param);
                    let d = param.adjoint_ident().unwrap_or_else(|| format_ident!("d_"));
                    let dir = direction(&v);
                    if slot.is_none() {
                        values.push(quote_spanned! {span=>
                            (#tokens, #dir, #dual::no_slot(), #dual::no_slot())
                        });
                        continue;
                    }
                    if passed(*array) == 1 {
                        let (d_part, hv_part) = (part(&d), part(&hv));
                        values.push(
                            quote_spanned!(span=> (#tokens, #dir, &mut #d_part, &mut #hv_part)),
                        );
                        continue;
                    }
                    // Passed twice: scratch slots, added in after the call.
                    let (g, h) = (names.fresh("__ad_slot_g"), names.fresh("__ad_slot_h"));
                    let (d_part, hv_part) = (part(&d), part(&hv));
                    prelude.push(quote! {
                        let mut #g = ::autograd::__private::scratch_like(&#d_part);
                        let mut #h = ::autograd::__private::scratch_like(&#d_part);
                    });
                    values.push(quote_spanned!(span=> (#tokens, #dir, &mut #g[..], &mut #h[..])));
                    after.push(quote!(#dual::merge_split(&mut #d_part, &mut #hv_part, &#g, &#h);));
                    continue;
                }
                // A local array of `Dual`s: its values and tangents as two
                // `f64` arrays of its shape, scratch slots merged after.
                let (vals, tans) = (
                    names.fresh_for("__ad_values_", ident),
                    names.fresh_for("__ad_tangents_", ident),
                );
                prelude.push(quote! {
                    let #vals = #dual::values(&#ident);
                    let #tans = #dual::tangents(&#ident);
                });
                let value_tokens = rename(tokens, ident, &vals);
                let dir = direction(&tans);
                match slot {
                    None => values.push(quote_spanned! {span=>
                        (#value_tokens, #dir, #dual::no_slot(), #dual::no_slot())
                    }),
                    Some(buffer) => {
                        let (g, h) = (names.fresh("__ad_slot_g"), names.fresh("__ad_slot_h"));
                        prelude.push(quote! {
                            let mut #g = #dual::zeros(&#ident);
                            let mut #h = #dual::zeros(&#ident);
                        });
                        let (g_part, h_part) = (part(&g), part(&h));
                        values.push(quote_spanned! {span=>
                            (#value_tokens, #dir, &mut #g_part, &mut #h_part)
                        });
                        after.push(quote!(#dual::merge(&mut #buffer, &#g, &#h);));
                    }
                }
            }
            // Constant data: as it is.
            CallArg::Array { tokens, .. } => values.push(tokens.clone()),
            CallArg::Const(c) => values.push(c.tokens.clone()),
        }
    }
    let call = match callee {
        Callee::Path { path, .. } => {
            let path = hvp_path(path);
            quote!(#path(#(#values,)* #d_out))
        }
        Callee::Method { receiver, method } => {
            let receiver = &receiver.tokens;
            let name = format_ident!("{}_hvp_adjoint", method, span = method.span());
            quote!(#receiver.#name(#(#values,)* #d_out))
        }
    };
    if prelude.is_empty() && after.is_empty() {
        return call;
    }
    let result = names.fresh("__ad_call_value");
    quote!({
        #(#prelude)*
        let #result = #call;
        #(#after)*
        #result
    })
}

/// Parameter arrays the body writes into (`mut w: [f64; N]`), with whether
/// they hold values that depend on an active parameter.
fn written_params(func: &Func, activity: &Activity) -> Vec<(VarId, bool)> {
    let mut out: Vec<(VarId, bool)> = Vec::new();
    func.body.walk(0, &mut |stmt, _| {
        if let crate::ir::Stmt::Store { array, .. } = stmt {
            if matches!(func.vars[*array].origin, Origin::Param { .. })
                && !out.iter().any(|(v, _)| v == array)
            {
                out.push((*array, activity.varied(*array)));
            }
        }
    });
    out
}

/// What the second-order body cannot do, as one spanned error: writing
/// into a parameter array that is differentiated (its element reads carry
/// the direction `v_<p>` and its adjoint is the caller's buffer).
pub fn refusals(sig: &Signature, func: &Func, activity: &Activity) -> Option<syn::Error> {
    let mut errors: Option<syn::Error> = None;
    for (var, _) in written_params(func, activity) {
        let Some(param) = active_param(func, sig, var) else {
            continue;
        };
        let Some(name) = &param.name else { continue };
        let error = syn::Error::new(
            name.span(),
            format!(
                "`#[differentiable(hessian)]` does not support writing into the differentiated \
                 parameter array `{name}`; copy it into a local buffer first \
                 (`let mut {name} = {name}.to_vec();` or `.clone()` of an array) and write into that"
            ),
        );
        match &mut errors {
            Some(all) => all.combine(error),
            None => errors = Some(error),
        }
    }
    errors
}

/// `let mut w = lift_array(&w);` for each parameter array outside `wrt(..)`
/// that the body writes values depending on the inputs into: it becomes a
/// local array of `Dual`s (anew for each Hessian-vector product).
fn lifted_params(func: &Func, activity: &Activity) -> Vec<TokenStream> {
    written_params(func, activity)
        .into_iter()
        .filter(|(var, varied)| {
            *varied && matches!(func.vars[*var].origin, Origin::Param { active: false, .. })
        })
        .map(|(var, _)| {
            let ident = &func.vars[var].ident;
            quote!(let mut #ident = ::autograd::__private::dual::lift_array(&#ident);)
        })
        .collect()
}

/// The signature of `f_hvp`: `f`'s inputs, then one `v_<p>` per active
/// parameter typed like it; returns the value, the gradient and H·v.
pub fn hvp_signature(item: &syn::ItemFn, sig: &Signature) -> TokenStream {
    let name = format_ident!("{}_hvp", item.sig.ident, span = item.sig.ident.span());
    let inputs = item.sig.inputs.iter();
    let directions = sig.active().filter_map(|p| {
        let (v, _) = p.second.clone()?;
        let ty = param_type(item, sig, p)?;
        Some(quote!(#v: #ty))
    });
    let gradient = gradient_type(sig);
    let vis = &item.vis;
    quote! {
        #vis fn #name(#(#inputs,)* #(#directions),*) -> (f64, #gradient, #gradient)
    }
}

/// The signature of `f_hessian`: `f`'s inputs; returns the value, the
/// gradient and the dense Hessian.
pub fn hessian_signature(item: &syn::ItemFn, sig: &Signature) -> TokenStream {
    let name = format_ident!("{}_hessian", item.sig.ident, span = item.sig.ident.span());
    let inputs = item.sig.inputs.iter();
    let gradient = gradient_type(sig);
    let vis = &item.vis;
    quote! {
        #vis fn #name(#(#inputs),*) -> (f64, #gradient, ::std::vec::Vec<f64>)
    }
}

/// The type `f` declares for `param`.
fn param_type(item: &syn::ItemFn, sig: &Signature, param: &Param) -> Option<TokenStream> {
    typed_inputs(item)
        .zip(&sig.params)
        .find(|(_, p)| std::ptr::eq(*p, param))
        .map(|(pat_type, _)| pat_type.ty.to_token_stream())
}

fn typed_inputs(item: &syn::ItemFn) -> impl Iterator<Item = &syn::PatType> {
    item.sig.inputs.iter().filter_map(|input| match input {
        syn::FnArg::Typed(pat_type) => Some(pat_type),
        syn::FnArg::Receiver(_) => None,
    })
}

/// The second-order body: for one `f64` input forward over forward (no
/// tape), else forward over the reverse sweep.
fn second_order_body(
    sig: &Signature,
    func: &Func,
    activity: &Activity,
    names: &Names,
) -> TokenStream {
    super::forward::emit_second(sig, func, activity, names)
        .unwrap_or_else(|| Body::new(sig, func, activity, names, true).emit())
}

/// The hidden `f_hvp_adjoint` alone (what `vector.rs` nests for the
/// scalar `dᵀ f`, whose `d` is differentiated too).
pub fn hvp_adjoint_item(
    item: &syn::ItemFn,
    sig: &Signature,
    func: &Func,
    activity: &Activity,
    names: &Names,
) -> TokenStream {
    let body = second_order_body(sig, func, activity, names);
    hidden_item(item, sig, func, activity, names, &body)
}

/// `f_hvp`, `f_hessian` and the hidden `f_hvp_adjoint`.
pub fn emit(
    item: &syn::ItemFn,
    sig: &Signature,
    func: &Func,
    activity: &Activity,
    names: &Names,
) -> TokenStream {
    let body = second_order_body(sig, func, activity, names);
    let attrs = inherited_attrs(item);
    let allow = allow_lints();
    let dual = dual_ty();
    let d_out = &sig.d_out;
    let f = &item.sig.ident;
    let value = names.fresh("__ad_value");
    let lifted = lifted_params(func, activity);

    // ----- f_hvp ---------------------------------------------------------
    let mut setup = Vec::new();
    let (mut grads, mut hvs) = (Vec::new(), Vec::new());
    let hvp_name = format!("{f}_hvp");
    for param in sig.active() {
        let (Some(name), Some(d), Some((v, hv))) =
            (&param.name, param.adjoint_ident(), param.second.clone())
        else {
            continue;
        };
        let (name_str, v_str) = (name.to_string(), v.to_string());
        match &param.class {
            ParamClass::Scalar => {
                let slot = names.fresh_for("__ad_slot_", name);
                setup.push(quote! {
                    let mut #slot = #dual::constant(0.0);
                    let #d: &mut #dual = &mut #slot;
                    let #name = #dual::new(#name, #v);
                });
                grads.push(quote!(#slot.v));
                hvs.push(quote!(#slot.t));
            }
            ParamClass::Slice => {
                let (g, h) = (
                    names.fresh_for("__ad_grad_", name),
                    names.fresh_for("__ad_hv_", name),
                );
                setup.push(quote! {
                    ::autograd::__private::dual::check_direction_len(
                        #hvp_name, #v_str, #v.len(), #name_str, #name.len(),
                    );
                    let mut #g = ::autograd::__private::zeros(#name.len());
                    let mut #h = ::autograd::__private::zeros(#name.len());
                    let #d: &mut [f64] = &mut #g;
                    let #hv: &mut [f64] = &mut #h;
                });
                grads.push(quote!(#g));
                hvs.push(quote!(#h));
            }
            ParamClass::Array { len, .. } => {
                let (g, h) = (
                    names.fresh_for("__ad_grad_", name),
                    names.fresh_for("__ad_hv_", name),
                );
                setup.push(quote! {
                    let mut #g = [0.0_f64; #len];
                    let mut #h = [0.0_f64; #len];
                    let #d: &mut [f64; #len] = &mut #g;
                    let #hv: &mut [f64; #len] = &mut #h;
                });
                grads.push(quote!(#g));
                hvs.push(quote!(#h));
            }
            ParamClass::Constant => {}
        }
    }
    let tuple = |parts: &[TokenStream]| match parts {
        [single] => single.clone(),
        many => quote!((#(#many),*)),
    };
    let (grad, hvp) = (tuple(&grads), tuple(&hvs));
    let hvp_sig = hvp_signature(item, sig);
    let hvp_doc = format!(
        " The value of `{f}`, its gradient, and its Hessian times the direction `v` (one \
         `v_<p>` per differentiated parameter, shaped like it), with respect to {}, \
         generated by `#[differentiable(hessian)]` (forward mode over the reverse sweep: \
         a few times the cost of `{f}_adjoint`).",
        active_list(sig)
    );
    let hvp = quote! {
        #[doc = #hvp_doc]
        #(#attrs)*
        #allow
        #hvp_sig {
            #(#setup)*
            #(#lifted)*
            let #d_out = #dual::constant(1.0);
            let #value: #dual = { #body };
            (#value.v, #grad, #hvp)
        }
    };

    // ----- f_hessian -----------------------------------------------------
    let n = names.fresh("__ad_n");
    let h = names.fresh("__ad_h");
    let (rows, dir, k, row) = (
        names.fresh("__ad_rows"),
        names.fresh("__ad_dir"),
        names.fresh("__ad_k"),
        names.fresh("__ad_row"),
    );
    let (rest, dir_rest) = (names.fresh("__ad_rest"), names.fresh("__ad_dir_rest"));
    let result = names.fresh("__ad_result");
    let mut sizes = Vec::new();
    let mut before = Vec::new();
    let mut per_row = Vec::new();
    let mut after = Vec::new();
    let mut grads = Vec::new();
    for param in sig.active() {
        let (Some(name), Some(d), Some((v, hv))) =
            (&param.name, param.adjoint_ident(), param.second.clone())
        else {
            continue;
        };
        match &param.class {
            ParamClass::Scalar => {
                sizes.push(quote!(1));
                let (g, slot, cell) = (
                    names.fresh_for("__ad_grad_", name),
                    names.fresh_for("__ad_slot_", name),
                    names.fresh_for("__ad_hv_", name),
                );
                before.push(quote!(let mut #g = 0.0_f64;));
                per_row.push(quote! {
                    let (#cell, #rest) = #rest.split_at_mut(1);
                    let #v: f64 = #dir_rest[0];
                    let #dir_rest = &#dir_rest[1..];
                    let mut #slot = #dual::constant(0.0);
                    let #d: &mut #dual = &mut #slot;
                    let #name = #dual::new(#name, #v);
                });
                after.push(quote! {
                    #cell[0] = #slot.t;
                    #g = #slot.v;
                });
                grads.push(quote!(#g));
            }
            ParamClass::Slice => {
                sizes.push(quote!(#name.len()));
                let g = names.fresh_for("__ad_grad_", name);
                before.push(quote!(let mut #g = ::autograd::__private::zeros(#name.len());));
                per_row.push(quote! {
                    let (#hv, #rest) = #rest.split_at_mut(#name.len());
                    let (#v, #dir_rest) = #dir_rest.split_at(#name.len());
                    #g.fill(0.0);
                    let #d: &mut [f64] = &mut #g;
                });
                grads.push(quote!(#g));
            }
            ParamClass::Array { len, by_value } => {
                sizes.push(quote!((#len)));
                let g = names.fresh_for("__ad_grad_", name);
                before.push(quote!(let mut #g = [0.0_f64; #len];));
                let direction = if *by_value {
                    quote!(let #v: [f64; #len] = *::autograd::__private::dual::as_array(#v);)
                } else {
                    quote!(let #v: &[f64; #len] = ::autograd::__private::dual::as_array(#v);)
                };
                per_row.push(quote! {
                    let (#hv, #rest) = #rest.split_at_mut(#len);
                    let #hv: &mut [f64; #len] = ::autograd::__private::dual::as_array_mut(#hv);
                    let (#v, #dir_rest) = #dir_rest.split_at(#len);
                    #direction
                    #g = [0.0_f64; #len];
                    let #d: &mut [f64; #len] = &mut #g;
                });
                grads.push(quote!(#g));
            }
            ParamClass::Constant => {}
        }
    }
    let grad = tuple(&grads);
    let hessian_sig = hessian_signature(item, sig);
    let hessian_doc = format!(
        " The value of `{f}`, its gradient, and its dense Hessian with respect to {}: \
         `n × n` row-major over the differentiated floats flattened in parameter order, \
         generated by `#[differentiable(hessian)]`. Computed as `n` Hessian-vector \
         products along the unit directions (row `k` is `H e_k`); allocates only the \
         returned buffers (the directions live in the Hessian's spare capacity).",
        active_list(sig)
    );
    let sizes = if sizes.is_empty() {
        vec![quote!(0)]
    } else {
        sizes
    };
    let hessian = quote! {
        #[doc = #hessian_doc]
        #(#attrs)*
        #allow
        #hessian_sig {
            let #n: usize = #(#sizes)+*;
            let mut #h: ::std::vec::Vec<f64> = ::autograd::__private::zeros(#n * #n + #n);
            #(#before)*
            let mut #value = 0.0_f64;
            {
                let (#rows, #dir) = #h.split_at_mut(#n * #n);
                for #k in 0..#n.max(1) {
                    ::autograd::__private::dual::unit(#dir, #k);
                    let #row = &mut #rows[#k * #n..(#k + 1) * #n];
                    let #rest = #row;
                    let #dir_rest: &[f64] = &*#dir;
                    #(#per_row)*
                    #(#lifted)*
                    let #d_out = #dual::constant(1.0);
                    let #result: #dual = { #body };
                    #value = #result.v;
                    #(#after)*
                }
            }
            #h.truncate(#n * #n);
            (#value, #grad, #h)
        }
    };

    let hidden = hidden_item(item, sig, func, activity, names, &body);
    quote! {
        #hvp
        #hessian
        #hidden
    }
}

/// `f_hvp_adjoint` (hidden) around the second-order `body`: every float
/// parameter is generic (`dual::ScalarArg` / `ArrayArg`): the caller
/// passes what it has (a constant, a `Dual`, a value with its slots), and
/// the prologue splits it into the bindings the body reads.
fn hidden_item(
    item: &syn::ItemFn,
    sig: &Signature,
    func: &Func,
    activity: &Activity,
    names: &Names,
    body: &TokenStream,
) -> TokenStream {
    let attrs = inherited_attrs(item);
    let allow = allow_lints();
    let dual = dual_ty();
    let d_out = &sig.d_out;
    let f = &item.sig.ident;
    let lifted = lifted_params(func, activity);
    let lifetime = syn::Lifetime::new("'__ad_a", Span::call_site());
    let mut generics = Vec::new();
    let mut inputs = Vec::new();
    let mut prologue = Vec::new();
    if let Some(receiver) = item.sig.receiver() {
        inputs.push(receiver.to_token_stream());
    }
    let private = quote!(::autograd::__private::dual);
    for (k, (pat_type, param)) in typed_inputs(item).zip(&sig.params).enumerate() {
        let pat = &pat_type.pat;
        let ty = &pat_type.ty;
        let generic = format_ident!("__AdP{}", k);
        let Some(name) = &param.name else {
            inputs.push(quote!(#pat: #ty));
            continue;
        };
        let mutability = match &**pat {
            syn::Pat::Ident(p) if p.mutability.is_some() => quote!(mut),
            _ => quote!(),
        };
        match &param.class {
            ParamClass::Scalar => {
                generics.push(quote!(#generic: #private::ScalarArg<#lifetime>));
                inputs.push(quote!(#name: #generic));
                let slot = names.fresh_for("__ad_slot_", name);
                match (param.second.is_some(), param.adjoint_ident()) {
                    (true, Some(d)) => {
                        let scratch = names.fresh_for("__ad_scratch_", name);
                        prologue.push(quote! {
                            let (#mutability #name, #slot) = #private::ScalarArg::split(#name);
                            let mut #scratch = #dual::constant(0.0);
                            let #d: &mut #dual = match #slot {
                                ::core::option::Option::Some(slot) => slot,
                                ::core::option::Option::None => &mut #scratch,
                            };
                        });
                    }
                    // Outside `wrt(..)`: a constant of the body.
                    _ => prologue.push(quote! {
                        let (#name, _) = #private::ScalarArg::split(#name);
                        let #mutability #name: f64 = #name.v;
                    }),
                }
            }
            ParamClass::Slice | ParamClass::Array { .. } => {
                let elem = match &param.class {
                    ParamClass::Slice => quote!(&#lifetime [f64]),
                    ParamClass::Array {
                        len,
                        by_value: false,
                    } => quote!(&#lifetime [f64; #len]),
                    ParamClass::Array { len, .. } => quote!([f64; #len]),
                    _ => quote!(()),
                };
                generics.push(quote!(#generic: #private::ArrayArg<#lifetime, #elem>));
                inputs.push(quote!(#name: #generic));
                match (param.second.clone(), param.adjoint_ident()) {
                    (Some((v, hv)), Some(d)) => prologue.push(quote! {
                        let (#mutability #name, #v, #d, #hv) = #private::ArrayArg::split(#name);
                    }),
                    _ => prologue.push(quote! {
                        let (#mutability #name, _, _, _) = #private::ArrayArg::split(#name);
                    }),
                }
            }
            ParamClass::Constant => inputs.push(quote!(#pat: #ty)),
        }
    }
    let adjoint_name = format_ident!("{}_hvp_adjoint", f, span = f.span());
    let vis = &item.vis;
    quote! {
        #[doc(hidden)]
        #(#attrs)*
        #allow
        #vis fn #adjoint_name<#lifetime, #(#generics),*>(#(#inputs,)* #d_out: #dual) -> #dual {
            #(#prologue)*
            #(#lifted)*
            #body
        }
    }
}

/// Stand-ins for the second-order items when the function cannot be
/// differentiated (no secondary errors at their calls).
pub fn fallback(item: &syn::ItemFn, sig: &Signature) -> TokenStream {
    if !sig.hessian {
        return TokenStream::new();
    }
    let attrs = inherited_attrs(item);
    let allow = allow_lints();
    let (hvp, hessian) = (hvp_signature(item, sig), hessian_signature(item, sig));
    quote! {
        #[doc(hidden)]
        #(#attrs)*
        #allow
        #hvp { ::core::unreachable!() }
        #[doc(hidden)]
        #(#attrs)*
        #allow
        #hessian { ::core::unreachable!() }
    }
}
