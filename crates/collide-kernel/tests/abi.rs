//! The C ABI against `collide::kernel` called directly: identical verdicts and values on
//! 1000 seeded poses of the Panda and the G1 (at the manifest's margin and at a caller's
//! margin, one pose at a time and in batches on 1-3 threads), and every bad input refused
//! with a status and a message, never a crash.

use collide::kernel::Model;
use collide::manifest::kernel::load_kernel;
use collide::truth::poses::uniform_q;
use collide_kernel::*;
mod common;
use common::{last_error, load, manifest};
use std::ffi::{CStr, CString};
use std::path::Path;
use std::ptr;

const POSES: u64 = 1000;
const SEED: u64 = 25;

/// The kernel as `collide verify` loads it, with the manifest's margin replaced.
fn direct(robot: &str, margin: f64) -> (Model, Vec<String>, Vec<String>) {
    let mut m = collide::manifest::load_manifest(&manifest(robot)).unwrap();
    m.margin_m = margin;
    let k = load_kernel(&m).unwrap();
    (k.model, k.dof_names, k.link_names)
}

fn seeded(model: &Model) -> Vec<Vec<f64>> {
    (0..POSES)
        .map(|i| {
            let mut q = vec![0.0; model.dof()];
            uniform_q(model, SEED, i, &mut q);
            q
        })
        .collect()
}

fn compare(robot: &str) {
    let l = load(&manifest(robot));
    let (base, dof_names, link_names) = direct(robot, 0.0);
    // Names and pairs as the kernel has them.
    let n = unsafe { collide_model_joint_count(l.model) };
    assert_eq!(n, dof_names.len());
    for (i, name) in dof_names.iter().enumerate() {
        let c = unsafe { CStr::from_ptr(collide_model_joint_name(l.model, i)) };
        assert_eq!(c.to_str().unwrap(), name);
    }
    assert!(unsafe { collide_model_joint_name(l.model, n) }.is_null());
    assert_eq!(
        unsafe { collide_model_link_count(l.model) },
        link_names.len()
    );
    let pairs = base.checked_pairs();
    assert_eq!(unsafe { collide_model_pair_count(l.model) }, pairs.len());
    assert!(!pairs.is_empty(), "{robot}: no checked pair to compare");
    for (i, &(a, b)) in pairs.iter().enumerate() {
        let (mut la, mut lb) = (0, 0);
        let st = unsafe { collide_model_pair_links(l.model, i, &mut la, &mut lb) };
        assert_eq!(st, CollideStatus::Ok);
        assert_eq!((la, lb), (a, b));
        let name = unsafe { CStr::from_ptr(collide_model_link_name(l.model, a)) };
        assert_eq!(name.to_str().unwrap(), link_names[a]);
    }
    assert_eq!(unsafe { collide_model_margin(l.model) }, base.margin());

    let qs = seeded(&base);
    let mut ws = base.workspace();
    let mut out = vec![0.0; pairs.len()];
    let mut tripped = 0;
    for q in &qs {
        // At the manifest's margin: what `collide sweep` and `verify` compute.
        let mut r = CollideResult::default_for_test();
        let st = unsafe { collide_check(l.session, q.as_ptr(), q.len(), base.margin(), &mut r) };
        assert_eq!(st, CollideStatus::Ok, "{}", last_error());
        let k = base.check_self_collision(q, &mut ws, false);
        assert_eq!(r.in_collision, k.tripped);
        assert_eq!(r.min_distance.to_bits(), k.min_distance.to_bits());
        let (a, b) = k.min_pair.unwrap();
        assert_eq!((r.link_a, r.link_b), (a as i64, b as i64));
        assert_eq!(pairs[r.pair as usize], (a, b));
        assert_eq!(r.within_limits, base.within_limits(q));
        tripped += r.in_collision as usize;
        // Every pair's value, at the margin as cutoff.
        let st = unsafe {
            collide_pair_distances(
                l.session,
                q.as_ptr(),
                q.len(),
                0.0,
                out.as_mut_ptr(),
                out.len(),
            )
        };
        assert_eq!(st, CollideStatus::Ok, "{}", last_error());
        base.check_self_collision(q, &mut ws, true);
        for (x, y) in out.iter().zip(ws.pair_distances()) {
            assert_eq!(x.to_bits(), y.to_bits());
        }
    }
    // Seeded uniform poses of these robots do trip; a comparison on only free poses
    // would not test the verdict.
    assert!(
        tripped > 0 && tripped < qs.len(),
        "{robot}: {tripped} tripped"
    );

    // A caller's margin of 2 cm against the kernel loaded from a manifest with that margin.
    let margin = 0.02;
    let (wide, _, _) = direct(robot, margin);
    let mut ws = wide.workspace();
    let mut flat = Vec::new();
    let mut expect = Vec::new();
    let mut more = 0;
    for q in &qs {
        let mut r = CollideResult::default_for_test();
        let st = unsafe { collide_check(l.session, q.as_ptr(), q.len(), margin, &mut r) };
        assert_eq!(st, CollideStatus::Ok);
        let k = wide.check_self_collision(q, &mut ws, false);
        assert_eq!(r.in_collision, k.tripped);
        assert_eq!(r.min_distance.to_bits(), k.min_distance.to_bits());
        more += (k.tripped
            && !base
                .check_self_collision(q, &mut base.workspace(), false)
                .tripped) as usize;
        flat.extend_from_slice(q);
        expect.push(r);
    }
    assert!(
        more > 0,
        "{robot}: the 2 cm margin trips no more pose than 0"
    );
    // The batch, bit for bit the single calls, at any thread count.
    for threads in [1, 2, 3, 0] {
        let mut got = vec![CollideResult::default_for_test(); qs.len()];
        let st = unsafe {
            collide_check_batch(
                l.model,
                flat.as_ptr(),
                qs.len(),
                base.dof(),
                margin,
                got.as_mut_ptr(),
                threads,
            )
        };
        assert_eq!(st, CollideStatus::Ok, "{}", last_error());
        for (g, e) in got.iter().zip(&expect) {
            assert_eq!(g.min_distance.to_bits(), e.min_distance.to_bits());
            assert_eq!(
                (g.in_collision, g.within_limits, g.pair, g.link_a, g.link_b),
                (e.in_collision, e.within_limits, e.pair, e.link_a, e.link_b)
            );
        }
    }
}

