//! `--target mjcf`: a MuJoCo model built from the manifest's joints (bodies, hinges and
//! slides with their limits, mimics as joint equalities), the proven geometry in class
//! `collision` (group 3, as menagerie keeps it), every exempt pair as
//! `<contact><exclude>`, and explicit inertials (the proven geoms must not set the
//! masses). MuJoCo collides the convex hull of a mesh: each OBJ is already the proven
//! hull, and no `maxhullvert` shrinks it.
//!
//! For an MJCF source held in one file, the original model is kept instead (actuators,
//! visuals, masses, options): its collision geoms turned visual (contype = conaffinity =
//! 0, group 2), the proven geoms added to their bodies (massless, so the dynamics stay),
//! the excludes added, and its asset files referenced where they are. A source with
//! `<include>`s gets the model built from the manifest.

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

pub fn build(m: &Manifest, loaded: &LoadedRobot) -> Result<Export> {
    if loaded.robot.format == crate::model::SourceFormat::Mjcf
        && let Some(e) = keep_source(m, loaded)?
    {
        return Ok(e);
    }
    built(m)
}

/// One line per proven geom of each link, and the OBJ files.
fn proven_geoms<'m>(
    m: &'m Manifest,
    extra: &str,
) -> Result<(BTreeMap<&'m str, String>, String, Vec<File>)> {
    let mut geoms: BTreeMap<&str, String> = BTreeMap::new();
    let mut assets = String::new();
    let mut files = Vec::new();
    for l in m.links.iter().filter(|l| !l.primitives.is_empty()) {
        let mut text = String::new();
        for p in pieces(l)? {
            text += &match p {
                Piece::Capsule { name, c } if c.a != c.b => format!(
                    "<geom class=\"collision\" name=\"{}\" type=\"capsule\" fromto=\"{} {} {} {} {} {}\" size=\"{}\"{extra}/>",
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
                    "<geom class=\"collision\" name=\"{}\" type=\"sphere\" pos=\"{} {} {}\" size=\"{}\"{extra}/>",
                    escape(&name),
                    num(c.a[0]),
                    num(c.a[1]),
                    num(c.a[2]),
                    up(c.radius)
                ),
                Piece::Box { name, b } => {
                    let q = rpy_to_quat(b.rpy);
                    format!(
                        "<geom class=\"collision\" name=\"{}\" type=\"box\" pos=\"{} {} {}\" quat=\"{} {} {} {}\" size=\"{} {} {}\"{extra}/>",
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
                        "<geom class=\"collision\" name=\"{}\" type=\"mesh\" mesh=\"{}\"{extra}/>",
                        escape(&name),
                        escape(&name)
                    )
                }
            };
            text += "\n";
        }
        geoms.insert(&l.name, text);
    }
    Ok((geoms, assets, files))
}

