//! Adjacent loops over one range fused before lowering.
//!
//! Users write a computation over the elements of a buffer as several loops
//! in a row, each one step (`for j in 0..d { xc[j] = x[j] - mu[j]; }` then
//! `for j in 0..d { qx[j] = e[j] * xc[j]; }`). A hand-written gradient
//! runs them as one loop, and so does its reverse; the generated one ran
//! each loop, its recording and its reverse on its own, with each loop's
//! setup, bounds checks and counter (the mixture's per-element loops took
//! three times the hand-written gradient's instructions). Two loops are
//! one loop with both bodies, each in its own block, when that computes the
//! same thing:
//!
//! * both are `for <name> in <range>` with the same name and range tokens,
//!   no label, and the range reads nothing either body changes;
//! * neither body leaves its loop (`break`, `continue`, `return`, `?`),
//!   holds a macro (whose tokens this pass cannot read), or binds the loop's
//!   name again, and neither changes what a loop nested in the other reads
//!   (which that nest would then record at every inner iteration);
//! * every name that one body changes (assigns, borrows mutably, calls a
//!   method on that may change it) and the other mentions is an array both
//!   use only at the loop's name itself (`a[j]`) or for its length: then
//!   iteration `j` of either loop touches only element `j`, and running the
//!   second body right after the first for each `j` reads and writes what
//!   the second loop would have.
//!
//! Only the generated `_grad`, `_adjoint` and second-order functions see
//! the fused loop; `f` stays as written. Values are bit for bit those of
//! the loops apart (each body's operations are the same, in the same
//! order); a body that panics (an index out of bounds) may do so after the
//! other body has run some iterations it would not have reached.

use super::syntax::{path_names, strip_parens};
use std::collections::{HashMap, HashSet};
use syn::visit::Visit;
use syn::{Expr, Stmt};

/// `stmts` with each run of adjacent loops that can be fused as one loop.
pub fn fuse_adjacent_loops(stmts: &[Stmt]) -> Vec<Stmt> {
    let mut out: Vec<Stmt> = Vec::with_capacity(stmts.len());
    for stmt in stmts {
        if let (
            Some(Stmt::Expr(Expr::ForLoop(first), semi)),
            Stmt::Expr(Expr::ForLoop(second), _),
        ) = (out.last(), stmt)
        {
            if let Some(fused) = fuse(first, second) {
                let semi = *semi;
                *out.last_mut().expect("a last statement") = Stmt::Expr(Expr::ForLoop(fused), semi);
                continue;
            }
        }
        out.push(stmt.clone());
    }
    out
}

/// `first` and `second` as one loop, if that computes the same.
fn fuse(first: &syn::ExprForLoop, second: &syn::ExprForLoop) -> Option<syn::ExprForLoop> {
    let plain = |l: &syn::ExprForLoop| l.label.is_none() && l.attrs.is_empty();
    if !plain(first) || !plain(second) {
        return None;
    }
    let index = loop_name(first)?;
    if loop_name(second)? != index {
        return None;
    }
    if !matches!(strip_parens(&first.expr), Expr::Range(_))
        || !same_tokens(&first.expr, &second.expr)
    {
        return None;
    }
    let (a, b) = (
        Uses::of(&first.body, &index)?,
        Uses::of(&second.body, &index)?,
    );
    let (in_a, in_b) = (read_in_loops(&first.body), read_in_loops(&second.body));
    if a.changed.iter().any(|n| in_b.contains(n)) || b.changed.iter().any(|n| in_a.contains(n)) {
        return None;
    }
    let range = path_names(&first.expr);
    if range
        .iter()
        .any(|n| a.changed.contains(n) || b.changed.contains(n))
    {
        return None;
    }
    if !a.independent_of(&b) || !b.independent_of(&a) {
        return None;
    }
    let block = |body: &syn::Block| {
        Stmt::Expr(
            Expr::Block(syn::ExprBlock {
                attrs: Vec::new(),
                label: None,
                block: body.clone(),
            }),
            None,
        )
    };
    let mut fused = first.clone();
    fused.body.stmts = vec![block(&first.body), block(&second.body)];
    Some(fused)
}

/// The names mentioned inside the loops nested in `body`. A name one body
/// changes that a loop nested in the other reads keeps the two apart: in
/// the fused body the nest would read, at every inner iteration, an element
/// stored before it in the same iteration, and record it each time (`y[i]`
/// of `y[i] = y[i].tanh()` beside `for j in .. { z[j] += a[..] * y[i] }`:
/// a matrix-vector product's gradient took 25% more instructions).
fn read_in_loops(body: &syn::Block) -> HashSet<String> {
    struct Finder(HashSet<String>);
    impl<'a> Visit<'a> for Finder {
        fn visit_expr(&mut self, expr: &'a Expr) {
            match expr {
                Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => {
                    self.0.extend(path_names(expr))
                }
                _ => syn::visit::visit_expr(self, expr),
            }
        }
    }
    let mut finder = Finder(HashSet::new());
    finder.visit_block(body);
    finder.0
}

