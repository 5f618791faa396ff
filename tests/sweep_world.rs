//! `collide sweep --world`: known answers on the hand-made two cubes before a wall, the same
//! JSON whatever the thread count, and bad input (a missing scene, a bad pitch, a scene past
//! the cell limit) refused with one clear line naming the file, exit code 2.

mod common;

use collide::io::robot::{LoadOptions, ReadOptions};
use collide::kernel::vec3::rot_from_rpy;
use collide::manifest::Primitive;
use collide::sweep::world::load_scene;
use collide::sweep::{RayOptions, Set, prepare};
use collide::truth::poses::uniform_q;
use collide::truth::reach::Rays;
use std::path::{Path, PathBuf};

const SEED: u64 = 33;

/// An axis-aligned box from `lo` to `hi` as OBJ text (the library's box mesh, moved).
fn box_obj(lo: [f64; 3], hi: [f64; 3]) -> String {
    let half = [0, 1, 2].map(|a| 0.5 * (hi[a] - lo[a]));
    let m = collide::geom::primitive_mesh::box_mesh(half);
    let mut s = String::new();
    for v in &m.vertices {
        // Each corner exactly at `lo` or `hi` (no rounding of centre ± half).
        let c = [0, 1, 2].map(|a| if v[a] < 0.0 { lo[a] } else { hi[a] });
        s += &format!("v {} {} {}\n", c[0], c[1], c[2]);
    }
    for t in &m.triangles {
        s += &format!("f {} {} {}\n", t[0] + 1, t[1] + 1, t[2] + 1);
    }
    s
}

/// tests/robots/two_boxes lowered, and beside it a wall 0.02 m thick whose near face is the
/// plane x = 0.5 (a cell boundary at pitch 0.05, so the cells x in [0.45, 0.5] are occupied).
fn two_boxes_and_wall() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let (dir, config) = common::ScratchRobot::folder("two_boxes")
        .lowered(&["--no-refine"])
        .build();
    let wall = config.with_file_name("wall.obj");
    std::fs::write(&wall, box_obj([0.5, -0.5, -0.5], [0.52, 0.5, 0.5])).unwrap();
    (dir, config.with_file_name("manifest.yaml"), wall)
}

/// How far the slider's written primitive reaches along +x from its link origin (a tight
/// box is its hull).
fn reach_x(p: &Primitive) -> f64 {
    match p {
        Primitive::Capsule(c) => c.a[0].max(c.b[0]) + c.radius,
        Primitive::Box(b) => match &b.hull {
            Some(h) => h.iter().map(|v| v[0]).fold(f64::NEG_INFINITY, f64::max),
            None => {
                let r = rot_from_rpy(b.rpy);
                b.center[0]
                    + (0..3)
                        .map(|k| r[0][k].abs() * b.half_extents[k])
                        .sum::<f64>()
            }
        },
    }
}

#[test]
fn two_boxes_before_a_wall_have_the_known_answers() {
    let (_dir, path, wall) = two_boxes_and_wall();
    let (poses, rays) = (
        600,
        RayOptions {
            rays: 24,
            steps: 8,
            seed: 5,
        },
    );
    let read = ReadOptions::new(LoadOptions::default());
    let prep = prepare(&path, &[Set::SingleCapsule], &read).unwrap();
    let scene = load_scene(&wall, 0.05, &read.mesh_limits).unwrap();
    let r = prep.run_world(&scene, poses, SEED, rays);
    assert_eq!((r.scene_triangles, r.pitch), (12, 0.05));
    let m = &prep.manifest;
    let k = prep.fit_kernel();
    // The slider cube spans x in [q - 0.1, q + 0.1]: its mesh reaches the occupied cells
    // (x >= 0.45) iff q >= 0.35 and the wall itself (x >= 0.5) iff q >= 0.4.
    let mut q = vec![0.0];
    let qs: Vec<f64> = (0..poses)
        .map(|i| {
            uniform_q(&k.model, SEED, i as u64, &mut q);
            q[0]
        })
        .collect();
    let count = |f: &dyn Fn(f64) -> bool| qs.iter().filter(|&&q| f(q)).count();
    let on_cells = count(&|q| q >= 0.35);
    assert_eq!(r.cell_contacts, on_cells);
    assert_eq!(r.surface_contacts, count(&|q| q >= 0.4));
    assert_eq!(r.grid_misses, 0);
    assert!(on_cells > 150 && r.surface_contacts > 50);
    assert_eq!(r.sets.len(), 2);
    for (s, set) in r.sets.iter().zip(&prep.sets) {
        assert_eq!(s.set, set.set);
        let slider = set
            .manifest
            .links
            .iter()
            .find(|l| l.name == "slider")
            .unwrap();
        let rx = reach_x(&slider.primitives[0]);
        // The box hugs the cube; the capsule around it stands off its faces.
        let most = if s.set == Set::Fit { 0.11 } else { 0.2 };
        assert!(rx >= 0.1 && rx < most, "{}: {rx}", s.set.as_str());
        // The written box touches the cells iff q + rx >= 0.45: the kernel exactly there.
        let trips = count(&|q| q + rx >= 0.45);
        assert_eq!(s.refused, trips);
        assert_eq!(s.exact_contacts, trips);
        assert_eq!((s.missed, s.missed_exact, s.beyond_exact), (0, 0, 0));
        assert_eq!(s.refused_apart, trips - on_cells);
        assert_eq!(s.geometry_part, trips - on_cells);
        assert_eq!(s.grid_part, count(&|q| (0.35..0.4).contains(&q)));
        assert_eq!(
            s.refused_beyond_scene,
            count(&|q| q + rx >= 0.45 && q < 0.4)
        );
        assert_eq!(s.outside_primitives, 0);
        // The rays: free until the cube reaches the cells, refused where the box does.
        let rays_def = Rays {
            rays: rays.rays,
            steps: rays.steps,
            seed: rays.seed,
            rest_q: k.q_from(&m.rest_pose.q),
        };
        let (mut free, mut refused) = (0, 0);
        for ray in 0..rays.rays {
            for step in 0..=rays.steps {
                rays_def.pose(&k.model, ray, step, &mut q);
                if q[0] >= 0.35 {
                    break;
                }
                free += 1;
                refused += (q[0] + rx >= 0.45) as usize;
            }
        }
        assert_eq!(
            (s.rays.free, s.rays.refused, s.rays.missed),
            (free, refused, 0)
        );
    }
    assert!(r.missed.is_empty());
}

