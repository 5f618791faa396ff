//! Tight–capsule distance (refined link against a capsule link): staged **lower bound**,
//! exact on convergence.
//!
//! Stage 1: the exact box–capsule distance on the refined link's box
//! ([`super::distance_box_capsule`]); the hull lies inside the box, so this is a lower bound
//! on the hull–capsule distance. Stage 2, only when stage 1 is at most the threshold: GJK of
//! the hull against the capsule's core segment, the radius subtracted afterwards (a capsule is
//! `segment ⊕ ball(r)`, so `dist(hull, capsule) = dist(hull, segment) − r` when positive, and
//! the same holds for the signed distance in overlap). The result is
//! `max(stage 1, GJK lower bound − r)`. Overlap: stage 1 is the box's exact signed distance
//! (the six-axis depth when the core meets the box), a lower bound for the hull inside it,
//! and GJK is followed by the expanding polytope ([`super::gjk::gjk_cso_depth`]), so the
//! value is within the GJK tolerance of the exact signed distance on convergence. (Before,
//! stage 1 read `−r` for a core inside the box: above the truth, issue 22.) The segment's
//! depth in the hull is not its deepest point's: the polytope works on `hull − segment`.

use super::distance_box_capsule::box_capsule_dir;
use super::distance_hull_hull::TightPosed;
use super::gjk::{
    DepthLimits, GjkResult, Staged, Witness, gjk_in_hull_frame, gjk_in_hull_frame_depth,
};
use super::shapes::{Capsule, PosedHull, Segment, SupportMap};
use super::vec3::{norm2, sub};

/// GJK hull–capsule distance alone (lower bound, exact on convergence apart; in overlap the
/// cheap bound of GJK's scans, see [`tight_capsule`] for the tight one).
#[inline]
pub fn hull_capsule(h: &PosedHull<'_>, c: &Capsule, warm: Option<&mut Witness>) -> f64 {
    hull_segment_gjk(h, c.a, c.b, warm).lower - c.radius
}

/// GJK between a hull and the segment `a`–`b` (the capsule core), with its diagnostics.
#[inline]
pub fn hull_segment_gjk(
    h: &PosedHull<'_>,
    a: [f64; 3],
    b: [f64; 3],
    warm: Option<&mut Witness>,
) -> GjkResult {
    let seg = Segment { a, b };
    gjk_in_hull_frame(
        h,
        &h.segment_to_local(&seg),
        sub(seg.center(), h.vertex0()),
        warm,
    )
}

/// The staged tight–capsule distance; see the module docs.
#[inline]
pub fn tight_capsule(
    t: &TightPosed<'_>,
    c: &Capsule,
    threshold: f64,
    warm: Option<&mut Witness>,
) -> Staged {
    tight_capsule_within(t, c, threshold, warm, f64::INFINITY)
}

/// [`tight_capsule`] for a caller that takes the minimum of its value with `ceiling` (see
/// [`super::distance_hull_hull::tight_tight_within`]).
#[inline]
pub fn tight_capsule_within(
    t: &TightPosed<'_>,
    c: &Capsule,
    threshold: f64,
    warm: Option<&mut Witness>,
    ceiling: f64,
) -> Staged {
    let (s1, dir) = box_capsule_dir(&t.obb, c.a, c.b, c.radius);
    if s1 > threshold {
        return Staged::settled(s1);
    }
    let seg = Segment { a: c.a, b: c.b };
    let seed = if norm2(dir) > 0.0 {
        dir
    } else {
        sub(seg.center(), t.obb.center)
    };
    // The core's signed distance is at least stage 1 plus the radius; its bound matters up
    // to the ceiling plus the radius (plus a few ulps, so that a bound stopped there still
    // gives a value at or above the ceiling after the radius is taken off). An infinite
    // ceiling stays as it is (`-∞`: no depth is owed, see `Model::check_verdict`).
    let lifted = if ceiling.is_finite() {
        ceiling + c.radius + 4.0 * f64::EPSILON * (ceiling.abs() + c.radius)
    } else {
        ceiling
    };
    let limits = DepthLimits {
        floor: s1 + c.radius,
        ceiling: lifted,
        // The core's distance above the threshold plus the radius: the value is above it.
        settle: threshold + c.radius,
    };
    let g = gjk_in_hull_frame_depth(&t.hull, &t.hull.segment_to_local(&seg), seed, warm, limits);
    Staged {
        value: s1.max(g.lower - c.radius),
        steps: g.iterations + g.proposals + g.epa_iterations + g.epa_proposals,
        scanned: g.full_scan_vertices(t.hull.pts.len() + 2),
        full_scan: g.full_scan_vertices(t.hull.pts.len() + 2),
        epa_steps: g.epa_iterations + g.epa_proposals,
    }
}

impl PosedHull<'_> {
    /// The first stored point, placed.
    #[inline(always)]
    pub fn vertex0(&self) -> [f64; 3] {
        self.vertex(0)
    }
}
