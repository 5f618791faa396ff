//! `collide sweep`: known answers on a hand-made robot, determinism across thread counts,
//! the committed Panda's missed count, and the truth check against an independent oracle.

mod common;

use collide::io::robot::{LoadOptions, ReadOptions};
use collide::kernel::vec3::Iso;
use collide::kernel::vec3::rot_from_rpy;
use collide::manifest::kernel::load_kernel;
use collide::manifest::{self, Primitive};
use collide::report::render;
use collide::sweep::{self, Set, Truth};
use collide::truth::hull::{self as truth, Contact};
use collide::truth::poses::uniform_q;
use collide::truth::{contacts, judge};
use std::path::{Path, PathBuf};

const SEED: u64 = 20260924;

/// tests/robots/two_boxes lowered (without refinement) in a scratch directory: the
/// directory and the manifest.
fn lowered_two_boxes() -> (tempfile::TempDir, PathBuf) {
    let (dir, config) = common::ScratchRobot::folder("two_boxes")
        .lowered(&["--no-refine"])
        .build();
    (dir, config.with_file_name("manifest.yaml"))
}

/// How far a box reaches along +x from the link origin, given as written.
fn reach_x(p: &Primitive) -> f64 {
    let Primitive::Box(b) = p else {
        panic!("the cubes are fitted as boxes: {p:?}")
    };
    let r = rot_from_rpy(b.rpy);
    b.center[0]
        + (0..3)
            .map(|k| r[0][k].abs() * b.half_extents[k])
            .sum::<f64>()
}

fn reach_minus_x(p: &Primitive) -> f64 {
    let Primitive::Box(b) = p else { panic!() };
    let r = rot_from_rpy(b.rpy);
    b.center[0]
        - (0..3)
            .map(|k| r[0][k].abs() * b.half_extents[k])
            .sum::<f64>()
}

#[test]
fn two_boxes_have_the_known_answers() {
    let (_dir, path) = lowered_two_boxes();
    let poses = 1200;
    let report = sweep::sweep(
        &path,
        poses,
        SEED,
        sweep::RayOptions::default(),
        &[Set::SingleCapsule, Set::AllTight],
        &ReadOptions::new(LoadOptions::default()),
        false,
    )
    .unwrap();
    let m = manifest::load_manifest(&path).unwrap();
    let k = load_kernel(&m).unwrap();
    // The slider's joint value is the gap between the cube centres: the truth (two 0.2 m
    // cubes) touches iff q <= 0.2; the fitted boxes trip iff q <= base reach + slider reach.
    let base = &m
        .links
        .iter()
        .find(|l| l.name == "base")
        .unwrap()
        .primitives[0];
    let slider = &m
        .links
        .iter()
        .find(|l| l.name == "slider")
        .unwrap()
        .primitives[0];
    let trip_below = reach_x(base) - reach_minus_x(slider);
    assert!(trip_below > 0.2 && trip_below < 0.21, "{trip_below}");
    let mut q = vec![0.0];
    let (mut contacts, mut false_stops) = (0, 0);
    for i in 0..poses {
        uniform_q(&k.model, SEED, i as u64, &mut q);
        if q[0] <= 0.2 {
            contacts += 1;
        } else if q[0] <= trip_below {
            false_stops += 1;
        }
    }
    assert!(
        contacts > 150 && false_stops > 0,
        "{contacts} {false_stops}"
    );
    assert_eq!(report.checked_pairs, 1);
    // Two convex cubes: the meshes and their hulls touch in the same poses.
    for truth in [Truth::Mesh, Truth::Hull] {
        assert_eq!(report.contacts(truth).poses, contacts);
        assert_eq!(report.contacts(truth).pairs, contacts);
    }
    assert_eq!(report.mesh_not_hull, 0);
    assert_eq!(report.mesh_truth.closed_components, 2);
    let fit = report.set(Set::Fit).unwrap();
    assert_eq!(fit.refused, contacts + false_stops);
    for v in [&fit.mesh, &fit.hull] {
        assert_eq!(v.missed, 0);
        assert_eq!(v.false_stops, false_stops);
        assert_eq!(v.slop_only, false_stops);
    }
    assert!(!fit.rest.clear, "q = 0.15 at rest: the cubes overlap");
    let capsule = report.set(Set::SingleCapsule).unwrap();
    let tight = report.set(Set::AllTight).unwrap();
    assert_eq!((capsule.mesh.missed, tight.mesh.missed), (0, 0));
    assert_eq!((capsule.hull.missed, tight.hull.missed), (0, 0));
    // A capsule around a cube stands far off its faces; box + hull hugs them.
    assert!(
        capsule.mesh.false_stops > 5 * false_stops,
        "{}",
        capsule.mesh.false_stops
    );
    assert!(
        tight.mesh.false_stops <= false_stops + 2,
        "{}",
        tight.mesh.false_stops
    );
    assert!(report.missed.is_empty());
    insta::assert_snapshot!("two_boxes_summary", render::summary(&report));
}

