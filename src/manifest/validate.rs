//! Everything the loader promises beyond types: finite numbers, sizes, names that
//! resolve, a joint tree in topological order, primitives that make sense, hull within
//! DOP within box.

use super::schema::*;
use crate::kernel::vec3::{dot, rot_from_rpy};
use std::collections::{HashMap, HashSet};

/// Where in the document a check failed, for its line number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Site {
    Top,
    Source(usize),
    RestPose,
    Joint(usize),
    Link(usize),
    Primitive(usize, usize),
    Fit(usize),
    Acm(usize),
}

/// A failed check: where, which field, what is wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct Invalid {
    pub site: Site,
    /// The field, as a path: `links[3] (panda_link4).primitives[1].hull[17]`.
    pub field: String,
    pub problem: String,
}

impl Invalid {
    pub fn describe(&self) -> String {
        format!("{}: {}", self.field, self.problem)
    }
}

struct Checker {
    site: Site,
    field: String,
}

impl Checker {
    fn fail(&self, sub: &str, problem: impl Into<String>) -> Invalid {
        let field = if sub.is_empty() {
            self.field.clone()
        } else if self.field.is_empty() {
            sub.to_string()
        } else {
            format!("{}.{sub}", self.field)
        };
        Invalid {
            site: self.site,
            field,
            problem: problem.into(),
        }
    }

    fn finite(&self, sub: &str, values: &[f64]) -> std::result::Result<(), Invalid> {
        match values.iter().find(|x| !x.is_finite()) {
            Some(x) => Err(self.fail(sub, format!("{x} is not a finite number"))),
            None => Ok(()),
        }
    }

    fn name(&self, sub: &str, name: &str) -> std::result::Result<(), Invalid> {
        if name.trim().is_empty() {
            return Err(self.fail(sub, "must not be empty"));
        }
        Ok(())
    }
}

/// Checks everything the loader promises beyond types: finite numbers, sizes,
/// names that resolve, a joint tree in topological order, primitives that
/// make sense, hull within DOP within box.
pub fn validate(m: &Manifest) -> std::result::Result<(), Invalid> {
    validate_with(m, true)
}

/// Every tight box's hull within its DOP within its box, on a manifest that passed
/// [`validate`]'s other checks: the first failure of each link. A well-formed manifest
/// that fails here is a broken proof (what `verify` reports), not unreadable text.
pub fn nesting_failures(m: &Manifest) -> Vec<(String, Invalid)> {
    let mut out = Vec::new();
    for (i, l) in m.links.iter().enumerate() {
        let failed = l.primitives.iter().enumerate().find_map(|(k, p)| {
            let Primitive::Box(b) = p else { return None };
            let c = Checker {
                site: Site::Primitive(i, k),
                field: format!("primitives[{k}]"),
            };
            check_box_nesting(&c, b).err()
        });
        out.extend(failed.map(|e| (l.name.clone(), e)));
    }
    out
}

