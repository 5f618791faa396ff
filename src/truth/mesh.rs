//! The sweep's primary truth: contacts judged on the links' real triangle meshes.
//!
//! Per link, its truth mesh (every collision and visual geometry in the link frame, the mesh
//! `collide lower` proves containment on) as a parry3d-f64 `TriMesh` with its BVH, split into
//! edge-connected components, each either *closed* (every edge shared by exactly two of its
//! triangles, traversed once each way, enclosing a non-zero volume) or *open*, plus a bounding
//! sphere. Two placed links **touch** when
//!
//! 1. their surfaces come within [`CONTACT_TOL_M`] (plus the margin, see
//!    [`MeshTruth::with_margin`]) of each other: a simultaneous traversal of the two BVHs
//!    (parry's `Bvh::leaf_pairs`, node boxes compared by the separating-axis test on both
//!    boxes' face axes), then on each triangle pair whose boxes meet a plane test (one
//!    triangle's plane with the other wholly beyond it), parry's GJK, and the closed-form
//!    distance where GJK cannot prove a pair apart, stopping at the first pair within the
//!    tolerance; or
//! 2. a vertex of one lies inside a closed component of the other (parry's point query with
//!    the component's angle-weighted pseudo-normals). When the surfaces are apart, every
//!    connected component of one mesh lies wholly inside or wholly outside each closed
//!    component of the other, so one vertex per component decides it.
//!
//! Open components (a single plane patch, a mesh with holes) only take part through their
//! surface. Bounding spheres reject far pairs first.
//!
//! [`mesh_contacts`] computes the touching pairs of seeded poses once; [`judge`] measures a
//! kernel model against them without any mesh query, cheaply enough to be repeated after
//! every refit. `collide sweep` uses exactly these two functions.

use crate::geom::containment::HullPlanes;
use crate::geom::mesh::TriMesh;
use crate::kernel::vec3::{Iso, Mat3, V3};
use parry3d_f64::bounding_volume::Aabb;
use parry3d_f64::math::{Pose, Vector};
use parry3d_f64::partitioning::{Bvh, BvhBuildStrategy, BvhNode};
use parry3d_f64::query::PointQuery;
use parry3d_f64::query::gjk::{self, CsoPoint, GJKResult, VoronoiSimplex};
use parry3d_f64::shape::{TriMesh as ParryMesh, TriMeshFlags, Triangle};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};

/// Surfaces this close count as touching (1 nm): floating-point rounding, not physics. A
/// vertex exactly on a face must touch whatever the last bit of the placement says.
pub const CONTACT_TOL_M: f64 = 1e-9;

/// A triangle whose area is below this fraction of its longest edge squared is treated as
/// degenerate (a sliver): it keeps its part in surface contacts but no pseudo-normal is
/// taken from it, and a component that needs it to be closed is open.
const SLIVER: f64 = 1e-10;

/// One edge-connected component of a link's mesh.
struct Component {
    /// One of its vertices (index into the link's vertices).
    vertex: u32,
    /// Set when the component is closed: its triangles oriented outward, with pseudo-normals,
    /// for inside/outside queries.
    solid: Option<ParryMesh>,
    /// Set when the closed component is a small convex polytope (a box, a cylinder of a few
    /// dozen faces): its face planes (outward unit normal, offset), for exact depths without
    /// a BVH walk.
    planes: Option<HullPlanes>,
}

/// Largest closed component tested for convexity (the test is faces × vertices).
const CONVEX_TEST_FACES: usize = 512;

/// The outward face planes of closed, outward-oriented `solid` if it is convex: every vertex
/// on or below every face's plane, up to a rounding tolerance that is then taken off the
/// offsets (so a depth from them never exceeds the true depth).
fn convex_planes(solid: &ParryMesh) -> Option<HullPlanes> {
    let tris = solid.indices();
    if tris.len() > CONVEX_TEST_FACES {
        return None;
    }
    let verts: Vec<V3> = solid.vertices().iter().map(|p| [p.x, p.y, p.z]).collect();
    let scale = verts
        .iter()
        .flat_map(|p| p.iter())
        .fold(0.0f64, |m, x| m.max(x.abs()));
    let tol = 1e-12 * scale.max(1.0);
    let mut planes = Vec::with_capacity(tris.len());
    for t in tris {
        let [a, b, c] = t.map(|i| verts[i as usize]);
        let n = cross(sub(b, a), sub(c, a));
        let len = norm2(n).sqrt();
        if len.is_nan() || len <= 0.0 {
            return None;
        }
        let n = [n[0] / len, n[1] / len, n[2] / len];
        let off = dot(n, a);
        if verts.iter().any(|v| dot(n, *v) > off + tol) {
            return None;
        }
        planes.push((n, off - tol));
    }
    Some(HullPlanes { planes })
}

/// One link's mesh, ready for queries (link frame).
struct MeshLink {
    mesh: ParryMesh,
    center: V3,
    radius: f64,
    components: Vec<Component>,
    /// Bounding boxes of the closed components (`Component::solid`), indexed by position in
    /// `closed`, and the component each one is.
    closed_bvh: Bvh,
    closed: Vec<u32>,
}

/// Counts describing a [`MeshTruth`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MeshSummary {
    /// Links with a mesh.
    pub links: usize,
    pub triangles: usize,
    /// Edge-connected components, and how many of them are closed.
    pub components: usize,
    pub closed_components: usize,
}

