//! `collide report`: every robot's sweep (with the compare sets, and the free space on the
//! default rays) and pictures, as one self-contained HTML page and, when asked for, the
//! Markdown fleet page (`docs/fleet.md`).
//!
//! Both carry the same tables, built once as [`Grid`]s: the fleet table, and per robot the
//! free-space table, the sweep table and the link table. The page adds per robot the whole
//! robot at rest (three views, the pairs that trip there in red) and its reach kept over
//! the rays, and three orthographic pictures per link ([`super::svg`]). Nothing on the page is fetched: styles and the one script (it counts
//! the rendered sections, for the headless-browser test) are inline.

use super::svg;
use super::{link_fit_cells, render};
use crate::error::{Error, Result};
use crate::io::robot::ReadOptions;
use crate::kernel::vec3::Iso;
use crate::manifest::Manifest;
use crate::sweep::{self, Set, SweepReport};
use crate::text::{escape, mm};
use rayon::prelude::*;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A table: header and rows of cells (plain text; escaped when rendered as HTML).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Grid {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Grid {
    fn new(header: &[&str]) -> Self {
        Grid {
            header: header.iter().map(|s| s.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    pub fn markdown(&self) -> String {
        let cell = |s: &str| s.replace('|', "\\|");
        let mut out = format!(
            "| {} |\n|{}|\n",
            self.header
                .iter()
                .map(|h| cell(h))
                .collect::<Vec<_>>()
                .join(" | "),
            self.header
                .iter()
                .map(|_| "---")
                .collect::<Vec<_>>()
                .join("|")
        );
        for r in &self.rows {
            let _ = writeln!(
                out,
                "| {} |",
                r.iter().map(|c| cell(c)).collect::<Vec<_>>().join(" | ")
            );
        }
        out
    }

    pub fn html(&self, class: &str) -> String {
        let mut out = format!("<table class=\"{class}\"><thead><tr>");
        for h in &self.header {
            let _ = write!(out, "<th>{}</th>", escape(h));
        }
        out.push_str("</tr></thead><tbody>");
        for r in &self.rows {
            out.push_str("<tr>");
            for c in r {
                // Text cells read left to right; figures stay right-aligned.
                let figure = c
                    .split([' ', '/'])
                    .all(|w| w.is_empty() || w == "-" || w.parse::<f64>().is_ok());
                if figure {
                    let _ = write!(out, "<td>{}</td>", escape(c));
                } else {
                    let _ = write!(out, "<td class=\"t\">{}</td>", escape(c));
                }
            }
            out.push_str("</tr>");
        }
        out.push_str("</tbody></table>");
        out
    }
}

/// One robot's part of the report.
pub struct RobotReport {
    pub sweep: SweepReport,
    pub manifest: Manifest,
    /// Per manifest link: its three views.
    pub pictures: Vec<(String, Vec<String>)>,
    /// The whole robot at its rest pose, three views, the pairs that trip there in red.
    pub rest_views: Vec<String>,
    /// Reach kept over the fit set's rays.
    pub reach_plot: String,
    /// Given with `--outside`: a robot not in the fleet, reported in its own section.
    pub outside: bool,
}

/// What the section of robots outside the fleet says about them.
const OUTSIDE_NOTE: &str = "Robots that are not in the fleet (`collide report --outside`), set up the way a new user \
     would and nothing else: `collide init DESCRIPTION --out DIR --adopt-contacts` (its contacts by design \
     adopted without review), `collide lower DIR/robot.yaml --write`, `collide acm regenerate DIR/robot.yaml \
     --write` (`make outside`, from example-robot-data 6.0.0). Same measure as the fleet's.";

/// Every `DIR/*/manifest.yaml`, sorted.
pub fn fleet_manifests(dir: &Path) -> Result<Vec<PathBuf>> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| Error::at(dir, None, format!("cannot list the robots: {e}")))?;
    let mut out: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("manifest.yaml"))
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    if out.is_empty() {
        return Err(Error::at(dir, None, "no */manifest.yaml below it"));
    }
    Ok(out)
}

/// Sweeps one manifest with both compare sets and draws its links.
pub fn robot_report(
    path: &Path,
    poses: usize,
    seed: u64,
    read: &ReadOptions,
) -> Result<RobotReport> {
    let prepared = sweep::prepare(path, &[Set::SingleCapsule, Set::AllTight], read)?;
    let report = prepared.run(poses, seed, sweep::RayOptions::default(), true);
    let pictures = prepared
        .manifest
        .links
        .par_iter()
        .map(|l| {
            let mesh = &prepared.meshes[&l.name];
            (l.name.clone(), svg::link_views(mesh, &l.primitives))
        })
        .collect();
    let rest_views = rest_views(&prepared, &report);
    let reach_plot = report
        .set(Set::Fit)
        .map(|s| svg::reach_plot(&s.free.per_ray, s.free.steps, s.free.reach_kept))
        .unwrap_or_default();
    Ok(RobotReport {
        sweep: report,
        manifest: prepared.manifest,
        pictures,
        rest_views,
        reach_plot,
        outside: false,
    })
}

/// The whole robot at its rest pose (the kernel's FK), every manifest link with its mesh
/// and primitives, the fit set's pairs that trip there in red.
pub fn rest_views(prepared: &sweep::Prepared, report: &SweepReport) -> Vec<String> {
    let fit = prepared.fit_kernel();
    let q = fit.q_from(&prepared.manifest.rest_pose.q);
    let mut ws = fit.model.workspace();
    fit.model.fk(&q, &mut ws);
    let links = &prepared.manifest.links;
    let placed: Vec<svg::PlacedLink> = links
        .iter()
        .map(|l| {
            let (rot, pos) = ws.link_pose(fit.link_index[&l.name]);
            svg::PlacedLink {
                at: Iso { rot, pos },
                mesh: &prepared.meshes[&l.name],
                prims: &l.primitives,
            }
        })
        .collect();
    let at = |name: &str| links.iter().position(|l| l.name == name);
    let trips: Vec<svg::Trip> = report
        .set(Set::Fit)
        .map(|s| s.rest.contacts.as_slice())
        .unwrap_or_default()
        .iter()
        .filter_map(|(a, b, d)| {
            Some(svg::Trip {
                a: at(a)?,
                b: at(b)?,
                distance_m: *d,
            })
        })
        .collect();
    svg::robot_views(&placed, &trips)
}

fn set_cell(r: &SweepReport, set: Set, f: impl Fn(&sweep::SetReport) -> String) -> String {
    r.set(set).map(f).unwrap_or_else(|| "-".into())
}

/// The fleet table: one row per robot. The fit set's free space first (the headline),
/// then the sweep's figures for the three sets side by side.
pub fn fleet_grid<'a>(robots: impl IntoIterator<Item = &'a RobotReport>) -> Grid {
    let mut g = Grid::new(&[
        "robot",
        "free poses",
        "refused free %",
        "reach kept %",
        "rest",
        "first false trips (rays)",
        "poses",
        "contacts (mesh / hull)",
        "missed, mesh (single-capsule / fit / all-tight)",
        "missed, hull (single-capsule / fit / all-tight)",
        "refused (single-capsule / fit / all-tight)",
        "slop-only fit (mesh / hull)",
        "false stops fit (mesh / hull)",
        "kernel µs free median / p99 fit (all poses)",
    ]);
    for rr in robots {
        let r = &rr.sweep;
        let three = |f: &dyn Fn(&sweep::SetReport) -> String| {
            Set::ALL
                .iter()
                .map(|s| set_cell(r, *s, f))
                .collect::<Vec<_>>()
                .join(" / ")
        };
        g.rows.push(vec![
            r.robot.clone(),
            set_cell(r, Set::Fit, |s| s.free.free_poses().to_string()),
            set_cell(r, Set::Fit, |s| render::pct_cell(s.free.refused_free_pct())),
            set_cell(r, Set::Fit, |s| render::reach_cell(&s.free)),
            set_cell(r, Set::Fit, render::rest_free_cell),
            set_cell(r, Set::Fit, |s| render::first_trips_cell(&s.free, 3)),
            r.poses.to_string(),
            format!("{} / {}", r.mesh_contacts.poses, r.hull_contacts.poses),
            three(&|s| s.mesh.missed.to_string()),
            three(&|s| s.hull.missed.to_string()),
            three(&|s| s.refused.to_string()),
            set_cell(r, Set::Fit, |s| render::both(s, |v| v.slop_only)),
            set_cell(r, Set::Fit, |s| render::both(s, |v| v.false_stops)),
            set_cell(r, Set::Fit, |s| {
                format!(
                    "{:.1} / {:.1} ({:.1})",
                    s.free_timing.median_us, s.free_timing.p99_us, s.timing.median_us
                )
            }),
        ]);
    }
    g
}

