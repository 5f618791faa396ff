//! The scratch a check works in: [`Workspace`] (what [`Model::fk`] places and the check
//! reads), the primitives placed in the world frame, and the check's counters. Below
//! `fk`, `check` and `witness`, which all use it; it uses only the model and the shapes.

use super::gjk::Witness;
use super::model::Model;
use super::shapes::{Capsule, Obb};
use super::vec3::{Iso, Mat3, V3};

/// The poses [`Model::fk`] placed, borrowed together for the pair loop.
#[derive(Clone, Copy)]
pub(crate) struct Placed<'w> {
    pub(crate) link_pose: &'w [Iso],
    pub(crate) world: &'w [WorldPrim],
    pub(crate) sphere_c: &'w [V3],
    pub(crate) link_sphere_c: &'w [V3],
}

/// A primitive placed in the world frame by [`Model::fk`].
#[derive(Clone, Copy, Debug)]
pub(crate) enum WorldPrim {
    Capsule(Capsule),
    Box(Obb),
    Tight(Obb),
}

/// Counters of the last check (diagnostics; no effect on results).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckStats {
    /// Link pairs skipped whole by the link-level sphere test.
    pub link_skipped: u32,
    /// Primitive pairs considered.
    pub prim_pairs: u32,
    /// Primitive pairs skipped by the bounding-sphere test.
    pub sphere_skipped: u32,
    /// Primitive pairs that ran a narrow phase.
    pub narrow: u32,
    /// Of those, pairs with a tight primitive (the staged hull tests: the
    /// dearest narrow phases, counted for deterministic cost estimates).
    pub narrow_tight: u32,
    /// Hull vertices their GJK's support queries examined: every vertex of a full scan,
    /// and for a climbed hull (`climb`, tight–tight pairs) the start and every neighbour
    /// looked at. What a tight narrow phase costs beyond its cheap stage.
    pub scanned_vertices: u32,
    /// What `scanned_vertices` would be with every hull scanned in full (no climb): the
    /// counter the refinement's cost model was fitted to (`lower::refine::CostModel`), so its
    /// estimate, and the manifests it decides, do not move with the climb.
    pub full_scan_vertices: u32,
    /// GJK steps (full scans and table proposals) of those pairs.
    pub gjk_steps: u32,
    /// Of `gjk_steps`, those of the expanding polytope on overlapping pairs with a tight
    /// primitive (the depth bound, see `gjk::gjk_cso_depth`): full scans and proposals.
    pub epa_steps: u32,
}

/// Preallocated buffers for [`Model::fk`] and [`Model::check_self_collision`]. Make one per
/// model (and per thread) with [`Model::workspace`].
#[derive(Clone, Debug)]
pub struct Workspace {
    n_links: usize,
    n_prims: usize,
    n_pairs: usize,
    n_slots: usize,
    pub(crate) joint_value: Vec<f64>,
    pub(crate) link_pose: Vec<Iso>,
    pub(crate) world: Vec<WorldPrim>,
    pub(crate) sphere_c: Vec<V3>,
    pub(crate) link_sphere_c: Vec<V3>,
    pub(crate) pair_dist: Vec<f64>,
    pub(crate) witness: Vec<Witness>,
    pub(crate) warm_start: bool,
    pub(crate) stats: CheckStats,
}

/// How far from the margin a warm value must lie to be kept: far above the GJK tolerance
/// (1e-10 m), by which a converged warm and cold value can differ.
pub const WARM_RECHECK: f64 = 1e-8;

impl Workspace {
    pub(crate) fn assert_fits(&self, m: &Model) {
        assert!(
            self.n_links == m.n_links()
                && self.n_prims == m.prims.len()
                && self.n_pairs == m.checked_pairs().len()
                && self.n_slots == m.n_slots,
            "workspace was made for another model"
        );
    }

    /// World pose of link `i` after the last [`Model::fk`]: (rotation, translation), the
    /// rotation row-major with the link axes as columns.
    pub fn link_pose(&self, i: usize) -> (Mat3, V3) {
        (self.link_pose[i].rot, self.link_pose[i].pos)
    }

    /// World centre of primitive `k`'s bounding sphere after the last FK that placed it.
    pub fn sphere_center(&self, k: usize) -> V3 {
        self.sphere_c[k]
    }

    /// Joint values of the last [`Model::fk`], one per link (0 for fixed joints, mimic joints
    /// resolved).
    pub fn joint_values(&self) -> &[f64] {
        &self.joint_value
    }

    /// Per checked pair value of the last check made with `want_all_pairs = true`, in
    /// [`Model::checked_pairs`] order.
    pub fn pair_distances(&self) -> &[f64] {
        &self.pair_dist
    }

    /// Enable or disable warm start from the previous witness of each primitive pair: GJK's
    /// simplex apart, the expanding polytope's nearest face in overlap (speed on smooth
    /// paths: a pair near its last pose converges in a step or two). A warm value is a lower
    /// bound like a cold one, exact within the same tolerance when refined, but may differ
    /// from the cold one in the tolerance's digits; so a primitive pair whose warm value is
    /// within [`WARM_RECHECK`] of the margin is recomputed cold, and starts cold on the
    /// next call: verdicts and tripping pairs are those of a cold check.
    pub fn set_warm_start(&mut self, on: bool) {
        self.warm_start = on;
    }

    /// With warm start on, the margin near which values are recomputed cold.
    pub(crate) fn warm_line(&self, margin: f64) -> Option<f64> {
        self.warm_start.then_some(margin)
    }

    pub fn warm_start(&self) -> bool {
        self.warm_start
    }

    /// Forget every stored witness.
    pub fn reset_warm_start(&mut self) {
        for w in &mut self.witness {
            *w = Witness::default();
        }
    }

    pub fn stats(&self) -> CheckStats {
        self.stats
    }

    /// The placed poses, the witnesses and the pair values, borrowed apart for the pair loop.
    pub(crate) fn split(&mut self) -> (Placed<'_>, &mut [Witness], &mut [f64]) {
        let placed = Placed {
            link_pose: &self.link_pose,
            world: &self.world,
            sphere_c: &self.sphere_c,
            link_sphere_c: &self.link_sphere_c,
        };
        (placed, &mut self.witness, &mut self.pair_dist)
    }
}

impl Model {
    /// A workspace sized for this model (allocates; do it once).
    pub fn workspace(&self) -> Workspace {
        let n = self.n_links();
        let np = self.prims.len();
        Workspace {
            n_links: n,
            n_prims: np,
            n_pairs: self.checked_pairs().len(),
            n_slots: self.n_slots,
            joint_value: vec![0.0; n],
            link_pose: vec![Iso::IDENTITY; n],
            world: vec![
                WorldPrim::Capsule(Capsule {
                    a: [0.0; 3],
                    b: [0.0; 3],
                    radius: 0.0
                });
                np
            ],
            sphere_c: vec![[0.0; 3]; np],
            link_sphere_c: vec![[0.0; 3]; n],
            pair_dist: vec![f64::INFINITY; self.checked_pairs().len()],
            witness: vec![Witness::default(); self.n_slots],
            warm_start: false,
            stats: CheckStats::default(),
        }
    }
}
