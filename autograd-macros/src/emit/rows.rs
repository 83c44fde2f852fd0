//! Rows: the bounds of a loop's array accesses checked once, before the
//! loop, instead of at every element.
//!
//! A loop `for j in lo..hi` that reads or writes `a[base + j]` checks
//! `base + j` against `a.len()` at every element, and the check keeps LLVM
//! from vectorising the loop (a dot product `Σ_j w[i·d + j]·x[s·d + j]`: 12
//! instructions an element, scalar; its reverse `d_w[i·d + j] +=
//! g·x[s·d + j]` the same). A hand-written gradient slices the rows first
//! (`let row = &w[i*d..(i+1)*d];`); this pass does it for every innermost
//! loop of the generated code, forward and reverse sweeps alike:
//!
//! ```text
//! if let (Some(__ad_row_w), Some(__ad_row_d_w)) = (
//!     row(&w[..], mul(i, d), add(mul(i, d), d)),          // i·d + lo, i·d + hi
//!     row_mut(&mut d_w[..], mul(i, d), add(mul(i, d), d)),
//! ) {
//!     for j in 0..d { .. __ad_row_w[j] .. __ad_row_d_w[j] += .. }
//! } else {
//!     for j in 0..d { .. w[i * d + j] .. d_w[i * d + j] += .. }  // as written
//! }
//! ```
//!
//! The first copy reads `row[j - lo]`, which LLVM proves in bounds from the
//! row's length, `hi - lo`. When a row is not all in its array, or its
//! bounds overflow, the loop runs as written: it panics where the function
//! does, with the same message. The checks themselves never panic: their
//! arithmetic is checked (`__private::index`, `None` on overflow), and they
//! read nothing but locals, literals, constants and lengths.
//!
//! Which accesses: `a[e]` where `a` is an array the emitter names as one
//! ([`Arrays`]: a float array of the function, or its adjoint) and `e` is
//! the loop's index plus or minus terms the loop does not change (`j`,
//! `base + j`, `j + 1`, `j - 1`, `(i + 1) * d + j`). Then `e(j) = e(lo) +
//! (j - lo)` for every `j` of the loop, and every part of `e(j)` lies
//! between its values at `lo` and `hi`, so the one check covers every
//! element. Which arrays:
//! - a parameter of the function read through a shared reference: a row
//!   for each index it is read at;
//! - any other array the loop only reads by index: the same;
//! - an array the loop writes: one mutable row, when every mention of the
//!   array in the loop is an access at that one index (the row borrows the
//!   array for the whole loop), and the loop's range does not read it.
//!
//! An index counting down, `c[n - 1 - j]` (what `c.iter().rev()` lowers
//! to), in a loop from 0 has a row of its own, from its value at `hi - 1`
//! to past its value at 0, read at `row[hi - 1 - j]`: LLVM proves that in
//! bounds when the loop starts at 0, not from another `lo`, and not
//! `row[hi - 1 - j + 1]` of a row two such indices share (both measured).
//! A loop counted down, `(0..hi).rev()`, gets rows only for such indices,
//! which it reads upwards (rows it would read downwards cost the mixture
//! more than they saved, BENCHMARKS.md).
//!
//! A strided index, `v[j·d + c]` (`d` fixed), is a column: its elements
//! are not one row, so `__private::strided` checks the last of them once
//! and lends a view whose `[j - lo]` LLVM proves in bounds, as a row's. Only
//! the array's one strided access gets one (`p[3·j]`, `p[3·j + 1]` and
//! `p[3·j + 2]` cost a pair loop more in checks than they saved), and not
//! in a loop counted down.
//!
//! Not given a row: `a[j]` in `for j in lo..a.len()`, which LLVM proves in
//! bounds itself, and an index through a counter the loop steps (`icf[b +
//! l]`, `l += 1`): rows for those cost the mixture more than they saved
//! (BENCHMARKS.md).
//!
//! This pass reads and writes Rust syntax, after emission: it knows
//! nothing of the IR beyond which names are arrays ([`Arrays`]), which
//! `names.rs` makes unique to one variable each. A name the loop binds
//! again, or a macro mentions, gets no row.

use crate::names::Names;
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use std::collections::{HashMap, HashSet};
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{BinOp, Expr};

/// Loops of at most this many elements, both bounds literals, get no rows.
const FEW: usize = 4;

/// The names in an emitted body that are arrays, by how the rows may
/// borrow them.
#[derive(Default)]
pub(super) struct Arrays {
    /// Float arrays of the function and their adjoints: sliceable with
    /// `[..]`, with `f64` (or `Dual`) elements, none of whose methods
    /// takes `&mut self`.
    pub sliceable: HashSet<String>,
    /// Those a shared reference holds (parameters `x: &[f64]`): the loop
    /// cannot write them, whatever else it does with them.
    pub shared: HashSet<String>,
}

/// `body` (statements) with every innermost loop given rows where it has
/// any; `body` itself if it does not parse (it then reaches
/// rustc as emitted, which reports what is wrong with it).
pub(super) fn check_rows_once(body: TokenStream, arrays: &Arrays, names: &Names) -> TokenStream {
    let parser = syn::Block::parse_within;
    let mut stmts = match syn::parse::Parser::parse2(parser, body.clone()) {
        Ok(s) => s,
        Err(_) => return body,
    };
    let mut counts = Counts::default();
    for stmt in &stmts {
        counts.visit_stmt(stmt);
    }
    let mut pass = Versioner {
        arrays,
        names,
        counts: &counts.values,
    };
    for stmt in &mut stmts {
        pass.visit_stmt_mut(stmt);
    }
    quote!(#(#stmts)*)
}

/// Walks a body, versioning its innermost loops.
struct Versioner<'a> {
    arrays: &'a Arrays,
    names: &'a Names,
    /// Locals whose values are integers known here (`Counts`).
    counts: &'a HashMap<String, i128>,
}

impl VisitMut for Versioner<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        syn::visit_mut::visit_expr_mut(self, expr);
        if let Expr::ForLoop(l) = expr {
            // (`version` refuses a loop with a loop inside.)
            if let Some(versioned) = version(l, self.arrays, self.names, self.counts) {
                *expr = versioned;
            }
        }
    }

    // Items nested in the body are not its code.
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// What one array's mentions in a loop body are.
#[derive(Default)]
struct Mentions {
    /// Accesses `a[e]` read, with `e` as a string when it is of a row.
    reads: Vec<Option<String>>,
    /// Accesses written (assigned, compound-assigned, borrowed `&mut`).
    writes: Vec<Option<String>>,
    /// Of those, the accesses assigned or compound-assigned as they are
    /// (`a[e] = v`, `a[e] += v`): what a row of cells can do to them.
    direct_writes: usize,
    /// Every access, read or written, by the index as written when what
    /// it stands for (`Facts::lets` substituted) may be of a row of
    /// cells: `Facts::cell_indices`.
    cell_keys: Vec<Option<String>>,
    /// Mentions not as the array of an access (`a.len()`, `f(a)`).
    other: usize,
}

/// What the versioning needs to know of a loop body.
struct Facts<'a> {
    index: &'a str,
    arrays: &'a Arrays,
    /// Names bound in the body (`let`, closure and `match` patterns).
    bound: HashSet<String>,
    /// Names the body may change: assigned, borrowed `&mut`, method
    /// receivers, or mentioned in a macro (whose tokens are opaque).
    changed: HashSet<String>,
    /// Names in macros' tokens.
    in_macros: HashSet<String>,
    /// Each array's mentions, and its identifier as written (whose span
    /// resolves it where the function's code is, also in a `macro_rules!`).
    mentions: HashMap<String, (syn::Ident, Mentions)>,
    /// The index expressions of accesses that may be of a row, by string.
    indices: HashMap<String, Expr>,
    /// Those that may be of a row of cells, by the string of the index as
    /// written: what each stands for, its `let`s substituted (`k - n` of
    /// `let k = i * n + j;`).
    cell_indices: HashMap<String, Expr>,
    /// In a place the expression is written through.
    place: bool,
    /// That place is the left of an assignment or compound assignment
    /// itself (not a field of it, not borrowed).
    direct: bool,
    /// The body's `let`s of index arithmetic (`let k = i * n + j;`, not
    /// `mut`), by name, their values in terms of what is bound before the
    /// body (earlier such `let`s substituted): an index through `k` is
    /// read as the expression it stands for (`resolve`). Names are unique
    /// to one variable each (`names.rs`).
    lets: HashMap<String, Expr>,
    /// A loop or an item inside the body: not an innermost loop.
    nested: bool,
}

