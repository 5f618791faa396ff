#![no_main]
//! The URDF reader on arbitrary bytes: a robot or a bad-input error, never a panic.

use collide::io::urdf::parse_urdf;
use collide::io::xml::XmlLimits;
use collide_fuzz::{check_error, check_robot, resolver, scratch};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Warnings (e.g. bytes after a binary STL's triangles) would flood the log.
    collide::messages::set_quiet(true);
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let path = scratch().join("fuzz.urdf");
    match parse_urdf(text, &path, &resolver(), &XmlLimits::default()) {
        Ok(robot) => check_robot(&robot),
        Err(e) => check_error(&e),
    }
});
