//! `collide export`: the proven geometry and ACM in the files other checkers read
//! (MoveIt, Pinocchio with coal, MuJoCo, Drake), one module per target.
//!
//! Every target writes the manifest's primitives under unique names (`LINK__capsule0`,
//! `LINK__box0`, `LINK__hull0`), each tight piece's hull as one closed OBJ with outward
//! faces, and the ACM in the target's own form. Positions are printed as the shortest
//! text that parses back to the same f64; sizes (radii, half extents, lengths) are
//! rounded up at [`SIZE_DECIMALS`], so the text still holds the mesh. Nothing counts
//! until the containment proof passed again on the files as a consumer reads them
//! ([`prove`]), parsed back with the crate's own readers.

pub mod drake;
pub mod mjcf;
pub mod pinocchio;
pub mod ros;
mod urdf;

use crate::error::{Error, Result};
use crate::fit::BoxPrim as FitBox;
use crate::geom::containment::exact_hull;
use crate::geom::mesh::TriMesh;
use crate::geom::point::Solid;
use crate::io::mesh::{MeshLimits, load_mesh};
use crate::io::package::PackageResolver;
use crate::io::robot::LoadedRobot;
use crate::io::srdf::{WrittenPair, srdf_text};
use crate::manifest::{Manifest, Primitive};
use crate::model::{GeometryPiece, Robot, Role, Shape};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Decimals of a printed size: finer than any grid the manifest uses (0.1 mm, hull 1 µm),
/// so a size on the grid prints as itself and a derived one (a capsule's length) moves
/// outward by less than a nanometre.
pub const SIZE_DECIMALS: i32 = 9;

/// What reads the export.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Target {
    /// MoveIt and anything on urdfdom: no capsule, so cylinder + 2 spheres.
    Ros,
    /// Pinocchio (coal): `<collision_checking>` capsules and convex meshes.
    Pinocchio,
    /// MuJoCo: `fromto` capsules, half-extent boxes, mesh hulls, `<contact><exclude>`.
    Mjcf,
    /// Drake: `<capsule>`, `<drake:declare_convex/>`, collision filter groups.
    Drake,
}

impl Target {
    pub const ALL: [Target; 4] = [Target::Ros, Target::Pinocchio, Target::Mjcf, Target::Drake];

    pub fn name(self) -> &'static str {
        match self {
            Target::Ros => "ros",
            Target::Pinocchio => "pinocchio",
            Target::Mjcf => "mjcf",
            Target::Drake => "drake",
        }
    }

    pub fn parse(s: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name() == s)
    }
}

/// One file of an export, relative to the target's directory.
pub struct File {
    pub path: PathBuf,
    pub bytes: Vec<u8>,
}

/// One target's files, and its main file (what a consumer is pointed at).
pub struct Export {
    pub target: Target,
    pub main: PathBuf,
    pub files: Vec<File>,
}

/// One written primitive of a link, by its unique name.
pub enum Piece<'a> {
    Capsule {
        name: String,
        c: &'a crate::manifest::Capsule,
    },
    Box {
        name: String,
        b: &'a crate::manifest::BoxPrim,
    },
    /// A tight box's hull, written as one convex OBJ (`file`, relative to the target dir).
    Hull {
        name: String,
        file: String,
        obj: String,
    },
}

/// The link's primitives with their names; a tight box becomes its hull (the innermost
/// proven set), whose OBJ is made here.
pub fn pieces(link: &crate::manifest::Link) -> Result<Vec<Piece<'_>>> {
    let (mut nc, mut nb, mut nh) = (0, 0, 0);
    let mut out = Vec::new();
    for p in &link.primitives {
        match p {
            Primitive::Capsule(c) => {
                out.push(Piece::Capsule {
                    name: format!("{}__capsule{nc}", link.name),
                    c,
                });
                nc += 1;
            }
            Primitive::Box(b) => match b.tight() {
                None => {
                    out.push(Piece::Box {
                        name: format!("{}__box{nb}", link.name),
                        b,
                    });
                    nb += 1;
                }
                Some((_, hull)) => {
                    let name = format!("{}__hull{nh}", link.name);
                    let obj = hull_obj(hull).map_err(|why| {
                        Error::check(format!("link `{}`: hull {nh}: {why}", link.name))
                    })?;
                    out.push(Piece::Hull {
                        file: format!("meshes/{name}.obj"),
                        name,
                        obj,
                    });
                    nh += 1;
                }
            },
        }
    }
    Ok(out)
}

