//! Shapes of the world and of payloads, prepared in their own frame ([`Body`]), placed
//! ([`Solid`]), and the staged signed distance between two placed solids.
//!
//! A cell is a [`Solid::Box`] (an axis-aligned cube with the grid's shared DOP). Every
//! routine here is one of the kernel's own narrow phases, with its guarantee: the value is
//! at most the exact signed distance of the two solids as written, and exact (within the
//! GJK tolerance) when it is at most `threshold`.

use super::super::distance_box_box::{box_box_refined, box_cube_sat};
use super::super::distance_box_capsule::box_capsule;
use super::super::distance_capsule_capsule::capsule_capsule;
use super::super::distance_hull_box::{box_dop, tight_box_within};
use super::super::distance_hull_capsule::tight_capsule_within;
use super::super::distance_hull_hull::{TightPosed, tight_tight_within};
use super::super::dop26::{Dop26, dop_of_points};
use super::super::gjk::{Staged, Witness};
use super::super::model::{BoxShape, MAX_HULL_VERTICES, check_box};
use super::super::shapes::{Capsule, Hull, Obb, PosedHull};
use super::super::vec3::{IDENTITY, Iso, V3, add, finite, mul_mm, mul_mv, norm, scale, sub};

/// A shape in its own frame: a fixture's frame is the world, a payload's its link's.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// An oriented box.
    Box(BoxShape),
    /// The points within `radius` of the segment `a`–`b`.
    Capsule { a: V3, b: V3, radius: f64 },
    /// The points within `radius` of `center`.
    Sphere { center: V3, radius: f64 },
    /// The convex hull of 1 to [`MAX_HULL_VERTICES`] points.
    Hull(Vec<V3>),
}

/// Relative and absolute slack added to a hull's containing box and DOP, so that the
/// rounding of the box-frame coordinates never leaves a vertex outside (they are only
/// early-out bounds; the exact hull decides).
const HULL_BOUND_SLACK: f64 = 1e-9;

#[derive(Clone, Debug)]
pub(crate) enum BodyKind {
    Capsule(Capsule),
    Box(Obb, Box<Dop26>),
    /// The hull, its containing box (identity rotation) and DOP (box frame).
    Hull(Hull, Obb, Box<Dop26>),
}

/// A [`Shape`] validated and prepared: its solid data and bounding sphere, own frame.
#[derive(Clone, Debug)]
pub(crate) struct Body {
    pub(crate) kind: BodyKind,
    pub(crate) sphere_c: V3,
    pub(crate) sphere_r: f64,
}

impl Body {
    /// Validates `shape` (`what` names it in errors) and prepares it.
    pub(crate) fn new(shape: &Shape, what: &str) -> Result<Body, String> {
        match shape {
            Shape::Box(b) => {
                check_box(what, b)?;
                let o = b.obb();
                Ok(Body {
                    sphere_c: o.center,
                    sphere_r: norm(o.half),
                    kind: BodyKind::Box(o, Box::new(box_dop(o.half))),
                })
            }
            &Shape::Capsule { a, b, radius } => capsule_body(a, b, radius, what),
            &Shape::Sphere { center, radius } => capsule_body(center, center, radius, what),
            Shape::Hull(points) => {
                if points.is_empty() || points.len() > MAX_HULL_VERTICES {
                    return Err(format!(
                        "{what}: hull has {} points; must be 1..={MAX_HULL_VERTICES}",
                        points.len()
                    ));
                }
                if let Some(i) = points.iter().position(|p| !finite(*p)) {
                    return Err(format!("{what}: hull point {i} is not finite"));
                }
                let mut lo = [f64::INFINITY; 3];
                let mut hi = [f64::NEG_INFINITY; 3];
                for p in points {
                    for a in 0..3 {
                        lo[a] = lo[a].min(p[a]);
                        hi[a] = hi[a].max(p[a]);
                    }
                }
                let center = scale(add(lo, hi), 0.5);
                let slack = |v: f64| v + HULL_BOUND_SLACK * (1.0 + v.abs());
                let half = [0, 1, 2].map(|a| slack(0.5 * (hi[a] - lo[a])));
                let local: Vec<V3> = points.iter().map(|p| sub(*p, center)).collect();
                let dop = dop_of_points(&local).map(slack);
                let sphere_r = local.iter().map(|p| norm(*p)).fold(0.0, f64::max);
                Ok(Body {
                    sphere_c: center,
                    sphere_r: slack(sphere_r),
                    kind: BodyKind::Hull(
                        Hull::from_points(points),
                        Obb {
                            center,
                            rot: IDENTITY,
                            half,
                        },
                        Box::new(Dop26::new(dop)),
                    ),
                })
            }
        }
    }

    /// The body placed by `pose` (its frame in the common frame).
    #[inline]
    pub(crate) fn placed<'a>(&'a self, pose: &Iso) -> Solid<'a> {
        match &self.kind {
            BodyKind::Capsule(c) => Solid::Capsule(Capsule {
                a: pose.transform_point(c.a),
                b: pose.transform_point(c.b),
                radius: c.radius,
            }),
            BodyKind::Box(o, d) => Solid::Box(place_obb(o, pose), d),
            BodyKind::Hull(h, o, d) => Solid::Hull(TightPosed {
                obb: place_obb(o, pose),
                dop: d,
                hull: PosedHull {
                    pts: h.points(),
                    rot: pose.rot,
                    pos: pose.pos,
                },
            }),
        }
    }

    /// The bounding sphere's centre placed by `pose`.
    #[inline]
    pub(crate) fn sphere_center(&self, pose: &Iso) -> V3 {
        pose.transform_point(self.sphere_c)
    }
}

