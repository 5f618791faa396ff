//! Orthographic pictures of one link: the truth mesh's silhouette and its primitives'
//! outlines, in the xy, xz and yz planes of the link frame, as inline SVG.
//!
//! The silhouette is the set of grid cells (a `GRID`-cell square per view) whose centre lies
//! in some projected truth triangle or that hold a projected vertex, drawn as one path of
//! row runs: concavities stay visible, and the size does not grow with the mesh. Each
//! primitive is drawn as the outline of its projection: a capsule as the 2D hull of its two
//! end circles, a box as the hull of its corners, a tight box as its hull's outline (solid)
//! inside its box (dashed). All three views share one scale, so sizes compare.

use crate::geom::hull::convex_hull_2d;
use crate::geom::mesh::TriMesh;
use crate::kernel::vec3::{Iso, rot_from_rpy};
use crate::manifest::Primitive;
use crate::text::escape;
use std::fmt::Write as _;

/// Silhouette cells per side.
const GRID: usize = 96;
/// Picture side in pixels (the view square plus a small border).
const SIDE: f64 = 168.0;
const BORDER: f64 = 6.0;
/// Strip at the top for the view's label.
const LABEL: f64 = 12.0;

/// The three views: (name, horizontal axis, vertical axis).
pub const VIEWS: [(&str, usize, usize); 3] = [("xy", 0, 1), ("xz", 0, 2), ("yz", 1, 2)];

type P2 = [f64; 2];

/// A primitive's outline in one view of its link frame, as polygons with a style class.
fn outlines(p: &Primitive, h: usize, v: usize) -> Vec<(&'static str, Vec<P2>)> {
    outlines_at(p, &Iso::IDENTITY, h, v)
}

/// A primitive's outline in one view, the primitive placed at `at` (link frame to world).
fn outlines_at(p: &Primitive, at: &Iso, h: usize, v: usize) -> Vec<(&'static str, Vec<P2>)> {
    let hull2 =
        |pts: &[P2]| -> Vec<P2> { convex_hull_2d(pts).into_iter().map(|i| pts[i]).collect() };
    match p {
        Primitive::Capsule(c) => {
            let mut pts = Vec::with_capacity(64);
            for e in [at.transform_point(c.a), at.transform_point(c.b)] {
                for k in 0..32 {
                    let t = k as f64 * std::f64::consts::TAU / 32.0;
                    // The circle is circumscribed by the polygon: radius / cos(pi / 32).
                    let r = c.radius / (std::f64::consts::PI / 32.0).cos();
                    pts.push([e[h] + r * t.cos(), e[v] + r * t.sin()]);
                }
            }
            vec![("capsule", hull2(&pts))]
        }
        Primitive::Box(b) => {
            let r = rot_from_rpy(b.rpy);
            let mut corners = Vec::with_capacity(8);
            for i in 0..8 {
                let s = |k: usize| if i & (1 << k) == 0 { -1.0 } else { 1.0 };
                let local = [
                    s(0) * b.half_extents[0],
                    s(1) * b.half_extents[1],
                    s(2) * b.half_extents[2],
                ];
                let mut w = b.center;
                for (row, wr) in w.iter_mut().enumerate() {
                    *wr += r[row][0] * local[0] + r[row][1] * local[1] + r[row][2] * local[2];
                }
                let w = at.transform_point(w);
                corners.push([w[h], w[v]]);
            }
            match b.tight() {
                None => vec![("box", hull2(&corners))],
                Some((_, hull)) => {
                    let pts: Vec<P2> = hull
                        .iter()
                        .map(|&w| at.transform_point(w))
                        .map(|w| [w[h], w[v]])
                        .collect();
                    vec![("tight-box", hull2(&corners)), ("hull", hull2(&pts))]
                }
            }
        }
    }
}

/// Link-frame bounding box of the primitives and the mesh.
fn bounds(mesh: &TriMesh, prims: &[Primitive]) -> ([f64; 3], [f64; 3]) {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    let mut add = |p: [f64; 3], r: [f64; 3]| {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k] - r[k]);
            hi[k] = hi[k].max(p[k] + r[k]);
        }
    };
    for p in &mesh.vertices {
        add(*p, [0.0; 3]);
    }
    for p in prims {
        match p {
            Primitive::Capsule(c) => {
                add(c.a, [c.radius; 3]);
                add(c.b, [c.radius; 3]);
            }
            Primitive::Box(b) => {
                let r = rot_from_rpy(b.rpy);
                let ext =
                    [0, 1, 2].map(|row| (0..3).map(|k| r[row][k].abs() * b.half_extents[k]).sum());
                add(b.center, ext);
            }
        }
    }
    if lo[0] > hi[0] {
        return ([-0.05; 3], [0.05; 3]);
    }
    (lo, hi)
}

