//! MJCF reader: the body tree of `worldbody` as links and joints.
//!
//! Bodies are links and joints keep their names. A body with several joints
//! becomes a chain of frames `BODY/JOINT` ending in the body itself; a ball joint
//! becomes three hinges `NAME_x`, `NAME_y`, `NAME_z`; a body without joints is
//! welded to its parent by a fixed joint `BODY_weld`; a free joint is a weld
//! (self-collision is checked in the base frame).

use super::package::PackageResolver;
use super::xml::{Attribute, Element, XmlLimits, parse_file, parse_floats, parse_str};
use crate::error::Location;
use crate::error::Result;
use crate::model::rotation::{axis_angle, quat_to_rpy, quat_wxyz, z_onto};
use crate::model::{
    GeometryPiece, Joint, JointKind, Link, Mimic, Pose, Robot, Role, Shape, SourceFormat,
    build_tree,
};
use nalgebra::{Matrix3, Rotation3, Translation3, UnitQuaternion, Vector3};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Limits on `<include>`: nesting depth (`--max-include-depth`).
#[derive(Debug, Clone, Copy)]
pub struct MjcfLimits {
    pub xml: XmlLimits,
    pub max_include_depth: usize,
}

impl Default for MjcfLimits {
    fn default() -> Self {
        MjcfLimits {
            xml: XmlLimits::default(),
            max_include_depth: 16,
        }
    }
}

pub fn read_mjcf(path: &Path, resolver: &PackageResolver, limits: &MjcfLimits) -> Result<Robot> {
    let bytes = std::fs::metadata(path).map_or(0, |m| m.len());
    robot_from_xml(
        parse_file(path, &limits.xml)?,
        bytes,
        path,
        resolver,
        limits,
    )
}

/// [`read_mjcf`] on text already in memory (fuzzing, tests): `path` names it in
/// errors and is where includes and relative mesh references are resolved from.
pub fn parse_mjcf(
    text: &str,
    path: &Path,
    resolver: &PackageResolver,
    limits: &MjcfLimits,
) -> Result<Robot> {
    let bytes = text.len() as u64;
    robot_from_xml(
        parse_str(text, path, &limits.xml)?,
        bytes,
        path,
        resolver,
        limits,
    )
}

