//! Kernel test and bench models: a Panda-like arm with the real Franka kinematics (joint
//! origins and limits from the public Franka URDF), a synthetic 29-DoF humanoid-like tree,
//! and a mixed arm whose links carry capsules, boxes and tight hulls.
//!
//! Shared by tests (`mod common;`) and benches (`#[path]`); not every item is used by every
//! includer.
#![allow(dead_code)]

use collide::kernel::dop26::dop_of_points;
use collide::kernel::vec3::{Mat3, V3, mul_mtv, mul_mv, rot_from_rpy, sub};
use collide::kernel::{Acm, BoxShape, Joint, JointKind, Link, Model, Primitive, TightGeometry};
use std::f64::consts::{FRAC_PI_2, FRAC_PI_4};

/// Small deterministic generator (xorshift64*), so tests and benches need no RNG crate.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in `[0, 1)`.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.uniform()
    }
}

/// A uniformly random configuration within the limits (continuous joints in [−π, π]).
pub fn random_q(m: &Model, rng: &mut Rng) -> Vec<f64> {
    m.dof_joints()
        .iter()
        .map(|&j| {
            let jt = &m.links()[j].joint;
            match jt.kind {
                JointKind::Continuous => rng.range(-std::f64::consts::PI, std::f64::consts::PI),
                _ => rng.range(jt.lower, jt.upper),
            }
        })
        .collect()
}

fn cap(a: V3, b: V3, radius: f64) -> Vec<Primitive> {
    vec![Primitive::Capsule { a, b, radius }]
}

fn bx(center: V3, rpy: V3, half: V3) -> Vec<Primitive> {
    vec![Primitive::Box(BoxShape::from_rpy(center, rpy, half))]
}

fn link(name: &str, parent: Option<usize>, joint: Joint, primitives: Vec<Primitive>) -> Link {
    Link {
        name: name.into(),
        parent,
        joint,
        primitives,
    }
}

fn rev(name: &str, xyz: V3, rpy: V3, axis: V3, lo: f64, hi: f64) -> Joint {
    Joint::new(name, JointKind::Revolute, xyz, rpy, axis, lo, hi)
}

/// Exempt every pair at tree distance 1 or 2 (parent–child and siblings/grandparent).
pub fn acm_near_tree(links: &[Link]) -> Acm {
    let n = links.len();
    let mut acm = Acm::new(n);
    for i in 0..n {
        if let Some(p) = links[i].parent {
            acm.allow(i, p);
            if let Some(g) = links[p].parent {
                acm.allow(i, g);
            }
            for (j, lj) in links.iter().enumerate() {
                if j != i && lj.parent == Some(p) {
                    acm.allow(i, j);
                }
            }
        }
    }
    acm
}

