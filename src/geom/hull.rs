//! Convex hulls: a wrapper over parry's quickhull that never fails, plus a 2D
//! hull (monotone chain) for the box fit's rotating calipers.
//!
//! The hull here is a *search aid and a metric*, never a proof: fits search
//! on hull vertices (a convex primitive holds the hull iff it holds its
//! vertices), then re-derive their written sizes from every input point, and
//! `fit::proof` checks every vertex and triangle. So a hull that is off by
//! floating-point noise costs nothing but that noise.

use super::v3::{self, V3};
use parry3d_f64::math::Vector3;

/// The convex hull of a point set.
#[derive(Debug, Clone, Default)]
pub struct Hull {
    /// Hull vertices, a subset of the input points (duplicates removed). When
    /// quickhull fails on near-degenerate input, this is every distinct input
    /// point (a superset of the true hull vertices, still correct for support
    /// functions and containment).
    pub points: Vec<V3>,
    /// Outward triangles into `points` (empty for dimension < 3 or on fallback).
    pub faces: Vec<[u32; 3]>,
    /// Enclosed volume in m^3 (0 below dimension 3).
    pub volume: f64,
    /// Affine dimension of the input: 0 point, 1 segment, 2 flat, 3 solid.
    pub dim: usize,
    /// The plane normal when `dim == 2`.
    pub plane_normal: Option<V3>,
}

/// Relative tolerance below which an extent counts as zero (affine dimension).
const FLAT_TOL: f64 = 1e-9;

/// Distinct points, in a deterministic order (sorted by coordinates).
pub fn dedup_points(points: &[V3]) -> Vec<V3> {
    let mut v: Vec<V3> = points.to_vec();
    v.sort_by(|a, b| {
        a[0].total_cmp(&b[0])
            .then(a[1].total_cmp(&b[1]))
            .then(a[2].total_cmp(&b[2]))
    });
    v.dedup_by(|a, b| a == b);
    v
}

/// Affine dimension of a point set and its principal frame (mean, axes as columns).
pub fn affine_dim(points: &[V3]) -> (usize, V3, v3::Mat3) {
    if points.is_empty() {
        return (0, [0.0; 3], v3::IDENTITY);
    }
    let (mean, cov) = v3::mean_cov(points);
    let (_, axes) = v3::sym_eigen(&cov);
    // Extents along the principal axes, compared with the largest.
    let mut ext = [0.0f64; 3];
    for (k, e) in ext.iter_mut().enumerate() {
        let a = v3::col(&axes, k);
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for p in points {
            let t = v3::dot(*p, a);
            lo = lo.min(t);
            hi = hi.max(t);
        }
        *e = hi - lo;
    }
    let scale = ext.iter().cloned().fold(0.0, f64::max);
    if scale < 1e-12 {
        return (0, mean, axes);
    }
    let tol = (FLAT_TOL * scale).max(1e-12);
    let dim = ext.iter().filter(|e| **e > tol).count().max(1);
    (dim, mean, axes)
}

impl Hull {
    /// Hull of `points` (any count, any degeneracy; never panics).
    pub fn new(points: &[V3]) -> Hull {
        let pts = dedup_points(points);
        if pts.is_empty() {
            return Hull::default();
        }
        let (dim, mean, axes) = affine_dim(&pts);
        match dim {
            0 => Hull {
                points: vec![pts[0]],
                dim: 0,
                ..Hull::default()
            },
            1 => {
                let a = v3::col(&axes, 0);
                let (mut imin, mut imax) = (0, 0);
                for (i, p) in pts.iter().enumerate() {
                    if v3::dot(*p, a) < v3::dot(pts[imin], a) {
                        imin = i;
                    }
                    if v3::dot(*p, a) > v3::dot(pts[imax], a) {
                        imax = i;
                    }
                }
                Hull {
                    points: vec![pts[imin], pts[imax]],
                    dim: 1,
                    ..Hull::default()
                }
            }
            2 => {
                let (e1, e2, n) = (v3::col(&axes, 0), v3::col(&axes, 1), v3::col(&axes, 2));
                let p2: Vec<[f64; 2]> = pts
                    .iter()
                    .map(|p| {
                        let d = v3::sub(*p, mean);
                        [v3::dot(d, e1), v3::dot(d, e2)]
                    })
                    .collect();
                let ring = convex_hull_2d(&p2);
                let points: Vec<V3> = ring.iter().map(|&i| pts[i]).collect();
                // Two-sided fan so face normals hold +n and -n.
                let mut faces = Vec::new();
                let m = points.len() as u32;
                for i in 1..m.saturating_sub(1) {
                    faces.push([0, i, i + 1]);
                    faces.push([0, i + 1, i]);
                }
                Hull {
                    points,
                    faces,
                    volume: 0.0,
                    dim: 2,
                    plane_normal: Some(n),
                }
            }
            _ => Self::solid(&pts),
        }
    }

