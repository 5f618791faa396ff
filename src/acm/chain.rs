//! What the branch and bound needs to know about a link pair: which joint values move
//! one link against the other, and how far any point of either link can move per unit
//! of each joint value (a Lipschitz bound that holds at every configuration).

use crate::kernel::Workspace;
use crate::kernel::model::{JointKind, Model, Primitive};
use crate::kernel::vec3::{V3, add, cross, mul_mv, norm, sub};

/// Joint values that move link `a` against link `b`, with their Lipschitz weights.
#[derive(Debug, Clone)]
pub struct PairChain {
    /// Kernel dof indices, sorted.
    pub dofs: Vec<usize>,
    /// Metres of motion, of any point of either link, per unit of each dof (same order),
    /// valid at every configuration.
    pub weights: Vec<f64>,
    /// Links on the path (kernel indices) whose joints move: the joints between the two.
    pub path_joints: Vec<usize>,
    /// Per moving joint on the path, what the pose-dependent bound needs.
    pub steps: Vec<Step>,
    /// Both links and all their ancestors, ascending: what FK must pose for the pair.
    pub posed_links: Vec<usize>,
    /// The two links' primitive indices.
    pub prims: Vec<usize>,
}

/// One moving joint between the two links.
#[derive(Debug, Clone)]
pub struct Step {
    /// The link whose joint this is.
    pub link: usize,
    /// The pair's link on this joint's side.
    pub target: usize,
    /// Index into `PairChain::dofs` of the driving dof, and |multiplier|.
    pub slot: usize,
    pub mult: f64,
    pub prismatic: bool,
    /// Radius about the target's frame origin holding its primitives.
    pub target_radius: f64,
    /// Steps (indices into `steps`) of the joints between this one and the target.
    pub downstream: Vec<usize>,
    /// This step's static weight (metres per unit).
    pub weight: f64,
    /// The target's primitives (global indices) and their bounding-sphere radii.
    pub target_spheres: Vec<(usize, f64)>,
}

/// Per link: the radius about its frame origin that holds all its primitives.
pub fn primitive_radius(model: &Model, link: usize) -> f64 {
    let hull = model.hull_vertices();
    model.links()[link]
        .primitives
        .iter()
        .map(|p| match p {
            Primitive::Capsule { a, b, radius } => norm(*a).max(norm(*b)) + radius,
            Primitive::Box(bx) => norm(bx.center) + norm(bx.half_extents),
            Primitive::Tight(t) => {
                let box_bound = norm(t.bx.center) + norm(t.bx.half_extents);
                let hull_bound = hull[t.hull_offset..t.hull_offset + t.hull_len]
                    .iter()
                    .map(|v| norm(*v))
                    .fold(0.0, f64::max);
                box_bound.min(hull_bound)
            }
        })
        .fold(0.0, f64::max)
}

/// Largest distance, over all joint values, between a link's frame origin and its parent's.
fn origin_offset(model: &Model, link: usize) -> f64 {
    let j = &model.links()[link].joint;
    let base = norm(j.origin_xyz);
    match j.kind {
        JointKind::Fixed => base,
        // Rotating about an axis through the pivot moves the origin by at most 2|pivot|.
        JointKind::Revolute | JointKind::Continuous => base + 2.0 * norm(j.pivot),
        JointKind::Prismatic => base + j.lower.abs().max(j.upper.abs()),
    }
}

fn ancestors(model: &Model, link: usize) -> Vec<usize> {
    let mut out = vec![link];
    let mut cur = link;
    while let Some(p) = model.links()[cur].parent {
        out.push(p);
        cur = p;
    }
    out
}

/// The kernel dof that drives link `k`'s joint, with its multiplier.
fn driver(model: &Model, k: usize) -> Option<(usize, f64)> {
    let j = &model.links()[k].joint;
    if j.kind == JointKind::Fixed {
        return None;
    }
    let (leader, mult) = match &j.mimic {
        Some(m) => (m.leader, m.multiplier),
        None => (k, 1.0),
    };
    model
        .dof_joints()
        .iter()
        .position(|&d| d == leader)
        .map(|d| (d, mult))
}

