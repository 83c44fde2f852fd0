//! The recording policy of loop nests: which values the reverse sweep of a
//! loop nest reads, and whether each is recorded in the forward sweep or
//! recomputed in the reverse one.
//!
//! The reverse sweep's default for control flow is *replay* (`emit/
//! reverse.rs`): the reverse of a loop iteration runs the iteration again,
//! then reverses it. One level deep that is what a hand-written gradient
//! does too, but in a nest every level replays the levels inside it: a
//! statement `k` loops deep runs `k + 1` times, and every store into a
//! local array pushes on an undo tape at every run. For a loop that holds
//! other loops, at the top level of the function body or of a fused loop's
//! body (whose iterations each run forward, then reverse: the nest's
//! records hold one iteration's values), this module chooses *recording*
//! instead (what
//! Tapenade calls to-be-recorded analysis): the forward sweep runs the nest
//! once and, at the end of each block it runs (an iteration's body, a
//! branch), records the values of that block which the reverse sweep reads
//! and cannot recompute; the reverse sweep walks the nest backwards,
//! takes each block's values back (last recorded, first taken) and
//! reverses it, running nothing of the primal again.
//!
//! Per value the reverse sweep reads (`reverse_reads`, which mirrors what
//! `emit/reverse.rs` writes: a rule's operands as `prim::Reads` says, load
//! and store indices, call arguments, nested ranges):
//!
//! - defined outside the nest, or a loop index of the nest: there already
//!   (a reversed range gives its indices back);
//! - a constant expression or copy of available values, or a load at an
//!   available index from an array the reverse still sees as the load did
//!   (a parameter; a local array nothing from the nest on stores into; one
//!   with an undo tape that the load's block does not store into after
//!   it, `rereadable`): recomputed, which costs a load or a little integer
//!   arithmetic where recording would cost a write and a read;
//! - one addition, subtraction, multiplication or negation of one varied
//!   float variable and constants or locals that vary with nothing
//!   (`0.01 * u`, `1.0 - u`): recomputed from that float (which the
//!   reverse then reads), one for one or better;
//! - a float its block stores into an element of an array with an undo
//!   tape, which nothing in the block stores into after
//!   (`h[i] = a.tanh()`): read from the element again at the start of the
//!   block's reverse (`stored_values`, `Keep::Reload`);
//! - any other float: recorded on the nest's `f64` record;
//! - an integer a loop of the nest steps (`l += 1`), when the reverse can
//!   undo the steps: counted back (`counters.rs`), `Keep::Counted`;
//! - any other value (an integer read again after the inner loop that
//!   steps it): on a tape of its own (its type is not known to the macro);
//! - each `if`'s decision whose reverse has work: evaluated again where
//!   the reverse reaches the `if` when its condition reads only loop
//!   indices, values from before the nest and recomputed values
//!   (`recomputable`: a stencil's `i > 0`), else on the nest's `bool`
//!   record.
//!
//! Stores into local arrays keep their undo tapes (their reverse recomputes
//! the index, `Plan::indexed_undo`, and restores the element) unless nothing outside the nest
//! reads the array before the nest's reverse: then the reverse sweep never
//! reads the array again, the store is a plain assignment and its reverse
//! recomputes the index (`Recording::plain`) — unless the undo tape is
//! worth keeping for the loads it lets the reverse re-read (`keeps_undo`).
//! A loop that stores each element of such an array once, at its own
//! index, and reads it only there after, saves the elements it overwrites
//! in one copy before it runs and restores them after its reverse, rather
//! than one push and one pop an element (`spans`).
//!
//! A nest whose replay would save something (a loop-carried value, an undo
//! tape: `replay_saves`) is recorded; one whose replay saves nothing but
//! re-runs its inner loops (a product's sums) is recorded when that needs
//! no storage (`needs_storage`) or the function allocates anyway
//! (`allocates_anyway`): a function that allocates nothing replayed stays
//! so.
//!
//! An array the nest declares (`let mut ys = [0.0; 4];`, a helper's
//! returned array `let k1 = rhs(&y, p);`, a `vec!` per step) is out of
//! scope where the nest's reverse runs: its stores are plain, its loads
//! are recorded rather than read again, a call given it is given a copy
//! (`copied_args`), and its adjoint is made from its shape, recorded where
//! it is declared (`Shaped`: nothing for a fixed-size array). One that
//! nothing changes after its `let` (`immutable_arrays`), and that the
//! reverse reads, is pushed whole at the end of its block and taken back
//! whole at the start of its block's reverse (`Keep::Restored`), which
//! then reads it as the forward sweep did.
//!
//! A nest is recorded only when its whole reverse can work this way: every
//! loop has a range and no `break`, no item or expression statement
//! needs to be in scope again, and nothing read is a loop's cell or an
//! array the nest declares (`a.len()` in a range). Other
//! nests, single loops and second-order bodies keep replay — but for a
//! single loop in a fused loop's body that would record a costly value
//! (`records_costly`: an `exp`, not a `+`), which is recorded, and a single
//! loop of the function body that would too and whose replay saves values
//! anyway (`replay_saves`: storage either way; a planar arm's `sin_cos` per
//! joint, computed again by the replay: 2.7 → 1.8× the hand-written
//! gradient).

use crate::activity::Activity;
use crate::counters::{Counter, Point};
use crate::fuse::Fused;
use crate::ir::{Block, CallArg, Func, Header, Kind, Operand, Origin, Rhs, Stmt, VarId};
use crate::names::{Names, Role};
use crate::prim::Arity;
use std::collections::{HashMap, HashSet};
use syn::Ident;

/// How the reverse sweep of a recorded nest gets a value the nest defines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Keep {
    /// Recorded on the nest's `f64` record.
    Float,
    /// Recorded on a tape of its own.
    Own(Ident),
    /// Recomputed at the start of its block's reverse.
    Recompute,
    /// An integer counted back from the loop's running value
    /// (`counters.rs`), at the start of its block's reverse.
    Counted,
    /// A float its block stores into an element of this array, read from
    /// the element again at the start of its block's reverse
    /// (`stored_values`).
    Reload(VarId),
    /// An array the nest declares and nothing changes after (`let l =
    /// chol3(&s);`, `let e = [a, b, c];`: `immutable_arrays`): its elements
    /// pushed on the nest's `args` record at the end of its block, and the
    /// array taken back whole, under its own name, at the start of its
    /// block's reverse, which then reads it as the forward sweep did (its
    /// loads again, calls given it as they are) rather than recording each
    /// load and copying it for each call.
    Restored,
    /// An array the nest declares and changes, whose reverse reads only
    /// its length (`0..r.len()`, what `r.iter().zip(..)` lowers to): at the
    /// start of its block's reverse its recorded shape is bound under its
    /// name, and the shape's `len()` answers (`length_only`).
    Length,
}

/// A recorded nest: a top-level loop and the loops and `if`s inside it.
pub struct Nest {
    /// Its records: floats, and decisions.
    pub floats: Ident,
    pub decisions: Ident,
    /// Every loop of the nest, itself included.
    pub loops: HashSet<usize>,
    /// Whether it records floats, and decisions (a record that would stay
    /// empty is not declared).
    pub has_floats: bool,
    pub has_decisions: bool,
    /// Its record of the local arrays its calls are given (`copied_args`),
    /// and each such array's twin, which the reverse fills from it to give
    /// the callee's adjoint the array as the call saw it.
    pub args: Option<Ident>,
    pub twins: Vec<(VarId, Ident)>,
    /// The pool of each twin of an array the nest declares (made where the
    /// call is reversed, of the array's shape: a `Vec` twin is taken out of
    /// its pool there and moved back after the callee's adjoint, not
    /// allocated per iteration), by the array.
    pub twin_pools: HashMap<VarId, Ident>,
    /// Its record of the partials its calls take in the forward sweep
    /// (`partials_in_forward`), when it has such calls.
    pub partials: Option<Ident>,
}

impl Nest {
    /// The twin of `array`, which a call's adjoint is given as the call
    /// saw the array (`copied_args`).
    pub fn twin(&self, array: VarId) -> Ident {
        self.twins
            .iter()
            .find(|(a, _)| *a == array)
            .map(|(_, twin)| twin.clone())
            .expect("a twin for every copied array")
    }
}

/// The recording policy of a function.
#[derive(Default)]
pub struct Recording {
    /// Recorded nests by the id of their top-level loop.
    pub nests: HashMap<usize, Nest>,
    /// What happens to each value a nest's reverse reads.
    pub keep: HashMap<VarId, Keep>,
    /// Decisions (by name) whose `if` has reverse work: recorded.
    pub decisions: HashSet<String>,
    /// Decisions (by name) whose `if` has reverse work and whose condition
    /// the reverse can evaluate again (`recomputable`): not recorded.
    pub recomputed: HashSet<String>,
    /// Local arrays stored into only inside recorded nests and read outside
    /// them only after: plain stores, no undo tape.
    pub plain: HashSet<VarId>,
    /// The loop integers the reverse counts back, by cell.
    pub counters: HashMap<VarId, Counter>,
    /// Calls in recorded nests (by the variable they define) given local
    /// arrays the function stores into: the arrays the forward sweep copies
    /// onto its nest's `args` record at the call (`copied_args`).
    pub copies: HashMap<VarId, Vec<VarId>>,
    /// Of those copies, the ones made once after a loop of the nest rather
    /// than at each call (`hoisted_copies`): the arrays by the loop after
    /// which they are copied, in order, and the (call, array) pairs that
    /// take their array from such a copy.
    pub hoists: HashMap<usize, Vec<VarId>>,
    pub hoisted: HashSet<(VarId, VarId)>,
    /// The arrays recorded nests declare whose shape their reverse needs
    /// (for an adjoint, or a call's twin), each with its shape tape.
    pub shapes: HashMap<VarId, Shaped>,
    /// The `Vec` buffers recorded nests declare (used through slices,
    /// `views.rs`), each with the storage reused by all its iterations.
    pub pools: HashMap<VarId, Pool>,
}

