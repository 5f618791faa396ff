//! Per-call cost of the C ABI on committed manifests: `collide_check` on a smooth trajectory
//! (1 mrad joint steps) and on seeded uniform poses, `collide_check_coherent` on the smooth one, and `collide_check_batch` throughput on
//! 1 and 2 threads. `cargo run --release -p collide-kernel --example cost [robot...]`.

use collide::truth::poses::uniform_q;
use collide_kernel::*;
use std::ffi::CString;
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
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
        let direct = collide::manifest::kernel::load_kernel(
            &collide::manifest::load_manifest(std::path::Path::new(&path)).unwrap(),
        )
        .unwrap()
        .model;
        let c = CString::new(path.clone()).unwrap();
        let mut model = std::ptr::null();
        assert_eq!(
            unsafe { collide_model_load(c.as_ptr(), &mut model) },
            CollideStatus::Ok
        );
        let mut s = std::ptr::null_mut();
        assert_eq!(
            unsafe { collide_session_new(model, &mut s) },
            CollideStatus::Ok
        );
        let n = direct.dof();
        let mut r = CollideResult::default();
        let mut time = |qs: &[Vec<f64>]| {
            let mut t = Vec::with_capacity(qs.len());
            for q in qs {
                let t0 = Instant::now();
                let st = unsafe { collide_check(s, q.as_ptr(), n, 0.0, &mut r) };
                t.push(t0.elapsed().as_secs_f64() * 1e6);
                assert_eq!(st, CollideStatus::Ok);
            }
            median(t)
        };
        let uniform: Vec<Vec<f64>> = (0..5000)
            .map(|i| {
                let mut q = vec![0.0; n];
                uniform_q(&direct, 1, i, &mut q);
                q
            })
            .collect();
        // From a seeded pose, 1 mrad (or 1 mm) per joint per step, turning back at the
        // limits: 1 kHz control-rate motion (1 rad/s).
        let mut q = uniform[0].clone();
        let mut dir: Vec<f64> = (0..n)
            .map(|i| if i % 2 == 0 { 1.0 } else { -1.0 })
            .collect();
        let smooth: Vec<Vec<f64>> = (0..5000)
            .map(|_| {
                for (i, v) in q.iter_mut().enumerate() {
                    let (lo, hi) = direct.dof_range(i);
                    if *v + 1e-3 * dir[i] > hi || *v + 1e-3 * dir[i] < lo {
                        dir[i] = -dir[i];
                    }
                    *v += 1e-3 * dir[i];
                }
                q.clone()
            })
            .collect();
        let t_uniform = time(&uniform);
        let t_smooth = time(&smooth);
        // The kernel called directly on the same poses, interleaved: the ABI's overhead.
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
        let t_uniform2 = time(&uniform);
        // The coherent mode on the same smooth path, from a cold cache.
        let mut coh = std::ptr::null_mut();
        assert_eq!(
            unsafe { collide_session_new(model, &mut coh) },
            CollideStatus::Ok
        );
        let (mut t, mut skipped, mut pairs) = (Vec::new(), 0u64, 0u64);
        for q in &smooth {
            let t0 = Instant::now();
            let st = unsafe { collide_check_coherent(coh, q.as_ptr(), n, 0.0, &mut r) };
            t.push(t0.elapsed().as_secs_f64() * 1e6);
            assert_eq!(st, CollideStatus::Ok);
            let mut stats = CollideStats::default();
            unsafe { collide_session_stats(coh, &mut stats) };
            skipped += stats.skipped_pairs as u64;
            pairs += (stats.skipped_pairs + stats.exact_pairs) as u64;
        }
        let t_coherent = median(t);
        unsafe { collide_session_free(coh) };
        let flat: Vec<f64> = uniform.iter().flatten().copied().collect();
        let mut out = vec![r; uniform.len()];
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
        println!(
            "{robot}: {n} joints, {} pairs; collide_check median {t_uniform:.2} / {t_uniform2:.2} µs \
             (uniform poses, before / after the kernel direct: {t_direct:.2} µs), {t_smooth:.2} µs (1 mrad steps), coherent {t_coherent:.2} µs \
             ({:.1}×, {:.1} % of pairs skipped); batch {b1:.0} poses/s on 1 thread, {b2:.0} on 2",
            unsafe { collide_model_pair_count(model) },
            t_smooth / t_coherent,
            100.0 * skipped as f64 / pairs as f64
        );
        unsafe {
            collide_session_free(s);
            collide_model_free(model);
        }
    }
}
