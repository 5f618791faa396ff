//! Loading is strict: an unknown field, a wrong type, a missing field, a non-finite
//! number, a wrong array length or an inconsistent record is an error naming the file,
//! the line and the field.

use super::schema::*;
use super::validate::{Site, validate_with};
use crate::error::{Error, Result};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_saphyr::Spanned;
use std::path::Path;

/// Reads and checks a manifest file.
pub fn load_manifest(path: &Path) -> Result<Manifest> {
    load_manifest_with(path, true)
}

/// Reads a manifest whose written values are about to be verified: every check but
/// [`nesting_failures`], which `verify` reports as a violation (a broken proof), not as
/// unreadable input.
pub fn load_manifest_to_verify(path: &Path) -> Result<Manifest> {
    load_manifest_with(path, false)
}

fn load_manifest_with(path: &Path, nesting: bool) -> Result<Manifest> {
    if path.is_dir() {
        return Err(Error::at(
            path,
            None,
            "is a directory, expected a manifest file",
        ));
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::at(path, None, format!("cannot read manifest: {e}")))?;
    parse_manifest_with(path, &text, nesting)
}

fn options() -> serde_saphyr::Options {
    serde_saphyr::options! {
        with_snippet: false,
        duplicate_keys: serde_saphyr::DuplicateKeyPolicy::Error,
        // Let .nan/.inf through to `validate`, which names the field.
        non_finite_float_policy: serde_saphyr::NonFiniteFloatPolicy::PassThrough,
    }
}

/// Parses and checks manifest text; `path` only names it in errors.
pub fn parse_manifest(path: &Path, text: &str) -> Result<Manifest> {
    parse_manifest_with(path, text, true)
}

fn parse_manifest_with(path: &Path, text: &str, nesting: bool) -> Result<Manifest> {
    if text.trim().is_empty() {
        return Err(Error::at(path, None, "manifest is empty"));
    }
    // The version first, so a newer file is refused for what it is rather
    // than for its new fields.
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum AnyScalar {
        Integer(u64),
        Float(f64),
        Text(String),
    }
    #[derive(Deserialize)]
    struct Version {
        schema_version: Option<Spanned<AnyScalar>>,
    }
    let version: Version =
        serde_saphyr::from_str_with_options(text, options()).map_err(|e| yaml_error(path, &e))?;
    let Some(version) = version.schema_version else {
        return Err(Error::at(path, None, "missing field `schema_version`"));
    };
    let at = location(&version.referenced);
    match version.value {
        AnyScalar::Integer(v) if v == u64::from(SCHEMA_VERSION) => {}
        AnyScalar::Integer(v) => {
            return Err(Error::at(
                path,
                at,
                format!(
                    "schema_version {v} is not supported (this collide reads schema_version {SCHEMA_VERSION})"
                ),
            ));
        }
        AnyScalar::Float(v) => {
            return Err(Error::at(
                path,
                at,
                format!("schema_version must be the integer {SCHEMA_VERSION}, not {v:?}"),
            ));
        }
        AnyScalar::Text(v) => {
            return Err(Error::at(
                path,
                at,
                format!("schema_version must be the integer {SCHEMA_VERSION}, not the text {v:?}"),
            ));
        }
    }
    // serde's messages name the type, not the field ("invalid boolean"):
    // record where in the document it failed, to name the field as well.
    let mut field = None;
    let manifest: Manifest =
        serde_saphyr::with_deserializer_from_str_with_options(text, options(), |de| {
            serde_path_to_error::deserialize(de).map_err(|e| {
                field = Some(e.path().to_string());
                e.into_inner()
            })
        })
        .map_err(|e| {
            let mut err = yaml_error(path, &e);
            if let Some(field) = field.filter(|f| f != ".") {
                err.message = name_field(&err.message, path, &field);
            }
            err
        })?;
    if let Err(e) = validate_with(&manifest, nesting) {
        let at = locate(text, &e.site);
        return Err(Error::at(path, at, e.describe()));
    }
    Ok(manifest)
}

/// `file:line:col: message` as `file:line:col: field: message`.
fn name_field(message: &str, path: &Path, field: &str) -> String {
    let file = path.display().to_string();
    let Some(rest) = message.strip_prefix(&file) else {
        return format!("{field}: {message}");
    };
    // Skip `:line:col` (or nothing), then the `: ` that starts the message.
    let digits_end = rest
        .char_indices()
        .find(|&(_, c)| !(c == ':' || c.is_ascii_digit()))
        .map_or(rest.len(), |(i, _)| i);
    let (position, text) = rest.split_at(digits_end);
    let position = position.strip_suffix(':').unwrap_or(position);
    format!("{file}{position}: {field}: {}", text.trim_start())
}

fn location(l: &serde_saphyr::Location) -> Option<(u32, u32)> {
    let (line, col) = (l.line(), l.column());
    (line > 0).then(|| (line as u32, col.max(1) as u32))
}

/// A serde-saphyr error as `file:line:col: message`.
fn yaml_error(path: &Path, e: &serde_saphyr::Error) -> Error {
    let mut msg = e.to_string();
    if msg.starts_with("multiple YAML documents detected") {
        let at = msg
            .find(" at line")
            .map_or(String::new(), |i| msg[i..].to_string());
        msg = format!("a manifest is one YAML document; this is a second one{at}");
    }
    // Options are ours to set, not the user's: drop serde-saphyr's hint.
    if let Some(i) = msg.find(", set DuplicateKeyPolicy") {
        msg.truncate(i);
    }
    match e.location() {
        Some(l) if l.line() > 0 => {
            let suffix = format!(" at line {}, column {}", l.line(), l.column());
            let msg = msg.strip_suffix(&suffix).unwrap_or(&msg);
            Error::at(path, location(&l), msg)
        }
        _ => Error::at(path, None, msg),
    }
}

/// Line of each list item, to point at the item a check refuses.
#[derive(Deserialize)]
struct Locator {
    #[serde(default)]
    sources: Vec<Spanned<IgnoredAny>>,
    #[serde(default)]
    rest_pose: Option<Spanned<IgnoredAny>>,
    #[serde(default)]
    joints: Vec<Spanned<IgnoredAny>>,
    #[serde(default)]
    links: Vec<Spanned<LinkLocator>>,
    #[serde(default)]
    acm: Vec<Spanned<IgnoredAny>>,
}

#[derive(Deserialize)]
struct LinkLocator {
    #[serde(default)]
    primitives: Vec<Spanned<IgnoredAny>>,
    #[serde(default)]
    fit: Option<Spanned<IgnoredAny>>,
}

fn locate(text: &str, site: &Site) -> Option<(u32, u32)> {
    let loc: Locator = serde_saphyr::from_str_with_options(text, options()).ok()?;
    let l = match *site {
        Site::Top => return None,
        Site::Source(i) => loc.sources.get(i)?.referenced,
        Site::RestPose => loc.rest_pose?.referenced,
        Site::Joint(i) => loc.joints.get(i)?.referenced,
        Site::Link(i) => loc.links.get(i)?.referenced,
        Site::Primitive(i, j) => loc.links.get(i)?.value.primitives.get(j)?.referenced,
        Site::Fit(i) => loc.links.get(i)?.value.fit.as_ref()?.referenced,
        Site::Acm(i) => loc.acm.get(i)?.referenced,
    };
    location(&l)
}
