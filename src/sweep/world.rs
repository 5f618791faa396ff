//! `collide sweep MANIFEST --world SCENE --pitch P`: the world check (`Model::check_world`,
//! margin 0) judged on the measure's rays and on seeded uniform poses against the truth,
//! for every prepared set (docs/world.md, "Measured: sweep --world").
//!
//! The scene is a triangle mesh (STL, OBJ or DAE, read as robot meshes are) in the robot's
//! root frame, the kernel's world frame; its surface is voxelised at the pitch on the
//! lattice through the origin ([`OccupancyGrid::from_triangles`]): the cells the world
//! check sees. Per pose, four judgements, each a superset of the next when all is well:
//!
//! - **K**: the kernel trips (some primitive's value at or below 0);
//! - **P**: some written primitive touches an occupied cell's box, exactly
//!   ([`crate::truth::cells::PrimOracle`]: other means than the kernel's);
//! - **M**: some link's real mesh touches an occupied cell's box
//!   ([`crate::truth::cells::mesh_on_cells`]), the truth the kernel is judged by;
//! - **S**: some link's real mesh touches the scene's real surface or lies inside one of its
//!   closed parts ([`crate::truth::mesh::MeshTruth`], as the self sweep's mesh truth).
//!
//! Missed: M without K (must be 0), and P without K (the kernel above an exact distance:
//! must be 0). The conservatism against the real scene, K without S, splits along the
//! chain: the kernel's own part (K without P, "refused beyond the exact distances"), the
//! link geometry's (P without M: the primitives against the meshes, both against the
//! cells) and the grid's (M without S: the cells against the real surface, the same for
//! every set). S without M (a contact the cells miss: a part inside a closed object, away
//! from its surface) and M without P (a mesh outside its primitives) are counted apart.
//!
//! Deterministic: every pose is judged by index; only the timings vary.

use super::{Prepared, RayOptions, Set};
use crate::error::{Error, Result};
use crate::io::mesh::{MeshLimits, load_mesh};
use crate::kernel::vec3::{Iso, V3};
use crate::kernel::world::{OccupancyGrid, World, WorldState};
use crate::kernel::{Model, Workspace};
use crate::truth::cells::{PrimOracle, mesh_on_cells, prim_oracles};
use crate::truth::judge::{Timing, timing_of};
use crate::truth::mesh::MeshTruth;
use crate::truth::poses::{for_each_pose, uniform_q};
use crate::truth::reach::Rays;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The world check's margin in this measure: contact.
pub const WORLD_MARGIN_M: f64 = 0.0;

/// A scene ready to sweep: its cells and its surface.
pub struct Scene {
    pub path: PathBuf,
    pub triangles: usize,
    pub world: World,
    /// The scene's mesh as the one "link" of a mesh truth (margin 0).
    surface: MeshTruth,
}

/// Reads `path` and voxelises its surface at `pitch` (metres). Errors (input, exit 2)
/// name the file: unreadable, no triangles, a pitch not finite and > 0, a grid past the
/// kernel's limits.
pub fn load_scene(path: &Path, pitch: f64, limits: &MeshLimits) -> Result<Scene> {
    if !(pitch.is_finite() && pitch > 0.0) {
        return Err(Error::input(format!(
            "{}: --pitch {pitch}: the cell side must be a finite length > 0 (metres)",
            path.display()
        )));
    }
    let mesh = load_mesh(path, [1.0; 3], limits)?;
    if mesh.triangles.is_empty() {
        return Err(Error::input(format!(
            "{}: the scene has no triangles",
            path.display()
        )));
    }
    let grid = OccupancyGrid::from_triangles(&mesh.vertices, &mesh.triangles, pitch, [0.0; 3])
        .map_err(|e| {
            Error::input(format!(
                "{}: the scene at pitch {pitch} m: {e}",
                path.display()
            ))
        })?;
    let world =
        World::new(grid, vec![]).map_err(|e| Error::input(format!("{}: {e}", path.display())))?;
    let triangles = mesh.triangles.len();
    let surface = MeshTruth::new(&["scene".into()], &BTreeMap::from([("scene".into(), mesh)]));
    Ok(Scene {
        path: path.to_path_buf(),
        triangles,
        world,
        surface,
    })
}

