//! `collide init`: a new robot's config, `DIR/robot.yaml`, written from its description
//! with the two decisions only its user can make laid out with their evidence: the rest
//! pose and the contacts by design (see [`crate::truth::design`]).
//!
//! No manifest exists yet, so the kinematics come from a skeleton manifest (the robot's
//! joints, no primitives, no ACM) loaded into the kernel, and every contact from the links'
//! real meshes. The checked pairs are those `acm regenerate` will check at least: both links
//! with geometry, not adjacent by the ACM's rule.
//!
//! The rest pose is the first SRDF `group_state` where no checked pair's meshes touch,
//! contacts by design aside (near pairs, at most two moving joints apart, touching there
//! are candidates); else q = 0 clamped into the limits on the same terms; else the nearest
//! free pose a seeded search from q = 0 finds, written as a joint map. Pairs further apart
//! that touch are never candidates: the rest pose is the fix.
//!
//! [`plan`] computes everything and writes nothing; [`write`] writes the config atomically
//! and loads it back (a config that does not load is taken back). The text depends on the
//! inputs alone, not on the thread count.

use crate::acm::adjacency::LinkTree;
use crate::error::{Error, Result};
use crate::io::allow::{quoted, scalar};
use crate::io::package::PackageResolver;
use crate::io::robot::{LoadedRobot, ReadOptions, RestPoseSpec, RobotConfig, load_robot};
use crate::io::srdf::read_srdf;
use crate::kernel::model::JointKind;
use crate::manifest::kernel::{LoadedKernel, load_kernel};
use crate::manifest::{self, Manifest};
use crate::model::TruthGeometry;
use crate::truth::design::{self, AtPose, Candidate, SearchOptions};
use crate::truth::mesh::MeshTruth;
use crate::truth::meshes::{MeshCache, load_meshes, truths};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

mod config;
mod truth;

pub use config::{adopted_reason, pair_list, write};
use config::{comment, config_text, tried_text};
pub use truth::CoarsePair;
use truth::{coarse_evidence, truth_text};

/// Clearances the searched rest pose keeps between the meshes of every far pair (m), the
/// first the search reaches: a rest pose the meshes barely clear would trip on any
/// primitive around them, so 0 comes last.
pub const SEARCH_CLEARANCES_M: [f64; 5] = [0.01, 0.005, 0.002, 0.001, 0.0];
/// Decimals tried for the searched rest pose's joint values, the fewest that stay free.
const REST_DECIMALS: [i32; 3] = [4, 5, 6];

#[derive(Debug, Clone)]
pub struct InitOptions {
    /// The config's directory (default `robots/NAME/`).
    pub out: Option<PathBuf>,
    /// The SRDF (default: one found beside the description, [`find_srdf`]).
    pub srdf: Option<PathBuf>,
    /// Write the candidates as active `allow:` rows.
    pub adopt_contacts: bool,
    /// Replace an existing `robot.yaml`.
    pub force: bool,
    /// The truth the user chose (`--truth`), written active; `None`: collision + visual,
    /// and `truth: visual` offered commented out where the evidence calls for it.
    pub truth: Option<TruthGeometry>,
    /// Seeded poses of the candidate search, and their seed.
    pub poses: usize,
    pub seed: u64,
    pub read: ReadOptions,
}

impl InitOptions {
    pub fn new(read: ReadOptions) -> Self {
        InitOptions {
            out: None,
            srdf: None,
            adopt_contacts: false,
            force: false,
            truth: None,
            poses: design::POSES,
            seed: design::SEED,
            read,
        }
    }
}

/// The rest pose chosen.
#[derive(Debug, Clone, PartialEq)]
pub enum RestChoice {
    /// An SRDF group_state, by name.
    GroupState(String),
    /// q = 0 clamped into the limits (no `rest_pose` written).
    Zero,
    /// Found by the search from q = 0: the joints it moves and their values, the
    /// joint-space distance from q = 0 (rad and m), the poses tried and the clearance the
    /// far pairs keep (the first of [`SEARCH_CLEARANCES_M`] the search reaches).
    Searched {
        values: Vec<(String, f64)>,
        distance: f64,
        tried: usize,
        clearance_m: f64,
    },
}

