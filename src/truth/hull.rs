//! The sweep's ground truth: each link's truth mesh as convex pieces, and an exact
//! (GJK, rigorous lower bound) contact test between two placed links.
//!
//! A link with one primitive is judged as the convex hull of its whole truth mesh. A link
//! with several primitives (a capsule chain, tight slabs) is not convex as a union, and its
//! single hull would fill concavities the primitives rightly leave out, reporting contacts
//! no mesh makes. Such a link's surface is split among its primitives: each triangle goes to
//! the primitive that holds it with the most depth; a triangle no single primitive holds is
//! cut into four (edge midpoints) until every piece is held by one. The truth is then the
//! union of the hulls of each primitive's share. Each share's hull lies in its primitive
//! (a convex set holds the hull of points it holds), so a truth contact the kernel does not
//! report can only come from a containment failure; and the union holds the whole surface.

use crate::fit;
use crate::geom::hull::Hull;
use crate::geom::mesh::TriMesh;
use crate::geom::point::{self, PieceVerdict, Solid, deepest};
use crate::geom::v3::{self, V3};
use crate::kernel::gjk::{self, GjkResult};
use crate::kernel::shapes::{self, PosedHull};
use crate::kernel::vec3::Iso;

/// Sub-triangles one truth triangle may be cut into before it is given up as not held.
const MAX_PIECES_PER_TRIANGLE: usize = 4096;
/// Support queries one truth GJK may make (the kernel stops at 24; the truth can afford more).
pub const TRUTH_GJK_ITER: u32 = 96;

/// One convex piece of a link's truth: hull vertices (link frame) and a bounding sphere.
#[derive(Debug, Clone)]
pub struct Piece {
    pub hull: shapes::Hull,
    pub center: V3,
    pub radius: f64,
    /// The primitive (index in the link's list) this piece was assigned to.
    pub primitive: usize,
}

/// A truth surface point no primitive holds (a containment failure), the worst found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outside {
    pub point: V3,
    /// Depth in the best primitive (negative: how far outside, m).
    pub depth: f64,
}

/// A link's truth as convex pieces.
#[derive(Debug, Clone)]
pub struct TruthLink {
    pub pieces: Vec<Piece>,
    /// Bounding sphere of every piece (link frame).
    pub center: V3,
    pub radius: f64,
    /// Set when part of the surface is outside every primitive.
    pub outside: Option<Outside>,
    /// Triangles that needed cutting to be assigned.
    pub cut_triangles: usize,
}

impl TruthLink {
    pub fn hull_vertices(&self) -> usize {
        self.pieces.iter().map(|p| p.hull.x.len()).sum()
    }
}

/// The point query of one fitted primitive. A tight box answers by its hull, the
/// innermost of box, DOP and hull: the tightest holder.
fn holder(p: &fit::Primitive) -> Result<Solid, String> {
    Ok(match p {
        fit::Primitive::Capsule(c) => Solid::capsule(c.a, c.b, c.radius),
        fit::Primitive::Box(b) => Solid::cuboid(b.center, b.rotation(), b.half_extents),
        fit::Primitive::TightBox(t) => Solid::hull(&t.hull)?,
    })
}

