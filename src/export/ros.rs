//! `--target ros`: MoveIt and every urdfdom reader. URDF has no portable capsule (urdfdom
//! up to 5.0 stops reading a link's collisions at the first `<capsule>`), so a capsule is
//! written as the same solid: a cylinder and a sphere on each end.

use super::urdf::{collision, urdf};
use super::{Export, Piece, capsule_frame, up};
use crate::error::Result;
use crate::io::robot::LoadedRobot;
use crate::manifest::{Link, Manifest};

pub fn build(m: &Manifest, loaded: &LoadedRobot) -> Result<Export> {
    let (text, meshes) = urdf(m, loaded, &link_text, "", "")?;
    Ok(super::urdf_export(
        super::Target::Ros,
        m,
        text,
        meshes,
        true,
    ))
}

fn link_text(_: &Link, pieces: &[Piece], indent: &str) -> String {
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
                    out += &collision(
                        indent,
                        &format!("{name}_{end}"),
                        at,
                        [0.0; 3],
                        &format!("<sphere radius=\"{r}\"/>"),
                    );
                }
            }
            Piece::Box { name, b } => out += &box_block(indent, name, b),
            Piece::Hull { name, file, .. } => {
                out += &collision(
                    indent,
                    name,
                    [0.0; 3],
                    [0.0; 3],
                    &format!("<mesh filename=\"{file}\"/>"),
                )
            }
        }
    }
    out
}

/// A box as URDF writes it: full side lengths, its frame as the origin.
pub fn box_block(indent: &str, name: &str, b: &crate::manifest::BoxPrim) -> String {
    let size: Vec<String> = b.half_extents.iter().map(|h| up(2.0 * h)).collect();
    collision(
        indent,
        name,
        b.center,
        b.rpy,
        &format!("<box size=\"{}\"/>", size.join(" ")),
    )
}
