//! Small loop nests with literal trip counts, written out before lowering.
//!
//! A helper on small fixed-size arrays (a 3×3 Cholesky factor, a triangular
//! solve, a 4×4 product) loops over literal ranges: `for i in 0..3 { for k
//! in 0..i { .. } }`. Kept as loops, its adjoint pays for each loop what a
//! loop's reverse needs — a record of the values its reverse reads, undo
//! tapes for the arrays it overwrites, cursors — which for three iterations
//! costs more than the arithmetic (a 3×3 solve's adjoint: ~500
//! instructions a call, for ~60 of arithmetic). Written out, the nest is
//! straight-line code: every value is a `let` that the reverse sweep reads
//! where it is, as a hand-written adjoint of a 3×3 solve does.
//!
//! So a `for` loop of the function body (or of a branch or block of it;
//! in a loop that stays a loop, only a small nest that stores into an
//! array, `d[k] = ..`, so that the array becomes one local per element)
//! is replaced by its iterations, each
//! `{ let i = <value>; <body> }`, when:
//!
//! - its range is `a..b`, `a..=b`, or either in parentheses with `.rev()`,
//!   whose bounds are integer literals and indices of enclosing loops being
//!   written out, combined by `+ - * / %` (never negative on the way: an
//!   index is usually unsigned, and `0..i - 1` at `i = 0` must fail as the
//!   user's loop does, not run no iteration);
//! - its pattern is a name or `_`, and it has no label;
//! - its body holds no `break`, `continue`, `return`, `?`, `loop`, `while`,
//!   macro or item, no method call on an expression naming the index (`let
//!   i = 2;` alone does not fix the index's integer type, as the range did,
//!   and `i.pow(2)` would not compile), and every `for` loop in it is
//!   written out too;
//! - the whole nest is at most [`MAX_TRIPS`] iterations a loop and
//!   [`MAX_STATEMENTS`] statements written out.
//!
//! In the iterations written out, an `if` whose condition reads only the
//! indices (`if i == j` in a Cholesky factor) is replaced by the branch it
//! takes: the branch the reverse sweep would otherwise replay, reading the
//! arrays again, is straight-line code too.
//!
//! Anything else is left as written. The function keeps its loops: this
//! rewrites only the body the adjoints are generated from, and when that
//! body does not lower (an unsupported construct in the nest), the one as
//! written is lowered instead, so errors point at the user's code once.

use std::collections::{HashMap, HashSet};
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{BinOp, Expr, Pat, Stmt};

/// The most iterations of one loop written out.
pub const MAX_TRIPS: i128 = 64;

/// The most iterations of a loop written out in a loop that stays a loop
/// (`Mode::Kept`): a point's coordinates, a quaternion, not a layer's
/// units, which would make the kept loop's body long for nothing.
pub const MAX_KEPT_TRIPS: usize = 4;

/// The most statements such a nest may have written out (a 3×3 matrix
/// product, a Kalman filter's covariance update).
pub const MAX_KEPT_STATEMENTS: usize = 64;

/// The most statements a nest may have once written out (its iterations'
/// statements and those nested in them).
pub const MAX_STATEMENTS: usize = 600;

/// Writes out the small nests of `block` (see the module's doc); returns
/// whether it wrote out any.
pub fn unroll_small_nests(block: &mut syn::Block) -> bool {
    let whole = whole_uses(block);
    rewrite(&mut block.stmts, &HashMap::new(), Mode::Body(&whole)).unwrap_or(false)
}

