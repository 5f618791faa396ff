//! `collide fk ROBOT --q JSON [--pairs MANIFEST] --json`: world pose of every link, and
//! with `--pairs` the kernel's distance for every pair the manifest checks (what
//! tests/export.rs compares the consumers of `collide export` against). `--q` takes one
//! configuration or an array of them, inline or as `@FILE`.

use super::args::FkArgs;
use crate::error::{Error, Result};
use crate::io::robot::load_robot;
use crate::manifest::JointValues;
use crate::manifest::kernel::load_kernel;
use crate::model::Configuration;
use crate::model::kinematics::forward;
use std::collections::BTreeMap;

pub fn run(args: FkArgs) -> Result<i32> {
    let loaded = load_robot(&args.robot, &args.read.load_options())?;
    for w in &loaded.robot.warnings {
        crate::messages::warning(w);
    }
    let text = match args.q.as_deref() {
        Some(t) => match t.strip_prefix('@') {
            Some(path) => std::fs::read_to_string(path)
                .map_err(|e| Error::input(format!("--q @{path}: cannot read: {e}")))?,
            None => t.to_string(),
        },
        None => "{}".to_string(),
    };
    let bad = |e: serde_json::Error| {
        Error::input(format!(
            "--q is not a JSON object of joint names to numbers, or an array of them: {e}"
        ))
    };
    let value: serde_json::Value = serde_json::from_str(&text).map_err(bad)?;
    let several = value.is_array();
    let configurations: Vec<BTreeMap<String, f64>> = if several {
        serde_json::from_value(value).map_err(bad)?
    } else {
        vec![serde_json::from_value(value).map_err(bad)?]
    };
    let kernel = match &args.pairs {
        Some(path) => Some(load_kernel(&crate::manifest::load_manifest(path)?)?),
        None => None,
    };
    let robot = &loaded.robot;
    let mut ws = kernel.as_ref().map(|k| k.model.workspace());
    let mut outs = Vec::new();
    for named in &configurations {
        let q = Configuration::from_named(robot, named)?;
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
        let mut out = serde_json::json!({"links": links});
        if let (Some(k), Some(ws)) = (&kernel, ws.as_mut()) {
            let values = JointValues(named.iter().map(|(n, v)| (n.clone(), *v)).collect());
            k.model.check_self_collision(&k.q_from(&values), ws, true);
            let pairs: Vec<_> = k
                .model
                .checked_pairs()
                .iter()
                .zip(ws.pair_distances())
                .map(|(&(a, b), d)| serde_json::json!([k.link_names[a], k.link_names[b], d]))
                .collect();
            out["pairs"] = serde_json::Value::Array(pairs);
        }
        outs.push(out);
    }
    let out = if several {
        serde_json::json!({"robot": robot.name, "configurations": outs})
    } else {
        let mut one = outs.pop().expect("one configuration");
        one["robot"] = serde_json::json!(robot.name);
        one
    };
    crate::outln!(
        "{}",
        serde_json::to_string_pretty(&out).expect("JSON of numbers and strings")
    );
    Ok(0)
}
