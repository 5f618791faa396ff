//! `collide export MANIFEST --target ros|pinocchio|mjcf|drake... [--out DIR] [--force] [--json]`:
//! exit 0 written, 1 when a written file fails the containment proof (nothing written),
//! 2 on bad input or a manifest that does not verify (nothing written).

use super::args::ExportArgs;
use crate::error::{Error, Result};
use crate::export::{Target, export};
use crate::io::mesh::MeshLimits;
use crate::verify::check::VerifyOptions;

pub fn run(args: ExportArgs) -> Result<i32> {
    let mut targets = Vec::new();
    for t in &args.targets {
        // `--target ros,mjcf` is accepted too.
        for name in t.split(',').map(str::trim) {
            let target = Target::parse(name).ok_or_else(|| {
                Error::input(format!(
                    "unknown --target `{name}` (expected one of: ros, pinocchio, mjcf, drake)"
                ))
            })?;
            if !targets.contains(&target) {
                targets.push(target);
            }
        }
    }
    targets.sort();
    if !args.manifest.is_file() {
        return Err(Error::at(&args.manifest, None, "no such manifest"));
    }
    let out = args.out.clone().unwrap_or_else(|| {
        args.manifest
            .parent()
            .unwrap_or(std::path::Path::new(""))
            .join("export")
    });
    let options = VerifyOptions {
        load: args.read.load_options(),
        mesh_limits: MeshLimits {
            max_triangles: args.read.max_triangles,
        },
        max_total_triangles: args.read.max_total_triangles,
        budget: args.budget,
    };
    let written = export(&args.manifest, &targets, &out, args.force, &options)?;
    if args.json {
        let items: Vec<_> = written
            .iter()
            .map(|w| {
                serde_json::json!({"target": w.target.name(), "dir": w.dir.display().to_string(),
                    "main": w.main.display().to_string(), "files": w.files, "hulls": w.hulls})
            })
            .collect();
        crate::outln!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "manifest": args.manifest.display().to_string(), "targets": items}))
            .expect("plain JSON")
        );
    } else {
        for w in &written {
            crate::outln!(
                "{}: {} ({} files, {} hull OBJs), proven on the files as read back",
                w.target.name(),
                w.main.display(),
                w.files,
                w.hulls
            );
        }
    }
    Ok(0)
}
