//! # autograd
//!
//! Compile-time reverse-mode automatic differentiation for Rust. Put
//! [`#[differentiable]`](differentiable) on an ordinary `f64` function and get,
//! generated at compile time, its gradient and its reverse-mode adjoint:
//! plain Rust with no graph. Straight-line code and loops that read their
//! inputs and accumulate get adjoints that allocate nothing; loops that
//! overwrite what their derivative needs save exactly that, in one
//! pre-sized buffer per value. A function of one `f64` input is
//! differentiated in forward mode instead, in one pass that saves nothing.
//! Measurements against hand-written gradients are in `BENCHMARKS.md`.
//!
//! ```
//! use autograd::differentiable;
//!
//! #[differentiable]
//! fn f(x: f64, y: f64) -> f64 {
//!     x * y + x.sin()
//! }
//!
//! let (value, (dx, dy)) = f_grad(2.0, 3.0);
//! assert_eq!(value, 6.0 + 2.0_f64.sin());
//! assert_eq!(dx, 3.0 + 2.0_f64.cos());
//! assert_eq!(dy, 2.0);
//! ```
//!
//! Every derivative the generated code uses comes from one table,
//! [`rules`], with its conventions at kinks (`abs` at 0, ties of `max`, ...)
//! documented there. For computations whose shape is only known at run
//! time, [`tape`] records a graph and differentiates it with the same rules:
//!
//! ```
//! use autograd::tape::Tape;
//!
//! let tape = Tape::new();
//! let x = tape.var(2.0);
//! let y = tape.var_named("y", 3.0);
//! let z = x * y + x.sin();
//! let g = z.backward();
//! assert_eq!(g[x], 3.0 + 2.0_f64.cos());
//! assert_eq!(g.by_name("y"), Some(2.0));
//! ```

