//! The kernel's cost on *free* poses (no pair within the manifest's margin) of committed
//! manifests, with the counters the refinement's cost model prices: `cargo run --release -p
//! collide-kernel --example free_cost [robot...]` (default: the Panda, G1, PR2 and TIAGo).
//!
//! Poses (2000): rays from the manifest's rest pose toward seeded uniform goals (seed 31),
//! every joint stepping at most 0.02 rad (2 cm) a pose, each ray stopped before the first
//! pose where the kernel trips a pair at the manifest's margin that the rest pose does not
//! trip (free space as a controller meets it; the kernel's lower bounds make every such pose
//! free for the real meshes on every other pair; PR2 and TIAGo trip at rest on pairs whose
//! meshes are apart, so their rest trips are allowed). Each call is
//! timed as the best of five on one thread; the figure is the median over poses (µs), then
//! the mean counters per pose.
//! Built against main and against a change in the same run, it compares the two.
//!
//! `free_cost dump`: verdict, first pair and minimum distance (all 17 digits) of
//! `check_self_collision` and the verdict-only check on 3000 seeded uniform poses (seed 5) of
//! every committed manifest, one line each, for comparing two builds.

use collide::truth::poses::uniform_q;
use std::time::Instant;

const POSES: usize = 2000;
const STEP: f64 = 0.02;

/// The free poses on rays from `rest` (see the module docs).
fn free_poses(m: &collide::kernel::Model, rest: &[f64]) -> Vec<Vec<f64>> {
    let mut ws = m.workspace();
    let mut tripping = |q: &[f64]| -> Vec<bool> {
        m.check_self_collision(q, &mut ws, true);
        ws.pair_distances()
            .iter()
            .map(|&v| v.is_nan() || v <= m.margin())
            .collect()
    };
    let at_rest = tripping(rest);
    let mut trips = |q: &[f64]| tripping(q).iter().zip(&at_rest).any(|(&t, &r)| t && !r);
    let mut out = Vec::new();
    let mut goal = vec![0.0; m.dof()];
    for k in 0..100_000 {
        uniform_q(m, 31, k, &mut goal);
        let mut q = rest.to_vec();
        loop {
            let next: Vec<f64> = q
                .iter()
                .zip(&goal)
                .map(|(v, g)| v + (g - v).clamp(-STEP, STEP))
                .collect();
            if next == q || trips(&next) {
                break;
            }
            out.push(next.clone());
            if out.len() == POSES {
                return out;
            }
            q = next;
        }
    }
    out
}

fn dump() {
    let mut robots: Vec<_> = std::fs::read_dir("robots")
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    robots.sort();
    for robot in robots {
        let path = format!("robots/{robot}/manifest.yaml");
        let Ok(manifest) = collide::manifest::load_manifest(std::path::Path::new(&path)) else {
            continue;
        };
        let m = collide::manifest::kernel::load_kernel(&manifest)
            .unwrap()
            .model;
        let mut ws = m.workspace();
        let mut q = vec![0.0; m.dof()];
        for i in 0..3000 {
            uniform_q(&m, 5, i, &mut q);
            let r = m.check_self_collision(&q, &mut ws, false);
            let v = m.check_verdict(&q, &mut ws, m.margin());
            println!(
                "{robot} {i} {} {:?} {} {:?} {:?} {:.17e}",
                r.tripped,
                r.first_tripping_pair,
                v.tripped,
                v.first_tripping_pair,
                r.min_pair,
                r.min_distance
            );
        }
    }
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("dump") {
        return dump();
    }
    let robots: Vec<String> = std::env::args().skip(1).collect();
    let robots = if robots.is_empty() {
        ["franka_panda", "g1_29dof", "pr2", "tiago"]
            .map(String::from)
            .to_vec()
    } else {
        robots
    };
    for robot in robots {
        let path = format!("robots/{robot}/manifest.yaml");
        let manifest = collide::manifest::load_manifest(std::path::Path::new(&path)).unwrap();
        let loaded = collide::manifest::kernel::load_kernel(&manifest).unwrap();
        let m = &loaded.model;
        let free = free_poses(m, &loaded.q_from(&manifest.rest_pose.q));
        let mut ws = m.workspace();
        let (mut full, mut verdict) = (Vec::new(), Vec::new());
        let mut sums = [0u64; 6];
        for q in &free {
            let mut best = f64::INFINITY;
            for _ in 0..5 {
                let t0 = Instant::now();
                std::hint::black_box(m.check_self_collision(q, &mut ws, false));
                best = best.min(t0.elapsed().as_secs_f64() * 1e6);
            }
            full.push(best);
            let s = ws.stats();
            for (k, v) in [
                s.prim_pairs,
                s.narrow,
                s.narrow_tight,
                s.gjk_steps,
                s.scanned_vertices,
                s.epa_steps,
            ]
            .into_iter()
            .enumerate()
            {
                sums[k] += u64::from(v);
            }
            let mut best = f64::INFINITY;
            for _ in 0..5 {
                let t0 = Instant::now();
                std::hint::black_box(m.check_verdict(q, &mut ws, m.margin()));
                best = best.min(t0.elapsed().as_secs_f64() * 1e6);
            }
            verdict.push(best);
        }
        let med = |mut v: Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
        };
        let n = free.len().max(1) as f64;
        let per = |k: usize| sums[k] as f64 / n;
        println!(
            "{robot}: {} free poses; check {:.2} µs, verdict {:.2} µs (median); per pose: \
             prim_pairs {:.0}, narrow {:.1}, narrow_tight {:.1}, gjk_steps {:.1}, \
             scanned_vertices {:.0}, epa_steps {:.1}",
            free.len(),
            med(full),
            med(verdict),
            per(0),
            per(1),
            per(2),
            per(3),
            per(4),
            per(5),
        );
    }
}
