//! Helpers the C ABI tests share: a committed manifest's path, the last error, a model and
//! session loaded through the ABI (freed on drop).

#![allow(dead_code)] // each test binary uses its own subset

use collide_kernel::*;
use std::ffi::{CStr, CString};
use std::path::{Path, PathBuf};
use std::ptr;

pub fn manifest(robot: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../robots/{robot}/manifest.yaml"))
}

pub fn last_error() -> String {
    unsafe { CStr::from_ptr(collide_last_error()) }
        .to_string_lossy()
        .into_owned()
}

pub struct Loaded {
    pub model: *const CollideModel,
    pub session: *mut CollideSession,
}

impl Drop for Loaded {
    fn drop(&mut self) {
        unsafe {
            collide_session_free(self.session);
            collide_model_free(self.model);
        }
    }
}

pub fn load(path: &Path) -> Loaded {
    let c = CString::new(path.to_str().unwrap()).unwrap();
    let mut model = ptr::null();
    let st = unsafe { collide_model_load(c.as_ptr(), &mut model) };
    assert_eq!(st, CollideStatus::Ok, "{}", last_error());
    let mut session = ptr::null_mut();
    let st = unsafe { collide_session_new(model, &mut session) };
    assert_eq!(st, CollideStatus::Ok, "{}", last_error());
    Loaded { model, session }
}
