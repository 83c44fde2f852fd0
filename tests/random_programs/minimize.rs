//! Shrinks a failing program while it keeps failing the same way.
//!
//! Each round lists every one-step simplification of the program (delete a
//! statement, replace a compound statement by its body, replace an
//! expression by one of its operands or by `1.0`, drop a helper or a
//! parameter), builds and checks all of them in *one* generated crate (one
//! `cargo build` per round, not per candidate), and keeps the smallest that
//! still fails with the same cause. Candidates that are not valid Rust are
//! filtered out by the harness's plain build, as for generated programs.

use super::ast::*;
use super::harness::{self, Failure};
use super::render;

/// Plain one-letter names for renaming (none is in the generator's pools,
/// and being shorter than every pool name, a rename always shrinks).
const FRESH: &[&str] = &["e", "g", "h", "l", "o"];

/// At most this many candidates per round (one crate).
const MAX_CANDIDATES: usize = 250;
const MAX_ROUNDS: usize = 40;

/// The smallest program found that still fails with `key`.
pub fn minimize(prog: &Program, key: &str) -> (Program, Option<Failure>) {
    let mut best = prog.clone();
    let mut best_failure = None;
    for _ in 0..MAX_ROUNDS {
        let size = render::plain_program(&best).len();
        let mut candidates: Vec<Program> = candidates(&best)
            .into_iter()
            .filter(|c| render::plain_program(c).len() < size)
            .collect();
        candidates.sort_by_key(|c| render::plain_program(c).len());
        candidates.truncate(MAX_CANDIDATES);
        if candidates.is_empty() {
            break;
        }
        for (i, c) in candidates.iter_mut().enumerate() {
            c.index = i;
        }
        let outcome =
            harness::check_programs(&format!("minimize-{}", prog.seed), prog.seed, &candidates);
        // The candidates are sorted by size: the first that still fails
        // the same way is the smallest.
        let still = candidates.iter().find_map(|c| {
            outcome
                .failures
                .iter()
                .find(|f| f.index == c.index && f.key() == key)
                .map(|f| (c.clone(), f.clone()))
        });
        match still {
            Some((c, f)) => {
                println!(
                    "    minimizing: {} -> {} bytes ({} candidates)",
                    size,
                    render::plain_program(&c).len(),
                    candidates.len()
                );
                best = c;
                best_failure = Some(f);
            }
            None => break,
        }
    }
    best.index = prog.index;
    (best, best_failure)
}

/// Every one-step simplification of `prog`.
fn candidates(prog: &Program) -> Vec<Program> {
    let mut out = Vec::new();
    // Drop a helper (invalid if it is called; the plain build says so).
    for h in 0..prog.helpers.len() {
        let mut c = prog.clone();
        c.helpers.remove(h);
        out.push(c);
    }
    for (fi, f) in funcs(prog).enumerate() {
        // Drop a parameter.
        if f.params.len() > 1 {
            for p in 0..f.params.len() {
                let mut c = prog.clone();
                func_mut(&mut c, fi).params.remove(p);
                out.push(c);
            }
        }
        // Drop `wrt(..)`, keeping the same active set only if it was all.
        if f.explicit_wrt {
            let mut c = prog.clone();
            let g = func_mut(&mut c, fi);
            g.explicit_wrt = false;
            for p in &mut g.params {
                p.active = p.ty.is_float();
            }
            out.push(c);
        }
        // Rename a name (every binding of it) to a plain fresh one: if the
        // failure survives, the name did not matter, and the reproducer
        // says so by not having it.
        let taken = names(f);
        let fresh = FRESH
            .iter()
            .find(|n| !taken.iter().any(|t| t == *n))
            .map_or("a0".to_string(), |n| n.to_string());
        for name in taken.iter().filter(|n| n.len() > 1) {
            let mut c = prog.clone();
            rename_func(func_mut(&mut c, fi), name, &fresh);
            out.push(c);
        }
        let n_blocks = count_blocks(&f.body);
        for b in 0..n_blocks {
            let mut len = 0;
            edit_nth_block(&mut f.body.clone(), b, &mut |blk| len = blk.stmts.len());
            for s in 0..len {
                // Delete statement `s` of block `b`.
                let mut c = prog.clone();
                edit_nth_block(&mut func_mut(&mut c, fi).body, b, &mut |blk| {
                    blk.stmts.remove(s);
                });
                out.push(c);
                // Replace it by the statements of its body.
                let mut c = prog.clone();
                let mut inlined = false;
                edit_nth_block(&mut func_mut(&mut c, fi).body, b, &mut |blk| {
                    if let Some(inner) = inner_stmts(&blk.stmts[s]) {
                        blk.stmts.splice(s..=s, inner);
                        inlined = true;
                    }
                });
                if inlined {
                    out.push(c);
                }
            }
        }
        // Replace an expression by an operand, or by `1.0`.
        let n_exprs = count_exprs(&mut f.body.clone());
        for e in 0..n_exprs {
            let mut options = Vec::new();
            edit_nth_expr(&mut f.body.clone(), e, &mut |x| options = simpler(x));
            for o in options {
                let mut c = prog.clone();
                edit_nth_expr(&mut func_mut(&mut c, fi).body, e, &mut |x| *x = o.clone());
                out.push(c);
            }
        }
    }
    out
}

