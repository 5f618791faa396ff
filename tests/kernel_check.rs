//! `check_self_collision` end to end against an independent oracle: for random
//! configurations of several models, every checked pair's reported value is compared with
//! parry3d-f64's distance between the world-placed primitives (minimum over primitive pairs).
//!
//! Asserted: every pair value `<=` the oracle (conservative), and in overlap `<=` the exact
//! signed distance (minus the penetration depth, parry's `contact`); a pair value at or below
//! `margin + refine_band` equals the oracle within the GJK tolerance (refined exactly); the
//! verdict, first tripping pair, minimum and its pair agree with the pair values; every pair
//! whose oracle distance is `<= margin` trips; bounding spheres contain their primitives. On
//! every committed robot's rest pose (the manifests alone, no meshes), every checked pair's
//! value is at most the exact signed distance of its primitives (issue 22).

mod common;

use collide::kernel::vec3::{Iso, Mat3, V3, add, mul_mm, mul_mv, norm, sub};
use collide::kernel::{Model, Primitive};
use collide::manifest::Manifest;
use common::kernel_models::{Rng, humanoid29, mixed_tight_arm, panda, panda_tight, random_q};

use common::parry_bridge::{Cloud, gjk_multi, ppose, pv};
use parry3d_f64::math::{Pose, Vector};
use parry3d_f64::query;
use parry3d_f64::shape::{Cuboid, Segment, SupportMap};

const TOL_CLOSED: f64 = 1e-9;
const TOL_GJK: f64 = 1.5e-5;

/// A primitive in the world frame, as parry sees it: a core support map and a radius.
enum Core {
    Seg(V3, V3, f64),
    Box(V3, Mat3, V3),
    Cloud(Vec<V3>),
}

fn place(m: &Model, link: usize, pose: &Iso) -> Vec<Core> {
    m.links()[link]
        .primitives
        .iter()
        .map(|p| match *p {
            Primitive::Capsule { a, b, radius } => {
                Core::Seg(pose.transform_point(a), pose.transform_point(b), radius)
            }
            Primitive::Box(b) => Core::Box(
                pose.transform_point(b.center),
                mul_mm(&pose.rot, &b.rotation),
                b.half_extents,
            ),
            Primitive::Tight(t) => Core::Cloud(
                m.hull_vertices()[t.hull_offset..t.hull_offset + t.hull_len]
                    .iter()
                    .map(|v| pose.transform_point(*v))
                    .collect(),
            ),
        })
        .collect()
}

/// Oracle distance between two placed primitives (0 on overlap).
fn oracle(a: &Core, b: &Core) -> f64 {
    // Everything as (pose, support map); radii subtracted after.
    let (ra, rb) = (radius(a), radius(b));
    let core = match (a, b) {
        (Core::Seg(a0, a1, _), Core::Seg(b0, b1, _)) => query::details::distance_segment_segment(
            &Pose::IDENTITY,
            &Segment::new(pv(*a0), pv(*a1)),
            &Segment::new(pv(*b0), pv(*b1)),
        ),
        _ => with_shape(a, &mut |pa, ga| {
            with_shape(b, &mut |pb, gb| gjk_multi(&pa.inv_mul(&pb), &ga, &gb))
        }),
    };
    (core - ra - rb).max(0.0)
}

fn radius(c: &Core) -> f64 {
    match c {
        Core::Seg(_, _, r) => *r,
        _ => 0.0,
    }
}

fn with_shape(c: &Core, f: &mut dyn FnMut(Pose, &dyn SupportMapDyn) -> f64) -> f64 {
    match c {
        Core::Seg(a, b, _) => f(Pose::IDENTITY, &Segment::new(pv(*a), pv(*b))),
        Core::Box(center, rot, half) => f(ppose(*center, rot), &Cuboid::new(pv(*half))),
        Core::Cloud(pts) => f(Pose::IDENTITY, &Cloud(pts.iter().map(|p| pv(*p)).collect())),
    }
}

