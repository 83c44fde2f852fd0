//! The generator: random programs inside API.md §1's supported subset,
//! deterministic from `(seed, index)`.
//!
//! It keeps an environment of what is in scope (float locals, buffers with
//! their exact lengths, integers with their value ranges) so that what it
//! writes is valid Rust that stays finite: every index is provably in
//! bounds, every loop has a small trip count, every `ln`/`sqrt`/`acos` gets
//! an argument inside its domain, `exp` an argument bounded by a `tanh`.
//! Names come from a pool that mixes ordinary names with ones that look
//! like what a macro generates (`t0`, `d_x`, `__ad_t3`, ...), because
//! API.md promises that no name a user may choose changes the result.

use super::ast::*;
use super::render::{chain_positions, is_typed};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

// Nests over buffers (`RANDOM_PROGRAMS_NESTS`): a child module, so that it
// extends `Gen` with the same private environment.
#[path = "nests.rs"]
mod nests;
pub(crate) use nests::{is_nest, nests_only};

/// Local names: ordinary ones and ones that look generated.
const LOCAL_NAMES: &[&str] = &[
    "t0", "t1", "t2", "t17", "d_x", "d_w", "d_out", "d_y", "d_a", "tmp", "value", "i", "j", "k",
    "__ad_t3", "__ad_d_x", "__ad_tmp", "x__1", "cell", "seed", "n0", "acc", "s", "u", "v", "out",
    "grad", "adj", "prev", "sum", "result", "e0", "c", "r",
];

/// Parameter names (mostly ordinary, some that look generated).
/// (The first twelve are the plain ones.)
const PARAM_NAMES: &[&str] = &[
    "x", "y", "z", "w", "xs", "ys", "a", "b", "p", "q", "m", "v0", "t0", "value", "tmp", "__ad_p",
];

/// Parameter names that are also the names API.md gives the adjoint's
/// arguments (`d_out`, `d_<p>`): rarer, so they do not hide other bugs.
const CLASHING_PARAM_NAMES: &[&str] = &["d_out", "d_x", "d_w"];

const CONSTS: &[&str] = &[
    "std::f64::consts::PI",
    "std::f64::consts::E",
    "std::f64::consts::FRAC_1_SQRT_2",
    "core::f64::consts::LN_2",
    "f64::EPSILON",
    "SCALE",
    "OFFSET",
];

/// Constructs a run can leave out with `RANDOM_PROGRAMS_AVOID=a,b` (e.g.
/// once the lead rules one outside the subset, or to see what else fails
/// while a known bug is being fixed): `literal-args` (`g([a, b])`,
/// `g(&[a, b])`), `clashing-params` (parameters named `d_out`, `d_x`),
/// `cond-blocks` (blocks with statements inside conditions),
/// `generated-names` (locals and parameters named like generated ones:
/// `t0`, `d_x`, `__ad_t3`, ...); and the idiomatic Rust of API.md §1b:
/// `iterators` (chains, `for` over chains, `iter_mut`), `closures` (closure
/// locals and the closures of `map`/`filter`/`fold`), `windows` (`windows`,
/// `chunks`, `chunks_exact` sources), `match`, `destructuring` (`let (a, b)
/// = ..`, `let [x1, x2] = *x`, `sin_cos`, tuple locals), `get`
/// (`x.get(i).copied().unwrap_or(v)`), `extremes` (`.reduce(f64::max)`,
/// `.max_by(|a, b| a.total_cmp(b))`, `min`, then `unwrap_or`), `argmax`
/// (`max_by`/`min_by` of `enumerate()`'s pairs), `while-stages`
/// (`take_while`, `skip_while`), `flat-map` (`(a..b).flat_map(|i| (i..b)
/// .map(move |j| e)).sum::<f64>()`), `ref-patterns` (a `filter`'s, `take_while`'s
/// or `find`'s tuple pattern without `&`, `|(i, v)| { let i = *i; .. }`),
/// `filter-map` (`.filter_map(|v| if c {
/// Some(e) } else { None })`, `(c).then(|| e)`), `swaps` (`std::mem::swap(&mut a, &mut b)`
/// and `(a, b) = (b, a)` of two float locals), `find-map` (`.find(p).map(g).unwrap_or(v)`,
/// `.map_or(v, g)`, `.filter(p).next()` / `.last()` for the `find`), `after-pair` (`rev`, `skip`, `take`,
/// `step_by` after an `enumerate` or a `zip`), `filter-enumerate`
/// (`.filter(..).enumerate()`, the position among what passed), `for-each`
/// (`chain.for_each(|v| { .. });` for a `for` over a chain), `list-forms`
/// (a vector helper's tail as a `collect()` or stores into zeros),
/// `if-let` (`if let Some(&g) = xs.get(i) { g } else { v }`), `option-map`
/// (`xs.get(i).map(|g| *g).unwrap_or(v)`), `tuple-match`
/// (`match (a, b) { (p, q) => .., _ => .. }`), `pushes` (a local vector
/// filled by a loop of pushes after `Vec::new()`), `split-at` (`let (lo, hi)
/// = buf.split_at(k);` of a read-only buffer); `counters` (an integer a loop nest
/// steps, `k += j`, read as `x[k % n]` and `k as f64`); `stepped-whiles`
/// (`while k < L { ..; k = k + (k + 1); }`, stepped last); `whole-arrays`
/// (`b = [x, y];` of a local array); `searches` (`let j =
/// buf.partition_point(|a| *a < t).min(n - 1);` of any float buffer,
/// `buf.sort_by(|a, b| a.total_cmp(b));` of a local one); `read-only-arrays` (`let b = [x, y];`
/// never written); `twin-loops` (a `for` over a range followed by another
/// over the same range with the same index, which the macro may fuse);
/// `nests` (functions that are nests over buffers, `nests.rs`: the mix of
/// before them, program for program); `local-len-bounds` (in nests, loops
/// bounded by a local buffer's `.len()`, `for j in 0..buf.len()`);
/// `nest-arrays` (in nests, arrays declared in the body of a nest's outer
/// loop: a buffer filled and read back per iteration, a `vec!` whose
/// length varies, an array literal only read, the array a vector-valued
/// helper returns, any of them in an `if`; and the time-stepping shape
/// carrying a state through them, `nests.rs`: the nests of before them,
/// program for program); `vector-helpers` (just the vector-valued helper,
/// `fn hv(y: &[f64; 2], p: &[f64]) -> [f64; 2]`, and its calls);
/// `scratch-buffers` (a buffer every iteration of a loop fills before
/// reading it, declared before the loop or inside it); `ping-pong` (two
/// local `Vec`s of one length a loop uses in turn, swapped after each
/// step, `std::mem::swap(&mut a, &mut b)`); `layers` (a `Vec` filled by a
/// loop over a slice's length with a costly function of each index,
/// `h[j] = (e).tanh()`, then read); `fields` (integer expressions reading
/// `LIMITS.xs`, a constant struct's field named like a local or a
/// parameter); `row-closures` (`let rows = |k: usize| &xs[k * s..k * s +
/// len];`, its rows given to calls, `h(rows(i), w)`).
fn avoid(feature: &str) -> bool {
    static AVOID: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    AVOID
        .get_or_init(|| {
            std::env::var("RANDOM_PROGRAMS_AVOID")
                .unwrap_or_default()
                .split(',')
                .map(|s| s.trim().to_string())
                .collect()
        })
        .iter()
        .any(|a| a == feature)
}

/// Local names when `generated-names` is avoided.
const PLAIN_LOCAL_NAMES: &[&str] = &[
    "tmp", "value", "i", "j", "k", "cell", "seed", "acc", "s", "u", "v", "out", "grad", "adj",
    "prev", "sum", "result", "c", "r",
];

#[derive(Clone, Copy, Debug, PartialEq)]
enum BufClass {
    /// `&[f64]` parameter
    Slice,
    /// `[f64; N]` parameter (by value)
    Array,
    /// `&[f64; N]` parameter
    ArrayRef,
    /// `[f64; N]` local
    LocalArray,
    /// `Vec<f64>` local
    LocalVec,
}

#[derive(Clone, Debug)]
enum Kind {
    Float {
        mutable: bool,
        deref: bool,
    },
    Buf {
        len: usize,
        writable: bool,
        class: BufClass,
        /// A parameter not differentiated (`wrt`): constant data.
        inactive: bool,
    },
    Int {
        lo: usize,
        hi: usize,
    },
    /// A scalar parameter not differentiated.
    ConstFloat,
    /// A name that must not be read here (a mutable local while a closure
    /// that outlives the statement is written, the buffer of `iter_mut`).
    Hidden,
    /// A chunk of `chunks(k)` whose length varies (the last is shorter):
    /// only indexed below `len`.
    Chunk {
        len: usize,
    },
    /// `let [mut] p = (a, b);`
    Tuple {
        parts: usize,
        mutable: bool,
    },
    /// A local array of arrays (`Stmt::LetMat`).
    Mat {
        rows: usize,
        cols: usize,
        mutable: bool,
    },
    /// `let sq = |t: f64| ..;` (`by_ref`: `|t: &f64|`, called as `sq(&e)`)
    Closure {
        by_ref: bool,
    },
    /// `let rows = |k: usize| &xs[k * s..k * s + len];` (`ast::Rows`):
    /// `count` rows, of a parameter differentiated or not.
    Rows {
        len: usize,
        count: usize,
        inactive: bool,
    },
}

#[derive(Clone, Debug)]
struct Binding {
    id: usize,
    name: String,
    kind: Kind,
}

/// A helper's signature, as callers see it.
#[derive(Clone)]
struct Sig {
    name: String,
    params: Vec<Param>,
}

pub struct Gen {
    rng: StdRng,
    env: Vec<Binding>,
    next_id: usize,
    /// Bindings borrowed by an enclosing `for` (not writable inside it).
    frozen: Vec<usize>,
    /// Loops enclosing the current statement (for `break`/`continue`).
    loop_depth: usize,
    /// `break`/`continue` only in loops deeper than this (a `for_each`
    /// closure's body is at its level).
    jump_floor: usize,
    /// Inside a `for_each` closure: no `return`.
    no_return: usize,
    /// Statements left in the current function (keeps functions small).
    budget: usize,
    callable: Vec<Sig>,
    consts: Vec<(String, f64)>,
    /// Generating a condition or an index: blocks with statements there
    /// are refused by the macro (a documented limitation), so rare.
    in_cond: bool,
    /// `if` and block values nested around the current expression.
    value_depth: usize,
    /// Iterator chains nested around the current expression.
    chain_depth: usize,
    /// Conditions nested around the current expression: no closures
    /// (chains, closure calls) or `match` there (the macro refuses them).
    cond_depth: usize,
    /// Counters declared before the loop nest around the current statement,
    /// which it steps (`Stmt::Step`); their values are unbounded, so they
    /// are read only as `k % n` and `k as f64`.
    counters: Vec<String>,
    /// The index and its bounds of the last `for` over a range generated,
    /// for a twin loop right after it (`twin_for`).
    last_range_for: Option<(String, Kind)>,
    /// The stream twin loops are drawn from: the rest of a program is the
    /// one the seed gave before twins were generated (the regression tests
    /// name programs by seed and index).
    twin_rng: StdRng,
    /// Names the function being written refers to later by name (a nest's
    /// indices, sizes, accumulators and buffers): no local takes them, so
    /// none shadows them (`fresh_local`).
    reserved: Vec<String>,
    /// The stream the arrays declared in nests are drawn from (and written
    /// with, `nests.rs`): a nest without them is the one the seed gave
    /// before them.
    decl_rng: StdRng,
    /// The vector-valued helper nests may call (`hv`), written before `f`
    /// from `decl_rng`; in the program only if `f` calls it.
    vec_helper: Option<nests::VecHelper>,
    vec_helper_used: bool,
    /// The fields of `LIMITS` ([`Program::limits`]), and the stream that
    /// chooses them and where an integer expression reads one instead of
    /// what the main stream drew (`with_field`): a program with no field
    /// read is the one the seed gave before fields existed.
    limits: Vec<(String, usize)>,
    field_rng: StdRng,
    /// The stream that adds closures of rows and the calls given them
    /// (`rows_closure`, `slice_arg`): a program without them is the one
    /// the seed gave before they existed.
    rows_rng: StdRng,
}

impl Gen {
    pub fn new(seed: u64, index: usize) -> Self {
        // One stream per program: program `index` does not depend on how
        // many random numbers the earlier ones used.
        let mixed = seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        Gen {
            rng: StdRng::seed_from_u64(mixed),
            env: Vec::new(),
            next_id: 0,
            frozen: Vec::new(),
            loop_depth: 0,
            jump_floor: 0,
            no_return: 0,
            budget: 0,
            callable: Vec::new(),
            consts: Vec::new(),
            in_cond: false,
            value_depth: 0,
            chain_depth: 0,
            cond_depth: 0,
            counters: Vec::new(),
            last_range_for: None,
            twin_rng: StdRng::seed_from_u64(mixed ^ 0x7417_1005),
            reserved: Vec::new(),
            decl_rng: StdRng::seed_from_u64(mixed ^ 0xDEC1_A2ED),
            vec_helper: None,
            vec_helper_used: false,
            limits: Vec::new(),
            field_rng: StdRng::seed_from_u64(mixed ^ 0x00F1_E1D5),
            rows_rng: StdRng::seed_from_u64(mixed ^ 0x0520_0115),
        }
    }

    /// `LIMITS`' fields: none for a third of the programs (and with the
    /// `fields` construct avoided), else one for every name the generator
    /// gives parameters, locals, loop indices and sizes, valued 0 to 2.
    fn draw_limits(&mut self) -> Vec<(String, usize)> {
        if avoid("fields") || self.field_rng.gen_bool(1.0 / 3.0) {
            return Vec::new();
        }
        let mut names: Vec<&str> = Vec::new();
        let lists = [
            PARAM_NAMES,
            CLASHING_PARAM_NAMES,
            LOCAL_NAMES,
            nests::INDEX_NAMES,
            nests::SIZE_NAMES,
        ];
        for name in lists.into_iter().flatten() {
            if !names.contains(name) {
                names.push(name);
            }
        }
        names
            .into_iter()
            .map(|name| (name.to_string(), self.field_rng.gen_range(0..=2)))
            .collect()
    }

    /// `drawn`, an integer expression whose value lies in `[lo, hi]`, or,
    /// now and then, a field of `LIMITS` whose value does.
    fn with_field(
        &mut self,
        drawn: (IntExpr, usize, usize),
        lo: usize,
        hi: usize,
    ) -> (IntExpr, usize, usize) {
        if self.limits.is_empty() || !self.field_rng.gen_bool(0.3) {
            return drawn;
        }
        // (mostly a field named like a variable in sight: `xs[LIMITS.xs]`)
        let visible: Vec<String> = self.visible().into_iter().map(|b| b.name).collect();
        let fits = |named: bool| -> Vec<(String, usize)> {
            (self.limits.iter())
                .filter(|(name, v)| lo <= *v && *v <= hi && (!named || visible.contains(name)))
                .cloned()
                .collect()
        };
        let (named, any) = (fits(true), fits(false));
        let from = match named.is_empty() || self.field_rng.gen_bool(0.2) {
            true => any,
            false => named,
        };
        if from.is_empty() {
            return drawn;
        }
        let (name, v) = from[self.field_rng.gen_range(0..from.len())].clone();
        (IntExpr::Field(name, v), v, v)
    }

    /// The value of the field of `LIMITS` named `name`, if it has one of
    /// at most `max` and `field_rng` says to read it (half the time).
    fn field_named(&mut self, name: &str, max: usize) -> Option<usize> {
        let v = self.limits.iter().find(|(n, _)| n == name)?.1;
        (v <= max && self.field_rng.gen_bool(0.5)).then_some(v)
    }

