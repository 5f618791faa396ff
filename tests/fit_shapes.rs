//! Fits of hand-made meshes with known answers, degenerate input, proofs that
//! catch tampered primitives, and a property test over random point clouds.

use collide::fit::{
    self, Candidate, FitError, FitOptions, Kind, Metrics, Primitive, fit_link, fit_tight, prove,
};
use collide::geom::capsule::Capsule;
use collide::geom::containment;
use collide::geom::mesh::TriMesh;
use collide::geom::v3::{self, V3};
use proptest::prelude::*;

// ---------- mesh builders ----------

/// The axis-aligned box from `lo` to `hi`: the library's box mesh, corners moved exactly
/// onto `lo` and `hi`.
fn box_mesh(lo: V3, hi: V3) -> TriMesh {
    let mut m = collide::geom::primitive_mesh::box_mesh([1.0; 3]);
    for v in &mut m.vertices {
        for k in 0..3 {
            v[k] = if v[k] < 0.0 { lo[k] } else { hi[k] };
        }
    }
    m
}

fn merge(a: &TriMesh, b: &TriMesh) -> TriMesh {
    let mut m = a.clone();
    let off = m.vertices.len() as u32;
    m.vertices.extend_from_slice(&b.vertices);
    m.triangles.extend(
        b.triangles
            .iter()
            .map(|t| [t[0] + off, t[1] + off, t[2] + off]),
    );
    m
}

/// Closed cylinder along z from 0 to `len`, `n` sides.
fn cylinder(r: f64, len: f64, n: usize) -> TriMesh {
    let mut vertices = Vec::new();
    for i in 0..n {
        let a = i as f64 * std::f64::consts::TAU / n as f64;
        vertices.push([r * a.cos(), r * a.sin(), 0.0]);
        vertices.push([r * a.cos(), r * a.sin(), len]);
    }
    vertices.push([0.0, 0.0, 0.0]);
    vertices.push([0.0, 0.0, len]);
    let (c0, c1) = (2 * n as u32, 2 * n as u32 + 1);
    let mut triangles = Vec::new();
    for i in 0..n as u32 {
        let j = (i + 1) % n as u32;
        triangles.push([2 * i, 2 * j, 2 * j + 1]);
        triangles.push([2 * i, 2 * j + 1, 2 * i + 1]);
        triangles.push([c0, 2 * j, 2 * i]);
        triangles.push([c1, 2 * i + 1, 2 * j + 1]);
    }
    TriMesh {
        vertices,
        triangles,
    }
}

