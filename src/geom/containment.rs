//! Containment tests with signed depth (>= 0 inside, the margin), for points
//! and triangles in the convex primitives. A convex set holds a triangle iff it
//! holds its three vertices, so the triangle depth is the least vertex depth.
//!
//! Hull containment needs the hull's facets. [`HullPlanes`] builds them from
//! the written vertex list and checks that they describe `conv(vertices)`
//! exactly (see its doc), so a point inside every facet plane is proven inside
//! the hull the kernel will use (`conv` of the written vertices).

use super::capsule;
use super::dop26;
use super::obb;
use super::v3::{self, M3, V3};
use parry3d_f64::math::Vector3;

/// Depth of `p` in the capsule `a`-`b`, radius `r`.
#[inline]
pub fn capsule_depth(a: V3, b: V3, r: f64, p: V3) -> f64 {
    r - capsule::dist_to_segment(p, a, b)
}

/// Depth of `p` in the box (centre, axes as columns of `rot`, half extents).
#[inline]
pub fn box_depth(center: V3, rot: &M3, he: V3, p: V3) -> f64 {
    obb::box_depth(center, rot, he, p)
}

/// Depth of `p` in a 26-DOP given in the box frame.
#[inline]
pub fn dop_depth(dop: &[f64; 26], center: V3, rot: &M3, p: V3) -> f64 {
    dop26::depth(dop, center, rot, p)
}

/// Least depth over the triangle's vertices (its depth in a convex set).
pub fn triangle_depth(tri: &[V3], depth: impl Fn(V3) -> f64) -> f64 {
    tri.iter().map(|p| depth(*p)).fold(f64::INFINITY, f64::min)
}

/// Facet planes of `conv(W)` for a vertex list `W`, validated.
///
/// Construction: quickhull (parry) triangulates `conv(W)`; each triangle gives
/// a unit normal `n`, and its offset is the exact support `max_{w in W} n . w`,
/// so every halfspace holds `conv(W)` whatever the triangle's accuracy.
/// Validation, which makes the intersection of the halfspaces equal `conv(W)`:
/// the triangles form a closed oriented 2-manifold (every directed edge once,
/// its reverse once), Euler characteristic 2, every triangle's own vertices on
/// its plane (within 1e-9 of the scale), normals pointing away from the
/// vertex mean. Then every triangle lies on the boundary of `conv(W)` and
/// together they cover it, so every face plane of `conv(W)` is among them.
#[derive(Debug, Clone)]
pub struct HullPlanes {
    pub planes: Vec<(V3, f64)>,
}

impl HullPlanes {
    /// Facets of `conv(w)`; `Err` with a reason when `w` is degenerate (fewer
    /// than 4 affinely independent points) or the facets fail validation.
    pub fn new(w: &[V3]) -> Result<HullPlanes, String> {
        if w.len() < 4 {
            return Err(format!("hull has {} vertices, needs at least 4", w.len()));
        }
        if !w.iter().all(|p| v3::is_finite(*p)) {
            return Err("hull has a non-finite vertex".into());
        }
        let input: Vec<Vector3> = w.iter().map(|p| Vector3::new(p[0], p[1], p[2])).collect();
        let (verts, faces) = parry3d_f64::transformation::try_convex_hull(&input)
            .map_err(|e| format!("hull of the written vertices failed: {e}"))?;
        let pts: Vec<V3> = verts.iter().map(|v| [v.x, v.y, v.z]).collect();
        if pts.len() < 4 || faces.len() < 4 {
            return Err("hull of the written vertices is flat".into());
        }
        let mut mean = [0.0; 3];
        for p in &pts {
            mean = v3::add(mean, *p);
        }
        mean = v3::scale(mean, 1.0 / pts.len() as f64);
        let scale = pts.iter().map(|p| v3::dist(*p, mean)).fold(0.0, f64::max);
        let tol = 1e-9 * scale.max(1e-9);
        // Closed oriented manifold: each directed edge once, with its reverse.
        let mut edges: Vec<(u32, u32)> = Vec::with_capacity(faces.len() * 3);
        for f in &faces {
            for k in 0..3 {
                edges.push((f[k], f[(k + 1) % 3]));
            }
        }
        edges.sort_unstable();
        if edges.windows(2).any(|e| e[0] == e[1]) {
            return Err("hull facets repeat a directed edge".into());
        }
        for &(a, b) in &edges {
            if edges.binary_search(&(b, a)).is_err() {
                return Err("hull facets are not closed".into());
            }
        }
        let mut used: Vec<u32> = faces.iter().flatten().copied().collect();
        used.sort_unstable();
        used.dedup();
        let euler = used.len() as i64 - (edges.len() / 2) as i64 + faces.len() as i64;
        if euler != 2 {
            return Err(format!(
                "hull facets have Euler characteristic {euler}, not 2"
            ));
        }
        let mut planes = Vec::with_capacity(faces.len());
        for f in &faces {
            let [a, b, c] = [pts[f[0] as usize], pts[f[1] as usize], pts[f[2] as usize]];
            let Some(n) = v3::normalize(v3::cross(v3::sub(b, a), v3::sub(c, a))) else {
                return Err("hull has a degenerate facet".into());
            };
            if v3::dot(n, v3::sub(a, mean)) <= 0.0 {
                return Err("hull facet faces inward".into());
            }
            let h = w
                .iter()
                .map(|p| v3::dot(n, *p))
                .fold(f64::NEG_INFINITY, f64::max);
            let low = v3::dot(n, a).min(v3::dot(n, b)).min(v3::dot(n, c));
            if h - low > tol {
                return Err(format!(
                    "hull facet is not a supporting plane (off by {:.3e} m)",
                    h - low
                ));
            }
            planes.push((n, h));
        }
        Ok(HullPlanes { planes })
    }

    /// Signed depth of `p`: least distance to a facet plane, >= 0 inside.
    pub fn depth(&self, p: V3) -> f64 {
        self.planes
            .iter()
            .map(|(n, h)| h - v3::dot(*n, p))
            .fold(f64::INFINITY, f64::min)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cube_planes_depth() {
        let mut w = Vec::new();
        for x in [-1.0, 1.0] {
            for y in [-1.0, 1.0] {
                for z in [-1.0, 1.0] {
                    w.push([x, y, z]);
                }
            }
        }
        let hp = HullPlanes::new(&w).unwrap();
        assert!((hp.depth([0.0; 3]) - 1.0).abs() < 1e-12);
        assert!((hp.depth([0.9, 0.0, 0.0]) - 0.1).abs() < 1e-12);
        assert!(hp.depth([1.1, 0.0, 0.0]) < 0.0);
        assert!(HullPlanes::new(&w[..3]).is_err());
    }

    #[test]
    fn capsule_and_box_depth() {
        assert!(
            (capsule_depth([0.0; 3], [1.0, 0.0, 0.0], 0.5, [0.5, 0.2, 0.0]) - 0.3).abs() < 1e-12
        );
        assert!(
            (box_depth([0.0; 3], &v3::IDENTITY, [1.0, 2.0, 3.0], [0.5, 0.0, 0.0]) - 0.5).abs()
                < 1e-12
        );
        let tri = [[0.0; 3], [0.5, 0.0, 0.0], [0.0, 1.9, 0.0]];
        let d = triangle_depth(&tri, |p| {
            box_depth([0.0; 3], &v3::IDENTITY, [1.0, 2.0, 3.0], p)
        });
        assert!((d - 0.1).abs() < 1e-12);
    }
}
