//! Local `Vec<f64>` buffers used through slices.
//!
//! A local float buffer (`let mut q = vec![0.0; d];`, `u0.to_vec()`) is
//! emitted as the `Vec` under a hidden owner's name and a slice of it under
//! the local's own: `let mut __ad_own_q = vec![0.0; d]; let q = &mut
//! __ad_own_q[..];`. Every access then goes through the slice's pointer and
//! length, which LLVM keeps in registers; through the `Vec` they are loads
//! from its header on the stack, repeated wherever LLVM cannot prove the
//! header unchanged (an address that escapes into an unwinding path, a
//! large function's register pressure): one load of the base and a bounds
//! check against a reloaded length per access in the inner loops of the
//! mixture benchmark (BENCHMARKS.md: 14.98M → 14.04M instructions at
//! d = 10).
//!
//! A slice is not a `Vec`: a buffer is viewed only if every use of it is
//! one a slice has too. The IR's own uses are: loads and stores at an index,
//! `to_vec()` copies, and subslices as call arguments (`&q[a..b]`; not `&q`,
//! which a callee the macro does not differentiate may take as a
//! `&Vec<f64>`). In the user's tokens kept as written (integer code,
//! conditions, statements the macro does not differentiate) the only uses
//! allowed are indexing and the slice methods in [`SLICE_METHODS`]; anything
//! else (`q.clone()`, `q.push(..)`, `helper(&q)` whose parameter may be a
//! `&Vec<f64>`, a macro printing it, `q` returned or moved) keeps the `Vec`
//! as written.

use crate::ir::{ArrayInit, CallArg, Callee, Const, Func, Kind, Operand, Origin, Rhs, Stmt, VarId};
use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::ToTokens;
use std::collections::HashMap;

/// Methods of `Vec<f64>` that a `&mut [f64]` has with the same meaning.
const SLICE_METHODS: &[&str] = &[
    "len", "is_empty", "iter", "first", "last", "get", "to_vec", "contains",
];

/// Marks the local float buffers that are used through a slice view
/// ([`crate::ir::Var::view`]).
pub fn mark(func: &mut Func) {
    let views = find(func);
    for var in views {
        func.vars[var].view = true;
    }
}

/// The local `Vec<f64>`s whose every use a slice has too.
fn find(func: &Func) -> Vec<VarId> {
    // candidates by emitted name (names in the user's tokens are rewritten
    // to these, one per variable)
    let mut candidates: HashMap<String, VarId> = HashMap::new();
    func.body.walk(0, &mut |stmt, _| {
        if let Stmt::Let {
            var,
            ty,
            init: Some(Rhs::Array(init)),
        } = stmt
        {
            let info = &func.vars[*var];
            let heap = init.is_vec();
            let typed_vec = ty.as_ref().map_or(true, is_vec_type);
            if heap && typed_vec && info.kind == Kind::FloatArray && info.origin == Origin::Local {
                candidates.insert(info.ident.to_string(), *var);
            }
        }
    });
    if candidates.is_empty() {
        return Vec::new();
    }
    let mut check = Check {
        func,
        candidates,
        refused: Vec::new(),
    };
    func.body.walk(0, &mut |stmt, _| check.stmt(stmt));
    let Check {
        candidates,
        refused,
        ..
    } = check;
    let mut views: Vec<VarId> = candidates
        .into_values()
        .filter(|v| !refused.contains(v))
        .collect();
    views.sort_unstable();
    views
}

/// `Vec<..>` as the user wrote it in `let q: Vec<f64> = ..`.
fn is_vec_type(ty: &TokenStream) -> bool {
    let idents: Vec<String> = ty
        .clone()
        .into_iter()
        .filter_map(|t| match t {
            TokenTree::Ident(i) => Some(i.to_string()),
            _ => None,
        })
        .collect();
    idents.last().is_some_and(|last| last == "f64")
        && idents.iter().rev().nth(1).is_some_and(|v| v == "Vec")
}

struct Check<'a> {
    func: &'a Func,
    candidates: HashMap<String, VarId>,
    refused: Vec<VarId>,
}

