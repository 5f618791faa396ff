//! Prints one line per seeded pose and manifest: the kernel's counters and the best of
//! five timed `check_self_collision` calls (ns). `lower::refine::CostModel`'s prices are
//! fitted to these lines (non-negative least squares on relative error).
//! `cargo run --release --example pose_dump -- robots/*/manifest.yaml > poses.txt`
//! Columns: robot links checked_pairs link_skipped prim_pairs narrow narrow_tight
//! scanned_vertices gjk_steps ns

use collide::manifest::kernel::load_kernel;
use collide::manifest::load_manifest;
use collide::truth::poses::uniform_q;
use std::time::Instant;

fn main() {
    for path in std::env::args().skip(1) {
        let m = load_manifest(std::path::Path::new(&path)).expect("manifest");
        let k = load_kernel(&m).expect("kernel");
        let model = &k.model;
        let mut ws = model.workspace();
        let mut q = vec![0.0; model.dof()];
        for i in 0..3000u64 {
            uniform_q(model, 20260924, i, &mut q);
            let mut best = u128::MAX;
            for _ in 0..5 {
                let t = Instant::now();
                model.check_self_collision(&q, &mut ws, false);
                best = best.min(t.elapsed().as_nanos());
            }
            let s = ws.stats();
            println!(
                "{} {} {} {} {} {} {} {} {} {best}",
                m.robot,
                model.n_links(),
                model.checked_pairs().len(),
                s.link_skipped,
                s.prim_pairs,
                s.narrow - s.narrow_tight,
                s.narrow_tight,
                s.scanned_vertices,
                s.gjk_steps,
            );
        }
    }
}