/// Where [`rewrite`] is.
#[derive(Clone, Copy)]
enum Mode<'a> {
    /// In the function body, a branch or a block of it: a nest that
    /// cannot be written out, or is too big, stays a loop. With the names
    /// the body uses whole (`whole_uses`).
    Body(&'a HashSet<String>),
    /// In the body of a loop that stays a loop: as `Body`, but only nests
    /// of at most [`MAX_KEPT_TRIPS`] iterations a loop and
    /// [`MAX_KEPT_STATEMENTS`] statements written out that store into
    /// arrays the function never uses whole (`for k in 0..3 { d[k] = .. }`,
    /// a 3×3 product) are written out, so that the arrays, then indexed by
    /// literals, become one local per element (`syntax::split_array_locals`).
    /// A reduction `r2 += ..` written out would gain nothing, and a fill of
    /// an array given whole to a call (`rhs(&ys, p)`), which stays an
    /// array, would lose the single copy that saves a loop's overwritten
    /// elements (an RK4 fit 2.4× → 3.5× when it did).
    Kept(&'a HashSet<String>),
    /// In an iteration being written out: every `for` loop must be.
    Strict,
}

/// Whether `for_loop` (or a loop in it) stores into an array element
/// (`d[k] = ..`, `p[3 * i + j] -= ..`), and only into arrays not in
/// `whole` (named, in the function, by something else than an indexing).
fn splits_arrays(for_loop: &syn::ExprForLoop, whole: &HashSet<String>) -> bool {
    struct Find<'w> {
        whole: &'w HashSet<String>,
        stores: bool,
        kept: bool,
    }
    impl<'ast> Visit<'ast> for Find<'_> {
        fn visit_expr(&mut self, expr: &'ast Expr) {
            let place = match expr {
                Expr::Assign(a) => Some(&*a.left),
                Expr::Binary(b) if crate::lower::syntax::is_compound(&b.op) => Some(&*b.left),
                _ => None,
            };
            if let Some(Expr::Index(index)) = place.map(strip) {
                self.stores = true;
                self.kept |= match strip(&index.expr) {
                    Expr::Path(p) => !p
                        .path
                        .get_ident()
                        .is_some_and(|i| !self.whole.contains(&i.to_string())),
                    _ => true,
                };
            }
            syn::visit::visit_expr(self, expr);
        }
    }
    let mut find = Find {
        whole,
        stores: false,
        kept: false,
    };
    find.visit_block(&for_loop.body);
    find.stores && !find.kept
}

/// The names `block` uses otherwise than as the base of an indexing
/// (`&ys`, `ys.iter()`, `g(ys)`; also names inside macros, which cannot
/// be told apart).
fn whole_uses(block: &syn::Block) -> HashSet<String> {
    struct Find(HashSet<String>);
    impl<'ast> Visit<'ast> for Find {
        fn visit_expr(&mut self, expr: &'ast Expr) {
            match expr {
                Expr::Index(index) if matches!(strip(&index.expr), Expr::Path(_)) => {
                    self.visit_expr(&index.index)
                }
                Expr::Path(p) => {
                    if let Some(ident) = p.path.get_ident() {
                        self.0.insert(ident.to_string());
                    }
                }
                _ => syn::visit::visit_expr(self, expr),
            }
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            fn idents(tokens: proc_macro2::TokenStream, out: &mut HashSet<String>) {
                for tree in tokens {
                    match tree {
                        proc_macro2::TokenTree::Ident(i) => {
                            out.insert(i.to_string());
                        }
                        proc_macro2::TokenTree::Group(g) => idents(g.stream(), out),
                        _ => {}
                    }
                }
            }
            idents(mac.tokens.clone(), &mut self.0);
        }
    }
    let mut find = Find(HashSet::new());
    find.visit_block(block);
    find.0
}

