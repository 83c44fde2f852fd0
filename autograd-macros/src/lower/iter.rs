//! Iterator chains become the indexed loops they stand for.
//!
//! A chain is read into a [`Seq`]: a trip count and, for the loop's index
//! `k`, the syntax of the `k`-th element (`w[k]`, `(w[k], x[k])`, `if k < n
//! { a[k] } else { b[k - n] }` of a `chain`, a `map`
//! closure's body as a block binding its parameters to the element) plus
//! the [`Step`]s of an iteration before it: the `filter` predicates it must
//! pass, a mapped value they test in a `let` of its own (each closure runs
//! once an element, as in `Iterator`), the count of the elements that
//! passed (an `enumerate` after a `filter`). Bounds (subslice starts, `skip`,
//! `take`, `step_by` amounts, the trip count) are constant locals computed
//! once before the loop. Then
//!
//! - `for pat in chain { body }` is `for k in 0..n { if !keep { continue; }
//!   let pat = element(k); body }`, and
//! - `chain.sum()` / `product()` / `fold(init, f)` / `count()` is an
//!   accumulator local and the loop `acc += element(k)` (`*=`, `acc = f(acc,
//!   element(k))`, `+= 1`), whose value is the expression's,
//!
//! both lowered by the existing statement lowering: the IR is the one of
//! the loop a person writes, so the analyses and emitters see nothing new.

use super::expr::{placeholder, Value};
use super::pattern::Bound;
use super::syntax::strip_parens;
use super::Lowerer;
use crate::ir::Kind;
use quote::{quote, ToTokens};
use std::collections::HashSet;
use std::rc::Rc;
use syn::{parse_quote, Expr, Ident};

type ElemFn = Rc<dyn Fn(&Expr) -> Expr>;
/// Syntax applying a function to arguments.
type ApplyFn = Rc<dyn Fn(&[Expr]) -> Expr>;

/// An iterator chain, as a function of the loop index.
struct Seq {
    /// The trip count: a constant local; `None` for an unbounded range.
    len: Option<Ident>,
    /// The element at index `k`.
    elem: ElemFn,
    /// What each iteration does before the element, in order: the
    /// `filter` tests that skip it, with the values they share with what
    /// follows (empty without a `filter`).
    steps: Vec<Step>,
    /// `elem` applies a `map` closure: a `filter` after it takes the mapped
    /// value into a `let` ([`Step::Let`]) that the test and the element
    /// both read, so the closure runs once an element, as `Iterator` runs
    /// it (it ran once for the test and again for the element).
    mapped: bool,
    /// The locals the steps keep across iterations, declared before the
    /// loop: a count of the elements that passed the `filter`s so far
    /// ([`Step::Count`], a `usize` from `0`), whether a `skip_while` still
    /// skips ([`Step::Skip`], a `bool` from `true`).
    before: Vec<syn::Stmt>,
}

/// One statement of an iteration of a filtered chain, before its element.
enum Step {
    /// `let name = value(k);`: a mapped value a `filter` tests.
    Let(Ident, ElemFn),
    /// `let g: bool = keep(k); if !g { continue; }`.
    Guard(ElemFn),
    /// `let index: usize = counter; counter += 1;`: the position among the
    /// elements that passed (an `enumerate` after a `filter`).
    Count { index: Ident, counter: Ident },
    /// `let g: bool = keep(k); if !g { break; }`: a `take_while`, which
    /// ends the chain at the first element that fails (an unbounded range
    /// may be ended so: `(1..).map(..).take_while(..)`).
    Until(ElemFn),
    /// `if skipping { let g: bool = skip(k); if g { continue; } skipping =
    /// false; }`: a `skip_while`.
    Skip { skipping: Ident, test: ElemFn },
}

impl Seq {
    /// An unfiltered chain of `len` elements.
    fn new(len: Option<Ident>, elem: ElemFn) -> Seq {
        Seq {
            len,
            elem,
            steps: Vec::new(),
            mapped: false,
            before: Vec::new(),
        }
    }

