//! The world check against independent oracles, over random poses, hull shapes, pitches and
//! lattice phases: the window never misses a cell the exact distance reaches, every value
//! is a lower bound on the exact signed distance between the written primitive and the
//! cell's box, and inside the reach it is that distance.
//!
//! Each case is a world of **one** occupied cell, so the check's least value is that cell's
//! against the nearest primitive: a cell the window missed would read the cap (the reach)
//! where the oracle reads less. The cells are drawn near each primitive's containing box
//! (a random point on its surface pushed out by up to the reach plus a cell), where a
//! window sized from anything smaller than the box would miss them.
//!
//! Oracles: capsule–cell, a 200-step ternary search of the exact point–box distance along
//! the core (convex along it) minus the radius; box and hull–cell, parry3d-f64's GJK from
//! seven starts on the box's corners or the hull's points (each an upper estimate of the
//! truth: the distance between two points of the solids). parry's GJK may stall above the
//! truth by ~2e-5 m, so exactness inside the reach is asserted to 5e-5 m; the lower bound
//! to 1e-9 m.

mod common;

use collide::kernel::vec3::{V3, mul_mv};
use collide::kernel::world::{OccupancyGrid, World, WorldState};
use collide::kernel::{Model, Primitive};
use common::kernel_models::{Rng, mixed_tight_arm, panda_tight, random_q};
use common::parry_bridge::{Cloud, gjk_multi, pv};
use parry3d_f64::math::Pose;
use parry3d_f64::shape::Cuboid;

/// The exact distance from `p` to the cube of centre `c` and half side `h` (0 inside).
fn point_cube(p: V3, c: V3, h: f64) -> f64 {
    let mut s = 0.0;
    for a in 0..3 {
        let d = ((p[a] - c[a]).abs() - h).max(0.0);
        s += d * d;
    }
    s.sqrt()
}

/// A primitive placed in the world, as its oracle needs it.
enum Placed {
    Capsule(V3, V3, f64),
    Points(Vec<V3>),
}

fn placed(m: &Model, ws: &collide::kernel::Workspace) -> Vec<Placed> {
    let mut out = vec![];
    for (i, l) in m.links().iter().enumerate() {
        let (rot, pos) = ws.link_pose(i);
        let tf = |p: V3| {
            let q = mul_mv(&rot, p);
            [q[0] + pos[0], q[1] + pos[1], q[2] + pos[2]]
        };
        for p in &l.primitives {
            out.push(match p {
                Primitive::Capsule { a, b, radius } => Placed::Capsule(tf(*a), tf(*b), *radius),
                Primitive::Box(b) => {
                    let mut pts = vec![];
                    for k in 0..8 {
                        let s = |j: usize| if k & (1 << j) == 0 { 1.0 } else { -1.0 };
                        let local = [
                            s(0) * b.half_extents[0],
                            s(1) * b.half_extents[1],
                            s(2) * b.half_extents[2],
                        ];
                        let r = mul_mv(&b.rotation, local);
                        pts.push(tf([
                            r[0] + b.center[0],
                            r[1] + b.center[1],
                            r[2] + b.center[2],
                        ]));
                    }
                    Placed::Points(pts)
                }
                Primitive::Tight(t) => Placed::Points(
                    m.hull_vertices()[t.hull_offset..t.hull_offset + t.hull_len]
                        .iter()
                        .map(|p| tf(*p))
                        .collect(),
                ),
            });
        }
    }
    out
}

/// Oracle: an upper estimate of the distance (0 in overlap) from `p` to the cube.
fn oracle(p: &Placed, c: V3, h: f64) -> f64 {
    match p {
        Placed::Capsule(a, b, r) => {
            let at = |t: f64| point_cube([0, 1, 2].map(|k| a[k] + t * (b[k] - a[k])), c, h);
            let (mut lo, mut hi) = (0.0f64, 1.0f64);
            for _ in 0..200 {
                let m1 = lo + (hi - lo) / 3.0;
                let m2 = hi - (hi - lo) / 3.0;
                if at(m1) <= at(m2) {
                    hi = m2;
                } else {
                    lo = m1;
                }
            }
            let d = at(0.5 * (lo + hi)).min(at(0.0)).min(at(1.0));
            (d - r).max(0.0)
        }
        Placed::Points(pts) => {
            let cloud = Cloud(pts.iter().map(|p| pv(*p)).collect());
            gjk_multi(
                &Pose::from_translation(pv(c)),
                &cloud,
                &Cuboid::new(pv([h; 3])),
            )
        }
    }
}

