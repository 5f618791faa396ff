//! Nothing is ever half-written: `collide lower --write` killed (SIGKILL) at
//! random moments leaves the existing manifest byte-identical or wholly new,
//! never partial; a killed run's temporary file is the only thing it may
//! leave, and the next run removes it. (Injected write failures at every step
//! of the atomic write are unit tests in src/io/atomic.rs.) The runs skip the
//! refinement (`--no-refine`): a second each instead of fifteen, the same write.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// `lower`'s arguments after the robot, before the manifest's path.
const LOWER_ARGS: [&str; 5] = [
    "--write",
    "--allow-loosen",
    "--no-refine",
    "--quiet",
    "--out",
];

fn lower(out: &Path) -> Command {
    let mut cmd = common::collide();
    cmd.arg("lower")
        .arg(common::repo().join("robots/so100/robot.yaml"))
        .args(LOWER_ARGS)
        .arg(out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    cmd
}

#[test]
fn a_killed_lower_leaves_the_old_manifest_or_the_new_one_never_a_mix() {
    common::site();
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("manifest.yaml");
    // An existing manifest that a run will replace: the committed one, marked.
    let committed = std::fs::read(common::repo().join("robots/so100/manifest.yaml")).unwrap();
    let old = [b"# an older copy\n".as_slice(), &committed].concat();

    // One whole run: how long it takes, and what it writes.
    std::fs::write(&manifest, &old).unwrap();
    let start = Instant::now();
    assert!(lower(&manifest).status().unwrap().success());
    let whole = start.elapsed();
    let new = std::fs::read(&manifest).unwrap();
    assert_ne!(new, old);

    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as u64
        | 1;
    // xorshift64: uniform in [lo, hi).
    let mut state = seed;
    let mut range = |lo: f64, hi: f64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        lo + (hi - lo) * ((state >> 11) as f64 / (1u64 << 53) as f64)
    };
    let mut outcomes = Vec::new();
    for _ in 0..6 {
        std::fs::write(&manifest, &old).unwrap();
        // Mostly late in the run, where the write happens.
        let delay = whole.mul_f64(range(0.3, 1.05));
        let mut child = lower(&manifest).spawn().unwrap();
        std::thread::sleep(delay);
        child.kill().ok(); // SIGKILL; an error means it had already exited
        let status = child.wait().unwrap();
        let now = std::fs::read(&manifest).unwrap();
        let what = format!("seed {seed}, killed after {delay:?} ({status})");
        assert!(
            now == old || now == new,
            "{what}: the manifest is neither the old nor the new one ({} bytes)",
            now.len()
        );
        let names = listing(dir.path());
        outcomes.push(match (now == old, names.len() > 1) {
            (true, false) => "old",
            (true, true) => "old + temporary",
            (false, false) => "new",
            (false, true) => "new + temporary",
        });
        for name in names {
            assert!(
                name == "manifest.yaml"
                    || (name.starts_with(".manifest.yaml.") && name.ends_with(".tmp")),
                "{what}: left {name}"
            );
        }
    }
    eprintln!("seed {seed}: a run takes {whole:?}; after each kill: {outcomes:?}");

    // A run to the end removes what killed runs left, and writes the new one.
    std::fs::write(&manifest, &old).unwrap();
    assert!(lower(&manifest).status().unwrap().success());
    assert_eq!(std::fs::read(&manifest).unwrap(), new);
    assert_eq!(listing(dir.path()), ["manifest.yaml"]);
}

#[test]
fn a_temporary_file_left_by_a_killed_writer_is_removed_by_the_next_write() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("manifest.yaml");
    std::fs::write(&manifest, "old\n").unwrap();
    // A writer that was killed: its process is gone, its temporary file not.
    let mut child = Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    let stale = dir.path().join(format!(".manifest.yaml.{pid}.XyZ123.tmp"));
    std::fs::write(&stale, "half a manif").unwrap();
    std::thread::sleep(Duration::from_millis(10));
    collide::io::atomic::write_atomic(&manifest, b"new\n").unwrap();
    assert_eq!(listing(dir.path()), ["manifest.yaml"]);
    assert_eq!(std::fs::read_to_string(&manifest).unwrap(), "new\n");
}