/// Writes out the `for` nests among `stmts` and in the branches and blocks
/// they hold; returns whether it wrote out any. In the function body
/// (`Mode::Body`) a nest that cannot be written out, or is too big,
/// stays a loop, and in its body only nests that fill an array at their
/// index are written out (`Mode::Kept`). In an iteration
/// being written out (`Mode::Strict`, `indices` its enclosing indices) every
/// `for` loop must be, or the whole nest stays a loop (`None`); there an
/// `if` on the indices alone (`if i == j`) is decided (`fold`).
fn rewrite(stmts: &mut Vec<Stmt>, indices: &HashMap<String, i128>, mode: Mode<'_>) -> Option<bool> {
    let strict = matches!(mode, Mode::Strict);
    let mut changed = false;
    let mut out = Vec::with_capacity(stmts.len());
    for mut stmt in stmts.drain(..) {
        if strict {
            let kept = match &mut stmt {
                Stmt::Expr(expr, _) => fold(expr, indices),
                Stmt::Local(local) => {
                    if let Some(init) = &mut local.init {
                        fold(&mut init.expr, indices);
                    }
                    true
                }
                _ => true,
            };
            if !kept {
                continue;
            }
        }
        if let Stmt::Expr(Expr::ForLoop(for_loop), _) = &stmt {
            match written_out(for_loop, indices) {
                Some(iterations)
                    if strict
                        || (statements(&iterations) <= MAX_STATEMENTS
                            && match mode {
                                Mode::Body(_) => true,
                                Mode::Kept(whole) => {
                                    splits_arrays(for_loop, whole)
                                        && iterations.len() <= MAX_KEPT_TRIPS
                                        && statements(&iterations) <= MAX_KEPT_STATEMENTS
                                }
                                Mode::Strict => false,
                            }) =>
                {
                    out.extend(iterations);
                    changed = true;
                }
                _ if strict => return None,
                _ => {
                    // a loop that stays a loop: the small nests in its body
                    // are written out in it (a pair loop's `for k in 0..3`)
                    let mut stmt = stmt;
                    let whole = match mode {
                        Mode::Body(whole) | Mode::Kept(whole) => whole,
                        Mode::Strict => unreachable!("a nest being written out has no loop left"),
                    };
                    if let Stmt::Expr(Expr::ForLoop(for_loop), _) = &mut stmt {
                        changed |= rewrite(&mut for_loop.body.stmts, indices, Mode::Kept(whole))?;
                    }
                    out.push(stmt);
                }
            }
            continue;
        }
        changed |= match &mut stmt {
            Stmt::Expr(expr, _) => rewrite_expr(expr, indices, mode)?,
            Stmt::Local(local) => match &mut local.init {
                Some(init) => rewrite_expr(&mut init.expr, indices, mode)?,
                None => false,
            },
            _ => false,
        };
        out.push(stmt);
    }
    *stmts = out;
    Some(changed)
}

/// [`rewrite`] in the blocks of an `if` or a bare block (a `for` loop
/// anywhere else, in an expression, is refused by `plain_body` in a nest
/// being written out, and left alone in the body).
fn rewrite_expr(expr: &mut Expr, indices: &HashMap<String, i128>, mode: Mode<'_>) -> Option<bool> {
    match expr {
        Expr::If(if_) => {
            let mut changed = rewrite(&mut if_.then_branch.stmts, indices, mode)?;
            if let Some((_, else_)) = &mut if_.else_branch {
                changed |= rewrite_expr(else_, indices, mode)?;
            }
            Some(changed)
        }
        Expr::Block(block) if block.label.is_none() => {
            rewrite(&mut block.block.stmts, indices, mode)
        }
        _ => Some(false),
    }
}

