//! "Never" on the real meshes: a branch and bound over the joint intervals between two
//! links whose meshes never meet although every convex geometry of them does (a gripper
//! palm turning 0.3 mm from its forearm's clevis, fingers nested in a hand).
//!
//! A box of joint intervals is cleared when, at its centre, the surfaces are apart by more
//! than the margin plus, for every part of the second link, how far that part can move
//! against the first inside the box. The bound is per part (a BVH node or a triangle of the
//! second mesh, by its distance from each joint axis), so the parts near the axes, where
//! such gaps are, clear wide boxes. With the surfaces apart over the whole (connected)
//! joint range, whether one mesh holds a vertex of the other cannot change, so it is
//! checked once. The bound depends on the meshes and the joints alone, not on the
//! primitives: the refinement and `acm regenerate` reach the same verdict.

use super::chain::PairChain;
use crate::kernel::vec3::{Iso, V3, add, cross, mul_mv, norm, sub};
use crate::kernel::{Model, Workspace};
use crate::truth::mesh::MeshTruth;

/// Boxes one pair may use.
pub const MESH_NEVER_BOXES: usize = 65_536;
/// Node and triangle pairs the proof may examine over all its boxes: what bounds its time
/// on dense meshes (a box there can cost milliseconds: UR10's shoulder/wrist_1 ran 366 s
/// on boxes alone), counted so the outcome does not depend on the machine. PR2's
/// forearm/gripper_palm proof needs 62 million (1.4 s).
pub const MESH_NEVER_WORK: u64 = 100_000_000;
/// Pairs with more joints between them than this are not tried (the boxes a proof needs
/// grow with the power of the joints).
pub const MESH_NEVER_MAX_DOFS: usize = 3;
/// A box that moves the mesh less than this (at its bounding sphere) and still cannot be
/// cleared ends the search: the meshes come within micrometres of each other there, a gap
/// no proof is worth spending the budget on.
const FINEST_M: f64 = 2e-5;

#[derive(Debug, Clone, PartialEq)]
pub enum MeshOutcome {
    /// Every box cleared.
    Never { boxes: usize },
    /// The meshes touch (within the margin) at `q` (the pair's dofs, in the chain's order).
    Touches { q: Vec<f64> },
    /// The budget ran out, or a link has no mesh.
    Unproven { boxes: usize },
}

/// One joint between the links, in the order a point of the second link is carried by
/// them seen from the first: the first link's joints upwards, then the second's downwards.
struct Axis {
    slot: usize,
    mult: f64,
    prismatic: bool,
    /// Axis point and unit direction in the second link's frame, at the box centre.
    point: V3,
    dir: V3,
}

/// How far a point within `r` of `c` (second link's frame) can move against the first link
/// inside the box of half widths `half`: per joint, the half width times the point's largest
/// distance from its axis over the box (at the centre plus what the joints after it add).
fn room(axes: &[Axis], half: &[f64], c: V3, r: f64) -> f64 {
    let mut after = 0.0;
    for ax in axes.iter().rev() {
        let h = ax.mult * half[ax.slot];
        if h == 0.0 {
            continue;
        }
        after += if ax.prismatic {
            h
        } else {
            h * (norm(cross(sub(c, ax.point), ax.dir)) + r + after)
        };
    }
    after
}

/// [`room`] for the joints between `a` and `b` posed in `ws`: how far a point within `r` of
/// `p` (`b`'s frame) can move against `a` inside the box of half widths `half` (per dof of
/// `chain`) around that configuration. The bound every cleared box rests on.
pub fn room_in_box(
    model: &Model,
    ws: &Workspace,
    chain: &PairChain,
    (a, b): (usize, usize),
    half: &[f64],
    p: V3,
    r: f64,
) -> f64 {
    room(&axes(model, ws, chain, a, b), half, p, r)
}

fn iso(ws: &Workspace, link: usize) -> Iso {
    let (rot, pos) = ws.link_pose(link);
    Iso { rot, pos }
}

/// World point or direction to `frame`'s coordinates.
fn to_frame(frame: &Iso, p: V3, direction: bool) -> V3 {
    let d = if direction { p } else { sub(p, frame.pos) };
    [0, 1, 2].map(|i| (0..3).map(|k| frame.rot[k][i] * d[k]).sum())
}

/// The joints between `a` and `b` at the configuration posed in `ws`, in `b`'s frame.
fn axes(model: &Model, ws: &Workspace, chain: &PairChain, a: usize, b: usize) -> Vec<Axis> {
    let frame = iso(ws, b);
    let from_a = chain.steps.iter().filter(|s| s.target == a);
    let to_b = chain.steps.iter().filter(|s| s.target == b).rev();
    from_a
        .chain(to_b)
        .map(|s| {
            let (rot, pos) = ws.link_pose(s.link);
            let j = &model.links()[s.link].joint;
            let world_point = add(pos, mul_mv(&rot, j.pivot));
            Axis {
                slot: s.slot,
                mult: s.mult,
                prismatic: s.prismatic,
                point: to_frame(&frame, world_point, false),
                dir: to_frame(&frame, mul_mv(&rot, j.axis), true),
            }
        })
        .collect()
}