/// Steps per metre of the grid OBJ vertices are written on: 2^-24 m (60 nm), where every
/// coordinate below 1 m is an f32 exactly (and the hull proof is exact).
const OBJ_GRID: f64 = crate::geom::containment::OBJ_GRID_STEPS;

/// The hull as one closed OBJ with outward faces, which holds the proven hull as its
/// readers read it: OBJ readers (MuJoCo, assimp under coal, this crate's tobj) keep
/// vertices as f32, so the vertices go onto the 2^-24 m grid (f32 values all below 1 m).
/// Each vertex `v` is first scaled away from a deep point `c` by `s = 1 + g / r` (`g` the
/// grid step, `r` the least distance from `c` to a facet), then rounded to the nearest
/// grid point (at most `0.87 g` away). That hull holds the proven one: in every direction
/// `u` its support gains `(s - 1) (h(u) - u.c) >= g` from the scaling and loses at most
/// `0.87 g` to the rounding; on the fleet the written hulls stand at most 7 µm off the
/// proven ones. (One point per vertex: cell corners 60 nm apart leave near-flat facets on
/// which MuJoCo's support search stalls; smaller scalings were tried: none held.) The
/// hull is computed exactly on the grid's integers (`geom::containment::exact_hull`) and
/// checked to hold every proven vertex; should it not, each vertex is replaced by the
/// corners of its grid cell. Each vertex is printed so that f32 and f64 readers both read
/// it exactly.
pub fn hull_obj(hull: &[[f64; 3]]) -> std::result::Result<String, String> {
    use crate::geom::containment::HullPlanes;
    if !hull.iter().flatten().all(|x| x.abs() < 1.0) {
        return Err("a hull vertex 1 m or more from its link frame (OBJ vertices are f32)".into());
    }
    let planes = HullPlanes::new(hull)?;
    let (c, r) = deep_centre(&planes, hull);
    if r.is_nan() || r <= 0.0 {
        return Err("the hull has no volume".into());
    }
    let s = 1.0 + 1.0 / (OBJ_GRID * r);
    let once: Vec<[i64; 3]> = hull
        .iter()
        .map(|w| [0, 1, 2].map(|i| ((c[i] + s * (w[i] - c[i])) * OBJ_GRID).round() as i64))
        .collect();
    let (pts, faces) = match grid_hull(once) {
        Ok((pts, faces)) if holds(&pts, hull) => (pts, faces),
        _ => {
            let mut corners = Vec::new();
            for w in hull {
                let [x, y, z] =
                    w.map(|x| ((x * OBJ_GRID).floor() as i64, (x * OBJ_GRID).ceil() as i64));
                for a in [x.0, x.1] {
                    for b in [y.0, y.1] {
                        for c in [z.0, z.1] {
                            corners.push([a, b, c]);
                        }
                    }
                }
            }
            grid_hull(corners)?
        }
    };
    let mut used: Vec<usize> = faces.iter().flatten().copied().collect();
    used.sort_unstable();
    used.dedup();
    let index: BTreeMap<usize, usize> = used.iter().enumerate().map(|(i, &v)| (v, i + 1)).collect();
    let mut out = String::from(
        "# collide export: one convex hull, faces outward (counter-clockwise seen from outside)\n",
    );
    for &v in &used {
        let [x, y, z] = pts[v].map(|k| k as f64 / OBJ_GRID);
        out += &format!("v {} {} {}\n", num(x), num(y), num(z));
    }
    for f in &faces {
        out += &format!("f {} {} {}\n", index[&f[0]], index[&f[1]], index[&f[2]]);
    }
    Ok(out)
}

