//! `collide lower`, `verify` and the guards on a hand-made robot with known shapes:
//! a cube, a long cylinder, an L shape, a flat plate, a single triangle, a mirrored L
//! (tests/robots/shapes, copied into a scratch directory so tests can edit it).

mod common;

use common::{ScratchRobot, tamper};
use std::path::{Path, PathBuf};
use std::process::Output;

fn run(args: &[&str]) -> Output {
    common::collide().args(args).output().unwrap()
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn lower_write(config: &Path) -> String {
    lower_write_with(config, &[])
}

fn lower_write_with(config: &Path, extra: &[&str]) -> String {
    let mut args = vec!["lower", path_str(config), "--write", "-q"];
    args.extend_from_slice(extra);
    let out = run(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(config.with_file_name("manifest.yaml")).unwrap()
}

#[test]
fn every_shape_is_contained_and_verified() {
    let (_dir, config) = ScratchRobot::folder("shapes").build();
    let text = lower_write(&config);
    let manifest = config.with_file_name("manifest.yaml");
    let out = run(&["verify", path_str(&manifest), "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{report}");
    let m = &report["manifests"][0];
    assert_eq!(m["ok"], true);
    assert_eq!(m["links"], 6);
    // The achieved margin is the headroom, rounded down to 0.1 mm.
    assert!(m["min_margin_m"].as_f64().unwrap() >= 0.001 - 1e-12, "{m}");
    // The long cylinder becomes capsules around its axis; the cube a box.
    assert!(
        text.contains("- name: cylinder\n    primitives:\n      - {kind: capsule"),
        "{text}"
    );
    assert!(
        text.contains("- name: base\n    primitives:\n      - {kind: box"),
        "{text}"
    );
}

#[test]
fn every_written_primitive_number_has_at_most_four_decimals() {
    let (_dir, config) = ScratchRobot::folder("shapes").build();
    let text = lower_write(&config);
    let mut checked = 0;
    for line in text.lines().filter(|l| l.contains("{kind: ")) {
        for token in line.split(['[', ']', ',', ' ', '}']) {
            if let Ok(v) = token.parse::<f64>() {
                let decimals = token.split('.').nth(1).map_or(0, |d| d.len());
                assert!(decimals <= 4 || token.contains('e'), "{token} in {line}");
                assert!(
                    ((v * 1e4).round() / 1e4 - v).abs() < 1e-12,
                    "{token} in {line}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 30, "only {checked} numbers");
}

#[test]
fn check_flags_a_stale_manifest_and_a_second_write_changes_nothing() {
    let (_dir, config) = ScratchRobot::folder("shapes").build();
    let first = lower_write(&config);
    let second = lower_write(&config);
    assert_eq!(first, second, "a second lower --write changed the manifest");
    let c = path_str(&config);
    assert_eq!(run(&["lower", c, "--check", "-q"]).status.code(), Some(0));
    let manifest = config.with_file_name("manifest.yaml");
    std::fs::write(
        &manifest,
        first.replacen("headroom_m: 0.001", "headroom_m: 0.002", 1),
    )
    .unwrap();
    assert_eq!(run(&["lower", c, "--check", "-q"]).status.code(), Some(1));
}

#[test]
fn loosening_is_refused_with_exit_3_and_the_manifest_kept() {
    let (_dir, config) = ScratchRobot::folder("shapes").build();
    let text = lower_write(&config);
    let manifest = config.with_file_name("manifest.yaml");
    // Pretend the existing cube fit stood 0.5 mm closer to its hull than the new one will.
    let at = text.find("- name: base").unwrap();
    let key = "mean_protrusion_m: ";
    let start = at + text[at..].find(key).unwrap() + key.len();
    let end = start + text[start..].find('\n').unwrap();
    let old: f64 = text[start..end].parse().unwrap();
    let tighter = format!("{}{:.4}{}", &text[..start], old - 0.0005, &text[end..]);
    std::fs::write(&manifest, &tighter).unwrap();
    let out = run(&["lower", path_str(&config), "--write", "-q"]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("base"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(&manifest).unwrap(),
        tighter,
        "a refused write touched the file"
    );
    let out = run(&[
        "lower",
        path_str(&config),
        "--write",
        "--allow-loosen",
        "-q",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&manifest).unwrap(), text);
}

/// Lowers the scratch robot (cube and cylinder tight), regenerates its ACM, and returns
/// the manifest text; `verify` must pass on it before each tampering test.
fn proven_scratch() -> (tempfile::TempDir, PathBuf, String) {
    let (dir, config) = ScratchRobot::folder("shapes").build();
    let c = path_str(&config);
    let out = run(&[
        "lower",
        c,
        "--tight-link",
        "base",
        "--tight-link",
        "cylinder",
        "--write",
        "-q",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run(&["acm", "regenerate", c, "--write", "-q", "--samples", "200"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let manifest = config.with_file_name("manifest.yaml");
    assert_eq!(
        run(&["verify", path_str(&manifest), "-q"]).status.code(),
        Some(0)
    );
    let text = std::fs::read_to_string(&manifest).unwrap();
    (dir, manifest, text)
}

fn verify_after(manifest: &Path, text: &str) -> (Option<i32>, String) {
    std::fs::write(manifest, text).unwrap();
    let out = run(&["verify", path_str(manifest), "-q"]);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr),
    )
}

#[test]
fn verify_catches_each_kind_of_tampering() {
    let (dir, manifest, text) = proven_scratch();
    // A shrunken capsule radius (the L shape's first capsule).
    let (code, out) = verify_after(
        &manifest,
        &tamper(&text, "l_shape", "radius: ", |r| r - 0.002),
    );
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("containment") && out.contains("l_shape"),
        "{out}"
    );
    // A moved box (the plate).
    let (code, out) = verify_after(
        &manifest,
        &tamper(&text, "plate", "center: [", |x| x + 0.01),
    );
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("plate"), "{out}");
    // A hull vertex pulled in (the cube's first hull vertex, towards the centre).
    let (code, out) = verify_after(
        &manifest,
        &tamper(&text, "base", "hull:\n          - [", |x| x * 0.5),
    );
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("base"), "{out}");
    // An ACM row whose proof does not hold: `always` claimed for a pair proven `never`.
    let never_row = text
        .lines()
        .find(|l| l.contains("reason: never"))
        .expect("a never row")
        .to_string();
    let (code, out) = verify_after(
        &manifest,
        &text.replacen(
            &never_row,
            &never_row.replace("reason: never", "reason: always"),
            1,
        ),
    );
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("acm"), "{out}");
    // A field the loader does not know: unreadable input.
    let (code, out) = verify_after(
        &manifest,
        &text.replacen("margin_m: 0.0", "margin_m: 0.0\ncolour: red", 1),
    );
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("colour"), "{out}");
    // A changed source mesh: stale.
    std::fs::write(&manifest, &text).unwrap();
    let stl = dir.path().join("plate.stl");
    let mesh = std::fs::read_to_string(&stl).unwrap();
    std::fs::write(&stl, mesh.replacen("0.1 0.1 0", "0.1 0.1 0.0001", 1)).unwrap();
    let (code, out) = verify_after(&manifest, &text);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("stale") && out.contains("plate.stl"), "{out}");
}

/// A tight box moved 5 mm off its hull is a broken proof, not unreadable input: exit 1
/// naming the link and the hull vertex that pokes out (it once exited 2, as for text that
/// is not a manifest).
#[test]
fn verify_reports_a_hull_poking_out_of_its_moved_box_as_a_violation() {
    let (_dir, manifest, text) = proven_scratch();
    let (code, out) = verify_after(
        &manifest,
        &tamper(&text, "base", "center: [", |x| x + 0.005),
    );
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("containment") && out.contains("base") && out.contains("hull["),
        "{out}"
    );
    assert!(out.contains("outside"), "{out}");
}

#[test]
fn bad_refinement_flags_are_one_line_and_exit_2() {
    let (_dir, config) = ScratchRobot::folder("shapes").build();
    let c = path_str(&config);
    for args in [
        &["--tight-link", "cube=0"][..],
        &["--tight-link", "cube=9"],
        &["--tight-link", "cube=many"],
        &["--tight-link", "no_such_link=auto"],
        &["--budget-us", "0"],
        &["--budget-us", "-3"],
        &["--budget-us", "NaN"],
    ] {
        let mut all = vec!["lower", c];
        all.extend_from_slice(args);
        let out = run(&all);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(!config.with_file_name("manifest.yaml").exists());
    }
}

#[test]
fn a_budget_in_the_config_is_lowers_own_unless_the_command_line_gives_one() {
    let (_dir, config) = ScratchRobot::folder("shapes").build();
    let c = path_str(&config);
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("{text}budget_us: 7.5\n")).unwrap();
    let summary = |extra: &[&str]| {
        let mut all = vec!["lower", c];
        all.extend_from_slice(extra);
        let out = run(&all);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    assert!(summary(&[]).contains("budget 7.5 µs"), "{}", summary(&[]));
    let given = summary(&["--budget-us", "9"]);
    assert!(given.contains("budget 9 µs"), "{given}");
    // A budget that is no budget: refused at its line, nothing written.
    std::fs::write(&config, format!("{text}budget_us: -1\n")).unwrap();
    let out = run(&["lower", c, "--write"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let line = text.lines().count() + 1;
    assert!(err.contains(&format!("robot.yaml:{line}")), "{err}");
    assert!(!config.with_file_name("manifest.yaml").exists());
}

/// The committed UR5 was lowered by the default command: every link says why it
/// has its geometry, the refined ones name the start they came from (all-tight) or the pair
/// and what it refused (free poses, or the rest pose), and those links are tight.
#[test]
fn committed_ur5_records_its_refinement_reasons() {
    let text = std::fs::read_to_string(common::repo().join("robots/ur5/manifest.yaml")).unwrap();
    let m = collide::manifest::parse_manifest(Path::new("ur5"), &text).unwrap();
    let mut refined = 0;
    for l in &m.links {
        assert!(!l.fit.reason.is_empty(), "{}: no reason", l.name);
        if l.fit.reason.starts_with("pair ") || l.fit.reason.starts_with("start: ") {
            refined += 1;
            assert!(
                l.fit.reason.contains("of the free poses")
                    || l.fit.reason.contains("meshes apart")
                    || l.fit.reason.starts_with("start: all-tight"),
                "{}: {}",
                l.name,
                l.fit.reason
            );
            assert_eq!(l.fit.choice.as_str(), "tight_box", "{}", l.name);
        }
    }
    assert!(refined >= 3, "{refined} refined links");
    // Concave links were decomposed.
    assert!(m.links.iter().any(|l| l.primitives.len() > 1));
}

/// The mirror rule on a hand-made robot (tests/robots/mirror_arms): only the left arm trips,
/// at rest, against a post in its inner corner; the refinement cuts it, and the right arm,
/// its mirror image with nothing near it, gets the same geometry and says why.
#[test]
fn a_refined_link_and_its_mirror_image_get_the_same_geometry() {
    let (_dir, config) = ScratchRobot::folder("mirror_arms").build();
    // Its post never meets the arm's real mesh: proven, the pair would be left to the ACM.
    let text = lower_write_with(&config, &["--no-mesh-proofs"]);
    let m = collide::manifest::parse_manifest(Path::new("mirror_arms"), &text).unwrap();
    let link = |n: &str| m.links.iter().find(|l| l.name == n).unwrap();
    let (left, right) = (link("left_arm"), link("right_arm"));
    assert!(
        left.fit
            .reason
            .starts_with("pair left_arm/post: trips at rest (")
            && left.fit.reason.ends_with("mm), meshes apart"),
        "{}",
        left.fit.reason
    );
    assert_eq!(
        right.fit.reason,
        format!("mirror of left_arm; {}", left.fit.reason)
    );
    assert_eq!(left.fit.choice, right.fit.choice);
    assert_eq!(left.fit.choice.as_str(), "tight_box");
    assert_eq!(left.primitives.len(), right.primitives.len());
    assert!(left.primitives.len() >= 2, "the L is cut");
    let out = run(&["verify", path_str(&config.with_file_name("manifest.yaml"))]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// The contact-aware cuts learn from the poses away from rest (tests/robots/groove): a ball
/// slides along a slab's shallow groove, 0.3 m beyond the slab at rest. The groove is 0.36 % of
/// the slab's hull, so the volume rule leaves the slab one hull, which the ball sits in on its
/// way along: where the ball reaches the slab, the slab is cut so the ball's vertices stay
/// out of its pieces; where its slide stops short of the slab, nothing is to be kept out.
#[test]
fn the_decomposition_keeps_out_a_neighbour_that_comes_near_only_away_from_rest() {
    let pieces = |lower_limit: &str| -> usize {
        let (dir, config) = ScratchRobot::folder("groove").build();
        let urdf = dir.path().join("groove.urdf");
        let text = std::fs::read_to_string(&urdf).unwrap();
        std::fs::write(&urdf, text.replace("lower=\"-0.7\"", lower_limit)).unwrap();
        common::collide_ok(&[
            "lower",
            path_str(&config),
            "--tight-link",
            "slab=8",
            "--no-refine",
            "--write",
            "-q",
        ]);
        let text = std::fs::read_to_string(config.with_file_name("manifest.yaml")).unwrap();
        let m = collide::manifest::parse_manifest(Path::new("groove"), &text).unwrap();
        let verified = run(&["verify", path_str(&config.with_file_name("manifest.yaml"))]);
        assert!(
            verified.status.success(),
            "{}",
            String::from_utf8_lossy(&verified.stdout)
        );
        m.links
            .iter()
            .find(|l| l.name == "slab")
            .unwrap()
            .primitives
            .len()
    };
    // The slide reaches across the whole slab: cut.
    assert!(pieces("lower=\"-0.7\"") >= 2);
    // The ball stops 0.15 m short of the slab's edge: one hull.
    assert_eq!(pieces("lower=\"-0.15\""), 1);
}

/// The refinement's step lines (`  step N: LINKS; ... (WHY)`), from a `lower` run's output.
fn steps(stdout: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter(|l| l.starts_with("  step "))
        .map(str::to_string)
        .collect()
}

/// A pair that trips at rest while its meshes are apart refuses every free pose: it is settled
/// before a pair that trips on more free poses, with the cheapest change that clears it
/// (tests/robots/rest_first: an L-shaped arm whose hull holds a post at rest needs two
/// pieces, no more; a slab whose hull holds a sliding ball away from rest comes after).
#[test]
fn a_rest_trip_is_settled_first_with_the_cheapest_change_that_clears_it() {
    let (_dir, config) = ScratchRobot::folder("rest_first").build();
    // Its pairs never meet on the real meshes: proven, they would be left to the ACM.
    let out = common::collide_ok(&["lower", path_str(&config), "--write", "--no-mesh-proofs"]);
    let steps = steps(&out.stdout);
    assert!(
        steps[0].contains(": arm (<= 2 pieces);")
            && steps[0].contains("(pair arm/post: trips at rest ("),
        "{steps:#?}"
    );
    assert!(
        steps[1..]
            .iter()
            .any(|s| s.contains("slab (") && s.contains("pair ball/slab: trips on")),
        "{steps:#?}"
    );
    let text = std::fs::read_to_string(config.with_file_name("manifest.yaml")).unwrap();
    let m = collide::manifest::parse_manifest(Path::new("rest_first"), &text).unwrap();
    let arm = m.links.iter().find(|l| l.name == "arm").unwrap();
    assert_eq!(arm.primitives.len(), 2, "the cheapest clearing change");
    assert!(m.rest_pose.clear);
    let verified = run(&["verify", path_str(&config.with_file_name("manifest.yaml"))]);
    assert!(verified.status.success());
}

/// When the budget cannot buy the change that clears a rest trip, the summary says that the
/// rest trip is what stopped the refinement (every pose reached from rest is refused), and
/// prices the change in the still-tripping table (tests/robots/rest_first at a budget nothing
/// fits in).
#[test]
fn a_rest_trip_the_budget_cannot_buy_is_named_as_what_stopped_the_refinement() {
    let (_dir, config) = ScratchRobot::folder("rest_first").build();
    let out = common::collide_ok(&[
        "lower",
        path_str(&config),
        "--no-mesh-proofs",
        "--budget-us",
        "0.01",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    let stopped = text
        .lines()
        .find(|l| l.starts_with("refinement on "))
        .expect("the refinement's line");
    assert!(
        stopped.contains("the rest pose still trips on arm/post")
            && stopped.contains("within the budget of 0.01 µs"),
        "{text}"
    );
    let row = text
        .lines()
        .find(|l| l.starts_with("arm/post "))
        .expect("arm/post in the still-tripping table");
    assert!(
        row.split_whitespace()
            .nth(1)
            .unwrap()
            .parse::<f64>()
            .is_ok(),
        "its depth at rest: {row}"
    );
}

/// Where box + hull on every link is the answer (tests/robots/all_tight: two coaxial cans 5 mm
/// apart, whose capsules overlap at rest; a can is convex, so no decomposition does better),
/// the refinement starts from all-tight and ends with its geometry: no worse than all-tight.
#[test]
fn where_all_tight_is_the_answer_the_refinement_ends_with_it() {
    let (_dir, config) = ScratchRobot::folder("all_tight").build();
    // The cans never meet on the real meshes: proven, the pair would be left to the ACM
    // (tested below in `a_pair_proven_never_on_the_meshes_is_left_to_the_acm`).
    let refined = lower_write_with(&config, &["--no-mesh-proofs"]);
    let (_dir2, config2) = ScratchRobot::folder("all_tight").build();
    common::collide_ok(&[
        "lower",
        path_str(&config2),
        "--tight-link",
        "all",
        "--no-refine",
        "--write",
        "-q",
    ]);
    let all_tight = std::fs::read_to_string(config2.with_file_name("manifest.yaml")).unwrap();
    let parse = |t: &str| collide::manifest::parse_manifest(Path::new("all_tight"), t).unwrap();
    let (r, a) = (parse(&refined), parse(&all_tight));
    assert!(r.rest_pose.clear);
    for (lr, la) in r.links.iter().zip(&a.links) {
        assert_eq!(lr.name, la.name);
        assert_eq!(lr.primitives, la.primitives, "{}", lr.name);
        assert!(
            lr.fit.reason.starts_with("start: all-tight"),
            "{}",
            lr.fit.reason
        );
    }
}

/// A pair whose real meshes never meet (tests/robots/all_tight: two coaxial cans 5 mm apart)
/// costs no refinement: `lower` leaves it to `acm regenerate`, which exempts it with the proof
/// on the meshes, and the rest pose is clear there.
#[test]
fn a_pair_proven_never_on_the_meshes_is_left_to_the_acm() {
    let (_dir, config) = ScratchRobot::folder("all_tight").build();
    let out = common::collide_ok(&["lower", path_str(&config), "--write"]);
    assert!(
        steps(&out.stdout).is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    common::collide_ok(&["acm", "regenerate", path_str(&config), "--write", "-q"]);
    let text = std::fs::read_to_string(config.with_file_name("manifest.yaml")).unwrap();
    let m = collide::manifest::parse_manifest(Path::new("all_tight"), &text).unwrap();
    assert!(
        m.acm
            .iter()
            .any(|r| r.reason == "never" && r.proof.starts_with("meshes never within the margin")),
        "{text}"
    );
    assert!(m.rest_pose.clear);
    common::collide_ok(&["verify", path_str(&config.with_file_name("manifest.yaml"))]);
}

/// Links that mirror each other get the same kind and piece count even when only one side
/// has a neighbour to keep out (tests/robots/mirror_grooves: a ball slides along the left
/// slab's shallow groove; the right slab, its mirror image, has nothing near it). Each side's
/// decomposition keeps out the other side's points, mirrored into its own frame.
#[test]
fn mirrored_links_get_equal_kinds_and_piece_counts() {
    let (_dir, config) = ScratchRobot::folder("mirror_grooves").build();
    // The ball never meets the groove's real mesh: proven, the pair would be left to the ACM.
    let text = lower_write_with(&config, &["--no-mesh-proofs"]);
    let m = collide::manifest::parse_manifest(Path::new("mirror_grooves"), &text).unwrap();
    let link = |n: &str| m.links.iter().find(|l| l.name == n).unwrap();
    let (left, right) = (link("left_slab"), link("right_slab"));
    assert_eq!(left.fit.choice, right.fit.choice);
    assert!(left.primitives.len() >= 2, "the left slab is cut");
    assert_eq!(left.primitives.len(), right.primitives.len());
}

/// A dry run on a robot with no manifest yet prints the per-link table and the summary and
/// says the manifest does not exist yet, not the whole manifest as a diff against an
/// "(existing)" file (issue 34: 2,264 lines for a 6-joint arm).
#[test]
fn a_dry_run_without_a_manifest_says_so_instead_of_diffing_the_whole_file() {
    let (dir, config) = ScratchRobot::folder("planar_arm").build();
    let manifest = config.with_file_name("manifest.yaml");
    assert!(!manifest.exists());
    let out = run(&["lower", path_str(&config)]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stdout.contains("(existing)"), "{stdout}");
    assert!(!stdout.contains("+++"), "{stdout}");
    assert!(
        stdout.contains("arm") && stdout.contains("base"),
        "the per-link table: {stdout}"
    );
    assert!(
        stderr.contains("does not exist yet") && stderr.contains("collide lower --write"),
        "{stderr}"
    );
    assert!(!manifest.exists(), "a dry run writes nothing");
    let written = lower_write(&config);
    assert!(
        stdout.lines().count() < written.lines().count(),
        "bounded: {} lines printed for a {}-line manifest",
        stdout.lines().count(),
        written.lines().count()
    );
    drop(dir);
}