impl Check<'_> {
    fn refuse(&mut self, var: VarId) {
        if self.candidates.values().any(|v| *v == var) {
            self.refused.push(var);
        }
    }

    fn stmt(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Let {
                init: Some(rhs), ..
            } => self.rhs(rhs),
            Stmt::Let { init: None, .. } | Stmt::Jump(_) => {}
            Stmt::Update { value, .. } | Stmt::Return { value, .. } => self.operand(value),
            Stmt::Store { index, value, .. } => {
                self.constant(index);
                self.operand(value);
            }
            Stmt::Opaque { tokens, .. } => self.tokens(tokens),
            Stmt::If { cond, .. } => self.constant(cond),
            Stmt::Loop(l) => {
                if let crate::ir::Header::Range { range, .. } = &l.header {
                    self.constant(range);
                }
            }
        }
    }

    fn rhs(&mut self, rhs: &Rhs) {
        match rhs {
            Rhs::Use(op) => self.operand(op),
            Rhs::Prim { args, .. } => args.iter().for_each(|a| self.operand(a)),
            Rhs::Load { index, .. } => self.constant(index),
            Rhs::Array(ArrayInit::Fill { value, .. }) => self.constant(value),
            Rhs::Array(ArrayInit::List { items, .. }) => items.iter().for_each(|i| self.operand(i)),
            // `source.to_vec()` works on a slice; `source.clone()` does not
            Rhs::Array(ArrayInit::Copy { source, vec }) => {
                if !vec {
                    self.refuse(*source);
                }
            }
            Rhs::Call { callee, args } => {
                if let Callee::Method { receiver, .. } = callee {
                    self.constant(receiver);
                }
                for arg in args {
                    match arg {
                        CallArg::Float(op) => self.operand(op),
                        CallArg::Array {
                            array,
                            tokens,
                            range,
                        } => {
                            if !self.slice_argument(*array, tokens) {
                                self.refuse(*array);
                            }
                            if let Some(range) = range {
                                self.constant(range);
                            }
                        }
                        CallArg::Const(c) => self.constant(c),
                    }
                }
            }
        }
    }

    /// A whole array as a value (`let w = q;`, a returned buffer): a slice
    /// is not the `Vec` it stands for.
    fn operand(&mut self, op: &Operand) {
        match op {
            Operand::Var(v) => {
                if self.func.vars[*v].kind == Kind::FloatArray {
                    self.refuse(*v);
                }
            }
            Operand::Const(c) => self.constant(c),
        }
    }

    fn constant(&mut self, c: &Const) {
        if c.uses
            .iter()
            .any(|v| self.candidates.values().any(|c| c == v))
        {
            self.tokens(&c.tokens);
        }
    }

    /// A subslice, `&q[a..b]` or `&mut q[a..b]`, as a call's argument: a
    /// slice whatever `q` is. The whole buffer, `&q`, is not: the callee
    /// may be a function the macro does not differentiate (its argument is
    /// not varied) whose parameter is a `&Vec<f64>`, which a slice is not.
    fn slice_argument(&mut self, array: VarId, tokens: &TokenStream) -> bool {
        let name = self.func.vars[array].ident.to_string();
        let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
        let is_name = |t: &TokenTree| matches!(t, TokenTree::Ident(i) if *i == name);
        let is_amp = |t: &TokenTree| matches!(t, TokenTree::Punct(p) if p.as_char() == '&');
        let is_mut = |t: &TokenTree| matches!(t, TokenTree::Ident(i) if i == "mut");
        let is_index =
            |t: &TokenTree| matches!(t, TokenTree::Group(g) if g.delimiter() == Delimiter::Bracket);
        match trees.as_slice() {
            [amp, q, index] if is_amp(amp) && is_name(q) && is_index(index) => {
                self.tokens(&index.to_token_stream());
                true
            }
            [amp, m, q, index] if is_amp(amp) && is_mut(m) && is_name(q) && is_index(index) => {
                self.tokens(&index.to_token_stream());
                true
            }
            _ => false,
        }
    }

    /// Refuses every candidate named in `tokens` other than indexed
    /// (`q[i]`) or with a method a slice has too (`q.len()`).
    fn tokens(&mut self, tokens: &TokenStream) {
        let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
        for (k, tree) in trees.iter().enumerate() {
            match tree {
                TokenTree::Group(group) => self.tokens(&group.stream()),
                TokenTree::Ident(ident) => {
                    let Some(&var) = self.candidates.get(&ident.to_string()) else {
                        continue;
                    };
                    let indexed = matches!(
                        trees.get(k + 1),
                        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Bracket
                    );
                    let slice_method = matches!(
                        (trees.get(k + 1), trees.get(k + 2), trees.get(k + 3)),
                        (
                            Some(TokenTree::Punct(dot)),
                            Some(TokenTree::Ident(method)),
                            Some(TokenTree::Group(args)),
                        ) if dot.as_char() == '.'
                            && SLICE_METHODS.contains(&method.to_string().as_str())
                            && args.delimiter() == Delimiter::Parenthesis
                    );
                    // a path (`q::x`) or a field (`s.q`) is not the local
                    let punct = |j: usize| match trees.get(j) {
                        Some(TokenTree::Punct(p)) => Some(p.as_char()),
                        _ => None,
                    };
                    let qualified = k > 0
                        && (punct(k - 1) == Some(':')
                            || (punct(k - 1) == Some('.') && (k < 2 || punct(k - 2) != Some('.'))));
                    if !(indexed || slice_method) || qualified {
                        self.refuse(var);
                    }
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    /// The names of the viewed buffers of `f`.
    fn views(f: &str) -> Vec<String> {
        let func = crate::pipeline_tests::lowered(f, "").unwrap_or_else(|e| panic!("{e}"));
        func.vars
            .iter()
            .filter(|v| v.view)
            .map(|v| v.ident.to_string())
            .collect()
    }

    #[test]
    fn buffers_used_by_index_are_viewed() {
        let f = "fn f(x: &[f64], n: usize) -> f64 {
            let mut q = vec![0.0; n];
            let mut u = x.to_vec();
            let w: Vec<f64> = vec![1.0, 2.0];
            for i in 0..q.len() { q[i] = u[i] * w[i % 2]; u[i] = 0.0; }
            q[0] + u[0]
        }";
        assert_eq!(views(f), ["q", "u", "w"]);
    }

    #[test]
    fn fixed_size_arrays_are_not_viewed() {
        assert!(views("fn f(x: f64) -> f64 { let mut a = [0.0; 3]; a[1] = x; a[1] }").is_empty());
    }

    #[test]
    fn uses_a_slice_has_not_keep_the_vec() {
        // a call that is not differentiated (its parameter may be a
        // `&Vec<f64>`), a macro that prints it
        let helper = "fn f(x: f64) -> f64 {
            let mut a = vec![0.0; 3];
            a[0] = x;
            if sorted(&a) { return a[1]; }
            a[0]
        }";
        assert!(views(helper).is_empty());
        let printed = "fn f(x: f64) -> f64 {
            let mut a = vec![0.0; 3];
            a[0] = x;
            println!(\"{:?}\", a);
            a[0]
        }";
        assert!(views(printed).is_empty());
    }

    #[test]
    fn slice_methods_and_slice_arguments_keep_the_view() {
        let f = "fn f(x: &[f64]) -> f64 {
            let a = x.to_vec();
            let n = a.len();
            if a.is_empty() { return 0.0; }
            g(&a[1..n]) + a[n - 1]
        }";
        assert_eq!(views(f), ["a"]);
    }

    #[test]
    fn whole_buffers_passed_to_calls_keep_the_vec() {
        // `init` may take a `&mut Vec<f64>`, `g` a `&Vec<f64>`
        let f = "fn f(x: &[f64]) -> f64 {
            let mut a = x.to_vec();
            init(&mut a);
            let b = x.to_vec();
            g(&b) + a[0]
        }";
        assert!(views(f).is_empty());
    }
}
