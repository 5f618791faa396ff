//! Automatic refinement: the stage between fitting and writing that chooses each
//! link's geometry by measurement, on free space.
//!
//! The kernel is judged on the refinement's seeded poses and rays from the rest pose
//! against the mesh truth (`truth::contacts`, `truth::judge`, `truth::reach`: the sweep's
//! own code), under the ACM the refinement can rely on before `acm regenerate` runs:
//! adjacent pairs and the user's exemptions. A link climbs a ladder: the fit rule's
//! capsule, chain or box -> box + 26-DOP + exact hull -> 2, 4, 8 pieces (the convex
//! decomposition, `fit::decompose`, whose cuts are greedy, so fewer pieces are a prefix).
//! Links that mirror each other climb together.
//!
//! 1. **Start** from the best of the candidates the budget affords: the given plans (the
//!    fit rule, or the committed manifest's levels on re-lowering), all-tight (box + hull
//!    on every link) and the fit rule.
//! 2. **Rest first**: every pair that trips at the rest pose while its meshes are apart
//!    (it refuses every free pose), deepest first, gets the cheapest change that clears
//!    it: a hull on one link, the other or both, then 2, 4 and 8 pieces.
//! 3. **Then the free poses**: among the pairs that trip on free poses, the change (one
//!    link or both one rung up) that removes the most refused free poses per µs it costs.
//!
//! The budget is checked on a deterministic cost model (per configuration:
//! link transforms, primitive-pair sphere tests and narrow phases, each at its
//! measured price on this machine; see [`CostModel`]) over the **free poses** (the steps
//! of the rays before their first mesh contact and the uniform poses where no checked
//! pair's meshes touch: where a controller calls the check), never on a timer, so the
//! same inputs give the same manifest bytes on any machine and thread count.
//! When the budget stops it, every pair still tripping is named with the cheapest change
//! that would clear it and its cost, for the user to decide (`--budget-us`).

use crate::error::Result;
use crate::fit::{self, FitOptions, LinkFit, decompose::PIECE_BUDGET};
use crate::geom::mesh::TriMesh;
use crate::geom::v3::V3;
use crate::manifest::kernel::{LoadedKernel, load_kernel};
use crate::manifest::{self, Manifest};
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

pub mod cost;
mod measure;
pub mod mirror;
mod neighbours;

pub use cost::{Cost, CostModel};
pub use measure::{Measured, RestTrip, Shown};
pub use mirror::mirror_pairs;
pub use neighbours::neighbours_to_clear;

use measure::Judge;

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
/// A pair whose kernel value stays above this on every refinement pose is
/// left out of the cost estimate (see `Judge::far`).
const FAR_M: f64 = 0.05;
/// Free-pose steps at most (each refits the links it refines).
const MAX_STEPS: usize = 24;
/// The pairs that trip on most free poses whose changes a free-pose step weighs.
const OFFENDERS_PER_STEP: usize = 6;
/// Pairs still tripping that the summary prices a change for.
const UNSETTLED_PRICED: usize = 6;
/// A change's cost counts as at least this (µs) when refused free poses are weighed
/// against it: a change that costs nothing is not infinitely good.
const MIN_COST_STEP_US: f64 = 0.05;

