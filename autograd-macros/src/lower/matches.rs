//! `match` (on integers, `bool`s, `char`s, floats, constants, enum
//! variants, `Option`s and `Result`s) becomes an `if` / `else if` chain over
//! `matches!` tests of a scrutinee evaluated once:
//!
//! ```text
//! match n { 0 => a, k @ 1..=3 if k != 2 => b, _ => c }
//! // is
//! let m = n;
//! if matches!(m, 0) { a }
//! else if matches!(m, k @ 1..=3) && (m != 2) { let k = m; b }
//! else { c }
//! ```
//!
//! The last arm is the `else` (the `match` is exhaustive, so it matches
//! when no earlier arm did). A tuple written out, `match (a, b) { (p, q)
//! => .. }`, is tested part by part: `let (m1, m2) = (a, b);` and
//! `matches!(m1, p) && matches!(m2, q)`. Arms that bind a name (`k`, `k @ ..`) bind it
//! to the scrutinee in their body; in a guard, the name is the scrutinee.
//! Names inside a variant or struct (`Some(i) if i > 2 => ..`) are bound by
//! `__autograd_unpack!` (`arm_bindings`), the guard going inside
//! `matches!`; the scrutinee of such an arm must not carry a derivative
//! (`check_scrutinee`).

use super::expr::{placeholder, Value};
use super::Lowerer;
use proc_macro2::TokenStream;
use quote::quote;
use syn::visit_mut::VisitMut;
use syn::{parse_quote, Expr, Pat};

