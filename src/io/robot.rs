//! Loading a ROBOT argument: a `.urdf`, a `.xacro`, an MJCF `.xml`, or a `robot.yaml` config.

use super::allow::AllowEntry;
use super::mjcf::{MjcfLimits, read_mjcf};
use super::package::PackageResolver;
use super::srdf::{Srdf, read_srdf};
use super::urdf::read_urdf;
use super::xacro::{Expansion, is_xacro, read_xacro};
use crate::error::{Error, Result};
use crate::model::{Configuration, Robot, TruthGeometry};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `robots/NAME/robot.yaml`: which sources make the robot.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RobotConfig {
    pub name: String,
    /// A URDF, or a xacro file (`.xacro`, `.urdf.xacro`) expanded into one.
    #[serde(default)]
    pub urdf: Option<String>,
    /// Arguments for a xacro `urdf` (`NAME: VALUE`, as `NAME:=VALUE` to xacro); the
    /// command line's `--xacro-arg` overrides them.
    #[serde(default, deserialize_with = "xacro_args")]
    pub xacro_args: BTreeMap<String, String>,
    #[serde(default)]
    pub srdf: Option<String>,
    #[serde(default)]
    pub mjcf: Option<String>,
    #[serde(default)]
    pub rest_pose: Option<RestPoseSpec>,
    /// Pairs exempted by decision rather than proof, each with its reason (see `io::allow`).
    #[serde(default, deserialize_with = "null_as_empty")]
    pub allow: Vec<AllowEntry>,
    /// Which geometry is each link's truth: `collision+visual` (the default) or `visual`.
    #[serde(default)]
    pub truth: TruthGeometry,
    /// `lower`'s budget for this robot (µs, the kernel's estimated median on free poses)
    /// when the default is not what its controller pays: a decision, with its evidence in a
    /// comment beside it. `lower --budget-us` overrides it.
    #[serde(default)]
    pub budget_us: Option<f64>,
}

/// `allow:` with nothing after it is an empty list, not an error.
fn null_as_empty<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<Vec<AllowEntry>, D::Error> {
    Ok(Option::<Vec<AllowEntry>>::deserialize(d)?.unwrap_or_default())
}

/// `xacro_args:` values are text to xacro: numbers and booleans are taken as written.
fn xacro_args<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<BTreeMap<String, String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Scalar {
        Bool(bool),
        Int(i64),
        Float(f64),
        Text(String),
    }
    let map = Option::<BTreeMap<String, Scalar>>::deserialize(d)?.unwrap_or_default();
    Ok(map
        .into_iter()
        .map(|(k, v)| {
            let v = match v {
                Scalar::Bool(b) => b.to_string(),
                Scalar::Int(i) => i.to_string(),
                Scalar::Float(f) => f.to_string(),
                Scalar::Text(t) => t,
            };
            (k, v)
        })
        .collect())
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum RestPoseSpec {
    /// An SRDF group_state name.
    Named(String),
    Values(BTreeMap<String, f64>),
}

/// Options every command that reads a robot shares.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    pub package_paths: Vec<PathBuf>,
    pub mjcf_limits: MjcfLimits,
    /// `--xacro-arg NAME:=VALUE`, in order (a later one wins); over the config's `xacro_args`.
    pub xacro_args: Vec<(String, String)>,
}

/// A robot with its SRDF and config, and every source as written and resolved.
#[derive(Debug, Clone)]
pub struct LoadedRobot {
    pub robot: Robot,
    pub srdf: Option<Srdf>,
    pub config: Option<RobotConfig>,
    /// The config file, when the robot came from one.
    pub config_path: Option<PathBuf>,
    /// (as written in the config or on the command line, resolved path).
    pub sources: Vec<(String, PathBuf)>,
    pub resolver: PackageResolver,
    /// The URDF source's expansion, when it is a xacro file.
    pub xacro: Option<Expansion>,
}

