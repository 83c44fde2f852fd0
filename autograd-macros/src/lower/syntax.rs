//! Syntax-level passes that run before lowering: rewrites that put jumps
//! where the IR wants them, and scans lowering asks questions of.

use crate::names::Names;
use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use std::collections::HashSet;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{BinOp, Expr, Stmt};

/// `for x in a.flat_map(|p| b).. { body }` (`iter::flat_chain`) is the
/// nested loop `'flat: for p in a { for x in b.. { body } }`, a `break` of
/// the body's own breaking both (`break 'flat`), rewritten before the
/// passes that read jumps. A labeled loop over such a chain is left as it
/// is (and refused where it is lowered).
pub fn flat_map_loops(block: &mut syn::Block, names: &Names) {
    struct Rewriter<'n> {
        names: &'n Names,
    }
    impl VisitMut for Rewriter<'_> {
        fn visit_expr_mut(&mut self, expr: &mut Expr) {
            syn::visit_mut::visit_expr_mut(self, expr);
            let Expr::ForLoop(f) = expr else {
                return;
            };
            if f.label.is_some() {
                return;
            }
            let Some((outer, pat, inner)) = super::iter::flat_chain(&f.expr) else {
                return;
            };
            let label = syn::Lifetime::new(
                &format!("'{}", self.names.fresh("__ad_flat")),
                proc_macro2::Span::call_site(),
            );
            let mut body = f.body.clone();
            BreakOuter {
                label: label.clone(),
            }
            .visit_block_mut(&mut body);
            let x = &f.pat;
            *expr = syn::parse_quote!(#label: for #pat in #outer {
                for #x in #inner #body
            });
        }
    }
    /// `break;` of the loop being rewritten → `break 'flat;` (not inside a
    /// loop or a closure of its own).
    struct BreakOuter {
        label: syn::Lifetime,
    }
    impl VisitMut for BreakOuter {
        fn visit_expr_mut(&mut self, expr: &mut Expr) {
            match expr {
                Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) | Expr::Closure(_) => {}
                Expr::Break(b) if b.label.is_none() => b.label = Some(self.label.clone()),
                _ => syn::visit_mut::visit_expr_mut(self, expr),
            }
        }
    }
    Rewriter { names }.visit_block_mut(block);
}

/// `std::mem::swap(&mut a, &mut b);` (`core::mem::swap`, `mem::swap`) as
/// a statement is the tuple assignment `(a, b) = (b, a);`, of two floats,
/// two elements or two whole buffers (`std::mem::swap(&mut cur, &mut
/// next)` of a time-stepping loop), which lowering takes (refused as "a
/// reference", and of buffers as "changed by a call", until 2026-11-29).
pub fn mem_swaps(block: &mut syn::Block) {
    struct Rewriter;
    impl VisitMut for Rewriter {
        fn visit_stmt_mut(&mut self, stmt: &mut Stmt) {
            if let Stmt::Expr(Expr::Call(call), Some(semi)) = stmt {
                if let Some((a, b)) = swapped_places(call) {
                    let semi = *semi;
                    *stmt = Stmt::Expr(syn::parse_quote!((#a, #b) = (#b, #a)), Some(semi));
                    return;
                }
            }
            syn::visit_mut::visit_stmt_mut(self, stmt);
        }
    }
    Rewriter.visit_block_mut(block);
}

/// The places `a`, `b` of `std::mem::swap(&mut a, &mut b)`.
fn swapped_places(call: &syn::ExprCall) -> Option<(Expr, Expr)> {
    let Expr::Path(func) = strip_parens(&call.func) else {
        return None;
    };
    let names: Vec<String> = func
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let path: Vec<&str> = names.iter().map(String::as_str).collect();
    if !matches!(
        path.as_slice(),
        ["std" | "core", "mem", "swap"] | ["mem", "swap"]
    ) || call.args.len() != 2
    {
        return None;
    }
    let place = |arg: &Expr| match strip_parens(arg) {
        Expr::Reference(r) if r.mutability.is_some() => Some((*r.expr).clone()),
        _ => None,
    };
    Some((place(&call.args[0])?, place(&call.args[1])?))
}

/// `chain.for_each(|pat| body);` is the loop `for pat in chain { body }`,
/// rewritten before anything reads the body, so that every pass sees the
/// loop (and what its body assigns) as it sees one written out. A closure
/// that returns early is left as it is (and refused where it is lowered).
///
/// `std::iter::zip(a, b)` (`core::iter::zip`, `iter::zip`) is rewritten
/// here too, into the chain it is, `a.into_iter().zip(b)`.
pub fn for_each_loops(block: &mut syn::Block) {
    struct Rewriter;
    impl VisitMut for Rewriter {
        fn visit_expr_mut(&mut self, expr: &mut Expr) {
            if let Some(chain) = free_zip(expr) {
                *expr = chain;
            }
            if let Some(for_loop) = for_each_loop(expr) {
                *expr = Expr::ForLoop(for_loop);
            }
            syn::visit_mut::visit_expr_mut(self, expr);
        }
    }
    Rewriter.visit_block_mut(block);
}

/// `expr` if it calls `std::module::name`, `core::module::name` or
/// `module::name` (turbofish allowed) with `arity` arguments.
pub(super) fn std_fn_call<'e>(
    expr: &'e Expr,
    module: &str,
    name: &str,
    arity: usize,
) -> Option<&'e syn::ExprCall> {
    let Expr::Call(call) = strip_parens(expr) else {
        return None;
    };
    let Expr::Path(func) = strip_parens(&call.func) else {
        return None;
    };
    let segments: Vec<String> = func
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let path_matches = match segments.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["std" | "core", m, n] | [m, n] => m == module && n == name,
        _ => false,
    };
    (path_matches && func.qself.is_none() && call.args.len() == arity).then_some(call)
}

