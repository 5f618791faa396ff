//! Every error and warning the tool prints goes through here, so the format is one.

use crate::error::Error;
use std::sync::atomic::{AtomicBool, Ordering};

static QUIET: AtomicBool = AtomicBool::new(false);

/// Silence warnings (errors are always printed).
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

pub fn error(err: &Error) {
    eprintln!("error: {}", err.message);
    for line in &err.context {
        eprintln!("  {line}");
    }
}

pub fn warning(message: &str) {
    if !QUIET.load(Ordering::Relaxed) {
        eprintln!("warning: {message}");
    }
}

pub fn note(message: &str) {
    if !QUIET.load(Ordering::Relaxed) {
        eprintln!("{message}");
    }
}
