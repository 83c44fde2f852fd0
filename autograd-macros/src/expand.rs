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
    // (warnings at parameters that are constants though they look
    // differentiable, whatever else the expansion reports)
    let warnings = syn::parse2::<Args>(attr.clone())
        .map(|args| signature::warnings(&item.sig, &args))
        .unwrap_or_default();
    if let Some(returned) = crate::vector::returned_vector(&item.sig) {
        let returned = returned.clone();
        let expansion = crate::vector::expand(attr, item, returned);
        return quote::quote!(#expansion #warnings);
    }
    let cx = Ctxt::new();
    let names = Names::new(&item);
    let args = syn::parse2::<Args>(attr).unwrap_or_else(|err| {
        cx.syn_error(err);
        Args::default()
    });
    let sig = signature::analyze(&cx, &item.sig, &args, &names);
    let func = lower::lower(&cx, &sig, &item, &names);
    // (the analyses run on a body lowered without errors)
    let activity = (cx.error_count() == 0).then(|| {
        let activity = activity::analyze(&func);
        activity::refuse_changes_by_calls(&cx, &func, &activity);
        activity
    });
    let expansion = match cx.check() {
        Ok(()) => {
            let activity = activity.unwrap_or_else(|| activity::analyze(&func));
            emit::emit(&item, &sig, &func, &activity, &names)
        }
        Err(error) => fallback::emit(&item, &sig, error),
    };
    quote::quote!(#expansion #warnings)
}
