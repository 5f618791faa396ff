//! GJK's simplex: the point of at most four points of `A − B` nearest the origin and the
//! smallest subset holding it (Voronoi regions), the origin's depth in a tetrahedron, and
//! the barycentric weights of nearest points (for witness points).

use super::SimplexWeights;
use crate::kernel::vec3::*;

#[derive(Clone, Copy)]
pub(crate) struct Simplex {
    pub(super) n: usize,
    pub(super) p: [V3; 4],
    pub(super) ia: [u32; 4],
    pub(super) ib: [u32; 4],
}

impl Simplex {
    /// Keeps the points at the ascending positions `idx` (moved down in place: every
    /// `idx[k] >= k`, so no kept point is overwritten before it is moved).
    #[inline(always)]
    pub(super) fn keep(&mut self, idx: &[usize]) {
        for (k, &i) in idx.iter().enumerate() {
            self.p[k] = self.p[i];
            self.ia[k] = self.ia[i];
            self.ib[k] = self.ib[i];
        }
        self.n = idx.len();
    }

    #[inline(always)]
    pub(super) fn push(&mut self, w: V3, ia: u32, ib: u32) {
        self.p[self.n] = w;
        self.ia[self.n] = ia;
        self.ib[self.n] = ib;
        self.n += 1;
    }

