//! The URDF reader on every example-robot-data file, cross-checked against urdf-rs,
//! plus the SRDF and MJCF readers on the real robots.

mod common;

use collide::io::robot::{LoadOptions, load_robot};
use collide::io::srdf::read_srdf;
use collide::io::xml::XmlLimits;
use collide::model::JointKind;
use std::path::{Path, PathBuf};

fn files_with(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files_with(&p, ext, out);
        } else if p.extension().is_some_and(|x| x == ext) {
            out.push(p);
        }
    }
}

/// The two files the issue names as unreadable: an empty robot and one naming missing meshes.
const EXPECTED_FAILURES: [&str; 2] = ["ur3.urdf", "romeo_laas_small.urdf"];

#[test]
fn every_example_robot_data_urdf_reads_and_agrees_with_urdf_rs() {
    let mut urdfs = Vec::new();
    files_with(&common::erd(), "urdf", &mut urdfs);
    urdfs.sort();
    assert_eq!(urdfs.len(), 69);
    let (mut read, mut cross_checked) = (0, 0);
    for path in &urdfs {
        let name = path.file_name().unwrap().to_str().unwrap();
        let ours = load_robot(path, &LoadOptions::default());
        if EXPECTED_FAILURES.contains(&name) {
            let err = ours.expect_err(name);
            assert!(
                err.message.contains(name),
                "error must name the file: {}",
                err.message
            );
            assert_eq!(err.message.lines().count(), 1);
            continue;
        }
        let robot = ours.unwrap_or_else(|e| panic!("{name}: {e}")).robot;
        read += 1;
        // urdf-rs refuses some valid files (e.g. <texture/> without a filename); compare where it reads.
        let Ok(theirs) = urdf_rs::read_file(path) else {
            continue;
        };
        cross_checked += 1;
        assert_eq!(theirs.links.len(), robot.links.len(), "{name}: link count");
        assert_eq!(
            theirs.joints.len(),
            robot.joints.len(),
            "{name}: joint count"
        );
        for tj in &theirs.joints {
            let j = &robot.joints[robot
                .joint_index(&tj.name)
                .unwrap_or_else(|| panic!("{name}: joint {}", tj.name))];
            assert_eq!(
                robot.links[j.parent].name, tj.parent.link,
                "{name}: {} parent",
                tj.name
            );
            assert_eq!(
                robot.links[j.child].name, tj.child.link,
                "{name}: {} child",
                tj.name
            );
            assert_eq!(j.origin_xyz, *tj.origin.xyz, "{name}: {} xyz", tj.name);
            assert_eq!(j.origin_rpy, *tj.origin.rpy, "{name}: {} rpy", tj.name);
            if matches!(j.kind, JointKind::Revolute | JointKind::Prismatic) {
                assert_eq!(
                    j.limits,
                    Some((tj.limit.lower, tj.limit.upper)),
                    "{name}: {} limits",
                    tj.name
                );
                let n = tj.axis.xyz.iter().map(|v| v * v).sum::<f64>().sqrt();
                for (a, b) in j.axis.iter().zip(tj.axis.xyz.iter()) {
                    assert!((a - b / n).abs() < 1e-15, "{name}: {} axis", tj.name);
                }
            }
            let expected_kind = match tj.joint_type {
                urdf_rs::JointType::Revolute => JointKind::Revolute,
                urdf_rs::JointType::Continuous => JointKind::Continuous,
                urdf_rs::JointType::Prismatic => JointKind::Prismatic,
                _ => JointKind::Fixed,
            };
            assert_eq!(j.kind, expected_kind, "{name}: {} type", tj.name);
            // A <mimic> on a fixed joint is ignored (a fixed joint does not move).
            let moving_mimic = tj.mimic.is_some() && expected_kind != JointKind::Fixed;
            assert_eq!(j.mimic.is_some(), moving_mimic, "{name}: {} mimic", tj.name);
        }
    }
    assert_eq!(read, 67);
    assert!(
        cross_checked >= 60,
        "urdf-rs read only {cross_checked} files"
    );
    eprintln!("{read} URDFs read, {cross_checked} cross-checked against urdf-rs");
}