/// A capsule (a sphere when `a == b`), validated.
fn capsule_body(a: V3, b: V3, radius: f64, what: &str) -> Result<Body, String> {
    if !(finite(a) && finite(b)) {
        return Err(format!("{what}: centre or capsule ends are not finite"));
    }
    if !(radius.is_finite() && radius >= 0.0) {
        return Err(format!(
            "{what}: radius is {radius}, expected a finite number >= 0"
        ));
    }
    Ok(Body {
        sphere_c: scale(add(a, b), 0.5),
        sphere_r: 0.5 * norm(sub(b, a)) + radius,
        kind: BodyKind::Capsule(Capsule { a, b, radius }),
    })
}

#[inline(always)]
fn place_obb(o: &Obb, pose: &Iso) -> Obb {
    Obb {
        center: add(mul_mv(&pose.rot, o.center), pose.pos),
        rot: mul_mm(&pose.rot, &o.rot),
        half: o.half,
    }
}

/// A solid placed in the common (world) frame, borrowing its DOP and hull.
// Built on the stack per primitive and used at once: boxing the hull variant (its climb
// graph made it the largest) would allocate on the hot path.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug)]
pub(crate) enum Solid<'a> {
    Capsule(Capsule),
    /// A box and its own 26-DOP (box frame; [`box_dop`] of its half extents).
    Box(Obb, &'a Dop26),
    /// A hull with its containing box and DOP.
    Hull(TightPosed<'a>),
}

impl Solid<'_> {
    /// The axis-aligned box containing the solid: a capsule's segment box grown by its
    /// radius; a box's own extents; a hull's **containing box's** extents (never the
    /// hull's: its box is what the broad phase may trust without enumerating vertices).
    #[inline]
    pub(crate) fn aabb(&self) -> (V3, V3) {
        let obb_aabb = |o: &Obb| {
            let mut e = [0.0; 3];
            for (a, ea) in e.iter_mut().enumerate() {
                *ea = o.rot[a][0].abs() * o.half[0]
                    + o.rot[a][1].abs() * o.half[1]
                    + o.rot[a][2].abs() * o.half[2];
            }
            (sub(o.center, e), add(o.center, e))
        };
        match self {
            Solid::Capsule(c) => {
                let r = c.radius;
                (
                    [0, 1, 2].map(|a| c.a[a].min(c.b[a]) - r),
                    [0, 1, 2].map(|a| c.a[a].max(c.b[a]) + r),
                )
            }
            Solid::Box(o, _) => obb_aabb(o),
            Solid::Hull(t) => obb_aabb(&t.obb),
        }
    }
}

/// The staged signed distance of `a` and `b` (module docs). `warm`: GJK's witness from a
/// previous query of the same two solids' vertex lists (a cell's corners are the same ids
/// in every cell). `ceiling`: the caller takes the minimum with it (an overlap's depth
/// bound stops there).
#[inline]
pub(crate) fn solid_distance(
    a: &Solid<'_>,
    b: &Solid<'_>,
    threshold: f64,
    warm: Option<&mut Witness>,
    ceiling: f64,
) -> Staged {
    let settled = Staged::settled;
    match (a, b) {
        (Solid::Capsule(p), Solid::Capsule(q)) => {
            settled(capsule_capsule(p.a, p.b, p.radius, q.a, q.b, q.radius))
        }
        (Solid::Box(o, _), Solid::Capsule(c)) | (Solid::Capsule(c), Solid::Box(o, _)) => {
            settled(box_capsule(o, c.a, c.b, c.radius))
        }
        (Solid::Box(p, _), Solid::Box(q, _)) => {
            let gjk = box_box_refined(p, q, threshold, warm);
            settled(gjk)
        }
        (Solid::Hull(t), Solid::Capsule(c)) | (Solid::Capsule(c), Solid::Hull(t)) => {
            tight_capsule_within(t, c, threshold, warm, ceiling)
        }
        (Solid::Hull(t), Solid::Box(o, d)) | (Solid::Box(o, d), Solid::Hull(t)) => {
            tight_box_within(t, o, d, threshold, warm, ceiling)
        }
        (Solid::Hull(p), Solid::Hull(q)) => tight_tight_within(p, q, threshold, warm, ceiling),
    }
}

/// [`solid_distance`] of `a` and the axis-aligned cube of centre `c` and half side `h`
/// (`cube_dop` its DOP): a box first takes the cube-specialised SAT, which settles it when
/// it clears `threshold`.
#[inline]
pub(crate) fn cell_distance(
    a: &Solid<'_>,
    c: V3,
    h: f64,
    cube_dop: &Dop26,
    threshold: f64,
    warm: Option<&mut Witness>,
    ceiling: f64,
) -> Staged {
    if let Solid::Box(o, _) = a {
        let sat = box_cube_sat(o, c, h);
        if sat > threshold {
            return Staged::settled(sat);
        }
    }
    let cell = Obb {
        center: c,
        rot: IDENTITY,
        half: [h; 3],
    };
    solid_distance(a, &Solid::Box(cell, cube_dop), threshold, warm, ceiling)
}
