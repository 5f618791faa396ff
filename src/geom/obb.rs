//! Minimum-volume oriented box holding a point set with headroom.
//!
//! Exactness: O'Rourke (1985) showed that a minimum-volume box of a convex
//! polyhedron either has a face flush with a hull face or has two adjacent
//! faces each flush with a hull edge. This fit is exact over the first class
//! (for every distinct hull face normal, the best box with a face on that
//! plane, by rotating calipers on the projected 2D hull, objective taken with
//! the headroom included) when the hull has at most [`MAX_NORMALS`] distinct
//! face normals and at most 512 vertices. Larger hulls try the normals of the
//! largest faces, scanned on a 512-direction coreset of the hull, the best 8
//! re-evaluated exactly on every hull vertex. The edge-pair class is not enumerated: the best face-flush box and the
//! principal-axes box are each refined by a local rotation search, which finds
//! the edge-flush optimum when it lies near one of them. The result is always a
//! valid enclosing box; only its volume can be above the global optimum.

use super::hull::{self, Hull};
use super::support;
use super::v3::{self, Mat3, V3};

/// Face normals tried exhaustively; larger hulls keep the largest faces' normals.
pub const MAX_NORMALS: usize = 400;
/// Coreset directions the normal scan runs on when the hull is larger.
const CORESET: usize = 512;
/// Best normals of the coreset scan re-evaluated on every hull point.
const RECHECK: usize = 8;

/// An oriented box: `rot` columns are the box axes in the link frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Obb {
    pub center: V3,
    pub rot: Mat3,
    pub half_extents: V3,
}

impl Obb {
    pub fn volume(&self) -> f64 {
        8.0 * self.half_extents[0] * self.half_extents[1] * self.half_extents[2]
    }
    pub fn support(&self, u: V3) -> f64 {
        support::boxed(self.center, &self.rot, self.half_extents, u)
    }
    /// Signed depth inside (>= 0 inside): least distance to a face plane.
    pub fn depth(&self, p: V3) -> f64 {
        box_depth(self.center, &self.rot, self.half_extents, p)
    }
}

/// Signed depth of `p` in the box: `min_i (he_i - |axis_i . (p - c)|)`.
#[inline]
pub fn box_depth(center: V3, rot: &Mat3, he: V3, p: V3) -> f64 {
    let l = v3::mul_mtv(rot, v3::sub(p, center));
    (he[0] - l[0].abs())
        .min(he[1] - l[1].abs())
        .min(he[2] - l[2].abs())
}

/// Box with axes `rot` (columns) holding every point with `headroom`:
/// centred on the points' extents in that frame.
pub fn box_in_frame(points: &[V3], rot: &Mat3, headroom: f64) -> Obb {
    let (lo, hi) = extents(points, rot);
    let mid = [
        (lo[0] + hi[0]) / 2.0,
        (lo[1] + hi[1]) / 2.0,
        (lo[2] + hi[2]) / 2.0,
    ];
    Obb {
        center: v3::mul_mv(rot, mid),
        rot: *rot,
        half_extents: [
            (hi[0] - lo[0]) / 2.0 + headroom,
            (hi[1] - lo[1]) / 2.0 + headroom,
            (hi[2] - lo[2]) / 2.0 + headroom,
        ],
    }
}

/// Per-axis min and max of the points in the frame `rot`.
pub fn extents(points: &[V3], rot: &Mat3) -> (V3, V3) {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for p in points {
        let l = v3::mul_mtv(rot, *p);
        for k in 0..3 {
            lo[k] = lo[k].min(l[k]);
            hi[k] = hi[k].max(l[k]);
        }
    }
    (lo, hi)
}

fn padded_volume(points: &[V3], rot: &Mat3, h: f64) -> f64 {
    let (lo, hi) = extents(points, rot);
    (hi[0] - lo[0] + 2.0 * h) * (hi[1] - lo[1] + 2.0 * h) * (hi[2] - lo[2] + 2.0 * h)
}

