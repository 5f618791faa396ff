//! The world check on hand-made cases with hand-computed answers: each primitive kind
//! (capsule, box, box + hull) against one occupied cell apart, touching and overlapping;
//! each fixture kind; attached payloads against the world and the robot; the grid built
//! from points and a mesh; the verdict-only check; bad input.

use collide::kernel::dop26::dop_of_points;
use collide::kernel::world::{
    Obstacle, OccupancyGrid, Shape, World, WorldBody, WorldResult, WorldState,
};
use collide::kernel::{Acm, BoxShape, Joint, JointKind, Link, Model, Primitive, TightGeometry};

const TOL: f64 = 1e-9;

/// A fixed base (link 0, `base` primitives) and a link sliding along x (link 1, `slide`).
fn slider(base: Vec<Primitive>, slide: Vec<Primitive>, hull: Vec<[f64; 3]>) -> Model {
    let links = vec![
        Link {
            name: "base".into(),
            parent: None,
            joint: Joint::fixed("j0", [0.0; 3], [0.0; 3]),
            primitives: base,
        },
        Link {
            name: "slider".into(),
            parent: Some(0),
            joint: Joint::new(
                "j1",
                JointKind::Prismatic,
                [0.0; 3],
                [0.0; 3],
                [1.0, 0.0, 0.0],
                -5.0,
                5.0,
            ),
            primitives: slide,
        },
    ];
    Model::new(links, hull, Acm::new(2), 0.0).unwrap()
}

/// The octahedron of radius `r` about `c`, as a tight primitive (its box and DOP exact).
fn octahedron(c: [f64; 3], r: f64, store: &mut Vec<[f64; 3]>) -> Primitive {
    let rel: Vec<[f64; 3]> = (0..6)
        .map(|k| {
            let mut p = [0.0; 3];
            p[k / 2] = if k % 2 == 0 { r } else { -r };
            p
        })
        .collect();
    let off = store.len();
    store.extend(rel.iter().map(|p| [p[0] + c[0], p[1] + c[1], p[2] + c[2]]));
    Primitive::Tight(TightGeometry {
        bx: BoxShape::from_rpy(c, [0.0; 3], [r; 3]),
        dop26: dop_of_points(&rel),
        hull_offset: off,
        hull_len: 6,
    })
}

/// One occupied cell, `(0, 0, 0)` at pitch 0.1: the box `[0, 0.1]³`.
fn one_cell() -> World {
    World::new(
        OccupancyGrid::from_cells([0.0; 3], 0.1, &[[0, 0, 0]]).unwrap(),
        vec![],
    )
    .unwrap()
}

fn check(m: &Model, world: &World, q: f64, margin: f64) -> WorldResult {
    let mut ws = m.workspace();
    let mut st = WorldState::new(m);
    m.check_world(&[q], &mut ws, world, &mut st, margin)
}

fn assert_near(got: f64, want: f64, what: &str) {
    assert!((got - want).abs() < TOL, "{what}: got {got}, want {want}");
}

#[test]
fn each_primitive_kind_against_a_cell_apart_touching_overlapping() {
    let mut store = vec![];
    let kinds: Vec<(&str, Primitive)> = vec![
        // Core along z at x = q, y = 0.05; radius 0.01: gap q − 0.11.
        (
            "capsule",
            Primitive::Capsule {
                a: [0.0, 0.05, 0.02],
                b: [0.0, 0.05, 0.08],
                radius: 0.01,
            },
        ),
        // Half 0.02 about (q, 0.05, 0.05): gap q − 0.12.
        (
            "box",
            Primitive::Box(BoxShape::from_rpy([0.0, 0.05, 0.05], [0.0; 3], [0.02; 3])),
        ),
        // The octahedron of radius 0.02 there: its vertex points at the face, gap q − 0.12.
        ("hull", octahedron([0.0, 0.05, 0.05], 0.02, &mut store)),
    ];
    let world = one_cell();
    for (name, prim) in kinds {
        let m = slider(vec![], vec![prim], store.clone());
        let off = if name == "capsule" { 0.11 } else { 0.12 };
        for (what, q, want) in [
            ("apart", off + 0.03, 0.03),
            ("touching", off, 0.0),
            ("overlapping", off - 0.005, -0.005),
        ] {
            let r = check(&m, &world, q, 0.05);
            assert_near(r.min_distance, want, &format!("{name} {what}"));
            assert!(r.tripped, "{name} {what}: within the 0.05 margin");
            assert_eq!(
                r.nearest.unwrap(),
                collide::kernel::world::WorldHit {
                    body: WorldBody::Link(1),
                    obstacle: Obstacle::Cell([0, 0, 0]),
                }
            );
            // At margin 0 only touching and overlapping trip.
            let r0 = check(&m, &world, q, 0.0);
            assert_eq!(r0.tripped, want <= 0.0, "{name} {what} at margin 0");
            // Verdict-only: the same verdict.
            let mut ws = m.workspace();
            let mut st = WorldState::new(&m);
            let v = m.check_world_verdict(&[q], &mut ws, &world, &mut st, 0.0);
            assert_eq!(v.tripped, r0.tripped, "{name} {what} verdict");
        }
        // Far: nothing within the reach (margin + 0.01 band): the cap, no hit.
        let r = check(&m, &world, 1.0, 0.05);
        assert!(!r.tripped && r.nearest.is_none());
        assert_near(r.min_distance, 0.06, "far: the reach");
    }
}

