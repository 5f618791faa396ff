//! The verdict-only entry points against `collide_check` and the kernel: on 1000 seeded
//! uniform poses of the Panda, the G1 and TIAGo, at the manifest's margin and at 2 cm,
//! `collide_check_verdict` gives `collide_check`'s `in_collision` and the kernel's first
//! tripping pair; `collide_check_verdict_batch` gives the single calls' results at 1, 2, 3
//! and one-per-CPU threads; the Rust API wrappers give the same; bad input is a status and
//! a message naming the cause, as for the other entry points.

use collide::manifest::kernel::load_kernel;
use collide::truth::poses::uniform_q;
use collide_kernel::*;
mod common;
use common::{last_error, load, manifest};
use std::collections::BTreeSet;
use std::ptr;

/// A result no call writes: a call that did not write would be caught.
const UNWRITTEN: CollideVerdictResult = CollideVerdictResult {
    in_collision: true,
    within_limits: true,
    pair: -7,
    link_a: -7,
    link_b: -7,
};

fn agrees(robot: &str) {
    let path = manifest(robot);
    let loaded = load(&path);
    let (model, session) = (loaded.model, loaded.session);
    let base = load_kernel(&collide::manifest::load_manifest(&path).unwrap())
        .unwrap()
        .model;
    let pairs = base.checked_pairs();
    let mut ws = base.workspace();
    let n = base.dof();
    let qs: Vec<Vec<f64>> = (0..1000)
        .map(|i| {
            let mut q = vec![0.0; n];
            uniform_q(&base, 31, i, &mut q);
            q
        })
        .collect();
    let flat: Vec<f64> = qs.concat();
    let rust_model = CollideModel::open(&path).unwrap();
    let mut rust_session = CollideSession::new(rust_model.clone());
    let (mut free, mut distinct) = (0, BTreeSet::new());
    for margin in [base.margin(), 0.02] {
        let mut singles = Vec::with_capacity(qs.len());
        for q in &qs {
            let mut full = CollideResult::default();
            let st = unsafe { collide_check(session, q.as_ptr(), n, margin, &mut full) };
            assert_eq!(st, CollideStatus::Ok, "{}", last_error());
            let mut v = UNWRITTEN;
            let st = unsafe { collide_check_verdict(session, q.as_ptr(), n, margin, &mut v) };
            assert_eq!(st, CollideStatus::Ok, "{}", last_error());
            let k = base.check_self_collision_with_margin(q, &mut ws, margin, false);
            assert_eq!(v.in_collision, full.in_collision, "{robot} {q:?}");
            assert_eq!(v.within_limits, full.within_limits);
            match k.first_tripping_pair {
                Some((a, b)) => {
                    assert_eq!((v.link_a, v.link_b), (a as i64, b as i64), "{robot} {q:?}");
                    assert_eq!(pairs[v.pair as usize], (a, b));
                }
                None => assert_eq!((v.pair, v.link_a, v.link_b), (-1, -1, -1)),
            }
            assert_eq!(rust_session.check_verdict(q, margin).unwrap(), v);
            singles.push(v);
        }
        let tripped = singles.iter().filter(|v| v.in_collision).count();
        let here: BTreeSet<i64> = singles.iter().map(|v| v.pair).collect();
        eprintln!(
            "{robot} margin {margin}: {tripped} of 1000 trip, at {} distinct first pairs",
            here.len()
        );
        free += qs.len() - tripped;
        distinct.extend(here);
        for threads in [1, 2, 3, 0] {
            let mut got = vec![UNWRITTEN; qs.len()];
            let st = unsafe {
                collide_check_verdict_batch(
                    model,
                    flat.as_ptr(),
                    qs.len(),
                    n,
                    margin,
                    got.as_mut_ptr(),
                    threads,
                )
            };
            assert_eq!(st, CollideStatus::Ok, "{}", last_error());
            assert_eq!(got, singles, "{robot}: {threads} threads");
        }
        let mut got = vec![UNWRITTEN; qs.len()];
        rust_model
            .check_verdict_batch(&flat, margin, &mut got, 2)
            .unwrap();
        assert_eq!(got, singles);
    }
    // Not vacuous: poses trip at several pairs, and on the arm and the humanoid some are
    // free at the manifest's margin (TIAGo's committed geometry trips at rest).
    assert!(distinct.len() > 2, "{robot}: {distinct:?}");
    if robot != "tiago" {
        assert!(free > 0, "{robot}: no free pose");
    }
}

