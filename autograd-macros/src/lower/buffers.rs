//! Scratch buffers declared inside a loop, hoisted out of it.
//!
//! Users often declare a scratch buffer where they use it, inside the loop:
//!
//! ```text
//! for i in 0..n {
//!     for c in 0..k {
//!         let mut xc = vec![0.0; d];
//!         for j in 0..d { xc[j] = x[i * d + j] - mu[c * d + j]; }  // filled first
//!         ..
//!     }
//! }
//! ```
//!
//! A buffer declared in a loop's body is one per iteration to the
//! emitter: taken from a pool, and for the reverse sweep its every
//! iteration's shape and values kept (a recorded nest's "arrays declared
//! in nests"). The same buffer declared before the loop, overwritten by
//! each iteration, is one array whose overwritten values an undo tape
//! keeps, which costs far less: ADBench's mixture objective with its two
//! per-component buffers inside its loops is 1.81–2.05× the hand-written
//! gradient in instructions, 1.13–1.24× with them before (BENCHMARKS.md).
//! When every iteration fills the buffer before it reads it, the two are
//! the same program, and lowering hoists the declaration out. Precisely,
//! a `let mut b = vec![lit; n];` at the top level of a loop's body moves
//! before the loop when
//!
//! 1. `n` can be evaluated early: names, literals, fields, `+`, `*`,
//!    casts and `.len()` (no `-`, `/` or indexing, which could panic where
//!    a loop that never runs would not); nothing in the loop binds again
//!    or changes a name `n` reads (so every iteration's length is the
//!    hoisted one), and the loop's pattern binds none of them;
//! 2. nothing in the loop before the declaration, nor the loop's header,
//!    nor what follows the loop in its block, names `b`;
//! 3. after the declaration, the first statement that uses `b` is a
//!    **fill**, `for j in 0..n { ..; b[j] = e; .. }` (or `0..b.len()`),
//!    storing every element once at the top of its body with no way out of
//!    it before the end (no `break`, `continue` of an outer loop, `return`
//!    or `?`), and reading `b` nowhere else — or the one loop that holds
//!    every use has such a fill first in its body, and so on down;
//! 4. what follows the fill keeps `b`'s length (indexing, `&b`, read-only
//!    methods and the in-place ones, `fill`, `swap`, ..; no `&mut b`, no
//!    assignment of the whole, no `push`);
//! 5. the loop passes no call `b` (`lse(&b)`): such a loop may be fused
//!    (`fuse.rs`, which takes loops storing only into arrays of their own),
//!    and a fused loop calls the callee's adjoint in place of the callee,
//!    running it once rather than twice, which is worth more than the pool
//!    (a softmax regression through a log-sum-exp helper: 1.72–1.92× with
//!    its buffer inside, 2.05–2.30× before).
//!
//! Arrays (`[0.0; 3]`) stay where they are: small ones are split into
//! locals or written out with their loops. The function `f` itself is
//! emitted as written; only the lowering of its derivatives sees the move.

use super::syntax::{
    binds_anywhere, first_jump, mentions_ident, pattern_names, read_only_method, simple,
    strip_parens, vec_macro_exprs,
};
use quote::ToTokens;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Expr, Stmt};

/// `stmts` with each buffer that a loop after it fills before every use
/// declared at the top of that loop's body instead (a `vec!` only if the
/// loop gives it to a call).
fn buffers_into_loops(stmts: &[Stmt]) -> Vec<Stmt> {
    let mut out = stmts.to_vec();
    let mut k = 0;
    while k < out.len() {
        if let Some(buffer) = Buffer::declared(&out[k]) {
            // (a `Vec` not given to a call is better before the loop: see
            // `place_buffers`)
            if let Some(moved) = buffer.moved_into_loop(&out, k) {
                out = moved;
                continue; // `k` is now the statement after the declaration
            }
        }
        k += 1;
    }
    out
}

