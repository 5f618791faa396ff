//! `check_self_collision`: broad phase, narrow-phase dispatch and the verdict.
//!
//! # Semantics
//!
//! For every checked link pair (see [`Model::checked_pairs`]) the pair's value is the minimum
//! over its primitive pairs of a per-primitive-pair value `v` with `v <=` the exact signed
//! distance (the distance when apart, minus the penetration depth when the solids overlap;
//! see each `distance_*` module for which routines are exact). A pair **trips** when its
//! value is `<= margin` — or is NaN (non-finite `q`): the comparison is written so that NaN
//! trips.
//!
//! Broad phase, link level: each link has a sphere around its primitives' spheres. A link
//! pair whose sphere gap exceeds `margin + refine_band` is skipped whole and contributes
//! that gap (a lower bound on every primitive pair's distance): on a humanoid most checked
//! pairs end here, in one test instead of one per primitive pair.
//!
//! Broad phase, primitive level: each primitive has a bounding sphere (link frame, precomputed). A primitive
//! pair whose sphere gap `|c1 − c2| − r1 − r2` exceeds `margin + refine_band` skips the narrow
//! phase and contributes the sphere gap, a lower bound on its distance. A primitive pair whose
//! sphere gap is already `>=` the pair's running minimum is skipped too (it cannot lower it).
//! Narrow phases refine to the exact (signed) distance whenever their conservative bound is
//! at most `margin + refine_band`.
//!
//! Consequently every reported pair value `v` satisfies `v <=` the signed distance, and
//! whenever `v <= margin + refine_band` it is the exact signed distance (within the GJK
//! tolerance, unless GJK's or the expanding polytope's step cap was hit, in which case it is
//! still a lower bound). `min_distance` is the
//! smallest pair value: a lower bound on the true minimum distance over checked pairs, exact
//! when it is `<= margin + refine_band`; `+∞` when there is no checked pair.
//!
//! Negative values mean overlap, and are lower bounds on minus the penetration depth: exact
//! for capsule, box–capsule and box–box pairs, exact within the tolerance for pairs with a
//! tight primitive when the expanding polytope converges (see `gjk::gjk_cso_depth`), so a
//! controller can use them to recover from penetration. Without `want_all_pairs` only the
//! minimum is reported, so the running minimum over the pairs visited so far lowers the
//! refinement threshold (`settle_level`): a pair whose bound is above it cannot lower it and
//! keeps that bound, and an overlapping tight pair's depth bound stops once it reaches it.
//! The pair that ends as the minimum was below every earlier value, so it was refined:
//! `min_distance`, `min_pair` and the verdict are the same either way, and only pairs that
//! cannot be the least are spared their GJK (on a pose in collision, most of them).
//!
//! Determinism: the pairs are visited in a fixed order with fixed arithmetic, so the same
//! `q` and the same workspace state give bit-identical results. With warm start off (the
//! default) the workspace carries no state between calls; with it on, results depend on the
//! stored witnesses at the level of the GJK tolerance, never in the verdict
//! ([`Workspace::set_warm_start`]).

use super::distance_box_box::box_box_refined;
use super::distance_box_capsule::box_capsule;
use super::distance_capsule_capsule::capsule_capsule;
use super::distance_hull_box::tight_box_within;
use super::distance_hull_capsule::tight_capsule_within;
use super::distance_hull_hull::{TightPosed, tight_tight_within};
use super::gjk::Witness;
use super::model::{Model, PrimKind, hull_points};
use super::scan::Climb;
use super::shapes::{Obb, PosedHull};
use super::support_table;
use super::vec3::{Iso, norm2, sub};
use super::workspace::{CheckStats, Placed, WARM_RECHECK, Workspace, WorldPrim};

/// Result of [`Model::check_self_collision`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CheckResult {
    /// Some checked pair's value is `<= margin` (or NaN).
    pub tripped: bool,
    /// The first tripping pair in [`Model::checked_pairs`] order.
    pub first_tripping_pair: Option<(usize, usize)>,
    /// Minimum pair value (metres); see the module docs for what it guarantees.
    pub min_distance: f64,
    /// The pair attaining `min_distance` (first in order on ties).
    pub min_pair: Option<(usize, usize)>,
}

/// Result of [`Model::check_verdict`]: the full check's verdict, without its distances.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VerdictResult {
    /// Some checked pair's value is `<= margin` (or NaN): [`CheckResult::tripped`].
    pub tripped: bool,
    /// The first tripping pair in [`Model::checked_pairs`] order:
    /// [`CheckResult::first_tripping_pair`].
    pub first_tripping_pair: Option<(usize, usize)>,
}

