//! A link's truth geometry: its collision and visual pieces (or its visual pieces alone, as
//! the robot's [`TruthGeometry`] says), as one mesh in the link frame, loaded once per mesh
//! file. Every command takes its truth from here.

use crate::error::{Error, Result};
use crate::geom::mesh::TriMesh;
use crate::io::mesh::{MeshLimits, load_mesh_with_info};
use crate::model::{GeometryPiece, Link, Robot, Shape, TruthGeometry};
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A mesh file at a scale (scale compared bit for bit).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MeshKey {
    pub path: PathBuf,
    scale_bits: [u64; 3],
}

impl MeshKey {
    pub fn new(path: &Path, scale: [f64; 3]) -> Self {
        MeshKey {
            path: path.to_path_buf(),
            scale_bits: scale.map(f64::to_bits),
        }
    }
    pub fn scale(&self) -> [f64; 3] {
        self.scale_bits.map(f64::from_bits)
    }
}

/// Every mesh file (at its scale) the robot's geometry names, sorted, without repeats.
pub fn mesh_keys(robot: &Robot) -> Vec<MeshKey> {
    let mut keys: Vec<MeshKey> = robot
        .links
        .iter()
        .flat_map(|l| &l.geometry)
        .filter_map(|g| match &g.shape {
            Shape::Mesh { path, scale, .. } => Some(MeshKey::new(path, *scale)),
            _ => None,
        })
        .collect();
    keys.sort();
    keys.dedup();
    keys
}

/// Meshes loaded once each, in parallel.
#[derive(Debug, Default)]
pub struct MeshCache {
    meshes: HashMap<MeshKey, std::result::Result<Arc<TriMesh>, Error>>,
    /// What the readers ignored (one line each, naming the file), in key order: the
    /// commands print them.
    pub warnings: Vec<String>,
}

impl MeshCache {
    /// Loads every key; the first failure (in key order) is the error.
    pub fn load(keys: &[MeshKey], limits: &MeshLimits, max_total_triangles: usize) -> Result<Self> {
        Self::load_checked(None, keys, limits, max_total_triangles)
    }

    /// [`MeshCache::load`] for the robot described in `source`, which an
    /// error over the total triangle limit names.
    pub fn load_for(
        source: &Path,
        keys: &[MeshKey],
        limits: &MeshLimits,
        max_total_triangles: usize,
    ) -> Result<Self> {
        Self::load_checked(Some(source), keys, limits, max_total_triangles)
    }

    fn load_checked(
        source: Option<&Path>,
        keys: &[MeshKey],
        limits: &MeshLimits,
        max_total_triangles: usize,
    ) -> Result<Self> {
        let cache = Self::load_each(keys, limits);
        let mut total = 0usize;
        for k in keys {
            match &cache.meshes[k] {
                Err(e) => return Err(e.clone()),
                Ok(m) => total += m.triangles.len(),
            }
        }
        if total > max_total_triangles {
            let msg = format!(
                "the robot's meshes hold {total} triangles, over the limit of {max_total_triangles} (raise it with --max-total-triangles)"
            );
            return Err(match source {
                Some(s) => Error::at(s, None, msg),
                None => Error::input(msg),
            });
        }
        Ok(cache)
    }

    /// Loads every key, keeping each one's own result.
    pub fn load_each(keys: &[MeshKey], limits: &MeshLimits) -> Self {
        let progress = crate::progress::bar(keys.len() as u64, "loading meshes");
        let results: Vec<_> = keys
            .par_iter()
            .map(|k| {
                let r = load_mesh_with_info(&k.path, k.scale(), limits);
                progress.inc(1);
                (k.clone(), r)
            })
            .collect();
        progress.finish_and_clear();
        let mut warnings = Vec::new();
        let mut meshes = HashMap::new();
        for (k, r) in results {
            let r = r.map(|(mesh, info)| {
                warnings.extend(info.warnings);
                Arc::new(mesh)
            });
            meshes.insert(k, r);
        }
        MeshCache { meshes, warnings }
    }