/// A `Vec` buffer a recorded nest declares every iteration
/// (`let mut hnew = vec![0.0; n];` in a time step), used through a slice
/// (`views.rs`). Where the user's code allocates a buffer an iteration,
/// the forward sweep refills one `Vec` declared before the nest
/// (`__private::refill`) and the reverse zeroes another for the adjoint
/// (`__private::zeros_in`, from the recorded shape): one allocation per
/// call each, as a hand-written gradient that hoists its buffers makes,
/// not two per iteration (an Elman RNN of width 8: 1.52 → 1.2 times the
/// hand-written gradient in instructions).
pub struct Pool {
    /// The storage of the buffer's iterations.
    pub forward: Ident,
    /// The storage of its adjoint's, when it has one.
    pub adjoint: Option<Ident>,
}

impl Pool {
    /// The pools of the buffer named `of`, and of its adjoint if it has one.
    pub fn named(names: &Names, of: &Ident, adjoint: bool) -> Pool {
        Pool {
            forward: names.fresh_for("__ad_pool_", of),
            adjoint: adjoint.then(|| names.fresh_for("__ad_pool_d_", of)),
        }
    }
}

/// An array a recorded nest declares (`let mut ys = [0.0; 4];`, a call's
/// returned array `let k1 = rhs(&y, p);`, each iteration its own), whose
/// reverse needs an array shaped like it: the array's adjoint, or the twin
/// a call's adjoint is given (`copied_args`). The reverse of the nest runs
/// after the whole nest, where the array is out of scope; so the forward
/// sweep records its shape where it is declared
/// (`__private::shape_of`, `push_shape`: nothing for a `[f64; N]`, whose
/// type fixes its shape; the length of a `Vec`), and the
/// reverse of the declaring block takes it back first and makes zeros of
/// it (`__private::zeros_of`). Nothing else of such an array is read by the
/// reverse: its stores are plain, its loads are not read again from it,
/// and a call given it is given a copy.
pub struct Shaped {
    /// The tape of its shapes (a `Vec`, typed by its pushes).
    pub tape: Ident,
    /// The shape taken back at the start of its block's reverse.
    pub shape: Ident,
    /// Where its adjoint is zeroed, when it has one and is not a buffer
    /// with a `Pool`: one `Vec` for all the iterations' adjoints of a `Vec`
    /// (`__private::zeros_pooled`; a `[f64; N]`'s adjoint is on the stack
    /// and leaves the pool unused), not one allocated per iteration (a
    /// helper's returned force vector, every time step).
    pub adjoint_pool: Option<Ident>,
}

impl Recording {
    /// The loop nest recorded loop `id` belongs to, by the id of its top.
    pub fn nest_of(&self, id: usize) -> Option<usize> {
        self.nests
            .iter()
            .find(|(_, nest)| nest.loops.contains(&id))
            .map(|(top, _)| *top)
    }
}

/// Chooses the recorded nests of `func` (none in a second-order body) and
/// what each keeps. `plain_stores` are the arrays whose stores already
/// need no undo tape (`undo.rs`).
pub fn plan(
    func: &Func,
    activity: &Activity,
    names: &Names,
    fused: &HashMap<usize, Fused>,
    plain_stores: &HashSet<VarId>,
) -> Recording {
    // The scopes whose top-level loops may be nests: the function body, and
    // the body of each fused loop in it (its iterations run forward, then
    // reverse, one by one: a nest there is recorded and taken back within
    // one iteration, its records as long as one iteration's).
    let mut scopes: Vec<&Block> = vec![&func.body];
    for stmt in &func.body.stmts {
        if let Stmt::Loop(l) = stmt {
            if fused.contains_key(&l.id) {
                scopes.push(&l.body);
            }
        }
    }
    // Candidates, by scope and position in it; a nest whose reverse cannot
    // get what it reads is dropped, which may give arrays back their undo
    // tapes (and so fewer reads to the others): until nothing changes.
    let mut candidates: Vec<Candidate> = Vec::new();
    for (scope, block) in scopes.iter().enumerate() {
        for (i, stmt) in block.stmts.iter().enumerate() {
            match stmt {
                // (in a fused loop's body, a single loop too: see `kept`)
                // (a single loop of the function body too: kept below only
                // when its replay saves anyway and it records costly values)
                Stmt::Loop(l) if !fused.contains_key(&l.id) && recordable(l, false) => {
                    candidates.push((scope, i, l))
                }
                _ => {}
            }
        }
    }
    // A nest whose replay would save nothing (no loop-carried value, no undo
    // tape) still replays its inner loops (a product's inner sum runs three
    // times in a three-deep nest): it is recorded too when that needs no
    // storage, or when the function allocates anyway (a `Vec` local); a
    // function that allocates nothing keeps its replay, and allocates
    // nothing still.
    let allocates = allocates_anyway(func);
    let saves: HashSet<usize> = candidates
        .iter()
        .filter(|(_, _, l)| replay_saves(activity, l, plain_stores))
        .map(|(_, _, l)| l.id)
        .collect();
    // A nest's calls take their partials in the forward sweep, onto a
    // record, where recording it needs storage anyway (its replay would
    // save, or the function allocates); elsewhere their reverse calls the
    // callee's adjoint, as a replay does, and a function that allocated
    // nothing still allocates nothing.
    let takes_partials = |l: &crate::ir::Loop| allocates || saves.contains(&l.id);
    // Storage the adjoint takes whatever is recorded: a loop whose replay
    // saves values needs it recorded or replayed.
    let storage_anyway = allocates || !saves.is_empty();
    loop {
        if candidates.is_empty() {
            return Recording::default();
        }
        let mut plain = HashSet::new();
        for (scope, block) in scopes.iter().enumerate() {
            let positions: HashSet<usize> = candidates
                .iter()
                .filter(|c| c.0 == scope)
                .map(|c| c.1)
                .collect();
            if !positions.is_empty() {
                plain.extend(plain_arrays(block, &positions));
            }
        }
        // (An array a nest declares is out of scope where its reverse runs:
        // its stores are plain.)
        let declared: HashSet<VarId> = candidates
            .iter()
            .flat_map(|(_, _, l)| declared_arrays(func, &l.body))
            .collect();
        plain.retain(|a| {
            !plain_stores.contains(a)
                && (declared.contains(a)
                    || !keeps_undo(func, activity, &scopes, &candidates, &takes_partials, *a))
        });
        let with_undo_free: HashSet<VarId> = plain.union(plain_stores).copied().collect();
        let keeps: Vec<Option<NestKeep>> = candidates
            .iter()
            .map(|&(scope, position, l)| {
                let settled = settled_arrays(func, scopes[scope], position);
                keep_of(
                    func,
                    activity,
                    names,
                    l,
                    &settled,
                    &with_undo_free,
                    takes_partials(l),
                )
            })
            .collect();
        // dropped: a nest whose reverse cannot get what it reads, and one
        // that saves nothing by recording and would need storage to
        // A single loop (in a fused loop's body) is recorded when it records
        // a value that costs more to compute again than to take back (an
        // `exp` of a softmax's sum: replayed, each sample's reverse would
        // take it again).
        let kept = |(scope, _, l): &Candidate, keep: &Option<NestKeep>| match keep {
            None => false,
            // A single loop of the function body is recorded only where it
            // records a costly value (a planar arm's `sin_cos` per joint, a
            // log-sum-exp's `exp` per element, which its replay would take
            // again) and the adjoint has storage anyway: its replay would
            // save values, or another loop's would (a running maximum's
            // tape), or the function allocates. An adjoint that allocated
            // nothing still allocates nothing.
            Some((keep, _)) if !holds_loop(l) && *scope == 0 => {
                (saves.contains(&l.id) || storage_anyway) && records_costly(l, keep)
            }
            Some((keep, _)) if !holds_loop(l) => records_costly(l, keep),
            Some((keep, _)) => {
                saves.contains(&l.id) || allocates || !needs_storage(func, activity, l, keep)
            }
        };
        if candidates.iter().zip(&keeps).any(|(c, k)| !kept(c, k)) {
            candidates = candidates
                .into_iter()
                .zip(&keeps)
                .filter(|(c, k)| kept(c, k))
                .map(|(c, _)| c)
                .collect();
            continue;
        }
        let mut recording = Recording {
            plain,
            ..Recording::default()
        };
        for ((_, _, l), keep) in candidates.into_iter().zip(keeps) {
            let (keep, counters) = keep.expect("checked above");
            recording.counters.extend(counters);
            let mut loops = HashSet::new();
            loops.insert(l.id);
            l.body.walk(0, &mut |stmt, _| match stmt {
                Stmt::Loop(inner) => {
                    loops.insert(inner.id);
                }
                Stmt::If {
                    decision,
                    cond,
                    then_,
                    else_,
                } if has_reverse(then_, activity, &with_undo_free, &keep)
                    || has_reverse(else_, activity, &with_undo_free, &keep) =>
                {
                    if recomputable(func, l, &keep, cond) {
                        recording.recomputed.insert(decision.to_string());
                    } else {
                        recording.decisions.insert(decision.to_string());
                    }
                }
                _ => {}
            });
            let has_floats = keep.values().any(|k| *k == Keep::Float);
            let mut has_decisions = false;
            l.body.walk(0, &mut |stmt, _| {
                if let Stmt::If { decision, .. } = stmt {
                    has_decisions |= recording.decisions.contains(&decision.to_string());
                }
            });
            let restores = keep.values().any(|k| *k == Keep::Restored);
            recording.keep.extend(keep);
            let copies = copied_args(func, activity, l, takes_partials(l));
            let args = (!copies.is_empty() || restores).then(|| names.fresh("__ad_args"));
            let mut twins: Vec<(VarId, Ident)> = Vec::new();
            for (_, arrays) in &copies {
                for array in arrays {
                    if !twins.iter().any(|(a, _)| a == array) {
                        twins.push((*array, names.fresh("__ad_as_called")));
                    }
                }
            }
            let copied: HashSet<VarId> = copies.iter().flat_map(|(_, a)| a.clone()).collect();
            let hoisted = hoisted_copies(func, l, &copies);
            recording.hoists.extend(hoisted.by_loop);
            recording.hoisted.extend(hoisted.calls);
            recording.copies.extend(copies);
            let mut declared: Vec<VarId> = declared_arrays(func, &l.body).into_iter().collect();
            declared.sort_unstable();
            let buffers = declared_buffers(func, &l.body);
            let owned = owned_buffers(func, &l.body);
            for array in declared {
                if buffers.contains(&array) {
                    let of = &func.vars[array].ident;
                    recording
                        .pools
                        .insert(array, Pool::named(names, of, activity.needs_adjoint(array)));
                }
                // (a `Vec` used whole, `dot(&w, &h1)`: taken out of its pool
                // and moved back at the end of its block; its adjoint is
                // zeroed in `Shaped::adjoint_pool`)
                if owned.contains(&array) {
                    let of = &func.vars[array].ident;
                    let pool = Pool {
                        forward: names.fresh_for("__ad_pool_", of),
                        adjoint: None,
                    };
                    recording.pools.insert(array, pool);
                }
                let restored = matches!(
                    recording.keep.get(&array),
                    Some(Keep::Restored | Keep::Length)
                );
                if activity.needs_adjoint(array) || copied.contains(&array) || restored {
                    let of = &func.vars[array].ident;
                    let shaped = Shaped {
                        tape: names.derived(Role::Shapes, array, of),
                        shape: names.derived(Role::Shape, array, of),
                        adjoint_pool: (activity.needs_adjoint(array) && !buffers.contains(&array))
                            .then(|| names.fresh_for("__ad_pool_d_", of)),
                    };
                    recording.shapes.insert(array, shaped);
                }
            }
            let mut calls = false;
            l.body.walk(0, &mut |stmt, _| {
                if let Stmt::Let {
                    var,
                    init: Some(Rhs::Call { args, .. }),
                    ..
                } = stmt
                {
                    calls |= takes_partials(l) && partials_in_forward(func, activity, *var, args);
                }
            });
            let partials = calls.then(|| names.fresh("__ad_partials"));
            let twin_pools = twins
                .iter()
                .filter(|(array, _)| recording.shapes.contains_key(array))
                .map(|(array, twin)| (*array, names.fresh_for("__ad_pool_", twin)))
                .collect();
            recording.nests.insert(
                l.id,
                Nest {
                    floats: names.fresh("__ad_record"),
                    decisions: names.fresh("__ad_decisions"),
                    loops,
                    has_floats,
                    has_decisions,
                    args,
                    twins,
                    twin_pools,
                    partials,
                },
            );
        }
        return recording;
    }
}