/// The level above which a pair's value needs no refinement: the caller's refinement
/// threshold (margin + band), or the running minimum the caller takes the value's minimum
/// with, whichever is lower. A bound above the running minimum cannot lower it, and the
/// pair that ends as the minimum was below every earlier one, so it was refined: the
/// minimum is exact as before, at the cost of the pairs that cannot be it.
#[inline(always)]
fn settle_level(threshold: f64, ceiling: f64) -> f64 {
    // `f64::min` ignores a NaN running minimum (a pair already NaN: every value loses).
    threshold.min(ceiling)
}

impl Model {
    /// Forward kinematics then the self-collision check (see the module docs). With
    /// `want_all_pairs`, every checked pair's value is written to
    /// [`Workspace::pair_distances`]. No allocation.
    ///
    /// Panics when `q.len() != self.dof()` or `ws` belongs to another model.
    pub fn check_self_collision(
        &self,
        q: &[f64],
        ws: &mut Workspace,
        want_all_pairs: bool,
    ) -> CheckResult {
        self.fk(q, ws);
        self.check_placed(ws, want_all_pairs)
    }

    /// The check on the poses already in `ws` (after [`Model::fk`]).
    pub fn check_placed(&self, ws: &mut Workspace, want_all_pairs: bool) -> CheckResult {
        self.check_placed_with_margin(ws, self.margin(), want_all_pairs)
    }

    /// [`Model::check_self_collision`] at the caller's `margin` instead of the model's: a
    /// pair trips when its value is `<= margin`, and values `<= margin + refine_band` are
    /// refined to the exact distance, so the guarantees of the module docs hold with
    /// `margin` in place of [`Model::margin`]. `margin` may be `+∞` (every pair refined).
    /// No allocation.
    pub fn check_self_collision_with_margin(
        &self,
        q: &[f64],
        ws: &mut Workspace,
        margin: f64,
        want_all_pairs: bool,
    ) -> CheckResult {
        self.fk(q, ws);
        self.check_placed_with_margin(ws, margin, want_all_pairs)
    }

    /// [`Model::check_placed`] at the caller's `margin` (see
    /// [`Model::check_self_collision_with_margin`]).
    pub fn check_placed_with_margin(
        &self,
        ws: &mut Workspace,
        margin: f64,
        want_all_pairs: bool,
    ) -> CheckResult {
        ws.assert_fits(self);
        let threshold = margin + self.refine_band();
        let mut stats = CheckStats::default();
        let mut res = CheckResult {
            tripped: false,
            first_tripping_pair: None,
            min_distance: f64::INFINITY,
            min_pair: None,
        };
        let warm = ws.warm_line(margin);
        let (placed, witness, pair_dist) = ws.split();
        for (pi, &(la, lb)) in self.checked_pairs().iter().enumerate() {
            // Without every pair's value, only the minimum is reported: an overlapping
            // pair's depth bound need not go below it (see `Model::pair_value`).
            let ceiling = if want_all_pairs {
                f64::INFINITY
            } else {
                res.min_distance
            };
            let d = self.pair_value(
                pi,
                &placed,
                witness,
                warm,
                settle_level(threshold, ceiling),
                ceiling,
                None,
                &mut stats,
            );
            if want_all_pairs {
                pair_dist[pi] = d;
            }
            if (d.is_nan() || d <= margin) && !res.tripped {
                res.tripped = true;
                res.first_tripping_pair = Some((la, lb));
            }
            if (d.is_nan() && !res.min_distance.is_nan()) || d < res.min_distance {
                res.min_distance = d;
                res.min_pair = Some((la, lb));
            }
        }
        ws.stats = stats;
        res
    }

    /// Forward kinematics then the verdict-only check at `margin`: exactly the verdict and
    /// first tripping pair of [`Model::check_self_collision_with_margin`] at the same
    /// `margin`, with no least distance and no penetration depth. It stops at the first
    /// checked pair at or below `margin`, and inside that pair at its first primitive pair
    /// that is; with `margin >= 0` an overlap decides at once (its value is `<= 0`), so the
    /// expanding polytope never runs. What a sampling planner needs: a tripping pose costs
    /// about what a free one does. No allocation.
    ///
    /// Why the verdict is the full check's: before the full check's first trip, every
    /// ceiling it hands a narrow phase is above `margin`, and a depth bound stopped at a
    /// ceiling `c` is `>= c` and at most the bound run to the end; so each pair value it
    /// computes is `<= margin` exactly when the unstopped one is. The verdict-only check
    /// stops the depth bound at `-∞` (overlap decides) or, for a negative `margin`, just
    /// above `margin`, which by the same argument decides each pair the same way. It
    /// refines nothing above `margin` (a bound above it decides the pair, and GJK stops as
    /// soon as its bound passes it), and a value at or below `margin` is refined as the
    /// full check refines it.
    ///
    /// Panics when `q.len() != self.dof()` or `ws` belongs to another model.
    pub fn check_verdict(&self, q: &[f64], ws: &mut Workspace, margin: f64) -> VerdictResult {
        self.fk(q, ws);
        self.check_placed_verdict(ws, margin)
    }

