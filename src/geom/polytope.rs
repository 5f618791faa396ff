//! Containing polytopes with a bounded vertex count.
//!
//! Two constructions, both holding `conv(points) ⊕ B(pad)` (every point of the
//! hull grown by a ball of radius `pad`), both proven by their support functions:
//!
//! - [`pushed_hull`]: every hull vertex `v` moved to `v + pad * m_v`, where
//!   `n_f . m_v >= 1` for every face `f` at `v`. For a unit `u` in the normal
//!   cone of `v` (`u = Σ μ_f n_f`, `μ >= 0`, so `Σ μ_f >= |u| = 1`),
//!   `u . (v + pad m_v) >= u . v + pad`, hence `h_new(u) >= h_hull(u) + pad`
//!   for all `u`. Same vertex count as the exact hull.
//! - [`outer_polytope`]: the intersection of tangent halfspaces
//!   `u . x <= h_hull(u) + pad` over a direction set, grown greedily from the
//!   26-DOP directions by adding the exact hull's face normal that cuts off the
//!   polytope vertex standing furthest outside, until the vertex budget is
//!   reached. Contains the padded hull by construction for any direction set.
//!   Vertices are enumerated through the dual: the points
//!   `u_k / (offset_k - u_k . c)` for an interior `c`; each facet of their hull
//!   is a polytope vertex (the intersection of its three planes).

use super::hull::{self, Hull};
use super::support;
use super::v3::{self, V3};
use parry3d_f64::math::Vector3;

/// Vertices of `{x : u_k . x <= offsets[k] for all k}`; `c` must be strictly
/// inside. `None` when the set is unbounded or the enumeration fails.
pub fn halfspace_vertices(dirs: &[V3], offsets: &[f64], c: V3) -> Option<Vec<V3>> {
    let mut rel = Vec::with_capacity(dirs.len());
    let mut dual = Vec::with_capacity(dirs.len());
    for (u, o) in dirs.iter().zip(offsets) {
        let r = o - v3::dot(*u, c);
        if r <= 0.0 || !r.is_finite() {
            return None;
        }
        rel.push(r);
        let y = v3::scale(*u, 1.0 / r);
        dual.push(Vector3::new(y[0], y[1], y[2]));
    }
    let (dv, faces) = parry3d_f64::transformation::try_convex_hull(&dual).ok()?;
    if faces.len() < 4 {
        return None;
    }
    // Map dual hull vertices back to direction indices (the hull returns a
    // subset of the input points, bit-identical).
    let mut index = Vec::with_capacity(dv.len());
    for p in &dv {
        let k = dual.iter().position(|q| q == p)?;
        index.push(k);
    }
    let scale = rel.iter().cloned().fold(0.0, f64::max);
    let mut out: Vec<V3> = Vec::with_capacity(faces.len());
    for f in &faces {
        let [i, j, k] = [
            index[f[0] as usize],
            index[f[1] as usize],
            index[f[2] as usize],
        ];
        let (ui, uj, uk) = (dirs[i], dirs[j], dirs[k]);
        let d = v3::dot(ui, v3::cross(uj, uk));
        if d.abs() < 1e-12 {
            continue;
        }
        let num = v3::add(
            v3::add(
                v3::scale(v3::cross(uj, uk), rel[i]),
                v3::scale(v3::cross(uk, ui), rel[j]),
            ),
            v3::scale(v3::cross(ui, uj), rel[k]),
        );
        let x = v3::add(c, v3::scale(num, 1.0 / d));
        if !v3::finite(x) {
            continue;
        }
        // Keep only vertices of the polytope (numerically): inside every halfspace.
        let tol = 1e-9 * scale.max(1e-9);
        if dirs
            .iter()
            .zip(offsets)
            .all(|(u, o)| v3::dot(*u, x) <= o + tol)
            && out.iter().all(|y| v3::dist(*y, x) > tol)
        {
            out.push(x);
        }
    }
    if out.len() < 4 { None } else { Some(out) }
}

