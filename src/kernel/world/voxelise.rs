//! Building an occupancy grid from a point cloud or a triangle mesh, conservatively: every
//! point lies in (the closed box of) an occupied cell, and every cell the mesh's surface
//! touches is occupied.
//!
//! Rounding: a point whose lattice coordinate `(p − origin) / pitch` lies within
//! [`EDGE_EPS`] (in cells) of a cell boundary occupies the cells on both sides, and a
//! triangle is tested against each cell's box grown by [`EDGE_EPS`] of the pitch, so the
//! `f64` arithmetic here never drops a cell the exact point or surface touches (it may
//! add a neighbour the surface only grazes to within a few nanometres).

use super::super::vec3::{V3, cross, dot, finite, sub};
use super::grid::{MAX_CELLS, MAX_INDEX, OccupancyGrid, check_lattice};

/// The boundary tolerance, in cells (25 nm at a 25 mm pitch).
pub const EDGE_EPS: f64 = 1e-6;

/// Collects cells, deduplicating as it goes so that memory stays near the limit.
struct Cells(Vec<[i32; 3]>);

impl Cells {
    fn push(&mut self, c: [i32; 3]) -> Result<(), String> {
        self.0.push(c);
        if self.0.len() >= 2 * MAX_CELLS {
            self.0.sort_unstable();
            self.0.dedup();
            if self.0.len() > MAX_CELLS {
                return Err(format!("more than the limit of {MAX_CELLS} occupied cells"));
            }
        }
        Ok(())
    }
}

/// The lattice coordinate of `x` along one axis, checked against the index limit.
fn coord(x: f64, origin: f64, pitch: f64) -> Result<f64, String> {
    let t = (x - origin) / pitch;
    // NaN fails the comparison too.
    if t.abs() >= MAX_INDEX as f64 || t.is_nan() {
        return Err(format!(
            "{x} lies more than {MAX_INDEX} cells from the origin"
        ));
    }
    Ok(t)
}

/// The cell indices along one axis holding lattice coordinate `t` (one, or two at a
/// boundary).
fn axis_cells(t: f64) -> (i32, i32) {
    let f = t.floor();
    let lo = if t - f < EDGE_EPS { f - 1.0 } else { f };
    let hi = if f + 1.0 - t < EDGE_EPS { f + 1.0 } else { f };
    (lo as i32, hi as i32)
}

impl OccupancyGrid {
    /// The grid occupying every cell that holds a point of `points` (a point on a cell
    /// boundary occupies the cells on both sides). Errors as
    /// [`OccupancyGrid::from_cells`], and for a non-finite point (named by its index).
    pub fn from_points(points: &[V3], pitch: f64, origin: V3) -> Result<OccupancyGrid, String> {
        check_lattice(origin, pitch)?;
        let mut cells = Cells(Vec::with_capacity(points.len().min(MAX_CELLS)));
        for (n, p) in points.iter().enumerate() {
            if !finite(*p) {
                return Err(format!("point {n} is {p:?}, expected finite numbers"));
            }
            let mut r = [(0, 0); 3];
            for a in 0..3 {
                r[a] = axis_cells(
                    coord(p[a], origin[a], pitch).map_err(|e| format!("point {n}: {e}"))?,
                );
            }
            for k in r[2].0..=r[2].1 {
                for j in r[1].0..=r[1].1 {
                    for i in r[0].0..=r[0].1 {
                        cells
                            .push([i, j, k])
                            .map_err(|e| format!("point {n}: {e}"))?;
                    }
                }
            }
        }
        OccupancyGrid::from_cells(origin, pitch, &cells.0)
    }

    /// The grid occupying every cell the surface of the triangle mesh `vertices` /
    /// `triangles` touches (each cell's closed box grown by [`EDGE_EPS`] of the pitch,
    /// tested exactly by separating axes: the box axes, the triangle's normal and the nine
    /// edge–axis cross products). Only the surface: a closed mesh's inside is not filled.
    /// Errors as [`OccupancyGrid::from_cells`], and for a non-finite vertex or a triangle
    /// naming a vertex that does not exist.
    pub fn from_triangles(
        vertices: &[V3],
        triangles: &[[u32; 3]],
        pitch: f64,
        origin: V3,
    ) -> Result<OccupancyGrid, String> {
        check_lattice(origin, pitch)?;
        if let Some(n) = vertices.iter().position(|v| !finite(*v)) {
            return Err(format!(
                "vertex {n} is {:?}, expected finite numbers",
                vertices[n]
            ));
        }
        let mut cells = Cells(Vec::new());
        let grow = EDGE_EPS * pitch;
        for (n, t) in triangles.iter().enumerate() {
            let Some(v) = t
                .iter()
                .map(|&i| vertices.get(i as usize).copied())
                .collect::<Option<Vec<V3>>>()
            else {
                return Err(format!(
                    "triangle {n} names vertex {t:?}, the mesh has {} vertices",
                    vertices.len()
                ));
            };
            let v = [v[0], v[1], v[2]];
            let mut r = [(0i32, 0i32); 3];
            let mut count: u128 = 1;
            for a in 0..3 {
                let lo = v[0][a].min(v[1][a]).min(v[2][a]);
                let hi = v[0][a].max(v[1][a]).max(v[2][a]);
                let tl = coord(lo, origin[a], pitch).map_err(|e| format!("triangle {n}: {e}"))?;
                let th = coord(hi, origin[a], pitch).map_err(|e| format!("triangle {n}: {e}"))?;
                r[a] = (axis_cells(tl).0, axis_cells(th).1);
                count *= (r[a].1 - r[a].0 + 1) as u128;
            }
            if count > MAX_CELLS as u128 {
                return Err(format!(
                    "triangle {n} spans {count} cells, more than the limit of {MAX_CELLS}"
                ));
            }
            let h = 0.5 * pitch + grow;
            for k in r[2].0..=r[2].1 {
                for j in r[1].0..=r[1].1 {
                    for i in r[0].0..=r[0].1 {
                        let c = [i, j, k].map(f64::from);
                        let centre = [0, 1, 2].map(|a| origin[a] + pitch * (c[a] + 0.5));
                        if triangle_touches_box(&v, centre, h) {
                            cells
                                .push([i, j, k])
                                .map_err(|e| format!("triangle {n}: {e}"))?;
                        }
                    }
                }
            }
        }
        OccupancyGrid::from_cells(origin, pitch, &cells.0)
    }
}

