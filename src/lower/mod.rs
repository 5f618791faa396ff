//! Lowering a robot: truth geometry per link, fits in parallel, the manifest built
//! from the written values, checked by the embedded kernel and proven again on the
//! text as it will be written.

use crate::error::{Error, Result};
use crate::fit::{self, FitOptions, LinkFit};
use crate::io::manifest::{self, Manifest};
use crate::io::mesh::MeshLimits;
use crate::io::robot::LoadedRobot;
use crate::model::truth::{MeshCache, link_truth};
use crate::model::{Robot, Shape};
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub mod convert;

/// Which links are lowered as box + hull, and into how many slabs.
#[derive(Debug, Clone, Default)]
pub struct TightLinks {
    pub all: Option<usize>,
    pub links: BTreeMap<String, usize>,
}

impl TightLinks {
    /// Parses `--tight-link LINK[=N]` values (`all` for every link).
    pub fn parse(values: &[String]) -> Result<Self> {
        let mut out = TightLinks::default();
        for v in values {
            let (name, n) = match v.split_once('=') {
                Some((name, n)) => {
                    let n: usize = n
                        .parse()
                        .ok()
                        .filter(|&n| (1..=16).contains(&n))
                        .ok_or_else(|| {
                            Error::input(format!(
                                "--tight-link {v}: the slab count must be 1 to 16"
                            ))
                        })?;
                    (name, n)
                }
                None => (v.as_str(), 1),
            };
            if name == "all" {
                out.all = Some(n);
            } else {
                out.links.insert(name.to_string(), n);
            }
        }
        Ok(out)
    }

    fn slabs(&self, link: &str, existing: Option<&manifest::Link>) -> Option<usize> {
        if let Some(&n) = self.links.get(link) {
            return Some(n);
        }
        // A link refined before stays refined, with its slab count.
        let kept = existing.and_then(|l| {
            let n = l
                .primitives
                .iter()
                .filter(|p| matches!(p, manifest::Primitive::Box(b) if b.tight().is_some()))
                .count();
            (n > 0).then_some(n)
        });
        kept.or(self.all)
    }
}

#[derive(Debug, Clone)]
pub struct LowerOptions {
    pub fit: FitOptions,
    pub tight: TightLinks,
    pub mesh_limits: MeshLimits,
    pub max_total_triangles: usize,
}

/// A lowered robot: the manifest as written, its text, and each link's fit.
pub struct Lowered {
    pub manifest: Manifest,
    pub text: String,
    pub fits: Vec<(String, LinkFit)>,
    /// Resting contacts: (a, b, distance) for checked pairs at or below the margin.
    pub rest_contacts: Vec<crate::verify::rest::Contact>,
    /// Truth meshes by link, for proofs and reports.
    pub truths: BTreeMap<String, crate::geom::mesh::TriMesh>,
}

pub fn generator() -> String {
    format!("collide {}", env!("CARGO_PKG_VERSION"))
}

