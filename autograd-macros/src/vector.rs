//! Vector-valued functions: `fn r(..) -> [f64; M]` or `-> Vec<f64>` (API.md
//! §4) get `r_adjoint`, the vector-Jacobian product, and `r_jacobian`,
//! instead of `r_grad`.
//!
//! Both are built on the scalar function `dᵀ r(..)`: the body with each
//! returned vector `v` bound to a local (`let __ad_out = v;`) and replaced
//! by `Σ_i d[i] · __ad_out[i]` (a new constant parameter `d`), which is
//! lowered once and goes through the ordinary pipeline. Its adjoint at
//! `d_out = 1` adds `dᵀ ∂r/∂p` into each `d_<p>`: with `d` the caller's
//! `d_out` that is `r_adjoint`; with `d` the `i`-th unit vector, row `i` of
//! the Jacobian (rows by reverse mode: `m` adjoint sweeps).
//!
//! Columns by forward mode: `forward::emit_jvp` runs over the same lowered
//! function with a direction for every active parameter, and at each
//! `__ad_out` hands that vector's tangent `J·dir` to the caller and returns
//! (what follows, `dᵀ r`, is never run). With `dir = e_j` that is column
//! `j`: `n` forward sweeps. `r_jacobian` takes columns when `n ≤ m` (a
//! forward sweep costs no more than a reverse one: no tape, no replay),
//! rows otherwise; at compile time when the types say both counts (scalars,
//! `[f64; N]` and a `[f64; M]` result with literal lengths), else at run
//! time, both ways emitted. Where forward mode does not apply to the body
//! (`emit_jvp` gives `None`), rows. The rustdoc of `r_jacobian` says which.
//!
//! The scalar function's adjoint, the forward-mode item and a copy of `r`
//! (for the value) are items nested in `r_adjoint` and `r_jacobian`, so
//! nothing new is visible in the user's scope. A method (`&self`) cannot
//! nest them (a nested item has no `self`): its helpers are hidden
//! associated functions beside it, named after it
//! (`__ad_weighted_r_adjoint`, `__ad_jvp_r`), called as `Self::..(self,
//! ..)`, and its value is `Self::r(self, ..)` itself.
//!
//! Every vector-valued function also gets the hidden `r_hvp_adjoint` that
//! `#[differentiable(hessian)]` callers call (see [`hvp_adjoint`]).

use crate::attr::Args;
use crate::ctxt::Ctxt;
use crate::emit;
use crate::names::Names;
use crate::signature::{self, ParamClass};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{Expr, FnArg, Pat, ReturnType, Type};

