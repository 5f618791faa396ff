//! xacro descriptions read directly: expanded by xacrodoc (installed by `make test` into
//! `.venv/`, found through COLLIDE_XACRO), then read as a URDF; packages found by their
//! package.xml name; the manifest records the expansion so `verify` sees a changed macro
//! or argument. Hand-made fixtures are in tests/fixtures/xacro/; the real robot is the
//! Franka Panda description that robosuite ships (no vendor file is committed).

mod common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixtures() -> PathBuf {
    common::repo().join("tests/fixtures/xacro")
}

/// The xacrodoc `make test` installs (COLLIDE_XACRO, else `.venv/bin/xacrodoc`).
fn xacrodoc() -> PathBuf {
    let p = std::env::var_os("COLLIDE_XACRO")
        .map(PathBuf::from)
        .unwrap_or_else(|| common::repo().join(".venv/bin/xacrodoc"));
    assert!(
        p.is_file(),
        "no xacro expander at {}: run `make test` (it installs xacrodoc==2.0.1 into .venv/ and sets COLLIDE_XACRO)",
        p.display()
    );
    p
}

/// ROS's `xacro`, which xacrodoc depends on, beside it in the venv.
fn ros_xacro() -> PathBuf {
    let p = xacrodoc().with_file_name("xacro");
    assert!(
        p.is_file(),
        "no ROS xacro at {}: run `make test` (it installs xacro==2.1.1 into .venv/)",
        p.display()
    );
    p
}

/// robosuite's bullet_data folder, which holds panda_description.
fn bullet_data() -> PathBuf {
    let p = common::repo().join(".robots/site/robosuite/models/assets/bullet_data");
    assert!(
        p.join("panda_description/package.xml").is_file(),
        "real robots are not installed ({} missing): run `make test`",
        p.display()
    );
    p
}

fn collide() -> Command {
    let mut c = common::collide();
    c.env("COLLIDE_XACRO", xacrodoc());
    c
}

fn run(args: &[&str]) -> Output {
    collide().args(args).output().unwrap()
}

fn ok(out: Output, what: &str) -> Output {
    assert!(
        out.status.success(),
        "{what}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn json(out: Output, what: &str) -> Value {
    let out = ok(out, what);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{what}: {e}"))
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The one error line of a run that must fail as bad input (exit 2, no panic).
fn one_error_line(out: &Output, what: &str) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{what}: {stderr}");
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error")).collect();
    assert_eq!(errors.len(), 1, "{what}: one error line: {stderr}");
    assert!(
        stderr.lines().next().unwrap_or("").starts_with("error: "),
        "{what}: {stderr}"
    );
    errors[0].to_string()
}

fn names(v: &Value, key: &str) -> Vec<String> {
    v[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["name"].as_str().unwrap().to_string())
        .collect()
}

fn xyz(fk: &Value, link: &str) -> [f64; 3] {
    let v = &fk["links"][link]["xyz"];
    assert!(v.is_array(), "no link {link} in {fk}");
    [0, 1, 2].map(|i| v[i].as_f64().unwrap())
}

fn close(a: [f64; 3], b: [f64; 3]) -> bool {
    a.iter().zip(&b).all(|(x, y)| (x - y).abs() < 1e-9)
}

const TOY: &str = "toy_arm/urdf/arm.urdf.xacro";

/// Links, joints and meshes as `inspect --json` gives them, each mesh by the file it
/// resolves to (however the reference is spelled), for comparing two descriptions.
fn shape_of(inspect: &Value) -> (Value, Vec<(String, Vec<Value>)>) {
    let links = inspect["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            let geometry = l["geometry"]
                .as_array()
                .unwrap()
                .iter()
                .map(|g| {
                    let mut g = g.clone();
                    if let Some(file) = g["file"].as_str() {
                        let real = std::fs::canonicalize(common::repo().join(file))
                            .unwrap_or_else(|e| panic!("{file}: {e}"));
                        g["file"] = real.display().to_string().into();
                    }
                    g.as_object_mut().unwrap().remove("uri");
                    g
                })
                .collect();
            (l["name"].as_str().unwrap().to_string(), geometry)
        })
        .collect();
    (inspect["joints"].clone(), links)
}