/// A rest pose tried before the choice, and the pairs that ruled it out.
#[derive(Debug, Clone, PartialEq)]
pub struct Tried {
    /// `group_state half_sitting`, `q = 0`.
    pub label: String,
    /// Far pairs (more than two moving joints apart) whose meshes touch there.
    pub far_contacts: Vec<(String, String)>,
}

/// A candidate with its links' names.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedCandidate {
    pub a: String,
    pub b: String,
    pub candidate: Candidate,
}

/// A far pair in contact in most poses (see [`Init::stuck`]).
#[derive(Debug, Clone, PartialEq)]
pub struct StuckPair {
    pub a: String,
    pub b: String,
    /// Seeded poses whose meshes touch, of [`Init::poses`].
    pub touching_poses: usize,
}

/// What `collide init` makes of a description, before anything is written.
#[derive(Debug, Clone)]
pub struct Init {
    pub name: String,
    pub description: PathBuf,
    pub config_path: PathBuf,
    /// The references as written in the config.
    pub description_ref: String,
    /// For a xacro description: the `--xacro-arg`s it was expanded with (a later one wins).
    pub xacro_args: BTreeMap<String, String>,
    pub srdf_ref: Option<String>,
    pub rest: RestChoice,
    /// The rest poses ruled out before the choice, in the order tried.
    pub tried: Vec<Tried>,
    pub candidates: Vec<NamedCandidate>,
    /// Far pairs whose meshes touch at a rest pose tried and in at least half the seeded
    /// poses: no rest pose can be expected to part them, and they are too far apart to be
    /// contacts by design; left out of the rest pose's choice and reported.
    pub stuck: Vec<StuckPair>,
    pub adopted: bool,
    /// The truth every contact above was judged on, and whether the user chose it.
    pub truth: TruthGeometry,
    pub truth_chosen: bool,
    /// Links whose `<collision>` pieces are primitives beside visual pieces, and the
    /// checked pairs they make touch at [`Init::evidence_pose`] while the visual pieces
    /// are apart: the evidence for `truth: visual`.
    pub coarse_links: Vec<String>,
    pub coarse_pairs: Vec<CoarsePair>,
    /// The pose the evidence is taken at: the first rest pose tried.
    pub evidence_pose: String,
    pub checked_pairs: usize,
    pub near_pairs: usize,
    pub poses: usize,
    pub seed: u64,
    /// The config's text.
    pub text: String,
    pub warnings: Vec<String>,
}

/// The SRDF beside a description: `STEM.srdf` in its directory or in a sibling `srdf/`
/// directory (example-robot-data's layout), else in that `srdf/` directory the longest
/// `NAME.srdf` whose NAME begins the description's stem (`talos.srdf` for
/// `talos_reduced.urdf`), else the only `.srdf` there.
pub fn find_srdf(description: &Path) -> Option<PathBuf> {
    let stem = description_stem(description)?;
    let dir = description.parent().unwrap_or(Path::new("."));
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let sibling = dir.parent().map(|p| p.join("srdf"));
    let same = format!("{stem}.srdf");
    for d in std::iter::once(dir.to_path_buf()).chain(sibling.clone()) {
        let p = d.join(&same);
        if p.is_file() {
            return Some(p);
        }
    }
    let sibling = sibling?;
    let mut srdfs: Vec<(String, PathBuf)> = std::fs::read_dir(&sibling)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "srdf"))
        .filter_map(|p| Some((p.file_stem()?.to_string_lossy().into_owned(), p)))
        .collect();
    srdfs.sort();
    let begins = |s: &str| {
        stem.strip_prefix(s)
            .is_some_and(|rest| rest.starts_with(['_', '-', '.']))
    };
    if let Some((_, p)) = srdfs
        .iter()
        .filter(|(s, _)| begins(s))
        .max_by_key(|(s, _)| s.len())
    {
        return Some(p.clone());
    }
    (srdfs.len() == 1).then(|| srdfs[0].1.clone())
}

