//! `collide init` on hand-made robots with known answers (tests/robots/init_*): a free SRDF
//! group_state is the rest pose; a q = 0 in contact on a far pair is fixed by a searched
//! rest pose, and the pair is no candidate; a linkage is a commented-out candidate, active
//! with --adopt-contacts; the written config loads, the same bytes at any thread count; bad
//! input is one error line and nothing written.

mod common;

use collide::io::robot::{LoadOptions, ReadOptions, load_robot};
use collide::truth::design;
use std::path::{Path, PathBuf};
use std::process::Output;

fn robot(rel: &str) -> PathBuf {
    common::repo().join("tests/robots").join(rel)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `collide init ARGS --json` (exit 0), its JSON and the config's text.
fn init_json(args: &[&str], config: &Path) -> (serde_json::Value, String) {
    let mut all = args.to_vec();
    all.push("--json");
    let out = common::collide_ok(&all);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    (json, std::fs::read_to_string(config).unwrap())
}

fn read() -> ReadOptions {
    ReadOptions::new(LoadOptions::default())
}

/// Far pairs (by name) whose meshes touch at the written config's rest pose.
fn far_contacts_at_rest(config: &Path) -> Vec<(String, String)> {
    let loaded = load_robot(config, &read().load).unwrap();
    let scene = collide::init::scene(&loaded, &read()).unwrap();
    let rest = loaded.rest_pose().unwrap();
    let values = collide::manifest::JointValues(
        loaded
            .robot
            .active_joints()
            .map(|(i, j)| (j.name.clone(), rest.values[i]))
            .collect(),
    );
    let q = scene.kernel.q_from(&values);
    design::touching_at(&scene.kernel.model, &scene.truth, &scene.far, &q)
        .into_iter()
        .map(|(a, b)| {
            (
                scene.kernel.link_names[a].clone(),
                scene.kernel.link_names[b].clone(),
            )
        })
        .collect()
}

#[test]
fn a_free_srdf_group_state_is_the_rest_pose() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("arm");
    let config = out.join("robot.yaml");
    let urdf = robot("init_srdf/arm.urdf");
    let (json, text) = init_json(&["init", s(&urdf), "--out", s(&out)], &config);
    // `folded` leaves the cube in the base (a far pair: not a candidate), `ready` is free.
    assert_eq!(json["rest_pose"]["kind"], "group_state", "{json:#}");
    assert_eq!(json["rest_pose"]["name"], "ready");
    assert_eq!(json["ruled_out"][0]["pose"], "group_state folded");
    assert_eq!(
        json["ruled_out"][0]["far_contacts"],
        serde_json::json!([["base", "l3"]])
    );
    assert_eq!(json["candidates"], serde_json::json!([]));
    assert!(text.contains("\nrest_pose: ready\n"), "{text}");
    assert!(
        text.contains("\nsrdf: ") && text.contains("init_srdf/arm.srdf\n"),
        "{text}"
    );
    // The config loads, with the SRDF found beside the description.
    let loaded = load_robot(&config, &read().load).unwrap();
    assert!(loaded.srdf.is_some());
    let j1 = loaded.robot.joint_index("j1").unwrap();
    assert_eq!(loaded.rest_pose().unwrap().values[j1], 0.8);
    assert!(far_contacts_at_rest(&config).is_empty());

    // Named with --srdf, the same SRDF serves a copy of the arm that has none beside it.
    let out2 = tmp.path().join("named");
    let srdf = robot("init_srdf/arm.srdf");
    let (json, _) = init_json(
        &[
            "init",
            s(&robot("init_zero/arm.urdf")),
            "--srdf",
            s(&srdf),
            "--out",
            s(&out2),
        ],
        &out2.join("robot.yaml"),
    );
    assert_eq!(json["rest_pose"]["name"], "ready", "{json:#}");
}

