//! Emission: the IR, with its activity, becomes `f_grad` and `f_adjoint`.
//!
//! One module per concern, each reading the IR and the analyses, none
//! importing another's internals:
//! - [`primal`]: the user's computation, value by value, shared by both
//!   strategies; calls of callees' adjoints; rule partials;
//! - [`plan`]: what the reverse sweep decides before writing anything;
//! - [`reverse`]: the forward sweep with recording, then the reverse sweep;
//! - [`forward`]: forward mode (one active `f64`), one pass with tangents;
//! - this module: which strategy, and the items `f_adjoint` and `f_grad`.
//!
//! Every identifier comes from `crate::names`.

pub(crate) mod forward;
mod plan;
mod primal;
mod reverse;
mod rows;
pub(crate) mod second;

use crate::activity::Activity;
use crate::ir::Func;
use crate::names::{self, Names, Role};
use crate::signature::{ParamClass, Signature};
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

/// Lints that would fire on generated code without being the user's fault.
/// (`arithmetic_overflow` and `unconditional_panic`: in a small nest written
/// out, `lower/unroll.rs`, an index the user's loop computes at run time is
/// computed from literals, and `x[j - 1]` at `j = 0`, which panics at run
/// time as written, would be refused at compile time. Allowed, it panics
/// where the user's function does.)
pub fn allow_lints() -> TokenStream {
    quote! {
        #[allow(
            arithmetic_overflow,
            unconditional_panic,
            dead_code,
            unused_variables,
            unused_mut,
            unused_parens,
            unused_assignments,
            unreachable_code,
            non_snake_case,
            clippy::all,
            clippy::pedantic
        )]
    }
}

/// Attributes of `f` that the generated functions should share.
pub fn inherited_attrs(item: &syn::ItemFn) -> Vec<&syn::Attribute> {
    item.attrs
        .iter()
        .filter(|attr| {
            let path = attr.path();
            ["cfg", "cfg_attr", "allow", "inline", "cold"]
                .iter()
                .any(|name| path.is_ident(name))
                || (path.is_ident("doc") && attr.to_token_stream().to_string().contains("hidden"))
        })
        .collect()
}

/// `f_grad` and `f_adjoint` for `item`.
///
/// A function with one active parameter, an `f64`, is differentiated in
/// forward mode (`forward.rs`) when every construct allows it; any other
/// function, or one that construct refuses, gets the reverse sweep below.
pub fn emit(
    item: &syn::ItemFn,
    sig: &Signature,
    func: &Func,
    activity: &Activity,
    names: &Names,
) -> TokenStream {
    let (body, strategy) = adjoint_body(sig, func, activity, names, None);
    let adjoint = emit_adjoint(item, sig, &body, strategy);
    let grad = emit_grad(item, sig, &body, names);
    let second_order = if sig.hessian {
        if let Some(error) = second::refusals(sig, func, activity) {
            return crate::fallback::emit(item, sig, error);
        }
        second::emit(item, sig, func, activity, names)
    } else {
        TokenStream::new()
    };
    let active = active_const(item, sig);
    quote! {
        #[allow(dead_code)]
        #item
        #grad
        #adjoint
        #second_order
        #active
    }
}

/// For the accumulator `acc` of the weighted sum `Σ d[k]·v[k]` that
/// `vector::Dot` writes for a local `v` returned by name: the array `v`,
/// which the loop after `acc`'s `let` loads (the returned vector as it is
/// returned: nothing runs between). `None` for any other variable, or when
/// that loop reads no local array (a constant returned).
pub fn summed_array(func: &Func, acc: crate::ir::VarId) -> Option<crate::ir::VarId> {
    use crate::ir::{Block, Kind, Rhs, Stmt};
    fn in_block(func: &Func, block: &Block, acc: crate::ir::VarId) -> Option<crate::ir::VarId> {
        let at = block
            .stmts
            .iter()
            .position(|s| matches!(s, Stmt::Let { var, .. } if *var == acc));
        if let Some(at) = at {
            let sum = block.stmts[at + 1..].iter().find_map(|s| match s {
                Stmt::Loop(l) => Some(l),
                _ => None,
            })?;
            return sum.body.stmts.iter().find_map(|s| match s {
                Stmt::Let {
                    init: Some(Rhs::Load { array, .. }),
                    ..
                } if func.vars[*array].kind == Kind::FloatArray => Some(*array),
                _ => None,
            });
        }
        block.stmts.iter().find_map(|s| match s {
            Stmt::If { then_, else_, .. } => {
                in_block(func, then_, acc).or_else(|| in_block(func, else_, acc))
            }
            Stmt::Loop(l) => in_block(func, &l.body, acc),
            _ => None,
        })
    }
    if func.vars[acc].kind != Kind::Float {
        return None;
    }
    in_block(func, &func.body, acc)
}

