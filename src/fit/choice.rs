//! The rule that picks a link's primitives among its candidates.
//!
//! Least mean protrusion (how far, on average over directions, the kernel's
//! surface stands off the real part); candidates within `tie` (3 %) of the
//! least count as tied, and a tie goes to the cheaper kernel kind:
//! capsule < chain of 2 < chain of 3 < box. Among equally cheap tied
//! candidates, the lower mean wins, then the earlier one.

use super::{Candidate, Kind};

/// Index of the chosen candidate, `None` for an empty list.
pub fn choose(candidates: &[Candidate], tie: f64) -> Option<usize> {
    let best = candidates
        .iter()
        .map(|c| c.metrics.mean_protrusion_m)
        .fold(f64::INFINITY, f64::min);
    if !best.is_finite() {
        return None;
    }
    let limit = best + tie * best.abs() + 1e-12;
    candidates
        .iter()
        .enumerate()
        .filter(|(_, c)| c.metrics.mean_protrusion_m <= limit)
        .min_by(|(i, a), (j, b)| {
            a.kind
                .cost_rank()
                .cmp(&b.kind.cost_rank())
                .then(
                    a.metrics
                        .mean_protrusion_m
                        .total_cmp(&b.metrics.mean_protrusion_m),
                )
                .then(i.cmp(j))
        })
        .map(|(i, _)| i)
}

/// Kernel cost order used by the rule (lower is cheaper).
impl Kind {
    pub fn cost_rank(&self) -> u32 {
        match self {
            Kind::Capsule => 0,
            Kind::CapsuleChain2 => 1,
            Kind::CapsuleChain3 => 2,
            Kind::Box => 3,
            Kind::BoxHull { slabs } => 4 + *slabs as u32,
        }
    }
}
