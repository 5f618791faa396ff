//! `collide report [MANIFEST...] [--outside MANIFEST...] [--out DIR] [--fleet-md FILE] [--poses N] [--seed S]`

use super::args::ReportArgs;
use crate::error::{Error, Result};
use crate::report::fleet;
use std::path::Path;

pub fn run(args: ReportArgs) -> Result<i32> {
    if args.poses == 0 {
        return Err(Error::input("--poses must be at least 1"));
    }
    let manifests = if args.manifests.is_empty() {
        fleet::fleet_manifests(Path::new("robots"))?
    } else {
        args.manifests.clone()
    };
    let robots = fleet::generate(
        &manifests,
        &args.outside,
        &args.out,
        args.fleet_md.as_deref(),
        args.poses,
        args.seed,
        &args.read.sweep_read(),
    )?;
    let mut missed = 0;
    for r in &robots {
        for w in &r.sweep.warnings {
            crate::messages::warning(w);
        }
        super::sweep::print_missed(&r.sweep);
        missed += r.sweep.total_missed() + r.sweep.total_missed_hull();
    }
    crate::out!("{}", fleet::fleet_grid(&robots).markdown());
    match &args.fleet_md {
        Some(md) => crate::outln!(
            "wrote {} and {}",
            args.out.join("index.html").display(),
            md.display()
        ),
        None => crate::outln!("wrote {}", args.out.join("index.html").display()),
    }
    Ok(if missed > 0 { 1 } else { 0 })
}