trait ForTest {
    fn default_for_test() -> Self;
}

impl ForTest for CollideResult {
    fn default_for_test() -> Self {
        CollideResult {
            in_collision: false,
            within_limits: false,
            min_distance: -1.0,
            pair: -7,
            link_a: -7,
            link_b: -7,
            verdict: CollideVerdict::Unknown,
            point_a: [-7.0; 3],
            point_b: [-7.0; 3],
        }
    }
}

#[test]
fn panda_agrees_with_the_kernel() {
    compare("franka_panda");
}

#[test]
fn g1_agrees_with_the_kernel() {
    compare("g1_29dof");
}

/// A failing call: the status, and a message naming `expect`.
fn refused(st: CollideStatus, want: CollideStatus, expect: &str) {
    assert_eq!(st, want, "{}", last_error());
    let msg = last_error();
    assert!(msg.contains(expect), "`{msg}` does not mention `{expect}`");
}

#[test]
fn bad_input_is_a_status_and_a_message() {
    let l = load(&manifest("franka_panda"));
    let n = unsafe { collide_model_joint_count(l.model) };
    let mut q = vec![0.0; n];
    let mut r = CollideResult::default_for_test();
    let s = l.session;
    unsafe {
        refused(
            collide_check(s, q.as_ptr(), n - 1, 0.0, &mut r),
            CollideStatus::BadArgument,
            &format!("q has {} values, the model has {n} joints", n - 1),
        );
        assert_eq!(r.pair, -1, "a failed check leaves an empty result");
        q[2] = f64::NAN;
        refused(
            collide_check(s, q.as_ptr(), n, 0.0, &mut r),
            CollideStatus::BadArgument,
            "q[2] (joint `panda_joint3`) is NaN",
        );
        q[2] = f64::INFINITY;
        refused(
            collide_check(s, q.as_ptr(), n, 0.0, &mut r),
            CollideStatus::BadArgument,
            "is inf",
        );
        q[2] = 0.0;
        refused(
            collide_check(s, q.as_ptr(), n, -0.001, &mut r),
            CollideStatus::BadArgument,
            "margin is -0.001",
        );
        refused(
            collide_check(s, q.as_ptr(), n, f64::NAN, &mut r),
            CollideStatus::BadArgument,
            "margin is NaN",
        );
        refused(
            collide_check(s, ptr::null(), n, 0.0, &mut r),
            CollideStatus::BadArgument,
            "q is null",
        );
        refused(
            collide_check(ptr::null_mut(), q.as_ptr(), n, 0.0, &mut r),
            CollideStatus::BadArgument,
            "session is null",
        );
        refused(
            collide_check(s, q.as_ptr(), n, 0.0, ptr::null_mut()),
            CollideStatus::BadArgument,
            "result is null",
        );
        q[0] = f64::NAN;
        refused(
            collide_check_coherent(s, q.as_ptr(), n, 0.0, &mut r),
            CollideStatus::BadArgument,
            "q[0] (joint `panda_joint1`) is NaN",
        );
        q[0] = 0.0;
        refused(
            collide_check_coherent(s, q.as_ptr(), n + 2, 0.0, &mut r),
            CollideStatus::BadArgument,
            &format!("q has {} values", n + 2),
        );
        refused(
            collide_check_coherent(s, q.as_ptr(), n, -1.0, &mut r),
            CollideStatus::BadArgument,
            "margin is -1",
        );
        refused(
            collide_session_stats(s, ptr::null_mut()),
            CollideStatus::BadArgument,
            "stats is null",
        );
        // The session still works after every refusal.
        assert_eq!(
            collide_check(s, q.as_ptr(), n, 0.0, &mut r),
            CollideStatus::Ok
        );
        assert!(r.pair >= 0);

        let np = collide_model_pair_count(l.model);
        let mut out = vec![0.0; np];
        refused(
            collide_pair_distances(s, q.as_ptr(), n, 0.0, out.as_mut_ptr(), np - 1),
            CollideStatus::BadArgument,
            &format!("room for {} values, the model has {np}", np - 1),
        );
        refused(
            collide_pair_distances(s, q.as_ptr(), n, -1.0, out.as_mut_ptr(), np),
            CollideStatus::BadArgument,
            "cutoff is -1",
        );
        // +INFINITY is allowed: every pair exact.
        let st = collide_pair_distances(s, q.as_ptr(), n, f64::INFINITY, out.as_mut_ptr(), np);
        assert_eq!(st, CollideStatus::Ok);

        let mut rows = vec![0.0; 3 * n];
        rows[n + 1] = f64::NAN;
        let mut res = vec![CollideResult::default_for_test(); 3];
        refused(
            collide_check_batch(l.model, rows.as_ptr(), 3, n, 0.0, res.as_mut_ptr(), 2),
            CollideStatus::BadArgument,
            "row 1: q[1]",
        );
        refused(
            collide_check_batch(l.model, rows.as_ptr(), 3, n + 1, 0.0, res.as_mut_ptr(), 2),
            CollideStatus::BadArgument,
            &format!("rows have {} values", n + 1),
        );
        let (mut a, mut b) = (0, 0);
        refused(
            collide_model_pair_links(l.model, np, &mut a, &mut b),
            CollideStatus::BadArgument,
            &format!("pair {np} out of range"),
        );
        assert!(collide_model_link_name(l.model, usize::MAX).is_null());
        assert_eq!(collide_model_joint_count(ptr::null()), 0);
        let mut session = ptr::null_mut();
        refused(
            collide_session_new(ptr::null(), &mut session),
            CollideStatus::BadArgument,
            "model is null",
        );
    }
}

