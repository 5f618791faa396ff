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
use std::collections::BinaryHeap;

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
    /// Per checked pair, `W_p = Σ` of its weights (rounded outward): `δ_p <= W_p · max_i
    /// |Δq_i|`, what the session's clock charges it.
    total: Vec<f64>,
    /// The least positive `W_p`: queued clear pairs are at least
    /// `margin + min_total · (at − T)` apart.
    min_total: f64,
    /// Per dof: whether some pair's bound moves with it (the clock ignores the others: a
    /// floating base, joints between links no checked pair reaches).
    clocked: Vec<bool>,
    /// Per link, its primitives (`link_prims[link_prim_start[l]..link_prim_start[l + 1]]`),
    /// for forward kinematics of only the links the checked pairs need.
    link_prim_start: Vec<u32>,
    link_prims: Vec<u32>,
}

/// The dof behind link `i`'s joint value `v_i = mul · q[dof] + off` (mimic chains resolved
/// to their independent leader, as the kernel resolves them); `None` for fixed joints.
pub(crate) fn driver(model: &Model, i: usize) -> Option<(usize, f64, f64)> {
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
pub(crate) fn weight(model: &Model, path: &[usize]) -> f64 {
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

pub(crate) fn outward(v: f64) -> f64 {
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
            total: Vec::new(),
            min_total: f64::INFINITY,
            clocked: vec![false; model.dof()],
            link_prim_start: Vec::new(),
            link_prims: Vec::new(),
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
            let mut total = 0.0;
            for &(d, w) in &terms {
                let w = if w.is_nan() { f64::INFINITY } else { w };
                c.dof.push(d as u32);
                c.weight.push(w);
                c.clocked[d] |= w > 0.0;
                total = outward(total + w);
            }
            c.total.push(total);
            c.ranges.push((s, c.dof.len() as u32));
        }
        for l in 0..links.len() {
            c.link_prim_start.push(c.link_prims.len() as u32);
            c.link_prims
                .extend(model.primitive_indices(l).map(|k| k as u32));
        }
        c.link_prim_start.push(c.link_prims.len() as u32);
        c.min_total = c
            .total
            .iter()
            .copied()
            .filter(|&w| w > 0.0)
            .fold(f64::INFINITY, f64::min);
        c
    }

    fn prims_of(&self, link: usize) -> &[u32] {
        let (s, e) = (self.link_prim_start[link], self.link_prim_start[link + 1]);
        &self.link_prims[s as usize..e as usize]
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

/// What a check answers. Only `Free` lets the robot go: `Unknown` (the `speed` preset's
/// budget ran out before every pair was proven) is not a proof of anything.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every checked pair proven or checked more than the margin apart.
    Free,
    /// An exact check found a pair at or below the margin.
    InCollision,
    /// Neither: pairs the budget left unchecked may be within the margin.
    Unknown,
}

/// How a session's coherent call checks (docs/kernel-library.md, "Presets").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preset {
    /// No cache: every pair exactly, `collide_check`'s work and answers.
    Precise,
    /// The cache: a pair is checked exactly only when the motion bound no longer proves it
    /// clear. The same verdicts as `Precise`.
    Balanced,
    /// The cache, and at most `budget` exact checks a call of pairs that hold an anchor
    /// (pairs without one, after a rebuild, are always checked), the most threatening
    /// first; pairs left over make the answer `Unknown` unless another pair already trips.
    Speed { budget: u32 },
}

/// Counters of the last coherent call. `exact_pairs + skipped_pairs + unchecked_pairs`
/// is the number of checked pairs.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CoherentStats {
    /// Pairs whose exact check ran.
    pub exact_pairs: u32,
    /// Pairs not checked because the motion bound proves them clear of the margin, or
    /// (once an exact check trips) proves them farther apart than the tripping pair.
    pub skipped_pairs: u32,
    /// Pairs the `speed` preset's budget left unchecked.
    pub unchecked_pairs: u32,
    /// Whether forward kinematics ran (only the links the checked pairs need).
    pub fk: bool,
}

