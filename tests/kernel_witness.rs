//! `Model::pair_witness`: the closest points (apart) or deepest points (overlap) of a checked
//! link pair, against answers worked out by hand and against parry3d-f64.
//!
//! Hand cases (two links, the second placed by a rotated and translated joint, so a point
//! returned in the link frame instead of the world frame fails): two capsules parallel,
//! crossing (apart, and with the cores meeting) and overlapping, a box and a capsule apart
//! (box on A, on B, and turned 45°) and with the core inside the box, a hull cube and a
//! capsule apart and overlapping, two boxes face to face and overlapping.
//!
//! Oracle (committed Panda, G1 and TIAGo manifests, 400/300/300 seeded uniform poses, and
//! 150 of each other committed robot; every checked pair whose kernel value is within 2 cm,
//! overlapping included), asserted per pair:
//!
//! * `distance` equals the kernel's pair value whenever that is `<= margin + band`
//!   (1e-9 m);
//! * each point lies in a primitive of its own link: parry's point–shape distance <= 1e-7 m
//!   (capsules and boxes: parry's exact projection; hulls: parry's GJK against the vertices,
//!   which reads boundary points, vertices even, as up to 2e-5 m outside, so the point moved
//!   1e-8 m inwards counts too, see `Placed::point_distance`);
//! * `||a − b| − |distance|| <= 1e-7 m`;
//! * the witness certifies itself: the one-sided gap, along the witness direction, of the
//!   primitives holding the points (a lower bound on their signed distance along any
//!   direction, computed here from the primitives' own support functions) equals `distance`
//!   within 1e-7 m; with the points inside, this brackets the truth;
//! * apart: `distance` at most parry's (`query::distance`, and its GJK from seven starts:
//!   upper estimates) + 1e-9, and within 1e-6 m of it unless parry's GJK stalled above the
//!   certified value (counted; at most 2 % of the pairs apart; 27 of 7,949 on G1's hull
//!   pairs, up to ~1e-5 m);
//! * overlap: `distance` between the gap along parry's contact normals (below the truth) and
//!   parry's EPA value (`query::contact`, above it: its polytope lies inside `A − B`), within
//!   1e-6 m of parry's value whenever that bracket is within 1e-6 m (parry stopped short on
//!   a few pairs, counted, at most 5 %); parry's normal along ours is counted.
//!
//! Breaking the witness (a and b swapped, a box point left in the box's frame, the overlap
//! direction reversed) fails these tests.

mod common;

use collide::kernel::vec3::{Iso, Mat3, V3, add, dot, mul_mm, mul_mtv, mul_mv, norm, scale, sub};
use collide::kernel::{Acm, BoxShape, Joint, Link, Model, PairWitness, Primitive};
use common::kernel_models::{Rng, random_q, tight_from_points};
use parry3d_f64::math::Pose;
use parry3d_f64::query;
use parry3d_f64::shape::{Ball, Capsule, Cuboid, Shape};

use common::parry_bridge::{Cloud, gjk_multi, ppose, pv};

const IDENTITY: Mat3 = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

// ---------------------------------------------------------------------------------------
// Hand-made cases
// ---------------------------------------------------------------------------------------

/// Link B's joint: translated and rotated, so that its primitives' link frame is not the
/// world frame.
fn b_pose() -> Iso {
    Iso::from_xyz_rpy([0.3, -0.2, 0.1], [0.4, -0.3, 0.7])
}

/// A world-frame primitive expressed in link B's frame.
fn to_b(p: Primitive) -> Primitive {
    let pose = b_pose();
    let local = |x: V3| mul_mtv(&pose.rot, sub(x, pose.pos));
    match p {
        Primitive::Capsule { a, b, radius } => Primitive::Capsule {
            a: local(a),
            b: local(b),
            radius,
        },
        Primitive::Box(b) => Primitive::Box(BoxShape {
            center: local(b.center),
            rotation: mul_mm(&collide::kernel::vec3::transpose(&pose.rot), &b.rotation),
            half_extents: b.half_extents,
        }),
        Primitive::Tight(_) => unreachable!(),
    }
}

