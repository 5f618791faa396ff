//! Readers and writers: robot descriptions, meshes, package paths, atomic writes.

pub mod allow;
pub mod atomic;
pub mod mesh;
pub mod mjcf;
pub mod package;
pub mod robot;
pub mod srdf;
pub mod urdf;
pub mod xacro;
pub mod xml;
