//! `--target pinocchio`: Pinocchio's URDF reader hands coal a capsule for a `<cylinder>`
//! named in the link's `<collision_checking><capsule name=…/>`, and a convex mesh for
//! one named in `<convex name=…/>` (taken as written: coal builds no hull from it, so
//! the OBJ is the closed hull itself). The ACM comes from the SRDF beside it.

use super::urdf::{box_block, collision, mesh_block, sphere_block, urdf};
use super::{Export, Piece, capsule_frame, up};
use crate::error::{Error, Result};
use crate::io::robot::LoadedRobot;
use crate::io::xml::{XmlLimits, parse_file};
use crate::manifest::{Link, Manifest};
use std::path::Path;

pub fn build(m: &Manifest, loaded: &LoadedRobot) -> Result<Export> {
    let (text, meshes) = urdf(m, loaded, &link_text, "", "", "")?;
    Ok(super::urdf_export(
        super::Target::Pinocchio,
        m,
        text,
        meshes,
        true,
    ))
}

fn link_text(_: &Link, pieces: &[Piece], indent: &str) -> String {
    let mut out = String::new();
    let mut tags = Vec::new();
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
                    tags.push(format!("<capsule name=\"{name}\"/>"));
                } else {
                    out += &sphere_block(indent, name, c.a, &r);
                }
            }
            Piece::Box { name, b } => out += &box_block(indent, name, b),
            Piece::Hull { name, file, .. } => {
                out += &mesh_block(indent, name, &format!("<mesh filename=\"{file}\"/>"));
                tags.push(format!("<convex name=\"{name}\"/>"));
            }
        }
    }
    if !tags.is_empty() {
        out += &format!("{indent}<collision_checking>\n");
        for t in tags {
            out += &format!("{indent}  {t}\n");
        }
        out += &format!("{indent}</collision_checking>\n");
    }
    out
}

/// Every cylinder is named as a capsule and every mesh as convex in its link's
/// `<collision_checking>`: otherwise coal reads a plain cylinder (smaller than the capsule)
/// or a mesh as a hollow surface.
pub fn check_tags(urdf: &Path, limits: &XmlLimits) -> Result<()> {
    let root = parse_file(urdf, limits)?;
    for link in root.children_named("link") {
        let listed = |kind: &str, name: &str| {
            link.children_named("collision_checking")
                .flat_map(|c| c.children_named(kind))
                .any(|t| t.attr("name") == Some(name))
        };
        for c in link.children_named("collision") {
            let Some(g) = c.child("geometry").and_then(|g| g.children.first()) else {
                continue;
            };
            let name = c.attr("name").unwrap_or("");
            let kind = match g.name.as_str() {
                "cylinder" => "capsule",
                "mesh" => "convex",
                _ => continue,
            };
            if !listed(kind, name) {
                return Err(Error::check(format!(
                    "{}: collision `{name}` is a <{}> not named in <collision_checking><{kind}>",
                    urdf.display(),
                    g.name
                )));
            }
        }
    }
    Ok(())
}
