//! Nests over buffers: functions shaped like the numeric code people write
//! (`RANDOM_PROGRAMS_NESTS=1` makes every function one; otherwise about one
//! in five is, [`NEST_SHARE`]).
//!
//! The ordinary mix seldom indexes a buffer by a loop's index, and its
//! loops are mostly short with literal bounds (FINDINGS.md §O, §P), so the
//! rows of `emit/rows.rs` and the per-iteration buffers a loop nest records
//! once went nearly untested by random programs. A nest function takes
//! slices of 8 to 40 floats with their sizes as `usize` parameters, and
//! runs one to three of the shapes below: a loop nest whose innermost loops
//! index buffers by the loop's index (`a[i * m + j]`, `a[base + j]`,
//! `u[j - 1] + u[j + 1]`, `u[i + k]`), with bounds spelled as parameters,
//! `.len()` or long literals. Their floats come from the ordinary
//! expression generator (`mix`), and a few of its statements go between the
//! shapes and into the outer loops (`filler`). Everything is the ordinary
//! syntax tree, so both renderings (plain and on the tape) are `render.rs`'s.
//!
//! Every index goes through `elem`, which checks it in bounds by interval
//! arithmetic over the values the generator knows (`int_range`): a program
//! that reads past an end is a generator bug caught while generating.
//!
//! Arrays declared inside a nest (the end of this file): now and then the
//! body of a shape's outer loop ends with an array of its own, its values
//! summed into an accumulator declared before the loop, and now and then a
//! function ends with a time step carrying a state `y` through them
//! (`for ts in 0..steps { let k = hv(&y, &u[ts..ts + 2]); .. }`): a
//! buffer filled and read back per iteration (`[0.0; 3]`, `vec![0.0; 3]`),
//! a `vec!` whose length varies with the iteration (`vec![0.0; t + 1]`,
//! only read below it), an array literal only read (`w[0] * w[1]`,
//! `w[0].sin()`), the array a vector-valued helper `hv` returns (`-> [f64;
//! 2]` or `-> Vec<f64>`, given the state, an array declared in the body,
//! `&[a, b]` or `&u[t..t + 2]`), any of them in an `if`. They are drawn
//! from a stream of their own and named from pools of their own, so a
//! nest without them is the one the seed gave before them.

use super::*;

/// The share of functions that are nests in the default mix.
const NEST_SHARE: f64 = 0.2;

/// Loop indices.
pub const INDEX_NAMES: &[&str] = &[
    "i", "j", "k", "r", "c", "t", "ii", "jj", "kk", "col", "row", "step",
];
/// `usize` parameters holding sizes.
pub const SIZE_NAMES: &[&str] = &["n", "m", "d", "rows", "cols", "len", "dim", "width"];
/// The `usize` parameter counting time steps.
const STEP_NAMES: &[&str] = &["steps", "iters", "sweeps"];
/// Accumulators and buffers of the shapes (none is in `minimize::FRESH` or
/// names a helper).
const NEST_LOCALS: &[&str] = &[
    "acc", "s", "total", "mx", "se", "buf", "nx", "gs", "out", "dot", "hidden", "z", "cur", "lse",
    "best", "energy", "row_sum", "wsum", "conv", "tri", "gram", "state", "flux", "ym", "sum",
    "prev", "cell",
];
/// Now and then: names like the macro's own, rows included.
const NEST_GENERATED_LOCALS: &[&str] = &[
    "__ad_row_x",
    "__ad_row_buf",
    "__ad_row_a",
    "d_buf",
    "t0",
    "__ad_t3",
    "d_out",
];

/// Whether program `index` of batch `seed` is a nest: from a stream of its
/// own, so that the other programs are the ones the seed gave before nests
/// existed (FINDINGS.md and the regression tests name programs by seed and
/// index).
pub(crate) fn is_nest(seed: u64, index: usize) -> bool {
    if avoid("nests") {
        return false;
    }
    if nests_only() {
        return true;
    }
    let mixed = seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    StdRng::seed_from_u64(mixed ^ 0x4E35_7453).gen_bool(NEST_SHARE)
}

/// `RANDOM_PROGRAMS_NESTS=1`: every function a nest.
pub(crate) fn nests_only() -> bool {
    std::env::var("RANDOM_PROGRAMS_NESTS").is_ok_and(|v| v.trim() == "1")
}

/// A size the nest loops over: its value, and the ways the program can
/// spell it (a `usize` parameter, a buffer's `.len()`, `n * m`; the literal
/// otherwise).
#[derive(Clone)]
struct Dim {
    v: usize,
    spellings: Vec<IntExpr>,
}

impl Dim {
    /// The same size, also spelled `buf.len()` (a local buffer's: not with
    /// `RANDOM_PROGRAMS_AVOID=local-len-bounds`, FINDINGS.md §Q).
    fn with_len(&self, buf: &str) -> Dim {
        let mut d = self.clone();
        if !avoid("local-len-bounds") {
            d.spellings.push(IntExpr::Len(buf.to_string()));
        }
        d
    }
}

/// What the shapes of one function work on.
struct Frame {
    /// The matrix parameter, `n` rows of `m`, row-major.
    mat: String,
    n: Dim,
    m: Dim,
    /// A vector parameter of `m` floats.
    x: String,
    /// A vector parameter of `n` floats, sometimes.
    y: Option<String>,
    /// A long vector parameter of `l` floats (the matrix, flat, when the
    /// function has none).
    u: String,
    l: Dim,
    /// The `usize` parameter counting time steps, if any.
    steps: Option<String>,
    /// The values the shapes computed: the function returns their sum.
    terms: Vec<Expr>,
    /// Names that go out of scope with the current shape (its indices and
    /// the locals of its loops): reserved until it ends.
    scoped: Vec<String>,
    /// Statements to put before the current shape's outer loop (the
    /// accumulators of the arrays declared in it, `decl_extra`).
    pending: Vec<Stmt>,
    /// The values of the arrays declared in nests: terms of the function's
    /// value after the others (`decl_tail`).
    decl_terms: Vec<Expr>,
}

/// Where a shape puts one value per outer iteration.
enum Sink {
    /// `acc += value;`
    Acc(String),
    /// `buf[i] = value;`
    Buf(String),
}

impl Sink {
    /// What a value stored into it must not read (see `mix`).
    fn hide(&self) -> Vec<&str> {
        match self {
            Sink::Acc(acc) => vec![acc.as_str()],
            Sink::Buf(_) => vec![],
        }
    }
}

fn var(n: &str) -> IntExpr {
    IntExpr::Var(n.to_string())
}

fn add(a: IntExpr, b: IntExpr) -> IntExpr {
    IntExpr::Add(Box::new(a), Box::new(b))
}

fn sub(a: IntExpr, b: IntExpr) -> IntExpr {
    IntExpr::Sub(Box::new(a), Box::new(b))
}

fn mul(a: IntExpr, b: IntExpr) -> IntExpr {
    IntExpr::Mul(Box::new(a), Box::new(b))
}

/// `e + s`, `e - s` or `e`.
fn shifted(e: IntExpr, s: isize) -> IntExpr {
    match s {
        0 => e,
        s if s > 0 => add(e, IntExpr::Lit(s as usize)),
        s => sub(e, IntExpr::Lit((-s) as usize)),
    }
}

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::Bin(op, Box::new(a), Box::new(b))
}

fn local(n: &str) -> Expr {
    Expr::Local(n.to_string())
}

fn zero() -> Expr {
    Expr::Lit(0.0, false)
}

impl Gen {
    /// A nest function: its parameters, one to three shapes with a few
    /// ordinary statements between them, and the sum of what they computed.
    pub(super) fn nest_func(&mut self, name: &str) -> Func {
        self.env.clear();
        self.frozen.clear();
        self.counters.clear();
        self.reserved.clear();
        self.loop_depth = 0;
        // (for the ordinary statements only: the shapes are written anyway)
        self.budget = self.rng.gen_range(1..=5);
        let (mut params, mut fr) = self.nest_params();
        let explicit_wrt = self.choose_wrt(&mut params);
        self.bind_params(&params);
        let mut stmts = self.filler(1);
        for _ in 0..*self.pick(&[1, 2, 2, 2, 3]) {
            stmts.extend(self.shape(&mut fr));
            stmts.extend(self.filler(1));
        }
        // now and then a time step through arrays it declares (drawn apart:
        // the rest is the function of before)
        if !avoid("nest-arrays") && self.decl_rng.gen_bool(STEPPER_SHARE) {
            let mark = self.env.len();
            stmts.extend(self.on_decl_stream(|g| g.stepper(&mut fr)));
            self.env.truncate(mark);
        }
        let tail = self.nest_tail(&mut fr);
        let tail = self.decl_tail(tail, &mut fr);
        Func {
            name: name.to_string(),
            params,
            explicit_wrt,
            body: Block {
                stmts,
                tail: Some(Box::new(tail)),
            },
        }
    }

