//! `collide report` renders in a real browser: the page for two robots is opened in headless
//! Chromium and every robot section, with its pictures, must be in the rendered DOM (the
//! page's inline script writes what it counted). The set-up installs Debian's `chromium`
//! when it is missing; the test is skipped, saying so, only when that is impossible.

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

#[test]
fn the_report_renders_every_robot_section_in_chromium() {
    let tmp = tempfile::tempdir().unwrap();
    // tests/robots/two_boxes lowered in a scratch copy (a robot that needs no installed meshes).
    let (_boxes_dir, boxes) = common::ScratchRobot::folder("two_boxes")
        .lowered(&[])
        .build();
    let boxes = boxes.with_file_name("manifest.yaml");
    common::site();
    let panda = common::repo().join("robots/franka_panda/manifest.yaml");
    let out_dir = tmp.path().join("report");
    let md = tmp.path().join("fleet.md");
    let run = common::collide()
        .args(["report", boxes.to_str().unwrap(), panda.to_str().unwrap()])
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
        "| robot | poses | contacts (mesh / hull) |",
        "false stops single-capsule",
        "| two_boxes | 200 |",
        "| franka_panda | 200 |",
        "## franka_panda",
    ] {
        assert!(fleet.contains(needle), "fleet.md lacks {needle}:\n{fleet}");
    }

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
    // Two links for the boxes, eleven for the Panda, three views each.
    assert!(
        dom.contains("rendered 2 robot sections with 39 pictures"),
        "the page's script did not count the sections: {}",
        &dom[..dom.len().min(2000)]
    );
    for robot in ["two_boxes", "franka_panda"] {
        let start = dom
            .find(&format!("id=\"robot-{robot}\""))
            .unwrap_or_else(|| panic!("no section for {robot}"));
        let section = &dom[start..];
        let section = &section[..section.find("</section>").unwrap()];
        assert!(section.contains("<table class=\"sweep\">"));
        assert!(section.contains("single-capsule") && section.contains("all-tight"));
        assert!(section.contains("<svg") && section.contains("class=\"truth\""));
    }
}
