//! Shared by the fuzz targets: a scratch directory that references in fuzzed
//! input can resolve into, and the checks every reader's result must pass.

use collide::error::{Error, ErrorKind};
use collide::io::package::PackageResolver;
use collide::model::Robot;
use collide::model::kinematics::{Configuration, forward};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A directory with a mesh `m.stl`, a package `pkg/` holding `m.stl`, and an
/// MJCF fragment `inc.xml`, so fuzzed references can resolve and the readers
/// get past resolution. The fuzzed file itself is named as if it lay here.
///
/// One fixed directory shared by every run (libFuzzer exits without running destructors,
/// so a per-run directory would be left behind each time); each file is written to a
/// per-process temporary name and renamed, so parallel jobs never see a partial file.
pub fn scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join("collide-fuzz-scratch");
        std::fs::create_dir_all(dir.join("pkg")).unwrap();
        let put = |name: &str, bytes: &[u8]| {
            let tmp = dir.join(format!("{name}.{}.tmp", std::process::id()));
            std::fs::write(&tmp, bytes).unwrap();
            std::fs::rename(&tmp, dir.join(name)).unwrap();
        };
        put("m.stl", b"solid x\nendsolid x\n");
        put("pkg/m.stl", b"solid x\nendsolid x\n");
        put(
            "inc.xml",
            b"<mujoco><worldbody><body name=\"inc\"><geom size=\"0.1\"/></body></worldbody></mujoco>",
        );
        dir
    })
}

/// The resolver: `package://pkg/...` resolves inside the scratch directory.
pub fn resolver() -> PackageResolver {
    PackageResolver {
        roots: vec![scratch().to_path_buf()],
    }
}

/// A refusal must be a bad-input error with a message.
pub fn check_error(e: &Error) {
    assert_eq!(e.kind, ErrorKind::Input, "{}", e.message);
    assert!(!e.message.trim().is_empty());
}

/// A robot that was read must have a consistent tree that poses without NaN.
pub fn check_robot(robot: &Robot) {
    assert!(!robot.links.is_empty());
    let poses = forward(robot, &Configuration::zero(robot));
    assert_eq!(poses.len(), robot.links.len());
}

/// A loaded mesh: finite vertices, in-range indices, no all-one-point triangle.
pub fn check_mesh(mesh: &collide::geom::mesh::TriMesh) {
    assert!(!mesh.triangles.is_empty());
    assert!(mesh.vertices.iter().flatten().all(|x| x.is_finite()));
    let n = mesh.vertices.len() as u32;
    for t in &mesh.triangles {
        assert!(t.iter().all(|&i| i < n), "{t:?} of {n}");
        assert!(!(t[0] == t[1] && t[1] == t[2]), "{t:?}");
    }
}