#[test]
fn every_example_robot_data_srdf_reads_against_its_robot() {
    let erd = common::erd();
    let cases = [
        (
            "panda_description/urdf/panda.urdf",
            "panda_description/srdf/panda.srdf",
            35,
        ),
        (
            "ur_description/urdf/ur5_robot.urdf",
            "ur_description/srdf/ur5.srdf",
            0,
        ),
        (
            "pr2_description/urdf/pr2.urdf",
            "pr2_description/srdf/pr2.srdf",
            0,
        ),
    ];
    for (urdf, srdf, rows) in cases {
        let robot = load_robot(&erd.join(urdf), &LoadOptions::default())
            .unwrap()
            .robot;
        let s = read_srdf(&erd.join(srdf), &robot, &XmlLimits::default())
            .unwrap_or_else(|e| panic!("{srdf}: {e}"));
        if rows > 0 {
            assert_eq!(s.disabled.len(), rows, "{srdf}");
        }
    }
    let panda = load_robot(
        &erd.join("panda_description/urdf/panda.urdf"),
        &LoadOptions::default(),
    )
    .unwrap()
    .robot;
    let s = read_srdf(
        &erd.join("panda_description/srdf/panda.srdf"),
        &panda,
        &XmlLimits::default(),
    )
    .unwrap();
    // The shipped SRDF calls Franka's ready pose "default".
    let ready = s.group_state("default").expect("panda has its ready pose");
    assert_eq!(ready.values["panda_joint4"], -2.35619);
    assert_eq!(ready.values.len(), 8);
}

#[test]
fn srdf_naming_an_unknown_link_is_an_error_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let srdf = dir.path().join("bad.srdf");
    std::fs::write(
        &srdf,
        "<robot name=\"chain\">\n  <disable_collisions link1=\"base\" link2=\"arm\"/>\n  <disable_collisions link1=\"base\" link2=\"nope\" reason=\"Never\"/>\n</robot>\n",
    )
    .unwrap();
    let robot = load_robot(
        &common::repo().join("tests/robots/chain.urdf"),
        &LoadOptions::default(),
    )
    .unwrap()
    .robot;
    let err = read_srdf(&srdf, &robot, &XmlLimits::default()).unwrap_err();
    assert!(err.message.contains("bad.srdf:3:3"), "{}", err.message);
    assert!(err.message.contains("`nope`"), "{}", err.message);
}

#[test]
fn every_robosuite_robot_and_the_openarm_read() {
    let site = common::site();
    let mut files: Vec<PathBuf> = std::fs::read_dir(site.join("robosuite/models/assets/robots"))
        .unwrap()
        .map(|e| e.unwrap().path().join("robot.xml"))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(files.len() >= 11, "{files:?}");
    files.push(site.join("share/openarm_mujoco/v2/openarm_bimanual.xml"));
    for f in &files {
        let robot = load_robot(f, &LoadOptions::default())
            .unwrap_or_else(|e| panic!("{e}"))
            .robot;
        assert!(robot.links.len() > 5, "{}", f.display());
        assert!(robot.links.iter().any(|l| !l.geometry.is_empty()));
    }
    let openarm = load_robot(files.last().unwrap(), &LoadOptions::default())
        .unwrap()
        .robot;
    // <equality joint1=finger_joint1 joint2=finger_joint2 polycoef="0 1 ..."/>: joint1 follows joint2.
    let f1 = &openarm.joints[openarm.joint_index("openarm_left_finger_joint1").unwrap()];
    let m = f1.mimic.as_ref().expect("equality-coupled finger");
    assert_eq!(openarm.joints[m.leader].name, "openarm_left_finger_joint2");
    assert_eq!((m.multiplier, m.offset), (1.0, 0.0));
}