/// Link A (root, world frame) with `a`, link B with `b` (given in the world frame).
fn two_links(a: Vec<Primitive>, b: Vec<Primitive>, hull: Vec<V3>) -> Model {
    let pose = b_pose();
    let rpy = collide::kernel::vec3::rpy_from_rot(&pose.rot);
    let links = vec![
        Link {
            name: "a".into(),
            parent: None,
            joint: Joint::fixed("ja", [0.0; 3], [0.0; 3]),
            primitives: a,
        },
        Link {
            name: "b".into(),
            parent: Some(0),
            joint: Joint::fixed("jb", pose.pos, rpy),
            primitives: b.into_iter().map(to_b).collect(),
        },
    ];
    Model::new(links, hull, Acm::new(2), 0.0).unwrap()
}

fn witness(m: &Model) -> PairWitness {
    let mut ws = m.workspace();
    m.fk(&[], &mut ws);
    assert_eq!(m.checked_pairs(), &[(0, 1)]);
    let w = m.pair_witness(0, &ws, 0.0);
    let kernel = m.pair_distance_with_margin(0, &mut ws, 0.0);
    // Exact when the kernel's value is within the band, a lower bound otherwise.
    assert!(
        (w.distance - kernel).abs() < 1e-9 || (kernel > m.refine_band() && w.distance > kernel),
        "witness {} against the kernel's {kernel}",
        w.distance
    );
    assert!(
        (norm(sub(w.point_a, w.point_b)) - w.distance.abs()).abs() < 1e-9,
        "{w:?}"
    );
    w
}

fn close(x: V3, want: V3, what: &str) {
    assert!(
        norm(sub(x, want)) < 1e-9,
        "{what}: got {x:?}, want {want:?}"
    );
}

fn cap(a: V3, b: V3, radius: f64) -> Primitive {
    Primitive::Capsule { a, b, radius }
}

fn aabb(center: V3, half: V3) -> Primitive {
    Primitive::Box(BoxShape {
        center,
        rotation: IDENTITY,
        half_extents: half,
    })
}

#[test]
fn crossing_capsules() {
    // x-axis core at z = 0 (r 0.1), y-parallel core at z = 1 (r 0.2): 1 − 0.3 apart, at x = y = 0.
    let m = two_links(
        vec![cap([-1.0, 0.0, 0.0], [1.0, 0.0, 0.0], 0.1)],
        vec![cap([0.0, -1.0, 1.0], [0.0, 1.0, 1.0], 0.2)],
        vec![],
    );
    let w = witness(&m);
    assert!((w.distance - 0.7).abs() < 1e-12);
    close(w.point_a, [0.0, 0.0, 0.1], "a");
    close(w.point_b, [0.0, 0.0, 0.8], "b");
}

#[test]
fn parallel_capsules() {
    // Cores along x, 0.5 apart in y; their projections share x ∈ [0.5, 1], where any pair of
    // points straight across is closest.
    let m = two_links(
        vec![cap([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], 0.1)],
        vec![cap([0.5, 0.5, 0.0], [2.0, 0.5, 0.0], 0.2)],
        vec![],
    );
    let w = witness(&m);
    assert!((w.distance - 0.2).abs() < 1e-12);
    let x = w.point_a[0];
    assert!((0.5 - 1e-12..=1.0 + 1e-12).contains(&x), "{w:?}");
    close(w.point_a, [x, 0.1, 0.0], "a");
    close(w.point_b, [x, 0.3, 0.0], "b");
}

#[test]
fn overlapping_capsules() {
    // Cores cross 0.2 apart (x-axis at z = 0, y-parallel at z = 0.2), radii 0.3 each: depth
    // 0.4, B pushed up along +z. A's deepest point into B is its top above the crossing,
    // B's its bottom.
    let m = two_links(
        vec![cap([-1.0, 0.0, 0.0], [1.0, 0.0, 0.0], 0.3)],
        vec![cap([0.0, -1.0, 0.2], [0.0, 1.0, 0.2], 0.3)],
        vec![],
    );
    let w = witness(&m);
    assert!((w.distance + 0.4).abs() < 1e-12);
    close(w.point_a, [0.0, 0.0, 0.3], "a");
    close(w.point_b, [0.0, 0.0, -0.1], "b");
}

#[test]
fn capsule_cores_crossing() {
    // The cores meet (at the origin): depth r1 + r2 = 0.5 along their common normal ±z.
    let m = two_links(
        vec![cap([-1.0, 0.0, 0.0], [1.0, 0.0, 0.0], 0.2)],
        vec![cap([0.0, -1.0, 0.0], [0.0, 1.0, 0.0], 0.3)],
        vec![],
    );
    let w = witness(&m);
    assert!((w.distance + 0.5).abs() < 1e-12);
    let s = w.point_a[2].signum();
    close(w.point_a, [0.0, 0.0, 0.2 * s], "a");
    close(w.point_b, [0.0, 0.0, -0.3 * s], "b");
}

