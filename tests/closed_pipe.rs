//! Every command that writes files writes them before it prints, and a reader that goes
//! away early (`collide ... | head -1`) ends the output quietly: no internal error, no
//! abort, no lost or partial file. (`acm regenerate --write | head` once lost the write
//! and exited 2 with "failed printing to stdout: Broken pipe".)

mod common;

use std::io::Read;
use std::path::Path;
use std::process::{ExitStatus, Stdio};

/// Runs `collide ARGS` with standard output (and standard error too when `merged`) into a
/// pipe whose reader takes `lines` lines and then closes it. Returns the exit status and
/// what went to a separate standard error.
fn into_closing_pipe(args: &[&str], merged: bool, lines: usize) -> (ExitStatus, String) {
    let (mut reader, writer) = std::io::pipe().unwrap();
    let mut cmd = common::collide();
    cmd.args(args).stdout(writer.try_clone().unwrap());
    if merged {
        cmd.stderr(writer);
    } else {
        drop(writer);
        cmd.stderr(Stdio::piped());
    }
    let child = cmd.spawn().unwrap();
    drop(cmd);
    let mut seen = 0;
    let mut byte = [0u8; 1];
    while seen < lines && reader.read(&mut byte).unwrap() == 1 {
        seen += usize::from(byte[0] == b'\n');
    }
    drop(reader);
    let out = child.wait_with_output().unwrap();
    (
        out.status,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn check_quiet_end(what: &str, status: ExitStatus, stderr: &str) {
    assert_eq!(status.code(), Some(0), "{what}: {status:?} {stderr}");
    assert!(
        !stderr.contains("internal error") && !stderr.contains("panicked"),
        "{what}: {stderr}"
    );
}

fn verifies(manifest: &Path) {
    let out = common::collide()
        .arg("verify")
        .arg(manifest)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}: {}{}",
        manifest.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn every_writing_command_writes_and_ends_quietly_when_its_reader_goes_away() {
    for merged in [false, true] {
        for lines in [0, 1] {
            let what = |cmd: &str| format!("{cmd} (stderr merged: {merged}, {lines} line(s) read)");
            let (dir, config) = common::ScratchRobot::folder("two_boxes").build();
            let c = config.to_str().unwrap();
            let manifest = dir.path().join("manifest.yaml");

            let (status, stderr) = into_closing_pipe(&["lower", c, "--write"], merged, lines);
            check_quiet_end(&what("lower --write"), status, &stderr);
            assert!(manifest.is_file(), "{}: no manifest", what("lower"));

            let before = std::fs::read_to_string(&manifest).unwrap();
            let srdf = dir.path().join("out.srdf");
            let (status, stderr) = into_closing_pipe(
                &[
                    "acm",
                    "regenerate",
                    c,
                    "--write",
                    "--samples",
                    "100",
                    "--srdf-out",
                    srdf.to_str().unwrap(),
                ],
                merged,
                lines,
            );
            check_quiet_end(&what("acm regenerate --write"), status, &stderr);
            let after = std::fs::read_to_string(&manifest).unwrap();
            assert_ne!(before, after, "{}: the ACM was not written", what("acm"));
            assert!(std::fs::read_to_string(&srdf).unwrap().contains("</robot>"));
            verifies(&manifest);

            let out = dir.path().join("report");
            let md = dir.path().join("fleet.md");
            let (status, stderr) = into_closing_pipe(
                &[
                    "report",
                    manifest.to_str().unwrap(),
                    "--out",
                    out.to_str().unwrap(),
                    "--fleet-md",
                    md.to_str().unwrap(),
                    "--poses",
                    "50",
                ],
                merged,
                lines,
            );
            check_quiet_end(&what("report"), status, &stderr);
            assert!(
                std::fs::read_to_string(out.join("index.html"))
                    .unwrap()
                    .contains("</html>")
            );
            assert!(md.is_file());
        }
    }
}
