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

use super::shapes::{PosedHull, SupportMap};
use super::vec3::{V3, add, cross, dot, mul_mtv, mul_mv, neg, norm2, scale, select, sub};

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

/// A staged distance and what its GJK cost: hull vertices scanned (full scans times the
/// hulls' vertices; 0 when stage 1 settled it). The kernel counts it for cost estimates.
/// The expanding polytope's work in overlap counts as GJK's does (a step per full scan or
/// proposal, a full scan's vertices), and is also given apart in `epa_steps`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Staged {
    pub value: f64,
    /// GJK steps: support queries (full scans) and table proposals.
    pub steps: u32,
    pub scanned: u32,
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

#[derive(Clone, Copy)]
struct Simplex {
    n: usize,
    p: [V3; 4],
    ia: [u32; 4],
    ib: [u32; 4],
}

impl Simplex {
    /// Keeps the points at the ascending positions `idx` (moved down in place: every
    /// `idx[k] >= k`, so no kept point is overwritten before it is moved).
    #[inline(always)]
    fn keep(&mut self, idx: &[usize]) {
        for (k, &i) in idx.iter().enumerate() {
            self.p[k] = self.p[i];
            self.ia[k] = self.ia[i];
            self.ib[k] = self.ib[i];
        }
        self.n = idx.len();
    }

    #[inline(always)]
    fn push(&mut self, w: V3, ia: u32, ib: u32) {
        self.p[self.n] = w;
        self.ia[self.n] = ia;
        self.ib[self.n] = ib;
        self.n += 1;
    }

    #[inline(always)]
    fn contains(&self, ia: u32, ib: u32) -> bool {
        (0..self.n).any(|k| self.ia[k] == ia && self.ib[k] == ib)
    }

    /// Nearest point of the simplex to the origin; reduces the simplex to the smallest face
    /// holding it. Returns `[0; 3]` when the origin is inside a full tetrahedron.
    ///
    /// The newest point is always last. In exact arithmetic the nearest point lies in a
    /// region holding it (the others were the previous simplex, whose nearest point gave the
    /// search direction), so [`Self::closest_with_newest`] examines only those regions; the
    /// general routine takes degenerate simplices and any disagreement of the tests. Any
    /// error here only slows convergence: the lower bound is built from support values alone.
    #[inline(always)]
    fn closest(&mut self) -> V3 {
        match self.closest_with_newest() {
            Some((u, den)) => scale(u, 1.0 / den),
            None => self.closest_general(),
        }
    }

    /// [`Self::closest`] of a simplex rebuilt from a witness: every region, every face.
    #[inline]
    fn closest_rebuilt(&mut self) -> V3 {
        if self.n == 4 {
            self.closest_tetra(true)
        } else {
            self.closest_general()
        }
    }

    /// [`Self::closest`] over every region (degenerate simplices, rounding).
    #[inline(always)]
    fn closest_general(&mut self) -> V3 {
        match self.n {
            1 => self.p[0],
            2 => {
                let (v, keep) = closest_segment(self.p[0], self.p[1]);
                match keep {
                    Keep::A => self.keep(&[0]),
                    Keep::B => self.keep(&[1]),
                    Keep::All => {}
                }
                v
            }
            3 => {
                let (v, k) = closest_triangle(self.p[0], self.p[1], self.p[2]);
                self.keep_tri(k, [0, 1, 2]);
                v
            }
            _ => self.closest_tetra(false),
        }
    }

    #[inline(always)]
    fn keep_tri(&mut self, k: TriKeep, map: [usize; 3]) {
        match k {
            TriKeep::V(i) => self.keep(&[map[i]]),
            TriKeep::E(i, j) => self.keep(&[map[i], map[j]]),
            TriKeep::F => self.keep(&map),
        }
    }

    /// The nearest point of a tetrahedron. `all_faces`: a simplex rebuilt from a witness,
    /// where GJK's invariant (the origin lies beyond the old face `abc` from the newest point)
    /// need not hold.
    #[inline(always)]
    fn closest_tetra(&mut self, all_faces: bool) -> V3 {
        let [a, b, c, d] = self.p;
        let pts = [a, b, c, d];
        let ad = sub(d, a);
        let vol = dot(sub(b, a), cross(sub(c, a), ad));
        let size2 = norm2(sub(b, a)).max(norm2(sub(c, a))).max(norm2(ad));
        // NaN counts as degenerate (all faces are then examined).
        let degenerate = flat_tetrahedron(vol, size2);
        let faces = if degenerate || all_faces { 4 } else { 3 };
        let mut best_vv = f64::INFINITY;
        let mut best: Option<(V3, TriKeep, [usize; 3])> = None;
        // The old face `abc` (last) only for a degenerate or rebuilt tetrahedron.
        for &(f, opp) in &FACES_WITH_OPPOSITE[..faces] {
            let (p0, p1, p2) = (pts[f[0]], pts[f[1]], pts[f[2]]);
            let n = cross(sub(p1, p0), sub(p2, p0));
            let side_o = -dot(n, p0);
            let side_d = dot(n, sub(pts[opp], p0));
            // The origin is outside this face when it lies strictly on the other side of the
            // face plane from the opposite vertex.
            if degenerate || side_o * side_d < 0.0 {
                let (v, k) = closest_triangle(p0, p1, p2);
                let vv = norm2(v);
                if vv < best_vv || best.is_none() {
                    best_vv = vv;
                    best = Some((v, k, f));
                }
            }
        }
        match best {
            // Inside the tetrahedron: overlap.
            None => [0.0; 3],
            Some((v, k, f)) => {
                self.keep_tri(k, f);
                v
            }
        }
    }
}

/// A tetrahedron's faces, each with the vertex opposite to it: first the three holding the
/// newest point (position 3), then the old face `abc`, which GJK's own step never needs.
const FACES_WITH_OPPOSITE: [([usize; 3], usize); 4] = [
    ([0, 1, 3], 2),
    ([0, 2, 3], 1),
    ([1, 2, 3], 0),
    ([0, 1, 2], 3),
];

/// How far the origin lies inside the tetrahedron `p`: the least distance from it to a face
/// plane (0 or less when it is on or outside a face, or the tetrahedron is flat).
fn origin_depth_in_tetrahedron(p: &[V3; 4]) -> f64 {
    let mut depth = f64::INFINITY;
    for (f, opp) in FACES_WITH_OPPOSITE {
        let n = cross(sub(p[f[1]], p[f[0]]), sub(p[f[2]], p[f[0]]));
        let len = norm2(n).sqrt();
        // Positive when the origin is on the opposite vertex's side of the face plane.
        let side = dot(n, sub(p[opp], p[f[0]])).signum();
        let d = -side * dot(n, p[f[0]]) / len;
        depth = depth.min(if d.is_nan() { 0.0 } else { d });
    }
    depth
}

