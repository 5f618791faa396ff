//! Automatic refinement: the stage between fitting and writing that chooses each
//! link's geometry by measurement.
//!
//! Start from the fit rule's choice (or the committed manifest's refinements, or
//! `--tight-link`), and judge the kernel on seeded poses against the mesh truth
//! (`truth::contacts`, `truth::judge`: the sweep's own code), under the ACM the refinement can
//! rely on before `acm regenerate` runs: adjacent pairs and the user's exemptions.
//! Pairs that trip at rest while their meshes are apart, or that carry false
//! stops (the kernel trips, the meshes are apart) on at least
//! [`FALSE_STOP_FLOOR`] of the poses, have both links refined one level:
//! the fit rule's capsule, chain or box -> one box + exact hull -> the convex
//! decomposition (`fit::decompose`, up to its piece budget). Repeat until no such
//! pair has a link left to refine, or the kernel's estimated cost would pass the
//! budget (then the step is retried pair by pair, and what fits is kept).
//!
//! The budget is checked on a deterministic cost model (per configuration:
//! link transforms, primitive-pair sphere tests and narrow phases, each at its
//! measured price on this machine; see [`CostModel`]), never on a timer, so the
//! same inputs give the same manifest bytes on any machine and thread count.
//! `collide sweep` reports the measured time.

use crate::error::{Error, Result};
use crate::fit::{self, FitOptions, LinkFit, decompose::PIECE_BUDGET};
use crate::geom::mesh::TriMesh;
use crate::geom::v3::{self, V3};
use crate::kernel::Model;
use crate::manifest::kernel::{LoadedKernel, load_kernel};
use crate::manifest::{self, AcmEntry, Manifest};
use crate::model::LinkPair;
use crate::truth::contacts::{MeshContacts, mesh_contacts_with_progress};
use crate::truth::judge::{Judgement, judge};
use crate::truth::mesh::MeshTruth;
use crate::truth::poses::{for_each_pose, placements};
use crate::truth::reach::{FreeSpace, RayContacts, Rays, judge_rays, ray_contacts};
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

/// Poses the refinement judges on.
pub const REFINE_POSES: usize = 1000;
/// Their seed: not the sweep's default, so the fleet's figures are measured on
/// poses the refinement never saw.
pub const REFINE_SEED: u64 = 7;
/// Free-space rays the refinement judges on (from the rest pose, see
/// `truth::reach`), their steps and seed: not the sweep's, so the fleet's figures are
/// measured on rays the refinement never saw.
pub const REFINE_RAYS: usize = 100;
pub const REFINE_STEPS: usize = 16;
pub const REFINE_RAY_SEED: u64 = 5;
/// A pair is refined when it carries false stops on at least this fraction of
/// the poses (and on at least one).
pub const FALSE_STOP_FLOOR: f64 = 0.001;
/// A pair whose kernel value stays above this on every refinement pose is
/// left out of the cost estimate (see `Judge::far`).
const FAR_M: f64 = 0.05;
/// Refinement steps at most (each refits the links it refines).
const MAX_STEPS: usize = 24;
/// Offending pairs tried alone when a whole step passes the budget.
const TRIES_PER_STEP: usize = 6;

/// Default budget (median µs per `check_self_collision`, estimated; see
/// [`CostModel`]) for an arm, a robot with at most [`ARM_LINKS`] links with
/// geometry: a 1 kHz loop checks in well under 1 % of its cycle...
pub const ARM_BUDGET_US: f64 = 5.0;
/// ...and for larger robots (humanoids, mobile manipulators), 4 % of it: usability
/// first (a humanoid that refuses its free poses is unusable), still 4-7x under the
/// design documents' 176-267 µs; the coherent mode is where per-cycle cost is cut.
pub const ROBOT_BUDGET_US: f64 = 40.0;
pub const ARM_LINKS: usize = 12;

/// The levels a link climbs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// The fit rule's choice (capsule, chain or box).
    Rule,
    /// Box + 26-DOP + exact hull on at most this many pieces.
    Pieces(usize),
}

impl Level {
    fn next(self) -> Option<Level> {
        match self {
            // A decomposition of a convex link is its one hull: no step through
            // the single hull, which on nested parts only spends the budget.
            Level::Rule => Some(Level::Pieces(PIECE_BUDGET)),
            Level::Pieces(n) if n < PIECE_BUDGET => Some(Level::Pieces(PIECE_BUDGET)),
            Level::Pieces(_) => None,
        }
    }
}