pub(super) fn validate_with(m: &Manifest, nesting: bool) -> std::result::Result<(), Invalid> {
    let top = Checker {
        site: Site::Top,
        field: String::new(),
    };
    if m.schema_version != SCHEMA_VERSION {
        return Err(top.fail(
            "schema_version",
            format!(
                "{} is not supported (expected {SCHEMA_VERSION})",
                m.schema_version
            ),
        ));
    }
    top.name("robot", &m.robot)?;
    top.name("generator", &m.generator)?;
    top.finite("headroom_m", &[m.headroom_m])?;
    top.finite("hull_headroom_m", &[m.hull_headroom_m])?;
    top.finite("margin_m", &[m.margin_m])?;
    if m.headroom_m < 0.0 {
        return Err(top.fail("headroom_m", "must not be negative"));
    }
    if m.hull_headroom_m < 0.0 {
        return Err(top.fail("hull_headroom_m", "must not be negative"));
    }
    if m.margin_m < 0.0 {
        return Err(top.fail("margin_m", "must not be negative"));
    }
    for (i, s) in m.sources.iter().enumerate() {
        let c = Checker {
            site: Site::Source(i),
            field: format!("sources[{i}]"),
        };
        c.name("path", &s.path)?;
        let digests = std::iter::once(("sha256", &s.sha256)).chain(
            s.xacro
                .as_ref()
                .map(|x| ("xacro.expanded_sha256", &x.expanded_sha256)),
        );
        for (field, sha) in digests {
            if sha.len() != 64
                || !sha
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
            {
                return Err(c.fail(
                    field,
                    format!("`{sha}` is not 64 lowercase hexadecimal digits"),
                ));
            }
        }
    }

    // Joints: a tree in topological order.
    let mut joint_index: HashMap<&str, usize> = HashMap::new();
    let mut children: HashSet<&str> = HashSet::new();
    let mut tree_links: Vec<&str> = Vec::new();
    let root = m.joints.first().map(|j| j.parent.as_str());
    if let Some(r) = root {
        tree_links.push(r);
    }
    for (i, j) in m.joints.iter().enumerate() {
        let c = Checker {
            site: Site::Joint(i),
            field: format!("joints[{i}] ({})", j.name),
        };
        c.name("name", &j.name)?;
        c.name("parent", &j.parent)?;
        c.name("child", &j.child)?;
        if joint_index.insert(&j.name, i).is_some() {
            return Err(c.fail("name", format!("joint `{}` is defined twice", j.name)));
        }
        c.finite("origin_xyz", &j.origin_xyz)?;
        c.finite("origin_rpy", &j.origin_rpy)?;
        c.finite("axis", &j.axis)?;
        if j.kind != JointKind::Fixed && dot(j.axis, j.axis) == 0.0 {
            return Err(c.fail("axis", "must not be zero"));
        }
        match (j.kind, &j.limits) {
            (JointKind::Revolute | JointKind::Prismatic, None) => {
                return Err(c.fail(
                    "limits",
                    format!("a {} joint needs limits [lower, upper]", j.kind.as_str()),
                ));
            }
            (JointKind::Revolute | JointKind::Prismatic, Some(l)) => {
                c.finite("limits", l)?;
                if l[0] > l[1] {
                    return Err(c.fail("limits", format!("lower {} is above upper {}", l[0], l[1])));
                }
            }
            (kind, Some(_)) => {
                return Err(c.fail("limits", format!("a {} joint has no limits", kind.as_str())));
            }
            (_, None) => {}
        }
        if let Some(p) = &j.pivot {
            if !matches!(j.kind, JointKind::Revolute | JointKind::Continuous) {
                return Err(c.fail(
                    "pivot",
                    format!(
                        "only revolute and continuous joints have a pivot, not a {} one",
                        j.kind.as_str()
                    ),
                ));
            }
            c.finite("pivot", p)?;
        }
        if let Some(mm) = &j.mimic {
            c.finite("mimic", &[mm.multiplier, mm.offset])?;
            if j.kind == JointKind::Fixed {
                return Err(c.fail("mimic", "a fixed joint cannot mimic"));
            }
        }
        if j.parent == j.child {
            return Err(c.fail("child", "is its own parent"));
        }
        if Some(j.parent.as_str()) != root && !children.contains(j.parent.as_str()) {
            let why = if m.joints.iter().any(|k| k.child == j.parent) {
                "comes before the joint that places it (joints must be in topological order)"
                    .to_string()
            } else {
                format!(
                    "is neither the root `{}` nor a child of another joint (more than one root)",
                    root.unwrap_or("")
                )
            };
            return Err(c.fail("parent", format!("`{}` {why}", j.parent)));
        }
        if Some(j.child.as_str()) == root || !children.insert(&j.child) {
            return Err(c.fail("child", format!("link `{}` already has a parent", j.child)));
        }
        tree_links.push(&j.child);
    }
    for (i, j) in m.joints.iter().enumerate() {
        let Some(mm) = &j.mimic else { continue };
        let c = Checker {
            site: Site::Joint(i),
            field: format!("joints[{i}] ({}).mimic", j.name),
        };
        let Some(&leader) = joint_index.get(mm.joint.as_str()) else {
            return Err(c.fail("joint", format!("names unknown joint `{}`", mm.joint)));
        };
        if leader == i {
            return Err(c.fail("joint", "a joint cannot mimic itself"));
        }
        // Follow the leaders: a chain must end at a joint that mimics nothing.
        let mut seen = vec![i];
        let mut k = leader;
        while let Some(next) = &m.joints[k].mimic {
            if seen.contains(&k) {
                return Err(c.fail("joint", "mimic joints form a cycle"));
            }
            seen.push(k);
            match joint_index.get(next.joint.as_str()) {
                Some(&n) => k = n,
                None => break, // reported at that joint
            }
        }
        if m.joints[leader].kind == JointKind::Fixed {
            return Err(c.fail("joint", format!("leader `{}` is a fixed joint", mm.joint)));
        }
    }

    // Rest pose.
    let c = Checker {
        site: Site::RestPose,
        field: "rest_pose".to_string(),
    };
    c.finite("min_distance_m", &[m.rest_pose.min_distance_m])?;
    for (name, value) in &m.rest_pose.q.0 {
        let sub = format!("q.{name}");
        c.finite(&sub, &[*value])?;
        let Some(&ji) = joint_index.get(name.as_str()) else {
            return Err(c.fail(&sub, "names no joint of the manifest"));
        };
        let j = &m.joints[ji];
        if j.kind == JointKind::Fixed {
            return Err(c.fail(&sub, "is a fixed joint"));
        }
        if let Some([lo, hi]) = j.limits
            && (*value < lo || *value > hi)
        {
            return Err(c.fail(
                &sub,
                format!("{value} is outside the joint's limits [{lo}, {hi}]"),
            ));
        }
    }

    // Links.
    let mut link_names: HashSet<&str> = HashSet::new();
    for (i, l) in m.links.iter().enumerate() {
        let c = Checker {
            site: Site::Link(i),
            field: format!("links[{i}] ({})", l.name),
        };
        c.name("name", &l.name)?;
        if !link_names.insert(&l.name) {
            return Err(c.fail("name", format!("link `{}` is listed twice", l.name)));
        }
        if !m.joints.is_empty() && !tree_links.contains(&l.name.as_str()) {
            return Err(c.fail(
                "name",
                format!("`{}` is not a link of the joint tree", l.name),
            ));
        }
        if l.primitives.is_empty() {
            return Err(c.fail("primitives", "must not be empty"));
        }
        for (k, p) in l.primitives.iter().enumerate() {
            let c = Checker {
                site: Site::Primitive(i, k),
                field: format!("links[{i}] ({}).primitives[{k}]", l.name),
            };
            check_primitive(&c, p, nesting)?;
        }
        check_fit(i, l)?;
    }

    // ACM.
    let mut pairs: HashSet<(&str, &str)> = HashSet::new();
    for (i, e) in m.acm.iter().enumerate() {
        let c = Checker {
            site: Site::Acm(i),
            field: format!("acm[{i}]"),
        };
        for (sub, name) in [("a", &e.a), ("b", &e.b)] {
            if !link_names.contains(name.as_str()) {
                return Err(c.fail(sub, format!("`{name}` is not a link of the manifest")));
            }
        }
        if e.a == e.b {
            return Err(c.fail("b", "a link is paired with itself"));
        }
        c.name("reason", &e.reason)?;
        c.name("proof", &e.proof)?;
        let key = if e.a < e.b {
            (e.a.as_str(), e.b.as_str())
        } else {
            (e.b.as_str(), e.a.as_str())
        };
        if !pairs.insert(key) {
            return Err(c.fail("", format!("pair {} / {} is listed twice", e.a, e.b)));
        }
    }
    Ok(())
}

