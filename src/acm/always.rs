//! "Always", two ways:
//!
//! * a fixed point: a point that no joint between the two links can move relative to either
//!   link (on every joint axis between them), lying inside both links' primitives with room
//!   to spare. Then the pair overlaps by at least that room at every configuration.
//! * a box search, for links whose joints turn about distinct axes (a knee and an ankle-roll
//!   link through a small ankle-pitch link, a finger inside a hand's safety box): the joint
//!   intervals between the two links are split into boxes; at each box centre a point `p`
//!   of one link (inside it, or a vertex of its mesh) lies at depth `r` in the other
//!   (depths evaluated exactly), and two points at `p`, one fixed in each link, come less
//!   than `r` apart anywhere in the box ([`PairChain::point_motion_bound`]). The ball of
//!   radius `r` fixed in the second link stays inside it, and the point fixed in the first
//!   (a point of the first link) stays inside that ball, so the links share a point at every
//!   configuration of the box. A mesh vertex serves where no ball fits: an open mesh (a
//!   finger shell) bounds no solid. A box whose centre has no such point ends the search
//!   ([`BoxFailure`] says where, for the report).

use super::chain::PairChain;
use super::witness::{common_ball, surface_point};
use crate::geom::point::Solid;
use crate::kernel::model::{JointKind, Model};
use crate::kernel::vec3::{V3, add, cross, mul_mv, norm, scale, sub};
use crate::kernel::{Workspace, vec3::Mat3};
use std::collections::VecDeque;

/// A certificate: the fixed point (world frame at the evaluated pose) and the common ball radius.
#[derive(Debug, Clone, PartialEq)]
pub struct Certificate {
    pub radius: f64,
    /// Name of the joint whose axis holds the point (the first on the path).
    pub joint: String,
    /// How many joint axes meet at the point.
    pub axes: usize,
}

/// The depth probe lives with the witness search, which both modules use.
pub use super::witness::DepthProbe;

/// World-frame axis line (point, unit direction) of link `k`'s joint at the pose in `ws`.
fn axis_line(model: &Model, ws: &Workspace, k: usize) -> (V3, V3) {
    let (rot, pos) = ws.link_pose(k);
    let j = &model.links()[k].joint;
    (add(pos, mul_mv(&rot, j.pivot)), mul_mv(&rot, j.axis))
}

/// Looks for a certificate for links `a`, `b` whose path joints are `path_joints`,
/// with `ws` posed at any configuration (the certificate holds at all of them).
pub fn certify(
    model: &Model,
    probe: &DepthProbe,
    ws: &Workspace,
    a: usize,
    b: usize,
    path_joints: &[usize],
) -> Option<Certificate> {
    if path_joints.is_empty()
        || path_joints.iter().any(|&k| {
            !matches!(
                model.links()[k].joint.kind,
                JointKind::Revolute | JointKind::Continuous
            )
        })
    {
        return None;
    }
    let lines: Vec<(V3, V3)> = path_joints
        .iter()
        .map(|&k| axis_line(model, ws, k))
        .collect();
    let joint = model.links()[path_joints[0]].joint.name.clone();
    let score = |p: V3| probe.depth(ws, a, p).min(probe.depth(ws, b, p));
    // Axes that are the same line (a joint chain turning about one axis) count once.
    let mut distinct: Vec<(V3, V3)> = Vec::new();
    for &(o, d) in &lines {
        let same = |&(o2, d2): &(V3, V3)| {
            norm(cross(d, d2)) < 1e-12 && norm(cross(sub(o, o2), d2)) < 1e-12
        };
        if !distinct.iter().any(same) {
            distinct.push((o, d));
        }
    }
    let best = if distinct.len() == 1 {
        // Any point on the one axis: search along it for the deepest common point.
        best_on_line(distinct[0], &score)
    } else {
        let p = nearest_point_to_lines(&distinct)?;
        // The point must lie on every axis (to rounding), else the joints move it.
        if distinct
            .iter()
            .any(|&(o, d)| norm(cross(sub(p, o), d)) > 1e-9)
        {
            return None;
        }
        score(p)
    };
    if best > 0.0 {
        Some(Certificate {
            radius: best,
            joint,
            axes: distinct.len(),
        })
    } else {
        None
    }
}

