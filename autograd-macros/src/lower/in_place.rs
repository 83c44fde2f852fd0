//! Changes in place of locals the macro does not differentiate: a list of
//! indices built with `idx.push(i);`, a table of integers filled with
//! `order[k] = j;`, a mask with `seen[i] = true;`.
//!
//! Such a local is a constant to the rest of the macro: its value is not
//! recorded, and the reverse sweep reads it where it recomputes a value
//! (an index, a replayed branch's condition) as it is *then*, at the end
//! of the function. So a change is accepted only where nothing reads the
//! local before it or in the same statement of the function body: every
//! read is in a later statement of the body, and sees the local as the
//! reverse sweep will (`InPlace::check`). The changes themselves are
//! statements the reverse sweep never runs again (`Stmt::Opaque`, not
//! replayed), and the local is emitted `let mut` (`ir::Var::in_place`).
//! Anything else is refused with a way out: build the local before the
//! differentiated code, or in a helper function.

use crate::ctxt::Ctxt;
use crate::ir::VarId;
use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use std::collections::{HashMap, HashSet};
use syn::Ident;

/// What lowering knows of changes in place so far.
#[derive(Default)]
pub(super) struct InPlace {
    /// How deep lowering is in blocks (1: the function body).
    pub depth: usize,
    /// The statement of the function body being lowered.
    top: usize,
    /// Each statement of the function body: how often it names each
    /// identifier.
    mentions: Vec<HashMap<String, usize>>,
    /// The locals declared `let mut` of a type the macro does not
    /// differentiate: the statement of the body declaring each, its name.
    candidates: HashMap<VarId, (usize, String)>,
    /// The changes: the local, the statement of the body holding the
    /// change, the change (for the error's span).
    changes: Vec<(VarId, usize, TokenStream)>,
    /// Candidates assigned a new value as a whole (`idx = Vec::new();`).
    reassigned: HashSet<VarId>,
    /// The method call lowered next is a statement of its own
    /// (`idx.push(i);`), which may change its receiver.
    pub call_is_statement: bool,
}

/// Methods that only read their receiver: allowed on a candidate in any
/// expression. Any other method may change it, and is accepted only as a
/// statement of its own.
const READING_METHODS: &[&str] = &[
    "len",
    "is_empty",
    "iter",
    "get",
    "contains",
    "first",
    "last",
    "clone",
    "to_vec",
    "to_owned",
    "as_slice",
    "capacity",
    "binary_search",
    "starts_with",
    "ends_with",
    "windows",
    "chunks",
    "into_iter",
];

impl InPlace {
    /// `stmts` begins a block; the function body's when at depth 1.
    pub fn enter_block(&mut self, stmts: &[syn::Stmt]) {
        if self.depth == 1 {
            self.mentions = stmts
                .iter()
                .map(|s| {
                    let mut counts = HashMap::new();
                    count_idents(s.to_token_stream(), &mut counts);
                    counts
                })
                .collect();
        }
    }

    /// The `i`-th statement of the block entered last is lowered next.
    pub fn at_statement(&mut self, i: usize) {
        if self.depth == 1 {
            self.top = i;
        }
    }

    /// `let mut name = ..;` of a type the macro does not differentiate.
    pub fn declare(&mut self, var: VarId, name: &Ident) {
        self.candidates.insert(var, (self.top, name.to_string()));
    }

    /// Whether `var` may be changed in place.
    pub fn may_change(&self, var: VarId) -> bool {
        self.candidates.contains_key(&var)
    }

    /// A change of `var`, in the body's statement being lowered.
    pub fn change(&mut self, var: VarId, change: &dyn ToTokens) {
        self.changes.push((var, self.top, change.to_token_stream()));
    }

    /// `var` is assigned a new value as a whole.
    pub fn reassign(&mut self, var: VarId) {
        if self.may_change(var) {
            self.reassigned.insert(var);
        }
    }

    /// Whether `method` of a candidate is allowed in an expression.
    pub fn reads_only(method: &Ident) -> bool {
        READING_METHODS.iter().any(|m| method == m)
    }

    /// Reports every change that a read before it, or in the same statement
    /// of the body, would not see in the reverse sweep, and every change
    /// of a local also assigned as a whole.
    pub fn check(&self, cx: &Ctxt) {
        let mut reported = HashSet::new();
        for (var, _, _) in &self.changes {
            if !reported.insert(*var) {
                continue;
            }
            let (declared, name) = &self.candidates[var];
            let changes: Vec<&(VarId, usize, TokenStream)> =
                self.changes.iter().filter(|c| c.0 == *var).collect();
            if self.reassigned.contains(var) {
                cx.error_spanned_by(
                    &changes[0].2,
                    format!(
                        "`{name}` is changed in place and also assigned a new value: \
                         `#[differentiable]` supports one or the other; build `{name}` in a \
                         helper function and take its result"
                    ),
                );
                continue;
            }
            let last = changes.iter().map(|c| c.1).max().unwrap_or(0);
            let read_early = (0..=last).find(|&i| {
                let named = self.mentions.get(i).and_then(|m| m.get(name)).copied();
                let changed = changes.iter().filter(|c| c.1 == i).count();
                let binding = usize::from(i == *declared);
                named.unwrap_or(0) > changed + binding
            });
            if let Some(read) = read_early {
                let change = changes.iter().find(|c| c.1 >= read).unwrap_or(&changes[0]);
                cx.error_spanned_by(
                    &change.2,
                    format!(
                        "`{name}` is changed here after it is read, or in the statement that \
                         reads it: `#[differentiable]` reads `{name}` again in the reverse \
                         sweep as it is at the end, so every change must come before the first \
                         statement that reads it; fill `{name}` first, or build it in a helper \
                         function and take its result"
                    ),
                );
            }
        }
    }
}

/// Adds how often `tokens` name each identifier to `counts`.
fn count_idents(tokens: TokenStream, counts: &mut HashMap<String, usize>) {
    for tree in tokens {
        match tree {
            TokenTree::Ident(ident) => *counts.entry(ident.to_string()).or_insert(0) += 1,
            TokenTree::Group(group) => count_idents(group.stream(), counts),
            _ => {}
        }
    }
}
