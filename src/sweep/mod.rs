//! `collide sweep`: the kernel's verdicts measured against ground truth on seeded poses.
//!
//! Every pose is judged by the kernel (the manifest's primitives, ACM and margin, through
//! `check_self_collision`, timed alone, twice per pose, the lesser time kept) and by two
//! truths, on the same checked pairs and the same forward kinematics:
//!
//! - the **mesh truth** ([`crate::truth::mesh`], the primary judgement): the links' real triangle
//!   meshes touch when their surfaces meet or a vertex of one lies inside a closed component
//!   of the other (parry BVH queries). [`contacts::mesh_contacts`] computes the contacts
//!   once and [`judge::judge_all`] judges each set's kernel against them;
//! - the **hull truth** ([`crate::truth::hull`], the second column): each link's truth mesh as convex
//!   pieces, checked exactly by GJK on the hull vertices (a rigorous lower bound; bounding
//!   spheres first). Hull contact includes every mesh contact.
//!
//! Per checked pair and pose: *contact* when the truth touches (hulls: not proven apart by
//! more than the margin); *missed* when the kernel's pair value is above the margin while the
//! truth is in contact (a containment bug: the primitives are proven to hold the truth, so
//! this must never happen); *false stop* when the kernel's pair trips while the truth is
//! apart.
//!
//! `--compare` runs the same poses on other fits of the same robot with the manifest's joints,
//! ACM and margin: one capsule per link (`fit_link`'s capsule candidate) and box + hull on
//! every link (`fit_tight`, one slab). All sets are judged against the same truth, the
//! manifest's split, which lies inside every set's primitives: a single convex primitive that
//! holds a link's mesh holds its hull and so every piece.
//!
//! Deterministic: pose `i` comes from `(seed, i)` alone and results are gathered by index, so
//! the thread count changes nothing but the timings.

mod report;
mod sets;
pub mod world;

pub use report::*;
pub use sets::*;

use report::{HullPose, kind_counts};

use crate::error::Result;
use crate::io::robot::ReadOptions;
use crate::manifest::kernel::LoadedKernel;
use crate::truth::contacts::{self, MeshContacts};
use crate::truth::hull::{self, Contact, TruthLink};
use crate::truth::judge::{self, Judgement, Timing};
use crate::truth::poses::{self, for_each_pose};
use crate::truth::reach;
use std::path::Path;
use std::time::Instant;

/// Default pose count and seed of `collide sweep`.
pub const DEFAULT_POSES: usize = 3000;
pub const DEFAULT_SEED: u64 = 20260924;

impl Prepared {
    /// The hull truth on every checked pair of `poses` poses of `seed`: the contacts, and
    /// per pose their GJK bounds.
    pub fn hull_contacts(
        &self,
        poses: usize,
        seed: u64,
        bar: &crate::progress::ProgressBar,
    ) -> (MeshContacts, Vec<HullPose>) {
        let model = &self.fit_kernel().model;
        let pairs = model.checked_pairs();
        let margin = self.manifest.margin_m;
        let details: Vec<HullPose> = for_each_pose(model, seed, poses, |s, _| {
            s.place(model);
            let place = &s.place;
            let mut contacts = Vec::new();
            for (k, &(a, b)) in pairs.iter().enumerate() {
                let (Some(ta), Some(tb)) = (&self.truth[a], &self.truth[b]) else {
                    continue;
                };
                if let Contact::Touching {
                    lower,
                    upper,
                    converged,
                } = hull::contact(ta, &place[a], tb, &place[b], margin)
                {
                    contacts.push((k as u32, lower, upper, converged));
                }
            }
            bar.inc(1);
            contacts
        });
        let contacts = details
            .iter()
            .map(|d| {
                let mut c: Vec<(u32, u32)> = d
                    .iter()
                    .map(|&(k, ..)| {
                        let (a, b) = pairs[k as usize];
                        (a.min(b) as u32, a.max(b) as u32)
                    })
                    .collect();
                c.sort_unstable();
                c
            })
            .collect();
        let contacts = MeshContacts {
            poses,
            seed,
            pairs: contacts::normalized_pairs(pairs, model.n_links()),
            contacts,
        };
        (contacts, details)
    }

