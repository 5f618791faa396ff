//! Contacts by design and free rest poses, found on the real meshes for the user to decide.
//!
//! A **contact by design** is a linkage whose meshes touch as a matter of course: a knee
//! and its ankle's roll link, a palm and the thumb's second link, a gripper's fingers. No
//! proof can exempt one (the meshes come apart in some poses, so it is not `always`); only
//! the user can, with an `allow:` row. The **candidates** offered for that decision are
//! the checked pairs at most [`MAX_JOINTS_APART`] moving joints apart whose meshes touch
//! at the rest pose or in at least [`MIN_SHARE`] of the seeded poses, each with its
//! evidence ([`Candidate::evidence`]): how often they touch, and how deep at rest.
//!
//! Pairs further apart that touch at rest are not candidates: two links that far apart
//! meet because of the pose, and the fix is another rest pose. [`nearest_free`] finds one,
//! deterministically, when neither the SRDF nor q = 0 gives one.
//!
//! Everything here is mesh truth on a kernel model's forward kinematics: `collide init`
//! writes the candidates into a new config; `lower` and `acm regenerate` can print them.

use super::contacts::{MeshContacts, mesh_contacts_with_progress, normalized_pairs};
use super::mesh::MeshTruth;
use super::poses::{PoseScratch, uniform_q};
use crate::kernel::Model;
use crate::kernel::model::JointKind;
use crate::kernel::vec3::{Iso, V3, mul_mtv, sub};
use rayon::prelude::*;
use std::collections::BTreeSet;

/// Candidates are at most this many moving joints apart.
pub const MAX_JOINTS_APART: usize = 2;
/// A near pair whose meshes touch in at least this share of the seeded poses is a
/// candidate whatever the rest pose.
pub const MIN_SHARE: f64 = 0.5;
/// Seeded poses of the candidate search, and their seed.
pub const POSES: usize = 1000;
pub const SEED: u64 = 20260924;
/// Mesh vertices of each link tried for the depth at rest.
const DEPTH_POINTS: usize = 20_000;

/// How many moving joints lie on the tree path between kernel links `a` and `b`, counting
/// a mimic follower as its leader: a gripper's four-bar linkage (TIAGo Pro's fingertips,
/// three joints that all follow one) is one joint's motion, and its links are as near as
/// two links one joint apart.
pub fn joints_apart(model: &Model, a: usize, b: usize) -> usize {
    let links = model.links();
    let up = |mut i: usize| {
        let mut chain = vec![i];
        while let Some(p) = links[i].parent {
            chain.push(p);
            i = p;
        }
        chain
    };
    // The link whose joint carries link i's coordinate (its mimic leader's, followed up).
    let driver = |mut i: usize| {
        let mut hops = 0;
        while let Some(m) = &links[i].joint.mimic {
            if m.leader == i || hops > links.len() {
                break;
            }
            i = m.leader;
            hops += 1;
        }
        i
    };
    let (ua, ub) = (up(a), up(b));
    let drivers: BTreeSet<usize> = ua
        .iter()
        .take_while(|i| !ub.contains(i))
        .chain(ub.iter().take_while(|i| !ua.contains(i)))
        .filter(|&&i| links[i].joint.kind != JointKind::Fixed)
        .map(|&i| driver(i))
        .collect();
    drivers.len()
}

/// Link pairs (kernel link indices).
pub type Pairs = Vec<(usize, usize)>;

/// `pairs` (kernel link indices, either order) as `(min, max)`, sorted, split into those at
/// most [`MAX_JOINTS_APART`] moving joints apart (near) and the others (far).
pub fn split_pairs(model: &Model, pairs: &[(usize, usize)]) -> (Pairs, Pairs) {
    normalized_pairs(pairs, model.n_links())
        .into_iter()
        .map(|(a, b)| (a as usize, b as usize))
        .partition(|&(a, b)| joints_apart(model, a, b) <= MAX_JOINTS_APART)
}

/// What a pair's meshes do at one pose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AtPose {
    Apart,
    /// Touching, but no vertex of either lies inside the other's closed parts: the
    /// surfaces meet (or a part is open).
    Touching,
    /// The deepest vertex of one inside the other's closed parts, in metres.
    Deep(f64),
}

impl AtPose {
    pub fn touches(self) -> bool {
        self != AtPose::Apart
    }

