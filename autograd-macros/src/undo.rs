//! Which stores into local arrays need an undo entry.
//!
//! The reverse sweep replays blocks, so a replayed load must see the array
//! as it was when the load first ran. By default every store saves the
//! value it overwrites on the array's undo tape, and the reverse rewinds
//! the tape before each replay (see `emit/reverse.rs`). That bookkeeping is most of
//! the cost of a loop that fills a buffer (`h[j] = a.max(0.0)` in an MLP
//! layer): a push per store, a mark per iteration, a pop per reverse step.
//!
//! It is not needed for an array that is *written, then read*: within each
//! run of the block that declares it, every store comes before every read,
//! and no loop or branch holds both a store and a read. Then, at every
//! point of the reverse sweep where a read is replayed, all of the array's
//! stores have run and none is undone, which is exactly the state the read
//! first saw; and replaying a store writes again the value it wrote (the
//! replay recomputes it from the same inputs). Such arrays skip the undo
//! tape: their stores are plain assignments and the reverse of a store
//! recomputes its index instead of popping it.
//!
//! A load at the top level of the function body is not such a read: it
//! runs once, and the reverse sweep reads the value it bound (in scope to
//! the end of the body), never the array again. So an array the body's
//! straight-line code fills and reads in turn (`y[1] = (b[1] - l[3] *
//! y[0]) / l[4]`, a 3×3 solve written out) needs no undo tape either.

use crate::ir::{
    ArrayInit, Block, CallArg, Callee, Func, Header, Kind, Operand, Origin, Rhs, Stmt, VarId,
};
use std::collections::{HashMap, HashSet};

/// The local arrays whose stores need no undo entry.
pub fn write_before_read(func: &Func) -> HashSet<VarId> {
    let mut scan = Scan::default();
    scan.block(&func.body);
    let mut arrays = HashSet::new();
    for (array, path) in &scan.declared {
        let var = &func.vars[*array];
        if var.kind != Kind::FloatArray || var.origin != Origin::Local {
            continue;
        }
        let stores = scan.stores.get(array).map(Vec::as_slice).unwrap_or(&[]);
        let reads = scan.reads.get(array).map(Vec::as_slice).unwrap_or(&[]);
        let last_store = stores.iter().map(|e| e.order).max();
        let first_read = reads.iter().map(|e| e.order).min();
        let ordered = match (last_store, first_read) {
            (Some(store), Some(read)) => store < read,
            _ => true,
        };
        // The construct directly inside the declaring block that holds an
        // event; a construct holding a store and a read runs them in turn.
        let depth = path.len();
        let shared = stores.iter().any(|s| {
            let Some(construct) = s.path.get(depth) else {
                return false;
            };
            reads.iter().any(|r| r.path.get(depth) == Some(construct))
        });
        if ordered && !shared {
            arrays.insert(*array);
        }
    }
    arrays
}

/// A store or read of an array: when (program order) and where (the
/// constructs around it, outermost first).
struct Event {
    order: usize,
    path: Vec<usize>,
}

#[derive(Default)]
struct Scan {
    order: usize,
    path: Vec<usize>,
    next_construct: usize,
    declared: Vec<(VarId, Vec<usize>)>,
    stores: HashMap<VarId, Vec<Event>>,
    reads: HashMap<VarId, Vec<Event>>,
}

impl Scan {
    fn event(&mut self, into: fn(&mut Scan) -> &mut HashMap<VarId, Vec<Event>>, var: VarId) {
        self.order += 1;
        let event = Event {
            order: self.order,
            path: self.path.clone(),
        };
        into(self).entry(var).or_default().push(event);
    }

    fn read(&mut self, var: VarId) {
        self.event(|s| &mut s.reads, var);
    }

    fn reads(&mut self, vars: &[VarId]) {
        for &var in vars {
            self.read(var);
        }
    }

    fn operand(&mut self, op: &Operand) {
        match op {
            Operand::Const(c) => self.reads(&c.uses),
            Operand::Var(v) => self.read(*v),
        }
    }

    fn construct(&mut self, blocks: &[&Block]) {
        self.next_construct += 1;
        self.path.push(self.next_construct);
        for block in blocks {
            self.block(block);
        }
        self.path.pop();
    }

    fn block(&mut self, block: &Block) {
        for stmt in &block.stmts {
            match stmt {
                Stmt::Let { var, init, .. } => {
                    if let Some(rhs) = init {
                        self.rhs(rhs);
                    }
                    if let Some(Rhs::Array(_)) = init {
                        self.declared.push((*var, self.path.clone()));
                    }
                }
                Stmt::Update { value, .. } => self.operand(value),
                Stmt::Store {
                    array,
                    index,
                    value,
                } => {
                    self.reads(&index.uses);
                    self.operand(value);
                    self.event(|s| &mut s.stores, *array);
                }
                Stmt::Opaque { .. } | Stmt::Jump(_) => {}
                Stmt::If {
                    cond, then_, else_, ..
                } => {
                    self.reads(&cond.uses);
                    self.construct(&[then_, else_]);
                }
                Stmt::Loop(l) => {
                    if let Header::Range { range, .. } = &l.header {
                        self.reads(&range.uses);
                    }
                    self.construct(&[&l.body]);
                }
                Stmt::Return { value, .. } => self.operand(value),
            }
        }
    }

    fn rhs(&mut self, rhs: &Rhs) {
        match rhs {
            Rhs::Use(op) => self.operand(op),
            Rhs::Prim { args, .. } => args.iter().for_each(|a| self.operand(a)),
            Rhs::Load { array, index } => {
                self.reads(&index.uses);
                // (a load at the top level of the function body runs once,
                // and the reverse sweep reads the value it bound, not the
                // array: the straight-line code of a nest written out,
                // `lower/unroll.rs`)
                if !self.path.is_empty() {
                    self.read(*array);
                }
            }
            Rhs::Array(ArrayInit::Fill { value, .. }) => self.reads(&value.uses),
            Rhs::Array(ArrayInit::List { items, .. }) => items.iter().for_each(|i| self.operand(i)),
            Rhs::Array(ArrayInit::Copy { source, .. }) => self.read(*source),
            Rhs::Call { callee, args } => {
                if let Callee::Method { receiver, .. } = callee {
                    self.reads(&receiver.uses);
                }
                for arg in args {
                    match arg {
                        CallArg::Float(op) => self.operand(op),
                        CallArg::Array { array, range, .. } => {
                            if let Some(range) = range {
                                self.reads(&range.uses);
                            }
                            self.read(*array);
                        }
                        CallArg::Const(c) => self.reads(&c.uses),
                    }
                }
            }
        }
    }
}
