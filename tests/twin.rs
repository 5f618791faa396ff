//! An MJCF twin's meshes join the URDF links whose frames coincide; an offset link is
//! reported and left alone.

mod common;

use collide::io::robot::{LoadOptions, load_robot};

#[test]
fn coinciding_links_fold_the_twin_and_offset_ones_are_reported() {
    let loaded = load_robot(
        &common::repo().join("tests/robots/twin/robot.yaml"),
        &LoadOptions::default(),
    )
    .unwrap();
    let robot = &loaded.robot;
    let link = |n: &str| &robot.links[robot.link_index(n).unwrap()];
    // upper: its own cylinder plus the twin's (visual) capsule.
    assert_eq!(link("upper").geometry.len(), 2);
    // base coincides too (both roots).
    assert_eq!(link("base").geometry.len(), 2);
    // tool is 5 mm higher in the twin: not folded, and the offset is named.
    assert_eq!(link("tool").geometry.len(), 1);
    let warning = robot
        .warnings
        .iter()
        .find(|w| w.contains("`tool`"))
        .expect("a warning for tool");
    assert!(warning.contains("5.00 mm"), "{warning}");
    // The twin is a source of the manifest.
    assert!(loaded.sources.iter().any(|(given, _)| given == "arm.xml"));
}
