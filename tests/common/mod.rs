//! Shared helpers for the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `.robots/site` install; tests that need real robots fail clearly without it.
pub fn site() -> PathBuf {
    let p = repo().join(".robots/site");
    assert!(
        p.is_dir(),
        "real robots are not installed: run `make robots` first ({} missing)",
        p.display()
    );
    p
}

pub fn erd() -> PathBuf {
    site().join("cmeel.prefix/share/example-robot-data/robots")
}

/// The `collide` binary built for this test run.
pub fn collide() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_collide"))
}

/// Runs `collide ARGS` and returns its output, failing the test (with its stdout and stderr)
/// unless it exits 0.
pub fn collide_ok(args: &[&str]) -> std::process::Output {
    let out = collide().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "collide {}: {}{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A scratch directory holding a copy of every file of `tests/robots/NAME/`, for tests
/// that write manifests or edit the robot.
pub fn scratch_robot(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(repo().join("tests/robots").join(name)).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, dir.path().join(p.file_name().unwrap())).unwrap();
    }
    dir
}
