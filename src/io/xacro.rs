//! `.xacro` descriptions: expanded into a URDF by an external program, then read as one.
//!
//! No Rust crate expands real vendor xacro files (issue 24 measured `xacro`, `xacro-rs` and
//! `zacro` on 23 of them), so the expander is `$COLLIDE_XACRO` if set, else `xacrodoc` on
//! PATH, else ROS's `xacro` on PATH. A program whose file name starts with `xacrodoc` is
//! called as xacrodoc (`-p NAME:=DIR` for each package it needs), any other as ROS's
//! xacro (packages through a temporary `AMENT_PREFIX_PATH`); both take `NAME:=VALUE`
//! arguments and run from the xacro file's directory.
//!
//! A package the expander cannot find is looked up with collide's own rules
//! ([`PackageResolver::find_package`]) and the expander is run again with it. The output is
//! brought to one canonical form, the same whichever expander made it and wherever the
//! packages are installed: comments and formatting dropped, and every `filename` the
//! expander turned into an absolute path written back as `package://NAME/...` (or, outside
//! every package, relative to the xacro file). That text is the "expanded URDF": its
//! `package://` references resolve exactly as a plain URDF's, and its SHA-256 is what the
//! manifest records.

use super::package::{PackageResolver, lexical, package_xml_name};
use super::urdf::parse_urdf;
use super::xml::{MAX_XML_DEPTH_CEILING, XmlLimits, depth_message};
use crate::error::{Error, Result};
use crate::model::Robot;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// How to get an expander, in the one line that says none was found.
pub const INSTALL_HINT: &str = "pip install xacrodoc==2.0.1";

/// Most packages one expansion may ask for (each costs one more run of the expander).
const MAX_PACKAGES: usize = 64;

/// Whether `path` names a xacro file (`.xacro`, `.urdf.xacro`).
pub fn is_xacro(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("xacro"))
}

/// What a xacro source expanded to: what the manifest records of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expansion {
    /// The xacro file, resolved.
    pub file: PathBuf,
    /// The expanded URDF in its canonical form.
    pub urdf: String,
    /// SHA-256 of `urdf`, 64 lowercase hexadecimal digits.
    pub sha256: String,
    /// The arguments given (`NAME:=VALUE`), sorted by name; defaults are not listed.
    pub args: BTreeMap<String, String>,
    /// The expander's program, for messages.
    pub expander: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flavour {
    /// PyPI `xacrodoc`: `-p NAME:=DIR`, resolves `package://` itself to `file://` paths.
    Xacrodoc,
    /// ROS's `xacro`: `$(find)` through ament, `package://` left as written.
    Ros,
}

/// The program that expands xacro files.
#[derive(Debug, Clone)]
struct Expander {
    program: PathBuf,
    flavour: Flavour,
}

impl Expander {
    /// `$COLLIDE_XACRO`, else `xacrodoc`, else `xacro` on PATH; `file` is named in the error.
    fn find(file: &Path) -> Result<Expander> {
        let flavour_of = |p: &Path| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.starts_with("xacrodoc") {
                Flavour::Xacrodoc
            } else {
                Flavour::Ros
            }
        };
        if let Some(v) = std::env::var_os("COLLIDE_XACRO").filter(|v| !v.is_empty()) {
            let given = PathBuf::from(&v);
            let program = if given.components().count() > 1 {
                Some(given.clone()).filter(|p| executable(p))
            } else {
                on_path(&given.to_string_lossy())
            };
            return match program {
                Some(program) => Ok(Expander {
                    flavour: flavour_of(&program),
                    program,
                }),
                None => Err(Error::at(
                    file,
                    None,
                    format!(
                        "COLLIDE_XACRO is `{}`, which is not an executable program (to expand xacro files: {INSTALL_HINT})",
                        given.display()
                    ),
                )),
            };
        }
        for name in ["xacrodoc", "xacro"] {
            if let Some(program) = on_path(name) {
                return Ok(Expander {
                    flavour: flavour_of(&program),
                    program,
                });
            }
        }
        Err(Error::at(
            file,
            None,
            format!(
                "is a xacro file and no xacro expander was found (COLLIDE_XACRO is not set; neither `xacrodoc` nor `xacro` is on PATH): install one with `{INSTALL_HINT}`"
            ),
        ))
    }

    fn name(&self) -> String {
        self.program
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.program.display().to_string())
    }
}

