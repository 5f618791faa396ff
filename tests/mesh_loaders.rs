//! Mesh loaders on the hand-made meshes of tests/meshes/ (written by
//! tests/meshes/make_meshes.py), with known answers.

use collide::error::ErrorKind;
use collide::geom::mesh::TriMesh;
use collide::io::mesh::{MeshFormat, MeshInfo, MeshLimits, load_mesh, load_mesh_with_info};
use std::path::{Path, PathBuf};

fn mesh_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/meshes")
        .join(name)
}

fn load(name: &str, scale: [f64; 3]) -> (TriMesh, MeshInfo) {
    load_mesh_with_info(&mesh_path(name), scale, &MeshLimits::default())
        .unwrap_or_else(|e| panic!("{name}: {}", e.message))
}

fn bounds(m: &TriMesh) -> ([f64; 3], [f64; 3]) {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for v in &m.vertices {
        for k in 0..3 {
            lo[k] = lo[k].min(v[k]);
            hi[k] = hi[k].max(v[k]);
        }
    }
    (lo, hi)
}

/// Volume by the divergence theorem: positive when triangles wind
/// counter-clockwise seen from outside.
fn signed_volume(m: &TriMesh) -> f64 {
    m.triangles
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| m.vertices[i as usize]);
            (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
                + a[2] * (b[0] * c[1] - b[1] * c[0]))
                / 6.0
        })
        .sum()
}

fn assert_close(a: f64, b: f64, what: &str) {
    assert!(
        (a - b).abs() <= 1e-12 * b.abs().max(1.0),
        "{what}: {a} != {b}"
    );
}

fn assert_unit_cube(m: &TriMesh) {
    assert_eq!(m.vertices.len(), 8, "welded vertices");
    assert_eq!(m.triangles.len(), 12);
    assert_eq!(bounds(m), ([0.0; 3], [1.0; 3]));
    assert_close(signed_volume(m), 1.0, "volume");
}

#[test]
fn binary_stl_cube() {
    let (m, info) = load("cube_binary.stl", [1.0; 3]);
    assert_unit_cube(&m);
    assert_eq!(info.format, MeshFormat::StlBinary);
    assert_eq!(info.source_triangles, 12);
}

#[test]
fn ascii_stl_cube() {
    let (m, info) = load("cube_ascii.stl", [1.0; 3]);
    assert_unit_cube(&m);
    assert_eq!(info.format, MeshFormat::StlAscii);
}

#[test]
fn binary_stl_whose_header_starts_with_solid() {
    let bytes = std::fs::read(mesh_path("cube_solid_header.stl")).unwrap();
    assert!(bytes.starts_with(b"solid "));
    let (m, info) = load("cube_solid_header.stl", [1.0; 3]);
    assert_unit_cube(&m);
    assert_eq!(info.format, MeshFormat::StlBinary);
}

#[test]
fn obj_cube_of_quads() {
    let (m, info) = load("cube.obj", [1.0; 3]);
    assert_unit_cube(&m);
    assert_eq!(info.format, MeshFormat::Obj);
    assert_eq!(info.parts, 1);
}

#[test]
fn collada_two_parts_in_millimetres() {
    let (m, info) = load("two_parts_mm.dae", [1.0; 3]);
    assert_eq!(info.format, MeshFormat::Collada);
    assert_eq!(info.parts, 2);
    assert_eq!(info.source_triangles, 24);
    assert_eq!(m.triangles.len(), 24);
    assert_eq!(m.vertices.len(), 16);
    let (lo, hi) = bounds(&m);
    assert_eq!(lo, [0.0; 3]);
    // 10 mm cubes at x = 0 and x = 20 mm; Y_UP ignored (z stays z).
    assert_close(hi[0], 0.03, "x max");
    assert_close(hi[1], 0.01, "y max");
    assert_close(hi[2], 0.01, "z max");
    assert_close(signed_volume(&m), 2e-6, "volume");
}

