//! What the refinement measures a geometry by: the mesh truth's contacts on its seeded
//! poses and rays (computed once), and per trial the kernel's verdicts on them, its trips
//! at rest, and its estimated cost on the free poses.

use super::cost::{Cost, CostModel};
use super::{FAR_M, REFINE_RAY_SEED, REFINE_RAYS, REFINE_STEPS, RefineOptions};
use crate::error::{Error, Result};
use crate::geom::mesh::TriMesh;
use crate::manifest::kernel::{LoadedKernel, load_kernel};
use crate::manifest::{AcmEntry, Manifest};
use crate::model::LinkPair;
use crate::truth::contacts::{MeshContacts, mesh_contacts_with_progress};
use crate::truth::judge::{Judgement, judge, time_poses};
use crate::truth::mesh::MeshTruth;
use crate::truth::poses::{for_each_pose, placements};
use crate::truth::reach::{FreeSpace, RayContacts, Rays, free_poses, judge_rays, ray_contacts};
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::{DefaultHasher, Hasher};
use std::sync::Mutex;

/// Boxes a `never` proof of the cost estimate may use: a quarter of a percent of what
/// `acm regenerate` gives a pair, so a pair proven here is almost surely proven there.
const NEVER_BOXES: usize = 4096;

/// A checked pair that trips at the rest pose while its meshes are apart.
#[derive(Debug, Clone, PartialEq)]
pub struct RestTrip {
    pub pair: (String, String),
    /// The kernel's value for it at rest (m; at or below the margin).
    pub value: f64,
}

/// What one state of the geometry measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    pub refused: usize,
    pub slop_only: usize,
    pub false_stops: usize,
    pub missed: usize,
    /// Estimated µs per configuration on the free poses (median, p99): what the budget
    /// is checked on.
    pub cost: Cost,
    /// Checked pairs tripping at rest while their meshes are apart, by name.
    pub rest_slop: Vec<RestTrip>,
    /// Free poses (no checked pair's meshes touch) on the refinement's rays and among its
    /// uniform poses, and those the kernel refuses.
    pub free_poses: usize,
    pub refused_free: usize,
    /// Per checked pair (names), the free poses it trips on; pairs with none left out.
    pub free_trips: BTreeMap<(String, String), usize>,
    /// Mean reach kept over the refinement's rays (`None` when none starts free).
    pub reach_kept: Option<f64>,
}

impl Measured {
    /// The refused share of the free poses, percent (0 without free poses).
    pub fn refused_free_pct(&self) -> f64 {
        100.0 * self.refused_free as f64 / self.free_poses.max(1) as f64
    }

    /// What the refinement lowers, most important first: the pairs that trip at rest while
    /// their meshes are apart (each refuses every free pose), the refused free poses, the
    /// slop-only poses, the false stops.
    pub fn objective(&self) -> (usize, usize, usize, usize) {
        (
            self.rest_slop.len(),
            self.refused_free,
            self.slop_only,
            self.false_stops,
        )
    }
}

/// The kernel's figures beside the estimate, taken once at the end (timed, so shown and
/// never decided on).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Shown {
    /// Measured median µs on the free poses.
    pub measured_free_us: f64,
    /// Estimated and measured median µs on the uniform poses (most of them in contact on
    /// a humanoid): the second figure.
    pub estimated_all_us: f64,
    pub measured_all_us: f64,
}

/// A link pair (kernel indices) and a fingerprint of each link's primitives.
type NeverKey = (usize, usize, u64, u64);

/// A fingerprint of a link's primitives (every value as written): equal geometry, equal
/// fingerprint, within one process.
fn geometry_print(link: &crate::kernel::Link) -> u64 {
    struct Feed(DefaultHasher);
    impl std::fmt::Write for Feed {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.0.write(s.as_bytes());
            Ok(())
        }
    }
    let mut feed = Feed(DefaultHasher::new());
    std::fmt::write(&mut feed, format_args!("{:?}", link.primitives)).expect("hashing");
    feed.0.finish()
}

pub(super) struct Judge<'a> {
    pub contacts: MeshContacts,
    pub rays: RayContacts,
    /// Link pairs never within [`FAR_M`] on any refinement pose under the starting
    /// geometry: `acm regenerate` will almost surely exempt them (`never`), and the kernel
    /// then skips them, so the cost estimate does too.
    far: Vec<(usize, usize)>,
    /// Link pairs (kernel indices) whose meshes touch at rest.
    rest_touching: BTreeSet<(usize, usize)>,
    /// Whether a `never` proof holds, by link pair and both links' geometry (see
    /// [`Judge::never_pairs`]): a change re-proves only its own links' pairs.
    never: Mutex<HashMap<NeverKey, bool>>,
    pub rest_q: Vec<f64>,
    /// The free poses (rays' free steps, then free uniform poses): where cost is taken.
    free_qs: Vec<Vec<f64>>,
    options: &'a RefineOptions,
}