fn executable(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .filter(|d| !d.as_os_str().is_empty())
        .map(|d| d.join(name))
        .find(|p| executable(p))
}

/// Expands `file` with `args` and reads the result as a URDF. The robot's source and first
/// file are the xacro file; errors in the expanded text name `FILE (expanded)`.
pub fn read_xacro(
    file: &Path,
    args: &BTreeMap<String, String>,
    resolver: &PackageResolver,
    limits: &XmlLimits,
) -> Result<(Robot, Expansion)> {
    let expansion = expand(file, args, resolver, limits)?;
    let mut name = file.as_os_str().to_os_string();
    name.push(" (expanded)");
    let mut robot = parse_urdf(&expansion.urdf, Path::new(&name), resolver, limits)?;
    robot.source = file.to_path_buf();
    match robot.files.first_mut() {
        Some(first) => *first = file.to_path_buf(),
        None => robot.files.push(file.to_path_buf()),
    }
    Ok((robot, expansion))
}

/// Runs the expander on `file` and returns the canonical expanded URDF.
pub fn expand(
    file: &Path,
    args: &BTreeMap<String, String>,
    resolver: &PackageResolver,
    limits: &XmlLimits,
) -> Result<Expansion> {
    let expander = Expander::find(file)?;
    let source = std::fs::read_to_string(file)
        .map_err(|e| Error::at(file, None, format!("cannot read: {e}")))?;
    for key in args.keys() {
        if key.is_empty() || key.contains(char::is_whitespace) || key.contains(":=") {
            return Err(Error::at(
                file,
                None,
                format!("`{key}` is not a xacro argument name"),
            ));
        }
    }
    let dir = file
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let canonical_dir = std::fs::canonicalize(dir).unwrap_or_else(|_| lexical(dir));

    // The packages holding the file (xacrodoc finds them by walking up to a package.xml),
    // when collide's own lookup finds the same folder: given to the expander by name so its
    // output can be written back as `package://NAME/...`.
    let mut packages: Vec<Package> = Vec::new();
    for ancestor in canonical_dir.ancestors() {
        let Some(name) = package_xml_name(ancestor) else {
            continue;
        };
        let same = resolver
            .find_package(&name)
            .is_some_and(|d| std::fs::canonicalize(d).ok().as_deref() == Some(ancestor));
        if same && !packages.iter().any(|p| p.name == name) {
            packages.push(Package {
                name,
                dir: ancestor.to_path_buf(),
                asked: false,
            });
        }
    }

    let program = expander.name();
    let fail = |line: Option<(u32, u32)>, msg: String| Error::at(file, line, msg);
    let (stdout, prefixes) = loop {
        let run = run_expander(&expander, file, dir, args, &packages)
            .map_err(|e| fail(None, format!("cannot run `{program}`: {e}")))?;
        if run.success {
            break (run.stdout, run.prefixes);
        }
        let message = expander_message(&run.stderr, &run.status);
        if let Some(name) = missing_package(&run.stderr) {
            let known = packages.iter().any(|p| p.name == name);
            if !known && packages.len() < MAX_PACKAGES {
                if let Some(dir) = resolver.find_package(&name) {
                    packages.push(Package {
                        name,
                        dir,
                        asked: true,
                    });
                    continue;
                }
                return Err(fail(
                    locate_package(&source, &name),
                    format!(
                        "xacro expansion by `{program}` needs package `{name}`, which collide cannot find (add its folder with --package-path); roots tried: {}",
                        resolver.roots_tried()
                    ),
                ));
            }
        }
        return Err(fail(
            locate(&source, &message),
            format!(
                "xacro expansion by `{program}` failed: {message}{}",
                hint(&message)
            ),
        ));
    };

    if stdout.len() as u64 > limits.max_bytes {
        return Err(fail(
            None,
            format!(
                "its expansion is {} bytes, over the XML size limit of {} (raise it with --max-xml-bytes)",
                stdout.len(),
                limits.max_bytes
            ),
        ));
    }
    let text = String::from_utf8(stdout).map_err(|e| {
        fail(
            None,
            format!("the expansion by `{program}` is not UTF-8 text: {e}"),
        )
    })?;
    let canonical_resolver = PackageResolver {
        roots: resolver
            .roots
            .iter()
            .map(|r| std::fs::canonicalize(r).unwrap_or_else(|_| r.clone()))
            .collect(),
    };
    let ctx = Canonical {
        prefixes,
        resolver: &canonical_resolver,
        dir: &canonical_dir,
        limits,
    };
    let urdf = ctx.canonical(&text).map_err(|why| {
        fail(
            None,
            format!("the expansion by `{program}` is refused: {why}"),
        )
    })?;
    let sha256 = Sha256::digest(urdf.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Ok(Expansion {
        file: file.to_path_buf(),
        urdf,
        sha256,
        args: args.clone(),
        expander: program,
    })
}

/// A package given to the expander by name.
struct Package {
    name: String,
    dir: PathBuf,
    /// The expander asked for it (the xacro names it), rather than collide giving the
    /// package holding the file unasked.
    asked: bool,
}

impl Package {
    /// Of several names for one folder (xacrodoc writes them all as the same path), the
    /// one written back: the folder's own package.xml name, else one the xacro named, else
    /// the first by name.
    fn rank(&self) -> (bool, bool) {
        let own = package_xml_name(&self.dir).is_some_and(|n| n == self.name);
        (own, self.asked)
    }
}

struct Run {
    success: bool,
    status: String,
    stdout: Vec<u8>,
    stderr: String,
    /// (what the expander writes for a package's folder, `package://NAME`), longest first.
    prefixes: Vec<(String, String)>,
}

fn run_expander(
    expander: &Expander,
    file: &Path,
    dir: &Path,
    args: &BTreeMap<String, String>,
    packages: &[Package],
) -> std::io::Result<Run> {
    let mut cmd = Command::new(&expander.program);
    cmd.current_dir(dir)
        .arg(file.file_name().unwrap_or(file.as_os_str()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut prefixes = Vec::new();
    // Kept alive until the expander has run: the ROS flavour's package index.
    let _index;
    match expander.flavour {
        Flavour::Xacrodoc => {
            for package in packages {
                // Absolute, as the expander runs elsewhere; xacrodoc writes `package://NAME`
                // as `file://` + the folder's real path.
                let (name, dir) = (&package.name, &package.dir);
                let real = std::fs::canonicalize(dir).unwrap_or_else(|_| lexical(dir));
                cmd.arg("-p").arg(format!("{name}:={}", real.display()));
                prefixes.push((
                    format!("file://{}", real.display()),
                    format!("package://{name}"),
                    package.rank(),
                ));
            }
        }
        Flavour::Ros => {
            // `$(find NAME)` asks ament: a prefix whose share/NAME is the package.
            let index = tempfile::tempdir()?;
            let prefix = std::fs::canonicalize(index.path())?;
            let marks = prefix.join("share/ament_index/resource_index/packages");
            std::fs::create_dir_all(&marks)?;
            for package in packages {
                let (name, dir) = (&package.name, &package.dir);
                std::fs::write(marks.join(name), "")?;
                let share = prefix.join("share").join(name);
                let real = std::fs::canonicalize(dir).unwrap_or_else(|_| lexical(dir));
                #[cfg(unix)]
                std::os::unix::fs::symlink(&real, &share)?;
                #[cfg(not(unix))]
                std::os::windows::fs::symlink_dir(&real, &share)?;
                let written = share.display().to_string();
                let uri = format!("package://{name}");
                prefixes.push((format!("file://{written}"), uri.clone(), package.rank()));
                prefixes.push((written, uri, package.rank()));
            }
            let mut path = prefix.into_os_string();
            if let Some(old) = std::env::var_os("AMENT_PREFIX_PATH").filter(|v| !v.is_empty()) {
                path.push(":");
                path.push(old);
            }
            cmd.env("AMENT_PREFIX_PATH", path);
            _index = index;
        }
    }
    for (k, v) in args {
        cmd.arg(format!("{k}:={v}"));
    }
    // Longest first; for one folder under several names, the best ranked.
    prefixes.sort_by(|a, b| {
        (b.0.len(), b.2)
            .cmp(&(a.0.len(), a.2))
            .then_with(|| a.1.cmp(&b.1))
    });
    let out = cmd.output()?;
    Ok(Run {
        success: out.status.success(),
        status: out.status.to_string(),
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        prefixes: prefixes.into_iter().map(|(p, u, _)| (p, u)).collect(),
    })
}

/// The package an expander says it cannot find: xacrodoc's `Package not found: NAME`, or
/// ament's `package 'NAME' not found`.
fn missing_package(stderr: &str) -> Option<String> {
    let text = strip_ansi(stderr);
    if let Some(i) = text.find("Package not found: ") {
        let rest = &text[i + "Package not found: ".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| !c.is_whitespace() && *c != '\'' && *c != '"')
            .collect();
        return (!name.is_empty()).then_some(name);
    }
    if let Some(i) = text.find("package '") {
        let rest = &text[i + "package '".len()..];
        let (name, after) = rest.split_once('\'')?;
        if after.trim_start().starts_with("not found") && !name.is_empty() {
            return Some(name.to_string());
        }
    }
    None
}

fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.peek() == Some(&'[') {
                chars.next();
                for d in chars.by_ref() {
                    if d.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}

/// The expander's complaint as one line: its lines up to the first blank one (ROS's xacro
/// follows an XML error with advice), `error:` / `Error:` prefixes dropped; for a Python
/// traceback, its last line.
fn expander_message(stderr: &str, status: &str) -> String {
    let text = strip_ansi(stderr);
    if text.contains("Traceback (most recent call last)")
        && let Some(last) = text.lines().rev().find(|l| !l.trim().is_empty())
    {
        return last.trim().to_string();
    }
    let mut lines = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() {
            if lines.is_empty() {
                continue;
            }
            break;
        }
        if line.starts_with("You can specify additional package locations")
            || line.starts_with("See --help")
        {
            continue;
        }
        let mut l = line;
        for prefix in ["error:", "Error:"] {
            l = l.strip_prefix(prefix).map(str::trim_start).unwrap_or(l);
        }
        if !l.is_empty() {
            lines.push(l.to_string());
        }
    }
    if lines.is_empty() {
        format!("it exited with {status} and said nothing")
    } else {
        lines.join("; ")
    }
}

/// Advice for the errors a user can fix from the command line.
fn hint(message: &str) -> String {
    if let Some(name) = after(message, "Undefined substitution argument ") {
        return format!(
            " (give it with --xacro-arg {name}:=VALUE or under `xacro_args:` in the robot config)"
        );
    }
    if message.contains("ament_index_python") {
        return format!(
            " (ROS's xacro finds packages only through ament; xacrodoc needs no ROS: {INSTALL_HINT})"
        );
    }
    String::new()
}

/// The first word after `marker` in `text`.
fn after(text: &str, marker: &str) -> Option<String> {
    let i = text.find(marker)?;
    let word: String = text[i + marker.len()..]
        .chars()
        .take_while(|c| !c.is_whitespace() && !matches!(c, ';' | ',' | ']' | '\'' | '"'))
        .collect();
    (!word.is_empty()).then_some(word)
}

/// Line and column (1-based) of byte `offset` in `text`.
fn position(text: &str, offset: usize) -> (u32, u32) {
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line as u32, col as u32)
}

/// Where `needle` first stands in `text`, followed by one of `ends` (any, when empty).
fn find_token(text: &str, needle: &str, ends: &[char]) -> Option<(u32, u32)> {
    let mut from = 0;
    while let Some(i) = text[from..].find(needle) {
        let at = from + i;
        let next = text[at + needle.len()..].chars().next();
        if ends.is_empty() || next.is_some_and(|c| ends.contains(&c)) {
            return Some(position(text, at));
        }
        from = at + needle.len();
    }
    None
}

const TAG_END: &[char] = &[' ', '\t', '\r', '\n', '/', '>'];

/// Where a package is named in the xacro file: `$(find NAME)` or `package://NAME/`.
fn locate_package(source: &str, name: &str) -> Option<(u32, u32)> {
    find_token(source, &format!("$(find {name})"), &[])
        .or_else(|| find_token(source, &format!("package://{name}/"), &[]))
}

/// Where in the xacro file (not its includes) the expander's complaint points: the
/// expander's own `line N, column M`, else the first use of what it names (an unknown
/// macro, an argument without a value, an expression, a macro call missing a parameter,
/// an included file).
fn locate(source: &str, message: &str) -> Option<(u32, u32)> {
    if let Some(i) = message.find("line ") {
        let rest = &message[i + 5..];
        let line: String = rest.chars().take_while(char::is_ascii_digit).collect();
        if let Some(col) = rest[line.len()..].strip_prefix(", column ") {
            let col: String = col.chars().take_while(char::is_ascii_digit).collect();
            if let (Ok(l), Ok(c)) = (line.parse::<u32>(), col.parse::<u32>()) {
                // expat counts columns from 0.
                return Some((l.max(1), c + 1));
            }
        }
    }
    if let Some(name) = after(message, "unknown macro name: ") {
        let name = name.strip_prefix("xacro:").unwrap_or(&name).to_string();
        return find_token(source, &format!("<xacro:{name}"), TAG_END);
    }
    if let Some(name) = after(message, "Undefined substitution argument ") {
        return find_token(source, &format!("$(arg {name})"), &[]);
    }
    if let Some(i) = message.find("when evaluating expression '") {
        let rest = &message[i + "when evaluating expression '".len()..];
        if let Some((expr, _)) = rest.split_once('\'') {
            return find_token(source, &format!("${{{expr}}}"), &[]);
        }
    }
    if let Some(i) = message.find("Undefined parameters [") {
        let rest = &message[i + "Undefined parameters [".len()..];
        let params: Vec<&str> = rest
            .split(']')
            .next()
            .unwrap_or("")
            .split(',')
            .map(|p| p.trim().trim_matches('\''))
            .filter(|p| !p.is_empty())
            .collect();
        let macro_name = after(message, "when instantiating macro: ");
        return locate_missing_params(source, &params, macro_name.as_deref());
    }
    // `xacro:arg: missing attribute 'default'`: the first such tag without it.
    if let Some(i) = message.find(": missing attribute '") {
        let tag = message[..i].rsplit([' ', ';']).next().unwrap_or("");
        let rest = &message[i + ": missing attribute '".len()..];
        if let (Some(tag), Some((attr, _))) = (tag.strip_prefix("xacro:"), rest.split_once('\'')) {
            let doc = roxmltree::Document::parse(source).ok()?;
            let el = doc.descendants().find(|n| {
                n.is_element()
                    && is_xacro_node(n)
                    && n.tag_name().name() == tag
                    && n.attribute(attr).is_none()
            })?;
            return Some(position(source, el.range().start));
        }
    }
    if let Some(path) = after(message, "No such file or directory: ") {
        let base = Path::new(&path)
            .file_name()
            .map(|b| b.to_string_lossy().into_owned())?;
        return find_token(source, &base, &['"', '\'']);
    }
    None
}

/// The first call of a macro (named `macro_name`, or any defined here with the first of
/// `params`) that does not give that parameter.
fn locate_missing_params(
    source: &str,
    params: &[&str],
    macro_name: Option<&str>,
) -> Option<(u32, u32)> {
    let first = *params.first()?;
    let doc = roxmltree::Document::parse(source).ok()?;
    let is_xacro = is_xacro_node;
    let macros: Vec<String> = match macro_name {
        Some(m) => vec![m.to_string()],
        None => doc
            .descendants()
            .filter(|n| n.is_element() && is_xacro(n) && n.tag_name().name() == "macro")
            .filter(|n| {
                n.attribute("params").is_some_and(|p| {
                    p.split_whitespace()
                        .any(|w| w.split(":=").next().unwrap_or(w) == first)
                })
            })
            .filter_map(|n| n.attribute("name").map(str::to_string))
            .collect(),
    };
    let call = doc.descendants().find(|n| {
        n.is_element()
            && is_xacro(n)
            && macros.iter().any(|m| m == n.tag_name().name())
            && n.attribute(first).is_none()
    })?;
    Some(position(source, call.range().start))
}

/// An element of the xacro namespace (`<xacro:...>`).
fn is_xacro_node(n: &roxmltree::Node) -> bool {
    n.tag_name()
        .namespace()
        .is_some_and(|ns| ns.contains("ros.org/wiki/xacro"))
}

/// How the expansion is brought to its canonical form.
struct Canonical<'a> {
    prefixes: Vec<(String, String)>,
    resolver: &'a PackageResolver,
    /// The xacro file's directory, with links followed (as the expander writes paths).
    dir: &'a Path,
    limits: &'a XmlLimits,
}

impl Canonical<'_> {
    /// The expansion without comments, processing instructions or layout (one element a
    /// line, two spaces an indent level, attributes in their order, text trimmed), every
    /// absolute `filename` written as `package://` where a package holds it; refused when it
    /// still holds xacro: an element of the xacro namespace, `${` or `$(`.
    fn canonical(&self, text: &str) -> std::result::Result<String, String> {
        let options = roxmltree::ParsingOptions {
            allow_dtd: true,
            nodes_limit: 10_000_000,
            ..Default::default()
        };
        let doc = roxmltree::Document::parse_with_options(text, options).map_err(|e| {
            if let Some(i) = text.find("<xacro:") {
                let (l, _) = position(text, i);
                let tag: String = text[i..]
                    .chars()
                    .take_while(|c| !TAG_END.contains(c))
                    .collect();
                format!("it still holds the xacro tag `{tag}` (its line {l})")
            } else {
                format!("it is not XML: {e}")
            }
        })?;
        let mut out = String::from("<?xml version=\"1.0\"?>\n");
        self.element(doc.root_element(), 0, &[], &mut out)?;
        Ok(out)
    }

    fn element(
        &self,
        node: roxmltree::Node,
        depth: usize,
        parent_ns: &[(Option<&str>, &str)],
        out: &mut String,
    ) -> std::result::Result<(), String> {
        if depth >= self.limits.max_depth.min(MAX_XML_DEPTH_CEILING) {
            return Err(depth_message(self.limits));
        }
        let name = qualified(node, node.tag_name().namespace(), node.tag_name().name());
        if name.starts_with("xacro:") || is_xacro_node(&node) {
            return Err(format!("it still holds the xacro tag `<{name}>`"));
        }
        let indent = "  ".repeat(depth);
        out.push_str(&indent);
        out.push('<');
        out.push_str(&name);
        let in_scope: Vec<(Option<&str>, &str)> = node
            .namespaces()
            .map(|ns| (ns.name(), ns.uri()))
            .filter(|ns| ns.0 != Some("xml"))
            .collect();
        for ns in in_scope.iter().filter(|ns| !parent_ns.contains(ns)) {
            match ns.0 {
                Some(p) => out.push_str(&format!(" xmlns:{p}=\"{}\"", escape(ns.1, true))),
                None => out.push_str(&format!(" xmlns=\"{}\"", escape(ns.1, true))),
            }
        }
        for a in node.attributes() {
            let attr = qualified(node, a.namespace(), a.name());
            let value = a.value();
            leftover(value).map_err(|what| {
                format!("it still holds `{what}` in <{name} {attr}=\"{value}\">")
            })?;
            let value = if a.name() == "filename" && a.namespace().is_none() {
                self.portable(value)
            } else {
                value.to_string()
            };
            out.push_str(&format!(" {attr}=\"{}\"", escape(&value, true)));
        }
        let kids: Vec<roxmltree::Node> = node
            .children()
            .filter(|c| {
                c.is_element() || (c.is_text() && !c.text().unwrap_or("").trim().is_empty())
            })
            .collect();
        for t in kids.iter().filter(|c| c.is_text()) {
            let text = t.text().unwrap_or("").trim();
            leftover(text)
                .map_err(|what| format!("it still holds `{what}` in the text of <{name}>"))?;
        }
        match kids.as_slice() {
            [] => out.push_str("/>\n"),
            [only] if only.is_text() => {
                out.push('>');
                out.push_str(&escape(only.text().unwrap_or("").trim(), false));
                out.push_str(&format!("</{name}>\n"));
            }
            _ => {
                out.push_str(">\n");
                for k in &kids {
                    if k.is_element() {
                        self.element(*k, depth + 1, &in_scope, out)?;
                    } else {
                        out.push_str(&indent);
                        out.push_str("  ");
                        out.push_str(&escape(k.text().unwrap_or("").trim(), false));
                        out.push('\n');
                    }
                }
                out.push_str(&indent);
                out.push_str(&format!("</{name}>\n"));
            }
        }
        Ok(())
    }

    /// A `filename` as a reference that holds on any machine: a package folder given to the
    /// expander back to `package://NAME`, another absolute path to `package://` when a
    /// package root holds it (else relative to the xacro file); anything else as written.
    fn portable(&self, value: &str) -> String {
        for (prefix, package) in &self.prefixes {
            if let Some(rest) = value.strip_prefix(prefix.as_str())
                && (rest.is_empty() || rest.starts_with('/'))
            {
                return format!("{package}{rest}");
            }
        }
        let path = value.strip_prefix("file://").unwrap_or(value);
        if Path::new(path).is_absolute() {
            return self.resolver.reference_for(Path::new(path), self.dir);
        }
        value.to_string()
    }
}

