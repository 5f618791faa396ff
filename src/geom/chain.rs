//! Slabs: a link's surface cut by parallel planes, triangles split at the
//! planes, so each slab's piece (its vertices plus the cut points) can be
//! fitted on its own and the pieces together are the whole surface, seams
//! included.
//!
//! The split is deterministic and shared by the fit and the proof: the proof
//! re-splits each triangle with the same function on the same inputs and gets
//! the very same cut points the fit held with headroom.

use super::mesh::TriMesh;
use super::v3::{self, V3};

/// Parallel cut planes `normal . x = offsets[j]` (link frame, `offsets`
/// ascending). Slab `j` is `offsets[j-1] <= normal . x <= offsets[j]`, the
/// first and last slabs unbounded outward.
#[derive(Debug, Clone, PartialEq)]
pub struct Cuts {
    pub normal: V3,
    pub offsets: Vec<f64>,
}

impl Cuts {
    /// `k` equal slabs between `tmin` and `tmax` along unit `normal`.
    pub fn equal(normal: V3, tmin: f64, tmax: f64, k: usize) -> Cuts {
        let offsets = (1..k)
            .map(|j| tmin + (tmax - tmin) * j as f64 / k as f64)
            .collect();
        Cuts { normal, offsets }
    }
    pub fn slabs(&self) -> usize {
        self.offsets.len() + 1
    }
    /// `(lo, hi)` of slab `j`, infinite at the outer ends.
    pub fn range(&self, j: usize) -> (f64, f64) {
        let lo = if j == 0 {
            f64::NEG_INFINITY
        } else {
            self.offsets[j - 1]
        };
        let hi = if j == self.offsets.len() {
            f64::INFINITY
        } else {
            self.offsets[j]
        };
        (lo, hi)
    }
    /// Slabs holding a point at coordinate `t` (two when `t` is on a cut).
    pub fn slabs_of(&self, t: f64) -> std::ops::RangeInclusive<usize> {
        let first = self.offsets.partition_point(|&o| o < t);
        let last = self.offsets.partition_point(|&o| o <= t);
        first..=last
    }
    #[inline]
    pub fn coord(&self, p: V3) -> f64 {
        v3::dot(self.normal, p)
    }
}

/// Point where the edge `p`-`q` crosses the plane at coordinate `c`, computed
/// from the lexicographically smaller endpoint so both triangles sharing an
/// edge get the bit-identical point.
fn cross_point(p: V3, tp: f64, q: V3, tq: f64, c: f64) -> V3 {
    let swap = (q[0], q[1], q[2]) < (p[0], p[1], p[2]);
    let (a, ta, b, tb) = if swap { (q, tq, p, tp) } else { (p, tp, q, tq) };
    let s = ((c - ta) / (tb - ta)).clamp(0.0, 1.0);
    v3::lerp(a, b, s)
}

/// Keep the part of the polygon with `sign * (t - c) >= 0`.
fn clip(poly: &[V3], cuts: &Cuts, c: f64, sign: f64, out: &mut Vec<V3>) {
    out.clear();
    let n = poly.len();
    for i in 0..n {
        let p = poly[i];
        let q = poly[(i + 1) % n];
        let (tp, tq) = (cuts.coord(p), cuts.coord(q));
        let pin = sign * (tp - c) >= 0.0;
        let qin = sign * (tq - c) >= 0.0;
        if pin {
            out.push(p);
        }
        if pin != qin {
            out.push(cross_point(p, tp, q, tq, c));
        }
    }
}

/// Calls `f(slab, piece)` for every non-empty piece of the triangle, the
/// piece given as its polygon's vertices (a convex polygon inside the
/// triangle). A triangle inside one slab is its own single piece.
pub fn split_triangle(tri: [V3; 3], cuts: &Cuts, mut f: impl FnMut(usize, &[V3])) {
    let t = [cuts.coord(tri[0]), cuts.coord(tri[1]), cuts.coord(tri[2])];
    let tmin = t[0].min(t[1]).min(t[2]);
    let tmax = t[0].max(t[1]).max(t[2]);
    let first = *cuts.slabs_of(tmin).start();
    let last = *cuts.slabs_of(tmax).end();
    if first == last {
        f(first, &tri);
        return;
    }
    let mut a = Vec::with_capacity(8);
    let mut b = Vec::with_capacity(8);
    for j in first..=last {
        let (lo, hi) = cuts.range(j);
        a.clear();
        a.extend_from_slice(&tri);
        if lo.is_finite() && tmin < lo {
            clip(&a, cuts, lo, 1.0, &mut b);
            std::mem::swap(&mut a, &mut b);
        }
        if hi.is_finite() && tmax > hi && !a.is_empty() {
            clip(&a, cuts, hi, -1.0, &mut b);
            std::mem::swap(&mut a, &mut b);
        }
        if !a.is_empty() {
            f(j, &a);
        }
    }
}