/// A coherent call's answer: the verdict, and the kernel's result (`tripped` is true only
/// from an exact check; `min_distance` a lower bound on the least distance).
#[derive(Clone, Copy, Debug)]
pub struct Outcome {
    pub verdict: Verdict,
    pub result: CheckResult,
}

/// Relative slack of the clock's increments and of each pair's slack: covers the rounding
/// of the few operations between the bound and the comparison many times over.
const CLOCK_REL: f64 = 1e-6;

/// A pair in a schedule: due once the clock reaches `at`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Due {
    at: f64,
    pair: u32,
}

impl Eq for Due {}

impl Ord for Due {
    /// Reversed: `BinaryHeap` is a max-heap, a schedule pops the earliest.
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        o.at.total_cmp(&self.at).then(o.pair.cmp(&self.pair))
    }
}

impl PartialOrd for Due {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

/// What became of a due pair in a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fate {
    /// Waiting for its exact check.
    Candidate,
    /// Checked exactly; its anchor is new.
    Exact,
    /// Not checked: an exact check trips below its bound.
    Deeper,
    /// Not checked: the `speed` budget ran out.
    Unchecked,
}

/// A session's cache (module docs): per pair the anchor `(L_p, q_p)`, and schedules that
/// visit a pair only when it may need an exact check. Preallocated; no allocation per call.
///
/// *The clock.* `T` grows each call by at least `max_i |Δq_i|` over the dofs some pair's
/// bound moves with (the L∞ length of the path). Between two calls a pair's `δ` grows by
/// at most `W_p · ΔT` (`W_p` the sum of its weights: the triangle inequality per joint).
///
/// *Clear pairs.* A pair with bound `b > margin` at clock `T_a` is queued until
/// `T_a + (b − margin) / W_p` (shrunk by [`CLOCK_REL`], rounded down): until then it is
/// still more than `margin` apart and is not looked at. Once due, its bound from the
/// anchor (`L_p − δ_p`, tighter than the clock's) queues it again while it keeps at least
/// half its slack; otherwise it is checked exactly and re-anchored. A pair no joint moves
/// (`W_p = 0`) is never due until the schedules are rebuilt (first call, reset, another
/// margin, a `q` outside the limits).
///
/// *Pairs within the margin, when a call trips.* Only the least pair's value is reported,
/// so a pair whose bound `b` lies above the least exact value `m*` (of pair `p*`) need not
/// be checked: it cannot be the least. It is deferred until `T_a + (b − m*) / (W_p + W_p*)`:
/// until then its distance stays above `p*`'s, which moves by at most `W_p* · ΔT` and is
/// checked exactly first on every call while any pair is deferred against it (when the
/// least pair changes, the deferred pairs are due again). The deferred pairs' floor
/// `min_k (m*_k + W_p* (T − T_k))` keeps `min_distance` a lower bound.
#[derive(Clone, Debug)]
pub struct Cache {
    valid: Vec<bool>,
    lower: Vec<f64>,
    /// `q_p` at each pair's terms' dofs, aligned with [`Coherence`]'s terms.
    anchor: Vec<f64>,
    clock: f64,
    /// The previous call's `q` (within limits).
    prev: Vec<f64>,
    /// The margin the schedules were built for; `None`: nothing scheduled.
    armed: Option<f64>,
    /// Clear pairs, by when they may reach the margin.
    clear: BinaryHeap<Due>,
    /// Pairs deferred against `least`, by when they may reach its distance.
    deeper: BinaryHeap<Due>,
    /// The pair the deferred pairs are measured against, and their floor's constant.
    least: Option<u32>,
    /// `(m*_k, T_k)` of the call whose `m*_k − W_p* T_k` is least: the deferred pairs are
    /// above `m*_k + W_p* (T − T_k)`.
    deeper_floor: Option<(f64, f64)>,
    /// Pairs due on the next call.
    next: Vec<u32>,
    /// This call's due pairs: (bound, pair, fate).
    due: Vec<(f64, u32, Fate)>,
    /// Least bound of the pairs no joint moves (never due).
    still_floor: f64,
    /// Partial forward kinematics: links posed / primitives placed this call.
    posed: Vec<u32>,
    placed: Vec<u32>,
    generation: u32,
    links: Vec<usize>,
    prims: Vec<usize>,
    stats: CoherentStats,
}