/// Whether a tetrahedron of (6 ×) signed volume `vol` and longest squared edge from its base
/// point `size2` is flat: `|vol| <= 1e-14 · size^1.5`, tested squared (no square root on the
/// GJK step's path). NaN counts as flat.
#[inline(always)]
fn flat_tetrahedron(vol: f64, size2: f64) -> bool {
    let bound = 1e-28 * size2 * size2 * size2;
    vol.is_nan() || bound.is_nan() || vol * vol <= bound
}

/// Nearest point to the origin of triangle `a b c` among the regions holding the newest
/// point `c` (vertex `c`, edges `ca`, `cb`, the face), as `u / den` with `den > 0` (no
/// division on GJK's serial chain), the region (0 `{c}`, 1 `{a, c}`, 2 `{b, c}`,
/// 3 `{a, b, c}`), and whether exactly one of those regions holds the origin's projection.
/// The conditions are the Voronoi-region tests of the general routine with `c` as the base
/// point, decided without a branch.
#[inline(always)]
fn triangle_with_newest(a: V3, b: V3, c: V3) -> (V3, f64, usize, bool) {
    let ca = sub(a, c);
    let cb = sub(b, c);
    let aa = dot(ca, ca);
    let ab = dot(ca, cb);
    let bb = dot(cb, cb);
    // The origin's offsets from `c` along the edges, and its unnormalised barycentric
    // coordinates on the face (weights of `a` and `b`, times `det`).
    let d1 = -dot(ca, c);
    let d2 = -dot(cb, c);
    let det = aa * bb - ab * ab;
    let sn = bb * d1 - ab * d2;
    let tn = aa * d2 - ab * d1;
    let vertex = (d1 <= 0.0) & (d2 <= 0.0);
    let edge_ca = (d1 > 0.0) & (d1 < aa) & (tn <= 0.0);
    let edge_cb = (d2 > 0.0) & (d2 < bb) & (sn <= 0.0);
    let face = (sn > 0.0) & (tn > 0.0) & (sn + tn < det) & (det > 1e-12 * aa * bb);
    let ok = u8::from(vertex) + u8::from(edge_ca) + u8::from(edge_cb) + u8::from(face) == 1;
    let s = select(face, sn, select(edge_ca, d1, 0.0));
    let t = select(face, tn, select(edge_cb, d2, 0.0));
    let den = select(face, det, select(edge_ca, aa, select(edge_cb, bb, 1.0)));
    let u = [
        den * c[0] + s * ca[0] + t * cb[0],
        den * c[1] + s * ca[1] + t * cb[1],
        den * c[2] + s * ca[2] + t * cb[2],
    ];
    let region = 3 * usize::from(face) + usize::from(edge_ca) + 2 * usize::from(edge_cb);
    (u, den, region, ok)
}

/// Per region of [`triangle_with_newest`]: how many points are kept, and their positions
/// in the triangle (ascending, as [`Simplex::keep`] needs).
const TRIANGLE_KEEP: [(usize, [usize; 3]); 4] = [
    (1, [2, 0, 0]),
    (2, [0, 2, 0]),
    (2, [1, 2, 0]),
    (3, [0, 1, 2]),
];
/// The tetrahedron's faces holding its newest point (position 3), positions ascending.
const TETRA_FACES: [[usize; 3]; 3] = [[0, 1, 3], [1, 2, 3], [0, 2, 3]];

impl Simplex {
    /// The nearest point as `(u, den)` (the point is `u / den`), looking only at regions
    /// that hold the newest point, and reducing the simplex to that region; `None` when the
    /// simplex is degenerate or the tests disagree (rounding), for the general routine.
    ///
    /// Why only those regions: a point is added only when it brings the simplex strictly
    /// nearer (`w · v < v · v`), so in exact arithmetic the new nearest point gives it a
    /// positive weight. Measured on the cold bench this path never declines, and it cuts a
    /// cold 152-vertex query from about 1.00 to 0.96 µs (fewer, better-predicted branches).
    #[inline(always)]
    fn closest_with_newest(&mut self) -> Option<(V3, f64)> {
        match self.n {
            1 => Some((self.p[0], 1.0)),
            2 => {
                let (a, b) = (self.p[0], self.p[1]);
                let ab = sub(b, a);
                let t = -dot(a, ab);
                let dd = norm2(ab);
                // (NaN goes to the general routine too.)
                if t.is_nan() || t <= 0.0 {
                    return None;
                }
                let on_segment = t < dd;
                let den = select(on_segment, dd, 1.0);
                let u = [
                    select(on_segment, dd * a[0] + t * ab[0], b[0]),
                    select(on_segment, dd * a[1] + t * ab[1], b[1]),
                    select(on_segment, dd * a[2] + t * ab[2], b[2]),
                ];
                let (n, idx) = if on_segment {
                    (2, [0, 1, 0])
                } else {
                    (1, [1, 0, 0])
                };
                self.keep(&idx[..n]);
                Some((u, den))
            }
            3 => {
                let (u, den, region, ok) = triangle_with_newest(self.p[0], self.p[1], self.p[2]);
                if !ok {
                    return None;
                }
                let (n, idx) = TRIANGLE_KEEP[region];
                self.keep(&idx[..n]);
                Some((u, den))
            }
            _ => {
                let [a, b, c, d] = self.p;
                let (da, db, dc) = (sub(a, d), sub(b, d), sub(c, d));
                // Face normals ordered so that each face's opposite vertex lies at `vol`.
                let n_abd = cross(da, db);
                let n_bcd = cross(db, dc);
                let n_acd = cross(dc, da);
                let vol = dot(n_abd, dc);
                if flat_tetrahedron(vol, norm2(da).max(norm2(db)).max(norm2(dc))) {
                    return None;
                }
                // A face sees the origin when the origin and the opposite vertex lie on
                // opposite sides of its plane.
                let sees = [
                    dot(n_abd, d) * vol > 0.0,
                    dot(n_bcd, d) * vol > 0.0,
                    dot(n_acd, d) * vol > 0.0,
                ];
                if !(sees[0] | sees[1] | sees[2]) {
                    // Inside the tetrahedron: overlap.
                    return Some(([0.0; 3], 1.0));
                }
                let faces = [
                    triangle_with_newest(a, b, d),
                    triangle_with_newest(b, c, d),
                    triangle_with_newest(a, c, d),
                ];
                // The nearest of the faces that see the origin, compared without dividing:
                // |u_i|²/den_i² < |u_j|²/den_j²  ⇔  |u_i|² den_j² < |u_j|² den_i².
                let key = |k: usize| {
                    let (u, den, _, ok) = faces[k];
                    (select(sees[k] & ok, norm2(u), f64::INFINITY), den)
                };
                let (q0, e0) = key(0);
                let (q1, e1) = key(1);
                let (q2, e2) = key(2);
                let one_beats_zero = q1 * e0 * e0 < q0 * e1 * e1;
                let (q01, e01) = (
                    select(one_beats_zero, q1, q0),
                    select(one_beats_zero, e1, e0),
                );
                let two_beats = q2 * e01 * e01 < q01 * e2 * e2;
                if select(two_beats, q2, q01) == f64::INFINITY {
                    return None;
                }
                let best = if two_beats {
                    2
                } else {
                    usize::from(one_beats_zero)
                };
                let (u, den, region, _) = faces[best];
                let face = TETRA_FACES[best];
                let (n, idx) = TRIANGLE_KEEP[region];
                self.keep(&[face[idx[0]], face[idx[1]], face[idx[2]]][..n]);
                Some((u, den))
            }
        }
    }
}

