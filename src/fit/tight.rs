//! Tight geometry: a box, a 26-DOP in the box's written frame and a hull of at
//! most 320 vertices, per slab.
//!
//! Per piece (the whole link, or one slab's piece of the surface):
//! 1. the exact hull and the minimum-volume box; the box's rpy is rounded and
//!    everything after is derived in the frame rebuilt from the rounded rpy;
//! 2. the hull grown by `headroom + ROUND_SLACK`: the exact hull's vertices
//!    pushed out when it has at most 320 vertices, otherwise (or for flat or
//!    needle-sharp hulls) the outer polytope of tangent planes over a direction
//!    set grown from the DOP's 26 directions (`geom::polytope`); its vertices
//!    are then rounded to 4 decimals, which keeps the truth inside with
//!    `headroom`;
//! 3. the box's centre and half extents re-derived to hold the piece with
//!    `headroom` and the rounded hull; the DOP's 26 values are the rounded
//!    hull's support values, rounded up.
//!
//! Slab cuts (`fit_tight` with N > 1): along each of the link box's three axes,
//! a 16-step grid of candidate planes; the hull volume of every piece between
//! two grid planes (vertices between them plus the surface's cross-sections
//! at both planes); a dynamic programme picks the N - 1 planes of least total
//! hull volume; the best axis wins (ties to the longer), and each plane is then
//! refined by a shrinking local search (two halvings of half a grid step) on
//! the split pieces. Volumes in the search are those of the pieces' support
//! points in 128 directions (a consistent slight underestimate), which makes
//! the whole search cost a few hull computations on at most 128 points each.

use super::rounding::{self, BoxPrim, ROUND_SLACK};
use super::{FitError, FitOptions, TightBox};
use crate::geom::chain::{self, Cuts};
use crate::geom::containment::HullPlanes;
use crate::geom::hull::{self, Hull};
use crate::geom::mesh::TriMesh;
use crate::geom::v3::{self, V3};
use crate::geom::{dop26, obb, polytope, support};

/// Per-slab facts of a tight fit, for the report.
#[derive(Debug, Clone, PartialEq)]
pub struct TightSlabInfo {
    /// Vertices of the piece's exact convex hull.
    pub exact_hull_vertices: usize,
    /// Vertices written (at most 320).
    pub hull_vertices: usize,
    /// True when the written hull is the outer polytope of tangent planes
    /// (exact hull over budget, or flat / needle-sharp), false when it is the
    /// exact hull's vertices pushed out by the headroom.
    pub outer_polytope: bool,
    /// Largest support excess of the written hull over the piece's exact hull,
    /// over the metric directions (m, 4 decimals; includes the headroom).
    pub hull_excess_m: f64,
    /// Written hull volume over the piece's exact hull volume (`None` for a
    /// flat piece).
    pub hull_vol_ratio: Option<f64>,
}