/// The refinement's ACM: adjacent pairs (as `acm regenerate` exempts them) and
/// the user's exemptions (the config's `allow:` list). [`Judge::new`] adds the pairs whose
/// meshes touch on every pose.
fn refine_acm(m: &Manifest, user: &[(String, String)]) -> Result<Vec<AcmEntry>> {
    let mut open = m.clone();
    open.acm.clear();
    let k = load_kernel(&open)?;
    let tree = crate::acm::adjacency::LinkTree::of_model(&k.model);
    let mut rows: Vec<AcmEntry> = tree
        .adjacent_pairs()
        .into_iter()
        .map(|(a, b, _)| AcmEntry {
            a: k.link_names[a].clone(),
            b: k.link_names[b].clone(),
            reason: "adjacent".into(),
            proof: String::new(),
        })
        .collect();
    rows.extend(user.iter().map(|(a, b)| AcmEntry {
        a: a.clone(),
        b: b.clone(),
        reason: "user".into(),
        proof: String::new(),
    }));
    Ok(rows)
}

impl<'a> Judge<'a> {
    /// The truth's side of the measure, once per robot: the draft manifest (with the
    /// refinement's ACM) and its kernel come back with it.
    pub fn new(
        manifest: &Manifest,
        user: &[(String, String)],
        truths: &BTreeMap<String, TriMesh>,
        options: &'a RefineOptions,
    ) -> Result<(Judge<'a>, Manifest, LoadedKernel)> {
        let mut draft = manifest.clone();
        draft.acm = refine_acm(manifest, user)?;
        let k = load_kernel(&draft)?;
        let truth = MeshTruth::new(&k.link_names, truths).with_margin(manifest.margin_m);
        let pairs = k.model.checked_pairs().to_vec();
        let progress = crate::progress::bar(options.poses as u64, "mesh truth");
        let contacts = mesh_contacts_with_progress(
            &k.model,
            &truth,
            &pairs,
            options.poses,
            options.seed,
            &progress,
        );
        progress.finish_and_clear();
        // Pairs whose meshes touch on every pose are what `acm regenerate` exempts as
        // `always` when it can prove it, and otherwise a contact no geometry can clear:
        // refining their links would buy nothing, so the refinement leaves them out.
        let mut touches = BTreeMap::new();
        for pose in &contacts.contacts {
            for &(a, b) in pose {
                *touches.entry((a as usize, b as usize)).or_insert(0usize) += 1;
            }
        }
        let always_touching: Vec<(usize, usize)> = pairs
            .iter()
            .copied()
            .filter(|p| options.poses > 0 && touches.get(p) == Some(&options.poses))
            .collect();
        let k = exempt(
            &mut draft,
            k,
            &always_touching,
            "always",
            "meshes touch on every refinement pose",
        )?;
        let pairs = k.model.checked_pairs().to_vec();
        let rest_q = k.q_from(&manifest.rest_pose.q);
        let mut ws = k.model.workspace();
        k.model.fk(&rest_q, &mut ws);
        let place = placements(&ws, k.model.n_links());
        let rest_touching: BTreeSet<(usize, usize)> = pairs
            .iter()
            .copied()
            .filter(|&(a, b)| truth.touching(a, &place[a], b, &place[b]))
            .collect();
        // Each checked pair's least kernel value over the poses (lower bounds).
        let least = for_each_pose(&k.model, options.seed, options.poses, |p, _| {
            k.model.check_self_collision(&p.q, &mut p.ws, true);
            p.ws.pair_distances().to_vec()
        })
        .into_iter()
        .fold(vec![f64::INFINITY; pairs.len()], |a, b| {
            a.iter().zip(&b).map(|(x, y)| x.min(*y)).collect()
        });
        let far: Vec<(usize, usize)> = pairs
            .iter()
            .zip(&least)
            .filter(|(_, d)| **d > FAR_M)
            .map(|(p, _)| *p)
            .collect();
        // Pairs whose meshes never come within the margin, proven on the meshes (the
        // primitives of both links meet somewhere, or they would not be worth proving):
        // `acm regenerate` exempts them by the same proof, so they trip nothing here.
        let touched: BTreeSet<(usize, usize)> = contacts
            .contacts
            .iter()
            .flatten()
            .map(|&(a, b)| (a as usize, b as usize))
            .collect();
        let far_set: BTreeSet<&(usize, usize)> = far.iter().collect();
        // `--no-mesh-proofs`: no candidate, every pair cleared by geometry.
        let candidates: Vec<(usize, usize)> = pairs
            .iter()
            .copied()
            .filter(|_| options.mesh_proofs)
            .filter(|p| !far_set.contains(p) && !touched.contains(p) && !rest_touching.contains(p))
            .collect();
        let base = crate::acm::never::mid_range(&k.model);
        let meshes_apart: Vec<(usize, usize)> = candidates
            .par_iter()
            .map_init(
                || k.model.workspace(),
                |ws, &p| {
                    crate::acm::mesh_never::meshes_never_meet(&k.model, ws, &truth, p, &base, None)
                        .map(|_| p)
                },
            )
            .flatten()
            .collect();
        let k = exempt(
            &mut draft,
            k,
            &meshes_apart,
            "never",
            crate::acm::MESHES_NEVER,
        )?;
        let pairs = k.model.checked_pairs().to_vec();
        let progress = crate::progress::bar(REFINE_RAYS as u64, "free-space rays");
        let rays = ray_contacts(
            &k.model,
            &truth,
            &pairs,
            Rays {
                rays: REFINE_RAYS,
                steps: REFINE_STEPS,
                seed: REFINE_RAY_SEED,
                rest_q: rest_q.clone(),
            },
        );
        progress.finish_and_clear();
        let free_qs = free_poses(&k.model, &rays, &contacts);
        let judge = Judge {
            contacts,
            rays,
            far,
            rest_touching,
            never: Mutex::new(HashMap::new()),
            rest_q,
            free_qs,
            options,
        };
        Ok((judge, draft, k))
    }