    fn chance(&mut self, p: f64) -> bool {
        self.rng.gen_bool(p)
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.rng.gen_range(0..items.len())]
    }

    fn bind(&mut self, name: &str, kind: Kind) -> usize {
        self.next_id += 1;
        self.env.push(Binding {
            id: self.next_id,
            name: name.to_string(),
            kind,
        });
        self.next_id
    }

    /// The bindings currently visible (the newest of each name).
    fn visible(&self) -> Vec<Binding> {
        let mut out: Vec<Binding> = Vec::new();
        for b in self.env.iter().rev() {
            if !out.iter().any(|o| o.name == b.name) {
                out.push(b.clone());
            }
        }
        out
    }

    /// A nice literal: a short decimal in `[lo, hi]`.
    fn lit_value(&mut self, lo: f64, hi: f64) -> f64 {
        let v: f64 = self.rng.gen_range(lo..hi);
        (v * 4.0).round() / 4.0
    }

    fn lit(&mut self) -> Expr {
        let v = self.lit_value(0.25, 2.5);
        Expr::Lit(v, self.chance(0.1))
    }

    pub fn program(seed: u64, index: usize) -> Program {
        Gen::program_as(seed, index, nests::is_nest(seed, index))
    }

    /// Program `index` of batch `seed`, its `f` a nest over buffers or not
    /// (its helpers and constants are the same either way).
    pub fn program_as(seed: u64, index: usize, nest: bool) -> Program {
        let mut g = Gen::new(seed, index);
        g.limits = g.draw_limits();
        g.consts = vec![
            ("SCALE".to_string(), g.lit_value(0.25, 1.5)),
            ("OFFSET".to_string(), g.lit_value(0.25, 1.0)),
        ];
        let n_helpers = g.rng.gen_range(0..=2);
        let mut helpers = Vec::new();
        for h in 0..n_helpers {
            let f = g.func(&format!("h{h}"), true);
            g.callable.push(Sig {
                name: f.name.clone(),
                params: f.params.clone(),
            });
            helpers.push(f);
        }
        let main = if nest {
            g.prepare_vec_helper();
            g.nest_func("f")
        } else {
            g.func("f", false)
        };
        if g.vec_helper_used {
            helpers.extend(g.vec_helper.take().map(|h| h.func));
        }
        Program {
            seed,
            index,
            consts: g.consts.clone(),
            limits: g.limits.clone(),
            helpers,
            main,
        }
    }

    fn params(&mut self, helper: bool) -> Vec<Param> {
        let count = if helper {
            self.rng.gen_range(1..=3)
        } else {
            self.rng.gen_range(1..=4)
        };
        let mut params: Vec<Param> = Vec::new();
        while params.len() < count {
            let name = if self.chance(0.03) && !avoid("clashing-params") {
                self.pick(CLASHING_PARAM_NAMES).to_string()
            } else if avoid("generated-names") {
                self.pick(&PARAM_NAMES[..12]).to_string()
            } else {
                self.pick(PARAM_NAMES).to_string()
            };
            if params.iter().any(|p| p.name == name) {
                continue;
            }
            let ty = match self.rng.gen_range(0..10) {
                0..=3 => Ty::F64,
                4..=5 => Ty::Slice(self.rng.gen_range(1..=4)),
                6 => Ty::Array(self.rng.gen_range(1..=3)),
                7 => Ty::ArrayRef(self.rng.gen_range(1..=3)),
                _ => Ty::Usize(self.rng.gen_range(1..=3)),
            };
            let mutable = matches!(ty, Ty::Array(_)) && self.chance(0.3);
            params.push(Param {
                name,
                ty,
                active: ty.is_float(),
                mutable,
            });
        }
        if !params.iter().any(|p| p.ty.is_float()) {
            params[0].ty = Ty::F64;
            params[0].active = true;
        }
        params
    }

    fn func(&mut self, name: &str, helper: bool) -> Func {
        self.env.clear();
        self.frozen.clear();
        self.counters.clear();
        self.reserved.clear();
        self.loop_depth = 0;
        self.budget = if helper {
            self.rng.gen_range(1..=5)
        } else {
            self.rng.gen_range(3..=12)
        };
        let mut params = self.params(helper);
        let explicit_wrt = self.choose_wrt(&mut params);
        self.bind_params(&params);
        // (a closure of rows first, now and then, from `rows_rng`)
        let rows = match self.rows_rng.gen_bool(0.6) {
            true => self.rows_closure(),
            false => None,
        };
        let mut body = self.block(true, 0);
        if let Some(rows) = rows {
            body.stmts.insert(0, Stmt::LetRows(rows));
        }
        Func {
            name: name.to_string(),
            params,
            explicit_wrt,
            body,
        }
    }

    /// Sometimes `wrt(..)` a non-empty subset of the floats: whether the
    /// function names them (the others are then constants).
    fn choose_wrt(&mut self, params: &mut [Param]) -> bool {
        let floats: Vec<usize> = (0..params.len())
            .filter(|&i| params[i].ty.is_float())
            .collect();
        let explicit_wrt = self.chance(0.2);
        if explicit_wrt && floats.len() > 1 {
            let keep = floats[self.rng.gen_range(0..floats.len())];
            for &i in &floats {
                if i != keep && self.chance(0.5) {
                    params[i].active = false;
                }
            }
        }
        explicit_wrt
    }

    fn bind_params(&mut self, params: &[Param]) {
        for p in params {
            let kind = match p.ty {
                Ty::F64 if p.active => Kind::Float {
                    mutable: false,
                    deref: false,
                },
                Ty::F64 => Kind::ConstFloat,
                Ty::Usize(v) => Kind::Int { lo: v, hi: v },
                Ty::Slice(n) | Ty::Array(n) | Ty::ArrayRef(n) => Kind::Buf {
                    len: n,
                    writable: p.mutable,
                    class: match p.ty {
                        Ty::Slice(_) => BufClass::Slice,
                        Ty::Array(_) => BufClass::Array,
                        _ => BufClass::ArrayRef,
                    },
                    // (a `mut` array the body may write differentiated
                    // values into is no constant data: seed 1128520 #790
                    // gave one to a callee's parameter outside its `wrt`)
                    inactive: !p.active && !p.mutable,
                },
            };
            self.bind(&p.name, kind);
        }
    }

    /// A block: statements while the budget lasts, and a tail if `value`.
    fn block(&mut self, value: bool, depth: usize) -> Block {
        let mark = self.env.len();
        let mut stmts = Vec::new();
        let max = if depth == 0 { 6 } else { 3 };
        let count = self.rng.gen_range(if depth == 0 { 1 } else { 0 }..=max);
        for _ in 0..count {
            if self.budget == 0 {
                break;
            }
            self.budget -= 1;
            stmts.push(self.stmt(depth));
        }
        let tail = if value {
            Some(Box::new(self.tail()))
        } else {
            None
        };
        self.env.truncate(mark);
        Block { stmts, tail }
    }

    /// A function's value: an expression plus a few of the locals and
    /// buffer elements in scope, so that what the body computed matters.
    fn tail(&mut self) -> Expr {
        let mut e = self.expr(2);
        let mut terms = Vec::new();
        for b in self.visible() {
            match b.kind {
                Kind::Float { deref: false, .. } => terms.push(Expr::Local(b.name)),
                Kind::Buf {
                    len,
                    class: BufClass::LocalArray | BufClass::LocalVec,
                    ..
                } => {
                    let i = self.rng.gen_range(0..len);
                    terms.push(Expr::Elem(b.name, IntExpr::Lit(i)));
                }
                _ => {}
            }
        }
        for _ in 0..3 {
            if terms.is_empty() {
                break;
            }
            let t = terms.swap_remove(self.rng.gen_range(0..terms.len()));
            let op = *self.pick(&[BinOp::Add, BinOp::Add, BinOp::Sub, BinOp::Mul]);
            let t = if op == BinOp::Mul { self.squash(t) } else { t };
            e = Expr::Bin(op, Box::new(e), Box::new(t));
        }
        e
    }

    fn fresh_local(&mut self) -> String {
        let pool = if avoid("generated-names") {
            PLAIN_LOCAL_NAMES
        } else {
            LOCAL_NAMES
        };
        // never a counter's name: a binding shadowing it would turn the
        // counter's steps and reads into ones of that binding (nor a
        // reserved one, for the same reason)
        for _ in 0..64 {
            let name = self.pick(pool).to_string();
            if !self.counters.contains(&name) && !self.reserved.contains(&name) {
                return name;
            }
        }
        format!("{}_l", self.pick(pool))
    }

    fn stmt(&mut self, depth: usize) -> Stmt {
        let nested = depth < 2;
        // (in the function body, where a sum's loop may be fused, a helper's
        // values summed more often than the idioms' share gives)
        if depth == 0 && !self.callable.is_empty() && !avoid("summed-calls") && self.chance(0.15) {
            if let Some(s) = self.sum_of_calls(depth) {
                return s;
            }
        }
        // (a loop of the function body over samples, the loop a costly
        // value of a parameter's element can be tabulated before)
        if depth == 0 && !avoid("tables") && self.chance(0.25) {
            if let Some(s) = self.tabulated() {
                return s;
            }
        }
        if self.chance(0.3) {
            if let Some(s) = self.idiom_stmt(depth) {
                return s;
            }
        }
        loop {
            let roll = self.rng.gen_range(0..100);
            match roll {
                0..=24 => return self.let_float(3),
                25..=31 => return self.let_buf(),
                32..=49 => {
                    if let Some(s) = self.assign() {
                        return s;
                    }
                }
                50..=53 if nested => {
                    let b = self.block(false, depth + 1);
                    return Stmt::Block(b);
                }
                54..=63 if nested => return self.if_stmt(depth),
                64..=79 if nested => {
                    if self.loop_depth == 0 && !avoid("counters") && self.chance(0.25) {
                        return self.counted_for(depth);
                    }
                    let first = self.for_stmt(depth);
                    return self.twin_for(first, depth);
                }
                80..=85 if nested => return self.while_stmt(depth),
                86..=89 if nested => return self.loop_stmt(depth),
                88..=89 if !self.counters.is_empty() && self.loop_depth > 0 => {
                    let name = self.pick(&self.counters.clone()).clone();
                    let by = self.step_by();
                    return Stmt::Step {
                        name,
                        by,
                        spelled_out: self.chance(0.3),
                    };
                }
                90..=93 if self.no_return == 0 => {
                    // An early return, under a condition.
                    let c = self.cond();
                    let e = self.expr(2);
                    return Stmt::If {
                        arms: vec![(
                            c,
                            Block {
                                stmts: vec![Stmt::Return(e)],
                                tail: None,
                            },
                        )],
                        otherwise: None,
                    };
                }
                94..=99 if self.loop_depth > self.jump_floor => {
                    let c = self.cond();
                    let s = if self.chance(0.5) {
                        Stmt::Break
                    } else {
                        Stmt::Continue
                    };
                    return Stmt::If {
                        arms: vec![(
                            c,
                            Block {
                                stmts: vec![s],
                                tail: None,
                            },
                        )],
                        otherwise: None,
                    };
                }
                _ => {}
            }
        }
    }

    /// A local name nothing visible has (`Err` with the last one tried,
    /// visible, after 64 tries).
    fn unshadowing_local(&mut self) -> Result<String, String> {
        let taken: Vec<String> = self.visible().into_iter().map(|b| b.name).collect();
        let mut name = self.fresh_local();
        for _ in 0..64 {
            if !taken.contains(&name) {
                return Ok(name);
            }
            name = self.fresh_local();
        }
        Err(name)
    }

    /// `let mut k = 0; for .. { .. }` whose statements may step `k`
    /// (`k += 1`, `k += j`, `k = k + 2`), in a bare block.
    fn counted_for(&mut self, depth: usize) -> Stmt {
        // a name nothing visible has: a counter shadowing a buffer would
        // turn the buffer's reads (`w.len()`) into the counter's
        let counter = match self.unshadowing_local() {
            Ok(name) => name,
            Err(name) => format!("{name}_k"),
        };
        let mark = self.env.len();
        // Unbounded for the generator: never an index but through `% n`.
        self.bind(&counter, Kind::Int { lo: 0, hi: 1 << 30 });
        self.counters.push(counter.clone());
        let mut for_stmt = self.for_stmt(depth);
        self.counters.pop();
        // at least one step, at the end of the loop's body (by a literal:
        // the body's bindings are out of the generator's scope by now, and
        // one of them may shadow a name `step_by` would read)
        if let Stmt::For { body, .. } = &mut for_stmt {
            let by = IntExpr::Lit(self.rng.gen_range(1..=3));
            body.stmts.push(Stmt::Step {
                name: counter.clone(),
                by,
                spelled_out: self.chance(0.3),
            });
        }
        self.env.truncate(mark);
        Stmt::Block(Block {
            stmts: vec![Stmt::LetCounter { name: counter }, for_stmt],
            tail: None,
        })
    }

    /// What a counter is stepped by: a small literal or a bounded integer
    /// in scope (a loop index).
    fn step_by(&mut self) -> IntExpr {
        if self.chance(0.5) {
            IntExpr::Lit(self.rng.gen_range(1..=3))
        } else {
            self.int_expr_in(0, 3).0
        }
    }

    fn let_float(&mut self, depth: usize) -> Stmt {
        let init = self.expr(depth);
        let name = self.fresh_local();
        let mutable = self.chance(0.6);
        // Plain Rust cannot call methods on an un-annotated `{float}`
        // local; annotate those (and some others).
        let annotate = !is_typed(&init) || self.chance(0.3);
        self.bind(
            &name,
            Kind::Float {
                mutable,
                deref: false,
            },
        );
        Stmt::Let {
            name,
            mutable,
            annotate,
            init,
        }
    }

    fn let_buf(&mut self) -> Stmt {
        let name = self.fresh_local();
        let annotate = self.chance(0.5);
        let (init, len, class) = match self.rng.gen_range(0..6) {
            5 if !avoid("pushes") => {
                let n = self.rng.gen_range(1..=3);
                let items = (0..n).map(|_| self.expr(2)).collect();
                (BufInit::Pushed(items), n, BufClass::LocalVec)
            }
            0 => {
                let n = self.rng.gen_range(1..=4);
                (BufInit::Zeros(n), n, BufClass::LocalArray)
            }
            4 if !avoid("fills") => {
                let (len, vec) = (self.rng.gen_range(1..=4), self.chance(0.5));
                let value = self.expr(2);
                let class = match vec {
                    true => BufClass::LocalVec,
                    false => BufClass::LocalArray,
                };
                (BufInit::Fill { value, len, vec }, len, class)
            }
            1 => {
                let n = self.rng.gen_range(1..=3);
                let items = (0..n).map(|_| self.expr(2)).collect();
                (BufInit::List(items), n, BufClass::LocalArray)
            }
            2 => {
                let n = self.rng.gen_range(1..=4);
                let (e, _, _) = self.int_expr_in(n, n);
                (BufInit::VecZeros(e), n, BufClass::LocalVec)
            }
            _ => match self.param_buf() {
                Some((src, n)) => (BufInit::ToVec(src), n, BufClass::LocalVec),
                None => (BufInit::Zeros(2), 2, BufClass::LocalArray),
            },
        };
        // now and then an array literal only read (`let b = [x, y];`)
        let mutable = matches!(init, BufInit::Pushed(_))
            || !(matches!(init, BufInit::List(_))
                && !avoid("read-only-arrays")
                && self.chance(0.4));
        self.bind(
            &name,
            Kind::Buf {
                len,
                writable: mutable,
                class,
                inactive: false,
            },
        );
        Stmt::LetBuf {
            name,
            init,
            annotate,
            mutable,
        }
    }

    /// A visible buffer parameter (or any buffer) to copy with `to_vec()`.
    fn param_buf(&mut self) -> Option<(String, usize)> {
        let bufs: Vec<(String, usize)> = self
            .visible()
            .into_iter()
            .filter_map(|b| match b.kind {
                Kind::Buf { len, .. } => Some((b.name, len)),
                _ => None,
            })
            .collect();
        if bufs.is_empty() {
            None
        } else {
            Some(self.pick(&bufs).clone())
        }
    }

    fn assign(&mut self) -> Option<Stmt> {
        // now and then a local array assigned whole
        if !avoid("whole-arrays") {
            let arrays = self.writable_bufs(Some(BufClass::LocalArray));
            if !arrays.is_empty() && self.chance(0.3) {
                let (name, len) = self.pick(&arrays).clone();
                let items = (0..len).map(|_| self.expr(2)).collect();
                return Some(Stmt::AssignWhole { name, items });
            }
        }
        let mut targets: Vec<(Place, usize)> = Vec::new();
        for b in self.visible() {
            if self.frozen.contains(&b.id) {
                continue;
            }
            match b.kind {
                Kind::Float { mutable: true, .. } => targets.push((Place::Local(b.name), 0)),
                Kind::Tuple {
                    parts,
                    mutable: true,
                } => {
                    let k = self.rng.gen_range(0..parts);
                    targets.push((Place::Part(b.name, k), 0));
                }
                Kind::Buf {
                    len,
                    writable: true,
                    ..
                } => targets.push((Place::Elem(b.name, IntExpr::Lit(0)), len)),
                _ => {}
            }
        }
        if targets.is_empty() {
            return None;
        }
        let (mut place, len) = self.pick(&targets).clone();
        if let Place::Elem(name, i) = &mut place {
            *i = self.index(len);
            // `v[v.len() - 1] = ..` does not borrow-check for a `Vec`
            // (`IndexMut` borrows `v` before the index is evaluated).
            if mentions_len(i, name) {
                *i = IntExpr::Lit(self.rng.gen_range(0..len));
            }
        }
        let op = *self.pick(&[
            AssignOp::Set,
            AssignOp::Set,
            AssignOp::Add,
            AssignOp::Add,
            AssignOp::Sub,
            AssignOp::Mul,
            AssignOp::Div,
        ]);
        let value = match op {
            // Keep products and quotients from growing or dividing by 0.
            AssignOp::Mul => self.bounded(),
            AssignOp::Div => self.denominator(),
            _ => self.expr(3),
        };
        Some(Stmt::Assign { place, op, value })
    }

    fn if_stmt(&mut self, depth: usize) -> Stmt {
        let arms_n = self.rng.gen_range(1..=3);
        let arms = (0..arms_n)
            .map(|_| (self.cond(), self.block(false, depth + 1)))
            .collect();
        let otherwise = if self.chance(0.5) {
            Some(self.block(false, depth + 1))
        } else {
            None
        };
        Stmt::If { arms, otherwise }
    }

    fn for_stmt(&mut self, depth: usize) -> Stmt {
        let mark = self.env.len();
        let frozen_mark = self.frozen.len();
        let bufs: Vec<Binding> = self
            .visible()
            .into_iter()
            .filter(|b| matches!(b.kind, Kind::Buf { .. }))
            .collect();
        let mut range_binding = None;
        let (pat, iter) = if bufs.is_empty() || self.chance(0.5) {
            let (lo, lo_v, _) = self.int_expr_in(0, 2);
            let (hi, _, hi_v) = self.int_expr_in(lo_v, lo_v + 3);
            let inclusive = self.chance(0.3);
            let rev = self.chance(0.3);
            let top = if inclusive {
                hi_v
            } else {
                hi_v.saturating_sub(1)
            };
            let name = self.fresh_local();
            let kind = Kind::Int {
                lo: lo_v,
                hi: top.max(lo_v),
            };
            range_binding = Some((name.clone(), kind.clone()));
            self.bind(&name, kind);
            (
                ForPat::Index(name),
                ForIter::Range {
                    lo,
                    hi,
                    inclusive,
                    rev,
                },
            )
        } else {
            let b = self.pick(&bufs).clone();
            let Kind::Buf { class, len, .. } = b.kind else {
                unreachable!()
            };
            self.frozen.push(b.id);
            let by_ref = matches!(class, BufClass::Slice | BufClass::ArrayRef);
            let v = self.fresh_local();
            let style = self.rng.gen_range(0..4);
            let (pat, iter, deref) = match style {
                0 if by_ref => (
                    ForPat::Value(v.clone()),
                    ForIter::Plain(b.name.clone()),
                    true,
                ),
                0 if class == BufClass::Array => (
                    ForPat::Value(v.clone()),
                    ForIter::Plain(b.name.clone()),
                    false,
                ),
                1 if by_ref => (
                    ForPat::AmpValue(v.clone()),
                    ForIter::Plain(b.name.clone()),
                    false,
                ),
                3 => {
                    let mut i = self.fresh_local();
                    while i == v {
                        i = self.fresh_local();
                    }
                    self.bind(&i, Kind::Int { lo: 0, hi: len - 1 });
                    (
                        ForPat::Enumerate(i, v.clone()),
                        ForIter::Iter(b.name.clone()),
                        true,
                    )
                }
                _ => (
                    ForPat::Value(v.clone()),
                    ForIter::Iter(b.name.clone()),
                    true,
                ),
            };
            self.bind(
                &v,
                Kind::Float {
                    mutable: false,
                    deref,
                },
            );
            (pat, iter)
        };
        self.loop_depth += 1;
        let body = self.block(false, depth + 1);
        self.loop_depth -= 1;
        self.env.truncate(mark);
        self.frozen.truncate(frozen_mark);
        // (after the body, whose own loops set it too)
        self.last_range_for = range_binding;
        Stmt::For { pat, iter, body }
    }

    /// Sometimes `first`, a `for` over a range, followed by a second loop
    /// over the same range with the same index and a body of its own, the
    /// two in a bare block: what users write as steps over one buffer
    /// (`for j in 0..d { a[j] = .. } for j in 0..d { b[j] = .. a[j] .. }`),
    /// and what the macro fuses into one loop when that computes the same
    /// (`lower/fusion.rs`).
    fn twin_for(&mut self, first: Stmt, depth: usize) -> Stmt {
        let Some((index, kind)) = self.last_range_for.take() else {
            return first;
        };
        let twin = match &first {
            Stmt::For {
                pat,
                iter: iter @ ForIter::Range { .. },
                ..
            } if self.budget > 0 && !avoid("twin-loops") && self.twin_rng.gen_bool(0.35) => {
                (pat.clone(), iter.clone())
            }
            _ => return first,
        };
        // the twin's body from the twin stream, with a budget of its own
        std::mem::swap(&mut self.rng, &mut self.twin_rng);
        let budget = std::mem::replace(&mut self.budget, 4);
        let mark = self.env.len();
        self.bind(&index, kind);
        self.loop_depth += 1;
        let body = self.block(false, depth + 1);
        self.loop_depth -= 1;
        self.env.truncate(mark);
        self.budget = budget;
        std::mem::swap(&mut self.rng, &mut self.twin_rng);
        let (pat, iter) = twin;
        Stmt::Block(Block {
            stmts: vec![first, Stmt::For { pat, iter, body }],
            tail: None,
        })
    }

    /// `let mut k = 0; while k < L [&& cond] { k += 1; .. }` as one block
    /// statement sequence: returns the `while`; the counter's `let` is put
    /// in a surrounding bare block so the statement stays one unit.
    fn while_stmt(&mut self, depth: usize) -> Stmt {
        let counter = self.fresh_local();
        let limit = self.rng.gen_range(1..=4);
        let mark = self.env.len();
        self.bind(&counter, Kind::Int { lo: 0, hi: limit });
        let extra = if self.chance(0.4) {
            Some(self.cond())
        } else {
            None
        };
        // stepped last (`k = 2k + 1`: 0, 1, 3, 7): no `break` or
        // `continue` of its own, which would skip the step
        let stepped_last = (!avoid("stepped-whiles") && self.chance(0.4)).then(|| self.chance(0.5));
        let body = match stepped_last {
            None => {
                self.loop_depth += 1;
                let mut body = self.block(false, depth + 1);
                self.loop_depth -= 1;
                body.stmts.insert(
                    0,
                    Stmt::Incr {
                        name: counter.clone(),
                    },
                );
                body
            }
            Some(_) => {
                let outer = std::mem::replace(&mut self.loop_depth, 0);
                let body = self.block(false, depth + 1);
                self.loop_depth = outer;
                body
            }
        };
        self.env.truncate(mark);
        Stmt::Block(Block {
            stmts: vec![
                Stmt::LetCounter {
                    name: counter.clone(),
                },
                Stmt::While {
                    counter,
                    limit,
                    extra,
                    body,
                    stepped_last,
                },
            ],
            tail: None,
        })
    }

    fn loop_stmt(&mut self, depth: usize) -> Stmt {
        let counter = self.fresh_local();
        let limit = self.rng.gen_range(1..=4);
        let mark = self.env.len();
        self.bind(&counter, Kind::Int { lo: 1, hi: limit });
        self.loop_depth += 1;
        let mut body = self.block(false, depth + 1);
        self.loop_depth -= 1;
        let stop = Stmt::If {
            arms: vec![(
                Cond::IntCmp(
                    CmpOp::Gt,
                    IntExpr::Var(counter.clone()),
                    IntExpr::Lit(limit),
                ),
                Block {
                    stmts: vec![Stmt::Break],
                    tail: None,
                },
            )],
            otherwise: None,
        };
        body.stmts.insert(
            0,
            Stmt::Incr {
                name: counter.clone(),
            },
        );
        body.stmts.insert(1, stop);
        self.env.truncate(mark);
        Stmt::Block(Block {
            stmts: vec![Stmt::LetCounter { name: counter }, Stmt::Loop { body }],
            tail: None,
        })
    }

    // ----- integers ---------------------------------------------------------

    /// Integer atoms in scope with their value ranges.
    fn int_atoms(&self) -> Vec<(IntExpr, usize, usize)> {
        let mut out = Vec::new();
        for b in self.visible() {
            match b.kind {
                Kind::Int { lo, hi } => out.push((IntExpr::Var(b.name), lo, hi)),
                Kind::Buf { len, .. } => out.push((IntExpr::Len(b.name), len, len)),
                _ => {}
            }
        }
        out
    }

    /// An integer expression whose value is *exactly known* when `lo == hi`
    /// is asked for, otherwise any whose range lies within `[lo, hi]`.
    /// Returns the expression and its range.
    fn int_expr_in(&mut self, lo: usize, hi: usize) -> (IntExpr, usize, usize) {
        let drawn = self.int_expr_drawn(lo, hi);
        self.with_field(drawn, lo, hi)
    }

    /// [`Gen::int_expr_in`] from the main stream.
    fn int_expr_drawn(&mut self, lo: usize, hi: usize) -> (IntExpr, usize, usize) {
        let exact = lo == hi || self.chance(0.5);
        let mut options: Vec<(IntExpr, usize, usize)> = Vec::new();
        for (e, a, b) in self.int_atoms() {
            if exact && a != b {
                continue;
            }
            if a >= lo && b <= hi {
                options.push((e.clone(), a, b));
            }
            // `e + k` and `e - k` to reach the range.
            if b < hi && a + 1 >= lo {
                options.push((
                    IntExpr::Add(Box::new(e.clone()), Box::new(IntExpr::Lit(1))),
                    a + 1,
                    b + 1,
                ));
            }
            if a > lo && b <= hi + 1 {
                options.push((
                    IntExpr::Sub(Box::new(e.clone()), Box::new(IntExpr::Lit(1))),
                    a - 1,
                    b - 1,
                ));
            }
            if a == b && a >= 1 && 2 * a <= hi && 2 * a >= lo {
                options.push((
                    IntExpr::Mul(Box::new(IntExpr::Lit(2)), Box::new(e)),
                    2 * a,
                    2 * b,
                ));
            }
        }
        if options.is_empty() || self.chance(0.25) {
            let v = self.rng.gen_range(lo..=hi);
            return (IntExpr::Lit(v), v, v);
        }
        let pick = self.rng.gen_range(0..options.len());
        options.swap_remove(pick)
    }

    /// An index into a buffer of length `len`, provably in bounds.
    fn index(&mut self, len: usize) -> IntExpr {
        let drawn = self.index_drawn(len);
        match len {
            0 => drawn,
            _ => self.with_field((drawn, 0, len - 1), 0, len - 1).0,
        }
    }

    /// [`Gen::index`] from the main stream.
    fn index_drawn(&mut self, len: usize) -> IntExpr {
        // The index of the innermost loop in sight, or one beside it, often:
        // what a loop over a buffer reads (and `emit/rows.rs` checks once).
        if self.chance(0.35) {
            let inner = self.visible().into_iter().find_map(|b| match b.kind {
                Kind::Int { lo, hi } if lo < hi && hi < 1 << 20 => Some((b.name, lo, hi)),
                _ => None,
            });
            if let Some((name, lo, hi)) = inner {
                let var = IntExpr::Var(name);
                if hi + 1 < len && self.chance(0.3) {
                    return IntExpr::Add(Box::new(var), Box::new(IntExpr::Lit(1)));
                }
                if lo >= 1 && hi - 1 < len && self.chance(0.3) {
                    return IntExpr::Sub(Box::new(var), Box::new(IntExpr::Lit(1)));
                }
                if hi < len {
                    return var;
                }
            }
        }
        // `a * m + b` (row-major, `m` past `b`'s largest value) or `a + b`
        // with two integer locals (an outer and an inner loop's index),
        // sometimes: the rows of `emit/rows.rs`.
        let vars: Vec<(IntExpr, usize, usize)> = self
            .int_atoms()
            .into_iter()
            .filter(|(e, _, _)| matches!(e, IntExpr::Var(_)))
            .collect();
        if vars.len() >= 2 && self.chance(0.4) {
            {
                let a = self.rng.gen_range(0..vars.len());
                let mut b = self.rng.gen_range(0..vars.len() - 1);
                if b >= a {
                    b += 1;
                }
                let ((ea, _, ha), (eb, _, hb)) = (vars[a].clone(), vars[b].clone());
                let m = hb + 1;
                if self.chance(0.5) && ha * m + hb < len {
                    let row = IntExpr::Mul(Box::new(ea), Box::new(IntExpr::Lit(m)));
                    return IntExpr::Add(Box::new(row), Box::new(eb));
                }
                if ha + hb < len {
                    return IntExpr::Add(Box::new(ea), Box::new(eb));
                }
            }
        }
        // `k % len` with a counter, sometimes.
        if !self.counters.is_empty() && self.chance(0.3) {
            let k = IntExpr::Var(self.pick(&self.counters.clone()).clone());
            let k = if self.chance(0.3) {
                let (i, _, _) = self.int_expr_in(0, 3);
                IntExpr::Add(Box::new(k), Box::new(i))
            } else {
                k
            };
            return IntExpr::Rem(Box::new(k), Box::new(IntExpr::Lit(len)));
        }
        // `len - 1 - i` with a loop variable, sometimes.
        if self.chance(0.15) {
            let atoms: Vec<(IntExpr, usize, usize)> = self
                .int_atoms()
                .into_iter()
                .filter(|(e, _, hi)| matches!(e, IntExpr::Var(_)) && *hi < len)
                .collect();
            if !atoms.is_empty() {
                let (e, _, _) = self.pick(&atoms).clone();
                return IntExpr::Sub(
                    Box::new(IntExpr::Sub(
                        Box::new(IntExpr::Lit(len)),
                        Box::new(IntExpr::Lit(1)),
                    )),
                    Box::new(e),
                );
            }
        }
        self.int_expr_in(0, len - 1).0
    }

    // ----- floats -----------------------------------------------------------

    /// A float leaf: a literal, a local, a parameter, an element, a cast,
    /// a constant.
    fn leaf(&mut self) -> Expr {
        let vis = self.visible();
        let mut floats = Vec::new();
        let mut bufs = Vec::new();
        let mut matrices = Vec::new();
        for b in &vis {
            match b.kind {
                Kind::Mat { rows, cols, .. } => matrices.push((b.name.clone(), rows, cols)),
                Kind::Float { deref, .. } => floats.push((b.name.clone(), deref)),
                Kind::ConstFloat => floats.push((b.name.clone(), false)),
                Kind::Buf { len, .. } => bufs.push((b.name.clone(), len)),
                Kind::Chunk { len } if len > 0 => bufs.push((b.name.clone(), len)),
                Kind::Tuple { parts, .. } => {
                    let k = self.rng.gen_range(0..parts);
                    floats.push((format!("{}.{k}", b.name), false));
                }
                _ => {}
            }
        }
        let closures: Vec<(String, bool)> = vis
            .iter()
            .filter_map(|b| match b.kind {
                Kind::Closure { by_ref } => Some((b.name.clone(), by_ref)),
                _ => None,
            })
            .collect();
        if !closures.is_empty() && self.cond_depth == 0 && self.chance(0.3) {
            let (n, by_ref) = self.pick(&closures).clone();
            let arg = self.leaf();
            return Expr::CallClosure(n, Box::new(arg), by_ref);
        }
        loop {
            match self.rng.gen_range(0..10) {
                0..=1 => return self.lit(),
                2..=5 if !floats.is_empty() => {
                    let (n, deref) = self.pick(&floats).clone();
                    if let Some((t, k)) = n.split_once('.') {
                        return Expr::Field(t.to_string(), k.parse().unwrap());
                    }
                    return if deref {
                        Expr::Deref(n)
                    } else {
                        Expr::Local(n)
                    };
                }
                6..=7 if !matrices.is_empty() && (bufs.is_empty() || self.chance(0.4)) => {
                    let (n, rows, cols) = self.pick(&matrices).clone();
                    let i = self.index(rows);
                    if self.chance(0.2) {
                        return Expr::MatRowSum(n, i);
                    }
                    let j = self.index(cols);
                    return Expr::MatElem(n, i, j);
                }
                6..=7 if !bufs.is_empty() => {
                    let (n, len) = self.pick(&bufs).clone();
                    let i = self.index(len);
                    return Expr::Elem(n, i);
                }
                8 => {
                    if !self.counters.is_empty() && self.chance(0.4) {
                        let k = self.pick(&self.counters.clone()).clone();
                        return Expr::Cast(IntExpr::Var(k));
                    }
                    let (e, _, _) = self.int_expr_in(0, 4);
                    return Expr::Cast(e);
                }
                9 => {
                    let c = self.pick(CONSTS).to_string();
                    return Expr::Const(c);
                }
                _ => {}
            }
        }
    }

    /// A random float expression of nesting at most `depth`.
    pub fn expr(&mut self, depth: usize) -> Expr {
        if depth == 0 {
            return self.leaf();
        }
        if self.chance(0.07) {
            if let Some(e) = self.idiom_expr(depth) {
                return e;
            }
        }
        match self.rng.gen_range(0..100) {
            0..=29 => self.leaf(),
            30..=49 => {
                let op = *self.pick(&[BinOp::Add, BinOp::Sub, BinOp::Mul]);
                Expr::Bin(
                    op,
                    Box::new(self.expr(depth - 1)),
                    Box::new(self.expr(depth - 1)),
                )
            }
            50..=54 => Expr::Bin(
                BinOp::Div,
                Box::new(self.expr(depth - 1)),
                Box::new(self.denominator()),
            ),
            55..=59 => Expr::Neg(Box::new(self.expr(depth - 1))),
            60..=61 => {
                // `-(n as f64) * x` and friends.
                let (i, _, _) = self.int_expr_in(0, 4);
                Expr::Bin(
                    BinOp::Mul,
                    Box::new(Expr::Neg(Box::new(Expr::Cast(i)))),
                    Box::new(self.expr(depth - 1)),
                )
            }
            62..=84 => self.method(depth - 1),
            85..=92 if !self.callable.is_empty() => self.call(depth - 1),
            93..=96 if self.value_depth == 0 => {
                self.value_depth += 1;
                let arms_n = self.rng.gen_range(1..=2);
                let arms = (0..arms_n)
                    .map(|_| (self.cond(), self.value_block(depth - 1)))
                    .collect();
                let els = self.value_block(depth - 1);
                self.value_depth -= 1;
                Expr::If(arms, els)
            }
            97..=99 if self.value_depth == 0 => {
                self.value_depth += 1;
                let b = self.value_block(depth - 1);
                self.value_depth -= 1;
                Expr::Block(b)
            }
            _ => self.leaf(),
        }
    }

    /// A block with a value, for `if` values and block values: one or two
    /// `let`s, then the value.
    fn value_block(&mut self, depth: usize) -> Block {
        let mark = self.env.len();
        let mut stmts = Vec::new();
        if self.chance(0.4) && !self.in_cond {
            stmts.push(self.let_float(depth));
        }
        let tail = Some(Box::new(self.expr(depth)));
        self.env.truncate(mark);
        Block { stmts, tail }
    }

    /// A value between about -1 and 1 built from `e` (for `exp`, `*=`).
    fn squash(&mut self, e: Expr) -> Expr {
        let m = *self.pick(&["tanh", "sin", "cos", "atan"]);
        self.m1(m, e)
    }

    fn bounded(&mut self) -> Expr {
        let e = self.expr(1);
        if self.chance(0.3) {
            return self.lit();
        }
        self.squash(e)
    }

    /// Something well away from zero to divide by.
    fn denominator(&mut self) -> Expr {
        let e = self.expr(1);
        match self.rng.gen_range(0..4) {
            0 => Expr::Lit(self.lit_value(0.5, 3.0), false),
            1 => self.positive(e),
            2 => {
                let s = self.m1("sin", e);
                Expr::Bin(BinOp::Add, Box::new(Expr::Lit(2.0, false)), Box::new(s))
            }
            _ => {
                let a = self.m1("abs", e);
                Expr::Bin(BinOp::Add, Box::new(a), Box::new(Expr::Lit(0.5, false)))
            }
        }
    }

    /// `e * e + c` with `c` in `[0.5, 2]`: positive, smooth.
    fn positive(&mut self, e: Expr) -> Expr {
        let sq = Expr::Bin(BinOp::Mul, Box::new(e.clone()), Box::new(e));
        let c = self.lit_value(0.5, 2.0);
        Expr::Bin(BinOp::Add, Box::new(sq), Box::new(Expr::Lit(c, false)))
    }

    fn form(&mut self) -> Form {
        if self.chance(0.25) {
            Form::Path
        } else {
            Form::Dot
        }
    }

    fn m1(&mut self, name: &'static str, recv: Expr) -> Expr {
        let form = self.form();
        Expr::Method {
            name,
            form,
            recv: Box::new(recv),
            args: vec![],
        }
    }

    fn m(&mut self, name: &'static str, recv: Expr, args: Vec<Expr>) -> Expr {
        let form = self.form();
        Expr::Method {
            name,
            form,
            recv: Box::new(recv),
            args,
        }
    }

    /// A call of an `f64` method with its argument kept in its domain.
    fn method(&mut self, depth: usize) -> Expr {
        let e = self.expr(depth);
        match self.rng.gen_range(0..30) {
            0 => {
                let m = *self.pick(&["sin", "cos", "atan", "tanh", "asinh"]);
                self.m1(m, e)
            }
            1 => {
                let m = *self.pick(&["sin", "cos", "atan", "tanh", "asinh"]);
                // A method on a cast: `(n as f64).sqrt()`-like.
                let (i, _, _) = self.int_expr_in(1, 4);
                let _ = e;
                self.m1(m, Expr::Cast(i))
            }
            2 => {
                let m = *self.pick(&["abs", "signum", "floor", "ceil", "round", "trunc"]);
                self.m1(m, e)
            }
            3 => {
                let m = *self.pick(&["to_radians", "to_degrees"]);
                let inner = self.m1(m, e);
                if m == "to_degrees" {
                    Expr::Bin(
                        BinOp::Mul,
                        Box::new(inner),
                        Box::new(Expr::Lit(0.01, false)),
                    )
                } else {
                    inner
                }
            }
            4..=6 => {
                let m = *self.pick(&["exp", "exp2", "exp_m1", "sinh", "cosh"]);
                let b = self.squash(e);
                self.m1(m, b)
            }
            7..=9 => {
                let m = *self.pick(&["sqrt", "ln", "log2", "log10", "cbrt", "recip"]);
                let p = self.positive(e);
                self.m1(m, p)
            }
            10 => {
                let (i, _, _) = self.int_expr_in(1, 4);
                let m = *self.pick(&["sqrt", "ln", "cbrt", "recip"]);
                let _ = e;
                self.m1(m, Expr::Cast(i))
            }
            11 => {
                let sq = Expr::Bin(BinOp::Mul, Box::new(e.clone()), Box::new(e));
                self.m1("ln_1p", sq)
            }
            12..=13 => {
                let m = *self.pick(&["asin", "acos", "atanh", "tan"]);
                let t = self.m1("tanh", e);
                let b = Expr::Bin(BinOp::Mul, Box::new(Expr::Lit(0.75, false)), Box::new(t));
                self.m1(m, b)
            }
            14 => {
                let p = self.positive(e);
                let shifted = Expr::Bin(BinOp::Add, Box::new(p), Box::new(Expr::Lit(0.5, false)));
                self.m1("acosh", shifted)
            }
            15..=17 => {
                let k = self.rng.gen_range(-2..=3);
                let recv = if k < 0 { self.positive(e) } else { e };
                Expr::Powi(Box::new(recv), k, self.form())
            }
            18 => {
                let base = self.positive(e);
                let ex = self.expr(depth);
                let ex = self.squash(ex);
                self.m("powf", base, vec![ex])
            }
            19 => {
                let base = self.positive(e);
                let b = *self.pick(&[2.0, 3.0, 10.0, 0.5]);
                self.m("log", base, vec![Expr::Lit(b, false)])
            }
            20 => {
                let other = self.expr(depth);
                let other = self.positive(other);
                self.m("atan2", e, vec![other])
            }
            21 => {
                let other = self.expr(depth);
                self.m("hypot", e, vec![other])
            }
            22..=24 => {
                let other = self.expr(depth);
                let m = *self.pick(&["max", "min"]);
                self.m(m, e, vec![other])
            }
            25 => {
                let lo = self.lit_value(0.25, 1.0);
                let hi = self.lit_value(1.25, 2.5);
                self.m(
                    "clamp",
                    e,
                    vec![
                        Expr::Neg(Box::new(Expr::Lit(lo, false))),
                        Expr::Lit(hi, false),
                    ],
                )
            }
            26..=27 => {
                let a = self.expr(depth);
                let b = self.expr(depth);
                // Sometimes on a cast, like `(n as f64).mul_add(1.5, x)`.
                let recv = if self.chance(0.3) {
                    let (i, _, _) = self.int_expr_in(0, 4);
                    Expr::Cast(i)
                } else {
                    e
                };
                self.m("mul_add", recv, vec![a, b])
            }
            _ => {
                let m = *self.pick(&["sin", "cos", "tanh"]);
                self.m1(m, e)
            }
        }
    }

    /// A call of a helper, with arguments in all the shapes people write.
    fn call(&mut self, depth: usize) -> Expr {
        let sig = self.pick(&self.callable.clone()).clone();
        let mut args = Vec::new();
        for p in &sig.params {
            let arg = match p.ty {
                Ty::Usize(v) => Some(CallArg::Int(self.int_expr_in(v, v).0)),
                Ty::F64 if p.active => Some(CallArg::Scalar(self.expr(depth))),
                Ty::F64 => Some(CallArg::Scalar(self.const_expr())),
                Ty::Slice(n) => self.slice_arg(n, p.active, depth),
                Ty::Array(n) => self.array_arg(n, p.active, depth, false),
                Ty::ArrayRef(n) => self.array_arg(n, p.active, depth, true),
            };
            match arg {
                Some(a) => args.push(a),
                // No buffer to pass, and literal arrays avoided.
                None => return self.leaf(),
            }
        }
        Expr::Call(sig.name, args)
    }

    /// A float expression that depends on no differentiated input (for a
    /// parameter the callee does not differentiate).
    fn const_expr(&mut self) -> Expr {
        match self.rng.gen_range(0..3) {
            0 => self.lit(),
            1 => Expr::Cast(self.int_expr_in(0, 4).0),
            _ => Expr::Const(self.pick(CONSTS).to_string()),
        }
    }

    fn items(&mut self, n: usize, active: bool, depth: usize) -> Vec<Expr> {
        (0..n)
            .map(|_| {
                if active {
                    self.expr(depth)
                } else {
                    self.const_expr()
                }
            })
            .collect()
    }

    /// An argument for a `&[f64]` parameter of length `n`.
    fn slice_arg(&mut self, n: usize, active: bool, depth: usize) -> Option<CallArg> {
        let mut options: Vec<CallArg> = Vec::new();
        for b in self.visible() {
            let Kind::Buf {
                len,
                class,
                inactive,
                ..
            } = b.kind
            else {
                continue;
            };
            if !active && !inactive {
                continue;
            }
            if len == n {
                match class {
                    // `&a` of an `&[f64; N]` would be `&&[f64; N]`, no slice.
                    BufClass::Slice | BufClass::ArrayRef => {
                        options.push(CallArg::Name(b.name.clone()))
                    }
                    _ => options.push(CallArg::Ref(b.name.clone())),
                }
            }
            if len > n {
                let lo = self.rng.gen_range(0..=len - n);
                let open = lo + n == len && self.chance(0.5);
                // (now and then from the field named like the buffer,
                // `&ys[LIMITS.ys..LIMITS.ys + 2]`, drawn apart: `field_rng`)
                let (lo, start) = match self.field_named(&b.name, len - n) {
                    Some(v) => (v, IntExpr::Field(b.name.clone(), v)),
                    None => (lo, IntExpr::Lit(lo)),
                };
                if open && lo + n == len {
                    options.push(CallArg::Sub(b.name.clone(), start, None));
                } else {
                    let end = match &start {
                        IntExpr::Lit(_) => IntExpr::Lit(lo + n),
                        field => IntExpr::Add(Box::new(field.clone()), Box::new(IntExpr::Lit(n))),
                    };
                    options.push(CallArg::Sub(b.name.clone(), start, Some(end)));
                }
            }
        }
        if (options.is_empty() || self.chance(0.3)) && !avoid("literal-args") {
            let list = Some(CallArg::RefList(self.items(n, active, depth)));
            return self.with_row(list, n, active);
        }
        if options.is_empty() {
            return self.with_row(None, n, active);
        }
        let pick = self.rng.gen_range(0..options.len());
        let drawn = Some(options.swap_remove(pick));
        self.with_row(drawn, n, active)
    }

    /// An argument for `[f64; n]` (by value) or `&[f64; n]`.
    fn array_arg(&mut self, n: usize, active: bool, depth: usize, by_ref: bool) -> Option<CallArg> {
        let mut options: Vec<CallArg> = Vec::new();
        for b in self.visible() {
            let Kind::Buf {
                len,
                class,
                inactive,
                ..
            } = b.kind
            else {
                continue;
            };
            if len != n || (!active && !inactive) {
                continue;
            }
            match (class, by_ref) {
                (BufClass::LocalArray | BufClass::Array, false) => {
                    options.push(CallArg::Name(b.name.clone()))
                }
                (BufClass::LocalArray | BufClass::Array, true) => {
                    options.push(CallArg::Ref(b.name.clone()))
                }
                (BufClass::ArrayRef, true) => options.push(CallArg::Name(b.name.clone())),
                _ => {}
            }
        }
        if (options.is_empty() || self.chance(0.2)) && !avoid("literal-args") {
            let items = self.items(n, active, depth);
            return Some(if by_ref {
                CallArg::RefList(items)
            } else {
                CallArg::List(items)
            });
        }
        if options.is_empty() {
            return None;
        }
        let pick = self.rng.gen_range(0..options.len());
        Some(options.swap_remove(pick))
    }

    // ----- conditions -------------------------------------------------------

    fn cond(&mut self) -> Cond {
        let outer = self.in_cond;
        self.in_cond = avoid("cond-blocks") || !self.chance(0.05);
        self.cond_depth += 1;
        let c = self.cond_inner();
        self.cond_depth -= 1;
        self.in_cond = outer;
        c
    }

    fn cond_inner(&mut self) -> Cond {
        match self.rng.gen_range(0..10) {
            0..=5 => {
                let op = *self.pick(&[CmpOp::Lt, CmpOp::Le, CmpOp::Gt, CmpOp::Ge]);
                Cond::Cmp(op, self.expr(1), self.expr(1))
            }
            6 => {
                let atoms = self.int_atoms();
                if atoms.is_empty() {
                    return Cond::Cmp(CmpOp::Lt, self.expr(1), self.lit());
                }
                let (a, _, _) = self.pick(&atoms).clone();
                let op = *self.pick(&[CmpOp::Lt, CmpOp::Eq, CmpOp::Ne, CmpOp::Ge]);
                let k = self.rng.gen_range(0..3);
                Cond::IntCmp(op, a, IntExpr::Lit(k))
            }
            7 => Cond::And(Box::new(self.cond_leaf()), Box::new(self.cond_leaf())),
            8 => Cond::Or(Box::new(self.cond_leaf()), Box::new(self.cond_leaf())),
            _ => Cond::Not(Box::new(self.cond_leaf())),
        }
    }

    /// `xs.iter().any(..)` / `.all(..)` over a visible buffer, as a
    /// condition's leaf now and then.
    fn cond_any(&mut self) -> Option<Cond> {
        if avoid("any-all") || !self.chance(0.15) {
            return None;
        }
        let bufs: Vec<String> = self
            .visible()
            .into_iter()
            .filter(|b| matches!(b.kind, Kind::Buf { .. }))
            .map(|b| b.name)
            .collect();
        if bufs.is_empty() {
            return None;
        }
        let buf = self.pick(&bufs).clone();
        let op = *self.pick(&[CmpOp::Lt, CmpOp::Gt]);
        Some(Cond::Any {
            all: self.chance(0.5),
            buf,
            op,
            rhs: self.expr(0),
        })
    }

    fn cond_leaf(&mut self) -> Cond {
        if let Some(any) = self.cond_any() {
            return any;
        }
        let op = *self.pick(&[CmpOp::Lt, CmpOp::Gt]);
        Cond::Cmp(op, self.expr(1), self.expr(0))
    }
}