#[test]
fn a_q_zero_in_contact_on_a_far_pair_gets_a_searched_rest_pose_and_no_candidate() {
    let tmp = tempfile::tempdir().unwrap();
    let urdf = robot("init_zero/arm.urdf");
    let mut texts = Vec::new();
    for threads in ["1", "2"] {
        let out = tmp.path().join(format!("t{threads}"));
        let status = common::collide()
            .env("RAYON_NUM_THREADS", threads)
            .args(["init", s(&urdf), "--out", s(&out), "-q"])
            .status()
            .unwrap();
        assert!(status.success());
        texts.push(std::fs::read(out.join("robot.yaml")).unwrap());
    }
    assert_eq!(texts[0], texts[1], "the config depends on the thread count");

    let out = tmp.path().join("json");
    let config = out.join("robot.yaml");
    let (json, text) = init_json(&["init", s(&urdf), "--out", s(&out)], &config);
    assert_eq!(json["ruled_out"][0]["pose"], "q = 0", "{json:#}");
    assert_eq!(
        json["ruled_out"][0]["far_contacts"],
        serde_json::json!([["base", "l3"]])
    );
    // Only j1 can take the cube out of the base: the search moves it alone, by a little
    // more than the 0.44 rad where the cube leaves the base (10 mm clearance: ~0.47).
    let rest = &json["rest_pose"];
    assert_eq!(rest["kind"], "searched");
    let q = rest["q"].as_object().unwrap();
    assert_eq!(q.keys().collect::<Vec<_>>(), ["j1"], "{rest}");
    let j1 = q["j1"].as_f64().unwrap().abs();
    assert!((0.44..0.6).contains(&j1), "{rest}");
    assert_eq!(rest["clearance_m"], 0.01);
    // base/l3 is three moving joints apart: not a candidate.
    assert_eq!(json["candidates"], serde_json::json!([]));
    assert!(!text.contains("allow:"), "{text}");
    assert!(text.contains("\nrest_pose:\n  j1: "), "{text}");
    assert!(text.contains("the rest pose is the fix"), "{text}");
    assert!(far_contacts_at_rest(&config).is_empty());
}

#[test]
fn a_linkage_is_a_commented_out_candidate_and_an_active_row_with_adopt_contacts() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("linkage");
    let config = out.join("robot.yaml");
    let urdf = robot("init_linkage/urdf/linkage.urdf");
    let (json, text) = init_json(&["init", s(&urdf), "--out", s(&out)], &config);
    assert_eq!(json["rest_pose"]["kind"], "zero", "{json:#}");
    // The SRDF in the sibling srdf/ directory, example-robot-data's layout.
    assert!(
        json["srdf"]
            .as_str()
            .unwrap()
            .ends_with("init_linkage/srdf/linkage.srdf")
    );
    let c = &json["candidates"];
    assert_eq!(c.as_array().unwrap().len(), 1, "{c}");
    assert_eq!(
        (c[0]["a"].as_str(), c[0]["b"].as_str()),
        (Some("base"), Some("l2"))
    );
    assert_eq!(c[0]["joints_apart"], 2);
    assert_eq!(c[0]["share"], 1.0);
    assert_eq!(c[0]["touching_poses"], 1000);
    // The rod's lower end is 0.05 m deep in the base at q = 0.
    let depth = c[0]["at_rest"]["depth_m"].as_f64().unwrap();
    assert!((depth - 0.05).abs() < 1e-9, "{depth}");
    assert!(
        text.contains(
            "\n#   - {a: base, b: l2, reason: \"TODO: why these links touch by design\"}\n"
        ),
        "{text}"
    );
    // The evidence, in the comment above the row (wrapped: lines joined here).
    let evidence = text.replace("\n#   # ", " ");
    assert!(
        evidence.contains("meshes touch in every one of 1000 seeded poses; 50.0 mm deep at rest"),
        "{text}"
    );
    let loaded = load_robot(&config, &read().load).unwrap();
    assert!(loaded.config.unwrap().allow.is_empty());

    // --adopt-contacts: the same row, active, its reason saying it was not reviewed.
    let refused = common::collide()
        .args(["init", s(&urdf), "--out", s(&out), "--adopt-contacts"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2), "the config exists");
    let (json, text) = init_json(
        &[
            "init",
            s(&urdf),
            "--out",
            s(&out),
            "--adopt-contacts",
            "--force",
        ],
        &config,
    );
    assert_eq!(json["candidates"][0]["adopted"], true);
    assert!(text.contains("\nallow:\n"), "{text}");
    let allow = load_robot(&config, &read().load)
        .unwrap()
        .config
        .unwrap()
        .allow;
    assert_eq!(allow.len(), 1);
    assert_eq!((allow[0].a.as_str(), allow[0].b.as_str()), ("base", "l2"));
    assert!(
        allow[0]
            .reason
            .starts_with("adopted by collide init without review")
            && allow[0].reason.contains("every one of 1000 seeded poses"),
        "{}",
        allow[0].reason
    );
}

