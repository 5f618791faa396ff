//! URDF reader: links, joints, limits, mimic, collision and visual geometry.

use super::package::PackageResolver;
use super::xml::{Element, XmlLimits, parse_file, parse_str};
use crate::error::Result;
use crate::model::kinematics::pose_from_xyz_rpy;
use crate::model::{
    GeometryPiece, Joint, JointKind, Link, Mimic, Robot, Role, Shape, SourceFormat, build_tree,
};
use std::collections::HashMap;
use std::path::Path;

pub fn read_urdf(path: &Path, resolver: &PackageResolver, limits: &XmlLimits) -> Result<Robot> {
    robot_from_xml(parse_file(path, limits)?, path, resolver)
}

/// [`read_urdf`] on text already in memory (fuzzing, tests): `path` names it in
/// errors and is where relative mesh references are resolved from.
pub fn parse_urdf(
    text: &str,
    path: &Path,
    resolver: &PackageResolver,
    limits: &XmlLimits,
) -> Result<Robot> {
    robot_from_xml(parse_str(text, path, limits)?, path, resolver)
}

fn robot_from_xml(root: Element, path: &Path, resolver: &PackageResolver) -> Result<Robot> {
    if root.name != "robot" {
        return Err(root.location.error(format!(
            "expected a URDF <robot> root element, found <{}>",
            root.name
        )));
    }
    let mut warnings = Vec::new();
    if root.children_named("link").next().is_none() {
        return Err(root.location.error("the robot is empty: it has no <link>"));
    }
    let name = match root.attr("name") {
        Some(n) => n.to_string(),
        None => {
            warnings.push(format!(
                "{}: <robot> has no name; using the file name",
                root.location
            ));
            path.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default()
        }
    };

    let mut links = Vec::new();
    let mut link_index: HashMap<String, usize> = HashMap::new();
    for el in root.children_named("link") {
        let link_name = el.required("name")?.to_string();
        if link_index.contains_key(&link_name) {
            return Err(el
                .location
                .error(format!("duplicate link name `{link_name}`")));
        }
        let mut geometry = Vec::new();
        for child in &el.children {
            let role = match child.name.as_str() {
                "collision" => Role::Collision,
                "visual" => Role::Visual,
                _ => continue,
            };
            geometry.push(read_geometry(child, role, path, resolver)?);
        }
        link_index.insert(link_name.clone(), links.len());
        links.push(Link {
            name: link_name,
            parent_joint: None,
            geometry,
        });
    }

    let mut joints = Vec::new();
    let mut joint_index: HashMap<String, usize> = HashMap::new();
    let mut mimic_leaders = Vec::new();
    for el in root.children_named("joint") {
        let joint_name = el.required("name")?.to_string();
        if joint_index.contains_key(&joint_name) {
            return Err(el
                .location
                .error(format!("duplicate joint name `{joint_name}`")));
        }
        let type_attr = el.required("type")?;
        let kind = match type_attr {
            "revolute" => JointKind::Revolute,
            "continuous" => JointKind::Continuous,
            "prismatic" => JointKind::Prismatic,
            "fixed" => JointKind::Fixed,
            "floating" | "planar" => {
                warnings.push(format!(
                    "{}: joint `{joint_name}` is {type_attr}; treated as fixed",
                    el.location
                ));
                JointKind::Fixed
            }
            other => {
                return Err(el
                    .location
                    .error(format!("joint `{joint_name}` has unknown type `{other}`")));
            }
        };
        let link_of = |tag: &str| -> Result<usize> {
            let e = el.child(tag).ok_or_else(|| {
                el.location
                    .error(format!("joint `{joint_name}` has no <{tag}>"))
            })?;
            let l = e.required("link")?;
            link_index.get(l).copied().ok_or_else(|| {
                e.location.error(format!(
                    "joint `{joint_name}` names link `{l}`, which is not in the robot"
                ))
            })
        };
        let parent = link_of("parent")?;
        let child = link_of("child")?;
        if parent == child {
            return Err(el.location.error(format!(
                "joint `{joint_name}` joins link `{}` to itself",
                links[parent].name
            )));
        }
        let (origin_xyz, origin_rpy) = read_origin(el.child("origin"))?;
        let axis = match el.child("axis") {
            Some(a) => a.vec_attr::<3>("xyz")?.unwrap_or([1.0, 0.0, 0.0]),
            None => [1.0, 0.0, 0.0],
        };
        let norm = (axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]).sqrt();
        if kind.is_moving() && norm == 0.0 {
            return Err(el
                .location
                .error(format!("joint `{joint_name}` has a zero axis")));
        }
        let axis = if norm > 0.0 {
            [axis[0] / norm, axis[1] / norm, axis[2] / norm]
        } else {
            axis
        };
        let limits = match kind {
            JointKind::Revolute | JointKind::Prismatic => {
                let Some(l) = el.child("limit") else {
                    return Err(el
                        .location
                        .error(format!("{type_attr} joint `{joint_name}` has no <limit>")));
                };
                if l.attr("lower").is_none() && l.attr("upper").is_none() {
                    warnings.push(format!(
                        "{}: joint `{joint_name}` has no lower or upper limit; both are 0 per the URDF spec",
                        l.location
                    ));
                }
                let lower = l.f64_attr("lower")?.unwrap_or(0.0);
                let upper = l.f64_attr("upper")?.unwrap_or(0.0);
                if lower > upper {
                    return Err(l.location.error(format!(
                        "joint `{joint_name}` has lower limit {lower} above upper {upper}"
                    )));
                }
                Some((lower, upper))
            }
            _ => None,
        };
        let mimic = match el.child("mimic") {
            Some(m) if kind == JointKind::Fixed => {
                warnings.push(format!("{}: fixed joint `{joint_name}` has a <mimic>; a fixed joint does not move, so it is ignored", m.location));
                None
            }
            Some(m) => {
                let leader = m.required("joint")?.to_string();
                let multiplier = m.f64_attr("multiplier")?.unwrap_or(1.0);
                let offset = m.f64_attr("offset")?.unwrap_or(0.0);
                mimic_leaders.push((joints.len(), leader, m.location.clone()));
                Some(Mimic {
                    leader: usize::MAX,
                    multiplier,
                    offset,
                })
            }
            None => None,
        };
        joint_index.insert(joint_name.clone(), joints.len());
        joints.push(Joint {
            name: joint_name,
            kind,
            parent,
            child,
            origin_xyz,
            origin_rpy,
            axis,
            pivot: [0.0; 3],
            limits,
            mimic,
            location: Some(el.location.clone()),
        });
    }
    for (ji, leader, location) in mimic_leaders {
        let li = match joint_index.get(&leader) {
            Some(&li) => li,
            None => {
                // xacro output sometimes forgets the follower's prefix on the leader.
                let follower = &joints[ji].name;
                let prefixed = follower
                    .rfind('_')
                    .and_then(|_| follower.find(leader.split('_').next().unwrap_or(&leader)))
                    .map(|at| format!("{}{leader}", &follower[..at]));
                match prefixed
                    .as_ref()
                    .and_then(|p| joint_index.get(p).map(|&i| (p, i)))
                {
                    Some((p, i)) if i != ji => {
                        warnings.push(format!("{location}: mimic joint `{follower}` follows `{leader}`, which is not in the robot; using `{p}`"));
                        i
                    }
                    _ => {
                        return Err(location.error(format!(
                            "mimic joint `{follower}` follows `{leader}`, which is not in the robot"
                        )));
                    }
                }
            }
        };
        if li == ji {
            return Err(
                location.error(format!("mimic joint `{leader}` names itself as its leader"))
            );
        }
        if let Some(m) = &mut joints[ji].mimic {
            m.leader = li;
        }
    }
    let mut robot = build_tree(
        name,
        SourceFormat::Urdf,
        path.to_path_buf(),
        links,
        joints,
        warnings,
    )?;
    robot.files.push(path.to_path_buf());
    Ok(robot)
}

