//! Forward kinematics of the model (nalgebra; the kernel has its own f64 copy).

use super::{Joint, JointKind, Robot};
use crate::error::{Error, Result};
use nalgebra::{Isometry3, Translation3, Unit, UnitQuaternion, Vector3};
use std::collections::BTreeMap;

pub type Pose = Isometry3<f64>;

pub fn pose_from_xyz_rpy(xyz: [f64; 3], rpy: [f64; 3]) -> Pose {
    Isometry3::from_parts(
        Translation3::new(xyz[0], xyz[1], xyz[2]),
        super::rotation::rpy_to_quat(rpy),
    )
}

/// One value per joint (followers filled in from their leaders; fixed joints 0).
#[derive(Debug, Clone, PartialEq)]
pub struct Configuration {
    pub values: Vec<f64>,
}

impl Configuration {
    /// Every joint at zero.
    pub fn zero(robot: &Robot) -> Self {
        Self::from_active(robot, |_| 0.0)
    }

    /// Values for the active joints from `value_of(joint index)`, followers computed.
    pub fn from_active(robot: &Robot, mut value_of: impl FnMut(usize) -> f64) -> Self {
        let mut values = vec![0.0; robot.joints.len()];
        for (i, j) in robot.joints.iter().enumerate() {
            if j.kind.is_moving() && j.mimic.is_none() {
                values[i] = value_of(i);
            }
        }
        for (i, j) in robot.joints.iter().enumerate() {
            if let Some(m) = &j.mimic {
                values[i] = m.multiplier * values[m.leader] + m.offset;
            }
        }
        Configuration { values }
    }

    /// From named values; unnamed joints at 0, naming a follower or unknown joint is an error.
    pub fn from_named(robot: &Robot, named: &BTreeMap<String, f64>) -> Result<Self> {
        for (name, v) in named {
            let Some(i) = robot.joint_index(name) else {
                return Err(Error::input(format!(
                    "joint `{name}` is not in robot `{}`",
                    robot.name
                )));
            };
            let j = &robot.joints[i];
            if !j.kind.is_moving() {
                return Err(Error::input(format!(
                    "joint `{name}` is fixed and takes no value"
                )));
            }
            if let Some(m) = &j.mimic {
                return Err(Error::input(format!(
                    "joint `{name}` follows `{}`; give the leader's value instead",
                    robot.joints[m.leader].name
                )));
            }
            if !v.is_finite() {
                return Err(Error::input(format!(
                    "joint `{name}` has a value that is not finite"
                )));
            }
        }
        Ok(Self::from_active(robot, |i| {
            named.get(&robot.joints[i].name).copied().unwrap_or(0.0)
        }))
    }
}

/// The joint's own transform at value `q`: origin * pivot * motion * pivot^-1.
pub fn joint_transform(joint: &Joint, q: f64) -> Pose {
    let origin = pose_from_xyz_rpy(joint.origin_xyz, joint.origin_rpy);
    let axis = Vector3::from(joint.axis);
    let motion = match joint.kind {
        JointKind::Fixed => return origin,
        JointKind::Revolute | JointKind::Continuous => {
            let rot = UnitQuaternion::from_axis_angle(&Unit::new_normalize(axis), q);
            let p = Vector3::from(joint.pivot);
            // Rotation about the axis through the pivot.
            Isometry3::from_parts(Translation3::from(p - rot * p), rot)
        }
        JointKind::Prismatic => Isometry3::translation(axis.x * q, axis.y * q, axis.z * q),
    };
    origin * motion
}

/// World pose of every link, in link order.
pub fn forward(robot: &Robot, q: &Configuration) -> Vec<Pose> {
    let mut poses = vec![Pose::identity(); robot.links.len()];
    for (ji, joint) in robot.joints.iter().enumerate() {
        poses[joint.child] = poses[joint.parent] * joint_transform(joint, q.values[ji]);
    }
    poses
}