/// The robot of a parsed main model file of `bytes` bytes.
fn robot_from_xml(
    raw: Element,
    bytes: u64,
    path: &Path,
    resolver: &PackageResolver,
    limits: &MjcfLimits,
) -> Result<Robot> {
    if raw.name != "mujoco" {
        return Err(raw.location.error(format!(
            "expected an MJCF <mujoco> root element, found <{}>",
            raw.name
        )));
    }
    let mut splicer = Splicer {
        main_dir: path.parent().map(Path::to_path_buf).unwrap_or_default(),
        limits,
        stack: vec![canonical(path)],
        files: vec![path.to_path_buf()],
        bytes,
    };
    let root = splicer.expand(raw, 1)?;
    let files = splicer.files;
    let mut reader = Reader::new(path, resolver);
    reader.read_compiler(&root)?;
    reader.read_defaults(&root)?;
    reader.read_assets(&root)?;
    let name = root.attr("model").unwrap_or("mjcf").to_string();
    reader.links.push(Link {
        name: "world".into(),
        parent_joint: None,
        geometry: Vec::new(),
    });
    for wb in root.children_named("worldbody") {
        reader.read_body_contents(wb, 0, "main", Pose::identity())?;
    }
    reader.read_equalities(&root)?;
    let Reader {
        links,
        joints,
        warnings,
        ..
    } = reader;
    let mut robot = build_tree(
        name,
        SourceFormat::Mjcf,
        path.to_path_buf(),
        links,
        joints,
        warnings,
    )?;
    robot.files = files;
    Ok(robot)
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Most `<include>`s one model may expand (counting a file each time it is
/// included): a few files that include each other many times over would
/// otherwise splice an exponentially large model (an "include bomb").
pub const MAX_INCLUDES: usize = 1000;

/// The state of splicing a model's includes.
struct Splicer<'a> {
    main_dir: PathBuf,
    limits: &'a MjcfLimits,
    /// The include chain being expanded, canonical paths (cycle detection).
    stack: Vec<PathBuf>,
    /// Every file read, main model first, once per inclusion.
    files: Vec<PathBuf>,
    /// Bytes of XML spliced so far, main model included.
    bytes: u64,
}

impl Splicer<'_> {
    /// Splices every `<include>` below `el`, which is at nesting `depth` (the
    /// root is 1). The depth and size limits hold for the model with its
    /// includes spliced in, not only for each file: the readers recurse
    /// through the whole tree, and a file may be included many times.
    fn expand(&mut self, mut el: Element, depth: usize) -> Result<Element> {
        let limits = self.limits;
        if depth > limits.xml.max_depth.min(super::xml::MAX_XML_DEPTH_CEILING) {
            return Err(el.location.error(format!(
                "{}, counting the levels of the files that include it",
                super::xml::depth_message(&limits.xml)
            )));
        }
        let mut out = Vec::with_capacity(el.children.len());
        for child in std::mem::take(&mut el.children) {
            if child.name != "include" {
                out.push(self.expand(child, depth + 1)?);
                continue;
            }
            let file = child.required("file")?;
            // MuJoCo resolves includes against the main model's directory.
            let target = self.main_dir.join(file);
            super::package::check_file(&target)
                .map_err(|why| child.location.error(format!("include `{file}` {why}")))?;
            let key = canonical(&target);
            if self.stack.contains(&key) {
                return Err(child
                    .location
                    .error(format!("include cycle: `{file}` includes itself")));
            }
            if self.stack.len() > limits.max_include_depth {
                return Err(child.location.error(format!(
                    "includes nested deeper than {} (raise it with --max-include-depth)",
                    limits.max_include_depth
                )));
            }
            if self.files.len() > MAX_INCLUDES {
                return Err(child.location.error(format!(
                    "more than {MAX_INCLUDES} includes expanded in one model (files included many times over?)"
                )));
            }
            self.bytes += std::fs::metadata(&target).map_or(0, |m| m.len());
            if self.bytes > limits.xml.max_bytes {
                return Err(child.location.error(format!(
                    "with its includes the model is over the XML size limit of {} bytes (raise it with --max-xml-bytes)",
                    limits.xml.max_bytes
                )));
            }
            self.files.push(target.clone());
            let included = parse_file(&target, &limits.xml)?;
            self.stack.push(key);
            // The included root stands for `el`: its children land beside `child`.
            let included = self.expand(included, depth)?;
            self.stack.pop();
            out.extend(included.children);
        }
        el.children = out;
        Ok(el)
    }
}

#[derive(Clone, Copy, PartialEq)]
enum AngleUnit {
    Degree,
    Radian,
}

struct MeshAsset {
    uri: String,
    path: PathBuf,
    scale: [f64; 3],
}

/// A default class: its parent class and, per element tag, the attributes it sets.
type DefaultClass = (Option<String>, HashMap<String, Vec<Attribute>>);

struct Reader<'a> {
    source: &'a Path,
    resolver: &'a PackageResolver,
    angle: AngleUnit,
    eulerseq: String,
    meshdir: PathBuf,
    autolimits: bool,
    /// class -> (parent class, element tag -> attributes set at that level)
    defaults: HashMap<String, DefaultClass>,
    meshes: HashMap<String, MeshAsset>,
    links: Vec<Link>,
    joints: Vec<Joint>,
    joint_by_name: HashMap<String, usize>,
    link_by_name: HashMap<String, usize>,
    warnings: Vec<String>,
}

/// An element's attributes with its default class applied.
struct Resolved<'e> {
    el: &'e Element,
    inherited: Vec<Attribute>,
}

impl Resolved<'_> {
    fn attribute(&self, name: &str) -> Option<&Attribute> {
        self.el
            .attribute(name)
            .or_else(|| self.inherited.iter().rev().find(|a| a.name == name))
    }
    fn attr(&self, name: &str) -> Option<&str> {
        self.attribute(name).map(|a| a.value.as_str())
    }
    fn floats(&self, name: &str, count: usize) -> Result<Option<Vec<f64>>> {
        self.attribute(name)
            .map(|a| parse_floats(a, count))
            .transpose()
    }
    fn vec3(&self, name: &str) -> Result<Option<[f64; 3]>> {
        Ok(self.floats(name, 3)?.map(|v| [v[0], v[1], v[2]]))
    }
}