/// Every link's mesh, built once per robot; see the module documentation.
pub struct MeshTruth {
    /// By kernel link index; `None`: no geometry (never touches).
    links: Vec<Option<MeshLink>>,
    margin: f64,
}

fn pv(v: V3) -> Vector {
    Vector::new(v[0], v[1], v[2])
}

fn finite(v: &V3) -> bool {
    v.iter().all(|x| x.is_finite())
}

fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn norm2(a: V3) -> f64 {
    dot(a, a)
}

/// Is the triangle a sliver (or has a repeated corner)?
fn sliver(t: [u32; 3], v: &[V3]) -> bool {
    if t[0] == t[1] || t[1] == t[2] || t[2] == t[0] {
        return true;
    }
    let (a, b, c) = (v[t[0] as usize], v[t[1] as usize], v[t[2] as usize]);
    let (ab, ac, bc) = (sub(b, a), sub(c, a), sub(c, b));
    let longest = norm2(ab).max(norm2(ac)).max(norm2(bc));
    let area2 = norm2(cross(ab, ac)).sqrt();
    // NaN (an overflow) counts as a sliver too.
    !matches!(
        area2.partial_cmp(&(SLIVER * longest)),
        Some(std::cmp::Ordering::Greater)
    )
}

fn find(parent: &mut [u32], mut i: u32) -> u32 {
    while parent[i as usize] != i {
        let up = parent[parent[i as usize] as usize];
        parent[i as usize] = up;
        i = up;
    }
    i
}

/// The closed solid of one component's triangles, or `None` when they are not closed
/// (see the module documentation), oriented outward.
fn closed_solid(tris: &[[u32; 3]], v: &[V3]) -> Option<ParryMesh> {
    let solid: Vec<[u32; 3]> = tris.iter().copied().filter(|t| !sliver(*t, v)).collect();
    if solid.len() < 4 || solid.len() != tris.len() {
        return None;
    }
    let mut directed: HashMap<(u32, u32), u32> = HashMap::with_capacity(3 * solid.len());
    for t in &solid {
        for k in 0..3 {
            *directed.entry((t[k], t[(k + 1) % 3])).or_insert(0) += 1;
        }
    }
    if directed
        .iter()
        .any(|(&(a, b), &n)| n != 1 || directed.get(&(b, a)) != Some(&1))
    {
        return None;
    }
    // Local vertices, about their centroid for a well-conditioned volume.
    let mut local: HashMap<u32, u32> = HashMap::new();
    let mut verts: Vec<V3> = Vec::new();
    let idx: Vec<[u32; 3]> = solid
        .iter()
        .map(|t| {
            t.map(|i| {
                *local.entry(i).or_insert_with(|| {
                    verts.push(v[i as usize]);
                    (verts.len() - 1) as u32
                })
            })
        })
        .collect();
    let n = verts.len() as f64;
    let c = verts.iter().fold([0.0; 3], |s, p| {
        [s[0] + p[0] / n, s[1] + p[1] / n, s[2] + p[2] / n]
    });
    let (lo, hi) = verts.iter().fold(
        ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]),
        |(lo, hi), p| {
            (
                [lo[0].min(p[0]), lo[1].min(p[1]), lo[2].min(p[2])],
                [hi[0].max(p[0]), hi[1].max(p[1]), hi[2].max(p[2])],
            )
        },
    );
    let diag = norm2(sub(hi, lo)).sqrt();
    let volume6: f64 = idx
        .iter()
        .map(|t| {
            let [a, b, d] = t.map(|i| sub(verts[i as usize], c));
            dot(a, cross(b, d))
        })
        .sum();
    if !matches!(
        volume6.abs().partial_cmp(&(1e-9 * diag * diag * diag)),
        Some(std::cmp::Ordering::Greater)
    ) {
        // A flat closed shell (a two-sided patch): nothing is inside it.
        return None;
    }
    let idx: Vec<[u32; 3]> = if volume6 < 0.0 {
        idx.iter().map(|t| [t[0], t[2], t[1]]).collect()
    } else {
        idx
    };
    ParryMesh::with_flags(
        verts.iter().map(|p| pv(*p)).collect(),
        idx,
        TriMeshFlags::ORIENTED,
    )
    .ok()
}

