//! Substituting variables in token streams: the one walk every stage uses
//! to rename a variable in code it keeps as tokens (a call's argument, a
//! macro's arguments, a value copied before its loop).
//!
//! An identifier right after a `.` (a field or method, `s.x`, `v.len()`;
//! not the `..` of a range, `a..x`) or a `::` (a path segment, `T::x`)
//! names no variable, and is left as it is whatever it is called: renaming
//! it too made `&ys[cfg.ys..]` name a field `cfg.__ad_values_ys` that
//! `cfg` does not have (a Hessian's local array, 2026-11-29).

use proc_macro2::{Group, Ident, TokenStream, TokenTree};

/// `tokens` with each identifier that names a variable (see the module
/// documentation), inside groups too, replaced by what `replace` gives for
/// it, or kept where it gives `None`.
pub fn substitute(
    tokens: &TokenStream,
    replace: &mut dyn FnMut(&Ident) -> Option<TokenStream>,
) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    let mut out = TokenStream::new();
    for (k, tree) in trees.iter().enumerate() {
        match tree {
            TokenTree::Ident(ident) if !member_or_segment(&trees, k) => match replace(ident) {
                Some(with) => out.extend(with),
                None => out.extend([tree.clone()]),
            },
            TokenTree::Group(group) => {
                let mut new = Group::new(group.delimiter(), substitute(&group.stream(), replace));
                new.set_span(group.span());
                out.extend([TokenTree::Group(new)]);
            }
            other => out.extend([other.clone()]),
        }
    }
    out
}

/// `tokens` with the variable `from` renamed: each identifier that names
/// it (not a field, method or path segment of that name) replaced by what
/// `to` makes of it (the new identifier, with the span its hygiene needs).
pub fn rename(
    tokens: &TokenStream,
    from: &str,
    to: &mut dyn FnMut(&Ident) -> Ident,
) -> TokenStream {
    substitute(tokens, &mut |ident| {
        (ident == from).then(|| TokenTree::Ident(to(ident)).into())
    })
}

/// Whether the identifier at `k` follows a `.` (a field or a method; not
/// the `..` of a range) or a `::` (a path segment), so that it names no
/// variable.
pub fn member_or_segment(trees: &[TokenTree], k: usize) -> bool {
    let punct =
        |at: usize, c: char| matches!(trees.get(at), Some(TokenTree::Punct(p)) if p.as_char() == c);
    let dot = k >= 1 && punct(k - 1, '.') && !(k >= 2 && punct(k - 2, '.'));
    dot || (k >= 2 && punct(k - 1, ':') && punct(k - 2, ':'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::{format_ident, quote};

    fn renamed(tokens: TokenStream) -> String {
        rename(&tokens, "x", &mut |_| format_ident!("y")).to_string()
    }

    #[test]
    fn variables_are_renamed_in_groups_too() {
        assert_eq!(
            renamed(quote!(x + f(x, [x; 2]))),
            quote!(y + f(y, [y; 2])).to_string()
        );
    }

    #[test]
    fn fields_methods_and_path_segments_are_not_variables() {
        assert_eq!(
            renamed(quote!(&x[s.x..T::x + x.x() + x])),
            quote!(&y[s.x..T::x + y.x() + y]).to_string()
        );
    }

    #[test]
    fn a_range_end_is_a_variable() {
        assert_eq!(
            renamed(quote!(a..x + b..=x + ..x)),
            quote!(a..y + b..=y + ..y).to_string()
        );
    }

    #[test]
    fn substitution_may_give_any_tokens() {
        let out = substitute(&quote!(v[i] * s.i), &mut |ident| {
            (ident == "i").then(|| quote!((2 * k + 1)))
        });
        assert_eq!(out.to_string(), quote!(v[(2 * k + 1)] * s.i).to_string());
    }
}
