//! The manifest: what the real-time kernel loads (schema in docs/manifest.md).
//!
//! Writing is deterministic: fields in a fixed order, joints and links in the
//! order given, floats in their shortest round-trip form, short records in
//! flow style. Loading is strict: an unknown field, a wrong type, a missing
//! field, a non-finite number, a wrong array length or an inconsistent record
//! is an error naming the file, the line and the field.

use crate::error::{Error, Result};
use crate::io::atomic::write_atomic;
use crate::kernel::vec3::{dot, mul_mtv, sub};
use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_saphyr::{FlowMap, FlowSeq, Spanned};
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::Path;

/// The schema this code reads and writes.
pub const SCHEMA_VERSION: u32 = 1;
/// Most vertices a tight box's hull may have: the kernel's cap.
pub use crate::kernel::MAX_HULL_VERTICES;
/// Slack allowed by the loader's containment checks (hull in DOP in box), in metres.
pub const CONTAINMENT_TOLERANCE_M: f64 = 1e-9;

/// The 26 unit directions of `dop26`, in order: the kernel's, the one definition.
pub fn dop26_directions() -> [[f64; 3]; 26] {
    crate::kernel::dop26::DIRECTIONS
}

/// R = Rz(yaw)·Ry(pitch)·Rx(roll) for `rpy = [roll, pitch, yaw]` (fixed axes).
pub use crate::kernel::vec3::rot_from_rpy as rpy_matrix;

// ---------------------------------------------------------------------------
// Schema

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub schema_version: u32,
    pub robot: String,
    pub generator: String,
    #[serde(serialize_with = "flow_items")]
    pub sources: Vec<Source>,
    pub headroom_m: f64,
    /// Clearance of tight hulls (0: exact hulls, grown only by rounding to 1 µm).
    #[serde(default)]
    pub hull_headroom_m: f64,
    pub margin_m: f64,
    pub rest_pose: RestPose,
    #[serde(serialize_with = "flow_items")]
    pub joints: Vec<Joint>,
    pub links: Vec<Link>,
    #[serde(serialize_with = "flow_items")]
    pub acm: Vec<AcmEntry>,
}

/// A file read to make the manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// As given in the robot config (`package://...`, relative or absolute).
    pub path: String,
    /// SHA-256 of the file's bytes, 64 lowercase hexadecimal digits.
    pub sha256: String,
    /// For a xacro source only (absent otherwise, so other manifests keep their bytes): what
    /// it expanded to, so a changed macro, included file or argument is a changed source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub xacro: Option<XacroSource>,
}

/// How a xacro source was expanded (see `io::xacro`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct XacroSource {
    /// SHA-256 of the expanded URDF in its canonical form, 64 lowercase hexadecimal digits.
    pub expanded_sha256: String,
    /// The arguments given (`NAME: VALUE`), sorted by name; the xacro's defaults are not listed.
    pub args: std::collections::BTreeMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RestPose {
    /// Joint values (rad or m), in joint order.
    pub q: JointValues,
    /// No pair outside the ACM is in contact at `q`.
    pub clear: bool,
    /// Smallest distance between checked pairs at `q` (negative: penetration depth).
    pub min_distance_m: f64,
}

/// An ordered map from joint name to value; duplicate names are refused.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct JointValues(pub Vec<(String, f64)>);

impl JointValues {
    pub fn get(&self, joint: &str) -> Option<f64> {
        self.0.iter().find(|(n, _)| n == joint).map(|(_, v)| *v)
    }
}

impl Serialize for JointValues {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

impl<'de> Deserialize<'de> for JointValues {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = JointValues;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map from joint name to value")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<JointValues, A::Error> {
                let mut values: Vec<(String, f64)> = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, f64>()? {
                    if values.iter().any(|(n, _)| *n == k) {
                        return Err(de::Error::custom(format!("joint `{k}` appears twice")));
                    }
                    values.push((k, v));
                }
                Ok(JointValues(values))
            }
        }
        d.deserialize_map(V)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JointKind {
    Revolute,
    Continuous,
    Prismatic,
    Fixed,
}