/// Places, in every block of `body` from the innermost out, the buffers
/// that a loop of the block fills before every use: a fixed-size array or
/// a `vec!` given to a call declared before the loop moves into it
/// ([`buffers_into_loops`]), a `vec!` declared in it moves out.
///
/// Done before small nests are written out (`unroll.rs`), which leave no
/// fill loop to recognize: a pair loop's `for k in 0..3 { d[k] = .. }`.
pub fn place_buffers(body: &mut syn::Block) {
    Placer.visit_block_mut(body);
}

struct Placer;

impl VisitMut for Placer {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        syn::visit_mut::visit_block_mut(self, block);
        block.stmts = buffers_into_loops(&block.stmts);
        let mut k = 0;
        while k < block.stmts.len() {
            let (before, after) = block.stmts.split_at_mut(k + 1);
            let hoisted = match &mut before[k] {
                Stmt::Expr(looped, _) => hoist_from(looped, after),
                _ => Vec::new(),
            };
            let count = hoisted.len();
            for (i, decl) in hoisted.into_iter().enumerate() {
                block.stmts.insert(k + i, decl);
            }
            k += count + 1;
        }
    }
}

/// Takes out of `looped`'s body the buffer declarations that may stand
/// before it (`after`: the statements that follow it in its block), in
/// order.
fn hoist_from(looped: &mut Expr, after: &[Stmt]) -> Vec<Stmt> {
    let mut hoisted = Vec::new();
    let mut m = 0;
    loop {
        let body = match &*looped {
            Expr::ForLoop(f) => &f.body,
            Expr::While(w) => &w.body,
            Expr::Loop(l) => &l.body,
            _ => return hoisted,
        };
        let Some(m_found) = (m..body.stmts.len()).find(|&i| {
            Buffer::declared(&body.stmts[i])
                .is_some_and(|b| b.growable && b.hoistable(looped, i, after))
        }) else {
            return hoisted;
        };
        let body = match looped {
            Expr::ForLoop(f) => &mut f.body,
            Expr::While(w) => &mut w.body,
            Expr::Loop(l) => &mut l.body,
            _ => return hoisted,
        };
        hoisted.push(body.stmts.remove(m_found));
        m = m_found;
    }
}

/// A declaration `let mut b = vec![lit; n];` (or `[lit; n]`, typed or not).
struct Buffer {
    decl: Stmt,
    name: String,
    /// The length as written, `n`.
    len: Expr,
    /// The names `len` reads.
    len_names: Vec<String>,
    /// A `Vec` (whose length could change), not an array.
    growable: bool,
}

impl Buffer {
    fn declared(stmt: &Stmt) -> Option<Buffer> {
        let Stmt::Local(local) = stmt else {
            return None;
        };
        let pat = match &local.pat {
            syn::Pat::Type(t) => &*t.pat,
            other => other,
        };
        let syn::Pat::Ident(p) = pat else {
            return None;
        };
        if p.mutability.is_none() || p.by_ref.is_some() || p.subpat.is_some() {
            return None;
        }
        let init = local.init.as_ref().filter(|i| i.diverge.is_none())?;
        let (value, len, growable) = match strip_parens(&init.expr) {
            Expr::Repeat(r) => ((*r.expr).clone(), (*r.len).clone(), false),
            Expr::Macro(m) => match vec_macro_exprs(&m.mac)? {
                (mut parts, true) => {
                    let len = parts.pop()?;
                    (parts.pop()?, len, true)
                }
                (_, false) => return None,
            },
            _ => return None,
        };
        let literal = match strip_parens(&value) {
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => strip_parens(&u.expr),
            other => other,
        };
        if !matches!(literal, Expr::Lit(_)) || !simple(&len) {
            return None;
        }
        let len_names = super::syntax::path_names(&len);
        Some(Buffer {
            decl: stmt.clone(),
            name: p.ident.to_string(),
            len,
            len_names,
            growable,
        })
    }