/// Whether `e` reads `name.len()`.
fn mentions_len(e: &IntExpr, name: &str) -> bool {
    match e {
        IntExpr::Len(n) => n == name,
        IntExpr::Lit(_) | IntExpr::Var(_) | IntExpr::Field(..) => false,
        IntExpr::Add(a, b) | IntExpr::Sub(a, b) | IntExpr::Mul(a, b) | IntExpr::Rem(a, b) => {
            mentions_len(a, name) || mentions_len(b, name)
        }
    }
}

// ----- idiomatic Rust (API.md §1b, issue 15) ---------------------------------

/// The type of an iterator chain's items, as the generator tracks it.
#[derive(Clone, Debug)]
enum ItemTy {
    /// `&f64`
    RefF,
    /// `f64`
    F,
    /// `usize` in `[lo, hi]`
    Usize(usize, usize),
    /// `&[f64]` of at least `len` elements (`exact`: all of exactly `len`)
    Slice {
        len: usize,
        exact: bool,
        inactive: bool,
    },
    Pair(Box<ItemTy>, Box<ItemTy>),
}

/// Does `ty` hold a subslice (which `*` cannot take by value)?
fn holds_slice(ty: &ItemTy) -> bool {
    match ty {
        ItemTy::Slice { .. } => true,
        ItemTy::Pair(a, b) => holds_slice(a) || holds_slice(b),
        _ => false,
    }
}