/// The name a `for` loop binds, if its pattern is a plain name.
fn loop_name(l: &syn::ExprForLoop) -> Option<String> {
    match &*l.pat {
        syn::Pat::Ident(p)
            if p.by_ref.is_none() && p.mutability.is_none() && p.subpat.is_none() =>
        {
            Some(p.ident.to_string())
        }
        _ => None,
    }
}

fn same_tokens(a: &Expr, b: &Expr) -> bool {
    use quote::ToTokens;
    a.to_token_stream().to_string() == b.to_token_stream().to_string()
}

/// How one loop body uses the names around it.
#[derive(Default)]
struct Uses {
    /// Names it assigns (`x = ..`, `x[i] += ..`), borrows mutably, or calls
    /// a method on that is not known to leave its receiver alone.
    changed: HashSet<String>,
    /// Names it mentions, each with whether every mention is `name[index]`
    /// or `name.len()`.
    mentioned: HashMap<String, bool>,
}

impl Uses {
    /// The uses of `body`, a loop body over `index`; `None` if it leaves
    /// the loop, holds a macro or binds `index`.
    fn of(body: &syn::Block, index: &str) -> Option<Uses> {
        let mut scan = Scan {
            index,
            uses: Uses::default(),
            refused: false,
        };
        scan.visit_block(body);
        let whole = Expr::Block(syn::ExprBlock {
            attrs: Vec::new(),
            label: None,
            block: body.clone(),
        });
        if scan.refused || super::syntax::may_jump(&whole) {
            return None;
        }
        Some(scan.uses)
    }

    /// Whether what `self` changes and `other` mentions is only arrays both
    /// touch at the loop's index.
    fn independent_of(&self, other: &Uses) -> bool {
        self.changed
            .iter()
            .all(|name| match other.mentioned.get(name) {
                None => true,
                Some(&own) => own && self.mentioned.get(name).copied().unwrap_or(false),
            })
    }
}

struct Scan<'i> {
    index: &'i str,
    uses: Uses,
    refused: bool,
}

impl Scan<'_> {
    fn mention(&mut self, name: String, own: bool) {
        let entry = self.uses.mentioned.entry(name).or_insert(true);
        *entry &= own;
    }

    /// The name of the local a place expression is part of (`a` of
    /// `a[i][k]`, `a.x`, `(a)`).
    fn base(expr: &Expr) -> Option<String> {
        match strip_parens(expr) {
            Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
            Expr::Index(i) => Self::base(&i.expr),
            Expr::Field(f) => Self::base(&f.base),
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => Self::base(&u.expr),
            _ => None,
        }
    }

    /// A place the body changes: its local, or, for a place not rooted in
    /// one (`f()[j] = v`), a body this pass cannot reason about.
    fn change(&mut self, place: &Expr) {
        match Self::base(place) {
            Some(name) => {
                self.uses.changed.insert(name);
            }
            None => self.refused = true,
        }
    }
}

