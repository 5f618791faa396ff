//! The Python module `collide`: the collide-kernel Rust API (the same code as the C ABI)
//! with numpy arrays in and out and the GIL released in every check. docs/kernel-library.md
//! ("Python") has the API and the error model.

use collide_kernel::{
    CollideModel, CollidePreset, CollideResult, CollideSession, CollideStatus, CollideVerdict,
    CollideVerdictResult, Error,
};
use numpy::{AllowTypeChange, PyArray1, PyArrayLike1, PyArrayLike2};
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

mod world;

fn to_py(e: Error) -> PyErr {
    match e.status {
        CollideStatus::Io => PyOSError::new_err(e.message),
        CollideStatus::Panic => PyRuntimeError::new_err(e.message),
        _ => PyValueError::new_err(e.message),
    }
}

/// The caller's joint order: `perm[j]` is the kernel index of the caller's `q[j]`.
fn permutation(kernel: &[String], order: &[String]) -> PyResult<Vec<usize>> {
    if order.len() != kernel.len() {
        return Err(PyValueError::new_err(format!(
            "joint_order has {} names, the model has {} joints: {:?}",
            order.len(),
            kernel.len(),
            kernel
        )));
    }
    let mut seen = vec![false; kernel.len()];
    let mut perm = Vec::with_capacity(order.len());
    for name in order {
        let k = kernel.iter().position(|n| n == name).ok_or_else(|| {
            PyValueError::new_err(format!(
                "joint_order names `{name}`, not a joint of the model: {kernel:?}"
            ))
        })?;
        if seen[k] {
            return Err(PyValueError::new_err(format!(
                "joint_order names `{name}` twice"
            )));
        }
        seen[k] = true;
        perm.push(k);
    }
    Ok(perm)
}

fn verdict_name(v: CollideVerdict) -> &'static str {
    match v {
        CollideVerdict::Free => "free",
        CollideVerdict::InCollision => "in_collision",
        CollideVerdict::Unknown => "unknown",
    }
}

/// The presets by their Python names.
const PRESETS: [(&str, CollidePreset); 3] = [
    ("precise", CollidePreset::Precise),
    ("balanced", CollidePreset::Balanced),
    ("speed", CollidePreset::Speed),
];

/// A preset by name, with its name as a static string.
fn preset_named(name: &str) -> PyResult<(&'static str, CollidePreset)> {
    PRESETS
        .iter()
        .find(|(n, _)| *n == name)
        .copied()
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "preset `{name}`: expected \"precise\", \"balanced\" or \"speed\""
            ))
        })
}

/// The verdict of one configuration.
#[pyclass(module = "collide", frozen, get_all)]
#[derive(Clone)]
struct CheckResult {
    /// "free", "in_collision" (an exact check found a pair at or below the margin) or
    /// "unknown" (the speed preset's budget ran out first; treat as not free).
    verdict: &'static str,
    /// Not proven free: verdict != "free".
    in_collision: bool,
    /// Every joint value is within its limits.
    within_limits: bool,
    /// A lower bound on the least signed distance over the checked pairs (metres); inf with
    /// no checked pair.
    min_distance: f64,
    /// Index into `Model.pairs` of the pair attaining it; None with no pair.
    pair: Option<usize>,
    /// That pair's link names; None with no pair.
    link_a: Option<String>,
    link_b: Option<String>,
    /// Witness points of that pair (world frame, metres; `witness=True` and the value in
    /// the exact band, else None): apart, its closest points; in overlap, each link's
    /// point deepest in the other. `point_a` lies on `link_a`.
    point_a: Option<(f64, f64, f64)>,
    point_b: Option<(f64, f64, f64)>,
}