/// A loop that may be recorded: its scope (0 for the function body, then
/// the bodies of fused loops), its position there, the loop.
type Candidate<'a> = (usize, usize, &'a crate::ir::Loop);

/// Whether the reverse of nest `l` can evaluate the condition `cond` of
/// one of its `if`s again where it reverses the `if`, to the value it had in
/// the forward sweep: it reads only loop indices of the nest (a reversed
/// range gives them back), values defined before the nest that are not
/// cells, and values the reverse recomputes anyway (`Keep::Recompute`, at
/// the start of their block's reverse). Then the decision is not recorded:
/// `i > 0` at a stencil's boundary costs a compare where recording costs a
/// push and a pop.
fn recomputable(
    func: &Func,
    l: &crate::ir::Loop,
    keep: &HashMap<VarId, Keep>,
    cond: &crate::ir::Const,
) -> bool {
    let mut inside: HashSet<VarId> = HashSet::new();
    let mut indices: HashSet<VarId> = HashSet::new();
    if let Header::Range { index, .. } = &l.header {
        indices.insert(*index);
    }
    l.body.walk(0, &mut |stmt, _| match stmt {
        Stmt::Let { var, .. } => {
            inside.insert(*var);
        }
        Stmt::Update { cell, .. } => {
            inside.insert(*cell);
        }
        Stmt::Store { array, .. } => {
            inside.insert(*array);
        }
        Stmt::Loop(inner) => {
            if let Header::Range { index, .. } = &inner.header {
                indices.insert(*index);
            }
        }
        _ => {}
    });
    // An array the function stores into anywhere may differ by the time
    // of the reverse, and so may a local changed in place.
    let mut stored: HashSet<VarId> = HashSet::new();
    func.body.walk(0, &mut |stmt, _| {
        if let Stmt::Store { array, .. } = stmt {
            stored.insert(*array);
        }
    });
    cond.uses.iter().all(|var| {
        let info = &func.vars[*var];
        let unchanged = !info.in_place
            && !stored.contains(var)
            && (info.kind != Kind::FloatArray || matches!(info.origin, Origin::Param { .. }));
        unchanged
            && (indices.contains(var)
                || (!inside.contains(var) && !info.is_cell())
                || keep.get(var) == Some(&Keep::Recompute))
    })
}

/// Whether `l` holds another loop.
fn holds_loop(l: &crate::ir::Loop) -> bool {
    let mut nested = false;
    l.body
        .walk(0, &mut |stmt, _| nested |= matches!(stmt, Stmt::Loop(_)));
    nested
}

/// Whether `keep` records a float of loop `l` that an operation other
/// than `+ - *`, negation, `abs`, `min` or `max` computes.
fn records_costly(l: &crate::ir::Loop, keep: &HashMap<VarId, Keep>) -> bool {
    let mut costly = false;
    l.body.walk(0, &mut |stmt, _| {
        if let Stmt::Let {
            var,
            init: Some(Rhs::Prim { prim, .. }),
            ..
        } = stmt
        {
            costly |= keep.get(var) == Some(&Keep::Float)
                && !matches!(
                    prim.name,
                    "add" | "sub" | "mul" | "neg" | "abs" | "min" | "max"
                );
        }
    });
    costly
}

/// A loop whose reverse can take recorded values: it holds another loop
/// (unless `!nested_only`), every loop has a range and no `break`, and
/// nothing in it needs the replay.
fn recordable(l: &crate::ir::Loop, nested_only: bool) -> bool {
    if !matches!(l.header, Header::Range { .. }) || l.breaks {
        return false;
    }
    let mut nested = false;
    let mut ok = true;
    l.body.walk(0, &mut |stmt, _| match stmt {
        Stmt::Loop(inner) => {
            nested = true;
            ok &= matches!(inner.header, Header::Range { .. }) && !inner.breaks;
        }
        Stmt::Jump(_) | Stmt::Return { .. } => ok = false,
        Stmt::Opaque { replay: true, .. } => ok = false,
        _ => {}
    });
    (nested || !nested_only) && ok
}

/// The `Vec` buffers `block` and the blocks nested in it declare and use
/// through a slice (`views.rs`): what a recorded nest keeps in a `Pool`.
fn declared_buffers(func: &Func, block: &Block) -> HashSet<VarId> {
    let mut buffers = HashSet::new();
    block.walk(0, &mut |stmt, _| {
        if let Stmt::Let {
            var,
            init: Some(Rhs::Array(_)),
            ..
        } = stmt
        {
            if func.vars[*var].view {
                buffers.insert(*var);
            }
        }
    });
    buffers
}

/// The `Vec` buffers `block` and the blocks nested in it declare
/// (`vec![..]`, `to_vec()`) that are not used through slices (`views.rs`:
/// a helper is given the whole buffer, `dot(&w, &h1)`), and that nothing
/// moves (`only_borrowed`): a recorded nest takes each out of a pool where
/// it is declared and moves it back at the end of its block (`Pool`), as
/// a fused loop's body does (`reverse::Body::fused_pools`).
fn owned_buffers(func: &Func, block: &Block) -> HashSet<VarId> {
    let mut buffers = HashSet::new();
    block.walk(0, &mut |stmt, _| {
        if let Stmt::Let {
            var,
            init: Some(Rhs::Array(init)),
            ..
        } = stmt
        {
            let vec = init.is_vec();
            if vec && !func.vars[*var].view && only_borrowed(func, block, *var) {
                buffers.insert(*var);
            }
        }
    });
    buffers
}

/// Whether every call in `block` given the array `var` is given a reference
/// to it (`&v`, `&v[a..b]`, `&mut v`), and no statement kept as tokens names
/// it: nothing moves it, so it can be moved back into its pool after.
pub(crate) fn only_borrowed(func: &Func, block: &Block, var: VarId) -> bool {
    let name = func.vars[var].ident.to_string();
    let mut borrowed = true;
    block.walk(0, &mut |stmt, _| match stmt {
        Stmt::Let {
            init: Some(Rhs::Call { args, .. }),
            ..
        } => {
            for arg in args {
                if let CallArg::Array { array, tokens, .. } = arg {
                    borrowed &= *array != var || crate::ir::by_reference(tokens);
                }
            }
        }
        Stmt::Opaque { tokens, .. } => borrowed &= !crate::ir::mentions(tokens, &name),
        _ => {}
    });
    borrowed
}

/// The float arrays `block` and the blocks nested in it declare (an array
/// `let`, a call returning an array): out of scope where the reverse of a
/// nest holding them runs (`Shaped`).
pub(crate) fn declared_arrays(func: &Func, block: &Block) -> HashSet<VarId> {
    let mut declared = HashSet::new();
    block.walk(0, &mut |stmt, _| {
        if let Stmt::Let { var, .. } = stmt {
            if func.vars[*var].kind == Kind::FloatArray {
                declared.insert(*var);
            }
        }
    });
    declared
}