/// Object-safe wrapper so shapes of different types can be passed through one closure.
trait SupportMapDyn {
    fn sup(&self, d: Vector) -> Vector;
}

impl<T: SupportMap> SupportMapDyn for T {
    fn sup(&self, d: Vector) -> Vector {
        self.local_support_point(d)
    }
}

impl SupportMap for &dyn SupportMapDyn {
    fn local_support_point(&self, dir: Vector) -> Vector {
        (**self).sup(dir)
    }
}

/// Exact signed distance between two placed primitives: the distance when apart, minus the
/// penetration depth in overlap. Segment pairs in closed form (two segments' difference is
/// flat, so their signed distance is their distance, and a capsule is `segment ⊕ ball`:
/// `signed(capsule, X) = signed(segment, X) − r`); everything else by parry's `contact`
/// (GJK, then EPA in overlap). EPA's polytope lies inside `A − B`, so its depth is never
/// above the true one: the value is never below the truth (up to rounding).
fn signed_oracle(a: &Core, b: &Core) -> f64 {
    let (ra, rb) = (radius(a), radius(b));
    let core = match (a, b) {
        (Core::Seg(a0, a1, _), Core::Seg(b0, b1, _)) => query::details::distance_segment_segment(
            &Pose::IDENTITY,
            &Segment::new(pv(*a0), pv(*a1)),
            &Segment::new(pv(*b0), pv(*b1)),
        ),
        _ => with_shape(a, &mut |pa, ga| {
            with_shape(b, &mut |pb, gb| {
                query::details::contact_support_map_support_map(&pa.inv_mul(&pb), &ga, &gb, 1e3)
                    .map_or(f64::NAN, |c| c.dist)
            })
        }),
    };
    core - ra - rb
}

fn check_model(name: &str, m: &Model, n_configs: usize, seed: u64) {
    check_model_ws(name, m, n_configs, seed, false);
}

fn check_model_ws(name: &str, m: &Model, n_configs: usize, seed: u64, warm: bool) {
    let mut rng = Rng(seed);
    let mut ws = m.workspace();
    ws.set_warm_start(warm);
    let margin = m.margin();
    let band = m.refine_band();
    let mut exact_checked = 0usize;
    let mut overlap_checked = 0usize;
    let mut trips = 0usize;
    for _ in 0..n_configs {
        let q = random_q(m, &mut rng);
        let res = m.check_self_collision(&q, &mut ws, true);
        let pd = ws.pair_distances().to_vec();
        let poses: Vec<Iso> = (0..m.n_links())
            .map(|i| {
                let (rot, pos) = ws.link_pose(i);
                Iso { rot, pos }
            })
            .collect();
        // Verdict bookkeeping.
        let first = m
            .checked_pairs()
            .iter()
            .zip(&pd)
            .find(|(_, d)| **d <= margin);
        assert_eq!(res.tripped, first.is_some());
        assert_eq!(res.first_tripping_pair, first.map(|(p, _)| *p));
        let min = pd.iter().cloned().fold(f64::INFINITY, f64::min);
        assert_eq!(res.min_distance.to_bits(), min.to_bits());
        if res.tripped {
            trips += 1;
        }
        // Pair values against the oracle.
        for (k, &(i, j)) in m.checked_pairs().iter().enumerate() {
            let ca = place(m, i, &poses[i]);
            let cb = place(m, j, &poses[j]);
            let mut o = f64::INFINITY;
            let mut signed = f64::INFINITY;
            for a in &ca {
                for b in &cb {
                    let d = oracle(a, b);
                    o = o.min(d);
                    if d <= TOL_GJK {
                        // Overlapping (or nearly): the value must also bound the depth.
                        let s = signed_oracle(a, b);
                        assert!(!s.is_nan(), "{name}: pair ({i},{j}): parry's EPA gave up");
                        signed = signed.min(s);
                    }
                }
            }
            let tol = if o > 0.0 { TOL_CLOSED } else { TOL_GJK };
            assert!(
                pd[k] <= o + tol,
                "{name}: pair ({i},{j}) reported {:e} above the oracle {o:e}",
                pd[k]
            );
            if signed < 0.0 {
                assert!(
                    pd[k] <= signed + TOL_CLOSED,
                    "{name}: pair ({i},{j}) reported {:e} above the signed distance {signed:e}",
                    pd[k]
                );
                overlap_checked += 1;
            }
            if o <= margin - TOL_GJK {
                assert!(
                    pd[k] <= margin,
                    "{name}: pair ({i},{j}) at {o:e} did not trip"
                );
            }
            if pd[k] <= margin + band && o > 0.0 {
                assert!(
                    pd[k] >= o - TOL_GJK,
                    "{name}: pair ({i},{j}) within the refinement band but not exact: {:e} vs {o:e}",
                    pd[k]
                );
                exact_checked += 1;
            }
        }
    }
    eprintln!(
        "{name}: {n_configs} configurations, {trips} tripped, {exact_checked} in-band pair values checked exact, {overlap_checked} overlapping ones checked against the signed distance"
    );
}