impl Gen {
    /// The pattern of a closure given a reference to `item` (a `filter`'s,
    /// `take_while`'s, `find`'s), for `p` matching the item: `&p`, or, for
    /// a tuple, now and then the tuple itself, whose names are references
    /// the closure takes by value first (`Pat::RefMatch`).
    fn test_pat(&mut self, p: Pat, item: &ItemTy) -> Pat {
        // (not one with a `&` inside: under a reference, `(i, &v)` binds
        // `v` by value already)
        fn has_amp(p: &Pat) -> bool {
            match p {
                Pat::Name(_) => false,
                Pat::Amp(_) => true,
                Pat::Pair(a, b) => has_amp(a) || has_amp(b),
                Pat::RefMatch(p) => has_amp(p),
            }
        }
        if matches!(p, Pat::Pair(..))
            && !has_amp(&p)
            && !holds_slice(item)
            && !avoid("ref-patterns")
            && self.chance(0.4)
        {
            return Pat::RefMatch(Box::new(p));
        }
        Pat::Amp(Box::new(p))
    }

    fn idiom_stmt(&mut self, depth: usize) -> Option<Stmt> {
        let nested = depth < 2;
        match self.rng.gen_range(0..21) {
            0..=3 if nested && !avoid("iterators") => self.for_chain(depth),
            4 if !avoid("iterators") => self.iter_mut_stmt(),
            5..=6 if !avoid("destructuring") => self.destructure(),
            7 if !avoid("destructuring") => Some(self.let_tuple()),
            8 if !avoid("closures") => Some(self.let_closure()),
            9 if !avoid("closures") => Some(self.let_arr_closure()),
            10..=11 if nested && !avoid("match") => Some(self.match_stmt(depth)),
            12..=13 if nested && !avoid("summed-calls") => self.sum_of_calls(depth),
            14 if !avoid("split-at") => self.split_at(),
            15..=16 if !avoid("searches") => self.search_stmt(),
            17 if !avoid("swaps") && self.has_mutable_float() => self.swap_stmt(),
            18 if nested && !avoid("scratch-buffers") => self.scratch_loop(depth),
            19 if nested && !avoid("ping-pong") => self.ping_pong(),
            20 if nested && !avoid("layers") => self.layer(depth),
            _ if !avoid("matrices") && self.chance(0.5) => self.matrix_stmt(),
            _ => None,
        }
    }

