//! Free space when surfaces closer than a tolerance count as touching: how many of a
//! manifest's refused free poses lie where some checked pair's meshes are within the
//! manifest's own resolution (its values are written to 1 µm, rounded outward, so no
//! written geometry can part surfaces a micrometre or two apart).
//!
//! `cargo run --release --example free_at_resolution -- MANIFEST [TOL_UM ...]`
//! (default tolerances 0 0.5 1 1.5 2 5 µm; `COLLIDE_PACKAGE_PATH` as for the CLI). The
//! measure is the sweep's: 200 rays x 24 steps from the rest pose, ray seed 11; only the
//! truth's contact tolerance changes (`MeshTruth::with_margin`).

use collide::io::robot::{LoadOptions, ReadOptions};
use collide::sweep::prepare;
use collide::truth::mesh::MeshTruth;
use collide::truth::reach::{
    DEFAULT_RAYS, DEFAULT_SEED, DEFAULT_STEPS, Rays, judge_rays, ray_contacts,
};
use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .ok_or("usage: free_at_resolution MANIFEST [TOL_UM ...]")?;
    let mut tolerances: Vec<f64> = args.map(|a| a.parse()).collect::<Result<_, _>>()?;
    if tolerances.is_empty() {
        tolerances = vec![0.0, 0.5, 1.0, 1.5, 2.0, 5.0];
    }
    // The package resolver reads COLLIDE_PACKAGE_PATH itself, as for the CLI.
    let read = ReadOptions::new(LoadOptions::default());
    let prepared = prepare(Path::new(&path), &[], &read)?;
    let kernel = prepared.fit_kernel();
    let pairs = kernel.model.checked_pairs().to_vec();
    let rays = Rays {
        rays: DEFAULT_RAYS,
        steps: DEFAULT_STEPS,
        seed: DEFAULT_SEED,
        rest_q: kernel.q_from(&prepared.manifest.rest_pose.q),
    };
    println!("tolerance µm  free poses  refused free  refused free %  reach kept %");
    for tol_um in tolerances {
        let truth = MeshTruth::new(&kernel.link_names, &prepared.meshes).with_margin(tol_um * 1e-6);
        let contacts = ray_contacts(&kernel.model, &truth, &pairs, rays.clone());
        let free = judge_rays(&kernel.model, &contacts)?;
        println!(
            "{tol_um:>12}  {:>10}  {:>12}  {:>14.1}  {:>12.1}",
            free.free_poses,
            free.refused_free,
            free.refused_free_pct().unwrap_or(0.0),
            100.0 * free.reach_kept.unwrap_or(0.0)
        );
    }
    Ok(())
}