impl MeshLink {
    fn new(m: &TriMesh) -> Option<MeshLink> {
        let nv = m.vertices.len();
        if nv == 0 || m.vertices.iter().any(|p| !finite(p)) {
            return None;
        }
        let mut tris: Vec<[u32; 3]> = m
            .triangles
            .iter()
            .copied()
            .filter(|t| t.iter().all(|&i| (i as usize) < nv))
            .collect();
        if tris.is_empty() {
            // Point geometry: each vertex a one-point "triangle".
            tris = (0..nv as u32).map(|i| [i, i, i]).collect();
        }
        // Edge-connected components (union-find over triangles).
        let mut parent: Vec<u32> = (0..tris.len() as u32).collect();
        let mut first_on_edge: HashMap<(u32, u32), u32> = HashMap::with_capacity(3 * tris.len());
        for (ti, t) in tris.iter().enumerate() {
            for k in 0..3 {
                let (a, b) = (t[k], t[(k + 1) % 3]);
                if a == b {
                    continue;
                }
                let key = (a.min(b), a.max(b));
                match first_on_edge.get(&key) {
                    Some(&other) => {
                        let (x, y) = (find(&mut parent, ti as u32), find(&mut parent, other));
                        if x != y {
                            parent[x.max(y) as usize] = x.min(y);
                        }
                    }
                    None => {
                        first_on_edge.insert(key, ti as u32);
                    }
                }
            }
        }
        // Components in order of their first triangle.
        let mut comp_of_root: HashMap<u32, usize> = HashMap::new();
        let mut comp_tris: Vec<Vec<[u32; 3]>> = Vec::new();
        for (ti, t) in tris.iter().enumerate() {
            let r = find(&mut parent, ti as u32);
            let c = *comp_of_root.entry(r).or_insert_with(|| {
                comp_tris.push(Vec::new());
                comp_tris.len() - 1
            });
            comp_tris[c].push(*t);
        }
        let components: Vec<Component> = comp_tris
            .iter()
            .map(|ct| {
                let solid = closed_solid(ct, &m.vertices);
                Component {
                    vertex: ct[0][0],
                    planes: solid.as_ref().and_then(convex_planes),
                    solid,
                }
            })
            .collect();
        let closed: Vec<u32> = (0..components.len() as u32)
            .filter(|&c| components[c as usize].solid.is_some())
            .collect();
        let boxes: Vec<Aabb> = closed
            .iter()
            .filter_map(|&c| components[c as usize].solid.as_ref())
            .map(|s| s.local_aabb())
            .collect();
        let closed_bvh = Bvh::from_leaves(BvhBuildStrategy::default(), &boxes);
        let mesh = ParryMesh::new(m.vertices.iter().map(|p| pv(*p)).collect(), tris).ok()?;
        let (center, radius) = super::hull::sphere_of(m.vertices.iter().copied());
        Some(MeshLink {
            mesh,
            center,
            radius,
            components,
            closed_bvh,
            closed,
        })
    }

    fn vertex(&self, i: u32) -> V3 {
        let p = self.mesh.vertices()[i as usize];
        [p.x, p.y, p.z]
    }
}

/// Added to the contact tolerance by the filters that only prune ([`Rigid::boxes_meet`],
/// [`plane_separates`]): they reject a pair only when it is apart by more than the exact
/// test could round to, so the answer is the exact test's.
const FILTER_SLACK_M: f64 = 1e-9;

/// A rigid map `p -> r p + t` (row-major `r`).
#[derive(Clone, Copy)]
struct Rigid {
    r: Mat3,
    t: V3,
}

impl Rigid {
    /// The map from `b`'s link frame to `a`'s: `Ra^T (Rb p + pb - pa)`.
    fn between(a: &Iso, b: &Iso) -> Rigid {
        let mut r = [[0.0; 3]; 3];
        for (i, row) in r.iter_mut().enumerate() {
            for (j, x) in row.iter_mut().enumerate() {
                *x = (0..3).map(|k| a.rot[k][i] * b.rot[k][j]).sum();
            }
        }
        let d = sub(b.pos, a.pos);
        let t = [0, 1, 2].map(|i| (0..3).map(|k| a.rot[k][i] * d[k]).sum());
        Rigid { r, t }
    }

    #[inline]
    fn apply(&self, p: V3) -> V3 {
        [0, 1, 2].map(|i| dot(self.r[i], p) + self.t[i])
    }

    #[inline]
    fn apply_v(&self, p: Vector) -> Vector {
        pv(self.apply([p.x, p.y, p.z]))
    }

    /// Does box `b` (in the frame this maps from) placed by this map come within `tol` of box
    /// `a` (in the target frame)? The separating-axis test on `a`'s three axes (the placed
    /// box's bounding box, the test BVH traversals use) and on the placed box's own three:
    /// a box turned against `a`'s axes is rejected by its own faces where its bounding box
    /// would not be. Conservative: boxes within `tol` always meet.
    fn boxes_meet(&self, a: &Aabb, b: &Aabb, tol: f64) -> bool {
        let tol = tol + FILTER_SLACK_M;
        let ca = (a.mins + a.maxs) * 0.5;
        let ha = (a.maxs - a.mins) * 0.5;
        let cb = self.apply_v((b.mins + b.maxs) * 0.5);
        let hb = (b.maxs - b.mins) * 0.5;
        let (ha, hb) = ([ha.x, ha.y, ha.z], [hb.x, hb.y, hb.z]);
        let t = [cb.x - ca.x, cb.y - ca.y, cb.z - ca.z];
        let r = &self.r;
        for i in 0..3 {
            let reach =
                ha[i] + r[i][0].abs() * hb[0] + r[i][1].abs() * hb[1] + r[i][2].abs() * hb[2];
            if t[i].abs() > reach + tol {
                return false;
            }
        }
        for j in 0..3 {
            let along = t[0] * r[0][j] + t[1] * r[1][j] + t[2] * r[2][j];
            let reach =
                hb[j] + r[0][j].abs() * ha[0] + r[1][j].abs() * ha[1] + r[2][j].abs() * ha[2];
            if along.abs() > reach + tol {
                return false;
            }
        }
        true
    }
}

/// Does the plane of triangle `t` have all three corners of `o` on one side, farther than
/// `tol`? Then the two are more than `tol` apart (`t` lies in the plane): a few products
/// instead of GJK for most triangle pairs a traversal meets. Degenerate `t`: no.
fn plane_separates(t: &Triangle, o: &Triangle, tol: f64) -> bool {
    let n = (t.b - t.a).cross(t.c - t.a);
    let len = n.length();
    if !(len > 0.0 && len.is_finite()) {
        return false;
    }
    let limit = (tol + FILTER_SLACK_M) * len;
    let s = [o.a, o.b, o.c].map(|p| n.dot(p - t.a));
    s.iter().all(|&x| x > limit) || s.iter().all(|&x| x < -limit)
}

