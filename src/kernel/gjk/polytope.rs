//! The expanding polytope (EPA): in overlap, GJK's final simplex grown inside `A − B`, each
//! step a full scan along the outward normal of the face nearest the origin, whose bound is
//! folded in (see [`super`]'s module docs).

use super::simplex::{Simplex, closest_weights, flat_tetrahedron, simplex_weights};
use super::support::Cso;
use super::{Bound, DepthLimits, SimplexWeights, Witness};
use crate::kernel::vec3::*;

/// Vertices the expanding polytope holds: the start tetrahedron, the points that blow up a
/// lower-dimensional start (at most three) and one per expansion step.
pub(super) const EPA_MAX_VERTS: usize = 4 + 3 + EPA_MAX_ITER as usize;
/// Faces: a closed triangulated polytope of `V` vertices has `2V − 4`.
pub(super) const EPA_MAX_FACES: usize = 2 * EPA_MAX_VERTS - 4;
/// Expansion steps (full scans) the polytope may take.
pub const EPA_MAX_ITER: u32 = 64;

/// No neighbour (a face store that could not be closed; never followed).
pub(super) const NONE: u8 = u8::MAX;

/// A face of the expanding polytope: vertex positions wound counter-clockwise seen from
/// outside, the faces across its edges (`adj[e]` across `v[e] → v[e + 1]`), unit outward
/// normal and plane offset (`n · x = dist` on the plane).
#[derive(Clone, Copy)]
pub(super) struct Face {
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
pub(super) struct Polytope {
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
///
/// `seed` (warm start): on return, a tetrahedron of the polytope for the next call on the
/// same pair (see [`warm_seed`]); left as it was when no polytope was built.
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(super) fn epa<C: Cso>(
    c: &C,
    s: &Simplex,
    bound: &mut Bound,
    counts: (&mut u32, &mut u32),
    limits: DepthLimits,
    (tol_abs, tol_rel): (f64, f64),
    weights: Option<&mut SimplexWeights>,
    seed: Option<&mut Witness>,
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
    if let Some(w) = seed {
        warm_seed(&poly, w);
    }
    converged
}

/// The tetrahedron a warm start rebuilds in overlap: the polytope's face nearest the origin
/// and the vertex farthest behind it. The origin lies between them, so on a smooth path it
/// still holds the origin at the next call, and the expansion starts at the face where it
/// stopped rather than from GJK's simplex (on the Panda's path through collision, 16.6
/// steps a tripping call instead of 24.1: its side faces still need expanding). Any four
/// points of `A − B` are a valid seed (GJK examines a rebuilt simplex from scratch): this
/// is speed only.
fn warm_seed(poly: &Polytope, out: &mut Witness) {
    let live = poly.f[..poly.nf]
        .iter()
        .filter(|f| f.alive && f.dist.is_finite());
    let Some(f) = live.min_by(|x, y| x.dist.total_cmp(&y.dist)) else {
        return;
    };
    let Some(apex) =
        (0..poly.nv).min_by(|&i, &j| dot(poly.p[i], f.n).total_cmp(&dot(poly.p[j], f.n)))
    else {
        return;
    };
    if f.v.contains(&(apex as u8)) {
        return;
    }
    let v = [f.v[0] as usize, f.v[1] as usize, f.v[2] as usize, apex];
    *out = Witness {
        n: 4,
        ia: v.map(|k| poly.ia[k]),
        ib: v.map(|k| poly.ib[k]),
    };
}

/// The weights of the point of the polytope's boundary nearest the origin (inside it): the
/// nearest point of its nearest triangle, which need not be the face of the nearest plane
/// (rounding leaves nearly coplanar neighbours, and the origin's projection on one plane
/// may fall in the next triangle). A triangle is never nearer than its plane, so only faces
/// whose plane is nearer than the best triangle so far are examined.
pub(super) fn nearest_face_weights(poly: &Polytope, out: &mut SimplexWeights) {
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
        let w = closest_weights(&pts, [0.0; 3]);
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
pub(super) fn epa_expand<C: Cso>(
    c: &C,
    s: &Simplex,
    poly: &mut Polytope,
    bound: &mut Bound,
    (iterations, proposals): (&mut u32, &mut u32),
    limits: DepthLimits,
    tol_abs: f64,
    tol_rel: f64,
) -> bool {
    let DepthLimits { floor, ceiling, .. } = limits;
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