impl JointKind {
    pub fn as_str(self) -> &'static str {
        match self {
            JointKind::Revolute => "revolute",
            JointKind::Continuous => "continuous",
            JointKind::Prismatic => "prismatic",
            JointKind::Fixed => "fixed",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Joint {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: JointKind,
    pub parent: String,
    pub child: String,
    /// Joint frame (= child link frame at q = 0) in the parent link frame.
    pub origin_xyz: [f64; 3],
    pub origin_rpy: [f64; 3],
    /// Direction of motion in the joint frame (ignored for fixed joints).
    pub axis: [f64; 3],
    /// `[lower, upper]`: required for revolute and prismatic joints, absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<[f64; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mimic: Option<Mimic>,
    /// Point of the rotation axis in the joint frame when it is not the frame's
    /// origin (MJCF hinges with `pos`); revolute and continuous joints only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pivot: Option<[f64; 3]>,
}

/// `q = multiplier · q(joint) + offset`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mimic {
    pub joint: String,
    pub multiplier: f64,
    pub offset: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Link {
    pub name: String,
    /// In the link frame.
    pub primitives: Vec<Primitive>,
    pub fit: Fit,
}

// A manifest holds a few hundred primitives at most: plain arrays keep the
// API simple, the size does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Primitive {
    Capsule(Capsule),
    Box(BoxPrim),
}

/// The points within `radius` of the segment `a`–`b`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Capsule {
    pub a: [f64; 3],
    pub b: [f64; 3],
    pub radius: f64,
}

/// An oriented box; a tight box also carries a 26-DOP and a convex hull.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoxPrim {
    pub center: [f64; 3],
    pub rpy: [f64; 3],
    pub half_extents: [f64; 3],
    /// Support values in the box frame along [`dop26_directions`].
    #[serde(default)]
    pub dop26: Option<[f64; 26]>,
    /// Hull vertices in the link frame.
    #[serde(default)]
    pub hull: Option<Vec<[f64; 3]>>,
}

impl BoxPrim {
    /// The DOP and hull of a tight box.
    pub fn tight(&self) -> Option<(&[f64; 26], &[[f64; 3]])> {
        match (&self.dop26, &self.hull) {
            (Some(d), Some(h)) => Some((d, h)),
            _ => None,
        }
    }
}

#[derive(Serialize)]
struct CapsuleOut<'a> {
    kind: &'static str,
    #[serde(serialize_with = "flow")]
    a: &'a [f64; 3],
    #[serde(serialize_with = "flow")]
    b: &'a [f64; 3],
    radius: f64,
}

#[derive(Serialize)]
struct BoxOut<'a> {
    kind: &'static str,
    #[serde(serialize_with = "flow")]
    center: &'a [f64; 3],
    #[serde(serialize_with = "flow")]
    rpy: &'a [f64; 3],
    #[serde(serialize_with = "flow")]
    half_extents: &'a [f64; 3],
    #[serde(serialize_with = "flow_opt", skip_serializing_if = "Option::is_none")]
    dop26: Option<&'a [f64; 26]>,
    #[serde(
        serialize_with = "flow_rows_opt",
        skip_serializing_if = "Option::is_none"
    )]
    hull: Option<&'a Vec<[f64; 3]>>,
}

impl Serialize for Primitive {
    /// Capsules and plain boxes on one line; tight boxes as a block with one
    /// hull vertex per line.
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Primitive::Capsule(c) => FlowMap(CapsuleOut {
                kind: "capsule",
                a: &c.a,
                b: &c.b,
                radius: c.radius,
            })
            .serialize(s),
            Primitive::Box(b) => {
                let out = BoxOut {
                    kind: "box",
                    center: &b.center,
                    rpy: &b.rpy,
                    half_extents: &b.half_extents,
                    dop26: b.dop26.as_ref(),
                    hull: b.hull.as_ref(),
                };
                if b.dop26.is_none() && b.hull.is_none() {
                    FlowMap(out).serialize(s)
                } else {
                    out.serialize(s)
                }
            }
        }
    }
}