/// Least-norm `m` with `n . m >= 1` for every unit normal in `ns` (a tiny
/// quadratic programme). The optimum lies on at most three active
/// constraints, so it is the least-norm feasible point among the solutions of
/// every 1-, 2- and 3-subset taken as equalities. `None` when no feasible
/// point exists (normals spanning more than a half-space).
pub fn push_direction(ns: &[V3]) -> Option<V3> {
    let mut u: Vec<V3> = Vec::new();
    for n in ns {
        if u.iter().all(|m| v3::dot(*m, *n) < 1.0 - 1e-12) {
            u.push(*n);
        }
    }
    let feasible = |m: V3| u.iter().all(|n| v3::dot(*n, m) >= 1.0 - 1e-9);
    let mut best: Option<V3> = None;
    let mut consider = |m: V3| {
        if v3::finite(m) && feasible(m) && best.is_none_or(|b| v3::norm2(m) < v3::norm2(b)) {
            best = Some(m);
        }
    };
    let k = u.len();
    if k > 40 {
        // Too many to enumerate: the normalised mean, scaled to feasibility.
        let mut a = [0.0; 3];
        for n in &u {
            a = v3::add(a, *n);
        }
        let a = v3::normalize(a)?;
        let s = u
            .iter()
            .map(|n| v3::dot(*n, a))
            .fold(f64::INFINITY, f64::min);
        return (s > 1e-3).then(|| v3::scale(a, 1.0 / s));
    }
    for i in 0..k {
        consider(u[i]);
        for j in i + 1..k {
            let c = v3::dot(u[i], u[j]);
            if c > -1.0 + 1e-12 {
                consider(v3::scale(v3::add(u[i], u[j]), 1.0 / (1.0 + c)));
            }
            for l in j + 1..k {
                let d = v3::dot(u[i], v3::cross(u[j], u[l]));
                if d.abs() > 1e-12 {
                    let num = v3::add(
                        v3::add(v3::cross(u[j], u[l]), v3::cross(u[l], u[i])),
                        v3::cross(u[i], u[j]),
                    );
                    consider(v3::scale(num, 1.0 / d));
                }
            }
        }
    }
    // Exact feasibility (>= 1) by scaling up the last rounding.
    best.map(|m| {
        let s = u
            .iter()
            .map(|n| v3::dot(*n, m))
            .fold(f64::INFINITY, f64::min);
        if s < 1.0 { v3::scale(m, 1.0 / s) } else { m }
    })
}

/// The exact hull's vertices pushed out by `pad` along [`push_direction`]
/// of their faces' normals (module doc). `None` for hulls without faces
/// (flat, fallback) or a vertex without a feasible push.
pub fn pushed_hull(h: &Hull, pad: f64) -> Option<Vec<V3>> {
    if h.dim < 3 || h.faces.is_empty() {
        return None;
    }
    let mut incident: Vec<Vec<V3>> = vec![Vec::new(); h.points.len()];
    for f in &h.faces {
        let [a, b, c] = [
            h.points[f[0] as usize],
            h.points[f[1] as usize],
            h.points[f[2] as usize],
        ];
        if let Some(n) = v3::normalize(v3::cross(v3::sub(b, a), v3::sub(c, a))) {
            for &i in f {
                incident[i as usize].push(n);
            }
        }
    }
    h.points
        .iter()
        .zip(&incident)
        .map(|(p, ns)| {
            if ns.is_empty() {
                return None;
            }
            push_direction(ns).map(|m| v3::axpy(*p, pad, m))
        })
        .collect()
}

