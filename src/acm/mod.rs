//! The allowed-collision matrix, every exemption proven on the manifest's primitives:
//! adjacent (structure), always (a common ball no joint can move, or a point of one link
//! that a branch and bound over the joint limits keeps inside the other), never (branch and
//! bound over the joint limits). SRDF rows are checked, never trusted; sampling only
//! feeds the report.

pub mod adjacency;
pub mod always;
pub mod chain;
pub mod mesh_never;
pub mod never;
pub mod regenerate;
pub mod sampling;
pub mod timing;
pub mod user;
pub mod witness;

use crate::error::Result;
use crate::geom::mesh::TriMesh;
use crate::io::srdf::{Srdf, WrittenPair};
use crate::kernel::model::Primitive;
use crate::manifest::kernel::{LoadedKernel, load_kernel};
use crate::manifest::{AcmEntry, Manifest};
use crate::model::LinkPair;
use crate::truth::mesh::MeshTruth;
use adjacency::{Adjacency, LinkTree};
use never::{BoundOutcome, branch_and_bound};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};

/// Which SRDF rows stay exemptions. Unproven rows are not among the choices: they become
/// exemptions only as `allow:` entries of the robot config (`--adopt-srdf`), where review sees them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeepSrdf {
    Proven,
    None,
}

#[derive(Debug, Clone)]
pub struct AcmOptions {
    /// Boxes one pair may use in the branch and bound.
    pub budget: usize,
    pub samples: usize,
    pub seed: u64,
    pub keep_srdf: KeepSrdf,
}

/// What was shown about one link pair.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Adjacent(String),
    Always(String),
    Never(String),
    /// The kernel puts the pair within the margin at `q`; `overlap` is the radius of a
    /// ball certified inside both links, when they overlap.
    Reaches {
        q: Vec<(String, f64)>,
        distance: f64,
        overlap: Option<f64>,
    },
    Unproven {
        boxes: usize,
        closest: f64,
    },
}

impl Verdict {
    pub fn category(&self) -> &'static str {
        match self {
            Verdict::Adjacent(_) => "adjacent",
            Verdict::Always(_) => "always",
            Verdict::Never(_) => "never",
            Verdict::Reaches { .. } => "can collide",
            Verdict::Unproven { .. } => "unproven",
        }
    }
    fn exemption(&self) -> Option<&str> {
        match self {
            Verdict::Adjacent(p) | Verdict::Always(p) | Verdict::Never(p) => Some(p),
            _ => None,
        }
    }
}