#[pymethods]
impl CheckResult {
    fn __repr__(&self) -> String {
        let b = |v: bool| if v { "True" } else { "False" };
        let o = |v: &Option<String>| v.as_ref().map_or("None".to_string(), |s| format!("'{s}'"));
        format!(
            "CheckResult(verdict='{}', in_collision={}, within_limits={}, min_distance={}, pair={}, link_a={}, link_b={})",
            self.verdict,
            b(self.in_collision),
            b(self.within_limits),
            self.min_distance,
            self.pair.map_or("None".to_string(), |p| p.to_string()),
            o(&self.link_a),
            o(&self.link_b)
        )
    }
}

/// The verdict-only check's answer (`Model.check_verdict`): `Model.check`'s verdict
/// without distances, and the pair the check stopped at.
#[pyclass(module = "collide", frozen, get_all)]
#[derive(Clone)]
struct VerdictResult {
    /// A checked pair is at or below the margin: exactly `Model.check(q, margin).in_collision`.
    in_collision: bool,
    /// Every joint value is within its limits.
    within_limits: bool,
    /// Index into `Model.pairs` of the first pair (in pair order) at or below the margin;
    /// None when free. Not necessarily `Model.check`'s least pair.
    pair: Option<usize>,
    /// That pair's link names; None when free.
    link_a: Option<String>,
    link_b: Option<String>,
}

#[pymethods]
impl VerdictResult {
    fn __repr__(&self) -> String {
        let b = |v: bool| if v { "True" } else { "False" };
        let o = |v: &Option<String>| v.as_ref().map_or("None".to_string(), |s| format!("'{s}'"));
        format!(
            "VerdictResult(in_collision={}, within_limits={}, pair={}, link_a={}, link_b={})",
            b(self.in_collision),
            b(self.within_limits),
            self.pair.map_or("None".to_string(), |p| p.to_string()),
            o(&self.link_a),
            o(&self.link_b)
        )
    }
}

/// `check_verdict_batch`'s arrays: in_collision, pair.
type VerdictBatchOut<'py> = (Bound<'py, PyArray1<bool>>, Bound<'py, PyArray1<i64>>);

/// `check_batch`'s arrays: in_collision, min_distance, pair.
type BatchOut<'py> = (
    Bound<'py, PyArray1<bool>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<i64>>,
);

/// A loaded manifest. Immutable: share it across threads; each thread makes its sessions.
#[pyclass(module = "collide", frozen)]
struct Model {
    inner: Arc<CollideModel>,
    links: Vec<String>,
    /// Kernel index of the caller's q[j]; the identity without joint_order.
    perm: Vec<usize>,
    /// Joint names in the caller's order.
    names: Vec<String>,
    /// Sessions for `check` and `pair_distances`, reused so a call allocates no scratch.
    pool: Mutex<Vec<CollideSession>>,
}

impl Model {
    /// The caller's `q` in the kernel's order, checked for length (the kernel checks values).
    fn kernel_q(&self, q: &[f64], out: &mut [f64]) -> PyResult<()> {
        if q.len() != self.perm.len() {
            return Err(PyValueError::new_err(format!(
                "q has {} values, the model has {} joints (Model.joint_names gives their order)",
                q.len(),
                self.perm.len()
            )));
        }
        for (j, &k) in self.perm.iter().enumerate() {
            out[k] = q[j];
        }
        Ok(())
    }

    fn result(&self, r: &CollideResult) -> CheckResult {
        let name = |i: i64| usize::try_from(i).ok().map(|i| self.links[i].clone());
        let point = |p: [f64; 3]| (!p[0].is_nan()).then_some((p[0], p[1], p[2]));
        CheckResult {
            point_a: point(r.point_a),
            point_b: point(r.point_b),
            verdict: verdict_name(r.verdict),
            in_collision: r.in_collision,
            within_limits: r.within_limits,
            min_distance: r.min_distance,
            pair: usize::try_from(r.pair).ok(),
            link_a: name(r.link_a),
            link_b: name(r.link_b),
        }
    }