/// A description's name without its extensions: `arm` for `arm.urdf`, `arm.xml`,
/// `arm.xacro` and `arm.urdf.xacro`.
pub fn description_stem(description: &Path) -> Option<String> {
    let stem = description.file_stem()?.to_string_lossy().into_owned();
    if crate::io::xacro::is_xacro(description)
        && let Some(s) = stem.strip_suffix(".urdf").filter(|s| !s.is_empty())
    {
        return Some(s.to_string());
    }
    Some(stem)
}

/// A robot name as a directory name: letters, digits, `_`, `-` and `.` kept, the rest `_`.
pub fn dir_name(name: &str, fallback: &str) -> String {
    let clean: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "_-.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if clean.trim_matches(['_', '.']).is_empty() {
        fallback.to_string()
    } else {
        clean
    }
}

/// `package://NAME/PATH` for a description inside a ROS package (the nearest folder above
/// it with a `package.xml` naming NAME) when that reference resolves back to it from the
/// package roots; else `None`.
fn package_reference(resolver: &PackageResolver, description: &Path) -> Option<String> {
    let file = crate::io::package::lexical(description);
    let package = file
        .ancestors()
        .skip(1)
        .find(|d| d.join("package.xml").is_file())?;
    let name = crate::io::package::package_xml_name(package)?;
    let inner = file.strip_prefix(package).ok()?;
    let inner: Vec<String> = inner
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let uri = format!("package://{name}/{}", inner.join("/"));
    let back = resolver.resolve(&uri, &file, None).ok()?;
    (crate::io::package::lexical(&back) == file).then_some(uri)
}

/// Where the config goes: `out/robot.yaml`, else `robots/NAME/robot.yaml`.
pub fn config_path(out: Option<&Path>, name: &str) -> PathBuf {
    match out {
        Some(d) => d.join("robot.yaml"),
        None => Path::new("robots").join(name).join("robot.yaml"),
    }
}

/// The robot's joints without any primitive: what the kernel needs for forward kinematics.
fn skeleton(loaded: &LoadedRobot) -> Manifest {
    manifest::fit::skeleton(&loaded.robot)
}

/// The rest pose `spec` (none: q = 0 clamped) as the config would give it, in kernel dof
/// order.
fn rest_q(loaded: &LoadedRobot, k: &LoadedKernel, spec: Option<RestPoseSpec>) -> Result<Vec<f64>> {
    let mut with = loaded.clone();
    with.config = Some(RobotConfig {
        name: loaded.robot.name.clone(),
        urdf: None,
        srdf: None,
        mjcf: None,
        rest_pose: spec,
        allow: Vec::new(),
        xacro_args: Default::default(),
        truth: loaded.robot.truth,
        budget_us: None,
    });
    let rest = with.rest_pose()?;
    let values = manifest::JointValues(
        loaded
            .robot
            .active_joints()
            .map(|(i, j)| (j.name.clone(), rest.values[i]))
            .collect(),
    );
    Ok(k.q_from(&values))
}

/// The pairs the kernel will check at least: both links with geometry, not adjacent by the
/// ACM's rule (kernel link indices, `a < b`, sorted).
fn checked_pairs(k: &LoadedKernel, has_geometry: &[bool]) -> Vec<(usize, usize)> {
    let links = k.model.links();
    let tree = LinkTree {
        parent: links.iter().map(|l| l.parent).collect(),
        fixed_to_parent: links
            .iter()
            .map(|l| l.joint.kind == JointKind::Fixed)
            .collect(),
        has_geometry: has_geometry.to_vec(),
    };
    let adjacent: BTreeSet<(usize, usize)> = tree
        .adjacent_pairs()
        .into_iter()
        .map(|(a, b, _)| (a, b))
        .collect();
    let n = links.len();
    let mut out = Vec::new();
    for a in 0..n {
        for b in a + 1..n {
            if has_geometry[a] && has_geometry[b] && !adjacent.contains(&(a, b)) {
                out.push((a, b));
            }
        }
    }
    out
}

