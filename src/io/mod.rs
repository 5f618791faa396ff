//! Readers and writers: robot descriptions, meshes, manifests, package paths.

pub mod atomic;
pub mod manifest;
pub mod mesh;
