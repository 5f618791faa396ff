//! Support by **hill climbing** on a hull's vertex graph, with a slack proven at load.
//!
//! On a convex polytope a vertex none of whose skeleton neighbours lies further along `d`
//! is the support along `d`. The written hulls are convex hulls whose vertices were rounded
//! to 1 µm, so they may be very slightly non-convex, and a climb may then stop at a vertex
//! a little short of the maximum. [`Graph::build`] therefore proves, at load, how far short:
//!
//! * the graph is the edge set of a convex hull built from the points ([`hull_faces`],
//!   incremental, in floating point; its correctness is *not* relied on);
//! * for every vertex `v` the climb can stop at, with `K_v` the cone spanned by the edges
//!   `u − v` to its neighbours, every point `p` of the cloud lies within `ε_v` of `v + K_v`
//!   (`ε_v` computed as an upper bound: the distance from `p − v` to a point of `K_v`);
//! * a climb stops at `v` only when `d · (u − v) <= 0` for every neighbour `u`, i.e. `d` is
//!   in the polar cone of `K_v`; writing `p = v + k + e` with `k ∈ K_v`, `|e| <= ε_v`, gives
//!   `d · p <= d · v + ε_v |d|`.
//!
//! So `h(d) <= d · v + slack · |d|` with `slack = max_v ε_v` (plus a rounding allowance):
//! every bound GJK takes from a climbed vertex subtracts it (the support point is moved out
//! by `slack` along `d`, see `distance_hull_hull`), so every value stays a lower bound. A
//! hull whose slack exceeds [`MAX_SLACK`], or whose hull construction fails, has no graph
//! and keeps the full scan ([`super::scan`]).

pub use super::scan::Climb;
use super::scan::HullPoints;
use super::vec3::{V3, cross, dot, norm, scale, sub};

/// The largest proven slack a hull may have and still climb (metres): above it the full
/// scan's exact support is worth its price.
pub const MAX_SLACK: f64 = 2e-6;

/// Hulls with fewer vertices scan: a full AVX2 scan of a small hull costs less than a climb's
/// dependent steps (measured crossover; see docs/kernel.md).
pub const MIN_CLIMB_VERTICES: usize = 200;

/// A hull's vertex graph for climbing, owned by the model.
#[derive(Clone, Debug, PartialEq)]
pub struct Graph {
    /// `adj[start[v] .. start[v + 1]]` are `v`'s neighbours; a vertex off the hull has none.
    pub start: Vec<u32>,
    pub adj: Vec<u16>,
    /// Where a climb begins for a vertex with no neighbours (a hull vertex).
    pub entry: u16,
    /// The proven slack (metres, see the module docs).
    pub slack: f64,
}

impl Graph {
    pub fn view(&self) -> Climb<'_> {
        Climb {
            start: &self.start,
            adj: &self.adj,
            entry: self.entry,
            slack: self.slack,
        }
    }

    /// The graph of a hull and its proven slack; `None` when the hull construction fails or
    /// the slack exceeds [`MAX_SLACK`].
    pub fn build(pts: &HullPoints<'_>) -> Option<Graph> {
        let n = pts.len();
        if n < 4 || n > u16::MAX as usize {
            return None;
        }
        let p: Vec<V3> = (0..n).map(|i| [pts.x[i], pts.y[i], pts.z[i]]).collect();
        // Near-coplanar points (rounded flat faces) can make the horizon inconsistent: such
        // a hull scans. (Coarser tolerances, tried, rescued none of the test clouds.)
        let extent = p.iter().map(|q| norm(*q)).fold(0.0, f64::max);
        let faces = hull_faces(&p, 1e-12 * extent.max(1e-300))?;
        let mut nb: Vec<Vec<u16>> = vec![Vec::new(); n];
        for f in &faces {
            for k in 0..3 {
                let (a, b) = (f[k], f[(k + 1) % 3]);
                nb[a as usize].push(b);
                nb[b as usize].push(a);
            }
        }
        let mut start = Vec::with_capacity(n + 1);
        let mut adj = Vec::new();
        let mut slack: f64 = 0.0;
        for (v, list) in nb.iter_mut().enumerate() {
            list.sort_unstable();
            list.dedup();
            start.push(adj.len() as u32);
            adj.extend_from_slice(list);
            if !list.is_empty() {
                slack = slack.max(vertex_slack(&p, v, list, &faces));
                if slack > MAX_SLACK {
                    return None;
                }
            }
        }
        start.push(adj.len() as u32);
        let entry = faces[0][0];
        // Rounding of the climb's own products (relative 2⁻⁵² of the coordinates, a few of
        // them compared) and of the certificate's arithmetic.
        let slack = slack * (1.0 + 1e-9) + 64.0 * f64::EPSILON * extent;
        if slack > MAX_SLACK {
            return None;
        }
        Some(Graph {
            start,
            adj,
            entry,
            slack,
        })
    }
}