#[test]
fn check_matches_oracle_on_panda() {
    check_model("panda", &panda(), 400, 1);
}

#[test]
fn check_matches_oracle_on_humanoid() {
    check_model("humanoid29", &humanoid29(), 100, 2);
}

#[test]
fn check_matches_oracle_on_tight_models() {
    check_model("panda_tight64", &panda_tight(64), 200, 3);
    check_model("mixed_tight48_margin", &mixed_tight_arm(48, 0.02), 400, 4);
    let m = mixed_tight_arm(48, 0.0).with_refine_band(0.0).unwrap();
    check_model("mixed_tight48_noband", &m, 300, 5);
}

/// Warm start on: a stored witness simplex that already holds the origin must not make an
/// overlapping pair read 0 (it did: GJK returned 0 when the rebuilt simplex held the origin
/// before any scan, and `max(stage 1, 0)` stood for the pair).
#[test]
fn check_matches_oracle_with_warm_start() {
    check_model_ws("panda_tight64_warm", &panda_tight(64), 200, 3, true);
    check_model_ws(
        "mixed_tight48_warm",
        &mixed_tight_arm(48, 0.02),
        400,
        4,
        true,
    );
    check_model_ws("panda_warm", &panda(), 400, 1, true);
}

/// The committed manifests' kernels (`robots/*/manifest.yaml`), with the robot's name.
fn committed_kernels() -> Vec<(String, collide::manifest::kernel::LoadedKernel, Manifest)> {
    use collide::manifest::kernel::load_kernel;
    use collide::manifest::load_manifest;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("robots");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("manifest.yaml").is_file())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 10, "{dirs:?}");
    dirs.iter()
        .map(|dir| {
            let m = load_manifest(&dir.join("manifest.yaml")).unwrap();
            let k = load_kernel(&m).unwrap();
            (
                dir.file_name().unwrap().to_string_lossy().into_owned(),
                k,
                m,
            )
        })
        .collect()
}

/// Without every pair's value the kernel stops an overlapping tight pair's depth bound once
/// it reaches the minimum so far: the verdict, the first tripping pair, the minimum and its
/// pair must be bit for bit those of the full computation (`want_all_pairs`).
#[test]
fn the_minimum_is_the_same_with_and_without_every_pair_value() {
    let mut models: Vec<(String, Model)> = committed_kernels()
        .into_iter()
        .map(|(name, k, _)| (name, k.model))
        .collect();
    models.push(("panda_tight64".into(), panda_tight(64)));
    models.push(("mixed_tight48".into(), mixed_tight_arm(48, 0.02)));
    let mut rng = Rng(22);
    for (name, m) in &models {
        let mut ws = m.workspace();
        let (mut cut, mut full) = (0u64, 0u64);
        for _ in 0..500 {
            let q = random_q(m, &mut rng);
            let a = m.check_self_collision(&q, &mut ws, false);
            cut += u64::from(ws.stats().epa_steps);
            let b = m.check_self_collision(&q, &mut ws, true);
            full += u64::from(ws.stats().epa_steps);
            let key = |r: &collide::kernel::CheckResult| {
                (
                    r.tripped,
                    r.first_tripping_pair,
                    r.min_distance.to_bits(),
                    r.min_pair,
                )
            };
            assert_eq!(key(&a), key(&b), "{name}: {q:?}");
        }
        eprintln!("{name}: expanding-polytope steps {cut} (minimum only) vs {full} (every pair)");
        assert!(cut <= full, "{name}");
    }
}