/// A point deep inside the hull and its depth (the least distance to a facet): from the
/// vertex mean, a pattern search over the 26 grid directions with halving steps. The
/// deeper the centre, the less the scaling of [`hull_obj`] grows the hull (a thin link's
/// mean may sit near one face).
fn deep_centre(
    planes: &crate::geom::containment::HullPlanes,
    hull: &[[f64; 3]],
) -> ([f64; 3], f64) {
    let n = hull.len() as f64;
    let mut c = [0, 1, 2].map(|i| hull.iter().map(|w| w[i]).sum::<f64>() / n);
    let mut depth = planes.depth(c);
    let mut step = depth.abs().max(1e-4);
    while step > 1e-7 {
        let best = crate::geom::dop26::DIRS
            .iter()
            .map(|u| [c[0] + step * u[0], c[1] + step * u[1], c[2] + step * u[2]])
            .map(|p| (planes.depth(p), p))
            .fold((depth, c), |a, b| if b.0 > a.0 { b } else { a });
        if best.0 > depth {
            (depth, c) = best;
        } else {
            step *= 0.5;
        }
    }
    (c, depth)
}

type GridHull = (Vec<[i64; 3]>, Vec<[usize; 3]>);

fn grid_hull(mut pts: Vec<[i64; 3]>) -> std::result::Result<GridHull, String> {
    pts.sort_unstable();
    pts.dedup();
    let faces = exact_hull(&pts)?;
    Ok((pts, faces))
}

/// Does the hull of grid points `pts` hold every vertex of `hull`?
fn holds(pts: &[[i64; 3]], hull: &[[f64; 3]]) -> bool {
    let w: Vec<[f64; 3]> = pts.iter().map(|k| k.map(|k| k as f64 / OBJ_GRID)).collect();
    match crate::geom::containment::HullPlanes::new_on_obj_grid(&w) {
        Ok(planes) => hull.iter().all(|p| planes.depth(*p) >= 0.0),
        Err(_) => false,
    }
}

/// The shortest text that parses back to `x` exactly (never `-0`).
pub fn num(x: f64) -> String {
    if x == 0.0 { "0".into() } else { format!("{x}") }
}

/// `x` rounded up at [`SIZE_DECIMALS`]: the printed size is never below the proven one.
pub fn up(x: f64) -> String {
    let scale = 10f64.powi(SIZE_DECIMALS);
    let mut k = (x * scale).ceil();
    // The smallest printed value at or above x (the product may round either way).
    while k / scale < x {
        k += 1.0;
    }
    while (k - 1.0) / scale >= x {
        k -= 1.0;
    }
    let s = format!("{:.*}", SIZE_DECIMALS as usize, k / scale);
    let s = s.trim_end_matches('0').trim_end_matches('.').to_string();
    debug_assert!(s.parse::<f64>().unwrap() >= x);
    s
}

/// A capsule as a segment midpoint, a rotation taking z onto the segment, and its length.
pub fn capsule_frame(c: &crate::manifest::Capsule) -> ([f64; 3], [f64; 3], f64) {
    let d = [c.b[0] - c.a[0], c.b[1] - c.a[1], c.b[2] - c.a[2]];
    let mid = [
        0.5 * (c.a[0] + c.b[0]),
        0.5 * (c.a[1] + c.b[1]),
        0.5 * (c.a[2] + c.b[2]),
    ];
    let len = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
    let rpy = crate::model::rotation::quat_to_rpy(&crate::model::rotation::z_onto(d));
    (mid, rpy, len)
}

/// The SRDF every URDF target shares: each exempt pair as `disable_collisions`, its proof
/// in a comment above it (MoveIt ignores `reason`; Pinocchio reads only the pairs).
pub fn srdf(m: &Manifest) -> String {
    let rows: Vec<WrittenPair> = m
        .acm
        .iter()
        .map(|r| WrittenPair {
            a: &r.a,
            b: &r.b,
            reason: srdf_reason(&r.reason),
            comment: Some(&r.proof),
        })
        .collect();
    srdf_text(
        &m.robot,
        &format!(
            "written by collide export from the manifest of {}: every exempt pair of its ACM, with its proof",
            m.robot
        ),
        &rows,
    )
}

