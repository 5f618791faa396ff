//! Written values: every number at 4 decimals (0.1 mm, 0.1 mrad), rounded
//! outward where containment depends on it.
//!
//! A grid value is `k / 10^4` computed as `(k as f64) / 1e4`, the f64 nearest
//! the decimal `k·10⁻⁴`, which is exactly what parsing the written text gives
//! back. So the values fitted here *are* the values a reader parses, and the
//! proof runs on them.
//!
//! - positions (capsule ends, box centres, hull vertices): nearest;
//! - rotations: rpy nearest, then everything else re-derived in the frame
//!   rebuilt from the rounded rpy (R = Rz(yaw)·Ry(pitch)·Rx(roll));
//! - radii, half extents, DOP support values: up (smallest grid value >= the
//!   exact requirement);
//! - hull vertices: nearest, after padding the hull by `headroom +`
//!   [`ROUND_SLACK`], the furthest rounding can move a point, so the rounded
//!   hull still holds the truth with `headroom`.

use crate::geom::capsule::{self, Capsule};
use crate::geom::chain::Cuts;
use crate::geom::dop26;
use crate::geom::obb;
use crate::geom::v3::{self, Mat3, V3};

/// Grid steps per metre of the written values (4 decimals). A power of ten is exact in
/// f64, so `k / STEPS` is the value that parsing the decimal text gives back.
pub const STEPS: f64 = 1e4;
/// Grid steps per metre of tight hull vertices (6 decimals, 1 µm): finer than the other
/// numbers, so an exact hull needs almost no padding to survive rounding.
pub const HULL_STEPS: f64 = crate::geom::containment::HULL_GRID_STEPS;
/// The written resolution.
pub const QUANTUM: f64 = 1.0 / STEPS;
/// The written resolution of tight hull vertices.
pub const HULL_QUANTUM: f64 = 1.0 / HULL_STEPS;
/// [`ROUND_SLACK`] at the hull resolution.
pub const HULL_ROUND_SLACK: f64 = 0.5 * HULL_QUANTUM * 1.732_050_807_568_877_2 + 1e-9;
/// How far rounding each coordinate to the nearest grid value can move a point
/// (half a quantum per axis, times √3), plus a nanometre for arithmetic.
pub const ROUND_SLACK: f64 = 0.5 * QUANTUM * 1.732_050_807_568_877_2 + 1e-9;

#[inline]
fn grid(k: f64) -> f64 {
    let v = k / STEPS;
    if v == 0.0 { 0.0 } else { v }
}

/// Nearest grid value (4 decimals), never `-0.0`.
#[inline]
pub fn round4(x: f64) -> f64 {
    grid((x * STEPS).round())
}

/// Smallest grid value `>= x`.
pub fn ceil4(x: f64) -> f64 {
    let mut k = (x * STEPS).ceil();
    while grid(k) < x {
        k += 1.0;
    }
    while grid(k - 1.0) >= x {
        k -= 1.0;
    }
    grid(k)
}

/// Largest grid value `<= x`.
pub fn floor4(x: f64) -> f64 {
    -ceil4(-x) + 0.0
}

/// Nearest value on the hull grid (6 decimals), never `-0.0`: `k / 10^6`,
/// exactly what parsing the written text gives back.
#[inline]
pub fn round6(x: f64) -> f64 {
    let v = (x * HULL_STEPS).round() / HULL_STEPS;
    if v == 0.0 { 0.0 } else { v }
}

pub fn round6_v(v: V3) -> V3 {
    [round6(v[0]), round6(v[1]), round6(v[2])]
}

pub fn round4_v(v: V3) -> V3 {
    [round4(v[0]), round4(v[1]), round4(v[2])]
}

/// A written box: centre and rpy at 4 decimals, half extents rounded up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoxPrim {
    pub center: V3,
    /// `[roll, pitch, yaw]`, R = Rz(yaw)·Ry(pitch)·Rx(roll), box frame to link frame.
    pub rpy: V3,
    pub half_extents: V3,
}

impl BoxPrim {
    /// The rotation exactly as a reader rebuilds it from the written rpy.
    pub fn rotation(&self) -> Mat3 {
        v3::rot_from_rpy(self.rpy)
    }
    pub fn volume(&self) -> f64 {
        8.0 * self.half_extents[0] * self.half_extents[1] * self.half_extents[2]
    }
}

/// The frame a reader will rebuild from `rot`'s rpy rounded to 4 decimals.
pub fn rounded_frame(rot: &Mat3) -> (V3, Mat3) {
    let rpy = round4_v(v3::rpy_from_rot(rot));
    (rpy, v3::rot_from_rpy(rpy))
}

/// Slab cuts at 4 decimals: normal components and offsets rounded, so a fit
/// carries only written values (the normal need not be unit; a plane is
/// `normal . x = offset` all the same). Fits split their pieces with the
/// rounded cuts. `None` when rounding collapses the normal or two offsets.
pub fn written_cuts(c: &Cuts) -> Option<Cuts> {
    let normal = round4_v(c.normal);
    if v3::norm(normal) < 0.5 {
        return None;
    }
    let offsets: Vec<f64> = c.offsets.iter().map(|o| round4(*o)).collect();
    if offsets.windows(2).any(|w| w[1] <= w[0]) {
        return None;
    }
    Some(Cuts { normal, offsets })
}

