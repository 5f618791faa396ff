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
        if !v3::is_finite(x) {
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

/// The exact hull's vertices pushed out by `pad` (module doc). `None` when a
/// vertex has no direction `a` with `n_f . a >= 0.1` over its faces (flat or
/// needle-sharp hulls), or the hull has no faces.
pub fn pushed_hull(h: &Hull, pad: f64) -> Option<Vec<V3>> {
    if h.dim < 3 || h.faces.is_empty() {
        return None;
    }
    let planes: Vec<Option<V3>> = h
        .faces
        .iter()
        .map(|f| {
            let [a, b, c] = [
                h.points[f[0] as usize],
                h.points[f[1] as usize],
                h.points[f[2] as usize],
            ];
            v3::normalize(v3::cross(v3::sub(b, a), v3::sub(c, a)))
        })
        .collect();
    let mut incident: Vec<Vec<V3>> = vec![Vec::new(); h.points.len()];
    for (f, n) in h.faces.iter().zip(&planes) {
        if let Some(n) = n {
            for &i in f {
                incident[i as usize].push(*n);
            }
        }
    }
    let mut out = Vec::with_capacity(h.points.len());
    for (p, ns) in h.points.iter().zip(&incident) {
        if ns.is_empty() {
            return None;
        }
        let mut a = [0.0; 3];
        for n in ns {
            a = v3::add(a, *n);
        }
        let mut a = v3::normalize(a)?;
        let min_dot = |a: V3| {
            ns.iter()
                .map(|n| v3::dot(*n, a))
                .fold(f64::INFINITY, f64::min)
        };
        let mut s = min_dot(a);
        // A few max-min steps towards the worst face.
        for _ in 0..16 {
            let worst = ns
                .iter()
                .copied()
                .min_by(|x, y| v3::dot(*x, a).total_cmp(&v3::dot(*y, a)))?;
            let cand = v3::normalize(v3::axpy(a, 0.25, worst))?;
            let sc = min_dot(cand);
            if sc > s {
                a = cand;
                s = sc;
            } else {
                break;
            }
        }
        if s < 0.1 {
            return None;
        }
        out.push(v3::axpy(*p, pad / s, a));
    }
    Some(out)
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
        if worst.first().is_none_or(|w| w.0 <= 1e-7) {
            break;
        }
        let room = max_vertices.saturating_sub(verts.len());
        let want = batch.min((room / 6).max(1));
        let mut added = Vec::new();
        for (e, k) in &worst {
            if *e <= 1e-7 || added.len() >= want {
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
            nd.push(pool[k].0);
            no.push(pool[k].1 + pad);
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
        for u in support::fibonacci_directions(500) {
            assert!(hull::support_points(&w, u) >= h.support(u) + 0.01 - 1e-12);
        }
    }
}