#[derive(Debug, Clone)]
pub struct PairResult {
    pub a: String,
    pub b: String,
    pub verdict: Verdict,
    /// Set when the pair is checked although its primitives overlap at every configuration
    /// (their proof), or in every sampled pose: the meshes inside do not, so
    /// the primitives are loose there, or `always` on the meshes is unproven (`truth_search`
    /// says where it stopped). A diagnostic for the report, never an exemption.
    pub primitive_always: Option<String>,
    /// Why `always` failed on the truth, when it was tried: where the search found the
    /// links apart, or the box left open when its budget ran out.
    pub truth_search: Option<String>,
    /// Of `poses` seeded poses, in how many the pair's meshes touch (within the margin):
    /// measured for the pairs with `primitive_always` (the report's evidence).
    pub mesh_contacts: Option<(usize, usize)>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum SrdfStatus {
    Proven(&'static str),
    Refuted {
        q: Vec<(String, f64)>,
        depth: f64,
    },
    /// Within the margin somewhere but no overlap certified, or the budget ran out.
    Unproven(String),
    /// One of the links has no geometry: there is nothing to check.
    NoGeometry,
}

#[derive(Debug, Clone)]
pub struct SrdfRow {
    pub a: String,
    pub b: String,
    pub reason: String,
    pub line: u32,
    pub status: SrdfStatus,
}

pub struct Regenerated {
    pub rows: Vec<AcmEntry>,
    pub pairs: Vec<PairResult>,
    pub srdf: Vec<SrdfRow>,
    pub sampling: sampling::SampleReport,
    /// The links' meshes (with the manifest's margin), when they were given: what `always`
    /// was proven on, kept for measuring contact rates.
    pub truth: Option<MeshTruth>,
    /// The kernel every pair was decided on (every pair checked): its forward kinematics
    /// place the meshes for the contact rates, without loading the kernel again.
    pub kernel: LoadedKernel,
}

/// How a `never` row proven on the real meshes begins its proof (what `collide verify`
/// looks for to load those links' meshes).
pub const MESHES_NEVER: &str = "meshes never within the margin";

/// Seeded poses (and their seed) on which an `always` certificate's pair must touch on the
/// meshes, besides the base configuration, before the row is taken.
const ALWAYS_CHECK_POSES: usize = 32;
const ALWAYS_CHECK_SEED: u64 = 11;

/// Seeded poses on which the meshes of pairs whose primitives alone overlap everywhere are
/// measured (the report's evidence; the sampling report's first poses).
const LOOSE_PAIR_POSES: usize = 1000;

/// 1 -> "1 box", 4812 -> "4,812 boxes".
pub fn count_boxes(n: usize) -> String {
    if n == 1 {
        "1 box".to_string()
    } else {
        format!("{} boxes", crate::text::thousands(n))
    }
}

/// A length that may be far below a millimetre: "2.13 mm", or "4.2 µm" under 0.1 mm, so that
/// a certified positive radius never prints as zero.
pub fn small_length(m: f64) -> String {
    if m.abs() >= 1e-4 {
        format!("{:.2} mm", m * 1e3)
    } else {
        format!("{:.2} µm", m * 1e6)
    }
}

/// Distances refined exactly up to this far apart: the bounds need true distances, not
/// the kernel's early "clear of the margin" answers.
const EXACT_BAND_M: f64 = 100.0;

/// The kernel over the manifest with every pair checked (its own ACM ignored) and every
/// distance refined.
pub fn unexempted_kernel(m: &Manifest) -> Result<LoadedKernel> {
    let mut open = m.clone();
    open.acm.clear();
    let mut k = load_kernel(&open)?;
    k.model = k
        .model
        .with_refine_band(EXACT_BAND_M)
        .map_err(crate::error::Error::check)?;
    Ok(k)
}

/// [`unexempted_kernel`] from a kernel already loaded from the manifest: the same model
/// with every pair checked, without building the kernel a second time.
pub fn unexempted(k: &LoadedKernel) -> Result<LoadedKernel> {
    let n = k.model.n_links();
    let model = k
        .model
        .clone()
        .with_acm(crate::kernel::Acm::new(n))
        .and_then(|m| m.with_refine_band(EXACT_BAND_M))
        .map_err(crate::error::Error::check)?;
    Ok(LoadedKernel {
        model,
        link_names: k.link_names.clone(),
        link_index: k.link_index.clone(),
        dof_names: k.dof_names.clone(),
    })
}

/// The kernel's value at the branch and bound's first box centre above which the two links'
/// primitives are apart there beyond any rounding (the kernel's value is at most the exact
/// distance, and exact to 1e-10 m): no point lies inside both.
const ROOT_APART_M: f64 = 1e-6;

/// Boxes the diagnostic box search on the primitives may use (a report line, not a proof
/// anyone relies on: a quarter of the least exemption budget).
const DIAGNOSTIC_BOXES: usize = 256;

/// Seeded poses searched for a deeper overlap witness, and their seed.
const WITNESS_SAMPLES: u64 = 1000;
const WITNESS_SEED: u64 = 0x5eed;

/// What deciding a pair needs, built once per manifest.
pub struct PairDecider<'k> {
    k: &'k LoadedKernel,
    adjacent: Vec<(usize, usize, Adjacency)>,
    /// Depths in the truth when there is one: what `always` is proven on.
    probe: always::DepthProbe<'k>,
    /// Depths in the primitives alone, for the diagnostic of pairs whose primitives
    /// overlap everywhere while their meshes do not (set only with a truth).
    primitive_probe: Option<always::DepthProbe<'k>>,
    truth: Option<&'k MeshTruth>,
    base: Vec<f64>,
    margin: f64,
    budget: usize,
    /// Checked pair index by (lower, higher) kernel link index.
    pair_of: HashMap<(usize, usize), usize>,
}

impl<'k> PairDecider<'k> {
    /// `truth`: the links' meshes (kernel link order). `always` is then proven on them;
    /// without it, on the primitives (a weaker claim, kept for tests on bare models).
    pub fn new(
        k: &'k LoadedKernel,
        margin: f64,
        budget: usize,
        truth: Option<&'k MeshTruth>,
    ) -> Self {
        let model = &k.model;
        let tree = LinkTree::of_model(model);
        let base = never::mid_range(model);
        // checked_pairs() lists each pair once, lower index first.
        let pair_of = model
            .checked_pairs()
            .iter()
            .enumerate()
            .map(|(i, &pair)| (pair, i))
            .collect();
        PairDecider {
            k,
            adjacent: tree.adjacent_pairs(),
            probe: match truth {
                Some(t) => always::DepthProbe::with_truth(model, t),
                None => always::DepthProbe::new(model),
            },
            primitive_probe: truth.map(|_| always::DepthProbe::new(model)),
            truth,
            base,
            margin,
            budget,
            pair_of,
        }
    }

