//! Sweeps over seeded configurations.

pub mod poses;
