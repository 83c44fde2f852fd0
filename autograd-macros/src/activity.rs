//! Analyses of the IR that decide what the reverse sweep does.
//!
//! - *Varied*: the value depends, to first order, on an active parameter.
//! - *Useful*: the returned value depends on it.
//!   Only variables both varied and useful get an adjoint.
//! - *Needed*: the reverse sweep reads the value (a rule's argument, a
//!   condition, an index, an integer). A loop-carried value that is needed
//!   at an iteration's entry is saved on a tape in the forward sweep; one
//!   that is not (an accumulator `s += ..`) costs nothing.
//!
//! All three are flow-insensitive fixed points over the SSA variables, so
//! loops need no special treatment.

use crate::ir::{Block, CallArg, Callee, Func, Header, Kind, Operand, Origin, Rhs, Stmt, VarId};
use std::collections::HashSet;

/// The result of the analyses, indexed by [`VarId`].
pub struct Activity {
    varied: Vec<bool>,
    useful: Vec<bool>,
    needed: Vec<bool>,
}

impl Activity {
    /// Does `var` carry a derivative the reverse sweep must propagate?
    pub fn needs_adjoint(&self, var: VarId) -> bool {
        self.varied[var] && self.useful[var]
    }

    /// Does `var` depend on an active parameter (whether or not it reaches
    /// the output)? In a Hessian-vector product such a value carries a
    /// tangent.
    pub fn varied(&self, var: VarId) -> bool {
        self.varied[var]
    }

    /// Does the reverse sweep read the value of `var`?
    pub fn needed(&self, var: VarId) -> bool {
        self.needed[var]
    }

    fn operand_needs_adjoint(&self, op: &Operand) -> bool {
        matches!(op, Operand::Var(v) if self.needs_adjoint(*v))
    }
}