    /// [`Model::check_verdict`] on the poses already in `ws` (after [`Model::fk`]).
    pub fn check_placed_verdict(&self, ws: &mut Workspace, margin: f64) -> VerdictResult {
        ws.assert_fits(self);
        // A value above the margin decides its pair: nothing above it is refined.
        let threshold = margin;
        // In overlap a value is <= 0: with margin >= 0 no depth is owed (ceiling -inf).
        let ceiling = if margin >= 0.0 {
            f64::NEG_INFINITY
        } else {
            margin.next_up()
        };
        let mut stats = CheckStats::default();
        let warm = ws.warm_line(margin);
        let (placed, witness, _) = ws.split();
        let mut res = VerdictResult {
            tripped: false,
            first_tripping_pair: None,
        };
        for (pi, &pair) in self.checked_pairs().iter().enumerate() {
            let d = self.pair_value(
                pi,
                &placed,
                witness,
                warm,
                threshold,
                ceiling,
                Some(margin),
                &mut stats,
            );
            if d.is_nan() || d <= margin {
                res.tripped = true;
                res.first_tripping_pair = Some(pair);
                break;
            }
        }
        ws.stats = stats;
        res
    }

    /// One checked pair's value on the poses in `ws` (after [`Model::fk`]): the same
    /// value [`Model::check_placed`] computes for it, a lower bound on the distance.
    pub fn pair_distance(&self, pair: usize, ws: &mut Workspace) -> f64 {
        self.pair_distance_with_margin(pair, ws, self.margin())
    }

    /// [`Model::pair_distance`] refined as at the caller's `margin` (see
    /// [`Model::check_self_collision_with_margin`]): exact when `<= margin + refine_band`.
    pub fn pair_distance_with_margin(&self, pair: usize, ws: &mut Workspace, margin: f64) -> f64 {
        self.pair_distance_below(pair, ws, margin, f64::INFINITY)
    }

    /// [`Model::pair_distance_with_margin`] for a caller that takes the minimum of the value
    /// with `ceiling` (a running minimum): an overlapping tight pair's depth bound stops once
    /// it reaches `ceiling`, as in [`Model::check_placed`]. Still a lower bound on the
    /// pair's signed distance; `min(value, ceiling)` is the same as without the stop.
    pub fn pair_distance_below(
        &self,
        pair: usize,
        ws: &mut Workspace,
        margin: f64,
        ceiling: f64,
    ) -> f64 {
        let threshold = margin + self.refine_band();
        let mut stats = CheckStats::default();
        let warm = ws.warm_line(margin);
        let (placed, witness, _) = ws.split();
        // Refined up to the threshold whatever the ceiling: a caller that keeps the value
        // (the coherent cache's anchor) wants it tight.
        self.pair_value(
            pair, &placed, witness, warm, threshold, ceiling, None, &mut stats,
        )
    }