    /// The parameters (in a random order) and the frame over them: a matrix
    /// `a` of `n × m` with `8 ≤ n·m ≤ 40`, `x` of `m`, sometimes `y` of
    /// `n`, usually `u` of 8 to 40, the sizes as `usize`s, sometimes a
    /// scalar and a count of time steps.
    fn nest_params(&mut self) -> (Vec<Param>, Frame) {
        let (n, m) = loop {
            let n = self.rng.gen_range(2..=6);
            let m = self.rng.gen_range(3..=8);
            if (8..=40).contains(&(n * m)) {
                break (n, m);
            }
        };
        let float_names = if avoid("generated-names") {
            &PARAM_NAMES[..12]
        } else {
            PARAM_NAMES
        };
        let mut params = Vec::new();
        let mut slice = |g: &mut Gen, len: usize| {
            let name = g.nest_name(float_names);
            params.push(Param {
                name: name.clone(),
                ty: Ty::Slice(len),
                active: true,
                mutable: false,
            });
            name
        };
        let mat = slice(self, n * m);
        let x = slice(self, m);
        let y = self.chance(0.5).then(|| slice(self, n));
        let l = self.rng.gen_range(8..=40);
        let u = self.chance(0.7).then(|| slice(self, l));
        if self.chance(0.35) {
            let name = self.nest_name(float_names);
            params.push(Param {
                name,
                ty: Ty::F64,
                active: true,
                mutable: false,
            });
        }
        let mut size = |g: &mut Gen, pool: &[&str], v: usize, p: f64| {
            g.chance(p).then(|| {
                let name = g.nest_name(pool);
                params.push(Param {
                    name: name.clone(),
                    ty: Ty::Usize(v),
                    active: false,
                    mutable: false,
                });
                IntExpr::Var(name)
            })
        };
        let n_param = size(self, SIZE_NAMES, n, 0.75);
        let m_param = size(self, SIZE_NAMES, m, 0.75);
        let l_param = if u.is_some() {
            size(self, SIZE_NAMES, l, 0.3)
        } else {
            None
        };
        let steps_value = self.rng.gen_range(1..=3);
        let steps = size(self, STEP_NAMES, steps_value, 0.3).map(|e| match e {
            IntExpr::Var(name) => name,
            _ => unreachable!("a parameter"),
        });
        // in a random order
        for k in (1..params.len()).rev() {
            let other = self.rng.gen_range(0..=k);
            params.swap(k, other);
        }
        let spellings = |p: Option<IntExpr>, len_of: Option<&String>| {
            p.into_iter()
                .chain(len_of.map(|b| IntExpr::Len(b.clone())))
                .collect::<Vec<_>>()
        };
        let n_dim = Dim {
            v: n,
            spellings: spellings(n_param.clone(), y.as_ref()),
        };
        let m_dim = Dim {
            v: m,
            spellings: spellings(m_param.clone(), Some(&x)),
        };
        let (u, l_dim) = match u {
            Some(u) => {
                let d = Dim {
                    v: l,
                    spellings: spellings(l_param, Some(&u)),
                };
                (u, d)
            }
            None => {
                // the matrix, flat: `a.len()`, or `n * m`
                let mut sp = vec![IntExpr::Len(mat.clone())];
                if let (Some(a), Some(b)) = (n_param, m_param) {
                    sp.push(mul(a, b));
                }
                (
                    mat.clone(),
                    Dim {
                        v: n * m,
                        spellings: sp,
                    },
                )
            }
        };
        let fr = Frame {
            mat,
            n: n_dim,
            m: m_dim,
            x,
            y,
            u,
            l: l_dim,
            steps,
            terms: Vec::new(),
            scoped: Vec::new(),
            pending: Vec::new(),
            decl_terms: Vec::new(),
        };
        (params, fr)
    }

    /// A name from `pool` that nothing in sight has and nothing reserved
    /// takes, reserved from now on.
    fn nest_name(&mut self, pool: &[&str]) -> String {
        let visible: Vec<String> = self.visible().into_iter().map(|b| b.name).collect();
        let taken = |g: &Gen, n: &str| {
            g.reserved.iter().any(|r| r == n) || visible.contains(&n.to_string())
        };
        let mut name = None;
        for _ in 0..32 {
            let c = self.pick(pool).to_string();
            if !taken(self, &c) {
                name = Some(c);
                break;
            }
        }
        let name = name.unwrap_or_else(|| {
            let base = self.pick(pool).to_string();
            (2..)
                .map(|k| format!("{base}{k}"))
                .find(|c| !taken(self, c))
                .expect("a free name")
        });
        self.reserved.push(name.clone());
        name
    }

    /// A local's name (now and then one like the macro's own).
    fn nest_local(&mut self) -> String {
        if !avoid("generated-names") && self.chance(0.1) {
            self.nest_name(NEST_GENERATED_LOCALS)
        } else {
            self.nest_name(NEST_LOCALS)
        }
    }

    /// A name for the current shape only (an index, a local of its loops).
    fn scoped_name(&mut self, fr: &mut Frame, pool: &[&str]) -> String {
        let n = self.nest_name(pool);
        fr.scoped.push(n.clone());
        n
    }

    /// `d` as the program spells it: mostly a parameter or a length, now
    /// and then the literal.
    fn spell(&mut self, d: &Dim) -> IntExpr {
        if d.spellings.is_empty() || self.chance(0.15) {
            IntExpr::Lit(d.v)
        } else {
            self.pick(&d.spellings).clone()
        }
    }

    /// The values `e` can take, from the ranges of the integers in sight
    /// (`None`: it may underflow, or reads something not an integer).
    fn int_range(&self, e: &IntExpr) -> Option<(usize, usize)> {
        match e {
            IntExpr::Lit(v) | IntExpr::Field(_, v) => Some((*v, *v)),
            IntExpr::Var(n) => self
                .visible()
                .into_iter()
                .find(|b| b.name == *n)
                .and_then(|b| match b.kind {
                    Kind::Int { lo, hi } => Some((lo, hi)),
                    _ => None,
                }),
            IntExpr::Len(n) => self
                .visible()
                .into_iter()
                .find(|b| b.name == *n)
                .and_then(|b| match b.kind {
                    Kind::Buf { len, .. } => Some((len, len)),
                    _ => None,
                }),
            IntExpr::Add(a, b) => {
                let (a, b) = (self.int_range(a)?, self.int_range(b)?);
                Some((a.0 + b.0, a.1 + b.1))
            }
            IntExpr::Sub(a, b) => {
                let (a, b) = (self.int_range(a)?, self.int_range(b)?);
                (a.0 >= b.1).then(|| (a.0 - b.1, a.1 - b.0))
            }
            IntExpr::Mul(a, b) => {
                let (a, b) = (self.int_range(a)?, self.int_range(b)?);
                Some((a.0 * b.0, a.1 * b.1))
            }
            IntExpr::Rem(a, b) => {
                let (a, b) = (self.int_range(a)?, self.int_range(b)?);
                (b.0 > 0).then(|| (0, a.1.min(b.1 - 1)))
            }
        }
    }

    /// The length of a buffer in sight.
    fn buf_len(&self, buf: &str) -> Option<usize> {
        self.visible()
            .into_iter()
            .find(|b| b.name == buf)
            .and_then(|b| match b.kind {
                Kind::Buf { len, .. } => Some(len),
                _ => None,
            })
    }

    /// Whether `buf[i]` is in bounds whatever the integers in sight hold.
    fn fits(&self, buf: &str, i: &IntExpr) -> bool {
        match (self.buf_len(buf), self.int_range(i)) {
            (Some(len), Some((_, hi))) => hi < len,
            _ => false,
        }
    }

    /// `buf[i]`, which must be in bounds (the shapes are built so).
    fn elem(&self, buf: &str, i: IntExpr) -> Expr {
        assert!(
            self.fits(buf, &i),
            "nests: `{buf}[{}]` may be out of bounds ({:?} of {:?})",
            crate::render::int(&i),
            self.int_range(&i),
            self.buf_len(buf)
        );
        Expr::Elem(buf.to_string(), i)
    }

    /// The place `buf[i]` (in bounds, as for `elem`).
    fn elem_place(&self, buf: &str, i: IntExpr) -> Place {
        let Expr::Elem(b, i) = self.elem(buf, i) else {
            unreachable!()
        };
        Place::Elem(b, i)
    }

    /// A read of some buffer in sight at `j`, `j ± 1` or `o + j` with `o`
    /// an outer index, when one fits (the rows of other arrays).
    fn read_near(&mut self, j: &str) -> Option<Expr> {
        let bufs: Vec<String> = self
            .visible()
            .into_iter()
            .filter(|b| matches!(b.kind, Kind::Buf { .. }))
            .map(|b| b.name)
            .collect();
        let outers: Vec<String> = self
            .visible()
            .into_iter()
            .filter(|b| {
                b.name != j && matches!(b.kind, Kind::Int { lo, hi } if lo < hi && hi < 1 << 20)
            })
            .map(|b| b.name)
            .collect();
        for _ in 0..6 {
            let buf = self.pick(&bufs).clone();
            let i = match self.rng.gen_range(0..5) {
                0 | 1 => var(j),
                2 => add(var(j), IntExpr::Lit(1)),
                3 => sub(var(j), IntExpr::Lit(1)),
                _ if !outers.is_empty() => {
                    let o = self.pick(&outers).clone();
                    add(var(&o), var(j))
                }
                _ => var(j),
            };
            if self.fits(&buf, &i) {
                return Some(Expr::Elem(buf, i));
            }
        }
        None
    }

    /// A float from `reads` (a shape's elements) and sometimes one more
    /// element near `j`, with the operations of the ordinary expression
    /// generator; kept moderate, as a nest sums up to a few hundred. It
    /// reads none of `hide` (the accumulator it is added to: `acc +=
    /// .. acc ..` doubles at every step, 2^300 in a triangle of 24; seed
    /// 53322865 #972, #1294 overflowed so).
    fn mix(&mut self, reads: Vec<Expr>, j: Option<&str>, hide: &[&str]) -> Expr {
        let mark = self.env.len();
        for h in hide {
            self.bind(h, Kind::Hidden);
        }
        let e = self.mix_visible(reads, j);
        self.env.truncate(mark);
        e
    }

    fn mix_visible(&mut self, mut reads: Vec<Expr>, j: Option<&str>) -> Expr {
        if let Some(j) = j {
            if self.chance(0.3) {
                reads.extend(self.read_near(j));
            }
        }
        let mut it = reads.into_iter();
        let mut e = it.next().unwrap_or_else(|| self.leaf());
        for r in it {
            let op = *self.pick(&[BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Mul]);
            e = bin(op, e, r);
        }
        match self.rng.gen_range(0..12) {
            0..=3 => e,
            4..=5 => {
                let other = self.expr(1);
                let op = *self.pick(&[BinOp::Add, BinOp::Sub, BinOp::Mul]);
                let other = if op == BinOp::Mul {
                    self.squash(other)
                } else {
                    other
                };
                bin(op, e, other)
            }
            6..=7 => {
                let m = *self.pick(&["sin", "cos", "tanh", "atan"]);
                self.m1(m, e)
            }
            8 => Expr::Powi(Box::new(e), 2, self.form()),
            9 => {
                let d = self.denominator();
                bin(BinOp::Div, e, d)
            }
            10 => {
                let other = self.expr(1);
                let m = *self.pick(&["max", "min"]);
                self.m(m, e, vec![other])
            }
            _ => {
                let c = Expr::Lit(self.lit_value(0.25, 1.5), false);
                let other = self.expr(1);
                self.m("mul_add", e, vec![c, other])
            }
        }
    }

    /// A few ordinary statements (no loops of their own), while the budget
    /// lasts.
    fn filler(&mut self, max: usize) -> Vec<Stmt> {
        let mut out = Vec::new();
        for _ in 0..self.rng.gen_range(0..=max) {
            if self.budget == 0 {
                break;
            }
            self.budget -= 1;
            out.push(self.stmt(2));
        }
        out
    }

