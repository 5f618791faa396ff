//! The coherent mode's motion bound and cache.
//!
//! * On the Panda, the G1 (a humanoid) and TIAGo (a mobile manipulator: prismatic torso,
//!   mimic-free wheels, two-joint heads): for seeded segments `q_j -> q_k` of several lengths,
//!   every pair's `L_p − δ_p` (from the exact value at `q_j`) is at most the exact distance
//!   at every sampled point of the segment; and the bound is not vacuous (it certifies
//!   positive distances) nor loose beyond reason (the largest realised share of it is
//!   reported and must exceed a tenth).
//! * Smooth 1 mrad trajectories through the C ABI: `collide_check_coherent` gives the same
//!   verdicts as `collide_check`, a lower bound on the exact least distance, and skips
//!   pairs.
//! * The two-joint counter-rotation (+θ, −θ) that keeps a link's orientation and its
//!   origin's distance from the other link yet moves its geometry by 2·L·sin(θ/2): found.
//! * A floating base (prismatic x, y and a yaw under the world): base motion alone never
//!   invalidates the cache.

use collide::kernel::{Acm, Joint, JointKind, Link, Model, Primitive};
use collide::truth::poses::{turning_path, uniform_q};
use collide_kernel::coherent::{ALLOWANCE, Cache, Coherence};
use collide_kernel::*;
use std::ffi::CString;
use std::path::{Path, PathBuf};

fn manifest(robot: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../robots/{robot}/manifest.yaml"))
}

fn kernel(robot: &str) -> Model {
    collide::manifest::kernel::load_kernel(
        &collide::manifest::load_manifest(&manifest(robot)).unwrap(),
    )
    .unwrap()
    .model
}

/// Every pair's exact value (every pair refined: cutoff +∞).
fn exact(m: &Model, ws: &mut collide::kernel::Workspace, q: &[f64]) -> Vec<f64> {
    m.check_self_collision_with_margin(q, ws, f64::INFINITY, true);
    ws.pair_distances().to_vec()
}

