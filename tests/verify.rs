//! `collide verify` end to end, with known outcomes: the committed UR5's manifest and a copy
//! of it beside its config (package:// paths, so the copy reads the installed robot) verify;
//! tampered copies fail with exit 1 naming the link, the pair or the source; unreadable
//! manifests exit 2 with one line naming the file and the line; `--json` lists it all.
//! (The tampering kinds on the hand-made shapes robot are in tests/lower_cli.rs.)

mod common;

use collide::manifest::kernel::load_kernel;
use collide::manifest::load_manifest;
use common::{ScratchRobot, tamper};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

fn verify(args: &[&Path]) -> Output {
    common::collide().arg("verify").args(args).output().unwrap()
}

/// `verify --json` on `manifests`: the exit code and the report's `manifests` list.
fn verify_json(manifests: &[&Path]) -> (Option<i32>, Vec<Value>) {
    let out = common::collide()
        .arg("verify")
        .args(manifests)
        .arg("--json")
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let list = report["manifests"].as_array().expect("a manifests list");
    assert_eq!(list.len(), manifests.len(), "{report}");
    (out.status.code(), list.clone())
}

/// A scratch copy of the committed UR5 (robot.yaml and manifest.yaml) with its manifest
/// text changed by `edit`: the directory, the manifest path and the committed text.
fn ur5_copy(edit: impl Fn(&str) -> String) -> (tempfile::TempDir, PathBuf, String) {
    let (dir, config) = ScratchRobot::committed("ur5").build();
    edited_copy(dir, config, edit)
}

/// [`ur5_copy`] of the UR5 lowered by the fit rule alone (`lower --no-refine` without the
/// committed manifest, then `acm regenerate`): capsules, where the committed arm has hulls.
fn ur5_fit_rule_copy(edit: impl Fn(&str) -> String) -> (tempfile::TempDir, PathBuf, String) {
    let (dir, config) = ScratchRobot::committed("ur5").build();
    std::fs::remove_file(config.with_file_name("manifest.yaml")).unwrap();
    let c = config.to_str().unwrap();
    common::collide_ok(&["lower", c, "--no-refine", "--write", "-q"]);
    common::collide_ok(&["acm", "regenerate", c, "--write", "-q"]);
    edited_copy(dir, config, edit)
}