/// Best rectangle orientation in the plane normal to `n` (rotating calipers on
/// the projected hull), as a frame with `n` as its third column, and the
/// padded volume.
fn best_for_normal(points: &[V3], n: V3, h: f64) -> (f64, Mat3) {
    let (e1, e2) = v3::orthonormal_basis(n);
    let mut q = Vec::with_capacity(points.len());
    let (mut tmin, mut tmax) = (f64::INFINITY, f64::NEG_INFINITY);
    for p in points {
        q.push([v3::dot(*p, e1), v3::dot(*p, e2)]);
        let t = v3::dot(*p, n);
        tmin = tmin.min(t);
        tmax = tmax.max(t);
    }
    let depth = tmax - tmin + 2.0 * h;
    let ring: Vec<[f64; 2]> = hull::convex_hull_2d(&q).into_iter().map(|i| q[i]).collect();
    let (area, dir) = min_area_rect(&ring, h);
    let u = v3::add(v3::scale(e1, dir[0]), v3::scale(e2, dir[1]));
    let w = v3::cross(n, u);
    (area * depth, v3::from_cols(u, w, n))
}

/// Minimum of `(width + 2h)(height + 2h)` over rectangles with a side along a
/// polygon edge (rotating calipers). Returns the area and the unit side direction.
pub fn min_area_rect(ring: &[[f64; 2]], h: f64) -> (f64, [f64; 2]) {
    let m = ring.len();
    if m < 3 {
        // Point or segment: along the segment.
        if m == 2 {
            let d = [ring[1][0] - ring[0][0], ring[1][1] - ring[0][1]];
            let l = (d[0] * d[0] + d[1] * d[1]).sqrt();
            if l > 0.0 {
                return ((l + 2.0 * h) * 2.0 * h, [d[0] / l, d[1] / l]);
            }
        }
        return (4.0 * h * h, [1.0, 0.0]);
    }
    let dot = |a: [f64; 2], b: [f64; 2]| a[0] * b[0] + a[1] * b[1];
    let edge_dir = |i: usize| {
        let a = ring[i];
        let b = ring[(i + 1) % m];
        let d = [b[0] - a[0], b[1] - a[1]];
        let l = (d[0] * d[0] + d[1] * d[1]).sqrt();
        if l > 0.0 {
            [d[0] / l, d[1] / l]
        } else {
            [1.0, 0.0]
        }
    };
    // Pointers: jmax (max along u), kfar (max along the inward normal), lmin (min along u).
    let u0 = edge_dir(0);
    let inward = |u: [f64; 2]| [-u[1], u[0]];
    let argmax = |f: &dyn Fn([f64; 2]) -> f64| {
        (0..m)
            .max_by(|&a, &b| f(ring[a]).total_cmp(&f(ring[b])))
            .unwrap_or(0)
    };
    let mut jmax = argmax(&|p| dot(p, u0));
    let mut kfar = argmax(&|p| dot(p, inward(u0)));
    let mut lmin = argmax(&|p| -dot(p, u0));
    let mut best = (f64::INFINITY, u0);
    for i in 0..m {
        let u = edge_dir(i);
        let v = inward(u);
        let adv = |ptr: &mut usize, f: &dyn Fn([f64; 2]) -> f64| {
            for _ in 0..m {
                let nx = (*ptr + 1) % m;
                if f(ring[nx]) > f(ring[*ptr]) {
                    *ptr = nx;
                } else {
                    break;
                }
            }
        };
        adv(&mut jmax, &|p| dot(p, u));
        adv(&mut kfar, &|p| dot(p, v));
        adv(&mut lmin, &|p| -dot(p, u));
        let width = dot(ring[jmax], u) - dot(ring[lmin], u);
        let height = dot(ring[kfar], v) - dot(ring[i], v);
        let area = (width + 2.0 * h) * (height + 2.0 * h);
        if area < best.0 {
            best = (area, u);
        }
    }
    best
}