#[test]
fn a_hull_beside_a_cell_edge_is_measured_on_the_hull_not_its_box() {
    // Octahedron of radius 0.03 about (q, 0.13, 0.05); at q = 0.13 its box [0.10, 0.16]²
    // touches the cell's edge x = y = 0.1, while the hull's nearest edge point is
    // (0.115, 0.115, 0.05): 0.015·√2 away.
    let mut store = vec![];
    let prim = octahedron([0.0, 0.13, 0.05], 0.03, &mut store);
    let m = slider(vec![], vec![prim], store);
    let r = check(&m, &one_cell(), 0.13, 0.05);
    assert_near(r.min_distance, 0.015 * 2f64.sqrt(), "hull by the edge");
    // A box of those extents would read 0 there: the margin 0.02 does not trip the hull.
    assert!(!check(&m, &one_cell(), 0.13, 0.02).tripped);
}

#[test]
fn the_window_reaches_a_cell_at_the_far_corner_of_a_long_primitive() {
    // A capsule 1 m long along x, the occupied cell beyond its far end: the window must
    // come from the whole containing box, not a neighbourhood of the link origin.
    let prim = Primitive::Capsule {
        a: [0.0, 0.05, 0.05],
        b: [1.0, 0.05, 0.05],
        radius: 0.01,
    };
    let m = slider(vec![], vec![prim], vec![]);
    let world = World::new(
        OccupancyGrid::from_cells([0.0; 3], 0.1, &[[12, 0, 0]]).unwrap(),
        vec![],
    )
    .unwrap();
    // q = 0.185: the far end at 1.185, radius to 1.195, the cell starts at 1.2.
    let r = check(&m, &world, 0.185, 0.01);
    assert_near(r.min_distance, 0.005, "far end");
    assert!(r.tripped);
}

#[test]
fn each_fixture_kind_at_hand_computed_distances() {
    // A sphere of radius 0.01 on the slider (a capsule with a = b), centre (q, 0, 0).
    let prim = Primitive::Capsule {
        a: [0.0; 3],
        b: [0.0; 3],
        radius: 0.01,
    };
    let m = slider(vec![], vec![prim], vec![]);
    let fixtures = [
        // Box [0.5, 0.7] in x: at q = 0.45 the gap is 0.04.
        (
            Shape::Box(BoxShape::from_rpy(
                [0.6, 0.0, 0.0],
                [0.0; 3],
                [0.1, 0.1, 0.1],
            )),
            0.04,
        ),
        // Sphere of radius 0.02 at x = 0.5: 0.05 − 0.03 = 0.02.
        (
            Shape::Sphere {
                center: [0.5, 0.0, 0.0],
                radius: 0.02,
            },
            0.02,
        ),
        // Capsule across y at x = 0.5, radius 0.005: 0.05 − 0.015 = 0.035.
        (
            Shape::Capsule {
                a: [0.5, -1.0, 0.0],
                b: [0.5, 1.0, 0.0],
                radius: 0.005,
            },
            0.035,
        ),
        // A tetrahedron whose nearest vertex is (0.48, 0, 0): 0.03 − 0.01 = 0.02.
        (
            Shape::Hull(vec![
                [0.48, 0.0, 0.0],
                [0.6, 0.1, 0.0],
                [0.6, -0.1, 0.1],
                [0.6, -0.1, -0.1],
            ]),
            0.02,
        ),
    ];
    for (i, (shape, want)) in fixtures.into_iter().enumerate() {
        let world = World::new(
            OccupancyGrid::from_cells([0.0; 3], 0.1, &[]).unwrap(),
            vec![shape],
        )
        .unwrap();
        let r = check(&m, &world, 0.45, 0.05);
        assert_near(r.min_distance, want, &format!("fixture {i}"));
        assert_eq!(r.nearest.unwrap().obstacle, Obstacle::Fixture(0));
        // Moved into it by 0.01 past touching: overlapping, −0.01.
        let r = check(&m, &world, 0.45 + want + 0.01, 0.0);
        assert!(r.tripped, "fixture {i} overlapping");
        assert_near(r.min_distance, -0.01, &format!("fixture {i} overlap depth"));
    }
}