/// The point that minimises the summed squared distance to the lines, if they are not all parallel.
fn nearest_point_to_lines(lines: &[(V3, V3)]) -> Option<V3> {
    let mut m: Mat3 = [[0.0; 3]; 3];
    let mut rhs = [0.0; 3];
    for &(o, d) in lines {
        // (I - d d^T) p = (I - d d^T) o
        for i in 0..3 {
            for j in 0..3 {
                let pij = if i == j { 1.0 } else { 0.0 } - d[i] * d[j];
                m[i][j] += pij;
                rhs[i] += pij * o[j];
            }
        }
    }
    let det = crate::kernel::vec3::det(&m);
    if det.abs() < 1e-12 {
        return None;
    }
    // Cramer's rule.
    let mut p = [0.0; 3];
    for (c, pc) in p.iter_mut().enumerate() {
        let mut mc = m;
        for r in 0..3 {
            mc[r][c] = rhs[r];
        }
        *pc = crate::kernel::vec3::det(&mc) / det;
    }
    Some(p)
}

/// Golden-section search over a coarse scan along the line, for the deepest common point.
fn best_on_line((o, d): (V3, V3), score: &dyn Fn(V3) -> f64) -> f64 {
    let at = |t: f64| add(o, scale(d, t));
    let span = 2.0;
    let steps = 400;
    let mut best = (f64::NEG_INFINITY, 0.0);
    for i in 0..=steps {
        let t = -span + 2.0 * span * i as f64 / steps as f64;
        let s = score(at(t));
        if s > best.0 {
            best = (s, t);
        }
    }
    let h = 2.0 * span / steps as f64;
    let (mut lo, mut hi) = (best.1 - h, best.1 + h);
    let g = 0.618_033_988_749_895;
    for _ in 0..60 {
        let m1 = hi - g * (hi - lo);
        let m2 = lo + g * (hi - lo);
        if score(at(m1)) < score(at(m2)) {
            lo = m1;
        } else {
            hi = m2;
        }
    }
    best.0.max(score(at(0.5 * (lo + hi))))
}

/// The pattern search's directions: the six axes and the eight diagonals, unit length, in
/// `x`, `y`, `z` order from −1 to 1 (ties go to the last, so the order is part of the result).
const PATTERN: [V3; 14] = {
    const D: f64 = 0.577_350_269_189_625_8; // 1/√3, as 1.0 / 3f64.sqrt() rounds
    [
        [-D, -D, -D],
        [-D, -D, D],
        [-1.0, 0.0, 0.0],
        [-D, D, -D],
        [-D, D, D],
        [0.0, -1.0, 0.0],
        [0.0, 0.0, -1.0],
        [0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0],
        [D, -D, -D],
        [D, -D, D],
        [1.0, 0.0, 0.0],
        [D, D, -D],
        [D, D, D],
    ]
};