/// Whether every expression of `block` the macro keeps as tokens that reads
/// the array `var` reads only its length (`var.len()`), and nothing else
/// reads it as an expression (`Keep::Length`).
fn length_only(func: &Func, block: &Block, var: VarId) -> bool {
    use proc_macro2::TokenTree;
    fn only_len(tokens: &proc_macro2::TokenStream, name: &str) -> bool {
        let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
        trees.iter().enumerate().all(|(i, tree)| match tree {
            TokenTree::Ident(ident) if *ident == name => matches!(
                (trees.get(i + 1), trees.get(i + 2), trees.get(i + 3)),
                (
                    Some(TokenTree::Punct(dot)),
                    Some(TokenTree::Ident(len)),
                    Some(TokenTree::Group(args)),
                ) if dot.as_char() == '.' && *len == "len" && args.stream().is_empty()
            ),
            TokenTree::Group(group) => only_len(&group.stream(), name),
            _ => true,
        })
    }
    let name = func.vars[var].ident.to_string();
    let mut only = true;
    let mut consts: Vec<&crate::ir::Const> = Vec::new();
    block.walk(0, &mut |stmt, _| match stmt {
        Stmt::Let {
            init: Some(rhs), ..
        } => match rhs {
            Rhs::Use(Operand::Const(c)) => consts.push(c),
            Rhs::Use(Operand::Var(v)) => only &= *v != var,
            Rhs::Prim { args, .. } => {
                for arg in args {
                    match arg {
                        Operand::Const(c) => consts.push(c),
                        Operand::Var(v) => only &= *v != var,
                    }
                }
            }
            Rhs::Load { index, .. } => consts.push(index),
            Rhs::Array(crate::ir::ArrayInit::Fill { value, .. }) => consts.push(value),
            Rhs::Array(crate::ir::ArrayInit::List { items, .. }) => {
                for item in items {
                    match item {
                        Operand::Const(c) => consts.push(c),
                        Operand::Var(v) => only &= *v != var,
                    }
                }
            }
            Rhs::Array(crate::ir::ArrayInit::Copy { source, .. }) => only &= *source != var,
            Rhs::Call { callee, args } => {
                if let crate::ir::Callee::Method { receiver, .. } = callee {
                    consts.push(receiver);
                }
                for arg in args {
                    match arg {
                        CallArg::Float(Operand::Const(c)) | CallArg::Const(c) => consts.push(c),
                        CallArg::Float(Operand::Var(v)) => only &= *v != var,
                        CallArg::Array { range, .. } => {
                            if let Some(range) = range {
                                consts.push(range);
                            }
                        }
                    }
                }
            }
        },
        Stmt::Store { index, value, .. } => {
            consts.push(index);
            match value {
                Operand::Const(c) => consts.push(c),
                Operand::Var(v) => only &= *v != var,
            }
        }
        Stmt::If { cond, .. } => consts.push(cond),
        Stmt::Loop(l) => {
            if let Header::Range { range, .. } = &l.header {
                consts.push(range);
            }
        }
        Stmt::Update { value, .. } => match value {
            Operand::Const(c) => consts.push(c),
            Operand::Var(v) => only &= *v != var,
        },
        _ => {}
    });
    only && consts
        .iter()
        .filter(|c| c.uses.contains(&var))
        .all(|c| only_len(&c.tokens, &name))
}

/// The float arrays of `func` nothing changes after their `let`: no store
/// into them, no call given them by `&mut`, no statement the macro keeps
/// as tokens naming them, not a buffer used through a slice (`views.rs`).
/// Declared in a nest, such an array is `Keep::Restored`.
pub(crate) fn immutable_arrays(func: &Func) -> HashSet<VarId> {
    let mut arrays = HashSet::new();
    let mut changed = HashSet::new();
    let mut opaque = Vec::new();
    func.body.walk(0, &mut |stmt, _| match stmt {
        Stmt::Let { var, init, .. } => {
            if func.vars[*var].kind == Kind::FloatArray && !func.vars[*var].view {
                arrays.insert(*var);
            }
            if let Some(Rhs::Call { args, .. }) = init {
                for arg in args {
                    if let CallArg::Array { array, tokens, .. } = arg {
                        if crate::activity::by_mut(tokens) {
                            changed.insert(*array);
                        }
                    }
                }
            }
        }
        Stmt::Store { array, .. } => {
            changed.insert(*array);
        }
        Stmt::Opaque { tokens, .. } => opaque.push(tokens),
        _ => {}
    });
    arrays.retain(|a| {
        let name = func.vars[*a].ident.to_string();
        !changed.contains(a)
            && !opaque
                .iter()
                .any(|tokens| crate::ir::mentions(tokens, &name))
    });
    arrays
}

/// The loads of an array a block of `block` declares (`block` itself
/// included) that nothing changes after them: each load, by the variable
/// it defines, with its array. The array's block stores into it, or gives
/// it to calls by `&mut`, only in top-level statements before the one
/// holding the load (`let mut pp = [0.0; 9]; for .. { pp[..] = .. }` then
/// `for .. { .. pp[i * 3 + k] .. }`), so at the end of that block it holds
/// what the load read. Such an array is taken back whole for its block's
/// reverse (`Keep::Restored`) when the reverse reads such a load, as one
/// nothing changes is (`immutable_arrays`): one copy of the array an
/// iteration instead of a record per load (a Kalman filter's covariances,
/// built in a loop, then read in three). Only a fixed-size array declared
/// by an array expression (`[0.0; 9]`, a literal, a copy), not named by a
/// statement kept as tokens.
pub(crate) fn settled_loads(func: &Func, block: &Block) -> HashMap<VarId, VarId> {
    let mut loads = HashMap::new();
    settled_loads_in(func, block, &mut loads);
    loads
}

fn settled_loads_in(func: &Func, block: &Block, loads: &mut HashMap<VarId, VarId>) {
    for (position, stmt) in block.stmts.iter().enumerate() {
        match stmt {
            Stmt::If { then_, else_, .. } => {
                settled_loads_in(func, then_, loads);
                settled_loads_in(func, else_, loads);
            }
            Stmt::Loop(inner) => settled_loads_in(func, &inner.body, loads),
            _ => {}
        }
        // (a fixed-size array: a `Vec` taken back whole is allocated again
        // for each reverse of its block, where records are not)
        let Stmt::Let {
            var: array,
            init: Some(Rhs::Array(init)),
            ..
        } = stmt
        else {
            continue;
        };
        let info = &func.vars[*array];
        if info.kind != Kind::FloatArray || info.view || init.is_vec() {
            continue;
        }
        let name = info.ident.to_string();
        // the last top-level statement that changes the array (or names it
        // in tokens: then none of its loads is settled)
        let mut last = Some(position);
        for (at, later) in block.stmts.iter().enumerate().skip(position + 1) {
            walk_stmt(later, &mut |s| {
                let changes = match s {
                    Stmt::Store { array: a, .. } => a == array,
                    Stmt::Update { cell, .. } => cell == array,
                    Stmt::Let {
                        init: Some(Rhs::Call { args, .. }),
                        ..
                    } => args.iter().any(|arg| {
                        matches!(arg, CallArg::Array { array: a, tokens, .. }
                            if a == array && crate::activity::by_mut(tokens))
                    }),
                    Stmt::Opaque { tokens, .. } if crate::ir::mentions(tokens, &name) => {
                        last = None;
                        false
                    }
                    _ => false,
                };
                if changes {
                    last = last.map(|_| at);
                }
            });
        }
        let Some(last) = last else {
            continue;
        };
        for later in &block.stmts[last + 1..] {
            walk_stmt(later, &mut |s| {
                if let Stmt::Let {
                    var,
                    init: Some(Rhs::Load { array: a, .. }),
                    ..
                } = s
                {
                    if a == array {
                        loads.insert(*var, *array);
                    }
                }
            });
        }
    }
}

/// Whether the function body declares a `Vec` (`vec![..]`, `to_vec()`;
/// not a table in a spare buffer, `Func::tables`): its adjoint allocates
/// whatever its nests do.
fn allocates_anyway(func: &Func) -> bool {
    let mut allocates = false;
    func.body.walk(0, &mut |stmt, _| {
        if let Stmt::Let {
            var,
            init: Some(Rhs::Array(init)),
            ..
        } = stmt
        {
            allocates |= init.is_vec() && !func.tables.get(var).is_some_and(|t| t.spare);
        }
    });
    allocates
}

/// Whether recording nest `l` with `keep` needs storage: a value on a
/// record or a tape, an `if` (whose decision may be recorded), or a copy
/// of an array a call is given (`copied_args`; a call's partials are taken
/// in the forward sweep only where storage is needed anyway).
fn needs_storage(
    func: &Func,
    activity: &Activity,
    l: &crate::ir::Loop,
    keep: &HashMap<VarId, Keep>,
) -> bool {
    let mut branches = false;
    l.body.walk(0, &mut |stmt, _| {
        branches |= matches!(stmt, Stmt::If { .. })
    });
    branches
        || !copied_args(func, activity, l, false).is_empty()
        || keep
            .values()
            .any(|k| matches!(k, Keep::Float | Keep::Own(_) | Keep::Restored))
}

/// Whether the call defining `var` (of `args`) gets its partials in the
/// forward sweep, where its block is run once and not replayed (the
/// function body, a fused loop's body, a recorded nest): when the result
/// needs an adjoint and only scalar arguments vary (an array's partials
/// would need a buffer). Its reverse multiplies them by the result's
/// adjoint instead of calling the callee's adjoint, which would evaluate
/// the callee again (`emit/reverse.rs`, `call_with_partials`), and reads
/// none of its arguments.
pub(crate) fn partials_in_forward(
    func: &Func,
    activity: &Activity,
    var: VarId,
    args: &[CallArg],
) -> bool {
    func.vars[var].kind == Kind::Float
        && activity.needs_adjoint(var)
        && args.iter().all(|arg| match arg {
            CallArg::Array { array, .. } => !activity.needs_adjoint(*array),
            _ => true,
        })
}

