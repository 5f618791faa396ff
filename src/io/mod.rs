//! Readers and writers: robot descriptions, meshes, manifests, package paths.

pub mod mesh;