fn boxes_meet(a: &Aabb, b: &Aabb, tol: f64) -> bool {
    a.mins.x <= b.maxs.x + tol
        && b.mins.x <= a.maxs.x + tol
        && a.mins.y <= b.maxs.y + tol
        && b.mins.y <= a.maxs.y + tol
        && a.mins.z <= b.maxs.z + tol
        && b.mins.z <= a.maxs.z + tol
}

/// Are two triangles (one frame) within `tol`? GJK answers "apart" only on a proven lower
/// bound above `tol`; when it cannot tell (it stalls on slivers, micrometres apart), the
/// closed-form distance decides.
fn triangles_meet(t1: &Triangle, t2: &Triangle, tol: f64, simplex: &mut VoronoiSimplex) -> bool {
    if plane_separates(t1, t2, tol) || plane_separates(t2, t1, tol) {
        return false;
    }
    let pose = Pose::IDENTITY;
    let dir = ((t2.a + t2.b + t2.c) - (t1.a + t1.b + t1.c))
        .try_normalize()
        .unwrap_or(Vector::X);
    simplex.reset(CsoPoint::from_shapes(&pose, t1, t2, dir));
    if matches!(
        gjk::closest_points(&pose, t1, t2, tol, false, simplex),
        GJKResult::NoIntersection(_)
    ) {
        return false;
    }
    let corners = |t: &Triangle| [t.a, t.b, t.c].map(|p| [p.x, p.y, p.z]);
    crate::geom::triangle_distance::triangle_distance(corners(t1), corners(t2)) <= tol
}

/// Do the surfaces of `a` and `b` (`b_to_a` maps `b`'s frame into `a`'s) come within `tol`?
fn surfaces_meet(a: &MeshLink, b: &MeshLink, b_to_a: &Rigid, tol: f64) -> bool {
    let mut simplex = VoronoiSimplex::new();
    let check = |n1: &BvhNode, n2: &BvhNode| b_to_a.boxes_meet(&n1.aabb(), &n2.aabb(), tol);
    a.mesh.bvh().leaf_pairs(b.mesh.bvh(), check).any(|(i, j)| {
        if (i as usize) >= a.mesh.num_triangles() || (j as usize) >= b.mesh.num_triangles() {
            return false;
        }
        let ta = a.mesh.triangle(i);
        let tb = b.mesh.triangle(j);
        let tb = Triangle::new(
            b_to_a.apply_v(tb.a),
            b_to_a.apply_v(tb.b),
            b_to_a.apply_v(tb.c),
        );
        // `leaf_pairs` does not check the first pairs it yields: check every pair here.
        boxes_meet(&ta.local_aabb(), &tb.local_aabb(), tol)
            && triangles_meet(&ta, &tb, tol, &mut simplex)
    })
}

/// Does some component of `a` have a vertex inside a closed component of `b`
/// (`a_to_b` maps `a`'s frame into `b`'s)?
fn inside(a: &MeshLink, b: &MeshLink, a_to_b: &Rigid) -> bool {
    if b.closed.is_empty() {
        return false;
    }
    let root = b.closed_bvh.root_aabb();
    a.components.iter().any(|c| {
        let p = pv(a_to_b.apply(a.vertex(c.vertex)));
        if !boxes_meet(&root, &Aabb::new(p, p), 0.0) {
            return false;
        }
        let pt = Aabb::new(p, p);
        b.closed_bvh.intersect_aabb(&pt).any(|leaf| {
            b.closed
                .get(leaf as usize)
                .and_then(|&k| b.components[k as usize].solid.as_ref())
                .is_some_and(|s| s.contains_local_point(p))
        })
    })
}

impl MeshTruth {
    /// `links`: the kernel's link names in kernel link order; `truths`: link name -> truth
    /// mesh (link frame). A link without a mesh, or whose mesh is empty or has a non-finite
    /// vertex, never touches anything. Builds the links' BVHs in parallel.
    pub fn new(links: &[String], truths: &BTreeMap<String, TriMesh>) -> Self {
        let links = links
            .par_iter()
            .map(|name| truths.get(name).and_then(MeshLink::new))
            .collect();
        MeshTruth { links, margin: 0.0 }
    }

    /// Contact at `margin` (m, >= 0; the kernel's margin): surfaces within `margin` (plus
    /// [`CONTACT_TOL_M`]) touch. The default is 0: the meshes themselves meet.
    pub fn with_margin(mut self, margin: f64) -> Self {
        self.margin = if margin.is_finite() && margin > 0.0 {
            margin
        } else {
            0.0
        };
        self
    }

    pub fn margin(&self) -> f64 {
        self.margin
    }

    /// Number of kernel links (with a mesh or not).
    pub fn n_links(&self) -> usize {
        self.links.len()
    }

    pub fn summary(&self) -> MeshSummary {
        let mut s = MeshSummary::default();
        for l in self.links.iter().flatten() {
            s.links += 1;
            s.triangles += l.mesh.num_triangles();
            s.components += l.components.len();
            s.closed_components += l.closed.len();
        }
        s
    }

