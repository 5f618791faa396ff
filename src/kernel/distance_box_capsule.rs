//! Box–capsule distance: **exact** (up to floating-point rounding), in closed form.
//!
//! In the box frame the box is `[−h, h]` and the capsule core is `p(t) = p0 + t·u`,
//! `t ∈ [0, 1]`. The squared point–box distance is
//! `g(t) = Σ_i max(|p_i(t)| − h_i, 0)²`. Each term is a convex non-decreasing function
//! (`max(·, 0)²`) of a convex function (`|p_i(t)| − h_i`), so `g` is convex; it is a
//! quadratic on each interval between the at most six breakpoints where some `p_i(t) = ±h_i`.
//! The routine sorts the breakpoints and walks the intervals in order: on the first interval
//! whose quadratic has a non-negative slope at its right end, convexity puts the global
//! minimiser in that interval at the quadratic's vertex clamped to it (every earlier interval
//! ended with a negative slope, every later one starts with a non-negative slope). The value
//! is then evaluated with the plain point–box formula at that `t`. No search, no iteration
//! count: at most seven intervals, each O(1).
//!
//! Result: `sqrt(g(t*)) − radius`. Overlap: when the core segment meets the box the value is
//! `−radius <= 0`; when only the rounded part overlaps it is in `(−radius, 0]`. It is not a
//! penetration depth.

use super::shapes::Obb;
use super::vec3::{V3, mul_mtv, mul_mv, sub};

/// Squared distance from the point `p` to the box `[−h, h]`.
#[inline(always)]
pub fn point_box_sq(p: V3, h: V3) -> f64 {
    let mut d2 = 0.0;
    for i in 0..3 {
        let e = p[i].abs() - h[i];
        if e > 0.0 {
            d2 += e * e;
        }
    }
    d2
}

/// Squared distance between the segment `p0 + t·u` (`t ∈ [0,1]`) and the box `[−h, h]`,
/// with the minimising `t`.
#[inline(always)]
pub fn segment_box_sq(p0: V3, u: V3, h: V3) -> (f64, f64) {
    let mut bp = [0.0f64; 7];
    let mut n = 0usize;
    for i in 0..3 {
        if u[i] != 0.0 {
            let inv = 1.0 / u[i];
            let t1 = (-h[i] - p0[i]) * inv;
            let t2 = (h[i] - p0[i]) * inv;
            if t1 > 0.0 && t1 < 1.0 {
                bp[n] = t1;
                n += 1;
            }
            if t2 > 0.0 && t2 < 1.0 {
                bp[n] = t2;
                n += 1;
            }
        }
    }
    // At most six finite values (in (0, 1)); `sort_unstable_by` does not allocate.
    bp[..n].sort_unstable_by(f64::total_cmp);
    // Interval right ends: the sorted breakpoints, then 1.
    bp[n] = 1.0;
    let mut lo = 0.0;
    let mut t_best = 1.0;
    for &hi in &bp[..=n] {
        let mid = 0.5 * (lo + hi);
        // Quadratic on this interval: Σ_active (p0_i − s_i h_i + t u_i)²; slope/2 = qa·t + qb.
        let mut qa = 0.0;
        let mut qb = 0.0;
        for i in 0..3 {
            let pm = p0[i] + mid * u[i];
            if pm > h[i] {
                qa += u[i] * u[i];
                qb += u[i] * (p0[i] - h[i]);
            } else if pm < -h[i] {
                qa += u[i] * u[i];
                qb += u[i] * (p0[i] + h[i]);
            }
        }
        if qa == 0.0 {
            // Constant on this interval and non-increasing before it: minimum reached.
            t_best = mid;
            break;
        }
        if qa * hi + qb >= 0.0 {
            t_best = (-qb / qa).clamp(lo, hi);
            break;
        }
        lo = hi;
    }
    let p = [
        p0[0] + t_best * u[0],
        p0[1] + t_best * u[1],
        p0[2] + t_best * u[2],
    ];
    (point_box_sq(p, h), t_best)
}