#[test]
fn per_axis_scale() {
    let (m, _) = load("cube_binary.stl", [2.0, 3.0, 0.5]);
    assert_eq!(bounds(&m), ([0.0; 3], [2.0, 3.0, 0.5]));
    assert_close(signed_volume(&m), 3.0, "volume");
}

#[test]
fn mirroring_scale_flips_winding() {
    for (scale, lo, hi) in [
        ([-1.0, 1.0, 1.0], [-1.0, 0.0, 0.0], [0.0, 1.0, 1.0]),
        ([-1.0, -2.0, 1.0], [-1.0, -2.0, 0.0], [0.0, 0.0, 1.0]),
        ([-1.0, -1.0, -1.0], [-1.0; 3], [0.0; 3]),
    ] {
        for name in ["cube_binary.stl", "cube.obj", "cube_ascii.stl"] {
            let (m, _) = load(name, scale);
            assert_eq!(bounds(&m), (lo, hi), "{name} {scale:?}");
            let expected = (scale[0] * scale[1] * scale[2]).abs();
            assert_close(
                signed_volume(&m),
                expected,
                &format!("{name} {scale:?} stays outward"),
            );
        }
    }
}

#[test]
fn extension_is_case_insensitive() {
    let dir = tempfile::tempdir().unwrap();
    for (src, dst) in [
        ("cube_binary.stl", "CUBE.STL"),
        ("cube.obj", "Cube.Obj"),
        ("two_parts_mm.dae", "PARTS.DAE"),
    ] {
        let p = dir.path().join(dst);
        std::fs::copy(mesh_path(src), &p).unwrap();
        load_mesh(&p, [1.0; 3], &MeshLimits::default()).unwrap();
    }
}

fn write_temp(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn ascii_stl_with_two_solids_and_a_bare_solid_line() {
    let dir = tempfile::tempdir().unwrap();
    let one = std::fs::read_to_string(mesh_path("cube_ascii.stl")).unwrap();
    let shifted = one
        .replace("vertex 0 ", "vertex 2 ")
        .replace("vertex 1 ", "vertex 3 ");
    let text = format!("{}\n{}", one.replacen("solid cube", "solid", 1), shifted);
    let p = write_temp(&dir, "two.stl", &text);
    let (m, info) = load_mesh_with_info(&p, [1.0; 3], &MeshLimits::default()).unwrap();
    assert_eq!(info.parts, 2);
    assert_eq!(m.triangles.len(), 24);
    assert_eq!(m.vertices.len(), 16);
    assert_eq!(bounds(&m), ([0.0; 3], [3.0, 1.0, 1.0]));
}

#[test]
fn zero_area_triangles_are_kept_single_points_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let facet = |a: &str, b: &str, c: &str| {
        format!(
            "facet normal 0 0 0\nouter loop\nvertex {a}\nvertex {b}\nvertex {c}\nendloop\nendfacet\n"
        )
    };
    let text = format!(
        "solid t\n{}{}{}endsolid t\n",
        facet("0 0 0", "1 0 0", "0 1 0"),
        facet("0 0 0", "0 0 0", "1 0 0"),
        facet("5 5 5", "5 5 5", "5 5 5"),
    );
    let p = write_temp(&dir, "degenerate.stl", &text);
    let (m, info) = load_mesh_with_info(&p, [1.0; 3], &MeshLimits::default()).unwrap();
    assert_eq!(m.triangles.len(), 2);
    assert_eq!(info.dropped_point_triangles, 1);
    assert_eq!(info.source_triangles, 3);
}

#[test]
fn negative_zero_welds_with_zero() {
    let dir = tempfile::tempdir().unwrap();
    let text = "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\n\
                facet normal 0 0 1\nouter loop\nvertex -0 -0 -0\nvertex 0 1 0\nvertex 1 0 0\nendloop\nendfacet\nendsolid t\n";
    let p = write_temp(&dir, "negzero.stl", text);
    let m = load_mesh(&p, [1.0; 3], &MeshLimits::default()).unwrap();
    assert_eq!(m.vertices.len(), 3);
}

