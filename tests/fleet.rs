//! The committed fleet (robots/*/): every manifest verifies (0 vertices and 0 surface
//! triangles outside, every ACM row re-proven, rest verdict as recorded), and lowering
//! plus ACM regeneration reproduce each manifest byte for byte (the large robots: their
//! committed geometry refitted, see below). A difference prints the unified diff: the
//! snapshot CI compares.

mod common;

use std::path::{Path, PathBuf};

/// A fleet directory's robot name (`robots/NAME`).
fn name(dir: &Path) -> &str {
    dir.file_name().unwrap().to_str().unwrap()
}

fn fleet() -> Vec<PathBuf> {
    common::site();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(common::repo().join("robots"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("manifest.yaml").is_file())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 12, "{dirs:?}");
    dirs
}

#[test]
fn every_committed_manifest_verifies() {
    let manifests: Vec<PathBuf> = fleet().iter().map(|d| d.join("manifest.yaml")).collect();
    let out = common::collide()
        .arg("verify")
        .args(&manifests)
        .arg("--json")
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)));
    for m in report["manifests"].as_array().unwrap() {
        assert_eq!(m["ok"], true, "{m}");
        assert!(m["min_margin_m"].as_f64().unwrap() > 0.0, "{m}");
    }
    assert_eq!(out.status.code(), Some(0));
}

/// Whether a committed manifest is an arm's: at most `lower::refine::ARM_LINKS` links with
/// geometry (the refinement's own rule for its budget).
fn is_arm(manifest: &str) -> bool {
    let m = collide::manifest::parse_manifest(Path::new("manifest.yaml"), manifest).unwrap();
    m.links.iter().filter(|l| !l.primitives.is_empty()).count() <= collide::lower::refine::ARM_LINKS
}