/// The base holds a capsule at x = 0.3 (radius 0.01, along z); the slider a capsule of
/// radius 0.02 about its origin (core 0.04 along z).
fn capsule_slider() -> Model {
    let base = vec![Primitive::Capsule {
        a: [0.3, 0.0, -0.1],
        b: [0.3, 0.0, 0.1],
        radius: 0.01,
    }];
    let slide = vec![Primitive::Capsule {
        a: [0.0, 0.0, -0.02],
        b: [0.0, 0.0, 0.02],
        radius: 0.02,
    }];
    slider(base, slide, vec![])
}

#[test]
fn a_payload_is_checked_against_the_world_and_the_links_but_not_its_holder() {
    // The base holds a capsule at x = 0.3 (radius 0.01, along z); the slider's own capsule
    // sits where the payload is (they overlap: the holder is never checked).
    let m = capsule_slider();
    let empty = World::new(
        OccupancyGrid::from_cells([0.0; 3], 0.1, &[]).unwrap(),
        vec![],
    )
    .unwrap();
    let mut ws = m.workspace();
    let mut st = WorldState::new(&m);
    let r = m.check_world(&[0.25], &mut ws, &empty, &mut st, 0.05);
    assert!(!r.tripped, "no payload, no world: nothing to hit");
    let sphere = Shape::Sphere {
        center: [0.0; 3],
        radius: 0.01,
    };
    // In the slider's frame, 0.02 ahead in x.
    let id = st
        .attach(&m, 1, &sphere, [0.02, 0.0, 0.0], [0.0; 3])
        .unwrap();
    // q = 0.25: the payload's centre at 0.27, the base capsule's core at 0.3: 0.03 − 0.02.
    let r = m.check_world(&[0.25], &mut ws, &empty, &mut st, 0.05);
    assert_near(r.min_distance, 0.01, "payload vs base link");
    assert_eq!(
        r.nearest.unwrap(),
        collide::kernel::world::WorldHit {
            body: WorldBody::Payload { id, link: 1 },
            obstacle: Obstacle::Link(0),
        }
    );
    // Against a cell: cell (−1, 0, 0) at pitch 0.1 and origin (0, −0.05, −0.05) is the box
    // x in [−0.1, 0]; the payload at q = 0.09 spans x in [0.10, 0.12]: 0.1 apart, and the
    // slider's own capsule x in [0.07, 0.11]: 0.07. With q = 0.0 the capsule overlaps
    // (−0.02) and the payload (x in [0.01, 0.03]) is 0.01 apart.
    let world = World::new(
        OccupancyGrid::from_cells([0.0, -0.05, -0.05], 0.1, &[[-1, 0, 0]]).unwrap(),
        vec![],
    )
    .unwrap();
    st.detach_all();
    let id = st
        .attach(&m, 1, &sphere, [0.02, 0.0, 0.0], [0.0; 3])
        .unwrap();
    let r = m.check_world(&[0.0], &mut ws, &world, &mut st, 0.05);
    assert!(r.tripped);
    assert_near(r.min_distance, -0.02, "the slider's capsule in the cell");
    assert!(st.detach(id));
    assert!(!st.detach(id), "detached twice");
    // Detach restores the model: the same result as a fresh state.
    let mut fresh = WorldState::new(&m);
    assert_eq!(
        m.check_world(&[0.25], &mut ws, &empty, &mut st, 0.05),
        m.check_world(&[0.25], &mut ws, &empty, &mut fresh, 0.05)
    );
    // A payload on the base, 0.01 beyond the cell's face at x = 0: sphere at x = 0.02.
    let id2 = st
        .attach(&m, 0, &sphere, [0.02, 0.0, 0.0], [0.0; 3])
        .unwrap();
    let r = m.check_world(&[0.5], &mut ws, &world, &mut st, 0.05);
    assert_eq!(
        r.nearest.unwrap().body,
        WorldBody::Payload { id: id2, link: 0 }
    );
    assert_near(r.min_distance, 0.01, "payload on the base vs the cell");
}

