//! `collide inspect ROBOT|DIR [--json]`: what a robot is made of, and whether it reads.

use super::args::InspectArgs;
use crate::error::{Error, Result};
use crate::io::mesh::MeshLimits;
use crate::io::robot::{LoadOptions, LoadedRobot, load_robot};
use crate::model::Shape;
use crate::text::Table;
use crate::truth::meshes::{MeshCache, MeshKey};
use rayon::prelude::*;
use std::path::{Path, PathBuf};

pub fn run(args: InspectArgs) -> Result<i32> {
    let options = args.read.load_options();
    let limits = MeshLimits {
        max_triangles: args.read.max_triangles,
    };
    if args.robot.is_dir() {
        return inspect_tree(&args.robot, &options, &limits, args.json);
    }
    let loaded = load_robot(&args.robot, &options)?;
    for w in &loaded.robot.warnings {
        crate::messages::warning(w);
    }
    let cache = MeshCache::load_for(
        &args.robot,
        &mesh_keys(&loaded),
        &limits,
        args.read.max_total_triangles,
    )?;
    for w in &cache.warnings {
        crate::messages::warning(w);
    }
    if args.json {
        crate::outln!(
            "{}",
            serde_json::to_string_pretty(&robot_json(&loaded, &cache)).expect("plain JSON")
        );
    } else {
        crate::out!("{}", robot_text(&loaded, &cache));
    }
    Ok(0)
}

fn mesh_keys(loaded: &LoadedRobot) -> Vec<MeshKey> {
    crate::truth::meshes::mesh_keys(&loaded.robot)
}

fn robot_json(loaded: &LoadedRobot, cache: &MeshCache) -> serde_json::Value {
    let robot = &loaded.robot;
    let links: Vec<_> = robot
        .links
        .iter()
        .map(|l| {
            let geometry: Vec<_> = l
                .geometry
                .iter()
                .map(|g| {
                    let mut v =
                        serde_json::json!({"role": g.role.as_str(), "kind": g.shape.kind()});
                    if let Shape::Mesh { uri, path, scale } = &g.shape {
                        let m = cache.get(&MeshKey::new(path, *scale));
                        v["uri"] = uri.clone().into();
                        v["file"] = path.display().to_string().into();
                        v["scale"] = serde_json::json!(scale);
                        v["vertices"] = m.map(|m| m.vertices.len()).unwrap_or(0).into();
                        v["triangles"] = m.map(|m| m.triangles.len()).unwrap_or(0).into();
                    }
                    v
                })
                .collect();
            serde_json::json!({"name": l.name, "geometry": geometry})
        })
        .collect();
    let joints: Vec<_> = robot
        .joints
        .iter()
        .map(|j| {
            serde_json::json!({
                "name": j.name, "type": j.kind.as_str(),
                "parent": robot.links[j.parent].name, "child": robot.links[j.child].name,
                "limits": j.limits.map(|(a, b)| vec![a, b]),
                "mimic": j.mimic.as_ref().map(|m| serde_json::json!({
                    "joint": robot.joints[m.leader].name, "multiplier": m.multiplier, "offset": m.offset})),
            })
        })
        .collect();
    let files: Vec<String> = loaded
        .sources
        .iter()
        .map(|(_, p)| p.display().to_string())
        .collect();
    serde_json::json!({
        "robot": robot.name, "links": links, "joints": joints, "sources": files,
        "warnings": robot.warnings,
    })
}

fn robot_text(loaded: &LoadedRobot, cache: &MeshCache) -> String {
    let robot = &loaded.robot;
    let mut out = format!(
        "robot {}: {} links, {} joints ({} active), from {}\n\n",
        robot.name,
        robot.links.len(),
        robot.joints.len(),
        robot.active_joints().count(),
        robot.source.display()
    );
    let mut joints = Table::new(&["joint", "type", "parent", "child", "limits", "mimic"]);
    for j in &robot.joints {
        let limits = j
            .limits
            .map(|(a, b)| format!("[{a:.4}, {b:.4}]"))
            .unwrap_or_else(|| "-".into());
        let mimic = j
            .mimic
            .as_ref()
            .map(|m| {
                format!(
                    "{} x{} {:+}",
                    robot.joints[m.leader].name, m.multiplier, m.offset
                )
            })
            .unwrap_or_else(|| "-".into());
        joints.row(vec![
            j.name.clone(),
            j.kind.as_str().into(),
            robot.links[j.parent].name.clone(),
            robot.links[j.child].name.clone(),
            limits,
            mimic,
        ]);
    }
    out += &joints.render();
    out.push('\n');
    let mut links = Table::new(&[
        "link",
        "role",
        "kind",
        "vertices",
        "triangles",
        "scale",
        "file",
    ]);
    for l in &robot.links {
        if l.geometry.is_empty() {
            links.row(vec![
                l.name.clone(),
                "-".into(),
                "-".into(),
                "".into(),
                "".into(),
                "".into(),
                "".into(),
            ]);
        }
        for g in &l.geometry {
            let (v, t, scale, file) = match &g.shape {
                Shape::Mesh { uri, path, scale } => {
                    let m = cache.get(&MeshKey::new(path, *scale));
                    let s = if *scale == [1.0; 3] {
                        "1".into()
                    } else {
                        format!("{} {} {}", scale[0], scale[1], scale[2])
                    };
                    (
                        m.map(|m| m.vertices.len().to_string()).unwrap_or_default(),
                        m.map(|m| m.triangles.len().to_string()).unwrap_or_default(),
                        s,
                        uri.clone(),
                    )
                }
                _ => (String::new(), String::new(), String::new(), String::new()),
            };
            links.row(vec![
                l.name.clone(),
                g.role.as_str().into(),
                g.shape.kind().into(),
                v,
                t,
                scale,
                file,
            ]);
        }
    }
    out += &links.render();
    if !robot.warnings.is_empty() {
        out += &format!("\n{} warning(s) printed above\n", robot.warnings.len());
    }
    out
}

