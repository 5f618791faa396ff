//! The kernel's data model: a kinematic tree of links with collision primitives, an allowed
//! collision matrix (ACM) and a margin. Plain data, built by [`Model::new`], which validates
//! everything and precomputes what the hot path needs (origins, bounding spheres, the list of
//! checked pairs, structure-of-arrays hull storage).
//!
//! Units: metres and radians. Frames: each link has a frame; a link's primitives are given in
//! it. `child = parent · origin · motion(q)` with `origin = Translate(xyz) · R(rpy)`,
//! `R(rpy) = Rz(yaw) · Ry(pitch) · Rx(roll)` (URDF), and for a revolute or continuous joint
//! `motion(q) = Translate(pivot) · Rot(axis, q) · Translate(−pivot)`, for a prismatic joint
//! `motion(q) = Translate(q · axis)`; `pivot` and `axis` are in the child frame.

use super::climb::{self, Climb};
use super::distance_hull_box::box_dop;
use super::dop26::{DIRECTIONS, Dop26};
use super::shapes::{HullPoints, Obb};
use super::support_table;
use super::vec3::{
    Iso, Mat3, V3, det, dot, finite, mul_mtv, norm, orthonormality_error, rot_from_rpy, scale, sub,
};

/// Largest number of hull vertices per tight primitive.
pub const MAX_HULL_VERTICES: usize = 320;
/// Tolerance on rotation matrices (`|RᵀR − I|`) and unit axes.
pub const UNIT_TOL: f64 = 1e-6;
/// A tight primitive's DOP may stick out of its box, and a hull vertex out of its box or
/// DOP, by at most this much (metres: floating-point rounding of written values). The
/// kernel then raises its own copy of the box/DOP value to contain it, so the containment
/// the lower bounds rely on holds exactly in the kernel's data. The one tolerance of the
/// one nesting check ([`nesting_fault`]), which the manifest loader runs too.
pub const CONTAINMENT_TOL: f64 = 1e-9;

/// Where a tight primitive's hull-in-DOP-in-box nesting fails by more than
/// [`CONTAINMENT_TOL`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NestingFault {
    /// DOP support `k` (of the first six: ±x, ±y, ±z) exceeds the box's half extent.
    DopOutsideBox { k: usize, excess: f64 },
    /// Hull vertex `vertex` lies outside the box.
    VertexOutsideBox { vertex: usize, excess: f64 },
    /// Hull vertex `vertex` lies outside DOP plane `k`.
    VertexOutsideDop {
        vertex: usize,
        k: usize,
        excess: f64,
    },
}

/// The first failure of a tight primitive's nesting (DOP within the box, every hull vertex
/// within both); the box is `center`, `rot` (box axes as columns), `half`; `dop` and the
/// hull vertices `hull` are in the link frame... the DOP's supports are measured in the box
/// frame.
pub fn nesting_fault(
    center: V3,
    rot: &Mat3,
    half: V3,
    dop: &[f64; 26],
    hull: &[V3],
) -> Option<NestingFault> {
    for k in 0..6 {
        let excess = dop[k] - half[k / 2];
        if excess > CONTAINMENT_TOL {
            return Some(NestingFault::DopOutsideBox { k, excess });
        }
    }
    for (vertex, p) in hull.iter().enumerate() {
        let q = mul_mtv(rot, sub(*p, center));
        let excess = (0..3)
            .map(|k| q[k].abs() - half[k])
            .fold(f64::NEG_INFINITY, f64::max);
        if excess > CONTAINMENT_TOL {
            return Some(NestingFault::VertexOutsideBox { vertex, excess });
        }
        for (k, u) in DIRECTIONS.iter().enumerate() {
            let excess = dot(*u, q) - dop[k];
            if excess > CONTAINMENT_TOL {
                return Some(NestingFault::VertexOutsideDop { vertex, k, excess });
            }
        }
    }
    None
}
/// Default refinement band (metres): see [`Model::refine_band`].
pub const DEFAULT_REFINE_BAND: f64 = 0.01;

/// Joint kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JointKind {
    Fixed,
    /// Rotation about `axis`, limited to `[lower, upper]` (radians).
    Revolute,
    /// Rotation about `axis`, unlimited.
    Continuous,
    /// Translation along `axis`, limited to `[lower, upper]` (metres).
    Prismatic,
}

/// Mimic coupling: `q = multiplier · q_leader + offset`, `leader` a joint (= link) index.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mimic {
    pub leader: usize,
    pub multiplier: f64,
    pub offset: f64,
}