    fn verdict(&self, r: &CollideVerdictResult) -> VerdictResult {
        let name = |i: i64| usize::try_from(i).ok().map(|i| self.links[i].clone());
        VerdictResult {
            in_collision: r.in_collision,
            within_limits: r.within_limits,
            pair: usize::try_from(r.pair).ok(),
            link_a: name(r.link_a),
            link_b: name(r.link_b),
        }
    }

    /// The rows of Q (n, dof) in the kernel's order, flat: (n, values).
    fn kernel_rows(
        &self,
        q: &PyArrayLike2<'_, f64, AllowTypeChange>,
    ) -> PyResult<(usize, Vec<f64>)> {
        let view = q.as_array();
        let (n, cols) = view.dim();
        let dof = self.perm.len();
        if cols != dof {
            return Err(PyValueError::new_err(format!(
                "Q has {cols} columns, the model has {dof} joints (Model.joint_names gives their order)"
            )));
        }
        let mut flat = vec![0.0; n * dof];
        for (r, row) in view.outer_iter().enumerate() {
            for (j, &k) in self.perm.iter().enumerate() {
                flat[r * dof + k] = row[j];
            }
        }
        Ok((n, flat))
    }

    /// Runs `f` on a pooled session (a new one when every pooled one is in use).
    fn with_session<T>(&self, f: impl FnOnce(&mut CollideSession) -> T) -> T {
        let taken = self.pool.lock().ok().and_then(|mut p| p.pop());
        let mut s = taken.unwrap_or_else(|| CollideSession::new(self.inner.clone()));
        let r = f(&mut s);
        if let Ok(mut p) = self.pool.lock() {
            p.push(s);
        }
        r
    }

    fn q_vec(&self, q: &PyArrayLike1<'_, f64, AllowTypeChange>) -> PyResult<Vec<f64>> {
        let view = q.as_array();
        let given: Vec<f64> = view.iter().copied().collect();
        let mut out = vec![0.0; self.perm.len()];
        self.kernel_q(&given, &mut out)?;
        Ok(out)
    }
}

fn session_check(
    py: Python<'_>,
    s: &mut CollideSession,
    q: &[f64],
    margin: f64,
    coherent: bool,
) -> PyResult<CollideResult> {
    py.detach(|| {
        if coherent {
            s.check_coherent(q, margin)
        } else {
            s.check(q, margin)
        }
    })
    .map_err(to_py)
}

#[pymethods]
impl Model {
    /// Loads a manifest (the YAML `collide lower` writes). `joint_order`: the joint names
    /// in the order the caller's q lists them (default: `Model.kernel_joint_names`).
    /// OSError when the file cannot be read, ValueError when it is not a manifest.
    #[staticmethod]
    #[pyo3(signature = (path, joint_order=None))]
    fn load(py: Python<'_>, path: PathBuf, joint_order: Option<Vec<String>>) -> PyResult<Model> {
        let inner = py.detach(|| CollideModel::open(&path)).map_err(to_py)?;
        let kernel = inner.joint_names();
        let perm = match joint_order {
            Some(order) => permutation(&kernel, &order)?,
            None => (0..kernel.len()).collect(),
        };
        let names = perm.iter().map(|&k| kernel[k].clone()).collect();
        Ok(Model {
            links: inner.link_names(),
            inner,
            perm,
            names,
            pool: Mutex::new(Vec::new()),
        })
    }

    /// Joint names in the order q is read (the caller's joint_order when one was given).
    #[getter]
    fn joint_names(&self) -> Vec<String> {
        self.names.clone()
    }

    /// Joint names in the kernel's (the manifest's) order.
    #[getter]
    fn kernel_joint_names(&self) -> Vec<String> {
        self.inner.joint_names()
    }

    /// Every link's name.
    #[getter]
    fn link_names(&self) -> Vec<String> {
        self.links.clone()
    }

    /// The checked pairs as (link_a, link_b) names, in pair order.
    #[getter]
    fn pairs(&self) -> Vec<(String, String)> {
        self.inner
            .pairs()
            .iter()
            .map(|&(a, b)| (self.links[a].clone(), self.links[b].clone()))
            .collect()
    }

