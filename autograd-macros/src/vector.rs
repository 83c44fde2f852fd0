//! Vector-valued functions (API.md §4): `fn f(..) -> [f64; M]` or
//! `-> Vec<f64>` gets `f_jacobian` and a vector-Jacobian `f_adjoint`
//! instead of `f_grad` and the scalar `f_adjoint`.
//!
//! No new analysis: the function is rewritten into the scalar function
//! `w · f(..)` (its body, its result `r` bound last, then
//! `Σ r[k] · w[k]` over a constant parameter `w: &[f64]`), which goes
//! through the whole pipeline (lower → analyses → `emit::adjoint_body`).
//! Its adjoint body, run with `w = d_out` and a seed of 1, adds
//! `d_outᵀ · ∂f/∂p` into the `d_<p>` buffers: `f_adjoint`. `f_jacobian`
//! runs it once per output with `w` the unit vector `e_i` (rows by reverse
//! mode: `m` sweeps, each the cost of one gradient; the directions live in
//! the Jacobian's spare capacity), writing row `i` straight into the
//! result. The value is `f`'s own body, run once more in a closure.
//!
//! The result must be written last, as an array literal, `vec![..]`, or a
//! local array (`out`); anything else is refused with a spanned error.

use crate::attr::Args;
use crate::ctxt::Ctxt;
use crate::emit::{adjoint_body, allow_lints, inherited_attrs};
use crate::names::{self, Names};
use crate::signature::{self, ParamClass};
use crate::{activity, lower};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use std::collections::HashSet;
use syn::{Expr, Ident, ReturnType, Type};

/// `R` is `[f64; M]` or `Vec<f64>`.
fn vector_return(item: &syn::ItemFn) -> Option<&Type> {
    let ReturnType::Type(_, ty) = &item.sig.output else {
        return None;
    };
    match &**ty {
        Type::Array(array) if signature::is_f64(&array.elem) => Some(ty),
        Type::Path(path) if path.qself.is_none() => {
            let last = path.path.segments.last()?;
            if last.ident != "Vec" {
                return None;
            }
            let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
                return None;
            };
            match args.args.first()? {
                syn::GenericArgument::Type(elem) if signature::is_f64(elem) => Some(ty),
                _ => None,
            }
        }
        _ => None,
    }
}

/// A name that no identifier of `item` has.
fn unused(taken: &HashSet<String>, base: &str) -> Ident {
    let mut name = base.to_string();
    let mut n = 0;
    while taken.contains(&name) {
        n += 1;
        name = format!("{base}_{n}");
    }
    Ident::new(&name, Span::call_site())
}

