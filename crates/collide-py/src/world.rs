//! The world check in Python: `collide.World` (cells, a point cloud or a mesh, and
//! fixtures), `collide.Shape` (box, capsule, sphere, convex hull), `Model.check_world` and
//! its batch, and `collide.WorldSession` (attached payloads, warm starts). docs/world.md.

use super::{CheckResult, Model, to_py};
use collide_kernel::CollideModel;
use collide_kernel::CollideSession;
use collide_kernel::world::{
    BoxShape, CollideObstacle, CollideWorld, CollideWorldResult, Shape as KShape,
};
use numpy::{AllowTypeChange, PyArray1, PyArrayLike1, PyArrayLike2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;

/// A shape for a fixture (world frame) or a payload (its link's frame).
#[pyclass(module = "collide", frozen)]
#[derive(Clone)]
pub(crate) struct Shape {
    inner: KShape,
}

#[pymethods]
impl Shape {
    /// An oriented box: `center`, `half_extents` (metres), `rotation` a 3x3 rotation
    /// matrix whose columns are the box axes (default: the identity).
    #[staticmethod]
    #[pyo3(signature = (center, half_extents, rotation=None))]
    fn r#box(center: [f64; 3], half_extents: [f64; 3], rotation: Option<[[f64; 3]; 3]>) -> Shape {
        Shape {
            inner: KShape::Box(BoxShape {
                center,
                rotation: rotation.unwrap_or([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
                half_extents,
            }),
        }
    }

    /// The points within `radius` of the segment `a`–`b`.
    #[staticmethod]
    fn capsule(a: [f64; 3], b: [f64; 3], radius: f64) -> Shape {
        Shape {
            inner: KShape::Capsule { a, b, radius },
        }
    }

    /// The points within `radius` of `center`.
    #[staticmethod]
    fn sphere(center: [f64; 3], radius: f64) -> Shape {
        Shape {
            inner: KShape::Sphere { center, radius },
        }
    }

    /// The convex hull of `points` ((n, 3), 1 <= n <= 320).
    #[staticmethod]
    fn hull(points: PyArrayLike2<'_, f64, AllowTypeChange>) -> PyResult<Shape> {
        Ok(Shape {
            inner: KShape::Hull(rows3(&points, "points")?),
        })
    }

    fn __repr__(&self) -> String {
        format!("Shape({:?})", self.inner)
    }
}

/// The rows of an (n, 3) array.
fn rows3<T: numpy::Element + Copy>(
    a: &PyArrayLike2<'_, T, AllowTypeChange>,
    what: &str,
) -> PyResult<Vec<[T; 3]>> {
    let v = a.as_array();
    let (n, cols) = v.dim();
    if cols != 3 {
        return Err(PyValueError::new_err(format!(
            "{what} has shape ({n}, {cols}), expected (n, 3)"
        )));
    }
    Ok(v.outer_iter().map(|r| [r[0], r[1], r[2]]).collect())
}

/// Occupied cells of one grid and fixtures, world frame. Immutable: share it.
#[pyclass(module = "collide", frozen)]
pub(crate) struct World {
    pub(crate) inner: Arc<CollideWorld>,
}

#[pymethods]
impl World {
    /// Cells (an (n, 3) int32 array of occupied indices): cell (i, j, k) is the box
    /// `origin + pitch * [i, i+1] x [j, j+1] x [k, k+1]`. ValueError for a bad origin or
    /// pitch (finite, > 0), a wrong shape, cells beyond the limits.
    #[staticmethod]
    fn from_cells(
        py: Python<'_>,
        origin: [f64; 3],
        pitch: f64,
        cells: PyArrayLike2<'_, i32, AllowTypeChange>,
    ) -> PyResult<World> {
        let cells = rows3(&cells, "cells")?;
        let inner = py
            .detach(|| CollideWorld::from_cells(origin, pitch, &cells))
            .map_err(to_py)?;
        Ok(World { inner })
    }

    /// Every cell holding a point of `points` ((n, 3), metres); `origin` default (0, 0, 0).
    #[staticmethod]
    #[pyo3(signature = (points, pitch, origin=None))]
    fn from_points(
        py: Python<'_>,
        points: PyArrayLike2<'_, f64, AllowTypeChange>,
        pitch: f64,
        origin: Option<[f64; 3]>,
    ) -> PyResult<World> {
        let pts = rows3(&points, "points")?;
        let inner = py
            .detach(|| CollideWorld::from_points(&pts, pitch, origin.unwrap_or([0.0; 3])))
            .map_err(to_py)?;
        Ok(World { inner })
    }

    /// Every cell the surface of a mesh file (STL, OBJ, COLLADA; metres) touches.
    /// OSError when the file cannot be read.
    #[staticmethod]
    #[pyo3(signature = (path, pitch, origin=None))]
    fn from_mesh(
        py: Python<'_>,
        path: PathBuf,
        pitch: f64,
        origin: Option<[f64; 3]>,
    ) -> PyResult<World> {
        let inner = py
            .detach(|| CollideWorld::from_mesh(&path, pitch, origin.unwrap_or([0.0; 3])))
            .map_err(to_py)?;
        Ok(World { inner })
    }

    /// A new world with `shape` added as a fixture (world frame); this one is unchanged.
    fn with_fixture(&self, shape: &Shape) -> PyResult<World> {
        let inner = self
            .inner
            .with_fixture(shape.inner.clone())
            .map_err(to_py)?;
        Ok(World { inner })
    }

    #[getter]
    fn cell_count(&self) -> usize {
        self.inner.world().grid().len()
    }

    #[getter]
    fn fixture_count(&self) -> usize {
        self.inner.world().fixtures().len()
    }

    #[getter]
    fn pitch(&self) -> f64 {
        self.inner.world().grid().pitch()
    }

    fn __repr__(&self) -> String {
        format!(
            "World(cells={}, pitch={}, fixtures={})",
            self.cell_count(),
            self.pitch(),
            self.fixture_count()
        )
    }
}

/// The world result as the same `CheckResult` `Model.check` returns: `link_a` the robot
/// link (for a payload, "payload ID on LINK"), `link_b` what it came near ("cell (i, j,
/// k)", "fixture N", a link name or "payload ID"); `pair` None, the witness points when the
/// session computed them.
pub(crate) fn world_result(links: &[String], r: &CollideWorldResult) -> CheckResult {
    let link = usize::try_from(r.link).ok().map(|l| links[l].clone());
    let link_a = match (link, r.payload) {
        (Some(l), p) if p >= 0 => Some(format!("payload {p} on {l}")),
        (l, _) => l,
    };
    let link_b = match r.obstacle {
        CollideObstacle::None => None,
        CollideObstacle::Cell => Some(format!(
            "cell ({}, {}, {})",
            r.cell[0], r.cell[1], r.cell[2]
        )),
        CollideObstacle::Fixture => Some(format!("fixture {}", r.index)),
        CollideObstacle::Link => Some(links[r.index as usize].clone()),
        CollideObstacle::Payload => Some(format!("payload {}", r.index)),
    };
    CheckResult {
        verdict: if r.in_collision {
            "in_collision"
        } else {
            "free"
        },
        in_collision: r.in_collision,
        within_limits: r.within_limits,
        min_distance: r.min_distance,
        pair: None,
        link_a,
        link_b,
        point_a: point(r.point_a),
        point_b: point(r.point_b),
    }
}

/// A witness point, `None` when the result has none (NaN).
fn point(p: [f64; 3]) -> Option<(f64, f64, f64)> {
    (!p[0].is_nan()).then_some((p[0], p[1], p[2]))
}

/// `Model.check_world`: one configuration against `world` on a pooled session (no
/// payloads: a `WorldSession` holds those).
pub(crate) fn check_world(
    m: &Model,
    py: Python<'_>,
    q: &PyArrayLike1<'_, f64, AllowTypeChange>,
    world: &World,
    margin: f64,
    verdict_only: bool,
    witness: bool,
) -> PyResult<CheckResult> {
    let q = m.q_vec(q)?;
    let w = world.inner.clone();
    let r = py
        .detach(|| {
            m.with_session(|s| {
                s.set_witness(witness);
                s.check_world(&w, &q, margin, verdict_only)
            })
        })
        .map_err(to_py)?;
    Ok(world_result(&m.links, &r))
}

/// `Model.check_world_batch`: (in_collision bool[n], min_distance float64[n], link int64[n]).
pub(crate) fn check_world_batch<'py>(
    m: &Model,
    py: Python<'py>,
    q: &PyArrayLike2<'py, f64, AllowTypeChange>,
    world: &World,
    margin: f64,
    threads: usize,
) -> PyResult<super::BatchOut<'py>> {
    let (n, flat) = m.kernel_rows(q)?;
    let inner: Arc<CollideModel> = m.inner.clone();
    let w = world.inner.clone();
    let out = py
        .detach(move || {
            let mut out = vec![CollideWorldResult::default(); n];
            inner.check_world_batch(&w, &flat, margin, &mut out, threads)?;
            Ok(out)
        })
        .map_err(to_py)?;
    Ok((
        PyArray1::from_vec(py, out.iter().map(|r| r.in_collision).collect()),
        PyArray1::from_vec(py, out.iter().map(|r| r.min_distance).collect()),
        PyArray1::from_vec(py, out.iter().map(|r| r.link).collect()),
    ))
}