#[test]
fn box_and_capsule_apart() {
    // Unit cube (half 0.5) at the origin; a vertical capsule above it at (0.2, 0.1),
    // core from z = 1 up, r 0.1: 0.4 apart, straight down onto the top face.
    let m = two_links(
        vec![aabb([0.0; 3], [0.5; 3])],
        vec![cap([0.2, 0.1, 1.0], [0.2, 0.1, 2.0], 0.1)],
        vec![],
    );
    let w = witness(&m);
    assert!((w.distance - 0.4).abs() < 1e-12);
    close(w.point_a, [0.2, 0.1, 0.5], "a");
    close(w.point_b, [0.2, 0.1, 0.9], "b");
}

#[test]
fn rotated_box_and_capsule() {
    // The unit cube turned 45° about z (on link B, whose joint turns it again), and the
    // capsule of `box_and_capsule_apart` on link A: the top face is where it was, the
    // capsule's footprint (0.2, 0.1) still on it (|x| + |y| <= 0.5·√2).
    let m = two_links(
        vec![cap([0.2, 0.1, 1.0], [0.2, 0.1, 2.0], 0.1)],
        vec![Primitive::Box(BoxShape::from_rpy(
            [0.0; 3],
            [0.0, 0.0, std::f64::consts::FRAC_PI_4],
            [0.5; 3],
        ))],
        vec![],
    );
    let w = witness(&m);
    assert!((w.distance - 0.4).abs() < 1e-12);
    close(w.point_a, [0.2, 0.1, 0.9], "a");
    close(w.point_b, [0.2, 0.1, 0.5], "b");
}

#[test]
fn capsule_and_box_apart_the_other_way_round() {
    // The same pair with the capsule on link A: the points swap.
    let m = two_links(
        vec![cap([0.2, 0.1, 1.0], [0.2, 0.1, 2.0], 0.1)],
        vec![aabb([0.0; 3], [0.5; 3])],
        vec![],
    );
    let w = witness(&m);
    assert!((w.distance - 0.4).abs() < 1e-12);
    close(w.point_a, [0.2, 0.1, 0.9], "a");
    close(w.point_b, [0.2, 0.1, 0.5], "b");
}

#[test]
fn capsule_core_inside_a_box() {
    // Horizontal core (x ∈ [−0.3, 0.3], y = 0, z = 0.3, r 0.1) inside the unit cube: the
    // shortest way out is up, 0.2 for the core and 0.1 more for the radius: −0.3. A's deepest
    // point into B is on its top face (z = 0.5), B's the capsule's bottom (z = 0.2), straight
    // below it (any x of the core).
    let m = two_links(
        vec![aabb([0.0; 3], [0.5; 3])],
        vec![cap([-0.3, 0.0, 0.3], [0.3, 0.0, 0.3], 0.1)],
        vec![],
    );
    let w = witness(&m);
    assert!((w.distance + 0.3).abs() < 1e-9, "{w:?}");
    let x = w.point_a[0];
    assert!(x.abs() <= 0.3 + 1e-9, "{w:?}");
    close(w.point_a, [x, 0.0, 0.5], "a");
    close(w.point_b, [x, 0.0, 0.2], "b");
}

#[test]
fn boxes_face_to_face() {
    // Cube of half 0.25 centred 0.85 above the unit cube: the faces 0.1 apart; any point
    // of the small cube's footprint straight across.
    let m = two_links(
        vec![aabb([0.0; 3], [0.5; 3])],
        vec![aabb([0.05, -0.1, 0.85], [0.25; 3])],
        vec![],
    );
    let w = witness(&m);
    assert!((w.distance - 0.1).abs() < 1e-9, "{w:?}");
    let (x, y) = (w.point_a[0], w.point_a[1]);
    assert!((-0.2 - 1e-9..=0.3 + 1e-9).contains(&x), "{w:?}");
    assert!((-0.35 - 1e-9..=0.15 + 1e-9).contains(&y), "{w:?}");
    close(w.point_a, [x, y, 0.5], "a");
    close(w.point_b, [x, y, 0.6], "b");
}