/// Whether triangle `v` meets the closed cube of centre `c` and half side `h` (separating
/// axis test, Akenine-Möller), with a relative rounding slack that can only keep a cell. A
/// degenerate triangle (a segment or a point) has no normal; its zero axes never separate,
/// and the remaining ones are that segment's or point's own separating axes.
pub fn triangle_touches_box(v: &[V3; 3], c: V3, h: f64) -> bool {
    let p = [sub(v[0], c), sub(v[1], c), sub(v[2], c)];
    // The box's own axes.
    if (0..3).any(|a| {
        let lo = p[0][a].min(p[1][a]).min(p[2][a]);
        let hi = p[0][a].max(p[1][a]).max(p[2][a]);
        lo > h || hi < -h
    }) {
        return false;
    }
    let e = [sub(p[1], p[0]), sub(p[2], p[1]), sub(p[0], p[2])];
    // The triangle's normal.
    let nrm = cross(e[0], e[1]);
    let r = h * (nrm[0].abs() + nrm[1].abs() + nrm[2].abs());
    let d = dot(nrm, p[0]);
    if d.abs() > r * (1.0 + 1e-12) {
        return false;
    }
    // Edge × box axis.
    for ei in e {
        for a in 0..3 {
            let mut ax = [0.0; 3];
            ax[a] = 1.0;
            let l = cross(ei, ax);
            let pr = [dot(l, p[0]), dot(l, p[1]), dot(l, p[2])];
            let lo = pr[0].min(pr[1]).min(pr[2]);
            let hi = pr[0].max(pr[1]).max(pr[2]);
            let rad = h * (l[0].abs() + l[1].abs() + l[2].abs());
            let slack = 1e-12 * (rad + lo.abs().max(hi.abs()));
            if lo > rad + slack || hi < -rad - slack {
                return false;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_point_on_a_boundary_occupies_both_sides() {
        let g = OccupancyGrid::from_points(&[[0.05, 0.01, 0.01]], 0.025, [0.0; 3]).unwrap();
        assert_eq!(g.cells(), vec![[1, 0, 0], [2, 0, 0]]);
        let g = OccupancyGrid::from_points(&[[0.03, 0.01, 0.01]], 0.025, [0.0; 3]).unwrap();
        assert_eq!(g.cells(), vec![[1, 0, 0]]);
        assert!(OccupancyGrid::from_points(&[[f64::NAN, 0.0, 0.0]], 0.025, [0.0; 3]).is_err());
        assert!(OccupancyGrid::from_points(&[[1e12, 0.0, 0.0]], 0.025, [0.0; 3]).is_err());
    }

    #[test]
    fn a_diagonal_triangle_keeps_only_the_cells_it_crosses() {
        // The triangle x + y + z = 1.5 (pitch 1, origin 0) with corners on the axes at 1.5:
        // it crosses the plane region of cells with i + j + k <= 1 < i + j + k + 3.
        let v = [[1.5, 0.0, 0.0], [0.0, 1.5, 0.0], [0.0, 0.0, 1.5]];
        let g = OccupancyGrid::from_triangles(&v, &[[0, 1, 2]], 1.0, [0.0; 3]).unwrap();
        let cells = g.cells();
        // Cell (1,1,1) (corner (1,1,1), sum 3 > 1.5) is out; (0,0,0) is in; (1,0,0) is in.
        assert!(!cells.contains(&[1, 1, 1]));
        assert!(cells.contains(&[0, 0, 0]) && cells.contains(&[1, 0, 0]));
        assert!(OccupancyGrid::from_triangles(&v, &[[0, 1, 3]], 1.0, [0.0; 3]).is_err());
    }
}