    /// `for index in lo..hi { body }` (`..=` if `inclusive`), the index
    /// bound to the values it takes while `body` writes the statements.
    fn nest_for(
        &mut self,
        fr: &mut Frame,
        index: &str,
        lo: IntExpr,
        hi: IntExpr,
        inclusive: bool,
        body: impl FnOnce(&mut Gen, &mut Frame) -> Vec<Stmt>,
    ) -> Stmt {
        let (lo_v, _) = self.int_range(&lo).expect("a loop's start in sight");
        let (_, hi_v) = self.int_range(&hi).expect("a loop's end in sight");
        let top = if inclusive {
            hi_v
        } else {
            hi_v.saturating_sub(1)
        };
        let mark = self.env.len();
        self.bind(
            index,
            Kind::Int {
                lo: lo_v,
                hi: top.max(lo_v),
            },
        );
        self.loop_depth += 1;
        let mut stmts = body(self, fr);
        if self.loop_depth == 1 {
            // a shape's outer loop: now and then arrays declared in it
            self.decl_extra(fr, index, &mut stmts);
        }
        self.loop_depth -= 1;
        self.env.truncate(mark);
        Stmt::For {
            pat: ForPat::Index(index.to_string()),
            iter: ForIter::Range {
                lo,
                hi,
                inclusive,
                rev: false,
            },
            body: Block { stmts, tail: None },
        }
    }

    /// `let mut name = init;` (annotated where plain Rust needs it).
    fn let_acc(&mut self, name: &str, init: Expr) -> Stmt {
        let annotate = !is_typed(&init) || self.chance(0.3);
        self.bind(
            name,
            Kind::Float {
                mutable: true,
                deref: false,
            },
        );
        Stmt::Let {
            name: name.to_string(),
            mutable: true,
            annotate,
            init,
        }
    }

    /// `let mut name = vec![0.0; d];` or `[0.0; D]`.
    fn let_zeros(&mut self, name: &str, d: &Dim) -> Stmt {
        let (init, class) = if self.chance(0.35) {
            (BufInit::Zeros(d.v), BufClass::LocalArray)
        } else {
            (BufInit::VecZeros(self.spell(d)), BufClass::LocalVec)
        };
        self.bind(
            name,
            Kind::Buf {
                len: d.v,
                writable: true,
                class,
                inactive: false,
            },
        );
        Stmt::LetBuf {
            name: name.to_string(),
            init,
            annotate: self.chance(0.3),
            mutable: true,
        }
    }

    /// Where one value per outer iteration over `d` goes: an accumulator
    /// or a buffer of `d`, declared now (before the nest), its value a term
    /// of the function's.
    fn sink(&mut self, fr: &mut Frame, d: &Dim, stmts: &mut Vec<Stmt>) -> Sink {
        let name = self.nest_local();
        if self.chance(0.5) {
            let init = if self.chance(0.7) {
                zero()
            } else {
                self.expr(1)
            };
            stmts.push(self.let_acc(&name, init));
            fr.terms.push(local(&name));
            Sink::Acc(name)
        } else {
            stmts.push(self.let_zeros(&name, d));
            self.buf_terms(fr, &name, d.v);
            Sink::Buf(name)
        }
    }

    /// `acc += value;` or `buf[i] = value;`
    fn store(&mut self, sink: &Sink, i: &str, value: Expr) -> Stmt {
        match sink {
            Sink::Acc(acc) => Stmt::Assign {
                place: Place::Local(acc.clone()),
                op: AssignOp::Add,
                value,
            },
            Sink::Buf(buf) => Stmt::Assign {
                place: self.elem_place(buf, var(i)),
                op: *self.pick(&[AssignOp::Set, AssignOp::Set, AssignOp::Add]),
                value,
            },
        }
    }

    /// One or two elements of a buffer of `len` as terms of the value.
    fn buf_terms(&mut self, fr: &mut Frame, buf: &str, len: usize) {
        for _ in 0..self.rng.gen_range(1..=2) {
            let k = self.rng.gen_range(0..len);
            fr.terms.push(Expr::Elem(buf.to_string(), IntExpr::Lit(k)));
        }
    }

    /// Row `i` of the matrix at column `j` (the row's start if `None`)
    /// plus `shift`: `i * m + j`, `base + j` with `let base = i * m;`,
    /// now and then `j + i * m`.
    fn row_at(
        &mut self,
        fr: &Frame,
        i: &str,
        base: Option<&str>,
        j: Option<&str>,
        shift: isize,
    ) -> IntExpr {
        let start = match base {
            Some(b) => var(b),
            None => {
                let m = self.spell(&fr.m);
                mul(var(i), m)
            }
        };
        let e = match j {
            None => start,
            Some(j) if base.is_none() && self.chance(0.1) => add(var(j), start),
            Some(j) => add(start, var(j)),
        };
        shifted(e, shift)
    }

    /// Sometimes `let base = i * m;`, bound with its range.
    fn maybe_base(&mut self, fr: &mut Frame, i: &str, stmts: &mut Vec<Stmt>) -> Option<String> {
        if !self.chance(0.4) {
            return None;
        }
        let name = self.scoped_name(fr, &["base", "off", "start", "row0", "at"]);
        let m = self.spell(&fr.m);
        let value = mul(var(i), m);
        let (lo, hi) = self.int_range(&value).expect("a row's start");
        self.bind(&name, Kind::Int { lo, hi });
        stmts.push(Stmt::LetInt {
            name: name.clone(),
            value,
        });
        Some(name)
    }

    /// The value of the function: every shape's terms, and the ordinary
    /// tail (an expression and a few locals in sight).
    fn nest_tail(&mut self, fr: &mut Frame) -> Expr {
        let mut e = self.tail();
        for t in std::mem::take(&mut fr.terms) {
            let op = *self.pick(&[BinOp::Add, BinOp::Add, BinOp::Sub]);
            e = bin(op, e, t);
        }
        e
    }

    // ----- the shapes -------------------------------------------------------

    /// One shape; its indices and inner locals are free again after it.
    fn shape(&mut self, fr: &mut Frame) -> Vec<Stmt> {
        let stmts = match self.rng.gen_range(0..8) {
            0 => self.row_reduce(fr),
            1 => self.row_buffer(fr),
            2 => self.triangle(fr),
            3 => self.stencil(fr),
            4 => self.scatter(fr),
            5 => self.window(fr),
            6 => self.columns(fr),
            _ => self.gram(fr),
        };
        let mut stmts = stmts;
        if !fr.pending.is_empty() {
            // (before the outer loop, the shape's last statement)
            let outer = stmts.pop().expect("a shape ends with its loop");
            stmts.append(&mut fr.pending);
            stmts.push(outer);
        }
        let scoped = std::mem::take(&mut fr.scoped);
        self.reserved.retain(|n| !scoped.contains(n));
        stmts
    }

    /// Each row reduced: `for i in 0..n { let mut s = 0.0; for j in 0..m {
    /// s += a[i * m + j] * x[j]; } acc += s; }` (a matrix-vector product),
    /// or each row's running maximum (`for j in 1..m { s = s.max(..) }`),
    /// or its log-sum-exp (the maximum, then `se += (a[..] - mx).exp()`).
    fn row_reduce(&mut self, fr: &mut Frame) -> Vec<Stmt> {
        let mut stmts = Vec::new();
        let n = fr.n.clone();
        let sink = self.sink(fr, &n, &mut stmts);
        let i = self.scoped_name(fr, INDEX_NAMES);
        let hi = self.spell(&n);
        let outer = self.nest_for(fr, &i.clone(), IntExpr::Lit(0), hi, false, |g, fr| {
            let mut body = g.filler(1);
            let base = g.maybe_base(fr, &i, &mut body);
            let base = base.as_deref();
            let j = g.scoped_name(fr, INDEX_NAMES);
            let mat = fr.mat.clone();
            let value = match g.rng.gen_range(0..3) {
                0 => {
                    // a sum
                    let s = g.scoped_name(fr, NEST_LOCALS);
                    let init = if g.chance(0.7) { zero() } else { g.expr(1) };
                    body.push(g.let_acc(&s, init));
                    let m = g.spell(&fr.m);
                    body.push(
                        g.nest_for(fr, &j.clone(), IntExpr::Lit(0), m, false, |g, fr| {
                            let at = g.row_at(fr, &i, base, Some(&j), 0);
                            let mut reads = vec![g.elem(&mat, at)];
                            if g.chance(0.7) {
                                reads.push(g.elem(&fr.x.clone(), var(&j)));
                            }
                            // (nor the sink's accumulator: `s += .. + acc`
                            // then `acc += s` grows geometrically)
                            let mut hide = sink.hide();
                            hide.push(&s);
                            let value = g.mix(reads, Some(&j), &hide);
                            vec![Stmt::Assign {
                                place: Place::Local(s.clone()),
                                op: AssignOp::Add,
                                value,
                            }]
                        }),
                    );
                    local(&s)
                }
                1 => {
                    // a running maximum, from the row's first element
                    let s = g.scoped_name(fr, NEST_LOCALS);
                    let first = g.row_at(fr, &i, base, None, 0);
                    let init = g.elem(&mat, first);
                    body.push(g.let_acc(&s, init));
                    let m = g.spell(&fr.m);
                    body.push(
                        g.nest_for(fr, &j.clone(), IntExpr::Lit(1), m, false, |g, fr| {
                            let at = g.row_at(fr, &i, base, Some(&j), 0);
                            let read = g.elem(&mat, at);
                            let value = if g.chance(0.5) {
                                read
                            } else {
                                let mut hide = sink.hide();
                                hide.push(&s);
                                g.mix(vec![read], Some(&j), &hide)
                            };
                            let form = g.form();
                            vec![Stmt::Assign {
                                place: Place::Local(s.clone()),
                                op: AssignOp::Set,
                                value: Expr::Method {
                                    name: "max",
                                    form,
                                    recv: Box::new(local(&s)),
                                    args: vec![value],
                                },
                            }]
                        }),
                    );
                    local(&s)
                }
                _ => {
                    // log-sum-exp: the maximum, then the sum of exp(a - max)
                    let mx = g.scoped_name(fr, NEST_LOCALS);
                    let se = g.scoped_name(fr, NEST_LOCALS);
                    let first = g.row_at(fr, &i, base, None, 0);
                    let init = g.elem(&mat, first);
                    body.push(g.let_acc(&mx, init));
                    let m = g.spell(&fr.m);
                    body.push(
                        g.nest_for(fr, &j.clone(), IntExpr::Lit(1), m, false, |g, fr| {
                            let at = g.row_at(fr, &i, base, Some(&j), 0);
                            let read = g.elem(&mat, at);
                            vec![Stmt::Assign {
                                place: Place::Local(mx.clone()),
                                op: AssignOp::Set,
                                value: g.m("max", local(&mx), vec![read]),
                            }]
                        }),
                    );
                    body.push(g.let_acc(&se, zero()));
                    let m = g.spell(&fr.m);
                    body.push(
                        g.nest_for(fr, &j.clone(), IntExpr::Lit(0), m, false, |g, fr| {
                            let at = g.row_at(fr, &i, base, Some(&j), 0);
                            let read = g.elem(&mat, at);
                            let e = g.m1("exp", bin(BinOp::Sub, read, local(&mx)));
                            vec![Stmt::Assign {
                                place: Place::Local(se.clone()),
                                op: AssignOp::Add,
                                value: e,
                            }]
                        }),
                    );
                    let ln = g.m1("ln", local(&se));
                    bin(BinOp::Add, local(&mx), ln)
                }
            };
            let value = if g.chance(0.5) {
                g.mix(vec![value], None, &sink.hide())
            } else {
                value
            };
            body.push(g.store(&sink, &i, value));
            body
        });
        stmts.push(outer);
        stmts
    }