/// Default budget (median µs per `check_self_collision` on the free poses, estimated;
/// see [`CostModel`]) for an arm, a robot with at most [`ARM_LINKS`] links with
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
    /// The next rung: the fit rule -> one hull -> 2, 4, 8 pieces (a committed count in
    /// between doubles, up to the piece budget).
    pub fn next(self) -> Option<Level> {
        match self {
            Level::Rule => Some(Level::Pieces(1)),
            Level::Pieces(n) if n < PIECE_BUDGET => Some(Level::Pieces((2 * n).min(PIECE_BUDGET))),
            Level::Pieces(_) => None,
        }
    }

    /// The rungs a change to clear a rest trip tries, cheapest first.
    fn ladder() -> impl Iterator<Item = Level> {
        std::iter::successors(Level::Rule.next(), |l| l.next())
    }

    /// How it reads in a table: `fit rule`, `hull`, `<= N pieces`.
    pub fn describe(self) -> String {
        match self {
            Level::Rule => "fit rule".into(),
            Level::Pieces(1) => "hull".into(),
            Level::Pieces(n) => format!("<= {n} pieces"),
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

#[derive(Debug, Clone)]
pub struct RefineOptions {
    pub poses: usize,
    pub seed: u64,
    /// `None`: by the robot's size ([`ARM_BUDGET_US`], [`ROBOT_BUDGET_US`]).
    pub budget_us: Option<f64>,
    /// Leave out the pairs proven never to meet on the real meshes (`acm regenerate`
    /// exempts them); without it, they are cleared by geometry like any other.
    pub mesh_proofs: bool,
}

impl Default for RefineOptions {
    fn default() -> Self {
        RefineOptions {
            poses: REFINE_POSES,
            seed: REFINE_SEED,
            budget_us: None,
            mesh_proofs: true,
        }
    }
}

/// Links and the levels they go to, each with why.
pub type Change = Vec<(String, Level, String)>;

/// One refinement step: which links went to which level, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub links: Change,
    pub after: Measured,
}

/// A pair still tripping when the refinement stopped, and what would clear it.
#[derive(Debug, Clone, PartialEq)]
pub struct Unsettled {
    pub pair: (String, String),
    /// The kernel's value at rest when it trips there (the meshes apart).
    pub at_rest: Option<f64>,
    /// Free poses it trips on.
    pub free_trips: usize,
    /// The cheapest change found that clears it, and the estimated median µs on the free
    /// poses with it; `None` when even the finest geometry of both links does not.
    pub clearing: Option<(Vec<(String, Level)>, f64)>,
}

/// What the refinement did.
#[derive(Debug, Clone, PartialEq)]
pub struct Refinement {
    pub poses: usize,
    pub seed: u64,
    pub budget_us: f64,
    /// Measured on the plans it was given.
    pub before: Measured,
    /// The start chosen when it is not the plans given (which, and why).
    pub start: Option<String>,
    pub steps: Vec<Step>,
    pub after: Measured,
    /// Why it stopped.
    pub stopped: String,
    /// Pairs still tripping at rest or on free poses, most offending first.
    pub unsettled: Vec<Unsettled>,
    /// Timed figures beside the estimate.
    pub shown: Shown,
}

/// Why the refinement turned a change down.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Rejected {
    /// The estimated median µs with it.
    OverBudget(f64),
    NoGain,
}

/// A change's links and levels, without the reasons: what the budget judged.
fn change_key(change: &[(String, Level, String)]) -> Vec<(String, Level)> {
    let mut key: Vec<(String, Level)> = change.iter().map(|(n, l, _)| (n.clone(), *l)).collect();
    key.sort();
    key
}

fn percent(count: usize, of: usize) -> String {
    let p = 100.0 * count as f64 / of.max(1) as f64;
    if p >= 10.0 {
        format!("{p:.0} %")
    } else {
        format!("{p:.1} %")
    }
}

/// What the refinement refits links from.
#[derive(Clone, Copy)]
pub struct Inputs<'a> {
    /// Every link's truth mesh.
    pub truths: &'a BTreeMap<String, TriMesh>,
    pub fit: &'a FitOptions,
    /// The user's exemptions (the config's `allow:`), whose pairs need no refining.
    pub user: &'a [(String, String)],
    /// Per link, the points its decomposition keeps out ([`neighbours_to_clear`]).
    pub avoid: &'a BTreeMap<String, Vec<V3>>,
}

/// A change built: the refitted links (those whose primitives changed), the manifest
/// and its kernel.
struct Trial {
    change: Change,
    refits: Vec<(usize, LinkFit)>,
    manifest: Manifest,
    kernel: LoadedKernel,
}