/// Each slab's point set: the mesh vertices in it (both slabs for a vertex on
/// a cut) plus the vertices of every triangle piece in it. Triangles with an
/// out-of-range index are skipped here (the caller validates meshes first).
pub fn slab_points(mesh: &TriMesh, cuts: &Cuts) -> Vec<Vec<V3>> {
    let mut out = vec![Vec::new(); cuts.slabs()];
    for p in &mesh.vertices {
        for j in cuts.slabs_of(cuts.coord(*p)) {
            out[j].push(*p);
        }
    }
    let nv = mesh.vertices.len();
    for t in &mesh.triangles {
        if t.iter().any(|&i| i as usize >= nv) {
            continue;
        }
        let tri = [
            mesh.vertices[t[0] as usize],
            mesh.vertices[t[1] as usize],
            mesh.vertices[t[2] as usize],
        ];
        split_triangle(tri, cuts, |j, piece| {
            // Original corners are already in via the vertex pass.
            for p in piece {
                if !tri.contains(p) {
                    out[j].push(*p);
                }
            }
        });
    }
    out
}

/// [`slab_points`] with empty slabs merged away: an empty slab is one no
/// triangle and no vertex reaches, so removing its upper plane (its lower one
/// for the last slab) changes no other slab's piece. `cuts` is updated.
pub fn slab_points_nonempty(mesh: &TriMesh, cuts: &mut Cuts) -> Vec<Vec<V3>> {
    let mut pieces = slab_points(mesh, cuts);
    let mut j = 0;
    while j < pieces.len() {
        if pieces[j].is_empty() && pieces.len() > 1 {
            let o = if j < cuts.offsets.len() { j } else { j - 1 };
            cuts.offsets.remove(o);
            pieces.remove(j);
        } else {
            j += 1;
        }
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_covers_triangle_area() {
        let cuts = Cuts::equal([0.0, 0.0, 1.0], 0.0, 1.0, 3);
        let tri = [[0.0, 0.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.5]];
        let area = |p: &[V3]| {
            let mut a = [0.0; 3];
            for i in 1..p.len().saturating_sub(1) {
                a = v3::add(a, v3::cross(v3::sub(p[i], p[0]), v3::sub(p[i + 1], p[0])));
            }
            v3::norm(a) / 2.0
        };
        let mut total = 0.0;
        let mut count = 0;
        split_triangle(tri, &cuts, |j, piece| {
            let (lo, hi) = cuts.range(j);
            for p in piece {
                let t = cuts.coord(*p);
                assert!(t >= lo - 1e-12 && t <= hi + 1e-12);
            }
            total += area(piece);
            count += 1;
        });
        assert_eq!(count, 3);
        assert!((total - area(&tri)).abs() < 1e-12);
    }

    #[test]
    fn vertex_on_cut_is_in_both() {
        let cuts = Cuts {
            normal: [1.0, 0.0, 0.0],
            offsets: vec![0.5],
        };
        assert_eq!(cuts.slabs_of(0.5), 0..=1);
        assert_eq!(cuts.slabs_of(0.2), 0..=0);
        assert_eq!(cuts.slabs_of(0.7), 1..=1);
    }

    #[test]
    fn shared_edge_cut_point_is_identical() {
        let cuts = Cuts {
            normal: [0.0, 0.0, 1.0],
            offsets: vec![0.37],
        };
        let (a, b) = ([0.1, 0.2, 0.0], [0.3, -0.4, 1.0]);
        let mut pts1 = Vec::new();
        split_triangle([a, b, [1.0, 0.0, 0.0]], &cuts, |_, p| {
            pts1.extend_from_slice(p)
        });
        let mut pts2 = Vec::new();
        split_triangle([b, a, [-1.0, 0.0, 0.1]], &cuts, |_, p| {
            pts2.extend_from_slice(p)
        });
        let on_ab = |p: &V3| {
            cuts.coord(*p) == cuts.coord(*p)
                && (v3::dist(*p, a) + v3::dist(*p, b) - v3::dist(a, b)).abs() < 1e-12
                && *p != a
                && *p != b
        };
        let x1: Vec<V3> = pts1.into_iter().filter(on_ab).collect();
        let x2: Vec<V3> = pts2.into_iter().filter(on_ab).collect();
        assert!(!x1.is_empty());
        assert_eq!(x1[0], x2[0]);
    }
}
