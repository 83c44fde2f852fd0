//! The primal code both strategies share: each IR value written as the user
//! wrote it (so values are bit for bit `f`'s), the calls of a callee's
//! adjoint, and the local partials of a primitive from the rules table.

use crate::ir::{ArrayInit, CallArg, Callee, Func, Operand, Rhs, Syntax, VarId};
use crate::names::{self, Names, Role};
use crate::prim::{self, Arity};
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
/// ambiguous `{float}` (`vec![0.0; n]` read as `b[i].cos()`).
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

/// `callee_adjoint(args.., d_out, slots..)`: the call of a callee's adjoint
/// (`g_adjoint` by path, or `receiver.g_adjoint` for a method), shared by the
/// reverse sweep (`d_out` the result's adjoint), `call_with_partials` and
/// forward mode (`d_out = 1`).
pub fn adjoint_call(
    func: &Func,
    callee: &Callee,
    args: &[CallArg],
    d_out: TokenStream,
    slots: &[TokenStream],
) -> TokenStream {
    let args = args.iter().map(|a| call_arg(func, a));
    match callee {
        Callee::Path { adjoint, .. } => quote!(#adjoint(#(#args,)* #d_out, #(#slots),*)),
        Callee::Method { receiver, method } => {
            let receiver = &receiver.tokens;
            let adjoint = names::adjoint_fn(method);
            quote!(#receiver.#adjoint(#(#args,)* #d_out, #(#slots),*))
        }
    }
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
/// mode (`dot_var = Σ partial * dot_arg`).
pub fn rule_partials(
    func: &Func,
    names: &Names,
    out: &mut Vec<TokenStream>,
    var: VarId,
    prim: &prim::Prim,
    args: &[Operand],
    active: &dyn Fn(VarId) -> bool,
) -> Vec<(VarId, TokenStream)> {
    let rule = Ident::new(prim.name, Span::call_site());
    let operands: Vec<TokenStream> = args.iter().map(|a| operand(func, a)).collect();
    let result = func.vars[var].ident.clone();
    let call = quote!(::autograd::__private::rules::#rule(#(#operands,)* #result));
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
            let partials = names.derived(Role::Partials, var, &result);
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
