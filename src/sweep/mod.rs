//! `collide sweep`: the kernel's verdicts measured against ground truth on seeded poses.
//!
//! Every pose is judged twice. The kernel: the manifest's primitives, ACM and margin, through
//! `check_self_collision` (timed alone, twice per pose, the lesser time kept). The truth: each link's truth mesh as convex pieces
//! ([`truth`]), placed by the same forward kinematics and checked exactly by GJK on the hull
//! vertices (a rigorous lower bound; bounding spheres first), on the same checked pairs.
//!
//! Per checked pair and pose: *contact* when the truth pieces are not proven apart by more
//! than the margin; *missed* when the kernel's pair value is above the margin while the truth
//! is in contact (a containment bug: the primitives are proven to hold the truth, so this
//! must never happen); *false stop* when the kernel's pair trips while every truth piece pair
//! is proven apart by more than the margin (a separating plane or disjoint spheres).
//!
//! `--compare` runs the same poses on other fits of the same robot with the manifest's joints,
//! ACM and margin: one capsule per link (`fit_link`'s capsule candidate) and box + hull on
//! every link (`fit_tight`, one slab). All sets are judged against the same truth, the
//! manifest's split, which lies inside every set's primitives: a single convex primitive that
//! holds a link's mesh holds its hull and so every piece.
//!
//! Deterministic: pose `i` comes from `(seed, i)` alone and results are gathered by index, so
//! the thread count changes nothing but the timings.

pub mod poses;
pub mod render;
pub mod truth;

use crate::error::{Error, Result};
use crate::fit::{self, FitOptions, Kind};
use crate::geom::mesh::TriMesh;
use crate::io::manifest::{self, FitChoice, Manifest};
use crate::io::mesh::MeshLimits;
use crate::io::robot::LoadOptions;
use crate::lower::convert;
use crate::lower::{load_meshes, truths};
use crate::verify::check::load_robot_beside;
use crate::verify::kernel_load::{LoadedKernel, load_kernel};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;
use truth::{Contact, Placement, TruthLink};

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

/// Where the robot and its meshes are read from.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    pub load: LoadOptions,
    pub mesh_limits: MeshLimits,
    pub max_total_triangles: usize,
}

