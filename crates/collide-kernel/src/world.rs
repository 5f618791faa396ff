//! The world check over the C ABI (`collide_world_*`, `collide_check_world*`,
//! `collide_session_attach`/`detach`) and its Rust API: worlds built from occupied cells,
//! a point cloud or a mesh file, with fixtures; payloads attached to a session's links.
//! docs/world.md has the guarantee.

use super::{
    CollideModel, CollideSession, CollideStatus, Error, Failure, bad, batch, check_margin, guard,
    joint_values, rust_guard, session_mut,
};
/// The kernel's shape types, for Rust callers of [`CollideWorld::with_fixture`] and
/// [`CollideSession::attach_payload`].
pub use collide::kernel::BoxShape;
pub use collide::kernel::world::Shape;
use collide::kernel::world::{Obstacle, OccupancyGrid, World, WorldBody, WorldResult, WorldState};
use std::ffi::{CStr, c_char};
use std::path::Path;
use std::sync::Arc;

mod rust;

/// A world: occupied cells of one grid and fixtures, world frame. Immutable; share one
/// across threads and sessions. Opaque to C.
pub struct CollideWorld {
    world: World,
    /// Unique per world made in this process: the coherent cache's key (an address could
    /// be reused by a later world).
    id: u64,
}

impl CollideWorld {
    fn wrap(world: World) -> CollideWorld {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        CollideWorld {
            world,
            id: NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        }
    }
}

const _: () = {
    const fn shared<T: Send + Sync>() {}
    shared::<CollideWorld>();
};

/// A shape's kind (`CollideShape::kind`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CollideShapeKind {
    /// `center`, `rotation` (row-major, its columns the box axes), `half_extents`.
    Box = 0,
    /// `a`, `b` (the core's ends), `radius`.
    Capsule = 1,
    /// `center`, `radius`.
    Sphere = 2,
    /// The convex hull of `n_points` points at `points` (x, y, z each), 1 to 320.
    Hull = 3,
}

/// A fixture (world frame) or a payload (its link's frame, placed by `xyz`/`rpy`). Only the
/// fields of `kind` are read.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CollideShape {
    pub kind: CollideShapeKind,
    pub center: [f64; 3],
    pub rotation: [f64; 9],
    pub half_extents: [f64; 3],
    pub a: [f64; 3],
    pub b: [f64; 3],
    pub radius: f64,
    pub points: *const f64,
    pub n_points: usize,
}

/// What an obstacle is (`CollideWorldResult::obstacle`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CollideObstacle {
    /// Nothing came within `margin + 0.01`.
    None = 0,
    /// An occupied cell, `cell`.
    Cell = 1,
    /// A fixture, `index` (in the order added).
    Fixture = 2,
    /// A link of the robot, `index` (a payload against a link that does not hold it).
    Link = 3,
    /// Another payload, `index` its id.
    Payload = 4,
}

/// The world check's answer for one configuration.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CollideWorldResult {
    /// A body (a link's primitive or a payload) is at or below `margin` from an occupied
    /// cell's box, a fixture, or (payloads) a link that does not hold it. Never false when
    /// one is.
    pub in_collision: bool,
    /// Every joint value is within its limits.
    pub within_limits: bool,
    /// A lower bound on the least signed distance (metres, negative in overlap), exact
    /// (within 1e-10 m) when below `margin + 0.01`, and never above it: the check looks no
    /// farther (the verdict-only check: the least value found before it stopped).
    pub min_distance: f64,
    /// The robot link of the body attaining it (a payload's holder); -1 with none.
    pub link: i64,
    /// That body's payload id; -1 for the link's own geometry or none.
    pub payload: i64,
    /// What it came near.
    pub obstacle: CollideObstacle,
    /// The cell's indices when `obstacle` is a cell.
    pub cell: [i32; 3],
    /// The fixture index, link index or payload id, else -1.
    pub index: i64,
    /// Witness points of that body and what it came near (world frame, metres), when the
    /// session computes them (`collide_session_set_witness`), the full check ran (not the
    /// verdict-only or coherent forms) and `min_distance <= margin + 0.01` (where it is
    /// exact): apart, their closest points (`point_a` on the body); in overlap, the body's
    /// point deepest in the obstacle and the obstacle's deepest in the body, so that
    /// `point_a - point_b` is the shortest translation of the obstacle that separates them.
    /// Always `|point_a - point_b| = |min_distance|`. NaN otherwise (and in batches).
    pub point_a: [f64; 3],
    /// The witness point on the obstacle; NaN when `point_a` is.
    pub point_b: [f64; 3],
}