    /// Signed depth of link-frame point `p` in kernel link `i`'s closed solid: when a closed
    /// component contains it, its distance to that component's surface (the largest over
    /// such components: the ball of that radius lies inside the mesh); otherwise a negative
    /// value no lower than minus its distance to the nearest closed surface. `-inf` for a
    /// link without a closed component (open components bound no solid).
    pub fn solid_depth(&self, i: usize, p: V3) -> f64 {
        let Some(Some(link)) = self.links.get(i) else {
            return f64::NEG_INFINITY;
        };
        let pt = pv(p);
        let mut inside = f64::NEG_INFINITY;
        let mut outside = f64::INFINITY;
        for component in link.closed.iter().map(|&c| &link.components[c as usize]) {
            // Convex: the depth is the least distance to a face plane, exactly; outside, the
            // largest excess is a distance no larger than the true one.
            let (contains, dist) = match (&component.planes, &component.solid) {
                (Some(planes), _) => {
                    let d = planes.depth(p);
                    (d >= 0.0, d.abs())
                }
                (None, Some(solid)) => (
                    solid.contains_local_point(pt),
                    (solid.project_local_point(pt, false).point - pt).length(),
                ),
                (None, None) => continue,
            };
            if contains {
                inside = inside.max(dist);
            } else {
                outside = outside.min(dist);
            }
        }
        if inside > f64::NEG_INFINITY {
            inside
        } else {
            -outside
        }
    }

    /// Every vertex of kernel link `i`'s closed components (link frame): the parts that
    /// bound a solid, where a depth means something. Empty without a closed component.
    pub fn closed_vertices(&self, i: usize) -> Vec<V3> {
        let Some(Some(link)) = self.links.get(i) else {
            return Vec::new();
        };
        link.closed
            .iter()
            .filter_map(|&c| link.components[c as usize].solid.as_ref())
            .flat_map(|s| s.vertices().iter().map(|p| [p.x, p.y, p.z]))
            .collect()
    }

    /// Does kernel link `i`'s mesh have a component that is not closed?
    pub fn has_open_component(&self, i: usize) -> bool {
        self.links
            .get(i)
            .and_then(|l| l.as_ref())
            .is_some_and(|l| l.closed.len() < l.components.len())
    }

    /// At most `max` of kernel link `i`'s mesh vertices (link frame), evenly strided in
    /// index order: points of the part itself, open components or closed. Any subset serves
    /// a certificate that one of them lies inside another link.
    pub fn surface_points(&self, i: usize, max: usize) -> Vec<V3> {
        let Some(Some(link)) = self.links.get(i) else {
            return Vec::new();
        };
        let n = link.mesh.vertices().len();
        let step = n.div_ceil(max.max(1)).max(1);
        (0..n as u32)
            .step_by(step)
            .map(|v| link.vertex(v))
            .collect()
    }

    /// Do the meshes of kernel links `a` and `b` touch, placed at `pa` and `pb` (rotation
    /// and position as the kernel workspace's `link_pose`)? `false` for a link without a
    /// mesh or an index out of range; `true` for a non-finite placement (errs towards
    /// contact, as the hull truth does).
    pub fn touching(&self, a: usize, pa: &Iso, b: usize, pb: &Iso) -> bool {
        self.touching_with(a, pa, self, b, pb)
    }

    /// [`MeshTruth::touching`] of this truth's link `a` and `other`'s link `b` (a robot's
    /// link against a scene's mesh), at `other`'s margin.
    pub fn touching_with(&self, a: usize, pa: &Iso, other: &MeshTruth, b: usize, pb: &Iso) -> bool {
        let (Some(Some(la)), Some(Some(lb))) = (self.links.get(a), other.links.get(b)) else {
            return false;
        };
        let placed_ok = |p: &Iso| finite(&p.pos) && p.rot.iter().all(finite);
        if !placed_ok(pa) || !placed_ok(pb) {
            return true;
        }
        let tol = other.margin + CONTACT_TOL_M;
        let gap = norm2(sub(
            pa.transform_point(la.center),
            pb.transform_point(lb.center),
        ))
        .sqrt()
            - la.radius
            - lb.radius;
        if gap > tol {
            return false;
        }
        let b_to_a = Rigid::between(pa, pb);
        let a_to_b = Rigid::between(pb, pa);
        // Containment first: one point query per component, and it settles nested CAD (a
        // motor inside a shell), whose surfaces are close everywhere and slow to prove apart.
        // A vertex inside means contact whatever the surfaces do.
        inside(la, lb, &a_to_b) || inside(lb, la, &b_to_a) || surfaces_meet(la, lb, &b_to_a, tol)
    }

    /// Kernel link `i`'s mesh bounding sphere (link frame): centre and radius.
    pub fn sphere(&self, i: usize) -> Option<(V3, f64)> {
        let link = self.links.get(i)?.as_ref()?;
        Some((link.center, link.radius))
    }

    /// Does a component of either mesh have a vertex inside a closed component of the
    /// other, placed at `pa` and `pb`? Where the surfaces stay apart over a connected set of
    /// placements, the answer is the same over the whole set.
    pub fn nested(&self, a: usize, pa: &Iso, b: usize, pb: &Iso) -> bool {
        let (Some(Some(la)), Some(Some(lb))) = (self.links.get(a), self.links.get(b)) else {
            return false;
        };
        inside(la, lb, &Rigid::between(pb, pa)) || inside(lb, la, &Rigid::between(pa, pb))
    }

