//! Dual numbers for forward-over-reverse: the scalar of the code that
//! `#[differentiable(hessian)]` generates for `f_hvp` and `f_hessian`.
//!
//! A [`Dual`] is a value `v` and its tangent `t` (the derivative along the
//! direction `v` of `f_hvp`). The generated Hessian-vector product is the
//! adjoint sweep of `f_adjoint` run on `Dual`s: every value and every
//! adjoint carries its tangent, so the adjoints of the inputs come out as
//! the gradient (`v` parts) and the Hessian times the direction (`t` parts).
//!
//! Every operation computes its value exactly as the `f64` operation does
//! (values and gradients are bit for bit those of `f` and `f_grad` on the
//! same operations) and its tangent from the first-order rules of
//! [`crate::rules`]; the partials the reverse sweep multiplies by
//! ([`rules`] here) get their tangents from the second-order table
//! [`crate::rules::second`]. Comparisons look at the value only, so branch
//! decisions are those of `f`.
//!
//! Public for hand-written second-order rules (a function the macro cannot
//! see into, called from a `#[differentiable(hessian)]` one, gets a
//! hand-written `g_hvp_adjoint` over `Dual`s: see the README, "Second
//! order").
//!
//! ```
//! use autograd_runtime::dual::Dual;
//! let x = Dual::new(2.0, 1.0);
//! let y = x * x + x.sin();
//! assert_eq!(y.v, 4.0 + 2.0_f64.sin());
//! assert_eq!(y.t, 4.0 + 2.0_f64.cos());
//! assert!(y > 3.0);
//! ```

use crate::rules as first;
use std::cmp::Ordering;
use std::fmt;
use std::ops::{
    Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Rem, RemAssign, Sub, SubAssign,
};

/// A value and its tangent. Ordered and compared by value.
#[derive(Clone, Copy, Default, Debug)]
pub struct Dual {
    /// The value.
    pub v: f64,
    /// The tangent (directional derivative).
    pub t: f64,
}

impl Dual {
    /// A value with a tangent.
    #[inline(always)]
    pub const fn new(v: f64, t: f64) -> Dual {
        Dual { v, t }
    }

    /// A constant: tangent zero.
    #[inline(always)]
    pub const fn constant(v: f64) -> Dual {
        Dual { v, t: 0.0 }
    }

    /// The value.
    #[inline(always)]
    pub fn value(self) -> f64 {
        self.v
    }

    /// `f64::is_nan` of the value.
    #[inline]
    pub fn is_nan(self) -> bool {
        self.v.is_nan()
    }

    /// `f64::is_finite` of the value.
    #[inline]
    pub fn is_finite(self) -> bool {
        self.v.is_finite()
    }

    /// `f64::is_infinite` of the value.
    #[inline]
    pub fn is_infinite(self) -> bool {
        self.v.is_infinite()
    }

    /// `f64::is_sign_negative` of the value.
    #[inline]
    pub fn is_sign_negative(self) -> bool {
        self.v.is_sign_negative()
    }

    /// `f64::is_sign_positive` of the value.
    #[inline]
    pub fn is_sign_positive(self) -> bool {
        self.v.is_sign_positive()
    }

    /// `powi`: the value is `f64::powi`'s, the tangent `rules::powi · t`.
    #[inline]
    pub fn powi(self, n: i32) -> Dual {
        let y = self.v.powi(n);
        Dual::new(y, first::powi(self.v, n, y) * self.t)
    }

    /// `clamp` (the value `f64::clamp`'s).
    #[inline]
    pub fn clamp(self, lo: impl Into<Dual>, hi: impl Into<Dual>) -> Dual {
        let (lo, hi) = (lo.into(), hi.into());
        let y = self.v.clamp(lo.v, hi.v);
        let (pa, pb, pc) = first::clamp(self.v, lo.v, hi.v, y);
        Dual::new(y, pa * self.t + pb * lo.t + pc * hi.t)
    }

