//! Raw command-line arguments (clap). Each command's module validates them once.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "collide",
    version,
    about = "Robot descriptions in, proven collision geometry out"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Start a robot config (robots/NAME/robot.yaml) from a URDF or MJCF: its SRDF, a rest pose where the meshes are apart, and the contacts by design for you to decide.
    Init(InitArgs),
    /// Links, joints, limits, mimic and per-link geometry of a robot.
    Inspect(InspectArgs),
    /// World pose of every link at a configuration.
    Fk(FkArgs),
    /// Fit proven primitives to every link and write the manifest.
    Lower(LowerArgs),
    /// The allowed-collision matrix, every exemption proven.
    #[command(subcommand)]
    Acm(AcmCommand),
    /// Re-check committed manifests: sources, containment, ACM proofs, kernel, rest pose.
    Verify(VerifyArgs),
    /// Judge the kernel's verdicts against the robot's real meshes on seeded poses.
    Sweep(SweepArgs),
    /// Sweep every committed robot and write the HTML fleet report (and, asked for, the Markdown fleet page).
    Report(ReportArgs),
    /// Write the proven geometry and ACM in the files ROS (MoveIt), Pinocchio, MuJoCo and Drake read, once the manifest verifies.
    Export(ExportArgs),
}

#[derive(Debug, Args)]
pub struct InitArgs {
    /// A .urdf, a .xacro or .urdf.xacro (expanded with the --xacro-arg NAME:=VALUE given, which the config records as its `xacro_args`) or an MJCF .xml.
    pub robot: PathBuf,
    /// Directory of the config (default: robots/NAME/, NAME the description's robot name).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// The robot's SRDF (default: one beside the description: the same stem, or in a sibling srdf/ directory).
    #[arg(long, value_name = "FILE")]
    pub srdf: Option<PathBuf>,
    /// Write the contacts by design as active `allow:` rows (their reason says they were adopted without review) instead of commented-out ones.
    #[arg(long)]
    pub adopt_contacts: bool,
    /// Replace an existing DIR/robot.yaml.
    #[arg(long)]
    pub force: bool,
    /// Which geometry is each link's truth, written as the config's `truth:`: `collision+visual` (every piece: the default, safe) or `visual` (the visual pieces alone, for <collision> blocks that are coarse placeholders; a link without a visual piece keeps its collision pieces). Without it, init judges on collision+visual and, where coarse collision primitives make pairs touch at rest while the visual pieces are apart, writes `truth: visual` commented out with that evidence.
    #[arg(long, value_name = "GEOMETRY", value_parser = truth_geometry)]
    pub truth: Option<crate::model::TruthGeometry>,
    /// Seeded poses of the contact-by-design search.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub poses: usize,
    #[arg(long, default_value_t = 20260924)]
    pub seed: u64,
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub read: ReadArgs,
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Manifests to check (each beside its robot.yaml); a directory means every manifest.yaml below it.
    #[arg(required = true)]
    pub manifests: Vec<PathBuf>,
    #[arg(long)]
    pub json: bool,
    /// Branch-and-bound boxes allowed to re-prove one `never` row.
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    pub budget: usize,
    #[command(flatten)]
    pub read: ReadArgs,
}

/// A primitive set for `--compare`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CompareSet {
    /// One capsule per link.
    SingleCapsule,
    /// The manifest as written.
    Fit,
    /// Box + 26-DOP + hull on every link.
    AllTight,
}

