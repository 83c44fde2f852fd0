//! Loads of an element whose value is already known become copies of that
//! value: the second `let` of `q[j] * q[j]` (`x[i]` in `x[i] * (1.0 -
//! x[i])`) is `Rhs::Use` of the first load, and a load of an element the
//! function has just stored, in a loop nested deeper than the store
//! (`y[j] = y[j] / l[jj];` then `y[j]` in the loop after it), is `Rhs::Use`
//! of the stored value (`Known::loops` says why not in the store's own
//! block). The value is the same
//! (nothing in between may store into that element, and the index reads
//! no cell), so `f` computes what it did, and the reverse sweep has one
//! value to keep (a recorded nest records it once) and one adjoint to
//! update.
//!
//! What is known before a loop or an `if` is known inside it, when nothing
//! in it may store into the element: a column-oriented solve's inner loop
//! `for i in j + 1..n { y[i] -= l[i * n + j] * y[j]; }` stores only at `i`,
//! which its range keeps from `j` (`provably_apart`), so its `y[j]` is the
//! value stored before the loop — one value for the whole loop instead of a
//! load an iteration, which a recorded nest would have pushed and popped
//! at every iteration, and whose adjoint the reverse would have added into
//! `d_y[j]` in memory at every iteration.

use crate::ir::{Block, Const, Func, Header, Operand, Rhs, Stmt, VarId};

/// Shares repeated loads, and forwards stored values, in every block of
/// `func`.
pub fn share_loads(func: &mut Func) {
    let mut facts = Facts {
        cells: func.vars.iter().map(|v| v.is_cell()).collect(),
        idents: func.vars.iter().map(|v| v.ident.to_string()).collect(),
        ranges: Vec::new(),
    };
    share_in(&mut func.body, &mut Vec::new(), &mut facts, 0);
}

/// An element whose value is known: `array[index]` holds `value`.
#[derive(Clone)]
struct Known {
    array: VarId,
    /// The index as written (names rewritten).
    index: String,
    value: Operand,
    /// Where it became known, in loops: a stored value is read instead of
    /// the element only by loads in loops nested deeper (once an iteration
    /// there). In its own block the load stays: a recorded nest's reverse
    /// reads the element again where it would recompute the stored value
    /// from its operands (the mixture's `xcentered[j]`, 2% more
    /// instructions read through its value).
    loops: usize,
    stored: bool,
}

/// What is known about the variables while walking the body.
struct Facts {
    cells: Vec<bool>,
    idents: Vec<String>,
    /// The loops around the statement being walked: each one's index and
    /// the two bounds of its range `lo..hi`, when it is written so.
    ranges: Vec<(VarId, syn::Expr, syn::Expr)>,
}

impl Facts {
    fn reads_cell(&self, index: &Const) -> bool {
        index.uses.iter().any(|u| self.cells[*u])
    }

    /// Whether a store at `store` can never reach the element at `known`
    /// (an index of variables from outside the loops the store is in):
    /// two different integer literals, or the index of a loop around the
    /// store whose range `lo..hi` leaves `known` out (`lo` is `known + k`,
    /// `k >= 1`; `hi` is `known` or `known - k`).
    fn provably_apart(&self, known: &str, store: &Const) -> bool {
        let literal = |text: &str| text.parse::<u128>().ok();
        if let (Some(a), Some(b)) = (literal(known), literal(&store.tokens.to_string())) {
            return a != b;
        }
        let [index] = store.uses[..] else {
            return false;
        };
        if store.tokens.to_string() != self.idents[index] {
            return false;
        }
        let Some((_, lo, hi)) = self.ranges.iter().rev().find(|(i, _, _)| *i == index) else {
            return false;
        };
        let is_known = |e: &syn::Expr| quote::quote!(#e).to_string() == known;
        // `known + k` or `known - k` with a literal `k >= 1`
        let offset = |e: &syn::Expr, add: bool| match e {
            syn::Expr::Binary(b) => {
                let op = matches!(
                    (&b.op, add),
                    (syn::BinOp::Add(_), true) | (syn::BinOp::Sub(_), false)
                );
                op && is_known(&b.left)
                    && matches!(&*b.right, syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(k), .. })
                        if k.base10_parse::<u128>().is_ok_and(|k| k >= 1))
            }
            _ => false,
        };
        offset(lo, true) || is_known(hi) || offset(hi, false)
    }

    /// Whether anything in `block` may write into `known`'s element: a
    /// store into its array that is not provably apart from it, or a call
    /// given the array.
    fn may_write(&mut self, block: &Block, known: &Known) -> bool {
        block.stmts.iter().any(|stmt| match stmt {
            Stmt::Store { array, index, .. } => {
                *array == known.array && !self.provably_apart(&known.index, index)
            }
            Stmt::Let {
                init: Some(rhs), ..
            } => rhs.arrays().contains(&known.array),
            Stmt::If { then_, else_, .. } => {
                self.may_write(then_, known) || self.may_write(else_, known)
            }
            Stmt::Loop(l) => {
                let pushed = self.enter(l);
                let writes = self.may_write(&l.body, known);
                if pushed {
                    self.ranges.pop();
                }
                writes
            }
            _ => false,
        })
    }

    /// Pushes the range of loop `l` when it is `lo..hi`; whether it did.
    fn enter(&mut self, l: &crate::ir::Loop) -> bool {
        let Header::Range { index, range } = &l.header else {
            return false;
        };
        match crate::record::half_open(&range.tokens) {
            Some((lo, hi)) => {
                self.ranges.push((*index, lo, hi));
                true
            }
            None => false,
        }
    }
}

