//! The reverse sweep: the adjoint's body is the forward sweep (the user's
//! computation, one named value per operation, saving what the plan says)
//! followed by the reverse sweep (one adjoint update per operation that
//! needs it, in reverse order). Adjoints are plain `f64` locals; array
//! adjoints are written straight into the caller's `d_<p>` buffers. Local
//! partial derivatives come from `::autograd::__private::rules`, the same
//! table the tape uses.
//!
//! Control flow is reversed by *replay*: the reverse of an `if` re-runs the
//! branch that was taken (its values are SSA, so it recomputes the same
//! ones), then reverses it; the reverse of a loop walks the iterations
//! backwards and, for each, restores the loop-carried values the iteration
//! needs (saved on a tape in the forward sweep, only when needed), replays
//! the body, then reverses it. Every block's reverse is emitted right after
//! (a replay of) its forward code, in the same Rust scope, so it can read
//! every value the block computed.

use super::plan::{loop_key, Plan, SavedExits};
use super::primal::{adjoint_call, let_type, operand, primal_rhs, rule_partials};
use crate::activity::Activity;
use crate::counters::{Counter, Point};
use crate::fuse::Fused;
use crate::ir::{
    ArrayInit, Block, CallArg, Callee, Func, Header, Jump, Kind, Operand, Origin, Rhs, Stmt, VarId,
};
use crate::names::{Names, Role};
use crate::record::{Keep, Nest};
use crate::signature::Signature;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use std::collections::{HashMap, HashSet};
use syn::Ident;

/// How a block's forward code is being emitted.
#[derive(Clone, Copy)]
struct Mode {
    /// Loops directly in this block save what their reverse needs. True
    /// where the block's reverse follows without another replay: the
    /// function body and every replay.
    record: bool,
    /// A replay in the reverse sweep: statement macros and effects are not
    /// run again.
    replay: bool,
    /// Emitted inside the Rust loop of the innermost IR loop, so `break` and
    /// `continue` are emitted as they are (in a replay they are dropped:
    /// nothing follows a jump in its block).
    native_loop: bool,
    /// What loops with saved exit values (`Plan::exits`) do here.
    exits: Exits,
    /// Inside a recorded nest (`record.rs`): each block ends by recording
    /// the values its reverse takes back.
    store: bool,
}

/// What a loop whose exit values are saved (`Plan::exits`) does where it is
/// emitted: in the body of the loop around it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Exits {
    /// Runs (a forward sweep that is not recording).
    Run,
    /// Runs, then saves its cells' values (the recording forward sweep).
    Save,
    /// Does not run: its cells take their saved values (a replay).
    Restore,
}

/// Builds the shared body of `f_adjoint` and `f_grad` in reverse mode: it
/// reads the user's parameters, `d_out`, and writes into the `d_<p>`
/// adjoint arguments.
pub(super) struct Body<'a> {
    sig: &'a Signature,
    func: &'a Func,
    activity: &'a Activity,
    names: &'a Names,
    /// Adjoint locals declared so far.
    declared: HashSet<VarId>,
    /// Cells whose adjoint the reverse sweep has just set to zero (the
    /// reverse of `cell = v`), with no code since that could have added to
    /// it: the next contribution sets it (`d_cell = a`) instead of adding
    /// to the zero (`d_cell += a`). In a loop carrying `p = p * x + c` the
    /// addition of `0.0` was on the chain from one iteration's adjoint to
    /// the next: a multiply and an add a step where a hand-written
    /// gradient has a multiply. (`0.0 + a` is `a` but for the sign of a
    /// zero, as in `find_increments`; first order only.) Emptied around
    /// every statement that emits code of its own blocks or calls.
    zeroed: HashSet<VarId>,
    /// While a loop body is replayed in its reverse: that loop's cells whose
    /// entry values are not restored. Updating them would compute values
    /// nothing reads (a loop-carried chain LLVM may keep), so it is skipped.
    dead_cells: HashSet<VarId>,
    /// The cells of the fused loops (`fused_loop`) whose body is being
    /// emitted: their forward code goes on after each iteration's reverse,
    /// so a replay there that assigns one of them leaves in it what the
    /// next iteration reads, and none of its loops is left out
    /// (`replay_is_dead`).
    fused_cells: HashSet<VarId>,
    /// While the body of a loop that only accumulates is replayed for its
    /// reverse in the forward order (`reverse_loop`): that body, and the
    /// loop's accumulators, whose values its reverse does not read
    /// (`replay_is_dead`).
    replaying_sums: Option<(*const Block, HashSet<VarId>)>,
    /// Calls whose partials the forward code computed (`call_with_partials`).
    forward_partials: HashSet<VarId>,
    /// In the function body or a fused loop's body: the calls whose
    /// adjoint the forward code calls in place of the callee, with the
    /// result's adjoint known there (`early_calls`).
    early_calls: HashMap<VarId, Early>,
    /// The calls made early (`early_call`): their reverse does nothing.
    called_early: HashSet<VarId>,
    /// In a fused loop's body: the `if`s reversed where they run
    /// (`Fused::in_place`), by decision name, each cell that needs an
    /// adjoint with that adjoint (`exit_adjoint`).
    in_place: HashMap<String, Vec<(VarId, TokenStream)>>,
    /// The definitions reversed with a branch reversed in place
    /// (`if_in_place`, what `sunk_before` sinks into it): their reverse ran
    /// in the forward sweep, so no later reverse adds their loads' sums
    /// (`merge_loads`).
    reversed_in_place: HashSet<VarId>,
    /// While a loop's body is replayed by its own reverse
    /// (`reverse_loop`): its values read back from the arrays they were
    /// stored in (`Plan::reloads`).
    reloading: HashSet<VarId>,
    /// What was decided before emitting (`plan.rs`).
    plan: Plan,
    /// Forward-over-reverse (`#[differentiable(hessian)]`, `second.rs`):
    /// the same sweep on `Dual`s. Every varied value and every adjoint is
    /// a `Dual`; parameter arrays are read with their directions `v_<p>`
    /// and their adjoints split into `d_<p>` and `hv_<p>`; rules come
    /// from `__private::dual::rules`; calls go to `g_hvp_adjoint`.
    second: bool,
    /// While a recorded nest (`record.rs`) is emitted: its top loop's id.
    nest: Option<usize>,
    /// Loads whose adjoint goes into a local sum first (`merge_loads`,
    /// `hoist_loads`), with, for the load reversed last, the addition of
    /// the sum into the array's adjoint.
    merged_loads: HashMap<VarId, (Ident, Option<TokenStream>)>,
    /// Increments of an element (`a[i] += e`, see `find_increments`): the
    /// loads of the element, whose adjoint is not taken, and the stored
    /// sums, whose store keeps the element's adjoint.
    increment_loads: HashSet<VarId>,
    increment_sums: HashSet<VarId>,
    /// While the body of a loop of a recorded nest is emitted: the tapes
    /// that only its own statements push onto (or, reversed, take from),
    /// each with the cursor that does it (`loop_cursors`).
    cursors: HashMap<String, Ident>,
    /// While the body of a loop of a recorded nest is emitted: the arrays
    /// whose stores in it are undone as one span (`Plan::spans`), whose
    /// stores are plain assignments there.
    spanned: HashSet<VarId>,
    /// Under a vector-valued function's `f_adjoint`: where its returned
    /// vector goes as it is bound (`super::Keep`).
    keep: Option<&'a super::Keep<'a>>,
    /// The `Vec` buffers the body of a fused loop declares at its top
    /// (`let mut logits = vec![0.0; c];` per sample), used through slices
    /// (`views.rs`): each iteration runs its forward and its reverse before
    /// the next, so one buffer before the loop, refilled every iteration,
    /// and one for its adjoint, zeroed every iteration, serve them all
    /// (`fused_loop_code`), where the user's code allocates one an
    /// iteration and the adjoint another.
    fused_pools: HashMap<VarId, crate::record::Pool>,
}

impl<'a> Body<'a> {
    /// `second`: the same body on `Dual`s (forward over reverse).
    pub(super) fn new(
        sig: &'a Signature,
        func: &'a Func,
        activity: &'a Activity,
        names: &'a Names,
        second: bool,
    ) -> Self {
        Body {
            sig,
            func,
            activity,
            names,
            declared: HashSet::new(),
            zeroed: HashSet::new(),
            dead_cells: HashSet::new(),
            fused_cells: HashSet::new(),
            replaying_sums: None,
            forward_partials: HashSet::new(),
            early_calls: HashMap::new(),
            called_early: HashSet::new(),
            in_place: HashMap::new(),
            reversed_in_place: HashSet::new(),
            reloading: HashSet::new(),
            plan: Plan::new(func, activity, names, &sig.d_out, second),
            second,
            nest: None,
            merged_loads: HashMap::new(),
            increment_loads: HashSet::new(),
            increment_sums: HashSet::new(),
            cursors: HashMap::new(),
            spanned: HashSet::new(),
            keep: None,
            fused_pools: HashMap::new(),
        }
    }

    /// The same body, handing out the returned vector of a vector-valued
    /// function as its forward code binds it (`super::Keep`).
    pub(super) fn keeping(mut self, keep: Option<&'a super::Keep<'a>>) -> Self {
        self.keep = keep;
        self
    }

    /// The type of adjoints: `f64`, or `Dual` in a second-order body.
    fn scalar(&self) -> TokenStream {
        if self.second {
            quote!(::autograd::__private::Dual)
        } else {
            quote!(f64)
        }
    }

    /// The zero adjoint.
    fn zero(&self) -> TokenStream {
        if self.second {
            quote!(::autograd::__private::Dual::constant(0.0))
        } else {
            quote!(0.0)
        }
    }

    /// Holds a `Dual` in a second-order body (it depends on an active
    /// parameter); everything else keeps its `f64` type.
    fn is_dual(&self, var: VarId) -> bool {
        self.second && self.activity.varied(var)
    }

    /// The two buffers a loop of [`Func::swaps`] swaps element by element,
    /// when it can run as an exchange of the buffers themselves
    /// (`std::mem::swap(&mut a, &mut b)`, and of their adjoints in the
    /// reverse sweep): a time step's `cur` and `next` swapped as the user
    /// wrote it, for no pass over either (the element loop and its reverse
    /// were two passes a step, a 2-D heat equation's ratio to its
    /// hand-written gradient growing with the grid).
    ///
    /// Every access to an array goes through its name, and after either
    /// swap each name holds what the other held: the contents seen through
    /// `a` and `b` are the same at every point of both sweeps, so every
    /// analysis, made on the element loop, holds of the exchange. What the
    /// exchange also needs is what Rust checks of it: two buffers of one
    /// type living as long as each other (both declared in the function's
    /// body, both `Vec`s or both slices of one, `views.rs`, adjoints alike:
    /// neither in a pool) and no copy of either saved by position (no undo
    /// tape, span or record: their stores are plain assignments,
    /// `Plan::plain_stores`).
    fn swapped_buffers(&self, l: &crate::ir::Loop) -> Option<(VarId, VarId)> {
        let &(a, b) = self.func.swaps.get(&l.id)?;
        let plan = &self.plan;
        let plain = |v: VarId| {
            plan.plain_stores.contains(&v)
                && !plan.undo.contains_key(&v)
                && !self.spanned.contains(&v)
                && !plan.recording.shapes.contains_key(&v)
                && !plan.recording.pools.contains_key(&v)
                && !self.fused_pools.contains_key(&v)
        };
        let in_body = |v: VarId| {
            self.func
                .body
                .stmts
                .iter()
                .any(|s| matches!(s, Stmt::Let { var, .. } if *var == v))
        };
        let alike = self.func.vars[a].view == self.func.vars[b].view
            && self.is_dual(a) == self.is_dual(b)
            && self.activity.needs_adjoint(a) == self.activity.needs_adjoint(b);
        let plain_loop = !plan.fused.contains_key(&l.id)
            && !plan.recording.nests.contains_key(&l.id)
            && !plan.exits.contains_key(&l.id)
            && !plan.resets.contains_key(&l.id)
            && plan.loop_tapes.get(&l.id).map_or(true, |t| t.is_empty());
        (plain(a) && plain(b) && in_body(a) && in_body(b) && alike && plain_loop).then_some((a, b))
    }

    /// `tokens`, which read `uses`, with every `Dual` scalar among them
    /// rebound to its value first (`{ let x = x.v; tokens }`): a value
    /// that does not depend on an active parameter though it reads one (a
    /// step function, a condition, `(x * 4.0) as usize`) is computed on
    /// `f64`s as in `f`. The tokens themselves outside a second-order body.
    fn values_of_duals(&self, uses: Vec<VarId>, tokens: TokenStream) -> TokenStream {
        if !self.second {
            return tokens;
        }
        super::primal::values_of_duals(self.func, uses, tokens, &|v| self.is_dual(v))
    }

    /// An operand where a `Dual` is expected: itself if it is one, else
    /// lifted (`Dual::from(2.0)`).
    fn dual_operand(&self, op: &Operand) -> TokenStream {
        match op {
            Operand::Var(v) if self.is_dual(*v) => self.ident(*v).to_token_stream(),
            _ => super::second::lift(&self.operand(op)),
        }
    }

    /// The element type of a local float array or cell `var`.
    fn elem(&self, var: VarId) -> TokenStream {
        if self.is_dual(var) {
            quote!(::autograd::__private::Dual)
        } else {
            quote!(f64)
        }
    }

