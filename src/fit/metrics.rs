//! Fit metrics on written primitives: volume over the link's hull volume
//! (Monte Carlo for unions, fixed seed, one random stream per block of samples
//! so the figure never depends on threads), and support-function protrusion
//! over the link's hull.

use super::{Metrics, Primitive};
use crate::geom::point::Solid;
use crate::geom::support;
use crate::geom::v3::{self, Mat3, V3};
use rand_core::Rng;

/// Samples per random stream; stream `b` serves samples `b*BLOCK ..`.
const BLOCK: usize = 4096;

/// Support of the primitive set in direction `u`. A tight box counts as its
/// hull: the kernel decides a tight pair on the hulls, the box only skips work.
pub fn support(prims: &[Primitive], u: V3) -> f64 {
    prims
        .iter()
        .map(|p| match p {
            Primitive::Capsule(c) => c.support(u),
            Primitive::Box(b) => support::boxed(b.center, &b.rotation(), b.half_extents, u),
            Primitive::TightBox(t) => crate::geom::hull::support_points(&t.hull, u),
        })
        .fold(f64::NEG_INFINITY, f64::max)
}

/// A primitive prepared for sampling and membership tests: its point query, its volume,
/// and where uniform points of it are drawn from.
struct Shape {
    solid: Solid,
    volume: f64,
    sampler: Sampler,
}

/// Uniform points of a shape from three uniform numbers in [0, 1).
enum Sampler {
    /// First end, radius, unit axis, a basis of its normal plane, length.
    Capsule {
        a: V3,
        r: f64,
        d: V3,
        e1: V3,
        e2: V3,
        l: f64,
    },
    /// The box holding the shape (the shape itself for a box; a hull rejects outside).
    Box(V3, Mat3, V3),
}

impl Sampler {
    /// The volume the three uniform numbers are spread over.
    fn volume(&self) -> f64 {
        match self {
            Sampler::Capsule { r, l, .. } => (l + 2.0 * r) * 4.0 * r * r,
            Sampler::Box(_, _, he) => 8.0 * he[0] * he[1] * he[2],
        }
    }
}

impl Shape {
    fn of(p: &Primitive) -> Shape {
        match p {
            Primitive::Capsule(c) => {
                let d = v3::normalize(v3::sub(c.b, c.a)).unwrap_or([0.0, 0.0, 1.0]);
                let (e1, e2) = v3::orthonormal_basis(d);
                let (r, l) = (c.radius, v3::dist(c.a, c.b));
                let pi = std::f64::consts::PI;
                Shape {
                    solid: Solid::capsule(c.a, c.b, c.radius),
                    volume: pi * r * r * l + 4.0 / 3.0 * pi * r * r * r,
                    sampler: Sampler::Capsule {
                        a: c.a,
                        r,
                        d,
                        e1,
                        e2,
                        l,
                    },
                }
            }
            Primitive::Box(b) => Self::cuboid(b.center, b.rotation(), b.half_extents),
            Primitive::TightBox(t) => {
                let (c, rot, he) = (t.bbox.center, t.bbox.rotation(), t.bbox.half_extents);
                match Solid::hull(&t.hull) {
                    Ok(solid) => Shape {
                        solid,
                        volume: crate::geom::hull::Hull::new(&t.hull).volume,
                        sampler: Sampler::Box(c, rot, he),
                    },
                    // A hull that cannot be rebuilt is measured as its box (never smaller).
                    Err(_) => Self::cuboid(c, rot, he),
                }
            }
        }
    }

    fn cuboid(c: V3, rot: Mat3, he: V3) -> Shape {
        Shape {
            solid: Solid::cuboid(c, rot, he),
            volume: 8.0 * he[0] * he[1] * he[2],
            sampler: Sampler::Box(c, rot, he),
        }
    }

    fn contains(&self, p: V3) -> bool {
        self.solid.depth(p) >= 0.0
    }

    /// A point of the shape from three uniform numbers in [0, 1), uniform
    /// over the shape when rejections (`None`) are skipped.
    fn sample(&self, u: V3) -> Option<V3> {
        match &self.sampler {
            Sampler::Capsule { a, r, d, e1, e2, l } => {
                let t = -r + (l + 2.0 * r) * u[0];
                let x = -r + 2.0 * r * u[1];
                let y = -r + 2.0 * r * u[2];
                // Inside iff within r of the segment [0, l] along d.
                let dt = if t < 0.0 {
                    t
                } else if t > *l {
                    t - l
                } else {
                    0.0
                };
                if dt * dt + x * x + y * y > r * r {
                    return None;
                }
                Some(v3::add(
                    v3::add(v3::axpy(*a, t, *d), v3::scale(*e1, x)),
                    v3::scale(*e2, y),
                ))
            }
            Sampler::Box(c, rot, he) => {
                let l = [
                    he[0] * (2.0 * u[0] - 1.0),
                    he[1] * (2.0 * u[1] - 1.0),
                    he[2] * (2.0 * u[2] - 1.0),
                ];
                let p = v3::add(*c, v3::mul_mv(rot, l));
                // Rejection from the box that holds a hull.
                (!matches!(self.solid, Solid::Hull(_)) || self.contains(p)).then_some(p)
            }
        }
    }
}