    /// A scratch buffer every iteration of a loop fills before reading it,
    /// declared before the loop or first in its body, as users write
    /// either (`lower/buffers.rs` lowers a `vec!` as declared before, an
    /// array as declared inside): `{ let mut b = vec![0.0; N]; for i in
    /// 0..M { for j in 0..N { b[j] = e; } .. acc += b[k]; } }`.
    fn scratch_loop(&mut self, depth: usize) -> Option<Stmt> {
        let name = self.unshadowing_local().ok()?;
        let len = self.rng.gen_range(1..=4);
        let (init, class) = match self.chance(0.6) {
            true => (BufInit::VecZeros(IntExpr::Lit(len)), BufClass::LocalVec),
            false => (BufInit::Zeros(len), BufClass::LocalArray),
        };
        let decl = Stmt::LetBuf {
            name: name.clone(),
            init,
            annotate: self.chance(0.3),
            mutable: true,
        };
        let inside = self.chance(0.5);
        // where the buffer's elements end up: a mutable float declared
        // before (its name may not be shadowed by the body's)
        let acc = (self.visible().into_iter())
            .filter(|b| !self.frozen.contains(&b.id))
            .filter_map(|b| match b.kind {
                Kind::Float { mutable: true, .. } => Some(b.name),
                _ => None,
            })
            .next();
        let mark = self.env.len();
        let frozen_mark = self.frozen.len();
        let (i, j) = (self.fresh_local(), self.fresh_local());
        if [&i, &j].iter().any(|n| **n == name) || i == j {
            return None;
        }
        let trips = self.rng.gen_range(1..=3);
        self.bind(
            &i,
            Kind::Int {
                lo: 0,
                hi: trips - 1,
            },
        );
        let fill_mark = self.env.len();
        self.bind(&j, Kind::Int { lo: 0, hi: len - 1 });
        let value = self.expr(2);
        self.env.truncate(fill_mark);
        let fill = fill_loop(&name, &j, len, value);
        self.bind(
            &name,
            Kind::Buf {
                len,
                writable: true,
                class,
                inactive: false,
            },
        );
        self.loop_depth += 1;
        let rest = self.block(false, depth + 1);
        self.loop_depth -= 1;
        self.env.truncate(mark);
        self.frozen.truncate(frozen_mark);
        let mut stmts = Vec::new();
        if inside {
            stmts.push(decl.clone());
        }
        stmts.push(fill);
        // read right after the fill, before the body's statements, which
        // may bind the buffer's or the accumulator's name again (#20 of
        // 1128845); not a loop index (`for t0 in ..` hides a float `t0`,
        // #420 of 1128839)
        let acc = acc.filter(|a| *a != i && *a != j);
        let k = self.rng.gen_range(0..len);
        if let Some(acc) = acc {
            stmts.push(Stmt::Assign {
                place: Place::Local(acc),
                op: AssignOp::Add,
                value: Expr::Elem(name.clone(), IntExpr::Lit(k)),
            });
        }
        stmts.extend(rest.stmts);
        let looped = Stmt::For {
            pat: ForPat::Index(i),
            iter: up_to(trips),
            body: Block { stmts, tail: None },
        };
        let mut outer = Vec::new();
        if !inside {
            outer.push(decl);
        }
        outer.push(looped);
        Some(Stmt::Block(Block {
            stmts: outer,
            tail: None,
        }))
    }

    /// A layer's units: a local `Vec` as long as a slice (a parameter's or
    /// a local `Vec`'s), filled by a loop over that slice's length (a count
    /// the macro may not write out) with a costly function of each index's value, then read:
    /// `{ let mut h = vec![0.0; L]; for j in 0..w.len() { h[j] = (e).tanh(); }
    /// acc += h[k]; .. }` (the `+=` where a mutable float is in scope; the
    /// value sometimes through a buffer the loop's body declares) — what a replayed loop's reverse reads back
    /// instead of computing again (`Plan::reloads`).
    fn layer(&mut self, depth: usize) -> Option<Stmt> {
        let slices: Vec<(String, usize)> = (self.visible().into_iter())
            .filter_map(|b| match b.kind {
                Kind::Buf {
                    len,
                    class: BufClass::Slice | BufClass::ArrayRef | BufClass::LocalVec,
                    ..
                } if len > 0 => Some((b.name, len)),
                _ => None,
            })
            .collect();
        if slices.is_empty() {
            return None;
        }
        let (w, len) = self.pick(&slices).clone();
        // where the units end up: a mutable float declared before
        let acc = (self.visible().into_iter())
            .filter(|b| !self.frozen.contains(&b.id))
            .filter_map(|b| match b.kind {
                Kind::Float { mutable: true, .. } => Some(b.name),
                _ => None,
            })
            .next();
        let name = self.unshadowing_local().ok()?;
        let j = self.fresh_local();
        if name == j || name == w || j == w {
            return None;
        }
        let acc = acc.filter(|a| *a != name && *a != j);
        let mark = self.env.len();
        let frozen_mark = self.frozen.len();
        self.bind(&j, Kind::Int { lo: 0, hi: len - 1 });
        let e = self.expr(2);
        self.env.truncate(mark);
        let m = *self.pick(&["tanh", "sin", "cos", "atan"]);
        // (the slice's element added in, so that the value varies when the
        // slice does)
        let e = Expr::Bin(
            BinOp::Add,
            Box::new(e),
            Box::new(Expr::Elem(w.clone(), IntExpr::Var(j.clone()))),
        );
        let value = self.m1(m, e);
        // now and then through a buffer of the loop's body, stored into and
        // read back in each iteration (`t[j] = (e).tanh(); h[j] = t[j];`:
        // the replay declares it again, so the value is not read back from
        // it)
        let temp = self.fresh_local();
        let through_temp = self.chance(0.3) && ![&name, &j, &w].contains(&&temp);
        let stmts = match through_temp {
            true => vec![
                Stmt::LetBuf {
                    name: temp.clone(),
                    init: BufInit::VecZeros(IntExpr::Lit(len)),
                    annotate: false,
                    mutable: true,
                },
                Stmt::Assign {
                    place: Place::Elem(temp.clone(), IntExpr::Var(j.clone())),
                    op: AssignOp::Set,
                    value,
                },
                Stmt::Assign {
                    place: Place::Elem(name.clone(), IntExpr::Var(j.clone())),
                    op: AssignOp::Set,
                    value: Expr::Elem(temp, IntExpr::Var(j.clone())),
                },
            ],
            false => vec![Stmt::Assign {
                place: Place::Elem(name.clone(), IntExpr::Var(j.clone())),
                op: AssignOp::Set,
                value,
            }],
        };
        let fill = Stmt::For {
            pat: ForPat::Index(j.clone()),
            iter: ForIter::Range {
                lo: IntExpr::Lit(0),
                hi: IntExpr::Len(w),
                inclusive: false,
                rev: false,
            },
            body: Block { stmts, tail: None },
        };
        let decl = Stmt::LetBuf {
            name: name.clone(),
            init: BufInit::VecZeros(IntExpr::Lit(len)),
            annotate: self.chance(0.3),
            mutable: true,
        };
        self.bind(
            &name,
            Kind::Buf {
                len,
                writable: true,
                class: BufClass::LocalVec,
                inactive: false,
            },
        );
        // read right after the fill, before the statements that follow,
        // which may bind the buffer's or the accumulator's name again
        let k = self.rng.gen_range(0..len);
        let mut stmts = vec![decl, fill];
        if let Some(acc) = acc {
            stmts.push(Stmt::Assign {
                place: Place::Local(acc),
                op: AssignOp::Add,
                value: Expr::Elem(name.clone(), IntExpr::Lit(k)),
            });
        }
        let rest = self.block(false, depth + 1);
        self.env.truncate(mark);
        self.frozen.truncate(frozen_mark);
        stmts.extend(rest.stmts);
        Some(Stmt::Block(Block { stmts, tail: None }))
    }

    /// A loop of the function body over one parameter slice's indices
    /// around one over another's, adding a value of the outer index times a
    /// costly function of the inner slice's element, which the outer loop
    /// does not change (`lower/tabulate.rs` computes it once per element,
    /// before the outer loop): `for s in 0..a.len() { for j in 0..w.len() {
    /// acc += e(s) * (w[j] * c).exp(); } }`, now and then with the inner
    /// loop's element bound by a `let` first.
    fn tabulated(&mut self) -> Option<Stmt> {
        let slices: Vec<(String, usize)> = (self.visible().into_iter())
            .filter_map(|b| match b.kind {
                Kind::Buf {
                    len,
                    class: BufClass::Slice | BufClass::ArrayRef,
                    ..
                } if len > 0 => Some((b.name, len)),
                _ => None,
            })
            .collect();
        if slices.is_empty() {
            return None;
        }
        let (a, a_len) = self.pick(&slices).clone();
        let (w, w_len) = self.pick(&slices).clone();
        let (acc, acc_id) = (self.visible().into_iter())
            .filter(|b| !self.frozen.contains(&b.id))
            .filter_map(|b| match b.kind {
                Kind::Float { mutable: true, .. } => Some((b.name, b.id)),
                _ => None,
            })
            .next()?;
        let (s, j, v) = (self.fresh_local(), self.fresh_local(), self.fresh_local());
        let names = [&acc, &a, &w, &s, &j, &v];
        for (k, x) in names.iter().enumerate() {
            if names[k + 1..].contains(x) {
                return None;
            }
        }
        // (everything bound first, as it is where the sum is written: the
        // value of the outer index may read what they shadow only as them)
        let mark = self.env.len();
        let frozen_mark = self.frozen.len();
        self.bind(
            &s,
            Kind::Int {
                lo: 0,
                hi: a_len - 1,
            },
        );
        self.bind(
            &j,
            Kind::Int {
                lo: 0,
                hi: w_len - 1,
            },
        );
        let bound = self.chance(0.4);
        if bound {
            self.bind(
                &v,
                Kind::Float {
                    mutable: false,
                    deref: false,
                },
            );
        }
        // (the sum is not assigned inside its own increment)
        self.frozen.push(acc_id);
        let outer = self.expr(1);
        self.frozen.truncate(frozen_mark);
        let c = 0.25 + 0.5 * self.rng.gen_range(0..4) as f64;
        let element = Expr::Elem(w.clone(), IntExpr::Var(j.clone()));
        let m = *self.pick(&["exp", "tanh", "sin", "atan", "cos"]);
        let of = match bound {
            true => Expr::Local(v.clone()),
            false => element.clone(),
        };
        let costly = self.m1(
            m,
            Expr::Bin(BinOp::Mul, Box::new(of), Box::new(Expr::Lit(c, false))),
        );
        let value = Expr::Bin(BinOp::Mul, Box::new(self.squash(outer)), Box::new(costly));
        self.env.truncate(mark);
        let mut inner = Vec::new();
        if bound {
            inner.push(Stmt::Let {
                name: v,
                mutable: false,
                annotate: false,
                init: element,
            });
        }
        inner.push(Stmt::Assign {
            place: Place::Local(acc),
            op: AssignOp::Add,
            value,
        });
        let range = |of: String| ForIter::Range {
            lo: IntExpr::Lit(0),
            hi: IntExpr::Len(of),
            inclusive: false,
            rev: false,
        };
        Some(Stmt::For {
            pat: ForPat::Index(s),
            iter: range(a),
            body: Block {
                stmts: vec![Stmt::For {
                    pat: ForPat::Index(j),
                    iter: range(w),
                    body: Block {
                        stmts: inner,
                        tail: None,
                    },
                }],
                tail: None,
            },
        })
    }

    /// Two local `Vec`s of one length that a time-stepping loop uses in
    /// turn, swapped after each step as users write it: `for s in 0..T {
    /// for j in 0..L { b[j] = c·a[j] + c'·a[(j + 1) % L] + e; }
    /// std::mem::swap(&mut a, &mut b); }` (or `(a, b) = (b, a);`). Without
    /// such a pair in scope, the second buffer, `let mut b = vec![0.0; L];`,
    /// bound where the first is visible (in the function's body, a pair
    /// the emitter may exchange whole, `Body::swapped_buffers`).
    fn ping_pong(&mut self) -> Option<Stmt> {
        let bufs: Vec<(String, usize)> = (self.visible().into_iter())
            .filter(|b| !self.frozen.contains(&b.id))
            .filter_map(|b| match b.kind {
                Kind::Buf {
                    len,
                    writable: true,
                    class: BufClass::LocalVec,
                    inactive: false,
                } => Some((b.name, len)),
                _ => None,
            })
            .collect();
        let mut pairs = Vec::new();
        for (k, (a, len)) in bufs.iter().enumerate() {
            for (b, other) in &bufs[k + 1..] {
                if len == other && a != b {
                    pairs.push((a.clone(), b.clone(), *len));
                }
            }
        }
        if pairs.is_empty() {
            if bufs.is_empty() {
                return None;
            }
            let len = self.pick(&bufs).1;
            let name = self.unshadowing_local().ok()?;
            if bufs.iter().any(|(a, _)| *a == name) {
                return None;
            }
            self.bind(
                &name,
                Kind::Buf {
                    len,
                    writable: true,
                    class: BufClass::LocalVec,
                    inactive: false,
                },
            );
            return Some(Stmt::LetBuf {
                name,
                init: BufInit::VecZeros(IntExpr::Lit(len)),
                annotate: self.chance(0.3),
                mutable: true,
            });
        }
        let (a, b, len) = self.pick(&pairs).clone();
        let (s, j) = (self.fresh_local(), self.fresh_local());
        if s == j || [&s, &j].iter().any(|n| **n == a || **n == b) {
            return None;
        }
        let trips = self.rng.gen_range(1..=4);
        let mark = self.env.len();
        self.bind(
            &s,
            Kind::Int {
                lo: 0,
                hi: trips - 1,
            },
        );
        self.bind(&j, Kind::Int { lo: 0, hi: len - 1 });
        let e = self.expr(1);
        self.env.truncate(mark);
        let (c, c_next) = (
            self.rng.gen_range(2..=8) as f64 / 10.0,
            self.rng.gen_range(1..=3) as f64 / 10.0,
        );
        let at = |i: IntExpr| Expr::Elem(a.clone(), i);
        let next = IntExpr::Rem(
            Box::new(IntExpr::Add(
                Box::new(IntExpr::Var(j.clone())),
                Box::new(IntExpr::Lit(1)),
            )),
            Box::new(IntExpr::Lit(len)),
        );
        let mul =
            |k: f64, x: Expr| Expr::Bin(BinOp::Mul, Box::new(Expr::Lit(k, false)), Box::new(x));
        let value = Expr::Bin(
            BinOp::Add,
            Box::new(Expr::Bin(
                BinOp::Sub,
                Box::new(mul(c, at(IntExpr::Var(j.clone())))),
                Box::new(mul(c_next, at(next))),
            )),
            Box::new(e),
        );
        let fill = fill_loop(&b, &j, len, value);
        let mem = self.chance(0.7);
        Some(Stmt::For {
            pat: ForPat::Index(s),
            iter: up_to(trips),
            body: Block {
                stmts: vec![fill, Stmt::Swap { a, b, mem }],
                tail: None,
            },
        })
    }

