//! The kinematic robot model every reader produces: one tree of links and joints,
//! each link with its geometry pieces in the link frame.

pub mod kinematics;
pub mod rotation;
pub mod twin;

use crate::error::Location;
use std::path::PathBuf;

pub use kinematics::{Configuration, Pose};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JointKind {
    Fixed,
    Revolute,
    Continuous,
    Prismatic,
}

impl JointKind {
    pub fn as_str(self) -> &'static str {
        match self {
            JointKind::Fixed => "fixed",
            JointKind::Revolute => "revolute",
            JointKind::Continuous => "continuous",
            JointKind::Prismatic => "prismatic",
        }
    }
    pub fn is_moving(self) -> bool {
        self != JointKind::Fixed
    }
}

/// A follower joint: q = multiplier * q(leader) + offset.
#[derive(Debug, Clone, PartialEq)]
pub struct Mimic {
    pub leader: usize,
    pub multiplier: f64,
    pub offset: f64,
}

#[derive(Debug, Clone)]
pub struct Joint {
    pub name: String,
    pub kind: JointKind,
    /// Link indices.
    pub parent: usize,
    pub child: usize,
    /// Child frame = parent frame * origin * motion(q); rpy with R = Rz(yaw) Ry(pitch) Rx(roll).
    pub origin_xyz: [f64; 3],
    pub origin_rpy: [f64; 3],
    /// Unit axis in the child frame.
    pub axis: [f64; 3],
    /// Point in the child frame the axis passes through (MJCF hinges off the body origin).
    pub pivot: [f64; 3],
    /// (lower, upper); `None` for continuous and fixed joints.
    pub limits: Option<(f64, f64)>,
    pub mimic: Option<Mimic>,
    pub location: Option<Location>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Collision,
    Visual,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Collision => "collision",
            Role::Visual => "visual",
        }
    }
}

/// Which of a link's pieces are its truth, the geometry every proof and every contact is
/// judged on (the robot config's `truth:`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum TruthGeometry {
    /// Every collision and visual piece: the safe default.
    #[default]
    #[serde(rename = "collision+visual")]
    CollisionAndVisual,
    /// The visual pieces only, for a description whose `<collision>` blocks are coarse
    /// placeholders; a link without a visual piece keeps its collision pieces.
    #[serde(rename = "visual")]
    Visual,
}

impl TruthGeometry {
    pub fn as_str(self) -> &'static str {
        match self {
            TruthGeometry::CollisionAndVisual => "collision+visual",
            TruthGeometry::Visual => "visual",
        }
    }

    pub fn is_default(&self) -> bool {
        *self == TruthGeometry::default()
    }

    /// The pieces of `link` that are its truth.
    pub fn pieces(self, link: &Link) -> impl Iterator<Item = &GeometryPiece> {
        let has_visual = link.geometry.iter().any(|g| g.role == Role::Visual);
        link.geometry.iter().filter(move |g| {
            self == TruthGeometry::CollisionAndVisual || !has_visual || g.role == Role::Visual
        })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// A mesh file; `uri` as written in the source, `path` resolved.
    Mesh {
        uri: String,
        path: PathBuf,
        scale: [f64; 3],
    },
    /// Full side lengths.
    Box {
        size: [f64; 3],
    },
    /// Along the local z axis.
    Cylinder {
        radius: f64,
        length: f64,
    },
    Sphere {
        radius: f64,
    },
    /// Along the local z axis; `length` between the two sphere centres.
    Capsule {
        radius: f64,
        length: f64,
    },
    Ellipsoid {
        radii: [f64; 3],
    },
}

impl Shape {
    pub fn kind(&self) -> &'static str {
        match self {
            Shape::Mesh { .. } => "mesh",
            Shape::Box { .. } => "box",
            Shape::Cylinder { .. } => "cylinder",
            Shape::Sphere { .. } => "sphere",
            Shape::Capsule { .. } => "capsule",
            Shape::Ellipsoid { .. } => "ellipsoid",
        }
    }
}

/// One piece of a link's geometry, placed in the link frame by `origin`.
#[derive(Debug, Clone)]
pub struct GeometryPiece {
    pub role: Role,
    pub origin: Pose,
    pub shape: Shape,
    pub location: Option<Location>,
}