/// The calls of nest `l` whose adjoint the reverse calls (by the variable
/// each defines), each with the local arrays it is given that the function
/// stores into, in order, once each. The reverse reaches such a call after
/// later iterations stored into the array, so the forward sweep copies the
/// array at the call (onto the nest's `args` record) and the reverse gives
/// the callee's adjoint that copy: a log-sum-exp over a buffer of
/// predictions, `logsumexp(&ypred, b)`, at every step of a sequence. (An
/// array nothing stores into after it is declared, and a parameter, are
/// given as they are.)
pub(crate) fn copied_args(
    func: &Func,
    activity: &Activity,
    l: &crate::ir::Loop,
    partials: bool,
) -> Vec<(VarId, Vec<VarId>)> {
    let mut stored: HashSet<VarId> = HashSet::new();
    func.body.walk(0, &mut |stmt, _| {
        if let Stmt::Store { array, .. } = stmt {
            stored.insert(*array);
        }
    });
    // (an array the nest declares and nothing changes is taken back whole
    // for its block's reverse, `Keep::Restored`: not copied)
    let immutable = immutable_arrays(func);
    let mut declared = declared_arrays(func, &l.body);
    declared.retain(|a| !immutable.contains(a));
    let mut copies = Vec::new();
    l.body.walk(0, &mut |stmt, _| {
        let Stmt::Let {
            var,
            init: Some(Rhs::Call { args, .. }),
            ..
        } = stmt
        else {
            return;
        };
        if !activity.needs_adjoint(*var)
            || (partials && partials_in_forward(func, activity, *var, args))
        {
            return;
        }
        let mut arrays: Vec<VarId> = Vec::new();
        for arg in args {
            if let CallArg::Array { array, .. } = arg {
                let local = !matches!(func.vars[*array].origin, Origin::Param { .. });
                // (an array the nest declares is out of scope in its reverse)
                let changes = stored.contains(array) || declared.contains(array);
                if local && changes && !arrays.contains(array) {
                    arrays.push(*array);
                }
            }
        }
        if !arrays.is_empty() {
            copies.push((*var, arrays));
        }
    });
    copies
}

/// Of the copies `copied_args` makes for nest `top`, the ones that can be
/// made once after a loop of the nest instead of at every call: a call
/// given an array that nothing stores into within an inner loop around
/// the call, and that the loop does not declare, sees the same elements
/// at every call the loop makes. The forward sweep copies the array onto
/// the nest's `args` record once after that loop, and the reverse fills
/// the array's twin from it once before the loop's reverse: a recurrent
/// cell's `dot(&w[i * h..(i + 1) * h], &hidden)` for each of its `h`
/// rows copied `hidden` `h` times a step, `h²` elements, where once is
/// enough (the inline GRU of width 32 over 200 steps: 1.43 → 1.16 times
/// the hand-written gradient in instructions).
///
/// The loop chosen is the outermost such loop inside `top` (`top` itself
/// is not: what it copies after it would be outside the nest) with no
/// `if` between it and the call, so that the copy is made no more often
/// than the call runs but for loops that run no iteration. Returns the
/// arrays by loop, in the order the calls give them, and the (call,
/// array) pairs whose copy is made after a loop.
fn hoisted_copies(
    func: &Func,
    top: &crate::ir::Loop,
    copies: &[(VarId, Vec<VarId>)],
) -> HoistedCopies {
    struct Hoisting<'a> {
        func: &'a Func,
        copies: HashMap<VarId, &'a Vec<VarId>>,
        hoists: HashMap<usize, Vec<VarId>>,
        hoisted: HashSet<(VarId, VarId)>,
    }
    impl<'a> Hoisting<'a> {
        // `around`: the loops of the nest around `block`, outermost first,
        // each with whether an `if` lies between it and `block`
        fn visit(&mut self, block: &'a Block, around: &mut Vec<(&'a crate::ir::Loop, bool)>) {
            for stmt in &block.stmts {
                match stmt {
                    Stmt::Let { var, .. } => {
                        let Some(arrays) = self.copies.get(var) else {
                            continue;
                        };
                        for &array in arrays.iter() {
                            let after = around.iter().find(|(l, conditional)| {
                                !conditional
                                    && !stores_into(&l.body.stmts, array)
                                    && !declared_arrays(self.func, &l.body).contains(&array)
                            });
                            if let Some((l, _)) = after {
                                let arrays = self.hoists.entry(l.id).or_default();
                                if !arrays.contains(&array) {
                                    arrays.push(array);
                                }
                                self.hoisted.insert((*var, array));
                            }
                        }
                    }
                    Stmt::If { then_, else_, .. } => {
                        let was: Vec<bool> = around.iter().map(|(_, c)| *c).collect();
                        around.iter_mut().for_each(|(_, c)| *c = true);
                        self.visit(then_, around);
                        self.visit(else_, around);
                        around.iter_mut().zip(was).for_each(|((_, c), w)| *c = w);
                    }
                    Stmt::Loop(inner) => {
                        around.push((inner, false));
                        self.visit(&inner.body, around);
                        around.pop();
                    }
                    _ => {}
                }
            }
        }
    }
    let mut hoisting = Hoisting {
        func,
        copies: copies.iter().map(|(var, arrays)| (*var, arrays)).collect(),
        hoists: HashMap::new(),
        hoisted: HashSet::new(),
    };
    hoisting.visit(&top.body, &mut Vec::new());
    HoistedCopies {
        by_loop: hoisting.hoists,
        calls: hoisting.hoisted,
    }
}

/// What `hoisted_copies` finds: the arrays copied after each loop, and the
/// (call, array) pairs given such a copy.
struct HoistedCopies {
    by_loop: HashMap<usize, Vec<VarId>>,
    calls: HashSet<(VarId, VarId)>,
}

/// Whether replaying nest `l` would save anything (an undo tape, a loop's
/// carried values): a nest whose replay saves nothing allocates nothing,
/// and stays so (recording would allocate its records).
fn replay_saves(activity: &Activity, l: &crate::ir::Loop, plain_stores: &HashSet<VarId>) -> bool {
    let saves_cells = |l: &crate::ir::Loop| l.carried.iter().any(|c| activity.needed(c.entry));
    let mut saves = saves_cells(l);
    l.body.walk(0, &mut |stmt, _| match stmt {
        Stmt::Store { array, .. } => saves |= !plain_stores.contains(array),
        Stmt::Loop(inner) => saves |= saves_cells(inner),
        _ => {}
    });
    saves
}

/// Local arrays stored into only inside the top-level statements of
/// `scope` at `nests`, and read by other statements only after the last of
/// those: the reverse sweep of those nests need not restore them. (A fused
/// loop's body stores only into arrays it declares, `fuse.rs`: each
/// iteration has its own.)
fn plain_arrays(scope: &Block, nests: &HashSet<usize>) -> HashSet<VarId> {
    let mut last_nest: HashMap<VarId, usize> = HashMap::new();
    let mut stored_elsewhere: HashSet<VarId> = HashSet::new();
    for (i, stmt) in scope.stmts.iter().enumerate() {
        let inside = nests.contains(&i);
        walk_stmt(stmt, &mut |s| {
            if let Stmt::Store { array, .. } = s {
                if inside {
                    last_nest.insert(*array, i);
                } else {
                    stored_elsewhere.insert(*array);
                }
            }
        });
    }
    let mut plain: HashSet<VarId> = last_nest
        .keys()
        .copied()
        .filter(|a| !stored_elsewhere.contains(a))
        .collect();
    for (i, stmt) in scope.stmts.iter().enumerate() {
        if nests.contains(&i) {
            continue;
        }
        walk_stmt(stmt, &mut |s| {
            let mut read = Vec::new();
            if let Stmt::Let {
                init: Some(rhs), ..
            } = s
            {
                if let Rhs::Load { array, .. } = rhs {
                    read.push(*array);
                }
                read.extend(rhs.arrays());
            }
            for array in read {
                if last_nest.get(&array).is_some_and(|&last| i < last) {
                    plain.remove(&array);
                }
            }
        });
    }
    plain
}

/// The loops of recorded nests whose stores into a local array are undone
/// as one span (`Plan::spans`), by id, each with those arrays (`bare`: the
/// arrays whose undo tape holds values alone, `Plan::indexed_undo`).
///
/// A loop `for j in a..b` whose body stores into `x` once, at its top
/// level and at `x[j]`, changes the elements `a..b` of `x` and nothing
/// else. When every read of `x` in the body is a load at `x[j]` after that
/// store (in the body or in a construct nested in it), or one before it
/// whose value the reverse does not read again from `x` (it is recorded,
/// or not needed: `sc[j] = (sc[j] - mx).exp()`), each reversed iteration
/// reads only its own element, as its store left it: the reverse can leave
/// the elements as the whole loop left them, and set them back once after
/// it. So the forward sweep saves `x[a..b]` in one copy before
/// the loop (`Record::save_span`) rather than pushing each element as the
/// store overwrites it, and the reverse copies them back after the loop
/// (`Record::restore_span`) rather than popping one an iteration. The loop
/// then pushes nothing per element, and LLVM can vectorise it: a mixture's
/// `xc[j] = x[i·d + j] − μ[c·d + j]`, one per component, was 25
/// instructions an element with its push.
pub fn spans(
    func: &Func,
    recording: &Recording,
    bare: &dyn Fn(VarId) -> bool,
) -> HashMap<usize, Vec<VarId>> {
    let in_nests: HashSet<usize> = recording
        .nests
        .values()
        .flat_map(|nest| nest.loops.iter().copied())
        .collect();
    let mut spans = HashMap::new();
    for l in func.loops() {
        if !in_nests.contains(&l.id) {
            continue;
        }
        let mut arrays = Vec::new();
        // (a value the reverse loads again: `Keep::Recompute`)
        let not_reloaded = |var: VarId| !matches!(recording.keep.get(&var), Some(Keep::Recompute));
        for (position, stmt) in l.body.stmts.iter().enumerate() {
            if let Stmt::Store { array, .. } = stmt {
                if bare(*array)
                    && !arrays.contains(array)
                    && is_span(func, l, position, &not_reloaded)
                {
                    arrays.push(*array);
                }
            }
        }
        if !arrays.is_empty() {
            arrays.sort_unstable();
            spans.insert(l.id, arrays);
        }
    }
    spans
}

