//! Lowering: the function body (syn) becomes the IR of [`crate::ir`].
//!
//! Name resolution happens here. Every binding and every assignment makes a
//! new variable with a unique emitted name (SSA), so the reverse sweep can
//! read any value the forward sweep computed. A local assigned inside an
//! `if` or a loop gets a *cell*: the construct updates it where control
//! leaves, and the code after the construct (and each loop iteration) reads
//! it into a new version. Sub-expressions that carry no derivative
//! (literals, `n as f64`, constant parameters, integer arithmetic,
//! comparisons) are kept whole as Rust tokens. Everything outside the
//! supported subset is reported to the [`Ctxt`] at its span; lowering then
//! carries on with a placeholder, so all errors are reported at once.

mod buffers;
mod expr;
mod fusion;
mod in_place;
mod iter;
mod matches;
mod matrix;
mod pattern;
mod share;
pub(crate) mod syntax;
mod tabulate;
mod unroll;

use crate::ctxt::Ctxt;
use crate::ir::{
    ArrayInit, Block, Carried, Const, Func, Header, Jump, Kind, Loop, Operand, Origin, Rhs, Stmt,
    Var, VarId,
};
use crate::names::Names;
use crate::signature::{is_f64, ParamClass, Signature};
use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use std::collections::{HashMap, HashSet};
use syn::spanned::Spanned;
use syn::{Expr, Ident, Pat};

pub use crate::names::collect_idents;
pub use syntax::{string_literals, strip_parens};

/// Statement macros that run unchanged in the forward sweep.
const STATEMENT_MACROS: &[&str] = &[
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "print",
    "println",
    "eprint",
    "eprintln",
];

/// Lowers the body of `item`, whose signature has been analysed into `sig`.
///
/// A local first set to a constant whose type the macro cannot see, then
/// given a float in a loop (`let mut e = h(1.0); for .. { e += y[i]; }`), is
/// only found to be a float once the loop's body is lowered, after the
/// body's first read of it was taken for a constant: the body is lowered
/// again with that local a float from its `let` (`Lowerer::force_float`),
/// until nothing changes.
///
/// Small loop nests with literal trip counts are lowered written out
/// (`unroll.rs`), unless that body does not lower: then the body as written
/// is, so that errors point at the user's code once.
pub fn lower(cx: &Ctxt, sig: &Signature, item: &syn::ItemFn, names: &Names) -> Func {
    let mut unrolled = (*item.block).clone();
    buffers::place_buffers(&mut unrolled);
    if unroll::unroll_small_nests(&mut unrolled) {
        let (errors, checkpoint) = (cx.error_count(), names.checkpoint());
        let func = lower_body(cx, sig, unrolled, names);
        if cx.error_count() == errors {
            return func;
        }
        cx.truncate(errors);
        names.rollback(&checkpoint);
    }
    lower_as_written(cx, sig, item, names)
}

/// The body as written, its small nests kept as loops: what [`lower`]
/// falls back to, and what the unit tests of the analyses of loops read.
pub fn lower_as_written(cx: &Ctxt, sig: &Signature, item: &syn::ItemFn, names: &Names) -> Func {
    lower_body(cx, sig, (*item.block).clone(), names)
}

fn lower_body(cx: &Ctxt, sig: &Signature, mut body: syn::Block, names: &Names) -> Func {
    syntax::for_each_loops(&mut body);
    syntax::flat_map_loops(&mut body, names);
    syntax::mem_swaps(&mut body);
    syntax::if_let_elements(&mut body);
    syntax::rewrite_labeled_jumps(&mut body, names);
    syntax::rewrite_returns_in_loops(&mut body, names);
    buffers::place_buffers(&mut body);
    let errors = cx.error_count();
    let mut force_float = HashSet::new();
    let checkpoint = names.checkpoint();
    loop {
        names.rollback(&checkpoint);
        let mut lowerer = Lowerer::new(cx, names);
        lowerer.returns_f64 = sig.returns_f64;
        lowerer.force_float = force_float.clone();
        lowerer.declare_params(sig);
        lowerer.lower_stmts(&body.stmts, Some(Sink::Return), &[]);
        lowerer.in_place.check(cx);
        let new: Vec<String> = lowerer
            .became_float
            .iter()
            .filter(|name| !force_float.contains(*name))
            .cloned()
            .collect();
        if new.is_empty() || force_float.len() > 64 {
            let mut func = Func {
                vars: lowerer.vars,
                body: Block {
                    stmts: lowerer.stmts,
                },
                swaps: lowerer.swaps,
                tables: HashMap::new(),
                tabulated: HashSet::new(),
            };
            share::share_loads(&mut func);
            tabulate::tabulate(&mut func, names);
            crate::views::mark(&mut func);
            return func;
        }
        cx.truncate(errors);
        force_float.extend(new);
    }
}

/// Where the value of a block's tail expression goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sink {
    /// It is the function's value (only at the end of the body).
    Return,
    /// Into this cell (an `if` used as a value, or the function's value
    /// when it is returned from inside an `if`).
    Cell(VarId),
}

/// What must happen where control leaves a construct normally: the cell of
/// each local the construct assigns gets the local's current version, as
/// bound in the construct's scope frame `frame`.
#[derive(Clone)]
struct Exit {
    name: String,
    cell: VarId,
    frame: usize,
}

/// An enclosing loop, while its body is lowered.
struct LoopCtx {
    exits: Vec<Exit>,
    breaks: bool,
    label: Option<String>,
}

struct Lowerer<'a> {
    cx: &'a Ctxt,
    vars: Vec<Var>,
    /// Innermost scope last: user name → variable.
    scopes: Vec<HashMap<String, VarId>>,
    /// Per scope, like `scopes`: the names a `let` (or a parameter, or a loop
    /// index) declared there, as opposed to bindings copied in to shadow.
    declared: Vec<HashSet<String>>,
    /// Per scope, like `scopes`: element reads of parameter arrays already
    /// lowered, by array and index, so `x[0]` read twice is one value.
    loads: Vec<HashMap<(VarId, String), VarId>>,
    /// Gives out every name (`names.rs`).
    names: &'a Names,
    /// Constant locals whose value may be a float (`let i = SCALE;`): a
    /// call may offer them a slot.
    maybe_float: HashSet<VarId>,
    /// Cells of `if`s used as values given a constant that may be a float
    /// (`SCALE`), and those given one that is certainly not (`1`, `true`):
    /// an `if` of the first kind only may be a float (`Lowerer::
    /// lower_if_value`).
    maybe_float_cells: HashSet<VarId>,
    not_float_cells: HashSet<VarId>,
    /// Names of locals to take for floats where their `let` gives them a
    /// constant of a type the macro cannot see (see [`lower`]).
    force_float: HashSet<String>,
    /// The locals standing for a `loop` used as a value without a type
    /// (`syntax::loop_values`), with the `loop`'s span: refused unless floats.
    loop_values: HashMap<String, proc_macro2::Span>,
    /// Names of locals whose loop cell was a constant when the loop began
    /// and a float when it ended (see [`lower`]).
    became_float: HashSet<String>,
    /// While the pattern of a `let` is bound: the names it binds that the
    /// rest of its block assigns a float-looking value
    /// (`syntax::float_assigned_after`); empty otherwise.
    assigned_later: HashSet<String>,
    /// Locals bound with a type annotation that is not `f64` (`let mut w:
    /// f32 = 0.5;`, by name, while that binding is the visible one): their
    /// assignments keep that type (`w += 0.25` is an `f32`, not a float the
    /// macro would type `f64`).
    typed_not_f64: HashSet<String>,
    /// Numbers the temporaries (`__ad_t3`), for readable listings.
    temps: usize,
    loop_ids: usize,
    /// Statements of the block being lowered.
    stmts: Vec<Stmt>,
    loops: Vec<LoopCtx>,
    /// Where `return v` sends `v`.
    function_sink: Sink,
    /// Variables declared with `let x;` and not yet assigned.
    uninit: HashSet<VarId>,
    /// The signature returns `f64`. When it does not (an error already
    /// reported), returned expressions are not checked again.
    returns_f64: bool,
    /// The types of `sum()` and `product()` calls written without one
    /// (`::<f64>`) where the code around says it: `let n: usize =
    /// ..sum();`, a function's `f64` value. By the call's tokens; read by
    /// `iter.rs`, where the element alone may not tell (`x.get(i)
    /// .copied().unwrap_or(0.5)`, a helper's value).
    consumer_types: HashMap<String, syn::Type>,
    /// `fn`s declared inside the body that are not inlined
    /// (`bind_inner_fn`): a differentiated call of one is refused.
    inner_fns_kept: HashSet<String>,
    /// Locals whose `let` had an error: later uses are not reported again.
    poisoned: HashSet<VarId>,
    /// The value of a block used as one (a closure's body), lowered apart
    /// after its statements (`lower_block_bound`): what the next
    /// `lower_stmts` scans with them for how its locals are used.
    block_tail: Option<Expr>,
    /// Locals that stand for more than one value (tuples, closures,
    /// subslice views, element places): what they stand for.
    compound: HashMap<VarId, pattern::Bound>,
    /// Local float arrays of a length known from their `let` (`[a, b, c]`,
    /// `[0.0; 4]`): whole assignments to or from them are unrolled.
    fixed_lens: HashMap<VarId, usize>,
    /// The elements of the array literal `array_constructor` lowered last
    /// and declined (none of them known to be a float): the fallbacks use
    /// them rather than the literal's tokens, whose statements (a block
    /// element's `let`s) the lowering already emitted once.
    declined_items: Option<Vec<Operand>>,
    /// Constant locals bound by value where Rust binds a reference: the
    /// parts of a tuple pattern without `&` matched against a reference
    /// (`for (t, i) in pairs`, `i: &usize`), whose `*i` is `i` itself.
    by_value_refs: HashSet<VarId>,
    /// Set by `lower_let` just before its `array_constructor`, which takes
    /// it: a fill of a value that varies, `[v; n]`, is then taken
    /// (`filled_with`).
    fill_allowed: bool,
    /// The value a fill `array_constructor` took has to be stored into
    /// each element of the new array (`lower_let` takes it at once and
    /// does it after the `let`).
    filled_with: Option<(VarId, Ident)>,
    /// The generated names of `match` scrutinees not yet bound, with the
    /// scrutinee and whether an arm binds a part of it (`Some(i)`): checked
    /// where it is bound (`Lowerer::check_scrutinee`).
    scrutinees: HashMap<String, (Expr, bool)>,
    /// The matrix locals made flat arrays so far, with their shapes as
    /// written (`lower/matrix.rs`): a nested block's matrix may be assigned
    /// to one of them whole.
    flat_matrices: HashMap<String, String>,
    /// The loops that swap two float arrays (`swapped_arrays`), by id:
    /// [`Func::swaps`].
    swaps: HashMap<usize, (VarId, VarId)>,
    /// Changes in place (`in_place.rs`): the locals that may have them,
    /// the changes, and where in the function body each happens.
    in_place: in_place::InPlace,
}

impl<'a> Lowerer<'a> {
    fn new(cx: &'a Ctxt, names: &'a Names) -> Self {
        Lowerer {
            cx,
            vars: Vec::new(),
            scopes: vec![HashMap::new()],
            declared: vec![HashSet::new()],
            loads: vec![HashMap::new()],
            names,
            assigned_later: HashSet::new(),
            typed_not_f64: HashSet::new(),
            force_float: HashSet::new(),
            loop_values: HashMap::new(),
            maybe_float: HashSet::new(),
            maybe_float_cells: HashSet::new(),
            not_float_cells: HashSet::new(),
            became_float: HashSet::new(),
            temps: 0,
            loop_ids: 0,
            stmts: Vec::new(),
            loops: Vec::new(),
            function_sink: Sink::Return,
            uninit: HashSet::new(),
            returns_f64: true,
            consumer_types: HashMap::new(),
            poisoned: HashSet::new(),
            inner_fns_kept: HashSet::new(),
            block_tail: None,
            compound: HashMap::new(),
            fixed_lens: HashMap::new(),
            declined_items: None,
            by_value_refs: HashSet::new(),
            fill_allowed: false,
            filled_with: None,
            scrutinees: HashMap::new(),
            flat_matrices: HashMap::new(),
            swaps: HashMap::new(),
            in_place: in_place::InPlace::default(),
        }
    }

    // ----- variables and names -------------------------------------------

    fn declare_params(&mut self, sig: &Signature) {
        for (index, param) in sig.params.iter().enumerate() {
            let Some(name) = &param.name else { continue };
            let kind = match param.class {
                ParamClass::Scalar => Kind::Float,
                ParamClass::Slice | ParamClass::Array { .. } => Kind::FloatArray,
                ParamClass::Constant => Kind::Other,
            };
            // (`signature::analyze` reserved the parameters' names.)
            let id = self.push_var(
                name.clone(),
                kind,
                Origin::Param {
                    index,
                    active: param.active,
                },
            );
            self.vars[id].integer = param.integer;
            self.bind(name, id);
            if let ParamClass::Array { by_value: true, .. } = param.class {
                if param.mutable {
                    // `mut a: [f64; N]` may be written: the body works on a
                    // local copy, whose adjoint flows back into `d_a`.
                    let copy = self.new_local(name, Kind::FloatArray);
                    self.stmts.push(Stmt::Let {
                        var: copy,
                        ty: None,
                        init: Some(Rhs::Array(ArrayInit::Copy {
                            source: id,
                            vec: false,
                        })),
                    });
                    self.bind(name, copy);
                }
            }
        }
    }

