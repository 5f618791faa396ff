//! "Never": branch and bound over the joint intervals between two links.
//!
//! A box of joint intervals is cleared when the kernel's lower bound on the pair's
//! distance at the box centre, minus the most any point of either link can move
//! inside the box (sum over the pair's joints of weight x half width, see `chain`),
//! is above the margin. Boxes that cannot be cleared are split in half along the
//! joint that moves the links most. Sound because the kernel's value never exceeds
//! the true distance and the motion bound holds at every configuration.

use super::chain::PairChain;
use crate::kernel::{Model, Workspace};
use std::collections::BinaryHeap;

#[derive(Debug, Clone, PartialEq)]
pub enum BoundOutcome {
    /// Every box cleared.
    Never { boxes: usize, min_lower_bound: f64 },
    /// A box centre where the kernel puts the pair within the margin.
    Reaches {
        q: Vec<f64>,
        distance: f64,
        boxes: usize,
        /// The kernel's value at the first box's centre (every joint between the links
        /// mid-range): above the margin when the pair was met deeper in the search.
        root_distance: f64,
    },
    /// The budget ran out before every box was cleared.
    Unproven {
        boxes: usize,
        min_lower_bound: f64,
        closest: f64,
    },
}

struct Cell {
    /// Centre distance (the heap pops the smallest first, to find contacts early).
    key: f64,
    seq: usize,
    lo: Vec<f64>,
    hi: Vec<f64>,
}

impl PartialEq for Cell {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == std::cmp::Ordering::Equal
    }
}
impl Eq for Cell {}
impl PartialOrd for Cell {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Cell {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        // Max-heap: reverse so the smallest key, then the oldest cell, comes first.
        o.key.total_cmp(&self.key).then(o.seq.cmp(&self.seq))
    }
}

/// Poses the links the pair needs at `q`.
fn pose(model: &Model, ws: &mut Workspace, chain: &PairChain, q: &[f64]) {
    model.fk_partial(q, ws, &chain.posed_links, &chain.prims);
}

/// A cleared box whose distance was only bounded (the kernel stopped refining past the
/// clearing threshold): its centre, motion bound and the bound. Its exact distance is owed
/// only if it could be the least lower bound or the closest distance reported.
struct Bounded {
    centre: Vec<f64>,
    motion: f64,
    bound: f64,
}

/// Two distances closer than this may come out of the bound and of the exact value in
/// either order (rounding): a bounded box this close to the least exact value is refined.
const ROUNDING_SLACK_M: f64 = 1e-9;

/// Every dof at the middle of its range: the `base` a pair's branch and bound holds the dofs
/// that do not move the pair at (any value would do; one value for every caller).
pub fn mid_range(model: &Model) -> Vec<f64> {
    (0..model.dof())
        .map(|d| {
            let (lo, hi) = model.dof_range(d);
            0.5 * (lo + hi)
        })
        .collect()
}

