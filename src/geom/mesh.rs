//! A welded triangle mesh, the one geometry type every reader produces.

/// Vertices in metres, triangles as indices into `vertices`, counter-clockwise
/// seen from outside (winding is kept but nothing depends on it).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TriMesh {
    pub vertices: Vec<[f64; 3]>,
    pub triangles: Vec<[u32; 3]>,
}

impl TriMesh {
    pub fn is_empty(&self) -> bool {
        self.vertices.is_empty()
    }
}
