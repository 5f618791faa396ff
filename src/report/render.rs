//! A sweep's results as text tables and JSON.
//!
//! [`verdict_table`] and [`summary`] hold only seeded, deterministic figures (snapshot
//! tests rely on it); timings are in [`timing_table`] and under `"timing"` in the JSON.

use crate::sweep::{FreeReport, Missed, SetReport, SweepReport, Truth, Verdicts};
use crate::text::{Table, mm};
use std::fmt::Write as _;

/// `41 (30 capsule, 11 box+hull)`.
pub fn primitives_cell(s: &SetReport) -> String {
    let kinds: Vec<String> = s.kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
    format!("{} ({})", s.primitives, kinds.join(", "))
}

/// The first `shown` items, each through `show`, then `+N more` for the rest.
pub fn first_few<T>(items: &[T], shown: usize, show: impl Fn(&T) -> String) -> Vec<String> {
    let mut out: Vec<String> = items.iter().take(shown).map(show).collect();
    if items.len() > shown {
        out.push(format!("+{} more", items.len() - shown));
    }
    out
}

/// The pairs with the most mesh contacts, `a/b 12, c/d 9` (`None` when there is none).
pub fn top_contacts_text(r: &SweepReport) -> Option<String> {
    if r.mesh_contacts.top.is_empty() {
        return None;
    }
    let pairs: Vec<String> = r
        .mesh_contacts
        .top
        .iter()
        .map(|(a, b, n)| format!("{a}/{b} {n}"))
        .collect();
    Some(pairs.join(", "))
}

/// The checked pairs whose meshes touch in every pose, in one sentence without its full
/// stop, at most `shown` of them named (`None` when there is none).
pub fn always_touching_text(r: &SweepReport, shown: usize) -> Option<String> {
    let always = &r.mesh_contacts.always_touching;
    if always.is_empty() {
        return None;
    }
    let names = first_few(always, shown, |(a, b)| format!("{a}/{b}"));
    Some(format!(
        "{} checked pair(s) whose meshes touch in every pose, so every pose is refused whatever the fit (not exempted by the ACM): {}",
        always.len(),
        names.join(", ")
    ))
}

/// `clear`, or `trips: a/b -2.5 mm; c/d ...` (at most three pairs named).
pub fn rest_cell(s: &SetReport) -> String {
    if s.rest.clear {
        return "clear".into();
    }
    let parts = first_few(&s.rest.contacts, 3, |(a, b, d)| {
        format!("{a}/{b} {} mm", mm(*d))
    });
    if parts.is_empty() {
        "trips".into()
    } else {
        format!("trips: {}", parts.join("; "))
    }
}

/// Columns of the per-set verdict (deterministic figures only).
pub const VERDICT_COLUMNS: [&str; 8] = [
    "set",
    "primitives",
    "contacts (mesh / hull)",
    "missed (mesh / hull)",
    "false stops (mesh / hull)",
    "refused",
    "slop-only (mesh / hull)",
    "rest",
];

/// `mesh / hull` of one figure.
pub fn both(s: &SetReport, f: impl Fn(&Verdicts) -> usize) -> String {
    format!("{} / {}", f(&s.mesh), f(&s.hull))
}

/// One set's verdict, in [`VERDICT_COLUMNS`] order.
pub fn verdict_cells(r: &SweepReport, s: &SetReport) -> Vec<String> {
    vec![
        s.set.as_str().to_string(),
        primitives_cell(s),
        format!("{} / {}", r.mesh_contacts.poses, r.hull_contacts.poses),
        both(s, |v| v.missed),
        both(s, |v| v.false_stops),
        format!("{} / {}", s.refused, r.poses),
        both(s, |v| v.slop_only),
        rest_cell(s),
    ]
}

/// The timing columns: on the free poses first (where a controller calls the check), then on
/// every uniform pose.
pub const TIMING_COLUMNS: [&str; 4] = [
    "kernel µs free median",
    "free p99",
    "all-pose median",
    "all-pose p99",
];

