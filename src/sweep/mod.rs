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

pub mod world;

use crate::error::{Error, Result};
use crate::fit::{self, FitOptions, Kind};
use crate::geom::mesh::TriMesh;

use crate::io::robot::ReadOptions;
use crate::manifest::kernel::{LoadedKernel, load_kernel};
use crate::manifest::sources::load_robot_beside;
use crate::manifest::{self, FitChoice, Manifest};
use crate::truth::contacts::{self, MeshContacts};
use crate::truth::hull::{self, Contact, TruthLink};
use crate::truth::judge::{self, Judgement, Timing};
use crate::truth::mesh::MeshTruth;
use crate::truth::meshes::{load_meshes, truths};
use crate::truth::poses::{self, for_each_pose};
use crate::truth::reach;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The free-space rays of a sweep (see [`crate::truth::reach`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RayOptions {
    pub rays: usize,
    pub steps: usize,
    pub seed: u64,
}

impl Default for RayOptions {
    fn default() -> Self {
        RayOptions {
            rays: reach::DEFAULT_RAYS,
            steps: reach::DEFAULT_STEPS,
            seed: reach::DEFAULT_SEED,
        }
    }
}

/// One set's free space: the poses where no checked pair's meshes touch, on the rays
/// from the rest pose and among the uniform poses, and what the kernel refuses of them.
#[derive(Debug, Clone, PartialEq)]
pub struct FreeReport {
    pub rays: usize,
    pub steps: usize,
    /// Seed of the rays' goal poses.
    pub ray_seed: u64,
    /// Free poses on the rays, and those the kernel refuses.
    pub ray_free: usize,
    pub ray_refused: usize,
    /// Uniform poses where no checked pair's meshes touch, and those the kernel refuses
    /// (its slop-only poses).
    pub uniform_free: usize,
    pub uniform_refused: usize,
    /// Mean over the rays that start free of how far the kernel lets the robot go before
    /// the meshes would touch (1 = as far as the meshes).
    pub reach_kept: Option<f64>,
    /// The pairs behind each ray's first false trip: (a, b, rays), most first.
    pub first_false_trips: Vec<(String, String, usize)>,
    /// Per ray: first mesh contact step, first kernel trip step (`steps + 1` / `None`
    /// when there is none).
    pub per_ray: Vec<(usize, Option<usize>)>,
    /// Checked pairs whose meshes touch at the rest pose (then no ray has a free pose).
    pub rest_mesh_contacts: Vec<(String, String)>,
}

impl FreeReport {
    pub fn free_poses(&self) -> usize {
        self.ray_free + self.uniform_free
    }
    pub fn refused_free(&self) -> usize {
        self.ray_refused + self.uniform_refused
    }
    /// The refused share of all free poses, percent.
    pub fn refused_free_pct(&self) -> Option<f64> {
        let n = self.free_poses();
        (n > 0).then(|| 100.0 * self.refused_free() as f64 / n as f64)
    }
}

/// Default pose count and seed of `collide sweep`.
pub const DEFAULT_POSES: usize = 3000;
pub const DEFAULT_SEED: u64 = 20260924;

/// A primitive set the poses are judged on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Set {
    /// One capsule per link: `fit_link`'s capsule candidate.
    SingleCapsule,
    /// The manifest as written.
    Fit,
    /// Box + 26-DOP + hull on every link (`fit_tight`, one slab).
    AllTight,
}

impl Set {
    pub const ALL: [Set; 3] = [Set::SingleCapsule, Set::Fit, Set::AllTight];

    pub fn as_str(self) -> &'static str {
        match self {
            Set::SingleCapsule => "single-capsule",
            Set::Fit => "fit",
            Set::AllTight => "all-tight",
        }
    }
}

/// One set's kernel.
pub struct SetModel {
    pub set: Set,
    pub manifest: Manifest,
    pub kernel: LoadedKernel,
}

/// A manifest ready to sweep: its sets' kernels and the truth.
pub struct Prepared {
    pub path: PathBuf,
    /// The manifest as loaded (the `fit` set).
    pub manifest: Manifest,
    /// Every set, in [`Set::ALL`] order; `fit` is always there.
    pub sets: Vec<SetModel>,
    /// Each link's truth mesh, link frame (for reports).
    pub meshes: BTreeMap<String, TriMesh>,
    /// Truth pieces by kernel link index (`None`: no primitives, never in a checked pair).
    pub truth: Vec<Option<TruthLink>>,
    /// The pairs the ACM exempts as `always` (kernel link indices, both with truth): the
    /// kernel never sees them, so the truth is asked how often their meshes really touch.
    pub always_exempt: Vec<(usize, usize)>,
    /// Each link's mesh by kernel link index, for the primary (mesh) truth.
    pub mesh_truth: MeshTruth,
    pub warnings: Vec<String>,
}

