//! Warm start (`Workspace::set_warm_start`) never changes a verdict: on smooth paths of
//! committed manifests, a warm check and a cold one agree on the verdict and the first
//! tripping pair, and on every pair value within `WARM_RECHECK` of the margin bit for bit
//! (those are recomputed cold); every other refined value (at or below margin + band, in
//! overlap too, where the warm start seeds the expanding polytope) agrees within the GJK
//! tolerance. Both are lower bounds either way (tests/kernel_check.rs holds that part).
//!
//! The path that found the need (TIAGo, every joint stepping 1 mrad a call from seeded pose
//! 0 of seed 1): at call 409 two thumb phalanges touch within 1e-10 m, cold 1.25e-10 and,
//! before warm values at the margin were recomputed cold, warm -6.9e-11: the verdicts differed.

use collide::kernel::workspace::WARM_RECHECK;
use collide::truth::poses::turning_path;

/// Warm against cold along the path at `margin`: (calls that tripped, pair values the warm
/// start changed).
fn warm_agrees(robot: &str, margin: f64, calls: usize) -> (usize, usize) {
    let manifest =
        collide::manifest::load_manifest(format!("robots/{robot}/manifest.yaml").as_ref()).unwrap();
    let m = collide::manifest::kernel::load_kernel(&manifest)
        .unwrap()
        .model;
    let (mut cold, mut warm) = (m.workspace(), m.workspace());
    warm.set_warm_start(true);
    let refined = margin + m.refine_band();
    let (mut tripped, mut moved) = (0, 0);
    for (k, q) in turning_path(&m, 1, 0, 1e-3, calls).iter().enumerate() {
        let a = m.check_self_collision_with_margin(q, &mut cold, margin, true);
        let b = m.check_self_collision_with_margin(q, &mut warm, margin, true);
        assert_eq!(
            (a.tripped, a.first_tripping_pair),
            (b.tripped, b.first_tripping_pair),
            "{robot}: call {k}"
        );
        if a.tripped {
            assert!(
                (a.min_distance - b.min_distance).abs() <= 1e-9,
                "{robot}: call {k}"
            );
        }
        tripped += a.tripped as usize;
        for (p, (&x, &y)) in cold
            .pair_distances()
            .iter()
            .zip(warm.pair_distances())
            .enumerate()
        {
            if (x - margin).abs() <= WARM_RECHECK || (y - margin).abs() <= WARM_RECHECK {
                assert_eq!(x.to_bits(), y.to_bits(), "{robot}: call {k}, pair {p}");
            } else if x <= refined && y <= refined {
                // Both refined: exact within the GJK tolerance.
                assert!(
                    (x - y).abs() <= 1e-9,
                    "{robot}: call {k}, pair {p}: {x} {y}"
                );
            } else {
                // At most one refined: on the same side of the margin.
                assert_eq!(x <= margin, y <= margin, "{robot}: call {k}, pair {p}");
            }
            moved += (x != y) as usize;
        }
    }
    (tripped, moved)
}

#[test]
fn warm_start_keeps_every_verdict_and_every_value_at_the_margin() {
    for (robot, calls) in [("tiago", 600), ("franka_panda", 2000), ("g1_29dof", 300)] {
        let (tripped, moved) = warm_agrees(robot, 0.0, calls);
        eprintln!("{robot}: {tripped} of {calls} calls tripped, {moved} pair values moved");
        // The paths go in and out of contact, and the warm start does change values.
        assert!(
            tripped > 0 && tripped < calls,
            "{robot}: {tripped} of {calls}"
        );
        assert!(moved > 0, "{robot}: warm start never ran");
    }
}