enum Keep {
    A,
    B,
    All,
}

#[derive(Clone, Copy)]
enum TriKeep {
    V(usize),
    E(usize, usize),
    F,
}

#[inline(always)]
fn closest_segment(a: V3, b: V3) -> (V3, Keep) {
    let d = sub(b, a);
    let t = -dot(a, d);
    if t <= 0.0 {
        return (a, Keep::A);
    }
    let dd = norm2(d);
    if t >= dd {
        return (b, Keep::B);
    }
    (add(a, scale(d, t / dd)), Keep::All)
}

/// Nearest point of triangle `abc` to the origin by Voronoi-region classification.
#[inline(always)]
fn closest_triangle(a: V3, b: V3, c: V3) -> (V3, TriKeep) {
    let ab = sub(b, a);
    let ac = sub(c, a);
    let d1 = -dot(ab, a);
    let d2 = -dot(ac, a);
    if d1 <= 0.0 && d2 <= 0.0 {
        return (a, TriKeep::V(0));
    }
    let d3 = -dot(ab, b);
    let d4 = -dot(ac, b);
    if d3 >= 0.0 && d4 <= d3 {
        return (b, TriKeep::V(1));
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let t = d1 / (d1 - d3);
        return (add(a, scale(ab, t)), TriKeep::E(0, 1));
    }
    let d5 = -dot(ab, c);
    let d6 = -dot(ac, c);
    if d6 >= 0.0 && d5 <= d6 {
        return (c, TriKeep::V(2));
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let t = d2 / (d2 - d6);
        return (add(a, scale(ac, t)), TriKeep::E(0, 2));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return (add(b, scale(sub(c, b), t)), TriKeep::E(1, 2));
    }
    let sum = va + vb + vc;
    if sum > 0.0 && sum.is_finite() {
        let inv = 1.0 / sum;
        let v = add(a, add(scale(ab, vb * inv), scale(ac, vc * inv)));
        return (v, TriKeep::F);
    }
    // Degenerate (collinear) triangle: best of the three edges.
    let cand = [(a, b, (0, 1)), (a, c, (0, 2)), (b, c, (1, 2))];
    let mut best = (f64::INFINITY, a, TriKeep::V(0));
    for (p, q, (i, j)) in cand {
        let (v, k) = closest_segment(p, q);
        let vv = norm2(v);
        if vv < best.0 {
            let keep = match k {
                Keep::A => TriKeep::V(i),
                Keep::B => TriKeep::V(j),
                Keep::All => TriKeep::E(i, j),
            };
            best = (vv, v, keep);
        }
    }
    (best.1, best.2)
}

/// The configuration-space obstacle `A − B` GJK works on, by its support map.
pub trait Cso {
    /// The point of `A − B` maximising `d · x`, with the ids of its two vertices.
    fn support(&self, d: V3) -> (V3, u32, u32);
    /// The point of `A − B` with the given vertex ids (a witness rebuilt from ids).
    fn point(&self, ia: u32, ib: u32) -> V3;
    /// Whether [`Self::proposal`] is cheaper than [`Self::support`] (a support table).
    fn has_proposals(&self) -> bool;
    /// A point of `A − B` near the support along `d`, with its ids, found cheaply: used
    /// only to propose simplex points, never for a bound.
    fn proposal(&self, d: V3) -> (V3, u32, u32);
}

/// `A − B` for any two support-mapped solids.
pub struct Difference<'s, A, B>(pub &'s A, pub &'s B);

impl<A: SupportMap, B: SupportMap> Cso for Difference<'_, A, B> {
    #[inline(always)]
    fn support(&self, d: V3) -> (V3, u32, u32) {
        let (pa, ia) = self.0.support(d);
        let (pb, ib) = self.1.support(neg(d));
        (sub(pa, pb), ia, ib)
    }

    #[inline(always)]
    fn point(&self, ia: u32, ib: u32) -> V3 {
        sub(self.0.vertex(ia), self.1.vertex(ib))
    }

    #[inline(always)]
    fn has_proposals(&self) -> bool {
        self.0.has_table() || self.1.has_table()
    }

    #[inline(always)]
    fn proposal(&self, d: V3) -> (V3, u32, u32) {
        let (pa, ia) = self.0.proposal(d);
        let (pb, ib) = self.1.proposal(neg(d));
        (sub(pa, pb), ia, ib)
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
}

