//! Forward kinematics into the preallocated buffers of a [`Workspace`].
//!
//! For every link in topological order: `world(child) = world(parent) · origin · motion(q)`
//! (roots: `origin · motion(q)`), then every primitive and its bounding-sphere centre is placed
//! in the world frame. Joint values: independent joints read `q`; mimic joints are evaluated
//! after their leaders as `multiplier · q_leader + offset`; fixed joints are 0. `q` is not
//! clamped to the limits. No allocation.

use super::model::{Model, PrimKind, Source};
use super::shapes::{Capsule, Obb};
use super::vec3::{Iso, add, mul_mm, mul_mv, rot_axis_sc, scale, sub};
use super::workspace::{Workspace, WorldPrim};

impl Model {
    /// Forward kinematics for `q` (one value per [`Model::dof_joints`] entry) into `ws`.
    ///
    /// Panics when `q.len() != self.dof()` or when `ws` does not have this model's sizes
    /// (a workspace made for another model).
    pub fn fk(&self, q: &[f64], ws: &mut Workspace) {
        assert_eq!(q.len(), self.dof(), "q has the wrong length");
        ws.assert_fits(self);
        self.joint_values(q, ws);
        for i in 0..self.links().len() {
            self.pose_link(i, ws);
        }
        for k in 0..self.prims.len() {
            self.place_prim(k, ws);
        }
    }

    /// Forward kinematics of only `links` (every ancestor of each included, in ascending
    /// order) and placement of only the primitives in `prims`: what one link pair needs.
    /// Every other pose in `ws` is stale afterwards.
    pub fn fk_partial(&self, q: &[f64], ws: &mut Workspace, links: &[usize], prims: &[usize]) {
        assert_eq!(q.len(), self.dof(), "q has the wrong length");
        ws.assert_fits(self);
        self.joint_values(q, ws);
        for &i in links {
            self.pose_link(i, ws);
        }
        for &k in prims {
            self.place_prim(k, ws);
        }
    }

    /// Indices of link `link`'s primitives, for [`Model::fk_partial`].
    pub fn primitive_indices(&self, link: usize) -> impl Iterator<Item = usize> + '_ {
        self.prims
            .iter()
            .enumerate()
            .filter(move |(_, p)| p.link == link)
            .map(|(k, _)| k)
    }

    /// Independent joints read `q`; mimic joints follow their leaders; fixed joints are 0.
    #[inline(always)]
    fn joint_values(&self, q: &[f64], ws: &mut Workspace) {
        for (i, s) in self.source.iter().enumerate() {
            ws.joint_value[i] = match *s {
                Source::Fixed => 0.0,
                Source::Dof(k) => q[k],
                Source::Mimic { .. } => 0.0,
            };
        }
        for &i in &self.mimic_order {
            if let Source::Mimic { leader, mul, off } = self.source[i] {
                ws.joint_value[i] = mul * ws.joint_value[leader] + off;
            }
        }
    }

    /// Link `i`'s world pose from its parent's (already posed).
    #[inline(always)]
    fn pose_link(&self, i: usize, ws: &mut Workspace) {
        let link = &self.links()[i];
        let origin = &self.origins[i];
        let jv = ws.joint_value[i];
        let j = &link.joint;
        let local = match j.kind {
            super::model::JointKind::Fixed => *origin,
            super::model::JointKind::Revolute | super::model::JointKind::Continuous => {
                let (s, c) = jv.sin_cos();
                let r = rot_axis_sc(self.axes[i], s, c);
                // Translate(p) · Rot · Translate(−p): x ↦ R x + (p − R p).
                let p = j.pivot;
                let t = sub(p, mul_mv(&r, p));
                Iso {
                    rot: mul_mm(&origin.rot, &r),
                    pos: add(origin.pos, mul_mv(&origin.rot, t)),
                }
            }
            super::model::JointKind::Prismatic => Iso {
                rot: origin.rot,
                pos: add(origin.pos, mul_mv(&origin.rot, scale(self.axes[i], jv))),
            },
        };
        ws.link_pose[i] = match link.parent {
            Some(p) => ws.link_pose[p].mul(&local),
            None => local,
        };
        ws.link_sphere_c[i] = ws.link_pose[i].transform_point(self.link_spheres[i].0);
    }

    /// Primitive `k` and its bounding-sphere centre in the world frame.
    #[inline(always)]
    fn place_prim(&self, k: usize, ws: &mut Workspace) {
        let p = &self.prims[k];
        let pose = &ws.link_pose[p.link];
        ws.sphere_c[k] = pose.transform_point(p.sphere_c);
        ws.world[k] = match p.kind {
            PrimKind::Capsule { a, b, r } => WorldPrim::Capsule(Capsule {
                a: pose.transform_point(a),
                b: pose.transform_point(b),
                radius: r,
            }),
            PrimKind::Box(o, _) => WorldPrim::Box(place(pose, &o)),
            PrimKind::Tight { obb, .. } => WorldPrim::Tight(place(pose, &obb)),
        };
    }
}

#[inline(always)]
fn place(pose: &Iso, o: &Obb) -> Obb {
    Obb {
        center: pose.transform_point(o.center),
        rot: mul_mm(&pose.rot, &o.rot),
        half: o.half,
    }
}