/// One link's plan: its level, why, and whether the refinement may change it.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkPlan {
    pub level: Level,
    pub reason: String,
    /// Set by `--tight-link`: a manual choice the refinement leaves alone.
    pub locked: bool,
}

/// Fits a link at its level; a decomposition keeps the points of `avoid` (link frame)
/// out of its pieces' hulls where a cut can.
pub fn fit_at(mesh: &TriMesh, level: Level, opts: &FitOptions, avoid: &[V3]) -> Result<LinkFit> {
    Ok(match level {
        Level::Rule => fit::fit_link(mesh, opts)?,
        Level::Pieces(n) => fit::fit_tight_avoiding(mesh, n, opts, avoid)?,
    })
}

/// The most points to keep out a link gathers ([`neighbours_to_clear`]; evenly strided
/// beyond that, before the decomposition keeps those inside its hull).
const MAX_NEIGHBOUR_POINTS: usize = 16_384;

/// Per link, the mesh vertices of the links it must clear, in its own frame: at the rest
/// pose and at the last free step of each of the refinement's rays (where, moving out from
/// rest, the robot comes closest before any checked pair's meshes touch), the vertices of
/// every link it is checked against (neither adjacent nor the user's, meshes apart) that lie
/// in its mesh's bounding box. What the contact-aware decomposition keeps out of a link's
/// pieces (a torso around its waist motor and the shoulders as they turn, a wrist around the
/// flange it folds onto). `skeleton` gives the joints and the rest pose; its links are not
/// read.
pub fn neighbours_to_clear(
    skeleton: &Manifest,
    truths: &BTreeMap<String, TriMesh>,
    user: &[(String, String)],
) -> Result<BTreeMap<String, Vec<V3>>> {
    // A robot of one rigid body has no pair to keep apart.
    if skeleton.joints.is_empty() {
        return Ok(BTreeMap::new());
    }
    let mut bare = skeleton.clone();
    bare.links.clear();
    bare.acm.clear();
    let k = load_kernel(&bare)?;
    let n = k.model.n_links();
    let mut tree = crate::acm::adjacency::LinkTree::of_model(&k.model);
    tree.has_geometry = k
        .link_names
        .iter()
        .map(|l| truths.contains_key(l))
        .collect();
    let mut exempt: BTreeSet<(usize, usize)> = tree
        .adjacent_pairs()
        .into_iter()
        .map(|(a, b, _)| (a.min(b), a.max(b)))
        .collect();
    for (a, b) in user {
        if let (Some(&a), Some(&b)) = (k.link_index.get(a), k.link_index.get(b)) {
            exempt.insert((a.min(b), a.max(b)));
        }
    }
    let truth = MeshTruth::new(&k.link_names, truths);
    let meshes: Vec<Option<&TriMesh>> = k
        .link_names
        .iter()
        .map(|l| truths.get(l).filter(|m| !m.vertices.is_empty()))
        .collect();
    let boxes: Vec<Option<(V3, V3)>> = meshes
        .iter()
        .map(|m| m.map(|m| crate::geom::obb::extents(&m.vertices, &v3::IDENTITY)))
        .collect();
    let spheres: Vec<Option<(V3, f64)>> = meshes
        .iter()
        .map(|m| m.map(|m| crate::truth::hull::sphere_of(m.vertices.iter().copied())))
        .collect();
    let pairs: Vec<(usize, usize)> = (0..n)
        .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
        .filter(|&(a, b)| meshes[a].is_some() && meshes[b].is_some() && !exempt.contains(&(a, b)))
        .collect();
    let rest_q = k.q_from(&skeleton.rest_pose.q);
    let mut ws = k.model.workspace();
    k.model.fk(&rest_q, &mut ws);
    let rest_place = placements(&ws, n);
    // Pairs touching at rest have no free pose to learn from (and would end every ray at
    // its first step): left out of the rays.
    let apart: Vec<(usize, usize)> = pairs
        .iter()
        .copied()
        .filter(|&(a, b)| !truth.touching(a, &rest_place[a], b, &rest_place[b]))
        .collect();
    let rays = ray_contacts(
        &k.model,
        &truth,
        &apart,
        Rays {
            rays: REFINE_RAYS,
            steps: REFINE_STEPS,
            seed: REFINE_RAY_SEED,
            rest_q: rest_q.clone(),
        },
    );
    let mut poses = vec![rest_q];
    for (r, &t) in rays.t_truth.iter().enumerate() {
        if t >= 1 {
            let mut q = vec![0.0; k.model.dof()];
            rays.rays
                .pose(&k.model, r, t.min(REFINE_STEPS + 1) - 1, &mut q);
            poses.push(q);
        }
    }
    let mut out: BTreeMap<String, Vec<V3>> = BTreeMap::new();
    for q in &poses {
        k.model.fk(q, &mut ws);
        let place = placements(&ws, n);
        for &(a, b) in &apart {
            let (Some((ca, ra)), Some((cb, rb))) = (spheres[a], spheres[b]) else {
                continue;
            };
            if v3::dist(place[a].transform_point(ca), place[b].transform_point(cb)) > ra + rb
                || truth.touching(a, &place[a], b, &place[b])
            {
                continue;
            }
            for (to, from) in [(a, b), (b, a)] {
                let (lo, hi) = boxes[to].expect("a link with a mesh");
                let inv = |w: V3| v3::mul_mtv(&place[to].rot, v3::sub(w, place[to].pos));
                let points: Vec<V3> = meshes[from]
                    .expect("a link with a mesh")
                    .vertices
                    .iter()
                    .map(|v| inv(place[from].transform_point(*v)))
                    .filter(|p| (0..3).all(|i| p[i] >= lo[i] && p[i] <= hi[i]))
                    .collect();
                if !points.is_empty() {
                    out.entry(k.link_names[to].clone())
                        .or_default()
                        .extend(points);
                }
            }
        }
    }
    for points in out.values_mut() {
        if points.len() > MAX_NEIGHBOUR_POINTS {
            let step = points.len().div_ceil(MAX_NEIGHBOUR_POINTS);
            *points = points.iter().step_by(step).copied().collect();
        }
    }
    Ok(out)
}

