//! An owned XML element tree with source positions, built on roxmltree.
//!
//! Owning the tree lets MJCF splice `<include>`d files in place and lets every
//! reader report `file:line:col` without keeping the text alive.

use crate::error::{Error, Location, Result};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The most `--max-xml-depth` may raise the depth limit to: the readers
/// recurse once per level, and this keeps them well within a thread's stack
/// (an MJCF body tree overflows 8 MiB at about 2000 levels in a debug build).
pub const MAX_XML_DEPTH_CEILING: usize = 1000;

/// Limits on what an XML file may be; `--max-xml-bytes` and `--max-xml-depth` raise them
/// (the depth up to [`MAX_XML_DEPTH_CEILING`], whatever `max_depth` says).
#[derive(Debug, Clone, Copy)]
pub struct XmlLimits {
    pub max_bytes: u64,
    pub max_depth: usize,
}

impl Default for XmlLimits {
    fn default() -> Self {
        XmlLimits {
            max_bytes: 64 << 20,
            max_depth: 256,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Attribute {
    pub name: String,
    pub value: String,
    pub location: Location,
}

#[derive(Debug, Clone)]
pub struct Element {
    pub name: String,
    pub attributes: Vec<Attribute>,
    pub children: Vec<Element>,
    pub location: Location,
}

impl Element {
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|a| a.name == name)
            .map(|a| a.value.as_str())
    }

    pub fn attribute(&self, name: &str) -> Option<&Attribute> {
        self.attributes.iter().find(|a| a.name == name)
    }

    /// The attribute's value, or an error naming the element and the attribute.
    pub fn required(&self, name: &str) -> Result<&str> {
        self.attr(name).ok_or_else(|| {
            self.location
                .error(format!("<{}> is missing the attribute `{name}`", self.name))
        })
    }

    pub fn children_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> + 'a {
        self.children.iter().filter(move |c| c.name == name)
    }

    pub fn child(&self, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.name == name)
    }

    /// A float attribute; `None` when absent, an error when present but not a finite number.
    pub fn f64_attr(&self, name: &str) -> Result<Option<f64>> {
        match self.attribute(name) {
            None => Ok(None),
            Some(a) => parse_floats(a, 1).map(|v| Some(v[0])),
        }
    }

    /// An attribute holding exactly `N` finite numbers separated by white space.
    pub fn vec_attr<const N: usize>(&self, name: &str) -> Result<Option<[f64; N]>> {
        match self.attribute(name) {
            None => Ok(None),
            Some(a) => {
                let v = parse_floats(a, N)?;
                let mut out = [0.0; N];
                out.copy_from_slice(&v);
                Ok(Some(out))
            }
        }
    }
}

/// Parses an attribute as finite numbers, requiring `count` of them (0: any count).
pub fn parse_floats(attr: &Attribute, count: usize) -> Result<Vec<f64>> {
    let mut values = Vec::new();
    for token in attr.value.split_whitespace() {
        let v: f64 = token.parse().map_err(|_| {
            attr.location.error(format!(
                "`{}` is not a number in {}=\"{}\"",
                token, attr.name, attr.value
            ))
        })?;
        if !v.is_finite() {
            return Err(attr
                .location
                .error(format!("{}=\"{}\" is not finite", attr.name, attr.value)));
        }
        values.push(v);
    }
    if count != 0 && values.len() != count {
        return Err(attr.location.error(format!(
            "{}=\"{}\" needs {} number{}, found {}",
            attr.name,
            attr.value,
            count,
            if count == 1 { "" } else { "s" },
            values.len()
        )));
    }
    Ok(values)
}

/// Reads and parses an XML file into an owned tree rooted at its root element.
pub fn parse_file(path: &Path, limits: &XmlLimits) -> Result<Element> {
    let meta =
        std::fs::metadata(path).map_err(|e| Error::at(path, None, format!("cannot read: {e}")))?;
    if meta.is_dir() {
        return Err(Error::at(
            path,
            None,
            "is a directory, expected an XML file",
        ));
    }
    if meta.len() > limits.max_bytes {
        return Err(Error::at(
            path,
            None,
            format!(
                "{} bytes is over the XML size limit of {} (raise it with --max-xml-bytes)",
                meta.len(),
                limits.max_bytes
            ),
        ));
    }
    let bytes =
        std::fs::read(path).map_err(|e| Error::at(path, None, format!("cannot read: {e}")))?;
    let text = String::from_utf8(bytes)
        .map_err(|e| Error::at(path, None, format!("is not UTF-8 text: {e}")))?;
    parse_str(&text, path, limits)
}

/// Parses XML text already in memory; `path` names it in errors.
pub fn parse_str(text: &str, path: &Path, limits: &XmlLimits) -> Result<Element> {
    if text.len() as u64 > limits.max_bytes {
        return Err(Error::at(
            path,
            None,
            format!(
                "{} bytes is over the XML size limit of {} (raise it with --max-xml-bytes)",
                text.len(),
                limits.max_bytes
            ),
        ));
    }
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        nodes_limit: 10_000_000,
        ..Default::default()
    };
    let doc = roxmltree::Document::parse_with_options(text, options).map_err(|e| {
        let pos = e.pos();
        Error::at(
            path,
            Some((pos.row, pos.col)),
            format!("malformed XML: {e}"),
        )
    })?;
    let file = Arc::new(path.to_path_buf());
    convert(&doc, doc.root_element(), &file, 1, limits)
}

fn convert(
    doc: &roxmltree::Document,
    node: roxmltree::Node,
    file: &Arc<PathBuf>,
    depth: usize,
    limits: &XmlLimits,
) -> Result<Element> {
    let at = |pos: usize| {
        let p = doc.text_pos_at(pos);
        Location {
            file: file.clone(),
            line: p.row,
            col: p.col,
        }
    };
    let location = at(node.range().start);
    if depth > limits.max_depth.min(MAX_XML_DEPTH_CEILING) {
        return Err(location.error(depth_message(limits)));
    }
    let attributes = node
        .attributes()
        .map(|a| Attribute {
            name: a.name().to_string(),
            value: a.value().to_string(),
            location: at(a.range().start),
        })
        .collect();
    let mut children = Vec::new();
    for child in node.children().filter(|c| c.is_element()) {
        children.push(convert(doc, child, file, depth + 1, limits)?);
    }
    Ok(Element {
        name: node.tag_name().name().to_string(),
        attributes,
        children,
        location,
    })
}

/// Why an element is refused for its depth.
pub fn depth_message(limits: &XmlLimits) -> String {
    if limits.max_depth > MAX_XML_DEPTH_CEILING {
        format!("XML nesting deeper than {MAX_XML_DEPTH_CEILING} levels, the most collide reads")
    } else {
        format!(
            "XML nesting deeper than {} levels (raise it with --max-xml-depth)",
            limits.max_depth
        )
    }
}
