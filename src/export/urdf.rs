//! The URDF the ros, pinocchio and drake targets share: the source URDF with only its
//! `<collision>` blocks replaced (every other byte kept), or, for an MJCF source, a URDF
//! built from the manifest's joints.

use crate::error::{Error, Result};
use crate::export::{Piece, num, pieces, up};
use crate::io::robot::LoadedRobot;
use crate::manifest::{JointKind, Link, Manifest};
use crate::model::SourceFormat;
use crate::text::escape;
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// What a target writes into each link (its collision blocks, and for pinocchio the
/// `<collision_checking>` tags), with every line at `indent`.
pub type LinkText<'a> = dyn Fn(&Link, &[Piece], &str) -> String + 'a;

/// A file of the target's folder: its path there and its bytes.
pub type OwnFile = (String, Vec<u8>);

/// The URDF of a target: `link_text` per link, `robot_attrs` added to `<robot>` (a
/// namespace), `tail` before `</robot>` (Drake's filter groups); and the files it refers
/// to (path in the target's folder, bytes): the hull OBJs, and the source's meshes named
/// by a path relative to it, copied (see [`relocate_relative_meshes`]). `own` is how the
/// target's URDF names a file of its own folder (`package://NAME_collide/` for ros, the
/// empty prefix of a path relative to the URDF otherwise).
pub fn urdf(
    m: &Manifest,
    loaded: &LoadedRobot,
    link_text: &LinkText,
    robot_attrs: &str,
    tail: &str,
    own: &str,
) -> Result<(String, Vec<OwnFile>)> {
    let mut blocks: BTreeMap<&str, (&Link, Vec<Piece>)> = BTreeMap::new();
    let mut files = Vec::new();
    for l in m.links.iter().filter(|l| !l.primitives.is_empty()) {
        let p = pieces(l)?;
        for piece in &p {
            if let Piece::Hull { file, obj, .. } = piece {
                files.push((file.clone(), obj.clone().into_bytes()));
            }
        }
        blocks.insert(&l.name, (l, p));
    }
    let text = match loaded.robot.format {
        SourceFormat::Urdf => {
            let source = match &loaded.xacro {
                Some(x) => x.urdf.clone(),
                None => std::fs::read_to_string(&loaded.robot.source).map_err(|e| {
                    Error::at(&loaded.robot.source, None, format!("cannot read: {e}"))
                })?,
            };
            let spliced = splice(&source, &blocks, link_text, robot_attrs, tail)
                .map_err(|why| Error::at(&loaded.robot.source, None, why))?;
            let hulls: Vec<String> = files.iter().map(|(f, _)| format!("{own}{f}")).collect();
            let (text, copied) = relocate_relative_meshes(&spliced, loaded, own, &hulls)?;
            files.extend(copied);
            text
        }
        SourceFormat::Mjcf => generate(m, &blocks, link_text, robot_attrs, tail)?,
    };
    Ok((text, files))
}

/// Where the source's meshes are copied to in the target's folder.
const SOURCE_MESHES: &str = "meshes/source";

/// `text` (the source URDF, spliced) with every mesh it names by a path relative to the
/// source (`../meshes/base.STL`, `meshes/arm.stl`, `file://meshes/a.stl`) copied into the
/// target's folder, as `meshes/source/FILE` (`FILE_2`... when two files share a name), and
/// named `own` + that path: such a path would not resolve from the folder the URDF is
/// written to. `package://`, absolute and `file:///` references resolve wherever the URDF
/// is, and are kept; so are the export's own `skip` files.
fn relocate_relative_meshes(
    text: &str,
    loaded: &LoadedRobot,
    own: &str,
    skip: &[String],
) -> Result<(String, Vec<OwnFile>)> {
    let source = &loaded.robot.source;
    let tags = tags(text).map_err(|why| Error::at(source, None, why))?;
    let mut copied: Vec<(PathBuf, String)> = Vec::new();
    let mut files = Vec::new();
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    for t in tags
        .iter()
        .filter(|t| t.name == "mesh" && t.kind != TagKind::Close)
    {
        let Some(value) = attr(t.attrs, "filename") else {
            continue;
        };
        let reference = unescape(value);
        let path_part = reference.strip_prefix("file://").unwrap_or(&reference);
        if reference.contains("://") && !reference.starts_with("file://")
            || Path::new(path_part).is_absolute()
            || skip.contains(&reference)
        {
            continue;
        }
        let file = loaded.resolver.resolve(&reference, source, None)?;
        let dest = match copied.iter().find(|(p, _)| *p == file) {
            Some((_, dest)) => dest.clone(),
            None => {
                let dest = unique_name(&file, &copied);
                let bytes = std::fs::read(&file)
                    .map_err(|e| Error::at(&file, None, format!("cannot read: {e}")))?;
                files.push((dest.clone(), bytes));
                copied.push((file, dest.clone()));
                dest
            }
        };
        let at = value.as_ptr() as usize - text.as_ptr() as usize;
        edits.push((at..at + value.len(), escape(&format!("{own}{dest}"))));
    }
    let mut out = text.to_string();
    for (r, s) in edits.into_iter().rev() {
        out.replace_range(r, &s);
    }
    Ok((out, files))
}