#[test]
fn without_out_the_config_goes_to_robots_name() {
    let tmp = tempfile::tempdir().unwrap();
    let urdf = robot("init_linkage/urdf/linkage.urdf");
    let out = common::collide()
        .current_dir(tmp.path())
        .args(["init", s(&urdf), "-q"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let config = tmp.path().join("robots/init_linkage/robot.yaml");
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("wrote robots/init_linkage/robot.yaml\n")
    );
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(text.contains("\nname: init_linkage\n"), "{text}");
}

/// One `error:` line naming `names`, exit 2, nothing on stdout.
fn assert_refused(out: &Output, names: &str, says: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("error: ") && stderr.contains(names) && stderr.contains(says),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn bad_input_is_one_error_line_and_nothing_written() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let run = |args: &[&str]| common::collide().args(args).output().unwrap();

    // An unreadable description, a malformed one, a config instead of a description.
    let missing = tmp.path().join("missing.urdf");
    assert_refused(
        &run(&["init", s(&missing), "--out", s(&out)]),
        "missing.urdf",
        "",
    );
    let bad = common::repo().join("tests/bad/bad_number.urdf");
    assert_refused(
        &run(&["init", s(&bad), "--out", s(&out)]),
        "bad_number.urdf",
        "",
    );
    let yaml = robot("two_boxes/robot.yaml");
    assert_refused(
        &run(&["init", s(&yaml), "--out", s(&out)]),
        "robot.yaml",
        "is not a .urdf, a .xacro or an MJCF .xml",
    );
    // No pose is free: the slider always sits in one of three blocks.
    let stuck = robot("init_stuck/stuck.urdf");
    assert_refused(
        &run(&["init", s(&stuck), "--out", s(&out)]),
        "stuck.urdf",
        "no free rest pose",
    );
    assert!(!out.exists(), "something was written");

    // An existing config is kept without --force.
    std::fs::create_dir_all(&out).unwrap();
    let config = out.join("robot.yaml");
    std::fs::write(&config, "name: mine\n").unwrap();
    let urdf = robot("init_linkage/urdf/linkage.urdf");
    assert_refused(
        &run(&["init", s(&urdf), "--out", s(&out)]),
        "out/robot.yaml",
        "--force",
    );
    assert_eq!(std::fs::read_to_string(&config).unwrap(), "name: mine\n");
    // ... and a failed run with --force leaves it as it was.
    assert_refused(
        &run(&["init", s(&stuck), "--out", s(&out), "--force"]),
        "stuck.urdf",
        "no free rest pose",
    );
    assert_eq!(std::fs::read_to_string(&config).unwrap(), "name: mine\n");
    assert_eq!(
        std::fs::read_dir(&out).unwrap().count(),
        1,
        "no stray files"
    );
}

/// Talos: q = 0 hangs the arms into the legs; its SRDF's `half_sitting` is free.
#[test]
fn talos_rests_at_half_sitting() {
    let tmp = tempfile::tempdir().unwrap();
    let urdf = common::erd().join("talos_data/robots/talos_reduced.urdf");
    let out = tmp.path().join("talos");
    let (json, text) = init_json(
        &["init", s(&urdf), "--out", s(&out), "-q"],
        &out.join("robot.yaml"),
    );
    assert_eq!(json["rest_pose"]["name"], "half_sitting", "{json:#}");
    assert!(text.contains(
        "\nurdf: package://example-robot-data/robots/talos_data/robots/talos_reduced.urdf\n"
    ));
    assert!(
        text.contains("\nsrdf: package://example-robot-data/robots/talos_data/srdf/talos.srdf\n")
    );
}

/// Issue 34 item 5: the summary named 3 of "4 pair(s)" and its reason column was hundreds
/// of columns wide. Every far pair that ruled q = 0 out is named (the count is what is
/// listed), and no line of the summary is wider than a terminal.
#[test]
fn the_summary_names_every_pair_it_counts_and_wraps_its_reasons() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("many");
    let urdf = robot("init_many/arm.urdf");
    let run = common::collide_ok(&["init", s(&urdf), "--out", s(&out)]);
    let text = String::from_utf8(run.stdout).unwrap();
    assert!(text.contains("not taken: 4 far pair(s) touch"), "{text}");
    let reasons: String = text
        .split("q = 0: the meshes of")
        .nth(1)
        .unwrap_or_else(|| panic!("no reason for q = 0:\n{text}"))
        .split(": the rest pose is the fix")
        .next()
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(reasons.starts_with("4 pair(s)"), "{reasons}");
    for pair in ["base/l3", "base/l4", "base/l5", "base/l6"] {
        assert!(reasons.contains(pair), "{pair} not named:\n{text}");
    }
    assert!(!reasons.contains("more pair(s)"), "{reasons}");
    for line in text.lines() {
        assert!(line.chars().count() <= 100, "{} wide: {line}", line.len());
    }
}