pub fn load_robot(arg: &Path, options: &LoadOptions) -> Result<LoadedRobot> {
    let ext = arg
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    super::package::check_file(arg).map_err(|why| Error::at(arg, None, why))?;
    let resolver = PackageResolver::from_env(&options.package_paths, arg.parent());
    let mut loaded = match ext.as_str() {
        "urdf" => {
            let robot = read_urdf(arg, &resolver, &options.mjcf_limits.xml)?;
            plain(robot, arg, resolver, None)
        }
        "xacro" => {
            let args = xacro_arguments(&BTreeMap::new(), options);
            let (robot, expansion) = read_xacro(arg, &args, &resolver, &options.mjcf_limits.xml)?;
            plain(robot, arg, resolver, Some(expansion))
        }
        "xml" | "mjcf" => {
            let robot = read_mjcf(arg, &resolver, &options.mjcf_limits)?;
            plain(robot, arg, resolver, None)
        }
        "yaml" | "yml" => load_config(arg, resolver, options)?,
        _ => {
            return Err(Error::at(
                arg,
                None,
                "is not a .urdf, a .xacro, an MJCF .xml or a robot .yaml config",
            ));
        }
    };
    if loaded.xacro.is_none() && !options.xacro_args.is_empty() {
        loaded.robot.warnings.push(format!(
            "--xacro-arg is ignored: {} reads no xacro file",
            arg.display()
        ));
    }
    Ok(loaded)
}

/// The config's `xacro_args` with the command line's `--xacro-arg` over them.
fn xacro_arguments(
    config: &BTreeMap<String, String>,
    options: &LoadOptions,
) -> BTreeMap<String, String> {
    let mut args = config.clone();
    for (k, v) in &options.xacro_args {
        args.insert(k.clone(), v.clone());
    }
    args
}

fn plain(
    robot: Robot,
    arg: &Path,
    resolver: PackageResolver,
    xacro: Option<Expansion>,
) -> LoadedRobot {
    LoadedRobot {
        robot,
        srdf: None,
        config: None,
        config_path: None,
        sources: vec![(arg.display().to_string(), arg.to_path_buf())],
        resolver,
        xacro,
    }
}

fn load_config(
    path: &Path,
    resolver: PackageResolver,
    options: &LoadOptions,
) -> Result<LoadedRobot> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::at(path, None, format!("cannot read: {e}")))?;
    let mut config: RobotConfig =
        serde_saphyr::from_str(&text).map_err(|e| yaml_error(path, &e))?;
    super::allow::locate_entries(&mut config.allow, &text);
    let mut sources = Vec::new();
    let mut resolve = |reference: &str| -> Result<PathBuf> {
        let p = resolver.resolve(reference, path, None)?;
        sources.push((reference.to_string(), p.clone()));
        Ok(p)
    };
    let urdf_is_xacro = config
        .urdf
        .as_deref()
        .is_some_and(|u| is_xacro(Path::new(u)));
    if !config.xacro_args.is_empty() && !urdf_is_xacro {
        return Err(Error::at(
            path,
            key_line(&text, "xacro_args"),
            "`xacro_args` is given, but `urdf` names no .xacro file",
        ));
    }
    let mut xacro = None;
    let mut robot = match (&config.urdf, &config.mjcf) {
        (Some(u), _) if urdf_is_xacro => {
            let args = xacro_arguments(&config.xacro_args, options);
            let (robot, expansion) =
                read_xacro(&resolve(u)?, &args, &resolver, &options.mjcf_limits.xml)?;
            xacro = Some(expansion);
            robot
        }
        (Some(u), _) => read_urdf(&resolve(u)?, &resolver, &options.mjcf_limits.xml)?,
        (None, Some(m)) => read_mjcf(&resolve(m)?, &resolver, &options.mjcf_limits)?,
        (None, None) => return Err(Error::at(path, None, "names neither `urdf` nor `mjcf`")),
    };
    // With both, the MJCF is the URDF's twin: its meshes join the links whose frames coincide.
    if let (Some(_), Some(m)) = (&config.urdf, &config.mjcf) {
        let twin = read_mjcf(&resolve(m)?, &resolver, &options.mjcf_limits)?;
        for t in crate::model::twin::fold_twin(&mut robot, &twin) {
            if !t.folded {
                robot.warnings.push(format!(
                    "MJCF twin body `{}` is {:.2} mm and {:.2} mrad off the URDF link; its geometry is not folded in",
                    t.link,
                    t.offset_m * 1e3,
                    t.angle_rad * 1e3
                ));
            }
        }
    }
    let srdf = match &config.srdf {
        Some(s) => Some(read_srdf(&resolve(s)?, &robot, &options.mjcf_limits.xml)?),
        None => None,
    };
    robot.name = config.name.clone();
    robot.truth = config.truth;
    let loaded = LoadedRobot {
        robot,
        srdf,
        config: Some(config),
        config_path: Some(path.to_path_buf()),
        sources,
        resolver,
        xacro,
    };
    // The whole config is checked here, for every command that reads it: a rest pose
    // that names no group_state or no joint is refused now, at the config's line.
    if let Err(e) = loaded.rest_pose() {
        return Err(Error::at(path, key_line(&text, "rest_pose"), e.message));
    }
    if let Some(c) = &loaded.config {
        super::allow::check_entries(&c.allow, &loaded.robot, path, &text)?;
        if let Some(b) = c.budget_us
            && !(b.is_finite() && b > 0.0)
        {
            return Err(Error::at(
                path,
                key_line(&text, "budget_us"),
                format!("budget_us {b} must be a positive number of µs"),
            ));
        }
    }
    Ok(loaded)
}