impl CollideWorldResult {
    pub const EMPTY: CollideWorldResult = CollideWorldResult {
        in_collision: false,
        within_limits: false,
        min_distance: f64::NAN,
        link: -1,
        payload: -1,
        obstacle: CollideObstacle::None,
        cell: [0; 3],
        index: -1,
        point_a: [f64::NAN; 3],
        point_b: [f64::NAN; 3],
    };

    fn of(r: &WorldResult, within_limits: bool, verdict_only: bool) -> CollideWorldResult {
        let hit = if verdict_only {
            r.first_tripping.or(r.nearest)
        } else {
            r.nearest
        };
        let mut out = CollideWorldResult {
            in_collision: r.tripped,
            within_limits,
            min_distance: r.min_distance,
            ..CollideWorldResult::EMPTY
        };
        if let Some(h) = hit {
            (out.link, out.payload) = match h.body {
                WorldBody::Link(l) => (l as i64, -1),
                WorldBody::Payload { id, link } => (link as i64, i64::from(id)),
            };
            (out.obstacle, out.index) = match h.obstacle {
                Obstacle::Cell(c) => {
                    out.cell = c;
                    (CollideObstacle::Cell, -1)
                }
                Obstacle::Fixture(i) => (CollideObstacle::Fixture, i as i64),
                Obstacle::Link(l) => (CollideObstacle::Link, l as i64),
                Obstacle::Payload(id) => (CollideObstacle::Payload, i64::from(id)),
            };
        }
        out
    }
}

/// Bit for bit: the NaN a result holds where it has no value equals itself.
impl PartialEq for CollideWorldResult {
    fn eq(&self, o: &Self) -> bool {
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let floats = |r: &Self| {
            let mut v = vec![r.min_distance];
            v.extend(r.point_a);
            v.extend(r.point_b);
            bits(&v)
        };
        (
            self.in_collision,
            self.within_limits,
            self.link,
            self.payload,
        ) == (o.in_collision, o.within_limits, o.link, o.payload)
            && (self.obstacle, self.cell, self.index) == (o.obstacle, o.cell, o.index)
            && floats(self) == floats(o)
    }
}

impl Default for CollideWorldResult {
    fn default() -> Self {
        CollideWorldResult::EMPTY
    }
}

/// The Rust shape of a C one; `n_points` doubles triples read from `points`.
unsafe fn shape_of(s: *const CollideShape) -> Result<Shape, Failure> {
    // SAFETY: null or a readable shape.
    let s = unsafe { s.as_ref() }.ok_or_else(|| bad("the shape is null"))?;
    Ok(match s.kind {
        CollideShapeKind::Box => {
            let r = s.rotation;
            Shape::Box(BoxShape {
                center: s.center,
                rotation: [[r[0], r[1], r[2]], [r[3], r[4], r[5]], [r[6], r[7], r[8]]],
                half_extents: s.half_extents,
            })
        }
        CollideShapeKind::Capsule => Shape::Capsule {
            a: s.a,
            b: s.b,
            radius: s.radius,
        },
        CollideShapeKind::Sphere => Shape::Sphere {
            center: s.center,
            radius: s.radius,
        },
        CollideShapeKind::Hull => {
            if s.n_points == 0 || s.points.is_null() {
                return Err(bad("a hull needs points (n_points >= 1, points not null)"));
            }
            let n = s
                .n_points
                .checked_mul(3)
                .ok_or_else(|| bad("n_points overflows"))?;
            // SAFETY: the caller gives `3 * n_points` readable doubles.
            let xyz = unsafe { std::slice::from_raw_parts(s.points, n) };
            Shape::Hull(xyz.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect())
        }
    })
}

