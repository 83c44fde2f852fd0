//! The generator's small syntax tree: just the part of Rust that API.md §1
//! promises `#[differentiable]` accepts. It is printed twice by `render.rs`,
//! once as plain `f64` Rust and once on the tape's `Var`s, so everything a
//! rendering needs to know (which names are references, which buffers are
//! `Vec`s, which literals must carry a type) is decided here, by the
//! generator, and not guessed by the printers.

/// One randomly generated test case: a few helpers and the function `f`
/// that may call them, all in one module of the generated crate. A helper
/// whose body's tail is an [`Expr::List`] is vector-valued.
#[derive(Clone, Debug)]
pub struct Program {
    /// The batch seed and the index of this program in the batch: together
    /// they regenerate it.
    pub seed: u64,
    pub index: usize,
    /// `const SCALE: f64 = ..;` and friends, readable from every body.
    pub consts: Vec<(String, f64)>,
    /// The fields of `const LIMITS: Limits`, `usize`s named like locals and
    /// parameters (`LIMITS.xs`, `LIMITS.t0`), with their values: integer
    /// expressions read them (`IntExpr::Field`), so that code kept as
    /// tokens has fields named like the variables renamed around them.
    pub limits: Vec<(String, usize)>,
    /// `h0`, `h1`, ...: `h1` may call `h0`, `f` may call any of them.
    pub helpers: Vec<Func>,
    pub main: Func,
}

#[derive(Clone, Debug)]
pub struct Func {
    pub name: String,
    pub params: Vec<Param>,
    /// Prints `#[differentiable(wrt(..))]` naming the active floats.
    pub explicit_wrt: bool,
    pub body: Block,
}

#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub ty: Ty,
    /// Differentiated (only meaningful for float types).
    pub active: bool,
    /// `mut a: [f64; N]`: a by-value array the body writes to.
    pub mutable: bool,
}

/// Parameter types. Lengths are fixed per program: `f` is always called
/// with slices of exactly these lengths, so the generator can prove every
/// index in bounds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ty {
    F64,
    Slice(usize),
    Array(usize),
    ArrayRef(usize),
    /// A constant `usize`; the value every caller passes.
    Usize(usize),
}

