//! Forward kinematics: a hand-derived chain, and Pinocchio / MuJoCo reference poses
//! of real robots (fixtures made by scripts/fk_reference.py).

mod common;

use collide::io::robot::{LoadOptions, load_robot};
use collide::model::Configuration;
use collide::model::kinematics::forward;
use collide::model::rotation::rpy_to_quat;
use std::collections::BTreeMap;

#[test]
fn hand_derived_chain() {
    let loaded = load_robot(
        &common::repo().join("tests/robots/chain.urdf"),
        &LoadOptions::default(),
    )
    .unwrap();
    let robot = &loaded.robot;
    let (theta, s) = (0.7_f64, 0.15);
    let q = Configuration::from_named(
        robot,
        &BTreeMap::from([("shoulder".into(), theta), ("slide".into(), s)]),
    )
    .unwrap();
    let poses = forward(robot, &q);
    let at = |name: &str| poses[robot.link_index(name).unwrap()];
    // slider: 1 m up, then (0.5 + s) along the rotated x axis.
    let slider = at("slider").translation.vector;
    let r = 0.5 + s;
    for (got, want) in slider.iter().zip([r * theta.cos(), r * theta.sin(), 1.0]) {
        assert!((got - want).abs() < 1e-12, "{slider:?}");
    }
    // tool: 0.1 further up, rolled 90 degrees about its x axis.
    let tool = at("tool");
    assert!((tool.translation.vector.z - 1.1).abs() < 1e-12);
    let want_rot = *(rpy_to_quat([0.0, 0.0, theta])
        * rpy_to_quat([std::f64::consts::FRAC_PI_2, 0.0, 0.0]))
    .to_rotation_matrix()
    .matrix();
    assert!(
        (tool.rotation.to_rotation_matrix().matrix() - want_rot)
            .abs()
            .max()
            < 1e-12
    );
    // finger follows slide x2 + 0.1 along the tool's y axis, which the roll turned to world z.
    let finger = at("finger").translation.vector;
    let travel = 2.0 * s + 0.1;
    assert!((finger.z - (1.1 + travel)).abs() < 1e-12, "{finger:?}");
    // Naming the follower is refused: it has no value of its own.
    assert!(
        Configuration::from_named(robot, &BTreeMap::from([("finger_joint".into(), 0.1)])).is_err()
    );
}

#[test]
fn matches_pinocchio_and_mujoco() {
    let site = common::site();
    let dir = common::repo().join("tests/fixtures/fk");
    let mut checked = 0;
    let mut off = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let fixture: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let source = fixture["source"].as_str().unwrap();
        let file = match source.strip_prefix("package://") {
            Some(rel) => site.join("cmeel.prefix/share").join(rel),
            None => common::repo().join(source),
        };
        let loaded = load_robot(&file, &LoadOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let robot = &loaded.robot;
        let mut worst = 0.0f64;
        for config in fixture["configs"].as_array().unwrap() {
            let named: BTreeMap<String, f64> = serde_json::from_value(config["q"].clone()).unwrap();
            let q = Configuration::from_named(robot, &named).unwrap();
            let poses = forward(robot, &q);
            for (name, want) in config["links"].as_object().unwrap() {
                if name == "universe" || name == "world" {
                    continue;
                }
                let li = robot
                    .link_index(name)
                    .unwrap_or_else(|| panic!("{}: no link {name}", path.display()));
                let pose = poses[li];
                let xyz: Vec<f64> = serde_json::from_value(want["xyz"].clone()).unwrap();
                let rot: Vec<Vec<f64>> = serde_json::from_value(want["rot"].clone()).unwrap();
                let t = pose.translation.vector;
                let m = pose.rotation.to_rotation_matrix();
                for i in 0..3 {
                    worst = worst.max((t[i] - xyz[i]).abs());
                    for j in 0..3 {
                        worst = worst.max((m[(i, j)] - rot[i][j]).abs());
                    }
                }
                checked += 1;
            }
        }
        eprintln!("{}: worst deviation {worst:e}", path.display());
        if worst >= 1e-12 {
            off.push(format!("{}: {worst:e}", path.display()));
        }
    }
    // MuJoCo's poses at a 90-degree pitch (robosuite's UR5e and Sawyer) once differed by
    // 4e-8: the rpy taken from a rotation must be exact to rounding there too.
    assert!(
        off.is_empty(),
        "link poses differ from the references: {off:?}"
    );
    assert!(checked > 1000, "only {checked} link poses compared");
    eprintln!("{checked} link poses match the references to 1e-12");
}