    /// `mul_add` (the value `f64::mul_add`'s).
    #[inline]
    pub fn mul_add(self, b: impl Into<Dual>, c: impl Into<Dual>) -> Dual {
        let (b, c) = (b.into(), c.into());
        let y = self.v.mul_add(b.v, c.v);
        let (pa, pb, pc) = first::mul_add(self.v, b.v, c.v, y);
        Dual::new(y, pa * self.t + pb * b.t + pc * c.t)
    }

    /// `sin_cos` (two values).
    #[inline]
    pub fn sin_cos(self) -> (Dual, Dual) {
        (self.sin(), self.cos())
    }
}

macro_rules! unary_methods {
    ($($name:ident)*) => {
        impl Dual {
            $(
                #[doc = concat!("`f64::", stringify!($name), "` of the value; tangent by `rules::", stringify!($name), "`.")]
                #[inline]
                pub fn $name(self) -> Dual {
                    let y = self.v.$name();
                    Dual::new(y, first::$name(self.v, y) * self.t)
                }
            )*
        }
    };
}

unary_methods!(abs signum sqrt cbrt exp exp2 exp_m1 ln log2 log10 ln_1p sin cos tan asin acos
    atan sinh cosh tanh asinh acosh atanh recip to_degrees to_radians floor ceil round trunc fract);

macro_rules! binary_methods {
    ($($name:ident)*) => {
        impl Dual {
            $(
                #[doc = concat!("`f64::", stringify!($name), "` of the values; tangent by `rules::", stringify!($name), "`.")]
                #[inline]
                pub fn $name(self, b: impl Into<Dual>) -> Dual {
                    let b = b.into();
                    let y = self.v.$name(b.v);
                    let (pa, pb) = first::$name(self.v, b.v, y);
                    Dual::new(y, pa * self.t + pb * b.t)
                }
            )*
        }
    };
}

binary_methods!(powf log atan2 hypot max min rem_euclid);

impl From<f64> for Dual {
    #[inline(always)]
    fn from(v: f64) -> Dual {
        Dual::constant(v)
    }
}

impl fmt::Display for Dual {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.v, f)
    }
}

impl PartialEq for Dual {
    #[inline]
    fn eq(&self, other: &Dual) -> bool {
        self.v == other.v
    }
}

impl PartialEq<f64> for Dual {
    #[inline]
    fn eq(&self, other: &f64) -> bool {
        self.v == *other
    }
}

impl PartialEq<Dual> for f64 {
    #[inline]
    fn eq(&self, other: &Dual) -> bool {
        *self == other.v
    }
}

impl PartialOrd for Dual {
    #[inline]
    fn partial_cmp(&self, other: &Dual) -> Option<Ordering> {
        self.v.partial_cmp(&other.v)
    }
}

impl PartialOrd<f64> for Dual {
    #[inline]
    fn partial_cmp(&self, other: &f64) -> Option<Ordering> {
        self.v.partial_cmp(other)
    }
}

impl PartialOrd<Dual> for f64 {
    #[inline]
    fn partial_cmp(&self, other: &Dual) -> Option<Ordering> {
        self.partial_cmp(&other.v)
    }
}

impl Neg for Dual {
    type Output = Dual;
    #[inline(always)]
    fn neg(self) -> Dual {
        Dual::new(-self.v, -self.t)
    }
}

impl Add for Dual {
    type Output = Dual;
    #[inline(always)]
    fn add(self, b: Dual) -> Dual {
        Dual::new(self.v + b.v, self.t + b.t)
    }
}

impl Sub for Dual {
    type Output = Dual;
    #[inline(always)]
    fn sub(self, b: Dual) -> Dual {
        Dual::new(self.v - b.v, self.t - b.t)
    }
}

impl Mul for Dual {
    type Output = Dual;
    #[inline(always)]
    fn mul(self, b: Dual) -> Dual {
        Dual::new(self.v * b.v, self.t * b.v + self.v * b.t)
    }
}

impl Div for Dual {
    type Output = Dual;
    #[inline(always)]
    fn div(self, b: Dual) -> Dual {
        let y = self.v / b.v;
        Dual::new(y, (self.t - y * b.t) / b.v)
    }
}

