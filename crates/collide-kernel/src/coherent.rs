//! The coherent mode: skip a pair whose distance cannot have fallen to the margin since its
//! last exact check, by a motion bound that needs no forward kinematics.
//!
//! # The bound
//!
//! Pair `p = (A, B)`, `C` their lowest common ancestor, `J_p` the moving joints on the tree
//! path from `C` down to `A` and from `C` down to `B` (each link's joint connects it to its
//! parent, so these are the joints of the path's links other than `C`). On a straight segment
//! `q(t) = q_j + t (q_k - q_j)`, `t ∈ [0, 1]`, joint `i`'s value moves at the constant rate
//! `|Δv_i|` (for a mimic joint `|m|·|Δq_leader|`). Seen from `C`'s frame (the joints above
//! `C` move `A` and `B` rigidly together and cannot change their distance), a point `x` of
//! `A`'s geometry moves at speed at most `Σ_{i ∈ C→A} |Δv_i| · r_i(x)`, where `r_i(x)` is the
//! distance from `x` to joint `i`'s axis for a revolute joint (the velocity it adds is
//! `ω × (x − pivot)`, `|ω| = |Δv_i|`) and `1` for a prismatic one (unit axis); likewise for
//! `B`. With `R_{i,A} ≥ sup_x r_i(x)` over `A`'s geometry and over every value of the
//! joints between `i` and `A`, both sets' points move by at most
//! `δ_p = Σ_{i ∈ J_p} |Δv_i| · R_i` over the whole segment, so their distance changes by
//! at most `δ_p`: `d_p(q(t)) ≥ d_p(q_j) − δ_p` for every `t`. A floating base is joints
//! above every `C`: it never counts.
//!
//! `R_{i,A}` is computed at load from the primitives' bounding spheres (each contains its
//! primitive) by the triangle inequality down the path: for a point `P` in link `L`'s
//! frame, `D(L, P) ≥ max |x − P|` over `A`'s geometry is `max_k |c_k − P| + r_k` at `L = A`,
//! and one step down to the path's next link `d` (`P' = origin_d⁻¹ P`): `|pivot_d − P'| +
//! D(d, pivot_d)` for a revolute `d` (its rotation fixes the pivot and keeps distances to
//! it), `D(d, P') + max |v_d|` over its limits for a prismatic `d`, `D(d, P')` for a fixed
//! one. Then `R_{i,A} = dist(y, axis_i) + D(i, y)` with `y` the next joint's pivot (or
//! directly `max_k dist(c_k, axis_i) + r_k` when `i`'s link is `A`). Every `R` is rounded
//! outward. Prismatic limits enter `D`, so the cache is used only for `q` within the limits
//! (the segment between two such `q` stays within them: the limits are a box).
//!
//! # The cache
//!
//! Per pair `(L_p, q_p)`: `L_p` is the kernel's value at `q_p` (a lower bound on the
//! pair's signed distance, module docs of `collide::kernel::check`) less [`ALLOWANCE`] for
//! floating-point rounding, taken only at `q_p` within the limits. A call skips the pair
//! while `L_p − δ_p > margin`: then its primitives are more than `margin` apart everywhere
//! on the segment from `q_p` to `q`. Otherwise it runs the pair's exact check (forward
//! kinematics first, once per call, only when some pair is not skipped) and re-anchors the
//! cache there. Only an exact check says "in collision"; "free" needs every pair skipped by
//! the proof or checked free.

use collide::kernel::vec3::{Iso, V3, cross, mul_mtv, norm, scale, sub};
use collide::kernel::{CheckResult, JointKind, Model, Workspace};

/// Subtracted from every stored pair value: far above the rounding of forward kinematics
/// and of the distance routines (errors of order 1e-15 of the robot's size), far below any
/// margin a caller uses.
pub const ALLOWANCE: f64 = 1e-9;

/// Relative and absolute outward rounding of each weight `R_i` and of each sum `δ_p`.
const ROUND_REL: f64 = 1e-9;
const ROUND_ABS: f64 = 1e-12;

/// The per-pair weights, computed once per model: immutable, shared by every session.
#[derive(Clone, Debug)]
pub struct Coherence {
    /// Per checked pair: whether the bound exists (the two links share an ancestor).
    bounded: Vec<bool>,
    /// Per checked pair, its range in `dof` / `weight`.
    ranges: Vec<(u32, u32)>,
    /// The independent joint (index into `q`) behind each term.
    dof: Vec<u32>,
    /// The term's weight: `Σ |multiplier| · R_i` over the path's joints driven by that dof
    /// (metres per radian, or 1 per metre for prismatic joints); `+∞` when unbounded.
    weight: Vec<f64>,
}

/// The dof behind link `i`'s joint value `v_i = mul · q[dof] + off` (mimic chains resolved
/// to their independent leader, as the kernel resolves them); `None` for fixed joints.
fn driver(model: &Model, i: usize) -> Option<(usize, f64, f64)> {
    let links = model.links();
    if links[i].joint.kind == JointKind::Fixed {
        return None;
    }
    let (mut at, mut mul, mut off) = (i, 1.0, 0.0);
    while let Some(m) = links[at].joint.mimic {
        // v_at = m.multiplier · v_leader + m.offset, composed into v_i = mul · v_at + off.
        off += mul * m.offset;
        mul *= m.multiplier;
        at = m.leader;
    }
    let dof = model.dof_joints().iter().position(|&k| k == at)?;
    Some((dof, mul, off))
}

