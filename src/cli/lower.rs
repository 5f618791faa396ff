//! `collide lower ROBOT [--tight-link LINK[=N]]... [--out FILE] [--write] [--check] [--allow-loosen]`

use super::args::LowerArgs;
use super::rewrite::{Ending, Mode, finish, write_files};
use crate::error::{Error, Result};
use crate::fit::FitOptions;
use crate::io::atomic::Rewrite;
use crate::io::mesh::MeshLimits;
use crate::io::robot::{LoadedRobot, load_robot};
use crate::lower::refine::RefineOptions;
use crate::lower::{LowerOptions, Lowered, TightLinks, lower};
use crate::manifest::{self, Manifest};
use crate::report::link_fit_cells;
use crate::text::{Table, mm};
use std::path::{Path, PathBuf};

/// Mean protrusion may grow by this much before --write calls it loosening.
const LOOSEN_TOLERANCE_M: f64 = 1e-4;

pub fn run(args: LowerArgs) -> Result<i32> {
    for (flag, value) in [
        ("--headroom", args.headroom),
        ("--hull-headroom", args.hull_headroom),
    ] {
        if !(value.is_finite() && value >= 0.0) {
            return Err(Error::input(format!(
                "{flag} {value} must be a finite number >= 0"
            )));
        }
    }
    if let Some(b) = args.budget_us
        && !(b.is_finite() && b > 0.0)
    {
        return Err(Error::input(format!(
            "--budget-us {b} must be a positive number"
        )));
    }
    let loaded = load_robot(&args.robot, &args.read.load_options())?;
    // The command line's budget, else the config's.
    let budget_us = args
        .budget_us
        .or(loaded.config.as_ref().and_then(|c| c.budget_us));
    let options = LowerOptions {
        refine: (!args.no_refine).then(|| RefineOptions {
            budget_us,
            mesh_proofs: !args.no_mesh_proofs,
            ..RefineOptions::default()
        }),
        fit: FitOptions {
            headroom: args.headroom,
            hull_headroom: args.hull_headroom,
            ..FitOptions::default()
        },
        tight: TightLinks::parse(&args.tight_link)?,
        mesh_limits: MeshLimits {
            max_triangles: args.read.max_triangles,
        },
        max_total_triangles: args.read.max_total_triangles,
    };
    crate::progress::start(&format!(
        "collide lower {}: fitting every link, then refining on free space",
        args.robot.display()
    ));
    for w in &loaded.robot.warnings {
        crate::messages::warning(w);
    }
    let path = manifest_path(&loaded, args.out.as_deref());
    let existing_text = std::fs::read_to_string(&path).ok();
    let existing = match &existing_text {
        Some(text) => Some(manifest::parse_manifest(&path, text)?),
        None => None,
    };
    let lowered = lower(&loaded, &options, existing.as_ref())?;
    for w in &lowered.warnings {
        crate::messages::warning(w);
    }
    let file = Rewrite {
        path: path.clone(),
        old: existing_text.unwrap_or_default(),
        new: lowered.text.clone(),
    };
    let mode = Mode::new(args.write, args.check, args.json);
    let mut refused = None;
    if mode.write
        && let Some(old) = &existing
        && !args.allow_loosen
    {
        let loosened = loosened_links(old, &lowered.manifest);
        if !loosened.is_empty() {
            let mut err = Error::loosen(format!(
                "refusing to loosen {} link(s) of {} (mean protrusion grows by more than 0.1 mm); pass --allow-loosen to accept",
                loosened.len(),
                path.display()
            ));
            for (name, before, after) in loosened {
                err = err.with_context(format!(
                    "{name}: {:.1} mm -> {:.1} mm",
                    before * 1e3,
                    after * 1e3
                ));
            }
            refused = Some(err);
        }
    }
    let files = [Ending {
        file: &file,
        note: String::new(),
    }];
    if refused.is_none() {
        write_files(&files, mode)?;
    }

    if args.json {
        crate::outln!(
            "{}",
            serde_json::to_string_pretty(&links_json(&lowered)).expect("plain JSON")
        );
    } else {
        crate::out!("{}", links_table(&lowered).render());
        print_refinement(&lowered);
        print_rest(&lowered);
        crate::out!(
            "{}",
            crate::report::design_candidates_text(&lowered.design_candidates)
        );
    }
    if let Some(err) = refused {
        return Err(err);
    }
    Ok(finish(&files, mode, "collide lower"))
}

