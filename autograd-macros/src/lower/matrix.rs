//! Local arrays of arrays and vectors of rows (`[[0.0; C]; R]`,
//! `vec![vec![0.0; c]; r]`) as one flat array, row after row: a pass over
//! the statements of a block, before lowering, that rewrites the matrix's
//! `let` and its uses (`matrix_locals`).

use super::syntax::{
    is_path_named, mentions_ident, name_scan_scoping, pattern_names, scan_until_rebound,
    strip_parens, vec_macro_exprs, visit_until_rebound, visit_vec_macro_mut,
};
use crate::names::Names;
use quote::ToTokens;
use std::collections::{HashMap, HashSet};
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Expr, Stmt};

/// A local array of arrays of floats, `let mut m = [[0.0; C]; R];`
/// (`[[a, b], [c, d]]`, `[[a, b]; R]`, typed `[[f64; C]; R]`; a vector of
/// rows likewise, `vec![vec![0.0; c]; r]`, `vec![[0.0; 3]; r]`), is one flat
/// array of `R * C` floats, row after row, when every use of `m` (until
/// something rebinds the name) is one of: `m[i][j]` (read, assigned,
/// compound-assigned) → `m[i * C + j]`; a row `m[i]` as a method's
/// receiver or behind `&` → the subslice `&m[i * C..i * C + C]`; a row read
/// whole → the array literal of its elements, a copy (`C` a literal up to
/// 16); a row assigned whole, `m[i] = e;` → its elements stored one by
/// one from a copy of `e`; `m.len()` → `R`; `m.iter()` and `&m` iterated
/// → `m.chunks(C)`. Anything else (`m` passed on whole, in a macro's
/// tokens) leaves the `let` as it is, refused where it is lowered.
///
/// A matrix assigned whole from another of the same shape (`u = next;`,
/// `u = next.clone();`, the other declared later in the block or in one
/// nested in it, or flattened in an enclosing block: `flattened`) is a
/// flat array assigned whole, as the other is flat too; were the other
/// refused, its `let` would be, with the message saying why.
pub fn matrix_locals(
    stmts: &[Stmt],
    names: &Names,
    flattened: &mut HashMap<String, String>,
) -> Vec<Stmt> {
    let mut out: Vec<Stmt> = stmts.to_vec();
    let mut k = 0;
    while k < out.len() {
        if let Some((flat, shape)) = matrix_let(&out[k], Some(names)) {
            // the matrices this one may be assigned from or to
            let mut peers: HashSet<String> = flattened
                .iter()
                .filter(|(_, text)| **text == shape.text)
                .map(|(name, _)| name.clone())
                .collect();
            let mut later = Later(Vec::new());
            for stmt in &out[k + 1..] {
                later.visit_stmt(stmt);
            }
            peers.extend(
                later
                    .0
                    .into_iter()
                    .filter(|(_, text)| *text == shape.text)
                    .map(|(name, _)| name),
            );
            peers.remove(&shape.name);
            let mut uses = MatrixUses {
                name: shape.name.clone(),
                literal_cols: literal_usize(&shape.cols).filter(|c| (1..=16).contains(c)),
                peers,
                ok: true,
                shadowed: false,
            };
            uses.visit_stmts(&out[k + 1..]);
            if uses.ok {
                flattened.insert(shape.name.clone(), shape.text.clone());
                let mut rewriter = MatrixRewriter {
                    shape,
                    names,
                    literal_cols: uses.literal_cols,
                };
                let name = rewriter.shape.name.clone();
                visit_until_rebound(&mut rewriter, &name, &mut out[k + 1..]);
                let added = flat.len();
                out.splice(k..=k, flat);
                k += added;
                continue;
            }
        }
        k += 1;
    }
    out
}

/// The name and shape of a matrix local.
struct MatrixShape {
    name: String,
    rows: Expr,
    cols: Expr,
    /// The counts as written (`n x 3`), to tell two matrices of one shape.
    text: String,
}

/// An array or `vec!` literal: a repeat `[e; n]` or a list `[a, b, ..]`,
/// and whether it is a `vec!`.
enum Literal {
    Repeat(Box<Expr>, Box<Expr>, bool),
    List(Vec<Expr>, bool),
}

