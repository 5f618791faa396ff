//! Per-call cost of the C ABI on committed manifests (docs/kernel-library.md, "Measured
//! cost"): `collide_check` on seeded uniform poses and on two smooth 1 kHz paths, the
//! coherent check on those paths in each preset, and `collide_check_batch` throughput on
//! 1 and 2 threads. `cargo run --release -p collide-kernel --example cost [robot...]`.
//!
//! The paths, 5000 calls each, every joint stepping at most 1 mrad (1 mm) a call (1 rad/s):
//! * **free**: from the manifest's rest pose toward seeded in-limit goals, back to the rest
//!   pose along the same points before the first step that trips at the manifest's margin
//!   (a controller moving in free space, up to the margin and back). None when the rest
//!   pose itself trips.
//! * **through collision**: from a seeded pose, every joint moving 1 mrad every call and
//!   turning at its limits, whatever the verdict (the cost where pairs overlap).

use collide::truth::poses::{turning_path, uniform_q};
use collide_kernel::*;
use std::ffi::CString;
use std::time::Instant;

const CALLS: usize = 5000;
const STEP: f64 = 1e-3;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The free path: from rest toward goal k until the next step would trip (or the goal is
/// reached), back to rest along the same points, then toward goal k + 1, ... `None` when
/// the rest pose trips.
fn free_path(m: &collide::kernel::Model, rest: &[f64]) -> Option<Vec<Vec<f64>>> {
    let mut ws = m.workspace();
    let mut trips = |q: &[f64]| m.check_self_collision(q, &mut ws, false).tripped;
    if trips(rest) {
        return None;
    }
    let n = m.dof();
    let mut out: Vec<Vec<f64>> = Vec::with_capacity(CALLS + 10_000);
    let mut goal = vec![0.0; n];
    for k in 0.. {
        uniform_q(m, 31, k, &mut goal);
        let mut leg = vec![rest.to_vec()];
        loop {
            let q = leg.last().unwrap();
            let next: Vec<f64> = (0..n)
                .map(|i| q[i] + (goal[i] - q[i]).clamp(-STEP, STEP))
                .collect();
            if next == *q || trips(&next) {
                break;
            }
            leg.push(next);
        }
        out.extend(leg.iter().skip(1).cloned());
        out.extend(leg.iter().rev().skip(1).cloned());
        if out.len() >= CALLS {
            break;
        }
    }
    out.truncate(CALLS);
    Some(out)
}

struct Timed {
    median_us: f64,
    p99_us: f64,
    skipped: f64,
    tripped: usize,
    unknown: usize,
}

/// Median per call of `collide_check` (preset `None`; warm-started with `warm`) or of the
/// coherent check in a preset, on a fresh session, over `path`.
fn time_path(
    model: *const CollideModel,
    path: &[Vec<f64>],
    preset: Option<(u32, u32)>,
    warm: bool,
) -> Timed {
    let mut s = std::ptr::null_mut();
    assert_eq!(
        unsafe { collide_session_new(model, &mut s) },
        CollideStatus::Ok
    );
    assert_eq!(
        unsafe { collide_session_set_warm_start(s, warm as u32) },
        CollideStatus::Ok
    );
    if let Some((p, b)) = preset {
        assert_eq!(
            unsafe { collide_session_set_preset(s, p, b) },
            CollideStatus::Ok
        );
    }
    let n = unsafe { collide_model_pair_count(model) } as f64;
    let mut r = CollideResult::default();
    let (mut t, mut skipped, mut tripped, mut unknown) = (Vec::new(), 0.0, 0, 0);
    for q in path {
        let t0 = Instant::now();
        let st = match preset {
            None => unsafe { collide_check(s, q.as_ptr(), q.len(), 0.0, &mut r) },
            Some(_) => unsafe { collide_check_coherent(s, q.as_ptr(), q.len(), 0.0, &mut r) },
        };
        t.push(t0.elapsed().as_secs_f64() * 1e6);
        assert_eq!(st, CollideStatus::Ok);
        let mut stats = CollideStats::default();
        unsafe { collide_session_stats(s, &mut stats) };
        skipped += stats.skipped_pairs as f64 / n;
        tripped += (r.verdict == CollideVerdict::InCollision) as usize;
        unknown += (r.verdict == CollideVerdict::Unknown) as usize;
    }
    unsafe { collide_session_free(s) };
    t.sort_by(f64::total_cmp);
    Timed {
        p99_us: t[t.len() * 99 / 100],
        median_us: median(t),
        skipped: 100.0 * skipped / path.len() as f64,
        tripped,
        unknown,
    }
}

fn main() {
    let robots: Vec<String> = std::env::args().skip(1).collect();
    let robots = if robots.is_empty() {
        vec!["franka_panda".into(), "g1_29dof".into(), "tiago".into()]
    } else {
        robots
    };
    for robot in robots {
        let path = format!("robots/{robot}/manifest.yaml");
        let manifest = collide::manifest::load_manifest(std::path::Path::new(&path)).unwrap();
        let loaded = collide::manifest::kernel::load_kernel(&manifest).unwrap();
        let direct = &loaded.model;
        let rest = loaded.q_from(&manifest.rest_pose.q);
        let c = CString::new(path.clone()).unwrap();
        let mut model = std::ptr::null();
        assert_eq!(
            unsafe { collide_model_load(c.as_ptr(), &mut model) },
            CollideStatus::Ok
        );
        let n = direct.dof();
        let uniform: Vec<Vec<f64>> = (0..CALLS as u64)
            .map(|i| {
                let mut q = vec![0.0; n];
                uniform_q(direct, 1, i, &mut q);
                q
            })
            .collect();
        let t_uniform = time_path(model, &uniform, None, false).median_us;
        // The kernel called directly on the same poses: the ABI's overhead.
        let mut ws = direct.workspace();
        let t_direct = median(
            uniform
                .iter()
                .map(|q| {
                    let t0 = Instant::now();
                    std::hint::black_box(direct.check_self_collision(q, &mut ws, false));
                    t0.elapsed().as_secs_f64() * 1e6
                })
                .collect(),
        );
        println!(
            "{robot}: {n} joints, {} pairs; collide_check {t_uniform:.2} µs on uniform poses (the kernel directly {t_direct:.2} µs)",
            unsafe { collide_model_pair_count(model) },
        );
        let paths = [
            ("free", free_path(direct, &rest)),
            (
                "through collision",
                Some(turning_path(direct, 1, 0, STEP, CALLS)),
            ),
        ];
        for (name, p) in paths {
            let Some(p) = p else {
                println!("  {name} path: none (the rest pose trips)");
                continue;
            };
            let plain = time_path(model, &p, None, false);
            let warm = time_path(model, &p, None, true);
            let bal = time_path(model, &p, Some((1, 0)), false);
            let speed = time_path(model, &p, Some((2, 16)), false);
            println!(
                "  {name} path ({} of {CALLS} calls in collision), median / p99: collide_check {:.2} / {:.2} µs \
                 (warm-started {:.2} / {:.2}); balanced {:.2} / {:.2} µs ({:.1}×, {:.1} % of pairs skipped); speed (budget 16) {:.2} / {:.2} µs ({:.1}×, unknown on {} calls)",
                plain.tripped,
                plain.median_us,
                plain.p99_us,
                warm.median_us,
                warm.p99_us,
                bal.median_us,
                bal.p99_us,
                plain.median_us / bal.median_us,
                bal.skipped,
                speed.median_us,
                speed.p99_us,
                plain.median_us / speed.median_us,
                speed.unknown,
            );
            assert_eq!(warm.tripped, plain.tripped, "{robot}: warm verdicts differ");
            assert_eq!(
                bal.tripped, plain.tripped,
                "{robot}: balanced verdicts differ {} {}",
                bal.tripped, plain.tripped
            );
        }
        let flat: Vec<f64> = uniform.iter().flatten().copied().collect();
        let mut out = vec![CollideResult::default(); uniform.len()];
        let mut rate = |threads| {
            let t0 = Instant::now();
            let st = unsafe {
                collide_check_batch(
                    model,
                    flat.as_ptr(),
                    uniform.len(),
                    n,
                    0.0,
                    out.as_mut_ptr(),
                    threads,
                )
            };
            assert_eq!(st, CollideStatus::Ok);
            uniform.len() as f64 / t0.elapsed().as_secs_f64()
        };
        let (b1, b2) = (rate(1), rate(2));
        println!("  batch: {b1:.0} poses/s on 1 thread, {b2:.0} on 2");
        unsafe { collide_model_free(model) };
    }
}
