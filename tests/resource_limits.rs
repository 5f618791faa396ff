//! Every resource limit is enforced, names its flag, and gives way when the
//! flag raises it: the cases in tests/bad/limits.txt, plus the XML depth
//! default, its ceiling, and MJCF depth counted across includes.

mod common;

use std::path::Path;
use std::process::Output;

/// Runs `collide ARGS`; `lower` never writes (its --out points into `scratch`).
fn run(args: &[&str], scratch: &Path) -> Output {
    let mut cmd = common::collide();
    cmd.args(args);
    if args[0] == "lower" {
        cmd.arg("--out").arg(scratch.join("manifest.yaml"));
    }
    cmd.output().unwrap()
}

/// Exit 2 with one `error:` line that names a file and says `want`.
fn assert_refused(out: &Output, want: &str, what: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error")).collect();
    assert_eq!(out.status.code(), Some(2), "{what}: {stderr}");
    assert_eq!(errors.len(), 1, "{what}: {stderr}");
    assert!(
        errors[0].contains(want),
        "{what}: wanted `{want}` in {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
}

#[test]
fn each_limit_refuses_with_its_flag_and_the_default_lets_the_file_through() {
    let dir = common::repo().join("tests/bad");
    let scratch = tempfile::tempdir().unwrap();
    let list = std::fs::read_to_string(dir.join("limits.txt")).unwrap();
    let mut flags_seen = Vec::new();
    for line in list
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let mut fields = line.split('\t');
        let (file, command, want) = (
            fields.next().unwrap(),
            fields.next().unwrap(),
            fields.next().unwrap(),
        );
        let path = dir.join(file);
        let words: Vec<&str> = command.split_whitespace().collect();
        let (sub, flags) = words.split_first().unwrap();
        let mut args = vec![*sub, path.to_str().unwrap()];
        args.extend(flags);
        assert_refused(&run(&args, scratch.path()), want, line);
        flags_seen.push(flags[0].to_string());
        // Without the low limit (the defaults) the same file is read.
        let out = run(&[*sub, path.to_str().unwrap()], scratch.path());
        assert!(
            out.status.success(),
            "{line}: fails even at the default limits: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    for flag in [
        "--max-triangles",
        "--max-total-triangles",
        "--max-xml-bytes",
        "--max-xml-depth",
        "--max-include-depth",
    ] {
        assert!(flags_seen.iter().any(|f| f == flag), "{flag} is not tested");
    }
}

/// `<robot><link>` then `levels` nested `<x>` elements.
fn deep_urdf(levels: usize) -> String {
    format!(
        "<robot name=\"deep\"><link name=\"a\">{}{}</link></robot>",
        "<x>".repeat(levels),
        "</x>".repeat(levels)
    )
}

#[test]
fn the_default_depth_limit_is_256_and_the_flag_raises_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deep.urdf");
    // 2 (robot, link) + 300 levels.
    std::fs::write(&path, deep_urdf(300)).unwrap();
    let p = path.to_str().unwrap();
    assert_refused(
        &run(&["inspect", p], dir.path()),
        "XML nesting deeper than 256 levels (raise it with --max-xml-depth)",
        "default depth",
    );
    let out = run(&["inspect", p, "--max-xml-depth", "400"], dir.path());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_depth_flag_has_a_ceiling_that_keeps_the_readers_on_their_stack() {
    // Far deeper than any stack holds when read recursively.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deep.urdf");
    std::fs::write(&path, deep_urdf(200_000)).unwrap();
    let p = path.to_str().unwrap();
    let out = run(&["inspect", p, "--max-xml-depth", "1000000"], dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("1000000 is above 1000"), "{stderr}");
    assert_refused(
        &run(&["inspect", p, "--max-xml-depth", "1000"], dir.path()),
        "XML nesting deeper than 1000 levels",
        "at the ceiling",
    );
}

/// An MJCF body chain `levels` deep whose innermost body holds `inner`.
fn body_chain(prefix: &str, levels: usize, inner: &str) -> String {
    let mut s = String::new();
    for i in 0..levels {
        s += &format!("<body name=\"{prefix}{i}\"><geom size=\"0.01\"/>");
    }
    s += inner;
    s += &"</body>".repeat(levels);
    s
}

#[test]
fn mjcf_depth_counts_the_levels_of_included_files() {
    let dir = tempfile::tempdir().unwrap();
    // Each file is 602 levels deep, under the limit of 1000; spliced, 1200.
    let main = format!(
        "<mujoco><worldbody>{}</worldbody></mujoco>",
        body_chain("a", 600, "<include file=\"part.xml\"/>")
    );
    let part = format!(
        "<mujoco><worldbody>{}</worldbody></mujoco>",
        body_chain("b", 600, "")
    );
    std::fs::write(dir.path().join("main.xml"), main).unwrap();
    std::fs::write(dir.path().join("part.xml"), part).unwrap();
    let p = dir.path().join("main.xml");
    let p = p.to_str().unwrap();
    assert_refused(
        &run(&["fk", p, "--max-xml-depth", "1000"], dir.path()),
        "counting the levels of the files that include it",
        "include depth",
    );
}

#[test]
fn includes_that_fan_out_are_refused_before_they_fill_memory() {
    // a includes b 30 times, b includes c 30 times, ...: 30^4 = 810 000
    // copies of e's body from five files of a few hundred bytes each.
    let dir = tempfile::tempdir().unwrap();
    let names = ["a", "b", "c", "d", "e"];
    for pair in names.windows(2) {
        let includes = format!("<include file=\"{}.xml\"/>", pair[1]).repeat(30);
        std::fs::write(
            dir.path().join(format!("{}.xml", pair[0])),
            format!("<mujoco>{includes}</mujoco>"),
        )
        .unwrap();
    }
    std::fs::write(
        dir.path().join("e.xml"),
        "<mujoco><worldbody><body><geom size=\"0.1\"/></body></worldbody></mujoco>",
    )
    .unwrap();
    let a = dir.path().join("a.xml");
    let started = std::time::Instant::now();
    assert_refused(
        &run(&["fk", a.to_str().unwrap()], dir.path()),
        "more than 1000 includes expanded in one model",
        "include fan-out",
    );
    assert!(started.elapsed().as_secs() < 20);
}

#[test]
fn collada_nodes_that_fan_out_are_refused_at_the_triangle_limit() {
    use collide::io::mesh::{MeshLimits, load_mesh};
    // 4 kB whose <instance_node>s would place 1.28e9 copies of a triangle.
    let path = common::repo().join("tests/meshes/bad/instance_node_fanout.dae");
    let e = load_mesh(
        &path,
        [1.0; 3],
        &MeshLimits {
            max_triangles: 1000,
        },
    )
    .unwrap_err();
    assert!(
        e.message.contains("instance_node_fanout.dae:")
            && e.message.contains("places nodes more than 1000 times")
            && e.message.contains("--max-triangles"),
        "{}",
        e.message
    );
}

/// A binary STL whose header declares more triangles than `--max-triangles` is refused
/// from its header: its body, inside the byte cap (50-byte triangles against the cap's
/// 512), is never read. Shown with a 400 MB sparse file read under a 300 MB address-space
/// limit: reading it whole fails to allocate (an abort), checking the header does not.
#[test]
fn a_binary_stl_over_the_triangle_limit_is_refused_from_its_header() {
    let dir = tempfile::tempdir().unwrap();
    let declared: u32 = 8_000_000;
    let mut header = vec![0u8; 84];
    header[80..84].copy_from_slice(&declared.to_le_bytes());
    let big = dir.path().join("big.stl");
    std::fs::write(&big, &header).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&big)
        .unwrap()
        .set_len(84 + 50 * u64::from(declared))
        .unwrap();
    let urdf = dir.path().join("big.urdf");
    std::fs::write(
        &urdf,
        "<robot name=\"big\"><link name=\"a\"><collision><geometry><mesh filename=\"big.stl\"/></geometry></collision></link></robot>\n",
    )
    .unwrap();
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 300000 && exec \"$0\" inspect \"$1\" --max-triangles 1000000")
        .arg(env!("CARGO_BIN_EXE_collide"))
        .arg(&urdf)
        .output()
        .unwrap();
    assert_refused(
        &out,
        "big.stl: mesh has 8000000 triangles, over the limit of 1000000",
        "binary STL over the limit",
    );
}

#[test]
fn a_mesh_file_too_large_for_the_triangle_limit_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    // A 64 MiB binary STL that announces no triangles: sparse, so it costs no disk. At
    // --max-triangles 1000 no mesh can be over 1000 × 512 bytes + 1 MiB.
    let big = std::fs::File::create(dir.path().join("big.stl")).unwrap();
    big.set_len(64 << 20).unwrap();
    let urdf = dir.path().join("big.urdf");
    std::fs::write(
        &urdf,
        "<robot name=\"big\"><link name=\"a\"><collision><geometry><mesh filename=\"big.stl\"/></geometry></collision></link></robot>\n",
    )
    .unwrap();
    let out = run(
        &["inspect", urdf.to_str().unwrap(), "--max-triangles", "1000"],
        dir.path(),
    );
    assert_refused(
        &out,
        "big.stl: mesh file is 67108864 bytes, more than any mesh within the limit of 1000 triangles can take (1560576 bytes; raise it with --max-triangles)",
        "oversized mesh file",
    );
    // A real mesh well inside the same limit is still read.
    let cube = common::repo().join("tests/bad/limit_one_mesh.urdf");
    let out = run(
        &["inspect", cube.to_str().unwrap(), "--max-triangles", "1000"],
        dir.path(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
