//! `collide verify`: every check a committed manifest must still pass.

use crate::acm::user::USER;
use crate::acm::{PairDecider, Verdict, unexempted};
use crate::error::Result;
use crate::io::allow::AllowEntry;
use crate::io::robot::LoadOptions;
use crate::manifest::kernel::load_kernel;
use crate::manifest::sources::sha256_file;
use crate::manifest::sources::source_files;
use crate::manifest::sources::{config_beside, load_robot_beside};
use crate::manifest::{self, AcmEntry, Manifest};
use crate::model::LinkPair;
use crate::truth::mesh::MeshTruth;
use crate::truth::meshes::load_meshes;
use crate::truth::meshes::truths;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One failed check: what kind, about which link or pair, and the figure.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    pub check: &'static str,
    pub subject: String,
    pub detail: String,
}

#[derive(Debug, Clone)]
pub struct Verified {
    pub manifest: PathBuf,
    pub robot: String,
    pub violations: Vec<Violation>,
    pub warnings: Vec<String>,
    /// Least achieved containment margin over the links (m).
    pub min_margin_m: Option<f64>,
    pub links: usize,
    /// Proven ACM rows (`adjacent`, `always`, `never`).
    pub acm_rows: usize,
    /// The manifest's `user` rows (exempt by the config's `allow:`, not proven): a, b, reason.
    pub user_rows: Vec<(String, String, String)>,
}

pub struct VerifyOptions {
    pub load: LoadOptions,
    pub mesh_limits: crate::io::mesh::MeshLimits,
    pub max_total_triangles: usize,
    /// Boxes the branch and bound may use to re-prove one `never` row.
    pub budget: usize,
}

/// Why a xacro source's expansion is not the recorded one (its arguments, or what a macro
/// or an included file makes of them), if it is not.
fn xacro_change(
    recorded: Option<&manifest::XacroSource>,
    now: Option<&manifest::XacroSource>,
) -> Option<String> {
    let show = |x: &manifest::XacroSource| {
        let args: Vec<String> = x.args.iter().map(|(k, v)| format!("{k}:={v}")).collect();
        if args.is_empty() {
            "none".to_string()
        } else {
            args.join(" ")
        }
    };
    match (recorded, now) {
        (None, None) => None,
        (Some(r), Some(n)) if r == n => None,
        (Some(r), Some(n)) if r.args != n.args => Some(format!(
            "xacro arguments changed (recorded: {}; now: {}); run `collide lower`",
            show(r),
            show(n)
        )),
        (Some(_), Some(_)) => Some(
            "expands to another URDF than recorded (a changed macro or included file); run `collide lower`"
                .to_string(),
        ),
        (None, Some(_)) => {
            Some("is read as xacro now but recorded without its expansion; run `collide lower`".to_string())
        }
        (Some(_), None) => {
            Some("was recorded as xacro but is no longer expanded; run `collide lower`".to_string())
        }
    }
}

fn violation(
    check: &'static str,
    subject: impl Into<String>,
    detail: impl Into<String>,
) -> Violation {
    Violation {
        check,
        subject: subject.into(),
        detail: detail.into(),
    }
}

