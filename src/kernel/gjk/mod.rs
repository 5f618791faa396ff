//! GJK distance between two convex solids given by support maps, returning a *rigorous
//! lower bound* on their distance.
//!
//! # What is returned, and why it never exceeds the true distance
//!
//! GJK works on the configuration-space obstacle `C = A − B = {a − b}`; the distance
//! between `A` and `B` is the distance from the origin to `C`. Every support query in a
//! direction `s` returns `w = s_A(s) − s_B(−s)`, the point of `C` maximising `x · s`
//! (exactly: the support maps scan every vertex). Hence every `x ∈ C` satisfies
//! `x · ŝ <= w · ŝ`, so `|x| >= −x · ŝ >= −w · ŝ`: the number `−w · ŝ` is a lower bound on
//! `dist(0, C)`. When `C` contains the origin it is also a lower bound on the *signed*
//! distance (`−h_C(ŝ) <= −penetration depth`, since the depth is `min_ŝ h_C(ŝ)`).
//!
//! GJK queries `s = −v` where `v` is the point of the current simplex nearest the origin,
//! so the bound is `w · v / |v|`. [`gjk_distance`] keeps the maximum of these bounds over all
//! queries (`lower`) and the simplex distance `|v|` (`upper`, an upper estimate). It stops
//! when `upper − lower <= TOL_ABS + TOL_REL · upper` (converged: `lower` is the distance
//! within that tolerance), when the origin lies on the simplex (overlap: `lower =
//! min(best bound, 0)`; a warm-started simplex can hold the origin before any scan, and one
//! scan along the seed then gives the bound — it used to return 0, above the truth), when
//! the simplex stops improving (rounding floor), or after `max_iter` support queries
//! (`converged = false`).
//!
//! # Overlap: the expanding polytope
//!
//! In overlap the bound above is valid but loose (its directions were chosen to approach
//! the origin, not to leave `C`). [`gjk_cso_depth`] then expands GJK's final simplex into a
//! polytope inside `C` (EPA, `epa`): each step scans along the outward normal of the face
//! nearest the origin and folds that scan's bound. The bound stays a lower bound whatever
//! the polytope does (every bound is a full scan's); the polytope only picks directions, and
//! on convergence the bound is within the tolerance of minus the penetration depth.
//! Allocation-free (fixed arrays; at most [`EPA_MAX_ITER`] steps), it also takes support
//! tables' proposals to grow (never to bound), and stops early at the caller's
//! [`DepthLimits`].
//!
//! The accuracy of the simplex sub-algorithm affects only how fast `lower` rises, never its
//! validity: `lower` is built from exact support values alone. Callers use `lower` and fold
//! it by `max` with any other lower bound they hold; they never use `upper`.
//!
//! # Proposals (cold queries on hulls with support tables)
//!
//! A cold query whose solids have [`super::support_table`]s first runs GJK steps on
//! *proposed* points: `table_A(s) − table_B(−s)`, two vertex lookups instead of two full
//! scans. A proposed point is a real point of `C`, so it may join the simplex (which only
//! ever holds points of `C`, so `|v|` stays an upper estimate); it joins only when it brings
//! the simplex nearer by more than the tolerance, as a scanned point must. No bound is ever
//! taken from a proposal. When proposals stop helping, the full scans above take over from
//! that simplex and produce every bound; on the bench's 152-vertex hulls they then need 1.5
//! scans instead of 9. Two cases end the proposals otherwise: the origin deep inside a
//! proposed tetrahedron (the solids overlap; one scan along the seed gives the bound), and a
//! simplex within the tolerance of the origin without that depth (the solids may only touch,
//! where `v`'s direction is rounding noise and the scans would bound poorly: the query
//! restarts with full scans only, as without tables).
//!
//! Floating point: the bound is exact up to the rounding of the dot products (about
//! `1e-16 ×` the coordinate magnitudes), nothing else.

