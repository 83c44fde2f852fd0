//! What the reverse sweep decides before it writes anything: which
//! adjoints are declared early, which values are saved on tapes, which
//! arrays get undo tapes (and the marks of the constructs that store into
//! them), which loads are kept apart, which loops are fused, and which
//! loops' exit values are saved. The analyses (`activity`, `undo`, `fuse`)
//! and these decisions make one [`Plan`], which the emitter only reads.

use crate::activity::Activity;
use crate::fuse::Fused;
use crate::ir::{Block, Const, Func, Header, Kind, Operand, Origin, Rhs, Stmt, VarId};
use crate::names::{Names, Role};
use crate::record::Recording;
use proc_macro2::TokenStream;
use quote::quote;
use std::collections::{HashMap, HashSet};
use syn::Ident;

/// The decisions of the reverse sweep, by variable or construct.
pub struct Plan {
    /// Variables whose adjoint receives contributions from a block nested in
    /// the one defining them: declared at the top of that block's reverse.
    pub eager: HashSet<VarId>,
    /// Tapes, declared once at the top of the function: (tape, cell).
    pub tapes: Vec<(Ident, VarId)>,
    /// Loop id → the tapes of its carried cells that are saved.
    pub loop_tapes: HashMap<usize, Vec<(Ident, VarId)>>,
    /// Local arrays that are stored into: their undo tapes.
    pub undo: HashMap<VarId, Ident>,
    /// The arrays whose undo tape keeps each entry's index with the value
    /// it overwrote (`(usize, f64)`): those a mark undoes to (`undo_to`
    /// restores without the statements that stored), and those stored at
    /// an index that reads the array itself. Every other tape holds the
    /// overwritten values alone, and the reverse of each store recomputes
    /// its index, as it does for a plain store: the state the reverse sweep
    /// restores is the one the store saw.
    pub indexed_undo: HashSet<VarId>,
    /// Local arrays written, then read (`undo::write_before_read`): their
    /// stores are plain assignments, with no undo tape.
    pub plain_stores: HashSet<VarId>,
    /// For each `if` (by decision name) and loop (by id): the arrays stored
    /// into inside it, whether each is declared inside it too, and the name
    /// of its mark (the undo tape's length before an `if`; a loop's tape of
    /// such lengths, one per iteration).
    pub stores_in: HashMap<String, Vec<(VarId, bool, Ident)>>,
    /// Loads in a loop body from an array the body also loads at another
    /// index (`x[i]` and `x[i + 1]`). Their adjoint updates `d_x[i] +=`,
    /// `d_x[i + 1] +=` would be merged by LLVM's SLP vectorizer into one
    /// 16-byte read-modify-write, which the next reverse iteration reloads at
    /// an 8-byte offset: a store-forwarding stall per iteration (4x slower on
    /// extended Rosenbrock, BENCHMARKS.md). Each of these updates is followed
    /// by a `compiler_fence`, which emits no instruction but keeps LLVM from
    /// merging memory accesses across it, so they stay scalar. (It replaced
    /// `*black_box(&mut d_x[i]) += ..`, which kept them scalar by forcing
    /// the address through memory: 3 instructions an update.)
    pub spread_loads: HashSet<VarId>,
    /// Top-level loops whose reverse runs inside them (`fuse.rs`), by id.
    pub fused: HashMap<usize, Fused>,
    /// Loops whose exit values are saved (`plan_exits`), by id.
    pub exits: HashMap<usize, SavedExits>,
    /// Loop nests recorded instead of replayed, and what each value their
    /// reverse reads comes from (`record.rs`).
    pub recording: Recording,
    /// Loops whose carried values are read after them by a branch or a
    /// kink (`max`, `min`, `clamp`, `relu`), so that their adjoints may be
    /// exactly zero (a running minimum's losers): the reverse of a recorded
    /// one that only accumulates checks for that (`vanishing_seeds`).
    pub vanishing: HashSet<usize>,
    /// Replayed loops that only accumulate whose reverse runs in the
    /// forward order (`Plan::reversed_in_order`) and whose replay needs
    /// some of their carried values (a recurrence that does not vary,
    /// `t2 = 2x·t1 − t0`, beside the accumulated `p += c[k]·t2`), by id:
    /// all their cells, each with the value it had before the loop. The
    /// reverse sets each cell to it and the replay recomputes the values
    /// one iteration after another, as the forward sweep did, instead of
    /// the forward sweep saving them on tapes for a reversed replay.
    pub restarts: HashMap<usize, Vec<(VarId, Operand)>>,
    /// Replayed loops with nothing to reverse (`work_free`: a binary
    /// search's `while hi - lo > 1`), by id: their cells, each with the
    /// value it had before the loop. The loop's reverse only sets them back
    /// to it — what a reversed replay of every iteration, from cells saved
    /// at every iteration, would end with.
    pub resets: HashMap<usize, Vec<(VarId, Operand)>>,
    /// Loops of recorded nests whose stores into these arrays are undone
    /// as one span, saved before the loop and restored after its reverse
    /// (`record::spans`), by id.
    pub spans: HashMap<usize, Vec<VarId>>,
    /// Values a branch computes at a cost (`exp`, `sin`, `sqrt`, a `/`, a
    /// call's result) that the reverse of its `if` would compute again by
    /// replaying the branch: the forward sweep copies each into a slot of
    /// its own, declared at the top of the adjoint, and the replay reads
    /// the slot instead (`branch_saves`). Only for `if`s that run once a
    /// call, or once an iteration of a fused loop, whose reverse runs before
    /// the next (anywhere else a later run would overwrite the slot first).
    pub branch_saves: HashMap<VarId, Ident>,
    /// Values a replayed loop's body computes at a cost (as
    /// `branch_saves`) and stores at the loop's index into a local array
    /// that nothing else stores into and nothing undoes (`h1[j] =
    /// a.tanh()` in a layer's loop over units): the replay of each
    /// iteration in the loop's reverse reads the element, which still
    /// holds the value, instead of computing it again (`stored_reloads`).
    /// First order only.
    pub reloads: HashMap<VarId, (VarId, Const)>,
}

