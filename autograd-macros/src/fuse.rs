//! Which top-level loops run their reverse inside them ("fused" loops).
//!
//! The reverse of a loop normally comes after everything that follows the
//! loop has been reversed, because only then is the adjoint of what the loop
//! computed known. Each reverse iteration then replays its forward iteration
//! (see `emit/reverse.rs`), so the loop body runs twice forwards. A hand-written
//! gradient of `Σ f(x_i)` does better: it differentiates each term right
//! where it computes it, in one pass.
//!
//! The generated code can do the same when two things hold:
//!
//! 1. **The loop only accumulates.** Every carried value that needs an
//!    adjoint is an accumulator: its entry value only flows, through `+` (or
//!    the left of `-`), into its own next value — not another accumulator's
//!    (`accumulators` tracks each value's *owner*) — once on every path,
//!    possibly through the cells of an `if` or of a nested loop. Then the adjoint of the accumulator is
//!    the same at every iteration (the partials along the way are exactly
//!    `1`), the iterations are otherwise independent, and each one can be
//!    reversed as soon as it has run, in any order.
//! 2. **Its adjoint is known before it runs.** The code after the loop uses
//!    the accumulators only linearly, with coefficients computed before the
//!    loop: `+`, `-`, negation, and `*` or `/` by a value that does not
//!    depend on the loop and is available before it (a parameter, a local
//!    defined earlier, a constant expression of those with no call but `.len()`
//!    and no macro, since it is evaluated early). Then the adjoint of
//!    each accumulator at the loop's exit is `d_out` times a product of
//!    those values, computed before the loop, and equal to what the reverse
//!    of the code after the loop computes (same factors, same order).
//!
//! Extended Rosenbrock (`sum += ..; sum`), a chain of springs, and the
//! per-sample loop of a batch loss (`total += ..; total / n + λ·reg`) are
//! all such loops. The loop must also have no `break` (its trip count is
//! then the range's), store only into arrays declared inside it (so
//! that nothing it writes is read after it), and read no array that the
//! code after it stores into (the reverse of that store, which runs after
//! the loop's, would take the adjoints the loop added into the array's).
//!
//! Only loops directly in the function body are fused on their own: their
//! forward code and the function's reverse sweep share one scope, so the
//! adjoints of earlier values that the fused reverse adds into are declared
//! before the loop and picked up by the rest of the reverse sweep. Inside
//! a fused loop, a loop at the top of its body that only accumulates into
//! its accumulators (the inner sum of `e += f(i, j)`) is fused too, with
//! their seeds (`fuse_inner`), and so on down: the body's reverse, which
//! runs in the same iteration, picks up what it adds.

use crate::activity::Activity;
use crate::ir::{Block, Const, Func, Header, Jump, Loop, Operand, Origin, Rhs, Stmt, VarId};
use crate::names::{Names, Role};
use crate::prim;
use proc_macro2::{Ident, TokenStream};
use quote::quote;
use std::collections::{HashMap, HashSet};

/// A loop whose reverse runs inside it.
pub struct Fused {
    /// The loop's index and range (a fused loop is a `for` loop).
    pub index: VarId,
    pub range: Const,
    /// Each carried cell that needs an adjoint, with that adjoint at the
    /// loop's exit: an `f64` expression of `d_out` and values defined before
    /// the loop.
    pub seeds: Vec<(VarId, TokenStream)>,
    /// The `if`s of the body reversed where they run (`branches_in_place`),
    /// by decision name: each of their cells that needs an adjoint, with
    /// that adjoint when the `if` ends.
    pub in_place: HashMap<String, Vec<(VarId, ExitAdjoint)>>,
}

/// The fused loops of `func`, by loop id. `d_out` names the adjoint of the
/// result (the `_adjoint`'s parameter, from `names.rs`).
pub fn fused_loops(
    func: &Func,
    activity: &Activity,
    names: &Names,
    d_out: &Ident,
    second: bool,
) -> HashMap<usize, Fused> {
    let stmts = &func.body.stmts;
    let mut fused = HashMap::new();
    for (position, stmt) in stmts.iter().enumerate() {
        let Stmt::Loop(l) = stmt else { continue };
        let Some(cells) = accumulators(l, activity) else {
            continue;
        };
        if !stores_stay_inside(&l.body) || read_then_stored(l, &stmts[position + 1..]) {
            continue;
        }
        let outputs: Vec<VarId> = l.carried.iter().map(|c| c.cell).collect();
        let Header::Range { index, range } = &l.header else {
            continue;
        };
        if let Some(seeds) = exit_adjoints(func, position, &outputs, &cells, d_out) {
            fused.insert(
                l.id,
                Fused {
                    index: *index,
                    range: range.clone(),
                    seeds,
                    in_place: match second {
                        true => HashMap::new(),
                        false => branches_in_place(l, activity),
                    },
                },
            );
            if !second {
                fuse_inner(func, l, activity, names, &mut fused);
            }
        }
    }
    fused
}

