//! The containment proof, run on primitives exactly as written.
//!
//! What it proves, for one link:
//! - every mesh vertex lies inside the primitive set (its depth in the union is
//!   at least its depth in the best single primitive, which is what is
//!   reported);
//! - every surface triangle lies inside: with one primitive (convex), iff its
//!   vertices do; with slab cuts (chains, tight slabs), each triangle is split
//!   at the cut planes exactly as the fit split it and every piece's vertices
//!   must lie in that slab's primitive (a convex primitive holds a convex piece
//!   iff it holds its vertices); with several primitives and no cuts (a
//!   manifest read back, whose cut planes are not written), a triangle held by
//!   no single primitive is subdivided until every sub-triangle's three
//!   vertices lie in one primitive, which covers it;
//! - for a box with tight geometry: the hull is a valid polytope of at most
//!   [`MAX_HULL_VERTICES`] vertices, every hull vertex lies in the DOP (so the
//!   hull does), the DOP's face values are within the box's half extents (so
//!   the DOP lies in the box), and the mesh is checked against the hull, the
//!   innermost set: mesh within hull within DOP within box.
//!
//! Rotations are rebuilt from the written rpy (R = Rz·Ry·Rx) by the same
//! function a reader uses.

use super::{FitError, Primitive, TightBox};
use crate::geom::chain::{self, Cuts};
use crate::geom::containment::{self, HullPlanes};
use crate::geom::mesh::TriMesh;
use crate::geom::v3::{self, M3, V3};

/// The kernel's cap on hull vertices.
pub use crate::kernel::MAX_HULL_VERTICES;
/// Sub-triangles allowed per triangle in the subdivision proof.
const MAX_PIECES_PER_TRIANGLE: usize = 1 << 16;

/// What a successful proof checked, and the achieved margin.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Proof {
    /// Least signed depth of a mesh vertex inside the primitive set (m, >= 0).
    pub min_margin_m: f64,
    /// Least depth of any checked piece vertex (cut points, sub-triangle
    /// corners) in the primitive that holds its piece (m, >= 0).
    pub min_piece_margin_m: f64,
    pub vertices: usize,
    pub triangles: usize,
    /// Triangle pieces checked (a triangle inside one slab is one piece).
    pub pieces: usize,
}

/// One primitive ready for depth queries.
enum Checker {
    Capsule(V3, V3, f64),
    Box(V3, M3, V3),
    Hull(HullPlanes),
}

impl Checker {
    #[inline]
    fn depth(&self, p: V3) -> f64 {
        self.depth_above(p, f64::NEG_INFINITY)
    }

    /// The depth when it exceeds `floor`, else some value `<= floor` (a hull stops
    /// scanning its planes once it cannot beat `floor`).
    #[inline]
    fn depth_above(&self, p: V3, floor: f64) -> f64 {
        match self {
            Checker::Capsule(a, b, r) => containment::capsule_depth(*a, *b, *r, p),
            Checker::Box(c, rot, he) => containment::box_depth(*c, rot, *he, p),
            Checker::Hull(h) => h.depth_above(p, floor),
        }
    }
}

/// The deepest any checker holds `p`: exact (a maximum over the checkers; each one
/// that cannot beat the best so far stops early).
fn union_depth(checkers: &[Checker], p: V3) -> f64 {
    deepest(checkers, &[p], 0).0
}