#[test]
fn collada_nested_nodes_compose_parent_first() {
    // A parent node rotated 90° about z holding a child translated 10 units
    // along x: the child's geometry lands at +y, scaled by the unit.
    let text = std::fs::read_to_string(mesh_path("two_parts_mm.dae")).unwrap();
    let scene_start = text.find("<library_visual_scenes>").unwrap();
    let scene_end =
        text.find("</library_visual_scenes>").unwrap() + "</library_visual_scenes>".len();
    let nested = r##"<library_visual_scenes>
    <visual_scene id="Scene">
      <node id="P"><rotate>0 0 1 90</rotate>
        <node id="C"><translate>10 0 0</translate><instance_geometry url="#partA"/></node>
      </node>
      <node id="Twice"><translate>0 0 100</translate><instance_node url="#C"/></node>
    </visual_scene>
  </library_visual_scenes>"##;
    let text = format!("{}{}{}", &text[..scene_start], nested, &text[scene_end..]);
    let dir = tempfile::tempdir().unwrap();
    let p = write_temp(&dir, "nested.dae", &text);
    let (m, info) = load_mesh_with_info(&p, [1.0; 3], &MeshLimits::default()).unwrap();
    // partA twice (two instances), partB not placed by the scene.
    assert_eq!(info.parts, 2);
    assert_eq!(m.triangles.len(), 24);
    let (lo, hi) = bounds(&m);
    let expect_lo = [-0.01, 0.0, 0.0];
    let expect_hi = [0.02, 0.02, 0.11];
    for k in 0..3 {
        assert!((lo[k] - expect_lo[k]).abs() < 1e-12, "lo {lo:?}");
        assert!((hi[k] - expect_hi[k]).abs() < 1e-12, "hi {hi:?}");
    }
}

fn error_of(path: &Path, limits: &MeshLimits) -> String {
    let e = load_mesh(path, [1.0; 3], limits).expect_err("must fail");
    assert_eq!(e.kind, ErrorKind::Input, "{}", e.message);
    assert!(!e.message.contains('\n'), "one line: {}", e.message);
    assert!(
        e.message.starts_with(&path.display().to_string()),
        "names the file: {}",
        e.message
    );
    e.message
}

#[test]
fn bad_meshes_get_clear_errors() {
    let cases: &[(&str, &str)] = &[
        ("empty.stl", "not an STL file"),
        ("zero_triangles.stl", "no triangles"),
        (
            "truncated.stl",
            "truncated binary STL: its header declares 12 triangles (684 bytes) but the file has 654 bytes",
        ),
        ("truncated_solid_header.stl", "truncated binary STL"),
        ("nan.stl", "triangle 4 has a non-finite coordinate (NaN)"),
        (
            "bad_token.stl",
            ":11:18: bad ASCII STL: `zero` is not a number",
        ),
        (
            "nan_ascii.stl",
            ":5:16: bad ASCII STL: `nan` is not a finite number",
        ),
        (
            "missing_endloop.stl",
            ":2:1: bad ASCII STL in the facet starting here",
        ),
        ("point.stl", "single points"),
        (
            "out_of_range.obj",
            ":5:7: bad OBJ: index 9 in `9` is out of range: the file defines 3 vertices",
        ),
        ("no_faces.obj", "no triangles"),
        ("bad_number.obj", ":2:1: bad OBJ: position parse error"),
        ("no_geometry.dae", "no triangles"),
        (
            "malformed.dae",
            ":4:1: malformed COLLADA XML: expected 'asset' tag, not 'COLLADA'",
        ),
    ];
    for (name, expected) in cases {
        let path = mesh_path(&format!("bad/{name}"));
        let msg = error_of(&path, &MeshLimits::default());
        assert!(
            msg.contains(expected),
            "{name}: `{msg}` should contain `{expected}`"
        );
    }
}