impl DepthLimits {
    /// No early stop: the expansion runs to convergence (or its cap).
    pub const NONE: DepthLimits = DepthLimits {
        floor: f64::NEG_INFINITY,
        ceiling: f64::INFINITY,
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

/// The weights of the point of the simplex `p[..n]` (`n <= 3`) nearest to `q`.
fn simplex_weights(p: &[V3], ia: &[u32], ib: &[u32], q: V3, out: &mut SimplexWeights) {
    let n = p.len().min(3);
    out.n = n as u8;
    out.ia[..n].copy_from_slice(&ia[..n]);
    out.ib[..n].copy_from_slice(&ib[..n]);
    out.w = [0.0; 4];
    let w = super::witness::closest_weights(&p[..n], q);
    out.w[..3].copy_from_slice(&w);
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

    let mut prev_ub = f64::INFINITY;
    let (mut epa_iterations, mut epa_proposals) = (0u32, 0u32);
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
            if upper - bound.lower <= tol {
                break (bound.lower, upper, true);
            }
            if upper >= prev_ub || iterations >= max_iter.max(1) {
                // No progress (rounding floor) or cap reached; at least one scan was made.
                break (bound.lower, upper, upper >= prev_ub);
            }
            prev_ub = upper;
            let d = neg(v);
            let (w, ia, ib) = c.support(d);
            iterations += 1;
            bound.fold(w, d, upper);
            if upper - bound.lower <= tol || s.contains(ia, ib) {
                break (bound.lower, upper, true);
            }
            s.push(w, ia, ib);
            v = s.closest();
        }
    };
    if let Some(wt) = warm {
        wt.n = s.n as u8;
        wt.ia = s.ia;
        wt.ib = s.ib;
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
) -> (f64, f64, bool) {
    let converged = match depth {
        // The scans so far already reach the ceiling: nothing to tighten.
        Some(lim) if bound.lower >= lim.ceiling => true,
        Some(lim) => epa(c, s, bound, epa_counts, lim, (tol_abs, tol_rel), weights),
        None => true,
    };
    if !bound.lower.is_finite() {
        scan_seed(c, seed, bound, iterations);
    }
    (bound.lower.min(0.0), 0.0, converged)
}

/// How the proposals ended (see [`propose`]).
enum Proposed {
    /// The simplex stopped nearing the origin: full scans take over from it and its
    /// nearest point.
    Apart(V3),
    /// The origin lies inside a tetrahedron of `A − B` by more than the tolerance.
    Overlap,
    /// The simplex came within the tolerance of the origin without holding it deeply.
    NearOrigin,
}

/// The cold start with support tables: GJK steps on proposed points only, each joining the
/// simplex when it brings it nearer by more than the tolerance (as a scanned point must),
/// until one does not, or `max` proposals. No bound is taken from them. Returns the outcome
/// and the number of proposals.
#[inline(always)]
fn propose<C: Cso>(
    c: &C,
    seed: V3,
    s: &mut Simplex,
    max: u32,
    tol_abs: f64,
    tol_rel: f64,
) -> (Proposed, u32) {
    let (w, ia, ib) = c.proposal(seed);
    s.push(w, ia, ib);
    let mut proposals = 1;
    let mut prev_ub = f64::INFINITY;
    loop {
        let v = s.closest();
        let vv = norm2(v);
        if vv <= tol_abs * tol_abs {
            let deep = vv <= 1e-300 && s.n == 4 && origin_depth_in_tetrahedron(&s.p) > tol_abs;
            let outcome = if deep {
                Proposed::Overlap
            } else {
                Proposed::NearOrigin
            };
            return (outcome, proposals);
        }
        let upper = vv.sqrt();
        if upper >= prev_ub || proposals >= max {
            return (Proposed::Apart(v), proposals);
        }
        prev_ub = upper;
        let (w, ia, ib) = c.proposal(neg(v));
        proposals += 1;
        if vv - dot(w, v) <= (tol_abs + tol_rel * upper) * upper || s.contains(ia, ib) {
            return (Proposed::Apart(v), proposals);
        }
        s.push(w, ia, ib);
    }
}

/// One full scan along the seed direction, its bound folded in.
#[inline(always)]
fn scan_seed<C: Cso>(c: &C, seed: V3, bound: &mut Bound, iterations: &mut u32) -> (V3, u32, u32) {
    let (w, ia, ib) = c.support(seed);
    *iterations += 1;
    bound.fold(w, seed, norm2(seed).sqrt());
    (w, ia, ib)
}

/// The best lower bound so far and the unit normal certifying it.
struct Bound {
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

/// Vertices the expanding polytope holds: the start tetrahedron, the points that blow up a
/// lower-dimensional start (at most three) and one per expansion step.
const EPA_MAX_VERTS: usize = 4 + 3 + EPA_MAX_ITER as usize;
/// Faces: a closed triangulated polytope of `V` vertices has `2V − 4`.
const EPA_MAX_FACES: usize = 2 * EPA_MAX_VERTS - 4;
/// Expansion steps (full scans) the polytope may take.
pub const EPA_MAX_ITER: u32 = 64;

/// No neighbour (a face store that could not be closed; never followed).
const NONE: u8 = u8::MAX;

/// A face of the expanding polytope: vertex positions wound counter-clockwise seen from
/// outside, the faces across its edges (`adj[e]` across `v[e] → v[e + 1]`), unit outward
/// normal and plane offset (`n · x = dist` on the plane).
#[derive(Clone, Copy)]
struct Face {
    v: [u8; 3],
    adj: [u8; 3],
    n: V3,
    dist: f64,
    alive: bool,
}

impl Face {
    /// An unused slot (all bits zero, so that the store is cleared by a plain memset; slots
    /// past `Polytope::nf` are never read).
    const UNUSED: Face = Face {
        v: [0; 3],
        adj: [0; 3],
        n: [0.0; 3],
        dist: 0.0,
        alive: false,
    };

    const DEAD: Face = Face {
        v: [0; 3],
        adj: [NONE; 3],
        n: [0.0; 3],
        dist: f64::INFINITY,
        alive: false,
    };
}

/// The expanding polytope: points of `A − B` (with their vertex ids) and its faces, in fixed
/// arrays (no allocation).
struct Polytope {
    p: [V3; EPA_MAX_VERTS],
    ia: [u32; EPA_MAX_VERTS],
    ib: [u32; EPA_MAX_VERTS],
    nv: usize,
    f: [Face; EPA_MAX_FACES],
    /// Face slots in use (alive or dead): `f[..nf]`.
    nf: usize,
}

impl Polytope {
    fn has(&self, ia: u32, ib: u32) -> bool {
        (0..self.nv).any(|k| self.ia[k] == ia && self.ib[k] == ib)
    }

    fn push(&mut self, w: V3, ia: u32, ib: u32) {
        self.p[self.nv] = w;
        self.ia[self.nv] = ia;
        self.ib[self.nv] = ib;
        self.nv += 1;
    }

    /// The face `a b c` (wound outward), neighbours unset. A degenerate face (no normal) is
    /// kept for the topology but never chosen (`dist = ∞`) and never seen.
    fn face(&self, v: [u8; 3]) -> Face {
        let [a, b, c] = v.map(|k| self.p[k as usize]);
        let n = cross(sub(b, a), sub(c, a));
        let len = norm2(n).sqrt();
        if !(len > 0.0 && len.is_finite()) {
            return Face {
                v,
                alive: true,
                ..Face::DEAD
            };
        }
        let n = scale(n, 1.0 / len);
        Face {
            v,
            adj: [NONE; 3],
            n,
            dist: dot(n, a),
            alive: true,
        }
    }