/// Cells of the silhouette: row-major `GRID × GRID`, row 0 at the top.
fn silhouette(mesh: &TriMesh, h: usize, v: usize, to_cell: impl Fn(f64, f64) -> P2) -> Vec<bool> {
    let mut cells = vec![false; GRID * GRID];
    fill_silhouette(&mut cells, GRID, mesh, &Iso::IDENTITY, h, v, &to_cell);
    cells
}

/// Marks in `cells` (row-major `grid × grid`, row 0 at the top) every cell whose centre
/// lies in a projected triangle of `mesh` placed at `at`, or that holds a projected vertex.
fn fill_silhouette(
    cells: &mut [bool],
    grid: usize,
    mesh: &TriMesh,
    at: &Iso,
    h: usize,
    v: usize,
    to_cell: &dyn Fn(f64, f64) -> P2,
) {
    let g = grid as f64;
    let mut mark = |cx: f64, cy: f64| {
        if cx >= 0.0 && cy >= 0.0 && cx < g && cy < g {
            cells[cy as usize * grid + cx as usize] = true;
        }
    };
    let proj: Vec<P2> = mesh
        .vertices
        .iter()
        .map(|&p| {
            let p = at.transform_point(p);
            to_cell(p[h], p[v])
        })
        .collect();
    for p in &proj {
        mark(p[0], p[1]);
    }
    for t in &mesh.triangles {
        let [a, b, c] = t.map(|i| proj[i as usize]);
        let area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
        if area == 0.0 || area.is_nan() {
            continue;
        }
        let x0 = a[0].min(b[0]).min(c[0]).floor().max(0.0) as usize;
        let x1 = (a[0].max(b[0]).max(c[0]).ceil().max(0.0) as usize).min(grid);
        let y0 = a[1].min(b[1]).min(c[1]).floor().max(0.0) as usize;
        let y1 = (a[1].max(b[1]).max(c[1]).ceil().max(0.0) as usize).min(grid);
        let edge =
            |p: P2, q: P2, x: f64, y: f64| (q[0] - p[0]) * (y - p[1]) - (q[1] - p[1]) * (x - p[0]);
        for y in y0..y1 {
            for x in x0..x1 {
                let (px, py) = (x as f64 + 0.5, y as f64 + 0.5);
                let (e0, e1, e2) = (edge(a, b, px, py), edge(b, c, px, py), edge(c, a, px, py));
                let inside = if area > 0.0 {
                    e0 >= 0.0 && e1 >= 0.0 && e2 >= 0.0
                } else {
                    e0 <= 0.0 && e1 <= 0.0 && e2 <= 0.0
                };
                if inside {
                    cells[y * grid + x] = true;
                }
            }
        }
    }
}

/// The filled cells as one path of row runs (cell units).
fn runs_path(cells: &[bool], grid: usize) -> String {
    let mut path = String::new();
    for y in 0..grid {
        let mut x = 0;
        while x < grid {
            if !cells[y * grid + x] {
                x += 1;
                continue;
            }
            let start = x;
            while x < grid && cells[y * grid + x] {
                x += 1;
            }
            let _ = write!(path, "M{start} {y}h{}v1h-{}z", x - start, x - start);
        }
    }
    path
}

fn polygon_points(pts: &[P2]) -> String {
    let mut s = String::new();
    for (i, p) in pts.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        let _ = write!(s, "{:.1},{:.1}", p[0], p[1]);
    }
    s
}