    #[inline(always)]
    pub(super) fn contains(&self, ia: u32, ib: u32) -> bool {
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
    pub(super) fn closest(&mut self) -> V3 {
        match self.closest_with_newest() {
            Some((u, den)) => scale(u, 1.0 / den),
            None => self.closest_general(),
        }
    }

    /// [`Self::closest`] of a simplex rebuilt from a witness: every region, every face.
    #[inline]
    pub(super) fn closest_rebuilt(&mut self) -> V3 {
        if self.n == 4 {
            self.closest_tetra(true)
        } else {
            self.closest_general()
        }
    }

    /// [`Self::closest`] over every region (degenerate simplices, rounding).
    #[inline(always)]
    pub(super) fn closest_general(&mut self) -> V3 {
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
    pub(super) fn keep_tri(&mut self, k: TriKeep, map: [usize; 3]) {
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
    pub(super) fn closest_tetra(&mut self, all_faces: bool) -> V3 {
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
pub(crate) const FACES_WITH_OPPOSITE: [([usize; 3], usize); 4] = [
    ([0, 1, 3], 2),
    ([0, 2, 3], 1),
    ([1, 2, 3], 0),
    ([0, 1, 2], 3),
];

/// How far the origin lies inside the tetrahedron `p`: the least distance from it to a face
/// plane (0 or less when it is on or outside a face, or the tetrahedron is flat).
pub(crate) fn origin_depth_in_tetrahedron(p: &[V3; 4]) -> f64 {
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
pub(crate) fn flat_tetrahedron(vol: f64, size2: f64) -> bool {
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
pub(crate) fn triangle_with_newest(a: V3, b: V3, c: V3) -> (V3, f64, usize, bool) {
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
pub(crate) const TRIANGLE_KEEP: [(usize, [usize; 3]); 4] = [
    (1, [2, 0, 0]),
    (2, [0, 2, 0]),
    (2, [1, 2, 0]),
    (3, [0, 1, 2]),
];
/// The tetrahedron's faces holding its newest point (position 3), positions ascending.
pub(crate) const TETRA_FACES: [[usize; 3]; 3] = [[0, 1, 3], [1, 2, 3], [0, 2, 3]];

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
    pub(super) fn closest_with_newest(&mut self) -> Option<(V3, f64)> {
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

pub(crate) enum Keep {
    A,
    B,
    All,
}

#[derive(Clone, Copy)]
pub(crate) enum TriKeep {
    V(usize),
    E(usize, usize),
    F,
}

#[inline(always)]
pub(crate) fn closest_segment(a: V3, b: V3) -> (V3, Keep) {
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
pub(crate) fn closest_triangle(a: V3, b: V3, c: V3) -> (V3, TriKeep) {
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

/// The weights of the point of the simplex `p[..n]` (`n <= 3`) nearest to `q`.
pub(crate) fn simplex_weights(p: &[V3], ia: &[u32], ib: &[u32], q: V3, out: &mut SimplexWeights) {
    let n = p.len().min(3);
    out.n = n as u8;
    out.ia[..n].copy_from_slice(&ia[..n]);
    out.ib[..n].copy_from_slice(&ib[..n]);
    out.w = [0.0; 4];
    let w = closest_weights(&p[..n], q);
    out.w[..3].copy_from_slice(&w);
}

/// Barycentric weights (of `p[0..n]`, `n <= 3`; the rest 0) of the point of the simplex `p`
/// nearest to `q`: a vertex, an edge or the triangle's face (Voronoi regions), a degenerate
/// triangle by its best edge.
pub(crate) fn closest_weights(p: &[V3], q: V3) -> [f64; 3] {
    match p.len() {
        0 => [0.0; 3],
        1 => [1.0, 0.0, 0.0],
        2 => {
            let t = segment_param(p[0], p[1], q);
            [1.0 - t, t, 0.0]
        }
        _ => triangle_weights(p[0], p[1], p[2], q),
    }
}

/// Parameter in `[0, 1]` of the point of segment `a`–`b` nearest to `q`.
pub(crate) fn segment_param(a: V3, b: V3, q: V3) -> f64 {
    let d = sub(b, a);
    let dd = norm2(d);
    if dd > 0.0 {
        (dot(sub(q, a), d) / dd).clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// Weights of the point of triangle `abc` nearest to `q` (Voronoi regions, as in
/// Ericson, *Real-Time Collision Detection*, 5.1.5).
pub(crate) fn triangle_weights(a: V3, b: V3, c: V3, q: V3) -> [f64; 3] {
    let ab = sub(b, a);
    let ac = sub(c, a);
    let ap = sub(q, a);
    let d1 = dot(ab, ap);
    let d2 = dot(ac, ap);
    if d1 <= 0.0 && d2 <= 0.0 {
        return [1.0, 0.0, 0.0];
    }
    let bp = sub(q, b);
    let d3 = dot(ab, bp);
    let d4 = dot(ac, bp);
    if d3 >= 0.0 && d4 <= d3 {
        return [0.0, 1.0, 0.0];
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let t = d1 / (d1 - d3);
        return [1.0 - t, t, 0.0];
    }
    let cp = sub(q, c);
    let d5 = dot(ab, cp);
    let d6 = dot(ac, cp);
    if d6 >= 0.0 && d5 <= d6 {
        return [0.0, 0.0, 1.0];
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let t = d2 / (d2 - d6);
        return [1.0 - t, 0.0, t];
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return [0.0, 1.0 - t, t];
    }
    let sum = va + vb + vc;
    if sum > 0.0 && sum.is_finite() {
        let (v, w) = (vb / sum, vc / sum);
        return [1.0 - v - w, v, w];
    }
    // Degenerate (collinear) triangle: the best of its three edges.
    let mut best = (f64::INFINITY, [1.0, 0.0, 0.0]);
    for (i, j) in [(0, 1), (0, 2), (1, 2)] {
        let (x, y) = ([a, b, c][i], [a, b, c][j]);
        let t = segment_param(x, y, q);
        let d = norm2(sub(axpy(x, t, sub(y, x)), q));
        if d < best.0 {
            let mut w = [0.0; 3];
            w[i] = 1.0 - t;
            w[j] = t;
            best = (d, w);
        }
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triangle_weights_reproduce_the_nearest_point() {
        let (a, b, c) = ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]);
        // The origin projects to the centroid.
        let w = triangle_weights(a, b, c, [0.0; 3]);
        for x in w {
            assert!((x - 1.0 / 3.0).abs() < 1e-15);
        }
        // Beyond vertex a, and beyond edge ab.
        assert_eq!(
            triangle_weights(a, b, c, [2.0, -1.0, -1.0]),
            [1.0, 0.0, 0.0]
        );
        let w = triangle_weights(a, b, c, [1.0, 1.0, -1.0]);
        assert!((w[0] - 0.5).abs() < 1e-15 && (w[1] - 0.5).abs() < 1e-15 && w[2] == 0.0);
        // Collinear: the best edge.
        let w = triangle_weights([0.0; 3], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0], [1.5, 1.0, 0.0]);
        let p = [w[1] + 2.0 * w[2], 0.0, 0.0];
        assert!((p[0] - 1.5).abs() < 1e-15);
    }
}