/// Where a pose comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum PoseRef {
    /// Seeded uniform pose `i`.
    Uniform(usize),
    /// Step `k` of ray `r`.
    Ray(usize, usize),
}

/// A pose the kernel cleared while a truth touched.
#[derive(Debug, Clone, PartialEq)]
pub struct WorldMissed {
    pub set: Set,
    pub pose: PoseRef,
    /// The link whose mesh (or primitive) touches a cell.
    pub link: String,
    /// `"meshes"` or `"primitives"`: which truth touched.
    pub truth: &'static str,
}

/// The rays' free space for one set.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WorldRays {
    /// Steps before each ray's first mesh-on-cell contact, summed, and those the kernel
    /// refuses.
    pub free: usize,
    pub refused: usize,
    /// Mean over the rays that start free of `min(t_trip, t_truth) / t_truth`.
    pub reach_kept: Option<f64>,
    /// Rays whose first contact step the kernel cleared (must be 0).
    pub missed: usize,
}

/// The kernel's cost on the uniform poses (single thread, the least of three calls).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WorldTiming {
    pub full: Timing,
    pub verdict: Timing,
    /// Occupied cells the windows visited, narrow phases run, per call; the share of
    /// narrow phases that reached GJK.
    pub cells_per_call: f64,
    pub narrow_per_call: f64,
    pub gjk_share: f64,
}

/// One set's figures over the uniform poses (counts of poses).
#[derive(Debug, Clone, PartialEq)]
pub struct WorldSetReport {
    pub set: Set,
    pub primitives: usize,
    /// K: the kernel refuses.
    pub refused: usize,
    /// P: a written primitive touches a cell (exact).
    pub exact_contacts: usize,
    /// M without K, P without K (both must be 0).
    pub missed: usize,
    pub missed_exact: usize,
    /// K without M: refused while every mesh is apart from every cell.
    pub refused_apart: usize,
    /// K without P: the kernel's own part (its bounds beyond the exact distances).
    pub beyond_exact: usize,
    /// P without M: the link geometry's part.
    pub geometry_part: usize,
    /// M without S: the grid's part (the same for every set).
    pub grid_part: usize,
    /// K without S: refused while the meshes are apart from the real scene.
    pub refused_beyond_scene: usize,
    /// M without P: a mesh on a cell its primitives do not reach (containment broken).
    pub outside_primitives: usize,
    pub rays: WorldRays,
    pub timing: WorldTiming,
}

/// `collide sweep --world`'s results.
#[derive(Debug, Clone, PartialEq)]
pub struct WorldSweep {
    pub robot: String,
    pub manifest: PathBuf,
    pub scene: PathBuf,
    pub scene_triangles: usize,
    pub pitch: f64,
    pub cells: usize,
    pub index_bytes: usize,
    pub poses: usize,
    pub seed: u64,
    pub rays: RayOptions,
    /// M and S over the uniform poses, and S without M (contacts the cells miss).
    pub cell_contacts: usize,
    pub surface_contacts: usize,
    pub grid_misses: usize,
    /// Whether the rest pose puts a mesh on a cell (then no ray has a free pose).
    pub rest_on_cells: bool,
    pub sets: Vec<WorldSetReport>,
    pub missed: Vec<WorldMissed>,
    pub elapsed_s: f64,
    pub warnings: Vec<String>,
}

impl WorldSweep {
    /// Missed poses against the meshes or the exact primitives, every set (must be 0).
    pub fn total_missed(&self) -> usize {
        self.missed.len()
    }
}

/// One pose's set-independent truth: the first link whose mesh touches a cell (M), and
/// whether a mesh touches the real scene (S).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct PoseTruth {
    on_cells: Option<usize>,
    on_surface: bool,
}