#[test]
fn macros_properties_conditions_includes_args_and_yaml_expand() {
    let arm = fixtures().join(TOY);
    let pkgs = fixtures();
    let v = json(
        run(&["inspect", s(&arm), "--json", "--package-path", s(&pkgs)]),
        "inspect",
    );
    assert_eq!(v["robot"], "toy_arm");
    assert_eq!(names(&v, "links"), ["base", "upper", "fore", "tool"]);
    assert_eq!(names(&v, "joints"), ["shoulder", "elbow", "tool_joint"]);
    // Limits from the YAML file through xacro.load_yaml (an integer stays a number).
    assert_eq!(v["joints"][0]["limits"], serde_json::json!([-2.5, 2.5]));
    assert_eq!(v["joints"][1]["limits"], serde_json::json!([-0.1, 2.0]));
    assert_eq!(v["joints"][2]["type"], "fixed");
    // The tool's mesh by its package's own name, in a folder named otherwise.
    let tool = &v["links"][3]["geometry"][0];
    assert_eq!(tool["uri"], "package://toy_arm_description/meshes/cube.stl");
    assert!(
        tool["file"]
            .as_str()
            .unwrap()
            .ends_with("toy_arm/meshes/cube.stl"),
        "{tool}"
    );
    assert_eq!(tool["vertices"], 8);
    assert_eq!(tool["scale"], serde_json::json!([0.05, 0.05, 0.05]));
    assert_eq!(v["sources"][0], arm.display().to_string());

    // ${} math: the elbow stands upper_len = 0.6 reach above the shoulder, the tool
    // fore_len = reach - upper_len above the elbow.
    let fk = json(
        run(&["fk", s(&arm), "--json", "--package-path", s(&pkgs)]),
        "fk",
    );
    assert!(close(xyz(&fk, "fore"), [0.0, 0.0, 0.34]), "{fk}");
    assert!(close(xyz(&fk, "tool"), [0.0, 0.0, 0.5]), "{fk}");

    // Arguments: a prefix on every name, xacro:unless instead of xacro:if, other math.
    let v = json(
        run(&[
            "inspect",
            s(&arm),
            "--json",
            "--xacro-arg",
            "prefix:=left_",
            "--xacro-arg",
            "with_tool:=false",
            "--xacro-arg",
            "reach:=0.6",
        ]),
        "inspect with arguments",
    );
    assert_eq!(
        names(&v, "links"),
        ["left_base", "left_upper", "left_fore", "left_flange"]
    );
    let fk = json(
        run(&["fk", s(&arm), "--json", "--xacro-arg", "reach:=0.6"]),
        "fk reach:=0.6",
    );
    assert!(close(xyz(&fk, "tool"), [0.0, 0.0, 0.7]), "{fk}");
    // Without --package-path the expander finds the package itself (walking up to its
    // package.xml); the mesh is then named relative to the xacro file.
    let v = json(run(&["inspect", s(&arm), "--json"]), "inspect");
    assert_eq!(
        v["links"][3]["geometry"][0]["uri"], "../meshes/cube.stl",
        "{v}"
    );
}

