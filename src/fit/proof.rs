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
//!   manifest read back, whose cut planes are not written), a triangle whose
//!   corners one primitive holds is held by it; any other is clipped by the
//!   face planes of the polytope (hull or box) that holds it best, `H`. Plane
//!   by plane, in order, the part left that reaches beyond the plane
//!   `n . x = d` is split: the convex piece beyond `d - 2 eps` (`CLIP_EPS`)
//!   must have all its corners in one primitive, and what is within `d - eps`
//!   is left. A piece and what is left overlap in a strip `eps` wide, far
//!   wider than the rounding of the cut points, so together they cover the
//!   triangle; what is left at the end is inside `H` (its corners are checked
//!   in `H`). A piece no primitive holds is clipped in turn by its own best
//!   polytope (a few levels deep), else subdivided into 4 recursively until
//!   every sub-triangle's corners lie in one primitive. A triangle best held
//!   by a capsule (not a polytope) is subdivided. Whatever this cannot settle
//!   is proven or refuted by subdividing the whole triangle, so the clipping
//!   only ever saves work, and a failure names the worst point the
//!   subdivision found;
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
use crate::geom::point::{self, PieceVerdict, Solid, deepest, held_by, union_depth};
use crate::geom::v3::{self, V3};

/// The kernel's cap on hull vertices.
pub use crate::kernel::MAX_HULL_VERTICES;
/// Sub-triangles allowed per triangle in the subdivision proof (and pieces in
/// its clipping proof).
const MAX_PIECES_PER_TRIANGLE: usize = 1 << 16;
/// Widening of the clipping proof (m): a piece beyond a plane reaches `2 eps`
/// inside it and the remainder stops `eps` inside, so the two overlap by a strip
/// far wider than any rounding of their cut points (~1e-16 m per metre of
/// coordinate), and the remainder sits strictly inside its polytope. The other
/// primitive must hold that strip, i.e. overlap this one by `2 eps`.
const CLIP_EPS: f64 = 1e-9;
/// Polytopes a piece may be clipped by in turn (the triangle's best holder, then
/// the piece's, ...) before it is subdivided instead.
const MAX_CLIP_DEPTH: usize = 4;

/// What a successful proof checked, and the achieved margin.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Proof {
    /// Least signed depth of a mesh vertex inside the primitive set (m, >= 0).
    pub min_margin_m: f64,
    /// Least depth of any checked piece vertex (cut points, sub-triangle
    /// corners, corners of clipped pieces) in the primitive that holds its
    /// piece (m, >= 0): a lower bound, as a held piece reports its holder's
    /// depth, not necessarily the best one's. The part of a clipped triangle
    /// left inside its polytope does not count: its cut corners sit `eps`
    /// inside by construction, and the strip along each cut also belongs to
    /// the piece beyond it, whose corners count.
    pub min_piece_margin_m: f64,
    pub vertices: usize,
    pub triangles: usize,
    /// Triangle pieces checked (a triangle inside one slab is one piece).
    pub pieces: usize,
}

