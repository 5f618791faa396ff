//! Pins the kernel's real-time contract: `fk`, `check_self_collision` and `pair_witness`
//! never allocate, and are deterministic. A counting global allocator counts allocations made
//! on the test thread while thousands of configurations are checked on every model kind
//! (capsules, boxes, tight hulls of 64 and 152 vertices, a 29-DoF tree), with and without
//! the pair buffer and warm start, and witnesses are taken of every near pair.

mod common;

use collide::kernel::{CheckResult, Model};
use common::kernel_models::{Rng, humanoid29, mixed_tight_arm, panda, panda_tight, random_q};
#[path = "common/counting_alloc.rs"]
mod counting_alloc;

use counting_alloc::{Counting, counted};

#[global_allocator]
static GLOBAL: Counting = Counting;

fn run(m: &Model, qs: &[Vec<f64>], want_all: bool, warm: bool) -> (Vec<CheckResult>, Vec<f64>) {
    let mut ws = m.workspace();
    ws.set_warm_start(warm);
    let mut results = Vec::with_capacity(qs.len());
    let mut pair_sum = vec![0.0; m.checked_pairs().len()];
    let (_, allocs) = counted(|| {
        for q in qs {
            m.fk(q, &mut ws);
            let r = m.check_self_collision(q, &mut ws, want_all);
            // `results` has capacity for every entry: pushing does not allocate.
            results.push(r);
            if want_all {
                for (s, d) in pair_sum.iter_mut().zip(ws.pair_distances()) {
                    *s += d.min(1.0);
                }
            }
        }
    });
    assert_eq!(allocs, 0, "fk/check allocated {allocs} times");
    (results, pair_sum)
}

/// A check result with the minimum as raw bits, for bit-identity comparisons.
type Verdict = (bool, Option<(usize, usize)>, u64, Option<(usize, usize)>);

fn bits(r: &[CheckResult]) -> Vec<Verdict> {
    r.iter()
        .map(|c| {
            (
                c.tripped,
                c.first_tripping_pair,
                c.min_distance.to_bits(),
                c.min_pair,
            )
        })
        .collect()
}

#[test]
fn the_counter_counts() {
    let (v, n) = counted(|| vec![1u8; 16]);
    assert_eq!(v.len(), 16);
    assert!(n >= 1, "positive control: an allocation must be counted");
}

/// Every model kind the allocation tests run on.
fn models() -> [(&'static str, Model); 5] {
    [
        ("panda", panda()),
        ("humanoid29", humanoid29()),
        ("panda_tight152", panda_tight(152)),
        ("mixed_tight64", mixed_tight_arm(64, 0.01)),
        ("mixed_tight320", mixed_tight_arm(320, 0.0)),
    ]
}

#[test]
fn fk_and_check_do_not_allocate_and_are_deterministic() {
    let models = models();
    let mut rng = Rng(0x5eed_cafe_f00d_0001);
    for (name, m) in &models {
        let qs: Vec<Vec<f64>> = (0..2500).map(|_| random_q(m, &mut rng)).collect();
        let mut narrow = 0u64;
        let mut epa = 0u64;
        let mut tripped = 0usize;
        for (want_all, warm) in [(false, false), (true, false), (true, true), (false, true)] {
            let (a, sa) = run(m, &qs, want_all, warm);
            let (b, sb) = run(m, &qs, want_all, warm);
            assert_eq!(bits(&a), bits(&b), "{name}: not deterministic");
            assert_eq!(
                sa.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                sb.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
            );
            tripped = a.iter().filter(|r| r.tripped).count();
        }
        let mut ws = m.workspace();
        for q in &qs {
            m.check_self_collision(q, &mut ws, false);
            narrow += ws.stats().narrow as u64;
            epa += ws.stats().epa_steps as u64;
        }
        eprintln!(
            "{name}: {narrow} narrow-phase calls, {epa} expanding-polytope scans, {tripped} of 2500 configurations trip"
        );
        assert!(narrow > 0, "{name}: the narrow phase never ran");
        if name.contains("tight") {
            // Overlapping tight pairs run the expanding polytope, inside the counted calls.
            assert!(epa > 0, "{name}: the expanding polytope never ran");
        }
    }
}

/// The verdict-only check: no allocation, the same verdicts twice, on every model kind.
#[test]
fn verdict_does_not_allocate_and_is_deterministic() {
    let models = models();
    let mut rng = Rng(0x5eed_cafe_f00d_0003);
    for (name, m) in &models {
        let qs: Vec<Vec<f64>> = (0..1000).map(|_| random_q(m, &mut rng)).collect();
        let mut ws = m.workspace();
        let mut runs = [Vec::with_capacity(qs.len()), Vec::with_capacity(qs.len())];
        for out in &mut runs {
            let (_, allocs) = counted(|| {
                for q in &qs {
                    out.push(m.check_verdict(q, &mut ws, m.margin()));
                }
            });
            assert_eq!(allocs, 0, "{name}: check_verdict allocated {allocs} times");
        }
        assert_eq!(runs[0], runs[1], "{name}: not deterministic");
        assert!(runs[0].iter().any(|v| v.tripped), "{name}: nothing trips");
    }
}

/// `pair_witness` on every pair within 5 cm (overlapping ones included) and on the minimum
/// pair, on every model kind: no allocation, and the same answer twice.
#[test]
fn pair_witness_does_not_allocate() {
    let models = models();
    let mut rng = Rng(0x5eed_cafe_f00d_0002);
    for (name, m) in &models {
        let qs: Vec<Vec<f64>> = (0..500).map(|_| random_q(m, &mut rng)).collect();
        let mut ws = m.workspace();
        let mut out = Vec::with_capacity(qs.len() * m.checked_pairs().len());
        let (_, allocs) = counted(|| {
            for q in qs.iter() {
                let r = m.check_self_collision(q, &mut ws, true);
                for pi in 0..m.checked_pairs().len() {
                    if ws.pair_distances()[pi] <= 0.05 || Some(m.checked_pairs()[pi]) == r.min_pair
                    {
                        let w = m.pair_witness(pi, &ws, m.margin());
                        out.push((w.distance, w.point_a, w.point_b));
                    }
                }
            }
        });
        assert_eq!(allocs, 0, "{name}: pair_witness allocated {allocs} times");
        let overlapping = out.iter().filter(|w| w.0 < 0.0).count();
        eprintln!("{name}: {} witnesses, {overlapping} overlapping", out.len());
        assert!(
            !out.is_empty() && overlapping > 0,
            "{name}: nothing near to witness"
        );
        // Deterministic: the same witnesses again.
        let mut i = 0;
        for q in &qs {
            let r = m.check_self_collision(q, &mut ws, true);
            for pi in 0..m.checked_pairs().len() {
                if ws.pair_distances()[pi] <= 0.05 || Some(m.checked_pairs()[pi]) == r.min_pair {
                    let w = m.pair_witness(pi, &ws, m.margin());
                    let bits = |v: (f64, [f64; 3], [f64; 3])| {
                        [v.0, v.1[0], v.1[1], v.1[2], v.2[0], v.2[1], v.2[2]].map(f64::to_bits)
                    };
                    assert_eq!(bits((w.distance, w.point_a, w.point_b)), bits(out[i]));
                    i += 1;
                }
            }
        }
    }
}