/// `--out`, else `manifest.yaml` beside the robot config, else `NAME.manifest.yaml` here.
pub fn manifest_path(loaded: &LoadedRobot, out: Option<&Path>) -> PathBuf {
    if let Some(out) = out {
        return out.to_path_buf();
    }
    match &loaded.config_path {
        Some(config) => config.with_file_name("manifest.yaml"),
        None => PathBuf::from(format!("{}.manifest.yaml", loaded.robot.name)),
    }
}

/// Links whose mean protrusion grew by more than the tolerance: (name, before, after).
fn loosened_links(old: &Manifest, new: &Manifest) -> Vec<(String, f64, f64)> {
    new.links
        .iter()
        .filter_map(|l| {
            let before = old
                .links
                .iter()
                .find(|o| o.name == l.name)?
                .fit
                .mean_protrusion_m;
            let after = l.fit.mean_protrusion_m;
            (after > before + LOOSEN_TOLERANCE_M).then(|| (l.name.clone(), before, after))
        })
        .collect()
}

fn links_table(lowered: &Lowered) -> Table {
    let mut t = Table::new(&[
        "link",
        "choice",
        "prims",
        "vol ratio",
        "max prot mm",
        "mean prot mm",
        "margin mm",
    ]);
    for l in &lowered.manifest.links {
        t.row(link_fit_cells(l));
    }
    t
}

fn links_json(lowered: &Lowered) -> serde_json::Value {
    let links: Vec<_> = lowered
        .manifest
        .links
        .iter()
        .map(|l| {
            serde_json::json!({
                "link": l.name, "choice": l.fit.choice.as_str(), "primitives": l.primitives.len(),
                "vol_ratio": l.fit.vol_ratio, "max_protrusion_m": l.fit.max_protrusion_m,
                "mean_protrusion_m": l.fit.mean_protrusion_m, "min_margin_m": l.fit.min_margin_m,
            })
        })
        .collect();
    let contacts: Vec<_> = lowered
        .rest_contacts
        .iter()
        .map(|(a, b, d)| serde_json::json!({"a": a, "b": b, "distance_m": d}))
        .collect();
    serde_json::json!({"robot": lowered.manifest.robot, "links": links,
        "rest_pose": {"clear": lowered.manifest.rest_pose.clear, "contacts": contacts}})
}