fn srdf_reason(reason: &str) -> &'static str {
    match reason {
        "adjacent" => "Adjacent",
        "never" => "Never",
        "always" => "Always",
        _ => "User",
    }
}

/// A URDF target's files: NAME.urdf, its hull OBJs, and NAME.srdf when the target reads
/// the ACM from one.
fn urdf_export(
    target: Target,
    m: &Manifest,
    urdf: String,
    meshes: Vec<urdf::OwnFile>,
    with_srdf: bool,
) -> Export {
    let main = PathBuf::from(format!("{}.urdf", m.robot));
    let mut files = vec![File {
        path: main.clone(),
        bytes: urdf.into_bytes(),
    }];
    if with_srdf {
        files.push(File {
            path: PathBuf::from(format!("{}.srdf", m.robot)),
            bytes: srdf(m).into_bytes(),
        });
    }
    for (path, bytes) in meshes {
        files.push(File {
            path: PathBuf::from(path),
            bytes,
        });
    }
    Export {
        target,
        main,
        files,
    }
}

/// Builds one target's files from a verified manifest and the robot it was made from.
pub fn build(target: Target, m: &Manifest, loaded: &LoadedRobot) -> Result<Export> {
    match target {
        Target::Ros => ros::build(m, loaded),
        Target::Pinocchio => pinocchio::build(m, loaded),
        Target::Mjcf => mjcf::build(m, loaded),
        Target::Drake => drake::build(m, loaded),
    }
}

/// The link's primitives as a consumer of `target` reads the written files: parsed back
/// with the crate's own readers from `dir` (one target's directory).
pub fn read_back(
    target: Target,
    export: &Export,
    dir: &Path,
    loaded: &LoadedRobot,
) -> Result<BTreeMap<String, Vec<Solid>>> {
    let main = dir.join(&export.main);
    // The target's folder is a root too: the ros export is a package of its own.
    let mut roots = vec![dir.to_path_buf()];
    roots.extend(loaded.resolver.roots.iter().cloned());
    let resolver = PackageResolver::from_env(&roots, Some(dir));
    let limits = crate::io::xml::XmlLimits::default();
    let robot: Robot = match target {
        Target::Mjcf => crate::io::mjcf::read_mjcf(&main, &resolver, &Default::default())?,
        _ => crate::io::urdf::read_urdf(&main, &resolver, &limits)?,
    };
    if target == Target::Pinocchio {
        pinocchio::check_tags(&main, &limits)?;
    }
    if target == Target::Drake {
        drake::check_tags(&main, &limits)?;
    }
    let mut out = BTreeMap::new();
    for link in &robot.links {
        let pieces: Vec<&GeometryPiece> = link
            .geometry
            .iter()
            .filter(|g| g.role == Role::Collision)
            .collect();
        if pieces.is_empty() {
            continue;
        }
        let prims = primitives_read(target, &link.name, &pieces)?;
        out.insert(link.name.clone(), prims);
    }
    Ok(out)
}

fn apply(g: &GeometryPiece, p: [f64; 3]) -> [f64; 3] {
    let v = g.origin * nalgebra::Point3::from(p);
    [v.x, v.y, v.z]
}