/// One thread's world check with payloads: `WorldSession(model, world)`.
#[pyclass(module = "collide")]
pub(crate) struct WorldSession {
    model: Py<Model>,
    world: Arc<CollideWorld>,
    inner: CollideSession,
}

#[pymethods]
impl WorldSession {
    #[new]
    fn new(model: Py<Model>, world: &World) -> WorldSession {
        let inner = CollideSession::new(model.get().inner.clone());
        WorldSession {
            model,
            world: world.inner.clone(),
            inner,
        }
    }

    /// Attaches `shape` to link `link` (its name) at `xyz`/`rpy` in the link's frame; the
    /// payload's id. It is checked against the world and every other link but those named
    /// in `touches` (links it may touch besides its holder: an object held between two
    /// fingers). ValueError for an unknown link or a bad shape or pose (nothing attached).
    #[pyo3(signature = (link, shape, xyz=[0.0; 3], rpy=[0.0; 3], touches=Vec::new()))]
    fn attach(
        &mut self,
        link: &str,
        shape: &Shape,
        xyz: [f64; 3],
        rpy: [f64; 3],
        touches: Vec<String>,
    ) -> PyResult<u32> {
        let links = &self.model.get().links;
        let index = |name: &str| {
            links.iter().position(|l| l == name).ok_or_else(|| {
                PyValueError::new_err(format!("no link `{name}` in the model: {links:?}"))
            })
        };
        let i = index(link)?;
        let may_touch = touches
            .iter()
            .map(|t| index(t))
            .collect::<PyResult<Vec<usize>>>()?;
        self.inner
            .attach_payload_touching(i, &shape.inner, xyz, rpy, &may_touch)
            .map_err(to_py)
    }