/// The most any one checker holds all of `points` (the largest over checkers of the
/// least depth over the points), and which checker: exact. Checker `hint` goes first
/// (a sub-triangle usually lies where its parent did), so the others can stop as soon
/// as they cannot beat it.
fn deepest(checkers: &[Checker], points: &[V3], hint: usize) -> (f64, usize) {
    let mut best = (f64::NEG_INFINITY, hint);
    let order = std::iter::once(hint).chain((0..checkers.len()).filter(|&i| i != hint));
    for i in order {
        let Some(c) = checkers.get(i) else { continue };
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

/// Mesh sanity: finite coordinates, indices in range.
pub fn validate_mesh(mesh: &TriMesh) -> Result<(), FitError> {
    if mesh.vertices.is_empty() {
        return Err(FitError::Empty);
    }
    for (i, p) in mesh.vertices.iter().enumerate() {
        if !v3::is_finite(*p) {
            return Err(FitError::NonFinite { vertex: i });
        }
    }
    let n = mesh.vertices.len();
    for (t, tri) in mesh.triangles.iter().enumerate() {
        if let Some(&bad) = tri.iter().find(|&&i| i as usize >= n) {
            return Err(FitError::BadIndex {
                triangle: t,
                index: bad,
                vertices: n,
            });
        }
    }
    Ok(())
}

fn finite_all(xs: &[f64]) -> bool {
    xs.iter().all(|x| x.is_finite())
}

/// Checks one tight box's own chain (hull valid, hull in DOP, DOP in box) and
/// returns its hull planes.
fn tight_chain(i: usize, t: &TightBox) -> Result<HullPlanes, FitError> {
    let b = &t.bbox;
    if t.hull.len() > MAX_HULL_VERTICES {
        return Err(FitError::TooManyHullVertices {
            primitive: i,
            count: t.hull.len(),
            max: MAX_HULL_VERTICES,
        });
    }
    if !finite_all(&t.dop26) || !t.hull.iter().all(|p| v3::is_finite(*p)) {
        return Err(FitError::InvalidPrimitive {
            primitive: i,
            reason: "non-finite value".into(),
        });
    }
    let planes = HullPlanes::new(&t.hull).map_err(|reason| FitError::HullInvalid {
        primitive: i,
        reason,
    })?;
    let rot = b.rotation();
    for (k, w) in t.hull.iter().enumerate() {
        let d = containment::dop_depth(&t.dop26, b.center, &rot, *w);
        if d < 0.0 {
            return Err(FitError::HullOutsideDop {
                primitive: i,
                vertex: k,
                excess: -d,
            });
        }
    }
    for axis in 0..3 {
        let e = t.dop26[2 * axis].max(t.dop26[2 * axis + 1]) - b.half_extents[axis];
        if e > 0.0 {
            return Err(FitError::DopOutsideBox {
                primitive: i,
                axis,
                excess: e,
            });
        }
    }
    Ok(planes)
}

fn checker(i: usize, p: &Primitive) -> Result<Checker, FitError> {
    let bad = |reason: &str| FitError::InvalidPrimitive {
        primitive: i,
        reason: reason.into(),
    };
    match p {
        Primitive::Capsule(c) => {
            if !(v3::is_finite(c.a)
                && v3::is_finite(c.b)
                && c.radius.is_finite()
                && c.radius >= 0.0)
            {
                return Err(bad("capsule has a non-finite or negative value"));
            }
            Ok(Checker::Capsule(c.a, c.b, c.radius))
        }
        Primitive::Box(b) => {
            if !(v3::is_finite(b.center) && v3::is_finite(b.rpy) && v3::is_finite(b.half_extents))
                || b.half_extents.iter().any(|h| *h < 0.0)
            {
                return Err(bad("box has a non-finite or negative value"));
            }
            Ok(Checker::Box(b.center, b.rotation(), b.half_extents))
        }
        Primitive::TightBox(t) => {
            let b = &t.bbox;
            if !(v3::is_finite(b.center) && v3::is_finite(b.rpy) && v3::is_finite(b.half_extents))
                || b.half_extents.iter().any(|h| *h < 0.0)
            {
                return Err(bad("box has a non-finite or negative value"));
            }
            Ok(Checker::Hull(tight_chain(i, t)?))
        }
    }
}

/// Proves `mesh` inside `primitives` (module doc). `cuts`, when given, are the
/// slab planes the fit used, one slab per primitive in order; without them a
/// multi-primitive set is proven by subdivision. A failure names the vertex or
/// triangle and how far outside it is.
pub fn prove(
    mesh: &TriMesh,
    primitives: &[Primitive],
    cuts: Option<&Cuts>,
) -> Result<Proof, FitError> {
    validate_mesh(mesh)?;
    if primitives.is_empty() {
        return Err(FitError::NoPrimitives);
    }
    if let Some(c) = cuts
        && c.slabs() != primitives.len()
    {
        return Err(FitError::SlabMismatch {
            slabs: c.slabs(),
            primitives: primitives.len(),
        });
    }
    let checkers: Vec<Checker> = primitives
        .iter()
        .enumerate()
        .map(|(i, p)| checker(i, p))
        .collect::<Result<_, _>>()?;
    let mut margin = f64::INFINITY;
    for (i, p) in mesh.vertices.iter().enumerate() {
        let d = union_depth(&checkers, *p);
        if d.is_nan() || d < 0.0 {
            return Err(FitError::VertexOutside {
                vertex: i,
                point: *p,
                depth: d,
            });
        }
        margin = margin.min(d);
    }

    let mut piece_margin = f64::INFINITY;
    let mut pieces = 0usize;
    let tri_of = |t: &[u32; 3]| {
        [
            mesh.vertices[t[0] as usize],
            mesh.vertices[t[1] as usize],
            mesh.vertices[t[2] as usize],
        ]
    };
    if checkers.len() == 1 {
        // Convex: a triangle is inside iff its vertices are, checked above.
        pieces = mesh.triangles.len();
        piece_margin = margin;
    } else if let Some(c) = cuts {
        for (ti, t) in mesh.triangles.iter().enumerate() {
            let mut fail: Option<FitError> = None;
            chain::split_triangle(tri_of(t), c, |j, piece| {
                pieces += 1;
                for p in piece {
                    let d = checkers[j].depth(*p);
                    if (d.is_nan() || d < 0.0) && fail.is_none() {
                        fail = Some(FitError::TriangleOutside {
                            triangle: ti,
                            primitive: Some(j),
                            point: *p,
                            depth: d,
                        });
                    }
                    piece_margin = piece_margin.min(d);
                }
            });
            if let Some(e) = fail {
                return Err(e);
            }
        }
    } else {
        for (ti, t) in mesh.triangles.iter().enumerate() {
            let (n, m) = subdivide(tri_of(t), &checkers).map_err(|(point, depth)| {
                FitError::TriangleOutside {
                    triangle: ti,
                    primitive: None,
                    point,
                    depth,
                }
            })?;
            pieces += n;
            piece_margin = piece_margin.min(m);
        }
    }
    Ok(Proof {
        min_margin_m: margin,
        min_piece_margin_m: piece_margin.min(margin),
        vertices: mesh.vertices.len(),
        triangles: mesh.triangles.len(),
        pieces,
    })
}

/// Subdivision proof of one triangle: pieces counted and their least depth,
/// or the worst point found when it cannot be covered.
fn subdivide(tri: [V3; 3], checkers: &[Checker]) -> Result<(usize, f64), (V3, f64)> {
    let mut stack = vec![(tri, 0usize)];
    let mut count = 0usize;
    let mut margin = f64::INFINITY;
    while let Some((t, hint)) = stack.pop() {
        count += 1;
        // Held by the piece that held its parent: proven, at a margin no larger than
        // the best piece's (the reported piece margin is a lower bound; the vertex
        // margin, the one written, stays exact).
        let held = t
            .iter()
            .map(|p| checkers[hint].depth(*p))
            .fold(f64::INFINITY, f64::min);
        if held >= 0.0 {
            margin = margin.min(held);
            continue;
        }
        let (best, holder) = deepest(checkers, &t, hint);
        if best >= 0.0 {
            margin = margin.min(best);
            continue;
        }
        // A corner outside every primitive is a genuine failure.
        for p in &t {
            let d = union_depth(checkers, *p);
            if d.is_nan() || d < 0.0 {
                return Err((*p, d));
            }
        }
        let longest = v3::dist(t[0], t[1])
            .max(v3::dist(t[1], t[2]))
            .max(v3::dist(t[2], t[0]));
        if count > MAX_PIECES_PER_TRIANGLE || longest < 1e-9 {
            let c = v3::scale(v3::add(v3::add(t[0], t[1]), t[2]), 1.0 / 3.0);
            let d = checkers
                .iter()
                .map(|k| k.depth(c))
                .fold(f64::NEG_INFINITY, f64::max);
            return Err((c, d.min(best)));
        }
        let m01 = v3::lerp(t[0], t[1], 0.5);
        let m12 = v3::lerp(t[1], t[2], 0.5);
        let m20 = v3::lerp(t[2], t[0], 0.5);
        stack.push(([t[0], m01, m20], holder));
        stack.push(([m01, t[1], m12], holder));
        stack.push(([m20, m12, t[2]], holder));
        stack.push(([m01, m12, m20], holder));
    }
    Ok((count, margin))
}

/// Every number of every primitive is on the 4-decimal grid, hull vertices on
/// the 6-decimal one (what a reader parses back is bit-identical to what was
/// proven).
pub fn check_written(primitives: &[Primitive]) -> Result<(), FitError> {
    use super::rounding::{round4, round6};
    let on_grid = |xs: &[f64]| xs.iter().all(|x| *x == round4(*x));
    let on_hull_grid = |xs: &[f64]| xs.iter().all(|x| *x == round6(*x));
    for (i, p) in primitives.iter().enumerate() {
        let ok = match p {
            Primitive::Capsule(c) => on_grid(&c.a) && on_grid(&c.b) && on_grid(&[c.radius]),
            Primitive::Box(b) => on_grid(&b.center) && on_grid(&b.rpy) && on_grid(&b.half_extents),
            Primitive::TightBox(t) => {
                on_grid(&t.bbox.center)
                    && on_grid(&t.bbox.rpy)
                    && on_grid(&t.bbox.half_extents)
                    && on_grid(&t.dop26)
                    && t.hull.iter().all(|w| on_hull_grid(w))
            }
        };
        if !ok {
            return Err(FitError::InvalidPrimitive {
                primitive: i,
                reason: "a value is not on its written grid (4 decimals; hull vertices 6)".into(),
            });
        }
    }
    Ok(())
}