fn print_refinement(lowered: &Lowered) {
    let Some(r) = &lowered.refinement else {
        return;
    };
    let pct = |n: usize| 100.0 * n as f64 / r.poses.max(1) as f64;
    let kept = |k: Option<f64>| k.map_or("-".to_string(), |k| format!("{:.1} %", 100.0 * k));
    crate::outln!(
        "\nrefinement on {} free poses ({} rays from rest and {} seeded poses, seed {}) against the meshes: refused free {:.1} % -> {:.1} %, reach kept {} -> {}, rest trips {} -> {}, slop-only {:.1} % -> {:.1} %, refused {:.1} % -> {:.1} %, {} step(s); stopped: {}",
        r.after.free_poses,
        crate::lower::refine::REFINE_RAYS,
        r.poses,
        r.seed,
        r.before.refused_free_pct(),
        r.after.refused_free_pct(),
        kept(r.before.reach_kept),
        kept(r.after.reach_kept),
        r.before.rest_slop.len(),
        r.after.rest_slop.len(),
        pct(r.before.slop_only),
        pct(r.after.slop_only),
        pct(r.before.refused),
        pct(r.after.refused),
        r.steps.len(),
        r.stopped
    );
    crate::outln!(
        "kernel on the free poses: {:.1} -> {:.1} µs median, p99 {:.1} µs (estimated; budget {} µs); on all seeded poses {:.1} µs",
        r.before.cost.median_us,
        r.after.cost.median_us,
        r.after.cost.p99_us,
        r.budget_us,
        r.shown.estimated_all_us,
    );
    crate::outln!(
        "measured on this machine: {:.1} µs median on the free poses, {:.1} µs on all seeded poses",
        r.shown.measured_free_us,
        r.shown.measured_all_us,
    );
    if let Some(start) = &r.start {
        crate::outln!("  {start}");
    }
    for (i, s) in r.steps.iter().enumerate() {
        let links: Vec<String> = s
            .links
            .iter()
            .map(|(name, level, _)| format!("{name} ({})", level.describe()))
            .collect();
        let why = s.links.first().map_or("", |l| l.2.as_str());
        crate::outln!(
            "  step {}: {}; refused free {:.1} %, reach kept {}, rest trips {}, {:.1} µs ({why})",
            i + 1,
            links.join(", "),
            s.after.refused_free_pct(),
            kept(s.after.reach_kept),
            s.after.rest_slop.len(),
            s.after.cost.median_us,
        );
    }
    if !r.unsettled.is_empty() {
        crate::outln!(
            "\nstill tripping ({} pair(s)); raise `--budget-us` to buy a change, or exempt a contact by design with an `allow:` row:",
            r.unsettled.len()
        );
        let mut t = Table::new(&[
            "pair",
            "at rest mm",
            "free poses",
            "cheapest change that clears it",
            "µs with it",
        ]);
        for u in &r.unsettled {
            let (change, cost) = match &u.clearing {
                Some((links, cost)) => (
                    links
                        .iter()
                        .map(|(n, l)| format!("{n} {}", l.describe()))
                        .collect::<Vec<_>>()
                        .join(", "),
                    format!("{cost:.1}"),
                ),
                None => (
                    "none: the finest geometry does not clear it".into(),
                    "-".into(),
                ),
            };
            t.row(vec![
                format!("{}/{}", u.pair.0, u.pair.1),
                u.at_rest.map_or("-".into(), |v| format!("{:.1}", v * 1e3)),
                u.free_trips.to_string(),
                change,
                cost,
            ]);
        }
        crate::outln!("{}", t.render());
    }
}

fn print_rest(lowered: &Lowered) {
    let rest = &lowered.manifest.rest_pose;
    if rest.clear {
        crate::outln!(
            "\nrest pose: clear, least distance {} mm",
            mm(rest.min_distance_m)
        );
        return;
    }
    // A pair offered below as a contact by design is listed there, with its meshes' depth:
    // one depth per pair.
    let offered = |a: &String, b: &String| {
        lowered
            .design_candidates
            .iter()
            .any(|(x, y, _)| (x, y) == (a, b) || (x, y) == (b, a))
    };
    let listed: Vec<_> = lowered
        .rest_contacts
        .iter()
        .filter(|(a, b, _)| !offered(a, b))
        .collect();
    let below = lowered.rest_contacts.len() - listed.len();
    crate::outln!(
        "\nrest pose: {} pair(s) in contact (not in the ACM; run `collide acm regenerate`){}:",
        lowered.rest_contacts.len(),
        if below > 0 {
            format!(", {below} of them listed below as contacts by design")
        } else {
            String::new()
        }
    );
    for (a, b, d) in listed.iter().take(20) {
        crate::outln!(
            "  {a} - {b}: {} mm {}",
            mm(d.abs()),
            if *d < 0.0 {
                "deep"
            } else {
                "apart, within the margin"
            }
        );
    }
    if listed.len() > 20 {
        crate::outln!("  ... and {} more", listed.len() - 20);
    }
}
