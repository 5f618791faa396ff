//! Tight–tight distance (two refined links): staged **lower bound**, exact on convergence.
//!
//! Stage 1 (cheap, conservative): the 15-axis box SAT; if it does not clear the pair, the
//! 26-DOP SAT bound folded with it by `max` (a DOP bound can be looser than the box bound on
//! some axes and tighter on others; both bound the hull distance from below because the hull
//! lies inside both the box and the DOP, checked at model construction).
//!
//! Stage 2, only when stage 1 is at most the threshold (margin + refinement band): GJK on the
//! two hulls, support by a full linear scan of the vertices, optionally warm-started from the
//! previous witness simplex, capped at [`gjk::MAX_ITER`] support queries. The result is
//! `max(stage 1, GJK lower bound)`: exact within [`gjk::TOL_ABS`] on convergence, the stage-1
//! bound (or better) otherwise, never the GJK upper estimate.
//!
//! Overlap: GJK's scans alone bound the signed distance only loosely (the box SAT of stage 1
//! bounds it by the boxes' depth, deeper than the hulls'), so the staged routine expands
//! GJK's final simplex into a polytope ([`gjk::gjk_cso_depth`], EPA) and returns
//! `max(stage 1, its bound)`: a lower bound on the signed distance in every case, within
//! [`gjk::TOL_ABS`] of minus the depth on convergence. [`hull_hull_gjk`] alone keeps the
//! cheap bound.

use super::climb::climb;
use super::distance_box_box::box_box_sat;
use super::dop26::{Dop26, dop_dop_lower_bound};
use super::gjk::{
    self, Cso, DepthLimits, Difference, GjkResult, Staged, Witness, gjk_cso, gjk_cso_depth,
    in_frame_of,
};
use super::scan::{argmax_dot, argmax_dot2};
use super::shapes::{HullPoints, Obb, PosedHull};
use super::vec3::{V3, add, mul_mtv, neg, norm, scale, sub};
use std::cell::Cell;

/// A refined link placed in the common frame: its box, its DOP (box frame) and its hull.
#[derive(Clone, Copy, Debug)]
pub struct TightPosed<'a> {
    pub obb: Obb,
    pub dop: &'a Dop26,
    pub hull: PosedHull<'a>,
}

/// Stage 1: `max(box SAT, 26-DOP SAT)`.
#[inline]
pub fn tight_tight_stage1(a: &TightPosed<'_>, b: &TightPosed<'_>) -> f64 {
    let sat = box_box_sat(&a.obb, &b.obb);
    sat.max(dop_dop_lower_bound(&a.obb, a.dop, &b.obb, b.dop))
}

/// Hull `A` (its own frame) minus hull `B` placed in `A`'s frame. Two scanned hulls run
/// both full scans of a support query in one call, so the CPU overlaps them; a hull with a
/// climbing graph climbs from its support table's proposal instead ([`climb`]), and the
/// support point is then moved out along `d` by the hulls' proven slack, so that every
/// bound GJK takes from it (`−w · d̂`) stays below the true support's: GJK runs on
/// `(A − B) ⊕ ball(slack)` with supports at least as far out as the true ones.
/// `examined` counts the vertices every support query looked at.
/// A climb starts from the vertex of the previous support or proposal of the same query
/// (GJK's directions turn little between steps), the first from the support table's.
struct HullDifference<'s> {
    a: HullPoints<'s>,
    b: PosedHull<'s>,
    examined: Cell<u32>,
    last: Cell<Option<(u32, u32)>>,
}

impl<'s> HullDifference<'s> {
    fn new(a: &PosedHull<'s>, b: &PosedHull<'s>) -> HullDifference<'s> {
        HullDifference {
            a: a.pts,
            b: a.hull_to_local(b),
            examined: Cell::new(0),
            last: Cell::new(None),
        }
    }
}