impl Add<f64> for Dual {
    type Output = Dual;
    #[inline(always)]
    fn add(self, b: f64) -> Dual {
        Dual::new(self.v + b, self.t)
    }
}

impl Sub<f64> for Dual {
    type Output = Dual;
    #[inline(always)]
    fn sub(self, b: f64) -> Dual {
        Dual::new(self.v - b, self.t)
    }
}

impl Mul<f64> for Dual {
    type Output = Dual;
    #[inline(always)]
    fn mul(self, b: f64) -> Dual {
        Dual::new(self.v * b, self.t * b)
    }
}

impl Div<f64> for Dual {
    type Output = Dual;
    #[inline(always)]
    fn div(self, b: f64) -> Dual {
        Dual::new(self.v / b, self.t / b)
    }
}

impl Add<Dual> for f64 {
    type Output = Dual;
    #[inline(always)]
    fn add(self, b: Dual) -> Dual {
        Dual::new(self + b.v, b.t)
    }
}

impl Sub<Dual> for f64 {
    type Output = Dual;
    #[inline(always)]
    fn sub(self, b: Dual) -> Dual {
        Dual::new(self - b.v, -b.t)
    }
}

impl Mul<Dual> for f64 {
    type Output = Dual;
    #[inline(always)]
    fn mul(self, b: Dual) -> Dual {
        Dual::new(self * b.v, self * b.t)
    }
}

impl Div<Dual> for f64 {
    type Output = Dual;
    #[inline(always)]
    fn div(self, b: Dual) -> Dual {
        let y = self / b.v;
        Dual::new(y, -y * b.t / b.v)
    }
}

impl Rem for Dual {
    type Output = Dual;
    /// `a % b`: the value `f64`'s, the tangent by `rules::rem`.
    #[inline(always)]
    fn rem(self, b: Dual) -> Dual {
        let y = self.v % b.v;
        let (pa, pb) = first::rem(self.v, b.v, y);
        Dual::new(y, pa * self.t + pb * b.t)
    }
}

impl Rem<f64> for Dual {
    type Output = Dual;
    #[inline(always)]
    fn rem(self, b: f64) -> Dual {
        self % Dual::constant(b)
    }
}

impl Rem<Dual> for f64 {
    type Output = Dual;
    #[inline(always)]
    fn rem(self, b: Dual) -> Dual {
        Dual::constant(self) % b
    }
}

macro_rules! assign_ops {
    ($($trait:ident $method:ident $op:tt;)*) => {
        $(
            impl $trait for Dual {
                #[inline(always)]
                fn $method(&mut self, b: Dual) {
                    *self = *self $op b;
                }
            }
            impl $trait<f64> for Dual {
                #[inline(always)]
                fn $method(&mut self, b: f64) {
                    *self = *self $op b;
                }
            }
        )*
    };
}

assign_ops! {
    AddAssign add_assign +;
    SubAssign sub_assign -;
    MulAssign mul_assign *;
    DivAssign div_assign /;
    RemAssign rem_assign %;
}

/// The partial derivatives of [`crate::rules`] as dual numbers: the value
/// is the first-order rule's, the tangent the derivative of that partial
/// along the operands' tangents, from [`crate::rules::second`]
/// (`∂p/∂a · ȧ + ∂p/∂b · ḃ`). Same names and arguments as the first-order
/// rules; each operand may be an `f64` (a constant) or a `Dual`.
pub mod rules {
    use super::Dual;
    use crate::rules as first;
    use crate::rules::second;

    /// `h · t`, except that a second derivative of exactly `0` contributes
    /// nothing (not `0 · inf = NaN`): the zero is `-0.0`, the identity of
    /// `+`, so where `h` is a constant of the rule (`add`, `mul`, ...) the
    /// term folds away after inlining.
    #[inline(always)]
    fn term(h: f64, t: f64) -> f64 {
        if h == 0.0 {
            -0.0
        } else {
            h * t
        }
    }