    /// "apart", "touching", "3.1 mm deep".
    pub fn describe(self) -> String {
        match self {
            AtPose::Apart => "apart".into(),
            AtPose::Touching => "touching".into(),
            AtPose::Deep(d) => format!("{} mm deep", crate::text::mm(d)),
        }
    }
}

/// Every link's placement at `q` (kernel dof order).
pub fn placements_at(model: &Model, q: &[f64]) -> Vec<Iso> {
    let mut s = PoseScratch::new(model);
    s.q.copy_from_slice(q);
    s.place(model);
    s.place
}

/// The pairs of `pairs` whose meshes touch at `q`, in the order given.
pub fn touching_at(
    model: &Model,
    truth: &MeshTruth,
    pairs: &[(usize, usize)],
    q: &[f64],
) -> Vec<(usize, usize)> {
    let place = placements_at(model, q);
    pairs
        .iter()
        .copied()
        .filter(|&(a, b)| truth.touching(a, &place[a], b, &place[b]))
        .collect()
}

/// The contact of kernel links `a` and `b` placed at `pa` and `pb`, with its depth: the
/// deepest vertex of one link's closed parts inside the other's closed parts. An open part
/// bounds no solid, so a vertex of one says nothing of depth; and a depth is never more than
/// the closed parts' bounding boxes allow ([`box_depth_bound`]): a measure above it is not a
/// depth. Without a depth so measured, a contact is `Touching`.
pub fn contact_at(truth: &MeshTruth, a: usize, pa: &Iso, b: usize, pb: &Iso) -> AtPose {
    if !truth.touching(a, pa, b, pb) {
        return AtPose::Apart;
    }
    let (ca, cb) = (truth.closed_vertices(a), truth.closed_vertices(b));
    if ca.is_empty() || cb.is_empty() {
        return AtPose::Touching;
    }
    let depth = deepest(truth, &ca, pa, b, pb).max(deepest(truth, &cb, pb, a, pa));
    // Rounding: the bound and the depth come from the same vertices.
    let bound = box_depth_bound(&ca, pa, &cb, pb) + 1e-9;
    if depth > 0.0 && depth <= bound {
        AtPose::Deep(depth)
    } else {
        AtPose::Touching
    }
}

/// An upper bound on the depth of a vertex of points `a` (placed at `pa`) inside a solid
/// whose vertices are `b` (placed at `pb`), or the reverse: the least, over the world axes,
/// of how far the two point sets' bounding boxes would have to slide apart along it. A point
/// of `a` a ball of radius d deep in `b`'s solid lies at least d inside `b`'s box on every
/// axis, so both slides are at least d. Negative when the boxes are apart.
pub fn box_depth_bound(a: &[V3], pa: &Iso, b: &[V3], pb: &Iso) -> f64 {
    let world_box = |pts: &[V3], p: &Iso| {
        pts.iter().fold(
            ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]),
            |(lo, hi), &v| {
                let w = p.transform_point(v);
                (
                    [lo[0].min(w[0]), lo[1].min(w[1]), lo[2].min(w[2])],
                    [hi[0].max(w[0]), hi[1].max(w[1]), hi[2].max(w[2])],
                )
            },
        )
    };
    let ((alo, ahi), (blo, bhi)) = (world_box(a, pa), world_box(b, pb));
    (0..3)
        .map(|k| (ahi[k] - blo[k]).min(bhi[k] - alo[k]))
        .fold(f64::INFINITY, f64::min)
}

/// The deepest of (up to [`DEPTH_POINTS`] of) `points` (link frame, placed at `pa`) in link
/// `b`'s closed parts.
fn deepest(truth: &MeshTruth, points: &[V3], pa: &Iso, b: usize, pb: &Iso) -> f64 {
    let step = points.len().div_ceil(DEPTH_POINTS).max(1);
    points
        .par_iter()
        .step_by(step)
        .map(|&p| {
            let world = pa.transform_point(p);
            truth.solid_depth(b, mul_mtv(&pb.rot, sub(world, pb.pos)))
        })
        .reduce(|| f64::NEG_INFINITY, f64::max)
}

/// A pair offered as a contact by design, with its evidence.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// Kernel link indices, `a < b`.
    pub a: usize,
    pub b: usize,
    pub joints_apart: usize,
    /// Seeded poses whose meshes touch, of `poses`.
    pub touching_poses: usize,
    pub poses: usize,
    pub at_rest: AtPose,
}