/// The point with the most room found at the pose in `ws`, and that room: the depth of a
/// point of one link inside the other (the larger of the two ways round, each counted only
/// where the point lies in the first link) minus `motion(p)`, evaluated exactly at the
/// point. A pattern search from `start` (the deepest common point) over [`PATTERN`], the
/// step halved from 10 mm to 0.1 mm: a point of a small link deep inside a big one, or a
/// point near the joint axes where the motion bound is small, certifies a bigger box. Any
/// point will do for the proof (the room is evaluated, not estimated); the search only makes
/// it larger.
fn most_room(
    probe: &DepthProbe,
    ws: &Workspace,
    (a, b): (usize, usize),
    start: V3,
    motion: impl Fn(V3) -> f64,
) -> (V3, f64) {
    let room = |p: V3| {
        let (in_a, in_b) = (probe.depth(ws, a, p), probe.depth(ws, b, p));
        let a_point_in_b = if in_a >= 0.0 { in_b } else { f64::NEG_INFINITY };
        let b_point_in_a = if in_b >= 0.0 { in_a } else { f64::NEG_INFINITY };
        a_point_in_b.max(b_point_in_a) - motion(p)
    };
    let (mut p, mut best) = (start, room(start));
    let mut step = 0.01;
    while step >= 1e-4 {
        let (q, r) = PATTERN
            .iter()
            .map(|&d| add(p, scale(d, step)))
            .map(|q| (q, room(q)))
            .max_by(|x, y| x.1.total_cmp(&y.1))
            .expect("14 directions");
        if r > best {
            (p, best) = (q, r);
        } else {
            step *= 0.5;
        }
    }
    (p, best)
}

/// Work the box search may spend on one pair, in depth-probe units (a capsule or a box
/// costs one per point, a hull one per face plane): a pair of capsules and boxes gets
/// [`MAX_BOXES`] boxes, a pair with a hull of a few hundred faces [`MIN_BOXES`]. A pair that
/// comes apart is refused within a few boxes whatever the budget; the budget bounds the
/// pairs that overlap everywhere but need fine boxes, and the ones the search cannot decide.
const BOX_WORK: usize = 4 * MAX_BOXES;
const MAX_BOXES: usize = 32_768;
const MIN_BOXES: usize = 1_024;

/// The most boxes the search may use for links `a` and `b` (see `BOX_WORK`).
pub fn box_budget(probe: &DepthProbe, a: usize, b: usize) -> usize {
    let cost: usize = [a, b]
        .iter()
        .flat_map(|&l| probe.primitives(l))
        .map(|p| match p {
            Some(Solid::Hull(h)) => h.planes.len().max(1),
            _ => 1,
        })
        .sum();
    (BOX_WORK / cost.max(1)).clamp(MIN_BOXES, MAX_BOXES)
}

/// A box-search certificate: how many boxes, and the least room left over any box (the
/// depth of the shared point at its centre minus the motion bound): at every configuration
/// a point of one link lies at least this deep inside the other.
#[derive(Debug, Clone, PartialEq)]
pub struct BoxCertificate {
    pub boxes: usize,
    pub min_room: f64,
}

/// Why a box search did not certify a pair.
#[derive(Debug, Clone, PartialEq)]
pub enum BoxFailure {
    /// At the centre `q` (the chain's dofs, in order) of box number `boxes`, no shared point
    /// was found: the links may come apart there.
    Apart { boxes: usize, q: Vec<f64> },
    /// The budget of `boxes` boxes ran out; `lo`..`hi` is the coarsest box still open and
    /// `room` its best room (negative: its shared point may leave the other link).
    Budget {
        boxes: usize,
        lo: Vec<f64>,
        hi: Vec<f64>,
        room: f64,
    },
}

