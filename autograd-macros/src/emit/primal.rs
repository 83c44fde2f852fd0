//! The primal code both strategies share: each IR value written as the user
//! wrote it (so values are bit for bit `f`'s), the calls of a callee's
//! adjoint, and the local partials of a primitive from the rules table.

use crate::ir::{ArrayInit, CallArg, Callee, Func, Operand, Origin, Rhs, Syntax, Table, VarId};
use crate::names::{self, Names, Role};
use crate::prim::{self, Arity};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use syn::Ident;

/// The value of `rhs`, written as the user would (the primal code of both
/// strategies).
pub fn primal_rhs(func: &Func, rhs: &Rhs) -> TokenStream {
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
                    } else if std::ptr::eq(*prim, &prim::REM) {
                        quote!(%)
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
/// ambiguous `{float}` (`vec![0.0; n]` read as `b[i].cos()`). (Lowering
/// types a float set to a literal, `d = 0.75;`.)
pub fn let_type(ty: Option<&TokenStream>, init: Option<&Rhs>) -> Option<TokenStream> {
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

/// `let [mut] var [: ty] [= init];`; for a local buffer used through a
/// slice (`views.rs`) in first-order code (not `second`, whose arrays of
/// `Dual`s the runtime's helpers take as `Vec`s), the `Vec` under its
/// owner's name and the slice under the local's: `let mut __ad_own_q =
/// init; let q = &mut __ad_own_q[..];`.
pub fn let_binding(
    func: &Func,
    names: &Names,
    second: bool,
    var: VarId,
    mutability: Option<TokenStream>,
    ty: Option<TokenStream>,
    init: Option<TokenStream>,
) -> TokenStream {
    let ident = &func.vars[var].ident;
    if let (Some(Table { len, spare: true }), true) =
        (func.tables.get(&var), func.vars[var].view && !second)
    {
        let owner = names.derived(Role::Owner, var, ident);
        return quote! {
            let mut #owner = ::autograd::__private::Scratch::zeros(#len);
            let #ident = &mut #owner[..];
        };
    }
    match init {
        Some(init) if func.vars[var].view && !second => {
            let owner = names.derived(Role::Owner, var, ident);
            let swapped = func.swapped(var).then(|| quote!(mut));
            quote!(let mut #owner #ty #init; let #swapped #ident = &mut #owner[..];)
        }
        init => quote!(let #mutability #ident #ty #init;),
    }
}

/// An operand as Rust tokens.
pub fn operand(func: &Func, op: &Operand) -> TokenStream {
    match op {
        Operand::Var(v) => func.vars[*v].ident.to_token_stream(),
        Operand::Const(c) => c.tokens.clone(),
    }
}

/// What a call passes for an argument that does not vary: a scratch slot
/// (the candidate is the slot itself), or, for a parameter array that is
/// not differentiated (constant data, `xs` or `&xs[1..]`), the data itself,
/// from which the impl that gives it a slot makes a zeroed buffer of its
/// length (`Candidate::lazy`), so the usual case, data going to a parameter
/// the callee does not differentiate, allocates nothing. `None` for an
/// argument that is not a float. A scalar's scratch is a temporary; a local
/// array's a zeroed twin (on the heap for a `Vec`).
///
/// `twins`: arrays the call is given a twin of (`record::copied_args`),
/// whose scratch is zeros like the twin (the array itself may be out of
/// scope: one a recorded nest declares).
fn scratch_slot(
    func: &Func,
    arg: &CallArg,
    twins: &[(VarId, Ident)],
) -> Option<(TokenStream, bool)> {
    match arg {
        CallArg::Float(_) => Some((quote!(&mut 0.0_f64), false)),
        // The argument as written (`pair`, `data`, `&data[1..]`).
        CallArg::Array { array, tokens, .. }
            if matches!(func.vars[*array].origin, Origin::Param { .. }) =>
        {
            Some((tokens.clone(), true))
        }
        CallArg::Array { array, range, .. } => {
            let array = match twins.iter().find(|(a, _)| a == array) {
                Some((_, twin)) => twin,
                None => &func.vars[*array].ident,
            };
            let zeros = quote!(::autograd::__private::zeros_like(&#array));
            Some(match range {
                Some(range) => {
                    let range = &range.tokens;
                    (quote!(&mut #zeros[#range]), false)
                }
                None => (quote!(&mut #zeros), false),
            })
        }
        CallArg::Const(_) => None,
    }
}

/// The function's slot pool declared, at the top of a generated body, if
/// a call in it makes a constant array's scratch slot there
/// (`Names::slot_pool`): `__private::SlotPool`, whose buffers its calls
/// reuse, one per slot position, rather than taking a scratch from the
/// thread's spare buffers and giving it back at every call.
pub fn slot_pool_declaration(names: &Names) -> TokenStream {
    match names.slot_pool_asked() {
        Some(pool) => quote!(let mut #pool = ::autograd::__private::SlotPool::new();),
        None => TokenStream::new(),
    }
}

/// `callee_adjoint(args.., d_out, slots..)`: the call of a callee's adjoint
/// (`g_adjoint` by path, or `receiver.g_adjoint` for a method), shared by the
/// reverse sweep (`d_out` the result's adjoint), `call_with_partials` and
/// forward mode (`d_out = 1`). `slots` has one entry per argument: the slot
/// of each argument that varies.
///
/// API.md gives the callee's adjoint a slot per parameter it differentiates
/// (every float parameter, or those of its `wrt(..)`), which the caller
/// cannot see. An argument that varies must go to such a parameter; a float
/// that does not vary (`2.0`, `labels[i]`, a literal array, a local buffer,
/// a parameter array outside `wrt`) may go to either. When a call has such
/// constants, the adjoint is called through a small local trait with one
/// impl per way the callee may take its slots (`slot_choices`): rustc picks
/// the one impl whose `FnOnce` signature the callee's adjoint has, and the
/// constants it gives a slot get a scratch one. Where that signature (the
/// kinds of its slots) fits several ways, which differ in the constants
/// they give slots (`g(1.0, x, 2.0)`, `h([0.5, 0.75], &buf[1..], &w[..2])`),
/// the impl reads the callee's hidden `__g_active` at run time and takes
/// the one way it says, each array's scratch made there from that argument
/// (`__private::Lazy`). Arguments and slots pass through
/// `__private::Coerce`, which does the coercions a direct call would
/// (`&[f64; N]` to `&[f64]`). A method on another receiver than `self`
/// (`other.g(x)`) is called directly, with the varied slots only.
pub fn adjoint_call(
    func: &Func,
    names: &Names,
    callee: &Callee,
    args: &[CallArg],
    d_out: TokenStream,
    slots: &[Option<TokenStream>],
    twins: &[(VarId, Ident)],
) -> TokenStream {
    let mut arg_tokens: Vec<TokenStream> = args.iter().map(|a| call_arg(func, a)).collect();
    // Every argument that may take a slot, in order: its slot (its
    // adjoint's if it varies, else a scratch one) and what it is.
    let mut positions: Vec<usize> = Vec::new();
    // (the `k`-th constant array whose scratch `Lazy` makes, of the first
    // `POOLED_SLOTS`, makes it in the function's slot pool, `s<k>`)
    let mut pooled = 0;
    let candidates: Vec<(TokenStream, Candidate)> = args
        .iter()
        .zip(slots)
        .enumerate()
        .filter_map(|(position, (arg, slot))| {
            let array = matches!(arg, CallArg::Array { .. });
            let (slot, varied, lazy) = match slot {
                Some(slot) => (slot.clone(), true, false),
                None => {
                    let (mut slot, lazy) = scratch_slot(func, arg, twins)?;
                    if lazy && pooled < POOLED_SLOTS {
                        let pool = names.slot_pool();
                        let buf = format_ident!("s{}", pooled);
                        slot = quote!(::autograd::__private::pooled(&mut #pool.#buf, #slot));
                        pooled += 1;
                    }
                    (slot, false, lazy)
                }
            };
            positions.push(position);
            Some((
                slot,
                Candidate {
                    array,
                    varied,
                    lazy,
                },
            ))
        })
        .collect();
    let varied: Vec<&TokenStream> = slots.iter().flatten().collect();
    let constants = candidates.len() > varied.len();
    // The callee's `__g_active` (only named when a call needs it: a
    // hand-written adjoint may not have one).
    let active_const = match callee {
        Callee::Path { path, .. } => syn::parse2::<syn::Path>(path.clone()).ok().map(|mut p| {
            if let Some(last) = p.segments.last_mut() {
                last.ident = names::active_const(&last.ident);
            }
            p.to_token_stream()
        }),
        Callee::Method { method, .. } => {
            let name = names::active_const(method);
            Some(quote!(Self::#name))
        }
    };
    let adjoint = match callee {
        Callee::Path { adjoint, .. } if constants => adjoint.clone(),
        Callee::Path { adjoint, .. } => {
            return quote!(#adjoint(#(#arg_tokens,)* #d_out, #(#varied),*));
        }
        // `self.g(x, 2.0)`: `Self::g_adjoint(self, ..)` can be named, so it
        // can be called through the trait too (another receiver's type is
        // unknown: its adjoint gets the varied slots only).
        Callee::Method { receiver, method }
            if constants && receiver.tokens.to_string() == "self" =>
        {
            let adjoint = names::adjoint_fn(method);
            arg_tokens.insert(0, quote!(self));
            quote!(Self::#adjoint)
        }
        Callee::Method { receiver, method } => {
            let receiver = &receiver.tokens;
            let adjoint = names::adjoint_fn(method);
            return quote!(#receiver.#adjoint(#(#arg_tokens,)* #d_out, #(#varied),*));
        }
    };
    let call_trait = names.fresh("__AdCall");
    let method = names.fresh("__ad_call");
    let n = arg_tokens.len();
    let m = candidates.len();
    let ty = |prefix: &str, i: usize| names::scoped(&format!("{prefix}{i}"));
    let (bs, as_): (Vec<Ident>, Vec<Ident>) = (0..n).map(|i| (ty("B", i), ty("A", i))).unzip();
    let cs: Vec<Ident> = (0..m).map(|j| ty("C", j)).collect();
    let (a_vals, c_vals): (Vec<Ident>, Vec<Ident>) = (
        (0..n).map(|i| ty("a", i)).collect(),
        (0..m).map(|j| ty("c", j)).collect(),
    );
    let coerce = quote!(::autograd::__private::Coerce);
    let d = names::scoped("d_out");
    // (the type of `d_out` and of the value: `f64` and `f64`, or `&[f64]`
    // and the vector of a vector-valued callee)
    let (dt, rt) = (names::scoped("D"), names::scoped("R"));
    let kinds: Vec<Candidate> = candidates.iter().map(|(_, c)| *c).collect();
    let private = quote!(::autograd::__private);
    // One impl per group of choices that give the callee the same kinds of
    // slots (`slot_choices`); a group of several is told apart at run time
    // by the callee's `__g_active`, which a call can name only for a path
    // or `self` callee (always the case here).
    let groups: Vec<Vec<Vec<usize>>> = slot_choices(&kinds)
        .into_iter()
        .filter(|group| group.len() == 1 || active_const.is_some())
        .collect();
    let has_switch = groups.iter().any(|group| group.len() > 1);
    let active = names::scoped("active");
    let active_param = has_switch.then(|| quote!(, #active: &[bool]));
    let mut impls = Vec::new();
    // Each impl's marker names its choice: coherence does not look at
    // where-clauses, so two choices with as many slots need two markers.
    for (marker, group) in groups.iter().enumerate() {
        let choice = proc_macro2::Literal::usize_unsuffixed(marker);
        // Per slot of the callee: its type in the `FnOnce` bound, its type
        // in the marker (without lifetimes), and how a branch fills it.
        let (mut generics, mut lifetimes, mut bounds) = (Vec::new(), Vec::new(), Vec::new());
        let (mut slot_types, mut marker_types, mut fills) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..group[0].len() {
            let mut at: Vec<usize> = group.iter().map(|kept| kept[i]).collect();
            at.sort_unstable();
            at.dedup();
            let first = at[0];
            if at.len() == 1 && !kinds[first].lazy {
                // The same candidate in every branch (a varied argument's
                // slot, a scratch made at the call): coerced to the
                // callee's slot type, as a direct call would.
                let (s, c) = (ty("S", first), &cs[first]);
                bounds.push(quote!(#c: #coerce<#s>));
                slot_types.push(quote!(#s));
                marker_types.push(quote!(#s));
                generics.push(quote!(#s));
                fills.push(Fill::Coerce(s));
            } else if kinds[first].array {
                // Constant data, or arrays that differ between branches
                // (`h([0.5, 0.75], &e[1..], &q[..])` to an `h` that
                // differentiates the first or the second): the callee's
                // slot is `&mut E` (`[f64; N]` or `[f64]`), and a branch
                // fills it from its own candidate, a zeroed buffer of its
                // own length made there for data (`__private::Lazy`), or
                // the scratch or adjoint part passed, reshaped. A
                // candidate that cannot fill an `E` (another length) makes
                // `Lazy::slot` `None`, only in a branch `__g_active` rules
                // out. The slot is a reference of any lifetime, as the
                // buffer lives in the method.
                let e = ty("E", i);
                let lifetime =
                    syn::Lifetime::new(&format!("'l{i}"), proc_macro2::Span::mixed_site());
                for &j in &at {
                    let c = &cs[j];
                    bounds.push(quote!(#c: #private::Lazy<#e>));
                }
                slot_types.push(quote!(&#lifetime mut #e));
                marker_types.push(quote!(&mut #e));
                generics.push(quote!(#e: ?::core::marker::Sized));
                lifetimes.push(lifetime);
                fills.push(Fill::Lazy(e, ty("z", i)));
            } else {
                // Scalar scratch slots and varied scalars that differ
                // between branches: all `&mut f64`.
                let t = ty("T", i);
                for &j in &at {
                    let c = &cs[j];
                    bounds.push(quote!(#c: #coerce<#t>));
                }
                slot_types.push(quote!(#t));
                marker_types.push(quote!(#t));
                generics.push(quote!(#t));
                fills.push(Fill::Coerce(t));
            }
        }
        // The call of the callee with the candidates of `kept`.
        let call = |kept: &[usize]| {
            let mut buffers = Vec::new();
            let mut passed = Vec::new();
            for (fill, &j) in fills.iter().zip(kept) {
                let (c, v) = (&cs[j], &c_vals[j]);
                match fill {
                    Fill::Coerce(s) => passed.push(quote!(#coerce::<#s>::coerce(#v))),
                    Fill::Lazy(e, z) => {
                        let lazy = quote!(<#c as #private::Lazy<#e>>);
                        buffers.push(quote! {
                            let ::core::option::Option::Some(mut #z) = #lazy::slot(#v) else {
                                ::core::panic!("autograd: a scratch buffer does not fit the callee's slot (a bug in autograd)")
                            };
                        });
                        passed.push(quote!(#lazy::lend(&mut #z)));
                    }
                }
            }
            quote! {
                #(#buffers)*
                self(#(#coerce::<#bs>::coerce(#a_vals),)* #d, #(#passed,)*)
            }
        };
        let body = if let [kept] = group.as_slice() {
            call(kept)
        } else {
            // The constants some branches keep and others do not: the
            // callee's `__g_active` (indexed by argument, the receiver
            // excluded) says which it differentiates.
            let differing: Vec<usize> = (0..m)
                .filter(|j| {
                    let kept = group.iter().filter(|kept| kept.contains(j)).count();
                    kept > 0 && kept < group.len()
                })
                .collect();
            let branches = group.iter().map(|kept| {
                let tests = differing.iter().map(|&j| {
                    let p = proc_macro2::Literal::usize_unsuffixed(positions[j]);
                    let want = kept.contains(&j);
                    quote!(#active.get(#p).copied() == ::core::option::Option::Some(#want))
                });
                let call = call(kept);
                quote! {
                    if #(#tests)&&* {
                        return { #call };
                    }
                }
            });
            quote! {
                #(#branches)*
                ::core::panic!("autograd: the callee's `__*_active` matches none of the ways this call can give it slots (a bug in autograd)")
            }
        };
        let higher = (!lifetimes.is_empty()).then(|| quote!(for<#(#lifetimes),*>));
        impls.push(quote! {
            impl<F, #dt, #rt, #(#bs,)* #(#generics,)* #(#as_,)* #(#cs,)*>
                #call_trait<(fn(#(#bs,)* #(#marker_types,)*), [(); #choice]), (#(#as_,)*), (#(#cs,)*), #dt, #rt> for F
            where
                F: #higher FnOnce(#(#bs,)* #dt, #(#slot_types,)*) -> #rt,
                #(#as_: #coerce<#bs>,)*
                #(#bounds,)*
            {
                #[inline(always)]
                fn #method(self, (#(#a_vals,)*): (#(#as_,)*), #d: #dt, (#(#c_vals,)*): (#(#cs,)*) #active_param) -> #rt {
                    #body
                }
            }
        });
    }
    let slot_tokens = candidates.iter().map(|(s, _)| s);
    let active_arg_call = match (&active_const, has_switch) {
        (Some(path), true) => quote!(, #path),
        _ => quote!(),
    };
    let callee_name = adjoint.to_string().replace(' ', "");
    let message = format!("`{callee_name}` does not take the `d_` slots this call can give it");
    // (Every way this call can give slots is offered, told apart at run
    // time where needed: what is left is a callee whose adjoint takes slots
    // no way gives, or, beyond `MAX_CONSTANTS` constants, a subset of them.)
    let note = format!(
        "`#[differentiable]` passes a `d_` slot for each argument that depends on a \
         differentiated input, and a scratch slot for each float constant that goes to a \
         parameter the callee differentiates; no way of doing so fits this adjoint's \
         parameters: a differentiated value goes to a parameter it does not differentiate, \
         the adjoint does not follow the `f_adjoint` convention, or the call passes more \
         than {MAX_CONSTANTS} float constants and the callee differentiates some of them \
         but not all"
    );
    let help = "pass each differentiated value to a parameter the callee differentiates; bind \
                the constants it does not differentiate to parameters of the caller outside \
                `wrt(..)`, or differentiate the callee with respect to all its float parameters";
    quote! {
        {
            #[diagnostic::on_unimplemented(message = #message, note = #note, help = #help)]
            trait #call_trait<M, A, C, D, R> {
                fn #method(self, args: A, d_out: D, slots: C #active_param) -> R;
            }
            #(#impls)*
            #call_trait::#method(#adjoint, (#(#arg_tokens,)*), #d_out, (#(#slot_tokens,)*) #active_arg_call)
        }
    }
}

/// How a branch of an impl fills one of the callee's slots.
enum Fill {
    /// The candidate, coerced to the slot's type (`S_j` or `T_i`).
    Coerce(Ident),
    /// A buffer made from the candidate (`__private::Lazy<E_i>`), bound to
    /// `z_i`.
    Lazy(Ident, Ident),
}

/// Beyond this many float constants in a call, `slot_choices` offers only
/// "none of them" and "all of them" (the impls would grow as `2^n`).
const MAX_CONSTANTS: usize = 6;

/// The slot positions a `__private::SlotPool` has (`s0` .. `s3`: its
/// `POOLED_SLOTS`).
const POOLED_SLOTS: usize = 4;

/// An argument that may take a slot in a callee's adjoint.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Candidate {
    /// An array (its slot is a buffer), not a scalar.
    array: bool,
    /// Constant data passed as itself (`xs`, `&xs[1..]`): an impl that
    /// gives it a slot makes a zeroed buffer of its length
    /// (`__private::Lazy`).
    lazy: bool,
    /// It varies: it must take its slot (its adjoint's); a constant's is a
    /// scratch one, taken if the callee has a slot for it.
    varied: bool,
}

/// The ways a callee may take its slots, in groups that give the same
/// sequence of slot kinds (scalar or array), which is all the callee's
/// signature tells: one impl per group. Each way is the candidates kept
/// (by index, in order): every varied one and some of the constants.
///
/// Choices of a group that put the varied slots at the same places and the
/// same arrays at the same places are interchangeable (scalar scratch
/// slots are all alike): the group is its first. Otherwise (constants on
/// both sides of a varied argument, several constant arrays that could
/// take one slot) the group keeps every choice, and the impl picks one at
/// run time from the callee's `__g_active`, each branch making its own
/// arrays' buffers (their own lengths: the callee checks them), so a
/// gradient never lands in the wrong slot. Beyond `MAX_CONSTANTS`
/// constants, only "none of the constants" and "all of them" are offered.
fn slot_choices(candidates: &[Candidate]) -> Vec<Vec<Vec<usize>>> {
    let constants: Vec<usize> = (0..candidates.len())
        .filter(|&j| !candidates[j].varied)
        .collect();
    let masks: Vec<u32> = if constants.len() > MAX_CONSTANTS {
        vec![0, (1 << constants.len()) - 1]
    } else {
        (0..1 << constants.len()).collect()
    };
    // Kinds of the kept slots → every choice with them.
    let mut by_kinds: Vec<(Vec<bool>, Vec<Vec<usize>>)> = Vec::new();
    for mask in masks {
        let kept: Vec<usize> = (0..candidates.len())
            .filter(|&j| {
                candidates[j].varied
                    || constants
                        .iter()
                        .position(|&c| c == j)
                        .is_some_and(|k| mask & (1 << k) != 0)
            })
            .collect();
        let kinds: Vec<bool> = kept.iter().map(|&j| candidates[j].array).collect();
        match by_kinds.iter_mut().find(|(k, _)| *k == kinds) {
            None => by_kinds.push((kinds, vec![kept])),
            Some((_, choices)) => choices.push(kept),
        }
    }
    let places = |kept: &[usize]| -> Vec<usize> {
        (0..kept.len())
            .filter(|&i| candidates[kept[i]].varied)
            .collect()
    };
    // (same kinds: an array at the same places in both)
    let same_arrays = |a: &[usize], b: &[usize]| {
        a.iter()
            .zip(b)
            .all(|(&x, &y)| x == y || !candidates[x].array)
    };
    by_kinds
        .into_iter()
        .map(|(_, mut choices)| {
            let first = &choices[0];
            let equivalent = choices
                .iter()
                .all(|c| places(c) == places(first) && same_arrays(c, first));
            if equivalent {
                choices.truncate(1);
            }
            choices
        })
        .collect()
}

/// An argument of a call, as the user wrote it; a local array given by
/// value (`total_of(scale)`, a `Vec<f64>` taken by a helper) is given a
/// copy, for the forward sweep, its replays and the reverse read the array
/// after the call (the expansion moved it, then read it: E0382, on valid
/// code). (A parameter given by name is a reference, or a `Copy` array.)
pub fn call_arg(func: &Func, arg: &CallArg) -> TokenStream {
    match arg {
        CallArg::Float(op) => operand(func, op),
        CallArg::Array { array, tokens, .. }
            if !crate::ir::by_reference(tokens)
                && matches!(func.vars[*array].origin, crate::ir::Origin::Local) =>
        {
            quote!(::core::clone::Clone::clone(&#tokens))
        }
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
/// mode (`dot_var = Σ partial * dot_arg`). Arguments the partials do not
/// read (`prim::Reads`; `record::read_operands`) are passed as `0.0`, so
/// the reverse sweep of a recorded nest need not keep them.
pub fn rule_partials(
    func: &Func,
    names: &Names,
    out: &mut Vec<TokenStream>,
    var: VarId,
    prim: &prim::Prim,
    args: &[Operand],
    active: &dyn Fn(VarId) -> bool,
) -> Vec<(VarId, TokenStream)> {
    let read = crate::record::read_operands(prim, args, active);
    let operands: Vec<TokenStream> = args
        .iter()
        .enumerate()
        .map(|(i, a)| match read.contains(&i) {
            true => operand(func, a),
            false => quote!(0.0),
        })
        .collect();
    let result = match crate::record::reads_result(prim, args, active) {
        true => func.vars[var].ident.to_token_stream(),
        false => quote!(0.0),
    };
    partials_of_call(
        func,
        names,
        out,
        var,
        prim,
        args,
        active,
        quote!(::autograd::__private::rules),
        operands,
        result,
    )
}

/// [`rule_partials`] from the rules module at `rules` (the second-order
/// body reads `__private::dual::rules`, the same names on `Dual`s).
#[allow(clippy::too_many_arguments)]
pub fn rule_partials_from(
    func: &Func,
    names: &Names,
    out: &mut Vec<TokenStream>,
    var: VarId,
    prim: &prim::Prim,
    args: &[Operand],
    active: &dyn Fn(VarId) -> bool,
    rules: TokenStream,
) -> Vec<(VarId, TokenStream)> {
    let operands: Vec<TokenStream> = args.iter().map(|a| operand(func, a)).collect();
    let result = func.vars[var].ident.to_token_stream();
    partials_of_call(
        func, names, out, var, prim, args, active, rules, operands, result,
    )
}

/// [`rule_partials_from`] with the rule's arguments given (`operands`, then
/// `result`).
#[allow(clippy::too_many_arguments)]
fn partials_of_call(
    func: &Func,
    names: &Names,
    out: &mut Vec<TokenStream>,
    var: VarId,
    prim: &prim::Prim,
    args: &[Operand],
    active: &dyn Fn(VarId) -> bool,
    rules: TokenStream,
    operands: Vec<TokenStream>,
    result: TokenStream,
) -> Vec<(VarId, TokenStream)> {
    let rule = Ident::new(prim.name, Span::call_site());
    let call = quote!(#rules::#rule(#(#operands,)* #result));
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
            let partials = names.derived(Role::Partials, var, &func.vars[var].ident);
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

/// `tokens`, which read `uses`, with every `Dual` among them (`is_dual`)
/// rebound to its value first (`{ let x: f64 = x.v; tokens }`): a value of a
/// second-order body that does not depend on an active parameter though it
/// reads one (a step function, a condition, `(x * 4.0) as usize`) is
/// computed on `f64`s as in `f`. Shared by forward and reverse mode.
pub fn values_of_duals(
    func: &Func,
    uses: Vec<VarId>,
    tokens: TokenStream,
    is_dual: &dyn Fn(VarId) -> bool,
) -> TokenStream {
    let (mut duals, mut arrays): (Vec<&Ident>, Vec<&Ident>) = (Vec::new(), Vec::new());
    for var in uses {
        let info = &func.vars[var];
        if !is_dual(var) || duals.contains(&&info.ident) || arrays.contains(&&info.ident) {
            continue;
        }
        match (info.kind, info.origin) {
            (crate::ir::Kind::Float, _) => duals.push(&info.ident),
            // (a parameter array holds `f64`s)
            (crate::ir::Kind::FloatArray, Origin::Param { .. }) => {}
            (crate::ir::Kind::FloatArray, _) => arrays.push(&info.ident),
            _ => {}
        }
    }
    if duals.is_empty() && arrays.is_empty() {
        return tokens;
    }
    let values = quote!(::autograd::__private::dual::ValuesOf::values_of);
    quote!({
        #(let #duals: f64 = #duals.v;)*
        #(let #arrays = #values(&#arrays);)*
        (#tokens)
    })
}
