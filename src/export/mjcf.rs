//! `--target mjcf`: a MuJoCo model built from the manifest's joints (bodies, hinges and
//! slides with their limits, mimics as joint equalities), the proven geometry in class
//! `collision` (group 3, as menagerie keeps it), every exempt pair as
//! `<contact><exclude>`, and explicit inertials (the proven geoms must not set the
//! masses). MuJoCo collides the convex hull of a mesh: each OBJ is already the proven
//! hull, and no `maxhullvert` shrinks it.
//!
//! The model is built from the manifest for an MJCF source too: the original model with
//! its collision geoms turned visual is not written yet (docs: README's export table).

use super::{Export, File, Piece, num, pieces, up};
use crate::error::Result;
use crate::io::robot::LoadedRobot;
use crate::manifest::{Joint, JointKind, Manifest};
use crate::model::rotation::rpy_to_quat;
use crate::text::escape;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// MuJoCo names the world body `world`: a manifest rooted there puts its geoms in it.
const WORLD: &str = "world";
/// Every body's inertial: MuJoCo needs mass on moving bodies; the manifest has none, and
/// a collision export is not a dynamics model.
const INERTIAL: &str = "<inertial pos=\"0 0 0\" mass=\"0.01\" diaginertia=\"1e-06 1e-06 1e-06\"/>";

pub fn build(m: &Manifest, _loaded: &LoadedRobot) -> Result<Export> {
    let mut geoms: BTreeMap<&str, String> = BTreeMap::new();
    let mut assets = String::new();
    let mut files = Vec::new();
    for l in m.links.iter().filter(|l| !l.primitives.is_empty()) {
        let mut text = String::new();
        for p in pieces(l)? {
            text += &match p {
                Piece::Capsule { name, c } if c.a != c.b => format!(
                    "<geom class=\"collision\" name=\"{}\" type=\"capsule\" fromto=\"{} {} {} {} {} {}\" size=\"{}\"/>",
                    escape(&name),
                    num(c.a[0]),
                    num(c.a[1]),
                    num(c.a[2]),
                    num(c.b[0]),
                    num(c.b[1]),
                    num(c.b[2]),
                    up(c.radius)
                ),
                Piece::Capsule { name, c } => format!(
                    "<geom class=\"collision\" name=\"{}\" type=\"sphere\" pos=\"{} {} {}\" size=\"{}\"/>",
                    escape(&name),
                    num(c.a[0]),
                    num(c.a[1]),
                    num(c.a[2]),
                    up(c.radius)
                ),
                Piece::Box { name, b } => {
                    let q = rpy_to_quat(b.rpy);
                    format!(
                        "<geom class=\"collision\" name=\"{}\" type=\"box\" pos=\"{} {} {}\" quat=\"{} {} {} {}\" size=\"{} {} {}\"/>",
                        escape(&name),
                        num(b.center[0]),
                        num(b.center[1]),
                        num(b.center[2]),
                        num(q.w),
                        num(q.i),
                        num(q.j),
                        num(q.k),
                        up(b.half_extents[0]),
                        up(b.half_extents[1]),
                        up(b.half_extents[2])
                    )
                }
                Piece::Hull { name, file, obj } => {
                    let fname = file.trim_start_matches("meshes/").to_string();
                    assets += &format!(
                        "    <mesh name=\"{}\" file=\"{}\"/>\n",
                        escape(&name),
                        escape(&fname)
                    );
                    files.push(File {
                        path: PathBuf::from(&file),
                        bytes: obj.into_bytes(),
                    });
                    format!(
                        "<geom class=\"collision\" name=\"{}\" type=\"mesh\" mesh=\"{}\"/>",
                        escape(&name),
                        escape(&name)
                    )
                }
            };
            text += "\n";
        }
        geoms.insert(&l.name, text);
    }

    let mut children: BTreeMap<&str, Vec<&Joint>> = BTreeMap::new();
    for j in &m.joints {
        children.entry(&j.parent).or_default().push(j);
    }
    let root = m
        .joints
        .first()
        .map(|j| j.parent.as_str())
        .or_else(|| m.links.first().map(|l| l.name.as_str()))
        .unwrap_or(WORLD);
    let mut body = String::new();
    if root == WORLD {
        emit_geoms(&mut body, geoms.get(root), "    ");
        for j in children.get(root).into_iter().flatten() {
            emit_body(&mut body, j, &children, &geoms, "    ");
        }
    } else {
        body += &format!("    <body name=\"{}\">\n      {INERTIAL}\n", escape(root));
        emit_geoms(&mut body, geoms.get(root), "      ");
        for j in children.get(root).into_iter().flatten() {
            emit_body(&mut body, j, &children, &geoms, "      ");
        }
        body += "    </body>\n";
    }

    let mut out = format!(
        "<mujoco model=\"{}\">\n  <!-- written by collide export from the manifest of {}: its joints, its proven collision geometry (class collision, group 3), its ACM as contact excludes -->\n",
        escape(&m.robot),
        escape(&m.robot)
    );
    out += "  <compiler angle=\"radian\" meshdir=\"meshes\" inertiafromgeom=\"false\" autolimits=\"true\"/>\n";
    // Parent-child pairs are checked unless the ACM exempts them, as the kernel does.
    out += "  <option>\n    <flag filterparent=\"disable\"/>\n  </option>\n";
    out += "  <default>\n    <default class=\"collision\">\n      <geom group=\"3\" contype=\"1\" conaffinity=\"1\"/>\n    </default>\n  </default>\n";
    if !assets.is_empty() {
        out += &format!("  <asset>\n{assets}  </asset>\n");
    }
    out += &format!("  <worldbody>\n{body}  </worldbody>\n");
    if !m.acm.is_empty() {
        out += "  <contact>\n";
        for r in &m.acm {
            out += &format!(
                "    <exclude body1=\"{}\" body2=\"{}\"/>\n",
                escape(&r.a),
                escape(&r.b)
            );
        }
        out += "  </contact>\n";
    }
    let mimics: Vec<&Joint> = m.joints.iter().filter(|j| j.mimic.is_some()).collect();
    if !mimics.is_empty() {
        out += "  <equality>\n";
        for j in mimics {
            let mm = j.mimic.as_ref().expect("filtered");
            out += &format!(
                "    <joint joint1=\"{}\" joint2=\"{}\" polycoef=\"{} {} 0 0 0\"/>\n",
                escape(&j.name),
                escape(&mm.joint),
                num(mm.offset),
                num(mm.multiplier)
            );
        }
        out += "  </equality>\n";
    }
    out += "</mujoco>\n";
    files.insert(
        0,
        File {
            path: PathBuf::from(format!("{}.xml", m.robot)),
            bytes: out.into_bytes(),
        },
    );
    Ok(Export {
        target: super::Target::Mjcf,
        main: PathBuf::from(format!("{}.xml", m.robot)),
        files,
    })
}