/// The box search (see the module docs) for links `a`, `b` over the dofs in `chain`, the
/// other dofs at `base`; at most `budget` boxes. Fails at the first box centre without a
/// shared point (the links may come apart), or when the budget runs out. Boxes are visited
/// breadth first, so the joint space is sampled coarse to fine and a pair that does come
/// apart is usually refused within a few boxes.
///
/// `apart_at_root`: the caller knows the two links' primitives to be apart at the first box's
/// centre (the branch and bound's first box, posed the same way, cleared the margin there).
/// No point then lies inside both, so the search would fail there: it does so at once.
#[allow(clippy::too_many_arguments)]
pub fn certify_by_boxes(
    model: &Model,
    probe: &DepthProbe,
    ws: &mut Workspace,
    (a, b): (usize, usize),
    chain: &PairChain,
    base: &[f64],
    budget: usize,
    apart_at_root: bool,
) -> Result<BoxCertificate, BoxFailure> {
    let n = chain.dofs.len();
    let mut q = base.to_vec();
    let root: (Vec<f64>, Vec<f64>) = chain.dofs.iter().map(|&d| model.dof_range(d)).unzip();
    if n == 0 {
        return Err(BoxFailure::Apart {
            boxes: 0,
            q: Vec::new(),
        });
    }
    // Open boxes, each with the room its parent had (the coarsest first).
    let mut queue = VecDeque::from([(root, f64::NEG_INFINITY)]);
    let mut boxes = 0;
    let mut min_room = f64::INFINITY;
    while let Some(((lo, hi), parent_room)) = queue.pop_front() {
        if boxes >= budget {
            return Err(BoxFailure::Budget {
                boxes,
                lo,
                hi,
                room: parent_room,
            });
        }
        boxes += 1;
        for i in 0..n {
            q[chain.dofs[i]] = 0.5 * (lo[i] + hi[i]);
        }
        if boxes == 1 && apart_at_root {
            let q = chain.dofs.iter().map(|&d| q[d]).collect();
            return Err(BoxFailure::Apart { boxes, q });
        }
        model.fk_partial(&q, ws, &chain.posed_links, &chain.prims);
        let half: Vec<f64> = (0..n).map(|i| 0.5 * (hi[i] - lo[i])).collect();
        let motion = |half: &[f64], p: V3| chain.point_motion_bound(model, ws, half, p);
        let ball = common_ball(probe, ws, a, b)
            .map(|(deepest, _)| most_room(probe, ws, (a, b), deepest, |p| motion(&half, p)));
        // A mesh vertex, where no ball fits or the ball's room ran out.
        let surface = match ball {
            Some((_, room)) if room > 0.0 => None,
            _ => surface_point(probe, ws, (a, b), |p| motion(&half, p), f64::NEG_INFINITY),
        };
        // Neither a shared ball nor a vertex inside the other at the centre: the links may
        // come apart here.
        let (point, room) = match (ball, surface) {
            (Some(x), Some(y)) => {
                if y.1 > x.1 {
                    y
                } else {
                    x
                }
            }
            (Some(x), None) => x,
            (None, Some(y)) if y.1 + motion(&half, y.0) > 0.0 => y,
            _ => {
                let q = chain.dofs.iter().map(|&d| q[d]).collect();
                return Err(BoxFailure::Apart { boxes, q });
            }
        };
        if room > 0.0 {
            min_room = min_room.min(room);
            continue;
        }
        // Split the dof that moves the witness most: the bound it would lose without it.
        let full = motion(&half, point);
        let loss: Vec<f64> = (0..n)
            .map(|k| {
                let mut h = half.clone();
                h[k] = 0.0;
                full - motion(&h, point)
            })
            .collect();
        let at = (0..n)
            .max_by(|&i, &j| loss[i].total_cmp(&loss[j]).then(j.cmp(&i)))
            .expect("n > 0");
        queue.extend(PairChain::halve(lo, hi, at).map(|b| (b, room)));
    }
    Ok(BoxCertificate { boxes, min_room })
}

#[cfg(test)]
mod tests {
    use super::PATTERN;
    use crate::kernel::vec3::{norm, scale};

    #[test]
    fn the_pattern_is_the_unit_axes_and_diagonals_in_loop_order() {
        let mut want = Vec::new();
        for x in -1i32..=1 {
            for y in -1i32..=1 {
                for z in -1i32..=1 {
                    let zeros = [x, y, z].iter().filter(|&&c| c == 0).count();
                    if zeros == 2 || zeros == 0 {
                        let d = [x as f64, y as f64, z as f64];
                        want.push(scale(d, 1.0 / norm(d)));
                    }
                }
            }
        }
        assert_eq!(PATTERN.to_vec(), want);
    }
}
