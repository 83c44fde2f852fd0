//! Emission: the IR, with its activity, becomes `f_grad` and `f_adjoint`.
//!
//! The adjoint's body is the forward sweep (the user's computation, one
//! named value per operation) followed by the reverse sweep (one adjoint
//! update per operation that needs it, in reverse order). Adjoints are plain
//! `f64` locals; array adjoints are written straight into the caller's
//! `d_<p>` buffers. Local partial derivatives come from
//! `::autograd::__private::rules`, the same table the tape uses.
//!
//! Control flow is reversed by *replay*: the reverse of an `if` re-runs the
//! branch that was taken (its values are SSA, so it recomputes the same
//! ones), then reverses it; the reverse of a loop walks the iterations
//! backwards and, for each, restores the loop-carried values the iteration
//! needs (saved on a tape in the forward sweep, only when needed), replays
//! the body, then reverses it. Every block's reverse is emitted right after
//! (a replay of) its forward code, in the same Rust scope, so it can read
//! every value the block computed.

use crate::activity::Activity;
use crate::fuse::Fused;
use crate::ir::{
    ArrayInit, Block, CallArg, Callee, Func, Header, Jump, Kind, Operand, Origin, Rhs, Stmt,
    Syntax, VarId,
};
use crate::names::{self, Names, Role};
use crate::prim::{self, Arity};
use crate::signature::{ParamClass, Signature};
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use std::collections::{HashMap, HashSet};
use syn::Ident;

/// Lints that would fire on generated code without being the user's fault.
pub fn allow_lints() -> TokenStream {
    quote! {
        #[allow(
            dead_code,
            unused_variables,
            unused_mut,
            unused_parens,
            unused_assignments,
            unreachable_code,
            non_snake_case,
            clippy::all,
            clippy::pedantic
        )]
    }
}

/// Attributes of `f` that the generated functions should share.
pub fn inherited_attrs(item: &syn::ItemFn) -> Vec<&syn::Attribute> {
    item.attrs
        .iter()
        .filter(|attr| {
            let path = attr.path();
            ["cfg", "cfg_attr", "allow", "inline", "cold"]
                .iter()
                .any(|name| path.is_ident(name))
                || (path.is_ident("doc") && attr.to_token_stream().to_string().contains("hidden"))
        })
        .collect()
}

/// `f_grad` and `f_adjoint` for `item`.
///
/// A function with one active parameter, an `f64`, is differentiated in
/// forward mode (`tangent.rs`) when every construct allows it; any other
/// function, or one that construct refuses, gets the reverse sweep below.
pub fn emit(
    item: &syn::ItemFn,
    sig: &Signature,
    func: &Func,
    activity: &Activity,
    names: &Names,
) -> TokenStream {
    let (body, strategy) = match crate::tangent::emit(sig, func, activity, names) {
        Some(body) => (body, Strategy::Forward),
        None => (
            Body::new(sig, func, activity, names).emit(),
            Strategy::Reverse,
        ),
    };
    let adjoint = emit_adjoint(item, sig, &body, strategy);
    let grad = emit_grad(item, sig, &body, names);
    quote! {
        #[allow(dead_code)]
        #item
        #grad
        #adjoint
    }
}

