//! [`WorldState`]: the per-thread state of the world check: the payloads attached to the
//! robot's links (a grasped object), GJK's warm-start witnesses and the last call's counters.

use super::super::gjk::Witness;
use super::super::model::Model;
use super::super::vec3::{Iso, V3, finite, rot_from_rpy};
use super::solid::{Body, Shape};

/// Most payloads one state may hold at once.
pub const MAX_PAYLOADS: usize = 64;

/// A payload on a link: its shape in the link's frame, placed by `pose` (the shape's frame
/// in the link's frame).
#[derive(Clone, Debug)]
pub(crate) struct Payload {
    pub(crate) id: u32,
    pub(crate) link: usize,
    pub(crate) pose: Iso,
    pub(crate) body: Body,
    pub(crate) witness: Witness,
    /// Links besides the holder the payload may touch (an object held between two
    /// fingers): their primitives are not checked against it.
    pub(crate) may_touch: Vec<usize>,
}

impl Payload {
    /// Is link `l` exempt from this payload (its holder, or a link it may touch)?
    #[inline(always)]
    pub(crate) fn exempts(&self, l: usize) -> bool {
        l == self.link || self.may_touch.contains(&l)
    }
}

/// Counters of the last world check (diagnostics; no effect on results).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorldStats {
    /// Occupied cells the windows visited (every cell read from the index).
    pub cells: u32,
    /// Of those, and of the fixtures, those settled by the containing box or the bounding
    /// sphere (farther than the reach).
    pub culled: u32,
    /// Narrow phases run (a cell, a fixture or a robot link against a body).
    pub narrow: u32,
    /// Of those, the ones that reached GJK (a hull or box not settled by stage 1).
    pub gjk: u32,
    /// GJK steps (full scans and proposals) of those.
    pub gjk_steps: u32,
}

/// What a world check needs besides the model, its workspace and the world: attached
/// payloads, warm-start witnesses (one per primitive, for cell after cell), counters.
/// Make one per model and thread ([`WorldState::new`]); attaching allocates, checking
/// does not.
#[derive(Clone, Debug)]
pub struct WorldState {
    pub(crate) n_prims: usize,
    pub(crate) payloads: Vec<Payload>,
    pub(crate) witness: Vec<Witness>,
    /// Keep witnesses from one call to the next (a session); otherwise each call starts
    /// cold (and its result depends on `q` and the world alone).
    pub(crate) warm_across_calls: bool,
    pub(crate) stats: WorldStats,
    next_id: u32,
}

impl WorldState {
    /// A state for `model` with no payload.
    pub fn new(model: &Model) -> WorldState {
        WorldState {
            n_prims: model.prims.len(),
            payloads: Vec::with_capacity(MAX_PAYLOADS),
            witness: vec![Witness::default(); model.prims.len()],
            warm_across_calls: false,
            stats: WorldStats::default(),
            next_id: 0,
        }
    }

    /// Attaches `shape` to link `link` of `model` at `xyz`/`rpy` (the shape's frame in the
    /// link's frame, URDF convention) and returns its id. The payload is checked against the
    /// world and against every link of the robot except `link`. Errors (nothing attached):
    /// an unknown link, a bad shape or pose, [`MAX_PAYLOADS`] already attached.
    pub fn attach(
        &mut self,
        model: &Model,
        link: usize,
        shape: &Shape,
        xyz: V3,
        rpy: V3,
    ) -> Result<u32, String> {
        self.attach_touching(model, link, shape, xyz, rpy, &[])
    }

    /// [`WorldState::attach`], and the payload may touch the links `may_touch` besides its
    /// holder (an object held between two fingers touches both): their primitives are not
    /// checked against it; the world and every other link are. Errors (nothing attached):
    /// those of `attach`, and a link in `may_touch` that is not the model's.
    pub fn attach_touching(
        &mut self,
        model: &Model,
        link: usize,
        shape: &Shape,
        xyz: V3,
        rpy: V3,
        may_touch: &[usize],
    ) -> Result<u32, String> {
        if let Some(&l) = may_touch.iter().find(|&&l| l >= model.n_links()) {
            return Err(format!(
                "link {l} the payload may touch is not a link of the model (it has {})",
                model.n_links()
            ));
        }
        if link >= model.n_links() {
            return Err(format!(
                "link {link} is not a link of the model (it has {})",
                model.n_links()
            ));
        }
        if self.n_prims != model.prims.len() {
            return Err("this world state was made for another model".into());
        }
        if !(finite(xyz) && finite(rpy)) {
            return Err(format!(
                "payload pose xyz {xyz:?} rpy {rpy:?} is not finite"
            ));
        }
        if self.payloads.len() >= MAX_PAYLOADS {
            return Err(format!("{MAX_PAYLOADS} payloads already attached"));
        }
        let body = Body::new(shape, "payload")?;
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1);
        self.payloads.push(Payload {
            id,
            link,
            pose: Iso {
                rot: rot_from_rpy(rpy),
                pos: xyz,
            },
            body,
            witness: Witness::default(),
            may_touch: may_touch.to_vec(),
        });
        Ok(id)
    }

    /// Detaches payload `id`; `false` when no payload has that id.
    pub fn detach(&mut self, id: u32) -> bool {
        match self.payloads.iter().position(|p| p.id == id) {
            Some(i) => {
                self.payloads.remove(i);
                true
            }
            None => false,
        }
    }

    /// Detaches every payload.
    pub fn detach_all(&mut self) {
        self.payloads.clear();
    }

    /// The attached payloads: (id, holding link), in attach order.
    pub fn payloads(&self) -> impl Iterator<Item = (u32, usize)> + '_ {
        self.payloads.iter().map(|p| (p.id, p.link))
    }

    /// Keep GJK's witnesses from one call to the next (a session on a smooth path);
    /// off by default: each call starts from no witness.
    pub fn set_warm_start(&mut self, on: bool) {
        self.warm_across_calls = on;
    }

    /// Forget every stored witness.
    pub fn reset_warm_start(&mut self) {
        self.witness.fill(Witness::default());
        for p in &mut self.payloads {
            p.witness = Witness::default();
        }
    }

    pub fn stats(&self) -> WorldStats {
        self.stats
    }
}
