//! Lowering a robot: truth geometry per link, fits in parallel, the manifest built
//! from the written values, checked by the embedded kernel and proven again on the
//! text as it will be written.

use crate::error::{Error, Result};
use crate::fit::{FitOptions, LinkFit};
use crate::io::mesh::MeshLimits;
use crate::io::robot::LoadedRobot;
use crate::manifest::sources::{generator, sha256_file, source_files};
use crate::manifest::{self, Manifest};
use crate::truth::meshes::{load_meshes, truths};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

pub mod refine;

use refine::{Level, LinkPlan, RefineOptions, Refinement};

/// Which links are lowered as box + hull (`--tight-link`), and into at most how
/// many pieces.
#[derive(Debug, Clone, Default)]
pub struct TightLinks {
    pub all: Option<usize>,
    pub links: BTreeMap<String, usize>,
}

impl TightLinks {
    /// Parses `--tight-link LINK[=N|=auto]` values (`all` for every link).
    pub fn parse(values: &[String]) -> Result<Self> {
        let budget = crate::fit::decompose::PIECE_BUDGET;
        let mut out = TightLinks::default();
        for v in values {
            let (name, n) = match v.split_once('=') {
                Some((name, "auto")) => (name, budget),
                Some((name, n)) => {
                    let n: usize = n
                        .parse()
                        .ok()
                        .filter(|&n| (1..=budget).contains(&n))
                        .ok_or_else(|| {
                            Error::input(format!(
                                "--tight-link {v}: the piece count must be 1 to {budget}, or `auto`"
                            ))
                        })?;
                    (name, n)
                }
                None => (v.as_str(), 1),
            };
            if name.is_empty() {
                return Err(Error::input(format!("--tight-link {v}: no link named")));
            }
            if name == "all" {
                out.all = Some(n);
            } else {
                out.links.insert(name.to_string(), n);
            }
        }
        Ok(out)
    }

    pub fn is_empty(&self) -> bool {
        self.all.is_none() && self.links.is_empty()
    }

    /// A link's starting plan: `--tight-link LINK`, else the committed manifest's
    /// refinement (its piece count and reason), else `--tight-link all`, else the
    /// fit rule.
    fn plan(&self, link: &str, existing: Option<&manifest::Link>) -> LinkPlan {
        if let Some(&n) = self.links.get(link) {
            return LinkPlan {
                level: Level::Pieces(n),
                reason: format!("--tight-link {link}={n}"),
                locked: true,
            };
        }
        let kept = existing.and_then(|l| {
            let n = l
                .primitives
                .iter()
                .filter(|p| matches!(p, manifest::Primitive::Box(b) if b.tight().is_some()))
                .count();
            (n > 0).then(|| LinkPlan {
                level: Level::Pieces(n),
                reason: if l.fit.reason.is_empty() {
                    "kept from the committed manifest".into()
                } else {
                    l.fit.reason.clone()
                },
                locked: false,
            })
        });
        if let Some(plan) = kept {
            return plan;
        }
        match self.all {
            Some(n) => LinkPlan {
                level: Level::Pieces(n),
                reason: format!("--tight-link all={n}"),
                locked: true,
            },
            None => LinkPlan {
                level: Level::Rule,
                reason: "fit rule".into(),
                locked: false,
            },
        }
    }
}

#[derive(Debug, Clone)]
pub struct LowerOptions {
    pub fit: FitOptions,
    pub tight: TightLinks,
    /// `None`: no automatic refinement (`--no-refine`).
    pub refine: Option<RefineOptions>,
    pub mesh_limits: MeshLimits,
    pub max_total_triangles: usize,
}

/// A lowered robot: the manifest as written, its text, and each link's fit.
pub struct Lowered {
    pub manifest: Manifest,
    pub text: String,
    pub fits: Vec<(String, LinkFit)>,
    /// Resting contacts: (a, b, distance) for checked pairs at or below the margin.
    pub rest_contacts: Vec<crate::manifest::rest::Contact>,
    /// Truth meshes by link, for proofs and reports.
    pub truths: BTreeMap<String, crate::geom::mesh::TriMesh>,
    /// Each link's plan as fitted (level and reason).
    pub plans: BTreeMap<String, LinkPlan>,
    /// What the automatic refinement measured and did.
    pub refinement: Option<Refinement>,
    /// What the mesh readers ignored, one line each: the caller prints them.
    pub warnings: Vec<String>,
    /// When the rest pose trips on a real contact: the contacts by design `collide init`
    /// would offer (a, b, evidence).
    pub design_candidates: Vec<(String, String, String)>,
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
    let mut plans: BTreeMap<String, LinkPlan> = truths
        .iter()
        .map(|(name, _)| (name.clone(), options.tight.plan(name, existing_link(name))))
        .collect();
    let truth_map: BTreeMap<String, _> = truths.iter().cloned().collect();

