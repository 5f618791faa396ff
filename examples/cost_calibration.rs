//! Prints, per manifest, the kernel's median counters and measured median µs on
//! 3000 seeded poses: the data `lower::refine::CostModel`'s prices are fitted to.
//! `cargo run --release --example cost_calibration -- robots/*/manifest.yaml`

use collide::lower::refine::CostModel;
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
        let (mut pp, mut nn, mut nt, mut nv, mut ni, mut ns) =
            (vec![], vec![], vec![], vec![], vec![], vec![]);
        for i in 0..3000u64 {
            uniform_q(model, 20260924, i, &mut q);
            let t = Instant::now();
            model.check_self_collision(&q, &mut ws, true);
            let a = t.elapsed().as_nanos() as f64;
            let t = Instant::now();
            model.check_self_collision(&q, &mut ws, true);
            ns.push(a.min(t.elapsed().as_nanos() as f64));
            let s = ws.stats();
            pp.push(s.prim_pairs as f64);
            nn.push((s.narrow - s.narrow_tight) as f64);
            nt.push(s.narrow_tight as f64);
            nv.push(s.scanned_vertices as f64);
            ni.push(s.gjk_steps as f64);
        }
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        ns.sort_by(f64::total_cmp);
        println!(
            "{path}\tlinks {}\tchecked_pairs {}\tprim_pairs {:.1}\tnarrow {:.1}\ttight {:.1}\ttight_vertices {:.1}\tgjk_steps {:.1}\tmeasured_median_us {:.2}\testimate_us {:.2}",
            model.n_links(),
            model.checked_pairs().len(),
            mean(&pp),
            mean(&nn),
            mean(&nt),
            mean(&nv),
            mean(&ni),
            ns[1500] / 1e3,
            CostModel::median_us(model, 3000, 20260924)
        );
    }
}