/// Fuses the loops of fused loop `l`'s body that only accumulate into its
/// accumulators (`inner_fused`), and theirs in turn: each one's seeds are
/// the seeds of the accumulators it flows into (`__ad_seed_<cell>`,
/// declared by the loop around it).
fn fuse_inner(
    func: &Func,
    l: &Loop,
    activity: &Activity,
    names: &Names,
    fused: &mut HashMap<usize, Fused>,
) {
    for (nested, owners) in inner_fused(l, activity) {
        let Header::Range { index, range } = &nested.header else {
            continue;
        };
        let seeds = owners
            .into_iter()
            .map(|(cell, outer)| {
                let seed = names.derived(Role::Seed, outer, &func.vars[outer].ident);
                (cell, quote!(#seed))
            })
            .collect();
        fused.insert(
            nested.id,
            Fused {
                index: *index,
                range: range.clone(),
                seeds,
                in_place: branches_in_place(nested, activity),
            },
        );
        fuse_inner(func, nested, activity, names, fused);
    }
}

/// The carried cells of `l` that need an adjoint, if there is at least one
/// and every one is an accumulator, and the loop has a range and no `break`.
pub fn accumulators(l: &Loop, activity: &Activity) -> Option<Vec<VarId>> {
    accumulation(l, activity).map(|(cells, _)| cells)
}

/// [`accumulators`], or no accumulators when no cell `l` carries needs an
/// adjoint (a loop of a range with no `break` whose iterations pass no
/// adjoint to one another, only integers).
pub fn accumulators_or_none(l: &Loop, activity: &Activity) -> Option<Vec<VarId>> {
    let active = l.carried.iter().any(|c| activity.needs_adjoint(c.cell));
    if !active && !l.breaks && matches!(l.header, Header::Range { .. }) {
        return Some(Vec::new());
    }
    accumulators(l, activity)
}

/// [`accumulators`], with the accumulator (a carried cell of `l`) each
/// accumulated value and cell of the body flows into, its *owner*.
fn accumulation(l: &Loop, activity: &Activity) -> Option<(Vec<VarId>, HashMap<VarId, VarId>)> {
    if l.breaks || !matches!(l.header, Header::Range { .. }) {
        return None;
    }
    let cells: Vec<VarId> = l
        .carried
        .iter()
        .map(|c| c.cell)
        .filter(|&c| activity.needs_adjoint(c))
        .collect();
    if cells.is_empty() {
        return None;
    }
    // The accumulated values: the entries, what `+` makes of them, and the
    // cells of nested constructs they are copied into, each with the
    // carried cell it accumulates into (its *owner*). Grown to a fixed point
    // (a nested loop's cell is read before it is updated). A value or cell
    // reached from two owners means the accumulators trade values (`let t =
    // s; s = r + x; r = t;`): their adjoints then move between them from one
    // iteration to the next, and the loop does not only accumulate.
    let mut owner: HashMap<VarId, VarId> = HashMap::new();
    for c in l.carried.iter().filter(|c| cells.contains(&c.cell)) {
        owner.insert(c.entry, c.cell);
        owner.insert(c.cell, c.cell);
    }
    let mut conflict = false;
    loop {
        let before = owner.len();
        l.body.walk(0, &mut |stmt, _| {
            let (target, source) = match stmt {
                Stmt::Let {
                    var,
                    init: Some(rhs),
                    ..
                } => match accumulated_operand(rhs, &owner) {
                    Some(source) => (*var, source),
                    None => return,
                },
                Stmt::Update {
                    cell,
                    value: Operand::Var(v),
                } if owner.contains_key(v) => (*cell, *v),
                _ => return,
            };
            let from = owner[&source];
            match owner.get(&target) {
                Some(&existing) => conflict |= existing != from,
                None => {
                    owner.insert(target, from);
                }
            }
        });
        if conflict {
            return None;
        }
        if owner.len() == before {
            break;
        }
    }
    let acc: HashSet<VarId> = owner.keys().copied().collect();
    // Every read of an accumulated value must be one of those steps, and
    // every write of an accumulated cell must write an accumulated value.
    let mut ok = true;
    l.body.walk(0, &mut |stmt, _| {
        let allowed = match stmt {
            Stmt::Let {
                var,
                init: Some(rhs),
                ..
            } if acc.contains(var) => accumulated_operand(rhs, &owner).is_some(),
            Stmt::Update { cell, value } if acc.contains(cell) => {
                matches!(value, Operand::Var(v) if owner.get(v) == owner.get(cell))
            }
            _ => stmt.reads().iter().all(|v| !acc.contains(v)),
        };
        ok &= allowed;
    });
    // And each accumulated value flows on once: `let t = s; s = t + x; r = t;`
    // would make the adjoint of `s`'s entry the sum of two exits' adjoints,
    // which changes from one iteration to the next. (Cells are read once per
    // iteration or after their construct by construction; not counted.)
    let mut cell_vars: HashSet<VarId> = l.carried.iter().map(|c| c.cell).collect();
    l.body.walk(0, &mut |stmt, _| {
        if let Stmt::Update { cell, .. } = stmt {
            cell_vars.insert(*cell);
        }
    });
    let values: HashSet<VarId> = acc.difference(&cell_vars).copied().collect();
    // An `if`'s cell starts from the value before the `if` (`let mut c =
    // s;`), but every branch overwrites it or leaves the iteration, so that
    // first value flows nowhere (its adjoint is zero): not counted. A loop's
    // cell's first value is its entry; counted.
    let mut loop_cells: HashSet<VarId> = l.carried.iter().map(|c| c.cell).collect();
    l.body.walk(0, &mut |stmt, _| {
        if let Stmt::Loop(inner) = stmt {
            loop_cells.extend(inner.carried.iter().map(|c| c.cell));
        }
    });
    let if_cells: HashSet<VarId> = cell_vars.difference(&loop_cells).copied().collect();
    if path_uses(&l.body, &values, &if_cells)
        .values()
        .any(|&n| n > 1)
    {
        return None;
    }
    ok.then_some((cells, owner))
}

/// The `if`s at the top of fused loop `l`'s body whose reverse can run at
/// the end of each branch, in the forward sweep, instead of after the rest
/// of the iteration's reverse, where it replays the branch: by decision
/// name, each cell of the `if` that needs an adjoint, with that adjoint.
///
/// That adjoint must be known when the branch ends (`exit_adjoint`): the
/// cell is accumulated (`accumulation`), so it is the seed of its
/// accumulator, through additions (a spring's `energy += ½k(|d| − L)²`
/// under `if j + 1 < n`), or it is read once on a chain of `+`, `-` and
/// `*` by known values that ends in an accumulated value (`loss += if m >
/// 0.0 { .. } else { .. }`). And what the branch's reverse adds into must not be taken back by the
/// reverse of what follows it in the iteration, which runs later:
///
/// - each path through it assigns every such cell (what a path leaves
///   alone passes its adjoint to the value before the `if`, through the
///   cell's first value, whose reverse is after);
/// - a branch holds `let`s (of no array), cell updates, tokens, `if`s of
///   those and `continue`, but no loop or store;
/// - the arrays a branch reads whose adjoints it adds into, and those the
///   loads before it read (which `sunk_before` may move into a branch's
///   reverse), are declared outside the loop and stored into nowhere after
///   the `if` in the body (the reverse of such a store zeroes the adjoint
///   of what it overwrites, and the adjoint of an array the body declares
///   is declared by the reverse sweep, after the `if`).
///
/// Second-order bodies reverse no branch in place.
fn branches_in_place(l: &Loop, activity: &Activity) -> HashMap<String, Vec<(VarId, ExitAdjoint)>> {
    let mut in_place = HashMap::new();
    let Some((_, owner)) = accumulation(l, activity) else {
        return in_place;
    };
    let declared = l.body.declared_arrays();
    let mut reads: HashMap<VarId, usize> = HashMap::new();
    l.body.walk(0, &mut |stmt, _| {
        for v in stmt.reads() {
            *reads.entry(v).or_default() += 1;
        }
    });
    let body = Context {
        owner: &owner,
        reads: &reads,
        activity,
    };
    let stmts = &l.body.stmts;
    for (position, stmt) in stmts.iter().enumerate() {
        let Stmt::If { then_, else_, .. } = stmt else {
            continue;
        };
        let mut plain = true;
        let mut arrays = Vec::new();
        for branch in [then_, else_] {
            branch.walk(0, &mut |s, _| match s {
                Stmt::Let { init, .. } => match init {
                    Some(Rhs::Array(_)) => plain = false,
                    Some(Rhs::Load { array, .. }) => arrays.push(*array),
                    Some(rhs) => arrays.extend(rhs.arrays()),
                    None => {}
                },
                // (a `continue` ends a branch that assigned the loop's
                // cells; what follows it is in the other branch, and the
                // fused loop's code does not jump, `Mode::native_loop`)
                Stmt::Update { .. }
                | Stmt::Opaque { .. }
                | Stmt::If { .. }
                | Stmt::Jump(Jump::Continue) => {}
                _ => plain = false,
            });
        }
        // (and the loads before it, which `sunk_before` may move into a
        // branch's reverse: `let b = buf[0];` of a buffer the body
        // declares, whose adjoint the reverse sweep declares, after it)
        for before in &stmts[..position] {
            if let Stmt::Let {
                init: Some(Rhs::Load { array, .. }),
                ..
            } = before
            {
                arrays.push(*array);
            }
        }
        let arrays_stay = arrays.iter().all(|a| {
            !activity.needs_adjoint(*a)
                || (!declared.contains(a)
                    && !crate::record::stores_into(&stmts[position + 1..], *a))
        });
        if plain && arrays_stay {
            body.exits_in_place(stmts, position, &mut in_place);
        }
    }
    in_place
}

/// The adjoint a cell of an `if` reversed in place has when the `if` ends:
/// the seed of the accumulator `owner`, negated or not, times `factors`
/// (values known before the `if`), in the order the reverse multiplies
/// them.
#[derive(Clone)]
pub struct ExitAdjoint {
    pub owner: VarId,
    pub negated: bool,
    pub factors: Vec<Operand>,
}

/// What `branches_in_place` knows of a fused loop's body: each accumulated
/// value's accumulator, how many statements read each value.
struct Context<'a> {
    owner: &'a HashMap<VarId, VarId>,
    reads: &'a HashMap<VarId, usize>,
    activity: &'a Activity,
}

impl Context<'_> {
    /// Records the `if` at `stmts[position]` as reversed in place when
    /// each of its cells that needs an adjoint (a cell it assigns and does
    /// not declare) is assigned on every path through it and has an
    /// adjoint known when it ends (`exit_adjoint`); then the `if`s in its
    /// branches too, by the same test (reversed in place inside its
    /// reverse, not replayed by it).
    fn exits_in_place(
        &self,
        stmts: &[Stmt],
        position: usize,
        in_place: &mut HashMap<String, Vec<(VarId, ExitAdjoint)>>,
    ) {
        let Stmt::If {
            decision,
            then_,
            else_,
            ..
        } = &stmts[position]
        else {
            return;
        };
        let (mut defined, mut updated) = (HashSet::new(), HashSet::new());
        for branch in [then_, else_] {
            branch.walk(0, &mut |stmt, _| match stmt {
                Stmt::Let { var, .. } => {
                    defined.insert(*var);
                }
                Stmt::Update { cell, .. } => {
                    updated.insert(*cell);
                }
                _ => {}
            });
        }
        let mut cells: Vec<VarId> = updated
            .difference(&defined)
            .copied()
            .filter(|c| self.activity.needs_adjoint(*c))
            .collect();
        cells.sort_unstable();
        let (in_then, in_else) = (assigned(then_), assigned(else_));
        let exits: Option<Vec<(VarId, ExitAdjoint)>> = cells
            .iter()
            .map(|c| match in_then.contains(c) && in_else.contains(c) {
                true => self.exit_adjoint(stmts, position, *c).map(|a| (*c, a)),
                false => None,
            })
            .collect();
        match exits {
            Some(exits) if !exits.is_empty() => {
                in_place.insert(decision.to_string(), exits);
            }
            _ => return,
        }
        for branch in [then_, else_] {
            for (k, stmt) in branch.stmts.iter().enumerate() {
                if matches!(stmt, Stmt::If { .. }) {
                    self.exits_in_place(&branch.stmts, k, in_place);
                }
            }
        }
    }

    /// The adjoint cell `cell` of the `if` at `stmts[position]` has when
    /// the `if` ends, if known there: the cell is accumulated (its
    /// accumulator's seed), or its value is read once, by a copy, a `+`, a
    /// `-`, a negation or a `*` by a value known before the `if`, whose
    /// value is read once in turn, and so on to an accumulated value
    /// (`let value = if m > 0.0 { .. } else { .. }; loss += value;`).
    fn exit_adjoint(&self, stmts: &[Stmt], position: usize, cell: VarId) -> Option<ExitAdjoint> {
        let mut later = HashSet::new();
        for stmt in &stmts[position..] {
            crate::record::walk_stmt(stmt, &mut |s| {
                if let Stmt::Let { var, .. } = s {
                    later.insert(*var);
                }
            });
        }
        let known = |op: &Operand| match op {
            Operand::Var(v) => !later.contains(v),
            Operand::Const(c) => c.uses.iter().all(|v| !later.contains(v)),
        };
        let (mut current, mut negated, mut factors) = (cell, false, Vec::new());
        loop {
            if let Some(&owner) = self.owner.get(&current) {
                factors.reverse();
                return Some(ExitAdjoint {
                    owner,
                    negated,
                    factors,
                });
            }
            if self.reads.get(&current) != Some(&1) {
                return None;
            }
            let reader = stmts[position + 1..]
                .iter()
                .find(|s| s.reads().contains(&current))?;
            current = linear_step(reader, current, &mut negated, &mut factors, &known)?;
        }
    }
}