    let mut sources = Vec::new();
    for source in source_files(loaded) {
        sources.push(manifest::Source {
            path: source.path,
            sha256: sha256_file(&source.file)?,
            xacro: source.xacro,
        });
    }
    let rest = loaded.rest_pose()?;
    let rest_q = manifest::JointValues(
        robot
            .active_joints()
            .map(|(i, j)| (j.name.clone(), rest.values[i]))
            .collect(),
    );
    let planned = |fits: &[(String, LinkFit)], plans: &BTreeMap<String, LinkPlan>| {
        fits.iter()
            .map(|(name, f)| refine::planned_link(name, f, &plans[name]))
            .collect::<Vec<manifest::Link>>()
    };
    // The user's exemptions (the config's `allow:`), whose pairs need no refining.
    let user_pairs: Vec<(String, String)> = loaded
        .config
        .as_ref()
        .map(|c| c.allow.iter().map(|e| (e.a.clone(), e.b.clone())).collect())
        .unwrap_or_default();
    // The manifest without its links: what the neighbours at rest are placed with.
    let mut manifest = Manifest {
        generator: generator(),
        sources,
        headroom_m: options.fit.headroom,
        hull_headroom_m: options.fit.hull_headroom,
        margin_m: existing.map(|m| m.margin_m).unwrap_or(0.0),
        rest_pose: manifest::RestPose {
            q: rest_q,
            clear: true,
            min_distance_m: 0.0,
        },
        ..manifest::fit::skeleton(robot)
    };
    // A decomposition keeps the meshes of the links each link must clear (at rest, and
    // where the robot comes closest on its way out from rest) out of its pieces' hulls.
    let avoid = refine::neighbours_to_clear(&manifest, &truth_map, &user_pairs)?;
    let no_points = Vec::new();
    let progress = crate::progress::bar(truths.len() as u64, "fitting links");
    let mut fits: Vec<(String, LinkFit)> = truths
        .par_iter()
        .map(|(name, mesh)| {
            let result = refine::fit_at(
                mesh,
                plans[name].level,
                &options.fit,
                avoid.get(name).unwrap_or(&no_points),
            );
            progress.inc(1);
            result.map(|f| (name.clone(), f)).map_err(|mut err| {
                err.message = format!("link `{name}` of `{}`: {}", robot.name, err.message);
                err
            })
        })
        .collect::<Result<_>>()?;
    progress.finish_and_clear();
    let links = planned(&fits, &plans);
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
    manifest.links = links;
    manifest.acm = acm;
    let refinement = match &options.refine {
        Some(r) => {
            let inputs = refine::Inputs {
                truths: &truth_map,
                fit: &options.fit,
                user: &user_pairs,
                avoid: &avoid,
            };
            let done = refine::refine(&manifest, &mut fits, &mut plans, &inputs, r)?;
            manifest.links = planned(&fits, &plans);
            Some(done)
        }
        None => None,
    };
    let (rest_check, rest_contacts) = crate::manifest::rest::check_rest(&manifest)?;
    manifest.rest_pose.clear = rest_check.clear;
    manifest.rest_pose.min_distance_m = rest_check.min_distance_m;
    let text = manifest::to_yaml(&manifest)?;
    // The proof runs on the text as it will be written, read back.
    let written = manifest::parse_manifest(Path::new("<new manifest>"), &text)?;
    crate::manifest::proof::prove_manifest(&written, &truth_map)?;
    // No ACM yet: the adjacent pairs `acm regenerate` will exempt are no contacts by design.
    let design_candidates =
        crate::truth::design::at_rest_candidates(&adjacent_exempt(&written)?, &truth_map)?;
    Ok(Lowered {
        manifest: written,
        text,
        fits,
        rest_contacts,
        truths: truth_map,
        plans,
        refinement,
        warnings: cache.warnings,
        design_candidates,
    })
}

/// `m` with the adjacent pairs in its ACM, as `acm regenerate` exempts them (its rule:
/// [`crate::acm::adjacency`]), over the rows it holds.
fn adjacent_exempt(m: &Manifest) -> Result<Manifest> {
    let k = crate::manifest::kernel::load_kernel(m)?;
    let tree = crate::acm::adjacency::LinkTree::of_model(&k.model);
    let mut out = m.clone();
    for (a, b, _) in tree.adjacent_pairs() {
        let (a, b) = (&k.link_names[a], &k.link_names[b]);
        if !out
            .acm
            .iter()
            .any(|r| (&r.a, &r.b) == (a, b) || (&r.a, &r.b) == (b, a))
        {
            out.acm.push(manifest::AcmEntry {
                a: a.clone(),
                b: b.clone(),
                reason: "adjacent".into(),
                proof: String::new(),
            });
        }
    }
    Ok(out)
}