fn load_status(path: &Path) -> (CollideStatus, *const CollideModel) {
    let c = CString::new(path.to_str().unwrap()).unwrap();
    // Not null before the call: a failed load must set it to null.
    let mut model = std::ptr::NonNull::<CollideModel>::dangling().as_ptr() as *const _;
    let st = unsafe { collide_model_load(c.as_ptr(), &mut model) };
    (st, model)
}

#[test]
fn what_is_not_a_manifest_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.yaml");
    let (st, m) = load_status(&missing);
    refused(st, CollideStatus::Io, "missing.yaml");
    assert!(m.is_null());
    let (st, _) = load_status(dir.path());
    refused(st, CollideStatus::Io, "is a directory");
    // A robot config is YAML, but not a manifest.
    let config = manifest("franka_panda").with_file_name("robot.yaml");
    let (st, m) = load_status(&config);
    refused(st, CollideStatus::BadManifest, "robot.yaml");
    assert!(m.is_null());
    let junk = dir.path().join("junk.yaml");
    std::fs::write(&junk, "\u{0}\u{1} not yaml: [").unwrap();
    let (st, _) = load_status(&junk);
    refused(st, CollideStatus::BadManifest, "junk.yaml");
    // A manifest whose margin was made negative: `verify` cannot read it either.
    let text = std::fs::read_to_string(manifest("franka_panda")).unwrap();
    let neg = dir.path().join("neg.yaml");
    std::fs::write(&neg, text.replacen("margin_m: 0.0", "margin_m: -0.5", 1)).unwrap();
    let (st, _) = load_status(&neg);
    refused(st, CollideStatus::BadManifest, "margin");
    unsafe {
        refused(
            collide_model_load(ptr::null(), &mut ptr::null()),
            CollideStatus::BadArgument,
            "path is null",
        );
    }
}

