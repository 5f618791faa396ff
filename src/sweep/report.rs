//! What a sweep reports: the free space, the verdicts against each truth, the sets' figures.

use super::Set;
use crate::manifest::{self, Manifest};
use crate::truth::judge::{self, Timing};
use crate::truth::reach;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The free-space rays of a sweep (see [`crate::truth::reach`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RayOptions {
    pub rays: usize,
    pub steps: usize,
    pub seed: u64,
}

impl Default for RayOptions {
    fn default() -> Self {
        RayOptions {
            rays: reach::DEFAULT_RAYS,
            steps: reach::DEFAULT_STEPS,
            seed: reach::DEFAULT_SEED,
        }
    }
}

/// One set's free space: the poses where no checked pair's meshes touch, on the rays
/// from the rest pose and among the uniform poses, and what the kernel refuses of them.
#[derive(Debug, Clone, PartialEq)]
pub struct FreeReport {
    pub rays: usize,
    pub steps: usize,
    /// Seed of the rays' goal poses.
    pub ray_seed: u64,
    /// Free poses on the rays, and those the kernel refuses.
    pub ray_free: usize,
    pub ray_refused: usize,
    /// Uniform poses where no checked pair's meshes touch, and those the kernel refuses
    /// (its slop-only poses).
    pub uniform_free: usize,
    pub uniform_refused: usize,
    /// Mean over the rays that start free of how far the kernel lets the robot go before
    /// the meshes would touch (1 = as far as the meshes).
    pub reach_kept: Option<f64>,
    /// The pairs behind each ray's first false trip: (a, b, rays), most first.
    pub first_false_trips: Vec<(String, String, usize)>,
    /// Per ray: first mesh contact step, first kernel trip step (`steps + 1` / `None`
    /// when there is none).
    pub per_ray: Vec<(usize, Option<usize>)>,
    /// Checked pairs whose meshes touch at the rest pose (then no ray has a free pose).
    pub rest_mesh_contacts: Vec<(String, String)>,
}

impl FreeReport {
    pub fn free_poses(&self) -> usize {
        self.ray_free + self.uniform_free
    }
    pub fn refused_free(&self) -> usize {
        self.ray_refused + self.uniform_refused
    }
    /// The refused share of all free poses, percent.
    pub fn refused_free_pct(&self) -> Option<f64> {
        let n = self.free_poses();
        (n > 0).then(|| 100.0 * self.refused_free() as f64 / n as f64)
    }
}

/// Which truth a figure is judged against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Truth {
    /// The real triangle meshes ([`crate::truth::mesh`]): the primary judgement.
    Mesh,
    /// The convex pieces ([`crate::truth::hull`]): hulls of each primitive's share of the surface.
    Hull,
}

impl Truth {
    pub fn as_str(self) -> &'static str {
        match self {
            Truth::Mesh => "mesh",
            Truth::Hull => "hull",
        }
    }
}

/// A pair the kernel cleared while the truth touches: a containment bug.
#[derive(Debug, Clone, PartialEq)]
pub struct Missed {
    pub set: Set,
    pub truth: Truth,
    pub pose: usize,
    /// Joint values of the pose, by dof name.
    pub q: Vec<(String, f64)>,
    pub a: String,
    pub b: String,
    /// The kernel's pair value (above the margin).
    pub kernel_m: f64,
    /// Hull truth only: its rigorous lower bound and GJK's upper estimate of the distance.
    pub truth_lower_m: Option<f64>,
    pub truth_upper_m: Option<f64>,
}

/// The rest pose as a set's kernel sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Rest {
    pub clear: bool,
    /// Checked pairs at or below the margin: (a, b, distance m).
    pub contacts: Vec<(String, String, f64)>,
}

/// One set's verdicts against one truth.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Verdicts {
    /// Pairs (summed over poses) the kernel cleared while the truth touched.
    pub missed: usize,
    pub missed_poses: usize,
    /// Pairs (summed over poses) the kernel tripped while the truth was apart.
    pub false_stops: usize,
    /// Refused poses with no truth contact on any checked pair.
    pub slop_only: usize,
    /// The pairs with the most false stops: (a, b, count), at most five.
    pub top_false_stops: Vec<(String, String, usize)>,
}

/// One set's figures.
#[derive(Debug, Clone, PartialEq)]
pub struct SetReport {
    pub set: Set,
    pub primitives: usize,
    /// Primitive counts by kind (`capsule`, `box`, `box+hull`).
    pub kinds: BTreeMap<&'static str, usize>,
    /// Poses the kernel refused (any pair at or below the margin); the same for both truths.
    pub refused: usize,
    /// Against the meshes (the primary figures).
    pub mesh: Verdicts,
    /// Against the hull truth (the design documents' figures).
    pub hull: Verdicts,
    pub rest: Rest,
    /// Free space, the headline figure.
    pub free: FreeReport,
    /// The kernel's time per configuration on the free poses (the rays' free steps and the
    /// free uniform poses: where a controller calls it), the headline cost.
    pub free_timing: Timing,
    /// The same on every uniform pose (on a humanoid most of them in contact): the second
    /// figure.
    pub timing: Timing,
}