/// Splits `mesh` among `primitives` and builds the pieces (module doc). An error only for
/// a primitive whose hull is invalid; surface outside every primitive is reported in
/// `outside`, its pieces given to the primitive that comes closest to holding them.
pub fn truth_link(mesh: &TriMesh, primitives: &[fit::Primitive]) -> Result<TruthLink, String> {
    let mut shares: Vec<Vec<V3>> = vec![Vec::new(); primitives.len().max(1)];
    let mut outside: Option<Outside> = None;
    let mut cut_triangles = 0;
    let mut note_outside = |point: V3, depth: f64| {
        if outside.is_none_or(|o| depth < o.depth) {
            outside = Some(Outside { point, depth });
        }
    };
    if primitives.len() <= 1 {
        shares[0] = mesh.vertices.clone();
        if let Some(p) = primitives.first() {
            let h = holder(p)?;
            for v in &mesh.vertices {
                let d = h.depth(*v);
                if d.is_nan() || d < 0.0 {
                    note_outside(*v, d);
                }
            }
        }
    } else {
        let holders: Vec<Solid> = primitives.iter().map(holder).collect::<Result<_, _>>()?;
        let mut used = vec![false; mesh.vertices.len()];
        for t in &mesh.triangles {
            for &i in t {
                used[i as usize] = true;
            }
            let tri = t.map(|i| mesh.vertices[i as usize]);
            // Each final piece goes to the primitive holding it deepest (or, outside every
            // one, to the one that comes closest).
            let pieces =
                point::subdivide(tri, &holders, None, MAX_PIECES_PER_TRIANGLE, |piece, v| {
                    let best = match v {
                        PieceVerdict::Held { solid, .. } => solid,
                        PieceVerdict::Outside { point, depth, best } => {
                            note_outside(point, depth);
                            best
                        }
                    };
                    shares[best].extend_from_slice(piece);
                    true
                });
            if pieces > 1 {
                cut_triangles += 1;
            }
        }
        // Vertices of no triangle (point geometry) go to their deepest primitive.
        for (i, v) in mesh.vertices.iter().enumerate() {
            if !used[i] {
                let (d, best) = deepest(&holders, &[*v], None);
                if d.is_nan() || d < 0.0 {
                    note_outside(*v, d);
                }
                shares[best].push(*v);
            }
        }
    }
    let mut pieces = Vec::new();
    for (j, pts) in shares.iter().enumerate() {
        if pts.is_empty() {
            continue;
        }
        let hull = Hull::new(pts);
        pieces.push(piece_of(&hull.points, j));
    }
    let (center, radius) =
        sphere_of(pieces.iter().flat_map(|p| {
            (0..p.hull.x.len()).map(move |i| [p.hull.x[i], p.hull.y[i], p.hull.z[i]])
        }));
    Ok(TruthLink {
        pieces,
        center,
        radius,
        outside,
        cut_triangles,
    })
}

fn piece_of(points: &[V3], primitive: usize) -> Piece {
    let (center, radius) = sphere_of(points.iter().copied());
    Piece {
        hull: shapes::Hull::from_points(points),
        center,
        radius,
        primitive,
    }
}

/// A sphere holding every point: the bounding box centre and the largest distance from it,
/// padded outward so rounding never lets a point poke out.
/// A bounding sphere of the points (centre of their box, radius grown a hair).
pub(crate) fn sphere_of(points: impl Iterator<Item = V3> + Clone) -> (V3, f64) {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for p in points.clone() {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    if lo[0] > hi[0] {
        return ([0.0; 3], 0.0);
    }
    let c = [
        0.5 * (lo[0] + hi[0]),
        0.5 * (lo[1] + hi[1]),
        0.5 * (lo[2] + hi[2]),
    ];
    let r = points.map(|p| v3::dist(p, c)).fold(0.0, f64::max);
    (c, r * (1.0 + 1e-12) + 1e-12)
}

/// How two placed links' truths relate at the margin.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Contact {
    /// Some piece pair is not proven apart by more than the margin: `lower` is that pair's
    /// rigorous lower bound, `upper` GJK's upper estimate of its distance.
    Touching {
        lower: f64,
        upper: f64,
        converged: bool,
    },
    /// Every piece pair is proven apart by more than the margin (a separating plane or
    /// disjoint bounding spheres); `lower` is the least proven gap.
    Apart { lower: f64 },
}

impl Contact {
    pub fn touching(&self) -> bool {
        matches!(self, Contact::Touching { .. })
    }
}

#[inline]
fn sphere_gap(ca: V3, ra: f64, cb: V3, rb: f64) -> f64 {
    v3::dist(ca, cb) - ra - rb
}

