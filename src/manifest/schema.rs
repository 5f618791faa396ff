//! The manifest's types: what the real-time kernel loads (schema in docs/manifest.md).

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_saphyr::{FlowMap, FlowSeq};
use std::fmt;

pub use crate::model::TruthGeometry;

/// The schema this code reads and writes.
pub const SCHEMA_VERSION: u32 = 1;
/// Most vertices a tight box's hull may have: the kernel's cap.
pub use crate::kernel::MAX_HULL_VERTICES;

/// The 26 unit directions of `dop26`, in order: the kernel's, the one definition.
pub fn dop26_directions() -> [[f64; 3]; 26] {
    crate::kernel::dop26::DIRECTIONS
}

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
    /// Which geometry the proofs were made on (the robot config's `truth:`); absent for the
    /// default, collision + visual, so older manifests keep their bytes.
    #[serde(default, skip_serializing_if = "TruthGeometry::is_default")]
    pub truth: TruthGeometry,
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