/// The three views of one link as `<svg>` elements (each `SIDE` pixels square).
pub fn link_views(mesh: &TriMesh, prims: &[Primitive]) -> Vec<String> {
    let (lo, hi) = bounds(mesh, prims);
    let extent = (0..3).map(|k| hi[k] - lo[k]).fold(1e-6, f64::max);
    let inner = SIDE - 2.0 * BORDER - LABEL;
    let px_per_m = inner / extent;
    let cell = inner / GRID as f64;
    VIEWS
        .iter()
        .map(|&(name, h, v)| {
            // Centre the view's own extent in the square; the vertical axis points up.
            let mid_h = 0.5 * (lo[h] + hi[h]);
            let mid_v = 0.5 * (lo[v] + hi[v]);
            let (cx, cy) = (SIDE / 2.0, LABEL + BORDER + inner / 2.0);
            let to_px = |x: f64, y: f64| -> P2 { [cx + (x - mid_h) * px_per_m, cy - (y - mid_v) * px_per_m] };
            let (ox, oy) = (cx - inner / 2.0, cy - inner / 2.0);
            let to_cell = |x: f64, y: f64| -> P2 {
                let p = to_px(x, y);
                [(p[0] - ox) / cell, (p[1] - oy) / cell]
            };
            let cells = silhouette(mesh, h, v, to_cell);
            let path = runs_path(&cells, GRID);
            let axis = |k: usize| ["x", "y", "z"][k];
            let mut svg = format!(
                "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"view\" width=\"{SIDE}\" height=\"{SIDE}\" viewBox=\"0 0 {SIDE} {SIDE}\" role=\"img\" aria-label=\"{name} view\">\
                 <rect class=\"frame\" x=\"0.5\" y=\"0.5\" width=\"{w}\" height=\"{w}\"/>\
                 <path class=\"truth\" transform=\"translate({ox:.2} {oy:.2}) scale({cell:.4})\" d=\"{path}\"/>",
                w = SIDE - 1.0
            );
            for (i, p) in prims.iter().enumerate() {
                for (class, poly) in outlines(p, h, v) {
                    let px: Vec<P2> = poly.iter().map(|q| to_px(q[0], q[1])).collect();
                    // Each convex piece of a decomposed link in its own colour.
                    let style = if class == "hull" && prims.len() > 1 {
                        format!(" style=\"stroke:{}\"", PIECE_COLOURS[i % PIECE_COLOURS.len()])
                    } else {
                        String::new()
                    };
                    let _ = write!(
                        svg,
                        "<polygon class=\"{class}\"{style} points=\"{}\"/>",
                        polygon_points(&px)
                    );
                }
            }
            let scale_mm = 1e3 * extent;
            let _ = write!(
                svg,
                "<text x=\"4\" y=\"11\" class=\"label\">{name} ({h_axis} →, {v_axis} ↑) · {scale_mm:.0} mm across</text></svg>",
                h_axis = axis(h),
                v_axis = axis(v)
            );
            svg
        })
        .collect()
}

/// One link of the whole robot, placed in the world.
pub struct PlacedLink<'a> {
    /// Link frame to world (the kernel's FK at the pose drawn).
    pub at: Iso,
    pub mesh: &'a TriMesh,
    pub prims: &'a [Primitive],
}

/// A checked pair that trips at the pose drawn: indices into the links, and the kernel's
/// distance (m, at or below the margin).
pub struct Trip {
    pub a: usize,
    pub b: usize,
    pub distance_m: f64,
}

/// Tripping pairs labelled in a whole-robot view, the deepest first: more are unreadable.
pub const LABELLED_TRIPS: usize = 5;

/// A trip label's box in pixels, `[x, baseline y, width, height]`, beside `mid` and inside
/// the view (the width estimated for the 11 px bold font, measured on rsvg's rendering).
pub fn label_box(text: &str, mid: P2) -> [f64; 4] {
    let (tw, th) = (6.8 * text.chars().count() as f64, 12.0);
    let x = (mid[0] + 3.0).min(ROBOT_SIDE - tw - 2.0).max(2.0);
    [x, mid[1] - 3.0, tw, th]
}

/// Whether two label boxes (as [`label_box`]: the y is the baseline) share any area.
pub fn boxes_overlap(p: &[f64; 4], r: &[f64; 4]) -> bool {
    p[0] < r[0] + r[2] && r[0] < p[0] + p[2] && p[1] - p[3] < r[1] && r[1] - r[3] < p[1]
}

/// Whole-robot view side in pixels, and its silhouette cells per side.
const ROBOT_SIDE: f64 = 320.0;
const ROBOT_GRID: usize = 200;

/// World points that bound a placed primitive (capsule ends with their radius, box corners).
fn primitive_points(p: &Primitive, at: &Iso) -> Vec<([f64; 3], f64)> {
    match p {
        Primitive::Capsule(c) => vec![
            (at.transform_point(c.a), c.radius),
            (at.transform_point(c.b), c.radius),
        ],
        Primitive::Box(b) => {
            let r = rot_from_rpy(b.rpy);
            (0..8)
                .map(|i| {
                    let s = |k: usize| if i & (1 << k) == 0 { -1.0 } else { 1.0 };
                    let local = [0, 1, 2].map(|k| s(k) * b.half_extents[k]);
                    let mut w = b.center;
                    for (wr, rr) in w.iter_mut().zip(&r) {
                        *wr += rr[0] * local[0] + rr[1] * local[1] + rr[2] * local[2];
                    }
                    (at.transform_point(w), 0.0)
                })
                .collect()
        }
    }
}

