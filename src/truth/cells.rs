//! Truths of a placed link against the occupied cells of an occupancy grid, for
//! `collide sweep --world` (docs/world.md): both independent of the kernel's world check.
//!
//! - [`mesh_on_cells`]: does a link's real mesh touch an occupied cell's box? Every triangle
//!   against every occupied cell of its range by the exact separating-axis test (the box
//!   axes, the triangle's normal, the nine edge × axis products) on the cell **as written**
//!   (`origin + pitch · [i, i+1] × …`, not grown).
//! - [`PrimOracle`]: does a link's written primitive touch an occupied cell's box? The
//!   exact answer for margin 0, by other means than the kernel's: a capsule by the
//!   point–box distance minimised along its core (convex along it, golden-section search to
//!   rounding), a box or a hull by the separating-axis test of two convex polytopes on
//!   every axis that can separate them (the hull's face normals from parry3d-f64's convex
//!   hull, the cell's three axes, every hull edge × cell axis; a flat hull also its in-plane
//!   edge normals). Apart means some axis shows a positive gap; touching counts as contact.
//!
//! Both first reject a link (or primitive) whose bounding sphere reaches no occupied cell.

use crate::geom::capsule::minimize;
use crate::geom::mesh::TriMesh;
use crate::kernel::vec3::{Mat3, V3, add, cross, dot, mul_mv, norm, norm2, scale, sub};
use crate::kernel::world::OccupancyGrid;
use crate::kernel::world::voxelise::triangle_touches_box;
use crate::kernel::{Model, Primitive};
use std::collections::BTreeSet;

/// The exact distance from `p` to the axis-aligned cube of centre `c` and half side `h`
/// (0 inside).
pub fn point_cube(p: V3, c: V3, h: f64) -> f64 {
    let mut s = 0.0;
    for a in 0..3 {
        let d = ((p[a] - c[a]).abs() - h).max(0.0);
        s += d * d;
    }
    s.sqrt()
}

/// The range of cell indices whose boxes may meet the box `[lo, hi]` (one cell wider per
/// side against rounding); `None` for a non-finite box.
fn cell_range(grid: &OccupancyGrid, lo: V3, hi: V3) -> Option<([i32; 3], [i32; 3])> {
    grid.window(lo, hi, 0.0)
}

/// Does an occupied cell's box come within `r` of `c`?
pub fn ball_near_cells(grid: &OccupancyGrid, c: V3, r: f64) -> bool {
    let h = 0.5 * grid.pitch();
    let Some((lo, hi)) = cell_range(
        grid,
        [0, 1, 2].map(|a| c[a] - r),
        [0, 1, 2].map(|a| c[a] + r),
    ) else {
        return true;
    };
    grid.for_each_in(lo, hi, |cell| point_cube(c, grid.cell_center(cell), h) <= r)
}

/// Does `mesh` (link frame; `sphere` its bounding sphere there), placed by `rot` and
/// `pos`, touch an occupied cell's box? A non-finite placement counts as touching.
pub fn mesh_on_cells(
    grid: &OccupancyGrid,
    mesh: &TriMesh,
    sphere: (V3, f64),
    rot: &Mat3,
    pos: V3,
) -> bool {
    let place = |v: V3| add(mul_mv(rot, v), pos);
    if !ball_near_cells(grid, place(sphere.0), sphere.1) {
        return false;
    }
    let placed: Vec<V3> = mesh.vertices.iter().map(|v| place(*v)).collect();
    let h = 0.5 * grid.pitch();
    mesh.triangles.iter().any(|t| {
        let tri = t.map(|i| placed[i as usize]);
        let lo = [0, 1, 2].map(|a| tri[0][a].min(tri[1][a]).min(tri[2][a]));
        let hi = [0, 1, 2].map(|a| tri[0][a].max(tri[1][a]).max(tri[2][a]));
        let Some((wlo, whi)) = cell_range(grid, lo, hi) else {
            return true;
        };
        grid.for_each_in(wlo, whi, |c| {
            triangle_touches_box(&tri, grid.cell_center(c), h)
        })
    })
}

