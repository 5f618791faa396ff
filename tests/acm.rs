//! `collide acm regenerate` on hand-made robots with known answers, SRDF checking,
//! and byte-stable output.

mod common;

use common::ScratchRobot;
use std::path::Path;

/// The robot lowered in its scratch directory, without refinement (the ACM does not
/// depend on it): the directory and the config.
fn lowered(robot: ScratchRobot) -> (tempfile::TempDir, std::path::PathBuf) {
    robot.lowered(&["--no-refine"]).build()
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

/// `acm regenerate`'s printed report on 300 samples (the run must succeed).
fn printed(config: &Path, extra: &[&str]) -> String {
    let mut args = vec![
        "acm",
        "regenerate",
        config.to_str().unwrap(),
        "--samples",
        "300",
    ];
    args.extend(extra);
    text(&common::collide_ok(&args).stdout)
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
    let (_d, config) = lowered(ScratchRobot::new("acm_two.urdf"));
    let r = regenerate(&config, &[]);
    assert_eq!(r["pairs"].as_array().unwrap().len(), 1);
    assert_eq!(category(&r, "a", "b"), "adjacent");
}

#[test]
fn three_link_answers_are_the_analytic_ones() {
    let (_d, config) = lowered(ScratchRobot::new("acm_three.urdf"));
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
    let (_d, config) = lowered(ScratchRobot::new("acm_offset.urdf"));
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
    let (_d, config) = lowered(ScratchRobot::new("acm_finger.urdf"));
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
    let (_d, config) = lowered(ScratchRobot::new("acm_three.urdf").srdf(srdf));
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
    let (_d, config) = lowered(ScratchRobot::new("acm_three.urdf"));
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

/// The `allow:` list of tests/robots/acm_user.urdf: a hammer that strikes the cup, a pendulum
/// that passes through the cup's gap without touching it, and the adjacent cup and mast.
const USER_ALLOW: &str = "allow:\n  - {a: cup, b: hammer, reason: \"the hammer strikes the cup by design\"}\n  - {a: pendulum, b: cup, reason: \"the pendulum passes through the cup\"}\n  - {a: cup, b: mast, reason: \"the mast stands on the cup\"}\n";

fn user_row<'r>(report: &'r serde_json::Value, a: &str, b: &str) -> &'r serde_json::Value {
    report["user"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["a"] == a && u["b"] == b)
        .unwrap_or_else(|| panic!("no user row {a} {b} in {}", report["user"]))
}