    macro_rules! unary {
        ($($name:ident)*) => {
            $(
                #[doc = concat!("`rules::", stringify!($name), "` with its tangent from `rules::second::", stringify!($name), "`.")]
                #[inline]
                pub fn $name(x: impl Into<Dual>, y: impl Into<Dual>) -> Dual {
                    let (x, y) = (x.into(), y.into());
                    Dual::new(first::$name(x.v, y.v), term(second::$name(x.v, y.v), x.t))
                }
            )*
        };
    }

    unary!(neg abs signum sqrt cbrt exp exp2 exp_m1 ln log2 log10 ln_1p sin cos tan asin acos
        atan sinh cosh tanh asinh acosh atanh recip to_degrees to_radians floor ceil round trunc
        fract relu sigmoid);

    /// `rules::powi` with its tangent from `rules::second::powi`.
    #[inline]
    pub fn powi(x: impl Into<Dual>, n: i32, y: impl Into<Dual>) -> Dual {
        let (x, y) = (x.into(), y.into());
        Dual::new(
            first::powi(x.v, n, y.v),
            term(second::powi(x.v, n, y.v), x.t),
        )
    }

    macro_rules! binary {
        ($($name:ident)*) => {
            $(
                #[doc = concat!("`rules::", stringify!($name), "` with tangents from `rules::second::", stringify!($name), "`.")]
                #[inline]
                pub fn $name(a: impl Into<Dual>, b: impl Into<Dual>, y: impl Into<Dual>) -> (Dual, Dual) {
                    let (a, b, y) = (a.into(), b.into(), y.into());
                    let (pa, pb) = first::$name(a.v, b.v, y.v);
                    let (aa, ab, bb) = second::$name(a.v, b.v, y.v);
                    (
                        Dual::new(pa, term(aa, a.t) + term(ab, b.t)),
                        Dual::new(pb, term(ab, a.t) + term(bb, b.t)),
                    )
                }
            )*
        };
    }

    binary!(add sub mul powf log atan2 hypot max min rem rem_euclid);

    /// `rules::div` with tangents from `rules::second::div`. Its mixed
    /// second derivative `-1 / b²` is `0` only where `b` is infinite (and
    /// the quotient's partials are `0` and `-0` anyway), so that term needs
    /// no guard against `0 · inf` (the one remaining guard is on `2y / b²`,
    /// `0` wherever `a` is): one compare fewer in every quotient of an
    /// `f_hvp`.
    #[inline]
    pub fn div(a: impl Into<Dual>, b: impl Into<Dual>, y: impl Into<Dual>) -> (Dual, Dual) {
        let (a, b, y) = (a.into(), b.into(), y.into());
        let (pa, pb) = first::div(a.v, b.v, y.v);
        let (_, ab, bb) = second::div(a.v, b.v, y.v);
        (
            Dual::new(pa, ab * b.t),
            Dual::new(pb, ab * a.t + term(bb, b.t)),
        )
    }

    macro_rules! ternary {
        ($($name:ident)*) => {
            $(
                #[doc = concat!("`rules::", stringify!($name), "` with tangents from `rules::second::", stringify!($name), "`.")]
                #[inline]
                pub fn $name(
                    a: impl Into<Dual>,
                    b: impl Into<Dual>,
                    c: impl Into<Dual>,
                    y: impl Into<Dual>,
                ) -> (Dual, Dual, Dual) {
                    let (a, b, c, y) = (a.into(), b.into(), c.into(), y.into());
                    let (pa, pb, pc) = first::$name(a.v, b.v, c.v, y.v);
                    let [aa, ab, ac, bb, bc, cc] = second::$name(a.v, b.v, c.v, y.v);
                    (
                        Dual::new(pa, term(aa, a.t) + term(ab, b.t) + term(ac, c.t)),
                        Dual::new(pb, term(ab, a.t) + term(bb, b.t) + term(bc, c.t)),
                        Dual::new(pc, term(ac, a.t) + term(bc, b.t) + term(cc, c.t)),
                    )
                }
            )*
        };
    }

    ternary!(clamp mul_add);
}

