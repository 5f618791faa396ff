//! Every error and warning the tool prints goes through here, so the format is one.

//!
//! Results go to standard output through [`out!`](crate::out) and
//! [`outln!`](crate::outln). A closed standard output or error (`collide ... | head -1`)
//! ends that output quietly: later lines are dropped, never an error or a panic, and the
//! command still finishes what it writes to files.

use crate::error::Error;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

static QUIET: AtomicBool = AtomicBool::new(false);
static CLOSED: AtomicBool = AtomicBool::new(false);

/// Prints to standard output, like `print!`, dropping the text once the reader is gone.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => { $crate::messages::stdout(format_args!($($arg)*)) };
}

/// Prints a line to standard output, like `println!`, dropping it once the reader is gone.
#[macro_export]
macro_rules! outln {
    () => { $crate::messages::stdout(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::messages::stdout(format_args!("{}\n", format_args!($($arg)*))) };
}

/// What [`out!`](crate::out) and [`outln!`](crate::outln) call.
pub fn stdout(args: std::fmt::Arguments) {
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    if std::io::stdout().lock().write_fmt(args).is_err() {
        CLOSED.store(true, Ordering::Relaxed);
    }
}

/// Flushes standard output at the end of a run; a closed pipe is the end of output.
pub fn finish() {
    if std::io::stdout().lock().flush().is_err() {
        CLOSED.store(true, Ordering::Relaxed);
    }
}

/// One line to standard error; a closed standard error drops it.
fn stderr_line(line: std::fmt::Arguments) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// Silence warnings (errors are always printed).
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

pub fn error(err: &Error) {
    stderr_line(format_args!("error: {}", one_line(&err.message)));
    for line in &err.context {
        stderr_line(format_args!("  {}", one_line(line)));
    }
}

/// A check's failing verdict (not bad input): always printed, as an `error:` line.
pub fn failure(message: &str) {
    stderr_line(format_args!("error: {}", one_line(message)));
}

/// A verdict `--quiet` does not hide (`--check` found a difference).
pub fn verdict(message: &str) {
    stderr_line(format_args!("{}", one_line(message)));
}

pub fn warning(message: &str) {
    if !QUIET.load(Ordering::Relaxed) {
        stderr_line(format_args!("warning: {}", one_line(message)));
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
        stderr_line(format_args!("{message}"));
    }
}