mod polytope;
pub(crate) mod simplex;
mod support;
#[cfg(test)]
mod tests;

use super::shapes::{PosedHull, SupportMap};
use super::vec3::{V3, dot, mul_mtv, mul_mv, neg, norm2, scale};
use polytope::epa;
use simplex::{Simplex, simplex_weights};
pub use support::{Cso, Difference};
use support::{Proposed, propose};

/// Support-query cap used by the kernel.
pub const MAX_ITER: u32 = 24;
/// Absolute convergence tolerance on `upper − lower` (metres).
pub const TOL_ABS: f64 = 1e-10;
/// Relative convergence tolerance on `upper − lower`.
pub const TOL_REL: f64 = 1e-12;

/// The witness simplex of a previous query: ids of the support points on `A` and `B`.
/// `n == 0` means empty (cold start). A witness is only meaningful for the same two solids
/// (same vertex lists) it came from; ids from another pair may index out of range.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Witness {
    pub n: u8,
    pub ia: [u32; 4],
    pub ib: [u32; 4],
}

impl Witness {
    /// Whether a staged routine may skip its stage-1 bounds and go straight to a warm GJK:
    /// the pair's last evaluation reached GJK within the threshold (a routine forgets the
    /// witness of a value above it, [`Witness::keep_within`]), so on a smooth path stage 1
    /// would not settle it now either; the warm GJK alone converges to the same value
    /// within the tolerance.
    #[inline(always)]
    pub fn seeded(warm: &Option<&mut Witness>) -> bool {
        warm.as_ref().is_some_and(|w| w.n > 0)
    }

    /// Forgets the witness when the staged value is above `threshold`: the next
    /// evaluation starts with stage 1, which settles a pair moving away cheaply.
    #[inline(always)]
    pub fn keep_within(warm: Option<&mut Witness>, value: f64, threshold: f64) {
        if let Some(w) = warm.filter(|_| value > threshold) {
            *w = Witness::default();
        }
    }
}

/// The points behind a GJK or expanding-polytope answer, for witness points
/// ([`gjk_cso_depth_weights`]): `n` points of `A − B` by their vertex ids on `A` and `B`,
/// with barycentric weights `w` (non-negative, summing to 1). `Σ w_k (A_{ia_k} − B_{ib_k})`
/// is, apart, the point of `A − B` nearest the origin (GJK's final simplex) and, in overlap,
/// the point of the expanding polytope's boundary nearest the origin (the shortest
/// translation of `B` out of `A`, within the tolerance on convergence). `n == 0`: none (an
/// expansion that could not start from a tetrahedron).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SimplexWeights {
    pub n: u8,
    pub ia: [u32; 4],
    pub ib: [u32; 4],
    pub w: [f64; 4],
}

/// A staged distance and what its GJK cost: hull vertices its support queries examined
/// (full scans times the hulls' vertices, or a climb's examined vertices; 0 when stage 1
/// settled it). The kernel counts it for cost estimates.
/// The expanding polytope's work in overlap counts as GJK's does (a step per full scan or
/// proposal, a full scan's vertices), and is also given apart in `epa_steps`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Staged {
    pub value: f64,
    /// GJK steps: support queries (full scans) and table proposals.
    pub steps: u32,
    pub scanned: u32,
    /// What full scans of both solids at every step would have examined (`scanned` when
    /// nothing climbs).
    pub full_scan: u32,
    /// Of `steps`, the expanding polytope's (overlap only): its full scans and proposals.
    pub epa_steps: u32,
}

impl Staged {
    #[inline(always)]
    pub fn settled(value: f64) -> Staged {
        Staged {
            value,
            steps: 0,
            scanned: 0,
            full_scan: 0,
            epa_steps: 0,
        }
    }
}

