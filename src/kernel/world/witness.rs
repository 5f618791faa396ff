//! Witness points of a world check's hit: where the signed distance between the body (a
//! link's primitives or a payload) and what it came near (a cell, a fixture, a link or a
//! payload) is attained.
//!
//! [`Model::world_witness`] runs after a world check, on the hit it reports (its `nearest`,
//! typically), never on the checking path. As [`Model::pair_witness`] for the self check
//! (`src/kernel/witness.rs`, whose point routines it uses): `distance` is the exact signed
//! distance of the two as the world check defines it (the least over the body's and the
//! obstacle's solids, each pair by the kernel's narrow phase refined without threshold),
//! equal to the check's `min_distance` whenever that is below the check's reach; `point_a`
//! lies on the body and `point_b` on the obstacle; apart they are closest points, in
//! overlap each solid's point deepest in the other, and `point_a − point_b` is always the
//! shortest translation of the obstacle that brings the two to touching, of length
//! `|distance|`. No allocation.

use super::super::model::Model;
use super::super::shapes::Obb;
use super::super::vec3::{IDENTITY, Iso};
use super::super::witness::{
    PairWitness, box_capsule_witness, capsule_capsule_witness, core, support_witness,
};
use super::super::workspace::Workspace;
use super::check::{Obstacle, WorldBody, WorldHit};
use super::payload::WorldState;
use super::scene::World;
use super::solid::{Solid, solid_distance};

/// The points of two placed solids at their signed distance (module docs).
fn solid_witness(a: &Solid<'_>, b: &Solid<'_>) -> ([f64; 3], [f64; 3]) {
    let swap = |(p, q): ([f64; 3], [f64; 3])| (q, p);
    match (a, b) {
        (Solid::Capsule(p), Solid::Capsule(q)) => capsule_capsule_witness(p, q),
        (Solid::Box(o, _), Solid::Capsule(c)) => box_capsule_witness(o, c),
        (Solid::Capsule(c), Solid::Box(o, _)) => swap(box_capsule_witness(o, c)),
        (Solid::Box(p, _), Solid::Box(q, _)) => support_witness(p, q, 0.0, 0.0),
        (Solid::Hull(t), Solid::Capsule(c)) => support_witness(&t.hull, &core(c), 0.0, c.radius),
        (Solid::Capsule(c), Solid::Hull(t)) => support_witness(&core(c), &t.hull, c.radius, 0.0),
        (Solid::Hull(t), Solid::Box(o, _)) => support_witness(&t.hull, o, 0.0, 0.0),
        (Solid::Box(o, _), Solid::Hull(t)) => support_witness(o, &t.hull, 0.0, 0.0),
        (Solid::Hull(p), Solid::Hull(q)) => support_witness(&p.hull, &q.hull, 0.0, 0.0),
    }
}

impl Model {
    /// The solids of `who` (a link's primitives, or a payload of `st`), each passed to `f`.
    fn for_each_solid(
        &self,
        ws: &Workspace,
        st: &WorldState,
        who: Either,
        f: &mut dyn FnMut(Solid<'_>),
    ) {
        match who {
            Either::Link(l) => {
                for k in 0..self.prims.len() {
                    if self.prims[k].link == l {
                        f(self.prim_solid(k, ws));
                    }
                }
            }
            Either::Payload(id) => {
                if let Some(p) = st.payloads.iter().find(|p| p.id == id) {
                    f(p.body.placed(&ws.link_pose[p.link].mul(&p.pose)));
                }
            }
        }
    }

    /// The witness of `hit` (from a world check of `world` with `st` on the poses in `ws`,
    /// after that check's forward kinematics); see the module docs. `None` when the hit
    /// names nothing that is there (a payload detached since, a fixture or cell index
    /// out of range for `world`). With a non-finite pose the distance and points are NaN.
    /// No allocation. Panics when `ws` or `st` belong to another model.
    pub fn world_witness(
        &self,
        ws: &Workspace,
        world: &World,
        st: &WorldState,
        hit: WorldHit,
    ) -> Option<PairWitness> {
        ws.assert_fits(self);
        assert_eq!(
            st.n_prims,
            self.prims.len(),
            "world state was made for another model"
        );
        let body = match hit.body {
            WorldBody::Link(l) => Either::Link(l),
            WorldBody::Payload { id, .. } => Either::Payload(id),
        };
        let h = 0.5 * world.grid.pitch();
        let fixture_pose = Iso::IDENTITY;
        let mut best: Option<(f64, [f64; 3], [f64; 3])> = None;
        let mut take = |a: &Solid<'_>, b: &Solid<'_>| {
            let v = solid_distance(a, b, f64::INFINITY, None, f64::INFINITY).value;
            if v.is_nan() {
                best = Some((f64::NAN, [f64::NAN; 3], [f64::NAN; 3]));
            } else if best.is_none_or(|(d, ..)| v < d) {
                let (pa, pb) = solid_witness(a, b);
                best = Some((v, pa, pb));
            }
        };
        let mut against = |b: &Solid<'_>| {
            self.for_each_solid(ws, st, body, &mut |a| take(&a, b));
        };
        match hit.obstacle {
            Obstacle::Cell(c) => {
                if !world.grid.contains(c) {
                    return None;
                }
                let cell = Obb {
                    center: world.grid.cell_center(c),
                    rot: IDENTITY,
                    half: [h; 3],
                };
                against(&Solid::Box(cell, &world.cell_dop));
            }
            Obstacle::Fixture(i) => against(&world.fixtures.get(i)?.placed(&fixture_pose)),
            Obstacle::Link(l) => {
                self.for_each_solid(ws, st, Either::Link(l), &mut |b| against(&b));
            }
            Obstacle::Payload(id) => {
                self.for_each_solid(ws, st, Either::Payload(id), &mut |b| against(&b));
            }
        }
        best.map(|(distance, point_a, point_b)| PairWitness {
            distance,
            point_a,
            point_b,
        })
    }
}

/// A body or obstacle made of solids: a link's primitives or a payload.
#[derive(Clone, Copy)]
enum Either {
    Link(usize),
    Payload(u32),
}