fn check_primitive(c: &Checker, p: &Primitive, nesting: bool) -> std::result::Result<(), Invalid> {
    match p {
        Primitive::Capsule(cap) => {
            c.finite("a", &cap.a)?;
            c.finite("b", &cap.b)?;
            c.finite("radius", &[cap.radius])?;
            if cap.radius <= 0.0 {
                return Err(c.fail("radius", format!("{} is not positive", cap.radius)));
            }
        }
        Primitive::Box(b) => {
            c.finite("center", &b.center)?;
            c.finite("rpy", &b.rpy)?;
            c.finite("half_extents", &b.half_extents)?;
            if let Some(h) = b.half_extents.iter().find(|h| **h <= 0.0) {
                return Err(c.fail("half_extents", format!("{h} is not positive")));
            }
            let (dop, hull) = match (&b.dop26, &b.hull) {
                (None, None) => return Ok(()),
                (Some(_), None) => {
                    return Err(c.fail("hull", "a box with dop26 needs its hull too"));
                }
                (None, Some(_)) => {
                    return Err(c.fail("dop26", "a box with a hull needs its dop26 too"));
                }
                (Some(d), Some(h)) => (d, h),
            };
            c.finite("dop26", dop)?;
            if hull.is_empty() || hull.len() > MAX_HULL_VERTICES {
                return Err(c.fail(
                    "hull",
                    format!(
                        "has {} vertices; 1 to {MAX_HULL_VERTICES} allowed",
                        hull.len()
                    ),
                ));
            }
            for (v, p) in hull.iter().enumerate() {
                c.finite(&format!("hull[{v}]"), p)?;
            }
            if nesting {
                check_box_nesting(c, b)?;
            }
        }
    }
    Ok(())
}