/// `collide sweep MANIFEST ARGS`: exit code and the first stderr line.
fn refused(manifest: &Path, args: &[&str]) -> (Option<i32>, String) {
    let out = common::collide()
        .arg("sweep")
        .arg(manifest)
        .args(["--poses", "5", "--rays", "2", "--steps", "2"])
        .args(args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    let first = err.lines().next().unwrap_or("").to_string();
    assert_eq!(
        err.lines().filter(|l| l.starts_with("error")).count(),
        1,
        "{err}"
    );
    (out.status.code(), first)
}

#[test]
fn bad_scenes_and_pitches_are_refused_naming_the_file() {
    let (dir, path, wall) = two_boxes_and_wall();
    let w = wall.to_str().unwrap();
    let missing = dir.path().join("no_such_scene.obj");
    let (code, line) = refused(&path, &["--world", missing.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{line}");
    assert!(
        line.starts_with("error: ") && line.contains("no_such_scene.obj"),
        "{line}"
    );
    for pitch in ["0", "-0.05", "nan", "inf"] {
        let (code, line) = refused(&path, &["--world", w, "--pitch", pitch]);
        assert_eq!(code, Some(2), "{pitch}: {line}");
        assert!(line.contains("--pitch"), "{line}");
    }
    // The 1 m face at 0.1 mm: 10^8 cells, past the grid's limit of 2^24.
    let (code, line) = refused(&path, &["--world", w, "--pitch", "0.0001"]);
    assert_eq!(code, Some(2), "{line}");
    assert!(
        line.contains("wall.obj") && line.contains("limit"),
        "{line}"
    );
    let empty = dir.path().join("empty.obj");
    std::fs::write(&empty, "# nothing\n").unwrap();
    let (code, line) = refused(&path, &["--world", empty.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{line}");
    assert!(line.contains("empty.obj"), "{line}");
    let (code, line) = refused(&path, &["--pitch", "0.05"]);
    assert_eq!(code, Some(2), "{line}");
    assert!(line.contains("--world"), "{line}");
}

#[test]
fn the_json_is_the_same_whatever_the_thread_count() {
    let (_dir, path, wall) = two_boxes_and_wall();
    let run = |threads: &str| {
        let out = common::collide()
            .env("RAYON_NUM_THREADS", threads)
            .arg("sweep")
            .arg(&path)
            .args(["--world", wall.to_str().unwrap(), "--pitch", "0.05"])
            .args(["--poses", "300", "--rays", "10", "--steps", "6", "--json"])
            .args(["--compare", "all-tight"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        // The timings are the only figures that depend on the run.
        v.as_object_mut().unwrap().remove("elapsed_s");
        for s in v["sets"].as_array_mut().unwrap() {
            s.as_object_mut().unwrap().remove("timing");
        }
        v
    };
    let one = run("1");
    assert_eq!(one["sets"].as_array().unwrap().len(), 2);
    assert!(one["cell_contacts"].as_u64().unwrap() > 50);
    assert_eq!(one, run("2"));
}