/// A robot without a manifest, as `init` sees it: the kernel of its skeleton (forward
/// kinematics only), its meshes, and the pairs to look at.
pub struct Scene {
    pub kernel: LoadedKernel,
    /// By kernel link index, margin 0.
    pub truth: MeshTruth,
    /// Both links with geometry, not adjacent (kernel link indices, `a < b`, sorted).
    pub checked: Vec<(usize, usize)>,
    /// `checked` split by [`design::split_pairs`].
    pub near: Vec<(usize, usize)>,
    pub far: Vec<(usize, usize)>,
    /// The meshes, loaded once (for the other truth's evidence).
    pub cache: MeshCache,
}

/// Kinematics from a skeleton manifest, contacts from the real meshes (read within `read`'s
/// limits).
pub fn scene(loaded: &LoadedRobot, read: &ReadOptions) -> Result<Scene> {
    let kernel = load_kernel(&skeleton(loaded))?;
    let cache = load_meshes(&loaded.robot, &read.mesh_limits, read.max_total_triangles)?;
    let meshes: BTreeMap<String, _> = truths(&loaded.robot, &cache)?.into_iter().collect();
    let truth = MeshTruth::new(&kernel.link_names, &meshes);
    let has_geometry: Vec<bool> = kernel
        .link_names
        .iter()
        .map(|n| meshes.contains_key(n))
        .collect();
    let checked = checked_pairs(&kernel, &has_geometry);
    let (near, far) = design::split_pairs(&kernel.model, &checked);
    Ok(Scene {
        kernel,
        truth,
        checked,
        near,
        far,
        cache,
    })
}

/// Reads the description, its SRDF and meshes, and decides the config; writes nothing.
pub fn plan(description: &Path, options: &InitOptions) -> Result<Init> {
    let ext = description
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    if !matches!(ext.as_str(), "urdf" | "xacro" | "xml" | "mjcf") {
        return Err(Error::at(
            description,
            None,
            "is not a .urdf, a .xacro or an MJCF .xml: `collide init` starts a robot config from its description",
        ));
    }
    let mut loaded = load_robot(description, &options.read.load)?;
    let mut warnings = loaded.robot.warnings.clone();
    let fallback = description_stem(description)
        .map(|s| dir_name(&s, "robot"))
        .unwrap_or_else(|| "robot".into());
    let name = dir_name(&loaded.robot.name, &fallback);
    let config = config_path(options.out.as_deref(), &name);
    refuse_existing(&config, options.force)?;
    let dir = config.parent().unwrap_or(Path::new(".")).to_path_buf();

    let srdf_file = attach_srdf(&mut loaded, description, options, &mut warnings)?;
    let resolver = PackageResolver::from_env(&options.read.load.package_paths, Some(&dir));
    // A xacro is a ROS package's file: named by its package.xml's name, as xacro's own
    // `$(find NAME)` names packages.
    let description_ref = loaded
        .xacro
        .as_ref()
        .and_then(|_| package_reference(&resolver, description))
        .unwrap_or_else(|| resolver.reference_for(description, &dir));
    // The arguments the description was expanded with, as the config will give them.
    let xacro_args: BTreeMap<String, String> = match &loaded.xacro {
        Some(_) => options.read.load.xacro_args.iter().cloned().collect(),
        None => BTreeMap::new(),
    };
    let srdf_ref = srdf_file.as_ref().map(|s| resolver.reference_for(s, &dir));

    loaded.robot.truth = options.truth.unwrap_or_default();
    let mut scene = scene(&loaded, &options.read)?;
    let first = loaded
        .srdf
        .iter()
        .flat_map(|s| &s.group_states)
        .next()
        .map(|g| g.name.clone());
    let evidence_pose = match &first {
        Some(g) => format!("group_state {g}"),
        None => "q = 0".into(),
    };
    let first_q = rest_q(&loaded, &scene.kernel, first.map(RestPoseSpec::Named))?;
    let (coarse_links, coarse_pairs) = coarse_evidence(&loaded, &scene, &first_q)?;
    let bar = crate::progress::bar(options.poses as u64, "contacts by design");
    let contacts = design::near_contacts(
        &scene.kernel.model,
        &scene.truth,
        &scene.checked,
        options.poses,
        options.seed,
        &bar,
    );
    bar.finish_and_clear();
    let rest = choose_rest(&loaded, &mut scene, options, description)?;
    let k = &scene.kernel;
    let candidates: Vec<NamedCandidate> =
        design::candidates(&k.model, &scene.truth, &contacts, &rest.q)
            .into_iter()
            .map(|c| NamedCandidate {
                a: k.link_names[c.a].clone(),
                b: k.link_names[c.b].clone(),
                candidate: c,
            })
            .collect();
    let mut init = Init {
        name,
        description: description.to_path_buf(),
        config_path: config,
        description_ref,
        xacro_args,
        srdf_ref,
        rest: rest.choice,
        tried: rest.tried,
        candidates,
        stuck: rest.stuck,
        adopted: options.adopt_contacts,
        truth: loaded.robot.truth,
        truth_chosen: options.truth.is_some(),
        coarse_links,
        coarse_pairs,
        evidence_pose,
        checked_pairs: scene.checked.len(),
        near_pairs: scene.near.len(),
        poses: options.poses,
        seed: options.seed,
        text: String::new(),
        warnings,
    };
    init.text = config_text(
        &init,
        loaded.robot.format == crate::model::SourceFormat::Mjcf,
    );
    Ok(init)
}

