//! Folding an MJCF twin's geometry into a URDF robot: a twin body's pieces join the URDF
//! link of the same name when their frames coincide (within 1 mm and 1 mrad) at q = 0 and
//! at three seeded configurations; otherwise the measured offset is reported and nothing
//! is folded.

use super::kinematics::{Configuration, forward};
use super::{JointKind, Robot};
use rand_core::Rng;
use std::collections::BTreeMap;

pub const MAX_OFFSET_M: f64 = 1e-3;
pub const MAX_ANGLE_RAD: f64 = 1e-3;
const SEED: u64 = 20261202;

/// What happened to one twin body that names a URDF link.
#[derive(Debug, Clone, PartialEq)]
pub struct TwinLink {
    pub link: String,
    pub folded: bool,
    /// Largest frame offset and angle seen over the configurations.
    pub offset_m: f64,
    pub angle_rad: f64,
}

/// Configurations for both robots from shared joint values (by name): q = 0, then three
/// seeded draws inside the URDF's limits (one turn for continuous joints).
fn configurations(robot: &Robot, twin: &Robot) -> Vec<(Configuration, Configuration)> {
    let mut out = Vec::new();
    for k in 0..4u64 {
        let mut rng = rand_pcg::Pcg64::new(SEED as u128, k as u128);
        let mut named = BTreeMap::new();
        for (_, j) in robot.active_joints() {
            let (lo, hi) = match (j.kind, j.limits) {
                (JointKind::Continuous, _) | (_, None) => {
                    (-std::f64::consts::PI, std::f64::consts::PI)
                }
                (_, Some(l)) => l,
            };
            let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            named.insert(
                j.name.clone(),
                if k == 0 { 0.0 } else { lo + (hi - lo) * u },
            );
        }
        let value = |r: &Robot| {
            Configuration::from_active(r, |i| named.get(&r.joints[i].name).copied().unwrap_or(0.0))
        };
        out.push((value(robot), value(twin)));
    }
    out
}

/// Folds the twin's geometry into `robot` where frames coincide; returns every matched link.
pub fn fold_twin(robot: &mut Robot, twin: &Robot) -> Vec<TwinLink> {
    let configs = configurations(robot, twin);
    let poses: Vec<_> = configs
        .iter()
        .map(|(a, b)| (forward(robot, a), forward(twin, b)))
        .collect();
    let mut out = Vec::new();
    for li in 0..robot.links.len() {
        let name = robot.links[li].name.clone();
        let Some(ti) = twin.link_index(&name) else {
            continue;
        };
        if twin.links[ti].geometry.is_empty() {
            continue;
        }
        let (mut offset, mut angle) = (0.0f64, 0.0f64);
        for (pr, pt) in &poses {
            // Both robots' roots are their world frames.
            let d = pr[li].inverse() * pt[ti];
            offset = offset.max(d.translation.vector.norm());
            angle = angle.max(d.rotation.angle());
        }
        let folded = offset <= MAX_OFFSET_M && angle <= MAX_ANGLE_RAD;
        if folded {
            let pieces = twin.links[ti].geometry.clone();
            robot.links[li].geometry.extend(pieces);
        }
        out.push(TwinLink {
            link: name,
            folded,
            offset_m: offset,
            angle_rad: angle,
        });
    }
    out
}
