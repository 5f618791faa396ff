//! Human output: tables, progress, and the HTML fleet report.

pub mod fleet;
pub mod progress;
pub mod svg;
pub mod table;
