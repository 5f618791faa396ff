//! Human output: tables, progress, and (later) the HTML fleet report.

pub mod progress;
pub mod table;