    /// Are the surfaces of `a` and `b`, placed at `pa` and `pb`, apart by more than the
    /// margin plus `room(c, r)` for every part of `b` within `r` of `c` (`b`'s frame)?
    /// `None` when a link has no mesh, or when the work (node pairs and triangle pairs
    /// examined, added to `work`) passes `limit`. A `room` that bounds how far those points
    /// can move against `a` makes the answer hold over every placement they can move to.
    #[allow(clippy::too_many_arguments)]
    pub fn apart_beyond(
        &self,
        a: usize,
        pa: &Iso,
        b: usize,
        pb: &Iso,
        room: impl Fn(V3, f64) -> f64,
        work: &mut u64,
        limit: u64,
    ) -> Option<bool> {
        let (Some(Some(la)), Some(Some(lb))) = (self.links.get(a), self.links.get(b)) else {
            return None;
        };
        let base = self.margin + CONTACT_TOL_M;
        let tol_of = |bx: &Aabb| {
            let c = (bx.mins + bx.maxs) * 0.5;
            base + room([c.x, c.y, c.z], (bx.maxs - bx.mins).length() * 0.5)
        };
        let b_to_a = Rigid::between(pa, pb);
        let mut simplex = VoronoiSimplex::new();
        let spent = std::cell::Cell::new(*work);
        let check = |n1: &BvhNode, n2: &BvhNode| {
            spent.set(spent.get() + 1);
            // Past the limit every pair is pruned: the answer is thrown away below.
            if spent.get() > limit {
                return false;
            }
            let bx = n2.aabb();
            b_to_a.boxes_meet(&n1.aabb(), &bx, tol_of(&bx))
        };
        let meet = la
            .mesh
            .bvh()
            .leaf_pairs(lb.mesh.bvh(), check)
            .any(|(i, j)| {
                spent.set(spent.get() + 1);
                if (i as usize) >= la.mesh.num_triangles()
                    || (j as usize) >= lb.mesh.num_triangles()
                {
                    return false;
                }
                let ta = la.mesh.triangle(i);
                let local = lb.mesh.triangle(j);
                // The room is convex in the point (distances from axes, summed with positive
                // weights): over a triangle it is largest at a corner.
                let tol = base
                    + [local.a, local.b, local.c]
                        .iter()
                        .map(|p| room([p.x, p.y, p.z], 0.0))
                        .fold(0.0, f64::max);
                let tb = Triangle::new(
                    b_to_a.apply_v(local.a),
                    b_to_a.apply_v(local.b),
                    b_to_a.apply_v(local.c),
                );
                boxes_meet(&ta.local_aabb(), &tb.local_aabb(), tol)
                    && triangles_meet(&ta, &tb, tol, &mut simplex)
            });
        *work = spent.get();
        if *work > limit {
            return None;
        }
        Some(!meet)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id_at(p: V3) -> Iso {
        Iso {
            rot: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
            pos: p,
        }
    }

    fn cube(c: V3, h: f64) -> TriMesh {
        let mut m = crate::geom::primitive_mesh::box_mesh([h; 3]);
        for v in &mut m.vertices {
            *v = [v[0] + c[0], v[1] + c[1], v[2] + c[2]];
        }
        m
    }

    fn truth_of(meshes: &[TriMesh]) -> MeshTruth {
        let names: Vec<String> = (0..meshes.len()).map(|i| format!("l{i}")).collect();
        let map = names.iter().cloned().zip(meshes.iter().cloned()).collect();
        MeshTruth::new(&names, &map)
    }

    #[test]
    fn a_box_is_one_closed_component_and_its_inverted_copy_too() {
        let m = cube([0.0; 3], 0.1);
        let mut inv = m.clone();
        for t in &mut inv.triangles {
            t.swap(1, 2);
        }
        let t = truth_of(&[m, inv]);
        let s = t.summary();
        assert_eq!((s.links, s.components, s.closed_components), (2, 2, 2));
        // Inward winding is turned outward: the small cube inside still counts.
        let small = cube([0.0; 3], 0.01);
        let t = truth_of(&[small, t_inv()]);
        assert!(t.touching(0, &id_at([0.0; 3]), 1, &id_at([0.0; 3])));
    }

    #[test]
    fn solid_depth_of_a_convex_part_is_its_least_face_distance_and_agrees_with_the_bvh() {
        // A cube (convex: face planes) and a torus (not convex: the BVH), both closed.
        let t = truth_of(&[cube([0.0; 3], 0.1), torus(O, X, Y, 0.3, 0.05, 24, 12)]);
        let d = t.solid_depth(0, [0.02, 0.0, 0.05]);
        assert!((d - 0.05).abs() < 1e-11, "{d}");
        // Inside the cube, the planes' answer is the BVH's distance to the surface.
        let link = t.links[0].as_ref().unwrap();
        let solid = link.components[0].solid.as_ref().unwrap();
        assert!(link.components[0].planes.is_some());
        for p in [[0.03, -0.07, 0.01], [-0.099, 0.0, 0.0], [0.05, 0.05, 0.05]] {
            let exact = (solid.project_local_point(pv(p), false).point - pv(p)).length();
            assert!((t.solid_depth(0, p) - exact).abs() < 1e-9, "{p:?}");
        }
        // Outside: negative, no lower than minus the distance (0.05 from the face).
        let out = t.solid_depth(0, [0.15, 0.0, 0.0]);
        assert!((-0.05 - 1e-11..0.0).contains(&out), "{out}");
        // The torus is not convex: no planes, the BVH decides (inside its tube at (0.3, 0, 0)).
        assert!(t.links[1].as_ref().unwrap().components[0].planes.is_none());
        let d = t.solid_depth(1, [0.3, 0.0, 0.0]);
        assert!(d > 0.04 && d <= 0.05, "{d}");
        assert!(t.solid_depth(1, O) < 0.0);
    }

    fn t_inv() -> TriMesh {
        let mut inv = cube([0.0; 3], 0.1);
        for t in &mut inv.triangles {
            t.swap(1, 2);
        }
        inv
    }

    /// A torus about `center`, its ring in the plane of `u` and `v` (unit, orthogonal):
    /// major radius `big`, tube radius `small`, `n` by `m` quads, outward winding.
    fn torus(center: V3, u: V3, v: V3, big: f64, small: f64, n: u32, m: u32) -> TriMesh {
        let w = cross(u, v);
        let mut vertices = Vec::new();
        for i in 0..n {
            let a = std::f64::consts::TAU * i as f64 / n as f64;
            let radial = [0, 1, 2].map(|k| a.cos() * u[k] + a.sin() * v[k]);
            for j in 0..m {
                let b = std::f64::consts::TAU * j as f64 / m as f64;
                vertices.push([0, 1, 2].map(|k| {
                    center[k] + (big + small * b.cos()) * radial[k] + small * b.sin() * w[k]
                }));
            }
        }
        let at = |i: u32, j: u32| (i % n) * m + (j % m);
        let mut triangles = Vec::new();
        for i in 0..n {
            for j in 0..m {
                let (p, q, r, s) = (at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1));
                triangles.push([p, q, r]);
                triangles.push([p, r, s]);
            }
        }
        TriMesh {
            vertices,
            triangles,
        }
    }