/// One robot's free space, every set (the headline of its section).
pub fn free_grid(r: &SweepReport) -> Grid {
    let mut g = Grid::new(&render::FREE_COLUMNS);
    for s in &r.sets {
        g.rows.push(render::free_cells(s));
    }
    g
}

/// One robot's sweep table (every set, timings included).
pub fn sweep_grid(r: &SweepReport) -> Grid {
    let header: Vec<&str> = render::VERDICT_COLUMNS
        .iter()
        .copied()
        .chain(render::TIMING_COLUMNS)
        .collect();
    let mut g = Grid::new(&header);
    for s in &r.sets {
        let mut row = render::verdict_cells(r, s);
        row.extend(render::timing_cells(s));
        g.rows.push(row);
    }
    g
}

/// What the truth's own contacts say, in one sentence (empty when there is none).
pub fn contacts_note(r: &SweepReport) -> String {
    let mut out = String::new();
    if let Some(pairs) = render::top_contacts_text(r) {
        out = format!("Most mesh contacts (poses): {pairs}.");
    }
    if let Some(text) = render::always_touching_text(r, 6) {
        let _ = write!(out, " {text}.");
    }
    if let Some(note) = render::always_exempt_note(r) {
        let _ = write!(out, " {note}.");
    }
    out
}

