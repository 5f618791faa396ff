//! Plain `[f64; 3]` vector and row-major 3x3 matrix arithmetic for the hot path.
//!
//! No SIMD crate and no nalgebra: every routine of the kernel is written against these
//! helpers so that the module tree can be lifted out with std alone. All functions are
//! `#[inline]` and free of allocation.
//!
//! Conventions: a [`Mat3`] is row-major (`m[row][col]`). A rotation matrix maps child-frame
//! coordinates to parent-frame coordinates, so its *columns* are the child axes expressed in
//! the parent frame. An [`Iso`] is `x_parent = rot * x_child + pos`.

/// A 3-vector.
pub type V3 = [f64; 3];
/// A row-major 3x3 matrix, `m[row][col]`.
pub type Mat3 = [[f64; 3]; 3];

/// The identity matrix.
pub const IDENTITY: Mat3 = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

/// `a` when `c`, else `b`, without a branch (callers on GJK's serial chain and in the
/// support-table lookup, where a mispredicted branch costs more than both operands).
#[inline(always)]
pub fn select(c: bool, a: f64, b: f64) -> f64 {
    f64::from_bits(
        (a.to_bits() & (c as u64).wrapping_neg()) | (b.to_bits() & (!c as u64).wrapping_neg()),
    )
}

#[inline(always)]
pub fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

#[inline(always)]
pub fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

#[inline(always)]
pub fn scale(a: V3, s: f64) -> V3 {
    [a[0] * s, a[1] * s, a[2] * s]
}

#[inline(always)]
pub fn neg(a: V3) -> V3 {
    [-a[0], -a[1], -a[2]]
}

#[inline(always)]
pub fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[inline(always)]
pub fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

#[inline(always)]
pub fn norm2(a: V3) -> f64 {
    dot(a, a)
}

#[inline(always)]
pub fn norm(a: V3) -> f64 {
    dot(a, a).sqrt()
}

/// `a + s * b`.
#[inline(always)]
pub fn axpy(a: V3, s: f64, b: V3) -> V3 {
    [a[0] + s * b[0], a[1] + s * b[1], a[2] + s * b[2]]
}

/// `m * v`.
#[inline(always)]
pub fn mul_mv(m: &Mat3, v: V3) -> V3 {
    [dot(m[0], v), dot(m[1], v), dot(m[2], v)]
}

/// `mᵀ * v`.
#[inline(always)]
pub fn mul_mtv(m: &Mat3, v: V3) -> V3 {
    [
        m[0][0] * v[0] + m[1][0] * v[1] + m[2][0] * v[2],
        m[0][1] * v[0] + m[1][1] * v[1] + m[2][1] * v[2],
        m[0][2] * v[0] + m[1][2] * v[1] + m[2][2] * v[2],
    ]
}

/// `a * b`.
#[inline(always)]
pub fn mul_mm(a: &Mat3, b: &Mat3) -> Mat3 {
    let mut r = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            r[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j];
        }
    }
    r
}

/// `aᵀ * b`.
#[inline(always)]
pub fn mul_mtm(a: &Mat3, b: &Mat3) -> Mat3 {
    let mut r = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            r[i][j] = a[0][i] * b[0][j] + a[1][i] * b[1][j] + a[2][i] * b[2][j];
        }
    }
    r
}

/// Column `j` of `m`.
#[inline(always)]
pub fn col(m: &Mat3, j: usize) -> V3 {
    [m[0][j], m[1][j], m[2][j]]
}

/// Transpose.
#[inline(always)]
pub fn transpose(m: &Mat3) -> Mat3 {
    [
        [m[0][0], m[1][0], m[2][0]],
        [m[0][1], m[1][1], m[2][1]],
        [m[0][2], m[1][2], m[2][2]],
    ]
}

/// URDF rotation from roll, pitch, yaw: `R = Rz(yaw) · Ry(pitch) · Rx(roll)`.
pub fn rot_from_rpy(rpy: V3) -> Mat3 {
    let (sr, cr) = rpy[0].sin_cos();
    let (sp, cp) = rpy[1].sin_cos();
    let (sy, cy) = rpy[2].sin_cos();
    [
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ]
}

/// Roll, pitch, yaw of a proper rotation: the inverse of [`rot_from_rpy`], pitch in
/// [-π/2, π/2]. Exact to rounding at every pitch, ±90° included: yaw comes from the first
/// column, then `M = Rz(-yaw) · R = Ry(pitch) · Rx(roll)` gives the pitch as an atan2 of
/// (sin, cos) and the roll from `M`'s second row (entries of size one however small
/// cos(pitch) is). An arcsine for the pitch, or a roll from the third row, loses about
/// 4e-8 rad near ±90°. At a locked pitch (first column zero) the yaw is 0 and the roll
/// carries what the rotation keeps of both.
pub fn rpy_from_rot(m: &Mat3) -> V3 {
    let yaw = m[1][0].atan2(m[0][0]);
    let (sy, cy) = yaw.sin_cos();
    let cos_pitch = cy * m[0][0] + sy * m[1][0];
    let pitch = (-m[2][0]).atan2(cos_pitch);
    let cos_roll = cy * m[1][1] - sy * m[0][1];
    let sin_roll = sy * m[0][2] - cy * m[1][2];
    [sin_roll.atan2(cos_roll), pitch, yaw]
}

