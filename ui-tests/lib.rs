//! Nothing: the package is its tests (`tests/ui.rs`, the compile errors of
//! `#[differentiable]` as trybuild snapshots in `tests/ui/`).
