//! Error accumulation: every stage reports into one [`Ctxt`] so the user sees
//! all unsupported constructs of a function at once, not just the first.

use proc_macro2::Span;
use quote::ToTokens;
use std::cell::RefCell;
use std::fmt::Display;

/// Collects `syn::Error`s from every stage of the pipeline.
#[derive(Default)]
pub struct Ctxt {
    errors: RefCell<Vec<syn::Error>>,
}

impl Ctxt {
    pub fn new() -> Self {
        Ctxt::default()
    }

    /// Records an error spanned on the tokens of `obj`.
    pub fn error_spanned_by<T: ToTokens>(&self, obj: T, msg: impl Display) {
        self.errors
            .borrow_mut()
            .push(syn::Error::new_spanned(obj.into_token_stream(), msg));
    }

    /// Records an error at `span`.
    pub fn error_at(&self, span: Span, msg: impl Display) {
        self.errors.borrow_mut().push(syn::Error::new(span, msg));
    }

    /// Records an already-built error (for example a parse error).
    pub fn syn_error(&self, err: syn::Error) {
        self.errors.borrow_mut().push(err);
    }

    /// How many errors have been recorded so far.
    pub fn error_count(&self) -> usize {
        self.errors.borrow().len()
    }

    /// Forgets the errors recorded after the first `count` (a stage that
    /// runs again reports its errors again).
    pub fn truncate(&self, count: usize) {
        self.errors.borrow_mut().truncate(count);
    }

    /// All recorded errors folded into one, or `Ok` when there were none.
    pub fn check(self) -> syn::Result<()> {
        let mut errors = self.errors.into_inner().into_iter();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for rest in errors {
            combined.combine(rest);
        }
        Err(combined)
    }
}