/// Whether the statement at `position` of loop `l`'s body is a store its
/// loop can undo as a span (`spans`): the body's only store into its
/// array, at the index of a loop over `start..end`, with every other read
/// of the array in the body a load at that index, after it or of a value
/// the reverse does not load again (`not_reloaded`).
fn is_span(
    func: &Func,
    l: &crate::ir::Loop,
    position: usize,
    not_reloaded: &dyn Fn(VarId) -> bool,
) -> bool {
    let (
        Header::Range { index, range },
        Some(Stmt::Store {
            array, index: at, ..
        }),
    ) = (&l.header, l.body.stmts.get(position))
    else {
        return false;
    };
    let own_index = |at: &crate::ir::Const| {
        at.uses == [*index] && func.vars[*index].ident == at.tokens.to_string()
    };
    own_index(at)
        && half_open(&range.tokens).is_some()
        && only_own_element_after(l, position, *array, &own_index, not_reloaded)
}

/// Whether the store at `position` of loop `l`'s body is the body's only
/// store into `array`, and every other read of `array` in it a load at the
/// loop's index (`own_index`), after the store or of a value the reverse
/// does not load again (`not_reloaded`: the element then holds the stored
/// value).
fn only_own_element_after(
    l: &crate::ir::Loop,
    position: usize,
    array: VarId,
    own_index: &dyn Fn(&crate::ir::Const) -> bool,
    not_reloaded: &dyn Fn(VarId) -> bool,
) -> bool {
    let mut only = true;
    for (at, stmt) in l.body.stmts.iter().enumerate() {
        walk_stmt(stmt, &mut |s| match s {
            Stmt::Store { array: a, .. } if *a == array => {
                only &= at == position && std::ptr::eq(s, stmt)
            }
            Stmt::Let {
                var,
                init: Some(Rhs::Load { array: a, index }),
                ..
            } if *a == array => only &= (at > position || not_reloaded(*var)) && own_index(index),
            _ => only &= !s.reads().contains(&array),
        });
    }
    only
}

/// The bounds of a loop's range written `start..end` (in parentheses or
/// not), both given: a `Range<usize>` when the loop's index indexes an
/// array. `None` for any other range (`a..=b`, `(a..b).rev()`, `v.iter()`).
pub(crate) fn half_open(range: &proc_macro2::TokenStream) -> Option<(syn::Expr, syn::Expr)> {
    let mut expr = syn::parse2::<syn::Expr>(range.clone()).ok()?;
    while let syn::Expr::Paren(inner) = expr {
        expr = *inner.expr;
    }
    match expr {
        syn::Expr::Range(syn::ExprRange {
            start: Some(start),
            end: Some(end),
            limits: syn::RangeLimits::HalfOpen(_),
            ..
        }) => Some((*start, *end)),
        _ => None,
    }
}

/// Whether `stmts`, or the blocks nested in them, store into `array`.
pub(crate) fn stores_into(stmts: &[Stmt], array: VarId) -> bool {
    let mut stores = false;
    for stmt in stmts {
        walk_stmt(stmt, &mut |s| {
            stores |= matches!(s, Stmt::Store { array: a, .. } if *a == array);
        });
    }
    stores
}

/// Calls `f` on `stmt` and every statement nested in it.
pub(crate) fn walk_stmt<'a>(stmt: &'a Stmt, f: &mut dyn FnMut(&'a Stmt)) {
    f(stmt);
    match stmt {
        Stmt::If { then_, else_, .. } => {
            then_.walk(0, &mut |s, _| f(s));
            else_.walk(0, &mut |s, _| f(s));
        }
        Stmt::Loop(l) => l.body.walk(0, &mut |s, _| f(s)),
        _ => {}
    }
}

/// What a nest's reverse reads and how it gets each value, and the loop
/// integers it counts back (by cell).
type NestKeep = (HashMap<VarId, Keep>, HashMap<VarId, Counter>);

/// What the reverse of nest `l` reads and where each value comes from, and
/// the loop integers it counts back; `None` when it reads something it
/// cannot get (a cell, an array).
fn keep_of(
    func: &Func,
    activity: &Activity,
    names: &Names,
    l: &crate::ir::Loop,
    settled: &HashSet<VarId>,
    plain: &HashSet<VarId>,
    partials: bool,
) -> Option<NestKeep> {
    let stable = stable_loads(&l.body);
    // (an array the nest declares is not there in its reverse, unless it
    // is taken back whole: `Keep::Restored`)
    let declared = declared_arrays(func, &l.body);
    let restored: HashSet<VarId> = declared
        .intersection(&immutable_arrays(func))
        .copied()
        .collect();
    // (and loads of one that nothing changes after them read it so too,
    // `settled_loads`)
    let settled_loads = settled_loads(func, &l.body);
    let settled: HashSet<VarId> = settled.difference(&declared).copied().collect();
    let settled = &settled;
    // Whether the reverse finds float array `array` as the forward sweep
    // left it at any point of the nest: a parameter, a local nothing
    // from the nest on stores into, or one taken back whole. A constant
    // that reads another (`v.partition_point(|a| *a < t)`, a `sort_by`'s
    // order) read it as it was then: recomputed in the reverse it read the
    // array as the reverse finds it (a wrong index, silent, until
    // 2026-11-29), so it is recorded.
    let array_there = |array: &VarId| {
        func.vars[*array].kind != Kind::FloatArray
            || matches!(func.vars[*array].origin, Origin::Param { .. })
            || settled.contains(array)
            || restored.contains(array)
    };
    // What a copy, a constant or a load the reverse can read again is
    // recomputed from (`None` for any other definition).
    // (a constant that reads only an array's length, `hid.len()`, reads
    // what never changes: a float array's length is fixed)
    let array_read = |c: &crate::ir::Const, array: &VarId| {
        array_there(array) || reads_only_length(&c.tokens, &func.vars[*array].ident.to_string())
    };
    let copied_or_reloaded = |var: VarId, init: Option<&Rhs>| match init {
        Some(Rhs::Use(Operand::Const(c))) if c.uses.iter().all(|a| array_read(c, a)) => {
            Some(c.uses.clone())
        }
        Some(Rhs::Use(Operand::Var(v))) => Some(vec![*v]),
        Some(Rhs::Load { array, index })
            if restored.contains(array) || settled_loads.get(&var) == Some(array) =>
        {
            Some(index.uses.iter().copied().chain([*array]).collect())
        }
        Some(Rhs::Load { array, index })
            if !declared.contains(array)
                && rereadable(func, *array, var, plain, &stable, settled) =>
        {
            Some(index.uses.clone())
        }
        _ => None,
    };
    // Definitions inside the nest; its loop indices are available.
    let mut defs: HashMap<VarId, Option<&Rhs>> = HashMap::new();
    let mut indices: HashSet<VarId> = HashSet::new();
    if let Header::Range { index, .. } = &l.header {
        indices.insert(*index);
    }
    l.body.walk(0, &mut |stmt, _| match stmt {
        Stmt::Let { var, init, .. } => {
            defs.insert(*var, init.as_ref());
        }
        Stmt::Loop(inner) => {
            if let Header::Range { index, .. } = &inner.header {
                indices.insert(*index);
            }
        }
        _ => {}
    });
    let stored = stored_values(func, &l.body, plain, &indices, &defs);
    let mut work: Vec<VarId> = reverse_reads(func, activity, &l.body, plain, partials);
    let mut keep: HashMap<VarId, Keep> = HashMap::new();
    // Integers the nest's loops step: a value of a counter's chain known at
    // the start of its reversed iteration is counted back (and the counter
    // used) when the reverse reads it.
    let mut counters = crate::counters::of_nest(func, names, l.id);
    let at_start: HashMap<VarId, VarId> = counters
        .values()
        .flat_map(|c| {
            c.chain
                .iter()
                .filter(|u| u.point == Point::Start)
                .map(|u| (u.var, c.cell))
        })
        .collect();
    let mut used: HashSet<VarId> = HashSet::new();
    let mut taken_whole: HashSet<VarId> = HashSet::new();
    while let Some(var) = work.pop() {
        if keep.contains_key(&var) || indices.contains(&var) {
            continue;
        }
        if let Some(&cell) = at_start.get(&var) {
            let mut cells = vec![cell];
            while let Some(cell) = cells.pop() {
                if !used.insert(cell) {
                    continue;
                }
                let counter = &counters[&cell];
                for u in counter.chain.iter().filter(|u| u.point == Point::Start) {
                    keep.entry(u.var).or_insert(Keep::Counted);
                }
                work.extend(&counter.needs);
                // the counters of the nested loops the chain goes through
                cells.extend(&counter.inner);
            }
            continue;
        }
        if restored.contains(&var) || taken_whole.contains(&var) {
            keep.insert(var, Keep::Restored);
            continue;
        }
        if declared.contains(&var) && length_only(func, &l.body, var) {
            keep.insert(var, Keep::Length);
            continue;
        }
        let info = &func.vars[var];
        let Some(init) = defs.get(&var) else {
            // Defined before the nest (a cell of the function body is read
            // through its versions, never directly).
            if info.is_cell() {
                return None;
            }
            continue;
        };
        if info.is_cell() || info.kind == Kind::FloatArray {
            return None;
        }
        let deps: Option<Vec<VarId>> = match init {
            // One operation of one float and constants (`0.01 * u`, `1.0 - u`):
            // recomputed from that float, which costs an instruction where
            // recording costs a write and a read, and records no more values
            // (one for one, fewer when several are computed from one).
            Some(Rhs::Prim { prim, args, .. }) if cheap_of_one(prim, args, activity) => {
                Some(operand_vars(args))
            }
            _ => copied_or_reloaded(var, *init),
        };
        match deps {
            Some(deps) if deps.iter().all(|d| !func.vars[*d].is_cell()) => {
                keep.insert(var, Keep::Recompute);
                // a settled load reads its array taken back whole (which
                // an earlier `.len()` may have bound as its shape alone)
                if let Some(&array) = settled_loads.get(&var) {
                    taken_whole.insert(array);
                    if keep.get(&array) == Some(&Keep::Length) {
                        keep.insert(array, Keep::Restored);
                    }
                }
                work.extend(deps);
            }
            _ if stored.contains_key(&var) => {
                keep.insert(var, Keep::Reload(stored[&var]));
            }
            _ if info.kind == Kind::Float => {
                keep.insert(var, Keep::Float);
            }
            _ => {
                let tape = names.derived(Role::Tape, var, &info.ident);
                keep.insert(var, Keep::Own(tape));
            }
        }
    }
    // A cheap operation (`+ - *`, negation) of values the reverse has
    // anyway (kept, counted, defined before the nest, loop indices, or
    // recomputed from those by a copy or a load it can read again) is
    // recomputed from them instead of recorded: an operation where
    // recording costs a write and a read, and no value more is kept (a
    // Runge–Kutta stage's `p[1] * x[0]` beside the recorded `x[0]`).
    // The values the reverse can have without recording more, and what
    // each needs recomputed first, grown to a fixed point.
    let mut free: HashMap<VarId, Vec<VarId>> = HashMap::new();
    loop {
        let before = free.len();
        for (var, init) in &defs {
            if free.contains_key(var) || func.vars[*var].is_cell() {
                continue;
            }
            let known = |v: &VarId| {
                !func.vars[*v].is_cell()
                    && (indices.contains(v)
                        || !defs.contains_key(v)
                        || keep.contains_key(v)
                        || free.contains_key(v))
            };
            let deps = match keep.contains_key(var) {
                true => Some(Vec::new()),
                false => copied_or_reloaded(*var, *init),
            };
            // (a settled load reads its array only when that is taken back
            // whole, not when the reverse binds its shape alone)
            let whole = |array: &VarId| keep.get(array) == Some(&Keep::Restored);
            let readable = settled_loads.get(var).map_or(true, whole);
            if let Some(deps) = deps.filter(|deps| readable && deps.iter().all(known)) {
                free.insert(*var, deps);
            }
        }
        if free.len() == before {
            break;
        }
    }
    let mut floats: Vec<VarId> = keep
        .iter()
        .filter(|(_, k)| **k == Keep::Float)
        .map(|(v, _)| *v)
        .collect();
    floats.sort_unstable();
    for var in floats {
        let Some(Some(Rhs::Prim { prim, args, .. })) = defs.get(&var) else {
            continue;
        };
        let operands = operand_vars(args);
        let has = |v: &VarId| {
            !func.vars[*v].is_cell()
                && (indices.contains(v) || !defs.contains_key(v) || free.contains_key(v))
        };
        if !matches!(prim.name, "add" | "sub" | "mul" | "neg") || !operands.iter().all(has) {
            continue;
        }
        keep.insert(var, Keep::Recompute);
        // what it is recomputed from, recomputed before it where not kept
        let mut needs = operands;
        while let Some(v) = needs.pop() {
            if keep.contains_key(&v) || !defs.contains_key(&v) || indices.contains(&v) {
                continue;
            }
            keep.insert(v, Keep::Recompute);
            needs.extend(free[&v].iter().copied());
        }
    }
    counters.retain(|cell, _| used.contains(cell));
    Some((keep, counters))
}