#[test]
fn triangle_limit_names_its_flag() {
    let limits = MeshLimits { max_triangles: 11 };
    for name in [
        "cube_binary.stl",
        "cube_ascii.stl",
        "cube.obj",
        "two_parts_mm.dae",
    ] {
        let msg = error_of(&mesh_path(name), &limits);
        assert!(
            msg.contains("over the limit of 11") && msg.contains("--max-triangles"),
            "{msg}"
        );
    }
    let exact = MeshLimits { max_triangles: 12 };
    load_mesh(&mesh_path("cube_ascii.stl"), [1.0; 3], &exact).unwrap();
    assert_eq!(MeshLimits::default().max_triangles, 5_000_000);
}

#[test]
fn paths_and_arguments_that_are_not_meshes() {
    let dir = tempfile::tempdir().unwrap();
    let as_dir = dir.path().join("looks_like.stl");
    std::fs::create_dir(&as_dir).unwrap();
    assert!(error_of(&as_dir, &MeshLimits::default()).contains("is a directory"));
    assert!(
        error_of(&dir.path().join("missing.obj"), &MeshLimits::default())
            .contains("cannot read mesh")
    );
    let ply = write_temp(&dir, "x.ply", "ply\n");
    assert!(error_of(&ply, &MeshLimits::default()).contains("unsupported mesh format"));
    for scale in [
        [0.0, 1.0, 1.0],
        [f64::NAN, 1.0, 1.0],
        [1.0, f64::INFINITY, 1.0],
    ] {
        let e = load_mesh(&mesh_path("cube.obj"), scale, &MeshLimits::default()).unwrap_err();
        assert!(e.message.contains("invalid mesh scale"), "{}", e.message);
    }
}

#[test]
fn binary_stl_with_trailing_bytes_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = std::fs::read(mesh_path("cube_binary.stl")).unwrap();
    bytes.extend_from_slice(&[0u8; 7]);
    let p = dir.path().join("trailing.stl");
    std::fs::write(&p, bytes).unwrap();
    assert_unit_cube(&load_mesh(&p, [1.0; 3], &MeshLimits::default()).unwrap());
}

/// A mangled mesh either loads or is refused as input (exit code 2) naming the file; true
/// if it was refused.
fn loads_or_names_the_file(p: &Path, what: &str) -> bool {
    let Err(e) = load_mesh(p, [1.0; 3], &MeshLimits::default()) else {
        return false;
    };
    assert_eq!(e.kind, ErrorKind::Input, "{what}: {}", e.message);
    assert_eq!(e.kind.exit_code(), 2, "{what}: {}", e.message);
    assert!(
        e.message.contains(&p.display().to_string()),
        "{what}: the message names no file: {}",
        e.message
    );
    true
}

#[test]
fn garbage_never_panics() {
    // Mangled copies of every good mesh: truncations and byte flips. Each loads or is an
    // input error naming the file.
    let dir = tempfile::tempdir().unwrap();
    let mut refused = 0;
    for name in [
        "cube_binary.stl",
        "cube_ascii.stl",
        "cube.obj",
        "two_parts_mm.dae",
    ] {
        let bytes = std::fs::read(mesh_path(name)).unwrap();
        let ext = name.rsplit('.').next().unwrap();
        for cut in (0..bytes.len()).step_by(7) {
            let p = dir.path().join(format!("cut.{ext}"));
            std::fs::write(&p, &bytes[..cut]).unwrap();
            refused += usize::from(loads_or_names_the_file(&p, &format!("{name} cut at {cut}")));
        }
        for (i, flip) in (0..bytes.len()).step_by(5).enumerate() {
            let mut b = bytes.clone();
            b[flip] = b"0/-9x.<>\" \n"[i % 11];
            let p = dir.path().join(format!("flip.{ext}"));
            std::fs::write(&p, &b).unwrap();
            let what = format!("{name} with byte {flip} flipped");
            refused += usize::from(loads_or_names_the_file(&p, &what));
        }
    }
    // Not vacuous: most truncations are refused.
    assert!(refused > 100, "only {refused} mangled meshes refused");
}