/// The least share of its sampler's volume a shape must fill for [`union_volume`] to
/// sample it by rejection (a hull fills a sixth of its box or more unless it is flat).
const MIN_ACCEPTANCE: f64 = 1.0 / 64.0;

/// Volume of the union of the primitives: exact for one; for several,
/// `V = Σ_i V_i · P(a uniform point of shape i lies in no shape j < i)`, each
/// probability estimated from `samples / n` points drawn uniformly inside
/// shape i (rejection from its own bounding box). Chains overlap little, so
/// this is far more precise than sampling the union's bounding box.
pub fn union_volume(prims: &[Primitive], samples: usize, seed: u64) -> f64 {
    let shapes: Vec<Shape> = prims.iter().map(Shape::of).collect();
    if shapes.len() <= 1 {
        return shapes.first().map_or(0.0, |s| s.volume);
    }
    let per = (samples / shapes.len()).max(1);
    let unit = |x: u64| (x >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
    let mut total = 0.0;
    for (i, s) in shapes.iter().enumerate() {
        if i == 0 {
            total += s.volume;
            continue;
        }
        // A flat or needle-thin hull fills almost none of its box: rejection would draw for
        // minutes. It counts whole (an upper estimate of a volume about zero anyway).
        if s.volume <= s.sampler.volume() * MIN_ACCEPTANCE {
            total += s.volume;
            continue;
        }
        let mut drawn = 0usize;
        let mut fresh = 0usize;
        let mut block = 0u128;
        while drawn < per {
            let mut rng = rand_pcg::Pcg64::new(
                0xcafe_f00d_d15e_a5e5_u128 ^ ((seed as u128) << 64),
                ((i as u128) << 64) | block,
            );
            block += 1;
            for _ in 0..BLOCK {
                if drawn >= per {
                    break;
                }
                let r = [
                    unit(rng.next_u64()),
                    unit(rng.next_u64()),
                    unit(rng.next_u64()),
                ];
                let Some(p) = s.sample(r) else { continue };
                drawn += 1;
                if !shapes[..i].iter().any(|o| o.contains(p)) {
                    fresh += 1;
                }
            }
        }
        total += s.volume * fresh as f64 / per as f64;
    }
    total
}

/// Metrics of a written primitive set against the link hull (`hull_support`
/// holds `h_hull(u)` for each of `dirs`). Figures are exact here; rounding to
/// the written 4 decimals happens in `Metrics::written`.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fit::rounding::BoxPrim;
    use crate::geom::capsule::Capsule;

    fn bx(c: V3, he: V3) -> Primitive {
        Primitive::Box(BoxPrim {
            center: c,
            rpy: [0.0; 3],
            half_extents: he,
        })
    }

    #[test]
    fn union_volume_of_overlapping_boxes() {
        // Two unit cubes overlapping by half: 1.5.
        let v = union_volume(
            &[bx([0.0; 3], [0.5; 3]), bx([0.5, 0.0, 0.0], [0.5; 3])],
            100_000,
            7,
        );
        assert!((v - 1.5).abs() < 0.01, "{v}");
        // Disjoint capsules: the sum, exactly (no sample lands in the other).
        let c1 = Capsule {
            a: [0.0; 3],
            b: [1.0, 0.0, 0.0],
            radius: 0.1,
        };
        let c2 = Capsule {
            a: [0.0, 1.0, 0.0],
            b: [1.0, 1.0, 0.0],
            radius: 0.2,
        };
        let v = union_volume(&[Primitive::Capsule(c1), Primitive::Capsule(c2)], 10_000, 7);
        assert!((v - c1.volume() - c2.volume()).abs() < 1e-12);
        // Identical: one.
        let v = union_volume(&[Primitive::Capsule(c1), Primitive::Capsule(c1)], 10_000, 7);
        assert!((v - c1.volume()).abs() < 1e-12);
        // Deterministic.
        let p = [bx([0.0; 3], [0.5; 3]), bx([0.3, 0.2, 0.0], [0.5; 3])];
        assert_eq!(union_volume(&p, 5000, 1), union_volume(&p, 5000, 1));
    }
}
