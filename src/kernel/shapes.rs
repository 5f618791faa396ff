//! World-frame (or any common-frame) shapes the distance routines work on, and their
//! support maps for GJK (`gjk`).
//!
//! Units are metres throughout. A support map returns the point of the solid that is
//! furthest along a direction together with a small integer id naming that point, so that a
//! GJK witness simplex can be rebuilt later from ids alone (warm start).

use super::climb::{self, Climb};
use super::support_table;
use super::vec3::{Mat3, V3, add, axpy, dot, mul_mtm, mul_mtv, mul_mv, sub};

/// A capsule: the points within `radius` of the segment `a`–`b`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Capsule {
    pub a: V3,
    pub b: V3,
    pub radius: f64,
}

/// An oriented box: `{ center + rot · x : |x_i| <= half_i }`.
///
/// `rot` is row-major; its columns are the box axes in the common frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Obb {
    pub center: V3,
    pub rot: Mat3,
    pub half: V3,
}

/// A segment, as a support-mapped solid (the core of a capsule).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Segment {
    pub a: V3,
    pub b: V3,
}

/// The point cloud a hull is: defined beside its support scan ([`super::scan`]), which
/// this module and [`support_table`] both use.
pub use super::scan::HullPoints;

/// A point cloud placed by a rigid transform: `rot · p + pos` for every stored `p`.
#[derive(Clone, Copy, Debug)]
pub struct PosedHull<'a> {
    pub pts: HullPoints<'a>,
    pub rot: Mat3,
    pub pos: V3,
}

/// Owned structure-of-arrays point storage with its support table, for tests, benches and
/// stand-alone use.
#[derive(Clone, Debug, Default)]
pub struct Hull {
    pub x: Vec<f64>,
    pub y: Vec<f64>,
    pub z: Vec<f64>,
    pub table: Vec<u16>,
    /// Its climbing graph, for hulls of [`climb::MIN_CLIMB_VERTICES`] or more that pass
    /// the slack proof.
    pub graph: Option<climb::Graph>,
}

impl Hull {
    pub fn from_points(points: &[V3]) -> Hull {
        let mut h = Hull {
            x: points.iter().map(|p| p[0]).collect(),
            y: points.iter().map(|p| p[1]).collect(),
            z: points.iter().map(|p| p[2]).collect(),
            table: Vec::new(),
            graph: None,
        };
        if !points.is_empty() {
            h.table = support_table::build(&h.points());
        }
        if points.len() >= climb::MIN_CLIMB_VERTICES {
            h.graph = climb::Graph::build(&h.points());
        }
        h
    }

    pub fn points(&self) -> HullPoints<'_> {
        HullPoints {
            x: &self.x,
            y: &self.y,
            z: &self.z,
            table: &self.table,
            climb: self.graph.as_ref().map_or(Climb::NONE, |g| g.view()),
        }
    }

    pub fn posed(&self, rot: Mat3, pos: V3) -> PosedHull<'_> {
        PosedHull {
            pts: self.points(),
            rot,
            pos,
        }
    }
}

/// A convex solid described by its support map.
pub trait SupportMap {
    /// A point `p` of the solid maximising `d · p`, and an id for it (see [`Self::vertex`]).
    fn support(&self, d: V3) -> (V3, u32);
    /// The point with the given id, as returned by [`Self::support`].
    fn vertex(&self, id: u32) -> V3;
    /// A point inside the solid, used to seed the search direction.
    fn center(&self) -> V3;
    /// Whether [`Self::proposal`] is cheaper than [`Self::support`] (a hull with a support
    /// table), so that GJK should propose points before it scans.
    #[inline(always)]
    fn has_table(&self) -> bool {
        false
    }
    /// A vertex near the support along `d`, and its id, found cheaply. GJK uses it only to
    /// propose simplex points, never for a bound. Without a table: the support itself.
    #[inline(always)]
    fn proposal(&self, d: V3) -> (V3, u32) {
        self.support(d)
    }
}

impl SupportMap for Obb {
    #[inline(always)]
    fn support(&self, d: V3) -> (V3, u32) {
        let l = mul_mtv(&self.rot, d);
        let mut id = 0u32;
        let mut p = self.center;
        for (j, &lj) in l.iter().enumerate() {
            let axis = [self.rot[0][j], self.rot[1][j], self.rot[2][j]];
            if lj >= 0.0 {
                p = axpy(p, self.half[j], axis);
            } else {
                p = axpy(p, -self.half[j], axis);
                id |= 1 << j;
            }
        }
        (p, id)
    }

