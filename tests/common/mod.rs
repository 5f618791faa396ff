//! Shared helpers for the integration tests, included by every test as `mod common;`
//! (not every test uses every item).
#![allow(dead_code)]

pub mod kernel_models;
pub mod parry_bridge;

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
    let files: Vec<PathBuf> = std::fs::read_dir(repo().join("tests/robots").join(name))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let files: Vec<&str> = files.iter().map(|p| p.to_str().unwrap()).collect();
    scratch_files(&files)
}

/// A scratch directory holding copies of `files` (paths relative to the repository, or
/// absolute), each under its own file name.
pub fn scratch_files(files: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for f in files {
        let p = repo().join(f);
        std::fs::copy(&p, dir.path().join(p.file_name().unwrap())).unwrap();
    }
    dir
}