#[test]
fn boxes_overlapping() {
    // Cube of half 0.25 centred 0.7 above the unit cube: 0.05 deep along z (the other axes
    // are deeper), B pushed up: A's top face against B's bottom face.
    let m = two_links(
        vec![aabb([0.0; 3], [0.5; 3])],
        vec![aabb([0.05, -0.1, 0.7], [0.25; 3])],
        vec![],
    );
    let w = witness(&m);
    assert!((w.distance + 0.05).abs() < 1e-9, "{w:?}");
    let (x, y) = (w.point_a[0], w.point_a[1]);
    assert!((-0.2 - 1e-9..=0.3 + 1e-9).contains(&x), "{w:?}");
    assert!((-0.35 - 1e-9..=0.15 + 1e-9).contains(&y), "{w:?}");
    close(w.point_a, [x, y, 0.5], "a");
    close(w.point_b, [x, y, 0.45], "b");
}

#[test]
fn hull_cube_and_capsule() {
    // A tight primitive (the unit cube's eight corners) against the capsule of
    // `box_and_capsule_apart`, then pushed 0.15 into it (core bottom at z = 0.75: the
    // capsule's bottom at 0.65, so −0.15, apart from the core).
    let corners: Vec<V3> = (0..8)
        .map(|i| {
            let s = |b: usize| if i & (1 << b) == 0 { -0.5 } else { 0.5 };
            [s(0), s(1), s(2)]
        })
        .collect();
    for (z, d) in [(1.0, 0.4), (0.55, -0.05)] {
        let mut store = Vec::new();
        let t = tight_from_points(&corners, IDENTITY, &mut store);
        let m = two_links(
            vec![t],
            vec![cap([0.2, 0.1, z], [0.2, 0.1, 2.0], 0.1)],
            store,
        );
        let w = witness(&m);
        assert!((w.distance - d).abs() < 1e-9, "{w:?}");
        close(w.point_a, [0.2, 0.1, 0.5], "a");
        close(w.point_b, [0.2, 0.1, z - 0.1], "b");
    }
}

// ---------------------------------------------------------------------------------------
// Oracle: parry3d-f64 on the committed manifests
// ---------------------------------------------------------------------------------------

/// A world-placed primitive: parry's shape and pose, and its own support function.
struct Placed {
    shape: Box<dyn Shape>,
    pose: Pose,
    kind: Kind,
}

enum Kind {
    Capsule(V3, V3, f64),
    Box(V3, Mat3, V3),
    Hull(Vec<V3>),
}

impl Placed {
    /// `max_{x ∈ solid} n · x`.
    fn support(&self, n: V3) -> f64 {
        match &self.kind {
            Kind::Capsule(a, b, r) => dot(n, *a).max(dot(n, *b)) + r * norm(n),
            Kind::Box(c, rot, h) => {
                let l = mul_mtv(rot, n);
                dot(n, *c) + h[0] * l[0].abs() + h[1] * l[1].abs() + h[2] * l[2].abs()
            }
            Kind::Hull(p) => p
                .iter()
                .map(|x| dot(n, *x))
                .fold(f64::NEG_INFINITY, f64::max),
        }
    }

    /// parry's distance from `x` to the solid: its exact point projections on capsules and
    /// boxes; on hulls its GJK between the point and the vertices (its convex-hull builder
    /// drops vertices of the manifests' hulls by up to 2e-5 m).
    fn point_distance(&self, x: V3) -> f64 {
        match &self.kind {
            Kind::Hull(p) => {
                // parry's GJK reads a point on the boundary (a vertex even) as up to 2e-5 m
                // outside: a vertex counts as inside, and the point moved 1e-8 m towards the
                // vertices' centroid is measured too (inside
                // whenever the point is; outside by at most 1e-8 less when it is not), whose
                // distance plus 1e-8 also bounds the point's; the smaller of the two.
                let cloud = Cloud(p.iter().map(|v| pv(*v)).collect());
                let c = scale(
                    p.iter().fold([0.0; 3], |s, v| add(s, *v)),
                    1.0 / p.len() as f64,
                );
                let to_c = sub(c, x);
                let inward = add(x, scale(to_c, 1e-8 / norm(to_c).max(1e-300)));
                let d = |y: V3| gjk_multi(&Pose::IDENTITY, &Cloud(vec![pv(y)]), &cloud);
                // A vertex (within rounding) is in its hull whatever parry says.
                let vertex = p
                    .iter()
                    .map(|v| norm(sub(*v, x)))
                    .fold(f64::INFINITY, f64::min);
                if vertex <= 1e-12 {
                    return vertex;
                }
                d(x).min(d(inward) + 1e-8)
            }
            _ => self.shape.distance_to_point(&self.pose, pv(x), true),
        }
    }