    /// Whether this declaration, statement `at` of `looped`'s body, may
    /// stand before the loop (conditions 1 to 5 of the module's doc).
    fn hoistable(&self, looped: &Expr, at: usize, after: &[Stmt]) -> bool {
        let (header_ok, body) = match looped {
            Expr::ForLoop(f) => {
                let bound = pattern_names(&f.pat);
                let ok = !mentions(&f.expr, &self.name)
                    && !bound
                        .iter()
                        .any(|n| *n == self.name || self.len_names.contains(n));
                (ok, &f.body)
            }
            Expr::While(w) => (!mentions(&w.cond, &self.name), &w.body),
            Expr::Loop(l) => (true, &l.body),
            _ => return false,
        };
        let stmts = &body.stmts;
        if !header_ok
            || !early_len(&self.len)
            || stmts[..at].iter().any(|s| mentions(s, &self.name))
            || stmts
                .iter()
                .enumerate()
                .any(|(i, s)| i != at && self.changes_len(s))
            || after.iter().any(|s| mentions(s, &self.name))
            || passed_to_a_call(body, &self.name)
        {
            return false;
        }
        // Put back at the top of the body (or deeper), the declaration
        // must find its fill first.
        let mut without = looped.clone();
        if let Expr::ForLoop(syn::ExprForLoop { body, .. })
        | Expr::While(syn::ExprWhile { body, .. })
        | Expr::Loop(syn::ExprLoop { body, .. }) = &mut without
        {
            body.stmts.remove(at);
        }
        self.place(&mut without)
    }

    /// `stmts` with the declaration at `k` moved into the loop that fills
    /// it before every use, if there is one.
    fn moved_into_loop(&self, stmts: &[Stmt], k: usize) -> Option<Vec<Stmt>> {
        let rest = &stmts[k + 1..];
        let mut users = rest
            .iter()
            .enumerate()
            .filter(|(_, s)| mentions(s, &self.name));
        let (at, _) = users.next()?;
        if users.next().is_some() {
            return None;
        }
        // Nothing from the declaration to the loop's end may change or bind
        // again a name the length reads: at the top of the loop's body the
        // length must be the one the declaration computed.
        if rest[..=at].iter().any(|s| self.changes_len(s)) {
            return None;
        }
        let mut users_loop = rest[at].clone();
        let Stmt::Expr(expr, _) = &mut users_loop else {
            return None;
        };
        let body = match &*expr {
            Expr::ForLoop(f) => &f.body,
            Expr::While(w) => &w.body,
            Expr::Loop(l) => &l.body,
            _ => return None,
        };
        // (a `vec!` moves in for the loop to be fused, which a store into an
        // array from outside it forbids: a recurrent state, `s[h + i] = ..`)
        if self.growable
            && (!passed_to_a_call(body, &self.name) || stores_outside(body, &self.name))
        {
            return None;
        }
        if !self.place(expr) {
            return None;
        }
        let mut out = stmts[..k].to_vec();
        out.extend(rest[..at].iter().cloned());
        out.push(users_loop);
        out.extend(rest[at + 1..].iter().cloned());
        Some(out)
    }