/// What the truths need of the robot: per kernel link its mesh and bounding sphere.
struct Links<'a> {
    meshes: Vec<Option<(&'a crate::geom::mesh::TriMesh, (V3, f64))>>,
    truth: &'a MeshTruth,
}

impl Links<'_> {
    fn pose_truth(&self, scene: &Scene, ws: &Workspace) -> PoseTruth {
        let grid = scene.world.grid();
        let mut t = PoseTruth::default();
        for (i, m) in self.meshes.iter().enumerate() {
            let Some((mesh, sphere)) = m else { continue };
            let (rot, pos) = ws.link_pose(i);
            if t.on_cells.is_none() && mesh_on_cells(grid, mesh, *sphere, &rot, pos) {
                t.on_cells = Some(i);
            }
            if !t.on_surface {
                t.on_surface = self.truth.touching_with(
                    i,
                    &Iso { rot, pos },
                    &scene.surface,
                    0,
                    &Iso::IDENTITY,
                );
            }
            if t.on_cells.is_some() && t.on_surface {
                break;
            }
        }
        t
    }

    fn on_cells(&self, scene: &Scene, ws: &Workspace) -> Option<usize> {
        let grid = scene.world.grid();
        self.meshes.iter().enumerate().find_map(|(i, m)| {
            let (mesh, sphere) = m.as_ref()?;
            let (rot, pos) = ws.link_pose(i);
            mesh_on_cells(grid, mesh, *sphere, &rot, pos).then_some(i)
        })
    }
}

/// The first primitive (by link) that touches a cell, exactly.
fn exact_on_cells(oracles: &[PrimOracle], grid: &OccupancyGrid, ws: &Workspace) -> Option<usize> {
    oracles.iter().find_map(|o| {
        let (rot, pos) = ws.link_pose(o.link);
        o.on_cells(grid, &rot, pos).then_some(o.link)
    })
}

/// The kernel's verdict at `q` (margin 0), cold.
fn trips(m: &Model, q: &[f64], ws: &mut Workspace, world: &World, st: &mut WorldState) -> bool {
    m.check_world_verdict(q, ws, world, st, WORLD_MARGIN_M)
        .tripped
}

/// The median of the least of three timed calls per pose, and the counters of the full
/// check, over `qs`; asserts that the two forms agree on the verdict.
fn time_world(m: &Model, world: &World, qs: &[Vec<f64>]) -> WorldTiming {
    let mut ws = m.workspace();
    let mut st = WorldState::new(m);
    let (mut full, mut verdict) = (vec![], vec![]);
    let (mut cells, mut narrow, mut gjk) = (0u64, 0u64, 0u64);
    let least_of_three = |f: &mut dyn FnMut()| {
        (0..3)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_nanos() as u64
            })
            .min()
            .unwrap_or(0)
    };
    for q in qs {
        let mut r = None;
        full.push(least_of_three(&mut || {
            r = Some(m.check_world(q, &mut ws, world, &mut st, WORLD_MARGIN_M))
        }));
        let s = st.stats();
        cells += u64::from(s.cells);
        narrow += u64::from(s.narrow);
        gjk += u64::from(s.gjk);
        let mut v = None;
        verdict.push(least_of_three(&mut || {
            v = Some(m.check_world_verdict(q, &mut ws, world, &mut st, WORLD_MARGIN_M))
        }));
        debug_assert_eq!(r.map(|r| r.tripped), v.map(|v| v.tripped));
    }
    full.sort_unstable();
    verdict.sort_unstable();
    let n = qs.len().max(1) as f64;
    WorldTiming {
        full: timing_of(&full),
        verdict: timing_of(&verdict),
        cells_per_call: cells as f64 / n,
        narrow_per_call: narrow as f64 / n,
        gjk_share: gjk as f64 / narrow.max(1) as f64,
    }
}