/// The support index of one hull along `d` (climbed from `from`, or the table's proposal
/// without one, or scanned) and the vertices examined.
#[inline(always)]
fn support_index(p: &HullPoints<'_>, d: V3, from: Option<u32>) -> (usize, u32) {
    if p.climb.is_some() {
        let from = from.unwrap_or_else(|| p.proposed_index(d));
        climb(p, &p.climb, d, from as usize)
    } else {
        (argmax_dot(p, d), p.len() as u32)
    }
}

impl Cso for HullDifference<'_> {
    #[inline(always)]
    fn support(&self, d: V3) -> (V3, u32, u32) {
        let db = mul_mtv(&self.b.rot, neg(d));
        let (ia, ib, seen) = if !self.a.climb.is_some() && !self.b.pts.climb.is_some() {
            let (ia, ib) = argmax_dot2(&self.a, d, &self.b.pts, db);
            (ia, ib, (self.a.len() + self.b.pts.len()) as u32)
        } else {
            let last = self.last.get();
            let (ia, sa) = support_index(&self.a, d, last.map(|l| l.0));
            let (ib, sb) = support_index(&self.b.pts, db, last.map(|l| l.1));
            (ia, ib, sa + sb)
        };
        self.examined.set(self.examined.get() + seen);
        let (ia, ib) = (ia as u32, ib as u32);
        self.last.set(Some((ia, ib)));
        let w = self.point(ia, ib);
        let slack = self.a.climb.slack + self.b.pts.climb.slack;
        let l = norm(d);
        if slack > 0.0 && l > 0.0 {
            return (add(w, scale(d, slack / l)), ia, ib);
        }
        (w, ia, ib)
    }

    // The rest as for any two solids.
    #[inline(always)]
    fn point(&self, ia: u32, ib: u32) -> V3 {
        Difference(&self.a, &self.b).point(ia, ib)
    }

    #[inline(always)]
    fn has_proposals(&self) -> bool {
        Difference(&self.a, &self.b).has_proposals()
    }

    #[inline(always)]
    fn proposal(&self, d: V3) -> (V3, u32, u32) {
        let p = Difference(&self.a, &self.b).proposal(d);
        self.last.set(Some((p.1, p.2)));
        p
    }
}

/// GJK on two hulls (stage 2 alone), in `a`'s frame: only `b`'s points are transformed,
/// and both scans of a support query run together. `init_dir` and the normal are in the
/// common frame.
#[inline]
pub fn hull_hull_gjk(
    a: &PosedHull<'_>,
    b: &PosedHull<'_>,
    init_dir: V3,
    warm: Option<&mut Witness>,
) -> GjkResult {
    let c = HullDifference::new(a, b);
    in_frame_of(a, init_dir, |dir| {
        gjk_cso(&c, dir, warm, gjk::MAX_ITER, gjk::TOL_ABS, gjk::TOL_REL)
    })
}

/// [`hull_hull_gjk`] with the depth bounded tightly in overlap (the expanding polytope,
/// [`gjk::gjk_cso_depth`]).
#[inline]
pub fn hull_hull_gjk_depth(
    a: &PosedHull<'_>,
    b: &PosedHull<'_>,
    init_dir: V3,
    warm: Option<&mut Witness>,
    limits: DepthLimits,
) -> GjkResult {
    hull_hull_depth_counted(a, b, init_dir, warm, limits).0
}

/// [`hull_hull_gjk_depth`] and the vertices its support queries examined.
#[inline]
fn hull_hull_depth_counted(
    a: &PosedHull<'_>,
    b: &PosedHull<'_>,
    init_dir: V3,
    warm: Option<&mut Witness>,
    limits: DepthLimits,
) -> (GjkResult, u32) {
    let c = HullDifference::new(a, b);
    let g = in_frame_of(a, init_dir, |dir| {
        gjk_cso_depth(
            &c,
            dir,
            warm,
            gjk::MAX_ITER,
            gjk::TOL_ABS,
            gjk::TOL_REL,
            limits,
        )
    });
    (g, c.examined.get())
}