impl Candidate {
    /// The share of the seeded poses whose meshes touch, 0 to 1.
    pub fn share(&self) -> f64 {
        if self.poses == 0 {
            0.0
        } else {
            self.touching_poses as f64 / self.poses as f64
        }
    }

    /// `meshes touch in 94.3 % of 1000 seeded poses; 3.1 mm deep at rest`.
    pub fn evidence(&self) -> String {
        let share = if self.touching_poses == self.poses && self.poses > 0 {
            format!("in every one of {} seeded poses", self.poses)
        } else if self.touching_poses == 0 {
            format!("in none of {} seeded poses", self.poses)
        } else {
            format!(
                "in {:.1} % of {} seeded poses",
                100.0 * self.share(),
                self.poses
            )
        };
        let rest = match self.at_rest {
            AtPose::Apart => "apart at rest".to_string(),
            AtPose::Touching => "touching at rest".to_string(),
            AtPose::Deep(d) => format!("{} mm deep at rest", crate::text::mm(d)),
        };
        format!(
            "{} moving joint(s) apart; meshes touch {share}; {rest}",
            self.joints_apart
        )
    }

    /// Whether it is a candidate only because of the rest pose (it touches there, but in
    /// fewer than [`MIN_SHARE`] of the seeded poses): another rest pose may be the fix.
    pub fn only_at_rest(&self) -> bool {
        self.share() < MIN_SHARE
    }
}

/// Seeded contacts (poses `0..poses` of `seed`) of the pairs of `checked` at most
/// [`MAX_JOINTS_APART`] moving joints apart: the candidate search's one costly step,
/// counted on `bar`. The far pairs are never candidates, so they are not asked about.
pub fn near_contacts(
    model: &Model,
    truth: &MeshTruth,
    checked: &[(usize, usize)],
    poses: usize,
    seed: u64,
    bar: &crate::progress::ProgressBar,
) -> MeshContacts {
    let (near, _) = split_pairs(model, checked);
    mesh_contacts_with_progress(model, truth, &near, poses, seed, bar)
}

/// The candidates among the pairs of `near` (from [`near_contacts`]) at rest pose `rest_q`
/// (kernel dof order): those touching at rest or in at least [`MIN_SHARE`] of the seeded
/// poses, in pair order.
pub fn candidates(
    model: &Model,
    truth: &MeshTruth,
    near: &MeshContacts,
    rest_q: &[f64],
) -> Vec<Candidate> {
    let place = placements_at(model, rest_q);
    near.pairs
        .par_iter()
        .filter_map(|&(a, b)| {
            let (a, b) = (a as usize, b as usize);
            let touching_poses = near.count(a, b);
            let share_ok = near.poses > 0 && touching_poses as f64 >= MIN_SHARE * near.poses as f64;
            let at_rest = contact_at(truth, a, &place[a], b, &place[b]);
            (share_ok || at_rest.touches()).then(|| Candidate {
                a,
                b,
                joints_apart: joints_apart(model, a, b),
                touching_poses,
                poses: near.poses,
                at_rest,
            })
        })
        .collect()
}

/// [`near_contacts`] on [`POSES`] poses of [`SEED`], then [`candidates`]: what `lower` and
/// `acm regenerate` print beside their rest verdict.
pub fn find(
    model: &Model,
    truth: &MeshTruth,
    checked: &[(usize, usize)],
    rest_q: &[f64],
) -> Vec<Candidate> {
    let near = near_contacts(
        model,
        truth,
        checked,
        POSES,
        SEED,
        &crate::progress::ProgressBar::hidden(),
    );
    candidates(model, truth, &near, rest_q)
}