    #[inline(always)]
    fn vertex(&self, id: u32) -> V3 {
        let mut x = [0.0; 3];
        for (j, xj) in x.iter_mut().enumerate() {
            *xj = if id & (1 << j) == 0 {
                self.half[j]
            } else {
                -self.half[j]
            };
        }
        add(self.center, mul_mv(&self.rot, x))
    }

    #[inline(always)]
    fn center(&self) -> V3 {
        self.center
    }
}

impl SupportMap for Segment {
    #[inline(always)]
    fn support(&self, d: V3) -> (V3, u32) {
        if dot(d, self.a) >= dot(d, self.b) {
            (self.a, 0)
        } else {
            (self.b, 1)
        }
    }

    #[inline(always)]
    fn vertex(&self, id: u32) -> V3 {
        if id == 0 { self.a } else { self.b }
    }

    #[inline(always)]
    fn center(&self) -> V3 {
        [
            0.5 * (self.a[0] + self.b[0]),
            0.5 * (self.a[1] + self.b[1]),
            0.5 * (self.a[2] + self.b[2]),
        ]
    }
}

pub use super::scan::argmax_dot;

impl SupportMap for PosedHull<'_> {
    #[inline(always)]
    fn support(&self, d: V3) -> (V3, u32) {
        let local = mul_mtv(&self.rot, d);
        let i = argmax_dot(&self.pts, local);
        (self.vertex(i as u32), i as u32)
    }

    #[inline(always)]
    fn vertex(&self, id: u32) -> V3 {
        let i = id as usize;
        let p = [self.pts.x[i], self.pts.y[i], self.pts.z[i]];
        add(mul_mv(&self.rot, p), self.pos)
    }

    #[inline(always)]
    fn center(&self) -> V3 {
        // The first point is inside the hull; good enough to seed a direction.
        self.vertex(0)
    }

    #[inline(always)]
    fn has_table(&self) -> bool {
        self.pts.has_table()
    }

    #[inline(always)]
    fn proposal(&self, d: V3) -> (V3, u32) {
        let i = self.pts.proposed_index(mul_mtv(&self.rot, d));
        (self.vertex(i), i)
    }
}

impl SupportMap for HullPoints<'_> {
    #[inline(always)]
    fn support(&self, d: V3) -> (V3, u32) {
        let i = argmax_dot(self, d);
        (self.vertex(i as u32), i as u32)
    }

    #[inline(always)]
    fn vertex(&self, id: u32) -> V3 {
        let i = id as usize;
        [self.x[i], self.y[i], self.z[i]]
    }

    #[inline(always)]
    fn center(&self) -> V3 {
        self.vertex(0)
    }

    #[inline(always)]
    fn has_table(&self) -> bool {
        self.table.len() == support_table::CELLS
    }

    #[inline(always)]
    fn proposal(&self, d: V3) -> (V3, u32) {
        let i = self.proposed_index(d);
        (self.vertex(i), i)
    }
}

impl HullPoints<'_> {
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.x.len()
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.x.is_empty()
    }

    /// The table's vertex for direction `d` (the scan's answer when there is no table).
    #[inline(always)]
    pub fn proposed_index(&self, d: V3) -> u32 {
        if self.has_table() {
            u32::from(self.table[support_table::cell(d)])
        } else {
            argmax_dot(self, d) as u32
        }
    }
}

/// Placing other solids in a hull's own frame, where its stored points need no transform:
/// GJK against a hull runs there (see `gjk::gjk_in_hull_frame`).
impl PosedHull<'_> {
    /// A point of the common frame in the hull's frame.
    #[inline(always)]
    pub fn to_local(&self, p: V3) -> V3 {
        mul_mtv(&self.rot, sub(p, self.pos))
    }

    /// Another hull placed in this hull's frame.
    #[inline(always)]
    pub fn hull_to_local<'b>(&self, other: &PosedHull<'b>) -> PosedHull<'b> {
        PosedHull {
            pts: other.pts,
            rot: mul_mtm(&self.rot, &other.rot),
            pos: self.to_local(other.pos),
        }
    }

    /// A box placed in this hull's frame.
    #[inline(always)]
    pub fn box_to_local(&self, b: &Obb) -> Obb {
        Obb {
            center: self.to_local(b.center),
            rot: mul_mtm(&self.rot, &b.rot),
            half: b.half,
        }
    }

    /// A segment placed in this hull's frame.
    #[inline(always)]
    pub fn segment_to_local(&self, s: &Segment) -> Segment {
        Segment {
            a: self.to_local(s.a),
            b: self.to_local(s.b),
        }
    }
}