/// The expansion of a vector-valued `item`, or `None` for any other.
pub fn expand(attr: &TokenStream, item: &syn::ItemFn) -> Option<TokenStream> {
    let ret = vector_return(item)?.clone();
    let args = match syn::parse2::<Args>(attr.clone()) {
        Ok(args) => args,
        Err(err) => return Some(refuse(item, err)),
    };
    if args.hessian {
        let span = attr
            .clone()
            .into_iter()
            .find(|t| t.to_string() == crate::attr::HESSIAN)
            .map(|t| t.span())
            .unwrap_or_else(Span::call_site);
        return Some(refuse(
            item,
            syn::Error::new(
                span,
                "`hessian` is not supported on a vector-valued function (it has a Jacobian, \
                 `f_jacobian`); differentiate a scalar function of its result for second \
                 derivatives",
            ),
        ));
    }
    let mut taken = HashSet::new();
    names::collect_idents(item.to_token_stream(), &mut taken);
    let w = unused(&taken, "__ad_w");
    let r = unused(&taken, "__ad_r");
    let k = unused(&taken, "__ad_k");
    let s = unused(&taken, "__ad_s");

    // The body with its result bound last: `stmts..; let r = <tail>;`.
    let mut stmts = item.block.stmts.clone();
    let tail = match stmts.pop() {
        Some(syn::Stmt::Expr(expr, None)) => expr,
        other => {
            let span_of = other
                .as_ref()
                .map(|s| s.to_token_stream())
                .unwrap_or_else(|| item.block.to_token_stream());
            return Some(refuse(
                item,
                syn::Error::new_spanned(
                    span_of,
                    "a vector-valued `#[differentiable]` function must end with its result: \
                     an array literal `[a, b]`, `vec![..]`, or a local array",
                ),
            ));
        }
    };
    let result_binding = match &tail {
        Expr::Array(_) | Expr::Repeat(_) => quote!(let #r = #tail;),
        Expr::Macro(m) if m.mac.path.is_ident("vec") => quote!(let #r = #tail;),
        Expr::Path(p) if p.path.get_ident().is_some() => {
            let ident = p.path.get_ident();
            quote!(let #r = #ident.to_vec();)
        }
        other => {
            return Some(refuse(
                item,
                syn::Error::new_spanned(
                    other,
                    "a vector-valued `#[differentiable]` function must end with its result: \
                     an array literal `[a, b]`, `vec![..]`, or the name of a local array; \
                     compute it into a local array (`let mut out = [0.0; M];`) and end with \
                     `out`",
                ),
            ));
        }
    };
    let returns_early = item
        .block
        .to_token_stream()
        .into_iter()
        .any(|t| t.to_string() == "return");
    if returns_early {
        return Some(refuse(
            item,
            syn::Error::new_spanned(
                &item.block,
                "`return` is not supported in a vector-valued `#[differentiable]` function; \
                 end the body with its result",
            ),
        ));
    }
    let scalar_body = quote!({
        #(#stmts)*
        #result_binding
        let mut #s = 0.0;
        for #k in 0..#r.len() {
            #s += #r[#k] * #w[#k];
        }
        #s
    });
    // (It parses: the user's statements and tail, in a frame of ours. The
    // macro never panics, so a failure is reported, not unwrapped.)
    let scalar_body: syn::Block = match syn::parse2(scalar_body) {
        Ok(block) => block,
        Err(err) => return Some(refuse(item, err)),
    };
    let mut scalar = item.clone();
    scalar.sig.output = syn::parse_quote!(-> f64);
    scalar.sig.inputs.push(syn::parse_quote!(#w: &[f64]));
    *scalar.block = scalar_body;

    // The active parameters: `wrt(..)`'s, else every float one (not `w`).
    let wrt_names: Vec<Ident> = match &args.wrt {
        Some((_, names)) => names.clone(),
        None => {
            let probe = Names::new(&scalar);
            let sig = signature::analyze(&Ctxt::new(), &item.sig, &Args::default(), &probe);
            sig.params
                .iter()
                .filter(|p| p.class.is_float())
                .filter_map(|p| p.name.clone())
                .collect()
        }
    };
    let wrt_span = args
        .wrt
        .as_ref()
        .map(|(span, _)| *span)
        .unwrap_or_else(Span::call_site);
    let scalar_args = Args {
        wrt: Some((wrt_span, wrt_names)),
        hessian: false,
    };

    let cx = Ctxt::new();
    let names = Names::new(&scalar);
    let sig = signature::analyze(&cx, &scalar.sig, &scalar_args, &names);
    let func = lower::lower(&cx, &sig, &scalar, &names);
    if let Err(error) = cx.check() {
        return Some(refuse(item, error));
    }
    let activity = activity::analyze(&func);
    let body = adjoint_body(&sig, &func, &activity, &names);

    // ----- the items -------------------------------------------------------
    let attrs = inherited_attrs(item);
    let allow = allow_lints();
    let vis = &item.vis;
    let f = &item.sig.ident;
    let d_out = &sig.d_out;
    let inputs: Vec<&syn::FnArg> = item.sig.inputs.iter().collect();
    let user_block = &item.block;
    // `mut` parameters are copied first, so `f`'s body run in a closure
    // leaves the inputs of the adjoint untouched.
    let rebind: Vec<TokenStream> = item
        .sig
        .inputs
        .iter()
        .filter_map(|input| match input {
            syn::FnArg::Typed(pt) => match &*pt.pat {
                syn::Pat::Ident(p) if p.mutability.is_some() => {
                    let name = &p.ident;
                    Some(quote!(let mut #name = #name;))
                }
                _ => None,
            },
            syn::FnArg::Receiver(_) => None,
        })
        .collect();
    let value = names.fresh("__ad_value");
    let value_of_f = quote! {
        let #value: #ret = {
            #(#rebind)*
            (|| -> #ret #user_block)()
        };
    };
    let active: Vec<&signature::Param> = sig
        .params
        .iter()
        .filter(|p| p.active && p.name.as_ref() != Some(&w))
        .collect();
    let active_names: Vec<String> = active
        .iter()
        .filter_map(|p| p.name.as_ref().map(|n| format!("`{n}`")))
        .collect();
    let active_list = if active_names.is_empty() {
        "no parameter".to_string()
    } else {
        active_names.join(", ")
    };

    // f_adjoint
    let adjoint_name = names::adjoint_fn(f);
    let slots = active.iter().map(|p| {
        let (ident, ty) = (p.adjoint_ident(), p.adjoint_type());
        quote!(#ident: #ty)
    });
    let fn_name = adjoint_name.to_string();
    let checks = active.iter().filter_map(|p| {
        let ParamClass::Slice = p.class else {
            return None;
        };
        let name = p.name.as_ref()?;
        let adjoint = p.adjoint_ident()?;
        let (name_str, adjoint_str) = (name.to_string(), adjoint.to_string());
        Some(quote! {
            ::autograd::__private::check_adjoint_len(
                #fn_name, #adjoint_str, #adjoint.len(), #name_str, #name.len(),
            );
        })
    });
    let adjoint_doc = format!(
        " Vector-Jacobian product of `{f}`, generated by `#[differentiable]`: returns the \
         value of `{f}` and adds `d_outᵀ · ∂{f}/∂p` into the `d_` argument of each of \
         {active_list} (reverse mode; `d_out` must have one entry per output)."
    );
    let d_out_str = d_out.to_string();
    let adjoint = quote! {
        #[doc = #adjoint_doc]
        #(#attrs)*
        #allow
        #vis fn #adjoint_name(#(#inputs,)* #d_out: &[f64], #(#slots),*) -> #ret {
            #(#checks)*
            #value_of_f
            ::autograd::__private::check_output_len(#fn_name, #d_out_str, #d_out.len(), #value.len());
            {
                let #w: &[f64] = #d_out;
                let #d_out = 1.0_f64;
                let _ = { #body };
            }
            #value
        }
    };

    // f_jacobian
    let jacobian_name = format_ident!("{}_jacobian", f, span = f.span());
    let (m, n, jac) = (
        names.fresh("__ad_m"),
        names.fresh("__ad_n"),
        names.fresh("__ad_jac"),
    );
    let (rows, dir, i, rest) = (
        names.fresh("__ad_rows"),
        names.fresh("__ad_dir"),
        names.fresh("__ad_i"),
        names.fresh("__ad_rest"),
    );
    let mut sizes = Vec::new();
    let mut per_row = Vec::new();
    for p in &active {
        let (Some(name), Some(d)) = (&p.name, p.adjoint_ident()) else {
            continue;
        };
        match &p.class {
            ParamClass::Scalar => {
                sizes.push(quote!(1));
                let cell = names.fresh_for("__ad_cell_", name);
                per_row.push(quote! {
                    let (#cell, #rest) = #rest.split_at_mut(1);
                    let #d: &mut f64 = &mut #cell[0];
                });
            }
            ParamClass::Slice => {
                sizes.push(quote!(#name.len()));
                per_row.push(quote! {
                    let (#d, #rest) = #rest.split_at_mut(#name.len());
                });
            }
            ParamClass::Array { len, .. } => {
                sizes.push(quote!((#len)));
                per_row.push(quote! {
                    let (#d, #rest) = #rest.split_at_mut(#len);
                    let #d: &mut [f64; #len] = ::autograd::__private::dual::as_array_mut(#d);
                });
            }
            ParamClass::Constant => {}
        }
    }
    if sizes.is_empty() {
        sizes.push(quote!(0));
    }
    let jacobian_doc = format!(
        " The value of `{f}` and its Jacobian with respect to {active_list}, generated by \
         `#[differentiable]`: `m × n`, row-major, row `i` the gradient of output `i` over \
         the differentiated floats flattened in parameter order. Computed by rows, in \
         reverse mode: one adjoint sweep per output (the cheaper order when outputs are \
         fewer than inputs, as for residuals of a few parameters it is `m` gradients)."
    );
    let jacobian = quote! {
        #[doc = #jacobian_doc]
        #(#attrs)*
        #allow
        #vis fn #jacobian_name(#(#inputs),*) -> (#ret, ::std::vec::Vec<f64>) {
            #value_of_f
            let #m: usize = #value.len();
            let #n: usize = #(#sizes)+*;
            let mut #jac: ::std::vec::Vec<f64> = ::autograd::__private::zeros(#m * #n + #m);
            {
                let (#rows, #dir) = #jac.split_at_mut(#m * #n);
                for #i in 0..#m {
                    ::autograd::__private::dual::unit(#dir, #i);
                    let #rest = &mut #rows[#i * #n..(#i + 1) * #n];
                    #(#per_row)*
                    let #w: &[f64] = &*#dir;
                    let #d_out = 1.0_f64;
                    let _ = { #body };
                }
            }
            #jac.truncate(#m * #n);
            (#value, #jac)
        }
    };
    Some(quote! {
        #[allow(dead_code)]
        #item
        #jacobian
        #adjoint
    })
}

/// The errors, the original function, and stand-ins for `f_jacobian` and
/// `f_adjoint` (no secondary errors at their calls).
fn refuse(item: &syn::ItemFn, error: syn::Error) -> TokenStream {
    let errors = error.into_compile_error();
    let f = &item.sig.ident;
    let vis = &item.vis;
    let inputs = item.sig.inputs.iter();
    let inputs2 = item.sig.inputs.iter();
    let ret = match &item.sig.output {
        ReturnType::Type(_, ty) => ty.to_token_stream(),
        ReturnType::Default => quote!(()),
    };
    let jacobian = format_ident!("{}_jacobian", f, span = f.span());
    let adjoint = names::adjoint_fn(f);
    let allow = allow_lints();
    quote! {
        #errors
        #item
        #[doc(hidden)]
        #allow
        #vis fn #jacobian(#(#inputs),*) -> (#ret, ::std::vec::Vec<f64>) { ::core::unreachable!() }
        #[doc(hidden)]
        #allow
        #vis fn #adjoint(#(#inputs2,)* d_out: &[f64]) -> #ret { ::core::unreachable!() }
    }
}