/// How `reader`, which reads `current` once, passes `current`'s adjoint
/// on, if linearly: the value it defines, when it is a copy, a `+`, a `-`
/// (negating when `current` is subtracted), a negation, or a `*` by a
/// value `known` says is known where the chain starts (pushed on
/// `factors`). The steps of `exit_adjoint`'s and `early_calls`' chains.
pub fn linear_step(
    reader: &Stmt,
    current: VarId,
    negated: &mut bool,
    factors: &mut Vec<Operand>,
    known: &dyn Fn(&Operand) -> bool,
) -> Option<VarId> {
    let Stmt::Let {
        var,
        init: Some(rhs),
        ..
    } = reader
    else {
        return None;
    };
    match rhs {
        Rhs::Use(Operand::Var(_)) => {}
        Rhs::Prim { prim, args, .. } => {
            let second = matches!(args.get(1), Some(Operand::Var(v)) if *v == current);
            match prim.name {
                "add" => {}
                "sub" => *negated ^= second,
                "neg" => *negated = !*negated,
                "mul" => {
                    let other = &args[usize::from(!second)];
                    if !known(other) {
                        return None;
                    }
                    factors.push(other.clone());
                }
                _ => return None,
            }
        }
        _ => return None,
    }
    Some(*var)
}

/// The cells `block` assigns on every path through it.
fn assigned(block: &Block) -> HashSet<VarId> {
    let mut cells = HashSet::new();
    for stmt in &block.stmts {
        match stmt {
            Stmt::Update { cell, .. } => {
                cells.insert(*cell);
            }
            Stmt::If { then_, else_, .. } => {
                cells.extend(assigned(then_).intersection(&assigned(else_)));
            }
            _ => {}
        }
    }
    cells
}