#[derive(Debug, Clone)]
pub struct RefineOptions {
    pub poses: usize,
    pub seed: u64,
    /// `None`: by the robot's size ([`ARM_BUDGET_US`], [`ROBOT_BUDGET_US`]).
    pub budget_us: Option<f64>,
}

impl Default for RefineOptions {
    fn default() -> Self {
        RefineOptions {
            poses: REFINE_POSES,
            seed: REFINE_SEED,
            budget_us: None,
        }
    }
}

/// Deterministic price of one `check_self_collision`, from the kernel's own
/// counters (`CheckStats`: link pairs, primitive pairs, narrow phases, GJK
/// steps and the hull vertices they scanned). Prices fitted (non-negative
/// least squares on relative error, per pose) to 3000 timed poses (best of five)
/// of each of the fleet's manifests on this project's machine
/// (`examples/pose_dump.rs`), then raised 15 %: a typical call (`examples/
/// cost_calibration.rs`, best of two, the figure docs/benchmarks.md reports) runs
/// 4-17 % above the best of five on the large robots. Refitted 2026-12-04.
pub struct CostModel;

impl CostModel {
    const PER_LINK_NS: f64 = 53.0;
    const PER_CHECKED_PAIR_NS: f64 = 2.8;
    const PER_PRIM_PAIR_NS: f64 = 3.8;
    const PER_NARROW_NS: f64 = 12.0;
    const PER_TIGHT_NARROW_NS: f64 = 71.0;
    const PER_SCANNED_VERTEX_NS: f64 = 0.23;
    const PER_GJK_STEP_NS: f64 = 71.0;

    /// Median estimated µs per configuration over `poses` seeded poses.
    pub fn median_us(model: &Model, poses: usize, seed: u64) -> f64 {
        let mut costs: Vec<f64> = for_each_pose(model, seed, poses, |p, _| {
            model.check_self_collision(&p.q, &mut p.ws, false);
            let s = p.ws.stats();
            Self::PER_LINK_NS * model.n_links() as f64
                + Self::PER_CHECKED_PAIR_NS * model.checked_pairs().len() as f64
                + Self::PER_PRIM_PAIR_NS * s.prim_pairs as f64
                + Self::PER_NARROW_NS * (s.narrow - s.narrow_tight) as f64
                + Self::PER_TIGHT_NARROW_NS * s.narrow_tight as f64
                + Self::PER_SCANNED_VERTEX_NS * s.scanned_vertices as f64
                + Self::PER_GJK_STEP_NS * s.gjk_steps as f64
        });
        costs.sort_by(f64::total_cmp);
        if costs.is_empty() {
            return 0.0;
        }
        costs[(costs.len() - 1) / 2] / 1e3
    }
}