/// Loads a manifest, the robot beside it and its truth meshes; fits the compare sets.
pub fn prepare(path: &Path, compare: &[Set], read: &ReadOptions) -> Result<Prepared> {
    let m = manifest::load_manifest(path)?;
    let loaded = load_robot_beside(path, &read.load, ": the truth meshes come from the robot")?;
    let cache = load_meshes(&loaded.robot, &read.mesh_limits, read.max_total_triangles)?;
    let meshes: BTreeMap<String, TriMesh> = truths(&loaded.robot, &cache)?.into_iter().collect();
    let mut warnings = cache.warnings.clone();
    for name in meshes.keys() {
        if !m.links.iter().any(|l| &l.name == name) {
            warnings.push(format!(
                "link `{name}` has geometry but no primitives in {}: it is not swept (run `collide lower`)",
                path.display()
            ));
        }
    }
    for l in &m.links {
        if !meshes.contains_key(&l.name) {
            return Err(Error::check(format!(
                "{}: link `{}` has primitives but no geometry in the robot: the manifest is stale (run `collide lower`)",
                path.display(),
                l.name
            )));
        }
    }

    let fit_kernel = load_kernel(&m)?;
    let n = fit_kernel.link_names.len();
    let mut truth: Vec<Option<TruthLink>> = vec![None; n];
    let built: Vec<(usize, std::result::Result<TruthLink, String>)> = m
        .links
        .par_iter()
        .map(|l| {
            let prims: Vec<fit::Primitive> = l
                .primitives
                .iter()
                .map(manifest::fit::fit_primitive)
                .collect();
            (
                fit_kernel.link_index[&l.name],
                hull::truth_link(&meshes[&l.name], &prims),
            )
        })
        .collect();
    for (i, t) in built {
        let t = t.map_err(|e| {
            Error::check(format!(
                "{}: link `{}`: {e}",
                path.display(),
                fit_kernel.link_names[i]
            ))
        })?;
        if let Some(o) = t.outside {
            warnings.push(format!(
                "link `{}`: truth surface point {:?} is {:.3} mm outside every primitive: containment is broken, expect missed contacts (run `collide verify`)",
                fit_kernel.link_names[i],
                o.point,
                -o.depth * 1e3
            ));
        }
        truth[i] = Some(t);
    }

    let always_exempt = m
        .acm
        .iter()
        .filter(|row| row.reason == "always")
        .filter_map(|row| {
            let a = *fit_kernel.link_index.get(&row.a)?;
            let b = *fit_kernel.link_index.get(&row.b)?;
            (truth[a].is_some() && truth[b].is_some()).then_some((a, b))
        })
        .collect();

    let mut wanted: Vec<Set> = compare.iter().copied().filter(|&s| s != Set::Fit).collect();
    wanted.sort();
    wanted.dedup();
    let mut sets = Vec::new();
    for set in wanted {
        let alt = alternative(&m, &meshes, set)?;
        let kernel = load_kernel(&alt)?;
        if kernel.model.checked_pairs() != fit_kernel.model.checked_pairs()
            || kernel.link_names != fit_kernel.link_names
        {
            return Err(Error::check(format!(
                "{}: the {} set checks other pairs than the manifest (internal error)",
                path.display(),
                set.as_str()
            )));
        }
        sets.push(SetModel {
            set,
            manifest: alt,
            kernel,
        });
    }
    // The fit set runs on the kernel already loaded from the manifest.
    sets.push(SetModel {
        set: Set::Fit,
        manifest: m.clone(),
        kernel: fit_kernel,
    });
    sets.sort_by_key(|s| s.set);
    let mesh_truth = MeshTruth::new(&sets_fit_links(&sets), &meshes).with_margin(m.margin_m);
    Ok(Prepared {
        path: path.to_path_buf(),
        manifest: m,
        sets,
        meshes,
        truth,
        always_exempt,
        mesh_truth,
        warnings,
    })
}

/// The fit set's kernel link names.
fn sets_fit_links(sets: &[SetModel]) -> Vec<String> {
    sets.iter()
        .find(|s| s.set == Set::Fit)
        .map(|s| s.kernel.link_names.clone())
        .unwrap_or_default()
}

