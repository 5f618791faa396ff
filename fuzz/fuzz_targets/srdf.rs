#![no_main]
//! The SRDF reader on arbitrary bytes, against a fixed three-link robot.

use collide::io::srdf::parse_srdf;
use collide::io::urdf::parse_urdf;
use collide::io::xml::XmlLimits;
use collide::model::Robot;
use collide_fuzz::{check_error, resolver, scratch};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

const ROBOT: &str = r#"<robot name="r">
  <link name="base"/><link name="upper"/><link name="lower"/>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/>
    <limit lower="-1" upper="1"/></joint>
  <joint name="elbow" type="continuous"><parent link="upper"/><child link="lower"/></joint>
</robot>"#;

fn robot() -> &'static Robot {
    static ROBOT_CELL: OnceLock<Robot> = OnceLock::new();
    ROBOT_CELL.get_or_init(|| {
        parse_urdf(
            ROBOT,
            &scratch().join("r.urdf"),
            &resolver(),
            &XmlLimits::default(),
        )
        .unwrap()
    })
}

fuzz_target!(|data: &[u8]| {
    // Warnings (e.g. bytes after a binary STL's triangles) would flood the log.
    collide::messages::set_quiet(true);
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let path = scratch().join("fuzz.srdf");
    if let Err(e) = parse_srdf(text, &path, robot(), &XmlLimits::default()) {
        check_error(&e);
    }
});
