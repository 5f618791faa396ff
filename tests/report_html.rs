//! `collide report` renders in a real browser: the page for three robots is opened in
//! headless Chromium and every robot section, with its pictures, must be in the rendered DOM
//! (the page's inline script writes what it counted). The set-up installs Debian's
//! `chromium` when it is missing; the test is skipped, saying so, only when that is
//! impossible. And `report --out DIR` writes nothing outside DIR.

mod common;

use std::path::PathBuf;
use std::process::Command;

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    })
}

fn find_chromium() -> Option<PathBuf> {
    ["chromium", "chromium-browser"]
        .iter()
        .find_map(|n| on_path(n))
}

/// Installs `chromium` with apt-get (waiting for another apt to finish), or says why not.
fn ensure_chromium() -> Result<PathBuf, String> {
    if let Some(p) = find_chromium() {
        return Ok(p);
    }
    if on_path("apt-get").is_none() {
        return Err("no apt-get on this machine".into());
    }
    let install = |args: &[&str]| {
        Command::new("apt-get")
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .map(|s| s.success())
            .unwrap_or(false)
    };
    let lock = "DPkg::Lock::Timeout=600";
    eprintln!("chromium is missing: apt-get install -y chromium");
    if !install(&["install", "-y", "-o", lock, "chromium"]) {
        install(&["update", "-o", lock]);
        install(&["install", "-y", "-o", lock, "chromium"]);
    }
    find_chromium().ok_or_else(|| "apt-get could not install chromium".into())
}

/// A hand-made robot of tests/robots (one that needs no installed meshes) lowered in a
/// scratch copy: its directory and its manifest.
fn lowered(name: &str) -> (tempfile::TempDir, PathBuf) {
    let (dir, config) = common::ScratchRobot::folder(name).lowered(&[]).build();
    (dir, config.with_file_name("manifest.yaml"))
}

/// The `<svg class="CLASS"` elements of one robot's section of `html`.
fn svgs<'a>(html: &'a str, robot: &str, class: &str) -> Vec<&'a str> {
    let start = html
        .find(&format!("id=\"robot-{robot}\""))
        .unwrap_or_else(|| panic!("no section for {robot}"));
    let section = &html[start..];
    let section = &section[..section.find("</section>").unwrap()];
    section
        .split(&format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"{class}\""
        ))
        .skip(1)
        .map(|s| &s[..s.find("</svg>").unwrap()])
        .collect()
}

#[test]
fn the_report_writes_under_its_out_directory_only() {
    let (_boxes_dir, boxes) = lowered("two_boxes");
    let cwd = tempfile::tempdir().unwrap();
    let run = common::collide()
        .current_dir(cwd.path())
        .args(["report", boxes.to_str().unwrap(), "--poses", "100"])
        .args(["--out", "out"])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let mut written: Vec<String> = walk(cwd.path());
    written.sort();
    assert_eq!(written, vec!["out/index.html".to_string()]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(stdout.contains("wrote out/index.html\n"), "{stdout}");
    assert!(!stdout.contains("fleet.md"), "{stdout}");
}

/// Every file below `dir`, relative to it.
fn walk(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out
}

#[test]
fn the_report_renders_every_robot_section_in_chromium() {
    let tmp = tempfile::tempdir().unwrap();
    let (_boxes_dir, boxes) = lowered("two_boxes");
    let (_arm_dir, arm) = lowered("planar_arm");
    common::site();
    let panda = common::repo().join("robots/franka_panda/manifest.yaml");
    let out_dir = tmp.path().join("report");
    let md = tmp.path().join("fleet.md");
    let run = common::collide()
        .args(["report", boxes.to_str().unwrap(), arm.to_str().unwrap()])
        .arg(panda.to_str().unwrap())
        .args(["--poses", "200", "--out", out_dir.to_str().unwrap()])
        .args(["--fleet-md", md.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let page = out_dir.join("index.html");
    let html = std::fs::read_to_string(&page).unwrap();
    // Self-contained: nothing is fetched.
    for external in ["<link", "src=", "@import", "url(", "href=\"http"] {
        assert!(!html.contains(external), "the page references `{external}`");
    }
    let fleet = std::fs::read_to_string(&md).unwrap();
    for needle in [
        // Free space first, the sweep's figures after it.
        "| robot | free poses | refused free % | reach kept % | rest | first false trips (rays) | poses | contacts (mesh / hull) |",
        "| refused (single-capsule / fit / all-tight) | slop-only fit (mesh / hull) |",
        "| two_boxes | ",
        "| planar_arm | ",
        "| franka_panda | ",
        "## franka_panda",
        "| set | free poses | refused free | refused free % | reach kept % | rest | first false trips (rays) |",
        "200 rays x 24 steps from the rest pose (ray seed 11)",
        // The boxes overlap at rest, on the meshes too.
        "trips; meshes touch: base/slider",
    ] {
        assert!(fleet.contains(needle), "fleet.md lacks {needle}:\n{fleet}");
    }
    // Each robot drawn whole at rest (three views) and its reach plot.
    for robot in ["two_boxes", "planar_arm", "franka_panda"] {
        assert_eq!(svgs(&html, robot, "robot-view").len(), 3, "{robot}");
        let plot = svgs(&html, robot, "reach-plot");
        assert_eq!(plot.len(), 1, "{robot}");
        assert!(plot[0].contains("reach kept"), "{robot}");
    }
    // The cubes trip at rest: both drawn in red, the kernel's distance labelled.
    let rest = svgs(&html, "two_boxes", "robot-view");
    assert!(
        rest.iter()
            .all(|v| v.matches("class=\"trip\"").count() == 2)
    );
    assert!(
        rest.iter().all(|v| v.contains("1 · -52.0 mm")),
        "{}",
        rest[0]
    );
    // The planar arm's rest is clear, and its bars reach where the meshes touch.
    assert!(!svgs(&html, "planar_arm", "robot-view")[0].contains("class=\"trip\""));
    let plot = svgs(&html, "planar_arm", "reach-plot")[0];
    assert!(plot.contains("class=\"kept\" d=\"M") && plot.contains("class=\"stop\" d=\"M"));

    let chromium = match ensure_chromium() {
        Ok(c) => c,
        Err(why) => {
            println!("SKIPPED the_report_renders_every_robot_section_in_chromium: {why}");
            return;
        }
    };
    let profile = tempfile::tempdir().unwrap();
    let dom = Command::new("timeout")
        .arg("180")
        .arg(&chromium)
        .args(["--headless", "--no-sandbox", "--disable-gpu"])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    assert!(
        dom.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&dom.stderr)
    );
    let dom = String::from_utf8_lossy(&dom.stdout);
    // Two links for the boxes and the arm, eleven for the Panda, three views each.
    assert!(
        dom.contains(
            "rendered 3 robot sections with 45 link pictures, 9 rest views and 3 reach plots"
        ),
        "the page's script did not count the sections: {}",
        &dom[..dom.len().min(2000)]
    );
    for robot in ["two_boxes", "planar_arm", "franka_panda"] {
        let start = dom
            .find(&format!("id=\"robot-{robot}\""))
            .unwrap_or_else(|| panic!("no section for {robot}"));
        let section = &dom[start..];
        let section = &section[..section.find("</section>").unwrap()];
        assert!(section.contains("<table class=\"sweep\">"));
        assert!(section.contains("<table class=\"free\">"));
        assert!(section.contains("single-capsule") && section.contains("all-tight"));
        assert!(section.contains("<svg") && section.contains("class=\"truth\""));
    }
}