    /// Checked pair index of links `a`, `b` (by name, either order).
    pub fn pair_index(&self, a: &str, b: &str) -> Option<usize> {
        let (ia, ib) = (*self.k.link_index.get(a)?, *self.k.link_index.get(b)?);
        self.pair_of.get(&(ia.min(ib), ia.max(ib))).copied()
    }

    /// Decides every pair of links with geometry, in the kernel's pair order.
    pub fn decide_all(&self) -> Vec<PairResult> {
        let model = &self.k.model;
        // The pairs with the most joints between their links first: their searches are the
        // long ones, and one started last would leave the other cores idle to its end. The
        // results go back to pair order, so the order of the work changes no output.
        let mut order: Vec<usize> = (0..model.checked_pairs().len()).collect();
        order.sort_by_cached_key(|&pi| {
            let (a, b) = model.checked_pairs()[pi];
            std::cmp::Reverse(chain::PairChain::new(model, a, b).dofs.len())
        });
        let bar = crate::progress::bar(order.len() as u64, "deciding pairs");
        let mut decided: Vec<(usize, PairResult)> = order
            .par_iter()
            .with_max_len(1)
            .map_init(
                || model.workspace(),
                |ws, &pi| {
                    let p = self.decide(ws, pi);
                    bar.inc(1);
                    (pi, p)
                },
            )
            .collect();
        bar.finish_and_clear();
        decided.sort_by_key(|&(pi, _)| pi);
        decided.into_iter().map(|(_, p)| p).collect()
    }

    /// Decides checked pair `pi`.
    pub fn decide(&self, ws: &mut crate::kernel::Workspace, pi: usize) -> PairResult {
        let model = &self.k.model;
        let links = model.links();
        let (a, b) = model.checked_pairs()[pi];
        let LinkPair { a: na, b: nb } = LinkPair::new(&self.k.link_names[a], &self.k.link_names[b]);
        let is_tight = |l: usize| {
            links[l]
                .primitives
                .iter()
                .any(|p| matches!(p, Primitive::Tight(_)))
        };
        let both_tight = is_tight(a) && is_tight(b);
        let mut clock = timing::PairClock::start();
        let (verdict, truth_search, apart_at_root) = self.verdict(ws, pi, a, b, &mut clock);
        let primitive_always = match verdict {
            Verdict::Reaches { .. } | Verdict::Unproven { .. } if !both_tight => {
                self.primitive_always(ws, a, b, &verdict, apart_at_root)
            }
            _ => None,
        };
        clock.step("primitive always");
        clock.report(&na, &nb, verdict.category());
        PairResult {
            a: na,
            b: nb,
            verdict,
            primitive_always,
            truth_search,
            mesh_contacts: None,
        }
    }