/// The loops at the top level of fused loop `l`'s body that can be fused
/// too: each only accumulates, into cells that flow (through `+`) into
/// `l`'s accumulators, so its accumulators' adjoint at its exit is theirs,
/// known before it runs — `e += f(i, j)` over `j` inside `e`'s loop over
/// `i`. Then each inner iteration is reversed as soon as it has run, and
/// the inner loop runs once, not twice (once forward, once replayed by its
/// reverse). Not when `l`'s body stores into an array (a store after the
/// inner loop would be reversed after it), nor in second-order bodies.
/// Each, with its accumulators and the outer accumulator each flows into.
fn inner_fused<'l>(l: &'l Loop, activity: &Activity) -> Vec<(&'l Loop, Vec<(VarId, VarId)>)> {
    let mut inner = Vec::new();
    let Some((_, owner)) = accumulation(l, activity) else {
        return inner;
    };
    // (stores into an array a nested loop declares, each of its
    // iterations' own, are no store of `l`'s: a pair loop's displacement
    // `let mut d = [0.0; 3];` filled per pair)
    let mut own = HashSet::new();
    loop_local_arrays(&l.body, false, &mut own);
    let mut stores = false;
    l.body.walk(0, &mut |stmt, _| {
        stores |= matches!(stmt, Stmt::Store { array, .. } if !own.contains(array))
    });
    if stores {
        return inner;
    }
    for stmt in &l.body.stmts {
        let Stmt::Loop(nested) = stmt else { continue };
        // (`accumulators` asks for a range)
        let Some(cells) = accumulators(nested, activity) else {
            continue;
        };
        let owners: Option<Vec<(VarId, VarId)>> = cells
            .iter()
            .map(|c| owner.get(c).map(|o| (*c, *o)))
            .collect();
        if let Some(owners) = owners {
            inner.push((nested, owners));
        }
    }
    inner
}

