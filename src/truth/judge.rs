//! A kernel model judged against precomputed contact sets, without any mesh query.

use super::contacts::MeshContacts;
use super::poses::for_each_pose;
use crate::kernel::Model;
use std::time::Instant;

/// Kernel time per configuration (µs).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Timing {
    pub median_us: f64,
    pub p99_us: f64,
    pub max_us: f64,
}

/// One checked pair's counts over the poses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PairVerdict {
    /// Kernel link indices (`a < b`).
    pub a: usize,
    pub b: usize,
    /// Poses the kernel trips this pair (value `<= margin` or NaN).
    pub trips: usize,
    /// Poses the truth has this pair touching.
    pub contacts: usize,
    /// Trips while the truth is apart.
    pub false_stops: usize,
    /// Truth contacts the kernel clears (must be 0).
    pub missed: usize,
    /// Trips on slop-only poses (refused with no truth contact anywhere): the false
    /// stops that alone refuse a pose.
    pub slop_stops: usize,
}

/// The kernel's answer at one pose (`check_self_collision`, the model's margin).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PoseVerdict {
    pub tripped: bool,
    pub min_distance: f64,
    /// Index into `model.checked_pairs()` of the pair attaining `min_distance`.
    pub min_pair: Option<usize>,
}

/// A kernel model measured against precomputed contacts ([`judge`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Judgement {
    pub poses: usize,
    /// The kernel's verdict at each pose, in pose order.
    pub verdicts: Vec<PoseVerdict>,
    /// Per checked pair of the model, in `model.checked_pairs()` order.
    pub pairs: Vec<PairVerdict>,
    /// Poses with a truth contact on some checked pair.
    pub contact_poses: usize,
    /// Truth contacts on checked pairs, summed over poses.
    pub contact_pairs: usize,
    /// Poses the kernel trips.
    pub refused: usize,
    /// Refused poses with no truth contact on any checked pair.
    pub slop_only: usize,
    /// Checked pairs, summed over poses, the kernel trips while the truth is apart.
    pub false_stops: usize,
    /// Checked pairs, summed over poses, in truth contact while the kernel clears them.
    pub missed: usize,
    /// Poses with at least one missed pair.
    pub missed_poses: usize,
    /// Every missed pair: (pose, index into `pairs`, the kernel's value for it).
    pub missed_at: Vec<(usize, usize, f64)>,
    /// `check_self_collision` per configuration (each timed twice, the lesser kept).
    pub timing: Timing,
}

/// [`judge_all`] with one truth and no timing (`timing` is zero): the refinement decides
/// on the cost model, never on a timer, and a timed judgement calls the kernel twice a pose.
pub fn judge(model: &Model, contacts: &MeshContacts) -> Result<Judgement, String> {
    Ok(judge_with(model, &[contacts], false)?.remove(0))
}

/// The kernel's time on each of `poses` (kernel dof order): one `check_self_collision`
/// call a pose, timed twice and the lesser kept (a pre-emption lands in some calls, rarely
/// in both). Parallel over poses, as the judge's own timing.
pub fn time_poses(model: &Model, poses: &[Vec<f64>]) -> Timing {
    use rayon::prelude::*;
    let mut ns: Vec<u64> = poses
        .par_iter()
        .map_init(
            || model.workspace(),
            |ws, q| {
                let t = Instant::now();
                model.check_self_collision(q, ws, false);
                let first = t.elapsed().as_nanos() as u64;
                let t = Instant::now();
                model.check_self_collision(q, ws, false);
                first.min(t.elapsed().as_nanos() as u64)
            },
        )
        .collect();
    ns.sort_unstable();
    timing_of(&ns)
}

/// Median, p99 and maximum of sorted nanosecond timings, in microseconds.
pub fn timing_of(sorted_ns: &[u64]) -> Timing {
    Timing {
        median_us: percentile(sorted_ns, 0.5),
        p99_us: percentile(sorted_ns, 0.99),
        max_us: sorted_ns.last().map_or(0.0, |&x| x as f64 / 1e3),
    }
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let k = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[k] as f64 / 1e3
}

/// Judges `model` (its primitives, ACM and margin) against each of `truths`, on their
/// poses: the kernel runs once per pose for all of them (no mesh query). Every truth must
/// cover the same poses and seed and every pair the model checks; otherwise an error names
/// what is missing. Parallel over poses; every figure but the timings is independent of
/// the thread count.
pub fn judge_all(model: &Model, truths: &[&MeshContacts]) -> Result<Vec<Judgement>, String> {
    judge_with(model, truths, true)
}