    fn verdict(
        &self,
        ws: &mut crate::kernel::Workspace,
        pi: usize,
        a: usize,
        b: usize,
        clock: &mut timing::PairClock,
    ) -> (Verdict, Option<String>, bool) {
        let model = &self.k.model;
        let links = model.links();
        let chain = chain::PairChain::new(model, a, b);
        if let Some((_, _, how)) = self
            .adjacent
            .iter()
            .find(|&&(x, y, _)| (x, y) == (a.min(b), a.max(b)))
        {
            return (
                Verdict::Adjacent(match how {
                    Adjacency::Rigid => "rigidly joined: fixed joints only".to_string(),
                    Adjacency::Joint => {
                        let names: Vec<&str> = chain
                            .path_joints
                            .iter()
                            .map(|&j| links[j].joint.name.as_str())
                            .collect();
                        format!("joined by joint {}", names.join(", "))
                    }
                }),
                None,
                false,
            );
        }
        // Proven on the real meshes, so whatever the primitives: two tight links whose meshes
        // overlap everywhere would trip at every configuration.
        if let Some(proof) = self.fixed_point_always(&self.probe, ws, a, b, &chain)
            && !self.meshes_apart_somewhere(ws, a, b)
        {
            return (Verdict::Always(proof), None, false);
        }
        clock.step("fixed point");
        let outcome = branch_and_bound(model, ws, pi, &chain, &self.base, self.margin, self.budget);
        clock.step("branch and bound");
        if !matches!(outcome, BoundOutcome::Never { .. }) {
            let first = match &outcome {
                BoundOutcome::Reaches { q, .. } => Some(q.as_slice()),
                _ => None,
            };
            let proof = self.mesh_never(ws, a, b, first);
            clock.step("mesh never");
            if let Some(proof) = proof {
                return (Verdict::Never(proof), None, false);
            }
        }
        match outcome {
            BoundOutcome::Never {
                boxes,
                min_lower_bound,
            } => (
                Verdict::Never(format!(
                    "branch and bound, {}, min lower bound {:.2} mm",
                    count_boxes(boxes),
                    min_lower_bound * 1e3
                )),
                None,
                false,
            ),
            BoundOutcome::Reaches {
                mut q,
                mut distance,
                root_distance,
                ..
            } => {
                // The primitives apart where every joint between the links is mid-range (the
                // first box of both searches): no certificate of `always` can start there.
                let apart_at_root = root_distance > ROOT_APART_M;
                model.fk(&q, ws);
                let mut overlap = witness::common_point(&self.probe, ws, a, b).map(|(_, r)| r);
                clock.step("witness");
                // Where first met the primitives may overlap and the meshes not: the deepest
                // of a few seeded poses is a better place to look for a common ball of the
                // meshes (the witness that refutes an SRDF row).
                if overlap.is_none()
                    && self.primitive_probe.is_some()
                    && let Some((q2, d2)) = self.deepest_sampled(ws, pi)
                {
                    model.fk(&q2, ws);
                    if let Some((_, r)) = witness::common_point(&self.probe, ws, a, b) {
                        (q, distance, overlap) = (q2, d2, Some(r));
                    }
                }
                clock.step("deepest sampled");
                // Overlapping where first met: perhaps everywhere, through joints with no common
                // fixed point.
                let truth_search = if overlap.is_none() {
                    Some("no shared point of the parts where the kernel first met them, nor at the deepest seeded pose".to_string())
                } else {
                    match self.moving_always(
                        &self.probe,
                        ws,
                        (a, b),
                        &chain,
                        self.budget,
                        apart_at_root,
                    ) {
                        Ok(_) if self.meshes_apart_somewhere(ws, a, b) => Some(
                            "a certificate was found, but the meshes are apart at a sampled configuration: refused (the mesh oracle has the last word)".to_string(),
                        ),
                        Ok(proof) => return (Verdict::Always(proof), None, false),
                        Err(why) => Some(why),
                    }
                };
                clock.step("always by boxes");
                let named = self.k.dof_names.iter().cloned().zip(q).collect();
                (
                    Verdict::Reaches {
                        q: named,
                        distance,
                        overlap,
                    },
                    truth_search,
                    apart_at_root,
                )
            }
            BoundOutcome::Unproven { boxes, closest, .. } => {
                (Verdict::Unproven { boxes, closest }, None, false)
            }
        }
    }

    /// A `never` proof on the real meshes, for a pair whose primitives meet somewhere
    /// (`first`: where the kernel found them within the margin).
    fn mesh_never(
        &self,
        ws: &mut crate::kernel::Workspace,
        a: usize,
        b: usize,
        first: Option<&[f64]>,
    ) -> Option<String> {
        let truth = self.truth?;
        let boxes =
            mesh_never::meshes_never_meet(&self.k.model, ws, truth, (a, b), &self.base, first)?;
        Some(format!(
            "{MESHES_NEVER}: branch and bound, {}",
            count_boxes(boxes)
        ))
    }