fn funcs(prog: &Program) -> impl Iterator<Item = &Func> {
    prog.helpers.iter().chain(std::iter::once(&prog.main))
}

fn func_mut(prog: &mut Program, i: usize) -> &mut Func {
    if i < prog.helpers.len() {
        &mut prog.helpers[i]
    } else {
        &mut prog.main
    }
}

/// The statements a compound statement runs (to inline it).
fn inner_stmts(s: &Stmt) -> Option<Vec<Stmt>> {
    match s {
        Stmt::Block(b) => Some(b.stmts.clone()),
        Stmt::If { arms, .. } => Some(arms[0].1.stmts.clone()),
        Stmt::For { body, .. } | Stmt::While { body, .. } | Stmt::Loop { body } => {
            Some(body.stmts.clone())
        }
        _ => None,
    }
}

/// Simpler replacements of `e`: its float operands, and `1.0`.
fn simpler(e: &Expr) -> Vec<Expr> {
    let mut out = Vec::new();
    match e {
        Expr::Bin(_, a, b) => {
            out.push((**a).clone());
            out.push((**b).clone());
        }
        Expr::Neg(a) | Expr::Powi(a, ..) => out.push((**a).clone()),
        Expr::Method { recv, args, .. } => {
            out.push((**recv).clone());
            out.extend(args.iter().cloned());
        }
        Expr::If(arms, els) => {
            for (_, b) in arms {
                if b.stmts.is_empty() {
                    out.extend(b.tail.as_deref().cloned());
                }
            }
            if els.stmts.is_empty() {
                out.extend(els.tail.as_deref().cloned());
            }
        }
        Expr::Block(b) if b.stmts.is_empty() => out.extend(b.tail.as_deref().cloned()),
        _ => {}
    }
    if !matches!(e, Expr::Lit(..)) {
        out.push(Expr::Lit(1.0, false));
    }
    out
}

// ----- numbering blocks and expressions in a fixed (pre-)order ---------------

fn count_blocks(b: &Block) -> usize {
    let mut n = 0;
    walk_blocks(&mut b.clone(), &mut |_| n += 1);
    n
}

/// Applies `edit` to the `k`-th block of `b` (pre-order).
fn edit_nth_block(b: &mut Block, k: usize, edit: &mut dyn FnMut(&mut Block)) {
    let mut n = 0;
    walk_blocks(b, &mut |blk| {
        if n == k {
            edit(blk);
        }
        n += 1;
    });
}

fn walk_blocks(b: &mut Block, f: &mut dyn FnMut(&mut Block)) {
    f(b);
    for s in &mut b.stmts {
        match s {
            Stmt::Block(x)
            | Stmt::For { body: x, .. }
            | Stmt::While { body: x, .. }
            | Stmt::Loop { body: x } => walk_blocks(x, f),
            Stmt::If { arms, otherwise } => {
                for (_, x) in arms {
                    walk_blocks(x, f);
                }
                if let Some(x) = otherwise {
                    walk_blocks(x, f);
                }
            }
            _ => {}
        }
    }
}

fn count_exprs(b: &mut Block) -> usize {
    let mut n = 0;
    walk_exprs_block(b, &mut |_| n += 1);
    n
}

