//! Loop integers counted back. In a recorded nest (`record.rs`), an
//! integer a loop steps by a known amount (`l += 1`, `k -= stride`) is not
//! recorded at every iteration: the reverse sweep, which visits the
//! iterations last first, undoes the steps instead. Before the reversed
//! loop a *running value* starts at what the integer holds after the loop;
//! at the start of each reversed iteration it is the integer's value at the
//! end of that iteration, from which the iteration's earlier values follow
//! by subtracting its steps; at the end of the reversed iteration it becomes
//! the value the iteration started with. Integer steps undo exactly (with
//! wrapping too), which is why this is for primitive integers only.
//!
//! ```text
//! // forward, recorded nest              // reverse
//! let mut l = d;                         let mut back_l = l_after;
//! for col in 0..d {                      for col in (0..d).rev() {
//!     let mut m = l;                         let l3 = back_l;        // the end
//!     for row in col + 1..d {                let mut back_m = l3;
//!         .. q[l2] ..                        for row in (col + 1..d).rev() {
//!         m = m + 1;   // l2 → l3                let m3 = back_m; let m2 = m3 - (1);
//!     }                                          .. q[m2] ..
//!     l = m;                                     back_m = m2;
//! }                                          }
//! let l_after = l;                           let l1 = back_m;  // after the inner loop
//!                                            back_l = l1;
//!                                        }
//! ```
//!
//! The values of an iteration form a chain from the cell's update at the
//! end of the body back to the value read at its entry, each link one of:
//! a copy (`let b = a`), a step (`let b = a + δ` or `a - δ`, δ an integer
//! that does not change in the loop), or a nested loop that counts a cell
//! of its own, initialised from the chain before it and read after it. The
//! links after the last nested loop are known at the start of the reversed
//! iteration (`Point::Start`); the others once that loop's reverse has run
//! (`Point::After`), which is enough to hand the running value back but
//! not for the reverse's reads before it (those values stay recorded).

use crate::ir::{Block, Carried, Func, Header, Loop, Operand, Rhs, Stmt, VarId};
use crate::names::{Names, Role};
use proc_macro2::TokenStream;
use quote::quote;
use std::collections::{HashMap, HashSet};
use syn::{BinOp, Expr, Ident};

/// Where in the reverse of its loop's body a counted-back value is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Point {
    /// At the start of the reversed iteration.
    Start,
    /// Right after the reverse of the nested loop with this id.
    After(usize),
}

/// One value the reverse computes: `let var = value;` at `point`.
#[derive(Clone)]
pub struct Undone {
    pub var: VarId,
    pub point: Point,
    pub value: TokenStream,
}

/// A loop's integer cell that the reverse counts back.
pub struct Counter {
    /// The loop that carries the cell.
    pub loop_id: usize,
    pub cell: VarId,
    /// The read of the cell after the loop: where counting back starts.
    pub exit: VarId,
    /// The running value (`__ad_back_<cell>`).
    pub running: Ident,
    /// The value the cell holds at an iteration's entry: the running value
    /// once the iteration is reversed.
    pub entry: VarId,
    /// The iteration's values from its end back to its entry.
    pub chain: Vec<Undone>,
    /// What the steps read (besides the chain): defined outside the body.
    pub needs: Vec<VarId>,
    /// The cells of the nested loops' counters the chain goes through.
    pub inner: Vec<VarId>,
}

/// The counters of every loop of the nest whose top is the function
/// body's loop `top`, by cell.
pub fn of_nest(func: &Func, names: &Names, top: usize) -> HashMap<VarId, Counter> {
    let integers = integers(func);
    let mut found = HashMap::new();
    // (the function body, or a fused loop's body: where the nest is)
    if let Some(block) = block_holding(&func.body, top) {
        find_in_block(func, names, &integers, block, &mut found, Some(top));
    }
    found
}

