//! `collide acm regenerate ROBOT [--write] [--check] [--srdf-out FILE] [--keep-srdf ...] [--adopt-srdf[=A,B]]`

use super::args::{AcmArgs, AcmCommand, KeepSrdf as KeepArg};
use super::lower::manifest_path;
use super::rewrite::{Ending, Mode, finish, write_files};
use crate::acm::regenerate::regenerate_robot;
use crate::acm::user::{Adopt, UserRow, UserStatus};
use crate::acm::{self, AcmOptions, KeepSrdf, Regenerated, SrdfStatus, Verdict};
use crate::error::{Error, Result};
use crate::io::allow::AllowEntry;
use crate::io::robot::load_robot;
use crate::manifest;
use crate::text::Table;
use std::path::Path;
use std::time::Instant;

pub fn run(command: AcmCommand) -> Result<i32> {
    match command {
        AcmCommand::Regenerate(args) => regenerate(args),
    }
}

fn regenerate(args: AcmArgs) -> Result<i32> {
    let started = Instant::now();
    if args.keep_srdf == KeepArg::Unproven {
        return Err(Error::input(
            "--keep-srdf unproven is gone: an SRDF row collide cannot prove is exempt only as an `allow:` entry of robot.yaml, with its reason; `--adopt-srdf` copies such rows there",
        ));
    }
    let adopt = adopt_selection(&args.adopt_srdf)?;
    let read = args.read.sweep_read();
    crate::progress::start(&format!(
        "collide acm regenerate {}: deciding every pair (branch and bound, always proofs, {} sampled poses)",
        args.robot.display(),
        args.samples
    ));
    let loaded = load_robot(&args.robot, &read.load)?;
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
    let options = AcmOptions {
        budget: args.budget,
        samples: args.samples,
        seed: args.seed,
        keep_srdf: match args.keep_srdf {
            KeepArg::None => KeepSrdf::None,
            _ => KeepSrdf::Proven,
        },
    };
    let r = regenerate_robot(
        &loaded,
        &args.robot,
        &path,
        &old_text,
        &options,
        adopt.as_ref(),
        &read,
    )?;

    // Files are written before anything is printed: a reader that goes away early
    // (`| head`) cannot cost a write.
    if let Some(out) = &args.srdf_out {
        crate::io::atomic::write_atomic(
            out,
            acm::srdf_text(&r.manifest.robot, &r.manifest.acm).as_bytes(),
        )?;
    }
    let mode = Mode::new(args.write, args.check, args.json);
    // The config first: it is what the manifest's user rows are checked against.
    let mut files = Vec::new();
    if let Some(e) = &r.config_edit {
        files.push(Ending {
            file: e,
            note: format!(" ({} adopted SRDF row(s) in `allow:`)", r.adopted.len()),
        });
    }
    files.push(Ending {
        file: &r.manifest_file,
        note: String::new(),
    });
    write_files(&files, mode)?;
    for line in r
        .warnings
        .iter()
        .cloned()
        .chain(user_warnings(&r.user_rows, &r.config_path))
    {
        crate::messages::warning(&line);
    }
    if args.json {
        crate::outln!(
            "{}",
            serde_json::to_string_pretty(&json(
                &r.result,
                &r.manifest,
                &r.user_rows,
                &r.adopted,
                started
            ))
            .expect("plain JSON")
        );
    } else {
        crate::out!(
            "{}",
            summary(&r.result, &r.user_rows, &r.config_path, started)
        );
        if !r.manifest.rest_pose.clear {
            crate::outln!(
                "\nrest pose: {} checked pair(s) in contact:",
                r.rest_contacts.len()
            );
            for (a, b, d) in &r.rest_contacts {
                crate::outln!("  {a} - {b}: {:.1} mm", d * 1e3);
            }
            crate::outln!(
                "next: choose a rest pose where these meshes are apart (`rest_pose:` in {config}); where the meshes are apart and only the primitives meet, `collide lower {config} --write` refines those links first; a contact by design goes into `allow:` in {config}, with its reason",
                config = r.config_path.display()
            );
            crate::out!(
                "{}",
                crate::report::design_candidates_text(&r.design_candidates)
            );
        }
    }
    if let Some(out) = &args.srdf_out {
        crate::messages::note(&format!("wrote {}", out.display()));
    }
    Ok(finish(&files, mode, "collide acm regenerate"))
}

/// `--adopt-srdf` values: none given, every row (the flag alone), or `LINK_A,LINK_B` pairs.
fn adopt_selection(values: &[String]) -> Result<Option<Adopt>> {
    if values.is_empty() {
        return Ok(None);
    }
    if values.iter().any(|v| v.is_empty()) {
        return Ok(Some(Adopt::All));
    }
    let pairs = values
        .iter()
        .map(|v| match v.split_once(',') {
            Some((a, b)) if !a.trim().is_empty() && !b.trim().is_empty() && !b.contains(',') => {
                Ok((a.trim().to_string(), b.trim().to_string()))
            }
            _ => Err(Error::input(format!(
                "--adopt-srdf={v}: expected two link names, LINK_A,LINK_B"
            ))),
        })
        .collect::<Result<_>>()?;
    Ok(Some(Adopt::Pairs(pairs)))
}