    /// Detaches payload `id`; ValueError when there is none.
    fn detach(&mut self, id: u32) -> PyResult<()> {
        if self.inner.detach_payload(id) {
            Ok(())
        } else {
            Err(PyValueError::new_err(format!(
                "no payload {id} is attached"
            )))
        }
    }

    /// The world check at `q` with the payloads; `verdict_only` stops at the first hit;
    /// `coherent` skips the links proven clear since their last exact check (the same
    /// verdict; docs/world.md, "Coherent mode"). `witness=True`: the full check fills
    /// `point_a` (on the body) and `point_b` (on what it came near) when `min_distance` is
    /// within `margin + 0.01`.
    #[pyo3(signature = (q, margin, verdict_only=false, coherent=false, witness=false))]
    fn check(
        &mut self,
        py: Python<'_>,
        q: PyArrayLike1<'_, f64, AllowTypeChange>,
        margin: f64,
        verdict_only: bool,
        coherent: bool,
        witness: bool,
    ) -> PyResult<CheckResult> {
        let m = self.model.get();
        let q = m.q_vec(&q)?;
        let (s, w) = (&mut self.inner, &self.world);
        s.set_witness(witness);
        let r = py
            .detach(|| {
                if coherent {
                    s.check_world_coherent(w, &q, margin)
                } else {
                    s.check_world(w, &q, margin, verdict_only)
                }
            })
            .map_err(to_py)?;
        Ok(world_result(&m.links, &r))
    }
}
