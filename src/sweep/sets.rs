//! The primitive sets a sweep judges (the manifest's fit and the compare sets, refitted with
//! the manifest's joints, ACM and margin) and [`Prepared`]: a manifest ready to sweep, its
//! sets' kernels and the truth.

use crate::error::{Error, Result};
use crate::fit::{self, FitOptions, Kind};
use crate::geom::mesh::TriMesh;
use crate::io::robot::ReadOptions;
use crate::manifest::kernel::{LoadedKernel, load_kernel};
use crate::manifest::sources::load_robot_beside;
use crate::manifest::{self, FitChoice, Manifest};
use crate::truth::hull::{self, TruthLink};
use crate::truth::mesh::MeshTruth;
use crate::truth::meshes::{load_meshes, truths};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

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
}