/// The JSON without its timings (the only figures that depend on the run).
fn json_without_timing(out: &std::process::Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "collide sweep failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v.as_object_mut()
        .unwrap()
        .remove("timing")
        .expect("a timing block");
    v
}

fn sweep_json(
    manifest: &Path,
    threads: &str,
    poses: &str,
    compare: &[&str],
) -> std::process::Output {
    let mut cmd = common::collide();
    cmd.args([
        "sweep",
        manifest.to_str().unwrap(),
        "--poses",
        poses,
        "--json",
    ]);
    if !compare.is_empty() {
        cmd.arg("--compare").args(compare);
    }
    cmd.env("RAYON_NUM_THREADS", threads).output().unwrap()
}

/// A committed robot's manifest (`robots/NAME/manifest.yaml`), its robot installed.
fn committed_manifest(name: &str) -> PathBuf {
    common::site();
    common::repo().join(format!("robots/{name}/manifest.yaml"))
}

#[test]
fn the_same_json_on_one_and_two_threads() {
    let panda = committed_manifest("franka_panda");
    let one = json_without_timing(&sweep_json(&panda, "1", "400", &["single-capsule"]));
    let two = json_without_timing(&sweep_json(&panda, "2", "400", &["single-capsule"]));
    assert_eq!(one, two);
    assert_eq!(one["poses"], 400);
    assert_eq!(one["sets"].as_array().unwrap().len(), 2);
    let (_dir, boxes) = lowered_two_boxes();
    let one = json_without_timing(&sweep_json(&boxes, "1", "500", &["all-tight"]));
    let two = json_without_timing(&sweep_json(&boxes, "2", "500", &["all-tight"]));
    assert_eq!(one, two);
}

#[test]
fn the_committed_panda_misses_no_contact() {
    let panda = committed_manifest("franka_panda");
    let out = sweep_json(&panda, "2", "3000", &[]);
    let v = json_without_timing(&out);
    assert_eq!(v["poses"], 3000);
    let fit = &v["sets"][0];
    assert_eq!(fit["set"], "fit");
    assert_eq!(fit["missed"], 0, "{}", String::from_utf8_lossy(&out.stderr));
    assert!(v["missed"].as_array().unwrap().is_empty());
    // The arm does touch itself in some poses, and the kernel stops for every one of them.
    let contacts = v["contacts"].as_u64().unwrap();
    assert!(contacts > 0);
    assert!(fit["refused"].as_u64().unwrap() >= contacts);
}

/// `always` rows are proven on the meshes: on a robot that has them (Talos: the
/// grippers' linkages), the sweep finds every one touching in every pose, and none
/// apart in some.
#[test]
fn always_rows_touch_on_the_meshes_in_every_swept_pose() {
    let talos = committed_manifest("talos_reduced");
    let rows = std::fs::read_to_string(&talos)
        .unwrap()
        .matches("reason: always")
        .count();
    assert!(rows > 0, "Talos has no always row left to check");
    let out = sweep_json(&talos, "2", "300", &[]);
    let v = json_without_timing(&out);
    let exempt = &v["always_exempt"];
    assert_eq!(
        exempt["apart_in_some_poses"].as_array().unwrap().len(),
        0,
        "{exempt}"
    );
    assert_eq!(
        exempt["touching_every_pose"].as_u64().unwrap() as usize,
        rows
    );
}

