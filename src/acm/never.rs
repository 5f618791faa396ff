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

/// The pair's distance at `q` (a kernel lower bound), posing only what the pair needs.
fn pair_at(model: &Model, ws: &mut Workspace, pair: usize, chain: &PairChain, q: &[f64]) -> f64 {
    model.fk_partial(q, ws, &chain.posed_links, &chain.prims);
    model.pair_distance(pair, ws)
}

/// Runs the branch and bound for checked pair `pair` (links `a`, `b`) with at most `budget` boxes.
/// `base` holds the values of the dofs that do not move the pair.
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
    let mut min_lb = f64::INFINITY;
    let mut closest = f64::INFINITY;
    let mut evaluate = |lo: Vec<f64>,
                        hi: Vec<f64>,
                        q: &mut Vec<f64>,
                        heap: &mut BinaryHeap<Cell>,
                        boxes: &mut usize| {
        *boxes += 1;
        for i in 0..n {
            q[chain.dofs[i]] = 0.5 * (lo[i] + hi[i]);
        }
        let d = pair_at(model, ws, pair, chain, q);
        closest = closest.min(d);
        let half: Vec<f64> = (0..n).map(|i| 0.5 * (hi[i] - lo[i])).collect();
        let motion = chain.motion_bound(model, ws, &half);
        let lb = d - motion;
        if lb > margin {
            return Ok(lb);
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
        Ok(f64::INFINITY)
    };
    match evaluate(lo, hi, &mut q, &mut heap, &mut boxes) {
        Ok(lb) => min_lb = min_lb.min(lb),
        Err((q, distance)) => return BoundOutcome::Reaches { q, distance, boxes },
    }
    while let Some(cell) = heap.pop() {
        if boxes + 2 > budget {
            // What is left is not cleared: its lower bound is at most the margin.
            return BoundOutcome::Unproven {
                boxes,
                min_lower_bound: min_lb.min(margin),
                closest,
            };
        }
        // Split where the links move most.
        for (l, h) in chain.split(cell.lo, cell.hi) {
            match evaluate(l, h, &mut q, &mut heap, &mut boxes) {
                Ok(lb) => min_lb = min_lb.min(lb),
                Err((q, distance)) => return BoundOutcome::Reaches { q, distance, boxes },
            }
        }
    }
    BoundOutcome::Never {
        boxes,
        min_lower_bound: min_lb,
    }
}