/// Generates the gradient and the reverse-mode adjoint of an `f64` function.
///
/// ```
/// use autograd::differentiable;
///
/// #[differentiable]
/// pub fn loss(w: &[f64], x: f64, target: f64) -> f64 {
///     let prediction = w[0] * x + w[1];
///     let error = prediction - target;
///     error * error
/// }
///
/// // `loss` is unchanged. `loss_grad` returns the value and the gradient,
/// // one entry per float parameter, in order:
/// let (value, (d_w, d_x, d_target)) = loss_grad(&[2.0, 1.0], 3.0, 5.0);
/// assert_eq!(value, 4.0);
/// assert_eq!(d_w, vec![12.0, 4.0]);
/// assert_eq!((d_x, d_target), (8.0, -4.0));
///
/// // `loss_adjoint` returns the value and *adds* `d_out` times the gradient
/// // into caller-owned buffers: the building block of backpropagation.
/// let (mut d_w, mut d_x, mut d_target) = (vec![0.0; 2], 0.0, 0.0);
/// let value = loss_adjoint(&[2.0, 1.0], 3.0, 5.0, 0.5, &mut d_w, &mut d_x, &mut d_target);
/// assert_eq!((value, d_w), (4.0, vec![6.0, 2.0]));
/// ```
///
/// # What it generates
///
/// Next to `f`, unchanged, in the same scope and with the same visibility:
///
/// | item | signature |
/// | --- | --- |
/// | `f_grad` | `fn f_grad(<f's params>) -> (f64, G)` |
/// | `f_adjoint` | `fn f_adjoint(<f's params>, d_out: f64, d_<p>: &mut T_p, ...) -> f64` |
///
/// Active parameters are the float ones: `f64` (gradient `f64`, adjoint
/// `&mut f64`), `&[f64]` (gradient `Vec<f64>`, adjoint `&mut [f64]` of the
/// same length — a different length panics, naming the parameter),
/// `[f64; N]` and `&[f64; N]` (gradient `[f64; N]`, adjoint `&mut [f64; N]`).
/// Every other parameter (`usize`, `&[usize]`, `&self`, your own types) is a
/// constant and gets no gradient. `G` is the single gradient when one
/// parameter is active and a tuple of them otherwise.
///
/// `#[differentiable(wrt(a, b))]` differentiates only `a` and `b`:
///
/// ```
/// use autograd::differentiable;
///
/// #[differentiable(wrt(w))]
/// fn predict(w: [f64; 2], x: f64) -> f64 {
///     w[0] * x + w[1]
/// }
///
/// assert_eq!(predict_grad([2.0, 1.0], 3.0), (7.0, [3.0, 1.0]));
/// ```
///
/// Associated functions and `&self` methods work too (`self` is a constant):
///
/// ```
/// use autograd::differentiable;
///
/// struct Spring { stiffness: f64 }
///
/// impl Spring {
///     #[differentiable]
///     fn energy(&self, stretch: f64) -> f64 {
///         0.5 * self.stiffness * stretch * stretch
///     }
/// }
///
/// let spring = Spring { stiffness: 4.0 };
/// assert_eq!(spring.energy_grad(3.0), (18.0, 12.0));
/// ```
///
/// # Control flow, buffers and calls
///
/// Branches, loops and local buffers work as in ordinary Rust; the reverse
/// sweep takes the same path backwards:
///
/// ```
/// use autograd::differentiable;
///
/// /// √a by 30 Newton steps: a loop that overwrites its state.
/// #[differentiable]
/// fn newton_sqrt(a: f64) -> f64 {
///     let mut x = a;
///     for _ in 0..30 {
///         x = 0.5 * (x + a / x);
///     }
///     x
/// }
///
/// let (root, d) = newton_sqrt_grad(9.0);
/// assert!((root - 3.0).abs() < 1e-15 && (d - 1.0 / 6.0).abs() < 1e-15);
///
/// /// Prefix products in a local buffer, with a branch and an early exit.
/// #[differentiable]
/// fn damped_products(x: &[f64], limit: f64) -> f64 {
///     let mut p = x.to_vec();
///     for i in 1..p.len() {
///         if p[i - 1] > limit {
///             break;
///         }
///         p[i] *= p[i - 1];
///     }
///     p[p.len() - 1]
/// }
///
/// let (value, (d_x, d_limit)) = damped_products_grad(&[2.0, 3.0, 0.5], 10.0);
/// assert_eq!((value, d_x, d_limit), (3.0, vec![1.5, 1.0, 6.0], 0.0));
/// ```
///
/// A call `g(..)` (also `module::g(..)`, `Self::g(..)`, `self.g(..)`) with a
/// differentiated argument is differentiated by calling `g_adjoint`, so
/// `#[differentiable]` functions compose, across modules and recursively.
/// Where the call runs only once before its reverse (straight-line code of
/// the function body, the body of a fused loop: see below) and only
/// scalars vary, `g_adjoint` is called instead of `g`, with `d_out = 1`, and
/// gives the value and the partials at once; elsewhere `g` is called
/// forwards and `g_adjoint` in the reverse sweep. `g_adjoint` is found by name next to `g`: import both
/// (`use model::{g, g_adjoint};`) or call by path (`model::g(x)`).
/// Arguments are passed as people write them: values, literals and
/// constants (`g(x, 2.0)`), array literals (`g([a, b])`, `g(&[a, b])`),
/// local buffers and their subslices (`g(&buf)`, `g(&buf[1..])`). The
/// callee's adjoint has a `d_` slot for each parameter it differentiates:
/// an argument that depends on an active input goes to such a parameter;
/// constant data (a value that depends on a parameter of the caller that
/// is not differentiated: `labels`, `labels[i]`, `&xs[1..]`) to one it does
/// not differentiate (give it `wrt(..)`); a float constant to either — the
/// generated call finds out at compile time how many slots the callee's
/// adjoint takes and gives the constants it has slots for scratch ones. A
/// subslice `&w[a..b]` of a float array passes `&mut d_w[a..b]`.
///
/// **Custom derivatives.** A function the macro cannot see into gets a
/// hand-written `g_adjoint` with the same convention, and every
/// `#[differentiable]` caller uses it:
///
/// ```
/// use autograd::differentiable;
///
/// /// log(1 + eˣ), computed stably (the macro cannot see the branch's intent).
/// fn softplus(x: f64) -> f64 {
///     if x > 30.0 { x } else { x.exp().ln_1p() }
/// }
///
/// /// Its adjoint, by hand: d softplus / dx = sigmoid(x).
/// fn softplus_adjoint(x: f64, d_out: f64, d_x: &mut f64) -> f64 {
///     *d_x += d_out / (1.0 + (-x).exp());
///     softplus(x)
/// }
///
/// #[differentiable]
/// fn loss(w: f64, x: f64) -> f64 {
///     softplus(w * x) - 0.5 * w
/// }
///
/// let (_, (d_w, _)) = loss_grad(2.0, 1.0);
/// assert!((d_w - (1.0 / (1.0 + (-2.0_f64).exp()) - 0.5)).abs() < 1e-15);
/// ```
///
/// # Second order: `#[differentiable(hessian)]`
///
/// `hessian` adds two items (API.md §4), computed by forward mode over the
/// generated adjoint (every value and adjoint of `f_adjoint` carries its
/// derivative along a direction `v`, as a [`dual::Dual`]; second
/// derivatives come from [`rules::second`]):
///
/// | item | signature |
/// | --- | --- |
/// | `f_hvp` | `fn f_hvp(<f's params>, v_<p>: T_p, ...) -> (f64, G, G)`: the value, the gradient and the Hessian times `v` (one `v_<p>` per active parameter, typed like it) |
/// | `f_hessian` | `fn f_hessian(<f's params>) -> (f64, G, Vec<f64>)`: the value, the gradient and the dense `n × n` Hessian, row-major over the active floats flattened in parameter order |
///
/// ```
/// use autograd::differentiable;
///
/// #[differentiable(hessian)]
/// fn f(x: f64, w: &[f64]) -> f64 {
///     x * x * w[0] + w[1].sin()
/// }
///
/// let (value, (dx, dw), h) = f_hessian(3.0, &[2.0, 0.0]);
/// assert_eq!((value, dx, dw), (18.0, 12.0, vec![9.0, 1.0]));
/// // rows and columns: x, w[0], w[1]
/// assert_eq!(h, [4.0, 6.0, 0.0, 6.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
/// let (_, _, (hv_x, hv_w)) = f_hvp(3.0, &[2.0, 0.0], 1.0, &[0.0, 0.0]);
/// assert_eq!((hv_x, hv_w), (4.0, vec![6.0, 0.0]));
/// ```
///
/// `f_hvp` costs about 1.9–2.9× `f_adjoint` (instructions,
/// `benches/hvp_instructions.sh`), `f_hessian` `n` of them, allocating only
/// the returned buffers. `wrt(..)` combines with `hessian` in either order.
/// A `hessian` function calling another `#[differentiable]` function calls
/// its hidden second-order adjoint `g_hvp_adjoint`, so the callee must be
/// `hessian` too (else: ``cannot find function `g_hvp_adjoint` ``); a
/// function the macro cannot see gets a hand-written one (README, "Second
/// order").
///
/// # Vector-valued functions
///
/// A function returning `[f64; M]` or `Vec<f64>` gets `f_jacobian` and a
/// vector-Jacobian `f_adjoint` instead of `f_grad` and the scalar
/// `f_adjoint` (API.md §4):
///
/// | item | signature |
/// | --- | --- |
/// | `f_jacobian` | `fn f_jacobian(<f's params>) -> (R, Vec<f64>)`: the value and the `m × n` Jacobian, row-major over the active floats flattened in parameter order |
/// | `f_adjoint` | `fn f_adjoint(<f's params>, d_out: &[f64], d_<p>: &mut T_p, ...) -> R`: the value, adding `d_outᵀ · ∂f/∂p` into each `d_<p>` |
///
/// ```
/// use autograd::differentiable;
///
/// #[differentiable]
/// fn field(x: f64, y: f64) -> [f64; 2] {
///     [x * y, x - y]
/// }
///
/// let (value, jac) = field_jacobian(3.0, 4.0);
/// assert_eq!((value, jac), ([12.0, -1.0], vec![4.0, 3.0, 1.0, -1.0]));
/// let (mut dx, mut dy) = (0.0, 0.0);
/// field_adjoint(3.0, 4.0, &[1.0, 2.0], &mut dx, &mut dy);
/// assert_eq!((dx, dy), (6.0, 1.0));
/// ```
///
/// The Jacobian is computed by rows, in reverse mode: one adjoint sweep of
/// `dᵀ f` per output `d = eᵢ` (the function is rewritten into that scalar,
/// each returned vector — the tail, through `if`/`match`/blocks, and every
/// `return` — becoming `Σ dᵢ vᵢ`, and differentiated like any other).
/// `hessian` on it, and methods (`&self`) returning vectors, are compile
/// errors. A `#[differentiable]` function may call a vector-valued one and
/// use the result as an array (`let r = residuals(p, t, y);` then `r[i]`,
/// `r.len()`, `for v in r.iter()`, or a `[f64; M]`/`Vec<f64>` annotation):
/// its reverse calls `residuals_adjoint` with the array's adjoint as
/// `d_out`.
///
/// # How: source transformation
///
/// The body is lowered to three-address form, and the adjoint runs it
/// forwards, then applies each local derivative backwards. For
/// `fn f(x: f64, y: f64) -> f64 { x * y + x.sin() }`, `f_adjoint` is
/// (paths shortened):
///
/// ```text
/// fn f_adjoint(x: f64, y: f64, d_out: f64, d_x: &mut f64, d_y: &mut f64) -> f64 {
///     let __ad_t0 = x * y;                     // forward sweep: f's own code
///     let __ad_t1 = x.sin();
///     let __ad_t2 = __ad_t0 + __ad_t1;
///     let mut __ad_d_t2: f64 = d_out;          // reverse sweep
///     let __ad_p_t2 = rules::add(__ad_t0, __ad_t1, __ad_t2);
///     let mut __ad_d_t0: f64 = __ad_d_t2 * __ad_p_t2.0;
///     let mut __ad_d_t1: f64 = __ad_d_t2 * __ad_p_t2.1;
///     let mut __ad_d_x: f64 = __ad_d_t1 * rules::sin(x, __ad_t1);
///     let __ad_p_t0 = rules::mul(x, y, __ad_t0);
///     __ad_d_x += __ad_d_t0 * __ad_p_t0.0;
///     let mut __ad_d_y: f64 = __ad_d_t0 * __ad_p_t0.1;
///     *d_x += __ad_d_x;
///     *d_y += __ad_d_y;
///     __ad_t2
/// }
/// ```
///
/// Only values that depend on an active input *and* reach the result get
/// adjoints (activity analysis); repeated reads of a parameter's `w[i]` are
/// read once. The returned value is bit-for-bit the value `f` returns.
///
/// Loops run backwards in the reverse sweep: each iteration is replayed
/// (its intermediate values recomputed) and then reversed. A value carried
/// from one iteration to the next is saved in the forward sweep only when
/// the reverse sweep needs it; a loop that only reads its inputs and
/// accumulates (`s += ..`) saves nothing, and its adjoint allocates nothing.
/// A branch's reverse replays the branch that was taken. A write `a[i] = v`
/// into a local buffer saves the value it overwrites, so the reverse sweep
/// can undo it — unless every write to the buffer comes before every read
/// (an MLP layer's activations), which needs no undoing.
///
/// Loops that only accumulate cost less still. When such a loop sits in the
/// function body and what follows uses its sums linearly (`s`, `total / n +
/// 1e-4 * reg`), each iteration is differentiated right after it runs, the
/// way one writes a gradient by hand: no replay, nothing saved. Elsewhere,
/// its iterations are reversed in the forward order. A loop nested in a loop
/// of constant length (`for j in 0..16 { let mut a = ..; for k in .. { a +=
/// .. } .. }`) keeps its results in a stack array for the outer loop's
/// reverse instead of running again.
///
/// Loop nests in the function body (and in the body of a loop that only
/// accumulates) are *recorded* rather than replayed: the forward sweep keeps
/// the values their reverse reads, in storage reused from call to call, and
/// an integer a loop steps (`l += 1`) is counted back instead of kept. A
/// reversed loop whose iterations commute — it carries only accumulators or
/// integers, and only increments (`a[i] += e`) the arrays from outside it
/// that it writes — runs its iterations in the forward order, which LLVM
/// vectorises and proves in bounds. Two adjacent loops over the same range
/// with the same index (`for j in 0..d { a[j] = .. } for j in 0..d { b[j] =
/// .. a[j] .. }`) run as one loop in the generated functions when what one
/// changes and the other reads is only arrays at that index; `f` itself is
/// left as written. A loop of a nest that overwrites each element of a
/// buffer once, at its own index (`for j in 0..d { xc[j] = .. }`), and reads
/// the buffer only there (after the store, or before it when the reverse
/// does not need that value again), saves the elements it overwrites in one
/// copy before it runs and restores them once after its reverse, rather
/// than one at a time; and a value the nest stores into a buffer that keeps
/// its old values (`h[i] = a.tanh()`) is read back from the buffer by the
/// reverse rather than recorded. An innermost loop of the generated code
/// that reads or writes an array at `a[base + j]` checks that row of `a`
/// once before it runs and reads it without a check at each element
/// (running the loop as written, which panics as `f` would, when the row
/// is not all in `a`).
///
/// **One input: forward mode.** When exactly one parameter is active and it
/// is an `f64` (`fn f(x: f64)`, or `wrt(x)` picking one), the adjoint is
/// computed forwards instead, as one would by hand: each value that depends
/// on `x` is followed by its derivative with respect to `x`
/// (`__ad_dot_v = ∂v/∂a · __ad_dot_a + ..`, with the same rules), loops and
/// branches run once, and `f_adjoint` ends with `*d_x += d_out * __ad_dot_y`.
/// Nothing is saved or replayed, so even a loop that overwrites what its
/// derivative needs (Newton's iteration) allocates nothing. A call
/// `g(.., v, ..)` calls `g_adjoint` once, with `d_out = 1`, for the value and
/// `g`'s partials. Derivatives agree with the reverse sweep's to rounding
/// (the same partials, multiplied in another order). A call that passes a
/// local array depending on `x` keeps the reverse sweep.
///
/// # The supported subset
///
/// - `let` (with or without `mut` or a type), shadowing, blocks `{ .. }`,
///   assignment and `+= -= *= /=` on locals and parameters;
/// - `+ - * /`, unary `-`, parentheses, float and integer literals;
/// - `as f64` casts of integer expressions, `f64::from(n)`; constant paths
///   (`std::f64::consts::PI`, `f64::EPSILON`, your `const` items);
/// - the `f64` methods, as `x.m(..)` or `f64::m(x, ..)`: abs, signum, sqrt,
///   cbrt, powi, powf, exp, exp2, exp_m1, ln, log, log2, log10, ln_1p, sin,
///   cos, tan, asin, acos, atan, atan2, sinh, cosh, tanh, asinh, acosh,
///   atanh, hypot, recip, max, min, clamp, mul_add, to_degrees, to_radians;
///   floor, ceil, round, trunc (derivative 0);
/// - comparisons and boolean logic (not differentiated); `if` / `else if` /
///   `else` as statements and as values; `return` anywhere;
/// - `for i in a..b`, `a..=b`, `(a..b).rev()`, `for v in xs`, `for &v in xs`,
///   `for v in xs.iter()`, `for (i, v) in xs.iter().enumerate()`; `while`;
///   `loop` with `break`; `continue`; nested to any depth;
/// - local buffers `[0.0; N]`, `[a, b, c]`, `vec![0.0; n]`, `vec![a, b]`,
///   `x.to_vec()`; element reads `a[i]` and writes `a[i] = ..`,
///   `a[i] += ..`; `a.len()`; a `mut a: [f64; N]` parameter may be written
///   too (other parameters' slices and arrays are read-only);
/// - integer locals and arithmetic (counters, indices), anything computed
///   only from constant parameters (`self.k`, `data[i]`, `n / 2`), and casts
///   of a float to an integer (a step function: derivative 0);
/// - calls, as above;
/// - statement macros `assert!`, `assert_eq!`, `assert_ne!`, `debug_assert!`
///   (and `_eq`/`_ne`), `print!`, `println!`, `eprint!`, `eprintln!`: run in
///   the forward sweep unchanged (not again when the reverse sweep replays a
///   block);
/// - idiomatic Rust, lowered into the indexed loops it stands for (the
///   README's "Idiomatic Rust" section lists it all): iterator chains over
///   slices, buffers and ranges (`zip`, `map`, `filter`, `enumerate`,
///   `windows`, `chunks`, ... with `sum`, `product`, `fold`, `any`,
///   `position`, `collect` into a `Vec<f64>`), closures bound to a local and
///   inlined where they are called (one returning an array of floats,
///   `|r, t| [r * t.cos(), r * t.sin()]`, gives a local array), `match` on
///   integers, `bool`s, `char`s, constants
///   and unit enum variants, destructuring `let`s and tuple locals, `loop`
///   as a value.
///
/// Derivatives at kinks follow [`rules`]: `abs` and `relu`-like kinks give 0
/// at 0, `max`/`min` split a tie equally, `clamp` passes the derivative to
/// `x` inside the closed range and to the bound outside it.
///
/// Anything else — closures that escape (stored, returned, passed to a
/// function), iterator adaptors beyond those, `match` on floats or on
/// variants with fields, `unsafe`, macros in expressions, generics, `&mut`
/// or tuple parameters, a return other than `f64`, `[f64; M]` or
/// `Vec<f64>`, unknown methods, `%` on differentiated values — is a compile
/// error pointing at the construct, saying what to write instead. All
/// errors of a function are reported at once:
///
/// ```compile_fail
/// use autograd::differentiable;
///
/// #[differentiable]
/// fn f(x: f64, n: i32) -> f64 {
///     let y = match n {         // fine: `match` on an integer
///         0 => x,
///         _ => x * x,
///     };
///     let z = unsafe { y * 2.0 }; // error: `unsafe` blocks are not supported
///     x.frobnicate() + z          // error: not a differentiable `f64` method
/// }
/// ```
#[doc(inline)]
pub use autograd_macros::differentiable;
#[cfg(feature = "argmin")]
pub use autograd_runtime::argmin;
pub use autograd_runtime::{check, dual, loss, nn, optim, rules, tape};

#[doc(hidden)]
pub use autograd_runtime::__private;

/// The README's examples, compiled and run as doctests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