#[test]
fn the_human_table_names_every_set() {
    let (_dir, boxes) = lowered_two_boxes();
    let out = common::collide()
        .args(["sweep", boxes.to_str().unwrap(), "--poses", "300"])
        .args(["--compare", "single-capsule", "all-tight"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for set in [
        "single-capsule",
        "fit",
        "all-tight",
        "kernel µs free median",
        "all-pose median",
        "slop-only",
    ] {
        assert!(text.contains(set), "{set} missing from\n{text}");
    }
    let bad = common::collide()
        .args(["sweep", boxes.to_str().unwrap(), "--compare", "spheres"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

// --- the truth check against parry ---------------------------------------------------

use parry3d_f64::math::{Pose, Vector};
use parry3d_f64::query;
use parry3d_f64::shape::SupportMap;

struct Cloud(Vec<Vector>);

impl SupportMap for Cloud {
    fn local_support_point(&self, dir: Vector) -> Vector {
        let mut best = self.0[0];
        for p in &self.0[1..] {
            if p.dot(dir) > best.dot(dir) {
                best = *p;
            }
        }
        best
    }
}

fn world_piece(p: &truth::Piece, at: &Iso) -> Cloud {
    Cloud(
        (0..p.hull.x.len())
            .map(|i| {
                let w = at.transform_point([p.hull.x[i], p.hull.y[i], p.hull.z[i]]);
                Vector::new(w[0], w[1], w[2])
            })
            .collect(),
    )
}

/// Parry's GJK distance between two world clouds: a distance between actual points, so
/// never below the true distance (it may stall above it by ~1e-5 m).
fn parry_distance(a: &Cloud, b: &Cloud) -> f64 {
    query::details::distance_support_map_support_map(&Pose::IDENTITY, a, b)
}

/// Every checked pair's truth verdict against parry on G1 (split links) and the Panda.
#[test]
fn truth_contacts_agree_with_parry() {
    common::site();
    for (robot, poses) in [("franka_panda", 40u64), ("g1_29dof", 12)] {
        let path = common::repo().join(format!("robots/{robot}/manifest.yaml"));
        let prepared =
            sweep::prepare(&path, &[], &ReadOptions::new(LoadOptions::default())).unwrap();
        let model = &prepared.fit_kernel().model;
        let mut ws = model.workspace();
        let mut q = vec![0.0; model.dof()];
        let (mut touching, mut apart) = (0, 0);
        for i in 0..poses {
            uniform_q(model, SEED, i, &mut q);
            model.fk(&q, &mut ws);
            let place: Vec<Iso> = (0..model.n_links())
                .map(|l| {
                    let (rot, pos) = ws.link_pose(l);
                    Iso { rot, pos }
                })
                .collect();
            for &(a, b) in model.checked_pairs() {
                let (ta, tb) = (
                    prepared.truth[a].as_ref().unwrap(),
                    prepared.truth[b].as_ref().unwrap(),
                );
                let verdict = truth::contact(ta, &place[a], tb, &place[b], 0.0);
                let mut oracle = f64::INFINITY;
                for x in &ta.pieces {
                    for y in &tb.pieces {
                        let d =
                            parry_distance(&world_piece(x, &place[a]), &world_piece(y, &place[b]));
                        oracle = oracle.min(d);
                    }
                }
                match verdict {
                    Contact::Touching { upper, .. } => {
                        touching += 1;
                        assert!(
                            oracle <= 1e-4,
                            "{robot} pose {i}: touching but parry finds {oracle} (upper {upper})"
                        );
                    }
                    Contact::Apart { lower } => {
                        apart += 1;
                        assert!(lower > 0.0);
                        assert!(
                            oracle >= lower - 1e-9,
                            "{robot} pose {i}: proven {lower} apart, parry {oracle}"
                        );
                    }
                }
            }
        }
        assert!(touching > 0 && apart > 0, "{robot}: {touching} {apart}");
    }
}

/// The positive control: a shrunken box no longer holds its cube, and the sweep must say
/// so loudly (exit 1, every missed pair with its pose), not report a clean run.
#[test]
fn a_shrunken_box_is_caught_as_missed_contacts() {
    let (_dir, path) = lowered_two_boxes();
    let text = std::fs::read_to_string(&path).unwrap();
    let shrunk = text.replacen(
        "half_extents: [0.101, 0.101, 0.101]",
        "half_extents: [0.09, 0.101, 0.101]",
        1,
    );
    assert_ne!(text, shrunk);
    std::fs::write(&path, shrunk).unwrap();
    let out = common::collide()
        .args(["sweep", path.to_str().unwrap(), "--poses", "600"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("outside every primitive"), "{stderr}");
    assert!(
        stderr.contains("MISSED CONTACT (fit set, pose "),
        "{stderr}"
    );
    assert!(stderr.contains("slide="), "the pose is printed: {stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v = json_of_failed(&path);
    let fit = &v["sets"][0];
    assert!(fit["missed"].as_u64().unwrap() > 0, "{fit}");
    assert!(fit["hull"]["missed"].as_u64().unwrap() > 0, "{fit}");
    assert!(stdout.lines().any(|l| l.starts_with("fit ")), "{stdout}");
}

/// `collide sweep --json` of a manifest expected to miss contacts (exit 1).
fn json_of_failed(manifest: &Path) -> serde_json::Value {
    let out = common::collide()
        .args([
            "sweep",
            manifest.to_str().unwrap(),
            "--poses",
            "600",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    serde_json::from_slice(&out.stdout).unwrap()
}

// --- the mesh truth on a real robot ----------------------------------------------------

use collide::truth::contacts::MeshContacts;

fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

/// The UR5 (committed manifest): against the meshes nothing is missed, every mesh contact
/// on a checked pair is also a hull-truth contact on the same pose but for the few the sweep
/// counts (`mesh_not_hull`, each one the kernel trips on), the sweep's figures are exactly
/// `judge`'s, and the contacts are the same on one and two threads.
#[test]
fn ur5_mesh_truth_misses_nothing_and_lies_inside_the_hull_truth_but_for_the_counted_seams() {
    let path = committed_manifest("ur5");
    let prepared = sweep::prepare(&path, &[], &ReadOptions::new(LoadOptions::default())).unwrap();
    let model = &prepared.fit_kernel().model;
    let poses = 600;
    let pairs = prepared.mesh_pairs();
    let one = in_pool(1, || {
        contacts::mesh_contacts(model, &prepared.mesh_truth, &pairs, poses, SEED)
    });
    let two = in_pool(2, || {
        contacts::mesh_contacts(model, &prepared.mesh_truth, &pairs, poses, SEED)
    });
    assert_eq!(one, two);
    let mesh = one;
    assert_eq!(
        (mesh.poses, mesh.seed, mesh.contacts.len()),
        (poses, SEED, poses)
    );
    let (hull, _) = prepared.hull_contacts(poses, SEED, &collide::progress::ProgressBar::hidden());
    let checked: Vec<(u32, u32)> =
        contacts::normalized_pairs(model.checked_pairs(), model.n_links());
    let (mut mesh_pairs, mut hull_pairs, mut outside) = (0, 0, 0);
    let mut ws = model.workspace();
    let mut q = vec![0.0; model.dof()];
    for (i, (m, h)) in mesh.contacts.iter().zip(&hull.contacts).enumerate() {
        assert!(m.windows(2).all(|w| w[0] < w[1]), "pose {i}: sorted");
        for p in m.iter().filter(|p| checked.binary_search(p).is_ok()) {
            mesh_pairs += 1;
            if h.binary_search(p).is_err() {
                // A vertex inside the other link's closed mesh, at a seam of a split link,
                // where no share's hull holds the solid (docs/sweep.md): counted, and the
                // kernel, whose primitives hold the solid, trips on it.
                outside += 1;
                collide::truth::poses::uniform_q(model, SEED, i as u64, &mut q);
                model.check_self_collision(&q, &mut ws, true);
                let k = model
                    .checked_pairs()
                    .iter()
                    .position(|&(a, b)| (a.min(b) as u32, a.max(b) as u32) == *p)
                    .unwrap();
                assert!(
                    ws.pair_distances()[k] <= model.margin(),
                    "pose {i}: meshes of {p:?} touch, the hull truth does not, and the kernel clears them"
                );
            }
        }
        hull_pairs += h.len();
    }
    // Few: the hull truth holds every mesh contact but containment at a seam.
    assert!(outside * 100 <= mesh_pairs, "{outside} of {mesh_pairs}");
    // The UR5's concave links: the hulls touch far more often than the meshes.
    assert!(
        mesh_pairs > 0 && hull_pairs > mesh_pairs,
        "{mesh_pairs} {hull_pairs}"
    );
    let [j_mesh, j_hull]: [judge::Judgement; 2] = judge::judge_all(model, &[&mesh, &hull])
        .unwrap()
        .try_into()
        .unwrap();
    assert_eq!((j_mesh.missed, j_hull.missed), (0, 0));
    assert_eq!(j_mesh.contact_pairs, mesh_pairs);
    assert_eq!(j_mesh.refused, j_hull.refused);
    assert!(j_mesh.slop_only >= j_hull.slop_only);
    assert!(j_mesh.false_stops >= j_hull.false_stops);
    // `judge` alone agrees with `judge_all`, and the sweep reports exactly these figures.
    let alone = judge::judge(model, &mesh).unwrap();
    assert_eq!(
        (
            alone.refused,
            alone.slop_only,
            alone.false_stops,
            alone.missed
        ),
        (
            j_mesh.refused,
            j_mesh.slop_only,
            j_mesh.false_stops,
            j_mesh.missed
        )
    );
    let report = prepared.run(poses, SEED, sweep::RayOptions::default(), false);
    let fit = report.set(Set::Fit).unwrap();
    assert_eq!(
        (
            fit.refused,
            fit.mesh.slop_only,
            fit.mesh.false_stops,
            fit.mesh.missed
        ),
        (j_mesh.refused, j_mesh.slop_only, j_mesh.false_stops, 0)
    );
    assert_eq!(
        (fit.hull.slop_only, fit.hull.false_stops),
        (j_hull.slop_only, j_hull.false_stops)
    );
    assert_eq!(report.mesh_contacts.poses, j_mesh.contact_poses);
    assert_eq!(report.mesh_not_hull, outside);
}

/// `judge` refuses contacts that do not cover the model's checked pairs or its poses.
#[test]
fn judge_refuses_contacts_that_do_not_cover_the_model() {
    let path = committed_manifest("ur5");
    let prepared = sweep::prepare(&path, &[], &ReadOptions::new(LoadOptions::default())).unwrap();
    let model = &prepared.fit_kernel().model;
    let full = contacts::mesh_contacts(model, &prepared.mesh_truth, &prepared.mesh_pairs(), 20, 3);
    assert!(judge::judge(model, &full).is_ok());
    let mut partial: MeshContacts = full.clone();
    partial.pairs.remove(0);
    let err = judge::judge(model, &partial).unwrap_err();
    assert!(err.contains("not computed on"), "{err}");
    let mut other = full.clone();
    other.seed = 4;
    assert!(judge::judge_all(model, &[&full, &other]).is_err());
}

// --- free space on a hand-made arm with known answers ---------------------------------

use collide::truth::reach;

const ARM_RAYS: usize = 40;
const ARM_STEPS: usize = 24;
const ARM_RAY_SEED: u64 = 11;
const ARM_POSES: usize = 500;

/// tests/robots/planar_arm in a scratch directory, its rest pose `rest` (`hinge` in rad;
/// `None`: the config's default, q = 0), lowered by the fit rule (no refinement).
fn lowered_planar_arm(rest: Option<f64>) -> (tempfile::TempDir, PathBuf) {
    let extra = rest
        .map(|q| format!("rest_pose: {{hinge: {q}}}\n"))
        .unwrap_or_default();
    let (dir, config) = common::ScratchRobot::folder("planar_arm")
        .config_extra(&extra)
        .lowered(&["--no-refine"])
        .build();
    (dir, config.with_file_name("manifest.yaml"))
}

/// The angle where the bar's meshes first touch the wall, by hand from the URDF's numbers:
/// the bar's highest point is its corner (0.5, 0.01), at height 0.5 sin q + 0.01 cos q =
/// hypot(0.5, 0.01) sin(q + atan2(0.01, 0.5)), and the wall's underside is at y = 0.26.
fn mesh_contact_angle() -> f64 {
    (0.26 / 0.5f64.hypot(0.01)).asin() - 0.01f64.atan2(0.5)
}

/// A box's eight corners as written (its own frame).
fn corners(p: &Primitive) -> Vec<[f64; 3]> {
    let Primitive::Box(b) = p else {
        panic!("the planar arm's links are fitted as boxes: {p:?}")
    };
    let r = rot_from_rpy(b.rpy);
    (0..8)
        .map(|i| {
            let s = |k: usize| if i & (1 << k) == 0 { -1.0 } else { 1.0 };
            let local = [0, 1, 2].map(|k| s(k) * b.half_extents[k]);
            let mut w = b.center;
            for (wr, rr) in w.iter_mut().zip(&r) {
                *wr += rr[0] * local[0] + rr[1] * local[1] + rr[2] * local[2];
            }
            w
        })
        .collect()
}

/// The angle where the written primitives first trip, by hand from the manifest: the least
/// q in [0, pi/2] where some corner (x, y) of the arm's box, turned by q about z, reaches the
/// underside of the base's box: x sin q + y cos q = rho sin(q + phi) = y_wall.
fn primitive_trip_angle(m: &manifest::Manifest) -> f64 {
    let link = |name: &str| &m.links.iter().find(|l| l.name == name).unwrap().primitives;
    let (wall, bar) = (link("base"), link("arm"));
    assert_eq!((wall.len(), bar.len()), (1, 1));
    let wall = corners(&wall[0]);
    let y_wall = wall.iter().map(|c| c[1]).fold(f64::INFINITY, f64::min) - m.margin_m;
    let x_span = wall
        .iter()
        .map(|c| c[0])
        .fold((f64::INFINITY, f64::NEG_INFINITY), |s, x| {
            (s.0.min(x), s.1.max(x))
        });
    let mut best = f64::INFINITY;
    for c in corners(&bar[0]) {
        let (rho, phi) = (c[0].hypot(c[1]), c[1].atan2(c[0]));
        if rho < y_wall {
            continue;
        }
        let q = (y_wall / rho).asin() - phi;
        if (0.0..std::f64::consts::FRAC_PI_2).contains(&q) && q < best {
            // The corner meets the wall's underside, not beside it.
            let x = c[0] * q.cos() - c[1] * q.sin();
            assert!(x > x_span.0 && x < x_span.1, "{x} outside {x_span:?}");
            best = q;
        }
    }
    assert!(best.is_finite());
    best
}

/// The free-space figures computed by hand for rays of one joint from `rest`, contact at
/// `q >= theta_c` and a trip at `q >= theta_trip`.
#[derive(Debug)]
struct Expected {
    t_truth: Vec<usize>,
    t_trip: Vec<Option<usize>>,
    ray_free: usize,
    ray_refused: usize,
    reach_kept: Option<f64>,
    tripped_rays: usize,
    uniform_free: usize,
    uniform_refused: usize,
}

fn expected(model: &collide::kernel::Model, rest: f64, theta_c: f64, theta_trip: f64) -> Expected {
    // No pose may sit so close to either angle that rounding could decide it.
    let clear_of = |q: f64| {
        assert!(
            (q - theta_c).abs() > 1e-7 && (q - theta_trip).abs() > 1e-7,
            "pose {q} too close to {theta_c} / {theta_trip}: choose another seed"
        );
        q
    };
    let mut g = [0.0];
    let (mut t_truth, mut t_trip) = (Vec::new(), Vec::new());
    for r in 0..ARM_RAYS {
        uniform_q(model, ARM_RAY_SEED, r as u64, &mut g);
        // Pose k of the ray, as truth::reach::Rays::pose writes it.
        let q = |k: usize| clear_of(rest + (g[0] - rest) * (k as f64 / ARM_STEPS as f64));
        let t = (0..=ARM_STEPS)
            .find(|&k| q(k) >= theta_c)
            .unwrap_or(ARM_STEPS + 1);
        t_truth.push(t);
        t_trip.push((0..t.min(ARM_STEPS + 1)).find(|&k| q(k) >= theta_trip));
    }
    let kept: Vec<f64> = t_truth
        .iter()
        .zip(&t_trip)
        .filter(|(t, _)| **t > 0)
        .map(|(&t, k)| k.unwrap_or(t).min(t) as f64 / t as f64)
        .collect();
    let (mut uniform_free, mut uniform_refused) = (0, 0);
    for i in 0..ARM_POSES {
        uniform_q(model, SEED, i as u64, &mut g);
        let q = clear_of(g[0]);
        if q < theta_c {
            uniform_free += 1;
            if q >= theta_trip {
                uniform_refused += 1;
            }
        }
    }
    Expected {
        ray_free: t_truth.iter().sum(),
        ray_refused: t_truth
            .iter()
            .zip(&t_trip)
            .map(|(&t, k)| k.map_or(0, |k| t - k))
            .sum(),
        reach_kept: (!kept.is_empty()).then(|| kept.iter().sum::<f64>() / kept.len() as f64),
        tripped_rays: t_trip.iter().filter(|k| k.is_some()).count(),
        t_truth,
        t_trip,
        uniform_free,
        uniform_refused,
    }
}

fn arm_rays(rest: f64) -> reach::Rays {
    reach::Rays {
        rays: ARM_RAYS,
        steps: ARM_STEPS,
        seed: ARM_RAY_SEED,
        rest_q: vec![rest],
    }
}

/// `truth::reach` on the planar arm, from rest at 0 and at 0.3 rad: every ray's first mesh
/// contact and first trip, the free poses, the refused free poses, the reach kept and the
/// pairs behind the first false trips are the figures computed by hand.
#[test]
fn planar_arm_free_space_has_the_known_answers() {
    for rest in [None, Some(0.3)] {
        let (_dir, path) = lowered_planar_arm(rest);
        let m = manifest::load_manifest(&path).unwrap();
        let prepared =
            sweep::prepare(&path, &[], &ReadOptions::new(LoadOptions::default())).unwrap();
        let model = &prepared.fit_kernel().model;
        let (theta_c, theta_trip) = (mesh_contact_angle(), primitive_trip_angle(&m));
        // The primitives stand 1.1 mm off each mesh (1 mm headroom, 0.1 mm rounding): they
        // trip a few milliradians before the meshes touch.
        assert!(
            theta_trip < theta_c && theta_c - theta_trip < 0.01,
            "{theta_trip} {theta_c}"
        );
        let rest = rest.unwrap_or(0.0);
        let want = expected(model, rest, theta_c, theta_trip);
        assert!(
            want.tripped_rays > 0 && want.t_truth.contains(&(ARM_STEPS + 1)),
            "the seed should give rays that trip early and rays that never touch: {want:?}"
        );
        let contacts = reach::ray_contacts(
            model,
            &prepared.mesh_truth,
            model.checked_pairs(),
            arm_rays(rest),
        );
        assert_eq!(contacts.pairs, vec![(0, 1)]);
        assert!(contacts.rest_contacts.is_empty());
        assert_eq!(contacts.t_truth, want.t_truth, "rest {rest}");
        let free = reach::judge_rays(model, &contacts).unwrap();
        let t_trip: Vec<Option<usize>> = free.per_ray.iter().map(|v| v.t_trip).collect();
        assert_eq!(t_trip, want.t_trip, "rest {rest}");
        assert_eq!(free.free_poses, want.ray_free);
        assert_eq!(free.refused_free, want.ray_refused);
        assert_eq!(free.reach_kept, want.reach_kept);
        assert!(!free.rest_trips);
        assert_eq!(free.first_false_trips, vec![((0, 1), want.tripped_rays)]);
        for (v, (&t, &k)) in free
            .per_ray
            .iter()
            .zip(want.t_truth.iter().zip(&want.t_trip))
        {
            assert_eq!(v.refused, k.map_or(0, |k| t - k));
        }
        // The sweep adds the uniform poses that are free.
        let report = prepared.run(
            ARM_POSES,
            SEED,
            sweep::RayOptions {
                rays: ARM_RAYS,
                steps: ARM_STEPS,
                seed: ARM_RAY_SEED,
            },
            false,
        );
        let f = &report.set(Set::Fit).unwrap().free;
        assert_eq!(
            (f.ray_free, f.ray_refused, f.uniform_free, f.uniform_refused),
            (
                want.ray_free,
                want.ray_refused,
                want.uniform_free,
                want.uniform_refused
            ),
            "rest {rest}"
        );
    }
}

/// The same figures through `collide sweep --json`: the fit set's free block and the
/// headline; and a rest pose in contact leaves no free pose on any ray.
#[test]
fn planar_arm_sweep_json_has_the_known_answers() {
    let (_dir, path) = lowered_planar_arm(None);
    let m = manifest::load_manifest(&path).unwrap();
    let k = load_kernel(&m).unwrap();
    let want = expected(
        &k.model,
        0.0,
        mesh_contact_angle(),
        primitive_trip_angle(&m),
    );
    let run = |manifest: &Path| {
        let out = common::collide()
            .args(["sweep", manifest.to_str().unwrap(), "--json"])
            .args(["--poses", &ARM_POSES.to_string()])
            .args([
                "--rays",
                &ARM_RAYS.to_string(),
                "--steps",
                &ARM_STEPS.to_string(),
            ])
            .args(["--ray-seed", &ARM_RAY_SEED.to_string()])
            .output()
            .unwrap();
        json_without_timing(&out)
    };
    let v = run(&path);
    let free = &v["sets"][0]["free"];
    assert_eq!(v["sets"][0]["set"], "fit");
    let free_poses = want.ray_free + want.uniform_free;
    let refused = want.ray_refused + want.uniform_refused;
    for (key, value) in [
        ("rays", ARM_RAYS),
        ("steps", ARM_STEPS),
        ("ray_seed", ARM_RAY_SEED as usize),
        ("ray_free", want.ray_free),
        ("ray_refused", want.ray_refused),
        ("uniform_free", want.uniform_free),
        ("uniform_refused", want.uniform_refused),
        ("free_poses", free_poses),
        ("refused_free", refused),
    ] {
        assert_eq!(free[key], value, "{key}: {free}");
    }
    let pct = 100.0 * refused as f64 / free_poses as f64;
    assert!((free["refused_free_pct"].as_f64().unwrap() - pct).abs() < 1e-12);
    let kept = want.reach_kept.unwrap();
    assert!((free["reach_kept"].as_f64().unwrap() - kept).abs() < 1e-12);
    assert_eq!(
        free["first_false_trips"],
        serde_json::json!([{"a": "base", "b": "arm", "rays": want.tripped_rays}])
    );
    let per_ray: Vec<serde_json::Value> = want
        .t_truth
        .iter()
        .zip(&want.t_trip)
        .map(|(t, k)| serde_json::json!({"t_truth": t, "t_trip": k}))
        .collect();
    assert_eq!(free["per_ray"], serde_json::Value::Array(per_ray));
    assert_eq!(free["rest_mesh_contacts"], serde_json::json!([]));
    let head = &v["headline"];
    assert_eq!(head["set"], "fit");
    assert_eq!(head["rest_clear"], true);
    for key in [
        "free_poses",
        "refused_free",
        "refused_free_pct",
        "reach_kept",
        "rays",
        "steps",
        "ray_seed",
        "first_false_trips",
        "rest_mesh_contacts",
    ] {
        assert_eq!(head[key], free[key], "{key}");
    }

    // At rest 0.8 rad the bar is in the wall: every ray starts in contact, so no ray has a
    // free pose and the reach kept is undefined; the free poses are the uniform ones.
    let (_dir, touching) = lowered_planar_arm(Some(0.8));
    let v = run(&touching);
    let free = &v["sets"][0]["free"];
    assert_eq!(free["ray_free"], 0);
    assert_eq!(free["ray_refused"], 0);
    assert_eq!(free["uniform_free"], want.uniform_free);
    assert_eq!(free["free_poses"], want.uniform_free);
    assert!(free["reach_kept"].is_null());
    assert_eq!(
        free["rest_mesh_contacts"],
        serde_json::json!([{"a": "base", "b": "arm"}])
    );
    assert!(
        free["per_ray"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["t_truth"] == 0 && r["t_trip"].is_null())
    );
    assert_eq!(v["headline"]["rest_clear"], false);
}

/// The free-space figures (every set's `free` block and the headline) are byte-identical
/// on one and two threads, on the committed Panda and on the planar arm.
#[test]
fn free_space_is_byte_identical_on_one_and_two_threads() {
    let panda = committed_manifest("franka_panda");
    let (_dir, arm) = lowered_planar_arm(None);
    for (manifest, compare) in [
        (&panda, &["single-capsule"][..]),
        (&arm, &["all-tight"][..]),
    ] {
        let free_text = |threads: &str| {
            let v = json_without_timing(&sweep_json(manifest, threads, "300", compare));
            let mut parts = vec![serde_json::to_string(&v["headline"]).unwrap()];
            for s in v["sets"].as_array().unwrap() {
                parts.push(serde_json::to_string(&s["free"]).unwrap());
            }
            assert_eq!(parts.len(), 3, "the headline and two sets");
            parts.join("\n")
        };
        let one = free_text("1");
        assert!(one.contains("\"per_ray\":[{"), "{one}");
        assert_eq!(one, free_text("2"), "{}", manifest.display());
    }
}