impl<'ast> Visit<'ast> for Facts<'_> {
    fn visit_expr(&mut self, expr: &'ast Expr) {
        let place = std::mem::replace(&mut self.place, false);
        let direct = std::mem::replace(&mut self.direct, false);
        match expr {
            Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => self.nested = true,
            Expr::Assign(e) => {
                self.changed.extend(root(&e.left));
                self.place = true;
                self.direct = matches!(&*e.left, Expr::Index(_));
                self.visit_expr(&e.left);
                self.visit_expr(&e.right);
            }
            Expr::Binary(e) if crate::lower::syntax::is_compound(&e.op) => {
                self.changed.extend(root(&e.left));
                self.place = true;
                self.direct = matches!(&*e.left, Expr::Index(_));
                self.visit_expr(&e.left);
                self.visit_expr(&e.right);
            }
            Expr::Reference(e) if e.mutability.is_some() => {
                self.changed.extend(root(&e.expr));
                self.place = true;
                self.visit_expr(&e.expr);
            }
            Expr::MethodCall(e) => {
                // (`x.method()` may take `&mut self`; an element's methods
                // do not: `Arrays::sliceable`.)
                if !matches!(&*e.receiver, Expr::Index(_)) {
                    self.changed.extend(root(&e.receiver));
                }
                syn::visit::visit_expr_method_call(self, e);
            }
            Expr::Field(e) => {
                self.place = place;
                self.visit_expr(&e.base);
            }
            Expr::Paren(e) => {
                self.place = place;
                self.visit_expr(&e.expr);
            }
            // (a `macro_rules!` fragment, `$place = v`: written through too)
            Expr::Group(e) => {
                self.place = place;
                self.visit_expr(&e.expr);
            }
            Expr::Index(e) => match single_ident(&e.expr) {
                Some(array) if self.arrays.sliceable.contains(&array.to_string()) => {
                    let key = self.row_index(&e.index);
                    if let Some(key) = &key {
                        self.indices.insert(key.clone(), (*e.index).clone());
                    }
                    // (keyed by the index as written, which the rewrite
                    // finds again; analysed as what it stands for)
                    let resolved = resolve(&e.index, &self.lets);
                    let cell_key = self
                        .row_index(&resolved)
                        .map(|_| e.index.to_token_stream().to_string());
                    if let Some(key) = &cell_key {
                        self.cell_indices.insert(key.clone(), resolved);
                    }
                    let mentions = self.mentions_of(array);
                    mentions.cell_keys.push(cell_key);
                    match place {
                        true => {
                            mentions.writes.push(key);
                            mentions.direct_writes += usize::from(direct);
                        }
                        false => mentions.reads.push(key),
                    }
                    self.visit_expr(&e.index);
                }
                _ => {
                    self.place = place;
                    self.visit_expr(&e.expr);
                    self.visit_expr(&e.index);
                }
            },
            Expr::Path(p) => {
                if let Some(ident) = p.path.get_ident() {
                    if self.arrays.sliceable.contains(&ident.to_string()) {
                        self.mentions_of(ident.clone()).other += 1;
                    }
                    if place {
                        self.changed.insert(ident.to_string());
                    }
                }
            }
            _ => syn::visit::visit_expr(self, expr),
        }
    }

    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.bound.insert(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        syn::visit::visit_local(self, local);
        let Some((name, init)) = plain_let(local) else {
            return;
        };
        let value = resolve(init, &self.lets);
        let zero = quote!(0usize);
        if checked(&value, self.index, &zero).is_some() {
            self.lets
                .insert(name.to_string(), syn::parse_quote!((#value)));
        }
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        idents_in(m.tokens.clone(), &mut self.in_macros);
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {
        self.nested = true;
    }
}

impl Facts<'_> {
    fn mentions_of(&mut self, array: syn::Ident) -> &mut Mentions {
        let entry = self.mentions.entry(array.to_string());
        &mut entry.or_insert_with(|| (array, Mentions::default())).1
    }

    /// `index` as a string, when it is the loop's index plus or minus
    /// terms of pure leaves (`direction_in`, `checked`); which of them the loop
    /// changes is decided once the whole body is seen.
    fn row_index(&self, index: &Expr) -> Option<String> {
        let zero = quote!(0usize);
        let shape =
            direction_in(index, self.index).is_some() || stride_in(index, self.index).is_some();
        (shape && checked(index, self.index, &zero).is_some())
            .then(|| index.to_token_stream().to_string())
    }
}

/// A row: an array, the accesses it serves (indices that differ by a
/// constant: the same `terms`, each member's offset), and its name.
struct Row {
    array: syn::Ident,
    /// The index counts down as the loop's counts up (`n - 1 - j`).
    descending: bool,
    /// The index steps by this as the loop's counts up (`j * d + c`): a
    /// column (`__private::strided`), of one member.
    stride: Option<Expr>,
    terms: Vec<(bool, String)>,
    /// By offset, least first: the offset, the index as analysed (the
    /// `let`s it reads substituted), the index as written.
    members: Vec<(i128, Expr, String)>,
    mutable: bool,
    /// A row of `Cell`s (`__private::cell_rows`): one of several rows of
    /// an array the loop writes at indices more than a constant apart
    /// (`d_u[k - n]`, `d_u[k - 1]`, `d_u[k + n]` of a stencil's reverse),
    /// which can share the array only as cells.
    cells: bool,
    name: Option<syn::Ident>,
}

/// Loop `l` in two copies, one reading through rows checked before it
/// (module docs); `None` when it has no row.
fn version(
    l: &syn::ExprForLoop,
    arrays: &Arrays,
    names: &Names,
    counts: &HashMap<String, i128>,
) -> Option<Expr> {
    let syn::Pat::Ident(pat) = &*l.pat else {
        return None;
    };
    if pat.by_ref.is_some() || pat.mutability.is_some() || pat.subpat.is_some() {
        return None;
    }
    let index = pat.ident.to_string();
    let (lo, hi, counted_down) = range_of(&l.expr)?;
    let mut facts = Facts {
        index: &index,
        arrays,
        bound: HashSet::new(),
        changed: HashSet::new(),
        in_macros: HashSet::new(),
        mentions: HashMap::new(),
        indices: HashMap::new(),
        cell_indices: HashMap::new(),
        place: false,
        direct: false,
        lets: HashMap::new(),
        nested: false,
    };
    facts.visit_block(&l.body);
    let mut changed: HashSet<String> = facts.bound.clone();
    changed.extend(facts.changed.iter().cloned());
    changed.extend(facts.in_macros.iter().cloned());
    changed.insert(index.clone());
    if facts.nested || facts.bound.contains(&index) || facts.in_macros.contains(&index) {
        return None;
    }
    // What the loop does not change, but for its index.
    let invariant = |e: &Expr| {
        let mut idents = HashSet::new();
        idents_in(e.to_token_stream(), &mut idents);
        idents.remove(&index);
        idents.is_disjoint(&changed)
    };
    // (The bounds are evaluated where the loop's range is, with the
    // names the function has there: `j` in them is not the loop's.)
    let none = TokenStream::new();
    let (Some(first), Some(end)) = (checked(&lo, "", &none), checked(&hi, "", &none)) else {
        return None;
    };
    // A loop of a few elements known here (`for k in 0..2`, or `0..n`
    // with `n` a local of a known value: the zip of two coordinate
    // slices, `&p[3 * i..3 * i + 3]`) is unrolled whole by LLVM, and its
    // checks are as few as a row's would be. (With rows, a pair loop's
    // `r²` over 3 coordinates checked them at every pair, in a copy LLVM
    // vectorised across the coordinates: 1.4x the hand-written gradient's
    // time, against 1.1x as written; BENCHMARKS.md.)
    if let (Some(lo), Some(hi)) = (fold(&lo, counts), fold(&hi, counts)) {
        if hi.saturating_sub(lo) <= FEW as i128 {
            return None;
        }
    }
    // (`lo` is read again at every element: `row[j - lo]`.)
    if !invariant(&lo) || crate::lower::syntax::mentions_ident(lo.to_token_stream(), &index) {
        return None;
    }
    // An index that counts down, `n - 1 - j`, is read at `row[hi - 1 -
    // j]`, which LLVM proves in bounds when the loop starts at 0 (not
    // from `lo`: measured), so `hi` is read again at every element too. A
    // loop counted down gets rows only for such indices, which it reads
    // upwards.
    // (Other loops counted down get no row of a plain slice, but may get
    // rows of cells: below.)
    let descending_allowed = literal(&first) == Some(0)
        && invariant(&hi)
        && !crate::lower::syntax::mentions_ident(hi.to_token_stream(), &index);
    let allowed = |descending: bool| match descending {
        true => descending_allowed,
        false => !counted_down,
    };
    let mut header = HashSet::new();
    idents_in(l.expr.to_token_stream(), &mut header);
    let of_a_row = |key: &Option<String>| match key {
        Some(key) => {
            let at = &facts.indices[key];
            let ok = match stride_in(at, &index) {
                // (the stride is read where the loop's range is)
                Some(stride) => {
                    !counted_down && checked(&stride, "", &TokenStream::new()).is_some()
                }
                None => allowed(direction_in(at, &index) == Some(Direction::Down)),
            };
            (invariant(at) && ok).then(|| key.clone())
        }
        None => None,
    };
    // An index of a row of cells: counting up, in a loop counted either
    // way (the rows of a stencil's reverse, `(lo..hi).rev()`).
    let of_a_cell_row = |key: &Option<String>| {
        let key = key.as_ref()?;
        let at = &facts.cell_indices[key];
        let up = direction_in(at, &index) == Some(Direction::Up);
        (invariant(at) && up && stride_in(at, &index).is_none()).then(|| key.clone())
    };
    let mut mentions: Vec<(&String, &(syn::Ident, Mentions))> = facts.mentions.iter().collect();
    mentions.sort_by_key(|(array, _)| *array);
    let mut rows: Vec<Row> = Vec::new();
    for (array, (ident, m)) in mentions {
        if facts.bound.contains(array) || facts.in_macros.contains(array) {
            continue;
        }
        let reads: Vec<Option<String>> = m.reads.iter().map(of_a_row).collect();
        let writes: Vec<Option<String>> = m.writes.iter().map(of_a_row).collect();
        let read_only = arrays.shared.contains(array) || (writes.is_empty() && m.other == 0);
        let mut keys: Vec<String> = Vec::new();
        if read_only {
            for key in reads.iter().flatten() {
                // (`for j in lo..a.len()` reading `a[j]`: LLVM proves
                // those reads in bounds itself.)
                let proven = single_ident(&facts.indices[key]).is_some_and(|j| j == index)
                    && is_len_of(&hi, array);
                if !proven && !keys.contains(key) {
                    keys.push(key.clone());
                }
            }
        } else {
            // One mutable row, or rows of cells, through which goes every
            // mention.
            if m.other > 0 || header.contains(array) {
                continue;
            }
            let all: Option<Vec<String>> = reads.iter().chain(&writes).cloned().collect();
            let Some(all) = all else {
                rows.extend(cell_rows(
                    ident,
                    m,
                    &of_a_cell_row,
                    &facts.cell_indices,
                    &index,
                ));
                continue;
            };
            for key in all {
                if !keys.contains(&key) {
                    keys.push(key);
                }
            }
        }
        // Accesses that differ by a constant share a row (`u[j - 1]`,
        // `u[j]`, `u[j + 1]`); a written array has one row or none.
        // (An index counting down has a row of its own: LLVM keeps the
        // checks of `row[hi - 1 - j + 1]`, measured.)
        // A column only where it is the array's one (`v[j * d + c]`): three
        // a constant apart (`p[3 * j]`, `p[3 * j + 1]`, `p[3 * j + 2]`)
        // cost more in checks than they saved (a pair loop, measured).
        let columns = keys
            .iter()
            .filter(|key| stride_in(&facts.indices[*key], &index).is_some())
            .count();
        if columns > 1 {
            if !read_only {
                continue;
            }
            keys.retain(|key| stride_in(&facts.indices[key], &index).is_none());
        }
        let groups = group_rows(ident, keys, &facts.indices, &index, !read_only);
        if !read_only && groups.len() > 1 {
            rows.extend(cell_rows(
                ident,
                m,
                &of_a_cell_row,
                &facts.cell_indices,
                &index,
            ));
            continue;
        }
        rows.extend(groups);
    }
    // A mutable row's array may not be in another row's bounds (they are
    // evaluated while it is borrowed).
    let in_bounds: HashSet<String> = {
        let mut idents = HashSet::new();
        for (_, index, _) in rows.iter().flat_map(|row| &row.members) {
            idents_in(index.to_token_stream(), &mut idents);
        }
        idents
    };
    rows.retain(|row| !(row.mutable && in_bounds.contains(&row.array.to_string())));
    if rows.is_empty() {
        return None;
    }
    for row in &mut rows {
        let array = row.array.to_string();
        row.name = Some(names.fresh(&format!("__ad_row_{}", plain(&array))));
    }
    // The copy reading rows runs to a count taken from the rows' own
    // lengths, `n = min(row.len() - span, ..)`, which is `hi - lo` (a row
    // is `end - first = hi - lo + span` elements, the span of the offsets
    // it serves), so that LLVM compares the loop's indices with the
    // lengths it checks them against, without proving `end - first` equal
    // to `hi - lo` (which it did or not with changes elsewhere in the
    // function: a GRU's forward dot products, a check and a reload an
    // element once an unrelated record went away, +10 to +16%).
    let count = names.fresh("__ad_n");
    let count_expr: Expr = syn::parse_quote!(#count);
    let mut fast = l.clone();
    let mut rewrite = Rewrite {
        rows: &rows,
        index: &pat.ident,
        lo: &lo,
        hi: &count_expr,
    };
    rewrite.visit_block_mut(&mut fast.body);
    let lengths: Vec<TokenStream> = rows
        .iter()
        .map(|row| {
            let name = &row.name;
            match row.members[row.members.len() - 1].0 - row.members[0].0 {
                0 => quote!(#name.len()),
                span => {
                    let span = proc_macro2::Literal::usize_unsuffixed(span as usize);
                    quote!(#name.len() - #span)
                }
            }
        })
        .collect();
    let least = lengths.iter().skip(1).fold(
        lengths[0].clone(),
        |n, len| quote!(::core::cmp::min(#n, #len)),
    );
    let upper = match literal(&first) {
        Some(0) => quote!(#count),
        _ => quote!((#lo) + #count),
    };
    *fast.expr = match counted_down {
        true => syn::parse_quote!((#lo..#upper).rev()),
        false => syn::parse_quote!(#lo..#upper),
    };
    // (`lo` and `hi` as computed where the range is, for columns)
    let (lo_bound, hi_bound) = (first.clone(), end.clone());
    let checks = rows.iter().map(|row| {
        let array = &row.array;
        // From the first element the least member reads to past the last
        // the greatest does; every member's bounds computed (`given`), so
        // that none overflows where its loop as written would panic.
        // (`checked` succeeded on every index in `Facts::row_index`.)
        let bounds = |at: &TokenStream, of: usize| {
            let own = |k: usize| checked(&row.members[k].1, &index, at).unwrap_or_default();
            let mut bound = own(of);
            // (Only a computation may overflow, and one inside another is
            // computed by it: `n - 1` by `n - 1 - 1`.)
            let mut others: Vec<(String, TokenStream)> = (0..row.members.len())
                .filter(|&k| k != of)
                .map(|k| (own(k).to_string(), own(k)))
                .filter(|(text, _)| text.starts_with(":: autograd"))
                .collect();
            others.sort_by_key(|(text, _)| std::cmp::Reverse(text.len()));
            let mut computed = vec![bound.to_string()];
            for (text, other) in others {
                if computed.iter().all(|c| !c.contains(&text)) {
                    bound = quote!(::autograd::__private::index::given(#bound, #other));
                    computed.push(text);
                }
            }
            bound
        };
        let (first, end) = match row.descending {
            // one member (above), from its value at `hi - 1` to past its
            // value at `0`
            true => {
                let last = quote!(::autograd::__private::index::sub(#end, 1usize));
                let at_zero = bounds(&quote!(0usize), 0);
                (
                    bounds(&last, 0),
                    quote!(::autograd::__private::index::add(#at_zero, 1usize)),
                )
            }
            false => (bounds(&first, 0), bounds(&end, row.members.len() - 1)),
        };
        if let Some(stride) = &row.stride {
            // its first element, the stride, and `hi - lo` elements
            let at_lo = bounds(&lo_bound, 0);
            let stride = checked(stride, "", &TokenStream::new()).unwrap_or_default();
            let count = match literal(&lo_bound) {
                Some(0) => hi_bound.clone(),
                _ => quote!(::autograd::__private::index::sub(#hi_bound, #lo_bound)),
            };
            return match row.mutable {
                true => quote! {
                    ::autograd::__private::strided_mut(&mut #array[..], #at_lo, #stride, #count)
                },
                false => {
                    quote!(::autograd::__private::strided(&#array[..], #at_lo, #stride, #count))
                }
            };
        }
        if row.cells {
            let bound = quote!(::autograd::__private::index::Bound::bound);
            return quote!((#bound(#first), #bound(#end)));
        }
        match row.mutable {
            true => quote!(::autograd::__private::row_mut(&mut #array[..], #first, #end)),
            false => quote!(::autograd::__private::row(&#array[..], #first, #end)),
        }
    });
    let checks: Vec<TokenStream> = checks.collect();
    // (a column the loop writes is a value whose `IndexMut` takes `&mut`)
    let view = |row: &Row| match (row.mutable, &row.stride) {
        (true, Some(_)) => {
            let name = &row.name;
            quote!(mut #name)
        }
        _ => row.name.to_token_stream(),
    };
    // An array's rows of cells (next to each other in `rows`) are lent
    // together, by one `cell_rows` given each one's bounds.
    let (mut lent, mut views) = (Vec::new(), Vec::new());
    let mut k = 0;
    while k < rows.len() {
        if !rows[k].cells {
            lent.push(checks[k].clone());
            views.push(view(&rows[k]));
            k += 1;
            continue;
        }
        let array = &rows[k].array;
        let (mut bounds, mut names) = (Vec::new(), Vec::new());
        while k < rows.len() && rows[k].cells && rows[k].array == *array {
            bounds.push(checks[k].clone());
            names.push(rows[k].name.clone());
            k += 1;
        }
        lent.push(quote!(::autograd::__private::cell_rows(&mut #array[..], [#(#bounds),*])));
        views.push(quote!([#(#names),*]));
    }
    let checks = lent;
    syn::parse2(quote! {
        if let (#(Some(#views),)*) = (#(#checks,)*) {
            let #count: usize = #least;
            #fast
        } else {
            #l
        }
    })
    .ok()
}

/// The rows of an array's accesses `keys`: accesses whose indices
/// (`indices`) differ by a constant share one; an index counting down or
/// a column has one of its own.
fn group_rows(
    array: &syn::Ident,
    keys: Vec<String>,
    indices: &HashMap<String, Expr>,
    j: &str,
    mutable: bool,
) -> Vec<Row> {
    let mut groups: Vec<Row> = Vec::new();
    for key in keys {
        let index = &indices[&key];
        let descending = direction_in(index, j) == Some(Direction::Down);
        let stride = stride_in(index, j);
        let (terms, offset) = affine(index, j);
        let alone = descending || stride.is_some();
        let shared = groups.iter_mut().find(|row| {
            row.descending == descending
                && row.stride.is_some() == stride.is_some()
                && row.terms == terms
                && (!alone || row.members[0].0 == offset)
        });
        match shared {
            Some(row) => row.members.push((offset, index.clone(), key)),
            None => groups.push(Row {
                array: array.clone(),
                descending,
                stride,
                terms,
                members: vec![(offset, index.clone(), key)],
                mutable,
                cells: false,
                name: None,
            }),
        }
    }
    for row in &mut groups {
        row.members.sort_by_key(|(offset, _, _)| *offset);
    }
    groups
}

/// Rows of cells of an array a loop writes at indices more than a
/// constant apart, one per group (`d_u[k - n]`, `d_u[k - 1..=k + 1]`,
/// `d_u[k + n]` of a stencil's reverse, `k` a `let` of the body read as
/// what it stands for), in a loop counted either way: when every access
/// has an index of such a row (`of_a_cell_row`: counting up, no column)
/// and every write assigns or compound-assigns an element as it is. None
/// otherwise, or for one group (a plain row serves it, where one is
/// allowed). (Checked once, they save a bounds check an access: a 2-D
/// heat equation's reverse, 1.79x → 1.33x the hand-written gradient in a
/// hand-edited expansion.)
fn cell_rows(
    array: &syn::Ident,
    m: &Mentions,
    of_a_cell_row: &dyn Fn(&Option<String>) -> Option<String>,
    indices: &HashMap<String, Expr>,
    j: &str,
) -> Vec<Row> {
    if m.direct_writes != m.writes.len() || m.writes.is_empty() {
        return Vec::new();
    }
    let mut keys: Vec<String> = Vec::new();
    for key in &m.cell_keys {
        let Some(key) = of_a_cell_row(key) else {
            return Vec::new();
        };
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    let mut groups = group_rows(array, keys, indices, j, true);
    if groups.len() < 2 {
        return Vec::new();
    }
    for row in &mut groups {
        row.cells = true;
    }
    groups
}

/// Replaces each access of a row with a read of the row; of a row of
/// cells, reads with `.get()` and writes with `.set(..)`.
struct Rewrite<'a> {
    rows: &'a [Row],
    index: &'a syn::Ident,
    lo: &'a Expr,
    hi: &'a Expr,
}

impl VisitMut for Rewrite<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        // `a[e] = v` and `a[e] op= v` of a row of cells, `v` first (as
        // Rust evaluates an assignment to an element of floats)
        let write = match expr {
            Expr::Assign(a) => Some((&a.left, None, &mut a.right)),
            Expr::Binary(b) if crate::lower::syntax::is_compound(&b.op) => {
                Some((&b.left, Some(b.op), &mut b.right))
            }
            _ => None,
        };
        if let Some((left, op, right)) = write {
            if let Expr::Index(access) = &**left {
                if let Some((row, at)) = self.member(access).filter(|(row, _)| row.cells) {
                    let name = &row.name;
                    self.visit_expr_mut(right);
                    *expr = match op {
                        None => syn::parse_quote!(#name[#at].set(#right)),
                        Some(op) => syn::parse_quote!({
                            let __ad_v = #right;
                            let mut __ad_e = #name[#at].get();
                            __ad_e #op __ad_v;
                            #name[#at].set(__ad_e)
                        }),
                    };
                    return;
                }
            }
        }
        syn::visit_mut::visit_expr_mut(self, expr);
        let Expr::Index(access) = expr else {
            return;
        };
        let Some((row, at)) = self.member(access) else {
            return;
        };
        let name = &row.name;
        *expr = match row.cells {
            true => syn::parse_quote!(#name[#at].get()),
            false => syn::parse_quote!(#name[#at]),
        };
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

impl<'a> Rewrite<'a> {
    /// The row an access reads through, and the index in it.
    fn member(&self, access: &syn::ExprIndex) -> Option<(&'a Row, TokenStream)> {
        let array = single_ident(&access.expr)?;
        let written = access.index.to_token_stream().to_string();
        let (row, past) = self
            .rows
            .iter()
            .filter(|row| row.array == array)
            .find_map(|row| {
                let least = row.members[0].0;
                let member = row.members.iter().find(|(_, _, key)| *key == written);
                member.map(|(offset, _, _)| (row, offset - least))
            })?;
        let (j, lo) = (self.index, self.lo);
        if row.descending {
            // `row[hi - 1 - j]` (the loop starts at 0)
            let hi = match self.hi {
                hi @ (Expr::Path(_) | Expr::Lit(_) | Expr::MethodCall(_)) => quote!(#hi),
                hi => quote!((#hi)),
            };
            return Some((row, quote!(#hi - 1 - #j)));
        }
        // `row[j - lo + past]`, with what is known folded
        let literal = |value: i128| proc_macro2::Literal::u128_unsuffixed(value.unsigned_abs());
        let at = match lo {
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(int),
                ..
            }) if int.base10_parse::<i128>().is_ok() => {
                let shift = past - int.base10_parse::<i128>().unwrap_or(0);
                let magnitude = literal(shift);
                match shift {
                    0 => quote!(#j),
                    s if s > 0 => quote!(#j + #magnitude),
                    _ => quote!(#j - #magnitude),
                }
            }
            _ => {
                let lo = match lo {
                    Expr::Path(_) => quote!(#lo),
                    _ => quote!((#lo)),
                };
                match past {
                    0 => quote!(#j - #lo),
                    _ => {
                        let past = literal(past);
                        quote!(#j - #lo + #past)
                    }
                }
            }
        };
        Some((row, at))
    }
}

/// `e` with every name of `lets` in it replaced by what it stands for.
fn resolve(e: &Expr, lets: &HashMap<String, Expr>) -> Expr {
    struct Substitute<'a>(&'a HashMap<String, Expr>);
    impl VisitMut for Substitute<'_> {
        fn visit_expr_mut(&mut self, expr: &mut Expr) {
            if let Some(value) = single_ident(expr).and_then(|i| self.0.get(&i.to_string())) {
                *expr = value.clone();
                return;
            }
            syn::visit_mut::visit_expr_mut(self, expr);
        }
    }
    let mut e = e.clone();
    if !lets.is_empty() {
        Substitute(lets).visit_expr_mut(&mut e);
    }
    e
}

/// The terms of `e` (the index `j` plus or minus terms) other than `j`
/// and literals, with their signs, sorted, and the sum of its literals:
/// accesses whose terms are the same differ by a constant.
fn affine(e: &Expr, j: &str) -> (Vec<(bool, String)>, i128) {
    fn collect(e: &Expr, j: &str, plus: bool, terms: &mut Vec<(bool, String)>, sum: &mut i128) {
        match e {
            Expr::Paren(p) => collect(&p.expr, j, plus, terms, sum),
            Expr::Group(g) => collect(&g.expr, j, plus, terms, sum),
            Expr::Binary(b) if matches!(b.op, BinOp::Add(_) | BinOp::Sub(_)) => {
                collect(&b.left, j, plus, terms, sum);
                let right = plus == matches!(b.op, BinOp::Add(_));
                collect(&b.right, j, right, terms, sum);
            }
            Expr::Path(p) if p.path.is_ident(j) => {}
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(int),
                ..
            }) if int.base10_parse::<i64>().is_ok() => {
                let value = int.base10_parse::<i64>().unwrap_or(0) as i128;
                *sum += if plus { value } else { -value };
            }
            _ => terms.push((plus, e.to_token_stream().to_string())),
        }
    }
    let (mut terms, mut sum) = (Vec::new(), 0);
    collect(e, j, true, &mut terms, &mut sum);
    terms.sort();
    (terms, sum)
}

/// Which way an index moves as the loop's index `j` counts up.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Direction {
    /// `j`, `b + j`, `j + b`, `j - b`
    Up,
    /// `b - j`, `n - 1 - j`, `n - j - 1`
    Down,
}

/// Whether `e` is `j` or `-j` plus or minus terms without `j` (in
/// parentheses or not, nested), and which.
fn direction_in(e: &Expr, j: &str) -> Option<Direction> {
    let mentions = |e: &Expr| crate::lower::syntax::mentions_ident(e.to_token_stream(), j);
    let flip = |d: Direction| match d {
        Direction::Up => Direction::Down,
        Direction::Down => Direction::Up,
    };
    match e {
        Expr::Paren(p) => direction_in(&p.expr, j),
        Expr::Group(g) => direction_in(&g.expr, j),
        Expr::Path(p) => p.path.is_ident(j).then_some(Direction::Up),
        Expr::Binary(b) => match b.op {
            BinOp::Add(_) if !mentions(&b.right) => direction_in(&b.left, j),
            BinOp::Add(_) if !mentions(&b.left) => direction_in(&b.right, j),
            BinOp::Sub(_) if !mentions(&b.right) => direction_in(&b.left, j),
            BinOp::Sub(_) if !mentions(&b.left) => direction_in(&b.right, j).map(flip),
            _ => None,
        },
        _ => None,
    }
}

/// The stride of `e` when it is `j * s` (or `s * j`) plus or minus terms
/// without `j`, `s` without `j`: `v[j * d + c]`, a column.
fn stride_in(e: &Expr, j: &str) -> Option<Expr> {
    let mentions = |e: &Expr| crate::lower::syntax::mentions_ident(e.to_token_stream(), j);
    let is_j = |e: &Expr| single_ident(e).is_some_and(|i| i == j);
    match e {
        Expr::Paren(p) => stride_in(&p.expr, j),
        Expr::Group(g) => stride_in(&g.expr, j),
        Expr::Binary(b) => match b.op {
            BinOp::Mul(_) if is_j(&b.left) && !mentions(&b.right) => Some((*b.right).clone()),
            BinOp::Mul(_) if is_j(&b.right) && !mentions(&b.left) => Some((*b.left).clone()),
            BinOp::Add(_) if !mentions(&b.right) => stride_in(&b.left, j),
            BinOp::Add(_) if !mentions(&b.left) => stride_in(&b.right, j),
            BinOp::Sub(_) if !mentions(&b.right) => stride_in(&b.left, j),
            _ => None,
        },
        _ => None,
    }
}

/// The bounds of a loop's range, `lo..hi` or `(lo..hi).rev()`, and
/// whether it is counted down.
fn range_of(range: &Expr) -> Option<(Expr, Expr, bool)> {
    let tokens = range.to_token_stream();
    if let Some((lo, hi)) = crate::record::half_open(&tokens) {
        return Some((lo, hi, false));
    }
    match range {
        Expr::MethodCall(m) if m.method == "rev" && m.args.is_empty() => {
            let (lo, hi) = crate::record::half_open(&m.receiver.to_token_stream())?;
            Some((lo, hi, true))
        }
        _ => None,
    }
}

/// `e` computed in checked arithmetic (`__private::index`: `None` where
/// `e` would overflow or divide by zero), with `j` standing for `at`;
/// `None` when `e` has a part whose evaluation may panic or change
/// anything (an index, a call).
fn checked(e: &Expr, j: &str, at: &TokenStream) -> Option<TokenStream> {
    let index = quote!(::autograd::__private::index);
    Some(match e {
        Expr::Paren(p) => checked(&p.expr, j, at)?,
        Expr::Group(g) => checked(&g.expr, j, at)?,
        Expr::Path(p) if p.path.is_ident(j) => at.clone(),
        Expr::Path(p) if p.qself.is_none() => p.to_token_stream(),
        // (`index::Bound` takes a `usize`, which an unsuffixed literal is
        // not until it is used as one.)
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(int),
            ..
        }) => match int.suffix() {
            "" => syn::LitInt::new(&format!("{}usize", int.base10_digits()), int.span())
                .to_token_stream(),
            _ => int.to_token_stream(),
        },
        Expr::Field(f) if is_path(&f.base) => f.to_token_stream(),
        Expr::Cast(c) if is_path(&c.expr) => c.to_token_stream(),
        Expr::MethodCall(m) if m.method == "len" && m.args.is_empty() && is_path(&m.receiver) => {
            m.to_token_stream()
        }
        Expr::Binary(b) => {
            let (left, right) = (checked(&b.left, j, at)?, checked(&b.right, j, at)?);
            if let (Some(l), Some(r)) = (literal(&left), literal(&right)) {
                // (folded here, as rustc would: `1 - 1` of `i - 1` at `i = 1`)
                let folded = match b.op {
                    BinOp::Add(_) => l.checked_add(r),
                    BinOp::Sub(_) => l.checked_sub(r),
                    BinOp::Mul(_) => l.checked_mul(r),
                    BinOp::Div(_) => l.checked_div(r),
                    BinOp::Rem(_) => l.checked_rem(r),
                    _ => None,
                };
                if let Some(value) = folded {
                    return Some(quote!(#value));
                }
            }
            let zero = |t: &TokenStream| literal(t) == Some(0);
            let op = match b.op {
                BinOp::Add(_) if zero(&right) => return Some(left),
                BinOp::Add(_) if zero(&left) => return Some(right),
                BinOp::Sub(_) if zero(&right) => return Some(left),
                // (`0 * d`, of a loop from 0; not `0 * (n - 1)`, whose
                // `n - 1` may overflow where the function's does)
                BinOp::Mul(_) if zero(&left) && is_path(&b.right) => return Some(quote!(0usize)),
                BinOp::Mul(_) if zero(&right) && is_path(&b.left) => return Some(quote!(0usize)),
                BinOp::Add(_) => quote!(add),
                BinOp::Sub(_) => quote!(sub),
                BinOp::Mul(_) => quote!(mul),
                BinOp::Div(_) => quote!(div),
                BinOp::Rem(_) => quote!(rem),
                _ => return None,
            };
            quote!(#index::#op(#left, #right))
        }
        _ => return None,
    })
}

/// The locals of a body (`let n = e;`, not `mut`) whose values are
/// integers known from the body's text (`fold`), by name: names are unique
/// to one variable each (`names.rs`), so a name is one value wherever it is
/// bound (a loop's forward and reverse copies bind it alike). A count it
/// gets wrong (a name bound twice inside constant tokens the renaming does
/// not reach) can only cost a loop its rows: the loop as written is always
/// right.
#[derive(Default)]
struct Counts {
    values: HashMap<String, i128>,
}

impl<'ast> Visit<'ast> for Counts {
    fn visit_local(&mut self, local: &'ast syn::Local) {
        syn::visit::visit_local(self, local);
        let Some((name, init)) = plain_let(local) else {
            return;
        };
        if let Some(value) = fold(init, &self.values) {
            self.values.insert(name.to_string(), value);
        }
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// The name and value of `let name = value;` (or `let name: T =
/// value;`), not `mut`, `ref` or `name @ ..`, without an `else`.
fn plain_let(local: &syn::Local) -> Option<(&syn::Ident, &Expr)> {
    let pat = match &local.pat {
        syn::Pat::Type(t) => &*t.pat,
        other => other,
    };
    let (syn::Pat::Ident(p), Some(init)) = (pat, &local.init) else {
        return None;
    };
    let plain = p.mutability.is_none() && p.by_ref.is_none() && p.subpat.is_none();
    (plain && init.diverge.is_none()).then_some((&p.ident, &*init.expr))
}

/// The integer `e` is, from its text: literals, locals of known values
/// (`counts`), `+ - *`, `min`, casts, and `(x + c) - x` (`c`), the length
/// of a subslice `&a[x..x + c]` as lowering writes it.
fn fold(e: &Expr, counts: &HashMap<String, i128>) -> Option<i128> {
    match e {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(int),
            ..
        }) => int.base10_parse().ok(),
        Expr::Paren(p) => fold(&p.expr, counts),
        Expr::Group(g) => fold(&g.expr, counts),
        Expr::Cast(c) => fold(&c.expr, counts),
        Expr::Path(_) => counts.get(&single_ident(e)?.to_string()).copied(),
        Expr::Binary(b) => {
            let (left, right) = (fold(&b.left, counts), fold(&b.right, counts));
            match (&b.op, left, right) {
                (BinOp::Add(_), Some(l), Some(r)) => l.checked_add(r),
                (BinOp::Sub(_), Some(l), Some(r)) => l.checked_sub(r),
                (BinOp::Mul(_), Some(l), Some(r)) => l.checked_mul(r),
                (BinOp::Sub(_), _, _) => match unparen(&b.left) {
                    Expr::Binary(sum) if matches!(sum.op, BinOp::Add(_)) => {
                        let same = |x: &Expr, y: &Expr| {
                            x.to_token_stream().to_string() == y.to_token_stream().to_string()
                        };
                        if same(unparen(&sum.left), unparen(&b.right)) {
                            fold(&sum.right, counts)
                        } else if same(unparen(&sum.right), unparen(&b.right)) {
                            fold(&sum.left, counts)
                        } else {
                            None
                        }
                    }
                    _ => None,
                },
                _ => None,
            }
        }
        // `::core::cmp::min(a, b)`, `a.min(b)`
        Expr::Call(c) if c.args.len() == 2 => {
            let Expr::Path(f) = unparen(&c.func) else {
                return None;
            };
            if f.path.segments.last()?.ident != "min" {
                return None;
            }
            Some(fold(&c.args[0], counts)?.min(fold(&c.args[1], counts)?))
        }
        Expr::MethodCall(m) if m.method == "min" && m.args.len() == 1 => {
            Some(fold(&m.receiver, counts)?.min(fold(&m.args[0], counts)?))
        }
        _ => None,
    }
}

/// `e` without the parentheses (and invisible groups) around it.
fn unparen(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => unparen(&p.expr),
        Expr::Group(g) => unparen(&g.expr),
        other => other,
    }
}

/// The value of a `usize` literal as `checked` writes one (`2usize`).
fn literal(tokens: &TokenStream) -> Option<usize> {
    match syn::parse2::<syn::LitInt>(tokens.clone()) {
        Ok(int) if int.suffix() == "usize" => int.base10_parse().ok(),
        _ => None,
    }
}

/// Whether `e` is `array.len()`.
fn is_len_of(e: &Expr, array: &str) -> bool {
    matches!(e, Expr::MethodCall(m) if m.method == "len"
        && m.args.is_empty()
        && single_ident(&m.receiver).is_some_and(|r| r == array))
}

fn is_path(e: &Expr) -> bool {
    matches!(e, Expr::Path(p) if p.qself.is_none())
}

/// The name `e` is, when it is a single identifier.
fn single_ident(e: &Expr) -> Option<syn::Ident> {
    match e {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().cloned(),
        Expr::Paren(p) => single_ident(&p.expr),
        Expr::Group(g) => single_ident(&g.expr),
        _ => None,
    }
}

/// The variable a place expression is part of (`a` of `a[i].x`, `*a`).
fn root(e: &Expr) -> Option<String> {
    match e {
        Expr::Index(i) => root(&i.expr),
        Expr::Field(f) => root(&f.base),
        Expr::Paren(p) => root(&p.expr),
        Expr::Group(g) => root(&g.expr),
        Expr::Unary(u) => root(&u.expr),
        Expr::MethodCall(m) => root(&m.receiver),
        _ => single_ident(e).map(|ident| ident.to_string()),
    }
}

/// Every identifier in `tokens`, into `into`.
fn idents_in(tokens: TokenStream, into: &mut HashSet<String>) {
    for tree in tokens {
        match tree {
            proc_macro2::TokenTree::Ident(ident) => {
                into.insert(ident.to_string());
            }
            proc_macro2::TokenTree::Group(group) => idents_in(group.stream(), into),
            _ => {}
        }
    }
}

/// A name without the raw prefix, for a row's name (`r#in` → `in`).
fn plain(name: &str) -> &str {
    let name = name.strip_prefix("r#").unwrap_or(name);
    name.strip_prefix("__ad_").unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `body` through the pass, with `shared` read-only parameters and
    /// `other` arrays, printed.
    fn rows(body: &str, shared: &[&str], other: &[&str]) -> String {
        let body: TokenStream = body.parse().unwrap();
        let names = Names::new(&syn::parse_quote!(
            fn f() {}
        ));
        let mut arrays = Arrays::default();
        for name in shared.iter().chain(other) {
            arrays.sliceable.insert(name.to_string());
        }
        arrays.shared.extend(shared.iter().map(|s| s.to_string()));
        check_rows_once(body, &arrays, &names).to_string()
    }

    fn unchanged(body: &str, shared: &[&str], other: &[&str]) {
        let expected: TokenStream = body.parse().unwrap();
        assert_eq!(rows(body, shared, other), expected.to_string());
    }

    #[test]
    fn a_dot_product_reads_two_rows() {
        let out = rows(
            "for j in 0..d { s += w[i * d + j] * x[k * d + j]; }",
            &["w", "x"],
            &[],
        );
        assert!(out.contains(
            "row (& w [..] , :: autograd :: __private :: index :: mul (i , d) , \
             :: autograd :: __private :: index :: add (:: autograd :: __private :: index :: \
             mul (i , d) , d))"
        ));
        assert!(
            out.contains("s += __ad_row_w [j] * __ad_row_x [j] ;"),
            "{out}"
        );
        // the loop as written, for when a row is not all in its array
        assert!(out.contains("else { for j in 0 .. d { s += w [i * d + j] * x [k * d + j] ; } }"));
    }

    #[test]
    fn an_adjoint_written_at_one_index_is_one_mutable_row() {
        let out = rows(
            "for j in 1..n { d_w[b + j] += g * x[j - 1]; }",
            &["x"],
            &["d_w"],
        );
        assert!(
            out.contains(
                "row_mut (& mut d_w [..] , :: autograd :: __private :: index :: add (b , 1usize) ,"
            ),
            "{out}"
        );
        // `j - 1` at `j = 1` is folded
        assert!(out.contains("row (& x [..] , 0usize ,"), "{out}");
        assert!(
            out.contains("__ad_row_d_w [j - 1] += g * __ad_row_x [j - 1]"),
            "{out}"
        );
    }

    #[test]
    fn a_written_array_read_elsewhere_has_no_row() {
        // `h` passed whole: it cannot be borrowed for the whole loop
        unchanged("for j in 0..n { h[j] = 1.0; f(h); }", &[], &["h"]);
        // nor an array the range reads
        unchanged("for j in 0..h.len() { h[j] = 1.0; }", &[], &["h"]);
    }

    #[test]
    fn an_array_written_at_indices_apart_has_rows_of_cells() {
        // two rows of one written array share it as cells: each access
        // reads `.get()` and writes `.set(..)`, a compound assignment
        // through a copy, its value first
        let out = rows(
            "for j in 0..n { d_w[j] += 1.0; d_w[k + j] = d_w[j] * 2.0; }",
            &[],
            &["d_w"],
        );
        assert!(
            out.contains("cell_rows (& mut d_w [..] , [(:: autograd :: __private :: index :: Bound :: bound (0usize) , :: autograd :: __private :: index :: Bound :: bound (n)) , (:: autograd :: __private :: index :: Bound :: bound (k) ,"),
            "{out}"
        );
        assert!(
            out.contains("Some ([__ad_row_d_w , __ad_row_d_w_1])"),
            "{out}"
        );
        assert!(
            out.contains("{ let __ad_v = 1.0 ; let mut __ad_e = __ad_row_d_w [j] . get () ; __ad_e += __ad_v ; __ad_row_d_w [j] . set (__ad_e) }"),
            "{out}"
        );
        assert!(
            out.contains("__ad_row_d_w_1 [j] . set (__ad_row_d_w [j] . get () * 2.0)"),
            "{out}"
        );
        // a stencil's reverse: counted down, its indices through a `let`
        // of the body, three groups (`k - n`, `k - 1..=k + 1`, `k + n`);
        // `d_next` at one index counting up in a loop counted down keeps
        // its checks (a plain row there cost the mixture more than it
        // saved)
        let out = rows(
            "for j in (1..n - 1).rev() { let k = i * n + j; let d = d_next[k]; d_next[k] = 0.0; \
             d_u[k + 1] += d; d_u[k - 1] += d; d_u[k + n] += d; d_u[k - n] += d; d_u[k] += d; }",
            &[],
            &["d_u", "d_next"],
        );
        assert!(out.contains("cell_rows (& mut d_u [..]"), "{out}");
        assert!(
            out.contains("Some ([__ad_row_d_u , __ad_row_d_u_1 , __ad_row_d_u_2])"),
            "{out}"
        );
        assert!(out.contains("let d = d_next [k] ;"), "{out}");
        let fast = out.split("} else {").next().unwrap_or_default();
        assert!(!fast.contains("d_u [k"), "{out}");
        // not through a `&mut`, a field, or for one group in a loop
        // counted down
        unchanged(
            "for j in 0..n { g(&mut d_w[j]); d_w[k + j] += 2.0; }",
            &[],
            &["d_w"],
        );
        unchanged(
            "for j in 0..n { d_w[j].v += 1.0; d_w[k + j] += 2.0; }",
            &[],
            &["d_w"],
        );
        unchanged(
            "for j in (1..n).rev() { d_w[j] += 1.0; d_w[j - 1] += 2.0; }",
            &[],
            &["d_w"],
        );
    }

    #[test]
    fn accesses_a_constant_apart_share_one_row() {
        // a written array at two offsets: one mutable row from the least
        // member's first element to past the greatest's last
        let out = rows(
            "for j in 0..n { d_w[j] += 1.0; d_w[j + 1] += 2.0; }",
            &[],
            &["d_w"],
        );
        assert!(out.contains(
            "row_mut (& mut d_w [..] , 0usize , :: autograd :: __private :: index :: add (n , 1usize))"
        ));
        assert!(
            out.contains("__ad_row_d_w [j] += 1.0 ; __ad_row_d_w [j + 1] += 2.0 ;"),
            "{out}"
        );
        // a stencil from `lo = 1`: one row of `u`, read at `i - 1 + 0..2`
        let out = rows(
            "for i in 1..n - 1 { v[i] = u[i - 1] - 2.0 * u[i] + u[i + 1]; }",
            &["u"],
            &["v"],
        );
        assert_eq!(out.matches("row (& u").count(), 1, "{out}");
        // the bound `u[i - 1]` alone would give at the end, `n - 1 - 1`, is
        // computed too (`given`; it computes `n - 1`, `u[i]`'s, on the way)
        let (sub, given) = (":: autograd :: __private :: index :: sub", "index :: given");
        assert!(
            out.contains(&format!("{sub} ({sub} (n , 1usize) , 1usize))")),
            "{out}"
        );
        assert_eq!(out.matches(given).count(), 1, "{out}");
        assert!(
            out.contains("__ad_row_u [i - 1] - 2.0 * __ad_row_u [i] + __ad_row_u [i + 1]"),
            "{out}"
        );
        assert!(out.contains("__ad_row_v [i - 1] ="), "{out}");
        // a range from a variable: `j - lo + past`
        let out = rows(
            "for j in lo..n { s += x[b + j] * x[b + j + 2]; }",
            &["x"],
            &[],
        );
        assert!(
            out.contains("__ad_row_x [j - lo] * __ad_row_x [j - lo + 2]"),
            "{out}"
        );
    }

    #[test]
    fn indices_counting_down_get_rows_of_their_own() {
        // `c.iter().rev()` lowered: `c[n - 1 - k]` for `k` in `0..n`, a row
        // from the value at `k = n - 1` to past the value at `k = 0`, read
        // at `n - 1 - k` where the loop's count `n` is the least of the
        // rows' lengths, `__ad_n`; the adjoint's the same, counted down
        let index = ":: autograd :: __private :: index";
        for range in ["0..n", "(0..n).rev()"] {
            let body = format!(
                "for k in {range} {{ p = p * x + c[n - 1 - (k)]; d_c[n - 1 - (k)] += g; }}"
            );
            let out = rows(&body, &["c"], &["d_c"]);
            let first = format!(
                "{index} :: sub ({index} :: sub (n , 1usize) , {index} :: sub (n , 1usize))"
            );
            let end = format!("{index} :: add ({index} :: sub (n , 1usize) , 1usize)");
            assert!(
                out.contains(&format!("row (& c [..] , {first} , {end})")),
                "{out}"
            );
            assert!(
                out.contains(&format!("row_mut (& mut d_c [..] , {first} , {end})")),
                "{out}"
            );
            assert!(
                out.contains(
                    "let __ad_n : usize = :: core :: cmp :: min (__ad_row_c . len () , \
                     __ad_row_d_c . len ())"
                ),
                "{out}"
            );
            assert!(out.contains("0 .. __ad_n"), "{out}");
            assert!(out.contains("__ad_row_c [__ad_n - 1 - k]"), "{out}");
            assert!(out.contains("__ad_row_d_c [__ad_n - 1 - k] += g"), "{out}");
        }
        // a bound that is an expression: the count is the row's length
        let out = rows("for k in 0..m - 2 { s += w[b - k]; }", &["w"], &[]);
        assert!(
            out.contains("let __ad_n : usize = __ad_row_w . len ()"),
            "{out}"
        );
        assert!(out.contains("__ad_row_w [__ad_n - 1 - k]"), "{out}");
        // two of them a constant apart: a row each (LLVM keeps the checks
        // of a shared one); one counting up beside them has its own
        let out = rows(
            "for k in 0..n { s += w[b - k] * w[b + 1 - k] * w[b + k]; }",
            &["w"],
            &[],
        );
        assert_eq!(out.matches("row (& w").count(), 3, "{out}");
        // counted down, only the index counting down
        let out = rows(
            "for k in (0..n).rev() { s += w[b + k]; s += w[b - k]; }",
            &["w"],
            &[],
        );
        assert_eq!(out.matches("row (& w").count(), 1, "{out}");
        assert!(
            out.contains("s += w [b + k] ; s += __ad_row_w [__ad_n - 1 - k]"),
            "{out}"
        );
        // not from a start other than 0 (LLVM keeps the checks of
        // `row[hi - 1 - k]`), nor a loop counted down counting up, nor a
        // bound the loop changes or that names the loop's index
        unchanged("for k in 1..n { s += w[b - k]; }", &["w"], &[]);
        unchanged("for k in (0..n).rev() { s += w[b + k]; }", &["w"], &[]);
        unchanged("for k in 0..n { n = 1; s += w[b - k]; }", &["w"], &[]);
        unchanged("for k in 0..k { s += w[b - k]; }", &["w"], &[]);
    }

    #[test]
    fn a_strided_index_is_a_column() {
        // `v[j * d + c]` read, `d_v[j * d + c]` written: a column each, of
        // `n` elements from `c` (at `j = 0`), read at `j`
        let out = rows(
            "for j in 0..n { o += s[j] * v[j * d + c]; d_v[j * d + c] += g * s[j]; }",
            &["v", "s"],
            &["d_v"],
        );
        assert!(out.contains("strided (& v [..] , c , d , n)"), "{out}");
        assert!(out.contains("Some (mut __ad_row_d_v)"), "{out}");
        assert!(
            out.contains("strided_mut (& mut d_v [..] , c , d , n)"),
            "{out}"
        );
        assert!(out.contains("__ad_row_v [j]"), "{out}");
        assert!(out.contains("__ad_row_d_v [j] += g"), "{out}");
        // from `lo`: the first element at `lo`, `n - lo` of them, `j - lo`
        let out = rows("for j in lo..n { o += v[c + d * j]; }", &["v"], &[]);
        let index = ":: autograd :: __private :: index";
        assert!(
            out.contains(&format!(
                "strided (& v [..] , {index} :: add (c , {index} :: mul (d , lo)) , d , {index} :: sub (n , lo))"
            )),
            "{out}"
        );
        assert!(out.contains("__ad_row_v [j - lo]"), "{out}");
        // one column an array, or none: `p[3 * j]`, `p[3 * j + 1]`
        unchanged(
            "for j in 0..n { o += p[3 * j] * p[3 * j + 1]; }",
            &["p"],
            &[],
        );
        // not in a loop counted down
        unchanged("for j in (0..n).rev() { o += v[j * d + c]; }", &["v"], &[]);
    }

    #[test]
    fn a_place_from_a_macro_fragment_is_written() {
        // `$place = 1.0` with `$place:expr` = `h[j]`: an invisible group,
        // written through, so a mutable row (an immutable one would not
        // compile)
        let place = proc_macro2::Group::new(proc_macro2::Delimiter::None, quote!(h[j]));
        let body = quote!(for j in 0..n { #place = 1.0; });
        let names = Names::new(&syn::parse_quote!(
            fn f() {}
        ));
        let mut arrays = Arrays::default();
        arrays.sliceable.insert("h".to_string());
        let out = check_rows_once(body, &arrays, &names).to_string();
        assert!(out.contains("row_mut (& mut h [..]"), "{out}");
    }

    #[test]
    fn an_array_only_read_has_a_row_beside_other_reads() {
        let out = rows("for j in 0..n { s += h[j] * h[k]; }", &[], &["h"]);
        assert!(out.contains("s += __ad_row_h [j] * h [k]"), "{out}");
    }

    #[test]
    fn what_the_loop_changes_or_binds_gets_no_row() {
        // the base is changed in the loop
        unchanged("for j in 0..n { s += w[b + j]; b += 1; }", &["w"], &[]);
        // a `let` in the loop shadows the array, or the index
        unchanged("for j in 0..n { let w = v; s += w[j]; }", &["w"], &[]);
        unchanged("for j in 0..n { let j = 2; s += w[j]; }", &["w"], &[]);
        // a macro mentions it (its tokens are opaque)
        unchanged("for j in 0..n { s += w[j]; m!(w); }", &[], &["w"]);
        // `lo` is changed in the loop (it is read at every element)
        unchanged("for j in lo..n { s += w[j]; lo = 2; }", &["w"], &[]);
    }

    #[test]
    fn indices_that_may_panic_or_are_not_a_row_are_left_alone() {
        // a call or an index in the base may panic or change something
        unchanged("for j in 0..n { s += w[f(i) + j]; }", &["w"], &[]);
        unchanged("for j in 0..n { s += w[idx[i] + j]; }", &["w"], &[]);
        // a stride the loop changes, or that may panic, is no column
        unchanged("for j in 0..n { d = 2; s += w[j * d + c]; }", &["w"], &[]);
        unchanged("for j in 0..n { s += w[j * f(d) + c]; }", &["w"], &[]);
        // `j + j`, `b - j - j`: not the index plus or minus a constant
        unchanged("for j in 0..n { s += w[j + j]; }", &["w"], &[]);
        unchanged("for j in 0..n { s += w[b - j - j]; }", &["w"], &[]);
        // not an array the emitter knows
        unchanged("for j in 0..n { s += m[i + j]; }", &[], &[]);
    }

    #[test]
    fn reads_llvm_proves_in_bounds_get_no_row() {
        unchanged("for k in 2..c.len() { s += c[k]; }", &["c"], &[]);
        // nor a loop of a few elements, unrolled whole
        unchanged("for k in 0..2 { s += w[i * 2 + k]; }", &["w"], &[]);
        assert!(rows("for k in 0..5 { s += w[i * 5 + k]; }", &["w"], &[]).contains("__ad_row_w"));
    }

    #[test]
    fn a_loop_over_a_few_elements_known_from_locals_gets_no_row() {
        // the zip of two coordinate slices, `&p[3 * i..3 * i + 3]`, as
        // lowering writes it: a length `(x + 3) - x` and the `min` of two
        let pair = |c: usize| {
            format!(
                "let a = ((3 * i + {c})) - ((3 * i)); \
                 let b = (((3 * j + {c})) - ((3 * j))); \
                 let n = ::core::cmp::min(a, b); \
                 for k in 0..n {{ s += w[3 * i + k] * w[3 * j + k]; }}"
            )
        };
        unchanged(&pair(3), &["w"], &[]);
        unchanged(&pair(4), &["w"], &[]);
        assert!(rows(&pair(5), &["w"], &[]).contains("__ad_row_w"));
        // not a local changed after it is bound, nor one of another value
        // in another scope: names are unique to a variable, so this does
        // not occur in emitted code, but `mut` is not folded
        assert!(rows(
            "let mut n = 3; n += 4; for k in 0..n { s += w[i + k]; }",
            &["w"],
            &[]
        )
        .contains("__ad_row_w"));
        // `len()` and a parameter are not known
        assert!(rows(
            "let n = x.len(); for k in 0..n { s += w[i + k]; }",
            &["w"],
            &[]
        )
        .contains("__ad_row_w"));
    }

    #[test]
    fn only_innermost_loops_and_not_nested_items() {
        let out = rows(
            "for i in 0..n { for j in 0..d { s += w[i * d + j]; } t += w[i]; }",
            &["w"],
            &[],
        );
        // the inner loop has a row (its count the row's length); the outer
        // one, holding a loop, not
        assert_eq!(out.matches("__ad_row_w").count(), 3, "{out}");
        assert!(out.contains("t += w [i]"), "{out}");
        unchanged(
            "for j in 0..n { fn g(w: &[f64]) -> f64 { w[0] } s += w[j]; }",
            &["w"],
            &[],
        );
    }

    #[test]
    fn a_body_that_does_not_parse_is_left_as_it_is() {
        unchanged("for j in 0..n { s += w[j]; } let", &["w"], &[]);
    }

    #[test]
    fn checked_bounds_never_panic() {
        let j = "j";
        let at = quote!(lo);
        let e: Expr = syn::parse_quote!((i + 1) * d - 2 + j);
        let out = checked(&e, j, &at).unwrap().to_string();
        assert_eq!(
            out,
            quote!(::autograd::__private::index::add(
                ::autograd::__private::index::sub(
                    ::autograd::__private::index::mul(
                        ::autograd::__private::index::add(i, 1usize),
                        d
                    ),
                    2usize
                ),
                lo
            ))
            .to_string()
        );
        // a call, an index, a method other than `len`: may panic
        for e in [
            syn::parse_quote!(f(i) + j),
            syn::parse_quote!(v[i] + j),
            syn::parse_quote!(v.get(i) + j),
        ] {
            assert!(checked(&e, j, &at).is_none());
        }
    }
}