/// The signature of `f_adjoint`: `f`'s inputs, `d_out`, then one `d_<p>`
/// per active parameter.
pub fn adjoint_signature(item: &syn::ItemFn, sig: &Signature) -> TokenStream {
    let name = names::adjoint_fn(&item.sig.ident);
    let inputs = item.sig.inputs.iter();
    let adjoints = sig.active().map(|p| {
        let (ident, ty) = (p.adjoint_ident(), p.adjoint_type());
        quote!(#ident: #ty)
    });
    let (vis, d_out) = (&item.vis, &sig.d_out);
    let (generics, where_clause) = (&item.sig.generics, &item.sig.generics.where_clause);
    quote! {
        #vis fn #name #generics (#(#inputs,)* #d_out: f64, #(#adjoints),*) -> f64 #where_clause
    }
}

/// The signature of `f_grad`: `f`'s inputs, returning the value and gradient.
pub fn grad_signature(item: &syn::ItemFn, sig: &Signature) -> TokenStream {
    let name = names::grad_fn(&item.sig.ident);
    let inputs = item.sig.inputs.iter();
    let gradient = gradient_type(sig);
    let vis = &item.vis;
    let (generics, where_clause) = (&item.sig.generics, &item.sig.generics.where_clause);
    quote! {
        #vis fn #name #generics (#(#inputs),*) -> (f64, #gradient) #where_clause
    }
}

fn gradient_type(sig: &Signature) -> TokenStream {
    let shapes: Vec<TokenStream> = sig.active().map(|p| p.gradient_type()).collect();
    match shapes.as_slice() {
        [single] => single.clone(),
        many => quote!((#(#many),*)),
    }
}

/// A comma-separated list of the active parameters, for docs.
fn active_list(sig: &Signature) -> String {
    let names: Vec<String> = sig
        .active()
        .filter_map(|p| p.name.as_ref().map(|n| format!("`{n}`")))
        .collect();
    if names.is_empty() {
        "no parameter".to_string()
    } else {
        names.join(", ")
    }
}

/// How the derivative is computed, for the adjoint's doc comment.
#[derive(Clone, Copy)]
enum Strategy {
    Forward,
    Reverse,
}

fn emit_adjoint(
    item: &syn::ItemFn,
    sig: &Signature,
    body: &TokenStream,
    strategy: Strategy,
) -> TokenStream {
    let signature = adjoint_signature(item, sig);
    let attrs = inherited_attrs(item);
    let allow = allow_lints();
    let fn_name = format!("{}_adjoint", item.sig.ident);
    let checks = sig.active().filter_map(|p| {
        let ParamClass::Slice = p.class else {
            return None;
        };
        let name = p.name.as_ref()?;
        let adjoint = p.adjoint_ident()?;
        let (name_str, adjoint_str) = (name.to_string(), adjoint.to_string());
        Some(quote! {
            ::autograd::__private::check_adjoint_len(
                #fn_name, #adjoint_str, #adjoint.len(), #name_str, #name.len(),
            );
        })
    });
    let doc = match strategy {
        Strategy::Reverse => format!(
            " Reverse-mode adjoint of `{}`, generated by `#[differentiable]`: returns the \
             value of `{}` and adds `d_out` times its partial derivative with respect to \
             each of {} into the matching `d_` argument.",
            item.sig.ident,
            item.sig.ident,
            active_list(sig)
        ),
        Strategy::Forward => format!(
            " Adjoint of `{}`, generated by `#[differentiable]` (computed in forward mode, \
             in one pass): returns the value of `{}` and adds `d_out` times its derivative \
             with respect to {} into the matching `d_` argument.",
            item.sig.ident,
            item.sig.ident,
            active_list(sig)
        ),
    };
    quote! {
        #[doc = #doc]
        #(#attrs)*
        #allow
        #signature {
            #(#checks)*
            #body
        }
    }
}

fn emit_grad(
    item: &syn::ItemFn,
    sig: &Signature,
    body: &TokenStream,
    names: &Names,
) -> TokenStream {
    let signature = grad_signature(item, sig);
    let attrs = inherited_attrs(item);
    let allow = allow_lints();
    let mut buffers = Vec::new();
    let mut results = Vec::new();
    for (index, param) in sig.params.iter().enumerate().filter(|(_, p)| p.active) {
        let (Some(name), Some(adjoint)) = (&param.name, param.adjoint_ident()) else {
            continue;
        };
        let storage = names.derived(Role::Gradient, index, name);
        let (init, ty) = match &param.class {
            ParamClass::Scalar => (quote!(0.0_f64), quote!(&mut f64)),
            ParamClass::Slice => (
                quote!(::autograd::__private::zeros(#name.len())),
                quote!(&mut [f64]),
            ),
            ParamClass::Array { len, .. } => (quote!([0.0_f64; #len]), quote!(&mut [f64; #len])),
            ParamClass::Constant => continue,
        };
        buffers.push(quote! {
            let mut #storage = #init;
            let #adjoint: #ty = &mut #storage;
        });
        results.push(storage);
    }
    let gradient = match results.as_slice() {
        [single] => quote!(#single),
        many => quote!((#(#many),*)),
    };
    let doc = format!(
        " The value of `{}` and its gradient with respect to {}, generated by \
         `#[differentiable]`.",
        item.sig.ident,
        active_list(sig)
    );
    let (d_out, value) = (&sig.d_out, names.fresh("__ad_value"));
    quote! {
        #[doc = #doc]
        #(#attrs)*
        #allow
        #signature {
            #(#buffers)*
            let #d_out = 1.0_f64;
            let #value = { #body };
            (#value, #gradient)
        }
    }
}

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
    /// What loops with saved exit values (`Body::exits`) do here.
    exits: Exits,
}

/// What a loop whose exit values are saved (`Body::exits`) does where it is
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

/// Builds the shared body of `f_adjoint` and `f_grad`: it reads the user's
/// parameters, `d_out`, and writes into the `d_<p>` adjoint arguments.
struct Body<'a> {
    sig: &'a Signature,
    func: &'a Func,
    activity: &'a Activity,
    names: &'a Names,
    /// Adjoint locals declared so far.
    declared: HashSet<VarId>,
    /// Variables whose adjoint receives contributions from a block nested in
    /// the one defining them: declared at the top of that block's reverse.
    eager: HashSet<VarId>,
    /// Tapes, declared once at the top of the function: (tape, cell).
    tapes: Vec<(Ident, VarId)>,
    /// Loop id → the tapes of its carried cells that are saved.
    loop_tapes: HashMap<usize, Vec<(Ident, VarId)>>,
    /// Local arrays that are stored into: their undo tapes.
    undo: HashMap<VarId, Ident>,
    /// Local arrays written, then read (`undo::write_before_read`): their
    /// stores are plain assignments, with no undo tape.
    plain_stores: HashSet<VarId>,
    /// For each `if` (by decision name) and loop (by id): the arrays stored
    /// into inside it, whether each is declared inside it too, and the name
    /// of its mark (the undo tape's length before an `if`; a loop's tape of
    /// such lengths, one per iteration).
    stores_in: HashMap<String, Vec<(VarId, bool, Ident)>>,
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
    spread_loads: HashSet<VarId>,
    /// While a loop body is replayed in its reverse: that loop's cells whose
    /// entry values are not restored. Updating them would compute values
    /// nothing reads (a loop-carried chain LLVM may keep), so it is skipped.
    dead_cells: HashSet<VarId>,
    /// Top-level loops whose reverse runs inside them (`fuse.rs`), by id.
    fused: HashMap<usize, Fused>,
    /// Calls whose partials the forward code computed (`call_with_partials`).
    forward_partials: HashSet<VarId>,
    /// Loops whose exit values are saved (`plan_exits`), by id.
    exits: HashMap<usize, SavedExits>,
}

/// Where a loop nested in another loop's body saves its exit values, so
/// that the outer loop's replays need not run it again (`plan_exits`).
struct SavedExits {
    /// The outer loop's index, and the first value of its range.
    outer_index: VarId,
    start: usize,
    /// The outer loop's trip count: the length of each array.
    len: usize,
    /// Each carried cell, with the array of its exit values.
    cells: Vec<(VarId, Ident)>,
}

/// The longest array of exit values `plan_exits` puts on the stack.
const MAX_SAVED_EXITS: usize = 256;

impl<'a> Body<'a> {
    fn new(sig: &'a Signature, func: &'a Func, activity: &'a Activity, names: &'a Names) -> Self {
        let mut body = Body {
            sig,
            func,
            activity,
            names,
            declared: HashSet::new(),
            eager: HashSet::new(),
            tapes: Vec::new(),
            loop_tapes: HashMap::new(),
            undo: HashMap::new(),
            plain_stores: crate::undo::write_before_read(func),
            stores_in: HashMap::new(),
            dead_cells: HashSet::new(),
            spread_loads: HashSet::new(),
            fused: crate::fuse::fused_loops(func, activity),
            forward_partials: HashSet::new(),
            exits: HashMap::new(),
        };
        body.plan();
        body.plan_spread_loads();
        body.plan_exits();
        body
    }

    /// Finds the eager adjoints and the tapes before emitting anything.
    fn plan(&mut self) {
        let mut def_block: HashMap<VarId, usize> = HashMap::new();
        let mut uses: Vec<(VarId, usize)> = Vec::new();
        let mut next_block = 1;
        scan(
            &self.func.body,
            0,
            &mut next_block,
            &mut def_block,
            &mut uses,
        );
        for (var, block) in uses {
            let defined_in = def_block.get(&var).copied().unwrap_or(0);
            if defined_in != block || self.func.vars[var].is_cell() {
                self.eager.insert(var);
            }
        }
        for (id, var) in self.func.vars.iter().enumerate() {
            if var.is_cell() || (var.kind == Kind::FloatArray && var.origin == Origin::Local) {
                self.eager.insert(id);
            }
        }
        // Arrays stored into get an undo tape; constructs that store into
        // them mark the tape so their reverse can undo them before a replay.
        let mut stored = Vec::new();
        self.func.body.walk(0, &mut |stmt, _| {
            if let Stmt::Store { array, .. } = stmt {
                stored.push(*array);
            }
        });
        for array in stored {
            if self.plain_stores.contains(&array) {
                continue;
            }
            let undo = self.names.derived(Role::Undo, array, self.ident(array));
            self.undo.entry(array).or_insert(undo);
        }
        let mut constructs = Vec::new();
        self.func.body.walk(0, &mut |stmt, _| match stmt {
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
                    let mark = self.names.fresh_for(prefix, self.ident(a));
                    (a, declared.contains(&a), mark)
                })
                .collect();
            self.stores_in.insert(key, entry);
        }
        for l in self.func.loops() {
            if self.fused.contains_key(&l.id) {
                // Each iteration is reversed right after it runs: nothing to save.
                continue;
            }
            let mut saved = Vec::new();
            for carried in &l.carried {
                if self.activity.needed(carried.entry) {
                    let tape =
                        self.names
                            .derived(Role::Tape, carried.cell, self.ident(carried.cell));
                    self.tapes.push((tape.clone(), carried.cell));
                    saved.push((tape, carried.cell));
                }
            }
            self.loop_tapes.insert(l.id, saved);
        }
    }

    /// Finds the loads of `spread_loads`.
    fn plan_spread_loads(&mut self) {
        for body in self.func.loops().into_iter().map(|l| &l.body) {
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
    /// (it is never replayed) and run at most `MAX_SAVED_EXITS` times (the
    /// arrays live on the stack).
    fn plan_exits(&mut self) {
        let mut skippable = Vec::new();
        for outer in self.func.loops() {
            let Header::Range { index, range } = &outer.header else {
                continue;
            };
            if self.fused.contains_key(&outer.id) {
                continue; // never replayed
            }
            let Some((start, end)) = constant_range(&range.tokens) else {
                continue;
            };
            let len = end.saturating_sub(start);
            if len == 0 || len > MAX_SAVED_EXITS {
                continue;
            }
            for stmt in &outer.body.stmts {
                let Stmt::Loop(inner) = stmt else { continue };
                let simple = matches!(inner.header, Header::Range { .. })
                    && !inner.breaks
                    && !inner.carried.is_empty()
                    && self.loop_tapes.get(&inner.id).map_or(true, Vec::is_empty)
                    && inner
                        .carried
                        .iter()
                        .all(|c| self.func.vars[c.cell].kind == Kind::Float);
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
                            self.names.derived(Role::Exits, c.cell, self.ident(c.cell)),
                        )
                    })
                    .collect();
                self.exits.insert(
                    inner.id,
                    SavedExits {
                        outer_index: *index,
                        start,
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
    fn construct_stores(&self, key: &str) -> Vec<(VarId, Ident, bool, Ident)> {
        self.stores_in
            .get(key)
            .map(|v| {
                v.iter()
                    .map(|(a, inside, mark)| (*a, self.undo[a].clone(), *inside, mark.clone()))
                    .collect()
            })
            .unwrap_or_default()
    }

    fn emit(mut self) -> TokenStream {
        let stmts = &self.func.body.stmts;
        let (value, span) = match stmts.last() {
            Some(Stmt::Return { value, span }) => (Some(value), *span),
            _ => (None, Span::call_site()),
        };
        let mut tapes: Vec<TokenStream> = self
            .tapes
            .iter()
            .map(|(tape, _)| quote!(let mut #tape = ::std::vec::Vec::new();))
            .collect();
        let mut undo: Vec<(&VarId, &Ident)> = self.undo.iter().collect();
        undo.sort();
        for (_, tape) in undo {
            tapes.push(
                quote!(let mut #tape: ::std::vec::Vec<(usize, f64)> = ::std::vec::Vec::new();),
            );
        }
        let loops: Vec<usize> = self.func.loops().iter().map(|l| l.id).collect();
        for id in loops {
            for (_, _, _, marks) in self.construct_stores(&loop_key(id)) {
                tapes
                    .push(quote!(let mut #marks: ::std::vec::Vec<usize> = ::std::vec::Vec::new();));
            }
        }
        let mut exits: Vec<&SavedExits> = self.exits.values().collect();
        exits.sort_by_key(|e| e.cells[0].0);
        for saved in exits {
            let len = proc_macro2::Literal::usize_unsuffixed(saved.len);
            for (_, array) in &saved.cells {
                tapes.push(quote!(let mut #array: [f64; #len] = [0.0; #len];));
            }
        }
        let top = Mode {
            record: true,
            replay: false,
            native_loop: false,
            exits: Exits::Run,
        };
        let forward = self.forward(&self.func.body, top);
        let Some(value) = value else {
            // The body never returns a value (it diverges, or has an error
            // rustc reports on the original function).
            return quote!(#(#tapes)* #(#forward)*);
        };
        let (mut setup, value_tokens) = match value {
            Operand::Var(v) => (Vec::new(), self.ident(*v).to_token_stream()),
            Operand::Const(c) => {
                let tokens = &c.tokens;
                let value = self.names.fresh("__ad_value");
                (
                    vec![quote_spanned!(span=> let #value: f64 = #tokens;)],
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
            if self.eager.contains(&p) && self.declared.insert(p) {
                let adjoint = self.adjoint(p);
                setup.push(quote!(let mut #adjoint: f64 = 0.0;));
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
            #value_tokens
        }
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

    // ----- forward sweep ---------------------------------------------------

    fn forward(&mut self, block: &Block, mode: Mode) -> Vec<TokenStream> {
        let mut out = Vec::new();
        for stmt in &block.stmts {
            match stmt {
                Stmt::Let {
                    var,
                    ty,
                    init: Some(Rhs::Call { callee, args }),
                } if mode.record && !mode.replay && self.partials_in_forward(*var, args) => {
                    out.extend(self.call_with_partials(*var, ty.as_ref(), callee, args));
                }
                Stmt::Let { var, ty, init } => {
                    let ident = self.ident(*var);
                    let var_info = &self.func.vars[*var];
                    let is_array = matches!(init, Some(Rhs::Array(_)));
                    let mutability = (var_info.is_cell() || is_array).then(|| quote!(mut));
                    let ty = let_type(ty.as_ref(), init.as_ref());
                    let init = init.as_ref().map(|rhs| {
                        let value = self.forward_rhs(rhs);
                        quote!(= #value)
                    });
                    out.push(quote!(let #mutability #ident #ty #init;));
                }
                Stmt::Update { cell, value } => {
                    if mode.replay && self.dead_cells.contains(cell) {
                        continue;
                    }
                    let (cell, value) = (self.ident(*cell), self.operand(value));
                    out.push(quote!(#cell = #value;));
                }
                Stmt::Store {
                    array,
                    index,
                    value,
                } if self.plain_stores.contains(array) => {
                    let (array, index, value) =
                        (self.ident(*array), &index.tokens, self.operand(value));
                    out.push(quote!(#array[#index] = #value;));
                }
                Stmt::Store {
                    array,
                    index,
                    value,
                } => {
                    // The store saves what it overwrites, for the reverse sweep.
                    let undo = &self.undo[array];
                    let (array, index, value) =
                        (self.ident(*array), &index.tokens, self.operand(value));
                    let i = self.names.fresh("__ad_i");
                    out.push(quote! {
                        {
                            let #i: usize = #index;
                            #undo.push((#i, #array[#i]));
                            #array[#i] = #value;
                        }
                    });
                }
                Stmt::Opaque { tokens, replay } => {
                    if !mode.replay || *replay {
                        out.push(tokens.clone());
                    }
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
                    let cond = &cond.tokens;
                    let marks = self
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
                // Only loops in the function body are fused, and its forward
                // code is emitted once, recording (the guard is that).
                Stmt::Loop(l) if self.fused.contains_key(&l.id) && mode.record && !mode.replay => {
                    out.push(self.fused_loop(l));
                }
                Stmt::Loop(l) if self.exits.contains_key(&l.id) => {
                    let saved = &self.exits[&l.id];
                    let outer = self.ident(saved.outer_index);
                    let slot = match saved.start {
                        0 => quote!([#outer as usize]),
                        start => {
                            let start = proc_macro2::Literal::usize_unsuffixed(start);
                            quote!([(#outer - #start) as usize])
                        }
                    };
                    let cells: Vec<(Ident, Ident)> = saved
                        .cells
                        .iter()
                        .map(|(cell, array)| (self.ident(*cell).clone(), array.clone()))
                        .collect();
                    if mode.exits == Exits::Restore {
                        for (cell, array) in &cells {
                            out.push(quote!(#cell = #array #slot;));
                        }
                        continue;
                    }
                    out.push(self.forward_loop(l, mode));
                    if mode.exits == Exits::Save {
                        for (cell, array) in &cells {
                            out.push(quote!(#array #slot = #cell;));
                        }
                    }
                }
                Stmt::Loop(l) => out.push(self.forward_loop(l, mode)),
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
        }
        out
    }

    fn forward_loop(&mut self, l: &crate::ir::Loop, mode: Mode) -> TokenStream {
        let counter = self.counter(l.id);
        let body_mode = Mode {
            record: false,
            replay: mode.replay,
            native_loop: true,
            exits: if mode.record { Exits::Save } else { Exits::Run },
        };
        let body = self.forward(&l.body, body_mode);
        let count = l.breaks.then(|| quote!(#counter += 1;));
        let declare_counter = l.breaks.then(|| quote!(let mut #counter: usize = 0;));
        let saved = self.loop_tapes.get(&l.id).cloned().unwrap_or_default();
        let (mut reserve, mut push) = (Vec::new(), Vec::new());
        if mode.record {
            for (_, undo, _, marks) in self.construct_stores(&loop_key(l.id)) {
                push.push(quote!(#marks.push(#undo.len());));
            }
            for (tape, cell) in &saved {
                let cell = self.ident(*cell);
                push.push(quote!(#tape.push(#cell.clone());));
                if let Header::Range { range, .. } = &l.header {
                    let range = &range.tokens;
                    reserve.push(quote!(#tape.reserve((#range).size_hint().0);));
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
        quote! {
            #declare_counter
            #(#reserve)*
            #head {
                #count
                #(#push)*
                #(#body)*
            }
        }
    }

    /// A loop that only accumulates, reversed as it runs (`fuse.rs`): each
    /// iteration runs its body, then reverses it with the accumulators'
    /// adjoints, known before the loop. Nothing is saved or replayed.
    fn fused_loop(&mut self, l: &crate::ir::Loop) -> TokenStream {
        let Fused {
            index,
            range,
            seeds,
        } = &self.fused[&l.id];
        let (index, range, seeds) = (*index, range.clone(), seeds.clone());
        let mut out = Vec::new();
        let mut seed_names = Vec::new();
        for (cell, expr) in &seeds {
            let seed = self.seed(*cell);
            out.push(quote!(let #seed: f64 = #expr;));
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
                (Kind::Float, _) => out.push(quote!(let mut #adjoint: f64 = 0.0;)),
                (Kind::FloatArray, Origin::Local) => {
                    let array = self.ident(var);
                    out.push(
                        quote!(let mut #adjoint = ::autograd::__private::zeros_like(&#array);),
                    );
                }
                // parameters' buffers are the caller's `d_<p>`
                _ => continue,
            }
            self.declared.insert(var);
        }
        let outer_declared = self.declared.clone();
        self.declared.extend(seeds.iter().map(|(cell, _)| *cell));
        let mode = Mode {
            record: true,
            replay: false,
            native_loop: false,
            exits: Exits::Run,
        };
        let body = self.forward(&l.body, mode);
        let reverse = self.reverse(&l.body);
        // What the body declared lives in its scope.
        self.declared = outer_declared;
        let (d_cells, seeds): (Vec<Ident>, Vec<Ident>) = seed_names.into_iter().unzip();
        let (index, range) = (self.ident(index), &range.tokens);
        out.push(quote! {
            {
                #(let mut #d_cells: f64;)*
                for #index in #range {
                    #(#body)*
                    #(#d_cells = #seeds;)*
                    #(#reverse)*
                }
            }
        });
        quote!(#(#out)*)
    }

    /// The value of `rhs`, written as the user would.
    fn forward_rhs(&self, rhs: &Rhs) -> TokenStream {
        primal_rhs(self.func, rhs)
    }

    // ----- reverse sweep ---------------------------------------------------

    fn reverse(&mut self, block: &Block) -> Vec<TokenStream> {
        let mut out = Vec::new();
        // Adjoints that nested blocks contribute to exist from the start.
        for stmt in &block.stmts {
            if let Stmt::Let { var, .. } = stmt {
                let var = *var;
                if !self.eager.contains(&var) || !self.activity.needs_adjoint(var) {
                    continue;
                }
                let adjoint = self.adjoint(var);
                let kind = self.func.vars[var].kind;
                if kind == Kind::Float && self.declared.insert(var) {
                    out.push(quote!(let mut #adjoint: f64 = 0.0;));
                } else if kind == Kind::FloatArray && self.declared.insert(var) {
                    let array = self.ident(var);
                    out.push(
                        quote!(let mut #adjoint = ::autograd::__private::zeros_like(&#array);),
                    );
                }
            }
        }
        for stmt in block.stmts.iter().rev() {
            match stmt {
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
                    out.push(quote!(#d_cell = 0.0;));
                }
                Stmt::Store {
                    array,
                    index,
                    value,
                } if self.plain_stores.contains(array) && self.activity.needs_adjoint(*array) => {
                    // Nothing to restore: recompute the index for the adjoint.
                    let i = self.names.fresh("__ad_i");
                    let index = &index.tokens;
                    out.push(quote!(let #i: usize = #index;));
                    self.reverse_store(&mut out, *array, &i, value);
                }
                Stmt::Store { array, .. } if self.plain_stores.contains(array) => {}
                Stmt::Store { array, value, .. } => {
                    let undo = &self.undo[array];
                    let (i, old) = (self.names.fresh("__ad_i"), self.names.fresh("__ad_old"));
                    let name = self.ident(*array).clone();
                    out.push(quote! {
                        let (#i, #old) = ::autograd::__private::pop(&mut #undo);
                        #name[#i] = #old;
                    });
                    if self.activity.needs_adjoint(*array) {
                        self.reverse_store(&mut out, *array, &i, value);
                    }
                }
                Stmt::If {
                    decision,
                    then_,
                    else_,
                    ..
                } => {
                    let then_code = self.reverse_branch(then_);
                    let else_code = self.reverse_branch(else_);
                    // Undo the branch's stores, so a replay starts where the
                    // branch started.
                    let undo: Vec<TokenStream> = self
                        .construct_stores(&decision.to_string())
                        .into_iter()
                        .map(|(array, tape, inside, mark)| {
                            if inside {
                                quote!(#tape.truncate(#mark);)
                            } else {
                                let array = self.ident(array);
                                quote!(::autograd::__private::undo_to(&mut #array, &mut #tape, #mark);)
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
                // reversed inside its forward code (`fused_loop`)
                Stmt::Loop(l) if self.fused.contains_key(&l.id) => {}
                Stmt::Loop(l) => {
                    if let Some(code) = self.reverse_loop(l) {
                        out.push(code);
                    }
                }
                _ => {}
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
        };
        let mut out = self.forward(block, replay);
        out.extend(reverse);
        out
    }

    fn reverse_loop(&mut self, l: &crate::ir::Loop) -> Option<TokenStream> {
        let reverse = self.reverse(&l.body);
        let saved = self.loop_tapes.get(&l.id).cloned().unwrap_or_default();
        let stores = self.construct_stores(&loop_key(l.id));
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
                    quote! {
                        let #mark = ::autograd::__private::pop(&mut #marks);
                        ::autograd::__private::undo_to(&mut #array, &mut #tape, #mark);
                    }
                }
            })
            .collect();
        let replay = Mode {
            record: true,
            replay: true,
            native_loop: false,
            exits: Exits::Restore,
        };
        let saved_cells: HashSet<VarId> = saved.iter().map(|(_, cell)| *cell).collect();
        let dead: HashSet<VarId> = l
            .carried
            .iter()
            .map(|c| c.cell)
            .filter(|c| !saved_cells.contains(c))
            .collect();
        let outer_dead = std::mem::replace(&mut self.dead_cells, dead);
        let body = self.forward(&l.body, replay);
        self.dead_cells = outer_dead;
        let restore = saved.iter().map(|(tape, cell)| {
            let cell = self.ident(*cell);
            quote!(#cell = ::autograd::__private::pop(&mut #tape);)
        });
        let counter = self.counter(l.id);
        // Stores into arrays declared outside the loop (`plain_stores`, not
        // in `stores`) must be reversed last to first: an element written
        // by two iterations gives its adjoint to the last write.
        let in_order = stores.is_empty() && crate::fuse::stores_stay_inside(&l.body);
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
                let d_cells: Vec<Ident> = cells.iter().map(|c| self.adjoint(*c)).collect();
                let seeds: Vec<Ident> = cells.iter().map(|c| self.seed(*c)).collect();
                let (index, range) = (self.ident(*index), &range.tokens);
                return Some(quote! {
                    #(let #seeds: f64 = #d_cells;)*
                    for #index in #range {
                        #(#d_cells = #seeds;)*
                        #(#body)*
                        #(#reverse)*
                    }
                    #(#d_cells = #seeds;)*
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

    /// Whether the call defining `var` gets its partials in the forward
    /// code (`call_with_partials`): in a block that is not replayed (the
    /// caller checks), when the result needs an adjoint and only scalar
    /// arguments vary (an array's partials would need a buffer).
    fn partials_in_forward(&self, var: VarId, args: &[CallArg]) -> bool {
        self.activity.needs_adjoint(var)
            && args.iter().all(|arg| match arg {
                CallArg::Array { array, .. } => !self.activity.needs_adjoint(*array),
                _ => true,
            })
    }

    /// The slot that receives the partial of call `var` with respect to its
    /// `k`-th argument, when it is computed in the forward code.
    fn call_partial(&self, var: VarId, k: usize) -> Ident {
        self.names
            .derived(Role::CallPartial(k), var, self.ident(var))
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
            match arg {
                CallArg::Float(Operand::Var(v)) if self.activity.needs_adjoint(*v) => {
                    let slot = self.call_partial(var, k);
                    // -0.0, not 0.0: `-0.0 + p` is `p` for every `p`, so once
                    // the callee is inlined its `*d_x += p` folds to a move.
                    out.push(quote!(let mut #slot: f64 = -0.0;));
                    slots.push(quote!(&mut #slot));
                }
                _ => {}
            }
        }
        let call = adjoint_call(self.func, callee, args, quote!(1.0_f64), &slots);
        let ident = self.ident(var);
        let ty = ty.map(|ty| quote!(: #ty));
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
        let d_var = self.adjoint(var);
        if self.forward_partials.contains(&var) {
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
                    if self.declared.insert(*v) {
                        let adjoint = self.adjoint(*v);
                        out.push(quote!(let mut #adjoint: f64 = 0.0;));
                    }
                    let adjoint = self.adjoint(*v);
                    if shared(v) {
                        let scratch = self.names.fresh("__ad_slot");
                        before.push(quote!(let mut #scratch: f64 = 0.0;));
                        after.push(quote!(#adjoint += #scratch;));
                        slots.push(quote!(&mut #scratch));
                    } else {
                        slots.push(quote!(&mut #adjoint));
                    }
                }
                CallArg::Array { array, range, .. } if self.activity.needs_adjoint(*array) => {
                    let buffer = self.array_adjoint(*array);
                    let is_param = matches!(self.func.vars[*array].origin, Origin::Param { .. });
                    let part = match range {
                        Some(range) => {
                            let range = &range.tokens;
                            quote!(#buffer[#range])
                        }
                        None => quote!(#buffer[..]),
                    };
                    if shared(array) {
                        let scratch = self.names.fresh("__ad_slot");
                        let (d, v) = (self.names.fresh("__ad_d"), self.names.fresh("__ad_v"));
                        before.push(quote! {
                            let mut #scratch = ::autograd::__private::zeros(#part.len());
                        });
                        after.push(quote! {
                            for (#d, #v) in #part.iter_mut().zip(&#scratch) {
                                *#d += *#v;
                            }
                        });
                        slots.push(quote!(&mut #scratch));
                    } else {
                        slots.push(match (range, is_param) {
                            (Some(_), _) => quote!(&mut #part),
                            (None, true) => quote!(&mut *#buffer),
                            (None, false) => quote!(&mut #buffer),
                        });
                    }
                }
                _ => {}
            }
        }
        out.extend(before);
        let call = adjoint_call(self.func, callee, args, quote!(#d_var), &slots);
        out.push(quote!(#call;));
        out.extend(after);
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
        }
        out.push(quote!(#d_array[#i] = 0.0;));
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

    /// The trip counter of loop `id` (a loop that may `break`).
    fn counter(&self, id: usize) -> Ident {
        let of = Ident::new("n", Span::call_site());
        self.names.derived(Role::Counter, id, &of)
    }

    /// Adds `amount` to the adjoint of `var`, declaring it on first use.
    fn contribute(&mut self, out: &mut Vec<TokenStream>, var: VarId, amount: TokenStream) {
        let adjoint = self.adjoint(var);
        if self.declared.insert(var) {
            out.push(quote!(let mut #adjoint: f64 = #amount;));
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
            Rhs::Load { array, index } => {
                let buffer = self.array_adjoint(*array);
                let index = &index.tokens;
                if self.spread_loads.contains(&var) {
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
                if self.activity.needs_adjoint(*source) {
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
                let partials = rule_partials(self.func, self.names, out, var, prim, args, &|v| {
                    activity.needs_adjoint(v)
                });
                for (target, partial) in partials {
                    self.contribute(out, target, quote!(#d_var * #partial));
                }
            }
        }
    }
}

/// The value of `rhs`, written as the user would (the primal code of both
/// strategies).
pub(crate) fn primal_rhs(func: &Func, rhs: &Rhs) -> TokenStream {
    match rhs {
        Rhs::Use(op) => operand(func, op),
        Rhs::Array(ArrayInit::Fill { value, len, vec }) => {
            let value = &value.tokens;
            if *vec {
                quote!(::std::vec![#value; #len])
            } else {
                quote!([#value; #len])
            }
        }
        Rhs::Array(ArrayInit::List { items, vec }) => {
            let items = items.iter().map(|i| operand(func, i));
            if *vec {
                quote!(::std::vec![#(#items),*])
            } else {
                quote!([#(#items),*])
            }
        }
        Rhs::Array(ArrayInit::Copy { source, vec }) => {
            let source = &func.vars[*source].ident;
            if *vec {
                quote!(#source.to_vec())
            } else {
                quote!(#source.clone())
            }
        }
        Rhs::Call { callee, args } => {
            let args = args.iter().map(|a| call_arg(func, a));
            match callee {
                Callee::Path { path, .. } => quote!(#path(#(#args),*)),
                Callee::Method { receiver, method } => {
                    let receiver = &receiver.tokens;
                    quote!(#receiver.#method(#(#args),*))
                }
            }
        }
        Rhs::Load { array, index } => {
            let (array, index) = (&func.vars[*array].ident, &index.tokens);
            quote!(#array[#index])
        }
        Rhs::Prim { prim, args, syntax } => {
            let args: Vec<TokenStream> = args.iter().map(|a| operand(func, a)).collect();
            match syntax {
                Syntax::Operator => {
                    let op = if std::ptr::eq(*prim, &prim::ADD) {
                        quote!(+)
                    } else if std::ptr::eq(*prim, &prim::SUB) {
                        quote!(-)
                    } else if std::ptr::eq(*prim, &prim::MUL) {
                        quote!(*)
                    } else if std::ptr::eq(*prim, &prim::DIV) {
                        quote!(/)
                    } else {
                        let a = &args[0];
                        return quote!(-#a);
                    };
                    let (a, b) = (&args[0], &args[1]);
                    quote!(#a #op #b)
                }
                Syntax::Method => {
                    let name = Ident::new(prim.name, Span::call_site());
                    let (recv, rest) = args.split_first().expect("arity >= 1");
                    quote!(#recv.#name(#(#rest),*))
                }
                Syntax::Path => {
                    let name = Ident::new(prim.name, Span::call_site());
                    quote!(f64::#name(#(#args),*))
                }
            }
        }
    }
}

/// The type annotation of `let var = init;` (`: T`, or nothing): the user's,
/// else, for a new float array, its type, so that no element is an
/// ambiguous `{float}` (`vec![0.0; n]` read as `b[i].cos()`).
pub(crate) fn let_type(ty: Option<&TokenStream>, init: Option<&Rhs>) -> Option<TokenStream> {
    if let Some(ty) = ty {
        return Some(quote!(: #ty));
    }
    match init? {
        Rhs::Array(ArrayInit::Fill { vec: true, .. } | ArrayInit::List { vec: true, .. }) => {
            Some(quote!(: ::std::vec::Vec<f64>))
        }
        Rhs::Array(ArrayInit::Fill { len, .. }) => Some(quote!(: [f64; #len])),
        Rhs::Array(ArrayInit::List { items, .. }) => {
            let len = proc_macro2::Literal::usize_unsuffixed(items.len());
            Some(quote!(: [f64; #len]))
        }
        _ => None,
    }
}

/// An operand as Rust tokens.
pub(crate) fn operand(func: &Func, op: &Operand) -> TokenStream {
    match op {
        Operand::Var(v) => func.vars[*v].ident.to_token_stream(),
        Operand::Const(c) => c.tokens.clone(),
    }
}

/// `callee_adjoint(args.., d_out, slots..)`: the call of a callee's adjoint
/// (`g_adjoint` by path, or `receiver.g_adjoint` for a method), shared by the
/// reverse sweep (`d_out` the result's adjoint), `call_with_partials` and
/// forward mode (`d_out = 1`).
pub(crate) fn adjoint_call(
    func: &Func,
    callee: &Callee,
    args: &[CallArg],
    d_out: TokenStream,
    slots: &[TokenStream],
) -> TokenStream {
    let args = args.iter().map(|a| call_arg(func, a));
    match callee {
        Callee::Path { adjoint, .. } => quote!(#adjoint(#(#args,)* #d_out, #(#slots),*)),
        Callee::Method { receiver, method } => {
            let receiver = &receiver.tokens;
            let adjoint = names::adjoint_fn(method);
            quote!(#receiver.#adjoint(#(#args,)* #d_out, #(#slots),*))
        }
    }
}

/// An argument of a call, as the user wrote it.
pub(crate) fn call_arg(func: &Func, arg: &CallArg) -> TokenStream {
    match arg {
        CallArg::Float(op) => operand(func, op),
        CallArg::Array { tokens, .. } => tokens.clone(),
        CallArg::Const(c) => c.tokens.clone(),
    }
}

/// The local partial derivatives of `var = prim(args)` with respect to the
/// operands for which `active` holds, each as an expression calling
/// `::autograd::__private::rules::<name>(args.., var)`, paired with the
/// operand it belongs to (an operand read twice, `x * x`, comes twice). When
/// more than one is needed, the rule's tuple is bound first to
/// `__ad_p_<var>` (pushed on `out`). `powi`'s exponent is never a target.
/// Shared by the reverse sweep (`d_arg += d_var * partial`) and forward
/// mode (`dot_var = Σ partial * dot_arg`).
pub(crate) fn rule_partials(
    func: &Func,
    names: &Names,
    out: &mut Vec<TokenStream>,
    var: VarId,
    prim: &prim::Prim,
    args: &[Operand],
    active: &dyn Fn(VarId) -> bool,
) -> Vec<(VarId, TokenStream)> {
    let rule = Ident::new(prim.name, Span::call_site());
    let operands: Vec<TokenStream> = args.iter().map(|a| operand(func, a)).collect();
    let result = func.vars[var].ident.clone();
    let call = quote!(::autograd::__private::rules::#rule(#(#operands,)* #result));
    let targets: Vec<(usize, VarId)> = args
        .iter()
        .enumerate()
        .filter_map(|(i, op)| match op {
            Operand::Var(v) if active(*v) => Some((i, *v)),
            _ => None,
        })
        .filter(|(i, _)| !(prim.arity == Arity::PowI && *i == 1))
        .collect();
    let single_partial = matches!(prim.arity, Arity::Unary | Arity::PowI);
    match targets.as_slice() {
        [] => Vec::new(),
        [(_, target)] if single_partial => vec![(*target, call)],
        [(i, target)] => {
            let field = syn::Index::from(*i);
            vec![(*target, quote!(#call.#field))]
        }
        many => {
            let partials = names.derived(Role::Partials, var, &result);
            out.push(quote!(let #partials = #call;));
            many.iter()
                .map(|&(i, target)| {
                    let field = syn::Index::from(i);
                    (target, quote!(#partials.#field))
                })
                .collect()
        }
    }
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

/// The key of loop `id` in `Body::stores_in` (an `if`'s is its decision).
fn loop_key(id: usize) -> String {
    format!("{LOOP_KEY}{id}")
}

/// Starts every loop's key in `Body::stores_in`; decisions start `__ad_`.
const LOOP_KEY: &str = "loop ";
