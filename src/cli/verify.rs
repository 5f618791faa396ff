//! `collide verify MANIFEST... [--json]`: exit 0 clean, 1 on any violation, 2 on unreadable input.

use super::args::VerifyArgs;
use crate::error::Result;
use crate::io::mesh::MeshLimits;
use crate::text::Table;
use crate::verify::check::{Verified, VerifyOptions, verify};
use rayon::prelude::*;

pub fn run(args: VerifyArgs) -> Result<i32> {
    let options = VerifyOptions {
        load: args.read.load_options(),
        mesh_limits: MeshLimits {
            max_triangles: args.read.max_triangles,
        },
        max_total_triangles: args.read.max_total_triangles,
        budget: args.budget,
    };
    let mut code = 0;
    let mut results = Vec::new();
    // Manifests side by side (each also works in parallel inside): one robot's long proof
    // does not leave the other core idle. Reported in the order given.
    let paths = expand(&args.manifests);
    let verified: Vec<_> = paths
        .par_iter()
        .map(|path| verify(path, &options))
        .collect();
    for (path, outcome) in paths.iter().zip(verified) {
        match outcome {
            Ok(v) => {
                if !v.violations.is_empty() {
                    code = code.max(1);
                }
                results.push(Ok(v));
            }
            Err(e) => {
                code = 2;
                if !args.json {
                    crate::messages::error(&e);
                }
                results.push(Err((path.clone(), e)));
            }
        }
    }
    if args.json {
        let items: Vec<_> = results
            .iter()
            .map(|r| match r {
                Ok(v) => to_json(v),
                Err((path, e)) => {
                    serde_json::json!({"manifest": path.display().to_string(), "error": e.message})
                }
            })
            .collect();
        crate::outln!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({"manifests": items}))
                .expect("plain JSON")
        );
    } else {
        for v in results.iter().flatten() {
            crate::out!("{}", to_text(v));
        }
    }
    Ok(code)
}

fn to_text(v: &Verified) -> String {
    let margin = v
        .min_margin_m
        .map(|m| format!(", least margin {:.1} mm", m * 1e3))
        .unwrap_or_default();
    let user = match v.user_rows.len() {
        0 => String::new(),
        1 => ", 1 user exemption".to_string(),
        n => format!(", {n} user exemptions"),
    };
    let mut out = if v.violations.is_empty() {
        format!(
            "{}: ok ({} links{margin}, {} ACM rows proven{user})\n",
            v.manifest.display(),
            v.links,
            v.acm_rows
        )
    } else {
        format!(
            "{}: {} violation(s)\n",
            v.manifest.display(),
            v.violations.len()
        )
    };
    if !v.violations.is_empty() {
        let mut t = Table::new(&["check", "link or pair", "figure"]);
        for x in &v.violations {
            t.row(vec![
                x.check.to_string(),
                x.subject.clone(),
                x.detail.clone(),
            ]);
        }
        for line in t.render().lines() {
            out += &format!("  {line}\n");
        }
    }
    if !v.user_rows.is_empty() {
        out += "  user exemptions (robot.yaml `allow:`, not proven):\n";
        for (a, b, reason) in &v.user_rows {
            out += &format!("    {a} - {b}: {reason}\n");
        }
    }
    for w in &v.warnings {
        out += &format!("  warning: {w}\n");
    }
    out
}

fn to_json(v: &Verified) -> serde_json::Value {
    let violations: Vec<_> = v
        .violations
        .iter()
        .map(|x| serde_json::json!({"check": x.check, "subject": x.subject, "detail": x.detail}))
        .collect();
    let user_rows: Vec<_> = v
        .user_rows
        .iter()
        .map(|(a, b, reason)| serde_json::json!({"a": a, "b": b, "reason": reason}))
        .collect();
    serde_json::json!({"manifest": v.manifest.display().to_string(), "robot": v.robot, "ok": v.violations.is_empty(),
        "violations": violations, "warnings": v.warnings, "min_margin_m": v.min_margin_m,
        "links": v.links, "acm_rows": v.acm_rows, "user_rows": user_rows})
}

/// Directories stand for every `manifest.yaml` below them (sorted), so a hook can pass `robots`.
fn expand(paths: &[std::path::PathBuf]) -> Vec<std::path::PathBuf> {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.file_name().is_some_and(|n| n == "manifest.yaml") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk(p, &mut out);
        } else {
            out.push(p.clone());
        }
    }
    out
}