    /// Declares the buffer in `looped`'s body, or in the body of the one
    /// loop in it that holds every use, if that body fills it first.
    fn place(&self, looped: &mut Expr) -> bool {
        let body = match looped {
            Expr::ForLoop(f) if !mentions(&f.expr, &self.name) => &mut f.body,
            Expr::While(w) if !mentions(&w.cond, &self.name) => &mut w.body,
            Expr::Loop(l) => &mut l.body,
            _ => return false,
        };
        let uses: Vec<usize> = (0..body.stmts.len())
            .filter(|&i| mentions(&body.stmts[i], &self.name))
            .collect();
        let Some(&first) = uses.first() else {
            return false;
        };
        // Deeper first: the innermost loop that holds every use.
        if let [only] = uses[..] {
            if let Stmt::Expr(inner @ (Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_)), _) =
                &mut body.stmts[only]
            {
                if self.place(inner) {
                    return true;
                }
            }
        }
        if !self.fills(&body.stmts[first])
            || body.stmts[first + 1..].iter().any(|s| !self.keeps_len(s))
        {
            return false;
        }
        body.stmts.insert(0, self.decl.clone());
        true
    }

    /// Whether `stmt` changes or binds again a name the length reads.
    fn changes_len(&self, stmt: &Stmt) -> bool {
        let mut scan = Changes {
            names: &self.len_names,
            found: false,
        };
        scan.visit_stmt(stmt);
        scan.found
    }

    /// `for j in 0..len { ..; b[j] = e; .. }`: every element stored once, at
    /// the top of the body, which reads the buffer nowhere else and has no
    /// way out before its end.
    fn fills(&self, stmt: &Stmt) -> bool {
        let Stmt::Expr(Expr::ForLoop(f), _) = stmt else {
            return false;
        };
        let syn::Pat::Ident(index) = &*f.pat else {
            return false;
        };
        if index.mutability.is_some() || index.by_ref.is_some() || index.subpat.is_some() {
            return false;
        }
        let Expr::Range(range) = strip_parens(&f.expr) else {
            return false;
        };
        let from_zero = matches!(
            range.start.as_deref().map(strip_parens),
            Some(Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. })) if i.base10_digits() == "0"
        );
        let to_len = range
            .end
            .as_deref()
            .is_some_and(|end| same_tokens(end, &self.len) || is_len_of(end, &self.name));
        if !from_zero || !to_len || !matches!(range.limits, syn::RangeLimits::HalfOpen(_)) {
            return false;
        }
        let index = index.ident.to_string();
        let mut stored = false;
        for stmt in &f.body.stmts {
            if let Some(value) = self.store_at(stmt, &index) {
                if stored || mentions(value, &self.name) {
                    return false;
                }
                stored = true;
                continue;
            }
            if mentions(stmt, &self.name) || leaves(stmt) {
                return false;
            }
            // (before the store, `j` must still be the loop's index)
            if !stored && binds_anywhere(stmt, &index) {
                return false;
            }
        }
        stored
    }

    /// The value of `stmt` if it is `b[j] = value;`.
    fn store_at<'s>(&self, stmt: &'s Stmt, index: &str) -> Option<&'s Expr> {
        let Stmt::Expr(Expr::Assign(assign), Some(_)) = stmt else {
            return None;
        };
        let Expr::Index(place) = strip_parens(&assign.left) else {
            return None;
        };
        let is = |e: &Expr, name: &str| matches!(strip_parens(e), Expr::Path(p) if p.qself.is_none() && p.path.is_ident(name));
        (is(&place.expr, &self.name) && is(&place.index, index)).then_some(&*assign.right)
    }

    /// Whether `stmt`'s uses of the buffer (if any) keep its length.
    fn keeps_len(&self, stmt: &Stmt) -> bool {
        let mut scan = LengthUses {
            name: &self.name,
            growable: self.growable,
            ok: true,
        };
        scan.visit_stmt(stmt);
        scan.ok
    }
}

/// Whether `len` can be evaluated before a loop that might not run:
/// nothing in it panics (no `-`, `/`, `%` or indexing).
fn early_len(len: &Expr) -> bool {
    match strip_parens(len) {
        Expr::Lit(_) | Expr::Path(_) => true,
        Expr::Field(f) => early_len(&f.base),
        Expr::Cast(c) => early_len(&c.expr),
        Expr::Binary(b) => {
            matches!(b.op, syn::BinOp::Add(_) | syn::BinOp::Mul(_))
                && early_len(&b.left)
                && early_len(&b.right)
        }
        Expr::MethodCall(m) => m.method == "len" && m.args.is_empty() && early_len(&m.receiver),
        _ => false,
    }
}