/// The joint connecting a link to its parent (or to the world frame for a root).
#[derive(Clone, Debug, PartialEq)]
pub struct Joint {
    pub name: String,
    pub kind: JointKind,
    /// Origin translation in the parent frame (metres).
    pub origin_xyz: V3,
    /// Origin roll, pitch, yaw (radians), URDF convention.
    pub origin_rpy: V3,
    /// Unit axis in the child frame (ignored for `Fixed`).
    pub axis: V3,
    /// Limits (radians or metres); checked `lower <= upper` for revolute and prismatic.
    /// The kernel does not clamp `q`; see [`Model::within_limits`].
    pub lower: f64,
    pub upper: f64,
    /// Point on the rotation axis, in the child frame (default origin).
    pub pivot: V3,
    pub mimic: Option<Mimic>,
}

impl Joint {
    /// A fixed joint at `xyz`, `rpy`.
    pub fn fixed(name: &str, xyz: V3, rpy: V3) -> Joint {
        Joint {
            name: name.to_string(),
            kind: JointKind::Fixed,
            origin_xyz: xyz,
            origin_rpy: rpy,
            axis: [0.0, 0.0, 1.0],
            lower: 0.0,
            upper: 0.0,
            pivot: [0.0; 3],
            mimic: None,
        }
    }

    /// A moving joint.
    pub fn new(
        name: &str,
        kind: JointKind,
        xyz: V3,
        rpy: V3,
        axis: V3,
        lower: f64,
        upper: f64,
    ) -> Joint {
        Joint {
            name: name.to_string(),
            kind,
            origin_xyz: xyz,
            origin_rpy: rpy,
            axis,
            lower,
            upper,
            pivot: [0.0; 3],
            mimic: None,
        }
    }

    pub fn with_pivot(mut self, pivot: V3) -> Joint {
        self.pivot = pivot;
        self
    }

    pub fn with_mimic(mut self, leader: usize, multiplier: f64, offset: f64) -> Joint {
        self.mimic = Some(Mimic {
            leader,
            multiplier,
            offset,
        });
        self
    }
}

/// An oriented box in the link frame.
///
/// `rotation` is a row-major 3×3 rotation matrix whose **columns are the box axes in the link
/// frame** (box frame → link frame); `half_extents` are along those axes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoxShape {
    pub center: V3,
    pub rotation: Mat3,
    pub half_extents: V3,
}

impl BoxShape {
    /// From a URDF-convention `rpy` orientation.
    pub fn from_rpy(center: V3, rpy: V3, half_extents: V3) -> BoxShape {
        BoxShape {
            center,
            rotation: rot_from_rpy(rpy),
            half_extents,
        }
    }

    pub(crate) fn obb(&self) -> Obb {
        Obb {
            center: self.center,
            rot: self.rotation,
            half: self.half_extents,
        }
    }
}

/// A box refined by tight geometry: the solid is the convex hull of the vertices
/// `hull_vertices[hull_offset .. hull_offset + hull_len]` of the model (link frame). The box
/// and the 26-DOP (support values in the box frame, order in [`super::dop26`]) must contain
/// the hull; they are used only for conservative early-outs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TightGeometry {
    pub bx: BoxShape,
    pub dop26: [f64; 26],
    pub hull_offset: usize,
    pub hull_len: usize,
}

/// A collision primitive in the link frame.
// Plain data built once by a loader; the size of the `Tight` variant costs nothing at check
// time (the kernel keeps its own compact copies).
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Primitive {
    /// Points within `radius` of the segment `a`–`b`.
    Capsule {
        a: V3,
        b: V3,
        radius: f64,
    },
    Box(BoxShape),
    Tight(TightGeometry),
}

/// A link: its parent (`None` for a root, placed relative to the world frame), the joint from
/// the parent, and its primitives.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    pub name: String,
    pub parent: Option<usize>,
    pub joint: Joint,
    pub primitives: Vec<Primitive>,
}

/// Allowed collision matrix: a symmetric bit matrix over link pairs. An allowed pair is not
/// checked. Nothing is exempt implicitly (not even adjacent links).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Acm {
    n: usize,
    words: usize,
    bits: Vec<u64>,
}

impl Acm {
    /// An empty ACM (every pair checked) over `n` links.
    pub fn new(n: usize) -> Acm {
        let words = n.div_ceil(64);
        Acm {
            n,
            words,
            bits: vec![0; n * words],
        }
    }

    pub fn n(&self) -> usize {
        self.n
    }

    /// Allow (exempt) the pair `{i, j}`. Panics when out of range.
    pub fn allow(&mut self, i: usize, j: usize) {
        assert!(i < self.n && j < self.n, "ACM index out of range");
        self.bits[i * self.words + j / 64] |= 1 << (j % 64);
        self.bits[j * self.words + i / 64] |= 1 << (i % 64);
    }