/// Reads `n` triples at `p` (null allowed when `n == 0`).
unsafe fn triples<'a, T: Copy>(p: *const T, n: usize, what: &str) -> Result<&'a [T], Failure> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(bad(format!("{what} is null")));
    }
    let len = n
        .checked_mul(3)
        .ok_or_else(|| bad(format!("{n} {what} overflow")))?;
    // SAFETY: the caller gives `3 * n` readable values.
    Ok(unsafe { std::slice::from_raw_parts(p, len) })
}

/// An optional origin: null means `(0, 0, 0)`.
unsafe fn origin_of(origin: *const f64) -> [f64; 3] {
    if origin.is_null() {
        return [0.0; 3];
    }
    // SAFETY: the caller gives 3 readable doubles.
    let o = unsafe { std::slice::from_raw_parts(origin, 3) };
    [o[0], o[1], o[2]]
}

fn world_err(e: String) -> Failure {
    bad(e)
}

/// A world of the grid `g` alone (fixtures are added one by one).
fn grid_world(g: OccupancyGrid) -> Result<World, Failure> {
    World::new(g, vec![]).map_err(world_err)
}

/// Stores `w` in `*out` (checked non-null by the caller) as a new reference.
unsafe fn give(out: *mut *const CollideWorld, w: World) {
    // SAFETY: checked non-null by the caller.
    unsafe { *out = Arc::into_raw(Arc::new(CollideWorld::wrap(w))) };
}

unsafe fn clear_out(out: *mut *const CollideWorld) -> Result<(), Failure> {
    if out.is_null() {
        return Err(bad("out_world is null"));
    }
    // SAFETY: checked non-null.
    unsafe { *out = std::ptr::null() };
    Ok(())
}

/// A world whose occupied cells are `cells` (`n_cells` rows of 3 `int32` indices `i, j,
/// k`; duplicates allowed): cell `(i, j, k)` is the box `origin + pitch · ([i, i+1] ×
/// [j, j+1] × [k, k+1])`. `origin`: 3 doubles, or NULL for `(0, 0, 0)`; `pitch` (metres)
/// finite and > 0. Refused (status `COLLIDE_STATUS_BAD_ARGUMENT`, `*out_world` NULL): a
/// non-finite origin, a bad pitch, more than 16,777,216 distinct cells, indices beyond
/// ±2^28, or cells spanning more than 2^22 bricks of 8³. Free with `collide_world_free`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_world_from_cells(
    origin: *const f64,
    pitch: f64,
    cells: *const i32,
    n_cells: usize,
    out_world: *mut *const CollideWorld,
) -> CollideStatus {
    guard("collide_world_from_cells", || {
        // SAFETY: the caller's pointers, checked.
        unsafe {
            clear_out(out_world)?;
            let c = triples(cells, n_cells, "cells")?;
            let cells: Vec<[i32; 3]> = c.chunks_exact(3).map(|v| [v[0], v[1], v[2]]).collect();
            let g =
                OccupancyGrid::from_cells(origin_of(origin), pitch, &cells).map_err(world_err)?;
            give(out_world, grid_world(g)?);
        }
        Ok(())
    })
}