impl Prepared {
    /// The world sweep of the prepared sets in `scene`: `poses` uniform poses of `seed`
    /// and the rays of `rays` (module docs).
    pub fn run_world(
        &self,
        scene: &Scene,
        poses: usize,
        seed: u64,
        rays: RayOptions,
    ) -> WorldSweep {
        let started = Instant::now();
        let fit = self.fit_kernel();
        let model = &fit.model;
        let names = &fit.link_names;
        let grid = scene.world.grid();
        let links = Links {
            meshes: names
                .iter()
                .enumerate()
                .map(|(i, n)| Some((self.meshes.get(n)?, self.mesh_truth.sphere(i)?)))
                .collect(),
            truth: &self.mesh_truth,
        };
        // The truths of the uniform poses, once.
        let truth: Vec<PoseTruth> = for_each_pose(model, seed, poses, |s, _| {
            model.fk(&s.q, &mut s.ws);
            links.pose_truth(scene, &s.ws)
        });
        let qs: Vec<Vec<f64>> = (0..poses)
            .map(|i| {
                let mut q = vec![0.0; model.dof()];
                uniform_q(model, seed, i as u64, &mut q);
                q
            })
            .collect();
        // The rays: per ray its first step with a mesh on a cell (`steps + 1`: none).
        let ray_def = Rays {
            rays: rays.rays,
            steps: rays.steps,
            seed: rays.seed,
            rest_q: fit.q_from(&self.manifest.rest_pose.q),
        };
        let t_truth: Vec<(usize, Option<usize>)> = (0..rays.rays)
            .into_par_iter()
            .map_init(
                || (model.workspace(), vec![0.0; model.dof()]),
                |(ws, q), r| {
                    for k in 0..=rays.steps {
                        ray_def.pose(model, r, k, q);
                        model.fk(q, ws);
                        if let Some(l) = links.on_cells(scene, ws) {
                            return (k, Some(l));
                        }
                    }
                    (rays.steps + 1, None)
                },
            )
            .collect();
        let mut missed = vec![];
        let mut sets = vec![];
        for s in &self.sets {
            let m = &s.kernel.model;
            let oracles = prim_oracles(m);
            // Per uniform pose: (K, P), in parallel, each pose by index.
            let judged: Vec<(bool, Option<usize>)> = qs
                .par_iter()
                .map_init(
                    || (m.workspace(), WorldState::new(m)),
                    |(ws, st), q| {
                        let k = trips(m, q, ws, &scene.world, st);
                        (k, exact_on_cells(&oracles, grid, ws))
                    },
                )
                .collect();
            let mut rep = WorldSetReport {
                set: s.set,
                primitives: oracles.len(),
                refused: 0,
                exact_contacts: 0,
                missed: 0,
                missed_exact: 0,
                refused_apart: 0,
                beyond_exact: 0,
                geometry_part: 0,
                grid_part: 0,
                refused_beyond_scene: 0,
                outside_primitives: 0,
                rays: WorldRays::default(),
                timing: WorldTiming::default(),
            };
            for (i, (&(k, p), t)) in judged.iter().zip(&truth).enumerate() {
                let (p_, m_, s_) = (p.is_some(), t.on_cells.is_some(), t.on_surface);
                let count = |c: &mut usize, b: bool| *c += b as usize;
                count(&mut rep.refused, k);
                count(&mut rep.exact_contacts, p_);
                count(&mut rep.missed, !k && m_);
                count(&mut rep.missed_exact, !k && p_);
                count(&mut rep.refused_apart, k && !m_);
                count(&mut rep.beyond_exact, k && !p_);
                count(&mut rep.geometry_part, p_ && !m_);
                count(&mut rep.grid_part, m_ && !s_);
                count(&mut rep.refused_beyond_scene, k && !s_);
                count(&mut rep.outside_primitives, m_ && !p_);
                for (hit, what) in [(t.on_cells, "meshes"), (p, "primitives")] {
                    if let (false, Some(l)) = (k, hit) {
                        missed.push(WorldMissed {
                            set: s.set,
                            pose: PoseRef::Uniform(i),
                            link: names[l].clone(),
                            truth: what,
                        });
                    }
                }
            }
            rep.rays = self.judge_world_rays(m, scene, &ray_def, &t_truth, s.set, &mut missed);
            rep.timing = time_world(m, &scene.world, &qs);
            sets.push(rep);
        }
        let count = |f: &dyn Fn(&PoseTruth) -> bool| truth.iter().filter(|t| f(t)).count();
        WorldSweep {
            robot: self.manifest.robot.clone(),
            manifest: self.path.clone(),
            scene: scene.path.clone(),
            scene_triangles: scene.triangles,
            pitch: grid.pitch(),
            cells: grid.len(),
            index_bytes: grid.index_bytes(),
            poses,
            seed,
            rays,
            cell_contacts: count(&|t| t.on_cells.is_some()),
            surface_contacts: count(&|t| t.on_surface),
            grid_misses: count(&|t| t.on_surface && t.on_cells.is_none()),
            rest_on_cells: t_truth.first().is_some_and(|t| t.0 == 0),
            sets,
            missed,
            elapsed_s: started.elapsed().as_secs_f64(),
            warnings: self.warnings.clone(),
        }
    }