impl Lowerer<'_> {
    /// A `match` used as a value.
    pub(super) fn lower_match_value(&mut self, m: &syn::ExprMatch, _whole: &Expr) -> Value {
        let Some((scrutinee, chain)) = self.desugar_match(m, true) else {
            return Value::Const(placeholder());
        };
        let block: Expr = parse_quote!({ #scrutinee #chain });
        self.lower_expr(&block)
    }

    /// `let m = scrutinee;` and the `if` chain standing for `m`'s arms (each
    /// arm's body a value when `value`, else a statement). `None` when a
    /// pattern is not supported (reported).
    pub(super) fn desugar_match(
        &mut self,
        m: &syn::ExprMatch,
        value: bool,
    ) -> Option<(syn::Stmt, Expr)> {
        if m.arms.is_empty() {
            self.cx
                .error_spanned_by(m, "a `match` with no arms is not supported");
            return None;
        }
        if let Expr::Tuple(parts) = super::syntax::strip_parens(&m.expr) {
            return self.desugar_tuple_match(m, parts, value);
        }
        let mut ok = true;
        for arm in &m.arms {
            ok &= self.check_match_pattern(&arm.pat);
        }
        if !ok {
            return None;
        }
        let s = self.fresh_ident("m");
        let scrutinee = &m.expr;
        // (whether an arm binds a part of it: then it must not vary)
        let unpacked = m
            .arms
            .iter()
            .any(|arm| !is_binding(&arm.pat) && !arm_bindings(&arm.pat, &s).is_empty());
        self.scrutinees
            .insert(s.to_string(), ((**scrutinee).clone(), unpacked));
        let let_stmt: syn::Stmt = parse_quote!(let #s = #scrutinee;);
        let body_of = |arm: &syn::Arm| -> Expr { arm_body(arm, arm_bindings(&arm.pat, &s), value) };
        let (last, rest) = m.arms.split_last()?;
        let mut chain = body_of(last);
        for arm in rest.iter().rev() {
            let pat = &arm.pat;
            if !is_binding(pat) {
                // `Some(i) if i > 2`: the guard reads the pattern's names
                let guard = arm.guard.as_ref().map(|(_, g)| quote!(if #g));
                let test: TokenStream = quote!(matches!(#s, #pat #guard));
                let body = body_of(arm);
                chain = parse_quote!(if #test #body else #chain);
                continue;
            }
            // (a name or `_` matches whatever the value: no test)
            let mut test: TokenStream = match pat {
                Pat::Wild(_) => quote!(true),
                Pat::Ident(p) if p.subpat.is_none() && !is_constant_name(&p.ident.to_string()) => {
                    quote!(true)
                }
                _ => quote!(matches!(#s, #pat)),
            };
            if let Some((_, guard)) = &arm.guard {
                let mut guard = (**guard).clone();
                let mut subst = Subst {
                    names: binding_names(&arm.pat)
                        .into_iter()
                        .map(|i| i.to_string())
                        .collect(),
                    to: s.clone(),
                };
                subst.visit_expr_mut(&mut guard);
                test = quote!(#test && (#guard));
            }
            let body = body_of(arm);
            chain = parse_quote!(if #test #body else #chain);
        }
        Some((let_stmt, chain))
    }

    /// `match (a, b) { (p, q) => .., _ => .. }`: the parts evaluated once,
    /// in order, `let (m1, m2) = (a, b);`, and the chain testing each part
    /// against its pattern, `matches!(m1, p) && matches!(m2, q)` (a `_`
    /// part tests nothing; `(p, q) | (r, s)` is either test). A part that
    /// binds a name binds it to its scrutinee, in the body and the guard.
    fn desugar_tuple_match(
        &mut self,
        m: &syn::ExprMatch,
        parts: &syn::ExprTuple,
        value: bool,
    ) -> Option<(syn::Stmt, Expr)> {
        let n = parts.elems.len();
        let names: Vec<syn::Ident> = (0..n).map(|_| self.fresh_ident("m")).collect();
        // Each arm's alternatives, each a list of part patterns.
        let mut arms_parts: Vec<Vec<Vec<Pat>>> = Vec::new();
        let mut ok = true;
        for arm in &m.arms {
            let alternatives: Vec<&Pat> = match &arm.pat {
                Pat::Or(or) => or.cases.iter().collect(),
                pat => vec![pat],
            };
            let mut arm_parts = Vec::new();
            for alt in &alternatives {
                match alt {
                    Pat::Tuple(t)
                        if t.elems.len() == n
                            && !t.elems.iter().any(|p| matches!(p, Pat::Rest(_))) =>
                    {
                        for p in &t.elems {
                            ok &= self.check_match_pattern(p);
                            if !is_binding(p) && !arm_bindings(p, &names[0]).is_empty() {
                                self.cx.error_spanned_by(
                                    p,
                                    "in a `match` on a tuple written out, `#[differentiable]` \
                                     binds names to whole parts only (`(k, _)`, not `(Some(k), \
                                     _)`); match on the part alone, or bind it in the arm: \
                                     `(m, _) if m.is_some() => { let k = m.unwrap(); .. }`",
                                );
                                ok = false;
                            }
                        }
                        arm_parts.push(t.elems.iter().cloned().collect());
                    }
                    Pat::Wild(_) => arm_parts.push(vec![parse_quote!(_); n]),
                    other => {
                        self.cx.error_spanned_by(
                            other,
                            format!(
                                "`#[differentiable]` lowers a `match` on a tuple of {n} with \
                                 tuple patterns of {n} parts (each an integer, `bool`, `char`, \
                                 constant or unit variant pattern, `_` or a name; no `..`) and \
                                 `_`; else write the cases with `if` / `else if`"
                            ),
                        );
                        ok = false;
                    }
                }
            }
            if alternatives.len() > 1
                && arm_parts
                    .iter()
                    .flatten()
                    .any(|p| !binding_names(p).is_empty())
            {
                self.cx.error_spanned_by(
                    &arm.pat,
                    "alternatives (`|`) of tuple patterns that bind names are not supported by \
                     `#[differentiable]`; give each alternative an arm of its own",
                );
                ok = false;
            }
            arms_parts.push(arm_parts);
        }
        if !ok {
            return None;
        }
        for (name, part) in names.iter().zip(&parts.elems) {
            self.scrutinees
                .insert(name.to_string(), (part.clone(), false));
        }
        let elems = parts.elems.iter();
        let let_stmt: syn::Stmt = parse_quote!(let (#(#names),*) = (#(#elems),*););
        // (the names an arm binds, each with the scrutinee of its part)
        let bindings = |arm_parts: &[Vec<Pat>]| -> Vec<(syn::Ident, syn::Ident)> {
            arm_parts
                .first()
                .map(|alt| {
                    alt.iter()
                        .zip(&names)
                        .flat_map(|(p, s)| binding_names(p).into_iter().map(|b| (b, s.clone())))
                        .collect()
                })
                .unwrap_or_default()
        };
        let body_of = |arm: &syn::Arm, bound: &[(syn::Ident, syn::Ident)]| -> Expr {
            let binds = bound.iter().map(|(b, s)| quote!(let #b = #s;)).collect();
            arm_body(arm, binds, value)
        };
        let (last, rest) = m.arms.split_last()?;
        let last_parts = arms_parts.last()?;
        let mut chain = body_of(last, &bindings(last_parts));
        for (arm, arm_parts) in rest.iter().zip(&arms_parts).rev() {
            let alternatives: Vec<TokenStream> = arm_parts
                .iter()
                .map(|alt| {
                    let tests: Vec<TokenStream> = alt
                        .iter()
                        .zip(&names)
                        .filter(|(p, _)| !matches!(p, Pat::Wild(_)))
                        .map(|(p, s)| quote!(matches!(#s, #p)))
                        .collect();
                    match tests.is_empty() {
                        true => quote!(true),
                        false => quote!((#(#tests)&&*)),
                    }
                })
                .collect();
            let mut test: TokenStream = quote!((#(#alternatives)||*));
            let bound = bindings(arm_parts);
            if let Some((_, guard)) = &arm.guard {
                let mut guard = (**guard).clone();
                for (b, s) in &bound {
                    let mut subst = Subst {
                        names: vec![b.to_string()],
                        to: s.clone(),
                    };
                    subst.visit_expr_mut(&mut guard);
                }
                test = quote!(#test && (#guard));
            }
            let body = body_of(arm, &bound);
            chain = parse_quote!(if #test #body else #chain);
        }
        Some((let_stmt, chain))
    }

    /// Patterns `match` lowers: literals, ranges, constants and variants,
    /// `_`, names, `x @ p`, `p | q`, and variants and structs with fields
    /// (`Some(i)`, `Ok(i) | Err(i)`, `Point { x, .. }`), whose names are
    /// bound by `__autograd_unpack!` (`arm_bindings`). (Whether a pattern
    /// fits the scrutinee's type, rustc checks on the function itself.)
    fn check_match_pattern(&mut self, pat: &Pat) -> bool {
        match pat {
            Pat::Lit(_)
            | Pat::Range(_)
            | Pat::Path(_)
            | Pat::Wild(_)
            | Pat::Rest(_)
            | Pat::TupleStruct(_)
            | Pat::Struct(_)
            | Pat::Tuple(_)
            | Pat::Slice(_)
            | Pat::Reference(_) => true,
            Pat::Ident(p) if p.by_ref.is_none() => match &p.subpat {
                Some((_, sub)) => self.check_match_pattern(sub),
                None => true,
            },
            Pat::Or(or) => or.cases.iter().all(|c| self.check_match_pattern(c)),
            Pat::Paren(p) => self.check_match_pattern(&p.pat),
            other => {
                self.cx.error_spanned_by(
                    other,
                    "`#[differentiable]` lowers `match` with literal, range, constant, variant, \
                     struct and tuple patterns, names, `_`, `|` and guards; for this pattern \
                     write the cases with `if` / `else if` / `else`",
                );
                false
            }
        }
    }

    /// Called when `let name = value;` binds a `match` scrutinee: a
    /// compound one (a tuple local, a closure, a view) is refused at the
    /// scrutinee. A float is fine: `matches!` tests it as `match` does
    /// (literals, ranges), and a name binds it whole (`v if v < 0.0 =>
    /// -v`), a copy of the float that carries its derivative.
    pub(super) fn check_scrutinee(&mut self, name: &str, value: &super::pattern::Bound) {
        let Some((expr, unpacked)) = self.scrutinees.remove(name) else {
            return;
        };
        if unpacked && matches!(value, super::pattern::Bound::Value(Value::Var(_))) {
            // (`match Some(x) { Some(v) => .. }`: `v` would be a part of a
            // value the macro cannot see into, without its derivative)
            self.cx.error_spanned_by(
                expr,
                "this `match` binds names inside a value that carries a derivative, which \
                 `#[differentiable]` cannot follow into it; bind the value whole (`v if v > \
                 0.0 => ..`), or compute the parts first (`let v = x;`) and match on what is \
                 not differentiated",
            );
            return;
        }
        if !matches!(value, super::pattern::Bound::Value(_)) {
            self.cx.error_spanned_by(
                expr,
                "`match` on a tuple local or another compound value is not supported by \
                 `#[differentiable]`; match on the tuple written out, `match (a, b) { .. }`, \
                 on one value, or write the cases with `if` / `else if`",
            );
        }
    }
}

/// An arm's body as a branch: its bindings (`let k = m;`), then the body,
/// a value when `value`, else a statement.
fn arm_body(arm: &syn::Arm, binds: Vec<TokenStream>, value: bool) -> Expr {
    let body = &arm.body;
    if value {
        // (a block arm's statements spliced in, so that its tail is the
        // branch's: a tuple-valued arm ends the branch in its tuple,
        // `syntax::tuple_if_locals`)
        if let Expr::Block(b) = &**body {
            if b.label.is_none() && b.attrs.is_empty() {
                let stmts = &b.block.stmts;
                return parse_quote!({ #(#binds)* #(#stmts)* });
            }
        }
        parse_quote!({ #(#binds)* #body })
    } else {
        parse_quote!({ #(#binds)* #body; })
    }
}

/// Is `pat` a name, `k @ p`, `_`, a literal, a range, a constant or one of
/// these in parentheses or `|`: a pattern that binds, if anything, the
/// whole scrutinee (so a guard reads it as the scrutinee)?
fn is_binding(pat: &Pat) -> bool {
    match pat {
        Pat::Ident(p) => p.subpat.as_ref().map_or(true, |(_, sub)| is_binding(sub)),
        Pat::Lit(_) | Pat::Range(_) | Pat::Path(_) | Pat::Wild(_) => true,
        Pat::Or(or) => or.cases.iter().all(is_binding),
        Pat::Paren(p) => is_binding(&p.pat),
        _ => false,
    }
}

/// The `let`s that bind an arm's names in its body: `let k = m;` for a
/// name bound to the whole scrutinee `m`; for names inside a variant or
/// struct (`Some(i)`, `Ok(i) | Err(i)`), `let i = __autograd_unpack!(m,
/// Some(i) => i);` (the tuple of them for several), which lowering keeps as
/// `match m { Some(i) => i, _ => unreachable!() }`. Those are parts of a
/// value that is not a float (a float scrutinee has no such parts), so
/// never differentiated.
fn arm_bindings(pat: &Pat, s: &syn::Ident) -> Vec<TokenStream> {
    if is_binding(pat) {
        return binding_names(pat)
            .into_iter()
            .map(|b| quote!(let #b = #s;))
            .collect();
    }
    let names: Vec<syn::Ident> = super::pattern::pattern_idents(pat)
        .into_iter()
        .filter(|i| !is_constant_name(&i.to_string()))
        .collect();
    match names.len() {
        0 => Vec::new(),
        1 => {
            let name = &names[0];
            vec![quote!(let #name = __autograd_unpack!(#s, #pat => #name);)]
        }
        _ => vec![quote!(let (#(#names),*) = __autograd_unpack!(#s, #pat => (#(#names),*));)],
    }
}

/// A lone identifier starting with a capital is taken for a constant or a
/// variant (`None`, `MAX`), as rustc's lint convention has it.
fn is_constant_name(name: &str) -> bool {
    name.trim_start_matches("r#")
        .starts_with(|c: char| c.is_uppercase())
}

/// The names a `match` pattern binds (`k`, `k @ ..`), not constants:
/// a lone identifier starting with a capital is taken for a constant or a
/// variant, as rustc's lint convention has it.
fn binding_names(pat: &Pat) -> Vec<syn::Ident> {
    match pat {
        Pat::Ident(p) => {
            let name = p.ident.to_string();
            let constant = p.subpat.is_none()
                && name
                    .trim_start_matches("r#")
                    .starts_with(|c: char| c.is_uppercase());
            if constant {
                Vec::new()
            } else {
                vec![p.ident.clone()]
            }
        }
        Pat::Paren(p) => binding_names(&p.pat),
        Pat::Or(or) => or.cases.first().map(binding_names).unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// Replaces the names `names` by `to` in a guard.
struct Subst {
    names: Vec<String>,
    to: syn::Ident,
}

impl VisitMut for Subst {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Expr::Path(p) = expr {
            if let Some(ident) = p.path.get_ident() {
                if self.names.contains(&ident.to_string()) {
                    let to = &self.to;
                    *expr = parse_quote!(#to);
                    return;
                }
            }
        }
        syn::visit_mut::visit_expr_mut(self, expr);
    }
}