/// One robot's links: the manifest's choice, figures and achieved margin.
pub fn links_grid(m: &Manifest) -> Grid {
    let mut g = Grid::new(&[
        "link",
        "choice",
        "primitives",
        "vol ÷ hull",
        "max protrusion mm",
        "mean protrusion mm",
        "margin mm",
        "truth vertices",
    ]);
    for l in &m.links {
        let mut cells = link_fit_cells(l);
        cells.push(l.fit.vertices.to_string());
        g.rows.push(cells);
    }
    g
}

fn intro(poses: usize, seed: u64) -> String {
    let rays = sweep::RayOptions::default();
    let count = if poses == sweep::DEFAULT_POSES {
        format!(
            "{poses} seeded uniform in-limit configurations (seed {seed}; `collide sweep`'s default)"
        )
    } else {
        format!(
            "{poses} seeded uniform in-limit configurations (seed {seed}; `collide sweep` defaults to {}, this report was run with `--poses {poses}`)",
            sweep::DEFAULT_POSES
        )
    };
    format!(
        "**Free space** (the headline): {rays} rays in joint space from the rest pose toward seeded \
         uniform in-limit poses (ray seed {ray_seed}), {steps} equal steps a ray, each step judged on \
         the real meshes of the checked pairs and by the kernel. free poses: the steps before each \
         ray's first mesh contact, plus the uniform poses below where no checked pair's meshes touch. \
         refused free %: the share of the free poses the kernel refuses. reach kept %: per ray, the \
         first step the kernel trips over the first step the meshes touch (100 when the kernel lets \
         the robot go as far as the meshes), averaged over the rays that start free. rest: whether \
         the kernel trips at the rest pose (and which checked pairs' meshes touch there, when any \
         do: then no ray has a free pose). first false trips: the pairs behind each ray's first trip \
         on a free pose, with how many rays they stopped. \
         **Sweep** (the secondary figures): {count}, each judged by the kernel on three primitive sets (single-capsule: \
         one capsule per link; fit: the manifest; all-tight: box + hull on every link; same joints, \
         ACM and margin) and by two truths on the same checked pairs. **mesh** (the main truth): \
         the links' real triangle meshes (collision and visual), touching when their surfaces meet \
         or a vertex of one lies inside a closed part of the other (parry BVH queries). **hull** \
         (the second figure, as in the design documents): each link's mesh as its convex hull, or \
         for a link with several primitives the hulls of its surface split among them, checked \
         exactly by GJK; hull contact includes every mesh contact and adds the touches of filled \
         concavities. contacts: poses with a truth contact. missed: pairs the kernel clears while \
         the truth touches (must be 0). false stops: pairs the kernel trips while the truth is \
         apart. refused: poses the kernel trips. slop-only: refused poses with no truth contact. \
         Kernel µs: one `check_self_collision` \
         call per configuration, timed alone (twice, the lesser kept; release build; other load \
         on the machine shows in p99), on the free poses (where a controller calls it: the \
         headline) and on every uniform pose (all-pose; on a humanoid most of them in contact, \
         where the kernel pays for depths a stopped robot never needs).",
        rays = rays.rays,
        steps = rays.steps,
        ray_seed = rays.seed,
    )
}

