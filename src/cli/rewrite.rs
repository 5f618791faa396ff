//! The ending `lower` and `acm regenerate` share, once their files are written (files are
//! written before anything is printed, so a reader that goes away early cannot cost a
//! write): `--check` exits 1 when a file would change, `--write` says what it wrote, and a
//! dry run prints the diffs (not under `--json`, whose output is the JSON alone), or says
//! that a file does not exist yet instead of printing all of it as added.

use crate::io::atomic::Rewrite;
use std::path::Path;

/// How the command was asked to end.
#[derive(Debug, Clone, Copy)]
pub struct Mode {
    pub write: bool,
    pub check: bool,
    pub json: bool,
}

impl Mode {
    /// `--check` wins over `--write`: it never writes.
    pub fn new(write: bool, check: bool, json: bool) -> Mode {
        Mode {
            write: write && !check,
            check,
            json,
        }
    }
}

/// A rewritten file and what a note on it adds (" (2 adopted SRDF row(s) in `allow:`)").
pub struct Ending<'a> {
    pub file: &'a Rewrite,
    pub note: String,
}

/// Writes each changed file under `--write`; called before anything is printed.
pub fn write_files(files: &[Ending], mode: Mode) -> crate::error::Result<()> {
    if mode.write {
        for e in files {
            e.file.write_if_changed()?;
        }
    }
    Ok(())
}

/// The exit code after the command's own output: under `--check`, 1 when a file would
/// change (`command` says what would write it).
pub fn finish(files: &[Ending], mode: Mode, command: &str) -> i32 {
    if mode.check {
        let stale: Vec<_> = files.iter().filter(|e| e.file.changed()).collect();
        for e in &stale {
            crate::messages::verdict(&format!(
                "{} would change; run `{command} --write`",
                e.file.path.display()
            ));
        }
        return i32::from(!stale.is_empty());
    }
    for e in files {
        let path = e.file.path.display();
        if mode.write {
            if e.file.changed() {
                crate::messages::note(&format!("wrote {path}{}", e.note));
            } else {
                crate::messages::note(&format!("{path} is up to date"));
            }
        } else if !mode.json {
            if !e.file.path.exists() {
                // Nothing to compare with: a diff would be the whole file.
                crate::messages::note(&format!(
                    "{path} does not exist yet: `{command} --write` writes it (above, what it would hold)"
                ));
            } else if e.file.changed() {
                crate::out!("{}", unified_diff(&e.file.old, &e.file.new, &e.file.path));
            } else {
                crate::messages::note(&format!("{path} is up to date"));
            }
        }
    }
    0
}

/// A unified diff with three lines of context, `---`/`+++` naming the file.
pub fn unified_diff(old: &str, new: &str, path: &Path) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(
            &format!("{} (existing)", path.display()),
            &format!("{} (new)", path.display()),
        )
        .to_string()
}