/// The Franka Panda kinematics (franka_description URDF: joint origins, axes, limits), one
/// capsule or box per link sized roughly like the real links, hand and mimic fingers.
pub fn panda_links() -> Vec<Link> {
    let z = [0.0, 0.0, 1.0];
    vec![
        link(
            "panda_link0",
            None,
            Joint::fixed("base", [0.0; 3], [0.0; 3]),
            cap([-0.04, 0.0, 0.05], [0.0, 0.0, 0.1], 0.09),
        ),
        link(
            "panda_link1",
            Some(0),
            rev(
                "panda_joint1",
                [0.0, 0.0, 0.333],
                [0.0; 3],
                z,
                -2.8973,
                2.8973,
            ),
            cap([0.0, 0.0, -0.19], [0.0, 0.0, 0.0], 0.08),
        ),
        link(
            "panda_link2",
            Some(1),
            rev(
                "panda_joint2",
                [0.0; 3],
                [-FRAC_PI_2, 0.0, 0.0],
                z,
                -1.7628,
                1.7628,
            ),
            cap([0.0, 0.0, 0.0], [0.0, -0.2, 0.0], 0.075),
        ),
        link(
            "panda_link3",
            Some(2),
            rev(
                "panda_joint3",
                [0.0, -0.316, 0.0],
                [FRAC_PI_2, 0.0, 0.0],
                z,
                -2.8973,
                2.8973,
            ),
            cap([0.0, 0.0, -0.12], [0.08, 0.0, 0.0], 0.065),
        ),
        link(
            "panda_link4",
            Some(3),
            rev(
                "panda_joint4",
                [0.0825, 0.0, 0.0],
                [FRAC_PI_2, 0.0, 0.0],
                z,
                -3.0718,
                -0.0698,
            ),
            cap([0.0, 0.0, 0.0], [-0.08, 0.1, 0.0], 0.065),
        ),
        link(
            "panda_link5",
            Some(4),
            rev(
                "panda_joint5",
                [-0.0825, 0.384, 0.0],
                [-FRAC_PI_2, 0.0, 0.0],
                z,
                -2.8973,
                2.8973,
            ),
            bx([0.0, 0.04, -0.13], [0.0; 3], [0.05, 0.08, 0.13]),
        ),
        link(
            "panda_link6",
            Some(5),
            rev(
                "panda_joint6",
                [0.0; 3],
                [FRAC_PI_2, 0.0, 0.0],
                z,
                -0.0175,
                3.7525,
            ),
            cap([0.0, 0.0, -0.03], [0.088, 0.0, 0.0], 0.06),
        ),
        link(
            "panda_link7",
            Some(6),
            rev(
                "panda_joint7",
                [0.088, 0.0, 0.0],
                [FRAC_PI_2, 0.0, 0.0],
                z,
                -2.8973,
                2.8973,
            ),
            bx([0.0, 0.0, 0.06], [0.0, 0.0, FRAC_PI_4], [0.05, 0.05, 0.04]),
        ),
        link(
            "panda_link8",
            Some(7),
            Joint::fixed("panda_joint8", [0.0, 0.0, 0.107], [0.0; 3]),
            vec![],
        ),
        link(
            "panda_hand",
            Some(8),
            Joint::fixed("panda_hand_joint", [0.0; 3], [0.0, 0.0, -FRAC_PI_4]),
            bx([0.0, 0.0, 0.04], [0.0; 3], [0.03, 0.1, 0.035]),
        ),
        link(
            "panda_leftfinger",
            Some(9),
            Joint::new(
                "panda_finger_joint1",
                JointKind::Prismatic,
                [0.0, 0.0, 0.0584],
                [0.0; 3],
                [0.0, 1.0, 0.0],
                0.0,
                0.04,
            ),
            bx([0.0, 0.01, 0.025], [0.0; 3], [0.01, 0.01, 0.025]),
        ),
        link(
            "panda_rightfinger",
            Some(9),
            Joint::new(
                "panda_finger_joint2",
                JointKind::Prismatic,
                [0.0, 0.0, 0.0584],
                [0.0; 3],
                [0.0, -1.0, 0.0],
                0.0,
                0.04,
            )
            .with_mimic(10, 1.0, 0.0),
            bx([0.0, -0.01, 0.025], [0.0; 3], [0.01, 0.01, 0.025]),
        ),
    ]
}

/// Panda with the usual exemptions: tree distance <= 2, and the wrist/hand group.
pub fn panda() -> Model {
    let links = panda_links();
    let mut acm = acm_near_tree(&links);
    for i in 7..12 {
        for j in 7..12 {
            if i != j {
                acm.allow(i, j);
            }
        }
    }
    Model::new(links, vec![], acm, 0.0).unwrap()
}

/// Points of an ellipsoid (every point extreme), Fibonacci spiral.
pub fn ellipsoid_points(n: usize, c: V3, r: V3, rot: &Mat3) -> Vec<V3> {
    (0..n)
        .map(|i| {
            let u = (i as f64 + 0.5) / n as f64;
            let zz = 1.0 - 2.0 * u;
            let rr = (1.0 - zz * zz).max(0.0).sqrt();
            let phi = i as f64 * 2.399_963_229_728_653;
            let p = [r[0] * rr * phi.cos(), r[1] * rr * phi.sin(), r[2] * zz];
            let q = mul_mv(rot, p);
            [q[0] + c[0], q[1] + c[1], q[2] + c[2]]
        })
        .collect()
}