/// The climb along `d` from vertex `from`: the vertex where no neighbour lies further
/// along `d`, and the vertices examined (the start and every neighbour looked at). `c` must
/// be `p`'s graph. Products are plain (unfused) `x·d0 + y·d1 + z·d2`: `f64::mul_add` is a
/// library call where the build does not assume FMA, and the slack's rounding allowance
/// covers the difference from the scan's fused products.
#[inline]
pub fn climb(p: &HullPoints<'_>, c: &Climb<'_>, d: V3, from: usize) -> (usize, u32) {
    let mut v = if c.start[from] == c.start[from + 1] {
        c.entry as usize
    } else {
        from
    };
    let at = |i: usize| p.x[i] * d[0] + p.y[i] * d[1] + p.z[i] * d[2];
    let mut best = at(v);
    let mut examined = 1u32;
    loop {
        let (s, e) = (c.start[v] as usize, c.start[v + 1] as usize);
        let mut next = v;
        for &u in &c.adj[s..e] {
            let val = at(u as usize);
            if val > best {
                best = val;
                next = u as usize;
            }
        }
        examined += (e - s) as u32;
        if next == v {
            return (v, examined);
        }
        v = next;
    }
}

/// Upper bound on `max_p dist(p − v, K_v)` over the cloud (see the module docs).
fn vertex_slack(p: &[V3], v: usize, nbrs: &[u16], faces: &[[u16; 3]]) -> f64 {
    let g: Vec<V3> = nbrs.iter().map(|&u| sub(p[u as usize], p[v])).collect();
    let gi = |u: u16| nbrs.iter().position(|&x| x == u).unwrap();
    // Fan triples (first generator of each incident face's far edge): for a convex vertex
    // their cones cover K_v, so almost every point is proven inside by one 3×3 solve.
    let mut triples: Vec<[V3; 3]> = Vec::new();
    let first = g[0];
    for f in faces {
        let Some(k) = f.iter().position(|&x| x as usize == v) else {
            continue;
        };
        let (a, b) = (gi(f[(k + 1) % 3]), gi(f[(k + 2) % 3]));
        if a != 0 && b != 0 {
            triples.push([first, g[a], g[b]]);
        }
    }
    let mut worst: f64 = 0.0;
    for (i, q) in p.iter().enumerate() {
        if i == v {
            continue;
        }
        let w = sub(*q, p[v]);
        if triples.iter().any(|t| in_cone3(t, w)) {
            continue;
        }
        worst = worst.max(cone_distance(&g, w));
    }
    worst
}

/// Whether `w = Σ μ_k t_k` with every `μ_k >= 0` (Cramer's rule; a degenerate triple says no).
fn in_cone3(t: &[V3; 3], w: V3) -> bool {
    let det = dot(t[0], cross(t[1], t[2]));
    if det == 0.0 || !det.is_finite() {
        return false;
    }
    let m0 = dot(w, cross(t[1], t[2])) / det;
    let m1 = dot(t[0], cross(w, t[2])) / det;
    let m2 = dot(t[0], cross(t[1], w)) / det;
    m0 >= 0.0 && m1 >= 0.0 && m2 >= 0.0
}

/// An upper bound on the distance from `w` to the cone of `g`: the least distance to a
/// point of the cone among the apex, each generator's ray and each pair's planar cone (a
/// polyhedral cone in 3-D has its nearest point to an outside `w` on one of those).
fn cone_distance(g: &[V3], w: V3) -> f64 {
    let mut best = norm(w);
    for (i, a) in g.iter().enumerate() {
        let aa = dot(*a, *a);
        let t = dot(w, *a) / aa;
        if t > 0.0 && aa > 0.0 {
            best = best.min(norm(sub(w, scale(*a, t))));
        }
        for b in &g[i + 1..] {
            // Least squares on span(a, b), kept when both coefficients are non-negative.
            let (ab, bb) = (dot(*a, *b), dot(*b, *b));
            let det = aa * bb - ab * ab;
            if det.is_nan() || det <= 0.0 {
                continue;
            }
            let (wa, wb) = (dot(w, *a), dot(w, *b));
            let s = (wa * bb - wb * ab) / det;
            let t = (wb * aa - wa * ab) / det;
            if s >= 0.0 && t >= 0.0 {
                let c = [
                    s * a[0] + t * b[0],
                    s * a[1] + t * b[1],
                    s * a[2] + t * b[2],
                ];
                best = best.min(norm(sub(w, c)));
            }
        }
    }
    best
}

