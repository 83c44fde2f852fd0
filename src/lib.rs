//! # autograd
//!
//! Compile-time reverse-mode automatic differentiation for Rust. Put
//! `#[differentiable]` on an ordinary `f64` function and get, generated at
//! compile time, its gradient and its reverse-mode adjoint:
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
//! See [`differentiable`] for what the attribute generates and which Rust it
//! accepts, and [`rules`] for the derivative of every primitive.

#[doc(inline)]
pub use autograd_macros::differentiable;
pub use autograd_runtime::rules;

#[doc(hidden)]
pub use autograd_runtime::__private;