/// Issue 31 item 4: `lower` runs before the ACM exists. The contacts by design it offers
/// leave out the adjacent pairs `acm regenerate` exempts (base/l1 and l1/l2 here), and each
/// pair in contact at rest is given one depth: base/l2, offered, with its meshes' depth
/// only, not also with its primitives' in the rest-pose list.
#[test]
fn lower_offers_no_adjacent_pair_as_a_contact_by_design_and_one_depth_per_pair() {
    let tmp = tempfile::tempdir().unwrap();
    let urdf = robot("lower_design/knee.urdf");
    let manifest = tmp.path().join("knee.manifest.yaml");
    let run = common::collide_ok(&["lower", s(&urdf), "--write", "--out", s(&manifest)]);
    let text = String::from_utf8(run.stdout).unwrap();
    let offered: Vec<&str> = text
        .split("contacts by design among the checked pairs")
        .nth(1)
        .unwrap_or_else(|| panic!("no contacts by design offered:\n{text}"))
        .lines()
        .filter(|l| l.starts_with("  ") && l.contains(" / "))
        .collect();
    assert_eq!(offered.len(), 1, "{text}");
    assert!(
        offered[0].starts_with("  base / l2: 2 moving joint(s) apart"),
        "{text}"
    );
    assert!(offered[0].ends_with("50.0 mm deep at rest"), "{text}");
    // Every pair with a depth appears once.
    let depth_lines = |a: &str, b: &str| {
        text.lines()
            .filter(|l| l.contains(" mm deep"))
            .filter(|l| l.contains(&format!("{a} - {b}:")) || l.contains(&format!("{a} / {b}:")))
            .count()
    };
    for (a, b) in [("base", "l1"), ("base", "l2"), ("l1", "l2")] {
        assert_eq!(depth_lines(a, b), 1, "{a}/{b}:\n{text}");
    }
    assert!(
        text.contains("3 pair(s) in contact (not in the ACM; run `collide acm regenerate`), 1 of them listed below as contacts by design:"),
        "{text}"
    );
}

/// The xacrodoc `make test` installs (COLLIDE_XACRO, else `.venv/bin/xacrodoc`).
fn xacrodoc() -> PathBuf {
    std::env::var_os("COLLIDE_XACRO")
        .map(PathBuf::from)
        .unwrap_or_else(|| common::repo().join(".venv/bin/xacrodoc"))
}