/// When the rest pose of `m` trips its kernel on a pair whose meshes really touch there:
/// the contacts by design among the checked pairs (names, evidence), as `collide init`
/// lists them. Empty when the rest pose is clear or trips only on slop.
pub fn at_rest_candidates(
    m: &crate::manifest::Manifest,
    truths: &std::collections::BTreeMap<String, crate::geom::mesh::TriMesh>,
) -> crate::error::Result<Vec<(String, String, String)>> {
    let k = crate::manifest::kernel::load_kernel(m)?;
    let (rest, contacts) = crate::manifest::rest::rest_verdict(&k, m);
    if rest.clear {
        return Ok(Vec::new());
    }
    let truth = MeshTruth::new(&k.link_names, truths);
    let rest_q = k.q_from(&m.rest_pose.q);
    let place = placements_at(&k.model, &rest_q);
    let real = contacts.iter().any(|(a, b, _)| {
        let (a, b) = (k.link_index[a], k.link_index[b]);
        truth.touching(a, &place[a], b, &place[b])
    });
    if !real {
        return Ok(Vec::new());
    }
    Ok(find(&k.model, &truth, k.model.checked_pairs(), &rest_q)
        .into_iter()
        .map(|c| {
            let (a, b) = (k.link_names[c.a].clone(), k.link_names[c.b].clone());
            (a, b, c.evidence())
        })
        .collect())
}

/// The pairs of `pairs` whose meshes touch in at least [`MIN_SHARE`] of seeded poses
/// `0..poses` of `seed` (none when `poses` is 0), sorted. Among the far pairs, these are
/// contacts no rest pose can be expected to part.
pub fn mostly_touching(
    model: &Model,
    truth: &MeshTruth,
    pairs: &[(usize, usize)],
    poses: usize,
    seed: u64,
) -> Vec<(usize, usize, usize)> {
    if poses == 0 || pairs.is_empty() {
        return Vec::new();
    }
    let c = super::contacts::mesh_contacts(model, truth, pairs, poses, seed);
    c.pairs
        .iter()
        .map(|&(a, b)| (a as usize, b as usize, c.count(a as usize, b as usize)))
        .filter(|&(_, _, n)| n as f64 >= MIN_SHARE * poses as f64)
        .collect()
}

/// How [`nearest_free`] looks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchOptions {
    /// Rays from the start toward seeded uniform in-limit poses, and steps a ray.
    pub rays: usize,
    pub steps: usize,
    pub seed: u64,
    /// The nearest first-free steps that are pulled back toward the start, joint by joint.
    pub pull_back: usize,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            rays: 256,
            steps: 32,
            seed: 7,
            pull_back: 8,
        }
    }
}

/// A free pose found near the start.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    /// Kernel dof order.
    pub q: Vec<f64>,
    /// Euclidean joint-space distance from the start (rad and m).
    pub distance: f64,
    /// Poses the search tried.
    pub tried: usize,
}

/// Euclidean distance between two joint vectors.
pub fn distance(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f64>()
        .sqrt()
}

/// Is no pair of `pairs` touching at the pose in `s.q`?
fn free(model: &Model, truth: &MeshTruth, pairs: &[(usize, usize)], s: &mut PoseScratch) -> bool {
    s.place(model);
    let place = &s.place;
    !pairs
        .iter()
        .any(|&(a, b)| truth.touching(a, &place[a], b, &place[b]))
}

/// The nearest pose to `start` (kernel dof order, within the limits) the search finds where
/// no pair of `pairs` touches (give `truth` a margin to keep that much clearance): along
/// `rays` rays toward seeded uniform poses the first free step of each, the
/// `pull_back` nearest of those moved back toward `start` one joint at a time (all the way
/// when that stays free, else by bisection), the nearest result kept. Deterministic: rays
/// and pull-backs are computed independently and chosen by (distance, index). `None` when
/// no ray reaches a free pose.
pub fn nearest_free(
    model: &Model,
    truth: &MeshTruth,
    pairs: &[(usize, usize)],
    start: &[f64],
    options: &SearchOptions,
) -> Option<Found> {
    let steps = options.steps.max(1);
    let per_ray: Vec<(Option<(usize, f64)>, usize)> = (0..options.rays)
        .into_par_iter()
        .map_init(
            || (PoseScratch::new(model), vec![0.0; model.dof()]),
            |(s, goal), r| {
                uniform_q(model, options.seed, r as u64, goal);
                let length = distance(goal, start);
                for k in 1..=steps {
                    let t = k as f64 / steps as f64;
                    for ((v, &g), &q0) in s.q.iter_mut().zip(goal.iter()).zip(start) {
                        *v = q0 + (g - q0) * t;
                    }
                    if free(model, truth, pairs, s) {
                        return (Some((k, t * length)), k);
                    }
                }
                (None, steps)
            },
        )
        .collect();
    let mut tried: usize = per_ray.iter().map(|(_, n)| n).sum();
    let mut hits: Vec<(f64, usize, usize)> = per_ray
        .iter()
        .enumerate()
        .filter_map(|(r, (hit, _))| hit.map(|(k, d)| (d, r, k)))
        .collect();
    hits.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
    hits.truncate(options.pull_back.max(1));
    let pulled: Vec<(Vec<f64>, usize)> = hits
        .par_iter()
        .map(|&(_, r, k)| {
            let mut s = PoseScratch::new(model);
            let mut goal = vec![0.0; model.dof()];
            uniform_q(model, options.seed, r as u64, &mut goal);
            let t = k as f64 / steps as f64;
            for ((v, &g), &q0) in s.q.iter_mut().zip(&goal).zip(start) {
                *v = q0 + (g - q0) * t;
            }
            let n = pull_back(model, truth, pairs, start, &mut s);
            (s.q, n)
        })
        .collect();
    tried += pulled.iter().map(|(_, n)| n).sum::<usize>();
    pulled
        .into_iter()
        .map(|(q, _)| (distance(&q, start), q))
        .min_by(|x, y| x.0.total_cmp(&y.0))
        .map(|(distance, q)| Found { q, distance, tried })
}