    /// The body of `f_adjoint` (and of `f_grad`), its inner loops reading
    /// arrays through rows checked once (`rows.rs`).
    pub(super) fn emit(mut self) -> TokenStream {
        let body = self.sweeps();
        let pool = super::primal::slot_pool_declaration(self.names);
        super::rows::check_rows_once(quote!(#pool #body), &self.arrays(), self.names)
    }

    /// The names of the arrays the body indexes, for `rows.rs`: the
    /// function's float arrays and their adjoints.
    fn arrays(&self) -> super::rows::Arrays {
        let mut arrays = super::rows::Arrays::default();
        for (id, var) in self.func.vars.iter().enumerate() {
            if var.kind != Kind::FloatArray {
                continue;
            }
            let name = var.ident.to_string();
            match var.origin {
                Origin::Param { index, active } => {
                    if !self.sig.params[index].mutable {
                        arrays.shared.insert(name.clone());
                    }
                    if active {
                        arrays.sliceable.insert(self.array_adjoint(id).to_string());
                    }
                }
                _ => {
                    arrays.sliceable.insert(self.adjoint(id).to_string());
                }
            }
            arrays.sliceable.insert(name);
        }
        arrays
    }

    /// The forward sweep, with recording, then the reverse sweep.
    fn sweeps(&mut self) -> TokenStream {
        let stmts = &self.func.body.stmts;
        let (value, span) = match stmts.last() {
            Some(Stmt::Return { value, span }) => (Some(value), *span),
            _ => (None, Span::call_site()),
        };
        // Reused `Record`s, by element type, declared together at the end
        // (`records`).
        let mut records: Vec<(Ident, TokenStream)> = Vec::new();
        let mut tapes: Vec<TokenStream> = Vec::new();
        for (tape, cell) in &self.plan.tapes {
            // (a float cell's tape is a reused `Record`; a `Dual` or an
            // integer one a reused `OwnTape` of the cell's type)
            match self.func.vars[*cell].kind == Kind::Float && !self.is_dual(*cell) {
                true => records.push((tape.clone(), quote!(f64))),
                false => tapes.push(quote!(let mut #tape = ::autograd::__private::OwnTape::new();)),
            }
        }
        let mut undo: Vec<(&VarId, &Ident)> = self.plan.undo.iter().collect();
        undo.sort();
        for (array, tape) in undo {
            let elem = self.elem(*array);
            let entry = match self.plan.indexed_undo.contains(array) {
                true => quote!((usize, #elem)),
                false => elem,
            };
            tapes.push(match self.is_dual(*array) {
                true => quote!(let mut #tape: ::std::vec::Vec<#entry> = ::std::vec::Vec::new();),
                false => {
                    records.push((tape.clone(), entry));
                    continue;
                }
            });
        }
        let loops: Vec<usize> = self.func.loops().iter().map(|l| l.id).collect();
        for id in loops {
            for (_, _, _, marks) in self.plan.construct_stores(&loop_key(id)) {
                records.push((marks.clone(), quote!(usize)));
            }
        }
        let mut nests: Vec<(&usize, &Nest)> = self.plan.recording.nests.iter().collect();
        nests.sort_by_key(|(id, _)| **id);
        for (_, nest) in nests {
            let (floats, decisions) = (&nest.floats, &nest.decisions);
            if nest.has_floats {
                records.push((floats.clone(), quote!(f64)));
            }
            if nest.has_decisions {
                records.push((decisions.clone(), quote!(bool)));
            }
            for record in nest.args.iter().chain(&nest.partials) {
                records.push((record.clone(), quote!(f64)));
            }
        }
        let mut shapes: Vec<(&VarId, &crate::record::Shaped)> =
            self.plan.recording.shapes.iter().collect();
        shapes.sort_by_key(|(array, _)| **array);
        for (_, shaped) in shapes {
            let tape = &shaped.tape;
            // (typed by its pushes; reused from call to call like a cell's
            // tape, so a `Vec`'s lengths do not grow it anew every call)
            tapes.push(quote!(let mut #tape = ::autograd::__private::OwnTape::new();));
            if let Some(pool) = &shaped.adjoint_pool {
                tapes.push(quote!(let mut #pool: ::std::vec::Vec<f64> = ::std::vec::Vec::new();));
            }
        }
        let mut pools: Vec<(&VarId, &crate::record::Pool)> =
            self.plan.recording.pools.iter().collect();
        pools.sort_by_key(|(array, _)| **array);
        for (_, pool) in pools {
            for pool in std::iter::once(&pool.forward).chain(&pool.adjoint) {
                tapes.push(quote!(let mut #pool: ::std::vec::Vec<f64> = ::std::vec::Vec::new();));
            }
        }
        let mut own: Vec<(&VarId, &Ident)> = self
            .plan
            .recording
            .keep
            .iter()
            .filter_map(|(var, keep)| match keep {
                Keep::Own(tape) => Some((var, tape)),
                _ => None,
            })
            .collect();
        own.sort();
        for (_, tape) in own {
            tapes.push(quote!(let mut #tape = ::autograd::__private::OwnTape::new();));
        }
        let mut exits: Vec<&SavedExits> = self.plan.exits.values().collect();
        exits.sort_by_key(|e| e.cells[0].0);
        for saved in exits {
            for (cell, array) in &saved.cells {
                let (elem, zero) = if self.is_dual(*cell) {
                    (self.scalar(), self.zero())
                } else {
                    (quote!(f64), quote!(0.0))
                };
                tapes.push(match saved.len {
                    Some(len) => {
                        let len = proc_macro2::Literal::usize_unsuffixed(len);
                        quote!(let mut #array: [#elem; #len] = [#zero; #len];)
                    }
                    None if !self.is_dual(*cell) => {
                        records.push((array.clone(), elem));
                        continue;
                    }
                    None => quote!(let mut #array = ::autograd::__private::Record::<#elem>::new();),
                });
            }
        }
        let (declared, give_back) = self.declare_records(records);
        tapes.extend(declared);
        let mut saves: Vec<(&VarId, &Ident)> = self.plan.branch_saves.iter().collect();
        saves.sort();
        for (_, slot) in saves {
            tapes.push(quote!(let mut #slot: f64 = 0.0;));
        }
        let top = Mode {
            record: true,
            replay: false,
            native_loop: false,
            exits: Exits::Run,
            store: false,
        };
        if !self.second {
            let d_out = self.sig.d_out.to_token_stream();
            let none = HashSet::new();
            self.early_calls = early_calls(
                self.func,
                self.activity,
                &self.func.body,
                &none,
                &|stmt, v| {
                    matches!(stmt, Stmt::Return { value: Operand::Var(r), .. } if *r == v)
                        .then(|| d_out.clone())
                },
            );
        }
        let forward = self.forward(&self.func.body, top);
        self.early_calls.clear();
        let Some(value) = value else {
            // The body never returns a value (it diverges, or has an error
            // rustc reports on the original function).
            return quote!(#(#tapes)* #(#forward)*);
        };
        let (mut setup, value_tokens) = match value {
            // (A second-order body returns a `Dual`, also for a value that
            // does not depend on an active parameter.)
            Operand::Var(v) if self.second && !self.is_dual(*v) => (
                Vec::new(),
                super::second::lift(&self.ident(*v).to_token_stream()),
            ),
            Operand::Var(v) => (Vec::new(), self.ident(*v).to_token_stream()),
            Operand::Const(c) => {
                let tokens = &c.tokens;
                let value = self.names.fresh("__ad_value");
                let (scalar, tokens) = match self.second {
                    true => (self.scalar(), super::second::lift(tokens)),
                    false => (quote!(f64), tokens.clone()),
                };
                (
                    vec![quote_spanned!(span=> let #value: #scalar = #tokens;)],
                    quote!(#value),
                )
            }
        };
        // Scalar parameters used inside nested blocks accumulate from the start.
        let params: Vec<VarId> = (0..self.func.vars.len())
            .filter(|&id| {
                let var = &self.func.vars[id];
                matches!(var.origin, Origin::Param { active: true, .. })
                    && var.kind == Kind::Float
                    && self.activity.needs_adjoint(id)
            })
            .collect();
        for &p in &params {
            // (A fused loop may have declared it already.)
            if self.plan.eager.contains(&p) && self.declared.insert(p) {
                let adjoint = self.adjoint(p);
                let (scalar, zero) = (self.scalar(), self.zero());
                setup.push(quote!(let mut #adjoint: #scalar = #zero;));
            }
        }
        // Reverse sweep: seed the output's adjoint with `d_out`, then walk
        // the body backwards.
        let mut reverse = Vec::new();
        if let Operand::Var(v) = value {
            if self.activity.needs_adjoint(*v) {
                let d_out = &self.sig.d_out;
                self.contribute(&mut reverse, *v, quote!(#d_out));
            }
        }
        reverse.extend(self.reverse(&self.func.body));
        // Scalar parameters' adjoints go to the caller once, at the end.
        let mut flush = Vec::new();
        for p in params {
            if self.declared.contains(&p) {
                let adjoint = self.array_adjoint(p);
                let local = self.adjoint(p);
                flush.push(quote!(*#adjoint += #local;));
            }
        }
        quote! {
            #(#tapes)*
            #(#forward)*
            #(#setup)*
            #(#reverse)*
            #(#flush)*
            #(#give_back)*
            #value_tokens
        }
    }

    /// The declarations of the adjoint's records (`name`, element type):
    /// those of one type taken together from a `thread_local!` home of
    /// the adjoint's own (`__private::RecordsHome`: one access to it a
    /// call, where taking each from a thread-wide pool and giving it back
    /// cost a small helper's adjoint a third of its instructions), held as
    /// locals (through references, they cost a product's inner loop a
    /// register); and the statements that give them back to the home
    /// (`RecordsGuard::give_back`) once the reverse sweep is done.
    fn declare_records(
        &self,
        records: Vec<(Ident, TokenStream)>,
    ) -> (Vec<TokenStream>, Vec<TokenStream>) {
        let mut groups: Vec<(String, TokenStream, Vec<Ident>)> = Vec::new();
        for (name, elem) in records {
            let key = elem.to_string();
            match groups.iter_mut().find(|(k, _, _)| *k == key) {
                Some((_, _, names)) => names.push(name),
                None => groups.push((key, elem, vec![name])),
            }
        }
        groups
            .into_iter()
            .map(|(_, elem, names)| {
                let (home, guard) = (
                    self.names.fresh("__ad_home"),
                    self.names.fresh("__ad_guard"),
                );
                let n = proc_macro2::Literal::usize_unsuffixed(names.len());
                let indices = (0..names.len()).map(proc_macro2::Literal::usize_unsuffixed);
                let declare = quote! {
                    ::std::thread_local! {
                        #[allow(non_upper_case_globals)]
                        static #home: ::autograd::__private::RecordsHome<#elem, #n> =
                            const { ::autograd::__private::RecordsHome::new() };
                    }
                    let #guard = ::autograd::__private::RecordsHome::take(&#home);
                    #(let mut #names = #guard.record(#indices);)*
                };
                let give_back = quote!(#guard.give_back([#(#names),*]););
                (declare, give_back)
            })
            .unzip()
    }

    fn ident(&self, var: VarId) -> &Ident {
        &self.func.vars[var].ident
    }

    /// The fixed adjoint of an accumulator's cell at every iteration of a
    /// loop that only accumulates (fused or reversed in forward order):
    /// `__ad_seed_<name>`.
    fn seed(&self, cell: VarId) -> Ident {
        self.names.derived(Role::Seed, cell, self.ident(cell))
    }

    /// The adjoint local of a float variable: `__ad_d_<name>`.
    fn adjoint(&self, var: VarId) -> Ident {
        self.names.derived(Role::Adjoint, var, self.ident(var))
    }

    fn operand(&self, op: &Operand) -> TokenStream {
        operand(self.func, op)
    }

    /// The declaration of the adjoint of local float array `var`: zeros
    /// shaped like it. The adjoint of a buffer used through a slice
    /// (`views.rs`) is one too, for the same reason: indexed through the
    /// `Vec`, its length is a load from the stack that LLVM cannot prove
    /// unchanged, so `d_q[row]` kept a bounds check that `q[row]` did not
    /// (the mixture's reverse triangular product).
    fn declare_array_adjoint(&self, var: VarId) -> TokenStream {
        let (array, adjoint) = (self.ident(var), self.adjoint(var));
        // (a buffer a fused loop's body declares: zeroed in its pool)
        if let Some(pool) = self.fused_pools.get(&var).and_then(|p| p.adjoint.as_ref()) {
            return quote! {
                let mut #adjoint = ::autograd::__private::zeros_in(
                    &mut #pool,
                    ::autograd::__private::shape_of(&#array),
                );
            };
        }
        // (an array a recorded nest declares, out of scope here: zeros of
        // its shape, taken back at the start of its block's reverse)
        let zeros = match self.plan.recording.shapes.get(&var) {
            Some(shaped) => {
                let shape = &shaped.shape;
                // (a buffer's: zeroed in its pool, `record::Pool`)
                let pool = self.plan.recording.pools.get(&var);
                if let Some(pool) = pool.and_then(|p| p.adjoint.as_ref()) {
                    return quote! {
                        let #adjoint = ::autograd::__private::zeros_in(&mut #pool, #shape);
                    };
                }
                // (another's: zeroed in a pool if a `Vec`, `Shaped::adjoint_pool`)
                if let Some(pool) = &shaped.adjoint_pool {
                    return quote! {
                        let mut #adjoint = ::autograd::__private::zeros_pooled(&mut #pool, #shape);
                    };
                }
                quote!(::autograd::__private::zeros_of(#shape))
            }
            // (a fresh allocation, not a spare buffer of the thread: LLVM
            // knows it aliases nothing, which the loops over it need; taken
            // from the thread's spare buffers, they cost the nested table's
            // mixture 4–11%, its LSTM 9–13%, the stencil 8%)
            // (a table of costly values, `lower/tabulate.rs`: a spare
            // buffer, as the table is, which only its loads add into)
            None if self.func.tables.get(&var).is_some_and(|t| t.spare) && !self.second => {
                quote!(::autograd::__private::Scratch::zeros(#array.len()))
            }
            None => quote!(::autograd::__private::zeros_like(&#array)),
        };
        if self.func.vars[var].view && !self.second {
            let owner = self.names.derived(Role::AdjointOwner, var, array);
            let swapped = self.func.swapped(var).then(|| quote!(mut));
            quote!(let mut #owner = #zeros; let #swapped #adjoint = &mut #owner[..];)
        } else {
            quote!(let mut #adjoint = #zeros;)
        }
    }

    // ----- forward sweep ---------------------------------------------------

    fn forward(&mut self, block: &Block, mode: Mode) -> Vec<TokenStream> {
        let mut out = Vec::new();
        let early = mode.store && self.floats_recorded_early(block);
        for (position, stmt) in block.stmts.iter().enumerate() {
            // a branch's costly value: kept in its slot as it is computed,
            // read from it by the replay (`Plan::branch_saves`)
            let saved = match stmt {
                Stmt::Let { var, .. } => self
                    .plan
                    .branch_saves
                    .get(var)
                    .map(|slot| (slot.clone(), self.ident(*var).clone())),
                _ => None,
            };
            if let (Some((slot, ident)), true) = (&saved, mode.replay) {
                out.push(quote!(let #ident: f64 = #slot;));
                continue;
            }
            // a costly value stored at the loop's index, read back by the
            // replay of its own loop's reverse (`Plan::reloads`)
            if let Stmt::Let { var, .. } = stmt {
                if mode.replay && self.reloading.contains(var) {
                    let (array, index) = &self.plan.reloads[var];
                    let (ident, array, index) =
                        (self.ident(*var), self.ident(*array), &index.tokens);
                    out.push(quote!(let #ident: f64 = #array[#index];));
                    continue;
                }
            }
            // a returned vector handed out as it is bound (`super::Keep`)
            let kept = match (self.keep, stmt) {
                (Some(keep), Stmt::Let { var, .. }) => {
                    keep.after_let(self.func, *var, self.ident(*var))
                }
                _ => None,
            };
            match stmt {
                Stmt::Let {
                    var,
                    ty,
                    init: Some(Rhs::Call { callee, args }),
                } if mode.record && !mode.replay && self.early_calls.contains_key(var) => {
                    out.extend(self.early_call(*var, ty.as_ref(), callee, args));
                }
                Stmt::Let {
                    var,
                    ty,
                    init: Some(Rhs::Call { callee, args }),
                } if mode.record && !mode.replay && self.partials_in_forward(*var, args) => {
                    out.extend(self.call_with_partials(*var, ty.as_ref(), callee, args));
                }
                // in a recorded nest, its partials pushed on the nest's
                // record of them, which the reverse pops (`reverse_call`)
                Stmt::Let {
                    var,
                    ty,
                    init: Some(Rhs::Call { callee, args }),
                } if mode.store
                    && self.nest_takes_partials()
                    && self.partials_in_forward(*var, args) =>
                {
                    out.extend(self.call_with_partials(*var, ty.as_ref(), callee, args));
                    let partials = self.varied_partials(*var, args);
                    let nest = &self.plan.recording.nests[&self.nest.expect("in a nest")];
                    let record = nest.partials.as_ref().expect("a nest with calls");
                    out.push(quote!(#record.extend_from_slice(&[#(#partials),*]);));
                }
                // a buffer a recorded nest or a fused loop's body declares:
                // refilled in its pool (`record::Pool`, `fused_pools`)
                Stmt::Let {
                    var,
                    init: Some(Rhs::Array(init)),
                    ..
                } if self.pool_of(*var, mode).is_some() => {
                    let pool = self.pool_of(*var, mode).expect("checked");
                    out.push(self.refill(*var, &pool, init));
                    if mode.store {
                        out.extend(self.record_declaration(*var));
                    }
                }
                Stmt::Let { var, ty, init } => {
                    out.push(self.let_stmt(*var, ty.as_ref(), init.as_ref()));
                    // the unannotated result of a call whose adjoint the
                    // reverse takes for a number: if it is an array, say so
                    // at the binding (`__private::CallResultIsANumber`)
                    if let (Some(Rhs::Call { .. }), None, false, false) =
                        (init, ty, self.second, mode.replay)
                    {
                        if self.func.vars[*var].kind == Kind::Float
                            && self.activity.needs_adjoint(*var)
                        {
                            let ident = self.ident(*var);
                            out.push(quote_spanned! {ident.span()=>
                                ::autograd::__private::assume_number(&#ident);
                            });
                        }
                    }
                    if mode.store {
                        out.extend(self.record_declaration(*var));
                    }
                }
                Stmt::Update { cell, value } => {
                    if mode.replay && self.dead_cells.contains(cell) {
                        continue;
                    }
                    let value = match self.is_dual(*cell) {
                        true => self.dual_operand(value),
                        false => self.operand(value),
                    };
                    let cell = self.ident(*cell);
                    out.push(quote!(#cell = #value;));
                }
                Stmt::Store {
                    array,
                    index,
                    value,
                } if self.plan.plain_stores.contains(array) || self.spanned.contains(array) => {
                    let value = match self.is_dual(*array) {
                        true => self.dual_operand(value),
                        false => self.operand(value),
                    };
                    let (array, index) = (self.ident(*array), &index.tokens);
                    out.push(quote!(#array[#index] = #value;));
                }
                Stmt::Store {
                    array,
                    index,
                    value,
                } => {
                    // The store saves what it overwrites, for the reverse sweep.
                    let undo = &self.plan.undo[array];
                    let value = match self.is_dual(*array) {
                        true => self.dual_operand(value),
                        false => self.operand(value),
                    };
                    let tape = self.pushes_to(undo);
                    let indexed = self.plan.indexed_undo.contains(array);
                    let (array, index) = (self.ident(*array), &index.tokens);
                    let i = self.names.fresh("__ad_i");
                    let entry = match indexed {
                        true => quote!((#i, #array[#i])),
                        false => quote!(#array[#i]),
                    };
                    out.push(quote! {
                        {
                            let #i: usize = #index;
                            #tape.push(#entry);
                            #array[#i] = #value;
                        }
                    });
                }
                Stmt::Opaque { tokens, replay } => {
                    if !mode.replay || *replay {
                        out.push(tokens.clone());
                    }
                }
                Stmt::If { decision, .. }
                    if !mode.replay && self.in_place.contains_key(&decision.to_string()) =>
                {
                    out.extend(self.if_in_place(block, position, mode));
                }
                Stmt::If {
                    decision,
                    cond,
                    then_,
                    else_,
                } => {
                    // Loops in a branch are replayed with it, so record nothing now.
                    let branch = Mode {
                        record: false,
                        ..mode
                    };
                    let then_code = self.forward(then_, branch);
                    let else_code = self.forward(else_, branch);
                    let cond = &self.values_of_duals(cond.uses.clone(), cond.tokens.clone());
                    let marks = self
                        .plan
                        .construct_stores(&decision.to_string())
                        .into_iter()
                        .map(|(_, undo, _, mark)| quote!(let #mark: usize = #undo.len();));
                    let marks: Vec<TokenStream> = marks.collect();
                    out.push(quote! {
                        #(#marks)*
                        let #decision: bool = #cond;
                        if #decision { #(#then_code)* } else { #(#else_code)* }
                    });
                }
                // A recorded nest is a loop of the function body, whose
                // forward code is emitted once.
                Stmt::Loop(l)
                    if self.plan.recording.nests.contains_key(&l.id)
                        && mode.record
                        && !mode.replay =>
                {
                    let outer = self.nest.replace(l.id);
                    let recorded = Mode {
                        record: false,
                        replay: false,
                        native_loop: false,
                        exits: Exits::Run,
                        store: true,
                    };
                    out.push(self.forward_loop(l, recorded));
                    self.nest = outer;
                }
                // Only loops in the function body are fused, and its forward
                // code is emitted once, recording (the guard is that).
                Stmt::Loop(l)
                    if self.plan.fused.contains_key(&l.id) && mode.record && !mode.replay =>
                {
                    out.push(self.fused_loop(l));
                }
                Stmt::Loop(l) if self.plan.exits.contains_key(&l.id) => {
                    let saved = &self.plan.exits[&l.id];
                    let outer = self.ident(saved.outer_index);
                    let start = &saved.start;
                    let slot = match start.to_string().as_str() {
                        "0" => quote!(#outer as usize),
                        _ => quote!((#outer - (#start)) as usize),
                    };
                    let heap = saved.len.is_none();
                    let cells: Vec<(Ident, Ident)> = saved
                        .cells
                        .iter()
                        .map(|(cell, array)| (self.ident(*cell).clone(), array.clone()))
                        .collect();
                    if mode.exits == Exits::Restore {
                        for (cell, array) in &cells {
                            out.push(quote!(#cell = #array[#slot];));
                        }
                        continue;
                    }
                    out.push(self.forward_loop(l, mode));
                    if mode.exits == Exits::Save {
                        for (cell, array) in &cells {
                            out.push(match heap {
                                true => quote!(#array.save_at(#slot, #cell);),
                                false => quote!(#array[#slot] = #cell;),
                            });
                        }
                    }
                }
                // a replay that would compute only what nothing reads
                Stmt::Loop(l) if mode.replay && self.replay_is_dead(l, block, mode) => {}
                Stmt::Loop(l) if self.swapped_buffers(l).is_some() => {
                    let (a, b) = self.swapped_buffers(l).expect("checked");
                    let (a, b) = (self.ident(a), self.ident(b));
                    out.push(quote!(::std::mem::swap(&mut #a, &mut #b);));
                }
                Stmt::Loop(l) => {
                    out.push(self.forward_loop(l, mode));
                    if mode.store {
                        out.extend(self.copy_hoisted(l));
                    }
                }
                Stmt::Jump(jump) => {
                    if mode.native_loop {
                        out.push(match jump {
                            Jump::Break => quote!(break;),
                            Jump::Continue => quote!(continue;),
                        });
                    }
                }
                Stmt::Return { .. } => {}
            }
            // a recorded float pushed as soon as it is defined, and taken
            // from the push (`Record::push` gives it back: nothing stays
            // live across the call its growing path makes)
            if let (true, Stmt::Let { var, .. }) = (early, stmt) {
                if self.plan.recording.keep.get(var) == Some(&Keep::Float) {
                    let nest = &self.plan.recording.nests[&self.nest.expect("in a nest")];
                    let (record, value) = (self.pushes_to(&nest.floats), self.ident(*var));
                    out.push(quote!(let #value = #record.push(#value);));
                }
            }
            out.extend(kept);
            if let Some((slot, ident)) = saved {
                out.push(quote!(#slot = #ident;));
            }
        }
        if mode.store {
            out.extend(self.record(block, early));
        }
        out
    }

    /// Whether each of `block`'s recorded floats can be pushed right after
    /// it is defined instead of at the block's end: when no statement after
    /// the first of them records floats of its own (a nested loop or branch),
    /// the record holds them in the same order either way. Pushed at the
    /// end, a float stays live across what follows, and across a call
    /// (`s.tanh()` after the sum `s`) LLVM may keep it, and the loop that
    /// computed it, in memory: a product's inner sum ran at half speed.
    fn floats_recorded_early(&self, block: &Block) -> bool {
        let keep = &self.plan.recording.keep;
        let first = block.stmts.iter().position(
            |s| matches!(s, Stmt::Let { var, .. } if keep.get(var) == Some(&Keep::Float)),
        );
        let Some(first) = first else {
            return false;
        };
        block.stmts[first..].iter().all(|s| match s {
            Stmt::Loop(l) => !records_floats(&l.body, keep),
            Stmt::If { then_, else_, .. } => {
                !records_floats(then_, keep) && !records_floats(else_, keep)
            }
            _ => true,
        })
    }

    /// `let var [: ty] [= init];` as the forward sweep computes it.
    fn let_stmt(&self, var: VarId, ty: Option<&TokenStream>, init: Option<&Rhs>) -> TokenStream {
        let ident = self.ident(var);
        let var_info = &self.func.vars[var];
        let is_array = matches!(init, Some(Rhs::Array(_)));
        let mutability = (var_info.is_cell() || is_array || var_info.in_place).then(|| quote!(mut));
        if self.is_dual(var) && var_info.kind != Kind::Other {
            let (ty, init) = self.dual_let(var, ty, init);
            return quote!(let #mutability #ident #ty #init;);
        }
        let ty = let_type(ty, init);
        let init = init.map(|rhs| {
            let value = primal_rhs(self.func, rhs);
            let value = self.values_of_duals(rhs_reads(rhs), value);
            quote!(= #value)
        });
        super::primal::let_binding(
            self.func,
            self.names,
            self.second,
            var,
            mutability,
            ty,
            init,
        )
    }

    /// The end of `block` in a recorded nest: its values that the reverse
    /// takes back (`record.rs`), in order, and its recorded decisions
    /// (its floats only if they were not pushed as they were defined).
    fn record(&self, block: &Block, floats_pushed: bool) -> Vec<TokenStream> {
        let nest = &self.plan.recording.nests[&self.nest.expect("inside a recorded nest")];
        let (floats, own, decisions) = self.recorded_in(block);
        let mut out = Vec::new();
        let record = self.pushes_to(&nest.floats);
        let floats = if floats_pushed { Vec::new() } else { floats };
        match floats.as_slice() {
            [] => {}
            [one] => out.push(quote!(#record.push(#one);)),
            many => out.push(quote!(#record.extend_from_slice(&[#(#many),*]);)),
        }
        for (var, tape) in own {
            out.push(quote!(#tape.push(#var.clone());));
        }
        let record = self.pushes_to(&nest.decisions);
        match decisions.as_slice() {
            [] => {}
            [one] => out.push(quote!(#record.push(#one);)),
            many => out.push(quote!(#record.extend_from_slice(&[#(#many),*]);)),
        }
        // the arrays it declares that its reverse takes back whole, after
        // what its calls and nested blocks pushed there
        for array in self.restored_in(block) {
            let args = nest.args.as_ref().expect("a nest that restores arrays");
            out.push(quote!(#args.extend_from_slice(&#array[..]);));
        }
        // the `Vec`s it declares taken out of their pools, moved back
        // (`record::owned_buffers`)
        for stmt in &block.stmts {
            if let Stmt::Let { var, .. } = stmt {
                if let Some(pool) = self.plan.recording.pools.get(var) {
                    if !self.func.vars[*var].view {
                        let (pool, ident) = (&pool.forward, self.ident(*var));
                        out.push(quote!(#pool = #ident;));
                    }
                }
            }
        }
        out
    }

    /// The arrays `block` declares (not its nested blocks) that the reverse
    /// of their block takes back whole (`record::Keep::Restored`).
    fn restored_in(&self, block: &Block) -> Vec<Ident> {
        block
            .stmts
            .iter()
            .filter_map(|stmt| match stmt {
                Stmt::Let { var, .. }
                    if self.plan.recording.keep.get(var) == Some(&Keep::Restored) =>
                {
                    Some(self.ident(*var).clone())
                }
                _ => None,
            })
            .collect()
    }

    /// What `block` records (not its nested blocks): its floats, its
    /// values with a tape of their own, its decisions.
    fn recorded_in(&self, block: &Block) -> (Vec<Ident>, Vec<(Ident, Ident)>, Vec<Ident>) {
        let (mut floats, mut own, mut decisions) = (Vec::new(), Vec::new(), Vec::new());
        let recording = &self.plan.recording;
        for stmt in &block.stmts {
            match stmt {
                Stmt::Let { var, .. } => match recording.keep.get(var) {
                    Some(Keep::Float) => floats.push(self.ident(*var).clone()),
                    Some(Keep::Own(tape)) => own.push((self.ident(*var).clone(), tape.clone())),
                    _ => {}
                },
                Stmt::If { decision, .. }
                    if recording.decisions.contains(&decision.to_string()) =>
                {
                    decisions.push(decision.clone())
                }
                _ => {}
            }
        }
        (floats, own, decisions)
    }

    /// The reverse of `block` in a recorded nest: its recorded values taken
    /// back, the values it recomputes, then its reverse (nothing when it
    /// has no reverse work).
    fn reverse_recorded_block(&mut self, block: &Block) -> Vec<TokenStream> {
        let reverse = self.reverse(block);
        let nest = &self.plan.recording.nests[&self.nest.expect("inside a recorded nest")];
        let (floats, own, decisions) = self.recorded_in(block);
        let mut out = Vec::new();
        let take = |record: &Ident, names: &[Ident], ty: TokenStream| match names {
            [] => None,
            [one] => {
                let value = self.take_one(record);
                Some(quote!(let #one: #ty = #value;))
            }
            many => {
                let n = proc_macro2::Literal::usize_unsuffixed(many.len());
                let values = self.take_n(record);
                Some(quote!(let [#(#many),*]: [#ty; #n] = #values;))
            }
        };
        out.extend(take(&nest.floats, &floats, quote!(f64)));
        out.extend(take(&nest.decisions, &decisions, quote!(bool)));
        for (var, tape) in own {
            out.push(quote!(let #var = ::autograd::__private::pop(&mut #tape);));
        }
        // the shapes of the arrays the block declares (`record::Shaped`)
        for stmt in &block.stmts {
            if let Stmt::Let { var, .. } = stmt {
                if let Some(shaped) = self.plan.recording.shapes.get(var) {
                    let (shape, tape) = (&shaped.shape, &shaped.tape);
                    out.push(quote!(let #shape = ::autograd::__private::pop_shape(&mut #tape);));
                }
            }
        }
        // the arrays whose reverse reads only their length: their shapes
        // under their names (`record::Keep::Length`)
        for stmt in &block.stmts {
            if let Stmt::Let { var, .. } = stmt {
                if self.plan.recording.keep.get(var) == Some(&Keep::Length) {
                    let shape = &self.plan.recording.shapes[var].shape;
                    let ident = self.ident(*var);
                    out.push(quote!(let #ident = #shape;));
                }
            }
        }
        // the arrays taken back whole, last pushed first
        for array in self.restored_in(block).iter().rev() {
            let var = block
                .stmts
                .iter()
                .find_map(|stmt| match stmt {
                    Stmt::Let { var, .. } if self.ident(*var) == array => Some(*var),
                    _ => None,
                })
                .expect("declared by the block");
            let shape = &self.plan.recording.shapes[&var].shape;
            let args = nest.args.as_ref().expect("a nest that restores arrays");
            out.push(quote!(let #array = ::autograd::__private::restore(#shape, &mut #args);));
        }
        if reverse.is_empty() && out.is_empty() {
            return reverse;
        }
        // the values read again from the elements they were stored into
        // (their indices need nothing recomputed), then those recomputed
        for stmt in &block.stmts {
            if let Stmt::Store {
                array,
                index,
                value: Operand::Var(value),
            } = stmt
            {
                if self.plan.recording.keep.get(value) == Some(&Keep::Reload(*array)) {
                    let (value, array, index) =
                        (self.ident(*value), self.ident(*array), &index.tokens);
                    out.push(quote!(let #value: f64 = #array[#index];));
                }
            }
        }
        for stmt in &block.stmts {
            if let Stmt::Let { var, ty, init } = stmt {
                if self.plan.recording.keep.get(var) == Some(&Keep::Recompute) {
                    out.push(self.let_stmt(*var, ty.as_ref(), init.as_ref()));
                }
            }
        }
        out.extend(reverse);
        out
    }

    /// The reverse of a loop of a recorded nest: its iterations backwards,
    /// each taking its values back.
    fn reverse_recorded_loop(&mut self, l: &crate::ir::Loop) -> Option<TokenStream> {
        let Header::Range { index, range } = &l.header else {
            unreachable!("a recorded nest's loops have ranges (record::recordable)")
        };
        let (sums, additions) = self.hoist_loads(l, false);
        let cursors = self.loop_cursors(l, "__ad_taken");
        let outer_cursors = std::mem::replace(&mut self.cursors, cursors.map);
        let spans = self.spans(l);
        let spanned = spans.iter().map(|(array, ..)| *array).collect();
        let outer_spanned = std::mem::replace(&mut self.spanned, spanned);
        let inner = self.reverse_recorded_block(&l.body);
        self.spanned = outer_spanned;
        self.cursors = outer_cursors;
        // the elements the loop overwrote, restored after its reverse (which
        // reads each only as its own iteration left it)
        // (The range first: it may read the array's length, `0..u.len()`,
        // which the array's `&mut` borrow would not let it.)
        let restore_spans: Vec<TokenStream> = spans
            .iter()
            .map(|(_, array, tape, range)| {
                let elements = self.names.fresh("__ad_elements");
                quote! {
                    let #elements = #range;
                    #tape.restore_span(&mut #array[..], #elements);
                }
            })
            .collect();
        // The loop's integers counted back (`counters.rs`): the running
        // value starts at the integer after the loop; each reversed
        // iteration counts back from it, then hands it its entry value.
        let mut counters: Vec<&Counter> = self
            .plan
            .recording
            .counters
            .values()
            .filter(|c| c.loop_id == l.id)
            .collect();
        counters.sort_by_key(|c| c.cell);
        if inner.is_empty() && counters.is_empty() {
            // nothing to reverse but, for a span, the restore
            return (!restore_spans.is_empty()).then(|| quote!(#(#restore_spans)*));
        }
        let (mut declare, mut start, mut hand_back) = (Vec::new(), Vec::new(), Vec::new());
        for counter in &counters {
            let (running, exit, entry) = (
                &counter.running,
                self.ident(counter.exit),
                self.ident(counter.entry),
            );
            declare.push(quote!(let mut #running = #exit;));
            for undone in counter.chain.iter().filter(|u| u.point == Point::Start) {
                let (var, value) = (self.ident(undone.var), &undone.value);
                start.push(quote!(let #var = #value;));
            }
            hand_back.push(quote!(#running = #entry;));
        }
        // A loop that only accumulates (`fuse.rs`): its accumulators'
        // adjoints are the same at every iteration, so each reversed
        // iteration starts from them, held fixed, instead of carrying the
        // adjoint from one iteration to the next through `0.0 + d` (which
        // LLVM cannot fold: a floating-point add's latency per iteration,
        // the whole loop's time in a product's inner sum).
        // Skipped when the seeds are all 0, as a replayed one is, if its
        // iterations take nothing back (records, undo tapes, counters) that
        // the reverse of what comes before it needs taken, and if they may
        // be 0 (`Plan::vanishing`).
        let (mut hold, mut restore, mut skip) = (Vec::new(), Vec::new(), None);
        let mut in_order = false;
        if !self.second {
            if let Some(cells) = crate::fuse::accumulators_or_none(l, self.activity) {
                // Nothing carried from one reversed iteration to the next
                // (held seeds, nothing taken back, integers counted from
                // the start, no store whose reverse moves an adjoint another
                // iteration reads): the iterations are reversed in the
                // forward order, as the replayed loops that only accumulate
                // are (`reverse_loop`). A range counted up
                // is what LLVM vectorises and proves in bounds: a dot
                // product's reverse `d_w[k * p + j] += g * x[i * p + j]`
                // ran 13 instructions an element counted down, 3.3 up.
                in_order = self.plan.in_order_but_stores(l, self.activity)
                    && (crate::fuse::stores_stay_inside(&l.body)
                        || self.only_increments_outside(l))
                    && counters.iter().all(|c| counted_at_start(c))
                    && cursors.tapes.is_empty()
                    && !self.takes_back(l);
                let (seeds, holds) = self.held_seeds(&cells);
                declare.extend(seeds);
                hold = holds;
                restore.clone_from(&hold);
                // (A nest's own loop may leave what it recorded untaken:
                // its records, decisions and shape tapes are its alone, and
                // what it pushes later is taken first.)
                let nest = self.plan.recording.nests.contains_key(&l.id);
                let takes_back = match nest {
                    true => self.takes_back_from_around(l),
                    false => self.takes_back(l),
                };
                if hand_back.is_empty()
                    && !cells.is_empty()
                    && self.plan.vanishing.contains(&l.id)
                    && !takes_back
                    && !self.stores_adjoints(l)
                {
                    let seeds = cells.iter().map(|c| self.seed(*c));
                    skip = Some(quote!(#(#seeds != 0.0)||*));
                }
            }
        }
        let (index, range) = (self.ident(*index), &range.tokens);
        let iterations = match in_order {
            true => quote!(#range),
            false => quote!((#range).rev()),
        };
        // Counted up, the loop's integers run forwards too: from their
        // values at the loop's entry, which counting every iteration back
        // first gives (a loop LLVM folds into `exit - trips * step`), and
        // back to those values after it, where the reverse of the loop
        // around expects them.
        let mut around = (Vec::new(), Vec::new());
        if in_order && !counters.is_empty() {
            (start, hand_back) = (Vec::new(), Vec::new());
            for counter in &counters {
                let (running, entry) = (&counter.running, self.ident(counter.entry));
                let first = self.names.fresh("__ad_first");
                let back = counter.chain.iter().map(|undone| {
                    let (var, value) = (self.ident(undone.var), &undone.value);
                    quote!(let #var = #value;)
                });
                around.0.push(quote! {
                    for _ in #range {
                        #(#back)*
                        #running = #entry;
                    }
                    let #first = #running;
                });
                start.push(quote!(let #entry = #running;));
                for undone in counter.chain.iter().rev().skip(1) {
                    start.push(self.chain_link(l, undone.var));
                }
                let end = self.ident(counter.chain[0].var);
                hand_back.push(quote!(#running = #end;));
                around.1.push(quote!(#running = #first;));
            }
        }
        let (count_back, hand_first) = around;
        let reversed = quote! {
            #(#count_back)*
            for #index in #iterations {
                #(#hold)*
                #(#start)*
                #(#inner)*
                #(#hand_back)*
            }
            #(#hand_first)*
        };
        let reversed = match cursors.tapes.is_empty() {
            true => reversed,
            false => {
                let take = cursors
                    .tapes
                    .iter()
                    .map(|Cursor { tape, cursor, .. }| quote!(let mut #cursor = #tape.taken();));
                quote!({ #(#take)* #reversed })
            }
        };
        let reversed = match skip {
            // Counted up, LLVM sets a vectorised loop up from the indices
            // of the loops around it, and computed that (~40 instructions)
            // above the test, at every iteration around it, the skipped
            // ones too (a running minimum's losers: k-means went 1.24 →
            // 1.64× the hand-written gradient in instructions). Those
            // indices pass through `black_box` inside the test, so the
            // setup stays where the loop runs.
            Some(any) if in_order => {
                let shadows = self.enclosing_indices_read(l).into_iter().map(|index| {
                    let index = self.ident(index);
                    quote!(let #index = ::core::hint::black_box(#index);)
                });
                quote!(if #any { #(#shadows)* #reversed })
            }
            Some(any) => quote!(if #any { #reversed }),
            None => reversed,
        };
        Some(quote! {
            #(#sums)*
            #(#declare)*
            #reversed
            #(#restore_spans)*
            #(#restore)*
            #(#additions)*
        })
    }

    /// The forward definition of `var`, a value of the chain of a counted
    /// integer of loop `l` (`counters.rs`): its `let` in `l`'s body.
    fn chain_link(&self, l: &crate::ir::Loop, var: VarId) -> TokenStream {
        let definition = l.body.stmts.iter().find_map(|stmt| match stmt {
            Stmt::Let { var: v, ty, init } if *v == var => Some((ty, init)),
            _ => None,
        });
        let (ty, init) = definition.expect("a counter's chain is defined in its loop's body");
        self.let_stmt(var, ty.as_ref(), init.as_ref())
    }

    /// Whether every store of loop `l`'s body into an array declared
    /// outside it is an increment whose element keeps its adjoint
    /// (`find_increments`, which `reverse` has run on the body) and the
    /// body reads those arrays nowhere else: then each reversed iteration
    /// only reads their adjoints, which none of them changes, and the
    /// iterations can be reversed in any order (`qx[row] += q[l] * x[col]`
    /// in a triangular product).
    fn only_increments_outside(&self, l: &crate::ir::Loop) -> bool {
        let declared = l.body.declared_arrays();
        let mut incremented = HashSet::new();
        let mut nested_store = false;
        l.body.walk(1, &mut |stmt, depth| {
            if let Stmt::Store { array, value, .. } = stmt {
                if declared.contains(array) {
                    return;
                }
                let increment = matches!(value, Operand::Var(v) if self.increment_sums.contains(v));
                nested_store |= depth != 1 || !increment;
                incremented.insert(*array);
            }
        });
        if nested_store {
            return false;
        }
        let mut other_reads = false;
        l.body.walk(0, &mut |stmt, _| match stmt {
            Stmt::Let {
                var,
                init: Some(Rhs::Load { array, .. }),
                ..
            } if incremented.contains(array) => other_reads |= !self.increment_loads.contains(var),
            Stmt::Store { .. } => {}
            _ => other_reads |= stmt.reads().iter().any(|v| incremented.contains(v)),
        });
        !other_reads
    }

    /// The indices of the loops around loop `l` that its body reads, in
    /// the order of the loops, outermost first.
    fn enclosing_indices_read(&self, l: &crate::ir::Loop) -> Vec<VarId> {
        let mut read: HashSet<VarId> = HashSet::new();
        l.body.walk(0, &mut |stmt, _| read.extend(stmt.reads()));
        let mut out = Vec::new();
        for outer in self.func.loops() {
            let Header::Range { index, .. } = &outer.header else {
                continue;
            };
            let mut holds = false;
            outer.body.walk(0, &mut |stmt, _| {
                holds |= matches!(stmt, Stmt::Loop(inner) if inner.id == l.id)
            });
            if holds && read.contains(index) {
                out.push(*index);
            }
        }
        out
    }

    /// Whether the reverse of loop `l` of a recorded nest takes back
    /// anything that is not the nest's own: an undo tape's entry (the
    /// reverse of what comes before the nest reads the array as it was),
    /// an integer counted back.
    fn takes_back_from_around(&self, l: &crate::ir::Loop) -> bool {
        let recording = &self.plan.recording;
        let mut takes = false;
        l.body.walk(0, &mut |stmt, _| match stmt {
            Stmt::Store { array, .. } => takes |= !self.plan.plain_stores.contains(array),
            Stmt::Loop(inner) => {
                takes |= recording.counters.values().any(|c| c.loop_id == inner.id)
            }
            _ => {}
        });
        takes
    }

    /// Whether the reverse of loop `l` of a recorded nest takes anything
    /// back: a recorded value or decision, an undo tape's entry.
    fn takes_back(&self, l: &crate::ir::Loop) -> bool {
        let recording = &self.plan.recording;
        let mut takes = false;
        // (a call's partials and copied arguments are taken back from
        // their records too, last first: a loop whose reverse ran counting
        // up gave each iteration another's — seed 1128150302 #334)
        let takes_partials = self.nest_takes_partials();
        l.body.walk(0, &mut |stmt, _| match stmt {
            Stmt::Let { var, init, .. } => {
                takes |= matches!(recording.keep.get(var), Some(Keep::Float | Keep::Own(_)))
                    || recording.shapes.contains_key(var)
                    || recording.copies.contains_key(var)
                    || matches!(init, Some(Rhs::Call { args, .. })
                        if takes_partials && self.partials_in_forward(*var, args))
            }
            Stmt::If { decision, .. } => {
                takes |= recording.decisions.contains(&decision.to_string())
            }
            Stmt::Store { array, .. } => takes |= !self.plan.plain_stores.contains(array),
            Stmt::Loop(inner) => {
                takes |= recording.counters.values().any(|c| c.loop_id == inner.id)
            }
            _ => {}
        });
        takes
    }

    /// The values of the enclosing loop's counted integers that are known
    /// once the reverse of its nested loop `nested` has run (`counters.rs`),
    /// unless the nest keeps them otherwise.
    fn counted_after(&self, nested: usize) -> Vec<TokenStream> {
        let mut counters: Vec<&Counter> = self.plan.recording.counters.values().collect();
        counters.sort_by_key(|c| c.cell);
        let mut out = Vec::new();
        for counter in counters {
            for undone in &counter.chain {
                if undone.point == Point::After(nested)
                    && !self.plan.recording.keep.contains_key(&undone.var)
                {
                    let (var, value) = (self.ident(undone.var), &undone.value);
                    out.push(quote!(let #var = #value;));
                }
            }
        }
        out
    }

    /// For the reverse of a loop that only accumulates into `cells`: each
    /// accumulator's adjoint kept in its seed (`let __ad_seed_c = d_c;`),
    /// and the statements that give it back (`d_c = __ad_seed_c;`) at
    /// each iteration's start and after the loop.
    fn held_seeds(&self, cells: &[VarId]) -> (Vec<TokenStream>, Vec<TokenStream>) {
        let scalar = self.scalar();
        cells
            .iter()
            .map(|&cell| {
                let (d_cell, seed) = (self.adjoint(cell), self.seed(cell));
                (
                    quote!(let #seed: #scalar = #d_cell;),
                    quote!(#d_cell = #seed;),
                )
            })
            .unzip()
    }

    fn forward_loop(&mut self, l: &crate::ir::Loop, mode: Mode) -> TokenStream {
        let counter = self.counter(l.id);
        let body_mode = Mode {
            record: false,
            replay: mode.replay,
            native_loop: true,
            exits: if mode.record { Exits::Save } else { Exits::Run },
            store: mode.store,
        };
        let cursors = match mode.store {
            true => self.loop_cursors(l, "__ad_slots"),
            false => LoopCursors::default(),
        };
        let spans = match mode.store {
            true => self.spans(l),
            false => Vec::new(),
        };
        let body = self.forward_body(l, body_mode, &cursors.map, &spans);
        // the elements the loop overwrites, saved in one copy (`spans`)
        let save = spans
            .iter()
            .map(|(_, array, tape, range)| quote!(#tape.save_span(&#array[..], #range);));
        let count = l.breaks.then(|| quote!(#counter += 1;));
        let declare_counter = l.breaks.then(|| quote!(let mut #counter: usize = 0;));
        let saved = self.plan.loop_tapes.get(&l.id).cloned().unwrap_or_default();
        let (mut reserve, mut push) = (Vec::new(), Vec::new());
        if mode.record {
            for (_, undo, _, marks) in self.plan.construct_stores(&loop_key(l.id)) {
                push.push(quote!(#marks.push(#undo.len());));
            }
            for (tape, cell) in &saved {
                let cell = self.ident(*cell);
                push.push(quote!(#tape.push(#cell.clone());));
                if let Header::Range { range, .. } = &l.header {
                    let range = &range.tokens;
                    reserve.push(quote!(
                        #tape.reserve(::autograd::__private::bounded_len(&(#range)));
                    ));
                }
            }
        }
        let head = match &l.header {
            Header::Range { index, range } => {
                let (index, range) = (self.ident(*index), &range.tokens);
                quote!(for #index in #range)
            }
            Header::Infinite => quote!(loop),
        };
        let mut forward = quote! {
            #head {
                #count
                #(#push)*
                #(#body)*
            }
        };
        if let (false, Header::Range { range, .. }) = (cursors.tapes.is_empty(), &l.header) {
            // Room for the whole loop's pushes made before it: then no push
            // in the loop may call (to grow the record), and LLVM keeps the
            // loop's floats in registers rather than in memory across that
            // call (`Record::slots`).
            let range = &range.tokens;
            let slots = cursors.tapes.iter().map(|c| {
                let (tape, cursor, per_iteration) = (&c.tape, &c.cursor, c.per_iteration);
                quote! {
                    let mut #cursor = #tape.slots(
                        ::autograd::__private::room(&(#range), #per_iteration),
                    );
                }
            });
            forward = quote!({ #(#slots)* #forward });
        }
        quote! {
            #declare_counter
            #(#reserve)*
            #(#save)*
            #forward
        }
    }

    /// The forward code of loop `l`'s body, emitted with the loop's tape
    /// cursors (`loop_cursors`) and its spans' arrays (`spans`) in force.
    fn forward_body(
        &mut self,
        l: &crate::ir::Loop,
        mode: Mode,
        cursors: &HashMap<String, Ident>,
        spans: &[(VarId, Ident, Ident, TokenStream)],
    ) -> Vec<TokenStream> {
        let outer_cursors = std::mem::replace(&mut self.cursors, cursors.clone());
        let spanned = spans.iter().map(|(array, ..)| *array).collect();
        let outer_spanned = std::mem::replace(&mut self.spanned, spanned);
        let body = self.forward(&l.body, mode);
        self.spanned = outer_spanned;
        self.cursors = outer_cursors;
        body
    }

    /// The arrays loop `l` of a recorded nest undoes as one span
    /// (`Plan::spans`): each with its name, its undo tape and the loop's
    /// range.
    fn spans(&self, l: &crate::ir::Loop) -> Vec<(VarId, Ident, Ident, TokenStream)> {
        let (Some(arrays), Header::Range { range, .. }) = (self.plan.spans.get(&l.id), &l.header)
        else {
            return Vec::new();
        };
        arrays
            .iter()
            .map(|array| {
                let tape = self.plan.undo[array].clone();
                (
                    *array,
                    self.ident(*array).clone(),
                    tape,
                    range.tokens.clone(),
                )
            })
            .collect()
    }

    /// The tapes of the recorded nest that loop `l`'s own statements push
    /// onto and nothing nested in its body touches (its floats, its
    /// decisions, an undo tape without indices), each with a fresh cursor
    /// named from `prefix`. While the loop runs, or runs reversed, its
    /// cursor is the only thing using the tape: it keeps the tape's end in
    /// registers (`Record::slots`, `Record::taken`).
    fn loop_cursors(&self, l: &crate::ir::Loop, prefix: &str) -> LoopCursors {
        let mut out = LoopCursors::default();
        let Some(nest) = self.nest.map(|id| &self.plan.recording.nests[&id]) else {
            return out;
        };
        if !matches!(l.header, Header::Range { .. }) {
            return out;
        }
        let recording = &self.plan.recording;
        let is_float = |var: &VarId| recording.keep.get(var) == Some(&Keep::Float);
        let is_decision = |decision: &Ident| recording.decisions.contains(&decision.to_string());
        let spanned = self.plan.spans.get(&l.id);
        let is_bare_undo = |array: &VarId| {
            !self.plan.plain_stores.contains(array)
                && !self.plan.indexed_undo.contains(array)
                && !spanned.is_some_and(|arrays| arrays.contains(array))
        };
        // the tapes the body's own statements push onto, each with how many
        // values an iteration pushes (a statement of the body runs once an
        // iteration: a recorded nest has no `break`)
        let mut direct: Vec<(&Ident, usize)> = Vec::new();
        for stmt in &l.body.stmts {
            let tape = match stmt {
                Stmt::Let { var, .. } if is_float(var) => &nest.floats,
                Stmt::If { decision, .. } if is_decision(decision) => &nest.decisions,
                Stmt::Store { array, .. } if is_bare_undo(array) => &self.plan.undo[array],
                _ => continue,
            };
            match direct.iter_mut().find(|(t, _)| *t == tape) {
                Some((_, count)) => *count += 1,
                None => direct.push((tape, 1)),
            }
        }
        // what the constructs nested in the body push
        let mut nested: Vec<Ident> = Vec::new();
        for stmt in &l.body.stmts {
            let blocks = match stmt {
                Stmt::Loop(inner) => vec![&inner.body],
                Stmt::If { then_, else_, .. } => vec![then_, else_],
                _ => continue,
            };
            for block in blocks {
                block.walk(0, &mut |stmt, _| match stmt {
                    Stmt::Let { var, .. } if is_float(var) => nested.push(nest.floats.clone()),
                    Stmt::If { decision, .. } if is_decision(decision) => {
                        nested.push(nest.decisions.clone())
                    }
                    Stmt::Store { array, .. } => nested.extend(self.plan.undo.get(array).cloned()),
                    _ => {}
                });
            }
        }
        for (tape, per_iteration) in direct {
            if nested.contains(tape) {
                continue;
            }
            let cursor = self.names.fresh(prefix);
            out.map.insert(tape.to_string(), cursor.clone());
            out.tapes.push(Cursor {
                tape: tape.clone(),
                cursor,
                per_iteration,
            });
        }
        out
    }

    /// What pushes onto `tape` here: its cursor inside a loop that has one
    /// (`loop_cursors`), else the tape.
    fn pushes_to(&self, tape: &Ident) -> Ident {
        self.cursors.get(&tape.to_string()).unwrap_or(tape).clone()
    }

    /// The last value on `tape`, taken back.
    fn take_one(&self, tape: &Ident) -> TokenStream {
        match self.cursors.get(&tape.to_string()) {
            Some(cursor) => quote!(#cursor.pop()),
            None => quote!(::autograd::__private::pop(&mut #tape)),
        }
    }

    /// The last values on `tape` (as many as the array bound to them),
    /// taken back.
    fn take_n(&self, tape: &Ident) -> TokenStream {
        match self.cursors.get(&tape.to_string()) {
            Some(cursor) => quote!(#cursor.pop_n()),
            None => quote!(::autograd::__private::pop_n(&mut #tape)),
        }
    }

    /// A loop that only accumulates, reversed as it runs (`fuse.rs`): each
    /// iteration runs its body, then reverses it with the accumulators'
    /// adjoints, known before the loop. Nothing is saved or replayed.
    fn fused_loop(&mut self, l: &crate::ir::Loop) -> TokenStream {
        let outer = self.fused_cells.clone();
        self.fused_cells.extend(l.carried.iter().map(|c| c.cell));
        let code = self.fused_loop_code(l);
        self.fused_cells = outer;
        code
    }

    /// [`Self::fused_loop`]'s code, emitted with its cells in `fused_cells`.
    fn fused_loop_code(&mut self, l: &crate::ir::Loop) -> TokenStream {
        let Fused {
            index,
            range,
            seeds,
            in_place,
        } = &self.plan.fused[&l.id];
        let in_place: HashMap<String, Vec<(VarId, TokenStream)>> = (in_place.iter())
            .map(|(decision, cells)| {
                let cells = cells.iter().map(|(c, exit)| (*c, self.exit_adjoint(exit)));
                (decision.clone(), cells.collect())
            })
            .collect();
        let (index, range, seeds) = (*index, range.clone(), seeds.clone());
        let mut out = Vec::new();
        let mut seed_names = Vec::new();
        for (cell, expr) in &seeds {
            let seed = self.seed(*cell);
            if self.second {
                let (scalar, expr) = (self.scalar(), super::second::lift(expr));
                out.push(quote!(let #seed: #scalar = #expr;));
            } else {
                out.push(quote!(let #seed: f64 = #expr;));
            }
            seed_names.push((self.adjoint(*cell), seed));
        }
        // The adjoints of earlier values that the body adds into, declared
        // here so the rest of the reverse sweep picks up these contributions.
        for var in outer_reads(l) {
            if !self.activity.needs_adjoint(var) || self.declared.contains(&var) {
                continue;
            }
            let info = &self.func.vars[var];
            let adjoint = self.adjoint(var);
            match (info.kind, info.origin) {
                (Kind::Float, _) => {
                    let (scalar, zero) = (self.scalar(), self.zero());
                    out.push(quote!(let mut #adjoint: #scalar = #zero;));
                }
                (Kind::FloatArray, Origin::Local) => out.push(self.declare_array_adjoint(var)),
                // parameters' buffers are the caller's `d_<p>`
                _ => continue,
            }
            self.declared.insert(var);
        }
        // The buffers its body declares, in pools before the loop
        // (`fused_pools`; first order: a `Dual` buffer is not a view).
        for stmt in &l.body.stmts {
            let Stmt::Let {
                var,
                init: Some(Rhs::Array(init)),
                ..
            } = stmt
            else {
                continue;
            };
            let vec = init.is_vec();
            let info = &self.func.vars[*var];
            if !vec || self.second || self.plan.recording.pools.contains_key(var) {
                continue;
            }
            // (a `Vec` that is not used through a slice is taken out of its
            // pool and moved back at the end of the iteration: nothing may
            // move it elsewhere — a call given it by value, kept tokens)
            if !info.view && !crate::record::only_borrowed(self.func, &l.body, *var) {
                continue;
            }
            let pool = crate::record::Pool::named(
                self.names,
                &info.ident,
                self.activity.needs_adjoint(*var),
            );
            for pool in std::iter::once(&pool.forward).chain(&pool.adjoint) {
                out.push(quote!(let mut #pool: ::std::vec::Vec<f64> = ::std::vec::Vec::new();));
            }
            self.fused_pools.insert(*var, pool);
        }
        let early = match self.second {
            true => HashMap::new(),
            false => {
                let seeds: HashMap<VarId, Ident> = seeds
                    .iter()
                    .map(|(cell, _)| (*cell, self.seed(*cell)))
                    .collect();
                let entries = l.carried.iter().map(|c| c.entry).collect();
                early_calls(
                    self.func,
                    self.activity,
                    &l.body,
                    &entries,
                    &|stmt, v| match stmt {
                        Stmt::Update {
                            cell,
                            value: Operand::Var(u),
                        } if *u == v => seeds.get(cell).map(|seed| seed.to_token_stream()),
                        _ => None,
                    },
                )
            }
        };
        let outer_early = std::mem::replace(&mut self.early_calls, early);
        let outer_in_place = std::mem::replace(&mut self.in_place, in_place);
        // (what sinks into the branches reversed in place, `sunk_before`,
        // knows the increments, which the reverse sweep finds again)
        self.find_increments(&l.body);
        // Loads at an index the loop does not change (`x[i]` in a double
        // sum's inner loop): their adjoints summed in a local, added once
        // after the loop (the body's reverse runs in its own iteration, in
        // the sums' scope; so does the reverse of a branch in it).
        let (sums, additions) = self.hoist_loads(l, true);
        let outer_declared = self.declared.clone();
        self.declared.extend(seeds.iter().map(|(cell, _)| *cell));
        let mode = Mode {
            record: true,
            replay: false,
            native_loop: false,
            exits: Exits::Run,
            store: false,
        };
        let body = self.forward(&l.body, mode);
        // (the buffers taken out of their pools, moved back)
        let moved_back: Vec<TokenStream> = l
            .body
            .stmts
            .iter()
            .filter_map(|stmt| match stmt {
                Stmt::Let { var, .. } if !self.func.vars[*var].view => {
                    let pool = &self.fused_pools.get(var)?.forward;
                    let ident = self.ident(*var);
                    Some(quote!(#pool = #ident;))
                }
                _ => None,
            })
            .collect();
        let reverse = self.reverse(&l.body);
        self.early_calls = outer_early;
        self.in_place = outer_in_place;
        // What the body declared lives in its scope.
        self.declared = outer_declared;
        let (d_cells, seeds): (Vec<Ident>, Vec<Ident>) = seed_names.into_iter().unzip();
        let (index, range) = (self.ident(index), &range.tokens);
        let scalar = self.scalar();
        out.push(quote! {
            {
                #(let mut #d_cells: #scalar;)*
                #(#sums)*
                for #index in #range {
                    #(#body)*
                    #(#d_cells = #seeds;)*
                    #(#reverse)*
                    #(#moved_back)*
                }
                #(#additions)*
            }
        });
        quote!(#(#out)*)
    }

    /// `seed`, negated or not, times `factors`, multiplied in the order the
    /// reverse would: from the sum down.
    fn seeded(&self, seed: &TokenStream, negated: bool, factors: &[Operand]) -> TokenStream {
        let mut adjoint = match negated {
            true => quote!(-#seed),
            false => quote!(#seed),
        };
        for factor in factors {
            let factor = self.operand(factor);
            adjoint = quote!((#adjoint * #factor));
        }
        adjoint
    }

    /// The adjoint a cell of an `if` reversed in place has when the `if`
    /// ends (`fuse::ExitAdjoint`), from its accumulator's seed.
    fn exit_adjoint(&self, exit: &crate::fuse::ExitAdjoint) -> TokenStream {
        let seed = self.seed(exit.owner);
        self.seeded(&quote!(#seed), exit.negated, &exit.factors)
    }

    /// An `if` of a fused loop's body reversed where it runs
    /// (`Fused::in_place`): each branch's forward code, then its reverse,
    /// with the adjoints of the `if`'s cells those of the accumulators they
    /// flow into, the seeds — no replay after the rest of the iteration.
    /// The adjoints of the earlier values the branches add into are
    /// declared before it, for the rest of the iteration's reverse.
    fn if_in_place(&mut self, block: &Block, k: usize, mode: Mode) -> Vec<TokenStream> {
        let Stmt::If {
            decision,
            cond,
            then_,
            else_,
        } = &block.stmts[k]
        else {
            unreachable!("`if_in_place` is given an `if`");
        };
        let mut out = Vec::new();
        let mut defined = HashSet::new();
        let mut read = Vec::new();
        for branch in [then_, else_] {
            branch.walk(0, &mut |stmt, _| {
                if let Stmt::Let { var, .. } = stmt {
                    defined.insert(*var);
                }
                read.extend(stmt.reads());
            });
        }
        for var in read {
            let info = &self.func.vars[var];
            if defined.contains(&var)
                || info.kind != Kind::Float
                || !self.activity.needs_adjoint(var)
                || !self.declared.insert(var)
            {
                continue;
            }
            let adjoint = self.adjoint(var);
            out.push(quote!(let mut #adjoint: f64 = 0.0;));
        }
        // the statements before it whose reverse sinks into a branch's
        // (`sunk_before`), reversed at the end of that branch
        let sink = self.sunk_before(block, k);
        if let Some((_, run)) = &sink {
            self.declare_operand_adjoints(&mut out, block, run);
        }
        let cells = self.in_place[&decision.to_string()].clone();
        let branch = Mode {
            record: false,
            ..mode
        };
        let code = |this: &mut Self, branch_block: &Block, then: bool| {
            // (what the branch declares, nested `if`s reversed in place
            // included, lives in its scope)
            let outer = this.declared.clone();
            let mut code = this.forward(branch_block, branch);
            for (cell, seed) in &cells {
                let d_cell = this.adjoint(*cell);
                code.push(quote!(let mut #d_cell: f64 = #seed;));
                this.declared.insert(*cell);
            }
            code.extend(this.reverse(branch_block));
            if let Some((into_then, run)) = &sink {
                if *into_then == then {
                    this.zeroed.clear();
                    code.extend(this.reverse_statements(block, run));
                    for &p in run {
                        if let Stmt::Let { var, .. } = &block.stmts[p] {
                            this.reversed_in_place.insert(*var);
                        }
                    }
                }
            }
            this.declared = outer;
            code
        };
        let then_code = code(self, then_, true);
        let else_code = code(self, else_, false);
        let cond = &cond.tokens;
        out.push(quote! {
            let #decision: bool = #cond;
            if #decision { #(#then_code)* } else { #(#else_code)* }
        });
        out
    }

    /// The `let` of a buffer refilled in `pool`: a slice of it for a
    /// buffer used through slices (`views.rs`), else, in a fused loop's
    /// body, the pool's `Vec` itself, taken out (and moved back at the end
    /// of the iteration, `fused_loop_code`).
    fn refill(&self, var: VarId, pool: &Ident, init: &ArrayInit) -> TokenStream {
        let ident = self.ident(var);
        let owned = !self.func.vars[var].view;
        let (fill, from) = match owned {
            true => (quote!(take_filled), quote!(take_from)),
            false => (quote!(refill), quote!(refill_from)),
        };
        let refill = match init {
            ArrayInit::Fill { value, len, .. } => {
                let value = &value.tokens;
                quote!(::autograd::__private::#fill(&mut #pool, #value, #len))
            }
            ArrayInit::List { items, .. } => {
                let items = items.iter().map(|i| self.operand(i));
                quote!(::autograd::__private::#from(&mut #pool, &[#(#items),*]))
            }
            ArrayInit::Copy { source, .. } => {
                let source = self.ident(*source);
                quote!(::autograd::__private::#from(&mut #pool, &#source[..]))
            }
        };
        match owned {
            true => quote!(let mut #ident = #refill;),
            false => quote!(let #ident = #refill;),
        }
    }

    /// The pool a buffer declared by `let var = vec![..];` is refilled in
    /// where `mode` runs it: in a recorded nest's forward sweep
    /// (`record::Pool`), or in a fused loop's body (`fused_pools`).
    fn pool_of(&self, var: VarId, mode: Mode) -> Option<Ident> {
        match self.fused_pools.get(&var) {
            Some(pool) => Some(pool.forward.clone()),
            None if mode.store => self
                .plan
                .recording
                .pools
                .get(&var)
                .map(|p| p.forward.clone()),
            None => None,
        }
    }

    /// The type annotation and initializer of `let var [: ty] [= init];`
    /// in a second-order body, where `var` holds a `Dual` (or an array of
    /// them): `: Dual = Dual::from(value)` for a scalar (its value may be a
    /// constant), the user's array type with `Dual` elements for an array.
    fn dual_let(
        &self,
        var: VarId,
        ty: Option<&TokenStream>,
        init: Option<&Rhs>,
    ) -> (Option<TokenStream>, Option<TokenStream>) {
        let dual = quote!(::autograd::__private::Dual);
        let value = init.map(|rhs| match rhs {
            // A vector-valued callee's value, with its tangent: no
            // derivatives wanted yet (an empty `d_out`).
            Rhs::Call { callee, args } if self.func.vars[var].kind == Kind::FloatArray => {
                let slots: Vec<Option<TokenStream>> = args.iter().map(|_| None).collect();
                super::second::hvp_call(
                    self.func,
                    self.sig,
                    self.activity,
                    self.names,
                    callee,
                    args,
                    quote!(&[]),
                    &slots,
                )
            }
            _ => super::second::dual_rhs(self.func, self.sig, self.activity, self.names, rhs),
        });
        match self.func.vars[var].kind {
            Kind::Float => (
                Some(quote!(: #dual)),
                value.map(|v| {
                    // (Only a copy may be an `f64`: anything else that
                    // depends on an active parameter is a `Dual` already.)
                    let v = match init {
                        Some(Rhs::Use(op)) => self.dual_operand(op),
                        _ => v,
                    };
                    quote!(= #v)
                }),
            ),
            _ => (
                let_type(ty, init).map(super::second::f64_to_dual),
                value.map(|v| quote!(= #v)),
            ),
        }
    }

    // ----- reverse sweep ---------------------------------------------------

    fn reverse(&mut self, block: &Block) -> Vec<TokenStream> {
        let mut out = Vec::new();
        self.merge_loads(block, &mut out);
        self.find_increments(block);
        // Adjoints that nested blocks contribute to exist from the start.
        for stmt in &block.stmts {
            if let Stmt::Let { var, .. } = stmt {
                let var = *var;
                if !self.plan.eager.contains(&var) || !self.activity.needs_adjoint(var) {
                    continue;
                }
                let adjoint = self.adjoint(var);
                let kind = self.func.vars[var].kind;
                if kind == Kind::Float && self.declared.insert(var) {
                    let (scalar, zero) = (self.scalar(), self.zero());
                    out.push(quote!(let mut #adjoint: #scalar = #zero;));
                } else if kind == Kind::FloatArray && self.declared.insert(var) {
                    out.push(self.declare_array_adjoint(var));
                }
            }
        }
        // The statements whose reverse moves into a branch's (`sunk_before`).
        let sunk: HashMap<usize, (bool, Vec<usize>)> = (0..block.stmts.len())
            .filter_map(|k| self.sunk_before(block, k).map(|sink| (k, sink)))
            .collect();
        let moved: HashSet<usize> = sunk.values().flat_map(|(_, run)| run.clone()).collect();
        // (`zeroed`: only the reverse of a straight run of statements.)
        self.zeroed.clear();
        for (position, stmt) in block.stmts.iter().enumerate().rev() {
            if moved.contains(&position) {
                continue;
            }
            let straight = sunk.is_empty()
                && match stmt {
                    Stmt::Let { init, .. } => matches!(
                        init,
                        None | Some(Rhs::Use(_) | Rhs::Prim { .. } | Rhs::Load { .. })
                    ),
                    Stmt::Update { .. } => true,
                    _ => false,
                };
            if !straight {
                self.zeroed.clear();
            }
            // the reverse of the statements sunk into this `if`'s branch:
            // their operands' adjoints declared before it, their code after
            // the branch's own
            let mut sink = sunk.get(&position).map(|(into_then, run)| {
                self.declare_operand_adjoints(&mut out, block, run);
                (*into_then, run.clone())
            });
            let mut sink_into = |this: &mut Self,
                                 then_code: &mut Vec<TokenStream>,
                                 else_code: &mut Vec<TokenStream>| {
                if let Some((into_then, run)) = sink.take() {
                    let code = this.reverse_statements(block, &run);
                    if into_then {
                        then_code.extend(code)
                    } else {
                        else_code.extend(code)
                    }
                }
            };
            match stmt {
                // its adjoint stays in the element's (`find_increments`)
                Stmt::Let { var, .. } if self.increment_loads.contains(var) => {}
                Stmt::Let {
                    var,
                    init: Some(rhs),
                    ..
                } if self.activity.needs_adjoint(*var) => self.reverse_rhs(&mut out, *var, rhs),
                Stmt::Update { cell, value } if self.activity.needs_adjoint(*cell) => {
                    let d_cell = self.adjoint(*cell);
                    if let Operand::Var(v) = value {
                        if self.activity.needs_adjoint(*v) {
                            self.contribute(&mut out, *v, quote!(#d_cell));
                        }
                    }
                    let zero = self.zero();
                    out.push(quote!(#d_cell = #zero;));
                    if !self.second {
                        self.zeroed.insert(*cell);
                    }
                }
                Stmt::Store {
                    array,
                    index,
                    value,
                } if (self.plan.plain_stores.contains(array) || self.spanned.contains(array))
                    && self.activity.needs_adjoint(*array) =>
                {
                    // Nothing to restore (or restored after the loop, a
                    // span): recompute the index for the adjoint.
                    let i = self.names.fresh("__ad_i");
                    let index = &index.tokens;
                    out.push(quote!(let #i: usize = #index;));
                    self.reverse_store(&mut out, *array, &i, value);
                }
                Stmt::Store { array, .. }
                    if self.plan.plain_stores.contains(array) || self.spanned.contains(array) => {}
                Stmt::Store {
                    array,
                    index,
                    value,
                } => {
                    let undo = &self.plan.undo[array];
                    let (i, old) = (self.names.fresh("__ad_i"), self.names.fresh("__ad_old"));
                    let name = self.ident(*array).clone();
                    out.push(match self.plan.indexed_undo.contains(array) {
                        true => quote! {
                            let (#i, #old) = ::autograd::__private::pop(&mut #undo);
                            #name[#i] = #old;
                        },
                        false => {
                            let (index, old) = (&index.tokens, self.take_one(undo));
                            quote! {
                                let #i: usize = #index;
                                #name[#i] = #old;
                            }
                        }
                    });
                    if self.activity.needs_adjoint(*array) {
                        self.reverse_store(&mut out, *array, &i, value);
                    }
                }
                // reversed where it ran (`if_in_place`): its cells' adjoints
                // zeroed, as the reverse of each branch's updates does, so
                // that the cells' first values get none
                Stmt::If { decision, .. } if self.in_place.contains_key(&decision.to_string()) => {
                    // (what sinks into a branch went with it)
                    sink_into(self, &mut Vec::new(), &mut Vec::new());
                    let zero = self.zero();
                    for (cell, _) in &self.in_place[&decision.to_string()] {
                        let d_cell = self.adjoint(*cell);
                        out.push(quote!(#d_cell = #zero;));
                    }
                }
                Stmt::If {
                    decision,
                    cond,
                    then_,
                    else_,
                } if self.nest.is_some() => {
                    let recording = &self.plan.recording;
                    let key = decision.to_string();
                    // a decision is taken back at the start of its block's
                    // reverse, or evaluated again here (`record.rs`)
                    let again = recording.recomputed.contains(&key);
                    if !again && !recording.decisions.contains(&key) {
                        continue;
                    }
                    let mut then_code = self.reverse_recorded_block(then_);
                    let mut else_code = self.reverse_recorded_block(else_);
                    sink_into(self, &mut then_code, &mut else_code);
                    if again {
                        let cond = &cond.tokens;
                        out.push(quote!(let #decision: bool = #cond;));
                    }
                    out.push(quote! {
                        if #decision { #(#then_code)* } else { #(#else_code)* }
                    });
                }
                Stmt::If {
                    decision,
                    then_,
                    else_,
                    ..
                } => {
                    let mut then_code = self.reverse_branch(then_);
                    let mut else_code = self.reverse_branch(else_);
                    sink_into(self, &mut then_code, &mut else_code);
                    // Undo the branch's stores, so a replay starts where the
                    // branch started.
                    let undo: Vec<TokenStream> = self
                        .plan
                        .construct_stores(&decision.to_string())
                        .into_iter()
                        .map(|(array, tape, inside, mark)| {
                            if inside {
                                quote!(#tape.truncate(#mark);)
                            } else {
                                let undo_to = self.undo_to();
                                let array = self.ident(array);
                                quote!(#undo_to(&mut #array[..], &mut #tape, #mark);)
                            }
                        })
                        .collect();
                    out.extend(undo);
                    if !then_code.is_empty() || !else_code.is_empty() {
                        out.push(quote! {
                            if #decision { #(#then_code)* } else { #(#else_code)* }
                        });
                    }
                }
                // the adjoints exchanged as the buffers were
                Stmt::Loop(l) if self.swapped_buffers(l).is_some() => {
                    let (a, b) = self.swapped_buffers(l).expect("checked");
                    if self.activity.needs_adjoint(a) {
                        let (d_a, d_b) = (self.adjoint(a), self.adjoint(b));
                        out.push(quote!(::std::mem::swap(&mut #d_a, &mut #d_b);));
                    }
                }
                // reversed inside its forward code (`fused_loop`)
                Stmt::Loop(l) if self.plan.fused.contains_key(&l.id) => {}
                Stmt::Loop(l)
                    if self.nest.is_some() || self.plan.recording.nests.contains_key(&l.id) =>
                {
                    let outer = self.nest;
                    self.nest = self.nest.or(Some(l.id));
                    let (take, give_back) = self.take_hoisted(l);
                    out.extend(take);
                    if let Some(code) = self.reverse_recorded_loop(l) {
                        if outer.is_none() {
                            out.extend(self.declare_twins(l.id));
                        }
                        out.push(code);
                    }
                    out.extend(give_back);
                    out.extend(self.counted_after(l.id));
                    self.nest = outer;
                }
                Stmt::Loop(l) => {
                    if let Some(code) = self.reverse_loop(l) {
                        out.push(code);
                    }
                }
                _ => {}
            }
            if !straight {
                self.zeroed.clear();
            }
        }
        self.zeroed.clear();
        out
    }

    /// The increments of one element in `block`: `let l = a[i]; let s =
    /// l + e; a[i] = s;` (what `a[i] += e` lowers to; also `e + l`, and
    /// `l - e`), with the same index tokens (of values that do not
    /// change), no other store into `a` between the load and the store,
    /// and `l` and `s` read nowhere else. The chain rule as written takes
    /// the element's adjoint into `s`, zeroes it, and adds it back through
    /// `l` (`d_a[i] = 0.0 + d_s`); instead the element keeps its adjoint
    /// and `e` gets it (`e`'s partial in `s` is `±1` and `l`'s `1`, so the
    /// adjoints are the same but for the sign of a zero). Not in
    /// second-order bodies.
    fn find_increments(&mut self, block: &Block) {
        if self.second {
            return;
        }
        let mut reads: HashMap<VarId, usize> = HashMap::new();
        block.walk(0, &mut |stmt, _| {
            for v in stmt.reads() {
                *reads.entry(v).or_default() += 1;
            }
        });
        let read_once = |v: &VarId| reads.get(v) == Some(&1);
        let positions: HashMap<VarId, usize> = block
            .stmts
            .iter()
            .enumerate()
            .filter_map(|(at, s)| match s {
                Stmt::Let { var, .. } => Some((*var, at)),
                _ => None,
            })
            .collect();
        let defined_at = |var: VarId| positions.get(&var).copied();
        for (at, stmt) in block.stmts.iter().enumerate() {
            let Stmt::Store {
                array,
                index,
                value: Operand::Var(sum),
            } = stmt
            else {
                continue;
            };
            if !self.activity.needs_adjoint(*array)
                || !self.activity.needs_adjoint(*sum)
                || !read_once(sum)
                || index.uses.iter().any(|&u| self.func.vars[u].is_cell())
            {
                continue;
            }
            let Some(sum_at) = defined_at(*sum) else {
                continue;
            };
            let Stmt::Let {
                init: Some(Rhs::Prim { prim: p, args, .. }),
                ..
            } = &block.stmts[sum_at]
            else {
                continue;
            };
            let element = |op: &Operand| match op {
                Operand::Var(v) if read_once(v) => {
                    let at = defined_at(*v)?;
                    match &block.stmts[at] {
                        Stmt::Let {
                            init: Some(Rhs::Load { array: a, index: i }),
                            ..
                        } if a == array && i.tokens.to_string() == index.tokens.to_string() => {
                            Some((*v, at))
                        }
                        _ => None,
                    }
                }
                _ => None,
            };
            let load = if std::ptr::eq(*p, &crate::prim::ADD) {
                match (element(&args[0]), element(&args[1])) {
                    (Some(l), None) | (None, Some(l)) => Some(l),
                    _ => None,
                }
            } else if std::ptr::eq(*p, &crate::prim::SUB) {
                element(&args[0]).filter(|_| element(&args[1]).is_none())
            } else {
                None
            };
            let Some((load, load_at)) = load else {
                continue;
            };
            // Nothing between the load and the store writes the array (or
            // hands it to a call, which may read its adjoint's element).
            let mut touched = false;
            for between in &block.stmts[load_at + 1..at] {
                crate::record::walk_stmt(between, &mut |s| {
                    touched |= match s {
                        Stmt::Store { array: a, .. } => a == array,
                        Stmt::Let {
                            init: Some(Rhs::Call { .. }),
                            ..
                        } => s.reads().contains(array),
                        _ => false,
                    };
                });
            }
            if !touched && load_at < sum_at {
                self.increment_loads.insert(load);
                self.increment_sums.insert(*sum);
            }
        }
    }

    /// Loads of one element at two or more places of `block` (`u[i]` in
    /// `u[i] + ν·(u[i-1] - 2u[i] + u[i+1]) + dt·u[i]·(1 - u[i])`): their
    /// adjoints are summed in a local, declared on `out`, and added into
    /// the array's adjoint once, right after the reverse of the first of
    /// them (the last reversed) — one read-modify-write of memory instead
    /// of one per load. Only where nothing in the block stores into the
    /// array or passes it to a call (so that no reverse between them reads
    /// that element's adjoint), and not in a second-order body.
    fn merge_loads(&mut self, block: &Block, out: &mut Vec<TokenStream>) {
        if self.second {
            return;
        }
        let mut groups: Vec<((VarId, String), Vec<VarId>, TokenStream)> = Vec::new();
        for stmt in &block.stmts {
            if let Stmt::Let {
                var,
                init: Some(Rhs::Load { array, index }),
                ..
            } = stmt
            {
                if !self.activity.needs_adjoint(*var)
                    || self.merged_loads.contains_key(var)
                    || self.reversed_in_place.contains(var)
                    || index.uses.iter().any(|u| self.func.vars[*u].is_cell())
                {
                    continue;
                }
                let key = (*array, index.tokens.to_string());
                match groups.iter_mut().find(|(k, _, _)| *k == key) {
                    Some((_, members, _)) => members.push(*var),
                    None => groups.push((key, vec![*var], index.tokens.clone())),
                }
            }
        }
        groups.retain(|(_, members, _)| members.len() > 1);
        if groups.is_empty() {
            return;
        }
        let mut touched: HashSet<VarId> = HashSet::new();
        block.walk(0, &mut |stmt, _| match stmt {
            Stmt::Store { array, .. } => {
                touched.insert(*array);
            }
            Stmt::Let {
                init: Some(rhs), ..
            } => touched.extend(rhs.arrays()),
            _ => {}
        });
        for ((array, _), members, index) in groups {
            if touched.contains(&array) {
                continue;
            }
            let sum = self.names.fresh("__ad_sum");
            let buffer = self.array_adjoint(array);
            out.push(quote!(let mut #sum: f64 = 0.0;));
            let fence = members
                .iter()
                .any(|m| self.plan.spread_loads.contains(m))
                .then(|| {
                    quote!(::std::sync::atomic::compiler_fence(::std::sync::atomic::Ordering::SeqCst);)
                });
            let addition = quote! {
                #buffer[#index] += #sum;
                #fence
            };
            for (k, m) in members.into_iter().enumerate() {
                let addition = (k == 0).then(|| addition.clone());
                self.merged_loads.insert(m, (sum.clone(), addition));
            }
        }
    }

    /// Loads in the body of loop `l` at an index the loop does not change
    /// (`x[col]` in `for row in col + 1..d { q[row] += L[l] * x[col] }`),
    /// from an array nothing in the loop declares, stores into or passes to
    /// a call: their adjoints are summed in a local across the iterations of the
    /// loop's reverse and added into the array's adjoint once after it.
    /// Returns the sums' declarations and the additions.
    /// `params_only`: only loads from parameters, whose adjoint buffers are
    /// in scope everywhere (a fused loop's body may declare a local
    /// array's adjoint inside the loop).
    fn hoist_loads(
        &mut self,
        l: &crate::ir::Loop,
        params_only: bool,
    ) -> (Vec<TokenStream>, Vec<TokenStream>) {
        if self.second {
            return (Vec::new(), Vec::new());
        }
        let mut inside: HashSet<VarId> = l.carried.iter().map(|c| c.cell).collect();
        let mut touched: HashSet<VarId> = HashSet::new();
        if let Header::Range { index, .. } = &l.header {
            inside.insert(*index);
        }
        l.body.walk(0, &mut |stmt, _| match stmt {
            Stmt::Let { var, init, .. } => {
                inside.insert(*var);
                if let Some(rhs) = init {
                    touched.extend(rhs.arrays());
                }
            }
            Stmt::Store { array, .. } => {
                touched.insert(*array);
            }
            Stmt::Loop(inner) => {
                if let Header::Range { index, .. } = &inner.header {
                    inside.insert(*index);
                }
            }
            _ => {}
        });
        let (mut decls, mut writes) = (Vec::new(), Vec::new());
        let mut sums: Vec<((VarId, String), Ident)> = Vec::new();
        for stmt in &l.body.stmts {
            let Stmt::Let {
                var,
                init: Some(Rhs::Load { array, index }),
                ..
            } = stmt
            else {
                continue;
            };
            if !self.activity.needs_adjoint(*var)
                || (params_only && !self.is_param(*array))
                || touched.contains(array)
                // (an array the loop declares: its adjoint is its iteration's)
                || inside.contains(array)
                || index
                    .uses
                    .iter()
                    .any(|u| inside.contains(u) || self.func.vars[*u].is_cell())
            {
                continue;
            }
            let key = (*array, index.tokens.to_string());
            if let Some((_, sum)) = sums.iter().find(|(k, _)| *k == key) {
                self.merged_loads.insert(*var, (sum.clone(), None));
                continue;
            }
            let sum = self.names.fresh("__ad_sum");
            let buffer = self.array_adjoint(*array);
            let index = &index.tokens;
            decls.push(quote!(let mut #sum: f64 = 0.0;));
            writes.push(quote!(#buffer[#index] += #sum;));
            self.merged_loads.insert(*var, (sum.clone(), None));
            sums.push((key, sum));
        }
        (decls, writes)
    }

    /// The statements just before the `if` at `block.stmts[k]` whose reverse
    /// runs inside the reverse of one of its branches: whether that is the
    /// `then` branch, and their positions.
    ///
    /// A float that only that branch (and the statements moved with it) reads
    /// has a zero adjoint when the other branch ran, and so has every value
    /// computed only for it: a cutoff's `r2 = dx² + dy² + dz²` before
    /// `if r2 < rc2 { e += f(r2) }`. Reversed after the `if`, their chain
    /// adds zeros into the operands' adjoints whichever branch ran (LLVM
    /// cannot drop them: `0 · x` is not `0` for every `x`); reversed inside
    /// the branch, nothing runs when the other one did. Taken: the longest
    /// run of definitions ending at the `if` (a load, a copy or a rule of
    /// floats that need adjoints; statements with no reverse in between),
    /// each read only by later ones of the run and by one branch. Skipping
    /// the zeros is what the tape does (it visits no node whose adjoint is
    /// `0`), and what the gradient is: where `0 · ∞` would have given NaN,
    /// this gives the branch's `0`.
    fn sunk_before(&self, block: &Block, k: usize) -> Option<(bool, Vec<usize>)> {
        let Stmt::If { then_, else_, .. } = &block.stmts[k] else {
            return None;
        };
        let reads_in = |branch: &Block, var: VarId| {
            let mut reads = false;
            branch.walk(0, &mut |stmt, _| reads |= stmt.reads().contains(&var));
            reads
        };
        let mut run: Vec<usize> = Vec::new();
        let mut into_then: Option<bool> = None;
        // cells assigned between the run and the `if`: their reverse moves
        // their adjoints on and zeroes them, so what reads them stays
        let mut updated: HashSet<VarId> = HashSet::new();
        for position in (0..k).rev() {
            let (var, init) = match &block.stmts[position] {
                Stmt::Let { var, init, .. } => (*var, init),
                Stmt::Update { cell, .. } => {
                    updated.insert(*cell);
                    continue;
                }
                _ => break,
            };
            // (a cell's declaration, `let mut c: f64;`, has no reverse either)
            let no_reverse = init.is_none()
                || !self.activity.needs_adjoint(var)
                || self.increment_loads.contains(&var);
            if no_reverse {
                continue;
            }
            if !matches!(
                init,
                Some(Rhs::Use(_) | Rhs::Prim { .. } | Rhs::Load { .. })
            ) {
                break;
            }
            // read only by the run and one branch (the condition carries no
            // adjoint)
            let outside = block.stmts[position + 1..]
                .iter()
                .enumerate()
                .filter(|(i, _)| position + 1 + i != k && !run.contains(&(position + 1 + i)))
                .any(|(_, stmt)| {
                    stmt.reads().contains(&var)
                        || match stmt {
                            Stmt::If { then_, else_, .. } => {
                                reads_in(then_, var) || reads_in(else_, var)
                            }
                            Stmt::Loop(l) => reads_in(&l.body, var),
                            _ => false,
                        }
                });
            let (in_then, in_else) = (reads_in(then_, var), reads_in(else_, var));
            let branch = match (in_then, in_else) {
                (true, true) => break,
                (true, false) => Some(true),
                (false, true) => Some(false),
                (false, false) => None,
            };
            let reads_updated = block.stmts[position]
                .reads()
                .iter()
                .any(|v| updated.contains(v));
            if outside
                || reads_updated
                || self.func.vars[var].kind != Kind::Float
                || (branch.is_some() && into_then.is_some() && branch != into_then)
            {
                // It stays, and the run goes on past it: its reverse, now
                // after the run's rather than before, reads no adjoint the
                // run's adds to (it reads no value of the run, which is read
                // only by the run and the branch) and the run's reads none
                // it writes (the run's values come before it); both may add
                // to one operand's adjoint, in the other order.
                continue;
            }
            into_then = into_then.or(branch);
            run.push(position);
        }
        match into_then {
            Some(into_then) if !run.is_empty() => Some((into_then, run)),
            _ => None,
        }
    }

    /// Declares, before an `if`, the adjoints of the variables that the
    /// statements at `run` (sunk into one of its branches) read and that
    /// are not declared yet, so that what those statements add to them is
    /// still in scope after the `if`.
    fn declare_operand_adjoints(
        &mut self,
        out: &mut Vec<TokenStream>,
        block: &Block,
        run: &[usize],
    ) {
        let defined: HashSet<VarId> = run
            .iter()
            .filter_map(|&p| match &block.stmts[p] {
                Stmt::Let { var, .. } => Some(*var),
                _ => None,
            })
            .collect();
        for &p in run {
            let Stmt::Let {
                init: Some(rhs), ..
            } = &block.stmts[p]
            else {
                continue;
            };
            for op in rhs.operands() {
                let Operand::Var(v) = op else { continue };
                if defined.contains(v)
                    || !self.activity.needs_adjoint(*v)
                    || self.func.vars[*v].kind != Kind::Float
                    || !self.declared.insert(*v)
                {
                    continue;
                }
                let (adjoint, scalar, zero) = (self.adjoint(*v), self.scalar(), self.zero());
                out.push(quote!(let mut #adjoint: #scalar = #zero;));
            }
        }
    }

    /// The reverse of the definitions at `run` (positions in `block`, last
    /// first).
    fn reverse_statements(&mut self, block: &Block, run: &[usize]) -> Vec<TokenStream> {
        let mut out = Vec::new();
        for &p in run {
            if let Stmt::Let {
                var,
                init: Some(rhs),
                ..
            } = &block.stmts[p]
            {
                self.reverse_rhs(&mut out, *var, rhs);
            }
        }
        out
    }

    /// A branch's reverse: replay it, then reverse it (nothing when it has
    /// no adjoint work).
    fn reverse_branch(&mut self, block: &Block) -> Vec<TokenStream> {
        let reverse = self.reverse(block);
        if reverse.is_empty() {
            return reverse;
        }
        let replay = Mode {
            record: true,
            replay: true,
            native_loop: false,
            exits: Exits::Run,
            store: false,
        };
        let mut out = self.forward(block, replay);
        out.extend(reverse);
        out
    }

    // (Replayed loops do not hoist loads (`hoist_loads`): a replayed body
    // may be reversed where the sums declared around the loop are not in
    // scope — random programs, seed 142804577 #2438, E0425.)
    fn reverse_loop(&mut self, l: &crate::ir::Loop) -> Option<TokenStream> {
        if let Some(reset) = self.plan.resets.get(&l.id).cloned() {
            // nothing to reverse (`Plan::resets`): the cells set back
            let resets = reset.iter().map(|(cell, start)| {
                let start = match self.is_dual(*cell) {
                    true => self.dual_operand(start),
                    false => self.operand(start),
                };
                let cell = self.ident(*cell);
                quote!(#cell = #start;)
            });
            return Some(quote!(#(#resets)*));
        }
        let reverse = self.reverse(&l.body);
        let saved = self.plan.loop_tapes.get(&l.id).cloned().unwrap_or_default();
        let stores = self.plan.construct_stores(&loop_key(l.id));
        if reverse.is_empty() && saved.is_empty() && stores.is_empty() {
            return None;
        }
        // Each iteration first undoes its own stores, so its replay reads
        // the arrays as they were when it started.
        let undo: Vec<TokenStream> = stores
            .iter()
            .map(|(array, tape, inside, marks)| {
                if *inside {
                    quote!(#tape.truncate(::autograd::__private::pop(&mut #marks));)
                } else {
                    let array = self.ident(*array);
                    let mark = self.names.fresh("__ad_mark");
                    let undo_to = self.undo_to();
                    quote! {
                        let #mark = ::autograd::__private::pop(&mut #marks);
                        #undo_to(&mut #array[..], &mut #tape, #mark);
                    }
                }
            })
            .collect();
        let replay = Mode {
            record: true,
            replay: true,
            native_loop: false,
            exits: Exits::Restore,
            store: false,
        };
        let restarts = self.plan.restarts.get(&l.id).cloned().unwrap_or_default();
        let saved_cells: HashSet<VarId> = saved
            .iter()
            .map(|(_, cell)| *cell)
            .chain(restarts.iter().map(|(cell, _)| *cell))
            .collect();
        let dead: HashSet<VarId> = l
            .carried
            .iter()
            .map(|c| c.cell)
            .filter(|c| !saved_cells.contains(c))
            .collect();
        let outer_dead = std::mem::replace(&mut self.dead_cells, dead);
        // (the body of a loop that only accumulates, reversed in the
        // forward order below, may leave out loops that only feed its sums)
        let in_order = self.plan.reversed_in_order(l, self.activity);
        let sums = match (&l.header, saved.is_empty(), in_order, self.second) {
            (Header::Range { .. }, true, true, false) => {
                crate::fuse::accumulators(l, self.activity)
            }
            _ => None,
        };
        let outer_sums = std::mem::replace(
            &mut self.replaying_sums,
            sums.map(|cells| (&l.body as *const Block, cells.into_iter().collect())),
        );
        let reloading = (l.body.stmts.iter())
            .filter_map(|stmt| match stmt {
                Stmt::Let { var, .. } if self.plan.reloads.contains_key(var) => Some(*var),
                _ => None,
            })
            .collect();
        let outer_reloading = std::mem::replace(&mut self.reloading, reloading);
        let body = self.forward(&l.body, replay);
        self.reloading = outer_reloading;
        self.replaying_sums = outer_sums;
        self.dead_cells = outer_dead;
        let restore = saved.iter().map(|(tape, cell)| {
            let cell = self.ident(*cell);
            quote!(#cell = ::autograd::__private::pop(&mut #tape);)
        });
        let counter = self.counter(l.id);
        // Stores into arrays declared outside the loop (`plain_stores`, not
        // in `stores`) must be reversed last to first: an element written
        // by two iterations gives its adjoint to the last write.
        if let (Header::Range { index, range }, true, true) =
            (&l.header, saved.is_empty(), in_order)
        {
            if let Some(cells) = crate::fuse::accumulators(l, self.activity) {
                // Only accumulates (`fuse.rs`): the accumulators' adjoints
                // are the same at every iteration, and nothing is restored,
                // so the iterations are reversed in the forward order with
                // those adjoints held fixed. No adjoint is carried from one
                // iteration to the next (a chain of `0.0 + d` LLVM may not
                // fold), and the loop can be vectorised like the primal (unless
                // `spread_loads` put fences in it).
                let seeds: Vec<Ident> = cells.iter().map(|c| self.seed(*c)).collect();
                let (mut declare, hold) = self.held_seeds(&cells);
                for (cell, start) in &restarts {
                    let start = match self.is_dual(*cell) {
                        true => self.dual_operand(start),
                        false => self.operand(start),
                    };
                    let cell = self.ident(*cell);
                    declare.push(quote!(#cell = #start;));
                }
                let (index, range) = (self.ident(*index), &range.tokens);
                let reversed = quote! {
                    for #index in #range {
                        #(#hold)*
                        #(#body)*
                        #(#reverse)*
                    }
                };
                // Everything the iterations add is a multiple of the seeds:
                // with every seed 0 (a running minimum's losers, a branch not
                // taken) the loop adds nothing, as the tape's sweep skips a
                // node whose adjoint is 0.
                let reversed = match self.second {
                    true => reversed,
                    false => quote!(if #(#seeds != 0.0)||* { #reversed }),
                };
                return Some(quote! {
                    #(#declare)*
                    #reversed
                    #(#hold)*
                });
            }
        }
        let inner = quote! {
            #(#restore)*
            #(#undo)*
            #(#body)*
            #(#reverse)*
        };
        Some(match &l.header {
            Header::Range { index, range } => {
                let (index, range) = (self.ident(*index), &range.tokens);
                if l.breaks {
                    let k = self.names.fresh("__ad_k");
                    quote! {
                        for #k in (0..#counter).rev() {
                            let #index = ::autograd::__private::nth(#range, #k);
                            #inner
                        }
                    }
                } else {
                    quote!(for #index in (#range).rev() { #inner })
                }
            }
            Header::Infinite => quote!(for _ in 0..#counter { #inner }),
        })
    }

    /// Whether replaying loop `l` (inside replayed `block`) would compute
    /// nothing the reverse reads: `block` is the body of a summing loop
    /// replayed for its own reverse, `l`'s values go only into that loop's
    /// sums, its carried values are not needed (`Activity::needed`), and it
    /// has no effect but them — no store, call, branch, opaque code or
    /// jump, no tape of saved cells, in it or in any loop in it, and no exit
    /// values saved there. Its own reverse replays each iteration it needs.
    /// A convolution's score summed over channels, rows and columns
    /// replayed the whole sub-nest at every level of the reverse, `tanh` and
    /// all, for values nothing read: the forward ran four times.
    fn replay_is_dead(&self, l: &crate::ir::Loop, block: &Block, mode: Mode) -> bool {
        // Only directly in the body of a loop that only accumulates, being
        // replayed for its reverse in the forward order, and only a loop
        // whose values go nowhere but into that loop's sums (copied, then
        // assigned to one of its accumulators): elsewhere a replay
        // recomputes what its block's reverse reads (a branch's replay, the
        // sum read after the loop in it).
        let Some((body, sums)) = &self.replaying_sums else {
            return false;
        };
        if self.second || !std::ptr::eq(*body, block) || !only_into(block, l, sums) {
            return false;
        }
        // (in a fused loop's body: not where the replayed block assigns a
        // cell of the fused loop, which the loop's next iteration reads)
        let mut assigns_fused = false;
        block.walk(0, &mut |stmt, _| {
            if let Stmt::Update { cell, .. } = stmt {
                assigns_fused |= self.fused_cells.contains(cell);
            }
        });
        if assigns_fused {
            return false;
        }
        let plain = |l: &crate::ir::Loop| {
            matches!(l.header, Header::Range { .. })
                && !l.breaks
                && self
                    .plan
                    .loop_tapes
                    .get(&l.id)
                    .map_or(true, |t| t.is_empty())
        };
        // Exit values are saved after a loop of `Plan::exits` emitted where
        // they are saved: `l` itself in a block that saves them, and the
        // loops directly in `l`'s body when `l` records (`forward_loop`
        // gives its body `Exits::Save`; deeper bodies run theirs).
        let saves_exits = (mode.exits == Exits::Save && self.plan.exits.contains_key(&l.id))
            || (mode.record
                && l.body.stmts.iter().any(
                    |s| matches!(s, Stmt::Loop(inner) if self.plan.exits.contains_key(&inner.id)),
                ));
        if saves_exits {
            return false;
        }
        // (what loops inside it carry stays inside it: their own values
        // are for their own reverse, inside `l`'s, which replays them)
        let mut dead = plain(l)
            && l.carried
                .iter()
                .all(|c| !self.activity.needed(c.cell) && !self.activity.needed(c.entry));
        l.body.walk(0, &mut |stmt, _| match stmt {
            Stmt::Let {
                init: None | Some(Rhs::Use(_) | Rhs::Prim { .. } | Rhs::Load { .. }),
                ..
            }
            | Stmt::Update { .. } => {}
            Stmt::Loop(inner) => dead &= plain(inner),
            _ => dead = false,
        });
        dead
    }

    /// Whether loop `l` stores into an array that carries an adjoint: its
    /// reverse then moves that adjoint (from what reads the array after the
    /// loop) into the stored values, whatever its accumulators' seeds are,
    /// so it is not skipped when they are all 0 (`z[k] = p[k]` in a loop
    /// that also sums `e += z[k]`, and only `z[0]` read after it).
    fn stores_adjoints(&self, l: &crate::ir::Loop) -> bool {
        let mut stores = false;
        l.body.walk(0, &mut |stmt, _| {
            if let Stmt::Store { array, .. } = stmt {
                stores |= self.activity.needs_adjoint(*array);
            }
        });
        stores
    }

    /// Whether the call defining `var` gets its partials in the forward
    /// code (`call_with_partials`): in a block that is not replayed (the
    /// caller checks), when the result needs an adjoint and only scalar
    /// arguments vary (an array's partials would need a buffer).
    fn partials_in_forward(&self, var: VarId, args: &[CallArg]) -> bool {
        crate::record::partials_in_forward(self.func, self.activity, var, args)
    }

    /// Whether the recorded nest being emitted takes its calls' partials in
    /// the forward sweep (`record::plan`: where it needs storage anyway).
    fn nest_takes_partials(&self) -> bool {
        self.nest
            .is_some_and(|nest| self.plan.recording.nests[&nest].partials.is_some())
    }

    /// The partials of call `var` taken in the forward sweep
    /// (`call_with_partials`): one per argument that varies, in order.
    fn varied_partials(&self, var: VarId, args: &[CallArg]) -> Vec<Ident> {
        args.iter()
            .enumerate()
            .filter(|(_, arg)| {
                matches!(arg, CallArg::Float(Operand::Var(v)) if self.activity.needs_adjoint(*v))
            })
            .map(|(k, _)| self.call_partial(var, k))
            .collect()
    }

    /// The slot that receives the partial of call `var` with respect to its
    /// `k`-th argument, when it is computed in the forward code.
    fn call_partial(&self, var: VarId, k: usize) -> Ident {
        self.names
            .derived(Role::CallPartial(k), var, self.ident(var))
    }

    /// `var = callee(args)` in the function body or a fused loop's body
    /// The slot a call's adjoint is given for array argument `array`
    /// (`range` a subslice of it): the part of its adjoint, or, where the
    /// call is given the array more than once (`shared`: two points of one
    /// array), a zeroed scratch of the part's type, made `before` the call
    /// and added into the part `after` it.
    fn array_slot(
        &mut self,
        array: VarId,
        range: Option<&crate::ir::Const>,
        shared: bool,
    ) -> ArraySlot {
        let buffer = self.array_adjoint(array);
        let is_param = self.is_param(array);
        let part = match range {
            Some(range) => {
                let range = &range.tokens;
                quote!(#buffer[#range])
            }
            None => quote!(#buffer[..]),
        };
        if !shared {
            let slot = match (range, is_param) {
                (Some(_), _) => quote!(&mut #part),
                (None, true) => quote!(&mut *#buffer),
                (None, false) => quote!(&mut #buffer),
            };
            return ArraySlot {
                slot,
                before: None,
                after: None,
            };
        }
        let scratch = self.names.fresh("__ad_slot");
        let (d, v) = (self.names.fresh("__ad_d"), self.names.fresh("__ad_v"));
        // Of the adjoint's own type where it is a whole array (the callee
        // may take `&mut [f64; N]`).
        let like = match (range, is_param) {
            (Some(_), _) => quote!(&#part),
            (None, true) => quote!(&*#buffer),
            (None, false) => quote!(&#buffer),
        };
        ArraySlot {
            slot: quote!(&mut #scratch),
            before: Some(quote! {
                let mut #scratch = ::autograd::__private::scratch_like(#like);
            }),
            after: Some(quote! {
                for (#d, #v) in #part.iter_mut().zip(#scratch.iter()) {
                    *#d += *#v;
                }
            }),
        }
    }

    /// where the adjoint of `var` is known before the call (`early_calls`):
    /// the callee's adjoint with that adjoint as `d_out`, which gives the
    /// value and adds the partials into the arguments' adjoints at once;
    /// the call's reverse then has nothing to do. The callee runs once, not
    /// twice (forward, then its adjoint in the reverse).
    fn early_call(
        &mut self,
        var: VarId,
        ty: Option<&TokenStream>,
        callee: &Callee,
        args: &[CallArg],
    ) -> Vec<TokenStream> {
        let mut out = Vec::new();
        let early = &self.early_calls[&var];
        let d_out = self.seeded(&early.seed, early.negated, &early.factors);
        let given = |array: VarId| {
            (args.iter())
                .filter(|a| matches!(a, CallArg::Array { array: a, .. } if *a == array))
                .count()
        };
        let mut slots = Vec::new();
        let mut merges = Vec::new();
        for arg in args {
            slots.push(match arg {
                // (a scalar the block defines: its adjoint declared here,
                // `early_calls`)
                CallArg::Float(Operand::Var(v)) if self.activity.needs_adjoint(*v) => {
                    let adjoint = self.adjoint(*v);
                    if self.declared.insert(*v) {
                        out.push(quote!(let mut #adjoint: f64 = 0.0;));
                    }
                    Some(quote!(&mut #adjoint))
                }
                CallArg::Array { array, range, .. } if self.activity.needs_adjoint(*array) => {
                    // (an array the body declares: its adjoint declared
                    // here, where the callee adds into it, rather than
                    // where the reverse first adds into it)
                    if !self.is_param(*array) && self.declared.insert(*array) {
                        out.push(self.declare_array_adjoint(*array));
                    }
                    let slot = self.array_slot(*array, range.as_ref(), given(*array) > 1);
                    out.extend(slot.before);
                    merges.extend(slot.after);
                    Some(slot.slot)
                }
                _ => None,
            });
        }
        let call = self.adjoint_call(callee, args, d_out, &slots, &[]);
        let ident = self.ident(var);
        out.push(match ty {
            Some(ty) => quote!(let #ident: #ty = #call;),
            None => quote! {
                let #ident = #call;
                ::autograd::__private::assume_number(&#ident);
            },
        });
        out.extend(merges);
        self.called_early.insert(var);
        out
    }

    /// `var = callee(args)` in a block whose reverse follows it in the same
    /// scope with no replay (the function body, a fused loop's body): the
    /// callee's adjoint with `d_out = 1` gives the value and the partial with
    /// respect to each varying argument at once, and the reverse multiplies
    /// them by the result's adjoint (`reverse_call`). Calling the callee,
    /// then its adjoint in the reverse, would evaluate the callee twice.
    fn call_with_partials(
        &mut self,
        var: VarId,
        ty: Option<&TokenStream>,
        callee: &Callee,
        args: &[CallArg],
    ) -> Vec<TokenStream> {
        let mut out = Vec::new();
        let mut slots = Vec::new();
        for (k, arg) in args.iter().enumerate() {
            slots.push(match arg {
                CallArg::Float(Operand::Var(v)) if self.activity.needs_adjoint(*v) => {
                    let slot = self.call_partial(var, k);
                    // -0.0, not 0.0: `-0.0 + p` is `p` for every `p`, so once
                    // the callee is inlined its `*d_x += p` folds to a move.
                    if self.second {
                        let scalar = self.scalar();
                        out.push(quote!(let mut #slot: #scalar = #scalar::constant(-0.0);));
                    } else {
                        out.push(quote!(let mut #slot: f64 = -0.0;));
                    }
                    Some(quote!(&mut #slot))
                }
                _ => None,
            });
        }
        let one = match self.second {
            true => quote!(::autograd::__private::Dual::constant(1.0)),
            false => quote!(1.0_f64),
        };
        let call = self.adjoint_call(callee, args, one, &slots, &[]);
        let ident = self.ident(var);
        let ty = match self.second {
            true => Some(quote!(: ::autograd::__private::Dual)),
            false => ty.map(|ty| quote!(: #ty)),
        };
        out.push(quote!(let #ident #ty = #call;));
        self.forward_partials.insert(var);
        out
    }

    /// The reverse of `var = callee(args)`: the callee's adjoint, with a
    /// `d_` slot for every argument that varies.
    fn reverse_call(
        &mut self,
        out: &mut Vec<TokenStream>,
        var: VarId,
        callee: &Callee,
        args: &[CallArg],
    ) {
        // (its adjoint, called in the forward code, added it all)
        if self.called_early.contains(&var) {
            return;
        }
        let d_var = self.adjoint(var);
        if self.forward_partials.contains(&var) {
            // in a recorded nest, taken back from its record, the last
            // pushed first
            if let Some(record) = self
                .nest
                .and_then(|nest| self.plan.recording.nests[&nest].partials.clone())
            {
                for partial in self.varied_partials(var, args).iter().rev() {
                    out.push(quote!(let #partial: f64 = ::autograd::__private::pop(&mut #record);));
                }
            }
            for (k, arg) in args.iter().enumerate() {
                if let CallArg::Float(Operand::Var(v)) = arg {
                    if self.activity.needs_adjoint(*v) {
                        let partial = self.call_partial(var, k);
                        self.contribute(out, *v, quote!(#d_var * #partial));
                    }
                }
            }
            return;
        }
        // A variable or array passed more than once cannot be borrowed
        // mutably twice: its slots are scratch, added in after the call.
        let mut seen: HashMap<VarId, usize> = HashMap::new();
        for arg in args {
            match arg {
                CallArg::Float(Operand::Var(v)) => *seen.entry(*v).or_default() += 1,
                CallArg::Array { array, .. } => *seen.entry(*array).or_default() += 1,
                _ => {}
            }
        }
        let shared = |v: &VarId| seen.get(v).copied().unwrap_or(0) > 1;
        let (mut slots, mut before, mut after) = (Vec::new(), Vec::new(), Vec::new());
        for arg in args {
            match arg {
                CallArg::Float(Operand::Var(v)) if self.activity.needs_adjoint(*v) => {
                    let (scalar, zero) = (self.scalar(), self.zero());
                    if self.declared.insert(*v) {
                        let adjoint = self.adjoint(*v);
                        out.push(quote!(let mut #adjoint: #scalar = #zero;));
                    }
                    let adjoint = self.adjoint(*v);
                    if shared(v) {
                        let scratch = self.names.fresh("__ad_slot");
                        before.push(quote!(let mut #scratch: #scalar = #zero;));
                        after.push(quote!(#adjoint += #scratch;));
                        slots.push(Some(quote!(&mut #scratch)));
                    } else {
                        slots.push(Some(quote!(&mut #adjoint)));
                    }
                }
                CallArg::Array { array, .. }
                    if self.second && self.activity.needs_adjoint(*array) =>
                {
                    // (`second::hvp_call` makes the slots of an array.)
                    slots.push(Some(self.array_adjoint(*array).to_token_stream()));
                }
                CallArg::Array { array, range, .. } if self.activity.needs_adjoint(*array) => {
                    let slot = self.array_slot(*array, range.as_ref(), shared(array));
                    before.extend(slot.before);
                    after.extend(slot.after);
                    slots.push(Some(slot.slot));
                }
                _ => slots.push(None),
            }
        }
        out.extend(before);
        let as_called = self.args_as_called(out, var, args);
        let (args, taken, twins) = match &as_called {
            Some(as_called) => (
                &as_called.args[..],
                Some(&as_called.after),
                &as_called.twins[..],
            ),
            None => (args, None, &[][..]),
        };
        // A vector-valued callee's `d_out` is the adjoint of the array it
        // returned.
        let d_out = if self.func.vars[var].kind == Kind::FloatArray {
            quote!(&#d_var[..])
        } else {
            quote!(#d_var)
        };
        let call = self.adjoint_call(callee, args, d_out, &slots, twins);
        // (the value it returns is not used: a vector-valued callee's goes
        // to the thread's spare buffers, `__private::spare_back`)
        match self.second || self.func.vars[var].kind != Kind::FloatArray {
            true => out.push(quote!(#call;)),
            false => out.push(quote!(::autograd::__private::spare_back(#call);)),
        }
        out.extend(taken.cloned());
        out.extend(after);
    }

    /// In a recorded nest's forward sweep, after the call that defines
    /// `var`: the local arrays it was given that the function stores into
    /// (`record::copied_args`), copied onto the nest's `args` record, but
    /// those copied after a loop around the call (`copy_hoisted`).
    fn copy_args(&self, var: VarId) -> Vec<TokenStream> {
        let Some(arrays) = self.plan.recording.copies.get(&var) else {
            return Vec::new();
        };
        let at_call = arrays
            .iter()
            .filter(|array| !self.plan.recording.hoisted.contains(&(var, **array)));
        self.copy_onto_args(at_call)
    }

    /// In a recorded nest's forward sweep, after its inner loop `l`: the
    /// arrays its calls are given copied once (`record::hoisted_copies`).
    fn copy_hoisted(&self, l: &crate::ir::Loop) -> Vec<TokenStream> {
        match self.plan.recording.hoists.get(&l.id) {
            Some(arrays) => self.copy_onto_args(arrays.iter()),
            None => Vec::new(),
        }
    }

    /// `arrays` copied onto the `args` record of the nest being emitted.
    fn copy_onto_args<'v>(&self, arrays: impl Iterator<Item = &'v VarId>) -> Vec<TokenStream> {
        let Some(nest) = self.nest else {
            return Vec::new();
        };
        let args = &self.plan.recording.nests[&nest].args;
        arrays
            .map(|array| {
                let (args, array) = (
                    args.as_ref().expect("a nest with copies"),
                    self.ident(*array),
                );
                quote!(#args.extend_from_slice(&#array[..]);)
            })
            .collect()
    }

    /// Around the reverse of a recorded nest's inner loop `l`: before it,
    /// the twin of each array copied after it (`copy_hoisted`) filled from
    /// the copy, which is taken back, last pushed first; after it, the
    /// twins of arrays the nest declares given back to their pools.
    fn take_hoisted(&mut self, l: &crate::ir::Loop) -> (Vec<TokenStream>, Vec<TokenStream>) {
        let (Some(arrays), Some(nest)) = (self.plan.recording.hoists.get(&l.id), self.nest) else {
            return (Vec::new(), Vec::new());
        };
        let nest = &self.plan.recording.nests[&nest];
        let record = nest.args.clone().expect("a nest with copies");
        let (mut before, mut after) = (Vec::new(), Vec::new());
        for array in arrays.iter().rev() {
            let twin = nest.twin(*array);
            if let Some(shaped) = self.plan.recording.shapes.get(array) {
                let (shape, pool) = (&shaped.shape, &nest.twin_pools[array]);
                before.push(quote! {
                    let mut #twin = ::autograd::__private::take_zeros(&mut #pool, #shape);
                });
                after.push(quote!(::autograd::__private::give_back(&mut #pool, #twin);));
            }
            let at = self.names.fresh("__ad_at");
            before.push(quote! {
                let #at = #record.len() - #twin.len();
                #twin[..].copy_from_slice(&#record[#at..]);
                #record.truncate(#at);
            });
        }
        (before, after)
    }

    /// After `let var = ..` in a recorded nest: the arrays its call is
    /// given, copied (`copy_args`), and, for an array the nest declares,
    /// its shape, for the reverse of its block (`record::Shaped`).
    fn record_declaration(&self, var: VarId) -> Vec<TokenStream> {
        let mut out = self.copy_args(var);
        if let Some(shaped) = self.plan.recording.shapes.get(&var) {
            let (tape, array) = (&shaped.tape, self.ident(var));
            out.push(quote! {
                ::autograd::__private::push_shape(
                    &mut #tape,
                    ::autograd::__private::shape_of(&#array),
                );
            });
        }
        out
    }

    /// Before the reverse of recorded nest `top`: a twin of each array its
    /// calls are given copies of (zeros like it, of its type).
    fn declare_twins(&self, top: usize) -> Vec<TokenStream> {
        let nest = &self.plan.recording.nests[&top];
        let mut pools: Vec<&Ident> = nest.twin_pools.values().collect();
        pools.sort();
        nest.twins
            .iter()
            // (the twin of an array the nest declares is made where the
            // call is reversed, from its shape, in a pool: `args_as_called`)
            .filter(|(array, _)| !self.plan.recording.shapes.contains_key(array))
            .map(|(array, twin)| {
                let array = self.ident(*array);
                quote!(let mut #twin = ::autograd::__private::zeros_like(&#array);)
            })
            .chain(
                pools.into_iter().map(
                    |pool| quote!(let mut #pool: ::std::vec::Vec<f64> = ::std::vec::Vec::new();),
                ),
            )
            .collect()
    }

    /// The arguments of the call that defines `var` as its adjoint gets
    /// them: each array the forward sweep copied (`copy_args`) taken back
    /// from the nest's `args` record into its twin, and the argument read
    /// from the twin (`&ypred` as `&twin`, `&ypred[a..b]` as
    /// `&twin[a..b]`), with what to run after the adjoint's call (the
    /// record cut back) and each array's twin (for the scratch slot of one
    /// that does not vary); `None` for a call that copied nothing.
    fn args_as_called(
        &mut self,
        out: &mut Vec<TokenStream>,
        var: VarId,
        args: &[CallArg],
    ) -> Option<AsCalled> {
        let (Some(arrays), Some(nest)) = (self.plan.recording.copies.get(&var), self.nest) else {
            return None;
        };
        let nest = &self.plan.recording.nests[&nest];
        let record = nest.args.clone().expect("a nest with copies");
        let twin_of = |array: &VarId| nest.twin(*array);
        // the last pushed first
        let mut end = quote!(#record.len());
        let mut first = None;
        let mut given_back = Vec::new();
        for array in arrays.iter().rev() {
            // (one copied after a loop around the call is in its twin
            // already: `take_hoisted`)
            if self.plan.recording.hoisted.contains(&(var, *array)) {
                continue;
            }
            let (twin, at) = (twin_of(array), self.names.fresh("__ad_at"));
            if let Some(shaped) = self.plan.recording.shapes.get(array) {
                let (shape, pool) = (&shaped.shape, &nest.twin_pools[array]);
                out.push(quote! {
                    let mut #twin = ::autograd::__private::take_zeros(&mut #pool, #shape);
                });
                given_back.push(quote!(::autograd::__private::give_back(&mut #pool, #twin);));
            }
            out.push(quote! {
                let #at = #end - #twin.len();
                #twin[..].copy_from_slice(&#record[#at..#end]);
            });
            end = quote!(#at);
            first = Some(at);
        }
        let renamed: Vec<CallArg> = args
            .iter()
            .map(|arg| match arg {
                CallArg::Array {
                    array,
                    tokens,
                    range,
                } if arrays.contains(array) => CallArg::Array {
                    array: *array,
                    tokens: rename(tokens.clone(), self.ident(*array), &twin_of(array)),
                    range: range.clone(),
                },
                other => other.clone(),
            })
            .collect();
        let twins = arrays.iter().map(|a| (*a, twin_of(a))).collect();
        let after = match first {
            Some(first) => quote!(#record.truncate(#first); #(#given_back)*),
            None => TokenStream::new(),
        };
        Some(AsCalled {
            args: renamed,
            after,
            twins,
        })
    }

    /// `callee_adjoint(args.., d_out, slots..)` (`primal::adjoint_call`),
    /// or in a second-order body `callee_hvp_adjoint(..)` (`second::hvp_call`).
    fn adjoint_call(
        &self,
        callee: &Callee,
        args: &[CallArg],
        d_out: TokenStream,
        slots: &[Option<TokenStream>],
        twins: &[(VarId, Ident)],
    ) -> TokenStream {
        if self.second {
            return super::second::hvp_call(
                self.func,
                self.sig,
                self.activity,
                self.names,
                callee,
                args,
                d_out,
                slots,
            );
        }
        adjoint_call(self.func, self.names, callee, args, d_out, slots, twins)
    }

    /// `__private::undo_to`, or its generic twin for arrays of `Dual`s.
    fn undo_to(&self) -> TokenStream {
        if self.second {
            quote!(::autograd::__private::dual::undo_to)
        } else {
            quote!(::autograd::__private::undo_to)
        }
    }

    /// The adjoint of `array[i] = value`: the element's adjoint flows into
    /// `value`, and the element, overwritten, starts again from zero.
    fn reverse_store(
        &mut self,
        out: &mut Vec<TokenStream>,
        array: VarId,
        i: &Ident,
        value: &Operand,
    ) {
        let d_array = self.array_adjoint(array);
        if let Operand::Var(v) = value {
            if self.activity.needs_adjoint(*v) {
                self.contribute(out, *v, quote!(#d_array[#i]));
            }
            if self.increment_sums.contains(v) {
                // `a[i] += e`: the element before keeps the adjoint
                return;
            }
        }
        let zero = self.zero();
        out.push(quote!(#d_array[#i] = #zero;));
    }

    /// The adjoint buffer of a float array: the caller's `d_<p>` for a
    /// parameter, `__ad_d_<a>` for a local. (Also the `d_<p>` of a scalar
    /// parameter.)
    fn array_adjoint(&self, array: VarId) -> Ident {
        match self.func.vars[array].origin {
            Origin::Param { index, .. } => self.sig.params[index]
                .adjoint_ident()
                .expect("an active parameter has an adjoint argument"),
            _ => self.adjoint(array),
        }
    }

    /// A parameter of `f` (its adjoint buffer is the caller's).
    fn is_param(&self, var: VarId) -> bool {
        matches!(self.func.vars[var].origin, Origin::Param { .. })
    }

    /// The trip counter of loop `id` (a loop that may `break`).
    fn counter(&self, id: usize) -> Ident {
        let of = Ident::new("n", Span::call_site());
        self.names.derived(Role::Counter, id, &of)
    }

    /// Adds `amount` to the adjoint of `var`, declaring it on first use.
    fn contribute(&mut self, out: &mut Vec<TokenStream>, var: VarId, amount: TokenStream) {
        let adjoint = self.adjoint(var);
        if self.declared.insert(var) {
            let scalar = self.scalar();
            out.push(quote!(let mut #adjoint: #scalar = #amount;));
        } else if self.zeroed.remove(&var) {
            out.push(quote!(#adjoint = #amount;));
        } else {
            out.push(quote!(#adjoint += #amount;));
        }
    }

    /// The reverse-sweep statements of `var = rhs`.
    fn reverse_rhs(&mut self, out: &mut Vec<TokenStream>, var: VarId, rhs: &Rhs) {
        let d_var = self.adjoint(var);
        match rhs {
            Rhs::Use(Operand::Var(source)) => {
                if self.activity.needs_adjoint(*source) {
                    self.contribute(out, *source, quote!(#d_var));
                }
            }
            Rhs::Use(Operand::Const(_)) => {}
            Rhs::Load { array, index } if self.second && self.is_param(*array) => {
                let buffer = self.array_adjoint(*array);
                let hv = super::second::hv_buffer(self.func, self.sig, *array);
                let index = &index.tokens;
                let i = self.names.fresh("__ad_i");
                out.push(quote! {
                    let #i: usize = #index;
                    ::autograd::__private::dual::accumulate(&mut #buffer[..], &mut #hv[..], #i, #d_var);
                });
            }
            Rhs::Load { .. } if self.merged_loads.contains_key(&var) => {
                let (sum, addition) = &self.merged_loads[&var];
                out.push(quote!(#sum += #d_var; #addition));
            }
            Rhs::Load { array, index } => {
                let buffer = self.array_adjoint(*array);
                let index = &index.tokens;
                if self.plan.spread_loads.contains(&var) {
                    // See `spread_loads`: keep LLVM from merging this update
                    // with its neighbour's into one overlapping vector access.
                    out.push(quote! {
                        #buffer[#index] += #d_var;
                        ::std::sync::atomic::compiler_fence(::std::sync::atomic::Ordering::SeqCst);
                    });
                } else {
                    out.push(quote!(#buffer[#index] += #d_var;));
                }
            }
            Rhs::Call { callee, args } => self.reverse_call(out, var, callee, args),
            Rhs::Array(ArrayInit::Fill { .. }) => {}
            Rhs::Array(ArrayInit::List { items, .. }) => {
                for (j, item) in items.iter().enumerate() {
                    if let Operand::Var(v) = item {
                        if self.activity.needs_adjoint(*v) {
                            let j = syn::Index::from(j);
                            self.contribute(out, *v, quote!(#d_var[#j]));
                        }
                    }
                }
            }
            Rhs::Array(ArrayInit::Copy { source, .. }) => {
                if self.activity.needs_adjoint(*source) && self.second && self.is_param(*source) {
                    let d_source = self.array_adjoint(*source);
                    let hv = super::second::hv_buffer(self.func, self.sig, *source);
                    let (k, d) = (self.names.fresh("__ad_k"), self.names.fresh("__ad_d"));
                    out.push(quote! {
                        for (#k, #d) in #d_var.iter().enumerate() {
                            ::autograd::__private::dual::accumulate(&mut #d_source[..], &mut #hv[..], #k, *#d);
                        }
                    });
                } else if self.activity.needs_adjoint(*source) {
                    let d_source = self.array_adjoint(*source);
                    let (k, d) = (self.names.fresh("__ad_k"), self.names.fresh("__ad_d"));
                    out.push(quote! {
                        for (#k, #d) in #d_var.iter().enumerate() {
                            #d_source[#k] += *#d;
                        }
                    });
                }
            }
            Rhs::Prim { prim, args, .. } => {
                let activity = self.activity;
                let partials = if self.second {
                    super::primal::rule_partials_from(
                        self.func,
                        self.names,
                        out,
                        var,
                        prim,
                        args,
                        &|v| activity.needs_adjoint(v),
                        super::second::rules_path(
                            prim,
                            args.iter()
                                .filter(|a| matches!(a, Operand::Var(v) if self.is_dual(*v)))
                                .count(),
                        ),
                    )
                } else {
                    let increments = &self.increment_loads;
                    rule_partials(self.func, self.names, out, var, prim, args, &|v| {
                        activity.needs_adjoint(v) && !increments.contains(&v)
                    })
                };
                for (target, partial) in partials {
                    // An infinite partial at a finite value (`acosh` at 1)
                    // times a zero adjoint adds nothing, as on the tape;
                    // nor does any partial of a table's element that no
                    // iteration reads (`Func::tabulated`; first order: in
                    // second order a partial may be an `f64` where the
                    // adjoint is a `Dual`).
                    let guarded = !self.second && self.func.tabulated.contains(&var);
                    let term = match prim.singular || guarded {
                        true => quote!(::autograd::__private::adjoint_term(#d_var, #partial)),
                        false => quote!(#d_var * #partial),
                    };
                    self.contribute(out, target, term);
                }
            }
        }
    }
}

/// An array argument's slot in a call's adjoint (`Body::array_slot`), with
/// what makes it before the call and adds it in after, for a scratch slot.
struct ArraySlot {
    slot: TokenStream,
    before: Option<TokenStream>,
    after: Option<TokenStream>,
}

/// The adjoint a call's result has before the call runs
/// (`Body::early_call`): a seed (a fused loop's accumulator's, or
/// `d_out`), negated or not, times factors known at the call, in the order
/// the reverse multiplies them.
struct Early {
    seed: TokenStream,
    negated: bool,
    factors: Vec<Operand>,
}

/// The calls at the top of `block` (the function body, or a fused loop's
/// body) whose result's adjoint is known before the call (`Early`).
///
/// - The call is of a number, and its arguments that vary are given once
///   each, at least one an array.
/// - Its scalars are values `block` defines before the call (not a loop's
///   entry values), whose adjoints can be declared at the call.
/// - `block` stores into none of its arrays after the call: the reverse of
///   such a store would zero what the callee added.
/// - Its value is read once, by a `+`, `-`, unary `-`, or `*` by a value
///   known at the call (or a copy), whose value is read once in turn, and so on to a
///   statement `seeded` gives the adjoint of: an accumulator's update in a
///   fused loop's body (its seed, the same every iteration, `fuse.rs`), the
///   function's value (`d_out`).
///
/// `total += lse(&logits) - logits[label]` in softmax regression: the
/// adjoint of `lse(..)` is the seed of `total`.
fn early_calls(
    func: &Func,
    activity: &Activity,
    block: &Block,
    entries: &HashSet<VarId>,
    seeded: &dyn Fn(&Stmt, VarId) -> Option<TokenStream>,
) -> HashMap<VarId, Early> {
    let mut reads: HashMap<VarId, usize> = HashMap::new();
    block.walk(0, &mut |stmt, _| {
        for v in stmt.reads() {
            *reads.entry(v).or_default() += 1;
        }
    });
    let read_once = |v: VarId| reads.get(&v) == Some(&1);
    let stmts = &block.stmts;
    // what `block` defines at or after `position` (not known there)
    let defined_from = |position: usize| {
        let mut defined = HashSet::new();
        for stmt in &stmts[position..] {
            crate::record::walk_stmt(stmt, &mut |s| {
                if let Stmt::Let { var, .. } = s {
                    defined.insert(*var);
                }
            });
        }
        defined
    };
    let known = |op: &Operand, later: &HashSet<VarId>| match op {
        Operand::Var(v) => !later.contains(v),
        Operand::Const(c) => c.uses.iter().all(|v| !later.contains(v)),
    };
    // the adjoint `var`'s value has (defined at `position`), if known there
    let chain = |var: VarId, position: usize| -> Option<Early> {
        let later = defined_from(position);
        let (mut current, mut negated, mut factors) = (var, false, Vec::new());
        loop {
            if !read_once(current) {
                return None;
            }
            let reader = stmts.iter().find(|s| s.reads().contains(&current))?;
            if let Some(seed) = seeded(reader, current) {
                factors.reverse();
                return Some(Early {
                    seed,
                    negated,
                    factors,
                });
            }
            let known_here = |op: &Operand| known(op, &later);
            current =
                crate::fuse::linear_step(reader, current, &mut negated, &mut factors, &known_here)?;
        }
    };
    let mut early = HashMap::new();
    for (position, stmt) in stmts.iter().enumerate() {
        let Stmt::Let {
            var,
            init: Some(Rhs::Call { args, .. }),
            ..
        } = stmt
        else {
            continue;
        };
        if func.vars[*var].kind != Kind::Float || !activity.needs_adjoint(*var) {
            continue;
        }
        let (mut varied, mut scalars) = (Vec::new(), Vec::new());
        for arg in args {
            match arg {
                CallArg::Array { array, .. } if activity.needs_adjoint(*array) => {
                    varied.push(*array)
                }
                CallArg::Float(Operand::Var(v)) if activity.needs_adjoint(*v) => scalars.push(*v),
                _ => {}
            }
        }
        let given_once = |var: &VarId| {
            args.iter()
                .filter(|arg| match arg {
                    CallArg::Array { array, .. } => array == var,
                    CallArg::Float(Operand::Var(v)) => v == var,
                    _ => false,
                })
                .count()
                == 1
        };
        // (a scalar the block defines before the call, not a loop's entry
        // value: its adjoint declared at the call, where the callee adds
        // into it, is read by its definition's reverse)
        let defined_before = |v: &VarId| {
            !entries.contains(v)
                && stmts[..position]
                    .iter()
                    .any(|s| matches!(s, Stmt::Let { var, .. } if var == v))
        };
        let stored_after =
            |array: &VarId| crate::record::stores_into(&stmts[position + 1..], *array);
        // (an array may be given more than once, two points of one array:
        // its slots are then scratch, added in after the call)
        if varied.is_empty()
            || !scalars.iter().all(given_once)
            || !scalars.iter().all(defined_before)
            || varied.iter().any(stored_after)
        {
            continue;
        }
        if let Some(found) = chain(*var, position) {
            early.insert(*var, found);
        }
    }
    early
}

/// A call's arguments as its adjoint gets them in a recorded nest
/// (`Body::args_as_called`).
struct AsCalled {
    /// The arguments, each copied array read from its twin.
    args: Vec<CallArg>,
    /// What runs after the adjoint's call: the record cut back.
    after: TokenStream,
    /// Each copied array with its twin.
    twins: Vec<(VarId, Ident)>,
}

/// The cursors of a loop of a recorded nest (`Body::loop_cursors`): each
/// tape with its cursor, and the same by tape name for the emitter to look
/// up.
#[derive(Default)]
struct LoopCursors {
    tapes: Vec<Cursor>,
    map: HashMap<String, Ident>,
}

/// A tape that a loop's own statements push onto, its cursor, and how many
/// values each iteration pushes.
struct Cursor {
    tape: Ident,
    cursor: Ident,
    per_iteration: usize,
}

/// Whether `block` or a block nested in it records a float.
fn records_floats(block: &Block, keep: &HashMap<VarId, Keep>) -> bool {
    let mut any = false;
    block.walk(
        0,
        &mut |stmt, _| {
            any |= matches!(stmt, Stmt::Let { var, .. } if keep.get(var) == Some(&Keep::Float))
        },
    );
    any
}

/// The variables `rhs` reads as scalars: a primitive's operands, a
/// constant expression's variables.
fn rhs_reads(rhs: &Rhs) -> Vec<VarId> {
    match rhs {
        Rhs::Prim { args, .. } => args
            .iter()
            .flat_map(|a| match a {
                Operand::Var(v) => vec![*v],
                Operand::Const(c) => c.uses.clone(),
            })
            .collect(),
        Rhs::Use(Operand::Const(c)) => c.uses.clone(),
        _ => Vec::new(),
    }
}

/// The variables a loop reads that are defined outside it, in order of
/// first read (its own cells excluded).
fn outer_reads(l: &crate::ir::Loop) -> Vec<VarId> {
    let mut defined: HashSet<VarId> = l.carried.iter().map(|c| c.cell).collect();
    l.body.walk(0, &mut |stmt, _| {
        if let Stmt::Let { var, .. } = stmt {
            defined.insert(*var);
        }
        if let Stmt::Loop(inner) = stmt {
            if let Header::Range { index, .. } = &inner.header {
                defined.insert(*index);
            }
        }
    });
    if let Header::Range { index, .. } = &l.header {
        defined.insert(*index);
    }
    let mut reads = Vec::new();
    l.body.walk(0, &mut |stmt, _| {
        for var in stmt.reads() {
            if !defined.contains(&var) && !reads.contains(&var) {
                reads.push(var);
            }
        }
    });
    reads
}

/// Whether every value of `counter`'s chain is known at the start of its
/// loop's iteration (no nested loop counts a cell of its own along it):
/// what its loop needs to be reversed counting up.
fn counted_at_start(counter: &Counter) -> bool {
    counter.inner.is_empty() && counter.chain.iter().all(|u| u.point == Point::Start)
}

/// `tokens` with the variable `from` renamed `to` (a call's argument).
fn rename(tokens: TokenStream, from: &Ident, to: &Ident) -> TokenStream {
    crate::tokens::rename(&tokens, &from.to_string(), &mut |ident| {
        // (`to`'s hygiene, where it is declared, at `ident`'s place: a
        // body from a `macro_rules!` names its locals in another context
        // than the expansion's own names)
        let mut to = to.clone();
        to.set_span(to.span().located_at(ident.span()));
        to
    })
}

/// Whether the values loop `l` (a statement of `block`) leaves in its cells
/// go, in the statements of `block` after it, only into the cells `sums`:
/// read only by copies, and the copies only assigned to those cells.
fn only_into(block: &Block, l: &crate::ir::Loop, sums: &HashSet<VarId>) -> bool {
    let Some(at) = block
        .stmts
        .iter()
        .position(|s| matches!(s, Stmt::Loop(m) if std::ptr::eq(m, l)))
    else {
        return false;
    };
    let mut from: HashSet<VarId> = l.carried.iter().map(|c| c.cell).collect();
    let mut only = true;
    for stmt in &block.stmts[at + 1..] {
        crate::record::walk_stmt(stmt, &mut |s| match s {
            Stmt::Let {
                var,
                init: Some(Rhs::Use(Operand::Var(v))),
                ..
            } if from.contains(v) => {
                from.insert(*var);
            }
            Stmt::Update {
                cell,
                value: Operand::Var(v),
            } if from.contains(v) => {
                only &= sums.contains(cell);
                from.insert(*cell);
            }
            _ => only &= !s.reads().iter().any(|v| from.contains(v)),
        });
    }
    only
}
