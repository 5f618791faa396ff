//! No allocation after `collide_session_new`: a counting global allocator counts every
//! allocation on this thread while thousands of `collide_check`, `collide_check_verdict`,
//! `collide_check_coherent`
//! (on a smooth path, so both its skips and its exact checks run) and `collide_pair_distances`
//! calls run on the Panda and the G1 (seeded poses, several margins and cutoffs, in and out
//! of collision). Only the success path is counted: a failing call allocates its message
//! for `collide_last_error`.

use collide::truth::poses::uniform_q;
use collide_kernel::*;
#[path = "../../../tests/common/counting_alloc.rs"]
mod counting_alloc;

use counting_alloc::{Counting, counted};
use std::ffi::CString;
use std::path::Path;
use std::ptr;

#[global_allocator]
static GLOBAL: Counting = Counting;

fn no_allocation_after_session_new(robot: &str) {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../robots/{robot}/manifest.yaml"));
    let c = CString::new(path.to_str().unwrap()).unwrap();
    let mut model = ptr::null();
    assert_eq!(
        unsafe { collide_model_load(c.as_ptr(), &mut model) },
        CollideStatus::Ok
    );
    let mut session = ptr::null_mut();
    assert_eq!(
        unsafe { collide_session_new(model, &mut session) },
        CollideStatus::Ok
    );
    // The poses and the output buffer are the caller's, made before counting.
    let direct =
        collide::manifest::kernel::load_kernel(&collide::manifest::load_manifest(&path).unwrap())
            .unwrap()
            .model;
    let n = direct.dof();
    let qs: Vec<Vec<f64>> = (0..2000)
        .map(|i| {
            let mut q = vec![0.0; n];
            uniform_q(&direct, 7, i, &mut q);
            q
        })
        .collect();
    let mut out = vec![0.0; unsafe { collide_model_pair_count(model) }];
    let mut r = CollideResult::default();
    let (mut skipped, mut exact) = (0u64, 0u64);
    assert!(n <= 64);
    let ((ok, tripped), allocs) = counted(|| {
        let (mut ok, mut tripped) = (0, 0);
        for (i, q) in qs.iter().enumerate() {
            let margin = [0.0, 0.01, 0.05][i % 3];
            let st = unsafe { collide_check(session, q.as_ptr(), n, margin, &mut r) };
            ok += (st == CollideStatus::Ok) as usize;
            tripped += r.in_collision as usize;
            let mut v = CollideVerdictResult::default();
            let st = unsafe { collide_check_verdict(session, q.as_ptr(), n, margin, &mut v) };
            ok += (st == CollideStatus::Ok) as usize;
            tripped += v.in_collision as usize;
            let cutoff = [0.0, 0.1, f64::INFINITY][i % 3];
            let st = unsafe {
                collide_pair_distances(session, q.as_ptr(), n, cutoff, out.as_mut_ptr(), out.len())
            };
            ok += (st == CollideStatus::Ok) as usize;
            // The coherent mode on a 1 mrad path from this pose: skips and exact checks,
            // in the three presets (the speed preset's budget leaves pairs unchecked).
            // Witness points on every other pose (the least pair's closest points).
            let st = unsafe { collide_session_set_witness(session, (i % 2) as u32) };
            ok += (st == CollideStatus::Ok) as usize;
            let preset = [(1, 0), (2, 2), (0, 0)][(i / 7) % 3];
            let st = unsafe { collide_session_set_preset(session, preset.0, preset.1) };
            ok += (st == CollideStatus::Ok) as usize;
            for k in 0..5 {
                let mut qk = [0.0; 64];
                for (d, v) in q.iter().enumerate() {
                    qk[d] = v + 1e-3 * k as f64;
                }
                let st = unsafe { collide_check_coherent(session, qk.as_ptr(), n, margin, &mut r) };
                ok += (st == CollideStatus::Ok) as usize;
                let mut stats = CollideStats::default();
                unsafe { collide_session_stats(session, &mut stats) };
                skipped += stats.skipped_pairs as u64;
                exact += stats.exact_pairs as u64;
            }
            if i % 500 == 0 {
                ok += (unsafe { collide_session_reset(session) } == CollideStatus::Ok) as usize;
            }
        }
        (ok, tripped)
    });
    assert_eq!(ok, 10 * qs.len() + qs.len() / 500, "every call succeeded");
    assert!(
        skipped > 0 && exact > 0,
        "{robot}: the coherent calls skipped {skipped}, checked {exact}"
    );
    assert!(
        tripped > 0,
        "{robot}: no pose tripped, the count covers only free poses"
    );
    assert_eq!(
        allocs, 0,
        "{robot}: {allocs} allocations after collide_session_new"
    );
    // The counter counts: a failing call (its message) is seen.
    let (_, seen) =
        counted(|| unsafe { collide_check(session, qs[0].as_ptr(), n + 1, 0.0, &mut r) });
    assert!(seen > 0, "the counting allocator saw nothing");
    unsafe {
        collide_session_free(session);
        collide_model_free(model);
    }
}

#[test]
fn panda_checks_allocate_nothing() {
    no_allocation_after_session_new("franka_panda");
}

#[test]
fn g1_checks_allocate_nothing() {
    no_allocation_after_session_new("g1_29dof");
}