/// Whether a call of a function (not a method) in `body` is given `name`
/// whole or a part of it (`lse(&b)`, `dot(&b[..k], w)`; not an element,
/// `g(b[k])`, a number).
fn passed_to_a_call(body: &syn::Block, name: &str) -> bool {
    struct Finder<'n>(&'n str, bool);
    impl Finder<'_> {
        fn is_buffer(&self, arg: &Expr) -> bool {
            let named =
                |e: &Expr| matches!(strip_parens(e), Expr::Path(p) if p.path.is_ident(self.0));
            match strip_parens(arg) {
                Expr::Reference(r) => match strip_parens(&r.expr) {
                    Expr::Index(i) => {
                        named(&i.expr) && matches!(strip_parens(&i.index), Expr::Range(_))
                    }
                    other => named(other),
                },
                other => named(other),
            }
        }
    }
    impl<'a> Visit<'a> for Finder<'_> {
        fn visit_expr_call(&mut self, call: &'a syn::ExprCall) {
            self.1 |= call.args.iter().any(|a| self.is_buffer(a));
            syn::visit::visit_expr_call(self, call);
        }
    }
    let mut finder = Finder(name, false);
    finder.visit_block(body);
    finder.1
}

/// Whether `body` stores into an element of an array other than `name`
/// that it does not declare itself (`s[h + i] = ..`, `a[k] += ..`).
fn stores_outside(body: &syn::Block, name: &str) -> bool {
    struct Finder<'n> {
        name: &'n str,
        declared: Vec<String>,
        found: bool,
    }
    impl<'a> Visit<'a> for Finder<'_> {
        fn visit_local(&mut self, local: &'a syn::Local) {
            self.declared.extend(pattern_names(&local.pat));
            syn::visit::visit_local(self, local);
        }
        fn visit_expr(&mut self, expr: &'a Expr) {
            let place = match expr {
                Expr::Assign(a) => Some(&*a.left),
                Expr::Binary(b) if super::syntax::is_compound(&b.op) => Some(&*b.left),
                _ => None,
            };
            if let Some(Expr::Index(index)) = place.map(strip_parens) {
                let mut index = index;
                while let Expr::Index(inner) = strip_parens(&index.expr) {
                    index = inner;
                }
                let base = match strip_parens(&index.expr) {
                    Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
                    _ => None,
                };
                self.found |= !base.is_some_and(|b| b == self.name || self.declared.contains(&b));
            }
            syn::visit::visit_expr(self, expr);
        }
    }
    let mut finder = Finder {
        name,
        declared: Vec::new(),
        found: false,
    };
    finder.visit_block(body);
    finder.found
}

/// `b.len()`.
fn is_len_of(expr: &Expr, name: &str) -> bool {
    matches!(strip_parens(expr), Expr::MethodCall(m)
        if m.method == "len" && m.args.is_empty()
            && matches!(strip_parens(&m.receiver), Expr::Path(p) if p.path.is_ident(name)))
}

fn same_tokens(a: &Expr, b: &Expr) -> bool {
    strip_parens(a).to_token_stream().to_string() == strip_parens(b).to_token_stream().to_string()
}

fn mentions<T: ToTokens>(node: &T, name: &str) -> bool {
    mentions_ident(node.to_token_stream(), name)
}

/// Whether `stmt` may leave the loop iteration it is in before the end: a
/// `break` or `continue` of that loop or an outer one, a `return`, a `?`
/// (outside closures), or a macro that might hold one.
fn leaves(stmt: &Stmt) -> bool {
    struct Finder(bool);
    impl<'a> Visit<'a> for Finder {
        fn visit_expr(&mut self, expr: &'a Expr) {
            match expr {
                Expr::Try(_) => self.0 = true,
                Expr::Closure(_) => {}
                _ => syn::visit::visit_expr(self, expr),
            }
        }
        fn visit_macro(&mut self, mac: &'a syn::Macro) {
            let tokens = mac.tokens.clone();
            self.0 |= ["return", "break", "continue"]
                .iter()
                .any(|k| mentions_ident(tokens.clone(), k))
                || tokens.to_string().contains('?');
        }
    }
    let jumps = match stmt {
        Stmt::Expr(expr, _) => first_jump(expr).is_some(),
        Stmt::Local(local) => local
            .init
            .as_ref()
            .is_some_and(|init| first_jump(&init.expr).is_some() || init.diverge.is_some()),
        _ => false,
    };
    let mut finder = Finder(jumps);
    finder.visit_stmt(stmt);
    finder.0
}