/// Applies `edit` to the `k`-th expression of `b` (pre-order).
fn edit_nth_expr(b: &mut Block, k: usize, edit: &mut dyn FnMut(&mut Expr)) {
    let mut n = 0;
    walk_exprs_block(b, &mut |e| {
        if n == k {
            edit(e);
        }
        n += 1;
    });
}

fn walk_exprs_block(b: &mut Block, f: &mut dyn FnMut(&mut Expr)) {
    for s in &mut b.stmts {
        match s {
            Stmt::Let { init: e, .. } | Stmt::Assign { value: e, .. } | Stmt::Return(e) => {
                walk_expr(e, f)
            }
            Stmt::AssignWhole { items, .. } => items.iter_mut().for_each(|e| walk_expr(e, f)),
            Stmt::LetBuf {
                init: BufInit::List(items) | BufInit::Pushed(items),
                ..
            } => items.iter_mut().for_each(|e| walk_expr(e, f)),
            Stmt::LetBuf {
                init: BufInit::Call { args, .. },
                ..
            } => walk_args(args, f),
            Stmt::LetBuf {
                init: BufInit::Fill { value, .. },
                ..
            } => walk_expr(value, f),
            Stmt::LetMat {
                items: Some(rows), ..
            } => rows.iter_mut().flatten().for_each(|e| walk_expr(e, f)),
            Stmt::Block(x) | Stmt::For { body: x, .. } | Stmt::Loop { body: x } => {
                walk_exprs_block(x, f)
            }
            Stmt::While { extra, body, .. } => {
                if let Some(c) = extra {
                    walk_cond(c, f);
                }
                walk_exprs_block(body, f);
            }
            Stmt::If { arms, otherwise } => {
                for (c, x) in arms {
                    walk_cond(c, f);
                    walk_exprs_block(x, f);
                }
                if let Some(x) = otherwise {
                    walk_exprs_block(x, f);
                }
            }
            _ => {}
        }
    }
    if let Some(t) = &mut b.tail {
        walk_expr(t, f);
    }
}

fn walk_cond(c: &mut Cond, f: &mut dyn FnMut(&mut Expr)) {
    match c {
        Cond::Cmp(_, a, b) => {
            walk_expr(a, f);
            walk_expr(b, f);
        }
        Cond::IntCmp(..) => {}
        Cond::And(a, b) | Cond::Or(a, b) => {
            walk_cond(a, f);
            walk_cond(b, f);
        }
        Cond::Not(a) => walk_cond(a, f),
        Cond::Any { rhs, .. } => walk_expr(rhs, f),
    }
}

fn walk_expr(e: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
    f(e);
    match e {
        Expr::Bin(_, a, b) => {
            walk_expr(a, f);
            walk_expr(b, f);
        }
        Expr::Neg(a) | Expr::Powi(a, ..) => walk_expr(a, f),
        Expr::Method { recv, args, .. } => {
            walk_expr(recv, f);
            args.iter_mut().for_each(|a| walk_expr(a, f));
        }
        Expr::Call(_, args) => walk_args(args, f),
        Expr::If(arms, els) => {
            for (c, b) in arms {
                walk_cond(c, f);
                walk_exprs_block(b, f);
            }
            walk_exprs_block(els, f);
        }
        Expr::Block(b) => walk_exprs_block(b, f),
        Expr::List(items, ..) => items.iter_mut().for_each(|x| walk_expr(x, f)),
        _ => {}
    }
}

fn walk_args(args: &mut [CallArg], f: &mut dyn FnMut(&mut Expr)) {
    for a in args {
        match a {
            CallArg::Scalar(x) => walk_expr(x, f),
            CallArg::List(items) | CallArg::RefList(items) => {
                items.iter_mut().for_each(|x| walk_expr(x, f))
            }
            _ => {}
        }
    }
}

// ----- renaming -------------------------------------------------------------