/// What a consumer of `target` makes of one link's collision pieces, as proof primitives.
fn primitives_read(target: Target, link: &str, pieces: &[&GeometryPiece]) -> Result<Vec<Solid>> {
    let bad = |what: String| Error::check(format!("export: link `{link}`: {what}"));
    let mut out = Vec::new();
    let mut spheres: Vec<([f64; 3], f64)> = Vec::new();
    let mut cylinders: Vec<([f64; 3], [f64; 3], f64)> = Vec::new();
    for g in pieces {
        match &g.shape {
            Shape::Capsule { radius, length } => out.push(Solid::capsule(
                apply(g, [0.0, 0.0, -0.5 * length]),
                apply(g, [0.0, 0.0, 0.5 * length]),
                *radius,
            )),
            Shape::Cylinder { radius, length } => {
                let a = apply(g, [0.0, 0.0, -0.5 * length]);
                let b = apply(g, [0.0, 0.0, 0.5 * length]);
                if target == Target::Pinocchio {
                    // `<collision_checking><capsule>`: coal reads the cylinder as a capsule.
                    out.push(Solid::capsule(a, b, *radius));
                } else {
                    cylinders.push((a, b, *radius));
                }
            }
            Shape::Sphere { radius } => spheres.push((apply(g, [0.0; 3]), *radius)),
            Shape::Box { size } => {
                // The box frame as the consumer builds it from the written rpy.
                let rpy = crate::model::rotation::quat_to_rpy(&g.origin.rotation);
                let t = g.origin.translation.vector;
                let b = FitBox {
                    center: [t.x, t.y, t.z],
                    rpy,
                    half_extents: size.map(|s| 0.5 * s),
                };
                out.push(Solid::cuboid(b.center, b.rotation(), b.half_extents));
            }
            Shape::Mesh { path, scale, .. } => {
                let mesh = load_mesh(path, *scale, &MeshLimits::default())?;
                check_closed_outward(&mesh)
                    .map_err(|why| bad(format!("{}: {why}", path.display())))?;
                let hull: Vec<[f64; 3]> = mesh.vertices.iter().map(|v| apply(g, *v)).collect();
                out.push(
                    crate::geom::containment::HullPlanes::new_on_obj_grid(&hull)
                        .map(Solid::Hull)
                        .map_err(|why| bad(format!("{}: {why}", path.display())))?,
                );
            }
            Shape::Ellipsoid { .. } => {
                return Err(bad("an ellipsoid, which export never writes".into()));
            }
        }
    }
    // Cylinder + 2 spheres (ros): the capsule whose end spheres sit on the cylinder's
    // end centres, with the smaller radius; a sphere alone is a capsule of length 0.
    for (a, b, r) in cylinders {
        let near = |p: [f64; 3], s: &([f64; 3], f64)| crate::geom::v3::dist(p, s.0) <= 1e-9;
        let ia = spheres.iter().position(|s| near(a, s));
        let sa = ia.map(|i| spheres.remove(i));
        let ib = spheres.iter().position(|s| near(b, s));
        let sb = ib.map(|i| spheres.remove(i));
        let (Some(sa), Some(sb)) = (sa, sb) else {
            return Err(bad(
                "a cylinder without a sphere on each end (not a capsule)".into(),
            ));
        };
        // The spheres' centres may sit off the cylinder's ends by the 1e-9 allowed:
        // the capsule between them is shrunk by as much, so the three solids hold it.
        let off = crate::geom::v3::dist(a, sa.0).max(crate::geom::v3::dist(b, sb.0));
        out.push(Solid::capsule(sa.0, sb.0, r.min(sa.1).min(sb.1) - off));
    }
    for (c, r) in spheres {
        out.push(Solid::capsule(c, c, r));
    }
    Ok(out)
}

/// One convex piece per OBJ: every edge shared by exactly two faces in opposite
/// directions (closed, consistently oriented) and every vertex on the inner side of every
/// face plane (convex, outward). A consumer that takes the file as its hull (coal's
/// `<convex>` does not compute one) then gets exactly this solid.
pub fn check_closed_outward(mesh: &TriMesh) -> std::result::Result<(), String> {
    use crate::geom::v3::{cross, dot, sub};
    let mut edges: BTreeMap<(u32, u32), i32> = BTreeMap::new();
    for t in &mesh.triangles {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            *edges.entry((a, b)).or_default() += 1;
        }
    }
    for (&(a, b), &n) in &edges {
        if n != 1 || edges.get(&(b, a)) != Some(&1) {
            return Err("not one closed, consistently oriented surface".into());
        }
    }
    let scale = mesh
        .vertices
        .iter()
        .flatten()
        .fold(0.0f64, |m, x| m.max(x.abs()))
        .max(1e-3);
    for t in &mesh.triangles {
        let [p, q, r] = t.map(|i| mesh.vertices[i as usize]);
        let n = cross(sub(q, p), sub(r, p));
        let len = dot(n, n).sqrt();
        if len == 0.0 {
            continue;
        }
        for v in &mesh.vertices {
            if dot(n, sub(*v, p)) / len > 1e-9 * scale {
                return Err("a face does not face outward, or the piece is not convex".into());
            }
        }
    }
    Ok(())
}