/// One set's kernel time per configuration (µs): median and p99 on the free poses, then on
/// every uniform pose.
pub fn timing_cells(s: &SetReport) -> [String; 4] {
    [
        s.free_timing.median_us,
        s.free_timing.p99_us,
        s.timing.median_us,
        s.timing.p99_us,
    ]
    .map(|v| format!("{v:.1}"))
}

/// The per-set verdict table (deterministic).
pub fn verdict_table(r: &SweepReport) -> Table {
    let mut t = Table::new(&VERDICT_COLUMNS);
    for s in &r.sets {
        t.row(verdict_cells(r, s));
    }
    t
}

/// Kernel time per configuration, per set.
pub fn timing_table(r: &SweepReport) -> Table {
    let header: Vec<&str> = std::iter::once("set").chain(TIMING_COLUMNS).collect();
    let mut t = Table::new(&header);
    for s in &r.sets {
        let mut row = vec![s.set.as_str().to_string()];
        row.extend(timing_cells(s));
        t.row(row);
    }
    t
}

/// Heading, verdict table, truth and false-stop notes (deterministic).
pub fn summary(r: &SweepReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: {} poses, seed {}, {} checked pairs ({} ACM rows), margin {} mm",
        r.robot,
        r.poses,
        r.seed,
        r.checked_pairs,
        r.acm_rows,
        mm(r.margin_m)
    );
    let m = &r.mesh_truth;
    let _ = writeln!(
        out,
        "mesh truth: {} links, {} triangles in {} components ({} closed); {} contact pairs over {} poses",
        m.links,
        m.triangles,
        m.components,
        m.closed_components,
        r.mesh_contacts.pairs,
        r.mesh_contacts.poses
    );
    let _ = writeln!(
        out,
        "hull truth: {} links as {} convex pieces ({} hull vertices); {} contact pairs over {} poses",
        r.truth.links,
        r.truth.pieces,
        r.truth.hull_vertices,
        r.hull_contacts.pairs,
        r.hull_contacts.poses
    );
    if r.mesh_not_hull > 0 {
        let _ = writeln!(
            out,
            "  {} mesh contact pair(s) the hull truth does not have (a closed mesh inside a hull-less part)",
            r.mesh_not_hull
        );
    }
    for (link, pieces, cut) in &r.truth.split {
        let _ = writeln!(
            out,
            "  {link}: split among {pieces} primitives ({cut} triangles cut)"
        );
    }
    if let Some(pairs) = top_contacts_text(r) {
        let _ = writeln!(out, "  most mesh contacts: {pairs}");
    }
    if let Some(text) = always_touching_text(r, usize::MAX) {
        let _ = writeln!(out, "  {text}");
    }
    if let Some(note) = always_exempt_note(r) {
        let _ = writeln!(out, "  {note}");
    }
    if r.undecided > 0 {
        let _ = writeln!(
            out,
            "  {} hull truth contacts undecided by GJK (iteration cap), counted as contacts",
            r.undecided
        );
    }
    out.push('\n');
    if let Some(line) = free_line(r) {
        let _ = writeln!(out, "{line}");
    }
    out += &free_table(r).render();
    out.push_str(
        "free: poses where no checked pair's meshes touch, on rays from the rest pose and among the uniform poses;\n\
         refused free: those the kernel refuses; reach kept: how far along a ray from rest the kernel lets the robot go before the meshes would touch\n\n",
    );
    out += &verdict_table(r).render();
    out.push_str(
        "\nmesh: the real triangle meshes; hull: hulls of each primitive's share of the mesh (hull contact >= mesh contact).\n\
         contacts: poses with a truth contact on a checked pair; missed, false stops: pairs summed over poses;\n\
         refused: poses the kernel trips; slop-only: refused poses with no truth contact\n",
    );
    for s in &r.sets {
        let same = s.mesh.top_false_stops == s.hull.top_false_stops;
        for truth in [Truth::Mesh, Truth::Hull] {
            let v = s.verdicts(truth);
            if v.top_false_stops.is_empty() || (same && truth == Truth::Hull) {
                continue;
            }
            let label = if same {
                "mesh and hull truth".to_string()
            } else {
                format!("{} truth", truth.as_str())
            };
            let pairs: Vec<String> = v
                .top_false_stops
                .iter()
                .map(|(a, b, n)| format!("{a}/{b} {n}"))
                .collect();
            let _ = writeln!(
                out,
                "most false stops ({}, {label}): {}",
                s.set.as_str(),
                pairs.join(", ")
            );
        }
    }
    out
}