/// `collide lower --write` on so100 under a file size limit of 20 kB (the
/// manifest is about 85 kB), so the write of the temporary file fails half way.
#[cfg(unix)]
fn lower_with_size_limit(out: &Path, ignore_signal: bool) -> std::process::Output {
    let trap = if ignore_signal { "trap '' XFSZ; " } else { "" };
    Command::new("sh")
        .arg("-c")
        .arg(format!("{trap}ulimit -f 40; exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_collide"))
        .arg("lower")
        .arg(common::repo().join("robots/so100/robot.yaml"))
        .args(LOWER_ARGS)
        .arg(out)
        .output()
        .unwrap()
}

#[cfg(unix)]
#[test]
fn a_write_that_fails_half_way_leaves_the_old_manifest() {
    use std::os::unix::process::ExitStatusExt;
    common::site();
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("manifest.yaml");
    let old = [
        b"# an older copy\n".as_slice(),
        &std::fs::read(common::repo().join("robots/so100/manifest.yaml")).unwrap(),
    ]
    .concat();

    // SIGXFSZ ignored: write() fails with EFBIG, collide reports it and
    // removes its temporary file.
    std::fs::write(&manifest, &old).unwrap();
    let out = lower_with_size_limit(&manifest, true);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "error: {}: cannot write: writing:",
            manifest.display()
        )),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert_eq!(std::fs::read(&manifest).unwrap(), old);
    assert_eq!(listing(dir.path()), ["manifest.yaml"]);

    // SIGXFSZ at its default: the process dies inside write(), mid-file.
    let out = lower_with_size_limit(&manifest, false);
    assert_eq!(out.status.signal(), Some(25), "{:?}", out.status); // SIGXFSZ
    assert_eq!(std::fs::read(&manifest).unwrap(), old);
    let left = listing(dir.path());
    assert_eq!(left.len(), 2, "{left:?}");
    assert!(left[0].starts_with(".manifest.yaml.") && left[0].ends_with(".tmp"));
    // The next run removes the dead run's temporary file.
    assert!(lower(&manifest).status().unwrap().success());
    assert_eq!(listing(dir.path()), ["manifest.yaml"]);
    assert_ne!(std::fs::read(&manifest).unwrap(), old);
}

/// Runs `collide lower ROBOT --write --out MANIFEST`.
fn lower_write(robot: &Path, manifest: &Path) -> std::process::Output {
    common::collide()
        .arg("lower")
        .arg(robot)
        .args(["--write", "--out"])
        .arg(manifest)
        .output()
        .unwrap()
}

#[test]
fn a_run_that_fails_or_refuses_leaves_the_manifest_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("manifest.yaml");
    let chain = common::repo().join("tests/robots/chain.urdf");
    assert!(lower_write(&chain, &manifest).status.success());
    // Pretend the link `arm` was fitted tighter before: a new fit loosens it.
    let text = std::fs::read_to_string(&manifest).unwrap();
    let tighter = text.replacen(
        "      mean_protrusion_m: 0.0016\n",
        "      mean_protrusion_m: 0.0\n",
        1,
    );
    assert_ne!(
        tighter, text,
        "the chain's manifest changed: update this test"
    );
    std::fs::write(&manifest, &tighter).unwrap();
    let out = lower_write(&chain, &manifest);
    assert_eq!(out.status.code(), Some(3), "loosening is refused");
    assert_eq!(std::fs::read_to_string(&manifest).unwrap(), tighter);

    // Bad input (a truncated mesh): exit 2, manifest untouched.
    let broken = common::repo().join("tests/bad/mesh_truncated_stl.urdf");
    let out = lower_write(&broken, &manifest);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&manifest).unwrap(), tighter);
    // An existing manifest that does not load: exit 2, left as it was.
    std::fs::write(&manifest, "schema_version: 1\nrobot: [\n").unwrap();
    let out = lower_write(&chain, &manifest);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(&manifest).unwrap(),
        "schema_version: 1\nrobot: [\n"
    );
    assert_eq!(listing(dir.path()), ["manifest.yaml"]);
}
