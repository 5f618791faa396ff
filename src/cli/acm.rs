//! `collide acm regenerate ROBOT [--write] [--check] [--srdf-out FILE] [--keep-srdf ...]`

use super::args::{AcmArgs, AcmCommand, KeepSrdf as KeepArg};
use super::lower::{manifest_path, unified_diff};
use crate::acm::{self, AcmOptions, KeepSrdf, Regenerated, SrdfStatus, Verdict};
use crate::error::{Error, Result};
use crate::io::manifest;
use crate::io::robot::load_robot;
use crate::report::table::Table;
use std::time::Instant;

pub fn run(command: AcmCommand) -> Result<i32> {
    match command {
        AcmCommand::Regenerate(args) => regenerate(args),
    }
}

fn regenerate(args: AcmArgs) -> Result<i32> {
    let started = Instant::now();
    let loaded = load_robot(&args.robot, &args.read.load_options())?;
    let path = args
        .manifest
        .clone()
        .unwrap_or_else(|| manifest_path(&loaded, None));
    if !path.is_file() {
        return Err(Error::at(
            &path,
            None,
            "no manifest here; run `collide lower --write` first",
        ));
    }
    let old_text = std::fs::read_to_string(&path)
        .map_err(|e| Error::at(&path, None, format!("cannot read: {e}")))?;
    let mut m = manifest::parse_manifest(&path, &old_text)?;
    let options = AcmOptions {
        budget: args.budget,
        samples: args.samples,
        seed: args.seed,
        keep_srdf: match args.keep_srdf {
            KeepArg::Unproven => KeepSrdf::Unproven,
            KeepArg::Proven => KeepSrdf::Proven,
            KeepArg::None => KeepSrdf::None,
        },
    };
    let cache = crate::lower::load_meshes(
        &loaded.robot,
        &crate::io::mesh::MeshLimits {
            max_triangles: args.read.max_triangles,
        },
        args.read.max_total_triangles,
    )?;
    let truths = crate::lower::truths(&loaded.robot, &cache)?
        .into_iter()
        .collect();
    let result = acm::regenerate(&m, loaded.srdf.as_ref(), &options, Some(&truths))?;
    m.acm = result.rows.clone();
    let (rest, contacts) = crate::verify::rest::check_rest(&m)?;
    m.rest_pose.clear = rest.clear;
    m.rest_pose.min_distance_m = rest.min_distance_m;
    let text = manifest::to_yaml(&m)?;
    manifest::parse_manifest(&path, &text)?;
    let changed = text != old_text;

    // Files are written before anything is printed: a reader that goes away early
    // (`| head`) cannot cost a write.
    if let Some(out) = &args.srdf_out {
        crate::io::atomic::write_atomic(out, acm::srdf_text(&m.robot, &m.acm).as_bytes())?;
    }
    let write = args.write && !args.check;
    if write && changed {
        crate::io::atomic::write_atomic(&path, text.as_bytes())?;
    }
    if args.json {
        crate::outln!(
            "{}",
            serde_json::to_string_pretty(&json(&result, &m, started)).expect("plain JSON")
        );
    } else {
        crate::out!("{}", summary(&result, started));
        if !m.rest_pose.clear {
            crate::outln!(
                "\nrest pose: {} checked pair(s) in contact:",
                contacts.len()
            );
            for (a, b, d) in &contacts {
                crate::outln!("  {a} - {b}: {:.1} mm", d * 1e3);
            }
        }
    }
    if let Some(out) = &args.srdf_out {
        crate::messages::note(&format!("wrote {}", out.display()));
    }
    if args.check {
        if changed {
            crate::messages::verdict(&format!(
                "{} would change; run `collide acm regenerate --write`",
                path.display()
            ));
            return Ok(1);
        }
        return Ok(0);
    }
    if write {
        if changed {
            crate::messages::note(&format!("wrote {}", path.display()));
        } else {
            crate::messages::note(&format!("{} is up to date", path.display()));
        }
    } else if changed && !args.json {
        crate::out!("{}", unified_diff(&old_text, &text, &path));
    }
    Ok(0)
}