/// Columns of the free-space headline, per set.
pub const FREE_COLUMNS: [&str; 7] = [
    "set",
    "free poses",
    "refused free",
    "refused free %",
    "reach kept %",
    "rest",
    "first false trips (rays)",
];

/// `12.3` (one decimal), `-` when there is nothing to take a share of.
pub fn pct_cell(p: Option<f64>) -> String {
    p.map_or("-".into(), |p| format!("{p:.1}"))
}

/// The mean reach kept in percent, one decimal (`-` when every ray starts in contact).
pub fn reach_cell(f: &FreeReport) -> String {
    pct_cell(f.reach_kept.map(|k| 100.0 * k))
}

/// `clear` or `trips`, and the checked pairs whose meshes touch at rest (at most three
/// named): `trips; meshes touch: a/b`.
pub fn rest_free_cell(s: &SetReport) -> String {
    let mut out = String::from(if s.rest.clear { "clear" } else { "trips" });
    let touch = &s.free.rest_mesh_contacts;
    if !touch.is_empty() {
        let names = first_few(touch, 3, |(a, b)| format!("{a}/{b}"));
        let _ = write!(out, "; meshes touch: {}", names.join(", "));
    }
    out
}

/// The pairs behind the first false trips, `a/b 12, c/d 3` (at most `shown` named).
pub fn first_trips_cell(f: &FreeReport, shown: usize) -> String {
    first_few(&f.first_false_trips, shown, |(a, b, n)| {
        format!("{a}/{b} {n}")
    })
    .join(", ")
}

/// One set's free space, in [`FREE_COLUMNS`] order.
pub fn free_cells(s: &SetReport) -> Vec<String> {
    let f = &s.free;
    vec![
        s.set.as_str().into(),
        f.free_poses().to_string(),
        f.refused_free().to_string(),
        pct_cell(f.refused_free_pct()),
        reach_cell(f),
        rest_free_cell(s),
        first_trips_cell(f, 3),
    ]
}

/// The headline: per set, the free poses, the share the kernel refuses, the reach kept,
/// and the pairs behind the first false trips.
pub fn free_table(r: &SweepReport) -> Table {
    let mut t = Table::new(&FREE_COLUMNS);
    for s in &r.sets {
        t.row(free_cells(s));
    }
    t
}

/// How the free poses were sampled, in one line (the fit set's rays; every set shares them).
pub fn free_line(r: &SweepReport) -> Option<String> {
    let f = &r.set(crate::sweep::Set::Fit)?.free;
    Some(format!(
        "free space: {} rays x {} steps from the rest pose (ray seed {}): {} free; {} uniform poses: {} free",
        f.rays, f.steps, f.ray_seed, f.ray_free, r.poses, f.uniform_free
    ))
}

/// What the ACM's `always` rows hide, in one sentence: how many of them the meshes touch in
/// every pose, and the others with their contact poses (the kernel sees none of these
/// contacts). `None` when the ACM has no `always` row with truth geometry.
pub fn always_exempt_note(r: &SweepReport) -> Option<String> {
    let apart = &r.always_exempt_apart;
    let total = r.always_exempt_touching + apart.len();
    if total == 0 {
        return None;
    }
    let mut note = format!(
        "{total} ACM `always` row(s): the meshes touch in every pose for {}",
        r.always_exempt_touching
    );
    if !apart.is_empty() {
        let names = first_few(apart, 6, |(a, b, n)| {
            format!(
                "{a}/{b} {n} ({:.0} %)",
                100.0 * *n as f64 / r.poses.max(1) as f64
            )
        });
        let _ = write!(
            note,
            "; the others are exempt on their primitives but their meshes do not touch in every pose, and the kernel does not see their contacts (poses with a mesh contact): {}",
            names.join(", ")
        );
    }
    Some(note)
}

