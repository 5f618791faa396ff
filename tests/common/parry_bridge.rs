//! The kernel's plain arrays as parry3d-f64 values, for the oracle tests.
#![allow(dead_code)]

use collide::kernel::vec3::{Mat3, V3, sub};
use parry3d_f64::math::{Matrix, Pose, Rotation, Vector};
use parry3d_f64::query;
use parry3d_f64::shape::SupportMap;

pub fn pv(v: V3) -> Vector {
    Vector::new(v[0], v[1], v[2])
}

/// A pose from a centre and a row-major rotation whose columns are the frame's axes.
pub fn ppose(c: V3, r: &Mat3) -> Pose {
    let m = Matrix::from_cols(
        Vector::new(r[0][0], r[1][0], r[2][0]),
        Vector::new(r[0][1], r[1][1], r[2][1]),
        Vector::new(r[0][2], r[1][2], r[2][2]),
    );
    Pose::from_parts(pv(c), Rotation::from_mat3(&m).normalize())
}

/// A point cloud as a support map (its convex hull), by a full scan.
pub struct Cloud(pub Vec<Vector>);

impl SupportMap for Cloud {
    fn local_support_point(&self, dir: Vector) -> Vector {
        let mut best = self.0[0];
        let mut bd = best.dot(dir);
        for p in &self.0[1..] {
            let d = p.dot(dir);
            if d > bd {
                bd = d;
                best = *p;
            }
        }
        best
    }
}

/// parry's GJK from its default start and from six axis starts; the smallest (each is the
/// distance between two points of the solids, an upper estimate of the truth).
pub fn gjk_multi<G1: SupportMap, G2: SupportMap>(pos12: &Pose, g1: &G1, g2: &G2) -> f64 {
    let mut best = query::details::distance_support_map_support_map(pos12, g1, g2);
    for d in [
        Vector::X,
        -Vector::X,
        Vector::Y,
        -Vector::Y,
        Vector::Z,
        -Vector::Z,
    ] {
        let mut simplex = query::gjk::VoronoiSimplex::new();
        let v = query::details::distance_support_map_support_map_with_params(
            pos12,
            g1,
            g2,
            &mut simplex,
            Some(d),
        );
        best = best.min(v);
    }
    best
}

/// Box–segment oracle: the smaller of two independent upper estimates, parry's GJK (when
/// positive; its zero is an overlap verdict that can be wrong by ~2e-5 m) and a
/// 200-step ternary search over parry's exact point–cuboid projection (the point–box
/// distance is convex along the segment, so the search converges to the minimum; it is an
/// oracle, not a kernel routine). parry's GJK alone stalls above the truth by up to ~2e-5 m
/// on flat boxes.
/// Independent exact segment–segment distance by enumeration: the interior stationary
/// point of the convex quadratic (when inside the square) and the optimum on each of the four
/// edges of the parameter square; the minimum over these candidates.
pub fn enum_seg_seg(a0: V3, a1: V3, b0: V3, b1: V3) -> f64 {
    let d1 = sub(a1, a0);
    let d2 = sub(b1, b0);
    let r = sub(a0, b0);
    let dot = |x: V3, y: V3| x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
    let (a, b, c, d, e) = (
        dot(d1, d1),
        dot(d1, d2),
        dot(d2, d2),
        dot(d1, r),
        dot(d2, r),
    );
    let sq = |s: f64, t: f64| {
        let v = [
            r[0] + s * d1[0] - t * d2[0],
            r[1] + s * d1[1] - t * d2[1],
            r[2] + s * d1[2] - t * d2[2],
        ];
        dot(v, v)
    };
    let cl = |x: f64| {
        if x.is_finite() {
            x.clamp(0.0, 1.0)
        } else {
            0.0
        }
    };
    let mut best = f64::INFINITY;
    let den = a * c - b * b;
    if den > 0.0 {
        let s = (b * e - c * d) / den;
        let t = (a * e - b * d) / den;
        if (0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t) {
            best = best.min(sq(s, t));
        }
    }
    for s in [0.0, 1.0] {
        best = best.min(sq(s, if c > 0.0 { cl((b * s + e) / c) } else { 0.0 }));
    }
    for t in [0.0, 1.0] {
        best = best.min(sq(if a > 0.0 { cl((b * t - d) / a) } else { 0.0 }, t));
    }
    best.sqrt()
}