/// A flat plate in z = 0, `n` x `n` grid.
fn plate(w: f64, h: f64, n: usize) -> TriMesh {
    let mut vertices = Vec::new();
    for i in 0..=n {
        for j in 0..=n {
            vertices.push([w * i as f64 / n as f64, h * j as f64 / n as f64, 0.0]);
        }
    }
    let mut triangles = Vec::new();
    let id = |i: usize, j: usize| (i * (n + 1) + j) as u32;
    for i in 0..n {
        for j in 0..n {
            triangles.push([id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
            triangles.push([id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
        }
    }
    TriMesh {
        vertices,
        triangles,
    }
}

/// Subdivided sphere-ish mesh (UV sphere) with many hull vertices.
fn uv_sphere(r: f64, rings: usize, segs: usize, center: V3) -> TriMesh {
    let mut vertices = vec![v3::add(center, [0.0, 0.0, r])];
    for i in 1..rings {
        let th = std::f64::consts::PI * i as f64 / rings as f64;
        for j in 0..segs {
            let ph = std::f64::consts::TAU * j as f64 / segs as f64;
            vertices.push(v3::add(
                center,
                [
                    r * th.sin() * ph.cos(),
                    r * th.sin() * ph.sin(),
                    r * th.cos(),
                ],
            ));
        }
    }
    vertices.push(v3::add(center, [0.0, 0.0, -r]));
    let last = vertices.len() as u32 - 1;
    let ring = |i: usize, j: usize| (1 + (i - 1) * segs + j % segs) as u32;
    let mut triangles = Vec::new();
    for j in 0..segs {
        triangles.push([0, ring(1, j), ring(1, j + 1)]);
        triangles.push([last, ring(rings - 1, j + 1), ring(rings - 1, j)]);
    }
    for i in 1..rings - 1 {
        for j in 0..segs {
            triangles.push([ring(i, j), ring(i + 1, j), ring(i + 1, j + 1)]);
            triangles.push([ring(i, j), ring(i + 1, j + 1), ring(i, j + 1)]);
        }
    }
    TriMesh {
        vertices,
        triangles,
    }
}

fn transform(m: &TriMesh, rpy: V3, t: V3, scale: V3) -> TriMesh {
    let r = v3::rot_from_rpy(rpy);
    let vertices = m
        .vertices
        .iter()
        .map(|p| {
            v3::add(
                v3::mul_mv(&r, [p[0] * scale[0], p[1] * scale[1], p[2] * scale[2]]),
                t,
            )
        })
        .collect();
    let flip = scale[0] * scale[1] * scale[2] < 0.0;
    let triangles = m
        .triangles
        .iter()
        .map(|t| if flip { [t[0], t[2], t[1]] } else { *t })
        .collect();
    TriMesh {
        vertices,
        triangles,
    }
}

// ---------- independent containment checks ----------

/// Depth of `p` in one primitive, computed here from the written fields.
fn depth(prim: &Primitive, p: V3) -> f64 {
    match prim {
        Primitive::Capsule(c) => containment::capsule_depth(c.a, c.b, c.radius, p),
        Primitive::Box(b) => containment::box_depth(b.center, &b.rotation(), b.half_extents, p),
        Primitive::TightBox(t) => containment::HullPlanes::new(&t.hull).unwrap().depth(p),
    }
}

fn assert_vertices_inside(mesh: &TriMesh, prims: &[Primitive], min: f64) {
    for (i, p) in mesh.vertices.iter().enumerate() {
        let d = prims
            .iter()
            .map(|q| depth(q, *p))
            .fold(f64::NEG_INFINITY, f64::max);
        assert!(d >= min, "vertex {i} {p:?} depth {d}");
    }
}

fn assert_on_grid(prims: &[Primitive]) {
    let g = |x: f64| assert_eq!(x, fit::round4(x), "{x} is not at 4 decimals");
    for p in prims {
        match p {
            Primitive::Capsule(c) => {
                c.a.iter()
                    .chain(&c.b)
                    .chain([&c.radius])
                    .for_each(|x| g(*x))
            }
            Primitive::Box(b) => b
                .center
                .iter()
                .chain(&b.rpy)
                .chain(&b.half_extents)
                .for_each(|x| g(*x)),
            Primitive::TightBox(t) => {
                let b = &t.bbox;
                b.center
                    .iter()
                    .chain(&b.rpy)
                    .chain(&b.half_extents)
                    .chain(&t.dop26)
                    .for_each(|x| g(*x));
                // Hull vertices are written at 1 µm.
                t.hull.iter().flatten().for_each(|x| {
                    assert_eq!(*x, fit::rounding::round6(*x), "{x} is not at 6 decimals")
                });
            }
        }
    }
}

fn check_all_candidates(mesh: &TriMesh, f: &fit::LinkFit) {
    let h = FitOptions::default().headroom;
    for c in &f.candidates {
        assert_on_grid(&c.primitives);
        assert_vertices_inside(mesh, &c.primitives, h - 1e-9);
        // The proof re-runs on the written values, with and without cuts.
        prove(mesh, &c.primitives, c.cuts.as_ref()).unwrap();
        prove(mesh, &c.primitives, None).unwrap();
        assert!(c.metrics.min_margin_m >= h - 1e-4, "{:?}", c.metrics);
        assert!(c.metrics.max_protrusion_m >= c.metrics.mean_protrusion_m);
        assert!(c.metrics.mean_protrusion_m >= 0.0);
    }
}

fn kinds(f: &fit::LinkFit) -> Vec<Kind> {
    f.candidates.iter().map(|c| c.kind).collect()
}

fn candidate(f: &fit::LinkFit, k: Kind) -> &Candidate {
    f.candidates.iter().find(|c| c.kind == k).unwrap()
}

// ---------- known answers ----------

#[test]
fn unit_cube_box_is_half_plus_headroom() {
    let m = box_mesh([-0.5, -0.5, -0.5], [0.5, 0.5, 0.5]);
    let f = fit_link(&m, &FitOptions::default()).unwrap();
    check_all_candidates(&m, &f);
    assert_eq!(
        kinds(&f),
        [
            Kind::Capsule,
            Kind::CapsuleChain2,
            Kind::CapsuleChain3,
            Kind::Box
        ]
    );
    let Primitive::Box(b) = &candidate(&f, Kind::Box).primitives[0] else {
        panic!()
    };
    assert_eq!(b.half_extents, [0.501; 3]);
    assert_eq!(b.center, [0.0; 3]);
    assert_eq!(b.rpy, [0.0; 3]);
    assert_eq!(f.choice, Kind::Box);
    let m = candidate(&f, Kind::Box).metrics;
    assert_eq!(m.vol_ratio, Some(fit::round4(1.002f64.powi(3))));
    assert_eq!(m.max_protrusion_m, fit::round4(0.001 * 3f64.sqrt()));
    assert_eq!(f.proof.min_margin_m, 0.001);
}

#[test]
fn rotated_offset_cube_box() {
    let m = transform(
        &box_mesh([-0.5, -0.5, -0.5], [0.5, 0.5, 0.5]),
        [0.3, -0.2, 0.9],
        [1.0, -2.0, 0.5],
        [0.2, 0.1, 0.05],
    );
    let f = fit_link(&m, &FitOptions::default()).unwrap();
    check_all_candidates(&m, &f);
    let Primitive::Box(b) = &candidate(&f, Kind::Box).primitives[0] else {
        panic!()
    };
    let mut he = b.half_extents;
    he.sort_by(f64::total_cmp);
    // Exact up to the rounded frame's tilt (0.05 mrad) and 4-decimal rounding up.
    for (got, want) in he.iter().zip([0.026, 0.051, 0.101]) {
        assert!(*got >= want && *got <= want + 0.0002, "{he:?}");
    }
}

#[test]
fn long_cylinder_is_a_capsule_along_its_axis() {
    let m = cylinder(0.05, 1.0, 48);
    let f = fit_link(&m, &FitOptions::default()).unwrap();
    check_all_candidates(&m, &f);
    let Primitive::Capsule(c) = &candidate(&f, Kind::Capsule).primitives[0] else {
        panic!()
    };
    let ax = c.axis().unwrap();
    assert!(ax[2].abs() > 0.9999, "{ax:?}");
    assert!(c.radius >= 0.051 && c.radius <= 0.0525, "{}", c.radius);
    assert_ne!(f.choice, Kind::Box);
}

#[test]
fn capsule_shaped_link_chooses_the_capsule() {
    // A true capsule (sphere split at the equator, halves 0.6 m apart): the
    // capsule fits it to the headroom, chains cannot do better than 3 %.
    let mut m = uv_sphere(0.05, 24, 48, [0.0; 3]);
    for p in &mut m.vertices {
        if p[2] > 0.0 {
            p[2] += 0.6;
        }
    }
    let m = transform(&m, [0.4, 0.1, -0.2], [0.1, 0.0, 0.3], [1.0, 1.0, 1.0]);
    let f = fit_link(&m, &FitOptions::default()).unwrap();
    check_all_candidates(&m, &f);
    assert_eq!(f.choice, Kind::Capsule);
    let Primitive::Capsule(c) = &f.primitives[0] else {
        panic!()
    };
    assert!(
        c.radius <= 0.0512 && (v3::dist(c.a, c.b) - 0.6).abs() < 0.001,
        "{c:?}"
    );
}

#[test]
fn l_shape_chains_hold_the_seams() {
    let m = merge(
        &box_mesh([0.0, 0.0, 0.0], [0.6, 0.1, 0.1]),
        &box_mesh([0.0, 0.0, 0.0], [0.1, 0.1, 0.5]),
    );
    let f = fit_link(&m, &FitOptions::default()).unwrap();
    check_all_candidates(&m, &f);
    for k in [Kind::CapsuleChain2, Kind::CapsuleChain3] {
        let c = candidate(&f, k);
        let cuts = c.cuts.as_ref().unwrap();
        assert_eq!(cuts.slabs(), c.primitives.len());
        // The chain holds its seam: the proof's clipped pieces were all inside.
        let p = prove(&m, &c.primitives, Some(cuts)).unwrap();
        assert!(p.pieces > m.triangles.len());
    }
    // Chains are no worse than the single capsule on this shape.
    let one = candidate(&f, Kind::Capsule).metrics.mean_protrusion_m;
    let three = candidate(&f, Kind::CapsuleChain3).metrics.mean_protrusion_m;
    assert!(three <= one, "{three} vs {one}");
}

#[test]
fn flat_plate() {
    let m = transform(
        &plate(0.3, 0.2, 6),
        [0.1, 0.2, 0.3],
        [0.0, 0.1, 0.0],
        [1.0, 1.0, 1.0],
    );
    let f = fit_link(&m, &FitOptions::default()).unwrap();
    check_all_candidates(&m, &f);
    let Primitive::Box(b) = &candidate(&f, Kind::Box).primitives[0] else {
        panic!()
    };
    let thin = b.half_extents.iter().cloned().fold(f64::INFINITY, f64::min);
    assert!(thin <= 0.0011, "{:?}", b.half_extents);
    assert!(f.candidates.iter().all(|c| c.metrics.vol_ratio.is_none()));
    let t = fit_tight(&m, 1, &FitOptions::default()).unwrap();
    assert!(t.tight[0].outer_polytope);
    assert_vertices_inside(&m, &t.primitives, 0.0);
}

#[test]
fn single_triangle() {
    let m = TriMesh {
        vertices: vec![[0.0, 0.0, 0.0], [0.1, 0.0, 0.0], [0.0, 0.05, 0.02]],
        triangles: vec![[0, 1, 2]],
    };
    let f = fit_link(&m, &FitOptions::default()).unwrap();
    check_all_candidates(&m, &f);
    let t = fit_tight(&m, 1, &FitOptions::default()).unwrap();
    assert_vertices_inside(&m, &t.primitives, 0.0);
}

#[test]
fn mirrored_mesh_fits_like_the_original() {
    let base = merge(
        &cylinder(0.04, 0.3, 32),
        &box_mesh([0.0, -0.02, 0.25], [0.15, 0.02, 0.3]),
    );
    let mirrored = transform(&base, [0.0; 3], [0.0; 3], [-1.0, 1.0, 1.0]);
    let opts = FitOptions::default();
    let a = fit_link(&base, &opts).unwrap();
    let b = fit_link(&mirrored, &opts).unwrap();
    check_all_candidates(&mirrored, &b);
    for (x, y) in a.candidates.iter().zip(&b.candidates) {
        assert_eq!(x.kind, y.kind);
        // The searches are local (non-convex problems) and their direction
        // sets are not mirror-symmetric, so allow 5 % between the two.
        let (mx, my) = (x.metrics.mean_protrusion_m, y.metrics.mean_protrusion_m);
        assert!(
            (mx - my).abs() <= 0.05 * mx.max(my) + 1e-4,
            "{}: {mx} vs {my}",
            x.kind
        );
    }
    let t = fit_tight(&mirrored, 1, &opts).unwrap();
    assert_vertices_inside(&mirrored, &t.primitives, 0.0);
}

// ---------- degenerate input ----------

#[test]
fn single_point_is_a_headroom_capsule() {
    let m = TriMesh {
        vertices: vec![[0.1, 0.2, 0.3]],
        triangles: vec![],
    };
    let f = fit_link(&m, &FitOptions::default()).unwrap();
    assert_eq!(f.choice, Kind::Capsule);
    let Primitive::Capsule(c) = &f.primitives[0] else {
        panic!()
    };
    assert_eq!(
        *c,
        Capsule {
            a: [0.1, 0.2, 0.3],
            b: [0.1, 0.2, 0.3],
            radius: 0.001
        }
    );
    assert_eq!(f.candidates.len(), 2, "chains skipped");
    assert_eq!(f.notes.len(), 2);
    let t = fit_tight(&m, 3, &FitOptions::default()).unwrap();
    assert_eq!(t.primitives.len(), 1);
    assert_vertices_inside(&m, &t.primitives, 0.0);
}

#[test]
fn collinear_points() {
    let m = TriMesh {
        vertices: (0..10)
            .map(|i| [0.01 * i as f64, 0.02 * i as f64, 0.0])
            .collect(),
        triangles: vec![[0, 5, 9], [1, 1, 2]],
    };
    let f = fit_link(&m, &FitOptions::default()).unwrap();
    check_all_candidates(&m, &f);
    let Primitive::Capsule(c) = &candidate(&f, Kind::Capsule).primitives[0] else {
        panic!()
    };
    assert!(c.radius <= 0.0011, "{}", c.radius);
    for c in &f.candidates {
        assert!(c.metrics.max_protrusion_m.is_finite());
    }
    fit_tight(&m, 2, &FitOptions::default()).unwrap();
}

#[test]
fn empty_and_invalid_meshes_are_refused() {
    let opts = FitOptions::default();
    assert_eq!(fit_link(&TriMesh::default(), &opts), Err(FitError::Empty));
    assert_eq!(
        fit_tight(&TriMesh::default(), 1, &opts),
        Err(FitError::Empty)
    );
    let nan = TriMesh {
        vertices: vec![[0.0, f64::NAN, 0.0]],
        triangles: vec![],
    };
    assert_eq!(
        fit_link(&nan, &opts),
        Err(FitError::NonFinite { vertex: 0 })
    );
    let bad = TriMesh {
        vertices: vec![[0.0; 3]],
        triangles: vec![[0, 0, 3]],
    };
    assert!(matches!(
        fit_link(&bad, &opts),
        Err(FitError::BadIndex { .. })
    ));
    let cube = box_mesh([0.0; 3], [1.0; 3]);
    assert_eq!(fit_tight(&cube, 0, &opts), Err(FitError::BadSlabs(0)));
    let neg = FitOptions {
        headroom: -1.0,
        ..FitOptions::default()
    };
    assert!(matches!(
        fit_link(&cube, &neg),
        Err(FitError::BadHeadroom(_))
    ));
}

// ---------- tight geometry ----------

#[test]
fn tight_cube_chain_of_containment() {
    let m = box_mesh([-0.5, -0.5, -0.5], [0.5, 0.5, 0.5]);
    let f = fit_tight(&m, 1, &FitOptions::default()).unwrap();
    assert_eq!(f.choice, Kind::BoxHull { slabs: 1 });
    assert_on_grid(&f.primitives);
    let Primitive::TightBox(t) = &f.primitives[0] else {
        panic!()
    };
    assert!(!f.tight[0].outer_polytope);
    assert_eq!(t.hull.len(), 8);
    // The exact hull, pushed out only by the 1 µm rounding slack: a cube
    // 0.501 µm wider. The box and DOP hold it at 4 decimals.
    assert!(
        t.hull.iter().flatten().all(|x| x.abs() == 0.500001),
        "{:?}",
        t.hull
    );
    assert_eq!(t.bbox.half_extents, [0.5001; 3]);
    assert_eq!(&t.dop26[..6], &[0.5001; 6]);
    assert!(f.proof.min_margin_m >= 0.0);
    assert!(f.tight[0].hull_excess_m <= 2e-6);
}

#[test]
fn tight_sphere_over_budget_uses_outer_polytope() {
    let m = uv_sphere(0.1, 40, 40, [0.2, 0.0, 0.1]);
    let opts = FitOptions::default();
    let f = fit_tight(&m, 1, &opts).unwrap();
    let info = &f.tight[0];
    assert!(info.exact_hull_vertices > 320);
    assert!(info.outer_polytope);
    assert!(info.hull_vertices <= 320);
    assert!(info.hull_excess_m < 0.01, "{info:?}");
    assert_vertices_inside(&m, &f.primitives, 0.0);
}

#[test]
fn decomposition_cuts_a_pedestal() {
    // Foot plate, thin column, shoulder block: one hull bridges a lot of air.
    let foot = box_mesh([-0.125, -0.095, 0.0], [0.125, 0.095, 0.07]);
    let column = box_mesh([-0.03, -0.03, 0.07], [0.03, 0.03, 0.61]);
    let block = box_mesh([-0.075, -0.08, 0.61], [0.075, 0.08, 0.77]);
    let m = merge(&merge(&foot, &column), &block);
    let opts = FitOptions::default();
    let one = fit_tight(&m, 1, &opts).unwrap();
    let three = fit_tight(&m, 3, &opts).unwrap();
    assert_eq!(three.primitives.len(), 3);
    // Foot, column and block each get their own piece: every piece's box is
    // within 2 cm (plus the seam overlap) of one part's height.
    for p in &three.primitives {
        let Primitive::TightBox(t) = p else { panic!() };
        let (lo, hi) = t
            .hull
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |a, v| {
                (a.0.min(v[2]), a.1.max(v[2]))
            });
        let fits = [(0.0, 0.07), (0.07, 0.61), (0.61, 0.77)]
            .iter()
            .any(|(a, b)| (lo - a).abs() < 0.02 && (hi - b).abs() < 0.02);
        assert!(fits, "piece spans z {lo}..{hi}");
    }
    let hull_vol = |f: &fit::LinkFit| -> f64 {
        f.primitives
            .iter()
            .map(|p| match p {
                Primitive::TightBox(t) => collide::geom::hull::Hull::new(&t.hull).volume,
                _ => 0.0,
            })
            .sum()
    };
    assert!(
        hull_vol(&three) < 0.5 * hull_vol(&one),
        "{} vs {}",
        hull_vol(&three),
        hull_vol(&one)
    );
    prove(&m, &three.primitives, None).unwrap();
    assert_vertices_inside(&m, &three.primitives, 0.0);
}

// ---------- the proof catches tampering ----------

#[test]
fn proof_catches_shrunken_radius() {
    let m = cylinder(0.05, 0.5, 24);
    let f = fit_link(&m, &FitOptions::default()).unwrap();
    let mut prims = candidate(&f, Kind::Capsule).primitives.clone();
    let Primitive::Capsule(c) = &mut prims[0] else {
        panic!()
    };
    c.radius -= 0.0011;
    assert!(matches!(
        prove(&m, &prims, None),
        Err(FitError::VertexOutside { .. })
    ));
}

#[test]
fn proof_catches_moved_box() {
    let m = box_mesh([0.0; 3], [0.2, 0.1, 0.3]);
    let f = fit_link(&m, &FitOptions::default()).unwrap();
    let mut prims = candidate(&f, Kind::Box).primitives.clone();
    let Primitive::Box(b) = &mut prims[0] else {
        panic!()
    };
    b.center[1] += 0.0015;
    let e = prove(&m, &prims, None).unwrap_err();
    assert!(matches!(e, FitError::VertexOutside { .. }), "{e}");
    assert!(e.to_string().contains("vertex"), "{e}");
}

#[test]
fn proof_catches_pulled_in_hull_vertex() {
    let m = box_mesh([0.0; 3], [0.2, 0.1, 0.3]);
    let f = fit_tight(&m, 1, &FitOptions::default()).unwrap();
    let mut prims = f.primitives.clone();
    let Primitive::TightBox(t) = &mut prims[0] else {
        panic!()
    };
    // Pull the vertex nearest the origin corner inward past the truth.
    let k = (0..t.hull.len())
        .min_by(|&a, &b| v3::norm(t.hull[a]).total_cmp(&v3::norm(t.hull[b])))
        .unwrap();
    t.hull[k] = [0.002, 0.002, 0.002];
    assert!(matches!(
        prove(&m, &prims, None),
        Err(FitError::VertexOutside { .. })
    ));
}

#[test]
fn proof_catches_dop_and_box_violations() {
    let m = box_mesh([0.0; 3], [0.2, 0.1, 0.3]);
    let f = fit_tight(&m, 1, &FitOptions::default()).unwrap();
    let mut prims = f.primitives.clone();
    let Primitive::TightBox(t) = &mut prims[0] else {
        panic!()
    };
    t.dop26[20] -= 0.01;
    assert!(matches!(
        prove(&m, &prims, None),
        Err(FitError::HullOutsideDop { .. })
    ));
    let mut prims = f.primitives.clone();
    let Primitive::TightBox(t) = &mut prims[0] else {
        panic!()
    };
    t.bbox.half_extents[1] -= 0.0001;
    assert!(matches!(
        prove(&m, &prims, None),
        Err(FitError::DopOutsideBox { .. })
    ));
}

#[test]
fn evaluate_existing_primitives() {
    // A hand-written box around a fitted cube: measured like a fit's candidate.
    let m = box_mesh([-0.5, -0.5, -0.5], [0.5, 0.5, 0.5]);
    let prims = vec![Primitive::Box(fit::BoxPrim {
        center: [0.0; 3],
        rpy: [0.0; 3],
        half_extents: [0.6; 3],
    })];
    let (metrics, proof) = fit::evaluate(&m, &prims, None, &FitOptions::default()).unwrap();
    // 0.6 - 0.5 is 0.0999999... in f64: the margin is rounded down.
    assert_eq!(proof.min_margin_m, 0.0999);
    assert_eq!(metrics.vol_ratio, Some(fit::round4(1.2f64.powi(3))));
    assert_eq!(metrics.max_protrusion_m, fit::round4(0.1 * 3f64.sqrt()));
    let loose = fit::evaluate(&m, &prims, None, &FitOptions::default())
        .unwrap()
        .0
        .mean_protrusion_m;
    let fitted = fit_link(&m, &FitOptions::default())
        .unwrap()
        .metrics
        .mean_protrusion_m;
    assert!(loose > fitted + 0.0001, "{loose} vs {fitted}");
}

#[test]
fn proof_catches_a_chain_gap_at_the_seam() {
    let m = box_mesh([0.0, 0.0, 0.0], [1.0, 0.1, 0.1]);
    // Two capsules that hold every vertex but leave the middle of the long
    // faces uncovered.
    let prims = vec![
        Primitive::Capsule(Capsule {
            a: [0.0, 0.05, 0.05],
            b: [0.1, 0.05, 0.05],
            radius: 0.08,
        }),
        Primitive::Capsule(Capsule {
            a: [0.9, 0.05, 0.05],
            b: [1.0, 0.05, 0.05],
            radius: 0.08,
        }),
    ];
    let e = prove(&m, &prims, None).unwrap_err();
    assert!(matches!(e, FitError::TriangleOutside { .. }), "{e}");
}

// ---------- the rule ----------

fn cand(kind: Kind, mean: f64) -> Candidate {
    Candidate {
        kind,
        primitives: vec![],
        cuts: None,
        metrics: Metrics {
            vol_ratio: None,
            max_protrusion_m: mean,
            mean_protrusion_m: mean,
            min_margin_m: 0.001,
        },
    }
}

#[test]
fn rule_least_mean_protrusion_with_ties_to_cheaper() {
    use fit::choice::choose;
    // Box least, capsule within 3 %: capsule.
    let c = [
        cand(Kind::Capsule, 0.0102),
        cand(Kind::CapsuleChain2, 0.0101),
        cand(Kind::Box, 0.0100),
    ];
    assert_eq!(choose(&c, 0.03), Some(0));
    // Capsule 4 % off: the chain of 2 (within 3 %) wins over the box.
    let c = [
        cand(Kind::Capsule, 0.0104),
        cand(Kind::CapsuleChain2, 0.0102),
        cand(Kind::Box, 0.0100),
    ];
    assert_eq!(choose(&c, 0.03), Some(1));
    // Nothing within 3 %: the least mean.
    let c = [
        cand(Kind::Capsule, 0.02),
        cand(Kind::CapsuleChain3, 0.015),
        cand(Kind::Box, 0.0100),
    ];
    assert_eq!(choose(&c, 0.03), Some(2));
    // Chain 3 against chain 2, tied: chain 2.
    let c = [
        cand(Kind::CapsuleChain3, 0.0100),
        cand(Kind::CapsuleChain2, 0.0103),
    ];
    assert_eq!(choose(&c, 0.03), Some(1));
    // Exactly at the 3 % edge counts as a tie.
    let c = [cand(Kind::Box, 0.0100), cand(Kind::Capsule, 0.0103)];
    assert_eq!(choose(&c, 0.03), Some(1));
    assert_eq!(choose(&[], 0.03), None);
}

// ---------- rounding outward ----------

#[test]
fn written_values_round_outward() {
    // A capsule whose exact radius lands between grid values.
    let m = TriMesh {
        vertices: vec![[0.0, 0.0, 0.0], [0.0, 0.0, 0.2], [0.012_345_6, 0.0, 0.1]],
        triangles: vec![[0, 1, 2]],
    };
    let f = fit_link(&m, &FitOptions::default()).unwrap();
    check_all_candidates(&m, &f);
    let opts = FitOptions {
        headroom: 0.0,
        ..FitOptions::default()
    };
    let f = fit_link(&m, &opts).unwrap();
    for c in &f.candidates {
        assert_on_grid(&c.primitives);
        assert_vertices_inside(&m, &c.primitives, 0.0);
    }
}

#[test]
fn fit_is_deterministic() {
    let m = merge(
        &cylinder(0.03, 0.4, 20),
        &box_mesh([-0.05, -0.05, 0.35], [0.05, 0.05, 0.45]),
    );
    let m = transform(&m, [0.2, 0.4, -0.3], [0.1, 0.2, 0.3], [1.0, 1.0, 1.0]);
    let opts = FitOptions::default();
    assert_eq!(fit_link(&m, &opts).unwrap(), fit_link(&m, &opts).unwrap());
    assert_eq!(
        fit_tight(&m, 2, &opts).unwrap(),
        fit_tight(&m, 2, &opts).unwrap()
    );
}

// ---------- property test: random clouds, degenerate ones included ----------

fn cloud() -> impl Strategy<Value = TriMesh> {
    let pt = || (-0.3f64..0.3, -0.3f64..0.3, -0.3f64..0.3).prop_map(|(x, y, z)| [x, y, z]);
    let kind = 0u8..5;
    (prop::collection::vec(pt(), 1..40), kind, pt(), pt()).prop_map(|(pts, kind, a, b)| {
        let vertices: Vec<V3> = match kind {
            // Coplanar: z = 0.1 x - 0.2 y.
            1 => pts
                .iter()
                .map(|p| [p[0], p[1], 0.1 * p[0] - 0.2 * p[1]])
                .collect(),
            // Collinear along a-b.
            2 => pts.iter().map(|p| v3::lerp(a, b, p[0] + 0.5)).collect(),
            // Duplicated points.
            3 => pts
                .iter()
                .flat_map(|p| [*p, *p, [p[0], p[1], p[2] + 1e-12]])
                .collect(),
            // One point repeated.
            4 => vec![a; pts.len()],
            _ => pts,
        };
        let n = vertices.len() as u32;
        let triangles = (0..n.saturating_sub(2))
            .map(|i| [i, (i * 7 + 1) % n, (i * 13 + 2) % n])
            .collect();
        TriMesh {
            vertices,
            triangles,
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    #[test]
    fn random_clouds_are_always_contained(m in cloud()) {
        assert_cloud_contained(&m, &[1, 2])?;
    }
}

/// Every candidate fit of `m` and its tight fits in `slabs` slabs: on the rounding grid,
/// every vertex inside with the headroom, finite figures, and the tight fits proven.
fn assert_cloud_contained(m: &TriMesh, slabs: &[usize]) -> Result<(), TestCaseError> {
    let opts = FitOptions {
        mc_samples: 20_000,
        directions: 256,
        ..FitOptions::default()
    };
    let f = fit_link(m, &opts).unwrap();
    for c in &f.candidates {
        assert_on_grid(&c.primitives);
        assert_vertices_inside(m, &c.primitives, opts.headroom - 1e-9);
        prop_assert!(c.metrics.mean_protrusion_m.is_finite());
        prop_assert!(c.metrics.vol_ratio.is_none_or(|v| v.is_finite()));
    }
    for &n in slabs {
        let t = fit_tight(m, n, &opts).unwrap();
        assert_on_grid(&t.primitives);
        assert_vertices_inside(m, &t.primitives, opts.hull_headroom);
        prove(m, &t.primitives, None).unwrap();
    }
    Ok(())
}

// ---------- property test: the same clouds anywhere and at any size ----------

/// A cloud of [`cloud`] or a nearly degenerate one (flat or straight up to
/// 1e-9 m, two points), scaled by 1e-5 to 30 and moved up to 50 m from the
/// origin: rounding to 4 decimals and the headroom must hold at every size.
fn placed_cloud() -> impl Strategy<Value = TriMesh> {
    let near_degenerate =
        (prop::collection::vec(-1.0f64..1.0, 9..60), 0u8..3).prop_map(|(xs, kind)| {
            let vertices: Vec<V3> = xs
                .chunks_exact(3)
                .map(|c| match kind {
                    // Flat but for 1e-9 of noise.
                    0 => [0.3 * c[0], 0.3 * c[1], 1e-9 * c[2]],
                    // Straight but for 1e-9 of noise.
                    1 => [0.3 * c[0], 1e-9 * c[1], 1e-9 * c[2]],
                    // Two points.
                    _ if c[0] < 0.0 => [0.1, -0.2, 0.05],
                    _ => [-0.1, 0.2, 0.0],
                })
                .collect();
            let n = vertices.len() as u32;
            TriMesh {
                triangles: (0..n.saturating_sub(2))
                    .map(|i| [i, i + 1, i + 2])
                    .collect(),
                vertices,
            }
        });
    let scale = prop_oneof![Just(1.0), Just(1e-5), Just(0.01), Just(30.0)];
    let offset = (-50.0f64..50.0, -50.0f64..50.0, -50.0f64..50.0);
    (prop_oneof![cloud(), near_degenerate], scale, offset).prop_map(|(m, s, (x, y, z))| TriMesh {
        vertices: m
            .vertices
            .iter()
            .map(|p| [s * p[0] + x, s * p[1] + y, s * p[2] + z])
            .collect(),
        triangles: m.triangles,
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    #[test]
    fn placed_and_scaled_clouds_are_always_contained(m in placed_cloud()) {
        assert_cloud_contained(&m, &[2])?;
    }
}

// ---------- convex decomposition on hand-made concave links ----------

fn hull_volume_of(prims: &[Primitive]) -> f64 {
    prims
        .iter()
        .map(|p| match p {
            Primitive::TightBox(t) => collide::geom::hull::Hull::new(&t.hull).volume,
            _ => panic!("tight pieces only"),
        })
        .sum()
}

#[test]
fn decomposition_holds_concave_links() {
    let l = merge(
        &box_mesh([0.0, 0.0, 0.0], [0.6, 0.1, 0.1]),
        &box_mesh([0.0, 0.0, 0.0], [0.1, 0.1, 0.5]),
    );
    let u = merge(
        &merge(
            &box_mesh([0.0, 0.0, 0.0], [0.5, 0.1, 0.1]),
            &box_mesh([0.0, 0.0, 0.0], [0.1, 0.1, 0.4]),
        ),
        &box_mesh([0.4, 0.0, 0.0], [0.5, 0.1, 0.4]),
    );
    // A ring of eight blocks around the z axis (a torus-like loop).
    let mut ring = TriMesh::default();
    for k in 0..8 {
        let a = k as f64 * std::f64::consts::PI / 4.0;
        let block = box_mesh([0.2, -0.06, -0.04], [0.28, 0.06, 0.04]);
        ring = merge(&ring, &transform(&block, [0.0; 3], [0.0, 0.0, a], [1.0; 3]));
    }
    // A hollow box: six walls 2 cm thick.
    let t = 0.02;
    let mut hollow = TriMesh::default();
    for wall in [
        ([0.0, 0.0, 0.0], [0.3, 0.3, t]),
        ([0.0, 0.0, 0.3 - t], [0.3, 0.3, 0.3]),
        ([0.0, 0.0, 0.0], [t, 0.3, 0.3]),
        ([0.3 - t, 0.0, 0.0], [0.3, 0.3, 0.3]),
        ([0.0, 0.0, 0.0], [0.3, t, 0.3]),
        ([0.0, 0.3 - t, 0.0], [0.3, 0.3, 0.3]),
    ] {
        hollow = merge(&hollow, &box_mesh(wall.0, wall.1));
    }
    let opts = FitOptions::default();
    for (what, m, at_most) in [
        ("L", &l, 0.7),
        ("U", &u, 0.7),
        ("ring", &ring, 0.8),
        ("hollow box", &hollow, 1.0),
    ] {
        let one = fit_tight(m, 1, &opts).unwrap();
        let many = fit_tight(m, 8, &opts).unwrap();
        // Proven on the written values as a manifest would be re-proven
        // (no cut planes: every triangle held by one piece's hull).
        prove(m, &many.primitives, None).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_vertices_inside(m, &many.primitives, 0.0);
        assert_on_grid(&many.primitives);
        let (v1, vn) = (
            hull_volume_of(&one.primitives),
            hull_volume_of(&many.primitives),
        );
        assert!(many.primitives.len() <= 8, "{what}");
        assert!(
            vn <= at_most * v1 + 1e-12,
            "{what}: {vn} vs {v1} in {} pieces",
            many.primitives.len()
        );
        if at_most < 1.0 {
            assert!(many.primitives.len() > 1, "{what}");
        }
    }
}