/// Where a loop nested in another loop's body saves its exit values, so
/// that the outer loop's replays need not run it again (`plan_exits`).
pub struct SavedExits {
    /// The outer loop's index, and the first value of its range: an
    /// expression of values the replays see too (`0`, `lo`).
    pub outer_index: VarId,
    pub start: TokenStream,
    /// Where the exit values go: stack arrays of the outer loop's constant
    /// trip count, or (`None`, a range known only at run time) records
    /// grown to the slots saved, reused from call to call like the other
    /// records.
    pub len: Option<usize>,
    /// Each carried cell, with the array of its exit values.
    pub cells: Vec<(VarId, Ident)>,
}

/// The longest array of exit values `plan_exits` puts on the stack.
const MAX_SAVED_EXITS: usize = 256;

impl Plan {
    /// Plans the reverse sweep of `func`.
    /// `second`: a second-order body, which replays every nest.
    pub fn new(
        func: &Func,
        activity: &Activity,
        names: &Names,
        d_out: &Ident,
        second: bool,
    ) -> Plan {
        let mut plain_stores = crate::undo::write_before_read(func);
        let fused = crate::fuse::fused_loops(func, activity, names, d_out, second);
        let recording = match second {
            true => Recording::default(),
            false => crate::record::plan(func, activity, names, &fused, &plain_stores),
        };
        plain_stores.extend(recording.plain.iter().copied());
        let mut plan = Plan {
            eager: HashSet::new(),
            tapes: Vec::new(),
            loop_tapes: HashMap::new(),
            undo: HashMap::new(),
            indexed_undo: HashSet::new(),
            plain_stores,
            stores_in: HashMap::new(),
            spread_loads: HashSet::new(),
            fused,
            exits: HashMap::new(),
            recording,
            vanishing: vanishing_seeds(&func.body),
            restarts: HashMap::new(),
            resets: HashMap::new(),
            spans: HashMap::new(),
            branch_saves: HashMap::new(),
            reloads: HashMap::new(),
        };
        if !second {
            plan.branch_saves = branch_saves(func, names, &plan.fused);
            plan.reloads = stored_reloads(func, &plan);
        }
        plan.plan(func, activity, names);
        plan.plan_spread_loads(func);
        plan.plan_exits(func, names, second);
        plan
    }

