//! `--target drake`: Drake's URDF reader takes `<capsule>` and `<box>`, `.obj` meshes
//! marked `<drake:declare_convex/>`, and pairs filtered by self-ignoring
//! `<drake:collision_filter_group>`s (it reads no SRDF). Adjacent and welded bodies are
//! filtered by Drake already; every ACM pair is still written.

use super::urdf::{box_block, collision, mesh_block, sphere_block, urdf};
use super::{Export, Piece, capsule_frame, up};
use crate::error::{Error, Result};
use crate::io::robot::LoadedRobot;
use crate::io::xml::{XmlLimits, parse_file};
use crate::manifest::{Link, Manifest};
use crate::text::escape;
use std::path::Path;

const NAMESPACE: &str = " xmlns:drake=\"http://drake.mit.edu\"";

pub fn build(m: &Manifest, loaded: &LoadedRobot) -> Result<Export> {
    let mut tail = String::from("  <!-- the ACM: one self-ignoring group per exempt pair -->\n");
    for (i, r) in m.acm.iter().enumerate() {
        tail += &format!(
            "  <drake:collision_filter_group name=\"acm{i}\">\n    <drake:member link=\"{}\"/>\n    <drake:member link=\"{}\"/>\n    <drake:ignored_collision_filter_group name=\"acm{i}\"/>\n  </drake:collision_filter_group>\n",
            escape(&r.a),
            escape(&r.b)
        );
    }
    // The namespace once: a source URDF (or its xacro expansion) may declare it already.
    let declared = loaded.robot.format == crate::model::SourceFormat::Urdf
        && match &loaded.xacro {
            Some(x) => x.urdf.contains("xmlns:drake"),
            None => std::fs::read_to_string(&loaded.robot.source)
                .is_ok_and(|t| t.contains("xmlns:drake")),
        };
    let attrs = if declared { "" } else { NAMESPACE };
    let (text, meshes) = urdf(m, loaded, &link_text, attrs, &tail, "")?;
    Ok(super::urdf_export(
        super::Target::Drake,
        m,
        text,
        meshes,
        false,
    ))
}

fn link_text(_: &Link, pieces: &[Piece], indent: &str) -> String {
    let mut out = String::new();
    for p in pieces {
        match p {
            Piece::Capsule { name, c } => {
                let (mid, rpy, len) = capsule_frame(c);
                let r = up(c.radius);
                out += &if len > 0.0 {
                    collision(
                        indent,
                        name,
                        mid,
                        rpy,
                        &format!("<capsule radius=\"{r}\" length=\"{}\"/>", up(len)),
                    )
                } else {
                    sphere_block(indent, name, c.a, &r)
                };
            }
            Piece::Box { name, b } => out += &box_block(indent, name, b),
            Piece::Hull { name, file, .. } => {
                out += &mesh_block(
                    indent,
                    name,
                    &format!("<mesh filename=\"{file}\"><drake:declare_convex/></mesh>"),
                )
            }
        }
    }
    out
}

/// Every collision mesh is declared convex: Drake would otherwise check it as a mesh.
pub fn check_tags(urdf: &Path, limits: &XmlLimits) -> Result<()> {
    let root = parse_file(urdf, limits)?;
    for link in root.children_named("link") {
        for c in link.children_named("collision") {
            let Some(g) = c.child("geometry").and_then(|g| g.children.first()) else {
                continue;
            };
            if g.name == "mesh"
                && !g
                    .children
                    .iter()
                    .any(|e| e.name.ends_with("declare_convex"))
            {
                return Err(Error::check(format!(
                    "{}: collision `{}` is a mesh without <drake:declare_convex/>",
                    urdf.display(),
                    c.attr("name").unwrap_or("")
                )));
            }
        }
    }
    Ok(())
}