#[derive(Debug, Clone)]
pub struct Link {
    pub name: String,
    /// Index of the joint whose child this link is; `None` for the root.
    pub parent_joint: Option<usize>,
    pub geometry: Vec<GeometryPiece>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceFormat {
    Urdf,
    Mjcf,
}

/// A robot: links in topological order (root first), joints ordered by their child.
#[derive(Debug, Clone)]
pub struct Robot {
    pub name: String,
    pub format: SourceFormat,
    pub source: PathBuf,
    pub links: Vec<Link>,
    pub joints: Vec<Joint>,
    /// Every file read to build this robot (description, includes, meshes), in reading order.
    pub files: Vec<PathBuf>,
    pub warnings: Vec<String>,
    /// Which pieces are the truth (set from the robot config; the default otherwise).
    pub truth: TruthGeometry,
}

impl Robot {
    pub fn link_index(&self, name: &str) -> Option<usize> {
        self.links.iter().position(|l| l.name == name)
    }
    pub fn joint_index(&self, name: &str) -> Option<usize> {
        self.joints.iter().position(|j| j.name == name)
    }
    /// Joints that carry their own coordinate: moving and not a mimic follower.
    pub fn active_joints(&self) -> impl Iterator<Item = (usize, &Joint)> {
        self.joints
            .iter()
            .enumerate()
            .filter(|(_, j)| j.kind.is_moving() && j.mimic.is_none())
    }
}

/// Orders links so every parent comes before its children and checks the tree.
///
/// Takes links and joints as read (joints naming parent and child by index) and
/// returns them reordered; errors name the cycle, the roots or the duplicate.
pub fn build_tree(
    name: String,
    format: SourceFormat,
    source: PathBuf,
    links: Vec<Link>,
    joints: Vec<Joint>,
    warnings: Vec<String>,
) -> crate::error::Result<Robot> {
    use crate::error::Error;
    let n = links.len();
    if n == 0 {
        return Err(Error::at(&source, None, "the robot has no links"));
    }
    let mut parent_joint: Vec<Option<usize>> = vec![None; n];
    for (ji, j) in joints.iter().enumerate() {
        if let Some(prev) = parent_joint[j.child] {
            let msg = format!(
                "link `{}` is the child of two joints, `{}` and `{}`",
                links[j.child].name, joints[prev].name, j.name
            );
            return Err(match &j.location {
                Some(l) => l.error(msg),
                None => Error::at(&source, None, msg),
            });
        }
        parent_joint[j.child] = Some(ji);
    }
    let roots: Vec<usize> = (0..n).filter(|&i| parent_joint[i].is_none()).collect();
    if roots.is_empty() {
        return Err(Error::at(
            &source,
            None,
            "the joints form a cycle: no link is a root",
        ));
    }
    if roots.len() > 1 {
        let names: Vec<&str> = roots.iter().map(|&i| links[i].name.as_str()).collect();
        return Err(Error::at(
            &source,
            None,
            format!(
                "the robot has {} roots ({}); it must be one tree",
                roots.len(),
                names.join(", ")
            ),
        ));
    }
    // Breadth-first from the root, children in source order, so the order is stable.
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (ji, j) in joints.iter().enumerate() {
        children[j.parent].push(ji);
    }
    let mut order = vec![roots[0]];
    let mut joint_order = Vec::new();
    let mut head = 0;
    while head < order.len() {
        let l = order[head];
        head += 1;
        for &ji in &children[l] {
            joint_order.push(ji);
            order.push(joints[ji].child);
        }
    }
    if order.len() != n {
        let missing: Vec<&str> = (0..n)
            .filter(|i| !order.contains(i))
            .map(|i| links[i].name.as_str())
            .take(5)
            .collect();
        return Err(Error::at(
            &source,
            None,
            format!(
                "the joints form a cycle through link(s) {}",
                missing.join(", ")
            ),
        ));
    }
    let mut new_link_index = vec![0; n];
    for (new, &old) in order.iter().enumerate() {
        new_link_index[old] = new;
    }
    let mut new_joint_index = vec![0; joints.len()];
    for (new, &old) in joint_order.iter().enumerate() {
        new_joint_index[old] = new;
    }
    let mut old_links: Vec<Option<Link>> = links.into_iter().map(Some).collect();
    let mut old_joints: Vec<Option<Joint>> = joints.into_iter().map(Some).collect();
    let mut new_links = Vec::with_capacity(n);
    for &old in &order {
        let mut link = old_links[old].take().expect("each link once");
        link.parent_joint = parent_joint[old].map(|j| new_joint_index[j]);
        new_links.push(link);
    }
    let mut new_joints = Vec::with_capacity(joint_order.len());
    for &old in &joint_order {
        let mut joint = old_joints[old].take().expect("each joint once");
        joint.parent = new_link_index[joint.parent];
        joint.child = new_link_index[joint.child];
        if let Some(m) = &mut joint.mimic {
            m.leader = new_joint_index[m.leader];
        }
        new_joints.push(joint);
    }
    // A follower of a follower resolves to the root leader so FK needs one pass.
    let robot = Robot {
        name,
        format,
        source,
        links: new_links,
        joints: new_joints,
        files: Vec::new(),
        warnings,
        truth: TruthGeometry::default(),
    };
    check_mimics(robot)
}

fn check_mimics(mut robot: Robot) -> crate::error::Result<Robot> {
    use crate::error::Error;
    for ji in 0..robot.joints.len() {
        let Some(mut m) = robot.joints[ji].mimic.clone() else {
            continue;
        };
        let mut steps = 0;
        while let Some(next) = robot.joints[m.leader].mimic.clone() {
            if m.leader == ji || steps > robot.joints.len() {
                let j = &robot.joints[ji];
                let msg = format!(
                    "mimic joint `{}` follows itself through a chain of mimics",
                    j.name
                );
                return Err(match &j.location {
                    Some(l) => l.error(msg),
                    None => Error::at(&robot.source, None, msg),
                });
            }
            m = Mimic {
                leader: next.leader,
                multiplier: m.multiplier * next.multiplier,
                offset: m.multiplier * next.offset + m.offset,
            };
            steps += 1;
        }
        if m.leader == ji || !robot.joints[m.leader].kind.is_moving() {
            let j = &robot.joints[ji];
            let msg = if m.leader == ji {
                format!("mimic joint `{}` names itself as its leader", j.name)
            } else {
                format!(
                    "mimic joint `{}` follows `{}`, which is fixed",
                    j.name, robot.joints[m.leader].name
                )
            };
            return Err(match &j.location {
                Some(l) => l.error(msg),
                None => Error::at(&robot.source, None, msg),
            });
        }
        robot.joints[ji].mimic = Some(m);
    }
    Ok(robot)
}

/// Two links, the lower name first, as ACM rows are written: the one key for a pair.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LinkPair {
    pub a: String,
    pub b: String,
}

impl LinkPair {
    pub fn new(x: &str, y: &str) -> LinkPair {
        let (a, b) = if x <= y { (x, y) } else { (y, x) };
        LinkPair {
            a: a.to_string(),
            b: b.to_string(),
        }
    }
}

impl From<LinkPair> for (String, String) {
    fn from(p: LinkPair) -> (String, String) {
        (p.a, p.b)
    }
}