impl<'a> Reader<'a> {
    fn new(source: &'a Path, resolver: &'a PackageResolver) -> Self {
        Reader {
            source,
            resolver,
            angle: AngleUnit::Degree,
            eulerseq: "xyz".into(),
            meshdir: PathBuf::new(),
            autolimits: true,
            defaults: HashMap::new(),
            meshes: HashMap::new(),
            links: Vec::new(),
            joints: Vec::new(),
            joint_by_name: HashMap::new(),
            link_by_name: HashMap::new(),
            warnings: Vec::new(),
        }
    }

    fn read_compiler(&mut self, root: &Element) -> Result<()> {
        for c in root.children_named("compiler") {
            if let Some(a) = c.attr("angle") {
                self.angle = match a {
                    "degree" => AngleUnit::Degree,
                    "radian" => AngleUnit::Radian,
                    other => {
                        return Err(c.location.error(format!(
                            "compiler angle=\"{other}\" is neither degree nor radian"
                        )));
                    }
                };
            }
            if let Some(s) = c.attr("eulerseq") {
                if s.len() != 3 || !s.chars().all(|ch| "xyzXYZ".contains(ch)) {
                    return Err(c.location.error(format!(
                        "compiler eulerseq=\"{s}\" is not three of x, y, z, X, Y, Z"
                    )));
                }
                self.eulerseq = s.to_string();
            }
            if let Some(dir) = c.attr("meshdir").or(c.attr("assetdir")) {
                // Relative to the main model file, which the resolver joins on.
                self.meshdir = PathBuf::from(dir);
            }
            if let Some(v) = c.attr("autolimits") {
                self.autolimits = v == "true";
            }
        }
        Ok(())
    }

    fn read_defaults(&mut self, root: &Element) -> Result<()> {
        for d in root.children_named("default") {
            self.read_default(d, None)?;
        }
        Ok(())
    }

    fn read_default(&mut self, d: &Element, parent: Option<&str>) -> Result<()> {
        let class = match (d.attr("class"), parent) {
            (Some(c), _) => c.to_string(),
            (None, None) => "main".to_string(),
            (None, Some(_)) => return Err(d.location.error("a nested <default> needs a `class`")),
        };
        if self.defaults.contains_key(&class) && class != "main" {
            return Err(d
                .location
                .error(format!("default class `{class}` is defined twice")));
        }
        let mut by_tag: HashMap<String, Vec<Attribute>> = HashMap::new();
        for child in &d.children {
            if child.name != "default" {
                by_tag
                    .entry(child.name.clone())
                    .or_default()
                    .extend(child.attributes.iter().cloned());
            }
        }
        // The top level <default> is "main" whether or not it names itself.
        let parent_class = parent.map(str::to_string);
        self.defaults.insert(class.clone(), (parent_class, by_tag));
        for child in d.children_named("default") {
            self.read_default(child, Some(&class))?;
        }
        Ok(())
    }