    /// Finds the eager adjoints and the tapes before emitting anything.
    fn plan(&mut self, func: &Func, activity: &Activity, names: &Names) {
        let mut def_block: HashMap<VarId, usize> = HashMap::new();
        let mut uses: Vec<(VarId, usize)> = Vec::new();
        let mut next_block = 1;
        scan(&func.body, 0, &mut next_block, &mut def_block, &mut uses);
        for (var, block) in uses {
            let defined_in = def_block.get(&var).copied().unwrap_or(0);
            if defined_in != block || func.vars[var].is_cell() {
                self.eager.insert(var);
            }
        }
        for (id, var) in func.vars.iter().enumerate() {
            if var.is_cell() || (var.kind == Kind::FloatArray && var.origin == Origin::Local) {
                self.eager.insert(id);
            }
        }
        // Arrays stored into get an undo tape; constructs that store into
        // them mark the tape so their reverse can undo them before a replay.
        let mut stored = Vec::new();
        func.body.walk(0, &mut |stmt, _| {
            if let Stmt::Store { array, .. } = stmt {
                stored.push(*array);
            }
        });
        for array in stored {
            if self.plain_stores.contains(&array) {
                continue;
            }
            let undo = names.derived(Role::Undo, array, &func.vars[array].ident);
            self.undo.entry(array).or_insert(undo);
        }
        // Constructs inside recorded nests are never replayed: no marks.
        let mut recorded = HashSet::new();
        func.body.walk(0, &mut |stmt, _| {
            if let Stmt::Loop(l) = stmt {
                if self.recording.nests.contains_key(&l.id) {
                    recorded.insert(loop_key(l.id));
                    l.body.walk(0, &mut |inner, _| match inner {
                        Stmt::If { decision, .. } => {
                            recorded.insert(decision.to_string());
                        }
                        Stmt::Loop(inner) => {
                            recorded.insert(loop_key(inner.id));
                        }
                        _ => {}
                    });
                }
            }
        });
        let mut constructs = Vec::new();
        func.body.walk(0, &mut |stmt, _| match stmt {
            Stmt::If {
                decision,
                then_,
                else_,
                ..
            } => constructs.push((decision.to_string(), vec![then_, else_])),
            Stmt::Loop(l) => constructs.push((loop_key(l.id), vec![&l.body])),
            _ => {}
        });
        for (key, blocks) in constructs {
            if recorded.contains(&key) {
                continue;
            }
            let (mut stores, mut declared) = (Vec::new(), Vec::new());
            for block in blocks {
                block.walk(0, &mut |stmt, _| match stmt {
                    Stmt::Store { array, .. }
                        if !stores.contains(array) && !self.plain_stores.contains(array) =>
                    {
                        stores.push(*array)
                    }
                    Stmt::Let {
                        var,
                        init: Some(Rhs::Array(_)),
                        ..
                    } => declared.push(*var),
                    _ => {}
                });
            }
            let prefix = if key.starts_with(LOOP_KEY) {
                "__ad_marks_"
            } else {
                "__ad_mark_"
            };
            let entry = stores
                .into_iter()
                .map(|a| {
                    let mark = names.fresh_for(prefix, &func.vars[a].ident);
                    (a, declared.contains(&a), mark)
                })
                .collect();
            self.stores_in.insert(key, entry);
        }
        self.indexed_undo = self
            .stores_in
            .values()
            .flatten()
            .map(|(a, ..)| *a)
            .collect();
        func.body.walk(0, &mut |stmt, _| {
            if let Stmt::Store { array, index, .. } = stmt {
                if index.uses.contains(array) {
                    self.indexed_undo.insert(*array);
                }
            }
        });
        let bare =
            |array: VarId| self.undo.contains_key(&array) && !self.indexed_undo.contains(&array);
        self.spans = crate::record::spans(func, &self.recording, &bare);
        // what each cell holds before its construct (`let mut cell = v;`)
        let mut starts: HashMap<VarId, Operand> = HashMap::new();
        func.body.walk(0, &mut |stmt, _| {
            if let Stmt::Let {
                var,
                init: Some(Rhs::Use(value)),
                ..
            } = stmt
            {
                if func.vars[*var].is_cell() {
                    starts.insert(*var, value.clone());
                }
            }
        });
        // the primitive integers (`counters::integers`), when a loop asks
        let mut integers: Option<HashSet<VarId>> = None;
        for l in func.loops() {
            if self.fused.contains_key(&l.id) || self.recording.nest_of(l.id).is_some() {
                // Each iteration is reversed right after it runs, or its
                // values are recorded: no cell to save.
                continue;
            }
            let needed: Vec<VarId> = l
                .carried
                .iter()
                .filter(|c| activity.needed(c.entry))
                .map(|c| c.cell)
                .collect();
            if !needed.is_empty() && self.reversed_in_order(l, activity) {
                // every cell, not only those whose values are read: a read
                // one may be computed from the others (`t0 = t1` after
                // `t2 = 2x·t1 − t0; t1 = t2`)
                let restart: Option<Vec<(VarId, Operand)>> = l
                    .carried
                    .iter()
                    .map(|c| starts.get(&c.cell).map(|v| (c.cell, v.clone())))
                    .collect();
                if let Some(restart) = restart {
                    self.restarts.insert(l.id, restart);
                    self.loop_tapes.insert(l.id, Vec::new());
                    continue;
                }
            }
            if !needed.is_empty() && work_free(l, activity) {
                let reset: Option<Vec<(VarId, Operand)>> = l
                    .carried
                    .iter()
                    .map(|c| {
                        let copied = func.vars[c.cell].kind == Kind::Float
                            || integers
                                .get_or_insert_with(|| crate::counters::integers(func))
                                .contains(&c.cell);
                        starts
                            .get(&c.cell)
                            .filter(|_| copied)
                            .map(|v| (c.cell, v.clone()))
                    })
                    .collect();
                if let Some(reset) = reset {
                    self.resets.insert(l.id, reset);
                    self.loop_tapes.insert(l.id, Vec::new());
                    continue;
                }
            }
            let mut saved = Vec::new();
            for carried in &l.carried {
                if activity.needed(carried.entry) {
                    let tape =
                        names.derived(Role::Tape, carried.cell, &func.vars[carried.cell].ident);
                    self.tapes.push((tape.clone(), carried.cell));
                    saved.push((tape, carried.cell));
                }
            }
            self.loop_tapes.insert(l.id, saved);
        }
    }

