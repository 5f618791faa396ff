//! The hill-climbing support (`kernel::climb`) against the full scan: on random hulls
//! (points on ellipsoids and boxes, interior points mixed in, rounded to 1 µm as manifests
//! write them and to 1 mm, coarser than any manifest, so that the written hull is visibly
//! non-convex) and on every hull of every committed manifest, a climb from any vertex along
//! any direction stops within the hull's proven slack of the true support:
//! `max_p d·p − d·v <= slack · |d|`. A hull without a graph (its floating-point hull
//! construction found an inconsistent horizon, typical of many coplanar points) scans,
//! which is always exact; the tests also require that the smooth hulls get one.

use collide::kernel::climb::{Graph, MIN_CLIMB_VERTICES, climb};
use collide::kernel::scan::{Climb, HullPoints, argmax_dot_scalar, dot_fma};
use collide::kernel::vec3::V3;
use proptest::prelude::*;

fn soa(p: &[V3]) -> [Vec<f64>; 3] {
    [0, 1, 2].map(|k| p.iter().map(|q| q[k]).collect())
}

/// `max_p d·p − d·v` over the cloud, with the scan's products.
fn shortfall(x: &[f64], y: &[f64], z: &[f64], d: V3, v: usize) -> f64 {
    let best = argmax_dot_scalar(x, y, z, d);
    dot_fma(x[best], y[best], z[best], d) - dot_fma(x[v], y[v], z[v], d)
}

/// Climbs from every `step`-th vertex along `dirs`; panics past the slack. Returns the
/// graph's slack, or `None` when the hull has no graph.
fn check_hull(p: &[V3], dirs: &[V3], step: usize) -> Option<f64> {
    let [x, y, z] = soa(p);
    let h = HullPoints {
        x: &x,
        y: &y,
        z: &z,
        table: &[],
        climb: Climb::NONE,
    };
    let g = Graph::build(&h)?;
    for d in dirs {
        let n = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
        for from in (0..p.len()).step_by(step.max(1)) {
            let (v, examined) = climb(&h, &g.view(), *d, from);
            assert!(examined >= 1 && v < p.len());
            let short = shortfall(&x, &y, &z, *d, v);
            assert!(
                short <= g.slack * n,
                "{} points: climb from {from} stops {short} short along {d:?}, slack {}",
                p.len(),
                g.slack
            );
        }
    }
    Some(g.slack)
}

fn round_to(p: V3, grid: f64) -> V3 {
    p.map(|c| (c / grid).round() * grid)
}

/// A cloud of `n` points: on an ellipsoid (`shape` 0) or a box's surface (1, many coplanar
/// points, the hard case for rounding), every fourth point pulled inside when `interior`.
fn cloud(unit: &[V3], half: V3, shape: u8, interior: bool, grid: f64) -> Vec<V3> {
    unit.iter()
        .enumerate()
        .map(|(i, u)| {
            let m = if shape == 0 {
                (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]).sqrt()
            } else {
                u[0].abs().max(u[1].abs()).max(u[2].abs())
            }
            .max(1e-9);
            let s = if interior && i % 4 == 3 { 0.7 } else { 1.0 };
            let p = [0, 1, 2].map(|k| s * half[k] * u[k] / m);
            if grid > 0.0 { round_to(p, grid) } else { p }
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]
    #[test]
    fn a_climb_stops_within_the_proven_slack_of_the_full_scan(
        unit in prop::collection::vec(prop::array::uniform3(-1.0f64..1.0), 4..=320),
        half in prop::array::uniform3(0.005f64..0.4),
        shape in 0u8..2,
        interior: bool,
        grid in prop::sample::select(vec![0.0, 1e-6, 1e-3]),
        dirs in prop::collection::vec(prop::array::uniform3(-1.0f64..1.0), 64),
    ) {
        let p = cloud(&unit, half, shape, interior, grid);
        if let Some(slack) = check_hull(&p, &dirs, 7) {
            prop_assert!((0.0..=collide::kernel::climb::MAX_SLACK).contains(&slack));
        }
    }
}

#[test]
fn every_rounded_ellipsoid_hull_gets_a_graph() {
    let mut s = 0x243f_6a88_85a3_08d3u64;
    let mut u = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    };
    let (mut built, mut total, mut worst) = (0, 0, 0.0f64);
    for k in 0..40 {
        let n = 200 + 3 * k;
        let unit: Vec<V3> = (0..n).map(|_| [u(), u(), u()]).collect();
        let dirs: Vec<V3> = (0..200).map(|_| [u(), u(), u()]).collect();
        let p = cloud(&unit, [0.05, 0.08, 0.12], (k % 2) as u8, k % 3 == 0, 1e-6);
        total += 1;
        match check_hull(&p, &dirs, 13) {
            Some(slack) => {
                built += 1;
                worst = worst.max(slack);
            }
            None => assert!(k % 2 == 1, "ellipsoid cloud {k} got no graph"),
        }
    }
    eprintln!("random hulls: {built} of {total} climb; largest slack {worst:.3e} m");
    // Every ellipsoid cloud (even k) gets a graph; box surfaces (odd k, hundreds of
    // coplanar points) may not (measured: none do; they scan).
    assert!(built * 2 >= total, "{built} of {total} hulls got a graph");
}

#[test]
fn every_committed_hull_climbs_within_its_slack() {
    let mut s = 0x1357_9bdf_2468_ace0u64;
    let mut u = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    };
    let dirs: Vec<V3> = (0..100).map(|_| [u(), u(), u()]).collect();
    let mut robots: Vec<_> = std::fs::read_dir("robots")
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    robots.sort();
    let (mut eligible, mut built, mut worst) = (0, 0, 0.0f64);
    for dir in robots {
        let path = dir.join("manifest.yaml");
        let Ok(manifest) = collide::manifest::load_manifest(&path) else {
            continue;
        };
        let m = collide::manifest::kernel::load_kernel(&manifest)
            .unwrap()
            .model;
        for l in m.links() {
            for prim in &l.primitives {
                if let collide::kernel::Primitive::Tight(t) = prim {
                    let p = &m.hull_vertices()[t.hull_offset..t.hull_offset + t.hull_len];
                    if p.len() < MIN_CLIMB_VERTICES {
                        continue;
                    }
                    eligible += 1;
                    if let Some(slack) = check_hull(p, &dirs, 11) {
                        built += 1;
                        worst = worst.max(slack);
                    }
                }
            }
        }
    }
    eprintln!(
        "committed hulls of {MIN_CLIMB_VERTICES}+ vertices: {built} of {eligible} climb; largest slack {worst:.3e} m"
    );
    // Measured 2026-12-06: 123 of 190 (the rest have near-coplanar faces and scan).
    assert!(eligible > 50, "{eligible}");
    assert!(built * 2 >= eligible, "{built} of {eligible}");
}