/// The floats a block of a nest stores into an element of a local array
/// that has an undo tape (not `plain`), or of a table of costly values
/// (`Func::tables`: each element stored once, by its filling nest), with
/// nothing in the block storing into the array after: `v` in `let v =
/// a.tanh(); h[i] = v;`, each with its array. At the start of the block's reverse the element holds the
/// value again (the stores after it, later iterations' included, are
/// undone by then, or, a span, left as the loop left them), so the reverse
/// reads it there (`Keep::Reload`) instead of recording it. The value is
/// defined in the same block, and the index reads only loop indices of the
/// nest (`indices`) and values from before it, which are there at the
/// start of the block's reverse.
fn stored_values(
    func: &Func,
    block: &Block,
    plain: &HashSet<VarId>,
    indices: &HashSet<VarId>,
    defs: &HashMap<VarId, Option<&Rhs>>,
) -> HashMap<VarId, VarId> {
    let mut stored = HashMap::new();
    for (position, stmt) in block.stmts.iter().enumerate() {
        match stmt {
            Stmt::Store {
                array,
                index,
                value: Operand::Var(value),
            } => {
                let defined_here = block.stmts[..position]
                    .iter()
                    .any(|s| matches!(s, Stmt::Let { var, .. } if var == value));
                let stored_after = stores_into(&block.stmts[position + 1..], *array);
                let index_there = index.uses.iter().all(|u| {
                    indices.contains(u) || (!defs.contains_key(u) && !func.vars[*u].is_cell())
                });
                let info = &func.vars[*value];
                if defined_here
                    && !stored_after
                    && index_there
                    && (!plain.contains(array) || func.tables.contains_key(array))
                    && info.kind == Kind::Float
                    && !info.is_cell()
                {
                    stored.entry(*value).or_insert(*array);
                }
            }
            Stmt::If { then_, else_, .. } => {
                stored.extend(stored_values(func, then_, plain, indices, defs));
                stored.extend(stored_values(func, else_, plain, indices, defs));
            }
            Stmt::Loop(inner) => {
                stored.extend(stored_values(func, &inner.body, plain, indices, defs))
            }
            _ => {}
        }
    }
    stored
}

/// The variables `args` read (a constant's uses included).
fn operand_vars(args: &[Operand]) -> Vec<VarId> {
    args.iter()
        .flat_map(|a| match a {
            Operand::Var(v) => vec![*v],
            Operand::Const(c) => c.uses.clone(),
        })
        .collect()
}

/// `a + c`, `c * a`, `-a`, ...: an addition, subtraction, multiplication
/// or negation of one varied float variable and constants — or locals
/// that vary with nothing (`a` of `|(a, b)|` over an input that is not
/// differentiated), recomputed in turn — or of one local that varies with
/// nothing and constants, a division too (`0.5 * h`, `h / 6.0`, a step
/// size: recorded every iteration of a Runge–Kutta loop until
/// 2026-11-24).
fn cheap_of_one(prim: &crate::prim::Prim, args: &[Operand], activity: &Activity) -> bool {
    let count = |f: &dyn Fn(VarId) -> bool| {
        args.iter()
            .filter(|a| matches!(a, Operand::Var(v) if f(*v)))
            .count()
    };
    match count(&|v| activity.varied(v)) {
        1 => matches!(prim.name, "add" | "sub" | "mul" | "neg"),
        0 => matches!(prim.name, "add" | "sub" | "mul" | "div" | "neg") && count(&|_| true) <= 1,
        _ => false,
    }
}

/// Whether every mention of `name` in `tokens` is `name.len()`.
fn reads_only_length(tokens: &proc_macro2::TokenStream, name: &str) -> bool {
    use proc_macro2::TokenTree;
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    trees.iter().enumerate().all(|(i, tree)| match tree {
        TokenTree::Ident(ident) if ident == name => {
            matches!(trees.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '.')
                && matches!(trees.get(i + 2), Some(TokenTree::Ident(m)) if m == "len")
                && matches!(trees.get(i + 3), Some(TokenTree::Group(g))
                    if g.delimiter() == proc_macro2::Delimiter::Parenthesis && g.stream().is_empty())
        }
        TokenTree::Group(g) => reads_only_length(&g.stream(), name),
        _ => true,
    })
}

/// Whether the reverse sweep, at the start of the reverse of the block
/// defining `load` (a load from `array`), finds in `array` what the load
/// read: a parameter; a local array no statement from the nest on stores
/// into (`settled`); or one with an undo tape (not `plain`: by then the
/// reverse has undone every store after the block) that its block does not
/// store into after the load (`stable`).
fn rereadable(
    func: &Func,
    array: VarId,
    load: VarId,
    plain: &HashSet<VarId>,
    stable: &HashSet<VarId>,
    settled: &HashSet<VarId>,
) -> bool {
    matches!(func.vars[array].origin, Origin::Param { .. })
        || settled.contains(&array)
        || (!plain.contains(&array) && stable.contains(&load))
}

/// Loads in `block` and the blocks nested in it after which their block
/// does not store into their array.
fn stable_loads(block: &Block) -> HashSet<VarId> {
    let mut stable = HashSet::new();
    collect_stable(block, &mut stable);
    stable
}

fn collect_stable(block: &Block, stable: &mut HashSet<VarId>) {
    for (p, stmt) in block.stmts.iter().enumerate() {
        match stmt {
            Stmt::Let {
                var,
                init: Some(Rhs::Load { array, .. }),
                ..
            } => {
                let mut stored = false;
                for later in &block.stmts[p + 1..] {
                    walk_stmt(later, &mut |s| {
                        stored |= matches!(s, Stmt::Store { array: a, .. } if a == array);
                    });
                }
                if !stored {
                    stable.insert(*var);
                }
            }
            Stmt::If { then_, else_, .. } => {
                collect_stable(then_, stable);
                collect_stable(else_, stable);
            }
            Stmt::Loop(l) => collect_stable(&l.body, stable),
            _ => {}
        }
    }
}

/// Local arrays that no statement of `scope` (the function body, or a
/// fused loop's body, whose iteration reverses the nest before the next
/// runs) from `position` on stores into: what the nest there reads of
/// them is there all through its reverse.
fn settled_arrays(func: &Func, scope: &Block, position: usize) -> HashSet<VarId> {
    let mut stored = HashSet::new();
    for stmt in &scope.stmts[position..] {
        walk_stmt(stmt, &mut |s| {
            if let Stmt::Store { array, .. } = s {
                stored.insert(*array);
            }
        });
    }
    func.vars
        .iter()
        .enumerate()
        .filter(|(id, var)| {
            var.kind == Kind::FloatArray && var.origin == Origin::Local && !stored.contains(id)
        })
        .map(|(id, _)| id)
        .collect()
}