/// Checks one manifest. Unreadable input (the manifest, its robot) is an error; failed
/// checks are violations in the result.
pub fn verify(path: &Path, options: &VerifyOptions) -> Result<Verified> {
    let m = manifest::load_manifest_to_verify(path)?;
    let mut out = Verified {
        manifest: path.to_path_buf(),
        robot: m.robot.clone(),
        violations: Vec::new(),
        warnings: Vec::new(),
        min_margin_m: None,
        links: m.links.len(),
        acm_rows: m.acm.iter().filter(|r| r.reason != USER).count(),
        user_rows: m
            .acm
            .iter()
            .filter(|r| r.reason == USER)
            .map(|r| (r.a.clone(), r.b.clone(), r.proof.clone()))
            .collect(),
    };
    let loaded = load_robot_beside(path, &options.load, "")?;
    let allow = loaded.config.as_ref().map_or(&[][..], |c| &c.allow[..]);
    out.violations
        .extend(user_row_violations(&m, allow, &config_beside(path)));

    // A tight box's hull and DOP inside its box, as the kernel needs them: a written value
    // moved off that is a broken proof, reported like a vertex outside a capsule.
    for (link, e) in manifest::nesting_failures(&m) {
        out.violations
            .push(violation("containment", link, e.describe()));
    }

    // Sources: the same files, byte for byte.
    let recorded: BTreeMap<&str, &manifest::Source> =
        m.sources.iter().map(|s| (s.path.as_str(), s)).collect();
    let current = source_files(&loaded);
    let mut stale = false;
    for source in &current {
        // Manifests written before sources resolved on their own recorded MJCF mesh paths
        // as the MJCF writes them; both forms are accepted.
        let sha = recorded
            .get(source.path.as_str())
            .or_else(|| recorded.get(source.written.as_str()));
        match sha {
            None => {
                stale = true;
                out.violations.push(violation(
                    "stale",
                    source.path.clone(),
                    "read now but not recorded; run `collide lower`",
                ));
            }
            Some(&rec) => {
                if sha256_file(&source.file)? != rec.sha256 {
                    stale = true;
                    out.violations.push(violation(
                        "stale",
                        source.path.clone(),
                        "changed since the manifest was written; run `collide lower`",
                    ));
                } else if let Some(why) = xacro_change(rec.xacro.as_ref(), source.xacro.as_ref()) {
                    stale = true;
                    out.violations
                        .push(violation("stale", source.path.clone(), why));
                }
            }
        }
    }
    for s in &m.sources {
        if !current
            .iter()
            .any(|c| c.path == s.path || c.written == s.path)
        {
            stale = true;
            out.violations.push(violation(
                "stale",
                s.path.clone(),
                "recorded but no longer read; run `collide lower`",
            ));
        }
    }

    // The truth the proofs were made on is the one the config chooses now.
    if m.truth != loaded.robot.truth {
        stale = true;
        out.violations.push(violation(
            "stale",
            config_beside(path).display().to_string(),
            format!(
                "chooses `truth: {}`, but the manifest was proven on `{}`; run `collide lower`",
                loaded.robot.truth.as_str(),
                m.truth.as_str()
            ),
        ));
    }

    // Containment on the written numbers, every link (skipped when sources changed:
    // the truth is then not what was proven against). The meshes are kept for the
    // `always` rows, which are proven on them.
    let mut truth_meshes = None;
    if !stale {
        let cache = load_meshes(
            &loaded.robot,
            &options.mesh_limits,
            options.max_total_triangles,
        )?;
        out.warnings.extend(cache.warnings.iter().cloned());
        let truth: BTreeMap<String, _> = truths(&loaded.robot, &cache)?.into_iter().collect();
        for name in truth.keys() {
            if !m.links.iter().any(|l| &l.name == name) {
                out.violations.push(violation(
                    "containment",
                    name.clone(),
                    "has geometry but no primitives",
                ));
            }
        }
        let proofs: Vec<_> = m
            .links
            .par_iter()
            .map(|link| match truth.get(&link.name) {
                None => Err(violation(
                    "containment",
                    link.name.clone(),
                    "has primitives but no geometry in the robot",
                )),
                Some(mesh) => crate::manifest::proof::prove_link(link, mesh)
                    .map_err(|e| violation("containment", link.name.clone(), e.message)),
            })
            .collect();
        for p in proofs {
            match p {
                Ok(proof) => {
                    out.min_margin_m = Some(
                        out.min_margin_m
                            .map_or(proof.min_margin_m, |v: f64| v.min(proof.min_margin_m)),
                    )
                }
                Err(v) => out.violations.push(v),
            }
        }
        truth_meshes = Some(truth);
    }

    // The kernel loads it as written.
    let kernel = match load_kernel(&m) {
        Ok(k) => k,
        Err(e) => {
            out.violations
                .push(violation("kernel", m.robot.clone(), e.message));
            return Ok(out);
        }
    };

    // Every ACM row's proof still holds.
    // The same kernel with every pair checked (built once: only its pair tables change).
    let open = unexempted(&kernel)?;
    // Only `always` rows and `never` rows on the meshes are proven on them: the other
    // links' BVHs are not built.
    let on_meshes =
        |r: &AcmEntry| r.reason == "always" || r.proof.starts_with(crate::acm::MESHES_NEVER);
    let mesh_truth = truth_meshes.map(|mut t| {
        t.retain(|name, _| {
            m.acm
                .iter()
                .any(|r| on_meshes(r) && (&r.a == name || &r.b == name))
        });
        MeshTruth::new(&open.link_names, &t).with_margin(m.margin_m)
    });
    let decider = PairDecider::new(&open, m.margin_m, options.budget, mesh_truth.as_ref());
    let rows: Vec<_> = m
        .acm
        .par_iter()
        .map_init(
            || open.model.workspace(),
            |ws, row| {
                if row.reason == USER {
                    // Decided, not proven: checked against the config's `allow:` above.
                    return Ok(None);
                }
                let Some(pi) = decider.pair_index(&row.a, &row.b) else {
                    // A pair with a link without primitives is never checked: nothing to prove.
                    return Ok(None);
                };
                let now = decider.decide(ws, pi).verdict;
                if now.category() == row.reason {
                    Ok(None)
                } else {
                    Err(violation(
                        "acm",
                        format!("{} - {}", row.a, row.b),
                        format!(
                            "recorded {} ({}), now {}",
                            row.reason,
                            row.proof,
                            describe(&now)
                        ),
                    ))
                }
            },
        )
        .collect();
    for r in rows {
        match r {
            Ok(Some(w)) => out.warnings.push(w),
            Ok(None) => {}
            Err(v) => out.violations.push(v),
        }
    }

    // The rest pose gives the recorded verdict.
    let (rest, _) = crate::manifest::rest::rest_verdict(&kernel, &m);
    if rest.clear != m.rest_pose.clear || rest.min_distance_m != m.rest_pose.min_distance_m {
        out.violations.push(violation(
            "rest pose",
            m.robot.clone(),
            format!(
                "recorded {} at {:.1} mm, now {} at {:.1} mm",
                if m.rest_pose.clear {
                    "clear"
                } else {
                    "tripped"
                },
                m.rest_pose.min_distance_m * 1e3,
                if rest.clear { "clear" } else { "tripped" },
                rest.min_distance_m * 1e3
            ),
        ));
    }
    Ok(out)
}

