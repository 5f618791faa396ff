//! Where climbing pays: the hull–hull GJK (`hull_hull_gjk`) cold and warm on two hulls of
//! 32–320 points on ellipsoids (rounded to 1 µm, as manifests write them), once with
//! climbing graphs forced on and once scanning (main's support path), in one run: 1024
//! seeded placements near contact (gap −1 to +3 cm; warm: a closed path of small steps
//! carrying the witness), median ns per call of 15 passes.
//! `cargo run --release -p collide-kernel --example climb_crossover`.

use collide::kernel::climb::Graph;
use collide::kernel::distance_hull_hull::hull_hull_gjk;
use collide::kernel::gjk::Witness;
use collide::kernel::shapes::Hull;
use collide::kernel::vec3::{IDENTITY, V3, rot_from_rpy};
use std::time::Instant;

/// Deterministic uniform numbers in [-1, 1).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
}

fn ellipsoid(rng: &mut Rng, n: usize) -> Hull {
    let pts: Vec<V3> = (0..n)
        .map(|_| {
            let q = [rng.next(), rng.next(), rng.next()];
            let l = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2]).sqrt().max(1e-9);
            [0.06 * q[0] / l, 0.04 * q[1] / l, 0.1 * q[2] / l].map(|c| (c * 1e6).round() / 1e6)
        })
        .collect();
    Hull::from_points(&pts)
}

fn routines_with(force: Option<bool>) {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for n in [32usize, 64, 96, 128, 152, 160, 200, 256, 320] {
        let (mut a, mut b) = (ellipsoid(&mut rng, n), ellipsoid(&mut rng, n));
        for h in [&mut a, &mut b] {
            h.graph = match force {
                Some(true) => Graph::build(&h.points()),
                _ => None,
            };
        }
        let m = 1024;
        let poses: Vec<(V3, V3)> = (0..m)
            .map(|k| {
                let t = 2.0 * std::f64::consts::PI * k as f64 / m as f64;
                let rpy = [rng.next() * 3.0, rng.next() * 3.0, rng.next() * 3.0];
                let dir = [t.cos(), t.sin(), 0.3 * (2.0 * t).sin()];
                // Centre distance: about the sum of the reaches along dir, then −1 to +3 cm.
                let gap = 0.01 + 0.02 * rng.next();
                (rpy, dir.map(|c| c * (0.16 + gap)))
            })
            .collect();
        let warm_path: Vec<(V3, V3)> = (0..m)
            .map(|k| {
                let t = 2.0 * std::f64::consts::PI * k as f64 / m as f64;
                let rpy = [0.3 * t.sin(), 0.5 * t.cos(), 0.2 * t];
                let dir = [t.cos(), t.sin(), 0.3 * (2.0 * t).sin()];
                (rpy, dir.map(|c| c * (0.16 + 0.01 * (3.0 * t).sin())))
            })
            .collect();
        let pa = a.posed(IDENTITY, [0.0; 3]);
        let time = |warm: bool| {
            let path = if warm { &warm_path } else { &poses };
            let mut runs = Vec::new();
            let mut w = Witness::default();
            for _ in 0..15 {
                let t0 = Instant::now();
                for (rpy, pos) in path {
                    let pb = b.posed(rot_from_rpy(*rpy), *pos);
                    let g = if warm {
                        hull_hull_gjk(&pa, &pb, *pos, Some(&mut w))
                    } else {
                        hull_hull_gjk(&pa, &pb, *pos, None)
                    };
                    std::hint::black_box(g);
                }
                runs.push(t0.elapsed().as_secs_f64() * 1e9 / path.len() as f64);
            }
            runs.sort_by(f64::total_cmp);
            runs[runs.len() / 2]
        };
        println!(
            "{}: hull–hull GJK, {n} vertices: cold {:.0} ns, warm {:.0} ns",
            if force == Some(true) {
                "climb"
            } else {
                "scan "
            },
            time(false),
            time(true)
        );
    }
}

fn main() {
    for _ in 0..2 {
        routines_with(Some(false));
        routines_with(Some(true));
    }
}
