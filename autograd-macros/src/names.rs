//! Every identifier the expansion introduces comes from here.
//!
//! [`Names`] is built from every identifier in the user's function (its
//! signature and body, macro arguments included) and hands out names that
//! are none of them and none of each other: the versions of the user's
//! locals (`y`, `y__1`), temporaries (`__ad_t3`), adjoints (`__ad_d_y`),
//! tangents, tapes, counters, decisions, and the `_adjoint`'s own
//! arguments (`d_out`, `d_<p>`). No other module makes an identifier for
//! generated code, so no name a user may choose (`t0`, `d_x`, `__ad_t3`,
//! `tmp`) can be captured by, or capture, a generated one.
//!
//! Names derived from a variable (its adjoint, its tangent, its tape) are
//! memoized by [`Role`], so every emitter that asks for the adjoint of `y`
//! gets the same identifier. The allocator lives behind a `RefCell` so the
//! emitters, which read the IR through shared references, can ask for names
//! as they write code.

use proc_macro2::{Span, TokenStream, TokenTree};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use syn::Ident;

/// What a name derived from a variable (or a loop) is for.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Role {
    /// The adjoint local of a float or local array: `__ad_d_<v>`.
    Adjoint,
    /// The fixed adjoint of an accumulator in a loop that only accumulates.
    Seed,
    /// The forward-mode tangent: `__ad_dot_<v>`.
    Tangent,
    /// The per-cell tape of a loop's carried value.
    Tape,
    /// The undo tape of a local array that is stored into.
    Undo,
    /// The stack array of a nested loop's saved exit values.
    Exits,
    /// The trip counter of a loop that may `break` (keyed by loop id).
    Counter,
    /// The running value of a loop's integer counted back in the reverse
    /// sweep (`counters.rs`): `__ad_back_<cell>`.
    CountBack,
    /// The tuple of a rule's partials.
    Partials,
    /// The slot of a call's partial with respect to its `k`-th argument.
    CallPartial(usize),
    /// The zeroed storage of an active parameter's gradient in `f_grad`.
    Gradient,
    /// The `Vec` of a local buffer used through a slice (`views.rs`).
    Owner,
    /// The `Vec` of the adjoint of such a buffer, used through a slice too.
    AdjointOwner,
    /// The tape of the shapes of an array a recorded nest declares
    /// (`record::Shaped`): `__ad_shapes_<a>`.
    Shapes,
    /// One such shape, taken back in the reverse sweep: `__ad_shape_<a>`.
    Shape,
    /// The function's `__private::SlotPool`, where its calls make the
    /// scratch slots of constant arrays: `__ad_slot_pool` (one, id 0).
    SlotPool,
}

/// The one allocator of identifiers for an expansion.
pub struct Names {
    /// Every identifier the user wrote.
    user: HashSet<String>,
    state: RefCell<State>,
}

#[derive(Clone, Default)]
struct State {
    /// Every name handed out so far.
    given: HashSet<String>,
    derived: HashMap<(Role, usize), Ident>,
}

/// The state of a [`Names`] at some point (`Names::checkpoint`).
pub struct Checkpoint(State);

impl Names {
    /// An allocator that knows every identifier in `item`.
    pub fn new(item: &syn::ItemFn) -> Names {
        let mut user = HashSet::new();
        collect_idents(quote::ToTokens::to_token_stream(item), &mut user);
        Names {
            user,
            state: RefCell::new(State::default()),
        }
    }

    /// What has been handed out so far, to [`Names::rollback`] to.
    pub fn checkpoint(&self) -> Checkpoint {
        Checkpoint(self.state.borrow().clone())
    }

    /// Forgets every name handed out since `checkpoint`: lowering a
    /// function again (`lower::lower`) hands out the same names, so
    /// what it learnt by name about the first lowering (a desugared
    /// accumulator that is a float) holds for the second.
    pub fn rollback(&self, checkpoint: &Checkpoint) {
        *self.state.borrow_mut() = checkpoint.0.clone();
    }

    /// Claims `name` exactly: a parameter of `f`, which keeps its name.
    pub fn reserve(&self, name: &Ident) {
        self.state.borrow_mut().given.insert(unraw(name));
    }