/// The SRDF named with --srdf, or the one found beside the description (dropped with a
/// warning when it does not fit the robot), read into `loaded`; its file.
fn attach_srdf(
    loaded: &mut LoadedRobot,
    description: &Path,
    options: &InitOptions,
    warnings: &mut Vec<String>,
) -> Result<Option<PathBuf>> {
    let xml = &options.read.load.mjcf_limits.xml;
    if let Some(s) = &options.srdf {
        loaded.srdf = Some(read_srdf(s, &loaded.robot, xml)?);
        return Ok(Some(s.clone()));
    }
    let Some(s) = find_srdf(description) else {
        return Ok(None);
    };
    match read_srdf(&s, &loaded.robot, xml) {
        Ok(srdf) => {
            loaded.srdf = Some(srdf);
            Ok(Some(s))
        }
        Err(e) => {
            warnings.push(format!(
                "{} lies beside the description but does not fit it ({}); it is not used (name one with --srdf)",
                s.display(),
                e.message
            ));
            Ok(None)
        }
    }
}

/// The rest pose chosen, what was ruled out before it, and the far pairs left out of the
/// choice.
struct Rest {
    choice: RestChoice,
    /// Kernel dof order.
    q: Vec<f64>,
    tried: Vec<Tried>,
    stuck: Vec<StuckPair>,
}

/// `truth` with contact at `margin`.
fn set_margin(truth: &mut MeshTruth, margin: f64) {
    let t = std::mem::replace(truth, MeshTruth::new(&[], &BTreeMap::new()));
    *truth = t.with_margin(margin);
}

