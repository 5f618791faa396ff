//! The 26-DOP: the intersection of 26 halfspaces `u_k . x <= d_k`, `x` in the
//! box frame (relative to the box centre, box axes as coordinate axes).
//!
//! Direction order (what `dop26: [...]` in the manifest means, index by index):
//! the kernel's, documented in `src/kernel/dop26.rs` and `docs/manifest.md`.
//!
//! All directions are unit vectors, so `d_k` is a distance in metres.

use super::v3::{self, Mat3, V3};

#[cfg(test)]
const S2: f64 = std::f64::consts::FRAC_1_SQRT_2;
/// 1/√3 to the nearest f64.
#[cfg(test)]
const S3: f64 = 0.577_350_269_189_625_8;

/// The 26 unit directions: the kernel's, which the manifest's `dop26` follows.
pub use crate::kernel::dop26::DIRECTIONS as DIRS;

/// `p` (link frame) in the box frame relative to the box centre.
#[inline]
pub fn to_box(center: V3, rot: &Mat3, p: V3) -> V3 {
    v3::mul_mtv(rot, v3::sub(p, center))
}

/// Exact support values of `points` over the 26 directions, in the box frame.
pub fn support_values(points: &[V3], center: V3, rot: &Mat3) -> [f64; 26] {
    let mut d = [f64::NEG_INFINITY; 26];
    for p in points {
        let l = to_box(center, rot, *p);
        for (dk, u) in d.iter_mut().zip(DIRS.iter()) {
            *dk = dk.max(v3::dot(*u, l));
        }
    }
    d
}

/// Signed depth of `p` (link frame) inside the DOP: `min_k (d_k - u_k . x)`.
/// Non-negative iff inside; for a point outside, a lower bound on how far
/// outside it is not claimed (only the sign is used).
pub fn depth(dop: &[f64; 26], center: V3, rot: &Mat3, p: V3) -> f64 {
    let l = to_box(center, rot, p);
    DIRS.iter()
        .zip(dop)
        .map(|(u, d)| d - v3::dot(*u, l))
        .fold(f64::INFINITY, f64::min)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_directions_and_cube() {
        for u in DIRS {
            assert!((v3::norm(u) - 1.0).abs() < 1e-15);
        }
        let mut pts = Vec::new();
        for x in [-1.0, 1.0] {
            for y in [-1.0, 1.0] {
                for z in [-1.0, 1.0] {
                    pts.push([x, y, z]);
                }
            }
        }
        let d = support_values(&pts, [0.0; 3], &v3::IDENTITY);
        assert_eq!(&d[..6], &[1.0; 6]);
        assert!((d[6] - 2.0 * S2).abs() < 1e-15);
        assert!((d[18] - 3.0 * S3).abs() < 1e-15);
        assert_eq!(depth(&d, [0.0; 3], &v3::IDENTITY, [0.0; 3]), 1.0);
        assert!(depth(&d, [0.0; 3], &v3::IDENTITY, [1.1, 0.0, 0.0]) < 0.0);
    }
}