    /// Is the pair `{i, j}` exempt?
    #[inline]
    pub fn is_allowed(&self, i: usize, j: usize) -> bool {
        self.bits[i * self.words + j / 64] & (1 << (j % 64)) != 0
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum Source {
    Fixed,
    Dof(usize),
    Mimic { leader: usize, mul: f64, off: f64 },
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum PrimKind {
    Capsule {
        a: V3,
        b: V3,
        r: f64,
    },
    /// The box and the index of its own DOP in `Model::dops`.
    Box(Obb, u32),
    Tight {
        obb: Obb,
        /// Index into `Model::dops`.
        dop: u32,
        off: usize,
        len: usize,
        /// Start of its support table in `Model::tables`.
        table: usize,
        /// Index of its climbing graph in `Model::graphs`, `u32::MAX` when it scans.
        graph: u32,
    },
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct PrimData {
    pub link: usize,
    pub kind: PrimKind,
    /// Bounding sphere in the link frame.
    pub sphere_c: V3,
    pub sphere_r: f64,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct PrimPair {
    pub a: u32,
    pub b: u32,
    /// Warm-start slot, `u32::MAX` when the pair never runs GJK.
    pub slot: u32,
    pub rsum: f64,
}

/// A validated kinematic and collision model. Immutable after construction.
#[derive(Clone, Debug)]
pub struct Model {
    links: Vec<Link>,
    hull_vertices: Vec<V3>,
    acm: Acm,
    margin: f64,
    refine_band: f64,
    pub(crate) origins: Vec<Iso>,
    pub(crate) axes: Vec<V3>,
    pub(crate) source: Vec<Source>,
    pub(crate) mimic_order: Vec<usize>,
    dof_joints: Vec<usize>,
    pub(crate) prims: Vec<PrimData>,
    /// DOP tables of tight and box primitives (kept apart: 1.7 KB each).
    pub(crate) dops: Vec<Dop26>,
    pub(crate) hx: Vec<f64>,
    pub(crate) hy: Vec<f64>,
    pub(crate) hz: Vec<f64>,
    /// Support tables of the tight primitives' hulls, [`support_table::CELLS`] each.
    pub(crate) tables: Vec<u16>,
    /// Climbing graphs of the tight primitives' hulls that have one (`climb`).
    pub(crate) graphs: Vec<climb::Graph>,
    checked_pairs: Vec<(usize, usize)>,
    pub(crate) pair_ranges: Vec<(u32, u32)>,
    pub(crate) prim_pairs: Vec<PrimPair>,
    pub(crate) n_slots: usize,
    /// Per link, a sphere (link frame) around all its primitives' bounding spheres: the
    /// link-level broad phase skips a whole link pair on one test.
    pub(crate) link_spheres: Vec<(V3, f64)>,
}

/// The vertices `range` of the flat coordinate arrays `xyz` as one hull, with its table and
/// climbing graph.
#[inline(always)]
pub(crate) fn hull_points<'a>(
    xyz: [&'a [f64]; 3],
    range: std::ops::Range<usize>,
    table: &'a [u16],
    climb: Climb<'a>,
) -> HullPoints<'a> {
    HullPoints {
        x: &xyz[0][range.clone()],
        y: &xyz[1][range.clone()],
        z: &xyz[2][range],
        table,
        climb,
    }
}

fn fin(v: f64) -> bool {
    v.is_finite()
}

pub(crate) fn check_box(what: &str, b: &BoxShape) -> Result<(), String> {
    if !finite(b.center) {
        return Err(format!("{what}: box center is not finite"));
    }
    if !b.rotation.iter().all(|r| finite(*r)) {
        return Err(format!("{what}: box rotation is not finite"));
    }
    if !finite(b.half_extents) || b.half_extents.iter().any(|&h| h < 0.0) {
        return Err(format!(
            "{what}: box half extents must be finite and >= 0, got {:?}",
            b.half_extents
        ));
    }
    let e = orthonormality_error(&b.rotation);
    if e > UNIT_TOL || det(&b.rotation) <= 0.0 {
        return Err(format!(
            "{what}: box rotation is not a proper rotation (|RᵀR − I| = {e:.3e}, det = {:.6})",
            det(&b.rotation)
        ));
    }
    Ok(())
}

impl Model {
    /// Validate and build. `hull_vertices` is the flat vertex store that tight primitives
    /// index into; `acm` must be over `links.len()` links; `margin` (metres) must be finite
    /// and `>= 0`. Errors name the offending link, joint or primitive.
    pub fn new(
        links: Vec<Link>,
        hull_vertices: Vec<V3>,
        acm: Acm,
        margin: f64,
    ) -> Result<Model, String> {
        let n = links.len();
        if !(fin(margin) && margin >= 0.0) {
            return Err(format!("margin must be finite and >= 0, got {margin}"));
        }
        if acm.n() != n {
            return Err(format!(
                "ACM is over {} links but the model has {n}",
                acm.n()
            ));
        }
        for (i, v) in hull_vertices.iter().enumerate() {
            if !finite(*v) {
                return Err(format!("hull vertex {i} is not finite: {v:?}"));
            }
        }
        // Tree structure.
        for (i, l) in links.iter().enumerate() {
            if let Some(p) = l.parent {
                if p >= n {
                    return Err(format!(
                        "link {i} '{}': bad parent index {p} (model has {n} links)",
                        l.name
                    ));
                }
                if p == i {
                    return Err(format!(
                        "link {i} '{}': cycle (link is its own parent)",
                        l.name
                    ));
                }
            }
        }
        for (i, l) in links.iter().enumerate() {
            let mut cur = l.parent;
            let mut steps = 0;
            while let Some(p) = cur {
                if p == i || steps > n {
                    return Err(format!("link {i} '{}': cycle in the parent chain", l.name));
                }
                cur = links[p].parent;
                steps += 1;
            }
            if let Some(p) = l.parent
                && p > i
            {
                return Err(format!(
                    "link {i} '{}': parent {p} comes after it; links must be in topological order",
                    l.name
                ));
            }
        }
        // Joints.
        let mut origins = Vec::with_capacity(n);
        let mut axes = Vec::with_capacity(n);
        let mut source = Vec::with_capacity(n);
        let mut dof_joints = Vec::new();
        for (i, l) in links.iter().enumerate() {
            let j = &l.joint;
            let what = format!("link {i} '{}' joint '{}'", l.name, j.name);
            if !finite(j.origin_xyz) || !finite(j.origin_rpy) {
                return Err(format!("{what}: origin is not finite"));
            }
            if !finite(j.pivot) {
                return Err(format!("{what}: pivot is not finite"));
            }
            origins.push(Iso::from_xyz_rpy(j.origin_xyz, j.origin_rpy));
            let mut axis = j.axis;
            if j.kind != JointKind::Fixed {
                let len = norm(axis);
                if !finite(axis) || (len - 1.0).abs() > UNIT_TOL {
                    return Err(format!(
                        "{what}: axis must be a unit vector, got {axis:?} (norm {len})"
                    ));
                }
                axis = scale(axis, 1.0 / len);
            }
            if matches!(j.kind, JointKind::Revolute | JointKind::Prismatic)
                && !(fin(j.lower) && fin(j.upper) && j.lower <= j.upper)
            {
                return Err(format!(
                    "{what}: limits must be finite with lower <= upper, got [{}, {}]",
                    j.lower, j.upper
                ));
            }
            axes.push(axis);
            match (&j.kind, &j.mimic) {
                (JointKind::Fixed, Some(_)) => {
                    return Err(format!("{what}: a fixed joint cannot mimic"));
                }
                (JointKind::Fixed, None) => source.push(Source::Fixed),
                (_, None) => {
                    source.push(Source::Dof(dof_joints.len()));
                    dof_joints.push(i);
                }
                (_, Some(m)) => {
                    if m.leader >= n || m.leader == i {
                        return Err(format!("{what}: bad mimic leader index {}", m.leader));
                    }
                    if links[m.leader].joint.kind == JointKind::Fixed {
                        return Err(format!(
                            "{what}: mimic leader {} is a fixed joint",
                            m.leader
                        ));
                    }
                    if !(fin(m.multiplier) && fin(m.offset)) {
                        return Err(format!("{what}: mimic multiplier/offset not finite"));
                    }
                    source.push(Source::Mimic {
                        leader: m.leader,
                        mul: m.multiplier,
                        off: m.offset,
                    });
                }
            }
        }
        // Mimic evaluation order: leaders before followers; reject cycles.
        let mut mimic_order = Vec::new();
        let mut state = vec![0u8; n]; // 0 unvisited, 1 in progress, 2 done
        for i in 0..n {
            let mut stack = vec![i];
            while let Some(&k) = stack.last() {
                if state[k] == 2 {
                    stack.pop();
                    continue;
                }
                match source[k] {
                    Source::Mimic { leader, .. } => {
                        if state[leader] == 2 {
                            state[k] = 2;
                            mimic_order.push(k);
                            stack.pop();
                        } else if state[leader] == 1 || stack.len() > n {
                            return Err(format!(
                                "link {k} '{}': mimic cycle through joint {leader}",
                                links[k].name
                            ));
                        } else {
                            state[k] = 1;
                            stack.push(leader);
                        }
                    }
                    _ => {
                        state[k] = 2;
                        stack.pop();
                    }
                }
            }
        }
        // Primitives.
        let mut prims = Vec::new();
        let mut dops: Vec<Dop26> = Vec::new();
        let mut hx = Vec::with_capacity(hull_vertices.len());
        let mut hy = Vec::with_capacity(hull_vertices.len());
        let mut hz = Vec::with_capacity(hull_vertices.len());
        for v in &hull_vertices {
            hx.push(v[0]);
            hy.push(v[1]);
            hz.push(v[2]);
        }
        let mut tables: Vec<u16> = Vec::new();
        let mut graphs: Vec<climb::Graph> = Vec::new();
        for (i, l) in links.iter().enumerate() {
            for (k, p) in l.primitives.iter().enumerate() {
                let what = format!("link {i} '{}' primitive {k}", l.name);
                let data = match *p {
                    Primitive::Capsule { a, b, radius } => {
                        if !finite(a) || !finite(b) {
                            return Err(format!("{what}: capsule endpoint not finite"));
                        }
                        if !(fin(radius) && radius >= 0.0) {
                            return Err(format!(
                                "{what}: capsule radius must be finite and >= 0, got {radius}"
                            ));
                        }
                        let c = scale(super::vec3::add(a, b), 0.5);
                        PrimData {
                            link: i,
                            kind: PrimKind::Capsule { a, b, r: radius },
                            sphere_c: c,
                            sphere_r: 0.5 * norm(sub(b, a)) + radius,
                        }
                    }
                    Primitive::Box(b) => {
                        check_box(&what, &b)?;
                        PrimData {
                            link: i,
                            kind: PrimKind::Box(b.obb(), {
                                dops.push(box_dop(b.half_extents));
                                (dops.len() - 1) as u32
                            }),
                            sphere_c: b.center,
                            sphere_r: norm(b.half_extents),
                        }
                    }
                    Primitive::Tight(t) => {
                        check_box(&what, &t.bx)?;
                        if !t.dop26.iter().all(|v| v.is_finite()) {
                            return Err(format!("{what}: dop26 value not finite"));
                        }
                        if t.hull_len == 0 || t.hull_len > MAX_HULL_VERTICES {
                            return Err(format!(
                                "{what}: hull has {} vertices; must be 1..={MAX_HULL_VERTICES}",
                                t.hull_len
                            ));
                        }
                        let end = t.hull_offset.checked_add(t.hull_len);
                        if end.is_none_or(|e| e > hull_vertices.len()) {
                            return Err(format!(
                                "{what}: hull range {}..+{} is outside the {} stored vertices",
                                t.hull_offset,
                                t.hull_len,
                                hull_vertices.len()
                            ));
                        }
                        let verts = &hull_vertices[t.hull_offset..t.hull_offset + t.hull_len];
                        let mut obb = t.bx.obb();
                        if let Some(f) =
                            nesting_fault(obb.center, &obb.rot, obb.half, &t.dop26, verts)
                        {
                            return Err(match f {
                                NestingFault::DopOutsideBox { k, excess } => format!(
                                    "{what}: dop26[{k}] exceeds the box's half extent by {excess:.3e} m"
                                ),
                                NestingFault::VertexOutsideBox { vertex, excess } => format!(
                                    "{what}: hull vertex {vertex} lies {excess:.3e} m outside the box"
                                ),
                                NestingFault::VertexOutsideDop { vertex, k, excess } => format!(
                                    "{what}: hull vertex {vertex} lies {excess:.3e} m outside dop26[{k}]"
                                ),
                            });
                        }
                        // Within the tolerance: raise the kernel's own copies to contain
                        // the hull exactly.
                        let mut d = t.dop26;
                        let mut radius: f64 = 0.0;
                        for v in verts {
                            let rel = sub(*v, obb.center);
                            radius = radius.max(norm(rel));
                            let lb = mul_mtv(&obb.rot, rel);
                            for (h, c) in obb.half.iter_mut().zip(lb) {
                                *h = h.max(c.abs());
                            }
                            for (kk, nrm) in DIRECTIONS.iter().enumerate() {
                                d[kk] = d[kk].max(dot(*nrm, lb));
                            }
                        }
                        PrimData {
                            link: i,
                            kind: PrimKind::Tight {
                                obb,
                                dop: {
                                    dops.push(Dop26::new(d));
                                    (dops.len() - 1) as u32
                                },
                                off: t.hull_offset,
                                len: t.hull_len,
                                table: {
                                    let range = t.hull_offset..t.hull_offset + t.hull_len;
                                    let pts = hull_points([&hx, &hy, &hz], range, &[], Climb::NONE);
                                    tables.extend(support_table::build(&pts));
                                    tables.len() - support_table::CELLS
                                },
                                graph: {
                                    let range = t.hull_offset..t.hull_offset + t.hull_len;
                                    let pts = hull_points([&hx, &hy, &hz], range, &[], Climb::NONE);
                                    let g = (t.hull_len >= climb::MIN_CLIMB_VERTICES)
                                        .then(|| climb::Graph::build(&pts))
                                        .flatten();
                                    g.map_or(u32::MAX, |g| {
                                        graphs.push(g);
                                        (graphs.len() - 1) as u32
                                    })
                                },
                            },
                            sphere_c: obb.center,
                            sphere_r: radius,
                        }
                    }
                };
                prims.push(data);
            }
        }
        let PairTables {
            checked_pairs,
            pair_ranges,
            prim_pairs,
            n_slots,
        } = pair_tables(n, &acm, &prims);
        let link_spheres = link_spheres(n, &prims);
        Ok(Model {
            links,
            hull_vertices,
            acm,
            margin,
            refine_band: DEFAULT_REFINE_BAND,
            origins,
            axes,
            source,
            mimic_order,
            dof_joints,
            prims,
            dops,
            hx,
            hy,
            hz,
            tables,
            graphs,
            checked_pairs,
            pair_ranges,
            prim_pairs,
            n_slots,
            link_spheres,
        })
    }

    /// Set the refinement band (metres, finite, `>= 0`): a pair whose conservative bound is at
    /// most `margin + band` is refined to its exact distance; the sphere broad phase skips a
    /// primitive pair only when its sphere gap exceeds `margin + band`. The verdict does not
    /// depend on the band (every bound is conservative); the reported distances do.
    pub fn with_refine_band(mut self, band: f64) -> Result<Model, String> {
        if !(fin(band) && band >= 0.0) {
            return Err(format!("refine band must be finite and >= 0, got {band}"));
        }
        self.refine_band = band;
        Ok(self)
    }

    /// The same model under another ACM (sizes must match): only the checked pairs are
    /// rebuilt; links, primitives, hulls and their support tables are kept.
    pub fn with_acm(mut self, acm: Acm) -> Result<Model, String> {
        if acm.n() != self.links.len() {
            return Err(format!(
                "ACM is over {} links, the model has {}",
                acm.n(),
                self.links.len()
            ));
        }
        let t = pair_tables(self.links.len(), &acm, &self.prims);
        self.acm = acm;
        self.checked_pairs = t.checked_pairs;
        self.pair_ranges = t.pair_ranges;
        self.prim_pairs = t.prim_pairs;
        self.n_slots = t.n_slots;
        Ok(self)
    }

    pub fn links(&self) -> &[Link] {
        &self.links
    }

    pub fn n_links(&self) -> usize {
        self.links.len()
    }

    pub fn hull_vertices(&self) -> &[V3] {
        &self.hull_vertices
    }

    pub fn acm(&self) -> &Acm {
        &self.acm
    }

    /// Self-collision margin (metres): a pair trips when its distance is `<= margin`.
    pub fn margin(&self) -> f64 {
        self.margin
    }

    pub fn refine_band(&self) -> f64 {
        self.refine_band
    }

    /// Number of entries of `q`.
    pub fn dof(&self) -> usize {
        self.dof_joints.len()
    }

    /// The joint (= link) index behind each entry of `q`: the non-fixed, non-mimic joints in
    /// topological order.
    pub fn dof_joints(&self) -> &[usize] {
        &self.dof_joints
    }

    /// The interval a dof ranges over: its joint's limits, or one turn for a continuous joint.
    pub fn dof_range(&self, dof: usize) -> (f64, f64) {
        let j = &self.links[self.dof_joints[dof]].joint;
        match j.kind {
            JointKind::Continuous => (-std::f64::consts::PI, std::f64::consts::PI),
            _ => (j.lower, j.upper),
        }
    }

    /// The checked link pairs `(i, j)`, `i < j`, in the order of
    /// `Workspace::pair_distances` and of the search for the first tripping
    /// pair: pairs not exempt by the ACM whose links both carry at least one primitive.
    pub fn checked_pairs(&self) -> &[(usize, usize)] {
        &self.checked_pairs
    }

    /// Is every non-mimic entry of `q` within its joint's limits (continuous joints always)?
    pub fn within_limits(&self, q: &[f64]) -> bool {
        q.len() == self.dof()
            && self.dof_joints.iter().zip(q).all(|(&j, &v)| {
                let jt = &self.links[j].joint;
                jt.kind == JointKind::Continuous || (v >= jt.lower && v <= jt.upper)
            })
    }

    /// Bounding sphere (link frame centre, radius) of primitive `k` of link `link`.
    /// Radius of primitive `k`'s bounding sphere (global primitive index).
    pub fn sphere_radius(&self, k: usize) -> f64 {
        self.prims[k].sphere_r
    }

    pub fn bounding_sphere(&self, link: usize, k: usize) -> Option<(V3, f64)> {
        self.prims
            .iter()
            .filter(|p| p.link == link)
            .nth(k)
            .map(|p| (p.sphere_c, p.sphere_r))
    }

    /// The link-frame transform of the joint origin of link `i`.
    pub fn origin(&self, i: usize) -> Iso {
        self.origins[i]
    }
}

/// A sphere around each link's primitive spheres: centred on their bounding box, so two
/// capsules at a link's ends share one sphere about as small as the link. Radius 0 for
/// links without primitives (they are in no checked pair).
fn link_spheres(n: usize, prims: &[PrimData]) -> Vec<(V3, f64)> {
    let mut out = vec![([0.0; 3], 0.0); n];
    for (i, sphere) in out.iter_mut().enumerate() {
        let mut lo = [f64::INFINITY; 3];
        let mut hi = [f64::NEG_INFINITY; 3];
        let of_link = || prims.iter().filter(move |p| p.link == i);
        for p in of_link() {
            for d in 0..3 {
                lo[d] = lo[d].min(p.sphere_c[d] - p.sphere_r);
                hi[d] = hi[d].max(p.sphere_c[d] + p.sphere_r);
            }
        }
        if lo[0] > hi[0] {
            continue;
        }
        let c = [
            0.5 * (lo[0] + hi[0]),
            0.5 * (lo[1] + hi[1]),
            0.5 * (lo[2] + hi[2]),
        ];
        let r = of_link()
            .map(|p| norm(sub(p.sphere_c, c)) + p.sphere_r)
            .fold(0.0, f64::max);
        *sphere = (c, r);
    }
    out
}

/// What the ACM decides in a model: the checked link pairs, each one's range of primitive
/// pairs, and the GJK warm-start slots.
struct PairTables {
    checked_pairs: Vec<(usize, usize)>,
    pair_ranges: Vec<(u32, u32)>,
    prim_pairs: Vec<PrimPair>,
    n_slots: usize,
}

/// Checked pairs and their primitive pairs, for `n` links whose primitives `prims` are
/// ordered by link.
fn pair_tables(n: usize, acm: &Acm, prims: &[PrimData]) -> PairTables {
    let mut link_prims = vec![(0usize, 0usize); n];
    {
        let mut k = 0;
        for (i, lp) in link_prims.iter_mut().enumerate() {
            let s = k;
            while k < prims.len() && prims[k].link == i {
                k += 1;
            }
            *lp = (s, k);
        }
    }
    let mut checked_pairs = Vec::new();
    let mut pair_ranges = Vec::new();
    let mut prim_pairs = Vec::new();
    let mut n_slots = 0usize;
    for i in 0..n {
        for j in i + 1..n {
            if acm.is_allowed(i, j) {
                continue;
            }
            let (si, ei) = link_prims[i];
            let (sj, ej) = link_prims[j];
            if si == ei || sj == ej {
                continue;
            }
            let start = prim_pairs.len() as u32;
            for a in si..ei {
                for b in sj..ej {
                    let uses_gjk = !matches!(
                        (&prims[a].kind, &prims[b].kind),
                        (PrimKind::Capsule { .. }, PrimKind::Capsule { .. })
                            | (PrimKind::Capsule { .. }, PrimKind::Box(..))
                            | (PrimKind::Box(..), PrimKind::Capsule { .. })
                    );
                    let slot = if uses_gjk {
                        n_slots += 1;
                        (n_slots - 1) as u32
                    } else {
                        u32::MAX
                    };
                    prim_pairs.push(PrimPair {
                        a: a as u32,
                        b: b as u32,
                        slot,
                        rsum: prims[a].sphere_r + prims[b].sphere_r,
                    });
                }
            }
            checked_pairs.push((i, j));
            pair_ranges.push((start, prim_pairs.len() as u32));
        }
    }
    PairTables {
        checked_pairs,
        pair_ranges,
        prim_pairs,
        n_slots,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rev(name: &str, parent: Option<usize>) -> Link {
        Link {
            name: name.into(),
            parent,
            joint: Joint::new(
                name,
                JointKind::Revolute,
                [0.0, 0.0, 0.1],
                [0.0; 3],
                [0.0, 0.0, 1.0],
                -1.0,
                1.0,
            ),
            primitives: vec![Primitive::Capsule {
                a: [0.0; 3],
                b: [0.0, 0.0, 0.1],
                radius: 0.02,
            }],
        }
    }

    fn build(links: Vec<Link>) -> Result<Model, String> {
        let n = links.len();
        Model::new(links, vec![], Acm::new(n), 0.0)
    }

    #[test]
    fn valid_chain_builds() {
        let m = build(vec![rev("a", None), rev("b", Some(0)), rev("c", Some(1))]).unwrap();
        assert_eq!(m.dof(), 3);
        assert_eq!(m.checked_pairs(), &[(0, 1), (0, 2), (1, 2)]);
    }

    #[test]
    fn rejects_bad_parent_cycle_and_order() {
        let e = build(vec![rev("a", None), rev("b", Some(7))]).unwrap_err();
        assert!(e.contains("bad parent index 7"), "{e}");
        let e = build(vec![rev("a", Some(0))]).unwrap_err();
        assert!(e.contains("cycle"), "{e}");
        let e = build(vec![rev("a", Some(1)), rev("b", Some(0))]).unwrap_err();
        assert!(e.contains("cycle"), "{e}");
        let e = build(vec![rev("a", Some(1)), rev("b", None)]).unwrap_err();
        assert!(e.contains("topological"), "{e}");
    }

    #[test]
    fn rejects_bad_numbers() {
        let mut l = rev("a", None);
        l.primitives = vec![Primitive::Capsule {
            a: [0.0; 3],
            b: [0.0; 3],
            radius: -1.0,
        }];
        assert!(build(vec![l]).unwrap_err().contains("radius"));
        let mut l = rev("a", None);
        l.joint.origin_xyz[1] = f64::NAN;
        assert!(build(vec![l]).unwrap_err().contains("not finite"));
        let mut l = rev("a", None);
        l.joint.axis = [0.0, 0.0, 2.0];
        assert!(build(vec![l]).unwrap_err().contains("unit"));
        let mut l = rev("a", None);
        l.joint.lower = 2.0;
        assert!(build(vec![l]).unwrap_err().contains("limits"));
        let n = 1;
        assert!(Model::new(vec![rev("a", None)], vec![], Acm::new(n), -0.1).is_err());
        assert!(Model::new(vec![rev("a", None)], vec![], Acm::new(2), 0.0).is_err());
    }

    #[test]
    fn rejects_mimic_problems() {
        let a = rev("a", None);
        let mut b = rev("b", Some(0));
        b.joint.mimic = Some(Mimic {
            leader: 1,
            multiplier: 1.0,
            offset: 0.0,
        });
        assert!(
            build(vec![a.clone(), b])
                .unwrap_err()
                .contains("mimic leader")
        );
        let mut a2 = a.clone();
        a2.joint = a2.joint.with_mimic(1, 1.0, 0.0);
        let b2 = rev("b", Some(0)).joint.with_mimic(0, 1.0, 0.0);
        let mut lb = rev("b", Some(0));
        lb.joint = b2;
        assert!(build(vec![a2, lb]).unwrap_err().contains("mimic cycle"));
    }

    #[test]
    fn rejects_oversized_or_escaping_hull() {
        let mut l = rev("a", None);
        let bx = BoxShape::from_rpy([0.0; 3], [0.0; 3], [1.0; 3]);
        l.primitives = vec![Primitive::Tight(TightGeometry {
            bx,
            dop26: [1.0; 26],
            hull_offset: 0,
            hull_len: 321,
        })];
        let verts = vec![[0.0; 3]; 321];
        let e = Model::new(vec![l.clone()], verts, Acm::new(1), 0.0).unwrap_err();
        assert!(e.contains("321 vertices"), "{e}");
        l.primitives = vec![Primitive::Tight(TightGeometry {
            bx,
            dop26: [1.0; 26],
            hull_offset: 0,
            hull_len: 1,
        })];
        let e = Model::new(vec![l], vec![[1.5, 0.0, 0.0]], Acm::new(1), 0.0).unwrap_err();
        assert!(e.contains("outside the box"), "{e}");
    }

    #[test]
    fn acm_is_symmetric() {
        let mut a = Acm::new(70);
        a.allow(3, 68);
        assert!(a.is_allowed(68, 3) && a.is_allowed(3, 68) && !a.is_allowed(3, 67));
    }
}