/// Every name a function binds (parameters, locals, loop variables).
fn names(f: &Func) -> Vec<String> {
    let mut out: Vec<String> = f.params.iter().map(|p| p.name.clone()).collect();
    let mut body = f.body.clone();
    walk_blocks(&mut body, &mut |b| {
        for s in &b.stmts {
            match s {
                Stmt::Let { name, .. }
                | Stmt::LetBuf { name, .. }
                | Stmt::LetMat { name, .. }
                | Stmt::LetCounter { name }
                | Stmt::LetInt { name, .. } => out.push(name.clone()),
                Stmt::For { pat, .. } => match pat {
                    ForPat::Index(n) | ForPat::Value(n) | ForPat::AmpValue(n) => {
                        out.push(n.clone())
                    }
                    ForPat::Enumerate(i, v) => {
                        out.push(i.clone());
                        out.push(v.clone());
                    }
                },
                _ => {}
            }
        }
    });
    walk_exprs_block(&mut body, &mut |e| {
        if let Expr::If(arms, els) = e {
            for b in arms.iter().map(|(_, b)| b).chain(std::iter::once(&*els)) {
                for s in &b.stmts {
                    if let Stmt::Let { name, .. } = s {
                        out.push(name.clone());
                    }
                }
            }
        }
        if let Expr::Block(b) = e {
            for s in &b.stmts {
                if let Stmt::Let { name, .. } = s {
                    out.push(name.clone());
                }
            }
        }
    });
    out.sort();
    out.dedup();
    out
}

/// Renames every occurrence of `from` in `f` (bindings and uses) to `to`.
/// Shadowing is preserved because every binding of `from` is renamed.
fn rename_func(f: &mut Func, from: &str, to: &str) {
    for p in &mut f.params {
        ren(&mut p.name, from, to);
    }
    rename_block(&mut f.body, from, to);
}

fn ren(name: &mut String, from: &str, to: &str) {
    if name == from {
        *name = to.to_string();
    }
}

fn rename_block(b: &mut Block, from: &str, to: &str) {
    for s in &mut b.stmts {
        rename_stmt(s, from, to);
    }
    if let Some(t) = &mut b.tail {
        rename_expr(t, from, to);
    }
}

fn rename_stmt(s: &mut Stmt, from: &str, to: &str) {
    match s {
        Stmt::SplitAt { buf, lo, hi, .. } => {
            ren(buf, from, to);
            ren(lo, from, to);
            ren(hi, from, to);
        }
        Stmt::Let { name, init, .. } => {
            ren(name, from, to);
            rename_expr(init, from, to);
        }
        Stmt::LetBuf { name, init, .. } => {
            ren(name, from, to);
            match init {
                BufInit::List(items) | BufInit::Pushed(items) => {
                    items.iter_mut().for_each(|e| rename_expr(e, from, to))
                }
                BufInit::VecZeros(n) => rename_int(n, from, to),
                BufInit::ToVec(src) => ren(src, from, to),
                BufInit::Call { args, .. } => rename_args(args, from, to),
                BufInit::Fill { value, .. } => rename_expr(value, from, to),
                BufInit::Zeros(_) => {}
            }
        }
        Stmt::LetMat { name, items, .. } => {
            ren(name, from, to);
            for e in items.iter_mut().flatten().flatten() {
                rename_expr(e, from, to);
            }
        }
        Stmt::LetCounter { name } | Stmt::Incr { name } => ren(name, from, to),
        Stmt::LetInt { name, value } => {
            ren(name, from, to);
            rename_int(value, from, to);
        }
        Stmt::Step { name, by, .. } => {
            ren(name, from, to);
            rename_int(by, from, to);
        }
        Stmt::AssignWhole { name, items } => {
            ren(name, from, to);
            items.iter_mut().for_each(|e| rename_expr(e, from, to));
        }
        Stmt::Swap { a, b, .. } => {
            ren(a, from, to);
            ren(b, from, to);
        }
        Stmt::Assign { place, value, .. } => {
            match place {
                Place::Local(n) | Place::Part(n, _) => ren(n, from, to),
                Place::Elem(n, i) => {
                    ren(n, from, to);
                    rename_int(i, from, to);
                }
                Place::MatElem(n, i, j) => {
                    ren(n, from, to);
                    rename_int(i, from, to);
                    rename_int(j, from, to);
                }
            }
            rename_expr(value, from, to);
        }
        Stmt::Block(b) | Stmt::Loop { body: b } => rename_block(b, from, to),
        Stmt::If { arms, otherwise } => {
            for (c, b) in arms {
                rename_cond(c, from, to);
                rename_block(b, from, to);
            }
            if let Some(b) = otherwise {
                rename_block(b, from, to);
            }
        }
        Stmt::For { pat, iter, body } => {
            match pat {
                ForPat::Index(n) | ForPat::Value(n) | ForPat::AmpValue(n) => ren(n, from, to),
                ForPat::Enumerate(i, v) => {
                    ren(i, from, to);
                    ren(v, from, to);
                }
            }
            match iter {
                ForIter::Range { lo, hi, .. } => {
                    rename_int(lo, from, to);
                    rename_int(hi, from, to);
                }
                ForIter::Plain(n) | ForIter::Iter(n) => ren(n, from, to),
            }
            rename_block(body, from, to);
        }
        Stmt::While {
            counter,
            extra,
            body,
            ..
        } => {
            ren(counter, from, to);
            if let Some(c) = extra {
                rename_cond(c, from, to);
            }
            rename_block(body, from, to);
        }
        Stmt::Return(e) => rename_expr(e, from, to),
        Stmt::Break | Stmt::Continue => {}
        // The idiomatic constructs (issue 15) are not renamed into: a
        // rename that misses a use there fails differently and is dropped.
        _ => {}
    }
}