    /// A count of the elements that passed the steps so far
    /// ([`Step::Count`]): the name of the position it binds.
    fn count(&mut self, index: Ident, counter: Ident) -> Ident {
        self.before.push(parse_quote!(let mut #counter: usize = 0;));
        self.steps.push(Step::Count {
            index: index.clone(),
            counter,
        });
        index
    }

    /// A `take_while` ends it: the loop may then run over an unbounded
    /// range.
    fn ends_itself(&self) -> bool {
        self.steps.iter().any(|s| matches!(s, Step::Until(_)))
    }

    /// The range the loop over it runs over, `0..len` (`0..` when a
    /// `take_while` ends an unbounded chain); `None` when it is unbounded
    /// and nothing ends it.
    fn range(&self) -> Option<Expr> {
        match (&self.len, self.ends_itself()) {
            (Some(len), _) => Some(parse_quote!(0..#len)),
            (None, true) => Some(parse_quote!(0..)),
            (None, false) => None,
        }
    }

    /// Filters the chain by `keep` (a `filter`'s or a `find`'s closure):
    /// its test, after the mapped value in a `let` named `value` the test
    /// and the element read, so that the `map` closure runs once an
    /// element.
    fn filter_by(&mut self, value: Ident, keep: ApplyFn, pat: Option<syn::Pat>) {
        let test = self.test_of(value, keep, pat);
        self.steps.push(Step::Guard(test));
    }

    /// The test of `keep` on each element (a `filter`'s, `find`'s,
    /// `take_while`'s or `skip_while`'s closure), after the mapped value in
    /// a `let` named `value` the test and the element read, so that the
    /// `map` closure runs once an element.
    fn test_of(&mut self, value: Ident, keep: ApplyFn, pat: Option<syn::Pat>) -> ElemFn {
        if self.mapped {
            self.steps.push(Step::Let(value.clone(), self.elem.clone()));
            self.elem = Rc::new(move |_: &Expr| parse_quote!(#value));
            self.mapped = false;
        }
        let elem = self.elem.clone();
        // (the test is given a reference to the element, as `Iterator`
        // gives it: an `enumerate` index a tuple pattern binds is a
        // reference, `|(i, _)| *i > 0`; the float parts are the floats,
        // whatever their `*`s)
        let indices = self.count_indices();
        // a tuple a `map` made, kept in a [`Step::Let`]: each part a name
        // of the pattern binds is a reference to it (the lowering keeps a
        // float a float)
        let probe: Expr = parse_quote!(__k);
        let kept_tuple = match strip_parens(&elem(&probe)) {
            Expr::Path(_) => self
                .tuple_tail(&elem(&probe), &probe)
                .map(|parts| parts.len()),
            _ => None,
        };
        Rc::new(move |k: &Expr| {
            let elem = match (&pat, kept_tuple) {
                (Some(syn::Pat::Tuple(pats)), Some(n)) if pats.elems.len() == n => {
                    parts_by_reference(elem(k), pats)
                }
                (Some(pat), _) => indices_by_reference(elem(k), pat, k, &indices),
                (None, _) => elem(k),
            };
            keep(&[elem])
        })
    }

    /// A `filter` skips some of the elements.
    fn filtered(&self) -> bool {
        !self.steps.is_empty()
    }

    /// The parts of the tuple an element ends in: a `map` closure's block
    /// `{ let (a, b) = ..; (a * b, a + b) }` (or a [`Step::Let`] of one),
    /// each part in a block of the statements before it, as the code that
    /// guesses its type reads it; `None` if it does not end in one.
    fn tuple_tail(&self, elem: &Expr, k: &Expr) -> Option<Vec<Expr>> {
        match strip_parens(elem) {
            Expr::Tuple(t) => Some(t.elems.iter().cloned().collect()),
            Expr::Block(b) => {
                let (last, init) = b.block.stmts.split_last()?;
                let syn::Stmt::Expr(tail, None) = last else {
                    return None;
                };
                let parts = self.tuple_tail(tail, k)?;
                Some(
                    parts
                        .into_iter()
                        .map(|p| parse_quote!({ #(#init)* #p }))
                        .collect(),
                )
            }
            Expr::Path(_) => {
                let value = self.let_value(elem, k)?;
                self.tuple_tail(&value, k)
            }
            _ => None,
        }
    }

    /// The value of the [`Step::Let`] `expr` names, if it names one.
    fn let_value(&self, expr: &Expr, k: &Expr) -> Option<Expr> {
        let Expr::Path(p) = strip_parens(expr) else {
            return None;
        };
        let name = p.path.get_ident()?;
        self.steps.iter().find_map(|step| match step {
            Step::Let(n, value) if n == name => Some(value(k)),
            _ => None,
        })
    }

    /// The positions the [`Step::Count`]s bind.
    fn count_indices(&self) -> Vec<Ident> {
        self.steps
            .iter()
            .filter_map(|step| match step {
                Step::Count { index, .. } => Some(index.clone()),
                _ => None,
            })
            .collect()
    }

    /// `expr`, or the value of the [`Step::Let`] it names, with the
    /// earlier steps' `let`s that value reads replaced by theirs in turn
    /// (a `filter_map` after a `map`: its value reads the `map`'s, a local
    /// of the loop's body, which a value rebuilt after the loop cannot
    /// name; E0425, seed 14 #26 of the generator with ping-pong buffers).
    fn resolved(&self, expr: &Expr, k: &Expr) -> Expr {
        struct Lets<'a> {
            seq: &'a Seq,
            k: &'a Expr,
            replaced: bool,
        }
        impl syn::visit_mut::VisitMut for Lets<'_> {
            fn visit_expr_mut(&mut self, e: &mut Expr) {
                if let Some(value) = self.seq.let_value(e, self.k) {
                    *e = parse_quote!((#value));
                    self.replaced = true;
                    return;
                }
                syn::visit_mut::visit_expr_mut(self, e);
            }
        }
        let mut e = self.let_value(expr, k).unwrap_or_else(|| expr.clone());
        // (each round replaces the names of one step's lets; a value reads
        // only earlier steps')
        for _ in 0..self.steps.len() {
            let mut lets = Lets {
                seq: self,
                k,
                replaced: false,
            };
            syn::visit_mut::VisitMut::visit_expr_mut(&mut lets, &mut e);
            if !lets.replaced {
                break;
            }
        }
        e
    }

    /// `part` of an element is its index, `k` or an `enumerate` counter's.
    fn is_index(&self, part: &Expr, k: &Expr) -> bool {
        part == k
            || (self.count_indices())
                .iter()
                .any(|index| *part == parse_quote!(#index))
    }

    /// The `let`s of the locals its steps keep, before the loop.
    fn counter_lets(&self) -> Vec<syn::Stmt> {
        self.before.clone()
    }
}

/// Methods that start a chain from a slice.
const SOURCES: &[&str] = &[
    "iter",
    "iter_mut",
    "into_iter",
    "chunks",
    "chunks_exact",
    "windows",
];
/// Adaptors lowered here.
const ADAPTORS: &[&str] = &[
    "copied",
    "cloned",
    "enumerate",
    "zip",
    "chain",
    "map",
    "filter",
    "filter_map",
    "take_while",
    "skip_while",
    "rev",
    "skip",
    "take",
    "step_by",
];
/// Adaptors refused, with the loop to write instead.
const REFUSED_ADAPTORS: &[&str] = &[
    "flat_map",
    "flatten",
    "map_while",
    "scan",
    "peekable",
    "cycle",
    "inspect",
    "fuse",
    "by_ref",
    "rchunks",
    "chunks_mut",
    "chunks_exact_mut",
    "split",
];
/// Consumers lowered here.
const CONSUMERS: &[&str] = &["sum", "product", "fold", "count", "any", "all", "position"];
/// Consumers lowered only unwrapped at once (`reduce_unwrapped`).
const REDUCERS: &[&str] = &[
    "reduce", "max_by", "min_by", "find", "find_map", "next", "last",
];

/// A reducer's loop (`Lowerer::reduce_loop`), not lowered yet.
struct ReduceLoop {
    stmts: Vec<syn::Stmt>,
    /// The accumulators, a part each.
    accs: Vec<Ident>,
    /// What the option holds, as the closures see it: the accumulator, or
    /// the tuple of them, floats by reference.
    given: Expr,
    tuple: bool,
    /// The flag of whether an element was found, when it keeps one.
    found: Option<Ident>,
}

/// The number of arguments of the reducer `name` (`None`: not one).
fn reducer_arity(name: &str) -> Option<usize> {
    match name {
        "next" | "last" => Some(0),
        _ if REDUCERS.contains(&name) => Some(1),
        _ => None,
    }
}
/// Consumers refused, with the loop to write instead.
const REFUSED_CONSUMERS: &[&str] = &[
    "max",
    "min",
    "max_by",
    "min_by",
    "max_by_key",
    "min_by_key",
    "reduce",
    "nth",
    "collect",
    "for_each",
    "try_fold",
    "next",
    "unzip",
    "partition",
];

/// Is `call` a `reduce` / `max_by` / `min_by` of a chain unwrapped at once
/// (`Lowerer::reduce_unwrapped`)?
pub(super) fn is_reduce_unwrapped(call: &syn::ExprMethodCall) -> bool {
    let unwrapped = matches!(
        (call.method.to_string().as_str(), call.args.len()),
        ("unwrap", 0) | ("expect", 1) | ("unwrap_or", 1) | ("unwrap_or_default", 0) | ("map_or", 2)
    );
    let (inner, _) = reducer_of(&call.receiver, call.method != "map_or");
    unwrapped
        && matches!(inner, Expr::MethodCall(reduce)
            if reducer_arity(&reduce.method.to_string()) == Some(reduce.args.len())
                && is_chain(&reduce.receiver))
}

/// Is `expr` the option a reducer of a chain returns (`chain.find(p)`,
/// `.max_by(..)`, `.next()`, .., through `.copied()` / `.cloned()`)?
pub(super) fn is_reducer_option(expr: &Expr) -> bool {
    matches!(reducer_of(expr, false).0, Expr::MethodCall(reduce)
        if reducer_arity(&reduce.method.to_string()) == Some(reduce.args.len())
            && is_chain(&reduce.receiver))
}

/// The reducer call an unwrap's receiver stands for, through `.copied()` /
/// `.cloned()` and, when `map`, an `Option::map(f)`
/// (`.max_by(..).map(|(i, _)| i).unwrap()`), with that `f`.
fn reducer_of(receiver: &Expr, map: bool) -> (&Expr, Option<&Expr>) {
    let copied = |expr: &'_ Expr| -> bool {
        matches!(expr, Expr::MethodCall(c)
            if (c.method == "copied" || c.method == "cloned") && c.args.is_empty())
    };
    let mut inner = strip_parens(receiver);
    let mut f = None;
    if let Expr::MethodCall(m) = inner {
        if map && m.method == "map" && m.args.len() == 1 && !is_chain(&m.receiver) {
            f = Some(&m.args[0]);
            inner = strip_parens(&m.receiver);
        }
    }
    if copied(inner) {
        if let Expr::MethodCall(c) = inner {
            inner = strip_parens(&c.receiver);
        }
    }
    (inner, f)
}

/// `chain.find(p).is_some()` (`.is_none()`, through `.copied()` /
/// `.cloned()`): the `find` call, and whether the test is `is_some`.
pub(super) fn found_test(call: &syn::ExprMethodCall) -> Option<(&syn::ExprMethodCall, bool)> {
    let some = match call.method.to_string().as_str() {
        "is_some" => true,
        "is_none" => false,
        _ => return None,
    };
    if !call.args.is_empty() {
        return None;
    }
    match reducer_of(&call.receiver, false) {
        (Expr::MethodCall(find), _)
            if (find.method == "find" || find.method == "find_map")
                && find.args.len() == 1
                && is_chain(&find.receiver) =>
        {
            Some((find, some))
        }
        _ => None,
    }
}

/// `a.flat_map(|p| b)`, then `map`, `filter`, `filter_map`, `copied`,
/// `cloned` stages: the outer chain `a`, the closure's pattern `p`, and the
/// inner chain `b` with those stages (`None` for any other chain). It is
/// the loop `for p in a { for e in b.<stages> { .. } }`.
pub(super) fn flat_chain(expr: &Expr) -> Option<(Expr, syn::Pat, Expr)> {
    let mut stages: Vec<&syn::ExprMethodCall> = Vec::new();
    let mut current = strip_parens(expr);
    loop {
        let Expr::MethodCall(m) = current else {
            return None;
        };
        match (m.method.to_string().as_str(), m.args.len()) {
            ("flat_map", 1) => {
                let Expr::Closure(f) = strip_parens(&m.args[0]) else {
                    return None;
                };
                if f.inputs.len() != 1 || !is_chain(&m.receiver) || !is_chain(&f.body) {
                    return None;
                }
                let mut inner = (*f.body).clone();
                for stage in stages.into_iter().rev() {
                    inner = Expr::MethodCall(syn::ExprMethodCall {
                        receiver: Box::new(inner),
                        ..stage.clone()
                    });
                }
                return Some(((*m.receiver).clone(), f.inputs[0].clone(), inner));
            }
            ("map" | "filter" | "filter_map", 1) | ("copied" | "cloned", 0) => {
                stages.push(m);
                current = strip_parens(&m.receiver);
            }
            _ => return None,
        }
    }
}

/// Is `expr` an iterator chain (a range, or methods over `iter()` & co)?
pub(super) fn is_chain(expr: &Expr) -> bool {
    match strip_parens(expr) {
        Expr::Range(_) => true,
        Expr::MethodCall(m) => {
            let name = m.method.to_string();
            if SOURCES.contains(&name.as_str()) {
                return true;
            }
            ((ADAPTORS.contains(&name.as_str()) || REFUSED_ADAPTORS.contains(&name.as_str()))
                && is_chain(&m.receiver))
                || flat_chain(expr).is_some()
        }
        _ => false,
    }
}

impl Lowerer<'_> {
    /// `chain.sum()` and the other consumers, `x.get(i).copied().unwrap_or(v)`;
    /// `None` when `call` is none of these.
    pub(super) fn lower_iterator_method(&mut self, call: &syn::ExprMethodCall) -> Option<Value> {
        let name = call.method.to_string();
        if (name == "unwrap_or" && call.args.len() == 1)
            || (name == "unwrap_or_default" && call.args.is_empty())
        {
            if let Some(value) = self.get_or(call) {
                return Some(value);
            }
        }
        if (name == "unwrap" && call.args.is_empty()) || (name == "expect" && call.args.len() == 1)
        {
            if let Some(value) = self.element_unwrap(call) {
                return Some(value);
            }
        }
        if let Some(value) = self.find_mapped(call) {
            return Some(value);
        }
        if let Some((find, some)) = found_test(call) {
            return Some(self.found(find, some));
        }
        if let Some(bound) = self.reduce_unwrapped(call) {
            return Some(self.value_of(bound, call));
        }
        if let Some(value) = self.mapped_element(call) {
            return Some(value);
        }
        if !is_chain(&call.receiver) {
            return None;
        }
        if CONSUMERS.contains(&name.as_str()) {
            return Some(self.consume(call));
        }
        let loop_text = "write the loop: `let mut best = ..; for v in xs { .. }`";
        let message = if REDUCERS.contains(&name.as_str()) {
            format!(
                "`.{name}{args}` is supported by `#[differentiable]` unwrapped at once: \
                 `.{name}{args}.unwrap()`, `.expect(..)`, `.unwrap_or(v)` (through \
                 `.copied()`), `.map(g).unwrap_or(v)`{last}; else {loop_text}",
                args = if reducer_arity(&name) == Some(0) {
                    "()"
                } else {
                    "(..)"
                },
                last = match name == "find" || name == "find_map" {
                    true => ", `.map_or(v, g)`, `.is_some()` or `.is_none()`",
                    false => " or `.map_or(v, g)`",
                }
            )
        } else if name == "for_each" {
            "`.for_each(..)` is supported by `#[differentiable]` as a statement, with a \
             closure of one parameter that does not `return`: it is the loop `for v in xs { .. \
             }`; write that loop (`continue` where the closure returns)"
                .to_string()
        } else if REFUSED_CONSUMERS.contains(&name.as_str()) {
            format!(
                "`.{name}()` is not supported on an iterator by `#[differentiable]`, which \
                 lowers `sum`, `product`, `fold`, `count`, `any`, `all` and `position`; {loop_text} (or `fold`)"
            )
        } else if ADAPTORS.contains(&name.as_str()) || SOURCES.contains(&name.as_str()) {
            "`#[differentiable]` supports an iterator only consumed in the same expression \
             (`.sum()`, `.product()`, `.fold(..)`, `.count()`) or as the iterator of a `for` \
             loop; it cannot be stored in a local or passed on"
                .to_string()
        } else {
            format!(
                "`.{name}()` is not supported on an iterator by `#[differentiable]`; {loop_text}"
            )
        };
        self.cx.error_spanned_by(&call.method, message);
        Some(Value::Const(placeholder()))
    }

    /// `chain.reduce(f)`, `chain.max_by(cmp)`, `chain.min_by(cmp)` unwrapped
    /// at once (`.unwrap()`, `.expect(m)`, `.unwrap_or(v)`,
    /// `.unwrap_or_default()`, through `.copied()` / `.cloned()`): the loop
    /// `Iterator` runs. The first element starts the accumulator, each
    /// later one `e` is folded in: `acc = f(acc, e)`; for `max_by`, `e`
    /// replaces `acc` unless `cmp(&acc, &e)` is `Greater` (the last of equal
    /// maxima wins), for `min_by` only if it is (the first of equal minima).
    /// An empty chain panics as `unwrap` would, or gives `v`. `None` when
    /// `call` is none of these.
    ///
    /// A tuple element (`enumerate`, `zip`: the argmax
    /// `x.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).unwrap()`)
    /// has an accumulator per part, and the value is the tuple of them. The
    /// comparison is given the tuples with their float parts by reference,
    /// as `iter()` gives them (`(usize, &f64)`): a comparison written for
    /// parts by value (after `.copied()`) reads them through auto-deref and
    /// deref coercion the same.
    pub(super) fn reduce_unwrapped(&mut self, call: &syn::ExprMethodCall) -> Option<Bound> {
        // (the arguments of the `assert!` that panics where `unwrap` would)
        let (panics, default): (Option<proc_macro2::TokenStream>, Option<Expr>) =
            match (call.method.to_string().as_str(), call.args.len()) {
                ("unwrap", 0) => (
                    Some(quote!("called `Option::unwrap()` on a `None` value")),
                    None,
                ),
                ("expect", 1) => {
                    let message = &call.args[0];
                    (Some(quote!("{}", #message)), None)
                }
                ("unwrap_or", 1) => (None, Some(call.args[0].clone())),
                ("unwrap_or_default", 0) => (
                    None,
                    Some(parse_quote!(::core::default::Default::default())),
                ),
                ("map_or", 2) => (None, Some(call.args[0].clone())),
                _ => return None,
            };
        let (inner, mapped) = match call.method == "map_or" {
            true => (reducer_of(&call.receiver, false).0, Some(&call.args[1])),
            false => reducer_of(&call.receiver, true),
        };
        // `.map(g).unwrap_or(v)`: `v` is the value for none of `g`'s
        // results, not a start for the accumulators (found below)
        let (default, mapped_default) = match &mapped {
            Some(_) => (None, default),
            None => (default, None),
        };
        let Expr::MethodCall(reduce) = inner else {
            return None;
        };
        let which = reduce.method.to_string();
        if reducer_arity(&which) != Some(reduce.args.len()) || !is_chain(&reduce.receiver) {
            return None;
        }
        if let ("find", Some(v)) = (which.as_str(), &mapped_default) {
            if !matches!(strip_parens(v), Expr::Tuple(_)) {
                // (one value: the first that passes mapped, whatever its
                // type, in the local `find_mapped` keeps)
                return self.find_mapped(call).map(Bound::Value);
            }
        }
        let mapped = match mapped {
            Some(g) => Some(self.callable(g, 1)?),
            None => None,
        };
        let failed = Some(Bound::Value(Value::Const(placeholder())));
        let Ok(reduced) =
            self.reduce_loop(reduce, panics, default, mapped_default.is_some(), None)?
        else {
            return failed;
        };
        let ReduceLoop {
            mut stmts,
            accs,
            given,
            tuple,
            found,
        } = reduced;
        if let (Some(g), Some(v), Some(found)) = (&mapped, &mapped_default, &found) {
            // `.map(g).unwrap_or(v)`
            let result = self.fresh_ident("mapped");
            let then = branch(g(&[given]));
            stmts.push(parse_quote!(let #result = if #found #then else { #v };));
            self.lower_stmts(&stmts, None, &[]);
            return Some(self.lower_bound(&parse_quote!(#result)));
        }
        self.lower_stmts(&stmts, None, &[]);
        if let Some(g) = mapped {
            // `.map(g)` of the option: `g` of what it holds
            return Some(self.lower_bound(&g(&[given])));
        }
        let mut values: Vec<Bound> = accs
            .iter()
            .map(|acc| Bound::Value(self.lower_expr(&parse_quote!(#acc))))
            .collect();
        Some(match tuple {
            true => Bound::Tuple(values),
            false => values.remove(0),
        })
    }

    /// `if let Some(pat) = option { then } else { .. }` of a reducer's
    /// option (`find`, `next`, `last`, `reduce`, `max_by`, `min_by` of a
    /// chain, through `.copied()` / `.cloned()`): the loop
    /// `reduce_unwrapped` lowers, with a flag of whether it found an
    /// element, lowered here, and the `if` to lower in place of `ifx`:
    /// `if found { let pat = acc; then } else { .. }`. `None` when `ifx`
    /// tests no such option.
    pub(super) fn if_let_reduced(&mut self, ifx: &syn::ExprIf) -> Option<syn::ExprIf> {
        let Expr::Let(test) = &*ifx.cond else {
            return None;
        };
        let syn::Pat::TupleStruct(some) = &*test.pat else {
            return None;
        };
        if !some.path.is_ident("Some") || some.elems.len() != 1 {
            return None;
        }
        let pat = &some.elems[0];
        let Expr::MethodCall(reduce) = reducer_of(&test.expr, false).0 else {
            return None;
        };
        let which = reduce.method.to_string();
        if reducer_arity(&which) != Some(reduce.args.len()) || !is_chain(&reduce.receiver) {
            return None;
        }
        // (after an error, the `else` alone: the names `pat` binds are
        // not bound)
        let failed = Some(syn::ExprIf {
            cond: Box::new(parse_quote!(false)),
            then_branch: parse_quote!({}),
            ..ifx.clone()
        });
        let Ok(reduced) = self.reduce_loop(reduce, None, None, false, Some(&test.pat))? else {
            return failed;
        };
        self.lower_stmts(&reduced.stmts, None, &[]);
        let (found, given) = (reduced.found?, reduced.given);
        let then = &ifx.then_branch.stmts;
        Some(syn::ExprIf {
            cond: Box::new(parse_quote!(#found)),
            then_branch: parse_quote!({
                let #pat = #given;
                #(#then)*
            }),
            ..ifx.clone()
        })
    }

    /// The loop of a reducer (`reduce_unwrapped`): `panics` (the message
    /// of the `assert!` where an `unwrap` would panic) or `default` (a
    /// start for the accumulators, `unwrap_or`'s value); with neither
    /// (`mapped_or`, `.map(g).unwrap_or(v)`, or `if_let`, the pattern
    /// of an `if let Some(..)` for its messages), a flag of whether an
    /// element was found. `None` when `reduce` is not one it lowers
    /// (nothing reported), `Some(Err(()))` when it reported an error.
    fn reduce_loop(
        &mut self,
        reduce: &syn::ExprMethodCall,
        panics: Option<proc_macro2::TokenStream>,
        default: Option<Expr>,
        mapped_or: bool,
        if_let: Option<&syn::Pat>,
    ) -> Option<Result<ReduceLoop, ()>> {
        let which = reduce.method.to_string();
        // (`next()` is the first element, a `find` that tests nothing;
        // `find_map(f)` is `filter_map(f).next()`)
        let find = matches!(which.as_str(), "find" | "find_map" | "next");
        let failed = Some(Err(()));
        let Some(mut seq) = self.seq(&reduce.receiver) else {
            return failed;
        };
        if let Some(Expr::Closure(c)) = reduce.args.first().map(strip_parens) {
            if !self.closure_is_inlinable(c) {
                return failed;
            }
        }
        // `find(p)`: the first element of the chain filtered by `p`
        // (`Step::Guard`), the loop stopping there; the others fold
        // (`last()`: each element replaces the one before, as a `min_by`
        // whose comparison is always `Greater`)
        let f = match which.as_str() {
            "find" | "find_map" => {
                let Some(searched) = self.searched(seq, reduce) else {
                    return failed;
                };
                seq = searched;
                None
            }
            "next" => None,
            "last" => {
                let greater: ApplyFn = Rc::new(|_| parse_quote!(::core::cmp::Ordering::Greater));
                Some(greater)
            }
            _ => Some(self.callable(&reduce.args[0], 2)?),
        };
        // (an unbounded chain a `find` or a `take_while` ends runs over
        // `0..`; the others need a length)
        let range: Expr = match (seq.range(), find) {
            (Some(range), _) => range,
            (None, true) => parse_quote!(0..),
            (None, false) => {
                self.unbounded(&reduce.receiver);
                return failed;
            }
        };
        let len = seq.len.clone();
        // (a flag of whether an element was found, rather than a first
        // element to start from)
        let flagged = mapped_or || if_let.is_some();
        let k = self.fresh_ident("k");
        let kx: Expr = parse_quote!(#k);
        // the element's parts: one, or a tuple's
        let tuple_parts = |elem: Expr| -> Vec<Expr> {
            match strip_parens(&elem) {
                Expr::Tuple(t) => t.elems.iter().cloned().collect(),
                _ => vec![elem],
            }
        };
        let elem = (seq.elem)(&kx);
        // a tuple written out (`enumerate`'s, `zip`'s), or one a `map`
        // closure ends in (`.map(|(a, b)| (a * b, a + b))`), whose parts
        // are bound by destructuring the element
        let written = matches!(strip_parens(&elem), Expr::Tuple(_));
        let ended = match written {
            true => None,
            false => seq.tuple_tail(&elem, &kx),
        };
        let tuple = written || ended.is_some();
        if tuple && which == "reduce" {
            self.cx.error_spanned_by(
                &reduce.method,
                "`.reduce(..)` of tuples (after `enumerate` or `zip`) is not supported by \
                 `#[differentiable]`; use `.max_by(..)` / `.min_by(..)`, or write the loop: \
                 `let mut best = ..; for (i, v) in xs.iter().enumerate() { .. }`",
            );
            return failed;
        }
        let parts = match &ended {
            Some(parts) => parts.clone(),
            None => tuple_parts(elem.clone()),
        };
        // (a part a `Step::Let` holds, the mapped value a `filter` or a
        // `find` tests, is what it was computed from)
        // a subslice (`windows`', `chunks`' element) cannot be held in a
        // local assigned again: its accumulator is the index `k` of the
        // element it is, and the subslice is rebuilt from it
        let slices: Vec<bool> = parts
            .iter()
            .map(|p| ended.is_none() && is_subslice(p))
            .collect();
        let floats: Vec<bool> = (parts.iter().zip(&slices))
            .map(|(p, slice)| !slice && self.guess_float(&seq.resolved(p, &kx), &mut Vec::new()))
            .collect();
        // so is a part of a type it cannot tell (`.map(|v| SCALE)`) where
        // the accumulator needs a start before the first element (a
        // `filter`, a flag of whether one was found): its value is the
        // `map`'s again, at the index kept (not one an `enumerate` after a
        // `filter` counts, which is the loop's own)
        let fast = !seq.filtered() && !flagged && len.is_some();
        let counters = seq.count_indices();
        let slices: Vec<bool> = (parts.iter().zip(&slices).zip(&floats))
            .map(|((p, slice), float)| {
                *slice
                    || (!fast
                        && ended.is_none()
                        && default.is_none()
                        && !float
                        && !(tuple && (seq.is_index(p, &kx) || index_arithmetic(p, &kx)))
                        && range_start(p).is_none()
                        && !counters.iter().any(|c| {
                            super::syntax::mentions_ident(
                                seq.resolved(p, &kx).to_token_stream(),
                                &c.to_string(),
                            )
                        }))
            })
            .collect();
        let n = parts.len();
        let accs: Vec<Ident> = (0..n).map(|_| self.fresh_ident("acc")).collect();
        let es: Vec<Ident> = (0..n).map(|_| self.fresh_ident("e")).collect();
        // the first element's parts, and the `let` that binds them when
        // the element is destructured
        // (unfiltered, the `last()` is the element at `len - 1`)
        let first_k: Expr = match (which.as_str(), &len) {
            ("last", Some(len)) => parse_quote!((#len - 1)),
            _ => parse_quote!(0),
        };
        let (firsts, first_lets): (Vec<Expr>, Vec<syn::Stmt>) = match &ended {
            None => (
                (tuple_parts((seq.elem)(&first_k)).into_iter().zip(&slices))
                    .map(|(part, slice)| if *slice { first_k.clone() } else { part })
                    .collect(),
                Vec::new(),
            ),
            Some(_) => {
                let names: Vec<Ident> = (0..n).map(|_| self.fresh_ident("first")).collect();
                let first = (seq.elem)(&first_k);
                (
                    names.iter().map(|f| parse_quote!(#f)).collect(),
                    vec![parse_quote!(let (#(#names,)*) = #first;)],
                )
            }
        };
        // what the closure is given: the element, or the tuple of the
        // parts, floats by reference
        // (a subslice's, or one of a type it cannot tell, rebuilt from its
        // index)
        let element = seq.elem.clone();
        let given = |names: &[Ident]| -> Expr {
            let part = |j: usize| -> Expr {
                let name = &names[j];
                let at: Expr = parse_quote!(#name);
                seq.resolved(&tuple_parts(element(&at)).swap_remove(j), &at)
            };
            if !tuple {
                let name = &names[0];
                return match slices[0] {
                    true => part(0),
                    false => parse_quote!(#name),
                };
            }
            let items = (names.iter().zip(&floats).zip(&slices).enumerate()).map(
                |(j, ((name, float), slice))| match (float, slice) {
                    (_, true) => part(j).to_token_stream(),
                    (true, false) => quote!(&#name),
                    (false, false) => quote!(#name),
                },
            );
            parse_quote!((#(#items,)*))
        };
        let step: syn::Stmt = match (which.as_str(), &f) {
            // (a `find` stops at the first element that passes)
            (_, None) => parse_quote!(break;),
            ("reduce", Some(f)) => {
                let acc = &accs[0];
                let next = f(&[given(&accs), given(&es)]);
                parse_quote!(#acc = #next;)
            }
            (max_or_min, Some(f)) => {
                let (a, e) = (given(&accs), given(&es));
                let greater = f(&[parse_quote!(&#a), parse_quote!(&#e)]);
                let g = self.fresh_ident("g");
                let take: Expr = match max_or_min == "max_by" {
                    true => parse_quote!(!#g),
                    false => parse_quote!(#g),
                };
                parse_quote!({
                    let #g: bool = #greater == ::core::cmp::Ordering::Greater;
                    if #take {
                        #(#accs = #es;)*
                    }
                })
            }
        };
        let typed: Vec<proc_macro2::TokenStream> = (floats.iter().zip(&slices))
            .map(|pair| match pair {
                (_, true) => quote!(: usize),
                (true, false) => quote!(: f64),
                (false, false) => quote!(),
            })
            .collect();
        // `unwrap_or`'s value, a part for each accumulator
        let defaults: Option<Vec<Expr>> = match &default {
            None => None,
            Some(v) if !tuple => Some(vec![v.clone()]),
            Some(v) => match strip_parens(v) {
                Expr::Tuple(t) if t.elems.len() == n => Some(t.elems.iter().cloned().collect()),
                Expr::Call(c) if c.args.is_empty() => Some(vec![v.clone(); n]),
                _ => {
                    self.cx.error_spanned_by(
                        v,
                        format!(
                            "`#[differentiable]` takes the value for none of a `.{which}(..)` \
                             of tuples written out, `.unwrap_or((a, b))`"
                        ),
                    );
                    return failed;
                }
            },
        };
        let lets = |values: &[Expr]| -> Vec<syn::Stmt> {
            accs.iter()
                .zip(&typed)
                .zip(values)
                .map(|((acc, ty), v)| parse_quote!(let mut #acc #ty = #v;))
                .collect()
        };
        let bind_elem: Vec<syn::Stmt> = match ended {
            Some(_) => vec![parse_quote!(let (#(#es,)*) = #elem;)],
            None => (es.iter().zip(&parts).zip(&slices))
                .map(|((e, part), slice)| match slice {
                    true => parse_quote!(let #e: usize = #k;),
                    false => parse_quote!(let #e = #part;),
                })
                .collect(),
        };
        let (stmts, found) = if let (false, false, Some(len)) = (seq.filtered(), flagged, &len) {
            // (the first element is `next()`'s, the last `last()`'s: no
            // loop)
            let fold: Option<syn::Stmt> = (f.is_some() && which != "last").then(|| {
                parse_quote!(for #k in 1..#len {
                    #(#bind_elem)*
                    #step
                })
            });
            match (&panics, &defaults) {
                (Some(message), _) => {
                    let mut stmts = vec![parse_quote!(assert!(#len > 0, #message);)];
                    stmts.extend(first_lets);
                    stmts.extend(lets(&firsts));
                    stmts.extend(fold);
                    (stmts, None)
                }
                (None, Some(defaults)) => {
                    let mut stmts = lets(defaults);
                    stmts.push(parse_quote!(if #len > 0 {
                        #(#first_lets)*
                        #(#accs = #firsts;)*
                        #fold
                    }));
                    (stmts, None)
                }
                (None, None) => unreachable!("one of the two unless flagged"),
            }
        } else {
            // (a `filter` decides which element is the first; the
            // accumulator starts from `unwrap_or`'s value, of its type, or,
            // for `unwrap`, from a float's zero or, for an `enumerate`
            // index, `usize`'s, never read)
            let starts: Vec<Expr> = match &defaults {
                Some(defaults) => defaults.clone(),
                None => {
                    let mut starts = Vec::new();
                    for ((part, float), slice) in parts.iter().zip(&floats).zip(&slices) {
                        if *slice {
                            starts.push(parse_quote!(0usize));
                        } else if *float {
                            starts.push(parse_quote!(0.0));
                        } else if tuple && (seq.is_index(part, &kx) || index_arithmetic(part, &kx))
                        {
                            starts.push(parse_quote!(0usize));
                        } else if let Some(start) = range_start(part) {
                            // (a range's element: its start, of its type)
                            starts.push(start);
                        } else {
                            let message = match flagged {
                                true if if_let.is_some() => format!(
                                    "`if let Some(..) = ...{which}(..)` is supported by \
                                     `#[differentiable]` on elements it can tell are floats or \
                                     indices; write the loop: `let mut best = ..; for v in xs \
                                     {{ .. }}`"
                                ),
                                true => format!(
                                    "`.{which}(..).map(g).unwrap_or(v)` is supported by \
                                     `#[differentiable]` on elements it can tell are floats or \
                                     indices; write the loop: `let mut best = ..; for v in xs \
                                     {{ .. }}`"
                                ),
                                false => format!(
                                    "`.{which}(..).unwrap()` after `.filter(..)` is supported \
                                     by `#[differentiable]` on elements it can tell are floats; \
                                     give a value for none, `.unwrap_or(v)`, or write the loop"
                                ),
                            };
                            self.cx.error_spanned_by(&reduce.method, message);
                            return failed;
                        }
                    }
                    starts
                }
            };
            let found = self.fresh_ident("found");
            let mut body = self.step_stmts(&seq, &kx);
            body.extend(bind_elem);
            body.push(match find {
                true => parse_quote!({
                    #(#accs = #es;)*
                    #found = true;
                    break;
                }),
                false => parse_quote!(if #found { #step } else {
                    #(#accs = #es;)*
                    #found = true;
                }),
            });
            let mut stmts = lets(&starts);
            stmts.extend(seq.counter_lets());
            stmts.push(parse_quote!(let mut #found: bool = false;));
            stmts.push(parse_quote!(for #k in #range { #(#body)* }));
            if let Some(message) = &panics {
                stmts.push(parse_quote!(assert!(#found, #message);));
            }
            (stmts, Some(found))
        };
        let given = given(&accs);
        Some(Ok(ReduceLoop {
            stmts,
            accs,
            given,
            tuple,
            found,
        }))
    }

    /// `seq` filtered as `search` (a `find(p)` or `find_map(f)` of it)
    /// does: by `p` (given a reference to the element), or as `filter_map(f)`.
    fn searched(&mut self, mut seq: Seq, search: &syn::ExprMethodCall) -> Option<Seq> {
        if search.method == "find_map" {
            return self.filter_mapped(seq, &search.args[0], "find_map");
        }
        let p = self.callable(&search.args[0], 1)?;
        seq.filter_by(self.fresh_ident("m"), p, closure_pattern(&search.args[0]));
        Some(seq)
    }

    /// `inner.filter_map(f)` (`which`, or a `find_map(f)`'s) of a closure
    /// ending in `if c { Some(e) } else { None }` (or `c.then(|| e)`): a
    /// `filter` by `|v| c` and a `map` by `|v| e`, both given the element by
    /// value, as `filter_map` gives it; `None` (reported) for any other.
    fn filter_mapped(&mut self, mut inner: Seq, f: &Expr, which: &str) -> Option<Seq> {
        let Some((test, value)) = option_closure_parts(f) else {
            self.cx.error_spanned_by(
                f,
                format!(
                    "`.{which}(..)` is supported by `#[differentiable]` with a closure that \
                     ends in `if cond {{ Some(v) }} else {{ None }}` or `cond.then(|| v)`; \
                     else write `.filter(..).map(..)`, or the loop"
                ),
            );
            return None;
        };
        let keep = self.callable(&test, 1)?;
        let guard = inner.test_of(self.fresh_ident("m"), keep, None);
        inner.steps.push(Step::Guard(guard));
        let f = self.callable(&value, 1)?;
        let elem = inner.elem.clone();
        Some(Seq {
            elem: Rc::new(move |k: &Expr| f(&[elem(k)])),
            mapped: true,
            ..inner
        })
    }

    /// `chain.find(p).map(g).unwrap_or(v)` and `chain.find(p).map_or(v, g)`
    /// (through `.copied()` / `.cloned()`): `v` until the first element `e`
    /// that passes `p`, then `g(e)`, the loop stopping there:
    /// `let mut r = v; for k in .. { if !p(e) { continue; } r = g(e); break; }`.
    /// `None` when `call` is none of these.
    fn find_mapped(&mut self, call: &syn::ExprMethodCall) -> Option<Value> {
        let (option, g, default) = match (call.method.to_string().as_str(), call.args.len()) {
            ("map_or", 2) => (&*call.receiver, &call.args[1], &call.args[0]),
            ("unwrap_or", 1) => match strip_parens(&call.receiver) {
                Expr::MethodCall(map) if map.method == "map" && map.args.len() == 1 => {
                    (&*map.receiver, &map.args[0], &call.args[0])
                }
                _ => return None,
            },
            _ => return None,
        };
        let (find, _) = reducer_of(option, false);
        let Expr::MethodCall(find) = find else {
            return None;
        };
        if find.method != "find" || find.args.len() != 1 || !is_chain(&find.receiver) {
            return None;
        }
        let failed = Some(Value::Const(placeholder()));
        let Some(mut seq) = self.seq(&find.receiver) else {
            return failed;
        };
        let Some(p) = self.callable(&find.args[0], 1) else {
            return failed;
        };
        seq.filter_by(self.fresh_ident("m"), p, closure_pattern(&find.args[0]));
        let Some(g) = self.callable(g, 1) else {
            return failed;
        };
        // (an unbounded chain runs until an element passes)
        let range = seq.range().unwrap_or_else(|| parse_quote!(0..));
        let k = self.fresh_ident("k");
        let kx: Expr = parse_quote!(#k);
        let found = self.fresh_ident("found");
        let mut body = self.step_stmts(&seq, &kx);
        let value = g(&[(seq.elem)(&kx)]);
        body.push(parse_quote!({
            #found = #value;
            break;
        }));
        let mut stmts = vec![parse_quote!(let mut #found = #default;)];
        stmts.extend(seq.counter_lets());
        stmts.push(parse_quote!(for #k in #range { #(#body)* }));
        self.lower_stmts(&stmts, None, &[]);
        Some(self.lower_expr(&parse_quote!(#found)))
    }

    /// `chain.find(p).is_some()` (`some`) or `.is_none()`: whether an
    /// element passes `p`, the loop stopping at the first that does (as
    /// `any`, but `p` is given a reference to the element, as `find` gives
    /// it).
    fn found(&mut self, find: &syn::ExprMethodCall, some: bool) -> Value {
        let failed = Value::Const(placeholder());
        let Some(seq) = self.seq(&find.receiver) else {
            return failed;
        };
        let Some(seq) = self.searched(seq, find) else {
            return failed;
        };
        let Some(range) = seq.range() else {
            self.unbounded(&find.receiver);
            return failed;
        };
        let k = self.fresh_ident("k");
        let found = self.fresh_ident("found");
        let mut body = self.step_stmts(&seq, &parse_quote!(#k));
        body.push(parse_quote!({
            #found = true;
            break;
        }));
        let mut stmts = vec![parse_quote!(let mut #found: bool = false;)];
        stmts.extend(seq.counter_lets());
        stmts.push(parse_quote!(for #k in #range { #(#body)* }));
        self.lower_stmts(&stmts, None, &[]);
        match some {
            true => self.lower_expr(&parse_quote!(#found)),
            false => self.lower_expr(&parse_quote!(!#found)),
        }
    }

    /// `x.get(i).copied().unwrap_or(v)`: `if i < x.len() { x[i] } else { v }`;
    /// `x.first()` and `x.last()` likewise, as `x.get(0)` and
    /// `x.get(x.len() - 1)` (`v` when `x` is empty).
    fn get_or(&mut self, call: &syn::ExprMethodCall) -> Option<Value> {
        let Expr::MethodCall(copied) = strip_parens(&call.receiver) else {
            return None;
        };
        if !(copied.method == "copied" || copied.method == "cloned") || !copied.args.is_empty() {
            return None;
        }
        let element = element_of(&copied.receiver)?;
        let default: Expr = match call.args.first() {
            Some(v) => v.clone(),
            None => parse_quote!(0.0),
        };
        let (place, present) = self.element_place(element)?;
        let expr: Expr = parse_quote!(if #present { #place } else { #default });
        Some(self.lower_expr(&expr))
    }

    /// `x.get(i).unwrap()`, `x.first().unwrap()`, `x.last().copied().unwrap()`,
    /// `.expect(..)` for `.unwrap()`: the element `x[i]`, `x[0]`,
    /// `x[x.len() - 1]`, which panics where the `unwrap` would (with an
    /// index out of bounds instead of `None`).
    fn element_unwrap(&mut self, call: &syn::ExprMethodCall) -> Option<Value> {
        let receiver = match strip_parens(&call.receiver) {
            Expr::MethodCall(copied)
                if (copied.method == "copied" || copied.method == "cloned")
                    && copied.args.is_empty() =>
            {
                &copied.receiver
            }
            other => other,
        };
        let (place, _) = self.element_place(element_of(receiver)?)?;
        Some(self.lower_expr(&place))
    }

    /// `x.get(i).map(f).unwrap_or(v)` and `x.get(i).map_or(v, f)` (`first`,
    /// `last`, through `.copied()`; `.map(f).unwrap()` / `.expect(..)`):
    /// `if i < x.len() { f(x[i]) } else { v }`, `f` a closure or a function
    /// path, given the element by reference as `get` gives it (by value
    /// after `.copied()`). `None` when `call` is none of these.
    fn mapped_element(&mut self, call: &syn::ExprMethodCall) -> Option<Value> {
        // (the option, the function, the value for none: `None` to unwrap)
        let (option, f, default): (&Expr, &Expr, Option<&Expr>) =
            match (call.method.to_string().as_str(), call.args.len()) {
                ("map_or", 2) => (&call.receiver, &call.args[1], Some(&call.args[0])),
                (name @ ("unwrap_or" | "unwrap" | "expect"), _) => {
                    let Expr::MethodCall(map) = strip_parens(&call.receiver) else {
                        return None;
                    };
                    if map.method != "map" || map.args.len() != 1 {
                        return None;
                    }
                    let default = match (name, call.args.len()) {
                        ("unwrap_or", 1) => Some(&call.args[0]),
                        ("unwrap", 0) | ("expect", 1) => None,
                        _ => return None,
                    };
                    (&map.receiver, &map.args[0], default)
                }
                _ => return None,
            };
        let (receiver, by_value) = match strip_parens(option) {
            Expr::MethodCall(copied)
                if (copied.method == "copied" || copied.method == "cloned")
                    && copied.args.is_empty() =>
            {
                (&*copied.receiver, true)
            }
            other => (other, false),
        };
        let element = element_of(receiver)?;
        if let Expr::Closure(c) = strip_parens(f) {
            if !self.closure_is_inlinable(c) {
                return Some(Value::Const(placeholder()));
            }
        }
        let apply = self.callable(f, 1)?;
        let (place, present) = self.element_place(element)?;
        let arg: Expr = match by_value {
            true => place,
            false => parse_quote!(&#place),
        };
        let mapped = apply(&[arg]);
        let expr: Expr = match default {
            Some(v) => parse_quote!(if #present { #mapped } else { #v }),
            // (an index out of bounds where the `unwrap` would panic)
            None => mapped,
        };
        Some(self.lower_expr(&expr))
    }

    /// The element `element` names, `x[start + i]`, and when it exists.
    fn element_place(&mut self, element: Element<'_>) -> Option<(Expr, Expr)> {
        let (array, start, len) = self.collection(element.receiver(), false)?;
        let (present, i): (Expr, Expr) = match element {
            Element::Get(_, i) => {
                let i = self.const_local_of(i);
                (parse_quote!(#i < #len), parse_quote!(#i))
            }
            Element::First(_) => (parse_quote!(0 < #len), parse_quote!(0)),
            Element::Last(_) => (parse_quote!(0 < #len), parse_quote!(#len - 1)),
        };
        let index: Expr = match &start {
            Some(s) => parse_quote!(#s + (#i)),
            None => i,
        };
        Some((parse_quote!(#array[#index]), present))
    }

    /// The slice, array or subslice `expr` as (a name for the array, the
    /// start of the elements, their number), or `None` (reported).
    #[allow(clippy::type_complexity)]
    fn collection(&mut self, expr: &Expr, mutable: bool) -> Option<(Ident, Option<Ident>, Ident)> {
        self.collection_of(expr, mutable)
            .map(|(array, start, len, _, _)| (array, start, len))
    }

    /// [`Self::collection`], whether the array is data (a float array that
    /// carries no derivative: an inactive parameter), and whether it is a
    /// constant of a type the macro cannot see (`&[Obs]`, `&[Vec<f64>]`).
    #[allow(clippy::type_complexity)]
    fn collection_of(
        &mut self,
        expr: &Expr,
        mutable: bool,
    ) -> Option<(Ident, Option<Ident>, Ident, bool, bool)> {
        // `[1.5, 2.25, 2.625].iter()`, `&[a, b]`: a local array of its own.
        let literal = match strip_parens(expr) {
            Expr::Reference(r) => strip_parens(&r.expr),
            other => other,
        };
        if matches!(literal, Expr::Array(_) | Expr::Repeat(_)) && !mutable {
            if let Some(init) = self.array_constructor(literal, false) {
                let id = self.new_array_temp(init, None);
                let array = self.alias(id);
                let len = self.const_local_of(&parse_quote!(#array.len()));
                return Some((array, None, len, false, false));
            }
            // `for dim in [2, 3, 5]`, `&[0usize, 2]`: an array of integers,
            // a constant local (refused until 2026-11-28; bound to a local
            // first, it was taken)
            if self.declined_items.is_some() {
                let array = self.const_local_of(literal);
                let len = self.const_local_of(&parse_quote!(#array.len()));
                return Some((array, None, len, false, true));
            }
        }
        // `.zip(&self.ys)`: a field by reference is the field (refused as
        // a reference until 2026-11-28)
        let expr = match strip_parens(expr) {
            Expr::Reference(r)
                if r.mutability.is_none() && matches!(strip_parens(&r.expr), Expr::Field(_)) =>
            {
                &*r.expr
            }
            _ => expr,
        };
        let errors = self.cx.error_count();
        // `g(x).iter()`: a helper's vector, iterated where it is called
        // (refused until 2026-11-28), as `let r = g(x);` then `r.iter()`
        let called = match strip_parens(expr) {
            Expr::Call(_) | Expr::MethodCall(_) => self.vector_call(expr),
            _ => None,
        };
        let bound = match called {
            Some(value) => Bound::Value(value),
            None => self.lower_bound(expr),
        };
        if self.cx.error_count() > errors {
            return None;
        }
        let constant = matches!(bound, Bound::Value(Value::Const(_)));
        let (array, start) = match bound {
            Bound::View(view) => {
                let array = self.alias(view.array);
                let start = self.const_local(view.start.tokens, view.start.uses);
                let len = self.const_local(view.len.tokens, view.len.uses);
                if mutable {
                    self.check_mutable(view.array, expr)?;
                }
                let data = !self.is_active_array(view.array);
                return Some((array, Some(start), len, data, false));
            }
            Bound::Value(Value::Array(id)) => {
                if mutable {
                    self.check_mutable(id, expr)?;
                }
                (self.alias(id), None)
            }
            Bound::Value(Value::Const(c)) if !mutable => {
                let whole = c.uses.len() == 1 && self.vars[c.uses[0]].ident == c.tokens.to_string();
                if whole {
                    (self.alias(c.uses[0]), None)
                } else {
                    let tokens = c.tokens;
                    (self.const_local(quote!(&(#tokens)), c.uses), None)
                }
            }
            _ => {
                self.cx.error_spanned_by(
                    expr,
                    "`#[differentiable]` iterates over slices, arrays, `Vec`s, local buffers, \
                     subslices (`&x[a..b]`) and integer ranges; for anything else write \
                     `for i in 0..n { .. }`",
                );
                return None;
            }
        };
        let len = self.const_local_of(&parse_quote!(#array.len()));
        Some((array, start, len, false, constant))
    }

    fn check_mutable(&mut self, array: usize, expr: &Expr) -> Option<()> {
        if self.vars[array].origin == crate::ir::Origin::Local
            && self.vars[array].kind == Kind::FloatArray
        {
            return Some(());
        }
        self.cx.error_spanned_by(
            expr,
            "`iter_mut` is supported on local float buffers (`let mut b = vec![0.0; n];`); \
             parameters are read-only",
        );
        None
    }

    /// Reads the chain `expr` into a [`Seq`], or reports what is not
    /// supported (at the method that is not).
    fn seq(&mut self, expr: &Expr) -> Option<Seq> {
        let expr = strip_parens(expr);
        match expr {
            Expr::Range(range) => return self.range_seq(range),
            Expr::MethodCall(_) => {}
            _ => return self.slice_seq(expr, false),
        }
        let Expr::MethodCall(m) = expr else {
            return None;
        };
        let name = m.method.to_string();
        let arg = |i: usize| m.args.iter().nth(i);
        match (name.as_str(), m.args.len()) {
            ("iter" | "into_iter", 0) => match strip_parens(&m.receiver) {
                inner if is_chain(inner) => self.seq(inner),
                inner => self.slice_seq(inner, false),
            },
            ("iter_mut", 0) => self.slice_seq(&m.receiver, true),
            ("copied" | "cloned", 0) => self.seq(&m.receiver),
            ("chunks" | "chunks_exact" | "windows", 1) => {
                let (array, start, len) = self.collection(&m.receiver, false)?;
                let size = self.const_local_of(&m.args[0]);
                let count: Expr = match name.as_str() {
                    "windows" => parse_quote!((#len as usize + 1).saturating_sub(#size)),
                    "chunks_exact" => parse_quote!(#len / #size),
                    _ => parse_quote!((#len + #size - 1) / #size),
                };
                let count = self.const_local_of(&count);
                let first: Expr = match &start {
                    Some(s) => parse_quote!(#s),
                    None => parse_quote!(0),
                };
                let kind = name.clone();
                let elem: ElemFn = Rc::new(move |k: &Expr| -> Expr {
                    match kind.as_str() {
                        "windows" => parse_quote!(&#array[#first + (#k)..#first + (#k) + #size]),
                        "chunks_exact" => {
                            parse_quote!(&#array[#first + (#k) * #size..#first + (#k) * #size + #size])
                        }
                        _ => parse_quote!(&#array[#first + (#k) * #size
                            ..::core::cmp::min(#first + (#k) * #size + #size, #first + #len)]),
                    }
                });
                Some(Seq::new(Some(count), elem))
            }
            ("enumerate", 0) => {
                let mut inner = self.seq(&m.receiver)?;
                let elem = inner.elem.clone();
                if !inner.filtered() {
                    return Some(Seq {
                        elem: Rc::new(move |k: &Expr| {
                            let e = elem(k);
                            parse_quote!((#k, #e))
                        }),
                        ..inner
                    });
                }
                // after a `filter`, the position among the elements that
                // passed it (the loop index counts them all)
                let index = inner.count(self.fresh_ident("i"), self.fresh_ident("n"));
                Some(Seq {
                    elem: Rc::new(move |k: &Expr| {
                        let e = elem(k);
                        parse_quote!((#index, #e))
                    }),
                    ..inner
                })
            }
            ("zip", 1) => {
                let left = self.seq(&m.receiver)?;
                let right = self.seq(arg(0)?)?;
                if left.filtered() || right.filtered() {
                    self.refuse_after_filter(m);
                    return None;
                }
                let len = match (&left.len, &right.len) {
                    (Some(a), Some(b)) => {
                        Some(self.const_local_of(&parse_quote!(::core::cmp::min(#a, #b))))
                    }
                    (Some(a), None) => Some(a.clone()),
                    (None, b) => b.clone(),
                };
                let (l, r) = (left.elem, right.elem);
                let elem: ElemFn = Rc::new(move |k: &Expr| {
                    let (a, b) = (l(k), r(k));
                    parse_quote!((#a, #b))
                });
                Some(Seq {
                    mapped: left.mapped || right.mapped,
                    ..Seq::new(len, elem)
                })
            }
            // one chain after the other: element `k` is the first's while
            // `k` is below its length, else the second's at `k - n`
            ("chain", 1) => {
                let first = self.seq(&m.receiver)?;
                let second = self.seq(arg(0)?)?;
                if first.filtered() || second.filtered() {
                    self.refuse_after_filter(m);
                    return None;
                }
                let (Some(n), Some(n2)) = (first.len.clone(), second.len.clone()) else {
                    self.cx.error_spanned_by(
                        &m.method,
                        "`.chain(..)` needs two bounded iterators here; bound them with \
                         `.take(n)` or a zip with a slice",
                    );
                    return None;
                };
                let len = self.const_local_of(&parse_quote!(#n + #n2));
                let (a, b) = (first.elem, second.elem);
                let elem: ElemFn = Rc::new(move |k: &Expr| {
                    let (x, y) = (a(k), b(&parse_quote!((#k) - #n)));
                    parse_quote!(if (#k) < #n { #x } else { #y })
                });
                Some(Seq {
                    mapped: first.mapped || second.mapped,
                    ..Seq::new(Some(len), elem)
                })
            }
            ("map", 1) => {
                let inner = self.seq(&m.receiver)?;
                let f = self.callable(&m.args[0], 1)?;
                let elem = inner.elem.clone();
                Some(Seq {
                    elem: Rc::new(move |k: &Expr| f(&[elem(k)])),
                    mapped: true,
                    ..inner
                })
            }
            ("filter", 1) => {
                let mut inner = self.seq(&m.receiver)?;
                let f = self.callable(&m.args[0], 1)?;
                inner.filter_by(self.fresh_ident("m"), f, closure_pattern(&m.args[0]));
                Some(inner)
            }
            // `filter_map(|v| if c { Some(e) } else { None })` (or
            // `c.then(|| e)`): a `filter` by `|v| c` and a `map` by `|v| e`,
            // both given the element by value, as `filter_map` gives it
            ("filter_map", 1) => {
                let inner = self.seq(&m.receiver)?;
                self.filter_mapped(inner, &m.args[0], "filter_map")
            }
            ("take_while", 1) => {
                let mut inner = self.seq(&m.receiver)?;
                let f = self.callable(&m.args[0], 1)?;
                let test = inner.test_of(self.fresh_ident("m"), f, closure_pattern(&m.args[0]));
                inner.steps.push(Step::Until(test));
                Some(inner)
            }
            ("skip_while", 1) => {
                let mut inner = self.seq(&m.receiver)?;
                let f = self.callable(&m.args[0], 1)?;
                let test = inner.test_of(self.fresh_ident("m"), f, closure_pattern(&m.args[0]));
                let skipping = self.fresh_ident("skipping");
                inner
                    .before
                    .push(parse_quote!(let mut #skipping: bool = true;));
                inner.steps.push(Step::Skip { skipping, test });
                Some(inner)
            }
            ("rev" | "skip" | "take" | "step_by", _) => {
                let inner = self.seq(&m.receiver)?;
                if inner.filtered() {
                    self.refuse_after_filter(m);
                    return None;
                }
                let (elem, mapped) = (inner.elem.clone(), inner.mapped);
                let amount = arg(0).map(|a| self.const_local_of(a));
                match (name.as_str(), inner.len, amount) {
                    ("rev", Some(len), None) => {
                        let n = len.clone();
                        let elem: ElemFn =
                            Rc::new(move |k: &Expr| elem(&parse_quote!(#n - 1 - (#k))));
                        Some(Seq {
                            mapped,
                            ..Seq::new(Some(len), elem)
                        })
                    }
                    ("skip", len, Some(n)) => {
                        let len = len.map(|len| {
                            self.const_local_of(&parse_quote!((#len as usize).saturating_sub(#n)))
                        });
                        let elem: ElemFn = Rc::new(move |k: &Expr| elem(&parse_quote!((#k) + #n)));
                        Some(Seq {
                            mapped,
                            ..Seq::new(len, elem)
                        })
                    }
                    ("take", len, Some(n)) => {
                        let len = match len {
                            Some(len) => {
                                self.const_local_of(&parse_quote!(::core::cmp::min(#len, #n)))
                            }
                            None => n,
                        };
                        Some(Seq {
                            mapped,
                            ..Seq::new(Some(len), elem)
                        })
                    }
                    ("step_by", Some(len), Some(s)) => {
                        let len = self.const_local_of(&parse_quote!((#len + #s - 1) / #s));
                        let elem: ElemFn = Rc::new(move |k: &Expr| elem(&parse_quote!((#k) * #s)));
                        Some(Seq {
                            mapped,
                            ..Seq::new(Some(len), elem)
                        })
                    }
                    _ => {
                        self.cx.error_spanned_by(
                            &m.method,
                            format!(
                                "`.{name}(..)` needs a bounded iterator here; bound it with \
                                 `.take(n)` or a zip with a slice"
                            ),
                        );
                        None
                    }
                }
            }
            _ => {
                let message = if name == "flat_map" {
                    "`.flat_map(..)` is supported by `#[differentiable]` with a closure \
                     returning a chain, followed by `map`, `filter` or `filter_map` and consumed \
                     by `sum`, `product`, `fold`, `count`, `any`, `all` or a `for` loop \
                     without a label; else write the nested loops: `for p in a { for e in b { \
                     .. } }`"
                        .to_string()
                } else if REFUSED_ADAPTORS.contains(&name.as_str()) {
                    format!(
                        "`.{name}(..)` is not supported by `#[differentiable]`; write the \
                         loop it stands for: `for i in 0..xs.len() {{ let v = xs[i]; if .. {{ .. }} }}`"
                    )
                } else {
                    format!(
                        "`.{name}(..)` is not an iterator `#[differentiable]` can see into \
                         (it lowers slices, arrays, `Vec`s and ranges with `iter`, `zip`, `map`, \
                         `filter`, `enumerate`, `rev`, `skip`, `take`, `step_by`, `chunks`, \
                         `windows`); write `for i in 0..n {{ .. }}`"
                    )
                };
                self.cx.error_spanned_by(&m.method, message);
                None
            }
        }
    }

    fn refuse_after_filter(&mut self, m: &syn::ExprMethodCall) {
        self.cx.error_spanned_by(
            &m.method,
            format!(
                "`.{}(..)` after `.filter(..)` is not supported by `#[differentiable]`; \
                 write the loop with an `if` and a counter",
                m.method
            ),
        );
    }

    /// A slice, array, `Vec` or subslice iterated over.
    fn slice_seq(&mut self, expr: &Expr, mutable: bool) -> Option<Seq> {
        let (array, start, len, data, constant) = self.collection_of(expr, mutable)?;
        let count = len.clone();
        // An element of a constant of a type the macro cannot see: by value
        // if it is `Copy` (as the macro reads elements), else by reference,
        // as iterating the slice gives it (`&[Vec<f64>]`'s rows, `&[Obs]`):
        // moving it out was E0508 until 2026-11-28 (`__private::Elem`).
        if constant && !mutable {
            let elem: ElemFn = Rc::new(move |k: &Expr| {
                let place: Expr = match &start {
                    Some(s) => parse_quote!(#array[#s + (#k)]),
                    None => parse_quote!(#array[#k]),
                };
                parse_quote!(__autograd_element!(#place))
            });
            return Some(Seq::new(Some(len), elem));
        }
        let elem: ElemFn = Rc::new(move |k: &Expr| match &start {
            // a subslice of data (`x.chunks(p)`'s row): read through the
            // subslice, as `row[k]` is (see `lower_index`)
            Some(s) if data && !mutable => parse_quote!(#array[#s..#s + #count][#k]),
            Some(s) if mutable => parse_quote!(&mut #array[#s + (#k)]),
            Some(s) => parse_quote!(#array[#s + (#k)]),
            None if mutable => parse_quote!(&mut #array[#k]),
            None => parse_quote!(#array[#k]),
        });
        Some(Seq::new(Some(len), elem))
    }

    /// `a..b`, `a..=b`, `a..`: element `k` is `a + k` in the range's type.
    fn range_seq(&mut self, range: &syn::ExprRange) -> Option<Seq> {
        let Some(start) = &range.start else {
            self.cx
                .error_spanned_by(range, "a range without a start is not an iterator");
            return None;
        };
        let s = self.const_local_of(start);
        let len = match &range.end {
            Some(end) => {
                let limits = &range.limits;
                Some(self.const_local_of(&parse_quote!(
                    ::core::iter::Iterator::size_hint(&(#s #limits #end)).0
                )))
            }
            None => None,
        };
        let elem: ElemFn =
            Rc::new(move |k: &Expr| parse_quote!(::autograd::__private::nth(#s.., #k)));
        Some(Seq::new(len, elem))
    }

    /// The function an adaptor is given, as syntax applying it to
    /// arguments: a closure's body in a block binding its parameters, or a
    /// call of a path (`f64::sin`, a function, a closure local).
    fn callable(&mut self, f: &Expr, arity: usize) -> Option<ApplyFn> {
        match strip_parens(f) {
            Expr::Closure(c) => {
                if c.inputs.len() != arity {
                    self.cx.error_spanned_by(
                        &c.inputs,
                        format!("this closure should take {arity} argument(s)"),
                    );
                    return None;
                }
                if !self.closure_is_inlinable(c) {
                    return None;
                }
                let c = c.clone();
                // Arguments read the bindings of where the call is: one
                // that names a parameter bound before it (`fold(.., |tmp,
                // v| ..)` over `map(|k| k + tmp[i])`) is evaluated into a
                // temporary before any parameter is bound.
                let temps: Vec<Ident> = if arity > 1 {
                    (0..arity).map(|_| self.fresh_ident("arg")).collect()
                } else {
                    Vec::new()
                };
                Some(Rc::new(move |args: &[Expr]| {
                    let mut bound: HashSet<String> = HashSet::new();
                    let mut captured = false;
                    for (p, a) in c.inputs.iter().zip(args) {
                        let mut read = HashSet::new();
                        crate::names::collect_idents(a.to_token_stream(), &mut read);
                        captured |= read.iter().any(|name| bound.contains(name));
                        bound.extend(super::syntax::pattern_names(p));
                    }
                    let body = &c.body;
                    let block: syn::Block = parse_quote!({ #body });
                    let args: Vec<Expr> = c
                        .inputs
                        .iter()
                        .zip(args)
                        .map(|(p, a)| elements_as_bound(p, &block, a.clone()))
                        .collect();
                    let args = &args[..];
                    if captured {
                        let inputs = c.inputs.iter();
                        let temps = &temps[..args.len()];
                        parse_quote!({
                            #(let #temps = #args;)*
                            #(let #inputs = #temps;)*
                            #body
                        })
                    } else {
                        let lets = c.inputs.iter().zip(args).map(|(p, a)| quote!(let #p = #a;));
                        parse_quote!({ #(#lets)* #body })
                    }
                }))
            }
            Expr::Path(_) => {
                let f = f.clone();
                Some(Rc::new(move |args: &[Expr]| parse_quote!(#f(#(#args),*))))
            }
            other => {
                self.cx.error_spanned_by(
                    other,
                    "pass a closure (`|v| ..`) or the name of a function here",
                );
                None
            }
        }
    }

    /// The statements of an iteration before its element ([`Step`]): the
    /// tests that skip it, `let g = keep(k); if !g { continue; }`, and the
    /// values and counts they share with what follows.
    fn step_stmts(&mut self, seq: &Seq, k: &Expr) -> Vec<syn::Stmt> {
        let mut stmts = Vec::new();
        for step in &seq.steps {
            match step {
                Step::Let(name, value) => {
                    let value = value(k);
                    stmts.push(parse_quote!(let #name = #value;));
                }
                // (the test in a `let` of its own: lowering binds the
                // closure's pattern there)
                Step::Guard(keep) | Step::Until(keep) => {
                    let g = self.fresh_ident("g");
                    let test = keep(k);
                    stmts.push(parse_quote!(let #g: bool = #test;));
                    stmts.push(match step {
                        Step::Guard(_) => parse_quote!(if !#g { continue; }),
                        _ => parse_quote!(if !#g { break; }),
                    });
                }
                Step::Count { index, counter } => {
                    stmts.push(parse_quote!(let #index: usize = #counter;));
                    stmts.push(parse_quote!(#counter += 1;));
                }
                Step::Skip { skipping, test } => {
                    let g = self.fresh_ident("g");
                    let test = test(k);
                    stmts.push(parse_quote!(if #skipping {
                        let #g: bool = #test;
                        if #g {
                            continue;
                        }
                        #skipping = false;
                    }));
                }
            }
        }
        stmts
    }

    /// `for pat in chain { body }` over a chain the plain `for` does not take.
    pub(super) fn lower_chain_for(&mut self, f: &syn::ExprForLoop) {
        let errors = self.cx.error_count();
        let Some(seq) = self.seq(&f.expr) else {
            if self.cx.error_count() == errors {
                self.cx
                    .error_spanned_by(&f.expr, "this iterator is not supported");
            }
            return;
        };
        let Some(range) = seq.range() else {
            self.unbounded(&f.expr);
            return;
        };
        let k = self.fresh_ident("k");
        let kx: Expr = parse_quote!(#k);
        let mut stmts = self.step_stmts(&seq, &kx);
        let (pat, elem) = (&f.pat, (seq.elem)(&kx));
        let elem = elements_as_bound(pat, &f.body, elem);
        stmts.push(parse_quote!(let #pat = #elem;));
        stmts.extend(f.body.stmts.iter().cloned());
        let label = &f.label;
        let desugared: syn::ExprForLoop = parse_quote!(#label for #k in #range { #(#stmts)* });
        if seq.before.is_empty() {
            self.lower_for(&desugared);
        } else {
            // the counters first, in the statements the loop is scanned with
            let mut stmts = seq.counter_lets();
            stmts.push(syn::Stmt::Expr(Expr::ForLoop(desugared), None));
            self.lower_stmts(&stmts, None, &[]);
        }
    }

    fn unbounded(&mut self, expr: &Expr) {
        self.cx.error_spanned_by(
            expr,
            "this iterator has no end (`a..`): bound it with `.take(n)` or zip it with a slice",
        );
    }

    /// `let name: Vec<f64> = chain.collect();` (or `collect::<Vec<f64>>()`,
    /// or an element the macro can tell is a float): `let mut name =
    /// vec![0.0; len];` and the loop `for k in 0..len { name[k] = elem; }`,
    /// a local float array like one the user fills. False (and nothing
    /// lowered) when `init` is no `collect()` of a chain.
    pub(super) fn lower_collect(
        &mut self,
        name: &Ident,
        ty: Option<&syn::Type>,
        init: &Expr,
    ) -> bool {
        let Expr::MethodCall(call) = strip_parens(init) else {
            return false;
        };
        if call.method != "collect" || !call.args.is_empty() || !is_chain(&call.receiver) {
            return false;
        }
        let Some(seq) = self.seq(&call.receiver) else {
            return true;
        };
        let Some(len) = seq.len.clone() else {
            self.unbounded(&call.receiver);
            return true;
        };
        if seq.filtered() {
            self.cx.error_spanned_by(
                call,
                "`#[differentiable]` collects into a vector only an iterator whose length \
                 is known before it runs (no `filter`): count the elements first, then fill \
                 `let mut v = vec![0.0; count];` in a loop",
            );
            return true;
        }
        let k = self.fresh_ident("k");
        let kx: Expr = parse_quote!(#k);
        let elem = (seq.elem)(&kx);
        let typed = turbofish_type(call).or_else(|| ty.cloned());
        let float = match typed.as_ref().and_then(crate::signature::vec_element) {
            Some(elem) if !matches!(elem, syn::Type::Infer(_)) => crate::signature::is_f64(elem),
            _ => self.guess_float(&elem, &mut Vec::new()),
        };
        if !float {
            self.cx.error_spanned_by(
                call,
                "`#[differentiable]` collects an iterator only into a vector of `f64` (`let v: \
                 Vec<f64> = ..collect();`); fill a vector of other values in a loop (`let mut \
                 idx = Vec::new();` then `idx.push(i);`) before the code that reads it",
            );
            return true;
        }
        let stmts: [syn::Stmt; 2] = [
            parse_quote!(let mut #name = vec![0.0_f64; #len];),
            parse_quote!(for #k in 0..#len { #name[#k] = #elem; }),
        ];
        self.lower_stmts(&stmts, None, &[]);
        true
    }

    /// `let mut v = Vec::new();` (`Vec::with_capacity(n)`, `vec![]`, typed
    /// `Vec<f64>` or not) and right after it a loop that pushes a float
    /// once an iteration, last, `for p in xs { let t = ..; v.push(e); }`
    /// (only `let`s before the push, no jump, `v` read nowhere else in
    /// it): the vector the chain collects, `let mut v: Vec<f64> =
    /// xs.iter().map(|p| { let t = ..; e }).collect();`, a local buffer of
    /// the loop's length (a growing vector of floats has no adjoint).
    /// `None` for anything else, and for a vector of values the macro
    /// cannot tell are floats (`idx.push(i)` stays a change in place).
    pub(super) fn pushes_as_collect(
        &self,
        decl: &syn::Stmt,
        next: &syn::Stmt,
    ) -> Option<syn::Stmt> {
        let syn::Stmt::Local(local) = decl else {
            return None;
        };
        let (pat, ty) = match &local.pat {
            syn::Pat::Type(t) => (&*t.pat, Some(&*t.ty)),
            pat => (pat, None),
        };
        let syn::Pat::Ident(binding) = pat else {
            return None;
        };
        if binding.mutability.is_none() || binding.by_ref.is_some() || binding.subpat.is_some() {
            return None;
        }
        let init = local.init.as_ref().filter(|i| i.diverge.is_none())?;
        if !empty_vec(&init.expr) {
            return None;
        }
        let typed_float = match ty {
            Some(ty) => crate::signature::is_f64(crate::signature::vec_element(ty)?),
            None => false,
        };
        let name = binding.ident.to_string();
        let syn::Stmt::Expr(Expr::ForLoop(f), _) = next else {
            return None;
        };
        let (last, lets) = f.body.stmts.split_last()?;
        let pushed = match last {
            syn::Stmt::Expr(Expr::MethodCall(m), _)
                if m.method == "push"
                    && m.args.len() == 1
                    && matches!(strip_parens(&m.receiver), Expr::Path(p) if p.path.is_ident(&name)) =>
            {
                &m.args[0]
            }
            _ => return None,
        };
        let only_lets = lets
            .iter()
            .all(|s| matches!(s, syn::Stmt::Local(l) if l.init.as_ref().map_or(true, |i| i.diverge.is_none())));
        let body: syn::Block = parse_quote!({ #(#lets)* #pushed });
        let block = Expr::Block(syn::ExprBlock {
            attrs: Vec::new(),
            label: None,
            block: body.clone(),
        });
        let mentioned = super::syntax::mentions_ident(f.expr.to_token_stream(), &name)
            || super::syntax::mentions_ident(block.to_token_stream(), &name);
        if f.label.is_some()
            || !only_lets
            || mentioned
            || super::syntax::first_jump(&block).is_some()
        {
            return None;
        }
        let chain: Expr = match strip_parens(&f.expr) {
            range @ Expr::Range(_) => parse_quote!((#range)),
            chain if is_chain(chain) => chain.clone(),
            path @ Expr::Path(_) => parse_quote!(#path.iter()),
            Expr::Reference(r) if r.mutability.is_none() => {
                let inner = &r.expr;
                parse_quote!(#inner.iter())
            }
            _ => return None,
        };
        // (the loop's names: floats where they are the elements of a float
        // array, `for v in xs`, `for (i, v) in xs.iter().enumerate()`)
        let float_source = match strip_parens(&chain) {
            Expr::MethodCall(m) => {
                let mut base = &*m.receiver;
                while let Expr::MethodCall(inner) = strip_parens(base) {
                    base = &inner.receiver;
                }
                self.guess_float(base, &mut Vec::new())
            }
            _ => false,
        };
        let enumerated = chain.to_token_stream().to_string().contains("enumerate");
        let mut env: Vec<(String, bool)> = Vec::new();
        match &*f.pat {
            syn::Pat::Tuple(t) if enumerated && t.elems.len() == 2 => {
                for (k, part) in t.elems.iter().enumerate() {
                    for ident in super::pattern::pattern_idents(part) {
                        env.push((ident.to_string(), k == 1 && float_source));
                    }
                }
            }
            other => {
                for ident in super::pattern::pattern_idents(other) {
                    env.push((ident.to_string(), float_source && !enumerated));
                }
            }
        }
        if !typed_float && !self.guess_float(&block, &mut env) {
            return None;
        }
        let (mutability, ident, pat, attrs) =
            (&binding.mutability, &binding.ident, &f.pat, &local.attrs);
        Some(parse_quote!(
            #(#attrs)* let #mutability #ident: ::std::vec::Vec<f64> = #chain.map(|#pat| #body).collect();
        ))
    }

    /// `chain.sum()`, `.product()`, `.fold(init, f)`, `.count()`.
    fn consume(&mut self, call: &syn::ExprMethodCall) -> Value {
        let name = call.method.to_string();
        let arity = match name.as_str() {
            "fold" => 2,
            "any" | "all" | "position" => 1,
            _ => 0,
        };
        if call.args.len() != arity {
            self.cx
                .error_spanned_by(call, format!("`.{name}(..)` takes {arity} argument(s)"));
            return Value::Const(placeholder());
        }
        if let Some((outer, pat, inner)) = flat_chain(&call.receiver) {
            return self.consume_flat(call, &outer, &pat, &inner);
        }
        let Some(mut seq) = self.seq(&call.receiver) else {
            return Value::Const(placeholder());
        };
        let Some(range) = seq.range() else {
            self.unbounded(&call.receiver);
            return Value::Const(placeholder());
        };
        if let (Some(len), "count", false) = (&seq.len, name.as_str(), seq.filtered()) {
            return self.lower_expr(&parse_quote!(#len));
        }
        let k = self.fresh_ident("k");
        let acc = self.fresh_ident("acc");
        let kx: Expr = parse_quote!(#k);
        let elem = (seq.elem)(&kx);
        let (init, step): (syn::Stmt, syn::Stmt) = match name.as_str() {
            "fold" => {
                // (a tuple accumulator is taken in a `let`,
                // `syntax::tuple_folds`)
                if let Expr::Closure(c) = strip_parens(&call.args[1]) {
                    if !self.closure_is_inlinable(c) {
                        return Value::Const(placeholder());
                    }
                }
                if let Expr::Tuple(start) = strip_parens(&call.args[0]) {
                    self.cx.error_spanned_by(
                        start,
                        "a `fold` with a tuple accumulator is supported by `#[differentiable]` \
                         as a `let` of its own, `let (lo, hi) = xs.iter().fold((a, b), |(lo, \
                         hi), &v| ..);`, with a closure written there",
                    );
                    return Value::Const(placeholder());
                }
                let Some(f) = self.callable(&call.args[1], 2) else {
                    return Value::Const(placeholder());
                };
                let init = &call.args[0];
                let accx: Expr = parse_quote!(#acc);
                let next = f(&[accx, elem]);
                (
                    parse_quote!(let mut #acc = #init;),
                    parse_quote!(#acc = #next;),
                )
            }
            "count" => (
                parse_quote!(let mut #acc: usize = 0;),
                parse_quote!(#acc += 1;),
            ),
            // the index of the first element that passes, as an
            // `Option<usize>` (integer code reads it: `.unwrap_or(0)`); the
            // loop index is the position in the chain unless a `filter`
            // skips elements
            "position" => {
                let Some(p) = self.callable(&call.args[0], 1) else {
                    return Value::Const(placeholder());
                };
                // the position among the elements a `filter` passed: a
                // count of them, as `enumerate` after it (`Step::Count`)
                let position: Expr = match seq.filtered() {
                    true => {
                        let index = seq.count(self.fresh_ident("i"), self.fresh_ident("n"));
                        parse_quote!(#index)
                    }
                    false => parse_quote!(#k),
                };
                let test = p(&[elem]);
                let g = self.fresh_ident("g");
                (
                    parse_quote!(let mut #acc: ::std::option::Option<usize> = None;),
                    parse_quote!({
                        let #g: bool = #test;
                        if #g {
                            #acc = Some(#position);
                            break;
                        }
                    }),
                )
            }
            // stopping at the first element that decides, as `Iterator`'s
            // `any` and `all` do (a later element's predicate never runs)
            "any" | "all" => {
                let Some(p) = self.callable(&call.args[0], 1) else {
                    return Value::Const(placeholder());
                };
                let test = p(&[elem]);
                let any = name == "any";
                deciding_test(&acc, &self.fresh_ident("g"), &test, any)
            }
            _ => {
                let key = call.to_token_stream().to_string();
                let ty = turbofish_type(call).or_else(|| self.consumer_types.get(&key).cloned());
                let float = match &ty {
                    Some(ty) => crate::signature::is_f64(ty),
                    None => self.guess_float(&elem, &mut Vec::new()),
                };
                let product = name == "product";
                // `f64`'s `Sum` starts from -0.0 (so an empty sum is -0.0).
                let zero: Expr = match (float, product) {
                    (true, false) => parse_quote!(-0.0),
                    (true, true) => parse_quote!(1.0),
                    (false, false) => parse_quote!(0),
                    (false, true) => parse_quote!(1),
                };
                let init: syn::Stmt = match (&ty, float) {
                    (Some(ty), false) => parse_quote!(let mut #acc: #ty = #zero;),
                    _ => parse_quote!(let mut #acc = #zero;),
                };
                let step: syn::Stmt = if product {
                    parse_quote!(#acc *= #elem;)
                } else {
                    parse_quote!(#acc += #elem;)
                };
                (init, step)
            }
        };
        let mut body = self.step_stmts(&seq, &kx);
        body.push(step);
        let lp: syn::Stmt = parse_quote!(for #k in #range { #(#body)* });
        let mut stmts = vec![init];
        stmts.extend(seq.counter_lets());
        stmts.push(lp);
        self.lower_stmts(&stmts, None, &[]);
        self.lower_expr(&parse_quote!(#acc))
    }

    /// `a.flat_map(|p| b)..` consumed (`flat_chain`): the nested loop
    /// `for p in a { for e in b.. { acc += e; } }` (a product, a `fold`, a
    /// `count`; `any`/`all` stopping both loops at the element that
    /// decides), the elements added in the order `Iterator` adds them.
    fn consume_flat(
        &mut self,
        call: &syn::ExprMethodCall,
        outer: &Expr,
        pat: &syn::Pat,
        inner: &Expr,
    ) -> Value {
        let name = call.method.to_string();
        let (acc, e) = (self.fresh_ident("acc"), self.fresh_ident("e"));
        let ex: Expr = parse_quote!(#e);
        let accx: Expr = parse_quote!(#acc);
        let failed = Value::Const(placeholder());
        let (init, step, stop): (syn::Stmt, syn::Stmt, Option<Expr>) = match name.as_str() {
            "sum" | "product" => {
                let key = call.to_token_stream().to_string();
                let ty = turbofish_type(call).or_else(|| self.consumer_types.get(&key).cloned());
                let Some(ty) = ty else {
                    self.cx.error_spanned_by(
                        &call.method,
                        format!(
                            "`#[differentiable]` needs the type of a `.{name}()` of a \
                             `flat_map` written: `.{name}::<f64>()`, or `let s: f64 = ..`"
                        ),
                    );
                    return failed;
                };
                let float = crate::signature::is_f64(&ty);
                let (zero, op): (Expr, syn::Stmt) = match (float, name == "product") {
                    (true, false) => (parse_quote!(-0.0), parse_quote!(#acc += #e;)),
                    (true, true) => (parse_quote!(1.0), parse_quote!(#acc *= #e;)),
                    (false, false) => (parse_quote!(0), parse_quote!(#acc += #e;)),
                    (false, true) => (parse_quote!(1), parse_quote!(#acc *= #e;)),
                };
                (parse_quote!(let mut #acc: #ty = #zero;), op, None)
            }
            "count" => (
                parse_quote!(let mut #acc: usize = 0;),
                parse_quote!(#acc += 1;),
                None,
            ),
            "fold" => {
                if let Expr::Closure(c) = strip_parens(&call.args[1]) {
                    if !self.closure_is_inlinable(c) {
                        return failed;
                    }
                }
                let Some(f) = self.callable(&call.args[1], 2) else {
                    return failed;
                };
                let init = &call.args[0];
                let next = f(&[accx.clone(), ex.clone()]);
                (
                    parse_quote!(let mut #acc = #init;),
                    parse_quote!(#acc = #next;),
                    None,
                )
            }
            "any" | "all" => {
                let Some(p) = self.callable(&call.args[0], 1) else {
                    return failed;
                };
                let test = p(std::slice::from_ref(&ex));
                let any = name == "any";
                let (init, step) = deciding_test(&acc, &self.fresh_ident("g"), &test, any);
                let stop: Expr = match any {
                    true => parse_quote!(#acc),
                    false => parse_quote!(!#acc),
                };
                (init, step, Some(stop))
            }
            _ => {
                self.cx.error_spanned_by(
                    &call.method,
                    format!(
                        "`.{name}(..)` of a `flat_map` is not supported by `#[differentiable]`, \
                         which lowers its `sum`, `product`, `fold`, `count`, `any`, `all` and \
                         `for` loops over it; write the nested loops"
                    ),
                );
                return failed;
            }
        };
        let stop: Option<syn::Stmt> = stop.map(|stop| parse_quote!(if #stop { break; }));
        let stmts: Vec<syn::Stmt> = vec![
            init,
            parse_quote!(for #pat in #outer {
                for #e in #inner {
                    #step
                }
                #stop
            }),
        ];
        self.lower_stmts(&stmts, None, &[]);
        self.lower_expr(&accx)
    }

    /// Is `expr` (syntax this module built, over the user's) a float? Decides
    /// the zero of a `sum()` written without a type.
    fn guess_float(&self, expr: &Expr, env: &mut Vec<(String, bool)>) -> bool {
        let name_is_float = |this: &Self, env: &[(String, bool)], name: &str| {
            if let Some((_, f)) = env.iter().rev().find(|(n, _)| n == name) {
                return *f;
            }
            match this.lookup(name) {
                Some(id) => match this.compound.get(&id) {
                    Some(Bound::View(_)) => true,
                    Some(_) => false,
                    None => matches!(this.vars[id].kind, Kind::Float | Kind::FloatArray),
                },
                None => false,
            }
        };
        match strip_parens(expr) {
            Expr::Lit(l) => match &l.lit {
                syn::Lit::Float(_) => true,
                syn::Lit::Int(i) => i.suffix().starts_with('f'),
                _ => false,
            },
            Expr::Path(p) => match p.path.get_ident() {
                Some(i) => name_is_float(self, env, &i.to_string()),
                None => {
                    let text = p.path.to_token_stream().to_string();
                    text.contains("f64")
                }
            },
            Expr::Binary(b) => match b.op {
                syn::BinOp::Add(_)
                | syn::BinOp::Sub(_)
                | syn::BinOp::Mul(_)
                | syn::BinOp::Div(_)
                | syn::BinOp::Rem(_) => {
                    self.guess_float(&b.left, env) || self.guess_float(&b.right, env)
                }
                _ => false,
            },
            Expr::Unary(u) => match u.op {
                syn::UnOp::Not(_) => false,
                _ => self.guess_float(&u.expr, env),
            },
            Expr::Cast(c) => crate::signature::is_f64(&c.ty),
            Expr::MethodCall(m) => {
                let name = m.method.to_string();
                if crate::prim::method(&name).is_some() {
                    return true;
                }
                match name.as_str() {
                    // `fold(f64::INFINITY, f64::min)`: its start's type
                    "fold" if m.args.first().is_some_and(|a| self.guess_float(a, env)) => true,
                    // `x.get(i).copied().unwrap_or(0.5)`: an element of the
                    // slice, or the default
                    "get" | "first" | "last" | "copied" | "cloned" | "unwrap" | "expect"
                    | "unwrap_or_default" => self.guess_float(&m.receiver, env),
                    "unwrap_or" => {
                        self.guess_float(&m.receiver, env)
                            || m.args.iter().any(|a| self.guess_float(a, env))
                    }
                    "sum" | "product" | "fold" => m
                        .turbofish
                        .as_ref()
                        .is_some_and(|t| t.to_token_stream().to_string().contains("f64")),
                    "len" | "count" => false,
                    _ => false,
                }
            }
            Expr::Call(c) => {
                if let Expr::Path(p) = strip_parens(&c.func) {
                    let text = p.path.to_token_stream().to_string();
                    if text.starts_with("f64") {
                        return true;
                    }
                    if text.contains("__private") {
                        return false;
                    }
                }
                c.args.iter().any(|a| self.guess_float(a, env))
            }
            Expr::Index(i) => self.guess_float(&i.expr, env),
            Expr::Reference(r) => self.guess_float(&r.expr, env),
            Expr::Field(f) => {
                if let Some(Bound::Tuple(parts)) = self.compound_of(&f.base) {
                    if let syn::Member::Unnamed(i) = &f.member {
                        return matches!(
                            parts.get(i.index as usize),
                            Some(Bound::Value(Value::Var(_)))
                        ) || matches!(
                            parts.get(i.index as usize),
                            Some(Bound::Value(Value::Const(c))) if c.is_float
                        );
                    }
                }
                false
            }
            Expr::Block(b) => self.guess_block(&b.block, env),
            // (every branch or arm has the type of the whole: one that is a
            // float says so, `if c { SCALE } else { e }` as `if c { e } ..`)
            Expr::If(i) => {
                self.guess_block(&i.then_branch, env)
                    || i.else_branch
                        .as_ref()
                        .is_some_and(|(_, e)| self.guess_float(e, env))
            }
            Expr::Match(m) => m.arms.iter().any(|arm| self.guess_float(&arm.body, env)),
            _ => false,
        }
    }

    /// [`Lowerer::guess_float`] of a block's value, its `let`s in scope.
    fn guess_block(&self, block: &syn::Block, env: &mut Vec<(String, bool)>) -> bool {
        let depth = env.len();
        let mut result = false;
        for stmt in &block.stmts {
            match stmt {
                syn::Stmt::Local(l) => {
                    let init = l.init.as_ref().map(|i| &*i.expr);
                    self.guess_pattern(&l.pat, init, env);
                }
                syn::Stmt::Expr(e, None) => result = self.guess_float(e, env),
                _ => {}
            }
        }
        env.truncate(depth);
        result
    }

    fn guess_pattern(&self, pat: &syn::Pat, init: Option<&Expr>, env: &mut Vec<(String, bool)>) {
        use syn::Pat;
        match pat {
            Pat::Type(t) => {
                let float = crate::signature::is_f64(&t.ty);
                for ident in super::pattern::pattern_idents(&t.pat) {
                    env.push((ident.to_string(), float));
                }
            }
            Pat::Reference(r) => self.guess_pattern(&r.pat, init, env),
            Pat::Ident(i) => {
                let float = init.is_some_and(|e| self.guess_float(e, env));
                env.push((i.ident.to_string(), float));
            }
            Pat::Tuple(t) => {
                let parts: Option<Vec<&Expr>> = match init.map(strip_parens) {
                    Some(Expr::Tuple(te)) if te.elems.len() == t.elems.len() => {
                        Some(te.elems.iter().collect())
                    }
                    _ => None,
                };
                for (i, p) in t.elems.iter().enumerate() {
                    self.guess_pattern(p, parts.as_ref().map(|v| v[i]), env);
                }
            }
            Pat::Slice(s) => {
                let float = init.is_some_and(|e| self.guess_float(e, env));
                for p in &s.elems {
                    for ident in super::pattern::pattern_idents(p) {
                        env.push((ident.to_string(), float));
                    }
                }
            }
            other => {
                for ident in super::pattern::pattern_idents(other) {
                    env.push((ident.to_string(), false));
                }
            }
        }
    }
}

/// `T` of `Vec<T>`.
/// `Vec::new()`, `Vec::with_capacity(n)`, `vec![]`.
fn empty_vec(expr: &Expr) -> bool {
    match strip_parens(expr) {
        Expr::Call(call) => {
            let Expr::Path(f) = strip_parens(&call.func) else {
                return false;
            };
            let names: Vec<String> = f
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            match names.iter().rev().take(2).collect::<Vec<_>>().as_slice() {
                [new, vec] if *vec == "Vec" && *new == "new" => call.args.is_empty(),
                [with, vec] if *vec == "Vec" && *with == "with_capacity" => call.args.len() == 1,
                _ => false,
            }
        }
        Expr::Macro(m) => m.mac.path.is_ident("vec") && m.mac.tokens.is_empty(),
        _ => false,
    }
}

/// `T` of `.method::<T>()`.
fn turbofish_type(call: &syn::ExprMethodCall) -> Option<syn::Type> {
    match call.turbofish.as_ref()?.args.first()? {
        syn::GenericArgument::Type(ty) => Some(ty.clone()),
        _ => None,
    }
}

/// One element of a slice as an `Option`: `x.get(i)` (not a range),
/// `x.first()`, `x.last()`.
enum Element<'a> {
    Get(&'a Expr, &'a Expr),
    First(&'a Expr),
    Last(&'a Expr),
}

impl<'a> Element<'a> {
    /// The slice (`x`).
    fn receiver(&self) -> &'a Expr {
        match self {
            Element::Get(x, _) | Element::First(x) | Element::Last(x) => x,
        }
    }
}

fn element_of(expr: &Expr) -> Option<Element<'_>> {
    let Expr::MethodCall(m) = strip_parens(expr) else {
        return None;
    };
    // (`chain.last()` is a reducer's, `reduce_unwrapped`)
    if is_chain(&m.receiver) {
        return None;
    }
    match (m.method.to_string().as_str(), m.args.len()) {
        ("get", 1) if !matches!(strip_parens(&m.args[0]), Expr::Range(_)) => {
            Some(Element::Get(&m.receiver, &m.args[0]))
        }
        ("first", 0) => Some(Element::First(&m.receiver)),
        ("last", 0) => Some(Element::Last(&m.receiver)),
        _ => None,
    }
}

/// `elem` with the parts that are indices (the loop's `k`, an `enumerate`
/// counter's `index`) by reference, `(&k, x[k])`, where the tuple pattern
/// `pat` (no `&`) of a `filter` or `find` closure binds them: given a
/// reference to the item, as `Iterator` gives it, such a pattern binds
/// references (`|(i, _)| *i > 0`); one under `&` (`|&(i, v)|`) binds values.
fn indices_by_reference(elem: Expr, pat: &syn::Pat, k: &Expr, indices: &[Ident]) -> Expr {
    if let syn::Pat::Ident(_) = pat {
        // a range's element itself, `(0..n).filter(|j| x[*j] > 0.0)`
        return match is_integer_element(&elem, k) {
            true => parse_quote!(&(#elem)),
            false => elem,
        };
    }
    let (Expr::Tuple(mut t), syn::Pat::Tuple(pats)) = (elem.clone(), pat) else {
        return elem;
    };
    if t.elems.len() != pats.elems.len() {
        return elem;
    }
    for (part, pat) in t.elems.iter_mut().zip(&pats.elems) {
        let is_index = is_integer_element(part, k)
            || matches!(&*part, Expr::Path(p) if indices.iter().any(|i| p.path.is_ident(i)));
        *part = match (is_index, pat) {
            // (parenthesized: `&n - 1 - (k)` would be `(&n) - 1 - (k)`)
            (true, syn::Pat::Ident(_)) => match &*part {
                Expr::Path(_) => parse_quote!(&#part),
                _ => parse_quote!(&(#part)),
            },
            (false, syn::Pat::Tuple(_)) => indices_by_reference(part.clone(), pat, k, indices),
            _ => part.clone(),
        };
    }
    Expr::Tuple(t)
}

/// `(&tuple.0, &tuple.1, ..)` for the tuple local `tuple` a `filter` or
/// `find` closure's tuple pattern `pats` (no `&`) destructures: given a
/// reference to the item, such a pattern binds references to its parts.
fn parts_by_reference(tuple: Expr, pats: &syn::PatTuple) -> Expr {
    let parts = pats.elems.iter().enumerate().map(|(j, pat)| -> Expr {
        let j = syn::Index::from(j);
        match pat {
            syn::Pat::Ident(_) => parse_quote!(&#tuple.#j),
            _ => parse_quote!(#tuple.#j),
        }
    });
    parse_quote!((#(#parts,)*))
}

/// The `let` of `any`'s (`all`'s) flag `acc` and the step that sets it
/// and stops the loop at the first element that decides, `test` in a
/// `let g` of its own, as `filter`'s guards (lowering binds the closure's
/// pattern there).
fn deciding_test(acc: &Ident, g: &Ident, test: &Expr, any: bool) -> (syn::Stmt, syn::Stmt) {
    let decided: Expr = match any {
        true => parse_quote!(#g),
        false => parse_quote!(!#g),
    };
    let start = !any;
    (
        parse_quote!(let mut #acc: bool = #start;),
        parse_quote!({
            let #g: bool = #test;
            if #decided {
                #acc = #any;
                break;
            }
        }),
    )
}

/// `value` as the block of an `if`'s branch: a block's own (so that one
/// ending in a tuple ends the branch in it, as `syntax::tuple_if_locals`
/// reads it), else `{ value }`.
fn branch(value: Expr) -> syn::Block {
    match value {
        Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => b.block,
        value => parse_quote!({ #value }),
    }
}

/// `part` is a subslice, `&x[a..b]` (a `windows`' or `chunks`' element).
fn is_subslice(part: &Expr) -> bool {
    matches!(strip_parens(part), Expr::Reference(r)
        if matches!(strip_parens(&r.expr), Expr::Index(i)
            if matches!(strip_parens(&i.index), Expr::Range(_))))
}

/// The start `a` of the range whose element `part` is,
/// `__private::nth(a.., k)`.
fn range_start(part: &Expr) -> Option<Expr> {
    let Expr::Call(c) = part else {
        return None;
    };
    let Expr::Path(f) = &*c.func else {
        return None;
    };
    if !f.path.segments.last().is_some_and(|s| s.ident == "nth") {
        return None;
    }
    match c.args.first().map(strip_parens) {
        Some(Expr::Range(r)) => r.start.as_deref().cloned(),
        _ => None,
    }
}

/// `part` of an element is an integer: a range's element,
/// `__private::nth(a.., k)`, or [`index_arithmetic`] on `k`.
fn is_integer_element(part: &Expr, k: &Expr) -> bool {
    let range_element = matches!(part, Expr::Call(c)
        if matches!(&*c.func, Expr::Path(f) if f.path.segments.last().is_some_and(|s| s.ident == "nth")));
    range_element || index_arithmetic(part, k)
}

/// `part` is the loop's `k` or integer arithmetic on it (`n - 1 - (k)` after
/// a `rev`, `(k) + s` after a `skip`, `(k) * s` after a `step_by`): names,
/// integer literals and `+ - * / %` of them, with `k` among the names. (Such
/// an expression is a `usize`: Rust does not mix it with floats.)
fn index_arithmetic(part: &Expr, k: &Expr) -> bool {
    fn arithmetic(e: &Expr, k: &Expr, seen_k: &mut bool) -> bool {
        if e == k {
            *seen_k = true;
            return true;
        }
        match e {
            Expr::Paren(p) => arithmetic(&p.expr, k, seen_k),
            Expr::Path(p) => p.qself.is_none(),
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(_),
                ..
            }) => true,
            Expr::Binary(b) => {
                matches!(
                    b.op,
                    syn::BinOp::Add(_)
                        | syn::BinOp::Sub(_)
                        | syn::BinOp::Mul(_)
                        | syn::BinOp::Div(_)
                        | syn::BinOp::Rem(_)
                ) && arithmetic(&b.left, k, seen_k)
                    && arithmetic(&b.right, k, seen_k)
            }
            _ => false,
        }
    }
    let mut seen_k = false;
    arithmetic(part, k, &mut seen_k) && seen_k
}

/// The test `|v| c` and the value `|v| e` of a `filter_map` closure `|v| {
/// ..; if c { Some(e) } else { None } }` (the `if` the other way round,
/// `c.then(|| e)`, `c.then_some(e)`), each with the statements before;
/// `None` for any other closure.
fn option_closure_parts(f: &Expr) -> Option<(Expr, Expr)> {
    let Expr::Closure(c) = strip_parens(f) else {
        return None;
    };
    if c.inputs.len() != 1 || c.asyncness.is_some() {
        return None;
    }
    let (init, tail): (Vec<syn::Stmt>, &Expr) = match strip_parens(&c.body) {
        Expr::Block(b) if b.label.is_none() => match b.block.stmts.split_last() {
            Some((syn::Stmt::Expr(tail, None), init)) => (init.to_vec(), tail),
            _ => return None,
        },
        other => (Vec::new(), other),
    };
    /// `Some(e)`, or a block ending in it (`{ let t = ..; Some(t) }`): `e`,
    /// or the block ending in `e`.
    fn some(e: &Expr) -> Option<Expr> {
        match strip_parens(e) {
            Expr::Block(b) if b.label.is_none() => {
                let (last, init) = b.block.stmts.split_last()?;
                let syn::Stmt::Expr(tail, None) = last else {
                    return None;
                };
                let value = some(tail)?;
                match init.is_empty() {
                    true => Some(value),
                    false => Some(parse_quote!({ #(#init)* #value })),
                }
            }
            Expr::Call(call) if call.args.len() == 1 => match &*call.func {
                Expr::Path(p) if p.path.is_ident("Some") => Some(call.args[0].clone()),
                _ => None,
            },
            _ => None,
        }
    }
    fn none(e: &Expr) -> bool {
        match strip_parens(e) {
            Expr::Block(b) if b.block.stmts.len() == 1 => {
                matches!(&b.block.stmts[0], syn::Stmt::Expr(e, None) if none(e))
            }
            Expr::Path(p) => p.path.is_ident("None"),
            _ => false,
        }
    }
    let (test, value): (Expr, Expr) = match strip_parens(tail) {
        Expr::If(ifx) => {
            let then = Expr::Block(syn::ExprBlock {
                attrs: Vec::new(),
                label: None,
                block: ifx.then_branch.clone(),
            });
            let (_, otherwise) = ifx.else_branch.as_ref()?;
            let cond = &*ifx.cond;
            if let (Some(e), true) = (some(&then), none(otherwise)) {
                (cond.clone(), e)
            } else if let (true, Some(e)) = (none(&then), some(otherwise)) {
                (parse_quote!(!(#cond)), e)
            } else {
                return None;
            }
        }
        Expr::MethodCall(m) if m.method == "then" && m.args.len() == 1 => {
            match strip_parens(&m.args[0]) {
                Expr::Closure(k) if k.inputs.is_empty() => {
                    ((*m.receiver).clone(), (*k.body).clone())
                }
                _ => return None,
            }
        }
        Expr::MethodCall(m) if m.method == "then_some" && m.args.len() == 1 => {
            ((*m.receiver).clone(), m.args[0].clone())
        }
        _ => return None,
    };
    let pat = &c.inputs[0];
    Some((
        parse_quote!(|#pat| { #(#init)* #test }),
        parse_quote!(|#pat| { #(#init)* #value }),
    ))
}

/// The pattern of a closure's one parameter (`None` for a function's name).
fn closure_pattern(f: &Expr) -> Option<syn::Pat> {
    match strip_parens(f) {
        Expr::Closure(c) if c.inputs.len() == 1 => Some(c.inputs[0].clone()),
        _ => None,
    }
}

/// `elem`, bound to `pat` where `body` runs, with the elements of constant
/// slices it reads by reference (`__autograd_element_ref!`) when `body`
/// dereferences a name `pat` binds: `idx.iter().map(|k| x[*k])`, `for (i,
/// k) in idx.iter().enumerate() { .. x[*k] .. }` (as iterating the slice
/// gives them; by value, what `|&k|` and `for &k` read, they did not
/// compile until 2026-11-28).
fn elements_as_bound(pat: &syn::Pat, body: &syn::Block, elem: Expr) -> Expr {
    /// `__autograd_element!(place)` → `__autograd_element_ref!(place)`,
    /// or `(&place)` for a reference to the reference.
    struct ByReference {
        twice: bool,
    }
    impl syn::visit_mut::VisitMut for ByReference {
        fn visit_expr_macro_mut(&mut self, m: &mut syn::ExprMacro) {
            if m.mac.path.is_ident("__autograd_element") {
                m.mac.path = parse_quote!(__autograd_element_ref);
                if self.twice {
                    let place = &m.mac.tokens;
                    m.mac.tokens = quote!(&#place);
                }
            }
        }
    }
    let depth = super::syntax::pattern_names(pat)
        .iter()
        .map(|name| super::deref_depth(body, &Ident::new(name, proc_macro2::Span::call_site())))
        .max()
        .unwrap_or(0);
    let mut elem = elem;
    if depth > 0 {
        // (`|k| **k > 0` of `filter`: a reference to the reference)
        let mut by_reference = ByReference { twice: depth > 1 };
        syn::visit_mut::VisitMut::visit_expr_mut(&mut by_reference, &mut elem);
    }
    elem
}