/// Finds a change of one of `names`: an assignment to it or into it
/// (`n = ..`, `n += ..`, `sizes[0] = ..`), `&mut n`, a method that may
/// change it, or a pattern binding it again.
struct Changes<'n> {
    names: &'n [String],
    found: bool,
}

impl Changes<'_> {
    fn is_named(&self, expr: &Expr) -> bool {
        let mut base = strip_parens(expr);
        loop {
            match base {
                Expr::Index(i) => base = strip_parens(&i.expr),
                Expr::Field(f) => base = strip_parens(&f.base),
                _ => break,
            }
        }
        matches!(base, Expr::Path(p) if p.path.get_ident().is_some_and(|i| self.names.iter().any(|n| i == n)))
    }
}

impl<'a> Visit<'a> for Changes<'_> {
    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Assign(a) if self.is_named(&a.left) => self.found = true,
            Expr::Binary(b) if super::syntax::is_compound(&b.op) && self.is_named(&b.left) => {
                self.found = true
            }
            Expr::Reference(r) if r.mutability.is_some() && self.is_named(&r.expr) => {
                self.found = true
            }
            Expr::MethodCall(m)
                if self.is_named(&m.receiver) && !read_only_method(&m.method.to_string()) =>
            {
                self.found = true
            }
            _ => {}
        }
        syn::visit::visit_expr(self, expr);
    }

    fn visit_pat(&mut self, pat: &'a syn::Pat) {
        self.found |= pattern_names(pat).iter().any(|n| self.names.contains(n));
    }

    // (`vec![..]`'s expressions are visited; another macro naming one of
    // the names is taken for a change)
    fn visit_macro(&mut self, mac: &'a syn::Macro) {
        match vec_macro_exprs(mac) {
            Some((exprs, _)) => exprs.iter().for_each(|e| self.visit_expr(e)),
            None => {
                self.found |= self
                    .names
                    .iter()
                    .any(|n| mentions_ident(mac.tokens.clone(), n))
            }
        }
    }
}

/// Checks that the uses of a buffer keep its length: indexing, `&b`, `b`'s
/// read-only methods and the ones that change elements in place; for an
/// array, anything (its length is its type's).
struct LengthUses<'n> {
    name: &'n str,
    growable: bool,
    ok: bool,
}

/// Methods that change a slice's elements but never a `Vec`'s length.
const IN_PLACE_METHODS: &[&str] = &[
    "iter_mut",
    "fill",
    "swap",
    "copy_from_slice",
    "clone_from_slice",
    "reverse",
    "sort_by",
    "sort_unstable_by",
    "chunks_mut",
    "chunks_exact_mut",
    "get_mut",
    "first_mut",
    "last_mut",
    "as_slice",
    "as_mut_slice",
];

impl LengthUses<'_> {
    fn is_name(&self, expr: &Expr) -> bool {
        matches!(strip_parens(expr), Expr::Path(p) if p.qself.is_none() && p.path.is_ident(self.name))
    }
}

