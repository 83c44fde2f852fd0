//! What the benches measure that tests also check: the nested workloads of
//! issue 16 (`nested`), each a `#[differentiable]` objective written as a
//! user would, with a hand-written gradient. The bench targets
//! (`gradients.rs`, `instructions.rs`) time them; `tests/nested.rs` checks
//! the generated gradients against the hand-written ones.

pub mod nested;