/// The rest pose: the SRDF's group_states in order, then q = 0, each taken when no far pair
/// touches there (those in contact in most seeded poses aside: no pose parts them), then
/// the search from q = 0, at the first clearance it reaches.
fn choose_rest(
    loaded: &LoadedRobot,
    scene: &mut Scene,
    options: &InitOptions,
    description: &Path,
) -> Result<Rest> {
    let k = &scene.kernel;
    let names = |pairs: Vec<(usize, usize)>| -> Vec<(String, String)> {
        pairs
            .into_iter()
            .map(|(a, b)| (k.link_names[a].clone(), k.link_names[b].clone()))
            .collect()
    };
    let mut seen = BTreeSet::new();
    let mut poses: Vec<(Option<String>, Vec<f64>)> = Vec::new();
    for g in loaded.srdf.iter().flat_map(|s| &s.group_states) {
        if seen.insert(g.name.clone()) {
            let q = rest_q(loaded, k, Some(RestPoseSpec::Named(g.name.clone())))?;
            poses.push((Some(g.name.clone()), q));
        }
    }
    let zero = rest_q(loaded, k, None)?;
    poses.push((None, zero.clone()));
    let touching: Vec<Vec<(usize, usize)>> = poses
        .iter()
        .map(|(_, q)| design::touching_at(&k.model, &scene.truth, &scene.far, q))
        .collect();
    let at_some: Vec<(usize, usize)> = touching
        .iter()
        .flatten()
        .copied()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mostly = design::mostly_touching(
        &k.model,
        &scene.truth,
        &at_some,
        options.poses,
        options.seed,
    );
    let stuck_set: BTreeSet<(usize, usize)> = mostly.iter().map(|&(a, b, _)| (a, b)).collect();
    let stuck = mostly
        .iter()
        .map(|&(a, b, n)| StuckPair {
            a: k.link_names[a].clone(),
            b: k.link_names[b].clone(),
            touching_poses: n,
        })
        .collect();

    let mut tried = Vec::new();
    for ((state, q), touching) in poses.into_iter().zip(touching) {
        let touching: Vec<_> = touching
            .into_iter()
            .filter(|p| !stuck_set.contains(p))
            .collect();
        if touching.is_empty() {
            let choice = match state {
                Some(s) => RestChoice::GroupState(s),
                None => RestChoice::Zero,
            };
            return Ok(Rest {
                choice,
                q,
                tried,
                stuck,
            });
        }
        tried.push(Tried {
            label: match state {
                Some(s) => format!("group_state {s}"),
                None => "q = 0".into(),
            },
            far_contacts: names(touching),
        });
    }

    let fixable: Vec<(usize, usize)> = scene
        .far
        .iter()
        .copied()
        .filter(|p| !stuck_set.contains(p))
        .collect();
    let mut found = None;
    for clearance in SEARCH_CLEARANCES_M {
        set_margin(&mut scene.truth, clearance);
        found = design::nearest_free(
            &k.model,
            &scene.truth,
            &fixable,
            &zero,
            &SearchOptions::default(),
        )
        .map(|f| (f, clearance));
        set_margin(&mut scene.truth, 0.0);
        if found.is_some() {
            break;
        }
    }
    let Some((found, clearance)) = found else {
        let zero_contacts = &tried.last().expect("q = 0 was tried").far_contacts;
        return Err(Error::at(
            description,
            None,
            format!(
                "no free rest pose: at q = 0 the meshes of {} touch, and the search from q = 0 found no pose where they and every other pair more than {} moving joints apart are apart; nothing is written: choose the rest pose yourself, and exempt by hand with `allow:` rows what it cannot part",
                pair_list(zero_contacts, 3),
                design::MAX_JOINTS_APART,
            ),
        ));
    };
    let q = rounded(k, &scene.truth, &fixable, &zero, &found.q);
    let values = k
        .dof_names
        .iter()
        .zip(q.iter().zip(&zero))
        .filter(|(_, (v, z))| v != z)
        .map(|(n, (v, _))| (n.clone(), *v))
        .collect();
    Ok(Rest {
        choice: RestChoice::Searched {
            values,
            distance: design::distance(&q, &zero),
            tried: found.tried,
            clearance_m: clearance,
        },
        q,
        tried,
        stuck,
    })
}

fn refuse_existing(config: &Path, force: bool) -> Result<()> {
    if !force && std::fs::symlink_metadata(config).is_ok() {
        return Err(Error::at(
            config,
            None,
            "exists; `collide init` does not replace a config unless given --force",
        ));
    }
    Ok(())
}

/// The searched pose with its values rounded to the fewest of [`REST_DECIMALS`] (within
/// the limits) that keep it free, else as found.
fn rounded(
    k: &LoadedKernel,
    truth: &MeshTruth,
    far: &[(usize, usize)],
    zero: &[f64],
    q: &[f64],
) -> Vec<f64> {
    for decimals in REST_DECIMALS {
        let scale = 10f64.powi(decimals);
        let r: Vec<f64> = q
            .iter()
            .zip(zero)
            .enumerate()
            .map(|(d, (&v, &z))| {
                if v == z {
                    return z;
                }
                let (lo, hi) = k.model.dof_range(d);
                let v = ((v * scale).round() / scale).clamp(lo, hi);
                if v == 0.0 { 0.0 } else { v }
            })
            .collect();
        if design::touching_at(&k.model, truth, far, &r).is_empty() {
            return r;
        }
    }
    q.to_vec()
}

