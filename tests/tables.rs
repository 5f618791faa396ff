//! Insta snapshots of the human tables of `lower`, `acm regenerate` and `verify` on the
//! hand-made robots (snapshots/ at the top of the repository, what CI compares).

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