impl ReadOptions {
    pub fn new(load: LoadOptions) -> Self {
        ReadOptions {
            load,
            mesh_limits: MeshLimits::default(),
            max_total_triangles: 50_000_000,
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
    pub warnings: Vec<String>,
}

/// Loads a manifest, the robot beside it and its truth meshes; fits the compare sets.
pub fn prepare(path: &Path, compare: &[Set], read: &ReadOptions) -> Result<Prepared> {
    let m = manifest::load_manifest(path)?;
    let loaded = load_robot_beside(path, &read.load, ": the truth meshes come from the robot")?;
    let cache = load_meshes(&loaded.robot, &read.mesh_limits, read.max_total_triangles)?;
    let meshes: BTreeMap<String, TriMesh> = truths(&loaded.robot, &cache)?.into_iter().collect();
    let mut warnings = Vec::new();
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
            let prims: Vec<fit::Primitive> =
                l.primitives.iter().map(convert::fit_primitive).collect();
            (
                fit_kernel.link_index[&l.name],
                truth::truth_link(&meshes[&l.name], &prims),
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
    Ok(Prepared {
        path: path.to_path_buf(),
        manifest: m,
        sets,
        meshes,
        truth,
        always_exempt,
        warnings,
    })
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
            Ok(convert::plain_link(
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
    let (rest, _) = crate::verify::rest::check_rest(&out)?;
    out.rest_pose.clear = rest.clear;
    out.rest_pose.min_distance_m = rest.min_distance_m;
    Ok(out)
}

/// A pair the kernel cleared while the truth touches: a containment bug.
#[derive(Debug, Clone, PartialEq)]
pub struct Missed {
    pub set: Set,
    pub pose: usize,
    /// Joint values of the pose, by dof name.
    pub q: Vec<(String, f64)>,
    pub a: String,
    pub b: String,
    /// The kernel's pair value (above the margin).
    pub kernel_m: f64,
    /// The truth's rigorous lower bound and GJK's upper estimate of the distance.
    pub truth_lower_m: f64,
    pub truth_upper_m: f64,
}

/// Kernel time per configuration, microseconds.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Timing {
    pub median_us: f64,
    pub p99_us: f64,
    pub max_us: f64,
}

/// The rest pose as a set's kernel sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Rest {
    pub clear: bool,
    /// Checked pairs at or below the margin: (a, b, distance m).
    pub contacts: Vec<(String, String, f64)>,
}

/// One set's figures.
#[derive(Debug, Clone, PartialEq)]
pub struct SetReport {
    pub set: Set,
    pub primitives: usize,
    /// Primitive counts by kind (`capsule`, `box`, `box+hull`).
    pub kinds: BTreeMap<&'static str, usize>,
    /// Pairs (summed over poses) the kernel cleared while the truth touched.
    pub missed: usize,
    pub missed_poses: usize,
    /// Pairs (summed over poses) the kernel tripped while the truth was proven apart.
    pub false_stops: usize,
    /// Poses the kernel refused (any pair at or below the margin).
    pub refused: usize,
    /// Refused poses with no truth contact on any checked pair.
    pub slop_only: usize,
    pub rest: Rest,
    pub timing: Timing,
    /// The pairs with the most false stops: (a, b, count), at most five.
    pub top_false_stops: Vec<(String, String, usize)>,
}

/// What the truth is made of.
#[derive(Debug, Clone, PartialEq)]
pub struct TruthSummary {
    pub links: usize,
    pub pieces: usize,
    pub hull_vertices: usize,
    /// Links split among several primitives: (link, pieces, triangles that needed cutting).
    pub split: Vec<(String, usize, usize)>,
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
    pub truth: TruthSummary,
    /// Poses with a truth contact on a checked pair.
    pub contact_poses: usize,
    /// Truth contacts summed over poses (pairs).
    pub contact_pairs: usize,
    /// Truth contacts whose GJK hit its iteration cap (counted as contact, conservatively).
    pub undecided: usize,
    /// The pairs most often in truth contact: (a, b, poses), at most five.
    pub top_contacts: Vec<(String, String, usize)>,
    /// Checked pairs in truth contact in every pose (CAD-nested neighbours the ACM does not
    /// exempt: every pose is refused because of them, whatever the fit).
    pub always_touching: Vec<(String, String)>,
    /// ACM rows exempt as `always` (proven on the primitives) whose meshes do not touch in
    /// every pose: (a, b, poses with a truth contact), most first. The kernel does not see
    /// these contacts; a tighter fit of the two links turns such a row into a checked pair.
    pub always_exempt_apart: Vec<(String, String, usize)>,
    /// ACM rows exempt as `always` whose meshes touch in every pose.
    pub always_exempt_touching: usize,
    pub sets: Vec<SetReport>,
    pub missed: Vec<Missed>,
    /// Wall time of the pose loop (s).
    pub elapsed_s: f64,
    pub warnings: Vec<String>,
}

impl SweepReport {
    pub fn set(&self, set: Set) -> Option<&SetReport> {
        self.sets.iter().find(|s| s.set == set)
    }

    pub fn total_missed(&self) -> usize {
        self.sets.iter().map(|s| s.missed).sum()
    }
}

/// One pose's outcome, per set.
struct PoseOut {
    /// Truth contacts: (pair, lower, upper, converged).
    contacts: Vec<(u32, f64, f64, bool)>,
    /// Indices into `Prepared::always_exempt` of the exempt pairs whose meshes touch.
    exempt_contacts: Vec<u32>,
    sets: Vec<SetPose>,
}

struct SetPose {
    tripped: bool,
    /// Tripping pairs with their values.
    trips: Vec<u32>,
    /// Values of the truth-contact pairs (for missed reports).
    contact_values: Vec<f64>,
    ns: u64,
}

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

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let k = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[k] as f64 / 1e3
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

    /// Sweeps `poses` poses of `seed` over every prepared set, on the rayon pool.
    pub fn run(&self, poses: usize, seed: u64, progress: bool) -> SweepReport {
        let fit = self.fit_kernel();
        let model = &fit.model;
        let pairs = model.checked_pairs();
        let margin = self.manifest.margin_m;
        let fit_pos = self
            .sets
            .iter()
            .position(|s| s.set == Set::Fit)
            .expect("fit set");
        let bar = if progress {
            crate::report::progress::bar(poses as u64, &format!("sweeping {}", self.manifest.robot))
        } else {
            indicatif::ProgressBar::hidden()
        };
        let started = Instant::now();
        let outs: Vec<PoseOut> = (0..poses)
            .into_par_iter()
            .map_init(
                || {
                    (
                        self.sets
                            .iter()
                            .map(|s| s.kernel.model.workspace())
                            .collect::<Vec<_>>(),
                        vec![0.0; model.dof()],
                        vec![
                            Placement {
                                rot: [[0.0; 3]; 3],
                                pos: [0.0; 3]
                            };
                            model.n_links()
                        ],
                    )
                },
                |(wss, q, place), i| {
                    poses::uniform_q(model, seed, i as u64, q);
                    let mut sets = Vec::with_capacity(self.sets.len());
                    for (s, ws) in self.sets.iter().zip(wss.iter_mut()) {
                        let t = Instant::now();
                        let r = s.kernel.model.check_self_collision(q, ws, true);
                        let first = t.elapsed().as_nanos() as u64;
                        // Timed twice, the lesser kept: on a loaded machine a pre-emption
                        // (milliseconds) lands in some calls, rarely in both of a pair.
                        // The kernel is deterministic, so the second call's verdict is the same.
                        let t = Instant::now();
                        let again = s.kernel.model.check_self_collision(q, ws, true);
                        let ns = first.min(t.elapsed().as_nanos() as u64);
                        debug_assert_eq!(r.tripped, again.tripped);
                        let trips = ws
                            .pair_distances()
                            .iter()
                            .enumerate()
                            .filter(|(_, d)| d.is_nan() || **d <= margin)
                            .map(|(k, _)| k as u32)
                            .collect();
                        sets.push(SetPose {
                            tripped: r.tripped,
                            trips,
                            contact_values: Vec::new(),
                            ns,
                        });
                    }
                    let ws = &wss[fit_pos];
                    for (li, p) in place.iter_mut().enumerate() {
                        let (rot, pos) = ws.link_pose(li);
                        *p = Placement { rot, pos };
                    }
                    // The truth on links `a`, `b` at this pose (`None`: a link without geometry).
                    let truth_contact = |a: usize, b: usize| match (&self.truth[a], &self.truth[b])
                    {
                        (Some(ta), Some(tb)) => {
                            Some(truth::contact(ta, &place[a], tb, &place[b], margin))
                        }
                        _ => None,
                    };
                    let mut contacts = Vec::new();
                    for (k, &(a, b)) in pairs.iter().enumerate() {
                        if let Some(Contact::Touching {
                            lower,
                            upper,
                            converged,
                        }) = truth_contact(a, b)
                        {
                            contacts.push((k as u32, lower, upper, converged));
                        }
                    }
                    let exempt_contacts = (0..self.always_exempt.len() as u32)
                        .filter(|&k| {
                            let (a, b) = self.always_exempt[k as usize];
                            matches!(truth_contact(a, b), Some(Contact::Touching { .. }))
                        })
                        .collect();
                    for (s, ws) in sets.iter_mut().zip(wss.iter()) {
                        let d = ws.pair_distances();
                        s.contact_values = contacts.iter().map(|c| d[c.0 as usize]).collect();
                    }
                    bar.inc(1);
                    PoseOut {
                        contacts,
                        exempt_contacts,
                        sets,
                    }
                },
            )
            .collect();
        bar.finish_and_clear();
        let elapsed_s = started.elapsed().as_secs_f64();
        self.tally(outs, poses, seed, elapsed_s)
    }

    fn tally(&self, outs: Vec<PoseOut>, poses: usize, seed: u64, elapsed_s: f64) -> SweepReport {
        let fit = self.fit_kernel();
        let pairs = fit.model.checked_pairs();
        let names = &fit.link_names;
        let margin = self.manifest.margin_m;
        let contact_poses = outs.iter().filter(|o| !o.contacts.is_empty()).count();
        let contact_pairs = outs.iter().map(|o| o.contacts.len()).sum();
        let undecided = outs
            .iter()
            .flat_map(|o| &o.contacts)
            .filter(|c| !c.3)
            .count();
        let mut per_pair_contacts = vec![0usize; pairs.len()];
        for o in &outs {
            for c in &o.contacts {
                per_pair_contacts[c.0 as usize] += 1;
            }
        }
        let pair_names = |k: usize| {
            let (a, b) = pairs[k];
            (names[a].clone(), names[b].clone())
        };
        let always_touching = per_pair_contacts
            .iter()
            .enumerate()
            .filter(|(_, n)| poses > 0 && **n == poses)
            .map(|(k, _)| pair_names(k))
            .collect();
        let top_contacts = top_pairs(&per_pair_contacts, &pair_names);
        let mut exempt_touch = vec![0usize; self.always_exempt.len()];
        for o in &outs {
            for &k in &o.exempt_contacts {
                exempt_touch[k as usize] += 1;
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
        for (si, s) in self.sets.iter().enumerate() {
            let (primitives, kinds) = kind_counts(&s.manifest);
            let mut missed = 0;
            let mut missed_poses = 0;
            let mut false_stops = 0;
            let mut refused = 0;
            let mut slop_only = 0;
            let mut per_pair = vec![0usize; pairs.len()];
            let mut ns: Vec<u64> = Vec::with_capacity(outs.len());
            for (i, o) in outs.iter().enumerate() {
                let sp = &o.sets[si];
                ns.push(sp.ns);
                if sp.tripped {
                    refused += 1;
                    if o.contacts.is_empty() {
                        slop_only += 1;
                    }
                }
                let mut pose_missed = false;
                for (c, &v) in o.contacts.iter().zip(&sp.contact_values) {
                    if !(v.is_nan() || v <= margin) {
                        missed += 1;
                        pose_missed = true;
                        let mut q = vec![0.0; fit.model.dof()];
                        poses::uniform_q(&fit.model, seed, i as u64, &mut q);
                        let (a, b) = pairs[c.0 as usize];
                        missed_list.push(Missed {
                            set: s.set,
                            pose: i,
                            q: fit.dof_names.iter().cloned().zip(q).collect(),
                            a: names[a].clone(),
                            b: names[b].clone(),
                            kernel_m: v,
                            truth_lower_m: c.1,
                            truth_upper_m: c.2,
                        });
                    }
                }
                if pose_missed {
                    missed_poses += 1;
                }
                // Trips and contacts are both in pair order: a merge finds the trips with
                // no truth contact.
                let mut ci = o.contacts.iter().map(|c| c.0).peekable();
                for &k in &sp.trips {
                    while ci.next_if(|&c| c < k).is_some() {}
                    if ci.peek() != Some(&k) {
                        false_stops += 1;
                        per_pair[k as usize] += 1;
                    }
                }
            }
            ns.sort_unstable();
            let timing = Timing {
                median_us: percentile(&ns, 0.5),
                p99_us: percentile(&ns, 0.99),
                max_us: ns.last().map_or(0.0, |&x| x as f64 / 1e3),
            };
            let top = top_pairs(&per_pair, &pair_names);
            let (r, contacts) = crate::verify::rest::rest_verdict(&s.kernel, &s.manifest);
            let rest = Rest {
                clear: r.clear,
                contacts,
            };
            sets.push(SetReport {
                set: s.set,
                primitives,
                kinds,
                missed,
                missed_poses,
                false_stops,
                refused,
                slop_only,
                rest,
                timing,
                top_false_stops: top,
            });
        }
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
            contact_poses,
            contact_pairs,
            undecided,
            top_contacts,
            always_touching,
            always_exempt_apart,
            always_exempt_touching,
            sets,
            missed: missed_list,
            elapsed_s,
            warnings: self.warnings.clone(),
        }
    }
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
    compare: &[Set],
    read: &ReadOptions,
    progress: bool,
) -> Result<SweepReport> {
    let prepared = prepare(path, compare, read)?;
    Ok(prepared.run(poses, seed, progress))
}