#[test]
fn xacro_args_in_the_robot_config_and_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("robot.yaml");
    let arm = fixtures().join(TOY);
    std::fs::write(
        &config,
        format!(
            "name: toy\nurdf: {}\nxacro_args: {{prefix: r_, reach: 0.6, with_tool: false}}\n",
            arm.display()
        ),
    )
    .unwrap();
    let v = json(run(&["inspect", s(&config), "--json"]), "inspect config");
    assert_eq!(v["robot"], "toy");
    assert_eq!(
        names(&v, "links"),
        ["r_base", "r_upper", "r_fore", "r_flange"]
    );
    // The command line overrides the config, name by name.
    let v = json(
        run(&[
            "inspect",
            s(&config),
            "--json",
            "--xacro-arg",
            "with_tool:=true",
        ]),
        "inspect config with --xacro-arg",
    );
    assert_eq!(
        names(&v, "links"),
        ["r_base", "r_upper", "r_fore", "r_tool"]
    );
    ok(run(&["lower", s(&config), "-q"]), "lower dry run");
    assert!(!dir.path().join("manifest.yaml").exists());

    // xacro_args for a plain URDF is a mistake, at its line.
    let plain = common::repo().join("tests/robots/two_boxes/two_boxes.urdf");
    std::fs::write(
        &config,
        format!(
            "name: toy\nurdf: {}\nxacro_args: {{a: b}}\n",
            plain.display()
        ),
    )
    .unwrap();
    let line = one_error_line(&run(&["inspect", s(&config)]), "xacro_args on a URDF");
    assert!(
        line.contains(&format!("{}:3:1:", config.display())) && line.contains("xacro_args"),
        "{line}"
    );
    // A malformed --xacro-arg is refused by the argument parser.
    let out = run(&["inspect", s(&arm), "--xacro-arg", "reach=0.6"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("is not NAME:=VALUE"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Copies the directory tree `from` into `to`.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let target = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_tree(&p, &target);
        } else {
            std::fs::copy(&p, &target).unwrap();
        }
    }
}