/// A world occupying every cell (at `pitch`, from `origin` or NULL for `(0, 0, 0)`) that
/// holds a point of `points` (`n_points` rows of x, y, z, metres); a point on a cell face
/// occupies both sides. Refused as `collide_world_from_cells`, and for a non-finite point.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_world_from_points(
    points: *const f64,
    n_points: usize,
    pitch: f64,
    origin: *const f64,
    out_world: *mut *const CollideWorld,
) -> CollideStatus {
    guard("collide_world_from_points", || {
        // SAFETY: the caller's pointers, checked.
        unsafe {
            clear_out(out_world)?;
            let p = triples(points, n_points, "points")?;
            let pts: Vec<[f64; 3]> = p.chunks_exact(3).map(|v| [v[0], v[1], v[2]]).collect();
            let g =
                OccupancyGrid::from_points(&pts, pitch, origin_of(origin)).map_err(world_err)?;
            give(out_world, grid_world(g)?);
        }
        Ok(())
    })
}

/// A world occupying every cell the surface of the mesh file `path` (STL, OBJ or COLLADA,
/// metres) touches, at `pitch` from `origin` (NULL: `(0, 0, 0)`): conservative, every cell
/// the surface enters or touches. Status `COLLIDE_STATUS_IO` when the file cannot be read,
/// `COLLIDE_STATUS_BAD_ARGUMENT` when it is not a mesh or the grid is refused.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_world_from_mesh(
    path: *const c_char,
    pitch: f64,
    origin: *const f64,
    out_world: *mut *const CollideWorld,
) -> CollideStatus {
    guard("collide_world_from_mesh", || {
        // SAFETY: the caller's pointers, checked.
        unsafe {
            clear_out(out_world)?;
            if path.is_null() {
                return Err(bad("path is null"));
            }
            let p = CStr::from_ptr(path).to_string_lossy().into_owned();
            give(
                out_world,
                mesh_world(Path::new(&p), pitch, origin_of(origin))?,
            );
        }
        Ok(())
    })
}

fn mesh_world(path: &Path, pitch: f64, origin: [f64; 3]) -> Result<World, Failure> {
    let shown = path.display();
    if let Err(e) = std::fs::File::open(path) {
        return Err(Failure(CollideStatus::Io, format!("{shown}: {e}")));
    }
    let mesh = collide::io::mesh::load_mesh(path, [1.0; 3], &Default::default())
        .map_err(|e| bad(e.to_string()))?;
    let g = OccupancyGrid::from_triangles(&mesh.vertices, &mesh.triangles, pitch, origin)
        .map_err(|e| bad(format!("{shown}: {e}")))?;
    grid_world(g)
}

/// A new world: `world`'s cells and fixtures and one more fixture, `shape` (world frame;
/// its index is `collide_world_fixture_count(world)`). `world` is unchanged. Refused
/// (`*out_world` NULL) for a shape that is not valid (non-finite numbers, a negative
/// radius or half extent, a rotation that is not proper, a hull of 0 or more than 320
/// points).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_world_add_fixture(
    world: *const CollideWorld,
    shape: *const CollideShape,
    out_world: *mut *const CollideWorld,
) -> CollideStatus {
    guard("collide_world_add_fixture", || {
        // SAFETY: the caller's pointers, checked.
        unsafe {
            clear_out(out_world)?;
            let w = world.as_ref().ok_or_else(|| bad("the world is null"))?;
            let s = shape_of(shape)?;
            give(out_world, w.world.with_fixture(s).map_err(world_err)?);
        }
        Ok(())
    })
}

/// Frees a world (this reference; sessions hold none). NULL is ignored.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_world_free(world: *const CollideWorld) {
    if world.is_null() {
        return;
    }
    // SAFETY: from `Arc::into_raw` in a `collide_world_*` constructor.
    let _ = std::panic::catch_unwind(|| drop(unsafe { Arc::from_raw(world) }));
}

/// Number of occupied cells (0 for NULL).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_world_cell_count(world: *const CollideWorld) -> usize {
    // SAFETY: null or a live world.
    unsafe { world.as_ref() }.map_or(0, |w| w.world.grid().len())
}

/// Number of fixtures (0 for NULL).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_world_fixture_count(world: *const CollideWorld) -> usize {
    // SAFETY: null or a live world.
    unsafe { world.as_ref() }.map_or(0, |w| w.world.fixtures().len())
}