impl SetReport {
    pub fn verdicts(&self, truth: Truth) -> &Verdicts {
        match truth {
            Truth::Mesh => &self.mesh,
            Truth::Hull => &self.hull,
        }
    }
}

/// What the hull truth is made of.
#[derive(Debug, Clone, PartialEq)]
pub struct TruthSummary {
    pub links: usize,
    pub pieces: usize,
    pub hull_vertices: usize,
    /// Links split among several primitives: (link, pieces, triangles that needed cutting).
    pub split: Vec<(String, usize, usize)>,
}

/// One truth's own contacts on the checked pairs.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TruthContacts {
    /// Poses with a truth contact on a checked pair.
    pub poses: usize,
    /// Truth contacts summed over poses (pairs).
    pub pairs: usize,
    /// The pairs most often in truth contact: (a, b, poses), at most five.
    pub top: Vec<(String, String, usize)>,
    /// Checked pairs in truth contact in every pose (CAD-nested neighbours the ACM does not
    /// exempt: every pose is refused because of them, whatever the fit).
    pub always_touching: Vec<(String, String)>,
}

/// A sweep's results.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepReport {
    pub robot: String,
    pub manifest: PathBuf,
    pub poses: usize,
    pub seed: u64,
    pub margin_m: f64,
    pub checked_pairs: usize,
    pub acm_rows: usize,
    /// What the mesh truth is made of.
    pub mesh_truth: crate::truth::mesh::MeshSummary,
    /// What the hull truth is made of.
    pub truth: TruthSummary,
    /// Contacts of the meshes (primary) and of the hull truth.
    pub mesh_contacts: TruthContacts,
    pub hull_contacts: TruthContacts,
    /// Pair contacts (summed over poses) the meshes make and the hull truth does not: 0
    /// whenever the hull pieces hold the meshes' solids (docs/sweep.md).
    pub mesh_not_hull: usize,
    /// Hull truth contacts whose GJK hit its iteration cap (counted as contact, conservatively).
    pub undecided: usize,
    /// ACM rows exempt as `always` (proven on the primitives) whose meshes do not touch in
    /// every pose: (a, b, poses with a mesh contact), most first. The kernel does not see
    /// these contacts; a tighter fit of the two links turns such a row into a checked pair.
    pub always_exempt_apart: Vec<(String, String, usize)>,
    /// ACM rows exempt as `always` whose meshes touch in every pose.
    pub always_exempt_touching: usize,
    pub sets: Vec<SetReport>,
    /// The manifest's kernel verdict at each seeded pose, in pose order.
    pub verdicts: Vec<judge::PoseVerdict>,
    /// Missed contacts against either truth (mesh first).
    pub missed: Vec<Missed>,
    /// Wall time of the pose loops (s): mesh truth, hull truth, kernel.
    pub elapsed_s: f64,
    pub mesh_s: f64,
    pub hull_s: f64,
    pub kernel_s: f64,
    pub warnings: Vec<String>,
}

impl SweepReport {
    pub fn set(&self, set: Set) -> Option<&SetReport> {
        self.sets.iter().find(|s| s.set == set)
    }

    /// Missed pairs against the meshes, every set (must be 0: `sweep` exits 1 otherwise).
    pub fn total_missed(&self) -> usize {
        self.sets.iter().map(|s| s.mesh.missed).sum()
    }

    /// Missed pairs against the hull truth, every set.
    pub fn total_missed_hull(&self) -> usize {
        self.sets.iter().map(|s| s.hull.missed).sum()
    }

    pub fn contacts(&self, truth: Truth) -> &TruthContacts {
        match truth {
            Truth::Mesh => &self.mesh_contacts,
            Truth::Hull => &self.hull_contacts,
        }
    }
}

/// Hull truth contact details of one pose: (checked pair index, lower, upper, converged).
pub(super) type HullPose = Vec<(u32, f64, f64, bool)>;

pub(super) fn kind_counts(m: &Manifest) -> (usize, BTreeMap<&'static str, usize>) {
    let mut kinds = BTreeMap::new();
    let mut n = 0;
    for l in &m.links {
        for p in &l.primitives {
            n += 1;
            let k = match p {
                manifest::Primitive::Capsule(_) => "capsule",
                manifest::Primitive::Box(b) if b.tight().is_some() => "box+hull",
                manifest::Primitive::Box(_) => "box",
            };
            *kinds.entry(k).or_insert(0) += 1;
        }
    }
    (n, kinds)
}