/// The iterations of `for_loop` written out, each `{ let i = v; body }`
/// with the `for` loops in the body written out too; `None` when it or a
/// loop in it cannot be.
fn written_out(for_loop: &syn::ExprForLoop, indices: &HashMap<String, i128>) -> Option<Vec<Stmt>> {
    if for_loop.label.is_some() || !for_loop.attrs.is_empty() {
        return None;
    }
    let index = match &*for_loop.pat {
        Pat::Ident(ident) if ident.by_ref.is_none() && ident.subpat.is_none() => Some(ident),
        Pat::Wild(_) => None,
        _ => return None,
    };
    let values = range_values(&for_loop.expr, indices)?;
    let name = index.map(|ident| ident.ident.to_string());
    if !plain_body(&for_loop.body, name.as_deref()) {
        return None;
    }
    let mut iterations = Vec::with_capacity(values.len());
    for value in values {
        let mut body = for_loop.body.clone();
        let mut inner = indices.clone();
        if let Some(name) = &name {
            // (rebound in the body, the name no longer gives the index's
            // value to the loops after: they are then not written out)
            if rebinds(&body, name) || index.is_some_and(|i| i.mutability.is_some()) {
                inner.remove(name);
            } else {
                inner.insert(name.clone(), value.value);
            }
        }
        // (a `for` loop in an expression, a closure's body, stays a loop:
        // then none is written out)
        if rewrite(&mut body.stmts, &inner, Mode::Strict).is_none() || has_loop(&body) {
            return None;
        }
        // an element at an index the known indices decide, `d[k]` or
        // `p[3 * i + j]`, is read at the literal, `d[0]`, `p[5]`: a small
        // array read and written at literal indices only is then one local
        // per element (`syntax::split_array_locals`)
        KnownIndices { indices: &inner }.visit_block_mut(&mut body);
        if let Some(index) = index {
            let literal = syn::LitInt::new(
                &format!("{}{}", value.value, value.suffix),
                index.ident.span(),
            );
            let mutability = index.mutability;
            let ident = &index.ident;
            let binding: Stmt = syn::parse_quote!(let #mutability #ident = #literal;);
            body.stmts.insert(0, binding);
        }
        iterations.push(Stmt::Expr(
            Expr::Block(syn::ExprBlock {
                attrs: Vec::new(),
                label: None,
                block: body,
            }),
            None,
        ));
    }
    Some(iterations)
}

/// Replaces an `if` whose condition reads only known indices by the
/// branch it takes (an `else if` chain branch by branch); false when that
/// leaves nothing (a false condition without `else`).
fn fold(expr: &mut Expr, indices: &HashMap<String, i128>) -> bool {
    while let Expr::If(if_) = expr {
        let Some(taken) = decide(&if_.cond, indices) else {
            return true;
        };
        let chosen = if taken {
            Expr::Block(syn::ExprBlock {
                attrs: Vec::new(),
                label: None,
                block: if_.then_branch.clone(),
            })
        } else {
            match if_.else_branch.take() {
                Some((_, else_)) => *else_,
                None => return false,
            }
        };
        *expr = chosen;
    }
    true
}

/// The value of a condition on known indices: comparisons of bounds
/// (`eval`) under `&&`, `||` and `!`.
fn decide(expr: &Expr, indices: &HashMap<String, i128>) -> Option<bool> {
    match strip(expr) {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Bool(lit),
            ..
        }) => Some(lit.value),
        Expr::Unary(unary) if matches!(unary.op, syn::UnOp::Not(_)) => {
            decide(&unary.expr, indices).map(|b| !b)
        }
        Expr::Binary(binary) => match binary.op {
            BinOp::And(_) => {
                Some(decide(&binary.left, indices)? && decide(&binary.right, indices)?)
            }
            BinOp::Or(_) => Some(decide(&binary.left, indices)? || decide(&binary.right, indices)?),
            op => {
                let (a, b) = (eval(&binary.left, indices)?, eval(&binary.right, indices)?);
                match op {
                    BinOp::Eq(_) => Some(a == b),
                    BinOp::Ne(_) => Some(a != b),
                    BinOp::Lt(_) => Some(a < b),
                    BinOp::Le(_) => Some(a <= b),
                    BinOp::Gt(_) => Some(a > b),
                    BinOp::Ge(_) => Some(a >= b),
                    _ => None,
                }
            }
        },
        _ => None,
    }
}

/// One value of a loop's index, with the integer suffix its range's
/// literals were written with (`0usize..3`), if any.
struct Value {
    value: i128,
    suffix: String,
}

/// The values a range of literals and known indices takes, in order.
fn range_values(expr: &Expr, indices: &HashMap<String, i128>) -> Option<Vec<Value>> {
    let (range, reversed) = match strip(expr) {
        Expr::MethodCall(call) if call.method == "rev" && call.args.is_empty() => {
            (strip(&call.receiver), true)
        }
        range => (range, false),
    };
    let Expr::Range(range) = range else {
        return None;
    };
    let (start, end) = (range.start.as_deref()?, range.end.as_deref()?);
    let (first, end_value) = (eval(start, indices)?, eval(end, indices)?);
    let last = match range.limits {
        syn::RangeLimits::HalfOpen(_) => end_value - 1,
        syn::RangeLimits::Closed(_) => end_value,
    };
    let trips = (last - first + 1).max(0);
    if trips > MAX_TRIPS {
        return None;
    }
    let suffix = suffix(start).or_else(|| suffix(end)).unwrap_or_default();
    let mut values: Vec<Value> = (first..=last)
        .map(|value| Value {
            value,
            suffix: suffix.clone(),
        })
        .collect();
    if reversed {
        values.reverse();
    }
    Some(values)
}