/// One robot's free-space line: how its free poses were sampled and what touches at rest.
fn free_note(r: &SweepReport) -> String {
    let mut out = render::free_line(r).unwrap_or_default();
    if let Some(s) = r.set(Set::Fit) {
        let touch = &s.free.rest_mesh_contacts;
        if !touch.is_empty() {
            let names = render::first_few(touch, 6, |(a, b)| format!("{a}/{b}"));
            let _ = write!(
                out,
                "; the meshes of {} checked pair(s) touch at the rest pose, so no ray has a free pose: {}",
                touch.len(),
                names.join(", ")
            );
        }
    }
    out.push('.');
    out
}

/// Escaped text with Markdown's `**bold**` and `` `code` `` as HTML.
fn markdown_inline(text: &str) -> String {
    let mut out = String::new();
    for (i, part) in escape(text).split("**").enumerate() {
        if i % 2 == 1 {
            let _ = write!(out, "<strong>{part}</strong>");
        } else {
            out.push_str(part);
        }
    }
    let mut html = String::new();
    for (i, part) in out.split('`').enumerate() {
        if i % 2 == 1 {
            let _ = write!(html, "<code>{part}</code>");
        } else {
            html.push_str(part);
        }
    }
    html
}

/// `docs/fleet.md`: the fleet table and sections, then the robots outside the fleet.
pub fn fleet_markdown(robots: &[RobotReport], poses: usize, seed: u64) -> String {
    let mut out = String::from(
        "# Fleet sweep\n\n<!-- Generated by `collide report --fleet-md docs/fleet.md` (`make report`); do not edit. -->\n\n",
    );
    let _ = writeln!(
        out,
        "Generated by `collide report` ({}).\n",
        crate::manifest::sources::generator()
    );
    let _ = writeln!(out, "{}\n", intro(poses, seed));
    let (outside, fleet) = split_outside(robots);
    out.push_str("## Fleet\n\n");
    out += &fleet_grid(fleet.iter().copied()).markdown();
    for rr in &fleet {
        robot_markdown(&mut out, rr);
    }
    if !outside.is_empty() {
        let _ = write!(out, "\n## Outside the fleet\n\n{OUTSIDE_NOTE}\n\n");
        out += &fleet_grid(outside.iter().copied()).markdown();
        for rr in &outside {
            robot_markdown(&mut out, rr);
        }
    }
    out
}

/// The robots given with `--outside`, and the fleet's, each in the given order.
fn split_outside(robots: &[RobotReport]) -> (Vec<&RobotReport>, Vec<&RobotReport>) {
    robots.iter().partition(|r| r.outside)
}

/// Heading of a robot's section.
fn section_title(rr: &RobotReport) -> String {
    if rr.outside {
        format!("{} (outside the fleet)", rr.sweep.robot)
    } else {
        rr.sweep.robot.clone()
    }
}

/// One robot's section of `docs/fleet.md`.
fn robot_markdown(out: &mut String, rr: &RobotReport) {
    let r = &rr.sweep;
    let _ = write!(
        out,
        "\n## {}\n\n`{}`: {} checked pairs, {} ACM rows, margin {} mm; mesh truth: {} links, {} triangles in {} components ({} closed); hull truth: {} links as {} convex pieces.\n\n",
        section_title(rr),
        r.manifest.display(),
        r.checked_pairs,
        r.acm_rows,
        mm(r.margin_m),
        r.mesh_truth.links,
        r.mesh_truth.triangles,
        r.mesh_truth.components,
        r.mesh_truth.closed_components,
        r.truth.links,
        r.truth.pieces
    );
    let _ = write!(out, "{}\n\n", free_note(r));
    *out += &free_grid(r).markdown();
    out.push('\n');
    let note = contacts_note(r);
    if !note.is_empty() {
        let _ = write!(out, "{}\n\n", note.trim_start());
    }
    *out += &sweep_grid(r).markdown();
    out.push('\n');
    *out += &links_grid(&rr.manifest).markdown();
}