/// Whether local array `array`, stored into in the nests at `positions`,
/// should keep its undo tape there although nothing outside needs it
/// restored: the undo tape lets the reverse read its loads again
/// (`rereadable`) instead of recording them. Per execution, weighted by
/// loop depth (`WEIGHT` iterations a loop, a guess): each store costs two
/// words of undo tape pushed and popped one by one (`STORE`), or, undone
/// as a span, one word copied with its loop's others (`SPAN_STORE`); each
/// load the reverse reads but could re-read one word of record, pushed and
/// popped (`LOAD`).
fn keeps_undo(
    func: &Func,
    activity: &Activity,
    scopes: &[&Block],
    nests: &[Candidate],
    takes_partials: &dyn Fn(&crate::ir::Loop) -> bool,
    array: VarId,
) -> bool {
    const WEIGHT: u64 = 16;
    const STORE: u64 = 4;
    const SPAN_STORE: u64 = 1;
    const LOAD: u64 = 2;
    let (mut stores, mut loads) = (0u64, 0u64);
    for &(scope, position, l) in nests {
        let stable = stable_loads(&l.body);
        if settled_arrays(func, scopes[scope], position).contains(&array) {
            continue;
        }
        let reads = read_through_copies(func, activity, &l.body, takes_partials(l));
        // the stores the nest would undo as spans, one copy for the loop
        let mut loops = vec![l];
        l.body.walk(0, &mut |stmt, _| {
            if let Stmt::Loop(inner) = stmt {
                loops.push(inner);
            }
        });
        let mut spans: HashSet<*const Stmt> = HashSet::new();
        for m in loops {
            for (at, stmt) in m.body.stmts.iter().enumerate() {
                // (which loaded values the reverse reads again is decided
                // later: here, none that it reads at all)
                if matches!(stmt, Stmt::Store { array: a, .. } if *a == array)
                    && is_span(func, m, at, &|var| !activity.needed(var))
                {
                    spans.insert(stmt);
                }
            }
        }
        walk_in_loops(&l.body, 1, &mut |stmt, depth| {
            let weight = WEIGHT.saturating_pow(depth as u32);
            match stmt {
                Stmt::Store { array: a, .. } if *a == array => {
                    let cost = match spans.contains(&(stmt as *const Stmt)) {
                        true => SPAN_STORE,
                        false => STORE,
                    };
                    stores = stores.saturating_add(cost * weight)
                }
                Stmt::Let {
                    var,
                    init: Some(Rhs::Load { array: a, .. }),
                    ..
                } if *a == array && reads.contains(var) && stable.contains(var) => {
                    loads = loads.saturating_add(LOAD * weight)
                }
                _ => {}
            }
        });
    }
    loads > stores
}

/// Calls `f` on every statement of `block` and of the blocks nested in it,
/// with the number of loops around it (`depth` for `block`'s own): a
/// branch runs its statements at most once an iteration, so an `if` adds
/// no level (a kernel's diagonal `if i == j { k[c] += noise; }` is a
/// store per row, not per row and column and one more).
fn walk_in_loops<'a>(block: &'a Block, depth: usize, f: &mut dyn FnMut(&'a Stmt, usize)) {
    for stmt in &block.stmts {
        f(stmt, depth);
        match stmt {
            Stmt::If { then_, else_, .. } => {
                walk_in_loops(then_, depth, f);
                walk_in_loops(else_, depth, f);
            }
            Stmt::Loop(inner) => walk_in_loops(&inner.body, depth + 1, f),
            _ => {}
        }
    }
}

/// The variables the reverse sweep of `block` reads (`reverse_reads`), and
/// those it recomputes them from, through copies and one cheap operation of
/// one varied value (`cheap_of_one`), as `keep_of` does: the loads of a
/// stencil's `u[i]` are read by the reverse through `HEAT_DT * u[i]` and
/// `1.0 - u[i]`.
fn read_through_copies(
    func: &Func,
    activity: &Activity,
    block: &Block,
    partials: bool,
) -> HashSet<VarId> {
    let mut reads: HashSet<VarId> = reverse_reads(func, activity, block, &HashSet::new(), partials)
        .into_iter()
        .collect();
    let mut from: Vec<(VarId, Vec<VarId>)> = Vec::new();
    block.walk(0, &mut |stmt, _| match stmt {
        Stmt::Let {
            var,
            init: Some(Rhs::Use(Operand::Var(source))),
            ..
        } => from.push((*var, vec![*source])),
        Stmt::Let {
            var,
            init: Some(Rhs::Prim { prim, args, .. }),
            ..
        } if cheap_of_one(prim, args, activity) => from.push((*var, operand_vars(args))),
        _ => {}
    });
    loop {
        let before = reads.len();
        for (var, sources) in &from {
            if reads.contains(var) {
                reads.extend(sources.iter().copied());
            }
        }
        if reads.len() == before {
            break reads;
        }
    }
}

/// The variables the reverse sweep of `block` reads when nothing of it is
/// replayed: what `emit/reverse.rs` writes for each statement.
fn reverse_reads(
    func: &Func,
    activity: &Activity,
    block: &Block,
    plain: &HashSet<VarId>,
    partials: bool,
) -> Vec<VarId> {
    let mut reads = Vec::new();
    let operand = |op: &Operand, reads: &mut Vec<VarId>| match op {
        Operand::Var(v) => reads.push(*v),
        Operand::Const(c) => reads.extend(&c.uses),
    };
    // (an array the block declares given to a call is read from a copy,
    // `copied_args`, unless nothing changes it: then it is taken back whole
    // and read, `Keep::Restored`)
    let mut declared = declared_arrays(func, block);
    declared.retain(|a| !immutable_arrays(func).contains(a));
    block.walk(0, &mut |stmt, _| match stmt {
        Stmt::Let {
            var,
            init: Some(rhs),
            ..
        } if activity.needs_adjoint(*var) => match rhs {
            Rhs::Prim { prim, args, .. } => {
                for i in read_operands(prim, args, &|v| activity.needs_adjoint(v)) {
                    operand(&args[i], &mut reads);
                }
                if reads_result(prim, args, &|v| activity.needs_adjoint(v)) {
                    reads.push(*var);
                }
            }
            Rhs::Load { index, .. } => reads.extend(&index.uses),
            // (its partials, taken in the forward sweep, read nothing)
            Rhs::Call { args, .. }
                if partials && partials_in_forward(func, activity, *var, args) => {}
            // (the callee's adjoint reads every argument again; an array
            // the block declares given as an array, from a copy,
            // `copied_args` — but not one an integer argument reads,
            // `h(e.len() - 1, ..)`: seed 1128 #451 of the nests generator)
            Rhs::Call { callee, args } => {
                if let crate::ir::Callee::Method { receiver, .. } = callee {
                    reads.extend(&receiver.uses);
                }
                for arg in args {
                    match arg {
                        CallArg::Float(op) => operand(op, &mut reads),
                        CallArg::Const(c) => reads.extend(&c.uses),
                        CallArg::Array { array, range, .. } => {
                            if !declared.contains(array) {
                                reads.push(*array);
                            }
                            if let Some(range) = range {
                                reads.extend(&range.uses);
                            }
                        }
                    }
                }
            }
            _ => {}
        },
        Stmt::Store { array, index, .. }
            if plain.contains(array) && activity.needs_adjoint(*array) =>
        {
            reads.extend(&index.uses)
        }
        // (the reverse of a store with an undo tape restores the element at
        // its index, which it recomputes: `Plan::indexed_undo`)
        Stmt::Store { array, index, .. } if !plain.contains(array) => reads.extend(&index.uses),
        Stmt::Loop(inner) => {
            if let Header::Range { range, .. } = &inner.header {
                reads.extend(&range.uses);
            }
        }
        _ => {}
    });
    reads
}

/// The operands (by position) a rule's partials read, given which operands
/// get a partial (`active`): none for a linear rule, the other operand of
/// each active one for `mul`, what `prim::PARTIAL_READS` says of the
/// active ones' partials for the rules listed there, every one otherwise.
/// A rule call passes the others as `0.0` (`primal::rule_partials_from`).
pub fn read_operands(
    prim: &crate::prim::Prim,
    args: &[Operand],
    active: &dyn Fn(VarId) -> bool,
) -> Vec<usize> {
    let is_active =
        |i: usize| matches!(args[i], Operand::Var(v) if active(v)) && !powi_exponent(prim, i);
    crate::prim::partial_reads(prim, args.len(), &is_active).0
}

/// Whether a rule's partials read its result, given which operands get a
/// partial (`active`; `prim::partial_reads`). A rule call passes `0.0`
/// for it otherwise (`primal::rule_partials`).
pub fn reads_result(
    prim: &crate::prim::Prim,
    args: &[Operand],
    active: &dyn Fn(VarId) -> bool,
) -> bool {
    let is_active =
        |i: usize| matches!(args[i], Operand::Var(v) if active(v)) && !powi_exponent(prim, i);
    crate::prim::partial_reads(prim, args.len(), &is_active).1
}

fn powi_exponent(prim: &crate::prim::Prim, i: usize) -> bool {
    prim.arity == Arity::PowI && i == 1
}

/// Whether the reverse of `block`, in a recorded nest, does anything: an
/// adjoint to propagate, an undo tape to pop, a value to take back.
fn has_reverse(
    block: &Block,
    activity: &Activity,
    plain: &HashSet<VarId>,
    keep: &HashMap<VarId, Keep>,
) -> bool {
    let mut any = false;
    block.walk(0, &mut |stmt, _| match stmt {
        Stmt::Let { var, .. } => {
            any |= activity.needs_adjoint(*var)
                || matches!(
                    keep.get(var),
                    Some(Keep::Float | Keep::Own(_) | Keep::Restored)
                )
        }
        Stmt::Update { cell, .. } => any |= activity.needs_adjoint(*cell),
        Stmt::Store { array, .. } => {
            any |= !plain.contains(array) || activity.needs_adjoint(*array)
        }
        Stmt::If { .. } => {}
        _ => {}
    });
    any
}