/// A placed primitive's bounding sphere (centre, radius), world frame.
fn primitive_sphere(p: &Primitive, at: &Iso) -> ([f64; 3], f64) {
    let pts = primitive_points(p, at);
    let n = pts.len() as f64;
    let mut c = [0.0; 3];
    for (q, _) in &pts {
        for k in 0..3 {
            c[k] += q[k] / n;
        }
    }
    let r = pts
        .iter()
        .map(|(q, r)| {
            let d: f64 = (0..3).map(|k| (q[k] - c[k]).powi(2)).sum();
            d.sqrt() + r
        })
        .fold(0.0, f64::max);
    (c, r)
}

/// Where to draw a tripping pair's mark: the centres of the two primitives (one of each
/// link) whose bounding spheres come closest.
fn trip_anchor(a: &PlacedLink, b: &PlacedLink) -> Option<([f64; 3], [f64; 3])> {
    let mut best: Option<(f64, [f64; 3], [f64; 3])> = None;
    for pa in a.prims {
        let (ca, ra) = primitive_sphere(pa, &a.at);
        for pb in b.prims {
            let (cb, rb) = primitive_sphere(pb, &b.at);
            let d = (0..3).map(|k| (ca[k] - cb[k]).powi(2)).sum::<f64>().sqrt() - ra - rb;
            if best.is_none_or(|(bd, ..)| d < bd) {
                best = Some((d, ca, cb));
            }
        }
    }
    best.map(|(_, ca, cb)| (ca, cb))
}