    fn solid(pts: &[V3]) -> Hull {
        let input: Vec<Vector3> = pts.iter().map(|p| Vector3::new(p[0], p[1], p[2])).collect();
        let fallback = || Hull {
            points: pts.to_vec(),
            dim: 3,
            ..Hull::default()
        };
        let Ok((verts, idx)) = parry3d_f64::transformation::try_convex_hull(&input) else {
            return fallback();
        };
        if verts.len() < 4 || idx.len() < 4 {
            return fallback();
        }
        let points: Vec<V3> = verts.iter().map(|v| [v.x, v.y, v.z]).collect();
        if !points.iter().all(|p| v3::finite(*p)) {
            return fallback();
        }
        let mut c = [0.0; 3];
        for p in &points {
            c = v3::add(c, *p);
        }
        c = v3::scale(c, 1.0 / points.len() as f64);
        let mut faces = Vec::with_capacity(idx.len());
        let mut vol6 = 0.0;
        for f in &idx {
            let [a, b, d] = [
                points[f[0] as usize],
                points[f[1] as usize],
                points[f[2] as usize],
            ];
            let t = v3::dot(v3::sub(a, c), v3::cross(v3::sub(b, c), v3::sub(d, c)));
            // Orient outward (parry's winding is CCW outward; trust but verify).
            if t >= 0.0 {
                faces.push(*f);
            } else {
                faces.push([f[0], f[2], f[1]]);
            }
            vol6 += t.abs();
        }
        Hull {
            points,
            faces,
            volume: vol6 / 6.0,
            dim: 3,
            plane_normal: None,
        }
    }

    /// Support function `max_p u . p` (`-inf` for an empty hull).
    pub fn support(&self, u: V3) -> f64 {
        support_points(&self.points, u)
    }

    /// Outward unit normals of the non-degenerate faces, each with the hull's support along
    /// it (`(n, max_p n . p)`). The support, not the face's own offset: a sliver face's
    /// cross product points anywhere, and its plane through its three vertices then cut
    /// through the hull (TIAGo's torso_lift_link: a piece whose planes left 1187 of its
    /// 1191 vertices outside). With the support every plane bounds the whole hull.
    pub fn face_planes(&self) -> Vec<(V3, f64)> {
        let mut out = Vec::with_capacity(self.faces.len());
        for f in &self.faces {
            let [a, b, c] = [
                self.points[f[0] as usize],
                self.points[f[1] as usize],
                self.points[f[2] as usize],
            ];
            let n = v3::cross(v3::sub(b, a), v3::sub(c, a));
            if let Some(n) = v3::normalize(n) {
                out.push((n, self.support(n)));
            }
        }
        out
    }

    /// Mean of the hull vertices (inside the hull).
    pub fn vertex_mean(&self) -> V3 {
        let mut c = [0.0; 3];
        for p in &self.points {
            c = v3::add(c, *p);
        }
        v3::scale(c, 1.0 / self.points.len().max(1) as f64)
    }
}

/// Support points of `points` in `k` Fibonacci directions, deduplicated, in
/// input order: a small subset whose hull approximates the full hull from
/// inside (a smooth part of curvature radius `r` is missed by at most about
/// `r * (1 - cos(sqrt(pi / k)))`, 0.15 mm at r = 5 cm and k = 512). Used to
/// *search* for fits only; written sizes always come from every point.
pub fn directional_coreset(points: &[V3], k: usize) -> Vec<V3> {
    if points.len() <= k {
        return points.to_vec();
    }
    let dirs = super::support::fibonacci_directions(k);
    let mut best = vec![(f64::NEG_INFINITY, 0usize); k];
    for (i, p) in points.iter().enumerate() {
        for (b, u) in best.iter_mut().zip(&dirs) {
            let s = v3::dot(*p, *u);
            if s > b.0 {
                *b = (s, i);
            }
        }
    }
    let mut idx: Vec<usize> = best.into_iter().map(|b| b.1).collect();
    idx.sort_unstable();
    idx.dedup();
    idx.into_iter().map(|i| points[i]).collect()
}

