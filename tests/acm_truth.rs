//! `always` is proven on the links' real geometry (their meshes), not on the primitives
//! around them: hand-made robots with known answers.

mod common;

use std::path::{Path, PathBuf};

fn scratch(urdf: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = common::scratch_files(&[&format!("tests/robots/{urdf}")]);
    let config = format!("name: {}\nurdf: {urdf}\n", urdf.trim_end_matches(".urdf"));
    std::fs::write(dir.path().join("robot.yaml"), config).unwrap();
    let path = dir.path().join("robot.yaml");
    common::collide_ok(&[
        "lower",
        path.to_str().unwrap(),
        "--write",
        "--no-refine",
        "-q",
    ]);
    (dir, path)
}

fn regenerate(config: &Path) -> serde_json::Value {
    let out = common::collide_ok(&[
        "acm",
        "regenerate",
        config.to_str().unwrap(),
        "--write",
        "--json",
        "-q",
        "--samples",
        "300",
    ]);
    serde_json::from_slice(&out.stdout).unwrap()
}

fn pair<'r>(report: &'r serde_json::Value, a: &str, b: &str) -> &'r serde_json::Value {
    report["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["a"] == a && p["b"] == b)
        .unwrap_or_else(|| panic!("no pair {a} {b}"))
}

#[test]
fn two_boxes_that_stay_overlapping_are_always_with_the_common_ball_of_the_meshes() {
    let (_d, config) = scratch("acm_boxes.urdf");
    let r = regenerate(&config);
    let p = pair(&r, "base", "top");
    assert_eq!(p["category"], "always", "{p}");
    // The ball at the origin lies 0.05 m deep in top's cube (the mesh; its box primitive
    // adds a millimetre of headroom that must not count).
    let proof = p["proof"].as_str().unwrap();
    let mm: f64 = proof
        .trim_end_matches(" mm")
        .rsplit(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((49.0..=50.05).contains(&mm), "{proof}");
    assert!(p.get("primitives_always").is_none(), "{p}");
}

#[test]
fn primitives_that_overlap_everywhere_around_meshes_that_never_meet_stay_checked() {
    let (_d, config) = scratch("acm_shell.urdf");
    let r = regenerate(&config);
    let p = pair(&r, "core", "shell");
    assert_ne!(p["category"], "always", "{p}");
    // The primitives' certificate is kept as a diagnostic, not an exemption.
    let diag = p["primitives_always"]
        .as_str()
        .unwrap_or_else(|| panic!("{p}"));
    assert!(diag.contains("fixed point"), "{diag}");
    let manifest = std::fs::read_to_string(config.with_file_name("manifest.yaml")).unwrap();
    assert!(
        !manifest.contains("{a: core, b: shell"),
        "a primitive-only `always` became an exemption"
    );
    // The written manifest verifies.
    common::collide_ok(&[
        "verify",
        config.with_file_name("manifest.yaml").to_str().unwrap(),
    ]);
}

#[test]
fn verify_rejects_an_always_row_the_meshes_do_not_support() {
    let (_d, config) = scratch("acm_shell.urdf");
    regenerate(&config);
    let path = config.with_file_name("manifest.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    // What the primitives alone would have proven, written in by hand.
    let row = "  - {a: core, b: shell, reason: always, proof: \"fixed point where 2 joint axes meet, common ball 50.0 mm\"}\n";
    let at = text.find("acm:\n").expect("an acm block") + "acm:\n".len();
    let tampered = format!("{}{row}{}", &text[..at], &text[at..]);
    std::fs::write(&path, tampered).unwrap();
    let out = common::collide()
        .args(["verify", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("core - shell"), "{text}");
}
