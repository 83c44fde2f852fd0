//! The nested workloads of issue 16 (filled in by a later commit).