    /// The seeded pose (of [`WITNESS_SAMPLES`]) where the kernel puts checked pair `pi`
    /// deepest, with its value, if it is within the margin there.
    fn deepest_sampled(
        &self,
        ws: &mut crate::kernel::Workspace,
        pi: usize,
    ) -> Option<(Vec<f64>, f64)> {
        let model = &self.k.model;
        let mut q = vec![0.0; model.dof()];
        let mut best: Option<(Vec<f64>, f64)> = None;
        for i in 0..WITNESS_SAMPLES {
            crate::truth::poses::uniform_q(model, WITNESS_SEED, i, &mut q);
            model.fk(&q, ws);
            let d = model.pair_distance(pi, ws);
            if d <= self.margin && best.as_ref().is_none_or(|(_, b)| d < *b) {
                best = Some((q.clone(), d));
            }
        }
        best
    }

    /// Whether the real meshes of `a` and `b` are apart at the base configuration (every
    /// joint mid-range) or at one of [`ALWAYS_CHECK_POSES`] seeded poses: then no `always`
    /// certificate is taken, whatever it claims; the mesh oracle has the last word
    /// (`ws` is reposed).
    fn meshes_apart_somewhere(
        &self,
        ws: &mut crate::kernel::Workspace,
        a: usize,
        b: usize,
    ) -> bool {
        let Some(truth) = self.truth else {
            return false;
        };
        let model = &self.k.model;
        let mut q = self.base.clone();
        for i in 0..=ALWAYS_CHECK_POSES {
            if i > 0 {
                crate::truth::poses::uniform_q(model, ALWAYS_CHECK_SEED, i as u64, &mut q);
            }
            model.fk(&q, ws);
            let place = crate::truth::poses::placements(ws, model.n_links());
            if !truth.touching(a, &place[a], b, &place[b]) {
                return true;
            }
        }
        false
    }

    /// A common ball at a point no joint between `a` and `b` moves (`ws` is reposed).
    fn fixed_point_always(
        &self,
        probe: &always::DepthProbe,
        ws: &mut crate::kernel::Workspace,
        a: usize,
        b: usize,
        chain: &chain::PairChain,
    ) -> Option<String> {
        let model = &self.k.model;
        model.fk(&self.base, ws);
        let c = always::certify(model, probe, ws, a, b, &chain.path_joints)?;
        let place = if c.axes == 1 {
            format!("on joint {} axis", c.joint)
        } else {
            format!("where {} joint axes meet", c.axes)
        };
        Some(format!(
            "fixed point {place}, common ball {:.1} mm",
            c.radius * 1e3
        ))
    }

    /// The box search over the joints between `a` and `b`, from the pose in `ws`.
    fn moving_always(
        &self,
        probe: &always::DepthProbe,
        ws: &mut crate::kernel::Workspace,
        (a, b): (usize, usize),
        chain: &chain::PairChain,
        max_boxes: usize,
        apart_at_root: bool,
    ) -> std::result::Result<String, String> {
        let c = always::certify_by_boxes(
            &self.k.model,
            probe,
            ws,
            (a, b),
            chain,
            &self.base,
            max_boxes.min(always::box_budget(probe, a, b)),
            apart_at_root,
        )
        .map_err(|f| self.describe_failure(ws, (a, b), chain, &f))?;
        Ok(format!(
            "overlap at every configuration: branch and bound, {}, shared point depth >= {}",
            count_boxes(c.boxes),
            small_length(c.min_room)
        ))
    }