fn edited_copy(
    dir: tempfile::TempDir,
    config: PathBuf,
    edit: impl Fn(&str) -> String,
) -> (tempfile::TempDir, PathBuf, String) {
    let manifest = config.with_file_name("manifest.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let edited = edit(&text);
    assert_ne!(edited, text, "the edit changed nothing");
    std::fs::write(&manifest, edited).unwrap();
    (dir, manifest, text)
}

/// `text` with `row` put in its acm block before the row that starts with `before`.
fn with_acm_row(text: &str, before: &str, row: &str) -> String {
    let at = text
        .find(before)
        .unwrap_or_else(|| panic!("no row {before}"));
    format!("{}{row}\n{}", &text[..at], &text[at..])
}

/// shoulder_link's one capsule at 60 % of its radius (on the written 4-decimal grid): mesh
/// vertices are left outside it.
fn shrunk_shoulder(text: &str) -> String {
    tamper(text, "shoulder_link", "radius: ", |r| {
        (r * 0.6 * 1e4).round() / 1e4
    })
}

/// The only violation of a one-manifest report.
fn only_violation(report: &Value) -> &Value {
    assert_eq!(report["ok"], false, "{report}");
    let v = report["violations"].as_array().unwrap();
    assert_eq!(v.len(), 1, "{report}");
    &v[0]
}

const NEVER_ROW: &str = "  - {a: base_link, b: forearm_link, reason: never, proof: \"branch and bound, 1,023 boxes, min lower bound 20.28 mm\"}";
const FIRST_ROW: &str = "  - {a: base_link, b: shoulder_link,";

#[test]
fn the_committed_ur5_and_a_copy_beside_its_config_verify_clean() {
    let committed = common::repo().join("robots/ur5/manifest.yaml");
    common::site();
    let (dir, config) = ScratchRobot::committed("ur5").build();
    let copy = config.with_file_name("manifest.yaml");
    for m in [&committed, &copy] {
        let out = verify(&[m]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(stdout.lines().count(), 1, "{stdout}");
        assert!(
            stdout.starts_with(&format!("{}: ok (8 links, ", m.display()))
                && stdout.contains(", 10 ACM rows proven)"),
            "{stdout}"
        );
    }
    // A directory stands for the manifest.yaml below it.
    let (code, list) = verify_json(&[dir.path()]);
    assert_eq!(code, Some(0), "{list:?}");
    assert_eq!(list[0]["manifest"], copy.display().to_string());
    assert_eq!(list[0]["ok"], true);
    assert_eq!(list[0]["violations"], serde_json::json!([]));
}

#[test]
fn a_capsule_shrunk_below_containment_fails_naming_the_link() {
    let (_dir, manifest, _) = ur5_fit_rule_copy(shrunk_shoulder);
    let out = verify(&[&manifest]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains(": 1 violation(s)"), "{stdout}");
    let row = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("containment"))
        .unwrap_or_else(|| panic!("no containment row: {stdout}"));
    assert!(
        row.contains("shoulder_link") && row.contains("is outside every primitive"),
        "{row}"
    );
}

#[test]
fn a_changed_source_file_is_stale_and_containment_is_not_judged_on_it() {
    let (_dir, config) = ScratchRobot::new("chain.urdf")
        .lowered(&["--no-refine"])
        .build();
    let manifest = config.with_file_name("manifest.yaml");
    let (code, list) = verify_json(&[&manifest]);
    assert_eq!(
        (code, &list[0]["ok"]),
        (Some(0), &Value::Bool(true)),
        "{list:?}"
    );
    // One more byte in the URDF: another sha256, though the robot reads the same.
    let urdf = config.with_file_name("chain.urdf");
    let mut text = std::fs::read_to_string(&urdf).unwrap();
    text += "<!-- edited -->\n";
    std::fs::write(&urdf, text).unwrap();
    let (code, list) = verify_json(&[&manifest]);
    assert_eq!(code, Some(1), "{list:?}");
    let v = only_violation(&list[0]);
    assert_eq!(v["check"], "stale", "{v}");
    assert_eq!(v["subject"], "chain.urdf", "{v}");
    assert!(
        v["detail"]
            .as_str()
            .unwrap()
            .starts_with("changed since the manifest was written"),
        "{v}"
    );
    // The truth is no longer what was proven against: no containment margin is reported.
    assert_eq!(list[0]["min_margin_m"], Value::Null, "{}", list[0]);
}

#[test]
fn a_source_missing_from_the_record_or_no_longer_read_is_stale() {
    const SRDF: &str = "package://example-robot-data/robots/ur_description/srdf/ur5.srdf";
    let srdf_line = |t: &str| {
        let at = t.find(&format!("  - {{path: {SRDF},")).unwrap();
        let end = at + t[at..].find('\n').unwrap() + 1;
        (at, end)
    };
    // The SRDF's record dropped: read now but not recorded.
    let (_d1, dropped, _) = ur5_copy(|t| {
        let (at, end) = srdf_line(t);
        format!("{}{}", &t[..at], &t[end..])
    });
    // A record for a file the robot does not read.
    let gone = SRDF.replace("ur5.srdf", "gone.srdf");
    let (_d2, extra, _) = ur5_copy(|t| {
        let (at, end) = srdf_line(t);
        let line = t[at..end].replace(SRDF, &gone);
        format!("{}{line}{}", &t[..at], &t[at..])
    });
    let (code, list) = verify_json(&[&dropped, &extra]);
    assert_eq!(code, Some(1), "{list:?}");
    for (report, subject, detail) in [
        (&list[0], SRDF, "read now but not recorded"),
        (&list[1], gone.as_str(), "recorded but no longer read"),
    ] {
        let v = only_violation(report);
        assert_eq!(v["check"], "stale", "{v}");
        assert_eq!(v["subject"], subject, "{v}");
        assert!(v["detail"].as_str().unwrap().starts_with(detail), "{v}");
    }
}

#[test]
fn a_never_row_for_a_pair_that_can_collide_fails_with_a_configuration_where_it_does() {
    // base_link - forearm_link is checked (no ACM row): the forearm folds onto the base.
    let (_dir, manifest, committed) = ur5_copy(|t| with_acm_row(t, FIRST_ROW, NEVER_ROW));
    let (code, list) = verify_json(&[&manifest]);
    assert_eq!(code, Some(1), "{list:?}");
    let v = only_violation(&list[0]);
    assert_eq!(v["check"], "acm", "{v}");
    assert_eq!(v["subject"], "base_link - forearm_link", "{v}");
    let detail = v["detail"].as_str().unwrap();
    let (_, at) = detail
        .split_once(", now can collide: ")
        .unwrap_or_else(|| panic!("{detail}"));
    assert!(
        detail.starts_with("recorded never (branch and bound"),
        "{detail}"
    );
    // The configuration it names brings the pair's written primitives into contact, as
    // the committed manifest's kernel (where the pair is checked) computes it.
    let q_text = at.split_once(" at ").unwrap().1;
    let q_named: Vec<(&str, f64)> = q_text
        .split(' ')
        .map(|kv| {
            let (k, x) = kv.split_once('=').unwrap();
            (k, x.parse().unwrap())
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let original = dir.path().join("manifest.yaml");
    std::fs::write(&original, committed).unwrap();
    let kernel = load_kernel(&load_manifest(&original).unwrap()).unwrap();
    let q: Vec<f64> = kernel
        .dof_names
        .iter()
        .map(|n| q_named.iter().find(|(k, _)| k == n).unwrap().1)
        .collect();
    let (a, b) = (
        kernel.link_index["base_link"],
        kernel.link_index["forearm_link"],
    );
    let pair = kernel
        .model
        .checked_pairs()
        .iter()
        .position(|&p| p == (a.min(b), a.max(b)))
        .expect("base_link - forearm_link is checked");
    let mut ws = kernel.model.workspace();
    let _ = kernel.model.check_self_collision(&q, &mut ws, true);
    let d = ws.pair_distances()[pair];
    assert!(d <= kernel.model.margin(), "{d} m at {q_text}");
}

#[test]
fn an_unreadable_manifest_exits_2_with_one_line_naming_the_file_and_the_line() {
    let (_dir, config) = ScratchRobot::committed("ur5").build();
    let manifest = config.with_file_name("manifest.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let line = |needle: &str| {
        text.lines()
            .position(|l| l.starts_with(needle))
            .expect(needle)
            + 1
    };
    let margin = line("margin_m: ");
    let missing = manifest.with_file_name("missing.yaml");
    for (edited, at, says) in [
        // A value of the wrong type.
        (
            text.replacen("\nmargin_m: 0.0\n", "\nmargin_m: zero\n", 1),
            Some(margin),
            "margin_m",
        ),
        // Not YAML.
        (
            text.replacen("\nmargin_m: 0.0\n", "\nmargin_m: 0.0: 1\n", 1),
            Some(margin),
            "mapping values are not allowed",
        ),
        // A key given twice: the second is named.
        (
            text.replacen("\nmargin_m: 0.0\n", "\nmargin_m: 0.0\nmargin_m: 0.0\n", 1),
            Some(margin + 1),
            "duplicate mapping key: margin_m",
        ),
        // No such file.
        (String::new(), None, "cannot read manifest"),
    ] {
        let path = if at.is_some() {
            std::fs::write(&manifest, &edited).unwrap();
            &manifest
        } else {
            &missing
        };
        let out = verify(&[path]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(
            out.stdout.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
        let place = match at {
            Some(n) => format!("error: {}:{n}:", path.display()),
            None => format!("error: {}: ", path.display()),
        };
        assert!(stderr.starts_with(&place), "{place}: {stderr}");
        assert!(stderr.contains(says), "{says}: {stderr}");
        // With --json, the same message is the manifest's `error`.
        let (code, list) = verify_json(&[path]);
        assert_eq!(code, Some(2));
        assert_eq!(list[0]["manifest"], path.display().to_string());
        assert_eq!(
            format!("error: {}", list[0]["error"].as_str().unwrap()),
            stderr.trim_end()
        );
    }
}

#[test]
fn json_lists_every_violation_in_order_and_the_exit_code_is_the_worst() {
    let committed = common::repo().join("robots/ur5/manifest.yaml");
    common::site();
    let (_d1, tampered, _) =
        ur5_fit_rule_copy(|t| with_acm_row(&shrunk_shoulder(t), FIRST_ROW, NEVER_ROW));
    let (code, list) = verify_json(&[&committed, &tampered]);
    assert_eq!(code, Some(1), "{list:?}");
    assert_eq!(list[0]["manifest"], committed.display().to_string());
    assert_eq!(list[0]["ok"], true, "{}", list[0]);
    assert_eq!(list[1]["manifest"], tampered.display().to_string());
    assert_eq!(list[1]["ok"], false, "{}", list[1]);
    assert_eq!(list[1]["robot"], "ur5");
    let found: Vec<(&str, &str)> = list[1]["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            assert!(!v["detail"].as_str().unwrap().is_empty(), "{v}");
            (v["check"].as_str().unwrap(), v["subject"].as_str().unwrap())
        })
        .collect();
    assert_eq!(
        found,
        [
            ("containment", "shoulder_link"),
            ("acm", "base_link - forearm_link")
        ],
        "{}",
        list[1]
    );
    // An unreadable manifest among them: exit 2, the others still reported.
    let missing = tampered.with_file_name("missing.yaml");
    let (code, list) = verify_json(&[&committed, &tampered, &missing]);
    assert_eq!(code, Some(2), "{list:?}");
    assert_eq!(list[0]["ok"], true);
    assert_eq!(list[1]["violations"].as_array().unwrap().len(), 2);
    assert!(
        list[2]["error"].as_str().unwrap().contains("missing.yaml"),
        "{}",
        list[2]
    );
}
