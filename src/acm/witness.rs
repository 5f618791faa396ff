//! A witness that two links overlap at a configuration: a point inside one primitive
//! of each, at depth `rho` in both, so the ball of radius `rho` around it lies in both
//! solids. Found by alternating projections onto the two primitives shrunk by `rho`
//! (they converge to a common point whenever the shrunk sets meet); the depths are then
//! evaluated exactly, so the certificate does not rest on the search.
//!
//! With the links' truth (their meshes; see [`DepthProbe::with_truth`]) every depth is also
//! bounded by the depth inside the mesh, so a certified ball lies in both real parts, not
//! merely in the primitives around them.
//!
//! A part whose mesh is open (a finger shell) bounds no solid, so no ball lies inside it,
//! and a thin one holds only a small ball. Its surface is still the part: a vertex of its
//! mesh at depth `r` inside the other link is a shared point as good as a ball's centre
//! ([`surface_point`]).

use crate::geom::point::Solid;
use crate::kernel::Workspace;
use crate::kernel::model::{Model, Primitive};
use crate::kernel::vec3::{Mat3, V3, add, dot, mul_mtv, mul_mv, norm, scale, sub};
use crate::truth::mesh::MeshTruth;

/// Per link, its primitives ready for depth queries (hull planes built once), and the
/// links' truth when certificates must hold on the real geometry.
pub struct DepthProbe<'t> {
    pub(crate) links: Vec<Vec<Option<Solid>>>,
    /// Per link, per primitive (as in `links`), bounds on the points deep in it: a ball
    /// holding it, and the largest depth any point can have in it.
    bounds: Vec<Vec<Reach>>,
    /// Per link, per primitive (as in `links`), points whose hull, grown by the radius,
    /// holds it: the points that show two primitives apart ([`apart`]).
    corners: Vec<Vec<Corners>>,
    truth: Option<&'t MeshTruth>,
    /// Per link, some of its mesh vertices (link frame; empty without a truth).
    surface: Vec<Vec<V3>>,
}

/// Mesh vertices kept per link with an open component (no ball fits inside it): enough to
/// find one deep inside another part, few enough to scan at every box of a search.
const SURFACE_POINTS: usize = 256;
/// Per link whose mesh is all closed: its balls do most of the work, its vertices serve
/// thin parts.
const SURFACE_POINTS_CLOSED: usize = 32;

/// Where a primitive's deep points can be: within `radius` of `centre` (link frame), and
/// at most `depth` deep.
#[derive(Debug, Clone, Copy)]
struct Reach {
    centre: V3,
    radius: f64,
    depth: f64,
}

fn least(v: V3) -> f64 {
    v[0].min(v[1]).min(v[2])
}

/// Added to each primitive's bounds: a hull's facet planes may lie a rounding error
/// outside its vertices.
const BOUND_SLACK_M: f64 = 1e-6;

/// A primitive ready for depth queries; `None` for a hull that cannot be rebuilt.
fn solid(prim: &Primitive, hull: &[V3]) -> Option<Solid> {
    match prim {
        Primitive::Capsule { a, b, radius } => Some(Solid::capsule(*a, *b, *radius)),
        Primitive::Box(bx) => Some(Solid::cuboid(bx.center, bx.rotation, bx.half_extents)),
        Primitive::Tight(t) => Solid::hull(&hull[t.hull_offset..t.hull_offset + t.hull_len]).ok(),
    }
}

/// Where a primitive's deep points can be (see [`Reach`]).
fn reach(prim: &Primitive, hull: &[V3]) -> Reach {
    match prim {
        Primitive::Capsule { a, b, radius } => Reach {
            centre: scale(add(*a, *b), 0.5),
            radius: 0.5 * norm(sub(*b, *a)) + radius + BOUND_SLACK_M,
            depth: radius + BOUND_SLACK_M,
        },
        Primitive::Box(bx) => Reach {
            centre: bx.center,
            radius: norm(bx.half_extents) + BOUND_SLACK_M,
            depth: least(bx.half_extents) + BOUND_SLACK_M,
        },
        // The hull lies in its box (the kernel bounds it by the box).
        Primitive::Tight(t) => {
            let pts = &hull[t.hull_offset..t.hull_offset + t.hull_len];
            let sum = pts.iter().fold([0.0; 3], |s, p| add(s, *p));
            let centre = scale(sum, 1.0 / pts.len().max(1) as f64);
            let r = pts
                .iter()
                .map(|p| norm(sub(*p, centre)))
                .fold(0.0, f64::max);
            Reach {
                centre,
                radius: r + BOUND_SLACK_M,
                depth: least(t.bx.half_extents) + BOUND_SLACK_M,
            }
        }
    }
}