/// A parameter type that is certainly `Copy`, so passed on as it is to
/// several calls: a reference, a primitive number, `bool`, `char`, or an
/// array of one of those. (Any other is cloned for each call.)
fn known_copy(ty: &Type) -> bool {
    match ty {
        Type::Reference(r) => r.mutability.is_none(),
        Type::Array(a) => known_copy(&a.elem),
        Type::Paren(p) => known_copy(&p.elem),
        Type::Path(p) if p.qself.is_none() => p.path.get_ident().is_some_and(|i| {
            [
                "f64", "f32", "usize", "isize", "u8", "u16", "u32", "u64", "u128", "i8", "i16",
                "i32", "i64", "i128", "bool", "char",
            ]
            .contains(&i.to_string().as_str())
        }),
        _ => false,
    }
}

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
             vector gets `_jacobian` and a vector-Jacobian `_adjoint`, and \
             `#[differentiable(hessian)]` functions may call it without `hessian`",
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
        if receiver.reference.is_none() {
            cx.error_spanned_by(
                receiver,
                "a method returning a vector takes `&self` (its Jacobian calls it once per \
                 row or column)",
            );
        }
    }
    // The arguments of the calls `f_jacobian` and `f_adjoint` make of the
    // function and its adjoints, several each: a parameter taken by value
    // is cloned for each (a `Copy` one copied; an owned `Vec` or struct of
    // constant data would be moved by the first call: E0382 until
    // 2026-11-29), a reference passed on.
    let mut arg_names: Vec<TokenStream> = Vec::new();
    for input in &item.sig.inputs {
        if let FnArg::Typed(pt) = input {
            match &*pt.pat {
                Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                    let name = &p.ident;
                    arg_names.push(match known_copy(&pt.ty) {
                        true => quote!(#name),
                        false => quote!(::core::clone::Clone::clone(&#name)),
                    })
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
    let plain = f.to_string();
    let plain = plain.trim_start_matches("r#");
    // A method's helpers are hidden associated functions beside it (a
    // nested item cannot take `self`), named after it; a function's are
    // nested in the items that call them.
    let is_method = item.sig.receiver().is_some();
    let weights = names.fresh("__ad_d");
    let sum = if is_method {
        names.fresh(&format!("__ad_weighted_{plain}"))
    } else {
        names.fresh("__ad_weighted")
    };
    let primal = names.fresh("__ad_value_of");
    let (self_arg, path) = if is_method {
        (quote!(self,), quote!(Self::))
    } else {
        (quote!(), quote!())
    };
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
        outputs: Vec::new(),
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
    let outputs = dot.outputs;
    let wrt: Vec<syn::Ident> = active.iter().filter_map(|p| p.name.clone()).collect();

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

    let hvp_stand_in = {
        let name = format_ident!("{}_hvp_adjoint", f, span = f.span());
        let returned_dual = crate::emit::second::f64_to_dual(quote!(#returned));
        let count = item.sig.inputs.len() + 1;
        let generics: Vec<syn::Ident> = (0..count).map(|k| format_ident!("__AdP{}", k)).collect();
        let args: Vec<syn::Ident> = (0..count).map(|k| format_ident!("__ad_arg{}", k)).collect();
        quote! {
            #[doc(hidden)]
            #(#inherited)*
            #lints
            #vis fn #name<#(#generics),*>(#(#args: #generics),*) -> #returned_dual {
                ::core::unreachable!()
            }
        }
    };
    // The scalar function, lowered once: its errors are the body's.
    let first = match Lowered::new(&weighted, &wrt, false) {
        Ok(lowered) => lowered,
        Err(errors) => {
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
                #hvp_stand_in
            };
        }
    };
    let sum_adjoint = format_ident!("{}_adjoint", sum);
    // The adjoint of `dᵀ f` hands out the vector its forward code binds
    // (`emit::Keep`), into a last parameter `slot: &mut Option<R>`, when
    // the value bound is the value returned: `f_adjoint` then runs `f`'s
    // forward once, not once for its value and again in that adjoint.
    let slot = names.fresh("__ad_value_slot");
    let adjoint_name_str = adjoint_name.to_string();
    let keeps_value = emit::Keep::applies(&first.func, &outputs);
    let weighted_adjoint = if keeps_value {
        let mut keeping = weighted.clone();
        keeping
            .sig
            .inputs
            .push(syn::parse_quote!(#slot: &mut ::core::option::Option<#returned>));
        let keep = emit::Keep {
            outputs: &outputs,
            slot: &slot,
            weights: &weights,
            adjoint: &adjoint_name_str,
            d_out: &sig.d_out,
            is_vec: !matches!(returned, Type::Array(_)),
        };
        emit::adjoint_item(
            &keeping,
            &first.sig,
            &first.func,
            &first.activity,
            &first.names,
            Some(&keep),
        )
    } else {
        emit::adjoint_item(
            &weighted,
            &first.sig,
            &first.func,
            &first.activity,
            &first.names,
            None,
        )
    };
    // What the calls of it pass for the slot.
    let kept = names.fresh("__ad_kept");
    let slot_arg = keeps_value.then(|| quote!(&mut #kept,));

    let mut value_of = item.clone();
    value_of.attrs.clear();
    value_of.vis = syn::Visibility::Inherited;
    value_of.sig.ident = primal.clone();
    // The value: `f` itself for a method, else a copy of it.
    let (value_of, value_fn) = if is_method {
        (TokenStream::new(), quote!(Self::#f))
    } else {
        (
            quote! {
                #[allow(clippy::all, clippy::pedantic)]
                #value_of
            },
            quote!(#primal),
        )
    };
    let mut siblings = Vec::new();
    let weighted_adjoint = if is_method {
        siblings.push(quote!(#[doc(hidden)] #weighted_adjoint));
        TokenStream::new()
    } else {
        weighted_adjoint
    };

    let fn_name = f.to_string();
    let active_list = active
        .iter()
        .filter_map(|p| p.name.as_ref().map(|n| format!("`{n}`")))
        .collect::<Vec<_>>()
        .join(", ");
    let adjoint_doc = format!(
        "Vector-Jacobian product of `{fn_name}`, generated by `#[differentiable]`: returns \
         the value of `{fn_name}` and adds `{d_out}ᵀ · ∂{fn_name}/∂p` into the `d_` argument of \
         each of {active_list} (`{d_out}` has one entry per output; another length panics). \
         One reverse sweep."
    );

    // ----- the Jacobian by columns: forward mode along unit directions ----
    let jvp_base = if is_method {
        format!("__ad_jvp_{plain}")
    } else {
        "__ad_jvp".to_string()
    };
    let columns = Columns::new(&weighted, &first, &outputs, &jvp_base);
    let shapes = (active_len(&active), returned_len(&returned));
    let mode = match (&columns, shapes) {
        (None, _) => Mode::Rows,
        (Some(_), (Some(n), Some(m))) if n <= m => Mode::Columns,
        (Some(_), (Some(_), Some(_))) => Mode::Rows,
        (Some(_), _) => Mode::Either,
    };

    let (jacobian, i, n, m) = (
        names.fresh("__ad_jacobian"),
        names.fresh("__ad_i"),
        names.fresh("__ad_n"),
        names.fresh("__ad_m"),
    );
    let lengths: Vec<TokenStream> = active.iter().map(|p| param_len(p)).collect();

    // By rows: one weighted adjoint per row along the unit vector `e_i`
    // (kept in the result's spare capacity), its `d_` slots the row's parts.
    let rows_code = || {
        let (rows, unit, row) = (
            names.fresh("__ad_rows"),
            names.fresh("__ad_unit"),
            names.fresh("__ad_row"),
        );
        let mut splits = Vec::new();
        let mut row_slots = Vec::new();
        for p in &active {
            let name = p.name.as_ref().expect("active parameters are named");
            let part = format_ident!("{}", names.fresh(&format!("__ad_part_{name}")));
            let len = param_len(p);
            splits.push(quote! {
                let (#part, #row) = #row.split_at_mut(#len);
            });
            row_slots.push(match &p.class {
                ParamClass::Scalar | ParamClass::Constant => quote!(&mut #part[0]),
                ParamClass::Slice => quote!(#part),
                ParamClass::Array { .. } => quote! {
                    ::autograd::__private::dual::as_array_mut(#part)
                },
            });
        }
        let declare_kept =
            keeps_value.then(|| quote!(let mut #kept = ::core::option::Option::None;));
        quote! {
            let mut #jacobian = ::autograd::__private::zeros(#m * #n + #m);
            {
                #declare_kept
                let (#rows, #unit) = #jacobian.split_at_mut(#m * #n);
                for #i in 0..#m {
                    #unit[#i] = 1.0;
                    let #row = &mut #rows[#i * #n..(#i + 1) * #n];
                    #(#splits)*
                    #path #sum_adjoint(
                        #self_arg
                        #(#arg_names,)*
                        &*#unit,
                        #slot_arg
                        1.0_f64,
                        #(#row_slots),*
                    );
                    #unit[#i] = 0.0;
                }
            }
            #jacobian.truncate(#m * #n);
        }
    };
    let columns_code = |columns: &Columns| {
        let (cols, dir, rest, scratch) = (
            names.fresh("__ad_columns"),
            names.fresh("__ad_dir"),
            names.fresh("__ad_rest"),
            names.fresh("__ad_scratch"),
        );
        let mut splits = Vec::new();
        let mut directions = Vec::new();
        for p in &active {
            let name = p.name.as_ref().expect("active parameters are named");
            let part = format_ident!("{}", names.fresh(&format!("__ad_dir_{name}")));
            splits.push(match &p.class {
                ParamClass::Scalar | ParamClass::Constant => quote! {
                    let #part: f64 = #rest[0];
                    let #rest = &#rest[1..];
                },
                ParamClass::Slice => quote! {
                    let (#part, #rest) = #rest.split_at(#name.len());
                },
                ParamClass::Array { len, by_value } => {
                    let conversion = if *by_value {
                        quote!(let #part: [f64; #len] = *::autograd::__private::dual::as_array(#part);)
                    } else {
                        quote!(let #part: &[f64; #len] = ::autograd::__private::dual::as_array(#part);)
                    };
                    quote! {
                        let (#part, #rest) = #rest.split_at(#len);
                        #conversion
                    }
                }
            });
            directions.push(part);
        }
        let jvp = &columns.name;
        quote! {
            // The directions and the callees' gradient slots live in the
            // result's spare capacity.
            let mut #jacobian = ::autograd::__private::zeros(#m * #n + 2 * #n);
            {
                let (#cols, #dir) = #jacobian.split_at_mut(#m * #n);
                let (#dir, #scratch) = #dir.split_at_mut(#n);
                for #i in 0..#n {
                    #dir[#i] = 1.0;
                    {
                        let #rest: &[f64] = &*#dir;
                        #(#splits)*
                        #path #jvp(
                            #self_arg
                            #(#arg_names,)*
                            &#value[..],
                            #(#directions,)*
                            &mut *#cols,
                            #n,
                            #i,
                            &mut *#scratch,
                        );
                    }
                    #dir[#i] = 0.0;
                }
            }
            #jacobian.truncate(#m * #n);
        }
    };
    let (strategy_doc, nested, body) = match (&mode, &columns) {
        (Mode::Columns, Some(columns)) => (
            "Computed by columns in forward mode (one forward sweep per active float: \
             there are no more of them than outputs)"
                .to_string(),
            columns.item.clone(),
            columns_code(columns),
        ),
        (Mode::Either, Some(columns)) => {
            let (by_rows, by_columns) = (rows_code(), columns_code(columns));
            let jvp_item = &columns.item;
            (
                "Computed by columns in forward mode (one forward sweep per active float) \
                 when there are no more active floats than outputs, `n ≤ m` (a tall \
                 Jacobian: residuals of many data points in few parameters), else by rows \
                 in reverse mode (one adjoint sweep per output); the choice is made at run \
                 time"
                    .to_string(),
                quote!(#weighted_adjoint #jvp_item),
                quote! {
                    let #jacobian = if #n <= #m {
                        #by_columns
                        #jacobian
                    } else {
                        #by_rows
                        #jacobian
                    };
                },
            )
        }
        _ => (
            if columns.is_some() {
                "Computed by rows in reverse mode (one adjoint sweep per output: there are \
                 fewer outputs than active floats)"
                    .to_string()
            } else {
                "Computed by rows in reverse mode (one adjoint sweep per output; columns \
                 in forward mode do not apply to this body: it passes a varying array to a \
                 call, calls a vector-valued function, or writes into a parameter array)"
                    .to_string()
            },
            weighted_adjoint.clone(),
            rows_code(),
        ),
    };
    let nested = if is_method {
        siblings.push(nested);
        TokenStream::new()
    } else {
        nested
    };
    let jacobian_doc = format!(
        "The value of `{fn_name}` and its Jacobian, generated by `#[differentiable]`: \
         row-major `m × n`, one row per output, one column per active float ({active_list}, \
         flattened in parameter order). {strategy_doc}. Allocates only the returned \
         buffers and what `{fn_name}` itself allocates."
    );
    let active_items = emit::active_const(&item, &sig);
    let hvp_adjoint = hvp_adjoint(&HvpInputs {
        item: &item,
        sig: &sig,
        names: &names,
        weighted: &weighted,
        wrt: &wrt,
        weights: &weights,
        returned: &returned,
        value_of: &value_of,
        value_fn: &value_fn,
    });
    let (hvp_adjoint, hvp_siblings) = hvp_adjoint;
    let adjoint_body = if keeps_value {
        quote! {
            #weighted_adjoint
            let mut #kept = ::core::option::Option::None;
            #path #sum_adjoint(
                #self_arg #(#arg_names,)* #d_out, &mut #kept, 1.0_f64, #(#slot_names),*
            );
            ::autograd::__private::kept(#kept)
        }
    } else {
        quote! {
            #value_of
            #weighted_adjoint
            let #value = #value_fn(#self_arg #(#arg_names),*);
            ::autograd::__private::check_output_len(
                #adjoint_name_str,
                stringify!(#d_out),
                #d_out.len(),
                #value.len(),
            );
            #path #sum_adjoint(#self_arg #(#arg_names,)* #d_out, 1.0_f64, #(#slot_names),*);
            #value
        }
    };
    quote! {
        #[allow(dead_code)]
        #item
        #active_items
        #hvp_adjoint
        #hvp_siblings
        #(#siblings)*

        #[doc = #adjoint_doc]
        #(#inherited)*
        #lints
        #vis fn #adjoint_name(#params, #d_out: &[f64], #(#slots),*) -> #returned {
            #adjoint_body
        }

        #[doc = #jacobian_doc]
        #(#inherited)*
        #lints
        #vis fn #jacobian_name(#params) -> (#returned, ::std::vec::Vec<f64>) {
            #value_of
            #nested
            let #value = #value_fn(#self_arg #(#arg_names),*);
            let #m = #value.len();
            let #n: usize = 0 #(+ #lengths)*;
            #body
            (#value, #jacobian)
        }
    }
}

/// How `f_jacobian` is computed.
enum Mode {
    /// One reverse sweep per output.
    Rows,
    /// One forward sweep per active float.
    Columns,
    /// Whichever is cheaper, at run time.
    Either,
}

/// The number of floats of an active parameter, as an expression.
fn param_len(p: &signature::Param) -> TokenStream {
    let name = p.name.as_ref();
    match &p.class {
        ParamClass::Scalar | ParamClass::Constant => quote!(1usize),
        ParamClass::Slice => quote!(#name.len()),
        ParamClass::Array { len, .. } => quote!((#len)),
    }
}

/// An integer literal's value.
fn literal(expr: &syn::Expr) -> Option<u128> {
    match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(int),
            ..
        }) => int.base10_parse().ok(),
        syn::Expr::Paren(p) => literal(&p.expr),
        syn::Expr::Group(g) => literal(&g.expr),
        _ => None,
    }
}

/// The number of active floats, when the signature says it (scalars and
/// arrays of literal length).
fn active_len(active: &[&signature::Param]) -> Option<u128> {
    active.iter().try_fold(0u128, |n, p| match &p.class {
        ParamClass::Scalar => Some(n + 1),
        ParamClass::Array { len, .. } => Some(n + literal(len)?),
        _ => None,
    })
}

/// The number of outputs, when the return type says it (`[f64; 3]`).
fn returned_len(returned: &Type) -> Option<u128> {
    match returned {
        Type::Array(array) => literal(&array.len),
        Type::Group(g) => returned_len(&g.elem),
        Type::Paren(p) => returned_len(&p.elem),
        _ => None,
    }
}

/// The scalar function `dᵀ f`, lowered and analysed.
struct Lowered {
    sig: signature::Signature,
    func: crate::ir::Func,
    activity: crate::activity::Activity,
    names: Names,
}

impl Lowered {
    /// Lowers `weighted` with `wrt` active (and `hessian`); its errors, if
    /// any, as tokens.
    fn new(
        weighted: &syn::ItemFn,
        wrt: &[syn::Ident],
        hessian: bool,
    ) -> Result<Lowered, TokenStream> {
        let cx = Ctxt::new();
        let names = Names::new(weighted);
        let args = Args {
            wrt: Some((proc_macro2::Span::call_site(), wrt.to_vec())),
            hessian,
        };
        let sig = signature::analyze(&cx, &weighted.sig, &args, &names);
        let func = crate::lower::lower(&cx, &sig, weighted, &names);
        cx.check().map_err(syn::Error::into_compile_error)?;
        let activity = crate::activity::analyze(&func);
        Ok(Lowered {
            sig,
            func,
            activity,
            names,
        })
    }
}

/// The Jacobian-vector product `__ad_jvp(<f's params>, d, <directions>,
/// columns, n, j)`, a nested item that writes `J·dir` into column `j` of
/// `columns` (forward mode over `dᵀ f`, returning where `f` returns:
/// `d` is never read), if forward mode applies to the body.
struct Columns {
    name: syn::Ident,
    item: TokenStream,
}

impl Columns {
    fn new(
        weighted: &syn::ItemFn,
        lowered: &Lowered,
        outputs: &[syn::Ident],
        base: &str,
    ) -> Option<Columns> {
        let names = &lowered.names;
        let (cols, n, j, scratch) = (
            names.fresh("__ad_columns"),
            names.fresh("__ad_n"),
            names.fresh("__ad_j"),
            names.fresh("__ad_scratch"),
        );
        let mut directions = std::collections::HashMap::new();
        let mut params = Vec::new();
        for (index, p) in lowered.sig.params.iter().enumerate() {
            let (true, Some(name)) = (p.active, &p.name) else {
                continue;
            };
            let direction = names.fresh_for("__ad_dir_", name);
            let ty = match &p.class {
                ParamClass::Scalar | ParamClass::Constant => quote!(f64),
                ParamClass::Slice => quote!(&[f64]),
                ParamClass::Array {
                    len,
                    by_value: true,
                } => quote!([f64; #len]),
                ParamClass::Array { len, .. } => quote!(&[f64; #len]),
            };
            params.push(quote!(#direction: #ty));
            directions.insert(index, direction);
        }
        let sink = |tangent: TokenStream| quote!(::autograd::__private::jacobian_column(#cols, #n, #j, #tangent););
        let jvp = crate::emit::forward::Jvp {
            directions,
            outputs,
            sink: &sink,
            scratch: scratch.clone(),
        };
        let body = crate::emit::forward::emit_jvp(
            &lowered.sig,
            &lowered.func,
            &lowered.activity,
            names,
            &jvp,
        )?;
        let name = names.fresh(base);
        let inputs = &weighted.sig.inputs;
        let lints = emit::allow_lints();
        let item = quote! {
            #lints
            fn #name(
                #inputs,
                #(#params,)*
                #cols: &mut [f64],
                #n: usize,
                #j: usize,
                #scratch: &mut [f64],
            ) {
                let _: f64 = { #body };
            }
        };
        Some(Columns { name, item })
    }
}

/// Rewrites each returned vector `v` (the tail, `return v`) into `Σ_i
/// d[i] · v[i]`.
struct Dot<'a> {
    weights: &'a syn::Ident,
    names: &'a Names,
    /// For each returned vector, in order, the local it is bound to
    /// (`__ad_out`), or, for a local returned by name, the accumulator of
    /// its weighted sum (`__ad_s`, see `emit::summed_array`).
    outputs: Vec<syn::Ident>,
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
            // A local returned by name is summed where it is: no copy of it
            // and no adjoint of the copy (two allocations a call for a `Vec`);
            // the sum's accumulator stands for it (`emit::summed_array`).
            Expr::Path(path) if path.qself.is_none() && path.path.get_ident().is_some() => {
                let local = path.path.get_ident().cloned().expect("checked");
                let (k, s) = (self.names.fresh("__ad_k"), self.names.fresh("__ad_s"));
                self.outputs.push(s.clone());
                let weights = self.weights;
                let span = local.span();
                *expr = syn::parse_quote_spanned! {span=> {
                    let mut #s = 0.0_f64;
                    for #k in 0..#local.len() {
                        #s += #weights[#k] * #local[#k];
                    }
                    #s
                }};
            }
            // A vector lowered into a buffer its elements are stored into
            // after its `let` (`xs.iter().map(..).collect()`, `vec![e; n]`
            // of a value that varies): bound to a local, then summed as
            // one returned by name, so that forward mode hands out the
            // vector once it is filled (handing out the `let`'s zeros gave
            // a zero Jacobian by columns; found 2026-11-28).
            other if filled_after_let(other) => {
                self.visit_expr_mut(other);
                let local = self.names.fresh("__ad_vector");
                let span = other.span();
                let vector = other.clone();
                let mut name: Expr = syn::parse_quote!(#local);
                self.tail(&mut name);
                *other = syn::parse_quote_spanned! {span=> {
                    let #local = #vector;
                    #name
                }};
            }
            other => {
                self.visit_expr_mut(other);
                let (out, k, s) = (
                    self.names.fresh("__ad_out"),
                    self.names.fresh("__ad_k"),
                    self.names.fresh("__ad_s"),
                );
                self.outputs.push(out.clone());
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

/// Is `expr` a vector the lowering builds as zeros, then stores its
/// elements into: a `collect()`, or a fill `[e; n]` / `vec![e; n]` (of a
/// value that varies, over a length the text does not give)?
fn filled_after_let(expr: &Expr) -> bool {
    match crate::lower::strip_parens(expr) {
        Expr::MethodCall(call) => call.method == "collect",
        Expr::Repeat(_) => true,
        Expr::Macro(m) => {
            let fill = |input: syn::parse::ParseStream| {
                input.parse::<Expr>()?;
                input.parse::<syn::Token![;]>()?;
                input.parse::<Expr>()
            };
            m.mac.path.is_ident("vec") && m.mac.parse_body_with(fill).is_ok()
        }
        _ => false,
    }
}

/// What the hidden `f_hvp_adjoint` of a vector-valued function is made of.
struct HvpInputs<'a> {
    item: &'a syn::ItemFn,
    sig: &'a signature::Signature,
    names: &'a Names,
    weighted: &'a syn::ItemFn,
    wrt: &'a [syn::Ident],
    weights: &'a syn::Ident,
    returned: &'a Type,
    value_of: &'a TokenStream,
    /// What computes the value: `f`'s copy, or `Self::f` for a method.
    value_fn: &'a TokenStream,
}

/// The hidden `f_hvp_adjoint` of a vector-valued function, which the
/// second-order body of a `#[differentiable(hessian)]` caller calls
/// (`second.rs`'s convention, with `d_out: &[Dual]`, the adjoint of the
/// returned vector with its tangent, or empty where only the value is
/// wanted; it returns the vector of `Dual`s: values and `J·v`).
///
/// It is the second-order adjoint of `dᵀ f` with `d` differentiated too:
/// the adjoint of `d` is `f`'s value, its tangent `J·v`; the parameters'
/// adjoints get `Jᵀ d` and their tangents `Σ_i d_i H_i v + Jᵀ ḋ`.
///
/// Generated for every vector-valued function (it is generic, so it costs
/// nothing unless called), whose body calls no other function with
/// varying arguments: those calls would need the callees' own
/// `_hvp_adjoint`, which only `hessian` callees have. For such a body,
/// a stand-in whose call is a compile error saying so.
fn hvp_adjoint(input: &HvpInputs) -> (TokenStream, TokenStream) {
    let HvpInputs {
        item,
        sig,
        names,
        weighted,
        wrt,
        weights,
        returned,
        value_of,
        value_fn,
    } = input;
    let is_method = item.sig.receiver().is_some();
    let (self_arg, path) = if is_method {
        (quote!(self,), quote!(Self::))
    } else {
        (quote!(), quote!())
    };
    let f = &item.sig.ident;
    let name = format_ident!("{}_hvp_adjoint", f, span = f.span());
    let dual = quote!(::autograd::__private::Dual);
    let private = quote!(::autograd::__private::dual);
    let returned_dual = crate::emit::second::f64_to_dual(quote!(#returned));
    let vis = &item.vis;
    let attrs = emit::inherited_attrs(item);
    let lints = emit::allow_lints();
    let d_out = &sig.d_out;

    let mut all = wrt.to_vec();
    all.push((*weights).clone());
    let lowered = Lowered::new(weighted, &all, true).ok();
    let refusal = lowered.as_ref().and_then(|l| {
        if calls_with_varying_arguments(&l.func, &l.activity) {
            Some(format!(
                "`{f}` returns a vector and calls another function with arguments that \
                 depend on its differentiated parameters, so a `#[differentiable(hessian)]` \
                 function cannot call it (its second derivatives would need those of its \
                 callees): write the callees' computation into `{f}`'s body, or compute \
                 the vector in the caller"
            ))
        } else {
            crate::emit::second::refusals(&l.sig, &l.func, &l.activity).map(|_| {
                format!(
                    "`{f}` returns a vector and writes into a differentiated parameter \
                     array, so a `#[differentiable(hessian)]` function cannot call it: \
                     copy the array into a local buffer first"
                )
            })
        }
    });
    let Some(lowered) = lowered.filter(|_| refusal.is_none()) else {
        // A stand-in: any call is an error at the call, with this message
        // (a method's from a trait of the runtime: an impl holds no trait).
        let message = refusal.unwrap_or_else(|| format!("`{f}` has errors"));
        let count = item.sig.inputs.len() + usize::from(!is_method);
        let generics: Vec<syn::Ident> = (0..count).map(|k| format_ident!("__AdP{}", k)).collect();
        let args: Vec<syn::Ident> = (0..count).map(|k| format_ident!("__ad_arg{}", k)).collect();
        let (first, rest) = (&generics[0], &generics[1..]);
        let receiver = item.sig.receiver().map(|r| quote!(#r,));
        let (marker, declaration) = if is_method {
            (quote!(#private::VectorCallsOthers), TokenStream::new())
        } else {
            let marker = format_ident!("__AdNoSecondOrder_{}", f);
            (
                quote!(#marker),
                quote! {
                    #[doc(hidden)]
                    #[diagnostic::on_unimplemented(
                        message = #message,
                        label = "a vector-valued function that calls others"
                    )]
                    #[allow(non_camel_case_types)]
                    #vis trait #marker {}
                },
            )
        };
        let stand_in = quote! {
            #declaration
            #[doc(hidden)]
            #(#attrs)*
            #lints
            #vis fn #name<#first: #marker, #(#rest),*>(
                #receiver
                #(#args: #generics),*
            ) -> #returned_dual {
                ::core::unreachable!()
            }
        };
        return (stand_in, TokenStream::new());
    };
    let weighted_hvp = crate::emit::second::hvp_adjoint_item(
        weighted,
        &lowered.sig,
        &lowered.func,
        &lowered.activity,
        &lowered.names,
    );
    let weighted_name = format_ident!("{}_hvp_adjoint", weighted.sig.ident);
    let (nested, siblings) = if is_method {
        (TokenStream::new(), quote!(#[doc(hidden)] #weighted_hvp))
    } else {
        (weighted_hvp, TokenStream::new())
    };

    let lifetime = syn::Lifetime::new("'__ad_a", proc_macro2::Span::call_site());
    let (mut generics, mut inputs, mut prologue) = (Vec::new(), Vec::new(), Vec::new());
    let (mut value_args, mut weighted_args) = (Vec::new(), Vec::new());
    let typed = item.sig.inputs.iter().filter_map(|input| match input {
        FnArg::Typed(pt) => Some(pt),
        FnArg::Receiver(_) => None,
    });
    for (k, (pt, param)) in typed.zip(&sig.params).enumerate() {
        let (ty, generic) = (&pt.ty, format_ident!("__AdP{}", k));
        let Some(p) = &param.name else {
            continue;
        };
        match &param.class {
            ParamClass::Scalar => {
                generics.push(quote!(#generic: #private::ScalarArg<#lifetime>));
                inputs.push(quote!(#p: #generic));
                value_args.push(quote!(#p.v));
                if param.active {
                    let (slot, scratch) = (
                        names.fresh_for("__ad_slot_", p),
                        names.fresh_for("__ad_scratch_", p),
                    );
                    prologue.push(quote! {
                        let (#p, #slot) = #private::ScalarArg::split(#p);
                        let mut #scratch = #dual::constant(0.0);
                        let #slot: &mut #dual = match #slot {
                            ::core::option::Option::Some(slot) => slot,
                            ::core::option::Option::None => &mut #scratch,
                        };
                    });
                    weighted_args.push(quote!((#p, #slot)));
                } else {
                    prologue.push(quote!(let (#p, _) = #private::ScalarArg::split(#p);));
                    weighted_args.push(quote!(#p));
                }
            }
            ParamClass::Slice | ParamClass::Array { .. } => {
                let elem = match &param.class {
                    ParamClass::Array {
                        len,
                        by_value: false,
                    } => quote!(&#lifetime [f64; #len]),
                    ParamClass::Array { len, .. } => quote!([f64; #len]),
                    _ => quote!(&#lifetime [f64]),
                };
                generics.push(quote!(#generic: #private::ArrayArg<#lifetime, #elem>));
                inputs.push(quote!(#p: #generic));
                value_args.push(quote!(#p));
                if param.active {
                    let (v, g, h) = (
                        names.fresh_for("__ad_v_", p),
                        names.fresh_for("__ad_g_", p),
                        names.fresh_for("__ad_h_", p),
                    );
                    prologue.push(quote! {
                        let (#p, #v, #g, #h) = #private::ArrayArg::split(#p);
                    });
                    weighted_args.push(quote!((#p, #v, #g, #h)));
                } else {
                    prologue.push(quote! {
                        let (#p, _, _, _) = #private::ArrayArg::split(#p);
                    });
                    weighted_args.push(quote!(#p));
                }
            }
            ParamClass::Constant => {
                inputs.push(quote!(#p: #ty));
                // (by value: a copy for the first call, moved into the
                // second, as `arg_names` in `expand`)
                value_args.push(match known_copy(ty) {
                    true => quote!(#p),
                    false => quote!(::core::clone::Clone::clone(&#p)),
                });
                weighted_args.push(quote!(#p));
            }
        }
    }
    let (value, dv, dt, gd, hd, k) = (
        names.fresh("__ad_value"),
        names.fresh("__ad_dv"),
        names.fresh("__ad_dt"),
        names.fresh("__ad_gd"),
        names.fresh("__ad_hd"),
        names.fresh("__ad_k"),
    );
    let result = match returned {
        Type::Array(_) => quote!(#private::zip_array(&#value, &#hd[..])),
        _ => quote!(#private::zip_vec(&#value[..], &#hd[..])),
    };
    let name_str = name.to_string();
    let receiver = item.sig.receiver().map(|r| quote!(#r,));
    let function = quote! {
        #[doc(hidden)]
        #(#attrs)*
        #lints
        #vis fn #name<#lifetime, #(#generics),*>(
            #receiver
            #(#inputs,)*
            #d_out: &[#dual],
        ) -> #returned_dual {
            #value_of
            #nested
            #(#prologue)*
            let #value = #value_fn(#self_arg #(#value_args),*);
            let mut #dv = ::autograd::__private::zeros_like(&#value);
            let mut #dt = ::autograd::__private::zeros_like(&#value);
            if !#d_out.is_empty() {
                ::autograd::__private::check_output_len(
                    #name_str,
                    stringify!(#d_out),
                    #d_out.len(),
                    #value.len(),
                );
                for #k in 0..#d_out.len() {
                    #dv[#k] = #d_out[#k].v;
                    #dt[#k] = #d_out[#k].t;
                }
            }
            let mut #gd = ::autograd::__private::zeros_like(&#value);
            let mut #hd = ::autograd::__private::zeros_like(&#value);
            #path #weighted_name(
                #self_arg
                #(#weighted_args,)*
                (&#dv[..], &#dt[..], &mut #gd[..], &mut #hd[..]),
                #dual::constant(1.0),
            );
            #result
        }
    };
    (function, siblings)
}

/// Does the body call a function with an argument that varies?
fn calls_with_varying_arguments(
    func: &crate::ir::Func,
    activity: &crate::activity::Activity,
) -> bool {
    use crate::ir::{CallArg, Operand, Rhs, Stmt};
    let mut found = false;
    func.body.walk(0, &mut |stmt, _| {
        if let Stmt::Let {
            init: Some(Rhs::Call { args, .. }),
            ..
        } = stmt
        {
            found |= args.iter().any(|a| match a {
                CallArg::Float(Operand::Var(v)) => activity.varied(*v),
                CallArg::Array { array, .. } => activity.varied(*array),
                _ => false,
            });
        }
    });
    found
}