/// What one state of the geometry measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    pub refused: usize,
    pub slop_only: usize,
    pub false_stops: usize,
    pub missed: usize,
    /// Estimated median µs per configuration.
    pub cost_us: f64,
    /// Measured median µs per configuration (shown, never decided on).
    pub measured_us: f64,
    /// Checked pairs (names, sorted) tripping at rest while their meshes are apart.
    pub rest_slop: Vec<(String, String)>,
    /// Free poses (no checked pair's meshes touch) on the refinement's rays and among its
    /// uniform poses, and those the kernel refuses.
    pub free_poses: usize,
    pub refused_free: usize,
    /// Mean reach kept over the refinement's rays (`None` when none starts free).
    pub reach_kept: Option<f64>,
}

impl Measured {
    /// The refused share of the free poses, percent (0 without free poses).
    pub fn refused_free_pct(&self) -> f64 {
        100.0 * self.refused_free as f64 / self.free_poses.max(1) as f64
    }
}

/// One refinement step: which links went to which level, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub links: Vec<(String, Level, String)>,
    pub after: Measured,
}

/// What the refinement did.
#[derive(Debug, Clone, PartialEq)]
pub struct Refinement {
    pub poses: usize,
    pub seed: u64,
    pub budget_us: f64,
    pub before: Measured,
    pub steps: Vec<Step>,
    pub after: Measured,
    /// Why it stopped.
    pub stopped: String,
}

/// The refinement's ACM: adjacent pairs (as `acm regenerate` exempts them) and
/// the user's exemptions (the config's `allow:` list). `refine` adds the pairs whose
/// meshes touch on every pose.
fn refine_acm(m: &Manifest, user: &[(String, String)]) -> Result<Vec<AcmEntry>> {
    let mut open = m.clone();
    open.acm.clear();
    let k = load_kernel(&open)?;
    let tree = crate::acm::adjacency::LinkTree::of_model(&k.model);
    let mut rows: Vec<AcmEntry> = tree
        .adjacent_pairs()
        .into_iter()
        .map(|(a, b, _)| AcmEntry {
            a: k.link_names[a].clone(),
            b: k.link_names[b].clone(),
            reason: "adjacent".into(),
            proof: String::new(),
        })
        .collect();
    rows.extend(user.iter().map(|(a, b)| AcmEntry {
        a: a.clone(),
        b: b.clone(),
        reason: "user".into(),
        proof: String::new(),
    }));
    Ok(rows)
}

struct Judge<'a> {
    contacts: MeshContacts,
    rays: RayContacts,
    /// Link pairs never within [`FAR_M`] on any refinement pose under the fit
    /// rule's (largest) geometry: `acm regenerate` will almost surely exempt them
    /// (`never`), and the kernel then skips them, so the cost estimate does too.
    far: Vec<(usize, usize)>,
    /// Link pairs (kernel indices) whose meshes touch at rest.
    rest_touching: BTreeSet<(usize, usize)>,
    rest_q: Vec<f64>,
    options: &'a RefineOptions,
}

impl Judge<'_> {
    fn measure(&self, k: &LoadedKernel) -> Result<(Measured, Judgement, FreeSpace)> {
        let j = judge(&k.model, &self.contacts)
            .map_err(|e| Error::check(format!("refinement: {e}")))?;
        let free = judge_rays(&k.model, &self.rays)
            .map_err(|e| Error::check(format!("refinement: {e}")))?;
        let mut ws = k.model.workspace();
        k.model.check_self_collision(&self.rest_q, &mut ws, true);
        let margin = k.model.margin();
        let mut rest_slop: Vec<(String, String)> = k
            .model
            .checked_pairs()
            .iter()
            .zip(ws.pair_distances())
            .filter(|(p, d)| (d.is_nan() || **d <= margin) && !self.rest_touching.contains(p))
            .map(|(&(a, b), _)| LinkPair::new(&k.link_names[a], &k.link_names[b]).into())
            .collect();
        rest_slop.sort();
        let m = Measured {
            refused: j.refused,
            slop_only: j.slop_only,
            false_stops: j.false_stops,
            missed: j.missed,
            cost_us: {
                let mut acm = k.model.acm().clone();
                for &(a, b) in &self.far {
                    acm.allow(a, b);
                }
                let model = k.model.clone().with_acm(acm).map_err(Error::check)?;
                CostModel::median_us(&model, self.options.poses, self.options.seed)
            },
            measured_us: j.timing.median_us,
            rest_slop,
            free_poses: free.free_poses + (j.poses - j.contact_poses),
            refused_free: free.refused_free + j.slop_only,
            reach_kept: free.reach_kept,
        };
        Ok((m, j, free))
    }
}

/// What the refinement lowers, most important first: the pairs that trip at rest while
/// their meshes are apart (each refuses every free pose), the refused free poses, the
/// slop-only poses, the false stops. A step is taken only when it lowers this.
fn objective(m: &Measured) -> (usize, usize, usize, usize) {
    (
        m.rest_slop.len(),
        m.refused_free,
        m.slop_only,
        m.false_stops,
    )
}