/// What was chosen for a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FitChoice {
    #[serde(rename = "capsule")]
    Capsule,
    #[serde(rename = "capsule_chain_2")]
    CapsuleChain2,
    #[serde(rename = "capsule_chain_3")]
    CapsuleChain3,
    #[serde(rename = "box")]
    Box,
    /// `--tight-link`: one tight box per slab.
    #[serde(rename = "tight_box")]
    TightBox,
}

impl FitChoice {
    pub fn as_str(self) -> &'static str {
        match self {
            FitChoice::Capsule => "capsule",
            FitChoice::CapsuleChain2 => "capsule_chain_2",
            FitChoice::CapsuleChain3 => "capsule_chain_3",
            FitChoice::Box => "box",
            FitChoice::TightBox => "tight_box",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fit {
    pub choice: FitChoice,
    /// Why the link got this geometry: the fit rule, a refinement's
    /// measurement (`pair a/b: 41 % false stops`) or a flag.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// `None` (not written) when the link's hull has no volume: a flat or degenerate link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vol_ratio: Option<f64>,
    pub max_protrusion_m: f64,
    pub mean_protrusion_m: f64,
    pub min_margin_m: f64,
    /// Size of the link's truth geometry.
    pub vertices: u64,
    pub triangles: u64,
    #[serde(serialize_with = "flow_items")]
    pub candidates: Vec<Candidate>,
    /// Tight links whose exact hull had more than 320 vertices: how far the
    /// written hull stands off the exact one (m, 6 decimals).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hull_excess_m: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Candidate {
    /// Never `tight_box`: tight fits are asked for, not measured against the others.
    pub kind: FitChoice,
    /// `None` (not written) when the link's hull has no volume: a flat or degenerate link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vol_ratio: Option<f64>,
    pub max_protrusion_m: f64,
    pub mean_protrusion_m: f64,
}

/// A pair of links the kernel does not check against each other.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AcmEntry {
    pub a: String,
    pub b: String,
    pub reason: String,
    pub proof: String,
}

fn flow<S: Serializer, T: Serialize + ?Sized>(v: &T, s: S) -> std::result::Result<S::Ok, S::Error> {
    FlowSeq(v).serialize(s)
}

fn flow_opt<S: Serializer, T: Serialize>(
    v: &Option<T>,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    FlowSeq(v).serialize(s)
}

fn flow_rows_opt<S: Serializer>(
    v: &Option<&Vec<[f64; 3]>>,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    s.collect_seq(v.iter().flat_map(|rows| rows.iter()).map(FlowSeq))
}

fn flow_items<S: Serializer, T: Serialize>(v: &[T], s: S) -> std::result::Result<S::Ok, S::Error> {
    s.collect_seq(v.iter().map(FlowMap))
}

// ---------------------------------------------------------------------------
// Writing

impl Manifest {
    /// Every float of the manifest, for normalisation.
    fn floats_mut(&mut self, f: &mut dyn FnMut(&mut f64)) {
        f(&mut self.headroom_m);
        f(&mut self.hull_headroom_m);
        f(&mut self.margin_m);
        f(&mut self.rest_pose.min_distance_m);
        self.rest_pose.q.0.iter_mut().for_each(|(_, v)| f(v));
        for j in &mut self.joints {
            j.origin_xyz
                .iter_mut()
                .chain(&mut j.origin_rpy)
                .chain(&mut j.axis)
                .for_each(&mut *f);
            j.limits.iter_mut().flatten().for_each(&mut *f);
            j.pivot.iter_mut().flatten().for_each(&mut *f);
            if let Some(m) = &mut j.mimic {
                f(&mut m.multiplier);
                f(&mut m.offset);
            }
        }
        for l in &mut self.links {
            for p in &mut l.primitives {
                match p {
                    Primitive::Capsule(c) => {
                        c.a.iter_mut().chain(&mut c.b).for_each(&mut *f);
                        f(&mut c.radius);
                    }
                    Primitive::Box(b) => {
                        b.center
                            .iter_mut()
                            .chain(&mut b.rpy)
                            .chain(&mut b.half_extents)
                            .for_each(&mut *f);
                        b.dop26.iter_mut().flatten().for_each(&mut *f);
                        b.hull.iter_mut().flatten().flatten().for_each(&mut *f);
                    }
                }
            }
            let fit = &mut l.fit;
            fit.vol_ratio.iter_mut().for_each(&mut *f);
            for x in [
                &mut fit.max_protrusion_m,
                &mut fit.mean_protrusion_m,
                &mut fit.min_margin_m,
            ] {
                f(x);
            }
            fit.hull_excess_m.iter_mut().for_each(&mut *f);
            for c in &mut fit.candidates {
                c.vol_ratio.iter_mut().for_each(&mut *f);
                for x in [&mut c.max_protrusion_m, &mut c.mean_protrusion_m] {
                    f(x);
                }
            }
        }
    }
}

/// The manifest as YAML text, after [`validate`]: a manifest the loader would
/// refuse is never written. `-0.0` is written as `0.0`.
pub fn to_yaml(manifest: &Manifest) -> Result<String> {
    validate(manifest).map_err(|e| {
        Error::check(format!(
            "refusing to write an invalid manifest: {}",
            e.describe()
        ))
    })?;
    let mut m = manifest.clone();
    m.floats_mut(&mut |x| *x += 0.0);
    // Lists indented under their key, as in the example.
    let options = serde_saphyr::ser_options! { compact_list_indent: false };
    serde_saphyr::to_string_with_options(&m, options)
        .map_err(|e| Error::check(format!("cannot render the manifest as YAML: {e}")))
}

/// Writes the manifest atomically (see [`write_atomic`]).
pub fn write_manifest(path: &Path, manifest: &Manifest) -> Result<()> {
    let text = to_yaml(manifest).map_err(|e| Error {
        message: format!("{}: {}", path.display(), e.message),
        ..e
    })?;
    write_atomic(path, text.as_bytes())
}

// ---------------------------------------------------------------------------
// Loading

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

// ---------------------------------------------------------------------------
// Checks

/// Where in the document a check failed, for its line number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Site {
    Top,
    Source(usize),
    RestPose,
    Joint(usize),
    Link(usize),
    Primitive(usize, usize),
    Fit(usize),
    Acm(usize),
}