/// The whole robot in three orthographic views of the world frame (xy from above, xz and
/// yz from the side), one scale for the three: every link's mesh as one silhouette, every
/// primitive's outline over it, and each pair of `trips` in red (both links' primitives)
/// with a line between them; the [`LABELLED_TRIPS`] deepest are labelled with their number
/// (their place in `trips`, from 1) and the kernel's distance in mm, no two labels overlapping.
pub fn robot_views(links: &[PlacedLink], trips: &[Trip]) -> Vec<String> {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    let mut add = |p: [f64; 3], r: f64| {
        if p.iter().all(|x| x.is_finite()) {
            for k in 0..3 {
                lo[k] = lo[k].min(p[k] - r);
                hi[k] = hi[k].max(p[k] + r);
            }
        }
    };
    for l in links {
        for &v in &l.mesh.vertices {
            add(l.at.transform_point(v), 0.0);
        }
        for p in l.prims {
            for (q, r) in primitive_points(p, &l.at) {
                add(q, r);
            }
        }
    }
    if lo[0] > hi[0] {
        (lo, hi) = ([-0.05; 3], [0.05; 3]);
    }
    let tripping: Vec<bool> = (0..links.len())
        .map(|i| trips.iter().any(|t| t.a == i || t.b == i))
        .collect();
    // The deepest few pairs are labelled (indices into `trips`).
    let mut by_depth: Vec<usize> = (0..trips.len()).collect();
    by_depth.sort_by(|&x, &y| trips[x].distance_m.total_cmp(&trips[y].distance_m));
    let labelled: Vec<usize> = by_depth.into_iter().take(LABELLED_TRIPS).collect();
    let anchors: Vec<Option<([f64; 3], [f64; 3])>> = trips
        .iter()
        .map(|t| trip_anchor(&links[t.a], &links[t.b]))
        .collect();
    let extent = (0..3).map(|k| hi[k] - lo[k]).fold(1e-6, f64::max);
    let inner = ROBOT_SIDE - 2.0 * BORDER - LABEL;
    let px_per_m = inner / extent;
    let cell = inner / ROBOT_GRID as f64;
    VIEWS
        .iter()
        .map(|&(name, h, v)| {
            let mid_h = 0.5 * (lo[h] + hi[h]);
            let mid_v = 0.5 * (lo[v] + hi[v]);
            let (cx, cy) = (ROBOT_SIDE / 2.0, LABEL + BORDER + inner / 2.0);
            let to_px = |x: f64, y: f64| -> P2 {
                [cx + (x - mid_h) * px_per_m, cy - (y - mid_v) * px_per_m]
            };
            let (ox, oy) = (cx - inner / 2.0, cy - inner / 2.0);
            let to_cell = |x: f64, y: f64| -> P2 {
                let p = to_px(x, y);
                [(p[0] - ox) / cell, (p[1] - oy) / cell]
            };
            let mut cells = vec![false; ROBOT_GRID * ROBOT_GRID];
            for l in links {
                fill_silhouette(&mut cells, ROBOT_GRID, l.mesh, &l.at, h, v, &to_cell);
            }
            let mut svg = format!(
                "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"robot-view\" width=\"{ROBOT_SIDE}\" height=\"{ROBOT_SIDE}\" viewBox=\"0 0 {ROBOT_SIDE} {ROBOT_SIDE}\" role=\"img\" aria-label=\"{name} view of the robot at rest\">\
                 <rect class=\"frame\" x=\"0.5\" y=\"0.5\" width=\"{w}\" height=\"{w}\"/>\
                 <path class=\"truth\" transform=\"translate({ox:.2} {oy:.2}) scale({cell:.4})\" d=\"{path}\"/>",
                w = ROBOT_SIDE - 1.0,
                path = runs_path(&cells, ROBOT_GRID)
            );
            // The tripping links last, so the red stays on top.
            let order = (0..links.len())
                .filter(|&i| !tripping[i])
                .chain((0..links.len()).filter(|&i| tripping[i]));
            for i in order {
                let l = &links[i];
                for p in l.prims {
                    for (class, poly) in outlines_at(p, &l.at, h, v) {
                        let class = if tripping[i] { "trip" } else { class };
                        let px: Vec<P2> = poly.iter().map(|q| to_px(q[0], q[1])).collect();
                        let _ = write!(
                            svg,
                            "<polygon class=\"{class}\" points=\"{}\"/>",
                            polygon_points(&px)
                        );
                    }
                }
            }
            // Every tripping pair's line; labels for the deepest few only (the page's table
            // lists every pair by its number), each placed greedily: moved down or up by a
            // line until it overlaps none already placed, and left out where it cannot be.
            let mut placed: Vec<[f64; 4]> = Vec::new();
            for (n, (t, anchor)) in trips.iter().zip(&anchors).enumerate() {
                let Some((pa, pb)) = anchor else { continue };
                let (a, b) = (to_px(pa[h], pa[v]), to_px(pb[h], pb[v]));
                let _ = write!(
                    svg,
                    "<line class=\"trip-line\" x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\"/>",
                    a[0], a[1], b[0], b[1],
                );
                if !labelled.contains(&n) {
                    continue;
                }
                let mid = [0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1])];
                let text = format!("{} · {} mm", n + 1, crate::text::mm(t.distance_m));
                let [x, y, tw, th] = label_box(&text, mid);
                let overlaps =
                    |y: f64| placed.iter().any(|r| boxes_overlap(&[x, y, tw, th], r));
                let Some(y) = (0..40)
                    .map(|k| {
                        let step = ((k + 1) / 2) as f64 * th;
                        if k % 2 == 0 { y + step } else { y - step }
                    })
                    .map(|y| y.clamp(LABEL + th, ROBOT_SIDE - 3.0))
                    .find(|&y| !overlaps(y))
                else {
                    continue;
                };
                placed.push([x, y, tw, th]);
                let _ = write!(
                    svg,
                    "<text class=\"trip-label\" x=\"{x:.1}\" y=\"{y:.1}\">{text}</text>"
                );
            }
            let _ = write!(
                svg,
                "<text x=\"4\" y=\"11\" class=\"label\">{name} (world {} →, {} ↑) · {:.0} mm across</text></svg>",
                ["x", "y", "z"][h],
                ["x", "y", "z"][v],
                1e3 * extent
            );
            svg
        })
        .collect()
}