    /// The core as a support map in the world frame and its radius.
    fn core(&self) -> (Cloud, f64) {
        match &self.kind {
            Kind::Capsule(a, b, r) => (Cloud(vec![pv(*a), pv(*b)]), *r),
            Kind::Box(c, rot, h) => {
                let corners = (0..8)
                    .map(|i| {
                        let s = |k: usize| if i & (1 << k) == 0 { h[k] } else { -h[k] };
                        pv(add(*c, mul_mv(rot, [s(0), s(1), s(2)])))
                    })
                    .collect();
                (Cloud(corners), 0.0)
            }
            Kind::Hull(p) => (Cloud(p.iter().map(|v| pv(*v)).collect()), 0.0),
        }
    }
}

fn place(m: &Model, link: usize, pose: &Iso) -> Vec<Placed> {
    m.links()[link]
        .primitives
        .iter()
        .map(|p| match *p {
            Primitive::Capsule { a, b, radius } => {
                let (a, b) = (pose.transform_point(a), pose.transform_point(b));
                Placed {
                    shape: Box::new(Capsule::new(pv(a), pv(b), radius)),
                    pose: Pose::IDENTITY,
                    kind: Kind::Capsule(a, b, radius),
                }
            }
            Primitive::Box(b) => {
                let c = pose.transform_point(b.center);
                let rot = mul_mm(&pose.rot, &b.rotation);
                Placed {
                    shape: Box::new(Cuboid::new(pv(b.half_extents))),
                    pose: ppose(c, &rot),
                    kind: Kind::Box(c, rot, b.half_extents),
                }
            }
            Primitive::Tight(t) => {
                let pts: Vec<V3> = m.hull_vertices()[t.hull_offset..t.hull_offset + t.hull_len]
                    .iter()
                    .map(|v| pose.transform_point(*v))
                    .collect();
                Placed {
                    // Only for the shape-based queries of capsules and boxes; hulls go
                    // through their vertices (`core`).
                    shape: Box::new(Ball::new(0.0)),
                    pose: Pose::IDENTITY,
                    kind: Kind::Hull(pts),
                }
            }
        })
        .collect()
}

/// parry's signed distance of two primitives, and in overlap its contact normal (from the
/// first towards the second). Capsules and boxes: `query::distance` apart, `query::contact`
/// in overlap. Apart, also its GJK on the cores from seven starts (`gjk_multi`), radii taken
/// off: every GJK value is the distance of two points of the solids, an upper estimate, and
/// parry's `distance` stalls above the truth by up to ~1e-5 m on some box and hull pairs.
/// Pairs with a hull: the same GJK, and `contact` on the vertex clouds in overlap.
fn parry_signed(a: &Placed, b: &Placed) -> (f64, Option<V3>) {
    let hull = matches!(a.kind, Kind::Hull(_)) || matches!(b.kind, Kind::Hull(_));
    let ((ca, ra), (cb, rb)) = (a.core(), b.core());
    let gjk = gjk_multi(&Pose::IDENTITY, &ca, &cb) - ra - rb;
    let d = if hull {
        gjk
    } else {
        let d = query::distance(&a.pose, &*a.shape, &b.pose, &*b.shape)
            .unwrap()
            .distance;
        if d > 0.0 { d.min(gjk) } else { d }
    };
    if d > 0.0 {
        return (d, None);
    }
    let c = if hull {
        query::details::contact_support_map_support_map(&Pose::IDENTITY, &ca, &cb, 1e3)
            .map(|c| (c.dist - ra - rb, [c.normal1.x, c.normal1.y, c.normal1.z]))
    } else {
        query::contact(&a.pose, &*a.shape, &b.pose, &*b.shape, 0.0)
            .unwrap()
            .map(|c| (c.dist, [c.normal1.x, c.normal1.y, c.normal1.z]))
    };
    match c {
        Some((d, n)) => (d, Some(n)),
        None => (0.0, None),
    }
}

