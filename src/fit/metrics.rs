//! Fit metrics on written primitives: volume over the link's hull volume
//! (Monte Carlo for unions, fixed seed, one random stream per block of samples
//! so the figure never depends on threads), and support-function protrusion
//! over the link's hull.

use super::{Metrics, Primitive};
use crate::geom::containment;
use crate::geom::support;
use crate::geom::v3::{self, M3, V3};
use rand_core::Rng;

/// Samples per random stream; stream `b` serves samples `b*BLOCK ..`.
const BLOCK: usize = 4096;

/// Support of the primitive set in direction `u`. A tight box counts as its
/// box (the broad phase); its hull's figures are reported separately.
pub fn support(prims: &[Primitive], u: V3) -> f64 {
    prims
        .iter()
        .map(|p| match p {
            Primitive::Capsule(c) => c.support(u),
            Primitive::Box(b) => support::boxed(b.center, &b.rotation(), b.half_extents, u),
            Primitive::TightBox(t) => {
                support::boxed(t.bbox.center, &t.bbox.rotation(), t.bbox.half_extents, u)
            }
        })
        .fold(f64::NEG_INFINITY, f64::max)
}

enum Shape {
    Capsule(V3, V3, f64),
    Box(V3, M3, V3),
}

impl Shape {
    fn of(p: &Primitive) -> Shape {
        match p {
            Primitive::Capsule(c) => Shape::Capsule(c.a, c.b, c.radius),
            Primitive::Box(b) => Shape::Box(b.center, b.rotation(), b.half_extents),
            Primitive::TightBox(t) => {
                Shape::Box(t.bbox.center, t.bbox.rotation(), t.bbox.half_extents)
            }
        }
    }
    fn volume(&self) -> f64 {
        match self {
            Shape::Capsule(a, b, r) => {
                let pi = std::f64::consts::PI;
                pi * r * r * v3::dist(*a, *b) + 4.0 / 3.0 * pi * r * r * r
            }
            Shape::Box(_, _, he) => 8.0 * he[0] * he[1] * he[2],
        }
    }
    fn contains(&self, p: V3) -> bool {
        match self {
            Shape::Capsule(a, b, r) => containment::capsule_depth(*a, *b, *r, p) >= 0.0,
            Shape::Box(c, rot, he) => containment::box_depth(*c, rot, *he, p) >= 0.0,
        }
    }
    fn aabb(&self) -> (V3, V3) {
        match self {
            Shape::Capsule(a, b, r) => {
                let lo = [a[0].min(b[0]) - r, a[1].min(b[1]) - r, a[2].min(b[2]) - r];
                let hi = [a[0].max(b[0]) + r, a[1].max(b[1]) + r, a[2].max(b[2]) + r];
                (lo, hi)
            }
            Shape::Box(c, rot, he) => {
                let mut ext = [0.0; 3];
                for (i, e) in ext.iter_mut().enumerate() {
                    *e =
                        rot[i][0].abs() * he[0] + rot[i][1].abs() * he[1] + rot[i][2].abs() * he[2];
                }
                (v3::sub(*c, ext), v3::add(*c, ext))
            }
        }
    }
}

/// Volume of the union of the primitives: exact for one, Monte Carlo over the
/// union's bounding box for several (`samples` points, `seed`).
pub fn union_volume(prims: &[Primitive], samples: usize, seed: u64) -> f64 {
    let shapes: Vec<Shape> = prims.iter().map(Shape::of).collect();
    match shapes.len() {
        0 => 0.0,
        1 => shapes[0].volume(),
        _ => {
            let mut lo = [f64::INFINITY; 3];
            let mut hi = [f64::NEG_INFINITY; 3];
            for s in &shapes {
                let (a, b) = s.aabb();
                for k in 0..3 {
                    lo[k] = lo[k].min(a[k]);
                    hi[k] = hi[k].max(b[k]);
                }
            }
            let size = v3::sub(hi, lo);
            let box_vol = size[0] * size[1] * size[2];
            let samples = samples.max(1);
            let mut inside = 0usize;
            let unit = |x: u64| (x >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
            for block in 0..samples.div_ceil(BLOCK) {
                let mut rng = rand_pcg::Pcg64::new(
                    0xcafe_f00d_d15e_a5e5_u128 ^ ((seed as u128) << 64),
                    block as u128,
                );
                let n = BLOCK.min(samples - block * BLOCK);
                for _ in 0..n {
                    let p = [
                        lo[0] + size[0] * unit(rng.next_u64()),
                        lo[1] + size[1] * unit(rng.next_u64()),
                        lo[2] + size[2] * unit(rng.next_u64()),
                    ];
                    if shapes.iter().any(|s| s.contains(p)) {
                        inside += 1;
                    }
                }
            }
            box_vol * inside as f64 / samples as f64
        }
    }
}

/// Metrics of a written primitive set against the link hull (`hull_support`
/// holds `h_hull(u)` for each of `dirs`). Figures are exact here; rounding to
/// the written 4 decimals happens in [`Metrics::written`].
pub fn measure(
    prims: &[Primitive],
    dirs: &[V3],
    hull_support: &[f64],
    hull_volume: f64,
    samples: usize,
    seed: u64,
    min_margin_m: f64,
) -> Metrics {
    let volume = union_volume(prims, samples, seed);
    let (max, mean) = support::excess_stats(dirs, |u| support(prims, u), hull_support);
    Metrics {
        vol_ratio: if hull_volume > 1e-15 {
            Some(volume / hull_volume)
        } else {
            None
        },
        max_protrusion_m: max,
        mean_protrusion_m: mean,
        min_margin_m,
    }
}