/// Runs the branch and bound for links `a`, `b` on `truth` (kernel link order) with at most
/// `budget` boxes. `base` holds the dofs that do not move the pair. Boxes are split along
/// the dof that moves `b`'s mesh most at the first box's centre (weight × width): from the
/// meshes, never from the primitives.
pub fn mesh_branch_and_bound(
    model: &Model,
    ws: &mut Workspace,
    truth: &MeshTruth,
    (a, b): (usize, usize),
    chain: &PairChain,
    base: &[f64],
    budget: usize,
) -> MeshOutcome {
    let n = chain.dofs.len();
    let Some((centre_b, radius_b)) = truth.sphere(b) else {
        return MeshOutcome::Unproven { boxes: 0 };
    };
    if n == 0 || truth.sphere(a).is_none() {
        return MeshOutcome::Unproven { boxes: 0 };
    }
    let mut q = base.to_vec();
    let pose_at = |q: &mut Vec<f64>, ws: &mut Workspace, lo: &[f64], hi: &[f64]| {
        for i in 0..n {
            q[chain.dofs[i]] = 0.5 * (lo[i] + hi[i]);
        }
        model.fk_partial(q, ws, &chain.posed_links, &[]);
    };
    let (lo, hi): (Vec<f64>, Vec<f64>) = chain.dofs.iter().map(|&d| model.dof_range(d)).unzip();
    pose_at(&mut q, ws, &lo, &hi);
    let dofs_at = |q: &[f64]| chain.dofs.iter().map(|&d| q[d]).collect::<Vec<f64>>();
    if truth.nested(a, &iso(ws, a), b, &iso(ws, b)) {
        return MeshOutcome::Touches { q: dofs_at(&q) };
    }
    // Per dof, metres of motion of `b`'s mesh per unit, at the first box's centre.
    let mut weights = vec![0.0; n];
    for ax in axes(model, ws, chain, a, b) {
        let reach = if ax.prismatic {
            1.0
        } else {
            norm(cross(sub(centre_b, ax.point), ax.dir)) + radius_b
        };
        weights[ax.slot] += ax.mult * reach;
    }
    // Depth first: a pair whose meshes all but touch somewhere is given up on where the
    // gap is, after a few dozen boxes, not after the whole budget.
    let mut stack = vec![(lo, hi)];
    let mut boxes = 0;
    let mut work = 0;
    while let Some((lo, hi)) = stack.pop() {
        if boxes >= budget {
            return MeshOutcome::Unproven { boxes };
        }
        boxes += 1;
        pose_at(&mut q, ws, &lo, &hi);
        let half: Vec<f64> = (0..n).map(|i| 0.5 * (hi[i] - lo[i])).collect();
        let here = axes(model, ws, chain, a, b);
        let (pa, pb) = (iso(ws, a), iso(ws, b));
        let room_here = |c, r| room(&here, &half, c, r);
        match truth.apart_beyond(a, &pa, b, &pb, room_here, &mut work, MESH_NEVER_WORK) {
            None => return MeshOutcome::Unproven { boxes },
            Some(true) => continue,
            Some(false) => {}
        }
        if truth.touching(a, &pa, b, &pb) {
            return MeshOutcome::Touches { q: dofs_at(&q) };
        }
        let most: f64 = (0..n).map(|i| weights[i] * half[i]).sum();
        if most < FINEST_M {
            return MeshOutcome::Unproven { boxes };
        }
        let at = (0..n)
            .max_by(|&i, &j| {
                (weights[i] * (hi[i] - lo[i]))
                    .total_cmp(&(weights[j] * (hi[j] - lo[j])))
                    .then(j.cmp(&i))
            })
            .expect("a dof");
        stack.extend(PairChain::halve(lo, hi, at).into_iter().rev());
    }
    MeshOutcome::Never { boxes }
}

/// Seeded poses (and their seed) where the meshes must be apart before a proof is tried:
/// most pairs whose primitives meet somewhere have meshes that do too, found here cheaply.
const SCREEN_POSES: u64 = 32;
const SCREEN_SEED: u64 = 11;

/// Whether the meshes of `a` and `b` stay beyond the margin at every configuration inside
/// the joint limits: the boxes of the proof, or `None` when it is not tried (too many joints
/// between the links, the meshes touching at `first` or at a screening pose) or fails.
/// `base`: the values of the dofs that do not move the pair; `ws` is reposed.
pub fn meshes_never_meet(
    model: &Model,
    ws: &mut Workspace,
    truth: &MeshTruth,
    (a, b): (usize, usize),
    base: &[f64],
    first: Option<&[f64]>,
) -> Option<usize> {
    let chain = PairChain::new(model, a, b);
    if chain.dofs.is_empty() || chain.dofs.len() > MESH_NEVER_MAX_DOFS {
        return None;
    }
    let mut q = base.to_vec();
    let screen = first
        .map(<[f64]>::to_vec)
        .into_iter()
        .chain((0..=SCREEN_POSES).map(|i| {
            if i > 0 {
                crate::truth::poses::uniform_q(model, SCREEN_SEED, i, &mut q);
            }
            q.clone()
        }));
    for pose in screen {
        model.fk_partial(&pose, ws, &chain.posed_links, &[]);
        if truth.touching(a, &iso(ws, a), b, &iso(ws, b)) {
            return None;
        }
    }
    match mesh_branch_and_bound(model, ws, truth, (a, b), &chain, base, MESH_NEVER_BOXES) {
        MeshOutcome::Never { boxes } => Some(boxes),
        _ => None,
    }
}