/// A deterministic value in [-1, 1] from (seed, index).
fn unit(seed: u64, i: u64) -> f64 {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ i.wrapping_mul(0xD1B5_4A32_D192_ED03);
    x ^= x >> 31;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^= x >> 29;
    (x >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
}

fn bound_holds_on_segments(robot: &str) {
    let m = kernel(robot);
    let c = Coherence::new(&m);
    let mut ws = m.workspace();
    let n = m.dof();
    let (mut samples, mut certified, mut worst) = (0usize, 0usize, 0.0f64);
    for s in 0..40u64 {
        let mut qj = vec![0.0; n];
        uniform_q(&m, 11, s, &mut qj);
        // Segments of 10 mrad, 0.1 rad and 0.5 rad per joint, and a uniform far end.
        let step = [0.01, 0.1, 0.5, f64::NAN][(s % 4) as usize];
        let mut qk = vec![0.0; n];
        if step.is_nan() {
            uniform_q(&m, 12, s, &mut qk);
        } else {
            for i in 0..n {
                let (lo, hi) = m.dof_range(i);
                qk[i] = (qj[i] + step * unit(s, i as u64)).clamp(lo, hi);
            }
        }
        let dj = exact(&m, &mut ws, &qj);
        for t in 1..=10 {
            let t = t as f64 / 10.0;
            let qt: Vec<f64> = qj.iter().zip(&qk).map(|(a, b)| a + t * (b - a)).collect();
            let dt = exact(&m, &mut ws, &qt);
            for p in 0..dj.len() {
                // The bound over the whole segment, and the one up to q_t: both hold at q_t.
                let l = dj[p] - ALLOWANCE;
                for delta in [c.delta(p, &qj, &qk), c.delta(p, &qj, &qt)] {
                    assert!(
                        l - delta <= dt[p],
                        "{robot}: pair {:?}: L_p − δ_p = {} − {} > {} (exact at t = {t})",
                        m.checked_pairs()[p],
                        l,
                        delta,
                        dt[p]
                    );
                }
                let delta = c.delta(p, &qj, &qt);
                samples += 1;
                certified += (l - delta > 0.0) as usize;
                if delta > 1e-6 && dj[p] > 0.0 {
                    worst = worst.max((dj[p] - dt[p]) / delta);
                }
            }
        }
    }
    eprintln!(
        "{robot}: {samples} samples, {certified} certified > 0, largest realised share of δ {worst:.3}"
    );
    assert!(
        certified > samples / 20,
        "{robot}: the bound certifies almost nothing"
    );
    assert!(
        worst > 0.1,
        "{robot}: the bound is loose beyond reason ({worst})"
    );
}

#[test]
fn panda_bound_holds_on_every_segment_point() {
    bound_holds_on_segments("franka_panda");
}

#[test]
fn g1_bound_holds_on_every_segment_point() {
    bound_holds_on_segments("g1_29dof");
}

#[test]
fn tiago_bound_holds_on_every_segment_point() {
    bound_holds_on_segments("tiago");
}

fn smooth_trajectory_agrees(robot: &str, margin: f64) -> (f64, usize, usize) {
    let direct = kernel(robot);
    let n = direct.dof();
    let path = CString::new(manifest(robot).to_str().unwrap()).unwrap();
    let mut model = std::ptr::null();
    assert_eq!(
        unsafe { collide_model_load(path.as_ptr(), &mut model) },
        CollideStatus::Ok
    );
    let (mut plain, mut coh) = (std::ptr::null_mut(), std::ptr::null_mut());
    unsafe {
        assert_eq!(collide_session_new(model, &mut plain), CollideStatus::Ok);
        assert_eq!(collide_session_new(model, &mut coh), CollideStatus::Ok);
    }
    let mut ws = direct.workspace();
    // From a seeded pose that trips at the margin to one that does not (two seeded poses
    // where none is free), in steps of at most 1 mrad per joint: in and out of the margin.
    let pose = |i| {
        let mut q = vec![0.0; n];
        uniform_q(&direct, 3, i, &mut q);
        q
    };
    let trips = |q: &[f64]| {
        direct
            .check_self_collision_with_margin(q, &mut direct.workspace(), margin, false)
            .tripped
    };
    let from = (0..200)
        .map(pose)
        .find(|q| trips(q))
        .unwrap_or_else(|| pose(0));
    let to = (0..200)
        .map(pose)
        .find(|q| !trips(q))
        .unwrap_or_else(|| pose(1));
    let far = from
        .iter()
        .zip(&to)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    let steps = (far / 1e-3).ceil() as u64;
    let (mut skipped, mut total, mut tripped) = (0u64, 0u64, 0);
    let zero = CollideResult {
        in_collision: false,
        within_limits: false,
        min_distance: 0.0,
        pair: 0,
        link_a: 0,
        link_b: 0,
        verdict: CollideVerdict::Unknown,
        point_a: [0.0; 3],
        point_b: [0.0; 3],
    };
    let mut q = from.clone();
    for k in 0..=steps {
        let t = k as f64 / steps as f64;
        for i in 0..n {
            q[i] = from[i] + t * (to[i] - from[i]);
        }
        let (mut a, mut b) = (zero, zero);
        unsafe {
            assert_eq!(
                collide_check(plain, q.as_ptr(), n, margin, &mut a),
                CollideStatus::Ok
            );
            assert_eq!(
                collide_check_coherent(coh, q.as_ptr(), n, margin, &mut b),
                CollideStatus::Ok
            );
        }
        assert_eq!(a.in_collision, b.in_collision, "{robot}: step {k}");
        if a.in_collision {
            // Every value at or below the margin comes from an exact check of the same pair
            // collide_check finds least: its value within the GJK tolerance (the cache
            // warm-starts the expanding polytope; `Workspace::set_warm_start`).
            assert!(
                (a.min_distance - b.min_distance).abs() <= 1e-9,
                "{robot}: step {k}: {} {}",
                a.min_distance,
                b.min_distance
            );
            assert_eq!((a.pair, a.link_a, a.link_b), (b.pair, b.link_a, b.link_b));
        }
        tripped += a.in_collision as usize;
        let truth = exact(&direct, &mut ws, &q)
            .into_iter()
            .fold(f64::INFINITY, f64::min);
        assert!(b.min_distance <= truth + 1e-9, "{robot}: step {k}");
        let mut st = CollideStats::default();
        assert_eq!(
            unsafe { collide_session_stats(coh, &mut st) },
            CollideStatus::Ok
        );
        assert_eq!(
            (st.exact_pairs + st.skipped_pairs) as usize,
            direct.checked_pairs().len()
        );
        assert_eq!(st.fk, st.exact_pairs > 0);
        skipped += st.skipped_pairs as u64;
        total += direct.checked_pairs().len() as u64;
    }
    unsafe {
        // After a reset every pair is checked again.
        assert_eq!(collide_session_reset(coh), CollideStatus::Ok);
        let mut b = zero;
        collide_check_coherent(coh, q.as_ptr(), n, margin, &mut b);
        let mut st = CollideStats::default();
        collide_session_stats(coh, &mut st);
        assert_eq!(st.skipped_pairs, 0);
        collide_session_free(plain);
        collide_session_free(coh);
        collide_model_free(model);
    }
    let share = skipped as f64 / total as f64;
    eprintln!(
        "{robot}: {tripped} of {} steps tripped, {:.1} % of pairs skipped",
        steps + 1,
        100.0 * share
    );
    (share, tripped, steps as usize + 1)
}

#[test]
fn smooth_trajectories_agree_with_collide_check_and_skip_pairs() {
    for (robot, margin) in [("franka_panda", 0.0), ("g1_29dof", 0.01), ("tiago", 0.02)] {
        let (share, tripped, steps) = smooth_trajectory_agrees(robot, margin);
        // On the Panda the trajectory goes in and out of the margin: both verdicts compared.
        if robot == "franka_panda" {
            assert!(
                tripped > 10 && tripped + 10 < steps,
                "{robot}: {tripped} of {steps} tripped"
            );
        }
        assert!(
            share > 0.5,
            "{robot}: only {share} of pairs skipped at 1 mrad steps"
        );
    }
}

fn sphere(at: [f64; 3], r: f64) -> Primitive {
    Primitive::Capsule {
        a: at,
        b: at,
        radius: r,
    }
}

#[test]
fn counter_rotation_that_keeps_the_origin_distance_is_caught() {
    // base (a sphere) -> j1 about z at the origin -> link1 (nothing) -> j2 about z at
    // (L, 0, 0) -> link2 (a sphere at (a, 0, 0) in its frame). At (θ, −θ) link2 keeps its
    // orientation and its origin stays at distance L from base's, but its sphere moves by
    // 2·L·sin(θ/2): onto the base's sphere, placed where it arrives.
    let (l, a, r, theta) = (0.5, 0.2, 0.02, 0.6f64);
    let arrive = [l * theta.cos() + a, l * theta.sin(), 0.0];
    let z = [0.0, 0.0, 1.0];
    let links = vec![
        Link {
            name: "base".into(),
            parent: None,
            joint: Joint::fixed("root", [0.0; 3], [0.0; 3]),
            primitives: vec![sphere(arrive, r)],
        },
        Link {
            name: "link1".into(),
            parent: Some(0),
            joint: Joint::new("j1", JointKind::Revolute, [0.0; 3], [0.0; 3], z, -3.0, 3.0),
            primitives: vec![],
        },
        Link {
            name: "link2".into(),
            parent: Some(1),
            joint: Joint::new(
                "j2",
                JointKind::Revolute,
                [l, 0.0, 0.0],
                [0.0; 3],
                z,
                -3.0,
                3.0,
            ),
            primitives: vec![sphere([a, 0.0, 0.0], r)],
        },
    ];
    let m = Model::new(links, vec![], Acm::new(3), 0.0).unwrap();
    assert_eq!(m.checked_pairs(), &[(0, 2)]);
    let c = Coherence::new(&m);
    let mut ws = m.workspace();
    let mut cache = Cache::new(&c);
    let (qj, qk) = ([0.0, 0.0], [theta, -theta]);
    let at_j = cache.check(&c, &m, &mut ws, &qj, 0.0);
    let (rot_j, pos_j) = ws.link_pose(2);
    assert!(!at_j.tripped);
    let moved = 2.0 * l * (theta / 2.0).sin();
    assert!((at_j.min_distance - (moved - 2.0 * r)).abs() < 1e-9);
    let at_k = cache.check(&c, &m, &mut ws, &qk, 0.0);
    let (rot_k, pos_k) = ws.link_pose(2);
    // What an origin-distance rule sees: no change at all.
    let norm = |p: [f64; 3]| (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
    assert!((norm(pos_j) - norm(pos_k)).abs() < 1e-12);
    for i in 0..3 {
        for j in 0..3 {
            assert!((rot_j[i][j] - rot_k[i][j]).abs() < 1e-12);
        }
    }
    // The proven bound: δ covers the sphere's motion, so the pair was checked and trips.
    assert!(c.delta(0, &qj, &qk) >= moved);
    assert_eq!(cache.stats().exact_pairs, 1);
    assert!(at_k.tripped, "the counter-rotation went unseen: {at_k:?}");
    assert!(at_k.min_distance <= -2.0 * r + 1e-9);
}

#[test]
fn floating_base_motion_never_invalidates_the_cache() {
    let z = [0.0, 0.0, 1.0];
    let prismatic = |name, axis, parent| Link {
        name: format!("{name}_link"),
        parent: Some(parent),
        joint: Joint::new(
            name,
            JointKind::Prismatic,
            [0.0; 3],
            [0.0; 3],
            axis,
            -5.0,
            5.0,
        ),
        primitives: vec![],
    };
    let links = vec![
        Link {
            name: "world".into(),
            parent: None,
            joint: Joint::fixed("root", [0.0; 3], [0.0; 3]),
            primitives: vec![],
        },
        prismatic("base_x", [1.0, 0.0, 0.0], 0),
        prismatic("base_y", [0.0, 1.0, 0.0], 1),
        Link {
            name: "torso".into(),
            parent: Some(2),
            joint: Joint::new(
                "base_yaw",
                JointKind::Continuous,
                [0.0; 3],
                [0.0; 3],
                z,
                0.0,
                0.0,
            ),
            primitives: vec![sphere([0.0, 0.0, 0.5], 0.1)],
        },
        Link {
            name: "arm_left".into(),
            parent: Some(3),
            joint: Joint::new(
                "left",
                JointKind::Revolute,
                [0.0, 0.3, 0.5],
                [0.0; 3],
                [1.0, 0.0, 0.0],
                -1.0,
                1.0,
            ),
            primitives: vec![sphere([0.0, 0.0, -0.2], 0.05)],
        },
        Link {
            name: "arm_right".into(),
            parent: Some(3),
            joint: Joint::new(
                "right",
                JointKind::Revolute,
                [0.0, -0.3, 0.5],
                [0.0; 3],
                [1.0, 0.0, 0.0],
                -1.0,
                1.0,
            ),
            primitives: vec![sphere([0.0, 0.0, -0.2], 0.05)],
        },
    ];
    let m = Model::new(links, vec![], Acm::new(6), 0.0).unwrap();
    assert_eq!(m.checked_pairs().len(), 3);
    let c = Coherence::new(&m);
    for p in 0..3 {
        assert!(
            c.terms(p).all(|(dof, _)| dof >= 3),
            "pair {p} counts a base joint"
        );
    }
    let mut ws = m.workspace();
    let mut cache = Cache::new(&c);
    let first = cache.check(&c, &m, &mut ws, &[0.0, 0.0, 0.0, 0.2, -0.2], 0.01);
    assert_eq!(cache.stats().exact_pairs, 3);
    // Metres and radians of base motion: every pair skipped, no forward kinematics.
    for (k, base) in [[1.0, 0.0, 0.0], [-4.0, 3.0, 2.5], [4.9, -4.9, -3.1]]
        .iter()
        .enumerate()
    {
        let q = [base[0], base[1], base[2], 0.2, -0.2];
        let r = cache.check(&c, &m, &mut ws, &q, 0.01);
        let s = cache.stats();
        assert_eq!((s.skipped_pairs, s.fk), (3, false), "base pose {k}");
        assert_eq!(r.tripped, first.tripped);
        let direct = m.check_self_collision_with_margin(&q, &mut m.workspace(), 0.01, false);
        assert_eq!(r.tripped, direct.tripped);
        assert!(r.min_distance <= direct.min_distance + 1e-9);
    }
    // An arm swinging 1.2 rad is seen: its pair with the torso (0.23 m apart, δ = 1.2 ·
    // 0.25 m) is checked again.
    cache.check(&c, &m, &mut ws, &[0.0, 0.0, 0.0, -1.0, -0.2], 0.01);
    assert!(cache.stats().exact_pairs >= 1);
}

/// The schedule (clock, deferrals against the least pair, partial forward kinematics)
/// under motion it was not tuned for: seeded random walks mixing 1 mrad steps, jumps of
/// 0.3 rad, stays, excursions past the limits, margin changes and resets. At every call:
/// `balanced` gives `collide_check`'s verdict (and, in collision, its least pair and its
/// distance within the GJK tolerance), a distance never above the exact least one; `speed` with a budget of 2 never
/// says free where `collide_check` trips, and says in collision only where it does.
fn schedule_agrees(robot: &str) -> (usize, usize, usize) {
    let model = CollideModel::open(&manifest(robot)).unwrap();
    let direct = kernel(robot);
    let n = model.dof();
    let mut exact_s = CollideSession::new(model.clone());
    let mut bal = CollideSession::new(model.clone());
    let mut speed = CollideSession::new(model.clone());
    speed.set_preset(CollidePreset::Speed, 2).unwrap();
    let mut ws = direct.workspace();
    let (mut trips, mut unknown, mut calls) = (0, 0, 0);
    for walk in 0..6u64 {
        let mut q = vec![0.0; n];
        uniform_q(&direct, 21, walk, &mut q);
        let mut was_within = true;
        speed.reset();
        for step in 0..400u64 {
            let kind = (unit(walk * 1000 + step, 99) * 10.0).abs() as u32;
            for (i, v) in q.iter_mut().enumerate() {
                let (lo, hi) = direct.dof_range(i);
                let r = unit(walk * 7919 + step, i as u64);
                *v = match kind {
                    0 => *v + 0.3 * r,        // a jump
                    1 => *v,                  // a stay
                    2 => hi + 0.05 * r.abs(), // past the limits
                    _ => *v + 1e-3 * r,       // smooth
                };
                if kind != 2 {
                    *v = v.clamp(lo, hi);
                }
            }
            let margin = if (step / 100) % 2 == 0 { 0.0 } else { 0.015 };
            if step == 250 {
                bal.reset();
                speed.reset();
            }
            let a = exact_s.check(&q, margin).unwrap();
            let b = bal.check_coherent(&q, margin).unwrap();
            let s = speed.check_coherent(&q, margin).unwrap();
            calls += 1;
            let at = format!("{robot}: walk {walk} step {step}");
            assert_eq!(a.verdict, b.verdict, "{at}");
            assert_eq!(a.in_collision, b.in_collision, "{at}");
            if a.in_collision {
                trips += 1;
                assert!((a.min_distance - b.min_distance).abs() <= 1e-9, "{at}");
                assert_eq!(a.pair, b.pair, "{at}");
            }
            let truth = exact(&direct, &mut ws, &q)
                .into_iter()
                .fold(f64::INFINITY, f64::min);
            assert!(
                b.min_distance <= truth + 1e-9,
                "{at}: {} > {truth}",
                b.min_distance
            );
            assert!(
                s.min_distance <= truth + 1e-9,
                "{at}: speed {}",
                s.min_distance
            );
            match s.verdict {
                CollideVerdict::Free => assert!(!a.in_collision, "{at}: speed says free"),
                CollideVerdict::InCollision => assert!(a.in_collision, "{at}"),
                CollideVerdict::Unknown => {
                    unknown += 1;
                    assert!(s.in_collision, "{at}: unknown must not read as free");
                }
            }
            // The budget binds except on a call that rebuilds the cache (the first, after a
            // reset, another margin, or a pose outside the limits before or now).
            let st = speed.stats();
            let rebuilt = step % 100 == 0 || step == 250 || !was_within || !a.within_limits;
            assert!(st.exact_pairs <= 2 || rebuilt, "{at}: budget {st:?}");
            was_within = a.within_limits;
            let st = bal.stats();
            assert_eq!(
                (st.exact_pairs + st.skipped_pairs + st.unchecked_pairs) as usize,
                direct.checked_pairs().len()
            );
        }
    }
    (calls, trips, unknown)
}

#[test]
fn schedule_agrees_with_collide_check_under_random_motion() {
    for robot in ["franka_panda", "g1_29dof", "tiago"] {
        let (calls, trips, unknown) = schedule_agrees(robot);
        eprintln!("{robot}: {calls} calls, {trips} in collision, speed unknown on {unknown}");
        // Both verdicts occur on the Panda; the speed budget binds somewhere.
        assert!(
            trips > 0 && unknown > 0,
            "{robot}: {trips} trips, {unknown} unknown"
        );
        if robot == "franka_panda" {
            assert!(trips < calls, "{robot}: every call tripped");
        }
    }
}

/// `collide_session_set_warm_start`: on a path where every joint steps 1 mrad a call, turning
/// at its limits (the cost example's path through collision), a warm session's
/// `collide_check` gives a cold one's verdict and pair on every call, and its distance within
/// the GJK tolerance wherever it is refined; a reset session starts cold again.
#[test]
fn a_warm_session_answers_as_a_cold_one() {
    for robot in ["franka_panda", "g1_29dof", "tiago"] {
        let direct = kernel(robot);
        let n = direct.dof();
        let path = CString::new(manifest(robot).to_str().unwrap()).unwrap();
        let mut model = std::ptr::null();
        let (mut cold, mut warm) = (std::ptr::null_mut(), std::ptr::null_mut());
        unsafe {
            assert_eq!(
                collide_model_load(path.as_ptr(), &mut model),
                CollideStatus::Ok
            );
            assert_eq!(collide_session_new(model, &mut cold), CollideStatus::Ok);
            assert_eq!(collide_session_new(model, &mut warm), CollideStatus::Ok);
            assert_eq!(collide_session_set_warm_start(warm, 1), CollideStatus::Ok);
            assert_eq!(
                collide_session_set_warm_start(std::ptr::null_mut(), 1),
                CollideStatus::BadArgument
            );
        }
        let (mut tripped, mut moved) = (0, 0);
        for (k, q) in turning_path(&direct, 1, 0, 1e-3, 5000).iter().enumerate() {
            if k == 2500 {
                assert_eq!(unsafe { collide_session_reset(warm) }, CollideStatus::Ok);
            }
            let (mut a, mut b) = (CollideResult::default(), CollideResult::default());
            unsafe {
                assert_eq!(
                    collide_check(cold, q.as_ptr(), n, 0.0, &mut a),
                    CollideStatus::Ok
                );
                assert_eq!(
                    collide_check(warm, q.as_ptr(), n, 0.0, &mut b),
                    CollideStatus::Ok
                );
            }
            let at = format!("{robot}: call {k}");
            assert_eq!(
                (a.in_collision, a.verdict),
                (b.in_collision, b.verdict),
                "{at}"
            );
            if a.in_collision || a.min_distance <= 0.01 {
                assert_eq!(a.pair, b.pair, "{at}");
                assert!((a.min_distance - b.min_distance).abs() <= 1e-9, "{at}");
            }
            tripped += a.in_collision as usize;
            moved += (a.min_distance != b.min_distance) as usize;
        }
        eprintln!("{robot}: {tripped} of 5000 calls in collision, {moved} distances moved");
        // In and out of collision, and the warm start ran.
        assert!(tripped > 0 && moved > 0, "{robot}: {tripped} {moved}");
        unsafe {
            collide_session_free(cold);
            collide_session_free(warm);
            collide_model_free(model);
        }
    }
}