/// Rotation by `angle` (radians, right hand) about the unit `axis` (Rodrigues), from its
/// precomputed sine and cosine.
#[inline(always)]
pub fn rot_axis_sc(axis: V3, s: f64, c: f64) -> Mat3 {
    let [x, y, z] = axis;
    let t = 1.0 - c;
    [
        [c + t * x * x, t * x * y - s * z, t * x * z + s * y],
        [t * x * y + s * z, c + t * y * y, t * y * z - s * x],
        [t * x * z - s * y, t * y * z + s * x, c + t * z * z],
    ]
}

/// Rotation by `angle` (radians) about the unit `axis`.
pub fn rot_axis_angle(axis: V3, angle: f64) -> Mat3 {
    let (s, c) = angle.sin_cos();
    rot_axis_sc(axis, s, c)
}

/// A rigid transform `x ↦ rot · x + pos`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Iso {
    pub rot: Mat3,
    pub pos: V3,
}

impl Iso {
    pub const IDENTITY: Iso = Iso {
        rot: IDENTITY,
        pos: [0.0; 3],
    };

    /// From URDF `xyz` and `rpy`.
    pub fn from_xyz_rpy(xyz: V3, rpy: V3) -> Iso {
        Iso {
            rot: rot_from_rpy(rpy),
            pos: xyz,
        }
    }

    /// `self · other`.
    #[inline(always)]
    pub fn mul(&self, other: &Iso) -> Iso {
        Iso {
            rot: mul_mm(&self.rot, &other.rot),
            pos: add(mul_mv(&self.rot, other.pos), self.pos),
        }
    }

    #[inline(always)]
    pub fn transform_point(&self, p: V3) -> V3 {
        add(mul_mv(&self.rot, p), self.pos)
    }
}

/// Largest deviation of `mᵀm` from the identity; used to validate rotations.
pub fn orthonormality_error(m: &Mat3) -> f64 {
    let p = mul_mtm(m, m);
    let mut e: f64 = 0.0;
    for (i, row) in p.iter().enumerate() {
        for (j, &v) in row.iter().enumerate() {
            let want = if i == j { 1.0 } else { 0.0 };
            e = e.max((v - want).abs());
        }
    }
    e
}

/// Determinant.
pub fn det(m: &Mat3) -> f64 {
    dot(m[0], cross(m[1], m[2]))
}

/// `true` when every component is finite.
#[inline]
pub fn finite(v: V3) -> bool {
    v[0].is_finite() && v[1].is_finite() && v[2].is_finite()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &Mat3, b: &Mat3) -> bool {
        (0..3).all(|i| (0..3).all(|j| (a[i][j] - b[i][j]).abs() < 1e-14))
    }

    #[test]
    fn rpy_matches_composition_of_elementary_rotations() {
        let rpy = [0.3, -0.7, 1.9];
        let rx = rot_axis_angle([1.0, 0.0, 0.0], rpy[0]);
        let ry = rot_axis_angle([0.0, 1.0, 0.0], rpy[1]);
        let rz = rot_axis_angle([0.0, 0.0, 1.0], rpy[2]);
        let want = mul_mm(&rz, &mul_mm(&ry, &rx));
        assert!(close(&rot_from_rpy(rpy), &want));
    }

    #[test]
    fn rpy_from_rot_is_exact_at_every_pitch() {
        use std::f64::consts::FRAC_PI_2;
        let mut pitches = vec![FRAC_PI_2, -FRAC_PI_2, 0.0, 0.4, -1.3];
        for k in 1..=12 {
            let e = 10f64.powi(-k);
            pitches.extend([FRAC_PI_2 - e, e - FRAC_PI_2]);
        }
        for &pitch in &pitches {
            for (roll, yaw) in [(0.0, 0.0), (0.3, -2.1), (-3.0, 1.2), (1.5, 1.5)] {
                let r = rot_from_rpy([roll, pitch, yaw]);
                let back = rpy_from_rot(&r);
                let r2 = rot_from_rpy(back);
                let err = (0..3)
                    .flat_map(|i| (0..3).map(move |j| (i, j)))
                    .map(|(i, j)| (r[i][j] - r2[i][j]).abs())
                    .fold(0.0, f64::max);
                assert!(
                    err < 1e-15,
                    "rpy {:?}: {back:?} is off by {err:e}",
                    [roll, pitch, yaw]
                );
                assert!(
                    (back[1] - pitch).abs() < 1e-15,
                    "pitch {pitch} -> {}",
                    back[1]
                );
            }
        }
        // The MJCF case: a quarter turn about y as a quaternion-made matrix.
        let h = std::f64::consts::FRAC_1_SQRT_2;
        let (w, y) = (h, h);
        let q = [
            [1.0 - 2.0 * y * y, 0.0, 2.0 * w * y],
            [0.0, 1.0, 0.0],
            [-2.0 * w * y, 0.0, 1.0 - 2.0 * y * y],
        ];
        let r2 = rot_from_rpy(rpy_from_rot(&q));
        assert!(close(&q, &r2), "{q:?} vs {r2:?}");
    }

    #[test]
    fn quarter_turn_about_z_maps_x_to_y() {
        let r = rot_axis_angle([0.0, 0.0, 1.0], std::f64::consts::FRAC_PI_2);
        let v = mul_mv(&r, [1.0, 0.0, 0.0]);
        assert!((v[0]).abs() < 1e-15 && (v[1] - 1.0).abs() < 1e-15);
        assert!(orthonormality_error(&r) < 1e-15);
        assert!((det(&r) - 1.0).abs() < 1e-15);
    }
}