/// `f_adjoint` alone (what `vector.rs` nests for the scalar `dᵀ f`), with
/// the strategy [`emit`] would pick; under `keep`, its forward code also
/// hands the returned vector out (see [`Keep`]).
pub fn adjoint_item(
    item: &syn::ItemFn,
    sig: &Signature,
    func: &Func,
    activity: &Activity,
    names: &Names,
    keep: Option<&Keep>,
) -> TokenStream {
    let (body, strategy) = adjoint_body(sig, func, activity, names, keep);
    emit_adjoint(item, sig, &body, strategy)
}

/// The body of `f_adjoint` (and `f_grad`) and how it was made: forward
/// mode when `forward.rs` gives one, else the reverse sweep.
fn adjoint_body(
    sig: &Signature,
    func: &Func,
    activity: &Activity,
    names: &Names,
    keep: Option<&Keep>,
) -> (TokenStream, Strategy) {
    match forward::emit(sig, func, activity, names, keep) {
        Some(body) => (body, Strategy::Forward),
        None => (
            reverse::Body::new(sig, func, activity, names, false)
                .keeping(keep)
                .emit(),
            Strategy::Reverse,
        ),
    }
}

/// The returned vector of a vector-valued function, handed out by the
/// adjoint of its scalar `dᵀ f` (`vector.rs`): the forward code that binds
/// it (`let __ad_out = v;`, `vector::Dot`) also moves a copy into the
/// adjoint's parameter `slot: &mut Option<R>`, so `f_adjoint` returns the
/// value its one forward sweep computed instead of running `f` again
/// before it (two runs of `f`'s forward a call, where a hand-written
/// vector-Jacobian product has one).
pub struct Keep<'a> {
    /// The locals each returned vector is bound to (`Dot`'s outputs).
    pub outputs: &'a [proc_macro2::Ident],
    /// The parameter the copy goes into, filled where it is still `None`.
    pub slot: &'a proc_macro2::Ident,
    /// The weights `d` of `dᵀ f`, checked against the vector's length
    /// before the sum reads them.
    pub weights: &'a proc_macro2::Ident,
    /// `f_adjoint`'s name and its `d_out`'s, for that check's message.
    pub adjoint: &'a str,
    pub d_out: &'a proc_macro2::Ident,
    /// The vector is a `Vec<f64>` (else an array).
    pub is_vec: bool,
}

