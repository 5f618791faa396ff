//! Every error and warning the tool prints goes through here, so the format is one.

use crate::error::Error;
use std::sync::atomic::{AtomicBool, Ordering};

static QUIET: AtomicBool = AtomicBool::new(false);

/// Silence warnings (errors are always printed).
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

pub fn error(err: &Error) {
    eprintln!("error: {}", one_line(&err.message));
    for line in &err.context {
        eprintln!("  {}", one_line(line));
    }
}

/// A check's failing verdict (not bad input): always printed, as an `error:` line.
pub fn failure(message: &str) {
    eprintln!("error: {}", one_line(message));
}

/// A verdict `--quiet` does not hide (`--check` found a difference).
pub fn verdict(message: &str) {
    eprintln!("{}", one_line(message));
}

pub fn warning(message: &str) {
    if !QUIET.load(Ordering::Relaxed) {
        eprintln!("warning: {}", one_line(message));
    }
}

/// A message quotes input (attribute values, tokens, names), which may hold
/// line breaks (`&#10;` in XML) or other control characters: escape them, so
/// one message stays one line and cannot fake another `error:` line.
pub fn one_line(message: &str) -> std::borrow::Cow<'_, str> {
    if !message.chars().any(char::is_control) {
        return message.into();
    }
    message
        .chars()
        .map(|c| match c {
            '\n' => "\\n".to_string(),
            '\r' => "\\r".to_string(),
            '\t' => " ".to_string(),
            c if c.is_control() => c.escape_unicode().to_string(),
            c => c.to_string(),
        })
        .collect::<String>()
        .into()
}

pub fn note(message: &str) {
    if !QUIET.load(Ordering::Relaxed) {
        eprintln!("{message}");
    }
}
