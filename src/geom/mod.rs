//! Geometry: meshes, hulls, support functions, DOPs, fits.

pub mod mesh;
pub mod primitive_mesh;