/// Points (link frame) whose hull grown by `radius` holds a primitive: a capsule's ends and
/// radius, a box's corners, a hull's vertices.
#[derive(Debug, Clone)]
struct Corners {
    points: Vec<V3>,
    radius: f64,
}

fn corners(prim: &Primitive, hull: &[V3]) -> Corners {
    match prim {
        Primitive::Capsule { a, b, radius } => Corners {
            points: vec![*a, *b],
            radius: *radius,
        },
        Primitive::Box(bx) => Corners {
            points: (0..8)
                .map(|k| {
                    let h = bx.half_extents;
                    let s = |i: usize| if k >> i & 1 == 0 { -h[i] } else { h[i] };
                    add(bx.center, mul_mv(&bx.rotation, [s(0), s(1), s(2)]))
                })
                .collect(),
            radius: 0.0,
        },
        Primitive::Tight(t) => Corners {
            points: hull[t.hull_offset..t.hull_offset + t.hull_len].to_vec(),
            radius: 0.0,
        },
    }
}

/// Primitives this far apart hold no point at a positive depth in both, whatever the
/// rounding of the depths (about 1e-15 m).
const APART_M: f64 = 1e-9;

/// Are primitives `pa` (of a link posed at `pose_a`, its corners `ca`) and `pb` certainly
/// apart: does a face plane of one have every corner of the other beyond it, by more than
/// the corners' radius and [`APART_M`]? Then no point is inside both, and the common-ball
/// search on the pair could find nothing. A pair apart only across an edge, or with two
/// capsules, is not shown apart (the search then runs as before).
fn apart(
    (pa, ca, pose_a): (&Option<Solid>, &Corners, &(Mat3, V3)),
    (pb, cb, pose_b): (&Option<Solid>, &Corners, &(Mat3, V3)),
) -> bool {
    // Plane `n . x <= off` of `solid` (frame `from`) against `other`'s corners (frame `to`).
    let beyond = |solid: &Option<Solid>, from: &(Mat3, V3), other: &Corners, to: &(Mat3, V3)| {
        let Some(planes) = solid.as_ref().and_then(Solid::planes) else {
            return false;
        };
        planes.iter().any(|&(n, off)| {
            // The plane in `to`'s frame: n' . y <= off'.
            let world_n = mul_mv(&from.0, n);
            let world_off = off + dot(world_n, from.1);
            let local_n = mul_mtv(&to.0, world_n);
            let local_off = world_off - dot(world_n, to.1);
            let clear = local_off + other.radius + APART_M;
            !other.points.is_empty() && other.points.iter().all(|&p| dot(local_n, p) > clear)
        })
    };
    beyond(pa, pose_a, cb, pose_b) || beyond(pb, pose_b, ca, pose_a)
}

/// Signed depth of a link-frame point in a primitive; `None` is a hull that cannot be
/// rebuilt, which certifies nothing.
pub(crate) fn probe_depth(prim: &Option<Solid>, local: V3) -> f64 {
    prim.as_ref().map_or(f64::NEG_INFINITY, |s| s.depth(local))
}

