//! The crate's layers: every `crate::` path in `src/` points down the table below (or
//! into a leaf), never up or sideways. docs/architecture.md shows the same table.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Bottom first. A module may import the modules of lower layers and the leaves.
const LAYERS: &[&[&str]] = &[
    &["kernel"],
    &["geom"],
    &["fit"],
    &["model"],
    &["io"],
    &["manifest"],
    &["truth"],
    &["acm", "init", "lower", "sweep"],
    &["verify"],
    &["report", "export"],
    &["cli"],
];

/// Modules every layer but the kernel may use; they import only each other.
const LEAVES: &[&str] = &["error", "messages", "text", "progress"];

/// Edges within one layer, each with its reason.
const SIDEWAYS: &[(&str, &str, &str)] = &[
    (
        "lower",
        "acm",
        "the refinement prices the kernel `acm regenerate` will leave: its adjacency and its `never` branch and bounds, on the primitives and on the meshes",
    ),
    (
        "init",
        "acm",
        "the pairs init looks at are the ones `acm regenerate` will check (not adjacent), by the ACM's own rule",
    ),
];

/// The root files that only declare modules or start the binary.
const ROOTS: &[&str] = &["lib", "main"];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// Why `from` may not import `to`, or `None` when it may.
fn forbidden(from: &str, to: &str) -> Option<String> {
    if from == to || ROOTS.contains(&from) {
        return None;
    }
    if from == "kernel" {
        return Some("the kernel depends on nothing else in the crate".into());
    }
    if LEAVES.contains(&to) {
        return None;
    }
    if LEAVES.contains(&from) {
        return Some(format!("`{from}` is a leaf: it imports only other leaves"));
    }
    let (Some(f), Some(t)) = (layer_of(from), layer_of(to)) else {
        return Some(format!(
            "`{from}` or `{to}` is in no layer of tests/layers.rs"
        ));
    };
    if t < f || SIDEWAYS.iter().any(|(a, b, _)| *a == from && *b == to) {
        return None;
    }
    Some(if t == f {
        format!("`{from}` and `{to}` are one layer")
    } else {
        format!("`{to}` is above `{from}`")
    })
}

/// The top-level module a source file belongs to (`src/truth/mesh.rs` -> `truth`).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

/// The top-level modules named by `crate::` paths in `text`, comments left out, with the
/// line of each: `use crate::{a::b, c}` names `a` and `c`.
fn imported_modules(text: &str) -> Vec<(usize, String)> {
    let code: String = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let ident = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = code[from..].find("crate::") {
        let at = from + i;
        from = at + "crate::".len();
        let preceded = code[..at]
            .chars()
            .last()
            .is_some_and(|c| c.is_alphanumeric() || c == '_');
        if preceded {
            continue;
        }
        let line = code[..at].matches('\n').count() + 1;
        let after = &code[from..];
        if let Some(group) = after.strip_prefix('{') {
            // The group's items at its top level, possibly over several lines.
            let (mut depth, mut item_start) = (0usize, 0usize);
            for (k, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        out.push((line, ident(&group[item_start..k])));
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.push((line, ident(&group[item_start..k])));
                        item_start = k + 1;
                    }
                    _ => {}
                }
            }
        } else {
            let name = ident(after);
            // `crate::out!` and friends are macros exported at the root.
            if !after[name.len()..].starts_with('!') {
                out.push((line, name));
            }
        }
    }
    out.retain(|(_, n)| !n.is_empty());
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Every import of `src/` that breaks the rule: `file:line: from -> to: why`.
fn violations(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let from = module_of(src, &f);
        let text = std::fs::read_to_string(&f).unwrap();
        for (line, to) in imported_modules(&text) {
            if let Some(why) = forbidden(&from, &to) {
                out.push(format!(
                    "{}:{line}: {from} -> {to}: {why}",
                    f.strip_prefix(src.parent().unwrap()).unwrap().display()
                ));
            }
        }
    }
    out
}

#[test]
fn imports_point_down_only() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let bad = violations(&src);
    assert!(
        bad.is_empty(),
        "{} import(s) against the layers:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn every_top_level_module_has_a_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(&src, f)).collect();
    let unplaced: Vec<_> = modules
        .iter()
        .filter(|m| {
            layer_of(m).is_none() && !LEAVES.contains(&m.as_str()) && !ROOTS.contains(&m.as_str())
        })
        .collect();
    assert!(unplaced.is_empty(), "modules in no layer: {unplaced:?}");
}

#[test]
fn an_upward_import_is_caught() {
    let dir = std::env::temp_dir().join(format!("collide-layers-{}", std::process::id()));
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("geom")).unwrap();
    std::fs::create_dir_all(src.join("truth")).unwrap();
    std::fs::write(
        src.join("geom/hull.rs"),
        "use crate::kernel::vec3::V3;\n// crate::cli in a comment does not count\nuse crate::{\n    error::Result,\n    manifest::Manifest,\n};\n",
    )
    .unwrap();
    std::fs::write(
        src.join("truth/mesh.rs"),
        "fn f() { crate::sweep::run(); crate::outln!(\"x\"); }\n",
    )
    .unwrap();
    std::fs::write(src.join("kernel.rs"), "use crate::error::Error;\n").unwrap();
    let bad = violations(&src);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(bad.len(), 3, "{bad:#?}");
    assert!(bad[0].contains("geom -> manifest"), "{}", bad[0]);
    assert!(bad[1].contains("kernel -> error"), "{}", bad[1]);
    assert!(bad[2].contains("truth -> sweep"), "{}", bad[2]);
}

#[test]
fn siblings_need_a_listed_reason() {
    assert!(forbidden("lower", "acm").is_none());
    assert!(forbidden("acm", "lower").is_some());
    assert!(forbidden("sweep", "acm").is_some());
    assert!(forbidden("text", "manifest").is_some());
    assert!(forbidden("cli", "kernel").is_none());
}
