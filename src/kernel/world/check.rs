//! The world check: every link primitive and every attached payload against the occupied
//! cells and the fixtures within the margin, and every payload against the robot's links
//! except its holder and those it may touch.
//!
//! # Stages, per body (a link primitive or a payload)
//!
//! 1. **Window** (broad phase): the cells whose boxes may come within the reach
//!    (`margin + refine_band`) of the body's **containing box** ([`Solid::aabb`]: a
//!    capsule's segment box grown by the radius, a box's extents, a hull's *containing
//!    box's* extents, never the hull's own), widened by one cell per side against rounding
//!    ([`OccupancyGrid::window`]). Only occupied cells of the window are read (the sparse
//!    index).
//! 2. Per cell, the **containing box's gap** to the cell along the three axes and the
//!    **bounding spheres'** gap: both are lower bounds on the distance (the solid lies
//!    inside its box and its sphere), so either above the reach settles the cell, and
//!    either at or above the least value found so far skips it (it cannot lower the
//!    least, nor trip while that least has not).
//! 3. The **narrow phase**: a capsule's exact closed form against the cell's box; a box's
//!    cube SAT, then GJK; a hull's box SAT and 26-DOP SAT (stage 1, lower bounds because
//!    the hull lies inside both), then GJK on the hull (warm-started from the previous
//!    cell, whose corner ids are the same). Fixtures take stages 2 (sphere) and 3.
//!
//! # Guarantee
//!
//! Every value is at most the exact signed distance between the body as written and the
//! cell's box (or the fixture, or the link primitive), and exact (within GJK's tolerance)
//! when it is at most the reach. A cell outside the window is farther than the reach
//! along one axis alone, so farther than the reach. Hence `tripped` is false only when
//! every body is more than `margin` from every occupied cell, fixture and (for payloads)
//! link that neither holds it nor is listed as one it may touch; `min_distance` is the
//! least value found, capped at the reach (a lower bound on the least distance, exact when
//! below the cap). NaN anywhere trips.

use super::super::gjk::Witness;
use super::super::model::{Model, PrimKind};
use super::super::vec3::{V3, norm2, sub};
use super::super::workspace::{Workspace, WorldPrim};
use super::payload::WorldState;
use super::scene::World;
use super::solid::{Solid, cell_distance, solid_distance};

/// Who came near: a link's own primitive, or a payload (by id) held by `link`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorldBody {
    Link(usize),
    Payload { id: u32, link: usize },
}

/// What it came near.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Obstacle {
    /// An occupied cell, by index.
    Cell([i32; 3]),
    /// A fixture, by index in the world.
    Fixture(usize),
    /// A link of the robot (a payload against a link that does not hold it).
    Link(usize),
    /// Another payload, by id (held by another link).
    Payload(u32),
}

/// One body against one obstacle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorldHit {
    pub body: WorldBody,
    pub obstacle: Obstacle,
}

/// Result of [`Model::check_world`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldResult {
    /// Some value is `<= margin` (or NaN).
    pub tripped: bool,
    /// The first hit at or below the margin, in visiting order (primitives in model order,
    /// then payloads; per body the fixtures, then the cells in index order, then links).
    pub first_tripping: Option<WorldHit>,
    /// The least value, capped at `margin + refine_band` (module docs).
    pub min_distance: f64,
    /// The hit attaining `min_distance`; `None` when nothing came within the cap.
    pub nearest: Option<WorldHit>,
}

/// For a caller that caches per link (the coherent mode): which links' primitives to
/// visit, how far their windows reach, and where to write each visited link's least value.
pub struct LinkSelection<'a> {
    /// Per link: visit its primitives. Payloads are always visited.
    pub visit: &'a [bool],
    /// The window's reach, at least `margin + refine_band` (farther gives larger least
    /// values to cache, at the cost of more cells).
    pub reach: f64,
    /// Per visited link, written: a lower bound on the signed distance from its primitives
    /// to every occupied cell and fixture, capped at `reach`. Others are left alone.
    pub least: &'a mut [f64],
}