impl Init {
    /// The rest pose as one phrase: `group_state half_sitting`, `q = 0`, `searched`.
    pub fn rest_label(&self) -> String {
        match &self.rest {
            RestChoice::GroupState(n) => format!("group_state {n}"),
            RestChoice::Zero => "q = 0 (clamped into the limits)".into(),
            RestChoice::Searched { values, .. } => {
                format!("searched: {} joint(s) moved from q = 0", values.len())
            }
        }
    }

    /// Far pairs touching at the poses ruled out, for the summary.
    pub fn ruled_out(&self) -> String {
        tried_text(&self.tried)
    }

    pub fn json(&self) -> serde_json::Value {
        let rest = match &self.rest {
            RestChoice::GroupState(n) => serde_json::json!({"kind": "group_state", "name": n}),
            RestChoice::Zero => serde_json::json!({"kind": "zero"}),
            RestChoice::Searched {
                values,
                distance,
                tried,
                clearance_m,
            } => {
                let q: serde_json::Map<String, serde_json::Value> = values
                    .iter()
                    .map(|(n, v)| (n.clone(), serde_json::json!(v)))
                    .collect();
                serde_json::json!({"kind": "searched", "q": q, "distance": distance,
                    "poses_tried": tried, "clearance_m": clearance_m})
            }
        };
        let tried: Vec<_> = self
            .tried
            .iter()
            .map(|t| {
                serde_json::json!({"pose": t.label, "far_contacts":
                    t.far_contacts.iter().map(|(a, b)| serde_json::json!([a, b])).collect::<Vec<_>>()})
            })
            .collect();
        let candidates: Vec<_> = self
            .candidates
            .iter()
            .map(|c| {
                let at_rest = at_pose_json(c.candidate.at_rest);
                serde_json::json!({
                    "a": c.a, "b": c.b,
                    "joints_apart": c.candidate.joints_apart,
                    "touching_poses": c.candidate.touching_poses,
                    "poses": c.candidate.poses,
                    "share": c.candidate.share(),
                    "at_rest": at_rest,
                    "adopted": self.adopted,
                })
            })
            .collect();
        serde_json::json!({
            "robot": self.name,
            "config": self.config_path.display().to_string(),
            "description": self.description_ref,
            "xacro_args": self.xacro_args,
            "srdf": self.srdf_ref,
            "rest_pose": rest,
            "truth": {
                "geometry": self.truth.as_str(),
                "chosen": self.truth_chosen,
                "coarse_links": self.coarse_links,
                "evidence_pose": self.evidence_pose,
                "pairs": self.coarse_pairs.iter().map(|p| serde_json::json!({
                    "a": p.a, "b": p.b,
                    "collision_and_visual": at_pose_json(p.with_collision),
                    "visual_apart_m": p.visual_apart_m,
                })).collect::<Vec<_>>(),
            },
            "ruled_out": tried,
            "checked_pairs": self.checked_pairs,
            "near_pairs": self.near_pairs,
            "poses": self.poses,
            "seed": self.seed,
            "candidates": candidates,
            "far_pairs_mostly_touching":
                self.stuck.iter().map(|p| serde_json::json!({"a": p.a, "b": p.b,
                    "touching_poses": p.touching_poses})).collect::<Vec<_>>(),
        })
    }
}

/// `"apart"`, `"touching"` or `{"depth_m": d}`.
fn at_pose_json(p: AtPose) -> serde_json::Value {
    match p {
        AtPose::Apart => serde_json::json!("apart"),
        AtPose::Touching => serde_json::json!("touching"),
        AtPose::Deep(d) => serde_json::json!({"depth_m": d}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_directory_names() {
        assert_eq!(dir_name("iCub", "x"), "iCub");
        assert_eq!(dir_name("my robot/v2", "x"), "my_robot_v2");
        assert_eq!(dir_name("", "stem"), "stem");
        assert_eq!(dir_name("..", "stem"), "stem");
    }

    #[test]
    fn comments_wrap_and_stay_comments() {
        let c = comment("  ", &format!("{} end\nnext", "word ".repeat(40)));
        assert!(
            c.lines().all(|l| l.starts_with("  # ") && l.len() <= 100),
            "{c}"
        );
        assert!(c.contains("end\\nnext"));
    }
}
