//! Witness points of a checked link pair: where its signed distance is attained.
//!
//! [`Model::pair_witness`] runs after [`Model::fk`], for one checked pair at a time (the
//! caller's minimum pair, typically), and never on the checking path: `check_*` and the
//! `pair_distance*` routines are untouched by it and cost what they did.
//!
//! # What is returned
//!
//! `distance` is the pair's exact signed distance as the kernel defines it: the minimum over
//! its primitive pairs of each pair's signed distance (the distance apart, minus the
//! penetration depth in overlap), every primitive pair evaluated by the kernel's own narrow
//! phase refined without threshold (so exact, within the GJK tolerance for pairs with a box
//! or a hull). It equals [`Model::pair_distance_with_margin`] whenever that value is
//! `<= margin + refine_band` (that value is then the same minimum), and is never below it
//! (beyond the tolerance): the check's other values are lower bounds.
//!
//! The points belong to the primitive pair attaining that minimum (the first in the pair's
//! primitive order on ties), world frame, `point_a` on the pair's first link's primitive and
//! `point_b` on the second's. In both cases **`point_a − point_b` is the translation of link
//! B's primitive that brings the two into contact** (the shortest such), and
//! `|point_a − point_b| = |distance|`:
//!
//! * apart (`distance > 0`): `point_a` and `point_b` are closest points of the two solids
//!   (`|point_a − point_b| = distance`);
//! * overlapping (`distance < 0`): `point_a` is the point of A deepest inside B and
//!   `point_b` the point of B deepest inside A, along the penetration direction
//!   `n = (point_a − point_b) / |point_a − point_b|`: `point_a` maximises `n · x` over A,
//!   `point_b` minimises it over B, and `n · (point_a − point_b) = −distance`, the depth;
//!   moving B by `point_a − point_b` (or A by `point_b − point_a`) separates them to touching;
//! * touching (`distance = 0`): one contact point, `point_a = point_b` (up to rounding).
//!
//! "Exact" and the equalities above hold up to rounding for capsule–capsule and
//! box–capsule pairs, and within the GJK tolerance (`1e-10 m`) for pairs with a box or a
//! hull, when GJK and the expanding polytope converge (if a step cap, 24 or 64, is hit,
//! the points are the last simplex's or polytope's and only approximate; on the
//! committed Panda, G1 and TIAGo near pairs `tests/kernel_witness.rs` finds every witness
//! within 1e-10 m of its own certificate). Where the minimum is not unique (parallel faces
//! or cores), the points are one of the minimising pairs.
//!
//! # How
//!
//! Capsule–capsule: the closed form's segment parameters (`segment_segment_sq`), the
//! radii added along the segment between the core points (crossing cores: along the cores'
//! common normal). Box–capsule with the core apart from the box: the closed form's segment
//! parameter and the box point nearest it. Everything else (box–box, any hull, a capsule core
//! meeting a box): the kernel's GJK on the solids (a capsule's core segment, its radius
//! added afterwards), which reports the support points of its final simplex with their
//! barycentric weights ([`gjk_cso_depth_weights`]), and in overlap the expanding polytope's
//! boundary point nearest the origin with its triangle's weights. That query runs past the
//! check's tolerance, until its simplex or face stops changing (see `WITNESS_TOL_REL`), so
//! that the points sit on the closest (or deepest) features, not merely at the right
//! distance. No allocation.

use super::distance_box_capsule::{NEAR_REL, segment_box_sq};
use super::distance_capsule_capsule::segment_segment_sq;
use super::gjk::{Difference, SimplexWeights, gjk_cso_depth_weights};
use super::model::Model;
use super::shapes::{Capsule, Obb, Segment, SupportMap};
use super::vec3::{V3, add, axpy, cross, dot, mul_mtv, mul_mv, neg, norm, norm2, scale, sub};
use super::workspace::{CheckStats, Workspace, WorldPrim};

/// The signed distance of a checked link pair and where it is attained (see the module
/// docs): world frame, metres.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairWitness {
    /// The pair's exact signed distance (negative: minus the penetration depth).
    pub distance: f64,
    /// On the pair's first link (`checked_pairs()[pair].0`).
    pub point_a: V3,
    /// On the pair's second link.
    pub point_b: V3,
}

