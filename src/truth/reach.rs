//! Free space: how much of the space where the meshes are apart a kernel lets the robot
//! use. A ray runs in joint space from the rest pose to seeded uniform in-limit pose `r`
//! (`uniform_q(model, seed, r)`), in `steps` equal steps: pose `(r, k)` is
//! `rest + (goal_r - rest) * k / steps`, `k = 0 ..= steps`, so step 0 of every ray is the
//! rest pose itself.
//!
//! Per ray, `t_truth` is the first step where the real meshes of some checked pair touch
//! ([`ray_contacts`], computed once per robot; `steps + 1` when none does) and `t_trip` the
//! first step the kernel trips ([`judge_rays`], repeated per kernel model). The poses
//! before `t_truth` are **free**; a free pose the kernel refuses is a false refusal; and
//! the ray's **reach kept** is `min(t_trip, t_truth) / t_truth` (1 when the kernel lets the
//! robot go as far as the meshes do; rays that start in contact are left out). The same
//! figures as `shared/tools/meshcheck/reach_check.py`, which shares no code with this.

use super::contacts::MeshContacts;
use super::mesh::MeshTruth;
use super::poses::{PoseScratch, uniform_q};
use crate::kernel::Model;
use rayon::prelude::*;

/// Default rays, steps a ray and seed of the free-space measure.
pub const DEFAULT_RAYS: usize = 200;
pub const DEFAULT_STEPS: usize = 24;
pub const DEFAULT_SEED: u64 = 11;

/// Where the rays go.
#[derive(Debug, Clone, PartialEq)]
pub struct Rays {
    pub rays: usize,
    pub steps: usize,
    pub seed: u64,
    /// The rest pose every ray starts from (kernel dof order).
    pub rest_q: Vec<f64>,
}

impl Rays {
    /// Pose `k` of ray `r` into `q`.
    pub fn pose(&self, model: &Model, r: usize, k: usize, q: &mut [f64]) {
        uniform_q(model, self.seed, r as u64, q);
        let t = k as f64 / self.steps as f64;
        for (v, &r0) in q.iter_mut().zip(&self.rest_q) {
            *v = r0 + (*v - r0) * t;
        }
    }
}

/// The meshes' side of the measure, computed once: per ray the first step with a contact
/// on one of `pairs`.
#[derive(Debug, Clone, PartialEq)]
pub struct RayContacts {
    pub rays: Rays,
    /// The pairs asked about (kernel link indices, `a < b`, sorted): a model must check
    /// exactly these for [`judge_rays`] to be meaningful.
    pub pairs: Vec<(u32, u32)>,
    /// Per ray, the first step whose meshes touch (`steps + 1` when none).
    pub t_truth: Vec<usize>,
    /// The pairs whose meshes touch at the rest pose.
    pub rest_contacts: Vec<(u32, u32)>,
}

impl RayContacts {
    /// Free poses: the steps before the first contact, over every ray.
    pub fn free_poses(&self) -> usize {
        self.t_truth.iter().sum()
    }
}

/// The first contact of every ray on `pairs` (kernel link indices, either order).
/// Parallel over rays; the result does not depend on the thread count.
pub fn ray_contacts(
    model: &Model,
    truth: &MeshTruth,
    pairs: &[(usize, usize)],
    rays: Rays,
) -> RayContacts {
    let pairs = super::contacts::normalized_pairs(pairs, model.n_links().min(truth.n_links()));
    let touching = |s: &mut PoseScratch, first_only: bool| -> Vec<(u32, u32)> {
        s.place(model);
        let place = &s.place;
        let mut out = Vec::new();
        for &(a, b) in &pairs {
            let (ia, ib) = (a as usize, b as usize);
            if truth.touching(ia, &place[ia], ib, &place[ib]) {
                out.push((a, b));
                if first_only {
                    break;
                }
            }
        }
        out
    };
    let mut rest = PoseScratch::new(model);
    rest.q.copy_from_slice(&rays.rest_q);
    let rest_contacts = touching(&mut rest, false);
    let t_truth = (0..rays.rays)
        .into_par_iter()
        .map_init(
            || PoseScratch::new(model),
            |s, r| {
                for k in 0..=rays.steps {
                    rays.pose(model, r, k, &mut s.q);
                    if !touching(s, true).is_empty() {
                        return k;
                    }
                }
                rays.steps + 1
            },
        )
        .collect();
    RayContacts {
        rays,
        pairs,
        t_truth,
        rest_contacts,
    }
}

/// One ray as the kernel saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RayVerdict {
    /// First step with a mesh contact (`steps + 1` when none).
    pub t_truth: usize,
    /// First free step the kernel trips (`None` when it clears every free step).
    pub t_trip: Option<usize>,
    /// Free steps the kernel refuses.
    pub refused: usize,
}

impl RayVerdict {
    /// `min(t_trip, t_truth) / t_truth`; `None` for a ray that starts in contact.
    pub fn reach_kept(&self) -> Option<f64> {
        (self.t_truth > 0).then(|| {
            self.t_trip.unwrap_or(self.t_truth).min(self.t_truth) as f64 / self.t_truth as f64
        })
    }
}