    /// The value of checked pair `pi`: the minimum over its primitive pairs. `ceiling`: the
    /// caller takes the minimum of the value with it. An overlapping tight pair's depth
    /// bound (the expanding polytope) stops once it reaches `min(ceiling, running minimum)`:
    /// a value at or above that cannot lower the minimum, and one below it is computed in
    /// full, so the minimum is the same as without the stop.
    ///
    /// `stop`: the verdict-only check's margin: the loop ends at the first primitive pair
    /// that brings the value to or below it (the pair trips whatever the rest give).
    ///
    /// `warm`: with warm start on, the margin near which a primitive pair's value is
    /// recomputed cold (see [`Workspace::set_warm_start`]); `None`: cold.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn pair_value(
        &self,
        pi: usize,
        placed: &Placed,
        witness: &mut [Witness],
        warm: Option<f64>,
        threshold: f64,
        ceiling: f64,
        stop: Option<f64>,
        stats: &mut CheckStats,
    ) -> f64 {
        let Placed {
            link_pose,
            world,
            sphere_c,
            link_sphere_c,
        } = *placed;
        // Link level: one sphere around each link's primitives. Past `threshold`, its gap
        // is a lower bound on every primitive pair's distance and no refinement is owed.
        let (la, lb) = self.checked_pairs()[pi];
        let (ra, rb) = (self.link_spheres[la].1, self.link_spheres[lb].1);
        let lc2 = norm2(sub(link_sphere_c[la], link_sphere_c[lb]));
        let link_reach = ra + rb + threshold;
        // A negative reach (a threshold deeper than the spheres): every gap is above it.
        if lc2 > link_reach * link_reach || link_reach < 0.0 {
            stats.link_skipped += 1;
            return lc2.sqrt() - ra - rb;
        }
        let (s, e) = self.pair_ranges[pi];
        let mut d = f64::INFINITY;
        for pp in &self.prim_pairs[s as usize..e as usize] {
            stats.prim_pairs += 1;
            let (ia, ib) = (pp.a as usize, pp.b as usize);
            let dc2 = norm2(sub(sphere_c[ia], sphere_c[ib]));
            let reach = pp.rsum + threshold;
            if dc2 > reach * reach || reach < 0.0 {
                // Sphere gap > margin + band: skip, contribute the gap (a lower bound).
                stats.sphere_skipped += 1;
                let g = dc2.sqrt() - pp.rsum;
                if g < d {
                    d = g;
                }
                continue;
            }
            // A pair that cannot lower the running minimum need not be refined.
            if d.is_finite() {
                let r = pp.rsum + d;
                if r >= 0.0 && dc2 >= r * r {
                    stats.sphere_skipped += 1;
                    continue;
                }
            }
            stats.narrow += 1;
            stats.narrow_tight += (matches!(world[ia], WorldPrim::Tight(_))
                | matches!(world[ib], WorldPrim::Tight(_)))
                as u32;
            let slot = warm.filter(|_| pp.slot != u32::MAX);
            let narrow = |w: Option<&mut Witness>, stats: &mut CheckStats| {
                self.narrow(
                    ia,
                    ib,
                    world,
                    link_pose,
                    threshold,
                    d.min(ceiling),
                    w,
                    stats,
                )
            };
            let v = match slot {
                None => narrow(None, stats),
                Some(margin) => {
                    let w = &mut witness[pp.slot as usize];
                    let seeded = w.n > 0;
                    let mut v = narrow(Some(w), stats);
                    if v.is_nan() || (v - margin).abs() <= WARM_RECHECK {
                        // A warm value may differ from the cold one in the GJK tolerance's
                        // digits: at the margin take the cold one, and start cold next call
                        // too, so warm start never changes a verdict.
                        if seeded {
                            *w = Witness::default();
                            v = narrow(Some(w), stats);
                        }
                        *w = Witness::default();
                    }
                    v
                }
            };
            if v.is_nan() || v < d {
                d = v;
            }
            if d.is_nan() || stop.is_some_and(|m| d <= m) {
                break;
            }
        }
        d
    }

    #[inline(always)]
    pub(super) fn tight_posed<'a>(
        &'a self,
        obb: &Obb,
        prim: usize,
        link_pose: &[Iso],
    ) -> TightPosed<'a> {
        let p = &self.prims[prim];
        match &p.kind {
            PrimKind::Tight {
                dop,
                off,
                len,
                table,
                graph,
                ..
            } => {
                let dop = &self.dops[*dop as usize];
                let pose = &link_pose[p.link];
                TightPosed {
                    obb: *obb,
                    dop,
                    hull: PosedHull {
                        pts: hull_points(
                            [&self.hx, &self.hy, &self.hz],
                            *off..*off + *len,
                            &self.tables[*table..*table + support_table::CELLS],
                            self.graphs
                                .get(*graph as usize)
                                .map_or(Climb::NONE, |g| g.view()),
                        ),
                        rot: pose.rot,
                        pos: pose.pos,
                    },
                }
            }
            _ => unreachable!("not a tight primitive"),
        }
    }

    #[inline(always)]
    fn box_dop(&self, prim: usize) -> &super::dop26::Dop26 {
        match &self.prims[prim].kind {
            PrimKind::Box(_, d) => &self.dops[*d as usize],
            _ => unreachable!("not a box primitive"),
        }
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn narrow(
        &self,
        ia: usize,
        ib: usize,
        world: &[WorldPrim],
        link_pose: &[Iso],
        threshold: f64,
        ceiling: f64,
        w: Option<&mut Witness>,
        stats: &mut CheckStats,
    ) -> f64 {
        let staged = match (&world[ia], &world[ib]) {
            (WorldPrim::Capsule(a), WorldPrim::Capsule(b)) => {
                return capsule_capsule(a.a, a.b, a.radius, b.a, b.b, b.radius);
            }
            (WorldPrim::Box(o), WorldPrim::Capsule(c))
            | (WorldPrim::Capsule(c), WorldPrim::Box(o)) => {
                return box_capsule(o, c.a, c.b, c.radius);
            }
            (WorldPrim::Box(a), WorldPrim::Box(b)) => {
                return box_box_refined(a, b, threshold, w);
            }
            (WorldPrim::Tight(a), WorldPrim::Tight(b)) => {
                let ta = self.tight_posed(a, ia, link_pose);
                let tb = self.tight_posed(b, ib, link_pose);
                tight_tight_within(&ta, &tb, threshold, w, ceiling)
            }
            (WorldPrim::Tight(a), WorldPrim::Capsule(c)) => {
                let ta = self.tight_posed(a, ia, link_pose);
                tight_capsule_within(&ta, c, threshold, w, ceiling)
            }
            (WorldPrim::Capsule(c), WorldPrim::Tight(b)) => {
                let tb = self.tight_posed(b, ib, link_pose);
                tight_capsule_within(&tb, c, threshold, w, ceiling)
            }
            (WorldPrim::Tight(a), WorldPrim::Box(b)) => {
                let ta = self.tight_posed(a, ia, link_pose);
                tight_box_within(&ta, b, self.box_dop(ib), threshold, w, ceiling)
            }
            (WorldPrim::Box(a), WorldPrim::Tight(b)) => {
                let tb = self.tight_posed(b, ib, link_pose);
                tight_box_within(&tb, a, self.box_dop(ia), threshold, w, ceiling)
            }
        };
        stats.scanned_vertices += staged.scanned;
        stats.full_scan_vertices += staged.full_scan;
        stats.gjk_steps += staged.steps;
        stats.epa_steps += staged.epa_steps;
        staged.value
    }
}

