//! `collide verify`: every check re-run on a committed manifest.

pub mod check;
