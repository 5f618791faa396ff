#![no_main]
//! The OBJ loader on arbitrary bytes: a welded mesh of finite vertices or a
//! bad-input error, never a panic.

use collide::io::mesh::{MeshLimits, parse_mesh};
use collide_fuzz::{check_error, check_mesh};
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    // Warnings (e.g. bytes after a binary STL's triangles) would flood the log.
    collide::messages::set_quiet(true);
    match parse_mesh(
        Path::new("fuzz.obj"),
        data.to_vec(),
        [1.0; 3],
        &MeshLimits::default(),
    ) {
        Ok((mesh, _)) => check_mesh(&mesh),
        Err(e) => check_error(&e),
    }
});