/// The manifest with every link refitted for `set` (joints, ACM, margin kept).
fn alternative(m: &Manifest, meshes: &BTreeMap<String, TriMesh>, set: Set) -> Result<Manifest> {
    let opts = FitOptions {
        headroom: m.headroom_m,
        hull_headroom: m.hull_headroom_m,
        ..FitOptions::default()
    };
    let links: Vec<manifest::Link> = m
        .links
        .par_iter()
        .map(|l| {
            let mesh = &meshes[&l.name];
            let fitted = match set {
                Set::AllTight => fit::fit_tight(mesh, 1, &opts),
                _ => fit::fit_link(mesh, &opts),
            }
            .map_err(|e| {
                let mut err: Error = e.into();
                err.message = format!("{} fit of link `{}`: {}", set.as_str(), l.name, err.message);
                err
            })?;
            let (choice, cand) = match set {
                Set::SingleCapsule => (
                    FitChoice::Capsule,
                    fitted
                        .candidates
                        .iter()
                        .find(|c| c.kind == Kind::Capsule)
                        .ok_or_else(|| {
                            Error::check(format!("link `{}` has no capsule candidate", l.name))
                        })?,
                ),
                _ => (FitChoice::TightBox, &fitted.candidates[0]),
            };
            Ok(manifest::fit::plain_link(
                &l.name,
                choice,
                &cand.primitives,
                &cand.metrics,
                (fitted.vertices, fitted.triangles),
            ))
        })
        .collect::<Result<_>>()?;
    let mut out = m.clone();
    out.links = links;
    let (rest, _) = crate::manifest::rest::check_rest(&out)?;
    out.rest_pose.clear = rest.clear;
    out.rest_pose.min_distance_m = rest.min_distance_m;
    Ok(out)
}

/// Which truth a figure is judged against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Truth {
    /// The real triangle meshes ([`crate::truth::mesh`]): the primary judgement.
    Mesh,
    /// The convex pieces ([`crate::truth::hull`]): hulls of each primitive's share of the surface.
    Hull,
}

impl Truth {
    pub fn as_str(self) -> &'static str {
        match self {
            Truth::Mesh => "mesh",
            Truth::Hull => "hull",
        }
    }
}

/// A pair the kernel cleared while the truth touches: a containment bug.
#[derive(Debug, Clone, PartialEq)]
pub struct Missed {
    pub set: Set,
    pub truth: Truth,
    pub pose: usize,
    /// Joint values of the pose, by dof name.
    pub q: Vec<(String, f64)>,
    pub a: String,
    pub b: String,
    /// The kernel's pair value (above the margin).
    pub kernel_m: f64,
    /// Hull truth only: its rigorous lower bound and GJK's upper estimate of the distance.
    pub truth_lower_m: Option<f64>,
    pub truth_upper_m: Option<f64>,
}

/// Kernel time per configuration, microseconds.
/// The rest pose as a set's kernel sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Rest {
    pub clear: bool,
    /// Checked pairs at or below the margin: (a, b, distance m).
    pub contacts: Vec<(String, String, f64)>,
}

/// One set's verdicts against one truth.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Verdicts {
    /// Pairs (summed over poses) the kernel cleared while the truth touched.
    pub missed: usize,
    pub missed_poses: usize,
    /// Pairs (summed over poses) the kernel tripped while the truth was apart.
    pub false_stops: usize,
    /// Refused poses with no truth contact on any checked pair.
    pub slop_only: usize,
    /// The pairs with the most false stops: (a, b, count), at most five.
    pub top_false_stops: Vec<(String, String, usize)>,
}

/// One set's figures.
#[derive(Debug, Clone, PartialEq)]
pub struct SetReport {
    pub set: Set,
    pub primitives: usize,
    /// Primitive counts by kind (`capsule`, `box`, `box+hull`).
    pub kinds: BTreeMap<&'static str, usize>,
    /// Poses the kernel refused (any pair at or below the margin); the same for both truths.
    pub refused: usize,
    /// Against the meshes (the primary figures).
    pub mesh: Verdicts,
    /// Against the hull truth (the design documents' figures).
    pub hull: Verdicts,
    pub rest: Rest,
    /// Free space, the headline figure.
    pub free: FreeReport,
    /// The kernel's time per configuration on the free poses (the rays' free steps and the
    /// free uniform poses: where a controller calls it), the headline cost.
    pub free_timing: Timing,
    /// The same on every uniform pose (on a humanoid most of them in contact): the second
    /// figure.
    pub timing: Timing,
}

impl SetReport {
    pub fn verdicts(&self, truth: Truth) -> &Verdicts {
        match truth {
            Truth::Mesh => &self.mesh,
            Truth::Hull => &self.hull,
        }
    }
}

