//! Costly values that do not change with a loop, tabulated before it.
//!
//! A Gaussian mixture's log-likelihood, as users write it, scales each
//! coordinate of each point by `(-log_sigma[c * d + j]).exp()` inside the
//! loop over points: N·K·d exponentials where K·d would do, and as many
//! again recorded or recomputed by the reverse sweep. A hand-written
//! gradient computes the table `exp(-log_sigma)` once, before the loop.
//!
//! This pass does that for the macro's IR. In the body of a loop `L`
//! counting `a..b`, a *costly* value (`exp`, `ln`, `sqrt`, a division: a
//! primitive other than `+ - *`, negation, `abs`, `min`, `max`) is
//! *invariant* when everything it is computed from is: a literal, a
//! variable defined before `L` (not a cell), an element of a parameter
//! array nothing stores into (a load, or constant data outside `wrt`, which
//! lowering keeps as tokens: `let l = ls[j];`), or the index of a loop between `L` and the
//! value whose range is itself invariant (`for c in 0..k { for j in 0..d
//! { .. } }`; or reads integer `let`s of the loops around computed from
//! invariant values alone, as an iterator chain's length, `let n =
//! w.len();` in `L`'s body, is). Each such value that something other than such values
//! reads is computed before `L`, for every index of the loops it depends on
//! (at least one: a value none of them changes is one number, LLVM's to
//! keep in a register), into a `Vec` (`__ad_tab`, indexed by those loops'
//! indices in row-major order), and its `let` in `L` becomes a load of its
//! element:
//!
//! ```text
//! let runs = 0 < n && 0 < k && 0 < d;             (L, then each loop between)
//! let tab = vec![0.0; if runs { k * d } else { 0 }];
//! for c2 in 0..(if runs { k } else { 0 }) {
//!     for j2 in 0..d {
//!         let ls2 = log_sigma[c2 * d + j2]; let t2 = -ls2; let e2 = exp(t2);
//!         tab[c2 * d + j2] = e2;
//!     }
//! }
//! for p in 0..n { .. for c in 0..k { .. for j in 0..d { .. let e = tab[c * d + j]; .. } } }
//! ```
//!
//! The rest of the pipeline differentiates the result as any local buffer
//! filled by one nest and read by another: the loads' adjoints gather in
//! the table's, which the reverse of the filling nest sends through `exp`
//! into `d_log_sigma` once per element, reading each `exp` back from the
//! table (`record::stored_values`).
//!
//! Why it is exact: the table's elements are computed by the same
//! operations from the same values, so they are the values `L` computed,
//! bit for bit. The table is filled only if `L` and every loop between run
//! at least once (`runs`, whose `&&` evaluates a loop's range only where
//! `f` does: after the loops around it are found to run; nothing else
//! evaluates a range unless `runs` holds, so `0..w.len() - 1` of an empty
//! `w` panics in neither), and then every element was computed by `L` too,
//! at each iteration: the path
//! from `L`'s body down to the value holds no `if` and no `break` or
//! `continue` of `L` or of the loops between (so the value runs at every
//! index of the loops between, every iteration of `L`), and the loops'
//! ranges do not change within `L`. So no element is computed that `f`
//! does not compute (no new panic, and no partial derivative of a value
//! `f` never computed — an `inf` times a zero adjoint would be a `NaN`).
//! The expressions copied into the filling nest are only arithmetic of
//! variables and literals, and elements of parameters nothing stores into
//! (`Const`s with no calls), so running them there
//! has no effect of its own; trip counts and offsets are taken as `i128`
//! (`-100..100` of an `i8` overflows its own type). One difference stays:
//! where iterations' adjoints of an element cancel exactly (`+a − a`) and
//! its partial is infinite (an `exp` that overflowed), the table's summed
//! adjoint adds nothing, where the loop as written adds `a·∞ − a·∞`, NaN;
//! `f`'s value is NaN there too.

use crate::ir::{
    ArrayInit, Block, Const, Func, Header, Jump, Kind, Loop, Operand, Origin, Rhs, Stmt, Table,
    Var, VarId,
};
use crate::names::Names;
use proc_macro2::{Delimiter, Ident, TokenStream, TokenTree};
use quote::quote;
use std::collections::{BTreeSet, HashMap, HashSet};

