//! Generated vs hand-written gradients of the nested workloads.