fn q_text(q: &[(String, f64)]) -> String {
    q.iter()
        .map(|(n, v)| format!("{n}={v:.4}"))
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn summary(r: &Regenerated, started: Instant) -> String {
    let mut out = String::new();
    let mut cats = Table::new(&["category", "pairs", "exempt"]);
    for (cat, exempt) in [
        ("adjacent", "yes"),
        ("always", "yes"),
        ("never", "yes"),
        ("can collide", "no"),
        ("unproven", "no"),
    ] {
        let n = r
            .pairs
            .iter()
            .filter(|p| p.verdict.category() == cat)
            .count();
        cats.row(vec![cat.into(), n.to_string(), exempt.into()]);
    }
    out += &cats.render();
    out += &format!(
        "{} pairs decided, {} exempt, in {:.2} s\n",
        r.pairs.len(),
        r.rows.len(),
        started.elapsed().as_secs_f64()
    );
    let loose: Vec<_> = r
        .pairs
        .iter()
        .filter_map(|p| p.primitive_always.as_ref().map(|proof| (p, proof)))
        .collect();
    if !loose.is_empty() {
        out += &format!(
            "
{} pair(s) checked although their primitives overlap at every configuration: the meshes do not (`always` is proven on the meshes); the primitives are loose there:\n",
            loose.len()
        );
        let mut t = Table::new(&["link a", "link b", "category", "primitives' proof"]);
        for (p, proof) in loose {
            t.row(vec![
                p.a.clone(),
                p.b.clone(),
                p.verdict.category().into(),
                proof.clone(),
            ]);
        }
        out += &t.render();
    }
    if !r.srdf.is_empty() {
        let count =
            |f: &dyn Fn(&SrdfStatus) -> bool| r.srdf.iter().filter(|s| f(&s.status)).count();
        out += &format!(
            "\nSRDF rows: {} proven, {} refuted, {} unproven, {} without geometry\n",
            count(&|s| matches!(s, SrdfStatus::Proven(_))),
            count(&|s| matches!(s, SrdfStatus::Refuted { .. })),
            count(&|s| matches!(s, SrdfStatus::Unproven(_))),
            count(&|s| matches!(s, SrdfStatus::NoGeometry)),
        );
        let mut t = Table::new(&["link a", "link b", "SRDF reason", "status", "evidence"]);
        for s in &r.srdf {
            let (status, evidence) = match &s.status {
                SrdfStatus::Proven(cat) => ("proven".to_string(), cat.to_string()),
                SrdfStatus::Refuted { q, depth } => (
                    "REFUTED".to_string(),
                    format!(
                        "overlap: common ball {:.1} mm at {}",
                        depth * 1e3,
                        q_text(q)
                    ),
                ),
                SrdfStatus::Unproven(why) => ("unproven".to_string(), why.clone()),
                SrdfStatus::NoGeometry => ("no geometry".to_string(), String::new()),
            };
            t.row(vec![
                s.a.clone(),
                s.b.clone(),
                s.reason.clone(),
                status,
                evidence,
            ]);
        }
        out += &t.render();
    }
    let s = &r.sampling;
    out += &format!("\nsampling ({} seeded poses, report only):\n", s.samples);
    let mut t = Table::new(&["link a", "link b", "category", "colliding poses"]);
    for (a, b, c) in s.colliding.iter().take(15) {
        let cat = r
            .pairs
            .iter()
            .find(|p| &p.a == a && &p.b == b)
            .map(|p| p.verdict.category())
            .unwrap_or("-");
        t.row(vec![
            a.clone(),
            b.clone(),
            cat.into(),
            format!("{:.1}%", 100.0 * *c as f64 / s.samples.max(1) as f64),
        ]);
    }
    if t.is_empty() {
        out += "no pair collided in any sample\n";
    } else {
        out += &t.render();
    }
    out
}

fn json(r: &Regenerated, m: &manifest::Manifest, started: Instant) -> serde_json::Value {
    let pairs: Vec<_> = r
        .pairs
        .iter()
        .map(|p| {
            let mut v = serde_json::json!({"a": p.a, "b": p.b, "category": p.verdict.category()});
            if let Some(proof) = &p.primitive_always {
                v["primitives_always"] = proof.clone().into();
            }
            match &p.verdict {
                Verdict::Adjacent(proof) | Verdict::Always(proof) | Verdict::Never(proof) => {
                    v["proof"] = proof.clone().into()
                }
                Verdict::Reaches {
                    q,
                    distance,
                    overlap,
                } => {
                    v["q"] = serde_json::json!(
                        q.iter()
                            .cloned()
                            .collect::<std::collections::BTreeMap<_, _>>()
                    );
                    v["distance_m"] = (*distance).into();
                    v["overlap_m"] = serde_json::json!(overlap);
                }
                Verdict::Unproven { boxes, closest } => {
                    v["boxes"] = (*boxes).into();
                    v["closest_m"] = (*closest).into();
                }
            }
            v
        })
        .collect();
    let srdf: Vec<_> = r
        .srdf
        .iter()
        .map(|s| {
            let (status, extra) = match &s.status {
                SrdfStatus::Proven(c) => ("proven", serde_json::json!({"by": c})),
                SrdfStatus::Refuted { q, depth } => ("refuted", serde_json::json!({"depth_m": depth,
                    "q": q.iter().cloned().collect::<std::collections::BTreeMap<_, _>>()})),
                SrdfStatus::Unproven(why) => ("unproven", serde_json::json!({"why": why})),
                SrdfStatus::NoGeometry => ("no_geometry", serde_json::json!({})),
            };
            serde_json::json!({"a": s.a, "b": s.b, "reason": s.reason, "line": s.line, "status": status, "detail": extra})
        })
        .collect();
    serde_json::json!({"robot": m.robot, "pairs": pairs, "srdf": srdf, "rows": m.acm.len(),
        "seconds": started.elapsed().as_secs_f64()})
}