    /// Joint limits as a (dof, 2) list of (lower, upper), in q's order.
    #[getter]
    fn joint_limits(&self) -> Vec<(f64, f64)> {
        self.perm
            .iter()
            .map(|&k| self.inner.joint_limits(k))
            .collect()
    }

    /// The manifest's margin (metres): the margin the ACM's exemptions were proven for.
    #[getter]
    fn margin(&self) -> f64 {
        self.inner.margin()
    }

    /// Checks one configuration at `margin` (metres, >= 0); `witness=True` fills the
    /// result's witness points. ValueError for a wrong length, a non-finite value, a bad
    /// margin.
    #[pyo3(signature = (q, margin, witness=false))]
    fn check(
        &self,
        py: Python<'_>,
        q: PyArrayLike1<'_, f64, AllowTypeChange>,
        margin: f64,
        witness: bool,
    ) -> PyResult<CheckResult> {
        let q = self.q_vec(&q)?;
        let r = py
            .detach(|| {
                self.with_session(|s| {
                    s.set_witness(witness);
                    s.check(&q, margin)
                })
            })
            .map_err(to_py)?;
        Ok(self.result(&r))
    }

    /// Checks every row of Q (n, dof) at `margin`: (in_collision bool[n], min_distance
    /// float64[n], pair int64[n], -1 with no pair). `threads`: 0 for one per CPU.
    #[pyo3(signature = (q, margin, threads=1))]
    fn check_batch<'py>(
        &self,
        py: Python<'py>,
        q: PyArrayLike2<'py, f64, AllowTypeChange>,
        margin: f64,
        threads: usize,
    ) -> PyResult<BatchOut<'py>> {
        let (n, flat) = self.kernel_rows(&q)?;
        let inner = self.inner.clone();
        let out = py
            .detach(move || {
                let mut out = vec![CollideResult::default(); n];
                // With no row the kernel still checks the margin.
                inner.check_batch(&flat, margin, &mut out, threads)?;
                Ok(out)
            })
            .map_err(to_py)?;
        let hit: Vec<bool> = out.iter().map(|r| r.in_collision).collect();
        let dist: Vec<f64> = out.iter().map(|r| r.min_distance).collect();
        let pair: Vec<i64> = out.iter().map(|r| r.pair).collect();
        Ok((
            PyArray1::from_vec(py, hit),
            PyArray1::from_vec(py, dist),
            PyArray1::from_vec(py, pair),
        ))
    }

    /// The world check of one configuration (docs/world.md): every link primitive against
    /// the occupied cells and fixtures of `world` within `margin`; `verdict_only` stops at
    /// the first hit. The same result type as `Model.check` (`link_a` the link, `link_b`
    /// the cell, fixture or link it came near). `witness=True` fills `point_a` (on the
    /// link) and `point_b` (on what it came near) when `min_distance` is within
    /// `margin + 0.01` (not with `verdict_only`). Payloads: `collide.WorldSession`.
    #[pyo3(signature = (q, world, margin, verdict_only=false, witness=false))]
    fn check_world(
        &self,
        py: Python<'_>,
        q: PyArrayLike1<'_, f64, AllowTypeChange>,
        world: &world::World,
        margin: f64,
        verdict_only: bool,
        witness: bool,
    ) -> PyResult<CheckResult> {
        world::check_world(self, py, &q, world, margin, verdict_only, witness)
    }

    /// `check_world` on every row of Q (n, dof): (in_collision bool[n], min_distance
    /// float64[n], link int64[n], -1 with none). `threads`: 0 for one per CPU.
    #[pyo3(signature = (q, world, margin, threads=1))]
    fn check_world_batch<'py>(
        &self,
        py: Python<'py>,
        q: PyArrayLike2<'py, f64, AllowTypeChange>,
        world: &world::World,
        margin: f64,
        threads: usize,
    ) -> PyResult<BatchOut<'py>> {
        world::check_world_batch(self, py, &q, world, margin, threads)
    }

    /// The verdict-only check of one configuration at `margin` (metres, >= 0): exactly
    /// `Model.check(q, margin).in_collision`, without the least distance or any depth. It
    /// stops at the first checked pair at or below the margin and names it, so a pose in
    /// collision costs about what a free one does (a sampling planner's check). ValueError
    /// as `Model.check`.
    fn check_verdict(
        &self,
        py: Python<'_>,
        q: PyArrayLike1<'_, f64, AllowTypeChange>,
        margin: f64,
    ) -> PyResult<VerdictResult> {
        let q = self.q_vec(&q)?;
        let r = py
            .detach(|| self.with_session(|s| s.check_verdict(&q, margin)))
            .map_err(to_py)?;
        Ok(self.verdict(&r))
    }

    /// The verdict-only check of every row of Q (n, dof) at `margin`: (in_collision
    /// bool[n], pair int64[n], the first tripping pair's index, -1 when free), each row
    /// what `check_verdict` gives, whatever `threads` (0 for one per CPU).
    #[pyo3(signature = (q, margin, threads=1))]
    fn check_verdict_batch<'py>(
        &self,
        py: Python<'py>,
        q: PyArrayLike2<'py, f64, AllowTypeChange>,
        margin: f64,
        threads: usize,
    ) -> PyResult<VerdictBatchOut<'py>> {
        let (n, flat) = self.kernel_rows(&q)?;
        let inner = self.inner.clone();
        let out = py
            .detach(move || {
                let mut out = vec![CollideVerdictResult::default(); n];
                inner.check_verdict_batch(&flat, margin, &mut out, threads)?;
                Ok(out)
            })
            .map_err(to_py)?;
        let hit: Vec<bool> = out.iter().map(|r| r.in_collision).collect();
        let pair: Vec<i64> = out.iter().map(|r| r.pair).collect();
        Ok((PyArray1::from_vec(py, hit), PyArray1::from_vec(py, pair)))
    }

    /// Every checked pair's value (a lower bound on its signed distance, metres), exact
    /// when <= cutoff + 0.01; cutoff=inf for every pair exact.
    #[pyo3(signature = (q, cutoff=f64::INFINITY))]
    fn pair_distances<'py>(
        &self,
        py: Python<'py>,
        q: PyArrayLike1<'py, f64, AllowTypeChange>,
        cutoff: f64,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let q = self.q_vec(&q)?;
        let d = py
            .detach(|| {
                let mut out = vec![0.0; self.inner.pairs().len()];
                self.with_session(|s| s.pair_distances(&q, cutoff, &mut out))?;
                Ok(out)
            })
            .map_err(to_py)?;
        Ok(PyArray1::from_vec(py, d))
    }

    /// A session: its scratch and the coherent mode's cache. One per thread. `preset`:
    /// how `Session.check` checks, "precise" (no cache), "balanced" (the cache, the
    /// default) or "speed" (the cache and at most `budget` exact pair checks a call; may
    /// answer "unknown"). `witness=True`: every check fills the result's witness points.
    /// `warm_start=True`: the "precise" checks start each pair from its last check on this
    /// session (faster on smooth paths; the same verdicts, distances within 1e-9 m; the
    /// cached presets always do). ValueError for another name, or a budget without "speed".
    #[pyo3(signature = (preset="balanced", budget=0, witness=false, warm_start=false))]
    fn session(
        slf: &Bound<'_, Self>,
        preset: &str,
        budget: u32,
        witness: bool,
        warm_start: bool,
    ) -> PyResult<Session> {
        let m = slf.get();
        let mut inner = CollideSession::new(m.inner.clone());
        inner.set_witness(witness);
        inner.set_warm_start(warm_start);
        let (name, p) = preset_named(preset)?;
        inner.set_preset(p, budget).map_err(to_py)?;
        Ok(Session {
            model: slf.clone().unbind(),
            inner,
            q: vec![0.0; m.perm.len()],
            preset: (name, budget),
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "collide.Model({} joints, {} links, {} checked pairs)",
            self.perm.len(),
            self.links.len(),
            self.inner.pairs().len()
        )
    }
}