/// The staged tight–tight distance; see the module docs. `threshold` is the level below
/// which a pair is refined (the kernel passes margin + refinement band).
#[inline]
pub fn tight_tight(
    a: &TightPosed<'_>,
    b: &TightPosed<'_>,
    threshold: f64,
    warm: Option<&mut Witness>,
) -> Staged {
    tight_tight_within(a, b, threshold, warm, f64::INFINITY)
}

/// [`tight_tight`] for a caller that takes the minimum of its value with `ceiling`: in
/// overlap the depth bound stops once it reaches `ceiling` (the minimum is then the same).
#[inline]
pub fn tight_tight_within(
    a: &TightPosed<'_>,
    b: &TightPosed<'_>,
    threshold: f64,
    warm: Option<&mut Witness>,
    ceiling: f64,
) -> Staged {
    let mut warm = warm;
    let s1 = if Witness::seeded(&warm) {
        f64::NEG_INFINITY
    } else {
        let sat = box_box_sat(&a.obb, &b.obb);
        if sat > threshold {
            return Staged::settled(sat);
        }
        let s1 = sat.max(dop_dop_lower_bound(&a.obb, a.dop, &b.obb, b.dop));
        if s1 > threshold {
            return Staged::settled(s1);
        }
        s1
    };
    // Seeded from the centre offset: the stage-1 axes measured no better as GJK seeds.
    let limits = DepthLimits {
        floor: s1,
        ceiling,
        settle: threshold,
    };
    let (g, examined) = hull_hull_depth_counted(
        &a.hull,
        &b.hull,
        sub(b.obb.center, a.obb.center),
        warm.as_deref_mut(),
        limits,
    );
    let value = s1.max(g.lower);
    Witness::keep_within(warm, value, threshold);
    Staged {
        value,
        steps: g.iterations + g.proposals + g.epa_iterations + g.epa_proposals,
        scanned: examined,
        full_scan: g.full_scan_vertices(a.hull.pts.len() + b.hull.pts.len()),
        epa_steps: g.epa_iterations + g.epa_proposals,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::dop26::{dop_of_points, unit_octahedron};
    use crate::kernel::shapes::Hull;
    use crate::kernel::vec3::{IDENTITY, mul_mv, rot_from_rpy};

    fn octa() -> (Hull, Dop26, Obb) {
        let pts = unit_octahedron();
        (
            Hull::from_points(&pts),
            Dop26::new(dop_of_points(&pts)),
            Obb {
                center: [0.0; 3],
                rot: IDENTITY,
                half: [1.0; 3],
            },
        )
    }

    #[test]
    fn octahedra_face_to_face_is_exact_after_gjk() {
        // Octahedron B = A rotated 180° about z... use a translation along (1,1,1): faces
        // x+y+z=1 of A and x+y+z = 3t-1 of B, distance (3t-2)/√3.
        let (h, d, o) = octa();
        let t = 1.0;
        let c = [t, t, t];
        let a = TightPosed {
            obb: o,
            dop: &d,
            hull: h.posed(IDENTITY, [0.0; 3]),
        };
        let b = TightPosed {
            obb: Obb { center: c, ..o },
            dop: &d,
            hull: h.posed(IDENTITY, c),
        };
        let want = (3.0 * t - 2.0) / 3f64.sqrt();
        let s1 = tight_tight_stage1(&a, &b);
        assert!(s1 <= want + 1e-15);
        assert!((s1 - want).abs() < 1e-12, "the corner axis separates: {s1}");
        let exact = tight_tight(&a, &b, 10.0, None).value;
        assert!((exact - want).abs() < 1e-12, "{exact}");
    }

    #[test]
    fn rotated_octahedra_stage2_improves_and_stays_below() {
        let (h, d, o) = octa();
        let r = rot_from_rpy([0.3, 0.5, 0.7]);
        let c = [2.3, 0.4, -0.2];
        let a = TightPosed {
            obb: o,
            dop: &d,
            hull: h.posed(IDENTITY, [0.0; 3]),
        };
        let b = TightPosed {
            obb: Obb {
                center: c,
                rot: r,
                half: [1.0; 3],
            },
            dop: &d,
            hull: h.posed(r, c),
        };
        let s1 = tight_tight_stage1(&a, &b);
        let g = hull_hull_gjk(&a.hull, &b.hull, c, None);
        assert!(g.converged);
        assert!(s1 <= g.upper + 1e-12);
        let full = tight_tight(&a, &b, 10.0, None).value;
        assert!(full >= s1 && full <= g.upper + 1e-12);
        assert!((full - g.upper).abs() < 1e-9);
    }

    #[test]
    fn proposals_leave_every_answer_as_full_scans_give_it() {
        // Random hull pairs, separated, touching at a vertex, and overlapping: GJK with
        // support tables against the same GJK with the tables removed (full scans from the
        // first step). Same converged values, and far fewer full scans.
        let mut rng = crate::kernel::XorShift(0x7ab1_e5ca_1100_0001);
        let mut uniform = || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
        let (mut scans_with, mut scans_without, mut kinds) = (0, 0, [0; 3]);
        for case in 0..3000 {
            let cloud = |n: usize, u: &mut dyn FnMut() -> f64| -> Vec<V3> {
                (0..n)
                    .map(|_| [0.1 * u(), 0.06 * u(), 0.04 * u()])
                    .collect()
            };
            let (pa, pb) = (cloud(20 + case % 60, &mut uniform), cloud(40, &mut uniform));
            let (ha, hb) = (Hull::from_points(&pa), Hull::from_points(&pb));
            let rot = rot_from_rpy([3.0 * uniform(), 3.0 * uniform(), 3.0 * uniform()]);
            let mut pos = [0.15 * uniform(), 0.15 * uniform(), 0.15 * uniform()];
            let touching = case % 3 == 0;
            if touching {
                // b's lowest vertex along a random u placed on a's highest: the plane normal
                // to u through that point separates them, so they touch there.
                let u = [uniform(), uniform(), uniform()];
                let along = |p: V3| crate::kernel::vec3::dot(p, u);
                let top = |p: &&V3, q: &&V3| along(**p).total_cmp(&along(**q));
                let sa = *pa.iter().max_by(top).unwrap();
                let placed: Vec<V3> = pb.iter().map(|p| mul_mv(&rot, *p)).collect();
                let sb = *placed.iter().min_by(top).unwrap();
                pos = sub(sa, sb);
            }
            let a = ha.posed(IDENTITY, [0.0; 3]);
            let with = hull_hull_gjk(&a, &hb.posed(rot, pos), pos, None);
            let without_table = |h: &Hull| Hull {
                table: Vec::new(),
                ..h.clone()
            };
            let (ha_plain, hb_plain) = (without_table(&ha), without_table(&hb));
            let plain = hull_hull_gjk(
                &ha_plain.posed(IDENTITY, [0.0; 3]),
                &hb_plain.posed(rot, pos),
                pos,
                None,
            );
            assert!(with.converged && plain.converged, "{with:?} {plain:?}");
            assert!(with.proposals > 0 && plain.proposals == 0);
            if touching {
                // The exact value is 0, from both.
                kinds[2] += 1;
                assert!(
                    with.lower.abs() < 1e-9 && plain.lower.abs() < 1e-9,
                    "{with:?}"
                );
            } else if plain.upper > 0.0 {
                kinds[0] += 1;
                assert!(
                    (with.lower - plain.lower).abs() < 1e-9,
                    "{with:?} {plain:?}"
                );
            } else {
                // Overlapping: a bound at or below 0 from both.
                kinds[1] += 1;
                assert!(
                    with.lower <= 0.0 && plain.lower <= 0.0,
                    "{with:?} {plain:?}"
                );
            }
            scans_with += with.iterations;
            scans_without += plain.iterations;
        }
        assert!(kinds.iter().all(|&k| k > 100), "{kinds:?}");
        assert!(
            2 * scans_with < scans_without,
            "{scans_with} vs {scans_without}"
        );
    }
}
