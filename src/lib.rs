//! `collide`: robot descriptions in, proven collision geometry out.
//!
//! Data flows reader (`io`) -> kinematic model (`model`) -> fits (`geom`, `fit`)
//! -> manifest (`manifest`) -> checked by the embedded kernel (`kernel`).
//! See docs/architecture.md.

pub mod acm;
#[cfg(feature = "cli")]
pub mod cli;
pub mod error;
pub mod export;
pub mod fit;
pub mod geom;
pub mod init;
pub mod io;
pub mod kernel;
pub mod lower;
pub mod manifest;
pub mod messages;
pub mod model;
pub mod progress;
pub mod report;
pub mod sweep;
pub mod text;
pub mod truth;
pub mod verify;