/// The largest `|v_i|` link `i`'s prismatic joint reaches with its driver within limits.
fn prismatic_reach(model: &Model, i: usize) -> f64 {
    let Some((dof, mul, off)) = driver(model, i) else {
        return f64::INFINITY;
    };
    if model.links()[model.dof_joints()[dof]].joint.kind == JointKind::Continuous {
        return f64::INFINITY; // follows an unlimited joint
    }
    let (lo, hi) = model.dof_range(dof);
    (mul * lo + off).abs().max((mul * hi + off).abs())
}

fn unit(v: V3) -> V3 {
    scale(v, 1.0 / norm(v))
}

/// Distance from `x` to the line through `p` along unit `u`.
fn line_distance(x: V3, p: V3, u: V3) -> f64 {
    norm(cross(sub(x, p), u))
}

/// `origin⁻¹ · x`.
fn inverse_point(o: &Iso, x: V3) -> V3 {
    mul_mtv(&o.rot, sub(x, o.pos))
}

/// `D(path[at], point)`: an upper bound on the distance from `point` (in link `path[at]`'s
/// frame) to any point of the geometry of `path.last()`, over every value of the joints
/// from `path[at + 1]` down. `path`: links from an ancestor down to the geometry's link.
fn reach(model: &Model, path: &[usize], at: usize, point: V3) -> f64 {
    let l = path[at];
    if at + 1 == path.len() {
        return spheres(model, l)
            .map(|(c, r)| norm(sub(c, point)) + r)
            .fold(0.0, f64::max);
    }
    let d = path[at + 1];
    let j = &model.links()[d].joint;
    let p = inverse_point(&model.origin(d), point);
    match j.kind {
        JointKind::Fixed => reach(model, path, at + 1, p),
        JointKind::Revolute | JointKind::Continuous => {
            norm(sub(j.pivot, p)) + reach(model, path, at + 1, j.pivot)
        }
        JointKind::Prismatic => reach(model, path, at + 1, p) + prismatic_reach(model, d),
    }
}

/// The bounding spheres (link frame) of link `l`'s primitives: each contains its primitive.
fn spheres(model: &Model, l: usize) -> impl Iterator<Item = (V3, f64)> + '_ {
    (0..).map_while(move |k| model.bounding_sphere(l, k))
}

/// `R_{i,A}` for the joint of `path[0]`, `path` running down to `A`.
fn weight(model: &Model, path: &[usize]) -> f64 {
    let i = path[0];
    let j = &model.links()[i].joint;
    match j.kind {
        JointKind::Fixed => 0.0,
        // The kernel normalises the axis: a point moves exactly |Δv|.
        JointKind::Prismatic => 1.0,
        JointKind::Revolute | JointKind::Continuous => {
            let u = unit(j.axis);
            if path.len() == 1 {
                return spheres(model, i)
                    .map(|(c, r)| line_distance(c, j.pivot, u) + r)
                    .fold(0.0, f64::max);
            }
            // Through the next joint's pivot: a point of link i's frame the rest turns about.
            let d = path[1];
            let y = model
                .origin(d)
                .transform_point(model.links()[d].joint.pivot);
            line_distance(y, j.pivot, u) + reach(model, path, 0, y)
        }
    }
}

fn outward(v: f64) -> f64 {
    v * (1.0 + ROUND_REL) + ROUND_ABS
}

impl Coherence {
    pub fn new(model: &Model) -> Coherence {
        let links = model.links();
        let ancestors = |mut l: usize| {
            let mut up = vec![l];
            while let Some(p) = links[l].parent {
                up.push(p);
                l = p;
            }
            up
        };
        let mut c = Coherence {
            bounded: Vec::new(),
            ranges: Vec::new(),
            dof: Vec::new(),
            weight: Vec::new(),
        };
        let mut terms: Vec<(usize, f64)> = Vec::new();
        for &(a, b) in model.checked_pairs() {
            terms.clear();
            let (ua, ub) = (ancestors(a), ancestors(b));
            let common = ua.iter().find(|l| ub.contains(l)).copied();
            for up in [&ua, &ub] {
                // Links strictly below the common ancestor, top down to the pair's link.
                let mut below: Vec<usize> = up
                    .iter()
                    .take_while(|&&l| Some(l) != common)
                    .copied()
                    .collect();
                below.reverse();
                for s in 0..below.len() {
                    let Some((dof, mul, _)) = driver(model, below[s]) else {
                        continue;
                    };
                    let w = mul.abs() * outward(weight(model, &below[s..]));
                    match terms.iter_mut().find(|t| t.0 == dof) {
                        Some(t) => t.1 = outward(t.1 + w),
                        None => terms.push((dof, w)),
                    }
                }
            }
            // Disconnected links (two roots): no common frame, no bound.
            c.bounded.push(common.is_some());
            terms.sort_by_key(|t| t.0);
            let s = c.dof.len() as u32;
            for &(d, w) in &terms {
                c.dof.push(d as u32);
                c.weight.push(if w.is_nan() { f64::INFINITY } else { w });
            }
            c.ranges.push((s, c.dof.len() as u32));
        }
        c
    }

