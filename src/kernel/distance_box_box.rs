//! Box–box distance: a 15-axis SAT **lower bound**, its refinement to the **exact** distance
//! by GJK, and the cube-specialised SAT for a box against an axis-aligned cube.
//!
//! # Why the SAT value never exceeds the true distance
//!
//! For any unit direction `n`, the projections of the two boxes onto `n` are intervals;
//! the gap between them, `|T·n| − r_A(n) − r_B(n)` (`T` the centre offset,
//! `r_X(n) = Σ_j h_j |e_j · n|` the box's projected half-length), is at most the distance
//! between the boxes, because projecting onto a unit vector never lengthens a segment. The
//! SAT returns the maximum gap over the 15 classical axes (3 face normals of each box and
//! the 9 edge–edge cross products, normalised), so it is a maximum of lower bounds.
//! When the boxes overlap the value is negative, and it is also `<=` the signed distance
//! `−depth`, since the penetration depth is the minimum overlap over *all* directions and
//! the SAT takes it over a subset. It is in fact **equal** to it: the depth of the origin in
//! the polytope `A − B` is its least face-plane distance, and the faces of `A − B` have
//! exactly the 15 axes as normals (a face of one box, or an edge of each). Cross-product axes
//! of (near-)parallel edges (`|e_i × f_j| < 1e-9`) are skipped: skipping an axis only
//! lowers the maximum (the faces they would give are then spanned by the face normals').
//!
//! The deficit of the SAT bound against the exact distance (random pairs) is measured in
//! `docs/kernel.md`: it is zero when a separating axis is a face normal or an edge–edge
//! axis realising the distance, positive when the closest features are e.g. a vertex and an
//! edge not aligned with any tested axis.
//!
//! # Refinement
//!
//! [`box_box_refined`] returns the SAT value when it exceeds `threshold` (far pair: cheap);
//! otherwise it runs GJK on the two boxes and returns `max(SAT, GJK lower bound)` — exact
//! within [`crate::kernel::gjk::TOL_ABS`] on convergence, and a lower bound in every case.
//! In overlap the SAT is already exact and GJK's bound (its scans so far) can only be lower.

use super::gjk::{MAX_ITER, Witness, gjk_distance};
use super::shapes::Obb;
use super::vec3::{V3, col, cross, dot, mul_mtm, mul_mtv, neg, norm, scale, sub};

/// Cross-product axes shorter than this are skipped as (near-)parallel edge pairs.
const PARALLEL_EPS: f64 = 1e-9;

/// SAT over the 15 axes given `R = Aᵀ B` (B's axes in A's frame), `T` (centre offset in
/// A's frame) and the half extents. Returns the bound and the code of the axis attaining it
/// (0–2: A's faces, 3–5: B's faces, 6 + 3i + j: a_i × b_j).
#[inline(always)]
fn sat15(r: &[[f64; 3]; 3], t: V3, ha: V3, hb: V3) -> (f64, u32) {
    let mut ar = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            ar[i][j] = r[i][j].abs();
        }
    }
    let mut best = f64::NEG_INFINITY;
    let mut code = 0u32;
    // A's face normals.
    for i in 0..3 {
        let rb = hb[0] * ar[i][0] + hb[1] * ar[i][1] + hb[2] * ar[i][2];
        let s = t[i].abs() - ha[i] - rb;
        if s > best {
            best = s;
            code = i as u32;
        }
    }
    // B's face normals.
    for j in 0..3 {
        let ra = ha[0] * ar[0][j] + ha[1] * ar[1][j] + ha[2] * ar[2][j];
        let tp = t[0] * r[0][j] + t[1] * r[1][j] + t[2] * r[2][j];
        let s = tp.abs() - ra - hb[j];
        if s > best {
            best = s;
            code = 3 + j as u32;
        }
    }
    // Edge–edge axes a_i × b_j.
    for i in 0..3 {
        let i1 = (i + 1) % 3;
        let i2 = (i + 2) % 3;
        for j in 0..3 {
            let j1 = (j + 1) % 3;
            let j2 = (j + 2) % 3;
            // |a_i × b_j|² = 1 − R_ij² = R_i1j² + R_i2j² for orthonormal frames.
            let len2 = r[i1][j] * r[i1][j] + r[i2][j] * r[i2][j];
            if len2 > PARALLEL_EPS * PARALLEL_EPS {
                let tp = t[i2] * r[i1][j] - t[i1] * r[i2][j];
                let ra = ha[i1] * ar[i2][j] + ha[i2] * ar[i1][j];
                let rb = hb[j1] * ar[i][j2] + hb[j2] * ar[i][j1];
                let s = (tp.abs() - ra - rb) / len2.sqrt();
                if s > best {
                    best = s;
                    code = 6 + 3 * i as u32 + j as u32;
                }
            }
        }
    }
    (best, code)
}