/// Running fold of the values.
struct Fold {
    margin: f64,
    verdict_only: bool,
    res: WorldResult,
}

impl Fold {
    /// Takes one value; `true` when the check may stop (verdict only, tripped).
    #[inline(always)]
    fn take(&mut self, v: f64, hit: WorldHit) -> bool {
        let r = &mut self.res;
        if (v.is_nan() || v <= self.margin) && !r.tripped {
            r.tripped = true;
            r.first_tripping = Some(hit);
        }
        if (v.is_nan() && !r.min_distance.is_nan()) || v < r.min_distance {
            r.min_distance = v;
            r.nearest = Some(hit);
        }
        self.verdict_only && r.tripped
    }

    /// The ceiling an overlap's depth bound may stop at.
    #[inline(always)]
    fn ceiling(&self) -> f64 {
        if !self.verdict_only {
            self.res.min_distance
        } else if self.margin >= 0.0 {
            f64::NEG_INFINITY
        } else {
            self.margin.next_up()
        }
    }
}

/// One placed body with its bounding sphere and its name in results.
struct Placed<'a> {
    solid: Solid<'a>,
    sphere_c: V3,
    sphere_r: f64,
    who: WorldBody,
}

impl Model {
    /// Forward kinematics, then the world check at `margin` (module docs). No allocation.
    ///
    /// Panics when `q.len() != self.dof()`, or `ws` or `st` belong to another model.
    pub fn check_world(
        &self,
        q: &[f64],
        ws: &mut Workspace,
        world: &World,
        st: &mut WorldState,
        margin: f64,
    ) -> WorldResult {
        self.fk(q, ws);
        self.check_placed_world(ws, world, st, margin, false)
    }

    /// The verdict-only world check: [`Model::check_world`]'s `tripped` and
    /// `first_tripping`, stopping at the first value at or below `margin` (refining only
    /// what decides it); `min_distance` and `nearest` are those of the values computed
    /// until then. No allocation.
    pub fn check_world_verdict(
        &self,
        q: &[f64],
        ws: &mut Workspace,
        world: &World,
        st: &mut WorldState,
        margin: f64,
    ) -> WorldResult {
        self.fk(q, ws);
        self.check_placed_world(ws, world, st, margin, true)
    }

    /// The world check on the poses already in `ws` (after [`Model::fk`]).
    pub fn check_placed_world(
        &self,
        ws: &Workspace,
        world: &World,
        st: &mut WorldState,
        margin: f64,
        verdict_only: bool,
    ) -> WorldResult {
        self.world_pass(ws, world, st, margin, verdict_only, None)
    }

    /// [`Model::check_placed_world`] (full, not verdict-only) on the links `sel` selects,
    /// writing their least values (the coherent mode's anchors). Every value is the same
    /// kind of lower bound; a link's least is its own minimum (its cells are skipped only
    /// at or above it, never at another link's).
    pub fn check_placed_world_links(
        &self,
        ws: &Workspace,
        world: &World,
        st: &mut WorldState,
        margin: f64,
        sel: LinkSelection<'_>,
    ) -> WorldResult {
        self.world_pass(ws, world, st, margin, false, Some(sel))
    }