impl Cache {
    pub fn new(c: &Coherence) -> Cache {
        let n = c.ranges.len();
        let n_links = c.link_prim_start.len() - 1;
        Cache {
            valid: vec![false; n],
            lower: vec![f64::NEG_INFINITY; n],
            anchor: vec![0.0; c.n_terms()],
            clock: 0.0,
            prev: vec![0.0; c.clocked.len()],
            armed: None,
            clear: BinaryHeap::with_capacity(n),
            deeper: BinaryHeap::with_capacity(n),
            least: None,
            deeper_floor: None,
            next: Vec::with_capacity(n),
            due: Vec::with_capacity(n),
            still_floor: f64::INFINITY,
            posed: vec![0; n_links],
            placed: vec![0; n_links],
            generation: 0,
            links: Vec::with_capacity(n_links),
            prims: Vec::with_capacity(c.link_prims.len()),
            stats: CoherentStats::default(),
        }
    }

    /// Forget every anchor and schedule: the next call checks every pair.
    pub fn reset(&mut self) {
        self.valid.iter_mut().for_each(|v| *v = false);
        self.armed = None;
    }

    pub fn stats(&self) -> CoherentStats {
        self.stats
    }

    /// The `balanced` check (no budget): see [`Cache::check_with`].
    pub fn check(
        &mut self,
        c: &Coherence,
        model: &Model,
        ws: &mut Workspace,
        q: &[f64],
        margin: f64,
    ) -> CheckResult {
        self.check_with(c, model, ws, q, margin, None).result
    }

    /// `L_p − δ_p` from pair `p`'s anchor to `q` (rounded down); NaN when unbounded.
    fn bound(&self, c: &Coherence, p: usize, q: &[f64]) -> f64 {
        let (s, e) = c.ranges[p];
        let mut d = 0.0;
        for k in s as usize..e as usize {
            d += c.weight[k] * (q[c.dof[k] as usize] - self.anchor[k]).abs();
        }
        self.lower[p] - outward(d)
    }

    /// `T + slack / w`, shrunk and rounded down: the clock before which a pair with that
    /// slack cannot have lost it. `w = ∞` gives just below `T`: due next call.
    fn until(&self, slack: f64, w: f64) -> f64 {
        (self.clock + slack / w * (1.0 - CLOCK_REL)).next_down()
    }

    /// Schedules pair `p` with bound `b`: queued while clear of the margin, else due
    /// next call.
    fn schedule(&mut self, c: &Coherence, p: usize, b: f64, margin: f64) {
        if !(b > margin && c.bounded[p]) {
            self.next.push(p as u32);
        } else if c.total[p] == 0.0 {
            self.still_floor = self.still_floor.min(b);
        } else {
            let at = self.until(b - margin, c.total[p]);
            self.clear.push(Due { at, pair: p as u32 });
        }
    }

    /// Defers pair `p` with bound `b` against `least` (value `m`, weight `w`).
    fn defer(&mut self, c: &Coherence, p: usize, b: f64, m: f64, w: f64) {
        if c.bounded[p] && b > m {
            let at = self.until(b - m, outward(c.total[p] + w));
            self.deeper.push(Due { at, pair: p as u32 });
        } else {
            self.next.push(p as u32);
        }
    }

    /// Every pair deferred against `least` is due next call.
    fn release_deeper(&mut self) {
        self.next.extend(self.deeper.drain().map(|d| d.pair));
        self.least = None;
        self.deeper_floor = None;
    }