/// One missed contact, loudly, with the pose.
pub fn missed_line(m: &Missed) -> String {
    let q: Vec<String> = m.q.iter().map(|(n, v)| format!("{n}={v:.6}")).collect();
    let truth = match (m.truth, m.truth_lower_m, m.truth_upper_m) {
        (Truth::Hull, Some(lo), Some(hi)) => format!(
            "the truth hulls touch (lower bound {:.4} mm, upper {:.4} mm)",
            lo * 1e3,
            hi * 1e3
        ),
        (Truth::Hull, ..) => "the truth hulls touch".to_string(),
        (Truth::Mesh, ..) => "the meshes touch".to_string(),
    };
    format!(
        "MISSED CONTACT ({} set, pose {}, {} truth): {} - {}: kernel clear at {:.4} mm while {truth}; a containment bug. q: {}",
        m.set.as_str(),
        m.pose,
        m.truth.as_str(),
        m.a,
        m.b,
        m.kernel_m * 1e3,
        q.join(" ")
    )
}

/// The whole report as JSON; timings (and the only non-deterministic numbers) under `"timing"`.
pub fn json(r: &SweepReport) -> serde_json::Value {
    let sets: Vec<_> = r
        .sets
        .iter()
        .map(|s| {
            serde_json::json!({
                "set": s.set.as_str(),
                "primitives": s.primitives,
                "kinds": s.kinds,
                "contacts": r.mesh_contacts.poses,
                "missed": s.mesh.missed,
                "missed_poses": s.mesh.missed_poses,
                "false_stops": s.mesh.false_stops,
                "refused": s.refused,
                "slop_only": s.mesh.slop_only,
                "hull": {
                    "contacts": r.hull_contacts.poses,
                    "missed": s.hull.missed,
                    "missed_poses": s.hull.missed_poses,
                    "false_stops": s.hull.false_stops,
                    "slop_only": s.hull.slop_only,
                    "top_false_stops": top_json(&s.hull.top_false_stops),
                },
                "rest": {
                    "clear": s.rest.clear,
                    "contacts": s.rest.contacts.iter().map(|(a, b, d)| serde_json::json!({"a": a, "b": b, "distance_m": d})).collect::<Vec<_>>(),
                },
                "top_false_stops": top_json(&s.mesh.top_false_stops),
                "free": free_json(&s.free),
            })
        })
        .collect();
    let missed: Vec<_> = r
        .missed
        .iter()
        .map(|m| {
            serde_json::json!({
                "set": m.set.as_str(), "truth": m.truth.as_str(), "pose": m.pose, "a": m.a, "b": m.b,
                "kernel_m": m.kernel_m, "truth_lower_m": m.truth_lower_m, "truth_upper_m": m.truth_upper_m,
                "q": m.q.iter().map(|(n, v)| (n.clone(), serde_json::json!(v))).collect::<serde_json::Map<_, _>>(),
            })
        })
        .collect();
    let timing: Vec<_> = r
        .sets
        .iter()
        .map(|s| {
            serde_json::json!({"set": s.set.as_str(), "free_median_us": s.free_timing.median_us,
                "free_p99_us": s.free_timing.p99_us, "median_us": s.timing.median_us,
                "p99_us": s.timing.p99_us, "max_us": s.timing.max_us})
        })
        .collect();
    serde_json::json!({
        "robot": r.robot,
        "manifest": r.manifest.display().to_string(),
        "poses": r.poses,
        "seed": r.seed,
        "margin_m": r.margin_m,
        "checked_pairs": r.checked_pairs,
        "acm_rows": r.acm_rows,
        "mesh_truth": {
            "links": r.mesh_truth.links,
            "triangles": r.mesh_truth.triangles,
            "components": r.mesh_truth.components,
            "closed_components": r.mesh_truth.closed_components,
        },
        "hull_truth": {
            "links": r.truth.links,
            "pieces": r.truth.pieces,
            "hull_vertices": r.truth.hull_vertices,
            "split": r.truth.split.iter().map(|(l, p, c)| serde_json::json!({"link": l, "pieces": p, "cut_triangles": c})).collect::<Vec<_>>(),
            "contacts": r.hull_contacts.poses,
            "contact_pairs": r.hull_contacts.pairs,
            "undecided": r.undecided,
            "top_contacts": contacts_json(&r.hull_contacts.top),
            "always_touching": r.hull_contacts.always_touching.iter().map(|(a, b)| serde_json::json!({"a": a, "b": b})).collect::<Vec<_>>(),
        },
        "contacts": r.mesh_contacts.poses,
        "contact_pairs": r.mesh_contacts.pairs,
        "mesh_not_hull": r.mesh_not_hull,
        "top_contacts": contacts_json(&r.mesh_contacts.top),
        "always_touching": r.mesh_contacts.always_touching.iter().map(|(a, b)| serde_json::json!({"a": a, "b": b})).collect::<Vec<_>>(),
        "always_exempt": {
            "touching_every_pose": r.always_exempt_touching,
            "apart_in_some_poses": r.always_exempt_apart.iter().map(|(a, b, n)| serde_json::json!({"a": a, "b": b, "contact_poses": n})).collect::<Vec<_>>(),
        },
        "headline": headline_json(r),
        "sets": sets,
        "missed": missed,
        "warnings": r.warnings,
        "timing": {"sweep_s": r.elapsed_s, "mesh_truth_s": r.mesh_s, "hull_truth_s": r.hull_s, "kernel_s": r.kernel_s, "kernel": timing},
    })
}

