//! The rest-pose check: the kernel loads the manifest and checks its rest pose.

use super::kernel::{LoadedKernel, load_kernel};
use crate::error::Result;
use crate::fit::floor4;
use crate::manifest::Manifest;

/// A checked pair at or below the margin: (link a, link b, distance in metres).
pub type Contact = (String, String, f64);

pub struct RestCheck {
    pub clear: bool,
    /// Least distance over checked pairs, rounded down to 0.1 mm (0 when no pair is checked).
    pub min_distance_m: f64,
}

/// The verdict at the manifest's rest pose, and every checked pair at or below the margin.
pub fn check_rest(m: &Manifest) -> Result<(RestCheck, Vec<Contact>)> {
    Ok(rest_verdict(&load_kernel(m)?, m))
}

/// [`check_rest`] on the kernel already loaded from `m`.
pub fn rest_verdict(k: &LoadedKernel, m: &Manifest) -> (RestCheck, Vec<Contact>) {
    let q = k.q_from(&m.rest_pose.q);
    let mut ws = k.model.workspace();
    let result = k.model.check_self_collision(&q, &mut ws, true);
    let mut contacts = Vec::new();
    for (&(a, b), &d) in k.model.checked_pairs().iter().zip(ws.pair_distances()) {
        if d <= m.margin_m {
            contacts.push((k.link_names[a].clone(), k.link_names[b].clone(), d));
        }
    }
    contacts.sort_by(|x, y| {
        x.2.total_cmp(&y.2)
            .then_with(|| (&x.0, &x.1).cmp(&(&y.0, &y.1)))
    });
    let min = if result.min_distance.is_finite() {
        floor4(result.min_distance)
    } else {
        0.0
    };
    (
        RestCheck {
            clear: !result.tripped,
            min_distance_m: min,
        },
        contacts,
    )
}