    fn world_pass(
        &self,
        ws: &Workspace,
        world: &World,
        st: &mut WorldState,
        margin: f64,
        verdict_only: bool,
        mut sel: Option<LinkSelection<'_>>,
    ) -> WorldResult {
        ws.assert_fits(self);
        assert_eq!(
            st.n_prims,
            self.prims.len(),
            "world state was made for another model"
        );
        if !st.warm_across_calls {
            st.reset_warm_start();
        }
        st.stats = Default::default();
        let band = margin + self.refine_band();
        let reach = sel.as_ref().map_or(band, |s| s.reach.max(band));
        if let Some(s) = sel.as_mut() {
            for (l, least) in s.least.iter_mut().enumerate() {
                if s.visit[l] {
                    *least = reach;
                }
            }
        }
        // The verdict needs values exact only up to the margin.
        let threshold = if verdict_only { margin } else { band };
        let mut fold = Fold {
            margin,
            verdict_only,
            res: WorldResult {
                tripped: false,
                first_tripping: None,
                min_distance: reach,
                nearest: None,
            },
        };
        let WorldState {
            payloads,
            witness,
            stats,
            ..
        } = st;
        let (visit, least) = match sel {
            Some(s) => (Some(s.visit), Some(s.least)),
            None => (None, None),
        };
        let mut ctx = Ctx {
            world,
            reach,
            threshold,
            fold: &mut fold,
            stats,
            least,
        };
        for (k, w) in witness.iter_mut().enumerate() {
            if visit.is_some_and(|v| !v[self.prims[k].link]) {
                continue;
            }
            let body = Placed {
                solid: self.prim_solid(k, ws),
                sphere_c: ws.sphere_c[k],
                sphere_r: self.prims[k].sphere_r,
                who: WorldBody::Link(self.prims[k].link),
            };
            if ctx.against_world(&body, w) {
                return fold.res;
            }
        }
        for i in 0..payloads.len() {
            let (done, rest) = payloads.split_at_mut(i);
            let (p, later) = rest.split_first_mut().expect("payload i exists");
            let pose = ws.link_pose[p.link].mul(&p.pose);
            let body = Placed {
                solid: p.body.placed(&pose),
                sphere_c: p.body.sphere_center(&pose),
                sphere_r: p.body.sphere_r,
                who: WorldBody::Payload {
                    id: p.id,
                    link: p.link,
                },
            };
            if ctx.against_world(&body, &mut p.witness) {
                return fold.res;
            }
            // Against the robot's links except the holder and those it may touch.
            for k in 0..self.prims.len() {
                let link = self.prims[k].link;
                if p.exempts(link) {
                    continue;
                }
                let other = Placed {
                    solid: self.prim_solid(k, ws),
                    sphere_c: ws.sphere_c[k],
                    sphere_r: self.prims[k].sphere_r,
                    who: WorldBody::Link(link),
                };
                if ctx.pair(&body, &other, Obstacle::Link(link)) {
                    return fold.res;
                }
            }
            // Against the payloads of other links (each pair once: the earlier ones).
            for q in done.iter().chain(later.iter()).filter(|q| q.id < p.id) {
                if q.link == p.link {
                    continue;
                }
                let qpose = ws.link_pose[q.link].mul(&q.pose);
                let other = Placed {
                    solid: q.body.placed(&qpose),
                    sphere_c: q.body.sphere_center(&qpose),
                    sphere_r: q.body.sphere_r,
                    who: WorldBody::Link(q.link),
                };
                if ctx.pair(&body, &other, Obstacle::Payload(q.id)) {
                    return fold.res;
                }
            }
        }
        fold.res
    }

    /// Primitive `k` as placed by the last FK.
    #[inline(always)]
    pub(crate) fn prim_solid<'a>(&'a self, k: usize, ws: &Workspace) -> Solid<'a> {
        match ws.world[k] {
            WorldPrim::Capsule(c) => Solid::Capsule(c),
            WorldPrim::Box(o) => match &self.prims[k].kind {
                PrimKind::Box(_, d) => Solid::Box(o, &self.dops[*d as usize]),
                _ => unreachable!("a placed box is a box primitive"),
            },
            WorldPrim::Tight(o) => Solid::Hull(self.tight_posed(&o, k, &ws.link_pose)),
        }
    }
}

/// What every body's visit shares.
struct Ctx<'w, 'f> {
    world: &'w World,
    reach: f64,
    threshold: f64,
    fold: &'f mut Fold,
    stats: &'f mut super::payload::WorldStats,
    /// Per link, the least value so far (the coherent mode), else `None`.
    least: Option<&'f mut [f64]>,
}

impl Ctx<'_, '_> {
    /// The value a cell or solid's lower bound must reach to be skipped: the body's link's
    /// least value when per-link values are kept (so each stays its own minimum), else the
    /// least value overall. Either is at least the overall least, so the skip changes
    /// neither the verdict nor the overall least.
    #[inline(always)]
    fn skip_at(&self, who: WorldBody) -> f64 {
        match (&self.least, who) {
            (Some(least), WorldBody::Link(l)) => least[l],
            _ => self.fold.res.min_distance,
        }
    }