/// Adds to `out` the arrays declared in the body of a loop in `block`
/// (`in_loop`: `block` is such a body, or a branch of one).
fn loop_local_arrays(block: &Block, in_loop: bool, out: &mut HashSet<VarId>) {
    for stmt in &block.stmts {
        match stmt {
            Stmt::Let {
                var,
                init: Some(Rhs::Array(_)),
                ..
            } if in_loop => {
                out.insert(*var);
            }
            Stmt::If { then_, else_, .. } => {
                loop_local_arrays(then_, in_loop, out);
                loop_local_arrays(else_, in_loop, out);
            }
            Stmt::Loop(nested) => loop_local_arrays(&nested.body, true, out),
            _ => {}
        }
    }
}

/// For each variable of `vars`, the most statements that read it on one path through `block`: the larger of an `if`'s branches, and a
/// read inside a nested loop of a value from outside it counts twice (the
/// loop may run more than once). The first values of `if_cells` are not
/// counted.
fn path_uses(
    block: &Block,
    vars: &HashSet<VarId>,
    if_cells: &HashSet<VarId>,
) -> HashMap<VarId, usize> {
    let mut total: HashMap<VarId, usize> = HashMap::new();
    let add = |total: &mut HashMap<VarId, usize>, var: VarId, n: usize| {
        *total.entry(var).or_default() += n;
    };
    for stmt in &block.stmts {
        if matches!(stmt, Stmt::Let { var, .. } if if_cells.contains(var)) {
            continue;
        }
        for var in stmt.reads() {
            if vars.contains(&var) {
                add(&mut total, var, 1);
            }
        }
        match stmt {
            Stmt::If { then_, else_, .. } => {
                let (then_uses, else_uses) = (
                    path_uses(then_, vars, if_cells),
                    path_uses(else_, vars, if_cells),
                );
                let read: HashSet<&VarId> = then_uses.keys().chain(else_uses.keys()).collect();
                for var in read {
                    let most = then_uses.get(var).max(else_uses.get(var)).copied();
                    add(&mut total, *var, most.unwrap_or(0));
                }
            }
            Stmt::Loop(inner) => {
                let mut inside = HashSet::new();
                inner.body.walk(0, &mut |stmt, _| {
                    if let Stmt::Let { var, .. } = stmt {
                        inside.insert(*var);
                    }
                });
                for (var, n) in path_uses(&inner.body, vars, if_cells) {
                    add(
                        &mut total,
                        var,
                        if inside.contains(&var) { n } else { 2 * n },
                    );
                }
            }
            _ => {}
        }
    }
    total
}

