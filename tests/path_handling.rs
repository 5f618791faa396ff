//! Paths that are not regular files: symlink loops (made here, never
//! committed) and directories, each refused with one line naming the path.

mod common;

use std::path::Path;
use std::process::Output;

fn assert_refused(out: &Output, want: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error")).collect();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(errors[0].contains(want), "wanted `{want}` in {stderr}");
}

fn one_link_urdf(dir: &Path, mesh: &str) -> std::path::PathBuf {
    let path = dir.join("robot.urdf");
    std::fs::write(
        &path,
        format!(
            "<robot name=\"r\"><link name=\"a\"><collision><geometry>\
             <mesh filename=\"{mesh}\"/></geometry></collision></link></robot>"
        ),
    )
    .unwrap();
    path
}

#[cfg(unix)]
#[test]
fn a_symlink_loop_as_a_mesh_is_named_as_one() {
    let dir = tempfile::tempdir().unwrap();
    // loop_a.stl -> loop_b.stl -> loop_a.stl
    std::os::unix::fs::symlink("loop_b.stl", dir.path().join("loop_a.stl")).unwrap();
    std::os::unix::fs::symlink("loop_a.stl", dir.path().join("loop_b.stl")).unwrap();
    let urdf = one_link_urdf(dir.path(), "loop_a.stl");
    let manifest = dir.path().join("m.yaml");
    let out_flag = ["--out", manifest.to_str().unwrap()];
    for args in [&["inspect"][..], &["lower", out_flag[0], out_flag[1]][..]] {
        let out = common::collide().args(args).arg(&urdf).output().unwrap();
        assert_refused(&out, "loop_a.stl, a symlink loop");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("robot.urdf:1:"), "{stderr}");
    }
}

#[cfg(unix)]
#[test]
fn a_symlink_loop_as_the_robot_or_an_include_is_named_as_one() {
    let dir = tempfile::tempdir().unwrap();
    let robot = dir.path().join("self.urdf");
    std::os::unix::fs::symlink("self.urdf", &robot).unwrap();
    let out = common::collide()
        .arg("inspect")
        .arg(&robot)
        .output()
        .unwrap();
    assert_refused(&out, "self.urdf, a symlink loop");

    std::os::unix::fs::symlink("inc.xml", dir.path().join("inc.xml")).unwrap();
    let main = dir.path().join("main.xml");
    std::fs::write(&main, "<mujoco><include file=\"inc.xml\"/></mujoco>").unwrap();
    let out = common::collide()
        .arg("inspect")
        .arg(&main)
        .output()
        .unwrap();
    assert_refused(&out, "include `inc.xml` resolves to");
    assert!(String::from_utf8_lossy(&out.stderr).contains("a symlink loop"));
}

#[test]
fn a_directory_where_a_file_is_expected() {
    let dir = tempfile::tempdir().unwrap();
    // The robot argument of a command that reads one robot.
    let out = common::collide()
        .arg("fk")
        .arg(dir.path())
        .output()
        .unwrap();
    assert_refused(&out, "a directory, not a file");
    // A mesh (also tests/bad/directory_mesh.urdf, relative to the URDF).
    std::fs::create_dir(dir.path().join("mesh.stl")).unwrap();
    let urdf = one_link_urdf(dir.path(), "mesh.stl");
    let out = common::collide()
        .arg("inspect")
        .arg(&urdf)
        .output()
        .unwrap();
    assert_refused(&out, "mesh.stl, a directory, not a file");
    // The manifest to write.
    let box_urdf = common::repo().join("tests/robots/chain.urdf");
    let out_dir = dir.path().join("out.yaml");
    std::fs::create_dir(&out_dir).unwrap();
    let out = common::collide()
        .args(["lower", "--write", "--out"])
        .arg(&out_dir)
        .arg(&box_urdf)
        .output()
        .unwrap();
    assert_refused(&out, "is a directory");
    assert!(out_dir.is_dir());
}