#[test]
fn verdict_is_collide_checks_on_the_panda() {
    agrees("franka_panda");
}

#[test]
fn verdict_is_collide_checks_on_the_g1() {
    agrees("g1_29dof");
}

#[test]
fn verdict_is_collide_checks_on_tiago() {
    agrees("tiago");
}

/// A failing call: the status, and a message naming `expect`.
fn refused(st: CollideStatus, expect: &str) {
    assert_eq!(st, CollideStatus::BadArgument, "{}", last_error());
    let msg = last_error();
    assert!(msg.contains(expect), "`{msg}` does not mention `{expect}`");
}

#[test]
fn bad_input_is_a_status_and_a_message() {
    let path = manifest("franka_panda");
    let loaded = load(&path);
    let (model, s) = (loaded.model, loaded.session);
    let n = unsafe { collide_model_joint_count(model) };
    let mut q = vec![0.0; n];
    let mut r = UNWRITTEN;
    unsafe {
        refused(
            collide_check_verdict(s, q.as_ptr(), n - 1, 0.0, &mut r),
            &format!("collide_check_verdict: q has {} values", n - 1),
        );
        assert_eq!(
            r,
            CollideVerdictResult::EMPTY,
            "a failed call leaves an empty result"
        );
        q[2] = f64::NAN;
        refused(
            collide_check_verdict(s, q.as_ptr(), n, 0.0, &mut r),
            "q[2] (joint `panda_joint3`) is NaN",
        );
        q[2] = 0.0;
        refused(
            collide_check_verdict(s, q.as_ptr(), n, -0.001, &mut r),
            "margin is -0.001",
        );
        refused(
            collide_check_verdict(s, q.as_ptr(), n, f64::INFINITY, &mut r),
            "margin is inf",
        );
        refused(
            collide_check_verdict(s, ptr::null(), n, 0.0, &mut r),
            "q is null",
        );
        refused(
            collide_check_verdict(ptr::null_mut(), q.as_ptr(), n, 0.0, &mut r),
            "session is null",
        );
        refused(
            collide_check_verdict(s, q.as_ptr(), n, 0.0, ptr::null_mut()),
            "result is null",
        );
        let mut rows = vec![0.0; 3 * n];
        rows[n + 1] = f64::NAN;
        let mut res = vec![UNWRITTEN; 3];
        refused(
            collide_check_verdict_batch(model, rows.as_ptr(), 3, n, 0.0, res.as_mut_ptr(), 2),
            "collide_check_verdict_batch: row 1: q[1]",
        );
        refused(
            collide_check_verdict_batch(model, rows.as_ptr(), 3, n + 1, 0.0, res.as_mut_ptr(), 2),
            &format!("rows have {} values", n + 1),
        );
        refused(
            collide_check_verdict_batch(model, rows.as_ptr(), 3, n, f64::NAN, res.as_mut_ptr(), 1),
            "margin is NaN",
        );
        refused(
            collide_check_verdict_batch(model, rows.as_ptr(), 3, n, 0.0, ptr::null_mut(), 1),
            "out is null",
        );
        refused(
            collide_check_verdict_batch(ptr::null(), rows.as_ptr(), 3, n, 0.0, res.as_mut_ptr(), 1),
            "model is null",
        );
        // The session still works after every refusal.
        assert_eq!(
            collide_check_verdict(s, q.as_ptr(), n, 0.0, &mut r),
            CollideStatus::Ok
        );
        assert_ne!(r, UNWRITTEN);
    }
    // The Rust API: the same refusals, as errors.
    let m = CollideModel::open(&path).unwrap();
    let e = CollideSession::new(m.clone())
        .check_verdict(&vec![0.0; n + 1], 0.0)
        .unwrap_err();
    assert_eq!(e.status, CollideStatus::BadArgument);
    assert!(e.message.contains("check_verdict: q has"), "{}", e.message);
    let e = m
        .check_verdict_batch(&vec![0.0; 2 * n + 1], 0.0, &mut [UNWRITTEN; 3], 1)
        .unwrap_err();
    assert!(e.message.contains("not whole rows"), "{}", e.message);
    let e = m
        .check_verdict_batch(&vec![0.0; 2 * n], -1.0, &mut [UNWRITTEN; 2], 1)
        .unwrap_err();
    assert_eq!(
        e.message,
        "check_verdict_batch: margin is -1, expected a finite number >= 0 (metres)"
    );
}
