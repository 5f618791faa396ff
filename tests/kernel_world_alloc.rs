//! The world check's real-time contract: after the world and the state are built (and
//! payloads attached), `check_world` and its verdict-only form allocate nothing, and give
//! bit-identical results for the same inputs (cold starts), on capsule, box and hull
//! models, with cells, every fixture kind and payloads of every kind.

mod common;

use collide::kernel::world::{OccupancyGrid, Shape, World, WorldHit, WorldResult, WorldState};
use collide::kernel::{BoxShape, Model};
use common::kernel_models::{Rng, mixed_tight_arm, panda, panda_tight, random_q};
#[path = "common/counting_alloc.rs"]
mod counting_alloc;

use counting_alloc::{Counting, counted};

#[global_allocator]
static GLOBAL: Counting = Counting;

/// A cluttered world around the arm: a shell of cells at 25 mm and four fixtures.
fn world() -> World {
    let mut points = vec![];
    let mut rng = Rng(0x00c0_ffee);
    for _ in 0..4000 {
        let p = [
            rng.range(-0.8, 0.8),
            rng.range(-0.8, 0.8),
            rng.range(-0.2, 1.2),
        ];
        let r = (p[0] * p[0] + p[1] * p[1] + (p[2] - 0.4) * (p[2] - 0.4)).sqrt();
        if (0.45..0.6).contains(&r) {
            points.push(p);
        }
    }
    let grid = OccupancyGrid::from_points(&points, 0.025, [0.0; 3]).unwrap();
    World::new(
        grid,
        vec![
            Shape::Box(BoxShape::from_rpy(
                [0.5, 0.0, 0.3],
                [0.1, 0.2, 0.3],
                [0.05, 0.3, 0.02],
            )),
            Shape::Sphere {
                center: [-0.3, 0.2, 0.5],
                radius: 0.08,
            },
            Shape::Capsule {
                a: [0.0, -0.4, 0.0],
                b: [0.0, -0.4, 1.0],
                radius: 0.03,
            },
            Shape::Hull(vec![
                [0.3, 0.3, 0.0],
                [0.4, 0.3, 0.1],
                [0.3, 0.4, 0.2],
                [0.35, 0.35, 0.3],
            ]),
        ],
    )
    .unwrap()
}

fn with_payloads(m: &Model) -> WorldState {
    let mut st = WorldState::new(m);
    let last = m.n_links() - 1;
    st.attach(
        m,
        last,
        &Shape::Sphere {
            center: [0.0; 3],
            radius: 0.04,
        },
        [0.0, 0.0, 0.35],
        [0.0; 3],
    )
    .unwrap();
    st.attach(
        m,
        last,
        &Shape::Hull(vec![
            [0.0; 3],
            [0.05, 0.0, 0.0],
            [0.0, 0.05, 0.0],
            [0.0, 0.0, 0.08],
        ]),
        [0.0, 0.0, 0.45],
        [0.3, 0.0, 0.0],
    )
    .unwrap();
    st.attach(
        m,
        1,
        &Shape::Box(BoxShape::from_rpy([0.0; 3], [0.0; 3], [0.03, 0.02, 0.05])),
        [0.0, 0.3, 0.0],
        [0.0; 3],
    )
    .unwrap();
    st
}

type Bits = (bool, u64, Option<WorldHit>, Option<WorldHit>);

fn bits(r: &WorldResult) -> Bits {
    (
        r.tripped,
        r.min_distance.to_bits(),
        r.nearest,
        r.first_tripping,
    )
}

#[test]
fn the_world_check_allocates_nothing_and_is_deterministic() {
    let w = world();
    assert!(w.grid().len() > 200, "{} cells", w.grid().len());
    for (name, m) in [
        ("panda", panda()),
        ("panda_tight152", panda_tight(152)),
        ("mixed_tight64", mixed_tight_arm(64, 0.0)),
    ] {
        let mut rng = Rng(0x5eed_0003);
        let qs: Vec<Vec<f64>> = (0..600).map(|_| random_q(&m, &mut rng)).collect();
        let mut ws = m.workspace();
        let mut st = with_payloads(&m);
        let mut out = Vec::with_capacity(2 * qs.len());
        let mut tripped = 0;
        let (_, allocs) = counted(|| {
            for q in &qs {
                let r = m.check_world(q, &mut ws, &w, &mut st, 0.02);
                tripped += r.tripped as usize;
                out.push(bits(&r));
                let v = m.check_world_verdict(q, &mut ws, &w, &mut st, 0.02);
                assert_eq!(v.tripped, r.tripped, "{name}");
            }
        });
        assert_eq!(
            allocs, 0,
            "{name}: the world check allocated {allocs} times"
        );
        assert!(
            tripped > 0 && tripped < qs.len(),
            "{name}: {tripped} tripped"
        );
        // Again with a fresh state: the same bits (a cold start per call).
        let mut st2 = with_payloads(&m);
        for (q, want) in qs.iter().zip(&out) {
            let r = m.check_world(q, &mut ws, &w, &mut st2, 0.02);
            assert_eq!(&bits(&r), want, "{name}: not deterministic");
        }
        // Warm across calls (a session) allocates nothing either.
        st.set_warm_start(true);
        let (_, allocs) = counted(|| {
            for q in &qs {
                m.check_world(q, &mut ws, &w, &mut st, 0.02);
            }
        });
        assert_eq!(allocs, 0, "{name}: warm");
    }
}

#[test]
fn the_world_types_are_send_and_sync() {
    fn shared<T: Send + Sync>() {}
    shared::<World>();
    shared::<OccupancyGrid>();
    shared::<WorldState>();
}