/// Mesh sanity: finite coordinates, indices in range.
pub fn validate_mesh(mesh: &TriMesh) -> Result<(), FitError> {
    if mesh.vertices.is_empty() {
        return Err(FitError::Empty);
    }
    for (i, p) in mesh.vertices.iter().enumerate() {
        if !v3::finite(*p) {
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
    if !finite_all(&t.dop26) || !t.hull.iter().all(|p| v3::finite(*p)) {
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

fn checker(i: usize, p: &Primitive) -> Result<Solid, FitError> {
    let bad = |reason: &str| FitError::InvalidPrimitive {
        primitive: i,
        reason: reason.into(),
    };
    match p {
        Primitive::Capsule(c) => {
            if !(v3::finite(c.a) && v3::finite(c.b) && c.radius.is_finite() && c.radius >= 0.0) {
                return Err(bad("capsule has a non-finite or negative value"));
            }
            Ok(Solid::capsule(c.a, c.b, c.radius))
        }
        Primitive::Box(b) => {
            if !(v3::finite(b.center) && v3::finite(b.rpy) && v3::finite(b.half_extents))
                || b.half_extents.iter().any(|h| *h < 0.0)
            {
                return Err(bad("box has a non-finite or negative value"));
            }
            Ok(Solid::cuboid(b.center, b.rotation(), b.half_extents))
        }
        Primitive::TightBox(t) => {
            let b = &t.bbox;
            if !(v3::finite(b.center) && v3::finite(b.rpy) && v3::finite(b.half_extents))
                || b.half_extents.iter().any(|h| *h < 0.0)
            {
                return Err(bad("box has a non-finite or negative value"));
            }
            Ok(Solid::Hull(tight_chain(i, t)?))
        }
    }
}

/// Proves `mesh` inside `primitives` (module doc). `cuts`, when given, are the
/// slab planes the fit used, one slab per primitive in order; without them a
/// multi-primitive set is proven by clipping and subdivision. A failure names
/// the vertex or triangle and how far outside it is.
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
    let checkers: Vec<Solid> = primitives
        .iter()
        .enumerate()
        .map(|(i, p)| checker(i, p))
        .collect::<Result<_, _>>()?;
    prove_checked(mesh, &checkers, cuts)
}

/// [`prove`] on solids already built: what `collide export` reads back from the files
/// it wrote (a hull of any size with no box around it, capsules, boxes).
pub fn prove_solids(mesh: &TriMesh, solids: &[Solid]) -> Result<Proof, FitError> {
    validate_mesh(mesh)?;
    if solids.is_empty() {
        return Err(FitError::NoPrimitives);
    }
    prove_checked(mesh, solids, None)
}

fn prove_checked(
    mesh: &TriMesh,
    checkers: &[Solid],
    cuts: Option<&Cuts>,
) -> Result<Proof, FitError> {
    let mut margin = f64::INFINITY;
    // Each vertex's depth in a primitive holding it (the deepest one's, unless
    // that cannot matter). The previous vertex's holder is asked first: a vertex
    // it holds deeper than the least margin so far cannot lower the margin, so it
    // is held by it without asking the others (the least over the vertices of
    // their depth in the union stays exact: the vertex attaining it is never
    // passed over). Otherwise the exact deepest.
    let mut holders = Vec::with_capacity(mesh.vertices.len());
    let mut hint = 0;
    for (i, p) in mesh.vertices.iter().enumerate() {
        let d = checkers[hint].depth_above(*p, margin);
        if d > margin {
            holders.push((d, hint));
            continue;
        }
        let (d, h) = deepest(checkers, &[*p], Some(hint));
        hint = h;
        if d.is_nan() || d < 0.0 {
            return Err(FitError::VertexOutside {
                vertex: i,
                point: *p,
                depth: d,
            });
        }
        margin = margin.min(d);
        holders.push((d, h));
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
            let [a, b, c] = t.map(|i| holders[i as usize]);
            if a.1 == b.1 && b.1 == c.1 {
                // One primitive holds all three corners (their depths, found
                // above, are >= 0), so the triangle: most triangles end here.
                pieces += 1;
                piece_margin = piece_margin.min(a.0.min(b.0).min(c.0));
                continue;
            }
            let (n, m) = prove_triangle(tri_of(t), checkers, [a.1, b.1, c.1]).map_err(
                |(point, depth)| FitError::TriangleOutside {
                    triangle: ti,
                    primitive: None,
                    point,
                    depth,
                },
            )?;
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

/// Proof of one triangle without cuts (module doc): pieces counted and their
/// least depth, or the worst point found when it cannot be covered. `holders`
/// (the primitives holding its corners deepest) are asked first. Clipping next;
/// whatever it cannot settle (a piece no primitive holds even after subdivision,
/// or a true failure) is left to the subdivision of the whole triangle, which
/// decides and reports it.
fn prove_triangle(
    tri: [V3; 3],
    checkers: &[Solid],
    holders: [usize; 3],
) -> Result<(usize, f64), (V3, f64)> {
    for (k, &h) in holders.iter().enumerate() {
        if holders[..k].contains(&h) {
            continue;
        }
        if let Some(m) = checkers.get(h).and_then(|c| held_by(c, &tri)) {
            return Ok((1, m));
        }
    }
    let mut clip = Clip {
        checkers,
        pieces: 0,
        margin: f64::INFINITY,
        clippers: Vec::new(),
    };
    if clip.cover(&tri, holders[0]).is_ok() {
        return Ok((clip.pieces, clip.margin));
    }
    subdivide(tri, checkers, 0)
}

/// The clipping proof's running figures, over one triangle.
struct Clip<'a> {
    checkers: &'a [Solid],
    /// Polygons checked (the triangle, its pieces, sub-triangles).
    pieces: usize,
    /// Least depth of a checked polygon's corner in the primitive that holds it.
    margin: f64,
    /// The polytopes the current piece was cut from (a piece is not cut by the
    /// same one twice).
    clippers: Vec<usize>,
}

/// Why the clipping proof gave up on a triangle (the subdivision then decides).
struct Unsettled;

impl<'a> Clip<'a> {
    /// Proves the convex polygon `poly` (a triangle or a piece of one, at least one
    /// corner) inside the primitives: held by one (all its corners are), else cut by
    /// the polytope that holds it best and its pieces proven in turn, else
    /// subdivided. Returns the primitive that holds it, or that it was cut by.
    fn cover(&mut self, poly: &[V3], hint: usize) -> Result<usize, Unsettled> {
        self.pieces += 1;
        if self.pieces > MAX_PIECES_PER_TRIANGLE {
            return Err(Unsettled);
        }
        if let Some(m) = self.checkers.get(hint).and_then(|c| held_by(c, poly)) {
            self.margin = self.margin.min(m);
            return Ok(hint);
        }
        let (best, holder) = deepest(self.checkers, poly, Some(hint));
        if best >= 0.0 {
            self.margin = self.margin.min(best);
            return Ok(holder);
        }
        // A corner outside every primitive: the triangle is not inside (or sits on
        // the edge of rounding); the subdivision finds and reports the worst point.
        if poly.iter().any(|p| {
            let d = union_depth(self.checkers, *p);
            d.is_nan() || d < 0.0
        }) {
            return Err(Unsettled);
        }
        let checkers: &'a [Solid] = self.checkers;
        match checkers[holder].planes() {
            Some(planes)
                if self.clippers.len() < MAX_CLIP_DEPTH && !self.clippers.contains(&holder) =>
            {
                self.clippers.push(holder);
                let r = self.cut(poly, holder, planes);
                self.clippers.pop();
                r.map(|()| holder)
            }
            _ => {
                // A capsule, or a piece already cut by its best holder: fan it into
                // triangles (a 2-corner piece is a flat one) and subdivide those.
                let last = poly.len() - 1;
                for k in 1..last.max(2) {
                    let tri = [poly[0], poly[k.min(last)], poly[(k + 1).min(last)]];
                    let (n, m) = subdivide(tri, checkers, holder).map_err(|_| Unsettled)?;
                    self.pieces += n;
                    self.margin = self.margin.min(m);
                    if self.pieces > MAX_PIECES_PER_TRIANGLE {
                        return Err(Unsettled);
                    }
                }
                Ok(holder)
            }
        }
    }

    /// Cuts `poly` by the planes of polytope `h` (module doc): every piece beyond a
    /// plane is proven by [`Clip::cover`], the remainder by its corners' depth in `h`.
    fn cut(&mut self, poly: &[V3], h: usize, planes: &[(V3, f64)]) -> Result<(), Unsettled> {
        let mut rest = poly.to_vec();
        let mut piece = Vec::with_capacity(poly.len() + 1);
        let mut next = Vec::with_capacity(poly.len() + 1);
        // The last piece's holder is asked first for the next (neighbours on one seam).
        let mut hint = (h + 1) % self.checkers.len();
        for &(n, d) in planes {
            // Nothing beyond the plane: no piece, the remainder stays as it is (it
            // need only be inside `h`, checked below). This also passes over the
            // copies of one plane (a flat face of the hull in several facets).
            if rest.iter().all(|p| v3::dot(n, *p) <= d) {
                continue;
            }
            let (lo, hi) = (d - 2.0 * CLIP_EPS, d - CLIP_EPS);
            clip_half(&rest, n, lo, true, &mut piece);
            if !piece.is_empty() {
                hint = self.cover(&piece, hint)?;
            }
            clip_half(&rest, n, hi, false, &mut next);
            std::mem::swap(&mut rest, &mut next);
            if rest.is_empty() {
                return Ok(());
            }
        }
        // Inside every plane (by `eps` where it was cut), so inside `h`: checked
        // all the same, a proof by check rather than by a rounding argument. Not
        // counted in the margin (see `Proof::min_piece_margin_m`).
        let c = &self.checkers[h];
        if rest.iter().all(|p| c.depth(*p) >= 0.0) {
            return Ok(());
        }
        self.cover(&rest, h).map(|_| ())
    }
}

/// Sutherland–Hodgman: the part of the convex polygon `poly` with `n . x >= c`
/// (`above`) or `n . x <= c` (not `above`), into `out` (empty when none). A
/// corner on the plane is kept, and an edge gets a cut point only when it
/// crosses strictly (no repeated corners).
fn clip_half(poly: &[V3], n: V3, c: f64, above: bool, out: &mut Vec<V3>) {
    out.clear();
    let side = |p: V3| {
        let s = v3::dot(n, p) - c;
        if above { s } else { -s }
    };
    let k = poly.len();
    for i in 0..k {
        let p = poly[i];
        let q = poly[(i + 1) % k];
        let (sp, sq) = (side(p), side(q));
        if sp >= 0.0 {
            out.push(p);
        }
        if (sp < 0.0 && sq > 0.0) || (sp > 0.0 && sq < 0.0) {
            out.push(v3::lerp(p, q, (sp / (sp - sq)).clamp(0.0, 1.0)));
        }
    }
}

/// Subdivision proof of one triangle: pieces counted and their least depth,
/// or the worst point found when it cannot be covered. `hint` is asked first.
fn subdivide(tri: [V3; 3], checkers: &[Solid], hint: usize) -> Result<(usize, f64), (V3, f64)> {
    let mut margin = f64::INFINITY;
    let mut failure = None;
    let count = point::subdivide(
        tri,
        checkers,
        Some(hint),
        MAX_PIECES_PER_TRIANGLE,
        |_, verdict| match verdict {
            // Held by one primitive: proven, at a margin no larger than the best piece's
            // (the reported piece margin is a lower bound; the vertex margin, the one
            // written, stays exact).
            PieceVerdict::Held { depth, .. } => {
                margin = margin.min(depth);
                true
            }
            PieceVerdict::Outside { point, depth, .. } => {
                failure = Some((point, depth));
                false
            }
        },
    );
    match failure {
        Some(f) => Err(f),
        None => Ok((count, margin)),
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fit::FitOptions;
    use crate::geom::support;

    fn corners(lo: V3, hi: V3) -> Vec<V3> {
        let mut w = Vec::new();
        for x in [lo[0], hi[0]] {
            for y in [lo[1], hi[1]] {
                for z in [lo[2], hi[2]] {
                    w.push([x, y, z]);
                }
            }
        }
        w
    }

    fn hull(w: &[V3]) -> Solid {
        Solid::hull(w).unwrap()
    }

    fn cube(lo: V3, hi: V3) -> Solid {
        hull(&corners(lo, hi))
    }

    /// An axis-aligned box checker (centre, half extents).
    fn aabb(c: V3, he: V3) -> Solid {
        Solid::cuboid(c, v3::IDENTITY, he)
    }

    /// The clipping proof alone, without the whole-triangle subdivision behind it.
    fn clip_only(tri: [V3; 3], checkers: &[Solid]) -> Option<(usize, f64)> {
        let mut clip = Clip {
            checkers,
            pieces: 0,
            margin: f64::INFINITY,
            clippers: Vec::new(),
        };
        let hint = deepest(checkers, &[tri[0]], Some(0)).1;
        clip.cover(&tri, hint)
            .ok()
            .map(|_| (clip.pieces, clip.margin))
    }

    /// The proof of one triangle as `prove` runs it.
    fn proof_of(tri: [V3; 3], checkers: &[Solid]) -> Result<(usize, f64), (V3, f64)> {
        prove_triangle(
            tri,
            checkers,
            tri.map(|p| deepest(checkers, &[p], Some(0)).1),
        )
    }

    fn tight(points: &[V3]) -> Primitive {
        let dirs = support::fibonacci_directions(64);
        let (t, _) = super::super::tight::tight_piece(points, &FitOptions::default(), &dirs)
            .expect("a tight piece");
        Primitive::TightBox(t)
    }

    const SEAM: [V3; 3] = [[0.2, 0.2, 0.2], [1.8, 0.5, 0.5], [0.3, 0.8, 0.8]];
    /// Corners inside `[0,1]^3` or `[0.9,2]x[0,1]x[0,0.5]`; the edge from the first
    /// to the second crosses `x = 1.2` at `z = 0.675`, in neither.
    const NOTCHED: [V3; 3] = [[0.5, 0.5, 0.9], [1.9, 0.5, 0.45], [1.9, 0.6, 0.1]];

    #[test]
    fn seam_triangle_of_two_overlapping_cubes_takes_a_few_pieces() {
        let checkers = [
            cube([0.0; 3], [1.0; 3]),
            cube([0.9, 0.0, 0.0], [2.0, 1.0, 1.0]),
        ];
        let (pieces, margin) = clip_only(SEAM, &checkers).expect("clipped");
        // The triangle and the one piece beyond x = 1, held by the second cube.
        assert_eq!(pieces, 2);
        // The piece's cut corners are at x = 1, 0.1 inside the second cube.
        assert!((margin - 0.1).abs() < 1e-6, "{margin}");
        assert_eq!(proof_of(SEAM, &checkers), Ok((pieces, margin)));
        let (old, _) = subdivide(SEAM, &checkers, 0).expect("subdivision proves it too");
        assert!(old > 10 * pieces, "{old} sub-triangles");
    }

    #[test]
    fn seam_triangle_through_prove_with_tight_boxes() {
        let prims = [
            tight(&corners([0.0; 3], [1.0; 3])),
            tight(&corners([0.9, 0.0, 0.0], [2.0, 1.0, 1.0])),
        ];
        let mesh = TriMesh {
            vertices: SEAM.to_vec(),
            triangles: vec![[0, 1, 2], [0, 2, 1]],
        };
        let p = prove(&mesh, &prims, None).unwrap();
        assert_eq!((p.triangles, p.pieces), (2, 4));
        assert!(p.min_piece_margin_m > 0.099 && p.min_piece_margin_m <= p.min_margin_m);
    }

    #[test]
    fn seam_triangle_of_two_overlapping_boxes_is_clipped_by_box_planes() {
        let checkers = [
            aabb([0.5; 3], [0.5; 3]),
            aabb([1.45, 0.5, 0.5], [0.55, 0.5, 0.5]),
        ];
        assert_eq!(clip_only(SEAM, &checkers).map(|p| p.0), Some(2));
        assert!(proof_of(SEAM, &checkers).is_ok());
    }

    #[test]
    fn triangle_poking_out_through_a_notch_fails() {
        let checkers = [
            cube([0.0; 3], [1.0; 3]),
            cube([0.9, 0.0, 0.0], [2.0, 1.0, 0.5]),
        ];
        for p in NOTCHED {
            assert!(union_depth(&checkers, p) > 0.0);
        }
        assert_eq!(clip_only(NOTCHED, &checkers), None);
        let (point, depth) = proof_of(NOTCHED, &checkers).unwrap_err();
        assert!(
            depth < 0.0 && union_depth(&checkers, point) < 0.0,
            "{point:?} {depth}"
        );

        // The same through `prove`: the failure names the triangle and a point outside.
        let prims = [
            tight(&corners([0.0; 3], [1.0; 3])),
            tight(&corners([0.9, 0.0, 0.0], [2.0, 1.0, 0.5])),
        ];
        let mesh = TriMesh {
            vertices: NOTCHED.to_vec(),
            triangles: vec![[0, 1, 2]],
        };
        match prove(&mesh, &prims, None) {
            Err(FitError::TriangleOutside {
                triangle: 0,
                primitive: None,
                point,
                depth,
            }) => assert!(depth < 0.0 && union_depth(&checkers, point) < 0.0),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn triangle_poking_out_of_a_capsule_and_a_cube_fails() {
        // Best held by the capsule (not clipped): subdivided, and refuted.
        let checkers = [
            Solid::capsule([0.0; 3], [1.0, 0.0, 0.0], 0.3),
            cube([0.9, -0.5, -0.5], [2.0, 0.5, 0.5]),
        ];
        let tri = [[0.1, 0.0, 0.25], [1.5, 0.0, 0.45], [0.2, 0.0, -0.2]];
        let (point, depth) = proof_of(tri, &checkers).unwrap_err();
        assert!(depth < 0.0 && union_depth(&checkers, point) < 0.0);
        let tri = [[0.1, 0.0, 0.2], [1.5, 0.0, 0.2], [0.2, 0.0, -0.2]];
        assert!(proof_of(tri, &checkers).is_ok());
    }

    #[test]
    fn vertex_margin_is_the_exact_least_depth_in_the_union() {
        // Vertices held by the previous one's holder deeper than the margin so far
        // skip the other primitives: the least over all vertices stays exact.
        let mut rng = Rng(11);
        for _ in 0..5 {
            let clouds: Vec<Vec<V3>> = (0..3)
                .map(|i| {
                    (0..12)
                        .map(|_| [0.5 * i as f64 + rng.range(0.0, 0.8), rng.unit(), rng.unit()])
                        .collect()
                })
                .collect();
            let prims: Vec<Primitive> = clouds.iter().map(|c| tight(c)).collect();
            // Inner points first (the margin so far falls slowly, so many are
            // passed over), then the clouds themselves, on their hulls' surface.
            let mut vertices: Vec<V3> = (0..300)
                .map(|k| {
                    let c = &clouds[k % 3];
                    let (a, b) = (c[k % 12], c[(k * 7 + 3) % 12]);
                    v3::lerp(a, b, rng.unit())
                })
                .collect();
            vertices.extend(clouds.iter().flatten());
            let mesh = TriMesh {
                vertices,
                triangles: vec![[0, 3, 6]],
            };
            let checkers: Vec<Solid> = prims
                .iter()
                .enumerate()
                .map(|(i, p)| checker(i, p).unwrap())
                .collect();
            let exact = mesh
                .vertices
                .iter()
                .map(|p| {
                    checkers
                        .iter()
                        .map(|c| c.depth(*p))
                        .fold(f64::NEG_INFINITY, f64::max)
                })
                .fold(f64::INFINITY, f64::min);
            let p = prove(&mesh, &prims, None).unwrap();
            assert_eq!(p.min_margin_m, exact);
        }
    }

    /// splitmix64: a fixed sequence, no dependency.
    struct Rng(u64);
    impl Rng {
        fn unit(&mut self) -> f64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
        }
        fn range(&mut self, lo: f64, hi: f64) -> f64 {
            lo + (hi - lo) * self.unit()
        }
    }

    /// Random 2-3 overlapping hulls (on the written 1 µm grid, as a manifest's, or
    /// off it), random triangles with corners inside their union: the clipping proof
    /// agrees with the subdivision wherever that one decides, and what it proves is
    /// inside at every sampled point.
    #[test]
    fn clipping_agrees_with_subdivision_on_random_hulls() {
        let mut rng = Rng(7);
        // Proven by both (of which clipped into pieces), refuted by both.
        let (mut proven, mut refuted, mut clipped) = (0, 0, 0);
        for scene in 0..100 {
            let k = 2 + scene % 2;
            let hulls: Vec<Vec<V3>> = (0..k)
                .map(|i| {
                    let c = [0.6 * i as f64, rng.range(-0.2, 0.2), rng.range(-0.2, 0.2)];
                    (0..10)
                        .map(|_| {
                            let p = [
                                c[0] + rng.range(-0.5, 0.5),
                                c[1] + rng.range(-0.5, 0.5),
                                c[2] + rng.range(-0.5, 0.5),
                            ];
                            if scene % 3 == 0 {
                                p
                            } else {
                                p.map(super::super::rounding::round6)
                            }
                        })
                        .collect()
                })
                .collect();
            let mut checkers: Vec<Solid> = hulls.iter().map(|w| hull(w)).collect();
            // Some scenes trade the last hull for the box or a capsule around its
            // points (clipped by the box's planes; the capsule is subdivided).
            let w = &hulls[k - 1];
            let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
            for p in w {
                for i in 0..3 {
                    lo[i] = lo[i].min(p[i]);
                    hi[i] = hi[i].max(p[i]);
                }
            }
            let c = v3::scale(v3::add(lo, hi), 0.5);
            let he = v3::scale(v3::sub(hi, lo), 0.5);
            if scene % 5 == 4 {
                checkers[k - 1] = aabb(c, he);
            } else if scene % 5 == 3 {
                let (a, b) = ([lo[0], c[1], c[2]], [hi[0], c[1], c[2]]);
                let r = w.iter().map(|p| -containment::capsule_depth(a, b, 0.0, *p));
                checkers[k - 1] = Solid::capsule(a, b, r.fold(0.0, f64::max));
            }
            for _ in 0..60 {
                let tri: [V3; 3] = std::array::from_fn(|_| {
                    let w = &hulls[(rng.unit() * k as f64) as usize % k];
                    let weights: Vec<f64> = w.iter().map(|_| rng.unit().powi(4)).collect();
                    let sum: f64 = weights.iter().sum();
                    let mut p = [0.0; 3];
                    for (q, a) in w.iter().zip(&weights) {
                        p = v3::add(p, v3::scale(*q, a / sum));
                    }
                    p
                });
                if tri.iter().any(|p| union_depth(&checkers, *p) < 1e-9) {
                    continue;
                }
                let old = subdivide(tri, &checkers, 0);
                let new = proof_of(tri, &checkers);
                let fast = clip_only(tri, &checkers);
                match old {
                    Ok(_) => {
                        assert!(new.is_ok(), "scene {scene}: {tri:?}");
                        assert!(fast.is_some(), "scene {scene}: {tri:?}");
                        proven += 1;
                        if fast.is_some_and(|f| f.0 > 1) {
                            clipped += 1;
                        }
                    }
                    Err((p, _)) if union_depth(&checkers, p) < 0.0 => {
                        assert!(new.is_err(), "scene {scene}: {tri:?}");
                        assert!(fast.is_none(), "scene {scene}: {tri:?}");
                        refuted += 1;
                    }
                    Err(_) => {}
                }
                if new.is_ok() {
                    for i in 0..=20 {
                        for j in 0..=20 - i {
                            let (a, b) = (i as f64 / 20.0, j as f64 / 20.0);
                            let p = v3::add(
                                v3::add(v3::scale(tri[0], 1.0 - a - b), v3::scale(tri[1], a)),
                                v3::scale(tri[2], b),
                            );
                            assert!(union_depth(&checkers, p) > -1e-12, "scene {scene}: {p:?}");
                        }
                    }
                }
            }
        }
        assert!(
            proven > 1000 && refuted > 1000 && clipped > 500,
            "{proven} {refuted} {clipped}"
        );
    }
}