/// The refinement's state: the current geometry and what it measured.
struct Refiner<'r> {
    judge: Judge<'r>,
    inputs: Inputs<'r>,
    fits: &'r mut [(String, LinkFit)],
    plans: &'r mut BTreeMap<String, LinkPlan>,
    index: BTreeMap<String, usize>,
    mirrors: BTreeMap<String, String>,
    /// A link's fit at a level is the same in every trial: fitted once.
    fitted: BTreeMap<(String, Level), LinkFit>,
    draft: Manifest,
    k: LoadedKernel,
    current: Measured,
    budget_us: f64,
    steps: Vec<Step>,
    /// Changes turned down: one over the budget stays over (changes only add cost) until
    /// links are relaxed; one that did not lower the objective is not weighed again.
    rejected: BTreeMap<Vec<(String, Level)>, Rejected>,
}

impl Refiner<'_> {
    /// `name` raised to `level`, when it may climb there.
    fn raise(&self, name: &str, level: Level, why: &str) -> Option<(String, Level, String)> {
        let plan = self.plans.get(name)?;
        (!plan.locked && plan.level < level).then(|| (name.to_string(), level, why.to_string()))
    }

    /// `change` with each link's mirror image at the same level.
    fn with_mirrors(&self, change: Change) -> Change {
        let mut out = change.clone();
        for (name, level, why) in &change {
            let Some(m) = self.mirrors.get(name) else {
                continue;
            };
            let free = self
                .plans
                .get(m)
                .is_some_and(|p| !p.locked && p.level != *level);
            if free && !out.iter().any(|c| &c.0 == m) {
                out.push((m.clone(), *level, format!("mirror of {name}; {why}")));
            }
        }
        out
    }

    fn build(&mut self, change: &Change) -> Result<Trial> {
        let missing: Vec<(String, Level)> = change
            .iter()
            .filter(|(name, level, _)| !self.fitted.contains_key(&(name.clone(), *level)))
            .map(|(name, level, _)| (name.clone(), *level))
            .collect();
        let Inputs {
            truths, fit, avoid, ..
        } = self.inputs;
        let new: Vec<((String, Level), LinkFit)> = missing
            .into_par_iter()
            .map(|(name, level)| {
                let points = avoid.get(&name).map_or(&[][..], Vec::as_slice);
                fit_at(&truths[&name], level, fit, points).map(|f| ((name, level), f))
            })
            .collect::<Result<_>>()?;
        self.fitted.extend(new);
        // A refit that changes nothing (a decomposition that finds no further cut) only
        // raises the level: the link keeps its reason.
        let refits: Vec<(usize, LinkFit)> = change
            .iter()
            .map(|(name, level, _)| {
                (
                    self.index[name],
                    self.fitted[&(name.clone(), *level)].clone(),
                )
            })
            .filter(|(i, f)| f.primitives != self.fits[*i].1.primitives)
            .collect();
        let mut manifest = self.draft.clone();
        for (i, f) in &refits {
            let name = &self.fits[*i].0;
            let pos = manifest
                .links
                .iter()
                .position(|l| &l.name == name)
                .expect("every fitted link is in the draft");
            manifest.links[pos] = crate::manifest::fit::manifest_link(name, f);
        }
        let kernel = load_kernel(&manifest)?;
        Ok(Trial {
            change: change.clone(),
            refits,
            manifest,
            kernel,
        })
    }

    fn accept(&mut self, trial: Trial, after: Measured) {
        let changed: BTreeSet<String> = trial
            .refits
            .iter()
            .map(|(i, _)| self.fits[*i].0.clone())
            .collect();
        for (name, level, why) in &trial.change {
            let plan = self.plans.get_mut(name).expect("planned link");
            plan.level = *level;
            if changed.contains(name) {
                plan.reason = why.clone();
            }
        }
        for (i, f) in trial.refits {
            self.fits[i].1 = f;
        }
        let links: Change = trial
            .change
            .into_iter()
            .filter(|c| changed.contains(&c.0))
            .collect();
        self.draft = trial.manifest;
        self.k = trial.kernel;
        self.current = after.clone();
        if !links.is_empty() {
            self.steps.push(Step { links, after });
        }
    }

    /// Keeps the best start the budget affords: the plans given, all-tight, the fit rule.
    fn choose_start(&mut self) -> Result<Option<String>> {
        let unlocked: Vec<(String, Level)> = self
            .plans
            .iter()
            .filter(|(_, p)| !p.locked)
            .map(|(n, p)| (n.clone(), p.level))
            .collect();
        let all_tight: Change = unlocked
            .iter()
            .filter(|(_, l)| *l < Level::Pieces(1))
            .map(|(n, _)| (n.clone(), Level::Pieces(1), "all-tight start".into()))
            .collect();
        let rule: Change = unlocked
            .iter()
            .filter(|(_, l)| *l != Level::Rule)
            .map(|(n, _)| (n.clone(), Level::Rule, "fit rule".into()))
            .collect();
        // Within the budget beats over it; then the objective, then the cost. Over the
        // budget, the cheapest.
        let budget = self.budget_us;
        let better = |m: &Measured, bar: &Measured| {
            let (over, bar_over) = (m.cost.median_us > budget, bar.cost.median_us > budget);
            if over != bar_over {
                return !over;
            }
            let cheaper = m.cost.median_us < bar.cost.median_us;
            if over {
                return cheaper;
            }
            m.objective() < bar.objective() || (m.objective() == bar.objective() && cheaper)
        };
        let mut best: Option<(Trial, Measured, &str)> = None;
        for (change, name) in [(all_tight, "all-tight"), (rule, "the fit rule")] {
            if change.is_empty() {
                continue;
            }
            let trial = self.build(&change)?;
            let (m, ..) = self.judge.measure(&trial.kernel)?;
            if better(&m, best.as_ref().map_or(&self.current, |b| &b.1)) {
                best = Some((trial, m, name));
            }
        }
        let Some((mut trial, m, name)) = best else {
            return Ok(None);
        };
        let why = format!(
            "start: {name} (refused free {}, {} rest trip(s), {:.1} µs) over the given plans ({}, {}, {:.1} µs)",
            percent(m.refused_free, m.free_poses),
            m.rest_slop.len(),
            m.cost.median_us,
            percent(self.current.refused_free, self.current.free_poses),
            self.current.rest_slop.len(),
            self.current.cost.median_us
        );
        for c in trial.change.iter_mut() {
            c.2 = if c.1 == Level::Rule {
                "fit rule".into()
            } else {
                why.clone()
            };
        }
        self.accept(trial, m);
        // The start is reported on its own, not as a step.
        self.steps.pop();
        Ok(Some(why))
    }

    /// Settles the pairs that trip at rest while their meshes are apart, deepest first,
    /// each with the cheapest change that clears it; returns those it could not settle.
    fn settle_rest(&mut self) -> Result<Vec<Unsettled>> {
        let mut unsettled: Vec<Unsettled> = Vec::new();
        loop {
            let Some(trip) = self
                .current
                .rest_slop
                .iter()
                .filter(|t| !unsettled.iter().any(|u| u.pair == t.pair))
                .min_by(|x, y| x.value.total_cmp(&y.value).then(x.pair.cmp(&y.pair)))
                .cloned()
            else {
                return Ok(unsettled);
            };
            let (a, b) = &trip.pair;
            let (ia, ib) = (self.k.link_index[a], self.k.link_index[b]);
            let why = format!(
                "pair {a}/{b}: trips at rest ({:.1} mm), meshes apart",
                trip.value * 1e3
            );
            let margin = self.k.model.margin();
            let mut cheapest_over: Option<(Vec<(String, Level)>, f64)> = None;
            let mut settled = false;
            for level in Level::ladder() {
                let mut variants: Vec<Change> = Vec::new();
                for names in [vec![a], vec![b], vec![a, b]] {
                    let change: Change = names
                        .iter()
                        .filter_map(|n| self.raise(n, level, &why))
                        .collect();
                    let change = self.with_mirrors(change);
                    if !change.is_empty()
                        && !variants
                            .iter()
                            .any(|v| change_key(v) == change_key(&change))
                    {
                        variants.push(change);
                    }
                }
                let mut best: Option<(Trial, f64)> = None;
                for change in variants {
                    let key = change_key(&change);
                    if let Some(&Rejected::OverBudget(cost)) = self.rejected.get(&key) {
                        // Over the budget when last priced, on the same geometry elsewhere.
                        if cheapest_over.as_ref().is_none_or(|c| cost < c.1) {
                            cheapest_over = Some((key, cost));
                        }
                        continue;
                    }
                    let trial = self.build(&change)?;
                    let clears = self
                        .judge
                        .rest_value(&trial.kernel, ia, ib)
                        .is_some_and(|v| v > margin);
                    if !clears {
                        continue;
                    }
                    let cost = self.judge.cost(&trial.kernel)?.median_us;
                    if cost > self.budget_us {
                        self.rejected
                            .insert(key.clone(), Rejected::OverBudget(cost));
                        if cheapest_over.as_ref().is_none_or(|c| cost < c.1) {
                            cheapest_over = Some((key, cost));
                        }
                    } else if best.as_ref().is_none_or(|b| cost < b.1) {
                        best = Some((trial, cost));
                    }
                }
                if let Some((trial, _)) = best {
                    let (m, ..) = self.judge.measure(&trial.kernel)?;
                    self.accept(trial, m);
                    settled = true;
                    break;
                }
            }
            if !settled {
                unsettled.push(Unsettled {
                    pair: trip.pair.clone(),
                    at_rest: Some(trip.value),
                    free_trips: self
                        .current
                        .free_trips
                        .get(&trip.pair)
                        .copied()
                        .unwrap_or(0),
                    clearing: cheapest_over,
                });
            }
        }
    }

    /// Gives back what refined links cost where nothing needs them: each link above the fit
    /// rule (with its mirror) that is in no pair still tripping goes back to the fit rule
    /// when the objective stays as good and the cost falls. An all-tight start puts a hull
    /// on links that never come near anything; the budget they hold can settle a rest trip.
    /// Returns whether any link went back.
    fn relax(&mut self) -> Result<bool> {
        let tripping: BTreeSet<String> = self
            .current
            .rest_slop
            .iter()
            .map(|t| &t.pair)
            .chain(self.current.free_trips.keys())
            .flat_map(|(a, b)| [a.clone(), b.clone()])
            .collect();
        let candidates: Vec<String> = self
            .plans
            .iter()
            .filter(|(n, p)| !p.locked && p.level > Level::Rule && !tripping.contains(*n))
            .map(|(n, _)| n.clone())
            .collect();
        let mut any = false;
        for name in candidates {
            if self.plans[&name].level == Level::Rule {
                continue;
            }
            let change = self.with_mirrors(vec![(name.clone(), Level::Rule, "fit rule".into())]);
            if change
                .iter()
                .any(|(n, ..)| n != &name && tripping.contains(n))
            {
                continue;
            }
            let key = change_key(&change);
            if self.rejected.contains_key(&key) {
                continue;
            }
            let trial = self.build(&change)?;
            let (m, ..) = self.judge.measure(&trial.kernel)?;
            // While a rest trip refuses every free pose the refused count cannot tell: the
            // pairs' own free trips must not grow.
            let trips = |m: &Measured| m.free_trips.values().sum::<usize>();
            if m.rest_slop.len() <= self.current.rest_slop.len()
                && trips(&m) <= trips(&self.current)
                && m.refused_free <= self.current.refused_free
                && m.cost.median_us < self.current.cost.median_us
            {
                self.accept(trial, m);
                any = true;
                // The cost fell: what was over the budget may fit now.
                self.rejected
                    .retain(|_, r| !matches!(r, Rejected::OverBudget(_)));
            } else {
                self.rejected.insert(key, Rejected::NoGain);
            }
        }
        Ok(any)
    }

    /// Free-pose steps: each takes the change that removes the most refused free poses
    /// per µs it adds. Returns why it stopped.
    fn free_steps(&mut self) -> Result<String> {
        for _ in 0..MAX_STEPS {
            if self.current.free_poses == 0 {
                return Ok(self.judge.no_free_poses(&self.k));
            }
            if self.current.refused_free == 0 {
                return Ok("no free pose refused".into());
            }
            let mut offenders: Vec<(&(String, String), &usize)> =
                self.current.free_trips.iter().collect();
            offenders.sort_by(|x, y| y.1.cmp(x.1).then(x.0.cmp(y.0)));
            let mut variants: Vec<Change> = Vec::new();
            let mut weighed = 0;
            for ((a, b), &trips) in offenders {
                if weighed == OFFENDERS_PER_STEP {
                    break;
                }
                let why = format!(
                    "pair {a}/{b}: trips on {} of the free poses",
                    percent(trips, self.current.free_poses)
                );
                // The next rung, past the rungs that gained nothing alone (a hull that
                // still holds the neighbour in its concavity: the pieces may not).
                let up = |n: &String| {
                    let mut level = self.plans.get(n)?.level.next()?;
                    loop {
                        let alone = self.with_mirrors(vec![self.raise(n, level, &why)?]);
                        if self.rejected.get(&change_key(&alone)) != Some(&Rejected::NoGain) {
                            return self.raise(n, level, &why);
                        }
                        level = level.next()?;
                    }
                };
                let mut any = false;
                for change in [
                    up(a).into_iter().collect::<Change>(),
                    up(b).into_iter().collect(),
                    up(a).into_iter().chain(up(b)).collect(),
                ] {
                    let change = self.with_mirrors(change);
                    let key = change_key(&change);
                    if change.is_empty()
                        || self.rejected.contains_key(&key)
                        || variants.iter().any(|v| change_key(v) == key)
                    {
                        continue;
                    }
                    any = true;
                    variants.push(change);
                }
                weighed += usize::from(any);
            }
            if variants.is_empty() {
                return Ok(
                    if self
                        .rejected
                        .values()
                        .any(|r| matches!(r, Rejected::OverBudget(_)))
                    {
                        format!(
                            "every refinement left would pass the budget of {} µs",
                            self.budget_us
                        )
                    } else if self.rejected.is_empty() {
                        "every link of a pair that trips on free poses is at its finest geometry"
                            .into()
                    } else {
                        "no refinement left lowers the refused free poses".into()
                    },
                );
            }
            let mut best: Option<(f64, Trial, Measured)> = None;
            for change in variants {
                let key = change_key(&change);
                let trial = self.build(&change)?;
                let (m, ..) = self.judge.measure(&trial.kernel)?;
                if m.cost.median_us > self.budget_us {
                    self.rejected
                        .insert(key, Rejected::OverBudget(m.cost.median_us));
                    continue;
                }
                if m.objective() >= self.current.objective() {
                    self.rejected.insert(key, Rejected::NoGain);
                    continue;
                }
                let gain = self.current.refused_free.saturating_sub(m.refused_free) as f64
                    + 1e-3 * (self.current.slop_only.saturating_sub(m.slop_only)) as f64;
                let added = (m.cost.median_us - self.current.cost.median_us).max(MIN_COST_STEP_US);
                let score = gain / added;
                if best.as_ref().is_none_or(|b| score > b.0) {
                    best = Some((score, trial, m));
                }
            }
            if let Some((_, trial, m)) = best {
                self.accept(trial, m);
            }
        }
        Ok(format!("after {MAX_STEPS} free-pose steps"))
    }

    /// Prices what would clear each pair still tripping on free poses (the finest
    /// geometry of both links), for the summary.
    fn price_unsettled(&mut self, mut unsettled: Vec<Unsettled>) -> Result<Vec<Unsettled>> {
        let mut free: Vec<(&(String, String), &usize)> = self
            .current
            .free_trips
            .iter()
            .filter(|(p, _)| !unsettled.iter().any(|u| &&u.pair == p))
            .collect();
        free.sort_by(|x, y| y.1.cmp(x.1).then(x.0.cmp(y.0)));
        let free: Vec<((String, String), usize)> =
            free.into_iter().map(|(p, n)| (p.clone(), *n)).collect();
        let finest = Level::Pieces(PIECE_BUDGET);
        for (i, (pair, trips)) in free.into_iter().enumerate() {
            let mut u = Unsettled {
                pair: pair.clone(),
                at_rest: None,
                free_trips: trips,
                clearing: None,
            };
            if i < UNSETTLED_PRICED {
                let change: Change = [&pair.0, &pair.1]
                    .into_iter()
                    .filter_map(|n| self.raise(n, finest, "priced"))
                    .collect();
                let change = self.with_mirrors(change);
                if !change.is_empty() {
                    let trial = self.build(&change)?;
                    let (m, ..) = self.judge.measure(&trial.kernel)?;
                    if !m.free_trips.contains_key(&pair) {
                        u.clearing = Some((change_key(&change), m.cost.median_us));
                    }
                }
            }
            unsettled.push(u);
        }
        Ok(unsettled)
    }
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
    let (judge, draft, k) = Judge::new(manifest, inputs.user, inputs.truths, options)?;
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
    let (before, ..) = judge.measure(&k)?;
    let index = fits
        .iter()
        .enumerate()
        .map(|(i, (n, _))| (n.clone(), i))
        .collect();
    let names: Vec<String> = fits.iter().map(|(n, _)| n.clone()).collect();
    let mirrors = mirror_pairs(&names, inputs.truths);
    let fitted = fits
        .iter()
        .map(|(n, f)| ((n.clone(), plans[n].level), f.clone()))
        .collect();
    let mut r = Refiner {
        judge,
        inputs: *inputs,
        fits,
        plans,
        index,
        mirrors,
        fitted,
        draft,
        k,
        current: before.clone(),
        budget_us,
        steps: Vec::new(),
        rejected: BTreeMap::new(),
    };
    let (start, stopped, unsettled) = if before.free_poses == 0 {
        (None, r.judge.no_free_poses(&r.k), Vec::new())
    } else {
        let start = r.choose_start()?;
        let mut unsettled = r.settle_rest()?;
        // What the budget could not buy may fit once the links nothing needs give theirs back.
        if !unsettled.is_empty() && r.relax()? {
            unsettled = r.settle_rest()?;
        }
        let mut stopped = r.free_steps()?;
        // The free-pose steps still ran, but while the rest pose trips every ray from it is
        // refused: what stopped the refinement, for the user, is the rest trip.
        if let Some(trip) = unsettled.first() {
            stopped = format!(
                "{stopped}; the rest pose still trips on {}/{} ({} pair(s) in all), which no change within the budget of {budget_us} µs clears, so every pose reached from rest is refused until it is settled (see below)",
                trip.pair.0,
                trip.pair.1,
                unsettled.len()
            );
        }
        (start, stopped, r.price_unsettled(unsettled)?)
    };
    let shown = r.judge.shown(&r.k)?;
    Ok(Refinement {
        poses: options.poses,
        seed: options.seed,
        budget_us,
        before,
        start,
        steps: r.steps,
        after: r.current,
        stopped,
        unsettled,
        shown,
    })
}

/// `manifest::Link` for a planned fit, reason included.
pub fn planned_link(name: &str, fit: &LinkFit, plan: &LinkPlan) -> manifest::Link {
    let mut link = crate::manifest::fit::manifest_link(name, fit);
    link.fit.reason = plan.reason.clone();
    link
}