#[test]
fn a_lowered_xacro_records_its_expansion_and_verify_catches_a_changed_macro_or_argument() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    copy_tree(&fixtures().join("toy_arm"), &root.join("toy_arm"));
    let config = root.join("robot.yaml");
    let config_text = "name: toy\nurdf: toy_arm/urdf/arm.urdf.xacro\nxacro_args: {reach: 0.5}\n";
    std::fs::write(&config, config_text).unwrap();
    let manifest = root.join("manifest.yaml");
    let pkg = ["--package-path", s(root)];
    let lower = |extra: &[&str]| {
        let mut args = vec!["lower", s(&config), "-q"];
        args.extend_from_slice(&pkg);
        args.extend_from_slice(extra);
        run(&args)
    };
    let verify = |extra: &[&str]| {
        let mut args = vec!["verify", s(&manifest)];
        args.extend_from_slice(&pkg);
        args.extend_from_slice(extra);
        run(&args)
    };
    ok(lower(&["--write"]), "lower --write");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let first = text
        .lines()
        .find(|l| l.contains("arm.urdf.xacro"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        first.starts_with("  - {path: toy_arm/urdf/arm.urdf.xacro, sha256: ")
            && first.contains(", xacro: {expanded_sha256: ")
            && first.contains("args: {reach: "),
        "{first}"
    );
    // Only the xacro source carries the record; the mesh is named by its package.
    assert_eq!(text.matches("xacro: {").count(), 1, "{text}");
    assert!(
        text.contains("  - {path: package://toy_arm_description/meshes/cube.stl, sha256: "),
        "{text}"
    );
    ok(verify(&[]), "verify");
    ok(lower(&["--check"]), "lower --check");

    // A changed macro in an included file: the xacro file's bytes are the same, its
    // expansion is not.
    let parts = root.join("toy_arm/urdf/parts.xacro");
    let original = std::fs::read_to_string(&parts).unwrap();
    std::fs::write(&parts, original.replace("height:=0.1", "height:=0.12")).unwrap();
    let out = verify(&[]);
    let said =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("stale") && said.contains("expands to another URDF than recorded"),
        "{said}"
    );
    assert_eq!(lower(&["--check"]).status.code(), Some(1));
    std::fs::write(&parts, &original).unwrap();
    ok(verify(&[]), "verify after the macro is restored");

    // A changed argument, in the config or on the command line.
    std::fs::write(&config, config_text.replace("0.5", "0.55")).unwrap();
    let out = verify(&[]);
    let said =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("xacro arguments changed (recorded: reach:=0.5; now: reach:=0.55)"),
        "{said}"
    );
    ok(
        verify(&["--xacro-arg", "reach:=0.5"]),
        "verify with the recorded argument",
    );
    std::fs::write(&config, config_text).unwrap();
    assert_eq!(
        verify(&["--xacro-arg", "prefix:=x_"]).status.code(),
        Some(1)
    );

    // A changed xacro file is a changed source like any other.
    let arm = root.join("toy_arm/urdf/arm.urdf.xacro");
    let mut edited = std::fs::read_to_string(&arm).unwrap();
    edited.push_str("<!-- edited -->\n");
    std::fs::write(&arm, edited).unwrap();
    let out = verify(&[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("changed since the manifest was written"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn xacro_errors_are_one_line_naming_the_file_and_line_and_write_nothing() {
    let cases = [
        (
            "unknown_macro.urdf.xacro",
            7,
            "unknown macro name: xacro:no_such_macro",
        ),
        (
            "missing_arg.urdf.xacro",
            7,
            "Undefined substitution argument ur_type",
        ),
        ("missing_param.urdf.xacro", 9, "Undefined parameters [size]"),
        (
            "arg_without_default.urdf.xacro",
            4,
            "missing attribute 'default'",
        ),
    ];
    for (file, line, want) in cases {
        let path = fixtures().join("errors").join(file);
        let at = format!("{}:{line}:", path.display());
        for expander in [xacrodoc(), ros_xacro()] {
            let out = collide()
                .env("COLLIDE_XACRO", &expander)
                .args(["inspect", s(&path)])
                .output()
                .unwrap();
            let got = one_error_line(&out, file);
            assert!(
                got.contains(&at) && got.contains(want),
                "{expander:?}: {got}"
            );
        }
        // Through a config, with --write: nothing is written.
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("robot.yaml");
        std::fs::write(&config, format!("name: bad\nurdf: {}\n", path.display())).unwrap();
        let got = one_error_line(&run(&["lower", s(&config), "--write"]), file);
        assert!(got.contains(&at), "{got}");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "only robot.yaml: {left:?}");
    }
    // An argument without a value says how to give one.
    let got = one_error_line(
        &run(&[
            "inspect",
            s(&fixtures().join("errors/missing_arg.urdf.xacro")),
        ]),
        "missing argument",
    );
    assert!(got.contains("--xacro-arg ur_type:=VALUE"), "{got}");
    // Given, it expands.
    ok(
        run(&[
            "inspect",
            s(&fixtures().join("errors/missing_arg.urdf.xacro")),
            "--xacro-arg",
            "ur_type:=ur5",
        ]),
        "missing argument given",
    );
}

#[test]
fn no_expander_is_one_line_saying_how_to_install_one() {
    let arm = fixtures().join(TOY);
    let empty = tempfile::tempdir().unwrap();
    let out = common::collide()
        .env_remove("COLLIDE_XACRO")
        .env("PATH", empty.path())
        .args(["inspect", s(&arm)])
        .output()
        .unwrap();
    let got = one_error_line(&out, "no expander");
    assert!(
        got.contains(&arm.display().to_string())
            && got.contains("no xacro expander was found")
            && got.contains("pip install xacrodoc==2.0.1"),
        "{got}"
    );
    let out = common::collide()
        .env("COLLIDE_XACRO", empty.path().join("xacrodoc"))
        .args(["inspect", s(&arm)])
        .output()
        .unwrap();
    let got = one_error_line(&out, "COLLIDE_XACRO names nothing");
    assert!(
        got.contains("COLLIDE_XACRO is") && got.contains("pip install xacrodoc==2.0.1"),
        "{got}"
    );
    // Found on PATH when COLLIDE_XACRO is not set.
    let out = common::collide()
        .env_remove("COLLIDE_XACRO")
        .env("PATH", xacrodoc().parent().unwrap())
        .args(["inspect", s(&arm), "-q"])
        .output()
        .unwrap();
    ok(out, "xacrodoc on PATH");
}

/// An expander (a shell script) that prints `output` and exits with `code`.
fn fake_expander(dir: &Path, name: &str, output: &str, code: i32) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let p = dir.join(name);
    std::fs::write(
        &p,
        format!("#!/bin/sh\ncat <<'END'\n{output}\nEND\nexit {code}\n"),
    )
    .unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p
}

#[test]
fn an_expansion_still_holding_xacro_is_refused() {
    let arm = fixtures().join("errors/unknown_macro.urdf.xacro");
    let dir = tempfile::tempdir().unwrap();
    let link =
        "<link name=\"a\"><collision><geometry><box size=\"1 1 1\"/></geometry></collision></link>";
    let cases = [
        (
            format!("<robot name=\"${{name}}\">{link}</robot>"),
            "still holds `${name}`",
        ),
        (
            format!("<robot name=\"r\">{link}<link name=\"$(arg b)\"/></robot>"),
            "still holds `$(arg b)`",
        ),
        (
            format!("<robot name=\"r\">{link}<xacro:m/></robot>"),
            "still holds the xacro tag `<xacro:m`",
        ),
        (
            format!(
                "<robot xmlns:xacro=\"http://www.ros.org/wiki/xacro\" name=\"r\">{link}<xacro:property name=\"p\" value=\"1\"/></robot>"
            ),
            "still holds the xacro tag `<xacro:property>`",
        ),
        (
            format!("<robot name=\"r\">{link}<origin>${{1+1}}</origin></robot>"),
            "still holds `${1+1}`",
        ),
        ("<robot".to_string(), "is not XML"),
    ];
    for (i, (output, want)) in cases.iter().enumerate() {
        let fake = fake_expander(dir.path(), &format!("fake-xacro-{i}"), output, 0);
        let out = common::collide()
            .env("COLLIDE_XACRO", &fake)
            .args(["inspect", s(&arm)])
            .output()
            .unwrap();
        let got = one_error_line(&out, want);
        assert!(
            got.contains(&arm.display().to_string()) && got.contains(want),
            "{got}"
        );
    }
    // A clean expansion from the same fake expander reads.
    let fake = fake_expander(
        dir.path(),
        "fake-xacro-ok",
        &format!("<robot name=\"r\">{link}</robot>"),
        0,
    );
    let out = common::collide()
        .env("COLLIDE_XACRO", &fake)
        .args(["inspect", s(&arm), "--json"])
        .output()
        .unwrap();
    assert_eq!(json(out, "fake expander")["robot"], "r");
    // One that fails without a word.
    let fake = fake_expander(dir.path(), "fake-xacro-mute", "", 3);
    let out = common::collide()
        .env("COLLIDE_XACRO", &fake)
        .args(["inspect", s(&arm)])
        .output()
        .unwrap();
    let got = one_error_line(&out, "mute expander");
    assert!(got.contains("exited with exit status: 3"), "{got}");
}

#[test]
fn a_package_is_found_by_its_package_xml_name_in_a_folder_named_otherwise() {
    let urdf = fixtures().join("plain/by_package_name.urdf");
    for root in [fixtures(), fixtures().join("toy_arm")] {
        let v = json(
            run(&["inspect", s(&urdf), "--json", "--package-path", s(&root)]),
            "inspect",
        );
        let file = v["links"][0]["geometry"][0]["file"].as_str().unwrap();
        assert!(file.ends_with("toy_arm/meshes/cube.stl"), "{v}");
    }
    let got = one_error_line(&run(&["inspect", s(&urdf)]), "no package path");
    assert!(
        got.contains("cannot find package `toy_arm_description`"),
        "{got}"
    );
    // `..` may still not climb out of the package found so.
    let dir = tempfile::tempdir().unwrap();
    let escaping = dir.path().join("escape.urdf");
    std::fs::write(
        &escaping,
        std::fs::read_to_string(&urdf)
            .unwrap()
            .replace("meshes/cube.stl", "../toy_arm/meshes/cube.stl"),
    )
    .unwrap();
    let got = one_error_line(
        &run(&["inspect", s(&escaping), "--package-path", s(&fixtures())]),
        "escaping package",
    );
    assert!(got.contains("climbs out of package"), "{got}");
}

#[test]
fn the_shipped_panda_arm_hand_xacro_is_refused_for_its_dangling_hand_joint() {
    // robosuite 1.5.2's panda_arm.xacro has panda_link8 and panda_joint8 commented out,
    // while panda_arm_hand.urdf.xacro still hangs the hand on panda_link8.
    let data = bullet_data();
    let xacro = data.join("panda_description/urdf/panda_arm_hand.urdf.xacro");
    let got = one_error_line(
        &run(&["inspect", s(&xacro), "--package-path", s(&data)]),
        "shipped panda_arm_hand.urdf.xacro",
    );
    assert!(
        got.contains(&format!("{} (expanded):", xacro.display()))
            && got.contains(
                "joint `panda_hand_joint` names link `panda_link8`, which is not in the robot"
            ),
        "{got}"
    );
}

#[test]
fn the_shipped_panda_arm_and_hand_xacros_match_the_urdfs_beside_them() {
    let data = bullet_data();
    let urdf = data.join("panda_description/urdf");
    let inspect = |file: &Path, expander: &Path| {
        let out = collide()
            .env("COLLIDE_XACRO", expander)
            .args(["inspect", s(file), "--json", "--package-path", s(&data)])
            .output()
            .unwrap();
        shape_of(&json(out, &file.display().to_string()))
    };
    // The hand: the same through either expander.
    let want = inspect(&urdf.join("hand.urdf"), &xacrodoc());
    for expander in [xacrodoc(), ros_xacro()] {
        assert_eq!(
            inspect(&urdf.join("hand.urdf.xacro"), &expander),
            want,
            "{expander:?}"
        );
    }
    // The arm: the same but for the commented-out panda_link8 and panda_joint8.
    let (mut joints, mut links) = inspect(&urdf.join("panda_arm.urdf"), &xacrodoc());
    links.retain(|(name, _)| name != "panda_link8");
    joints
        .as_array_mut()
        .unwrap()
        .retain(|j| j["name"] != "panda_joint8");
    assert_eq!(
        inspect(&urdf.join("panda_arm.urdf.xacro"), &xacrodoc()),
        (joints, links)
    );
}

#[test]
fn the_panda_xacro_inspects_lowers_verifies_and_matches_its_urdf() {
    let data = bullet_data();
    let xacro = fixtures().join("panda/panda_arm_hand.urdf.xacro");
    let urdf = data.join("panda_description/urdf/panda_arm_hand.urdf");
    let pkg = ["--package-path", s(&data)];
    let inspect = |file: &Path| {
        let mut args = vec!["inspect", s(file), "--json"];
        args.extend_from_slice(&pkg);
        json(run(&args), &file.display().to_string())
    };
    let (x, u) = (inspect(&xacro), inspect(&urdf));
    assert_eq!(names(&x, "links").len(), 12);
    assert_eq!(shape_of(&x), shape_of(&u));
    // The vendor's macros by their package.xml name (franka_description), the meshes
    // through the folder's own package name.
    let mesh = x["links"][0]["geometry"][0]["uri"].as_str().unwrap();
    assert!(
        mesh.starts_with("package://franka_description/meshes/"),
        "{mesh}"
    );
    // The same frames at a pose (the xacro computes -pi/4 where the URDF writes 12 digits).
    let q = r#"{"panda_joint1":0.3,"panda_joint2":-0.5,"panda_joint4":-1.2,"panda_joint6":1.5,"panda_joint7":0.7,"panda_finger_joint1":0.02}"#;
    let fk = |file: &Path| {
        let mut args = vec!["fk", s(file), "--json", "--q", q];
        args.extend_from_slice(&pkg);
        json(run(&args), "fk")
    };
    let (fx, fu) = (fk(&xacro), fk(&urdf));
    for link in names(&u, "links") {
        assert!(close(xyz(&fx, &link), xyz(&fu, &link)), "{link}");
    }

    // Lowered (dry run, then written into a scratch config) and verified.
    let mut args = vec!["lower", s(&xacro), "-q"];
    args.extend_from_slice(&pkg);
    ok(run(&args), "lower dry run");
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("robot.yaml");
    std::fs::write(
        &config,
        format!("name: panda_xacro\nurdf: {}\n", xacro.display()),
    )
    .unwrap();
    let mut args = vec!["lower", s(&config), "--write", "-q"];
    args.extend_from_slice(&pkg);
    ok(run(&args), "lower --write");
    let manifest = dir.path().join("manifest.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    assert!(
        text.contains(", xacro: {expanded_sha256: ") && text.contains("args: {}}}"),
        "{text}"
    );
    let mut args = vec!["verify", s(&manifest)];
    args.extend_from_slice(&pkg);
    let out = ok(run(&args), "verify");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(": ok ("),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