/// The box around `points` in frame `box_rot`: its centre in that frame, the points
/// relative to it (in that frame) and its half extents.
pub fn box_in_frame(points: &[V3], box_rot: &Mat3) -> (V3, Vec<V3>, V3) {
    let inbox: Vec<V3> = points.iter().map(|p| mul_mtv(box_rot, *p)).collect();
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for p in &inbox {
        for i in 0..3 {
            lo[i] = lo[i].min(p[i]);
            hi[i] = hi[i].max(p[i]);
        }
    }
    let mid = [
        0.5 * (lo[0] + hi[0]),
        0.5 * (lo[1] + hi[1]),
        0.5 * (lo[2] + hi[2]),
    ];
    let rel: Vec<V3> = inbox.iter().map(|p| sub(*p, mid)).collect();
    let mut half = [0.0f64; 3];
    for p in &rel {
        for i in 0..3 {
            half[i] = half[i].max(p[i].abs());
        }
    }
    (mid, rel, half)
}

/// A tight primitive for `points` (link frame) with a box in frame `box_rot`, appending the
/// vertices to the flat store.
pub fn tight_from_points(points: &[V3], box_rot: Mat3, store: &mut Vec<V3>) -> Primitive {
    let (mid, rel, half) = box_in_frame(points, &box_rot);
    let offset = store.len();
    store.extend_from_slice(points);
    Primitive::Tight(TightGeometry {
        bx: BoxShape {
            center: mul_mv(&box_rot, mid),
            rotation: box_rot,
            half_extents: half,
        },
        dop26: dop_of_points(&rel),
        hull_offset: offset,
        hull_len: points.len(),
    })
}

/// Panda kinematics with a tight hull (`n_vertices` ellipsoid points inside the link's
/// primitive extent) on every link that has a primitive.
pub fn panda_tight(n_vertices: usize) -> Model {
    let mut links = panda_links();
    let mut store = Vec::new();
    for l in links.iter_mut() {
        let Some(p) = l.primitives.first().copied() else {
            continue;
        };
        let (c, r, rot) = match p {
            Primitive::Capsule { a, b, radius } => {
                let c = [
                    0.5 * (a[0] + b[0]),
                    0.5 * (a[1] + b[1]),
                    0.5 * (a[2] + b[2]),
                ];
                let d = sub(b, a);
                let len = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
                // Ellipsoid along the dominant axis of the segment.
                let k = (0..3)
                    .max_by(|&i, &j| d[i].abs().total_cmp(&d[j].abs()))
                    .unwrap();
                let mut r = [radius; 3];
                r[k] = 0.5 * len + radius;
                (c, r, collide::kernel::vec3::IDENTITY)
            }
            Primitive::Box(b) => (b.center, b.half_extents, b.rotation),
            Primitive::Tight(_) => unreachable!(),
        };
        let pts = ellipsoid_points(n_vertices, c, r, &rot);
        l.primitives = vec![tight_from_points(&pts, rot, &mut store)];
    }
    let mut acm = acm_near_tree(&links);
    for i in 7..12 {
        for j in 7..12 {
            if i != j {
                acm.allow(i, j);
            }
        }
    }
    Model::new(links, store, acm, 0.0).unwrap()
}