    /// Attributes for `el` from its class (or the enclosing `childclass`), outermost first.
    fn resolve<'e>(&self, el: &'e Element, childclass: &str) -> Result<Resolved<'e>> {
        let class = el.attr("class").unwrap_or(childclass);
        let mut chain = Vec::new();
        let mut current = Some(class.to_string());
        while let Some(c) = current {
            let Some((parent, _)) = self.defaults.get(&c) else {
                if c == "main" {
                    break;
                }
                return Err(el.location.error(format!("unknown default class `{c}`")));
            };
            chain.push(c.clone());
            current = parent.clone().or_else(|| {
                if c == "main" {
                    None
                } else {
                    Some("main".into())
                }
            });
            if chain.len() > 256 {
                return Err(el.location.error("default classes nest in a cycle"));
            }
        }
        let mut inherited = Vec::new();
        for c in chain.iter().rev() {
            if let Some(attrs) = self.defaults.get(c).and_then(|(_, t)| t.get(&el.name)) {
                inherited.extend(attrs.iter().cloned());
            }
        }
        Ok(Resolved { el, inherited })
    }

    fn read_assets(&mut self, root: &Element) -> Result<()> {
        for asset in root.children_named("asset") {
            for m in asset.children_named("mesh") {
                let r = self.resolve(m, "main")?;
                let Some(file_attr) = r.attribute("file") else {
                    self.warnings.push(format!(
                        "{}: mesh without a file (inline vertices) is skipped",
                        m.location
                    ));
                    continue;
                };
                let file = file_attr.value.clone();
                let name = match m.attr("name") {
                    Some(n) => n.to_string(),
                    None => Path::new(&file)
                        .file_stem()
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                };
                let scale = r.vec3("scale")?.unwrap_or([1.0; 3]);
                if scale.contains(&0.0) {
                    return Err(m.location.error(format!(
                        "mesh `{name}` scale {scale:?} has a zero component"
                    )));
                }
                let reference = if file.starts_with("package://") || Path::new(&file).is_absolute()
                {
                    file.clone()
                } else {
                    self.meshdir.join(&file).to_string_lossy().into_owned()
                };
                let loc = &file_attr.location;
                let path =
                    self.resolver
                        .resolve(&reference, self.source, Some((loc.line, loc.col)))?;
                self.meshes.insert(
                    name,
                    MeshAsset {
                        uri: file,
                        path,
                        scale,
                    },
                );
            }
        }
        Ok(())
    }

    fn angle(&self, v: f64) -> f64 {
        if self.angle == AngleUnit::Degree {
            v.to_radians()
        } else {
            v
        }
    }

    /// The frame given by pos and one of quat, axisangle, euler, xyaxes, zaxis.
    fn frame(&self, r: &Resolved) -> Result<Pose> {
        let pos = r.vec3("pos")?.unwrap_or([0.0; 3]);
        let loc = &r.el.location;
        let given: Vec<&str> = ["quat", "axisangle", "euler", "xyaxes", "zaxis"]
            .into_iter()
            .filter(|k| r.el.attr(k).is_some())
            .collect();
        if given.len() > 1 {
            return Err(loc.error(format!(
                "<{}> gives its orientation twice ({})",
                r.el.name,
                given.join(", ")
            )));
        }
        let rot = if let Some(q) = r.floats("quat", 4)? {
            quat_wxyz([q[0], q[1], q[2], q[3]]).ok_or_else(|| loc.error("quat has zero length"))?
        } else if let Some(aa) = r.floats("axisangle", 4)? {
            axis_angle([aa[0], aa[1], aa[2]], self.angle(aa[3]))
        } else if let Some(e) = r.vec3("euler")? {
            let mut rot = UnitQuaternion::identity();
            for (ch, a) in self.eulerseq.chars().zip(e) {
                let axis = match ch.to_ascii_lowercase() {
                    'x' => Vector3::x_axis(),
                    'y' => Vector3::y_axis(),
                    _ => Vector3::z_axis(),
                };
                let step = UnitQuaternion::from_axis_angle(&axis, self.angle(a));
                // Lower case turns about the moving axes, upper case about the fixed ones.
                rot = if ch.is_ascii_lowercase() {
                    rot * step
                } else {
                    step * rot
                };
            }
            rot
        } else if let Some(v) = r.floats("xyaxes", 6)? {
            let x = Vector3::new(v[0], v[1], v[2]);
            let y0 = Vector3::new(v[3], v[4], v[5]);
            let x = x
                .try_normalize(0.0)
                .ok_or_else(|| loc.error("xyaxes has a zero x axis"))?;
            let y = (y0 - x * x.dot(&y0))
                .try_normalize(0.0)
                .ok_or_else(|| loc.error("xyaxes axes are parallel"))?;
            let z = x.cross(&y);
            UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(
                Matrix3::from_columns(&[x, y, z]),
            ))
        } else if let Some(z) = r.vec3("zaxis")? {
            z_onto(z)
        } else {
            UnitQuaternion::identity()
        };
        Ok(Pose::from_parts(
            Translation3::new(pos[0], pos[1], pos[2]),
            rot,
        ))
    }

    fn add_link(&mut self, name: String, loc: &Location) -> Result<usize> {
        if self.link_by_name.contains_key(&name) || name == "world" && !self.links.is_empty() {
            return Err(loc.error(format!("duplicate body name `{name}`")));
        }
        self.link_by_name.insert(name.clone(), self.links.len());
        self.links.push(Link {
            name,
            parent_joint: None,
            geometry: Vec::new(),
        });
        Ok(self.links.len() - 1)
    }

    #[allow(clippy::too_many_arguments)]
    fn add_joint(
        &mut self,
        name: String,
        kind: JointKind,
        parent: usize,
        child: usize,
        origin: &Pose,
        axis: [f64; 3],
        pivot: [f64; 3],
        limits: Option<(f64, f64)>,
        loc: &Location,
    ) -> Result<()> {
        if self.joint_by_name.contains_key(&name) {
            return Err(loc.error(format!("duplicate joint name `{name}`")));
        }
        let t = origin.translation.vector;
        self.joint_by_name.insert(name.clone(), self.joints.len());
        self.joints.push(Joint {
            name,
            kind,
            parent,
            child,
            origin_xyz: [t.x, t.y, t.z],
            origin_rpy: quat_to_rpy(&origin.rotation),
            axis,
            pivot,
            limits,
            mimic: None,
            location: Some(loc.clone()),
        });
        Ok(())
    }

    /// Reads the geoms, frames and child bodies inside `el` into link `link`,
    /// `offset` placing `el`'s frame in the link frame (non-identity inside `<frame>`).
    fn read_body_contents(
        &mut self,
        el: &Element,
        link: usize,
        childclass: &str,
        offset: Pose,
    ) -> Result<()> {
        for child in &el.children {
            match child.name.as_str() {
                "geom" => self.read_geom(child, link, childclass, &offset)?,
                "body" => self.read_body(child, link, childclass, &offset)?,
                "frame" => {
                    let r = self.resolve(child, childclass)?;
                    let frame = offset * self.frame(&r)?;
                    let cc = child.attr("childclass").unwrap_or(childclass).to_string();
                    self.read_body_contents(child, link, &cc, frame)?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn read_body(
        &mut self,
        el: &Element,
        parent: usize,
        childclass: &str,
        offset: &Pose,
    ) -> Result<()> {
        let cc = el.attr("childclass").unwrap_or(childclass).to_string();
        // Check the class exists even when the body itself sets nothing from it.
        if let Some(c) = el.attr("childclass")
            && !self.defaults.contains_key(c)
        {
            return Err(el.location.error(format!("unknown default class `{c}`")));
        }
        let name = match el.attr("name") {
            Some(n) => n.to_string(),
            None => format!("body_{}", self.links.len()),
        };
        let body_frame = offset * self.frame(&self.resolve(el, &cc)?)?;
        let joint_els: Vec<&Element> = el
            .children
            .iter()
            .filter(|c| c.name == "joint" || c.name == "freejoint")
            .collect();
        // Expand every joint into hinge/slide steps: (name, kind, axis, pivot, limits, location).
        let mut steps = Vec::new();
        for j in &joint_els {
            steps.extend(self.joint_steps(j, &cc, &name)?);
        }
        let mut current = parent;
        let mut origin = body_frame;
        let n = steps.len();
        if n == 0 {
            let link = self.add_link(name.clone(), &el.location)?;
            self.add_joint(
                format!("{name}_weld"),
                JointKind::Fixed,
                current,
                link,
                &origin,
                [0.0, 0.0, 1.0],
                [0.0; 3],
                None,
                &el.location,
            )?;
            current = link;
        }
        for (i, (jname, kind, axis, pivot, limits, loc)) in steps.into_iter().enumerate() {
            let link_name = if i + 1 == n {
                name.clone()
            } else {
                format!("{name}/{jname}")
            };
            let link = self.add_link(link_name, &loc)?;
            self.add_joint(
                jname, kind, current, link, &origin, axis, pivot, limits, &loc,
            )?;
            origin = Pose::identity();
            current = link;
        }
        self.read_body_contents(el, current, &cc, Pose::identity())
    }

    #[allow(clippy::type_complexity)]
    fn joint_steps(
        &mut self,
        j: &Element,
        cc: &str,
        body: &str,
    ) -> Result<
        Vec<(
            String,
            JointKind,
            [f64; 3],
            [f64; 3],
            Option<(f64, f64)>,
            Location,
        )>,
    > {
        let r = self.resolve(j, cc)?;
        let jtype = if j.name == "freejoint" {
            "free"
        } else {
            r.attr("type").unwrap_or("hinge")
        };
        let name = match j.attr("name") {
            Some(n) => n.to_string(),
            None => format!("{body}_joint{}", self.joints.len()),
        };
        let pivot = r.vec3("pos")?.unwrap_or([0.0; 3]);
        let axis = r.vec3("axis")?.unwrap_or([0.0, 0.0, 1.0]);
        let norm = (axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]).sqrt();
        let range = r.floats("range", 2)?;
        let limited = match r.attr("limited").unwrap_or("auto") {
            "true" => true,
            "false" => false,
            _ => self.autolimits && range.is_some(),
        };
        let loc = j.location.clone();
        match jtype {
            "free" => {
                self.warnings.push(format!(
                    "{loc}: free joint `{name}` is treated as fixed (self-collision is checked in the base frame)"
                ));
                Ok(Vec::new())
            }
            "hinge" | "slide" => {
                if norm == 0.0 {
                    return Err(loc.error(format!("joint `{name}` has a zero axis")));
                }
                let axis = [axis[0] / norm, axis[1] / norm, axis[2] / norm];
                let hinge = jtype == "hinge";
                let limits = match (limited, range) {
                    (true, Some(r)) => {
                        let (lo, hi) = if hinge {
                            (self.angle(r[0]), self.angle(r[1]))
                        } else {
                            (r[0], r[1])
                        };
                        if lo > hi {
                            return Err(loc.error(format!("joint `{name}` range {lo} > {hi}")));
                        }
                        Some((lo, hi))
                    }
                    (true, None) => {
                        return Err(
                            loc.error(format!("joint `{name}` is limited but has no range"))
                        );
                    }
                    (false, _) => None,
                };
                let kind = match (hinge, limits.is_some()) {
                    (true, true) => JointKind::Revolute,
                    (true, false) => JointKind::Continuous,
                    (false, _) => {
                        if limits.is_none() {
                            self.warnings.push(format!(
                                "{loc}: slide joint `{name}` has no range; sampled at 0 only"
                            ));
                        }
                        JointKind::Prismatic
                    }
                };
                let limits = if kind == JointKind::Prismatic {
                    Some(limits.unwrap_or((0.0, 0.0)))
                } else {
                    limits
                };
                Ok(vec![(name, kind, axis, pivot, limits, loc)])
            }
            "ball" => {
                let limits = match (limited, range) {
                    (true, Some(r)) => Some((-self.angle(r[1]), self.angle(r[1]))),
                    _ => None,
                };
                let kind = if limits.is_some() {
                    JointKind::Revolute
                } else {
                    JointKind::Continuous
                };
                Ok([
                    ("x", [1.0, 0.0, 0.0]),
                    ("y", [0.0, 1.0, 0.0]),
                    ("z", [0.0, 0.0, 1.0]),
                ]
                .into_iter()
                .map(|(s, a)| (format!("{name}_{s}"), kind, a, pivot, limits, loc.clone()))
                .collect())
            }
            other => Err(loc.error(format!("joint `{name}` has unknown type `{other}`"))),
        }
    }

    fn read_geom(&mut self, el: &Element, link: usize, cc: &str, offset: &Pose) -> Result<()> {
        let r = self.resolve(el, cc)?;
        let loc = el.location.clone();
        let gtype = r
            .attr("type")
            .unwrap_or(if r.attr("mesh").is_some() {
                "mesh"
            } else {
                "sphere"
            })
            .to_string();
        let contype = r.attr("contype").map(|v| v.trim() != "0").unwrap_or(true);
        let conaffinity = r
            .attr("conaffinity")
            .map(|v| v.trim() != "0")
            .unwrap_or(true);
        let role = if contype || conaffinity {
            Role::Collision
        } else {
            Role::Visual
        };
        let size = r.floats("size", 0)?.unwrap_or_default();
        let size_at = |i: usize, what: &str| -> Result<f64> {
            let v = *size
                .get(i)
                .ok_or_else(|| loc.error(format!("{gtype} geom needs {what} in `size`")))?;
            if v <= 0.0 {
                return Err(loc.error(format!(
                    "{gtype} geom has {what} {v}, which must be positive"
                )));
            }
            Ok(v)
        };
        let mut pose = self.frame(&r)?;
        let mut half_length = None;
        if let Some(ft) = r.floats("fromto", 6)? {
            if !matches!(gtype.as_str(), "capsule" | "cylinder" | "box" | "ellipsoid") {
                return Err(loc.error(format!("fromto is not allowed on a {gtype} geom")));
            }
            let a = Vector3::new(ft[0], ft[1], ft[2]);
            let b = Vector3::new(ft[3], ft[4], ft[5]);
            let d = b - a;
            if d.norm() == 0.0 {
                return Err(loc.error("fromto has equal end points"));
            }
            let mid = (a + b) * 0.5;
            pose = Pose::from_parts(Translation3::from(mid), z_onto([d.x, d.y, d.z]));
            half_length = Some(d.norm() / 2.0);
        }
        let shape = match gtype.as_str() {
            "sphere" => Shape::Sphere {
                radius: size_at(0, "a radius")?,
            },
            "capsule" | "cylinder" => {
                let radius = size_at(0, "a radius")?;
                let hl = match half_length {
                    Some(h) => h,
                    None => size_at(1, "a half-length")?,
                };
                if gtype == "capsule" {
                    Shape::Capsule {
                        radius,
                        length: 2.0 * hl,
                    }
                } else {
                    Shape::Cylinder {
                        radius,
                        length: 2.0 * hl,
                    }
                }
            }
            "box" | "ellipsoid" => {
                let x = size_at(0, "three half sizes")?;
                let y = size_at(1, "three half sizes")?;
                let z = match half_length {
                    Some(h) => h,
                    None => size_at(2, "three half sizes")?,
                };
                if gtype == "box" {
                    Shape::Box {
                        size: [2.0 * x, 2.0 * y, 2.0 * z],
                    }
                } else {
                    Shape::Ellipsoid { radii: [x, y, z] }
                }
            }
            "mesh" => {
                let mesh = r
                    .attr("mesh")
                    .ok_or_else(|| loc.error("mesh geom has no `mesh`"))?;
                let asset = self.meshes.get(mesh).ok_or_else(|| {
                    loc.error(format!("geom names mesh `{mesh}`, which is not an asset"))
                })?;
                Shape::Mesh {
                    uri: asset.uri.clone(),
                    path: asset.path.clone(),
                    scale: asset.scale,
                }
            }
            "plane" | "hfield" | "sdf" => {
                self.warnings.push(format!(
                    "{loc}: {gtype} geom is not a bounded solid and is skipped"
                ));
                return Ok(());
            }
            other => return Err(loc.error(format!("unknown geom type `{other}`"))),
        };
        self.links[link].geometry.push(GeometryPiece {
            role,
            origin: offset * pose,
            shape,
            location: Some(loc),
        });
        Ok(())
    }

    fn read_equalities(&mut self, root: &Element) -> Result<()> {
        for eq in root.children_named("equality") {
            for j in eq.children_named("joint") {
                if j.attr("active") == Some("false") {
                    continue;
                }
                let j1 = j.required("joint1")?;
                let Some(&follower) = self.joint_by_name.get(j1) else {
                    return Err(j.location.error(format!(
                        "equality names joint `{j1}`, which is not in the model"
                    )));
                };
                let Some(j2) = j.attr("joint2") else {
                    self.warnings.push(format!(
                        "{}: equality fixes joint `{j1}` to a constant; not modelled",
                        j.location
                    ));
                    continue;
                };
                let Some(&leader) = self.joint_by_name.get(j2) else {
                    return Err(j.location.error(format!(
                        "equality names joint `{j2}`, which is not in the model"
                    )));
                };
                let poly = match j.attribute("polycoef") {
                    Some(a) => parse_floats(a, 0)?,
                    None => vec![0.0, 1.0],
                };
                if poly.iter().skip(2).any(|&c| c != 0.0) {
                    self.warnings.push(format!(
                        "{}: equality on `{j1}` is not linear; its linear part is used",
                        j.location
                    ));
                }
                self.joints[follower].mimic = Some(Mimic {
                    leader,
                    multiplier: poly.get(1).copied().unwrap_or(0.0),
                    offset: poly.first().copied().unwrap_or(0.0),
                });
            }
        }
        Ok(())
    }
}