/// The tight geometry of one piece (module doc, steps 1-3).
pub(super) fn tight_piece(
    points: &[V3],
    opts: &FitOptions,
    dirs: &[V3],
) -> Result<(TightBox, TightSlabInfo), FitError> {
    let h = opts.headroom;
    let exact = Hull::new(points);
    let fitted = obb::fit_obb(&exact, h).ok_or(FitError::Empty)?;
    let (_, frame) = rounding::rounded_frame(&fitted.rot);
    let pad = h + ROUND_SLACK;
    let base: Vec<V3> = dop26::DIRS.iter().map(|u| v3::mul(&frame, *u)).collect();
    let max = opts.max_hull_vertices;

    // Round, deduplicate, and check every point of the piece keeps the
    // headroom (the constructions guarantee it; this guards against a hull
    // routine's numerical failure, falling back to the next construction).
    let need = h * (1.0 - 1e-9);
    let finish = |w: Vec<V3>| -> Option<(Vec<V3>, f64)> {
        let w = hull::dedup_points(&w.into_iter().map(rounding::round4_v).collect::<Vec<_>>());
        if w.len() > max {
            return None;
        }
        let planes = HullPlanes::new(&w).ok()?;
        if !points.iter().all(|p| planes.depth(*p) >= need) {
            return None;
        }
        let excess = polytope::max_excess(&w, &exact.points, dirs);
        Some((w, excess))
    };
    let pushed = if exact.points.len() <= max {
        polytope::pushed_hull(&exact, pad).and_then(finish)
    } else {
        None
    };
    let outer = polytope::outer_polytope(&exact, pad, &base, max).and_then(finish);
    // The pushed exact hull unless the outer polytope is tighter by more than
    // the pad (a needle-sharp vertex pushed far); the 26-DOP as a last resort.
    let (w, outer, excess) = match (pushed, outer) {
        (Some(a), Some(b)) if a.1 > b.1 + pad => (b.0, true, b.1),
        (Some(a), _) => (a.0, false, a.1),
        (None, Some(b)) => (b.0, true, b.1),
        (None, None) => {
            let offs: Vec<f64> = base.iter().map(|u| exact.support(*u) + pad).collect();
            let dop = polytope::halfspace_vertices_brute(&base, &offs);
            let (w, e) = finish(dop).ok_or_else(|| {
                FitError::Internal(format!(
                    "no containing hull of at most {max} vertices for a piece of {} points",
                    points.len()
                ))
            })?;
            (w, true, e)
        }
    };
    let bbox: BoxPrim = rounding::written_box(&fitted.rot, points, h, &w);
    let dop = rounding::written_dop(&bbox, &w);
    let wvol = Hull::new(&w).volume;
    let info = TightSlabInfo {
        exact_hull_vertices: exact.points.len(),
        hull_vertices: w.len(),
        outer_polytope: outer,
        hull_excess_m: rounding::round4(excess),
        hull_vol_ratio: (exact.volume > 1e-15).then(|| rounding::round4(wvol / exact.volume)),
    };
    Ok((
        TightBox {
            bbox,
            dop26: dop,
            hull: w,
        },
        info,
    ))
}

/// Directions of the support-point sets the cut search measures volumes on.
const SEARCH_DIRS: usize = 128;

/// For each search direction, the support value and point of a set (a
/// directional coreset that can be merged in O(directions)).
#[derive(Clone)]
struct SupportSet(Vec<(f64, V3)>);

impl SupportSet {
    fn empty(k: usize) -> Self {
        SupportSet(vec![(f64::NEG_INFINITY, [0.0; 3]); k])
    }
    fn add(&mut self, dirs: &[V3], p: V3) {
        for (b, u) in self.0.iter_mut().zip(dirs) {
            let s = v3::dot(*u, p);
            if s > b.0 {
                *b = (s, p);
            }
        }
    }
    fn merge(&mut self, o: &SupportSet) {
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            if b.0 > a.0 {
                *a = *b;
            }
        }
    }
    /// Hull volume of the support points (a slight underestimate of the
    /// set's hull volume, consistent across candidate cuts).
    fn volume(&self) -> f64 {
        let pts: Vec<V3> = self
            .0
            .iter()
            .filter(|b| b.0.is_finite())
            .map(|b| b.1)
            .collect();
        Hull::new(&pts).volume
    }
}

/// Total hull volume (support-set estimate) of the slab pieces for `cuts`.
fn pieces_volume(mesh: &TriMesh, cuts: &Cuts, dirs: &[V3]) -> f64 {
    chain::slab_points(mesh, cuts)
        .iter()
        .map(|pts| {
            let mut s = SupportSet::empty(dirs.len());
            for p in pts {
                s.add(dirs, *p);
            }
            s.volume()
        })
        .sum()
}

const GRID: usize = 16;

