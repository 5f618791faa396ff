#![no_main]
//! The MJCF reader on arbitrary bytes (includes resolve into the scratch
//! directory, which holds `inc.xml`).

use collide::io::mjcf::{MjcfLimits, parse_mjcf};
use collide_fuzz::{check_error, check_robot, resolver, scratch};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Warnings (e.g. bytes after a binary STL's triangles) would flood the log.
    collide::messages::set_quiet(true);
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let path = scratch().join("fuzz.xml");
    match parse_mjcf(text, &path, &resolver(), &MjcfLimits::default()) {
        Ok(robot) => check_robot(&robot),
        Err(e) => check_error(&e),
    }
});
