//! Loads of one element read twice in a block (`q[j] * q[j]`, `x[i]` in
//! `x[i] * (1.0 - x[i])`) become one load and a copy: the second `let` is
//! `Rhs::Use` of the first. The value is the same (nothing between stores
//! into the array, and the index reads no cell), so `f` computes what it
//! did, and the reverse sweep has one value to keep (a recorded nest
//! records it once) and one adjoint update to make.

use crate::ir::{Block, Func, Operand, Rhs, Stmt, VarId};

/// Shares repeated loads in every block of `func`.
pub fn share_loads(func: &mut Func) {
    let cells: Vec<bool> = func.vars.iter().map(|v| v.is_cell()).collect();
    share_in(&mut func.body, &cells);
}

fn share_in(block: &mut Block, cells: &[bool]) {
    // (array, index as written) → the variable of the first load
    let mut seen: Vec<((VarId, String), VarId)> = Vec::new();
    for stmt in &mut block.stmts {
        match stmt {
            Stmt::Let {
                var,
                init: Some(rhs),
                ..
            } => {
                if let Rhs::Load { array, index } = rhs {
                    if index.uses.iter().any(|u| cells[*u]) {
                        continue;
                    }
                    let key = (*array, index.tokens.to_string());
                    match seen.iter().find(|(k, _)| *k == key) {
                        Some((_, first)) => *rhs = Rhs::Use(Operand::Var(*first)),
                        None => seen.push((key, *var)),
                    }
                } else {
                    // a call may write into an array it is given
                    let arrays = rhs.arrays();
                    seen.retain(|((array, _), _)| !arrays.contains(array));
                }
            }
            Stmt::Store { array, .. } => {
                let array = *array;
                seen.retain(|((a, _), _)| *a != array);
            }
            Stmt::If { then_, else_, .. } => {
                let mut stored = Vec::new();
                for branch in [&*then_, &*else_] {
                    branch.walk(0, &mut |s, _| collect_written(s, &mut stored));
                }
                seen.retain(|((a, _), _)| !stored.contains(a));
                share_in(then_, cells);
                share_in(else_, cells);
            }
            Stmt::Loop(l) => {
                let mut stored = Vec::new();
                l.body.walk(0, &mut |s, _| collect_written(s, &mut stored));
                seen.retain(|((a, _), _)| !stored.contains(a));
                share_in(&mut l.body, cells);
            }
            // (opaque code cannot write into a float array: only `Store`s do)
            _ => {}
        }
    }
}

/// The arrays `stmt` may write: stored into, or given to a call.
fn collect_written(stmt: &Stmt, written: &mut Vec<VarId>) {
    match stmt {
        Stmt::Store { array, .. } => written.push(*array),
        Stmt::Let {
            init: Some(rhs), ..
        } => written.extend(rhs.arrays()),
        _ => {}
    }
}