    /// A box search's failure in words, joints by name (radians, or metres for a slider).
    /// Where the box found no shared point, the meshes are asked too: apart there, it is a
    /// configuration refuting `always` on them.
    fn describe_failure(
        &self,
        ws: &mut crate::kernel::Workspace,
        (a, b): (usize, usize),
        chain: &chain::PairChain,
        f: &always::BoxFailure,
    ) -> String {
        let name = |i: usize| self.k.dof_names[chain.dofs[i]].as_str();
        match f {
            always::BoxFailure::Apart { boxes, q } => {
                let at: Vec<String> = q
                    .iter()
                    .enumerate()
                    .map(|(i, v)| format!("{}={v:.3}", name(i)))
                    .collect();
                let meshes = self.truth.map_or("", |t| {
                    let mut full = self.base.clone();
                    for (i, v) in q.iter().enumerate() {
                        full[chain.dofs[i]] = *v;
                    }
                    self.k.model.fk(&full, ws);
                    let p = crate::truth::poses::placements(ws, self.k.model.n_links());
                    if t.touching(a, &p[a], b, &p[b]) {
                        " (the meshes touch there)"
                    } else {
                        " (the meshes are apart there)"
                    }
                });
                format!(
                    "no shared point at the centre of box {boxes}{meshes}: {}",
                    at.join(", ")
                )
            }
            always::BoxFailure::Budget {
                boxes,
                lo,
                hi,
                room,
            } => {
                let open: Vec<String> = lo
                    .iter()
                    .zip(hi)
                    .enumerate()
                    .map(|(i, (l, h))| format!("{} [{l:.3}, {h:.3}]", name(i)))
                    .collect();
                format!(
                    "budget of {} spent; box left open: {} (room {})",
                    count_boxes(*boxes),
                    open.join(", "),
                    small_length(*room)
                )
            }
        }
    }

