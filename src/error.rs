//! One error type for the whole tool; its kind decides the exit code.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Why a run failed, which decides the process exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Unreadable or invalid input (exit 2).
    Input,
    /// A proof or check failed on readable input (exit 1).
    Check,
    /// `--write` refused because fits would loosen (exit 3).
    Loosen,
}

impl ErrorKind {
    pub fn exit_code(self) -> i32 {
        match self {
            ErrorKind::Input => 2,
            ErrorKind::Check => 1,
            ErrorKind::Loosen => 3,
        }
    }
}

/// An error with a one-line human message, plus optional context lines.
#[derive(Debug, Clone)]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
    pub context: Vec<String>,
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn input(message: impl Into<String>) -> Self {
        Error {
            kind: ErrorKind::Input,
            message: message.into(),
            context: Vec::new(),
        }
    }
    pub fn check(message: impl Into<String>) -> Self {
        Error {
            kind: ErrorKind::Check,
            message: message.into(),
            context: Vec::new(),
        }
    }
    pub fn loosen(message: impl Into<String>) -> Self {
        Error {
            kind: ErrorKind::Loosen,
            message: message.into(),
            context: Vec::new(),
        }
    }
    /// An input error located in a file, with optional line and column (1-based).
    pub fn at(path: &Path, line: Option<(u32, u32)>, message: impl fmt::Display) -> Self {
        match line {
            Some((l, c)) => Error::input(format!("{}:{}:{}: {}", path.display(), l, c, message)),
            None => Error::input(format!("{}: {}", path.display(), message)),
        }
    }
    pub fn with_context(mut self, line: impl Into<String>) -> Self {
        self.context.push(line.into());
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// Where something is in a source file (1-based line and column).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub file: Arc<PathBuf>,
    pub line: u32,
    pub col: u32,
}

impl Location {
    /// An input error at this location.
    pub fn error(&self, message: impl std::fmt::Display) -> Error {
        Error::at(&self.file, Some((self.line, self.col)), message)
    }
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file.display(), self.line, self.col)
    }
}