/// Per-thread scratch and the coherent cache of one model (`Model.session()`).
#[pyclass(module = "collide")]
struct Session {
    model: Py<Model>,
    inner: CollideSession,
    /// The caller's q in the kernel's order (preallocated).
    q: Vec<f64>,
    /// The preset's name and budget.
    preset: (&'static str, u32),
}

impl Session {
    fn load_q(
        &mut self,
        py: Python<'_>,
        q: &PyArrayLike1<'_, f64, AllowTypeChange>,
    ) -> PyResult<()> {
        let m = self.model.get();
        let view = q.as_array();
        if let Some(s) = view.as_slice() {
            m.kernel_q(s, &mut self.q)
        } else {
            let given: Vec<f64> = view.iter().copied().collect();
            m.kernel_q(&given, &mut self.q)
        }
        .map(|_| {
            let _ = py;
        })
    }
}

#[pymethods]
impl Session {
    /// The check in the session's preset: "balanced" (the default) gives `Model.check`'s
    /// verdict and skips the pairs whose distance provably stayed above the margin since
    /// their last exact check; "precise" is `Model.check`; "speed" may answer "unknown".
    fn check(
        &mut self,
        py: Python<'_>,
        q: PyArrayLike1<'_, f64, AllowTypeChange>,
        margin: f64,
    ) -> PyResult<CheckResult> {
        self.load_q(py, &q)?;
        let r = session_check(py, &mut self.inner, &self.q, margin, true)?;
        Ok(self.model.get().result(&r))
    }