/// "robot.yaml:7" for an entry of the config at `config`.
fn entry_place(config: &Path, u: &UserRow) -> String {
    let name = config.file_name().map_or_else(
        || config.display().to_string(),
        |f| f.to_string_lossy().into_owned(),
    );
    match u.at {
        Some((line, _)) => format!("{name}:{line}"),
        None => name,
    }
}

/// A share of poses: "1.2%"; "<0.1%" for a few, so that only none reads "0.0%".
fn share(n: usize, of: usize) -> String {
    let percent = 100.0 * n as f64 / of.max(1) as f64;
    if n > 0 && percent < 0.05 {
        "<0.1%".to_string()
    } else {
        format!("{percent:.1}%")
    }
}

/// Redundant and unnecessary user exemptions, one warning each.
fn user_warnings(rows: &[UserRow], config: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for u in rows {
        let place = entry_place(config, u);
        match &u.status {
            UserStatus::Redundant(by) => out.push(format!(
                "{place}: allow: entry {} - {} is redundant: the pair is proven `{by}`, and that row is kept",
                u.a, u.b
            )),
            UserStatus::Exempt if u.unnecessary() => {
                let primitives = if u.primitive_overlaps == 0 {
                    "nor do their primitives".to_string()
                } else {
                    format!(
                        "their primitives overlap in {} (a tighter fit, `collide lower --tight-link`, may be the better cure)",
                        share(u.primitive_overlaps, u.poses)
                    )
                };
                out.push(format!(
                    "{place}: allow: entry {} - {} looks unnecessary: their meshes touch in none of {} sampled poses, {primitives}",
                    u.a,
                    u.b,
                    crate::text::thousands(u.poses)
                ));
            }
            UserStatus::Exempt => {}
        }
    }
    out
}