#[cfg(test)]
mod tests {
    use super::super::model::{Acm, Joint, JointKind, Link, Primitive};
    use super::*;
    use std::f64::consts::FRAC_PI_2;

    fn close(a: [f64; 3], b: [f64; 3]) -> bool {
        (0..3).all(|i| (a[i] - b[i]).abs() < 1e-12)
    }

    #[test]
    fn hand_derived_chain_with_revolute_prismatic_pivot_and_mimic() {
        let cap = |l: f64| {
            vec![Primitive::Capsule {
                a: [0.0; 3],
                b: [l, 0.0, 0.0],
                radius: 0.01,
            }]
        };
        // base: fixed at (0,0,1).
        // l1: revolute about z at the base origin, with origin (1,0,0).
        // l2: prismatic along l1's x, origin (0,0,0.5) rpy (0,0,π/2).
        // l3: revolute about z pivoting at (0.2,0,0) in its own frame, origin (0,0,0), mimic
        //     of l1 with multiplier −2, offset 0.1.
        let links = vec![
            Link {
                name: "base".into(),
                parent: None,
                joint: Joint::fixed("j0", [0.0, 0.0, 1.0], [0.0; 3]),
                primitives: cap(0.1),
            },
            Link {
                name: "l1".into(),
                parent: Some(0),
                joint: Joint::new(
                    "j1",
                    JointKind::Revolute,
                    [1.0, 0.0, 0.0],
                    [0.0; 3],
                    [0.0, 0.0, 1.0],
                    -3.0,
                    3.0,
                ),
                primitives: cap(0.1),
            },
            Link {
                name: "l2".into(),
                parent: Some(1),
                joint: Joint::new(
                    "j2",
                    JointKind::Prismatic,
                    [0.0, 0.0, 0.5],
                    [0.0, 0.0, FRAC_PI_2],
                    [1.0, 0.0, 0.0],
                    0.0,
                    1.0,
                ),
                primitives: cap(0.1),
            },
            Link {
                name: "l3".into(),
                parent: Some(2),
                joint: Joint::new(
                    "j3",
                    JointKind::Revolute,
                    [0.0; 3],
                    [0.0; 3],
                    [0.0, 0.0, 1.0],
                    -3.0,
                    3.0,
                )
                .with_pivot([0.2, 0.0, 0.0])
                .with_mimic(1, -2.0, 0.1),
                primitives: cap(0.1),
            },
        ];
        let m = Model::new(links, vec![], Acm::new(4), 0.0).unwrap();
        assert_eq!(m.dof_joints(), &[1, 2]);
        let mut ws = m.workspace();
        let q1 = 0.3;
        let q2 = 0.25;
        m.fk(&[q1, q2], &mut ws);
        // l1: at (1,0,1), rotated by q1 about z.
        let (r1, p1) = ws.link_pose(1);
        assert!(close(p1, [1.0, 0.0, 1.0]));
        assert!(close(
            [r1[0][0], r1[1][0], r1[2][0]],
            [q1.cos(), q1.sin(), 0.0]
        ));
        // l2: origin (0,0,0.5) in l1, rotated +90° about z, then moves q2 along its own x,
        // which in l1 is +y: position l1 + R1 (0, q2, 0.5).
        let (r2, p2) = ws.link_pose(2);
        let want_p2 = [1.0 - q2 * q1.sin(), q2 * q1.cos(), 1.5];
        assert!(close(p2, want_p2), "{p2:?} {want_p2:?}");
        let yaw2 = q1 + FRAC_PI_2;
        assert!(close(
            [r2[0][0], r2[1][0], r2[2][0]],
            [yaw2.cos(), yaw2.sin(), 0.0]
        ));
        // l3: angle a3 = −2 q1 + 0.1 about z through the pivot (0.2,0,0) of l3's frame (which
        // coincides with l2's): origin moves to pivot − R(a3)·pivot in l2's frame.
        let a3 = -2.0 * q1 + 0.1;
        let (r3, p3) = ws.link_pose(3);
        let local = [0.2 - 0.2 * a3.cos(), -0.2 * a3.sin(), 0.0];
        let want_p3 = [
            p2[0] + yaw2.cos() * local[0] - yaw2.sin() * local[1],
            p2[1] + yaw2.sin() * local[0] + yaw2.cos() * local[1],
            p2[2],
        ];
        assert!(close(p3, want_p3), "{p3:?} {want_p3:?}");
        let yaw3 = yaw2 + a3;
        assert!(close(
            [r3[0][0], r3[1][0], r3[2][0]],
            [yaw3.cos(), yaw3.sin(), 0.0]
        ));
        // The pivot point itself is fixed under l3's motion: it is at l2 · (0.2,0,0).
        let piv_world = [
            p3[0] + r3[0][0] * 0.2,
            p3[1] + r3[1][0] * 0.2,
            p3[2] + r3[2][0] * 0.2,
        ];
        let piv_l2 = [
            p2[0] + r2[0][0] * 0.2,
            p2[1] + r2[1][0] * 0.2,
            p2[2] + r2[2][0] * 0.2,
        ];
        assert!(close(piv_world, piv_l2));
    }
}
