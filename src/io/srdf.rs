//! SRDF reader: disabled collision pairs, named joint states, virtual and passive joints.

use super::xml::{Element, XmlLimits, parse_file, parse_str};
use crate::error::Location;
use crate::error::Result;
use crate::model::Robot;
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Debug, Clone)]
pub struct DisabledPair {
    pub a: String,
    pub b: String,
    pub reason: Option<String>,
    pub location: Location,
}

#[derive(Debug, Clone)]
pub struct GroupState {
    pub name: String,
    pub group: String,
    pub values: BTreeMap<String, f64>,
    pub location: Location,
}

#[derive(Debug, Clone, Default)]
pub struct Srdf {
    pub disabled: Vec<DisabledPair>,
    pub group_states: Vec<GroupState>,
    pub virtual_joints: Vec<String>,
    pub passive_joints: Vec<String>,
}

impl Srdf {
    pub fn group_state(&self, name: &str) -> Option<&GroupState> {
        self.group_states.iter().find(|g| g.name == name)
    }
}

/// Reads an SRDF, checking every link and joint it names against `robot`.
pub fn read_srdf(path: &Path, robot: &Robot, limits: &XmlLimits) -> Result<Srdf> {
    srdf_from_xml(&parse_file(path, limits)?, robot)
}

/// [`read_srdf`] on text already in memory (fuzzing, tests); `path` names it in errors.
pub fn parse_srdf(text: &str, path: &Path, robot: &Robot, limits: &XmlLimits) -> Result<Srdf> {
    srdf_from_xml(&parse_str(text, path, limits)?, robot)
}

fn srdf_from_xml(root: &Element, robot: &Robot) -> Result<Srdf> {
    if root.name != "robot" {
        return Err(root.location.error(format!(
            "expected an SRDF <robot> root element, found <{}>",
            root.name
        )));
    }
    let mut srdf = Srdf::default();
    let check_link = |name: &str, loc: &Location| -> Result<()> {
        if robot.link_index(name).is_none() {
            return Err(loc.error(format!("link `{name}` is not in robot `{}`", robot.name)));
        }
        Ok(())
    };
    // Group states may give values for virtual joints (a floating base), declared anywhere.
    let virtual_names: Vec<&str> = root
        .children_named("virtual_joint")
        .filter_map(|v| v.attr("name"))
        .collect();
    for el in &root.children {
        match el.name.as_str() {
            "disable_collisions" => {
                let a = el.required("link1")?;
                let b = el.required("link2")?;
                check_link(a, &el.location)?;
                check_link(b, &el.location)?;
                srdf.disabled.push(DisabledPair {
                    a: a.to_string(),
                    b: b.to_string(),
                    reason: el.attr("reason").map(str::to_string),
                    location: el.location.clone(),
                });
            }
            "group_state" => {
                let mut values = BTreeMap::new();
                for j in el.children_named("joint") {
                    let name = j.required("name")?;
                    let attr = j.attribute("value").ok_or_else(|| {
                        j.location.error("<joint> is missing the attribute `value`")
                    })?;
                    let v = super::xml::parse_floats(attr, 0)?;
                    // A floating base (a virtual joint, or Pinocchio's `root_joint` with its 7
                    // values) is not a joint of the kinematic tree: its value is not needed.
                    if virtual_names.contains(&name)
                        || (robot.joint_index(name).is_none() && v.len() >= 3)
                    {
                        continue;
                    }
                    if robot.joint_index(name).is_none() {
                        return Err(j
                            .location
                            .error(format!("joint `{name}` is not in robot `{}`", robot.name)));
                    }
                    let Some(&first) = v.first() else {
                        return Err(j
                            .location
                            .error(format!("joint `{name}` has an empty value")));
                    };
                    values.insert(name.to_string(), first);
                }
                srdf.group_states.push(GroupState {
                    name: el.required("name")?.to_string(),
                    group: el.attr("group").unwrap_or("").to_string(),
                    values,
                    location: el.location.clone(),
                });
            }
            "virtual_joint" => {
                if let Some(child) = el.attr("child_link") {
                    check_link(child, &el.location)?;
                }
                srdf.virtual_joints.push(el.required("name")?.to_string());
            }
            "passive_joint" => srdf.passive_joints.push(el.required("name")?.to_string()),
            _ => {}
        }
    }
    Ok(srdf)
}

/// A `disable_collisions` row to write: its links, its reason (`Adjacent`, `Never`, ...)
/// and a comment written above it.
pub struct WrittenPair<'a> {
    pub a: &'a str,
    pub b: &'a str,
    pub reason: &'a str,
    pub comment: Option<&'a str>,
}

/// An SRDF holding only `disable_collisions` rows, MoveIt's ACM, under a header comment.
pub fn srdf_text(robot: &str, header: &str, rows: &[WrittenPair]) -> String {
    use crate::text::escape;
    let mut out = format!(
        "<?xml version=\"1.0\" ?>\n<!-- {} -->\n<robot name=\"{}\">\n",
        xml_comment(header),
        escape(robot)
    );
    for r in rows {
        if let Some(c) = r.comment {
            out += &format!("  <!-- {} -->\n", xml_comment(c));
        }
        out += &format!(
            "  <disable_collisions link1=\"{}\" link2=\"{}\" reason=\"{}\"/>\n",
            escape(r.a),
            escape(r.b),
            escape(r.reason)
        );
    }
    out += "</robot>\n";
    out
}

/// Text safe inside `<!-- -->`: no `--`, and no line breaks.
fn xml_comment(s: &str) -> String {
    let mut out = crate::messages::one_line(s).into_owned();
    while out.contains("--") {
        out = out.replace("--", "- -");
    }
    if out.ends_with('-') {
        out.push(' ');
    }
    out
}
