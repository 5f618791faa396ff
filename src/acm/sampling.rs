//! Seeded sampling for the report only: how often each pair collides, and at rest.
//! It never creates an exemption.

use crate::manifest::Manifest;
use crate::manifest::kernel::LoadedKernel;
use crate::truth::poses::for_each_pose;

pub struct SampleReport {
    pub samples: usize,
    /// (a, b, poses where the pair's primitives overlap), every pair that overlapped at least once.
    pub colliding: Vec<(String, String, usize)>,
    /// Pairs overlapping at the rest pose.
    pub at_rest: Vec<(String, String, f64)>,
}

pub fn sample(k: &LoadedKernel, m: &Manifest, samples: usize, seed: u64) -> SampleReport {
    let model = &k.model;
    let pairs = model.checked_pairs();
    let mut counts = vec![0usize; pairs.len()];
    // Refined only up to 0 (margin + band = 0): a value at or below 0 is the exact one, a
    // larger one a bound above 0, so the overlaps are those of exact distances, at a
    // fraction of the cost of refining every pair.
    let overlap_only = -model.refine_band();
    let bar = crate::progress::bar(samples as u64, "sampling poses");
    let overlapping = for_each_pose(model, seed, samples, |p, _| {
        bar.inc(1);
        model.fk(&p.q, &mut p.ws);
        (0..pairs.len())
            .filter(|&k| {
                model.pair_distance_below(k, &mut p.ws, overlap_only, f64::NEG_INFINITY) <= 0.0
            })
            .map(|k| k as u32)
            .collect::<Vec<u32>>()
    });
    bar.finish_and_clear();
    for k in overlapping.iter().flatten() {
        counts[*k as usize] += 1;
    }
    let name = |i: usize| k.link_names[i].clone();
    let mut colliding: Vec<_> = pairs
        .iter()
        .zip(&counts)
        .filter(|(_, c)| **c > 0)
        .map(|(&(a, b), &c)| {
            let (x, y) = (name(a), name(b));
            if x <= y { (x, y, c) } else { (y, x, c) }
        })
        .collect();
    colliding.sort_by(|x, y| y.2.cmp(&x.2).then_with(|| (&x.0, &x.1).cmp(&(&y.0, &y.1))));
    let mut ws = model.workspace();
    let q = k.q_from(&m.rest_pose.q);
    model.check_self_collision(&q, &mut ws, true);
    let mut at_rest: Vec<_> = pairs
        .iter()
        .zip(ws.pair_distances())
        .filter(|(_, d)| **d <= 0.0)
        .map(|(&(a, b), &d)| {
            let (x, y) = (name(a), name(b));
            if x <= y { (x, y, d) } else { (y, x, d) }
        })
        .collect();
    at_rest.sort_by(|x, y| (&x.0, &x.1).cmp(&(&y.0, &y.1)));
    SampleReport {
        samples,
        colliding,
        at_rest,
    }
}