impl<'t> DepthProbe<'t> {
    /// Depths in the primitives alone.
    pub fn new(model: &Model) -> DepthProbe<'t> {
        let hull = model.hull_vertices();
        let (links, bounds): (Vec<Vec<_>>, Vec<Vec<_>>) = model
            .links()
            .iter()
            .map(|l| {
                l.primitives
                    .iter()
                    .map(|prim| (solid(prim, hull), reach(prim, hull)))
                    .unzip()
            })
            .unzip();
        let corners = model
            .links()
            .iter()
            .map(|l| l.primitives.iter().map(|p| corners(p, hull)).collect())
            .collect();
        DepthProbe {
            links,
            bounds,
            corners,
            truth: None,
            surface: Vec::new(),
        }
    }

    /// Depths in the primitives and in the meshes of `truth` (indexed like the model's
    /// links), the lesser: a point counts only as deep as it lies in the real part. Where
    /// a link's mesh has an open component (no inside to speak of), its closed components
    /// or, failing those, the hulls of its pieces stand for it: its tight primitives' exact
    /// hulls (a link fitted otherwise has none, and its open parts certify nothing).
    pub fn with_truth(model: &Model, truth: &'t MeshTruth) -> DepthProbe<'t> {
        let surface = (0..model.n_links())
            .map(|l| {
                let max = if truth.has_open_component(l) {
                    SURFACE_POINTS
                } else {
                    SURFACE_POINTS_CLOSED
                };
                truth.surface_points(l, max)
            })
            .collect();
        DepthProbe {
            truth: Some(truth),
            surface,
            ..DepthProbe::new(model)
        }
    }

    /// Signed depth of world point `p` inside link `link` (see [`DepthProbe::with_truth`]).
    pub fn depth(&self, ws: &Workspace, link: usize, p: V3) -> f64 {
        self.depth_above(ws, link, p, f64::NEG_INFINITY)
    }

    /// [`DepthProbe::depth`] when it exceeds `floor`, else some value `<= floor`: the mesh
    /// is not asked about a point its primitives already put too shallow.
    pub fn depth_above(&self, ws: &Workspace, link: usize, p: V3, floor: f64) -> f64 {
        let (rot, pos) = ws.link_pose(link);
        let local = mul_mtv(&rot, sub(p, pos));
        let in_primitives = self.links[link]
            .iter()
            .map(|prim| probe_depth(prim, local))
            .fold(f64::NEG_INFINITY, f64::max);
        if in_primitives <= floor {
            return in_primitives;
        }
        in_primitives.min(self.truth_depth(link, local))
    }

    /// Some of link `link`'s mesh vertices (link frame).
    pub(crate) fn surface(&self, link: usize) -> &[V3] {
        self.surface.get(link).map_or(&[], |s| s.as_slice())
    }

    /// Signed depth of a link-frame point in the link's truth; `+inf` without a truth.
    pub(crate) fn truth_depth(&self, link: usize, local: V3) -> f64 {
        let Some(truth) = self.truth else {
            return f64::INFINITY;
        };
        let solid = truth.solid_depth(link, local);
        if !truth.has_open_component(link) {
            return solid;
        }
        // The hull of a whole mesh is no stand-in: it made the PR2's shoulder-lift
        // `always` inside the torso's open mesh, which it never touches.
        self.links[link]
            .iter()
            .filter(|p| matches!(p, Some(Solid::Hull(_))))
            .map(|prim| probe_depth(prim, local))
            .fold(solid, f64::max)
    }

    pub(crate) fn primitives(&self, link: usize) -> &[Option<Solid>] {
        &self.links[link]
    }
}

/// Nearest point of the primitive shrunk by `shrink`, in its link frame.
fn project(prim: &Option<Solid>, p: V3, shrink: f64) -> V3 {
    prim.as_ref().map_or(p, |s| s.project_shrunk(p, shrink))
}

fn to_local((rot, pos): &(Mat3, V3), p: V3) -> V3 {
    mul_mtv(rot, sub(p, *pos))
}

fn to_world((rot, pos): &(Mat3, V3), p: V3) -> V3 {
    add(*pos, mul_mv(rot, p))
}

/// The deepest shared point of links `a` and `b` at the pose in `ws`, and its depth (> 0),
/// if they overlap: a common ball's centre and radius ([`common_ball`]), or a vertex of one
/// link's mesh and its depth inside the other ([`surface_point`]), the deeper.
pub fn common_point(probe: &DepthProbe, ws: &Workspace, a: usize, b: usize) -> Option<(V3, f64)> {
    let ball = common_ball(probe, ws, a, b);
    // A vertex is kept only when deeper than the ball.
    surface_point(probe, ws, (a, b), |_| 0.0, ball.map_or(0.0, |(_, d)| d)).or(ball)
}

/// The mesh vertex of `a` or `b` (from [`DepthProbe::surface`]) deepest inside the other
/// link at the pose in `ws`, less `motion(point)`, if that exceeds `floor`. The point is a
/// vertex of the part, fixed in its link, so a positive value is a point both parts share.
pub fn surface_point(
    probe: &DepthProbe,
    ws: &Workspace,
    (a, b): (usize, usize),
    motion: impl Fn(V3) -> f64,
    floor: f64,
) -> Option<(V3, f64)> {
    let mut best: Option<(V3, f64)> = None;
    for (on, inside) in [(a, b), (b, a)] {
        let pose = ws.link_pose(on);
        for &v in probe.surface(on) {
            let p = to_world(&pose, v);
            let at_least = best.map_or(floor, |(_, d)| d);
            let depth = probe.depth_above(ws, inside, p, at_least);
            if depth <= at_least {
                continue;
            }
            let room = depth - motion(p);
            if room > at_least {
                best = Some((p, room));
            }
        }
    }
    best
}