    /// A buffer per outer iteration: `for i in 0..n { let mut h = vec![0.0;
    /// m]; for j in 0..m { h[j] = .. a[i * m + j] ..; } [for j in 1..m {
    /// h[j] += 0.5 * h[j - 1]; }] for j in .. { acc += .. h[j] ..; } }` (or
    /// `h` declared before the nest and overwritten).
    fn row_buffer(&mut self, fr: &mut Frame) -> Vec<Stmt> {
        let mut stmts = Vec::new();
        let acc = self.nest_local();
        let init = if self.chance(0.7) {
            zero()
        } else {
            self.expr(1)
        };
        stmts.push(self.let_acc(&acc, init));
        fr.terms.push(local(&acc));
        let m_dim = fr.m.clone();
        let h_before = self.chance(0.4).then(|| {
            let h = self.nest_local();
            stmts.push(self.let_zeros(&h, &m_dim));
            self.buf_terms(fr, &h, m_dim.v);
            h
        });
        let i = self.scoped_name(fr, INDEX_NAMES);
        let hi = self.spell(&fr.n.clone());
        let outer = self.nest_for(fr, &i.clone(), IntExpr::Lit(0), hi, false, |g, fr| {
            let mut body = Vec::new();
            let h = match &h_before {
                Some(h) => h.clone(),
                None => {
                    let h = g.scoped_name(fr, NEST_LOCALS);
                    body.push(g.let_zeros(&h, &m_dim));
                    h
                }
            };
            let m_h = m_dim.with_len(&h);
            let base = g.maybe_base(fr, &i, &mut body);
            let base = base.as_deref();
            let j = g.scoped_name(fr, INDEX_NAMES);
            let mat = fr.mat.clone();
            // fill the row
            let hi = g.spell(&m_h);
            body.push(
                g.nest_for(fr, &j.clone(), IntExpr::Lit(0), hi, false, |g, fr| {
                    let at = g.row_at(fr, &i, base, Some(&j), 0);
                    let mut reads = vec![g.elem(&mat, at)];
                    if g.chance(0.6) {
                        reads.push(g.elem(&fr.x.clone(), var(&j)));
                    }
                    let value = g.mix(reads, Some(&j), &[&acc]);
                    vec![Stmt::Assign {
                        place: g.elem_place(&h, var(&j)),
                        op: AssignOp::Set,
                        value,
                    }]
                }),
            );
            // sometimes a scan over it, in place
            if g.chance(0.4) {
                let hi = g.spell(&m_h);
                body.push(
                    g.nest_for(fr, &j.clone(), IntExpr::Lit(1), hi, false, |g, _| {
                        let prev = g.elem(&h, sub(var(&j), IntExpr::Lit(1)));
                        vec![Stmt::Assign {
                            place: g.elem_place(&h, var(&j)),
                            op: AssignOp::Add,
                            value: bin(BinOp::Mul, Expr::Lit(0.5, false), prev),
                        }]
                    }),
                );
            }
            body.extend(g.filler(1));
            // read it back: each element, or its neighbours (`1..m - 1`)
            let stencil = g.chance(0.4);
            let (lo, hi) = if stencil {
                let hi = g.spell(&m_h);
                (IntExpr::Lit(1), sub(hi, IntExpr::Lit(1)))
            } else {
                (IntExpr::Lit(0), g.spell(&m_h))
            };
            body.push(g.nest_for(fr, &j.clone(), lo, hi, false, |g, _| {
                let reads = if stencil {
                    vec![
                        g.elem(&h, sub(var(&j), IntExpr::Lit(1))),
                        g.elem(&h, add(var(&j), IntExpr::Lit(1))),
                    ]
                } else {
                    vec![g.elem(&h, var(&j))]
                };
                let value = g.mix(reads, Some(&j), &[&acc]);
                vec![Stmt::Assign {
                    place: Place::Local(acc.clone()),
                    op: AssignOp::Add,
                    value,
                }]
            }));
            body
        });
        stmts.push(outer);
        stmts
    }

    /// Pairs: `for i in 0..n { for j in 0..=i { acc += .. v[i] .. v[j] ..;
    /// } }`, the inner loop also `0..i`, `i + 1..n` or `i..n`, the outer
    /// sometimes from 1; over the matrix's rows or the long vector.
    fn triangle(&mut self, fr: &mut Frame) -> Vec<Stmt> {
        let mut stmts = Vec::new();
        let acc = self.nest_local();
        stmts.push(self.let_acc(&acc, zero()));
        fr.terms.push(local(&acc));
        let over_u = fr.l.v <= 24 && self.chance(0.5);
        let d = if over_u { fr.l.clone() } else { fr.n.clone() };
        let i = self.scoped_name(fr, INDEX_NAMES);
        let j = self.scoped_name(fr, INDEX_NAMES);
        let outer_lo = IntExpr::Lit(if self.chance(0.3) { 1 } else { 0 });
        let hi = self.spell(&d);
        let shape = self.rng.gen_range(0..4);
        let outer = self.nest_for(fr, &i.clone(), outer_lo, hi, false, |g, fr| {
            let (lo, hi, inclusive) = match shape {
                0 => (IntExpr::Lit(0), var(&i), true),
                1 => (IntExpr::Lit(0), var(&i), false),
                2 => (add(var(&i), IntExpr::Lit(1)), g.spell(&d), false),
                _ => (var(&i), g.spell(&d), false),
            };
            let mut body = g.filler(1);
            body.push(g.nest_for(fr, &j.clone(), lo, hi, inclusive, |g, fr| {
                // the two ends of the pair, from whichever buffers fit
                let mut reads = Vec::new();
                for at in [&i, &j] {
                    let bufs: Vec<String> = [fr.u.clone(), fr.mat.clone(), fr.x.clone()]
                        .into_iter()
                        .chain(fr.y.clone())
                        .filter(|b| g.fits(b, &var(at)))
                        .collect();
                    if !bufs.is_empty() {
                        let b = g.pick(&bufs).clone();
                        reads.push(g.elem(&b, var(at)));
                    }
                }
                let at = g.row_at(fr, &i, None, Some(&j), 0);
                if g.fits(&fr.mat, &at) && g.chance(0.5) {
                    reads.push(g.elem(&fr.mat.clone(), at));
                }
                let value = if reads.len() >= 2 && g.chance(0.3) {
                    // a squared distance
                    let b = reads.pop().expect("two reads");
                    let a = reads.pop().expect("two reads");
                    Expr::Powi(Box::new(bin(BinOp::Sub, a, b)), 2, g.form())
                } else {
                    g.mix(reads, Some(&j), &[&acc])
                };
                vec![Stmt::Assign {
                    place: Place::Local(acc.clone()),
                    op: AssignOp::Add,
                    value,
                }]
            }));
            body
        });
        stmts.push(outer);
        stmts
    }

    /// Time stepping on a copy: `let mut v = u.to_vec(); for t in 0..steps
    /// { for j in 1..n - 1 { v[j] = 0.5 * v[j] + 0.25 * (v[j - 1] + v[j +
    /// 1]) + ..; } }` in place, or through `next` (`next[j] = v[j] + c *
    /// (v[j - 1] - 2.0 * v[j] + v[j + 1]) + ..;` then copied back).
    fn stencil(&mut self, fr: &mut Frame) -> Vec<Stmt> {
        let mut stmts = Vec::new();
        let v = self.nest_local();
        let l = fr.l.v;
        self.bind(
            &v,
            Kind::Buf {
                len: l,
                writable: true,
                class: BufClass::LocalVec,
                inactive: false,
            },
        );
        stmts.push(Stmt::LetBuf {
            name: v.clone(),
            init: BufInit::ToVec(fr.u.clone()),
            annotate: self.chance(0.3),
            mutable: true,
        });
        self.buf_terms(fr, &v, l);
        let l_v = fr.l.with_len(&v);
        let next = self.chance(0.5).then(|| {
            let nx = self.nest_local();
            stmts.push(self.let_zeros(&nx, &l_v));
            nx
        });
        let t = self.scoped_name(fr, INDEX_NAMES);
        let steps = match &fr.steps {
            Some(s) if self.chance(0.8) => var(s),
            _ => IntExpr::Lit(self.rng.gen_range(1..=3)),
        };
        let outer = self.nest_for(fr, &t.clone(), IntExpr::Lit(0), steps, false, |g, fr| {
            let j = g.scoped_name(fr, INDEX_NAMES);
            let end = |g: &mut Gen| {
                let hi = g.spell(&l_v);
                sub(hi, IntExpr::Lit(1))
            };
            let hi = end(g);
            let mut body = vec![
                g.nest_for(fr, &j.clone(), IntExpr::Lit(1), hi, false, |g, _| {
                    let at = |g: &Gen, s: isize| g.elem(&v, shifted(var(&j), s));
                    let (place, value) = match &next {
                        Some(nx) => {
                            // v[j] + c * (v[j - 1] - 2.0 * v[j] + v[j + 1])
                            let lap = bin(
                                BinOp::Add,
                                bin(
                                    BinOp::Sub,
                                    at(g, -1),
                                    bin(BinOp::Mul, Expr::Lit(2.0, false), at(g, 0)),
                                ),
                                at(g, 1),
                            );
                            let c = *g.pick(&[0.25, 0.2, 0.125]);
                            let value = bin(
                                BinOp::Add,
                                at(g, 0),
                                bin(BinOp::Mul, Expr::Lit(c, false), lap),
                            );
                            (g.elem_place(nx, var(&j)), value)
                        }
                        None => {
                            // 0.5 * v[j] + 0.25 * (v[j - 1] + v[j + 1])
                            let sides = bin(BinOp::Add, at(g, -1), at(g, 1));
                            let value = bin(
                                BinOp::Add,
                                bin(BinOp::Mul, Expr::Lit(0.5, false), at(g, 0)),
                                bin(BinOp::Mul, Expr::Lit(0.25, false), sides),
                            );
                            (g.elem_place(&v, var(&j)), value)
                        }
                    };
                    // plus a small forcing term, bounded
                    let value = if g.chance(0.7) {
                        let f = g.mix(vec![at(g, 0)], Some(&j), &[]);
                        let f = g.squash(f);
                        let d = *g.pick(&[0.1, 0.25]);
                        bin(BinOp::Add, value, bin(BinOp::Mul, Expr::Lit(d, false), f))
                    } else {
                        value
                    };
                    vec![Stmt::Assign {
                        place,
                        op: AssignOp::Set,
                        value,
                    }]
                }),
            ];
            if let Some(nx) = &next {
                let hi = end(g);
                body.push(
                    g.nest_for(fr, &j.clone(), IntExpr::Lit(1), hi, false, |g, _| {
                        vec![Stmt::Assign {
                            place: g.elem_place(&v, var(&j)),
                            op: AssignOp::Set,
                            value: g.elem(nx, var(&j)),
                        }]
                    }),
                );
            }
            body.extend(g.filler(1));
            body
        });
        stmts.push(outer);
        stmts
    }