/// Candidate face normals: distinct directions (up to sign), largest faces first.
pub fn distinct_normals(h: &Hull, max: usize) -> Vec<V3> {
    let mut faces: Vec<(f64, V3)> = h
        .faces
        .iter()
        .filter_map(|f| {
            let [a, b, c] = [
                h.points[f[0] as usize],
                h.points[f[1] as usize],
                h.points[f[2] as usize],
            ];
            let n = v3::cross(v3::sub(b, a), v3::sub(c, a));
            let area = v3::norm(n);
            v3::normalize(n).map(|u| (area, u))
        })
        .collect();
    faces.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut out: Vec<V3> = Vec::new();
    for (_, n) in faces {
        if out.iter().all(|m| v3::dot(*m, n).abs() < 1.0 - 1e-10) {
            out.push(n);
            if out.len() >= max {
                break;
            }
        }
    }
    out
}

/// The right-handed frame among the 24 equivalent box frames (axis
/// permutations and sign flips) closest to the identity, with the half
/// extents permuted to match. Makes the written rpy small and deterministic.
pub fn canonical(b: &Obb) -> Obb {
    let axes = [v3::col(&b.rot, 0), v3::col(&b.rot, 1), v3::col(&b.rot, 2)];
    let perms = [
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ];
    let mut best: Option<(f64, Obb)> = None;
    for p in perms {
        for signs in 0..8u8 {
            let s = |k: usize| if signs >> k & 1 == 1 { -1.0 } else { 1.0 };
            let c0 = v3::scale(axes[p[0]], s(0));
            let c1 = v3::scale(axes[p[1]], s(1));
            let c2 = v3::scale(axes[p[2]], s(2));
            let rot = v3::from_cols(c0, c1, c2);
            if v3::det(&rot) < 0.0 {
                continue;
            }
            let trace = rot[0][0] + rot[1][1] + rot[2][2];
            if best.as_ref().is_none_or(|(t, _)| trace > *t + 1e-12) {
                let he = [
                    b.half_extents[p[0]],
                    b.half_extents[p[1]],
                    b.half_extents[p[2]],
                ];
                best = Some((
                    trace,
                    Obb {
                        center: b.center,
                        rot,
                        half_extents: he,
                    },
                ));
            }
        }
    }
    best.map(|x| x.1).unwrap_or(*b)
}

/// Right-handed orthonormal frame from a possibly left-handed or slightly
/// non-orthogonal one (Gram-Schmidt on the first two columns).
pub fn orthonormalize(m: &Mat3) -> Mat3 {
    let c0 = v3::normalize(v3::col(m, 0)).unwrap_or([1.0, 0.0, 0.0]);
    let c1 = v3::sub(v3::col(m, 1), v3::scale(c0, v3::dot(c0, v3::col(m, 1))));
    let c1 = v3::normalize(c1).unwrap_or_else(|| v3::orthonormal_basis(c0).0);
    v3::from_cols(c0, c1, v3::cross(c0, c1))
}

/// Local search over small rotations about the frame's own axes.
fn refine(points: &[V3], rot0: Mat3, h: f64) -> (f64, Mat3) {
    let mut rot = rot0;
    let mut cur = padded_volume(points, &rot, h);
    let mut step = 0.02;
    while step > 5e-5 {
        let mut improved = false;
        'dirs: for k in 0..3 {
            for sign in [1.0, -1.0] {
                let r = v3::rot_axis_angle(v3::col(&rot, k), sign * step);
                let cand = orthonormalize(&v3::mul_mm(&r, &rot));
                let v = padded_volume(points, &cand, h);
                if v < cur * (1.0 - 1e-12) {
                    cur = v;
                    rot = cand;
                    improved = true;
                    break 'dirs;
                }
            }
        }
        if !improved {
            step *= 0.5;
        }
    }
    (cur, rot)
}

