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
use crate::kernel::vec3::rot_from_rpy;
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

/// A primitive's outline in one view, as polygons with a style class.
fn outlines(p: &Primitive, h: usize, v: usize) -> Vec<(&'static str, Vec<P2>)> {
    let hull2 =
        |pts: &[P2]| -> Vec<P2> { convex_hull_2d(pts).into_iter().map(|i| pts[i]).collect() };
    match p {
        Primitive::Capsule(c) => {
            let mut pts = Vec::with_capacity(64);
            for e in [c.a, c.b] {
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
                corners.push([w[h], w[v]]);
            }
            match b.tight() {
                None => vec![("box", hull2(&corners))],
                Some((_, hull)) => {
                    let pts: Vec<P2> = hull.iter().map(|w| [w[h], w[v]]).collect();
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
    let g = GRID as f64;
    let mut mark = |cx: f64, cy: f64| {
        if cx >= 0.0 && cy >= 0.0 && cx < g && cy < g {
            cells[cy as usize * GRID + cx as usize] = true;
        }
    };
    let proj: Vec<P2> = mesh.vertices.iter().map(|p| to_cell(p[h], p[v])).collect();
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
        let x1 = (a[0].max(b[0]).max(c[0]).ceil() as usize).min(GRID);
        let y0 = a[1].min(b[1]).min(c[1]).floor().max(0.0) as usize;
        let y1 = (a[1].max(b[1]).max(c[1]).ceil() as usize).min(GRID);
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
                    cells[y * GRID + x] = true;
                }
            }
        }
    }
    cells
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
            let mut path = String::new();
            for y in 0..GRID {
                let mut x = 0;
                while x < GRID {
                    if !cells[y * GRID + x] {
                        x += 1;
                        continue;
                    }
                    let start = x;
                    while x < GRID && cells[y * GRID + x] {
                        x += 1;
                    }
                    let _ = write!(path, "M{start} {y}h{}v1h-{}z", x - start, x - start);
                }
            }
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

/// Outline colours of a decomposed link's pieces, in piece order.
const PIECE_COLOURS: [&str; 8] = [
    "#1a7f37", "#8250df", "#cf222e", "#0969da", "#bf8700", "#1b7c83", "#bc4c00", "#6e7781",
];

/// Colours of the pictures, shared by the page and [`figure`].
pub const STYLE: &str = "svg.view{background:#fff}svg .frame{fill:none;stroke:#d0d7de}\
svg .truth{fill:#8c959f;shape-rendering:crispEdges}svg polygon{fill:none;stroke-width:1.2}\
svg .capsule{stroke:#0969da}svg .box{stroke:#bc4c00}svg .tight-box{stroke:#bc4c00;stroke-dasharray:4 3}\
svg .hull{stroke:#1a7f37}svg .label{font:10px sans-serif;fill:#57606a}";

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
}