#[test]
fn a_session_outlives_its_freed_model_and_moves_between_threads() {
    let l = load(&manifest("franka_panda"));
    let n = unsafe { collide_model_joint_count(l.model) };
    let mut session = ptr::null_mut();
    assert_eq!(
        unsafe { collide_session_new(l.model, &mut session) },
        CollideStatus::Ok
    );
    drop(l); // frees the first session and the caller's model reference
    struct Send_(*mut CollideSession);
    unsafe impl Send for Send_ {}
    let s = Send_(session);
    let r = std::thread::spawn(move || {
        let s = s;
        let q = vec![0.0; n];
        let mut r = CollideResult::default_for_test();
        let st = unsafe { collide_check(s.0, q.as_ptr(), n, 0.0, &mut r) };
        unsafe { collide_session_free(s.0) };
        (st, r)
    })
    .join()
    .unwrap();
    assert_eq!(r.0, CollideStatus::Ok);
    assert!(r.1.pair >= 0 && r.1.min_distance.is_finite());
}

/// Witness points: off by default (NaN); on, `collide_check` and the cached check give the
/// kernel's `pair_witness` of the reported pair whenever its value is in the exact band,
/// `|point_a − point_b|` is the reported distance's magnitude, and NaN outside the band.
fn witness_points(robot: &str) {
    let l = load(&manifest(robot));
    let (base, _, _) = direct(
        robot,
        collide::manifest::load_manifest(&manifest(robot))
            .unwrap()
            .margin_m,
    );
    let margin = 0.0;
    let band = margin + base.refine_band();
    let mut ws = base.workspace();
    let qs = seeded(&base);
    let mut r = CollideResult::default_for_test();
    unsafe { collide_check(l.session, qs[0].as_ptr(), qs[0].len(), margin, &mut r) };
    assert!(
        r.point_a.iter().chain(&r.point_b).all(|v| v.is_nan()),
        "{robot}: off by default"
    );
    let mut cached = ptr::null_mut();
    unsafe {
        assert_eq!(collide_session_new(l.model, &mut cached), CollideStatus::Ok);
        assert_eq!(collide_session_set_witness(l.session, 1), CollideStatus::Ok);
        assert_eq!(collide_session_set_witness(cached, 1), CollideStatus::Ok);
    }
    let (mut inside, mut outside) = (0, 0);
    for (i, q) in qs.iter().enumerate() {
        let mut r = CollideResult::default_for_test();
        let st = unsafe { collide_check(l.session, q.as_ptr(), q.len(), margin, &mut r) };
        assert_eq!(st, CollideStatus::Ok, "{}", last_error());
        if r.min_distance <= band {
            inside += 1;
            base.fk(q, &mut ws);
            let w = base.pair_witness(r.pair as usize, &ws, margin);
            assert_eq!(
                (r.point_a, r.point_b),
                (w.point_a, w.point_b),
                "{robot} pose {i}"
            );
            let gap = collide::kernel::vec3::norm(collide::kernel::vec3::sub(r.point_a, r.point_b));
            assert!(
                (gap - r.min_distance.abs()).abs() < 1e-7,
                "{robot} pose {i}: |a - b| = {gap}, distance {}",
                r.min_distance
            );
            // The cached check, fresh at this pose, reports the same pair and points.
            let mut c = CollideResult::default_for_test();
            unsafe {
                collide_session_reset(cached);
                collide_check_coherent(cached, q.as_ptr(), q.len(), margin, &mut c);
            }
            assert_eq!(
                (c.pair, c.point_a, c.point_b),
                (r.pair, r.point_a, r.point_b)
            );
        } else {
            outside += 1;
            assert!(
                r.point_a.iter().chain(&r.point_b).all(|v| v.is_nan()),
                "{robot} pose {i}"
            );
        }
    }
    unsafe { collide_session_free(cached) };
    assert!(inside > 50, "{robot}: {inside} poses in the exact band");
    if robot == "franka_panda" {
        assert!(outside > 50, "{robot}: {outside} poses outside the band");
    }
}

#[test]
fn witness_points_are_the_kernels_on_the_panda_and_the_g1() {
    witness_points("franka_panda");
    witness_points("g1_29dof");
}
