//! Flat, collinear, tiny and single-point meshes: fitted or refused with a
//! reason, never NaN primitives; through the library (`fit_link`,
//! `fit_tight`) and through `collide lower` on a one-link URDF.

mod common;

use collide::fit::{FitOptions, Primitive, fit_link, fit_tight, prove};
use collide::geom::mesh::TriMesh;
use collide::io::mesh::{MeshLimits, load_mesh};
use collide::manifest::load_manifest;
use std::path::PathBuf;

fn degenerate(name: &str) -> PathBuf {
    common::repo().join("tests/meshes/degenerate").join(name)
}

/// Every number a primitive carries is finite (checked on its printed form,
/// which shows every field).
fn assert_finite(prims: &[Primitive], what: &str) {
    let shown = format!("{prims:?}");
    assert!(
        !shown.contains("NaN") && !shown.contains("inf"),
        "{what}: {shown}"
    );
}

fn fit_everything(mesh: &TriMesh, what: &str) {
    for headroom in [0.001, 0.0] {
        let opts = FitOptions {
            headroom,
            ..FitOptions::default()
        };
        let f = fit_link(mesh, &opts).unwrap_or_else(|e| panic!("{what}: {e:?}"));
        assert_finite(&f.primitives, what);
        for c in &f.candidates {
            assert_finite(&c.primitives, what);
            prove(mesh, &c.primitives, c.cuts.as_ref())
                .unwrap_or_else(|e| panic!("{what} {}: {e:?}", c.kind));
            assert!(c.metrics.mean_protrusion_m.is_finite(), "{what}");
            assert!(c.metrics.vol_ratio.is_none_or(f64::is_finite), "{what}");
        }
        for slabs in [1, 2, 3] {
            let t = fit_tight(mesh, slabs, &opts).unwrap_or_else(|e| panic!("{what}: {e:?}"));
            assert_finite(&t.primitives, what);
            prove(mesh, &t.primitives, t.cuts.as_ref())
                .unwrap_or_else(|e| panic!("{what} tight {slabs}: {e:?}"));
        }
    }
}

#[test]
fn flat_collinear_and_tiny_meshes_are_fitted_by_the_library() {
    for (file, scale) in [
        ("flat.stl", 1.0),
        ("collinear.stl", 1.0),
        ("flat.stl", 1e-7),
    ] {
        let mesh = load_mesh(&degenerate(file), [scale; 3], &MeshLimits::default()).unwrap();
        fit_everything(&mesh, &format!("{file} at scale {scale}"));
    }
}

#[test]
fn a_single_point_is_fitted_by_the_library_and_refused_by_the_loaders() {
    let point = TriMesh {
        vertices: vec![[0.1, 0.2, 0.3]],
        triangles: vec![[0, 0, 0]],
    };
    fit_everything(&point, "single point");
    for file in ["mesh_point.stl", "mesh_point.obj"] {
        let path = common::repo().join("tests/bad").join(file);
        let e = load_mesh(&path, [1.0; 3], &MeshLimits::default()).unwrap_err();
        assert!(
            e.message.contains(file) && e.message.contains("are single points"),
            "{}",
            e.message
        );
    }
}

#[test]
fn collide_lower_fits_them_into_a_manifest_the_strict_loader_accepts() {
    let dir = tempfile::tempdir().unwrap();
    for urdf in ["flat.urdf", "collinear.urdf", "tiny.urdf"] {
        for extra in [&[][..], &["--tight-link", "all=2"], &["--headroom", "0"]] {
            let out_path = dir.path().join("manifest.yaml");
            let _ = std::fs::remove_file(&out_path);
            let out = common::collide()
                .arg("lower")
                .arg(degenerate(urdf))
                .args(extra)
                .arg("--write")
                .arg("--out")
                .arg(&out_path)
                .output()
                .unwrap();
            let what = format!("{urdf} {extra:?}");
            assert!(
                out.status.success(),
                "{what}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let text = std::fs::read_to_string(&out_path).unwrap();
            assert!(
                !text.contains("nan") && !text.contains("inf"),
                "{what}: {text}"
            );
            // The strict loader refuses any non-finite or non-positive size.
            let m = load_manifest(&out_path).unwrap_or_else(|e| panic!("{what}: {}", e.message));
            assert_eq!(m.links.len(), 1, "{what}");
        }
    }
}

#[test]
fn collide_lower_refuses_a_single_point_mesh_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("manifest.yaml");
    let out = common::collide()
        .arg("lower")
        .arg(common::repo().join("tests/bad/mesh_point_stl.urdf"))
        .arg("--write")
        .arg("--out")
        .arg(&out_path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with("error: ") && stderr.contains("mesh_point.stl: mesh is empty"),
        "{stderr}"
    );
    assert!(!out_path.exists());
}