    const X: V3 = [1.0, 0.0, 0.0];
    const Y: V3 = [0.0, 1.0, 0.0];
    const Z: V3 = [0.0, 0.0, 1.0];
    const O: V3 = [0.0; 3];

    fn touch(a: &TriMesh, b: &TriMesh) -> bool {
        let t = truth_of(&[a.clone(), b.clone()]);
        let ab = t.touching(0, &id_at(O), 1, &id_at(O));
        assert_eq!(ab, t.touching(1, &id_at(O), 0, &id_at(O)), "symmetric");
        ab
    }

    #[test]
    fn interlocking_rings_that_do_not_touch_are_apart() {
        // Ring 1 in the xy plane about the origin; ring 2 in the xz plane about (1, 0, 0):
        // their core circles stay exactly 1 apart, so the tubes (0.2) stay 0.6 apart, while
        // each passes through the other's hole (their hulls and bounding spheres overlap).
        let r1 = torus(O, X, Y, 1.0, 0.2, 48, 16);
        let r2 = torus([1.0, 0.0, 0.0], X, Z, 1.0, 0.2, 48, 16);
        let t = truth_of(&[r1.clone(), r2.clone()]);
        let s = t.summary();
        assert_eq!((s.components, s.closed_components), (2, 2));
        assert!(!touch(&r1, &r2));
        // Placed rather than built apart: the same answer through the placements.
        let t = truth_of(&[r1.clone(), torus(O, X, Z, 1.0, 0.2, 48, 16)]);
        assert!(!t.touching(0, &id_at(O), 1, &id_at([1.0, 0.0, 0.0])));
        // Moved 0.7 towards the centre, the cores come 0.3 apart: the tubes cross.
        let r2 = torus([0.3, 0.0, 0.0], X, Z, 1.0, 0.2, 48, 16);
        assert!(touch(&r1, &r2));
        assert!(t.touching(0, &id_at(O), 1, &id_at([0.3, 0.0, 0.0])));
        // Rotated rather than moved: ring 2 turned about x by 90 degrees lies in the xy plane
        // about (1, 0, 0), crossing ring 1.
        let turned = Iso {
            rot: [[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]],
            pos: [1.0, 0.0, 0.0],
        };
        assert!(t.touching(0, &id_at(O), 1, &turned));
    }

    #[test]
    fn a_vertex_exactly_on_a_face_touches() {
        let c = cube(O, 0.1);
        // A tetrahedron standing on its apex, the apex exactly on the cube's top face
        // (z = 0.1, the same float as the cube's corners), away from the face's diagonal.
        let apex = [0.03, 0.01, 0.1];
        let tet = |lift: f64| TriMesh {
            vertices: vec![
                [apex[0], apex[1], apex[2] + lift],
                [-0.05, -0.05, 0.2 + lift],
                [0.05, -0.05, 0.2 + lift],
                [0.0, 0.05, 0.2 + lift],
            ],
            triangles: vec![[0, 2, 1], [0, 3, 2], [0, 1, 3], [1, 2, 3]],
        };
        assert!(touch(&tet(0.0), &c));
        // One micrometre up, it is apart (the tolerance is a nanometre).
        assert!(!touch(&tet(1e-6), &c));
        assert_eq!(truth_of(&[tet(0.0)]).summary().closed_components, 1);
    }

    #[test]
    fn a_closed_mesh_wholly_inside_another_touches() {
        let big = cube(O, 0.1);
        let small = cube([0.02, -0.03, 0.01], 0.02);
        assert!(touch(&small, &big));
        // Inside the hole of a ring (not inside its tube) is apart, although the ring's
        // hull would hold it.
        let ring = torus(O, X, Y, 0.5, 0.1, 48, 16);
        assert!(!touch(&small, &ring));
        // Inside the tube is touching.
        let in_tube = cube([0.0, 0.5, 0.0], 0.02);
        assert!(touch(&in_tube, &ring));
    }

