//! What the benches share: the workloads and every variant that computes
//! them (`suite`), and reading criterion's saved estimates, to print ratios
//! of benchmarks measured in the same run.

#![allow(dead_code)]

pub mod closure_graph;
pub mod on_tape;
pub mod suite;
pub mod with_num_dual;
pub mod with_reverse;
pub mod workloads;

use std::path::PathBuf;
use std::time::SystemTime;

/// Criterion's mean estimate (ns) of `group/bench/param`, if criterion saved
/// it at or after `since` — so a benchmark this run skipped (by a filter)
/// shows as missing rather than with an old number.
pub fn mean_ns(group: &str, bench: &str, param: &str, since: SystemTime) -> Option<f64> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"));
    let path = target
        .join("criterion")
        .join(group)
        .join(bench)
        .join(param)
        .join("new")
        .join("estimates.json");
    if std::fs::metadata(&path).ok()?.modified().ok()? < since {
        return None;
    }
    let json = std::fs::read_to_string(path).ok()?;
    let mean = &json[json.find("\"mean\"")?..];
    let value = &mean[mean.find("\"point_estimate\":")? + "\"point_estimate\":".len()..];
    let end = value.find([',', '}'])?;
    value[..end].trim().parse().ok()
}
