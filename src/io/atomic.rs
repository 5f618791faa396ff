//! Replacing a file atomically: nothing is ever half-written.
//!
//! The bytes go to a temporary file in the target's directory (so the final
//! rename stays on one file system), which is flushed to disk and then renamed
//! over the target. Until the rename, the existing file is untouched; if any
//! step fails, the temporary file is removed and the target is left as it was.

use crate::error::{Error, Result};
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically (temporary file in the same directory,
/// fsync, rename). An existing file keeps its permissions; a new one gets
/// `rw-r--r--`. A symbolic link is followed: its target is replaced.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_with(path, bytes, &mut |_| Ok(()))
}

/// The steps of [`write_atomic`], where tests inject failures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Create,
    /// Half of the bytes are written.
    MidWrite,
    Sync,
    Rename,
}

fn write_atomic_with(
    path: &Path,
    bytes: &[u8],
    fault: &mut dyn FnMut(Step) -> io::Result<()>,
) -> Result<()> {
    let target = resolve_target(path)?;
    let fail =
        |what: &str, e: io::Error| Error::at(path, None, format!("cannot write: {what}: {e}"));
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target
        .file_name()
        .ok_or_else(|| Error::at(path, None, "cannot write: not a file name"))?
        .to_string_lossy()
        .into_owned();
    let existing = match fs::metadata(&target) {
        Ok(m) if m.is_dir() => {
            return Err(Error::at(path, None, "cannot write: is a directory"));
        }
        Ok(m) => Some(m.permissions()),
        Err(_) => None,
    };

    remove_stale_temporaries(&dir, &name);
    fault(Step::Create).map_err(|e| fail("creating a temporary file", e))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}.{}.", std::process::id()))
        .suffix(".tmp")
        .tempfile_in(&dir)
        .map_err(|e| {
            fail(
                &format!("creating a temporary file in {}", dir.display()),
                e,
            )
        })?;
    // A temporary file is private (rw-------); give it the old file's permissions.
    if let Some(permissions) = existing.or_else(default_permissions) {
        tmp.as_file()
            .set_permissions(permissions)
            .map_err(|e| fail("setting permissions", e))?;
    }

    let half = bytes.len() / 2;
    tmp.write_all(&bytes[..half])
        .and_then(|()| fault(Step::MidWrite))
        .and_then(|()| tmp.write_all(&bytes[half..]))
        .and_then(|()| tmp.flush())
        .map_err(|e| fail("writing", e))?;
    fault(Step::Sync)
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| fail("flushing to disk", e))?;
    fault(Step::Rename).map_err(|e| fail("renaming into place", e))?;
    // On failure the returned error owns the temporary file, which removes it when dropped.
    tmp.persist(&target)
        .map_err(|e| fail("renaming into place", e.error))?;
    // Make the rename itself durable (best effort: not every platform can sync a directory).
    if let Ok(d) = fs::File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Removes temporary files `.NAME.PID.XXXXXX.tmp` beside NAME that a killed
/// run left behind, so they cannot pile up: those whose writer, named by the
/// process id in the name, is no longer running. Where that cannot be told
/// (no `/proc`), nothing is removed. Best effort: errors are ignored.
fn remove_stale_temporaries(dir: &Path, name: &str) {
    let proc_fs = Path::new("/proc");
    if !proc_fs.join("self").exists() {
        return;
    }
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let prefix = format!(".{name}.");
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some(rest) = file
            .to_str()
            .and_then(|f| f.strip_prefix(&prefix))
            .and_then(|r| r.strip_suffix(".tmp"))
        else {
            continue;
        };
        let Some(Ok(pid)) = rest.split_once('.').map(|(pid, _)| pid.parse::<u32>()) else {
            continue;
        };
        let is_file = entry.file_type().is_ok_and(|t| t.is_file());
        if is_file && pid != std::process::id() && !proc_fs.join(pid.to_string()).exists() {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// The file to replace: `path`, or where it points if it is a symbolic link.
fn resolve_target(path: &Path) -> Result<PathBuf> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => fs::canonicalize(path).map_err(|e| {
            Error::at(
                path,
                None,
                format!("cannot write: symbolic link does not resolve: {e}"),
            )
        }),
        _ => Ok(path.to_path_buf()),
    }
}

#[cfg(unix)]
fn default_permissions() -> Option<fs::Permissions> {
    use std::os::unix::fs::PermissionsExt;
    Some(fs::Permissions::from_mode(0o644))
}

#[cfg(not(unix))]
fn default_permissions() -> Option<fs::Permissions> {
    None
}

/// A text file a command rewrites: where, as it is, as it will be.
#[derive(Debug, Clone)]
pub struct Rewrite {
    pub path: PathBuf,
    pub old: String,
    pub new: String,
}

impl Rewrite {
    pub fn changed(&self) -> bool {
        self.old != self.new
    }

    /// Writes the new text atomically when it differs from the old.
    pub fn write_if_changed(&self) -> Result<()> {
        if self.changed() {
            write_atomic(&self.path, self.new.as_bytes())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn an_injected_failure_at_any_step_leaves_the_old_file_and_no_temporary() {
        for step in [Step::Create, Step::MidWrite, Step::Sync, Step::Rename] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("manifest.yaml");
            fs::write(&path, "old contents\n").unwrap();
            let new = "new contents, long enough to be written in two halves\n".repeat(100);
            let err = write_atomic_with(&path, new.as_bytes(), &mut |s| {
                if s == step {
                    Err(io::Error::other("injected failure"))
                } else {
                    Ok(())
                }
            })
            .unwrap_err();
            assert!(
                err.message.contains("injected failure"),
                "{step:?}: {}",
                err.message
            );
            assert!(err.message.starts_with(&path.display().to_string()));
            assert_eq!(
                fs::read_to_string(&path).unwrap(),
                "old contents\n",
                "{step:?}"
            );
            assert_eq!(
                listing(dir.path()),
                ["manifest.yaml"],
                "{step:?}: temporary file left behind"
            );
        }
    }

    #[test]
    fn temporaries_of_dead_writers_are_removed_and_live_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("manifest.yaml");
        fs::write(&path, "old\n").unwrap();
        // No process has a pid above the kernel's maximum (2^22 on Linux).
        let dead = ".manifest.yaml.99999999.AbCdEf.tmp";
        let live = format!(".manifest.yaml.{}.AbCdEf.tmp", std::process::id());
        let other = ".other.yaml.99999999.AbCdEf.tmp";
        for f in [dead, live.as_str(), other] {
            fs::write(dir.path().join(f), "partial").unwrap();
        }
        write_atomic(&path, b"new\n").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new\n");
        let mut want = vec![live, "manifest.yaml".to_string(), other.to_string()];
        want.sort();
        assert_eq!(listing(dir.path()), want);
    }

    #[test]
    fn an_injected_failure_leaves_no_file_when_there_was_none() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new.yaml");
        let r = write_atomic_with(&path, b"x", &mut |s| {
            if s == Step::Rename {
                Err(io::Error::other("no"))
            } else {
                Ok(())
            }
        });
        assert!(r.is_err());
        assert!(listing(dir.path()).is_empty());
    }
}