/// Written capsule: ends rounded, radius re-derived from every point of `points`
/// for the rounded segment, plus `headroom`, rounded up.
pub fn written_capsule(c: &Capsule, points: &[V3], headroom: f64) -> Capsule {
    let a = round4_v(c.a);
    let b = round4_v(c.b);
    let reach = points
        .iter()
        .map(|p| capsule::dist_to_segment(*p, a, b))
        .fold(0.0, f64::max);
    Capsule {
        a,
        b,
        radius: ceil4(reach + headroom),
    }
}

/// Written box in the rounded version of frame `rot`: holds every point of
/// `points` with `headroom` and every point of `inner` (already padded, e.g. a
/// tight hull) with none; centred on those extents, centre rounded, half
/// extents re-derived about the rounded centre and rounded up.
pub fn written_box(rot: &Mat3, points: &[V3], headroom: f64, inner: &[V3]) -> BoxPrim {
    let (rpy, r) = rounded_frame(rot);
    let (mut lo, mut hi) = obb::extents(points, &r);
    for k in 0..3 {
        lo[k] -= headroom;
        hi[k] += headroom;
    }
    if !inner.is_empty() {
        let (ilo, ihi) = obb::extents(inner, &r);
        for k in 0..3 {
            lo[k] = lo[k].min(ilo[k]);
            hi[k] = hi[k].max(ihi[k]);
        }
    }
    let mid = [
        (lo[0] + hi[0]) / 2.0,
        (lo[1] + hi[1]) / 2.0,
        (lo[2] + hi[2]) / 2.0,
    ];
    let center = round4_v(v3::mul_mv(&r, mid));
    let mut need = [0.0f64; 3];
    for p in points {
        let l = dop26::to_box(center, &r, *p);
        for k in 0..3 {
            need[k] = need[k].max(l[k].abs() + headroom);
        }
    }
    for p in inner {
        let l = dop26::to_box(center, &r, *p);
        for k in 0..3 {
            need[k] = need[k].max(l[k].abs());
        }
    }
    BoxPrim {
        center,
        rpy,
        half_extents: [ceil4(need[0]), ceil4(need[1]), ceil4(need[2])],
    }
}

/// Written 26-DOP of the (written) hull vertices in the written box's frame:
/// exact support values rounded up. Axis entries never exceed the box's half
/// extents when the box holds the hull (same arithmetic, same rounding).
pub fn written_dop(b: &BoxPrim, hull: &[V3]) -> [f64; 26] {
    let r = b.rotation();
    let exact = dop26::support_values(hull, b.center, &r);
    let mut d = [0.0; 26];
    for (o, e) in d.iter_mut().zip(exact) {
        *o = ceil4(e);
    }
    d
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_quanta_are_the_decimal_literals() {
        assert_eq!(super::QUANTUM, 1e-4);
        assert_eq!(super::HULL_QUANTUM, 1e-6);
        assert_eq!(super::ROUND_SLACK, 0.5e-4 * 1.732_050_807_568_877_2 + 1e-9);
        assert_eq!(
            super::HULL_ROUND_SLACK,
            0.5e-6 * 1.732_050_807_568_877_2 + 1e-9
        );
    }

    use super::*;

    #[test]
    fn round_and_outward() {
        assert_eq!(round4(0.12344), 0.1234);
        assert_eq!(round4(-0.00001), 0.0);
        assert!(round4(-0.00001).is_sign_positive());
        assert_eq!(ceil4(0.12341), 0.1235);
        assert_eq!(ceil4(0.1234), 0.1234);
        assert_eq!(ceil4(-0.12349), -0.1234);
        assert_eq!(floor4(0.12349), 0.1234);
        assert_eq!(floor4(-0.12341), -0.1235);
        // Grid values survive a print/parse round trip bit-for-bit.
        for x in [0.1234, -3.1417, 12.0001, 0.0003] {
            let s = format!("{:.4}", round4(x));
            assert_eq!(s.parse::<f64>().unwrap(), round4(x));
        }
        // Ceil is never below its argument, however the product rounds.
        for i in 0..10000 {
            let x = i as f64 * 0.000_123_456_7 - 0.3;
            assert!(ceil4(x) >= x && ceil4(x) - x < 1e-4 + 1e-15);
            assert!(floor4(x) <= x && x - floor4(x) < 1e-4 + 1e-15);
        }
    }

    #[test]
    fn written_capsule_rounds_radius_up() {
        let pts = [[0.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.012_34, 0.0, 0.5]];
        let c = Capsule {
            a: [0.0, 0.0, 0.0],
            b: [0.0, 0.0, 1.0],
            radius: 0.0,
        };
        let w = written_capsule(&c, &pts, 0.001);
        assert_eq!(w.radius, 0.0134);
        for p in pts {
            assert!(w.depth(p) >= 0.001 - 1e-15);
        }
    }

    #[test]
    fn written_box_holds_points_in_rounded_frame() {
        let rot = v3::rot_from_rpy([0.123_456, -0.654_321, 1.111_111]);
        let pts: Vec<V3> = (0..50)
            .map(|i| {
                let t = i as f64;
                v3::mul_mv(
                    &rot,
                    [
                        0.3 * (t * 0.7).sin(),
                        0.1 * (t * 1.3).cos(),
                        0.05 * (t * 2.1).sin(),
                    ],
                )
            })
            .collect();
        let b = written_box(&rot, &pts, 0.001, &[]);
        for x in b.rpy.iter().chain(&b.center).chain(&b.half_extents) {
            assert_eq!(*x, round4(*x));
        }
        let r = b.rotation();
        for p in &pts {
            assert!(obb::box_depth(b.center, &r, b.half_extents, *p) >= 0.001 - 1e-12);
        }
    }
}