/// A parameter slice's elements with their tangents, as a `Vec` of duals
/// (`x.to_vec()` of an active parameter in a Hessian-vector product). An
/// empty `t` is the zero direction (a constant passed by a caller).
#[inline]
pub fn zip_vec(v: &[f64], t: &[f64]) -> Vec<Dual> {
    (0..v.len())
        .map(|k| Dual::new(v[k], tangent(t, k)))
        .collect()
}

/// A parameter array's elements with their tangents (`x.clone()`); an
/// empty `t` is the zero direction.
#[inline]
pub fn zip_array<const N: usize>(v: &[f64; N], t: &[f64]) -> [Dual; N] {
    let mut out = [Dual::default(); N];
    for k in 0..N {
        out[k] = Dual::new(v[k], tangent(t, k));
    }
    out
}

/// Element `k` of a parameter array's direction, `0` if the direction is
/// empty (a caller passing constant data to a parameter the callee
/// differentiates gives `&[]`).
#[inline(always)]
pub fn tangent(t: &[f64], k: usize) -> f64 {
    if t.is_empty() {
        0.0
    } else {
        t[k]
    }
}

/// `&t[range]`, or `t` itself when it is empty: the direction of a
/// parameter array the caller passed a constant for is empty (no
/// direction), and so is any part of it.
#[inline(always)]
pub fn part<R: ::core::slice::SliceIndex<[f64], Output = [f64]>>(t: &[f64], range: R) -> &[f64] {
    if t.is_empty() {
        t
    } else {
        &t[range]
    }
}

/// `&mut t[range]`, or `t` itself when it is empty (a constant's slot):
/// [`part`] for gradient and H·v slots.
#[inline(always)]
pub fn part_mut<R: ::core::slice::SliceIndex<[f64], Output = [f64]>>(
    t: &mut [f64],
    range: R,
) -> &mut [f64] {
    if t.is_empty() {
        t
    } else {
        &mut t[range]
    }
}

/// Adds a dual adjoint into element `k` of a parameter array's gradient
/// and H·v buffers; nothing if they are empty (a constant's).
#[inline(always)]
pub fn accumulate(grad: &mut [f64], hv: &mut [f64], k: usize, d: Dual) {
    if !grad.is_empty() {
        grad[k] += d.v;
        hv[k] += d.t;
    }
}

/// `__private::undo_to` for arrays of any element type.
#[inline]
pub fn undo_to<T>(array: &mut [T], undo: &mut Vec<(usize, T)>, mark: usize) {
    while undo.len() > mark {
        if let Some((index, old)) = undo.pop() {
            array[index] = old;
        }
    }
}

/// The `k`-th unit direction written into `v` (zero elsewhere): the
/// directions `f_hessian` runs its Hessian-vector products along.
#[inline]
pub fn unit(v: &mut [f64], k: usize) {
    for (i, e) in v.iter_mut().enumerate() {
        *e = if i == k { 1.0 } else { 0.0 };
    }
}

/// A slice of exactly `N` elements as an array (`f_hessian`'s rows and
/// directions for an array parameter; the lengths always match).
#[inline]
#[track_caller]
pub fn as_array<const N: usize>(s: &[f64]) -> &[f64; N] {
    match s.try_into() {
        Ok(array) => array,
        Err(_) => panic!("autograd: a direction of the wrong length (a bug in autograd)"),
    }
}

/// [`as_array`] for a mutable slice.
#[inline]
#[track_caller]
pub fn as_array_mut<const N: usize>(s: &mut [f64]) -> &mut [f64; N] {
    match s.try_into() {
        Ok(array) => array,
        Err(_) => panic!("autograd: a row of the wrong length (a bug in autograd)"),
    }
}

/// Panics unless the direction `direction` of `f_hvp` has the length of
/// the parameter `param` it belongs to.
#[inline]
#[track_caller]
pub fn check_direction_len(
    function: &str,
    direction: &str,
    direction_len: usize,
    param: &str,
    param_len: usize,
) {
    if direction_len != param_len {
        direction_len_mismatch(function, direction, direction_len, param, param_len);
    }
}

