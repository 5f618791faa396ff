//! Every STL, OBJ and COLLADA file of the real robots installed by
//! `make robots` under `.robots/` must load. Skipped (with a message) when
//! `.robots/` is absent.

use collide::io::mesh::{MeshFormat, MeshLimits, load_mesh_with_info};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Files shipped empty (0 triangles, referenced by no robot description):
/// they must fail, with a clear error.
const EMPTY_FILES: [&str; 3] = [
    "robosuite/models/assets/robots/kinova3/meshes/end_effector_link.obj",
    "robosuite/models/assets/robots/kinova3/meshes/end_effector_link.stl",
    "robosuite/models/assets/robots/tiago/meshes/wheels/suspension_rear_link.stl",
];

const ROOTS: [&str; 3] = [
    ".robots/site/cmeel.prefix/share/example-robot-data/robots",
    ".robots/site/robosuite/models/assets/robots",
    ".robots/site/share/openarm_mujoco",
];

fn mesh_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            mesh_files(&p, out);
        } else if let Some(ext) = p.extension().and_then(|e| e.to_str())
            && matches!(ext.to_ascii_lowercase().as_str(), "stl" | "obj" | "dae")
        {
            out.push(p);
        }
    }
}

fn bounds(vertices: impl Iterator<Item = [f64; 3]>) -> [f64; 6] {
    let mut b = [
        f64::INFINITY,
        f64::INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NEG_INFINITY,
        f64::NEG_INFINITY,
    ];
    for v in vertices {
        for k in 0..3 {
            b[k] = b[k].min(v[k]);
            b[k + 3] = b[k + 3].max(v[k]);
        }
    }
    b
}

#[test]
fn every_real_robot_mesh_loads() {
    let base = Path::new(env!("CARGO_MANIFEST_DIR"));
    if !base.join(".robots").exists() {
        println!(
            "skipped: {} has no .robots/ (run `make robots`)",
            base.display()
        );
        return;
    }
    let mut files = Vec::new();
    for root in ROOTS {
        let dir = base.join(root);
        assert!(
            dir.is_dir(),
            "{} is missing: is `make robots` complete?",
            dir.display()
        );
        mesh_files(&dir, &mut files);
    }
    let mut failures = Vec::new();
    let mut empty = 0;
    let mut per_format: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut multi_part = 0;
    let mut merge_changes = 0;
    let mut placement_differs = Vec::new();
    for path in &files {
        let (mesh, info) = match load_mesh_with_info(path, [1.0; 3], &MeshLimits::default()) {
            Ok(r) => r,
            Err(e) => {
                if EMPTY_FILES.iter().any(|f| path.ends_with(f)) {
                    assert!(
                        e.message.contains("no triangles") || e.message.contains("too short"),
                        "{}",
                        e.message
                    );
                    println!("  expected failure: {}", e.message);
                    empty += 1;
                } else {
                    failures.push(e.message);
                }
                continue;
            }
        };
        let entry = per_format.entry(info.format.name()).or_default();
        entry.0 += 1;
        entry.1 += mesh.triangles.len();
        assert_eq!(
            mesh.triangles.len() + info.dropped_point_triangles,
            info.source_triangles
        );
        assert!(mesh.vertices.iter().flatten().all(|x| x.is_finite()));
        if info.format != MeshFormat::Collada {
            continue;
        }
        // Our merge must keep every part's triangles: compare with the sum
        // over the parts mesh-loader returns for the unmodified file.
        let bytes = std::fs::read(path).unwrap();
        let scene = mesh_loader::collada::from_slice(&bytes).expect("mesh-loader reads it too");
        let parts: Vec<_> = scene
            .meshes
            .iter()
            .filter(|m| !m.faces.is_empty())
            .collect();
        let sum: usize = parts.iter().map(|m| m.faces.len()).sum();
        assert_eq!(
            info.source_triangles,
            sum,
            "{}: triangles lost or added in the merge",
            path.display()
        );
        if parts.len() > 1 {
            multi_part += 1;
            assert_eq!(info.parts, parts.len(), "{}", path.display());
            // What mesh-loader's own merge does to the same parts.
            let merged = mesh_loader::Mesh::merge(scene.meshes.clone());
            let mut offset = 0u32;
            let mut correct = Vec::new();
            for m in &scene.meshes {
                correct.extend(m.faces.iter().map(|f| f.map(|i| i + offset)));
                offset += m.vertices.len() as u32;
            }
            if merged.faces != correct {
                merge_changes += 1;
            }
        }
        // Where mesh-loader's own placement (node transforms, unit) disagrees with ours.
        let theirs = bounds(
            scene
                .meshes
                .iter()
                .flat_map(|m| m.vertices.iter().map(|v| v.map(f64::from))),
        );
        let ours = bounds(mesh.vertices.iter().copied());
        let size = (0..3).map(|k| ours[k + 3] - ours[k]).fold(0.0, f64::max);
        if (0..6).any(|k| (theirs[k] - ours[k]).abs() > 1e-6 * size.max(1e-3)) {
            placement_differs.push(
                path.strip_prefix(base)
                    .unwrap_or(path)
                    .display()
                    .to_string(),
            );
        }
    }
    println!("{} mesh files under .robots/", files.len());
    for (format, (count, triangles)) in &per_format {
        println!("  {format}: {count} files, {triangles} triangles");
    }
    println!("  multi-part COLLADA files: {multi_part} (every part's triangles kept)");
    println!("  of those, mesh-loader's Mesh::merge changes the triangles of {merge_changes}");
    println!(
        "  COLLADA files where mesh-loader's own placement differs from ours: {}",
        placement_differs.len()
    );
    for p in placement_differs.iter().take(5) {
        println!("    e.g. {p}");
    }
    assert!(
        failures.is_empty(),
        "{} of {} meshes failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    assert_eq!(empty, EMPTY_FILES.len());
    assert!(multi_part > 0);
}
