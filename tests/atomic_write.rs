//! `write_atomic` on a real file system; injected failures at every step are
//! unit tests in src/io/atomic.rs.

use collide::io::atomic::write_atomic;
use std::fs;
use std::path::Path;

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn creates_then_replaces() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.yaml");
    write_atomic(&path, b"one\n").unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"one\n");
    write_atomic(&path, b"two\n").unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"two\n");
    assert_eq!(listing(dir.path()), ["m.yaml"]);
}

#[cfg(unix)]
#[test]
fn keeps_permissions_of_the_old_file_and_gives_new_files_0644() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let fresh = dir.path().join("fresh.yaml");
    write_atomic(&fresh, b"x").unwrap();
    assert_eq!(
        fs::metadata(&fresh).unwrap().permissions().mode() & 0o777,
        0o644
    );
    let old = dir.path().join("old.yaml");
    fs::write(&old, b"x").unwrap();
    fs::set_permissions(&old, fs::Permissions::from_mode(0o640)).unwrap();
    write_atomic(&old, b"y").unwrap();
    assert_eq!(
        fs::metadata(&old).unwrap().permissions().mode() & 0o777,
        0o640
    );
}

#[cfg(unix)]
#[test]
fn writes_through_a_symbolic_link() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.yaml");
    let link = dir.path().join("link.yaml");
    fs::write(&real, b"old").unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();
    write_atomic(&link, b"new").unwrap();
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read(&real).unwrap(), b"new");
}

#[test]
fn a_directory_in_the_way_is_an_error_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.yaml");
    fs::create_dir(&path).unwrap();
    let e = write_atomic(&path, b"x").unwrap_err();
    assert!(e.message.contains("is a directory"), "{}", e.message);
    assert_eq!(listing(dir.path()), ["m.yaml"]);
}

#[test]
fn a_missing_directory_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("no/such/dir/m.yaml");
    let e = write_atomic(&path, b"x").unwrap_err();
    assert!(
        e.message.starts_with(&path.display().to_string()),
        "{}",
        e.message
    );
    assert!(e.message.contains("cannot write"), "{}", e.message);
}