fn percent(count: usize, of: usize) -> String {
    let p = 100.0 * count as f64 / of.max(1) as f64;
    if p >= 10.0 {
        format!("{p:.0} %")
    } else {
        format!("{p:.1} %")
    }
}

/// Score of a pair that trips at rest while its meshes are apart: above every other.
const REST_TRIP: usize = usize::MAX;

/// A pair worth refining, most offending first: (names, why, score). First every pair
/// that trips at rest while its meshes are apart (it refuses the rest pose, and with it
/// every free pose); then the pairs that trip on free poses (the refinement's rays and
/// its uniform poses where no checked pair's meshes touch), by how many; only when no
/// pair does, the pairs with false stops, by count.
fn offenders(
    k: &LoadedKernel,
    m: &Measured,
    j: &Judgement,
    free: &FreeSpace,
    poses: usize,
) -> Vec<((String, String), String, usize)> {
    let names_of = |a: usize, b: usize| -> (String, String) {
        LinkPair::new(&k.link_names[a], &k.link_names[b]).into()
    };
    let mut out: Vec<((String, String), String, usize)> = m
        .rest_slop
        .iter()
        .map(|p| {
            (
                p.clone(),
                format!("pair {}/{}: trips at rest, meshes apart", p.0, p.1),
                REST_TRIP,
            )
        })
        .collect();
    let floor = ((FALSE_STOP_FLOOR * poses as f64).ceil() as usize).max(1);
    let free_trips: Vec<usize> = j
        .pairs
        .iter()
        .zip(&free.pair_free_trips)
        .map(|(p, r)| p.slop_stops + r)
        .collect();
    let on_free = free_trips.iter().any(|&n| n >= floor);
    let score = |i: usize| {
        if on_free {
            free_trips[i]
        } else {
            j.pairs[i].false_stops
        }
    };
    let mut ranked: Vec<usize> = (0..j.pairs.len()).filter(|&i| score(i) >= floor).collect();
    ranked.sort_by(|&x, &y| {
        score(y).cmp(&score(x)).then_with(|| {
            names_of(j.pairs[x].a, j.pairs[x].b).cmp(&names_of(j.pairs[y].a, j.pairs[y].b))
        })
    });
    for i in ranked {
        let p = &j.pairs[i];
        let names = names_of(p.a, p.b);
        if out.iter().any(|o| o.0 == names) {
            continue;
        }
        let why = if on_free {
            format!(
                "pair {}/{}: trips on {} of the free poses",
                names.0,
                names.1,
                percent(free_trips[i], m.free_poses)
            )
        } else {
            format!(
                "pair {}/{}: {} false stops",
                names.0,
                names.1,
                percent(p.false_stops, poses)
            )
        };
        out.push((names, why, score(i)));
    }
    out
}

/// Why the refinement has nothing to measure: the meshes of some checked pair touch at
/// the rest pose, so no ray has a free pose and no uniform pose is free either.
fn no_free_poses(k: &LoadedKernel, judge: &Judge) -> String {
    let at_rest: Vec<String> = judge
        .rays
        .rest_contacts
        .iter()
        .take(4)
        .map(|&(a, b)| format!("{}/{}", k.link_names[a as usize], k.link_names[b as usize]))
        .collect();
    if at_rest.is_empty() {
        "no free pose to judge on: the meshes of some checked pair touch on every pose".into()
    } else {
        format!(
            "no free pose to judge on, nothing refined: the meshes touch at the rest pose ({}); a contact by design needs an `allow:` row (`collide init` lists the candidates), otherwise choose a rest pose where the meshes are apart",
            at_rest.join(", ")
        )
    }
}

