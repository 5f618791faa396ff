//! `collide acm regenerate` on hand-made robots with known answers, SRDF checking,
//! and byte-stable output.

mod common;

use std::path::{Path, PathBuf};

fn scratch(urdf: &str, srdf: Option<&str>) -> (tempfile::TempDir, PathBuf) {
    let dir = common::scratch_files(&[&format!("tests/robots/{urdf}")]);
    let mut config = format!("name: {}\nurdf: {urdf}\n", urdf.trim_end_matches(".urdf"));
    if let Some(text) = srdf {
        std::fs::write(dir.path().join("robot.srdf"), text).unwrap();
        config += "srdf: robot.srdf\n";
    }
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

fn regenerate(config: &Path, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "acm",
        "regenerate",
        config.to_str().unwrap(),
        "--json",
        "-q",
        "--samples",
        "300",
    ];
    args.extend(extra);
    serde_json::from_slice(&common::collide_ok(&args).stdout).unwrap()
}

fn pair<'r>(report: &'r serde_json::Value, a: &str, b: &str) -> &'r serde_json::Value {
    report["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["a"] == a && p["b"] == b)
        .unwrap_or_else(|| panic!("no pair {a} {b}"))
}

fn category(report: &serde_json::Value, a: &str, b: &str) -> String {
    pair(report, a, b)["category"].as_str().unwrap().to_string()
}

#[test]
fn two_links_on_one_joint_are_adjacent() {
    let (_d, config) = scratch("acm_two.urdf", None);
    let r = regenerate(&config, &[]);
    assert_eq!(r["pairs"].as_array().unwrap().len(), 1);
    assert_eq!(category(&r, "a", "b"), "adjacent");
}

#[test]
fn three_link_answers_are_the_analytic_ones() {
    let (_d, config) = scratch("acm_three.urdf", None);
    let r = regenerate(&config, &[]);
    // Both balls sit on the one axis the joints between them turn about.
    assert_eq!(category(&r, "base", "lower"), "always");
    let always = pair(&r, "base", "lower");
    let proof = always["proof"].as_str().unwrap();
    assert!(proof.contains("on joint hip axis"), "{proof}");
    // The common ball is at least the balls' radius (0.1 m).
    let mm = proof_mm(proof);
    assert!((100.0..110.0).contains(&mm), "{proof}");
    // 1 m up and 0.6 m off the axis, the far ball cannot reach the base or the swinging ball.
    assert_eq!(category(&r, "base", "far"), "never");
    assert_eq!(category(&r, "far", "swing"), "never");
    // The swinging ball passes within 0.042 m of the origin: it overlaps the base ball.
    assert_eq!(category(&r, "base", "swing"), "can collide");
    let witness = pair(&r, "base", "swing");
    assert!(witness["overlap_m"].as_f64().unwrap() > 0.0, "{witness}");
    assert_eq!(category(&r, "base", "upper"), "adjacent");
    assert_eq!(category(&r, "far", "lower"), "adjacent");
}

/// The length at the end of a proof ("... depth >= 1.80 mm", or "... 4.20 µm"), in mm.
fn proof_mm(proof: &str) -> f64 {
    let (text, scale) = match proof.strip_suffix(" µm") {
        Some(t) => (t, 1e-3),
        None => (proof.trim_end_matches(" mm"), 1.0),
    };
    let value: f64 = text
        .rsplit(' ')
        .next()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no trailing length in {proof:?}"));
    value * scale
}

#[test]
fn links_that_overlap_everywhere_through_offset_axes_are_always_by_the_box_search() {
    let (_d, config) = scratch("acm_offset.urdf", None);
    let r = regenerate(&config, &["--write"]);
    // Parallel but distinct axes: no fixed point, so only the box search can prove it.
    assert_eq!(category(&r, "base", "foot"), "always");
    let proof = pair(&r, "base", "foot")["proof"].as_str().unwrap();
    assert!(proof.contains("branch and bound"), "{proof}");
    // A certified depth of a point of one ball inside the other, no deeper than the best
    // possible: a ball's 0.1 m radius plus the 1 mm headroom of its fit.
    let mm = proof_mm(proof);
    assert!(mm > 0.0 && mm <= 101.0, "{proof}");
    // The swinging ball comes apart from the base: the box search must refuse it.
    assert_eq!(category(&r, "base", "swing"), "can collide");
    // The written row is re-proven by verify.
    let manifest = config.with_file_name("manifest.yaml");
    common::collide_ok(&["verify", manifest.to_str().unwrap()]);
    let text = std::fs::read_to_string(&manifest).unwrap();
    assert!(text.contains("{a: base, b: foot, reason: always"), "{text}");
}