/// The containing box of a placed primitive (for drawing cells near it).
fn aabb(p: &Placed) -> (V3, V3) {
    match p {
        Placed::Capsule(a, b, r) => (
            [0, 1, 2].map(|k| a[k].min(b[k]) - r),
            [0, 1, 2].map(|k| a[k].max(b[k]) + r),
        ),
        Placed::Points(pts) => {
            let mut lo = [f64::INFINITY; 3];
            let mut hi = [f64::NEG_INFINITY; 3];
            for q in pts {
                for k in 0..3 {
                    lo[k] = lo[k].min(q[k]);
                    hi[k] = hi[k].max(q[k]);
                }
            }
            (lo, hi)
        }
    }
}

fn run(m: &Model, poses: usize, seed: u64) -> (usize, usize) {
    let mut rng = Rng(seed);
    let mut ws = m.workspace();
    let mut st = WorldState::new(m);
    let (mut cases, mut in_reach) = (0, 0);
    for _ in 0..poses {
        let q = random_q(m, &mut rng);
        m.fk(&q, &mut ws);
        let prims = placed(m, &ws);
        let pitch = rng.range(0.01, 0.08);
        let origin = [0, 1, 2].map(|_| rng.range(-0.05, 0.05));
        let margin = rng.range(0.0, 0.03);
        let reach = margin + m.refine_band();
        for p in &prims {
            let (lo, hi) = aabb(p);
            for _ in 0..3 {
                // A point on the box's surface (one axis at a face), pushed out.
                let axis = (rng.next_u64() % 3) as usize;
                let mut x = [0, 1, 2].map(|k| rng.range(lo[k], hi[k]));
                let push = rng.range(0.0, reach + pitch);
                x[axis] = if rng.uniform() < 0.5 {
                    lo[axis] - push
                } else {
                    hi[axis] + push
                };
                let cell = [0, 1, 2].map(|k| ((x[k] - origin[k]) / pitch).floor() as i32);
                let h = 0.5 * pitch;
                let c = [0, 1, 2].map(|k| origin[k] + pitch * (f64::from(cell[k]) + 0.5));
                let truth = prims
                    .iter()
                    .map(|p| oracle(p, c, h))
                    .fold(f64::INFINITY, f64::min);
                let world = World::new(
                    OccupancyGrid::from_cells(origin, pitch, &[cell]).unwrap(),
                    vec![],
                )
                .unwrap();
                let r = m.check_placed_world(&ws, &world, &mut st, margin, false);
                cases += 1;
                assert!(
                    r.min_distance <= truth + 1e-9,
                    "q {q:?} cell {cell:?} pitch {pitch}: {} above the oracle {truth}",
                    r.min_distance
                );
                if truth < reach - 5e-5 {
                    in_reach += 1;
                    assert!(
                        truth == 0.0 || r.min_distance >= truth - 5e-5,
                        "q {q:?} cell {cell:?}: {} not exact ({truth})",
                        r.min_distance
                    );
                    assert!(r.nearest.is_some());
                }
                if (truth - margin).abs() > 5e-5 {
                    assert_eq!(r.tripped, truth <= margin, "q {q:?} cell {cell:?}");
                }
                let v = m.check_placed_world(&ws, &world, &mut st, margin, true);
                if (truth - margin).abs() > 5e-5 {
                    assert_eq!(v.tripped, r.tripped, "verdict q {q:?} cell {cell:?}");
                }
            }
        }
    }
    (cases, in_reach)
}

#[test]
fn the_window_never_misses_a_cell_and_every_value_is_a_lower_bound_mixed_arm() {
    for (n, seed) in [(16, 1u64), (64, 2), (200, 3)] {
        let m = mixed_tight_arm(n, 0.0);
        let (cases, in_reach) = run(&m, 120, 0x5eed_0000 + seed);
        // The draw must reach the band often, or the test proves little.
        assert!(
            in_reach * 4 > cases,
            "{in_reach} of {cases} within the reach"
        );
    }
}

#[test]
fn the_window_never_misses_a_cell_panda_hulls() {
    let m = panda_tight(152);
    let (cases, in_reach) = run(&m, 80, 0x5eed_1111);
    assert!(
        in_reach * 4 > cases,
        "{in_reach} of {cases} within the reach"
    );
}
