//! The point query on one convex primitive: how deep a point lies in it (>= 0 inside,
//! the margin; negative outside), and the face planes a polytope clips with. Every
//! containment proof, the hull truth, the ACM's depth probes and the fit metrics ask
//! their primitives through this one type.

use super::containment::{HullPlanes, box_depth, capsule_depth};
use super::v3::{self, Mat3, V3};

/// A convex primitive, ready for point queries.
#[derive(Debug, Clone)]
pub enum Solid {
    /// Segment `a`-`b` and radius.
    Capsule { a: V3, b: V3, radius: f64 },
    /// Centre, axes as the columns of `rot`, half extents, and the 6 face planes.
    Box {
        center: V3,
        rot: Mat3,
        half: V3,
        planes: Box<[(V3, f64); 6]>,
    },
    /// A convex hull by its facet planes.
    Hull(HullPlanes),
}

impl Solid {
    pub fn capsule(a: V3, b: V3, radius: f64) -> Solid {
        Solid::Capsule { a, b, radius }
    }

    pub fn cuboid(center: V3, rot: Mat3, half: V3) -> Solid {
        Solid::Box {
            center,
            rot,
            half,
            planes: Box::new(box_planes(center, &rot, half)),
        }
    }

    /// The hull of `points` ([`HullPlanes::new`]'s errors).
    pub fn hull(points: &[V3]) -> Result<Solid, String> {
        Ok(Solid::Hull(HullPlanes::new(points)?))
    }

    /// Signed depth of `p`: exact for a capsule and a box, the least facet distance for a
    /// hull.
    #[inline]
    pub fn depth(&self, p: V3) -> f64 {
        self.depth_above(p, f64::NEG_INFINITY)
    }

    /// The depth when it exceeds `floor`, else some value `<= floor` (a hull stops
    /// scanning its planes once it cannot beat `floor`).
    #[inline]
    pub fn depth_above(&self, p: V3, floor: f64) -> f64 {
        match self {
            Solid::Capsule { a, b, radius } => capsule_depth(*a, *b, *radius, p),
            Solid::Box {
                center, rot, half, ..
            } => box_depth(*center, rot, *half, p),
            Solid::Hull(h) => h.depth_above(p, floor),
        }
    }

    /// A point of the primitive shrunk by `shrink` near `p` (`p` itself when inside):
    /// the nearest one for a capsule and a box, cyclic projections onto the violated
    /// face planes for a hull.
    pub fn project_shrunk(&self, p: V3, shrink: f64) -> V3 {
        match self {
            Solid::Capsule { a, b, radius } => {
                let ab = v3::sub(*b, *a);
                let len2 = v3::dot(ab, ab);
                let t = if len2 > 0.0 {
                    (v3::dot(v3::sub(p, *a), ab) / len2).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                let c = v3::add(*a, v3::scale(ab, t));
                let d = v3::sub(p, c);
                let r = (radius - shrink).max(0.0);
                let n = v3::norm(d);
                if n <= r {
                    p
                } else {
                    v3::add(c, v3::scale(d, r / n))
                }
            }
            Solid::Box {
                center, rot, half, ..
            } => {
                let mut l = v3::mul_mtv(rot, v3::sub(p, *center));
                for i in 0..3 {
                    let h = (half[i] - shrink).max(0.0);
                    l[i] = l[i].clamp(-h, h);
                }
                v3::add(*center, v3::mul_mv(rot, l))
            }
            Solid::Hull(h) => {
                let mut x = p;
                for _ in 0..64 {
                    let mut moved = false;
                    for (n, off) in &h.planes {
                        let excess = v3::dot(*n, x) - (off - shrink);
                        if excess > 0.0 {
                            x = v3::sub(x, v3::scale(*n, excess));
                            moved = true;
                        }
                    }
                    if !moved {
                        break;
                    }
                }
                x
            }
        }
    }

    /// Face planes `n . x <= d` (unit outward `n`) of a polytope, for clipping; `None`
    /// for a capsule.
    pub fn planes(&self) -> Option<&[(V3, f64)]> {
        match self {
            Solid::Capsule { .. } => None,
            Solid::Box { planes, .. } => Some(&planes[..]),
            Solid::Hull(h) => Some(&h.planes),
        }
    }
}

/// The deepest any solid holds `p`: exact (a maximum over the solids; each one that
/// cannot beat the best so far stops early).
pub fn union_depth(solids: &[Solid], p: V3) -> f64 {
    deepest(solids, &[p], Some(0)).0
}

/// The least depth of `points` in `solid` when all are inside it (>= 0), else `None`:
/// stops at the first plane that shows a point outside.
pub fn held_by(solid: &Solid, points: &[V3]) -> Option<f64> {
    let mut m = f64::INFINITY;
    for p in points {
        // Any negative depth ends the scan: values above the floor are exact.
        m = m.min(solid.depth_above(*p, -f64::MIN_POSITIVE));
        if m.is_nan() || m < 0.0 {
            return None;
        }
    }
    Some(m)
}

/// The most any one solid holds all of `points` (the largest over solids of the least
/// depth over the points), and which solid: exact. `hint` goes first (a sub-triangle
/// usually lies where its parent did), so the others can stop as soon as they cannot
/// beat it; without a hint the solids are asked in order and the first best wins.
pub fn deepest(solids: &[Solid], points: &[V3], hint: Option<usize>) -> (f64, usize) {
    let first = hint.unwrap_or(0);
    let mut best = (f64::NEG_INFINITY, first);
    let order = std::iter::once(first).chain((0..solids.len()).filter(|&i| i != first));
    for i in order {
        let Some(c) = solids.get(i) else { continue };
        let mut m = f64::INFINITY;
        for p in points {
            m = m.min(c.depth_above(*p, best.0));
            if m <= best.0 {
                break;
            }
        }
        if m > best.0 || (m.is_nan() && best.0 == f64::NEG_INFINITY) {
            best = (m, i);
        }
    }
    best
}

/// What became of one final piece of a subdivided triangle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PieceVerdict {
    /// Every corner at depth >= `depth` in solid `solid`.
    Held { solid: usize, depth: f64 },
    /// Not held: a corner outside every solid (that corner and its depth), or the piece
    /// limit or the 1 nm size reached (the centroid, and the best depth found). `best` is
    /// the solid that came closest.
    Outside { point: V3, depth: f64, best: usize },
}

