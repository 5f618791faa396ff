//! The kernel's plain arrays as parry3d-f64 values, for the oracle tests.
#![allow(dead_code)]

use collide::kernel::vec3::{Mat3, V3};
use parry3d_f64::math::{Matrix, Pose, Rotation, Vector};
use parry3d_f64::shape::SupportMap;

pub fn pv(v: V3) -> Vector {
    Vector::new(v[0], v[1], v[2])
}

/// A pose from a centre and a row-major rotation whose columns are the frame's axes.
pub fn ppose(c: V3, r: &Mat3) -> Pose {
    let m = Matrix::from_cols(
        Vector::new(r[0][0], r[1][0], r[2][0]),
        Vector::new(r[0][1], r[1][1], r[2][1]),
        Vector::new(r[0][2], r[1][2], r[2][2]),
    );
    Pose::from_parts(pv(c), Rotation::from_mat3(&m).normalize())
}

/// A point cloud as a support map (its convex hull), by a full scan.
pub struct Cloud(pub Vec<Vector>);

impl SupportMap for Cloud {
    fn local_support_point(&self, dir: Vector) -> Vector {
        let mut best = self.0[0];
        let mut bd = best.dot(dir);
        for p in &self.0[1..] {
            let d = p.dot(dir);
            if d > bd {
                bd = d;
                best = *p;
            }
        }
        best
    }
}