impl Ty {
    pub fn is_float(self) -> bool {
        !matches!(self, Ty::Usize(_))
    }
    /// How many `f64`s the parameter holds.
    pub fn floats(self) -> usize {
        match self {
            Ty::F64 => 1,
            Ty::Slice(n) | Ty::Array(n) | Ty::ArrayRef(n) => n,
            Ty::Usize(_) => 0,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    /// The value of the block (functions, `if` values and block values).
    pub tail: Option<Box<Expr>>,
}

#[derive(Clone, Debug)]
pub enum Stmt {
    /// `let [mut] name[: f64] = init;`
    Let {
        name: String,
        mutable: bool,
        annotate: bool,
        init: Expr,
    },
    /// `let mut name[: T] = <buffer>;`
    LetBuf {
        name: String,
        init: BufInit,
        annotate: bool,
        /// `let mut` (a buffer the function may write); `let` otherwise
        /// (an array literal only read: at literal indices, the macro makes
        /// it one value per element).
        mutable: bool,
    },
    /// `let mut name = value;` (a `usize` counter for `while` and `loop`)
    LetCounter {
        name: String,
    },
    /// `let name = value;` of a `usize` (a row's start, `let base = i * m;`)
    LetInt {
        name: String,
        value: IntExpr,
    },
    /// `name += 1;` on a counter.
    Incr {
        name: String,
    },
    /// `name += by;` or `name = name + by;` on a counter a loop nest steps
    /// (`counters`: the reverse sweep counts it back).
    Step {
        name: String,
        by: IntExpr,
        spelled_out: bool,
    },
    /// `name = [a, b, ..];`: a local array (`BufClass::LocalArray`) assigned
    /// whole, one value per element.
    AssignWhole {
        name: String,
        items: Vec<Expr>,
    },
    /// `place op value;` with op one of `= += -= *= /=`.
    Assign {
        place: Place,
        op: AssignOp,
        value: Expr,
    },
    /// `std::mem::swap(&mut a, &mut b);` of two mutable float locals
    /// (`mem`), or `(a, b) = (b, a);`.
    Swap {
        a: String,
        b: String,
        mem: bool,
    },
    /// A bare `{ .. }` block.
    Block(Block),
    If {
        arms: Vec<(Cond, Block)>,
        otherwise: Option<Block>,
    },
    For {
        pat: ForPat,
        iter: ForIter,
        body: Block,
    },
    /// `while counter < limit { .. }` (the body increments the counter
    /// first, so `continue` cannot make it spin), or, with `stepped_last`,
    /// `while counter < limit { { .. } counter = counter + (counter + 1); }`
    /// (`+=` unless spelled out; the body, in a block of its own so that it
    /// cannot shadow the counter, has no `break` or `continue` of its own):
    /// the `while` the macro lowers as the `for` over its trip count.
    While {
        counter: String,
        limit: usize,
        extra: Option<Cond>,
        body: Block,
        stepped_last: Option<bool>,
    },
    /// `loop { .. }`, whose body starts with the counter's increment and a
    /// `break` once it passes `limit`.
    Loop {
        body: Block,
    },
    /// `if cond { break; }` / `continue` / `return e` are ordinary `If`s
    /// around these.
    Break,
    Continue,
    Return(Expr),
    /// `let (lo, hi) = buf.split_at(at);`: two views of a read-only buffer
    SplitAt {
        buf: String,
        at: usize,
        lo: String,
        hi: String,
    },
    /// `for pat in chain { body }` (`for_each`: `chain.for_each(|pat| {
    /// body });`, its body without `return` and without `break` or
    /// `continue` of its own loop)
    ForChain {
        pat: Pat,
        chain: Chain,
        body: Block,
        for_each: bool,
    },
    /// `for [(j, )]v in buf.iter_mut()[.pos..][.enumerate()] { *v op value; }`
    /// (`len` the buffer's length; `index` the enumerate name).
    IterMut {
        buf: String,
        len: usize,
        pos: Vec<PosOp>,
        index: Option<String>,
        var: String,
        op: AssignOp,
        value: Expr,
    },
    /// `let (a, mut b, _) = init;` / `let [x1, x2] = *x;` (`annotate`:
    /// `: (f64, f64)` / `: [f64; 2]`)
    Destructure {
        names: Vec<(Option<String>, bool)>,
        init: DInit,
        annotate: bool,
    },
    /// `let [mut] p = (e1, e2);` (read as `p.0`; a `mut` one assigned by
    /// part, `p.0 += e`)
    LetTuple {
        name: String,
        items: Vec<Expr>,
        annotate: bool,
        mutable: bool,
    },
    /// `let name = |param: f64| body;` (`by_ref`: `|param: &f64|`, the
    /// body reading `*param`, called as `name(&arg)`)
    LetClosure {
        name: String,
        param: String,
        body: Expr,
        by_ref: bool,
        /// After it, now and then, a closure returning rows of a slice
        /// parameter, called as a call's argument (`CallArg::Row`).
        rows: Option<Rows>,
    },
    /// A closure of rows alone (`ast::Rows`), first in a function's body.
    LetRows(Rows),
    /// `let closure = |param: f64| [items..]; let name = closure(arg);`:
    /// an array a closure returns, read as a local array
    LetArrClosure {
        closure: String,
        param: String,
        items: Vec<Expr>,
        name: String,
        arg: Expr,
    },
    /// `match scrut { pat [if guard] => { .. }, .. }`
    Match {
        scrut: Scrut,
        arms: Vec<(MPat, Option<Cond>, Block)>,
    },
    /// `let name = buf.partition_point(|a| *a < bound).min(len - 1);`: a
    /// search of a float buffer, bound as an index
    Search {
        name: String,
        buf: String,
        len: usize,
        bound: f64,
    },
    /// `buf.sort_by(|a, b| a.total_cmp(b));` (`b.total_cmp(a)` if
    /// `descending`) of a local buffer
    Sort {
        buf: String,
        descending: bool,
    },
    /// `let [mut] m = [[0.0; c]; r];` (`vec![vec![0.0; c]; r]`, or rows
    /// written out): a local array of arrays
    LetMat {
        name: String,
        rows: usize,
        cols: usize,
        /// the rows written out, else zeros
        items: Option<Vec<Vec<Expr>>>,
        vec: bool,
        mutable: bool,
    },
}

#[derive(Clone, Debug)]
pub enum BufInit {
    /// `[0.0; N]`
    Zeros(usize),
    /// `[a, b, c]`
    List(Vec<Expr>),
    /// `vec![0.0; n]`, `n` an integer expression.
    VecZeros(IntExpr),
    /// `x.to_vec()` of a parameter buffer.
    ToVec(String),
    /// `[e; n]`, or `vec![e; n]` if `vec`: a fill with a value that may
    /// vary.
    Fill { value: Expr, len: usize, vec: bool },
    /// `let mut v: Vec<f64> = Vec::new();`, a loop pushing the items, `for k
    /// in 0..n { v.push(if k == 0 { a } else { b }); }`, then `let b = v;`
    /// (the tape: `vec![a, b]`)
    Pushed(Vec<Expr>),
    /// `h(args)` of a vector-valued helper, which returns `len` floats:
    /// `[f64; len]`, or a `Vec<f64>` if `vec`.
    Call {
        func: String,
        args: Vec<CallArg>,
        len: usize,
        vec: bool,
    },
}

#[derive(Clone, Debug)]
pub enum Place {
    Local(String),
    Elem(String, IntExpr),
    /// `p.k` of a mutable tuple local
    Part(String, usize),
    /// `m[i][j]` of a local array of arrays
    MatElem(String, IntExpr, IntExpr),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AssignOp {
    Set,
    Add,
    Sub,
    Mul,
    Div,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

/// Whether a method is printed `x.m(..)` or `f64::m(x, ..)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Form {
    Dot,
    Path,
}

#[derive(Clone, Debug)]
pub enum Expr {
    /// A non-negative literal (negative values are `Neg(Lit)`), printed
    /// with a `.`; `typed` prints `_f64`.
    Lit(f64, bool),
    /// A float local or parameter.
    Local(String),
    /// `*v`, for loop variables bound to `&f64`.
    Deref(String),
    /// `buf[i]`
    Elem(String, IntExpr),
    /// `m[i][j]` of a local array of arrays
    MatElem(String, IntExpr, IntExpr),
    /// `m[i].iter().sum::<f64>()`: a row of a local array of arrays
    MatRowSum(String, IntExpr),
    Bin(BinOp, Box<Expr>, Box<Expr>),
    Neg(Box<Expr>),
    /// `recv.name(args)` or `f64::name(recv, args)`.
    Method {
        name: &'static str,
        form: Form,
        recv: Box<Expr>,
        args: Vec<Expr>,
    },
    /// `recv.powi(k)`
    Powi(Box<Expr>, i32, Form),
    /// `(int as f64)`
    Cast(IntExpr),
    /// A constant path: `std::f64::consts::PI`, `f64::EPSILON`, `SCALE`.
    Const(String),
    /// A call of a helper.
    Call(String, Vec<CallArg>),
    /// `if c { a } else if .. { } else { b }` as a value.
    If(Vec<(Cond, Block)>, Block),
    /// `{ stmts; tail }` as a value.
    Block(Block),
    /// `chain.sum::<f64>()`, `.product`, `.fold(..)`
    Chain(Box<Chain>, Consumer),
    /// `(chain.count() as f64)`
    Count(Box<Chain>),
    /// `(a..b).flat_map(|i| (i..b).map(move |j| body)).sum::<f64>()`: pairs
    /// `a <= i <= j < b`; `body` reads no value a `move` closure would take
    /// (no local `Vec`, matrix or closure)
    FlatSum {
        i: String,
        j: String,
        a: usize,
        b: usize,
        body: Box<Expr>,
    },
    /// `p.0`
    Field(String, usize),
    /// `sq(arg)` of a closure local
    CallClosure(String, Box<Expr>, bool),
    /// `xs.get(i).copied().unwrap_or(v)`, spelled as [`GetForm`] says
    GetOr(String, IntExpr, Box<Expr>, GetForm),
    /// `match scrut { .. }` as a value (the last arm is `_` or completes a
    /// `bool`)
    Match(Box<Scrut>, Vec<(MPat, Option<Cond>, Block)>),
    /// `[a, b]` (`vec![a, b]` if the flag is set): only the tail of a
    /// vector-valued helper, which returns it (`-> [f64; 2]`, `-> Vec<f64>`),
    /// spelled as [`ListForm`] says.
    List(Vec<Expr>, bool, ListForm),
}

/// How `xs.get(i)` with a value for none is spelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GetForm {
    /// `xs.get(i).copied().unwrap_or(v)`
    Copied,
    /// `xs.get(i).cloned().unwrap_or(v)`
    Cloned,
    /// `if let Some(&g) = xs.get(i) { g } else { v }`
    IfLet,
    /// `xs.get(i).map(|g| *g).unwrap_or(v)`
    Map,
}

/// How a vector-valued helper's tail spells its list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListForm {
    /// `[a, b]`, `vec![a, b]`
    Literal,
    /// `(0..2).map(|listed_k| if listed_k == 0 { a } else { b }).collect()`
    /// (a `Vec` only)
    Collect,
    /// `{ let mut listed = vec![0.0; 2]; listed[0] = a; listed[1] = b;
    /// listed }` (`[0.0; 2]` for an array)
    Stored,
}

#[derive(Clone, Debug)]
pub enum CallArg {
    Scalar(Expr),
    Int(IntExpr),
    /// A buffer by name: a slice parameter `w`, an array `a` (by value).
    Name(String),
    /// `&buf` of a local buffer or array.
    Ref(String),
    /// `&w[lo..hi]`, `&w[lo..]`
    Sub(String, IntExpr, Option<IntExpr>),
    /// `[a, b]`
    List(Vec<Expr>),
    /// `&[a, b]`
    RefList(Vec<Expr>),
    /// `rows(k)` of a [`Rows`] closure: a subslice of its buffer.
    Row(String, IntExpr),
}

/// `let name = |param: usize| &buf[param * stride..param * stride + len];`
#[derive(Clone, Debug)]
pub struct Rows {
    pub name: String,
    pub param: String,
    pub buf: String,
    pub stride: usize,
    pub len: usize,
}

#[derive(Clone, Debug)]
pub enum IntExpr {
    Lit(usize),
    Var(String),
    /// `w.len()`
    Len(String),
    Add(Box<IntExpr>, Box<IntExpr>),
    Sub(Box<IntExpr>, Box<IntExpr>),
    Mul(Box<IntExpr>, Box<IntExpr>),
    /// `a % b`
    Rem(Box<IntExpr>, Box<IntExpr>),
    /// `LIMITS.name`, a field of the program's constant struct, and its
    /// value ([`Program::limits`]).
    Field(String, usize),
}

#[derive(Clone, Debug)]
pub enum Cond {
    Cmp(CmpOp, Expr, Expr),
    IntCmp(CmpOp, IntExpr, IntExpr),
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
    Not(Box<Cond>),
    /// `xs.iter().any(|&q__| q__ op rhs)` (`all` when the flag is set).
    Any {
        all: bool,
        buf: String,
        op: CmpOp,
        rhs: Expr,
    },
}

#[derive(Clone, Debug)]
pub enum ForPat {
    /// `for i in ..` over a range (`i` a usize).
    Index(String),
    /// `for v in xs` / `for v in xs.iter()` (`v` a `&f64`, read as `*v`) or
    /// over a by-value array (`v` an `f64`).
    Value(String),
    /// `for &v in xs`
    AmpValue(String),
    /// `for (i, v) in xs.iter().enumerate()`
    Enumerate(String, String),
}

#[derive(Clone, Debug)]
pub enum ForIter {
    /// `lo..hi`, `lo..=hi`, `(lo..hi).rev()`
    Range {
        lo: IntExpr,
        hi: IntExpr,
        inclusive: bool,
        rev: bool,
    },
    /// `xs` itself.
    Plain(String),
    /// `xs.iter()` (also under `.enumerate()`).
    Iter(String),
}

// ----- idiomatic Rust (API.md §1b, issue 15) --------------------------------
//
// Every construct below is printed idiomatically in the plain rendering and,
// on the tape, as the explicit loop / `if` chain / separate `let`s it stands
// for. Iterator chains carry the static facts the tape needs (buffer
// lengths, range values), so the tape's loop runs over a literal list of
// positions computed by `render.rs` and not by anything the macro does.

/// An iterator chain: a source, positional adaptors (`rev`, `skip`, `take`,
/// `step_by`), an optional `enumerate` or `zip` (and positional adaptors of
/// its pairs), then `map`/`filter` stages
/// (and `enumerate` after a `filter`).
#[derive(Clone, Debug)]
pub struct Chain {
    pub src: Src,
    pub pos: Vec<PosOp>,
    pub pair: Pair,
    /// `rev`, `skip`, `take`, `step_by` of the pairs (after the `enumerate`
    /// or `zip`: `.enumerate().rev()` counts from the front).
    pub after: Vec<PosOp>,
    pub stages: Vec<Stage>,
}

#[derive(Clone, Debug)]
pub enum Src {
    /// `xs.iter()` (items `&f64`), `xs.iter().copied()` / `.cloned()`
    /// (items `f64`), `xs` itself for a slice in `for`/`zip` (items `&f64`);
    /// over `xs[lo..hi]` when `lo > 0 || hi < len || sliced`.
    Elems {
        buf: String,
        len: usize,
        lo: usize,
        hi: usize,
        sliced: bool,
        how: How,
    },
    /// `(lo..hi)` / `(lo..=hi)` (items `usize`); `start..end` the values
    /// (end exclusive), known to the generator.
    Range {
        lo: IntExpr,
        hi: IntExpr,
        inclusive: bool,
        start: usize,
        end: usize,
    },
    /// `xs.windows(k)`, `xs.chunks(k)`, `xs.chunks_exact(k)` (items `&[f64]`).
    Slices {
        buf: String,
        len: usize,
        k: usize,
        kind: SliceKind,
    },
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum How {
    /// `.iter()`
    Ref,
    /// `.iter().copied()`
    Copied,
    /// `.iter().cloned()`
    Cloned,
    /// the buffer itself (`for v in xs`, `.zip(ys)`): a `&[f64]` / `&[f64; N]`.
    Plain,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SliceKind {
    Windows,
    Chunks,
    ChunksExact,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PosOp {
    Rev,
    Skip(usize),
    Take(usize),
    StepBy(usize),
}

#[derive(Clone, Debug)]
pub enum Pair {
    None,
    /// `.enumerate()`: items `(usize, item)`
    Enumerate,
    /// `.zip(other)`: items `(item, other's item)`
    Zip(Box<Src>, Vec<PosOp>),
    /// `.zip(k..)`
    ZipFrom(usize),
}

/// A closure parameter pattern (and a `for` pattern).
#[derive(Clone, Debug)]
pub enum Pat {
    /// `v`
    Name(String),
    /// `&v`
    Amp(Box<Pat>),
    /// `(a, b)`
    Pair(Box<Pat>, Box<Pat>),
    /// A tuple pattern matched against a reference to the item (a
    /// `filter`'s, a `take_while`'s, a `find`'s), in place of `&(a, b)`:
    /// its names bound by reference, each taken by value first in the
    /// closure (`|(i, v)| { let i = *i; let v = *v; .. }`).
    RefMatch(Box<Pat>),
}

#[derive(Clone, Debug)]
pub enum Stage {
    /// `.map(|pat| body)`
    Map(Pat, Expr),
    /// `.filter(|pat| cond)` (`pat` matches `&item`)
    Filter(Pat, Cond),
    /// `.filter_map(|pat| if cond { Some(body) } else { None })`, or
    /// `(cond).then(|| body)` (`then`; `pat` matches the item itself)
    FilterMap(Pat, Cond, Expr, bool),
    /// `.enumerate()` after a `filter`: items `(position among the items
    /// that passed, item)`
    Enumerate,
    /// `.take_while(|pat| cond)` (`pat` matches `&item`): the chain ends at
    /// the first item that fails
    TakeWhile(Pat, Cond),
    /// `.skip_while(|pat| cond)`: the items before the first that fails
    /// are skipped
    SkipWhile(Pat, Cond),
}

#[derive(Clone, Debug)]
pub enum Consumer {
    /// `.sum::<f64>()` (from `-0.0`, left to right)
    Sum,
    /// `.product::<f64>()` (from `1.0`)
    Product,
    /// `.fold(init, |acc, pat| body)`
    Fold(Box<Expr>, String, Pat, Box<Expr>),
    /// `.reduce(f64::max)` (`min`; `by`: `.max_by(|a, b| a.total_cmp(b))`,
    /// `min_by`) then `.unwrap_or(default)`; `copied`: `.copied()` first
    /// (else the items are `&f64` where they were)
    Extreme {
        max: bool,
        by: bool,
        copied: bool,
        default: f64,
        /// `{ let (best_i, best_v) = chain.enumerate().max_by(|a, b|
        /// a.1.total_cmp(&b.1)).unwrap_or((0, default)); best_v + best_i
        /// as f64 }` (`by` only)
        indexed: bool,
        /// The items reaching the consumer are `&f64` (`&default` then)
        refs: bool,
    },
    /// `.find(|test| cond).map(|pat| body).unwrap_or(default)`, or
    /// `.map_or(default, |pat| body)` (`test` matches `&item`); `last`:
    /// `.filter(|test| cond).last()` instead of the `find` (`next`:
    /// `.filter(..).next()`, the same as the `find`)
    Find {
        next: bool,
        last: bool,
        /// `(if let Some(pat) = chain.find(..) { body } else { default })`
        /// instead of the `map`
        if_let: bool,
        /// `.find_map(|it| { let test = it; if cond { let pat = it;
        /// Some(body) } else { None } })` instead of the `find` and the
        /// `map` (not with `next`, `last` or `if_let`)
        find_map: bool,
        test: Pat,
        cond: Box<Cond>,
        pat: Pat,
        body: Box<Expr>,
        default: Box<Expr>,
        map_or: bool,
    },
}

/// Patterns of a `match` arm.
#[derive(Clone, Debug)]
pub enum MPat {
    Int(usize),
    /// `a..=b`
    Range(usize, usize),
    /// `a | b | ..`
    Or(Vec<MPat>),
    Bool(bool),
    Wild,
    /// `(p, q)` of a tuple scrutinee
    Tuple(Vec<MPat>),
    /// A name bound to the whole (float) scrutinee
    Bind(String),
}

#[derive(Clone, Debug)]
pub enum Scrut {
    Int(IntExpr),
    Bool(Cond),
    /// `(a, b)` written out
    Tuple(Vec<Scrut>),
    /// A float, its arms binding it to the name (`v if v < 0.5 => ..`)
    Float(Expr, String),
}

/// What a destructuring `let` takes apart.
#[derive(Clone, Debug)]
pub enum DInit {
    /// `(e1, e2, ..)`
    Tuple(Vec<Expr>),
    /// `e.sin_cos()` / `f64::sin_cos(e)`
    SinCos(Expr, Form),
    /// `*x` (`deref`) or `x`, an array of `len` floats
    Array { src: String, deref: bool },
}