/// Midpoint subdivision of `tri` among `solids` (4 children a piece, at the edge
/// midpoints) until each piece is held by one solid or is found outside; `visit` sees
/// every final piece and returns `false` to stop. A piece is tried first in the solid
/// that held its parent (`hint` for the triangle itself, when given). Returns the pieces
/// made.
pub fn subdivide(
    tri: [V3; 3],
    solids: &[Solid],
    hint: Option<usize>,
    max_pieces: usize,
    mut visit: impl FnMut(&[V3; 3], PieceVerdict) -> bool,
) -> usize {
    let mut stack = vec![(tri, hint)];
    let mut count = 0usize;
    while let Some((t, hint)) = stack.pop() {
        count += 1;
        if let Some(h) = hint
            && let Some(depth) = solids.get(h).and_then(|s| held_by(s, &t))
        {
            if !visit(&t, PieceVerdict::Held { solid: h, depth }) {
                break;
            }
            continue;
        }
        let (best, holder) = deepest(solids, &t, hint);
        let verdict = if best >= 0.0 {
            Some(PieceVerdict::Held {
                solid: holder,
                depth: best,
            })
        } else if let Some((point, depth)) = t.iter().find_map(|p| {
            let d = union_depth(solids, *p);
            (d.is_nan() || d < 0.0).then_some((*p, d))
        }) {
            Some(PieceVerdict::Outside {
                point,
                depth,
                best: holder,
            })
        } else {
            let longest = v3::dist(t[0], t[1])
                .max(v3::dist(t[1], t[2]))
                .max(v3::dist(t[2], t[0]));
            (count > max_pieces || longest < 1e-9).then(|| PieceVerdict::Outside {
                point: v3::scale(v3::add(v3::add(t[0], t[1]), t[2]), 1.0 / 3.0),
                depth: best,
                best: holder,
            })
        };
        if let Some(v) = verdict {
            if !visit(&t, v) {
                break;
            }
            continue;
        }
        let child_hint = hint.map(|_| holder);
        let m01 = v3::lerp(t[0], t[1], 0.5);
        let m12 = v3::lerp(t[1], t[2], 0.5);
        let m20 = v3::lerp(t[2], t[0], 0.5);
        stack.push(([t[0], m01, m20], child_hint));
        stack.push(([m01, t[1], m12], child_hint));
        stack.push(([m20, m12, t[2]], child_hint));
        stack.push(([m01, m12, m20], child_hint));
    }
    count
}

/// The 6 face planes of a box (centre, axes as columns of `rot`, half extents). Only used
/// to cut pieces: what the pieces prove is checked with the box's own depth, so these need
/// not agree with it bit for bit.
fn box_planes(c: V3, rot: &Mat3, he: V3) -> [(V3, f64); 6] {
    std::array::from_fn(|k| {
        let u = v3::col(rot, k / 2);
        let n = if k % 2 == 0 { u } else { v3::neg(u) };
        (n, v3::dot(n, c) + he[k / 2])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const I: Mat3 = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

    #[test]
    fn depths_of_known_points() {
        let c = Solid::capsule([0.0; 3], [1.0, 0.0, 0.0], 0.5);
        assert!((c.depth([0.5, 0.2, 0.0]) - 0.3).abs() < 1e-15);
        assert!((c.depth([2.0, 0.0, 0.0]) + 0.5).abs() < 1e-15);
        assert!(c.planes().is_none());
        let b = Solid::cuboid([0.0; 3], I, [1.0, 2.0, 3.0]);
        assert!((b.depth([0.5, 0.0, 0.0]) - 0.5).abs() < 1e-15);
        assert!((b.depth([0.0, 0.0, 4.0]) + 1.0).abs() < 1e-15);
        assert_eq!(b.planes().unwrap().len(), 6);
        let cube: Vec<V3> = (0..8)
            .map(|i| [(i & 1) as f64, ((i >> 1) & 1) as f64, ((i >> 2) & 1) as f64])
            .collect();
        let h = Solid::hull(&cube).unwrap();
        assert!((h.depth([0.5, 0.5, 0.25]) - 0.25).abs() < 1e-12);
        assert!(h.depth([1.5, 0.5, 0.5]) < 0.0);
    }
}
