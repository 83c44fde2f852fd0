//! The `#[differentiable]` attribute of [autograd](https://docs.rs/autograd):
//! compile-time reverse-mode automatic differentiation of `f64` functions.
//!
//! Use it through the `autograd` crate, which re-exports it with the runtime
//! its expansions call into; see that crate's documentation for the full
//! description of what is supported.
//!
//! The expansion is a small compiler, one module per stage:
//! [`attr`] parses the arguments, [`signature`] classifies the parameters,
//! [`lower`] turns the body into the [`ir`], [`activity`] finds which values
//! need adjoints, [`undo`] which stores need saving, [`fuse`] which loops
//! are reversed as they run, and [`emit`] writes `f_grad` and `f_adjoint`
//! (its plan, the primal code, the reverse sweep, forward mode when one
//! `f64` parameter is active); every identifier they introduce comes from
//! [`names`]. On error, [`fallback`] emits the errors and the original
//! function.

mod activity;
mod attr;
mod counters;
mod ctxt;
mod emit;
mod expand;
mod fallback;
mod fuse;
mod ir;
mod lower;
mod names;
mod prim;
mod record;
mod signature;
mod tokens;

mod undo;
mod vector;
mod views;

#[cfg(test)]
mod compile_cost_tests;
#[cfg(test)]
mod fuzz_tests;
#[cfg(test)]
mod pipeline_tests;
#[cfg(test)]
mod snapshot_tests;

/// Generates the gradient (`f_grad`) and the reverse-mode adjoint
/// (`f_adjoint`) of an `f64` function. See the `autograd` crate's docs.
#[proc_macro_attribute]
pub fn differentiable(
    attr: proc_macro::TokenStream,
    item: proc_macro::TokenStream,
) -> proc_macro::TokenStream {
    expand::differentiable(attr.into(), item.into()).into()
}
