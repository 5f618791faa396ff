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
    /// Links, joints, limits, mimic and per-link geometry of a robot.
    Inspect(InspectArgs),
    /// World pose of every link at a configuration.
    Fk(FkArgs),
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
    /// Refuse XML nested deeper than this.
    #[arg(long, value_name = "N", default_value_t = 256)]
    pub max_xml_depth: usize,
    /// Refuse MJCF includes nested deeper than this.
    #[arg(long, value_name = "N", default_value_t = 16)]
    pub max_include_depth: usize,
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
    /// Joint values as JSON, e.g. '{"panda_joint1": 0.3}'; joints not named are at 0.
    #[arg(long, value_name = "JSON")]
    pub q: Option<String>,
    /// JSON output (the only output format of fk).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub read: ReadArgs,
}
