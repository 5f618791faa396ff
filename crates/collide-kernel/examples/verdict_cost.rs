//! The verdict-only check beside the full check (docs/benchmarks.md): `collide_check_verdict`
//! and `collide_check` on the same seeded uniform in-limit poses (seed 1, 5000 poses), one
//! thread, each pose timed both ways back to back three times (alternating which goes
//! first, so load drifts hit both alike) and its least time kept; median and p99 per call
//! over all poses, and over the poses in collision and the free ones. Asserts the two verdicts agree on every pose.
//! `cargo run --release -p collide-kernel --example verdict_cost [robot...]` from the
//! repository root (default: franka_panda g1_29dof tiago pr2).

use collide::truth::poses::uniform_q;
use collide_kernel::*;
use std::ffi::CString;
use std::time::Instant;

const POSES: u64 = 5000;
const REPEATS: u64 = 3;

/// (median, p99) of `t`, in µs; NaN when empty.
fn stats(mut t: Vec<f64>) -> (f64, f64) {
    if t.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    t.sort_by(f64::total_cmp);
    (t[t.len() / 2], t[t.len() * 99 / 100])
}

fn main() {
    let robots: Vec<String> = std::env::args().skip(1).collect();
    let robots = if robots.is_empty() {
        ["franka_panda", "g1_29dof", "tiago", "pr2"]
            .map(String::from)
            .to_vec()
    } else {
        robots
    };
    println!(
        "| robot | poses in collision | full check median / p99 (µs) | verdict-only median / p99 (µs) | full / verdict, in collision (µs, medians) | full / verdict, free (µs, medians) |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    for robot in robots {
        let path = format!("robots/{robot}/manifest.yaml");
        let manifest = collide::manifest::load_manifest(std::path::Path::new(&path)).unwrap();
        let direct = collide::manifest::kernel::load_kernel(&manifest)
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
        let margin = direct.margin();
        let n = direct.dof();
        let mut q = vec![0.0; n];
        let (mut full, mut verdict) = (Vec::new(), Vec::new());
        let (mut hit_full, mut hit_verdict, mut free_full, mut free_verdict) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut r = CollideResult::default();
        let mut v = CollideVerdictResult::default();
        for i in 0..POSES {
            uniform_q(&direct, 1, i, &mut q);
            let mut time_full = || {
                let t0 = Instant::now();
                let st = unsafe { collide_check(s, q.as_ptr(), n, margin, &mut r) };
                let t = t0.elapsed().as_secs_f64() * 1e6;
                assert_eq!(st, CollideStatus::Ok);
                t
            };
            let mut time_verdict = || {
                let t0 = Instant::now();
                let st = unsafe { collide_check_verdict(s, q.as_ptr(), n, margin, &mut v) };
                let t = t0.elapsed().as_secs_f64() * 1e6;
                assert_eq!(st, CollideStatus::Ok);
                t
            };
            // The least of REPEATS timings per pose: a call the scheduler preempts (this
            // machine is shared) would otherwise stand for the pose.
            let (mut tf, mut tv) = (f64::INFINITY, f64::INFINITY);
            for k in 0..REPEATS {
                if (i + k) % 2 == 0 {
                    tf = tf.min(time_full());
                    tv = tv.min(time_verdict());
                } else {
                    tv = tv.min(time_verdict());
                    tf = tf.min(time_full());
                }
            }
            assert_eq!(r.in_collision, v.in_collision, "{robot}: pose {i}");
            full.push(tf);
            verdict.push(tv);
            if r.in_collision {
                hit_full.push(tf);
                hit_verdict.push(tv);
            } else {
                free_full.push(tf);
                free_verdict.push(tv);
            }
        }
        let hits = hit_full.len();
        let (fm, fp) = stats(full);
        let (vm, vp) = stats(verdict);
        let (hf, hv) = (stats(hit_full).0, stats(hit_verdict).0);
        let (ff, fv) = (stats(free_full).0, stats(free_verdict).0);
        println!(
            "| {robot} | {hits} of {POSES} | {fm:.2} / {fp:.2} | {vm:.2} / {vp:.2} | {hf:.2} / {hv:.2} | {ff:.2} / {fv:.2} |"
        );
        unsafe {
            collide_session_free(s);
            collide_model_free(model);
        }
    }
}