pub fn sha256_file(path: &Path) -> Result<String> {
    let bytes =
        std::fs::read(path).map_err(|e| Error::at(path, None, format!("cannot read: {e}")))?;
    Ok(Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// One file a manifest depends on.
pub struct SourceFile {
    /// As the manifest records it: as given in the robot config, else a reference that
    /// resolves on its own (`package://`, or relative to the manifest's directory).
    pub path: String,
    /// As the robot's own files write it (mesh references relative to an MJCF's
    /// `meshdir`): what manifests recorded before, still accepted by `verify`.
    pub written: String,
    pub file: PathBuf,
}

/// Every file the manifest depends on (config entries, included files, then mesh
/// references sorted). The manifest lies beside the robot config (or, for a bare robot
/// file, in the working directory).
pub fn source_files(loaded: &LoadedRobot) -> Vec<SourceFile> {
    let base = loaded
        .config_path
        .as_deref()
        .and_then(Path::parent)
        .unwrap_or(Path::new(""));
    let own = |written: String, file: PathBuf| {
        let path = if written.starts_with("package://") {
            written.clone()
        } else {
            loaded.resolver.reference_for(&file, base)
        };
        SourceFile {
            path,
            written,
            file,
        }
    };
    let mut out: Vec<SourceFile> = loaded
        .sources
        .iter()
        .map(|(given, file)| SourceFile {
            path: given.clone(),
            written: given.clone(),
            file: file.clone(),
        })
        .collect();
    for extra in loaded.robot.files.iter().skip(1) {
        out.push(own(extra.display().to_string(), extra.clone()));
    }
    let mut meshes: BTreeMap<String, PathBuf> = BTreeMap::new();
    for l in &loaded.robot.links {
        for g in &l.geometry {
            if let Shape::Mesh { uri, path, .. } = &g.shape {
                meshes.insert(uri.clone(), path.clone());
            }
        }
    }
    out.extend(meshes.into_iter().map(|(uri, file)| own(uri, file)));
    out
}

/// Loads every mesh the robot names, once each.
pub fn load_meshes(
    robot: &Robot,
    limits: &MeshLimits,
    max_total_triangles: usize,
) -> Result<MeshCache> {
    let keys = crate::model::truth::mesh_keys(robot);
    MeshCache::load_for(&robot.source, &keys, limits, max_total_triangles)
}

/// Every link's truth mesh (links without geometry are left out), in link order.
pub fn truths(
    robot: &Robot,
    cache: &MeshCache,
) -> Result<Vec<(String, crate::geom::mesh::TriMesh)>> {
    let mut out = Vec::new();
    for link in &robot.links {
        if let Some(mesh) = link_truth(link, cache)? {
            out.push((link.name.clone(), mesh));
        }
    }
    Ok(out)
}

pub fn lower(
    loaded: &LoadedRobot,
    options: &LowerOptions,
    existing: Option<&Manifest>,
) -> Result<Lowered> {
    let robot = &loaded.robot;
    for name in options.tight.links.keys() {
        if robot.link_index(name).is_none() {
            return Err(Error::input(format!(
                "--tight-link names `{name}`, which is not a link of `{}`",
                robot.name
            )));
        }
    }
    let cache = load_meshes(robot, &options.mesh_limits, options.max_total_triangles)?;
    let truths = truths(robot, &cache)?;
    let existing_link = |name: &str| existing.and_then(|m| m.links.iter().find(|l| l.name == name));
    let progress = crate::report::progress::bar(truths.len() as u64, "fitting links");
    let fits: Vec<(String, LinkFit)> = truths
        .par_iter()
        .map(|(name, mesh)| {
            let result = match options.tight.slabs(name, existing_link(name)) {
                Some(n) => fit::fit_tight(mesh, n, &options.fit),
                None => fit::fit_link(mesh, &options.fit),
            };
            progress.inc(1);
            result.map(|f| (name.clone(), f)).map_err(|e| {
                let mut err: Error = e.into();
                err.message = format!("link `{name}` of `{}`: {}", robot.name, err.message);
                err
            })
        })
        .collect::<Result<_>>()?;
    progress.finish_and_clear();

    let mut sources = Vec::new();
    for source in source_files(loaded) {
        sources.push(manifest::Source {
            path: source.path,
            sha256: sha256_file(&source.file)?,
        });
    }
    let rest = loaded.rest_pose()?;
    let rest_q = manifest::JointValues(
        robot
            .active_joints()
            .map(|(i, j)| (j.name.clone(), rest.values[i]))
            .collect(),
    );
    let links: Vec<manifest::Link> = fits
        .iter()
        .map(|(name, f)| convert::manifest_link(name, f))
        .collect();
    let acm = match existing {
        Some(m) => m
            .acm
            .iter()
            .filter(|row| {
                links.iter().any(|l| l.name == row.a) && links.iter().any(|l| l.name == row.b)
            })
            .cloned()
            .collect(),
        None => Vec::new(),
    };
    let mut manifest = Manifest {
        schema_version: manifest::SCHEMA_VERSION,
        robot: robot.name.clone(),
        generator: generator(),
        sources,
        headroom_m: options.fit.headroom,
        margin_m: existing.map(|m| m.margin_m).unwrap_or(0.0),
        rest_pose: manifest::RestPose {
            q: rest_q,
            clear: true,
            min_distance_m: 0.0,
        },
        joints: robot
            .joints
            .iter()
            .map(|j| convert::manifest_joint(robot, j))
            .collect(),
        links,
        acm,
    };
    let (rest_check, rest_contacts) = crate::verify::rest::check_rest(&manifest)?;
    manifest.rest_pose.clear = rest_check.clear;
    manifest.rest_pose.min_distance_m = rest_check.min_distance_m;
    let text = manifest::to_yaml(&manifest)?;
    // The proof runs on the text as it will be written, read back.
    let written = manifest::parse_manifest(Path::new("<new manifest>"), &text)?;
    let truth_map: BTreeMap<String, _> = truths.into_iter().collect();
    crate::verify::containment::prove_manifest(&written, &truth_map)?;
    Ok(Lowered {
        manifest: written,
        text,
        fits,
        rest_contacts,
        truths: truth_map,
    })
}