/// An attribute value's text as a reader sees it (the predefined entities decoded).
fn unescape(value: &str) -> String {
    value
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// `meshes/source/NAME` for `file`, with `_2`, `_3`... before the extension when another
/// file already took the name.
fn unique_name(file: &Path, taken: &[(PathBuf, String)]) -> String {
    let name = file
        .file_name()
        .map_or_else(|| "mesh".to_string(), |n| n.to_string_lossy().into_owned());
    let (stem, ext) = match name.rfind('.') {
        Some(i) if i > 0 => (&name[..i], &name[i..]),
        _ => (name.as_str(), ""),
    };
    (1..)
        .map(|k| match k {
            1 => format!("{SOURCE_MESHES}/{name}"),
            _ => format!("{SOURCE_MESHES}/{stem}_{k}{ext}"),
        })
        .find(|d| !taken.iter().any(|(_, t)| t == d))
        .expect("an unused name")
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum TagKind {
    Open,
    Close,
    Empty,
}

pub(super) struct Tag<'t> {
    pub span: Range<usize>,
    pub name: &'t str,
    pub kind: TagKind,
    /// The text between the name and the end of the tag.
    pub attrs: &'t str,
}

/// The element tags of `text` in order, skipping comments, CDATA, processing
/// instructions and declarations (which may hold `<` in text).
pub(super) fn tags(text: &str) -> std::result::Result<Vec<Tag<'_>>, String> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(off) = text[i..].find('<') {
        let start = i + off;
        let rest = &text[start..];
        let skip_to = |end: &str| {
            rest.find(end)
                .map(|e| start + e + end.len())
                .ok_or_else(|| format!("unterminated markup at byte {start}"))
        };
        if rest.starts_with("<!--") {
            i = skip_to("-->")?;
            continue;
        }
        if rest.starts_with("<![CDATA[") {
            i = skip_to("]]>")?;
            continue;
        }
        if rest.starts_with("<?") {
            i = skip_to("?>")?;
            continue;
        }
        if rest.starts_with("<!") {
            i = skip_to(">")?;
            continue;
        }
        // An element tag: up to the `>` outside quotes.
        let mut quote = None;
        let mut end = None;
        for (k, ch) in rest.char_indices().skip(1) {
            match (quote, ch) {
                (None, '"' | '\'') => quote = Some(ch),
                (Some(q), c) if c == q => quote = None,
                (None, '>') => {
                    end = Some(start + k + 1);
                    break;
                }
                _ => {}
            }
        }
        let end = end.ok_or_else(|| format!("unterminated tag at byte {start}"))?;
        let inner = &text[start + 1..end - 1];
        let (kind, inner) = if let Some(s) = inner.strip_prefix('/') {
            (TagKind::Close, s)
        } else if let Some(s) = inner.strip_suffix('/') {
            (TagKind::Empty, s)
        } else {
            (TagKind::Open, inner)
        };
        let name_len = inner
            .find(|c: char| c.is_whitespace())
            .unwrap_or(inner.len());
        out.push(Tag {
            span: start..end,
            name: &inner[..name_len],
            kind,
            attrs: &inner[name_len..],
        });
        i = end;
    }
    Ok(out)
}

