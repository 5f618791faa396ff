//! Checks on a written manifest: kernel loading, containment, rest pose.

pub mod check;
pub mod containment;
pub mod kernel_load;
pub mod rest;
