//! Parsing of the attribute's arguments: `#[differentiable]` or
//! `#[differentiable(wrt(a, b))]`.

use proc_macro2::Span;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Ident, Token};

/// The one argument the attribute takes.
pub const WRT: &str = "wrt";

/// The parsed arguments of `#[differentiable(..)]`.
#[derive(Default)]
pub struct Args {
    /// `wrt(a, b)`: the parameters to differentiate, with the span of `wrt`.
    pub wrt: Option<(Span, Vec<Ident>)>,
    /// `hessian`: also generate `f_hvp` and `f_hessian` (API.md §4).
    pub hessian: bool,
}

/// The flag that adds second-order items.
pub const HESSIAN: &str = "hessian";

impl Parse for Args {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut args = Args::default();
        while !input.is_empty() {
            let key: Ident = input.parse()?;
            if key == HESSIAN {
                if args.hessian {
                    return Err(syn::Error::new(key.span(), "`hessian` is given twice"));
                }
                if input.peek(syn::token::Paren) {
                    return Err(syn::Error::new(
                        key.span(),
                        "`hessian` takes no arguments: write `#[differentiable(hessian)]` \
                         or `#[differentiable(hessian, wrt(x))]`",
                    ));
                }
                args.hessian = true;
                if !input.is_empty() {
                    input.parse::<Token![,]>()?;
                }
                continue;
            }
            if key != WRT {
                let message = if looks_like_wrt(&key.to_string()) {
                    format!(
                        "unknown `#[differentiable]` argument `{key}`: did you mean \
                         `wrt(..)`? It lists the parameters to differentiate"
                    )
                } else {
                    format!(
                        "unknown `#[differentiable]` argument `{key}`: the arguments are \
                         `wrt(param, ...)`, listing the parameters to differentiate, and \
                         `hessian`, adding `f_hvp` and `f_hessian`"
                    )
                };
                return Err(syn::Error::new(key.span(), message));
            }
            if args.wrt.is_some() {
                return Err(syn::Error::new(
                    key.span(),
                    "`wrt` is given twice; list every parameter in one `wrt(..)`",
                ));
            }
            if !input.peek(syn::token::Paren) {
                return Err(syn::Error::new(
                    key.span(),
                    "`wrt` takes a parenthesized list of parameters: `wrt(x, w)`",
                ));
            }
            let content;
            let parens = syn::parenthesized!(content in input);
            let names: Punctuated<Ident, Token![,]> =
                content.parse_terminated(Ident::parse, Token![,])?;
            if names.is_empty() {
                return Err(syn::Error::new(
                    parens.span.join(),
                    "`wrt()` names no parameter; list the parameters to differentiate, \
                     or remove `wrt` to differentiate every float parameter",
                ));
            }
            args.wrt = Some((key.span(), names.into_iter().collect()));
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        Ok(args)
    }
}

/// A misspelling of `wrt` close enough to suggest it (`wtr`, `wrt_`, `with`...).
fn looks_like_wrt(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    let mut sorted: Vec<char> = key.chars().collect();
    sorted.sort_unstable();
    sorted == ['r', 't', 'w'] || key.starts_with("wrt") || key == "with_respect_to" || key == "wr"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(src: &str) -> syn::Result<Args> {
        syn::parse_str(src)
    }

    #[test]
    fn hessian_in_either_order() {
        assert!(parse("hessian").unwrap().hessian);
        let args = parse("hessian, wrt(a)").unwrap();
        assert!(args.hessian && args.wrt.is_some());
        let args = parse("wrt(a), hessian").unwrap();
        assert!(args.hessian && args.wrt.is_some());
        assert!(!parse("wrt(a)").unwrap().hessian);
        assert!(parse("hessian, hessian").is_err());
        assert!(parse("hessian(2)").is_err());
    }

    #[test]
    fn empty_and_wrt() {
        assert!(parse("").unwrap().wrt.is_none());
        let (_, names) = parse("wrt(a, b)").unwrap().wrt.unwrap();
        let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        assert_eq!(names, ["a", "b"]);
    }

    #[test]
    fn misspelt_key_suggests_wrt() {
        let err = parse("wtr(a)").err().unwrap().to_string();
        assert!(err.contains("did you mean `wrt(..)`"), "{err}");
        let err = parse("order(2)").err().unwrap().to_string();
        assert!(
            err.contains("unknown `#[differentiable]` argument `order`"),
            "{err}"
        );
    }

    #[test]
    fn empty_wrt_and_duplicate_wrt_are_refused() {
        assert!(parse("wrt()").is_err());
        assert!(parse("wrt(a), wrt(b)").is_err());
        assert!(parse("wrt").is_err());
    }
}