impl Model {
    /// The witness of checked pair `pair` (an index into [`Model::checked_pairs`]) on the
    /// poses in `ws` (after [`Model::fk`]); see the module docs for exactly what is
    /// returned. `distance` equals [`Model::pair_distance_with_margin`]`(pair, ws, margin)`
    /// whenever that value is `<= margin + refine_band()` (within the GJK tolerance); it is
    /// exact whatever `margin` is (the argument only names the value it agrees with). Every
    /// primitive pair of the link pair is evaluated exactly, except those whose bounding
    /// spheres' gap already reaches the running minimum. With a non-finite pose the distance
    /// and the points are NaN.
    ///
    /// Leaves every other value of `ws` as it was (the warm-start witnesses and the last
    /// check's statistics included). No allocation. Panics when `pair` is out of range or
    /// `ws` belongs to another model.
    pub fn pair_witness(&self, pair: usize, ws: &Workspace, margin: f64) -> PairWitness {
        ws.assert_fits(self);
        let _ = margin;
        let (s, e) = self.pair_ranges[pair];
        let mut stats = CheckStats::default();
        let mut best = f64::INFINITY;
        let mut arg: Option<(usize, usize)> = None;
        for pp in &self.prim_pairs[s as usize..e as usize] {
            let (ia, ib) = (pp.a as usize, pp.b as usize);
            if arg.is_some() {
                // The spheres' gap is a lower bound on the signed distance.
                let gap = norm(sub(ws.sphere_c[ia], ws.sphere_c[ib])) - pp.rsum;
                if gap >= best {
                    continue;
                }
            }
            let v = self.narrow(
                ia,
                ib,
                &ws.world,
                &ws.link_pose,
                f64::INFINITY,
                best,
                None,
                &mut stats,
            );
            if v.is_nan() {
                let nan = [f64::NAN; 3];
                return PairWitness {
                    distance: f64::NAN,
                    point_a: nan,
                    point_b: nan,
                };
            }
            if v < best || arg.is_none() {
                best = v;
                arg = Some((ia, ib));
            }
        }
        let Some((ia, ib)) = arg else {
            let nan = [f64::NAN; 3];
            return PairWitness {
                distance: f64::INFINITY,
                point_a: nan,
                point_b: nan,
            };
        };
        let (point_a, point_b) = self.prim_witness(ia, ib, ws);
        PairWitness {
            distance: best,
            point_a,
            point_b,
        }
    }

    /// The witness points of primitives `ia` (link A) and `ib` (link B).
    fn prim_witness(&self, ia: usize, ib: usize, ws: &Workspace) -> (V3, V3) {
        let lp = &ws.link_pose;
        match (&ws.world[ia], &ws.world[ib]) {
            (WorldPrim::Capsule(a), WorldPrim::Capsule(b)) => capsule_capsule_witness(a, b),
            (WorldPrim::Box(o), WorldPrim::Capsule(c)) => box_capsule_witness(o, c),
            (WorldPrim::Capsule(c), WorldPrim::Box(o)) => {
                let (pb, pa) = box_capsule_witness(o, c);
                (pa, pb)
            }
            (WorldPrim::Box(a), WorldPrim::Box(b)) => support_witness(a, b, 0.0, 0.0),
            (WorldPrim::Tight(a), WorldPrim::Tight(b)) => {
                let ha = self.tight_posed(a, ia, lp).hull;
                let hb = self.tight_posed(b, ib, lp).hull;
                support_witness(&ha, &hb, 0.0, 0.0)
            }
            (WorldPrim::Tight(a), WorldPrim::Capsule(c)) => {
                let ha = self.tight_posed(a, ia, lp).hull;
                support_witness(&ha, &core(c), 0.0, c.radius)
            }
            (WorldPrim::Capsule(c), WorldPrim::Tight(b)) => {
                let hb = self.tight_posed(b, ib, lp).hull;
                support_witness(&core(c), &hb, c.radius, 0.0)
            }
            (WorldPrim::Tight(a), WorldPrim::Box(b)) => {
                let ha = self.tight_posed(a, ia, lp).hull;
                support_witness(&ha, b, 0.0, 0.0)
            }
            (WorldPrim::Box(a), WorldPrim::Tight(b)) => {
                let hb = self.tight_posed(b, ib, lp).hull;
                support_witness(a, &hb, 0.0, 0.0)
            }
        }
    }
}

pub(crate) fn core(c: &Capsule) -> Segment {
    Segment { a: c.a, b: c.b }
}

/// Core separations at most this (metres) give no direction: their difference is rounding
/// noise (`1e-16 ×` the coordinates), and a direction off by `θ` moves the gap along it by
/// up to `θ ×` the solids' size. Below it the caller's direction stands in.
const TINY: f64 = 1e-8;

/// Rounded solids from their cores' witness points `ca`, `cb`, radii `ra`, `rb`, and `n`,
/// the unit direction from A's core point to B's (apart), or the direction B's core must
/// move to leave A's (overlap): each point moves by its radius towards the other solid, so
/// `pa − pb = (ca − cb) + (ra + rb) n`, of length `|signed distance|`, along `n`.
fn inflate(ca: V3, cb: V3, ra: f64, rb: f64, n: V3) -> (V3, V3) {
    (axpy(ca, ra, n), axpy(cb, -rb, n))
}

/// Capsule–capsule by the closed form (module docs).
pub(crate) fn capsule_capsule_witness(a: &Capsule, b: &Capsule) -> (V3, V3) {
    let (d2, s, t) = segment_segment_sq(a.a, a.b, b.a, b.b);
    let (da, db) = (sub(a.b, a.a), sub(b.b, b.a));
    let ca = axpy(a.a, s, da);
    let cb = axpy(b.a, t, db);
    let ab = sub(cb, ca);
    let interior = s > 0.0 && s < 1.0 && t > 0.0 && t < 1.0;
    let nn = cross(da, db);
    let n = if interior && norm2(nn) > 1e-24 * norm2(da) * norm2(db) {
        // Closest points inside both cores: the segment between them is along the lines'
        // common normal (exactly, unlike their difference when it is tiny; crossing cores
        // leave along it too: the cores' difference is flat).
        let u = scale(nn, 1.0 / norm(nn));
        if dot(u, ab) < 0.0 { neg(u) } else { u }
    } else if d2.sqrt() > TINY {
        scale(ab, 1.0 / d2.sqrt())
    } else {
        unit_normal_to(da, db)
    };
    inflate(ca, cb, a.radius, b.radius, n)
}