    /// Takes a value for `hit`, recording the body's link least; `true` to stop.
    #[inline(always)]
    fn take(&mut self, v: f64, hit: WorldHit) -> bool {
        if let (Some(least), WorldBody::Link(l)) = (self.least.as_deref_mut(), hit.body)
            && (v.is_nan() || v < least[l])
        {
            least[l] = v;
        }
        self.fold.take(v, hit)
    }

    /// `body` against the fixtures and the cells of its window; `true` to stop.
    #[inline]
    fn against_world(&mut self, body: &Placed<'_>, warm: &mut Witness) -> bool {
        for (fi, f) in self.world.fixtures.iter().enumerate() {
            let pose = super::super::vec3::Iso::IDENTITY;
            let other = Placed {
                solid: f.placed(&pose),
                sphere_c: f.sphere_c,
                sphere_r: f.sphere_r,
                who: body.who,
            };
            if self.pair(body, &other, Obstacle::Fixture(fi)) {
                return true;
            }
        }
        let grid = &self.world.grid;
        if grid.is_empty() {
            return false;
        }
        let (lo, hi) = body.solid.aabb();
        let Some((wlo, whi)) = grid.window(lo, hi, self.reach) else {
            // A non-finite placement (NaN in q): never free.
            return self.take(
                f64::NAN,
                WorldHit {
                    body: body.who,
                    obstacle: Obstacle::Cell([0; 3]),
                },
            );
        };
        let h = 0.5 * grid.pitch();
        // The cell's sphere: its centre, radius its half diagonal.
        let rs = body.sphere_r + h * 3f64.sqrt();
        let (reach, threshold) = (self.reach, self.threshold);
        grid.for_each_in(wlo, whi, |cell| {
            self.stats.cells += 1;
            let c = grid.cell_center(cell);
            // The containing box's gap along each axis.
            let mut gap = f64::NEG_INFINITY;
            for a in 0..3 {
                gap = gap.max((lo[a] - (c[a] + h)).max((c[a] - h) - hi[a]));
            }
            // Either gap bounds the cell's distance from below: past the reach the cell
            // is clear, and at or above the least value so far it cannot lower it (nor
            // trip when that value has not: it is then above the margin).
            let bound = gap.max(norm2(sub(c, body.sphere_c)).sqrt() - rs);
            if bound > reach || bound >= self.skip_at(body.who) {
                self.stats.culled += 1;
                return false;
            }
            self.stats.narrow += 1;
            let v = cell_distance(
                &body.solid,
                c,
                h,
                &self.world.cell_dop,
                threshold,
                Some(&mut *warm),
                self.fold.ceiling(),
            );
            if v.steps > 0 {
                self.stats.gjk += 1;
                self.stats.gjk_steps += v.steps;
            }
            self.take(
                v.value,
                WorldHit {
                    body: body.who,
                    obstacle: Obstacle::Cell(cell),
                },
            )
        })
    }

    /// `body` against one other placed solid: sphere test, then the narrow phase.
    #[inline]
    fn pair(&mut self, body: &Placed<'_>, other: &Placed<'_>, obstacle: Obstacle) -> bool {
        let gap = norm2(sub(body.sphere_c, other.sphere_c)).sqrt() - body.sphere_r - other.sphere_r;
        if gap > self.reach || gap >= self.skip_at(body.who) {
            self.stats.culled += 1;
            return false;
        }
        self.stats.narrow += 1;
        let v = solid_distance(
            &body.solid,
            &other.solid,
            self.threshold,
            None,
            self.fold.ceiling(),
        );
        if v.steps > 0 {
            self.stats.gjk += 1;
            self.stats.gjk_steps += v.steps;
        }
        self.take(
            v.value,
            WorldHit {
                body: body.who,
                obstacle,
            },
        )
    }
}