    /// For a pair the truth does not make `always`: whether its primitives alone would be
    /// (a diagnostic of loose geometry, never an exemption). `None` without a truth.
    fn primitive_always(
        &self,
        ws: &mut crate::kernel::Workspace,
        a: usize,
        b: usize,
        verdict: &Verdict,
        apart_at_root: bool,
    ) -> Option<String> {
        let probe = self.primitive_probe.as_ref()?;
        let chain = chain::PairChain::new(&self.k.model, a, b);
        if let Some(proof) = self.fixed_point_always(probe, ws, a, b, &chain) {
            return Some(proof);
        }
        // Apart at the first box, the box search below cannot succeed.
        let Verdict::Reaches { q, .. } = verdict else {
            return None;
        };
        if apart_at_root {
            return None;
        }
        let q: Vec<f64> = q.iter().map(|(_, v)| *v).collect();
        self.k.model.fk(&q, ws);
        witness::common_point(probe, ws, a, b)?;
        self.moving_always(probe, ws, (a, b), &chain, DIAGNOSTIC_BOXES, false)
            .ok()
    }
}

/// The report's evidence on pairs that stay checked although their primitives overlap
/// everywhere (`primitive_always`) or in every sampled pose (marked here, refined links
/// too): how often their meshes touch, on [`LOOSE_PAIR_POSES`] seeded poses of the
/// sampling seed.
fn measure_loose_pairs(
    pairs: &mut [PairResult],
    k: &LoadedKernel,
    truth: &MeshTruth,
    sampling: &sampling::SampleReport,
    options: &AcmOptions,
) {
    let everywhere: Vec<(&str, &str, usize)> = sampling
        .colliding
        .iter()
        .filter(|(_, _, n)| options.samples > 0 && *n == options.samples)
        .map(|(a, b, n)| (a.as_str(), b.as_str(), *n))
        .collect();
    for p in pairs.iter_mut() {
        if p.primitive_always.is_some() || p.verdict.exemption().is_some() {
            continue;
        }
        if let Some((_, _, n)) = everywhere
            .iter()
            .find(|(a, b, _)| (*a, *b) == (p.a.as_str(), p.b.as_str()))
        {
            p.primitive_always = Some(format!(
                "overlap in {} of {} sampled poses",
                crate::text::thousands(*n),
                crate::text::thousands(options.samples)
            ));
        }
    }
    let poses = LOOSE_PAIR_POSES.min(options.samples);
    let loose: Vec<(usize, usize)> = pairs
        .iter()
        .filter(|p| p.primitive_always.is_some())
        .map(|p| (k.link_index[&p.a], k.link_index[&p.b]))
        .collect();
    let contacts =
        crate::truth::contacts::mesh_contacts(&k.model, truth, &loose, poses, options.seed);
    for p in pairs.iter_mut().filter(|p| p.primitive_always.is_some()) {
        let n = contacts.count(k.link_index[&p.a], k.link_index[&p.b]);
        p.mesh_contacts = Some((n, poses));
    }
}

/// Regenerates the ACM of `m` (its primitives, joints and margin), checking `srdf`'s rows.
/// `truths`: the links' truth meshes by name (as `lower` fits them); `always` is proven on
/// them. Without them (bare manifests in tests), on the primitives.
pub fn regenerate(
    m: &Manifest,
    srdf: Option<&Srdf>,
    options: &AcmOptions,
    truths: Option<&BTreeMap<String, TriMesh>>,
) -> Result<Regenerated> {
    let phase = timing::Phase::start("kernel and mesh truth");
    let k = unexempted_kernel(m)?;
    let truth = truths.map(|t| MeshTruth::new(&k.link_names, t).with_margin(m.margin_m));
    drop(phase);
    let phase = timing::Phase::start("deciding pairs");
    let mut pairs = PairDecider::new(&k, m.margin_m, options.budget, truth.as_ref()).decide_all();
    drop(phase);
    let phase = timing::Phase::start("sampling");
    let sampling = sampling::sample(&k, m, options.samples, options.seed);
    drop(phase);
    if let Some(t) = &truth {
        let _phase = timing::Phase::start("loose pairs' mesh contacts");
        measure_loose_pairs(&mut pairs, &k, t, &sampling, options);
    }
    let with_geometry = |name: &str| {
        k.link_index
            .get(name)
            .is_some_and(|&i| !k.model.links()[i].primitives.is_empty())
    };
    let mut srdf_rows = Vec::new();
    for row in srdf.map(|s| s.disabled.as_slice()).unwrap_or(&[]) {
        let LinkPair { a, b } = LinkPair::new(&row.a, &row.b);
        let status = if !with_geometry(&a) || !with_geometry(&b) {
            SrdfStatus::NoGeometry
        } else {
            match pairs
                .iter()
                .find(|p| p.a == a && p.b == b)
                .map(|p| &p.verdict)
            {
                Some(Verdict::Adjacent(_)) => SrdfStatus::Proven("adjacent"),
                Some(Verdict::Always(_)) => SrdfStatus::Proven("always"),
                Some(Verdict::Never(_)) => SrdfStatus::Proven("never"),
                Some(Verdict::Reaches {
                    q,
                    overlap: Some(r),
                    ..
                }) => SrdfStatus::Refuted {
                    q: q.clone(),
                    depth: *r,
                },
                Some(Verdict::Reaches { distance, .. }) => SrdfStatus::Unproven(format!(
                    "within the margin ({:.1} mm) somewhere, but no overlap certified",
                    distance * 1e3
                )),
                Some(Verdict::Unproven { boxes, closest }) => SrdfStatus::Unproven(format!(
                    "budget of {} boxes ran out; closest seen {:.1} mm",
                    crate::text::thousands(*boxes),
                    closest * 1e3
                )),
                None => SrdfStatus::NoGeometry,
            }
        };
        srdf_rows.push(SrdfRow {
            a,
            b,
            reason: row.reason.clone().unwrap_or_default(),
            line: row.location.line,
            status,
        });
    }
    let mut rows: Vec<AcmEntry> = pairs
        .iter()
        .filter_map(|p| {
            p.verdict.exemption().map(|proof| AcmEntry {
                a: p.a.clone(),
                b: p.b.clone(),
                reason: p.verdict.category().to_string(),
                proof: proof.to_string(),
            })
        })
        .collect();
    rows.sort_by(|x, y| (&x.a, &x.b).cmp(&(&y.a, &y.b)));
    rows.dedup_by(|x, y| x.a == y.a && x.b == y.b);
    Ok(Regenerated {
        rows,
        pairs,
        srdf: srdf_rows,
        sampling,
        truth,
        kernel: k,
    })
}

/// A MoveIt-compatible `disable_collisions` list for the rows (see
/// [`crate::io::srdf::srdf_text`]): every row but the user's is proven.
pub fn srdf_text(robot: &str, rows: &[AcmEntry]) -> String {
    let header = format!(
        "Written by {}: every row is proven (see the manifest's acm block), except reason=\"User\" rows, exempted by the robot config's allow: list for the reason above each.",
        crate::manifest::sources::generator()
    );
    let pairs: Vec<WrittenPair> = rows
        .iter()
        .map(|r| {
            let reason = match r.reason.as_str() {
                "adjacent" => "Adjacent",
                "always" => "Always",
                "never" => "Never",
                _ => "User",
            };
            WrittenPair {
                a: &r.a,
                b: &r.b,
                reason,
                comment: (reason == "User").then_some(r.proof.as_str()),
            }
        })
        .collect();
    crate::io::srdf::srdf_text(robot, &header, &pairs)
}