/// `max_p u . p` over a point list (defined with the other support functions).
pub use super::support::points as support_points;

/// Indices of the 2D convex hull, counter-clockwise, collinear points dropped
/// (Andrew's monotone chain). One index for a single distinct point, two for a
/// segment.
pub fn convex_hull_2d(p: &[[f64; 2]]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..p.len()).collect();
    idx.sort_by(|&a, &b| {
        p[a][0]
            .total_cmp(&p[b][0])
            .then(p[a][1].total_cmp(&p[b][1]))
    });
    idx.dedup_by(|a, b| p[*a] == p[*b]);
    if idx.len() < 3 {
        return idx;
    }
    let cross = |o: [f64; 2], a: [f64; 2], b: [f64; 2]| {
        (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    };
    let mut lower: Vec<usize> = Vec::new();
    for &i in &idx {
        while lower.len() >= 2
            && cross(p[lower[lower.len() - 2]], p[lower[lower.len() - 1]], p[i]) <= 0.0
        {
            lower.pop();
        }
        lower.push(i);
    }
    let mut upper: Vec<usize> = Vec::new();
    for &i in idx.iter().rev() {
        while upper.len() >= 2
            && cross(p[upper[upper.len() - 2]], p[upper[upper.len() - 1]], p[i]) <= 0.0
        {
            upper.pop();
        }
        upper.push(i);
    }
    lower.pop();
    upper.pop();
    lower.extend(upper);
    if lower.len() < 2 {
        // All collinear and equal after dedup: keep the two extremes.
        return vec![idx[0], idx[idx.len() - 1]];
    }
    lower
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube() -> Vec<V3> {
        let mut v = Vec::new();
        for x in [0.0, 1.0] {
            for y in [0.0, 1.0] {
                for z in [0.0, 1.0] {
                    v.push([x, y, z]);
                }
            }
        }
        v.push([0.5, 0.5, 0.5]);
        v
    }

    #[test]
    fn cube_hull_volume() {
        let h = Hull::new(&cube());
        assert_eq!(h.dim, 3);
        assert_eq!(h.points.len(), 8);
        assert!((h.volume - 1.0).abs() < 1e-12, "{}", h.volume);
        for (n, off) in h.face_planes() {
            for p in &h.points {
                assert!(v3::dot(n, *p) <= off + 1e-12);
            }
        }
    }

    /// A finely tessellated box (CAD exports put hundreds of nearly colinear points on its
    /// edges): whatever slivers the hull's triangulation has, every plane bounds every point.
    #[test]
    fn face_planes_bound_every_point_of_a_finely_tessellated_box() {
        let mut pts = cube();
        for i in 0..=400 {
            let t = i as f64 / 400.0;
            let wobble = 1e-13 * ((i * 7919) % 13) as f64;
            for p in [
                [t, wobble, 0.0],
                [t, 1.0, wobble],
                [0.0, t, 1.0 - wobble],
                [1.0, t + wobble * 0.0, wobble],
                [wobble, 0.0, t],
                [1.0, 1.0 - wobble, t],
            ] {
                pts.push(p);
            }
        }
        let h = Hull::new(&pts);
        for (n, off) in h.face_planes() {
            for p in &pts {
                assert!(v3::dot(n, *p) <= off + 1e-12, "{n:?} {off} {p:?}");
            }
        }
    }

    #[test]
    fn degenerate_hulls() {
        assert_eq!(Hull::new(&[]).points.len(), 0);
        let h = Hull::new(&[[1.0, 2.0, 3.0]; 5]);
        assert_eq!((h.dim, h.points.len()), (0, 1));
        let h = Hull::new(&[
            [0.0, 0.0, 0.0],
            [1.0, 1.0, 1.0],
            [0.5, 0.5, 0.5],
            [2.0, 2.0, 2.0],
        ]);
        assert_eq!((h.dim, h.points.len()), (1, 2));
        let h = Hull::new(&[
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [1.0, 1.0, 0.0],
            [0.5, 0.5, 0.0],
        ]);
        assert_eq!((h.dim, h.points.len()), (2, 4));
        assert_eq!(h.volume, 0.0);
    }

    #[test]
    fn hull_2d_square() {
        let p = [
            [0.0, 0.0],
            [1.0, 0.0],
            [1.0, 1.0],
            [0.0, 1.0],
            [0.5, 0.5],
            [0.5, 0.0],
        ];
        let h = convex_hull_2d(&p);
        assert_eq!(h.len(), 4);
    }
}
