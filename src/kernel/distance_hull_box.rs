//! Tight–box distance (refined link against a plain box link): staged **lower bound**, exact
//! on convergence.
//!
//! Stage 1: `max(15-axis box SAT, 26-DOP SAT against the box's own DOP)`; the box's DOP is
//! exact for it (faces `h_i`, edges `(h_i + h_j)/√2`, corners `Σh/√3`), and the hull lies in
//! the refined link's box and DOP, so both are lower bounds. Stage 2, only when stage 1 is at
//! most the threshold: GJK of the hull against the box (closed-form box support). Result
//! `max(stage 1, GJK lower bound)`. Overlap: GJK is followed by the expanding polytope
//! ([`super::gjk::gjk_cso_depth`]): a lower bound on the signed distance, within the GJK
//! tolerance of minus the depth on convergence.

use super::distance_box_box::box_box_sat;
use super::distance_hull_hull::TightPosed;
use super::dop26::{Dop26, dop_dop_lower_bound};
use super::gjk::{DepthLimits, Staged, Witness, gjk_in_hull_frame_depth};
use super::shapes::Obb;
use super::vec3::sub;

/// The 26 support values of a box with half extents `h`, in its own frame.
pub fn box_dop(h: [f64; 3]) -> Dop26 {
    let s2 = std::f64::consts::FRAC_1_SQRT_2;
    let s3 = 1.0 / 3f64.sqrt();
    let mut d = [0.0; 26];
    d[0] = h[0];
    d[1] = h[0];
    d[2] = h[1];
    d[3] = h[1];
    d[4] = h[2];
    d[5] = h[2];
    d[6..10].fill((h[0] + h[1]) * s2);
    d[10..14].fill((h[0] + h[2]) * s2);
    d[14..18].fill((h[1] + h[2]) * s2);
    for v in d.iter_mut().skip(18) {
        *v = (h[0] + h[1] + h[2]) * s3;
    }
    // Rounding must not make the box's DOP smaller than the box: nudge edge/corner values up
    // by a relative ulp-scale amount (an upper bound stays an upper bound).
    for v in d.iter_mut().skip(6) {
        *v *= 1.0 + 4.0 * f64::EPSILON;
    }
    Dop26::new(d)
}

/// The staged tight–box distance; see the module docs. `bdop` is [`box_dop`] of `b`.
#[inline]
pub fn tight_box(
    t: &TightPosed<'_>,
    b: &Obb,
    bdop: &Dop26,
    threshold: f64,
    warm: Option<&mut Witness>,
) -> Staged {
    tight_box_within(t, b, bdop, threshold, warm, f64::INFINITY)
}

/// [`tight_box`] for a caller that takes the minimum of its value with `ceiling` (see
/// [`super::distance_hull_hull::tight_tight_within`]).
#[inline]
pub fn tight_box_within(
    t: &TightPosed<'_>,
    b: &Obb,
    bdop: &Dop26,
    threshold: f64,
    warm: Option<&mut Witness>,
    ceiling: f64,
) -> Staged {
    let mut warm = warm;
    let s1 = if Witness::seeded(&warm) {
        f64::NEG_INFINITY
    } else {
        let sat = box_box_sat(&t.obb, b);
        if sat > threshold {
            return Staged::settled(sat);
        }
        let s1 = sat.max(dop_dop_lower_bound(&t.obb, t.dop, b, bdop));
        if s1 > threshold {
            return Staged::settled(s1);
        }
        s1
    };
    let g = gjk_in_hull_frame_depth(
        &t.hull,
        &t.hull.box_to_local(b),
        sub(b.center, t.obb.center),
        warm.as_deref_mut(),
        DepthLimits {
            floor: s1,
            ceiling,
            settle: threshold,
        },
    );
    let value = s1.max(g.lower);
    Witness::keep_within(warm, value, threshold);
    Staged {
        value,
        steps: g.iterations + g.proposals + g.epa_iterations + g.epa_proposals,
        scanned: g.full_scan_vertices(t.hull.pts.len() + 8),
        full_scan: g.full_scan_vertices(t.hull.pts.len() + 8),
        epa_steps: g.epa_iterations + g.epa_proposals,
    }
}