/// Name, origin xyz, axis, lower, upper, primitives of one joint/link of a limb.
type Spec = (&'static str, V3, V3, f64, f64, Vec<Primitive>);

/// Appends one limb's links (`{side}_{name}_link` on `{side}_{name}_joint`), the k-th
/// hanging from `parent_of(k)`; on the right side (`sy < 0`) the limits of joints not
/// about y are mirrored.
fn push_limb<const N: usize>(
    links: &mut Vec<Link>,
    side: &str,
    sy: f64,
    specs: [Spec; N],
    parent_of: impl Fn(usize) -> usize,
) {
    let y = [0.0, 1.0, 0.0];
    for (k, (name, xyz, axis, lo, hi, prim)) in specs.into_iter().enumerate() {
        let (lo, hi) = if sy < 0.0 && axis != y {
            (-hi, -lo)
        } else {
            (lo, hi)
        };
        let joint = rev(&format!("{side}_{name}_joint"), xyz, [0.0; 3], axis, lo, hi);
        links.push(link(
            &format!("{side}_{name}_link"),
            Some(parent_of(k)),
            joint,
            prim,
        ));
    }
}

/// A synthetic 29-DoF humanoid-like tree (30 links: pelvis, 2×6 leg, 3 waist, 2×7 arm),
/// one capsule or box per link, tree-distance-2 exemptions.
pub fn humanoid29() -> Model {
    let x = [1.0, 0.0, 0.0];
    let y = [0.0, 1.0, 0.0];
    let z = [0.0, 0.0, 1.0];
    let mut links = vec![link(
        "pelvis",
        None,
        Joint::fixed("root", [0.0, 0.0, 0.8], [0.0; 3]),
        bx([0.0, 0.0, 0.0], [0.0; 3], [0.08, 0.12, 0.07]),
    )];
    for (side, sy) in [("left", 1.0), ("right", -1.0)] {
        let base = links.len();
        let parent_of = |k: usize| if k == 0 { 0 } else { base + k - 1 };
        let specs: [Spec; 6] = [
            (
                "hip_pitch",
                [0.0, sy * 0.065, -0.1],
                y,
                -2.5,
                2.8,
                cap([0.0, 0.0, 0.0], [0.0, sy * 0.04, -0.03], 0.05),
            ),
            (
                "hip_roll",
                [0.0, sy * 0.05, -0.03],
                x,
                -0.5,
                2.9,
                cap([0.0, 0.0, 0.0], [0.0, 0.0, -0.08], 0.05),
            ),
            (
                "hip_yaw",
                [0.0, 0.0, -0.1],
                z,
                -2.7,
                2.7,
                cap([0.0, 0.0, 0.0], [0.0, 0.0, -0.15], 0.06),
            ),
            (
                "knee",
                [0.0, 0.0, -0.17],
                y,
                -0.1,
                2.9,
                cap([0.0, 0.0, -0.02], [0.0, 0.0, -0.28], 0.05),
            ),
            (
                "ankle_pitch",
                [0.0, 0.0, -0.3],
                y,
                -0.87,
                0.52,
                cap([0.0, 0.0, 0.0], [0.0, 0.0, -0.02], 0.03),
            ),
            (
                "ankle_roll",
                [0.0, 0.0, -0.02],
                x,
                -0.26,
                0.26,
                bx([0.03, 0.0, -0.03], [0.0; 3], [0.11, 0.04, 0.02]),
            ),
        ];
        push_limb(&mut links, side, sy, specs, parent_of);
    }
    let waist_base = links.len();
    links.push(link(
        "waist_yaw_link",
        Some(0),
        rev("waist_yaw_joint", [0.0, 0.0, 0.05], [0.0; 3], z, -2.6, 2.6),
        cap([0.0, 0.0, 0.0], [0.0, 0.0, 0.03], 0.05),
    ));
    links.push(link(
        "waist_roll_link",
        Some(waist_base),
        rev(
            "waist_roll_joint",
            [0.0, 0.0, 0.035],
            [0.0; 3],
            x,
            -0.52,
            0.52,
        ),
        cap([0.0, -0.02, 0.0], [0.0, 0.02, 0.0], 0.04),
    ));
    links.push(link(
        "torso_link",
        Some(waist_base + 1),
        rev(
            "waist_pitch_joint",
            [0.0, 0.0, 0.02],
            [0.0; 3],
            y,
            -0.52,
            0.52,
        ),
        bx([0.0, 0.0, 0.2], [0.0; 3], [0.07, 0.12, 0.17]),
    ));
    let torso = links.len() - 1;
    for (side, sy) in [("left", 1.0), ("right", -1.0)] {
        let base = links.len();
        let parent_of = |k: usize| if k == 0 { torso } else { base + k - 1 };
        let specs: [Spec; 7] = [
            (
                "shoulder_pitch",
                [0.0, sy * 0.15, 0.33],
                y,
                -3.1,
                2.7,
                cap([0.0, 0.0, 0.0], [0.0, sy * 0.03, 0.0], 0.045),
            ),
            (
                "shoulder_roll",
                [0.0, sy * 0.04, 0.0],
                x,
                -1.6,
                2.2,
                cap([0.0, 0.0, 0.0], [0.0, 0.0, -0.07], 0.045),
            ),
            (
                "shoulder_yaw",
                [0.0, 0.0, -0.08],
                z,
                -2.6,
                2.6,
                cap([0.0, 0.0, 0.0], [0.0, 0.0, -0.12], 0.045),
            ),
            (
                "elbow",
                [0.0, 0.0, -0.14],
                y,
                -1.0,
                2.1,
                cap([0.0, 0.0, 0.0], [0.1, 0.0, 0.0], 0.04),
            ),
            (
                "wrist_roll",
                [0.11, 0.0, 0.0],
                x,
                -1.97,
                1.97,
                cap([0.0, 0.0, 0.0], [0.05, 0.0, 0.0], 0.035),
            ),
            (
                "wrist_pitch",
                [0.06, 0.0, 0.0],
                y,
                -1.6,
                1.6,
                cap([0.0, 0.0, 0.0], [0.03, 0.0, 0.0], 0.03),
            ),
            (
                "wrist_yaw",
                [0.04, 0.0, 0.0],
                z,
                -1.6,
                1.6,
                bx([0.06, 0.0, 0.0], [0.0; 3], [0.06, 0.035, 0.02]),
            ),
        ];
        push_limb(&mut links, side, sy, specs, parent_of);
    }
    let acm = acm_near_tree(&links);
    Model::new(links, vec![], acm, 0.0).unwrap()
}

/// A 6-link arm mixing capsules, boxes and tight hulls (every pair kind occurs), compact
/// enough that many pairs are near, with every link pair checked except parent–child.
pub fn mixed_tight_arm(n_vertices: usize, margin: f64) -> Model {
    let mut store = Vec::new();
    let z = [0.0, 0.0, 1.0];
    let y = [0.0, 1.0, 0.0];
    let r0 = rot_from_rpy([0.2, -0.1, 0.3]);
    let hull_a = ellipsoid_points(n_vertices, [0.0, 0.0, 0.12], [0.05, 0.06, 0.12], &r0);
    let hull_b = ellipsoid_points(n_vertices, [0.1, 0.0, 0.0], [0.12, 0.04, 0.05], &r0);
    let hull_c = ellipsoid_points(n_vertices, [0.0, 0.0, 0.06], [0.04, 0.04, 0.07], &r0);
    let ta = tight_from_points(&hull_a, r0, &mut store);
    let tb = tight_from_points(&hull_b, rot_from_rpy([0.0, 0.0, 0.4]), &mut store);
    let tc = tight_from_points(&hull_c, collide::kernel::vec3::IDENTITY, &mut store);
    let links = vec![
        link(
            "base",
            None,
            Joint::fixed("j0", [0.0; 3], [0.0; 3]),
            vec![ta],
        ),
        link(
            "l1",
            Some(0),
            rev("j1", [0.0, 0.0, 0.25], [0.0; 3], y, -2.5, 2.5),
            cap([0.0; 3], [0.2, 0.0, 0.0], 0.04),
        ),
        link(
            "l2",
            Some(1),
            rev("j2", [0.2, 0.0, 0.0], [0.0; 3], y, -2.8, 2.8),
            vec![tb],
        ),
        link(
            "l3",
            Some(2),
            rev("j3", [0.22, 0.0, 0.0], [0.0; 3], z, -2.8, 2.8).with_pivot([0.0, 0.0, 0.01]),
            bx([0.08, 0.0, 0.0], [0.0; 3], [0.08, 0.03, 0.03]),
        ),
        link(
            "l4",
            Some(3),
            rev("j4", [0.16, 0.0, 0.0], [0.0; 3], y, -2.8, 2.8),
            vec![tc],
        ),
        link(
            "l5",
            Some(4),
            Joint::new(
                "j5",
                JointKind::Prismatic,
                [0.0, 0.0, 0.12],
                [0.0; 3],
                z,
                0.0,
                0.05,
            ),
            vec![
                Primitive::Capsule {
                    a: [0.0; 3],
                    b: [0.0, 0.0, 0.06],
                    radius: 0.02,
                },
                Primitive::Box(BoxShape::from_rpy(
                    [0.0, 0.03, 0.03],
                    [0.0; 3],
                    [0.02, 0.02, 0.03],
                )),
            ],
        ),
        link(
            "l6",
            Some(4),
            Joint::new(
                "j6",
                JointKind::Prismatic,
                [0.0, 0.0, 0.12],
                [0.0; 3],
                [0.0, -1.0, 0.0],
                0.0,
                0.05,
            )
            .with_mimic(5, 1.0, 0.0),
            bx([0.0, -0.03, 0.03], [0.0; 3], [0.02, 0.02, 0.03]),
        ),
    ];
    let mut acm = Acm::new(links.len());
    for (i, l) in links.iter().enumerate() {
        if let Some(p) = l.parent {
            acm.allow(i, p);
        }
    }
    Model::new(links, store, acm, margin).unwrap()
}
