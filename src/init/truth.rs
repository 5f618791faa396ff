//! The truth's evidence: where a link's `<collision>` pieces are coarse primitives that make
//! a checked pair touch at rest while its visual pieces are apart, how deep with collision
//! + visual and how far apart with the visual pieces alone, and the config's `truth:` line.

use super::{Init, LoadedRobot, Scene, comment, set_margin};
use crate::error::Result;
use crate::kernel::vec3::Iso;
use crate::model::{Role, Shape, TruthGeometry};
use crate::truth::design::{self, AtPose};
use crate::truth::mesh::MeshTruth;
use crate::truth::meshes::truths_as;
use std::collections::BTreeMap;

/// A checked pair whose links touch at rest only through coarse `<collision>` primitives.
#[derive(Debug, Clone, PartialEq)]
pub struct CoarsePair {
    pub a: String,
    pub b: String,
    /// With every collision and visual piece.
    pub with_collision: AtPose,
    /// How far apart the visual pieces alone are (m, a lower bound, to 1 µm).
    pub visual_apart_m: f64,
}

/// Links whose `<collision>` pieces include a primitive (box, cylinder, sphere, capsule,
/// ellipsoid) and which have a visual piece too: where the two truths differ by a
/// placeholder. By link name, in link order.
fn coarse_links(loaded: &LoadedRobot) -> Vec<String> {
    loaded
        .robot
        .links
        .iter()
        .filter(|l| {
            let primitive = l
                .geometry
                .iter()
                .any(|g| g.role == Role::Collision && !matches!(g.shape, Shape::Mesh { .. }));
            primitive && l.geometry.iter().any(|g| g.role == Role::Visual)
        })
        .map(|l| l.name.clone())
        .collect()
}

/// Largest clearance (m) [`apart_by`] looks for.
const APART_MAX_M: f64 = 1.0;

/// How far apart the meshes of `a` and `b` are (m, placed at `pa`, `pb`): the largest
/// margin, to about 1 µm, at which they do not yet touch (a lower bound on the distance);
/// [`APART_MAX_M`] when they are further apart. 0 when they touch.
fn apart_by(truth: &mut MeshTruth, a: usize, pa: &Iso, b: usize, pb: &Iso) -> f64 {
    let (mut lo, mut hi) = (0.0, APART_MAX_M);
    set_margin(truth, hi);
    let far = !truth.touching(a, pa, b, pb);
    set_margin(truth, 0.0);
    if far {
        return APART_MAX_M;
    }
    if truth.touching(a, pa, b, pb) {
        return 0.0;
    }
    while hi - lo > 1e-6 {
        let mid = 0.5 * (lo + hi);
        set_margin(truth, mid);
        if truth.touching(a, pa, b, pb) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    set_margin(truth, 0.0);
    lo
}

/// The evidence for `truth: visual` at pose `q` (kernel dof order): the links with coarse
/// collision primitives, and the checked pairs, one of them such a link, that touch with
/// every collision and visual piece while their visual pieces alone are apart.
pub(super) fn coarse_evidence(
    loaded: &LoadedRobot,
    scene: &Scene,
    q: &[f64],
) -> Result<(Vec<String>, Vec<CoarsePair>)> {
    let coarse = coarse_links(loaded);
    if coarse.is_empty() {
        return Ok((coarse, Vec::new()));
    }
    let k = &scene.kernel;
    let of = |geometry| -> Result<MeshTruth> {
        let meshes: BTreeMap<String, _> = truths_as(&loaded.robot, geometry, &scene.cache)?
            .into_iter()
            .collect();
        Ok(MeshTruth::new(&k.link_names, &meshes))
    };
    let both = of(TruthGeometry::CollisionAndVisual)?;
    let mut visual = of(TruthGeometry::Visual)?;
    let place = design::placements_at(&k.model, q);
    let is_coarse = |i: usize| coarse.contains(&k.link_names[i]);
    let mut pairs = Vec::new();
    for &(a, b) in &scene.checked {
        if !is_coarse(a) && !is_coarse(b) {
            continue;
        }
        let with_collision = design::contact_at(&both, a, &place[a], b, &place[b]);
        if !with_collision.touches() || visual.touching(a, &place[a], b, &place[b]) {
            continue;
        }
        pairs.push(CoarsePair {
            a: k.link_names[a].clone(),
            b: k.link_names[b].clone(),
            with_collision,
            visual_apart_m: apart_by(&mut visual, a, &place[a], b, &place[b]),
        });
    }
    // The links named are those of the pairs shown.
    let named: Vec<String> = coarse
        .into_iter()
        .filter(|l| pairs.iter().any(|p: &CoarsePair| &p.a == l || &p.b == l))
        .collect();
    Ok((named, pairs))
}

impl CoarsePair {
    /// `15.0 mm apart`, `more than 1000.0 mm apart`.
    pub fn visual_apart(&self) -> String {
        if self.visual_apart_m >= APART_MAX_M {
            format!("more than {} mm apart", crate::text::mm(APART_MAX_M))
        } else {
            format!("{} mm apart", crate::text::mm(self.visual_apart_m))
        }
    }

    /// `collision + visual: 79.3 mm deep; visual only: 15.0 mm apart`.
    pub fn evidence(&self) -> String {
        format!(
            "collision + visual: {}; visual only: {}",
            self.with_collision.describe(),
            self.visual_apart()
        )
    }
}

/// The config's `truth:` with its evidence: active when the user chose it, offered
/// commented out when coarse collision primitives make pairs touch that the visual
/// pieces keep apart, else nothing (the default).
pub(super) fn truth_text(init: &Init) -> String {
    let mut t = String::new();
    if !init.coarse_pairs.is_empty() {
        t += &comment(
            "",
            &format!(
                "Which geometry is each link's truth, the shape every proof and contact is judged on: `collision+visual` (the default: every piece) or `visual` (for <collision> blocks that are coarse placeholders; a link without a visual piece keeps its collision pieces). The <collision> primitives of {} make these pairs touch at {} while their visual pieces are apart: {}.",
                init.coarse_links.join(", "),
                init.evidence_pose,
                init.coarse_pairs
                    .iter()
                    .map(|p| format!("{}/{} ({})", p.a, p.b, p.evidence()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        );
    }
    if init.truth_chosen {
        t += &format!("truth: {}\n", init.truth.as_str());
    } else if !init.coarse_pairs.is_empty() {
        t += &comment(
            "",
            "If the visual meshes are the robot's true shape, uncomment the next line (or rerun `collide init` with --truth visual --force, which also chooses the rest pose and the contacts by design on them):",
        );
        t += "# truth: visual\n";
    }
    t
}