    /// Sweeps `poses` poses of `seed` over every prepared set, on the rayon pool: the mesh
    /// truth's contacts ([`contacts::mesh_contacts`]), the hull truth's, then every set's
    /// kernel judged against both ([`judge::judge_all`]).
    pub fn run(&self, poses: usize, seed: u64, rays: RayOptions, progress: bool) -> SweepReport {
        let model = &self.fit_kernel().model;
        let bar = |what: &str| {
            if progress {
                crate::progress::bar(poses as u64, &format!("{what} {}", self.manifest.robot))
            } else {
                crate::progress::ProgressBar::hidden()
            }
        };
        let started = Instant::now();
        let b = bar("mesh truth");
        let mesh = contacts::mesh_contacts_with_progress(
            model,
            &self.mesh_truth,
            &self.mesh_pairs(),
            poses,
            seed,
            &b,
        );
        b.finish_and_clear();
        let mesh_s = started.elapsed().as_secs_f64();
        let t = Instant::now();
        let b = bar("hull truth");
        let (hull, hull_details) = self.hull_contacts(poses, seed, &b);
        b.finish_and_clear();
        let hull_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let judged: Vec<Vec<Judgement>> = self
            .sets
            .iter()
            .map(|s| {
                judge::judge_all(&s.kernel.model, &[&mesh, &hull])
                    .expect("every set checks the fit's pairs (checked in prepare)")
            })
            .collect();
        let kernel_s = t.elapsed().as_secs_f64();
        let fit = self.fit_kernel();
        let ray_contacts = reach::ray_contacts(
            &fit.model,
            &self.mesh_truth,
            fit.model.checked_pairs(),
            reach::Rays {
                rays: rays.rays,
                steps: rays.steps,
                seed: rays.seed,
                rest_q: fit.q_from(&self.manifest.rest_pose.q),
            },
        );
        let free_qs = reach::free_poses(&fit.model, &ray_contacts, &mesh);
        let free: Vec<(FreeReport, Timing)> = self
            .sets
            .iter()
            .zip(&judged)
            .map(|(s, j)| {
                let f = reach::judge_rays(&s.kernel.model, &ray_contacts)
                    .expect("every set checks the fit's pairs (checked in prepare)");
                let free_timing = judge::time_poses(&s.kernel.model, &free_qs);
                let names = &fit.link_names;
                let report = FreeReport {
                    rays: f.rays,
                    steps: f.steps,
                    ray_seed: rays.seed,
                    ray_free: f.free_poses,
                    ray_refused: f.refused_free,
                    uniform_free: poses - j[0].contact_poses,
                    uniform_refused: j[0].slop_only,
                    reach_kept: f.reach_kept,
                    first_false_trips: f
                        .first_false_trips
                        .iter()
                        .map(|&((a, b), n)| (names[a].clone(), names[b].clone(), n))
                        .collect(),
                    per_ray: f.per_ray.iter().map(|v| (v.t_truth, v.t_trip)).collect(),
                    rest_mesh_contacts: ray_contacts
                        .rest_contacts
                        .iter()
                        .map(|&(a, b)| (names[a as usize].clone(), names[b as usize].clone()))
                        .collect(),
                };
                (report, free_timing)
            })
            .collect();
        let elapsed_s = started.elapsed().as_secs_f64();
        let judged = judged.into_iter().zip(free).collect();
        let mut report = self.tally(&mesh, &hull, &hull_details, judged, poses, seed);
        report.elapsed_s = elapsed_s;
        report.mesh_s = mesh_s;
        report.hull_s = hull_s;
        report.kernel_s = kernel_s;
        report
    }

    fn truth_contacts(&self, j: &Judgement, poses: usize) -> TruthContacts {
        let names = &self.fit_kernel().link_names;
        let counts: Vec<usize> = j.pairs.iter().map(|p| p.contacts).collect();
        let pair_names = |k: usize| (names[j.pairs[k].a].clone(), names[j.pairs[k].b].clone());
        TruthContacts {
            poses: j.contact_poses,
            pairs: j.contact_pairs,
            top: top_pairs(&counts, &pair_names),
            always_touching: counts
                .iter()
                .enumerate()
                .filter(|(_, n)| poses > 0 && **n == poses)
                .map(|(k, _)| pair_names(k))
                .collect(),
        }
    }

