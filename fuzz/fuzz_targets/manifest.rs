#![no_main]
//! The strict manifest loader on arbitrary text; whatever it accepts must
//! survive the writer and load again to the same manifest.

use collide::manifest::{parse_manifest, to_yaml};
use collide_fuzz::check_error;
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    // Warnings (e.g. bytes after a binary STL's triangles) would flood the log.
    collide::messages::set_quiet(true);
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let path = Path::new("fuzz.yaml");
    match parse_manifest(path, text) {
        Ok(m) => {
            let written = to_yaml(&m).expect("an accepted manifest can be written");
            let again = parse_manifest(path, &written).expect("a written manifest loads");
            assert_eq!(again, m, "round trip changed the manifest");
        }
        Err(e) => check_error(&e),
    }
});