    /// One set's kernel on the rays: each ray's steps up to its first contact.
    fn judge_world_rays(
        &self,
        m: &Model,
        scene: &Scene,
        rays: &Rays,
        t_truth: &[(usize, Option<usize>)],
        set: Set,
        missed: &mut Vec<WorldMissed>,
    ) -> WorldRays {
        let per_ray: Vec<(usize, usize, usize, bool)> = t_truth
            .par_iter()
            .enumerate()
            .map_init(
                || (m.workspace(), WorldState::new(m), vec![0.0; m.dof()]),
                |(ws, st, q), (r, &(tt, _))| {
                    let (mut refused, mut t_trip) = (0, rays.steps + 1);
                    let mut missed = false;
                    for k in 0..=tt.min(rays.steps) {
                        rays.pose(m, r, k, q);
                        let tripped = trips(m, q, ws, &scene.world, st);
                        if tripped {
                            t_trip = t_trip.min(k);
                        }
                        if k < tt {
                            refused += tripped as usize;
                        } else {
                            missed = !tripped;
                        }
                    }
                    (tt, refused, t_trip, missed)
                },
            )
            .collect();
        let mut out = WorldRays::default();
        let mut kept = vec![];
        for (r, &(tt, refused, t_trip, miss)) in per_ray.iter().enumerate() {
            out.free += tt.min(rays.steps + 1);
            out.refused += refused;
            if tt > 0 {
                kept.push(t_trip.min(tt) as f64 / tt as f64);
            }
            if miss {
                out.missed += 1;
                missed.push(WorldMissed {
                    set,
                    pose: PoseRef::Ray(r, tt),
                    link: t_truth[r]
                        .1
                        .map_or_else(String::new, |l| self.fit_kernel().link_names[l].clone()),
                    truth: "meshes",
                });
            }
        }
        out.reach_kept = (!kept.is_empty()).then(|| kept.iter().sum::<f64>() / kept.len() as f64);
        out
    }
}

/// Prepares a manifest and its compare sets, loads the scene, and sweeps.
#[allow(clippy::too_many_arguments)]
pub fn sweep_world(
    path: &Path,
    scene: &Path,
    pitch: f64,
    poses: usize,
    seed: u64,
    rays: RayOptions,
    compare: &[Set],
    read: &crate::io::robot::ReadOptions,
) -> Result<WorldSweep> {
    // The scene first: a bad scene or pitch fails before the robot is read.
    let scene = load_scene(scene, pitch, &read.mesh_limits)?;
    let prepared = super::prepare(path, compare, read)?;
    Ok(prepared.run_world(&scene, poses, seed, rays))
}