    /// Forward kinematics of the links the candidate pairs need (and their ancestors),
    /// and placement of those links' primitives.
    fn place(&mut self, c: &Coherence, model: &Model, ws: &mut Workspace, q: &[f64], from: usize) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.posed.iter_mut().for_each(|g| *g = 0);
            self.placed.iter_mut().for_each(|g| *g = 0);
            self.generation = 1;
        }
        let g = self.generation;
        self.links.clear();
        self.prims.clear();
        let links = model.links();
        for &(_, p, _) in &self.due[from..] {
            let (la, lb) = model.checked_pairs()[p as usize];
            for l in [la, lb] {
                if self.placed[l] != g {
                    self.placed[l] = g;
                    self.prims.extend(c.prims_of(l).iter().map(|&k| k as usize));
                }
                let mut at = Some(l);
                while let Some(x) = at {
                    if self.posed[x] == g {
                        break;
                    }
                    self.posed[x] = g;
                    self.links.push(x);
                    at = links[x].parent;
                }
            }
        }
        // Parents before children: links are in topological order.
        self.links.sort_unstable();
        model.fk_partial(q, ws, &self.links, &self.prims);
    }

    /// Collects this call's due pairs: every pair after a rebuild, else the pairs due
    /// next call and those whose time came on either schedule.
    fn collect_due(&mut self, c: &Coherence, q: &[f64], margin: f64, n: usize) {
        self.due.clear();
        if self.armed.map(f64::to_bits) != Some(margin.to_bits()) {
            self.clear.clear();
            self.deeper.clear();
            self.next.clear();
            self.least = None;
            self.deeper_floor = None;
            self.still_floor = f64::INFINITY;
            self.armed = Some(margin);
            self.due
                .extend((0..n as u32).map(|p| (f64::NEG_INFINITY, p, Fate::Candidate)));
        } else {
            let mut step = 0.0f64;
            for (i, (&a, &b)) in q.iter().zip(&self.prev).enumerate() {
                if c.clocked[i] {
                    step = step.max((a - b).abs());
                }
            }
            // At least the step: `next_up` covers the sum's rounding.
            self.clock = (self.clock + step * (1.0 + CLOCK_REL)).next_up();
            let due = &mut self.due;
            due.extend(
                self.next
                    .drain(..)
                    .map(|p| (f64::NEG_INFINITY, p, Fate::Candidate)),
            );
            for heap in [&mut self.clear, &mut self.deeper] {
                while let Some(&top) = heap.peek() {
                    if top.at > self.clock {
                        break;
                    }
                    heap.pop();
                    due.push((f64::NEG_INFINITY, top.pair, Fate::Candidate));
                }
            }
        }
        self.prev.copy_from_slice(q);
    }

    /// Runs the exact checks of `due[from..]` (see [`Cache::check_with`]).
    fn run_candidates(&mut self, call: &Call, ws: &mut Workspace, from: usize, pass: &mut Pass) {
        let Call {
            c,
            model,
            q,
            margin,
            budget,
        } = *call;
        let mut placed = false;
        for k in from..self.due.len() {
            let (b, p32, _) = self.due[k];
            let p = p32 as usize;
            if pass.tripped && b > pass.exact_min {
                // An exact check trips below this pair's bound: it cannot be the least.
                self.due[k].2 = Fate::Deeper;
                pass.take(b, p);
                continue;
            }
            // The budget binds once a pair holds an anchor: the first call after a rebuild
            // checks every pair (else `speed` would answer unknown for many calls).
            let warm = self.valid[p];
            if warm && budget.is_some_and(|budget| pass.budget_used >= budget.max(1)) {
                self.due[k].2 = Fate::Unchecked;
                pass.stats.unchecked_pairs += 1;
                pass.unproven |= b <= margin; // never NaN: NaN bounds are -inf
                pass.take(b, p);
                continue;
            }
            if !placed {
                self.place(c, model, ws, q, from);
                placed = true;
                pass.stats.fk = true;
            }
            pass.stats.exact_pairs += 1;
            pass.budget_used += warm as u32;
            let v = model.pair_distance_below(p, ws, margin, pass.exact_min);
            self.due[k].2 = Fate::Exact;
            if v.is_nan() {
                self.valid[p] = false;
            } else {
                self.valid[p] = true;
                self.lower[p] = v - ALLOWANCE;
                let (s, e) = c.ranges[p];
                for t in s as usize..e as usize {
                    self.anchor[t] = q[c.dof[t] as usize];
                }
            }
            if (v.is_nan() || v <= margin) && !pass.tripped {
                pass.tripped = true;
                pass.first_trip = Some(p);
            }
            if v.is_nan() || v < pass.exact_min {
                pass.exact_min = v;
                pass.exact_least = Some(p32);
            }
            pass.take(v, p);
        }
    }

    /// The coherent check (type docs). `budget`: at most this many exact pair checks
    /// (the `speed` preset, at least 1); `None` for none (`balanced`). The result's
    /// `tripped` is true only from an exact check. `min_distance` is a lower bound on the
    /// least distance over the checked pairs: the least exact value when an exact check
    /// trips (`collide_check`'s within the GJK tolerance, unless the budget cut in); when
    /// free, the least of the exact values, of the due pairs' bounds and of the schedules'
    /// floors for the pairs not visited (`min_pair = None` when such a floor is the least).
    pub fn check_with(
        &mut self,
        c: &Coherence,
        model: &Model,
        ws: &mut Workspace,
        q: &[f64],
        margin: f64,
        budget: Option<u32>,
    ) -> Outcome {
        let n = model.checked_pairs().len();
        if !model.within_limits(q) {
            // The bound holds only inside the limits: every pair, and no schedule after.
            self.reset();
            let result = model.check_self_collision_with_margin(q, ws, margin, false);
            self.stats = CoherentStats {
                exact_pairs: n as u32,
                fk: true,
                ..CoherentStats::default()
            };
            let verdict = if result.tripped {
                Verdict::InCollision
            } else {
                Verdict::Free
            };
            return Outcome { verdict, result };
        }
        self.collect_due(c, q, margin, n);
        // Each pair's GJK starts from its last exact check's simplex: on a smooth path it
        // converges in a step or two. Values at the margin are recomputed cold
        // (`Workspace::set_warm_start`), so the verdicts stay `Precise`'s.
        let call = Call {
            c,
            model,
            q,
            margin,
            budget,
        };
        let warm = ws.warm_start();
        ws.set_warm_start(true);
        let outcome = self.check_due(&call, ws);
        ws.set_warm_start(warm);
        outcome
    }

    /// [`Cache::check_with`] after the due pairs are collected.
    fn check_due(&mut self, call: &Call, ws: &mut Workspace) -> Outcome {
        let Call {
            c,
            model,
            q,
            margin,
            budget,
        } = *call;
        let n = model.checked_pairs().len();
        let least = self.least;
        // Floors of the clear pairs not visited: queued ones are at least
        // `margin + W_p (at − T)` apart.
        let mut pass = Pass::new(self.still_floor);
        if let Some(top) = self.clear.peek() {
            pass.min = pass.min.min(margin + c.min_total * (top.at - self.clock));
        }
        // Due pairs whose anchor still proves them clear with half their slack left are
        // queued again; the others are candidates for an exact check. The least pair is
        // always checked: the deferred pairs rely on it.
        let mut k = 0;
        while k < self.due.len() {
            let p = self.due[k].1 as usize;
            let b = if c.bounded[p] && self.valid[p] {
                self.bound(c, p, q)
            } else {
                f64::NEG_INFINITY
            };
            let b = if b.is_nan() { f64::NEG_INFINITY } else { b };
            let keeps = b > margin && b - margin >= 0.5 * (self.lower[p] - margin);
            if keeps && Some(p as u32) != least {
                self.schedule(c, p, b, margin);
                pass.take(b, p);
                self.due.swap_remove(k);
            } else {
                self.due[k].0 = b;
                k += 1;
            }
        }
        // The least pair first; with a budget, the most threatening next.
        if let Some(i) = self.due.iter().position(|d| Some(d.1) == least) {
            self.due.swap(0, i);
        }
        let first = least.is_some().min(!self.due.is_empty()) as usize;
        if let Some(b) = budget.filter(|&b| self.due.len() > first + b as usize) {
            // Only the budget's worth need be in order: partition, then sort those.
            let by = |x: &(f64, u32, Fate), y: &(f64, u32, Fate)| {
                x.0.total_cmp(&y.0).then(x.1.cmp(&y.1))
            };
            let rest = &mut self.due[first..];
            rest.select_nth_unstable_by(b as usize, by);
            rest[..b as usize].sort_unstable_by(by);
        }
        self.run_candidates(call, ws, 0, &mut pass);
        if !self.deeper.is_empty() {
            if pass.tripped {
                // Above the least pair's distance, which moved by at most `W_p* · ΔT`.
                let w = least.map_or(f64::INFINITY, |p| c.total[p as usize]);
                if let Some((m, t)) = self.deeper_floor {
                    pass.min = pass.min.min(m + w * (self.clock - t));
                }
            } else {
                // They are proven above the least pair only: without a trip, check them.
                let from = self.due.len();
                let deferred = self
                    .deeper
                    .drain()
                    .map(|d| (f64::NEG_INFINITY, d.pair, Fate::Candidate));
                self.due.extend(deferred);
                for k in from..self.due.len() {
                    let p = self.due[k].1 as usize;
                    if c.bounded[p] && self.valid[p] {
                        let b = self.bound(c, p, q);
                        self.due[k].0 = if b.is_nan() { f64::NEG_INFINITY } else { b };
                    }
                }
                self.run_candidates(call, ws, from, &mut pass);
            }
        }
        // Schedule every due pair for what comes next.
        let tripping_least = pass
            .exact_least
            .filter(|_| pass.tripped && !pass.exact_min.is_nan());
        if tripping_least != least || tripping_least.is_none() {
            self.release_deeper();
        }
        if let Some(pl) = tripping_least {
            let w = c.total[pl as usize];
            self.least = Some(pl);
            let (m, t) = (pass.exact_min, self.clock);
            if self
                .deeper_floor
                .is_none_or(|(m0, t0)| m - w * t < m0 - w * t0)
            {
                self.deeper_floor = Some((m, t));
            }
        }
        for k in 0..self.due.len() {
            let (b, p32, fate) = self.due[k];
            let p = p32 as usize;
            let b = match fate {
                Fate::Exact if self.valid[p] => self.lower[p],
                Fate::Deeper | Fate::Unchecked => b,
                Fate::Exact | Fate::Candidate => f64::NEG_INFINITY,
            };
            match tripping_least {
                Some(pl) if pl == p32 => self.next.push(p32),
                Some(pl) if b <= margin => {
                    self.defer(c, p, b, pass.exact_min, c.total[pl as usize])
                }
                _ => self.schedule(c, p, b, margin),
            }
        }
        let mut stats = pass.stats;
        stats.skipped_pairs = n as u32 - stats.exact_pairs - stats.unchecked_pairs;
        self.stats = stats;
        let result = CheckResult {
            tripped: pass.tripped,
            first_tripping_pair: pass.first_trip.map(|p| model.checked_pairs()[p]),
            min_distance: pass.min,
            min_pair: pass.min_pair.map(|p| model.checked_pairs()[p]),
        };
        let verdict = if result.tripped {
            Verdict::InCollision
        } else if pass.unproven {
            Verdict::Unknown
        } else {
            Verdict::Free
        };
        Outcome { verdict, result }
    }
}