    /// `k` without the pairs left out of the cost: the far ones (see `far`) and those
    /// `acm regenerate` will exempt as `never` ([`Judge::never_pairs`]). Priced with them,
    /// the estimate was a third above the kernel `acm regenerate` leaves (PR2: 42.0
    /// against 30.5 µs on uniform poses; with the proofs, 31.0).
    fn costed(&self, k: &LoadedKernel) -> Result<crate::kernel::Model> {
        let mut acm = k.model.acm().clone();
        for &(a, b) in self.far.iter().chain(&self.never_pairs(k)?) {
            acm.allow(a, b);
        }
        k.model.clone().with_acm(acm).map_err(Error::check)
    }

    /// The checked pairs of `k` (neither far nor touching at rest) that cannot come within
    /// the margin anywhere inside the joint limits: `acm regenerate`'s own branch and bound
    /// on `k`'s primitives, with [`NEVER_BOXES`] boxes. Remembered per geometry.
    fn never_pairs(&self, k: &LoadedKernel) -> Result<Vec<(usize, usize)>> {
        let prints: Vec<u64> = k.model.links().iter().map(geometry_print).collect();
        let key = |&(a, b): &(usize, usize)| (a, b, prints[a], prints[b]);
        let far: BTreeSet<&(usize, usize)> = self.far.iter().collect();
        let pairs: Vec<(usize, usize)> = k
            .model
            .checked_pairs()
            .iter()
            .filter(|p| !far.contains(p) && !self.rest_touching.contains(p))
            .copied()
            .collect();
        let mut known = self.never.lock().expect("never cache");
        let todo: Vec<(usize, usize)> = pairs
            .iter()
            .filter(|p| !known.contains_key(&key(p)))
            .copied()
            .collect();
        if !todo.is_empty() {
            let open = crate::acm::unexempted(k)?;
            let model = &open.model;
            let index: HashMap<(usize, usize), usize> = model
                .checked_pairs()
                .iter()
                .enumerate()
                .map(|(i, &p)| (p, i))
                .collect();
            let base = crate::acm::never::mid_range(model);
            let margin = k.model.margin();
            let proven: Vec<bool> = todo
                .par_iter()
                .map_init(
                    || model.workspace(),
                    |ws, &(a, b)| {
                        let chain = crate::acm::chain::PairChain::new(model, a, b);
                        matches!(
                            crate::acm::never::branch_and_bound(
                                model,
                                ws,
                                index[&(a.min(b), a.max(b))],
                                &chain,
                                &base,
                                margin,
                                NEVER_BOXES,
                            ),
                            crate::acm::never::BoundOutcome::Never { .. }
                        )
                    },
                )
                .collect();
            known.extend(todo.iter().map(key).zip(proven));
        }
        Ok(pairs.into_iter().filter(|p| known[&key(p)]).collect())
    }

    /// The estimated cost of `k` on the free poses.
    pub fn cost(&self, k: &LoadedKernel) -> Result<Cost> {
        Ok(CostModel::over(&self.costed(k)?, &self.free_qs))
    }

