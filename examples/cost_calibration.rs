//! The refinement's cost model against the measured kernel, where the robot operates: per
//! manifest, on the free poses of `collide sweep`'s measure (200 rays x 24 steps from the rest
//! pose and 3000 seeded poses, the ones where no checked pair's meshes touch), the estimated
//! median (`lower::refine::CostModel`) and the measured median (each pose timed five times, the
//! least kept), and their ratio; beside them, on the 3000 uniform poses (on a humanoid most of them
//! in contact), the full check's measured median and the verdict-only check's (`check_verdict`,
//! what a sampling planner calls). `--dump FILE` also writes one line per free pose, the
//! counters the prices are fitted to (non-negative least squares on relative error,
//! scripts/fit-cost-model.py) and the measured ns:
//! `robot links checked_pairs prim_pairs narrow narrow_tight full_scan_vertices gjk_steps ns`.
//! `cargo run --release --example cost_calibration -- [--dump FILE] robots/*/manifest.yaml`

use collide::io::robot::ReadOptions;
use collide::lower::refine::CostModel;
use collide::truth::contacts::mesh_contacts;
use collide::truth::reach::{self, Rays, free_poses, ray_contacts};
use std::io::Write;
use std::time::Instant;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut dump = None;
    if let Some(i) = args.iter().position(|a| a == "--dump") {
        dump = Some(std::fs::File::create(&args[i + 1]).expect("dump file"));
        args.drain(i..=i + 1);
    }
    println!(
        "manifest\tfree poses\testimated median us\tmeasured median us\tmeasured p99 us\testimate / measured\tall-pose median us\tall-pose verdict-only median us"
    );
    for path in args {
        let prepared = collide::sweep::prepare(
            std::path::Path::new(&path),
            &[],
            &ReadOptions {
                mesh_limits: collide::io::mesh::MeshLimits {
                    max_triangles: collide::io::mesh::DEFAULT_MAX_TRIANGLES,
                },
                max_total_triangles: 50_000_000,
                ..Default::default()
            },
        )
        .expect("manifest");
        let k = prepared.fit_kernel();
        let model = &k.model;
        let pairs = model.checked_pairs().to_vec();
        let contacts = mesh_contacts(
            model,
            &prepared.mesh_truth,
            &pairs,
            collide::sweep::DEFAULT_POSES,
            collide::sweep::DEFAULT_SEED,
        );
        let rays = ray_contacts(
            model,
            &prepared.mesh_truth,
            &pairs,
            Rays {
                rays: reach::DEFAULT_RAYS,
                steps: reach::DEFAULT_STEPS,
                seed: reach::DEFAULT_SEED,
                rest_q: k.q_from(&prepared.manifest.rest_pose.q),
            },
        );
        let free = free_poses(model, &rays, &contacts);
        let mut ws = model.workspace();
        let mut measured = Vec::with_capacity(free.len());
        for q in &free {
            let mut best = u128::MAX;
            for _ in 0..5 {
                let t = Instant::now();
                model.check_self_collision(q, &mut ws, false);
                best = best.min(t.elapsed().as_nanos());
            }
            measured.push(best as f64);
            if let Some(f) = dump.as_mut() {
                let s = ws.stats();
                writeln!(
                    f,
                    "{} {} {} {} {} {} {} {} {best}",
                    prepared.manifest.robot,
                    model.n_links(),
                    pairs.len(),
                    s.prim_pairs,
                    s.narrow - s.narrow_tight,
                    s.narrow_tight,
                    s.full_scan_vertices,
                    s.gjk_steps,
                )
                .expect("dump");
            }
        }
        let median = |mut ns: Vec<f64>, p: f64| {
            ns.sort_by(f64::total_cmp);
            ns.get(((p * ns.len() as f64).ceil() as usize).clamp(1, ns.len().max(1)) - 1)
                .copied()
                .unwrap_or(0.0)
                / 1e3
        };
        let (free_median, free_p99) = (median(measured.clone(), 0.5), median(measured, 0.99));
        let estimate = CostModel::over(model, &free).median_us;
        let (mut full, mut verdict) = (Vec::new(), Vec::new());
        let mut q = vec![0.0; model.dof()];
        for i in 0..collide::sweep::DEFAULT_POSES {
            collide::truth::poses::uniform_q(model, collide::sweep::DEFAULT_SEED, i as u64, &mut q);
            let (mut f, mut v) = (u128::MAX, u128::MAX);
            for _ in 0..5 {
                let t = Instant::now();
                model.check_self_collision(&q, &mut ws, false);
                f = f.min(t.elapsed().as_nanos());
                let t = Instant::now();
                model.check_verdict(&q, &mut ws, model.margin());
                v = v.min(t.elapsed().as_nanos());
            }
            full.push(f as f64);
            verdict.push(v as f64);
        }
        println!(
            "{path}\t{}\t{estimate:.2}\t{free_median:.2}\t{free_p99:.2}\t{:.2}\t{:.2}\t{:.2}",
            free.len(),
            estimate / free_median.max(1e-9),
            median(full, 0.5),
            median(verdict, 0.5),
        );
    }
}
