//! What the benches share: reading criterion's saved estimates, to print
//! ratios of two benchmarks measured in the same run.

#![allow(dead_code)]

pub mod workloads;

use std::path::PathBuf;

/// Criterion's mean estimate (ns) of `group/bench/param`, from its saved
/// results of this run.
pub fn mean_ns(group: &str, bench: &str, param: &str) -> Option<f64> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"));
    let path = target
        .join("criterion")
        .join(group)
        .join(bench)
        .join(param)
        .join("new")
        .join("estimates.json");
    let json = std::fs::read_to_string(path).ok()?;
    let mean = &json[json.find("\"mean\"")?..];
    let value = &mean[mean.find("\"point_estimate\":")? + "\"point_estimate\":".len()..];
    let end = value.find([',', '}'])?;
    value[..end].trim().parse().ok()
}