/// The `allow:` list of config `text` (at `path`), located and checked against `robot` as
/// loading checks it: for text about to replace the config.
pub fn allow_of_text(path: &Path, text: &str, robot: &Robot) -> Result<Vec<AllowEntry>> {
    let mut config: RobotConfig = serde_saphyr::from_str(text).map_err(|e| yaml_error(path, &e))?;
    super::allow::locate_entries(&mut config.allow, text);
    super::allow::check_entries(&config.allow, robot, path, text)?;
    Ok(config.allow)
}

/// Line and column of top-level `key:` in a YAML text.
fn key_line(text: &str, key: &str) -> Option<(u32, u32)> {
    text.lines()
        .position(|l| {
            l.strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with(':'))
        })
        .map(|i| (i as u32 + 1, 1))
}

/// A serde-saphyr error as `file:line:col: invalid YAML: message` when it carries a position.
pub fn yaml_error(path: &Path, e: &serde_saphyr::Error) -> Error {
    let message = e.to_string();
    let first = message.lines().next().unwrap_or(&message);
    match e.location().filter(|l| l.line() > 0) {
        Some(l) => {
            // The position leads the line, as in every other located error.
            let prefix = format!("error: line {} column {}: ", l.line(), l.column());
            let text = first.strip_prefix(&prefix).unwrap_or(first);
            Error::at(
                path,
                Some((l.line() as u32, l.column().max(1) as u32)),
                format!("invalid YAML: {text}"),
            )
        }
        None => Error::at(path, None, format!("invalid YAML: {first}")),
    }
}

impl LoadedRobot {
    /// The rest pose: the config's SRDF group_state or joint map, else q = 0 clamped into limits.
    pub fn rest_pose(&self) -> Result<Configuration> {
        let robot = &self.robot;
        let named: BTreeMap<String, f64> =
            match self.config.as_ref().and_then(|c| c.rest_pose.as_ref()) {
                Some(RestPoseSpec::Values(v)) => v.clone(),
                Some(RestPoseSpec::Named(name)) => {
                    let state = self
                        .srdf
                        .as_ref()
                        .and_then(|s| s.group_state(name))
                        .ok_or_else(|| {
                            Error::input(format!(
                                "rest_pose `{name}` is not a group_state of the robot's SRDF"
                            ))
                        })?;
                    state
                        .values
                        .iter()
                        .filter(|(j, _)| {
                            robot.joint_index(j).is_some_and(|i| {
                                robot.joints[i].mimic.is_none() && robot.joints[i].kind.is_moving()
                            })
                        })
                        .map(|(k, v)| (k.clone(), *v))
                        .collect()
                }
                None => BTreeMap::new(),
            };
        let given = Configuration::from_named(robot, &named)?;
        Ok(Configuration::from_active(robot, |i| {
            let v = given.values[i];
            match robot.joints[i].limits {
                Some((lo, hi)) if !named.contains_key(&robot.joints[i].name) => v.clamp(lo, hi),
                _ => v,
            }
        }))
    }
}

/// Where the robot and its meshes are read from.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    pub load: LoadOptions,
    pub mesh_limits: crate::io::mesh::MeshLimits,
    pub max_total_triangles: usize,
}

impl ReadOptions {
    pub fn new(load: LoadOptions) -> Self {
        ReadOptions {
            load,
            mesh_limits: crate::io::mesh::MeshLimits::default(),
            max_total_triangles: 50_000_000,
        }
    }
}