    /// The name of a binding of the user's local `name`: the name itself if
    /// nothing has it yet, else `name__1`, `name__2`, ... (skipping every
    /// identifier the user wrote), with `name`'s span so the binding keeps
    /// its hygiene.
    pub fn binding(&self, name: &Ident) -> Ident {
        let base = unraw(name);
        let mut state = self.state.borrow_mut();
        if state.given.insert(base.clone()) {
            return name.clone();
        }
        let mut n = 1;
        loop {
            let candidate = format!("{base}__{n}");
            if !self.user.contains(&candidate) && state.given.insert(candidate.clone()) {
                return Ident::new(&candidate, name.span());
            }
            n += 1;
        }
    }

    /// A name for something the expansion introduces: `base` if neither the
    /// user nor an earlier request has it, else `base_1`, `base_2`, ...
    pub fn fresh(&self, base: &str) -> Ident {
        self.fresh_at(base, Span::call_site())
    }

    /// [`Names::fresh`] with a span.
    pub fn fresh_at(&self, base: &str, span: Span) -> Ident {
        let mut state = self.state.borrow_mut();
        let mut candidate = base.to_string();
        let mut n = 0;
        while self.user.contains(&candidate) || state.given.contains(&candidate) {
            n += 1;
            candidate = format!("{base}_{n}");
        }
        state.given.insert(candidate.clone());
        Ident::new(&candidate, span)
    }

    /// A name that only an `_adjoint`'s parameters compete for: `base` unless
    /// a parameter of `f` (already reserved) has it. The user's locals of
    /// that name are renamed around it (their bindings come later).
    pub fn argument(&self, base: &str) -> Ident {
        let mut state = self.state.borrow_mut();
        let mut candidate = base.to_string();
        let mut n = 0;
        while state.given.contains(&candidate) {
            n += 1;
            candidate = format!("{base}_{n}");
        }
        state.given.insert(candidate.clone());
        Ident::new(&candidate, Span::call_site())
    }

    /// A fresh name made of `prefix` and the plain name of `of`
    /// (`__ad_marks_` and `b` make `__ad_marks_b`).
    pub fn fresh_for(&self, prefix: &str, of: &Ident) -> Ident {
        self.fresh(&format!("{prefix}{}", plain_name(of)))
    }

    /// The name `role` gives to variable (or loop) `id`, whose own name is
    /// `of`: the same identifier every time it is asked for.
    pub fn derived(&self, role: Role, id: usize, of: &Ident) -> Ident {
        if let Some(name) = self.state.borrow().derived.get(&(role, id)) {
            return name.clone();
        }
        let plain = plain_name(of);
        let base = match role {
            Role::Adjoint => format!("__ad_d_{plain}"),
            Role::Seed => format!("__ad_seed_{plain}"),
            Role::Tangent => format!("__ad_dot_{plain}"),
            Role::Tape => format!("__ad_tape_{plain}"),
            Role::Undo => format!("__ad_undo_{plain}"),
            Role::Exits => format!("__ad_exits_{plain}"),
            Role::Counter => format!("__ad_n{id}"),
            Role::CountBack => format!("__ad_back_{plain}"),
            Role::Partials => format!("__ad_p_{plain}"),
            Role::CallPartial(k) => format!("__ad_dp_{plain}_{k}"),
            Role::Gradient => format!("__ad_grad_{plain}"),
            Role::Owner => format!("__ad_own_{plain}"),
            Role::AdjointOwner => format!("__ad_own_d_{plain}"),
            Role::Shapes => format!("__ad_shapes_{plain}"),
            Role::Shape => format!("__ad_shape_{plain}"),
            Role::SlotPool => "__ad_slot_pool".to_string(),
        };
        let name = self.fresh(&base);
        self.state
            .borrow_mut()
            .derived
            .insert((role, id), name.clone());
        name
    }

    /// The function's slot pool (`Role::SlotPool`), for a call to make a
    /// constant array's scratch slot in.
    pub fn slot_pool(&self) -> Ident {
        self.derived(Role::SlotPool, 0, &Ident::new("pool", Span::call_site()))
    }

    /// The slot pool, if a call has asked for it: a generated body that
    /// makes calls declares it at its top then.
    pub fn slot_pool_asked(&self) -> Option<Ident> {
        self.state
            .borrow()
            .derived
            .get(&(Role::SlotPool, 0))
            .cloned()
    }
}

