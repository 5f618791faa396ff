//! `collide sweep MANIFEST [--poses N] [--seed S] [--compare SET...] [--verdicts FILE] [--json]`,
//! and with `--world SCENE [--pitch P]` the world check instead (docs/world.md).

use super::args::{CompareSet, SweepArgs};
use crate::error::{Error, Result};
use crate::report::{render, world};
use crate::sweep::{self, Set, SweepReport};

pub fn set_of(c: CompareSet) -> Set {
    match c {
        CompareSet::SingleCapsule => Set::SingleCapsule,
        CompareSet::Fit => Set::Fit,
        CompareSet::AllTight => Set::AllTight,
    }
}

pub fn run(args: SweepArgs) -> Result<i32> {
    if args.poses == 0 {
        return Err(Error::input("--poses must be at least 1"));
    }
    if args.steps == 0 {
        return Err(Error::input("--steps must be at least 1"));
    }
    if let Some(path) = &args.verdicts {
        // Before the sweep, not after minutes of it: the directory must be there.
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
        if dir.is_some_and(|d| !d.is_dir()) || path.is_dir() {
            return Err(Error::input(format!(
                "{}: cannot write the verdicts there (no such directory, or a directory)",
                path.display()
            )));
        }
    }
    let compare: Vec<Set> = args.compare.iter().map(|c| set_of(*c)).collect();
    let rays = sweep::RayOptions {
        rays: args.rays,
        steps: args.steps,
        seed: args.ray_seed,
    };
    if let Some(scene) = &args.world {
        return run_world(&args, scene, rays, &compare);
    }
    if args.pitch.is_some() {
        return Err(Error::input(
            "--pitch is the world's cell side: give it with --world SCENE",
        ));
    }
    let report = sweep::sweep(
        &args.manifest,
        args.poses,
        args.seed,
        rays,
        &compare,
        &args.read.sweep_read(),
        true,
    )?;
    for w in &report.warnings {
        crate::messages::warning(w);
    }
    if let Some(path) = &args.verdicts {
        // The same manifest, loaded again for its dof order and the seeded poses.
        let kernel =
            crate::manifest::kernel::load_kernel(&crate::manifest::load_manifest(&args.manifest)?)?;
        crate::io::atomic::write_atomic(path, sweep::verdicts_csv(&report, &kernel).as_bytes())?;
    }
    print_missed(&report);
    if args.json {
        crate::outln!(
            "{}",
            serde_json::to_string_pretty(&render::json(&report)).expect("plain JSON")
        );
    } else {
        crate::out!("{}", render::summary(&report));
        crate::outln!(
            "\nkernel time per configuration (check_self_collision alone; free: the {} free poses of the rays and the uniform poses; all-pose: the {} uniform poses; sweep took {:.2} s: mesh truth {:.2} s, hull truth {:.2} s, kernel {:.2} s):",
            report.sets.first().map_or(0, |s| s.free.free_poses()),
            report.poses,
            report.elapsed_s,
            report.mesh_s,
            report.hull_s,
            report.kernel_s
        );
        crate::out!("{}", render::timing_table(&report).render());
    }
    // A miss against the meshes is the headline failure; one against the hull truth (whose
    // pieces lie inside the primitives) is a containment failure too.
    Ok(if report.total_missed() + report.total_missed_hull() > 0 {
        1
    } else {
        0
    })
}

/// `sweep --world`: the world check judged in SCENE; exit 1 on a missed contact.
fn run_world(
    args: &SweepArgs,
    scene: &std::path::Path,
    rays: sweep::RayOptions,
    compare: &[Set],
) -> Result<i32> {
    if args.verdicts.is_some() {
        return Err(Error::input(
            "--verdicts is the self check's: not with --world",
        ));
    }
    let report = sweep::world::sweep_world(
        &args.manifest,
        scene,
        args.pitch.unwrap_or(0.025),
        args.poses,
        args.seed,
        rays,
        compare,
        &args.read.sweep_read(),
    )?;
    for w in &report.warnings {
        crate::messages::warning(w);
    }
    for m in &report.missed {
        crate::messages::failure(&world::missed_line(m));
    }
    if args.json {
        crate::outln!(
            "{}",
            serde_json::to_string_pretty(&world::json(&report)).expect("plain JSON")
        );
    } else {
        crate::out!("{}", world::summary(&report));
        crate::outln!(
            "\nkernel time per call (check_world at margin 0, single thread, the least of three calls per uniform pose; sweep took {:.2} s):",
            report.elapsed_s
        );
        crate::out!("{}", world::timing_table(&report).render());
    }
    Ok(if report.total_missed() > 0 { 1 } else { 0 })
}

/// Every missed contact on stderr (always, whatever --quiet says), then the count.
pub fn print_missed(report: &SweepReport) {
    for m in &report.missed {
        crate::messages::failure(&render::missed_line(m));
    }
    if !report.missed.is_empty() {
        crate::messages::failure(&format!(
            "{}: {} missed contact(s): the kernel cleared pairs whose truth touches",
            report.robot,
            report.missed.len()
        ));
    }
}