    /// The kernel's value at rest for checked pair `(a, b)` (kernel link indices), or
    /// `None` when `k` does not check it.
    pub fn rest_value(&self, k: &LoadedKernel, a: usize, b: usize) -> Option<f64> {
        let index = k
            .model
            .checked_pairs()
            .iter()
            .position(|&(x, y)| (x.min(y), x.max(y)) == (a.min(b), a.max(b)))?;
        let mut ws = k.model.workspace();
        k.model.fk(&self.rest_q, &mut ws);
        Some(k.model.pair_distance(index, &mut ws))
    }

    pub fn measure(&self, k: &LoadedKernel) -> Result<(Measured, Judgement, FreeSpace)> {
        let j = judge(&k.model, &self.contacts)
            .map_err(|e| Error::check(format!("refinement: {e}")))?;
        let free = judge_rays(&k.model, &self.rays)
            .map_err(|e| Error::check(format!("refinement: {e}")))?;
        let mut ws = k.model.workspace();
        k.model.check_self_collision(&self.rest_q, &mut ws, true);
        let margin = k.model.margin();
        let names = |a: usize, b: usize| -> (String, String) {
            LinkPair::new(&k.link_names[a], &k.link_names[b]).into()
        };
        let mut rest_slop: Vec<RestTrip> = k
            .model
            .checked_pairs()
            .iter()
            .zip(ws.pair_distances())
            .filter(|(p, d)| (d.is_nan() || **d <= margin) && !self.rest_touching.contains(p))
            .map(|(&(a, b), &value)| RestTrip {
                pair: names(a, b),
                value,
            })
            .collect();
        rest_slop.sort_by(|x, y| x.pair.cmp(&y.pair));
        let free_trips = j
            .pairs
            .iter()
            .zip(&free.pair_free_trips)
            .map(|(p, r)| (names(p.a, p.b), p.slop_stops + r))
            .filter(|(_, n)| *n > 0)
            .collect();
        let m = Measured {
            refused: j.refused,
            slop_only: j.slop_only,
            false_stops: j.false_stops,
            missed: j.missed,
            cost: self.cost(k)?,
            rest_slop,
            free_poses: free.free_poses + (j.poses - j.contact_poses),
            refused_free: free.refused_free + j.slop_only,
            free_trips,
            reach_kept: free.reach_kept,
        };
        Ok((m, j, free))
    }

    /// The figures shown beside the estimate (timed: never decided on).
    pub fn shown(&self, k: &LoadedKernel) -> Result<Shown> {
        let model = self.costed(k)?;
        let all: Vec<Vec<f64>> = (0..self.options.poses)
            .map(|i| {
                let mut q = vec![0.0; model.dof()];
                crate::truth::poses::uniform_q(&model, self.options.seed, i as u64, &mut q);
                q
            })
            .collect();
        Ok(Shown {
            measured_free_us: time_poses(&model, &self.free_qs).median_us,
            estimated_all_us: CostModel::over(&model, &all).median_us,
            measured_all_us: time_poses(&model, &all).median_us,
        })
    }

    /// Why there is nothing to measure: the meshes of some checked pair touch at the rest
    /// pose, so no ray has a free pose and no uniform pose is free either.
    pub fn no_free_poses(&self, k: &LoadedKernel) -> String {
        let at_rest: Vec<String> = self
            .rays
            .rest_contacts
            .iter()
            .take(4)
            .map(|&(a, b)| format!("{}/{}", k.link_names[a as usize], k.link_names[b as usize]))
            .collect();
        if at_rest.is_empty() {
            "no free pose to judge on: the meshes of some checked pair touch on every pose".into()
        } else {
            format!(
                "no free pose to judge on, nothing refined: the meshes touch at the rest pose ({}); a contact by design needs an `allow:` row (`collide init` lists the candidates), otherwise choose a rest pose where the meshes are apart",
                at_rest.join(", ")
            )
        }
    }
}

/// Adds an ACM row for each of `pairs` (kernel link indices of `k`) to the draft, and the
/// draft's kernel without them (`k` itself when there are none).
fn exempt(
    draft: &mut Manifest,
    k: LoadedKernel,
    pairs: &[(usize, usize)],
    reason: &str,
    proof: &str,
) -> Result<LoadedKernel> {
    if pairs.is_empty() {
        return Ok(k);
    }
    for &(a, b) in pairs {
        draft.acm.push(AcmEntry {
            a: k.link_names[a].clone(),
            b: k.link_names[b].clone(),
            reason: reason.into(),
            proof: proof.into(),
        });
    }
    load_kernel(draft)
}
