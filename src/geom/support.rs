//! Support functions `h_S(u) = max_{x in S} u . x` of the primitive kinds, and
//! the Fibonacci direction set the protrusion metrics average over.

use super::v3::{self, Mat3, V3};

/// `n` unit directions spread evenly over the sphere (golden-angle spiral).
/// Deterministic: the same `n` always gives the same directions.
pub fn fibonacci_directions(n: usize) -> Vec<V3> {
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    (0..n)
        .map(|i| {
            let z = 1.0 - (2.0 * i as f64 + 1.0) / n as f64;
            let r = (1.0 - z * z).max(0.0).sqrt();
            let phi = golden * i as f64;
            let (s, c) = phi.sin_cos();
            [r * c, r * s, z]
        })
        .collect()
}

/// Capsule (segment `a`-`b`, radius `r`) support.
#[inline]
pub fn capsule(a: V3, b: V3, r: f64, u: V3) -> f64 {
    v3::dot(a, u).max(v3::dot(b, u)) + r * v3::norm(u)
}

/// Oriented box support; `rot` columns are the box axes in the outer frame.
#[inline]
pub fn boxed(center: V3, rot: &Mat3, half_extents: V3, u: V3) -> f64 {
    let l = v3::mul_mtv(rot, u);
    v3::dot(center, u)
        + half_extents[0] * l[0].abs()
        + half_extents[1] * l[1].abs()
        + half_extents[2] * l[2].abs()
}

/// Point-set (hull) support.
#[inline]
pub fn points(p: &[V3], u: V3) -> f64 {
    p.iter()
        .map(|q| v3::dot(*q, u))
        .fold(f64::NEG_INFINITY, f64::max)
}

/// Max and mean of `h_P(u) - h_ref(u)` over `dirs`, given both supports per direction.
pub fn excess_stats(dirs: &[V3], mut prim: impl FnMut(V3) -> f64, reference: &[f64]) -> (f64, f64) {
    let mut max = f64::NEG_INFINITY;
    let mut sum = 0.0;
    for (u, r) in dirs.iter().zip(reference) {
        let e = prim(*u) - r;
        max = max.max(e);
        sum += e;
    }
    if dirs.is_empty() {
        (0.0, 0.0)
    } else {
        (max, sum / dirs.len() as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fibonacci_is_unit_and_balanced() {
        let d = fibonacci_directions(1024);
        let mut s = [0.0; 3];
        for u in &d {
            assert!((v3::norm(*u) - 1.0).abs() < 1e-12);
            s = v3::add(s, *u);
        }
        assert!(v3::norm(s) / 1024.0 < 1e-3);
    }

    #[test]
    fn box_support_matches_corners() {
        let rot = v3::rot_from_rpy([0.3, -0.2, 1.1]);
        let c = [0.1, 0.2, 0.3];
        let he = [0.5, 0.2, 0.1];
        for u in fibonacci_directions(50) {
            let mut best = f64::NEG_INFINITY;
            for sx in [-1.0, 1.0] {
                for sy in [-1.0, 1.0] {
                    for sz in [-1.0, 1.0] {
                        let p = v3::add(c, v3::mul_mv(&rot, [sx * he[0], sy * he[1], sz * he[2]]));
                        best = best.max(v3::dot(p, u));
                    }
                }
            }
            assert!((boxed(c, &rot, he, u) - best).abs() < 1e-12);
        }
    }
}