    /// `+=` into a buffer: `let mut gs = vec![0.0; m]; for i in 0..n { let
    /// w = ..; for j in 0..m { gs[j] += w * a[i * m + j]; } }` (a
    /// transposed product, what a gradient by hand looks like).
    fn scatter(&mut self, fr: &mut Frame) -> Vec<Stmt> {
        let mut stmts = Vec::new();
        let gs = self.nest_local();
        let m_dim = fr.m.clone();
        stmts.push(self.let_zeros(&gs, &m_dim));
        self.buf_terms(fr, &gs, m_dim.v);
        let m_g = m_dim.with_len(&gs);
        let i = self.scoped_name(fr, INDEX_NAMES);
        let hi = self.spell(&fr.n.clone());
        let outer = self.nest_for(fr, &i.clone(), IntExpr::Lit(0), hi, false, |g, fr| {
            let mut body = g.filler(1);
            let w = g.scoped_name(fr, NEST_LOCALS);
            let weight = match fr.y.clone() {
                Some(y) if g.chance(0.7) => g.elem(&y, var(&i)),
                _ => g.expr(1),
            };
            let weight = g.mix(vec![weight], None, &[]);
            let annotate = !is_typed(&weight) || g.chance(0.3);
            g.bind(
                &w,
                Kind::Float {
                    mutable: false,
                    deref: false,
                },
            );
            body.push(Stmt::Let {
                name: w.clone(),
                mutable: false,
                annotate,
                init: weight,
            });
            let base = g.maybe_base(fr, &i, &mut body);
            let base = base.as_deref();
            let j = g.scoped_name(fr, INDEX_NAMES);
            let hi = g.spell(&m_g);
            let mat = fr.mat.clone();
            body.push(
                g.nest_for(fr, &j.clone(), IntExpr::Lit(0), hi, false, |g, fr| {
                    let at = g.row_at(fr, &i, base, Some(&j), 0);
                    let read = g.elem(&mat, at);
                    let value = if g.chance(0.6) {
                        bin(BinOp::Mul, local(&w), read)
                    } else {
                        g.mix(vec![local(&w), read], Some(&j), &[])
                    };
                    vec![Stmt::Assign {
                        place: g.elem_place(&gs, var(&j)),
                        op: *g.pick(&[AssignOp::Add, AssignOp::Add, AssignOp::Sub]),
                        value,
                    }]
                }),
            );
            body
        });
        stmts.push(outer);
        stmts
    }

    /// A convolution: `for i in 0..n - m + 1 { let mut s = 0.0; for k in
    /// 0..m { s += u[i + k] * x[k]; } out[i] = s.tanh(); }`.
    fn window(&mut self, fr: &mut Frame) -> Vec<Stmt> {
        let mut stmts = Vec::new();
        let (l, m) = (fr.l.clone(), fr.m.clone());
        // `l - m + 1` windows (`l ≥ 8 ≥ m`)
        let count = |g: &mut Gen| {
            let (a, b) = (g.spell(&l), g.spell(&m));
            add(sub(a, b), IntExpr::Lit(1))
        };
        let spelled = count(self);
        let windows = Dim {
            v: l.v - m.v + 1,
            spellings: vec![spelled],
        };
        let sink = self.sink(fr, &windows, &mut stmts);
        let i = self.scoped_name(fr, INDEX_NAMES);
        let hi = count(self);
        let outer = self.nest_for(fr, &i.clone(), IntExpr::Lit(0), hi, false, |g, fr| {
            let mut body = Vec::new();
            let s = g.scoped_name(fr, NEST_LOCALS);
            body.push(g.let_acc(&s, zero()));
            let k = g.scoped_name(fr, INDEX_NAMES);
            let hi = g.spell(&m);
            let (u, x) = (fr.u.clone(), fr.x.clone());
            body.push(
                g.nest_for(fr, &k.clone(), IntExpr::Lit(0), hi, false, |g, _| {
                    let at = if g.chance(0.2) {
                        add(var(&k), var(&i))
                    } else {
                        add(var(&i), var(&k))
                    };
                    let reads = vec![g.elem(&u, at), g.elem(&x, var(&k))];
                    let value = if g.chance(0.5) {
                        bin(BinOp::Mul, reads[0].clone(), reads[1].clone())
                    } else {
                        // (nor the sink's accumulator: seed 1204228155
                        // #1235, `buf += u[..] * x[..] + s` then `s +=
                        // buf.max(0.0)`, 1e14 and finite differences that
                        // resolve nothing)
                        let mut hide = sink.hide();
                        hide.push(&s);
                        g.mix(reads, Some(&k), &hide)
                    };
                    vec![Stmt::Assign {
                        place: Place::Local(s.clone()),
                        op: AssignOp::Add,
                        value,
                    }]
                }),
            );
            let value = match g.rng.gen_range(0..3) {
                0 => g.m1("tanh", local(&s)),
                1 => g.m("max", local(&s), vec![zero()]),
                _ => local(&s),
            };
            body.push(g.store(&sink, &i, value));
            body
        });
        stmts.push(outer);
        stmts
    }

    /// Columns and rows read from their end (what `emit/rows.rs` reads
    /// through `__private::strided` and through rows counting down): `for
    /// j in 0..m { let mut s = 0.0; for i in 0..n { s += a[i * m + j] * ..;
    /// } .. }` (the transpose times a vector), or Horner's rule along each
    /// row from its end, `for i in 0..n { let mut p = 0.0; for k in 0..m {
    /// p = p * c + a[i * m + (m - 1 - k)]; } .. }`, whose inner loop is now
    /// and then counted down (`(0..m).rev()`, reading the row forwards).
    fn columns(&mut self, fr: &mut Frame) -> Vec<Stmt> {
        let mut stmts = Vec::new();
        let horner = self.chance(0.5);
        let (outer_dim, inner_dim) = match horner {
            true => (fr.n.clone(), fr.m.clone()),
            false => (fr.m.clone(), fr.n.clone()),
        };
        let sink = self.sink(fr, &outer_dim, &mut stmts);
        let o = self.scoped_name(fr, INDEX_NAMES);
        let hi = self.spell(&outer_dim);
        let mat = fr.mat.clone();
        let outer = self.nest_for(fr, &o.clone(), IntExpr::Lit(0), hi, false, |g, fr| {
            let mut body = Vec::new();
            let s = g.scoped_name(fr, NEST_LOCALS);
            body.push(g.let_acc(&s, zero()));
            let k = g.scoped_name(fr, INDEX_NAMES);
            let hi = g.spell(&inner_dim);
            let counted_down = horner && g.chance(0.3);
            let mut inner = g.nest_for(fr, &k.clone(), IntExpr::Lit(0), hi, false, |g, fr| {
                // (neither accumulator: see `window`)
                let mut hide = sink.hide();
                hide.push(&s);
                let m = g.spell(&fr.m);
                if horner {
                    let last = sub(g.spell(&fr.m), IntExpr::Lit(1));
                    let at = add(mul(var(&o), m), sub(last, var(&k)));
                    let mut read = g.elem(&mat, at);
                    if g.chance(0.5) {
                        read = g.mix(vec![read], Some(&k), &hide);
                    }
                    let c = Expr::Lit(g.lit_value(0.25, 0.9), false);
                    let value = bin(BinOp::Add, bin(BinOp::Mul, local(&s), c), read);
                    vec![Stmt::Assign {
                        place: Place::Local(s.clone()),
                        op: AssignOp::Set,
                        value,
                    }]
                } else {
                    let mut reads = vec![g.elem(&mat, add(mul(var(&k), m), var(&o)))];
                    if let Some(y) = fr.y.clone() {
                        if g.chance(0.6) {
                            reads.push(g.elem(&y, var(&k)));
                        }
                    }
                    let value = g.mix(reads, Some(&k), &hide);
                    vec![Stmt::Assign {
                        place: Place::Local(s.clone()),
                        op: AssignOp::Add,
                        value,
                    }]
                }
            });
            if let Stmt::For {
                iter: ForIter::Range { rev, .. },
                ..
            } = &mut inner
            {
                *rev = counted_down;
            }
            body.push(inner);
            let value = g.mix(vec![local(&s)], None, &sink.hide());
            body.push(g.store(&sink, &o, value));
            body
        });
        stmts.push(outer);
        stmts
    }

    /// Three deep: the rows' inner products, `for i in 0..n { for k in
    /// 0..n { let mut s = 0.0; for j in 0..m { s += a[i * m + j] * a[k * m
    /// + j]; } .. s .. } }` (`0..=i` for the symmetric half).
    fn gram(&mut self, fr: &mut Frame) -> Vec<Stmt> {
        let mut stmts = Vec::new();
        let n = fr.n.clone();
        let sink = self.sink(fr, &n, &mut stmts);
        let i = self.scoped_name(fr, INDEX_NAMES);
        let k = self.scoped_name(fr, INDEX_NAMES);
        let j = self.scoped_name(fr, INDEX_NAMES);
        let hi = self.spell(&n);
        let half = self.chance(0.4);
        let outer = self.nest_for(fr, &i.clone(), IntExpr::Lit(0), hi, false, |g, fr| {
            let (hi, inclusive) = if half {
                (var(&i), true)
            } else {
                (g.spell(&n), false)
            };
            let middle = g.nest_for(fr, &k.clone(), IntExpr::Lit(0), hi, inclusive, |g, fr| {
                let mut body = Vec::new();
                let s = g.scoped_name(fr, NEST_LOCALS);
                body.push(g.let_acc(&s, zero()));
                let m = g.spell(&fr.m);
                let mat = fr.mat.clone();
                body.push(
                    g.nest_for(fr, &j.clone(), IntExpr::Lit(0), m, false, |g, fr| {
                        let a = g.row_at(fr, &i, None, Some(&j), 0);
                        let b = g.row_at(fr, &k, None, Some(&j), 0);
                        let mut value = bin(BinOp::Mul, g.elem(&mat, a), g.elem(&mat, b));
                        if g.chance(0.3) {
                            value = bin(BinOp::Mul, value, g.elem(&fr.x.clone(), var(&j)));
                        }
                        vec![Stmt::Assign {
                            place: Place::Local(s.clone()),
                            op: AssignOp::Add,
                            value,
                        }]
                    }),
                );
                let value = g.mix(vec![local(&s)], None, &sink.hide());
                body.push(match &sink {
                    // (one value per row: added up over `k`)
                    Sink::Buf(b) => Stmt::Assign {
                        place: g.elem_place(b, var(&i)),
                        op: AssignOp::Add,
                        value,
                    },
                    acc => g.store(acc, &i, value),
                });
                body
            });
            vec![middle]
        });
        stmts.push(outer);
        stmts
    }
}

