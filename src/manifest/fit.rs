//! Between the fitter's, the model's and the manifest's types.

use crate::fit::{self, Kind, LinkFit};
use crate::manifest;
use crate::model::{Joint, JointKind, Robot};

/// A manifest of `robot`'s joints alone: no source, no link, no ACM, the rest pose at q = 0
/// (unnamed joints at 0); what the kernel needs for forward kinematics before any fit.
pub fn skeleton(robot: &Robot) -> manifest::Manifest {
    manifest::Manifest {
        schema_version: manifest::SCHEMA_VERSION,
        robot: robot.name.clone(),
        generator: String::new(),
        sources: Vec::new(),
        headroom_m: 0.0,
        hull_headroom_m: 0.0,
        margin_m: 0.0,
        truth: robot.truth,
        rest_pose: manifest::RestPose {
            q: manifest::JointValues::default(),
            clear: true,
            min_distance_m: 0.0,
        },
        joints: robot
            .joints
            .iter()
            .map(|j| manifest_joint(robot, j))
            .collect(),
        links: Vec::new(),
        acm: Vec::new(),
    }
}

pub fn manifest_joint(robot: &Robot, j: &Joint) -> manifest::Joint {
    let kind = match j.kind {
        JointKind::Fixed => manifest::JointKind::Fixed,
        JointKind::Revolute => manifest::JointKind::Revolute,
        JointKind::Continuous => manifest::JointKind::Continuous,
        JointKind::Prismatic => manifest::JointKind::Prismatic,
    };
    manifest::Joint {
        name: j.name.clone(),
        kind,
        parent: robot.links[j.parent].name.clone(),
        child: robot.links[j.child].name.clone(),
        origin_xyz: j.origin_xyz,
        origin_rpy: j.origin_rpy,
        axis: j.axis,
        limits: match j.kind {
            JointKind::Revolute | JointKind::Prismatic => j.limits.map(|(a, b)| [a, b]),
            _ => None,
        },
        mimic: j.mimic.as_ref().map(|m| manifest::Mimic {
            joint: robot.joints[m.leader].name.clone(),
            multiplier: m.multiplier,
            offset: m.offset,
        }),
        pivot: (j.pivot != [0.0; 3]
            && matches!(j.kind, JointKind::Revolute | JointKind::Continuous))
        .then_some(j.pivot),
    }
}

pub fn manifest_primitive(p: &fit::Primitive) -> manifest::Primitive {
    match p {
        fit::Primitive::Capsule(c) => manifest::Primitive::Capsule(manifest::Capsule {
            a: c.a,
            b: c.b,
            radius: c.radius,
        }),
        fit::Primitive::Box(b) => manifest::Primitive::Box(manifest::BoxPrim {
            center: b.center,
            rpy: b.rpy,
            half_extents: b.half_extents,
            dop26: None,
            hull: None,
        }),
        fit::Primitive::TightBox(t) => manifest::Primitive::Box(manifest::BoxPrim {
            center: t.bbox.center,
            rpy: t.bbox.rpy,
            half_extents: t.bbox.half_extents,
            dop26: Some(t.dop26),
            hull: Some(t.hull.clone()),
        }),
    }
}

/// The manifest's primitives as the fitter's types, for the proof.
pub fn fit_primitive(p: &manifest::Primitive) -> fit::Primitive {
    match p {
        manifest::Primitive::Capsule(c) => fit::Primitive::Capsule(crate::geom::capsule::Capsule {
            a: c.a,
            b: c.b,
            radius: c.radius,
        }),
        manifest::Primitive::Box(b) => {
            let bbox = fit::BoxPrim {
                center: b.center,
                rpy: b.rpy,
                half_extents: b.half_extents,
            };
            match b.tight() {
                Some((dop, hull)) => fit::Primitive::TightBox(fit::TightBox {
                    bbox,
                    dop26: *dop,
                    hull: hull.to_vec(),
                }),
                None => fit::Primitive::Box(bbox),
            }
        }
    }
}

fn choice(kind: Kind) -> manifest::FitChoice {
    match kind {
        Kind::Capsule => manifest::FitChoice::Capsule,
        Kind::CapsuleChain2 => manifest::FitChoice::CapsuleChain2,
        Kind::CapsuleChain3 => manifest::FitChoice::CapsuleChain3,
        Kind::Box => manifest::FitChoice::Box,
        Kind::BoxHull { .. } => manifest::FitChoice::TightBox,
    }
}

/// The kind a measured candidate is recorded as; tight fits are not candidates.
fn candidate_kind(kind: Kind) -> Option<manifest::FitChoice> {
    (!matches!(kind, Kind::BoxHull { .. })).then(|| choice(kind))
}

pub fn manifest_link(name: &str, f: &LinkFit) -> manifest::Link {
    let hull_excess = f
        .tight
        .iter()
        .filter(|t| t.outer_polytope)
        .map(|t| t.hull_excess_m)
        .fold(None, |acc: Option<f64>, e| {
            Some(acc.map_or(e, |a| a.max(e)))
        });
    let mut link = plain_link(
        name,
        choice(f.choice),
        &f.primitives,
        &f.metrics,
        (f.vertices, f.triangles),
    );
    link.fit.candidates = f
        .candidates
        .iter()
        .filter_map(|c| {
            Some(manifest::Candidate {
                kind: candidate_kind(c.kind)?,
                vol_ratio: c.metrics.vol_ratio,
                max_protrusion_m: c.metrics.max_protrusion_m,
                mean_protrusion_m: c.metrics.mean_protrusion_m,
            })
        })
        .collect();
    link.fit.hull_excess_m = hull_excess.map(fit::rounding::round6);
    link
}

/// A manifest link holding `primitives` fitted as `choice`, with their measured figures and
/// the truth's (vertices, triangles); no candidates and no hull excess recorded.
pub fn plain_link(
    name: &str,
    choice: manifest::FitChoice,
    primitives: &[fit::Primitive],
    metrics: &fit::Metrics,
    (vertices, triangles): (usize, usize),
) -> manifest::Link {
    manifest::Link {
        name: name.to_string(),
        primitives: primitives.iter().map(manifest_primitive).collect(),
        fit: manifest::Fit {
            choice,
            reason: String::new(),
            vol_ratio: metrics.vol_ratio,
            max_protrusion_m: metrics.max_protrusion_m,
            mean_protrusion_m: metrics.mean_protrusion_m,
            min_margin_m: metrics.min_margin_m,
            vertices: vertices as u64,
            triangles: triangles as u64,
            candidates: Vec::new(),
            hull_excess_m: None,
        },
    }
}
