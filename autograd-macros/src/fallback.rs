//! What the macro expands to when the function cannot be differentiated:
//! the errors, the original function unchanged (so its callers still
//! type-check), and stand-ins for `f_grad` and `f_adjoint` (refused
//! parameters taken as constants) so calls to them add no second error.

use crate::emit::{active_const, adjoint_signature, allow_lints, grad_signature, inherited_attrs};
use crate::signature::Signature;
use proc_macro2::TokenStream;
use quote::quote;

pub fn emit(item: &syn::ItemFn, sig: &Signature, error: syn::Error) -> TokenStream {
    let errors = error.into_compile_error();
    let (grad, adjoint) = (grad_signature(item, sig), adjoint_signature(item, sig));
    let attrs = inherited_attrs(item);
    let allow = allow_lints();
    let second_order = crate::emit::second::fallback(item, sig);
    let active = active_const(item, sig);
    quote! {
        #errors
        #item
        #[doc(hidden)]
        #(#attrs)*
        #allow
        #grad { ::core::unreachable!() }
        #[doc(hidden)]
        #(#attrs)*
        #allow
        #adjoint { ::core::unreachable!() }
        #second_order
        #active
    }
}