/// The deepest certified common ball of links `a` and `b` at the pose in `ws`: its centre
/// and radius (> 0), if their primitives overlap.
pub fn common_ball(probe: &DepthProbe, ws: &Workspace, a: usize, b: usize) -> Option<(V3, f64)> {
    let pose_a = ws.link_pose(a);
    let pose_b = ws.link_pose(b);
    let mut best: Option<(V3, f64)> = None;
    for ((pa, ra), corners_a) in probe
        .primitives(a)
        .iter()
        .zip(&probe.bounds[a])
        .zip(&probe.corners[a])
    {
        let ca = to_world(&pose_a, ra.centre);
        for ((pb, rb), corners_b) in probe
            .primitives(b)
            .iter()
            .zip(&probe.bounds[b])
            .zip(&probe.corners[b])
        {
            // A point `d` deep in both lies within `radius - d` of each centre: primitives
            // this far apart, or this thin, hold no common point deeper than `best`, and
            // the search below could not change it.
            let gap = norm(sub(to_world(&pose_b, rb.centre), ca));
            let deepest = (0.5 * (ra.radius + rb.radius - gap))
                .min(ra.depth)
                .min(rb.depth);
            if deepest <= best.map_or(0.0, |(_, d)| d)
                || apart((pa, corners_a, &pose_a), (pb, corners_b, &pose_b))
            {
                continue;
            }
            for shrink in [
                0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001, 0.0005, 0.0002, 0.0001, 0.00005,
                0.00001,
            ] {
                if best.is_some_and(|(_, d)| d >= shrink) {
                    break;
                }
                let mut x = to_world(&pose_a, [0.0; 3]);
                for _ in 0..400 {
                    let xa = to_world(&pose_a, project(pa, to_local(&pose_a, x), shrink));
                    let xb = to_world(&pose_b, project(pb, to_local(&pose_b, xa), shrink));
                    let step = norm(sub(xb, x));
                    x = xb;
                    if step < 1e-12 {
                        break;
                    }
                }
                let (la, lb) = (to_local(&pose_a, x), to_local(&pose_b, x));
                let depth = probe_depth(pa, la)
                    .min(probe_depth(pb, lb))
                    .min(probe.truth_depth(a, la))
                    .min(probe.truth_depth(b, lb));
                if depth > 0.0 && best.is_none_or(|(_, d)| depth > d) {
                    best = Some((x, depth));
                }
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::model::BoxShape;
    use crate::kernel::vec3::{rot_axis_angle, rot_from_rpy};
    use rand_core::Rng;

    fn prepared(prim: Primitive) -> (Option<Solid>, Corners) {
        (solid(&prim, &[]), corners(&prim, &[]))
    }

    /// `apart` never calls overlapping primitives apart (a point sampled deep in both
    /// refutes it), and it does show apart most pairs that are: boxes and capsules turned and
    /// moved about each other.
    #[test]
    fn primitives_shown_apart_share_no_point() {
        let mut rng = rand_pcg::Pcg64::new(3, 5);
        let mut unit = || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let shapes = [
            Primitive::Box(BoxShape::from_rpy(
                [0.0; 3],
                [0.3, 0.1, 0.0],
                [0.05, 0.03, 0.02],
            )),
            Primitive::Capsule {
                a: [-0.04, 0.0, 0.0],
                b: [0.04, 0.01, 0.0],
                radius: 0.02,
            },
        ];
        let (mut shown, mut overlapping) = (0, 0);
        for i in 0..400 {
            let (pa, ca) = prepared(shapes[i % 2]);
            let (pb, cb) = prepared(shapes[(i / 2) % 2]);
            let axis = [unit() - 0.5, unit() - 0.5, unit() - 0.5];
            let rot = rot_axis_angle(scale(axis, 1.0 / norm(axis)), 6.3 * unit());
            let pos = [
                0.3 * unit() - 0.15,
                0.2 * unit() - 0.1,
                0.12 * unit() - 0.06,
            ];
            let id = (rot_from_rpy([0.0; 3]), [0.0; 3]);
            let is_apart = apart((&pa, &ca, &id), (&pb, &cb, &(rot, pos)));
            let inside_both = (0..4000).any(|_| {
                let p = [0.2 * unit() - 0.1, 0.2 * unit() - 0.1, 0.2 * unit() - 0.1];
                let local_b = mul_mtv(&rot, sub(p, pos));
                probe_depth(&pa, p) > 0.0 && probe_depth(&pb, local_b) > 0.0
            });
            assert!(
                !(is_apart && inside_both),
                "placement {i}: shown apart, yet overlapping"
            );
            shown += is_apart as usize;
            overlapping += inside_both as usize;
        }
        assert!(
            shown > 60 && overlapping > 60,
            "{shown} shown apart, {overlapping} overlapping"
        );
    }

    #[test]
    fn two_boxes_a_millimetre_apart_are_apart_and_touching_ones_are_not() {
        let bx = |x: f64| {
            prepared(Primitive::Box(BoxShape::from_rpy(
                [x, 0.0, 0.0],
                [0.0; 3],
                [0.05; 3],
            )))
        };
        let id = (rot_from_rpy([0.0; 3]), [0.0; 3]);
        let (pa, ca) = bx(0.0);
        for (x, want) in [(0.101, true), (0.1, false), (0.099, false)] {
            let (pb, cb) = bx(x);
            assert_eq!(apart((&pa, &ca, &id), (&pb, &cb, &id)), want, "x = {x}");
        }
    }
}
