//! Writes one link's report picture (truth silhouette and primitives, three views) as a
//! standalone SVG, e.g. for the README.
//!
//! `cargo run --release --example report_figure -- MANIFEST LINK OUT.svg`

use collide::io::robot::LoadOptions;
use collide::io::robot::ReadOptions;
use collide::report::svg::figure;
use collide::sweep::prepare;
use std::path::Path;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [manifest, link, out] = args.as_slice() else {
        eprintln!("usage: report_figure MANIFEST LINK OUT.svg");
        std::process::exit(2);
    };
    let p = prepare(
        Path::new(manifest),
        &[],
        &ReadOptions::new(LoadOptions::default()),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let l = p
        .manifest
        .links
        .iter()
        .find(|l| &l.name == link)
        .unwrap_or_else(|| panic!("no link `{link}` in {manifest}"));
    let title = format!(
        "{} / {}: {} ({} primitives), mean protrusion {:.1} mm",
        p.manifest.robot,
        l.name,
        l.fit.choice.as_str(),
        l.primitives.len(),
        l.fit.mean_protrusion_m * 1e3
    );
    std::fs::write(out, figure(&p.meshes[&l.name], &l.primitives, &title)).unwrap();
    eprintln!("wrote {out}");
}
