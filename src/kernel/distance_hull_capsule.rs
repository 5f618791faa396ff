//! Tight–capsule distance (refined link against a capsule link): staged **lower bound**,
//! exact on convergence.
//!
//! Stage 1: the exact box–capsule distance on the refined link's box
//! ([`super::distance_box_capsule`]); the hull lies inside the box, so this is a lower bound
//! on the hull–capsule distance. Stage 2, only when stage 1 is at most the threshold: GJK of
//! the hull against the capsule's core segment, the radius subtracted afterwards (a capsule is
//! `segment ⊕ ball(r)`, so `dist(hull, capsule) = dist(hull, segment) − r` when positive). The
//! result is `max(stage 1, GJK lower bound − r)`; overlap gives a value `<= 0`.

use super::distance_box_capsule::box_capsule_dir;
use super::distance_hull_hull::TightPosed;
use super::gjk::{GjkResult, Staged, Witness, gjk_in_hull_frame};
use super::shapes::{Capsule, PosedHull, Segment, SupportMap};
use super::vec3::{norm2, sub};

/// GJK hull–capsule distance alone (lower bound, exact on convergence).
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
    let g = gjk_in_hull_frame(&t.hull, &t.hull.segment_to_local(&seg), seed, warm);
    Staged {
        value: s1.max(g.lower - c.radius),
        steps: g.iterations + g.proposals,
        scanned: g.iterations * (t.hull.pts.len() + 2) as u32,
    }
}

impl PosedHull<'_> {
    /// The first stored point, placed.
    #[inline(always)]
    pub fn vertex0(&self) -> [f64; 3] {
        self.vertex(0)
    }
}