/// `std::iter::zip(a, b)` as `a.into_iter().zip(b)`.
fn free_zip(expr: &Expr) -> Option<Expr> {
    let call = std_fn_call(expr, "iter", "zip", 2)?;
    let (a, b) = (&call.args[0], &call.args[1]);
    Some(syn::parse_quote!((#a).into_iter().zip(#b)))
}

fn for_each_loop(expr: &Expr) -> Option<syn::ExprForLoop> {
    let Expr::MethodCall(call) = expr else {
        return None;
    };
    if call.method != "for_each" || call.args.len() != 1 || !super::iter::is_chain(&call.receiver) {
        return None;
    }
    let Expr::Closure(closure) = strip_parens(&call.args[0]) else {
        return None;
    };
    if closure.inputs.len() != 1
        || closure.asyncness.is_some()
        || first_jump(&closure.body).is_some()
    {
        return None;
    }
    let pat = match &closure.inputs[0] {
        syn::Pat::Type(typed) => (*typed.pat).clone(),
        pat => pat.clone(),
    };
    let chain = &call.receiver;
    let body: syn::Block = match &*closure.body {
        Expr::Block(b) if b.label.is_none() => b.block.clone(),
        body => syn::parse_quote!({ #body; }),
    };
    Some(syn::parse_quote!(for #pat in #chain #body))
}

/// `if let Some(v) = x.get(i) { .. }` is `if i < x.len() { let v = &x[i];
/// .. }` (`.copied()` / `.cloned()`: `x[i]`; `first()`: `!x.is_empty()` and
/// `x[0]`; `last()`: `x[x.len() - 1]`), `else` and `else if` as written
/// (`while let` likewise),
/// for a slice and index without side effects (they are read twice). Other
/// `if let`s are left as they are (and refused where they are lowered).
pub fn if_let_elements(block: &mut syn::Block) {
    struct Rewriter;
    impl VisitMut for Rewriter {
        // `let Some(v) = x.get(i) else { return 0.0; };` is `if !(i <
        // x.len()) { return 0.0; } let v = &x[i];`
        fn visit_block_mut(&mut self, block: &mut syn::Block) {
            let mut out = Vec::with_capacity(block.stmts.len());
            for stmt in std::mem::take(&mut block.stmts) {
                if let Stmt::Local(local) = &stmt {
                    if let Some(init) = local.init.as_ref() {
                        if let (Some((_, diverge)), true) = (&init.diverge, local.attrs.is_empty())
                        {
                            let test = Expr::Let(syn::ExprLet {
                                attrs: Vec::new(),
                                let_token: local.let_token,
                                pat: Box::new(local.pat.clone()),
                                eq_token: init.eq_token,
                                expr: init.expr.clone(),
                            });
                            if let Some((present, binding)) = element_test(&test) {
                                out.push(syn::parse_quote!(if !(#present) #diverge));
                                out.push(binding);
                                continue;
                            }
                        }
                    }
                }
                out.push(stmt);
            }
            block.stmts = out;
            syn::visit_mut::visit_block_mut(self, block);
        }

        // `match x.get(i) { Some(v) => a, None => b }` is `if let Some(v) =
        // x.get(i) { a } else { b }`
        fn visit_expr_mut(&mut self, expr: &mut Expr) {
            if let Expr::Match(m) = expr {
                if let Some(ifx) = option_match_as_if_let(m) {
                    *expr = ifx;
                }
            }
            syn::visit_mut::visit_expr_mut(self, expr);
        }

        // `while let Some(v) = x.get(i) { .. }` is `while i < x.len() {
        // let v = &x[i]; .. }`
        fn visit_expr_while_mut(&mut self, w: &mut syn::ExprWhile) {
            if let Some((test, binding)) = element_test(&w.cond) {
                *w.cond = test;
                w.body.stmts.insert(0, binding);
            }
            syn::visit_mut::visit_expr_while_mut(self, w);
        }

        fn visit_expr_if_mut(&mut self, ifx: &mut syn::ExprIf) {
            if let Some((test, binding)) = element_test(&ifx.cond) {
                *ifx.cond = test;
                ifx.then_branch.stmts.insert(0, binding);
            }
            syn::visit_mut::visit_expr_if_mut(self, ifx);
        }

        // (inside `vec![e; n]` and `vec![a, b]` too, which lowering parses)
        fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
            visit_vec_macro_mut(self, mac);
        }
    }
    Rewriter.visit_block_mut(block);
}

/// `match x.get(i) { Some(p) => a, None => b }` (`_` for `None`, either
/// order, no guards; `first`, `last`, `.copied()`) as the `if let` it
/// stands for, which `element_test` rewrites; `None` for any other `match`.
fn option_match_as_if_let(m: &syn::ExprMatch) -> Option<Expr> {
    let [first, second] = &m.arms[..] else {
        return None;
    };
    if first.guard.is_some() || second.guard.is_some() || !m.attrs.is_empty() {
        return None;
    }
    let is_some = |pat: &syn::Pat| {
        matches!(pat, syn::Pat::TupleStruct(t)
            if t.path.is_ident("Some") && t.elems.len() == 1 && t.qself.is_none())
    };
    let is_none = |pat: &syn::Pat| match pat {
        syn::Pat::Wild(_) => true,
        syn::Pat::Ident(p) => p.ident == "None" && p.subpat.is_none() && p.by_ref.is_none(),
        syn::Pat::Path(p) => p.path.is_ident("None"),
        _ => false,
    };
    let (some, none) = match (is_some(&first.pat), is_some(&second.pat)) {
        (true, false) if is_none(&second.pat) => (first, second),
        (false, true) if is_none(&first.pat) => (second, first),
        _ => return None,
    };
    let (pat, scrutinee) = (&some.pat, &m.expr);
    let test: Expr = syn::parse_quote!(let #pat = #scrutinee);
    // (of an element, `x.get(i)`, or of what a chain's `find`, `max_by`,
    // .. returns, `Lowerer::if_let_reduced`)
    if element_test(&test).is_none() && !super::iter::is_reducer_option(scrutinee) {
        return None;
    }
    let branch = |body: &Expr| -> syn::Block {
        match body {
            Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => b.block.clone(),
            other => syn::parse_quote!({ #other }),
        }
    };
    let (then, otherwise) = (branch(&some.body), branch(&none.body));
    Some(syn::parse_quote!(if #test #then else #otherwise))
}

/// The expressions of `vec![e; n]` (`[e, n]`, and `true`) or `vec![a, b,
/// ..]` (`[a, b, ..]`, and `false`), which lowering parses; `None` for any
/// other macro.
pub(super) fn vec_macro_exprs(mac: &syn::Macro) -> Option<(Vec<Expr>, bool)> {
    if !mac.path.is_ident("vec") {
        return None;
    }
    let fill = |input: syn::parse::ParseStream| {
        let value: Expr = input.parse()?;
        input.parse::<syn::Token![;]>()?;
        let len: Expr = input.parse()?;
        Ok((value, len))
    };
    if let Ok((value, len)) = mac.parse_body_with(fill) {
        return Some((vec![value, len], true));
    }
    let list = syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated;
    let items = mac.parse_body_with(list).ok()?;
    Some((items.into_iter().collect(), false))
}

/// Visits the expressions of a `vec![..]` with `visitor` and writes them
/// back (a pass that rewrites expressions reaches inside `vec!` as
/// lowering does); `false` for any other macro, left as it is.
pub(super) fn visit_vec_macro_mut<V: VisitMut>(visitor: &mut V, mac: &mut syn::Macro) -> bool {
    let Some((mut exprs, fill)) = vec_macro_exprs(mac) else {
        return false;
    };
    for e in exprs.iter_mut() {
        visitor.visit_expr_mut(e);
    }
    mac.tokens = match fill {
        true => {
            let (value, len) = (&exprs[0], &exprs[1]);
            quote::quote!(#value; #len)
        }
        false => quote::quote!(#(#exprs),*),
    };
    true
}

/// For `let Some(p) = x.get(i)` & co: the test that the element is there
/// and the `let` that binds `p` to it.
fn element_test(cond: &Expr) -> Option<(Expr, Stmt)> {
    let Expr::Let(test) = cond else {
        return None;
    };
    let syn::Pat::TupleStruct(some) = &*test.pat else {
        return None;
    };
    if !some.path.is_ident("Some") || some.elems.len() != 1 || some.qself.is_some() {
        return None;
    }
    let pat = &some.elems[0];
    let mut option = strip_parens(&test.expr);
    let mut by_value = false;
    if let Expr::MethodCall(copied) = option {
        if (copied.method == "copied" || copied.method == "cloned") && copied.args.is_empty() {
            by_value = true;
            option = strip_parens(&copied.receiver);
        }
    }
    let Expr::MethodCall(call) = option else {
        return None;
    };
    let slice = &call.receiver;
    if !simple(slice) {
        return None;
    }
    let (present, place): (Expr, Expr) = match (call.method.to_string().as_str(), call.args.len()) {
        ("get", 1)
            if simple(&call.args[0]) && !matches!(strip_parens(&call.args[0]), Expr::Range(_)) =>
        {
            let i = &call.args[0];
            (
                syn::parse_quote!(#i < #slice.len()),
                syn::parse_quote!(#slice[#i]),
            )
        }
        ("first", 0) => (
            syn::parse_quote!(!#slice.is_empty()),
            syn::parse_quote!(#slice[0]),
        ),
        ("last", 0) => (
            syn::parse_quote!(!#slice.is_empty()),
            syn::parse_quote!(#slice[#slice.len() - 1]),
        ),
        _ => return None,
    };
    let binding: Stmt = match by_value {
        true => syn::parse_quote!(let #pat = #place;),
        false => syn::parse_quote!(let #pat = &#place;),
    };
    Some((present, binding))
}

/// `return v` inside a loop cannot leave the function directly: the reverse
/// sweep still has to run. It becomes `{ __ad_ret = v; __ad_returned = true;
/// break; }`, and every loop that contains one is followed by
/// `if __ad_returned { return __ad_ret; }` (or `{ break; }` inside an outer
/// loop). Returns whether anything was rewritten.
pub fn rewrite_returns_in_loops(block: &mut syn::Block, names: &Names) -> bool {
    let mut rewriter = ReturnRewriter {
        loop_depth: 0,
        found: false,
        value: names.fresh("__ad_ret"),
        flag: names.fresh("__ad_returned"),
    };
    rewriter.visit_block_mut(block);
    if rewriter.found {
        let (value, flag) = (&rewriter.value, &rewriter.flag);
        let prelude: Vec<Stmt> = vec![
            syn::parse_quote!(let mut #value: f64 = 0.0;),
            syn::parse_quote!(let mut #flag = false;),
        ];
        block.stmts.splice(0..0, prelude);
    }
    rewriter.found
}

struct ReturnRewriter {
    loop_depth: usize,
    found: bool,
    /// The local that holds the value returned from inside a loop.
    value: syn::Ident,
    /// The flag set when a loop returned.
    flag: syn::Ident,
}

impl VisitMut for ReturnRewriter {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        let mut out = Vec::with_capacity(block.stmts.len());
        for mut stmt in std::mem::take(&mut block.stmts) {
            let is_loop = is_loop_stmt(&stmt);
            let returns = is_loop && contains_return(&stmt);
            self.visit_stmt_mut(&mut stmt);
            out.push(stmt);
            if returns {
                let (value, flag) = (&self.value, &self.flag);
                out.push(if self.loop_depth > 0 {
                    syn::parse_quote!(if #flag { break; })
                } else {
                    syn::parse_quote!(if #flag { return #value; })
                });
            }
        }
        block.stmts = out;
    }

    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        match expr {
            Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => {
                self.loop_depth += 1;
                syn::visit_mut::visit_expr_mut(self, expr);
                self.loop_depth -= 1;
            }
            Expr::Closure(_) => {}
            Expr::Return(ret) if self.loop_depth > 0 && ret.expr.is_some() => {
                self.found = true;
                let value = ret.expr.take().expect("checked");
                let (v, flag) = (&self.value, &self.flag);
                *expr = syn::parse_quote!({ #v = #value; #flag = true; break; });
            }
            _ => syn::visit_mut::visit_expr_mut(self, expr),
        }
    }
}

/// `break 'outer` and `continue 'outer` from a loop nested in the loop
/// labeled `'outer` cannot leave both at once in the IR (a jump leaves the
/// innermost loop). Each becomes `{ flag = true; break; }`, with a flag per
/// label and kind declared before the labeled loop, and each loop that
/// contains one is followed by `if flag { break; }` inside deeper loops
/// and, in the labeled loop's own body, by `if broke { break; }` and `if
/// continued { continued = false; continue; }`. A labeled `break` with a
/// value from a nested loop is left as it is (and refused).
pub fn rewrite_labeled_jumps(block: &mut syn::Block, names: &Names) {
    let mut rewriter = LabelRewriter {
        names,
        depth: 0,
        targets: Vec::new(),
    };
    rewriter.visit_block_mut(block);
}

struct LabelTarget {
    label: String,
    /// The loop depth of the labeled loop's body.
    depth: usize,
    broke: syn::Ident,
    continued: syn::Ident,
    /// How many jumps of each kind were rewritten so far.
    breaks: usize,
    continues: usize,
}

struct LabelRewriter<'a> {
    names: &'a Names,
    depth: usize,
    targets: Vec<LabelTarget>,
}

impl LabelRewriter<'_> {
    fn counts(&self) -> Vec<(usize, usize)> {
        self.targets
            .iter()
            .map(|t| (t.breaks, t.continues))
            .collect()
    }

    fn jump(&mut self, label: &syn::Lifetime, is_break: bool) -> Option<Expr> {
        let name = label.ident.to_string();
        let depth = self.depth;
        let target = self.targets.iter_mut().rev().find(|t| t.label == name)?;
        if depth <= target.depth {
            // its own loop's label: an ordinary jump
            return None;
        }
        let flag = if is_break {
            target.breaks += 1;
            &target.broke
        } else {
            target.continues += 1;
            &target.continued
        };
        Some(syn::parse_quote!({ #flag = true; break; }))
    }
}

impl VisitMut for LabelRewriter<'_> {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        let mut out = Vec::with_capacity(block.stmts.len());
        for mut stmt in std::mem::take(&mut block.stmts) {
            let is_loop = is_loop_stmt(&stmt);
            let before = self.counts();
            self.visit_stmt_mut(&mut stmt);
            out.push(stmt);
            if !is_loop {
                continue;
            }
            let after = self.counts();
            for (k, target) in self.targets.iter().enumerate() {
                let (broke, continued) = (&target.broke, &target.continued);
                let (b, c) = (after[k].0 > before[k].0, after[k].1 > before[k].1);
                if self.depth == target.depth {
                    if b {
                        out.push(syn::parse_quote!(if #broke { break; }));
                    }
                    if c {
                        out.push(
                            syn::parse_quote!(if #continued { #continued = false; continue; }),
                        );
                    }
                } else if b || c {
                    out.push(syn::parse_quote!(if #broke || #continued { break; }));
                }
            }
        }
        block.stmts = out;
    }

    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        let label = match expr {
            Expr::ForLoop(f) => Some(f.label.clone()),
            Expr::While(w) => Some(w.label.clone()),
            Expr::Loop(l) => Some(l.label.clone()),
            _ => None,
        };
        match (label, &mut *expr) {
            // a `loop` used as a value: its jumps are left alone (a
            // `break;` in it would not type); `loop_values` rewrites it
            (Some(_), Expr::Loop(l)) if has_value_break(l) => {}
            (Some(label), _) => {
                let label = label.map(|l| l.name.ident.to_string());
                if let Some(label) = &label {
                    self.targets.push(LabelTarget {
                        label: label.clone(),
                        depth: self.depth + 1,
                        broke: self
                            .names
                            .fresh_for("__ad_broke_", &quote::format_ident!("{label}")),
                        continued: self
                            .names
                            .fresh_for("__ad_continued_", &quote::format_ident!("{label}")),
                        breaks: 0,
                        continues: 0,
                    });
                }
                self.depth += 1;
                syn::visit_mut::visit_expr_mut(self, expr);
                self.depth -= 1;
                if label.is_some() {
                    let target = self.targets.pop().expect("pushed above");
                    if target.breaks + target.continues > 0 {
                        let (broke, continued) = (&target.broke, &target.continued);
                        let inner = expr.clone();
                        *expr = syn::parse_quote!({
                            let mut #broke = false;
                            let mut #continued = false;
                            #inner
                        });
                    }
                }
            }
            (None, Expr::Closure(_)) => {}
            (None, Expr::Break(b)) if b.expr.is_none() && b.label.is_some() => {
                let label = b.label.clone().expect("checked");
                if let Some(new) = self.jump(&label, true) {
                    *expr = new;
                }
            }
            (None, Expr::Continue(c)) if c.label.is_some() => {
                let label = c.label.clone().expect("checked");
                if let Some(new) = self.jump(&label, false) {
                    *expr = new;
                }
            }
            _ => syn::visit_mut::visit_expr_mut(self, expr),
        }
    }

    // items have loops of their own
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// A `for`, `while` or `loop` statement.
fn is_loop_stmt(stmt: &Stmt) -> bool {
    matches!(
        stmt,
        Stmt::Expr(Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_), _)
    )
}

fn contains_return(stmt: &Stmt) -> bool {
    struct Finder(bool);
    impl<'a> Visit<'a> for Finder {
        fn visit_expr_return(&mut self, _: &'a syn::ExprReturn) {
            self.0 = true;
        }
        fn visit_expr_closure(&mut self, _: &'a syn::ExprClosure) {}
    }
    let mut finder = Finder(false);
    finder.visit_stmt(stmt);
    finder.0
}

/// Does `expr` contain a `break`/`continue` that leaves it (one not inside a
/// loop nested in `expr`), or a `return`?
pub fn may_jump(expr: &Expr) -> bool {
    first_jump(expr).is_some()
}

/// The first `break`, `continue` or `return` in `expr` that leaves it (not
/// one inside a loop or a closure of its own).
pub fn first_jump(expr: &Expr) -> Option<&Expr> {
    struct Finder<'a> {
        loop_depth: usize,
        found: Option<&'a Expr>,
    }
    impl<'a> Visit<'a> for Finder<'a> {
        fn visit_expr(&mut self, expr: &'a Expr) {
            if self.found.is_some() {
                return;
            }
            match expr {
                Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => {
                    self.loop_depth += 1;
                    syn::visit::visit_expr(self, expr);
                    self.loop_depth -= 1;
                }
                Expr::Break(b) if self.loop_depth == 0 || b.label.is_some() => {
                    self.found = Some(expr)
                }
                Expr::Continue(c) if self.loop_depth == 0 || c.label.is_some() => {
                    self.found = Some(expr)
                }
                Expr::Return(_) => self.found = Some(expr),
                Expr::Closure(_) => {}
                _ => syn::visit::visit_expr(self, expr),
            }
        }
    }
    let mut finder = Finder {
        loop_depth: 0,
        found: None,
    };
    finder.visit_expr(expr);
    finder.found
}

/// `break`, `continue` or `return`.
pub fn is_jump(expr: &Expr) -> bool {
    matches!(expr, Expr::Break(_) | Expr::Continue(_) | Expr::Return(_))
}

/// Does every path through `block` end in a jump?
fn always_jumps(block: &syn::Block) -> bool {
    match block.stmts.last() {
        Some(Stmt::Expr(expr, _)) => expr_always_jumps(expr),
        _ => false,
    }
}

fn expr_always_jumps(expr: &Expr) -> bool {
    match expr {
        e if is_jump(e) => true,
        Expr::If(ifx) => {
            always_jumps(&ifx.then_branch)
                && match &ifx.else_branch {
                    Some((_, els)) => expr_always_jumps(els),
                    None => false,
                }
        }
        Expr::Block(b) => always_jumps(&b.block),
        _ => false,
    }
}

/// Puts the statements after an `if` that may jump into that `if`'s
/// branches that do not always jump, so every jump ends its block:
/// `if c { break } rest` → `if c { break } else { rest }`. What follows a
/// jump is then never reached in the same block, which is what lets the
/// reverse sweep replay a block without jumping.
pub fn nest_jumps(stmts: &[Stmt], names: &Names) -> Vec<Stmt> {
    for (k, stmt) in stmts.iter().enumerate() {
        let ifx = match stmt {
            Stmt::Expr(Expr::If(ifx), _) => ifx.clone(),
            // A bare block that may jump, `{ if c { break; } } rest`, is an
            // `if true { .. }` for this purpose: `rest` goes where control
            // leaves it normally.
            Stmt::Expr(Expr::Block(b), _)
                if b.label.is_none()
                    && k + 1 < stmts.len()
                    && may_jump(&Expr::Block(b.clone())) =>
            {
                let block = &b.block;
                syn::parse_quote!(if true #block)
            }
            _ => continue,
        };
        let ifx = &ifx;
        if k + 1 == stmts.len() || !may_jump(&Expr::If(ifx.clone())) {
            continue;
        }
        let rest = &stmts[k + 1..];
        let has_tail = matches!(rest.last(), Some(Stmt::Expr(e, None)) if !is_jump(e));
        let nested = append_rest(ifx.clone(), rest, names);
        let semi = if has_tail {
            None
        } else {
            Some(Default::default())
        };
        let mut out = stmts[..k].to_vec();
        out.push(Stmt::Expr(Expr::If(nested), semi));
        return out;
    }
    stmts.to_vec()
}

fn append_rest(mut ifx: syn::ExprIf, rest: &[Stmt], names: &Names) -> syn::ExprIf {
    if !always_jumps(&ifx.then_branch) {
        append_to_block(&mut ifx.then_branch, rest, names);
    }
    ifx.else_branch = Some(match ifx.else_branch.take() {
        None => (
            Default::default(),
            Box::new(Expr::Block(syn::ExprBlock {
                attrs: Vec::new(),
                label: None,
                block: syn::Block {
                    brace_token: Default::default(),
                    stmts: rest.to_vec(),
                },
            })),
        ),
        Some((token, els)) => {
            let els = match *els {
                Expr::If(nested) => Expr::If(append_rest(nested, rest, names)),
                Expr::Block(mut b) => {
                    if !always_jumps(&b.block) {
                        append_to_block(&mut b.block, rest, names);
                    }
                    Expr::Block(b)
                }
                other => other,
            };
            (token, Box::new(els))
        }
    });
    ifx
}

/// Appends `rest` to `block`, whose `let`s must not capture the names
/// `rest` reads: `if c { let w = 2.0; if d { return w; } } w[0]` puts
/// `w[0]` after `let w`, so that `let` (and what reads it) is renamed first.
fn append_to_block(block: &mut syn::Block, rest: &[Stmt], names: &Names) {
    let mut read = HashSet::new();
    for stmt in rest {
        crate::names::collect_idents(stmt.to_token_stream(), &mut read);
    }
    for k in 0..block.stmts.len() {
        let Stmt::Local(local) = &mut block.stmts[k] else {
            continue;
        };
        for name in pattern_names(&local.pat)
            .into_iter()
            .filter(|n| read.contains(n))
        {
            let fresh = names.fresh(&name);
            let mut renamer = RenameLocal {
                from: &name,
                to: &fresh,
            };
            if let Stmt::Local(local) = &mut block.stmts[k] {
                renamer.visit_pat_mut(&mut local.pat);
            }
            for later in &mut block.stmts[k + 1..] {
                renamer.visit_stmt_mut(later);
            }
        }
    }
    block.stmts.extend(rest.iter().cloned());
}

/// Renames a local: its bindings and the paths that read it (not fields,
/// methods or items of the same name).
struct RenameLocal<'a> {
    from: &'a str,
    to: &'a syn::Ident,
}

impl VisitMut for RenameLocal<'_> {
    fn visit_pat_ident_mut(&mut self, p: &mut syn::PatIdent) {
        if p.ident == self.from {
            p.ident = syn::Ident::new(&self.to.to_string(), p.ident.span());
        }
        syn::visit_mut::visit_pat_ident_mut(self, p);
    }

    fn visit_expr_path_mut(&mut self, path: &mut syn::ExprPath) {
        if path.qself.is_none() && path.path.is_ident(self.from) {
            let span = path.path.segments[0].ident.span();
            path.path.segments[0].ident = syn::Ident::new(&self.to.to_string(), span);
        }
    }

    fn visit_field_value_mut(&mut self, field: &mut syn::FieldValue) {
        // `S { w }` becomes `S { w: w_1 }`.
        if field.colon_token.is_none() {
            field.colon_token = Some(Default::default());
        }
        syn::visit_mut::visit_field_value_mut(self, field);
    }

    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        mac.tokens = rename_tokens(mac.tokens.clone(), self.from, self.to);
    }
}

/// `tokens` with the variable `from` renamed `to` (inside macros, whose
/// arguments are not parsed), with the span of the name it replaces.
fn rename_tokens(tokens: TokenStream, from: &str, to: &syn::Ident) -> TokenStream {
    crate::tokens::rename(&tokens, from, &mut |ident| {
        syn::Ident::new(&to.to_string(), ident.span())
    })
}

/// Walks syntax calling `found(name, value)` for each assignment (`x = v`,
/// `x += v`, `(a, b) = ..` gives each part with no value) to a local of
/// the code around it: an assignment to a name that a `let`, a `for`
/// pattern or a `match` arm inside the walked syntax has bound (shadowing
/// the outer local) changes that inner binding, and is skipped. Closures
/// are skipped (they may not assign what they capture).
struct OuterAssignments<F: FnMut(String, Option<&Expr>)> {
    found: F,
    /// The names bound inside the walked syntax where the walk is,
    /// innermost last.
    scopes: Vec<Vec<String>>,
}

impl<F: FnMut(String, Option<&Expr>)> OuterAssignments<F> {
    fn new(found: F) -> Self {
        OuterAssignments {
            found,
            scopes: vec![Vec::new()],
        }
    }

    fn record(&mut self, place: &Expr, value: Option<&Expr>) {
        if let Expr::Tuple(t) = strip_parens(place) {
            // `(a, b) = (b, a + b);`
            for part in &t.elems {
                self.record(part, None);
            }
            return;
        }
        if let Expr::Path(path) = strip_parens(place) {
            if let Some(ident) = path.path.get_ident() {
                let name = ident.to_string();
                if !self.scopes.iter().any(|scope| scope.contains(&name)) {
                    (self.found)(name, value);
                }
            }
        }
    }

    /// Statements of one block, in order: a `let` binds its names for
    /// what follows it (its initializer still sees the outer binding).
    fn visit_stmts(&mut self, stmts: &[Stmt]) {
        for stmt in stmts {
            match stmt {
                Stmt::Local(local) => {
                    if let Some(init) = &local.init {
                        self.visit_expr(&init.expr);
                        if let Some((_, diverge)) = &init.diverge {
                            self.visit_expr(diverge);
                        }
                    }
                    let names = pattern_names(&local.pat);
                    if let Some(scope) = self.scopes.last_mut() {
                        scope.extend(names);
                    }
                }
                other => self.visit_stmt(other),
            }
        }
    }
}

impl<'a, F: FnMut(String, Option<&Expr>)> Visit<'a> for OuterAssignments<F> {
    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Assign(a) => self.record(&a.left, Some(&a.right)),
            Expr::Binary(b) if is_compound(&b.op) => self.record(&b.left, Some(&b.right)),
            Expr::Closure(_) => return,
            Expr::ForLoop(f) => {
                self.visit_expr(&f.expr);
                self.scopes.push(pattern_names(&f.pat));
                self.visit_block(&f.body);
                self.scopes.pop();
                return;
            }
            _ => {}
        }
        syn::visit::visit_expr(self, expr);
    }

    fn visit_block(&mut self, block: &'a syn::Block) {
        self.scopes.push(Vec::new());
        self.visit_stmts(&block.stmts);
        self.scopes.pop();
    }

    fn visit_arm(&mut self, arm: &'a syn::Arm) {
        self.scopes.push(pattern_names(&arm.pat));
        if let Some((_, guard)) = &arm.guard {
            self.visit_expr(guard);
        }
        self.visit_expr(&arm.body);
        self.scopes.pop();
    }
}

/// The names assigned (`x = ..`, `x += ..`) anywhere inside `expr`'s syntax
/// (closures excluded), in order of first appearance: the locals of the
/// code around `expr` that it changes (not those bound inside it:
/// [`OuterAssignments`]).
pub fn assigned_names(expr: &Expr) -> Vec<String> {
    let mut names = Vec::new();
    OuterAssignments::new(|name, _| {
        if !names.contains(&name) {
            names.push(name);
        }
    })
    .visit_expr(expr);
    names
}

/// The names a pattern binds (`x`, `(a, mut b)`, `[p, _]`, `n @ 1..=3`).
pub fn pattern_names(pat: &syn::Pat) -> Vec<String> {
    struct Names(Vec<String>);
    impl<'a> Visit<'a> for Names {
        fn visit_pat_ident(&mut self, pat: &'a syn::PatIdent) {
            self.0.push(pat.ident.to_string());
            syn::visit::visit_pat_ident(self, pat);
        }
    }
    let mut names = Names(Vec::new());
    names.visit_pat(pat);
    names.0
}

/// Of the names a `let` just bound, those that the statements after it
/// (`rest`, the remainder of its block) assign a value that looks like a
/// float (`r += x.ln() * 2.0`: one with a float literal, an `f64` method
/// or an `as f64` cast in it) while that binding is in scope: a local set
/// first to a constant of a type the macro cannot see is a float variable
/// if one of these assigns it.
pub fn float_assigned_after(rest: &[Stmt], bound: &[String]) -> HashSet<String> {
    struct LooksFloat(bool);
    impl<'a> Visit<'a> for LooksFloat {
        fn visit_lit_float(&mut self, _: &'a syn::LitFloat) {
            self.0 = true;
        }
        fn visit_expr_method_call(&mut self, call: &'a syn::ExprMethodCall) {
            if crate::prim::method(&call.method.to_string()).is_some() {
                self.0 = true;
            }
            syn::visit::visit_expr_method_call(self, call);
        }
        fn visit_expr_cast(&mut self, cast: &'a syn::ExprCast) {
            if crate::signature::is_f64(&cast.ty) {
                self.0 = true;
            }
            syn::visit::visit_expr_cast(self, cast);
        }
    }
    let mut found = HashSet::new();
    OuterAssignments::new(|name, value: Option<&Expr>| {
        if let Some(value) = value {
            let mut looks = LooksFloat(false);
            looks.visit_expr(value);
            if looks.0 && bound.contains(&name) {
                found.insert(name);
            }
        }
    })
    .visit_stmts(rest);
    found
}

/// `let mut p = (a, b);` (or `let mut p: (f64, f64) = ..;`, `let mut p =
/// x.sin_cos();`) followed by `p.0 += v`, `p = (c, d)`, `p.1` →
/// `let (mut p_0, mut p_1) = (a, b);` followed by `p_0 += v`, `(p_0, p_1) =
/// (c, d)`, `p_1`: a mutable tuple local is one local per part, which every
/// later stage already takes (a part assigned in a loop gets a cell like
/// any local). Uses of `p` where an inner binding shadows it are left alone.
pub fn split_tuple_locals(stmts: &[Stmt], names: &Names) -> Vec<Stmt> {
    let mut out: Vec<Stmt> = stmts.to_vec();
    for k in 0..out.len() {
        let Stmt::Local(local) = &out[k] else {
            continue;
        };
        let Some((ident, parts, ty)) = mutable_tuple_local(local) else {
            continue;
        };
        let part_names: Vec<syn::Ident> = (0..parts)
            .map(|i| {
                let fresh = names.fresh(&format!(
                    "{}_{i}",
                    ident.to_string().trim_start_matches("r#")
                ));
                syn::Ident::new(&fresh.to_string(), ident.span())
            })
            .collect();
        let init = local.init.clone();
        let attrs = &local.attrs;
        let tuple: syn::Pat = syn::parse_quote!((#(mut #part_names,)*));
        let pat = match ty {
            Some(ty) => syn::Pat::Type(syn::PatType {
                attrs: Vec::new(),
                pat: Box::new(tuple),
                colon_token: Default::default(),
                ty: Box::new(ty),
            }),
            None => tuple,
        };
        let mut split = syn::Local {
            attrs: attrs.clone(),
            let_token: local.let_token,
            pat,
            init,
            semi_token: local.semi_token,
        };
        if let Some(init) = &mut split.init {
            init.diverge = None;
        }
        out[k] = Stmt::Local(split);
        let mut splitter = SplitLocal {
            name: ident.to_string(),
            parts: part_names,
            split: Split::Tuple,
        };
        splitter.visit_stmts(&mut out[k + 1..]);
    }
    out
}

/// `let (a, b) = x.split_at(k);` is `let mid = k; let a = &x[..mid]; let b
/// = &x[mid..];`: two subslice views (panicking where `split_at` would,
/// past the end), for a slice without side effects (it is read twice).
pub fn split_at_lets(stmts: &[Stmt], names: &Names) -> Vec<Stmt> {
    expand_each(stmts, |stmt| split_at_let(stmt, names))
}

/// `stmts` with each statement `expand` rewrites replaced by what it gives.
fn expand_each(stmts: &[Stmt], mut expand: impl FnMut(&Stmt) -> Option<Vec<Stmt>>) -> Vec<Stmt> {
    let mut out = Vec::with_capacity(stmts.len());
    for stmt in stmts {
        match expand(stmt) {
            Some(rewritten) => out.extend(rewritten),
            None => out.push(stmt.clone()),
        }
    }
    out
}

/// `let y: [f64; N] = std::array::from_fn(|i| e);` (`core::array::`,
/// `array::`) → `let mut y: [f64; N] = [0.0; N]; for i in 0..N { y[i] =
/// e; }`: the loop `from_fn` runs, element `i` the closure's value at `i`.
/// Only with the type written out (the length is where it is known) and a
/// name as the closure's parameter; anything else is left as it is.
pub fn array_from_fn_lets(stmts: &[Stmt]) -> Vec<Stmt> {
    expand_each(stmts, array_from_fn_let)
}

fn array_from_fn_let(stmt: &Stmt) -> Option<Vec<Stmt>> {
    let Stmt::Local(local) = stmt else {
        return None;
    };
    let syn::Pat::Type(typed) = &local.pat else {
        return None;
    };
    let (syn::Pat::Ident(name), syn::Type::Array(array)) = (&*typed.pat, &*typed.ty) else {
        return None;
    };
    if name.by_ref.is_some() || name.subpat.is_some() || !crate::signature::is_f64(&array.elem) {
        return None;
    }
    let init = local.init.as_ref().filter(|i| i.diverge.is_none())?;
    let call = std_fn_call(&init.expr, "array", "from_fn", 1)?;
    let Expr::Closure(closure) = strip_parens(&call.args[0]) else {
        return None;
    };
    if first_jump(&closure.body).is_some() {
        // (a `return` from the closure is not one from the function)
        return None;
    }
    let index = match closure.inputs.iter().collect::<Vec<_>>()[..] {
        [syn::Pat::Ident(i)] if i.by_ref.is_none() && i.subpat.is_none() => i.ident.clone(),
        [syn::Pat::Type(t)] => match &*t.pat {
            syn::Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => i.ident.clone(),
            _ => return None,
        },
        _ => return None,
    };
    let (ident, len, ty, body, attrs) = (
        &name.ident,
        &array.len,
        &typed.ty,
        &closure.body,
        &local.attrs,
    );
    Some(vec![
        syn::parse_quote!(#(#attrs)* let mut #ident: #ty = [0.0; #len];),
        syn::parse_quote!(for #index in 0..#len { #ident[#index] = #body; }),
    ])
}

fn split_at_let(stmt: &Stmt, names: &Names) -> Option<Vec<Stmt>> {
    let Stmt::Local(local) = stmt else {
        return None;
    };
    let syn::Pat::Tuple(pattern) = &local.pat else {
        return None;
    };
    let init = local.init.as_ref().filter(|i| i.diverge.is_none())?;
    let Expr::MethodCall(call) = strip_parens(&init.expr) else {
        return None;
    };
    if call.method != "split_at" || call.args.len() != 1 || pattern.elems.len() != 2 {
        return None;
    }
    let slice = &call.receiver;
    if !simple(slice) {
        return None;
    }
    let mid = names.fresh("__ad_mid");
    let k = &call.args[0];
    let (head, tail) = (&pattern.elems[0], &pattern.elems[1]);
    let attrs = &local.attrs;
    Some(vec![
        syn::parse_quote!(let #mid: usize = #k;),
        syn::parse_quote!(#(#attrs)* let #head = &#slice[..#mid];),
        syn::parse_quote!(#(#attrs)* let #tail = &#slice[#mid..];),
    ])
}

/// `let d = [a, b, c];` (not `mut`, at most 16 elements) whose every later
/// use is `d[0]`, `d[1]`, .. (integer literals in range), `d.len()`, or the
/// right side of an assignment (`s = d;`) → `let d_0 = a; let d_1 = b; ..`
/// with `d[k]` → `d_k`, `d.len()` → the count, `s = d` → `s = [d_0, ..]`:
/// values of their own rather than a buffer, which a loop that declares
/// one could not record (`record.rs`: a Lorenz system's derivative, `let
/// d = [σ (y − x), ..]`, at every Euler step). Uses where an inner binding
/// shadows `d` are left alone; a use in a macro's tokens, or any other use,
/// keeps the array.
/// `let (a, b) = (e1, e2);` → `let a = e1; let b = e2;` when every part
/// of the pattern is a name (`mut` or not) and no part of the tuple
/// mentions a name the pattern binds (so binding `a` before `e2` runs
/// changes nothing): each local is then typed as a `let` of its own is,
/// a helper's vector by its uses as an array (`let (a, b) = (twice(x),
/// twice(y)); a[j]` took `a` for a float until 2026-11-28).
pub fn split_tuple_lets(stmts: &[Stmt]) -> Vec<Stmt> {
    expand_each(stmts, split_tuple_let)
}

fn split_tuple_let(stmt: &Stmt) -> Option<Vec<Stmt>> {
    let Stmt::Local(local) = stmt else {
        return None;
    };
    let syn::Pat::Tuple(pattern) = &local.pat else {
        return None;
    };
    let init = local.init.as_ref().filter(|i| i.diverge.is_none())?;
    let Expr::Tuple(tuple) = strip_parens(&init.expr) else {
        return None;
    };
    if pattern.elems.len() != tuple.elems.len() || pattern.elems.len() < 2 {
        return None;
    }
    let mut names = Vec::new();
    for part in &pattern.elems {
        match part {
            syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                names.push(p.ident.to_string())
            }
            _ => return None,
        }
    }
    let mentioned = tuple
        .elems
        .iter()
        .any(|e| names.iter().any(|n| mentions_ident(e.to_token_stream(), n)));
    if mentioned {
        return None;
    }
    let attrs = &local.attrs;
    Some(
        pattern
            .elems
            .iter()
            .zip(&tuple.elems)
            .map(|(pat, value)| syn::parse_quote!(#(#attrs)* let #pat = #value;))
            .collect(),
    )
}

/// An array local of at most 16 elements, `let d = [a, b];` or `let mut d
/// = [0.0; 3];`, whose every use is an element at a literal index (`d[0]`,
/// `d[1] = e`, `d[2] += e`), becomes one local per element (`let mut d_0 =
/// 0.0; ..`): values a loop can carry, record or fuse as any other. (A
/// small nest written out indexes by literals: `for k in 0..3 { d[k] = .. }`
/// is `d[0] = ..; d[1] = ..; d[2] = ..;`, `unroll.rs`.)
pub fn split_array_locals(stmts: &[Stmt], names: &Names) -> Vec<Stmt> {
    const MOST: usize = 16;
    let out: Vec<Stmt> = stmts.to_vec();
    for k in 0..out.len() {
        let Stmt::Local(local) = &out[k] else {
            continue;
        };
        let (pat, ty) = match &local.pat {
            syn::Pat::Type(t) => (&*t.pat, Some(&*t.ty)),
            other => (other, None),
        };
        let syn::Pat::Ident(p) = pat else {
            continue;
        };
        if p.by_ref.is_some() || p.subpat.is_some() {
            continue;
        }
        let Some(init) = local.init.as_ref().filter(|i| i.diverge.is_none()) else {
            continue;
        };
        // `[a, b, c]`, or `[v; 3]` of a literal or a name: its copies
        let elems: Vec<Expr> = match strip_parens(&init.expr) {
            Expr::Array(array) => array.elems.iter().cloned().collect(),
            Expr::Repeat(r) if matches!(strip_parens(&r.expr), Expr::Lit(_) | Expr::Path(_)) => {
                match repeat_len(r) {
                    Some(n) if n <= MOST => vec![(*r.expr).clone(); n],
                    _ => continue,
                }
            }
            _ => continue,
        };
        let n = elems.len();
        let element_ty = match ty {
            None => None,
            Some(syn::Type::Array(a)) => Some((*a.elem).clone()),
            Some(_) => continue,
        };
        if n == 0 || n > MOST {
            continue;
        }
        let name = p.ident.to_string();
        let mut uses = ArrayUses {
            name: name.clone(),
            n,
            ok: true,
            shadowed: false,
        };
        uses.visit_stmts(&out[k + 1..]);
        if !uses.ok {
            continue;
        }
        let parts: Vec<syn::Ident> = (0..n)
            .map(|i| {
                let fresh = names.fresh(&format!("{}_{i}", name.trim_start_matches("r#")));
                syn::Ident::new(&fresh.to_string(), p.ident.span())
            })
            .collect();
        let mutability = p.mutability;
        let lets: Vec<Stmt> = parts
            .iter()
            .zip(&elems)
            .map(|(part, elem)| match &element_ty {
                Some(t) => syn::parse_quote!(let #mutability #part: #t = #elem;),
                None => syn::parse_quote!(let #mutability #part = #elem;),
            })
            .collect();
        let mut rest: Vec<Stmt> = out[k + 1..].to_vec();
        let mut splitter = SplitLocal {
            name: name.clone(),
            parts: parts.clone(),
            split: Split::Array,
        };
        splitter.visit_stmts(&mut rest);
        let mut rewritten: Vec<Stmt> = out[..k].to_vec();
        rewritten.extend(lets);
        rewritten.extend(rest);
        // the statements after `k` moved by `n - 1`: split them too (their
        // own arrays), from the first after the new `let`s
        let head = k + n;
        let tail = split_array_locals(&rewritten[head..], names);
        rewritten.truncate(head);
        rewritten.extend(tail);
        return rewritten;
    }
    out
}

/// Checks the uses of an array local for [`split_array_locals`].
struct ArrayUses {
    name: String,
    n: usize,
    ok: bool,
    shadowed: bool,
}

/// The `Visit` methods a scan of one name's uses (`ArrayUses`,
/// `matrix::MatrixUses`: a struct with `name`, `ok` and `shadowed` fields
/// and a `visit_stmts`) shares: a nested block is scanned as not yet
/// rebound (its own `let` of the name ends it there only), and a `match`
/// arm that binds the name is skipped.
macro_rules! name_scan_scoping {
    ($a:lifetime) => {
        fn visit_block(&mut self, block: &$a syn::Block) {
            let shadowed = std::mem::replace(&mut self.shadowed, false);
            self.visit_stmts(&block.stmts);
            self.shadowed = shadowed;
        }

        fn visit_arm(&mut self, arm: &$a syn::Arm) {
            if !$crate::lower::syntax::pattern_names(&arm.pat).contains(&self.name) {
                syn::visit::visit_arm(self, arm);
            }
        }
    };
}
pub(super) use name_scan_scoping;

impl ArrayUses {
    fn is_name(&self, expr: &Expr) -> bool {
        is_path_named(expr, &self.name)
    }

    fn visit_stmts(&mut self, stmts: &[Stmt]) {
        let name = self.name.clone();
        self.shadowed = scan_until_rebound(self, &name, stmts, |scan| scan.shadowed);
    }
}

/// Visits `stmts` in order with `scan`, up to a `let` that binds `name`
/// again (whose initializer is still visited) or until `stop(scan)` (a
/// nested block found it rebound); whether it stopped there.
pub(super) fn scan_until_rebound<V: for<'a> Visit<'a>>(
    scan: &mut V,
    name: &str,
    stmts: &[Stmt],
    stop: impl Fn(&V) -> bool,
) -> bool {
    for stmt in stmts {
        if let Stmt::Local(local) = stmt {
            if let Some(init) = &local.init {
                scan.visit_expr(&init.expr);
                if let Some((_, diverge)) = &init.diverge {
                    scan.visit_expr(diverge);
                }
            }
            if pattern_names(&local.pat).iter().any(|n| n == name) {
                return true;
            }
            continue;
        }
        scan.visit_stmt(stmt);
        if stop(scan) {
            return true;
        }
    }
    false
}

impl<'a> Visit<'a> for ArrayUses {
    fn visit_expr(&mut self, expr: &'a Expr) {
        match strip_parens(expr) {
            Expr::Index(index) if self.is_name(&index.expr) => {
                let literal = match strip_parens(&index.index) {
                    Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Int(i),
                        ..
                    }) => i.base10_parse::<usize>().ok(),
                    _ => None,
                };
                self.ok &= literal.is_some_and(|i| i < self.n);
            }
            Expr::MethodCall(m) if self.is_name(&m.receiver) => {
                self.ok &= m.method == "len" && m.args.is_empty();
            }
            Expr::Assign(a) if self.is_name(&a.right) => self.visit_expr(&a.left),
            Expr::Path(_) if self.is_name(expr) => self.ok = false,
            Expr::Closure(c)
                if c.inputs
                    .iter()
                    .any(|p| pattern_names(p).contains(&self.name)) => {}
            Expr::ForLoop(f) => {
                self.visit_expr(&f.expr);
                if !pattern_names(&f.pat).contains(&self.name) {
                    self.visit_block(&f.body);
                }
            }
            _ => syn::visit::visit_expr(self, expr),
        }
    }

    name_scan_scoping!('a);

    // (the name in a macro's tokens, which the split cannot rewrite, keeps
    // the array)
    fn visit_macro(&mut self, mac: &'a syn::Macro) {
        self.ok &= !mentions_ident(mac.tokens.clone(), &self.name);
    }
}

/// Whether `tokens` hold the identifier `name` anywhere.
pub(crate) fn mentions_ident(tokens: TokenStream, name: &str) -> bool {
    tokens.into_iter().any(|tree| match tree {
        TokenTree::Ident(ident) => ident == name,
        TokenTree::Group(group) => mentions_ident(group.stream(), name),
        _ => false,
    })
}

/// A `loop` used as a value, `let r = loop { .. break v; .. };` (or the
/// block's tail `loop { .. break v; .. }`), becomes a local set before each
/// of its `break`s: `let mut __ad_brk = Default::default(); loop { ..
/// { __ad_brk = v; break; } .. } let r = __ad_brk;` (the tail: `__ad_brk`).
/// The local's type is the `break`s' value's, which Rust infers from the
/// assignments (lowering learns it is a float from them); its first value
/// is never read: every way out of a `loop` is a `break`, a `return` or a
/// panic.
///
/// A local of another type than `f64` needs its type written (`let k: usize
/// = loop { .. }`), which its first value then takes; the names of the
/// others go into `untyped`, with the `loop`'s span, for lowering to refuse
/// those that turn out not to be floats.
pub fn loop_values(
    stmts: &[Stmt],
    names: &Names,
    untyped: &mut std::collections::HashMap<String, proc_macro2::Span>,
) -> Vec<Stmt> {
    let mut out = Vec::with_capacity(stmts.len());
    let count = stmts.len();
    for (k, stmt) in stmts.iter().enumerate() {
        match stmt {
            Stmt::Local(local) => {
                let Some(init) = local.init.as_ref().filter(|i| i.diverge.is_none()) else {
                    out.push(stmt.clone());
                    continue;
                };
                let Expr::Loop(l) = strip_parens(&init.expr) else {
                    out.push(stmt.clone());
                    continue;
                };
                if !has_value_break(l) {
                    out.push(stmt.clone());
                    continue;
                }
                let value = names.fresh("__ad_brk");
                let l = set_before_breaks(l, &value);
                let pat = &local.pat;
                match pat {
                    syn::Pat::Type(typed) => {
                        let ty = &typed.ty;
                        out.push(syn::parse_quote!(
                            let mut #value: #ty = ::std::default::Default::default();
                        ));
                    }
                    _ => {
                        untyped.insert(value.to_string(), init.expr.span());
                        out.push(syn::parse_quote!(
                            let mut #value = ::std::default::Default::default();
                        ));
                    }
                }
                out.push(Stmt::Expr(Expr::Loop(l), None));
                out.push(syn::parse_quote!(let #pat = #value;));
            }
            Stmt::Expr(Expr::Loop(l), None) if k + 1 == count && has_value_break(l) => {
                let value = names.fresh("__ad_brk");
                let new = set_before_breaks(l, &value);
                untyped.insert(value.to_string(), l.span());
                out.push(syn::parse_quote!(let mut #value = ::std::default::Default::default();));
                out.push(Stmt::Expr(Expr::Loop(new), None));
                out.push(Stmt::Expr(syn::parse_quote!(#value), None));
            }
            _ => out.push(stmt.clone()),
        }
    }
    out
}

/// Does `l` have a `break v` that leaves it (a `loop` used as a value)?
fn has_value_break(l: &syn::ExprLoop) -> bool {
    let mut l = l.clone();
    value_breaks(&mut l, None)
}

/// `l` with each `break v` that leaves it turned into `{ value = v;
/// break; }` (`l` has one: `has_value_break`).
fn set_before_breaks(l: &syn::ExprLoop, value: &syn::Ident) -> syn::ExprLoop {
    let mut l = l.clone();
    value_breaks(&mut l, Some(value));
    l
}

/// Whether `l` has a `break v` that leaves it (unlabeled outside nested
/// loops, or with its label); with `value`, each becomes `{ value = v;
/// break; }`.
fn value_breaks(l: &mut syn::ExprLoop, value: Option<&syn::Ident>) -> bool {
    struct Breaks<'a> {
        label: Option<String>,
        depth: usize,
        value: Option<&'a syn::Ident>,
        found: bool,
    }
    impl VisitMut for Breaks<'_> {
        fn visit_expr_mut(&mut self, expr: &mut Expr) {
            match expr {
                Expr::Loop(_) | Expr::While(_) | Expr::ForLoop(_) => {
                    self.depth += 1;
                    syn::visit_mut::visit_expr_mut(self, expr);
                    self.depth -= 1;
                }
                // a `break` cannot leave a closure
                Expr::Closure(_) => {}
                Expr::Break(b) if b.expr.is_some() => {
                    let label = b.label.as_ref().map(|l| l.ident.to_string());
                    let ours = match &label {
                        None => self.depth == 0,
                        Some(label) => Some(label) == self.label.as_ref(),
                    };
                    if let Some(v) = b.expr.as_mut() {
                        self.visit_expr_mut(v);
                    }
                    if ours {
                        self.found = true;
                        if let Some(value) = self.value {
                            let v = b.expr.take().expect("a value");
                            let label = &b.label;
                            *expr = syn::parse_quote!({ #value = #v; break #label; });
                        }
                    }
                }
                _ => syn::visit_mut::visit_expr_mut(self, expr),
            }
        }
        // items (nested functions) have breaks of their own
        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    }
    let mut breaks = Breaks {
        label: l.label.as_ref().map(|l| l.name.ident.to_string()),
        depth: 0,
        value,
        found: false,
    };
    breaks.visit_block_mut(&mut l.body);
    breaks.found
}

/// `let (lo, hi) = chain.fold((a, b), |(lo, hi), &v| (lo.min(v),
/// hi.max(v)));` (any pattern, an initial value that is a tuple written
/// out, a closure of two parameters) → `let mut acc = (a, b); for &v in
/// chain { let (lo, hi) = acc; acc = (lo.min(v), hi.max(v)); } let (lo,
/// hi) = acc;`: a fold with a tuple accumulator is the loop a person writes,
/// its accumulator a mutable tuple local (`split_tuple_locals`), its
/// closure's value assigned whole (its expansion named the tuple after
/// splitting it, E0425, until 2026-11-28). Anything else is left as it is.
pub fn tuple_folds(stmts: &[Stmt], names: &Names) -> Vec<Stmt> {
    expand_each(stmts, |stmt| tuple_fold(stmt, names))
}

fn tuple_fold(stmt: &Stmt, names: &Names) -> Option<Vec<Stmt>> {
    let Stmt::Local(local) = stmt else {
        return None;
    };
    let init = local.init.as_ref().filter(|i| i.diverge.is_none())?;
    let Expr::MethodCall(call) = strip_parens(&init.expr) else {
        return None;
    };
    if call.method != "fold" || call.args.len() != 2 || call.turbofish.is_some() {
        return None;
    }
    let Expr::Tuple(start) = strip_parens(&call.args[0]) else {
        return None;
    };
    let Expr::Closure(f) = strip_parens(&call.args[1]) else {
        return None;
    };
    // (a `return` in the closure returns its value, not the function's:
    // left to lowering, which refuses it)
    if start.elems.is_empty() || f.inputs.len() != 2 || may_jump(&f.body) {
        return None;
    }
    let (acc_pat, elem_pat) = (&f.inputs[0], &f.inputs[1]);
    // (a type on a closure parameter goes on its `let`; an element's type
    // is the chain's)
    let elem_pat = match elem_pat {
        syn::Pat::Type(t) => &*t.pat,
        other => other,
    };
    let acc = names.fresh("__ad_acc");
    let chain = &call.receiver;
    let body = &f.body;
    // the closure's value assigned to the accumulator: a tuple written out
    // directly, anything else (an `if`, a `match`) through a tuple local
    let assign = |value: &Expr| -> Vec<Stmt> {
        match strip_parens(value) {
            Expr::Tuple(_) => vec![syn::parse_quote!(#acc = #value;)],
            _ => {
                let next = names.fresh("__ad_next");
                vec![
                    syn::parse_quote!(let #next = #value;),
                    syn::parse_quote!(#acc = #next;),
                ]
            }
        }
    };
    let next: Vec<Stmt> = match strip_parens(body) {
        Expr::Block(b) if b.label.is_none() => {
            let mut stmts = b.block.stmts.clone();
            let tail = match stmts.pop() {
                Some(Stmt::Expr(tail, None)) => tail,
                _ => return None,
            };
            stmts.extend(assign(&tail));
            stmts
        }
        _ => assign(body),
    };
    let pat = &local.pat;
    Some(vec![
        syn::parse_quote!(let mut #acc = #start;),
        syn::parse_quote!(for #elem_pat in #chain { let #acc_pat = #acc; #(#next)* }),
        syn::parse_quote!(let #pat = #acc;),
    ])
}

/// `let t = if c { ..; (e1, e2) } else { ..; (f1, f2) };` (also `let mut
/// t`, `let t: (f64, f64)`) → `let (t_0, t_1) = if ..;` then `let t =
/// (t_0, t_1);`: a tuple local bound to a tuple-valued `if` (or `else if`
/// chain, or a `match`, desugared to one before) whose branches all end in
/// a tuple written out, of the same length, is a tuple local of its parts,
/// which `tuple_valued_ifs` and the tuple locals' lowering take (refused as
/// "a tuple used as one value" until 2026-11-28). Anything else is left as
/// it is.
pub fn tuple_if_locals(stmts: &[Stmt], names: &Names) -> Vec<Stmt> {
    let mut out = Vec::with_capacity(stmts.len());
    for stmt in stmts {
        let split = match stmt {
            Stmt::Local(local) => tuple_if_local(local, names),
            _ => None,
        };
        match split {
            Some(split) => out.extend(split),
            None => out.push(stmt.clone()),
        }
    }
    out
}

fn tuple_if_local(local: &syn::Local, names: &Names) -> Option<[Stmt; 2]> {
    let (pat, ty) = match &local.pat {
        syn::Pat::Type(t) => (&*t.pat, Some(&t.ty)),
        other => (other, None),
    };
    let syn::Pat::Ident(p) = pat else {
        return None;
    };
    let init = local.init.as_ref().filter(|i| i.diverge.is_none())?;
    let (Expr::If(ifx), None) = (strip_parens(&init.expr), &p.subpat) else {
        return None;
    };
    if p.by_ref.is_some() {
        return None;
    }
    // (an `if` whose branches end in array literals, `[a, b]`, is the one
    // ending in those tuples, and the local the array of the parts)
    let (ifx, parts, array) = match tuple_tails(ifx) {
        Some(parts) => (ifx.clone(), parts, false),
        None => {
            let parts = array_tails(ifx)?;
            (arrays_as_tuples(ifx), parts, true)
        }
    };
    let part_names: Vec<syn::Ident> = (0..parts)
        .map(|i| {
            let fresh = names.fresh(&format!(
                "{}_{i}",
                p.ident.to_string().trim_start_matches("r#")
            ));
            syn::Ident::new(&fresh.to_string(), p.ident.span())
        })
        .collect();
    let (mutability, ident) = (&p.mutability, &p.ident);
    let ty = ty.map(|ty| quote::quote!(: #ty));
    let whole: Expr = match array {
        true => syn::parse_quote!([#(#part_names),*]),
        false => syn::parse_quote!((#(#part_names,)*)),
    };
    Some([
        syn::parse_quote!(let (#(#part_names,)*) = #ifx;),
        syn::parse_quote!(let #mutability #ident #ty = #whole;),
    ])
}

/// The length of the array literal every branch of `ifx` ends in, if they
/// all end in one written out (`[a, b]`, not `[a; n]`), of one length, and
/// there is an `else`.
fn array_tails(ifx: &syn::ExprIf) -> Option<usize> {
    let tail = |block: &syn::Block| match block.stmts.last() {
        Some(Stmt::Expr(Expr::Array(a), None)) if !a.elems.is_empty() => Some(a.elems.len()),
        Some(Stmt::Expr(Expr::Repeat(r), None)) => repeat_len(r),
        _ => None,
    };
    let then = tail(&ifx.then_branch)?;
    let other = match ifx.else_branch.as_ref().map(|(_, e)| &**e) {
        Some(Expr::If(inner)) => array_tails(inner)?,
        Some(Expr::Block(b)) if b.label.is_none() => tail(&b.block)?,
        _ => return None,
    };
    (then == other).then_some(then)
}

/// The length of `[v; n]` when `n` is a literal up to 16 and `v` is a
/// literal or a name (written out `n` times, it is the same array).
fn repeat_len(r: &syn::ExprRepeat) -> Option<usize> {
    let Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Int(n),
        ..
    }) = strip_parens(&r.len)
    else {
        return None;
    };
    let n = n
        .base10_parse::<usize>()
        .ok()
        .filter(|n| (1..=16).contains(n))?;
    matches!(strip_parens(&r.expr), Expr::Lit(_) | Expr::Path(_)).then_some(n)
}

/// `ifx` with the array literal each branch ends in written as a tuple.
fn arrays_as_tuples(ifx: &syn::ExprIf) -> syn::ExprIf {
    fn retail(block: &mut syn::Block) {
        if let Some(Stmt::Expr(tail, None)) = block.stmts.last_mut() {
            match tail {
                Expr::Array(a) => {
                    let elems = a.elems.iter();
                    *tail = syn::parse_quote!((#(#elems,)*));
                }
                Expr::Repeat(r) => {
                    let elems = vec![&r.expr; repeat_len(r).unwrap_or(0)];
                    *tail = syn::parse_quote!((#(#elems,)*));
                }
                _ => {}
            }
        }
    }
    let mut ifx = ifx.clone();
    retail(&mut ifx.then_branch);
    if let Some((_, other)) = ifx.else_branch.as_mut() {
        match &mut **other {
            Expr::If(inner) => *inner = arrays_as_tuples(inner),
            Expr::Block(b) => retail(&mut b.block),
            _ => {}
        }
    }
    ifx
}

/// The length of the tuple every branch of `ifx` ends in, if they all end
/// in one written out, of one length, and there is an `else`.
fn tuple_tails(ifx: &syn::ExprIf) -> Option<usize> {
    let tail = |block: &syn::Block| match block.stmts.last() {
        Some(Stmt::Expr(Expr::Tuple(t), None)) if !t.elems.is_empty() => Some(t.elems.len()),
        _ => None,
    };
    let then = tail(&ifx.then_branch)?;
    let other = match ifx.else_branch.as_ref().map(|(_, e)| &**e) {
        Some(Expr::If(inner)) => tuple_tails(inner)?,
        Some(Expr::Block(b)) if b.label.is_none() => tail(&b.block)?,
        _ => return None,
    };
    (then == other).then_some(then)
}

/// `let (a, b) = if c { ..; (e1, e2) } else { ..; (f1, f2) };` →
/// `let a; let b; if c { ..; (a, b) = (e1, e2); } else { ..; (a, b) =
/// (f1, f2); }`: a tuple-valued `if` (or `else if` chain) whose every
/// branch ends in a tuple written out, bound by a pattern of names, is one
/// deferred local per name and a tuple assignment in each branch, which
/// lowering takes. Anything else is left as it is.
pub fn tuple_valued_ifs(stmts: &[Stmt]) -> Vec<Stmt> {
    let mut out = Vec::with_capacity(stmts.len());
    for stmt in stmts {
        let Stmt::Local(local) = stmt else {
            out.push(stmt.clone());
            continue;
        };
        let (syn::Pat::Tuple(pattern), Some(init)) = (&local.pat, &local.init) else {
            out.push(stmt.clone());
            continue;
        };
        let names: Option<Vec<Option<&syn::PatIdent>>> = pattern
            .elems
            .iter()
            .map(|p| match p {
                syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => Some(Some(p)),
                syn::Pat::Wild(_) => Some(None),
                _ => None,
            })
            .collect();
        let (Some(names), Expr::If(ifx), None) = (names, &*init.expr, &init.diverge) else {
            out.push(stmt.clone());
            continue;
        };
        let targets: Vec<Expr> = names
            .iter()
            .map(|name| match name {
                Some(p) => {
                    let ident = &p.ident;
                    syn::parse_quote!(#ident)
                }
                None => syn::parse_quote!(_),
            })
            .collect();
        let mut ifx = ifx.clone();
        if !assign_tuple_tails(&mut ifx, &targets) {
            out.push(stmt.clone());
            continue;
        }
        for p in names.into_iter().flatten() {
            let (mutability, ident) = (&p.mutability, &p.ident);
            out.push(syn::parse_quote!(let #mutability #ident;));
        }
        out.push(Stmt::Expr(Expr::If(ifx), None));
    }
    out
}

/// Turns the tail of each branch of `ifx` (a tuple of `targets.len()`
/// parts) into `(targets) = tail;`; false, with `ifx` partly changed, if a
/// branch ends otherwise or there is no `else`.
fn assign_tuple_tails(ifx: &mut syn::ExprIf, targets: &[Expr]) -> bool {
    let then_ok = assign_tuple_tail(&mut ifx.then_branch, targets);
    let else_ok = match ifx.else_branch.as_mut().map(|(_, e)| &mut **e) {
        Some(Expr::If(inner)) => assign_tuple_tails(inner, targets),
        Some(Expr::Block(b)) if b.label.is_none() => assign_tuple_tail(&mut b.block, targets),
        _ => false,
    };
    then_ok && else_ok
}

fn assign_tuple_tail(block: &mut syn::Block, targets: &[Expr]) -> bool {
    let Some(Stmt::Expr(Expr::Tuple(tail), None)) = block.stmts.last() else {
        return false;
    };
    if tail.elems.len() != targets.len() {
        return false;
    }
    let tail = tail.clone();
    let assign: Stmt = syn::parse_quote!((#(#targets),*) = #tail;);
    *block.stmts.last_mut().expect("a tail") = assign;
    true
}

/// `let mut p = <tuple of n>` with a plain name: (p, n, the annotated type).
fn mutable_tuple_local(local: &syn::Local) -> Option<(syn::Ident, usize, Option<syn::Type>)> {
    let (pat, ty) = match &local.pat {
        syn::Pat::Type(t) => (&*t.pat, Some((*t.ty).clone())),
        other => (other, None),
    };
    let syn::Pat::Ident(p) = pat else {
        return None;
    };
    if p.mutability.is_none() || p.by_ref.is_some() || p.subpat.is_some() {
        return None;
    }
    let init = local.init.as_ref().filter(|i| i.diverge.is_none())?;
    let parts = match (&ty, strip_parens(&init.expr)) {
        (Some(syn::Type::Tuple(t)), _) if !t.elems.is_empty() => t.elems.len(),
        (_, Expr::Tuple(t)) if !t.elems.is_empty() => t.elems.len(),
        (_, Expr::MethodCall(m)) if m.method == "sin_cos" && m.args.is_empty() => 2,
        (_, Expr::Call(c))
            if c.args.len() == 1
                && matches!(strip_parens(&c.func), Expr::Path(f)
                    if f.path.segments.len() == 2
                        && f.path.segments[0].ident == "f64"
                        && f.path.segments[1].ident == "sin_cos") =>
        {
            2
        }
        _ => return None,
    };
    Some((p.ident.clone(), parts, ty))
}

/// Whether `expr` is the plain name `name`.
pub(super) fn is_path_named(expr: &Expr, name: &str) -> bool {
    matches!(strip_parens(expr), Expr::Path(p) if p.qself.is_none() && p.path.is_ident(name))
}

/// Visits the statements of a block in order with `visitor`, up to a `let`
/// that binds `name` again (whose initializer is still visited: it sees
/// the outer binding).
pub(super) fn visit_until_rebound<V: VisitMut>(visitor: &mut V, name: &str, stmts: &mut [Stmt]) {
    for stmt in stmts {
        if let Stmt::Local(local) = stmt {
            if let Some(init) = &mut local.init {
                visitor.visit_expr_mut(&mut init.expr);
                if let Some((_, diverge)) = &mut init.diverge {
                    visitor.visit_expr_mut(diverge);
                }
            }
            if pattern_names(&local.pat).iter().any(|n| n == name) {
                return;
            }
            continue;
        }
        visitor.visit_stmt_mut(stmt);
    }
}

/// What a split local was: a tuple (`split_tuple_locals`) or an array
/// literal (`split_array_locals`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Split {
    Tuple,
    Array,
}

/// Rewrites the uses of a split local `name` into its parts, until
/// something rebinds the name: `p.0` → `p_0` and `p` → `(p_0, p_1)` (also
/// in macro tokens) for a tuple; `d[0]` → `d_0`, `d.len()` → the count and
/// `x = d` → `x = [d_0, d_1]` for an array. Uses where an inner binding (a
/// closure's, a `for`'s, a `match` arm's) shadows the name are left alone.
struct SplitLocal {
    name: String,
    parts: Vec<syn::Ident>,
    split: Split,
}

impl SplitLocal {
    fn is_name(&self, expr: &Expr) -> bool {
        is_path_named(expr, &self.name)
    }

    fn binds_name(&self, pat: &syn::Pat) -> bool {
        pattern_names(pat).contains(&self.name)
    }

    /// The statements of a block in order; stops where a `let` rebinds the
    /// name (its initializer still sees the split local).
    fn visit_stmts(&mut self, stmts: &mut [Stmt]) {
        let name = self.name.clone();
        visit_until_rebound(self, &name, stmts);
    }
}

impl VisitMut for SplitLocal {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        let parts = &self.parts;
        match (self.split, &mut *expr) {
            // `p.0` → `p_0`
            (Split::Tuple, Expr::Field(field)) if self.is_name(&field.base) => {
                if let syn::Member::Unnamed(index) = &field.member {
                    if let Some(part) = parts.get(index.index as usize) {
                        *expr = syn::parse_quote!(#part);
                    }
                }
                return;
            }
            // `p` used whole → `(p_0, p_1)` (also as an assignment's place)
            (Split::Tuple, Expr::Path(path))
                if path.qself.is_none() && path.path.is_ident(&self.name) =>
            {
                *expr = syn::parse_quote!((#(#parts,)*));
                return;
            }
            // `d[0]` → `d_0` (`split_array_locals` saw only literal indices)
            (Split::Array, Expr::Index(index)) if self.is_name(&index.expr) => {
                if let Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(i),
                    ..
                }) = strip_parens(&index.index)
                {
                    if let Some(part) = i.base10_parse::<usize>().ok().and_then(|i| parts.get(i)) {
                        *expr = syn::parse_quote!(#part);
                    }
                }
                return;
            }
            (Split::Array, Expr::MethodCall(m))
                if self.is_name(&m.receiver) && m.method == "len" =>
            {
                let n = parts.len();
                *expr = syn::parse_quote!(#n);
                return;
            }
            (Split::Array, Expr::Assign(a)) if self.is_name(&a.right) => {
                *a.right = syn::parse_quote!([#(#parts),*]);
                self.visit_expr_mut(&mut a.left);
                return;
            }
            (_, Expr::Closure(closure)) if closure.inputs.iter().any(|p| self.binds_name(p)) => {
                return;
            }
            (_, Expr::ForLoop(f)) => {
                self.visit_expr_mut(&mut f.expr);
                if !self.binds_name(&f.pat) {
                    self.visit_block_mut(&mut f.body);
                }
                return;
            }
            _ => {}
        }
        syn::visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        self.visit_stmts(&mut block.stmts);
    }

    fn visit_arm_mut(&mut self, arm: &mut syn::Arm) {
        if !self.binds_name(&arm.pat) {
            syn::visit_mut::visit_arm_mut(self, arm);
        }
    }

    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        // `println!("{}", p.0)`: the tokens `p . 0` become `p_0` (an array
        // read in a macro is not split)
        if self.split == Split::Tuple {
            mac.tokens = split_in_tokens(mac.tokens.clone(), &self.name, &self.parts);
        }
    }
}

/// Inside a macro's tokens: `p . N` → the part, `p` alone → the tuple of parts.
fn split_in_tokens(tokens: TokenStream, name: &str, parts: &[syn::Ident]) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < trees.len() {
        match &trees[i] {
            TokenTree::Ident(ident) if ident == name => {
                let field = match (trees.get(i + 1), trees.get(i + 2)) {
                    (Some(TokenTree::Punct(dot)), Some(TokenTree::Literal(lit)))
                        if dot.as_char() == '.' =>
                    {
                        lit.to_string()
                            .parse::<usize>()
                            .ok()
                            .and_then(|n| parts.get(n))
                    }
                    _ => None,
                };
                match field {
                    Some(part) => {
                        out.push(TokenTree::Ident(part.clone()));
                        i += 3;
                        continue;
                    }
                    None => {
                        let tuple = quote::quote!((#(#parts,)*));
                        out.extend(tuple);
                    }
                }
            }
            TokenTree::Group(group) => {
                let mut inner = proc_macro2::Group::new(
                    group.delimiter(),
                    split_in_tokens(group.stream(), name, parts),
                );
                inner.set_span(group.span());
                out.push(TokenTree::Group(inner));
            }
            other => out.push(other.clone()),
        }
        i += 1;
    }
    out.into_iter().collect()
}

/// Whether the statements after a `let` (`rest`, the remainder of its
/// block) use one of the names it bound as an array while that binding is
/// in scope: indexed (`r[i]`), a slice's method called on it (`r.len()`,
/// `r.iter()`), iterated (`for v in r`, `for v in &r`), given by reference
/// to a call (`h(&r)`).
pub fn used_as_array_after(rest: &[Stmt], bound: &[String], closures: &HashSet<String>) -> bool {
    struct Finder<'b> {
        bound: &'b [String],
        /// The closures bound to locals where `rest` is, and in it (a
        /// float may be given to one by reference, `|v: &f64|`).
        closures: HashSet<String>,
        found: bool,
        /// Names bound inside the walked code where the walk is (an inner
        /// `let r` shadows the `r` asked about).
        scopes: Vec<Vec<String>>,
    }
    impl Finder<'_> {
        fn is_bound(&self, expr: &Expr) -> bool {
            let expr = match strip_parens(expr) {
                Expr::Reference(r) => strip_parens(&r.expr),
                other => other,
            };
            let Expr::Path(p) = expr else { return false };
            let Some(ident) = p.path.get_ident() else {
                return false;
            };
            let name = ident.to_string();
            p.qself.is_none()
                && self.bound.contains(&name)
                && !self.scopes.iter().any(|scope| scope.contains(&name))
        }

        fn stmts(&mut self, stmts: &[Stmt]) {
            self.scopes.push(Vec::new());
            for stmt in stmts {
                match stmt {
                    Stmt::Local(local) => {
                        if let Some(init) = &local.init {
                            self.visit_expr(&init.expr);
                            if matches!(strip_parens(&init.expr), Expr::Closure(_)) {
                                self.closures.extend(pattern_names(&local.pat));
                            }
                        }
                        let names = pattern_names(&local.pat);
                        if let Some(scope) = self.scopes.last_mut() {
                            scope.extend(names);
                        }
                    }
                    other => self.visit_stmt(other),
                }
            }
            self.scopes.pop();
        }
    }
    impl<'a> Visit<'a> for Finder<'_> {
        fn visit_expr(&mut self, expr: &'a Expr) {
            // (given by reference to a call, `h(&r)`: an array, as a float
            // is not given by reference; a helper's vector passed on to the
            // next was refused as a reference until 2026-11-28)
            let by_reference = |args: &syn::punctuated::Punctuated<Expr, syn::Token![,]>| {
                args.iter().any(|arg| {
                    matches!(strip_parens(arg), Expr::Reference(r) if r.mutability.is_none())
                        && self.is_bound(arg)
                })
            };
            // (a closure local's call, `sq(&x)`, and a comparison,
            // `a.total_cmp(&x)`, take floats by reference too)
            let closure = |func: &Expr| match strip_parens(func) {
                Expr::Path(p) => p
                    .path
                    .get_ident()
                    .is_some_and(|i| self.closures.contains(&i.to_string())),
                _ => false,
            };
            match expr {
                Expr::Call(call) if by_reference(&call.args) && !closure(&call.func) => {
                    self.found = true
                }
                Expr::MethodCall(call)
                    if by_reference(&call.args)
                        && !super::expr::F64_COMPARISONS
                            .contains(&call.method.to_string().as_str()) =>
                {
                    self.found = true
                }
                Expr::Index(index) if self.is_bound(&index.expr) => self.found = true,
                Expr::MethodCall(call) if self.is_bound(&call.receiver) => {
                    const ARRAY_METHODS: [&str; 12] = [
                        "len",
                        "clone",
                        "iter",
                        "into_iter",
                        "to_vec",
                        "get",
                        "windows",
                        "chunks",
                        "chunks_exact",
                        "first",
                        "last",
                        "as_slice",
                    ];
                    if ARRAY_METHODS.contains(&call.method.to_string().as_str()) {
                        self.found = true;
                    }
                }
                Expr::ForLoop(f) => {
                    if self.is_bound(&f.expr) {
                        self.found = true;
                    }
                    self.visit_expr(&f.expr);
                    self.scopes.push(pattern_names(&f.pat));
                    self.visit_block(&f.body);
                    self.scopes.pop();
                    return;
                }
                Expr::Closure(c) => {
                    let names = c.inputs.iter().flat_map(pattern_names).collect();
                    self.scopes.push(names);
                    self.visit_expr(&c.body);
                    self.scopes.pop();
                    return;
                }
                _ => {}
            }
            syn::visit::visit_expr(self, expr);
        }

        fn visit_block(&mut self, block: &'a syn::Block) {
            self.stmts(&block.stmts);
        }

        fn visit_arm(&mut self, arm: &'a syn::Arm) {
            self.scopes.push(pattern_names(&arm.pat));
            syn::visit::visit_arm(self, arm);
            self.scopes.pop();
        }
    }
    let mut finder = Finder {
        bound,
        closures: closures.clone(),
        found: false,
        scopes: Vec::new(),
    };
    // The rest of the block: a `let` rebinding the name ends the search.
    for stmt in rest {
        if let Stmt::Local(local) = stmt {
            if let Some(init) = &local.init {
                finder.visit_expr(&init.expr);
                if matches!(strip_parens(&init.expr), Expr::Closure(_)) {
                    finder.closures.extend(pattern_names(&local.pat));
                }
            }
            if pattern_names(&local.pat).iter().any(|n| bound.contains(n)) {
                break;
            }
            continue;
        }
        finder.visit_stmt(stmt);
    }
    finder.found
}

/// `expr` without the parentheses (and invisible groups) around it.
pub fn strip_parens(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(inner) => strip_parens(&inner.expr),
        Expr::Group(inner) => strip_parens(&inner.expr),
        other => other,
    }
}

/// `+=`, `-=`, ... (every compound assignment operator).
pub fn is_compound(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::AddAssign(_)
            | BinOp::SubAssign(_)
            | BinOp::MulAssign(_)
            | BinOp::DivAssign(_)
            | BinOp::RemAssign(_)
            | BinOp::BitXorAssign(_)
            | BinOp::BitAndAssign(_)
            | BinOp::BitOrAssign(_)
            | BinOp::ShlAssign(_)
            | BinOp::ShrAssign(_)
    )
}

/// The plain operator of a compound assignment: `+=` → `+`.
pub fn plain_op(op: &BinOp) -> TokenStream {
    let text = quote::ToTokens::to_token_stream(op).to_string();
    let plain = text.trim_end_matches('=').trim();
    plain.parse().unwrap_or_default()
}

/// The string literals in `tokens` (for format strings that capture names).
pub fn string_literals(tokens: TokenStream) -> Vec<String> {
    let mut out = Vec::new();
    for tree in tokens {
        match tree {
            TokenTree::Literal(lit) => {
                let text = lit.to_string();
                if text.contains('"') {
                    out.push(text);
                }
            }
            TokenTree::Group(group) => out.extend(string_literals(group.stream())),
            _ => {}
        }
    }
    out
}

/// `while i < n { body; i += 1; }` (or `i <= n`) becomes
/// `for k in i..n { let i = k; body } i = i.max(n);` (`..=` and `n + 1`
/// for `<=`; `let i = k + 1;` for `while i < n { i += 1; body }`), when
/// nothing else in `body` changes `i` or `n` or jumps out:
/// a `for` over a range is what the reverse sweep records instead of
/// replaying, where a `while` nest was replayed, each level running its
/// levels again (a fixed-point iteration of `tanh` layers: 5.2× its
/// objective as a `while`, 1.8× as the `for` it stands for). `n` is a
/// literal or a name (evaluated once, as the range does); `i` keeps its
/// value after the loop.
pub fn counted_whiles(stmts: &[Stmt], names: &Names) -> Vec<Stmt> {
    let mut out = Vec::with_capacity(stmts.len());
    for stmt in stmts {
        match stmt {
            Stmt::Expr(Expr::While(w), _) => {
                match counted_while(w, names).or_else(|| stepped_while(w, names)) {
                    Some(rewritten) => out.extend(rewritten),
                    None => out.push(stmt.clone()),
                }
            }
            _ => out.push(stmt.clone()),
        }
    }
    out
}

fn counted_while(w: &syn::ExprWhile, names: &Names) -> Option<Vec<Stmt>> {
    if w.label.is_some() || !w.attrs.is_empty() {
        return None;
    }
    let Expr::Binary(cond) = strip_parens(&w.cond) else {
        return None;
    };
    let inclusive = match cond.op {
        BinOp::Lt(_) => false,
        BinOp::Le(_) => true,
        _ => return None,
    };
    let Expr::Path(counter) = strip_parens(&cond.left) else {
        return None;
    };
    let counter = counter.path.get_ident()?.clone();
    let bound = strip_parens(&cond.right).clone();
    let bound_name = match &bound {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(_),
            ..
        }) => None,
        // a name, or a constant's path (`ITERS`, `consts::N`)
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        _ => return None,
    };
    // the last statement steps the counter by one, or the first does (then
    // the rest of the body sees the counter one further)
    let steps_counter = |stmt: &Stmt| {
        let Stmt::Expr(Expr::Binary(step), Some(_)) = stmt else {
            return false;
        };
        matches!(step.op, BinOp::AddAssign(_))
            && matches!(strip_parens(&step.left), Expr::Path(p) if p.path.is_ident(&counter))
            && matches!(strip_parens(&step.right), Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(one), ..
            }) if one.base10_digits() == "1")
    };
    let stmts = &w.body.stmts;
    let (body, step_first) = match (stmts.first(), stmts.last()) {
        (_, Some(last)) if steps_counter(last) => (&stmts[..stmts.len() - 1], false),
        (Some(first), _) if steps_counter(first) => (&stmts[1..], true),
        _ => return None,
    };
    // nothing else changes the counter or the bound, binds the counter's
    // name, borrows either mutably, or jumps out of the loop
    let body_expr = Expr::Block(syn::ExprBlock {
        attrs: Vec::new(),
        label: None,
        block: syn::Block {
            brace_token: w.body.brace_token,
            stmts: body.to_vec(),
        },
    });
    let counter_name = counter.to_string();
    let changed = assigned_names(&body_expr);
    let touches =
        |name: &str| changed.iter().any(|n| n == name) || borrowed_mutably(&body_expr, name);
    if may_jump(&body_expr)
        || touches(&counter_name)
        || bound_name.as_deref().is_some_and(touches)
        || binds_anywhere(&body_expr, &counter_name)
    {
        return None;
    }
    let k = names.fresh_at("__ad_count", counter.span());
    let range = match inclusive {
        true => quote::quote!(#counter..=#bound),
        false => quote::quote!(#counter..#bound),
    };
    let after = match inclusive {
        true => quote::quote!(if #counter <= #bound { #counter = #bound + 1; }),
        false => quote::quote!(if #counter < #bound { #counter = #bound; }),
    };
    let value = match step_first {
        true => quote::quote!(#k + 1),
        false => quote::quote!(#k),
    };
    let for_loop: Stmt = syn::parse_quote! {
        for #k in #range {
            let #counter = #value;
            #(#body)*
        }
    };
    let after: Stmt = syn::parse_quote!(#after);
    Some(vec![for_loop, after])
}

/// `while cond { body; step }` whose last statement steps a counter
/// (`len *= 2`, `t += dt`, `c = c / 2 + 1`) that only it changes, and whose
/// condition reads nothing else the body changes, becomes
///
/// ```text
/// let trips: usize = { let mut c = c; let mut t = 0; loop { if !(cond) { break; } t += 1; step } t };
/// for _ in 0..trips { body; step }
/// ```
///
/// the `for` it stands for: the condition's values follow the counter's
/// alone, so its trip count is counted first, on a copy of the counter
/// (the counting loop has nothing to reverse: its reverse only sets its
/// cells back). A radix-2 FFT's `while len <= n { ..; len *= 2; }` and a
/// time-stepping `while t < t_end { ..; t += dt; }` nest are then recorded
/// rather than replayed. The condition and the step are side-effect free
/// (`simple`): evaluated twice as often, they compute the same values.
fn stepped_while(w: &syn::ExprWhile, names: &Names) -> Option<Vec<Stmt>> {
    if w.label.is_some() || !w.attrs.is_empty() {
        return None;
    }
    let cond = strip_parens(&w.cond);
    let (body, last) = match w.body.stmts.split_last() {
        Some((last, body)) => (body, last),
        None => return None,
    };
    let Stmt::Expr(step, Some(_)) = last else {
        return None;
    };
    let (counter, rhs) = match step {
        Expr::Binary(b)
            if matches!(
                b.op,
                BinOp::AddAssign(_)
                    | BinOp::SubAssign(_)
                    | BinOp::MulAssign(_)
                    | BinOp::DivAssign(_)
                    | BinOp::RemAssign(_)
                    | BinOp::ShlAssign(_)
                    | BinOp::ShrAssign(_)
            ) =>
        {
            (&*b.left, &*b.right)
        }
        Expr::Assign(a) => (&*a.left, &*a.right),
        _ => return None,
    };
    let Expr::Path(counter) = strip_parens(counter) else {
        return None;
    };
    let counter = counter.path.get_ident()?.clone();
    if !simple(cond) || !simple(rhs) {
        return None;
    }
    let body_expr = Expr::Block(syn::ExprBlock {
        attrs: Vec::new(),
        label: None,
        block: syn::Block {
            brace_token: w.body.brace_token,
            stmts: body.to_vec(),
        },
    });
    let changed = assigned_names(&body_expr);
    let touches =
        |name: &str| changed.iter().any(|n| n == name) || borrowed_mutably(&body_expr, name);
    let counter_name = counter.to_string();
    let mut read = path_names(cond);
    read.extend(path_names(rhs));
    if may_jump(&body_expr)
        || !read.contains(&counter_name)
        || read.iter().any(|name| touches(name))
        || binds_anywhere(&body_expr, &counter_name)
    {
        return None;
    }
    let (trips, t) = (
        names.fresh_at("__ad_trips", counter.span()),
        names.fresh_at("__ad_trip", counter.span()),
    );
    let count: Stmt = syn::parse_quote! {
        let #trips: usize = {
            let mut #counter = #counter;
            let mut #t: usize = 0;
            loop {
                if !(#cond) {
                    break;
                }
                #t += 1;
                #step;
            }
            #t
        };
    };
    let for_loop: Stmt = syn::parse_quote! {
        for _ in 0..#trips {
            #(#body)*
            #step;
        }
    };
    Some(vec![count, for_loop])
}

/// Whether `expr` has no side effect and no control flow: literals, names,
/// fields, indexing, operators (no assignment), casts, and calls of a few
/// methods of numbers and slices that have none.
pub(super) fn simple(expr: &Expr) -> bool {
    match strip_parens(expr) {
        Expr::Lit(_) | Expr::Path(_) => true,
        Expr::Field(f) => simple(&f.base),
        Expr::Index(i) => simple(&i.expr) && simple(&i.index),
        Expr::Cast(c) => simple(&c.expr),
        Expr::Unary(u) => !matches!(u.op, syn::UnOp::Deref(_)) && simple(&u.expr),
        Expr::Binary(b) => {
            !matches!(
                b.op,
                BinOp::AddAssign(_)
                    | BinOp::SubAssign(_)
                    | BinOp::MulAssign(_)
                    | BinOp::DivAssign(_)
                    | BinOp::RemAssign(_)
                    | BinOp::BitXorAssign(_)
                    | BinOp::BitAndAssign(_)
                    | BinOp::BitOrAssign(_)
                    | BinOp::ShlAssign(_)
                    | BinOp::ShrAssign(_)
            ) && simple(&b.left)
                && simple(&b.right)
        }
        Expr::MethodCall(m) => {
            const PURE: &[&str] = &[
                "len",
                "abs",
                "min",
                "max",
                "pow",
                "powi",
                "powf",
                "sqrt",
                "exp",
                "ln",
                "is_empty",
                "wrapping_add",
                "wrapping_sub",
                "wrapping_mul",
                "saturating_add",
                "saturating_sub",
                "saturating_mul",
                "trailing_zeros",
                "leading_zeros",
            ];
            PURE.contains(&m.method.to_string().as_str())
                && m.turbofish.is_none()
                && simple(&m.receiver)
                && m.args.iter().all(simple)
        }
        _ => false,
    }
}

/// The single names `expr` reads (`n`, not `consts::N`).
pub(super) fn path_names(expr: &Expr) -> Vec<String> {
    struct Finder(Vec<String>);
    impl<'a> Visit<'a> for Finder {
        fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
            if let Some(ident) = p.path.get_ident() {
                self.0.push(ident.to_string());
            }
        }
    }
    let mut finder = Finder(Vec::new());
    finder.visit_expr(expr);
    finder.0
}

/// Methods that leave their receiver as it is, besides `f64`'s
/// differentiable ones (`prim::method`): those of `f64` and of integers the
/// macro keeps as written and the slice methods it accepts. Calling any
/// other method on a name may change it (`v.swap(i, j)`, `v.sort_by(..)`,
/// `idx.push(k)`, a user's trait), and is taken for a change.
const READ_ONLY_METHODS: &[&str] = &[
    "fract",
    "sin_cos",
    "is_nan",
    "is_finite",
    "is_infinite",
    "is_sign_negative",
    "is_sign_positive",
    "total_cmp",
    "partial_cmp",
    "len",
    "is_empty",
    "iter",
    "get",
    "first",
    "last",
    "to_vec",
    "contains",
    "clone",
    "copied",
    "cloned",
    "chunks",
    "chunks_exact",
    "windows",
    "starts_with",
    "ends_with",
    "binary_search_by",
    "binary_search_by_key",
    "partition_point",
    "split_at",
    "checked_sub",
    "saturating_sub",
    "wrapping_sub",
];

/// Whether `method` leaves its receiver as it is ([`READ_ONLY_METHODS`]).
pub(super) fn read_only_method(method: &str) -> bool {
    crate::prim::method(method).is_some() || READ_ONLY_METHODS.contains(&method)
}

/// Whether `expr` takes `&mut name` or calls a method on `name` (or on an
/// element or subslice of it, `v[a..b].reverse()`) that may change it
/// (not [`read_only_method`]). (`v.swap(j - 1, j)` in an insertion sort's `while j > 0
/// && v[j - 1] > v[j]` was not seen as a change of `v` until 2026-11-29:
/// its trip count was counted on the unsorted `v`, a wrong value, silent.)
fn borrowed_mutably(expr: &Expr, name: &str) -> bool {
    struct Finder<'n>(&'n str, bool);
    impl<'a> Visit<'a> for Finder<'_> {
        fn visit_expr_reference(&mut self, r: &'a syn::ExprReference) {
            if r.mutability.is_some()
                && matches!(strip_parens(&r.expr), Expr::Path(p) if p.path.is_ident(self.0))
            {
                self.1 = true;
            }
            syn::visit::visit_expr_reference(self, r);
        }
        fn visit_expr_method_call(&mut self, call: &'a syn::ExprMethodCall) {
            let method = call.method.to_string();
            let mut receiver = strip_parens(&call.receiver);
            while let Expr::Index(i) = receiver {
                receiver = strip_parens(&i.expr);
            }
            if matches!(receiver, Expr::Path(p) if p.path.is_ident(self.0))
                && !read_only_method(&method)
            {
                self.1 = true;
            }
            syn::visit::visit_expr_method_call(self, call);
        }
    }
    let mut finder = Finder(name, false);
    finder.visit_expr(expr);
    finder.1
}

/// Whether a pattern anywhere in `node` (an expression or a statement)
/// binds `name` (a `let`, a closure's or a `for`'s pattern, a `match`
/// arm).
pub(super) fn binds_anywhere<N: BindsIn>(node: &N, name: &str) -> bool {
    let mut finder = BindingFinder(name, false);
    node.visit_with(&mut finder);
    finder.1
}

pub(super) struct BindingFinder<'n>(&'n str, bool);

impl<'a> Visit<'a> for BindingFinder<'_> {
    fn visit_pat_ident(&mut self, pat: &'a syn::PatIdent) {
        if pat.ident == self.0 {
            self.1 = true;
        }
        syn::visit::visit_pat_ident(self, pat);
    }
}

/// What [`binds_anywhere`] looks into.
pub(super) trait BindsIn {
    fn visit_with(&self, finder: &mut BindingFinder<'_>);
}

impl BindsIn for Expr {
    fn visit_with(&self, finder: &mut BindingFinder<'_>) {
        finder.visit_expr(self);
    }
}

impl BindsIn for Stmt {
    fn visit_with(&self, finder: &mut BindingFinder<'_>) {
        finder.visit_stmt(self);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    fn nested(src: &str) -> String {
        let block: syn::Block = syn::parse_str(src).unwrap();
        let item: syn::ItemFn = syn::parse_str(&format!("fn f() {src}")).unwrap();
        let stmts = nest_jumps(&block.stmts, &Names::new(&item));
        stmts
            .iter()
            .map(|s| s.to_token_stream().to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn rest_of_block_moves_into_the_branch_that_does_not_jump() {
        assert_eq!(
            nested("{ a(); if c { break; } b(); d }"),
            "a () ; if c { break ; } else { b () ; d }"
        );
        assert_eq!(
            nested("{ if c { x = 1.0; } else if e { continue } y }"),
            "if c { x = 1.0 ; y } else if e { continue } else { y }"
        );
        // An `if` that cannot jump stays where it is.
        assert_eq!(nested("{ if c { x = 1.0; } y }"), "if c { x = 1.0 ; } y");
    }

    #[test]
    fn lets_in_a_branch_do_not_capture_what_follows() {
        assert_eq!(
            nested("{ if c { let w = 2.0; if d { return w; } } w[0] }"),
            "if c { let w_1 = 2.0 ; if d { return w_1 ; } w [0] } else { w [0] }"
        );
    }

    #[test]
    fn returns_inside_loops_become_breaks() {
        let mut block: syn::Block =
            syn::parse_str("{ for i in 0..n { if i > 2 { return 1.0; } } 2.0 }").unwrap();
        let item = syn::parse_str("fn f() {}").unwrap();
        assert!(rewrite_returns_in_loops(&mut block, &Names::new(&item)));
        let text = block.to_token_stream().to_string();
        assert!(
            text.contains("__ad_ret = 1.0 ; __ad_returned = true ; break ;"),
            "{text}"
        );
        assert!(
            text.contains("if __ad_returned { return __ad_ret ; }"),
            "{text}"
        );
    }

    fn rewritten_whiles(src: &str) -> String {
        let block: syn::Block = syn::parse_str(src).unwrap();
        let item: syn::ItemFn = syn::parse_str(&format!("fn f() {src}")).unwrap();
        counted_whiles(&block.stmts, &Names::new(&item))
            .iter()
            .map(|s| s.to_token_stream().to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn split_arrays(src: &str) -> String {
        let block: syn::Block = syn::parse_str(src).unwrap();
        let item: syn::ItemFn = syn::parse_str(&format!("fn f() {src}")).unwrap();
        split_array_locals(&block.stmts, &Names::new(&item))
            .iter()
            .map(|s| s.to_token_stream().to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn array_locals_read_by_literal_indices_become_values() {
        let text =
            split_arrays("{ let d = [a * 2.0, b]; s = [s[0] + d[0], d[1]]; t = d; n = d.len(); }");
        assert!(text.contains("let d_0 = a * 2.0 ; let d_1 = b ;"), "{text}");
        assert!(text.contains("s = [s [0] + d_0 , d_1] ;"), "{text}");
        assert!(text.contains("t = [d_0 , d_1] ;"), "{text}");
        assert!(text.contains("n = 2usize ;"), "{text}");
        // typed: each value takes the element type
        let text = split_arrays("{ let d: [f64; 2] = [a, b]; x = d[1]; }");
        assert!(text.contains("let d_0 : f64 = a ;"), "{text}");
        // shadowed later: the uses after the new binding stay
        let text = split_arrays("{ let d = [a, b]; x = d[0]; let d = vec![c]; y = d[0]; }");
        assert!(
            text.contains("x = d_0 ;") && text.contains("y = d [0] ;"),
            "{text}"
        );
        // mutable, written at literal indices (a small fill loop written
        // out, `unroll.rs`): mutable values
        let text =
            split_arrays("{ let mut d = [0.0; 3]; d[0] = c; d[2] += d[0]; x = d[1] * d[2]; }");
        assert!(
            text.contains("let mut d_0 = 0.0 ; let mut d_1 = 0.0 ; let mut d_2 = 0.0 ;"),
            "{text}"
        );
        assert!(
            text.contains("d_0 = c ; d_2 += d_0 ; x = d_1 * d_2 ;"),
            "{text}"
        );
        // kept: an index not a literal, past the end, the array passed
        // whole or borrowed mutably, read in a macro, a fill of a call
        for src in [
            "{ let d = [a, b]; x = d[i]; }",
            "{ let mut d = [0.0; 2]; d[i] = c; }",
            "{ let d = [a, b]; x = d[2]; }",
            "{ let d = [a, b]; x = g(&d); }",
            "{ let mut d = [a, b]; h(&mut d); }",
            "{ let d = [a, b]; println!(\"{:?}\", d); }",
            "{ let d = [g(a); 2]; x = d[0]; }",
        ] {
            assert!(split_arrays(src).contains("let"), "{src}");
            assert!(!split_arrays(src).contains("d_0"), "{src}");
        }
    }

    #[test]
    fn stepped_whiles_count_their_trips_first() {
        let text = rewritten_whiles("{ while len <= n { s += x[len]; len *= 2; } }");
        assert!(
            text.contains("let __ad_trips : usize = { let mut len = len ;"),
            "{text}"
        );
        assert!(
            text.contains("loop { if ! (len <= n) { break ; } __ad_trip += 1 ; len *= 2 ; }"),
            "{text}"
        );
        assert!(
            text.contains("for _ in 0 .. __ad_trips { s += x [len] ; len *= 2 ; }"),
            "{text}"
        );
        // a float counter, a step that is an assignment
        let text = rewritten_whiles("{ while t < end { y += h * y; t = t + h; } }");
        assert!(text.contains("for _ in 0 .. __ad_trips"), "{text}");
        // left as they are: the body changes what the condition reads, the
        // step calls a function, the body jumps out, the condition does
        // not read the counter
        for src in [
            "{ while len <= n { n -= 1; len *= 2; } }",
            "{ while t < end { y += 1.0; t = next(t); } }",
            "{ while t < end { if y > 2.0 { break; } t += h; } }",
            "{ while y < 2.0 { y *= 1.5; t += h; } }",
        ] {
            assert!(!rewritten_whiles(src).contains("__ad_trips"), "{src}");
        }
    }

    #[test]
    fn assigned_names_in_order() {
        let expr: Expr =
            syn::parse_str("{ y = 1.0; s += y; for i in 0..3 { y *= 2.0; } }").unwrap();
        assert_eq!(assigned_names(&expr), ["y", "s"]);
    }

    #[test]
    fn assigned_names_skip_inner_bindings() {
        // `r` and `i` are bound inside (a `let` in a nested block, a `for`
        // pattern, a match arm): assigning them does not change the outer
        // locals. `s` is assigned before its inner `let` and in its
        // initializer: both are the outer `s`.
        let expr: Expr = syn::parse_str(
            "{ { let mut r = 0; r += 1; } for i in 0..3 { i += 0; } \
               match k { mut m => { m += 1; } } \
               s += 1.0; let s = { s = 2.0; s }; s *= 3.0; t = s; }",
        )
        .unwrap();
        assert_eq!(assigned_names(&expr), ["s", "t"]);
    }
}