const STYLE: &str = "body{font:14px/1.4 system-ui,-apple-system,'Segoe UI',sans-serif;margin:1.5em;color:#1b1f24;max-width:1400px}\
table{border-collapse:collapse;margin:.6em 0 1.2em}th,td{border:1px solid #d0d7de;padding:2px 8px;text-align:right;vertical-align:top}\
th{background:#f3f5f7}td:first-child,th:first-child,td.t{text-align:left}\
section.robot{border-top:2px solid #57606a;margin-top:2em}\
.links{display:flex;flex-wrap:wrap;gap:12px}.link{border:1px solid #d0d7de;padding:6px;border-radius:4px}\
.link h4{margin:0 0 4px}.link p{margin:0 0 4px;font-size:12px;color:#57606a}\
svg.view{margin-right:4px}.missed{color:#cf222e;font-weight:bold}.legend span{margin-right:1.2em}\
.pictures{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start}.pictures p{font-size:12px;color:#57606a;max-width:980px}\
p.headline{font-size:15px}";

/// The self-contained page.
pub fn html_page(robots: &[RobotReport], poses: usize, seed: u64) -> String {
    let mut out = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>collide fleet report</title>",
    );
    let _ = write!(out, "<style>{STYLE}{}</style></head><body>", svg::STYLE);
    let _ = write!(
        out,
        "<h1>collide fleet report</h1><p>Generated by {}.</p><p>{}</p>",
        escape(&crate::manifest::sources::generator()),
        markdown_inline(&intro(poses, seed))
    );
    out.push_str("<p id=\"rendered\">(not rendered by a browser)</p>");
    let (outside, fleet) = split_outside(robots);
    out.push_str("<h2>Fleet</h2>");
    out += &fleet_grid(fleet.iter().copied()).html("fleet");
    if !outside.is_empty() {
        let _ = write!(
            out,
            "<h2>Outside the fleet</h2><p>{}</p>",
            markdown_inline(OUTSIDE_NOTE)
        );
        out += &fleet_grid(outside.iter().copied()).html("fleet outside");
    }
    out.push_str("<p>Robots: ");
    for (i, rr) in fleet.iter().chain(&outside).enumerate() {
        if i > 0 {
            out.push_str(" · ");
        }
        let _ = write!(
            out,
            "<a href=\"#robot-{id}\">{name}</a>",
            id = escape(&rr.sweep.robot),
            name = escape(&rr.sweep.robot)
        );
    }
    out.push_str("</p>");
    for rr in fleet.iter().chain(&outside) {
        let r = &rr.sweep;
        let _ = write!(
            out,
            "<section class=\"robot\" id=\"robot-{id}\" data-robot=\"{id}\"><h2>{title}</h2>\
             <p><code>{path}</code>: {pairs} checked pairs, {acm} ACM rows, margin {margin} mm; \
             mesh truth: {mlinks} links, {tris} triangles in {comps} components ({closed} closed); \
             hull truth: {links} links as {pieces} convex pieces ({hv} hull vertices); sweep {secs:.1} s.</p>",
            mlinks = r.mesh_truth.links,
            tris = r.mesh_truth.triangles,
            comps = r.mesh_truth.components,
            closed = r.mesh_truth.closed_components,
            id = escape(&r.robot),
            title = escape(&section_title(rr)),
            path = escape(&r.manifest.display().to_string()),
            pairs = r.checked_pairs,
            acm = r.acm_rows,
            margin = mm(r.margin_m),
            links = r.truth.links,
            pieces = r.truth.pieces,
            hv = r.truth.hull_vertices,
            secs = r.elapsed_s,
        );
        let _ = write!(out, "<p class=\"headline\">{}</p>", escape(&free_note(r)));
        out += &free_grid(r).html("free");
        out += &rest_pictures_html(rr);
        let note = contacts_note(r);
        if !note.is_empty() {
            let _ = write!(out, "<p>{}</p>", escape(note.trim_start()));
        }
        for m in &r.missed {
            let _ = write!(
                out,
                "<p class=\"missed\">{}</p>",
                escape(&render::missed_line(m))
            );
        }
        out += &sweep_grid(r).html("sweep");
        out += &links_grid(&rr.manifest).html("link-table");
        out.push_str(
            "<p class=\"legend\"><span>grey: truth silhouette</span><span style=\"color:#0969da\">capsule</span>\
             <span style=\"color:#bc4c00\">box (dashed: box of a tight link)</span><span style=\"color:#1a7f37\">hull</span></p>",
        );
        out.push_str("<div class=\"links\">");
        for (name, views) in &rr.pictures {
            let Some(l) = rr.manifest.links.iter().find(|l| &l.name == name) else {
                continue;
            };
            let _ = write!(
                out,
                "<div class=\"link\" data-link=\"{n}\"><h4>{n}</h4><p>{choice}, {prims} primitive(s); mean / max protrusion {mean} / {max} mm; margin {margin} mm</p>",
                n = escape(name),
                choice = l.fit.choice.as_str(),
                prims = l.primitives.len(),
                mean = mm(l.fit.mean_protrusion_m),
                max = mm(l.fit.max_protrusion_m),
                margin = mm(l.fit.min_margin_m),
            );
            for v in views {
                out += v;
            }
            out.push_str("</div>");
        }
        out.push_str("</div></section>");
    }
    out.push_str(
        "<script>(function(){var q=function(c){return document.querySelectorAll(c).length;};\
         document.getElementById('rendered').textContent='rendered '+q('section.robot')+' robot sections with '+q('section.robot svg.view')+' link pictures, '\
         +q('section.robot svg.robot-view')+' rest views and '+q('section.robot svg.reach-plot')+' reach plots';})();</script>",
    );
    out.push_str("</body></html>\n");
    out
}