/// One call's inputs.
#[derive(Clone, Copy)]
struct Call<'a> {
    c: &'a Coherence,
    model: &'a Model,
    q: &'a [f64],
    margin: f64,
    budget: Option<u32>,
}

/// One call's running state.
struct Pass {
    stats: CoherentStats,
    /// Exact checks of anchored pairs (what the `speed` budget counts).
    budget_used: u32,
    tripped: bool,
    first_trip: Option<usize>,
    /// Some pair the budget left unchecked may be within the margin.
    unproven: bool,
    /// The least exact value and its pair: the ceiling of later exact checks.
    exact_min: f64,
    exact_least: Option<u32>,
    /// The least of every value and bound, and its pair (`None`: a floor).
    min: f64,
    min_pair: Option<usize>,
}

impl Pass {
    fn new(floor: f64) -> Pass {
        Pass {
            stats: CoherentStats::default(),
            budget_used: 0,
            tripped: false,
            first_trip: None,
            unproven: false,
            exact_min: f64::INFINITY,
            exact_least: None,
            min: floor,
            min_pair: None,
        }
    }

    /// Takes `v` of pair `p` into the minimum: NaN wins, ties go to the lower pair.
    fn take(&mut self, v: f64, p: usize) {
        let lower = v < self.min || (v == self.min && self.min_pair.is_none_or(|m| p < m));
        if (v.is_nan() && !self.min.is_nan()) || lower {
            self.min = v;
            self.min_pair = Some(p);
        }
    }
}
