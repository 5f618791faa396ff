//! `collide fk ROBOT --q JSON --json`: world pose of every link.

use super::args::FkArgs;
use crate::error::{Error, Result};
use crate::io::robot::load_robot;
use crate::model::Configuration;
use crate::model::kinematics::forward;
use std::collections::BTreeMap;

pub fn run(args: FkArgs) -> Result<i32> {
    let loaded = load_robot(&args.robot, &args.read.load_options())?;
    for w in &loaded.robot.warnings {
        crate::messages::warning(w);
    }
    let named: BTreeMap<String, f64> = match &args.q {
        Some(text) => serde_json::from_str(text).map_err(|e| {
            Error::input(format!(
                "--q is not a JSON object of joint names to numbers: {e}"
            ))
        })?,
        None => BTreeMap::new(),
    };
    let robot = &loaded.robot;
    let q = Configuration::from_named(robot, &named)?;
    let poses = forward(robot, &q);
    let mut links = serde_json::Map::new();
    for (link, pose) in robot.links.iter().zip(&poses) {
        let t = pose.translation.vector;
        let r = pose.rotation;
        links.insert(
            link.name.clone(),
            serde_json::json!({"xyz": [t.x, t.y, t.z], "quat_wxyz": [r.w, r.i, r.j, r.k]}),
        );
    }
    let out = serde_json::json!({"robot": robot.name, "links": links});
    crate::outln!(
        "{}",
        serde_json::to_string_pretty(&out).expect("JSON of numbers and strings")
    );
    Ok(0)
}
