//! The world check's Rust API (what the Python module wraps): the C functions of the same
//! names on slices and `Arc`s.

use super::*;
use crate::CollideModel;

/// The Rust API of the world check (what the Python module wraps).
impl CollideWorld {
    /// `collide_world_from_cells`.
    pub fn from_cells(
        origin: [f64; 3],
        pitch: f64,
        cells: &[[i32; 3]],
    ) -> Result<Arc<CollideWorld>, Error> {
        rust_guard("World.from_cells", || {
            let g = OccupancyGrid::from_cells(origin, pitch, cells).map_err(world_err)?;
            Ok(Arc::new(CollideWorld::wrap(grid_world(g)?)))
        })
    }

    /// `collide_world_from_points`.
    pub fn from_points(
        points: &[[f64; 3]],
        pitch: f64,
        origin: [f64; 3],
    ) -> Result<Arc<CollideWorld>, Error> {
        rust_guard("World.from_points", || {
            let g = OccupancyGrid::from_points(points, pitch, origin).map_err(world_err)?;
            Ok(Arc::new(CollideWorld::wrap(grid_world(g)?)))
        })
    }

    /// `collide_world_from_mesh`.
    pub fn from_mesh(
        path: &Path,
        pitch: f64,
        origin: [f64; 3],
    ) -> Result<Arc<CollideWorld>, Error> {
        rust_guard("World.from_mesh", || {
            Ok(Arc::new(CollideWorld::wrap(mesh_world(
                path, pitch, origin,
            )?)))
        })
    }

    /// `collide_world_add_fixture`.
    pub fn with_fixture(&self, shape: Shape) -> Result<Arc<CollideWorld>, Error> {
        rust_guard("World.with_fixture", || {
            Ok(Arc::new(CollideWorld::wrap(
                self.world.with_fixture(shape).map_err(world_err)?,
            )))
        })
    }

    /// The kernel's world.
    pub fn world(&self) -> &World {
        &self.world
    }
}

impl CollideModel {
    /// `collide_check_world_batch` on `q`, `n` rows of `dof()` values, into `out[..n]`.
    pub fn check_world_batch(
        &self,
        world: &CollideWorld,
        q: &[f64],
        margin: f64,
        out: &mut [CollideWorldResult],
        threads: usize,
    ) -> Result<(), Error> {
        self.rust_batch(
            "check_world_batch",
            "collide_check_world_batch: ",
            q,
            out,
            |q, n, nq, o| {
                // SAFETY: `q` holds `n * nq` values and `o` at least `n` results.
                unsafe { collide_check_world_batch(self, world, q, n, nq, margin, o, threads) }
            },
        )
    }
}

impl CollideSession {
    /// `collide_session_attach`.
    pub(super) fn attach(
        &mut self,
        link: usize,
        shape: &Shape,
        xyz: [f64; 3],
        rpy: [f64; 3],
        may_touch: &[usize],
    ) -> Result<u32, Failure> {
        self.world
            .attach_touching(&self.model.model, link, shape, xyz, rpy, may_touch)
            .map_err(bad)
    }

    /// `collide_session_attach` for Rust callers.
    pub fn attach_payload(
        &mut self,
        link: usize,
        shape: &Shape,
        xyz: [f64; 3],
        rpy: [f64; 3],
    ) -> Result<u32, Error> {
        rust_guard("attach", || self.attach(link, shape, xyz, rpy, &[]))
    }

    /// `collide_session_attach_touching` for Rust callers.
    pub fn attach_payload_touching(
        &mut self,
        link: usize,
        shape: &Shape,
        xyz: [f64; 3],
        rpy: [f64; 3],
        may_touch: &[usize],
    ) -> Result<u32, Error> {
        rust_guard("attach", || self.attach(link, shape, xyz, rpy, may_touch))
    }

    /// `collide_session_detach`; `false` when no payload has that id.
    pub fn detach_payload(&mut self, id: u32) -> bool {
        self.world.detach(id)
    }

    /// `collide_check_world` (or `_verdict`).
    pub fn check_world(
        &mut self,
        world: &CollideWorld,
        q: &[f64],
        margin: f64,
        verdict_only: bool,
    ) -> Result<CollideWorldResult, Error> {
        rust_guard("check_world", || {
            // SAFETY: a slice of `q.len()` values.
            let q = unsafe { joint_values(&self.model, q.as_ptr(), q.len(), None) }?;
            check_margin(margin, "margin")?;
            Ok(self.world_check(world, q, margin, verdict_only))
        })
    }

    /// `collide_check_world_coherent`.
    pub fn check_world_coherent(
        &mut self,
        world: &CollideWorld,
        q: &[f64],
        margin: f64,
    ) -> Result<CollideWorldResult, Error> {
        rust_guard("check_world_coherent", || {
            // SAFETY: a slice of `q.len()` values.
            let q = unsafe { joint_values(&self.model, q.as_ptr(), q.len(), None) }?;
            check_margin(margin, "margin")?;
            Ok(self.world_coherent(world, q, margin))
        })
    }

    /// Links the last `check_world_coherent` skipped and checked.
    pub fn world_coherent_stats(&self) -> (u32, u32) {
        (self.world_cache.skipped, self.world_cache.checked)
    }

    pub(super) fn world_coherent(
        &mut self,
        w: &CollideWorld,
        q: &[f64],
        margin: f64,
    ) -> CollideWorldResult {
        let m = &self.model.model;
        let r = self
            .world_cache
            .check(m, &mut self.ws, &mut self.world, &w.world, w.id, q, margin);
        CollideWorldResult::of(&r, m.within_limits(q), false)
    }

    pub(super) fn world_check(
        &mut self,
        w: &CollideWorld,
        q: &[f64],
        margin: f64,
        verdict_only: bool,
    ) -> CollideWorldResult {
        let m = &self.model.model;
        m.fk(q, &mut self.ws);
        let r = m.check_placed_world(&self.ws, &w.world, &mut self.world, margin, verdict_only);
        let mut out = CollideWorldResult::of(&r, m.within_limits(q), verdict_only);
        // NaN (a non-finite value) is not in the band either.
        if self.witness
            && !verdict_only
            && r.min_distance <= margin + m.refine_band()
            && let Some(wit) = r
                .nearest
                .and_then(|h| m.world_witness(&self.ws, &w.world, &self.world, h))
        {
            out.point_a = wit.point_a;
            out.point_b = wit.point_b;
        }
        out
    }
}
