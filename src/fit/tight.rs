//! Tight geometry: a box, a 26-DOP in the box's written frame and a hull of at
//! most 320 vertices, per piece.
//!
//! Per piece (the whole link, or one piece of its decomposition):
//! 1. the exact hull and the minimum-volume box; the box's rpy is rounded and
//!    everything after is derived in the frame rebuilt from the rounded rpy;
//! 2. the hull grown by `hull_headroom + HULL_ROUND_SLACK` (no headroom by
//!    default: under a micrometre): the exact hull's vertices pushed out when
//!    it has at most 320 vertices, otherwise (or for flat or needle-sharp
//!    hulls) the outer polytope of tangent planes over a direction set grown
//!    from the DOP's 26 directions (`geom::polytope`); its vertices are then
//!    rounded to 6 decimals (1 µm, finer than the other numbers), which keeps
//!    the truth inside with `hull_headroom`;
//! 3. the box's centre and half extents re-derived to hold the piece with
//!    `hull_headroom` and the rounded hull; the DOP's 26 values are the rounded
//!    hull's support values, rounded up.
//!
//! A decomposed link (`fit_tight` with several pieces, `decompose`) gets one
//! such fit per piece.

use super::rounding::{self, BoxPrim, HULL_ROUND_SLACK};
use super::{FitError, FitOptions, TightBox};
use crate::geom::containment::HullPlanes;
use crate::geom::hull::{self, Hull};
use crate::geom::v3::{self, V3};
use crate::geom::{dop26, obb, polytope};

/// Per-piece facts of a tight fit, for the report.
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
    let h = opts.hull_headroom;
    let exact = Hull::new(points);
    let fitted = obb::fit_obb(&exact, h).ok_or(FitError::Empty)?;
    let (_, frame) = rounding::rounded_frame(&fitted.rot);
    let pad = h + HULL_ROUND_SLACK;
    let base: Vec<V3> = dop26::DIRS.iter().map(|u| v3::mul_mv(&frame, *u)).collect();
    let max = opts.max_hull_vertices;

    // Round, deduplicate, and check every point of the piece keeps the
    // headroom (the constructions guarantee it; this guards against a hull
    // routine's numerical failure, falling back to the next construction).
    let need = h * (1.0 - 1e-9);
    let finish = |w: Vec<V3>| -> Option<(Vec<V3>, f64)> {
        let w = hull::dedup_points(&w.into_iter().map(rounding::round6_v).collect::<Vec<_>>());
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
            // A flat sliver (a decomposition piece that is one face and its seam) can
            // round to a degenerate polytope at the pad: the DOP is grown until its
            // rounded vertices span a solid, at most a millimetre.
            let (w, e) = [pad, 1e-5, 1e-4, 1e-3]
                .into_iter()
                .filter(|p| *p >= pad)
                .find_map(|p| {
                    let offs: Vec<f64> = base.iter().map(|u| exact.support(*u) + p).collect();
                    finish(polytope::halfspace_vertices_brute(&base, &offs))
                })
                .ok_or_else(|| {
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
        hull_excess_m: rounding::round6(excess),
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