/// What the hull truth is made of.
#[derive(Debug, Clone, PartialEq)]
pub struct TruthSummary {
    pub links: usize,
    pub pieces: usize,
    pub hull_vertices: usize,
    /// Links split among several primitives: (link, pieces, triangles that needed cutting).
    pub split: Vec<(String, usize, usize)>,
}

/// One truth's own contacts on the checked pairs.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TruthContacts {
    /// Poses with a truth contact on a checked pair.
    pub poses: usize,
    /// Truth contacts summed over poses (pairs).
    pub pairs: usize,
    /// The pairs most often in truth contact: (a, b, poses), at most five.
    pub top: Vec<(String, String, usize)>,
    /// Checked pairs in truth contact in every pose (CAD-nested neighbours the ACM does not
    /// exempt: every pose is refused because of them, whatever the fit).
    pub always_touching: Vec<(String, String)>,
}

/// A sweep's results.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepReport {
    pub robot: String,
    pub manifest: PathBuf,
    pub poses: usize,
    pub seed: u64,
    pub margin_m: f64,
    pub checked_pairs: usize,
    pub acm_rows: usize,
    /// What the mesh truth is made of.
    pub mesh_truth: crate::truth::mesh::MeshSummary,
    /// What the hull truth is made of.
    pub truth: TruthSummary,
    /// Contacts of the meshes (primary) and of the hull truth.
    pub mesh_contacts: TruthContacts,
    pub hull_contacts: TruthContacts,
    /// Pair contacts (summed over poses) the meshes make and the hull truth does not: 0
    /// whenever the hull pieces hold the meshes' solids (docs/sweep.md).
    pub mesh_not_hull: usize,
    /// Hull truth contacts whose GJK hit its iteration cap (counted as contact, conservatively).
    pub undecided: usize,
    /// ACM rows exempt as `always` (proven on the primitives) whose meshes do not touch in
    /// every pose: (a, b, poses with a mesh contact), most first. The kernel does not see
    /// these contacts; a tighter fit of the two links turns such a row into a checked pair.
    pub always_exempt_apart: Vec<(String, String, usize)>,
    /// ACM rows exempt as `always` whose meshes touch in every pose.
    pub always_exempt_touching: usize,
    pub sets: Vec<SetReport>,
    /// The manifest's kernel verdict at each seeded pose, in pose order.
    pub verdicts: Vec<judge::PoseVerdict>,
    /// Missed contacts against either truth (mesh first).
    pub missed: Vec<Missed>,
    /// Wall time of the pose loops (s): mesh truth, hull truth, kernel.
    pub elapsed_s: f64,
    pub mesh_s: f64,
    pub hull_s: f64,
    pub kernel_s: f64,
    pub warnings: Vec<String>,
}

impl SweepReport {
    pub fn set(&self, set: Set) -> Option<&SetReport> {
        self.sets.iter().find(|s| s.set == set)
    }

    /// Missed pairs against the meshes, every set (must be 0: `sweep` exits 1 otherwise).
    pub fn total_missed(&self) -> usize {
        self.sets.iter().map(|s| s.mesh.missed).sum()
    }

    /// Missed pairs against the hull truth, every set.
    pub fn total_missed_hull(&self) -> usize {
        self.sets.iter().map(|s| s.hull.missed).sum()
    }

    pub fn contacts(&self, truth: Truth) -> &TruthContacts {
        match truth {
            Truth::Mesh => &self.mesh_contacts,
            Truth::Hull => &self.hull_contacts,
        }
    }
}

/// Hull truth contact details of one pose: (checked pair index, lower, upper, converged).
type HullPose = Vec<(u32, f64, f64, bool)>;

fn kind_counts(m: &Manifest) -> (usize, BTreeMap<&'static str, usize>) {
    let mut kinds = BTreeMap::new();
    let mut n = 0;
    for l in &m.links {
        for p in &l.primitives {
            n += 1;
            let k = match p {
                manifest::Primitive::Capsule(_) => "capsule",
                manifest::Primitive::Box(b) if b.tight().is_some() => "box+hull",
                manifest::Primitive::Box(_) => "box",
            };
            *kinds.entry(k).or_insert(0) += 1;
        }
    }
    (n, kinds)
}

impl Prepared {
    pub fn fit_kernel(&self) -> &LoadedKernel {
        &self
            .sets
            .iter()
            .find(|s| s.set == Set::Fit)
            .expect("fit set")
            .kernel
    }

    /// The link pairs the mesh truth is asked about: the checked pairs and the ACM's
    /// `always` rows.
    pub fn mesh_pairs(&self) -> Vec<(usize, usize)> {
        let mut pairs = self.fit_kernel().model.checked_pairs().to_vec();
        pairs.extend(self.always_exempt.iter().copied());
        pairs
    }

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