    /// A visible mutable float local that no loop has frozen.
    fn has_mutable_float(&self) -> bool {
        (self.visible().into_iter()).any(|b| {
            !self.frozen.contains(&b.id) && matches!(b.kind, Kind::Float { mutable: true, .. })
        })
    }

    /// `std::mem::swap(&mut a, &mut b);` (or `(a, b) = (b, a);`) of two
    /// visible mutable float locals, or of one and a new local in a block
    /// (`{ let mut t: f64 = e; std::mem::swap(&mut a, &mut t); }`: `a`
    /// takes `e`).
    fn swap_stmt(&mut self) -> Option<Stmt> {
        let floats: Vec<String> = (self.visible().into_iter())
            .filter(|b| !self.frozen.contains(&b.id))
            .filter_map(|b| match b.kind {
                Kind::Float { mutable: true, .. } => Some(b.name),
                _ => None,
            })
            .collect();
        let a = self.pick(&floats).clone();
        let mem = self.chance(0.7);
        let others: Vec<String> = floats.into_iter().filter(|n| *n != a).collect();
        if !others.is_empty() && self.chance(0.5) {
            let b = self.pick(&others).clone();
            return Some(Stmt::Swap { a, b, mem });
        }
        let init = self.expr(2);
        let Ok(t) = self.unshadowing_local() else {
            return None;
        };
        let let_t = Stmt::Let {
            name: t.clone(),
            mutable: true,
            annotate: true,
            init,
        };
        let swap = Stmt::Swap { a, b: t, mem };
        Some(Stmt::Block(Block {
            stmts: vec![let_t, swap],
            tail: None,
        }))
    }

    /// A local array of arrays, or a store into one that is visible and
    /// mutable (`m[i][j] op= e;`).
    fn matrix_stmt(&mut self) -> Option<Stmt> {
        let writable: Vec<(String, usize, usize)> = self
            .visible()
            .into_iter()
            .filter_map(|b| match b.kind {
                Kind::Mat {
                    rows,
                    cols,
                    mutable: true,
                } => Some((b.name, rows, cols)),
                _ => None,
            })
            .collect();
        if !writable.is_empty() && self.chance(0.6) {
            let (name, rows, cols) = self.pick(&writable).clone();
            let i = self.index(rows);
            let j = self.index(cols);
            let op = *self.pick(&[AssignOp::Set, AssignOp::Add, AssignOp::Sub, AssignOp::Mul]);
            let value = match op {
                AssignOp::Mul => self.bounded(),
                _ => self.expr(2),
            };
            return Some(Stmt::Assign {
                place: Place::MatElem(name, i, j),
                op,
                value,
            });
        }
        let name = self.fresh_local();
        let (rows, cols) = (self.rng.gen_range(1..=3), self.rng.gen_range(1..=3));
        let items = match self.chance(0.5) {
            true => Some(
                (0..rows)
                    .map(|_| (0..cols).map(|_| self.expr(2)).collect())
                    .collect(),
            ),
            false => None,
        };
        let vec = items.is_none() && self.chance(0.4);
        let mutable = items.is_none() || self.chance(0.5);
        self.bind(
            &name,
            Kind::Mat {
                rows,
                cols,
                mutable,
            },
        );
        Some(Stmt::LetMat {
            name,
            rows,
            cols,
            items,
            vec,
            mutable,
        })
    }

    /// A search of a float buffer bound as an index (`let j =
    /// buf.partition_point(|a| *a < 0.5).min(len - 1);`), or a sort of a
    /// local buffer (`buf.sort_by(|a, b| a.total_cmp(b));`): the search is
    /// code the macro keeps as written and must not recompute from a
    /// buffer changed since; the sort a permutation of the derivatives.
    fn search_stmt(&mut self) -> Option<Stmt> {
        let locals: Vec<(String, usize)> = [BufClass::LocalArray, BufClass::LocalVec]
            .into_iter()
            .flat_map(|class| self.writable_bufs(Some(class)))
            .collect();
        if !locals.is_empty() && self.chance(0.4) {
            let (buf, _) = self.pick(&locals).clone();
            let descending = self.chance(0.5);
            return Some(Stmt::Sort { buf, descending });
        }
        let sources: Vec<(String, usize)> = self
            .visible()
            .into_iter()
            .filter_map(|b| match b.kind {
                Kind::Buf { len, .. } if len >= 1 => Some((b.name, len)),
                _ => None,
            })
            .collect();
        if sources.is_empty() {
            return None;
        }
        let (buf, len) = self.pick(&sources).clone();
        let bound = self.lit_value(-1.0, 1.5);
        let name = self.unshadowing_local().ok()?;
        self.bind(&name, Kind::Int { lo: 0, hi: len - 1 });
        Some(Stmt::Search {
            name,
            buf,
            len,
            bound,
        })
    }

    /// `let (lo, hi) = buf.split_at(at);` of a buffer nothing writes (the
    /// views borrow it to the end of the block): two read-only slices.
    fn split_at(&mut self) -> Option<Stmt> {
        let sources: Vec<(String, usize, bool)> = self
            .visible()
            .into_iter()
            .filter_map(|b| match b.kind {
                Kind::Buf {
                    len,
                    writable: false,
                    inactive,
                    ..
                } if len >= 2 => Some((b.name, len, inactive)),
                _ => None,
            })
            .collect();
        if sources.is_empty() {
            return None;
        }
        let (buf, len, inactive) = self.pick(&sources).clone();
        let at = self.rng.gen_range(1..len);
        let mut used = vec![buf.clone()];
        let lo = self.fresh_distinct(&mut used);
        let hi = self.fresh_distinct(&mut used);
        for (name, n) in [(&lo, at), (&hi, len - at)] {
            self.bind(
                name,
                Kind::Buf {
                    len: n,
                    writable: false,
                    class: BufClass::Slice,
                    inactive,
                },
            );
        }
        Some(Stmt::SplitAt { buf, at, lo, hi })
    }

    /// A loop summing a helper's value into a float local, the way a loss
    /// over samples is written: `acc += h(&buf, ..) - e` (or `acc -= h(..)`,
    /// `acc += e - h(..)`, `acc += -h(..)`), with a buffer the body
    /// declares and fills first. Where the loop is fused (the function
    /// body's, its sum used linearly after), the macro calls the helper's
    /// adjoint alone, in the forward code (`emit/reverse.rs`,
    /// `early_calls`).
    fn sum_of_calls(&mut self, depth: usize) -> Option<Stmt> {
        if self.callable.is_empty() {
            return None;
        }
        let targets: Vec<String> = self
            .visible()
            .into_iter()
            .filter(|b| {
                !self.frozen.contains(&b.id) && matches!(b.kind, Kind::Float { mutable: true, .. })
            })
            .map(|b| b.name)
            .collect();
        if targets.is_empty() {
            return None;
        }
        let target = self.pick(&targets).clone();
        let mark = self.env.len();
        let (lo, lo_v, _) = self.int_expr_in(0, 2);
        let (hi, _, hi_v) = self.int_expr_in(lo_v, lo_v + 3);
        let index = self.fresh_local();
        // (not the sum's name: it would shadow the sum — seed 1128309 #285)
        if index == target {
            return None;
        }
        self.bind(
            &index,
            Kind::Int {
                lo: lo_v,
                hi: hi_v.saturating_sub(1).max(lo_v),
            },
        );
        self.loop_depth += 1;
        let mut stmts = Vec::new();
        if self.chance(0.7) {
            let before = self.env.len();
            let buf = self.let_buf();
            // (not one that shadows the sum: `acc += ..` would then add
            // to the buffer — seed 1128305 #113)
            if self.env[before..].iter().any(|b| b.name == target) {
                self.env.truncate(before);
            } else {
                stmts.push(buf);
                for _ in 0..self.rng.gen_range(0..3) {
                    stmts.extend(self.assign());
                }
            }
        }
        let call = Box::new(self.call(depth + 1));
        let other = Box::new(self.expr(2));
        let (op, value) = match self.rng.gen_range(0..4) {
            0 => (AssignOp::Add, Expr::Bin(BinOp::Sub, call, other)),
            1 => (AssignOp::Sub, *call),
            2 => (AssignOp::Add, Expr::Bin(BinOp::Sub, other, call)),
            _ => (AssignOp::Add, Expr::Neg(call)),
        };
        stmts.push(Stmt::Assign {
            place: Place::Local(target),
            op,
            value,
        });
        self.loop_depth -= 1;
        self.env.truncate(mark);
        Some(Stmt::For {
            pat: ForPat::Index(index),
            iter: ForIter::Range {
                lo,
                hi,
                inclusive: false,
                rev: false,
            },
            body: Block { stmts, tail: None },
        })
    }

    fn idiom_expr(&mut self, depth: usize) -> Option<Expr> {
        match self.rng.gen_range(0..10) {
            0..=4 if self.cond_depth == 0 && self.chain_depth < 2 && !avoid("iterators") => {
                self.chain_depth += 1;
                let e = self.chain_value(depth);
                self.chain_depth -= 1;
                e
            }
            5..=6 if !avoid("get") => {
                let bufs: Vec<(String, usize)> = self
                    .visible()
                    .into_iter()
                    .filter_map(|b| match b.kind {
                        Kind::Buf { len, .. } => Some((b.name, len)),
                        _ => None,
                    })
                    .collect();
                if bufs.is_empty() {
                    return None;
                }
                let (n, len) = self.pick(&bufs).clone();
                let (i, _, _) = self.int_expr_in(0, len + 1);
                let v = self.expr(depth - 1);
                let form = match self.rng.gen_range(0..10) {
                    0..=2 if !avoid("if-let") => GetForm::IfLet,
                    3..=4 if !avoid("option-map") => GetForm::Map,
                    5..=6 => GetForm::Cloned,
                    _ => GetForm::Copied,
                };
                Some(Expr::GetOr(n, i, Box::new(v), form))
            }
            7..=8 if self.cond_depth == 0 && self.value_depth == 0 && !avoid("match") => {
                self.value_depth += 1;
                let (scrut, pats) = self.match_head();
                let mark = self.arm_scope(&scrut);
                let arms = pats
                    .into_iter()
                    .map(|(p, g)| (p, g, self.value_block(depth - 1)))
                    .collect();
                self.env.truncate(mark);
                self.value_depth -= 1;
                Some(Expr::Match(Box::new(scrut), arms))
            }
            _ => None,
        }
    }

    /// Hides every mutable local and writable buffer (for closures that
    /// live across statements), and the counters a later statement may
    /// step (a closure reading one borrows it: seed 249846352 #2071).
    /// Returns the mark to truncate to.
    fn hide_mutables(&mut self) -> usize {
        let mark = self.env.len();
        for b in self.visible() {
            let hide = match b.kind {
                Kind::Float { mutable, .. }
                | Kind::Tuple { mutable, .. }
                | Kind::Mat { mutable, .. } => mutable,
                Kind::Buf { writable, .. } => writable,
                Kind::Int { .. } => self.counters.contains(&b.name),
                _ => false,
            };
            if hide {
                self.bind(&b.name, Kind::Hidden);
            }
        }
        mark
    }

    /// A fresh name not in `used` (pattern names must differ).
    fn fresh_distinct(&mut self, used: &mut Vec<String>) -> String {
        // (a bound, so that a pattern that has taken every name of the pool
        // gets one suffixed rather than spinning for ever: seed 1128 #696,
        // nests, hung; a program that got a name within it is unchanged)
        for _ in 0..10_000 {
            let n = self.fresh_local();
            if !used.contains(&n) {
                used.push(n.clone());
                return n;
            }
        }
        let base = self.fresh_local();
        let n = (2..)
            .map(|k| format!("{base}_{k}"))
            .find(|c| !used.contains(c))
            .expect("a free name");
        used.push(n.clone());
        n
    }

    /// A pattern for `ty`, binding its names.
    fn pat_for(&mut self, ty: &ItemTy, used: &mut Vec<String>) -> Pat {
        match ty {
            ItemTy::RefF => {
                let v = self.fresh_distinct(used);
                if self.chance(0.5) {
                    self.bind(
                        &v,
                        Kind::Float {
                            mutable: false,
                            deref: true,
                        },
                    );
                    Pat::Name(v)
                } else {
                    self.bind(
                        &v,
                        Kind::Float {
                            mutable: false,
                            deref: false,
                        },
                    );
                    Pat::Amp(Box::new(Pat::Name(v)))
                }
            }
            ItemTy::F => {
                let v = self.fresh_distinct(used);
                self.bind(
                    &v,
                    Kind::Float {
                        mutable: false,
                        deref: false,
                    },
                );
                Pat::Name(v)
            }
            ItemTy::Usize(lo, hi) => {
                let v = self.fresh_distinct(used);
                self.bind(&v, Kind::Int { lo: *lo, hi: *hi });
                Pat::Name(v)
            }
            ItemTy::Slice {
                len,
                exact,
                inactive,
            } => {
                let v = self.fresh_distinct(used);
                let kind = if *exact {
                    Kind::Buf {
                        len: *len,
                        writable: false,
                        class: BufClass::Slice,
                        inactive: *inactive,
                    }
                } else {
                    Kind::Chunk { len: *len }
                };
                self.bind(&v, kind);
                Pat::Name(v)
            }
            ItemTy::Pair(a, b) => {
                let a = self.pat_for(a, used);
                let b = self.pat_for(b, used);
                Pat::Pair(Box::new(a), Box::new(b))
            }
        }
    }

    fn pos_ops(&mut self, n: usize, allow_rev: bool) -> Vec<PosOp> {
        let mut ops = Vec::new();
        let mut n = n;
        // `rev` first only: `(a..=b).skip(1).rev()` is not double-ended.
        if allow_rev && self.chance(0.3) {
            ops.push(PosOp::Rev);
        }
        for _ in 0..self.rng.gen_range(0..=2) {
            let op = match self.rng.gen_range(0..3) {
                0 => PosOp::Skip(self.rng.gen_range(0..=n.min(2))),
                1 => PosOp::Take(self.rng.gen_range(1..=n.max(1))),
                _ => PosOp::StepBy(self.rng.gen_range(1..=3)),
            };
            n = match op {
                PosOp::Skip(k) => n - k,
                PosOp::Take(k) => n.min(k),
                PosOp::StepBy(k) => n.div_ceil(k),
                PosOp::Rev => n,
            };
            ops.push(op);
        }
        ops
    }