/// The one-sided gap of two primitives along the unit `n` (B on the `+n` side):
/// `min_B n·x − max_A n·x`, a lower bound on their signed distance.
fn gap(a: &Placed, b: &Placed, n: V3) -> f64 {
    -b.support(scale(n, -1.0)) - a.support(n)
}

#[derive(Default)]
struct Tally {
    pairs: usize,
    overlapping: usize,
    parry_loose: usize,
    parry_stalled: usize,
    normal_agrees: usize,
    worst_distance: f64,
    worst_inside: f64,
    worst_length: f64,
    worst_certificate: f64,
}

fn oracle_on(robot: &str, poses: usize, seed: u64) -> Tally {
    use collide::manifest::kernel::load_kernel;
    use collide::manifest::load_manifest;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("robots")
        .join(robot)
        .join("manifest.yaml");
    let m = load_kernel(&load_manifest(&path).unwrap()).unwrap().model;
    let mut ws = m.workspace();
    let mut rng = Rng(seed);
    let mut t = Tally::default();
    let threshold = m.margin() + m.refine_band();
    for _ in 0..poses {
        let q = random_q(&m, &mut rng);
        m.fk(&q, &mut ws);
        for (pi, &(la, lb)) in m.checked_pairs().iter().enumerate() {
            let kernel = m.pair_distance_with_margin(pi, &mut ws, m.margin());
            if kernel > 0.02 {
                continue;
            }
            let w = m.pair_witness(pi, &ws, m.margin());
            t.pairs += 1;
            let what = format!("{robot} q={q:?} pair {pi} ({la}, {lb}): {w:?}");
            if kernel <= threshold {
                assert!(
                    (w.distance - kernel).abs() <= 1e-9,
                    "{what}: kernel {kernel}"
                );
            }
            let (pose_a, pose_b) = (ws.link_pose(la), ws.link_pose(lb));
            let iso = |(rot, pos): (Mat3, V3)| Iso { rot, pos };
            let a = place(&m, la, &iso(pose_a));
            let b = place(&m, lb, &iso(pose_b));

            // The distance: parry's minimum over the primitive pairs (`want`), and below it
            // the gap along parry's contact normals in overlap (`want_lo`: parry's EPA
            // polytope lies inside `A − B`, so its value is never below the truth, and a gap
            // never above it); `want_normal`: the normal of parry's minimum.
            let (mut want, mut want_lo, mut want_normal) = (f64::INFINITY, f64::INFINITY, None);
            for pa in &a {
                for pb in &b {
                    let (d, n) = parry_signed(pa, pb);
                    let lo = n.map_or(d, |n| gap(pa, pb, n));
                    want_lo = want_lo.min(lo);
                    if d < want {
                        want = d;
                        want_normal = n;
                    }
                }
            }
            // The points, each in a primitive of its own link.
            let inside = |ps: &[Placed], x: V3| {
                ps.iter()
                    .map(|p| p.point_distance(x))
                    .fold(f64::INFINITY, f64::min)
            };
            let (ina, inb) = (inside(&a, w.point_a), inside(&b, w.point_b));
            t.worst_inside = t.worst_inside.max(ina).max(inb);
            assert!(
                ina <= 1e-7 && inb <= 1e-7,
                "{what}: outside by {ina}, {inb}"
            );
            let len = norm(sub(w.point_a, w.point_b));
            t.worst_length = t.worst_length.max((len - w.distance.abs()).abs());
            assert!(
                (len - w.distance.abs()).abs() <= 1e-7,
                "{what}: |a − b| = {len}"
            );
            // The certificate: the gap along the witness direction (B's side `+n`) of the
            // primitives holding the points (when several do, the pair whose gap is nearest
            // the distance: another pair's gap along `n` may be above it).
            if len > 1e-9 {
                let n = if w.distance > 0.0 {
                    scale(sub(w.point_b, w.point_a), 1.0 / len)
                } else {
                    scale(sub(w.point_a, w.point_b), 1.0 / len)
                };
                let mut g = f64::NEG_INFINITY;
                for pa in a.iter().filter(|p| p.point_distance(w.point_a) <= 1e-7) {
                    for pb in b.iter().filter(|p| p.point_distance(w.point_b) <= 1e-7) {
                        let gp = gap(pa, pb, n);
                        if (gp - w.distance).abs() < (g - w.distance).abs() {
                            g = gp;
                        }
                    }
                }
                t.worst_certificate = t.worst_certificate.max((g - w.distance).abs());
                assert!((g - w.distance).abs() <= 1e-7, "{what}: gap along it {g}");
            }
            if w.distance > 0.0 {
                // parry's GJK values are upper estimates (two points of the solids apart).
                assert!(w.distance <= want + 1e-9, "{what}: parry {want}");
                if want - w.distance > 1e-6 {
                    // parry's GJK stalled above the truth, which the points (inside, apart
                    // by `distance`) and the gap along them (the same) certify within 2e-7.
                    t.parry_stalled += 1;
                } else {
                    t.worst_distance = t.worst_distance.max((w.distance - want).abs());
                }
            } else {
                t.overlapping += 1;
                assert!(w.distance <= want + 1e-9, "{what}: parry's EPA {want}");
                assert!(
                    w.distance >= want_lo - 1e-9,
                    "{what}: parry's normals' gap {want_lo}"
                );
                if want - want_lo > 1e-6 {
                    // parry stopped short of the depth (docs/kernel.md): its own bracket
                    // is loose, and ours lies in it.
                    t.parry_loose += 1;
                } else {
                    t.worst_distance = t.worst_distance.max((w.distance - want).abs());
                    assert!((w.distance - want).abs() <= 1e-6, "{what}: parry {want}");
                }
                if let Some(n) = want_normal
                    && len > 1e-9
                    && dot(n, sub(w.point_a, w.point_b)) > 0.999 * len
                {
                    t.normal_agrees += 1;
                }
            }
        }
    }
    eprintln!(
        "{robot}: {} pairs within 2 cm ({} overlapping; parry's EPA short on {}, its normal \
         along ours on {}; parry's GJK above the certified distance by > 1e-6 m on {} apart); \
         worst |distance − parry| otherwise {:.1e}, point outside {:.1e}, ||a − b| − |d|| \
         {:.1e}, |gap − d| {:.1e}",
        t.pairs,
        t.overlapping,
        t.parry_loose,
        t.normal_agrees,
        t.parry_stalled,
        t.worst_distance,
        t.worst_inside,
        t.worst_length,
        t.worst_certificate
    );
    assert!(t.pairs > 0);
    // parry's own failures stay the exception (at most 1 in 20 pairs apart; each one is
    // still held to the certificate above). The re-lowered fleet's thin pieces (OpenArm:
    // 15 of 696) stall parry's GJK a little more often than the 1 in 50 of coarser pieces.
    assert!(
        t.parry_stalled * 20 <= t.pairs - t.overlapping,
        "parry stalled on {} of {} pairs apart",
        t.parry_stalled,
        t.pairs - t.overlapping
    );
    assert!(t.parry_loose * 20 <= t.overlapping.max(1));
    t
}