fn run(args: &[&str]) -> std::process::Output {
    common::collide().args(args).output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn user_rows_round_trip_through_config_manifest_verify_and_srdf_out() {
    let (dir, config) = lowered(ScratchRobot::new("acm_user.urdf").config_extra(USER_ALLOW));
    let manifest = config.with_file_name("manifest.yaml");
    let srdf_out = dir.path().join("out.srdf");
    let r = regenerate(
        &config,
        &["--write", "--srdf-out", srdf_out.to_str().unwrap()],
    );
    assert_eq!(user_row(&r, "cup", "hammer")["status"], "exempt");
    assert_eq!(user_row(&r, "cup", "pendulum")["status"], "unnecessary");
    assert_eq!(user_row(&r, "cup", "mast")["status"], "redundant");
    assert_eq!(user_row(&r, "cup", "mast")["proven_as"], "adjacent");

    // The manifest: a `user` row carrying the reason for each exemption the proofs lack;
    // the redundant entry leaves the proven row alone.
    let written = std::fs::read_to_string(&manifest).unwrap();
    for row in [
        "{a: cup, b: hammer, reason: user, proof: the hammer strikes the cup by design}",
        "{a: cup, b: pendulum, reason: user, proof: the pendulum passes through the cup}",
        "{a: cup, b: mast, reason: adjacent,",
    ] {
        assert!(written.contains(row), "{row} missing:\n{written}");
    }
    // Exempt, the balls resting in the cup no longer trip the rest pose.
    assert!(written.contains("  clear: true\n"), "{written}");

    // verify: ok, the user rows in their own section with their reasons, counted apart.
    let out = common::collide_ok(&["verify", manifest.to_str().unwrap()]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("4 ACM rows proven, 2 user exemptions)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("    cup - hammer: the hammer strikes the cup by design\n"),
        "{stdout}"
    );
    let out = common::collide_ok(&["verify", manifest.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let v = &v["manifests"][0];
    assert_eq!(v["acm_rows"], 4);
    assert_eq!(v["user_rows"].as_array().unwrap().len(), 2, "{v}");
    assert_eq!(
        v["user_rows"][1]["reason"],
        "the pendulum passes through the cup"
    );

    // --srdf-out: reason="User", the user's reason beside it.
    let srdf = std::fs::read_to_string(&srdf_out).unwrap();
    assert!(
        srdf.contains("  <!-- the hammer strikes the cup by design -->\n  <disable_collisions link1=\"cup\" link2=\"hammer\" reason=\"User\"/>\n"),
        "{srdf}"
    );
    assert!(srdf.contains("link1=\"cup\" link2=\"mast\" reason=\"Adjacent\""));
    assert_eq!(srdf.matches("reason=\"User\"/>").count(), 2, "{srdf}");

    // Regenerating again changes nothing.
    common::collide_ok(&[
        "acm",
        "regenerate",
        config.to_str().unwrap(),
        "--check",
        "-q",
        "--samples",
        "300",
    ]);
}

#[test]
fn a_user_row_the_config_does_not_hold_fails_verify_with_exit_1() {
    let (_d, config) = lowered(ScratchRobot::new("acm_user.urdf"));
    let manifest = config.with_file_name("manifest.yaml");
    let m = manifest.to_str().unwrap();
    let head = "name: acm_user\nurdf: acm_user.urdf\n";
    let hammer_only = format!(
        "{head}allow:\n  - {{a: cup, b: hammer, reason: \"the hammer strikes the cup by design\"}}\n"
    );
    let all = format!("{head}{USER_ALLOW}");
    let cases = [
        // The config no longer exempts the pair: nobody decided the manifest's row.
        (
            &all,
            hammer_only.clone(),
            "cup - pendulum",
            "does not exempt the pair",
        ),
        // Another reason than the one recorded.
        (
            &all,
            all.replace("by design", "on purpose"),
            "cup - hammer",
            "is not the one in",
        ),
        // An entry the manifest lacks.
        (
            &hammer_only,
            all.clone(),
            "cup - pendulum",
            "not in the manifest's acm block",
        ),
    ];
    for (regenerated_with, verified_with, pair, why) in cases {
        std::fs::write(&config, regenerated_with).unwrap();
        regenerate(&config, &["--write"]);
        common::collide_ok(&["verify", m]);
        std::fs::write(&config, &verified_with).unwrap();
        let out = run(&["verify", m]);
        let stdout = text(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{verified_with}\n{stdout}{}",
            text(&out.stderr)
        );
        let line = stdout
            .lines()
            .find(|l| l.contains(pair) && l.contains(why))
            .unwrap_or_else(|| panic!("no `{pair}` violation saying `{why}`:\n{stdout}"));
        assert!(line.trim_start().starts_with("acm "), "{line}");
    }
}

#[test]
fn an_exemption_of_a_pair_whose_meshes_never_touch_is_reported_unnecessary() {
    let (_d, config) = lowered(ScratchRobot::new("acm_user.urdf").config_extra(USER_ALLOW));
    let out = common::collide_ok(&[
        "acm",
        "regenerate",
        config.to_str().unwrap(),
        "--json",
        "--samples",
        "1000",
    ]);
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // The pendulum's ball stays in the plane y = 0, 7 cm from either prong: its meshes never
    // touch the cup, while the cup's one convex fit fills the gap it swings through.
    let pendulum = user_row(&r, "cup", "pendulum");
    assert_eq!(pendulum["mesh_contact_poses"], 0, "{pendulum}");
    assert!(
        pendulum["primitive_overlap_poses"].as_u64().unwrap() > 100,
        "{pendulum}"
    );
    assert_eq!(pendulum["line"], 5);
    // The hammer's ball dips into the prong for |strike| below about 0.6 of its +-1 range.
    let hammer = user_row(&r, "cup", "hammer");
    let touching = hammer["mesh_contact_poses"].as_u64().unwrap() as f64 / 1000.0;
    assert!((0.45..0.7).contains(&touching), "{hammer}");
    assert_eq!(hammer["status"], "exempt");
    let stderr = text(&out.stderr);
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("warning: "))
        .collect();
    assert_eq!(warnings.len(), 2, "{stderr}");
    assert!(
        warnings[0].contains("robot.yaml:5: allow: entry cup - pendulum looks unnecessary: their meshes touch in none of 1,000 sampled poses"),
        "{stderr}"
    );
    assert!(
        warnings[1].contains(
            "robot.yaml:6: allow: entry cup - mast is redundant: the pair is proven `adjacent`"
        ),
        "{stderr}"
    );
}

#[test]
fn bad_allow_entries_are_refused_at_their_line_and_nothing_is_written() {
    let (dir, config) = lowered(ScratchRobot::new("acm_user.urdf"));
    let manifest = config.with_file_name("manifest.yaml");
    let before = std::fs::read(&manifest).unwrap();
    let srdf_out = dir.path().join("out.srdf");
    let head = "name: acm_user\nurdf: acm_user.urdf\nallow:\n  - {a: cup, b: hammer, reason: \"by design\"}\n";
    for (entry, at, want) in [
        (
            "  - {a: cup, b: elbow, reason: \"r\"}\n",
            "5:17",
            "allow[1].b: link `elbow` is not in robot `acm_user`",
        ),
        (
            "  - {a: hammer, b: cup, reason: \"again\"}\n",
            "5:5",
            "allow[1]: pair hammer / cup is already exempted by allow[0] (line 4)",
        ),
        (
            "  - {a: cup, b: hammer, reason: \"same order\"}\n",
            "5:5",
            "allow[1]: pair cup / hammer is already exempted by allow[0] (line 4)",
        ),
        (
            "  - a: mast\n    b: mast\n    reason: \"r\"\n",
            "6:8",
            "allow[1].b: link `mast` is paired with itself",
        ),
        (
            "  - {a: cup, b: mast, reason: \"\"}\n",
            "5:31",
            "allow[1].reason: is empty",
        ),
        (
            "  - {a: cup, b: mast, reason: \" \t\"}\n",
            "5:31",
            "allow[1].reason: is empty",
        ),
    ] {
        let config_text = format!("{head}{entry}");
        std::fs::write(&config, &config_text).unwrap();
        for extra in [&[][..], &["--adopt-srdf"][..]] {
            let mut args = vec![
                "acm",
                "regenerate",
                config.to_str().unwrap(),
                "--write",
                "--srdf-out",
                srdf_out.to_str().unwrap(),
            ];
            args.extend(extra);
            let out = run(&args);
            let stderr = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{entry}: {stderr}");
            let lines: Vec<&str> = stderr.lines().collect();
            assert_eq!(lines.len(), 1, "{entry}: {stderr}");
            let want = format!("error: {}:{at}: {want}", config.display());
            assert!(
                lines[0].starts_with(&want),
                "{entry}:\n{}\nwanted {want}",
                lines[0]
            );
            assert_eq!(
                std::fs::read(&manifest).unwrap(),
                before,
                "{entry}: manifest written"
            );
            assert_eq!(
                std::fs::read_to_string(&config).unwrap(),
                config_text,
                "{entry}: config written"
            );
            assert!(!srdf_out.exists(), "{entry}: SRDF written");
        }
    }
}

#[test]
fn adopting_srdf_rows_copies_the_unproven_ones_into_allow_with_their_line() {
    let srdf = "<robot name=\"acm_three\">\n  <disable_collisions link1=\"swing\" link2=\"base\" reason=\"Default\"/>\n  <disable_collisions link1=\"base\" link2=\"far\" reason=\"Never\"/>\n</robot>\n";
    let (_d, config) = lowered(
        ScratchRobot::new("acm_three.urdf")
            .srdf(srdf)
            .config_extra("# hand-written, kept\n"),
    );
    let manifest = config.with_file_name("manifest.yaml");
    let c = config.to_str().unwrap();
    let original = std::fs::read_to_string(&config).unwrap();
    // Without --write: the edit is shown, nothing is written.
    let out = common::collide_ok(&[
        "acm",
        "regenerate",
        c,
        "--adopt-srdf",
        "-q",
        "--samples",
        "300",
    ]);
    let stdout = text(&out.stdout);
    let entry = "  - {a: base, b: swing, reason: \"adopted from robot.srdf:2 (Default), refuted by collide\"}\n";
    assert!(stdout.contains(&format!("+{entry}")), "{stdout}");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), original);

    // A named row that collide proves needs no adoption.
    let out = run(&["acm", "regenerate", c, "--adopt-srdf=far,base", "--write"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("is proven `never`"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(std::fs::read_to_string(&config).unwrap(), original);

    let r = regenerate(&config, &["--adopt-srdf=swing,base", "--write"]);
    assert_eq!(
        r["adopted"].as_array().unwrap().len(),
        1,
        "{}",
        r["adopted"]
    );
    assert_eq!(
        std::fs::read_to_string(&config).unwrap(),
        format!("{original}allow:\n{entry}")
    );
    let written = std::fs::read_to_string(&manifest).unwrap();
    assert!(
        written.contains("{a: base, b: swing, reason: user, proof: \"adopted from robot.srdf:2 (Default), refuted by collide\"}"),
        "{written}"
    );
    common::collide_ok(&["verify", manifest.to_str().unwrap()]);
    // Adopting again finds the row already there: the config stays as it is.
    let r = regenerate(&config, &["--adopt-srdf", "--write"]);
    assert!(r["adopted"].as_array().unwrap().is_empty());
    assert_eq!(
        std::fs::read_to_string(&config).unwrap(),
        format!("{original}allow:\n{entry}")
    );
}

#[test]
fn keep_srdf_unproven_points_to_adopt_srdf() {
    let (_d, config) = lowered(ScratchRobot::new("acm_two.urdf"));
    let out = run(&[
        "acm",
        "regenerate",
        config.to_str().unwrap(),
        "--keep-srdf",
        "unproven",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--adopt-srdf"),
        "{}",
        text(&out.stderr)
    );
}

// `always` is proven on the links' real geometry (their meshes), not on the primitives
// around them.

#[test]
fn two_boxes_that_stay_overlapping_are_always_with_the_common_ball_of_the_meshes() {
    let (_d, config) = lowered(ScratchRobot::new("acm_boxes.urdf"));
    let r = regenerate(&config, &["--write"]);
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
fn primitives_that_overlap_everywhere_around_meshes_that_never_meet_are_never_on_the_meshes() {
    let (_d, config) = lowered(ScratchRobot::new("acm_shell.urdf"));
    let r = regenerate(&config, &["--write"]);
    let p = pair(&r, "core", "shell");
    // The primitives alone would certify `always` (a fixed point deep in both); the meshes
    // are 0.18 m apart at every configuration, and that is what is proven.
    assert_eq!(p["category"], "never", "{p}");
    let proof = p["proof"].as_str().unwrap();
    assert!(
        proof.starts_with("meshes never within the margin"),
        "{proof}"
    );
    let manifest = std::fs::read_to_string(config.with_file_name("manifest.yaml")).unwrap();
    assert!(
        manifest.contains("{a: core, b: shell, reason: never"),
        "{manifest}"
    );
    // The written manifest verifies: verify proves the row again on the meshes.
    common::collide_ok(&[
        "verify",
        config.with_file_name("manifest.yaml").to_str().unwrap(),
    ]);
}

#[test]
fn a_ball_turning_millimetres_from_the_walls_is_never_on_the_meshes() {
    let (_d, config) = lowered(ScratchRobot::new("acm_gap.urdf"));
    let r = regenerate(&config, &["--write"]);
    let p = pair(&r, "ball", "shell");
    assert_eq!(p["category"], "never", "{p}");
    let proof = p["proof"].as_str().unwrap();
    assert!(
        proof.starts_with("meshes never within the margin"),
        "{proof}"
    );
    common::collide_ok(&[
        "verify",
        config.with_file_name("manifest.yaml").to_str().unwrap(),
    ]);
}

#[test]
fn a_ball_that_reaches_a_wall_in_narrow_windows_is_not_never() {
    let (_d, config) = lowered(ScratchRobot::new("acm_gap_touch.urdf"));
    let r = regenerate(&config, &["--write"]);
    assert_eq!(category(&r, "ball", "shell"), "can collide");
    let manifest = std::fs::read_to_string(config.with_file_name("manifest.yaml")).unwrap();
    assert!(!manifest.contains("{a: ball, b: shell"), "{manifest}");
}

#[test]
fn verify_rejects_a_never_row_the_meshes_do_not_support() {
    let (_d, config) = lowered(ScratchRobot::new("acm_gap_touch.urdf"));
    regenerate(&config, &["--write"]);
    let path = config.with_file_name("manifest.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let row = "  - {a: ball, b: shell, reason: never, proof: \"meshes never within the margin: branch and bound, 9 boxes\"}\n";
    let at = text.find("acm:\n").expect("an acm block") + "acm:\n".len();
    std::fs::write(&path, format!("{}{row}{}", &text[..at], &text[at..])).unwrap();
    let out = common::collide()
        .args(["verify", path.to_str().unwrap()])
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("ball - shell"), "{text}");
}

#[test]
fn verify_rejects_an_always_row_the_meshes_do_not_support() {
    let (_d, config) = lowered(ScratchRobot::new("acm_shell.urdf"));
    regenerate(&config, &["--write"]);
    let path = config.with_file_name("manifest.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    // What the primitives alone would have proven, written by hand over the proven row.
    let proven = text
        .lines()
        .find(|l| l.contains("{a: core, b: shell, reason: never"))
        .expect("the pair proven never on the meshes");
    let row = "  - {a: core, b: shell, reason: always, proof: \"fixed point where 2 joint axes meet, common ball 50.0 mm\"}";
    let tampered = text.replace(proven, row);
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

#[test]
fn an_open_mesh_inside_a_solid_everywhere_is_always_by_its_vertices() {
    let (_d, config) = lowered(ScratchRobot::new("acm_open.urdf").mesh("open_patch.obj"));
    let r = regenerate(&config, &["--write"]);
    // No ball fits in the open patch; its vertices stay 0.11 m deep in the palm, less what
    // the joints move them over each box.
    let p = pair(&r, "near", "palm");
    assert_eq!(p["category"], "always", "{p}");
    let proof = p["proof"].as_str().unwrap();
    assert!(proof.contains("branch and bound"), "{proof}");
    let mm = proof_mm(proof);
    assert!(mm > 0.0 && mm <= 150.0, "{proof}");
    // The far patch leaves the palm at j_far = 0: checked, and the report says where.
    let p = pair(&r, "far", "palm");
    assert_eq!(p["category"], "can collide", "{p}");
    let why = p["always_on_meshes_failed"]
        .as_str()
        .unwrap_or_else(|| panic!("{p}"));
    assert!(why.contains("the meshes are apart there"), "{why}");
    assert!(why.contains("j_far=0.000"), "{why}");
    common::collide_ok(&[
        "verify",
        config.with_file_name("manifest.yaml").to_str().unwrap(),
    ]);
}

/// Issue 34: the printed tables. A pair the config allows shows as `user`, never as "can
/// collide"; the "primitives overlap in every sampled pose" table leaves the allowed pairs
/// to the user table; every line that reports a problem names what addresses it.
#[test]
fn an_allowed_pair_is_shown_as_user_and_the_tables_name_their_next_step() {
    let (_d, config) = lowered(ScratchRobot::new("acm_user.urdf").config_extra(USER_ALLOW));
    let out = printed(&config, &[]);
    let sampling = &out[out.find("sampling (").expect("the sampling table")..];
    let row = |a: &str, b: &str| {
        sampling
            .lines()
            .find(|l| l.split_whitespace().take(2).eq([a, b]))
            .unwrap_or_else(|| panic!("no row {a} {b}:\n{sampling}"))
            .to_string()
    };
    let hammer = row("cup", "hammer");
    assert!(
        hammer.contains(" user ") && !hammer.contains("can collide"),
        "{hammer}"
    );
    assert!(
        !out.contains("checked pair(s) whose primitives overlap"),
        "{out}"
    );
}

/// The user exemptions' table keeps to 100 columns: a long reason follows it, wrapped,
/// every word of it kept (inside the table one made it about 230 columns wide on the G1).
#[test]
fn a_long_user_reason_is_wrapped_below_the_table() {
    let reason = "the hammer strikes the cup by design, on every swing of the arm that holds it, \
                  and the two parts are made to take it (a long reason, as vendors' reviews write \
                  them, naming the evidence: meshes touch in 93.7 % of seeded poses)";
    let allow = format!("allow:\n  - {{a: cup, b: hammer, reason: \"{reason}\"}}\n");
    let (_d, config) = lowered(ScratchRobot::new("acm_user.urdf").config_extra(&allow));
    let out = printed(&config, &[]);
    let start = out.find("user exemptions (").expect("the user table");
    let section = &out[start..];
    let section = &section[..section.find("\n\n").unwrap_or(section.len())];
    for line in section.lines() {
        assert!(
            line.chars().count() <= 100,
            "{} columns: {line}",
            line.len()
        );
    }
    let words: Vec<&str> = section[section.find("reasons:").expect("reasons below")..]
        .split_whitespace()
        .collect();
    let said = words.join(" ");
    assert!(
        said.contains(&format!("cup - hammer: {reason}")),
        "{section}"
    );
}

/// Issue 34: a table cut at 15 rows says how many it left out, as many as `--json` lists
/// beyond them (the Panda's sampling: more than 15 pairs collide in some sample).
#[test]
fn a_truncated_table_says_how_many_rows_it_left_out() {
    let (_d, config) = ScratchRobot::committed("franka_panda").build();
    let out = printed(&config, &["-q"]);
    let report = regenerate(&config, &[]);
    let colliding = report["sampling"]["colliding"].as_array().unwrap().len();
    assert!(colliding > 15, "{colliding}: the case needs a long table");
    let line = format!(
        "... and {} more pair(s) that collided in some sample, not shown",
        colliding - 15
    );
    assert!(out.contains(&line), "{line}\n{out}");
}
