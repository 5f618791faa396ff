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
use super::v3::{self, Mat3, V3};
use parry3d_f64::math::Vector3;

/// Depth of `p` in the capsule `a`-`b`, radius `r`.
#[inline]
pub fn capsule_depth(a: V3, b: V3, r: f64, p: V3) -> f64 {
    r - capsule::dist_to_segment(p, a, b)
}

/// Depth of `p` in the box (centre, axes as columns of `rot`, half extents).
#[inline]
pub fn box_depth(center: V3, rot: &Mat3, he: V3, p: V3) -> f64 {
    obb::box_depth(center, rot, he, p)
}

/// Depth of `p` in a 26-DOP given in the box frame.
#[inline]
pub fn dop_depth(dop: &[f64; 26], center: V3, rot: &Mat3, p: V3) -> f64 {
    dop26::depth(dop, center, rot, p)
}

/// Least depth over the triangle's vertices (its depth in a convex set).
pub fn triangle_depth(tri: &[V3], depth: impl Fn(V3) -> f64) -> f64 {
    tri.iter().map(|p| depth(*p)).fold(f64::INFINITY, f64::min)
}

/// Facet planes of `conv(W)` for a vertex list `W`.
///
/// When every coordinate of `W` is on the written 6-decimal grid (what a
/// manifest holds: hull vertices at 1 µm, everything else at 0.1 mm, which is
/// on the finer grid too), the hull is computed *exactly*: coordinates become
/// integers `k` with `x = k / 10^6`, and an incremental hull decides every
/// orientation with exact `i128` determinants, so its facets are exactly the
/// boundary of `conv(W)` (coplanar facets triangulated). Each facet's unit
/// normal `n` is then taken to f64 and its offset is the exact support
/// `max_{w in W} n . w` evaluated in f64, so every halfspace holds `W`.
///
/// Off the grid (hand-made input), quickhull (parry) triangulates `conv(W)`
/// and the facets are validated instead: a closed oriented 2-manifold (every
/// directed edge once, with its reverse), Euler characteristic 2, every
/// triangle's own vertices on its supporting plane (within 1e-9 of the
/// scale). Then every triangle lies on the boundary of `conv(W)` and together
/// they cover it, so every face plane of `conv(W)` is among them.
#[derive(Debug, Clone)]
pub struct HullPlanes {
    pub planes: Vec<(V3, f64)>,
}

/// Grid steps per metre on which [`HullPlanes`] is exact: the 6-decimal grid that
/// manifests write hull vertices on (`fit::rounding::HULL_STEPS` is this).
pub const HULL_GRID_STEPS: f64 = 1e6;

/// Largest grid index accepted for the exact path (coordinates up to ~1 km).
const GRID_LIMIT: f64 = (1u64 << 30) as f64;

/// Grid steps per metre of the OBJ hulls `collide export` writes (2^24: f32 values below
/// 1 m); [`HullPlanes`] is exact on it too.
pub const OBJ_GRID_STEPS: f64 = (1u64 << 24) as f64;

fn on_grid(w: &[V3], steps: f64) -> Option<Vec<[i64; 3]>> {
    w.iter()
        .map(|p| {
            let mut k = [0i64; 3];
            for i in 0..3 {
                let g = (p[i] * steps).round();
                if g.abs() > GRID_LIMIT || g / steps != p[i] {
                    return None;
                }
                k[i] = g as i64;
            }
            Some(k)
        })
        .collect()
}