/// Exact distance between box `b` and the capsule with core `a`–`c` and radius `r`, all in
/// one common frame; `<= 0` on overlap (see module docs).
#[inline]
pub fn box_capsule(b: &Obb, a: V3, c: V3, r: f64) -> f64 {
    let p0 = mul_mtv(&b.rot, sub(a, b.center));
    let p1 = mul_mtv(&b.rot, sub(c, b.center));
    let (d2, _) = segment_box_sq(p0, sub(p1, p0), b.half);
    d2.sqrt() - r
}

/// [`box_capsule`] and the world direction from the box's nearest point towards the
/// capsule core's nearest point (zero when the core meets the box): a GJK seed direction.
#[inline]
pub fn box_capsule_dir(b: &Obb, a: V3, c: V3, r: f64) -> (f64, V3) {
    let p0 = mul_mtv(&b.rot, sub(a, b.center));
    let p1 = mul_mtv(&b.rot, sub(c, b.center));
    let u = sub(p1, p0);
    let (d2, t) = segment_box_sq(p0, u, b.half);
    let p = [p0[0] + t * u[0], p0[1] + t * u[1], p0[2] + t * u[2]];
    let q = [
        p[0].clamp(-b.half[0], b.half[0]),
        p[1].clamp(-b.half[1], b.half[1]),
        p[2].clamp(-b.half[2], b.half[2]),
    ];
    (d2.sqrt() - r, mul_mv(&b.rot, sub(p, q)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::vec3::{IDENTITY, rot_from_rpy};

    fn unit() -> Obb {
        Obb {
            center: [0.0; 3],
            rot: IDENTITY,
            half: [1.0, 1.0, 1.0],
        }
    }

    #[test]
    fn segment_above_face() {
        let d = box_capsule(&unit(), [-5.0, 0.3, 3.0], [5.0, 0.3, 3.0], 0.5);
        assert!((d - 1.5).abs() < 1e-15);
    }

    #[test]
    fn segment_past_edge() {
        // Line x = 2, z = 2 along y: nearest the edge x=1,z=1: sqrt(2).
        let d = box_capsule(&unit(), [2.0, -4.0, 2.0], [2.0, 4.0, 2.0], 0.0);
        assert!((d - 2f64.sqrt()).abs() < 1e-15);
    }

    #[test]
    fn diagonal_segment_past_corner() {
        // p(t) = (2,2,2) + t(1,-1,0)*4 - (2,-2,0): passes (2,2,2) at t=0.5; nearest corner
        // (1,1,1) distance sqrt(3).
        let d = box_capsule(&unit(), [0.0, 4.0, 2.0], [4.0, 0.0, 2.0], 0.0);
        // Minimise over t: point (4t, 4-4t, 2): excess (4t-1)+,(3-4t)+,1 -> t=0.5: (1,1,1).
        assert!((d - 3f64.sqrt()).abs() < 1e-14, "{d}");
    }

    #[test]
    fn segment_through_box_is_minus_radius() {
        let d = box_capsule(&unit(), [-3.0, 0.0, 0.0], [3.0, 0.1, 0.2], 0.25);
        assert_eq!(d, -0.25);
    }

    #[test]
    fn endpoint_nearest_and_zero_length() {
        let d = box_capsule(&unit(), [4.0, 0.0, 0.0], [9.0, 1.0, 0.0], 0.0);
        assert!((d - 3.0).abs() < 1e-15);
        let d = box_capsule(&unit(), [4.0, 5.0, 1.0], [4.0, 5.0, 1.0], 1.0);
        assert!((d - 4.0).abs() < 1e-15);
    }

    #[test]
    fn rotated_box() {
        // A box rotated 45° about z: its corner reaches sqrt(2) along x.
        let b = Obb {
            center: [1.0, 0.0, 0.0],
            rot: rot_from_rpy([0.0, 0.0, std::f64::consts::FRAC_PI_4]),
            half: [1.0, 1.0, 0.1],
        };
        let d = box_capsule(&b, [4.0, -1.0, 0.0], [4.0, 1.0, 0.0], 0.1);
        assert!((d - (3.0 - 2f64.sqrt() - 0.1)).abs() < 1e-14, "{d}");
    }
}
