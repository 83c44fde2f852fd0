//! Vector-valued functions: `fn r(..) -> [f64; M]` or `-> Vec<f64>` (API.md
//! §4) get `r_adjoint`, the vector-Jacobian product, and `r_jacobian`,
//! instead of `r_grad`.
//!
//! Both are built on the scalar function `dᵀ r(..)`: the body with each
//! returned vector `v` replaced by `Σ_i d[i] · v[i]` (a new constant
//! parameter `d`), which goes through the ordinary pipeline. Its adjoint at
//! `d_out = 1` adds `dᵀ ∂r/∂p` into each `d_<p>`: with `d` the caller's
//! `d_out` that is `r_adjoint`; with `d` the `i`-th unit vector, row `i` of
//! the Jacobian. So the Jacobian is computed by rows, in reverse mode: `m`
//! adjoint sweeps for `m` outputs, whatever the number of inputs (columns
//! by forward mode would take `n` sweeps; the generated forward mode only
//! covers one `f64` input, where `m` sweeps are still exact).
//!
//! The scalar function and a copy of `r` (for the value) are items nested
//! in `r_adjoint` and `r_jacobian`, so nothing new is visible in the user's
//! scope; hence methods (`self`) are not supported here yet.

use crate::attr::Args;
use crate::ctxt::Ctxt;
use crate::emit;
use crate::names::Names;
use crate::signature::{self, ParamClass};
use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{Expr, FnArg, Pat, ReturnType, Type};

