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
//! Result: `sqrt(g(t*)) − radius` when the core segment misses the box: the exact distance,
//! and when only the rounded part overlaps, the exact signed distance (a capsule is
//! `segment ⊕ ball(r)`, so its signed distance to any convex solid is the core's minus `r`,
//! and the core's is its distance while it misses the box).
//!
//! # Core meeting the box: the depth, by six axes
//!
//! When `g(t*) = 0` the core meets the box and the value is `sat − radius`, with `sat` the
//! separating-axis value of the segment against the box over six axes: the three box axes
//! and the three cross products `e_i × u` (skipped when shorter than `1e-9 |u|`, parallel).
//! It is the **exact signed distance** of box and core, `−depth`: the difference
//! `box − segment` is a polytope whose faces are the box's faces (swept) and the
//! parallelograms of a box edge and the segment, with exactly those normals, and the
//! penetration depth of the origin in a polytope is its least face-plane distance, the least
//! overlap over the face normals. Along any unit `n` the one-sided gap is a lower bound on
//! the signed distance, so the value is a lower bound whatever the rounding; skipping an axis
//! only lowers it. (Before this, the value was `−radius`: the segment's depth was taken as 0,
//! above the truth whenever the core lay inside the box, issue 22.)
//!
//! Rounding: the closed form decides "meets" from a computed nearest point, which for a flat
//! box (a zero half extent) crossed by the core can come out `1e-17` off the box while the
//! true signed distance is minus a large depth. So a computed distance at most `1e-12` times
//! the coordinates' magnitude is replaced by the smaller of it and the six-axis value (a
//! lower bound in every case): pairs that near are bounded, not only measured. Apart by more,
//! nothing changes.

use super::shapes::Obb;
use super::vec3::{V3, mul_mtv, mul_mv, norm2, sub};

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

/// Cross-product axes shorter than this times the segment's length are skipped (the
/// segment is parallel to that box axis).
const PARALLEL_EPS: f64 = 1e-9;

/// Relative size (of the coordinates) below which a computed core–box distance is rounding
/// and the six axes bound the pair too (module docs).
pub(crate) const NEAR_REL: f64 = 1e-12;

/// Six-axis separating value of the segment `p0 + t·u` (`t ∈ [0,1]`) against the box
/// `[−h, h]`: a lower bound on their signed distance, equal to it when they meet (module
/// docs).
#[inline(never)]
pub fn segment_box_sat(p0: V3, u: V3, h: V3) -> f64 {
    let p1 = [p0[0] + u[0], p0[1] + u[1], p0[2] + u[2]];
    let mut best = f64::NEG_INFINITY;
    // Box axes: the segment's projection is [min(p0_i, p1_i), max(p0_i, p1_i)].
    for i in 0..3 {
        let lo = p0[i].min(p1[i]);
        let hi = p0[i].max(p1[i]);
        best = best.max((lo - h[i]).max(-h[i] - hi));
    }
    // e_i × u: the segment projects to the single value p0 · n.
    let uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
    for i in 0..3 {
        let (j, k) = ((i + 1) % 3, (i + 2) % 3);
        // n = e_i × u: n_i = 0, n_j = −u_k, n_k = u_j.
        let len2 = u[j] * u[j] + u[k] * u[k];
        if len2 > PARALLEL_EPS * PARALLEL_EPS * uu {
            let proj = p0[k] * u[j] - p0[j] * u[k];
            let rb = h[j] * u[k].abs() + h[k] * u[j].abs();
            best = best.max((proj.abs() - rb) / len2.sqrt());
        }
    }
    best
}

/// The core–box signed distance from the closed form's squared distance `d2`: `√d2` when
/// it is clearly positive, else the smaller of it and the six-axis value (module docs).
#[inline(always)]
fn core_box_signed(p0: V3, u: V3, h: V3, d2: f64) -> f64 {
    // The coordinates' magnitude, squared (within a factor 3 of the largest one's square).
    let scale2 = norm2(p0) + norm2(u) + norm2(h);
    if d2 > NEAR_REL * NEAR_REL * scale2 {
        d2.sqrt()
    } else {
        segment_box_sat(p0, u, h).min(d2.sqrt())
    }
}

/// Exact signed distance between box `b` and the capsule with core `a`–`c` and radius `r`,
/// all in one common frame: the distance when apart, minus the penetration depth in overlap
/// (see module docs).
#[inline]
pub fn box_capsule(b: &Obb, a: V3, c: V3, r: f64) -> f64 {
    let p0 = mul_mtv(&b.rot, sub(a, b.center));
    let p1 = mul_mtv(&b.rot, sub(c, b.center));
    let u = sub(p1, p0);
    let (d2, _) = segment_box_sq(p0, u, b.half);
    core_box_signed(p0, u, b.half, d2) - r
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
    (
        core_box_signed(p0, u, b.half, d2) - r,
        mul_mv(&b.rot, sub(p, q)),
    )
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
    fn segment_through_box_is_minus_depth_and_radius() {
        // Through the unit box along x (y from 0 to 0.1, z = 0.2). Out along +z takes
        // 1 − 0.2 = 0.8, along +y 1, along x 4; the cross axes e_x × u and e_y × u are z
        // again and e_z × u needs 0.97. Depth 0.8.
        let d = box_capsule(&unit(), [-3.0, 0.0, 0.2], [3.0, 0.1, 0.2], 0.25);
        assert!((d - (-0.8 - 0.25)).abs() < 1e-15, "{d}");
    }

    #[test]
    fn point_inside_box_has_its_face_depth() {
        // A ball at (0.3, -0.6, 0.1) in the unit box: nearest face y = −1 at 0.4.
        let d = box_capsule(&unit(), [0.3, -0.6, 0.1], [0.3, -0.6, 0.1], 0.1);
        assert!((d - (-0.4 - 0.1)).abs() < 1e-15, "{d}");
    }

    #[test]
    fn diagonal_segment_inside_needs_a_cross_axis() {
        // A short diagonal segment near the box's edge x = y = 1, lying along (1, -1, 0):
        // from (0.7, 0.9, 0) to (0.9, 0.7, 0). Face axes: out along +x needs 1 − 0.7 = 0.3,
        // along +y 0.3. The cross axis e_z × u ∝ (1, 1, 0)/√2: the segment sits at
        // (0.7 + 0.9)/√2 = 1.1314, the box reaches √2 = 1.4142 there: 0.2828 < 0.3.
        let d = box_capsule(&unit(), [0.7, 0.9, 0.0], [0.9, 0.7, 0.0], 0.0);
        let want = 1.6 / 2f64.sqrt() - 2f64.sqrt();
        assert!((d - want).abs() < 1e-15, "{d} vs {want}");
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