fn emit_geoms(out: &mut String, geoms: Option<&String>, indent: &str) {
    for line in geoms.into_iter().flat_map(|g| g.lines()) {
        *out += &format!("{indent}{line}\n");
    }
}

fn emit_body(
    out: &mut String,
    j: &Joint,
    children: &BTreeMap<&str, Vec<&Joint>>,
    geoms: &BTreeMap<&str, String>,
    indent: &str,
) {
    let q = rpy_to_quat(j.origin_rpy);
    *out += &format!(
        "{indent}<body name=\"{}\" pos=\"{} {} {}\" quat=\"{} {} {} {}\">\n",
        escape(&j.child),
        num(j.origin_xyz[0]),
        num(j.origin_xyz[1]),
        num(j.origin_xyz[2]),
        num(q.w),
        num(q.i),
        num(q.j),
        num(q.k)
    );
    let inner = format!("{indent}  ");
    *out += &format!("{inner}{INERTIAL}\n");
    let kind = match j.kind {
        JointKind::Fixed => None,
        JointKind::Prismatic => Some("slide"),
        JointKind::Revolute | JointKind::Continuous => Some("hinge"),
    };
    if let Some(kind) = kind {
        let pos = j
            .pivot
            .map(|p| format!(" pos=\"{} {} {}\"", num(p[0]), num(p[1]), num(p[2])))
            .unwrap_or_default();
        let range = match j.limits {
            Some([lo, hi]) if j.kind != JointKind::Continuous => {
                format!(" range=\"{} {}\"", num(lo), num(hi))
            }
            _ => " limited=\"false\"".to_string(),
        };
        *out += &format!(
            "{inner}<joint name=\"{}\" type=\"{kind}\" axis=\"{} {} {}\"{pos}{range}/>\n",
            escape(&j.name),
            num(j.axis[0]),
            num(j.axis[1]),
            num(j.axis[2])
        );
    }
    emit_geoms(out, geoms.get(j.child.as_str()), &inner);
    for c in children.get(j.child.as_str()).into_iter().flatten() {
        emit_body(out, c, children, geoms, &inner);
    }
    *out += &format!("{indent}</body>\n");
}