// ----- arrays declared in nests ----------------------------------------------
//
// A nest at the top of a function is recorded even when the body of its
// outer loop declares arrays of its own (the forward sweep records their
// shapes): a buffer filled and read back per iteration, a `vec!` whose
// length varies with the iteration, an array literal only read, the array
// a vector-valued helper returns, any of them in an `if`. Now and then a
// shape's outer loop ends with one of them (`decl_extra`), and now and
// then a function ends with a time step carrying a state through them
// (`stepper`). All of it is drawn from a stream of its own (`decl_rng`)
// and named from pools no other draw uses, so a nest without them is the
// one the seed gave before them (`RANDOM_PROGRAMS_AVOID=nest-arrays`
// leaves them out; `vector-helpers` just the helper).

/// The share of shapes whose outer loop ends with a declared array.
const EXTRA_SHARE: f64 = 0.12;
/// The share of nest functions ending with a time step (`stepper`).
const STEPPER_SHARE: f64 = 0.2;
/// The share of loops over a declared array bounded by its `.len()`
/// (which keeps the nest replayed: the reverse would read the array).
const DECL_LEN_BOUNDS: f64 = 0.1;

/// Their accumulators, arrays, indices and time steps: names no other draw
/// takes (reserving them leaves the other draws as they were).
const DECL_ACCS: &[&str] = &["loss", "carry", "drift", "phi", "kin", "pot", "flow"];
const DECL_ARRAYS: &[&str] = &[
    "ws", "ks", "kv", "ys", "stage", "slab", "pair", "vel", "pos", "rk", "kn", "yh",
];
/// Now and then: names like the ones the macro gives a declared array's
/// shapes and twins.
const DECL_GENERATED: &[&str] = &[
    "__ad_shape_ks",
    "__ad_shapes_ys",
    "__ad_zeros",
    "__ad_d_kv",
    "d_ks",
];
const DECL_INDICES: &[&str] = &["q", "qi", "qq", "ix", "kx"];
const DECL_STEPS: &[&str] = &["ts", "tt", "it", "epoch"];

/// The name of the vector-valued helper.
const VEC_HELPER: &str = "hv";

/// The vector-valued helper: `fn hv(y: &[f64; 2], p: &[f64]) -> [f64; 2]`
/// (or `y: &[f64]`, `-> Vec<f64>`, three floats, no `p`).
pub(crate) struct VecHelper {
    pub(crate) func: Func,
    /// The floats it takes in `y` and returns.
    dim: usize,
    /// Returns a `Vec<f64>`.
    vec: bool,
    /// The name of its `y` parameter.
    y: String,
}

impl Gen {
    /// `f` with the main stream and the declarations' swapped.
    fn on_decl_stream<T>(&mut self, f: impl FnOnce(&mut Gen) -> T) -> T {
        std::mem::swap(&mut self.rng, &mut self.decl_rng);
        let out = f(self);
        std::mem::swap(&mut self.rng, &mut self.decl_rng);
        out
    }

    /// Writes `hv` before `f`, whether `f` calls it or not (so that
    /// `RANDOM_PROGRAMS_AVOID=vector-helpers` changes no other draw).
    pub(super) fn prepare_vec_helper(&mut self) {
        if avoid("nest-arrays") {
            return;
        }
        // (it calls no helper: a `#[differentiable(hessian)]` caller could
        // not call it otherwise)
        let callable = std::mem::take(&mut self.callable);
        let h = self.on_decl_stream(|g| g.vec_helper_func());
        self.callable = callable;
        self.vec_helper = Some(h);
    }

    fn vec_helper_func(&mut self) -> VecHelper {
        self.env.clear();
        self.frozen.clear();
        self.counters.clear();
        self.reserved.clear();
        self.loop_depth = 0;
        self.budget = 2;
        let dim = self.rng.gen_range(2..=3);
        let vec = self.chance(0.35);
        let pool = if avoid("generated-names") {
            &PARAM_NAMES[..12]
        } else {
            PARAM_NAMES
        };
        let y = self.pick(pool).to_string();
        let p = loop {
            let p = self.pick(pool).to_string();
            if p != y {
                break p;
            }
        };
        let y_ty = if self.chance(0.6) {
            Ty::ArrayRef(dim)
        } else {
            Ty::Slice(dim)
        };
        let kp = self.rng.gen_range(2..=4);
        let mut params = vec![Param {
            name: y.clone(),
            ty: y_ty,
            active: true,
            mutable: false,
        }];
        // (without `p`, as many inputs as outputs: its Jacobian is taken
        // by columns, in forward mode)
        let with_p = self.chance(0.6);
        if with_p {
            params.push(Param {
                name: p.clone(),
                ty: Ty::Slice(kp),
                active: true,
                mutable: false,
            });
            if self.chance(0.3) {
                params.swap(0, 1);
            }
        }
        // (no local shadows a parameter)
        self.reserved.extend(params.iter().map(|p| p.name.clone()));
        self.bind_params(&params);
        let mut stmts = Vec::new();
        for _ in 0..self.rng.gen_range(0..=1) {
            stmts.push(self.let_float(1));
        }
        let mut items = Vec::new();
        for i in 0..dim {
            let mut reads = vec![Expr::Elem(y.clone(), IntExpr::Lit(i))];
            if self.chance(0.5) {
                reads.push(Expr::Elem(y.clone(), IntExpr::Lit((i + 1) % dim)));
            }
            if with_p && self.chance(0.6) {
                let k = self.rng.gen_range(0..kp);
                reads.push(Expr::Elem(p.clone(), IntExpr::Lit(k)));
            }
            items.push(self.mix(reads, None, &[]));
        }
        self.env.clear();
        self.reserved.clear();
        // (a `collect()` or stores after the `let`: the forward-mode
        // Jacobian handed out the zeros of such a vector until 2026-11-28)
        let form = match self.rng.gen_range(0..4) {
            0 if vec && !avoid("list-forms") => ListForm::Collect,
            1 if !avoid("list-forms") => ListForm::Stored,
            _ => ListForm::Literal,
        };
        VecHelper {
            func: Func {
                name: VEC_HELPER.to_string(),
                params,
                explicit_wrt: false,
                body: Block {
                    stmts,
                    tail: Some(Box::new(Expr::List(items, vec, form))),
                },
            },
            dim,
            vec,
            y,
        }
    }

    /// A name for a declared array or accumulator from `pool` (now and
    /// then one like the macro's own).
    fn decl_name(&mut self, pool: &[&str]) -> String {
        if !avoid("generated-names") && self.chance(0.1) {
            self.nest_name(DECL_GENERATED)
        } else {
            self.nest_name(pool)
        }
    }

    /// `for index in lo..hi { body }`, the index bound to `range`.
    fn decl_for(
        &mut self,
        index: &str,
        lo: IntExpr,
        hi: IntExpr,
        range: (usize, usize),
        body: impl FnOnce(&mut Gen) -> Vec<Stmt>,
    ) -> Stmt {
        let mark = self.env.len();
        self.bind(
            index,
            Kind::Int {
                lo: range.0,
                hi: range.1,
            },
        );
        self.loop_depth += 1;
        let stmts = body(self);
        self.loop_depth -= 1;
        self.env.truncate(mark);
        Stmt::For {
            pat: ForPat::Index(index.to_string()),
            iter: ForIter::Range {
                lo,
                hi,
                inclusive: false,
                rev: false,
            },
            body: Block { stmts, tail: None },
        }
    }

    /// An element at `at` of a buffer in sight that has it (a float leaf
    /// if none has).
    fn decl_read(&mut self, at: IntExpr) -> Expr {
        let bufs: Vec<String> = self
            .visible()
            .into_iter()
            .filter(|b| matches!(b.kind, Kind::Buf { .. }))
            .map(|b| b.name)
            .filter(|b| self.fits(b, &at))
            .collect();
        if bufs.is_empty() {
            return self.leaf();
        }
        let b = self.pick(&bufs).clone();
        self.elem(&b, at)
    }

    /// `acc += value;` (or `-=`).
    fn add_to(&mut self, acc: &str, value: Expr) -> Stmt {
        Stmt::Assign {
            place: Place::Local(acc.to_string()),
            op: *self.pick(&[AssignOp::Add, AssignOp::Add, AssignOp::Sub]),
            value,
        }
    }

    /// Now and then, at the end of the body of a shape's outer loop over
    /// `index`: one of the declared arrays, its values summed into an
    /// accumulator declared before the loop.
    fn decl_extra(&mut self, fr: &mut Frame, index: &str, body: &mut Vec<Stmt>) {
        if avoid("nest-arrays") || !self.decl_rng.gen_bool(EXTRA_SHARE) {
            return;
        }
        self.on_decl_stream(|g| {
            let acc = g.decl_name(DECL_ACCS);
            let mark = g.env.len();
            // (written, never read: a sum that read itself would grow
            // geometrically)
            g.bind(&acc, Kind::Hidden);
            body.extend(g.decl_item(&acc, index, None, true));
            g.env.truncate(mark);
            fr.pending.push(Stmt::Let {
                name: acc.clone(),
                mutable: true,
                annotate: true,
                init: zero(),
            });
            fr.decl_terms.push(local(&acc));
        });
    }

    /// The function's value with the declared arrays' terms.
    fn decl_tail(&mut self, mut e: Expr, fr: &mut Frame) -> Expr {
        for t in std::mem::take(&mut fr.decl_terms) {
            let op = if self.decl_rng.gen_bool(0.7) {
                BinOp::Add
            } else {
                BinOp::Sub
            };
            e = bin(op, e, t);
        }
        e
    }

