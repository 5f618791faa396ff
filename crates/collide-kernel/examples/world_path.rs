//! The world check's cost per step on smooth paths (docs/benchmarks.md, "The world check"):
//! the robot moving through the synthetic scene (examples/scenes/table_shelf_wall_post.obj,
//! its surface voxelised at 25 mm) along 20 seeded paths of 200 steps each (cosine-eased
//! between two seeded uniform in-limit poses, so a step moves every joint by at most
//! π/2 · |b − a| / 199), at margin 0.02 m. Every step is checked three ways through the
//! library's Rust API, each on its own session, one thread: the full check
//! (`check_world`), the verdict-only check and the coherent check (`check_world_coherent`:
//! links proven clear since their last exact check are skipped), each timed once per step
//! (a repeated coherent call would find every link cached, so no mode takes the least of
//! several calls). The world check has no presets: these three are its modes. Asserts that
//! the three verdicts agree at every step.
//!
//! `cargo run --release -p collide-kernel --example world_path [robot...]` from the
//! repository root (default: franka_panda g1_29dof).

use collide::truth::poses::uniform_q;
use collide_kernel::world::CollideWorld;
use collide_kernel::{CollideModel, CollideSession};
use std::path::Path;
use std::time::Instant;

const PATHS: u64 = 20;
const STEPS: usize = 200;
const MARGIN: f64 = 0.02;

/// (median, p99) in µs.
fn stats(mut t: Vec<f64>) -> (f64, f64) {
    t.sort_by(f64::total_cmp);
    (t[t.len() / 2], t[t.len() * 99 / 100])
}

fn main() {
    let robots: Vec<String> = std::env::args().skip(1).collect();
    let robots = if robots.is_empty() {
        vec!["franka_panda".into(), "g1_29dof".into()]
    } else {
        robots
    };
    let scene = Path::new("examples/scenes/table_shelf_wall_post.obj");
    let world = CollideWorld::from_mesh(scene, 0.025, [0.0; 3]).expect("the scene");
    println!(
        "| robot | steps | steps within the margin | full median / p99 µs | verdict-only median / p99 µs | coherent median / p99 µs | links skipped by the coherent check |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for robot in robots {
        let path = format!("robots/{robot}/manifest.yaml");
        let model = CollideModel::open(Path::new(&path)).expect("the manifest");
        let manifest = collide::manifest::load_manifest(Path::new(&path)).unwrap();
        let direct = collide::manifest::kernel::load_kernel(&manifest)
            .unwrap()
            .model;
        let n = model.dof();
        let (mut full, mut verdict, mut coherent) = (
            CollideSession::new(model.clone()),
            CollideSession::new(model.clone()),
            CollideSession::new(model.clone()),
        );
        let (mut t_full, mut t_verdict, mut t_coh) = (vec![], vec![], vec![]);
        let (mut trips, mut skipped, mut checked) = (0usize, 0u64, 0u64);
        let (mut a, mut b) = (vec![0.0; n], vec![0.0; n]);
        for p in 0..PATHS {
            uniform_q(&direct, 33, 2 * p, &mut a);
            uniform_q(&direct, 33, 2 * p + 1, &mut b);
            for k in 0..STEPS {
                let s = 0.5 * (1.0 - (std::f64::consts::PI * k as f64 / (STEPS - 1) as f64).cos());
                let q: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x + s * (y - x)).collect();
                let time = |f: &mut dyn FnMut() -> bool| {
                    let t = Instant::now();
                    let v = f();
                    (t.elapsed().as_secs_f64() * 1e6, v)
                };
                let (tf, vf) = time(&mut || {
                    full.check_world(&world, &q, MARGIN, false)
                        .unwrap()
                        .in_collision
                });
                let (tv, vv) = time(&mut || {
                    verdict
                        .check_world(&world, &q, MARGIN, true)
                        .unwrap()
                        .in_collision
                });
                let (tc, vc) = time(&mut || {
                    coherent
                        .check_world_coherent(&world, &q, MARGIN)
                        .unwrap()
                        .in_collision
                });
                t_coh.push(tc);
                assert!(
                    vf == vv && vf == vc,
                    "{robot} path {p} step {k}: verdicts differ"
                );
                let (sk, ch) = coherent.world_coherent_stats();
                skipped += u64::from(sk);
                checked += u64::from(ch);
                trips += vf as usize;
                t_full.push(tf);
                t_verdict.push(tv);
            }
        }
        let steps = t_full.len();
        let (fm, fp) = stats(t_full);
        let (vm, vp) = stats(t_verdict);
        let (cm, cp) = stats(t_coh);
        println!(
            "| {robot} | {steps} | {trips} | {fm:.2} / {fp:.2} | {vm:.2} / {vp:.2} | {cm:.2} / {cp:.2} | {:.1} % |",
            100.0 * skipped as f64 / (skipped + checked).max(1) as f64
        );
    }
}
