//! Insta snapshots of the human tables of `lower`, `acm regenerate`, `verify` and `sweep` on
//! the hand-made robots (snapshots/ at the top of the repository, what CI compares).

mod common;

use common::ScratchRobot;

/// Stdout of a successful run, with the scratch directory's path replaced.
fn table(args: &[&str], dir: &std::path::Path) -> String {
    let out = common::collide().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .replace(dir.to_str().unwrap(), "<scratch>")
}

fn snapshot(name: &str, text: &str) {
    insta::with_settings!({snapshot_path => common::repo().join("snapshots"), prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!(name, text);
    });
}

#[test]
fn lower_acm_and_verify_tables() {
    let (dir, config) = ScratchRobot::folder("shapes").build();
    let c = config.to_str().unwrap();
    let lowered = table(
        &["lower", c, "--tight-link", "base", "--write", "-q"],
        dir.path(),
    );
    // The measured timing line changes from run to run (the estimate above it does not).
    let lowered: String = lowered
        .lines()
        .filter(|l| !l.starts_with("measured on this machine: "))
        .map(|l| format!("{l}\n"))
        .collect();
    snapshot("lower_shapes", &lowered);

    let (dir3, config3) = ScratchRobot::new("acm_three.urdf").build();
    let c3 = config3.to_str().unwrap();
    table(&["lower", c3, "--write", "--no-refine", "-q"], dir3.path());
    let acm = table(
        &["acm", "regenerate", c3, "--write", "-q", "--samples", "500"],
        dir3.path(),
    );
    // The summary's timing line changes from run to run.
    let acm: String = acm
        .lines()
        .filter(|l| !l.contains(" pairs decided, "))
        .map(|l| format!("{l}\n"))
        .collect();
    snapshot("acm_three", &acm);

    let manifest = config3.with_file_name("manifest.yaml");
    let verified = table(&["verify", manifest.to_str().unwrap(), "-q"], dir3.path());
    snapshot("verify_three", &verified);
}

/// `collide sweep` on the planar arm: the free-space headline first, then the verdicts
/// (the timing table after them changes from run to run and is cut).
#[test]
fn sweep_free_space_table() {
    let (dir, config) = common::ScratchRobot::folder("planar_arm").build();
    table(
        &[
            "lower",
            config.to_str().unwrap(),
            "--write",
            "--no-refine",
            "-q",
        ],
        dir.path(),
    );
    let manifest = config.with_file_name("manifest.yaml");
    let swept = table(
        &[
            "sweep",
            manifest.to_str().unwrap(),
            "--poses",
            "500",
            "--rays",
            "40",
            "--compare",
            "single-capsule",
            "all-tight",
        ],
        dir.path(),
    );
    let cut = swept
        .find("\nkernel time per configuration")
        .expect("a timing table");
    snapshot("sweep_planar_arm", &swept[..cut + 1]);
}