/// Minimum-volume box holding the hull's points with `headroom` (module doc).
/// `None` only for an empty hull.
pub fn fit_obb(h: &Hull, headroom: f64) -> Option<Obb> {
    let pts = &h.points;
    if pts.is_empty() {
        return None;
    }
    let mut normals: Vec<V3> = match h.dim {
        0 => vec![[0.0, 0.0, 1.0]],
        1 => {
            let d = v3::normalize(v3::sub(pts[1], pts[0])).unwrap_or([0.0, 0.0, 1.0]);
            vec![v3::orthonormal_basis(d).0]
        }
        2 => vec![h.plane_normal.unwrap_or([0.0, 0.0, 1.0])],
        _ => distinct_normals(h, MAX_NORMALS),
    };
    let (_, cov) = v3::mean_cov(pts);
    let (_, pca) = v3::sym_eigen(&cov);
    if normals.is_empty() {
        normals.push(v3::col(&pca, 2));
    }
    // Scan every normal on the coreset, then re-evaluate the best few on
    // every hull point (the coreset is the hull itself for small hulls).
    let core = hull::directional_coreset(pts, CORESET);
    let mut scan: Vec<(f64, usize)> = normals
        .iter()
        .enumerate()
        .map(|(i, n)| (best_for_normal(&core, *n, headroom).0, i))
        .collect();
    scan.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut best: Option<(f64, Mat3)> = None;
    let recheck = if core.len() == pts.len() { 1 } else { RECHECK };
    for &(_, i) in scan.iter().take(recheck) {
        let (v, rot) = best_for_normal(pts, normals[i], headroom);
        if best.as_ref().is_none_or(|(bv, _)| v < *bv) {
            best = Some((v, rot));
        }
    }
    let (_, face_rot) = best.unwrap_or((f64::INFINITY, pca));
    let mut result = refine(pts, orthonormalize(&face_rot), headroom);
    if h.dim == 3 {
        let from_pca = refine(pts, orthonormalize(&pca), headroom);
        if from_pca.0 < result.0 {
            result = from_pca;
        }
    }
    Some(canonical(&box_in_frame(pts, &result.1, headroom)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotated_cube_is_recovered() {
        let rot = v3::rot_from_rpy([0.4, 0.3, -0.9]);
        let mut pts = Vec::new();
        for x in [-0.5, 0.5] {
            for y in [-0.25, 0.25] {
                for z in [-0.1, 0.1] {
                    pts.push(v3::add([1.0, 2.0, 3.0], v3::mul_mv(&rot, [x, y, z])));
                }
            }
        }
        let h = Hull::new(&pts);
        let b = fit_obb(&h, 0.001).unwrap();
        let vol = 1.002 * 0.502 * 0.202;
        assert!((b.volume() - vol).abs() < 1e-9, "{} vs {vol}", b.volume());
        for p in &pts {
            assert!(b.depth(*p) >= 0.001 - 1e-12);
        }
    }

    #[test]
    fn canonical_frame_is_near_identity() {
        let b = Obb {
            center: [0.0; 3],
            rot: v3::from_cols([0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]),
            half_extents: [1.0, 2.0, 3.0],
        };
        let c = canonical(&b);
        assert_eq!(c.rot, v3::IDENTITY);
        assert_eq!(c.half_extents, [3.0, 1.0, 2.0]);
    }

    #[test]
    fn flat_and_segment() {
        let h = Hull::new(&[
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 2.0, 0.0],
            [1.0, 2.0, 0.0],
        ]);
        let b = fit_obb(&h, 0.001).unwrap();
        let mut he = b.half_extents;
        he.sort_by(f64::total_cmp);
        assert!(
            (he[0] - 0.001).abs() < 1e-12
                && (he[1] - 0.501).abs() < 1e-9
                && (he[2] - 1.001).abs() < 1e-9,
            "{he:?}"
        );
        let h = Hull::new(&[[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]);
        let b = fit_obb(&h, 0.001).unwrap();
        let mut he = b.half_extents;
        he.sort_by(f64::total_cmp);
        assert!((he[2] - (3f64.sqrt() / 2.0 + 0.001)).abs() < 1e-9, "{he:?}");
    }
}