/// A tight box's DOP within the box, its hull within both (nothing to check on a plain
/// box): the kernel's own nesting check, with its tolerance.
fn check_box_nesting(c: &Checker, b: &BoxPrim) -> std::result::Result<(), Invalid> {
    use crate::kernel::model::{NestingFault, nesting_fault};
    let (Some(dop), Some(hull)) = (&b.dop26, &b.hull) else {
        return Ok(());
    };
    let rot = rot_from_rpy(b.rpy);
    let half = b.half_extents;
    match nesting_fault(b.center, &rot, half, dop, hull) {
        None => Ok(()),
        Some(NestingFault::DopOutsideBox { k, .. }) => Err(c.fail(
            &format!("dop26[{k}]"),
            format!("{} exceeds the box's half extent {}", dop[k], half[k / 2]),
        )),
        Some(NestingFault::VertexOutsideBox { vertex, excess }) => {
            let p = hull[vertex];
            Err(c.fail(
                &format!("hull[{vertex}]"),
                format!(
                    "vertex [{}, {}, {}] lies {excess:.3e} m outside its box",
                    p[0], p[1], p[2]
                ),
            ))
        }
        Some(NestingFault::VertexOutsideDop { vertex, k, excess }) => {
            let p = hull[vertex];
            Err(c.fail(
                &format!("hull[{vertex}]"),
                format!(
                    "vertex [{}, {}, {}] lies {excess:.3e} m outside dop26[{k}]",
                    p[0], p[1], p[2]
                ),
            ))
        }
    }
}

fn check_fit(i: usize, l: &Link) -> std::result::Result<(), Invalid> {
    let f = &l.fit;
    let c = Checker {
        site: Site::Fit(i),
        field: format!("links[{i}] ({}).fit", l.name),
    };
    c.finite(
        "",
        &[
            f.vol_ratio.unwrap_or(0.0),
            f.max_protrusion_m,
            f.mean_protrusion_m,
            f.min_margin_m,
        ],
    )?;
    if let Some(x) = f.hull_excess_m {
        c.finite("hull_excess_m", &[x])?;
    }
    let capsules = l
        .primitives
        .iter()
        .filter(|p| matches!(p, Primitive::Capsule(_)))
        .count();
    let plain_boxes = l
        .primitives
        .iter()
        .filter(|p| matches!(p, Primitive::Box(b) if b.tight().is_none()))
        .count();
    let tight_boxes = l.primitives.len() - capsules - plain_boxes;
    let n = l.primitives.len();
    let ok = match f.choice {
        FitChoice::Capsule => capsules == 1 && n == 1,
        FitChoice::CapsuleChain2 => capsules == 2 && n == 2,
        FitChoice::CapsuleChain3 => capsules == 3 && n == 3,
        FitChoice::Box => plain_boxes == 1 && n == 1,
        FitChoice::TightBox => tight_boxes == n,
    };
    if !ok {
        return Err(c.fail(
            "choice",
            format!(
                "{} does not match the primitives ({capsules} capsules, {plain_boxes} boxes, {tight_boxes} tight boxes)",
                f.choice.as_str()
            ),
        ));
    }
    let mut kinds = HashSet::new();
    for (k, cand) in f.candidates.iter().enumerate() {
        let sub = format!("candidates[{k}]");
        c.finite(
            &sub,
            &[
                cand.vol_ratio.unwrap_or(0.0),
                cand.max_protrusion_m,
                cand.mean_protrusion_m,
            ],
        )?;
        if !kinds.insert(cand.kind) {
            return Err(c.fail(&sub, format!("candidate {:?} is listed twice", cand.kind)));
        }
    }
    Ok(())
}
