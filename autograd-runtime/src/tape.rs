//! The dynamic fallback graph (work in progress).
