//! `collide sweep --world`'s results as text tables and JSON.
//!
//! [`summary`] holds only seeded, deterministic figures; the kernel's cost is in
//! [`timing_table`] and under `"timing"` in the JSON.

use crate::sweep::world::{PoseRef, WorldMissed, WorldSetReport, WorldSweep};
use crate::text::Table;
use std::fmt::Write as _;

/// `n (p %)` of `of`.
fn share(n: usize, of: usize) -> String {
    if of == 0 {
        return n.to_string();
    }
    format!("{n} ({:.1} %)", 100.0 * n as f64 / of as f64)
}

/// The judgements and the conservatism split of every set on the uniform poses.
pub fn split_table(r: &WorldSweep) -> Table {
    let apart = r.poses - r.cell_contacts;
    let mut t = Table::new(&[
        "set",
        "primitives",
        "refused",
        "missed mesh/prim",
        "refused, meshes off cells",
        "kernel's part",
        "geometry's part",
        "grid's part",
        "refused, meshes off scene",
    ]);
    for s in &r.sets {
        t.row(vec![
            s.set.as_str().to_string(),
            s.primitives.to_string(),
            s.refused.to_string(),
            format!("{} / {}", s.missed, s.missed_exact),
            share(s.refused_apart, apart),
            s.beyond_exact.to_string(),
            s.geometry_part.to_string(),
            s.grid_part.to_string(),
            s.refused_beyond_scene.to_string(),
        ]);
    }
    t
}

/// Free space on the rays, per set.
pub fn rays_table(r: &WorldSweep) -> Table {
    let mut t = Table::new(&["set", "free steps", "refused", "reach kept", "missed"]);
    for s in &r.sets {
        t.row(vec![
            s.set.as_str().to_string(),
            s.rays.free.to_string(),
            share(s.rays.refused, s.rays.free),
            s.rays
                .reach_kept
                .map_or_else(|| "-".into(), |k| format!("{:.1} %", 100.0 * k)),
            s.rays.missed.to_string(),
        ]);
    }
    t
}

/// The kernel's cost per set on the uniform poses.
pub fn timing_table(r: &WorldSweep) -> Table {
    let mut t = Table::new(&[
        "set",
        "median µs",
        "p99 µs",
        "verdict median µs",
        "cells visited / call",
        "narrow / call",
        "reached GJK",
    ]);
    for s in &r.sets {
        let x = &s.timing;
        t.row(vec![
            s.set.as_str().to_string(),
            format!("{:.2}", x.full.median_us),
            format!("{:.2}", x.full.p99_us),
            format!("{:.2}", x.verdict.median_us),
            format!("{:.0}", x.cells_per_call),
            format!("{:.1}", x.narrow_per_call),
            format!("{:.1} %", 100.0 * x.gjk_share),
        ]);
    }
    t
}

/// The deterministic part of the human report.
pub fn summary(r: &WorldSweep) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} in {}: {} triangles, {} occupied cells of {} m (index {} KiB); world check at margin 0",
        r.robot,
        r.scene.display(),
        r.scene_triangles,
        r.cells,
        r.pitch,
        r.index_bytes / 1024
    );
    let _ = writeln!(
        out,
        "{} uniform poses (seed {}): a mesh on a cell in {}, on the scene itself in {}{}",
        r.poses,
        r.seed,
        r.cell_contacts,
        r.surface_contacts,
        if r.grid_misses > 0 {
            format!(
                " ({} of them on no cell: inside a closed part, away from its surface)",
                r.grid_misses
            )
        } else {
            String::new()
        }
    );
    out += "\nper set: refused; missed (a mesh, or exactly a written primitive, on a cell and the check answers free: must be 0); refused where every mesh is off every cell (share of those poses); what the refusals where the meshes are off the real scene split into: the kernel's bounds beyond the exact primitive-to-cell distances, the primitives beyond the meshes (both against the cells), the cells beyond the real surface\n";
    out += &split_table(r).render();
    for s in &r.sets {
        if s.outside_primitives > 0 {
            let _ = writeln!(
                out,
                "{}: {} poses put a mesh on a cell its primitives do not reach: containment is broken (run `collide verify`)",
                s.set.as_str(),
                s.outside_primitives
            );
        }
    }
    let _ = writeln!(
        out,
        "\n{} rays of {} steps from the rest pose (seed {}){}:",
        r.rays.rays,
        r.rays.steps,
        r.rays.seed,
        if r.rest_on_cells {
            ": the rest pose puts a mesh on a cell, no ray has a free step"
        } else {
            ""
        }
    );
    out += &rays_table(r).render();
    out
}

pub fn missed_line(m: &WorldMissed) -> String {
    let at = match m.pose {
        PoseRef::Uniform(i) => format!("uniform pose {i}"),
        PoseRef::Ray(r, k) => format!("ray {r} step {k}"),
    };
    format!(
        "{} set, {at}: link `{}`'s {} touch an occupied cell and the world check answers free",
        m.set.as_str(),
        m.link,
        m.truth
    )
}

fn set_json(s: &WorldSetReport) -> serde_json::Value {
    let t = &s.timing;
    serde_json::json!({
        "set": s.set.as_str(),
        "primitives": s.primitives,
        "refused": s.refused,
        "exact_contacts": s.exact_contacts,
        "missed": s.missed,
        "missed_exact": s.missed_exact,
        "refused_apart": s.refused_apart,
        "split": {
            "kernel": s.beyond_exact,
            "link_geometry": s.geometry_part,
            "grid": s.grid_part,
            "total": s.refused_beyond_scene,
        },
        "outside_primitives": s.outside_primitives,
        "rays": {
            "free": s.rays.free,
            "refused": s.rays.refused,
            "reach_kept": s.rays.reach_kept,
            "missed": s.rays.missed,
        },
        "timing": {
            "median_us": t.full.median_us,
            "p99_us": t.full.p99_us,
            "verdict_median_us": t.verdict.median_us,
            "verdict_p99_us": t.verdict.p99_us,
            "cells_per_call": t.cells_per_call,
            "narrow_per_call": t.narrow_per_call,
            "gjk_share": t.gjk_share,
        },
    })
}

pub fn json(r: &WorldSweep) -> serde_json::Value {
    serde_json::json!({
        "robot": r.robot,
        "manifest": r.manifest.display().to_string(),
        "scene": {
            "path": r.scene.display().to_string(),
            "triangles": r.scene_triangles,
            "pitch_m": r.pitch,
            "cells": r.cells,
            "index_bytes": r.index_bytes,
        },
        "margin_m": crate::sweep::world::WORLD_MARGIN_M,
        "poses": r.poses,
        "seed": r.seed,
        "rays": {"rays": r.rays.rays, "steps": r.rays.steps, "seed": r.rays.seed},
        "rest_on_cells": r.rest_on_cells,
        "cell_contacts": r.cell_contacts,
        "surface_contacts": r.surface_contacts,
        "grid_misses": r.grid_misses,
        "sets": r.sets.iter().map(set_json).collect::<Vec<_>>(),
        "missed": r.missed.iter().map(|m| serde_json::json!({
            "set": m.set.as_str(),
            "pose": match m.pose {
                PoseRef::Uniform(i) => serde_json::json!({"uniform": i}),
                PoseRef::Ray(r, k) => serde_json::json!({"ray": r, "step": k}),
            },
            "link": m.link,
            "truth": m.truth,
        })).collect::<Vec<_>>(),
        "elapsed_s": r.elapsed_s,
        "warnings": r.warnings,
    })
}