/// The triangles of the convex hull of `p` (outward, counter-clockwise), incremental: a
/// point joins when it lies more than `tol` (metres) beyond a face; `None` for a flat or
/// degenerate cloud or an inconsistent horizon. Points within `tol` of the hull are left off
/// it (the slack certificate covers them like every other point).
pub fn hull_faces(p: &[V3], tol: f64) -> Option<Vec<[u16; 3]>> {
    let n = p.len();
    // Initial tetrahedron: two far points, the farthest from their line, the farthest
    // from their plane.
    let i0 = 0;
    let i1 = (0..n).max_by(|&a, &b| {
        norm(sub(p[a], p[i0]))
            .total_cmp(&norm(sub(p[b], p[i0])))
            .then(b.cmp(&a))
    })?;
    let line = sub(p[i1], p[i0]);
    let i2 = (0..n).max_by(|&a, &b| {
        norm(cross(line, sub(p[a], p[i0])))
            .total_cmp(&norm(cross(line, sub(p[b], p[i0]))))
            .then(b.cmp(&a))
    })?;
    let nrm = cross(line, sub(p[i2], p[i0]));
    let i3 = (0..n).max_by(|&a, &b| {
        dot(nrm, sub(p[a], p[i0]))
            .abs()
            .total_cmp(&dot(nrm, sub(p[b], p[i0])).abs())
            .then(b.cmp(&a))
    })?;
    let vol = dot(nrm, sub(p[i3], p[i0]));
    if vol.is_nan() || vol.abs() <= tol * norm(nrm) {
        return None;
    }
    let t = |a: usize, b: usize, c: usize| [a as u16, b as u16, c as u16];
    let mut faces: Vec<[u16; 3]> = if vol < 0.0 {
        vec![t(i0, i1, i2), t(i0, i3, i1), t(i1, i3, i2), t(i2, i3, i0)]
    } else {
        vec![t(i0, i2, i1), t(i0, i1, i3), t(i1, i2, i3), t(i2, i0, i3)]
    };
    let plane = |f: &[u16; 3]| {
        let (a, b, c) = (p[f[0] as usize], p[f[1] as usize], p[f[2] as usize]);
        let nn = cross(sub(b, a), sub(c, a));
        let l = norm(nn);
        (if l > 0.0 { scale(nn, 1.0 / l) } else { nn }, a)
    };
    let mut planes: Vec<(V3, V3)> = faces.iter().map(plane).collect();
    for (i, q) in p.iter().enumerate() {
        if [i0, i1, i2, i3].contains(&i) {
            continue;
        }
        let visible: Vec<bool> = planes
            .iter()
            .map(|(nn, a)| dot(*nn, sub(*q, *a)) > tol)
            .collect();
        if !visible.iter().any(|&x| x) {
            continue;
        }
        let mut edges: Vec<(u16, u16)> = Vec::new();
        for (f, _) in faces.iter().zip(&visible).filter(|(_, v)| **v) {
            for k in 0..3 {
                edges.push((f[k], f[(k + 1) % 3]));
            }
        }
        let mut sorted = edges.clone();
        sorted.sort_unstable();
        let horizon: Vec<(u16, u16)> = edges
            .iter()
            .filter(|(a, b)| sorted.binary_search(&(*b, *a)).is_err())
            .copied()
            .collect();
        let mut kept = Vec::with_capacity(faces.len());
        let mut kept_planes = Vec::with_capacity(faces.len());
        for ((f, pl), vis) in faces.iter().zip(&planes).zip(&visible) {
            if !vis {
                kept.push(*f);
                kept_planes.push(*pl);
            }
        }
        for (a, b) in horizon {
            let f = [a, b, i as u16];
            kept_planes.push(plane(&f));
            kept.push(f);
        }
        faces = kept;
        planes = kept_planes;
        // A convex hull of n points has at most 2n - 4 faces: more means near-coplanar
        // points made the horizon inconsistent, and the surface only grows from there
        // (a dense mesh's share took gigabytes). Such a hull scans.
        if faces.len() > 2 * n {
            return None;
        }
    }
    // A closed surface: every directed edge has its reverse exactly once.
    let mut edges: Vec<(u16, u16)> = faces
        .iter()
        .flat_map(|f| (0..3).map(move |k| (f[k], f[(k + 1) % 3])))
        .collect();
    edges.sort_unstable();
    if edges.windows(2).any(|w| w[0] == w[1]) {
        return None;
    }
    if edges
        .iter()
        .any(|(a, b)| edges.binary_search(&(*b, *a)).is_err())
    {
        return None;
    }
    Some(faces)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::scan::{argmax_dot_scalar, dot_fma};

    fn cloud(seed: u64, n: usize, round: bool) -> Vec<V3> {
        let mut rng = crate::kernel::XorShift(seed);
        let mut u = || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
        // Points on an ellipsoid (every one a hull vertex), optionally rounded to 1 µm.
        (0..n)
            .map(|_| {
                let q = [u(), u(), u()];
                let l = norm(q).max(1e-9);
                let r = [0.08 * q[0] / l, 0.05 * q[1] / l, 0.12 * q[2] / l];
                if round {
                    r.map(|c| (c * 1e6).round() / 1e6)
                } else {
                    r
                }
            })
            .collect()
    }

    fn soa(p: &[V3]) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
        (
            p.iter().map(|q| q[0]).collect(),
            p.iter().map(|q| q[1]).collect(),
            p.iter().map(|q| q[2]).collect(),
        )
    }

    #[test]
    fn a_cube_climbs_to_its_corner_with_no_slack_beyond_rounding() {
        let mut p = vec![];
        for i in 0..8 {
            p.push([
                if i & 1 == 0 { -1.0 } else { 1.0 },
                if i & 2 == 0 { -1.0 } else { 1.0 },
                if i & 4 == 0 { -1.0 } else { 1.0 },
            ]);
        }
        let (x, y, z) = soa(&p);
        let h = HullPoints {
            x: &x,
            y: &y,
            z: &z,
            table: &[],
            climb: Climb::NONE,
        };
        let g = Graph::build(&h).expect("a cube has a graph");
        assert!(g.slack < 1e-13, "{}", g.slack);
        for from in 0..8 {
            let (v, _) = climb(&h, &g.view(), [0.3, 0.2, 0.9], from);
            assert_eq!(v, 7);
        }
    }

    #[test]
    fn a_point_just_off_a_face_stays_within_the_slack() {
        // An octahedron with a seventh point 1 µm beyond the centre of its face
        // x + y + z = 1 (a hull vertex of a nearly flat pyramid): climbs along the face
        // normal from every start stop within the slack of the true support.
        let mut p = crate::kernel::dop26::unit_octahedron().to_vec();
        let c = 1.0 / 3.0 + 1e-6;
        p.push([c, c, c]);
        let (x, y, z) = soa(&p);
        let h = HullPoints {
            x: &x,
            y: &y,
            z: &z,
            table: &[],
            climb: Climb::NONE,
        };
        let g = Graph::build(&h).expect("graph");
        let d = [1.0, 1.0, 1.0];
        for from in 0..p.len() {
            let (v, _) = climb(&h, &g.view(), d, from);
            let best = argmax_dot_scalar(&x, &y, &z, d);
            let gap = dot_fma(x[best], y[best], z[best], d) - dot_fma(x[v], y[v], z[v], d);
            assert!(gap <= g.slack * norm(d), "{gap} > {}", g.slack);
        }
    }

    #[test]
    fn climbs_stay_within_the_slack_of_the_full_scan_on_random_hulls() {
        let mut rng = crate::kernel::XorShift(0x9e37_79b9_7f4a_7c15);
        let mut u = || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
        let mut built = 0;
        for (k, n) in [64usize, 100, 152, 240, 320].into_iter().enumerate() {
            for round in [false, true] {
                let p = cloud(17 + k as u64 * 2 + round as u64, n, round);
                let (x, y, z) = soa(&p);
                let h = HullPoints {
                    x: &x,
                    y: &y,
                    z: &z,
                    table: &[],
                    climb: Climb::NONE,
                };
                let Some(g) = Graph::build(&h) else { continue };
                built += 1;
                for _ in 0..2000 {
                    let d = [u(), u(), u()];
                    let from = ((u() + 1.0) * 0.5 * (n - 1) as f64) as usize;
                    let (v, examined) = climb(&h, &g.view(), d, from);
                    assert!(examined >= 1);
                    let best = argmax_dot_scalar(&x, &y, &z, d);
                    let gap = dot_fma(x[best], y[best], z[best], d) - dot_fma(x[v], y[v], z[v], d);
                    assert!(
                        gap <= g.slack * norm(d),
                        "n {n} gap {gap} slack {}",
                        g.slack
                    );
                }
            }
        }
        assert!(built >= 8, "most clouds get a graph: {built}");
    }
}