/// Outcome of [`gjk_distance`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GjkResult {
    /// Rigorous lower bound on the distance (see module docs); `<= 0` when overlapping.
    pub lower: f64,
    /// Upper estimate `|v|` (0 when the origin was found on the simplex).
    pub upper: f64,
    /// Number of support queries (full scans) made.
    pub iterations: u32,
    /// Number of points proposed from support tables (see [`Cso::proposal`]).
    pub proposals: u32,
    /// Full scans the expanding polytope made in overlap ([`gjk_cso_depth`]; not counted
    /// in `iterations`).
    pub epa_iterations: u32,
    /// Points it took from support tables instead (not counted in `proposals`).
    pub epa_proposals: u32,
    /// Unit direction `n` certifying `lower` when finite: `min_{a∈A} n·a − max_{b∈B} n·b
    /// >= lower` (A lies beyond the plane on the `+n` side). Zero when no bound was computed.
    pub normal: V3,
    /// `true` when stopped by the tolerance, by overlap or by the rounding floor.
    pub converged: bool,
}

impl GjkResult {
    /// The vertices full scans of solids of `vertices` support points in all would have
    /// examined over every support query (GJK's and the expanding polytope's): what the
    /// kernel's cost counters count.
    #[inline(always)]
    pub fn full_scan_vertices(&self, vertices: usize) -> u32 {
        (self.iterations + self.epa_iterations) * vertices as u32
    }
}

/// GJK distance between `a` and `b` (see the module docs for the guarantee).
///
/// `init_dir` seeds the cold start; pass roughly `center(b) − center(a)` (any non-zero
/// vector is valid). `warm`, when given and non-empty, rebuilds the previous witness simplex
/// from its ids at the solids' current placement instead; on return it holds this query's
/// witness. `max_iter` caps the number of support queries.
#[inline]
pub fn gjk_distance<A: SupportMap, B: SupportMap>(
    a: &A,
    b: &B,
    init_dir: V3,
    warm: Option<&mut Witness>,
    max_iter: u32,
) -> GjkResult {
    gjk_distance_tol(a, b, init_dir, warm, max_iter, TOL_ABS, TOL_REL)
}

/// [`gjk_distance`] between a placed hull and a solid already placed in the hull's frame
/// (see [`PosedHull::hull_to_local`] and its siblings): the hull's own points are scanned
/// untransformed, which saves a rotation per support query. `init_dir` and the returned
/// normal are in the common frame.
#[inline]
pub fn gjk_in_hull_frame<B: SupportMap>(
    hull: &PosedHull<'_>,
    other_local: &B,
    init_dir: V3,
    warm: Option<&mut Witness>,
) -> GjkResult {
    in_frame_of(hull, init_dir, |dir| {
        gjk_distance(&hull.pts, other_local, dir, warm, MAX_ITER)
    })
}

/// [`gjk_in_hull_frame`] with the depth bounded tightly in overlap ([`gjk_cso_depth`]).
#[inline]
pub fn gjk_in_hull_frame_depth<B: SupportMap>(
    hull: &PosedHull<'_>,
    other_local: &B,
    init_dir: V3,
    warm: Option<&mut Witness>,
    limits: DepthLimits,
) -> GjkResult {
    in_frame_of(hull, init_dir, |dir| {
        gjk_cso_depth(
            &Difference(&hull.pts, other_local),
            dir,
            warm,
            MAX_ITER,
            TOL_ABS,
            TOL_REL,
            limits,
        )
    })
}

/// Runs a GJK query posed in `hull`'s frame: `init_dir` (common frame) is rotated in and the
/// certifying normal rotated back out.
#[inline(always)]
pub(crate) fn in_frame_of(
    hull: &PosedHull<'_>,
    init_dir: V3,
    run: impl FnOnce(V3) -> GjkResult,
) -> GjkResult {
    let mut g = run(mul_mtv(&hull.rot, init_dir));
    g.normal = mul_mv(&hull.rot, g.normal);
    g
}