    fn push_var(&mut self, ident: Ident, kind: Kind, origin: Origin) -> VarId {
        self.vars.push(Var::new(ident, kind, origin));
        self.vars.len() - 1
    }

    /// A fresh name for a binding of `name`: the name itself the first time,
    /// then `name__1`, `name__2`, ... (skipping anything the user wrote).
    fn fresh_name(&mut self, name: &Ident) -> Ident {
        self.names.binding(name)
    }

    /// The name of a new version of the local `name`, with the span, and so
    /// the hygiene, of its current binding: reads of the local resolve to
    /// it even when the function comes from a `macro_rules!` expansion.
    fn version_name(&self, name: &str) -> Ident {
        let span = self
            .lookup(name)
            .map_or_else(Span::call_site, |current| self.ident(current).span());
        Ident::new(name.trim_start_matches("r#"), span)
    }

    fn new_local(&mut self, name: &Ident, kind: Kind) -> VarId {
        let ident = self.fresh_name(name);
        self.push_var(ident, kind, Origin::Local)
    }

    fn new_temp(&mut self, kind: Kind) -> VarId {
        let ident = self.generated("t");
        self.push_var(ident, kind, Origin::Temp)
    }

    /// `let __ad_arg<n> = init;`: a local float array the user did not
    /// name (an array literal passed to a call).
    fn new_array_temp(&mut self, init: ArrayInit, ty: Option<TokenStream>) -> VarId {
        let ident = self.generated("arg");
        let array = self.push_var(ident, Kind::FloatArray, Origin::Local);
        self.stmts.push(Stmt::Let {
            var: array,
            ty,
            init: Some(Rhs::Array(init)),
        });
        array
    }