/// `${` or `$(` left in expanded text.
fn leftover(text: &str) -> std::result::Result<(), String> {
    for open in ["${", "$("] {
        if let Some(i) = text.find(open) {
            let what: String = text[i..].chars().take(40).collect();
            return Err(what);
        }
    }
    Ok(())
}

fn qualified(node: roxmltree::Node, namespace: Option<&str>, name: &str) -> String {
    match namespace.and_then(|ns| node.lookup_prefix(ns)) {
        Some(p) if !p.is_empty() => format!("{p}:{name}"),
        _ => name.to_string(),
    }
}

fn escape(text: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if attribute => out.push_str("&quot;"),
            '\n' if attribute => out.push_str("&#10;"),
            '\r' if attribute => out.push_str("&#13;"),
            '\t' if attribute => out.push_str("&#9;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_missing_package_is_read_from_either_expander() {
        assert_eq!(
            missing_package(
                "\u{1b}[31merror: Error: Package not found: ur_description\u{1b}[0m\nYou can specify"
            ),
            Some("ur_description".to_string())
        );
        assert_eq!(
            missing_package(
                "error: package 'franka_description' not found, searching: ['/opt/ros']"
            ),
            Some("franka_description".to_string())
        );
        assert_eq!(missing_package("error: unknown macro name: xacro:x"), None);
    }

    #[test]
    fn the_expander_message_is_one_line() {
        assert_eq!(
            expander_message(
                "error: Error: name 'x' is not defined \nwhen evaluating expression 'x'\n",
                "exit status: 1"
            ),
            "name 'x' is not defined; when evaluating expression 'x'"
        );
        assert_eq!(
            expander_message(
                "XML parsing error: not well-formed (invalid token): line 8, column 0\nwhen processing file: e.urdf.xacro\n\nCheck that:\n - Your XML is well-formed\n",
                "exit status: 2"
            ),
            "XML parsing error: not well-formed (invalid token): line 8, column 0; when processing file: e.urdf.xacro"
        );
        assert_eq!(
            expander_message("", "exit status: 3"),
            "it exited with exit status: 3 and said nothing"
        );
    }

    #[test]
    fn complaints_are_located_in_the_xacro_file() {
        let source = "<robot xmlns:xacro=\"http://www.ros.org/wiki/xacro\">\n  <xacro:macro name=\"m\" params=\"size colour:=red\"/>\n  <xacro:m size=\"1\"/>\n  <xacro:mm/>\n  <link name=\"$(arg n)\"/>\n  <link name=\"${a*b}\"/>\n  <xacro:m colour=\"blue\"/>\n</robot>\n";
        assert_eq!(locate(source, "unknown macro name: xacro:mm"), Some((4, 3)));
        assert_eq!(
            locate(source, "Undefined substitution argument n"),
            Some((5, 15))
        );
        assert_eq!(
            locate(
                source,
                "name 'a' is not defined; when evaluating expression 'a*b'"
            ),
            Some((6, 15))
        );
        assert_eq!(locate(source, "Undefined parameters [size]"), Some((7, 3)));
        assert_eq!(
            locate(source, "not well-formed (invalid token): line 8, column 0"),
            Some((8, 1))
        );
        assert_eq!(locate(source, "something else"), None);
    }

    #[test]
    fn leftover_xacro_is_refused_and_layout_dropped() {
        let limits = XmlLimits::default();
        let resolver = PackageResolver::default();
        let ctx = Canonical {
            prefixes: vec![("file:///opt/pkg".into(), "package://pkg".into())],
            resolver: &resolver,
            dir: Path::new("/"),
            limits: &limits,
        };
        let a = ctx
            .canonical("<?xml version=\"1.0\"?>\n<!-- made by xacro -->\n<robot name=\"r\">\n\n    <link name=\"a\"><visual><geometry><mesh filename=\"file:///opt/pkg/m.stl\"/></geometry></visual></link>\n</robot>")
            .unwrap();
        let b = ctx
            .canonical("<robot name=\"r\"><link name=\"a\">\n<visual>\n<geometry>\n<mesh filename=\"package://pkg/m.stl\"/></geometry></visual></link></robot>\n")
            .unwrap();
        assert_eq!(a, b);
        assert!(
            a.contains("<mesh filename=\"package://pkg/m.stl\"/>"),
            "{a}"
        );
        for bad in [
            "<robot name=\"${name}\"/>",
            "<robot name=\"r\"><link name=\"$(arg x)\"/></robot>",
            "<robot xmlns:xacro=\"http://www.ros.org/wiki/xacro\"><xacro:property name=\"a\" value=\"1\"/></robot>",
            "<robot><xacro:m/></robot>",
        ] {
            assert!(ctx.canonical(bad).is_err(), "{bad}");
        }
    }
}