/// `f_adjoint`, the name API.md gives the adjoint of `f` (spanned like `f`).
pub fn adjoint_fn(f: &Ident) -> Ident {
    quote::format_ident!("{}_adjoint", f, span = f.span())
}

/// `__f_active`, the hidden constant beside `f_adjoint` that says which of
/// `f`'s parameters it differentiates (one `bool` each, the receiver
/// excluded): what a call needs to tell its constants' slots apart when
/// the adjoint's signature cannot (`emit::primal::adjoint_call`).
pub fn active_const(f: &Ident) -> Ident {
    let plain = f.to_string();
    let plain = plain.trim_start_matches("r#");
    quote::format_ident!("__{}_active", plain, span = f.span())
}

/// `f_grad`, the name API.md gives the gradient of `f` (spanned like `f`).
pub fn grad_fn(f: &Ident) -> Ident {
    quote::format_ident!("{}_grad", f, span = f.span())
}

/// A name inside an item the expansion generates whole, with no token of
/// the user's in it (the generic parameters and bindings of the local trait
/// impls that call a callee's adjoint, `primal::adjoint_call`): nothing of
/// the user's can see it or be seen from it, so it needs no allocation.
pub fn scoped(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

/// A name without `r#`.
fn unraw(ident: &Ident) -> String {
    let name = ident.to_string();
    name.strip_prefix("r#").map(str::to_string).unwrap_or(name)
}

/// A name without `r#` or the `__ad_` of generated ones, to build the names
/// derived from it (`__ad_d_x`, `__ad_d_t3`). Derived names are made unique
/// by [`Names::fresh`], so two variables with the same plain name (a user's
/// `t3` and a temporary `__ad_t3`) still get distinct ones.
fn plain_name(ident: &Ident) -> String {
    let name = unraw(ident);
    name.strip_prefix("__ad_").unwrap_or(&name).to_string()
}

/// Every identifier in `tokens`, at any depth.
pub fn collect_idents(tokens: TokenStream, out: &mut HashSet<String>) {
    for tree in tokens {
        match tree {
            TokenTree::Ident(ident) => {
                out.insert(unraw(&ident));
            }
            TokenTree::Group(group) => collect_idents(group.stream(), out),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(src: &str) -> Names {
        Names::new(&syn::parse_str(src).unwrap())
    }

    #[test]
    fn generated_names_avoid_every_user_identifier() {
        let names = names("fn f(x: f64) -> f64 { let __ad_t0 = x; let __ad_t0_1 = x; __ad_t0 }");
        assert_eq!(names.fresh("__ad_t0"), "__ad_t0_2");
        assert_eq!(names.fresh("__ad_t0"), "__ad_t0_3");
        assert_eq!(names.fresh("__ad_t1"), "__ad_t1");
    }

    #[test]
    fn bindings_keep_the_user_name_once() {
        let names = names("fn f(y: f64) -> f64 { let y__1 = y; y__1 }");
        let y: Ident = syn::parse_str("y").unwrap();
        names.reserve(&y);
        assert_eq!(names.binding(&y), "y__2");
        let z: Ident = syn::parse_str("z").unwrap();
        assert_eq!(names.binding(&z), "z");
        assert_eq!(names.binding(&z), "z__1");
    }

    #[test]
    fn derived_names_are_memoized_and_distinct() {
        let names = names("fn f(t0: f64) -> f64 { t0 }");
        let user: Ident = syn::parse_str("t0").unwrap();
        let temp = names.fresh("__ad_t0");
        let a = names.derived(Role::Adjoint, 0, &user);
        let b = names.derived(Role::Adjoint, 1, &temp);
        assert_ne!(a, b);
        assert_eq!(names.derived(Role::Adjoint, 0, &user), a);
    }

    #[test]
    fn arguments_yield_only_to_parameters() {
        let names = names("fn f(d_out: f64, x: f64) -> f64 { let d_x = x; d_x + d_out }");
        for p in ["d_out", "x"] {
            names.reserve(&syn::parse_str(p).unwrap());
        }
        assert_eq!(names.argument("d_out"), "d_out_1");
        assert_eq!(names.argument("d_x"), "d_x");
        // The user's local `d_x` is renamed around the argument.
        let d_x: Ident = syn::parse_str("d_x").unwrap();
        assert_eq!(names.binding(&d_x), "d_x__1");
    }
}