#[test]
fn a_finger_inside_a_box_is_always_by_the_box_search_measured_from_its_witness() {
    let (_d, config) = scratch("acm_finger.urdf", None);
    let r = regenerate(&config, &["--write"]);
    for finger in ["f2", "f3"] {
        assert_eq!(category(&r, finger, "palm"), "always", "{finger}-palm");
        let proof = pair(&r, finger, "palm")["proof"].as_str().unwrap();
        assert!(proof.contains("branch and bound"), "{proof}");
        // No point lies deeper in the palm than its 0.2 m half extent plus 1 mm headroom.
        let mm = proof_mm(proof);
        assert!(mm > 0.0 && mm <= 201.0, "{proof}");
    }
    let manifest = config.with_file_name("manifest.yaml");
    common::collide_ok(&["verify", manifest.to_str().unwrap()]);
}

#[test]
fn an_srdf_row_that_collides_is_refuted_with_a_witness_and_dropped() {
    let srdf = "<robot name=\"acm_three\">\n  <disable_collisions link1=\"swing\" link2=\"base\" reason=\"Never\"/>\n  <disable_collisions link1=\"base\" link2=\"far\" reason=\"Never\"/>\n</robot>\n";
    let (_d, config) = scratch("acm_three.urdf", Some(srdf));
    let r = regenerate(&config, &["--write"]);
    let rows = r["srdf"].as_array().unwrap();
    let refuted = rows
        .iter()
        .find(|s| s["a"] == "base" && s["b"] == "swing")
        .unwrap();
    assert_eq!(refuted["status"], "refuted", "{refuted}");
    assert_eq!(refuted["line"], 2);
    let q = refuted["detail"]["q"].as_object().unwrap();
    let swing = q["swing"].as_f64().unwrap();
    assert!(
        (-3.0..=3.0).contains(&swing),
        "witness outside the limits: {q:?}"
    );
    assert!(refuted["detail"]["depth_m"].as_f64().unwrap() > 0.0);
    let proven = rows
        .iter()
        .find(|s| s["a"] == "base" && s["b"] == "far")
        .unwrap();
    assert_eq!(proven["status"], "proven");
    let manifest = std::fs::read_to_string(config.with_file_name("manifest.yaml")).unwrap();
    assert!(
        !manifest.contains("{a: base, b: swing"),
        "a refuted row stayed an exemption"
    );
    assert!(manifest.contains("{a: base, b: far, reason: never"));
}

#[test]
fn output_is_byte_stable_across_runs_and_thread_counts() {
    let (_d, config) = scratch("acm_three.urdf", None);
    let manifest = config.with_file_name("manifest.yaml");
    let srdf_out = config.with_file_name("out.srdf");
    let mut outputs = Vec::new();
    for threads in ["1", "2", "2"] {
        let out = common::collide()
            .env("RAYON_NUM_THREADS", threads)
            .args([
                "acm",
                "regenerate",
                config.to_str().unwrap(),
                "--write",
                "-q",
                "--srdf-out",
                srdf_out.to_str().unwrap(),
            ])
            .output()
            .unwrap();
        assert!(out.status.success());
        outputs.push((
            std::fs::read(&manifest).unwrap(),
            std::fs::read(&srdf_out).unwrap(),
        ));
    }
    assert!(
        outputs.windows(2).all(|w| w[0] == w[1]),
        "output changed between runs"
    );
    let srdf = String::from_utf8(outputs[0].1.clone()).unwrap();
    assert!(
        srdf.contains("<disable_collisions link1=\"base\" link2=\"lower\" reason=\"Always\"/>"),
        "{srdf}"
    );
}