/// The panic of [`check_direction_len`], out of line: the caller's fast
/// path does not prepare its message's arguments.
#[cold]
#[inline(never)]
#[track_caller]
fn direction_len_mismatch(
    function: &str,
    direction: &str,
    direction_len: usize,
    param: &str,
    param_len: usize,
) -> ! {
    panic!(
        "{function}: the direction `{direction}` has length {direction_len}, \
         but the parameter `{param}` has length {param_len}; they must be equal"
    );
}

/// Local arrays of `Dual`s passed to a callee's `_hvp_adjoint`, which
/// takes their values and tangents as two `f64` arrays of the same shape,
/// and adds into two `f64` buffers merged back into the array's adjoint.
pub trait DualArray {
    /// The `f64` array of the same shape (`[f64; N]` or `Vec<f64>`).
    type Values;
    /// The values.
    fn values(&self) -> Self::Values;
    /// The tangents.
    fn tangents(&self) -> Self::Values;
    /// Zeros of the same shape (a callee's slots).
    fn zeros(&self) -> Self::Values;
    /// Adds `Dual::new(g[k], h[k])` into element `k`.
    fn merge(&mut self, g: &[f64], h: &[f64]);
}

impl<const N: usize> DualArray for [Dual; N] {
    type Values = [f64; N];
    fn values(&self) -> [f64; N] {
        self.map(|d| d.v)
    }
    fn tangents(&self) -> [f64; N] {
        self.map(|d| d.t)
    }
    fn zeros(&self) -> [f64; N] {
        [0.0; N]
    }
    fn merge(&mut self, g: &[f64], h: &[f64]) {
        for ((d, g), h) in self.iter_mut().zip(g).zip(h) {
            *d += Dual::new(*g, *h);
        }
    }
}

impl DualArray for Vec<Dual> {
    type Values = Vec<f64>;
    fn values(&self) -> Vec<f64> {
        self.iter().map(|d| d.v).collect()
    }
    fn tangents(&self) -> Vec<f64> {
        self.iter().map(|d| d.t).collect()
    }
    fn zeros(&self) -> Vec<f64> {
        vec![0.0; self.len()]
    }
    fn merge(&mut self, g: &[f64], h: &[f64]) {
        for ((d, g), h) in self.iter_mut().zip(g).zip(h) {
            *d += Dual::new(*g, *h);
        }
    }
}

/// The values of a local `Dual` array ([`DualArray::values`]).
#[inline]
pub fn values<A: DualArray>(a: &A) -> A::Values {
    a.values()
}

/// The tangents of a local `Dual` array ([`DualArray::tangents`]).
#[inline]
pub fn tangents<A: DualArray>(a: &A) -> A::Values {
    a.tangents()
}

/// Zeros shaped like a local `Dual` array's values ([`DualArray::zeros`]).
#[inline]
pub fn zeros<A: DualArray>(a: &A) -> A::Values {
    a.zeros()
}

/// Merges a callee's `f64` slots back into a local array's `Dual` adjoint.
#[inline]
pub fn merge<A: DualArray>(adjoint: &mut A, g: &[f64], h: &[f64]) {
    adjoint.merge(g, h);
}

/// Adds a callee's scratch slots into a parameter's gradient and H·v
/// buffers (a parameter array passed twice to one call).
#[inline]
pub fn merge_split(d: &mut [f64], hv: &mut [f64], g: &[f64], h: &[f64]) {
    if d.is_empty() {
        return;
    }
    for (k, (g, h)) in g.iter().zip(h).enumerate() {
        d[k] += *g;
        hv[k] += *h;
    }
}

/// Float arrays made into arrays of constant `Dual`s (a copy of constant
/// data into an array that will hold values depending on the inputs, or a
/// `mut` parameter array outside `wrt(..)` written with such values).
pub trait LiftArray {
    /// The `Dual` array of the same shape.
    type Duals;
    /// Each element as a constant.
    fn lift(&self) -> Self::Duals;
}

impl<const N: usize> LiftArray for [f64; N] {
    type Duals = [Dual; N];
    fn lift(&self) -> [Dual; N] {
        self.map(Dual::constant)
    }
}

