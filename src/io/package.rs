//! Turning `package://`, `file://`, absolute and relative references into files.

use crate::error::{Error, Result};
use std::path::{Component, Path, PathBuf};

/// The search roots for `package://NAME/...`, in the order they are tried.
#[derive(Debug, Clone, Default)]
pub struct PackageResolver {
    pub roots: Vec<PathBuf>,
}

impl PackageResolver {
    /// `--package-path` first, then COLLIDE_PACKAGE_PATH, ROS_PACKAGE_PATH,
    /// AMENT_PREFIX_PATH's `share/`, then the `.robots/` install found above `near`
    /// or the working directory.
    pub fn from_env(cli_roots: &[PathBuf], near: Option<&Path>) -> Self {
        let mut roots: Vec<PathBuf> = cli_roots.to_vec();
        for var in ["COLLIDE_PACKAGE_PATH", "ROS_PACKAGE_PATH"] {
            if let Ok(v) = std::env::var(var) {
                roots.extend(v.split(':').filter(|s| !s.is_empty()).map(PathBuf::from));
            }
        }
        if let Ok(v) = std::env::var("AMENT_PREFIX_PATH") {
            roots.extend(
                v.split(':')
                    .filter(|s| !s.is_empty())
                    .map(|p| Path::new(p).join("share")),
            );
        }
        if let Some(dir) = robots_dir(near) {
            roots.push(dir.join("site/cmeel.prefix/share"));
            roots.push(dir.join("site/share"));
            roots.push(dir.join("site"));
        }
        PackageResolver { roots }
    }

    /// Resolves `reference` as written in `from` (at `line`, when known).
    pub fn resolve(
        &self,
        reference: &str,
        from: &Path,
        line: Option<(u32, u32)>,
    ) -> Result<PathBuf> {
        let fail = |msg: String| Error::at(from, line, msg);
        let path = if let Some(rest) = reference.strip_prefix("package://") {
            // `package:///x` is an absolute path when one exists, else package `x`.
            let absolute = rest
                .strip_prefix('/')
                .map(|abs| PathBuf::from(format!("/{abs}")));
            if let Some(abs) = absolute.filter(|p| p.exists()) {
                abs
            } else {
                let rest = rest.trim_start_matches('/');
                let (name, inner) = rest.split_once('/').unwrap_or((rest, ""));
                let inner = relative_inside(inner).ok_or_else(|| {
                    fail(format!(
                        "`{reference}` climbs out of package `{name}` with `..`"
                    ))
                })?;
                match self.find_package(name) {
                    Some(dir) => dir.join(&inner),
                    None => {
                        return Err(fail(format!(
                            "cannot find package `{name}` for `{reference}`; roots tried: {}",
                            self.roots_tried()
                        )));
                    }
                }
            }
        } else if let Some(rest) = reference.strip_prefix("file://") {
            let p = PathBuf::from(rest);
            if p.is_absolute() {
                p
            } else {
                base_dir(from).join(p)
            }
        } else {
            let p = PathBuf::from(reference);
            if p.is_absolute() {
                p
            } else {
                base_dir(from).join(p)
            }
        };
        check_file(&path).map_err(|why| fail(format!("`{reference}` {why}")))?;
        Ok(path)
    }
}

impl PackageResolver {
    /// The directory of package `name`: first by folder name (`ROOT/NAME`, or a root that is
    /// itself named NAME), in root order; else by the `<name>` of a `package.xml` (a root's
    /// own, then those of its sub-folders, by folder name), so a checkout named
    /// `Universal_Robots_ROS2_Description` holding package `ur_description` is found.
    pub fn find_package(&self, name: &str) -> Option<PathBuf> {
        if matches!(name, "" | "." | "..") {
            return None;
        }
        for root in &self.roots {
            for candidate in [root.join(name), root.clone()] {
                let is_pkg = candidate.file_name().is_some_and(|f| f == name);
                if is_pkg && candidate.is_dir() {
                    return Some(candidate);
                }
            }
        }
        for root in &self.roots {
            if package_xml_name(root).as_deref() == Some(name) {
                return Some(root.clone());
            }
            let Ok(entries) = std::fs::read_dir(root) else {
                continue;
            };
            let mut dirs: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_dir())
                .collect();
            dirs.sort();
            if let Some(dir) = dirs
                .into_iter()
                .find(|d| package_xml_name(d).as_deref() == Some(name))
            {
                return Some(dir);
            }
        }
        None
    }
}

impl PackageResolver {
    /// The roots, as a "not found" message lists them.
    pub fn roots_tried(&self) -> String {
        if self.roots.is_empty() {
            "none (set COLLIDE_PACKAGE_PATH or --package-path)".to_string()
        } else {
            let roots: Vec<String> = self.roots.iter().map(|r| r.display().to_string()).collect();
            roots.join(", ")
        }
    }
}

/// The package name a folder's `package.xml` declares (`<package><name>NAME</name>`), if
/// it has a readable one.
pub fn package_xml_name(dir: &Path) -> Option<String> {
    let file = dir.join("package.xml");
    // A package.xml is a few kilobytes; anything huge is not one.
    if std::fs::metadata(&file).ok()?.len() > 1 << 20 {
        return None;
    }
    let text = std::fs::read_to_string(&file).ok()?;
    let doc = roxmltree::Document::parse(&text).ok()?;
    let root = doc.root_element();
    if root.tag_name().name() != "package" {
        return None;
    }
    let name = root
        .children()
        .find(|c| c.is_element() && c.tag_name().name() == "name")?
        .text()?
        .trim();
    (!name.is_empty()).then(|| name.to_string())
}