#[test]
fn oracle_panda() {
    let t = oracle_on("franka_panda", 400, 0x5717_0001);
    assert!(t.pairs >= 100, "too few near pairs to test: {}", t.pairs);
}

#[test]
fn oracle_g1() {
    let t = oracle_on("g1_29dof", 300, 0x5717_0002);
    assert!(
        t.overlapping >= 100,
        "too few overlapping pairs: {}",
        t.overlapping
    );
}

#[test]
fn oracle_tiago() {
    let t = oracle_on("tiago", 300, 0x5717_0003);
    assert!(t.pairs >= 100, "too few near pairs to test: {}", t.pairs);
}

/// The witness leaves the workspace as it found it: the check after it is bit-identical.
#[test]
fn witness_changes_no_check_value() {
    use collide::manifest::kernel::load_kernel;
    use collide::manifest::load_manifest;
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("robots/g1_29dof/manifest.yaml");
    let m = load_kernel(&load_manifest(&path).unwrap()).unwrap().model;
    let mut ws = m.workspace();
    ws.set_warm_start(true);
    let mut rng = Rng(7);
    for _ in 0..50 {
        let q = random_q(&m, &mut rng);
        let mut ws2 = ws.clone();
        let r1 = m.check_self_collision(&q, &mut ws, true);
        let r2 = m.check_self_collision(&q, &mut ws2, true);
        assert_eq!(format!("{r1:?}"), format!("{r2:?}"));
        let pi = m
            .checked_pairs()
            .iter()
            .position(|&p| Some(p) == r1.min_pair)
            .unwrap();
        let w = m.pair_witness(pi, &ws, m.margin());
        assert!((w.distance - r1.min_distance).abs() <= 1e-9);
        let again = m.check_self_collision(&q, &mut ws, true);
        let again2 = m.check_self_collision(&q, &mut ws2, true);
        assert_eq!(format!("{again:?}"), format!("{again2:?}"));
        assert_eq!(ws.pair_distances(), ws2.pair_distances());
    }
}

