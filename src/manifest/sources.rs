//! The files a manifest depends on and the generator that wrote it.

use crate::error::{Error, Result};
use crate::io::robot::{LoadOptions, LoadedRobot, load_robot};
use crate::model::Shape;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The `generator:` line of every manifest and report.
pub fn generator() -> String {
    format!("collide {}", env!("CARGO_PKG_VERSION"))
}

pub fn sha256_file(path: &Path) -> Result<String> {
    let bytes =
        std::fs::read(path).map_err(|e| Error::at(path, None, format!("cannot read: {e}")))?;
    Ok(Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// One file a manifest depends on.
pub struct SourceFile {
    /// As the manifest records it: as given in the robot config, else a reference that
    /// resolves on its own (`package://`, or relative to the manifest's directory).
    pub path: String,
    /// As the robot's own files write it (mesh references relative to an MJCF's
    /// `meshdir`): what manifests recorded before, still accepted by `verify`.
    pub written: String,
    pub file: PathBuf,
    /// The expansion, for the xacro source.
    pub xacro: Option<crate::manifest::XacroSource>,
}

/// Every file the manifest depends on (config entries, included files, then mesh
/// references sorted). The manifest lies beside the robot config (or, for a bare robot
/// file, in the working directory).
pub fn source_files(loaded: &LoadedRobot) -> Vec<SourceFile> {
    let base = loaded
        .config_path
        .as_deref()
        .and_then(Path::parent)
        .unwrap_or(Path::new(""));
    let own = |written: String, file: PathBuf| {
        let path = if written.starts_with("package://") {
            written.clone()
        } else {
            loaded.resolver.reference_for(&file, base)
        };
        SourceFile {
            path,
            written,
            file,
            xacro: None,
        }
    };
    let mut out: Vec<SourceFile> = loaded
        .sources
        .iter()
        .map(|(given, file)| SourceFile {
            path: given.clone(),
            written: given.clone(),
            file: file.clone(),
            xacro: loaded.xacro.as_ref().filter(|x| x.file == *file).map(|x| {
                crate::manifest::XacroSource {
                    expanded_sha256: x.sha256.clone(),
                    args: x.args.clone(),
                }
            }),
        })
        .collect();
    for extra in loaded.robot.files.iter().skip(1) {
        out.push(own(extra.display().to_string(), extra.clone()));
    }
    let mut meshes: BTreeMap<String, PathBuf> = BTreeMap::new();
    for l in &loaded.robot.links {
        for g in &l.geometry {
            if let Shape::Mesh { uri, path, .. } = &g.shape {
                meshes.insert(uri.clone(), path.clone());
            }
        }
    }
    out.extend(meshes.into_iter().map(|(uri, file)| own(uri, file)));
    out
}

/// The robot config a manifest was lowered from: `robot.yaml` beside it.
pub fn config_beside(path: &Path) -> PathBuf {
    path.with_file_name("robot.yaml")
}

/// Loads the robot beside manifest `path`; a missing config is an error naming the manifest,
/// with `needed_for` (for example ": the truth meshes come from the robot") appended.
pub fn load_robot_beside(path: &Path, load: &LoadOptions, needed_for: &str) -> Result<LoadedRobot> {
    let config = config_beside(path);
    if !config.is_file() {
        return Err(Error::at(
            path,
            None,
            format!(
                "no robot config beside it ({} is missing){needed_for}",
                config.display()
            ),
        ));
    }
    load_robot(&config, load)
}