    /// One declared array in a loop over `t`, its values summed into
    /// `acc`; `state`, a carried array the helper's result may step.
    fn decl_item(&mut self, acc: &str, t: &str, state: Option<&str>, branch: bool) -> Vec<Stmt> {
        let helper = self.vec_helper.is_some() && !avoid("vector-helpers");
        let mut kinds = vec![0, 0, 0, 1, 1, 2, 2];
        if helper {
            kinds.extend([3, 3, 3, 3]);
        }
        if branch {
            kinds.extend([4, 4]);
        }
        match *self.pick(&kinds) {
            0 => self.decl_buffer(acc, t),
            1 => self.decl_growing(acc, t),
            2 => self.decl_literal(acc, t),
            3 => self.decl_call(acc, t, state),
            _ => self.decl_branch(acc, t, state),
        }
    }

    /// `let mut b = [0.0; 3];` (or `vec![0.0; 3]`) filled by one loop and
    /// read back by another.
    fn decl_buffer(&mut self, acc: &str, t: &str) -> Vec<Stmt> {
        let mut stmts = Vec::new();
        let b = self.decl_name(DECL_ARRAYS);
        let len = self.rng.gen_range(2..=4);
        let (init, class) = if self.chance(0.6) {
            (BufInit::Zeros(len), BufClass::LocalArray)
        } else {
            (BufInit::VecZeros(IntExpr::Lit(len)), BufClass::LocalVec)
        };
        stmts.push(Stmt::LetBuf {
            name: b.clone(),
            init,
            annotate: self.chance(0.3),
            mutable: true,
        });
        self.bind(
            &b,
            Kind::Buf {
                len,
                writable: true,
                class,
                inactive: false,
            },
        );
        let q = self.nest_name(DECL_INDICES);
        let bound = |g: &mut Gen| {
            if !avoid("local-len-bounds") && g.chance(DECL_LEN_BOUNDS) {
                IntExpr::Len(b.clone())
            } else {
                IntExpr::Lit(len)
            }
        };
        let hi = bound(self);
        stmts.push(self.decl_for(&q, IntExpr::Lit(0), hi, (0, len - 1), |g| {
            let at = if g.chance(0.5) {
                add(var(&q), var(t))
            } else {
                var(&q)
            };
            let mut reads = vec![g.decl_read(at)];
            if g.chance(0.4) {
                reads.push(g.decl_read(var(&q)));
            }
            let value = g.mix(reads, Some(&q), &[]);
            vec![Stmt::Assign {
                place: g.elem_place(&b, var(&q)),
                op: AssignOp::Set,
                value,
            }]
        }));
        let hi = bound(self);
        stmts.push(self.decl_for(&q, IntExpr::Lit(0), hi, (0, len - 1), |g| {
            let read = g.elem(&b, var(&q));
            let value = g.mix(vec![read], Some(&q), &[]);
            vec![g.add_to(acc, value)]
        }));
        if self.chance(0.4) {
            let value = bin(
                BinOp::Mul,
                self.elem(&b, IntExpr::Lit(0)),
                self.elem(&b, IntExpr::Lit(len - 1)),
            );
            stmts.push(self.add_to(acc, value));
        }
        stmts
    }

    /// `let mut b = vec![0.0; t + 1];`: a buffer whose length varies with
    /// the iteration, filled and read back over its length.
    fn decl_growing(&mut self, acc: &str, t: &str) -> Vec<Stmt> {
        let mut stmts = Vec::new();
        let (_, t_hi) = self.int_range(&var(t)).expect("an index in sight");
        let len = if t_hi < 8 {
            let k = if self.chance(0.7) { 1 } else { 2 };
            add(var(t), IntExpr::Lit(k))
        } else {
            let r = IntExpr::Rem(Box::new(var(t)), Box::new(IntExpr::Lit(4)));
            add(r, IntExpr::Lit(1))
        };
        let (_, hi) = self.int_range(&len).expect("a length in sight");
        let b = self.decl_name(DECL_ARRAYS);
        stmts.push(Stmt::LetBuf {
            name: b.clone(),
            init: BufInit::VecZeros(len.clone()),
            annotate: self.chance(0.3),
            mutable: true,
        });
        // Its length varies: only the loops here index it, below it.
        self.bind(&b, Kind::Hidden);
        let q = self.nest_name(DECL_INDICES);
        let bound = |g: &mut Gen| {
            if !avoid("local-len-bounds") && g.chance(DECL_LEN_BOUNDS) {
                IntExpr::Len(b.clone())
            } else {
                len.clone()
            }
        };
        let end = bound(self);
        stmts.push(self.decl_for(&q, IntExpr::Lit(0), end, (0, hi - 1), |g| {
            let mut reads = vec![g.decl_read(var(&q))];
            if g.chance(0.5) {
                reads.push(g.decl_read(var(t)));
            }
            let value = g.mix(reads, Some(&q), &[]);
            vec![Stmt::Assign {
                place: Place::Elem(b.clone(), var(&q)),
                op: AssignOp::Set,
                value,
            }]
        }));
        let end = bound(self);
        stmts.push(self.decl_for(&q, IntExpr::Lit(0), end, (0, hi - 1), |g| {
            let read = Expr::Elem(b.clone(), var(&q));
            let value = match g.rng.gen_range(0..3) {
                0 => {
                    let s = g.m1("sin", read);
                    bin(BinOp::Mul, s, Expr::Cast(add(var(&q), IntExpr::Lit(1))))
                }
                1 => g.mix(vec![read], None, &[]),
                _ => {
                    let other = g.decl_read(var(&q));
                    bin(BinOp::Mul, read, other)
                }
            };
            vec![g.add_to(acc, value)]
        }));
        if self.chance(0.3) {
            let first = Expr::Elem(b.clone(), IntExpr::Lit(0));
            let value = self.mix(vec![first], None, &[]);
            stmts.push(self.add_to(acc, value));
        }
        stmts
    }

    /// `let w = [a, b];` (nothing stores into it), bound.
    fn literal_array(&mut self, t: &str, n: usize) -> (Stmt, String) {
        let w = self.decl_name(DECL_ARRAYS);
        let mut items = Vec::new();
        for k in 0..n {
            let at = match self.rng.gen_range(0..3) {
                0 => var(t),
                1 => add(var(t), IntExpr::Lit(k)),
                _ => IntExpr::Lit(k),
            };
            let read = self.decl_read(at);
            items.push(if self.chance(0.5) {
                self.mix(vec![read], None, &[])
            } else {
                read
            });
        }
        let stmt = Stmt::LetBuf {
            name: w.clone(),
            init: BufInit::List(items),
            annotate: self.chance(0.3),
            mutable: false,
        };
        self.bind(
            &w,
            Kind::Buf {
                len: n,
                writable: false,
                class: BufClass::LocalArray,
                inactive: false,
            },
        );
        (stmt, w)
    }

    /// An array literal only read, also not linearly (`w[0] * w[1]`,
    /// `w[0].sin()`).
    fn decl_literal(&mut self, acc: &str, t: &str) -> Vec<Stmt> {
        let n = self.rng.gen_range(2..=3);
        let (stmt, w) = self.literal_array(t, n);
        let r = |k: usize| Expr::Elem(w.clone(), IntExpr::Lit(k));
        let value = match self.rng.gen_range(0..4) {
            0 => bin(BinOp::Mul, r(0), r(n - 1)),
            1 => {
                let m = *self.pick(&["sin", "cos", "tanh"]);
                self.m1(m, r(0))
            }
            2 => {
                let c = self.m1("cos", r(n - 1));
                bin(BinOp::Sub, bin(BinOp::Mul, r(0), r(1)), c)
            }
            _ => {
                let k = self.rng.gen_range(0..n);
                self.mix(vec![r(k)], None, &[])
            }
        };
        vec![stmt, self.add_to(acc, value)]
    }

    /// What `hv`'s `y` (of `ty`, `dim` floats) is given: the state, a local
    /// array in sight, one declared and filled now, a literal declared now,
    /// `&[a, b]`, or `&u[t..t + 2]`.
    fn state_arg(
        &mut self,
        ty: Ty,
        dim: usize,
        t: &str,
        state: Option<&str>,
        stmts: &mut Vec<Stmt>,
    ) -> CallArg {
        let by_array = matches!(ty, Ty::ArrayRef(_));
        let locals: Vec<String> = self
            .visible()
            .into_iter()
            .filter(|b| match b.kind {
                Kind::Buf { len, class, .. } => {
                    len == dim
                        && match class {
                            BufClass::LocalArray => true,
                            BufClass::LocalVec => !by_array,
                            _ => false,
                        }
                }
                _ => false,
            })
            .map(|b| b.name)
            .collect();
        // the state, most often (`let k = hv(&y, p);` of a time step)
        if let Some(s) = state.filter(|s| locals.iter().any(|l| l == s)) {
            if self.chance(0.5) {
                return CallArg::Ref(s.to_string());
            }
        }
        for _ in 0..8 {
            match self.rng.gen_range(0..5) {
                0 if !locals.is_empty() => return CallArg::Ref(self.pick(&locals).clone()),
                1 => {
                    // declared and filled now
                    let ys = self.decl_name(DECL_ARRAYS);
                    let (init, class) = if by_array || self.chance(0.6) {
                        (BufInit::Zeros(dim), BufClass::LocalArray)
                    } else {
                        (BufInit::VecZeros(IntExpr::Lit(dim)), BufClass::LocalVec)
                    };
                    stmts.push(Stmt::LetBuf {
                        name: ys.clone(),
                        init,
                        annotate: self.chance(0.3),
                        mutable: true,
                    });
                    self.bind(
                        &ys,
                        Kind::Buf {
                            len: dim,
                            writable: true,
                            class,
                            inactive: false,
                        },
                    );
                    let q = self.nest_name(DECL_INDICES);
                    stmts.push(self.decl_for(
                        &q,
                        IntExpr::Lit(0),
                        IntExpr::Lit(dim),
                        (0, dim - 1),
                        |g| {
                            let at = if g.chance(0.5) {
                                add(var(&q), var(t))
                            } else {
                                var(&q)
                            };
                            let read = g.decl_read(at);
                            let value = g.mix(vec![read], Some(&q), &[]);
                            vec![Stmt::Assign {
                                place: g.elem_place(&ys, var(&q)),
                                op: AssignOp::Set,
                                value,
                            }]
                        },
                    ));
                    return CallArg::Ref(ys);
                }
                2 => {
                    let (stmt, w) = self.literal_array(t, dim);
                    stmts.push(stmt);
                    return CallArg::Ref(w);
                }
                3 if !avoid("literal-args") => {
                    let items = (0..dim)
                        .map(|k| {
                            let read = self.decl_read(add(var(t), IntExpr::Lit(k)));
                            if self.chance(0.4) {
                                self.mix(vec![read], None, &[])
                            } else {
                                read
                            }
                        })
                        .collect();
                    return CallArg::RefList(items);
                }
                4 if !by_array => {
                    if let Some(arg) = self.window_arg(dim, t) {
                        return arg;
                    }
                }
                _ => {}
            }
        }
        let (stmt, w) = self.literal_array(t, dim);
        stmts.push(stmt);
        CallArg::Ref(w)
    }