impl Keep<'_> {
    /// Whether every output is bound by a `let` of `func` after which
    /// nothing stores into it, so the copy made there is the value
    /// returned (a `collect` lowered into a buffer is filled after its
    /// `let`: such a function keeps computing its value apart).
    pub fn applies(func: &Func, outputs: &[proc_macro2::Ident]) -> bool {
        use crate::ir::Stmt;
        outputs.iter().all(|out| {
            let mut bound = None;
            let mut stored = false;
            func.body.walk(0, &mut |stmt, _| match stmt {
                Stmt::Let { var, .. } if func.vars[*var].ident == *out => bound = Some(*var),
                Stmt::Store { array, .. } if func.vars[*array].ident == *out => stored = true,
                _ => {}
            });
            // (a local returned by name is copied where its sum starts,
            // after everything that changes it)
            bound.is_some_and(|var| summed_array(func, var).is_some() || !stored)
        })
    }

    /// The statement after `let #ident = ..;` of the output `var`, if it
    /// is one (for the accumulator of a local returned by name, a copy of
    /// that local: `summed_array`).
    pub fn after_let(
        &self,
        func: &Func,
        var: crate::ir::VarId,
        ident: &proc_macro2::Ident,
    ) -> Option<TokenStream> {
        if !self.outputs.contains(&func.vars[var].ident) {
            return None;
        }
        let ident = match summed_array(func, var) {
            Some(array) => &func.vars[array].ident,
            None => ident,
        };
        let Keep {
            slot,
            weights,
            adjoint,
            d_out,
            ..
        } = self;
        let copy = if self.is_vec {
            // (in a spare buffer of the thread: a caller that does not use
            // the value gives it back, `__private::spare_back`)
            quote!(::autograd::__private::spare_copy(&#ident[..]))
        } else {
            quote!(::core::clone::Clone::clone(&#ident))
        };
        Some(quote! {
            if #slot.is_none() {
                ::autograd::__private::check_output_len(
                    #adjoint,
                    stringify!(#d_out),
                    #weights.len(),
                    #ident.len(),
                );
                *#slot = ::core::option::Option::Some(#copy);
            }
        })
    }
}

/// The hidden `const __f_active: &[bool]` beside `f_adjoint`
/// ([`names::active_const`]).
pub fn active_const(item: &syn::ItemFn, sig: &Signature) -> TokenStream {
    let name = names::active_const(&item.sig.ident);
    let flags = sig.params.iter().map(|p| p.active);
    let vis = &item.vis;
    let attrs = inherited_attrs(item)
        .into_iter()
        .filter(|a| a.path().is_ident("cfg") || a.path().is_ident("cfg_attr"));
    quote! {
        #[doc(hidden)]
        #(#attrs)*
        #[allow(non_upper_case_globals, dead_code)]
        #vis const #name: &[bool] = &[#(#flags),*];
    }
}

/// The signature of `f_adjoint`: `f`'s inputs, `d_out`, then one `d_<p>`
/// per active parameter.
pub fn adjoint_signature(item: &syn::ItemFn, sig: &Signature) -> TokenStream {
    let name = names::adjoint_fn(&item.sig.ident);
    let inputs = item.sig.inputs.iter();
    let adjoints = sig.active().map(|p| {
        let (ident, ty) = (p.adjoint_ident(), p.adjoint_type());
        quote!(#ident: #ty)
    });
    let (vis, d_out) = (&item.vis, &sig.d_out);
    let (generics, where_clause) = (&item.sig.generics, &item.sig.generics.where_clause);
    quote! {
        #vis fn #name #generics (#(#inputs,)* #d_out: f64, #(#adjoints),*) -> f64 #where_clause
    }
}

/// The signature of `f_grad`: `f`'s inputs, returning the value and gradient.
pub fn grad_signature(item: &syn::ItemFn, sig: &Signature) -> TokenStream {
    let name = names::grad_fn(&item.sig.ident);
    let inputs = item.sig.inputs.iter();
    let gradient = gradient_type(sig);
    let vis = &item.vis;
    let (generics, where_clause) = (&item.sig.generics, &item.sig.generics.where_clause);
    quote! {
        #vis fn #name #generics (#(#inputs),*) -> (f64, #gradient) #where_clause
    }
}

fn gradient_type(sig: &Signature) -> TokenStream {
    let shapes: Vec<TokenStream> = sig.active().map(|p| p.gradient_type()).collect();
    match shapes.as_slice() {
        [single] => single.clone(),
        many => quote!((#(#many),*)),
    }
}

/// A comma-separated list of the active parameters, for docs.
fn active_list(sig: &Signature) -> String {
    let names: Vec<String> = sig
        .active()
        .filter_map(|p| p.name.as_ref().map(|n| format!("`{n}`")))
        .collect();
    if names.is_empty() {
        "no parameter".to_string()
    } else {
        names.join(", ")
    }
}

/// How the derivative is computed, for the adjoint's doc comment.
#[derive(Clone, Copy)]
enum Strategy {
    Forward,
    Reverse,
}

fn emit_adjoint(
    item: &syn::ItemFn,
    sig: &Signature,
    body: &TokenStream,
    strategy: Strategy,
) -> TokenStream {
    let signature = adjoint_signature(item, sig);
    let attrs = inherited_attrs(item);
    let allow = allow_lints();
    let fn_name = format!("{}_adjoint", item.sig.ident);
    let checks = sig.active().filter_map(|p| {
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
    let doc = match strategy {
        Strategy::Reverse => format!(
            " Reverse-mode adjoint of `{}`, generated by `#[differentiable]`: returns the \
             value of `{}` and adds `d_out` times its partial derivative with respect to \
             each of {} into the matching `d_` argument.",
            item.sig.ident,
            item.sig.ident,
            active_list(sig)
        ),
        Strategy::Forward => format!(
            " Adjoint of `{}`, generated by `#[differentiable]` (computed in forward mode, \
             in one pass): returns the value of `{}` and adds `d_out` times its derivative \
             with respect to {} into the matching `d_` argument.",
            item.sig.ident,
            item.sig.ident,
            active_list(sig)
        ),
    };
    quote! {
        #[doc = #doc]
        #(#attrs)*
        #allow
        #signature {
            #(#checks)*
            #body
        }
    }
}

fn emit_grad(
    item: &syn::ItemFn,
    sig: &Signature,
    body: &TokenStream,
    names: &Names,
) -> TokenStream {
    let signature = grad_signature(item, sig);
    let attrs = inherited_attrs(item);
    let allow = allow_lints();
    let mut buffers = Vec::new();
    let mut results = Vec::new();
    for (index, param) in sig.params.iter().enumerate().filter(|(_, p)| p.active) {
        let (Some(name), Some(adjoint)) = (&param.name, param.adjoint_ident()) else {
            continue;
        };
        let storage = names.derived(Role::Gradient, index, name);
        let (init, ty) = match &param.class {
            ParamClass::Scalar => (quote!(0.0_f64), quote!(&mut f64)),
            ParamClass::Slice => (
                quote!(::autograd::__private::zeros(#name.len())),
                quote!(&mut [f64]),
            ),
            ParamClass::Array { len, .. } => (quote!([0.0_f64; #len]), quote!(&mut [f64; #len])),
            ParamClass::Constant => continue,
        };
        buffers.push(quote! {
            let mut #storage = #init;
            let #adjoint: #ty = &mut #storage;
        });
        results.push(storage);
    }
    let gradient = match results.as_slice() {
        [single] => quote!(#single),
        many => quote!((#(#many),*)),
    };
    let doc = format!(
        " The value of `{}` and its gradient with respect to {}, generated by \
         `#[differentiable]`.",
        item.sig.ident,
        active_list(sig)
    );
    let (d_out, value) = (&sig.d_out, names.fresh("__ad_value"));
    // A method can name its adjoint (`Self::f_adjoint`): call it rather than
    // compile the body twice. A function without `self` may be free or
    // associated, and only one of `f_adjoint` and `Self::f_adjoint` would
    // resolve: it gets the body inline.
    let inputs: Option<Vec<&syn::Ident>> = sig.params.iter().map(|p| p.name.as_ref()).collect();
    let body = match (item.sig.receiver(), inputs) {
        (Some(_), Some(inputs)) => {
            let adjoint = names::adjoint_fn(&item.sig.ident);
            let slots = sig.active().filter_map(|p| p.adjoint_ident());
            quote!(Self::#adjoint(self, #(#inputs,)* #d_out, #(#slots),*))
        }
        _ => body.clone(),
    };
    quote! {
        #[doc = #doc]
        #(#attrs)*
        #allow
        #signature {
            #(#buffers)*
            let #d_out = 1.0_f64;
            let #value = { #body };
            (#value, #gradient)
        }
    }
}