/// The unit world axis of SAT axis `code`, oriented from `a` towards `b`.
fn sat_axis(a: &Obb, b: &Obb, code: u32) -> V3 {
    let axis = match code {
        0..=2 => col(&a.rot, code as usize),
        3..=5 => col(&b.rot, code as usize - 3),
        _ => {
            let c = code as usize - 6;
            let l = cross(col(&a.rot, c / 3), col(&b.rot, c % 3));
            scale(l, 1.0 / norm(l))
        }
    };
    if dot(axis, sub(b.center, a.center)) >= 0.0 {
        axis
    } else {
        neg(axis)
    }
}

/// 15-axis SAT lower bound on the distance between two oriented boxes (see module docs).
#[inline]
pub fn box_box_sat(a: &Obb, b: &Obb) -> f64 {
    let r = mul_mtm(&a.rot, &b.rot);
    let t = mul_mtv(&a.rot, sub(b.center, a.center));
    sat15(&r, t, a.half, b.half).0
}

/// Cube-specialised 15-axis SAT: box `b` against the axis-aligned cube of centre `c` and
/// half side `s`. The cube's frame is the common frame, so `R` is `b.rot` itself and `T`
/// the plain centre offset: no frame product, and the three cube axes are unit by
/// construction. Same bound, same guarantee as [`box_box_sat`].
#[inline]
pub fn box_cube_sat(b: &Obb, c: V3, s: f64) -> f64 {
    let r = &b.rot;
    let t = sub(b.center, c);
    let hb = b.half;
    let mut ar = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            ar[i][j] = r[i][j].abs();
        }
    }
    let mut best = f64::NEG_INFINITY;
    for i in 0..3 {
        let rb = hb[0] * ar[i][0] + hb[1] * ar[i][1] + hb[2] * ar[i][2];
        best = best.max(t[i].abs() - s - rb);
    }
    for j in 0..3 {
        let ra = s * (ar[0][j] + ar[1][j] + ar[2][j]);
        let tp = t[0] * r[0][j] + t[1] * r[1][j] + t[2] * r[2][j];
        best = best.max(tp.abs() - ra - hb[j]);
    }
    for i in 0..3 {
        let i1 = (i + 1) % 3;
        let i2 = (i + 2) % 3;
        for j in 0..3 {
            let j1 = (j + 1) % 3;
            let j2 = (j + 2) % 3;
            let len2 = r[i1][j] * r[i1][j] + r[i2][j] * r[i2][j];
            if len2 > PARALLEL_EPS * PARALLEL_EPS {
                let tp = t[i2] * r[i1][j] - t[i1] * r[i2][j];
                let ra = s * (ar[i2][j] + ar[i1][j]);
                let rb = hb[j1] * ar[i][j2] + hb[j2] * ar[i][j1];
                best = best.max((tp.abs() - ra - rb) / len2.sqrt());
            }
        }
    }
    best
}