fn strip(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(inner) => strip(&inner.expr),
        Expr::Group(inner) => strip(&inner.expr),
        _ => expr,
    }
}

/// The suffix of a bound that is an integer literal (`3usize`).
fn suffix(expr: &Expr) -> Option<String> {
    match strip(expr) {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(lit),
            ..
        }) if !lit.suffix().is_empty() => Some(lit.suffix().to_string()),
        _ => None,
    }
}

/// The value of a bound: integer literals and known indices under `+ - * /
/// %`; `None` for anything else, and where a value on the way is negative
/// or overflows.
fn eval(expr: &Expr, indices: &HashMap<String, i128>) -> Option<i128> {
    let value = match strip(expr) {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(lit),
            ..
        }) => lit.base10_parse::<i128>().ok()?,
        Expr::Path(path) if path.qself.is_none() => {
            let ident = path.path.get_ident()?;
            *indices.get(&ident.to_string())?
        }
        Expr::Binary(binary) => {
            let (a, b) = (eval(&binary.left, indices)?, eval(&binary.right, indices)?);
            match binary.op {
                BinOp::Add(_) => a.checked_add(b)?,
                BinOp::Sub(_) => a.checked_sub(b)?,
                BinOp::Mul(_) => a.checked_mul(b)?,
                BinOp::Div(_) => a.checked_div(b)?,
                BinOp::Rem(_) => a.checked_rem(b)?,
                _ => return None,
            }
        }
        _ => return None,
    };
    (0..=u32::MAX as i128).contains(&value).then_some(value)
}

/// Whether a loop body may be written out: no jump or `return` out of it,
/// no `?`, no loop other than `for` loops (themselves written out), no
/// macro or item (which could name the index in tokens, or be defined
/// twice), no method call on an expression naming the index.
fn plain_body(body: &syn::Block, index: Option<&str>) -> bool {
    struct Check<'a> {
        index: Option<&'a str>,
        plain: bool,
    }
    impl<'ast> Visit<'ast> for Check<'_> {
        fn visit_expr(&mut self, expr: &'ast Expr) {
            match expr {
                Expr::Break(_)
                | Expr::Continue(_)
                | Expr::Return(_)
                | Expr::Try(_)
                | Expr::Loop(_)
                | Expr::While(_)
                | Expr::Macro(_)
                | Expr::Async(_)
                | Expr::Await(_)
                | Expr::Yield(_)
                | Expr::TryBlock(_)
                | Expr::Verbatim(_) => self.plain = false,
                Expr::MethodCall(call) => {
                    if let Some(index) = self.index {
                        self.plain &= !names(&call.receiver, index);
                    }
                }
                _ => {}
            }
            syn::visit::visit_expr(self, expr);
        }
        fn visit_stmt(&mut self, stmt: &'ast Stmt) {
            match stmt {
                Stmt::Item(_) | Stmt::Macro(_) => self.plain = false,
                _ => {}
            }
            syn::visit::visit_stmt(self, stmt);
        }
    }
    let mut check = Check { index, plain: true };
    check.visit_block(body);
    check.plain
}

/// Whether `expr` names `index` (as a path of one segment).
fn names(expr: &Expr, index: &str) -> bool {
    struct Find<'a> {
        index: &'a str,
        found: bool,
    }
    impl<'ast> Visit<'ast> for Find<'_> {
        fn visit_path(&mut self, path: &'ast syn::Path) {
            self.found |= path.is_ident(self.index);
            syn::visit::visit_path(self, path);
        }
    }
    let mut find = Find {
        index,
        found: false,
    };
    find.visit_expr(expr);
    find.found
}

/// Whether `body` binds `name` again (a `let`, a closure's or a loop's
/// pattern).
fn rebinds(body: &syn::Block, name: &str) -> bool {
    struct Find<'a> {
        name: &'a str,
        found: bool,
    }
    impl<'ast> Visit<'ast> for Find<'_> {
        fn visit_pat_ident(&mut self, pat: &'ast syn::PatIdent) {
            self.found |= pat.ident == self.name;
            syn::visit::visit_pat_ident(self, pat);
        }
    }
    let mut find = Find { name, found: false };
    find.visit_block(body);
    find.found
}