/// If `rhs` is one accumulation step — a copy of an accumulated value, or one
/// plus (or, on the left, minus) a value that is not accumulated — the
/// accumulated operand.
fn accumulated_operand(rhs: &Rhs, owner: &HashMap<VarId, VarId>) -> Option<VarId> {
    let acc = |op: &Operand| match op {
        Operand::Var(v) if owner.contains_key(v) => Some(*v),
        _ => None,
    };
    match rhs {
        Rhs::Use(op) => acc(op),
        Rhs::Prim { prim: p, args, .. } if std::ptr::eq(*p, &prim::ADD) => {
            match (acc(&args[0]), acc(&args[1])) {
                (Some(v), None) | (None, Some(v)) => Some(v),
                _ => None,
            }
        }
        Rhs::Prim { prim: p, args, .. } if std::ptr::eq(*p, &prim::SUB) => {
            match (acc(&args[0]), acc(&args[1])) {
                (Some(v), None) => Some(v),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Every store of `body` is into an array declared in `body`.
pub fn stores_stay_inside(body: &Block) -> bool {
    let declared = body.declared_arrays();
    let mut stored = Vec::new();
    body.walk(0, &mut |stmt, _| {
        if let Stmt::Store { array, .. } = stmt {
            stored.push(*array);
        }
    });
    stored.iter().all(|a| declared.contains(a))
}

/// Whether the loop `l` reads an array that `after` (the statements that
/// follow it) stores into. The reverse of such a store moves the adjoint of
/// the element it overwrites into the stored value and zeroes it; a fused
/// loop has already added its reads' adjoints into the array's adjoint, so
/// the store's reverse would take them for its own.
fn read_then_stored(l: &Loop, after: &[Stmt]) -> bool {
    let mut stored = HashSet::new();
    for stmt in after {
        let mut note = |s: &Stmt| {
            if let Stmt::Store { array, .. } = s {
                stored.insert(*array);
            }
        };
        note(stmt);
        match stmt {
            Stmt::If { then_, else_, .. } => {
                then_.walk(0, &mut |s, _| note(s));
                else_.walk(0, &mut |s, _| note(s));
            }
            Stmt::Loop(inner) => inner.body.walk(0, &mut |s, _| note(s)),
            _ => {}
        }
    }
    let mut reads = false;
    l.body.walk(0, &mut |stmt, _| {
        reads |= stmt.reads().iter().any(|v| stored.contains(v));
    });
    reads
}

/// One term of a linear coefficient: `±` the product of `factors`.
#[derive(Clone)]
struct Term {
    negate: bool,
    /// In the order they apply going forwards from the accumulator.
    factors: Vec<Factor>,
}

#[derive(Clone)]
enum Factor {
    /// Multiplied by this value.
    Times(TokenStream),
    /// Divided by this value.
    Over(TokenStream),
}

/// How a value after the loop depends on its outputs: the terms of its
/// derivative with respect to each accumulator (none: zero).
type Linear = Vec<(VarId, Term)>;

/// The adjoint of each cell of `cells` at the exit of the loop at
/// `position` of the function body, if the rest of the body uses the loop's
/// `outputs` only linearly with coefficients available before the loop.
fn exit_adjoints(
    func: &Func,
    position: usize,
    outputs: &[VarId],
    cells: &[VarId],
    d_out: &Ident,
) -> Option<Vec<(VarId, TokenStream)>> {
    let stmts = &func.body.stmts;
    // Values the code before the loop can read: parameters and the
    // function body's own earlier definitions (cells change; not those).
    let mut available: HashSet<VarId> = func
        .vars
        .iter()
        .enumerate()
        .filter(|(_, v)| matches!(v.origin, Origin::Param { .. }))
        .map(|(id, _)| id)
        .collect();
    for stmt in &stmts[..position] {
        if let Stmt::Let { var, .. } = stmt {
            if !func.vars[*var].is_cell() {
                available.insert(*var);
            }
        }
    }
    // Constants defined after the loop from available values: their tokens.
    let mut constants: HashMap<VarId, TokenStream> = HashMap::new();
    // The loop's outputs, then everything after the loop that depends on
    // them: its derivative with respect to each accumulator.
    let mut depends: HashMap<VarId, Linear> = HashMap::new();
    for &output in outputs {
        let linear = if cells.contains(&output) {
            vec![(
                output,
                Term {
                    negate: false,
                    factors: Vec::new(),
                },
            )]
        } else {
            // Another carried value (a counter...): it depends on the loop,
            // with no adjoint to carry.
            Vec::new()
        };
        depends.insert(output, linear);
    }
    let value = |op: &Operand, constants: &HashMap<VarId, TokenStream>| match op {
        Operand::Const(c) if c.uses.iter().all(|u| available.contains(u)) && plain(&c.tokens) => {
            Some(c.tokens.clone())
        }
        Operand::Var(v) if available.contains(v) => {
            let ident = &func.vars[*v].ident;
            Some(quote!(#ident))
        }
        Operand::Var(v) => constants.get(v).cloned(),
        Operand::Const(_) => None,
    };
    let mut returned: Option<Linear> = None;
    for stmt in &stmts[position + 1..] {
        let reads = stmt.reads();
        let dependent = |op: &Operand, depends: &HashMap<VarId, Linear>| match op {
            Operand::Var(v) => depends.get(v).cloned(),
            Operand::Const(c) => c
                .uses
                .iter()
                .any(|u| depends.contains_key(u))
                .then(Vec::new),
        };
        match stmt {
            Stmt::Let {
                var,
                init: Some(rhs),
                ..
            } => {
                if !reads.iter().any(|v| depends.contains_key(v)) {
                    if let Rhs::Use(op @ Operand::Const(_)) = rhs {
                        if let Some(tokens) = value(op, &constants) {
                            constants.insert(*var, tokens);
                        }
                    }
                    continue;
                }
                let linear = match rhs {
                    Rhs::Use(op) => dependent(op, &depends)?,
                    Rhs::Prim { prim: p, args, .. } => {
                        let a = dependent(&args[0], &depends);
                        let b = args.get(1).and_then(|b| dependent(b, &depends));
                        if std::ptr::eq(*p, &prim::ADD) {
                            [a, b].into_iter().flatten().flatten().collect()
                        } else if std::ptr::eq(*p, &prim::SUB) {
                            let mut terms = a.unwrap_or_default();
                            terms.extend(negated(b.unwrap_or_default()));
                            terms
                        } else if std::ptr::eq(*p, &prim::NEG) {
                            negated(a?)
                        } else if std::ptr::eq(*p, &prim::MUL) {
                            match (a, b) {
                                (Some(a), None) => {
                                    scaled(a, Factor::Times(value(&args[1], &constants)?))
                                }
                                (None, Some(b)) => {
                                    scaled(b, Factor::Times(value(&args[0], &constants)?))
                                }
                                _ => return None,
                            }
                        } else if std::ptr::eq(*p, &prim::DIV) {
                            match (a, b) {
                                (Some(a), None) => {
                                    scaled(a, Factor::Over(value(&args[1], &constants)?))
                                }
                                _ => return None,
                            }
                        } else {
                            return None;
                        }
                    }
                    _ => return None,
                };
                depends.insert(*var, linear);
            }
            Stmt::Return { value: op, .. } => {
                returned = Some(dependent(op, &depends).unwrap_or_default());
            }
            Stmt::Opaque { .. } => {}
            Stmt::If { .. } | Stmt::Loop(_) => {
                let mut clean = true;
                let mut check = |s: &Stmt| {
                    clean &= !s.reads().iter().any(|v| depends.contains_key(v));
                };
                check(stmt);
                let blocks: Vec<&Block> = match stmt {
                    Stmt::If { then_, else_, .. } => vec![then_, else_],
                    Stmt::Loop(l) => vec![&l.body],
                    _ => Vec::new(),
                };
                for block in blocks {
                    block.walk(0, &mut |s, _| check(s));
                }
                if !clean {
                    return None;
                }
            }
            _ => {
                if reads.iter().any(|v| depends.contains_key(v)) {
                    return None;
                }
            }
        }
    }
    let returned = returned?;
    Some(
        cells
            .iter()
            .map(|&cell| {
                let terms: Vec<TokenStream> = returned
                    .iter()
                    .filter(|(c, _)| *c == cell)
                    .map(|(_, term)| term_tokens(term, d_out))
                    .collect();
                let seed = if terms.is_empty() {
                    quote!(0.0_f64)
                } else {
                    quote!(#(#terms)+*)
                };
                (cell, seed)
            })
            .collect(),
    )
}

/// Tokens that can be evaluated early, before the loop, to compute a seed:
/// literals, names, operators, casts, fields, indexing and `.len()`, but no
/// other call and no macro (they might have effects, or be costly, and
/// would run twice).
fn plain(tokens: &TokenStream) -> bool {
    use proc_macro2::{Delimiter, TokenTree};
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    trees.iter().enumerate().all(|(i, tree)| match tree {
        TokenTree::Punct(p) => p.as_char() != '!',
        TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis => {
            let called = match i.checked_sub(1).map(|j| &trees[j]) {
                Some(TokenTree::Ident(name)) => Some(name.to_string()),
                // `(f)(..)`, `a[0](..)`, `f::<T>(..)`: calls too
                Some(TokenTree::Group(_)) => Some(String::new()),
                Some(TokenTree::Punct(p)) if p.as_char() == '>' => Some(String::new()),
                _ => None,
            };
            match called {
                None => plain(&g.stream()),
                Some(name) => name == "len" && g.stream().is_empty(),
            }
        }
        TokenTree::Group(g) => plain(&g.stream()),
        _ => true,
    })
}

fn negated(terms: Linear) -> Linear {
    terms
        .into_iter()
        .map(|(cell, term)| {
            (
                cell,
                Term {
                    negate: !term.negate,
                    ..term
                },
            )
        })
        .collect()
}

fn scaled(terms: Linear, factor: Factor) -> Linear {
    terms
        .into_iter()
        .map(|(cell, mut term)| {
            term.factors.push(factor.clone());
            (cell, term)
        })
        .collect()
}

/// `d_out` times the term, multiplied in the order the reverse sweep
/// multiplies it (from the output back), each partial as `rules` gives it:
/// `mul`'s is the other operand, `div`'s `1.0 / divisor`.
fn term_tokens(term: &Term, d_out: &Ident) -> TokenStream {
    let mut tokens = quote!(#d_out);
    for factor in term.factors.iter().rev() {
        tokens = match factor {
            Factor::Times(k) => quote!(#tokens * (#k)),
            Factor::Over(k) => quote!(#tokens * (1.0 / (#k))),
        };
    }
    if term.negate {
        quote!((-(#tokens)))
    } else {
        tokens
    }
}