/// Every robot description below `dir`: one row each, meshes loaded once across robots.
fn inspect_tree(dir: &Path, options: &LoadOptions, limits: &MeshLimits, json: bool) -> Result<i32> {
    let mut files = Vec::new();
    collect_descriptions(dir, &mut files)?;
    files.sort();
    if files.is_empty() {
        return Err(Error::at(dir, None, "holds no .urdf or MJCF .xml file"));
    }
    let robots: Vec<(PathBuf, Result<LoadedRobot>)> = files
        .par_iter()
        .map(|f| (f.clone(), load_robot(f, options)))
        .collect();
    let mut keys: Vec<MeshKey> = robots
        .iter()
        .filter_map(|(_, r)| r.as_ref().ok())
        .flat_map(mesh_keys)
        .collect();
    keys.sort();
    keys.dedup();
    let meshes = MeshCache::load_each(&keys, limits);
    for w in &meshes.warnings {
        crate::messages::warning(w);
    }
    let mut table = Table::new(&["robot", "links", "joints", "meshes", "triangles", "status"]);
    let mut failed = 0;
    let mut rows_json = Vec::new();
    for (file, result) in &robots {
        let shown = file.strip_prefix(dir).unwrap_or(file).display().to_string();
        let status = match result {
            Err(e) => Err(e.message.clone()),
            Ok(loaded) => match mesh_keys(loaded).iter().find_map(|k| meshes.error(k)) {
                Some(e) => Err(e.message.clone()),
                None => Ok(loaded),
            },
        };
        match status {
            Ok(loaded) => {
                let keys = mesh_keys(loaded);
                let tris: usize = keys
                    .iter()
                    .filter_map(|k| meshes.get(k))
                    .map(|m| m.triangles.len())
                    .sum();
                table.row(vec![
                    shown.clone(),
                    loaded.robot.links.len().to_string(),
                    loaded.robot.joints.len().to_string(),
                    keys.len().to_string(),
                    tris.to_string(),
                    "ok".into(),
                ]);
                rows_json.push(serde_json::json!({"file": shown, "links": loaded.robot.links.len(),
                    "joints": loaded.robot.joints.len(), "meshes": keys.len(), "triangles": tris, "error": null}));
            }
            Err(message) => {
                failed += 1;
                table.row(vec![
                    shown.clone(),
                    "".into(),
                    "".into(),
                    "".into(),
                    "".into(),
                    format!("error: {message}"),
                ]);
                rows_json.push(serde_json::json!({"file": shown, "error": message}));
            }
        }
    }
    if json {
        crate::outln!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({"robots": rows_json}))
                .expect("plain JSON")
        );
    } else {
        crate::out!("{}", table.render());
        crate::outln!(
            "\n{} robots, {} read, {} failed, {} distinct meshes",
            robots.len(),
            robots.len() - failed,
            failed,
            keys.len()
        );
    }
    Ok(if failed > 0 { 2 } else { 0 })
}

fn collect_descriptions(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| Error::at(dir, None, format!("cannot list: {e}")))?;
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(ft) = entry.file_type() else { continue };
        if ft.is_dir() {
            collect_descriptions(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "urdf") || is_mjcf(&path) {
            out.push(path);
        }
    }
    Ok(())
}

/// An `.xml` whose first element is `<mujoco`.
fn is_mjcf(path: &Path) -> bool {
    if path.extension().is_none_or(|e| e != "xml") {
        return false;
    }
    let Ok(text) = std::fs::read_to_string(path) else {
        return false;
    };
    text.split('<')
        .skip(1)
        .find(|s| !s.starts_with('?') && !s.starts_with('!'))
        .is_some_and(|s| s.starts_with("mujoco"))
}
