//! A robot config's `allow:` list: pairs the user exempts from checking, each with a reason.
//!
//! A by-design contact (a gripper's fingers touching when closed) cannot be proven
//! harmless; it can only be decided. `allow:` is where that decision is written down and
//! reviewed: `acm regenerate` turns each entry into a `user` row of the manifest, and
//! `verify` refuses a `user` row that the config does not hold.

use crate::error::{Error, Result};
use crate::model::{LinkPair, Robot};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_saphyr::Spanned;
use std::collections::HashMap;
use std::path::Path;

/// One `allow:` entry: `{a: LINK, b: LINK, reason: "fingers touch when closed"}`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AllowEntry {
    pub a: String,
    pub b: String,
    pub reason: String,
    /// Line and column of the entry in the config, for messages (filled in after parsing).
    #[serde(skip)]
    pub at: Option<(u32, u32)>,
}

impl AllowEntry {
    /// The pair, the lower name first, as manifest rows are written.
    pub fn pair(&self) -> LinkPair {
        LinkPair::new(&self.a, &self.b)
    }
}

/// Where each `allow:` entry and its fields are, to point at the one refused.
#[derive(Deserialize)]
struct Locator {
    #[serde(default)]
    allow: Option<Vec<Spanned<EntryLocator>>>,
}

#[derive(Deserialize)]
struct EntryLocator {
    #[serde(default)]
    a: Option<Spanned<IgnoredAny>>,
    #[serde(default)]
    b: Option<Spanned<IgnoredAny>>,
    #[serde(default)]
    reason: Option<Spanned<IgnoredAny>>,
}

fn position(l: &serde_saphyr::Location) -> Option<(u32, u32)> {
    (l.line() > 0).then(|| (l.line() as u32, l.column().max(1) as u32))
}

/// Which field of an entry a problem is about.
#[derive(Clone, Copy)]
enum Field {
    Entry,
    A,
    B,
    Reason,
}

/// Line and column of entry `i` (or one of its fields) in `text`.
fn locate(text: &str, i: usize, field: Field) -> Option<(u32, u32)> {
    let loc: Locator = serde_saphyr::from_str(text).ok()?;
    let entry = loc.allow?.into_iter().nth(i)?;
    let spanned = match field {
        Field::Entry => None,
        Field::A => entry.value.a,
        Field::B => entry.value.b,
        Field::Reason => entry.value.reason,
    };
    match spanned {
        Some(s) => position(&s.referenced),
        None => position(&entry.referenced),
    }
}

/// Records where each entry is written in `text` (the config the entries came from).
pub fn locate_entries(entries: &mut [AllowEntry], text: &str) {
    for (i, e) in entries.iter_mut().enumerate() {
        e.at = locate(text, i, Field::Entry);
    }
}

/// Refuses an entry naming a link the robot lacks or one without geometry, a link paired
/// with itself, a pair given twice (in either order) and a blank reason: one error at the
/// entry's line in `path`.
pub fn check_entries(entries: &[AllowEntry], robot: &Robot, path: &Path, text: &str) -> Result<()> {
    let fail = |i: usize, field: Field, name: &str, why: String| {
        Error::at(
            path,
            locate(text, i, field),
            format!("allow[{i}]{name}: {why}"),
        )
    };
    let mut seen: HashMap<LinkPair, usize> = HashMap::new();
    for (i, e) in entries.iter().enumerate() {
        for (field, name, link) in [(Field::A, ".a", &e.a), (Field::B, ".b", &e.b)] {
            match robot.link_index(link) {
                None => {
                    return Err(fail(
                        i,
                        field,
                        name,
                        format!("link `{link}` is not in robot `{}`", robot.name),
                    ));
                }
                Some(k) if robot.links[k].geometry.is_empty() => {
                    return Err(fail(
                        i,
                        field,
                        name,
                        format!(
                            "link `{link}` has no geometry: the kernel never checks it, so there is nothing to exempt"
                        ),
                    ));
                }
                Some(_) => {}
            }
        }
        if e.a == e.b {
            return Err(fail(
                i,
                Field::B,
                ".b",
                format!("link `{}` is paired with itself", e.a),
            ));
        }
        if e.reason.trim().is_empty() {
            return Err(fail(
                i,
                Field::Reason,
                ".reason",
                "is empty: say why the pair may touch (it is what review and `verify` show)"
                    .to_string(),
            ));
        }
        if let Some(first) = seen.insert(e.pair(), i) {
            let first_at = locate(text, first, Field::Entry)
                .map(|(line, _)| format!(" (line {line})"))
                .unwrap_or_default();
            return Err(fail(
                i,
                Field::Entry,
                "",
                format!(
                    "pair {} / {} is already exempted by allow[{first}]{first_at}",
                    e.a, e.b
                ),
            ));
        }
    }
    Ok(())
}

/// `name` as a YAML scalar: plain when that reads back as the same string, else quoted.
pub fn scalar(name: &str) -> String {
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./".contains(c))
        && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && !matches!(
            name.to_ascii_lowercase().as_str(),
            "y" | "n" | "yes" | "no" | "on" | "off" | "true" | "false" | "null"
        );
    if plain {
        name.to_string()
    } else {
        quoted(name)
    }
}

/// A double-quoted YAML scalar (JSON's escapes are YAML's).
pub fn quoted(text: &str) -> String {
    serde_json::to_string(text).expect("a string serializes")
}

/// One entry as a flow mapping, the way a person writes it.
fn entry_text(e: &AllowEntry) -> String {
    format!(
        "{{a: {}, b: {}, reason: {}}}",
        scalar(&e.a),
        scalar(&e.b),
        quoted(&e.reason)
    )
}