/// two_parts_mm.dae with its `<library_visual_scenes>` replaced.
fn collada_with_scene(scene: &str) -> (tempfile::TempDir, PathBuf) {
    let text = std::fs::read_to_string(mesh_path("two_parts_mm.dae")).unwrap();
    let start = text.find("<library_visual_scenes>").unwrap();
    let end = text.find("</library_visual_scenes>").unwrap() + "</library_visual_scenes>".len();
    let mut text = format!("{}{}{}", &text[..start], scene, &text[end..]);
    if scene.is_empty() {
        let s = text.find("<scene>").unwrap();
        let e = text.find("</scene>").unwrap() + "</scene>".len();
        text.replace_range(s..e, "");
    }
    let dir = tempfile::tempdir().unwrap();
    let p = write_temp(&dir, "scene.dae", &text);
    (dir, p)
}

#[test]
fn collada_without_a_scene_uses_every_geometry_unplaced() {
    let (_dir, p) = collada_with_scene("");
    let (m, info) = load_mesh_with_info(&p, [1.0; 3], &MeshLimits::default()).unwrap();
    assert_eq!(info.parts, 2);
    assert_eq!(m.triangles.len(), 24);
    assert_eq!(
        m.vertices.len(),
        8,
        "both parts at the origin weld together"
    );
    let (lo, hi) = bounds(&m);
    assert_eq!(lo, [0.0; 3]);
    for h in hi {
        assert_close(h, 0.01, "unit applied");
    }
}

#[test]
fn collada_mirroring_node_keeps_triangles_outward() {
    let (_dir, p) = collada_with_scene(
        r##"<library_visual_scenes><visual_scene id="Scene">
      <node id="M"><scale>-1 1 1</scale><instance_geometry url="#partA"/></node>
    </visual_scene></library_visual_scenes>"##,
    );
    let m = load_mesh(&p, [1.0; 3], &MeshLimits::default()).unwrap();
    let (lo, hi) = bounds(&m);
    assert_close(lo[0], -0.01, "mirrored in x");
    assert_eq!(hi[0], 0.0);
    assert_close(signed_volume(&m), 1e-6, "still outward");
    // Mirrored by the node and again by the scale: back to the original winding.
    let m = load_mesh(&p, [-1.0, 1.0, 1.0], &MeshLimits::default()).unwrap();
    assert_close(signed_volume(&m), 1e-6, "still outward");
}

#[test]
fn collada_scene_errors_name_the_line() {
    let (_dir, p) = collada_with_scene(
        r##"<library_visual_scenes><visual_scene id="Scene">
      <node id="A"><rotate>0 0 1</rotate><instance_geometry url="#partA"/></node>
    </visual_scene></library_visual_scenes>"##,
    );
    let msg = error_of(&p, &MeshLimits::default());
    assert!(
        msg.contains(":45:20: COLLADA: <rotate> needs 4 numbers, found 3"),
        "{msg}"
    );
    let (_dir, p) = collada_with_scene(
        r##"<library_visual_scenes><visual_scene id="Scene">
      <node id="A"><instance_geometry url="#nothing"/></node>
    </visual_scene></library_visual_scenes>"##,
    );
    let msg = error_of(&p, &MeshLimits::default());
    assert!(msg.contains("names unknown geometry `#nothing`"), "{msg}");
    let (_dir, p) = collada_with_scene(
        r##"<library_visual_scenes><visual_scene id="Scene">
      <node id="A"><instance_node url="#B"/></node><node id="B"><instance_node url="#A"/></node>
    </visual_scene></library_visual_scenes>"##,
    );
    let msg = error_of(&p, &MeshLimits::default());
    assert!(msg.contains("cycle"), "{msg}");
}
