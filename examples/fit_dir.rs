//! Times `fit_link` (or `fit_tight`) on every STL mesh in a directory, one mesh
//! per link, links in parallel (rayon) as `collide lower` runs them.
//!
//! `cargo run --release --example fit_dir -- DIR [--tight[=N]] [--threads N]`

use collide::fit::{FitOptions, fit_link, fit_tight};
use collide::geom::mesh::TriMesh;
use rayon::prelude::*;
use std::time::Instant;

fn load(path: &std::path::Path) -> TriMesh {
    let mut f = std::fs::File::open(path).unwrap();
    let m = stl_io::read_stl(&mut f).unwrap();
    TriMesh {
        vertices: m
            .vertices
            .iter()
            .map(|v| [v.0[0] as f64, v.0[1] as f64, v.0[2] as f64])
            .collect(),
        triangles: m
            .faces
            .iter()
            .map(|t| {
                [
                    t.vertices[0] as u32,
                    t.vertices[1] as u32,
                    t.vertices[2] as u32,
                ]
            })
            .collect(),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = &args[1];
    let tight: Option<usize> = args.iter().find_map(|a| {
        a.strip_prefix("--tight")
            .map(|r| r.strip_prefix('=').map_or(1, |n| n.parse().unwrap()))
    });
    let threads: usize = args
        .iter()
        .position(|a| a == "--threads")
        .map_or(2, |i| args[i + 1].parse().unwrap());
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("stl")))
        .collect();
    paths.sort();
    let meshes: Vec<(String, TriMesh)> = paths
        .iter()
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                load(p),
            )
        })
        .collect();
    let opts = FitOptions::default();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let t0 = Instant::now();
    let results: Vec<(f64, String)> = pool.install(|| {
        meshes
            .par_iter()
            .map(|(name, m)| {
                let t = Instant::now();
                let line = match tight {
                    Some(n) => match fit_tight(m, n, &opts) {
                        Ok(f) => format!(
                            "{} hull {:?} excess {:?} margin {}",
                            f.choice,
                            f.tight
                                .iter()
                                .map(|s| (s.exact_hull_vertices, s.hull_vertices))
                                .collect::<Vec<_>>(),
                            f.tight.iter().map(|s| s.hull_excess_m).collect::<Vec<_>>(),
                            f.proof.min_margin_m
                        ),
                        Err(e) => format!("ERROR {e}"),
                    },
                    None => match fit_link(m, &opts) {
                        Ok(f) => format!(
                            "{:<16} mean {:.4} max {:.4} vol {:?} | {}",
                            f.choice.to_string(),
                            f.metrics.mean_protrusion_m,
                            f.metrics.max_protrusion_m,
                            f.metrics.vol_ratio,
                            f.candidates
                                .iter()
                                .map(|c| format!("{} {:.4}", c.kind, c.metrics.mean_protrusion_m))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                        Err(e) => format!("ERROR {e}"),
                    },
                };
                let dt = t.elapsed().as_secs_f64();
                (
                    dt,
                    format!(
                        "{name:<34} {:>6} tris {:>7.1} ms  {line}",
                        m.triangles.len(),
                        dt * 1e3
                    ),
                )
            })
            .collect()
    });
    let wall = t0.elapsed().as_secs_f64();
    for (_, l) in &results {
        println!("{l}");
    }
    let cpu: f64 = results.iter().map(|r| r.0).sum();
    let tris: usize = meshes.iter().map(|m| m.1.triangles.len()).sum();
    println!(
        "{} meshes, {tris} triangles: wall {:.2} s on {threads} threads, sum of per-mesh {:.2} s",
        meshes.len(),
        wall,
        cpu
    );
}