/// Tabulates the costly values of every loop that do not change with it
/// (see the module's documentation).
pub fn tabulate(func: &mut Func, names: &Names) {
    let mut stored = HashSet::new();
    func.body.walk(0, &mut |stmt, _| {
        if let Stmt::Store { array, .. } = stmt {
            stored.insert(*array);
        }
    });
    // (a function that declares a `Vec` of its own allocates anyway: its
    // tables are `Vec`s too, which LLVM knows alias nothing; in one that
    // does not, spare buffers keep it allocation-free, `Func::tables`)
    let mut allocates = false;
    func.body.walk(0, &mut |stmt, _| {
        if let Stmt::Let {
            init: Some(Rhs::Array(init)),
            ..
        } = stmt
        {
            allocates |= init.is_vec();
        }
    });
    let mut next_loop = 0;
    func.body.walk(0, &mut |stmt, _| {
        if let Stmt::Loop(l) = stmt {
            next_loop = next_loop.max(l.id + 1);
        }
    });
    let mut pass = Pass {
        vars: std::mem::take(&mut func.vars),
        stored,
        names,
        next_loop,
        tables: HashMap::new(),
        spare: !allocates,
        tabulated: HashSet::new(),
    };
    pass.block(&mut func.body);
    func.vars = pass.vars;
    func.tables = pass.tables;
    func.tabulated = pass.tabulated;
}

struct Pass<'n> {
    vars: Vec<Var>,
    /// Arrays some statement stores into: not tables of constants.
    stored: HashSet<VarId>,
    names: &'n Names,
    next_loop: usize,
    /// The tables made (`Func::tables`).
    tables: HashMap<VarId, Table>,
    /// Whether tables are made in spare buffers.
    spare: bool,
    /// The values of the filling nests (`Func::tabulated`).
    tabulated: HashSet<VarId>,
}

/// `L`'s range `lo..hi` and what it reads: the filling nest runs only if
/// `L` runs.
type Guard = (TokenStream, TokenStream, Vec<VarId>);

/// A `let` a table's values may be computed from (see [`Pass::members`]),
/// as it was before the pass replaced any `let`.
#[derive(Clone)]
struct Member {
    var: VarId,
    ty: Option<TokenStream>,
    /// (shared: a member is passed down to the blocks inside)
    rhs: std::rc::Rc<Rhs>,
    /// The levels (positions in the loops between) it depends on.
    deps: BTreeSet<usize>,
    /// Computed from a float that is not a literal.
    varies: bool,
    reads: Vec<VarId>,
}

/// Where a table is made: the loops between, the members of the block
/// holding the values (with their positions) and of the blocks around.
#[derive(Clone, Copy)]
struct Context<'a> {
    levels: &'a [Level],
    mine: &'a [(usize, Member)],
    outer: &'a [Member],
    guard: &'a Guard,
}

/// A loop between `L` and the value: its index and range `lo..hi`.
#[derive(Clone)]
struct Level {
    index: VarId,
    lo: TokenStream,
    hi: TokenStream,
    uses: Vec<VarId>,
}

