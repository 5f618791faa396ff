//! The manifest as the embedded kernel sees it: what a real-time kernel would load.

use crate::error::{Error, Result};
use crate::kernel::model::{
    Acm, BoxShape, Joint, JointKind, Link, Model, Primitive as KPrim, TightGeometry,
};
use crate::manifest::{self, Manifest, Primitive};
use std::collections::HashMap;

/// A loaded kernel model and the names behind its indices.
pub struct LoadedKernel {
    pub model: Model,
    pub link_names: Vec<String>,
    /// Kernel link index by name.
    pub link_index: HashMap<String, usize>,
    /// Names of the kernel's degrees of freedom, in `q` order.
    pub dof_names: Vec<String>,
}

impl LoadedKernel {
    /// A kernel `q` vector from named joint values (unnamed joints at 0).
    pub fn q_from(&self, values: &manifest::JointValues) -> Vec<f64> {
        self.dof_names
            .iter()
            .map(|n| values.get(n).unwrap_or(0.0))
            .collect()
    }
}

/// Builds the kernel model from a manifest: links in joint order (the root first),
/// primitives, the ACM and the margin. Errors name the manifest's link or joint.
pub fn load_kernel(m: &Manifest) -> Result<LoadedKernel> {
    let bad = |what: String| Error::check(format!("the kernel refuses the manifest: {what}"));
    let mut link_names: Vec<String> = Vec::new();
    let mut link_index: HashMap<String, usize> = HashMap::new();
    let mut links: Vec<Link> = Vec::new();
    let root = match m.joints.first() {
        Some(j) => j.parent.clone(),
        None => m
            .links
            .first()
            .map(|l| l.name.clone())
            .ok_or_else(|| bad("it has no links and no joints".into()))?,
    };
    link_index.insert(root.clone(), 0);
    link_names.push(root.clone());
    links.push(Link {
        name: root,
        parent: None,
        joint: Joint::fixed("", [0.0; 3], [0.0; 3]),
        primitives: Vec::new(),
    });
    let joint_index: HashMap<&str, usize> = m
        .joints
        .iter()
        .enumerate()
        .map(|(i, j)| (j.name.as_str(), i))
        .collect();
    for j in &m.joints {
        let parent = *link_index.get(&j.parent).ok_or_else(|| {
            bad(format!(
                "joint `{}` names parent `{}` before it is placed",
                j.name, j.parent
            ))
        })?;
        let kind = match j.kind {
            manifest::JointKind::Fixed => JointKind::Fixed,
            manifest::JointKind::Revolute => JointKind::Revolute,
            manifest::JointKind::Continuous => JointKind::Continuous,
            manifest::JointKind::Prismatic => JointKind::Prismatic,
        };
        let [lower, upper] = j.limits.unwrap_or([0.0, 0.0]);
        let mut joint = Joint::new(
            &j.name,
            kind,
            j.origin_xyz,
            j.origin_rpy,
            j.axis,
            lower,
            upper,
        );
        if let Some(p) = j.pivot {
            joint = joint.with_pivot(p);
        }
        if let Some(mm) = &j.mimic {
            let leader = *joint_index.get(mm.joint.as_str()).ok_or_else(|| {
                bad(format!(
                    "joint `{}` mimics unknown joint `{}`",
                    j.name, mm.joint
                ))
            })?;
            // Kernel joints are numbered by their child link: the root is link 0.
            joint = joint.with_mimic(leader + 1, mm.multiplier, mm.offset);
        }
        if link_index.insert(j.child.clone(), links.len()).is_some() {
            return Err(bad(format!(
                "link `{}` is the child of two joints",
                j.child
            )));
        }
        link_names.push(j.child.clone());
        links.push(Link {
            name: j.child.clone(),
            parent: Some(parent),
            joint,
            primitives: Vec::new(),
        });
    }
    let mut hull_vertices = Vec::new();
    for l in &m.links {
        let li = *link_index
            .get(&l.name)
            .ok_or_else(|| bad(format!("link `{}` is not in the joint tree", l.name)))?;
        for p in &l.primitives {
            let prim = match p {
                Primitive::Capsule(c) => KPrim::Capsule {
                    a: c.a,
                    b: c.b,
                    radius: c.radius,
                },
                Primitive::Box(b) => {
                    let bx = BoxShape::from_rpy(b.center, b.rpy, b.half_extents);
                    match b.tight() {
                        None => KPrim::Box(bx),
                        Some((dop, hull)) => {
                            let off = hull_vertices.len();
                            hull_vertices.extend_from_slice(hull);
                            KPrim::Tight(TightGeometry {
                                bx,
                                dop26: *dop,
                                hull_offset: off,
                                hull_len: hull.len(),
                            })
                        }
                    }
                }
            };
            links[li].primitives.push(prim);
        }
    }
    let mut acm = Acm::new(links.len());
    for row in &m.acm {
        let a = *link_index
            .get(&row.a)
            .ok_or_else(|| bad(format!("ACM row names unknown link `{}`", row.a)))?;
        let b = *link_index
            .get(&row.b)
            .ok_or_else(|| bad(format!("ACM row names unknown link `{}`", row.b)))?;
        acm.allow(a, b);
    }
    let model = Model::new(links, hull_vertices, acm, m.margin_m).map_err(bad)?;
    let dof_names = model
        .dof_joints()
        .iter()
        .map(|&i| model.links()[i].joint.name.clone())
        .collect();
    Ok(LoadedKernel {
        model,
        link_names,
        link_index,
        dof_names,
    })
}