impl<const N: usize> LiftArray for &[f64; N] {
    type Duals = [Dual; N];
    fn lift(&self) -> [Dual; N] {
        self.map(Dual::constant)
    }
}

impl LiftArray for Vec<f64> {
    type Duals = Vec<Dual>;
    fn lift(&self) -> Vec<Dual> {
        self.iter().map(|&v| Dual::constant(v)).collect()
    }
}

impl LiftArray for &[f64] {
    type Duals = Vec<Dual>;
    fn lift(&self) -> Vec<Dual> {
        self.iter().map(|&v| Dual::constant(v)).collect()
    }
}

/// [`LiftArray::lift`].
#[inline]
pub fn lift_array<A: LiftArray>(a: &A) -> A::Duals {
    a.lift()
}

/// The values of a `Dual` array, or an `f64` array itself (what a
/// condition reading an array computes on: `f`'s values).
pub trait ValuesOf {
    /// The `f64` array of the same shape.
    type Values;
    /// The values.
    fn values_of(&self) -> Self::Values;
}

impl<const N: usize> ValuesOf for [Dual; N] {
    type Values = [f64; N];
    fn values_of(&self) -> [f64; N] {
        self.map(|d| d.v)
    }
}

impl ValuesOf for Vec<Dual> {
    type Values = Vec<f64>;
    fn values_of(&self) -> Vec<f64> {
        self.iter().map(|d| d.v).collect()
    }
}

/// The first-order rules whose partials are constants along the direction
/// (their second derivatives in [`crate::rules::second`] are identically
/// `0`: `add`, `sub`, `neg`, `to_degrees`, `to_radians`, `fract` and the step
/// functions; and `mul` when only one operand varies, since `∂(ab)/∂a = b`
/// reads only the other), taking `Dual` or `f64` operands and returning the
/// `f64` partials: a Hessian-vector product multiplies adjoints by them as
/// plain numbers.
pub mod constant_partials {
    use super::Dual;
    use crate::rules as first;

    macro_rules! unary {
        ($($name:ident)*) => {
            $(
                #[doc = concat!("`rules::", stringify!($name), "` of the values.")]
                #[inline(always)]
                pub fn $name(x: impl Into<Dual>, y: impl Into<Dual>) -> f64 {
                    first::$name(x.into().v, y.into().v)
                }
            )*
        };
    }

    unary!(neg signum to_degrees to_radians floor ceil round trunc fract);

    macro_rules! binary {
        ($($name:ident)*) => {
            $(
                #[doc = concat!("`rules::", stringify!($name), "` of the values.")]
                #[inline(always)]
                pub fn $name(a: impl Into<Dual>, b: impl Into<Dual>, y: impl Into<Dual>) -> (f64, f64) {
                    first::$name(a.into().v, b.into().v, y.into().v)
                }
            )*
        };
    }

    binary!(add sub mul);
}

/// An `f64` argument of a `g_hvp_adjoint` (the hidden second-order adjoint
/// of a `#[differentiable(hessian)]` function, or a hand-written one): a
/// constant (`f64`), a value with its tangent (`Dual`), or a value with the
/// slot its adjoint is added into (`(Dual, &mut Dual)`). The caller passes
/// what it has; the callee takes every `f64` parameter as `impl
/// ScalarArg<'a>` and splits it.
pub trait ScalarArg<'a> {
    /// The value with its tangent, and the adjoint slot if any.
    fn split(self) -> (Dual, Option<&'a mut Dual>);
}

impl<'a> ScalarArg<'a> for f64 {
    #[inline(always)]
    fn split(self) -> (Dual, Option<&'a mut Dual>) {
        (Dual::constant(self), None)
    }
}

impl<'a> ScalarArg<'a> for Dual {
    #[inline(always)]
    fn split(self) -> (Dual, Option<&'a mut Dual>) {
        (self, None)
    }
}

impl<'a> ScalarArg<'a> for (Dual, &'a mut Dual) {
    #[inline(always)]
    fn split(self) -> (Dual, Option<&'a mut Dual>) {
        (self.0, Some(self.1))
    }
}