/// The block, `block` or one nested in it, whose statements hold loop `id`.
fn block_holding(block: &Block, id: usize) -> Option<&Block> {
    for stmt in &block.stmts {
        let found = match stmt {
            Stmt::Loop(l) if l.id == id => return Some(block),
            Stmt::Loop(l) => block_holding(&l.body, id),
            Stmt::If { then_, else_, .. } => {
                block_holding(then_, id).or_else(|| block_holding(else_, id))
            }
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

/// Finds the counters of the loops of `block` (only the loop `only` when
/// given) and of every loop nested in them.
fn find_in_block(
    func: &Func,
    names: &Names,
    integers: &HashSet<VarId>,
    block: &Block,
    found: &mut HashMap<VarId, Counter>,
    only: Option<usize>,
) {
    for (position, stmt) in block.stmts.iter().enumerate() {
        match stmt {
            Stmt::Loop(l) if only.map_or(true, |id| id == l.id) => {
                // the inner loops first: the chain may go through them
                find_in_block(func, names, integers, &l.body, found, None);
                for carried in &l.carried {
                    if !integers.contains(&carried.cell) {
                        continue;
                    }
                    let Some(exit) = read_after(func, &block.stmts[position + 1..], carried.cell)
                    else {
                        continue;
                    };
                    if let Some(counter) = chain(func, names, integers, l, carried, exit, found) {
                        found.insert(carried.cell, counter);
                    }
                }
            }
            Stmt::If { then_, else_, .. } if only.is_none() => {
                find_in_block(func, names, integers, then_, found, None);
                find_in_block(func, names, integers, else_, found, None);
            }
            _ => {}
        }
    }
}

/// The first `let x = cell;` among `stmts`, if nothing before it writes
/// the cell.
fn read_after(func: &Func, stmts: &[Stmt], cell: VarId) -> Option<VarId> {
    for stmt in stmts {
        match stmt {
            Stmt::Let {
                var,
                init: Some(rhs),
                ..
            } if copy_of(func, rhs) == Some(cell) => return Some(*var),
            Stmt::Update { cell: c, .. } if *c == cell => return None,
            Stmt::If { .. } | Stmt::Loop(_) => {
                let mut writes = false;
                crate::record::walk_stmt(stmt, &mut |s| {
                    writes |= matches!(s, Stmt::Update { cell: c, .. } if *c == cell)
                });
                if writes {
                    return None;
                }
            }
            _ => {}
        }
    }
    None
}

/// The chain of loop `l`'s integer cell `carried` (read as `exit` after the
/// loop), or `None` if some link is not one the reverse can undo.
fn chain(
    func: &Func,
    names: &Names,
    integers: &HashSet<VarId>,
    l: &Loop,
    carried: &Carried,
    exit: VarId,
    inner_counters: &HashMap<VarId, Counter>,
) -> Option<Counter> {
    let body = &l.body.stmts;
    // One update of the cell, at the top level of the body.
    let mut updates = 0;
    l.body.walk(0, &mut |s, _| {
        updates += matches!(s, Stmt::Update { cell, .. } if *cell == carried.cell) as usize
    });
    let end = body.iter().find_map(|s| match s {
        Stmt::Update { cell, value } if *cell == carried.cell => {
            copy_of(func, &Rhs::Use(value.clone()))
        }
        _ => None,
    });
    let end = end.filter(|_| updates == 1)?;
    let defined_in_body = defined_in(&l.body);
    let defs: HashMap<VarId, (usize, &Rhs)> = body
        .iter()
        .enumerate()
        .filter_map(|(p, s)| match s {
            Stmt::Let {
                var,
                init: Some(rhs),
                ..
            } => Some((*var, (p, rhs))),
            _ => None,
        })
        .collect();
    let running = names.derived(
        Role::CountBack,
        carried.cell,
        &func.vars[carried.cell].ident,
    );
    let ident = |v: VarId| func.vars[v].ident.clone();
    let mut chain = vec![Undone {
        var: end,
        point: Point::Start,
        value: quote!(#running),
    }];
    let (mut needs, mut inner) = (vec![exit], Vec::new());
    let (mut current, mut point) = (end, Point::Start);
    while current != carried.entry {
        if chain.len() > body.len() + 1 {
            return None;
        }
        let (position, rhs) = *defs.get(&current)?;
        let from = ident(current);
        let (previous, value) = match (copy_of(func, rhs), rhs) {
            // the read of a nested loop's counted cell after it
            (Some(cell), _) if func.vars[cell].is_cell() => {
                let cell = &cell;
                let counter = inner_counters.get(cell)?;
                let nested = body[..position].iter().find_map(|s| match s {
                    Stmt::Loop(nested) if nested.id == counter.loop_id => Some(nested),
                    _ => None,
                })?;
                if counter.exit != current {
                    return None;
                }
                // `let mut cell = previous;` before the loop, and no other
                // write of the cell in this body but the loop's own
                let declared = body
                    .iter()
                    .position(|s| matches!(s, Stmt::Let { var, .. } if *var == *cell))?;
                let Stmt::Let {
                    init: Some(init), ..
                } = &body[declared]
                else {
                    return None;
                };
                let previous = &copy_of(func, init)?;
                let mut carriers = 0;
                let mut writes = 0;
                l.body.walk(0, &mut |s, _| match s {
                    Stmt::Loop(x) => {
                        carriers += x.carried.iter().filter(|c| c.cell == *cell).count()
                    }
                    Stmt::Update { cell: c, .. } if *c == *cell => writes += 1,
                    _ => {}
                });
                let nested_writes = {
                    let mut n = 0;
                    nested.body.walk(0, &mut |s, _| {
                        n += matches!(s, Stmt::Update { cell: c, .. } if *c == *cell) as usize
                    });
                    n
                };
                let position_of_loop = body
                    .iter()
                    .position(|s| matches!(s, Stmt::Loop(x) if x.id == nested.id))?;
                if carriers != 1
                    || writes != nested_writes
                    || !(declared < position_of_loop && position_of_loop < position)
                    || func.vars[*previous].is_cell()
                {
                    return None;
                }
                inner.push(*cell);
                point = Point::After(nested.id);
                let back = &counter.running;
                (*previous, quote!(#back))
            }
            (Some(previous), _) => (previous, quote!(#from)),
            (None, Rhs::Use(Operand::Const(c))) => {
                let (previous, undo, delta) = step(func, c)?;
                let delta_uses: Vec<VarId> =
                    c.uses.iter().copied().filter(|u| *u != previous).collect();
                let fixed = delta_uses.iter().all(|u| {
                    !func.vars[*u].is_cell()
                        && !defined_in_body.contains(u)
                        && !chain.iter().any(|x| x.var == *u)
                });
                if !fixed || !integer_expr(func, integers, &delta, &delta_uses) {
                    return None;
                }
                needs.extend(delta_uses);
                let delta = match strip(&delta) {
                    atom @ (Expr::Lit(_) | Expr::Path(_)) => quote!(#atom),
                    _ => quote!((#delta)),
                };
                (previous, quote!(#from #undo #delta))
            }
            _ => return None,
        };
        if func.vars[previous].is_cell() {
            return None;
        }
        chain.push(Undone {
            var: previous,
            point,
            value,
        });
        current = previous;
    }
    Some(Counter {
        loop_id: l.id,
        cell: carried.cell,
        exit,
        running,
        entry: carried.entry,
        chain,
        needs,
        inner,
    })
}

/// The variable `rhs` copies: `a`, as an operand or as integer tokens.
fn copy_of(func: &Func, rhs: &Rhs) -> Option<VarId> {
    match rhs {
        Rhs::Use(Operand::Var(v)) => Some(*v),
        Rhs::Use(Operand::Const(c)) => {
            path_var(func, &syn::parse2::<Expr>(c.tokens.clone()).ok()?, &c.uses)
        }
        _ => None,
    }
}

/// The variable among `uses` that `expr` (parenthesized or not) names.
fn path_var(func: &Func, expr: &Expr, uses: &[VarId]) -> Option<VarId> {
    match strip(expr) {
        Expr::Path(p) if p.qself.is_none() => {
            let ident = p.path.get_ident()?;
            uses.iter().copied().find(|u| func.vars[*u].ident == *ident)
        }
        _ => None,
    }
}

/// `a + δ`, `δ + a` or `a - δ` where `a` is one of the constant's
/// variables: `a`, the operator that undoes the step, and `δ`.
fn step(func: &Func, c: &crate::ir::Const) -> Option<(VarId, TokenStream, Expr)> {
    let expr = syn::parse2::<Expr>(c.tokens.clone()).ok()?;
    let Expr::Binary(binary) = strip(&expr) else {
        return None;
    };
    let var_of = |e: &Expr| path_var(func, e, &c.uses);
    let mentions = |e: &Expr, v: VarId| {
        let name = func.vars[v].ident.to_string();
        quote::ToTokens::to_token_stream(e)
            .into_iter()
            .any(|t| t.to_string() == name)
    };
    let (left, right) = (&*binary.left, &*binary.right);
    let (previous, undo, delta) = match binary.op {
        BinOp::Add(_) => match (var_of(left), var_of(right)) {
            (Some(a), _) if !mentions(right, a) => (a, quote!(-), right.clone()),
            (_, Some(a)) if !mentions(left, a) => (a, quote!(-), left.clone()),
            _ => return None,
        },
        BinOp::Sub(_) => match var_of(left) {
            Some(a) if !mentions(right, a) => (a, quote!(+), right.clone()),
            _ => return None,
        },
        _ => return None,
    };
    Some((previous, undo, delta))
}

fn strip(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        e => e,
    }
}

/// The variables defined in `block` and the blocks nested in it.
fn defined_in(block: &Block) -> HashSet<VarId> {
    let mut defined = HashSet::new();
    block.walk(0, &mut |s, _| match s {
        Stmt::Let { var, .. } => {
            defined.insert(*var);
        }
        Stmt::Loop(l) => {
            if let Header::Range { index, .. } = &l.header {
                defined.insert(*index);
            }
        }
        _ => {}
    });
    defined
}

/// The variables certainly of a primitive integer type: parameters
/// declared so, indices of integer ranges, and locals defined from
/// integers by integer arithmetic (to a fixed point).
pub fn integers(func: &Func) -> HashSet<VarId> {
    let mut integers: HashSet<VarId> = (0..func.vars.len())
        .filter(|v| func.vars[*v].integer)
        .collect();
    loop {
        let before = integers.len();
        func.body.walk(0, &mut |s, _| match s {
            Stmt::Let {
                var,
                init: Some(Rhs::Use(operand)),
                ..
            } if !integers.contains(var) => {
                let integer = match operand {
                    Operand::Var(v) => integers.contains(v),
                    Operand::Const(c) => syn::parse2::<Expr>(c.tokens.clone())
                        .is_ok_and(|e| integer_expr(func, &integers, &e, &c.uses)),
                };
                if integer {
                    integers.insert(*var);
                }
            }
            Stmt::Loop(Loop {
                header: Header::Range { index, range },
                ..
            }) if !integers.contains(index)
                && syn::parse2::<Expr>(range.tokens.clone())
                    .is_ok_and(|e| integer_range(func, &integers, &e, &range.uses)) =>
            {
                integers.insert(*index);
            }
            _ => {}
        });
        if integers.len() == before {
            return integers;
        }
    }
}

/// `a..b`, `(a..=b).rev()`, `(a..b).step_by(k)` over integers.
fn integer_range(func: &Func, integers: &HashSet<VarId>, expr: &Expr, uses: &[VarId]) -> bool {
    match strip(expr) {
        Expr::Range(r) => r
            .start
            .iter()
            .chain(r.end.iter())
            .any(|e| integer_expr(func, integers, e, uses)),
        Expr::MethodCall(m)
            if ["rev", "step_by", "skip", "take"].contains(&&*m.method.to_string()) =>
        {
            integer_range(func, integers, &m.receiver, uses)
        }
        _ => false,
    }
}

/// An expression certainly of a primitive integer type: integer literals,
/// integer variables (`uses` names them), casts to an integer type,
/// `slice.len()`, and arithmetic and `min`/`max` of those.
fn integer_expr(func: &Func, integers: &HashSet<VarId>, expr: &Expr, uses: &[VarId]) -> bool {
    let recurse = |e: &Expr| integer_expr(func, integers, e, uses);
    match strip(expr) {
        Expr::Lit(lit) => matches!(lit.lit, syn::Lit::Int(_)),
        Expr::Path(p) => {
            p.qself.is_none()
                && p.path.get_ident().is_some_and(|ident| {
                    uses.iter()
                        .any(|u| func.vars[*u].ident == *ident && integers.contains(u))
                })
        }
        Expr::Binary(b) => match b.op {
            BinOp::Add(_)
            | BinOp::Sub(_)
            | BinOp::Mul(_)
            | BinOp::Div(_)
            | BinOp::Rem(_)
            | BinOp::BitAnd(_)
            | BinOp::BitOr(_)
            | BinOp::BitXor(_) => recurse(&b.left) && recurse(&b.right),
            BinOp::Shl(_) | BinOp::Shr(_) => recurse(&b.left),
            _ => false,
        },
        Expr::Unary(u) => matches!(u.op, syn::UnOp::Neg(_)) && recurse(&u.expr),
        Expr::Cast(c) => match &*c.ty {
            syn::Type::Path(p) => {
                p.qself.is_none()
                    && p.path.get_ident().is_some_and(|i| {
                        crate::signature::INTEGER_TYPES.contains(&i.to_string().as_str())
                    })
            }
            _ => false,
        },
        Expr::MethodCall(m) => match m.method.to_string().as_str() {
            "len" if m.args.is_empty() => match strip(&m.receiver) {
                // a float array of the function's, or a constant's (`KNOTS`:
                // not a variable of the function, an array or slice item)
                Expr::Path(p) => p.path.get_ident().is_some_and(|ident| {
                    let mut variables = uses.iter().filter(|u| func.vars[**u].ident == *ident);
                    match variables.next() {
                        Some(u) => func.vars[*u].kind == crate::ir::Kind::FloatArray,
                        None => ident.to_string().chars().all(|c| !c.is_lowercase()),
                    }
                }),
                _ => false,
            },
            "min" | "max" => recurse(&m.receiver) && m.args.iter().all(recurse),
            _ => false,
        },
        _ => false,
    }
}