/// Attaches `shape` (a grasped object) to link `link` of the session's model, placed in the
/// link's frame by `xyz` (metres) and `rpy` (radians, URDF convention), each 3 doubles.
/// From then on `collide_check_world` on this session checks it against the world and
/// every link of the robot except `link` (and other links' payloads). `*out_id` names it for
/// `collide_session_detach`. Refused, nothing attached: an unknown link, a bad shape or
/// pose, 64 payloads already. Allocates.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_session_attach(
    session: *mut CollideSession,
    link: usize,
    shape: *const CollideShape,
    xyz: *const f64,
    rpy: *const f64,
    out_id: *mut u32,
) -> CollideStatus {
    // SAFETY: the caller's contract, passed on; no list of links.
    unsafe {
        attach_entry(
            "collide_session_attach",
            session,
            link,
            shape,
            xyz,
            rpy,
            std::ptr::null(),
            0,
            out_id,
        )
    }
}

/// `collide_session_attach`, and the payload may touch the `n_touches` links `touches`
/// besides `link` (an object held between two fingers touches both): their primitives are
/// not checked against it; the world and every other link are. `touches` may be NULL when
/// `n_touches` is 0. Refused, nothing attached: as `collide_session_attach`, and a link in
/// `touches` that is not the model's. Allocates.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_session_attach_touching(
    session: *mut CollideSession,
    link: usize,
    shape: *const CollideShape,
    xyz: *const f64,
    rpy: *const f64,
    touches: *const usize,
    n_touches: usize,
    out_id: *mut u32,
) -> CollideStatus {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        attach_entry(
            "collide_session_attach_touching",
            session,
            link,
            shape,
            xyz,
            rpy,
            touches,
            n_touches,
            out_id,
        )
    }
}

/// Both attach entry points: the pointers checked, then the session's attach.
#[allow(clippy::too_many_arguments)]
unsafe fn attach_entry(
    name: &'static str,
    session: *mut CollideSession,
    link: usize,
    shape: *const CollideShape,
    xyz: *const f64,
    rpy: *const f64,
    touches: *const usize,
    n_touches: usize,
    out_id: *mut u32,
) -> CollideStatus {
    guard(name, || {
        // SAFETY: the caller's pointers, checked.
        unsafe {
            if out_id.is_null() || xyz.is_null() || rpy.is_null() {
                return Err(bad("out_id, xyz and rpy must not be null"));
            }
            if touches.is_null() && n_touches > 0 {
                return Err(bad("touches is null but n_touches is not 0"));
            }
            let may_touch = if n_touches == 0 {
                &[][..]
            } else {
                std::slice::from_raw_parts(touches, n_touches)
            };
            let s = session_mut(session)?;
            let shape = shape_of(shape)?;
            *out_id = s.attach(link, &shape, origin_of(xyz), origin_of(rpy), may_touch)?;
        }
        Ok(())
    })
}

/// Detaches payload `id`: the session checks as before it was attached. Status
/// `COLLIDE_STATUS_BAD_ARGUMENT` when the session holds no payload `id`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_session_detach(
    session: *mut CollideSession,
    id: u32,
) -> CollideStatus {
    guard("collide_session_detach", || {
        // SAFETY: null or a live session.
        let s = unsafe { session_mut(session) }?;
        if s.world.detach(id) {
            Ok(())
        } else {
            Err(bad(format!("the session holds no payload {id}")))
        }
    })
}

/// Checks one configuration against `world`: forward kinematics, then every link primitive
/// and every payload of the session against the occupied cells and fixtures within
/// `margin`, and every payload against the robot's links except its holder. `q`, `nq`,
/// `margin` as in `collide_check`. Writes `*result`. Allocates nothing on success.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_check_world(
    session: *mut CollideSession,
    world: *const CollideWorld,
    q: *const f64,
    nq: usize,
    margin: f64,
    result: *mut CollideWorldResult,
) -> CollideStatus {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        world_entry(
            "collide_check_world",
            session,
            world,
            q,
            nq,
            margin,
            result,
            |s, w, q| s.world_check(w, q, margin, false),
        )
    }
}

