//! The one scratch-robot builder: a robot set up in a fresh temporary directory, for the
//! tests that write manifests or edit a robot's files.

use super::{collide_ok, repo, site};
use std::path::PathBuf;

/// A robot in a scratch directory: its files copied in under their own names, a `robot.yaml`
/// written beside them and, when asked, lowered there into `manifest.yaml`.
///
/// ```ignore
/// let (_dir, config) = ScratchRobot::new("acm_three.urdf")
///     .srdf(SRDF)
///     .config_extra("# kept\n")
///     .lowered(&["--no-refine"])
///     .build();
/// ```
#[must_use = "nothing is written until `build`"]
pub struct ScratchRobot {
    /// Files to copy in (absolute paths).
    files: Vec<PathBuf>,
    /// `robot.yaml` before the `srdf:` line and the extra lines.
    config: String,
    srdf: Option<String>,
    extra: String,
    lower: Option<Vec<String>>,
}

/// `name: STEM` / `urdf: URDF`, the config of a URDF beside it.
fn config_for(urdf: &str) -> String {
    format!("name: {}\nurdf: {urdf}\n", urdf.trim_end_matches(".urdf"))
}

impl ScratchRobot {
    fn with(files: Vec<PathBuf>, config: String) -> Self {
        ScratchRobot {
            files,
            config,
            srdf: None,
            extra: String::new(),
            lower: None,
        }
    }

    /// `tests/robots/URDF` (e.g. `chain.urdf`), configured as `name: STEM` / `urdf: URDF`.
    pub fn new(urdf: &str) -> Self {
        Self::with(
            vec![repo().join("tests/robots").join(urdf)],
            config_for(urdf),
        )
    }

    /// Every file of `tests/robots/NAME/` (its URDF is `NAME.urdf`, its meshes beside it),
    /// configured by the folder's `robot.yaml`, or as `name: NAME` / `urdf: NAME.urdf` where
    /// it has none.
    pub fn folder(name: &str) -> Self {
        let dir = repo().join("tests/robots").join(name);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.file_name().is_some_and(|n| n != "robot.yaml"))
            .collect();
        files.sort();
        let config = std::fs::read_to_string(dir.join("robot.yaml"))
            .unwrap_or_else(|_| config_for(&format!("{name}.urdf")));
        Self::with(files, config)
    }

    /// The committed `robots/NAME/robot.yaml` and its `manifest.yaml`. The fleet's configs
    /// name their files by `package://`, so the copy reads the installed robot.
    pub fn committed(name: &str) -> Self {
        site();
        let dir = repo().join("robots").join(name);
        let config = std::fs::read_to_string(dir.join("robot.yaml"))
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        assert!(
            !config.contains(": ../") && !config.contains(": ./"),
            "{name}: the config names files by relative path; a copy would not find them"
        );
        Self::with(vec![dir.join("manifest.yaml")], config)
    }

    /// Also copies `tests/meshes/NAME` beside the URDF.
    pub fn mesh(mut self, name: &str) -> Self {
        self.files.push(repo().join("tests/meshes").join(name));
        self
    }

    /// Writes `text` as `robot.srdf` and names it in the config.
    pub fn srdf(mut self, text: &str) -> Self {
        self.srdf = Some(text.to_string());
        self
    }

    /// Appends `text` (whole lines, e.g. an `allow:` list) to the config.
    pub fn config_extra(mut self, text: &str) -> Self {
        self.extra += text;
        self
    }

    /// Lowers the robot once built: `collide lower robot.yaml --write -q ARGS`, which must
    /// succeed.
    pub fn lowered(mut self, args: &[&str]) -> Self {
        self.lower = Some(args.iter().map(|a| a.to_string()).collect());
        self
    }

    /// Writes it all: the scratch directory (removed when dropped) and its `robot.yaml`.
    pub fn build(self) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        for f in &self.files {
            std::fs::copy(f, dir.path().join(f.file_name().unwrap()))
                .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        }
        let mut config = self.config;
        if let Some(text) = &self.srdf {
            std::fs::write(dir.path().join("robot.srdf"), text).unwrap();
            config += "srdf: robot.srdf\n";
        }
        config += &self.extra;
        let path = dir.path().join("robot.yaml");
        std::fs::write(&path, config).unwrap();
        if let Some(args) = &self.lower {
            let mut all = vec!["lower", path.to_str().unwrap(), "--write", "-q"];
            all.extend(args.iter().map(String::as_str));
            collide_ok(&all);
        }
        (dir, path)
    }
}