    /// `[SCALE, 1.0]`-like: an array literal of constants whose type the
    /// macro cannot see (some not integer or `bool` literals), as a local
    /// array typed by its elements (`[_; N]`), which may be a float one.
    fn untyped_array(&mut self, literal: &Expr) -> Option<(ArrayInit, TokenStream)> {
        // `[SCALE; 2]`, `vec![SCALE; n]`: a fill of such a constant (refused
        // where the array was then changed in place, `iter_mut`, until
        // 2026-11-28: it was a constant the function indexes)
        let repeat = match literal {
            Expr::Repeat(r) => Some((r.clone(), false)),
            Expr::Macro(m) if m.mac.path.is_ident("vec") => {
                let tokens = &m.mac.tokens;
                syn::parse2::<syn::ExprRepeat>(quote!([#tokens]))
                    .ok()
                    .map(|r| (r, true))
            }
            _ => None,
        };
        if let Some((repeat, vec)) = repeat {
            if expr::is_int_or_bool(&repeat.expr.to_token_stream()) {
                return None;
            }
            let (tokens, uses) = self.non_differentiated_tokens(&repeat.expr);
            let (len, _) = self.non_differentiated_tokens(&repeat.len);
            let ty = match vec {
                true => quote!(::std::vec::Vec<_>),
                false => quote!([_; #len]),
            };
            let value = Const {
                tokens: expr::parenthesize(tokens),
                uses,
            };
            return Some((ArrayInit::Fill { value, len, vec }, ty));
        }
        let Expr::Array(array) = literal else {
            return None;
        };
        // (a table of tuples, `[(0.5, 1), (1.5, 2)]`, is a constant)
        if array.elems.iter().all(|e| {
            expr::is_int_or_bool(&e.to_token_stream())
                || matches!(syntax::strip_parens(e), Expr::Tuple(_))
        }) {
            return None;
        }
        let items: Vec<Operand> = match self.declined_items.take() {
            Some(items) if items.len() == array.elems.len() => items,
            _ => array
                .elems
                .iter()
                .map(|e| {
                    let (tokens, uses) = self.non_differentiated_tokens(e);
                    Operand::Const(Const {
                        tokens: expr::parenthesize(tokens),
                        uses,
                    })
                })
                .collect(),
        };
        let len = proc_macro2::Literal::usize_unsuffixed(items.len());
        Some((ArrayInit::List { items, vec: false }, quote!([_; #len])))
    }

    /// The elements `array_constructor` lowered and declined (constants of
    /// a type the macro cannot see, integers, booleans) as the literal
    /// `[a, b, ..]`, with what they read; `None` if it declined none.
    fn declined_literal(&mut self) -> Option<(TokenStream, Vec<VarId>)> {
        let items = self.declined_items.take()?;
        let mut uses = Vec::new();
        let mut tokens = Vec::new();
        for item in &items {
            match item {
                Operand::Const(c) => {
                    uses.extend(&c.uses);
                    tokens.push(c.tokens.clone());
                }
                Operand::Var(v) => {
                    uses.push(*v);
                    tokens.push(self.vars[*v].ident.to_token_stream());
                }
            }
        }
        Some((quote!([#(#tokens),*]), uses))
    }

    /// A generated name that is no user's: `__ad_<what><n>`.
    fn generated(&mut self, what: &str) -> Ident {
        let ident = self.names.fresh(&format!("__ad_{what}{}", self.temps));
        self.temps += 1;
        ident
    }

    /// A fresh name for syntax that lowering builds itself (the index and
    /// accumulator of a desugared iterator chain, a `match` scrutinee, an
    /// alias): no user's name and no other generated one. The one place
    /// desugaring asks the allocator for a name.
    /// `a = [x, y, ..];` or `a = b;` (`b.clone()`, `b.to_vec()`) of a local
    /// float array `a`: the loop that assigns its elements, the new values
    /// first in a buffer of their own (they may read `a`:
    /// `state = [state[1], -state[0]];`). An array literal has the length
    /// of `a` (rustc checks the function as written); another array's
    /// length is checked at run time, a `Vec` given another length being
    /// the one case that copying elements does not stand for (it panics
    /// saying so). `None` for anything else (refused by the caller).
    fn whole_array_assignment(
        &mut self,
        target: VarId,
        name: &Ident,
        rhs: &Expr,
    ) -> Option<syn::Block> {
        if self.vars[target].origin != Origin::Local {
            return None;
        }
        // at most this many elements are assigned one by one, unrolled
        const UNROLLED: usize = 16;
        let k = self.fresh_ident("k");
        match syntax::strip_parens(rhs) {
            Expr::Array(array) => {
                let new = self.fresh_ident("new");
                let n = array.elems.len();
                if n <= UNROLLED {
                    // one value each, not a buffer: a loop that declares no
                    // array may be recorded (`record.rs`)
                    let values: Vec<Ident> = (0..n).map(|_| self.fresh_ident("new")).collect();
                    let (elems, each) = (array.elems.iter(), (0..n).map(syn::Index::from));
                    return Some(syn::parse_quote!({
                        #(let #values = #elems;)*
                        #(#name[#each] = #values;)*
                    }));
                }
                Some(syn::parse_quote!({
                    let #new = #rhs;
                    for #k in 0..#n {
                        #name[#k] = #new[#k];
                    }
                }))
            }
            source => {
                let source = match source {
                    Expr::MethodCall(call)
                        if call.args.is_empty()
                            && (call.method == "clone" || call.method == "to_vec") =>
                    {
                        syntax::strip_parens(&call.receiver)
                    }
                    other => other,
                };
                let Expr::Path(path) = source else {
                    return None;
                };
                let ident = path.path.get_ident()?;
                let id = self.lookup(&ident.to_string())?;
                if self.vars[id].kind != Kind::FloatArray || id == target {
                    return None;
                }
                // two arrays of one length known from their `let`s (rustc
                // checks they are equal)
                let known = self.fixed_lens.get(&target).or(self.fixed_lens.get(&id));
                if let Some(&n) = known.filter(|n| **n <= UNROLLED) {
                    let each = (0..n).map(syn::Index::from);
                    return Some(syn::parse_quote!({
                        #(#name[#each] = #ident[#each];)*
                    }));
                }
                let message = format!(
                    "`#[differentiable]` assigns `{name} = {ident}` element by element: \
                     the lengths must be equal"
                );
                // (a call, not `assert_eq!`: a statement macro would bring
                // an alias `#ident` in by value, moving a `Vec`)
                Some(syn::parse_quote!({
                    ::autograd::__private::same_len(#name.len(), #ident.len(), #message);
                    for #k in 0..#name.len() {
                        #name[#k] = #ident[#k];
                    }
                }))
            }
        }
    }

    /// `(a, b) = (b, a);` of two float arrays (`std::mem::swap(&mut a, &mut
    /// b)`, a time step's `cur` and `next`): their elements swapped in one
    /// loop, `for k in 0..a.len() { let t = a[k]; a[k] = b[k]; b[k] = t; }`,
    /// after a check that the lengths are equal (as the element-by-element
    /// assignments it replaces check). Assigned part by part, through a
    /// copy of `a`, it was three passes over the arrays and a pooled copy a
    /// step (a 2-D heat equation 1.50–2.61× the hand-written gradient, this
    /// way 1.29–2.14×). Whether it was.
    fn swapped_arrays(&mut self, targets: &syn::ExprTuple, rhs: &Expr) -> bool {
        let [a, b] = [0, 1].map(
            |k| match targets.elems.iter().nth(k).map(syntax::strip_parens) {
                Some(Expr::Path(path)) if targets.elems.len() == 2 => {
                    path.path.get_ident().cloned()
                }
                _ => None,
            },
        );
        let (Some(a), Some(b)) = (a, b) else {
            return false;
        };
        let ids = [&a, &b].map(|name| self.lookup(&name.to_string()));
        let [Some(a_id), Some(b_id)] = ids else {
            return false;
        };
        let arrays = a_id != b_id
            && [a_id, b_id]
                .iter()
                .all(|&id| self.vars[id].kind == Kind::FloatArray);
        if !arrays {
            return false;
        }
        // the values are `b` and `a`, as written (`(b, a)`; read from the
        // syntax: lowering a part would emit its code)
        let named = |e: &Expr, name: &Ident| matches!(syntax::strip_parens(e), Expr::Path(p) if p.qself.is_none() && p.path.is_ident(name));
        let swapped = match syntax::strip_parens(rhs) {
            Expr::Tuple(values) if values.elems.len() == 2 => {
                named(&values.elems[0], &b) && named(&values.elems[1], &a)
            }
            _ => false,
        };
        if !swapped {
            return false;
        }
        let (k, t) = (self.fresh_ident("k"), self.fresh_ident("t"));
        let message = format!(
            "`#[differentiable]` swaps `{a}` and `{b}` element by element: the lengths must be equal"
        );
        // (a call, not `assert!`: a statement macro brings a renamed local
        // in under its user name by value, `let d_x = d_x__1;`, which moved
        // a `Vec` the loop then swaps — a user's buffer named `d_x`, renamed
        // away from the adjoint's parameter: E0382)
        let block: syn::Block = syn::parse_quote!({
            ::autograd::__private::same_len(#a.len(), #b.len(), #message);
            for #k in 0..#a.len() {
                let #t = #a[#k];
                #a[#k] = #b[#k];
                #b[#k] = #t;
            }
        });
        self.lower_stmts(&block.stmts, None, &[]);
        // (the block's loop: its last statement, the `assert!` before it)
        if let Some(Stmt::Loop(l)) = self.stmts.last() {
            self.swaps.insert(l.id, (a_id, b_id));
        }
        true
    }

    fn fresh_ident(&mut self, what: &str) -> Ident {
        self.generated(what)
    }

    fn new_cell(&mut self, name: &str, kind: Kind) -> VarId {
        let plain = name.trim_start_matches("r#");
        let ident = self.generated(&format!("cell_{plain}_"));
        self.push_var(ident, kind, Origin::Cell)
    }

    fn bind(&mut self, name: &Ident, id: VarId) {
        self.bind_str(&name.to_string(), id);
    }

    fn bind_str(&mut self, name: &str, id: VarId) {
        let scope = self.scopes.last_mut().expect("scope stack is never empty");
        scope.insert(name.to_string(), id);
        let declared = self
            .declared
            .last_mut()
            .expect("scope stack is never empty");
        declared.insert(name.to_string());
    }

    /// Binds `name` in the construct frame `frame` (not as a `let` of the
    /// block): the version a construct carries.
    fn bind_in_frame(&mut self, frame: usize, name: &str, id: VarId) {
        self.scopes[frame].insert(name.to_string(), id);
    }

    fn push_scope(&mut self, frame: HashMap<String, VarId>) -> usize {
        self.scopes.push(frame);
        self.declared.push(HashSet::new());
        self.loads.push(HashMap::new());
        self.scopes.len() - 1
    }

    fn pop_scope(&mut self) {
        self.scopes.pop();
        self.declared.pop();
        self.loads.pop();
    }

    /// The current version of the local `name` that was in scope when the
    /// construct with scope frame `frame` began: the innermost binding at or
    /// above `frame`, ignoring any other local of the same name that a `let`
    /// inside the construct declared.
    fn current_at_exit(&self, name: &str, frame: usize) -> Option<VarId> {
        let top = (frame + 1..self.scopes.len())
            .find(|&f| self.declared[f].contains(name))
            .unwrap_or(self.scopes.len());
        (frame..top)
            .rev()
            .find_map(|f| self.scopes[f].get(name).copied())
    }

    /// Points the nearest binding of `name` at a new version.
    fn rebind(&mut self, name: &str, id: VarId) {
        for scope in self.scopes.iter_mut().rev() {
            if let Some(slot) = scope.get_mut(name) {
                *slot = id;
                return;
            }
        }
    }

    /// The local `expr` names, if it is one name.
    fn local_of(&self, expr: &Expr) -> Option<VarId> {
        match syntax::strip_parens(expr) {
            Expr::Path(path) if path.qself.is_none() => {
                self.lookup(&path.path.get_ident()?.to_string())
            }
            _ => None,
        }
    }

    /// `local[index] op= rhs;` of an array of integers or booleans declared
    /// `let mut` (`in_place.rs`): the statement as written, never replayed.
    fn store_in_place(
        &mut self,
        local: VarId,
        place: &syn::ExprIndex,
        op: Option<&syn::BinOp>,
        rhs: &Expr,
    ) {
        let value = match self.lower_expr(rhs) {
            expr::Value::Const(c) => c.tokens,
            _ => {
                self.cx.error_spanned_by(
                    rhs,
                    "this value depends on a differentiated input, and goes into an array of \
                     a type `#[differentiable]` does not differentiate; keep it in a float \
                     array (`let mut v = vec![0.0; n];`)",
                );
                return;
            }
        };
        let (index, _) = self.non_differentiated_tokens(&place.index);
        let array = self.vars[local].ident.clone();
        let op = match op {
            Some(op) => op.to_token_stream(),
            None => quote!(=),
        };
        self.in_place.change(local, place);
        self.vars[local].in_place = true;
        self.stmts.push(Stmt::Opaque {
            tokens: quote!(#array[#index] #op #value;),
            replay: false,
        });
    }

    fn lookup(&self, name: &str) -> Option<VarId> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    /// The names of the closures bound to locals visible here.
    fn visible_closures(&self) -> HashSet<String> {
        self.scopes
            .iter()
            .flat_map(|scope| scope.keys())
            .filter(|name| {
                self.lookup(name).is_some_and(|id| {
                    matches!(self.compound.get(&id), Some(pattern::Bound::Closure(_)))
                })
            })
            .cloned()
            .collect()
    }

    fn ident(&self, id: VarId) -> &Ident {
        &self.vars[id].ident
    }

    /// `var` as an operand: floats are variables, everything else tokens.
    fn read(&self, var: VarId) -> Operand {
        match self.vars[var].kind {
            Kind::Float => Operand::Var(var),
            _ => Operand::Const(Const {
                tokens: self.ident(var).to_token_stream(),
                uses: vec![var],
            }),
        }
    }

    /// Runs `f` with its own statement list and scope frame, in which the
    /// bindings of `shadow` are copied, so that new versions of them made
    /// inside stay inside. Returns the block and the frame's index.
    fn in_block(&mut self, shadow: &[String], f: impl FnOnce(&mut Self, usize)) -> Block {
        let saved = std::mem::take(&mut self.stmts);
        let mut frame = HashMap::new();
        for name in shadow {
            if let Some(id) = self.lookup(name) {
                frame.insert(name.clone(), id);
            }
        }
        let index = self.push_scope(frame);
        // The block's own `let`s go into a child frame, so a `let` that
        // shadows a local the construct carries cannot hide the carried one.
        self.push_scope(HashMap::new());
        f(self, index);
        self.pop_scope();
        self.pop_scope();
        Block {
            stmts: std::mem::replace(&mut self.stmts, saved),
        }
    }

    /// Cells for the locals among `names` that are bound outside (and are
    /// not arrays), each initialised with the local's current version.
    fn make_cells(&mut self, names: &[String]) -> Vec<(String, VarId)> {
        let mut cells = Vec::new();
        for name in names {
            let Some(current) = self.lookup(name) else {
                continue;
            };
            let kind = self.vars[current].kind;
            if kind == Kind::FloatArray {
                continue;
            }
            let cell = self.new_cell(name, kind);
            let uninit = self.uninit.contains(&current);
            // An uninitialised float (`let y;`) needs its type; otherwise
            // the cell has its first value's (an `f64`, or the type of a
            // constant the macro cannot see).
            let ty = (kind == Kind::Float && uninit).then(|| quote!(f64));
            self.stmts.push(Stmt::Let {
                var: cell,
                ty,
                init: (!uninit).then(|| Rhs::Use(self.read(current))),
            });
            cells.push((name.clone(), cell));
        }
        cells
    }

    /// After a construct: each local's new version is its cell's value.
    fn read_cells_back(&mut self, cells: &[(String, VarId)]) {
        for (name, cell) in cells {
            let kind = self.vars[*cell].kind;
            let id = self.new_local(&self.version_name(name), kind);
            self.stmts.push(Stmt::Let {
                var: id,
                ty: None,
                init: Some(Rhs::Use(self.read(*cell))),
            });
            if let Some(old) = self.lookup(name) {
                self.uninit.remove(&old);
            }
            self.rebind(name, id);
        }
    }

    fn run_exits(&mut self, exits: &[Exit]) {
        for exit in exits {
            let Some(current) = self.current_at_exit(&exit.name, exit.frame) else {
                continue;
            };
            if self.uninit.contains(&current) {
                continue;
            }
            let value = self.read(current);
            if let Operand::Var(v) = &value {
                // `let r;` of unknown type assigned a float in a branch.
                if self.vars[*v].kind == Kind::Float {
                    self.vars[exit.cell].kind = Kind::Float;
                }
            }
            self.stmts.push(Stmt::Update {
                cell: exit.cell,
                value,
            });
        }
    }

    fn deliver(&mut self, sink: Sink, value: Operand, span: Span) {
        match sink {
            Sink::Return => self.stmts.push(Stmt::Return { value, span }),
            Sink::Cell(cell) => {
                if let Operand::Var(v) = &value {
                    if self.vars[*v].kind == Kind::Float {
                        self.vars[cell].kind = Kind::Float;
                    }
                }
                self.stmts.push(Stmt::Update { cell, value });
            }
        }
    }

    // ----- statements ----------------------------------------------------

    /// Lowers a statement list into `self.stmts`. The tail expression, if
    /// any, goes to `sink`; `exits` run where control reaches the end.
    fn lower_stmts(&mut self, stmts: &[syn::Stmt], sink: Option<Sink>, exits: &[Exit]) {
        self.in_place.depth += 1;
        self.lower_stmts_at_depth(stmts, sink, exits);
        self.in_place.depth -= 1;
    }

    fn lower_stmts_at_depth(&mut self, stmts: &[syn::Stmt], sink: Option<Sink>, exits: &[Exit]) {
        let tail = self.block_tail.take();
        let stmts = self.desugar_match_stmts(stmts);
        let stmts = self.pushes_as_collects(&stmts);
        let stmts = syntax::loop_values(&stmts, self.names, &mut self.loop_values);
        let stmts = syntax::counted_whiles(&stmts, self.names);
        let stmts = syntax::nest_jumps(&stmts, self.names);
        let stmts = syntax::tuple_folds(&stmts, self.names);
        let stmts = syntax::tuple_if_locals(&stmts, self.names);
        let stmts = syntax::split_at_lets(&stmts, self.names);
        let stmts = syntax::array_from_fn_lets(&stmts);
        let stmts = matrix::matrix_locals(&stmts, self.names, &mut self.flat_matrices);
        let stmts = syntax::split_tuple_lets(&stmts);
        let stmts = syntax::split_tuple_locals(&stmts, self.names);
        let stmts = syntax::split_array_locals(&stmts, self.names);
        let stmts = syntax::tuple_valued_ifs(&stmts);
        let stmts = fusion::fuse_adjacent_loops(&stmts);
        // a `fn` declared in the block is seen by all of it
        for stmt in &stmts {
            if let syn::Stmt::Item(syn::Item::Fn(item)) = stmt {
                self.bind_inner_fn(item);
            }
        }
        let count = stmts.len();
        self.in_place.enter_block(&stmts);
        for (i, stmt) in stmts.iter().enumerate() {
            self.in_place.at_statement(i);
            let last = i + 1 == count;
            match stmt {
                syn::Stmt::Local(local) => {
                    let bound = syntax::pattern_names(&local.pat);
                    // (with the block's value when it is lowered apart)
                    let mut rest = stmts[i + 1..].to_vec();
                    rest.extend(tail.iter().map(|t| syn::Stmt::Expr(t.clone(), None)));
                    let later = syntax::float_assigned_after(&rest, &bound);
                    let array_later =
                        syntax::used_as_array_after(&rest, &bound, &self.visible_closures());
                    self.lower_let(local, later, array_later)
                }
                syn::Stmt::Item(item) => self.lower_item(item),
                syn::Stmt::Macro(mac) => {
                    self.lower_statement_macro(&mac.mac, mac.to_token_stream())
                }
                syn::Stmt::Expr(expr, semi) => {
                    if syntax::is_jump(expr) {
                        self.lower_jump(expr, exits);
                        return;
                    }
                    if matches!(expr, Expr::If(_)) && syntax::may_jump(expr) {
                        // `nest_jumps` made it the last statement: its
                        // branches end the block.
                        self.lower_tail(expr, sink, exits);
                        return;
                    }
                    if last && semi.is_none() {
                        self.lower_tail(expr, sink, exits);
                        return;
                    }
                    self.lower_expr_stmt(expr);
                }
            }
        }
        self.run_exits(exits);
    }

    /// `let mut v = Vec::new();` and a loop pushing a float into it once an
    /// iteration: the vector the loop's chain collects
    /// (`iter::pushes_as_collect`).
    fn pushes_as_collects(&self, stmts: &[syn::Stmt]) -> Vec<syn::Stmt> {
        let mut out = Vec::with_capacity(stmts.len());
        let mut i = 0;
        while i < stmts.len() {
            if let Some(collect) = stmts
                .get(i + 1)
                .and_then(|next| self.pushes_as_collect(&stmts[i], next))
            {
                out.push(collect);
                i += 2;
                continue;
            }
            out.push(stmts[i].clone());
            i += 1;
        }
        out
    }

    /// `match` statements become `let m = scrutinee;` and an `if` chain
    /// (before `nest_jumps`, so arms that jump nest what follows).
    fn desugar_match_stmts(&mut self, stmts: &[syn::Stmt]) -> Vec<syn::Stmt> {
        let mut out = Vec::with_capacity(stmts.len());
        let count = stmts.len();
        for (i, stmt) in stmts.iter().enumerate() {
            if let syn::Stmt::Expr(Expr::Match(m), semi) = stmt {
                let value = i + 1 == count && semi.is_none();
                if let Some((scrutinee, chain)) = self.desugar_match(m, value) {
                    out.push(scrutinee);
                    out.push(syn::Stmt::Expr(chain, *semi));
                }
                continue;
            }
            // `let t = match k { 0 => (a, b), _ => (c, d) };`: the `if`
            // chain it stands for, bound as a tuple-valued `if` is
            // (`syntax::tuple_if_locals`)
            if let syn::Stmt::Local(local) = stmt {
                if let Some(init) = local.init.as_ref().filter(|i| i.diverge.is_none()) {
                    if let Expr::Match(m) = syntax::strip_parens(&init.expr) {
                        if m.arms.iter().all(|arm| tuple_valued(&arm.body)) {
                            if let Some((scrutinee, chain)) = self.desugar_match(m, true) {
                                let mut local = local.clone();
                                if let Some(init) = local.init.as_mut() {
                                    *init.expr = chain;
                                }
                                out.push(scrutinee);
                                out.push(syn::Stmt::Local(local));
                            }
                            continue;
                        }
                    }
                }
            }
            out.push(stmt.clone());
        }
        out
    }

    /// Notes that `expr`, if it is a `sum()` or `product()` call, has
    /// type `ty` (`consumer_types`).
    fn consumer_type(&mut self, expr: &Expr, ty: syn::Type) {
        if let Expr::MethodCall(call) = syntax::strip_parens(expr) {
            if call.method == "sum" || call.method == "product" {
                let key = call.to_token_stream().to_string();
                self.consumer_types.insert(key, ty);
            }
        }
    }

    /// The tail expression of a block: its value goes to `sink`.
    fn lower_tail(&mut self, expr: &Expr, sink: Option<Sink>, exits: &[Exit]) {
        match expr {
            Expr::If(ifx) if sink == Some(Sink::Return) => {
                // The value comes from inside the `if`: through a cell.
                let result = self.new_cell("result", Kind::Float);
                self.stmts.push(Stmt::Let {
                    var: result,
                    ty: Some(quote!(f64)),
                    init: None,
                });
                self.function_sink = Sink::Cell(result);
                self.lower_if(ifx, Some(Sink::Cell(result)), exits, false);
                let value = self.new_temp(Kind::Float);
                self.stmts.push(Stmt::Let {
                    var: value,
                    ty: None,
                    init: Some(Rhs::Use(Operand::Var(result))),
                });
                self.stmts.push(Stmt::Return {
                    value: Operand::Var(value),
                    span: expr.span(),
                });
            }
            Expr::If(ifx) => {
                // An `if` that ends a construct's block (with exits to run)
                // or that may jump hands the versions it makes to the
                // construct's cells through `exits`. Any other (the end of a
                // bare block, `{ if c { t = w; } }`) merges the locals it
                // assigns, as an `if` statement does: the code after the
                // block reads them.
                let merge = exits.is_empty() && !syntax::may_jump(expr);
                self.lower_if(ifx, sink, exits, merge);
                if merge {
                    self.run_exits(exits);
                }
            }
            Expr::Block(b) if b.label.is_none() => {
                self.push_scope(HashMap::new());
                self.lower_stmts(&b.block.stmts, sink, exits);
                self.pop_scope();
            }
            // `{ best = x }`, `if c { n += 1 }`, `true => best = s,`: an
            // assignment ending a block (rustfmt leaves it without `;`) is
            // the statement it stands for; its value is `()`.
            Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) | Expr::Assign(_) => {
                self.lower_expr_stmt(expr);
                self.run_exits(exits);
            }
            Expr::Binary(b) if syntax::is_compound(&b.op) => {
                self.lower_expr_stmt(expr);
                self.run_exits(exits);
            }
            _ if sink.is_some() && !self.returns_f64 => {}
            _ => {
                let float_sink = match sink {
                    Some(Sink::Return) => true,
                    Some(Sink::Cell(cell)) => self.vars[cell].kind == Kind::Float,
                    _ => false,
                };
                if float_sink {
                    self.consumer_type(expr, syn::parse_quote!(f64));
                }
                let value = self.lower_expr(expr);
                match sink {
                    Some(sink) => {
                        // `if c { 1.25 } else { x }`: a float literal makes
                        // the value a float, as a float variable does.
                        if let (Sink::Cell(cell), expr::Value::Const(c)) = (sink, &value) {
                            if c.is_float {
                                self.vars[cell].kind = Kind::Float;
                            } else if self.may_be_float(c) {
                                self.maybe_float_cells.insert(cell);
                            } else {
                                self.not_float_cells.insert(cell);
                            }
                        }
                        let operand = self.operand(value, expr.span());
                        self.run_exits(exits);
                        self.deliver(sink, operand, expr.span());
                    }
                    None => {
                        if let expr::Value::Const(c) = value {
                            let tokens = c.tokens;
                            self.stmts.push(Stmt::Opaque {
                                tokens: quote!(#tokens;),
                                replay: false,
                            });
                        }
                        self.run_exits(exits);
                    }
                }
            }
        }
    }

    /// Items inside a body (`const K: f64 = 2.0;`, `use`, helper `fn`s) are
    /// constants: emitted as they are (a `fn` whose calls are inlined may
    /// be called nowhere in the generated code).
    fn lower_item(&mut self, item: &syn::Item) {
        match item {
            syn::Item::Const(_) | syn::Item::Use(_) | syn::Item::Static(_) => {
                self.stmts.push(Stmt::Opaque {
                    tokens: item.to_token_stream(),
                    replay: true,
                });
            }
            syn::Item::Fn(_) => self.stmts.push(Stmt::Opaque {
                tokens: quote!(#[allow(dead_code)] #item),
                replay: true,
            }),
            other => self.cx.error_spanned_by(
                other,
                "this item is not supported inside a `#[differentiable]` body; move it \
                 out of the function",
            ),
        }
    }

    /// `fn sq(t: f64) -> f64 { t * t }` declared inside the body: it can
    /// capture nothing, so it is the closure `|t: f64| -> f64 { t * t }`,
    /// inlined at each call as one bound to a local is (calls with a
    /// differentiated argument need no `sq_adjoint`). One that is generic,
    /// recursive, `unsafe`, `extern` or returns early stays a plain `fn`: a
    /// differentiated call of it is refused (`inner_fns_kept`).
    fn bind_inner_fn(&mut self, item: &syn::ItemFn) {
        let sig = &item.sig;
        let name = sig.ident.to_string();
        let block = Expr::Block(syn::ExprBlock {
            attrs: Vec::new(),
            label: None,
            block: (*item.block).clone(),
        });
        let mut mentioned = HashSet::new();
        collect_idents(item.block.to_token_stream(), &mut mentioned);
        let typed: Option<Vec<syn::Pat>> = sig
            .inputs
            .iter()
            .map(|input| match input {
                syn::FnArg::Typed(typed) => Some(Pat::Type(typed.clone())),
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        let inlinable = sig.generics.params.is_empty()
            && sig.asyncness.is_none()
            && sig.unsafety.is_none()
            && sig.abi.is_none()
            && sig.variadic.is_none()
            && syntax::first_jump(&block).is_none()
            && !mentioned.contains(&name);
        let (Some(inputs), true) = (typed, inlinable) else {
            self.inner_fns_kept.insert(name);
            return;
        };
        let output = &sig.output;
        let closure: syn::ExprClosure = syn::parse_quote!(|#(#inputs),*| #output #block);
        let ident = self.fresh_name(&sig.ident);
        let id = self.push_var(ident, Kind::Other, Origin::Local);
        let def = pattern::ClosureDef {
            closure,
            env: HashMap::new(),
        };
        self.compound
            .insert(id, pattern::Bound::Closure(std::rc::Rc::new(def)));
        self.bind(&sig.ident, id);
    }

    /// `float_later`: the names it binds that a float-looking value is
    /// assigned later (`syntax::float_assigned_after`).
    /// `array_later`: the rest of its block uses what it binds as an array
    /// (`r[i]`, `r.len()`, `for v in r`: `syntax::used_as_array_after`).
    fn lower_let(&mut self, local: &syn::Local, float_later: HashSet<String>, array_later: bool) {
        if let Some(init) = &local.init {
            if let Some((else_token, _)) = &init.diverge {
                self.cx.error_spanned_by(
                    else_token,
                    "`let ... else` is supported by `#[differentiable]` on an element, `let Some(v) = \
                     x.get(i) else { .. };` (also `.copied()`, `x.first()`, `x.last()`); else use \
                     an `if`",
                );
                return;
            }
        }
        let (pat, ty) = match &local.pat {
            Pat::Type(pat_type) => (&*pat_type.pat, Some(&*pat_type.ty)),
            pat => (pat, None),
        };
        let simple = match pat {
            Pat::Ident(p) => p.by_ref.is_none() && p.subpat.is_none(),
            _ => false,
        };
        // `let [x, y] = polar(r, t);`: the pattern says the helper returns an
        // array; its value in an array of its own, then destructured
        // (refused until 2026-11-28)
        if let (Pat::Slice(_), Some(init)) = (pat, &local.init) {
            if matches!(syntax::strip_parens(&init.expr), Expr::Call(_)) {
                let errors = self.cx.error_count();
                let returned = match self.vector_call(&init.expr) {
                    Some(expr::Value::Array(temp)) => Some(self.alias(temp)),
                    Some(expr::Value::Const(c)) => {
                        let c = c.into_ir();
                        Some(self.const_local(c.tokens, c.uses))
                    }
                    _ => None,
                };
                if self.cx.error_count() > errors {
                    return;
                }
                if let Some(returned) = returned {
                    let mut local = local.clone();
                    if let Some(init) = local.init.as_mut() {
                        *init.expr = syn::parse_quote!(#returned);
                    }
                    self.lower_let(&local, float_later, array_later);
                    return;
                }
            }
        }
        if let (Pat::Ident(p), Some(init), true) = (pat, &local.init, simple) {
            if let Some(stmts) = self.subslice_copy(&p.ident, &init.expr) {
                self.lower_stmts(&stmts, None, &[]);
                return;
            }
            // `let v: Vec<f64> = chain.collect();`
            if self.lower_collect(&p.ident, ty, &init.expr) {
                return;
            }
            if let Some(ty) = ty {
                self.consumer_type(&init.expr, ty.clone());
            }
            // `let r = residuals(x, ..);` of a function returning a vector.
            let typed_array = ty.is_some_and(is_float_array_type);
            if typed_array || array_later {
                let errors = self.cx.error_count();
                if let Some(value) = self.vector_call(&init.expr) {
                    match value {
                        expr::Value::Array(temp) if p.mutability.is_some() => {
                            // a copy the function may change
                            let id = self.new_local(&p.ident, Kind::FloatArray);
                            self.stmts.push(Stmt::Let {
                                var: id,
                                ty: None,
                                init: Some(Rhs::Array(ArrayInit::Copy {
                                    source: temp,
                                    vec: false,
                                })),
                            });
                            self.bind(&p.ident, id);
                        }
                        expr::Value::Array(temp) => {
                            let ident = self.fresh_name(&p.ident);
                            let var = &mut self.vars[temp];
                            var.ident = ident;
                            var.origin = Origin::Local;
                            self.bind(&p.ident, temp);
                        }
                        other if self.cx.error_count() == errors => {
                            self.bind_value(&p.ident, other, ty, p.mutability.is_some())
                        }
                        _ => {}
                    }
                    return;
                }
            }
            // `let s: [f64; 1] = [h(c)];`: a float array by its type, whatever
            // the macro can see of its elements.
            let typed_float = ty.is_some_and(is_float_array_type);
            let errors = self.cx.error_count();
            self.fill_allowed = true;
            let constructed = self.array_constructor(&init.expr, typed_float);
            self.fill_allowed = false;
            let filled_with = self.filled_with.take();
            let array = match constructed {
                Some(array) => Some((array, None)),
                None => self
                    .untyped_array(&init.expr)
                    .map(|(array, ty)| (array, Some(ty))),
            };
            if self.cx.error_count() > errors {
                // already reported: a stand-in nobody complains about
                let id = self.new_local(&p.ident, Kind::Other);
                self.poisoned.insert(id);
                self.bind(&p.ident, id);
                return;
            }
            if let Some((array, untyped)) = array {
                let id = self.new_local(&p.ident, Kind::FloatArray);
                let fixed = match &array {
                    ArrayInit::List { items, vec: false } => Some(items.len()),
                    ArrayInit::Fill {
                        len, vec: false, ..
                    } => syn::parse2::<syn::LitInt>(len.clone())
                        .ok()
                        .and_then(|n| n.base10_parse().ok()),
                    _ => None,
                };
                if let Some(n) = fixed {
                    self.fixed_lens.insert(id, n);
                }
                self.stmts.push(Stmt::Let {
                    var: id,
                    ty: untyped,
                    init: Some(Rhs::Array(array)),
                });
                self.bind(&p.ident, id);
                // `[v; n]` of a value that varies: zeros, then `v` stored
                // into each element, as a loop filling it does
                if let Some((value, count)) = filled_with {
                    let (name, value, k) = (&p.ident, self.alias(value), self.fresh_ident("k"));
                    let fill: syn::Stmt =
                        syn::parse_quote!(for #k in 0..#count { #name[#k] = #value; });
                    self.lower_stmts(&[fill], None, &[]);
                }
                return;
            }
            // `let order = [2usize, 0, 1];`, `let seen = vec![false; n];`: an
            // array of integers or booleans is a constant the function
            // indexes, emitted as written (a tuple-like compound would bind
            // no Rust local for the raw index tokens that name it).
            if let Some(array) = array_literal(&init.expr) {
                let (tokens, uses) = match self.declined_literal() {
                    Some(literal) => literal,
                    None => self.non_differentiated_tokens(&array.literal),
                };
                let tokens = match array.vec {
                    false => tokens,
                    // the literal's elements (`[a, b]`) or fill (`[v; n]`)
                    true => {
                        let inside = match syn::parse2::<Expr>(tokens.clone()) {
                            Ok(Expr::Array(a)) => a.elems.to_token_stream(),
                            Ok(Expr::Repeat(r)) => {
                                let (value, len) = (&r.expr, &r.len);
                                quote!(#value; #len)
                            }
                            _ => tokens,
                        };
                        quote!(::std::vec![#inside])
                    }
                };
                let id = self.new_local(&p.ident, Kind::Other);
                self.stmts.push(Stmt::Let {
                    var: id,
                    ty: ty.map(ToTokens::to_token_stream),
                    init: Some(Rhs::Use(Operand::Const(Const { tokens, uses }))),
                });
                self.bind(&p.ident, id);
                if p.mutability.is_some() {
                    self.in_place.declare(id, &p.ident);
                }
                return;
            }
        }
        let Some(init) = &local.init else {
            let Pat::Ident(p) = pat else {
                self.cx.error_spanned_by(
                    pat,
                    "a destructuring `let` needs a value: `let (a, b) = (x, y);`",
                );
                return;
            };
            // `let y;` / `let y: f64;`: the first assignment defines it.
            let kind = ty
                .map(|ty| if is_f64(ty) { Kind::Float } else { Kind::Other })
                .unwrap_or(Kind::Other);
            let id = self.new_local(&p.ident, kind);
            self.uninit.insert(id);
            self.bind(&p.ident, id);
            return;
        };
        let errors_before = self.cx.error_count();
        let value = self.lower_bound(&init.expr);
        if self.cx.error_count() > errors_before {
            // Already reported: bind the names to stand-ins nobody complains about.
            for ident in pattern::pattern_idents(pat) {
                let id = self.new_local(&ident, Kind::Other);
                self.poisoned.insert(id);
                self.bind(&ident, id);
            }
            return;
        }
        if let Pat::Ident(p) = pat {
            self.check_scrutinee(&p.ident.to_string(), &value);
        }
        // (set here, after the initializer's own `let`s are lowered)
        self.assigned_later = float_later;
        self.bind_pattern(pat, value, ty);
        self.assigned_later.clear();
    }

    /// Defines a new float local `name` with the value of `source`. When
    /// `source` is the temporary the last statement just defined, that
    /// statement is renamed instead, so `let y = a * b;` emits one `let`.
    fn define(&mut self, name: &Ident, source: VarId) -> VarId {
        let just_defined = matches!(
            self.stmts.last(),
            Some(Stmt::Let { var, .. }) if *var == source
        );
        if just_defined && self.vars[source].origin == Origin::Temp {
            let ident = self.fresh_name(name);
            let var = &mut self.vars[source];
            var.ident = ident;
            var.origin = Origin::Local;
            return source;
        }
        let id = self.new_local(name, Kind::Float);
        self.stmts.push(Stmt::Let {
            var: id,
            ty: None,
            init: Some(Rhs::Use(Operand::Var(source))),
        });
        id
    }

    fn lower_expr_stmt(&mut self, expr: &Expr) {
        match expr {
            Expr::Assign(assign) => self.lower_assign(&assign.left, None, &assign.right),
            Expr::Binary(binary) if syntax::is_compound(&binary.op) => {
                self.lower_assign(&binary.left, Some(&binary.op), &binary.right)
            }
            Expr::Macro(mac) => self.lower_statement_macro(&mac.mac, expr.to_token_stream()),
            Expr::If(ifx) => self.lower_if(ifx, None, &[], true),
            Expr::ForLoop(f) => self.lower_for(f),
            Expr::While(w) => self.lower_while(w),
            Expr::Loop(l) => {
                let label = l.label.as_ref().map(|l| l.name.ident.to_string());
                self.lower_loop(Header::Infinite, None, &l.body, label, expr);
            }
            Expr::Block(b) if b.label.is_none() => {
                self.push_scope(HashMap::new());
                self.lower_stmts(&b.block.stmts, None, &[]);
                self.pop_scope();
            }
            _ if self.buffer_method(expr) => {}
            _ => {
                // `idx.push(i);`: a change in place of a local (`in_place.rs`)
                let receiver = match syntax::strip_parens(expr) {
                    Expr::MethodCall(call) => self.local_of(&call.receiver),
                    _ => None,
                };
                if let Some(local) = receiver {
                    if self.in_place.may_change(local) {
                        self.in_place.change(local, expr);
                        self.vars[local].in_place = true;
                        self.in_place.call_is_statement = true;
                    }
                }
                // Evaluated for its effects: a constant may call something.
                match (self.lower_expr(expr), receiver) {
                    (expr::Value::Const(c), _) => {
                        let tokens = c.tokens;
                        self.stmts.push(Stmt::Opaque {
                            tokens: quote!(#tokens;),
                            replay: false,
                        });
                    }
                    (expr::Value::Var(_), Some(local)) => {
                        let name = self.vars[local].ident.clone();
                        self.cx.error_spanned_by(
                            expr,
                            format!(
                                "this call is passed a value that depends on a differentiated \
                                 input, and its result is not used: `#[differentiable]` cannot \
                                 follow that value into `{name}`, whose type it does not \
                                 differentiate; keep such values in a float array (`let mut v \
                                 = vec![0.0; n];` and `v[i] = ..`), or push once an iteration, \
                                 last, in a loop right after `let mut {name} = Vec::new();`"
                            ),
                        );
                    }
                    _ => {}
                }
            }
        }
    }

    /// The slice methods that write a local float buffer, as statements,
    /// lowered to the stores they stand for: `u.fill(v)`, `u.swap(i, j)`,
    /// `u.copy_from_slice(&w)` (as `u = w.to_vec();`) and
    /// `u.copy_from_slice(&w[a..b])`. Whether `expr` was one (else it is
    /// left to the caller).
    fn buffer_method(&mut self, expr: &Expr) -> bool {
        let Expr::MethodCall(call) = syntax::strip_parens(expr) else {
            return false;
        };
        // (`row.fill(v)`, `row.swap(i, j)` of a mutable subslice of a
        // local buffer, `let row = &mut q[a..b];`: the element stores they
        // stand for go through the subslice, `lower_store`)
        let view_of_local = matches!(
            self.compound_of(&call.receiver),
            Some(pattern::Bound::View(view))
                if self.vars[view.array].kind == Kind::FloatArray
                    && self.vars[view.array].origin == Origin::Local
        );
        if view_of_local {
            if call.method == "sort_by" || call.method == "sort_unstable_by" {
                self.cx.error_spanned_by(
                    &call.method,
                    format!(
                        "`.{}(..)` of a subslice is not supported by `#[differentiable]`; sort \
                         a local buffer of its own (`let mut part = v[a..b].to_vec(); \
                         part.sort_by(..);`), then store it back element by element",
                        call.method
                    ),
                );
                return true;
            }
            if !["fill", "swap", "copy_from_slice", "reverse"].contains(&&*call.method.to_string())
            {
                return false;
            }
        } else {
            let Some(local) = self.local_of(&call.receiver) else {
                return false;
            };
            let info = &self.vars[local];
            if info.kind != Kind::FloatArray
                || info.origin != Origin::Local
                || self.compound.contains_key(&local)
            {
                return false;
            }
        }
        let u = &call.receiver;
        let args: Vec<&Expr> = call.args.iter().collect();
        let (value, k) = (self.fresh_ident("value"), self.fresh_ident("k"));
        let block: syn::Block = match (call.method.to_string().as_str(), args.as_slice()) {
            ("fill", [v]) => syn::parse_quote!({
                let #value = #v;
                for #k in 0..#u.len() {
                    #u[#k] = #value;
                }
            }),
            ("swap", [i, j]) => {
                let (a, b) = (self.fresh_ident("i"), self.fresh_ident("j"));
                syn::parse_quote!({
                    let #a: usize = #i;
                    let #b: usize = #j;
                    let #value = #u[#a];
                    #u[#a] = #u[#b];
                    #u[#b] = #value;
                })
            }
            ("copy_from_slice", [source]) => {
                let source = match syntax::strip_parens(source) {
                    Expr::Reference(r) if r.mutability.is_none() => syntax::strip_parens(&r.expr),
                    other => other,
                };
                // (the panic of the lengths' check `copy_from_slice` makes)
                let message = format!(
                    "`{}.copy_from_slice(..)`: the lengths must be equal",
                    u.to_token_stream()
                );
                match source {
                    // into a subslice: element by element, after the
                    // lengths' check `copy_from_slice` makes
                    Expr::Path(_) if view_of_local => {
                        syn::parse_quote!({
                            ::autograd::__private::same_len(#u.len(), #source.len(), #message);
                            for #k in 0..#u.len() {
                                #u[#k] = #source[#k];
                            }
                        })
                    }
                    Expr::Path(_) => {
                        self.lower_assign(u, None, &syn::parse_quote!(#source.to_vec()));
                        return true;
                    }
                    // `u.copy_from_slice(&[a, b])`: as `u = [a, b];` after
                    // the lengths' check (`u` may be a `Vec`)
                    Expr::Array(items) if !view_of_local => {
                        let len = items.elems.len();
                        syn::parse_quote!({
                            ::autograd::__private::same_len(#u.len(), #len, #message);
                            #u = #source;
                        })
                    }
                    Expr::Index(index) => {
                        let Expr::Range(range) = syntax::strip_parens(&index.index) else {
                            return false;
                        };
                        let w = &index.expr;
                        // `&w[a..b]`, `&w[a..=b]`, `&w[a..]`, `&w[..b]`, `&w[..]`
                        let lo = match &range.start {
                            Some(lo) => quote!(#lo),
                            None => quote!(0usize),
                        };
                        let hi = match (&range.end, &range.limits) {
                            (Some(hi), syn::RangeLimits::HalfOpen(_)) => quote!(#hi),
                            (Some(hi), syn::RangeLimits::Closed(_)) => quote!((#hi) + 1),
                            (None, _) => quote!(#w.len()),
                        };
                        let start = self.fresh_ident("start");
                        syn::parse_quote!({
                            let #start: usize = #lo;
                            ::autograd::__private::same_len(#u.len(), (#hi) - #start, #message);
                            for #k in 0..#u.len() {
                                #u[#k] = #w[#start + #k];
                            }
                        })
                    }
                    _ => return false,
                }
            }
            // a permutation of the elements: the order the comparison
            // sorts them in (non-differentiated, `__private::sort_order`,
            // through `Lowerer::array_method`), then the elements gathered
            // in that order
            ("sort_by" | "sort_unstable_by", [compare]) if !view_of_local => {
                let (order, copy) = (self.fresh_ident("order"), self.fresh_ident("unsorted"));
                syn::parse_quote!({
                    let #order: ::std::vec::Vec<usize> = #u.__autograd_sort_order(#compare);
                    let #copy = #u.to_vec();
                    for #k in 0..#u.len() {
                        #u[#k] = #copy[#order[#k]];
                    }
                })
            }
            ("reverse", []) => {
                let (n, j) = (self.fresh_ident("n"), self.fresh_ident("j"));
                syn::parse_quote!({
                    let #n: usize = #u.len();
                    for #k in 0..#n / 2 {
                        let #j: usize = #n - 1 - #k;
                        let #value = #u[#k];
                        #u[#k] = #u[#j];
                        #u[#j] = #value;
                    }
                })
            }
            _ => return false,
        };
        self.push_scope(HashMap::new());
        self.lower_stmts(&block.stmts, None, &[]);
        self.pop_scope();
        true
    }

    /// `place = rhs` or `place op= rhs`: a new version of the local.
    fn lower_assign(&mut self, place: &Expr, op: Option<&syn::BinOp>, rhs: &Expr) {
        // `input = target;` of a local subslice: a view is bound once
        if let Expr::Path(_) = syntax::strip_parens(place) {
            let view = |b: Option<pattern::Bound>| matches!(b, Some(pattern::Bound::View(_)));
            if view(self.compound_of(place)) || view(self.compound_of(rhs)) {
                self.cx.error_spanned_by(
                    place,
                    "a local subslice cannot be assigned another one; keep where it \
                     starts in an integer local instead and index from it: `let mut \
                     start = 0; .. x[start + i] ..; start = (t + 1) * b;`",
                );
                return;
            }
        }
        // `total = xs.iter().map(..).sum();` into a float: a float sum
        let root = match syntax::strip_parens(place) {
            Expr::Index(i) => syntax::strip_parens(&i.expr),
            place => place,
        };
        let float_place = match root {
            Expr::Path(p) => p.path.get_ident().and_then(|i| self.lookup(&i.to_string())),
            _ => None,
        }
        .is_some_and(|id| matches!(self.vars[id].kind, Kind::Float | Kind::FloatArray));
        if float_place && op.is_none() {
            self.consumer_type(rhs, syn::parse_quote!(f64));
        }
        // `*v = ..` of an `iter_mut` element.
        if let Expr::Unary(u) = syntax::strip_parens(place) {
            if let (syn::UnOp::Deref(_), Some(pattern::Bound::Place { array, index })) =
                (&u.op, self.compound_of(&u.expr))
            {
                self.store_into(array, index, op, rhs);
                return;
            }
        }
        // `(a, b) = (b, a + b);`: every part is computed, then assigned.
        if let (Expr::Tuple(targets), None) = (syntax::strip_parens(place), op) {
            if self.swapped_arrays(targets, rhs) {
                return;
            }
            let errors = self.cx.error_count();
            let value = self.lower_bound(rhs);
            let parts = match value {
                pattern::Bound::Tuple(parts) if parts.len() == targets.elems.len() => parts,
                _ => {
                    if self.cx.error_count() == errors {
                        self.cx.error_spanned_by(
                            rhs,
                            "assign a tuple written out: `(a, b) = (x, y);`",
                        );
                    }
                    return;
                }
            };
            // the arrays assigned before each part is: an array part that
            // is one of them is copied first (`(cur, next) = (next, cur);`
            // read the new `cur` into `next` until 2026-11-28)
            let assigned: Vec<Option<VarId>> = targets
                .elems
                .iter()
                .map(|target| match syntax::strip_parens(target) {
                    Expr::Path(path) => path
                        .path
                        .get_ident()
                        .and_then(|name| self.lookup(&name.to_string())),
                    _ => None,
                })
                .collect();
            let mut names = Vec::new();
            for (position, part) in parts.into_iter().enumerate() {
                let value = self.value_of(part, rhs);
                let name = match value {
                    expr::Value::Array(id) if assigned[..position].contains(&Some(id)) => {
                        // (a fixed-size array by value, anything else as a `Vec`)
                        let vec = !self.fixed_lens.contains_key(&id);
                        let copy = self.new_array_temp(ArrayInit::Copy { source: id, vec }, None);
                        if let Some(&n) = self.fixed_lens.get(&id) {
                            self.fixed_lens.insert(copy, n);
                        }
                        self.alias(copy)
                    }
                    expr::Value::Var(id) | expr::Value::Array(id) => self.alias(id),
                    expr::Value::Const(c) => {
                        let c = c.into_ir();
                        self.const_local(c.tokens, c.uses)
                    }
                };
                names.push(name);
            }
            for (target, name) in targets.elems.iter().zip(names) {
                if let Expr::Infer(_) = target {
                    continue;
                }
                self.lower_assign(target, None, &syn::parse_quote!(#name));
            }
            return;
        }
        let name = match syntax::strip_parens(place) {
            Expr::Path(path) if path.qself.is_none() => path.path.get_ident().cloned(),
            Expr::Index(index) => {
                self.lower_store(index, op, rhs);
                return;
            }
            _ => None,
        };
        let Some((name, target)) = name.and_then(|n| self.lookup(&n.to_string()).map(|id| (n, id)))
        else {
            self.cx.error_spanned_by(
                place,
                "`#[differentiable]` can only assign to local variables and parameters",
            );
            return;
        };
        self.in_place.reassign(target);
        if self.vars[target].kind == Kind::FloatArray && op.is_none() {
            if let Some(block) = self.whole_array_assignment(target, &name, rhs) {
                self.push_scope(HashMap::new());
                self.lower_stmts(&block.stmts, None, &[]);
                self.pop_scope();
                return;
            }
            // `a = force(&x, k);` of a helper returning a vector: its value
            // in an array of its own, then assigned element by element
            // (refused until 2026-11-28)
            if matches!(
                syntax::strip_parens(rhs),
                Expr::Call(_) | Expr::MethodCall(_)
            ) {
                let errors = self.cx.error_count();
                if let Some(expr::Value::Array(returned)) = self.vector_call(rhs) {
                    let alias = self.alias(returned);
                    let source: Expr = syn::parse_quote!(#alias);
                    if let Some(block) = self.whole_array_assignment(target, &name, &source) {
                        self.push_scope(HashMap::new());
                        self.lower_stmts(&block.stmts, None, &[]);
                        self.pop_scope();
                        return;
                    }
                }
                if self.cx.error_count() > errors {
                    return;
                }
            }
        }
        if self.vars[target].kind == Kind::FloatArray {
            self.cx.error_spanned_by(
                place,
                "assigning a whole slice or array is supported from an array literal, another \
                 float array or a helper's vector (`a = [x, y];`, `a = b.clone();`, `a = \
                 g(..);`) to a local array; a local holding a helper's vector is known as an \
                 array from its type (`let b: Vec<f64> = g(..);`, `let b: [f64; 2] = ..`) or \
                 from a use as one (`b[i]`, `b.len()`, `h(&b)`); else assign the elements \
                 (`for k in 0..a.len() { a[k] = b[k]; }`, the new values in a buffer of their \
                 own first when they read the old ones)",
            );
            return;
        }
        let value = self.lower_expr(rhs);
        let key = name.to_string();
        let was_uninit = self.uninit.contains(&target);
        let mut known_float = false;
        let (kind, rhs) = match op {
            None => match value {
                expr::Value::Var(source) => {
                    let id = self.define(&name, source);
                    self.uninit.remove(&target);
                    self.rebind(&key, id);
                    return;
                }
                expr::Value::Const(c) => {
                    let kind = if self.typed_not_f64.contains(&key) {
                        Kind::Other
                    } else if c.is_float || self.vars[target].kind == Kind::Float {
                        Kind::Float
                    } else {
                        Kind::Other
                    };
                    // `d = 0.75;`: typed, or the literal is an ambiguous `{float}`
                    // (but `w = 0.75` of a `w: f32` keeps `w`'s type).
                    known_float = c.is_float && kind == Kind::Float;
                    (kind, Rhs::Use(Operand::Const(c.into_ir())))
                }
                expr::Value::Array(_) => {
                    let operand = self.operand(value, rhs.span());
                    (Kind::Float, Rhs::Use(operand))
                }
            },
            Some(op) => {
                if was_uninit {
                    self.cx
                        .error_spanned_by(place, format!("`{name}` is used before it is assigned"));
                    return;
                }
                let old = self.read(target);
                match (expr::compound_prim(op), &old, &value) {
                    (Some(prim), _, _)
                        if matches!(old, Operand::Var(_))
                            || matches!(value, expr::Value::Var(_)) =>
                    {
                        let new = self.operand(value, rhs.span());
                        (
                            Kind::Float,
                            Rhs::Prim {
                                prim,
                                args: vec![old, new],
                                syntax: crate::ir::Syntax::Operator,
                            },
                        )
                    }
                    (_, Operand::Const(old_c), expr::Value::Const(c)) => {
                        // Integer (or constant) arithmetic: `k += 1`.
                        let (o, r) = (old_c.tokens.clone(), expr::parenthesize(c.tokens.clone()));
                        let plain = syntax::plain_op(op);
                        let mut uses = old_c.uses.clone();
                        uses.extend(c.uses.iter().copied());
                        (
                            if c.is_float && !self.typed_not_f64.contains(&key) {
                                Kind::Float
                            } else {
                                Kind::Other
                            },
                            Rhs::Use(Operand::Const(Const {
                                tokens: quote!(#o #plain #r),
                                uses,
                            })),
                        )
                    }
                    _ => {
                        self.cx.error_spanned_by(
                            op,
                            "this compound assignment is not supported on a differentiated \
                             value; use `+=`, `-=`, `*=`, `/=` or `%=`",
                        );
                        return;
                    }
                }
            }
        };
        let id = self.new_local(&name, kind);
        self.stmts.push(Stmt::Let {
            var: id,
            ty: known_float.then(|| quote!(f64)),
            init: Some(rhs),
        });
        self.uninit.remove(&target);
        self.rebind(&key, id);
    }

    /// `a[i] = v` or `a[i] op= v` into a local float array.
    fn lower_store(&mut self, place: &syn::ExprIndex, op: Option<&syn::BinOp>, rhs: &Expr) {
        // `row[i] = v` of `let row = &mut q[a..b];`: the element of `q` at
        // the view's start plus `i` (a view of a parameter is refused below,
        // as a store into the parameter is)
        if let Some(pattern::Bound::View(view)) = self.compound_of(&place.expr) {
            let array = view.array;
            if self.vars[array].kind == Kind::FloatArray && self.vars[array].origin == Origin::Local
            {
                let (i, mut uses) = self.non_differentiated_tokens(&place.index);
                let start = expr::parenthesize(view.start.tokens);
                uses.extend(view.start.uses);
                let index = Const {
                    tokens: quote!(#start + (#i)),
                    uses,
                };
                self.store_into(array, index, op, rhs);
                return;
            }
        }
        let array = match &*place.expr {
            Expr::Path(path) => path
                .path
                .get_ident()
                .and_then(|ident| self.lookup(&ident.to_string())),
            _ => None,
        };
        // (`a[i][j] = ..` of a local whose `let` was refused: its root)
        let mut root = &*place.expr;
        while let Expr::Index(inner) = syntax::strip_parens(root) {
            root = &inner.expr;
        }
        if self
            .local_of(root)
            .is_some_and(|a| self.poisoned.contains(&a))
        {
            return;
        }
        if let Some(local) = array.filter(|a| self.in_place.may_change(*a)) {
            self.store_in_place(local, place, op, rhs);
            return;
        }
        if array.is_some_and(|a| self.vars[a].kind != Kind::FloatArray) {
            let name = place.expr.to_token_stream();
            self.cx.error_spanned_by(
                &place.expr,
                format!(
                    "`{name}` is not declared `mut`, or is a parameter: `#[differentiable]` \
                     changes the elements of a local array of integers or booleans only when \
                     it is declared `let mut`"
                ),
            );
            return;
        }
        let Some(array) = array else {
            self.cx.error_spanned_by(
                &place.expr,
                "`#[differentiable]` can only assign to elements of a local float array \
                 (`let mut a = [0.0; N];`, `vec![0.0; n]`, `x.to_vec()`)",
            );
            return;
        };
        if self.vars[array].origin != Origin::Local {
            let name = &self.vars[array].ident;
            self.cx.error_spanned_by(
                &place.expr,
                format!(
                    "`{name}` is a parameter, which `#[differentiable]` treats as read-only; \
                     copy it into a local first (`let mut {name} = {name}.to_vec();`), or \
                     declare a by-value array parameter `mut {name}: [f64; N]`"
                ),
            );
            return;
        }
        let (index_tokens, uses) = self.non_differentiated_tokens(&place.index);
        let index = Const {
            tokens: index_tokens,
            uses,
        };
        self.store_into(array, index, op, rhs);
    }

    /// `array[index] = rhs` or `array[index] op= rhs`.
    fn store_into(&mut self, array: VarId, index: Const, op: Option<&syn::BinOp>, rhs: &Expr) {
        let value = self.lower_expr(rhs);
        let value = match op {
            None => self.operand(value, rhs.span()),
            Some(op) => {
                let Some(prim) = expr::compound_prim(op) else {
                    self.cx.error_spanned_by(
                        op,
                        "only `+=`, `-=`, `*=` and `/=` are supported on array elements",
                    );
                    return;
                };
                let old = self.new_temp(Kind::Float);
                self.stmts.push(Stmt::Let {
                    var: old,
                    ty: None,
                    init: Some(Rhs::Load {
                        array,
                        index: index.clone(),
                    }),
                });
                let new = self.operand(value, rhs.span());
                let sum = self.new_temp(Kind::Float);
                self.stmts.push(Stmt::Let {
                    var: sum,
                    ty: None,
                    init: Some(Rhs::Prim {
                        prim,
                        args: vec![Operand::Var(old), new],
                        syntax: crate::ir::Syntax::Operator,
                    }),
                });
                Operand::Var(sum)
            }
        };
        self.stmts.push(Stmt::Store {
            array,
            index,
            value,
        });
    }

    /// `let b = w.to_vec();` of a subslice view (`w` a `windows`/`chunks`
    /// element or a local `&x[1..]`), or `let b = x[1..3].to_vec();`: the
    /// loop that copies it into a new buffer, as syntax (`None` for
    /// anything else).
    fn subslice_copy(&mut self, name: &Ident, init: &Expr) -> Option<Vec<syn::Stmt>> {
        let Expr::MethodCall(call) = syntax::strip_parens(init) else {
            return None;
        };
        if !(call.method == "to_vec" || call.method == "to_owned") || !call.args.is_empty() {
            return None;
        }
        let receiver = match syntax::strip_parens(&call.receiver) {
            Expr::Reference(r) => syntax::strip_parens(&r.expr),
            other => other,
        };
        let mut stmts: Vec<syn::Stmt> = Vec::new();
        let view: Expr = match receiver {
            Expr::Path(_)
                if matches!(self.compound_of(receiver), Some(pattern::Bound::View(_))) =>
            {
                receiver.clone()
            }
            Expr::Index(index) if matches!(syntax::strip_parens(&index.index), Expr::Range(_)) => {
                let alias = self.fresh_ident("view");
                stmts.push(syn::parse_quote!(let #alias = &#index;));
                syn::parse_quote!(#alias)
            }
            _ => return None,
        };
        let k = self.fresh_ident("k");
        stmts.push(syn::parse_quote!(let mut #name = vec![0.0_f64; #view.len()];));
        stmts.push(syn::parse_quote!(for #k in 0..#view.len() { #name[#k] = #view[#k]; }));
        Some(stmts)
    }

    /// A new local float array: `[v; n]`, `[a, b]`, `vec![..]`, `x.to_vec()`.
    /// `None` for anything else (including arrays of integers, which stay
    /// constants).
    fn array_constructor(&mut self, init: &Expr, typed_float: bool) -> Option<ArrayInit> {
        self.declined_items = None;
        // (taken here: the lowering of the elements below may construct
        // arrays of its own, which `lower_let` did not allow a fill)
        let fill_allowed = std::mem::take(&mut self.fill_allowed);
        let (literal, vec) = match init {
            Expr::Repeat(_) | Expr::Array(_) => (init.clone(), false),
            Expr::Macro(m) if m.mac.path.is_ident("vec") => {
                let tokens = &m.mac.tokens;
                (syn::parse2::<Expr>(quote!([#tokens])).ok()?, true)
            }
            Expr::MethodCall(call) if call.method == "to_vec" && call.args.is_empty() => {
                if let Expr::Path(path) = &*call.receiver {
                    let source = path
                        .path
                        .get_ident()
                        .and_then(|i| self.lookup(&i.to_string()))?;
                    if self.vars[source].kind == Kind::FloatArray {
                        return Some(ArrayInit::Copy { source, vec: true });
                    }
                }
                return None;
            }
            // `x.clone()` of a float array: a copy (a local array of a
            // known length by value, anything else as a `Vec`: the copy
            // of a `&[f64]` is read as the slice is); refused with the
            // other array methods until 2026-11-28
            Expr::MethodCall(call) if call.method == "clone" && call.args.is_empty() => {
                if let Expr::Path(path) = syntax::strip_parens(&call.receiver) {
                    let source = path
                        .path
                        .get_ident()
                        .and_then(|i| self.lookup(&i.to_string()))?;
                    if self.vars[source].kind == Kind::FloatArray
                        && !self.compound.contains_key(&source)
                    {
                        let fixed = self.vars[source].origin == Origin::Local
                            && !self.vars[source].view
                            && self.fixed_lens.contains_key(&source);
                        return Some(ArrayInit::Copy {
                            source,
                            vec: !fixed,
                        });
                    }
                }
                return None;
            }
            _ => return None,
        };
        let nested = match &literal {
            Expr::Array(a) => a.elems.iter().any(is_array_or_repeat),
            Expr::Repeat(r) => is_array_or_repeat(&r.expr),
            _ => false,
        };
        if nested {
            self.cx.error_spanned_by(
                init,
                "`#[differentiable]` supports a local array of arrays (`[[f64; N]; M]`, \
                 `vec![vec![0.0; n]; m]`) used through `a[i][j]`, its rows (`a[i]`, \
                 `a[i].iter()`, `a[i] = [..]`), `a.len()`, `a.iter()` and `for row in &a`; \
                 this one is used otherwise (whole, or in a macro): use one flat array, \
                 `let mut a = [0.0; M * N];`, indexed `a[i * N + j]`",
            );
            return Some(stand_in_array(vec));
        }
        match literal {
            Expr::Repeat(repeat) => {
                let value = self.lower_expr(&repeat.expr);
                // a value that varies (refused as "fill a new array with a
                // constant" until 2026-11-28): for a few elements the
                // literal of them, `[v, v, v]`; else zeros, then `v` stored
                // into each (`lower_let`)
                let value = match value {
                    expr::Value::Const(value) => value,
                    expr::Value::Var(var) if fill_allowed => {
                        let literal = match syntax::strip_parens(&repeat.len) {
                            Expr::Lit(syn::ExprLit {
                                lit: syn::Lit::Int(n),
                                ..
                            }) => n.base10_parse::<usize>().ok().filter(|&n| n <= 16),
                            _ => None,
                        };
                        if let Some(n) = literal {
                            let items = vec![Operand::Var(var); n];
                            return Some(ArrayInit::List { items, vec });
                        }
                        // (the length in a local of its own, which the loop
                        // storing `v` runs to: a loop over the whole of a
                        // buffer of zeros keeps no undo tape, `record.rs`)
                        let count = self.const_local_of(&repeat.len);
                        self.filled_with = Some((var, count.clone()));
                        let (len, _) = self.non_differentiated_tokens(&syn::parse_quote!(#count));
                        return Some(ArrayInit::Fill {
                            value: Const {
                                tokens: quote!(0.0_f64),
                                uses: Vec::new(),
                            },
                            len,
                            vec,
                        });
                    }
                    _ => {
                        self.cx.error_spanned_by(
                            &repeat.expr,
                            "fill a new array with a constant (`[0.0; n]`) or a value in a \
                             `let` of its own (`let v = [x; n];`), then assign its elements",
                        );
                        return Some(stand_in_array(vec));
                    }
                };
                if !value.is_float && !typed_float {
                    return None;
                }
                let (len, _) = self.non_differentiated_tokens(&repeat.len);
                Some(ArrayInit::Fill {
                    value: value.into_ir(),
                    len,
                    vec,
                })
            }
            // a table of tuples of constants (`vec![(0.0, 1.0), (1.0, 2.5)]`):
            // data, not floats that vary, kept as written
            Expr::Array(array)
                if !array.elems.is_empty()
                    && array.elems.iter().all(|e| {
                        matches!(syntax::strip_parens(e), Expr::Tuple(_)) && !self.reads_floats(e)
                    }) =>
            {
                let items = array
                    .elems
                    .iter()
                    .map(|e| {
                        let (tokens, uses) = self.non_differentiated_tokens(e);
                        Operand::Const(Const { tokens, uses })
                    })
                    .collect();
                self.declined_items = Some(items);
                None
            }
            Expr::Array(array) => {
                let values: Vec<expr::Value> =
                    array.elems.iter().map(|e| self.lower_expr(e)).collect();
                let any_float = values.iter().any(|v| match v {
                    expr::Value::Var(_) => true,
                    expr::Value::Const(c) => c.is_float,
                    expr::Value::Array(_) => false,
                });
                let items = values
                    .into_iter()
                    .zip(array.elems.iter())
                    .map(|(v, e)| self.operand(v, e.span()))
                    .collect();
                if !any_float && !typed_float {
                    self.declined_items = Some(items);
                    return None;
                }
                Some(ArrayInit::List { items, vec })
            }
            _ => None,
        }
    }

    fn lower_statement_macro(&mut self, mac: &syn::Macro, tokens: TokenStream) {
        let name = mac
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        if !STATEMENT_MACROS.contains(&name.as_str()) {
            self.cx.error_spanned_by(
                &mac.path,
                format!(
                    "macro `{name}!` is not supported by `#[differentiable]`; the statement \
                     macros it supports are `assert!`, `assert_eq!`, `assert_ne!`, \
                     `debug_assert!` (and `_eq`, `_ne`), `print!`, `println!`, `eprint!` \
                     and `eprintln!`"
                ),
            );
            return;
        }
        // The macro's tokens name locals by their user names; where a local
        // was renamed (shadowing, reassignment), bring the current version in
        // under its user name for the macro's sake.
        let mut mentioned = HashSet::new();
        collect_idents(mac.tokens.clone(), &mut mentioned);
        let strings = string_literals(mac.tokens.clone());
        let mut aliases = Vec::new();
        for (name, id) in self.visible() {
            let ident = self.ident(id);
            let in_format = strings.iter().any(|s| s.contains(&format!("{{{name}")));
            if *ident != name && (mentioned.contains(&name) || in_format) {
                let user = match name.strip_prefix("r#") {
                    Some(raw) => Ident::new_raw(raw, ident.span()),
                    None => Ident::new(&name, ident.span()),
                };
                aliases.push(quote!(let #user = #ident;));
            }
        }
        let stmt = if aliases.is_empty() {
            quote!(#tokens)
        } else {
            quote!({ #(#aliases)* #tokens })
        };
        self.stmts.push(Stmt::Opaque {
            tokens: stmt,
            replay: false,
        });
    }

    /// Every user name in scope and the variable it currently means.
    fn visible(&self) -> Vec<(String, VarId)> {
        let mut seen: HashMap<String, VarId> = HashMap::new();
        for scope in &self.scopes {
            for (name, id) in scope {
                seen.insert(name.clone(), *id);
            }
        }
        let mut out: Vec<_> = seen
            .into_iter()
            .filter(|(_, id)| !self.uninit.contains(id))
            .collect();
        out.sort();
        out
    }

    // ----- control flow --------------------------------------------------

    /// `if cond { .. } else { .. }`. With `merge`, locals the branches
    /// assign get cells and are read back after the `if`; without (an `if`
    /// that ends its block), the branches inherit `sink` and `exits`.
    fn lower_if(&mut self, ifx: &syn::ExprIf, sink: Option<Sink>, exits: &[Exit], merge: bool) {
        // `if let Some(v) = xs.iter().find(..)`: the loop, then `if found`
        if let Some(rewritten) = self.if_let_reduced(ifx) {
            return self.lower_if(&rewritten, sink, exits, merge);
        }
        if let Expr::Let(_) = &*ifx.cond {
            self.cx.error_spanned_by(
                &ifx.cond,
                "`if let` is supported by `#[differentiable]` on an element, `if let Some(v) = \
                 x.get(i)` (also `.copied()`, `x.first()`, `x.last()`), and on what a chain's \
                 `find`, `next`, `last`, `reduce`, `max_by` or `min_by` returns; else use a \
                 condition",
            );
            return;
        }
        let cond = self.condition(&ifx.cond);
        let decision = self.generated("c");
        // Each branch gets its own copies of the locals the `if` assigns, so
        // one branch's new versions are not seen by the other.
        let names = syntax::assigned_names(&Expr::If(ifx.clone()));
        let cells = if merge {
            self.make_cells(&names)
        } else {
            Vec::new()
        };
        let lower_branch = |this: &mut Self, stmts: &[syn::Stmt]| {
            this.in_block(&names, |this, frame| {
                let mut branch_exits = exits.to_vec();
                branch_exits.extend(cells.iter().map(|(name, cell)| Exit {
                    name: name.clone(),
                    cell: *cell,
                    frame,
                }));
                this.lower_stmts(stmts, sink, &branch_exits);
            })
        };
        let then_ = lower_branch(self, &ifx.then_branch.stmts);
        let else_ = match &ifx.else_branch {
            None => lower_branch(self, &[]),
            Some((_, els)) => match &**els {
                Expr::Block(b) => lower_branch(self, &b.block.stmts),
                nested => {
                    let stmt = syn::Stmt::Expr(nested.clone(), None);
                    lower_branch(self, std::slice::from_ref(&stmt))
                }
            },
        };
        self.stmts.push(Stmt::If {
            decision,
            cond,
            then_,
            else_,
        });
        self.read_cells_back(&cells);
    }

    /// A condition: a boolean expression, never differentiated.
    fn condition(&mut self, cond: &Expr) -> Const {
        // (`if xs.iter().any(|v| ..)`: `non_differentiated_tokens` lowers
        // the chain first, `hoist_tests`)
        let (tokens, uses) = self.non_differentiated_tokens(cond);
        Const { tokens, uses }
    }

    /// Replaces each `chain.any(..)` / `chain.all(..)` / `chain.position(..)`
    /// that `expr` (integer or boolean code, a condition) always evaluates
    /// by a local computed before it, the chain's loop, looking
    /// through the operands, receivers and arguments it always evaluates;
    /// an `if`, `match` or block that holds one is computed before it whole.
    pub(super) fn hoist_tests(&mut self, expr: &mut Expr) {
        match expr {
            Expr::Paren(p) => self.hoist_tests(&mut p.expr),
            Expr::Unary(u) => self.hoist_tests(&mut u.expr),
            Expr::Cast(c) => self.hoist_tests(&mut c.expr),
            Expr::Field(f) => self.hoist_tests(&mut f.base),
            Expr::Index(i) => {
                self.hoist_tests(&mut i.expr);
                self.hoist_tests(&mut i.index);
            }
            // an `if`, `match` or block holding one anywhere (an `else if`'s
            // condition, a branch): the whole value first, as a statement,
            // whose conditions and branches lowering takes in order
            Expr::If(_) | Expr::Match(_) | Expr::Block(_) if has_test(expr) => {
                let g = self.fresh_ident("value");
                let value = expr.clone();
                let stmt: syn::Stmt = syn::parse_quote!(let #g = #value;);
                self.lower_stmts(&[stmt], None, &[]);
                *expr = syn::parse_quote!(#g);
            }
            Expr::Call(c) => c.args.iter_mut().for_each(|a| self.hoist_tests(a)),
            // `a && t`, `a || t` with such a chain in `t`, which runs only
            // when `a` does not decide: `if a { if t { true } else { false } }
            // else { false }` (and the mirror for `||`), whose conditions
            // are conditions again
            Expr::Binary(b)
                if matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_)) && has_test(&b.right) =>
            {
                let (a, t) = (&b.left, &b.right);
                let value: Expr = if matches!(b.op, syn::BinOp::And(_)) {
                    syn::parse_quote!(if #a { if #t { true } else { false } } else { false })
                } else {
                    syn::parse_quote!(if #a { true } else if #t { true } else { false })
                };
                let g = self.fresh_ident("test");
                let stmt: syn::Stmt = syn::parse_quote!(let #g: bool = #value;);
                self.lower_stmts(&[stmt], None, &[]);
                *expr = syn::parse_quote!(#g);
            }
            Expr::Binary(b) => {
                self.hoist_tests(&mut b.left);
                if !matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_)) {
                    self.hoist_tests(&mut b.right);
                }
            }
            Expr::MethodCall(m) if is_test(m) => {
                let g = self.fresh_ident("test");
                let stmt: syn::Stmt = if m.method == "position" {
                    syn::parse_quote!(let #g: ::std::option::Option<usize> = #m;)
                } else {
                    syn::parse_quote!(let #g: bool = #m;)
                };
                self.lower_stmts(&[stmt], None, &[]);
                *expr = syn::parse_quote!(#g);
            }
            Expr::MethodCall(m) => {
                self.hoist_tests(&mut m.receiver);
                m.args.iter_mut().for_each(|a| self.hoist_tests(a));
            }
            _ => {}
        }
    }

    fn lower_while(&mut self, w: &syn::ExprWhile) {
        if let Expr::Let(_) = &*w.cond {
            self.cx.error_spanned_by(
                &w.cond,
                "`while let` is not supported by `#[differentiable]`; use `while cond`",
            );
            return;
        }
        // `while c { body }` is `loop { if c { body } else { break } }`.
        let (cond, body) = (&w.cond, &w.body);
        let body: syn::Block = syn::parse_quote!({ if #cond #body else { break; } });
        let label = w.label.as_ref().map(|l| l.name.ident.to_string());
        self.lower_loop(
            Header::Infinite,
            None,
            &body,
            label,
            &Expr::While(w.clone()),
        );
    }

    fn lower_for(&mut self, f: &syn::ExprForLoop) {
        if !plain_for(&f.expr) {
            self.lower_chain_for(f);
            return;
        }
        let label = f.label.as_ref().map(|l| l.name.ident.to_string());
        let whole = Expr::ForLoop(f.clone());
        let Some((index_name, element, range)) = self.for_header(f) else {
            return;
        };
        // `for v in xs` and friends iterate over indices, reading `xs[i]`
        // under a name of its own: the pattern may shadow `xs`
        // (`for (xs, v) in xs.iter().enumerate()`).
        let body = match element {
            Some((pat, array)) => {
                let found = self.lookup(&array.to_string());
                let array = match found {
                    Some(id) => {
                        let alias = self.fresh_ident("xs");
                        self.bind(&alias, id);
                        alias
                    }
                    None => array,
                };
                let (stmts, index) = (&f.body.stmts, &index_name);
                // (a constant of a type the macro cannot see: its element by
                // reference unless it is `Copy`, `__private::Elem`)
                // (not a view, a tuple or a closure bound to the name:
                // `compound`, whose elements the macro reads itself)
                let constant = found.is_some_and(|id| {
                    self.vars[id].kind == Kind::Other && !self.compound.contains_key(&id)
                });
                // (an element the body dereferences, `w[*i]` of `for i in
                // idx`, is the reference iterating the slice gives)
                // (the element's own pattern: `k` of `(i, k)` over
                // `idx.iter().enumerate()` too)
                // (a tuple pattern without `&`, `for (t, i) in pairs`,
                // binds references to the parts: the element by reference
                // where the body dereferences one of them, `x[*i]`)
                let by_reference = match &pat {
                    Pat::Ident(p) => derefs(&f.body, &p.ident),
                    Pat::Tuple(_) => syntax::pattern_names(&pat).iter().any(|name| {
                        derefs(&f.body, &Ident::new(name, proc_macro2::Span::call_site()))
                    }),
                    _ => false,
                };
                match constant {
                    true if by_reference => syn::parse_quote!({
                        let #pat = __autograd_element_ref!(#array[#index]);
                        #(#stmts)*
                    }),
                    true => syn::parse_quote!({
                        let #pat = __autograd_element!(#array[#index]);
                        #(#stmts)*
                    }),
                    false => syn::parse_quote!({ let #pat = #array[#index]; #(#stmts)* }),
                }
            }
            None => f.body.clone(),
        };
        let index = self.new_local(&index_name, Kind::Other);
        self.vars[index].origin = Origin::LoopIndex;
        let header = Header::Range { index, range };
        self.lower_loop(header, Some((index_name, index)), &body, label, &whole);
    }

    /// The index name, the element binding (for loops over a slice), and
    /// the range of indices.
    #[allow(clippy::type_complexity)]
    fn for_header(&mut self, f: &syn::ExprForLoop) -> Option<(Ident, Option<(Pat, Ident)>, Const)> {
        let iter = syntax::strip_parens(&f.expr);
        let fresh_index = |this: &mut Self| this.generated("i");
        // Over a slice: `xs`, `&xs`, `xs.iter()`, `xs.iter().enumerate()`.
        let (collection, enumerate) = match iter {
            Expr::MethodCall(m) if m.method == "enumerate" && m.args.is_empty() => {
                match &*m.receiver {
                    Expr::MethodCall(inner) if inner.method == "iter" && inner.args.is_empty() => {
                        (Some(&*inner.receiver), true)
                    }
                    _ => (None, false),
                }
            }
            Expr::MethodCall(m) if m.method == "iter" && m.args.is_empty() => {
                (Some(&*m.receiver), false)
            }
            Expr::Reference(r) => (Some(&*r.expr), false),
            Expr::Path(_) => (Some(iter), false),
            _ => (None, false),
        };
        if let Some(collection) = collection {
            let Expr::Path(path) = collection else {
                self.cx.error_spanned_by(
                    collection,
                    "`#[differentiable]` loops over a named slice or array (`for v in xs`); \
                     bind the collection to a local first",
                );
                return None;
            };
            let Some(array) = path.path.get_ident().cloned() else {
                self.cx
                    .error_spanned_by(collection, "loop over a local slice or array");
                return None;
            };
            let pat = strip_ref_pattern(&f.pat);
            let (index_name, element) = if enumerate {
                match &*f.pat {
                    Pat::Tuple(t) if t.elems.len() == 2 => {
                        let Pat::Ident(i) = &t.elems[0] else {
                            self.cx
                                .error_spanned_by(&t.elems[0], "name the index: `(i, v)`");
                            return None;
                        };
                        (i.ident.clone(), strip_ref_pattern(&t.elems[1]))
                    }
                    other => {
                        self.cx
                            .error_spanned_by(other, "write the pattern as `(i, v)`");
                        return None;
                    }
                }
            } else {
                (fresh_index(self), pat)
            };
            let range: Expr = syn::parse_quote!(0..#array.len());
            let (tokens, uses) = self.non_differentiated_tokens(&range);
            return Some((index_name, Some((element, array)), Const { tokens, uses }));
        }
        // Over a range: `a..b`, `a..=b`, `(a..b).rev()`.
        let is_range = match iter {
            Expr::Range(_) => true,
            Expr::MethodCall(m) if m.method == "rev" && m.args.is_empty() => {
                matches!(syntax::strip_parens(&m.receiver), Expr::Range(_))
            }
            _ => false,
        };
        if !is_range {
            self.cx.error_spanned_by(
                &f.expr,
                "`#[differentiable]` supports `for` over `a..b`, `a..=b`, `(a..b).rev()`, a \
                 slice (`xs`, `&xs`, `xs.iter()`) and `xs.iter().enumerate()`",
            );
            return None;
        }
        let index_name = match &*f.pat {
            Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => p.ident.clone(),
            Pat::Wild(_) => fresh_index(self),
            other => {
                self.cx
                    .error_spanned_by(other, "the index of a range loop must be a name or `_`");
                return None;
            }
        };
        let (tokens, uses) = self.non_differentiated_tokens(&f.expr);
        Some((index_name, None, Const { tokens, uses }))
    }

    /// Lowers a loop: cells for the locals the body assigns, the body with
    /// their entry versions bound, and their versions after the loop.
    fn lower_loop(
        &mut self,
        header: Header,
        index: Option<(Ident, VarId)>,
        body: &syn::Block,
        label: Option<String>,
        whole: &Expr,
    ) {
        let names = syntax::assigned_names(&Expr::Block(syn::ExprBlock {
            attrs: Vec::new(),
            label: None,
            block: body.clone(),
        }));
        for name in &names {
            if let Some(id) = self.lookup(name) {
                if self.uninit.contains(&id) {
                    self.cx.error_spanned_by(
                        whole,
                        format!(
                            "`{name}` is first assigned inside this loop; give it a value \
                             before the loop"
                        ),
                    );
                    return;
                }
            }
        }
        let cells = self.make_cells(&names);
        let id = self.loop_ids;
        self.loop_ids += 1;
        let shadow: Vec<String> = cells.iter().map(|(n, _)| n.clone()).collect();
        let mut carried = Vec::new();
        let mut breaks = false;
        let body = self.in_block(&shadow, |this, frame| {
            if let Some((name, var)) = &index {
                this.bind_in_frame(frame, &name.to_string(), *var);
            }
            for (name, cell) in &cells {
                let kind = this.vars[*cell].kind;
                let entry = this.new_local(&this.version_name(name), kind);
                this.stmts.push(Stmt::Let {
                    var: entry,
                    ty: None,
                    init: Some(Rhs::Use(this.read(*cell))),
                });
                this.bind_in_frame(frame, name, entry);
                carried.push(Carried { cell: *cell, entry });
            }
            let exits: Vec<Exit> = cells
                .iter()
                .map(|(name, cell)| Exit {
                    name: name.clone(),
                    cell: *cell,
                    frame,
                })
                .collect();
            this.loops.push(LoopCtx {
                exits: exits.clone(),
                breaks: false,
                label,
            });
            this.lower_stmts(&body.stmts, None, &exits);
            breaks = this.loops.pop().is_some_and(|ctx| ctx.breaks);
        });
        let breaks = breaks || matches!(header, Header::Infinite);
        // A cell that entered the loop a constant and left it a float: its
        // reads at the top of the body were constants (see [`lower`]).
        for (name, cell) in &cells {
            let entered_float = carried
                .iter()
                .any(|c| c.cell == *cell && self.vars[c.entry].kind == Kind::Float);
            if self.vars[*cell].kind == Kind::Float && !entered_float {
                self.became_float.insert(name.clone());
            }
        }
        self.stmts.push(Stmt::Loop(Loop {
            id,
            header,
            body,
            carried,
            breaks,
        }));
        self.read_cells_back(&cells);
    }

    /// `break`, `continue`, or `return v`.
    fn lower_jump(&mut self, expr: &Expr, _exits: &[Exit]) {
        let (jump, label) = match expr {
            Expr::Break(b) => {
                if let Some(value) = &b.expr {
                    self.cx
                        .error_spanned_by(value, "`break` with a value is not supported");
                    return;
                }
                (Jump::Break, b.label.as_ref())
            }
            Expr::Continue(c) => (Jump::Continue, c.label.as_ref()),
            Expr::Return(ret) => {
                let span = expr.span();
                let Some(value) = &ret.expr else {
                    self.cx.error_spanned_by(
                        ret,
                        "`return` needs a value: the function returns `f64`",
                    );
                    return;
                };
                if !self.returns_f64 {
                    return;
                }
                self.consumer_type(value, syn::parse_quote!(f64));
                let value = self.lower_expr(value);
                let operand = self.operand(value, span);
                let sink = self.function_sink;
                self.deliver(sink, operand, span);
                return;
            }
            _ => return,
        };
        let Some(ctx) = self.loops.last() else {
            self.cx
                .error_spanned_by(expr, "`break`/`continue` outside a loop");
            return;
        };
        if let Some(label) = label {
            if ctx.label.as_deref() != Some(&label.ident.to_string()) {
                self.cx.error_spanned_by(
                    label,
                    "`break`/`continue` to an outer loop's label from inside a `loop` used \
                     as a value (or to one) is not supported by `#[differentiable]`; set a \
                     flag and `break` from each loop",
                );
                return;
            }
        }
        let exits = ctx.exits.clone();
        self.run_exits(&exits);
        if jump == Jump::Break {
            if let Some(ctx) = self.loops.last_mut() {
                ctx.breaks = true;
            }
        }
        self.stmts.push(Stmt::Jump(jump));
    }
}

/// Is `iter` one the plain `for` lowering takes: a range, `(a..b).rev()`,
/// a named slice (`xs`, `&xs`, `xs.iter()`, `xs.iter().enumerate()`) that
/// is no subslice view?
fn plain_for(iter: &Expr) -> bool {
    let named =
        |e: &Expr| matches!(syntax::strip_parens(e), Expr::Path(p) if p.path.get_ident().is_some());
    match syntax::strip_parens(iter) {
        Expr::Range(_) => true,
        Expr::MethodCall(m) if m.method == "rev" && m.args.is_empty() => {
            matches!(syntax::strip_parens(&m.receiver), Expr::Range(_))
        }
        Expr::MethodCall(m) if m.method == "enumerate" && m.args.is_empty() => {
            matches!(syntax::strip_parens(&m.receiver), Expr::MethodCall(inner)
                if inner.method == "iter" && inner.args.is_empty() && named(&inner.receiver))
        }
        Expr::MethodCall(m) if m.method == "iter" && m.args.is_empty() => named(&m.receiver),
        Expr::Reference(r) => named(&r.expr),
        Expr::Path(_) => true,
        _ => false,
    }
}

/// `[f64; N]` or `Vec<f64>`.
fn is_float_array_type(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Array(array) => is_f64(&array.elem),
        syn::Type::Path(path) => path.path.segments.last().is_some_and(|last| {
            last.ident == "Vec"
                && matches!(&last.arguments, syn::PathArguments::AngleBracketed(args)
                    if matches!(args.args.first(), Some(syn::GenericArgument::Type(t)) if is_f64(t)))
        }),
        _ => false,
    }
}

/// Whether `block` dereferences the local `name` (`*name`).
pub(super) fn derefs(block: &syn::Block, name: &Ident) -> bool {
    deref_depth(block, name) > 0
}

/// How many times at most `block` dereferences `name` in a row: 1 for
/// `*k`, 2 for `**k` (a `filter` closure's `&&usize`), 0 for none.
pub(super) fn deref_depth(block: &syn::Block, name: &Ident) -> usize {
    struct Finder<'n> {
        name: &'n Ident,
        depth: usize,
    }
    impl<'a> syn::visit::Visit<'a> for Finder<'_> {
        fn visit_expr_unary(&mut self, unary: &'a syn::ExprUnary) {
            let mut depth = 0;
            let mut e: &Expr = &Expr::Unary(unary.clone());
            while let Expr::Unary(syn::ExprUnary {
                op: syn::UnOp::Deref(_),
                expr,
                ..
            }) = syntax::strip_parens(e)
            {
                depth += 1;
                e = expr;
            }
            if matches!(syntax::strip_parens(e), Expr::Path(p) if p.path.is_ident(self.name)) {
                self.depth = self.depth.max(depth);
            }
            syn::visit::visit_expr_unary(self, unary);
        }
    }
    let mut finder = Finder { name, depth: 0 };
    syn::visit::Visit::visit_block(&mut finder, block);
    finder.depth
}

/// `&v` → `v` (elements are read by value).
fn strip_ref_pattern(pat: &Pat) -> Pat {
    match pat {
        Pat::Reference(r) => (*r.pat).clone(),
        other => other.clone(),
    }
}

/// An array literal: `[a, b]`, `[v; n]`, or `vec!` of either (`vec`).
struct ArrayLiteral {
    literal: Expr,
    vec: bool,
}

fn array_literal(expr: &Expr) -> Option<ArrayLiteral> {
    match syntax::strip_parens(expr) {
        literal @ (Expr::Array(_) | Expr::Repeat(_)) => Some(ArrayLiteral {
            literal: literal.clone(),
            vec: false,
        }),
        Expr::Macro(m) if m.mac.path.is_ident("vec") => {
            let tokens = &m.mac.tokens;
            let literal = syn::parse2::<Expr>(quote!([#tokens])).ok()?;
            Some(ArrayLiteral { literal, vec: true })
        }
        _ => None,
    }
}

fn is_array_or_repeat(expr: &Expr) -> bool {
    match syntax::strip_parens(expr) {
        Expr::Array(_) | Expr::Repeat(_) => true,
        // (a row of `vec![vec![..]; n]`)
        Expr::Macro(m) => m.mac.path.is_ident("vec"),
        _ => false,
    }
}

/// An empty float array standing in for one whose constructor had an
/// error (already reported).
fn stand_in_array(vec: bool) -> ArrayInit {
    ArrayInit::Fill {
        value: Const {
            tokens: quote!(0.0),
            uses: Vec::new(),
        },
        len: quote!(0),
        vec,
    }
}

/// `any`, `all` or `position` of an iterator chain: a loop, lowered before
/// the integer or boolean code that reads it (`Lowerer::hoist_tests`).
fn is_test(m: &syn::ExprMethodCall) -> bool {
    ((m.method == "any" || m.method == "all" || m.method == "position")
        && iter::is_chain(&m.receiver))
        || iter::found_test(m).is_some()
}

/// Does `expr` call `any`, `all` or `position` on an iterator chain
/// (`Lowerer::hoist_tests`)?
fn has_test(expr: &Expr) -> bool {
    struct Finder(bool);
    impl<'ast> syn::visit::Visit<'ast> for Finder {
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            if is_test(m) {
                self.0 = true;
            }
            syn::visit::visit_expr_method_call(self, m);
        }
        // a closure's body is the closure's
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    }
    let mut finder = Finder(false);
    syn::visit::Visit::visit_expr(&mut finder, expr);
    finder.0
}

/// Whether `expr` is a tuple written out, or a block ending in one (a
/// `match` arm's value).
fn tuple_valued(expr: &Expr) -> bool {
    match syntax::strip_parens(expr) {
        Expr::Tuple(t) => !t.elems.is_empty(),
        Expr::Block(b) if b.label.is_none() => matches!(
            b.block.stmts.last(),
            Some(syn::Stmt::Expr(Expr::Tuple(t), None)) if !t.elems.is_empty()
        ),
        _ => false,
    }
}