/// A unit vector normal to both `d1` and `d2` (to whichever is not zero when they are
/// parallel; `+z` when both are zero).
fn unit_normal_to(d1: V3, d2: V3) -> V3 {
    let n = cross(d1, d2);
    let nn = norm(n);
    if nn > 1e-12 * (norm(d1) * norm(d2)).max(f64::MIN_POSITIVE) {
        return scale(n, 1.0 / nn);
    }
    let d = if norm2(d1) >= norm2(d2) { d1 } else { d2 };
    if norm2(d) == 0.0 {
        return [0.0, 0.0, 1.0];
    }
    // The axis least along `d`, crossed with it.
    let m = (0..3)
        .min_by(|&i, &j| d[i].abs().total_cmp(&d[j].abs()))
        .unwrap_or(0);
    let mut e = [0.0; 3];
    e[m] = 1.0;
    let n = cross(d, e);
    scale(n, 1.0 / norm(n))
}

/// Box (A) – capsule (B): the closed form while the core is apart from the box (by the
/// same test `box_capsule` uses to trust its square root), GJK otherwise.
pub(crate) fn box_capsule_witness(o: &Obb, c: &Capsule) -> (V3, V3) {
    let p0 = mul_mtv(&o.rot, sub(c.a, o.center));
    let p1 = mul_mtv(&o.rot, sub(c.b, o.center));
    let u = sub(p1, p0);
    let h = o.half;
    let (d2, t) = segment_box_sq(p0, u, h);
    let scale2 = norm2(p0) + norm2(u) + norm2(h);
    if d2 > NEAR_REL * NEAR_REL * scale2 {
        let p = axpy(p0, t, u);
        let q = [
            p[0].clamp(-h[0], h[0]),
            p[1].clamp(-h[1], h[1]),
            p[2].clamp(-h[2], h[2]),
        ];
        let world = |x: V3| add(o.center, mul_mv(&o.rot, x));
        let n = mul_mv(&o.rot, scale(sub(p, q), 1.0 / d2.sqrt()));
        return inflate(world(q), world(p), 0.0, c.radius, n);
    }
    support_witness(o, &core(c), 0.0, c.radius)
}

/// GJK's support-query cap for witness queries (the check's is 24).
const WITNESS_MAX_ITER: u32 = 64;
/// Relative tolerance of witness queries, with no absolute one: GJK and the expanding
/// polytope run until their simplex or face stops changing (a support point they already
/// hold) or rounding stalls them. The check's tolerance (`1e-10 m` on the distance) would
/// leave the points free to slide along a face by `√(2 · 1e-10 m · distance)`, about 1.6 µm at
/// 1 cm, and the direction between them off by as much over the distance; a box edge
/// 0.3 m long then stands out of the plane across that direction by ~3e-7 m (TIAGo).
const WITNESS_TOL_REL: f64 = 1e-14;

/// Any two support-mapped cores (radii `ra`, `rb` added afterwards), by the kernel's GJK and
/// expanding polytope with the weights of their final simplex or face.
pub(crate) fn support_witness<A: SupportMap, B: SupportMap>(
    a: &A,
    b: &B,
    ra: f64,
    rb: f64,
) -> (V3, V3) {
    let mut sw = SimplexWeights::default();
    let g = gjk_cso_depth_weights(
        &Difference(a, b),
        sub(b.center(), a.center()),
        WITNESS_MAX_ITER,
        0.0,
        WITNESS_TOL_REL,
        &mut sw,
    );
    // `g.normal` points from B to A (A lies on its `+` side).
    let away = if norm2(g.normal) > 0.0 {
        neg(g.normal)
    } else {
        [0.0, 0.0, 1.0]
    };
    let (ca, cb) = if sw.n == 0 {
        // No simplex or face to weigh (an expansion that could not start): the supports
        // along the certified normal.
        (a.support(neg(g.normal)).0, b.support(g.normal).0)
    } else {
        let (mut ca, mut cb) = ([0.0; 3], [0.0; 3]);
        for k in 0..sw.n as usize {
            ca = axpy(ca, sw.w[k], a.vertex(sw.ia[k]));
            cb = axpy(cb, sw.w[k], b.vertex(sw.ib[k]));
        }
        (ca, cb)
    };
    // GJK reports overlap with `upper == 0`: `ca − cb` is then B's way out, apart it runs
    // from B to A.
    let t = sub(ca, cb);
    let tl = norm(t);
    let n = if tl <= TINY {
        away
    } else if g.upper > 0.0 {
        scale(t, -1.0 / tl)
    } else {
        scale(t, 1.0 / tl)
    };
    inflate(ca, cb, ra, rb, n)
}