/// [`gjk_distance`] with explicit convergence tolerances (`upper − lower <= tol_abs +
/// tol_rel · upper`). The result is a lower bound whatever the tolerances.
#[inline]
pub fn gjk_distance_tol<A: SupportMap, B: SupportMap>(
    a: &A,
    b: &B,
    init_dir: V3,
    warm: Option<&mut Witness>,
    max_iter: u32,
    tol_abs: f64,
    tol_rel: f64,
) -> GjkResult {
    gjk_cso(
        &Difference(a, b),
        init_dir,
        warm,
        max_iter,
        tol_abs,
        tol_rel,
    )
}

/// GJK on any configuration-space obstacle (see the module docs). Overlap: the cheap bound
/// (the scans made so far), valid but loose; [`gjk_cso_depth`] bounds the depth tightly.
#[inline]
pub fn gjk_cso<C: Cso>(
    c: &C,
    init_dir: V3,
    warm: Option<&mut Witness>,
    max_iter: u32,
    tol_abs: f64,
    tol_rel: f64,
) -> GjkResult {
    gjk_cso_impl(c, init_dir, warm, max_iter, tol_abs, tol_rel, None, None)
}

/// When the expanding polytope ([`gjk_cso_depth`]) may stop before it converges: both
/// leave the bound a lower bound, and neither changes what a caller that folds it by `max`
/// with `floor` and `min` with `ceiling` ends up with (up to the tolerance).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DepthLimits {
    /// A lower bound the caller already holds: the expansion stops once it proves that
    /// nothing above `floor` (plus the tolerance) is left to find.
    pub floor: f64,
    /// A value the caller takes the minimum with: the expansion is not run, or stops, once
    /// the bound reaches it.
    pub ceiling: f64,
    /// The level above which the caller needs no exact value (its refinement threshold):
    /// GJK stops apart once its bound is above it. Unlike `ceiling` it also stops the apart
    /// phase, so it must never be below what the caller compares with (its margin).
    pub settle: f64,
}

impl DepthLimits {
    /// No early stop: the expansion runs to convergence (or its cap).
    pub const NONE: DepthLimits = DepthLimits {
        floor: f64::NEG_INFINITY,
        ceiling: f64::INFINITY,
        settle: f64::INFINITY,
    };
}

/// [`gjk_cso`], and in overlap the expanding polytope (`epa`): `lower` is then within the
/// tolerance of the signed distance `−depth` on convergence, a lower bound in every case
/// (see [`DepthLimits`] for the early stops). `converged` in overlap: the expansion
/// converged or stopped at a limit.
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn gjk_cso_depth<C: Cso>(
    c: &C,
    init_dir: V3,
    warm: Option<&mut Witness>,
    max_iter: u32,
    tol_abs: f64,
    tol_rel: f64,
    limits: DepthLimits,
) -> GjkResult {
    gjk_cso_impl(
        c,
        init_dir,
        warm,
        max_iter,
        tol_abs,
        tol_rel,
        Some(limits),
        None,
    )
}

/// [`gjk_cso_depth`] run to convergence (no [`DepthLimits`], cold start) that also reports
/// the points behind its answer in `out` (see [`SimplexWeights`]): apart, GJK's final
/// simplex and the weights of its point nearest the origin; in overlap, the expanding
/// polytope's triangle nearest the origin and the weights of its point nearest the origin
/// (a start that could not be blown up to a tetrahedron: GJK's simplex holding the origin,
/// when it has at most three points). Only witness queries ask for it; the checking
/// routines pass nothing and run the same code as before.
#[inline(never)]
pub fn gjk_cso_depth_weights<C: Cso>(
    c: &C,
    init_dir: V3,
    max_iter: u32,
    tol_abs: f64,
    tol_rel: f64,
    out: &mut SimplexWeights,
) -> GjkResult {
    *out = SimplexWeights::default();
    gjk_cso_impl(
        c,
        init_dir,
        None,
        max_iter,
        tol_abs,
        tol_rel,
        Some(DepthLimits::NONE),
        Some(out),
    )
}

