//! Per STL mesh: `collide`'s convex decomposition (`fit_tight` with the piece
//! budget) as pieces, total written hull volume over the mesh's hull volume, and
//! time; the figures docs/fitting.md sets against CoACD
//! (`scripts/coacd_compare.py` runs CoACD on the same files).
//!
//! `cargo run --release --example decompose_report -- MESH.stl...`

use collide::fit::{FitOptions, Primitive, decompose::PIECE_BUDGET, fit_tight};
use collide::geom::hull::Hull;
use collide::geom::mesh::TriMesh;
use collide::io::mesh::MeshLimits;
use std::path::Path;
use std::time::Instant;

fn load(path: &str) -> TriMesh {
    collide::io::mesh::load_mesh(Path::new(path), [1.0; 3], &MeshLimits::default()).unwrap()
}

fn main() {
    for path in std::env::args().skip(1) {
        let mesh = load(&path);
        let hull = Hull::new(&mesh.vertices).volume;
        let t = Instant::now();
        let fit = fit_tight(&mesh, PIECE_BUDGET, &FitOptions::default()).unwrap();
        let secs = t.elapsed().as_secs_f64();
        let vol: f64 = fit
            .primitives
            .iter()
            .map(|p| match p {
                Primitive::TightBox(t) => Hull::new(&t.hull).volume,
                _ => 0.0,
            })
            .sum();
        println!(
            "{path}\tpieces {}\tvolume/hull {:.3}\ttime {:.2} s",
            fit.primitives.len(),
            vol / hull,
            secs
        );
    }
}