/// `text` (a robot config) with `entries` appended to its `allow:` list, every other byte
/// kept (comments, order, layout); the list is created at the end when there is none.
/// Fails (with why) on a layout it cannot extend safely, such as a non-empty flow list.
pub fn append_entries(text: &str, entries: &[AllowEntry]) -> std::result::Result<String, String> {
    if entries.is_empty() {
        return Ok(text.to_string());
    }
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let is_key = |l: &str| {
        l.strip_prefix("allow")
            .is_some_and(|rest| rest.trim_start().starts_with(':'))
    };
    let Some(key) = lines.iter().position(|l| is_key(l)) else {
        let mut out = text.to_string();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out += "allow:\n";
        for e in entries {
            out += &format!("  - {}\n", entry_text(e));
        }
        return Ok(out);
    };
    // What follows `allow:` on its own line, comments aside.
    let after = lines[key].split_once(':').map_or("", |(_, v)| v);
    let (value, comment) = match after.find(" #") {
        Some(i) => (&after[..i], &after[i..]),
        None => (after, ""),
    };
    let mut out: Vec<String> = lines[..key].iter().map(|l| l.to_string()).collect();
    match value.trim() {
        "" => out.push(lines[key].to_string()),
        "~" | "null" | "[]" => out.push(format!("allow:{}\n", comment.trim_end())),
        other => {
            return Err(format!(
                "its `allow:` is written `{other}` on one line; write it as a block list (one `- {{a: ..., b: ..., reason: ...}}` per line) to let collide extend it"
            ));
        }
    }
    // The block runs to the next top-level line (a key, or the end); `- ` items may sit at
    // column 0 under a top-level key.
    let block_end = (key + 1..lines.len())
        .find(|&i| {
            let l = lines[i];
            !l.trim().is_empty()
                && !l.starts_with([' ', '\t', '#'])
                && !l.starts_with("- ")
                && l.trim_end() != "-"
        })
        .unwrap_or(lines.len());
    let is_content = |l: &str| !l.trim().is_empty() && !l.trim_start().starts_with('#');
    let last = (key + 1..block_end)
        .rev()
        .find(|&i| is_content(lines[i]))
        .unwrap_or(key);
    let indent = (key + 1..block_end)
        .map(|i| lines[i])
        .find(|l| l.trim_start().starts_with('-'))
        .map_or("  ".to_string(), |l| {
            l[..l.len() - l.trim_start().len()].to_string()
        });
    out.extend(lines[key + 1..=last].iter().map(|l| l.to_string()));
    if let Some(l) = out.last_mut()
        && !l.ends_with('\n')
    {
        l.push('\n');
    }
    for e in entries {
        out.push(format!("{indent}- {}\n", entry_text(e)));
    }
    out.extend(lines[last + 1..].iter().map(|l| l.to_string()));
    Ok(out.concat())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(a: &str, b: &str, reason: &str) -> AllowEntry {
        AllowEntry {
            a: a.into(),
            b: b.into(),
            reason: reason.into(),
            at: None,
        }
    }

    #[derive(Deserialize)]
    struct Doc {
        #[serde(default)]
        allow: Option<Vec<AllowEntry>>,
    }

    fn parsed(text: &str) -> Vec<(String, String, String)> {
        let d: Doc = serde_saphyr::from_str(text).unwrap();
        d.allow
            .unwrap_or_default()
            .into_iter()
            .map(|e| (e.a, e.b, e.reason))
            .collect()
    }

    #[test]
    fn a_missing_list_is_created_at_the_end_and_the_rest_kept() {
        let text = "name: r\n# keep me\nurdf: r.urdf";
        let out = append_entries(text, &[entry("a", "b", "say \"why\": 1")]).unwrap();
        assert!(
            out.starts_with("name: r\n# keep me\nurdf: r.urdf\nallow:\n"),
            "{out}"
        );
        assert_eq!(
            parsed(&out),
            [("a".into(), "b".into(), "say \"why\": 1".into())]
        );
    }

    #[test]
    fn entries_join_an_existing_block_list_before_the_next_key() {
        let text = "name: r\nallow:   # by design\n  - a: x\n    b: y\n    reason: one\n  # a note\n\nrest_pose: home\n";
        let out = append_entries(text, &[entry("on", "p-1", "two")]).unwrap();
        assert_eq!(
            out,
            "name: r\nallow:   # by design\n  - a: x\n    b: y\n    reason: one\n  - {a: \"on\", b: p-1, reason: \"two\"}\n  # a note\n\nrest_pose: home\n"
        );
        assert_eq!(parsed(&out).len(), 2);
        assert_eq!(parsed(&out)[1].0, "on");
    }

    #[test]
    fn column_zero_items_and_empty_lists_are_extended() {
        let out = append_entries(
            "allow:\n- {a: x, b: y, reason: r}\nname: n\n",
            &[entry("u", "v", "w")],
        )
        .unwrap();
        assert_eq!(
            out,
            "allow:\n- {a: x, b: y, reason: r}\n- {a: u, b: v, reason: \"w\"}\nname: n\n"
        );
        let out = append_entries("name: n\nallow: []\n", &[entry("u", "v", "w")]).unwrap();
        assert_eq!(out, "name: n\nallow:\n  - {a: u, b: v, reason: \"w\"}\n");
        assert!(
            append_entries(
                "allow: [{a: x, b: y, reason: r}]\n",
                &[entry("u", "v", "w")]
            )
            .is_err()
        );
    }
}
