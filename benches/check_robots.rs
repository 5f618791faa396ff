//! `check_self_collision` per configuration on real robots from example-robot-data: the Franka
//! Panda and the Unitree G1 29-dof, each with three primitive sets (one capsule per link, the
//! committed manifest's fit, box + 26-DOP + hull on every link), over 20,000 seeded uniform
//! in-limit configurations.
//!
//! Run: `make robots` once, then
//! `cargo bench --bench check_robots -- --warm-up-time 1 --measurement-time 2`.
//!
//! Criterion measures one call per iteration, cycling through the configurations. Afterwards
//! a markdown table for docs/kernel.md is printed from this process's own per-call timing.

use collide::io::robot::LoadOptions;
use collide::io::robot::ReadOptions;
use collide::kernel::Model;
use collide::sweep::{self, Set};
use collide::truth::poses::uniform_q;
use criterion::Criterion;
use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

const CONFIGS: usize = 20_000;
const SEED: u64 = sweep::DEFAULT_SEED;
const SETS: [Set; 3] = Set::ALL;

/// (short name, manifest under the package root, target median µs for one primitive per link).
const ROBOTS: [(&str, &str, &str); 2] = [
    ("panda", "robots/franka_panda/manifest.yaml", "< 2"),
    ("g1", "robots/g1_29dof/manifest.yaml", "< 20"),
];

struct Case {
    robot: &'static str,
    target: &'static str,
    set: Set,
    model: Model,
    /// `CONFIGS` configurations back to back, `model.dof()` values each.
    qs: Vec<f64>,
}

impl Case {
    fn configs(&self) -> std::slice::ChunksExact<'_, f64> {
        self.qs.chunks_exact(self.model.dof())
    }
}

fn load(root: &Path) -> Vec<Case> {
    let read = ReadOptions::new(LoadOptions::default());
    let mut cases = Vec::new();
    for (robot, manifest, target) in ROBOTS {
        let started = Instant::now();
        let prepared = sweep::prepare(&root.join(manifest), &SETS, &read)
            .unwrap_or_else(|e| panic!("preparing {manifest}: {e}"));
        eprintln!(
            "{robot}: {} sets prepared in {:.1} s",
            prepared.sets.len(),
            started.elapsed().as_secs_f64()
        );
        for s in prepared.sets {
            let model = s.kernel.model;
            let dof = model.dof();
            // Every set keeps the manifest's joints, so a configuration is the same across sets.
            let mut qs = vec![0.0; CONFIGS * dof];
            for (i, q) in qs.chunks_exact_mut(dof).enumerate() {
                uniform_q(&model, SEED, i as u64, q);
            }
            cases.push(Case {
                robot,
                target,
                set: s.set,
                model,
                qs,
            });
        }
    }
    cases
}

/// Per-call figures from timing each configuration alone.
struct Timed {
    median_us: f64,
    p99_us: f64,
    mean_narrow: f64,
    tripped: f64,
}

fn time_each(case: &Case) -> Timed {
    let m = &case.model;
    let mut ws = m.workspace();
    // Untimed pass first, so the first timed calls do not pay for cold caches and page faults.
    for q in case.configs() {
        black_box(m.check_self_collision(black_box(q), &mut ws, false));
    }
    let mut ns = vec![u64::MAX; CONFIGS];
    let (mut narrow, mut trips) = (0u64, 0usize);
    // Two separate passes, the lesser kept per configuration (as `collide sweep` does): on a
    // shared machine a pre-emption lands in some calls, rarely in both. Separate passes rather
    // than back-to-back calls, so the second call does not find the same query's branches and
    // data already hot.
    for pass in 0..2 {
        for (t, q) in ns.iter_mut().zip(case.configs()) {
            let start = Instant::now();
            let r = m.check_self_collision(black_box(q), &mut ws, false);
            *t = (*t).min(start.elapsed().as_nanos() as u64);
            if pass == 0 {
                narrow += u64::from(ws.stats().narrow);
                trips += usize::from(black_box(r).tripped);
            }
        }
    }
    ns.sort_unstable();
    let at = |p: f64| ns[((p * CONFIGS as f64).ceil() as usize).clamp(1, CONFIGS) - 1] as f64 / 1e3;
    Timed {
        median_us: at(0.5),
        p99_us: at(0.99),
        mean_narrow: narrow as f64 / CONFIGS as f64,
        tripped: trips as f64 / CONFIGS as f64,
    }
}

fn print_table(cases: &[Case]) {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    let nproc = std::thread::available_parallelism().map_or(0, |n| n.get());
    // The machine may be shared: the load average says how much the numbers can be trusted.
    let load = std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into());
    println!();
    println!(
        "check_self_collision per configuration, real robots ({CONFIGS} uniform in-limit configurations, seed {SEED}; each call timed alone with Instant, which adds ~20–30 ns, the lesser of two passes kept)"
    );
    println!(
        "Machine: `nproc` = {nproc}, model name \"{cpu}\", load average {load} (before the table), date {} (UTC).",
        today_utc()
    );
    println!(
        "Targets (median, one primitive per link = the single-capsule set): Panda-class arm < 2 µs, G1-class humanoid < 20 µs."
    );
    println!();
    println!(
        "| robot | set | links with primitives | primitives | checked pairs | median µs | p99 µs | target (median µs) | mean narrow-phase primitive pairs per call | configurations tripped |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for case in cases {
        let m = &case.model;
        let per_link: Vec<usize> = (0..m.n_links())
            .map(|l| m.primitive_indices(l).count())
            .collect();
        let t = time_each(case);
        let target = if case.set == Set::SingleCapsule {
            case.target
        } else {
            ""
        };
        println!(
            "| {} | {} | {} | {} | {} | {:.2} | {:.2} | {target} | {:.1} | {:.0} % |",
            case.robot,
            case.set.as_str(),
            per_link.iter().filter(|&&n| n > 0).count(),
            per_link.iter().sum::<usize>(),
            m.checked_pairs().len(),
            t.median_us,
            t.p99_us,
            t.mean_narrow,
            100.0 * t.tripped,
        );
    }
}

/// Today's date, UTC, as YYYY-MM-DD (civil-from-days, proleptic Gregorian).
fn today_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    if !root.join(".robots/installed").is_file() {
        println!("check_robots: real robots are not installed, run `make robots` first; skipped");
        return;
    }
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    let cases = load(root);
    {
        let mut g = c.benchmark_group("check");
        for case in &cases {
            let m = &case.model;
            let mut ws = m.workspace();
            // Cycling through many configurations keeps branch prediction from memorising one.
            let mut configs = case.configs().cycle();
            g.bench_function(format!("{}/{}", case.robot, case.set.as_str()), |b| {
                b.iter(|| {
                    let q = configs.next().expect("cycle is endless");
                    m.check_self_collision(black_box(q), &mut ws, false)
                })
            });
        }
        g.finish();
    }
    // `cargo test --benches` runs this binary without `--bench`: criterion then only checks
    // each routine once, and the 20,000-call table would be wasted time.
    let args: Vec<String> = std::env::args().collect();
    let benchmarking =
        args.iter().any(|a| a == "--bench") && !args.iter().any(|a| a == "--test" || a == "--list");
    if benchmarking {
        print_table(&cases);
    }
    c.final_summary();
}