/// A kernel model measured on the rays.
#[derive(Debug, Clone, PartialEq)]
pub struct FreeSpace {
    pub rays: usize,
    pub steps: usize,
    /// Poses where no checked pair's meshes touch.
    pub free_poses: usize,
    /// Free poses the kernel refuses.
    pub refused_free: usize,
    /// Mean reach kept over the rays that start free (`None` when none does).
    pub reach_kept: Option<f64>,
    /// Whether the kernel trips at the rest pose.
    pub rest_trips: bool,
    /// The pairs behind each ray's first false trip, with how many rays they stopped
    /// (kernel link indices, `a < b`), most first.
    pub first_false_trips: Vec<((usize, usize), usize)>,
    /// Per checked pair (in `model.checked_pairs()` order), the free poses it trips on.
    pub pair_free_trips: Vec<usize>,
    pub per_ray: Vec<RayVerdict>,
}

impl FreeSpace {
    /// The refused share of the free poses, in percent (`None` without free poses).
    pub fn refused_free_pct(&self) -> Option<f64> {
        (self.free_poses > 0).then(|| 100.0 * self.refused_free as f64 / self.free_poses as f64)
    }
}

/// Judges `model` (its primitives, ACM and margin) on the free poses of `contacts`, by the
/// kernel alone: cheap enough to repeat after every refit. Each ray stops at its first
/// contact. An error when the model checks other pairs than the contacts cover.
pub fn judge_rays(model: &Model, contacts: &RayContacts) -> Result<FreeSpace, String> {
    let checked = super::contacts::normalized_pairs(model.checked_pairs(), model.n_links());
    if checked != contacts.pairs {
        return Err(format!(
            "the model checks {} pair(s), the ray contacts were computed on {}",
            checked.len(),
            contacts.pairs.len()
        ));
    }
    let rays = &contacts.rays;
    let margin = model.margin();
    // Per ray: its verdict, the pairs of its first trip, every pair trip on its free steps.
    type RayOutcome = (RayVerdict, Vec<(usize, usize)>, Vec<u32>);
    let per_ray: Vec<RayOutcome> = (0..rays.rays)
        .into_par_iter()
        .map_init(
            || PoseScratch::new(model),
            |s, r| {
                let t_truth = contacts.t_truth[r];
                let mut v = RayVerdict {
                    t_truth,
                    t_trip: None,
                    refused: 0,
                };
                let mut first = Vec::new();
                let mut tripping = Vec::new();
                for k in 0..t_truth.min(rays.steps + 1) {
                    rays.pose(model, r, k, &mut s.q);
                    let res = model.check_self_collision(&s.q, &mut s.ws, true);
                    if !res.tripped {
                        continue;
                    }
                    v.refused += 1;
                    tripping.extend(
                        s.ws.pair_distances()
                            .iter()
                            .enumerate()
                            .filter(|(_, d)| d.is_nan() || **d <= margin)
                            .map(|(p, _)| p as u32),
                    );
                    if v.t_trip.is_none() {
                        v.t_trip = Some(k);
                        first = model
                            .checked_pairs()
                            .iter()
                            .zip(s.ws.pair_distances())
                            .filter(|(_, d)| d.is_nan() || **d <= margin)
                            .map(|(&(a, b), _)| (a.min(b), a.max(b)))
                            .collect();
                    }
                }
                (v, first, tripping)
            },
        )
        .collect();
    let mut counts: std::collections::BTreeMap<(usize, usize), usize> = Default::default();
    let mut pair_free_trips = vec![0usize; model.checked_pairs().len()];
    for (_, first, tripping) in &per_ray {
        for p in first {
            *counts.entry(*p).or_default() += 1;
        }
        for &p in tripping {
            pair_free_trips[p as usize] += 1;
        }
    }
    let mut first_false_trips: Vec<_> = counts.into_iter().collect();
    first_false_trips.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
    let per_ray: Vec<RayVerdict> = per_ray.into_iter().map(|(v, ..)| v).collect();
    let kept: Vec<f64> = per_ray.iter().filter_map(RayVerdict::reach_kept).collect();
    let mut ws = model.workspace();
    let rest_trips = model
        .check_self_collision(&rays.rest_q, &mut ws, false)
        .tripped;
    Ok(FreeSpace {
        rays: rays.rays,
        steps: rays.steps,
        free_poses: contacts.free_poses(),
        refused_free: per_ray.iter().map(|v| v.refused).sum(),
        reach_kept: (!kept.is_empty()).then(|| kept.iter().sum::<f64>() / kept.len() as f64),
        rest_trips,
        first_false_trips,
        pair_free_trips,
        per_ray,
    })
}

/// The free poses of a measure, where a controller operates: the steps of every ray
/// before its first mesh contact (ray by ray), then the uniform poses of `contacts` where
/// no pair `model` checks has touching meshes (pose order). What every cost figure is
/// taken over (`lower`'s budget, `sweep`, the report).
pub fn free_poses(model: &Model, rays: &RayContacts, contacts: &MeshContacts) -> Vec<Vec<f64>> {
    let mut out = Vec::with_capacity(rays.free_poses() + contacts.poses);
    for (r, &t) in rays.t_truth.iter().enumerate() {
        for k in 0..t.min(rays.rays.steps + 1) {
            let mut q = vec![0.0; model.dof()];
            rays.rays.pose(model, r, k, &mut q);
            out.push(q);
        }
    }
    let checked = super::contacts::normalized_pairs(model.checked_pairs(), model.n_links());
    for (i, touching) in contacts.contacts.iter().enumerate() {
        if touching.iter().all(|p| checked.binary_search(p).is_err()) {
            let mut q = vec![0.0; model.dof()];
            uniform_q(model, contacts.seed, i as u64, &mut q);
            out.push(q);
        }
    }
    out
}