/// The rest-pose views and the reach plot of one robot, with their captions.
fn rest_pictures_html(rr: &RobotReport) -> String {
    let Some(fit) = rr.sweep.set(Set::Fit) else {
        return String::new();
    };
    let mut out = String::from("<div class=\"pictures\"><div class=\"rest\">");
    let _ = write!(out, "<h3>At rest</h3>");
    for v in &rr.rest_views {
        out += v;
    }
    let caption = if fit.rest.clear {
        "The kernel clears the rest pose: no checked pair trips.".to_string()
    } else {
        format!(
            "Red: the {} checked pair(s) whose primitives trip at rest, numbered as in the table; the {} deepest are labelled on the views with the kernel's distance.",
            fit.rest.contacts.len(),
            fit.rest.contacts.len().min(svg::LABELLED_TRIPS)
        )
    };
    let _ = write!(
        out,
        "<p>The whole robot at its rest pose (the kernel's forward kinematics), world frame: grey the meshes, \
         outlined every link's primitives (blue capsule, orange box, green hull). {}</p>",
        escape(&caption)
    );
    if !fit.rest.contacts.is_empty() {
        out += "<table class=\"trips\"><tr><th>#</th><th>pair tripping at rest</th><th>kernel distance (mm)</th></tr>";
        for (i, (a, b, d)) in fit.rest.contacts.iter().enumerate() {
            let _ = write!(
                out,
                "<tr><td>{}</td><td>{} / {}</td><td>{}</td></tr>",
                i + 1,
                escape(a),
                escape(b),
                mm(*d)
            );
        }
        out += "</table>";
    }
    out += "</div>";
    let _ = write!(
        out,
        "<div class=\"reach\"><h3>Reach kept over the rays</h3>{}<p>Per ray: green as far as the kernel lets the robot go, \
         grey from its first trip (red mark) to where the meshes first touch (the bar's end; the whole ray when they never do).</p></div></div>",
        rr.reach_plot
    );
    out
}

/// Runs the fleet (and the robots outside it) and writes `OUT/index.html`, and the Markdown page when `fleet_md` is
/// given; returns the robots. Writes nothing else.
pub fn generate(
    manifests: &[PathBuf],
    outside: &[PathBuf],
    out_dir: &Path,
    fleet_md: Option<&Path>,
    poses: usize,
    seed: u64,
    read: &ReadOptions,
) -> Result<Vec<RobotReport>> {
    let mut robots = Vec::new();
    for (path, is_outside) in manifests
        .iter()
        .map(|p| (p, false))
        .chain(outside.iter().map(|p| (p, true)))
    {
        crate::messages::note(&format!("sweeping {} ({poses} poses)", path.display()));
        robots.push(RobotReport {
            outside: is_outside,
            ..robot_report(path, poses, seed, read)?
        });
    }
    std::fs::create_dir_all(out_dir)
        .map_err(|e| Error::at(out_dir, None, format!("cannot create: {e}")))?;
    let page = out_dir.join("index.html");
    crate::io::atomic::write_atomic(&page, html_page(&robots, poses, seed).as_bytes())?;
    if let Some(fleet_md) = fleet_md {
        if let Some(dir) = fleet_md.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| Error::at(dir, None, format!("cannot create: {e}")))?;
        }
        crate::io::atomic::write_atomic(fleet_md, fleet_markdown(&robots, poses, seed).as_bytes())?;
    }
    Ok(robots)
}