impl PairChain {
    pub fn new(model: &Model, a: usize, b: usize) -> PairChain {
        let up_a = ancestors(model, a);
        let up_b = ancestors(model, b);
        let common = *up_a.iter().find(|l| up_b.contains(l)).expect("one tree");
        // (link, target, dof, mult, prismatic, static weight, downstream links)
        let mut raw = Vec::new();
        for (side, target) in [(&up_a, a), (&up_b, b)] {
            let below: Vec<usize> = side.iter().copied().take_while(|&l| l != common).collect();
            // below = [target, parent, ..., child of common]; reach from link k's joint to the target.
            let rho = primitive_radius(model, target);
            for (idx, &k) in below.iter().enumerate() {
                let Some((dof, mult)) = driver(model, k) else {
                    continue;
                };
                let j = &model.links()[k].joint;
                let prismatic = j.kind == JointKind::Prismatic;
                let w = if prismatic {
                    1.0
                } else {
                    // |x - pivot| <= |pivot| + offsets of the links below k on the way to the target + rho.
                    let chain: f64 = below[..idx].iter().map(|&m| origin_offset(model, m)).sum();
                    norm(j.pivot) + chain + rho
                };
                raw.push((
                    k,
                    target,
                    dof,
                    mult.abs(),
                    prismatic,
                    w,
                    below[..idx].to_vec(),
                    rho,
                ));
            }
        }
        let mut dofs: Vec<usize> = raw.iter().map(|r| r.2).collect();
        dofs.sort_unstable();
        dofs.dedup();
        let mut weights = vec![0.0; dofs.len()];
        let mut steps: Vec<Step> = Vec::new();
        for (k, target, dof, mult, prismatic, w, _, rho) in &raw {
            let slot = dofs.binary_search(dof).expect("listed");
            weights[slot] += mult * w;
            steps.push(Step {
                link: *k,
                target: *target,
                slot,
                mult: *mult,
                prismatic: *prismatic,
                target_radius: *rho,
                downstream: Vec::new(),
                weight: *w,
                target_spheres: model
                    .primitive_indices(*target)
                    .map(|k| (k, model.sphere_radius(k)))
                    .collect(),
            });
        }
        for i in 0..steps.len() {
            let below = &raw[i].6;
            steps[i].downstream = (0..steps.len())
                .filter(|&s| steps[s].target == steps[i].target && below.contains(&steps[s].link))
                .collect();
        }
        let mut path_joints: Vec<usize> = steps.iter().map(|s| s.link).collect();
        path_joints.sort_unstable();
        let mut posed_links: Vec<usize> = up_a.iter().chain(&up_b).copied().collect();
        posed_links.sort_unstable();
        posed_links.dedup();
        let prims = model
            .primitive_indices(a)
            .chain(model.primitive_indices(b))
            .collect();
        PairChain {
            dofs,
            weights,
            path_joints,
            steps,
            posed_links,
            prims,
        }
    }

    /// The box `lo..hi` (per slot) halved along the dof that moves the links most (weight
    /// times width; ties to the lowest slot). Panics on a pair with no dof between its links.
    pub fn split(&self, lo: Vec<f64>, hi: Vec<f64>) -> [(Vec<f64>, Vec<f64>); 2] {
        let at = (0..self.dofs.len())
            .max_by(|&i, &j| {
                let wi = self.weights[i] * (hi[i] - lo[i]);
                let wj = self.weights[j] * (hi[j] - lo[j]);
                wi.total_cmp(&wj).then(j.cmp(&i))
            })
            .expect("a pair that can move has a joint between its links");
        Self::halve(lo, hi, at)
    }

    /// The box `lo..hi` halved along slot `at`.
    pub fn halve(lo: Vec<f64>, hi: Vec<f64>, at: usize) -> [(Vec<f64>, Vec<f64>); 2] {
        let mid = 0.5 * (lo[at] + hi[at]);
        let (mut lo2, mut hi1) = (lo.clone(), hi.clone());
        hi1[at] = mid;
        lo2[at] = mid;
        [(lo, hi1), (lo2, hi)]
    }

    /// How far any point of either link can move inside the box of half widths `half`
    /// (per slot) around the configuration posed in `ws`: per joint, its half width times
    /// the largest distance from its axis to the target's primitives anywhere in the box
    /// (the distance at the centre plus what the joints below it can add).
    pub fn motion_bound(&self, model: &Model, ws: &Workspace, half: &[f64]) -> f64 {
        self.bound_from_axes(model, ws, half, |step, axis_point, axis_dir| {
            // The target's points lie in its primitives' bounding spheres.
            step.target_spheres
                .iter()
                .map(|&(k, r)| norm(cross(sub(ws.sphere_center(k), axis_point), axis_dir)) + r)
                .fold(0.0, f64::max)
        })
    }

    /// How far apart two points can move inside the same box, one fixed in each link, both
    /// at `p` (world frame) at the configuration posed in `ws`: [`Self::motion_bound`]
    /// measured from `p` alone instead of from every primitive. Valid for a `p` inside a
    /// primitive of each link (the static weights and the growth below a joint bound
    /// exactly those points); much smaller than the whole-link bound when `p` lies near the
    /// joint axes.
    pub fn point_motion_bound(&self, model: &Model, ws: &Workspace, half: &[f64], p: V3) -> f64 {
        self.bound_from_axes(model, ws, half, |_, axis_point, axis_dir| {
            norm(cross(sub(p, axis_point), axis_dir))
        })
    }

    /// Sum over the moving joints of half width × reach, where reach is `from_axis` (the
    /// distance at the box centre from the joint's axis, posed in `ws`) plus what the joints
    /// below it can add, capped by the joint's static weight.
    fn bound_from_axes(
        &self,
        model: &Model,
        ws: &Workspace,
        half: &[f64],
        from_axis: impl Fn(&Step, V3, V3) -> f64,
    ) -> f64 {
        let mut total = 0.0;
        for step in &self.steps {
            let h = step.mult * half[step.slot];
            if h == 0.0 {
                continue;
            }
            if step.prismatic {
                total += h;
                continue;
            }
            let (rot, pos) = ws.link_pose(step.link);
            let j = &model.links()[step.link].joint;
            let axis_point = add(pos, mul_mv(&rot, j.pivot));
            let axis_dir = mul_mv(&rot, j.axis);
            let grow: f64 = step
                .downstream
                .iter()
                .map(|&d| self.steps[d].mult * half[self.steps[d].slot] * self.steps[d].weight)
                .sum();
            // Never worse than the static bound.
            let reach = (from_axis(step, axis_point, axis_dir) + grow).min(step.weight);
            total += h * reach;
        }
        total
    }
}