#[inline]
fn isub(a: [i64; 3], b: [i64; 3]) -> [i128; 3] {
    [
        (a[0] - b[0]) as i128,
        (a[1] - b[1]) as i128,
        (a[2] - b[2]) as i128,
    ]
}
#[inline]
fn icross(a: [i128; 3], b: [i128; 3]) -> [i128; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
/// Sign of `det(b - a, c - a, d - a)`: > 0 when `d` is on the side the normal
/// `(b - a) x (c - a)` points to. Exact.
#[inline]
fn orient(a: [i64; 3], b: [i64; 3], c: [i64; 3], d: [i64; 3]) -> i32 {
    let n = icross(isub(b, a), isub(c, a));
    let e = isub(d, a);
    let v = n[0] * e[0] + n[1] * e[1] + n[2] * e[2];
    v.signum() as i32
}

/// Exact incremental hull of integer points: outward triangles (indices).
pub fn exact_hull(p: &[[i64; 3]]) -> Result<Vec<[usize; 3]>, String> {
    let n = p.len();
    let i0 = 0;
    let i1 = (1..n)
        .find(|&i| p[i] != p[i0])
        .ok_or("hull vertices are all equal")?;
    let i2 = (1..n)
        .find(|&i| icross(isub(p[i1], p[i0]), isub(p[i], p[i0])) != [0, 0, 0])
        .ok_or("hull vertices are collinear")?;
    let i3 = (1..n)
        .find(|&i| orient(p[i0], p[i1], p[i2], p[i]) != 0)
        .ok_or("hull is flat")?;
    let tet = [i0, i1, i2, i3];
    let mut faces: Vec<[usize; 3]> = Vec::new();
    for skip in 0..4 {
        let f: Vec<usize> = (0..4).filter(|&k| k != skip).map(|k| tet[k]).collect();
        let (a, b, c) = (f[0], f[1], f[2]);
        // The fourth vertex must be strictly inside (negative side).
        if orient(p[a], p[b], p[c], p[tet[skip]]) > 0 {
            faces.push([a, c, b]);
        } else {
            faces.push([a, b, c]);
        }
    }
    for (i, &q) in p.iter().enumerate() {
        if tet.contains(&i) {
            continue;
        }
        let visible: Vec<bool> = faces
            .iter()
            .map(|f| orient(p[f[0]], p[f[1]], p[f[2]], q) > 0)
            .collect();
        if !visible.iter().any(|v| *v) {
            continue;
        }
        let mut vis_edges: Vec<(usize, usize)> = Vec::new();
        for (f, v) in faces.iter().zip(&visible) {
            if *v {
                for k in 0..3 {
                    vis_edges.push((f[k], f[(k + 1) % 3]));
                }
            }
        }
        vis_edges.sort_unstable();
        let horizon: Vec<(usize, usize)> = vis_edges
            .iter()
            .copied()
            .filter(|&(a, b)| vis_edges.binary_search(&(b, a)).is_err())
            .collect();
        let mut kept: Vec<[usize; 3]> = faces
            .iter()
            .zip(&visible)
            .filter(|(_, v)| !**v)
            .map(|(f, _)| *f)
            .collect();
        for (a, b) in horizon {
            kept.push([a, b, i]);
        }
        faces = kept;
    }
    Ok(faces)
}

impl HullPlanes {
    /// Facets of `conv(w)`; `Err` with a reason when `w` is degenerate (fewer
    /// than 4 affinely independent points) or, off the grid, the facets fail
    /// validation.
    pub fn new(w: &[V3]) -> Result<HullPlanes, String> {
        if w.len() < 4 {
            return Err(format!("hull has {} vertices, needs at least 4", w.len()));
        }
        if !w.iter().all(|p| v3::finite(*p)) {
            return Err("hull has a non-finite vertex".into());
        }
        match on_grid(w, HULL_GRID_STEPS) {
            Some(k) => Self::exact(w, &k),
            None => Self::validated(w),
        }
    }

    /// [`HullPlanes::new`], exact on the OBJ grid of `collide export` too (its hulls as
    /// read back); kept apart so every other hull is built as before.
    pub fn new_on_obj_grid(w: &[V3]) -> Result<HullPlanes, String> {
        match on_grid(w, OBJ_GRID_STEPS) {
            Some(k) if w.len() >= 4 => Self::exact(w, &k),
            _ => Self::new(w),
        }
    }

    fn exact(w: &[V3], k: &[[i64; 3]]) -> Result<HullPlanes, String> {
        let faces = exact_hull(k)?;
        let mut planes = Vec::with_capacity(faces.len());
        for f in &faces {
            let n = icross(isub(k[f[1]], k[f[0]]), isub(k[f[2]], k[f[0]]));
            let n = v3::normalize([n[0] as f64, n[1] as f64, n[2] as f64])
                .ok_or("hull has a degenerate facet")?;
            let h = w
                .iter()
                .map(|p| v3::dot(n, *p))
                .fold(f64::NEG_INFINITY, f64::max);
            planes.push((n, h));
        }
        Ok(HullPlanes { planes })
    }

    fn validated(w: &[V3]) -> Result<HullPlanes, String> {
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

    /// [`HullPlanes::depth`] when it exceeds `floor`; otherwise some value `<= floor`
    /// (the scan stops at the first plane that shows it): for a maximum over several
    /// hulls, where a hull that cannot beat the best so far need not be finished.
    pub fn depth_above(&self, p: V3, floor: f64) -> f64 {
        let mut d = f64::INFINITY;
        for (n, h) in &self.planes {
            d = d.min(h - v3::dot(*n, p));
            if d <= floor {
                return d;
            }
        }
        d
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
        // Off the grid: the validated quickhull path gives the same depths.
        let off: Vec<V3> = w.iter().map(|p| v3::scale(*p, 1.000_000_01)).collect();
        let hp = HullPlanes::new(&off).unwrap();
        assert!((hp.depth([0.9, 0.0, 0.0]) - 0.1).abs() < 1e-7);
    }

    #[test]
    fn exact_hull_of_grid_points_with_coplanar_and_interior_points() {
        // A 3x3x3 grid cube: 8 corners, plus edge, face and interior points.
        let mut w = Vec::new();
        for x in 0..3 {
            for y in 0..3 {
                for z in 0..3 {
                    w.push([x as f64 * 0.1, y as f64 * 0.1, z as f64 * 0.1]);
                }
            }
        }
        let hp = HullPlanes::new(&w).unwrap();
        for (n, h) in &hp.planes {
            // Every facet is one of the cube's six face planes.
            assert!(n.iter().filter(|c| c.abs() == 1.0).count() == 1, "{n:?}");
            assert!((h - 0.2).abs() < 1e-12 || h.abs() < 1e-12);
        }
        assert!((hp.depth([0.1, 0.1, 0.1]) - 0.1).abs() < 1e-12);
        let flat: Vec<V3> = w.iter().map(|p| [p[0], p[1], 0.0]).collect();
        assert!(HullPlanes::new(&flat).is_err());
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
