//! The world check through the C ABI: the same verdicts and values as `collide::kernel`
//! called directly on 300 seeded poses of the Panda against a cloud-built world with
//! fixtures, the same through the batch on 1 and 3 threads, payloads attached and
//! detached through a session, a world from a mesh file, and every bad input refused with
//! a status and a message, nothing built.

use collide::kernel::world::{OccupancyGrid, Shape, World, WorldState};
use collide::manifest::kernel::load_kernel;
use collide::truth::poses::uniform_q;
use collide_kernel::world::*;
use collide_kernel::*;
mod common;
use common::{last_error, load, manifest};
use std::ffi::CString;
use std::ptr;

/// Points on a table top (z = 0.3) and a post beside the Panda.
fn scene_points() -> Vec<[f64; 3]> {
    let mut p = vec![];
    for i in 0..60 {
        for j in 0..40 {
            p.push([0.2 + 0.01 * f64::from(i), -0.2 + 0.01 * f64::from(j), 0.3]);
        }
    }
    for k in 0..80 {
        p.push([-0.35, 0.3, 0.01 * f64::from(k)]);
    }
    p
}

fn sphere_shape(r: f64) -> CollideShape {
    CollideShape {
        kind: CollideShapeKind::Sphere,
        center: [0.0; 3],
        rotation: [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        half_extents: [0.0; 3],
        a: [0.0; 3],
        b: [0.0; 3],
        radius: r,
        points: ptr::null(),
        n_points: 0,
    }
}

#[test]
fn the_abi_gives_the_kernels_world_verdicts() {
    let l = load(&manifest("franka_panda"));
    let pts = scene_points();
    let flat: Vec<f64> = pts.iter().flatten().copied().collect();
    let mut w0 = ptr::null();
    let st =
        unsafe { collide_world_from_points(flat.as_ptr(), pts.len(), 0.025, ptr::null(), &mut w0) };
    assert_eq!(st, CollideStatus::Ok, "{}", last_error());
    let mut post = sphere_shape(0.1);
    post.center = [0.0, -0.5, 0.6];
    let mut w = ptr::null();
    let st = unsafe { collide_world_add_fixture(w0, &post, &mut w) };
    assert_eq!(st, CollideStatus::Ok, "{}", last_error());
    unsafe { collide_world_free(w0) };
    assert_eq!(unsafe { collide_world_fixture_count(w) }, 1);
    let cells = unsafe { collide_world_cell_count(w) };
    assert!(cells > 500, "{cells}");

    // The kernel directly.
    let man = collide::manifest::load_manifest(&manifest("franka_panda")).unwrap();
    let k = load_kernel(&man).unwrap();
    let grid = OccupancyGrid::from_points(&pts, 0.025, [0.0; 3]).unwrap();
    let world = World::new(
        grid,
        vec![Shape::Sphere {
            center: [0.0, -0.5, 0.6],
            radius: 0.1,
        }],
    )
    .unwrap();
    let mut ws = k.model.workspace();
    let mut wst = WorldState::new(&k.model);
    let n = 300;
    let dof = k.model.dof();
    let mut all = vec![];
    let (mut tripped, mut direct_hits) = (0, 0);
    for i in 0..n {
        let mut q = vec![0.0; dof];
        uniform_q(&k.model, 7, i, &mut q);
        let d = k.model.check_world(&q, &mut ws, &world, &mut wst, 0.02);
        let mut r = CollideWorldResult::default();
        let st = unsafe { collide_check_world(l.session, w, q.as_ptr(), dof, 0.02, &mut r) };
        assert_eq!(st, CollideStatus::Ok, "{}", last_error());
        assert_eq!(r.in_collision, d.tripped);
        assert_eq!(r.min_distance.to_bits(), d.min_distance.to_bits());
        tripped += d.tripped as usize;
        direct_hits += d.nearest.is_some() as usize;
        assert_eq!(r.link >= 0, d.nearest.is_some());
        let mut v = CollideWorldResult::default();
        let st =
            unsafe { collide_check_world_verdict(l.session, w, q.as_ptr(), dof, 0.02, &mut v) };
        assert_eq!(st, CollideStatus::Ok);
        assert_eq!(v.in_collision, d.tripped);
        all.extend_from_slice(&q);
    }
    assert!(
        tripped > 10 && tripped < n as usize - 10,
        "{tripped} of {n} trip"
    );
    assert!(direct_hits > tripped);
    // The batch, on 1 and 3 threads: the session's answers, bit for bit.
    for threads in [1, 3] {
        let mut out = vec![CollideWorldResult::default(); n as usize];
        let st = unsafe {
            collide_check_world_batch(
                l.model,
                w,
                all.as_ptr(),
                n as usize,
                dof,
                0.02,
                out.as_mut_ptr(),
                threads,
            )
        };
        assert_eq!(st, CollideStatus::Ok, "{}", last_error());
        for (i, r) in out.iter().enumerate() {
            let mut one = CollideWorldResult::default();
            unsafe {
                collide_check_world(l.session, w, all[i * dof..].as_ptr(), dof, 0.02, &mut one)
            };
            // Debug text: the NaN witness points compare equal.
            assert_eq!(
                format!("{r:?}"),
                format!("{one:?}"),
                "row {i}, {threads} threads"
            );
        }
    }
    // Witness points on request: the kernel's `world_witness` of the nearest hit, bit for
    // bit, when the least value is in the exact band; NaN otherwise and when not asked.
    assert_eq!(
        unsafe { collide_session_set_witness(l.session, 1) },
        CollideStatus::Ok
    );
    let mut with_points = 0;
    for i in 0..n as usize {
        let q = &all[i * dof..(i + 1) * dof];
        let d = k.model.check_world(q, &mut ws, &world, &mut wst, 0.02);
        let mut r = CollideWorldResult::default();
        unsafe { collide_check_world(l.session, w, q.as_ptr(), dof, 0.02, &mut r) };
        let in_band = d.min_distance <= 0.02 + k.model.refine_band();
        match d.nearest.filter(|_| in_band) {
            Some(hit) => {
                let kw = k.model.world_witness(&ws, &world, &wst, hit).unwrap();
                assert_eq!(r.point_a.map(f64::to_bits), kw.point_a.map(f64::to_bits));
                assert_eq!(r.point_b.map(f64::to_bits), kw.point_b.map(f64::to_bits));
                let gap = (0..3)
                    .map(|k| (r.point_a[k] - r.point_b[k]).powi(2))
                    .sum::<f64>()
                    .sqrt();
                assert!((gap - r.min_distance.abs()).abs() < 1e-8, "pose {i}: {r:?}");
                with_points += 1;
            }
            None => assert!(r.point_a[0].is_nan() && r.point_b[0].is_nan()),
        }
        let mut v = CollideWorldResult::default();
        unsafe { collide_check_world_verdict(l.session, w, q.as_ptr(), dof, 0.02, &mut v) };
        assert!(
            v.point_a[0].is_nan(),
            "the verdict-only check gives no points"
        );
    }
    assert!(with_points > 50, "{with_points}");
    assert_eq!(
        unsafe { collide_session_set_witness(l.session, 0) },
        CollideStatus::Ok
    );
    unsafe { collide_world_free(w) };
}

#[test]
fn payloads_attach_and_detach_through_a_session() {
    let l = load(&manifest("franka_panda"));
    // A world with one fixture: a sphere of radius 0.05 where a payload will come near.
    let mut w0 = ptr::null();
    assert_eq!(
        unsafe { collide_world_from_cells(ptr::null(), 0.025, ptr::null(), 0, &mut w0) },
        CollideStatus::Ok
    );
    let dof = unsafe { collide_model_joint_count(l.model) };
    let q = vec![0.0; dof];
    let mut before = CollideWorldResult::default();
    unsafe { collide_check_world(l.session, w0, q.as_ptr(), dof, 0.0, &mut before) };
    assert!(!before.in_collision, "an empty world");
    // A big payload on the last link with geometry overlaps the robot's other links.
    let n_links = unsafe { collide_model_link_count(l.model) };
    let mut id = 0u32;
    let ball = sphere_shape(0.3);
    let st = unsafe {
        collide_session_attach(
            l.session,
            n_links - 1,
            &ball,
            [0.0; 3].as_ptr(),
            [0.0; 3].as_ptr(),
            &mut id,
        )
    };
    assert_eq!(st, CollideStatus::Ok, "{}", last_error());
    let mut with = CollideWorldResult::default();
    unsafe { collide_check_world(l.session, w0, q.as_ptr(), dof, 0.0, &mut with) };
    assert!(with.in_collision);
    assert_eq!(with.payload, i64::from(id));
    assert_eq!(with.obstacle, CollideObstacle::Link);
    assert_ne!(with.index, (n_links - 1) as i64, "never against its holder");
    assert_eq!(
        unsafe { collide_session_detach(l.session, id) },
        CollideStatus::Ok
    );
    let mut after = CollideWorldResult::default();
    unsafe { collide_check_world(l.session, w0, q.as_ptr(), dof, 0.0, &mut after) };
    assert_eq!(after, before, "detach restores");
    // Held so that it may touch the link it hit: that link is no longer checked against
    // it; allowed to touch every link, the ball meets nothing in the empty world.
    let hit = with.index as usize;
    let attach = |touches: &[usize], id: &mut u32| unsafe {
        collide_session_attach_touching(
            l.session,
            n_links - 1,
            &ball,
            [0.0; 3].as_ptr(),
            [0.0; 3].as_ptr(),
            touches.as_ptr(),
            touches.len(),
            id,
        )
    };
    assert_eq!(
        attach(&[hit], &mut id),
        CollideStatus::Ok,
        "{}",
        last_error()
    );
    let mut r = CollideWorldResult::default();
    unsafe { collide_check_world(l.session, w0, q.as_ptr(), dof, 0.0, &mut r) };
    assert!(
        r.obstacle != CollideObstacle::Link || r.index != hit as i64,
        "{r:?}"
    );
    unsafe { collide_session_detach(l.session, id) };
    let all: Vec<usize> = (0..n_links).collect();
    assert_eq!(attach(&all, &mut id), CollideStatus::Ok, "{}", last_error());
    unsafe { collide_check_world(l.session, w0, q.as_ptr(), dof, 0.0, &mut r) };
    assert_eq!(
        r, before,
        "a payload that may touch every link, in an empty world"
    );
    unsafe { collide_session_detach(l.session, id) };
    assert_eq!(attach(&[0, n_links], &mut id), CollideStatus::BadArgument);
    assert!(
        last_error().contains(&format!("link {n_links}")),
        "{}",
        last_error()
    );
    let st = unsafe {
        collide_session_attach_touching(
            l.session,
            n_links - 1,
            &ball,
            [0.0; 3].as_ptr(),
            [0.0; 3].as_ptr(),
            ptr::null(),
            2,
            &mut id,
        )
    };
    assert_eq!(st, CollideStatus::BadArgument);
    unsafe { collide_check_world(l.session, w0, q.as_ptr(), dof, 0.0, &mut r) };
    assert_eq!(r, before, "nothing attached by the refused calls");
    // Bad payloads: an unknown link, a NaN radius; nothing attached.
    let st = unsafe {
        collide_session_attach(
            l.session,
            n_links,
            &ball,
            [0.0; 3].as_ptr(),
            [0.0; 3].as_ptr(),
            &mut id,
        )
    };
    assert_eq!(st, CollideStatus::BadArgument);
    assert!(last_error().contains("link"), "{}", last_error());
    let nan = sphere_shape(f64::NAN);
    let st = unsafe {
        collide_session_attach(
            l.session,
            1,
            &nan,
            [0.0; 3].as_ptr(),
            [0.0; 3].as_ptr(),
            &mut id,
        )
    };
    assert_eq!(st, CollideStatus::BadArgument);
    assert_eq!(
        unsafe { collide_session_detach(l.session, 999) },
        CollideStatus::BadArgument
    );
    unsafe { collide_world_free(w0) };
}

#[test]
fn a_mesh_file_makes_a_world_and_bad_input_is_refused() {
    let cube = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/meshes/cube.obj");
    let path = CString::new(cube).unwrap();
    let mut w = ptr::null();
    let st = unsafe { collide_world_from_mesh(path.as_ptr(), 0.25, ptr::null(), &mut w) };
    assert_eq!(st, CollideStatus::Ok, "{}", last_error());
    assert!(unsafe { collide_world_cell_count(w) } > 0);
    unsafe { collide_world_free(w) };
    let missing = CString::new("/nonexistent/scene.stl").unwrap();
    let st = unsafe { collide_world_from_mesh(missing.as_ptr(), 0.025, ptr::null(), &mut w) };
    assert_eq!(st, CollideStatus::Io);
    assert!(w.is_null());
    for pitch in [0.0, -0.025, f64::NAN, f64::INFINITY] {
        let st = unsafe { collide_world_from_cells(ptr::null(), pitch, ptr::null(), 0, &mut w) };
        assert_eq!(st, CollideStatus::BadArgument, "pitch {pitch}");
        assert!(last_error().contains("pitch"), "{}", last_error());
        assert!(w.is_null());
    }
    let far = [0i32, 0, 0, 1 << 27, 1 << 27, 1 << 20];
    let st = unsafe { collide_world_from_cells(ptr::null(), 0.025, far.as_ptr(), 2, &mut w) };
    assert_eq!(st, CollideStatus::BadArgument);
    assert!(last_error().contains("limit"), "{}", last_error());
    let pts = [0.0, f64::NAN, 0.0];
    let st = unsafe { collide_world_from_points(pts.as_ptr(), 1, 0.025, ptr::null(), &mut w) };
    assert_eq!(st, CollideStatus::BadArgument);
    assert!(last_error().contains("point 0"), "{}", last_error());
    let st = unsafe { collide_world_from_cells(ptr::null(), 0.025, ptr::null(), 3, &mut w) };
    assert_eq!(st, CollideStatus::BadArgument, "null cells");
    // A NaN q and a bad margin are refused before any check.
    let l = load(&manifest("franka_panda"));
    let mut w = ptr::null();
    unsafe { collide_world_from_cells(ptr::null(), 0.025, ptr::null(), 0, &mut w) };
    let dof = unsafe { collide_model_joint_count(l.model) };
    let mut q = vec![0.0; dof];
    q[2] = f64::NAN;
    let mut r = CollideWorldResult::default();
    let st = unsafe { collide_check_world(l.session, w, q.as_ptr(), dof, 0.0, &mut r) };
    assert_eq!(st, CollideStatus::BadArgument);
    assert!(last_error().contains("q[2]"), "{}", last_error());
    q[2] = 0.0;
    let st = unsafe { collide_check_world(l.session, w, q.as_ptr(), dof, -1.0, &mut r) };
    assert_eq!(st, CollideStatus::BadArgument);
    let st = unsafe { collide_check_world(l.session, ptr::null(), q.as_ptr(), dof, 0.0, &mut r) };
    assert_eq!(st, CollideStatus::BadArgument);
    let st = unsafe { collide_check_world(l.session, w, q.as_ptr(), dof - 1, 0.0, &mut r) };
    assert_eq!(st, CollideStatus::BadArgument);
    unsafe { collide_world_free(w) };
}

/// Seeded random walks (joint steps up to 0.02 rad, the limits respected) of the Panda and
/// the G1 in the table scene: the coherent world check answers what the full check does
/// at every step (never free where the full check trips), and skips links.
#[test]
fn the_coherent_world_check_never_answers_free_where_the_full_check_trips() {
    for robot in ["franka_panda", "g1_29dof"] {
        let model = CollideModel::open(&manifest(robot)).unwrap();
        let pts = scene_points();
        let world = CollideWorld::from_points(&pts, 0.025, [0.0; 3])
            .unwrap()
            .with_fixture(Shape::Sphere {
                center: [0.3, -0.3, 0.5],
                radius: 0.1,
            })
            .unwrap();
        let mut full = CollideSession::new(model.clone());
        let mut coh = CollideSession::new(model.clone());
        let dof = model.dof();
        let lim: Vec<(f64, f64)> = (0..dof).map(|i| model.joint_limits(i)).collect();
        let mut rng = 0x5eed_0033_u64;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng >> 11) as f64 / (1u64 << 53) as f64
        };
        let (mut trips, mut skipped, mut steps) = (0, 0u64, 0);
        for walk in 0..6 {
            let mut q: Vec<f64> = lim
                .iter()
                .map(|&(lo, hi)| lo + (hi - lo) * next())
                .collect();
            for step in 0..300 {
                for (i, v) in q.iter_mut().enumerate() {
                    *v = (*v + 0.02 * (2.0 * next() - 1.0)).clamp(lim[i].0, lim[i].1);
                }
                let margin = 0.01;
                let f = full.check_world(&world, &q, margin, false).unwrap();
                let c = coh.check_world_coherent(&world, &q, margin).unwrap();
                assert_eq!(
                    c.in_collision, f.in_collision,
                    "{robot} walk {walk} step {step}: coherent {c:?} full {f:?}"
                );
                if f.in_collision {
                    // The least value is then exact in both (the skipped links are proven
                    // above the margin): the same up to GJK's tolerance.
                    assert!(
                        (c.min_distance - f.min_distance).abs() < 1e-8,
                        "{robot} walk {walk} step {step}: {} vs {}",
                        c.min_distance,
                        f.min_distance
                    );
                }
                trips += f.in_collision as usize;
                skipped += u64::from(coh.world_coherent_stats().0);
                steps += 1;
            }
        }
        assert!(
            trips > 0 && trips < steps,
            "{robot}: {trips} of {steps} steps trip"
        );
        assert!(
            skipped > steps as u64,
            "{robot}: {skipped} links skipped in {steps} steps"
        );
        eprintln!("{robot}: {trips} of {steps} steps trip, {skipped} link checks skipped");
    }
}