#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn gjk_cso_impl<C: Cso>(
    c: &C,
    init_dir: V3,
    warm: Option<&mut Witness>,
    max_iter: u32,
    tol_abs: f64,
    tol_rel: f64,
    depth: Option<DepthLimits>,
    mut weights: Option<&mut SimplexWeights>,
) -> GjkResult {
    let mut s = Simplex {
        n: 0,
        p: [[0.0; 3]; 4],
        ia: [0; 4],
        ib: [0; 4],
    };
    let mut bound = Bound {
        lower: f64::NEG_INFINITY,
        normal: [0.0; 3],
    };
    let mut iterations = 0u32;
    let mut proposals = 0u32;
    let seed = if norm2(init_dir) > 0.0 {
        init_dir
    } else {
        // Zero or NaN: any direction is valid.
        [1.0, 0.0, 0.0]
    };
    let warm_in = warm.as_ref().map(|w| **w).unwrap_or_default();
    // Proposals alone found the solids overlapping.
    let mut overlap = false;
    let first_scan = |s: &mut Simplex, bound: &mut Bound, iterations: &mut u32| {
        let (w, ia, ib) = scan_seed(c, seed, bound, iterations);
        s.push(w, ia, ib);
        s.closest()
    };
    let mut v = if warm_in.n > 0 {
        for k in 0..warm_in.n as usize {
            let (ia, ib) = (warm_in.ia[k], warm_in.ib[k]);
            s.push(c.point(ia, ib), ia, ib);
        }
        // GJK's invariants need not hold for a rebuilt simplex: every region is examined.
        s.closest_rebuilt()
    } else if c.has_proposals() {
        let (outcome, n) = propose(c, seed, &mut s, max_iter.max(1), tol_abs, tol_rel);
        proposals = n;
        match outcome {
            Proposed::Apart(v) => v,
            Proposed::Overlap => {
                // One scan along the seed bounds the signed distance (the expanding polytope
                // below, when asked for, tightens it).
                scan_seed(c, seed, &mut bound, &mut iterations);
                overlap = true;
                [0.0; 3]
            }
            Proposed::NearOrigin => {
                // The solids may only touch, where the exact value is 0 and the direction of
                // `v` is rounding noise: the plain GJK, with full scans only, finds it.
                s.n = 0;
                first_scan(&mut s, &mut bound, &mut iterations)
            }
        }
    } else {
        first_scan(&mut s, &mut bound, &mut iterations)
    };

    let settle = depth.map_or(f64::INFINITY, |l| l.settle);
    let mut prev_ub = f64::INFINITY;
    let mut prev_simplex: Option<Simplex> = None;
    let wants_weights = weights.is_some();
    let (mut epa_iterations, mut epa_proposals) = (0u32, 0u32);
    // A warm start's seed for the next call when the expanding polytope runs.
    let mut epa_seed = Witness::default();
    let keeps_seed = warm.is_some();
    let mut in_overlap = |s: &Simplex, bound: &mut Bound, iterations: &mut u32| {
        let epa_counts = (&mut epa_iterations, &mut epa_proposals);
        overlap_bound(
            c,
            s,
            bound,
            iterations,
            epa_counts,
            seed,
            depth,
            (tol_abs, tol_rel),
            weights.as_deref_mut(),
            keeps_seed.then_some(&mut epa_seed),
        )
    };
    let (lower, upper, converged) = if overlap {
        in_overlap(&s, &mut bound, &mut iterations)
    } else {
        loop {
            let vv = norm2(v);
            if vv <= 1e-300 {
                break in_overlap(&s, &mut bound, &mut iterations);
            }
            let upper = vv.sqrt();
            let tol = tol_abs + tol_rel * upper;
            if upper - bound.lower <= tol || bound.lower > settle {
                break (bound.lower, upper, true);
            }
            if upper >= prev_ub {
                // No progress: the rounding floor, where the last point (nearly coplanar
                // with the simplex) can make its nearest point worse. The simplex before it
                // is the better one, and the one a caller weighs for witness points.
                if let Some(prev) = prev_simplex {
                    s = prev;
                }
                break (bound.lower, prev_ub, true);
            }
            if iterations >= max_iter.max(1) {
                // Cap reached; at least one scan was made.
                break (bound.lower, upper, false);
            }
            prev_ub = upper;
            let d = neg(v);
            let (w, ia, ib) = c.support(d);
            iterations += 1;
            bound.fold(w, d, upper);
            if upper - bound.lower <= tol || bound.lower > settle || s.contains(ia, ib) {
                break (bound.lower, upper, true);
            }
            if wants_weights {
                prev_simplex = Some(s);
            }
            s.push(w, ia, ib);
            v = s.closest();
        }
    };
    if let Some(wt) = warm {
        *wt = if epa_seed.n > 0 {
            epa_seed
        } else {
            Witness {
                n: s.n as u8,
                ia: s.ia,
                ib: s.ib,
            }
        };
    }
    if let Some(out) = weights {
        // Apart: the simplex's point nearest the origin. Overlap without a polytope face:
        // the origin's place on a simplex of at most three points (touching).
        if out.n == 0 && s.n <= 3 {
            simplex_weights(&s.p[..s.n], &s.ia[..s.n], &s.ib[..s.n], [0.0; 3], out);
        }
    }
    GjkResult {
        lower,
        upper,
        iterations,
        proposals,
        epa_iterations,
        epa_proposals,
        normal: bound.normal,
        converged,
    }
}

