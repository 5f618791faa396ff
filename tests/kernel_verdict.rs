//! The verdict-only check (`Model::check_verdict`) against the full check on real robots:
//! on 1000 seeded poses of the committed Panda, G1 and TIAGo manifests (and the hand-made
//! tight models), at the manifest's margin and at callers' margins (0, 2 cm, and a negative
//! one for the Rust API), it gives exactly the full check's verdict and first tripping pair.
//! It never runs the expanding polytope at a margin >= 0, and on a tripping pose it visits
//! at most the pairs the full check visits.

mod common;

use collide::kernel::{Model, VerdictResult};
use collide::manifest::kernel::load_kernel;
use collide::manifest::load_manifest;
use common::kernel_models::{Rng, mixed_tight_arm, panda_tight, random_q};

fn committed(robot: &str) -> Model {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("robots")
        .join(robot)
        .join("manifest.yaml");
    load_kernel(&load_manifest(&path).unwrap()).unwrap().model
}

/// `n` seeded poses of `m`, each checked both ways at each margin; returns how many tripped
/// at each margin, so the caller can assert both outcomes occur.
fn agrees(name: &str, m: &Model, n: usize, seed: u64, margins: &[f64]) -> Vec<usize> {
    let mut ws = m.workspace();
    let mut rng = Rng(seed);
    let mut tripped = vec![0; margins.len()];
    for k in 0..n {
        let q = random_q(m, &mut rng);
        for (i, &margin) in margins.iter().enumerate() {
            let full = m.check_self_collision_with_margin(&q, &mut ws, margin, false);
            let full_prims = ws.stats().prim_pairs;
            let v = m.check_verdict(&q, &mut ws, margin);
            let expected = VerdictResult {
                tripped: full.tripped,
                first_tripping_pair: full.first_tripping_pair,
            };
            assert_eq!(v, expected, "{name} pose {k} margin {margin}: {q:?}");
            let s = ws.stats();
            if margin >= 0.0 {
                assert_eq!(s.epa_steps, 0, "{name} pose {k}: the polytope ran");
            }
            assert!(
                s.prim_pairs <= full_prims,
                "{name} pose {k} margin {margin}: more pairs {} > {full_prims}, tripped {}",
                s.prim_pairs,
                v.tripped
            );
            tripped[i] += usize::from(v.tripped);
        }
    }
    eprintln!("{name}: of {n} poses, {tripped:?} trip at margins {margins:?}");
    tripped
}

#[test]
fn verdict_is_the_full_checks_on_the_panda_g1_and_tiago() {
    for (robot, seed) in [("franka_panda", 31), ("g1_29dof", 32), ("tiago", 33)] {
        let m = committed(robot);
        let margins = [m.margin(), 0.0, 0.02, -0.005, -0.1];
        let tripped = agrees(robot, &m, 1000, seed, &margins);
        // Both outcomes occur, so the comparison is not vacuous (TIAGo's committed geometry
        // trips at rest: it is free only at a negative margin).
        assert!(tripped.iter().any(|&t| t > 0), "{robot}: nothing trips");
        assert!(
            tripped.iter().any(|&t| t < 1000),
            "{robot}: everything trips"
        );
    }
}

#[test]
fn verdict_is_the_full_checks_on_hand_made_tight_models() {
    // Tight hulls of 152 and 320 vertices: overlapping pairs run the expanding polytope in
    // the full check; the verdict-only check must decide them the same way without it.
    for (name, m) in [
        ("panda_tight152", panda_tight(152)),
        ("mixed_tight320", mixed_tight_arm(320, 0.0)),
    ] {
        let tripped = agrees(name, &m, 500, 34, &[m.margin(), 0.01, -0.002, -0.02]);
        assert!(tripped.iter().all(|&t| t > 0), "{name}: {tripped:?}");
    }
}

#[test]
fn verdict_trips_on_nan_and_at_infinite_margin() {
    let m = committed("franka_panda");
    let mut ws = m.workspace();
    let mut q = vec![0.0; m.dof()];
    q[0] = f64::NAN;
    let full = m.check_self_collision(&q, &mut ws, false);
    let v = m.check_verdict(&q, &mut ws, m.margin());
    assert!(full.tripped && v.tripped);
    assert_eq!(v.first_tripping_pair, full.first_tripping_pair);
    // Every value is <= +inf: the first checked pair trips.
    let v = m.check_verdict(&vec![0.0; m.dof()], &mut ws, f64::INFINITY);
    assert_eq!(v.first_tripping_pair, Some(m.checked_pairs()[0]));
}