/// A float-array argument of a `g_hvp_adjoint` for a parameter of type
/// `T` (`&[f64]`, `[f64; N]`, `&[f64; N]`): constant data (the array
/// itself, as a direct call would coerce it), or the array with its
/// direction and its gradient and H·v slots
/// (`(array, &[f64], &mut [f64], &mut [f64])`). Constant data splits into
/// an empty direction (read as zero, [`tangent`]) and empty slots (not
/// written, [`accumulate`]).
pub trait ArrayArg<'a, T> {
    /// The array, its direction, its gradient slot and its H·v slot.
    fn split(self) -> (T, &'a [f64], &'a mut [f64], &'a mut [f64]);
}

impl<'a> ArrayArg<'a, &'a [f64]> for &'a [f64] {
    #[inline(always)]
    fn split(self) -> (&'a [f64], &'a [f64], &'a mut [f64], &'a mut [f64]) {
        (self, &[], &mut [], &mut [])
    }
}

impl<'a> ArrayArg<'a, &'a [f64]> for &'a Vec<f64> {
    #[inline(always)]
    fn split(self) -> (&'a [f64], &'a [f64], &'a mut [f64], &'a mut [f64]) {
        (self, &[], &mut [], &mut [])
    }
}

impl<'a, const N: usize> ArrayArg<'a, &'a [f64]> for &'a [f64; N] {
    #[inline(always)]
    fn split(self) -> (&'a [f64], &'a [f64], &'a mut [f64], &'a mut [f64]) {
        (self, &[], &mut [], &mut [])
    }
}

impl<'a, const N: usize> ArrayArg<'a, &'a [f64; N]> for &'a [f64; N] {
    #[inline(always)]
    fn split(self) -> (&'a [f64; N], &'a [f64], &'a mut [f64], &'a mut [f64]) {
        (self, &[], &mut [], &mut [])
    }
}

impl<'a, const N: usize> ArrayArg<'a, [f64; N]> for [f64; N] {
    #[inline(always)]
    fn split(self) -> ([f64; N], &'a [f64], &'a mut [f64], &'a mut [f64]) {
        (self, &[], &mut [], &mut [])
    }
}

impl<'a, T> ArrayArg<'a, T> for (T, &'a [f64], &'a mut [f64], &'a mut [f64]) {
    #[inline(always)]
    fn split(self) -> (T, &'a [f64], &'a mut [f64], &'a mut [f64]) {
        self
    }
}

impl<'a> ArrayArg<'a, &'a [f64]> for (&'a Vec<f64>, &'a [f64], &'a mut [f64], &'a mut [f64]) {
    #[inline(always)]
    fn split(self) -> (&'a [f64], &'a [f64], &'a mut [f64], &'a mut [f64]) {
        (self.0, self.1, self.2, self.3)
    }
}

impl<'a, const N: usize> ArrayArg<'a, &'a [f64]>
    for (&'a [f64; N], &'a [f64], &'a mut [f64], &'a mut [f64])
{
    #[inline(always)]
    fn split(self) -> (&'a [f64], &'a [f64], &'a mut [f64], &'a mut [f64]) {
        (self.0, self.1, self.2, self.3)
    }
}

/// The bound of the stand-in `g_hvp_adjoint` of a vector-valued method
/// whose body calls other functions with varying arguments: never
/// implemented, so a `#[differentiable(hessian)]` caller's call is an
/// error with this message.
#[diagnostic::on_unimplemented(
    message = "this method returns a vector and calls another function with arguments that \
               depend on its differentiated parameters, so a `#[differentiable(hessian)]` \
               function cannot call it (its second derivatives would need those of its \
               callees): write the callees' computation into its body, or compute the vector \
               in the caller",
    label = "a vector-valued method that calls others"
)]
pub trait VectorCallsOthers {}

/// No slot: an empty buffer (for a call whose callee's derivatives are not
/// wanted).
#[inline(always)]
pub fn no_slot<'a>() -> &'a mut [f64] {
    &mut []
}