impl PackageResolver {
    /// A reference to `file` that resolves on its own, from a file in directory `base`:
    /// `package://NAME/...` when `file` lies under one of the package roots (and that URI
    /// resolves back to it), otherwise `file`'s path relative to `base`.
    pub fn reference_for(&self, file: &Path, base: &Path) -> String {
        let file = lexical(file);
        for root in &self.roots {
            let root = lexical(root);
            let Ok(inner) = file.strip_prefix(&root) else {
                continue;
            };
            // A package below the root, or the root itself a package (named by its folder).
            let mut uris = Vec::new();
            if inner.components().count() > 1 {
                uris.push(slashed(inner));
            }
            if let Some(name) = root.file_name() {
                uris.push(slashed(&Path::new(name).join(inner)));
            }
            for uri in uris.into_iter().map(|u| format!("package://{u}")) {
                if self
                    .resolve(&uri, &base.join("_"), None)
                    .is_ok_and(|p| lexical(&p) == file)
                {
                    return uri;
                }
            }
        }
        slashed(&relative_to(&file, &lexical(base)))
    }
}

/// `path` absolute (against the working directory) with `.` and `..` folded away by
/// name, without following links.
pub fn lexical(path: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    let mut out = PathBuf::new();
    for c in absolute.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// `file` relative to directory `base` (both lexical, absolute), with `..` where needed.
fn relative_to(file: &Path, base: &Path) -> PathBuf {
    let f: Vec<_> = file.components().collect();
    let b: Vec<_> = base.components().collect();
    let common = f.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &f[common..] {
        out.push(c);
    }
    out
}

/// A relative path written with `/` on every platform.
fn slashed(path: &Path) -> String {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

fn base_dir(from: &Path) -> PathBuf {
    from.parent().map(Path::to_path_buf).unwrap_or_default()
}

/// `inner` as a relative path that does not climb above where it starts.
fn relative_inside(inner: &str) -> Option<PathBuf> {
    let mut depth: i32 = 0;
    let mut out = PathBuf::new();
    for c in Path::new(inner).components() {
        match c {
            Component::Normal(s) => {
                depth += 1;
                out.push(s);
            }
            Component::CurDir => {}
            Component::ParentDir => {
                depth -= 1;
                if depth < 0 {
                    return None;
                }
                out.pop();
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

/// Why `path` is not a readable regular file, if it is not one.
pub fn check_file(path: &Path) -> std::result::Result<(), String> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Err(format!(
            "resolves to {}, a directory, not a file",
            path.display()
        )),
        Ok(_) => Ok(()),
        Err(e) if e.raw_os_error() == Some(40) => {
            Err(format!("resolves to {}, a symlink loop", path.display()))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(format!(
            "resolves to {}, which does not exist",
            path.display()
        )),
        Err(e) => Err(format!(
            "resolves to {}, which cannot be read: {e}",
            path.display()
        )),
    }
}

/// The `.robots/` install: $COLLIDE_ROBOTS_DIR, else the first `.robots` found
/// walking up from `near`, then from the working directory.
pub fn robots_dir(near: Option<&Path>) -> Option<PathBuf> {
    if let Ok(v) = std::env::var("COLLIDE_ROBOTS_DIR") {
        return Some(PathBuf::from(v));
    }
    let cwd = std::env::current_dir().ok();
    let starts = near.map(Path::to_path_buf).into_iter().chain(cwd);
    for start in starts {
        let start = std::fs::canonicalize(&start).unwrap_or(start);
        for dir in start.ancestors() {
            let candidate = dir.join(".robots");
            if candidate.is_dir() {
                return Some(candidate);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dotdot_may_not_leave_the_package() {
        assert_eq!(
            relative_inside("a/../b/c.stl"),
            Some(PathBuf::from("b/c.stl"))
        );
        assert_eq!(relative_inside("../x.stl"), None);
        assert_eq!(relative_inside("a/../../x.stl"), None);
    }

    /// A package is found by its `package.xml` name as well as by its folder name: as a root
    /// itself or as a root's sub-folder; the folder name wins, and `..` still may not leave it.
    #[test]
    fn a_package_is_found_by_its_package_xml_name() {
        let dir = tempfile::tempdir().unwrap();
        let checkout = dir.path().join("Vendor_ROS2_Description");
        std::fs::create_dir_all(checkout.join("meshes")).unwrap();
        std::fs::write(
            checkout.join("package.xml"),
            "<?xml version=\"1.0\"?>\n<package format=\"3\">\n  <name> vendor_description </name>\n</package>\n",
        )
        .unwrap();
        std::fs::write(checkout.join("meshes/a.stl"), "solid a\nendsolid a\n").unwrap();
        let from = dir.path().join("robot.urdf");
        for root in [dir.path().to_path_buf(), checkout.clone()] {
            let r = PackageResolver { roots: vec![root] };
            assert_eq!(r.find_package("vendor_description"), Some(checkout.clone()));
            let p = r
                .resolve("package://vendor_description/meshes/a.stl", &from, None)
                .unwrap();
            assert_eq!(p, checkout.join("meshes/a.stl"));
            assert!(
                r.resolve("package://vendor_description/../x.stl", &from, None)
                    .is_err()
            );
            assert_eq!(r.find_package("other"), None);
        }
        // A folder of the package's name comes first.
        let named = dir.path().join("vendor_description");
        std::fs::create_dir_all(&named).unwrap();
        let r = PackageResolver {
            roots: vec![dir.path().to_path_buf()],
        };
        assert_eq!(r.find_package("vendor_description"), Some(named));
        assert_eq!(
            package_xml_name(&checkout).as_deref(),
            Some("vendor_description")
        );
        assert_eq!(package_xml_name(dir.path()), None);
    }
}