    /// A source over a visible buffer or a range; its item type and the
    /// buffer it borrows.
    fn chain_src(&mut self, for_plain: bool) -> (Src, Option<usize>, bool) {
        let bufs: Vec<Binding> = self
            .visible()
            .into_iter()
            .filter(|b| matches!(b.kind, Kind::Buf { .. }))
            .collect();
        if bufs.is_empty() || self.chance(0.25) {
            let a = self.rng.gen_range(0..=2);
            let b = a + self.rng.gen_range(0..=3);
            let (lo, _, _) = self.int_expr_in(a, a);
            let (hi, _, _) = self.int_expr_in(b, b);
            let inclusive = self.chance(0.4);
            let end = if inclusive { b + 1 } else { b };
            return (
                Src::Range {
                    lo,
                    hi,
                    inclusive,
                    start: a,
                    end,
                },
                None,
                false,
            );
        }
        let b = self.pick(&bufs).clone();
        let Kind::Buf {
            len,
            class,
            inactive,
            ..
        } = b.kind
        else {
            unreachable!()
        };
        if self.chance(0.2) && !avoid("windows") {
            let kind = *self.pick(&[
                SliceKind::Windows,
                SliceKind::Chunks,
                SliceKind::ChunksExact,
            ]);
            let k = self.rng.gen_range(1..=len);
            return (
                Src::Slices {
                    buf: b.name,
                    len,
                    k,
                    kind,
                },
                Some(b.id),
                inactive,
            );
        }
        let (lo, hi, sliced) = if self.chance(0.3) {
            let lo = self.rng.gen_range(0..len);
            let hi = self.rng.gen_range(lo + 1..=len);
            (lo, hi, true)
        } else {
            (0, len, false)
        };
        let by_ref = matches!(class, BufClass::Slice | BufClass::ArrayRef);
        let how = if for_plain && (sliced || by_ref) && self.chance(0.3) {
            How::Plain
        } else {
            *self.pick(&[How::Ref, How::Ref, How::Copied, How::Cloned])
        };
        (
            Src::Elems {
                buf: b.name,
                len,
                lo,
                hi,
                sliced,
                how,
            },
            Some(b.id),
            inactive,
        )
    }

    fn src_len(src: &Src) -> usize {
        match src {
            Src::Elems { lo, hi, .. } => hi - lo,
            Src::Range { start, end, .. } => end - start,
            Src::Slices { len, k, .. } => len / k + 1,
        }
    }

    fn src_ty(src: &Src, inactive: bool, vals: &[usize]) -> ItemTy {
        match src {
            Src::Elems { how, .. } => match how {
                How::Ref | How::Plain => ItemTy::RefF,
                _ => ItemTy::F,
            },
            Src::Range { .. } => ItemTy::Usize(
                vals.iter().copied().min().unwrap_or(0),
                vals.iter().copied().max().unwrap_or(0),
            ),
            Src::Slices { len, k, kind, .. } => {
                let exact = *kind != SliceKind::Chunks || len % k == 0;
                ItemTy::Slice {
                    len: if exact { *k } else { len % k },
                    exact,
                    inactive,
                }
            }
        }
    }

    /// A chain without its consumer; the type of its items and the
    /// buffers it borrows. `in_for`: its closures live while a loop body
    /// runs, so they read no mutable local.
    fn chain(&mut self, depth: usize, in_for: bool) -> (Chain, ItemTy, Vec<usize>) {
        let mut ids = Vec::new();
        let (src, id, inactive) = self.chain_src(in_for);
        ids.extend(id);
        let plain = matches!(
            src,
            Src::Elems {
                how: How::Plain,
                ..
            }
        );
        let pos = if plain {
            vec![]
        } else {
            self.pos_ops(Self::src_len(&src), true)
        };
        let mut second = None;
        let pair = if plain {
            Pair::None
        } else {
            match self.rng.gen_range(0..10) {
                0..=1 => Pair::Enumerate,
                2..=3 => {
                    let (s2, id2, inactive2) = self.chain_src(true);
                    ids.extend(id2);
                    let p2 = if matches!(
                        s2,
                        Src::Elems {
                            how: How::Plain,
                            ..
                        }
                    ) {
                        vec![]
                    } else {
                        self.pos_ops(Self::src_len(&s2), true)
                    };
                    second = Some(inactive2);
                    Pair::Zip(Box::new(s2), p2)
                }
                4 => Pair::ZipFrom(self.rng.gen_range(0..=2)),
                _ => Pair::None,
            }
        };
        let mut chain = Chain {
            src,
            pos,
            pair,
            after: vec![],
            stages: vec![],
        };
        if !matches!(chain.pair, Pair::None) && !avoid("after-pair") && self.chance(0.3) {
            // (`rev` needs an exact size: no `a..=b`, no `zip(k..)`)
            let inclusive = |s: &Src| {
                matches!(
                    s,
                    Src::Range {
                        inclusive: true,
                        ..
                    }
                )
            };
            let exact = !inclusive(&chain.src)
                && match &chain.pair {
                    Pair::Zip(s2, _) => !inclusive(s2),
                    Pair::ZipFrom(_) => false,
                    _ => true,
                };
            chain.after = self.pos_ops(chain_positions(&chain).len(), exact);
        }
        let positions = chain_positions(&chain);
        let ps: Vec<usize> = positions.iter().map(|t| t.0).collect();
        let rs: Vec<usize> = positions.iter().map(|t| t.2).collect();
        let range = |v: &[usize]| {
            ItemTy::Usize(
                v.iter().copied().min().unwrap_or(0),
                v.iter().copied().max().unwrap_or(0),
            )
        };
        let a = Self::src_ty(&chain.src, inactive, &ps);
        let mut item = match &chain.pair {
            Pair::None => a,
            Pair::Enumerate => ItemTy::Pair(Box::new(range(&rs)), Box::new(a)),
            Pair::ZipFrom(_) => ItemTy::Pair(Box::new(a), Box::new(range(&rs))),
            Pair::Zip(s2, _) => {
                let b = Self::src_ty(s2, second.unwrap_or(false), &rs);
                ItemTy::Pair(Box::new(a), Box::new(b))
            }
        };
        if !avoid("closures") && !plain {
            for _ in 0..self.rng.gen_range(0..=2) {
                let mark = if in_for {
                    self.hide_mutables()
                } else {
                    self.env.len()
                };
                self.chain_depth += 1;
                if self.chance(0.6) {
                    let p = self.pat_for(&item, &mut Vec::new());
                    let body = self.typed_expr(depth.saturating_sub(1).max(1));
                    chain.stages.push(Stage::Map(p, body));
                    item = ItemTy::F;
                } else {
                    let bound = self.env.len();
                    let p = self.pat_for(&item, &mut Vec::new());
                    // a test of the item itself half the time, so that
                    // some items pass and some do not
                    let c = match self.chance(0.5) {
                        true => self.item_cond(bound).unwrap_or_else(|| self.cond()),
                        false => self.cond(),
                    };
                    if !avoid("filter-map") && self.chance(0.2) {
                        // the test and a value of the item, by value
                        let body = self.typed_expr(depth.saturating_sub(1).max(1));
                        chain
                            .stages
                            .push(Stage::FilterMap(p, c, body, self.chance(0.4)));
                        item = ItemTy::F;
                        self.chain_depth -= 1;
                        self.env.truncate(mark);
                        continue;
                    }
                    let p = self.test_pat(p, &item);
                    if !avoid("while-stages") && self.chance(0.4) {
                        // the same test ending or starting the chain
                        chain.stages.push(match self.chance(0.5) {
                            true => Stage::TakeWhile(p, c),
                            false => Stage::SkipWhile(p, c),
                        });
                        self.chain_depth -= 1;
                        self.env.truncate(mark);
                        continue;
                    }
                    chain.stages.push(Stage::Filter(p, c));
                    if !avoid("filter-enumerate") && self.chance(0.3) {
                        // the position among the items that passed
                        let last = positions.len().saturating_sub(1);
                        chain.stages.push(Stage::Enumerate);
                        item = ItemTy::Pair(Box::new(ItemTy::Usize(0, last)), Box::new(item));
                        if self.chance(0.7) {
                            // a value the position weighs, so that it counts
                            // (the filter's names out of scope; the
                            // mutables `hide_mutables` hid, still hidden)
                            self.env.truncate(bound);
                            let p = self.pat_for(&item, &mut Vec::new());
                            let Pat::Pair(j, _) = &p else { unreachable!() };
                            let Pat::Name(j) = &**j else { unreachable!() };
                            let weight = Expr::Bin(
                                BinOp::Mul,
                                Box::new(Expr::Cast(IntExpr::Var(j.clone()))),
                                Box::new(Expr::Lit(0.5, false)),
                            );
                            let body = Expr::Bin(
                                BinOp::Add,
                                Box::new(self.typed_expr(1)),
                                Box::new(weight),
                            );
                            chain.stages.push(Stage::Map(p, body));
                            item = ItemTy::F;
                        }
                    }
                }
                self.chain_depth -= 1;
                self.env.truncate(mark);
            }
        }
        (chain, item, ids)
    }

    /// A comparison of the first name bound since `from` (a float or an
    /// index) with a literal: `v > 0.25`, `*v <= -0.5`, `i != 1`.
    fn item_cond(&mut self, from: usize) -> Option<Cond> {
        let binding = self.env.get(from)?.clone();
        let op = *self.pick(&[CmpOp::Lt, CmpOp::Le, CmpOp::Gt, CmpOp::Ge]);
        match binding.kind {
            Kind::Float { deref, .. } => {
                let item = match deref {
                    true => Expr::Deref(binding.name),
                    false => Expr::Local(binding.name),
                };
                let v = self.lit_value(-1.0, 1.0);
                let bound = match v < 0.0 {
                    true => Expr::Neg(Box::new(Expr::Lit(-v, false))),
                    false => Expr::Lit(v, false),
                };
                Some(Cond::Cmp(op, item, bound))
            }
            Kind::Int { lo, hi } => {
                let k = self.rng.gen_range(lo..=hi.min(lo + 4));
                Some(Cond::IntCmp(
                    op,
                    IntExpr::Var(binding.name),
                    IntExpr::Lit(k),
                ))
            }
            _ => None,
        }
    }

    /// An expression plain Rust knows is an `f64`.
    fn typed_expr(&mut self, depth: usize) -> Expr {
        let e = self.expr(depth);
        if is_typed(&e) {
            e
        } else {
            Expr::Bin(BinOp::Mul, Box::new(e), Box::new(Expr::Lit(1.0, true)))
        }
    }

    /// `(a..b).flat_map(|i| (i..b).map(move |j| body)).sum::<f64>()`, the
    /// pairs of a pairwise sum; `body` reads no value the `move` closure
    /// would take (a local `Vec`, a matrix, a closure, a float bound by
    /// reference: hidden, as the mutables are).
    fn flat_sum(&mut self, depth: usize) -> Expr {
        let a = self.rng.gen_range(0..=2);
        let b = a + self.rng.gen_range(1..=3);
        let mark = self.hide_mutables();
        for binding in self.visible() {
            // (and a float bound by reference, `*v` of an `iter_mut`: a
            // `&mut f64` the `move` closure cannot take out of the
            // `flat_map`'s `FnMut` one, #121 of 1128864)
            let owned = matches!(
                binding.kind,
                Kind::Buf {
                    class: BufClass::LocalVec,
                    ..
                } | Kind::Mat { .. }
                    | Kind::Closure { .. }
                    | Kind::Float { deref: true, .. }
            );
            if owned {
                self.bind(&binding.name, Kind::Hidden);
            }
        }
        let mut used = Vec::new();
        let i = self.fresh_distinct(&mut used);
        self.bind(&i, Kind::Int { lo: a, hi: b - 1 });
        let j = self.fresh_distinct(&mut used);
        self.bind(&j, Kind::Int { lo: a, hi: b - 1 });
        self.chain_depth += 1;
        let body = self.typed_expr(depth.saturating_sub(1).max(1));
        self.chain_depth -= 1;
        // (a term the pair weighs, so that the order of the pairs counts)
        let weight = Expr::Bin(
            BinOp::Mul,
            Box::new(Expr::Cast(IntExpr::Var(i.clone()))),
            Box::new(Expr::Bin(
                BinOp::Mul,
                Box::new(Expr::Cast(IntExpr::Var(j.clone()))),
                Box::new(Expr::Lit(0.25, false)),
            )),
        );
        let body = Expr::Bin(BinOp::Add, Box::new(body), Box::new(weight));
        self.env.truncate(mark);
        Expr::FlatSum {
            i,
            j,
            a,
            b,
            body: Box::new(body),
        }
    }

    /// `chain.sum::<f64>()`, `.product`, `.fold`, `.count() as f64`.
    fn chain_value(&mut self, depth: usize) -> Option<Expr> {
        if !avoid("closures") && !avoid("flat-map") && self.chance(0.08) {
            return Some(self.flat_sum(depth));
        }
        let (mut chain, item, _) = self.chain(depth, false);
        let roll = self.rng.gen_range(0..10);
        if roll == 9 {
            return Some(Expr::Count(Box::new(chain)));
        }
        if roll >= 7 && !avoid("closures") {
            let init = if self.chance(0.5) {
                Expr::Lit(self.lit_value(0.0, 1.5), true)
            } else {
                self.typed_expr(1)
            };
            let mark = self.env.len();
            let mut used = Vec::new();
            let acc = self.fresh_distinct(&mut used);
            self.bind(
                &acc,
                Kind::Float {
                    mutable: false,
                    deref: false,
                },
            );
            let p = self.pat_for(&item, &mut used);
            let e = self.expr(1);
            let op = *self.pick(&[BinOp::Add, BinOp::Sub, BinOp::Mul]);
            let e = if op == BinOp::Mul { self.squash(e) } else { e };
            let body = Expr::Bin(op, Box::new(Expr::Local(acc.clone())), Box::new(e));
            self.env.truncate(mark);
            return Some(Expr::Chain(
                Box::new(chain),
                Consumer::Fold(Box::new(init), acc, p, Box::new(body)),
            ));
        }
        if roll == 5 && !avoid("closures") && !avoid("find-map") && self.chance(0.6) {
            // `g` of the first item that passes, or a default
            let mark = self.env.len();
            self.chain_depth += 1;
            // (the test's names shadow nothing in scope: `find_map`'s
            // closure binds them before the body, which may read what they
            // would shadow, seed 1128890 #223)
            let mut visible: Vec<String> = self.visible().into_iter().map(|b| b.name).collect();
            let test = self.pat_for(&item, &mut visible);
            let cond = self.item_cond(mark).unwrap_or_else(|| self.cond());
            self.env.truncate(mark);
            let pat = self.pat_for(&item, &mut Vec::new());
            let body = self.typed_expr(depth.saturating_sub(1).max(1));
            self.env.truncate(mark);
            self.chain_depth -= 1;
            let default = self.typed_expr(1);
            let (next, last) = match self.rng.gen_range(0..4) {
                0 => (true, false),
                1 => (false, true),
                _ => (false, false),
            };
            let if_let = self.chance(0.3);
            let find_map = !next && !last && !if_let && self.chance(0.3);
            let cons = Consumer::Find {
                next,
                last,
                if_let,
                find_map,
                test: self.test_pat(test, &item),
                cond: Box::new(cond),
                pat,
                body: Box::new(body),
                default: Box::new(default),
                map_or: self.chance(0.5),
            };
            return Some(Expr::Chain(Box::new(chain), cons));
        }
        if !matches!(item, ItemTy::F | ItemTy::RefF) {
            if avoid("closures") {
                return Some(Expr::Count(Box::new(chain)));
            }
            let mark = self.env.len();
            let p = self.pat_for(&item, &mut Vec::new());
            let body = self.typed_expr(depth.saturating_sub(1).max(1));
            self.env.truncate(mark);
            chain.stages.push(Stage::Map(p, body));
        }
        let cons = if roll < 5 {
            Consumer::Sum
        } else if roll == 6 && !avoid("extremes") && self.chance(0.5) {
            {
                let by = self.chance(0.5);
                // the argmax over `enumerate` (refs kept or not)
                let indexed = by && !avoid("argmax") && self.chance(0.4);
                let by_ref = matches!(item, ItemTy::RefF);
                let copied = by_ref && !(indexed && self.chance(0.5));
                Consumer::Extreme {
                    max: self.chance(0.5),
                    by,
                    copied,
                    default: self.lit_value(-1.0, 1.0),
                    indexed,
                    refs: by_ref && !copied,
                }
            }
        } else {
            // Products of bounded factors stay small.
            if !avoid("closures") && self.chance(0.7) {
                let mark = self.env.len();
                let p = self.pat_for(&ItemTy::F, &mut Vec::new());
                let Pat::Name(v) = &p else { unreachable!() };
                let body = self.m1("tanh", Expr::Local(v.clone()));
                let body = Expr::Bin(BinOp::Add, Box::new(Expr::Lit(1.0, false)), Box::new(body));
                self.env.truncate(mark);
                if matches!(item, ItemTy::RefF) {
                    // items are `&f64` (a `filter` keeps them so): `|&v|`
                    chain.stages.push(Stage::Map(Pat::Amp(Box::new(p)), body));
                } else {
                    chain.stages.push(Stage::Map(p, body));
                }
            }
            Consumer::Product
        };
        Some(Expr::Chain(Box::new(chain), cons))
    }