/// Vertices of `{x : u_k . x <= offsets[k]}` by brute force over every triple
/// of planes (for small sets such as the 26-DOP; no hull routine involved).
pub fn halfspace_vertices_brute(dirs: &[V3], offsets: &[f64]) -> Vec<V3> {
    let scale = offsets
        .iter()
        .map(|o| o.abs())
        .fold(0.0, f64::max)
        .max(1e-9);
    let tol = 1e-12 * scale;
    let mut out: Vec<V3> = Vec::new();
    let k = dirs.len();
    for i in 0..k {
        for j in i + 1..k {
            for l in j + 1..k {
                let (a, b, c) = (dirs[i], dirs[j], dirs[l]);
                let d = v3::dot(a, v3::cross(b, c));
                if d.abs() < 1e-9 {
                    continue;
                }
                let num = v3::add(
                    v3::add(
                        v3::scale(v3::cross(b, c), offsets[i]),
                        v3::scale(v3::cross(c, a), offsets[j]),
                    ),
                    v3::scale(v3::cross(a, b), offsets[l]),
                );
                let x = v3::scale(num, 1.0 / d);
                if dirs
                    .iter()
                    .zip(offsets)
                    .all(|(u, o)| v3::dot(*u, x) <= o + tol)
                    && out.iter().all(|y| v3::dist(*y, x) > 1e3 * tol)
                {
                    out.push(x);
                }
            }
        }
    }
    out
}

/// Candidate directions for the outer polytope: the hull's face normals with
/// their support values, fold normals for a flat hull (in-plane edge normals),
/// and a Fibonacci set.
fn direction_pool(h: &Hull) -> Vec<(V3, f64)> {
    let mut pool: Vec<(V3, f64)> = h.face_planes();
    if let Some(n) = h.plane_normal {
        let m = h.points.len();
        let c = h.vertex_mean();
        for i in 0..m {
            let e = v3::sub(h.points[(i + 1) % m], h.points[i]);
            if let Some(mut w) = v3::normalize(v3::cross(e, n)) {
                if v3::dot(w, v3::sub(h.points[i], c)) < 0.0 {
                    w = v3::neg(w);
                }
                pool.push((w, h.support(w)));
            }
        }
    }
    for u in support::fibonacci_directions(256) {
        pool.push((u, h.support(u)));
    }
    pool
}

/// The outer polytope's refinement stops when no vertex is further than this
/// past the padded tangent planes of the pool (m).
const STOP_EXCESS: f64 = 5e-5;

/// Outer polytope of the hull grown by `pad`, at most `max_vertices` vertices,
/// starting from `base_dirs` (which must positively span space, e.g. the
/// 26-DOP directions). `None` if enumeration fails.
pub fn outer_polytope(
    h: &Hull,
    pad: f64,
    base_dirs: &[V3],
    max_vertices: usize,
) -> Option<Vec<V3>> {
    if h.points.is_empty() {
        return None;
    }
    let c = h.vertex_mean();
    let pool = direction_pool(h);
    let mut dirs: Vec<V3> = base_dirs.to_vec();
    let mut offs: Vec<f64> = dirs.iter().map(|u| h.support(*u) + pad).collect();
    let mut verts = halfspace_vertices(&dirs, &offs, c)?;
    if verts.len() > max_vertices {
        return None;
    }
    let mut used = vec![false; pool.len()];
    let mut batch = 8usize;
    loop {
        // Each vertex's worst pool plane.
        let mut worst: Vec<(f64, usize)> = verts
            .iter()
            .map(|v| {
                let mut best = (f64::NEG_INFINITY, 0usize);
                for (k, (n, hn)) in pool.iter().enumerate() {
                    let e = v3::dot(*n, *v) - hn - pad;
                    if e > best.0 {
                        best = (e, k);
                    }
                }
                best
            })
            .collect();
        worst.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        // Stop once no vertex stands more than half a written quantum past
        // the padded planes: rounding is coarser than that.
        if worst.first().is_none_or(|w| w.0 <= STOP_EXCESS) {
            break;
        }
        let room = max_vertices.saturating_sub(verts.len());
        let want = batch.min((room / 6).max(1));
        let mut added = Vec::new();
        for (e, k) in &worst {
            if *e <= STOP_EXCESS || added.len() >= want {
                break;
            }
            if !used[*k] && !added.contains(k) {
                added.push(*k);
            }
        }
        if added.is_empty() {
            break;
        }
        let mut nd = dirs.clone();
        let mut no = offs.clone();
        for &k in &added {
            // The plane's offset is the exact support over every hull point:
            // a sliver face's computed normal can be off enough that its own
            // vertices are not the support (the pool offset only ranks).
            nd.push(pool[k].0);
            no.push(h.support(pool[k].0) + pad);
        }
        match halfspace_vertices(&nd, &no, c) {
            Some(nv) if nv.len() <= max_vertices => {
                for &k in &added {
                    used[k] = true;
                }
                dirs = nd;
                offs = no;
                verts = nv;
            }
            _ if added.len() > 1 => batch = 1,
            _ => break,
        }
    }
    Some(verts)
}