impl Pass<'_> {
    /// Tabulates at the loops of `block` that run once a call (not nested
    /// in another loop, so that each table is filled, and allocated, once
    /// a call), taking each value out of the outermost loop it does not
    /// change with.
    fn block(&mut self, block: &mut Block) {
        let mut i = 0;
        while i < block.stmts.len() {
            match &mut block.stmts[i] {
                Stmt::Loop(l) => {
                    let before = self.at_loop(l);
                    let n = before.len();
                    block.stmts.splice(i..i, before);
                    i += n;
                }
                Stmt::If { then_, else_, .. } => {
                    self.block(then_);
                    self.block(else_);
                }
                _ => {}
            }
            i += 1;
        }
    }

    /// The statements to put before `l` that tabulate its invariant costly
    /// values (whose `let`s in `l` become loads), or none.
    fn at_loop(&mut self, l: &mut Loop) -> Vec<Stmt> {
        let Header::Range { index, range } = &l.header else {
            return Vec::new();
        };
        let Some((lo, hi)) = bounds(range, &self.vars) else {
            return Vec::new();
        };
        let (index, outer_uses) = (*index, range.uses.clone());
        if l.breaks || jumps(&l.body) {
            return Vec::new();
        }
        let mut inside = HashSet::new();
        l.body.walk(0, &mut |stmt, _| match stmt {
            Stmt::Let { var, .. } => {
                inside.insert(*var);
            }
            Stmt::Loop(Loop {
                header: Header::Range { index, .. },
                ..
            }) => {
                inside.insert(*index);
            }
            _ => {}
        });
        inside.insert(index);
        let invariant: HashSet<VarId> = (0..self.vars.len())
            .filter(|v| !inside.contains(v) && !self.vars[*v].is_cell())
            .collect();
        let mut out = Vec::new();
        let guard = (lo, hi, outer_uses);
        self.search(
            &mut l.body,
            &mut Vec::new(),
            &invariant,
            &[],
            &guard,
            &mut out,
        );
        out
    }

    /// Tabulates the invariant costly values at the top of `block` (the
    /// body of the last loop of `levels`, or of `L`), then looks into the
    /// loops at its top level whose ranges are invariant. `outer`: the
    /// members of the blocks of the loops around (`let base = c * d;` in
    /// the loop over `c`, which the value in the loop over `j` reads).
    fn search(
        &mut self,
        block: &mut Block,
        levels: &mut Vec<Level>,
        invariant: &HashSet<VarId>,
        outer: &[Member],
        guard: &Guard,
        out: &mut Vec<Stmt>,
    ) {
        let mine = self.members(block, levels, invariant, outer);
        self.tabulate_in(block, levels, &mine, outer, guard, out);
        let mut around = outer.to_vec();
        around.extend(mine.into_iter().map(|(_, member)| member));
        for stmt in &mut block.stmts {
            let Stmt::Loop(inner) = stmt else { continue };
            let Header::Range { index, range } = &inner.header else {
                continue;
            };
            if inner.breaks || jumps(&inner.body) {
                continue;
            }
            // a range of invariant values, or of integer `let`s of the
            // blocks around computed from them alone (the length an
            // iterator chain binds, `let n = w.len();`), written out
            let Some(range) = self.invariant_range(range, invariant, &around) else {
                continue;
            };
            let Some((lo, hi)) = bounds(&range, &self.vars) else {
                continue;
            };
            levels.push(Level {
                index: *index,
                lo,
                hi,
                uses: range.uses,
            });
            self.search(&mut inner.body, levels, invariant, &around, guard, out);
            levels.pop();
        }
    }

    /// `range` with each integer member of `around` it reads (one that
    /// depends on no loop between, `let n = w.len();` in `L`'s body)
    /// replaced by its value, so that it reads invariant values only and
    /// may be evaluated before `L` (where `runs` holds, `f` evaluates those
    /// members too); `None` if it reads anything else.
    fn invariant_range(
        &self,
        range: &Const,
        invariant: &HashSet<VarId>,
        around: &[Member],
    ) -> Option<Const> {
        if range.uses.iter().all(|u| invariant.contains(u)) {
            return Some(range.clone());
        }
        let mut tokens = range.tokens.clone();
        let mut uses: Vec<VarId> = range.uses.clone();
        // members read members defined before them: at most one round each
        for _ in 0..=around.len() {
            let Some(at) = uses.iter().position(|u| !invariant.contains(u)) else {
                return Some(Const { tokens, uses });
            };
            let var = uses[at];
            let member = around.iter().find(|m| m.var == var)?;
            let value = match &*member.rhs {
                Rhs::Use(Operand::Const(c)) => c,
                _ => return None,
            };
            if !member.deps.is_empty() || self.vars[var].kind != Kind::Other {
                return None;
            }
            let value_tokens = &value.tokens;
            let map = HashMap::from([(self.vars[var].ident.to_string(), quote!((#value_tokens)))]);
            tokens = substitute(&tokens, &map);
            if crate::ir::mentions(&tokens, &self.vars[var].ident.to_string()) {
                return None;
            }
            uses.retain(|u| *u != var);
            for u in &value.uses {
                if !uses.contains(u) {
                    uses.push(*u);
                }
            }
        }
        None
    }

    /// The `let`s at the top of `block` computed from invariant values,
    /// the indices of `levels` and `outer` (each with its position).
    fn members(
        &self,
        block: &Block,
        levels: &[Level],
        invariant: &HashSet<VarId>,
        outer: &[Member],
    ) -> Vec<(usize, Member)> {
        let mut found: Vec<(usize, Member)> = Vec::new();
        for (k, stmt) in block.stmts.iter().enumerate() {
            let Stmt::Let {
                var,
                ty,
                init: Some(rhs),
            } = stmt
            else {
                continue;
            };
            let member_of = |v: &VarId| {
                outer
                    .iter()
                    .chain(found.iter().map(|(_, m)| m))
                    .find(|m| m.var == *v)
                    .cloned()
            };
            let known = |v: &VarId| {
                invariant.contains(v)
                    || member_of(v).is_some()
                    || levels.iter().any(|l| l.index == *v)
            };
            // constant data a value may read elements of (`ls[c * d + j]`
            // of a parameter outside `wrt`, kept as tokens)
            let data = |v: VarId| self.constant_data(v);
            let plain = |c: &Const| {
                c.uses.iter().all(known) && arithmetic(&c.tokens, &c.uses, &self.vars, &data)
            };
            let operand = |op: &Operand| match op {
                Operand::Var(v) => known(v),
                Operand::Const(c) => plain(c),
            };
            let member = !self.vars[*var].is_cell()
                && self.vars[*var].kind != Kind::FloatArray
                && match rhs {
                    Rhs::Use(op) => operand(op),
                    Rhs::Prim { args, .. } => args.iter().all(operand),
                    Rhs::Load { array, index } => {
                        matches!(self.vars[*array].origin, Origin::Param { .. })
                            && self.vars[*array].kind == Kind::FloatArray
                            && !self.stored.contains(array)
                            && plain(index)
                    }
                    Rhs::Array(_) | Rhs::Call { .. } => false,
                };
            if !member {
                continue;
            }
            // the levels it depends on; whether it is computed from a
            // float that is not a literal (a parameter's element, a float
            // defined before `L`): a value of literals alone is LLVM's
            let mut deps = BTreeSet::new();
            let mut varies = matches!(rhs, Rhs::Load { .. });
            let reads = stmt.reads();
            for read in &reads {
                if let Some(level) = levels.iter().position(|l| l.index == *read) {
                    deps.insert(level);
                }
                match member_of(read) {
                    Some(m) => {
                        deps.extend(m.deps.iter().copied());
                        varies |= m.varies;
                    }
                    None => {
                        varies |= self.vars[*read].kind == Kind::Float || self.constant_data(*read)
                    }
                }
            }
            found.push((
                k,
                Member {
                    var: *var,
                    ty: ty.clone(),
                    rhs: std::rc::Rc::new(self.renamed_rhs(rhs, &HashMap::new())),
                    deps,
                    varies,
                    reads,
                },
            ));
        }
        found
    }

    fn tabulate_in(
        &mut self,
        block: &mut Block,
        levels: &[Level],
        mine: &[(usize, Member)],
        outer: &[Member],
        guard: &Guard,
        out: &mut Vec<Stmt>,
    ) {
        if levels.is_empty() {
            // a value `L` itself does not change: left to the analyses
            // (a table of one element, or a value moved before `L`, would
            // need `L`'s first iteration to tell whether `f` computes it)
            return;
        }
        // what something besides the members reads
        let positions: HashSet<usize> = mine.iter().map(|(k, _)| *k).collect();
        let mut read_outside: HashSet<VarId> = HashSet::new();
        for (k, stmt) in block.stmts.iter().enumerate() {
            if positions.contains(&k) {
                continue;
            }
            let mut note = |s: &Stmt| {
                read_outside.extend(s.reads());
                if let Stmt::Opaque { tokens, .. } = s {
                    for (_, member) in mine {
                        let name = self.vars[member.var].ident.to_string();
                        if crate::ir::mentions(tokens, &name) {
                            read_outside.insert(member.var);
                        }
                    }
                }
            };
            note(stmt);
            match stmt {
                Stmt::Loop(l) => l.body.walk(0, &mut |s, _| note(s)),
                Stmt::If { then_, else_, .. } => {
                    then_.walk(0, &mut |s, _| note(s));
                    else_.walk(0, &mut |s, _| note(s));
                }
                _ => {}
            }
        }
        // the costly ones whose values the loop still needs: read outside
        // the members, or by a cheap one it needs (`2.0 * e` of `e =
        // ..exp()`)
        let mut needed_here = read_outside;
        let mut tabulated = Vec::new();
        for (k, member) in mine.iter().rev() {
            if !needed_here.contains(&member.var) {
                continue;
            }
            let worth = matches!(&*member.rhs, Rhs::Prim { prim, .. } if costly(prim.name))
                && self.vars[member.var].kind == Kind::Float
                && member.varies;
            if worth {
                tabulated.push(*k);
            } else {
                needed_here.extend(member.reads.iter().copied());
            }
        }
        tabulated.reverse();
        // grouped by the levels they depend on: one table nest a group
        let mut groups: Vec<(Vec<usize>, Vec<usize>)> = Vec::new();
        for k in tabulated {
            let Some((_, member)) = mine.iter().find(|(at, _)| *at == k) else {
                continue;
            };
            let on: Vec<usize> = member.deps.iter().copied().collect();
            if on.is_empty() {
                // a value none of the loops between changes (`h / 6.0`):
                // one element, which LLVM keeps in a register where it
                // can; a table of one cost an RK4 fit 1.6% at 10 steps
                continue;
            }
            match groups.iter_mut().find(|(levels, _)| *levels == on) {
                Some((_, values)) => values.push(k),
                None => groups.push((on, vec![k])),
            }
        }
        let mut runs: Option<VarId> = None;
        for (on, values) in groups {
            let context = Context {
                levels,
                mine,
                outer,
                guard,
            };
            let stmts = self.table(block, &context, &on, &values, &mut runs);
            out.extend(stmts);
        }
    }

    /// The statements that fill the tables of the values at `values` (the
    /// positions of their `let`s in `block`), which depend on the loops
    /// `on` of `levels`, and the loads that replace those `let`s.
    fn table(
        &mut self,
        block: &mut Block,
        context: &Context,
        on: &[usize],
        values: &[usize],
        runs: &mut Option<VarId>,
    ) -> Vec<Stmt> {
        let Context {
            levels,
            mine,
            outer,
            guard,
        } = *context;
        let mut stmts = Vec::new();
        // what the values are computed from: members of this block and of
        // the blocks around, last first
        let mut needed: HashSet<VarId> = HashSet::new();
        for &k in values {
            if let Stmt::Let { var, .. } = &block.stmts[k] {
                needed.insert(*var);
            }
        }
        let every: Vec<&Member> = outer.iter().chain(mine.iter().map(|(_, m)| m)).collect();
        for member in every.iter().rev() {
            if needed.contains(&member.var) {
                needed.extend(member.reads.iter().copied());
            }
        }
        // `f` computes the values only if `L` and every loop between run
        // an iteration, and evaluates a loop's range only if the loops
        // around it run one: `runs` tests them in that order (`&&` stops
        // where one runs none), and nothing below evaluates a range unless
        // it holds (`w.len() - 1` of an empty `w` would panic)
        let runs = match *runs {
            Some(var) => var,
            None => {
                let var = self.new_var("__ad_tab_runs", Kind::Other, Origin::Local);
                let (guard_lo, guard_hi, guard_uses) = guard;
                let mut tests = vec![quote!((#guard_lo) < (#guard_hi))];
                let mut uses = guard_uses.clone();
                for Level {
                    lo, hi, uses: of, ..
                } in levels
                {
                    tests.push(quote!((#lo) < (#hi)));
                    uses.extend(of);
                }
                stmts.push(Stmt::Let {
                    var,
                    ty: Some(quote!(bool)),
                    init: Some(Rhs::Use(Operand::Const(Const {
                        tokens: quote!(#(#tests)&&*),
                        uses,
                    }))),
                });
                *runs = Some(var);
                var
            }
        };
        let runs_ident = self.vars[runs].ident.clone();
        // Indices a parameter is indexed by as they are (`w[c * d + j]`,
        // or through an integer `let`: `let base = c * d;`, `w[base + j]`)
        // are `usize`s: the element's index is then written without casts
        // (`c * d + j`), which `emit/rows.rs` reads as a row of the
        // table in the innermost loop; otherwise cast (`(j - lo) as usize`
        // of a loop counting `i32`s), every element checked.
        let mut known_usize = HashSet::new();
        for member in every.iter().rev() {
            if !needed.contains(&member.var) {
                continue;
            }
            match &*member.rhs {
                Rhs::Load { index, .. } => usize_idents(&index.tokens, &mut known_usize),
                Rhs::Use(Operand::Const(c))
                    if self.vars[member.var].kind == Kind::Other
                        && known_usize.contains(&self.vars[member.var].ident.to_string()) =>
                {
                    usize_idents(&c.tokens, &mut known_usize)
                }
                _ => {}
            }
        }
        let plain: Vec<bool> = on
            .iter()
            .map(|&level| known_usize.contains(&self.vars[levels[level].index].ident.to_string()))
            .collect();
        // each loop's trip count, as a `usize` (the difference taken wide
        // where the loop's type is not known: `-100..100` of an `i8`),
        // written where the loop runs (the filling nest, the loads in `L`)
        // or under `runs`, so that it is evaluated only where `f` does;
        // written out rather than bound before `L`, so that LLVM sees the
        // load's index and the parameter's alike (`c * d + j`: a `let` of
        // the count under `runs` cost the mixture 12%)
        let stride = |position: usize| -> TokenStream {
            let Level { lo, hi, .. } = &levels[on[position]];
            match (plain[position], lo.to_string() == "0") {
                (true, true) => quote!((#hi)),
                (true, false) => quote!(((#hi) - (#lo))),
                (false, true) => quote!(((#hi) as usize)),
                (false, false) => quote!((((#hi) as i128 - (#lo) as i128) as usize)),
            }
        };
        // the element of indices `at` (one for each loop of `on`)
        let element = |vars: &[Var], at: &[VarId]| -> Const {
            let mut tokens: Option<TokenStream> = None;
            let mut uses = Vec::new();
            for (position, ((&level, index), plain)) in on.iter().zip(at).zip(&plain).enumerate() {
                let (i, lo) = (&vars[*index].ident, &levels[level].lo);
                let offset = match (plain, lo.to_string() == "0") {
                    (true, true) => quote!(#i),
                    (true, false) => quote!((#i - (#lo))),
                    (false, true) => quote!((#i as usize)),
                    (false, false) => quote!(((#i as i128 - (#lo) as i128) as usize)),
                };
                uses.push(*index);
                uses.extend(&levels[level].uses);
                tokens = Some(match tokens {
                    None => offset,
                    Some(outer) => {
                        let stride = stride(position);
                        quote!((#outer) * #stride + #offset)
                    }
                });
            }
            Const {
                tokens: tokens.unwrap_or_else(|| quote!(0usize)),
                uses,
            }
        };
        let len = {
            let strides = (0..on.len()).map(stride);
            quote!(if #runs_ident { 1usize #(* #strides)* } else { 0 })
        };
        // the filling nest's indices, and copies of what the values are
        // computed from, in order (those of the blocks around recomputed
        // for every element: plain arithmetic, or a value the loop around
        // computes)
        let mut renamed: HashMap<VarId, VarId> = HashMap::new();
        let mut fill_at = Vec::new();
        for &level in on {
            let index = self.new_var("__ad_tab_at", Kind::Other, Origin::LoopIndex);
            renamed.insert(levels[level].index, index);
            fill_at.push(index);
        }
        let mut fill = Vec::new();
        let mut tables = Vec::new();
        let positions: HashMap<VarId, usize> = mine.iter().map(|(k, m)| (m.var, *k)).collect();
        for member in &every {
            if !needed.contains(&member.var) {
                continue;
            }
            let copy = self.new_var("__ad_tab_v", self.vars[member.var].kind, Origin::Temp);
            self.tabulated.insert(copy);
            let init = self.renamed_rhs(&member.rhs, &renamed);
            renamed.insert(member.var, copy);
            fill.push(Stmt::Let {
                var: copy,
                ty: member.ty.clone(),
                init: Some(init),
            });
            let k = positions.get(&member.var);
            if let Some(&k) = k.filter(|k| values.contains(k)) {
                let table = self.new_var("__ad_tab", Kind::FloatArray, Origin::Local);
                fill.push(Stmt::Store {
                    array: table,
                    index: element(&self.vars, &fill_at),
                    value: Operand::Var(copy),
                });
                tables.push((k, table));
            }
        }
        for &(_, table) in &tables {
            self.tables.insert(
                table,
                Table {
                    len: len.clone(),
                    spare: self.spare,
                },
            );
            stmts.push(Stmt::Let {
                var: table,
                ty: None,
                init: Some(Rhs::Array(ArrayInit::Fill {
                    value: Const {
                        tokens: quote!(0.0),
                        uses: Vec::new(),
                    },
                    len: len.clone(),
                    vec: true,
                })),
            });
        }
        // the outermost loop of the nest runs no iteration unless `runs`
        let mut body = Block { stmts: fill };
        for (depth, &level) in on.iter().enumerate().rev() {
            let Level { lo, hi, uses, .. } = &levels[level];
            let mut uses = uses.clone();
            let range = if depth == 0 {
                uses.push(runs);
                match lo.to_string() == "0" {
                    true => quote!(0..(if #runs_ident { #hi } else { 0 })),
                    false => {
                        quote!((if #runs_ident { #lo } else { 0 })..(if #runs_ident { #hi } else { 0 }))
                    }
                }
            } else {
                quote!((#lo)..(#hi))
            };
            let l = self.new_loop(fill_at[depth], range, uses, body);
            body = Block {
                stmts: vec![Stmt::Loop(l)],
            };
        }
        stmts.extend(body.stmts);
        // the values read from their tables
        let at: Vec<VarId> = on.iter().map(|&level| levels[level].index).collect();
        for (k, table) in tables {
            let index = element(&self.vars, &at);
            if let Stmt::Let { init, .. } = &mut block.stmts[k] {
                *init = Some(Rhs::Load {
                    array: table,
                    index,
                });
            }
        }
        stmts
    }

    /// Whether `var` is a parameter array nothing stores into, whose
    /// elements a value may read where the pass copies it.
    fn constant_data(&self, var: VarId) -> bool {
        matches!(self.vars[var].origin, Origin::Param { .. })
            && self.vars[var].kind == Kind::FloatArray
            && !self.stored.contains(&var)
    }

    fn new_var(&mut self, base: &str, kind: Kind, origin: Origin) -> VarId {
        self.vars
            .push(Var::new(self.names.fresh(base), kind, origin));
        self.vars.len() - 1
    }

    fn new_loop(
        &mut self,
        index: VarId,
        range: TokenStream,
        uses: Vec<VarId>,
        body: Block,
    ) -> Loop {
        let id = self.next_loop;
        self.next_loop += 1;
        Loop {
            id,
            header: Header::Range {
                index,
                range: Const {
                    tokens: range,
                    uses,
                },
            },
            body,
            carried: Vec::new(),
            breaks: false,
        }
    }

    /// `rhs` (a chain member: `Use`, `Prim` or `Load`) reading the copies
    /// in `renamed` instead of the originals.
    fn renamed_rhs(&self, rhs: &Rhs, renamed: &HashMap<VarId, VarId>) -> Rhs {
        let var = |v: &VarId| *renamed.get(v).unwrap_or(v);
        let constant = |c: &Const| Const {
            tokens: self.renamed_tokens(&c.tokens, &c.uses, renamed),
            uses: c.uses.iter().map(var).collect(),
        };
        let operand = |op: &Operand| match op {
            Operand::Var(v) => Operand::Var(var(v)),
            Operand::Const(c) => Operand::Const(constant(c)),
        };
        match rhs {
            Rhs::Use(op) => Rhs::Use(operand(op)),
            Rhs::Prim { prim, args, syntax } => Rhs::Prim {
                prim,
                args: args.iter().map(operand).collect(),
                syntax: *syntax,
            },
            Rhs::Load { array, index } => Rhs::Load {
                array: *array,
                index: constant(index),
            },
            Rhs::Array(_) | Rhs::Call { .. } => unreachable!("not a chain member"),
        }
    }

    /// `tokens` with the identifiers of the variables in `uses` that have
    /// copies replaced by the copies' (every variable's emitted name is its
    /// own, so a name stands for one variable).
    fn renamed_tokens(
        &self,
        tokens: &TokenStream,
        uses: &[VarId],
        renamed: &HashMap<VarId, VarId>,
    ) -> TokenStream {
        let map: HashMap<String, TokenStream> = uses
            .iter()
            .filter_map(|u| {
                let to = &self.vars[*renamed.get(u)?].ident;
                Some((self.vars[*u].ident.to_string(), quote!(#to)))
            })
            .collect();
        substitute(tokens, &map)
    }
}

/// `tokens` with each variable named in `map` replaced by its tokens
/// (`crate::tokens`: not a field, method or path segment of that name,
/// `s.d`, `Consts::K`, which names no variable).
fn substitute(tokens: &TokenStream, map: &HashMap<String, TokenStream>) -> TokenStream {
    crate::tokens::substitute(tokens, &mut |ident| map.get(&ident.to_string()).cloned())
}

/// Adds to `out` the identifiers that `tokens`, the index of a slice (a
/// `usize`), uses as terms of its arithmetic, not cast (`c` and `j` of
/// `c * d + j`; not `k` of `(k as usize)`, nor of `(2 * k) as usize`).
fn usize_idents(tokens: &TokenStream, out: &mut HashSet<String>) {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    for (k, tt) in trees.iter().enumerate() {
        let cast = matches!(trees.get(k + 1), Some(TokenTree::Ident(next)) if next == "as");
        match tt {
            TokenTree::Ident(ident)
                if !cast && !crate::tokens::member_or_segment(&trees, k) && ident != "as" =>
            {
                out.insert(ident.to_string());
            }
            TokenTree::Group(g) if !cast && g.delimiter() == Delimiter::Parenthesis => {
                usize_idents(&g.stream(), out)
            }
            _ => {}
        }
    }
}

/// Whether `name` is a primitive worth a table: not `+ - *`, negation,
/// `abs`, `min` or `max` (the costly rules of `emit::plan`).
fn costly(name: &str) -> bool {
    !matches!(name, "add" | "sub" | "mul" | "neg" | "abs" | "min" | "max")
}

/// `lo` and `hi` of a range written `lo..hi` in plain arithmetic (see
/// [`arithmetic`]: the pass evaluates them again, before the loop).
fn bounds(range: &Const, vars: &[Var]) -> Option<(TokenStream, TokenStream)> {
    if !arithmetic(&range.tokens, &range.uses, vars, &|_| false) {
        return None;
    }
    let expr: syn::Expr = syn::parse2(range.tokens.clone()).ok()?;
    let expr = match expr {
        syn::Expr::Paren(p) => *p.expr,
        e => e,
    };
    match expr {
        syn::Expr::Range(syn::ExprRange {
            start: Some(lo),
            limits: syn::RangeLimits::HalfOpen(_),
            end: Some(hi),
            ..
        }) => Some((quote!(#lo), quote!(#hi))),
        _ => None,
    }
}

/// Whether `block` holds a `break` or `continue` of its own loop (at its
/// top or in its `if`s; not in loops nested in it).
fn jumps(block: &Block) -> bool {
    block.stmts.iter().any(|stmt| match stmt {
        Stmt::Jump(Jump::Break | Jump::Continue) => true,
        Stmt::If { then_, else_, .. } => jumps(then_) || jumps(else_),
        _ => false,
    })
}

/// Whether `tokens` are plain arithmetic, safe to evaluate again anywhere
/// their variables are defined and `f` evaluates them: the variables of
/// `uses`, literals, casts to primitive types, `len()`, constants (`PI`,
/// `N`, paths to them), the operators `+ - * / %` in parentheses, and
/// indexing of the arrays `data` says nothing changes (`ls[c * d + j]`,
/// `(ls[a..b])[k]`). No call of anything else, no block.
fn arithmetic(
    tokens: &TokenStream,
    uses: &[VarId],
    vars: &[Var],
    data: &dyn Fn(VarId) -> bool,
) -> bool {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    trees.iter().enumerate().all(|(k, tt)| match tt {
        TokenTree::Literal(_) => true,
        TokenTree::Punct(p) => matches!(p.as_char(), '+' | '-' | '*' | '/' | '%' | '.' | ':'),
        TokenTree::Group(g) if g.delimiter() == Delimiter::Bracket => {
            // an element or a subslice of constant data: `ls[..]`, or
            // `(ls[a..b])[k]` (a subslice of it and nothing else, in
            // parentheses)
            let is_data = |array: &Ident| uses.iter().any(|u| vars[*u].ident == *array && data(*u));
            let of_data = match k.checked_sub(1).map(|at| &trees[at]) {
                Some(TokenTree::Ident(array)) => is_data(array),
                Some(TokenTree::Group(inner)) if inner.delimiter() == Delimiter::Parenthesis => {
                    let parts: Vec<TokenTree> = inner.stream().into_iter().collect();
                    matches!(
                        &parts[..],
                        [TokenTree::Ident(array), TokenTree::Group(b)]
                            if b.delimiter() == Delimiter::Bracket && is_data(array)
                    )
                }
                _ => false,
            };
            of_data && arithmetic(&g.stream(), uses, vars, data)
        }
        TokenTree::Group(g) => {
            matches!(g.delimiter(), Delimiter::Parenthesis | Delimiter::None)
                && arithmetic(&g.stream(), uses, vars, data)
        }
        TokenTree::Ident(ident) => {
            let name = ident.to_string();
            let called = matches!(
                trees.get(k + 1),
                Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis
            );
            if crate::tokens::member_or_segment(&trees, k)
                && matches!(&trees[k - 1], TokenTree::Punct(p) if p.as_char() == '.')
            {
                // a field (`s.d`), or `len()`; no other method
                return name == "len" || !called;
            }
            !called
                && (uses.iter().any(|u| vars[*u].ident == *ident)
                    || matches!(
                        name.as_str(),
                        "as" | "usize"
                            | "isize"
                            | "u8"
                            | "u16"
                            | "u32"
                            | "u64"
                            | "i8"
                            | "i16"
                            | "i32"
                            | "i64"
                            | "f64"
                            | "f32"
                            | "std"
                            | "core"
                            | "consts"
                    )
                    || name.starts_with(|c: char| c.is_ascii_uppercase()))
        }
    })
}
