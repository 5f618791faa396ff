//! `--target ros`: MoveIt and every urdfdom reader. URDF has no portable capsule (urdfdom
//! up to 5.0 stops reading a link's collisions at the first `<capsule>`), so a capsule is
//! written as the same solid: a cylinder and a sphere on each end.

use super::urdf::{box_block, collision, mesh_block, sphere_block, urdf};
use super::{Export, File, Piece, capsule_frame, up};
use crate::error::Result;
use crate::io::robot::LoadedRobot;
use crate::manifest::{Link, Manifest};
use std::path::PathBuf;

pub fn build(m: &Manifest, loaded: &LoadedRobot) -> Result<Export> {
    let pkg = package_name(&m.robot);
    let text_of = |l: &Link, p: &[Piece], indent: &str| link_text(&pkg, l, p, indent);
    let (text, meshes) = urdf(m, loaded, &text_of, "", "", &format!("package://{pkg}/"))?;
    let mut e = super::urdf_export(super::Target::Ros, m, text, meshes, true);
    // A ROS package of its own: ROS's resource retriever (MoveIt, RViz) reads meshes by
    // `package://` URL, not by a path relative to the URDF.
    e.files.push(File {
        path: PathBuf::from("package.xml"),
        bytes: format!(
            "<?xml version=\"1.0\"?>\n<!-- written by collide export: the proven collision geometry of {robot} -->\n<package format=\"3\">\n  <name>{pkg}</name>\n  <version>0.0.0</version>\n  <description>Proven collision geometry and ACM of {robot} (collide export)</description>\n  <maintainer email=\"nobody@example.com\">collide export</maintainer>\n  <license>TODO</license>\n  <buildtool_depend>ament_cmake</buildtool_depend>\n  <export>\n    <build_type>ament_cmake</build_type>\n  </export>\n</package>\n",
            robot = crate::text::escape(&m.robot)
        )
        .into_bytes(),
    });
    e.files.push(File {
        path: PathBuf::from("CMakeLists.txt"),
        bytes: format!(
            "cmake_minimum_required(VERSION 3.8)\nproject({pkg})\nfind_package(ament_cmake REQUIRED)\ninstall(FILES {robot}.urdf {robot}.srdf DESTINATION share/${{PROJECT_NAME}})\ninstall(DIRECTORY meshes DESTINATION share/${{PROJECT_NAME}} OPTIONAL)\nament_package()\n",
            robot = m.robot
        )
        .into_bytes(),
    });
    Ok(e)
}

/// The export's ROS package name: `NAME_collide`, in the characters ROS allows
/// (lower-case letters, digits, underscores; a letter first).
pub fn package_name(robot: &str) -> String {
    let mut name: String = robot
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    if !name.starts_with(|c: char| c.is_ascii_lowercase()) {
        name.insert_str(0, "robot_");
    }
    name + "_collide"
}

fn link_text(pkg: &str, _: &Link, pieces: &[Piece], indent: &str) -> String {
    let mut out = String::new();
    for p in pieces {
        match p {
            Piece::Capsule { name, c } => {
                let (mid, rpy, len) = capsule_frame(c);
                let r = up(c.radius);
                if len > 0.0 {
                    out += &collision(
                        indent,
                        name,
                        mid,
                        rpy,
                        &format!("<cylinder radius=\"{r}\" length=\"{}\"/>", up(len)),
                    );
                }
                for (end, at) in [("a", c.a), ("b", c.b)] {
                    if len == 0.0 && end == "b" {
                        break;
                    }
                    out += &sphere_block(indent, &format!("{name}_{end}"), at, &r);
                }
            }
            Piece::Box { name, b } => out += &box_block(indent, name, b),
            Piece::Hull { name, file, .. } => {
                out += &mesh_block(
                    indent,
                    name,
                    &format!("<mesh filename=\"package://{pkg}/{file}\"/>"),
                )
            }
        }
    }
    out
}
