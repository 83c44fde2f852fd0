//! The pipeline: parse → check the signature → lower → analyse → emit.

use crate::attr::Args;
use crate::ctxt::Ctxt;
use crate::names::Names;
use crate::{activity, emit, fallback, lower, signature};
use proc_macro2::TokenStream;

/// Expands `#[differentiable(attr)] item`.
pub fn differentiable(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(_) => {
            let error = syn::Error::new_spanned(
                &item,
                "`#[differentiable]` goes on a function (`fn f(x: f64) -> f64 { .. }`)",
            );
            let errors = error.into_compile_error();
            return quote::quote!(#errors #item);
        }
    };
    // `-> [f64; M]` / `-> Vec<f64>`: `f_jacobian` and a vector-Jacobian
    // `f_adjoint`, through the scalar function `w · f` (`vector.rs`).
    if let Some(expansion) = crate::vector::expand(&attr, &item) {
        return expansion;
    }
    let cx = Ctxt::new();
    let names = Names::new(&item);
    let args = syn::parse2::<Args>(attr).unwrap_or_else(|err| {
        cx.syn_error(err);
        Args::default()
    });
    let sig = signature::analyze(&cx, &item.sig, &args, &names);
    let func = lower::lower(&cx, &sig, &item, &names);
    match cx.check() {
        Ok(()) => {
            let activity = activity::analyze(&func);
            emit::emit(&item, &sig, &func, &activity, &names)
        }
        Err(error) => fallback::emit(&item, &sig, error),
    }
}
