//! `collide report [MANIFEST...] [--out DIR] [--fleet-md FILE] [--poses N]`

use super::args::ReportArgs;
use crate::error::Result;

pub fn run(_args: ReportArgs) -> Result<i32> {
    Ok(0)
}