/// Runs the analyses over `func`.
pub fn analyze(func: &Func) -> Activity {
    let n = func.vars.len();
    let mut defs: Vec<Option<&Rhs>> = vec![None; n];
    let mut updates: Vec<(VarId, &Operand)> = Vec::new();
    let mut returned = Vec::new();
    func.body.walk(0, &mut |stmt, _| match stmt {
        Stmt::Let {
            var,
            init: Some(rhs),
            ..
        } => defs[*var] = Some(rhs),
        // For the analyses, a store is an update of the whole array.
        Stmt::Update { cell, value }
        | Stmt::Store {
            array: cell, value, ..
        } => updates.push((*cell, value)),
        Stmt::Return {
            value: Operand::Var(v),
            ..
        } => returned.push(*v),
        _ => {}
    });

    // Varied: forward to a fixed point.
    let mut varied = vec![false; n];
    for (id, var) in func.vars.iter().enumerate() {
        if let Origin::Param { active: true, .. } = var.origin {
            varied[id] = var.kind != Kind::Other;
        }
    }
    let is_var_varied = |op: &Operand, varied: &[bool]| matches!(op, Operand::Var(v) if varied[*v]);
    loop {
        let mut changed = false;
        for id in 0..n {
            if varied[id] || func.vars[id].kind == Kind::Other {
                continue;
            }
            let now = match defs[id] {
                Some(Rhs::Prim { prim, .. }) if prim.zero_derivative => false,
                Some(Rhs::Load { array, .. }) => varied[*array],
                Some(rhs) => {
                    rhs.operands()
                        .into_iter()
                        .any(|op| is_var_varied(op, &varied))
                        || rhs.arrays().into_iter().any(|a| varied[a])
                }
                None => false,
            };
            if now {
                varied[id] = true;
                changed = true;
            }
        }
        for (cell, value) in &updates {
            if !varied[*cell]
                && func.vars[*cell].kind != Kind::Other
                && is_var_varied(value, &varied)
            {
                varied[*cell] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }

    // Useful: backward to a fixed point.
    let mut useful = vec![false; n];
    for v in returned {
        useful[v] = true;
    }
    loop {
        let mut changed = false;
        let mut mark = |v: VarId, useful: &mut Vec<bool>| {
            if !useful[v] {
                useful[v] = true;
                changed = true;
            }
        };
        for id in 0..n {
            if !(useful[id] && varied[id]) {
                continue;
            }
            match defs[id] {
                Some(Rhs::Load { array, .. }) => mark(*array, &mut useful),
                Some(rhs) => {
                    for op in rhs.operands() {
                        if let Operand::Var(v) = op {
                            mark(*v, &mut useful);
                        }
                    }
                    for array in rhs.arrays() {
                        mark(array, &mut useful);
                    }
                }
                None => {}
            }
        }
        for (cell, value) in &updates {
            if useful[*cell] {
                if let Operand::Var(v) = value {
                    mark(*v, &mut useful);
                }
            }
        }
        if !changed {
            break;
        }
    }

    let mut activity = Activity {
        varied,
        useful,
        needed: vec![false; n],
    };
    activity.needed = needed(func, &defs, &activity);
    activity
}

/// Which values the reverse sweep reads, directly or to recompute a value
/// it reads.
fn needed(func: &Func, defs: &[Option<&Rhs>], activity: &Activity) -> Vec<bool> {
    let n = func.vars.len();
    let mut needed = vec![false; n];
    // Integers and other constants are cheap and may index or branch.
    for (id, var) in func.vars.iter().enumerate() {
        needed[id] = var.kind == Kind::Other;
    }
    let mark_op = |op: &Operand, needed: &mut Vec<bool>| match op {
        Operand::Var(v) => needed[*v] = true,
        Operand::Const(c) => c.uses.iter().for_each(|u| needed[*u] = true),
    };
    seed(&func.body, activity, &mut needed, &mark_op);
    // What a local array holds is read back by its loads: values stored into
    // an array whose loads are needed are needed too.
    let mut stored: Vec<(VarId, &Operand)> = Vec::new();
    func.body.walk(0, &mut |stmt, _| {
        if let Stmt::Store { array, value, .. } = stmt {
            stored.push((*array, value));
        }
    });
    // The cell of an `if` holds what its branches give it (`if c { 1.5 }
    // else { u }` as a value): the values given to a needed one are needed
    // too (a replay of the `if` reads them). A loop's cells are not: what
    // reads a loop cell after the loop gets its exit value (saved, or the
    // replay of the loop), and its values inside come through the entry
    // versions the body reads.
    let mut loop_cells: HashSet<VarId> = HashSet::new();
    func.body.walk(0, &mut |stmt, _| {
        if let Stmt::Loop(l) = stmt {
            loop_cells.extend(l.carried.iter().map(|c| c.cell));
        }
    });
    let mut updates: Vec<(VarId, &Operand)> = Vec::new();
    func.body.walk(0, &mut |stmt, _| {
        if let Stmt::Update { cell, value } = stmt {
            if !loop_cells.contains(cell) {
                updates.push((*cell, value));
            }
        }
    });
    // But a loop nested in a construct runs again in that construct's
    // replay, and what it computes there (the values its own reverse saves
    // and replays, its exit values) must be what the forward sweep
    // computed: when one of its cells is needed, so is every value from
    // outside the loop that its updates are computed from (the entry of an
    // outer loop's cell `s` in `t = g(t) + 0.25 * s`).
    let nested_inputs = nested_loop_inputs(func, defs);
    let mut needed_arrays = vec![false; n];
    // A needed value is recomputed from its operands: they are needed too.
    loop {
        let mut changed = false;
        for (cell, inputs) in &nested_inputs {
            if needed[*cell] {
                for &v in inputs {
                    if !needed[v] {
                        needed[v] = true;
                        changed = true;
                    }
                }
            }
        }
        for (cell, value) in &updates {
            if needed[*cell] {
                let reads: Vec<VarId> = match value {
                    Operand::Var(v) => vec![*v],
                    Operand::Const(c) => c.uses.clone(),
                };
                for v in reads {
                    if !needed[v] {
                        needed[v] = true;
                        changed = true;
                    }
                }
            }
        }
        for id in 0..n {
            // An array read whole (a call's argument) is needed like one read by a load.
            if needed[id] && func.vars[id].kind == Kind::FloatArray && !needed_arrays[id] {
                needed_arrays[id] = true;
                changed = true;
            }
            if needed[id] {
                if let Some(Rhs::Load { array, .. }) = defs[id] {
                    if !needed_arrays[*array] {
                        needed_arrays[*array] = true;
                        changed = true;
                    }
                }
            }
            if needed_arrays[id] {
                let mut reads: Vec<VarId> = Vec::new();
                if let Some(rhs) = defs[id] {
                    for op in rhs.operands() {
                        match op {
                            Operand::Var(v) => reads.push(*v),
                            Operand::Const(c) => reads.extend(c.uses.iter().copied()),
                        }
                    }
                    for source in rhs.arrays() {
                        if !needed_arrays[source] {
                            needed_arrays[source] = true;
                            changed = true;
                        }
                    }
                }
                for (array, value) in &stored {
                    if *array == id {
                        match value {
                            Operand::Var(v) => reads.push(*v),
                            Operand::Const(c) => reads.extend(c.uses.iter().copied()),
                        }
                    }
                }
                for v in reads {
                    if !needed[v] {
                        needed[v] = true;
                        changed = true;
                    }
                }
            }
        }
        for id in 0..n {
            if !needed[id] {
                continue;
            }
            let mut reads = Vec::new();
            match defs[id] {
                Some(Rhs::Load { index, .. }) => reads.extend(index.uses.iter().copied()),
                Some(Rhs::Call { callee, args }) => reads.extend(call_reads(callee, args)),
                Some(rhs) => {
                    for op in rhs.operands() {
                        match op {
                            Operand::Var(v) => reads.push(*v),
                            Operand::Const(c) => reads.extend(c.uses.iter().copied()),
                        }
                    }
                }
                None => {}
            }
            for v in reads {
                if !needed[v] {
                    needed[v] = true;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    needed
}

/// For each cell of a loop nested in a construct: the variables from
/// outside the loop that the values its updates write are computed from,
/// through the definitions inside the loop (its entry versions and the
/// cells of loops inside it included).
fn nested_loop_inputs(func: &Func, defs: &[Option<&Rhs>]) -> Vec<(VarId, Vec<VarId>)> {
    // (depth 0: a statement of the function body)
    let mut nested: Vec<&crate::ir::Loop> = Vec::new();
    func.body.walk(0, &mut |stmt, depth| {
        if let (Stmt::Loop(l), 1..) = (stmt, depth) {
            nested.push(l);
        }
    });
    let mut result = Vec::new();
    for l in nested {
        let mut inside: HashSet<VarId> = l.carried.iter().map(|c| c.cell).collect();
        inside.extend(l.carried.iter().map(|c| c.entry));
        let mut cell_updates: Vec<(VarId, &Operand)> = Vec::new();
        if let Header::Range { index, .. } = &l.header {
            inside.insert(*index);
        }
        l.body.walk(0, &mut |s, _| match s {
            Stmt::Let { var, .. } => {
                inside.insert(*var);
            }
            Stmt::Update { cell, value } => cell_updates.push((*cell, value)),
            Stmt::Loop(inner) => {
                if let Header::Range { index, .. } = &inner.header {
                    inside.insert(*index);
                }
            }
            _ => {}
        });
        for carried in &l.carried {
            let mut inputs: Vec<VarId> = Vec::new();
            let mut seen: HashSet<VarId> = HashSet::new();
            let mut work: Vec<VarId> = cell_updates
                .iter()
                .filter(|(c, _)| *c == carried.cell)
                .flat_map(|(_, value)| operand_reads(value))
                .collect();
            while let Some(v) = work.pop() {
                if !seen.insert(v) {
                    continue;
                }
                if !inside.contains(&v) {
                    inputs.push(v);
                    continue;
                }
                if let Some(rhs) = defs[v] {
                    for op in rhs.operands() {
                        work.extend(operand_reads(op));
                    }
                    work.extend(rhs.arrays());
                    match rhs {
                        Rhs::Load { array, index } => {
                            work.push(*array);
                            work.extend(index.uses.iter().copied());
                        }
                        Rhs::Call { callee, args } => work.extend(call_reads(callee, args)),
                        _ => {}
                    }
                }
                // a cell inside: what its updates write
                work.extend(
                    cell_updates
                        .iter()
                        .filter(|(c, _)| *c == v)
                        .flat_map(|(_, value)| operand_reads(value)),
                );
            }
            result.push((carried.cell, inputs));
        }
    }
    result
}

fn operand_reads(op: &Operand) -> Vec<VarId> {
    match op {
        Operand::Var(v) => vec![*v],
        Operand::Const(c) => c.uses.clone(),
    }
}

fn seed(
    block: &Block,
    activity: &Activity,
    needed: &mut Vec<bool>,
    mark_op: &dyn Fn(&Operand, &mut Vec<bool>),
) {
    block.walk(0, &mut |stmt, _| match stmt {
        Stmt::Let {
            var,
            init: Some(rhs),
            ..
        } => match rhs {
            Rhs::Load { index, .. } => index.uses.iter().for_each(|u| needed[*u] = true),
            // The callee's adjoint reads every argument again.
            Rhs::Call { callee, args } if activity.needs_adjoint(*var) => call_reads(callee, args)
                .into_iter()
                .for_each(|u| needed[u] = true),
            Rhs::Prim { prim, args, .. } if activity.needs_adjoint(*var) => {
                for op in args {
                    if let Operand::Const(c) = op {
                        c.uses.iter().for_each(|u| needed[*u] = true);
                    }
                }
                // what the partials of the operands that need adjoints read
                // (`prim::partial_reads`: `exp` its result, `sin` its
                // argument, `mul` the other operand)
                let active = |i: usize| {
                    activity.operand_needs_adjoint(&args[i])
                        && !(prim.arity == crate::prim::Arity::PowI && i == 1)
                };
                let (read, result) = crate::prim::partial_reads(prim, args.len(), &active);
                for i in read {
                    mark_op(&args[i], needed);
                }
                if result {
                    needed[*var] = true;
                }
            }
            _ => {}
        },
        Stmt::Store { index, .. } => index.uses.iter().for_each(|u| needed[*u] = true),
        Stmt::If { cond, .. } => cond.uses.iter().for_each(|u| needed[*u] = true),
        Stmt::Loop(l) => {
            if let Header::Range { range, .. } = &l.header {
                range.uses.iter().for_each(|u| needed[*u] = true);
            }
        }
        _ => {}
    });
}

/// The variables a call reads: its arguments (and the receiver).
pub fn call_reads(callee: &Callee, args: &[CallArg]) -> Vec<VarId> {
    let mut reads = Vec::new();
    if let Callee::Method { receiver, .. } = callee {
        reads.extend(receiver.uses.iter().copied());
    }
    for arg in args {
        match arg {
            CallArg::Float(Operand::Var(v)) => reads.push(*v),
            CallArg::Float(Operand::Const(c)) | CallArg::Const(c) => {
                reads.extend(c.uses.iter().copied())
            }
            CallArg::Array { array, range, .. } => {
                reads.push(*array);
                if let Some(range) = range {
                    reads.extend(range.uses.iter().copied());
                }
            }
        }
    }
    reads
}

/// Refuses calls given, by `&mut`, a float array that holds values
/// depending on a differentiated input where the call is made
/// (`std::mem::swap(&mut u, &mut next)`, `scale_in_place(&mut u, 3.0)`):
/// the callee may change the array where the reverse sweep cannot follow,
/// and the gradient would miss the change (it did, silently, until
/// 2026-11-28). A buffer filled by a helper before anything differentiated
/// is stored into it (`fill_grid(&mut xs)`) is still passed.
pub fn refuse_changes_by_calls(cx: &crate::ctxt::Ctxt, func: &Func, activity: &Activity) {
    let mut holding = HashSet::new();
    refuse_in_block(cx, func, activity, &func.body, &mut holding);
}

/// [`refuse_changes_by_calls`] over `block`, in program order; `holding`:
/// the arrays that hold varied values by then (a loop's stores count from
/// its start: a later iteration's call sees them).
fn refuse_in_block(
    cx: &crate::ctxt::Ctxt,
    func: &Func,
    activity: &Activity,
    block: &Block,
    holding: &mut HashSet<VarId>,
) {
    let varied_operand = |op: &Operand| matches!(op, Operand::Var(v) if activity.varied(*v));
    for stmt in &block.stmts {
        match stmt {
            Stmt::Let {
                var,
                init: Some(rhs),
                ..
            } => {
                if let Rhs::Call { callee, args } = rhs {
                    refuse_call(cx, func, callee, args, holding);
                }
                if func.vars[*var].kind == Kind::FloatArray && activity.varied(*var) {
                    let varied_init = match rhs {
                        Rhs::Array(crate::ir::ArrayInit::Fill { .. }) => false,
                        Rhs::Array(crate::ir::ArrayInit::List { items, .. }) => {
                            items.iter().any(varied_operand)
                        }
                        Rhs::Array(crate::ir::ArrayInit::Copy { source, .. }) => {
                            holding.contains(source) || activity.varied(*source)
                        }
                        _ => true,
                    };
                    if varied_init {
                        holding.insert(*var);
                    }
                }
            }
            Stmt::Store { array, value, .. } if varied_operand(value) => {
                holding.insert(*array);
            }
            Stmt::If { then_, else_, .. } => {
                let mut other = holding.clone();
                refuse_in_block(cx, func, activity, then_, holding);
                refuse_in_block(cx, func, activity, else_, &mut other);
                holding.extend(other);
            }
            Stmt::Loop(l) => {
                l.body.walk(0, &mut |s, _| {
                    if let Stmt::Store { array, value, .. } = s {
                        if varied_operand(value) {
                            holding.insert(*array);
                        }
                    }
                });
                refuse_in_block(cx, func, activity, &l.body, holding);
            }
            _ => {}
        }
    }
}

/// Reports the call `callee(args)` if it is given, by `&mut`, an array in
/// `holding`.
fn refuse_call(
    cx: &crate::ctxt::Ctxt,
    func: &Func,
    callee: &Callee,
    args: &[CallArg],
    holding: &HashSet<VarId>,
) {
    let changed: Vec<(&proc_macro2::TokenStream, &syn::Ident)> = args
        .iter()
        .filter_map(|arg| match arg {
            CallArg::Array { array, tokens, .. } if by_mut(tokens) && holding.contains(array) => {
                Some((tokens, &func.vars[*array].ident))
            }
            _ => None,
        })
        .collect();
    let Some((first, name)) = changed.first() else {
        return;
    };
    let called = match callee {
        Callee::Path { path, .. } => path.to_string().replace(' ', ""),
        Callee::Method { method, .. } => method.to_string(),
    };
    let names: Vec<String> = changed.iter().map(|(_, n)| format!("`{n}`")).collect();
    cx.error_spanned_by(
        first,
        format!(
            "`{called}` is given {} by `&mut`, so it may change values that depend on a \
             differentiated input: `#[differentiable]` cannot follow a change made inside \
             another function, and the gradient would miss it. Make the change in this \
             function: assign elements (`{name}[i] = ..`), or replace the whole buffer \
             (`{name} = other.clone();`; to swap two buffers, `({name}, other) = (other, \
             {name});` or `std::mem::swap(&mut {name}, &mut other);`); or give the helper `&{name}` and have \
             it return the new values",
            names.join(" and ")
        ),
    );
}

/// Whether a call argument is written `&mut ..`.
pub(crate) fn by_mut(tokens: &proc_macro2::TokenStream) -> bool {
    let mut trees = tokens.clone().into_iter();
    matches!(
        (trees.next(), trees.next()),
        (
            Some(proc_macro2::TokenTree::Punct(amp)),
            Some(proc_macro2::TokenTree::Ident(word)),
        ) if amp.as_char() == '&' && word == "mut"
    )
}