/// The primitives of every committed manifest (`robots/*/manifest.yaml`), placed at its rest
/// pose: each checked pair's value against the exact signed distance of its primitives.
/// Issue 22 found PR2's base_link / l_shoulder_pan_link (a capsule whose core lay inside the
/// base box) reading −0.1864 m where the signed distance was −0.2868 m; that pair is proven
/// `never` now, and `tests/kernel_oracle.rs` keeps a core inside a box as a hand-made case.
/// Every committed rest pose is clear now, so two seeded poses a robot join it: there the
/// humanoids interpenetrate, and the test must see overlap, not only gaps.
#[test]
fn rest_and_seeded_pose_values_are_at_most_the_signed_distance_on_every_committed_robot() {
    let mut overlapping = 0usize;
    let mut rng = Rng(0x5e57_0001);
    for (name, k, m) in committed_kernels() {
        let model = &k.model;
        let rest = k.q_from(&m.rest_pose.q);
        let seeded = [random_q(model, &mut rng), random_q(model, &mut rng)];
        for q in std::iter::once(rest).chain(seeded) {
            let mut ws = model.workspace();
            let res = model.check_self_collision(&q, &mut ws, true);
            let pd = ws.pair_distances().to_vec();
            let poses: Vec<Iso> = (0..model.n_links())
                .map(|i| {
                    let (rot, pos) = ws.link_pose(i);
                    Iso { rot, pos }
                })
                .collect();
            let mut least = f64::INFINITY;
            for (p, &(i, j)) in model.checked_pairs().iter().enumerate() {
                let (ca, cb) = (place(model, i, &poses[i]), place(model, j, &poses[j]));
                let mut signed = f64::INFINITY;
                for a in &ca {
                    for b in &cb {
                        signed = signed.min(signed_oracle(a, b));
                    }
                }
                assert!(!signed.is_nan(), "{name}: parry's EPA gave up");
                let names = (&k.link_names[i], &k.link_names[j]);
                assert!(
                    pd[p] <= signed + TOL_CLOSED,
                    "{name}: {names:?} reported {:.6} m above the signed distance {signed:.6} m",
                    pd[p]
                );
                overlapping += usize::from(signed < 0.0);
                least = least.min(signed);
            }
            assert!(res.min_distance <= least + TOL_CLOSED, "{name}");
        }
    }
    assert!(overlapping > 0, "no checked pair overlaps at any pose");
}

#[test]
fn bounding_spheres_contain_their_primitives() {
    for m in [
        panda(),
        humanoid29(),
        panda_tight(64),
        mixed_tight_arm(48, 0.0),
    ] {
        for (li, l) in m.links().iter().enumerate() {
            for (k, p) in l.primitives.iter().enumerate() {
                let (c, r) = m.bounding_sphere(li, k).unwrap();
                let pts: Vec<(V3, f64)> = match *p {
                    Primitive::Capsule { a, b, radius } => vec![(a, radius), (b, radius)],
                    Primitive::Box(b) => corners(b.center, &b.rotation, b.half_extents),
                    Primitive::Tight(t) => m.hull_vertices()
                        [t.hull_offset..t.hull_offset + t.hull_len]
                        .iter()
                        .map(|v| (*v, 0.0))
                        .collect(),
                };
                for (p, pr) in pts {
                    assert!(norm(sub(p, c)) + pr <= r * (1.0 + 1e-12) + 1e-15);
                }
            }
        }
    }
}

