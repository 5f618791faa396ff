//! Shared helpers for the integration tests, included by every test as `mod common;`
//! (not every test uses every item).
#![allow(dead_code)]

pub mod kernel_models;
pub mod parry_bridge;
pub mod scratch;

// Not every test builds a scratch robot.
#[allow(unused_imports)]
pub use scratch::ScratchRobot;

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

/// Manifest text with the first number after `key` in `link`'s entry (from its
/// `- name: LINK` line on: its first primitive) replaced by `f` of it.
pub fn tamper(text: &str, link: &str, key: &str, f: impl Fn(f64) -> f64) -> String {
    let at = text
        .find(&format!("- name: {link}\n"))
        .unwrap_or_else(|| panic!("no link {link}"));
    let start = at + text[at..].find(key).unwrap() + key.len();
    let end = start + text[start..].find([',', ']', '}']).unwrap();
    let v: f64 = text[start..end].trim().parse().unwrap();
    format!("{}{}{}", &text[..start], f(v), &text[end..])
}