/// Every other robot runs on one thread: the committed manifests were written on two, so the
/// bytes must not depend on the thread count. The arms run the whole default command
/// (refinement and ACM regeneration, which must find nothing to change). The large robots
/// refit their committed geometry (`lower --no-refine`: every link at its committed level,
/// its reason kept) and keep their ACM, re-proven row by row by
/// `every_committed_manifest_verifies`: their refinement and box searches take minutes each,
/// and `make fleet` runs them.
#[test]
fn lowering_and_regenerating_reproduce_every_manifest_byte_for_byte() {
    let mut failures = Vec::new();
    for (i, dir) in fleet().into_iter().enumerate() {
        let threads = if i % 2 == 0 { "1" } else { "2" };
        // The copied manifest carries the tight-link choices and the margin forward.
        let (scratch, config) = common::ScratchRobot::committed(name(&dir)).build();
        let committed = std::fs::read_to_string(dir.join("manifest.yaml")).unwrap();
        let c = config.to_str().unwrap();
        let runs = if is_arm(&committed) {
            vec![
                vec!["lower", c, "--write", "-q"],
                vec!["acm", "regenerate", c, "--write", "-q"],
            ]
        } else {
            vec![vec!["lower", c, "--no-refine", "--write", "-q"]]
        };
        for args in runs {
            let out = common::collide()
                .env("RAYON_NUM_THREADS", threads)
                .args(&args)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{} ({threads} thread(s)): {}",
                dir.display(),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let regenerated = std::fs::read_to_string(scratch.path().join("manifest.yaml")).unwrap();
        if regenerated != committed {
            let diff = similar::TextDiff::from_lines(&committed, &regenerated)
                .unified_diff()
                .header("committed", "regenerated")
                .to_string();
            failures.push(format!("{} ({threads} thread(s)):\n{diff}", dir.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "manifests differ from a fresh run:\n{}",
        failures.join("\n")
    );
}

/// Every `always` row the box search proved (G1 knees, OpenArm wrists, PR2 and TIAGo hands)
/// really overlaps: at 2,000 seeded in-limit configurations per robot, the kernel with no
/// exemption puts each such pair at or below zero. (The proof covers every configuration;
/// this samples it independently of the proof's boxes.)
#[test]
fn box_search_always_rows_overlap_at_sampled_configurations() {
    use collide::acm::unexempted_kernel;
    use collide::manifest::load_manifest;
    use collide::truth::poses::uniform_q;
    let mut rows_checked = 0;
    for dir in fleet() {
        let m = load_manifest(&dir.join("manifest.yaml")).unwrap();
        let k = unexempted_kernel(&m).unwrap();
        let pairs: Vec<usize> = m
            .acm
            .iter()
            .filter(|r| r.reason == "always" && r.proof.contains("branch and bound"))
            .map(|r| {
                let (a, b) = (k.link_index[&r.a], k.link_index[&r.b]);
                k.model
                    .checked_pairs()
                    .iter()
                    .position(|&p| p == (a.min(b), a.max(b)))
                    .expect("an always row is a pair with geometry")
            })
            .collect();
        rows_checked += pairs.len();
        let mut ws = k.model.workspace();
        let mut q = vec![0.0; k.model.dof()];
        for i in 0..2000 {
            uniform_q(&k.model, 7, i, &mut q);
            k.model.fk(&q, &mut ws);
            for &pi in &pairs {
                let d = k.model.pair_distance(pi, &mut ws);
                assert!(
                    d <= 0.0,
                    "{}: pair {:?} apart ({d} m) at configuration {i}",
                    dir.display(),
                    k.model.checked_pairs()[pi]
                );
            }
        }
    }
    assert!(
        rows_checked >= 10,
        "only {rows_checked} box-search rows in the fleet"
    );
}

/// Every `always` row holds on the real meshes: they touch at every sampled
/// configuration (the certificate is a ball inside both meshes).
#[test]
fn always_rows_touch_on_the_meshes_at_sampled_configurations() {
    use collide::io::robot::{LoadOptions, load_robot};
    use collide::manifest::kernel::load_kernel;
    use collide::manifest::load_manifest;
    use collide::truth::mesh::MeshTruth;
    use collide::truth::meshes::load_meshes;
    use collide::truth::meshes::truths;
    use collide::truth::poses::PoseScratch;
    let mut rows_checked = 0;
    for dir in fleet() {
        let m = load_manifest(&dir.join("manifest.yaml")).unwrap();
        let rows: Vec<(String, String)> = m
            .acm
            .iter()
            .filter(|r| r.reason == "always")
            .map(|r| (r.a.clone(), r.b.clone()))
            .collect();
        if rows.is_empty() {
            continue;
        }
        let loaded = load_robot(&dir.join("robot.yaml"), &LoadOptions::default()).unwrap();
        let cache = load_meshes(&loaded.robot, &Default::default(), usize::MAX).unwrap();
        let meshes = truths(&loaded.robot, &cache).unwrap().into_iter().collect();
        let k = load_kernel(&m).unwrap();
        let truth = MeshTruth::new(&k.link_names, &meshes);
        let mut s = PoseScratch::new(&k.model);
        for i in 0..200 {
            s.pose(&k.model, 11, i);
            for (a, b) in &rows {
                let (ia, ib) = (k.link_index[a], k.link_index[b]);
                assert!(
                    truth.touching(ia, &s.place[ia], ib, &s.place[ib]),
                    "{}: always row {a} - {b} apart on the meshes at configuration {i}",
                    dir.display()
                );
            }
        }
        rows_checked += rows.len();
    }
    assert!(
        rows_checked >= 10,
        "only {rows_checked} always rows in the fleet"
    );
}

/// Every source a committed manifest lists can be found from the manifest alone: a
/// `package://` URI through the package roots, else a path relative to the manifest's
/// directory, and the file there has the recorded sha256. (The MJCF robots once recorded
/// mesh paths relative to the MJCF's `meshdir`, which resolve from nowhere.)
#[test]
fn every_source_resolves_from_the_manifest_alone() {
    use collide::io::package::PackageResolver;
    use collide::manifest::load_manifest;
    let mut unresolved = Vec::new();
    let mut checked = 0;
    for dir in fleet() {
        let m = load_manifest(&dir.join("manifest.yaml")).unwrap();
        let resolver = PackageResolver::from_env(&[], Some(&dir));
        for s in &m.sources {
            let file = if s.path.starts_with("package://") {
                resolver
                    .resolve(&s.path, &dir.join("manifest.yaml"), None)
                    .ok()
            } else {
                Some(dir.join(&s.path)).filter(|p| p.is_file())
            };
            match file {
                Some(f) if collide::manifest::sources::sha256_file(&f).unwrap() == s.sha256 => {
                    checked += 1
                }
                _ => unresolved.push(format!("{}: {}", dir.display(), s.path)),
            }
        }
    }
    assert!(unresolved.is_empty(), "sources not found: {unresolved:#?}");
    assert!(checked > 300, "only {checked} sources");
}

/// A manifest written before sources resolved on their own (MJCF mesh paths as the MJCF
/// writes them) still verifies.
#[test]
fn a_manifest_with_mjcf_relative_mesh_paths_still_verifies() {
    let (_scratch, config) = common::ScratchRobot::committed("robosuite_ur5e").build();
    let manifest = config.with_file_name("manifest.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let old = text.replace(
        "package://robosuite/models/assets/robots/ur5e/meshes/",
        "meshes/",
    );
    assert!(old.contains("{path: meshes/base.stl,"), "{old}");
    std::fs::write(&manifest, old).unwrap();
    let out = common::collide()
        .arg("verify")
        .arg(&manifest)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `verify` builds the kernel once: the every-pair kernel it derives from the loaded one
/// (`acm::unexempted`, only the pair tables rebuilt) is the kernel built afresh without
/// the ACM, on every committed manifest.
#[test]
fn the_unexempted_kernel_derived_from_the_loaded_one_is_the_one_built_afresh() {
    use collide::acm::{unexempted, unexempted_kernel};
    use collide::manifest::kernel::load_kernel;
    use collide::manifest::load_manifest;
    for dir in fleet() {
        let m = load_manifest(&dir.join("manifest.yaml")).unwrap();
        let loaded = load_kernel(&m).unwrap();
        let derived = unexempted(&loaded).unwrap();
        let fresh = unexempted_kernel(&m).unwrap();
        assert!(
            derived.model.checked_pairs().len() > loaded.model.checked_pairs().len(),
            "{}",
            dir.display()
        );
        assert_eq!(
            format!("{:?}", derived.model),
            format!("{:?}", fresh.model),
            "{}",
            dir.display()
        );
        assert_eq!(derived.link_names, fresh.link_names);
        assert_eq!(derived.dof_names, fresh.dof_names);
    }
}