/// Links that mirror each other: names that differ only by a left/right marker
/// (`left`/`right`, `l_`/`r_`, `_l`/`_r`, `L_`/`R_`, ...) whose truth meshes have the same
/// extents along each axis of their link frames (within 3 mm or 3 %: vendors export the
/// two sides as separate meshes, a few vertices apart). Each maps to the other.
pub fn mirror_pairs(
    names: &[String],
    truths: &BTreeMap<String, TriMesh>,
) -> BTreeMap<String, String> {
    const MARKERS: [(&str, &str); 8] = [
        ("left", "right"),
        ("Left", "Right"),
        ("LEFT", "RIGHT"),
        ("l_", "r_"),
        ("_l_", "_r_"),
        ("_l", "_r"),
        ("L_", "R_"),
        ("_L", "_R"),
    ];
    let known: BTreeSet<&str> = names.iter().map(String::as_str).collect();
    let extents = |n: &str| -> Option<[f64; 3]> {
        let m = truths.get(n).filter(|m| !m.vertices.is_empty())?;
        let (lo, hi) = crate::geom::obb::extents(&m.vertices, &v3::IDENTITY);
        Some(v3::sub(hi, lo))
    };
    let alike = |a: &str, b: &str| match (extents(a), extents(b)) {
        (Some(x), Some(y)) => {
            (0..3).all(|k| (x[k] - y[k]).abs() <= (0.003f64).max(0.03 * x[k].max(y[k])))
        }
        _ => false,
    };
    let mut out = BTreeMap::new();
    for name in names {
        if out.contains_key(name) {
            continue;
        }
        let mut partner = None;
        for (l, r) in MARKERS {
            for (from, to) in [(l, r), (r, l)] {
                // Replace one occurrence at a word boundary-ish place: prefix, suffix or infix.
                let candidates = [
                    name.strip_prefix(from).map(|rest| format!("{to}{rest}")),
                    name.strip_suffix(from).map(|rest| format!("{rest}{to}")),
                    (from.len() > 2 || from.starts_with('_') && from.ends_with('_'))
                        .then(|| name.replacen(from, to, 1))
                        .filter(|n| n != name),
                ];
                for c in candidates.into_iter().flatten() {
                    if partner.is_none() && &c != name && known.contains(c.as_str()) {
                        partner = Some(c);
                    }
                }
            }
        }
        if let Some(p) = partner
            && alike(name, &p)
        {
            out.insert(name.clone(), p.clone());
            out.insert(p, name.clone());
        }
    }
    out
}

/// Why the refinement turned a change down.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rejected {
    OverBudget,
    NoGain,
}

/// A change's links and levels, without the reasons: what the budget judged.
fn change_key(change: &[(String, Level, String)]) -> Vec<(String, Level)> {
    change.iter().map(|(n, l, _)| (n.clone(), *l)).collect()
}

/// What the refinement refits links from.
#[derive(Clone, Copy)]
pub struct Inputs<'a> {
    /// Every link's truth mesh.
    pub truths: &'a BTreeMap<String, TriMesh>,
    pub fit: &'a FitOptions,
    /// The user's exemptions (the config's `allow:`), whose pairs need no refining.
    pub user: &'a [(String, String)],
    /// Per link, the points its decomposition keeps out ([`neighbours_at_rest`]).
    pub avoid: &'a BTreeMap<String, Vec<V3>>,
}