fn share_in(block: &mut Block, known: &mut Vec<Known>, facts: &mut Facts, loops: usize) {
    for stmt in &mut block.stmts {
        match stmt {
            Stmt::Let {
                var,
                init: Some(rhs),
                ..
            } => {
                if let Rhs::Load { array, index } = rhs {
                    if facts.reads_cell(index) {
                        continue;
                    }
                    let text = index.tokens.to_string();
                    let usable = |k: &&Known| !k.stored || k.loops < loops;
                    match known
                        .iter()
                        .filter(usable)
                        .find(|k| k.array == *array && k.index == text)
                    {
                        Some(k) => *rhs = Rhs::Use(k.value.clone()),
                        None => known.push(Known {
                            array: *array,
                            index: text,
                            value: Operand::Var(*var),
                            loops,
                            stored: false,
                        }),
                    }
                } else {
                    // a call may write into an array it is given
                    let arrays = rhs.arrays();
                    known.retain(|k| !arrays.contains(&k.array));
                }
            }
            Stmt::Store {
                array,
                index,
                value,
            } => {
                let array = *array;
                known.retain(|k| k.array != array || facts.provably_apart(&k.index, index));
                // the element now holds the value stored (a value that
                // stays what it is: not a cell, which a later statement
                // may assign)
                let lasting = match value {
                    Operand::Var(v) => !facts.cells[*v],
                    Operand::Const(_) => false,
                };
                if lasting && !facts.reads_cell(index) {
                    known.push(Known {
                        array,
                        index: index.tokens.to_string(),
                        value: value.clone(),
                        loops,
                        stored: true,
                    });
                }
            }
            Stmt::If { then_, else_, .. } => {
                // what holds before the `if` holds in each branch until it
                // stores; after it, what neither branch may have changed
                for branch in [&mut *then_, &mut *else_] {
                    share_in(branch, &mut known.clone(), facts, loops);
                }
                known.retain(|k| !facts.may_write(then_, k) && !facts.may_write(else_, k));
            }
            Stmt::Loop(l) => {
                // what no iteration may change holds in every iteration and
                // after the loop
                let pushed = facts.enter(l);
                let mut kept = Vec::new();
                for k in known.drain(..) {
                    if !facts.may_write(&l.body, &k) {
                        kept.push(k);
                    }
                }
                *known = kept;
                share_in(&mut l.body, &mut known.clone(), facts, loops + 1);
                if pushed {
                    facts.ranges.pop();
                }
            }
            // (opaque code cannot write into a float array: only `Store`s do)
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::pipeline_tests::lowered;

    /// The IR listing's lines that load from `y`.
    fn loads_of_y(src: &str) -> Vec<String> {
        let func = lowered(src, "").unwrap_or_else(|e| panic!("errors: {e}"));
        func.dump()
            .lines()
            .filter(|l| l.contains("load(y,"))
            .map(|l| l.trim().to_string())
            .collect()
    }

    #[test]
    fn a_stored_element_is_read_as_its_value_in_a_loop_that_stores_elsewhere() {
        // `y[j]` is loaded once, to divide it: the inner loop reads the
        // quotient, and its own `y[i]`
        let loads = loads_of_y(
            "fn f(l: &[f64], b: &[f64], n: usize) -> f64 {
                let mut y = b.to_vec();
                for j in 0..n {
                    y[j] /= l[j * n + j];
                    for i in j + 1..n { y[i] -= l[i * n + j] * y[j]; }
                }
                y[0]
            }",
        );
        assert_eq!(loads.len(), 3, "{loads:?}");
        assert!(loads[0].ends_with("load(y, j)"), "{loads:?}");
        assert!(loads[1].ends_with("load(y, i)"), "{loads:?}");
    }

    #[test]
    fn a_loop_whose_range_may_reach_the_element_loads_it() {
        for range in ["j..n", "0..j + 1", "0..n"] {
            let loads = loads_of_y(&format!(
                "fn f(l: &[f64], b: &[f64], n: usize) -> f64 {{
                    let mut y = b.to_vec();
                    for j in 0..n {{
                        y[j] /= l[j * n + j];
                        for i in {range} {{ y[i] -= l[i * n + j] * y[j]; }}
                    }}
                    y[0]
                }}"
            ));
            assert_eq!(loads.len(), 4, "{range}: {loads:?}");
        }
    }

    #[test]
    fn a_branch_that_may_store_ends_what_is_known() {
        let loads = loads_of_y(
            "fn f(x: f64, k: usize) -> f64 {
                let mut y = [0.0; 3];
                y[1] = x * x;
                if x > 0.0 { y[k] = x; }
                let a = y[1];
                y[0] = a;
                a * y[0] + y[1]
            }",
        );
        // `y[1]` after the branch is loaded again, and the last `y[1]` is
        // that load; `y[0]`, stored in the same block, is loaded too
        assert_eq!(loads.len(), 2, "{loads:?}");
        assert!(loads[0].ends_with("load(y, 1)"), "{loads:?}");
        assert!(loads[1].ends_with("load(y, 0)"), "{loads:?}");
    }
}