/// The origin lies on the simplex `s`, a subset of `A − B`: the solids overlap, and the
/// signed distance is at most 0. Its bound: the expanding polytope's (`depth`), or (cheap)
/// the scans made so far; a warm-started simplex may hold the origin before any scan, and a
/// scan along the seed then gives one. Returns `(lower, upper, converged)`. Out of line:
/// GJK's own loop stays as small as before.
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn overlap_bound<C: Cso>(
    c: &C,
    s: &Simplex,
    bound: &mut Bound,
    iterations: &mut u32,
    epa_counts: (&mut u32, &mut u32),
    seed: V3,
    depth: Option<DepthLimits>,
    (tol_abs, tol_rel): (f64, f64),
    weights: Option<&mut SimplexWeights>,
    warm_seed: Option<&mut Witness>,
) -> (f64, f64, bool) {
    let converged = match depth {
        // The scans so far already reach the ceiling: nothing to tighten.
        Some(lim) if bound.lower >= lim.ceiling => true,
        Some(lim) => epa(
            c,
            s,
            bound,
            epa_counts,
            lim,
            (tol_abs, tol_rel),
            weights,
            warm_seed,
        ),
        None => true,
    };
    if !bound.lower.is_finite() {
        scan_seed(c, seed, bound, iterations);
    }
    (bound.lower.min(0.0), 0.0, converged)
}

/// One full scan along the seed direction, its bound folded in.
#[inline(always)]
pub(super) fn scan_seed<C: Cso>(
    c: &C,
    seed: V3,
    bound: &mut Bound,
    iterations: &mut u32,
) -> (V3, u32, u32) {
    let (w, ia, ib) = c.support(seed);
    *iterations += 1;
    bound.fold(w, seed, norm2(seed).sqrt());
    (w, ia, ib)
}

/// The best lower bound so far and the unit normal certifying it.
pub(super) struct Bound {
    lower: f64,
    normal: V3,
}

impl Bound {
    /// Folds in the bound `−w · d / |d|` of a full scan's point `w` along `d` (`|d|` given,
    /// so the caller's square root serves).
    #[inline(always)]
    fn fold(&mut self, w: V3, d: V3, d_norm: f64) {
        let lb = -dot(w, d) / d_norm;
        if lb > self.lower {
            self.lower = lb;
            self.normal = scale(d, -1.0 / d_norm);
        }
    }
}