/// Reach kept over the rays as one `<svg>`: per ray (sorted by where its meshes touch) a
/// bar from the rest pose (0) to its first mesh contact (`t_truth / steps`; the whole ray
/// when its meshes never touch), green up to the kernel's first trip and grey beyond, and a
/// red mark at the first trip. `per_ray`: (t_truth, t_trip) as in [`crate::sweep::FreeReport`].
pub fn reach_plot(
    per_ray: &[(usize, Option<usize>)],
    steps: usize,
    reach_kept: Option<f64>,
) -> String {
    let (w, left, right, top) = (560.0, 44.0, 16.0, 30.0);
    let n = per_ray.len().max(1);
    let bar = (360.0 / n as f64).clamp(1.0, 8.0);
    let plot_h = bar * n as f64;
    let h = top + plot_h + 34.0;
    let plot_w = w - left - right;
    let steps_f = steps.max(1) as f64;
    let mut rays: Vec<(usize, usize)> = per_ray
        .iter()
        .map(|&(t, k)| (t, k.map_or(t, |k| k.min(t))))
        .collect();
    rays.sort_unstable();
    let x_of = |steps_along: f64| left + plot_w * (steps_along / steps_f).clamp(0.0, 1.0);
    let (mut kept, mut lost, mut marks) = (String::new(), String::new(), String::new());
    let mut in_contact = 0;
    for (i, &(t_truth, t_stop)) in rays.iter().enumerate() {
        let y = top + bar * i as f64;
        if t_truth == 0 {
            in_contact += 1;
            continue;
        }
        // A ray whose meshes never touch runs to its goal (step `steps`).
        let end = x_of(t_truth.min(steps) as f64);
        let stop = if t_stop < t_truth {
            x_of(t_stop as f64)
        } else {
            end
        };
        // Thin bars touch, so 200 rays read as one shape rather than stripes.
        let bh = if bar >= 3.0 { bar * 0.8 } else { bar };
        if stop > left {
            let _ = write!(
                kept,
                "M{left:.1} {y:.2}h{:.2}v{bh:.2}h{:.2}z",
                stop - left,
                left - stop
            );
        }
        if end > stop {
            let _ = write!(
                lost,
                "M{stop:.1} {y:.2}h{:.2}v{bh:.2}h{:.2}z",
                end - stop,
                stop - end
            );
        }
        if t_stop < t_truth {
            let _ = write!(marks, "M{stop:.1} {:.2}v{:.2}", y - 0.5, bh + 1.0);
        }
    }
    let title = match reach_kept {
        Some(k) => format!(
            "reach kept {:.1} % (mean over the {} ray(s) that start free)",
            100.0 * k,
            rays.len() - in_contact
        ),
        None => "reach kept: - (every ray starts in contact)".to_string(),
    };
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"reach-plot\" width=\"{w}\" height=\"{h:.0}\" viewBox=\"0 0 {w} {h:.0}\" role=\"img\" aria-label=\"{t}\">\
         <rect width=\"{w}\" height=\"{h:.0}\" fill=\"#fff\"/>\
         <text class=\"title\" x=\"{left}\" y=\"14\">{t}</text>\
         <path class=\"kept\" d=\"{kept}\"/><path class=\"lost\" d=\"{lost}\"/><path class=\"stop\" d=\"{marks}\"/>",
        t = escape(&title)
    );
    let axis_y = top + plot_h + 2.0;
    let _ = write!(
        svg,
        "<path class=\"axis\" d=\"M{left} {top}V{axis_y:.1}H{:.1}\"/>",
        left + plot_w
    );
    for tick in [0.0, 0.25, 0.5, 0.75, 1.0] {
        let x = left + plot_w * tick;
        let _ = write!(
            svg,
            "<path class=\"axis\" d=\"M{x:.1} {axis_y:.1}v4\"/><text class=\"label\" x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{tick}</text>",
            axis_y + 14.0
        );
    }
    let _ = write!(
        svg,
        "<text class=\"label\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">along each ray from the rest pose (0) to its goal (1); {} rays, {steps} steps, sorted by first mesh contact</text>\
         <text class=\"label\" x=\"12\" y=\"{:.1}\" transform=\"rotate(-90 12 {:.1})\" text-anchor=\"middle\">rays</text></svg>",
        left + plot_w / 2.0,
        axis_y + 28.0,
        rays.len(),
        top + plot_h / 2.0,
        top + plot_h / 2.0
    );
    svg
}

/// Outline colours of a decomposed link's pieces, in piece order.
const PIECE_COLOURS: [&str; 8] = [
    "#1a7f37", "#8250df", "#cf222e", "#0969da", "#bf8700", "#1b7c83", "#bc4c00", "#6e7781",
];