fn corners(c: V3, r: &Mat3, h: V3) -> Vec<(V3, f64)> {
    let mut out = vec![];
    for sx in [-1.0, 1.0] {
        for sy in [-1.0, 1.0] {
            for sz in [-1.0, 1.0] {
                out.push((add(c, mul_mv(r, [sx * h[0], sy * h[1], sz * h[2]])), 0.0));
            }
        }
    }
    out
}

#[test]
fn nan_configuration_trips() {
    let m = panda();
    let mut ws = m.workspace();
    let mut q = vec![0.0; m.dof()];
    q[3] = -1.5;
    q[2] = f64::NAN;
    let r = m.check_self_collision(&q, &mut ws, false);
    assert!(r.tripped, "a NaN configuration must trip");
}

#[test]
fn acm_exempts_and_nothing_else_does() {
    // Two overlapping capsules on adjacent links: tripped unless the ACM exempts them.
    use collide::kernel::{Acm, Joint, JointKind, Link};
    let links = || {
        vec![
            Link {
                name: "a".into(),
                parent: None,
                joint: Joint::fixed("j0", [0.0; 3], [0.0; 3]),
                primitives: vec![Primitive::Capsule {
                    a: [0.0; 3],
                    b: [0.0, 0.0, 0.3],
                    radius: 0.05,
                }],
            },
            Link {
                name: "b".into(),
                parent: Some(0),
                joint: Joint::new(
                    "j1",
                    JointKind::Revolute,
                    [0.0, 0.0, 0.3],
                    [0.0; 3],
                    [0.0, 1.0, 0.0],
                    -1.0,
                    1.0,
                ),
                primitives: vec![Primitive::Capsule {
                    a: [0.0; 3],
                    b: [0.3, 0.0, 0.0],
                    radius: 0.05,
                }],
            },
        ]
    };
    let m = Model::new(links(), vec![], Acm::new(2), 0.0).unwrap();
    let mut ws = m.workspace();
    let r = m.check_self_collision(&[0.2], &mut ws, true);
    assert!(r.tripped);
    assert_eq!(r.first_tripping_pair, Some((0, 1)));
    assert!((r.min_distance + 0.1).abs() < 1e-12, "{}", r.min_distance);
    let mut acm = Acm::new(2);
    acm.allow(0, 1);
    let m = Model::new(links(), vec![], acm, 0.0).unwrap();
    let mut ws = m.workspace();
    let r = m.check_self_collision(&[0.2], &mut ws, true);
    assert!(!r.tripped && r.min_pair.is_none() && r.min_distance == f64::INFINITY);
}

#[test]
fn margin_trips_at_and_below() {
    // Two spheres (zero-length capsules) 0.25 apart; margin 0.25 trips, 0.2499 does not.
    use collide::kernel::{Acm, Joint, JointKind, Link};
    let make = |margin: f64| {
        let links = vec![
            Link {
                name: "a".into(),
                parent: None,
                joint: Joint::fixed("j0", [0.0; 3], [0.0; 3]),
                primitives: vec![Primitive::Capsule {
                    a: [0.0; 3],
                    b: [0.0; 3],
                    radius: 0.125,
                }],
            },
            Link {
                name: "b".into(),
                parent: Some(0),
                joint: Joint::new(
                    "j1",
                    JointKind::Prismatic,
                    [0.0; 3],
                    [0.0; 3],
                    [1.0, 0.0, 0.0],
                    0.0,
                    2.0,
                ),
                primitives: vec![Primitive::Capsule {
                    a: [0.0; 3],
                    b: [0.0; 3],
                    radius: 0.125,
                }],
            },
        ];
        Model::new(links, vec![], Acm::new(2), margin).unwrap()
    };
    for (margin, want) in [(0.25, true), (0.2499, false)] {
        let m = make(margin);
        let mut ws = m.workspace();
        let r = m.check_self_collision(&[0.5], &mut ws, false);
        assert_eq!(r.tripped, want, "margin {margin}: {r:?}");
        assert_eq!(r.min_distance, 0.25);
    }
}