#[derive(Debug, Args)]
pub struct SweepArgs {
    /// A manifest (robots/NAME/manifest.yaml); the robot config beside it gives the truth meshes.
    pub manifest: PathBuf,
    /// Seeded uniform in-limit configurations.
    #[arg(long, value_name = "N", default_value_t = 3000)]
    pub poses: usize,
    #[arg(long, default_value_t = 20260924)]
    pub seed: u64,
    /// Free-space rays from the rest pose toward seeded uniform poses.
    #[arg(long, value_name = "N", default_value_t = 200)]
    pub rays: usize,
    /// Steps per ray.
    #[arg(long, value_name = "K", default_value_t = 24)]
    pub steps: usize,
    /// Seed of the rays' goal poses.
    #[arg(long, value_name = "S", default_value_t = 11)]
    pub ray_seed: u64,
    /// Also judge other fits of the same robot on the same poses.
    #[arg(long, value_enum, num_args = 1.., value_name = "SET")]
    pub compare: Vec<CompareSet>,
    /// Write the kernel's verdict at each seeded pose (its joint values, in collision or not, the least distance and its pair) as CSV to FILE.
    #[arg(long, value_name = "FILE")]
    pub verdicts: Option<PathBuf>,
    /// Judge the world check instead: SCENE a triangle mesh (STL, OBJ, DAE) in the robot's root frame, its surface voxelised at --pitch (docs/world.md).
    #[arg(long, value_name = "SCENE")]
    pub world: Option<PathBuf>,
    /// The world's cell side in metres, with --world [default: 0.025].
    #[arg(long, value_name = "P", allow_negative_numbers = true)]
    pub pitch: Option<f64>,
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub read: ReadArgs,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// A manifest (robots/NAME/manifest.yaml), beside its robot.yaml.
    pub manifest: PathBuf,
    /// What reads the export: ros, pinocchio, mjcf or drake (repeatable).
    #[arg(long = "target", value_name = "TARGET", required = true)]
    pub targets: Vec<String>,
    /// Directory for the export, one folder per target [default: export/ beside the manifest].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Write even when --out is inside the package the robot's description came from.
    #[arg(long)]
    pub force: bool,
    #[arg(long)]
    pub json: bool,
    /// Branch-and-bound boxes allowed to re-prove one `never` row (as `verify`).
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    pub budget: usize,
    #[command(flatten)]
    pub read: ReadArgs,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Manifests to report on (default: every robots/*/manifest.yaml).
    pub manifests: Vec<PathBuf>,
    /// Directory for the HTML page (index.html); nothing is written outside it unless --fleet-md says so.
    #[arg(long, value_name = "DIR", default_value = "report")]
    pub out: PathBuf,
    /// Also write the Markdown fleet page here (the repository's is docs/fleet.md).
    #[arg(long, value_name = "FILE")]
    pub fleet_md: Option<PathBuf>,
    /// A robot outside the fleet, reported in a section of its own after the fleet (repeatable; `make outside` sets up five from example-robot-data).
    #[arg(long, value_name = "MANIFEST")]
    pub outside: Vec<PathBuf>,
    /// Seeded poses per robot (as `sweep`; the whole fleet takes well under a minute).
    #[arg(long, value_name = "N", default_value_t = 3000)]
    pub poses: usize,
    #[arg(long, default_value_t = 20260924)]
    pub seed: u64,
    #[command(flatten)]
    pub read: ReadArgs,
}

#[derive(Debug, Args)]
pub struct LowerArgs {
    /// A robot config (robots/NAME/robot.yaml), a .urdf or an MJCF .xml.
    pub robot: PathBuf,
    /// Lower LINK as a box plus exact hull, by hand; LINK=N decomposes it into at most N convex pieces, LINK=auto up to the piece budget; `all` for every link (repeatable). Without it, links are refined automatically.
    #[arg(long = "tight-link", value_name = "LINK[=N|=auto]")]
    pub tight_link: Vec<String>,
    /// Keep the fit rule's choice: no automatic refinement against the meshes.
    #[arg(long)]
    pub no_refine: bool,
    /// Median kernel cost per check_self_collision the refinement may reach, in µs (estimated; default 5 for an arm of at most 12 links with geometry, 40 otherwise).
    #[arg(long, value_name = "US", allow_hyphen_values = true)]
    pub budget_us: Option<f64>,
    /// Clear with geometry even the pairs proven never to meet on the real meshes (which `acm regenerate` exempts), instead of leaving them out of the refinement.
    #[arg(long)]
    pub no_mesh_proofs: bool,
    /// The manifest (default: manifest.yaml beside the robot config).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Replace the manifest (atomically) after every proof and check passed.
    #[arg(long, conflicts_with = "check")]
    pub write: bool,
    /// Exit 1 if the manifest would change (for CI).
    #[arg(long)]
    pub check: bool,
    /// Let --write replace fits that stand further off their hull than the existing ones.
    #[arg(long)]
    pub allow_loosen: bool,
    /// Clearance capsules, chains and plain boxes keep around every vertex, in metres.
    #[arg(long, value_name = "M", default_value_t = 0.001)]
    pub headroom: f64,
    /// Clearance tight hulls keep, in metres (0: the exact hull, written at 1 µm).
    #[arg(long, value_name = "M", default_value_t = 0.0)]
    pub hull_headroom: f64,
    /// Print the per-link table as JSON instead.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub read: ReadArgs,
}

#[derive(Debug, Subcommand)]
pub enum AcmCommand {
    /// Recompute the ACM of a robot's manifest.
    Regenerate(AcmArgs),
}

#[derive(Debug, Args)]
pub struct AcmArgs {
    /// A robot config (robots/NAME/robot.yaml); its manifest must exist (run `collide lower` first).
    pub robot: PathBuf,
    /// The manifest (default: manifest.yaml beside the robot config).
    #[arg(long, value_name = "FILE")]
    pub manifest: Option<PathBuf>,
    /// Replace the manifest's acm block (atomically) after the kernel checked the result.
    #[arg(long, conflicts_with = "check")]
    pub write: bool,
    /// Exit 1 if the manifest would change.
    #[arg(long)]
    pub check: bool,
    /// Also write a MoveIt-compatible SRDF disable_collisions list.
    #[arg(long, value_name = "FILE")]
    pub srdf_out: Option<PathBuf>,
    /// Which of the robot's SRDF rows stay exemptions: the proven ones (exempt by their proofs anyway) or none. Rows collide cannot prove are exempt only as the config's `allow:` entries (see --adopt-srdf).
    #[arg(long, value_enum, default_value_t = KeepSrdf::Proven)]
    pub keep_srdf: KeepSrdf,
    /// Copy the SRDF rows collide refutes or cannot prove into the robot config's `allow:` list, as user exemptions citing the SRDF's line and reason; `--adopt-srdf=LINK_A,LINK_B` adopts that row only (repeatable). robot.yaml is edited only with --write.
    #[arg(
        long,
        value_name = "LINK_A,LINK_B",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "",
        conflicts_with = "check"
    )]
    pub adopt_srdf: Vec<String>,
    /// Seeded sample poses for the report (never create exemptions).
    #[arg(long, default_value_t = 10_000)]
    pub samples: usize,
    #[arg(long, default_value_t = 20260924)]
    pub seed: u64,
    /// Branch-and-bound boxes one pair may use before it is left unproven.
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    pub budget: usize,
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub read: ReadArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum KeepSrdf {
    /// Gone (unproven rows now go through `allow:`); kept only to say so.
    #[value(hide = true)]
    Unproven,
    Proven,
    None,
}

/// Options shared by every command that reads a robot.
#[derive(Debug, Args, Clone)]
pub struct ReadArgs {
    /// A package root searched first for package:// references (repeatable).
    #[arg(long = "package-path", value_name = "DIR")]
    pub package_path: Vec<PathBuf>,
    /// Refuse meshes with more triangles than this.
    #[arg(long, value_name = "N", default_value_t = 5_000_000)]
    pub max_triangles: usize,
    /// Refuse robots whose meshes hold more triangles than this in total.
    #[arg(long, value_name = "N", default_value_t = 50_000_000)]
    pub max_total_triangles: usize,
    /// Refuse XML files larger than this many bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 64 << 20)]
    pub max_xml_bytes: u64,
    /// Refuse XML nested deeper than this (at most 1000).
    #[arg(long, value_name = "N", default_value_t = 256, value_parser = xml_depth)]
    pub max_xml_depth: usize,
    /// Refuse MJCF includes nested deeper than this.
    #[arg(long, value_name = "N", default_value_t = 16)]
    pub max_include_depth: usize,
    /// An argument for a xacro description, as `xacro NAME:=VALUE` takes it (repeatable; over the robot config's `xacro_args`).
    #[arg(long = "xacro-arg", value_name = "NAME:=VALUE", value_parser = xacro_arg)]
    pub xacro_arg: Vec<(String, String)>,
    /// Print no warnings.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct InspectArgs {
    /// A .urdf, an MJCF .xml, a robot.yaml config, or a directory to inspect every robot below.
    pub robot: PathBuf,
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub read: ReadArgs,
}

#[derive(Debug, Args)]
pub struct FkArgs {
    pub robot: PathBuf,
    /// Joint values as JSON, e.g. '{"panda_joint1": 0.3}'; joints not named are at 0. An array of such objects gives several configurations; `@FILE` reads the JSON from FILE.
    #[arg(long, value_name = "JSON")]
    pub q: Option<String>,
    /// Also the kernel's distance for every pair this manifest checks (m; at or below its margin, the pair trips), per configuration.
    #[arg(long, value_name = "MANIFEST")]
    pub pairs: Option<PathBuf>,
    /// JSON output (the only output format of fk).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub read: ReadArgs,
}

/// `--xacro-arg NAME:=VALUE`: a name without white space, then `:=`, then the value (may be empty).
fn truth_geometry(s: &str) -> Result<crate::model::TruthGeometry, String> {
    use crate::model::TruthGeometry;
    [TruthGeometry::CollisionAndVisual, TruthGeometry::Visual]
        .into_iter()
        .find(|t| t.as_str() == s)
        .ok_or_else(|| format!("`{s}` is not `collision+visual` or `visual`"))
}

fn xacro_arg(s: &str) -> Result<(String, String), String> {
    match s.split_once(":=") {
        Some((name, value)) if !name.is_empty() && !name.contains(char::is_whitespace) => {
            Ok((name.to_string(), value.to_string()))
        }
        _ => Err(format!("`{s}` is not NAME:=VALUE")),
    }
}

/// `--max-xml-depth`: the readers recurse once per level, so there is a ceiling.
fn xml_depth(s: &str) -> Result<usize, String> {
    let ceiling = crate::io::xml::MAX_XML_DEPTH_CEILING;
    match s.parse::<usize>() {
        Ok(n) if n <= ceiling => Ok(n),
        Ok(n) => Err(format!(
            "{n} is above {ceiling}, the deepest XML collide reads"
        )),
        Err(e) => Err(e.to_string()),
    }
}