/// The vector a function returns, if it is one: `[f64; M]` or `Vec<f64>`.
pub fn returned_vector(sig: &syn::Signature) -> Option<&Type> {
    let ReturnType::Type(_, ty) = &sig.output else {
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
            match args.args.first() {
                Some(syn::GenericArgument::Type(elem)) if signature::is_f64(elem) => Some(ty),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Expands `#[differentiable(attr)]` on a vector-valued function.
pub fn expand(attr: TokenStream, item: syn::ItemFn, returned: Type) -> TokenStream {
    let cx = Ctxt::new();
    let names = Names::new(&item);
    if let Some(hessian) = attr
        .clone()
        .into_iter()
        .find(|t| matches!(t, proc_macro2::TokenTree::Ident(i) if i == "hessian"))
    {
        cx.error_spanned_by(
            &hessian,
            "`hessian` is for functions that return one `f64`; a function returning a \
             vector gets `_jacobian` and a vector-Jacobian `_adjoint`",
        );
    }
    let args = syn::parse2::<Args>(attr).unwrap_or_else(|err| {
        cx.syn_error(err);
        Args::default()
    });
    // The parameters, classified as for a scalar function.
    let mut scalar_sig = item.sig.clone();
    scalar_sig.output = syn::parse_quote!(-> f64);
    let sig = signature::analyze(&cx, &scalar_sig, &args, &names);
    if let Some(receiver) = item.sig.receiver() {
        cx.error_spanned_by(
            receiver,
            "a method returning a vector is not supported by `#[differentiable]` yet; \
             make it an associated function taking the value as a parameter, or a free \
             function",
        );
    }
    let mut arg_names = Vec::new();
    for input in &item.sig.inputs {
        if let FnArg::Typed(pt) = input {
            match &*pt.pat {
                Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                    arg_names.push(p.ident.clone())
                }
                other => cx.error_spanned_by(
                    other,
                    "a function returning a vector needs plain parameter names \
                     (`data: (usize, usize)`, not a pattern)",
                ),
            }
        }
    }
    let active: Vec<&signature::Param> = sig.active().collect();
    if active.is_empty() && cx.error_count() == 0 {
        cx.error_spanned_by(
            &item.sig.ident,
            "this function has no float parameter to differentiate: its Jacobian is taken \
             with respect to its `f64`, `&[f64]` and `[f64; N]` parameters (those of \
             `wrt(..)` if given)",
        );
    }
    if let Err(error) = cx.check() {
        let errors = error.into_compile_error();
        return quote!(#errors #[allow(dead_code)] #item);
    }

    let f = &item.sig.ident;
    let weights = names.fresh("__ad_d");
    let sum = names.fresh("__ad_weighted");
    let primal = names.fresh("__ad_value_of");
    let value = names.fresh("__ad_value");
    let d_out = &sig.d_out;

    // `dᵀ r(..)`: a scalar function with `d` as a last, constant parameter.
    let mut weighted = item.clone();
    weighted.attrs.clear();
    weighted.vis = syn::Visibility::Inherited;
    weighted.sig.ident = sum.clone();
    weighted.sig.output = syn::parse_quote!(-> f64);
    weighted
        .sig
        .inputs
        .push(syn::parse_quote!(#weights: &[f64]));
    let mut dot = Dot {
        weights: &weights,
        names: &names,
    };
    let tail = weighted.block.stmts.pop();
    match tail {
        Some(syn::Stmt::Expr(expr, None)) => {
            let mut expr = expr;
            dot.tail(&mut expr);
            for stmt in &mut weighted.block.stmts {
                dot.visit_stmt_mut(stmt);
            }
            weighted.block.stmts.push(syn::Stmt::Expr(expr, None));
        }
        other => {
            weighted.block.stmts.extend(other);
            for stmt in &mut weighted.block.stmts {
                dot.visit_stmt_mut(stmt);
            }
        }
    }
    let wrt: Vec<&syn::Ident> = active.iter().filter_map(|p| p.name.as_ref()).collect();
    let wrt_args = quote!(wrt(#(#wrt),*));
    // The body's errors, reported once (the scalar function is expanded
    // twice, in `r_adjoint` and `r_jacobian`).
    let errors = body_errors(&weighted, &wrt_args);
    let weighted_items = crate::expand::differentiable(wrt_args, weighted.to_token_stream());
    let sum_adjoint = format_ident!("{}_adjoint", sum);

    let mut value_of = item.clone();
    value_of.attrs.clear();
    value_of.vis = syn::Visibility::Inherited;
    value_of.sig.ident = primal.clone();
    let nested = quote! {
        #[allow(clippy::all, clippy::pedantic)]
        #value_of
        #weighted_items
    };

    let vis = &item.vis;
    let inherited = emit::inherited_attrs(&item);
    let lints = emit::allow_lints();
    let params = &item.sig.inputs;
    let slots: Vec<TokenStream> = active
        .iter()
        .map(|p| {
            let name = p.adjoint_ident().expect("active parameters have one");
            let ty = p.adjoint_type();
            quote!(#name: #ty)
        })
        .collect();
    let slot_names: Vec<_> = active.iter().filter_map(|p| p.adjoint_ident()).collect();
    let adjoint_name = format_ident!("{}_adjoint", f);
    let jacobian_name = format_ident!("{}_jacobian", f);
    let fn_name = f.to_string();
    let adjoint_name_str = adjoint_name.to_string();
    let active_list = active
        .iter()
        .filter_map(|p| p.name.as_ref().map(|n| format!("`{n}`")))
        .collect::<Vec<_>>()
        .join(", ");
    let adjoint_doc = format!(
        "Vector-Jacobian product of `{fn_name}`, generated by `#[differentiable]`: returns \
         the value of `{fn_name}` and adds `{d_out}ᵀ · ∂{fn_name}/∂p` into the `d_` argument of \
         each of {active_list} (`{d_out}` has one entry per output; another length panics)."
    );
    let jacobian_doc = format!(
        "The value of `{fn_name}` and its Jacobian, generated by `#[differentiable]`: \
         row-major `m × n`, one row per output, one column per active float ({active_list}, \
         flattened in parameter order). Computed by rows in reverse mode: one adjoint sweep \
         per output."
    );

    // r_jacobian: one weighted adjoint per row, its `d_` slots the row's parts.
    let mut lengths = Vec::new();
    let mut splits = Vec::new();
    let mut row_slots = Vec::new();
    let row = names.fresh("__ad_row");
    for p in &active {
        let name = p.name.as_ref().expect("active parameters are named");
        let part = format_ident!("{}", names.fresh(&format!("__ad_part_{name}")));
        // (an active parameter is never a constant)
        let len = match &p.class {
            ParamClass::Scalar | ParamClass::Constant => quote!(1usize),
            ParamClass::Slice => quote!(#name.len()),
            ParamClass::Array { len, .. } => quote!(#len),
        };
        lengths.push(len.clone());
        splits.push(quote! {
            let (#part, #row) = #row.split_at_mut(#len);
        });
        row_slots.push(match &p.class {
            ParamClass::Scalar | ParamClass::Constant => quote!(&mut #part[0]),
            ParamClass::Slice => quote!(#part),
            ParamClass::Array { .. } => quote! {
                ::core::convert::TryInto::try_into(#part).expect("a row part of the array's length")
            },
        });
    }
    let (jacobian, unit, i, n, m) = (
        names.fresh("__ad_jacobian"),
        names.fresh("__ad_unit"),
        names.fresh("__ad_i"),
        names.fresh("__ad_n"),
        names.fresh("__ad_m"),
    );
    if let Some(errors) = errors {
        // Stand-ins, so that calls to them add no second error.
        let active = emit::active_const(&item, &sig);
        return quote! {
            #errors
            #[allow(dead_code)]
            #item
            #active
            #[doc(hidden)]
            #(#inherited)*
            #lints
            #vis fn #adjoint_name(#params, #d_out: &[f64], #(#slots),*) -> #returned {
                ::core::unreachable!()
            }
            #[doc(hidden)]
            #(#inherited)*
            #lints
            #vis fn #jacobian_name(#params) -> (#returned, ::std::vec::Vec<f64>) {
                ::core::unreachable!()
            }
        };
    }
    let active = emit::active_const(&item, &sig);
    quote! {
        #[allow(dead_code)]
        #item
        #active

        #[doc = #adjoint_doc]
        #(#inherited)*
        #lints
        #vis fn #adjoint_name(#params, #d_out: &[f64], #(#slots),*) -> #returned {
            #nested
            let #value = #primal(#(#arg_names),*);
            ::autograd::__private::check_output_len(
                #adjoint_name_str,
                stringify!(#d_out),
                #d_out.len(),
                #value.len(),
            );
            #sum_adjoint(#(#arg_names,)* #d_out, 1.0_f64, #(#slot_names),*);
            #value
        }

        #[doc = #jacobian_doc]
        #(#inherited)*
        #lints
        #vis fn #jacobian_name(#params) -> (#returned, ::std::vec::Vec<f64>) {
            #nested
            let #value = #primal(#(#arg_names),*);
            let #m = #value.len();
            let #n: usize = 0 #(+ #lengths)*;
            let mut #jacobian = ::std::vec![0.0_f64; #m * #n];
            let mut #unit = ::std::vec![0.0_f64; #m];
            for #i in 0..#m {
                #unit[#i] = 1.0;
                let #row = &mut #jacobian[#i * #n..(#i + 1) * #n];
                #(#splits)*
                #sum_adjoint(#(#arg_names,)* &#unit, 1.0_f64, #(#row_slots),*);
                #unit[#i] = 0.0;
            }
            (#value, #jacobian)
        }
    }
}

/// The errors of the scalar function `weighted` (its lowering's), if any.
fn body_errors(weighted: &syn::ItemFn, wrt: &TokenStream) -> Option<TokenStream> {
    let cx = Ctxt::new();
    let names = Names::new(weighted);
    let args = syn::parse2::<Args>(wrt.clone()).unwrap_or_default();
    let sig = signature::analyze(&cx, &weighted.sig, &args, &names);
    crate::lower::lower(&cx, &sig, weighted, &names);
    cx.check().err().map(syn::Error::into_compile_error)
}

/// Rewrites each returned vector `v` (the tail, `return v`) into `Σ_i
/// d[i] · v[i]`.
struct Dot<'a> {
    weights: &'a syn::Ident,
    names: &'a Names,
}

impl Dot<'_> {
    /// A returned expression: pushed into the branches of an `if`, a block,
    /// a `match`, else replaced by the weighted sum of its elements.
    fn tail(&mut self, expr: &mut Expr) {
        match expr {
            Expr::Block(b) if b.label.is_none() => self.block_tail(&mut b.block),
            Expr::If(ifx) => {
                self.visit_expr_mut(&mut ifx.cond);
                self.block_tail(&mut ifx.then_branch);
                if let Some((_, els)) = &mut ifx.else_branch {
                    self.tail(els);
                }
            }
            Expr::Match(m) => {
                self.visit_expr_mut(&mut m.expr);
                for arm in &mut m.arms {
                    if let Some((_, guard)) = &mut arm.guard {
                        self.visit_expr_mut(guard);
                    }
                    self.tail(&mut arm.body);
                }
            }
            Expr::Paren(p) => self.tail(&mut p.expr),
            other => {
                self.visit_expr_mut(other);
                let (out, k, s) = (
                    self.names.fresh("__ad_out"),
                    self.names.fresh("__ad_k"),
                    self.names.fresh("__ad_s"),
                );
                let weights = self.weights;
                let span = other.span();
                let vector = other.clone();
                *other = syn::parse_quote_spanned! {span=> {
                    let #out = #vector;
                    let mut #s = 0.0_f64;
                    for #k in 0..#out.len() {
                        #s += #weights[#k] * #out[#k];
                    }
                    #s
                }};
            }
        }
    }

    fn block_tail(&mut self, block: &mut syn::Block) {
        let last = block.stmts.len().checked_sub(1);
        for (k, stmt) in block.stmts.iter_mut().enumerate() {
            match stmt {
                syn::Stmt::Expr(expr, None) if Some(k) == last => self.tail(expr),
                other => self.visit_stmt_mut(other),
            }
        }
    }
}

impl VisitMut for Dot<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        match expr {
            Expr::Return(ret) => {
                if let Some(value) = &mut ret.expr {
                    self.tail(value);
                }
            }
            // (a closure's `return` is its own)
            Expr::Closure(_) => {}
            _ => syn::visit_mut::visit_expr_mut(self, expr),
        }
    }
}