impl<'a> Visit<'a> for Scan<'_> {
    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Macro(_) | Expr::Try(_) | Expr::Async(_) | Expr::Yield(_) => {
                self.refused = true;
                return;
            }
            Expr::Assign(a) => self.change(&a.left),
            Expr::Binary(b) if super::syntax::is_compound(&b.op) => self.change(&b.left),
            Expr::Reference(r) if r.mutability.is_some() => self.change(&r.expr),
            Expr::MethodCall(m) => {
                if !super::syntax::read_only_method(&m.method.to_string()) {
                    self.change(&m.receiver);
                }
                if m.method == "len" && m.args.is_empty() {
                    if let Expr::Path(p) = strip_parens(&m.receiver) {
                        if let Some(ident) = p.path.get_ident() {
                            self.mention(ident.to_string(), true);
                            return;
                        }
                    }
                }
            }
            Expr::Index(i) => {
                let at_index =
                    matches!(strip_parens(&i.index), Expr::Path(p) if p.path.is_ident(self.index));
                if let (Expr::Path(p), true) = (strip_parens(&i.expr), at_index) {
                    if let Some(ident) = p.path.get_ident() {
                        self.mention(ident.to_string(), true);
                        return;
                    }
                }
            }
            Expr::Path(p) => {
                if let Some(ident) = p.path.get_ident() {
                    self.mention(ident.to_string(), false);
                }
            }
            _ => {}
        }
        syn::visit::visit_expr(self, expr);
    }

    fn visit_stmt_macro(&mut self, _: &'a syn::StmtMacro) {
        self.refused = true;
    }

    fn visit_item(&mut self, _: &'a syn::Item) {
        self.refused = true;
    }

    fn visit_pat_ident(&mut self, pat: &'a syn::PatIdent) {
        if pat.ident == self.index {
            self.refused = true;
        }
        // a binding is a mention: a body that declares a name the other
        // changes is not fused (conservative: the bodies are in blocks of
        // their own, so the declaration would shadow, not conflict)
        self.mention(pat.ident.to_string(), false);
        syn::visit::visit_pat_ident(self, pat);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    fn fused(src: &str) -> Vec<String> {
        let block: syn::Block = syn::parse_str(src).unwrap();
        fuse_adjacent_loops(&block.stmts)
            .iter()
            .map(|s| s.to_token_stream().to_string())
            .collect()
    }

    #[test]
    fn loops_over_one_range_touching_their_own_elements_fuse() {
        let out = fused(
            "{ for j in 0..d { xc[j] = x[j] - m[c * d + j]; } \
               for j in 0..d { qx[j] = e[c * d + j] * xc[j]; } \
               for j in 0..d { s += qx[j] * qx[j] / (xc.len() as f64); } }",
        );
        assert_eq!(out.len(), 1, "{out:?}");
        assert!(
            out[0].starts_with("for j in 0 .. d { { { xc [j] ="),
            "{}",
            out[0]
        );
    }

    #[test]
    fn loops_that_read_other_elements_or_change_their_range_stay_apart() {
        for src in [
            // the second reads an element the first writes later
            "{ for j in 0..d { a[j] = x[j]; } for j in 0..d { b[j] = a[d - 1 - j]; } }",
            // the first changes what the second reads whole
            "{ for j in 0..d { s += x[j]; } for j in 0..d { y[j] = x[j] / s; } }",
            // the first changes the range
            "{ for j in 0..d { d += 1; } for j in 0..d { y[j] = 1.0; } }",
            // different ranges, names, labels
            "{ for j in 0..d { a[j] = 1.0; } for j in 1..d { b[j] = 1.0; } }",
            "{ for j in 0..d { a[j] = 1.0; } for k in 0..d { b[k] = 1.0; } }",
            "{ 'o: for j in 0..d { a[j] = 1.0; } for j in 0..d { b[j] = 1.0; } }",
            // leaving the loop, a macro, the index bound again
            "{ for j in 0..d { if x[j] > 0.0 { break; } a[j] = 1.0; } for j in 0..d { b[j] = a[j]; } }",
            "{ for j in 0..d { a[j] = 1.0; } for j in 0..d { println!(\"{}\", a[j]); } }",
            "{ for j in 0..d { let j = j + 1; a[j] = 1.0; } for j in 0..d { b[j] = a[j]; } }",
            // a method that may change its receiver, a mutable borrow
            "{ for j in 0..d { v.push(x[j]); } for j in 0..d { y[j] = v[j]; } }",
            "{ for j in 0..d { helper(&mut a, j); } for j in 0..d { y[j] = a[j]; } }",
            // iterators are not ranges
            "{ for v in xs.iter() { a[0] += v; } for v in xs.iter() { b[0] += v; } }",
            // a place not rooted in a local
            "{ for j in 0..d { *slot(j) = x[j]; } for j in 0..d { y[j] = x[j]; } }",
            // a loop nested in the second reads what the first changes
            "{ for i in 0..n { y[i] = y[i].tanh(); } \
               for i in 0..n { for j in 0..n { z[j] += a[i * n + j] * y[i]; } } }",
        ] {
            assert_eq!(fused(src).len(), 2, "{src}");
        }
    }

    #[test]
    fn a_nest_fuses_with_a_loop_that_changes_nothing_it_reads() {
        let out = fused(
            "{ for i in 0..n { for t in 0..k { c[i] += w[t] * s[i + t]; } } \
               for i in 0..n { a[i] = c[i].max(0.0); } }",
        );
        assert_eq!(out.len(), 1, "{out:?}");
    }

    #[test]
    fn loops_that_only_read_what_the_other_changes_elsewhere_fuse() {
        // both read `x` whole; each changes only its own arrays
        let out = fused(
            "{ for i in 0..n { a[i] = x[i + 1] - x[i]; } for i in 0..n { b[i] = x[0] * 2.0; } }",
        );
        assert_eq!(out.len(), 1, "{out:?}");
    }
}
