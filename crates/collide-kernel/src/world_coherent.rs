//! The coherent mode of the world check: per link, a certified lower bound on its distance
//! to the world at the configuration of its last exact check, and the motion bound the
//! self mode proves (`coherent.rs`), so a link that cannot have come within the margin of
//! an occupied cell or a fixture since then is not checked.
//!
//! # The bound
//!
//! Link `A`, `J_A` the moving joints on the tree path from the root down to `A` (the world
//! frame is fixed: every joint above `A` moves it). On the segment from `q_A` to `q`, a point
//! of `A`'s primitives moves by at most `δ_A = Σ_{i ∈ J_A} |Δv_i| · R_{i,A}` (the same
//! weights as the self mode's, whose proof is in `coherent.rs`; there the path starts below
//! the pair's common ancestor, here at the root). The world does not move (the cache is
//! tied to one world: another world, or a `q` outside the limits, forgets it), so the
//! link's distance to every cell and fixture at `q` is at least `L_A − δ_A`, with `L_A` the
//! kernel's least value for `A` at `q_A` (a lower bound, `check_placed_world_links`) less
//! [`ALLOWANCE`]. While `L_A − δ_A > margin` the link is proven clear and skipped. Payloads
//! are always checked. Only an exact check says "in collision", so the verdicts are the
//! full world check's.

use crate::coherent::{ALLOWANCE, driver, outward, weight};
use collide::kernel::world::{LinkSelection, World, WorldResult, WorldState};
use collide::kernel::{Model, Workspace};

/// How much farther than the margin (plus the refinement band) the exact check looks when
/// it re-anchors a link: the larger, the longer the link stays proven clear, the more cells
/// each re-anchoring reads. 0.02 m measured best overall of 0.01–0.05 on paths through the
/// synthetic scene (docs/world.md, "Coherent mode").
pub const ANCHOR_REACH: f64 = 0.02;

/// Per link weights and anchors for one session.
#[derive(Clone, Debug)]
pub struct WorldCache {
    ranges: Vec<(u32, u32)>,
    dof: Vec<u32>,
    weight: Vec<f64>,
    has_prims: Vec<bool>,
    n_dof: usize,
    anchor_q: Vec<f64>,
    anchor_l: Vec<f64>,
    valid: Vec<bool>,
    visit: Vec<bool>,
    least: Vec<f64>,
    /// The world the anchors were taken against (its id; 0: none).
    world: u64,
    /// Links skipped and checked by the last call.
    pub skipped: u32,
    pub checked: u32,
}

impl WorldCache {
    pub fn new(model: &Model) -> WorldCache {
        let links = model.links();
        let n = links.len();
        let (mut ranges, mut dof, mut w) = (vec![], vec![], vec![]);
        let mut terms: Vec<(usize, f64)> = vec![];
        for l in 0..n {
            let mut path = vec![l];
            let mut at = l;
            while let Some(p) = links[at].parent {
                path.push(p);
                at = p;
            }
            path.reverse();
            terms.clear();
            for s in 0..path.len() {
                let Some((d, mul, _)) = driver(model, path[s]) else {
                    continue;
                };
                let wt = mul.abs() * outward(weight(model, &path[s..]));
                match terms.iter_mut().find(|t| t.0 == d) {
                    Some(t) => t.1 = outward(t.1 + wt),
                    None => terms.push((d, wt)),
                }
            }
            let start = dof.len() as u32;
            for &(d, wt) in &terms {
                dof.push(d as u32);
                w.push(if wt.is_nan() { f64::INFINITY } else { wt });
            }
            ranges.push((start, dof.len() as u32));
        }
        let has_prims = (0..n)
            .map(|l| model.primitive_indices(l).next().is_some())
            .collect();
        WorldCache {
            ranges,
            dof,
            weight: w,
            has_prims,
            n_dof: model.dof(),
            anchor_q: vec![0.0; n * model.dof()],
            anchor_l: vec![f64::NEG_INFINITY; n],
            valid: vec![false; n],
            visit: vec![false; n],
            least: vec![0.0; n],
            world: 0,
            skipped: 0,
            checked: 0,
        }
    }

    /// Forgets every anchor (the next call checks every link).
    pub fn reset(&mut self) {
        self.valid.fill(false);
    }

    /// `δ_l` from link `l`'s anchor to `q`, rounded outward.
    fn delta(&self, l: usize, q: &[f64]) -> f64 {
        let (s, e) = self.ranges[l];
        let a = &self.anchor_q[l * self.n_dof..(l + 1) * self.n_dof];
        let mut d = 0.0;
        for t in s as usize..e as usize {
            let k = self.dof[t] as usize;
            d = outward(d + self.weight[t] * (q[k] - a[k]).abs());
        }
        d
    }

    /// The world check at `q` with the cache (module docs). `world_id` names the world (unique
    /// per world); forward kinematics runs every call (payloads need it). No allocation.
    #[allow(clippy::too_many_arguments)]
    pub fn check(
        &mut self,
        model: &Model,
        ws: &mut Workspace,
        st: &mut WorldState,
        world: &World,
        world_id: u64,
        q: &[f64],
        margin: f64,
    ) -> WorldResult {
        let inside = model.within_limits(q);
        if world_id != self.world || !inside {
            self.reset();
            self.world = world_id;
        }
        let mut proven = f64::INFINITY;
        (self.skipped, self.checked) = (0, 0);
        for l in 0..self.visit.len() {
            self.visit[l] = self.has_prims[l];
            if self.has_prims[l] && self.valid[l] {
                let b = self.anchor_l[l] - self.delta(l, q);
                if b > margin {
                    self.visit[l] = false;
                    proven = proven.min(b);
                    self.skipped += 1;
                    continue;
                }
            }
            self.checked += self.has_prims[l] as u32;
        }
        model.fk(q, ws);
        let sel = LinkSelection {
            visit: &self.visit,
            reach: margin + model.refine_band() + ANCHOR_REACH,
            least: &mut self.least,
        };
        let mut r = model.check_placed_world_links(ws, world, st, margin, sel);
        for l in 0..self.visit.len() {
            if self.visit[l] {
                self.anchor_l[l] = self.least[l] - ALLOWANCE;
                self.anchor_q[l * self.n_dof..(l + 1) * self.n_dof].copy_from_slice(q);
                self.valid[l] = inside;
            }
        }
        // A proven bound may be the least: then no hit names it.
        if proven < r.min_distance {
            r.min_distance = proven;
            r.nearest = None;
        }
        r
    }
}