/// Bisection steps per joint when pulling a free pose back toward the start.
const BISECTIONS: usize = 10;

/// Moves the free pose in `s.q` toward `start`, one joint at a time, keeping it free; two
/// passes. Returns the poses tried.
fn pull_back(
    model: &Model,
    truth: &MeshTruth,
    pairs: &[(usize, usize)],
    start: &[f64],
    s: &mut PoseScratch,
) -> usize {
    let mut tried = 0;
    for _ in 0..2 {
        for (d, &origin) in start.iter().enumerate() {
            let from = s.q[d];
            if from == origin {
                continue;
            }
            s.q[d] = origin;
            tried += 1;
            if free(model, truth, pairs, s) {
                continue;
            }
            // s = 1 (`from`) is free, s = 0 (the start) is not.
            let (mut lo, mut hi) = (0.0f64, 1.0f64);
            for _ in 0..BISECTIONS {
                let mid = 0.5 * (lo + hi);
                s.q[d] = origin + mid * (from - origin);
                tried += 1;
                if free(model, truth, pairs, s) {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            s.q[d] = if hi == 1.0 {
                from
            } else {
                origin + hi * (from - origin)
            };
        }
    }
    tried
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::mesh::TriMesh;
    use crate::kernel::model::{Acm, Joint, Link};
    use std::collections::BTreeMap;

    fn link(name: &str, parent: Option<usize>, joint: Joint) -> Link {
        Link {
            name: name.into(),
            parent,
            joint,
            primitives: Vec::new(),
        }
    }

    fn rev(name: &str, xyz: [f64; 3], lo: f64, hi: f64) -> Joint {
        Joint::new(
            name,
            JointKind::Revolute,
            xyz,
            [0.0; 3],
            [0.0, 0.0, 1.0],
            lo,
            hi,
        )
    }

    /// base -j1-> a -fixed-> a2 -j2-> b ; base -j3-> c
    fn tree() -> Model {
        let links = vec![
            link("base", None, Joint::fixed("", [0.0; 3], [0.0; 3])),
            link("a", Some(0), rev("j1", [0.0; 3], -1.0, 1.0)),
            link("a2", Some(1), Joint::fixed("f", [0.1, 0.0, 0.0], [0.0; 3])),
            link("b", Some(2), rev("j2", [0.1, 0.0, 0.0], -1.0, 1.0)),
            link("c", Some(0), rev("j3", [0.0, 0.5, 0.0], -1.0, 1.0)),
        ];
        Model::new(links, Vec::new(), Acm::new(5), 0.0).unwrap()
    }

    /// A four-bar gripper as a tree: base -j-> outer, base -m1-> inner -m2-> tip, where m1
    /// and m2 mimic j. outer and tip are three moving joints apart, one joint's motion.
    #[test]
    fn joints_apart_counts_a_mimic_follower_as_its_leader() {
        let mimic = |name: &str, xyz: [f64; 3]| {
            let mut j = rev(name, xyz, -1.0, 1.0);
            j.mimic = Some(crate::kernel::model::Mimic {
                leader: 1,
                multiplier: -1.0,
                offset: 0.0,
            });
            j
        };
        let links = vec![
            link("base", None, Joint::fixed("", [0.0; 3], [0.0; 3])),
            link("outer", Some(0), rev("j", [0.0; 3], -1.0, 1.0)),
            link("inner", Some(0), mimic("m1", [0.1, 0.0, 0.0])),
            link("tip", Some(2), mimic("m2", [0.1, 0.0, 0.0])),
        ];
        let m = Model::new(links, Vec::new(), Acm::new(4), 0.0).unwrap();
        assert_eq!(joints_apart(&m, 1, 3), 1);
        assert_eq!(joints_apart(&m, 0, 3), 1);
        assert_eq!(
            joints_apart(&tree(), 3, 4),
            3,
            "independent joints still count"
        );
    }

    #[test]
    fn joints_apart_counts_moving_joints_on_the_tree_path() {
        let m = tree();
        assert_eq!(joints_apart(&m, 0, 1), 1);
        assert_eq!(joints_apart(&m, 1, 2), 0, "a fixed joint only");
        assert_eq!(joints_apart(&m, 0, 3), 2);
        assert_eq!(joints_apart(&m, 2, 3), 1);
        assert_eq!(joints_apart(&m, 3, 4), 3, "b and c, through the base");
        assert_eq!(joints_apart(&m, 4, 3), 3);
        let (near, far) = split_pairs(&m, &[(4, 3), (0, 3), (1, 4)]);
        assert_eq!(near, vec![(0, 3), (1, 4)]);
        assert_eq!(far, vec![(3, 4)]);
    }

    fn cube(h: f64) -> TriMesh {
        crate::geom::primitive_mesh::box_mesh([h; 3])
    }

    #[test]
    fn the_depth_at_rest_is_the_deepest_vertex_and_contact_without_depth_is_touching() {
        let names: Vec<String> = ["a", "b"].iter().map(|s| s.to_string()).collect();
        let map: BTreeMap<String, TriMesh> =
            [("a".to_string(), cube(0.1)), ("b".to_string(), cube(0.05))]
                .into_iter()
                .collect();
        let t = MeshTruth::new(&names, &map);
        let at = |x: f64| Iso {
            rot: crate::kernel::vec3::rot_from_rpy([0.0; 3]),
            pos: [x, 0.0, 0.0],
        };
        // b (half 0.05) moved 0.12 along x: its inner corners at x = 0.07 lie 0.03 inside a
        // (0.05 from its other faces); a's corners are outside b.
        match contact_at(&t, 0, &at(0.0), 1, &at(0.12)) {
            AtPose::Deep(d) => assert!((d - 0.03).abs() < 1e-9, "{d}"),
            other => panic!("{other:?}"),
        }
        // Face to face: touching, no vertex inside.
        assert_eq!(contact_at(&t, 0, &at(0.0), 1, &at(0.15)), AtPose::Touching);
        assert_eq!(contact_at(&t, 0, &at(0.0), 1, &at(0.16)), AtPose::Apart);
    }

    /// A square sheet (two triangles, open) of half side `h` in the plane z = 0 about `c`.
    fn sheet(c: [f64; 3], h: f64) -> TriMesh {
        TriMesh {
            vertices: vec![
                [c[0] - h, c[1] - h, c[2]],
                [c[0] + h, c[1] - h, c[2]],
                [c[0] + h, c[1] + h, c[2]],
                [c[0] - h, c[1] + h, c[2]],
            ],
            triangles: vec![[0, 1, 2], [0, 2, 3]],
        }
    }

    fn union(a: &TriMesh, b: &TriMesh) -> TriMesh {
        let mut m = a.clone();
        let base = m.vertices.len() as u32;
        m.vertices.extend(&b.vertices);
        m.triangles
            .extend(b.triangles.iter().map(|t| t.map(|i| i + base)));
        m
    }

    /// Issue 31 item 4: init wrote "378.2 mm deep" where the bounding boxes allow 110 mm,
    /// on meshes with many open components. A vertex of an open part says nothing of depth.
    #[test]
    fn a_depth_is_measured_on_closed_parts_only_and_within_the_boxes() {
        let names: Vec<String> = ["a", "b"].iter().map(|s| s.to_string()).collect();
        let at = |x: f64| Iso {
            rot: crate::kernel::vec3::rot_from_rpy([0.0; 3]),
            pos: [x, 0.0, 0.0],
        };
        // b: a cube of half 0.1 at the origin. a: a cube of half 0.05 whose inner face is
        // 0.03 inside b (placed at x = 0.12), and an open sheet 0.12 m behind it, at b's
        // centre, whose corners lie 0.08 deep in b.
        let a = union(&cube(0.05), &sheet([-0.12, 0.0, 0.0], 0.02));
        let map: BTreeMap<String, TriMesh> = [("a".to_string(), a), ("b".to_string(), cube(0.1))]
            .into_iter()
            .collect();
        let t = MeshTruth::new(&names, &map);
        match contact_at(&t, 0, &at(0.12), 1, &at(0.0)) {
            AtPose::Deep(d) => assert!((d - 0.03).abs() < 1e-9, "{d}"),
            other => panic!("{other:?}"),
        }
        // The sheet alone inside b touches (its vertices are inside b's solid), with no depth.
        let map: BTreeMap<String, TriMesh> = [
            ("a".to_string(), sheet([0.0; 3], 0.02)),
            ("b".to_string(), cube(0.1)),
        ]
        .into_iter()
        .collect();
        let t = MeshTruth::new(&names, &map);
        assert_eq!(contact_at(&t, 0, &at(0.0), 1, &at(0.0)), AtPose::Touching);
    }

    #[test]
    fn the_box_bound_is_the_least_slide_that_parts_the_boxes() {
        let at = |x: f64| Iso {
            rot: crate::kernel::vec3::rot_from_rpy([0.0; 3]),
            pos: [x, 0.0, 0.0],
        };
        let (a, b) = (cube(0.05).vertices, cube(0.1).vertices);
        // a's box [0.07, 0.17] against b's [-0.1, 0.1] along x: 0.03 to part them.
        assert!((box_depth_bound(&a, &at(0.12), &b, &at(0.0)) - 0.03).abs() < 1e-12);
        // a inside b: sliding a out by its own width plus the rest of b's, the least 0.15.
        assert!((box_depth_bound(&a, &at(0.0), &b, &at(0.0)) - 0.15).abs() < 1e-12);
        assert!(box_depth_bound(&a, &at(0.3), &b, &at(0.0)) < 0.0);
    }

    #[test]
    fn the_search_pulls_a_free_pose_back_to_the_joints_that_must_move() {
        // base (a cube at the origin) and three links in a row; only the last, 3 joints
        // from the base, has a mesh: a cube sitting in the base at q = 0. Turning j1 moves
        // it out; j2 and j3 turn it about its own centre and cannot.
        let links = vec![
            link("base", None, Joint::fixed("", [0.0; 3], [0.0; 3])),
            link("l1", Some(0), rev("j1", [-0.3, 0.0, 0.0], -1.5, 1.5)),
            link("l2", Some(1), rev("j2", [0.3, 0.0, 0.0], -1.5, 1.5)),
            link("l3", Some(2), rev("j3", [0.0; 3], -1.5, 1.5)),
        ];
        let m = Model::new(links, Vec::new(), Acm::new(4), 0.0).unwrap();
        let names: Vec<String> = ["base", "l1", "l2", "l3"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let map: BTreeMap<String, TriMesh> = [
            ("base".to_string(), cube(0.1)),
            ("l3".to_string(), cube(0.02)),
        ]
        .into_iter()
        .collect();
        let t = MeshTruth::new(&names, &map);
        let start = [0.0, 0.0, 0.0];
        assert_eq!(touching_at(&m, &t, &[(0, 3)], &start), vec![(0, 3)]);
        let found = nearest_free(&m, &t, &[(0, 3)], &start, &SearchOptions::default()).unwrap();
        // Turned by t about (-0.3, 0, 0), the cube's centre is 0.3 sin t off the x axis: it
        // leaves the base (half 0.1, plus up to 0.02 √2 of its own) near t = 0.44. The
        // search keeps j2 and j3 at 0, which cannot free it.
        assert!(
            found.q[1].abs() < 1e-9 && found.q[2].abs() < 1e-9,
            "{:?}",
            found.q
        );
        assert!(
            found.q[0].abs() > 0.3 && found.q[0].abs() < 0.6,
            "{:?}",
            found.q
        );
        assert!(touching_at(&m, &t, &[(0, 3)], &found.q).is_empty());
        // Deterministic at any thread count.
        let again = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap()
            .install(|| nearest_free(&m, &t, &[(0, 3)], &start, &SearchOptions::default()));
        assert_eq!(again, Some(found));
    }
}