/// Runs the branch and bound for checked pair `pair` (links `a`, `b`) with at most `budget` boxes.
/// `base` holds the values of the dofs that do not move the pair. `model` refines every
/// distance (a wide refinement band): each box centre is first asked for its distance refined
/// only up to what clears the box, which settles most primitive pairs by their bounds; the
/// outcome is that of exact distances at every centre (the kernel's value is exact whenever
/// it is at most the refinement threshold, and a bound below it otherwise).
pub fn branch_and_bound(
    model: &Model,
    ws: &mut Workspace,
    pair: usize,
    chain: &PairChain,
    base: &[f64],
    margin: f64,
    budget: usize,
) -> BoundOutcome {
    let mut q = base.to_vec();
    let n = chain.dofs.len();
    let (lo, hi): (Vec<f64>, Vec<f64>) = chain.dofs.iter().map(|&d| model.dof_range(d)).unzip();
    let mut heap = BinaryHeap::new();
    let mut seq = 0;
    let mut boxes = 0;
    // Over the boxes whose distance is exact: the least lower bound of the cleared ones
    // and the least distance.
    let mut min_lb = f64::INFINITY;
    let mut closest = f64::INFINITY;
    let mut bounded: Vec<Bounded> = Vec::new();
    let mut evaluate = |lo: Vec<f64>,
                        hi: Vec<f64>,
                        q: &mut Vec<f64>,
                        heap: &mut BinaryHeap<Cell>,
                        boxes: &mut usize| {
        *boxes += 1;
        for i in 0..n {
            q[chain.dofs[i]] = 0.5 * (lo[i] + hi[i]);
        }
        pose(model, ws, chain, q);
        let half: Vec<f64> = (0..n).map(|i| 0.5 * (hi[i] - lo[i])).collect();
        let motion = chain.motion_bound(model, ws, &half);
        // Refined up to margin + motion: beyond it the box is cleared by the bound alone.
        let clearing = margin + motion - model.refine_band();
        let fast = model.pair_distance_with_margin(pair, ws, clearing);
        let exact = fast <= clearing + model.refine_band();
        if !exact && fast - motion > margin {
            // Cleared: the exact distance is at least the bound, so its lower bound too.
            bounded.push(Bounded {
                centre: chain.dofs.iter().map(|&d| q[d]).collect(),
                motion,
                bound: fast,
            });
            return Ok(());
        }
        let d = if exact {
            fast
        } else {
            model.pair_distance(pair, ws)
        };
        closest = closest.min(d);
        let lb = d - motion;
        if lb > margin {
            min_lb = min_lb.min(lb);
            return Ok(());
        }
        if d.is_nan() || d <= margin {
            return Err((q.clone(), d));
        }
        seq += 1;
        heap.push(Cell {
            key: d,
            seq,
            lo,
            hi,
        });
        Ok(())
    };
    if let Err((q, distance)) = evaluate(lo, hi, &mut q, &mut heap, &mut boxes) {
        return BoundOutcome::Reaches {
            q,
            distance,
            boxes,
            root_distance: distance,
        };
    }
    // Neither cleared nor within the margin: the root is the one box queued, by its value.
    let root_distance = heap.peek().map_or(f64::INFINITY, |c| c.key);
    let mut out_of_budget = false;
    while let Some(cell) = heap.pop() {
        if boxes + 2 > budget {
            out_of_budget = true;
            break;
        }
        // Split where the links move most.
        for (l, h) in chain.split(cell.lo, cell.hi) {
            if let Err((q, distance)) = evaluate(l, h, &mut q, &mut heap, &mut boxes) {
                return BoundOutcome::Reaches {
                    q,
                    distance,
                    boxes,
                    root_distance,
                };
            }
        }
    }
    // The bounded boxes' exact values, as far as they can matter: the closest distance
    // when the budget ran out, the least lower bound when every box was cleared.
    let key = |b: &Bounded| {
        if out_of_budget {
            b.bound
        } else {
            b.bound - b.motion
        }
    };
    bounded.sort_by(|x, y| key(x).total_cmp(&key(y)));
    for b in &bounded {
        let least = if out_of_budget { closest } else { min_lb };
        if key(b) > least + ROUNDING_SLACK_M {
            break;
        }
        for (i, &d) in chain.dofs.iter().enumerate() {
            q[d] = b.centre[i];
        }
        pose(model, ws, chain, &q);
        // Refined only as far as it could be the least: past that, a bound is enough.
        let matters = if out_of_budget {
            least
        } else {
            least + b.motion
        };
        let refining = matters + ROUNDING_SLACK_M - model.refine_band();
        let d = model.pair_distance_with_margin(pair, ws, refining);
        if d > refining + model.refine_band() {
            continue;
        }
        closest = closest.min(d);
        min_lb = min_lb.min(d - b.motion);
    }
    if out_of_budget {
        // What is left is not cleared: its lower bound is at most the margin.
        BoundOutcome::Unproven {
            boxes,
            min_lower_bound: min_lb.min(margin),
            closest,
        }
    } else {
        BoundOutcome::Never {
            boxes,
            min_lower_bound: min_lb,
        }
    }
}