/// Colours of the pictures, shared by the page and [`figure`].
pub const STYLE: &str = "svg.view{background:#fff}svg .frame{fill:none;stroke:#d0d7de}\
svg .truth{fill:#8c959f;shape-rendering:crispEdges}svg polygon{fill:none;stroke-width:1.2}\
svg .capsule{stroke:#0969da}svg .box{stroke:#bc4c00}svg .tight-box{stroke:#bc4c00;stroke-dasharray:4 3}\
svg .hull{stroke:#1a7f37}svg .label{font:10px sans-serif;fill:#57606a}\
svg.robot-view{background:#fff;margin-right:4px}svg .trip{stroke:#cf222e;stroke-width:2}\
svg .trip-line{stroke:#cf222e;stroke-width:1.5;stroke-dasharray:3 2}\
svg .trip-label{font:bold 11px sans-serif;fill:#cf222e;paint-order:stroke;stroke:#fff;stroke-width:3px}\
svg .title{font:bold 12px sans-serif;fill:#1b1f24}svg .kept{fill:#2da44e}svg .lost{fill:#d0d7de}\
svg .stop{stroke:#cf222e;stroke-width:2;fill:none}svg .axis{stroke:#57606a;fill:none}";

/// One link's three views side by side as a standalone SVG file (style inside), with a title.
pub fn figure(mesh: &TriMesh, prims: &[Primitive], title: &str) -> String {
    let views = link_views(mesh, prims);
    let (w, h) = (3.0 * SIDE + 8.0, SIDE + 20.0);
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\">\
         <style>{STYLE}svg .title{{font:bold 12px sans-serif;fill:#1b1f24}}</style>\
         <rect width=\"{w}\" height=\"{h}\" fill=\"#fff\"/><text class=\"title\" x=\"2\" y=\"13\">{}</text>",
        escape(title)
    );
    for (i, v) in views.iter().enumerate() {
        let _ = write!(
            out,
            "<g transform=\"translate({} 20)\">{v}</g>",
            i as f64 * (SIDE + 4.0)
        );
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::Capsule;

    #[test]
    fn a_triangle_fills_cells_and_a_capsule_is_outlined() {
        let mesh = TriMesh {
            vertices: vec![[0.0, 0.0, 0.0], [0.1, 0.0, 0.0], [0.0, 0.1, 0.0]],
            triangles: vec![[0, 1, 2]],
        };
        let prims = [Primitive::Capsule(Capsule {
            a: [0.0, 0.0, 0.0],
            b: [0.1, 0.0, 0.0],
            radius: 0.1,
        })];
        let views = link_views(&mesh, &prims);
        assert_eq!(views.len(), 3);
        // The xy view holds the triangle: many filled runs; the xz view sees it edge-on.
        assert!(views[0].matches('M').count() > 10, "{}", views[0]);
        for v in &views {
            assert!(v.starts_with("<svg") && v.ends_with("</svg>"));
            assert_eq!(v.matches("class=\"capsule\"").count(), 1);
        }
    }

    #[test]
    fn the_reach_plot_draws_a_bar_per_free_ray_and_a_mark_per_trip() {
        // A ray whose meshes never touch, one stopped at step 4 of the 10 it could go, one
        // that starts in contact; 24 steps a ray.
        let svg = reach_plot(&[(25, None), (10, Some(4)), (0, None)], 24, Some(0.7));
        assert!(svg.contains("reach kept 70.0 % (mean over the 2 ray(s) that start free)"));
        let path = |class: &str| {
            let start = svg.find(&format!("class=\"{class}\" d=\"")).unwrap() + class.len() + 12;
            svg[start..start + svg[start..].find('"').unwrap()].to_string()
        };
        // Sorted by t_truth: the contact ray first (no bar), then 10, then 25.
        assert_eq!(path("kept").matches('M').count(), 2);
        assert_eq!(path("lost").matches('M').count(), 1);
        assert_eq!(path("stop").matches('M').count(), 1);
        // The whole plot is 560 wide with the axis from 44 to 544: step 4 of 24 is at 127.3,
        // step 10 at 252.3, the full ray at 544.
        assert!(path("stop").starts_with("M127.3 "), "{}", path("stop"));
        assert!(path("lost").starts_with("M127.3 "), "{}", path("lost"));
        assert!(path("kept").contains("h500.00"), "{}", path("kept"));
    }

    #[test]
    fn the_robot_views_place_links_and_draw_tripping_pairs_in_red() {
        let cube = |c: [f64; 3]| TriMesh {
            vertices: (0..8)
                .map(|i| {
                    let s = |k: usize| if i & (1 << k) == 0 { -0.05 } else { 0.05 };
                    [c[0] + s(0), c[1] + s(1), c[2] + s(2)]
                })
                .collect(),
            triangles: vec![[0, 1, 3], [0, 3, 2]],
        };
        let mesh = cube([0.0; 3]);
        let prims = [Primitive::Capsule(Capsule {
            a: [0.0, 0.0, 0.0],
            b: [0.0, 0.0, 0.0],
            radius: 0.09,
        })];
        let at = |x: f64| Iso {
            rot: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
            pos: [x, 0.0, 0.0],
        };
        let links = [
            PlacedLink {
                at: at(0.0),
                mesh: &mesh,
                prims: &prims,
            },
            PlacedLink {
                at: at(0.15),
                mesh: &mesh,
                prims: &prims,
            },
            PlacedLink {
                at: at(0.6),
                mesh: &mesh,
                prims: &prims,
            },
        ];
        let trips = [Trip {
            a: 0,
            b: 1,
            distance_m: -0.03,
        }];
        let views = robot_views(&links, &trips);
        assert_eq!(views.len(), 3);
        for v in &views {
            assert_eq!(v.matches("class=\"trip\"").count(), 2, "{v}");
            assert_eq!(v.matches("class=\"capsule\"").count(), 1, "{v}");
            assert!(v.contains("1 · -30.0 mm"), "{v}");
        }
        // The capsules (radius 90 mm) reach past the cubes: from x = -0.09 to 0.6 + 0.09.
        assert!(views[0].contains("780 mm across"), "{}", views[0]);
    }

    /// Issue 34: 41 pairs tripping on a humanoid's hands made 41 red labels on top of each
    /// other. Only the deepest few are labelled, and no two labels overlap, as read back
    /// from the SVG emitted (positions and texts).
    #[test]
    fn many_tripping_pairs_label_only_the_deepest_and_no_labels_overlap() {
        let mesh = TriMesh {
            vertices: vec![[0.0; 3], [0.01, 0.0, 0.0], [0.0, 0.01, 0.0]],
            triangles: vec![[0, 1, 2]],
        };
        let prims = [Primitive::Capsule(Capsule {
            a: [0.0; 3],
            b: [0.0; 3],
            radius: 0.02,
        })];
        // Twelve links crowded within a few centimetres: every pair trips.
        let links: Vec<PlacedLink> = (0..12)
            .map(|i| PlacedLink {
                at: Iso {
                    rot: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
                    pos: [0.003 * i as f64, 0.002 * (i % 3) as f64, 0.0],
                },
                mesh: &mesh,
                prims: &prims,
            })
            .collect();
        let mut trips = Vec::new();
        for a in 0..12 {
            for b in a + 1..12 {
                if trips.len() < 41 {
                    // Depths all different: pair k is (k * 7 mod 41) mm deep.
                    let k = trips.len();
                    trips.push(Trip {
                        a,
                        b,
                        distance_m: -1e-3 * ((k * 7) % 41) as f64,
                    });
                }
            }
        }
        let mut deepest: Vec<usize> = (0..trips.len()).collect();
        deepest.sort_by(|&x, &y| trips[x].distance_m.total_cmp(&trips[y].distance_m));
        let want: std::collections::BTreeSet<String> = deepest[..LABELLED_TRIPS]
            .iter()
            .map(|&k| (k + 1).to_string())
            .collect();
        for v in robot_views(&links, &trips) {
            assert_eq!(v.matches("class=\"trip-line\"").count(), 41);
            let labels: Vec<([f64; 4], String)> = v
                .split("<text class=\"trip-label\" ")
                .skip(1)
                .map(|t| {
                    let num = |key: &str| -> f64 {
                        let from = t.find(key).unwrap() + key.len();
                        let len = t[from..].find('"').unwrap();
                        t[from..from + len].parse().unwrap()
                    };
                    let text = &t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()];
                    let b = label_box(text, [0.0, 0.0]);
                    ([num("x=\""), num("y=\""), b[2], b[3]], text.to_string())
                })
                .collect();
            assert!(
                !labels.is_empty() && labels.len() <= LABELLED_TRIPS,
                "{}",
                labels.len()
            );
            for (i, (p, _)) in labels.iter().enumerate() {
                assert!(p[0] >= 0.0 && p[0] + p[2] <= ROBOT_SIDE, "{p:?}");
                assert!(p[1] - p[3] >= LABEL && p[1] <= ROBOT_SIDE, "{p:?}");
                for (r, _) in &labels[i + 1..] {
                    assert!(!boxes_overlap(p, r), "labels overlap: {p:?} {r:?}");
                }
            }
            for (_, text) in &labels {
                let n = text.split(' ').next().unwrap().to_string();
                assert!(
                    want.contains(&n),
                    "{text} is not among the deepest {want:?}"
                );
            }
        }
    }
}