    fn for_chain(&mut self, depth: usize) -> Option<Stmt> {
        let mark = self.env.len();
        let frozen_mark = self.frozen.len();
        let (chain, item, ids) = self.chain(2, true);
        self.frozen.extend(ids);
        let pat = self.pat_for(&item, &mut Vec::new());
        self.loop_depth += 1;
        // (`for v in xs` iterates a slice, which has no `for_each`)
        let plain = matches!(
            chain.src,
            Src::Elems {
                how: How::Plain,
                ..
            }
        );
        let for_each = !plain && !avoid("for-each") && self.chance(0.3);
        let floor = self.jump_floor;
        if for_each {
            self.jump_floor = self.loop_depth;
            self.no_return += 1;
        }
        // no counter stepped in the body: the chain's closures may read
        // one, and they borrow it for the whole loop (seed 629688626 #2091)
        let counters = std::mem::take(&mut self.counters);
        let body = self.block(false, depth + 1);
        self.counters = counters;
        if for_each {
            self.jump_floor = floor;
            self.no_return -= 1;
        }
        self.loop_depth -= 1;
        self.env.truncate(mark);
        self.frozen.truncate(frozen_mark);
        Some(Stmt::ForChain {
            pat,
            chain,
            body,
            for_each,
        })
    }

    /// The visible buffers that may be written here (of `class` when
    /// given), with their lengths.
    fn writable_bufs(&self, class: Option<BufClass>) -> Vec<(String, usize)> {
        self.visible()
            .into_iter()
            .filter(|b| !self.frozen.contains(&b.id))
            .filter_map(|b| match b.kind {
                Kind::Buf {
                    len,
                    writable: true,
                    class: c,
                    ..
                } if class.is_none() || class == Some(c) => Some((b.name, len)),
                _ => None,
            })
            .collect()
    }

    fn iter_mut_stmt(&mut self) -> Option<Stmt> {
        let targets = self.writable_bufs(None);
        if targets.is_empty() {
            return None;
        }
        let (buf, len) = self.pick(&targets).clone();
        let pos = self.pos_ops(len, true);
        let mark = self.env.len();
        self.bind(&buf, Kind::Hidden);
        let mut used = vec![buf.clone()];
        let var = self.fresh_distinct(&mut used);
        self.bind(
            &var,
            Kind::Float {
                mutable: false,
                deref: true,
            },
        );
        let index = if self.chance(0.4) {
            let j = self.fresh_distinct(&mut used);
            self.bind(
                &j,
                Kind::Int {
                    lo: 0,
                    hi: len.saturating_sub(1),
                },
            );
            Some(j)
        } else {
            None
        };
        let op = *self.pick(&[
            AssignOp::Set,
            AssignOp::Add,
            AssignOp::Add,
            AssignOp::Sub,
            AssignOp::Mul,
            AssignOp::Div,
        ]);
        let value = match op {
            AssignOp::Mul => self.bounded(),
            AssignOp::Div => self.denominator(),
            _ => self.expr(2),
        };
        self.env.truncate(mark);
        Some(Stmt::IterMut {
            buf,
            len,
            pos,
            index,
            var,
            op,
            value,
        })
    }

    fn destructure(&mut self) -> Option<Stmt> {
        let arrays: Vec<(String, usize, bool)> = self
            .visible()
            .into_iter()
            .filter_map(|b| match b.kind {
                Kind::Buf {
                    len,
                    class: BufClass::Array | BufClass::LocalArray,
                    ..
                } => Some((b.name, len, false)),
                Kind::Buf {
                    len,
                    class: BufClass::ArrayRef,
                    ..
                } => Some((b.name, len, true)),
                _ => None,
            })
            .collect();
        let (init, count, mut annotate) = match self.rng.gen_range(0..3) {
            0 => {
                let n = self.rng.gen_range(2..=3);
                let items: Vec<Expr> = (0..n).map(|_| self.expr(2)).collect();
                let untyped = items.iter().any(|e| !is_typed(e));
                (DInit::Tuple(items), n, untyped)
            }
            1 => {
                let e = self.expr(2);
                let form = self.form();
                (DInit::SinCos(e, form), 2, false)
            }
            _ => {
                if arrays.is_empty() {
                    return None;
                }
                let (src, len, deref) = self.pick(&arrays).clone();
                (DInit::Array { src, deref }, len, false)
            }
        };
        annotate |= self.chance(0.3);
        let mut used = Vec::new();
        let mut names = Vec::new();
        let mut bound = Vec::new();
        for _ in 0..count {
            if self.chance(0.15) {
                names.push((None, false));
                continue;
            }
            let n = self.fresh_distinct(&mut used);
            let m = self.chance(0.3);
            names.push((Some(n.clone()), m));
            bound.push((n, m));
        }
        for (n, m) in bound {
            self.bind(
                &n,
                Kind::Float {
                    mutable: m,
                    deref: false,
                },
            );
        }
        Some(Stmt::Destructure {
            names,
            init,
            annotate,
        })
    }

    fn let_tuple(&mut self) -> Stmt {
        let items: Vec<Expr> = (0..2).map(|_| self.expr(2)).collect();
        let annotate = items.iter().any(|e| !is_typed(e)) || self.chance(0.3);
        let name = self.fresh_local();
        let mutable = self.chance(0.4);
        self.bind(&name, Kind::Tuple { parts: 2, mutable });
        Stmt::LetTuple {
            name,
            items,
            annotate,
            mutable,
        }
    }

    /// A closure returning an array, called once: its result is read as a
    /// local array (indexed, iterated, given to helpers, subsliced).
    fn let_arr_closure(&mut self) -> Stmt {
        let closure = self.fresh_local();
        let (mark, param) = self.closure_param();
        let len = self.rng.gen_range(2..=3);
        let items: Vec<Expr> = (0..len).map(|_| self.typed_expr(2)).collect();
        self.env.truncate(mark);
        // (its name may shadow a local: not read after, the argument
        // included)
        self.bind(&closure, Kind::Hidden);
        let arg = self.typed_expr(2);
        let name = self.fresh_local();
        self.bind(
            &name,
            Kind::Buf {
                len,
                writable: false,
                class: BufClass::LocalArray,
                inactive: false,
            },
        );
        Stmt::LetArrClosure {
            closure,
            param,
            items,
            name,
            arg,
        }
    }

    /// A closure's scope: the mutable locals hidden, its `f64` parameter
    /// bound; the mark to truncate the environment back to.
    fn closure_param(&mut self) -> (usize, String) {
        let mark = self.hide_mutables();
        let param = self.fresh_local();
        self.bind(
            &param,
            Kind::Float {
                mutable: false,
                deref: false,
            },
        );
        (mark, param)
    }

    fn let_closure(&mut self) -> Stmt {
        let name = self.fresh_local();
        let by_ref = self.chance(0.3);
        let (mark, param) = self.closure_param();
        if by_ref {
            // (read as `*param`)
            if let Some(b) = self.env.last_mut() {
                b.kind = Kind::Float {
                    mutable: false,
                    deref: true,
                };
            }
        }
        let body = self.typed_expr(2);
        self.env.truncate(mark);
        self.bind(&name, Kind::Closure { by_ref });
        let rows = self.rows_closure();
        Stmt::LetClosure {
            name,
            param,
            body,
            by_ref,
            rows,
        }
    }

    /// Half the time (with the `row-closures` construct), a closure
    /// returning rows of a slice parameter, `|k: usize| &xs[k * s..k * s +
    /// len]`, bound for calls to be given (`slice_arg`); drawn from
    /// `rows_rng`.
    fn rows_closure(&mut self) -> Option<Rows> {
        if avoid("row-closures") || !self.rows_rng.gen_bool(0.5) {
            return None;
        }
        let slices: Vec<(String, usize, bool)> = (self.visible().into_iter())
            .filter_map(|b| match b.kind {
                Kind::Buf {
                    len,
                    class: BufClass::Slice,
                    inactive,
                    ..
                } if len >= 2 => Some((b.name, len, inactive)),
                _ => None,
            })
            .collect();
        if slices.is_empty() {
            return None;
        }
        let (buf, buf_len, inactive) = slices[self.rows_rng.gen_range(0..slices.len())].clone();
        // (rows as long as a helper's slice parameter, when one fits)
        let wanted: Vec<usize> = (self.callable.iter())
            .flat_map(|sig| sig.params.iter())
            .filter_map(|p| match p.ty {
                Ty::Slice(n) if n <= buf_len => Some(n),
                _ => None,
            })
            .collect();
        let len = match wanted.is_empty() {
            true => self.rows_rng.gen_range(1..=buf_len.min(4)),
            false => wanted[self.rows_rng.gen_range(0..wanted.len())],
        };
        let stride = self.rows_rng.gen_range(1..=len);
        let count = (buf_len - len) / stride + 1;
        let name = self.rows_local();
        // (not the buffer's name: the closure's body indexes the buffer)
        let mut param = self.rows_local();
        while param == buf {
            param = format!("{param}_k");
        }
        self.bind(
            &name,
            Kind::Rows {
                len,
                count,
                inactive,
            },
        );
        Some(Rows {
            name,
            param,
            buf,
            stride,
            len,
        })
    }

    /// A local's name as [`Gen::fresh_local`] picks one, from `rows_rng`.
    fn rows_local(&mut self) -> String {
        let pool = if avoid("generated-names") {
            PLAIN_LOCAL_NAMES
        } else {
            LOCAL_NAMES
        };
        let free: Vec<&str> = (pool.iter().copied())
            .filter(|n| {
                !self.counters.iter().any(|c| c == n) && !self.reserved.iter().any(|r| r == n)
            })
            .collect();
        match free.is_empty() {
            true => format!("rows_{}", self.next_id),
            false => free[self.rows_rng.gen_range(0..free.len())].to_string(),
        }
    }

    /// Now and then (from `rows_rng`), a row of a closure of rows in sight
    /// in place of `drawn`, the argument for a slice parameter of length
    /// `n` (`active`: whether it may vary).
    fn with_row(&mut self, drawn: Option<CallArg>, n: usize, active: bool) -> Option<CallArg> {
        // (no closure calls in conditions: the macro refuses them there)
        if self.cond_depth > 0 || self.in_cond {
            return drawn;
        }
        let rows: Vec<(String, usize)> = (self.visible().into_iter())
            .filter_map(|b| match b.kind {
                Kind::Rows {
                    len,
                    count,
                    inactive,
                } if len == n && (active || inactive) => Some((b.name, count)),
                _ => None,
            })
            .collect();
        if rows.is_empty() || !self.rows_rng.gen_bool(0.8) {
            return drawn;
        }
        let (name, count) = rows[self.rows_rng.gen_range(0..rows.len())].clone();
        // the index of a loop in sight that stays below `count`, or a literal
        let indices: Vec<String> = (self.visible().into_iter())
            .filter_map(|b| match b.kind {
                Kind::Int { hi, .. } if hi < count => Some(b.name),
                _ => None,
            })
            .collect();
        let k = match indices.is_empty() || self.rows_rng.gen_bool(0.4) {
            true => IntExpr::Lit(self.rows_rng.gen_range(0..count)),
            false => IntExpr::Var(indices[self.rows_rng.gen_range(0..indices.len())].clone()),
        };
        Some(CallArg::Row(name, k))
    }

    /// A scrutinee and the arms' patterns and guards (the last arm is
    /// exhaustive and has no guard); now and then a tuple of two, `match
    /// (a, b) { (p, q) => .., _ => .. }`, its arms pairing the parts'.
    fn match_head(&mut self) -> (Scrut, Vec<(MPat, Option<Cond>)>) {
        if avoid("tuple-match") || !self.chance(0.25) {
            return self.single_match_head(true);
        }
        let (first, first_arms) = self.single_match_head(false);
        let (second, second_arms) = self.single_match_head(false);
        // (each part's arms but its last, exhaustive one)
        let (a, b) = (
            &first_arms[..first_arms.len() - 1],
            &second_arms[..second_arms.len() - 1],
        );
        let count = a.len().max(b.len()).max(1);
        let mut arms = Vec::new();
        for k in 0..count {
            let p = a.get(k).map_or(MPat::Wild, |(p, _)| p.clone());
            let q = b.get(k).map_or(MPat::Wild, |(q, _)| q.clone());
            let guard = a.get(k).and_then(|(_, g)| g.clone());
            if matches!((&p, &q), (MPat::Wild, MPat::Wild)) && guard.is_none() {
                continue;
            }
            arms.push((MPat::Tuple(vec![p, q]), guard));
        }
        arms.push((MPat::Wild, None));
        (Scrut::Tuple(vec![first, second]), arms)
    }

    /// (`float`: the scrutinee may be a float, each arm binding it to a
    /// name and testing it in a guard, `v if v < 0.5 => ..`; its arms'
    /// bodies are generated with the name bound, `Gen::arm_scope`)
    fn single_match_head(&mut self, float: bool) -> (Scrut, Vec<(MPat, Option<Cond>)>) {
        if float && !avoid("float-match") && self.chance(0.2) {
            let e = self.expr(1);
            let name = self.fresh_local();
            let mut pats = Vec::new();
            for _ in 0..self.rng.gen_range(1..=2) {
                let op = *self.pick(&[CmpOp::Lt, CmpOp::Gt, CmpOp::Le]);
                let c = self.lit_value(-1.5, 1.5);
                let c = match c < 0.0 {
                    true => Expr::Neg(Box::new(Expr::Lit(-c, false))),
                    false => Expr::Lit(c, false),
                };
                let guard = Cond::Cmp(op, Expr::Local(name.clone()), c);
                pats.push((MPat::Bind(name.clone()), Some(guard)));
            }
            pats.push((MPat::Bind(name.clone()), None));
            return (Scrut::Float(e, name), pats);
        }
        let atoms = self.int_atoms();
        if atoms.is_empty() || self.chance(0.25) {
            let c = self.cond();
            let b = self.chance(0.5);
            let guard = if self.chance(0.3) {
                Some(self.cond())
            } else {
                None
            };
            let last = if guard.is_some() || self.chance(0.3) {
                MPat::Wild
            } else {
                MPat::Bool(!b)
            };
            return (Scrut::Bool(c), vec![(MPat::Bool(b), guard), (last, None)]);
        }
        let (e, lo, hi) = self.pick(&atoms).clone();
        let mut pats = Vec::new();
        for _ in 0..self.rng.gen_range(1..=3) {
            let v = self.rng.gen_range(lo..=hi + 1);
            let p = match self.rng.gen_range(0..4) {
                0..=1 => MPat::Int(v),
                2 => MPat::Range(v, v + self.rng.gen_range(0..=2)),
                _ => MPat::Or(vec![MPat::Int(v), MPat::Int(v + 1)]),
            };
            let guard = if self.chance(0.2) {
                Some(self.cond())
            } else {
                None
            };
            pats.push((p, guard));
        }
        pats.push((MPat::Wild, None));
        (Scrut::Int(e), pats)
    }

    fn match_stmt(&mut self, depth: usize) -> Stmt {
        let (scrut, pats) = self.match_head();
        let mark = self.arm_scope(&scrut);
        let arms = pats
            .into_iter()
            .map(|(p, g)| (p, g, self.block(false, depth + 1)))
            .collect();
        self.env.truncate(mark);
        Stmt::Match { scrut, arms }
    }

    /// Binds the name a float scrutinee's arms bind, for their bodies;
    /// the mark to truncate the environment back to after them.
    fn arm_scope(&mut self, scrut: &Scrut) -> usize {
        let mark = self.env.len();
        if let Scrut::Float(_, name) = scrut {
            self.bind(
                name,
                Kind::Float {
                    mutable: false,
                    deref: false,
                },
            );
        }
        mark
    }
}

/// `0..hi`.
fn up_to(hi: usize) -> ForIter {
    ForIter::Range {
        lo: IntExpr::Lit(0),
        hi: IntExpr::Lit(hi),
        inclusive: false,
        rev: false,
    }
}

/// `for j in 0..len { buf[j] = value; }`.
fn fill_loop(buf: &str, j: &str, len: usize, value: Expr) -> Stmt {
    Stmt::For {
        pat: ForPat::Index(j.to_string()),
        iter: up_to(len),
        body: Block {
            stmts: vec![Stmt::Assign {
                place: Place::Elem(buf.to_string(), IntExpr::Var(j.to_string())),
                op: AssignOp::Set,
                value,
            }],
            tail: None,
        },
    }
}