    /// `δ_p` between `qa` and `qb`: a bound on how far pair `p`'s geometry moves, relative
    /// to each other, on the segment between them (rounded outward). `+∞` when unbounded.
    pub fn delta(&self, p: usize, qa: &[f64], qb: &[f64]) -> f64 {
        if !self.bounded[p] {
            return f64::INFINITY;
        }
        let (s, e) = self.ranges[p];
        let mut d = 0.0;
        for k in s as usize..e as usize {
            let dof = self.dof[k] as usize;
            d += self.weight[k] * (qb[dof] - qa[dof]).abs();
        }
        // 0 · ∞ (an unbounded weight that did not move) is NaN: unbounded all the same.
        if d.is_nan() {
            f64::INFINITY
        } else {
            outward(d)
        }
    }

    /// The weight terms of pair `p`: (dof, weight).
    pub fn terms(&self, p: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let (s, e) = self.ranges[p];
        (s as usize..e as usize).map(|k| (self.dof[k] as usize, self.weight[k]))
    }

    fn n_terms(&self) -> usize {
        self.dof.len()
    }
}

/// Counters of the last coherent call.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CoherentStats {
    /// Pairs whose exact check ran.
    pub exact_pairs: u32,
    /// Pairs skipped by the motion bound.
    pub skipped_pairs: u32,
    /// Whether forward kinematics ran (not when every pair was skipped).
    pub fk: bool,
}

/// A session's cache: per pair the anchor `(L_p, q_p)`. Preallocated; no allocation per call.
#[derive(Clone, Debug)]
pub struct Cache {
    valid: Vec<bool>,
    lower: Vec<f64>,
    /// `q_p` at each pair's terms' dofs, aligned with [`Coherence`]'s terms.
    anchor: Vec<f64>,
    stats: CoherentStats,
}

impl Cache {
    pub fn new(c: &Coherence) -> Cache {
        Cache {
            valid: vec![false; c.ranges.len()],
            lower: vec![f64::NEG_INFINITY; c.ranges.len()],
            anchor: vec![0.0; c.n_terms()],
            stats: CoherentStats::default(),
        }
    }

    /// Forget every anchor: the next call checks every pair.
    pub fn reset(&mut self) {
        self.valid.iter_mut().for_each(|v| *v = false);
    }

    pub fn stats(&self) -> CoherentStats {
        self.stats
    }

    /// The check with the cache (module docs). The result's `tripped` is true only from an
    /// exact check; `min_distance` is the least of the exact values and of the skipped
    /// pairs' bounds `L_p − δ_p` (all lower bounds), `min_pair` its pair.
    pub fn check(
        &mut self,
        c: &Coherence,
        model: &Model,
        ws: &mut Workspace,
        q: &[f64],
        margin: f64,
    ) -> CheckResult {
        let usable = model.within_limits(q);
        let mut res = CheckResult {
            tripped: false,
            first_tripping_pair: None,
            min_distance: f64::INFINITY,
            min_pair: None,
        };
        let mut stats = CoherentStats::default();
        for (p, &(la, lb)) in model.checked_pairs().iter().enumerate() {
            let (s, e) = c.ranges[p];
            let (s, e) = (s as usize, e as usize);
            // NaN (an unbounded weight times 0) is not `> margin`: the pair is checked.
            let bound = if usable && c.bounded[p] && self.valid[p] {
                let mut d = 0.0;
                for k in s..e {
                    d += c.weight[k] * (q[c.dof[k] as usize] - self.anchor[k]).abs();
                }
                self.lower[p] - outward(d)
            } else {
                f64::NEG_INFINITY
            };
            let v = if bound > margin {
                stats.skipped_pairs += 1;
                bound
            } else {
                if !stats.fk {
                    model.fk(q, ws);
                    stats.fk = true;
                }
                stats.exact_pairs += 1;
                // Below the running minimum, as collide_check: an overlapping pair's depth
                // bound stops there (still a lower bound, and the minimum is unchanged).
                let v = model.pair_distance_below(p, ws, margin, res.min_distance);
                if usable && !v.is_nan() {
                    self.valid[p] = true;
                    self.lower[p] = v - ALLOWANCE;
                    for k in s..e {
                        self.anchor[k] = q[c.dof[k] as usize];
                    }
                } else {
                    self.valid[p] = false;
                }
                if (v.is_nan() || v <= margin) && !res.tripped {
                    res.tripped = true;
                    res.first_tripping_pair = Some((la, lb));
                }
                v
            };
            if (v.is_nan() && !res.min_distance.is_nan()) || v < res.min_distance {
                res.min_distance = v;
                res.min_pair = Some((la, lb));
            }
        }
        self.stats = stats;
        res
    }
}
