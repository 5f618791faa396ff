//! A welded triangle mesh, the one geometry type every reader produces.

use super::v3::{self, V3};

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

/// Three fixed ray directions in no special position: CAD coordinates are round numbers,
/// and an axis ray from a round point runs exactly along face diagonals and edges.
const RAY_DIRS: [V3; 3] = [
    [0.947_027_282_8, 0.301_441_253_3, 0.110_444_001_9],
    [-0.245_196_564_0, 0.902_109_526_3, 0.355_078_318_6],
    [0.155_845_047_8, -0.372_702_117_7, 0.914_771_596_9],
];

/// How many of three rays from `p` cross the closed, consistently oriented surface
/// `triangles` with a non-zero winding number (exits minus entries). On a clean closed
/// surface all three agree (3 inside, 0 outside); a ray through an edge can still miscount
/// in the last bit, so callers take the majority. The winding number, unlike a
/// pseudo-normal test, is also right where shells pass through each other.
pub fn ray_windings(triangles: impl Iterator<Item = [V3; 3]> + Clone, p: V3) -> usize {
    RAY_DIRS
        .iter()
        .filter(|&&d| {
            let mut winding = 0i32;
            for [a, b, c] in triangles.clone() {
                // Moller-Trumbore: the ray p + t d, t > 0, through the triangle.
                let (e1, e2) = (v3::sub(b, a), v3::sub(c, a));
                let h = v3::cross(d, e2);
                let det = v3::dot(e1, h);
                if det == 0.0 {
                    continue;
                }
                let s = v3::sub(p, a);
                let u = v3::dot(s, h) / det;
                if !(0.0..=1.0).contains(&u) {
                    continue;
                }
                let q = v3::cross(s, e1);
                let v = v3::dot(d, q) / det;
                if v < 0.0 || u + v > 1.0 || v3::dot(e2, q) / det <= 0.0 {
                    continue;
                }
                // det = -d . (e1 x e2): an exit through an outward face has det < 0.
                winding += if det < 0.0 { 1 } else { -1 };
            }
            winding != 0
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::primitive_mesh::box_mesh;

    #[test]
    fn rays_count_a_box_inside_and_outside_either_way_round() {
        let m = box_mesh([0.1, 0.2, 0.3]);
        let tris = |m: &TriMesh| {
            m.triangles
                .iter()
                .map(|t| t.map(|i| m.vertices[i as usize]))
                .collect::<Vec<_>>()
        };
        let t = tris(&m);
        // The centre and a point on every face diagonal seen along an axis.
        assert_eq!(ray_windings(t.iter().copied(), [0.0; 3]), 3);
        assert_eq!(ray_windings(t.iter().copied(), [0.01, 0.02, 0.03]), 3);
        assert_eq!(ray_windings(t.iter().copied(), [0.2, 0.0, 0.0]), 0);
        assert_eq!(ray_windings(t.iter().copied(), [-0.01, -0.3, 0.0]), 0);
        // Inward-facing: the winding is -1 inside, still non-zero.
        let flipped: Vec<[V3; 3]> = t.iter().map(|&[a, b, c]| [a, c, b]).collect();
        assert_eq!(ray_windings(flipped.iter().copied(), [0.01, 0.02, 0.03]), 3);
    }
}
