//! Activity analysis: which variables need an adjoint.
//!
//! A variable is *varied* when its value depends, to first order, on an
//! active parameter, and *useful* when the returned value depends on it. Only
//! variables that are both get an adjoint in the reverse sweep; everything
//! else is computed once, in the forward sweep, and never touched again.

use crate::ir::{Func, Kind, Operand, Origin, Rhs, Stmt, VarId};

/// The result of the analysis, indexed by [`VarId`].
pub struct Activity {
    varied: Vec<bool>,
    useful: Vec<bool>,
}

impl Activity {
    /// Does `var` carry a derivative the reverse sweep must propagate?
    pub fn needs_adjoint(&self, var: VarId) -> bool {
        self.varied[var] && self.useful[var]
    }
}

/// Runs both analyses over `func`.
pub fn analyze(func: &Func) -> Activity {
    let n = func.vars.len();
    let mut varied = vec![false; n];
    for (id, var) in func.vars.iter().enumerate() {
        if let Origin::Param { active: true, .. } = var.origin {
            varied[id] = var.kind != Kind::Other;
        }
    }
    // Forward: a definition is varied when an operand it depends on is.
    // (One pass suffices for straight-line code; loops will iterate this to
    // a fixed point.)
    for stmt in &func.body.stmts {
        if let Stmt::Let {
            var,
            init: Some(rhs),
            ..
        } = stmt
        {
            varied[*var] = rhs_is_varied(rhs, &varied);
        }
    }
    // Backward: a varied operand of a useful definition is useful.
    let mut useful = vec![false; n];
    for stmt in func.body.stmts.iter().rev() {
        match stmt {
            Stmt::Return {
                value: Operand::Var(v),
                ..
            } => useful[*v] = true,
            Stmt::Let {
                var,
                init: Some(rhs),
                ..
            } if useful[*var] && varied[*var] => match rhs {
                Rhs::Load { array, .. } => useful[*array] = true,
                _ => {
                    for op in rhs.operands() {
                        if let Operand::Var(v) = op {
                            useful[*v] = true;
                        }
                    }
                }
            },
            _ => {}
        }
    }
    Activity { varied, useful }
}

fn rhs_is_varied(rhs: &Rhs, varied: &[bool]) -> bool {
    match rhs {
        Rhs::Prim { prim, .. } if prim.zero_derivative => false,
        Rhs::Load { array, .. } => varied[*array],
        _ => rhs
            .operands()
            .iter()
            .any(|op| matches!(op, Operand::Var(v) if varied[*v])),
    }
}