/// A written primitive, link frame, as the exact oracle needs it.
#[derive(Debug, Clone)]
enum Solid {
    Capsule {
        a: V3,
        b: V3,
        radius: f64,
    },
    /// A convex polytope: its vertices, and the directions whose crosses with the cell's
    /// axes (with the face normals) are every axis that can separate it from a cell.
    Poly {
        points: Vec<V3>,
        normals: Vec<V3>,
        edges: Vec<V3>,
    },
}

/// One link primitive ready for the exact primitive–cell test.
#[derive(Debug, Clone)]
pub struct PrimOracle {
    /// Kernel link index.
    pub link: usize,
    solid: Solid,
    sphere_c: V3,
    sphere_r: f64,
}

/// Every primitive of `model`, in model order (link by link).
pub fn prim_oracles(model: &Model) -> Vec<PrimOracle> {
    let mut out = vec![];
    for (link, l) in model.links().iter().enumerate() {
        for p in &l.primitives {
            let solid = match p {
                &Primitive::Capsule { a, b, radius } => Solid::Capsule { a, b, radius },
                Primitive::Box(b) => {
                    let pts = (0..8)
                        .map(|k| {
                            let s = |j: usize| if k & (1 << j) == 0 { 1.0 } else { -1.0 };
                            let local = [0, 1, 2].map(|j| s(j) * b.half_extents[j]);
                            add(mul_mv(&b.rotation, local), b.center)
                        })
                        .collect();
                    let axes: Vec<V3> = (0..3)
                        .map(|j| [b.rotation[0][j], b.rotation[1][j], b.rotation[2][j]])
                        .collect();
                    Solid::Poly {
                        points: pts,
                        normals: axes.clone(),
                        edges: axes,
                    }
                }
                Primitive::Tight(t) => {
                    poly_of(&model.hull_vertices()[t.hull_offset..t.hull_offset + t.hull_len])
                }
            };
            let (sphere_c, sphere_r) = match &solid {
                Solid::Capsule { a, b, radius } => {
                    (scale(add(*a, *b), 0.5), 0.5 * norm(sub(*b, *a)) + radius)
                }
                Solid::Poly { points, .. } => {
                    let c = scale(
                        points.iter().fold([0.0; 3], |s, p| add(s, *p)),
                        1.0 / points.len() as f64,
                    );
                    let r = points.iter().map(|p| norm(sub(*p, c))).fold(0.0, f64::max);
                    // Rounding of the placed centre must not drop a vertex from the ball.
                    (c, r * (1.0 + 1e-9) + 1e-12)
                }
            };
            out.push(PrimOracle {
                link,
                solid,
                sphere_c,
                sphere_r,
            });
        }
    }
    out
}

/// A hull's separating directions from parry3d-f64's convex hull of its points: each hull
/// triangle's normal and edges; when the points are flat (a single plane), also each
/// edge's in-plane normal (the sides of a polygon of no thickness).
fn poly_of(points: &[V3]) -> Solid {
    let pv: Vec<parry3d_f64::math::Vector> = points
        .iter()
        .map(|p| parry3d_f64::math::Vector::new(p[0], p[1], p[2]))
        .collect();
    let (verts, tris) = parry3d_f64::transformation::convex_hull(&pv);
    let v: Vec<V3> = verts.iter().map(|p| [p.x, p.y, p.z]).collect();
    let unit = |d: V3| {
        let l = norm(d);
        (l > 1e-300).then(|| scale(d, 1.0 / l))
    };
    let mut normals = vec![];
    let mut edge_set = BTreeSet::new();
    for t in &tris {
        let [a, b, c] = t.map(|i| v[i as usize]);
        normals.extend(unit(cross(sub(b, a), sub(c, a))));
        for (i, j) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
            edge_set.insert((i.min(j), i.max(j)));
        }
    }
    let mut edges: Vec<V3> = edge_set
        .iter()
        .filter_map(|&(i, j)| unit(sub(v[j as usize], v[i as usize])))
        .collect();
    // Flat: every vertex within rounding of the first normal's plane (or no triangle at
    // all: a segment or a point, whose own direction is its only edge).
    let size = points
        .iter()
        .flat_map(|p| p.iter())
        .fold(0.0f64, |m, x| m.max(x.abs()));
    let flat = normals.first().is_none_or(|n| {
        let o = dot(*n, v[0]);
        v.iter()
            .all(|p| (dot(*n, *p) - o).abs() <= 1e-9 * size.max(1e-3))
    });
    if flat {
        if let Some(&n) = normals.first() {
            let side: Vec<V3> = edges.iter().filter_map(|e| unit(cross(n, *e))).collect();
            normals.extend(side);
        } else if points.len() > 1 {
            // Colinear or a point: the segment between the two extreme points.
            let far = points
                .iter()
                .max_by(|p, q| norm2(sub(**p, points[0])).total_cmp(&norm2(sub(**q, points[0]))))
                .copied()
                .unwrap_or(points[0]);
            edges.extend(unit(sub(far, points[0])));
        }
    }
    Solid::Poly {
        points: if v.is_empty() { points.to_vec() } else { v },
        normals,
        edges,
    }
}