/// `collide_check_world` with the session's per-link cache (docs/world.md, "Coherent
/// mode"): a link whose distance to the world, bounded at its last exact check, cannot have
/// fallen to `margin` since (the self mode's motion bound, from the root) is not checked;
/// payloads always are. The verdict is `collide_check_world`'s; `min_distance` a lower bound
/// (a proven bound when it is the least, then `obstacle` is none). The cache belongs to
/// one world: another world, or a `q` outside the limits, checks every link again.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_check_world_coherent(
    session: *mut CollideSession,
    world: *const CollideWorld,
    q: *const f64,
    nq: usize,
    margin: f64,
    result: *mut CollideWorldResult,
) -> CollideStatus {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        world_entry(
            "collide_check_world_coherent",
            session,
            world,
            q,
            nq,
            margin,
            result,
            |s, w, q| s.world_coherent(w, q, margin),
        )
    }
}

/// `collide_check_world`'s verdict only: stops at the first body within `margin` and reports
/// it; `min_distance` is the least value found until then.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_check_world_verdict(
    session: *mut CollideSession,
    world: *const CollideWorld,
    q: *const f64,
    nq: usize,
    margin: f64,
    result: *mut CollideWorldResult,
) -> CollideStatus {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        world_entry(
            "collide_check_world_verdict",
            session,
            world,
            q,
            nq,
            margin,
            result,
            |s, w, q| s.world_check(w, q, margin, true),
        )
    }
}

#[allow(clippy::too_many_arguments)]
unsafe fn world_entry(
    what: &str,
    session: *mut CollideSession,
    world: *const CollideWorld,
    q: *const f64,
    nq: usize,
    margin: f64,
    result: *mut CollideWorldResult,
    check: impl FnOnce(&mut CollideSession, &CollideWorld, &[f64]) -> CollideWorldResult,
) -> CollideStatus {
    guard(what, || {
        if result.is_null() {
            return Err(bad("result is null"));
        }
        // SAFETY: checked non-null.
        unsafe { *result = CollideWorldResult::EMPTY };
        // SAFETY: null or a live session / world; `nq` doubles at `q`.
        let s = unsafe { session_mut(session) }?;
        let w = unsafe { world.as_ref() }.ok_or_else(|| bad("the world is null"))?;
        let q = unsafe { joint_values(&s.model, q, nq, None) }?;
        check_margin(margin, "margin")?;
        let out = check(s, w, q);
        // SAFETY: checked non-null.
        unsafe { *result = out };
        Ok(())
    })
}

/// `collide_check_world` on `n` configurations (`q` row-major, `n` rows of `nq`), into
/// `out[0..n]`, with no payload (a batch has no session), on `threads` threads as
/// `collide_check_batch` (0: one per CPU), each row what `collide_check_world` gives for
/// it. Allocates.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collide_check_world_batch(
    model: *const CollideModel,
    world: *const CollideWorld,
    q: *const f64,
    n: usize,
    nq: usize,
    margin: f64,
    out: *mut CollideWorldResult,
    threads: usize,
) -> CollideStatus {
    guard("collide_check_world_batch", || {
        // SAFETY: null or a live world.
        let w = unsafe { world.as_ref() }.ok_or_else(|| bad("the world is null"))?;
        // SAFETY: the caller's contract, passed on.
        unsafe {
            batch(model, q, n, nq, margin, out, threads, |m, ws, qr| {
                let mut st = WorldState::new(&m.model);
                let r = m.model.check_world(qr, ws, &w.world, &mut st, margin);
                CollideWorldResult::of(&r, m.model.within_limits(qr), false)
            })
        }
    })
}
