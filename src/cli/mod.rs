//! One file per subcommand; `args` holds the raw clap definitions.

pub mod acm;
pub mod args;
pub mod export;
pub mod fk;
pub mod init;
pub mod inspect;
pub mod lower;
pub mod report;
pub mod rewrite;
pub mod sweep;
pub mod verify;

use crate::error::Result;
use crate::io::mjcf::MjcfLimits;
use crate::io::robot::LoadOptions;
use crate::io::xml::XmlLimits;
use args::{Cli, Command, ReadArgs};

pub fn run(cli: Cli) -> Result<i32> {
    // `--quiet` is the one global setting: every command reads it here, once.
    crate::messages::set_quiet(cli.command.read().quiet);
    match cli.command {
        Command::Init(a) => init::run(a),
        Command::Inspect(a) => inspect::run(a),
        Command::Fk(a) => fk::run(a),
        Command::Lower(a) => lower::run(a),
        Command::Acm(c) => acm::run(c),
        Command::Verify(a) => verify::run(a),
        Command::Sweep(a) => sweep::run(a),
        Command::Report(a) => report::run(a),
        Command::Export(a) => export::run(a),
    }
}

impl Command {
    /// The reading options every command takes.
    fn read(&self) -> &ReadArgs {
        match self {
            Command::Init(a) => &a.read,
            Command::Inspect(a) => &a.read,
            Command::Fk(a) => &a.read,
            Command::Lower(a) => &a.read,
            Command::Acm(args::AcmCommand::Regenerate(a)) => &a.read,
            Command::Verify(a) => &a.read,
            Command::Sweep(a) => &a.read,
            Command::Report(a) => &a.read,
            Command::Export(a) => &a.read,
        }
    }
}

impl ReadArgs {
    /// What `sweep` and `report` read the robot and its meshes with.
    pub fn sweep_read(&self) -> crate::io::robot::ReadOptions {
        crate::io::robot::ReadOptions {
            load: self.load_options(),
            mesh_limits: crate::io::mesh::MeshLimits {
                max_triangles: self.max_triangles,
            },
            max_total_triangles: self.max_total_triangles,
        }
    }

    pub fn load_options(&self) -> LoadOptions {
        LoadOptions {
            package_paths: self.package_path.clone(),
            mjcf_limits: MjcfLimits {
                xml: XmlLimits {
                    max_bytes: self.max_xml_bytes,
                    max_depth: self.max_xml_depth,
                },
                max_include_depth: self.max_include_depth,
            },
            xacro_args: self.xacro_arg.clone(),
        }
    }
}