    /// Finds the loads of `spread_loads`.
    fn plan_spread_loads(&mut self, func: &Func) {
        for body in func.loops().into_iter().map(|l| &l.body) {
            let mut by_array: HashMap<VarId, Vec<(VarId, String)>> = HashMap::new();
            // Only the body's own statements: loads in nested loops run in
            // other iterations.
            body.walk(0, &mut |stmt, depth| {
                if let (
                    Stmt::Let {
                        var,
                        init: Some(Rhs::Load { array, index }),
                        ..
                    },
                    0,
                ) = (stmt, depth)
                {
                    by_array
                        .entry(*array)
                        .or_default()
                        .push((*var, index.tokens.to_string()));
                }
            });
            for loads in by_array.values() {
                let first = &loads[0].1;
                if loads.iter().any(|(_, index)| index != first) {
                    self.spread_loads.extend(loads.iter().map(|(var, _)| *var));
                }
            }
        }
    }

    /// Finds the loops whose exit values are saved. The reverse of a loop
    /// replays each iteration's body, nested loops included, though a
    /// nested loop that only computes values (a dot product `a += w[k] *
    /// h[k]`, read by a `max` after it) is replayed again by its own
    /// reverse. When the outer loop has a constant trip count (`0..16`), the
    /// recording forward sweep saves the nested loop's exit values in a
    /// stack array indexed by the outer iteration, and the outer replays
    /// read them instead of running the nested loop.
    ///
    /// The nested loop must sit directly in the outer body, have a range
    /// and no `break`, save nothing for its own reverse (no tapes), store
    /// nothing and run no opaque code (a replay skipping it must leave
    /// everything as a replay running it would), carry only floats, and
    /// hold no loop whose exits are saved. The outer loop must not be fused
    /// (it is never replayed). When it runs at most `MAX_SAVED_EXITS`
    /// times the arrays live on the stack; when its range is `start..end`
    /// known only at run time (a k-means objective's loop over centres
    /// inside its loop over points, each centre's distance a sum over
    /// dimensions) they are records (`Record::save_at`), except in a
    /// second-order body.
    fn plan_exits(&mut self, func: &Func, names: &Names, second: bool) {
        let mut skippable = Vec::new();
        for outer in func.loops() {
            let Header::Range { index, range } = &outer.header else {
                continue;
            };
            if self.fused.contains_key(&outer.id) || self.recording.nest_of(outer.id).is_some() {
                continue; // never replayed
            }
            let (start, len) = match constant_range(&range.tokens) {
                Some((start, end))
                    if (1..=MAX_SAVED_EXITS).contains(&end.saturating_sub(start)) =>
                {
                    let first = proc_macro2::Literal::usize_unsuffixed(start);
                    (quote!(#first), Some(end - start))
                }
                Some(_) if second => continue,
                // (a range of values that do not change: the slot, the
                // index minus the start, is the same in the replays)
                _ => match range_start(&range.tokens) {
                    Some(start)
                        if !second && range.uses.iter().all(|u| !func.vars[*u].is_cell()) =>
                    {
                        (start, None)
                    }
                    _ => continue,
                },
            };
            for stmt in &outer.body.stmts {
                let Stmt::Loop(inner) = stmt else { continue };
                let simple = matches!(inner.header, Header::Range { .. })
                    && !inner.breaks
                    && !inner.carried.is_empty()
                    && self.loop_tapes.get(&inner.id).map_or(true, Vec::is_empty)
                    && inner
                        .carried
                        .iter()
                        .all(|c| func.vars[c.cell].kind == Kind::Float);
                let mut effects = false;
                inner.body.walk(0, &mut |stmt, _| {
                    effects |= matches!(stmt, Stmt::Store { .. } | Stmt::Opaque { .. });
                });
                if !simple || effects {
                    continue;
                }
                let cells = inner
                    .carried
                    .iter()
                    .map(|c| {
                        (
                            c.cell,
                            names.derived(Role::Exits, c.cell, &func.vars[c.cell].ident),
                        )
                    })
                    .collect();
                self.exits.insert(
                    inner.id,
                    SavedExits {
                        outer_index: *index,
                        start: start.clone(),
                        len,
                        cells,
                    },
                );
                skippable.push(inner);
            }
        }
        // A skipped loop's own reverse replays its body, whose nested loops
        // would restore exit values that only a run of this loop saves: keep
        // the innermost.
        for l in skippable {
            let mut nested = false;
            l.body.walk(0, &mut |stmt, _| {
                nested |= matches!(stmt, Stmt::Loop(inner) if self.exits.contains_key(&inner.id));
            });
            if nested {
                self.exits.remove(&l.id);
            }
        }
    }

    /// The arrays stored into inside the construct `key`, each with its
    /// undo tape, whether it is declared inside the construct, and its mark.
    /// Whether the reverse of the replayed loop `l` runs its iterations in
    /// the forward order, each replayed, then reversed (and the first of the
    /// conditions for a loop of a recorded nest, `reverse_recorded_loop`):
    /// a loop over a range
    /// with no `break` that only accumulates (`fuse::accumulators`: each
    /// iteration's reverse starts from the same adjoints) and stores only
    /// into arrays it declares (so no iteration's reverse moves an adjoint
    /// another one adds to). Counted up, LLVM can vectorise it like the
    /// primal, and a replay in the forward order recomputes the values the
    /// loop carries from where they started (`Plan::restarts`).
    pub fn reversed_in_order(&self, l: &crate::ir::Loop, activity: &Activity) -> bool {
        self.in_order_but_stores(l, activity)
            && crate::fuse::stores_stay_inside(&l.body)
            && crate::fuse::accumulators(l, activity).is_some()
    }

    /// The conditions of [`Plan::reversed_in_order`] but where the loop
    /// stores: a loop of a recorded nest may also increment arrays from
    /// outside it (`reverse_recorded_loop`).
    pub fn in_order_but_stores(&self, l: &crate::ir::Loop, activity: &Activity) -> bool {
        matches!(l.header, Header::Range { .. })
            && !l.breaks
            && self.construct_stores(&loop_key(l.id)).is_empty()
            && crate::fuse::accumulators_or_none(l, activity).is_some()
    }

    pub fn construct_stores(&self, key: &str) -> Vec<(VarId, Ident, bool, Ident)> {
        self.stores_in
            .get(key)
            .map(|v| {
                v.iter()
                    .map(|(a, inside, mark)| (*a, self.undo[a].clone(), *inside, mark.clone()))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// Whether the reverse of loop `l` has nothing to do but set its cells back:
/// no value of its body needs an adjoint, no cell it assigns does, it
/// stores into no array and holds no loop (whose own reverse would take
/// back what it saved).
fn work_free(l: &crate::ir::Loop, activity: &Activity) -> bool {
    let mut work = false;
    l.body.walk(0, &mut |stmt, _| {
        work |= match stmt {
            Stmt::Let { var, .. } => activity.needs_adjoint(*var),
            Stmt::Update { cell, .. } => activity.needs_adjoint(*cell),
            Stmt::Store { .. } | Stmt::Loop(_) => true,
            _ => false,
        }
    });
    !work
}

/// Records, for every variable, the block that defines it, and every
/// (variable, block) where an adjoint may flow into the variable.
fn scan(
    block: &Block,
    id: usize,
    next: &mut usize,
    def_block: &mut HashMap<VarId, usize>,
    uses: &mut Vec<(VarId, usize)>,
) {
    for stmt in &block.stmts {
        match stmt {
            Stmt::Let { var, init, .. } => {
                def_block.insert(*var, id);
                if let Some(rhs) = init {
                    for op in rhs.operands() {
                        if let Operand::Var(v) = op {
                            uses.push((*v, id));
                        }
                    }
                    for array in rhs.arrays() {
                        uses.push((array, id));
                    }
                }
            }
            Stmt::Update {
                value: Operand::Var(v),
                ..
            }
            | Stmt::Store {
                value: Operand::Var(v),
                ..
            } => uses.push((*v, id)),
            Stmt::Return {
                value: Operand::Var(v),
                ..
            } => uses.push((*v, id)),
            Stmt::If { then_, else_, .. } => {
                for branch in [then_, else_] {
                    let child = *next;
                    *next += 1;
                    scan(branch, child, next, def_block, uses);
                }
            }
            Stmt::Loop(l) => {
                let child = *next;
                *next += 1;
                scan(&l.body, child, next, def_block, uses);
            }
            _ => {}
        }
    }
}

/// `a..b` with integer literals: `(a, b)`.
fn constant_range(tokens: &TokenStream) -> Option<(usize, usize)> {
    let range: syn::ExprRange = syn::parse2(tokens.clone()).ok()?;
    if !matches!(range.limits, syn::RangeLimits::HalfOpen(_)) {
        return None;
    }
    let bound = |e: &Option<Box<syn::Expr>>| match e.as_deref() {
        Some(syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(int),
            ..
        })) => int.base10_parse::<usize>().ok(),
        _ => None,
    };
    Some((bound(&range.start)?, bound(&range.end)?))
}

/// The loops of `block` (and of the blocks in it) whose cells' values
/// after them are read inside an `if` (its condition or its branches) or by
/// a kink (`max`, `min`, `clamp`, `relu`) in the statements that follow
/// them, and not also by a statement of `block` that passes them on
/// whatever happens (stored, or an operand of another operation): their
/// adjoints may be exactly zero, and a reverse that skips them then saves
/// its whole run (the other seeds of a k-means objective's distances).
/// Elsewhere the check would cost an instruction per iteration or so for
/// nothing, and keep the reverse counted down (`reverse_recorded_loop`): a
/// softmax's scores, stored and compared with a running maximum, are
/// never all zero.
fn vanishing_seeds(block: &Block) -> HashSet<usize> {
    let mut found = HashSet::new();
    for (p, stmt) in block.stmts.iter().enumerate() {
        match stmt {
            Stmt::Loop(l) => {
                let cells: HashSet<VarId> = l.carried.iter().map(|c| c.cell).collect();
                let mut exits: HashSet<VarId> = HashSet::new();
                let (mut vanishing, mut passed_on) = (false, false);
                for later in &block.stmts[p + 1..] {
                    if let Stmt::Let {
                        var,
                        init: Some(Rhs::Use(Operand::Var(v))),
                        ..
                    } = later
                    {
                        if cells.contains(v) || exits.contains(v) {
                            exits.insert(*var);
                        }
                    }
                    let is_exit = |o: &Operand| matches!(o, Operand::Var(v) if exits.contains(v));
                    passed_on |= match later {
                        Stmt::Store { value, .. } => is_exit(value),
                        Stmt::Let {
                            init: Some(Rhs::Prim { prim, args, .. }),
                            ..
                        } if !matches!(prim.name, "max" | "min" | "clamp" | "relu") => {
                            args.iter().any(is_exit)
                        }
                        _ => false,
                    };
                    crate::record::walk_stmt(later, &mut |s| {
                        let reads = s.reads();
                        let kink = matches!(s, Stmt::Let {
                            init: Some(Rhs::Prim { prim, .. }), ..
                        } if matches!(prim.name, "max" | "min" | "clamp" | "relu"));
                        let branch = matches!(s, Stmt::If { .. });
                        if (kink || branch) && reads.iter().any(|v| exits.contains(v)) {
                            vanishing = true;
                        }
                    });
                    if let Stmt::If { then_, else_, .. } = later {
                        for b in [then_, else_] {
                            b.walk(0, &mut |s, _| {
                                vanishing |= s.reads().iter().any(|v| exits.contains(v));
                            });
                        }
                    }
                }
                if vanishing && !passed_on {
                    found.insert(l.id);
                }
                found.extend(vanishing_seeds(&l.body));
            }
            Stmt::If { then_, else_, .. } => {
                found.extend(vanishing_seeds(then_));
                found.extend(vanishing_seeds(else_));
            }
            _ => {}
        }
    }
    found
}

/// The first value of a range `start..end` (its tokens).
fn range_start(tokens: &TokenStream) -> Option<TokenStream> {
    let range: syn::ExprRange = syn::parse2(tokens.clone()).ok()?;
    if !matches!(range.limits, syn::RangeLimits::HalfOpen(_)) {
        return None;
    }
    let start = range.start?;
    Some(quote!(#start))
}

/// The key of loop `id` in `Plan::stores_in` (an `if`'s is its decision).
pub fn loop_key(id: usize) -> String {
    format!("{LOOP_KEY}{id}")
}

/// Starts every loop's key in `Plan::stores_in`; decisions start `__ad_`.
const LOOP_KEY: &str = "loop ";

/// Whether replaying `rhs` costs more than reading a stored `f64`: a rule
/// other than `+ - *`, negation, `abs`, `min`, `max` (`exp`, `tanh`,
/// `sqrt`, a division), or a call.
fn costly(rhs: &Rhs) -> bool {
    match rhs {
        Rhs::Prim { prim, .. } => !matches!(
            prim.name,
            "add" | "sub" | "mul" | "neg" | "abs" | "min" | "max"
        ),
        Rhs::Call { .. } => true,
        _ => false,
    }
}

/// The values `Plan::reloads` reads back in replays, each with the array
/// and index it is stored at: in the body of a replayed loop (not fused,
/// not in a recorded nest) counting a range `a..b` (each index once), a
/// float defined at a cost at the top of the body and stored there, at
/// the loop's index, into a local array declared outside the loop (the
/// replay declares the body's own again, empty) with no undo tape (its
/// stores are plain: `plan.plain_stores`) that this store is the only one
/// into. The element then holds the value from the store to the end of
/// the sweep, or to the next replay of a construct around the loop, which
/// stores it again before the loop's reverse reads it.
fn stored_reloads(func: &Func, plan: &Plan) -> HashMap<VarId, (VarId, Const)> {
    let mut stores: HashMap<VarId, usize> = HashMap::new();
    func.body.walk(0, &mut |stmt, _| {
        if let Stmt::Store { array, .. } = stmt {
            *stores.entry(*array).or_default() += 1;
        }
    });
    let mut reloads = HashMap::new();
    for l in func.loops() {
        let Header::Range { index, range } = &l.header else {
            continue;
        };
        if plan.fused.contains_key(&l.id)
            || plan.recording.nest_of(l.id).is_some()
            || crate::record::half_open(&range.tokens).is_none()
        {
            continue;
        }
        let index = func.vars[*index].ident.to_string();
        // (an array the body declares is declared again by the replay,
        // before it reads the element back: not one)
        let declared = l.body.declared_arrays();
        for (position, stmt) in l.body.stmts.iter().enumerate() {
            let Stmt::Store {
                array,
                index: at,
                value: Operand::Var(value),
            } = stmt
            else {
                continue;
            };
            if stores.get(array) != Some(&1)
                || declared.contains(array)
                || !plan.plain_stores.contains(array)
                || at.tokens.to_string() != index
            {
                continue;
            }
            let info = &func.vars[*value];
            let defined = l.body.stmts[..position].iter().any(|s| {
                matches!(s, Stmt::Let { var, init: Some(rhs), .. } if var == value && costly(rhs))
            });
            if defined && info.kind == Kind::Float && !info.is_cell() {
                reloads.insert(*value, (*array, at.clone()));
            }
        }
    }
    reloads
}

/// The costly values of the branches of the `if`s that run once a call (in
/// the function body, through other `if`s) or once an iteration of a fused
/// loop (in its body, likewise), each with its slot (`Plan::branch_saves`):
/// a bundle adjustment's rotation computes `sin_cos` of the angle in the
/// branch away from zero, and its adjoint ran it again to reverse the
/// branch.
fn branch_saves(
    func: &Func,
    names: &Names,
    fused: &HashMap<usize, Fused>,
) -> HashMap<VarId, Ident> {
    type InPlace = HashMap<String, Vec<(VarId, crate::fuse::ExitAdjoint)>>;
    // (`replayed`: false in a branch reversed where it runs, in `in_place`
    // (`Fused::in_place`), whose values are not computed again)
    fn in_branch(
        func: &Func,
        names: &Names,
        block: &Block,
        replayed: bool,
        in_place: Option<&InPlace>,
        saves: &mut HashMap<VarId, Ident>,
    ) {
        for stmt in &block.stmts {
            match stmt {
                Stmt::Let {
                    var,
                    init: Some(rhs),
                    ..
                } if replayed
                    && costly(rhs)
                    && func.vars[*var].kind == Kind::Float
                    && !func.vars[*var].is_cell() =>
                {
                    let of = &func.vars[*var].ident;
                    saves.insert(*var, names.fresh_for("__ad_saved_", of));
                }
                Stmt::If { .. } => in_if(func, names, stmt, in_place, saves),
                _ => {}
            }
        }
    }
    // an `if`'s branches, replayed unless in `in_place`
    fn in_if(
        func: &Func,
        names: &Names,
        stmt: &Stmt,
        in_place: Option<&InPlace>,
        saves: &mut HashMap<VarId, Ident>,
    ) {
        let Stmt::If {
            decision,
            then_,
            else_,
            ..
        } = stmt
        else {
            return;
        };
        let replayed = !in_place.is_some_and(|set| set.contains_key(&decision.to_string()));
        in_branch(func, names, then_, replayed, in_place, saves);
        in_branch(func, names, else_, replayed, in_place, saves);
    }
    // the `if`s of a block that runs once (the body, a fused loop's body)
    fn in_once(
        func: &Func,
        names: &Names,
        block: &Block,
        in_place: Option<&InPlace>,
        fused: &HashMap<usize, Fused>,
        saves: &mut HashMap<VarId, Ident>,
    ) {
        for stmt in &block.stmts {
            match stmt {
                Stmt::If { .. } => in_if(func, names, stmt, in_place, saves),
                Stmt::Loop(l) if fused.contains_key(&l.id) => in_once(
                    func,
                    names,
                    &l.body,
                    Some(&fused[&l.id].in_place),
                    fused,
                    saves,
                ),
                _ => {}
            }
        }
    }
    let mut saves = HashMap::new();
    in_once(func, names, &func.body, None, fused, &mut saves);
    saves
}