fn rename_int(e: &mut IntExpr, from: &str, to: &str) {
    match e {
        IntExpr::Var(n) | IntExpr::Len(n) => ren(n, from, to),
        IntExpr::Add(a, b) | IntExpr::Sub(a, b) | IntExpr::Mul(a, b) | IntExpr::Rem(a, b) => {
            rename_int(a, from, to);
            rename_int(b, from, to);
        }
        IntExpr::Lit(_) | IntExpr::Field(..) => {}
    }
}

fn rename_cond(c: &mut Cond, from: &str, to: &str) {
    match c {
        Cond::Cmp(_, a, b) => {
            rename_expr(a, from, to);
            rename_expr(b, from, to);
        }
        Cond::IntCmp(_, a, b) => {
            rename_int(a, from, to);
            rename_int(b, from, to);
        }
        Cond::And(a, b) | Cond::Or(a, b) => {
            rename_cond(a, from, to);
            rename_cond(b, from, to);
        }
        Cond::Not(a) => rename_cond(a, from, to),
        Cond::Any { buf, rhs, .. } => {
            ren(buf, from, to);
            rename_expr(rhs, from, to);
        }
    }
}

fn rename_expr(e: &mut Expr, from: &str, to: &str) {
    match e {
        Expr::Local(n) | Expr::Deref(n) => ren(n, from, to),
        Expr::Elem(n, i) | Expr::MatRowSum(n, i) => {
            ren(n, from, to);
            rename_int(i, from, to);
        }
        Expr::MatElem(n, i, j) => {
            ren(n, from, to);
            rename_int(i, from, to);
            rename_int(j, from, to);
        }
        Expr::Bin(_, a, b) => {
            rename_expr(a, from, to);
            rename_expr(b, from, to);
        }
        Expr::Neg(a) | Expr::Powi(a, ..) => rename_expr(a, from, to),
        Expr::Method { recv, args, .. } => {
            rename_expr(recv, from, to);
            args.iter_mut().for_each(|a| rename_expr(a, from, to));
        }
        Expr::Cast(i) => rename_int(i, from, to),
        Expr::Call(_, args) => rename_args(args, from, to),
        Expr::List(items, ..) => items.iter_mut().for_each(|x| rename_expr(x, from, to)),
        Expr::If(arms, els) => {
            for (c, b) in arms {
                rename_cond(c, from, to);
                rename_block(b, from, to);
            }
            rename_block(els, from, to);
        }
        Expr::Block(b) => rename_block(b, from, to),
        Expr::Lit(..) | Expr::Const(_) => {}
        _ => {}
    }
}

fn rename_args(args: &mut [CallArg], from: &str, to: &str) {
    for a in args {
        match a {
            CallArg::Scalar(x) => rename_expr(x, from, to),
            CallArg::Int(i) => rename_int(i, from, to),
            CallArg::Name(n) | CallArg::Ref(n) => ren(n, from, to),
            CallArg::Sub(n, lo, hi) => {
                ren(n, from, to);
                rename_int(lo, from, to);
                if let Some(h) = hi {
                    rename_int(h, from, to);
                }
            }
            CallArg::List(items) | CallArg::RefList(items) => {
                items.iter_mut().for_each(|x| rename_expr(x, from, to))
            }
            CallArg::Row(n, k) => {
                ren(n, from, to);
                rename_int(k, from, to);
            }
        }
    }
}