/// The model built from the manifest's joints alone.
fn built(m: &Manifest) -> Result<Export> {
    let (geoms, assets, mut files) = proven_geoms(m, "")?;
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

/// The MJCF source kept: `None` when it cannot be (includes, a collision geom in another
/// file, a body it cannot place geoms in), and the model is built from the manifest.
fn keep_source(m: &Manifest, loaded: &LoadedRobot) -> Result<Option<Export>> {
    use super::urdf::{TagKind, attr, indent_of, tags};
    let source = &loaded.robot.source;
    let xml_files = loaded
        .robot
        .files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "xml" || e == "mjcf"))
        .count();
    if xml_files != 1 {
        return Ok(None);
    }
    let text = std::fs::read_to_string(source)
        .map_err(|e| crate::error::Error::at(source, None, format!("cannot read: {e}")))?;
    let Ok(tags) = tags(&text) else {
        return Ok(None);
    };
    // The source's collision geoms, by where their tags start.
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let mut collision_at = std::collections::BTreeSet::new();
    for g in loaded.robot.links.iter().flat_map(|l| &l.geometry) {
        if g.role != crate::model::Role::Collision {
            continue;
        }
        let Some(loc) = &g.location else {
            return Ok(None);
        };
        let Some(&start) = line_starts.get(loc.line as usize - 1) else {
            return Ok(None);
        };
        let Some((off, _)) = text[start..].char_indices().nth(loc.col as usize - 1) else {
            return Ok(None);
        };
        collision_at.insert(start + off);
    }
    let source_dir = source.parent().unwrap_or(std::path::Path::new(""));
    let mut edits: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    let (mut meshdir, mut texturedir) = (String::new(), String::new());
    for t in tags
        .iter()
        .filter(|t| t.name == "compiler" && t.kind != TagKind::Close)
    {
        let asset = attr(t.attrs, "assetdir").unwrap_or("");
        meshdir = attr(t.attrs, "meshdir").unwrap_or(asset).to_string();
        texturedir = attr(t.attrs, "texturedir").unwrap_or(asset).to_string();
        // The proven hulls are in meshes/ beside the export; the source's files are
        // referenced by absolute path below.
        let kept = drop_attrs(
            &text[t.span.clone()],
            &["meshdir", "assetdir", "texturedir"],
        );
        edits.push((t.span.clone(), with_attrs(&kept, " meshdir=\"meshes\"")));
    }
    let has_compiler = tags.iter().any(|t| t.name == "compiler");
    let mut found = 0;
    let mut has_collision_class = false;
    let mut excluded = std::collections::BTreeSet::new();
    for t in &tags {
        if t.kind == TagKind::Close {
            continue;
        }
        match t.name {
            "geom" if collision_at.contains(&t.span.start) => {
                found += 1;
                let kept = drop_attrs(&text[t.span.clone()], &["contype", "conaffinity", "group"]);
                edits.push((
                    t.span.clone(),
                    with_attrs(&kept, " contype=\"0\" conaffinity=\"0\" group=\"2\""),
                ));
            }
            "mesh" | "texture" | "hfield" | "skin" => {
                if let Some(file) = attr(t.attrs, "file") {
                    let dir = if t.name == "texture" {
                        &texturedir
                    } else {
                        &meshdir
                    };
                    let path = source_dir.join(dir).join(file);
                    let abs = std::path::absolute(&path).unwrap_or(path);
                    let kept = drop_attrs(&text[t.span.clone()], &["file"]);
                    edits.push((
                        t.span.clone(),
                        with_attrs(
                            &kept,
                            &format!(" file=\"{}\"", escape(&abs.to_string_lossy())),
                        ),
                    ));
                }
            }
            "default" if attr(t.attrs, "class") == Some("collision") => has_collision_class = true,
            "exclude" => {
                if let (Some(a), Some(b)) = (attr(t.attrs, "body1"), attr(t.attrs, "body2")) {
                    excluded.insert(crate::model::LinkPair::new(a, b));
                }
            }
            _ => {}
        }
    }
    if found != collision_at.len() {
        return Ok(None);
    }
    // The proven geoms: massless (the source's inertials, given or from its own geoms,
    // stay), colliding with each other only.
    let (geoms, assets, mut files) =
        proven_geoms(m, " contype=\"1\" conaffinity=\"1\" group=\"3\" mass=\"0\"")?;
    let mut placed = std::collections::BTreeSet::new();
    for t in &tags {
        let name = match (t.name, t.kind) {
            ("body", TagKind::Open) => attr(t.attrs, "name"),
            ("worldbody", TagKind::Open) => Some(WORLD),
            _ => continue,
        };
        let Some(lines) = name.and_then(|n| geoms.get(n)) else {
            continue;
        };
        let indent = format!("{}  ", indent_of(&text, t.span.start));
        let mut block = String::new();
        for line in lines.lines() {
            block += &format!("\n{indent}{line}");
        }
        edits.push((t.span.end..t.span.end, block));
        placed.insert(name.unwrap_or_default());
    }
    if placed.len() != geoms.len() {
        // A body without an opening tag of its own (`<body .../>`) or one not in this file.
        return Ok(None);
    }
    let Some(world) = tags
        .iter()
        .find(|t| t.name == "worldbody" && t.kind != TagKind::Close)
    else {
        return Ok(None);
    };
    let mut before_world = String::new();
    if !has_compiler {
        before_world += "  <compiler meshdir=\"meshes\"/>\n";
    }
    if !has_collision_class {
        before_world += "  <default>\n    <default class=\"collision\">\n      <geom group=\"3\"/>\n    </default>\n  </default>\n";
    }
    if !assets.is_empty() {
        before_world += &format!("  <asset>\n{assets}  </asset>\n");
    }
    let at = text[..world.span.start]
        .rfind('\n')
        .map_or(world.span.start, |i| i + 1);
    edits.push((at..at, before_world));
    let rows: Vec<_> = m
        .acm
        .iter()
        .filter(|r| !excluded.contains(&crate::model::LinkPair::new(&r.a, &r.b)))
        .collect();
    if !rows.is_empty() {
        let Some(end) = tags
            .iter()
            .rev()
            .find(|t| t.name == "mujoco" && t.kind == TagKind::Close)
        else {
            return Ok(None);
        };
        let mut block = String::from("  <!-- collide export: the ACM -->\n  <contact>\n");
        for r in rows {
            block += &format!(
                "    <exclude body1=\"{}\" body2=\"{}\"/>\n",
                escape(&r.a),
                escape(&r.b)
            );
        }
        block += "  </contact>\n";
        let at = text[..end.span.start]
            .rfind('\n')
            .map_or(end.span.start, |i| i + 1);
        edits.push((at..at, block));
    }
    edits.sort_by_key(|e| (e.0.start, e.0.end != e.0.start));
    let mut out = text.clone();
    for (r, s) in edits.into_iter().rev() {
        out.replace_range(r, &s);
    }
    let main = PathBuf::from(format!("{}.xml", m.robot));
    files.insert(
        0,
        File {
            path: main.clone(),
            bytes: out.into_bytes(),
        },
    );
    Ok(Some(Export {
        target: super::Target::Mjcf,
        main,
        files,
    }))
}