impl<'a> Visit<'a> for LengthUses<'_> {
    fn visit_expr(&mut self, expr: &'a Expr) {
        if !self.growable {
            return;
        }
        match strip_parens(expr) {
            Expr::Index(i) if self.is_name(&i.expr) => self.visit_expr(&i.index),
            Expr::MethodCall(m) if self.is_name(&m.receiver) => {
                let method = m.method.to_string();
                self.ok &= read_only_method(&method) || IN_PLACE_METHODS.contains(&method.as_str());
                for arg in &m.args {
                    self.visit_expr(arg);
                }
            }
            Expr::Reference(r) if self.is_name(&r.expr) => self.ok &= r.mutability.is_none(),
            Expr::Path(_) if self.is_name(expr) => self.ok = false,
            _ => syn::visit::visit_expr(self, expr),
        }
    }

    fn visit_macro(&mut self, mac: &'a syn::Macro) {
        match vec_macro_exprs(mac) {
            Some((exprs, _)) => exprs.iter().for_each(|e| self.visit_expr(e)),
            None => self.ok &= !self.growable || !mentions_ident(mac.tokens.clone(), self.name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::place_buffers;
    use quote::quote;

    /// The function body after the pass, as a string.
    fn hoisted(body: proc_macro2::TokenStream) -> String {
        let mut block: syn::Block = syn::parse2(quote!({ #body })).unwrap();
        place_buffers(&mut block);
        let stmts = &block.stmts;
        quote!(#(#stmts)*).to_string()
    }

    fn unchanged(body: proc_macro2::TokenStream) {
        let block: syn::Block = syn::parse2(quote!({ #body })).unwrap();
        let stmts = &block.stmts;
        assert_eq!(hoisted(body), quote!(#(#stmts)*).to_string());
    }

    #[test]
    fn a_buffer_filled_first_in_every_iteration_leaves_the_loop() {
        let after = hoisted(quote! {
            let mut total = 0.0;
            for s in 0..n {
                let mut logits = vec![0.0; k];
                for c in 0..k { let z = w[c] * x[s]; logits[c] = z; }
                total += logits[label[s]];
            }
            total
        });
        let expected = quote! {
            let mut total = 0.0;
            let mut logits = vec![0.0; k];
            for s in 0..n {
                for c in 0..k { let z = w[c] * x[s]; logits[c] = z; }
                total += logits[label[s]];
            }
            total
        };
        assert_eq!(after, expected.to_string());
    }

    #[test]
    fn buffers_leave_every_loop_they_may() {
        let after = hoisted(quote! {
            for i in 0..n {
                for c in 0..k {
                    let mut xc = vec![0.0; d];
                    let mut qx = vec![0.0; d];
                    for j in 0..xc.len() { xc[j] = x[i * d + j] - mu[c * d + j]; }
                    for j in 0..d { qx[j] = q[j] * xc[j]; }
                    s += qx[0] * xc[1];
                }
            }
        });
        let expected = quote! {
            let mut xc = vec![0.0; d];
            let mut qx = vec![0.0; d];
            for i in 0..n {
                for c in 0..k {
                    for j in 0..xc.len() { xc[j] = x[i * d + j] - mu[c * d + j]; }
                    for j in 0..d { qx[j] = q[j] * xc[j]; }
                    s += qx[0] * xc[1];
                }
            }
        };
        assert_eq!(after, expected.to_string());
    }

    #[test]
    fn a_buffer_whose_elements_alone_go_to_calls_stays_before_its_loop() {
        unchanged(quote! {
            let mut z = vec![0.0; k];
            for i in 0..n {
                for o in 0..k { z[o] = w[o] * x[i]; }
                for o in 0..k { loss += horner(c, z[o]); }
            }
        });
        let after = hoisted(quote! {
            for i in 0..n {
                let mut z = vec![0.0; k];
                for o in 0..k { z[o] = w[o] * x[i]; }
                for o in 0..k { loss += horner(c, z[o]); }
            }
        });
        assert!(
            after.starts_with("let mut z = vec ! [0.0 ; k] ; for i in 0 .. n {"),
            "{after}"
        );
        // a `vec!` given to a call, in a loop that stores into a state from
        // outside it (which no fusion could take): stays
        unchanged(quote! {
            let mut y = vec![0.0; k];
            for t in 0..n {
                for i in 0..k { y[i] = s[i] * w[t]; }
                total += lse(&y);
                for i in 0..k { s[i] = y[i].tanh(); }
            }
        });
        // an array given whole moves in
        let after = hoisted(quote! {
            let mut d = [0.0; 3];
            for j in 0..n { for k in 0..3 { d[k] = x[j + k]; } s += norm(&d); }
        });
        assert!(
            after.starts_with("for j in 0 .. n { let mut d = [0.0 ; 3] ;"),
            "{after}"
        );
    }

    #[test]
    fn buffers_that_carry_values_or_may_differ_stay() {
        // read before it is filled
        unchanged(quote! {
            for t in 0..n { let mut h = vec![0.0; k]; s += h[0]; for j in 0..k { h[j] = x[t]; } }
        });
        // filled partly, or by a loop that may stop early
        unchanged(quote! {
            for t in 0..n { let mut h = vec![0.0; k]; for j in 1..k { h[j] = x[t]; } s += h[0]; }
        });
        unchanged(quote! {
            for t in 0..n {
                let mut h = vec![0.0; k];
                for j in 0..k { if x[j] < 0.0 { break; } h[j] = x[t]; }
                s += h[1];
            }
        });
        unchanged(quote! {
            for t in 0..n {
                let mut h = vec![0.0; k];
                for j in 0..k { if x[j] < 0.0 { continue; } h[j] = x[t]; }
                s += h[1];
            }
        });
        // the fill reads it, or stores elsewhere
        unchanged(quote! {
            for t in 0..n { let mut h = vec![0.0; k]; for j in 0..k { h[j] = h[j] + x[t]; } s += h[1]; }
        });
        unchanged(quote! {
            for t in 0..n {
                let mut h = vec![0.0; k];
                for j in 0..k { h[k - 1 - j] = x[j]; h[j] = x[t]; }
                s += h[0];
            }
        });
        // it grows
        unchanged(quote! {
            for t in 0..n { let mut h = vec![0.0; k]; for j in 0..k { h[j] = x[t]; } h.push(1.0); s += h[k]; }
        });
        // its length differs from one iteration to the next, or may panic
        unchanged(quote! {
            for t in 0..n { let mut h = vec![0.0; t]; for j in 0..t { h[j] = x[j]; } s += h[0]; }
        });
        unchanged(quote! {
            for t in 0..n { let m = t + 1; let mut h = vec![0.0; m]; for j in 0..m { h[j] = x[j]; } s += h[0]; }
        });
        unchanged(quote! {
            for t in 0..n { let mut h = vec![0.0; k]; for j in 0..k { h[j] = x[t]; } s += h[0]; k += 1; }
        });
        unchanged(quote! {
            for t in 0..n { let mut h = vec![0.0; k - 1]; for j in 0..k - 1 { h[j] = x[t]; } s += h[0]; }
        });
        // its name means something else before it or after the loop
        unchanged(quote! {
            for t in 0..n { s += h[t]; let mut h = vec![0.0; k]; for j in 0..k { h[j] = x[t]; } s += h[0]; }
        });
        unchanged(quote! {
            for t in 0..n { let mut h = vec![0.0; k]; for j in 0..k { h[j] = x[t]; } s += h[0]; }
            s += h[1];
        });
        // given to a call: the loop may be fused and call the adjoint early
        unchanged(quote! {
            for t in 0..n { let mut h = vec![0.0; k]; for j in 0..k { h[j] = x[t]; } s += lse(&h); }
        });
        unchanged(quote! {
            for t in 0..n { let mut h = vec![0.0; k]; for j in 0..k { h[j] = x[t]; } s += dot(&h[1..], w); }
        });
        // arrays stay
        unchanged(quote! {
            for t in 0..n { let mut h = [0.0; 3]; for j in 0..3 { h[j] = x[t]; } s += h[0]; }
        });
    }
}