/// The cost of one witness, G1 and TIAGo, each call timed alone (the lesser of two runs):
/// on the minimum pair of every pose (what a caller of the check asks for; uniform poses
/// overlap nearly always, deeply) and on every pair near contact (value within ±2 cm);
/// beside it `pair_distance_with_margin` on the same pairs, and the check itself.
/// Run: `cargo test --release --test kernel_witness witness_cost -- --ignored --nocapture`.
#[test]
#[ignore = "timing; run by hand on an idle machine"]
fn witness_cost() {
    use collide::manifest::kernel::load_kernel;
    use collide::manifest::load_manifest;
    use std::time::Instant;
    fn best(f: &mut dyn FnMut()) -> f64 {
        (0..2)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_nanos() as f64
            })
            .fold(f64::INFINITY, f64::min)
    }
    fn med(v: &mut [f64]) -> (f64, f64) {
        v.sort_by(f64::total_cmp);
        if v.is_empty() {
            (f64::NAN, f64::NAN)
        } else {
            (v[v.len() / 2], v[v.len() * 99 / 100])
        }
    }
    for robot in ["g1_29dof", "tiago"] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("robots")
            .join(robot)
            .join("manifest.yaml");
        let m = load_kernel(&load_manifest(&path).unwrap()).unwrap().model;
        let mut ws = m.workspace();
        let mut rng = Rng(0x7135);
        let (mut min_w, mut min_d, mut near_w, mut near_d, mut check) =
            (vec![], vec![], vec![], vec![], vec![]);
        let (mut near_apart, mut near_overlap) = (0, 0);
        for _ in 0..5_000 {
            let q = random_q(&m, &mut rng);
            m.fk(&q, &mut ws);
            let t0 = Instant::now();
            let r = std::hint::black_box(m.check_placed(&mut ws, false));
            check.push(t0.elapsed().as_nanos() as f64);
            let mut values = ws.pair_distances().to_vec();
            m.check_placed(&mut ws, true);
            values.copy_from_slice(ws.pair_distances());
            for (pi, &v) in values.iter().enumerate() {
                let is_min = Some(m.checked_pairs()[pi]) == r.min_pair;
                let near = v.abs() <= 0.02;
                if !is_min && !near {
                    continue;
                }
                let tw = best(&mut || {
                    std::hint::black_box(m.pair_witness(pi, &ws, m.margin()));
                });
                let td = best(&mut || {
                    std::hint::black_box(m.pair_distance_with_margin(pi, &mut ws, m.margin()));
                });
                if is_min {
                    min_w.push(tw);
                    min_d.push(td);
                }
                if near {
                    near_w.push(tw);
                    near_d.push(td);
                    if v < 0.0 {
                        near_overlap += 1;
                    } else {
                        near_apart += 1;
                    }
                }
            }
        }
        let n_min = min_w.len();
        let n_near = near_w.len();
        let ((mw, pw), (md, _)) = (med(&mut min_w), med(&mut min_d));
        let ((nw, npw), (nd, _)) = (med(&mut near_w), med(&mut near_d));
        let (mc, _) = med(&mut check);
        eprintln!(
            "{robot}: pair_witness median {mw:.0} ns (p99 {pw:.0}) on the minimum pair of \
             {n_min} poses, pair_distance_with_margin {md:.0} ns there; {nw:.0} ns (p99 \
             {npw:.0}) on {n_near} pairs within ±2 cm ({near_apart} apart, {near_overlap} \
             overlapping), pair_distance_with_margin {nd:.0} ns there; check_placed median \
             {mc:.0} ns"
        );
    }
}

/// The rest of the committed fleet, fewer poses each.
#[test]
fn oracle_rest_of_the_fleet() {
    let robots = [
        "openarm_bimanual",
        "pr2",
        "robosuite_panda",
        "robosuite_ur5e",
        "so100",
        "so101",
        "talos_reduced",
        "ur10",
        "ur5",
    ];
    for (i, r) in robots.iter().enumerate() {
        oracle_on(r, 150, 0x99 + i as u64);
    }
}
