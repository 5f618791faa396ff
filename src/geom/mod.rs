//! Geometry: meshes, hulls, support functions, DOPs, fits.
//!
//! Pure geometry, no I/O: everything takes points or a [`mesh::TriMesh`] in the
//! link frame (metres) and returns primitives in that frame.

pub mod capsule;
pub mod chain;
pub mod containment;
pub mod dop26;
pub mod hull;
pub mod mesh;
pub mod obb;
pub mod point;
pub mod polytope;
pub mod primitive_mesh;
pub mod support;
pub mod triangle_distance;
pub mod v3;