/// Refines `fits` and their `plans` in place; `manifest` is the draft built from
/// them (joints, rest pose, margin).
pub fn refine(
    manifest: &Manifest,
    fits: &mut [(String, LinkFit)],
    plans: &mut BTreeMap<String, LinkPlan>,
    inputs: &Inputs,
    options: &RefineOptions,
) -> Result<Refinement> {
    let Inputs {
        truths,
        fit: fit_opts,
        user,
        avoid,
    } = *inputs;
    let mut draft = manifest.clone();
    draft.acm = refine_acm(manifest, user)?;
    let k = load_kernel(&draft)?;
    let with_geometry = k
        .model
        .links()
        .iter()
        .filter(|l| !l.primitives.is_empty())
        .count();
    let budget_us = options.budget_us.unwrap_or(if with_geometry <= ARM_LINKS {
        ARM_BUDGET_US
    } else {
        ROBOT_BUDGET_US
    });
    let truth = MeshTruth::new(&k.link_names, truths).with_margin(manifest.margin_m);
    let pairs = k.model.checked_pairs().to_vec();
    let progress = crate::progress::bar(options.poses as u64, "mesh truth");
    let contacts = mesh_contacts_with_progress(
        &k.model,
        &truth,
        &pairs,
        options.poses,
        options.seed,
        &progress,
    );
    progress.finish_and_clear();
    // Pairs whose meshes touch on every pose are what `acm regenerate` exempts as
    // `always` when it can prove it, and otherwise a contact no geometry can clear:
    // refining their links would buy nothing, so the refinement leaves them out.
    let mut touches = BTreeMap::new();
    for pose in &contacts.contacts {
        for &(a, b) in pose {
            *touches.entry((a as usize, b as usize)).or_insert(0usize) += 1;
        }
    }
    let always_touching: Vec<(usize, usize)> = pairs
        .iter()
        .copied()
        .filter(|p| options.poses > 0 && touches.get(p) == Some(&options.poses))
        .collect();
    for &(a, b) in &always_touching {
        draft.acm.push(AcmEntry {
            a: k.link_names[a].clone(),
            b: k.link_names[b].clone(),
            reason: "always".into(),
            proof: "meshes touch on every refinement pose".into(),
        });
    }
    let k = if always_touching.is_empty() {
        k
    } else {
        load_kernel(&draft)?
    };
    let pairs = k.model.checked_pairs().to_vec();
    let rest_q = k.q_from(&manifest.rest_pose.q);
    let mut ws = k.model.workspace();
    k.model.fk(&rest_q, &mut ws);
    let place = placements(&ws, k.model.n_links());
    let rest_touching = pairs
        .iter()
        .copied()
        .filter(|&(a, b)| truth.touching(a, &place[a], b, &place[b]))
        .collect();
    // Each checked pair's least kernel value over the poses (lower bounds).
    let least = for_each_pose(&k.model, options.seed, options.poses, |p, _| {
        k.model.check_self_collision(&p.q, &mut p.ws, true);
        p.ws.pair_distances().to_vec()
    })
    .into_iter()
    .fold(vec![f64::INFINITY; pairs.len()], |a, b| {
        a.iter().zip(&b).map(|(x, y)| x.min(*y)).collect()
    });
    let far = pairs
        .iter()
        .zip(&least)
        .filter(|(_, d)| **d > FAR_M)
        .map(|(p, _)| *p)
        .collect();
    let progress = crate::progress::bar(REFINE_RAYS as u64, "free-space rays");
    let rays = ray_contacts(
        &k.model,
        &truth,
        &pairs,
        Rays {
            rays: REFINE_RAYS,
            steps: REFINE_STEPS,
            seed: REFINE_RAY_SEED,
            rest_q: rest_q.clone(),
        },
    );
    progress.finish_and_clear();
    let judge = Judge {
        contacts,
        rays,
        far,
        rest_touching,
        rest_q,
        options,
    };

    let (mut current, mut judgement, mut free) = judge.measure(&k)?;
    // The kernel of the current draft, carried from the accepted trial.
    let mut k = k;
    let before = current.clone();
    let mut steps = Vec::new();
    let index: BTreeMap<String, usize> = fits
        .iter()
        .enumerate()
        .map(|(i, (n, _))| (n.clone(), i))
        .collect();
    let names: Vec<String> = fits.iter().map(|(n, _)| n.clone()).collect();
    let mirrors = mirror_pairs(&names, truths);
    let mut fitted: BTreeMap<(String, Level), LinkFit> = BTreeMap::new();
    // Changes tried and turned down, never tried again: one over the budget stays over
    // (steps only add cost); one within it that did not lower the objective on the draft
    // it was tried on is not retried either, so the refinement ends.
    let mut rejected: BTreeMap<Vec<(String, Level)>, Rejected> = BTreeMap::new();
    let mut rounds = 0;
    let stopped = loop {
        rounds += 1;
        if rounds > MAX_STEPS {
            break format!("after {MAX_STEPS} steps");
        }
        // Each offending pair's links that can still climb, in offence order. A step
        // takes the pairs within a factor of four of the worst, so cheap fixes are not
        // drowned in refinements of rare offenders; if that passes the budget, the
        // first of them that fits. A change that passed the budget once always will
        // (steps only add cost): it is not tried again.
        let mut candidates: Vec<Vec<(String, Level, String)>> = Vec::new();
        let mut taken = BTreeSet::new();
        let mut worst = None;
        for ((a, b), why, stops) in offenders(&k, &current, &judgement, &free, options.poses) {
            if let Some(w) = worst
                && stops < w / 4
            {
                break;
            }
            let mut group = Vec::new();
            for name in [a, b] {
                let Some(plan) = plans.get(&name) else {
                    continue;
                };
                if plan.locked || taken.contains(&name) {
                    continue;
                }
                if let Some(level) = plan.level.next() {
                    taken.insert(name.clone());
                    // A link and its mirror image get the same geometry.
                    if let Some(m) = mirrors.get(&name)
                        && !taken.contains(m)
                        && plans.get(m).is_some_and(|p| !p.locked && p.level < level)
                    {
                        taken.insert(m.clone());
                        group.push((m.clone(), level, format!("mirror of {name}; {why}")));
                    }
                    group.push((name, level, why.clone()));
                }
            }
            if !group.is_empty() && !rejected.contains_key(&change_key(&group)) {
                if stops != REST_TRIP {
                    worst.get_or_insert(stops);
                }
                candidates.push(group);
            }
        }
        if candidates.is_empty() {
            break if current.free_poses == 0 {
                no_free_poses(&k, &judge)
            } else if current.refused_free == 0 && current.rest_slop.is_empty() {
                "no free pose refused".to_string()
            } else if rejected.is_empty() {
                "every link of a pair with false stops is at its finest geometry".to_string()
            } else if !rejected.values().any(|r| *r == Rejected::OverBudget) {
                "no refinement left improves the objective".to_string()
            } else {
                format!("every refinement left would pass the budget of {budget_us} µs")
            };
        }
        // Each pair alone next; a link leaving the fit rule tries its one hull when
        // its decomposition does not fit the budget (many pieces nested in each
        // other's reach cost a GJK per piece pair).
        let mut tries = vec![candidates.concat()];
        for group in candidates.iter().take(TRIES_PER_STEP) {
            if candidates.len() > 1 {
                tries.push(group.clone());
            }
            let hulls: Vec<(String, Level, String)> = group
                .iter()
                .map(|(n, l, why)| {
                    let from_rule = plans[n].level == Level::Rule;
                    (
                        n.clone(),
                        if from_rule { Level::Pieces(1) } else { *l },
                        why.clone(),
                    )
                })
                .collect();
            if &hulls != group {
                tries.push(hulls);
            }
        }
        tries.retain(|change| !rejected.contains_key(&change_key(change)));
        let mut accepted = None;
        for change in tries {
            // A link's fit at a level is the same in every try: fitted once.
            let missing: Vec<(String, Level)> = change
                .iter()
                .filter(|(name, level, _)| !fitted.contains_key(&(name.clone(), *level)))
                .map(|(name, level, _)| (name.clone(), *level))
                .collect();
            let new: Vec<((String, Level), LinkFit)> = missing
                .into_par_iter()
                .map(|(name, level)| {
                    let points = avoid.get(&name).map_or(&[][..], Vec::as_slice);
                    fit_at(&truths[&name], level, fit_opts, points).map(|f| ((name, level), f))
                })
                .collect::<Result<_>>()?;
            fitted.extend(new);
            let refits: Vec<(usize, LinkFit)> = change
                .iter()
                .map(|(name, level, _)| (index[name], fitted[&(name.clone(), *level)].clone()))
                .collect();
            // A refit that changes nothing (a decomposition that finds no
            // further cut) only raises the level: the link keeps its reason.
            let refits: Vec<(usize, LinkFit)> = refits
                .into_iter()
                .filter(|(i, f)| f.primitives != fits[*i].1.primitives)
                .collect();
            let mut trial = draft.clone();
            for (i, f) in &refits {
                let name = &fits[*i].0;
                let pos = trial
                    .links
                    .iter()
                    .position(|l| &l.name == name)
                    .expect("every fitted link is in the draft");
                trial.links[pos] = crate::manifest::fit::manifest_link(name, f);
            }
            let kt = load_kernel(&trial)?;
            let (m, j, f) = judge.measure(&kt)?;
            if m.cost_us > budget_us {
                rejected.insert(change_key(&change), Rejected::OverBudget);
            } else if objective(&m) < objective(&current) {
                accepted = Some((change, refits, trial, kt, m, j, f));
                break;
            } else {
                rejected.insert(change_key(&change), Rejected::NoGain);
            }
        }
        let Some((change, refits, trial, kt, m, j, f)) = accepted else {
            // Every try passed the budget and is remembered: the next round looks
            // further down the offenders.
            continue;
        };
        let changed: BTreeSet<String> = refits.iter().map(|(i, _)| fits[*i].0.clone()).collect();
        for (name, level, why) in &change {
            let plan = plans.get_mut(name).expect("planned link");
            plan.level = *level;
            if changed.contains(name) {
                plan.reason = why.clone();
            }
        }
        let change: Vec<(String, Level, String)> = change
            .into_iter()
            .filter(|c| changed.contains(&c.0))
            .collect();
        for (i, f) in refits {
            fits[i].1 = f;
        }
        draft = trial;
        k = kt;
        current = m.clone();
        judgement = j;
        free = f;
        if !change.is_empty() {
            steps.push(Step {
                links: change,
                after: m,
            });
        }
    };
    Ok(Refinement {
        poses: options.poses,
        seed: options.seed,
        budget_us,
        before,
        steps,
        after: current,
        stopped,
    })
}

/// `manifest::Link` for a planned fit, reason included.
pub fn planned_link(name: &str, fit: &LinkFit, plan: &LinkPlan) -> manifest::Link {
    let mut link = crate::manifest::fit::manifest_link(name, fit);
    link.fit.reason = plan.reason.clone();
    link
}