/// Largest support excess `max_u h_poly(u) - h_hull(u)` over `dirs`.
pub fn max_excess(poly: &[V3], hull_points: &[V3], dirs: &[V3]) -> f64 {
    dirs.iter()
        .map(|u| hull::support_points(poly, *u) - hull::support_points(hull_points, *u))
        .fold(f64::NEG_INFINITY, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::dop26;

    fn sphere_points(n: usize) -> Vec<V3> {
        support::fibonacci_directions(n)
            .into_iter()
            .map(|u| v3::scale(u, 0.1))
            .collect()
    }

    #[test]
    fn cube_halfspaces() {
        let dirs: Vec<V3> = dop26::DIRS[..6].to_vec();
        let v = halfspace_vertices(&dirs, &[1.0; 6], [0.0; 3]).unwrap();
        assert_eq!(v.len(), 8);
        for p in v {
            assert!(p.iter().all(|x| (x.abs() - 1.0).abs() < 1e-12));
        }
    }

    #[test]
    fn outer_polytope_contains_padded_hull_within_budget() {
        let pts = sphere_points(2000);
        let h = Hull::new(&pts);
        assert!(h.points.len() > 320);
        let pad = 0.001;
        let poly = outer_polytope(&h, pad, &dop26::DIRS, 320).unwrap();
        assert!(poly.len() <= 320, "{}", poly.len());
        let dirs = support::fibonacci_directions(4096);
        let mut worst_gap = f64::INFINITY;
        for u in &dirs {
            let gap = hull::support_points(&poly, *u) - h.support(*u);
            worst_gap = worst_gap.min(gap);
        }
        assert!(worst_gap >= pad - 1e-9, "{worst_gap}");
        let ex = max_excess(&poly, &h.points, &dirs);
        assert!(ex < 0.01, "excess {ex}");
    }

    #[test]
    fn push_direction_is_least_norm() {
        let m = push_direction(&[
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
            [1.0, 0.0, 0.0],
        ])
        .unwrap();
        assert!(v3::dist(m, [1.0, 1.0, 1.0]) < 1e-12, "{m:?}");
        let s = std::f64::consts::FRAC_1_SQRT_2;
        let m = push_direction(&[[1.0, 0.0, 0.0], [s, s, 0.0]]).unwrap();
        assert!(
            (v3::dot(m, [1.0, 0.0, 0.0]) - 1.0).abs() < 1e-12
                && (v3::dot(m, [s, s, 0.0]) - 1.0).abs() < 1e-12
        );
        assert!(push_direction(&[[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]]).is_none());
    }

    #[test]
    fn brute_force_dop_vertices() {
        let v = halfspace_vertices_brute(&dop26::DIRS, &[1.0; 26]);
        // A 26-DOP with equal offsets: 48 vertices.
        assert_eq!(v.len(), 48, "{}", v.len());
    }

    #[test]
    fn pushed_cube_grows_by_pad() {
        let mut pts = Vec::new();
        for x in [0.0, 1.0] {
            for y in [0.0, 1.0] {
                for z in [0.0, 1.0] {
                    pts.push([x, y, z]);
                }
            }
        }
        let h = Hull::new(&pts);
        let w = pushed_hull(&h, 0.01).unwrap();
        for p in &w {
            assert!(
                p.iter()
                    .all(|x| (x - 0.5).abs() - 0.51 < 1e-12 && (x - 0.5).abs() - 0.51 > -1e-12),
                "{p:?}"
            );
        }
        for u in support::fibonacci_directions(500) {
            assert!(hull::support_points(&w, u) >= h.support(u) + 0.01 - 1e-12);
        }
    }
}