#[cfg(test)]
mod tests {
    use super::super::model::{Acm, Joint, JointKind, Link, Primitive};
    use super::*;

    /// Two links of two capsules each; the second slides along x (prismatic), so the
    /// exact distance between them is known at every `q`.
    fn two_sliding_links() -> Model {
        let caps = |x0: f64| {
            vec![
                Primitive::Capsule {
                    a: [x0, 0.0, 0.0],
                    b: [x0, 0.1, 0.0],
                    radius: 0.01,
                },
                Primitive::Capsule {
                    a: [x0, 0.2, 0.0],
                    b: [x0, 0.3, 0.0],
                    radius: 0.01,
                },
            ]
        };
        let links = vec![
            Link {
                name: "base".into(),
                parent: None,
                joint: Joint::fixed("j0", [0.0; 3], [0.0; 3]),
                primitives: caps(0.0),
            },
            Link {
                name: "slider".into(),
                parent: Some(0),
                joint: Joint::new(
                    "j1",
                    JointKind::Prismatic,
                    [0.0; 3],
                    [0.0; 3],
                    [1.0, 0.0, 0.0],
                    0.0,
                    10.0,
                ),
                primitives: caps(0.0),
            },
        ];
        Model::new(links, vec![], Acm::new(2), 0.0).unwrap()
    }

    #[test]
    fn far_link_pairs_are_skipped_whole_with_a_lower_bound() {
        let m = two_sliding_links();
        let mut ws = m.workspace();
        // 5 m apart: the link spheres (radius 0.16) are far past margin + band; their gap,
        // 4.68 m, stands for the pair.
        let r = m.check_self_collision(&[5.0], &mut ws, true);
        assert_eq!(ws.stats().link_skipped, 1);
        assert_eq!(ws.stats().prim_pairs, 0);
        let exact = 5.0 - 0.02;
        assert!(r.min_distance <= exact && r.min_distance > exact - 0.35);
        assert!(!r.tripped);
    }

    #[test]
    fn near_link_pairs_reach_the_primitives_and_are_exact() {
        let m = two_sliding_links();
        let mut ws = m.workspace();
        // 5 mm apart, within the band: refined to the exact capsule distance.
        let r = m.check_self_collision(&[0.025], &mut ws, true);
        assert_eq!(ws.stats().link_skipped, 0);
        assert_eq!(ws.stats().prim_pairs, 4);
        assert!((r.min_distance - 0.005).abs() < 1e-12);
        let r = m.check_self_collision(&[0.015], &mut ws, true);
        assert!(r.tripped);
    }
}
