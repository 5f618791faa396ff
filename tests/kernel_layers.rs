//! The kernel's own files import one way (issue 32 item 5): no file of `src/kernel/` reaches
//! itself through the `super::`/`crate::kernel::` paths of its non-test code. The order
//! they follow: vec3 < scan < climb < support_table < shapes < dop26 < gjk < distance_* < model <
//! workspace < fk < check < witness < world.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The kernel module a file belongs to (`gjk/simplex.rs` belongs to `gjk`).
fn module_of(rel: &Path) -> String {
    let mut parts = rel.iter().map(|p| p.to_string_lossy().into_owned());
    let first = parts.next().unwrap();
    first.trim_end_matches(".rs").to_string()
}

/// The kernel modules `text`'s code (not its comments, not its tests) names by path.
fn references(text: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    let mut out = BTreeSet::new();
    for line in code.lines() {
        let line = line.split("//").next().unwrap_or("");
        for prefix in ["super::", "crate::kernel::"] {
            for (i, _) in line.match_indices(prefix) {
                let rest = &line[i + prefix.len()..];
                let rest = rest.strip_prefix("super::").unwrap_or(rest);
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if modules.contains(&name) {
                    out.insert(name);
                }
            }
        }
    }
    out
}

fn files(dir: &Path, root: &Path, out: &mut Vec<(String, String)>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, root, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            let rel = p.strip_prefix(root).unwrap().to_path_buf();
            out.push((module_of(&rel), std::fs::read_to_string(&p).unwrap()));
        }
    }
}

fn graph(sources: &[(String, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let modules: BTreeSet<String> = sources.iter().map(|(m, _)| m.clone()).collect();
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (m, text) in sources {
        let refs = references(text, &modules);
        g.entry(m.clone())
            .or_default()
            .extend(refs.into_iter().filter(|r| r != m && r != "mod"));
    }
    g
}

/// Pairs `(a, b)` where `a` uses `b` and `b` reaches `a`.
fn cycles(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<(String, String)> {
    let reach = |a: &str| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![a.to_string()];
        while let Some(x) = stack.pop() {
            for y in g.get(&x).into_iter().flatten() {
                if seen.insert(y.clone()) {
                    stack.push(y.clone());
                }
            }
        }
        seen
    };
    let mut out = Vec::new();
    for (a, uses) in g {
        for b in uses {
            if reach(b).contains(a) {
                out.push((a.clone(), b.clone()));
            }
        }
    }
    out
}

#[test]
fn the_kernels_files_import_one_way() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/kernel");
    let mut sources = Vec::new();
    files(&root, &root, &mut sources);
    let g = graph(&sources);
    assert!(g.len() >= 15, "{g:?}");
    assert!(g["check"].contains("workspace") && g["fk"].contains("workspace"));
    // The world check sits on top: it uses what the self check does, nothing uses it.
    assert!(g["world"].contains("workspace") && g["world"].contains("gjk"));
    assert!(
        g.iter()
            .all(|(m, uses)| m == "world" || !uses.contains("world"))
    );
    let c = cycles(&g);
    assert!(c.is_empty(), "import circles in src/kernel: {c:?}");
}

#[test]
fn a_circle_is_found() {
    // Positive control: two files naming each other.
    let sources = vec![
        ("a".to_string(), "use super::b::X;\n".to_string()),
        (
            "b".to_string(),
            "fn f() { crate::kernel::a::g() } // super::c\n".to_string(),
        ),
        (
            "c".to_string(),
            "use super::a::Y;\n#[cfg(test)]\nuse super::b::Z;\n".to_string(),
        ),
    ];
    let g = graph(&sources);
    assert_eq!(cycles(&g).len(), 2);
    assert!(!g["c"].contains("b"), "a test's import counts");
    assert!(!g["b"].contains("c"), "a comment counts");
}