/// A failed check: where, which field, what is wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct Invalid {
    pub site: Site,
    /// The field, as a path: `links[3] (panda_link4).primitives[1].hull[17]`.
    pub field: String,
    pub problem: String,
}

impl Invalid {
    pub fn describe(&self) -> String {
        format!("{}: {}", self.field, self.problem)
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

struct Checker {
    site: Site,
    field: String,
}

impl Checker {
    fn fail(&self, sub: &str, problem: impl Into<String>) -> Invalid {
        let field = if sub.is_empty() {
            self.field.clone()
        } else if self.field.is_empty() {
            sub.to_string()
        } else {
            format!("{}.{sub}", self.field)
        };
        Invalid {
            site: self.site,
            field,
            problem: problem.into(),
        }
    }

    fn finite(&self, sub: &str, values: &[f64]) -> std::result::Result<(), Invalid> {
        match values.iter().find(|x| !x.is_finite()) {
            Some(x) => Err(self.fail(sub, format!("{x} is not a finite number"))),
            None => Ok(()),
        }
    }

    fn name(&self, sub: &str, name: &str) -> std::result::Result<(), Invalid> {
        if name.trim().is_empty() {
            return Err(self.fail(sub, "must not be empty"));
        }
        Ok(())
    }
}

/// Checks everything the loader promises beyond types: finite numbers, sizes,
/// names that resolve, a joint tree in topological order, primitives that
/// make sense, hull within DOP within box.
pub fn validate(m: &Manifest) -> std::result::Result<(), Invalid> {
    validate_with(m, true)
}

/// Every tight box's hull within its DOP within its box, on a manifest that passed
/// [`validate`]'s other checks: the first failure of each link. A well-formed manifest
/// that fails here is a broken proof (what `verify` reports), not unreadable text.
pub fn nesting_failures(m: &Manifest) -> Vec<(String, Invalid)> {
    let dirs = dop26_directions();
    let mut out = Vec::new();
    for (i, l) in m.links.iter().enumerate() {
        let failed = l.primitives.iter().enumerate().find_map(|(k, p)| {
            let Primitive::Box(b) = p else { return None };
            let c = Checker {
                site: Site::Primitive(i, k),
                field: format!("primitives[{k}]"),
            };
            check_box_nesting(&c, b, &dirs).err()
        });
        out.extend(failed.map(|e| (l.name.clone(), e)));
    }
    out
}

fn validate_with(m: &Manifest, nesting: bool) -> std::result::Result<(), Invalid> {
    let top = Checker {
        site: Site::Top,
        field: String::new(),
    };
    if m.schema_version != SCHEMA_VERSION {
        return Err(top.fail(
            "schema_version",
            format!(
                "{} is not supported (expected {SCHEMA_VERSION})",
                m.schema_version
            ),
        ));
    }
    top.name("robot", &m.robot)?;
    top.name("generator", &m.generator)?;
    top.finite("headroom_m", &[m.headroom_m])?;
    top.finite("hull_headroom_m", &[m.hull_headroom_m])?;
    top.finite("margin_m", &[m.margin_m])?;
    if m.headroom_m < 0.0 {
        return Err(top.fail("headroom_m", "must not be negative"));
    }
    if m.hull_headroom_m < 0.0 {
        return Err(top.fail("hull_headroom_m", "must not be negative"));
    }
    if m.margin_m < 0.0 {
        return Err(top.fail("margin_m", "must not be negative"));
    }
    for (i, s) in m.sources.iter().enumerate() {
        let c = Checker {
            site: Site::Source(i),
            field: format!("sources[{i}]"),
        };
        c.name("path", &s.path)?;
        let digests = std::iter::once(("sha256", &s.sha256)).chain(
            s.xacro
                .as_ref()
                .map(|x| ("xacro.expanded_sha256", &x.expanded_sha256)),
        );
        for (field, sha) in digests {
            if sha.len() != 64
                || !sha
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
            {
                return Err(c.fail(
                    field,
                    format!("`{sha}` is not 64 lowercase hexadecimal digits"),
                ));
            }
        }
    }

    // Joints: a tree in topological order.
    let mut joint_index: HashMap<&str, usize> = HashMap::new();
    let mut children: HashSet<&str> = HashSet::new();
    let mut tree_links: Vec<&str> = Vec::new();
    let root = m.joints.first().map(|j| j.parent.as_str());
    if let Some(r) = root {
        tree_links.push(r);
    }
    for (i, j) in m.joints.iter().enumerate() {
        let c = Checker {
            site: Site::Joint(i),
            field: format!("joints[{i}] ({})", j.name),
        };
        c.name("name", &j.name)?;
        c.name("parent", &j.parent)?;
        c.name("child", &j.child)?;
        if joint_index.insert(&j.name, i).is_some() {
            return Err(c.fail("name", format!("joint `{}` is defined twice", j.name)));
        }
        c.finite("origin_xyz", &j.origin_xyz)?;
        c.finite("origin_rpy", &j.origin_rpy)?;
        c.finite("axis", &j.axis)?;
        if j.kind != JointKind::Fixed && dot(j.axis, j.axis) == 0.0 {
            return Err(c.fail("axis", "must not be zero"));
        }
        match (j.kind, &j.limits) {
            (JointKind::Revolute | JointKind::Prismatic, None) => {
                return Err(c.fail(
                    "limits",
                    format!("a {} joint needs limits [lower, upper]", j.kind.as_str()),
                ));
            }
            (JointKind::Revolute | JointKind::Prismatic, Some(l)) => {
                c.finite("limits", l)?;
                if l[0] > l[1] {
                    return Err(c.fail("limits", format!("lower {} is above upper {}", l[0], l[1])));
                }
            }
            (kind, Some(_)) => {
                return Err(c.fail("limits", format!("a {} joint has no limits", kind.as_str())));
            }
            (_, None) => {}
        }
        if let Some(p) = &j.pivot {
            if !matches!(j.kind, JointKind::Revolute | JointKind::Continuous) {
                return Err(c.fail(
                    "pivot",
                    format!(
                        "only revolute and continuous joints have a pivot, not a {} one",
                        j.kind.as_str()
                    ),
                ));
            }
            c.finite("pivot", p)?;
        }
        if let Some(mm) = &j.mimic {
            c.finite("mimic", &[mm.multiplier, mm.offset])?;
            if j.kind == JointKind::Fixed {
                return Err(c.fail("mimic", "a fixed joint cannot mimic"));
            }
        }
        if j.parent == j.child {
            return Err(c.fail("child", "is its own parent"));
        }
        if Some(j.parent.as_str()) != root && !children.contains(j.parent.as_str()) {
            let why = if m.joints.iter().any(|k| k.child == j.parent) {
                "comes before the joint that places it (joints must be in topological order)"
                    .to_string()
            } else {
                format!(
                    "is neither the root `{}` nor a child of another joint (more than one root)",
                    root.unwrap_or("")
                )
            };
            return Err(c.fail("parent", format!("`{}` {why}", j.parent)));
        }
        if Some(j.child.as_str()) == root || !children.insert(&j.child) {
            return Err(c.fail("child", format!("link `{}` already has a parent", j.child)));
        }
        tree_links.push(&j.child);
    }
    for (i, j) in m.joints.iter().enumerate() {
        let Some(mm) = &j.mimic else { continue };
        let c = Checker {
            site: Site::Joint(i),
            field: format!("joints[{i}] ({}).mimic", j.name),
        };
        let Some(&leader) = joint_index.get(mm.joint.as_str()) else {
            return Err(c.fail("joint", format!("names unknown joint `{}`", mm.joint)));
        };
        if leader == i {
            return Err(c.fail("joint", "a joint cannot mimic itself"));
        }
        // Follow the leaders: a chain must end at a joint that mimics nothing.
        let mut seen = vec![i];
        let mut k = leader;
        while let Some(next) = &m.joints[k].mimic {
            if seen.contains(&k) {
                return Err(c.fail("joint", "mimic joints form a cycle"));
            }
            seen.push(k);
            match joint_index.get(next.joint.as_str()) {
                Some(&n) => k = n,
                None => break, // reported at that joint
            }
        }
        if m.joints[leader].kind == JointKind::Fixed {
            return Err(c.fail("joint", format!("leader `{}` is a fixed joint", mm.joint)));
        }
    }

    // Rest pose.
    let c = Checker {
        site: Site::RestPose,
        field: "rest_pose".to_string(),
    };
    c.finite("min_distance_m", &[m.rest_pose.min_distance_m])?;
    for (name, value) in &m.rest_pose.q.0 {
        let sub = format!("q.{name}");
        c.finite(&sub, &[*value])?;
        let Some(&ji) = joint_index.get(name.as_str()) else {
            return Err(c.fail(&sub, "names no joint of the manifest"));
        };
        let j = &m.joints[ji];
        if j.kind == JointKind::Fixed {
            return Err(c.fail(&sub, "is a fixed joint"));
        }
        if let Some([lo, hi]) = j.limits
            && (*value < lo || *value > hi)
        {
            return Err(c.fail(
                &sub,
                format!("{value} is outside the joint's limits [{lo}, {hi}]"),
            ));
        }
    }

    // Links.
    let mut link_names: HashSet<&str> = HashSet::new();
    let dirs = dop26_directions();
    for (i, l) in m.links.iter().enumerate() {
        let c = Checker {
            site: Site::Link(i),
            field: format!("links[{i}] ({})", l.name),
        };
        c.name("name", &l.name)?;
        if !link_names.insert(&l.name) {
            return Err(c.fail("name", format!("link `{}` is listed twice", l.name)));
        }
        if !m.joints.is_empty() && !tree_links.contains(&l.name.as_str()) {
            return Err(c.fail(
                "name",
                format!("`{}` is not a link of the joint tree", l.name),
            ));
        }
        if l.primitives.is_empty() {
            return Err(c.fail("primitives", "must not be empty"));
        }
        for (k, p) in l.primitives.iter().enumerate() {
            let c = Checker {
                site: Site::Primitive(i, k),
                field: format!("links[{i}] ({}).primitives[{k}]", l.name),
            };
            check_primitive(&c, p, &dirs, nesting)?;
        }
        check_fit(i, l)?;
    }

    // ACM.
    let mut pairs: HashSet<(&str, &str)> = HashSet::new();
    for (i, e) in m.acm.iter().enumerate() {
        let c = Checker {
            site: Site::Acm(i),
            field: format!("acm[{i}]"),
        };
        for (sub, name) in [("a", &e.a), ("b", &e.b)] {
            if !link_names.contains(name.as_str()) {
                return Err(c.fail(sub, format!("`{name}` is not a link of the manifest")));
            }
        }
        if e.a == e.b {
            return Err(c.fail("b", "a link is paired with itself"));
        }
        c.name("reason", &e.reason)?;
        c.name("proof", &e.proof)?;
        let key = if e.a < e.b {
            (e.a.as_str(), e.b.as_str())
        } else {
            (e.b.as_str(), e.a.as_str())
        };
        if !pairs.insert(key) {
            return Err(c.fail("", format!("pair {} / {} is listed twice", e.a, e.b)));
        }
    }
    Ok(())
}

fn check_primitive(
    c: &Checker,
    p: &Primitive,
    dirs: &[[f64; 3]; 26],
    nesting: bool,
) -> std::result::Result<(), Invalid> {
    match p {
        Primitive::Capsule(cap) => {
            c.finite("a", &cap.a)?;
            c.finite("b", &cap.b)?;
            c.finite("radius", &[cap.radius])?;
            if cap.radius <= 0.0 {
                return Err(c.fail("radius", format!("{} is not positive", cap.radius)));
            }
        }
        Primitive::Box(b) => {
            c.finite("center", &b.center)?;
            c.finite("rpy", &b.rpy)?;
            c.finite("half_extents", &b.half_extents)?;
            if let Some(h) = b.half_extents.iter().find(|h| **h <= 0.0) {
                return Err(c.fail("half_extents", format!("{h} is not positive")));
            }
            let (dop, hull) = match (&b.dop26, &b.hull) {
                (None, None) => return Ok(()),
                (Some(_), None) => {
                    return Err(c.fail("hull", "a box with dop26 needs its hull too"));
                }
                (None, Some(_)) => {
                    return Err(c.fail("dop26", "a box with a hull needs its dop26 too"));
                }
                (Some(d), Some(h)) => (d, h),
            };
            c.finite("dop26", dop)?;
            if hull.is_empty() || hull.len() > MAX_HULL_VERTICES {
                return Err(c.fail(
                    "hull",
                    format!(
                        "has {} vertices; 1 to {MAX_HULL_VERTICES} allowed",
                        hull.len()
                    ),
                ));
            }
            for (v, p) in hull.iter().enumerate() {
                c.finite(&format!("hull[{v}]"), p)?;
            }
            if nesting {
                check_box_nesting(c, b, dirs)?;
            }
        }
    }
    Ok(())
}

/// A tight box's DOP within the box, its hull within both (nothing to check on a plain box).
fn check_box_nesting(
    c: &Checker,
    b: &BoxPrim,
    dirs: &[[f64; 3]; 26],
) -> std::result::Result<(), Invalid> {
    let (Some(dop), Some(hull)) = (&b.dop26, &b.hull) else {
        return Ok(());
    };
    let r = rpy_matrix(b.rpy);
    let half = b.half_extents;
    // DOP within box: its supports along ±x, ±y, ±z.
    for k in 0..6 {
        if dop[k] > half[k / 2] + CONTAINMENT_TOLERANCE_M {
            return Err(c.fail(
                &format!("dop26[{k}]"),
                format!("{} exceeds the box's half extent {}", dop[k], half[k / 2]),
            ));
        }
    }
    for (v, p) in hull.iter().enumerate() {
        // In the box frame: R^T (p - center).
        let q = mul_mtv(&r, sub(*p, b.center));
        let out = (0..3)
            .map(|k| q[k].abs() - half[k])
            .fold(f64::NEG_INFINITY, f64::max);
        if out > CONTAINMENT_TOLERANCE_M {
            return Err(c.fail(
                &format!("hull[{v}]"),
                format!(
                    "vertex [{}, {}, {}] lies {out:.3e} m outside its box",
                    p[0], p[1], p[2]
                ),
            ));
        }
        for (k, u) in dirs.iter().enumerate() {
            let excess = dot(*u, q) - dop[k];
            if excess > CONTAINMENT_TOLERANCE_M {
                return Err(c.fail(
                    &format!("hull[{v}]"),
                    format!(
                        "vertex [{}, {}, {}] lies {excess:.3e} m outside dop26[{k}]",
                        p[0], p[1], p[2]
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn check_fit(i: usize, l: &Link) -> std::result::Result<(), Invalid> {
    let f = &l.fit;
    let c = Checker {
        site: Site::Fit(i),
        field: format!("links[{i}] ({}).fit", l.name),
    };
    c.finite(
        "",
        &[
            f.vol_ratio.unwrap_or(0.0),
            f.max_protrusion_m,
            f.mean_protrusion_m,
            f.min_margin_m,
        ],
    )?;
    if let Some(x) = f.hull_excess_m {
        c.finite("hull_excess_m", &[x])?;
    }
    let capsules = l
        .primitives
        .iter()
        .filter(|p| matches!(p, Primitive::Capsule(_)))
        .count();
    let plain_boxes = l
        .primitives
        .iter()
        .filter(|p| matches!(p, Primitive::Box(b) if b.tight().is_none()))
        .count();
    let tight_boxes = l.primitives.len() - capsules - plain_boxes;
    let n = l.primitives.len();
    let ok = match f.choice {
        FitChoice::Capsule => capsules == 1 && n == 1,
        FitChoice::CapsuleChain2 => capsules == 2 && n == 2,
        FitChoice::CapsuleChain3 => capsules == 3 && n == 3,
        FitChoice::Box => plain_boxes == 1 && n == 1,
        FitChoice::TightBox => tight_boxes == n,
    };
    if !ok {
        return Err(c.fail(
            "choice",
            format!(
                "{} does not match the primitives ({capsules} capsules, {plain_boxes} boxes, {tight_boxes} tight boxes)",
                f.choice.as_str()
            ),
        ));
    }
    let mut kinds = HashSet::new();
    for (k, cand) in f.candidates.iter().enumerate() {
        let sub = format!("candidates[{k}]");
        c.finite(
            &sub,
            &[
                cand.vol_ratio.unwrap_or(0.0),
                cand.max_protrusion_m,
                cand.mean_protrusion_m,
            ],
        )?;
        if !kinds.insert(cand.kind) {
            return Err(c.fail(&sub, format!("candidate {:?} is listed twice", cand.kind)));
        }
    }
    Ok(())
}
