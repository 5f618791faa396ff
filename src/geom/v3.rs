//! Small vector helpers on `[f64; 3]`, so geometry code reads like the maths.
//!
//! Everything here is plain f64 arithmetic in a fixed evaluation order, so the
//! same inputs give bit-identical outputs on every run (the proof relies on
//! recomputing the fit's cut points exactly).

// The arithmetic shared with the kernel comes from it (same expressions, so the same bits);
// geometry-only helpers follow. Row-major 3x3 matrices: `m[i]` is row i; rotations map a
// box frame to its link frame.
pub use crate::kernel::vec3::{
    IDENTITY, Mat3, V3, add, axpy, col, cross, det, dot, finite, mul_mm, mul_mtv, mul_mv, neg,
    norm, norm2, rot_axis_angle, rot_from_rpy, rpy_from_rot, scale, sub,
};

#[inline]
pub fn dist(a: V3, b: V3) -> f64 {
    norm(sub(a, b))
}
#[inline]
pub fn lerp(a: V3, b: V3, t: f64) -> V3 {
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}
/// Unit vector along `a`, or `None` when `a` is (numerically) zero or not finite.
#[inline]
pub fn normalize(a: V3) -> Option<V3> {
    let n = norm(a);
    if n > 1e-300 && n.is_finite() {
        Some(scale(a, 1.0 / n))
    } else {
        None
    }
}

/// Two unit vectors completing `d` (unit) to a right-handed orthonormal basis.
pub fn orthonormal_basis(d: V3) -> (V3, V3) {
    let helper = if d[0].abs() < 0.6 {
        [1.0, 0.0, 0.0]
    } else if d[1].abs() < 0.6 {
        [0.0, 1.0, 0.0]
    } else {
        [0.0, 0.0, 1.0]
    };
    let e1 = normalize(cross(d, helper)).unwrap_or([0.0, 1.0, 0.0]);
    let e2 = cross(d, e1);
    (e1, e2)
}

/// Matrix with the given columns.
pub fn from_cols(c0: V3, c1: V3, c2: V3) -> Mat3 {
    [
        [c0[0], c1[0], c2[0]],
        [c0[1], c1[1], c2[1]],
        [c0[2], c1[2], c2[2]],
    ]
}

/// Symmetric eigen decomposition of a 3x3 matrix: eigenvalues descending,
/// eigenvectors as unit columns of a right-handed rotation.
pub fn sym_eigen(m: &Mat3) -> ([f64; 3], Mat3) {
    let a = nalgebra::Matrix3::new(
        m[0][0], m[0][1], m[0][2], m[1][0], m[1][1], m[1][2], m[2][0], m[2][1], m[2][2],
    );
    let e = nalgebra::SymmetricEigen::new(a);
    let mut idx = [0usize, 1, 2];
    idx.sort_by(|&i, &j| {
        e.eigenvalues[j]
            .total_cmp(&e.eigenvalues[i])
            .then(i.cmp(&j))
    });
    let vals = [
        e.eigenvalues[idx[0]],
        e.eigenvalues[idx[1]],
        e.eigenvalues[idx[2]],
    ];
    let c = |k: usize| -> V3 {
        let v = e.eigenvectors.column(idx[k]);
        normalize([v[0], v[1], v[2]]).unwrap_or([0.0, 0.0, 0.0])
    };
    let (c0, mut c1) = (c(0), c(1));
    let c0 = if norm2(c0) > 0.5 { c0 } else { [1.0, 0.0, 0.0] };
    if norm2(c1) < 0.5 || dot(c0, c1).abs() > 1e-6 {
        c1 = orthonormal_basis(c0).0;
    }
    let c2 = cross(c0, c1);
    (vals, from_cols(c0, c1, c2))
}

/// Mean and covariance of a point set (population covariance).
pub fn mean_cov(points: &[V3]) -> (V3, Mat3) {
    let n = points.len().max(1) as f64;
    let mut mean = [0.0; 3];
    for p in points {
        mean = add(mean, *p);
    }
    mean = scale(mean, 1.0 / n);
    let mut c = [[0.0; 3]; 3];
    for p in points {
        let d = sub(*p, mean);
        for i in 0..3 {
            for j in 0..3 {
                c[i][j] += d[i] * d[j];
            }
        }
    }
    for row in c.iter_mut() {
        for x in row.iter_mut() {
            *x /= n;
        }
    }
    (mean, c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rpy_round_trip() {
        for rpy in [[0.1, -0.4, 2.5], [0.0, 0.0, 0.0], [-3.0, 1.2, -0.7]] {
            let m = rot_from_rpy(rpy);
            let back = rpy_from_rot(&m);
            let m2 = rot_from_rpy(back);
            for i in 0..3 {
                for j in 0..3 {
                    assert!((m[i][j] - m2[i][j]).abs() < 1e-12);
                }
            }
            assert!((det(&m) - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn rpy_convention_is_z_y_x() {
        // yaw of 90 degrees maps x to y.
        let m = rot_from_rpy([0.0, 0.0, std::f64::consts::FRAC_PI_2]);
        let v = mul_mv(&m, [1.0, 0.0, 0.0]);
        assert!((v[1] - 1.0).abs() < 1e-15);
        // roll then pitch then yaw, applied right to left.
        let r = rot_from_rpy([0.3, 0.2, 0.1]);
        let rx = rot_axis_angle([1.0, 0.0, 0.0], 0.3);
        let ry = rot_axis_angle([0.0, 1.0, 0.0], 0.2);
        let rz = rot_axis_angle([0.0, 0.0, 1.0], 0.1);
        let p = mul_mm(&rz, &mul_mm(&ry, &rx));
        for i in 0..3 {
            for j in 0..3 {
                assert!((r[i][j] - p[i][j]).abs() < 1e-15);
            }
        }
    }

    #[test]
    fn eigen_is_right_handed() {
        let pts = [
            [0.0, 0.0, 0.0],
            [2.0, 0.1, 0.0],
            [4.0, -0.1, 0.3],
            [1.0, 0.5, -0.2],
        ];
        let (_, c) = mean_cov(&pts);
        let (vals, r) = sym_eigen(&c);
        assert!(vals[0] >= vals[1] && vals[1] >= vals[2]);
        assert!((det(&r) - 1.0).abs() < 1e-9);
    }
}