/// The manifest's `user` rows and the config's `allow:` entries must be the same pairs with
/// the same reasons: a `user` row the config does not hold is an exemption nobody decided.
fn user_row_violations(m: &Manifest, allow: &[AllowEntry], config: &Path) -> Vec<Violation> {
    let mut out = Vec::new();
    let place = |e: &AllowEntry| match e.at {
        Some((line, _)) => format!("{}:{line}", config.display()),
        None => config.display().to_string(),
    };
    for row in m.acm.iter().filter(|r| r.reason == USER) {
        let pair = format!("{} - {}", row.a, row.b);
        let key = LinkPair::new(&row.a, &row.b);
        match allow.iter().find(|e| e.pair() == key) {
            None => out.push(violation(
                "acm",
                pair,
                format!(
                    "a `user` row, but {} does not exempt the pair in its `allow:` list; add it there with its reason, or run `collide acm regenerate --write`",
                    config.display()
                ),
            )),
            Some(e) if e.reason != row.proof => out.push(violation(
                "acm",
                pair,
                format!(
                    "the `user` row's reason {:?} is not the one in {} ({:?}); run `collide acm regenerate --write`",
                    row.proof,
                    place(e),
                    e.reason
                ),
            )),
            Some(_) => {}
        }
    }
    for e in allow {
        let pair = e.pair();
        let (a, b) = (&pair.a, &pair.b);
        // A pair proven anyway keeps its proven row (the entry is redundant, not missing).
        if !m.acm.iter().any(|r| LinkPair::new(&r.a, &r.b) == pair) {
            out.push(violation(
                "acm",
                format!("{a} - {b}"),
                format!(
                    "exempted by {} but not in the manifest's acm block; run `collide acm regenerate --write`",
                    place(e)
                ),
            ));
        }
    }
    out
}

fn describe(v: &Verdict) -> String {
    match v {
        Verdict::Reaches { distance, q, .. } => {
            let q: Vec<String> = q.iter().map(|(n, x)| format!("{n}={x:.4}")).collect();
            format!("can collide: {:.1} mm at {}", distance * 1e3, q.join(" "))
        }
        Verdict::Unproven { boxes, closest } => {
            format!(
                "unproven after {} boxes (closest {:.1} mm)",
                crate::text::thousands(*boxes),
                closest * 1e3
            )
        }
        other => other.category().to_string(),
    }
}