fn judge_with(
    model: &Model,
    truths: &[&MeshContacts],
    timed: bool,
) -> Result<Vec<Judgement>, String> {
    let Some(first) = truths.first() else {
        return Ok(Vec::new());
    };
    let (poses, seed) = (first.poses, first.seed);
    let n = model.n_links();
    let checked = model.checked_pairs();
    for t in truths {
        if t.poses != poses || t.seed != seed || t.contacts.len() != poses {
            return Err(format!(
                "the truths are on different poses ({} poses of seed {} against {} of seed {})",
                t.poses, t.seed, poses, seed
            ));
        }
        let uncovered: Vec<String> = checked
            .iter()
            .map(|&(a, b)| (a.min(b) as u32, a.max(b) as u32))
            .filter(|p| t.pairs.binary_search(p).is_err())
            .map(|(a, b)| format!("{a}/{b}"))
            .collect();
        if !uncovered.is_empty() {
            return Err(format!(
                "the model checks {} pair(s) the contacts were not computed on: {}",
                uncovered.len(),
                uncovered.join(", ")
            ));
        }
    }
    // Link pair -> checked pair index.
    let mut index = vec![u32::MAX; n * n];
    for (k, &(a, b)) in checked.iter().enumerate() {
        index[a.min(b) * n + a.max(b)] = k as u32;
    }
    let margin = model.margin();
    struct PoseOut {
        verdict: PoseVerdict,
        trips: Vec<u32>,
        values: Vec<f64>,
        ns: u64,
    }
    let outs: Vec<PoseOut> = for_each_pose(model, seed, poses, |s, _| {
        let t = Instant::now();
        let r = model.check_self_collision(&s.q, &mut s.ws, true);
        let first = t.elapsed().as_nanos() as u64;
        // Timed twice, the lesser kept: a pre-emption (milliseconds) lands in some
        // calls, rarely in both. The kernel is deterministic: same verdict.
        let ns = if timed {
            let t = Instant::now();
            let _ = model.check_self_collision(&s.q, &mut s.ws, true);
            first.min(t.elapsed().as_nanos() as u64)
        } else {
            0
        };
        let values = s.ws.pair_distances().to_vec();
        let trips = values
            .iter()
            .enumerate()
            .filter(|(_, d)| d.is_nan() || **d <= margin)
            .map(|(k, _)| k as u32)
            .collect();
        PoseOut {
            verdict: PoseVerdict {
                tripped: r.tripped,
                min_distance: r.min_distance,
                min_pair: r
                    .min_pair
                    .map(|(a, b)| index[a.min(b) * n + a.max(b)] as usize),
            },
            trips,
            values,
            ns,
        }
    });
    let mut ns: Vec<u64> = outs.iter().map(|o| o.ns).collect();
    ns.sort_unstable();
    let timing = timing_of(&ns);
    let mut out = Vec::with_capacity(truths.len());
    let mut tripped_pair = vec![false; checked.len()];
    let mut touching_pair = vec![false; checked.len()];
    for t in truths {
        let mut j = Judgement {
            poses,
            verdicts: outs.iter().map(|o| o.verdict).collect(),
            pairs: checked
                .iter()
                .map(|&(a, b)| PairVerdict {
                    a: a.min(b),
                    b: a.max(b),
                    trips: 0,
                    contacts: 0,
                    false_stops: 0,
                    missed: 0,
                    slop_stops: 0,
                })
                .collect(),
            contact_poses: 0,
            contact_pairs: 0,
            refused: 0,
            slop_only: 0,
            false_stops: 0,
            missed: 0,
            missed_poses: 0,
            missed_at: Vec::new(),
            timing,
        };
        for (i, (o, touching)) in outs.iter().zip(&t.contacts).enumerate() {
            tripped_pair.iter_mut().for_each(|x| *x = false);
            touching_pair.iter_mut().for_each(|x| *x = false);
            for &k in &o.trips {
                tripped_pair[k as usize] = true;
                j.pairs[k as usize].trips += 1;
            }
            let mut any_contact = false;
            let mut pose_missed = false;
            for &(a, b) in touching {
                let (a, b) = (a as usize, b as usize);
                if a >= n || b >= n {
                    continue;
                }
                let k = index[a * n + b];
                if k == u32::MAX {
                    continue;
                }
                let k = k as usize;
                touching_pair[k] = true;
                any_contact = true;
                j.contact_pairs += 1;
                j.pairs[k].contacts += 1;
                if !tripped_pair[k] {
                    j.missed += 1;
                    j.pairs[k].missed += 1;
                    j.missed_at.push((i, k, o.values[k]));
                    pose_missed = true;
                }
            }
            for &k in &o.trips {
                if !touching_pair[k as usize] {
                    j.false_stops += 1;
                    j.pairs[k as usize].false_stops += 1;
                }
            }
            if any_contact {
                j.contact_poses += 1;
            }
            if o.verdict.tripped {
                j.refused += 1;
                if !any_contact {
                    j.slop_only += 1;
                    for &k in &o.trips {
                        j.pairs[k as usize].slop_stops += 1;
                    }
                }
            }
            if pose_missed {
                j.missed_poses += 1;
            }
        }
        out.push(j);
    }
    Ok(out)
}