/// The containment proof on the files as read back: every link's truth inside the
/// primitives a consumer of `target` reads, and no link gained or lost geometry.
pub fn prove(
    target: Target,
    export: &Export,
    dir: &Path,
    m: &Manifest,
    loaded: &LoadedRobot,
    truth: &BTreeMap<String, TriMesh>,
) -> Result<()> {
    use rayon::prelude::*;
    let read = read_back(target, export, dir, loaded)?;
    let fail = |what: String| {
        Error::check(format!(
            "{}: the {} export does not hold the proven geometry: {what}",
            m.robot,
            target.name()
        ))
    };
    for l in &m.links {
        if !l.primitives.is_empty() && !read.contains_key(&l.name) {
            return Err(fail(format!("link `{}` has no collision geometry", l.name)));
        }
    }
    let results: Vec<Result<()>> = read
        .par_iter()
        .map(|(link, prims)| {
            let Some(mesh) = truth.get(link) else {
                // A link without truth geometry needs nothing held.
                return Ok(());
            };
            crate::fit::proof::prove_solids(mesh, prims)
                .map(|_| ())
                .map_err(|e| fail(format!("link `{link}`: {e}")))
        })
        .collect();
    results.into_iter().collect()
}

/// What `collide export` wrote for one target.
pub struct Written {
    pub target: Target,
    /// The target's directory.
    pub dir: PathBuf,
    /// The file a consumer is pointed at.
    pub main: PathBuf,
    pub files: usize,
    pub hulls: usize,
}

/// Exports a manifest for `targets` into `out/TARGET/`: only once the manifest verifies
/// and every target's files, read back, hold every link's mesh; then each target's
/// directory is replaced whole (written beside it, then renamed), so an error leaves
/// nothing behind and an earlier export is never half replaced.
pub fn export(
    manifest_path: &Path,
    targets: &[Target],
    out: &Path,
    force: bool,
    options: &crate::verify::check::VerifyOptions,
) -> Result<Vec<Written>> {
    let v = crate::verify::check::verify(manifest_path, options)?;
    if let Some(first) = v.violations.first() {
        return Err(Error::input(format!(
            "{}: does not verify ({} violation(s), the first: {} {}: {}); run `collide verify` and fix it before exporting",
            manifest_path.display(),
            v.violations.len(),
            first.check,
            first.subject,
            first.detail
        )));
    }
    let m = crate::manifest::load_manifest(manifest_path)?;
    let loaded = crate::manifest::sources::load_robot_beside(manifest_path, &options.load, "")?;
    if !force && let Some(root) = inside_source_package(out, &loaded) {
        return Err(Error::input(format!(
            "--out {} is inside the source package {}; write elsewhere or pass --force",
            out.display(),
            root.display()
        )));
    }
    let cache = crate::truth::meshes::load_meshes(
        &loaded.robot,
        &options.mesh_limits,
        options.max_total_triangles,
    )?;
    let truth: BTreeMap<String, TriMesh> = crate::truth::meshes::truths(&loaded.robot, &cache)?
        .into_iter()
        .collect();

    // Each target is built and proven in a scratch directory first: the proof reads files.
    let mut ready = Vec::new();
    for &t in targets {
        let e = build(t, &m, &loaded)?;
        let scratch = tempfile::tempdir()
            .map_err(|e| Error::input(format!("cannot make a scratch directory: {e}")))?;
        write_files(scratch.path(), &e.files)?;
        // The scratch folder is this run's own: a message names the folder the files go to.
        let dest = out.join(t.name());
        prove(t, &e, scratch.path(), &m, &loaded, &truth)
            .map_err(|err| renamed(err, scratch.path(), &dest))?;
        ready.push(e);
    }
    let mut written = Vec::new();
    for e in ready {
        let dir = out.join(e.target.name());
        replace_dir(&dir, &e.files)?;
        written.push(Written {
            target: e.target,
            main: dir.join(&e.main),
            dir,
            files: e.files.len(),
            hulls: e
                .files
                .iter()
                .filter(|f| f.path.extension().is_some_and(|x| x == "obj"))
                .count(),
        });
    }
    Ok(written)
}