fn literal_of(expr: &Expr) -> Option<Literal> {
    match strip_parens(expr) {
        Expr::Repeat(r) => Some(Literal::Repeat(r.expr.clone(), r.len.clone(), false)),
        Expr::Array(a) => Some(Literal::List(a.elems.iter().cloned().collect(), false)),
        Expr::Macro(m) if m.mac.path.is_ident("vec") => {
            let tokens = &m.mac.tokens;
            if let Ok(r) = syn::parse2::<syn::ExprRepeat>(quote::quote!([#tokens])) {
                return Some(Literal::Repeat(r.expr, r.len, true));
            }
            let a = syn::parse2::<syn::ExprArray>(quote::quote!([#tokens])).ok()?;
            Some(Literal::List(a.elems.into_iter().collect(), true))
        }
        _ => None,
    }
}

/// `let m = [[..]; R]` & co (see `matrix_locals`; also `vec![vec![e; c];
/// r]`, `vec![[a, b]; r]`, `vec![vec![a, b], vec![c, d]]`): the flat
/// `let` (after `let`s holding a row or column count that is not a
/// literal, evaluated once where the matrix is made) and the shape.
///
/// Without `names`, counts are not moved into `let`s (the shape alone is
/// wanted: `peers`).
fn matrix_let(stmt: &Stmt, names: Option<&Names>) -> Option<(Vec<Stmt>, MatrixShape)> {
    let Stmt::Local(local) = stmt else {
        return None;
    };
    let (pat, ty) = match &local.pat {
        syn::Pat::Type(t) => (&*t.pat, Some(&*t.ty)),
        other => (other, None),
    };
    let syn::Pat::Ident(p) = pat else {
        return None;
    };
    if p.by_ref.is_some() || p.subpat.is_some() {
        return None;
    }
    let init = local.init.as_ref().filter(|i| i.diverge.is_none())?;
    let mut lets: Vec<Stmt> = Vec::new();
    // a count, as a literal or a local of its own
    let mut count = |n: &Expr, what: &str| -> Expr {
        let Some(names) = names.filter(|_| literal_usize(n).is_none()) else {
            return n.clone();
        };
        let local = names.fresh(&format!("__ad_{what}"));
        lets.push(syn::parse_quote!(let #local: usize = #n;));
        syn::parse_quote!(#local)
    };
    let outer = literal_of(&init.expr)?;
    let mut text = String::new();
    // (rows, cols, the flat elements or the one value, vec)
    let (rows, cols, flat, vec): (Expr, Expr, Literal, bool) = match outer {
        Literal::Repeat(row, r, outer_vec) => match literal_of(&row)? {
            Literal::Repeat(value, c, inner_vec) => {
                if inner_vec && !outer_vec {
                    return None;
                }
                text = shape_text(&r, &c);
                let (r, c) = (count(&r, "rows"), count(&c, "cols"));
                let n: Expr = syn::parse_quote!((#r) * (#c));
                (
                    r,
                    c,
                    Literal::Repeat(value, Box::new(n), outer_vec),
                    outer_vec,
                )
            }
            Literal::List(row, inner_vec) if !row.is_empty() => {
                if inner_vec && !outer_vec {
                    return None;
                }
                let r_literal = literal_usize(&r).filter(|r| (1..=16).contains(r))?;
                let c = row.len();
                let elems: Vec<Expr> = (0..r_literal).flat_map(|_| row.iter().cloned()).collect();
                (
                    syn::parse_quote!(#r_literal),
                    syn::parse_quote!(#c),
                    Literal::List(elems, outer_vec),
                    outer_vec,
                )
            }
            _ => return None,
        },
        Literal::List(rows, outer_vec) if !rows.is_empty() => {
            let mut elems = Vec::new();
            let mut cols = None;
            for row in &rows {
                let Literal::List(row, inner_vec) = literal_of(row)? else {
                    return None;
                };
                if (inner_vec && !outer_vec)
                    || row.is_empty()
                    || cols.is_some_and(|c| c != row.len())
                {
                    return None;
                }
                cols = Some(row.len());
                elems.extend(row);
            }
            let (r, c) = (rows.len(), cols?);
            (
                syn::parse_quote!(#r),
                syn::parse_quote!(#c),
                Literal::List(elems, outer_vec),
                outer_vec,
            )
        }
        _ => return None,
    };
    // floats only: the type says so, or no element is an integer literal
    let typed_float = |ty: &syn::Type| -> Option<bool> {
        let inner = match ty {
            syn::Type::Array(a) => (*a.elem).clone(),
            other => crate::signature::vec_element(other)?.clone(),
        };
        match &inner {
            syn::Type::Array(a) => Some(crate::signature::is_f64(&a.elem)),
            other => {
                Some(crate::signature::vec_element(other).is_some_and(crate::signature::is_f64))
            }
        }
    };
    let float = match ty {
        Some(ty) => typed_float(ty)?,
        None => {
            let elems: Vec<&Expr> = match &flat {
                Literal::Repeat(value, _, _) => vec![&**value],
                Literal::List(elems, _) => elems.iter().collect(),
            };
            !elems.iter().any(|e| {
                matches!(
                    strip_parens(e),
                    Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Int(_),
                        ..
                    })
                )
            })
        }
    };
    if !float {
        return None;
    }
    let flat: Expr = match flat {
        Literal::Repeat(value, n, false) => syn::parse_quote!([#value; #n]),
        Literal::Repeat(value, n, true) => syn::parse_quote!(vec![#value; #n]),
        Literal::List(elems, false) => syn::parse_quote!([#(#elems),*]),
        Literal::List(elems, true) => syn::parse_quote!(vec![#(#elems),*]),
    };
    let (attrs, mutability, ident) = (&local.attrs, &p.mutability, &p.ident);
    let flat_ty: Option<syn::Type> = match (ty, vec) {
        (None, _) => None,
        (Some(_), false) => Some(syn::parse_quote!([f64; (#rows) * (#cols)])),
        (Some(_), true) => Some(syn::parse_quote!(::std::vec::Vec<f64>)),
    };
    lets.push(match flat_ty {
        Some(t) => syn::parse_quote!(#(#attrs)* let #mutability #ident: #t = #flat;),
        None => syn::parse_quote!(#(#attrs)* let #mutability #ident = #flat;),
    });
    if text.is_empty() {
        text = shape_text(&rows, &cols);
    }
    Some((
        lets,
        MatrixShape {
            name: p.ident.to_string(),
            rows,
            cols,
            text,
        },
    ))
}

fn literal_usize(expr: &Expr) -> Option<usize> {
    match strip_parens(expr) {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse::<usize>().ok(),
        _ => None,
    }
}

/// The matrix locals (name, shape) declared in the statements visited,
/// nested blocks included.
struct Later(Vec<(String, String)>);

impl<'a> Visit<'a> for Later {
    fn visit_local(&mut self, local: &'a syn::Local) {
        if let Some((_, shape)) = matrix_let(&Stmt::Local(local.clone()), None) {
            self.0.push((shape.name, shape.text));
        }
        syn::visit::visit_local(self, local);
    }
}

/// The counts as written, `r x c` (a literal by its value, `2` and
/// `2usize` alike).
fn shape_text(rows: &Expr, cols: &Expr) -> String {
    let count = |n: &Expr| match literal_usize(n) {
        Some(n) => n.to_string(),
        None => n.to_token_stream().to_string(),
    };
    format!("{} x {}", count(rows), count(cols))
}

/// `m` or `m.clone()`: the name.
fn whole(expr: &Expr) -> Option<String> {
    let expr = match strip_parens(expr) {
        Expr::MethodCall(m) if m.method == "clone" && m.args.is_empty() => &*m.receiver,
        other => other,
    };
    match strip_parens(expr) {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        _ => None,
    }
}

/// Checks the uses of a matrix local (see `matrix_locals`).
struct MatrixUses {
    name: String,
    /// Matrices of the same shape it may be assigned from or to.
    peers: HashSet<String>,
    /// The row length when it is a literal up to 16 (rows read or
    /// assigned whole need it).
    literal_cols: Option<usize>,
    ok: bool,
    shadowed: bool,
}

impl MatrixUses {
    fn is_name(&self, expr: &Expr) -> bool {
        is_path_named(expr, &self.name)
    }

    /// `m[i]`: the row index.
    fn row<'e>(&self, expr: &'e Expr) -> Option<&'e Expr> {
        match strip_parens(expr) {
            Expr::Index(index) if self.is_name(&index.expr) => Some(&index.index),
            _ => None,
        }
    }

    fn visit_stmts(&mut self, stmts: &[Stmt]) {
        let name = self.name.clone();
        self.shadowed = scan_until_rebound(self, &name, stmts, |scan| scan.shadowed);
    }
}

impl<'a> Visit<'a> for MatrixUses {
    fn visit_expr(&mut self, expr: &'a Expr) {
        match strip_parens(expr) {
            // `m[i][j]`
            Expr::Index(outer) if self.row(&outer.expr).is_some() => {
                if let Some(i) = self.row(&outer.expr) {
                    self.visit_expr(i);
                }
                self.visit_expr(&outer.index);
            }
            // `m[i].iter()`, `&m[i]`
            Expr::MethodCall(m) if self.row(&m.receiver).is_some() => {
                if let Some(i) = self.row(&m.receiver) {
                    self.visit_expr(i);
                }
                for arg in &m.args {
                    self.visit_expr(arg);
                }
            }
            Expr::Reference(r) if r.mutability.is_none() && self.row(&r.expr).is_some() => {
                if let Some(i) = self.row(&r.expr) {
                    self.visit_expr(i);
                }
            }
            // a row whole, read or assigned: a literal row length
            Expr::Index(index) if self.is_name(&index.expr) => {
                self.ok &= self.literal_cols.is_some();
                self.visit_expr(&index.index);
            }
            // `m = other;` / `other = m.clone();` of a matrix of its shape
            Expr::Assign(a)
                if (self.is_name(&a.left)
                    && whole(&a.right).is_some_and(|n| self.peers.contains(&n)))
                    || (whole(&a.right).is_some_and(|n| n == self.name)
                        && whole(&a.left).is_some_and(|n| self.peers.contains(&n))) => {}
            Expr::Assign(a) if self.row(&a.left).is_some() => {
                self.ok &= self.literal_cols.is_some();
                self.visit_expr(&a.left);
                self.visit_expr(&a.right);
            }
            Expr::MethodCall(m) if self.is_name(&m.receiver) => {
                self.ok &= m.args.is_empty() && (m.method == "len" || m.method == "iter");
            }
            Expr::ForLoop(f) => {
                let whole = match strip_parens(&f.expr) {
                    Expr::Reference(r) => r.mutability.is_none() && self.is_name(&r.expr),
                    _ => false,
                };
                if !whole {
                    self.visit_expr(&f.expr);
                }
                if !pattern_names(&f.pat).contains(&self.name) {
                    self.visit_block(&f.body);
                }
            }
            Expr::Path(_) if self.is_name(expr) => self.ok = false,
            Expr::Closure(c)
                if c.inputs
                    .iter()
                    .any(|p| pattern_names(p).contains(&self.name)) => {}
            _ => syn::visit::visit_expr(self, expr),
        }
    }

    name_scan_scoping!('a);

    // (inside `vec![..]`, which lowering parses, its uses are checked as
    // anywhere; the name in any other macro's tokens, which the rewrite
    // cannot reach, keeps the matrix as it is)
    fn visit_macro(&mut self, mac: &'a syn::Macro) {
        match vec_macro_exprs(mac) {
            Some((exprs, _)) => exprs.iter().for_each(|e| self.visit_expr(e)),
            None => self.ok &= !mentions_ident(mac.tokens.clone(), &self.name),
        }
    }
}

/// Rewrites the uses of a matrix local (see `matrix_locals`), checked by
/// `MatrixUses` first.
struct MatrixRewriter<'n> {
    shape: MatrixShape,
    names: &'n Names,
    literal_cols: Option<usize>,
}

impl MatrixRewriter<'_> {
    fn is_name(&self, expr: &Expr) -> bool {
        is_path_named(expr, &self.shape.name)
    }

    fn row_index(&self, expr: &Expr) -> Option<Expr> {
        match strip_parens(expr) {
            Expr::Index(index) if self.is_name(&index.expr) => Some((*index.index).clone()),
            _ => None,
        }
    }

    /// The flat index of `m[i][j]`: a literal when both are.
    fn flat_index(&self, i: &Expr, j: &Expr) -> Expr {
        let cols = &self.shape.cols;
        match (literal_usize(i), literal_usize(j), literal_usize(cols)) {
            (Some(i), Some(j), Some(c)) => {
                let k = i * c + j;
                syn::parse_quote!(#k)
            }
            _ => syn::parse_quote!((#i) * (#cols) + (#j)),
        }
    }

    /// `&m[i * C..i * C + C]`.
    fn row_view(&self, i: &Expr) -> Expr {
        let (name, cols) = (
            syn::Ident::new(&self.shape.name, proc_macro2::Span::call_site()),
            &self.shape.cols,
        );
        syn::parse_quote!((&#name[(#i) * (#cols)..(#i) * (#cols) + (#cols)]))
    }
}

impl VisitMut for MatrixRewriter<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        let name = syn::Ident::new(&self.shape.name, proc_macro2::Span::call_site());
        match expr {
            Expr::Index(outer) if self.row_index(&outer.expr).is_some() => {
                let mut i = self.row_index(&outer.expr).expect("checked");
                self.visit_expr_mut(&mut i);
                self.visit_expr_mut(&mut outer.index);
                let k = self.flat_index(&i, &outer.index);
                *expr = syn::parse_quote!(#name[#k]);
            }
            Expr::MethodCall(m) if self.row_index(&m.receiver).is_some() => {
                let mut i = self.row_index(&m.receiver).expect("checked");
                self.visit_expr_mut(&mut i);
                *m.receiver = self.row_view(&i);
                for arg in m.args.iter_mut() {
                    self.visit_expr_mut(arg);
                }
            }
            Expr::Reference(r) if r.mutability.is_none() && self.row_index(&r.expr).is_some() => {
                let mut i = self.row_index(&r.expr).expect("checked");
                self.visit_expr_mut(&mut i);
                *expr = self.row_view(&i);
            }
            Expr::Assign(a) if self.row_index(&a.left).is_some() => {
                // `m[i] = e;`: `e` copied first, then stored element by element
                let mut i = self.row_index(&a.left).expect("checked");
                self.visit_expr_mut(&mut i);
                self.visit_expr_mut(&mut a.right);
                let (row, at) = (self.names.fresh("__ad_row"), self.names.fresh("__ad_at"));
                let right = &a.right;
                let stores: Vec<Stmt> = (0..self.literal_cols.unwrap_or(0))
                    .map(|j| syn::parse_quote!(#name[#at + #j] = #row[#j];))
                    .collect();
                let cols = &self.shape.cols;
                *expr = syn::parse_quote!({
                    let #row = #right;
                    let #at: usize = (#i) * (#cols);
                    #(#stores)*
                });
            }
            Expr::Index(index) if self.is_name(&index.expr) => {
                // a row read whole: a copy
                let mut i = (*index.index).clone();
                self.visit_expr_mut(&mut i);
                let items: Vec<Expr> = (0..self.literal_cols.unwrap_or(0))
                    .map(|j| {
                        let k = self.flat_index(&i, &syn::parse_quote!(#j));
                        syn::parse_quote!(#name[#k])
                    })
                    .collect();
                *expr = syn::parse_quote!([#(#items),*]);
            }
            Expr::MethodCall(m) if self.is_name(&m.receiver) && m.method == "len" => {
                let rows = &self.shape.rows;
                *expr = syn::parse_quote!((#rows));
            }
            Expr::MethodCall(m) if self.is_name(&m.receiver) && m.method == "iter" => {
                let cols = &self.shape.cols;
                *expr = syn::parse_quote!(#name.chunks(#cols));
            }
            Expr::ForLoop(f) => {
                let whole = matches!(strip_parens(&f.expr), Expr::Reference(r)
                    if r.mutability.is_none() && self.is_name(&r.expr));
                if whole {
                    let cols = &self.shape.cols;
                    *f.expr = syn::parse_quote!(#name.chunks(#cols));
                } else {
                    self.visit_expr_mut(&mut f.expr);
                }
                if !pattern_names(&f.pat).contains(&self.shape.name) {
                    self.visit_block_mut(&mut f.body);
                }
            }
            Expr::Closure(c)
                if c.inputs
                    .iter()
                    .any(|p| pattern_names(p).contains(&self.shape.name)) => {}
            _ => syn::visit_mut::visit_expr_mut(self, expr),
        }
    }

    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        let name = self.shape.name.clone();
        visit_until_rebound(self, &name, &mut block.stmts);
    }

    fn visit_arm_mut(&mut self, arm: &mut syn::Arm) {
        if !pattern_names(&arm.pat).contains(&self.shape.name) {
            syn::visit_mut::visit_arm_mut(self, arm);
        }
    }

    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        visit_vec_macro_mut(self, mac);
    }
}