    /// The four faces of the start tetrahedron (positive volume from the caller's order
    /// `b, c`), and their neighbours.
    fn start(&mut self, b: u8, c: u8) {
        let faces = [[0, c, b], [0, b, 3], [0, 3, c], [b, c, 3]];
        for (i, v) in faces.into_iter().enumerate() {
            self.f[i] = self.face(v);
        }
        self.nf = 4;
        for i in 0..4 {
            for e in 0..3 {
                let (x, y) = (self.f[i].v[e], self.f[i].v[(e + 1) % 3]);
                for j in 0..4 {
                    if j != i
                        && (0..3).any(|k| self.f[j].v[k] == y && self.f[j].v[(k + 1) % 3] == x)
                    {
                        self.f[i].adj[e] = j as u8;
                    }
                }
            }
        }
    }

    /// Adds `w` and replaces the faces it sees, found by walking the neighbours from
    /// `first` (the face whose normal found `w`; always removed), by the cone from `w` over
    /// their boundary. `false` when a store is full.
    fn expand(&mut self, w: V3, ia: u32, ib: u32, first: usize) -> bool {
        let k = self.nv as u8;
        self.push(w, ia, ib);
        let mut gone = [false; EPA_MAX_FACES];
        let mut removed = [0u8; EPA_MAX_FACES];
        removed[0] = first as u8;
        gone[first] = true;
        let (mut nr, mut next) = (1, 0);
        while next < nr {
            let f = self.f[removed[next] as usize];
            next += 1;
            for &g in &f.adj {
                let g = g as usize;
                if g < self.nf && !gone[g] && self.f[g].alive {
                    let h = &self.f[g];
                    if dot(h.n, w) - h.dist > 0.0 {
                        gone[g] = true;
                        removed[nr] = g as u8;
                        nr += 1;
                    }
                }
            }
        }
        // The boundary: edges of removed faces whose neighbour stays, with that neighbour.
        let mut horizon = [(0u8, 0u8, 0u8); EPA_MAX_FACES];
        let mut nh = 0;
        for &i in &removed[..nr] {
            let f = self.f[i as usize];
            for e in 0..3 {
                let g = f.adj[e] as usize;
                if g < self.nf && !gone[g] {
                    if nh == EPA_MAX_FACES {
                        return false;
                    }
                    horizon[nh] = (f.v[e], f.v[(e + 1) % 3], g as u8);
                    nh += 1;
                }
            }
        }
        if nh > nr + EPA_MAX_FACES - self.nf {
            return false;
        }
        for &i in &removed[..nr] {
            self.f[i as usize].alive = false;
        }
        // One new face per boundary edge: the removed faces' slots, then new ones.
        let mut slots = [0u8; EPA_MAX_FACES];
        for (h, &(a, b, g)) in horizon[..nh].iter().enumerate() {
            let slot = if h < nr {
                removed[h] as usize
            } else {
                self.nf += 1;
                self.nf - 1
            };
            let mut f = self.face([a, b, k]);
            f.adj[0] = g;
            self.f[slot] = f;
            // The kept neighbour now borders the new face across `b → a`.
            let out = &mut self.f[g as usize];
            for e in 0..3 {
                if out.v[e] == b && out.v[(e + 1) % 3] == a {
                    out.adj[e] = slot as u8;
                }
            }
            slots[h] = slot as u8;
        }
        // New faces border each other across `b → k` and `k → a`.
        for h in 0..nh {
            let (_, b, _) = horizon[h];
            if let Some(j) = (0..nh).find(|&j| horizon[j].0 == b) {
                self.f[slots[h] as usize].adj[1] = slots[j];
                self.f[slots[j] as usize].adj[2] = slots[h];
            }
        }
        true
    }
}

/// The expanding polytope (EPA) in overlap, from GJK's final simplex `s` (points of `A − B`
/// whose hull holds the origin): a **lower bound on the signed distance**, within the
/// tolerance of `−depth` on convergence, folded into `bound`.
///
/// Why it is a lower bound whatever the polytope does: the signed distance of the origin to
/// `C = A − B` is `max_{|u| = 1} −h_C(u)` (for the origin outside `C` this is the distance,
/// inside it is minus the depth, `min_u h_C(u)`), so each full scan along a unit `u` gives
/// `−h_C(u) <= signed distance`, the same support-plane bound GJK folds. The polytope only
/// chooses the directions: each step scans along the outward normal of its face nearest the
/// origin. The polytope lies inside `C`, so while it holds the origin its nearest face's
/// distance `δ` is at most the depth: `−δ` is an upper estimate, and the steps stop when
/// the scan's bound is within `tol_abs + tol_rel·δ` of it (converged), when `−δ <= floor`
/// plus that tolerance (the caller's `floor` is then exact within it), when a scan returns a
/// point the polytope already has, or after [`EPA_MAX_ITER`] scans (`false`: a lower bound,
/// not converged). A start simplex of fewer than four points (the origin on a triangle,
/// edge or vertex of `C`: the solids may only touch) is first blown up by scans across it;
/// when `C` is flat along the normal, those scans already bound the signed distance at 0
/// within rounding, its exact value.
///
/// `weights` (witness queries only): on return, the polytope's triangle nearest the origin
/// and the weights of its point nearest the origin (`n == 0` when no polytope was built).
#[cold]
#[inline(never)]
fn epa<C: Cso>(
    c: &C,
    s: &Simplex,
    bound: &mut Bound,
    counts: (&mut u32, &mut u32),
    limits: DepthLimits,
    (tol_abs, tol_rel): (f64, f64),
    weights: Option<&mut SimplexWeights>,
) -> bool {
    let mut poly = Polytope {
        p: [[0.0; 3]; EPA_MAX_VERTS],
        ia: [0; EPA_MAX_VERTS],
        ib: [0; EPA_MAX_VERTS],
        nv: 0,
        f: [Face::UNUSED; EPA_MAX_FACES],
        nf: 0,
    };
    let converged = epa_expand(c, s, &mut poly, bound, counts, limits, tol_abs, tol_rel);
    if let Some(out) = weights {
        nearest_face_weights(&poly, out);
    }
    converged
}

/// The weights of the point of the polytope's boundary nearest the origin (inside it): the
/// nearest point of its nearest triangle, which need not be the face of the nearest plane
/// (rounding leaves nearly coplanar neighbours, and the origin's projection on one plane
/// may fall in the next triangle). A triangle is never nearer than its plane, so only faces
/// whose plane is nearer than the best triangle so far are examined.
fn nearest_face_weights(poly: &Polytope, out: &mut SimplexWeights) {
    *out = SimplexWeights::default();
    let mut order = [0u8; EPA_MAX_FACES];
    let mut n = 0;
    for i in 0..poly.nf {
        if poly.f[i].alive && poly.f[i].dist.is_finite() {
            order[n] = i as u8;
            n += 1;
        }
    }
    // By plane distance (insertion sort: no allocation, at most a few hundred faces).
    for k in 1..n {
        let mut j = k;
        while j > 0 && poly.f[order[j - 1] as usize].dist > poly.f[order[j] as usize].dist {
            order.swap(j - 1, j);
            j -= 1;
        }
    }
    let mut best_d2 = f64::INFINITY;
    for &i in &order[..n] {
        let f = poly.f[i as usize];
        if f.dist.max(0.0).powi(2) >= best_d2 {
            break;
        }
        let v = f.v.map(|k| k as usize);
        let pts = v.map(|k| poly.p[k]);
        let w = super::witness::closest_weights(&pts, [0.0; 3]);
        let x = add(
            add(scale(pts[0], w[0]), scale(pts[1], w[1])),
            scale(pts[2], w[2]),
        );
        let d2 = norm2(x);
        if d2 < best_d2 {
            best_d2 = d2;
            simplex_weights(
                &pts,
                &v.map(|k| poly.ia[k]),
                &v.map(|k| poly.ib[k]),
                [0.0; 3],
                out,
            );
        }
    }
}

/// The body of [`epa`], on its polytope.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn epa_expand<C: Cso>(
    c: &C,
    s: &Simplex,
    poly: &mut Polytope,
    bound: &mut Bound,
    (iterations, proposals): (&mut u32, &mut u32),
    limits: DepthLimits,
    tol_abs: f64,
    tol_rel: f64,
) -> bool {
    let DepthLimits { floor, ceiling } = limits;
    for k in 0..s.n {
        if !poly.has(s.ia[k], s.ib[k]) {
            poly.push(s.p[k], s.ia[k], s.ib[k]);
        }
    }
    let size = (0..poly.nv).fold(0.0f64, |m, k| m.max(norm2(poly.p[k])));
    // Points nearer than this to the start's span do not blow it up.
    let eps = tol_abs.max(1e-12 * size.sqrt());
    // A scan along `d`, its bound folded; the point when it lies off the span by > eps.
    let mut scan = |poly: &Polytope, d: V3, off: &dyn Fn(V3) -> f64| {
        let (w, ia, ib) = c.support(d);
        *iterations += 1;
        bound.fold(w, d, norm2(d).sqrt());
        (off(w) > eps && !poly.has(ia, ib)).then_some((w, ia, ib))
    };
    // Blow the start up to a tetrahedron; a flat one (rounding) loses its last point and is
    // blown up once more.
    let mut retried = false;
    let mut rounds = 0;
    let flat = |bound: &Bound| bound.lower >= -(tol_abs + tol_rel * bound.lower.abs());
    let vol = loop {
        while poly.nv < 4 {
            rounds += 1;
            if rounds > 12 {
                // Rounding keeps undoing the blow-up: the scans' bound stands.
                return flat(bound);
            }
            let p0 = poly.p[0];
            let found = match poly.nv {
                0 => None,
                1 => {
                    let axes = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
                    let off = |w: V3| norm2(sub(w, p0)).sqrt();
                    axes.iter()
                        .flat_map(|&a| [a, neg(a)])
                        .find_map(|d| scan(poly, d, &off))
                }
                2 => {
                    let e = sub(poly.p[1], p0);
                    let len = norm2(e).sqrt();
                    if len.is_nan() || len <= eps {
                        // Two points at one place: start again from one.
                        poly.nv = 1;
                        continue;
                    }
                    let m = (0..3)
                        .min_by(|&i, &j| e[i].abs().total_cmp(&e[j].abs()))
                        .unwrap_or(0);
                    let mut axis = [0.0; 3];
                    axis[m] = 1.0;
                    let u1 = cross(e, axis);
                    let u2 = cross(e, u1);
                    let off = |w: V3| norm2(cross(sub(w, p0), e)).sqrt() / len;
                    [u1, neg(u1), u2, neg(u2)]
                        .into_iter()
                        .find_map(|d| scan(poly, d, &off))
                }
                _ => {
                    let (e1, e2) = (sub(poly.p[1], p0), sub(poly.p[2], p0));
                    let m = cross(e1, e2);
                    let area = norm2(m).sqrt();
                    if area.is_nan() || area <= eps * norm2(e1).max(norm2(e2)).sqrt() {
                        // Three points on a line: keep the two furthest apart.
                        let far = |a: V3, b: V3| norm2(sub(a, b));
                        let (d01, d02, d12) = (
                            far(p0, poly.p[1]),
                            far(p0, poly.p[2]),
                            far(poly.p[1], poly.p[2]),
                        );
                        if d12 > d01.max(d02) {
                            poly.p[0] = poly.p[2];
                            poly.ia[0] = poly.ia[2];
                            poly.ib[0] = poly.ib[2];
                        } else if d02 > d01 {
                            poly.p[1] = poly.p[2];
                            poly.ia[1] = poly.ia[2];
                            poly.ib[1] = poly.ib[2];
                        }
                        poly.nv = 2;
                        continue;
                    }
                    let off = |w: V3| (dot(sub(w, p0), m) / area).abs();
                    [m, neg(m)].into_iter().find_map(|d| scan(poly, d, &off))
                }
            };
            match found {
                Some((w, ia, ib)) => poly.push(w, ia, ib),
                // `C` is flat across the span (or a single point): the scans across it bound
                // the signed distance (0 for a flat `C` holding the origin).
                None => return flat(bound),
            }
        }
        let [p0, p1, p2, p3] = [poly.p[0], poly.p[1], poly.p[2], poly.p[3]];
        let vol = dot(sub(p1, p0), cross(sub(p2, p0), sub(p3, p0)));
        let size2 = norm2(sub(p1, p0))
            .max(norm2(sub(p2, p0)))
            .max(norm2(sub(p3, p0)));
        if !flat_tetrahedron(vol, size2) {
            break vol;
        }
        if retried {
            // Still flat: no polytope to expand; the bound stands as it is.
            return false;
        }
        retried = true;
        poly.nv = 3;
    };
    // With positive volume the faces 021, 013, 032, 123 face outwards.
    if vol > 0.0 {
        poly.start(1, 2);
    } else {
        poly.start(2, 1);
    }
    for _ in 0..EPA_MAX_ITER {
        let mut best = usize::MAX;
        let mut best_dist = f64::INFINITY;
        for (i, f) in poly.f[..poly.nf].iter().enumerate() {
            if f.alive && f.dist < best_dist {
                best = i;
                best_dist = f.dist;
            }
        }
        if best == usize::MAX {
            return false;
        }
        let tol = tol_abs + tol_rel * best_dist.abs();
        if -best_dist <= floor + tol || bound.lower >= ceiling {
            return true;
        }

        let n = poly.f[best].n;
        // A proposed point (support tables: two lookups) expands the polytope when it lies
        // beyond the face by more than the tolerance; otherwise, or without tables, a full
        // scan, which alone bounds.
        let proposed = if c.has_proposals() {
            let (w, ia, ib) = c.proposal(n);
            *proposals += 1;
            (dot(w, n) - best_dist > tol && !poly.has(ia, ib)).then_some((w, ia, ib))
        } else {
            None
        };
        let (w, ia, ib) = match proposed {
            Some(p) => p,
            None => {
                let (w, ia, ib) = c.support(n);
                *iterations += 1;
                bound.fold(w, n, norm2(n).sqrt());
                if dot(w, n) - best_dist <= tol {
                    return true;
                }
                if poly.has(ia, ib) {
                    // A point the polytope holds lies beyond its nearest face: rounding has
                    // made it non-convex there. The bound stands; it is not certified tight.
                    return false;
                }
                (w, ia, ib)
            }
        };
        if poly.nv == EPA_MAX_VERTS || !poly.expand(w, ia, ib, best) {
            return false;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::shapes::{Hull, Obb, Segment};
    use crate::kernel::vec3::IDENTITY;

    fn unit_box(c: V3) -> Obb {
        Obb {
            center: c,
            rot: IDENTITY,
            half: [0.5, 0.5, 0.5],
        }
    }

    #[test]
    fn newest_point_regions_agree_with_the_general_routine() {
        // Simplices built as GJK builds them: each new point brings the simplex strictly
        // nearer to the origin (w · v < v · v), so its nearest point gives it a weight.
        let mut rng = crate::kernel::XorShift(0x9e37_79b9_7f4a_7c15);
        let mut uniform = || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
        let (mut fast, mut total) = (0, 0);
        for _ in 0..20_000 {
            let mut s = Simplex {
                n: 0,
                p: [[0.0; 3]; 4],
                ia: [0; 4],
                ib: [0; 4],
            };
            s.push([uniform() + 1.5, uniform(), uniform()], 0, 0);
            for id in 1..4u32 {
                let v = s.clone_general_closest();
                let w = loop {
                    let w = [2.0 * uniform(), 2.0 * uniform(), 2.0 * uniform()];
                    if dot(w, v) < norm2(v) * (1.0 - 1e-6) {
                        break w;
                    }
                };
                s.push(w, id, id);
                let mut general = s;
                let want = general.closest_general();
                let mut quick = s;
                total += 1;
                if let Some((u, den)) = quick.closest_with_newest() {
                    fast += 1;
                    let got = scale(u, 1.0 / den);
                    let err = norm2(sub(got, want)).sqrt();
                    assert!(
                        err <= 1e-12 * (1.0 + norm2(want).sqrt()),
                        "{got:?} vs {want:?}"
                    );
                    assert_eq!(quick.n, general.n);
                    assert_eq!(quick.ia[..quick.n], general.ia[..general.n]);
                }
                s = general;
            }
        }
        // The general routine is the exception, for degenerate or ambiguous simplices.
        assert!(fast * 100 >= total * 99, "{fast} of {total}");
    }

    impl Simplex {
        fn clone_general_closest(&self) -> V3 {
            let mut c = *self;
            c.closest_general()
        }
    }

    #[test]
    fn boxes_face_to_face() {
        let r = gjk_distance(
            &unit_box([0.0; 3]),
            &unit_box([3.0, 0.2, -0.1]),
            [1.0, 0.0, 0.0],
            None,
            MAX_ITER,
        );
        assert!(r.converged);
        assert!((r.lower - 2.0).abs() < 1e-12, "{r:?}");
        assert!(r.lower <= 2.0 + 1e-15);
    }

    #[test]
    fn boxes_corner_to_corner() {
        // Corner (0.5,0.5,0.5) against corner (2.5,2.5,2.5)-(0.5,0.5,0.5): gap 1 per axis.
        let r = gjk_distance(
            &unit_box([0.0; 3]),
            &unit_box([2.0, 2.0, 2.0]),
            [1.0, 1.0, 1.0],
            None,
            MAX_ITER,
        );
        assert!((r.lower - 3f64.sqrt()).abs() < 1e-12, "{r:?}");
    }

    #[test]
    fn overlap_reports_non_positive() {
        let r = gjk_distance(
            &unit_box([0.0; 3]),
            &unit_box([0.3, 0.2, 0.1]),
            [1.0, 0.0, 0.0],
            None,
            MAX_ITER,
        );
        assert!(r.lower <= 0.0, "{r:?}");
    }

    #[test]
    fn segment_against_hull_tetra() {
        let h = Hull::from_points(&[
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
        ]);
        let seg = Segment {
            a: [-1.0, -1.0, 2.0],
            b: [1.0, 1.0, 2.0],
        };
        // Nearest hull point to the line z=2 (x=y) is the apex (0,0,1): distance 1.
        let r = gjk_distance(
            &h.posed(IDENTITY, [0.0; 3]),
            &seg,
            [0.0, 0.0, 1.0],
            None,
            24,
        );
        assert!((r.lower - 1.0).abs() < 1e-12, "{r:?}");
    }

    #[test]
    fn warm_start_reproduces_answer_in_one_query() {
        let a = unit_box([0.0; 3]);
        let b = Obb {
            center: [2.0, 1.3, 0.4],
            rot: crate::kernel::vec3::rot_from_rpy([0.3, 0.2, 0.1]),
            half: [0.3, 0.2, 0.6],
        };
        let mut w = Witness::default();
        let cold = gjk_distance(&a, &b, [1.0, 0.0, 0.0], Some(&mut w), MAX_ITER);
        let warm = gjk_distance(&a, &b, [1.0, 0.0, 0.0], Some(&mut w), MAX_ITER);
        assert!((cold.lower - warm.lower).abs() < 1e-12);
        assert!(warm.iterations <= 1, "{warm:?}");
    }

    #[test]
    fn a_rebuilt_tetrahedron_is_examined_on_every_face() {
        // A witness tetrahedron whose old face `abc` (in the plane x = 1) is the only face
        // the origin lies beyond: GJK's own step would never build it, and looking only at
        // the faces through the newest point `d` would call it an overlap. The distance from
        // the origin to it is 1, at (1, 0, 0) inside `abc`.
        let tetra = Hull::from_points(&[
            [1.0, -2.0, -2.0],
            [1.0, 4.0, -2.0],
            [1.0, -2.0, 4.0],
            [3.0, 0.0, 0.0],
        ]);
        let origin = Hull::from_points(&[[0.0; 3]]);
        let mut w = Witness {
            n: 4,
            ia: [0, 1, 2, 3],
            ib: [0; 4],
        };
        let g = gjk_distance(
            &tetra.points(),
            &origin.points(),
            [1.0, 0.0, 0.0],
            Some(&mut w),
            MAX_ITER,
        );
        assert!(g.converged && (g.lower - 1.0).abs() < 1e-12, "{g:?}");
        assert_eq!(w.n, 3, "the face abc is the witness");
    }

    fn depth(a: &Obb, b: &Obb, warm: Option<&mut Witness>, limits: DepthLimits) -> GjkResult {
        gjk_cso_depth(
            &Difference(a, b),
            sub(b.center, a.center),
            warm,
            MAX_ITER,
            TOL_ABS,
            TOL_REL,
            limits,
        )
    }

    #[test]
    fn the_expanding_polytope_finds_the_depth_of_overlapping_boxes() {
        // Unit cubes 0.3 apart along x (0.1, 0.05 across): out along x takes 0.7.
        let (a, b) = (unit_box([0.0; 3]), unit_box([0.3, 0.1, 0.05]));
        let cheap = gjk_distance(&a, &b, [1.0, 0.0, 0.0], None, MAX_ITER);
        let g = depth(&a, &b, None, DepthLimits::NONE);
        assert!(g.converged && (g.lower + 0.7).abs() < 1e-12, "{g:?}");
        assert!(g.epa_iterations > 0 && g.upper == 0.0);
        // GJK alone: a valid bound, lower.
        assert!(cheap.lower <= g.lower + 1e-15, "{cheap:?}");
        // The certifying normal: A's points at least `lower` beyond B's along it.
        let n = g.normal;
        let ha = (0..8u32)
            .map(|i| dot(a.vertex(i), n))
            .fold(f64::INFINITY, f64::min);
        let hb = (0..8u32)
            .map(|i| dot(b.vertex(i), n))
            .fold(f64::NEG_INFINITY, f64::max);
        assert!(ha - hb >= g.lower - 1e-12, "{} vs {}", ha - hb, g.lower);
    }

    #[test]
    fn a_point_inside_a_tetrahedron_has_its_face_plane_depth() {
        let tetra = Hull::from_points(&[
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
        ]);
        // Nearest face plane z = 0 at 0.1 (x = 0 at 0.2, y = 0 at 0.3, the slanted face at
        // (1 − 0.6)/√3 = 0.23).
        let p = Hull::from_points(&[[0.2, 0.3, 0.1]]);
        let g = gjk_cso_depth(
            &Difference(&tetra.points(), &p.points()),
            [1.0, 0.0, 0.0],
            None,
            MAX_ITER,
            TOL_ABS,
            TOL_REL,
            DepthLimits::NONE,
        );
        assert!(g.converged && (g.lower + 0.1).abs() < 1e-12, "{g:?}");
    }

    #[test]
    fn touching_boxes_read_zero() {
        // Face to face, and corner on face.
        for b in [unit_box([1.0, 0.2, -0.3]), unit_box([0.5, 0.5, 1.0])] {
            let g = depth(&unit_box([0.0; 3]), &b, None, DepthLimits::NONE);
            assert!(g.lower.abs() < 1e-9, "{g:?}");
        }
    }

    #[test]
    fn a_warm_simplex_holding_the_origin_is_bounded_not_read_as_zero() {
        let (a, b) = (unit_box([0.0; 3]), unit_box([0.3, 0.1, 0.05]));
        let mut w = Witness::default();
        gjk_distance(&a, &b, [1.0, 0.0, 0.0], Some(&mut w), MAX_ITER);
        assert_eq!(
            w.n, 4,
            "the cold query leaves a tetrahedron around the origin"
        );
        // The rebuilt simplex holds the origin before any scan: GJK used to return 0 there.
        let mut warm = w;
        let cheap = gjk_distance(&a, &b, [1.0, 0.0, 0.0], Some(&mut warm), MAX_ITER);
        assert!(
            cheap.lower <= -0.7 + 1e-12 && cheap.iterations == 1,
            "{cheap:?}"
        );
        let mut warm = w;
        let g = depth(&a, &b, Some(&mut warm), DepthLimits::NONE);
        assert!((g.lower + 0.7).abs() < 1e-12, "{g:?}");
    }

    #[test]
    fn the_limits_stop_early_and_leave_what_the_caller_keeps() {
        let (a, b) = (unit_box([0.0; 3]), unit_box([0.3, 0.1, 0.05]));
        let full = depth(&a, &b, None, DepthLimits::NONE);
        // A ceiling the scans reach at once: no expansion.
        let lim = DepthLimits {
            floor: f64::NEG_INFINITY,
            ceiling: -5.0,
        };
        let g = depth(&a, &b, None, lim);
        assert!(
            g.epa_iterations + g.epa_proposals == 0 && g.lower >= -5.0,
            "{g:?}"
        );
        // A ceiling between the scans' bound and the depth: min with it is unchanged.
        let lim = DepthLimits {
            floor: f64::NEG_INFINITY,
            ceiling: -0.75,
        };
        let g = depth(&a, &b, None, lim);
        assert!(g.lower >= -0.75 && g.lower <= full.lower + 1e-15, "{g:?}");
        // The exact value as floor: the expansion stops once it proves nothing above it.
        let lim = DepthLimits {
            floor: -0.7,
            ceiling: f64::INFINITY,
        };
        let g = depth(&a, &b, None, lim);
        assert!(g.converged && g.lower.max(-0.7) == -0.7, "{g:?}");
        assert!(g.epa_iterations <= full.epa_iterations);
    }
}