/// Interval of `points` projected on `n`.
fn project(points: &[V3], n: V3) -> (f64, f64) {
    points
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            let d = dot(*p, n);
            (lo.min(d), hi.max(d))
        })
}

/// Is some axis a separating one between `points` and the cube (`c`, `h`)?
fn separated_on(points: &[V3], c: V3, h: f64, n: V3) -> bool {
    let (lo, hi) = project(points, n);
    let cc = dot(c, n);
    let cr = h * (n[0].abs() + n[1].abs() + n[2].abs());
    lo > cc + cr || hi < cc - cr
}

const AXES: [V3; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

/// The least distance from segment `a`–`b` to the cube: the point–cube distance is convex
/// along a segment, so a golden-section search ([`minimize`]) finds it, with both ends.
fn segment_cube(a: V3, b: V3, c: V3, h: f64) -> f64 {
    let d = sub(b, a);
    let f = |t: f64| point_cube(add(a, scale(d, t)), c, h);
    let (t, _) = minimize(&f, 0.0, 1.0, 8, 120);
    f(t).min(f(0.0)).min(f(1.0))
}

impl PrimOracle {
    /// Does the primitive, its link placed by `rot` and `pos`, touch an occupied cell's
    /// box (distance 0 or overlap)? A non-finite placement counts as touching.
    pub fn on_cells(&self, grid: &OccupancyGrid, rot: &Mat3, pos: V3) -> bool {
        let place = |v: V3| add(mul_mv(rot, v), pos);
        if !ball_near_cells(grid, place(self.sphere_c), self.sphere_r) {
            return false;
        }
        let h = 0.5 * grid.pitch();
        match &self.solid {
            &Solid::Capsule { a, b, radius } => {
                let (a, b) = (place(a), place(b));
                let lo = [0, 1, 2].map(|k| a[k].min(b[k]) - radius);
                let hi = [0, 1, 2].map(|k| a[k].max(b[k]) + radius);
                let Some((wlo, whi)) = cell_range(grid, lo, hi) else {
                    return true;
                };
                grid.for_each_in(wlo, whi, |cell| {
                    segment_cube(a, b, grid.cell_center(cell), h) <= radius
                })
            }
            Solid::Poly {
                points,
                normals,
                edges,
            } => {
                let pts: Vec<V3> = points.iter().map(|p| place(*p)).collect();
                let normals: Vec<V3> = normals.iter().map(|n| mul_mv(rot, *n)).collect();
                let crosses: Vec<V3> = edges
                    .iter()
                    .flat_map(|e| {
                        let e = mul_mv(rot, *e);
                        AXES.map(|x| cross(e, x))
                    })
                    .filter(|n| norm2(*n) > 1e-24)
                    .collect();
                let (lo, hi) = AXES
                    .iter()
                    .fold(([0.0; 3], [0.0; 3]), |(mut lo, mut hi), x| {
                        let (l, u) = project(&pts, *x);
                        let a = x.iter().position(|&v| v == 1.0).unwrap_or(0);
                        lo[a] = l;
                        hi[a] = u;
                        (lo, hi)
                    });
                let Some((wlo, whi)) = cell_range(grid, lo, hi) else {
                    return true;
                };
                grid.for_each_in(wlo, whi, |cell| {
                    let c = grid.cell_center(cell);
                    !AXES
                        .iter()
                        .chain(&normals)
                        .chain(&crosses)
                        .any(|n| separated_on(&pts, c, h, *n))
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::vec3::IDENTITY;

    fn one_cell() -> OccupancyGrid {
        // Cell (0, 0, 0): the box [0, 0.1]^3.
        OccupancyGrid::from_cells([0.0; 3], 0.1, &[[0, 0, 0]]).unwrap()
    }

    #[test]
    fn segment_cube_matches_hand_values() {
        let c = [0.05; 3];
        // Parallel to a face, 0.03 above it.
        assert!(
            (segment_cube([-1.0, 0.05, 0.13], [1.0, 0.05, 0.13], c, 0.05) - 0.03).abs() < 1e-12
        );
        // Past an edge: (0.13, 0.13) from the edge at (0.1, 0.1), distance 0.03·√2.
        let d = segment_cube([0.13, 0.13, -1.0], [0.13, 0.13, 1.0], c, 0.05);
        assert!((d - 0.03 * 2f64.sqrt()).abs() < 1e-12, "{d}");
        // Through the cube.
        assert_eq!(
            segment_cube([-1.0, 0.05, 0.05], [1.0, 0.05, 0.05], c, 0.05),
            0.0
        );
    }

    #[test]
    fn polytope_sat_uses_the_solids_face_normals() {
        // A square rod along x, turned 45° about x (a diamond in y-z), beside the cell's
        // edge along x at (y, z) = (0.1, 0.1), its centre at (0.1 + d, 0.1 + d): its face
        // of normal (0, -1, -1)/√2 lies `half` from the centre, so it touches at
        // d = half/√2, where neither the y nor the z axis separates (they do only past
        // d = half·√2): only the rod's own face normal shows the gap.
        let grid = one_cell();
        let s = std::f64::consts::FRAC_1_SQRT_2;
        let rot = [[1.0, 0.0, 0.0], [0.0, s, -s], [0.0, s, s]];
        let half = 0.02;
        let link = crate::kernel::Link {
            name: "rod".into(),
            parent: None,
            joint: crate::kernel::Joint::fixed("j", [0.0; 3], [0.0; 3]),
            primitives: vec![Primitive::Box(crate::kernel::BoxShape {
                center: [0.0; 3],
                rotation: rot,
                half_extents: [0.5, half, half],
            })],
        };
        let m = Model::new(vec![link], vec![], crate::kernel::Acm::new(1), 0.0).unwrap();
        let o = &prim_oracles(&m)[0];
        let at = |d: f64| o.on_cells(&grid, &IDENTITY, [0.05, 0.1 + d, 0.1 + d]);
        let touch = half * s;
        assert!(at(touch - 1e-7));
        assert!(!at(touch + 1e-7));
        assert!(!at(0.5 * (touch + half * 2f64.sqrt())));
    }

    #[test]
    fn mesh_on_cells_is_exact_on_the_cell_as_written() {
        let grid = one_cell();
        let mesh = TriMesh {
            vertices: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            triangles: vec![[0, 1, 2]],
        };
        let sphere = ([0.3, 0.3, 0.0], 1.0);
        assert!(mesh_on_cells(
            &grid,
            &mesh,
            sphere,
            &IDENTITY,
            [0.0, 0.0, 0.1]
        ));
        assert!(!mesh_on_cells(
            &grid,
            &mesh,
            sphere,
            &IDENTITY,
            [0.0, 0.0, 0.1 + 1e-7]
        ));
    }
}