    /// The exact check on this session's scratch (no cache): `Model.check`'s verdict.
    fn check_exact(
        &mut self,
        py: Python<'_>,
        q: PyArrayLike1<'_, f64, AllowTypeChange>,
        margin: f64,
    ) -> PyResult<CheckResult> {
        self.load_q(py, &q)?;
        let r = session_check(py, &mut self.inner, &self.q, margin, false)?;
        Ok(self.model.get().result(&r))
    }

    /// The preset `check` runs: ("precise" | "balanced" | "speed", budget).
    #[getter]
    fn preset(&self) -> (&'static str, u32) {
        self.preset
    }

    /// Changes the preset (the cache is kept: its anchors hold whatever the preset).
    #[pyo3(signature = (preset, budget=0))]
    fn set_preset(&mut self, preset: &str, budget: u32) -> PyResult<()> {
        let (name, p) = preset_named(preset)?;
        self.inner.set_preset(p, budget).map_err(to_py)?;
        self.preset = (name, budget);
        Ok(())
    }

    /// What the last cached check did: {"exact_pairs", "skipped_pairs",
    /// "unchecked_pairs", "fk"}.
    #[getter]
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        let s = self.inner.stats();
        let d = pyo3::types::PyDict::new(py);
        d.set_item("exact_pairs", s.exact_pairs)?;
        d.set_item("skipped_pairs", s.skipped_pairs)?;
        d.set_item("unchecked_pairs", s.unchecked_pairs)?;
        d.set_item("fk", s.fk)?;
        Ok(d)
    }

    /// Forgets the cache: the next coherent check checks every pair.
    fn reset(&mut self, py: Python<'_>) {
        let s = &mut self.inner;
        py.detach(|| s.reset());
    }
}

#[pymodule]
#[pyo3(name = "collide")]
fn collide_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Model>()?;
    m.add_class::<Session>()?;
    m.add_class::<CheckResult>()?;
    m.add_class::<VerdictResult>()?;
    m.add_class::<world::World>()?;
    m.add_class::<world::Shape>()?;
    m.add_class::<world::WorldSession>()?;
    Ok(())
}
