//! Per-call cost of the C ABI on committed manifests: `collide_check` on a smooth trajectory
//! (1 mrad joint steps) and on seeded uniform poses, and `collide_check_batch` throughput on
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
        let mut r = CollideResult {
            in_collision: false,
            within_limits: false,
            min_distance: 0.0,
            pair: 0,
            link_a: 0,
            link_b: 0,
        };
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
        // From a seeded pose, 1 mrad per joint per step: 1 kHz control-rate motion.
        let mut q = uniform[0].clone();
        let smooth: Vec<Vec<f64>> = (0..5000)
            .map(|k| {
                for (i, v) in q.iter_mut().enumerate() {
                    *v += 1e-3 * if (k / 500 + i) % 2 == 0 { 1.0 } else { -1.0 };
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
             (uniform poses, before / after the kernel direct: {t_direct:.2} µs), {t_smooth:.2} µs (1 mrad steps); batch {b1:.0} poses/s on 1 thread, {b2:.0} on 2",
            unsafe { collide_model_pair_count(model) }
        );
        unsafe {
            collide_session_free(s);
            collide_model_free(model);
        }
    }
}