    /// `&u[t..t + n]`, `&u[2..4]`, or a whole buffer of `n`.
    fn window_arg(&mut self, n: usize, t: &str) -> Option<CallArg> {
        let bufs: Vec<(String, usize, BufClass)> = self
            .visible()
            .into_iter()
            .filter_map(|b| match b.kind {
                Kind::Buf { len, class, .. } if len >= n => Some((b.name, len, class)),
                _ => None,
            })
            .collect();
        if bufs.is_empty() {
            return None;
        }
        let (b, len, class) = self.pick(&bufs).clone();
        if len == n {
            return Some(match class {
                BufClass::Slice | BufClass::ArrayRef => CallArg::Name(b),
                _ => CallArg::Ref(b),
            });
        }
        let (_, t_hi) = self.int_range(&var(t)).expect("an index in sight");
        if t_hi + n <= len && self.chance(0.7) {
            return Some(CallArg::Sub(b, var(t), Some(add(var(t), IntExpr::Lit(n)))));
        }
        let lo = self.rng.gen_range(0..=len - n);
        let hi = (lo + n < len || self.chance(0.5)).then_some(IntExpr::Lit(lo + n));
        Some(CallArg::Sub(b, IntExpr::Lit(lo), hi))
    }

    /// `let k = hv(&y, &u[t..t + 2]);` and reads of what it returned; with
    /// a state, sometimes the state's step by it (`y[q] += 0.1 * k[q];`).
    fn decl_call(&mut self, acc: &str, t: &str, state: Option<&str>) -> Vec<Stmt> {
        let (params, dim, vec, y) = {
            let h = self.vec_helper.as_ref().expect("a vector-valued helper");
            (h.func.params.clone(), h.dim, h.vec, h.y.clone())
        };
        self.vec_helper_used = true;
        let mut stmts = Vec::new();
        let mut args = Vec::new();
        for p in &params {
            let arg = match p.ty {
                _ if p.name == y => self.state_arg(p.ty, dim, t, state, &mut stmts),
                Ty::Slice(n) => self
                    .window_arg(n, t)
                    .expect("a buffer of 8 floats in sight"),
                _ => unreachable!("hv takes `y` and a slice"),
            };
            args.push(arg);
        }
        let k = self.decl_name(DECL_ARRAYS);
        stmts.push(Stmt::LetBuf {
            name: k.clone(),
            init: BufInit::Call {
                func: VEC_HELPER.to_string(),
                args,
                len: dim,
                vec,
            },
            annotate: self.chance(0.3),
            mutable: false,
        });
        let class = if vec {
            BufClass::LocalVec
        } else {
            BufClass::LocalArray
        };
        self.bind(
            &k,
            Kind::Buf {
                len: dim,
                writable: false,
                class,
                inactive: false,
            },
        );
        let r = |k_: usize| Expr::Elem(k.clone(), IntExpr::Lit(k_));
        match self.rng.gen_range(0..4) {
            0 => stmts.push(self.add_to(acc, bin(BinOp::Mul, r(0), r(dim - 1)))),
            1 => {
                let m = *self.pick(&["sin", "cos", "tanh"]);
                let i = self.rng.gen_range(0..dim);
                let value = self.m1(m, r(i));
                stmts.push(self.add_to(acc, value));
            }
            2 => {
                let q = self.nest_name(DECL_INDICES);
                let hi = if !avoid("local-len-bounds") && self.chance(DECL_LEN_BOUNDS) {
                    IntExpr::Len(k.clone())
                } else {
                    IntExpr::Lit(dim)
                };
                stmts.push(self.decl_for(&q, IntExpr::Lit(0), hi, (0, dim - 1), |g| {
                    let read = g.elem(&k, var(&q));
                    let value = if g.chance(0.5) {
                        let other = g.decl_read(var(&q));
                        bin(BinOp::Mul, read, other)
                    } else {
                        g.mix(vec![read], Some(&q), &[])
                    };
                    vec![g.add_to(acc, value)]
                }));
            }
            _ => {
                let value = self.mix(vec![r(0), r(1)], None, &[]);
                stmts.push(self.add_to(acc, value));
            }
        }
        let stepped = state.filter(|s| self.buf_len(s) == Some(dim));
        if let Some(s) = stepped {
            if self.chance(0.7) {
                let q = self.nest_name(DECL_INDICES);
                let c = *self.pick(&[0.05, 0.1, 0.25]);
                stmts.push(self.decl_for(
                    &q,
                    IntExpr::Lit(0),
                    IntExpr::Lit(dim),
                    (0, dim - 1),
                    |g| {
                        let step = bin(BinOp::Mul, Expr::Lit(c, false), g.elem(&k, var(&q)));
                        let place = g.elem_place(s, var(&q));
                        if g.chance(0.5) {
                            vec![Stmt::Assign {
                                place,
                                op: AssignOp::Add,
                                value: step,
                            }]
                        } else {
                            let now = g.elem(s, var(&q));
                            let value = g.m1("tanh", bin(BinOp::Add, now, step));
                            vec![Stmt::Assign {
                                place,
                                op: AssignOp::Set,
                                value,
                            }]
                        }
                    },
                ));
            }
        }
        stmts
    }

    /// One of the others in an `if` (sometimes with one in the `else`
    /// too).
    fn decl_branch(&mut self, acc: &str, t: &str, state: Option<&str>) -> Vec<Stmt> {
        let c = self.cond();
        let mark = self.env.len();
        let then = self.decl_item(acc, t, state, false);
        self.env.truncate(mark);
        let otherwise = self.chance(0.5).then(|| {
            let stmts = if self.chance(0.5) {
                self.decl_item(acc, t, state, false)
            } else {
                let read = self.decl_read(var(t));
                let value = self.mix(vec![read], None, &[]);
                vec![self.add_to(acc, value)]
            };
            self.env.truncate(mark);
            Block { stmts, tail: None }
        });
        vec![Stmt::If {
            arms: vec![(
                c,
                Block {
                    stmts: then,
                    tail: None,
                },
            )],
            otherwise,
        }]
    }

    /// Time stepping through arrays declared per step: `let mut y = [x[0],
    /// u[1]]; let mut loss = 0.0; for ts in 0..steps { let k = hv(&y,
    /// &u[ts..ts + 2]); loss += k[0] * k[1]; for q in 0..2 { y[q] += 0.1 *
    /// k[q]; } .. }`, each step one or two of `decl_item`'s constructs,
    /// then the state stepped.
    fn stepper(&mut self, fr: &mut Frame) -> Vec<Stmt> {
        let mut stmts = Vec::new();
        let dim = match &self.vec_helper {
            Some(h) if !avoid("vector-helpers") && self.rng.gen_bool(0.8) => h.dim,
            _ => self.rng.gen_range(2..=3),
        };
        let y = self.decl_name(DECL_ARRAYS);
        let class = if self.chance(0.7) {
            let items = (0..dim).map(|k| self.decl_read(IntExpr::Lit(k))).collect();
            stmts.push(Stmt::LetBuf {
                name: y.clone(),
                init: BufInit::List(items),
                annotate: self.chance(0.3),
                mutable: true,
            });
            BufClass::LocalArray
        } else {
            stmts.push(Stmt::LetBuf {
                name: y.clone(),
                init: BufInit::VecZeros(IntExpr::Lit(dim)),
                annotate: self.chance(0.3),
                mutable: true,
            });
            BufClass::LocalVec
        };
        self.bind(
            &y,
            Kind::Buf {
                len: dim,
                writable: true,
                class,
                inactive: false,
            },
        );
        if class == BufClass::LocalVec {
            let q = self.nest_name(DECL_INDICES);
            stmts.push(
                self.decl_for(&q, IntExpr::Lit(0), IntExpr::Lit(dim), (0, dim - 1), |g| {
                    let read = g.decl_read(var(&q));
                    vec![Stmt::Assign {
                        place: g.elem_place(&y, var(&q)),
                        op: AssignOp::Set,
                        value: read,
                    }]
                }),
            );
        }
        let acc = self.decl_name(DECL_ACCS);
        stmts.push(Stmt::Let {
            name: acc.clone(),
            mutable: true,
            annotate: true,
            init: zero(),
        });
        self.bind(&acc, Kind::Hidden);
        let t = self.nest_name(DECL_STEPS);
        let (steps, count) = match fr.steps.clone() {
            Some(s) if self.chance(0.7) => {
                let (_, v) = self.int_range(&var(&s)).expect("the steps in sight");
                (var(&s), v)
            }
            _ => {
                let v = self.rng.gen_range(1..=4);
                (IntExpr::Lit(v), v)
            }
        };
        let outer = self.decl_for(&t, IntExpr::Lit(0), steps, (0, count - 1), |g| {
            let mut body = Vec::new();
            for _ in 0..g.rng.gen_range(1..=2) {
                body.extend(g.decl_item(&acc, &t, Some(&y), true));
            }
            if g.chance(0.7) {
                let q = g.nest_name(DECL_INDICES);
                body.push(
                    g.decl_for(&q, IntExpr::Lit(0), IntExpr::Lit(dim), (0, dim - 1), |g| {
                        let now = g.elem(&y, var(&q));
                        let read = g.decl_read(add(var(&q), var(&t)));
                        let f = g.mix(vec![now.clone(), read], Some(&q), &[]);
                        let f = g.squash(f);
                        let value = if g.chance(0.5) {
                            bin(
                                BinOp::Add,
                                bin(BinOp::Mul, Expr::Lit(0.5, false), now),
                                bin(BinOp::Mul, Expr::Lit(0.5, false), f),
                            )
                        } else {
                            f
                        };
                        vec![Stmt::Assign {
                            place: g.elem_place(&y, var(&q)),
                            op: AssignOp::Set,
                            value,
                        }]
                    }),
                );
            }
            if g.chance(0.5) {
                let value = bin(
                    BinOp::Mul,
                    g.elem(&y, IntExpr::Lit(0)),
                    g.elem(&y, IntExpr::Lit(dim - 1)),
                );
                body.push(g.add_to(&acc, value));
            }
            body
        });
        stmts.push(outer);
        fr.decl_terms.push(local(&acc));
        let k = self.rng.gen_range(0..dim);
        fr.decl_terms.push(Expr::Elem(y, IntExpr::Lit(k)));
        stmts
    }
}
