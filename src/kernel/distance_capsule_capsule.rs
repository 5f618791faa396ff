//! Capsule–capsule distance: **exact** (up to floating-point rounding).
//!
//! The distance between two capsules is the distance between their core segments minus the
//! two radii; the segment–segment distance is found in closed form by minimising
//! `|P(s) − Q(t)|²` over `[0,1]²`: the unconstrained line–line optimum is clamped to the
//! square and each parameter re-optimised against the other once clamped, which reaches the
//! constrained minimum because the objective is a convex quadratic. Parallel segments
//! (`|d1 × d2| = 0`) take `s = 0` and optimise `t`, then re-optimise `s`; zero-length
//! segments reduce to point–segment or point–point.
//!
//! Overlap: when the segments are closer than `r1 + r2` the value is
//! `|P − Q| − r1 − r2 <= 0` (0 exactly at touching), and this is the **exact signed
//! distance**, minus the penetration depth: the capsules' difference is the segments'
//! difference (a parallelogram, flat) grown by a ball of radius `r1 + r2`, so its depth is
//! `r1 + r2` minus the distance from the origin to that flat set, which is `|P − Q|` (0 when
//! the segments cross).

use super::vec3::{V3, dot, norm2, sub};

/// Squared distance between segments `p0`–`p1` and `q0`–`q1`, with the parameters
/// `(s, t)` of the closest points `p0 + s (p1 − p0)` and `q0 + t (q1 − q0)`.
#[inline(always)]
pub fn segment_segment_sq(p0: V3, p1: V3, q0: V3, q1: V3) -> (f64, f64, f64) {
    let d1 = sub(p1, p0);
    let d2 = sub(q1, q0);
    let r = sub(p0, q0);
    let a = norm2(d1);
    let e = norm2(d2);
    let f = dot(d2, r);
    let (s, t);
    if a <= 0.0 {
        s = 0.0;
        t = if e <= 0.0 {
            0.0
        } else {
            (f / e).clamp(0.0, 1.0)
        };
    } else {
        let c = dot(d1, r);
        if e <= 0.0 {
            t = 0.0;
            s = (-c / a).clamp(0.0, 1.0);
        } else {
            let b = dot(d1, d2);
            let denom = a * e - b * b;
            let s0 = if denom > 0.0 {
                ((b * f - c * e) / denom).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let t0 = (b * s0 + f) / e;
            if t0 < 0.0 {
                t = 0.0;
                s = (-c / a).clamp(0.0, 1.0);
            } else if t0 > 1.0 {
                t = 1.0;
                s = ((b - c) / a).clamp(0.0, 1.0);
            } else {
                t = t0;
                s = s0;
            }
        }
    }
    let dx = [
        r[0] + s * d1[0] - t * d2[0],
        r[1] + s * d1[1] - t * d2[1],
        r[2] + s * d1[2] - t * d2[2],
    ];
    (norm2(dx), s, t)
}

/// Exact signed distance between capsule `(a0, a1, ra)` and capsule `(b0, b1, rb)`: the
/// distance apart, minus the penetration depth in overlap (see module docs).
#[inline]
pub fn capsule_capsule(a0: V3, a1: V3, ra: f64, b0: V3, b1: V3, rb: f64) -> f64 {
    let (d2, _, _) = segment_segment_sq(a0, a1, b0, b1);
    d2.sqrt() - ra - rb
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crossing_perpendicular() {
        // x-axis segment and a y-parallel segment 2 above it: distance 2 - radii.
        let d = capsule_capsule(
            [-1.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            0.1,
            [0.0, -1.0, 2.0],
            [0.0, 1.0, 2.0],
            0.2,
        );
        assert!((d - 1.7).abs() < 1e-15);
    }

    #[test]
    fn parallel_overlapping_projection() {
        let d = capsule_capsule(
            [0.0, 0.0, 0.0],
            [2.0, 0.0, 0.0],
            0.0,
            [1.0, 3.0, 4.0],
            [5.0, 3.0, 4.0],
            0.0,
        );
        assert!((d - 5.0).abs() < 1e-15);
    }

    #[test]
    fn parallel_disjoint_projection() {
        // End (2,0,0) to start (3,0,1): sqrt(2).
        let d = capsule_capsule(
            [0.0, 0.0, 0.0],
            [2.0, 0.0, 0.0],
            0.0,
            [3.0, 0.0, 1.0],
            [6.0, 0.0, 1.0],
            0.0,
        );
        assert!((d - 2f64.sqrt()).abs() < 1e-15);
        // Anti-parallel orientation gives the same answer.
        let d2 = capsule_capsule(
            [2.0, 0.0, 0.0],
            [0.0, 0.0, 0.0],
            0.0,
            [6.0, 0.0, 1.0],
            [3.0, 0.0, 1.0],
            0.0,
        );
        assert!((d2 - 2f64.sqrt()).abs() < 1e-15);
    }

    #[test]
    fn zero_length_cases() {
        // Sphere against sphere.
        let d = capsule_capsule(
            [0.0; 3],
            [0.0; 3],
            0.5,
            [3.0, 4.0, 0.0],
            [3.0, 4.0, 0.0],
            0.5,
        );
        assert!((d - 4.0).abs() < 1e-15);
        // Sphere against segment, nearest to the interior.
        let d = capsule_capsule(
            [1.0, 2.0, 0.0],
            [1.0, 2.0, 0.0],
            0.0,
            [0.0; 3],
            [4.0, 0.0, 0.0],
            0.0,
        );
        assert!((d - 2.0).abs() < 1e-15);
        // Segment against sphere, nearest to an end.
        let d = capsule_capsule(
            [0.0; 3],
            [4.0, 0.0, 0.0],
            0.0,
            [7.0, 4.0, 0.0],
            [7.0, 4.0, 0.0],
            0.0,
        );
        assert!((d - 5.0).abs() < 1e-15);
    }

    #[test]
    fn overlap_is_non_positive_and_touching_is_zero() {
        let d = capsule_capsule(
            [0.0; 3],
            [1.0, 0.0, 0.0],
            0.5,
            [0.5, -1.0, 0.0],
            [0.5, 1.0, 0.0],
            0.5,
        );
        assert!((d + 1.0).abs() < 1e-15);
        let d = capsule_capsule(
            [0.0; 3],
            [1.0, 0.0, 0.0],
            0.5,
            [0.5, 1.0, -1.0],
            [0.5, 1.0, 1.0],
            0.5,
        );
        assert_eq!(d, 0.0);
    }
}