/// `err` with every mention of folder `from` made one of `to`.
fn renamed(mut err: Error, from: &Path, to: &Path) -> Error {
    let (from, to) = (from.display().to_string(), to.display().to_string());
    err.message = err.message.replace(&from, &to);
    for line in &mut err.context {
        *line = line.replace(&from, &to);
    }
    err
}

fn write_files(dir: &Path, files: &[File]) -> Result<()> {
    for f in files {
        let path = dir.join(&f.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| Error::at(parent, None, format!("cannot create: {e}")))?;
        }
        crate::io::atomic::write_atomic(&path, &f.bytes)?;
    }
    Ok(())
}

/// `dir` holds exactly `files` afterwards: they are written to a sibling directory that
/// is then renamed over it (the old one moved aside first and removed last).
fn replace_dir(dir: &Path, files: &[File]) -> Result<()> {
    let parent = dir.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)
        .map_err(|e| Error::at(parent, None, format!("cannot create: {e}")))?;
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let fresh = tempfile::Builder::new()
        .prefix(&format!(".{name}.new."))
        .tempdir_in(parent)
        .map_err(|e| Error::at(parent, None, format!("cannot write: {e}")))?;
    write_files(fresh.path(), files)?;
    let fresh = fresh.keep();
    let fail = |e: std::io::Error| Error::at(dir, None, format!("cannot replace: {e}"));
    if dir.exists() {
        let old = parent.join(format!(".{name}.old.{}", std::process::id()));
        std::fs::rename(dir, &old).map_err(fail)?;
        std::fs::rename(&fresh, dir).map_err(fail)?;
        std::fs::remove_dir_all(&old).map_err(fail)?;
    } else {
        std::fs::rename(&fresh, dir).map_err(fail)?;
    }
    Ok(())
}

/// The root of the package the robot's description came from, when `out` lies in it:
/// an export there would mix generated files into a vendor's package.
fn inside_source_package(out: &Path, loaded: &LoadedRobot) -> Option<PathBuf> {
    let (written, file) = loaded.sources.first()?;
    let root = match written
        .strip_prefix("package://")
        .and_then(|r| r.split('/').next())
    {
        Some(pkg) => loaded.resolver.find_package(pkg)?,
        None => {
            // The nearest folder above the description with a package.xml, else its own.
            let dir = file.parent()?;
            dir.ancestors()
                .find(|d| d.join("package.xml").is_file())
                .unwrap_or(dir)
                .to_path_buf()
        }
    };
    let root = std::fs::canonicalize(&root).ok()?;
    absolute(out).starts_with(&root).then_some(root)
}

/// `path` made absolute through its nearest existing ancestor (links resolved there).
fn absolute(path: &Path) -> PathBuf {
    let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut rest = Vec::new();
    let mut base = path.as_path();
    loop {
        if let Ok(real) = std::fs::canonicalize(base) {
            let mut out = real;
            for c in rest.iter().rev() {
                out.push(c);
            }
            return crate::io::package::lexical(&out);
        }
        match (base.file_name(), base.parent()) {
            (Some(n), Some(p)) => {
                rest.push(n.to_os_string());
                base = p;
            }
            _ => return path,
        }
    }
}