#[test]
fn a_payload_may_touch_the_links_listed_besides_its_holder() {
    // The slider holds a sphere 0.02 ahead; at q = 0.25 it is 0.01 from the base's capsule
    // (as above). Held between two fingers it may touch the base: then the base is not
    // checked against it, the world still is.
    let m = capsule_slider();
    let sphere = Shape::Sphere {
        center: [0.0; 3],
        radius: 0.01,
    };
    // Cell (3, 0, 0) at pitch 0.1 and origin (0, 1.0, −0.05): the box x in [0.3, 0.4],
    // y in [1.0, 1.1]: far from everything in y (0.98 from the payload's surface).
    let world = World::new(
        OccupancyGrid::from_cells([0.0, 1.0, -0.05], 0.1, &[[3, 0, 0]]).unwrap(),
        vec![],
    )
    .unwrap();
    let mut ws = m.workspace();
    let mut st = WorldState::new(&m);
    let id = st
        .attach_touching(&m, 1, &sphere, [0.02, 0.0, 0.0], [0.0; 3], &[0])
        .unwrap();
    let r = m.check_world(&[0.25], &mut ws, &world, &mut st, 0.05);
    assert!(!r.tripped && r.nearest.is_none(), "{r:?}");
    // Overlapping the base capsule (payload centre at 0.3 on its core) still does not trip.
    let r = m.check_world(&[0.28], &mut ws, &world, &mut st, 0.05);
    assert!(!r.tripped, "{r:?}");
    // The world is still checked: cell (4, 0, 0) at pitch 0.05 and origin (0, −0.025,
    // −0.025), the box x in [0.2, 0.25] about the x axis. q = 0.15: the payload spans x in
    // [0.16, 0.18], 0.02 before its face at 0.2; the slider's own capsule x in [0.13, 0.17],
    // 0.03; the base's capsule x in [0.29, 0.31], 0.04 beyond.
    let near = World::new(
        OccupancyGrid::from_cells([0.0, -0.025, -0.025], 0.05, &[[4, 0, 0]]).unwrap(),
        vec![],
    )
    .unwrap();
    let r = m.check_world(&[0.15], &mut ws, &near, &mut st, 0.05);
    assert_near(r.min_distance, 0.02, "the payload against the cell");
    assert_eq!(r.nearest.unwrap().body, WorldBody::Payload { id, link: 1 });
    // The same payload without the exemption trips on the base at q = 0.28.
    st.detach_all();
    st.attach(&m, 1, &sphere, [0.02, 0.0, 0.0], [0.0; 3])
        .unwrap();
    let r = m.check_world(&[0.28], &mut ws, &world, &mut st, 0.05);
    assert!(r.tripped);
    assert_near(
        r.min_distance,
        -0.02,
        "the payload's centre on the base's core",
    );
    // An unknown link in the list: refused, nothing attached.
    st.detach_all();
    let err = st
        .attach_touching(&m, 1, &sphere, [0.0; 3], [0.0; 3], &[0, 7])
        .unwrap_err();
    assert!(err.contains("link 7"), "{err}");
    assert_eq!(st.payloads().count(), 0);
}