/// One set's free space (see [`crate::truth::reach`]): every figure, and per ray its
/// first mesh contact and first kernel trip.
pub fn free_json(f: &FreeReport) -> serde_json::Value {
    serde_json::json!({
        "rays": f.rays,
        "steps": f.steps,
        "ray_seed": f.ray_seed,
        "ray_free": f.ray_free,
        "ray_refused": f.ray_refused,
        "uniform_free": f.uniform_free,
        "uniform_refused": f.uniform_refused,
        "free_poses": f.free_poses(),
        "refused_free": f.refused_free(),
        "refused_free_pct": f.refused_free_pct(),
        "reach_kept": f.reach_kept,
        "rest_mesh_contacts": f.rest_mesh_contacts.iter().map(|(a, b)| serde_json::json!({"a": a, "b": b})).collect::<Vec<_>>(),
        "first_false_trips": f.first_false_trips.iter().map(|(a, b, n)| serde_json::json!({"a": a, "b": b, "rays": n})).collect::<Vec<_>>(),
        "per_ray": f.per_ray.iter().map(|(t, k)| serde_json::json!({"t_truth": t, "t_trip": k})).collect::<Vec<_>>(),
    })
}

/// The fit set's free space without the per-ray detail: what a user reads first.
pub fn headline_json(r: &SweepReport) -> serde_json::Value {
    let Some(s) = r.set(crate::sweep::Set::Fit) else {
        return serde_json::Value::Null;
    };
    let f = &s.free;
    serde_json::json!({
        "set": s.set.as_str(),
        "rays": f.rays,
        "steps": f.steps,
        "ray_seed": f.ray_seed,
        "free_poses": f.free_poses(),
        "refused_free": f.refused_free(),
        "refused_free_pct": f.refused_free_pct(),
        "reach_kept": f.reach_kept,
        "rest_clear": s.rest.clear,
        "rest_mesh_contacts": f.rest_mesh_contacts.iter().map(|(a, b)| serde_json::json!({"a": a, "b": b})).collect::<Vec<_>>(),
        "first_false_trips": f.first_false_trips.iter().map(|(a, b, n)| serde_json::json!({"a": a, "b": b, "rays": n})).collect::<Vec<_>>(),
    })
}

fn top_json(top: &[(String, String, usize)]) -> Vec<serde_json::Value> {
    top.iter()
        .map(|(a, b, n)| serde_json::json!({"a": a, "b": b, "count": n}))
        .collect()
}

fn contacts_json(top: &[(String, String, usize)]) -> Vec<serde_json::Value> {
    top.iter()
        .map(|(a, b, n)| serde_json::json!({"a": a, "b": b, "poses": n}))
        .collect()
}
