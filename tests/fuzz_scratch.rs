//! The fuzz targets' scratch directory (fuzz/src/lib.rs, included here as it is) is one
//! fixed folder under the temporary directory: a run leaves no `collide-fuzz-PID` folder
//! behind (libFuzzer exits without destructors, so a per-process folder stayed each time).
//! One test in its own binary: it points TMPDIR at a fresh folder for this process.

#[path = "../fuzz/src/lib.rs"]
#[allow(dead_code)]
mod fuzz_common;

#[test]
fn fuzz_runs_share_one_scratch_folder_and_leave_no_other() {
    let tmp = tempfile::tempdir().unwrap();
    // SAFETY: the only test of this binary, before any thread reads the environment.
    unsafe { std::env::set_var("TMPDIR", tmp.path()) };
    let dir = fuzz_common::scratch();
    assert_eq!(dir, tmp.path().join("collide-fuzz-scratch"));
    assert!(dir.join("m.stl").is_file() && dir.join("pkg/m.stl").is_file());
    let mut left: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["collide-fuzz-scratch"]);
    // Every file is written under a temporary name and renamed: none is left over.
    let files: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(files.iter().all(|f| !f.ends_with(".tmp")), "{files:?}");
}