/// Least total hull volume over cuts on the grid along `axis`, by dynamic
/// programming on piece volumes. Returns (volume, cut offsets).
fn grid_cuts(
    mesh: &TriMesh,
    axis: V3,
    n: usize,
    tmin: f64,
    tmax: f64,
    dirs: &[V3],
) -> (f64, Vec<f64>) {
    let k = dirs.len();
    let step = (tmax - tmin) / GRID as f64;
    let plane = |g: usize| {
        if g == GRID {
            tmax
        } else {
            tmin + step * g as f64
        }
    };
    // Support sets of the mesh vertices in each bin.
    let mut bins = vec![SupportSet::empty(k); GRID];
    for p in &mesh.vertices {
        let b = (((v3::dot(axis, *p) - tmin) / step).floor().max(0.0) as usize).min(GRID - 1);
        bins[b].add(dirs, *p);
    }
    // Support sets of the surface's cross-sections at each interior grid plane.
    let mut sections = vec![SupportSet::empty(k); GRID + 1];
    for t in &mesh.triangles {
        let tri = [
            mesh.vertices[t[0] as usize],
            mesh.vertices[t[1] as usize],
            mesh.vertices[t[2] as usize],
        ];
        for e in 0..3 {
            let (p, q) = (tri[e], tri[(e + 1) % 3]);
            let (tp, tq) = (v3::dot(axis, p), v3::dot(axis, q));
            let (lo, hi) = (tp.min(tq), tp.max(tq));
            let g0 = (((lo - tmin) / step).floor().max(0.0) as usize + 1).min(GRID);
            for (g, section) in sections.iter_mut().enumerate().take(GRID).skip(g0) {
                let c = plane(g);
                if c >= hi {
                    break;
                }
                if c > lo {
                    section.add(dirs, v3::lerp(p, q, (c - tp) / (tq - tp)));
                }
            }
        }
    }
    // cost[i][j]: hull volume of the piece between grid planes i < j.
    let mut cost = vec![vec![f64::INFINITY; GRID + 1]; GRID + 1];
    for i in 0..GRID {
        let mut acc = sections[i].clone();
        for j in i + 1..=GRID {
            acc.merge(&bins[j - 1]);
            let mut piece = acc.clone();
            piece.merge(&sections[j]);
            cost[i][j] = piece.volume();
        }
    }
    // best[k][j]: least volume of k pieces covering planes 0..j; from[k][j] the previous plane.
    let mut best = vec![vec![f64::INFINITY; GRID + 1]; n + 1];
    let mut from = vec![vec![0usize; GRID + 1]; n + 1];
    best[0][0] = 0.0;
    for k in 1..=n {
        for j in 1..=GRID {
            for i in 0..j {
                let v = best[k - 1][i] + cost[i][j];
                if v < best[k][j] {
                    best[k][j] = v;
                    from[k][j] = i;
                }
            }
        }
    }
    let mut idx = Vec::new();
    let mut j = GRID;
    for k in (1..=n).rev() {
        j = from[k][j];
        if k > 1 {
            idx.push(j);
        }
    }
    idx.reverse();
    (best[n][GRID], idx.into_iter().map(plane).collect())
}

/// Slab cuts of least total hull volume (module doc); `None` when the link
/// has no extent to cut.
pub(super) fn best_cuts(mesh: &TriMesh, axes: [V3; 3], n: usize) -> Option<Cuts> {
    let mut ranked: Vec<(f64, V3, f64, f64)> = axes
        .iter()
        .map(|a| {
            let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
            for p in &mesh.vertices {
                let t = v3::dot(*a, *p);
                lo = lo.min(t);
                hi = hi.max(t);
            }
            (hi - lo, *a, lo, hi)
        })
        .collect();
    ranked.sort_by(|x, y| y.0.total_cmp(&x.0));
    let dirs = support::fibonacci_directions(SEARCH_DIRS);
    let mut best: Option<(f64, Cuts, f64)> = None;
    for (len, axis, lo, hi) in ranked {
        if len <= 1e-6 {
            continue;
        }
        let (vol, offsets) = grid_cuts(mesh, axis, n, lo, hi, &dirs);
        if offsets.len() + 1 != n {
            continue;
        }
        if best.as_ref().is_none_or(|b| vol < b.0 * (1.0 - 1e-9)) {
            best = Some((
                vol,
                Cuts {
                    normal: axis,
                    offsets,
                },
                len / GRID as f64,
            ));
        }
    }
    let (_, mut cuts, step) = best?;
    // Local refinement on the exact pieces.
    let mut cur = pieces_volume(mesh, &cuts, &dirs);
    let mut delta = step / 2.0;
    for _ in 0..2 {
        for k in 0..cuts.offsets.len() {
            for sign in [-1.0, 1.0] {
                let mut c = cuts.clone();
                c.offsets[k] += sign * delta;
                let lo = if k == 0 {
                    f64::NEG_INFINITY
                } else {
                    c.offsets[k - 1]
                };
                let hi = c.offsets.get(k + 1).copied().unwrap_or(f64::INFINITY);
                if !(c.offsets[k] > lo && c.offsets[k] < hi) {
                    continue;
                }
                let v = pieces_volume(mesh, &c, &dirs);
                if v < cur * (1.0 - 1e-9) {
                    cur = v;
                    cuts = c;
                    break;
                }
            }
        }
        delta /= 2.0;
    }
    Some(cuts)
}