/// `collide ARGS` with the xacro expander, exit 0.
fn xacro_ok(args: &[&str]) -> Output {
    let run = common::collide()
        .env("COLLIDE_XACRO", xacrodoc())
        .args(args)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    run
}

/// Issue 34 item 2: `init` refused a `.xacro` ("is not a .urdf or an MJCF .xml"). It now
/// expands it with the `--xacro-arg`s given and writes a config whose `urdf:` is the xacro
/// (`package://` from its package.xml's name when the package roots find it, else a
/// relative path) with those arguments as `xacro_args`, text as given ("0.60" stays so);
/// the config loads back to the same expansion (the prefix on every link).
#[test]
fn init_takes_a_xacro_and_writes_it_with_its_arguments() {
    let tmp = tempfile::tempdir().unwrap();
    let pkgs = common::repo().join("tests/fixtures/xacro");
    let xacro = pkgs.join("toy_arm/urdf/arm.urdf.xacro");
    let init = |out: &Path, extra: &[&str]| {
        let mut args = vec![
            "init",
            s(&xacro),
            "--xacro-arg",
            "prefix:=left_",
            "--xacro-arg",
            "reach:=0.60",
            "--out",
            s(out),
            "-q",
        ];
        args.extend_from_slice(extra);
        xacro_ok(&args);
        std::fs::read_to_string(out.join("robot.yaml")).unwrap()
    };
    let args_yaml = "xacro_args:\n  prefix: \"left_\"\n  reach: \"0.60\"\n";

    let out = tmp.path().join("pkg");
    let text = init(&out, &["--package-path", s(&pkgs)]);
    assert!(
        text.contains("\nname: toy_arm\nurdf: package://toy_arm_description/urdf/arm.urdf.xacro\n"),
        "{text}"
    );
    assert!(text.contains(args_yaml), "{text}");
    // It loads back to the same expansion: the prefix on every link.
    let links = |config: &Path, extra: &[&str]| {
        let mut args = vec!["inspect", s(config), "--json"];
        args.extend_from_slice(extra);
        let run = xacro_ok(&args);
        let v: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
        v["links"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["name"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let prefixed = ["left_base", "left_upper", "left_fore", "left_tool"];
    assert_eq!(
        links(&out.join("robot.yaml"), &["--package-path", s(&pkgs)]),
        prefixed
    );

    // Outside the package roots: a path relative to the config.
    let out = tmp.path().join("rel");
    let text = init(&out, &[]);
    let urdf = text
        .lines()
        .find_map(|l| l.strip_prefix("urdf: "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        urdf.starts_with("../") && urdf.ends_with("/toy_arm/urdf/arm.urdf.xacro"),
        "{text}"
    );
    assert!(text.contains(args_yaml), "{text}");
    assert_eq!(links(&out.join("robot.yaml"), &[]), prefixed);

    // The fleet's robosuite Panda xacro: its package is `franka_description` by its
    // package.xml, in a folder named panda_description.
    let data = common::repo().join(".robots/site/robosuite/models/assets/bullet_data");
    let panda = data.join("panda_description/urdf/panda_arm.urdf.xacro");
    assert!(
        panda.is_file(),
        "real robots are not installed: run `make test`"
    );
    let out = tmp.path().join("panda");
    xacro_ok(&[
        "init",
        s(&panda),
        "--package-path",
        s(&data),
        "--out",
        s(&out),
        "-q",
    ]);
    let text = std::fs::read_to_string(out.join("robot.yaml")).unwrap();
    assert!(
        text.contains(
            "\nname: panda\nurdf: package://franka_description/urdf/panda_arm.urdf.xacro\n"
        ),
        "{text}"
    );
    assert!(!text.contains("xacro_args"), "{text}");
}

/// Issue 31 item 4: a base and a torso that touch at rest only through the vendor's
/// placeholder collision cylinder (tests/robots/init_truth). By default init judges on
/// collision + visual, reports the pair with both truths' evidence and offers
/// `truth: visual` commented out; with `--truth visual` the config chooses it, the rest
/// pose is free, and lower, acm regenerate and verify work on that truth, which the
/// manifest records: a config that changes its choice makes the manifest stale.
#[test]
fn init_offers_the_visual_truth_where_collision_primitives_make_the_rest_touch() {
    let tmp = tempfile::tempdir().unwrap();
    let urdf = robot("init_truth/torso.urdf");
    let out = tmp.path().join("default");
    let config = out.join("robot.yaml");
    let (json, text) = init_json(&["init", s(&urdf), "--out", s(&out)], &config);
    let truth = &json["truth"];
    assert_eq!(truth["geometry"], "collision+visual", "{json:#}");
    assert_eq!(truth["chosen"], false);
    assert_eq!(truth["coarse_links"], serde_json::json!(["base", "torso"]));
    let pairs = truth["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 1, "{json:#}");
    assert_eq!(
        (&pairs[0]["a"], &pairs[0]["b"]),
        (&"base".into(), &"torso".into())
    );
    // Visual cubes 15 mm apart (to 1 µm, from below); the cylinder holds the torso's lower
    // corners, radius sqrt(2) * 0.05 off the axis, about 79 mm inside its side (the
    // 32-sided mesh of the cylinder is circumscribed).
    let apart = pairs[0]["visual_apart_m"].as_f64().unwrap();
    assert!((0.015 - 2e-6..=0.015).contains(&apart), "{apart}");
    let depth = pairs[0]["collision_and_visual"]["depth_m"]
        .as_f64()
        .unwrap();
    assert!((0.078..0.082).contains(&depth), "{depth}");
    assert!(text.contains("\n# truth: visual\n"), "{text}");
    let unwrapped = text.replace("\n# ", " ");
    assert!(
        unwrapped
            .contains("base/torso (collision + visual: 79.6 mm deep; visual only: 15.0 mm apart)"),
        "{text}"
    );
    // The pair is a contact by design on collision + visual.
    assert_eq!(json["candidates"][0]["b"], "torso", "{json:#}");
    let loaded = load_robot(&config, &read().load).unwrap();
    assert_eq!(
        loaded.robot.truth,
        collide::model::TruthGeometry::CollisionAndVisual
    );

    // Chosen: judged on the visual pieces, where nothing touches.
    let out = tmp.path().join("visual");
    let config = out.join("robot.yaml");
    let (json, text) = init_json(
        &["init", s(&urdf), "--out", s(&out), "--truth", "visual"],
        &config,
    );
    assert_eq!(json["truth"]["geometry"], "visual", "{json:#}");
    assert_eq!(json["candidates"], serde_json::json!([]));
    assert_eq!(json["rest_pose"]["kind"], "zero");
    assert!(text.contains("\ntruth: visual\n"), "{text}");
    let manifest = out.join("manifest.yaml");
    common::collide_ok(&["lower", s(&config), "--write"]);
    // Before the ACM: every pair checked, the visual cubes' primitives apart at rest.
    let written = std::fs::read_to_string(&manifest).unwrap();
    assert!(written.contains("\ntruth: visual\n"), "{written}");
    let m = collide::manifest::load_manifest(&manifest).unwrap();
    assert!(m.rest_pose.clear, "{written}");
    assert!(m.rest_pose.min_distance_m > 0.01, "{written}");
    common::collide_ok(&["acm", "regenerate", s(&config), "--write"]);
    let written = std::fs::read_to_string(&manifest).unwrap();
    assert!(written.contains("\ntruth: visual\n"), "{written}");
    common::collide_ok(&["verify", s(&manifest)]);

    // The config changes its choice: the manifest was proven on another truth.
    std::fs::write(&config, text.replace("\ntruth: visual\n", "\n")).unwrap();
    let run = common::collide()
        .args(["verify", s(&manifest)])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        stdout
            .contains("chooses `truth: collision+visual`, but the manifest was proven on `visual`"),
        "{stdout}"
    );
}