/// The value of attribute `name` in a tag's attribute text.
pub(super) fn attr<'t>(attrs: &'t str, name: &str) -> Option<&'t str> {
    let mut rest = attrs;
    loop {
        rest = rest.trim_start();
        let eq = rest.find('=')?;
        let key = rest[..eq].trim();
        let after = rest[eq + 1..].trim_start();
        let q = after.chars().next()?;
        if q != '"' && q != '\'' {
            return None;
        }
        let close = after[1..].find(q)? + 1;
        if key == name {
            return Some(&after[1..close]);
        }
        rest = &after[close + 1..];
    }
}

/// `range` grown to whole lines when only whitespace shares its lines.
fn whole_lines(text: &str, range: Range<usize>) -> Range<usize> {
    let line_start = text[..range.start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[range.end..]
        .find('\n')
        .map_or(text.len(), |i| range.end + i + 1);
    if text[line_start..range.start].trim().is_empty()
        && text[range.end..line_end].trim().is_empty()
    {
        line_start..line_end
    } else {
        range
    }
}

pub(super) fn indent_of(text: &str, at: usize) -> String {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    text[line_start..at]
        .chars()
        .take_while(|c| c.is_whitespace())
        .collect()
}

fn splice(
    text: &str,
    blocks: &BTreeMap<&str, (&Link, Vec<Piece>)>,
    link_text: &LinkText,
    robot_attrs: &str,
    tail: &str,
) -> std::result::Result<String, String> {
    let tags = tags(text)?;
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    let mut depth = 0usize;
    let mut seen = Vec::new();
    // The link open at depth 1: its name, the indent of its tag, its collision spans.
    let mut link: Option<(String, String, Vec<Range<usize>>)> = None;
    let mut collision_start: Option<usize> = None;
    let mut robot_close = None;
    for t in &tags {
        match t.kind {
            TagKind::Open => {
                if depth == 0 && t.name == "robot" && !robot_attrs.is_empty() {
                    edits.push((t.span.end - 1..t.span.end - 1, robot_attrs.to_string()));
                }
                if depth == 1 && t.name == "link" {
                    let name = attr(t.attrs, "name").ok_or("a <link> without a name")?;
                    link = Some((name.to_string(), indent_of(text, t.span.start), Vec::new()));
                }
                if depth == 2 && t.name == "collision" && link.is_some() {
                    collision_start = Some(t.span.start);
                }
                depth += 1;
            }
            TagKind::Close => {
                depth = depth
                    .checked_sub(1)
                    .ok_or("a closing tag without its opening")?;
                if depth == 2
                    && t.name == "collision"
                    && let (Some(s), Some(l)) = (collision_start.take(), link.as_mut())
                {
                    l.2.push(s..t.span.end);
                }
                if depth == 1 && t.name == "link" {
                    let (name, indent, spans) = link.take().ok_or("a stray </link>")?;
                    if let Some((l, p)) = blocks.get(name.as_str()) {
                        // The source's own indentation of a collision block, when it has one.
                        let inner = match spans.first() {
                            Some(s) => indent_of(text, s.start),
                            None => format!("{indent}  "),
                        };
                        let new = link_text(l, p, &inner);
                        let lines: Vec<Range<usize>> =
                            spans.iter().map(|s| whole_lines(text, s.clone())).collect();
                        let at = match lines.first() {
                            Some(r) if text[r.start..r.end].ends_with('\n') => r.start,
                            Some(r) => {
                                edits.push((r.start..r.start, "\n".into()));
                                r.start
                            }
                            None => {
                                let close = whole_lines(text, t.span.clone());
                                if close.start < t.span.start {
                                    close.start
                                } else {
                                    edits.push((t.span.start..t.span.start, "\n".into()));
                                    t.span.start
                                }
                            }
                        };
                        edits.push((at..at, new));
                        for r in lines {
                            edits.push((r, String::new()));
                        }
                        seen.push(name);
                    }
                }
                if depth == 0 && t.name == "robot" {
                    robot_close = Some(t.span.start);
                }
            }
            TagKind::Empty => {
                if depth == 0 && t.name == "robot" {
                    return Err("the <robot> element is empty".into());
                }
                if depth == 1 && t.name == "link" {
                    let name = attr(t.attrs, "name").ok_or("a <link> without a name")?;
                    if let Some((l, p)) = blocks.get(name) {
                        let indent = indent_of(text, t.span.start);
                        let new = link_text(l, p, &format!("{indent}  "));
                        let tag = &text[t.span.start..t.span.end - 2];
                        edits.push((
                            t.span.clone(),
                            format!("{}>\n{new}{indent}</link>", tag.trim_end()),
                        ));
                        seen.push(name.to_string());
                    }
                }
                if depth == 2
                    && t.name == "collision"
                    && let Some(l) = link.as_mut()
                {
                    l.2.push(t.span.clone());
                }
            }
        }
    }
    for name in blocks.keys() {
        if !seen.iter().any(|s| s == name) {
            return Err(format!(
                "the manifest's link `{name}` is not a <link> of this URDF"
            ));
        }
    }
    if !tail.is_empty() {
        let at = robot_close.ok_or("no </robot>")?;
        let at = whole_lines(text, at..at + "</robot>".len()).start;
        edits.push((at..at, tail.to_string()));
    }
    // Insertions before the removals at the same place; applied back to front.
    edits.sort_by_key(|e| (e.0.start, e.0.end != e.0.start));
    let mut out = text.to_string();
    for (r, s) in edits.into_iter().rev() {
        out.replace_range(r, &s);
    }
    Ok(out)
}

/// A URDF from the manifest's joints alone (an MJCF source has no URDF to keep): links,
/// joints with their limits and mimics, the proven geometry.
fn generate(
    m: &Manifest,
    blocks: &BTreeMap<&str, (&Link, Vec<Piece>)>,
    link_text: &LinkText,
    robot_attrs: &str,
    tail: &str,
) -> Result<String> {
    let mut out = format!(
        "<?xml version=\"1.0\"?>\n<!-- written by collide export from the manifest of {} (its source is MJCF): joints and proven collision geometry only -->\n<robot name=\"{}\"{robot_attrs}>\n",
        escape(&m.robot),
        escape(&m.robot)
    );
    let mut names: Vec<&str> = Vec::new();
    if let Some(j) = m.joints.first() {
        names.push(&j.parent);
    }
    names.extend(m.joints.iter().map(|j| j.child.as_str()));
    for l in &m.links {
        if !names.contains(&l.name.as_str()) {
            names.push(&l.name);
        }
    }
    for name in names {
        match blocks.get(name) {
            Some((l, p)) => {
                out += &format!("  <link name=\"{}\">\n", escape(name));
                out += &link_text(l, p, "    ");
                out += "  </link>\n";
            }
            None => out += &format!("  <link name=\"{}\"/>\n", escape(name)),
        }
    }
    for j in &m.joints {
        if j.pivot.is_some() {
            return Err(Error::input(format!(
                "joint `{}` turns about an axis off its frame's origin (an MJCF hinge with `pos`), which a URDF joint cannot express; export --target mjcf instead",
                j.name
            )));
        }
        out += &format!(
            "  <joint name=\"{}\" type=\"{}\">\n    <parent link=\"{}\"/>\n    <child link=\"{}\"/>\n    <origin xyz=\"{}\" rpy=\"{}\"/>\n",
            escape(&j.name),
            j.kind.as_str(),
            escape(&j.parent),
            escape(&j.child),
            triple(j.origin_xyz),
            triple(j.origin_rpy)
        );
        if j.kind != JointKind::Fixed {
            out += &format!("    <axis xyz=\"{}\"/>\n", triple(j.axis));
        }
        if let Some([lo, hi]) = j.limits {
            out += &format!(
                "    <limit lower=\"{}\" upper=\"{}\" effort=\"0\" velocity=\"0\"/>\n",
                num(lo),
                num(hi)
            );
        }
        if let Some(mm) = &j.mimic {
            out += &format!(
                "    <mimic joint=\"{}\" multiplier=\"{}\" offset=\"{}\"/>\n",
                escape(&mm.joint),
                num(mm.multiplier),
                num(mm.offset)
            );
        }
        out += "  </joint>\n";
    }
    out += tail;
    out += "</robot>\n";
    Ok(out)
}

pub fn triple(v: [f64; 3]) -> String {
    format!("{} {} {}", num(v[0]), num(v[1]), num(v[2]))
}

/// One `<collision>` block: its name, origin and geometry element.
pub fn collision(indent: &str, name: &str, xyz: [f64; 3], rpy: [f64; 3], geometry: &str) -> String {
    let origin = if xyz == [0.0; 3] && rpy == [0.0; 3] {
        String::new()
    } else {
        format!(
            "{indent}  <origin xyz=\"{}\" rpy=\"{}\"/>\n",
            triple(xyz),
            triple(rpy)
        )
    };
    format!(
        "{indent}<collision name=\"{}\">\n{origin}{indent}  <geometry>\n{indent}    {geometry}\n{indent}  </geometry>\n{indent}</collision>\n",
        escape(name)
    )
}

/// A sphere of printed radius `r` centred at `at` (link frame): a capsule's end cap, or a
/// capsule of no length.
pub fn sphere_block(indent: &str, name: &str, at: [f64; 3], r: &str) -> String {
    collision(
        indent,
        name,
        at,
        [0.0; 3],
        &format!("<sphere radius=\"{r}\"/>"),
    )
}

/// A hull's mesh in the link frame; `mesh` is the whole `<mesh .../>` element, as the
/// target spells it.
pub fn mesh_block(indent: &str, name: &str, mesh: &str) -> String {
    collision(indent, name, [0.0; 3], [0.0; 3], mesh)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn link(name: &str) -> Link {
        let yaml = format!(
            "name: {name}\nprimitives: [{{kind: capsule, a: [0.0, 0.0, 0.0], b: [0.0, 0.0, 0.1], radius: 0.02}}]\nfit: {{choice: capsule, max_protrusion_m: 0.0, mean_protrusion_m: 0.0, min_margin_m: 0.001, vertices: 8, triangles: 12, candidates: []}}\n"
        );
        serde_saphyr::from_str(&yaml).unwrap()
    }

    /// Only `<collision>` blocks change: a comment that holds one, a self-closing link and
    /// a link without collisions keep their bytes, and the new blocks take the old place.
    #[test]
    fn splice_replaces_collision_blocks_only() {
        let source = "<?xml version=\"1.0\"?>\n<robot name=\"r\">\n  <!-- <collision> in a comment -->\n  <link name=\"a\">\n    <visual><geometry><box size=\"1 1 1\"/></geometry></visual>\n    <collision>\n      <geometry><box size=\"1 1 1\"/></geometry>\n    </collision>\n    <inertial/>\n  </link>\n  <link name=\"b\"/>\n  <link name=\"c\">\n  </link>\n</robot>\n";
        let (la, lb) = (link("a"), link("b"));
        let mut blocks = BTreeMap::new();
        blocks.insert("a", (&la, Vec::new()));
        blocks.insert("b", (&lb, Vec::new()));
        let text = |l: &Link, _: &[Piece], indent: &str| {
            format!("{indent}<collision name=\"{}__x\"/>\n", l.name)
        };
        let out = splice(source, &blocks, &text, "", "").unwrap();
        assert_eq!(
            out,
            "<?xml version=\"1.0\"?>\n<robot name=\"r\">\n  <!-- <collision> in a comment -->\n  <link name=\"a\">\n    <visual><geometry><box size=\"1 1 1\"/></geometry></visual>\n    <collision name=\"a__x\"/>\n    <inertial/>\n  </link>\n  <link name=\"b\">\n    <collision name=\"b__x\"/>\n  </link>\n  <link name=\"c\">\n  </link>\n</robot>\n"
        );
        // A manifest link the URDF lacks is an error, not a silent drop.
        let lz = link("z");
        blocks.insert("z", (&lz, Vec::new()));
        assert!(splice(source, &blocks, &text, "", "").is_err());
    }

    #[test]
    fn sizes_round_up_and_positions_read_back_exactly() {
        use crate::export::{num, up};
        assert_eq!(up(0.0703), "0.0703");
        assert_eq!(up(0.12272347000000001), "0.122723471");
        assert_eq!(up(0.1 + 0.2), "0.300000001");
        for x in [0.1 + 0.2, -std::f64::consts::FRAC_PI_2, 1e-7] {
            assert_eq!(num(x).parse::<f64>().unwrap(), x);
            assert!(up(x.abs()).parse::<f64>().unwrap() >= x.abs());
        }
        assert_eq!(num(-0.0), "0");
    }
}