/// Replaces the index expressions that `indices` decide (`3 * i + j`, not
/// a literal already) by their value.
struct KnownIndices<'a> {
    indices: &'a HashMap<String, i128>,
}

impl syn::visit_mut::VisitMut for KnownIndices<'_> {
    fn visit_expr_index_mut(&mut self, index: &mut syn::ExprIndex) {
        syn::visit_mut::visit_expr_index_mut(self, index);
        if matches!(strip(&index.index), Expr::Lit(_)) {
            return;
        }
        if let Some(value) = eval(&index.index, self.indices) {
            let literal = syn::LitInt::new(&value.to_string(), proc_macro2::Span::call_site());
            *index.index = syn::parse_quote!(#literal);
        }
    }

    // (a macro's tokens are left as written)
    fn visit_macro_mut(&mut self, _: &mut syn::Macro) {}
}

/// Whether `body` holds a `for` loop.
fn has_loop(body: &syn::Block) -> bool {
    struct Find(bool);
    impl<'ast> Visit<'ast> for Find {
        fn visit_expr_for_loop(&mut self, _: &'ast syn::ExprForLoop) {
            self.0 = true;
        }
    }
    let mut find = Find(false);
    find.visit_block(body);
    find.0
}

/// Statements in `stmts` and nested in them.
fn statements(stmts: &[Stmt]) -> usize {
    struct Count(usize);
    impl<'ast> Visit<'ast> for Count {
        fn visit_stmt(&mut self, stmt: &'ast Stmt) {
            self.0 += 1;
            syn::visit::visit_stmt(self, stmt);
        }
    }
    let mut count = Count(0);
    for stmt in stmts {
        count.visit_stmt(stmt);
    }
    count.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    fn unrolled(body: &str) -> String {
        let mut block: syn::Block = syn::parse_str(body).unwrap();
        unroll_small_nests(&mut block);
        block.to_token_stream().to_string()
    }

    #[test]
    fn a_triangular_nest_is_written_out() {
        let out = unrolled("{ for i in 0..3 { for k in 0..i { s += l[i * 3 + k]; } } }");
        assert_eq!(
            out,
            "{ { let i = 0 ; } { let i = 1 ; { let k = 0 ; s += l [3] ; } } \
             { let i = 2 ; { let k = 0 ; s += l [6] ; } { let k = 1 ; s += l [7] ; } } }"
        );
    }

    #[test]
    fn reversed_inclusive_and_suffixed_ranges() {
        assert_eq!(
            unrolled("{ for j in (1usize..=2).rev() { t(j); } }"),
            "{ { let j = 2usize ; t (j) ; } { let j = 1usize ; t (j) ; } }"
        );
        assert_eq!(
            unrolled("{ for i in (0..3).rev() { for k in (i + 1)..3 { t(i, k); } } }"),
            "{ { let i = 2 ; } { let i = 1 ; { let k = 2 ; t (i , k) ; } } \
             { let i = 0 ; { let k = 1 ; t (i , k) ; } { let k = 2 ; t (i , k) ; } } }"
        );
    }

    #[test]
    fn branches_on_the_indices_are_decided() {
        assert_eq!(
            unrolled(
                "{ for i in 0..2 { for j in 0..=i { if i == j { d(i); } else if j + 1 == i && !false { o(i, j); } else { n(); } } } }"
            ),
            "{ { let i = 0 ; { let j = 0 ; { d (i) ; } } } \
             { let i = 1 ; { let j = 0 ; { o (i , j) ; } } { let j = 1 ; { d (i) ; } } } }"
        );
        // a false condition without `else`: nothing; one on a value: kept
        assert_eq!(
            unrolled("{ for i in 0..2 { if i > 0 { t(i); } if x > 0.0 { u(i); } } }"),
            "{ { let i = 0 ; if x > 0.0 { u (i) ; } } { let i = 1 ; { t (i) ; } if x > 0.0 { u (i) ; } } }"
        );
    }

    #[test]
    fn loops_that_stay_loops() {
        for body in [
            // a bound that is not a literal, in the nest or around it
            "{ for i in 0..n { for k in 0..3 { t(k); } } }",
            "{ for i in 0..3 { for k in 0..n { t(k); } } }",
            // a negative value on the way (`0..i - 1` at `i = 0`)
            "{ for i in 0..3 { for k in 0..i - 1 { t(k); } } }",
            // jumps, loops of other kinds, macros, items, labels
            "{ for i in 0..3 { if c { break; } } }",
            "{ for i in 0..3 { while c { t(i); } } }",
            "{ for i in 0..3 { println!(\"{}\", i); } }",
            "{ for i in 0..3 { fn g() {} } }",
            "{ 'a: for i in 0..3 { t(i); } }",
            // a method call on the index (its type is the range's, unknown)
            "{ for i in 0..3 { t(i.pow(2)); } }",
            // too many iterations
            "{ for i in 0..65 { t(i); } }",
            // not a range
            "{ for v in xs.iter() { t(v); } }",
        ] {
            let mut block: syn::Block = syn::parse_str(body).unwrap();
            assert!(!unroll_small_nests(&mut block), "{body}");
        }
    }

    #[test]
    fn in_a_loop_that_stays_a_loop_only_small_fills_are_written_out() {
        let written = |body: &str| {
            let mut block: syn::Block = syn::parse_str(body).unwrap();
            let changed = unroll_small_nests(&mut block);
            (changed, block.to_token_stream().to_string())
        };
        // a pair loop's fill of its displacement: written out, the element
        // indexed by the index alone read at the literal
        let (changed, text) =
            written("{ for j in 0..n { for k in 0..3 { d[k] = x[3 * j + k]; } s += d[0]; } }");
        assert!(changed, "{text}");
        assert!(
            text.contains("let k = 0 ; d [0] = x [3 * j + k] ;"),
            "{text}"
        );
        assert!(text.contains("d [2] = x [3 * j + k] ;"), "{text}");
        // a 3×3 product: every index decided
        let (changed, text) = written(
            "{ for t in 0..n { for i in 0..3 { for j in 0..3 { c[3 * i + j] = a[3 * i] * b[j]; } } } }",
        );
        assert!(changed, "{text}");
        assert!(text.contains("c [5] = a [3] * b [2] ;"), "{text}");
        // a reduction, a loop of more than four, a nest too long, a fill of
        // an array given whole to a call (it stays an array): kept
        for body in [
            "{ for t in 0..n { for i in 0..2 { ys[i] = y[i] * h; } k = rhs(&ys, p); } }",
            "{ for j in 0..n { for k in 0..3 { r2 += x[k] * x[k]; } } }",
            "{ for j in 0..n { for k in 0..5 { d[k] = x[k]; } } }",
            "{ for j in 0..n { for k in 0..4 { d[k] = x[k]; t(k); t(k); t(k); t(k); t(k); t(k); t(k); t(k); t(k); t(k); t(k); t(k); t(k); t(k); t(k); t(k); } } }",
        ] {
            assert!(!written(body).0, "{body}");
        }
    }

    #[test]
    fn a_rebound_index_is_not_known_to_the_loops_after() {
        // `i` rebound: the inner range no longer reads the outer index
        let mut block: syn::Block =
            syn::parse_str("{ for i in 0..2 { let i = 5; for k in 0..i { t(k); } } }").unwrap();
        assert!(!unroll_small_nests(&mut block));
        // but a loop of the body that does not read it is still written out
        assert_eq!(
            unrolled("{ for i in 0..2 { let i = 5; for k in 0..2 { t(i, k); } } }"),
            "{ { let i = 0 ; let i = 5 ; { let k = 0 ; t (i , k) ; } { let k = 1 ; t (i , k) ; } } \
             { let i = 1 ; let i = 5 ; { let k = 0 ; t (i , k) ; } { let k = 1 ; t (i , k) ; } } }"
        );
    }

    #[test]
    fn nests_in_branches_are_written_out_and_nests_in_kept_loops_are_not() {
        assert_eq!(
            unrolled("{ if c { for i in 0..2 { t(i); } } }"),
            "{ if c { { let i = 0 ; t (i) ; } { let i = 1 ; t (i) ; } } }"
        );
        let mut block: syn::Block =
            syn::parse_str("{ for s in 0..n { for i in 0..2 { t(i); } } }").unwrap();
        assert!(!unroll_small_nests(&mut block));
    }
}