#[test]
fn bad_payloads_are_refused_and_nothing_is_attached() {
    let m = slider(vec![], vec![], vec![]);
    let mut st = WorldState::new(&m);
    let s = Shape::Sphere {
        center: [0.0; 3],
        radius: 0.01,
    };
    assert!(
        st.attach(&m, 2, &s, [0.0; 3], [0.0; 3])
            .unwrap_err()
            .contains("link 2")
    );
    assert!(
        st.attach(&m, 1, &s, [f64::NAN, 0.0, 0.0], [0.0; 3])
            .is_err()
    );
    let nan_r = Shape::Sphere {
        center: [0.0; 3],
        radius: f64::NAN,
    };
    assert!(st.attach(&m, 1, &nan_r, [0.0; 3], [0.0; 3]).is_err());
    assert!(
        st.attach(&m, 1, &Shape::Hull(vec![]), [0.0; 3], [0.0; 3])
            .is_err()
    );
    let many = Shape::Hull(vec![[0.0; 3]; 321]);
    assert!(st.attach(&m, 1, &many, [0.0; 3], [0.0; 3]).is_err());
    let skew = Shape::Box(BoxShape {
        center: [0.0; 3],
        rotation: [[1.0, 0.5, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        half_extents: [0.1; 3],
    });
    assert!(st.attach(&m, 1, &skew, [0.0; 3], [0.0; 3]).is_err());
    assert_eq!(st.payloads().count(), 0, "nothing half-attached");
}

#[test]
fn bad_worlds_are_refused() {
    let g = |p: f64| OccupancyGrid::from_cells([0.0; 3], p, &[[0, 0, 0]]);
    assert!(g(0.0).unwrap_err().contains("pitch"));
    assert!(g(-0.1).is_err() && g(f64::NAN).is_err() && g(f64::INFINITY).is_err());
    assert!(
        OccupancyGrid::from_points(&[[0.0, f64::INFINITY, 0.0]], 0.1, [0.0; 3])
            .unwrap_err()
            .contains("point 0")
    );
    let spread =
        OccupancyGrid::from_cells([0.0; 3], 0.1, &[[0, 0, 0], [1 << 26, 1 << 26, 1 << 20]]);
    assert!(spread.unwrap_err().contains("limit"));
    let bad_fixture = World::new(
        OccupancyGrid::from_cells([0.0; 3], 0.1, &[]).unwrap(),
        vec![Shape::Capsule {
            a: [0.0; 3],
            b: [f64::NAN, 0.0, 0.0],
            radius: 0.1,
        }],
    );
    assert!(bad_fixture.unwrap_err().contains("fixture 0"));
    let v = [[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    assert!(OccupancyGrid::from_triangles(&v, &[[0, 1, 7]], 0.1, [0.0; 3]).is_err());
    // A triangle spanning more cells than the limit at this pitch.
    let big = [[0.0; 3], [100.0, 0.0, 0.0], [0.0, 100.0, 100.0]];
    assert!(OccupancyGrid::from_triangles(&big, &[[0, 1, 2]], 1e-3, [0.0; 3]).is_err());
}

#[test]
fn a_point_cloud_and_a_mesh_occupy_the_cells_they_touch() {
    // Points: one inside cell (2, 0, 0), one on the face between cells (0,0,0) and (1,0,0).
    let g = OccupancyGrid::from_points(&[[0.25, 0.05, 0.05], [0.1, 0.05, 0.05]], 0.1, [0.0; 3])
        .unwrap();
    assert_eq!(g.cells(), vec![[0, 0, 0], [1, 0, 0], [2, 0, 0]]);
    // A square in the plane z = 0.05 over x, y in [0, 0.2]: the 4 cells of layer k = 0.
    let v = [
        [0.0, 0.0, 0.05],
        [0.2, 0.0, 0.05],
        [0.2, 0.2, 0.05],
        [0.0, 0.2, 0.05],
    ];
    let g = OccupancyGrid::from_triangles(&v, &[[0, 1, 2], [0, 2, 3]], 0.1, [0.0; 3]).unwrap();
    let mut cells = g.cells();
    cells.sort_unstable();
    // The square's edges lie on cell faces (x, y = 0 and 0.2): the neighbours beyond
    // them touch it too (closed boxes).
    assert!(cells.contains(&[0, 0, 0]) && cells.contains(&[1, 1, 0]));
    assert!(cells.iter().all(|c| c[2] == 0), "{cells:?}");
    assert!(cells.contains(&[-1, 0, 0]) && cells.contains(&[2, 1, 0]));
    assert_eq!(cells.len(), 16, "{cells:?}");
}