    fn verdicts(&self, j: &Judgement) -> Verdicts {
        let names = &self.fit_kernel().link_names;
        let counts: Vec<usize> = j.pairs.iter().map(|p| p.false_stops).collect();
        let pair_names = |k: usize| (names[j.pairs[k].a].clone(), names[j.pairs[k].b].clone());
        Verdicts {
            missed: j.missed,
            missed_poses: j.missed_poses,
            false_stops: j.false_stops,
            slop_only: j.slop_only,
            top_false_stops: top_pairs(&counts, &pair_names),
        }
    }

    fn tally(
        &self,
        mesh: &MeshContacts,
        hull: &MeshContacts,
        hull_details: &[HullPose],
        judged: Vec<(Vec<Judgement>, (FreeReport, Timing))>,
        poses: usize,
        seed: u64,
    ) -> SweepReport {
        let fit = self.fit_kernel();
        let pairs = fit.model.checked_pairs();
        let names = &fit.link_names;
        let margin = self.manifest.margin_m;
        let fit_pos = self
            .sets
            .iter()
            .position(|s| s.set == Set::Fit)
            .expect("fit set");
        let mesh_contacts = self.truth_contacts(&judged[fit_pos].0[0], poses);
        let verdicts = judged[fit_pos].0[0].verdicts.clone();
        let hull_contacts = self.truth_contacts(&judged[fit_pos].0[1], poses);
        let undecided = hull_details.iter().flatten().filter(|c| !c.3).count();
        // Mesh contacts on checked pairs the hull truth does not have (both lists sorted).
        let checked: std::collections::BTreeSet<(u32, u32)> = pairs
            .iter()
            .map(|&(a, b)| (a.min(b) as u32, a.max(b) as u32))
            .collect();
        let mesh_not_hull = mesh
            .contacts
            .iter()
            .zip(&hull.contacts)
            .map(|(m, h)| {
                m.iter()
                    .filter(|p| checked.contains(p) && h.binary_search(p).is_err())
                    .count()
            })
            .sum();
        let mut exempt_touch = vec![0usize; self.always_exempt.len()];
        for c in &mesh.contacts {
            for (k, &(a, b)) in self.always_exempt.iter().enumerate() {
                if c.binary_search(&(a.min(b) as u32, a.max(b) as u32)).is_ok() {
                    exempt_touch[k] += 1;
                }
            }
        }
        let always_exempt_touching = exempt_touch.iter().filter(|&&n| n == poses).count();
        let mut always_exempt_apart: Vec<(String, String, usize)> = self
            .always_exempt
            .iter()
            .zip(&exempt_touch)
            .filter(|&(_, &n)| n < poses)
            .map(|(&(a, b), &n)| (names[a].clone(), names[b].clone(), n))
            .collect();
        // The rows hiding the most contacts first.
        always_exempt_apart
            .sort_by(|x, y| y.2.cmp(&x.2).then_with(|| (&x.0, &x.1).cmp(&(&y.0, &y.1))));
        let mut missed_list = Vec::new();
        let mut sets = Vec::new();
        for (s, (j, (free, free_timing))) in self.sets.iter().zip(judged) {
            let (primitives, kinds) = kind_counts(&s.manifest);
            for (truth, jt) in [(Truth::Mesh, &j[0]), (Truth::Hull, &j[1])] {
                for &(pose, k, kernel_m) in &jt.missed_at {
                    let mut q = vec![0.0; fit.model.dof()];
                    poses::uniform_q(&fit.model, seed, pose as u64, &mut q);
                    let (a, b) = pairs[k];
                    let bounds = (truth == Truth::Hull)
                        .then(|| {
                            hull_details[pose]
                                .iter()
                                .find(|c| c.0 as usize == k)
                                .map(|c| (c.1, c.2))
                        })
                        .flatten();
                    missed_list.push(Missed {
                        set: s.set,
                        truth,
                        pose,
                        q: fit.dof_names.iter().cloned().zip(q).collect(),
                        a: names[a].clone(),
                        b: names[b].clone(),
                        kernel_m,
                        truth_lower_m: bounds.map(|b| b.0),
                        truth_upper_m: bounds.map(|b| b.1),
                    });
                }
            }
            let (r, contacts) = crate::manifest::rest::rest_verdict(&s.kernel, &s.manifest);
            sets.push(SetReport {
                set: s.set,
                primitives,
                kinds,
                refused: j[0].refused,
                mesh: self.verdicts(&j[0]),
                hull: self.verdicts(&j[1]),
                rest: Rest {
                    clear: r.clear,
                    contacts,
                },
                free,
                free_timing,
                timing: j[0].timing,
            });
        }
        missed_list.sort_by(|x, y| {
            (x.truth, x.set, x.pose, &x.a, &x.b).cmp(&(y.truth, y.set, y.pose, &y.a, &y.b))
        });
        let truth_links: Vec<(usize, &TruthLink)> = self
            .truth
            .iter()
            .enumerate()
            .filter_map(|(i, t)| t.as_ref().map(|t| (i, t)))
            .collect();
        SweepReport {
            robot: self.manifest.robot.clone(),
            manifest: self.path.clone(),
            poses,
            seed,
            margin_m: margin,
            checked_pairs: pairs.len(),
            acm_rows: self.manifest.acm.len(),
            mesh_truth: self.mesh_truth.summary(),
            truth: TruthSummary {
                links: truth_links.len(),
                pieces: truth_links.iter().map(|(_, t)| t.pieces.len()).sum(),
                hull_vertices: truth_links.iter().map(|(_, t)| t.hull_vertices()).sum(),
                split: truth_links
                    .iter()
                    .filter(|(_, t)| t.pieces.len() > 1)
                    .map(|(i, t)| (names[*i].clone(), t.pieces.len(), t.cut_triangles))
                    .collect(),
            },
            mesh_contacts,
            hull_contacts,
            mesh_not_hull,
            undecided,
            always_exempt_apart,
            always_exempt_touching,
            sets,
            verdicts,
            missed: missed_list,
            elapsed_s: 0.0,
            mesh_s: 0.0,
            hull_s: 0.0,
            kernel_s: 0.0,
            warnings: self.warnings.clone(),
        }
    }
}

