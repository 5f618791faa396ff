//! The manifest, the product's central type, and every conversion in and out of it.
//!
//! - [`schema`]: the types (re-exported here);
//! - [`write`], [`load`], [`validate`]: deterministic YAML out, strict YAML in, the checks
//!   both run;
//! - [`sources`]: the files a manifest depends on, with their sha256;
//! - [`fit`]: fitter results to manifest primitives and back;
//! - [`kernel`]: a manifest loaded into the embedded kernel;
//! - [`rest`]: the kernel's verdict at the rest pose;
//! - [`proof`]: containment proven on a manifest's written values.

pub mod fit;
pub mod kernel;
pub mod load;
pub mod proof;
pub mod rest;
pub mod schema;
pub mod sources;
pub mod validate;
pub mod write;

pub use load::{load_manifest, load_manifest_to_verify, parse_manifest};
pub use schema::*;
pub use validate::{Invalid, Site, nesting_failures, validate};
pub use write::{to_yaml, write_manifest};
