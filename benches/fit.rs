//! Fitting a synthetic 50k-triangle link mesh: the whole fit, the tight fit,
//! and each candidate's share (hull, capsule, box, chains, metrics, proof).
//!
//! `cargo bench --bench fit` (criterion). The mesh is a wavy tube with
//! hemispherical ends and a flange ring, 50,176 triangles, the size of
//! the largest G1 visual meshes.

use collide::fit::{self, FitOptions, Primitive, fit_link, fit_tight, metrics, prove};
use collide::geom::capsule;
use collide::geom::chain::{self, Cuts};
use collide::geom::hull::Hull;
use collide::geom::mesh::TriMesh;
use collide::geom::obb;
use collide::geom::support;
use collide::geom::v3::{self, V3};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

/// A grid surface `rows x cols` from a parametric function (closed in `u`).
fn surface(rows: usize, cols: usize, f: impl Fn(f64, f64) -> V3, m: &mut TriMesh) {
    let base = m.vertices.len() as u32;
    for i in 0..=rows {
        for j in 0..cols {
            m.vertices
                .push(f(i as f64 / rows as f64, j as f64 / cols as f64));
        }
    }
    let id = |i: usize, j: usize| base + (i * cols + j % cols) as u32;
    for i in 0..rows {
        for j in 0..cols {
            m.triangles.push([id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
            m.triangles.push([id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
        }
    }
}

/// The synthetic link: 50,176 triangles.
pub fn synthetic_link() -> TriMesh {
    let mut m = TriMesh::default();
    let tau = std::f64::consts::TAU;
    let (r, len) = (0.045, 0.32);
    // Wavy tube: 140 x 128 quads.
    surface(
        140,
        128,
        |u, t| {
            let th = tau * t;
            let z = len * u;
            let rr = r * (1.0 + 0.06 * (7.0 * th).sin() * (9.0 * u * tau).sin());
            [rr * th.cos(), rr * th.sin(), z]
        },
        &mut m,
    );
    // Hemispherical caps: 2 x 24 x 128 quads.
    for (z0, s) in [(0.0, -1.0), (len, 1.0)] {
        surface(
            24,
            128,
            |u, t| {
                let ph = u * std::f64::consts::FRAC_PI_2;
                let th = tau * t;
                [
                    r * ph.cos() * th.cos(),
                    r * ph.cos() * th.sin(),
                    z0 + s * r * ph.sin(),
                ]
            },
            &mut m,
        );
    }
    // Flange: a ring near one end, 8 x 128 quads.
    surface(
        8,
        128,
        |u, t| {
            let th = tau * t;
            let rr = 0.07 + 0.01 * (u * tau).cos();
            [
                rr * th.cos() + 0.01,
                rr * th.sin(),
                0.05 + 0.01 * (u * tau).sin(),
            ]
        },
        &mut m,
    );
    m
}

fn bench(c: &mut Criterion) {
    let mesh = synthetic_link();
    let opts = FitOptions::default();
    let h = opts.headroom;
    eprintln!(
        "synthetic link: {} vertices, {} triangles",
        mesh.vertices.len(),
        mesh.triangles.len()
    );
    let hull = Hull::new(&mesh.vertices);
    eprintln!(
        "hull: {} vertices, {} faces",
        hull.points.len(),
        hull.faces.len()
    );
    let fitted = fit_link(&mesh, &opts).unwrap();
    for cand in &fitted.candidates {
        eprintln!("  {}: {:?}", cand.kind, cand.metrics);
    }
    eprintln!("  choice {}", fitted.choice);
    let tight = fit_tight(&mesh, 1, &opts).unwrap();
    eprintln!("  tight: {:?}", tight.tight);

    let mut g = c.benchmark_group("fit_50k");
    g.sample_size(10);
    g.measurement_time(std::time::Duration::from_secs(3));
    g.warm_up_time(std::time::Duration::from_millis(500));
    g.bench_function("fit_link (all candidates, metrics, proofs)", |b| {
        b.iter(|| fit_link(black_box(&mesh), &opts).unwrap())
    });
    g.bench_function("fit_tight 1 slab", |b| {
        b.iter(|| fit_tight(black_box(&mesh), 1, &opts).unwrap())
    });
    g.bench_function("fit_tight 3 slabs", |b| {
        b.iter(|| fit_tight(black_box(&mesh), 3, &opts).unwrap())
    });
    g.bench_function("link hull", |b| {
        b.iter(|| Hull::new(black_box(&mesh.vertices)))
    });
    g.bench_function("capsule candidate (search on hull)", |b| {
        b.iter(|| {
            let bx = obb::fit_obb(&hull, h).unwrap();
            let mut extra: Vec<V3> = (0..3).map(|k| v3::col(&bx.rot, k)).collect();
            extra.extend(obb::distinct_normals(&hull, 24));
            capsule::fit_capsule(&hull.points, h, &extra).unwrap()
        })
    });
    g.bench_function("box candidate (face normals x calipers)", |b| {
        b.iter(|| obb::fit_obb(black_box(&hull), h).unwrap())
    });
    let cap = capsule::fit_capsule(&hull.points, h, &[]).unwrap();
    let axis = cap.axis().unwrap();
    for k in [2usize, 3] {
        g.bench_function(format!("chain of {k} (split + per-slab capsules)"), |b| {
            b.iter(|| {
                let (lo, hi) =
                    mesh.vertices
                        .iter()
                        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, u), p| {
                            let t = v3::dot(axis, *p);
                            (l.min(t), u.max(t))
                        });
                let mut cuts = Cuts::equal(axis, lo, hi, k);
                let caps: Vec<_> = chain::slab_points_nonempty(&mesh, &mut cuts)
                    .iter()
                    .map(|pts| {
                        capsule::fit_capsule_with(pts, h, &[axis], &fit::CHAIN_SEARCH).unwrap()
                    })
                    .collect();
                caps
            })
        });
    }
    let dirs = support::fibonacci_directions(opts.directions);
    let hs: Vec<f64> = dirs.iter().map(|u| hull.support(*u)).collect();
    let chain3 = fitted
        .candidates
        .iter()
        .find(|c| c.kind == fit::Kind::CapsuleChain3)
        .unwrap();
    g.bench_function("metrics of chain 3 (MC union + 1024 directions)", |b| {
        b.iter(|| {
            metrics::measure(
                &chain3.primitives,
                &dirs,
                &hs,
                hull.volume,
                opts.mc_samples,
                opts.seed,
                0.0,
            )
        })
    });
    g.bench_function("proof of chain 3 (clipped triangles)", |b| {
        b.iter(|| prove(&mesh, &chain3.primitives, chain3.cuts.as_ref()).unwrap())
    });
    g.bench_function("proof of chain 3 without cuts (subdivision)", |b| {
        b.iter(|| prove(&mesh, &chain3.primitives, None).unwrap())
    });
    let tb: Vec<Primitive> = tight.primitives.clone();
    g.bench_function("proof of tight (hull, DOP, box)", |b| {
        b.iter(|| prove(&mesh, &tb, None).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