    #[test]
    fn open_meshes_touch_only_through_their_surface() {
        let c = cube(O, 0.1);
        let patch = |z: f64, h: f64| TriMesh {
            vertices: vec![[-h, -h, z], [h, -h, z], [h, h, z], [-h, h, z]],
            triangles: vec![[0, 1, 2], [0, 2, 3]],
        };
        // A small patch inside the closed cube: its vertices are inside.
        assert!(touch(&patch(0.05, 0.05), &c));
        // A large patch cutting through the cube: the surfaces cross.
        assert!(touch(&patch(0.05, 0.5), &c));
        // Just above the cube: apart.
        assert!(!touch(&patch(0.1001, 0.5), &c));
        let t = truth_of(&[patch(0.05, 0.5)]);
        assert_eq!(t.summary().closed_components, 0);
        // An open box (a cube without its top) does not enclose: a cube inside it is apart.
        let mut open_box = cube(O, 0.1);
        open_box
            .triangles
            .retain(|t| !t.iter().all(|&i| open_box.vertices[i as usize][2] > 0.0));
        assert_eq!(open_box.triangles.len(), 10);
        assert_eq!(truth_of(&[open_box.clone()]).summary().closed_components, 0);
        let inner = cube(O, 0.05);
        assert!(!touch(&inner, &open_box));
        // ... and a cube through its wall is touching.
        assert!(touch(&cube([0.1, 0.0, 0.05], 0.03), &open_box));
    }

    #[test]
    fn two_shells_in_one_mesh_are_two_closed_components() {
        let mut m = cube([-0.3, 0.0, 0.0], 0.1);
        let other = cube([0.3, 0.0, 0.0], 0.1);
        let off = m.vertices.len() as u32;
        m.vertices.extend(other.vertices);
        m.triangles
            .extend(other.triangles.iter().map(|t| t.map(|i| i + off)));
        let t = truth_of(&[m.clone()]);
        assert_eq!(t.summary().closed_components, 2);
        // A point-sized cube inside the second shell, between them, inside the first.
        assert!(touch(&cube([0.3, 0.0, 0.0], 0.01), &m));
        assert!(!touch(&cube([0.0, 0.0, 0.0], 0.01), &m));
        assert!(touch(&cube([-0.3, 0.05, 0.0], 0.01), &m));
    }

    /// The traversal's filters (the separating-axis node test, the plane test on triangle
    /// pairs) only prune: on rings turned and moved through each other, and on a cube
    /// brushing a ring, the surfaces meet exactly when some triangle pair is within the
    /// tolerance by the closed-form distance over every pair.
    #[test]
    fn pruned_surface_test_agrees_with_every_triangle_pair() {
        use rand_core::Rng;
        let ring = torus(O, X, Y, 0.1, 0.02, 24, 10);
        let cube_m = cube(O, 0.03);
        let mut rng = rand_pcg::Pcg64::new(7, 11);
        let mut unit = || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let (mut met, mut apart) = (0, 0);
        for (i, other) in [&ring, &cube_m].into_iter().cycle().take(600).enumerate() {
            let t = truth_of(&[ring.clone(), other.clone()]);
            let (la, lb) = (t.links[0].as_ref().unwrap(), t.links[1].as_ref().unwrap());
            let axis = [unit() - 0.5, unit() - 0.5, unit() - 0.5];
            let rot = crate::kernel::vec3::rot_axis_angle(
                crate::kernel::vec3::scale(axis, 1.0 / crate::kernel::vec3::norm(axis)),
                6.3 * unit(),
            );
            // Offsets around the ring's tube, where contacts come and go.
            let pos = [
                0.24 * unit() - 0.12,
                0.24 * unit() - 0.12,
                0.1 * unit() - 0.05,
            ];
            let pb = Iso { rot, pos };
            let b_to_a = Rigid::between(&id_at(O), &pb);
            // Every tenth placement with a margin: contacts within a millimetre.
            let tol = CONTACT_TOL_M + if i % 10 == 0 { 1e-3 } else { 0.0 };
            let corners = |l: &MeshLink, k: u32, m: &Rigid| {
                let tr = l.mesh.triangle(k);
                [tr.a, tr.b, tr.c].map(|p| m.apply([p.x, p.y, p.z]))
            };
            let ident = Rigid::between(&id_at(O), &id_at(O));
            let every = (0..la.mesh.num_triangles() as u32).any(|ka| {
                (0..lb.mesh.num_triangles() as u32).any(|kb| {
                    crate::geom::triangle_distance::triangle_distance(
                        corners(la, ka, &ident),
                        corners(lb, kb, &b_to_a),
                    ) <= tol
                })
            });
            assert_eq!(surfaces_meet(la, lb, &b_to_a, tol), every, "placement {i}");
            if every {
                met += 1;
            } else {
                apart += 1;
            }
        }
        // Both answers are common, so neither side of the filters goes untested.
        assert!(met > 100 && apart > 100, "{met} met, {apart} apart");
    }

    #[test]
    fn links_without_meshes_never_touch() {
        let names = vec!["a".to_string(), "b".to_string()];
        let map: BTreeMap<String, TriMesh> = [("a".to_string(), cube([0.0; 3], 0.1))]
            .into_iter()
            .collect();
        let t = MeshTruth::new(&names, &map);
        assert!(!t.touching(0, &id_at([0.0; 3]), 1, &id_at([0.0; 3])));
        assert!(!t.touching(0, &id_at([0.0; 3]), 7, &id_at([0.0; 3])));
        assert!(t.touching(0, &id_at([f64::NAN; 3]), 0, &id_at([0.0; 3])));
    }
}
