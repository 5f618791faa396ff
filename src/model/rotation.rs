//! Rotation conventions in one place: URDF rpy is fixed-axis X then Y then Z,
//! so R = Rz(yaw) * Ry(pitch) * Rx(roll).

use nalgebra::{Unit, UnitQuaternion, Vector3};

pub fn rpy_to_quat(rpy: [f64; 3]) -> UnitQuaternion<f64> {
    UnitQuaternion::from_euler_angles(rpy[0], rpy[1], rpy[2])
}

/// Roll, pitch, yaw of a rotation (pitch in [-pi/2, pi/2]), exact to rounding at a
/// 90-degree pitch too: the one conversion, `kernel::vec3::rpy_from_rot`.
pub fn quat_to_rpy(q: &UnitQuaternion<f64>) -> [f64; 3] {
    let m = q.to_rotation_matrix();
    let rows = std::array::from_fn(|i| std::array::from_fn(|j| m[(i, j)]));
    crate::kernel::vec3::rpy_from_rot(&rows)
}

pub fn axis_angle(axis: [f64; 3], angle: f64) -> UnitQuaternion<f64> {
    let v = Vector3::from(axis);
    if v.norm() == 0.0 {
        return UnitQuaternion::identity();
    }
    UnitQuaternion::from_axis_angle(&Unit::new_normalize(v), angle)
}

/// A quaternion from w, x, y, z; `None` when it has zero length.
pub fn quat_wxyz(q: [f64; 4]) -> Option<UnitQuaternion<f64>> {
    let raw = nalgebra::Quaternion::new(q[0], q[1], q[2], q[3]);
    if raw.norm() == 0.0 {
        None
    } else {
        Some(UnitQuaternion::from_quaternion(raw))
    }
}

/// The rotation taking +z onto `z` by the shortest arc (MJCF `zaxis`, `fromto`).
pub fn z_onto(z: [f64; 3]) -> UnitQuaternion<f64> {
    let v = Vector3::from(z);
    if v.norm() == 0.0 {
        return UnitQuaternion::identity();
    }
    UnitQuaternion::rotation_between(&Vector3::z(), &v).unwrap_or_else(|| {
        // Antiparallel: half a turn about x.
        UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::PI)
    })
}