fn q_text(q: &[(String, f64)]) -> String {
    q.iter()
        .map(|(n, v)| format!("{n}={v:.4}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Rows of a long table shown; the rest are counted.
const SHOWN_ROWS: usize = 15;

/// The category a pair's row ends in: a pair the config allows is exempt by the user,
/// whatever the proofs found.
fn category(r: &Regenerated, user: &[UserRow], a: &str, b: &str) -> &'static str {
    if allowed(user, a, b) {
        return "user";
    }
    r.pairs
        .iter()
        .find(|p| p.a == a && p.b == b)
        .map_or("-", |p| p.verdict.category())
}

/// Whether the config's `allow:` exempts pair `a`, `b` (names in the manifest's order).
fn allowed(user: &[UserRow], a: &str, b: &str) -> bool {
    user.iter()
        .any(|u| u.status == UserStatus::Exempt && u.a == a && u.b == b)
}

pub fn summary(r: &Regenerated, user: &[UserRow], config: &Path, started: Instant) -> String {
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
    let by_user = user
        .iter()
        .filter(|u| u.status == UserStatus::Exempt)
        .count();
    let user_note = if by_user > 0 {
        format!(" ({by_user} by the user, without proof)")
    } else {
        String::new()
    };
    out += &format!(
        "{} pairs decided, {} exempt{user_note}, in {:.2} s\n",
        r.pairs.len(),
        r.rows.len(),
        started.elapsed().as_secs_f64()
    );
    let unproven = r
        .pairs
        .iter()
        .filter(|p| matches!(p.verdict, Verdict::Unproven { .. }) && !allowed(user, &p.a, &p.b))
        .count();
    if unproven > 0 {
        out += &format!(
            "{unproven} pair(s) unproven: the branch and bound ran out of boxes; they stay checked (`collide acm regenerate {} --budget N` gives each pair more than the default 100000)\n",
            config.display()
        );
    }
    // Pairs the config allows are exempt: their overlap is in the user table below.
    let loose: Vec<_> = r
        .pairs
        .iter()
        .filter(|p| !allowed(user, &p.a, &p.b))
        .filter_map(|p| p.primitive_always.as_ref().map(|proof| (p, proof)))
        .collect();
    if !loose.is_empty() {
        out += &format!(
            "\n{} checked pair(s) whose primitives overlap in every sampled pose: `always` is proven on the meshes, and is not for these, so each trips the kernel in every pose (the primitives are loose there, or the proof on the meshes stopped where shown); `collide lower {config} --tight-link LINK` fits a link tighter, and a contact by design goes into `allow:` in {config}, with its reason:\n",
            loose.len(),
            config = config.display()
        );
        let mut t = Table::new(&[
            "link a",
            "link b",
            "category",
            "meshes touch",
            "primitives overlap",
            "on the meshes",
        ]);
        for (p, proof) in &loose {
            t.row(vec![
                p.a.clone(),
                p.b.clone(),
                p.verdict.category().into(),
                p.mesh_contacts
                    .map_or("-".into(), |(n, of)| format!("{n} of {of} poses")),
                (*proof).clone(),
                p.truth_search.clone().unwrap_or_default(),
            ]);
        }
        out += &t.render();
        let everywhere: Vec<String> = loose
            .iter()
            .filter(|(p, _)| p.mesh_contacts.is_some_and(|(n, of)| of > 0 && n == of))
            .map(|(p, _)| format!("{} / {}", p.a, p.b))
            .collect();
        if !everywhere.is_empty() {
            out += &format!(
                "{} of them touch on the meshes in every sampled pose, yet `always` is unproven on the meshes (see where the proof stopped): {}\n",
                everywhere.len(),
                everywhere.join(", ")
            );
        }
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
        if r.srdf.iter().any(|s| {
            matches!(
                s.status,
                SrdfStatus::Refuted { .. } | SrdfStatus::Unproven(_)
            )
        }) {
            out += &format!(
                "refuted and unproven SRDF rows are not exempt; `collide acm regenerate {} --adopt-srdf --write` copies them into the config's `allow:`, for review\n",
                config.display()
            );
        }
    }
    if !user.is_empty() {
        out += &user_table(user);
    }
    let s = &r.sampling;
    out += &format!("\nsampling ({} seeded poses, report only):\n", s.samples);
    let mut t = Table::new(&["link a", "link b", "category", "colliding poses"]);
    for (a, b, c) in s.colliding.iter().take(SHOWN_ROWS) {
        let cat = category(r, user, a, b);
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
        let left = s.colliding.len().saturating_sub(SHOWN_ROWS);
        if left > 0 {
            out += &format!(
                "... and {left} more pair(s) that collided in some sample, not shown (`--json` lists them all)\n"
            );
        }
    }
    out
}

/// The user exemptions, with how often their meshes and primitives touch.
fn user_table(user: &[UserRow]) -> String {
    let poses = user.iter().map(|u| u.poses).max().unwrap_or(0);
    let mut out = format!(
        "\nuser exemptions (the config's `allow:`, not proven; contacts on {} seeded poses):\n",
        crate::text::thousands(poses)
    );
    // The reasons follow the table, wrapped: inside it, one made it 200 columns wide.
    let mut t = Table::new(&[
        "link a",
        "link b",
        "status",
        "meshes touch",
        "primitives overlap",
    ]);
    let mut reasons = String::new();
    for u in user {
        let status = match &u.status {
            UserStatus::Exempt if u.unnecessary() => "unnecessary".to_string(),
            UserStatus::Exempt => "exempt".to_string(),
            UserStatus::Redundant(by) => format!("redundant ({by})"),
        };
        let meshes = u
            .mesh_contacts
            .map_or("-".to_string(), |n| share(n, u.poses));
        t.row(vec![
            u.a.clone(),
            u.b.clone(),
            status,
            meshes,
            share(u.primitive_overlaps, u.poses),
        ]);
        reasons += &crate::text::wrapped(
            "    ",
            &format!("{} - {}: {}", u.a, u.b, u.reason),
            REASON_WIDTH,
        );
    }
    out += &t.render();
    out += "reasons:\n";
    out += &reasons;
    out
}

/// Columns the user exemptions' wrapped reasons keep to.
const REASON_WIDTH: usize = 100;

fn user_json(u: &UserRow) -> serde_json::Value {
    let (status, by) = match &u.status {
        UserStatus::Exempt if u.unnecessary() => ("unnecessary", None),
        UserStatus::Exempt => ("exempt", None),
        UserStatus::Redundant(by) => ("redundant", Some(by.clone())),
    };
    serde_json::json!({"a": u.a, "b": u.b, "reason": u.reason, "line": u.at.map(|(l, _)| l),
        "status": status, "proven_as": by, "poses": u.poses,
        "mesh_contact_poses": u.mesh_contacts, "primitive_overlap_poses": u.primitive_overlaps})
}

fn json(
    r: &Regenerated,
    m: &manifest::Manifest,
    user: &[UserRow],
    adopted: &[AllowEntry],
    started: Instant,
) -> serde_json::Value {
    let pairs: Vec<_> = r
        .pairs
        .iter()
        .map(|p| {
            let mut v = serde_json::json!({"a": p.a, "b": p.b, "category": p.verdict.category()});
            if let Some(proof) = &p.primitive_always {
                v["primitives_always"] = proof.clone().into();
            }
            if let Some(why) = &p.truth_search {
                v["always_on_meshes_failed"] = why.clone().into();
            }
            if let Some((n, of)) = p.mesh_contacts {
                v["mesh_contacts"] = serde_json::json!({"poses": of, "touching": n});
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
    let user: Vec<_> = user.iter().map(user_json).collect();
    let adopted: Vec<_> = adopted
        .iter()
        .map(|e| serde_json::json!({"a": e.a, "b": e.b, "reason": e.reason}))
        .collect();
    let colliding: Vec<_> = r
        .sampling
        .colliding
        .iter()
        .map(|(a, b, n)| serde_json::json!({"a": a, "b": b, "poses": n}))
        .collect();
    let sampling = serde_json::json!({"samples": r.sampling.samples, "colliding": colliding});
    serde_json::json!({"robot": m.robot, "pairs": pairs, "srdf": srdf, "user": user,
        "adopted": adopted, "sampling": sampling, "rows": m.acm.len(),
        "seconds": started.elapsed().as_secs_f64()})
}