/// Box–box distance, refined: SAT when it exceeds `threshold`, else
/// `max(SAT, GJK lower bound)` (exact on convergence). Never above the true distance.
#[inline]
pub fn box_box_refined(a: &Obb, b: &Obb, threshold: f64, warm: Option<&mut Witness>) -> f64 {
    let r = mul_mtm(&a.rot, &b.rot);
    let t = mul_mtv(&a.rot, sub(b.center, a.center));
    let (sat, code) = sat15(&r, t, a.half, b.half);
    if sat > threshold {
        return sat;
    }
    let g = gjk_distance(a, b, sat_axis(a, b, code), warm, MAX_ITER);
    sat.max(g.lower)
}

/// Exact box–box distance by GJK alone (lower bound, exact within tolerance on
/// convergence; `<= 0` on overlap).
#[inline]
pub fn box_box_gjk(a: &Obb, b: &Obb, warm: Option<&mut Witness>) -> f64 {
    gjk_distance(a, b, sub(b.center, a.center), warm, MAX_ITER).lower
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::vec3::{IDENTITY, rot_from_rpy};

    fn aabb(c: V3, h: V3) -> Obb {
        Obb {
            center: c,
            rot: IDENTITY,
            half: h,
        }
    }

    #[test]
    fn face_separated_boxes_are_exact() {
        let a = aabb([0.0; 3], [1.0, 1.0, 1.0]);
        let b = aabb([3.5, 0.2, 0.0], [0.5, 0.5, 0.5]);
        assert!((box_box_sat(&a, &b) - 2.0).abs() < 1e-15);
        assert!((box_box_refined(&a, &b, 10.0, None) - 2.0).abs() < 1e-12);
    }

    #[test]
    fn corner_separation_sat_is_below_exact() {
        // Unit cubes offset diagonally by (3,3,3): exact sqrt(3)·1 = corner gap 1 per axis.
        let a = aabb([0.0; 3], [1.0, 1.0, 1.0]);
        let b = aabb([3.0, 3.0, 3.0], [1.0, 1.0, 1.0]);
        let sat = box_box_sat(&a, &b);
        let exact = box_box_refined(&a, &b, 10.0, None);
        assert!(
            (sat - 1.0).abs() < 1e-15,
            "SAT sees only the axis gap: {sat}"
        );
        assert!((exact - 3f64.sqrt()).abs() < 1e-12, "{exact}");
        assert!(sat <= exact);
    }

    #[test]
    fn edge_edge_axis() {
        // Two long bars crossing at right angles, one rotated 45° about its own length so an
        // edge faces down: the edge–edge axis is z.
        let a = aabb([0.0; 3], [5.0, 0.5, 0.5]);
        let r = rot_from_rpy([
            std::f64::consts::FRAC_PI_4,
            0.0,
            std::f64::consts::FRAC_PI_2,
        ]);
        let b = Obb {
            center: [0.0, 0.0, 2.0],
            rot: r,
            half: [5.0, 0.5, 0.5],
        };
        let exact = 2.0 - 0.5 - 0.5 * 2f64.sqrt();
        assert!((box_box_sat(&a, &b) - exact).abs() < 1e-14);
        assert!((box_box_refined(&a, &b, 10.0, None) - exact).abs() < 1e-12);
    }

    #[test]
    fn overlap_is_negative() {
        let a = aabb([0.0; 3], [1.0, 1.0, 1.0]);
        let b = aabb([1.5, 0.0, 0.0], [1.0, 1.0, 1.0]);
        assert!((box_box_sat(&a, &b) + 0.5).abs() < 1e-15);
        assert!(box_box_refined(&a, &b, 0.0, None) <= 0.0);
    }

    #[test]
    fn cube_sat_matches_general_sat() {
        let b = Obb {
            center: [0.3, -0.2, 0.9],
            rot: rot_from_rpy([0.4, -1.1, 2.0]),
            half: [0.2, 0.05, 0.3],
        };
        let c = [0.0125, 0.0375, 0.3125];
        let s = 0.0125;
        let general = box_box_sat(&aabb(c, [s, s, s]), &b);
        let cube = box_cube_sat(&b, c, s);
        assert!((general - cube).abs() < 1e-15, "{general} {cube}");
    }
}
