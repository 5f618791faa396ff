//! The embedded self-collision checking kernel.
//!
//! Self-contained: this module tree depends on nothing else in the crate and only on `std`;
//! the hot path is plain `[f64; 3]` arithmetic ([`vec3`]). It could be lifted out as-is.
//!
//! * [`model`]: the kinematic tree, primitives (capsule, box, box + tight geometry), the ACM
//!   and the margin, validated at construction ([`Model::new`]).
//! * [`workspace`]: the preallocated [`Workspace`] a check works in.
//! * [`fk`]: forward kinematics into it.
//! * [`check`]: [`Model::check_self_collision`], the broad phase and the verdict;
//!   [`Model::check_verdict`], the verdict only.
//! * One file per distance routine, each documented as exact or as a lower bound; none ever
//!   returns more than the exact **signed** distance (the distance apart, minus the
//!   penetration depth in overlap), up to floating-point rounding:
//!   [`distance_capsule_capsule`] (exact), [`distance_box_capsule`] (exact, closed form; the
//!   depth by six axes when the core meets the box), [`distance_box_box`] (15-axis SAT lower
//!   bound, exact in overlap, cube-specialised SAT, GJK refinement),
//!   [`distance_hull_hull`] (26-DOP + box SAT stage 1, GJK stage 2, the expanding polytope
//!   in overlap), [`distance_hull_capsule`], [`distance_hull_box`], with [`gjk`], [`dop26`]
//!   and each hull's [`support_table`] (points GJK proposes before it scans).
//! * [`witness`]: [`Model::pair_witness`], the points where a checked pair's signed
//!   distance is attained (closest points apart, deepest points in overlap), on demand.
//! * [`world`]: the robot against occupied cells, fixtures and attached payloads
//!   ([`Model::check_world`]).
//!
//! Units: metres and radians. See `docs/kernel.md` for the semantics, the proofs of
//! conservativeness and the measured speed.

pub mod check;
pub mod climb;
pub mod distance_box_box;
pub mod distance_box_capsule;
pub mod distance_capsule_capsule;
pub mod distance_hull_box;
pub mod distance_hull_capsule;
pub mod distance_hull_hull;
pub mod dop26;
pub mod fk;
pub mod gjk;
pub mod model;
pub mod scan;
pub mod shapes;
pub mod support_table;
pub mod vec3;
pub mod witness;
pub mod workspace;
pub mod world;

pub use check::{CheckResult, VerdictResult};
pub use model::{
    Acm, BoxShape, Joint, JointKind, Link, MAX_HULL_VERTICES, Mimic, Model, Primitive,
    TightGeometry,
};
pub use witness::PairWitness;
pub use workspace::{CheckStats, Workspace};

/// Deterministic values for the kernel's unit tests, without a dependency.
#[cfg(test)]
pub(crate) struct XorShift(pub u64);

#[cfg(test)]
impl XorShift {
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}