    pub fn get(&self, key: &MeshKey) -> Option<&Arc<TriMesh>> {
        self.meshes.get(key).and_then(|r| r.as_ref().ok())
    }

    pub fn error(&self, key: &MeshKey) -> Option<&Error> {
        self.meshes.get(key).and_then(|r| r.as_ref().err())
    }
}

/// Segments used to mesh round primitives; the mesh is circumscribed, so it contains the solid.
const ROUND_SEGMENTS: usize = 32;

/// One piece's surface in the link frame, as triangles.
pub fn piece_mesh(piece: &GeometryPiece, cache: &MeshCache) -> Result<TriMesh> {
    let local = match &piece.shape {
        Shape::Mesh { path, scale, .. } => {
            let key = MeshKey::new(path, *scale);
            match cache.get(&key) {
                Some(m) => (**m).clone(),
                None => {
                    return Err(cache.error(&key).cloned().unwrap_or_else(|| {
                        Error::input(format!("{} was not loaded", path.display()))
                    }));
                }
            }
        }
        Shape::Box { size } => {
            crate::geom::primitive_mesh::box_mesh([size[0] / 2.0, size[1] / 2.0, size[2] / 2.0])
        }
        Shape::Cylinder { radius, length } => {
            crate::geom::primitive_mesh::cylinder_mesh(*radius, *length, ROUND_SEGMENTS)
        }
        Shape::Sphere { radius } => {
            crate::geom::primitive_mesh::ellipsoid_mesh([*radius; 3], ROUND_SEGMENTS)
        }
        Shape::Capsule { radius, length } => {
            crate::geom::primitive_mesh::capsule_mesh(*radius, *length, ROUND_SEGMENTS)
        }
        Shape::Ellipsoid { radii } => {
            crate::geom::primitive_mesh::ellipsoid_mesh(*radii, ROUND_SEGMENTS)
        }
    };
    let iso = piece.origin;
    let vertices = local
        .vertices
        .iter()
        .map(|v| {
            let p = iso * nalgebra::Point3::new(v[0], v[1], v[2]);
            [p.x, p.y, p.z]
        })
        .collect();
    Ok(TriMesh {
        vertices,
        triangles: local.triangles,
    })
}

/// The link's truth: the union of its pieces that `geometry` takes, as one mesh (`None` when
/// it has none).
pub fn link_truth(
    link: &Link,
    geometry: TruthGeometry,
    cache: &MeshCache,
) -> Result<Option<TriMesh>> {
    if link.geometry.is_empty() {
        return Ok(None);
    }
    let mut out = TriMesh::default();
    for piece in geometry.pieces(link) {
        let m = piece_mesh(piece, cache)?;
        let base = out.vertices.len() as u32;
        out.vertices.extend(m.vertices);
        out.triangles.extend(
            m.triangles
                .iter()
                .map(|t| [t[0] + base, t[1] + base, t[2] + base]),
        );
    }
    Ok(Some(out))
}

/// Loads every mesh the robot names, once each.
pub fn load_meshes(
    robot: &Robot,
    limits: &MeshLimits,
    max_total_triangles: usize,
) -> Result<MeshCache> {
    let keys = mesh_keys(robot);
    MeshCache::load_for(&robot.source, &keys, limits, max_total_triangles)
}

/// Every link's truth mesh, as the robot's own [`TruthGeometry`] takes it (links without
/// geometry are left out), in link order.
pub fn truths(robot: &Robot, cache: &MeshCache) -> Result<Vec<(String, TriMesh)>> {
    truths_as(robot, robot.truth, cache)
}

/// [`truths`] as `geometry` takes them, whatever the robot's choice (`collide init` shows
/// both).
pub fn truths_as(
    robot: &Robot,
    geometry: TruthGeometry,
    cache: &MeshCache,
) -> Result<Vec<(String, TriMesh)>> {
    let mut out = Vec::new();
    for link in &robot.links {
        if let Some(mesh) = link_truth(link, geometry, cache)? {
            out.push((link.name.clone(), mesh));
        }
    }
    Ok(out)
}