fn read_origin(el: Option<&Element>) -> Result<([f64; 3], [f64; 3])> {
    match el {
        None => Ok(([0.0; 3], [0.0; 3])),
        Some(o) => Ok((
            o.vec_attr::<3>("xyz")?.unwrap_or([0.0; 3]),
            o.vec_attr::<3>("rpy")?.unwrap_or([0.0; 3]),
        )),
    }
}

fn read_geometry(
    el: &Element,
    role: Role,
    path: &Path,
    resolver: &PackageResolver,
) -> Result<GeometryPiece> {
    let (xyz, rpy) = read_origin(el.child("origin"))?;
    let geometry = el.child("geometry").ok_or_else(|| {
        el.location
            .error(format!("<{}> has no <geometry>", el.name))
    })?;
    let shape_el = geometry
        .children
        .first()
        .ok_or_else(|| geometry.location.error("<geometry> is empty"))?;
    let positive = |e: &Element, attr: &str| -> Result<f64> {
        let v = e.f64_attr(attr)?.ok_or_else(|| {
            e.location
                .error(format!("<{}> is missing the attribute `{attr}`", e.name))
        })?;
        if v <= 0.0 {
            return Err(e
                .location
                .error(format!("<{}> {attr}=\"{v}\" must be positive", e.name)));
        }
        Ok(v)
    };
    let shape = match shape_el.name.as_str() {
        "mesh" => {
            let uri = shape_el.required("filename")?;
            let scale = shape_el.vec_attr::<3>("scale")?.unwrap_or([1.0; 3]);
            if scale.contains(&0.0) {
                return Err(shape_el
                    .location
                    .error(format!("mesh scale {scale:?} has a zero component")));
            }
            let loc = &shape_el.location;
            let resolved = resolver.resolve(uri, path, Some((loc.line, loc.col)))?;
            Shape::Mesh {
                uri: uri.to_string(),
                path: resolved,
                scale,
            }
        }
        "box" => {
            let size = shape_el.vec_attr::<3>("size")?.ok_or_else(|| {
                shape_el
                    .location
                    .error("<box> is missing the attribute `size`")
            })?;
            if size.iter().any(|&s| s <= 0.0) {
                return Err(shape_el
                    .location
                    .error(format!("box size {size:?} must be positive")));
            }
            Shape::Box { size }
        }
        "cylinder" => Shape::Cylinder {
            radius: positive(shape_el, "radius")?,
            length: positive(shape_el, "length")?,
        },
        "capsule" => Shape::Capsule {
            radius: positive(shape_el, "radius")?,
            length: positive(shape_el, "length")?,
        },
        "sphere" => Shape::Sphere {
            radius: positive(shape_el, "radius")?,
        },
        other => {
            return Err(shape_el
                .location
                .error(format!("unknown geometry <{other}>")));
        }
    };
    Ok(GeometryPiece {
        role,
        origin: pose_from_xyz_rpy(xyz, rpy),
        shape,
        location: Some(el.location.clone()),
    })
}