/// Exact contact test between links `a` and `b` at their placements: bounding spheres first
/// (a gap above the margin proves the pieces apart), GJK on the hull vertices otherwise.
pub fn contact(a: &TruthLink, pa: &Iso, b: &TruthLink, pb: &Iso, margin: f64) -> Contact {
    let link_gap = sphere_gap(
        pa.transform_point(a.center),
        a.radius,
        pb.transform_point(b.center),
        b.radius,
    );
    if link_gap > margin {
        return Contact::Apart { lower: link_gap };
    }
    let mut least = f64::INFINITY;
    for x in &a.pieces {
        let cx = pa.transform_point(x.center);
        for y in &b.pieces {
            let cy = pb.transform_point(y.center);
            let gap = sphere_gap(cx, x.radius, cy, y.radius);
            if gap > margin {
                least = least.min(gap);
                continue;
            }
            let r = piece_gjk(x, pa, y, pb, v3::sub(cy, cx));
            if r.lower <= margin || r.lower.is_nan() {
                return Contact::Touching {
                    lower: r.lower,
                    upper: r.upper,
                    converged: r.converged,
                };
            }
            least = least.min(r.lower);
        }
    }
    Contact::Apart { lower: least }
}

fn piece_gjk(x: &Piece, pa: &Iso, y: &Piece, pb: &Iso, dir: V3) -> GjkResult {
    let hx = PosedHull {
        pts: x.hull.points(),
        rot: pa.rot,
        pos: pa.pos,
    };
    let hy = PosedHull {
        pts: y.hull.points(),
        rot: pb.rot,
        pos: pb.pos,
    };
    gjk::gjk_distance(&hx, &hy, dir, None, TRUTH_GJK_ITER)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::capsule::Capsule;

    fn cube(c: V3, h: f64) -> TriMesh {
        let mut m = crate::geom::primitive_mesh::box_mesh([h; 3]);
        for v in &mut m.vertices {
            *v = [v[0] + c[0], v[1] + c[1], v[2] + c[2]];
        }
        m
    }

    fn at(x: f64) -> Iso {
        Iso {
            rot: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
            pos: [x, 0.0, 0.0],
        }
    }

    #[test]
    fn cubes_touch_exactly_when_their_faces_meet() {
        let m = cube([0.0; 3], 0.1);
        let t = truth_link(&m, &[]).unwrap();
        assert_eq!(t.pieces.len(), 1);
        assert_eq!(t.hull_vertices(), 8);
        match contact(&t, &at(0.0), &t, &at(0.2005), 0.0) {
            Contact::Apart { lower } => assert!((lower - 0.0005).abs() < 1e-9, "{lower}"),
            c => panic!("{c:?}"),
        }
        assert!(contact(&t, &at(0.0), &t, &at(0.1995), 0.0).touching());
        // Within a 1 mm margin counts as contact at that margin.
        assert!(contact(&t, &at(0.0), &t, &at(0.2005), 0.001).touching());
    }

    #[test]
    fn a_long_bar_split_between_two_capsules_has_two_pieces() {
        // A bar from x = -0.2 to 0.2, held by two overlapping capsules (one per half).
        let mut m = cube([0.0; 3], 0.02);
        for v in &mut m.vertices {
            v[0] *= 10.0;
        }
        let cap = |a: V3, b: V3| fit::Primitive::Capsule(Capsule { a, b, radius: 0.04 });
        let prims = [
            cap([-0.2, 0.0, 0.0], [0.02, 0.0, 0.0]),
            cap([-0.02, 0.0, 0.0], [0.2, 0.0, 0.0]),
        ];
        let t = truth_link(&m, &prims).unwrap();
        assert!(t.outside.is_none());
        assert_eq!(t.pieces.len(), 2);
        assert!(t.cut_triangles > 0);
        // Every piece point is inside its capsule.
        for p in &t.pieces {
            let fit::Primitive::Capsule(c) = &prims[p.primitive] else {
                unreachable!()
            };
            for i in 0..p.hull.x.len() {
                let q = [p.hull.x[i], p.hull.y[i], p.hull.z[i]];
                assert!(crate::geom::containment::capsule_depth(c.a, c.b, c.radius, q) >= 0.0);
            }
        }
    }

    #[test]
    fn surface_outside_every_primitive_is_reported() {
        let m = cube([0.0; 3], 0.1);
        let prims = [fit::Primitive::Capsule(Capsule {
            a: [0.0; 3],
            b: [0.0; 3],
            radius: 0.1,
        })];
        let t = truth_link(&m, &prims).unwrap();
        let o = t.outside.expect("corners stick out");
        assert!((o.depth - (0.1 - 0.1 * 3f64.sqrt())).abs() < 1e-12);
    }
}