/// A start tag without the named attributes.
fn drop_attrs(tag: &str, names: &[&str]) -> String {
    let mut out = tag.to_string();
    for name in names {
        while let Some(at) = find_attr(&out, name) {
            let eq = at + out[at..].find('=').expect("found with its =");
            let rest = out[eq + 1..].trim_start();
            let q_at = out.len() - rest.len();
            let Some(q) = rest.chars().next().filter(|c| *c == '"' || *c == '\'') else {
                break;
            };
            let Some(close) = out[q_at + 1..].find(q) else {
                break;
            };
            let start = out[..at].trim_end().len();
            out.replace_range(start..q_at + 1 + close + 1, "");
        }
    }
    out
}

/// Where ` NAME=` starts in a tag (after white space, so `group` is not `subgroup`).
fn find_attr(tag: &str, name: &str) -> Option<usize> {
    let b = tag.as_bytes();
    let mut from = 0;
    while let Some(i) = tag[from..].find(name) {
        let at = from + i;
        let before = at > 0 && b[at - 1].is_ascii_whitespace();
        let after = tag[at + name.len()..].trim_start().starts_with('=');
        if before && after {
            return Some(at);
        }
        from = at + name.len();
    }
    None
}

/// A start tag with `attrs` added before its end (`>` or `/>`).
fn with_attrs(tag: &str, attrs: &str) -> String {
    let end = if tag.ends_with("/>") {
        tag.len() - 2
    } else {
        tag.len() - 1
    };
    let head = tag[..end].trim_end();
    format!("{head}{attrs}{}", &tag[end..])
}