/// The kernel's verdict at every seeded pose as CSV, one row a pose: `pose, in_collision,
/// min_distance, link_a, link_b` and the joint values in `kernel`'s dof order (the
/// header names them), every number in the shortest text that reads back to the same
/// double. `kernel` must be the report's manifest's (it regenerates the poses from the
/// seed). What another implementation of the kernel is compared against, pose by pose.
pub fn verdicts_csv(report: &SweepReport, kernel: &LoadedKernel) -> String {
    use std::fmt::Write;
    let mut out = format!(
        "# collide sweep {}: the kernel's verdict at {} seeded poses (seed {}), margin {} m\n",
        report.manifest.display(),
        report.poses,
        report.seed,
        report.margin_m
    );
    out.push_str("pose,in_collision,min_distance,link_a,link_b");
    for name in &kernel.dof_names {
        out.push(',');
        out.push_str(name);
    }
    out.push('\n');
    let pairs = kernel.model.checked_pairs();
    let mut q = vec![0.0; kernel.model.dof()];
    for (i, v) in report.verdicts.iter().enumerate() {
        poses::uniform_q(&kernel.model, report.seed, i as u64, &mut q);
        let (a, b) = v.min_pair.map_or(("", ""), |k| {
            let (a, b) = pairs[k];
            (kernel.link_names[a].as_str(), kernel.link_names[b].as_str())
        });
        let _ = write!(out, "{i},{},{},{a},{b}", v.tripped, v.min_distance);
        for x in &q {
            let _ = write!(out, ",{x}");
        }
        out.push('\n');
    }
    out
}

/// The (at most five) pairs with the highest non-zero counts, ties by name.
fn top_pairs(
    counts: &[usize],
    name: &dyn Fn(usize) -> (String, String),
) -> Vec<(String, String, usize)> {
    let mut top: Vec<(String, String, usize)> = counts
        .iter()
        .enumerate()
        .filter(|(_, c)| **c > 0)
        .map(|(k, &c)| {
            let (a, b) = name(k);
            (a, b, c)
        })
        .collect();
    top.sort_by(|x, y| y.2.cmp(&x.2).then_with(|| (&x.0, &x.1).cmp(&(&y.0, &y.1))));
    top.truncate(5);
    top
}

/// Prepares and runs one manifest's sweep.
pub fn sweep(
    path: &Path,
    poses: usize,
    seed: u64,
    rays: RayOptions,
    compare: &[Set],
    read: &ReadOptions,
    progress: bool,
) -> Result<SweepReport> {
    let prepared = prepare(path, compare, read)?;
    Ok(prepared.run(poses, seed, rays, progress))
}
